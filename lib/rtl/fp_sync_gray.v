// fp_sync_gray: a counter crossing into another clock domain, in Gray code.
//
// The source's count is Gray-coded into a register, synchronized bit by bit (fp_sync_level: at
// most one bit changes per source cycle, so every sampled value is one the count really held,
// or the one before it while a bit resolves), and decoded back to binary in a register of the
// destination. The caller guarantees that src_count changes by at most +1 (mod 2^WIDTH) per
// src_clk cycle: a free-running cycle counter, or a time counter in units of its clock period.
//
// Latency:    a value of src_count reaches dst_count 1 src_clk edge (the Gray register) plus
//             STAGES + 1 dst_clk edges later (the synchronizer and the decode register); with
//             the two clocks one and the same, exactly 1 + STAGES + 1 edges (4 for STAGES = 2). A
//             metastable first flop can add one destination cycle. dst_count trails the source
//             by that latency and never runs ahead of it.
// Throughput: follows a count that steps every source cycle, with the destination at any
//             frequency: a slower destination sees steps of more than one, never a wrong value.
// Bad input:  a src_count that steps by more than one in a cycle can be sampled as a value it
//             never held (the caller's contract above). A reset of the source alone is such a
//             step (the Gray register jumps to 0): hold the destination in reset across it, or
//             reset the source only while its count is 0.
// Resets:     src_rst and dst_rst synchronous to their clocks; dst_count is 0 while dst_rst is
//             high and shows the source's count from the (STAGES + 1)-th edge after it falls.
// Parameters: WIDTH 2..64, STAGES 2..4.
`default_nettype none

module fp_sync_gray #(
    parameter WIDTH  = 16,
    parameter STAGES = 2
) (
    input  wire             src_clk,
    input  wire             src_rst,
    input  wire [WIDTH-1:0] src_count,

    input  wire             dst_clk,
    input  wire             dst_rst,
    output reg  [WIDTH-1:0] dst_count
);

    generate
        if (WIDTH < 2 || WIDTH > 64) begin : g_bad_width
            PARAMETER_ERROR_WIDTH_must_be_2_to_64 u_error();
        end
        if (STAGES < 2 || STAGES > 4) begin : g_bad_stages
            PARAMETER_ERROR_STAGES_must_be_2_to_4 u_error();
        end
    endgenerate

    reg  [WIDTH-1:0] gray_q;
    wire [WIDTH-1:0] gray_dst;

    always @(posedge src_clk) begin
        if (src_rst) gray_q <= {WIDTH{1'b0}};
        else gray_q <= src_count ^ (src_count >> 1);
    end

    fp_sync_level #(.WIDTH(WIDTH), .STAGES(STAGES)) u_sync (
        .clk(dst_clk), .rst(dst_rst), .in(gray_q), .out(gray_dst)
    );

    // Gray to binary: bit i is the XOR of the Gray bits i and above.
    reg [WIDTH-1:0] bin;
    integer i;
    always @* begin
        bin[WIDTH-1] = gray_dst[WIDTH-1];
        for (i = WIDTH - 2; i >= 0; i = i - 1) bin[i] = bin[i+1] ^ gray_dst[i];
    end

    always @(posedge dst_clk) begin
        if (dst_rst) dst_count <= {WIDTH{1'b0}};
        else dst_count <= bin;
    end

endmodule

`default_nettype wire
