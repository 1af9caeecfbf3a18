// node_route: ROUTE, the egress edit stage of a transmit datapath (one per TX datapath).
//
// Takes the segment stream from the buffer's SCHED (NoC header in tuser, out_port set) and edits
// the frame for its output port. THIS IS THE PLACE FOR LATER EGRESS EDITS (tunnel encapsulation,
// label push, tag rewrite): they go next to the VLAN tag insert/strip below.
//
// VLAN egress rule for output p = out_port < PORTS (host outputs, out_port >= PORTS, pass
// unchanged): an access port (cfg_port_trunk[p] = 0) sends untagged; a trunk port sends tagged,
// except the native VLAN (header vid == cfg_port_pvid[12*p +: 12]), which leaves untagged.
//   - arrived tagged (header `tagged`), egress untagged: the 4 tag bytes at offset 12 are
//     removed from the first segment, which gets 4 bytes shorter (bytes 16.. move down by 4).
//   - arrived untagged, egress tagged: 0x8100, {pcp, 1'b0 (DEI), vid} is inserted at offset 12.
//     If the first segment then holds more than SEG_BYTES bytes, it leaves with SEG_BYTES bytes
//     (last = bad = 0) followed by one extra segment with the n + 4 - SEG_BYTES bytes that moved
//     out of it (4 when the first segment was full; it carries the original last and bad, first
//     = 0); the input stalls for one cycle for it. Otherwise the segment just gets 4 bytes longer.
//   - anything else: unchanged.
// Only the first segment of a frame is edited; the others pass unchanged (on the TX side a
// segment may hold fewer than SEG_BYTES bytes). Per output port one bit of state remembers that
// an extra segment was inserted into the frame in progress, so that the later segments of that
// frame get seg_idx + 1 (segments of different outputs interleave). bytes, tkeep (= the low
// `bytes` bits), tlast (= header last) and seg_idx are rewritten to match; other header fields
// (`tagged` included: it tells how the frame arrived) are carried unchanged.
//
// Latency:    1 cycle (segment accepted on s_axis -> on m_axis, output ready).
// Throughput: 1 segment per cycle, except one extra cycle per tag insertion that splits the
//   first segment. Every output, s_axis_tready included, comes from flip-flops: a 3-entry output
//   queue whose registered tready promises room for the 2 segments an input may become.
// Bad input:
//   - a first segment too short to hold the edited bytes (fewer than 16 bytes when stripping,
//     fewer than 12 when inserting: runts the RX side drops) passes unchanged;
//   - s_axis_tkeep and s_axis_tlast are not used: the header fields bytes and last say the same;
//   - out_port >= PORTS (host outputs, or out of range): unchanged.
// Parameters: PORTS 1..16, SEG_BYTES 32 or 64.
`default_nettype none

`include "noc_header.vh"

