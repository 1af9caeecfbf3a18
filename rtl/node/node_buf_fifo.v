// node_buf_fifo: first-word-fall-through FIFO on a ram_sdp, for node_buffer (free list, output
// queues of packet heads, per-datapath output buffers).
//
// The RAM is read every cycle at the address of the head after this cycle's pop ("read ahead"),
// so `head` is the oldest entry in every cycle in which `empty` is low, and one push and one pop
// may happen in every cycle. A push into a FIFO that is (or is becoming) empty would be missed by
// the read-ahead (ram_sdp returns the old word on a read-during-write), so that word is also kept
// in a bypass register and shown instead.
//
// Latency:    1 cycle (an entry pushed at a rising edge is `head` right after it when the FIFO
//             was empty).
// Throughput: one push and one pop per cycle at any fill level.
// Bad input:  pushing into a full FIFO (count == DEPTH without a pop) or popping an empty one is
//             the caller's error and corrupts the pointers; node_buffer never does either.
// Parameters: WIDTH >= 1; DEPTH a power of two, 2..2^20. count is $clog2(DEPTH)+1 bits.
`default_nettype none

module node_buf_fifo #(
    parameter WIDTH = 12,
    parameter DEPTH = 16
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
    endgenerate

    localparam AW = $clog2(DEPTH);
    localparam [AW:0] ONE  = 1;
    localparam [AW:0] ZERO = 0;

    reg  [AW:0]      wr_q, rd_q;
    reg              byp_q;
    reg  [WIDTH-1:0] byp_data_q;
    wire [WIDTH-1:0] rdata;

    wire [AW:0] rd_next = pop ? rd_q + ONE : rd_q;
    // count and empty are registers of their own (the same values as wr_q - rd_q), so that the
    // users' comparisons (node_buffer's admission) do not start with a subtraction
    reg  [AW:0] count_q;
    reg         empty_q;
    wire [AW:0] count_next = count_q + (push ? ONE : ZERO) - (pop ? ONE : ZERO);

    ram_sdp #(
        .ADDR_WIDTH(AW),
        .DATA_WIDTH(WIDTH)
    ) u_ram (
        .clk  (clk),
        .wen  (push),
        .waddr(wr_q[AW-1:0]),
        .wdata(push_data),
        .ren  (1'b1),
        .raddr(rd_next[AW-1:0]),
        .rdata(rdata)
    );

    always @(posedge clk) begin
        // The slot written is the next head only when the FIFO is empty after this cycle's pop
        // (the other case of equal addresses, a full FIFO, cannot take a push).
        byp_q      <= push && wr_q[AW-1:0] == rd_next[AW-1:0];
        byp_data_q <= push_data;
        if (rst) begin
            wr_q    <= ZERO;
            rd_q    <= ZERO;
            count_q <= ZERO;
            empty_q <= 1'b1;
        end else begin
            if (push) begin
                wr_q <= wr_q + ONE;
            end
            rd_q    <= rd_next;
            count_q <= count_next;
            empty_q <= !push && (empty_q || (pop && count_q == ONE));  // = count_next == 0
        end
    end

    assign head  = byp_q ? byp_data_q : rdata;
    assign count = count_q;
    assign empty = empty_q;

endmodule

`default_nettype wire
