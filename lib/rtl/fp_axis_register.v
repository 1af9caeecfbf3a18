// fp_axis_register: AXI4-Stream register slice with a skid buffer.
//
// Breaks every combinational path between the input and output sides: all outputs, including
// s_axis_tready, come from flip-flops. A second (skid) register absorbs the beat that arrives in
// the cycle the downstream deasserts tready, so the slice never throttles the stream.
//
// Latency:    1 cycle (first beat accepted on s_axis -> valid on m_axis).
// Throughput: 1 beat per cycle under any backpressure pattern.
// Bad input:  none possible; tkeep/tuser/tlast are carried through untouched.
// Parameters: DATA_WIDTH multiple of 8 (>= 8); KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1.
`default_nettype none

module fp_axis_register #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    output wire [DATA_WIDTH-1:0] m_axis_tdata,
    output wire [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [USER_WIDTH-1:0] m_axis_tuser
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
    endgenerate

    localparam W = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    reg [W-1:0] out_q, skid_q;
    reg         out_valid_q, skid_valid_q;

    wire [W-1:0] in_beat = {s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser};
    wire         out_free = m_axis_tready || !out_valid_q;

    assign s_axis_tready = !skid_valid_q;

    always @(posedge clk) begin
        if (out_free) begin
            out_q <= skid_valid_q ? skid_q : in_beat;
        end else if (s_axis_tvalid && !skid_valid_q) begin
            skid_q <= in_beat;
        end
        if (rst) begin
            out_valid_q  <= 1'b0;
            skid_valid_q <= 1'b0;
        end else if (out_free) begin
            out_valid_q  <= skid_valid_q || s_axis_tvalid;
            skid_valid_q <= 1'b0;
        end else if (s_axis_tvalid && !skid_valid_q) begin
            skid_valid_q <= 1'b1;
        end
    end

    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_q;
    assign m_axis_tvalid = out_valid_q;

endmodule

`default_nettype wire
