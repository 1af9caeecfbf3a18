// fp_iddr: input double-data-rate register, both samples presented on the rising edge.
//
// For each bit, q1 is d sampled at a rising edge of clk and q2 is d sampled at the falling edge
// that follows it; both appear together after the next rising edge (Xilinx IDDR
// DDR_CLK_EDGE = "SAME_EDGE_PIPELINED"). RGMII receive: q1 = the low nibble and RX_DV, q2 = the
// high nibble and RX_DV xor RX_ER of the same byte.
//
// VENDOR = "GENERIC" (default; what simulation and Yosys use): posedge and negedge flip-flops.
// VENDOR = "XILINX": one IDDR primitive per bit (7-series / UltraScale IDDR, SAME_EDGE_PIPELINED).
// No reset: these are I/O flip-flops; a reset would only delay the first valid sample.
//
// Latency:    1 cycle: d at rising edge k (and falling edge k + 1/2) -> q1, q2 after edge k + 1.
// Throughput: two samples per clk cycle.
// Bad input:  none possible (any d is sampled as it is).
// Parameters: VENDOR "GENERIC" or "XILINX"; WIDTH >= 1.
`default_nettype none

module fp_iddr #(
    parameter VENDOR = "GENERIC",
    parameter WIDTH  = 1
) (
    input  wire             clk,
    input  wire [WIDTH-1:0] d,
    output wire [WIDTH-1:0] q1,
    output wire [WIDTH-1:0] q2
);

    generate
        if (VENDOR != "GENERIC" && VENDOR != "XILINX") begin : g_bad_vendor
            PARAMETER_ERROR_VENDOR_must_be_GENERIC_or_XILINX u_error();
        end
        if (WIDTH < 1) begin : g_bad_width
            PARAMETER_ERROR_WIDTH_must_be_at_least_1 u_error();
        end
    endgenerate

    genvar i;
    generate
        if (VENDOR == "XILINX") begin : g_xilinx
            for (i = 0; i < WIDTH; i = i + 1) begin : g_bit
                IDDR #(
                    .DDR_CLK_EDGE("SAME_EDGE_PIPELINED"),
                    .SRTYPE("SYNC")
                ) u_iddr (
                    .Q1(q1[i]), .Q2(q2[i]), .C(clk), .CE(1'b1), .D(d[i]), .R(1'b0), .S(1'b0)
                );
            end
        end else begin : g_generic
            reg [WIDTH-1:0] rise_q, fall_q, q1_q, q2_q;
            always @(posedge clk) begin
                rise_q <= d;
                q1_q   <= rise_q;
                q2_q   <= fall_q;
            end
            always @(negedge clk) begin
                fall_q <= d;
            end
            assign q1 = q1_q;
            assign q2 = q2_q;
        end
    endgenerate

endmodule

`default_nettype wire
