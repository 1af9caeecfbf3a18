// fp_node_rxf: receive FIFO of a node port. Cuts the port's byte stream into segments, carries them
// across to the datapath clock and widens them to one segment per beat.
//
// Input (in_clk): the frame stream of a MAC (IN_BYTES = 1, no tready: BACKPRESSURE = 0) or of the
// host port (IN_BYTES = 8, BACKPRESSURE = 1). s_axis_tuser[0] = bad frame, looked at on tlast only.
// s_axis_ts is the frame's SFD time (fp_time, Q48.16 ns), taken on the frame's first beat; bits
// 39:16 (ns modulo 2^24) are kept. Every beat but the last carries IN_BYTES bytes (tkeep is only
// looked at on the tlast beat: its highest set bit + 1 is the byte count, at least 1).
// Output (clk): one segment per beat, SEG_BYTES bytes (byte 0 in tdata[7:0]); every segment of a
// frame but its last is full; tkeep = the low `bytes` bits; tlast = last segment of the frame;
// m_axis_tuser (`FP_RXU_W = 34 bits, format rxf_tuser: rxf_tuser.fmt.toml, node/docs/formats/rxf_tuser.md;
// fp_node_hc turns it into the NoC header):
//   [0]     bad    the frame is bad (MAC tuser, truncated, or cut by an overflow); last segment only
//   [1]     first  first segment of the frame
//   [8:2]   bytes  valid bytes in the segment, 1..SEG_BYTES
//   [9]     trunc  the frame was longer than MAX_BYTES and was cut (bad is set too)
//   [33:10] ts     s_axis_ts[39:16] of the frame's first beat (same on every segment)
//
// Segmenting. Bytes are gathered in a segment register; the beat that brings a segment's last byte
// (byte SEG_BYTES-1 of the segment, tlast, or the truncation byte) writes the FIFO in the same
// cycle, with that beat merged in combinationally, so no cycle is spent between the input and the
// crossing FIFO. Stale bytes beyond `bytes` in a frame's last segment are left as they are.
// Dropping and marking (each frame received gives one ev_frame pulse and at most one of the
// other events):
//   - a frame that ends within its first segment with tuser[0] = 1, or shorter than 14 bytes (no
//     Ethernet header), never enters the FIFO: ev_drop_bad.
//   - a longer bad frame has bad = 1 on its last segment (it is forwarded; no event here).
//   - a frame longer than MAX_BYTES: the segment holding byte MAX_BYTES-1 becomes the last one,
//     with bad = 1 and trunc = 1; the rest of the frame is discarded: ev_trunc.
//   - overflow (BACKPRESSURE = 0 only). One FIFO slot is kept in reserve for ending a frame: a
//     segment that is not its frame's last is written only while at least 2 slots are free, a last
//     segment needs 1. A frame whose first segment finds no room is dropped whole (nothing of it
//     enters the FIFO). A later segment that finds fewer than 2 free slots is written into the
//     reserve as the frame's last, with bad = 1 (trunc = 0), and the rest of the frame is
//     discarded. Either way ev_drop_overflow. So the FIFO never holds a cut frame without bad on
//     its last segment, and no frame is left open.
//   With BACKPRESSURE = 1 nothing is dropped for room: s_axis_tready is low while the FIFO is full
//   (except while discarding the tail of a truncated frame, which is taken at full rate).
// Events: single-cycle pulses in the clk domain. With ASYNC = 1 they are counted in in_clk and
//   crossed by fp_sync_pulse, one pulse per round trip (about 6 cycles of the slower clock); up to 15
//   events per kind can wait, far more than a stream of minimum-size frames can build up.
//
// Latency (from the in_clk edge that accepts the beat completing a segment - its byte
//   SEG_BYTES-1, or the frame's last byte - to the first clk edge at which m_axis_tvalid is sampled
//   high with that segment; FIFO empty, m_axis_tready high):
//   ASYNC = 0: exactly 3 clk cycles (the fp_axis_fifo: RAM write, RAM read, output register).
//   ASYNC = 1: the fp_axis_async_fifo's stream-mode figure: more than 4 and at most 5 clk periods,
//              i.e. the 5th clk edge after the in_clk edge (the 4th if a clk edge coincides with
//              it). in_clk 125 MHz / clk 200 MHz: 4 to 5 clk cycles, 20 to 25 ns. A metastable
//              synchronizer flop can add one clk period in hardware.
// Throughput: one input beat per in_clk cycle (line rate for IN_BYTES = 1 with no tready; one
//   beat per cycle for IN_BYTES = 8 while the FIFO has room) as long as the output (one segment
//   per clk cycle) keeps up with the segments made: at most one per SEG_BYTES / IN_BYTES input
//   beats within a frame, and one per frame (a frame of 14 bytes or more takes at least
//   14 / IN_BYTES beats), e.g. the MAC at 125 MHz into clk at 125 or 200 MHz; the host at the same
//   clock, always. The event crossing (ASYNC = 1) needs frames on average at least one fp_sync_pulse
//   round trip apart (~6 cycles of the slower clock). No byte count event: fp_node_hc gives ev_bytes.
// Capacity: FIFO_SEGS segments (+2 in the async FIFO's output registers); BACKPRESSURE = 0 keeps one
//   of them for ending cut frames.
// Resets: in_rst (in_clk) and rst (clk) synchronous to their clocks; with ASYNC = 1 assert both
//   together as fp_axis_async_fifo requires (see there). With ASYNC = 0 in_clk and in_rst are not
//   used: everything runs on clk / rst.
// Bad input: tkeep holes are carried as data; a zero tkeep on tlast counts as one byte. A frame
//   that is both short and bad counts once (ev_drop_bad).
// Parameters: IN_BYTES 1 or 8; SEG_BYTES 32 or 64; FIFO_SEGS a power of two, 8..1024;
//   MAX_BYTES SEG_BYTES+1 .. 65535; ASYNC 0 or 1; BACKPRESSURE 0 or 1.
`default_nettype none

`include "fp_rxf_tuser.vh"

