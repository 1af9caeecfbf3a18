// fp_axis_fifo: synchronous AXI4-Stream FIFO, optionally store-and-forward with frame dropping.
//
// Beats are stored in a fp_ram_sdp (block RAM for deep FIFOs, LUT RAM for shallow ones). Behind the
// RAM sit two pipeline stages: the RAM's own read register and an output register, so m_axis_*
// come straight from flip-flops and the RAM's slow clock-to-out never reaches the next module.
// s_axis_tready is a flip-flop too, computed from the next state of the pointers. No output
// depends combinationally on an input; m_axis_tready reaches the RAM read enable and the
// pointer/occupancy/ready logic through a couple of gates.
//
// FRAME_MODE = 0: a plain FIFO; tlast and tuser are stored and passed through untouched.
// FRAME_MODE = 1: store-and-forward. The read side only sees beats up to the end of the last
//   complete frame (the write pointer is committed when the tlast beat is written), so the
//   output never shows a partial frame. A frame is dropped, by rolling the write pointer back to
//   the last commit, when
//     - DROP_BAD = 1 and tuser[0] is 1 on its tlast beat (pulse on drop_bad), or
//     - it is longer than LIMIT = min(MAX_FRAME_BEATS, DEPTH) beats (pulse on drop_oversize).
//       This is detected on beat LIMIT+1, which is accepted even when the FIFO is full; it and
//       the rest of the frame are accepted at full rate and thrown away, so a frame that can
//       never fit never stalls the input. A frame that can fit waits while the FIFO is full.
//   Each dropped frame gives exactly one one-cycle pulse, in the cycle after the beat that
//   decided the drop was accepted. (FRAME_MODE = 0: drop_bad and drop_oversize stay 0.)
//
// Latency (house convention, output always ready, FIFO output side idle):
//   FRAME_MODE = 0: 3 cycles from a beat accepted on s_axis to the same beat valid on m_axis.
//   FRAME_MODE = 1: 3 cycles from the LAST beat of a frame accepted on s_axis to the FIRST beat
//                   of that frame valid on m_axis.
//   (1 cycle to write the RAM and move the pointer, 1 to read the RAM, 1 for the output register.)
// Throughput: 1 beat per cycle in and out at the same time, at any fill level. When a beat
//   leaves a full FIFO, s_axis_tready (a register) rises in the next cycle; from then on the
//   FIFO runs at DEPTH-1 beats, one in and one out per cycle.
// Capacity:   DEPTH beats in total, counting the beats in the two output stages.
// occupancy:  beats held (committed or not, including the output stages), a flip-flop; it is 0
//   whenever the FIFO is empty, including after every dropped frame has been rolled back.
// Bad input:  none possible in FRAME_MODE = 0. In FRAME_MODE = 1 bad and oversize frames are
//   dropped as described; tuser[0] on a non-tlast beat is stored and passed on, never acted on.
// Parameters: DATA_WIDTH multiple of 8 (>= 8); KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//   DEPTH a power of two, 4..2^20; FRAME_MODE, DROP_BAD 0 or 1; MAX_FRAME_BEATS >= 1
//   (DROP_BAD and MAX_FRAME_BEATS only matter when FRAME_MODE = 1).
`default_nettype none

module fp_axis_fifo #(
    parameter DATA_WIDTH      = 64,
    parameter KEEP_WIDTH      = DATA_WIDTH / 8,
    parameter USER_WIDTH      = 1,
    parameter DEPTH           = 512,
    parameter FRAME_MODE      = 0,
    parameter DROP_BAD        = 1,
    parameter MAX_FRAME_BEATS = DEPTH
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire [USER_WIDTH-1:0]  s_axis_tuser,

    output wire [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [USER_WIDTH-1:0]  m_axis_tuser,

    output wire [$clog2(DEPTH):0] occupancy,
    output wire                   drop_bad,
    output wire                   drop_oversize
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
        if (DEPTH < 4 || DEPTH > (1 << 20) || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
            PARAMETER_ERROR_DEPTH_must_be_a_power_of_2_from_4_to_2_pow_20 u_error();
        end
        if (FRAME_MODE != 0 && FRAME_MODE != 1) begin : g_bad_frame_mode
            PARAMETER_ERROR_FRAME_MODE_must_be_0_or_1 u_error();
        end
        if (DROP_BAD != 0 && DROP_BAD != 1) begin : g_bad_drop_bad
            PARAMETER_ERROR_DROP_BAD_must_be_0_or_1 u_error();
        end
        if (MAX_FRAME_BEATS < 1) begin : g_bad_max_frame_beats
            PARAMETER_ERROR_MAX_FRAME_BEATS_must_be_at_least_1 u_error();
        end
    endgenerate

    localparam AW = $clog2(DEPTH);
    localparam W  = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    // Pointer-sized constants (pointers have one bit more than the RAM address, so that a full
    // FIFO and an empty one differ).
    localparam [AW:0] ZERO  = 0;
    localparam [AW:0] ONE   = 1;
    localparam integer LIMIT_BEATS = (MAX_FRAME_BEATS < DEPTH) ? MAX_FRAME_BEATS : DEPTH;
    localparam [AW:0] FULL  = {1'b1, {AW{1'b0}}};  // DEPTH (a power of two)
    localparam [AW:0] LIMIT = LIMIT_BEATS[AW:0];

    reg  [AW:0] wr_ptr_q;     // next RAM slot to write
    reg  [AW:0] commit_q;     // frame mode: just past the tlast beat of the last kept frame
    reg  [AW:0] rd_ptr_q;     // next RAM slot to read
    reg  [AW:0] pop_ptr_q;    // beats handed out on m_axis (rd_ptr_q minus the beats in the stages)
    reg         discard_q;    // frame mode: swallowing the rest of an oversize frame
    reg         s_ready_q;
    reg  [AW:0] occupancy_q;
    reg         drop_bad_q, drop_oversize_q;
    reg         mem_valid_q;  // the RAM read register holds a beat
    reg         out_valid_q;  // the output register holds a beat
    reg [W-1:0] out_q;
    wire [W-1:0] mem_rdata;

    // ---- write side ----
    wire        frame_mode  = FRAME_MODE != 0;
    wire [AW:0] frame_beats = wr_ptr_q - commit_q;  // beats of the frame being written (frame mode)
    wire        accept      = s_axis_tvalid && s_ready_q;
    wire        at_limit    = frame_mode && !discard_q && frame_beats == LIMIT;
    wire        oversize    = accept && at_limit;   // this beat would make the frame too long
    wire        wen         = accept && !discard_q && !at_limit;
    wire        bad_end     = frame_mode && DROP_BAD != 0 && wen && s_axis_tlast && s_axis_tuser[0];
    wire        good_end    = frame_mode && wen && s_axis_tlast && !bad_end;

    wire [AW:0] wr_ptr_next  = (oversize || bad_end) ? commit_q : (wen ? wr_ptr_q + ONE : wr_ptr_q);
    wire [AW:0] commit_next  = good_end ? wr_ptr_q + ONE : commit_q;
    wire        discard_next = discard_q ? !(accept && s_axis_tlast) : (oversize && !s_axis_tlast);

    // ---- read side: RAM read register (stage 1) -> output register (stage 2) ----
    wire [AW:0] readable_end = frame_mode ? commit_q : wr_ptr_q;
    wire        out_free     = !out_valid_q || m_axis_tready;
    wire        ren          = rd_ptr_q != readable_end && (!mem_valid_q || out_free);
    wire        pop          = out_valid_q && m_axis_tready;
    wire [AW:0] pop_ptr_next = pop ? pop_ptr_q + ONE : pop_ptr_q;

    // Ready next cycle if a beat fits even without a pop, or if the next beat will be thrown away
    // anyway (the rest of an oversize frame, or the beat that makes the frame oversize).
    wire [AW:0] occupancy_next = wr_ptr_next - pop_ptr_next;
    wire        ready_next     = occupancy_next != FULL || discard_next ||
                                 (frame_mode && wr_ptr_next - commit_next == LIMIT);

    fp_ram_sdp #(
        .ADDR_WIDTH(AW),
        .DATA_WIDTH(W)
    ) u_ram (
        .clk  (clk),
        .wen  (wen),
        .waddr(wr_ptr_q[AW-1:0]),
        .wdata({s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser}),
        .ren  (ren),
        .raddr(rd_ptr_q[AW-1:0]),
        .rdata(mem_rdata)
    );

    always @(posedge clk) begin
        if (out_free && mem_valid_q) begin
            out_q <= mem_rdata;
        end
        if (rst) begin
            wr_ptr_q        <= ZERO;
            commit_q        <= ZERO;
            rd_ptr_q        <= ZERO;
            pop_ptr_q       <= ZERO;
            discard_q       <= 1'b0;
            s_ready_q       <= 1'b0;
            occupancy_q     <= ZERO;
            drop_bad_q      <= 1'b0;
            drop_oversize_q <= 1'b0;
            mem_valid_q     <= 1'b0;
            out_valid_q     <= 1'b0;
        end else begin
            wr_ptr_q        <= wr_ptr_next;
            commit_q        <= commit_next;
            discard_q       <= discard_next;
            if (ren) begin
                rd_ptr_q    <= rd_ptr_q + ONE;
            end
            pop_ptr_q       <= pop_ptr_next;
            s_ready_q       <= ready_next;
            occupancy_q     <= occupancy_next;
            drop_bad_q      <= bad_end;
            drop_oversize_q <= oversize;
            mem_valid_q     <= ren || (mem_valid_q && !out_free);
            if (out_free) begin
                out_valid_q <= mem_valid_q;
            end
        end
    end

    assign s_axis_tready = s_ready_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_q;
    assign m_axis_tvalid = out_valid_q;
    assign occupancy     = occupancy_q;
    assign drop_bad      = drop_bad_q;
    assign drop_oversize = drop_oversize_q;

endmodule

`default_nettype wire
