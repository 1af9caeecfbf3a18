// fade_w8to64: 8-bit to 64-bit AXI4-Stream width adapter without backpressure (for a MAC RX,
// which has no tready, feeding fade_core's s_eth). Bytes are packed from lane 0 (byte 0 in
// tdata[7:0]); a beat is emitted when 8 bytes are collected or on tlast (tkeep = the bytes
// collected, contiguous from lane 0). tuser of the tlast byte goes to the tlast beat.
//
// Latency:    1 cycle (8th byte or tlast byte in -> beat valid on m_axis for one cycle).
// Throughput: one byte per cycle in, any gaps; the output is valid one cycle per beat.
// Bad input:  tkeep of the byte stream is ignored (every valid byte counts).
`default_nettype none

module fade_w8to64 (
    input  wire        clk,
    input  wire        rst,

    input  wire [7:0]  s_axis_tdata,
    input  wire        s_axis_tvalid,
    input  wire        s_axis_tlast,
    input  wire [0:0]  s_axis_tuser,

    output reg  [63:0] m_axis_tdata,
    output reg  [7:0]  m_axis_tkeep,
    output reg         m_axis_tvalid,
    output reg         m_axis_tlast,
    output reg  [0:0]  m_axis_tuser
);

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
                m_axis_tuser  <= s_axis_tlast ? s_axis_tuser : 1'b0;
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
            m_axis_tuser  <= 1'b0;
        end
    end

endmodule

`default_nettype wire
