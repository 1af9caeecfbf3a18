// node_buf_fifo: first-word-fall-through FIFO on a ram_sdp, for node_buffer (free list, output
// queues of packet heads, per-datapath output buffers).
//
// HEAD_REG = 0: the RAM is read every cycle at the address of the head after this cycle's pop
// ("read ahead"), so `head` is the oldest entry in every cycle in which `empty` is low, and one
// push and one pop may happen in every cycle. A push into a FIFO that is (or is becoming) empty
// would be missed by the read-ahead (ram_sdp returns the old word on a read-during-write), so that
// word is also kept in a bypass register and shown instead.
// HEAD_REG = 1: the same ports and behaviour (every cycle's head, empty and count are the same as
// with HEAD_REG = 0 while `empty` is low), but `pop` does not reach the RAM's read address: the
// RAM is read every cycle at the entry after the head (a register of its own), and `head` is a
// register (the old head, or the pushed word) except in the cycle after a pop of a FIFO with 2 or
// more entries, when it is the RAM's read data. For a caller whose pop is late in its cycle
// (node_buffer's free list, popped by the admission).
//
// Latency:    1 cycle (an entry pushed at a rising edge is `head` right after it when the FIFO
//             was empty).
// Throughput: one push and one pop per cycle at any fill level.
// Bad input:  pushing into a full FIFO (count == DEPTH without a pop) or popping an empty one is
//             the caller's error and corrupts the pointers; node_buffer never does either. `head`
//             is undefined while `empty` is high.
// Parameters: WIDTH >= 1; DEPTH a power of two, 2..2^20; HEAD_REG 0 or 1. count is
//             $clog2(DEPTH)+1 bits.
`default_nettype none

module node_buf_fifo #(
    parameter WIDTH    = 12,
    parameter DEPTH    = 16,
    parameter HEAD_REG = 0
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire                   push,
    input  wire [WIDTH-1:0]       push_data,
    input  wire                   pop,

    output wire [WIDTH-1:0]       head,
    output wire                   empty,
    output wire [$clog2(DEPTH):0] count
);

    generate
        if (WIDTH < 1) begin : g_bad_width
            PARAMETER_ERROR_WIDTH_must_be_at_least_1 u_error();
        end
        if (DEPTH < 2 || DEPTH > (1 << 20) || (DEPTH & (DEPTH - 1)) != 0) begin : g_bad_depth
            PARAMETER_ERROR_DEPTH_must_be_a_power_of_2_from_2_to_2_pow_20 u_error();
        end
        if (HEAD_REG != 0 && HEAD_REG != 1) begin : g_bad_head_reg
            PARAMETER_ERROR_HEAD_REG_must_be_0_or_1 u_error();
        end
    endgenerate

    localparam AW = $clog2(DEPTH);
    localparam [AW:0] ONE  = 1;
    localparam [AW:0] ZERO = 0;

    reg  [AW:0]      wr_q, rd_q;
    wire [WIDTH-1:0] rdata;
    wire [AW-1:0]    raddr;

    // count and empty are registers of their own (the same values as wr_q - rd_q), so that the
    // users' comparisons (node_buffer's admission) do not start with a subtraction; the next
    // count is chosen among count +- 1 formed from the register, so push and pop (late in the
    // callers' cycles) only drive a select
    reg  [AW:0] count_q;
    reg         empty_q;
    wire [AW:0] count_inc  = count_q + ONE;
    wire [AW:0] count_dec  = count_q - ONE;
    wire [AW:0] count_next = (push == pop) ? count_q : (push ? count_inc : count_dec);

    ram_sdp #(
        .ADDR_WIDTH(AW),
        .DATA_WIDTH(WIDTH)
    ) u_ram (
        .clk  (clk),
        .wen  (push),
        .waddr(wr_q[AW-1:0]),
        .wdata(push_data),
        .ren  (1'b1),
        .raddr(raddr),
        .rdata(rdata)
    );

    always @(posedge clk) begin
        if (rst) begin
            wr_q    <= ZERO;
            rd_q    <= ZERO;
            count_q <= ZERO;
            empty_q <= 1'b1;
        end else begin
            if (push) begin
                wr_q <= wr_q + ONE;
            end
            if (pop) begin
                rd_q <= rd_q + ONE;
            end
            count_q <= count_next;
            empty_q <= !push && (empty_q || (pop && count_q == ONE));  // = count_next == 0
        end
    end

    generate
        if (HEAD_REG == 0) begin : g_read_ahead
            reg              byp_q;
            reg  [WIDTH-1:0] byp_data_q;
            wire [AW-1:0]    rd_next = pop ? rd_q[AW-1:0] + 1'b1 : rd_q[AW-1:0];
            assign raddr = rd_next;
            always @(posedge clk) begin
                // The slot written is the next head only when the FIFO is empty after this
                // cycle's pop (the other case of equal addresses, a full FIFO, cannot take a
                // push).
                byp_q      <= push && wr_q[AW-1:0] == rd_next;
                byp_data_q <= push_data;
            end
            assign head = byp_q ? byp_data_q : rdata;
        end else begin : g_head_reg
            // rd1_q = rd_q + 1, the entry after the head: the RAM reads it at every edge, so
            // after a pop the new head is the read data, unless that slot is written at the same
            // edge (one entry, and a push) or the FIFO becomes empty.
            reg  [AW-1:0]    rd1_q;
            reg              h_ram_q;            // head = the RAM's read data
            reg  [WIDTH-1:0] h_q;
            wire             multi = count_q[AW:1] != {AW{1'b0}};   // 2 or more entries
            assign raddr = rd1_q;
            assign head  = h_ram_q ? rdata : h_q;
            always @(posedge clk) begin
                if (rst) begin
                    rd1_q <= {{(AW-1){1'b0}}, 1'b1};
                end else if (pop) begin
                    rd1_q <= rd1_q + 1'b1;
                end
                h_ram_q <= pop && multi && !rst;
                // not popped: the head stays (or the pushed word becomes it in an empty FIFO);
                // popped with one entry: the pushed word (if any) is the next head
                h_q <= (empty_q || (pop && !multi)) ? push_data : head;
            end
        end
    endgenerate

    assign count = count_q;
    assign empty = empty_q;

endmodule

`default_nettype wire
