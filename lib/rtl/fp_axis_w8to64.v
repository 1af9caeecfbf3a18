// fp_axis_w8to64: 8-bit to 64-bit AXI4-Stream width adapter without backpressure (for a source
// that has no tready, e.g. a MAC RX, feeding a 64-bit stream such as fp_fade_core's s_eth). Bytes
// are packed from lane 0 (byte 0 in tdata[7:0]); a beat is emitted when 8 bytes are collected or
// on tlast (tkeep = the bytes collected, contiguous from lane 0). tuser of the tlast byte goes to
// the tlast beat; the other beats carry tuser = 0.
//
// Latency:    1 cycle (8th byte or tlast byte in -> beat valid on m_axis for one cycle).
// Throughput: one byte per cycle in, any gaps; the output is valid one cycle per beat. The sink
//             must take every beat (there is no m_axis_tready).
// Bad input:  tkeep of the byte stream is ignored (every valid byte counts); tuser of bytes other
//             than the tlast byte is ignored.
// Parameters: USER_WIDTH >= 1 (tuser bits, passed through with the tlast byte).
`default_nettype none

module fp_axis_w8to64 #(
    parameter USER_WIDTH = 1
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [7:0]            s_axis_tdata,
    input  wire                  s_axis_tvalid,
    input  wire                  s_axis_tlast,
    input  wire [USER_WIDTH-1:0] s_axis_tuser,

    output reg  [63:0]           m_axis_tdata,
    output reg  [7:0]            m_axis_tkeep,
    output reg                   m_axis_tvalid,
    output reg                   m_axis_tlast,
    output reg  [USER_WIDTH-1:0] m_axis_tuser
);

    generate
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
    endgenerate

    reg [55:0] acc;
    reg [2:0]  n;      // bytes held in acc

    always @(posedge clk) begin
        m_axis_tvalid <= 1'b0;
        if (s_axis_tvalid) begin
            if (n == 3'd7 || s_axis_tlast) begin
                m_axis_tvalid <= 1'b1;
                m_axis_tdata  <= ({8'd0, acc} & ~(64'hFF << (8 * n))) | ({56'd0, s_axis_tdata} << (8 * n));
                m_axis_tkeep  <= 8'hFF >> (3'd7 - n);
                m_axis_tlast  <= s_axis_tlast;
                m_axis_tuser  <= s_axis_tlast ? s_axis_tuser : {USER_WIDTH{1'b0}};
                n             <= 3'd0;
                acc           <= 56'd0;
            end else begin
                acc[8 * n +: 8] <= s_axis_tdata;
                n               <= n + 3'd1;
            end
        end
        if (rst) begin
            acc           <= 56'd0;
            n             <= 3'd0;
            m_axis_tvalid <= 1'b0;
            m_axis_tdata  <= 64'd0;
            m_axis_tkeep  <= 8'd0;
            m_axis_tlast  <= 1'b0;
            m_axis_tuser  <= {USER_WIDTH{1'b0}};
        end
    end

endmodule

`default_nettype wire