module fp_node_rxf #(
    parameter IN_BYTES     = 1,
    parameter SEG_BYTES    = 64,
    parameter FIFO_SEGS    = 8,
    parameter MAX_BYTES    = 1518,
    parameter ASYNC        = 1,
    parameter BACKPRESSURE = 0
) (
    input  wire                    in_clk,
    input  wire                    in_rst,
    input  wire                    clk,
    input  wire                    rst,

    input  wire [IN_BYTES*8-1:0]   s_axis_tdata,
    input  wire [IN_BYTES-1:0]     s_axis_tkeep,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,
    input  wire                    s_axis_tlast,
    input  wire [0:0]              s_axis_tuser,
    input  wire [63:0]             s_axis_ts,

    output wire [SEG_BYTES*8-1:0]  m_axis_tdata,
    output wire [SEG_BYTES-1:0]    m_axis_tkeep,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast,
    output wire [`FP_RXU_W-1:0]       m_axis_tuser,

    output wire                    ev_frame,
    output wire                    ev_drop_bad,
    output wire                    ev_trunc,
    output wire                    ev_drop_overflow
);

    generate
        if (IN_BYTES != 1 && IN_BYTES != 8) begin : g_bad_in_bytes
            PARAMETER_ERROR_IN_BYTES_must_be_1_or_8 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (FIFO_SEGS < 8 || FIFO_SEGS > 1024 || (FIFO_SEGS & (FIFO_SEGS - 1)) != 0) begin : g_bad_fifo_segs
            PARAMETER_ERROR_FIFO_SEGS_must_be_a_power_of_two_from_8_to_1024 u_error();
        end
        if (MAX_BYTES <= SEG_BYTES || MAX_BYTES > 65535) begin : g_bad_max_bytes
            PARAMETER_ERROR_MAX_BYTES_must_be_above_SEG_BYTES_and_at_most_65535 u_error();
        end
        if (ASYNC != 0 && ASYNC != 1) begin : g_bad_async
            PARAMETER_ERROR_ASYNC_must_be_0_or_1 u_error();
        end
        if (BACKPRESSURE != 0 && BACKPRESSURE != 1) begin : g_bad_backpressure
            PARAMETER_ERROR_BACKPRESSURE_must_be_0_or_1 u_error();
        end
    endgenerate

    localparam UW      = `FP_RXU_W;    // m_axis_tuser: the rxf_tuser format

    localparam SB      = $clog2(SEG_BYTES);            // byte offset bits within a segment
    localparam LB      = $clog2(IN_BYTES);             // byte offset bits within an input beat
    localparam CW0     = $clog2(MAX_BYTES + IN_BYTES + 1);
    localparam CW      = (CW0 < 8) ? 8 : CW0;          // frame byte counter
    localparam AW      = $clog2(FIFO_SEGS);
    localparam MIN_BYTES = 14;                         // Ethernet header

    localparam integer   IN_I   = IN_BYTES;
    localparam integer   MAX_I  = MAX_BYTES;
    localparam integer   MIN_I  = MIN_BYTES;
    localparam integer   SEG_I  = SEG_BYTES;
    localparam [CW-1:0]  IN_C   = IN_I[CW-1:0];
    localparam [CW-1:0]  MAX_C  = MAX_I[CW-1:0];
    localparam [CW-1:0]  MIN_C  = MIN_I[CW-1:0];
    localparam [CW-1:0]  SEG_C  = SEG_I[CW-1:0];
    localparam [AW:0]    ROOM2  = FIFO_SEGS - 2;       // occupancy that leaves 2 slots free

    // With ASYNC = 0 the write side runs on the datapath clock.
    wire wclk = (ASYNC != 0) ? in_clk : clk;
    wire wrst = (ASYNC != 0) ? in_rst : rst;

    // ------------------------------------------------------------------ write side (wclk)
    reg  [SEG_BYTES*8-1:0] acc_q;      // bytes of the segment being gathered
    reg  [CW-1:0]          cnt_q;      // bytes of the current frame accepted so far
    reg                    discard_q;  // throwing away the rest of the current frame
    reg  [23:0]            ts_q;
    // Kept one beat ahead, so that the segment-end and overflow decisions that gate the FIFO write
    // are flags, not adders and comparators: pin = cnt_q + IN_BYTES (the count after a full beat).
    reg  [CW-1:0]          pin_q;      // cnt_q + IN_BYTES
    reg                    pin_ge_q;   // pin >= MAX_BYTES (a non-last full beat overflows)
    reg                    pin_gt_q;   // pin >  MAX_BYTES
    reg                    pin_lt_q;   // pin <  MIN_BYTES
    reg                    room2_q;    // at least 2 FIFO slots free, as of the previous cycle
    reg                    first_q;    // cnt_q < SEG_BYTES: the beat is in the frame's first segment

    wire                   fifo_ready;     // FIFO has at least one free slot
    wire [AW:0]            fifo_used;      // FIFO slots in use, as seen by the write side
    wire                   fire = s_axis_tvalid && s_axis_tready;

    // bytes brought by this beat: IN_BYTES, or on tlast the highest tkeep bit + 1 (at least 1)
    reg  [CW-1:0] n_last;
    integer k;
    always @* begin
        n_last = {{(CW-1){1'b0}}, 1'b1};
        for (k = 0; k < IN_BYTES; k = k + 1) begin
            if (s_axis_tkeep[k]) begin
                n_last = k[CW-1:0] + 1'b1;
            end
        end
    end
    wire [CW-1:0] n_beat = s_axis_tlast ? n_last : IN_C;

    // the segment with this beat merged in
    wire [SB-LB-1:0] word = cnt_q[SB-1:LB];            // input-beat slot in the segment
    reg  [SEG_BYTES*8-1:0] seg_data;
    integer b;
    always @* begin
        seg_data = acc_q;
        for (b = 0; b < SEG_BYTES / IN_BYTES; b = b + 1) begin
            if (word == b[SB-LB-1:0]) begin
                seg_data[b*IN_BYTES*8 +: IN_BYTES*8] = s_axis_tdata;
            end
        end
    end

    // A beat is full (n_beat = IN_BYTES, end_cnt = pin_q) unless it is a tlast beat of a wider
    // input (IN_BYTES = 8), whose count needs the adder.
    wire          part      = (IN_BYTES > 1) && s_axis_tlast;
    wire [CW-1:0] end_cnt   = part ? cnt_q + n_beat : pin_q;
    wire [CW-1:0] seg_start = {cnt_q[CW-1:SB], {SB{1'b0}}};
    wire          first_seg = first_q;
    // end_cnt > MAX_BYTES, or == MAX_BYTES before the frame's end
    wire          over      = part ? end_cnt > MAX_C : (s_axis_tlast ? pin_gt_q : pin_ge_q);
    wire          eof       = s_axis_tlast || over;
    // the beat fills its segment (on tlast eof decides anyway)
    wire          seg_end   = eof || pin_q[SB-1:0] == {SB{1'b0}};
    wire [CW-1:0] seg_bytes = (over ? MAX_C : end_cnt) - seg_start;
    wire          bad_in    = s_axis_tlast && s_axis_tuser[0];
    wire          short_end = part ? end_cnt < MIN_C : pin_lt_q;
    wire          small_bad = first_seg && s_axis_tlast && (bad_in || short_end);
    // Room for this segment (BACKPRESSURE = 1: guaranteed by s_axis_tready). room2_q is the
    // occupancy check of the previous cycle: exact, because two FIFO writes are never in
    // consecutive cycles (a segment takes SEG_BYTES / IN_BYTES >= 4 beats, a stored frame at
    // least 14 bytes, i.e. >= 2 beats), and a read only frees slots.
    wire          room      = (BACKPRESSURE != 0) || (eof ? fifo_ready : room2_q);

    wire          act       = fire && !discard_q;              // a beat of a frame being kept
    wire          drop_bad  = act && small_bad;
    wire          store     = act && seg_end && !small_bad;    // a segment is due
    wire          drop_full = store && !room && first_seg;     // no room for the first segment
    wire          cut       = store && !room && !first_seg;    // end the frame in the reserve
    wire          wen       = store && (room || !first_seg);
    wire          trunc     = wen && over;

    wire          w_last    = eof || cut;
    wire          w_bad     = eof && (bad_in || over) || cut;
    wire [23:0]   ts_cur    = (cnt_q == {CW{1'b0}}) ? s_axis_ts[39:16] : ts_q;

    wire [UW-1:0] w_user;
    assign w_user[`FP_RXU_BAD]           = w_bad;
    assign w_user[`FP_RXU_FIRST]         = first_seg;
    assign w_user[`FP_RXU_BYTES]         = seg_bytes[6:0];
    assign w_user[`FP_RXU_TRUNC]         = trunc;
    assign w_user[`FP_RXU_TS]            = ts_cur;
    wire [SEG_BYTES-1:0] w_keep       = ~({SEG_BYTES{1'b1}} << seg_bytes[6:0]);

    assign s_axis_tready = (BACKPRESSURE == 0) || discard_q || fifo_ready;

    always @(posedge wclk) begin
        if (wrst) begin
            acc_q     <= {SEG_BYTES*8{1'b0}};
            cnt_q     <= {CW{1'b0}};
            discard_q <= 1'b0;
            ts_q      <= 24'd0;
        end else if (fire) begin
            if (act) begin
                acc_q <= seg_data;
                cnt_q <= end_cnt;
                ts_q  <= ts_cur;
                if (over || drop_full || cut) begin
                    discard_q <= 1'b1;
                end
            end
            if (s_axis_tlast) begin
                cnt_q     <= {CW{1'b0}};
                discard_q <= 1'b0;
            end
        end
    end

    // cnt_q's next value, and the flags of that value + IN_BYTES
    wire [CW-1:0] cnt_d = (fire && s_axis_tlast) ? {CW{1'b0}} : (act ? end_cnt : cnt_q);
    wire [CW-1:0] pin_d = cnt_d + IN_C;

    always @(posedge wclk) begin
        if (wrst) begin
            pin_q    <= IN_C;
            pin_ge_q <= IN_C >= MAX_C;
            pin_gt_q <= IN_C > MAX_C;
            pin_lt_q <= IN_C < MIN_C;
            room2_q  <= 1'b1;
            first_q  <= 1'b1;
        end else begin
            pin_q    <= pin_d;
            pin_ge_q <= pin_d >= MAX_C;
            pin_gt_q <= pin_d > MAX_C;
            pin_lt_q <= pin_d < MIN_C;
            room2_q  <= fifo_used <= ROOM2;
            first_q  <= cnt_d < SEG_C;
        end
    end

    wire unused = &{1'b0, s_axis_ts[63:40], s_axis_ts[15:0], seg_bytes[CW-1:7]};

    // ------------------------------------------------------------------ FIFO
    wire [3:0] ev_w = {fire && s_axis_tlast, drop_bad, trunc, drop_full || cut};
    wire [3:0] ev_c;

    generate
        if (ASYNC != 0) begin : g_async
            wire [$clog2(FIFO_SEGS):0] unused_m_occupancy;
            wire                       unused_drop_bad, unused_drop_oversize;

            fp_axis_async_fifo #(
                .DATA_WIDTH (SEG_BYTES * 8),
                .USER_WIDTH (UW),
                .DEPTH      (FIFO_SEGS),
                .FRAME_MODE (0)
            ) u_fifo (
                .s_clk           (in_clk),
                .s_rst           (in_rst),
                .s_axis_tdata    (seg_data),
                .s_axis_tkeep    (w_keep),
                .s_axis_tvalid   (wen),
                .s_axis_tready   (fifo_ready),
                .s_axis_tlast    (w_last),
                .s_axis_tuser    (w_user),
                .s_occupancy     (fifo_used),
                .s_drop_bad      (unused_drop_bad),
                .s_drop_oversize (unused_drop_oversize),
                .m_clk           (clk),
                .m_rst           (rst),
                .m_axis_tdata    (m_axis_tdata),
                .m_axis_tkeep    (m_axis_tkeep),
                .m_axis_tvalid   (m_axis_tvalid),
                .m_axis_tready   (m_axis_tready),
                .m_axis_tlast    (m_axis_tlast),
                .m_axis_tuser    (m_axis_tuser),
                .m_occupancy     (unused_m_occupancy)
            );

            // events: count in in_clk, cross one at a time
            genvar e;
            for (e = 0; e < 4; e = e + 1) begin : g_ev
                reg  [3:0] pend_q;
                wire       busy;
                wire       send = pend_q != 4'd0 && !busy;

                always @(posedge in_clk) begin
                    if (in_rst) begin
                        pend_q <= 4'd0;
                    end else if (ev_w[e] && !send) begin
                        pend_q <= (pend_q == 4'd15) ? pend_q : pend_q + 4'd1;
                    end else if (!ev_w[e] && send) begin
                        pend_q <= pend_q - 4'd1;
                    end
                end

                fp_sync_pulse #(.STAGES(2)) u_sync (
                    .src_clk(in_clk), .src_rst(in_rst), .src_pulse(send), .src_busy(busy),
                    .dst_clk(clk), .dst_rst(rst), .dst_pulse(ev_c[e])
                );
            end
        end else begin : g_sync
            wire unused_drop_bad, unused_drop_oversize;
            reg  [3:0] ev_q;

            fp_axis_fifo #(
                .DATA_WIDTH (SEG_BYTES * 8),
                .USER_WIDTH (UW),
                .DEPTH      (FIFO_SEGS),
                .FRAME_MODE (0)
            ) u_fifo (
                .clk           (clk),
                .rst           (rst),
                .s_axis_tdata  (seg_data),
                .s_axis_tkeep  (w_keep),
                .s_axis_tvalid (wen),
                .s_axis_tready (fifo_ready),
                .s_axis_tlast  (w_last),
                .s_axis_tuser  (w_user),
                .m_axis_tdata  (m_axis_tdata),
                .m_axis_tkeep  (m_axis_tkeep),
                .m_axis_tvalid (m_axis_tvalid),
                .m_axis_tready (m_axis_tready),
                .m_axis_tlast  (m_axis_tlast),
                .m_axis_tuser  (m_axis_tuser),
                .occupancy     (fifo_used),
                .drop_bad      (unused_drop_bad),
                .drop_oversize (unused_drop_oversize)
            );

            always @(posedge clk) begin
                if (rst) begin
                    ev_q <= 4'd0;
                end else begin
                    ev_q <= ev_w;
                end
            end
            assign ev_c = ev_q;
        end
    endgenerate

    assign {ev_frame, ev_drop_bad, ev_trunc, ev_drop_overflow} = ev_c;

endmodule

`default_nettype wire