module node_route #(
    parameter PORTS     = 12,
    parameter SEG_BYTES = 64
) (
    input  wire                     clk,
    input  wire                     rst,

    input  wire [SEG_BYTES*8-1:0]   s_axis_tdata,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [SEG_BYTES-1:0]     s_axis_tkeep,   // = low `bytes` bits: the header is used
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                     s_axis_tlast,   // = header last: the header is used
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [`NOC_W-1:0]        s_axis_tuser,

    output wire [SEG_BYTES*8-1:0]   m_axis_tdata,
    output wire [SEG_BYTES-1:0]     m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [`NOC_W-1:0]        m_axis_tuser,

    input  wire [PORTS-1:0]         cfg_port_trunk,
    input  wire [12*PORTS-1:0]      cfg_port_pvid
);

    generate
        if (PORTS < 1 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_1_to_16 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
    endgenerate

    localparam DW = SEG_BYTES * 8;
    localparam W  = DW + SEG_BYTES + 1 + `NOC_W;   // one queued segment: data, keep, last, header
    localparam [4:0] NPORTS = PORTS[4:0];
    localparam [7:0] SEGB   = SEG_BYTES[7:0];

    function [SEG_BYTES-1:0] keep_of(input [6:0] n);
        keep_of = {SEG_BYTES{1'b1}} >> (SEGB[6:0] - n);
    endfunction

    // ------------------------------------------------------------------ edit decision
    wire [`NOC_W-1:0] hdr    = s_axis_tuser;
    wire [4:0]        op     = hdr[`NOC_OUT_PORT];
    wire              first  = hdr[`NOC_FIRST];
    wire              last   = hdr[`NOC_LAST];
    wire              bad    = hdr[`NOC_BAD];
    wire [6:0]        n      = hdr[`NOC_BYTES];
    wire [11:0]       vid    = hdr[`NOC_VID];
    wire [2:0]        pcp    = hdr[`NOC_PCP];
    wire [5:0]        idx    = hdr[`NOC_SEG_IDX];
    wire              is_port = op < NPORTS;

    reg               trunk;        // cfg of the output port (0 for host outputs)
    reg               pvid_eq;      // the segment's VID is the output port's PVID
    reg               inserted;     // the frame in progress on this output got an extra segment
    reg  [PORTS-1:0]  ins_q;        // per output port: that bit
    integer j;                      // loop index of the clocked block

    // the output port's settings, indexed (a balanced mux tree; entries PORTS..31 read 0); the
    // VID is compared with every port's PVID in parallel and the result bit is selected
    reg  [PORTS-1:0] native;
    integer p;
    always @* begin
        for (p = 0; p < PORTS; p = p + 1) begin
            native[p] = vid == cfg_port_pvid[12*p +: 12];
        end
    end
    wire [31:0]    trunk_all  = {{(32 - PORTS){1'b0}}, cfg_port_trunk};
    wire [31:0]    native_all = {{(32 - PORTS){1'b0}}, native};
    wire [31:0]    ins_all    = {{(32 - PORTS){1'b0}}, ins_q};
    always @* begin
        trunk    = trunk_all[op];
        pvid_eq  = native_all[op];
        inserted = ins_all[op];
    end

    wire       egress_tagged = trunk && !pvid_eq;
    wire       arrived_tagged = hdr[`NOC_TAGGED];
    wire       do_strip      = is_port && first && arrived_tagged && !egress_tagged && n >= 7'd16;
    wire       do_ins        = is_port && first && !arrived_tagged && egress_tagged && n >= 7'd12;
    wire [7:0] n_ins         = {1'b0, n} + 8'd4;
    wire       split         = do_ins && n_ins > SEGB;

    // ------------------------------------------------------------------ edited segment(s)
    wire [31:0]   tag     = {vid[7:0], pcp, 1'b0, vid[11:8], 8'h00, 8'h81};  // bytes 12..15
    wire [DW-1:0] d       = s_axis_tdata;
    wire [DW-1:0] d_ins   = {d[DW-33:96], tag, d[95:0]};
    wire [DW-1:0] d_strip = {32'd0, d[DW-1:128], d[95:0]};
    wire [DW-1:0] d_ext   = {{(DW-32){1'b0}}, d[DW-1:DW-32]};

    reg  [DW-1:0]     a_data;       // the (first) output segment
    reg  [`NOC_W-1:0] a_hdr;
    reg  [`NOC_W-1:0] b_hdr;        // the extra segment of a split insertion

    always @* begin
        a_data = d;
        a_hdr  = hdr;
        if (do_strip) begin
            a_data = d_strip;
            a_hdr[`NOC_BYTES] = n - 7'd4;
        end else if (do_ins) begin
            a_data = d_ins;
            a_hdr[`NOC_BYTES] = split ? SEGB[6:0] : n_ins[6:0];
            a_hdr[`NOC_LAST]  = last && !split;
            a_hdr[`NOC_BAD]   = bad && !split;
        end else if (!first && is_port) begin
            a_hdr[`NOC_SEG_IDX] = idx + {5'd0, inserted};
        end
        b_hdr = hdr;
        b_hdr[`NOC_FIRST]   = 1'b0;
        b_hdr[`NOC_BYTES]   = n_ins[6:0] - SEGB[6:0];
        b_hdr[`NOC_SEG_IDX] = idx + 6'd1;
    end

    // tkeep of the first beat: each case's from n alone, then selected (not computed from the
    // selected byte count, which would put the subtraction after the decision)
    wire [SEG_BYTES-1:0] keep_a = do_strip ? keep_of(n - 7'd4) :
                                  do_ins   ? (split ? {SEG_BYTES{1'b1}} : keep_of(n_ins[6:0])) :
                                             keep_of(n);
    wire [W-1:0] beat_a = {a_data, keep_a, a_hdr[`NOC_LAST], a_hdr};
    wire [W-1:0] beat_b = {d_ext, keep_of(b_hdr[`NOC_BYTES]), b_hdr[`NOC_LAST], b_hdr};

    // ------------------------------------------------------------------ 3-entry output queue
    reg  [W-1:0] q0, q1, q2;        // q0 drives m_axis
    reg  [1:0]   cnt_q;             // entries held, 0..3
    reg          valid_q;           // cnt_q != 0
    reg          ready_q;           // room for 2 entries after this cycle's pop
    reg  [W-1:0] q0_d, q1_d, q2_d;
    reg  [1:0]   cnt_d;

    wire fire = s_axis_tvalid && ready_q;
    wire pop  = valid_q && m_axis_tready;
    wire [1:0] after_pop = cnt_q - {1'b0, pop};

    always @* begin
        // shift out the popped entry, then append the new one(s) behind what is left
        q0_d = pop ? q1 : q0;
        q1_d = pop ? q2 : q1;
        q2_d = q2;
        cnt_d = after_pop;
        if (fire) begin
            case (after_pop)
                2'd0: begin q0_d = beat_a; q1_d = beat_b; end
                2'd1: begin q1_d = beat_a; q2_d = beat_b; end
                default: q2_d = beat_a;   // only reachable without a split (ready_q promised 2)
            endcase
            cnt_d = after_pop + (split ? 2'd2 : 2'd1);
        end
    end

    always @(posedge clk) begin
        q0 <= q0_d;
        q1 <= q1_d;
        q2 <= q2_d;
        if (rst) begin
            cnt_q   <= 2'd0;
            valid_q <= 1'b0;
            ready_q <= 1'b0;
            ins_q   <= {PORTS{1'b0}};
        end else begin
            cnt_q   <= cnt_d;
            valid_q <= cnt_d != 2'd0;
            ready_q <= cnt_d <= 2'd1;
            for (j = 0; j < PORTS; j = j + 1) begin
                if (fire && first && op == j[4:0]) begin
                    ins_q[j] <= split && !last;
                end
            end
        end
    end

    assign s_axis_tready = ready_q;
    assign m_axis_tvalid = valid_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = q0;

endmodule

`default_nettype wire
