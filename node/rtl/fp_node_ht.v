// fp_node_ht: HT, header termination of a transmit datapath (one per TX datapath).
//
// Sends each segment of the datapath's stream (after fp_node_route) to the TXF of its output and
// replaces the NoC header by the few fields the TXF needs. The datapath serves the ports
// PORT_BASE .. PORT_BASE + OUTPUTS - 2 on outputs 0 .. OUTPUTS - 2 and its host port
// (out_port = PORTS + DP_INDEX) on output OUTPUTS - 1. Output i is
// m_axis_tdata[i*SEG_BYTES*8 +: SEG_BYTES*8], m_axis_tkeep[i*SEG_BYTES +: SEG_BYTES],
// m_axis_tuser[i*TXU_W +: TXU_W] (TXU_W = 35: `FP_TXU_W), m_axis_tvalid/tready/tlast[i].
//
// Reduced tuser, the txf_tuser format (txf_tuser.fmt.toml, node/docs/formats/txf_tuser.md; fp_node_txf
// decodes it):
//   bit  0      bad        the frame is bad (meaningful on its last segment)
//   bit  1      first      first segment of a frame
//   bit  2      last       last segment of a frame (= tlast)
//   bits 9:3    bytes      valid bytes in this segment, 1..SEG_BYTES (= popcount of tkeep)
//   bits 33:10  ts         RX SFD time in ns mod 2^24 (the cut-through release reference)
//   bit  34     from_host  the frame came from a host port (src_port >= PORTS): released at once
// (bad, first, last, bytes keep their NoC header positions.)
//
// Every output has its own register slice (fp_axis_register: output register + skid), so a busy
// output never blocks the others. The buffer's out_room credits keep a TXF from ever being full,
// so an output's tready is expected low only briefly; if an output stays blocked, its slice
// fills (2 segments) and then s_axis_tready drops whenever the segment at the input is for that
// output, which holds up the whole datapath behind it (head-of-line blocking) until it drains.
//
// Latency:    1 cycle (segment accepted on s_axis -> valid on its output).
// Throughput: 1 segment per cycle while the addressed output's slice has room.
// Bad input:  a segment whose out_port belongs to no output of this datapath is accepted and
//   dropped; ev_drop pulses (registered: the cycle after it was accepted). s_axis_tlast and the
//   other NoC fields are not used (tlast = header last is rebuilt from the header).
// Parameters: PORTS 1..16; SEG_BYTES 32 or 64; OUTPUTS 1..17 (ports of the datapath + 1 host);
//   PORT_BASE + OUTPUTS - 1 <= PORTS; DP_INDEX 0..15 (the host port PORTS + DP_INDEX < 32).
`default_nettype none

`include "fp_noc_header.vh"
`include "fp_txf_tuser.vh"

module fp_node_ht #(
    parameter PORTS     = 12,
    parameter SEG_BYTES = 64,
    parameter PORT_BASE = 0,
    parameter OUTPUTS   = 7,
    parameter DP_INDEX  = 0
) (
    input  wire                             clk,
    input  wire                             rst,

    input  wire [SEG_BYTES*8-1:0]           s_axis_tdata,
    input  wire [SEG_BYTES-1:0]             s_axis_tkeep,
    input  wire                             s_axis_tvalid,
    output wire                             s_axis_tready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire                             s_axis_tlast,   // = header last: the header is used
    input  wire [`FP_NOC_W-1:0]                s_axis_tuser,   // only some fields are passed on
    /* verilator lint_on UNUSEDSIGNAL */

    output wire [OUTPUTS*SEG_BYTES*8-1:0]   m_axis_tdata,
    output wire [OUTPUTS*SEG_BYTES-1:0]     m_axis_tkeep,
    output wire [OUTPUTS-1:0]               m_axis_tvalid,
    input  wire [OUTPUTS-1:0]               m_axis_tready,
    output wire [OUTPUTS-1:0]               m_axis_tlast,
    output wire [OUTPUTS*`FP_TXU_W-1:0]        m_axis_tuser,

    output reg                              ev_drop
);

    localparam DW    = SEG_BYTES * 8;

    generate
        if (PORTS < 1 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_1_to_16 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (OUTPUTS < 1 || OUTPUTS > 17) begin : g_bad_outputs
            PARAMETER_ERROR_OUTPUTS_must_be_1_to_17 u_error();
        end
        if (PORT_BASE < 0 || PORT_BASE + OUTPUTS - 1 > PORTS) begin : g_bad_port_base
            PARAMETER_ERROR_PORT_BASE_plus_OUTPUTS_minus_1_must_not_exceed_PORTS u_error();
        end
        if (DP_INDEX < 0 || DP_INDEX > 15) begin : g_bad_dp_index
            PARAMETER_ERROR_DP_INDEX_must_be_0_to_15 u_error();
        end
    endgenerate

    localparam integer HOST_I = PORTS + DP_INDEX;
    localparam [4:0]   HOST   = HOST_I[4:0];
    localparam [4:0] NPORTS = PORTS[4:0];

    /* verilator lint_off UNUSEDSIGNAL */
    wire [`FP_NOC_W-1:0] hdr = s_axis_tuser;  // the classification fields end here
    /* verilator lint_on UNUSEDSIGNAL */
    wire [4:0]        op  = hdr[`FP_NOC_OUT_PORT];
    reg  [`FP_TXU_W-1:0] txu;
    always @* begin
        txu = {`FP_TXU_W{1'b0}};
        txu[`FP_TXU_BAD]       = hdr[`FP_NOC_BAD];
        txu[`FP_TXU_FIRST]     = hdr[`FP_NOC_FIRST];
        txu[`FP_TXU_LAST]      = hdr[`FP_NOC_LAST];
        txu[`FP_TXU_BYTES]     = hdr[`FP_NOC_BYTES];
        txu[`FP_TXU_TS]        = hdr[`FP_NOC_TS];
        txu[`FP_TXU_FROM_HOST] = hdr[`FP_NOC_SRC_PORT] >= NPORTS;
    end

    wire [OUTPUTS-1:0] sel;         // one-hot target output (all 0: not ours)
    wire [OUTPUTS-1:0] slice_ready;

    genvar i;
    generate
        for (i = 0; i < OUTPUTS; i = i + 1) begin : g_out
            if (i == OUTPUTS - 1) begin : g_host
                assign sel[i] = op == HOST;
            end else begin : g_port
                localparam integer PI = PORT_BASE + i;
                localparam [4:0]   P  = PI[4:0];
                assign sel[i] = op == P;
            end

            fp_axis_register #(
                .DATA_WIDTH(DW),
                .USER_WIDTH(`FP_TXU_W)
            ) u_slice (
                .clk           (clk),
                .rst           (rst),
                .s_axis_tdata  (s_axis_tdata),
                .s_axis_tkeep  (s_axis_tkeep),
                .s_axis_tvalid (s_axis_tvalid && sel[i]),
                .s_axis_tready (slice_ready[i]),
                .s_axis_tlast  (hdr[`FP_NOC_LAST]),
                .s_axis_tuser  (txu),
                .m_axis_tdata  (m_axis_tdata[i*DW +: DW]),
                .m_axis_tkeep  (m_axis_tkeep[i*SEG_BYTES +: SEG_BYTES]),
                .m_axis_tvalid (m_axis_tvalid[i]),
                .m_axis_tready (m_axis_tready[i]),
                .m_axis_tlast  (m_axis_tlast[i]),
                .m_axis_tuser  (m_axis_tuser[i*`FP_TXU_W +: `FP_TXU_W])
            );
        end
    endgenerate

    wire mine = |sel;

    assign s_axis_tready = mine ? |(sel & slice_ready) : 1'b1;

    always @(posedge clk) begin
        if (rst) begin
            ev_drop <= 1'b0;
        end else begin
            ev_drop <= s_axis_tvalid && !mine;
        end
    end

endmodule

`default_nettype wire
