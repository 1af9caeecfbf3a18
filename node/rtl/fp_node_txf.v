// fp_node_txf: TXF, the transmit FIFO of one output (one per port, one per host port).
//
// Segments from fp_node_ht (clk) go into a FIFO of FIFO_SEGS segments (ASYNC = 1: fp_axis_async_fifo
// into out_clk, for a port's 1G MAC; ASYNC = 0: fp_axis_fifo, for the host's m_axis in clk). The
// read side (out_clk; clk when ASYNC = 0) serializes each segment's `bytes` bytes, OUT_BYTES per
// beat, onto m_axis.
//
// Input sideband s_axis_tuser: fp_node_ht's reduced tuser, the txf_tuser format (txf_tuser.fmt.toml,
// node/docs/formats/txf_tuser.md): bad, first, last, bytes (1..SEG_BYTES), ts, from_host.
// Any segment may hold fewer than SEG_BYTES bytes (TX side). s_axis_tkeep/tlast are stored but
// not used (bytes and last say the same).
//
// Frame start (a frame starts when its first segment is at the FIFO head and the output is idle):
//   cfg_store_forward = 0 (cut-through): in the cycle after one in which the first segment was
//     at the head and ((now_ns - ts) mod 2^24) >= cfg_release_ns (the comparison is registered,
//     off the FIFO pop path), or at once if from_host or cfg_release_ns = 0. A frame that waited
//     past 2^24 ns looks young again (mod 2^24) and waits up to cfg_release_ns more.
//   cfg_store_forward = 1: when the frame's last segment is in the FIFO. The write side counts
//     frame ends (Gray code, crossed with fp_sync_level when ASYNC = 1) and the read side compares
//     the count, delayed by ENDS_DELAY = 3 read cycles so that the frame's segments are already in
//     the FIFO's read pipeline, with the ends it has read. The release time is not applied.
//   Change cfg_store_forward / cfg_release_ns only while idle (out_clk logic reads them).
//   A segment at the head that is not a first segment while no frame is in progress (never
//   produced by the node) is discarded.
// Serializing: beat = up to OUT_BYTES bytes, packed across segment boundaries (tkeep all ones
//   except on the frame's last beat). With OUT_BYTES > 1 a segment whose bytes do not fill the
//   last beat it contributes to is merged with the next one through a carry register, which
//   costs one idle beat (tvalid low, not an underrun). With OUT_BYTES = 1 every cycle the MAC
//   takes a byte a new one is ready. tuser[0] = 1 on the tlast beat of a frame whose last
//   segment has bad = 1 (the MAC stomps the FCS).
// Underrun: if a frame is in progress, the output register is (or becomes) empty and the FIFO
//   has no segment, ev_underrun pulses (once per frame) and m_axis_tvalid drops: the MAC sees the
//   gap, stomps the FCS and discards the rest of the frame, which is still sent to it as it
//   arrives. It never happens in cut-through when the frame's full segments arrive at least at
//   the 1G line rate: segment k accepted no later than ts + cfg_release_ns + k * SEG_BYTES * 8 ns
//   minus the FIFO latency below (the MAC's preamble adds 64 ns of margin), nor in
//   store-and-forward (the read pipeline then delivers a segment per out_clk cycle).
// Bad input: a segment at the head that is not a first segment while no frame is in progress
//   is discarded (read out, nothing sent); a first segment while a frame is in progress is sent
//   as a continuation of that frame (its first bit is not looked at). A frame whose last segment
//   has bad = 1 is still sent whole, with tuser[0] = 1 on its tlast beat (the MAC stomps the
//   FCS); an underrun is reported and marked as above. bytes = 0 or > SEG_BYTES is the sender's
//   error (fp_node_ht never produces it) and corrupts that frame's data. None of these stalls or
//   locks up the output.
// Timestamp request (TX timestamp injection by the port's MAC): m_axis_ts_insert is 1 on the
//   first beat of a frame when cfg_ts_enable = 1 and, with cfg_ts_by_type = 1, the frame's
//   EtherType is cfg_ts_ethertype: bytes 12-13 of the frame, or bytes 16-17 when bytes 12-13 are
//   0x8100 (one 802.1Q tag). It is decided from the frame's first segment at the FIFO head when
//   the frame starts, so the EtherType must lie in that segment (bytes >= 14, or >= 18 behind a
//   tag; else the frame does not match): fp_node's first segments hold at least SEG_BYTES - 4
//   bytes. 0 on every other beat; held with its beat (output and skid registers), as the MAC
//   reads it from the first beat while it sends the preamble. cfg_ts_* are read in out_clk:
//   change them only while idle. No latency is added: the decision is made in the cycle the
//   frame starts (and kept for its first beat when OUT_BYTES > 1 merges a short first segment).
// Events (clk): ev_frame pulses once per frame whose tlast beat was loaded into the output
//   register, ev_underrun once per underrun frame. ASYNC = 1: carried by a pending counter and a
//   fp_sync_pulse each (none is lost; they arrive 3 to 6 clk cycles late).
// out_room (clk, a register): 1 when FIFO_SEGS - occupancy >= ROOM, occupancy = segments
//   written and not yet read out of the RAM (the two read-side prefetch registers do not count:
//   the capacity is FIFO_SEGS + 2). It reflects the segments accepted up to the edge before the
//   one that loads it: a sender that samples out_room = 1 at an edge may have ROOM segments
//   accepted from the edge before that on without ever seeing s_axis_tready low.
//
// Latency (first segment of a frame, output ready, clk 200 MHz / out_clk 125 MHz; OUT_BYTES > 1:
//   the frame's first segment holds at least OUT_BYTES bytes, else add a cycle per carry merge):
//   - segment accepted on s_axis -> at the read side's head (the FIFO's m_axis_tvalid):
//       ASYNC = 0: 3 cycles (fp_axis_fifo).
//       ASYNC = 1: the 5th out_clk edge after the accepting clk edge, > 4 and <= 5 out_clk
//                  periods (fp_axis_async_fifo; 32 to 40 ns at 125 MHz).
//   - start condition true (the cycle after the release rule was met with the first segment at
//     the head; release 0 or from_host: the first segment at the head; in
//     store-and-forward: the frame-end count seen, which is 3 out_clk cycles after the count
//     crossed) -> first byte valid on m_axis: 1 out_clk cycle.
//   So with cfg_release_ns = 0 a frame's first byte is valid 4 cycles (ASYNC = 0) or > 5, <= 6
//   out_clk periods (ASYNC = 1) after its first segment was accepted; store-and-forward, ASYNC
//   = 0: 5 cycles after its last segment was accepted (when its first segment is already in).
// Throughput: OUT_BYTES bytes per out_clk cycle while data is there (one idle beat per carry
//   merge when OUT_BYTES > 1); input one segment per clk cycle while there is room.
// Output handshake: m_axis comes from the output register, or from a skid register holding the
//   beat m_axis did not take while the output register loaded the next one (a 2:1 select by a
//   flip-flop); the serializer and the FIFO pop advance while either register is empty, so no
//   path runs from m_axis_tready to them (m_axis_tready reaches only the skid flag and the
//   underrun test). Same beats, order and underrun rule as without the skid register.
// Resets: rst (clk) and out_rst (out_clk), both together (see fp_axis_async_fifo). ASYNC = 0:
//   the read side runs on clk and rst; out_clk and out_rst are not used, and now_ns is in clk.
// Parameters: SEG_BYTES 32 or 64; OUT_BYTES 1 or 8; ASYNC 0 or 1; FIFO_SEGS a power of two
//   8..1024; ROOM 1..FIFO_SEGS.
`default_nettype none

`include "fp_txf_tuser.vh"

