// fp_node_route: ROUTE, the egress edit stage of a transmit datapath (one per TX datapath).
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
// Latency:    2 cycles (segment accepted on s_axis -> on m_axis, output ready): the edit
//   decision (the output port's settings, the VID compare, the new byte count, tkeep and header)
//   is registered with the segment in the first cycle; the second selects the edited data and
//   appends it to the output queue. (One cycle until 2026-11-26: the decision fed the 512-bit
//   select and the queue in the same cycle, 71 MHz on ECP5-6.)
// Throughput: 1 segment per cycle, except one extra cycle per tag insertion that splits the
//   first segment. Every output, s_axis_tready included, comes from flip-flops: a 4-entry output
//   queue whose registered tready promises room for what the decision register holds (1 or 2
//   segments) plus the 2 segments the next input may become.
// Bad input:
//   - a first segment too short to hold the edited bytes (fewer than 16 bytes when stripping,
//     fewer than 12 when inserting: runts the RX side drops) passes unchanged;
//   - s_axis_tkeep and s_axis_tlast are not used: the header fields bytes and last say the same;
//   - out_port >= PORTS (host outputs, or out of range): unchanged.
// Parameters: PORTS 1..16, SEG_BYTES 32 or 64.
`default_nettype none

`include "fp_noc_header.vh"

