// fp_oddr: output double-data-rate register, both halves given on the rising edge.
//
// For each bit, d1 and d2 are sampled at a rising edge of clk; q shows d1 from that rising edge
// and d2 from the falling edge that follows, until the next rising edge (Xilinx ODDR
// DDR_CLK_EDGE = "SAME_EDGE"). RGMII transmit: d1 = the low nibble and TX_EN, d2 = the high
// nibble and TX_EN xor TX_ER; a forwarded clock is an fp_oddr with d1 = 1, d2 = 0 on a
// phase-shifted clock.
//
// d1 and d2 must come from flip-flops on the rising edge of clk (change only at rising edges),
// as they do from the fabric into an ODDR.
// VENDOR = "GENERIC" (default; what simulation and Yosys use): a negedge flip-flop for d1, a
// posedge flip-flop for d2 and a multiplexer selected by clk. The clock reaches the data path
// there, which is right for simulation and resource counts; a board build uses the primitive.
// VENDOR = "XILINX": one ODDR primitive per bit (7-series / UltraScale ODDR, SAME_EDGE).
// No reset: these are I/O flip-flops; drive d1 = d2 = idle values during reset instead.
//
// Latency:    1 cycle: d1, d2 sampled at rising edge k -> on q during cycle k .. k + 1.
// Throughput: two values per clk cycle.
// Bad input:  d1/d2 changing between rising edges are not modelled (the generic model takes d1
//             at the falling edge). Before the first edges q is undefined.
// Parameters: VENDOR "GENERIC" or "XILINX"; WIDTH >= 1.
`default_nettype none

module fp_oddr #(
    parameter VENDOR = "GENERIC",
    parameter WIDTH  = 1
) (
    input  wire             clk,
    input  wire [WIDTH-1:0] d1,
    input  wire [WIDTH-1:0] d2,
    output wire [WIDTH-1:0] q
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
                ODDR #(
                    .DDR_CLK_EDGE("SAME_EDGE"),
                    .SRTYPE("SYNC")
                ) u_oddr (
                    .Q(q[i]), .C(clk), .CE(1'b1), .D1(d1[i]), .D2(d2[i]), .R(1'b0), .S(1'b0)
                );
            end
        end else begin : g_generic
            // d1 is taken at the falling edge before the rising edge that "samples" it (the same
            // value, as d1 only changes at rising edges) and d2 at that rising edge, so neither
            // register changes when the clock switches the multiplexer to it: no zero-time
            // glitches on q, even in a 4-state simulator.
            reg [WIDTH-1:0] d1_q, d2_q;
            always @(negedge clk) begin
                d1_q <= d1;
            end
            always @(posedge clk) begin
                d2_q <= d2;
            end
            assign q = clk ? d1_q : d2_q;
        end
    endgenerate

endmodule

`default_nettype wire
