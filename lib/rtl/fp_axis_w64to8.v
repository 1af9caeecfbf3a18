// fp_axis_w64to8: 64-bit to 8-bit AXI4-Stream width adapter with backpressure (e.g. fp_fade_core's
// m_eth feeding a 1G MAC TX). Sends the bytes of each beat whose tkeep bit is set, lane 0 first;
// tlast and tuser go with the last byte of the tlast beat (the other bytes carry tuser = 0).
//
// Latency:    1 cycle (beat accepted -> its first byte valid on m_axis).
// Throughput: one byte per cycle: a beat of k bytes takes k cycles, the next beat is accepted in
//             the cycle its predecessor's last byte leaves (no bubble).
// Bad input:  a beat with tkeep = 0 sends nothing (it is accepted and dropped; a tlast on it is
//             lost); tkeep need not be contiguous. tuser of beats without tlast is ignored.
// Parameters: USER_WIDTH >= 1 (tuser bits, passed through with the tlast beat's last byte).
`default_nettype none

module fp_axis_w64to8 #(
    parameter USER_WIDTH = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [63:0]           s_axis_tdata,
    input  wire [7:0]            s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output wire                  s_axis_tready,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    output wire [7:0]            m_axis_tdata,
    output wire                  m_axis_tvalid,
    input  wire                  m_axis_tready,
    output wire                  m_axis_tlast,
    output wire [USER_WIDTH-1:0] m_axis_tuser
);

    generate
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
    endgenerate

    reg [63:0]           data;
    reg [7:0]            keep;     // bytes still to send (lane i)
    reg                  last;
    reg [USER_WIDTH-1:0] user;

    // the lowest lane still to send, and whether it is the beat's last one
    reg [2:0] lane;
    integer i;
    always @* begin
        lane = 3'd0;
        for (i = 7; i >= 0; i = i - 1) begin
            if (keep[i]) lane = i[2:0];
        end
    end
    wire [7:0] rest = keep & ~(8'd1 << lane);
    wire       final_byte = keep != 8'd0 && rest == 8'd0;

    assign m_axis_tvalid = keep != 8'd0;
    assign m_axis_tdata  = data[8 * lane +: 8];
    assign m_axis_tlast  = final_byte && last;
    assign m_axis_tuser  = (final_byte && last) ? user : {USER_WIDTH{1'b0}};
    assign s_axis_tready = keep == 8'd0 || (final_byte && m_axis_tready);

    always @(posedge clk) begin
        if (m_axis_tvalid && m_axis_tready) keep <= rest;
        if (s_axis_tvalid && s_axis_tready) begin
            data <= s_axis_tdata;
            keep <= s_axis_tkeep;
            last <= s_axis_tlast;
            user <= s_axis_tuser;
        end
        if (rst) begin
            data <= 64'd0;
            keep <= 8'd0;
            last <= 1'b0;
            user <= {USER_WIDTH{1'b0}};
        end
    end

endmodule

`default_nettype wire