module fp_node_txf #(
    parameter SEG_BYTES = 64,
    parameter OUT_BYTES = 1,
    parameter ASYNC     = 1,
    parameter FIFO_SEGS = 32,
    parameter ROOM      = 8
) (
    input  wire                     clk,
    input  wire                     rst,

    input  wire [SEG_BYTES*8-1:0]   s_axis_tdata,
    input  wire [SEG_BYTES-1:0]     s_axis_tkeep,
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    input  wire                     s_axis_tlast,
    input  wire [`FP_TXU_W-1:0]        s_axis_tuser,

    output reg                      out_room,
    input  wire                     cfg_store_forward,
    input  wire [23:0]              cfg_release_ns,
    input  wire                     cfg_ts_enable,
    input  wire                     cfg_ts_by_type,
    input  wire [15:0]              cfg_ts_ethertype,
    output wire                     ev_frame,
    output wire                     ev_underrun,

    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                     out_clk,    // unused when ASYNC = 0 (read side on clk)
    input  wire                     out_rst,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [23:0]              now_ns,

    output wire [OUT_BYTES*8-1:0]   m_axis_tdata,
    output wire [OUT_BYTES-1:0]     m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [0:0]               m_axis_tuser,
    output wire                     m_axis_ts_insert
);

    generate
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (OUT_BYTES != 1 && OUT_BYTES != 8) begin : g_bad_out_bytes
            PARAMETER_ERROR_OUT_BYTES_must_be_1_or_8 u_error();
        end
        if (ASYNC != 0 && ASYNC != 1) begin : g_bad_async
            PARAMETER_ERROR_ASYNC_must_be_0_or_1 u_error();
        end
        if (FIFO_SEGS < 8 || FIFO_SEGS > 1024 || (FIFO_SEGS & (FIFO_SEGS - 1)) != 0) begin : g_bad_fifo_segs
            PARAMETER_ERROR_FIFO_SEGS_must_be_a_power_of_two_from_8_to_1024 u_error();
        end
        if (ROOM < 1 || ROOM > FIFO_SEGS) begin : g_bad_room
            PARAMETER_ERROR_ROOM_must_be_1_to_FIFO_SEGS u_error();
        end
    endgenerate

    localparam DW         = SEG_BYTES * 8;
    localparam OW         = OUT_BYTES * 8;
    localparam UW         = `FP_TXU_W;
    localparam AW         = $clog2(FIFO_SEGS);
    localparam EW         = AW + 3;             // frame-end counters: > FIFO_SEGS + 2 frames
    localparam ENDS_DELAY = 3;
    localparam CW         = 4;                  // carry byte count 0..OUT_BYTES-1 (<= 7)
    localparam integer LIMIT_I = FIFO_SEGS - ROOM;
    localparam [AW:0]  LIMIT   = LIMIT_I[AW:0];
    localparam [7:0]   OB      = OUT_BYTES[7:0];

    function [EW-1:0] bin2gray(input [EW-1:0] b);
        bin2gray = b ^ (b >> 1);
    endfunction

    function [OUT_BYTES-1:0] keep_of(input [7:0] n);   // n = 0..OUT_BYTES
        keep_of = ~({OUT_BYTES{1'b1}} << n);
    endfunction

    function [OW-1:0] byte_mask(input [OUT_BYTES-1:0] k);
        integer b;
        for (b = 0; b < OUT_BYTES; b = b + 1) begin
            byte_mask[8*b +: 8] = {8{k[b]}};
        end
    endfunction

    // ------------------------------------------------------------------ read-side clock
    wire rd_clk;                        // out_clk (ASYNC = 1) or clk (ASYNC = 0)
    wire rd_rst;
    generate
        if (ASYNC != 0) begin : g_rd_out_clk
            assign rd_clk = out_clk;
            assign rd_rst = out_rst;
        end else begin : g_rd_clk
            assign rd_clk = clk;
            assign rd_rst = rst;
        end
    endgenerate

    // ------------------------------------------------------------------ FIFO
    wire [AW:0]    occ;
    wire           h_valid;
    wire           h_ready;
    wire [DW-1:0]  h_data;
    wire [UW-1:0]  h_user;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [SEG_BYTES-1:0] h_keep;        // keep and tlast are carried in the sideband (bytes, last)
    wire           h_tlast;
    /* verilator lint_on UNUSEDSIGNAL */

    generate
        if (ASYNC != 0) begin : g_async
            /* verilator lint_off UNUSEDSIGNAL */
            wire [AW:0] m_occ;          // the read side needs no fill level
            wire        drop_bad, drop_oversize;  // stream mode: never dropped
            /* verilator lint_on UNUSEDSIGNAL */
            fp_axis_async_fifo #(
                .DATA_WIDTH(DW), .USER_WIDTH(UW), .DEPTH(FIFO_SEGS), .FRAME_MODE(0)
            ) u_fifo (
                .s_clk(clk), .s_rst(rst),
                .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
                .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
                .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
                .s_occupancy(occ), .s_drop_bad(drop_bad), .s_drop_oversize(drop_oversize),
                .m_clk(rd_clk), .m_rst(rd_rst),
                .m_axis_tdata(h_data), .m_axis_tkeep(h_keep), .m_axis_tvalid(h_valid),
                .m_axis_tready(h_ready), .m_axis_tlast(h_tlast), .m_axis_tuser(h_user),
                .m_occupancy(m_occ)
            );
        end else begin : g_sync
            /* verilator lint_off UNUSEDSIGNAL */
            wire drop_bad, drop_oversize;  // stream mode: never dropped
            /* verilator lint_on UNUSEDSIGNAL */
            fp_axis_fifo #(
                .DATA_WIDTH(DW), .USER_WIDTH(UW), .DEPTH(FIFO_SEGS), .FRAME_MODE(0)
            ) u_fifo (
                .clk(clk), .rst(rst),
                .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep),
                .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
                .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
                .m_axis_tdata(h_data), .m_axis_tkeep(h_keep), .m_axis_tvalid(h_valid),
                .m_axis_tready(h_ready), .m_axis_tlast(h_tlast), .m_axis_tuser(h_user),
                .occupancy(occ), .drop_bad(drop_bad), .drop_oversize(drop_oversize)
            );
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            out_room <= 1'b0;
        end else begin
            out_room <= occ <= LIMIT;
        end
    end

    // ------------------------------------------------------------------ frame ends (store-and-forward)
    // The count of frame ends + 1 and its Gray code are kept ready in registers, so that the FIFO's s_axis_tready
    // only selects (no adder behind the handshake).
    reg  [EW-1:0] ends_wr_gray_q;       // clk: Gray code of the frame ends accepted
    reg  [EW-1:0] ends_wr_p1_q;         // frame ends accepted + 1
    reg  [EW-1:0] ends_wr_p1_gray_q;    // bin2gray(ends_wr_q + 1)
    wire          ends_wr_inc = s_axis_tvalid && s_axis_tready && s_axis_tuser[2];

    always @(posedge clk) begin
        if (rst) begin
            ends_wr_gray_q    <= {EW{1'b0}};
            ends_wr_p1_q      <= {{(EW-1){1'b0}}, 1'b1};
            ends_wr_p1_gray_q <= bin2gray({{(EW-1){1'b0}}, 1'b1});
        end else if (ends_wr_inc) begin
            ends_wr_gray_q    <= ends_wr_p1_gray_q;
            ends_wr_p1_q      <= ends_wr_p1_q + 1'b1;
            ends_wr_p1_gray_q <= bin2gray(ends_wr_p1_q + 1'b1);
        end
    end

    wire [EW-1:0] ends_gray_m;          // out_clk
    generate
        if (ASYNC != 0) begin : g_ends_sync
            fp_sync_level #(.WIDTH(EW), .STAGES(2)) u_ends_sync (
                .clk(rd_clk), .rst(rd_rst), .in(ends_wr_gray_q), .out(ends_gray_m)
            );
        end else begin : g_ends_same
            assign ends_gray_m = ends_wr_gray_q;
        end
    endgenerate

    reg  [(ENDS_DELAY-1)*EW-1:0] ends_dly_q; // shift register, newest in the low EW bits (complete_q is the last stage)
    reg  [EW-1:0] ends_rd_q;            // out_clk: frame ends popped from the FIFO
    reg  [EW-1:0] ends_rd_gray_q;       // bin2gray(ends_rd_q)
    reg  [EW-1:0] ends_rd_p1_gray_q;    // bin2gray(ends_rd_q + 1)
    // complete_q = (delayed write count != read count), formed from both counts' next values
    // so that it is a register (the compare is off the FIFO pop path) and not a cycle late
    reg           complete_q;
    wire          complete = complete_q;

    // ------------------------------------------------------------------ serializer (out_clk)
    wire          h_bad   = h_user[`FP_TXU_BAD];
    wire          h_first = h_user[`FP_TXU_FIRST];
    wire          h_last  = h_user[`FP_TXU_LAST];
    wire [6:0]    h_bytes = h_user[`FP_TXU_BYTES];
    wire [23:0]   h_ts    = h_user[`FP_TXU_TS];
    wire          h_host  = h_user[`FP_TXU_FROM_HOST];
    wire          pop_end = h_valid && h_ready && h_last;   // a frame's last segment leaves the FIFO
    wire [EW-1:0] ends_rd_gray_d = pop_end ? ends_rd_p1_gray_q : ends_rd_gray_q;

    reg           busy_q;               // a frame is in progress
    reg  [6:0]    pos_q;                // next byte of the head segment
    reg  [7:0]    pos_p1_q;             // pos_q + 1 (OUT_BYTES = 1: the end test, no subtract)
    reg  [CW-1:0] cnt_q;                // carry bytes held (OUT_BYTES > 1)
    reg  [OW-1:0] carry_q;              // carry bytes, the rest zero
    reg           under_q;              // this frame already underran
    reg  [OW-1:0] m_data_q;
    reg  [OUT_BYTES-1:0] m_keep_q;
    reg           m_valid_q, m_last_q, m_bad_q, m_ts_q;
    reg           ts_pend_q;            // the started frame's request, its first beat not yet out
    // skid register: the beat m_axis did not take while the output register loads the next
    reg           sk_valid_q, sk_last_q, sk_bad_q, sk_ts_q;
    reg  [OW-1:0] sk_data_q;
    reg  [OUT_BYTES-1:0] sk_keep_q;
    reg           ev_frame_m_q, ev_under_m_q;

    // OUT_BYTES = 1: every beat leaves (a segment holds >= 1 byte), nothing is ever carried, so
    // the carry count and bytes are constant 0 and the logic below folds to a byte counter
    wire [CW-1:0] cnt      = (OUT_BYTES > 1) ? cnt_q : {CW{1'b0}};
    wire [OW-1:0] carry    = (OUT_BYTES > 1) ? carry_q : {OW{1'b0}};
    // The release rule is compared a cycle ahead and registered (rel_q), so that the 24-bit
    // subtract and compare do not sit in front of the FIFO pop: rel_q says the head of the
    // previous cycle met it, head_same_q that this cycle's head is that same segment (it was
    // valid and not popped). cfg_release_ns = 0 (rel0_q) needs no comparison.
    reg           rel_q, head_same_q, rel0_q;
    wire [23:0]   age      = now_ns - h_ts;
    wire          go       = cfg_store_forward ? complete
                                               : (h_host || rel0_q || (rel_q && head_same_q));
    wire          start    = !busy_q && h_valid && h_first && go;
    wire          orphan   = !busy_q && h_valid && !h_first;
    // The output register may load while it or the skid register is empty (flip-flops: no path
    // from m_axis_tready to the FIFO pop or the serializer); a beat it holds that m_axis does not
    // take moves to the skid register when that is empty.
    wire          out_free = !sk_valid_q || !m_valid_q;
    // m_axis has nothing to show next cycle unless the output register loads now: the skid
    // register drains (or is empty) and the output register empties (or is empty)
    wire          drains   = sk_valid_q ? (m_axis_tready && !m_valid_q) : (!m_valid_q || m_axis_tready);
    wire          step     = out_free && h_valid && (busy_q || start);
    wire [7:0]    rem      = {1'b0, h_bytes} - {1'b0, pos_q};
    wire [7:0]    need     = OB - {4'd0, cnt};
    // the head segment ends in this beat; OUT_BYTES = 1: when its byte pos_q is its last
    wire          fits     = (OUT_BYTES > 1) ? rem <= need : pos_p1_q >= {1'b0, h_bytes};
    // a beat leaves (else: carry and merge); OUT_BYTES = 1: always
    wire          emit     = (OUT_BYTES > 1) ? (rem >= need || h_last) : 1'b1;
    wire [7:0]    take     = fits ? rem : need;
    wire [7:0]    fill     = {4'd0, cnt} + take;
    wire          beat_last = h_last && fits;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [DW-1:0] seg_sh   = h_data >> {pos_q, 3'b000};  // a beat takes only its low OUT_BYTES bytes
    /* verilator lint_on UNUSEDSIGNAL */
    wire [OW-1:0] merged   = (seg_sh[OW-1:0] << {cnt, 3'b000}) | carry;
    // the next byte when the segment does not end here (OUT_BYTES = 1: pos_q + 1, registered)
    wire [6:0]    pos_next = (OUT_BYTES > 1) ? pos_q + take[6:0] : pos_p1_q[6:0];
    wire [OUT_BYTES-1:0] fill_keep = (OUT_BYTES > 1) ? keep_of(fill) : {OUT_BYTES{1'b1}};
    // m_axis runs dry: both registers empty next cycle and nothing to load
    wire          underrun = busy_q && !h_valid && drains && !under_q;

    assign h_ready = (step && fits) || orphan;

    // timestamp request of the frame starting: the EtherType at bytes 12-13, or 16-17 behind an
    // 802.1Q tag, from the head segment (byte 12 is tdata[103:96], the first byte of the pair
    // the most significant)
    wire [15:0]   et_12    = {h_data[12*8 +: 8], h_data[13*8 +: 8]};
    wire [15:0]   et_16    = {h_data[16*8 +: 8], h_data[17*8 +: 8]};
    wire          has_14   = h_bytes >= 7'd14;
    wire          has_18   = h_bytes >= 7'd18;
    wire          ts_type  = (has_14 && et_12 == cfg_ts_ethertype)
                          || (has_18 && et_12 == 16'h8100 && et_16 == cfg_ts_ethertype);
    wire          ts_req   = cfg_ts_enable && (!cfg_ts_by_type || ts_type);

    always @(posedge rd_clk) begin
        rel_q       <= age >= cfg_release_ns;
        rel0_q      <= cfg_release_ns == 24'd0;
        head_same_q <= h_valid && !h_ready && !rd_rst;
        if (step && emit) begin
            m_data_q <= merged & byte_mask(fill_keep);
            m_keep_q <= fill_keep;
            m_last_q <= beat_last;
            m_bad_q  <= h_bad && beat_last;
            // the first beat: in the start cycle, or (OUT_BYTES > 1) later, after a carry merge
            m_ts_q   <= start ? ts_req : ts_pend_q;
        end
        if (rd_rst) begin
            busy_q       <= 1'b0;
            ts_pend_q    <= 1'b0;
            pos_q        <= 7'd0;
            pos_p1_q     <= 8'd1;
            cnt_q        <= {CW{1'b0}};
            carry_q      <= {OW{1'b0}};
            under_q      <= 1'b0;
            m_valid_q    <= 1'b0;
            sk_valid_q   <= 1'b0;
            ev_frame_m_q <= 1'b0;
            ev_under_m_q <= 1'b0;
            ends_rd_q    <= {EW{1'b0}};
            ends_rd_gray_q <= {EW{1'b0}};
            ends_rd_p1_gray_q <= bin2gray({{(EW-1){1'b0}}, 1'b1});
            complete_q   <= 1'b0;
            ends_dly_q   <= {((ENDS_DELAY-1)*EW){1'b0}};
        end else begin
            if (out_free) begin
                m_valid_q <= step && emit;
            end
            if (!sk_valid_q) begin
                sk_valid_q <= m_valid_q && !m_axis_tready;
            end else if (m_axis_tready) begin
                sk_valid_q <= 1'b0;
            end
            if (step && start) begin
                ts_pend_q <= ts_req && !emit;
            end else if (step && emit) begin
                ts_pend_q <= 1'b0;
            end
            if (step) begin
                pos_q    <= fits ? 7'd0 : pos_next;
                pos_p1_q <= fits ? 8'd1 : {1'b0, pos_next} + 8'd1;
                busy_q <= !(emit && beat_last);
                if (emit) begin
                    cnt_q   <= {CW{1'b0}};
                    carry_q <= {OW{1'b0}};
                end else begin
                    cnt_q   <= fill[CW-1:0];
                    carry_q <= merged & byte_mask(fill_keep);
                end
            end
            if (underrun) begin
                under_q <= 1'b1;
            end else if (step && emit && beat_last) begin
                under_q <= 1'b0;
            end
            ev_frame_m_q <= step && emit && beat_last;
            ev_under_m_q <= underrun;
            if (pop_end) begin
                ends_rd_q         <= ends_rd_q + 1'b1;
                ends_rd_gray_q    <= ends_rd_p1_gray_q;
                ends_rd_p1_gray_q <= bin2gray(ends_rd_q + {{(EW-2){1'b0}}, 2'd2});
            end
            complete_q <= ends_dly_q[(ENDS_DELAY-2)*EW +: EW] != ends_rd_gray_d;
            ends_dly_q <= {ends_dly_q[(ENDS_DELAY-2)*EW-1:0], ends_gray_m};
        end
    end

    always @(posedge rd_clk) begin
        if (!sk_valid_q) begin
            sk_data_q <= m_data_q;
            sk_keep_q <= m_keep_q;
            sk_last_q <= m_last_q;
            sk_bad_q  <= m_bad_q;
            sk_ts_q   <= m_ts_q;
        end
    end

    assign m_axis_tdata  = sk_valid_q ? sk_data_q : m_data_q;
    assign m_axis_tkeep  = sk_valid_q ? sk_keep_q : m_keep_q;
    assign m_axis_tvalid = sk_valid_q || m_valid_q;
    assign m_axis_tlast  = sk_valid_q ? sk_last_q : m_last_q;
    assign m_axis_tuser  = sk_valid_q ? sk_bad_q : m_bad_q;
    assign m_axis_ts_insert = sk_valid_q ? sk_ts_q : m_ts_q;

    // ------------------------------------------------------------------ events to clk
    generate
        if (ASYNC != 0) begin : g_ev_async
            wire [1:0] ev_m = {ev_under_m_q, ev_frame_m_q};
            wire [1:0] ev_s;
            genvar e;
            for (e = 0; e < 2; e = e + 1) begin : g_ev
                reg  [2:0] pend_q;      // events not yet sent across
                wire       busy;
                wire       send = pend_q != 3'd0 && !busy;
                always @(posedge rd_clk) begin
                    if (rd_rst) begin
                        pend_q <= 3'd0;
                    end else begin
                        pend_q <= pend_q + {2'd0, ev_m[e]} - {2'd0, send};
                    end
                end
                fp_sync_pulse #(.STAGES(2)) u_sync (
                    .src_clk(rd_clk), .src_rst(rd_rst), .src_pulse(send), .src_busy(busy),
                    .dst_clk(clk), .dst_rst(rst), .dst_pulse(ev_s[e])
                );
            end
            assign ev_frame    = ev_s[0];
            assign ev_underrun = ev_s[1];
        end else begin : g_ev_sync
            assign ev_frame    = ev_frame_m_q;
            assign ev_underrun = ev_under_m_q;
        end
    endgenerate

endmodule

`default_nettype wire
