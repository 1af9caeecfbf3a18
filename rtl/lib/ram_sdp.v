// ram_sdp: simple dual-port RAM, one clock (one write port, one read port).
//
// Written so that Yosys infers block RAM (Xilinx RAMB18/36, ECP5 DP16KD) when the array is large
// enough, and LUT RAM when it is small. Read-during-write to the same address returns the OLD data.
//
// Latency:    1 cycle (raddr/ren sampled at a rising edge, rdata valid after it).
// Throughput: one write and one read per cycle.
// Bad input:  none possible (every address is in range); rdata holds while ren is low.
// Parameters: ADDR_WIDTH 1..20, DATA_WIDTH >= 1.
`default_nettype none

module ram_sdp #(
    parameter ADDR_WIDTH = 10,
    parameter DATA_WIDTH = 64
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
    endgenerate

    reg [DATA_WIDTH-1:0] mem [0:(1 << ADDR_WIDTH) - 1];

    always @(posedge clk) begin
        if (wen) begin
            mem[waddr] <= wdata;
        end
        if (ren) begin
            rdata <= mem[raddr];
        end
    end

endmodule

`default_nettype wire