module fp_node_route #(
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
    input  wire [`FP_NOC_W-1:0]        s_axis_tuser,

    output wire [SEG_BYTES*8-1:0]   m_axis_tdata,
    output wire [SEG_BYTES-1:0]     m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [`FP_NOC_W-1:0]        m_axis_tuser,

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
    localparam W  = DW + SEG_BYTES + 1 + `FP_NOC_W;   // one queued segment: data, keep, last, header
    localparam [4:0] NPORTS = PORTS[4:0];
    localparam [7:0] SEGB   = SEG_BYTES[7:0];

    function [SEG_BYTES-1:0] keep_of(input [6:0] n);
        keep_of = {SEG_BYTES{1'b1}} >> (SEGB[6:0] - n);
    endfunction

    // ------------------------------------------------------------------ edit decision
    wire [`FP_NOC_W-1:0] hdr    = s_axis_tuser;
    wire [4:0]        op     = hdr[`FP_NOC_OUT_PORT];
    wire              first  = hdr[`FP_NOC_FIRST];
    wire              last   = hdr[`FP_NOC_LAST];
    wire [6:0]        n      = hdr[`FP_NOC_BYTES];
    wire [11:0]       vid    = hdr[`FP_NOC_VID];
    wire [5:0]        idx    = hdr[`FP_NOC_SEG_IDX];
    wire              is_port = op < NPORTS;

    reg               egress_tagged; // the output port sends this VID tagged (0 for host outputs)
    reg               inserted;     // the frame in progress on this output got an extra segment
    reg  [PORTS-1:0]  ins_q;        // per output port: that bit
    integer j;                      // loop index of the clocked block

    // every port's egress rule for this VID in parallel (trunk and not its PVID), then the
    // output port's bit selected (a balanced mux tree; entries PORTS..31 read 0)
    reg  [PORTS-1:0] etag;
    integer p;
    always @* begin
        for (p = 0; p < PORTS; p = p + 1) begin
            etag[p] = cfg_port_trunk[p] && vid != cfg_port_pvid[12*p +: 12];
        end
    end
    wire [31:0]    etag_all = {{(32 - PORTS){1'b0}}, etag};
    wire [31:0]    ins_all  = {{(32 - PORTS){1'b0}}, ins_q};
    always @* begin
        egress_tagged = etag_all[op];
        inserted      = ins_all[op];
    end

    wire       arrived_tagged = hdr[`FP_NOC_TAGGED];
    wire       do_strip      = is_port && first && arrived_tagged && !egress_tagged && n >= 7'd16;
    wire       do_ins        = is_port && first && !arrived_tagged && egress_tagged && n >= 7'd12;
    wire [6:0] n_ins         = n + 7'd4;                       // n <= 64: no overflow
    wire       n_big         = {1'b0, n} > SEGB - 8'd4;   // n + 4 > SEG_BYTES, off the adder
    wire       split         = do_ins && n_big;
    wire       bump          = !first && is_port && inserted;   // seg_idx + 1
    wire [6:0] n_b           = n_ins - SEGB[6:0];           // the extra segment's bytes

    reg  ready_q;                   // s_axis_tready, see the header
    wire fire = s_axis_tvalid && ready_q;

    // ------------------------------------------------------------------ decision register
    // Registered: the segment, the decision bits, and every variant of the edited fields that
    // the decision selects from, each computed from the header alone (so the adders are not
    // behind the decision: Yosys would otherwise share them and put the select before them).
    // The next cycle selects with the registered bits and appends to the output queue.
    reg  [DW-1:0]        r_d;
    reg  [`FP_NOC_W-1:0]    r_hdr;
    reg                  r_strip, r_ins, r_split, r_bump;
    reg  [6:0]           r_n_m4, r_n_p4, r_n_b;
    reg  [5:0]           r_idx_p1;
    reg  [SEG_BYTES-1:0] r_keep_n, r_keep_m4, r_keep_p4, r_keep_b;
    reg                  r_valid;          // a segment is in the register (pushed this cycle)

    always @(posedge clk) begin
        if (fire) begin
            r_d       <= s_axis_tdata;
            r_hdr     <= hdr;
            r_strip   <= do_strip;
            r_ins     <= do_ins;
            r_split   <= split;
            r_bump    <= bump;
            r_n_m4    <= n - 7'd4;
            r_n_p4    <= n_ins;
            r_n_b     <= n_b;
            r_idx_p1  <= idx + 6'd1;
            r_keep_n  <= keep_of(n);
            r_keep_m4 <= keep_of(n - 7'd4);
            r_keep_p4 <= keep_of(n_ins);
            r_keep_b  <= keep_of(n_b);
        end
    end

    // ------------------------------------------------------------------ edited segment(s)
    wire [11:0] r_vid = r_hdr[`FP_NOC_VID];
    wire [2:0]  r_pcp = r_hdr[`FP_NOC_PCP];
    wire [31:0] r_tag = {r_vid[7:0], r_pcp, 1'b0, r_vid[11:8], 8'h00, 8'h81};  // bytes 12..15

    reg  [`FP_NOC_W-1:0]    hdr_a, hdr_b;
    always @* begin
        hdr_a = r_hdr;
        if (r_strip) begin
            hdr_a[`FP_NOC_BYTES] = r_n_m4;
        end else if (r_ins) begin
            hdr_a[`FP_NOC_BYTES] = r_split ? SEGB[6:0] : r_n_p4;
            hdr_a[`FP_NOC_LAST]  = r_hdr[`FP_NOC_LAST] && !r_split;
            hdr_a[`FP_NOC_BAD]   = r_hdr[`FP_NOC_BAD] && !r_split;
        end else if (r_bump) begin
            hdr_a[`FP_NOC_SEG_IDX] = r_idx_p1;
        end
        hdr_b = r_hdr;
        hdr_b[`FP_NOC_FIRST]   = 1'b0;
        hdr_b[`FP_NOC_BYTES]   = r_n_b;
        hdr_b[`FP_NOC_SEG_IDX] = r_idx_p1;
    end
    wire [SEG_BYTES-1:0] keep_a = r_strip ? r_keep_m4 :
                                  r_ins   ? (r_split ? {SEG_BYTES{1'b1}} : r_keep_p4) : r_keep_n;
    wire [DW-1:0] data_a = r_strip ? {32'd0, r_d[DW-1:128], r_d[95:0]} :
                           r_ins   ? {r_d[DW-33:96], r_tag, r_d[95:0]} : r_d;
    wire [DW-1:0] data_b = {{(DW-32){1'b0}}, r_d[DW-1:DW-32]};

    wire [W-1:0] beat_a = {data_a, keep_a, hdr_a[`FP_NOC_LAST], hdr_a};
    wire [W-1:0] beat_b = {data_b, r_keep_b, hdr_b[`FP_NOC_LAST], hdr_b};

    // ------------------------------------------------------------------ 4-entry output queue
    reg  [W-1:0] q0, q1, q2, q3;    // q0 drives m_axis
    reg  [2:0]   cnt_q;             // entries held, 0..4
    reg          valid_q;           // cnt_q != 0
    reg  [W-1:0] q0_d, q1_d, q2_d, q3_d;
    reg  [2:0]   cnt_d;

    wire pop  = valid_q && m_axis_tready;
    wire [2:0] after_pop = cnt_q - {2'b0, pop};
    // entries the decision register pushes next cycle (what fire loads now)
    wire [2:0] push_next = fire ? (split ? 3'd2 : 3'd1) : 3'd0;

    always @* begin
        cnt_d = after_pop;
        if (r_valid) begin
            cnt_d = after_pop + (r_split ? 3'd2 : 3'd1);
        end
    end

    // Where the register's segment(s) go, as one-hot selects registered a cycle ahead from the
    // count and the decision that fire loads (entry i gets beat a / b: sa0 / sb0 if nothing is
    // popped this cycle, sa1 / sb1 if the queue shifts down), so that the data select behind
    // m_axis_tready is one level: q_i <= pop ? (sa1 ? a : sb1 ? b : q_i+1) : (sa0 ? a : sb0 ? b : q_i).
    reg  [3:0] sa0, sb0, sa1, sb1;
    integer k;
    always @(posedge clk) begin
        for (k = 0; k < 4; k = k + 1) begin
            sa0[k] <= fire && cnt_d == k[2:0];
            sb0[k] <= fire && split && cnt_d + 3'd1 == k[2:0];
            sa1[k] <= fire && cnt_d == k[2:0] + 3'd1;
            sb1[k] <= fire && split && cnt_d == k[2:0];
        end
    end
    wire [W-1:0] q4 = q3;           // shifted into q3 on a pop: a don't-care (q3 is then empty)
    always @* begin
        q0_d = pop ? (sa1[0] ? beat_a : sb1[0] ? beat_b : q1) : (sa0[0] ? beat_a : sb0[0] ? beat_b : q0);
        q1_d = pop ? (sa1[1] ? beat_a : sb1[1] ? beat_b : q2) : (sa0[1] ? beat_a : sb0[1] ? beat_b : q1);
        q2_d = pop ? (sa1[2] ? beat_a : sb1[2] ? beat_b : q3) : (sa0[2] ? beat_a : sb0[2] ? beat_b : q2);
        q3_d = pop ? (sa1[3] ? beat_a : sb1[3] ? beat_b : q4) : (sa0[3] ? beat_a : sb0[3] ? beat_b : q3);
    end

    always @(posedge clk) begin
        q0 <= q0_d;
        q1 <= q1_d;
        q2 <= q2_d;
        q3 <= q3_d;
        if (rst) begin
            r_valid <= 1'b0;
            cnt_q   <= 3'd0;
            valid_q <= 1'b0;
            ready_q <= 1'b0;
            ins_q   <= {PORTS{1'b0}};
        end else begin
            r_valid <= fire;
            cnt_q   <= cnt_d;
            valid_q <= cnt_d != 3'd0;
            // with no pop before then: the queue after this cycle, what the register pushes
            // next cycle and the 2 a segment accepted next cycle may become fit in 4; and the
            // input stalls for the cycle after a split, as the extra segment takes the output's
            // next cycle (so every segment leaves exactly 2 cycles after it was accepted)
            ready_q <= ({1'b0, cnt_d} + {1'b0, push_next}) <= 4'd2 && !(fire && split);
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
