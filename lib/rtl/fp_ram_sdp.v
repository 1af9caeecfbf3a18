// fp_ram_sdp: simple dual-port RAM, one clock (one write port, one read port).
//
// Written so that Yosys infers block RAM (Xilinx RAMB18/36, ECP5 DP16KD) when the array is large
// enough, and LUT RAM when it is small. Read-during-write to the same address returns the OLD data.
// OUT_REG = 1 adds an output register (the block RAM's own, DP16KD / RAMB output register, or a
// flip-flop right behind the RAM): rdata then comes from a register instead of the RAM's
// clock-to-out (5.8 ns on ECP5-6 without it), for one more cycle of latency. Use it where the read
// address can be formed a cycle earlier.
//
// Latency:    1 + OUT_REG cycles (raddr/ren sampled at a rising edge, rdata valid after the
//             1st (OUT_REG = 0) or 2nd (OUT_REG = 1) edge; the read sees the RAM as it was
//             before the sampling edge's write).
// Throughput: one write and one read per cycle.
// Bad input:  none possible (every address is in range); rdata holds while ren is low (with
//             OUT_REG = 1: the cycle after ren was low).
// Parameters: ADDR_WIDTH 1..20, DATA_WIDTH >= 1, OUT_REG 0 or 1.
`default_nettype none

module fp_ram_sdp #(
    parameter ADDR_WIDTH = 10,
    parameter DATA_WIDTH = 64,
    parameter OUT_REG    = 0
) (
    input  wire                  clk,

    input  wire                  wen,
    input  wire [ADDR_WIDTH-1:0] waddr,
    input  wire [DATA_WIDTH-1:0] wdata,

    input  wire                  ren,
    input  wire [ADDR_WIDTH-1:0] raddr,
    output reg  [DATA_WIDTH-1:0] rdata
);

    generate
        if (ADDR_WIDTH < 1 || ADDR_WIDTH > 20) begin : g_bad_addr_width
            PARAMETER_ERROR_ADDR_WIDTH_must_be_1_to_20 u_error();
        end
        if (DATA_WIDTH < 1) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_at_least_1 u_error();
        end
        if (OUT_REG != 0 && OUT_REG != 1) begin : g_bad_out_reg
            PARAMETER_ERROR_OUT_REG_must_be_0_or_1 u_error();
        end
    endgenerate

    reg [DATA_WIDTH-1:0] mem [0:(1 << ADDR_WIDTH) - 1];

    reg [DATA_WIDTH-1:0] rd_q;      // the read register (the RAM's own)

    always @(posedge clk) begin
        if (wen) begin
            mem[waddr] <= wdata;
        end
        if (ren) begin
            rd_q <= mem[raddr];
        end
    end

    generate
        if (OUT_REG != 0) begin : g_out_reg
            reg ren_q;
            always @(posedge clk) begin
                ren_q <= ren;
                if (ren_q) begin
                    rdata <= rd_q;
                end
            end
        end else begin : g_no_out_reg
            always @* rdata = rd_q;
        end
    endgenerate

endmodule

`default_nettype wire
