// fp_node_hc: NoC header creation for one input port (HC).
//
// Takes fp_node_rxf's segment stream (tuser = {ts[23:0], trunc, bytes[6:0], first, bad}, see
// fp_node_rxf) and writes the receive fields of the NoC header (node/docs/formats/noc_header.md) into
// tuser: bad (from the last segment only), first, last (= tlast), bytes, seg_idx (0 for a frame's
// first segment, +1 per segment, wrapping at 64), src_port (cfg_src_port), ts, trunc. All other
// header fields are 0. tdata, tkeep and tlast pass through.
// Events (clk, for the port counters): ev_frame pulses once per frame, one cycle after its last
// segment is accepted on s_axis; ev_bytes holds the frame's byte count (sum of `bytes` over its
// segments, modulo 2^16) in that cycle and 0 otherwise, so a byte counter adds ev_bytes.
//
// Latency:    1 cycle (segment accepted on s_axis -> valid on m_axis), an fp_axis_register.
// Throughput: 1 segment per cycle under any backpressure pattern; every output, s_axis_tready
//             included, comes from a flip-flop.
// Bad input:  seg_idx restarts at every segment with first = 1, so a stream that lost a frame's
//             tail still numbers the next frame from 0. cfg_src_port is quasi-static (sampled per
//             segment).
// Parameters: SEG_BYTES 32 or 64.
`default_nettype none
`include "fp_noc_header.vh"
`include "fp_rxf_tuser.vh"

module fp_node_hc #(
    parameter SEG_BYTES = 64
) (
    input  wire                   clk,
    input  wire                   rst,

    input  wire [4:0]             cfg_src_port,

    input  wire [SEG_BYTES*8-1:0] s_axis_tdata,
    input  wire [SEG_BYTES-1:0]   s_axis_tkeep,
    input  wire                   s_axis_tvalid,
    output wire                   s_axis_tready,
    input  wire                   s_axis_tlast,
    input  wire [`FP_RXU_W-1:0]      s_axis_tuser,   // the rxf_tuser format

    output wire [SEG_BYTES*8-1:0] m_axis_tdata,
    output wire [SEG_BYTES-1:0]   m_axis_tkeep,
    output wire                   m_axis_tvalid,
    input  wire                   m_axis_tready,
    output wire                   m_axis_tlast,
    output wire [`FP_NOC_W-1:0]      m_axis_tuser,

    output reg                    ev_frame,
    output reg  [15:0]            ev_bytes
);

    generate
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
    endgenerate


    wire        fire  = s_axis_tvalid && s_axis_tready;
    wire        first = s_axis_tuser[`FP_RXU_FIRST];
    wire [6:0]  bytes = s_axis_tuser[`FP_RXU_BYTES];

    reg  [5:0]  seg_idx_q;      // index of the next segment of the current frame
    reg  [15:0] frame_bytes_q;  // bytes of the current frame before this segment
    wire [5:0]  seg_idx     = first ? 6'd0 : seg_idx_q;
    wire [15:0] frame_bytes = (first ? 16'd0 : frame_bytes_q) + {9'd0, bytes};

    reg  [`FP_NOC_W-1:0] hdr;
    always @* begin
        hdr                = {`FP_NOC_W{1'b0}};
        hdr[`FP_NOC_BAD]      = s_axis_tuser[`FP_RXU_BAD] && s_axis_tlast;
        hdr[`FP_NOC_FIRST]    = first;
        hdr[`FP_NOC_LAST]     = s_axis_tlast;
        hdr[`FP_NOC_BYTES]    = bytes;
        hdr[`FP_NOC_SEG_IDX]  = seg_idx;
        hdr[`FP_NOC_SRC_PORT] = cfg_src_port;
        hdr[`FP_NOC_TS]       = s_axis_tuser[`FP_RXU_TS];
        hdr[`FP_NOC_TRUNC]    = s_axis_tuser[`FP_RXU_TRUNC];
    end

    always @(posedge clk) begin
        if (rst) begin
            seg_idx_q     <= 6'd0;
            frame_bytes_q <= 16'd0;
            ev_frame      <= 1'b0;
            ev_bytes      <= 16'd0;
        end else begin
            if (fire) begin
                seg_idx_q     <= seg_idx + 6'd1;
                frame_bytes_q <= frame_bytes;
            end
            ev_frame <= fire && s_axis_tlast;
            ev_bytes <= (fire && s_axis_tlast) ? frame_bytes : 16'd0;
        end
    end

    fp_axis_register #(
        .DATA_WIDTH (SEG_BYTES * 8),
        .USER_WIDTH (`FP_NOC_W)
    ) u_reg (
        .clk           (clk),
        .rst           (rst),
        .s_axis_tdata  (s_axis_tdata),
        .s_axis_tkeep  (s_axis_tkeep),
        .s_axis_tvalid (s_axis_tvalid),
        .s_axis_tready (s_axis_tready),
        .s_axis_tlast  (s_axis_tlast),
        .s_axis_tuser  (hdr),
        .m_axis_tdata  (m_axis_tdata),
        .m_axis_tkeep  (m_axis_tkeep),
        .m_axis_tvalid (m_axis_tvalid),
        .m_axis_tready (m_axis_tready),
        .m_axis_tlast  (m_axis_tlast),
        .m_axis_tuser  (m_axis_tuser)
    );

endmodule

`default_nettype wire
