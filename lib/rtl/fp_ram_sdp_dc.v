// fp_ram_sdp_dc: simple dual-port RAM with independent write and read clocks.
//
// The storage of the asynchronous FIFO. Yosys infers block RAM (Xilinx RAMB18/36, ECP5 DP16KD)
// for large arrays. A read of an address being written in the other clock domain in the same
// instant returns undefined data; callers (fp_axis_async_fifo) never do that.
//
// Latency:    1 read-clock cycle.
// Throughput: one write per write-clock cycle and one read per read-clock cycle.
// Bad input:  none possible (every address is in range); rdata holds while ren is low.
// Parameters: ADDR_WIDTH 1..20, DATA_WIDTH >= 1.
`default_nettype none

module fp_ram_sdp_dc #(
    parameter ADDR_WIDTH = 10,
    parameter DATA_WIDTH = 64
) (
    input  wire                  wclk,
    input  wire                  wen,
    input  wire [ADDR_WIDTH-1:0] waddr,
    input  wire [DATA_WIDTH-1:0] wdata,

    input  wire                  rclk,
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

    always @(posedge wclk) begin
        if (wen) begin
            mem[waddr] <= wdata;
        end
    end

    always @(posedge rclk) begin
        if (ren) begin
            rdata <= mem[raddr];
        end
    end

endmodule

`default_nettype wire
