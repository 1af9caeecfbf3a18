// fp_axis_async_fifo: AXI4-Stream FIFO between two unrelated clocks (s_clk writes, m_clk reads).
//
// Storage is a fp_ram_sdp_dc (block RAM when deep). Pointers are binary with one wrap bit. The read
// pointer crosses to s_clk as Gray code through a 2-stage fp_sync_level. The write pointer crosses
// to m_clk the same way in stream mode (FRAME_MODE=0), where it moves by one beat at a time. In
// frame mode the write side publishes only the committed pointer (end of the last complete good
// frame), which jumps by a whole frame at once, so it is not Gray-safe: it is copied into a
// holding register and crossed with a req/ack handshake (fp_sync_pulse); m_clk loads the stable
// copy when the request arrives. Commits made while an update is in flight are merged into the
// next update. The read side prefetches: RAM output register, then an output register that
// drives every m_axis_* output from flip-flops.
//
// Frame mode: a frame becomes visible to the read side only once its tlast beat is written and
// is then read out without gaps (it is entirely in the RAM). With DROP_BAD=1 a frame whose
// tuser[0] is 1 on the tlast beat is dropped (s_drop_bad pulses). A frame longer than
// MAX_FRAME_BEATS is dropped as soon as its (MAX_FRAME_BEATS+1)th beat arrives (s_drop_oversize
// pulses; the rest of the frame is accepted at full rate and discarded, never stalled). A frame
// that is both oversize and bad counts as oversize only. Dropping rolls the write pointer back to
// the committed one. The drop pulses are registered: high for the one s_clk cycle after the
// edge that accepted the deciding beat. In stream mode nothing is dropped; tuser is carried.
//
// Latency (fastpath/sim/tb.py convention: FIFO empty, m_axis_tready high; from the s_clk edge
// that transfers the beat - the tlast beat in frame mode - to the first m_clk edge at which
// m_axis_tvalid is sampled high), in m_clk periods. It is a range because the clocks are
// unrelated: the first synchronizer flop samples at the first m_clk edge after the s_clk edge,
// which is 0+ to 1 m_clk period later.
//   stream mode: the 5th m_clk edge after the s_clk edge (2 synchronizer stages, empty check and
//                RAM read, output register, downstream sample): more than 4 and at most 5 m_clk
//                periods (exactly 4 if an m_clk edge coincides with the s_clk edge and samples
//                the new pointer).
//   frame mode:  one more edge for loading the pointer copy: more than 5, at most 6 m_clk periods
//                (5 on a coincident edge), provided no earlier pointer update is in flight. An
//                update blocks the next one for 2 to 3 m_clk + 2 to 3 s_clk periods after it
//                starts; a frame committed meanwhile is published when that time is over.
//   A metastable first synchronizer flop can add one m_clk period in hardware.
//   The write side sees a read (s_occupancy, s_axis_tready) at the 3rd s_clk edge after the
//   m_clk edge that issued it (2 synchronizer stages plus the Gray-to-binary register).
// Throughput: one beat per cycle on each side while the other side keeps up: the read side
//   sustains the write rate when m_clk is at least as fast, and the write side the read rate
//   when s_clk is. Stream mode: any DEPTH (>= 8) does this (the pointer round trip is shorter
//   than 8 beats). Frame mode: the writer is not throttled while DEPTH exceeds the largest frame
//   by about 16 beats (commit handshake plus read pointer return; measured: frames of up to 52
//   beats in DEPTH 64 at equal clocks); larger frames work but can throttle the writer.
//   Capacity: DEPTH beats in the RAM plus 2 in the prefetch registers.
// Occupancy: s_occupancy = beats written (uncommitted frame included) and not yet known to be
//   read, 0..DEPTH; s_axis_tready is low at DEPTH (except while discarding an oversize frame).
//   m_occupancy = beats visible to the read side and not yet delivered, including the two
//   prefetch registers: 0..DEPTH+2. Both return to 0 when the FIFO is idle and empty.
// Resets: s_rst and m_rst are synchronous to their clocks. Reset BOTH sides together: each side's
//   reset must have been applied (at least one clock edge) before the other side leaves reset,
//   e.g. drive both from one reset through a fp_sync_reset per domain and hold that reset for at
//   least one period of the slower clock. Resetting only one side leaves the other with a stale
//   pointer: the read side would read stale or undefined data and the write side may overwrite
//   unread beats. Beats offered during s_rst are accepted and discarded.
// Bad input: none beyond the reset rule; tkeep is carried untouched.
// Parameters: DATA_WIDTH multiple of 8 (>= 8); KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//   DEPTH a power of two, 8 .. 2**20; FRAME_MODE and DROP_BAD 0 or 1; MAX_FRAME_BEATS 1 .. DEPTH
//   (a frame of up to DEPTH beats always fits, so frame mode never deadlocks).
`default_nettype none

module fp_axis_async_fifo #(
    parameter DATA_WIDTH      = 64,
    parameter KEEP_WIDTH      = DATA_WIDTH / 8,
    parameter USER_WIDTH      = 1,
    parameter DEPTH           = 512,
    parameter FRAME_MODE      = 0,
    parameter DROP_BAD        = 1,
    parameter MAX_FRAME_BEATS = DEPTH
) (
    input  wire                     s_clk,
    input  wire                     s_rst,

    input  wire [DATA_WIDTH-1:0]    s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]    s_axis_tkeep,
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    input  wire                     s_axis_tlast,
    input  wire [USER_WIDTH-1:0]    s_axis_tuser,

    output wire [$clog2(DEPTH):0]   s_occupancy,
    output wire                     s_drop_bad,
    output wire                     s_drop_oversize,

    input  wire                     m_clk,
    input  wire                     m_rst,

    output wire [DATA_WIDTH-1:0]    m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]    m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [USER_WIDTH-1:0]    m_axis_tuser,

    output wire [$clog2(DEPTH):0]   m_occupancy
);

    generate
        if (DATA_WIDTH < 8 || DATA_WIDTH % 8 != 0) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_a_positive_multiple_of_8 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
        if (DEPTH < 8 || DEPTH > (1 << 20) || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
            PARAMETER_ERROR_DEPTH_must_be_a_power_of_two_from_8_to_2_pow_20 u_error();
        end
        if (FRAME_MODE != 0 && FRAME_MODE != 1) begin : g_bad_frame_mode
            PARAMETER_ERROR_FRAME_MODE_must_be_0_or_1 u_error();
        end
        if (DROP_BAD != 0 && DROP_BAD != 1) begin : g_bad_drop_bad
            PARAMETER_ERROR_DROP_BAD_must_be_0_or_1 u_error();
        end
        if (MAX_FRAME_BEATS < 1 || MAX_FRAME_BEATS > DEPTH) begin : g_bad_max_frame_beats
            PARAMETER_ERROR_MAX_FRAME_BEATS_must_be_1_to_DEPTH u_error();
        end
    endgenerate

    localparam AW = $clog2(DEPTH);                          // RAM address width
    localparam W  = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH; // one stored beat
    localparam [AW:0] MAX_BEATS = MAX_FRAME_BEATS[AW:0];

    function [AW:0] afifo_to_gray(input [AW:0] bin_value);
        afifo_to_gray = bin_value ^ (bin_value >> 1);
    endfunction

    function [AW:0] afifo_from_gray(input [AW:0] gray_value);
        integer k;
        begin
            afifo_from_gray[AW] = gray_value[AW];
            for (k = AW - 1; k >= 0; k = k - 1) begin
                afifo_from_gray[k] = afifo_from_gray[k + 1] ^ gray_value[k];
            end
        end
    endfunction

    // ------------------------------------------------------------------ write side (s_clk)
    reg  [AW:0] wr_ptr_q;       // next slot to write
    reg  [AW:0] commit_q;       // end of the last complete good frame (= wr_ptr_q in stream mode)
    reg  [AW:0] frame_beats_q;  // beats of the current frame written so far (frame mode)
    reg         dropping_q;     // discarding the rest of an oversize frame
    reg         drop_bad_q;
    reg         drop_oversize_q;
    wire [AW:0] rd_gray_s;      // read pointer, Gray, synchronized into s_clk

    // s_used = write pointer - read pointer as known in s_clk, a register formed from both
    // pointers' next values (no subtractor in front of s_axis_tready)
    reg  [AW:0] s_used;
    wire [AW:0] rd_ptr_s_d  = afifo_from_gray(rd_gray_s);
    wire        full        = s_used[AW];                   // s_used == DEPTH
    wire        over_limit  = (FRAME_MODE != 0) && (frame_beats_q == MAX_BEATS);
    wire        discard     = dropping_q || over_limit;
    wire        s_fire      = s_axis_tvalid && s_axis_tready;
    wire [AW:0] wr_ptr_inc  = wr_ptr_q + 1'b1;
    wire        bad_last    = (DROP_BAD != 0) && s_axis_tuser[0];

    assign s_axis_tready   = discard || !full;
    assign s_occupancy     = s_used;
    assign s_drop_bad      = drop_bad_q;
    assign s_drop_oversize = drop_oversize_q;

    reg  [AW:0] wr_ptr_d, commit_d, frame_beats_d;
    reg         dropping_d, drop_bad_d, drop_oversize_d;

    always @* begin
        wr_ptr_d        = wr_ptr_q;
        commit_d        = commit_q;
        frame_beats_d   = frame_beats_q;
        dropping_d      = dropping_q;
        drop_bad_d      = 1'b0;
        drop_oversize_d = 1'b0;
        if (s_fire) begin
            if (FRAME_MODE == 0) begin
                wr_ptr_d = wr_ptr_inc;
                commit_d = wr_ptr_inc;
            end else if (dropping_q) begin
                dropping_d = !s_axis_tlast;
            end else if (over_limit) begin
                wr_ptr_d        = commit_q;
                frame_beats_d   = {(AW + 1){1'b0}};
                dropping_d      = !s_axis_tlast;
                drop_oversize_d = 1'b1;
            end else if (s_axis_tlast) begin
                frame_beats_d = {(AW + 1){1'b0}};
                if (bad_last) begin
                    wr_ptr_d   = commit_q;
                    drop_bad_d = 1'b1;
                end else begin
                    wr_ptr_d = wr_ptr_inc;
                    commit_d = wr_ptr_inc;
                end
            end else begin
                wr_ptr_d      = wr_ptr_inc;
                frame_beats_d = frame_beats_q + 1'b1;
            end
        end
    end

    always @(posedge s_clk) begin
        if (s_rst) begin
            wr_ptr_q        <= {(AW + 1){1'b0}};
            commit_q        <= {(AW + 1){1'b0}};
            frame_beats_q   <= {(AW + 1){1'b0}};
            dropping_q      <= 1'b0;
            drop_bad_q      <= 1'b0;
            drop_oversize_q <= 1'b0;
            s_used          <= {(AW + 1){1'b0}};
        end else begin
            wr_ptr_q        <= wr_ptr_d;
            commit_q        <= commit_d;
            frame_beats_q   <= frame_beats_d;
            dropping_q      <= dropping_d;
            drop_bad_q      <= drop_bad_d;
            drop_oversize_q <= drop_oversize_d;
            s_used          <= wr_ptr_d - rd_ptr_s_d;
        end
    end

    // ------------------------------------------------------------------ storage
    wire [W-1:0] ram_rdata;
    reg  [AW:0]  rd_ptr_q;      // next slot to read (m_clk)
    wire         rd_en;

    fp_ram_sdp_dc #(
        .ADDR_WIDTH(AW),
        .DATA_WIDTH(W)
    ) u_ram (
        .wclk  (s_clk),
        .wen   (s_fire && !discard),
        .waddr (wr_ptr_q[AW-1:0]),
        .wdata ({s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser}),
        .rclk  (m_clk),
        .ren   (rd_en),
        .raddr (rd_ptr_q[AW-1:0]),
        .rdata (ram_rdata)
    );

    // ------------------------------------------------------------------ write pointer crossing
    wire        m_has_data;     // a committed beat is in the RAM and not read yet
    wire [AW:0] m_wr_ptr;       // committed write pointer as known in m_clk (binary)
    reg  [AW:0] rd_gray_q;      // Gray copy of rd_ptr_q, crossed to s_clk

    generate
        if (FRAME_MODE == 0) begin : g_stream
            // One step at a time: the Gray code changes one bit per step, safe to synchronize.
            reg  [AW:0] wr_gray_q;
            wire [AW:0] wr_gray_m;
            reg  [AW:0] wr_ptr_m_q;

            always @(posedge s_clk) begin
                if (s_rst) begin
                    wr_gray_q <= {(AW + 1){1'b0}};
                end else begin
                    wr_gray_q <= afifo_to_gray(commit_d);
                end
            end

            fp_sync_level #(.WIDTH(AW + 1), .STAGES(2)) u_wr_sync (
                .clk(m_clk), .rst(m_rst), .in(wr_gray_q), .out(wr_gray_m)
            );

            always @(posedge m_clk) begin
                if (m_rst) begin
                    wr_ptr_m_q <= {(AW + 1){1'b0}};
                end else begin
                    wr_ptr_m_q <= afifo_from_gray(wr_gray_m);
                end
            end

            assign m_has_data = wr_gray_m != rd_gray_q;
            assign m_wr_ptr   = wr_ptr_m_q;
        end else begin : g_frame
            // The committed pointer jumps by whole frames: cross a held copy with a handshake.
            reg  [AW:0] hold_q;     // s_clk: stable while an update is in flight
            reg  [AW:0] wr_ptr_m_q; // m_clk: copy of hold_q loaded when the request arrives
            wire        busy;
            wire        update = !busy && commit_d != hold_q;
            wire        arrived;

            always @(posedge s_clk) begin
                if (s_rst) begin
                    hold_q <= {(AW + 1){1'b0}};
                end else if (update) begin
                    hold_q <= commit_d;
                end
            end

            fp_sync_pulse #(.STAGES(2)) u_commit_sync (
                .src_clk(s_clk), .src_rst(s_rst), .src_pulse(update), .src_busy(busy),
                .dst_clk(m_clk), .dst_rst(m_rst), .dst_pulse(arrived)
            );

            always @(posedge m_clk) begin
                if (m_rst) begin
                    wr_ptr_m_q <= {(AW + 1){1'b0}};
                end else if (arrived) begin
                    wr_ptr_m_q <= hold_q;
                end
            end

            assign m_has_data = wr_ptr_m_q != rd_ptr_q;
            assign m_wr_ptr   = wr_ptr_m_q;
        end
    endgenerate

    fp_sync_level #(.WIDTH(AW + 1), .STAGES(2)) u_rd_sync (
        .clk(s_clk), .rst(s_rst), .in(rd_gray_q), .out(rd_gray_s)
    );

    // ------------------------------------------------------------------ read side (m_clk)
    reg          ram_valid_q;   // ram_rdata holds a beat not yet moved to the output register
    reg          out_valid_q;
    reg  [W-1:0] out_q;

    wire         out_free   = !out_valid_q || m_axis_tready;
    wire [AW:0]  rd_ptr_inc = rd_ptr_q + 1'b1;
    wire [AW:0]  m_used     = m_wr_ptr - rd_ptr_q;

    assign rd_en = m_has_data && (!ram_valid_q || out_free);

    always @(posedge m_clk) begin
        if (out_free && ram_valid_q) begin
            out_q <= ram_rdata;
        end
        if (m_rst) begin
            rd_ptr_q    <= {(AW + 1){1'b0}};
            rd_gray_q   <= {(AW + 1){1'b0}};
            ram_valid_q <= 1'b0;
            out_valid_q <= 1'b0;
        end else begin
            if (rd_en) begin
                rd_ptr_q  <= rd_ptr_inc;
                rd_gray_q <= afifo_to_gray(rd_ptr_inc);
            end
            ram_valid_q <= rd_en || (ram_valid_q && !out_free);
            if (out_free) begin
                out_valid_q <= ram_valid_q;
            end
        end
    end

    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_q;
    assign m_axis_tvalid = out_valid_q;
    assign m_occupancy   = m_used + {{AW{1'b0}}, ram_valid_q} + {{AW{1'b0}}, out_valid_q};

endmodule

`default_nettype wire
