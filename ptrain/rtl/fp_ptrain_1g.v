// fp_ptrain_1g: the 1G packet-train tester (seeds/003) at GMII pins: fp_ptrain_core (disciplined
// clock, generator, timestamping receiver, registers ptrain/docs/regs/ptrain.md) on fp_eth_mac_1g,
// whose TX writes the tester stamp (tv_sec, tv_usec, tx_time, csum_adj) at the SFD and whose RX
// stamps every frame's SFD with the same clock. One clock: clk is GMII GTX_CLK (125 MHz) and
// samples the RX pins too (ptrain/README.md, "Clocks").
// Latency:    the MAC's (TX 7 cycles from the first beat to the SFD on the pins; RX 7 cycles from
//             the SFD at the pins to the first byte) plus fp_ptrain_core's parts'; the stamps are
//             the times of the SFD at the pins, so a wire from TX to RX reads as its own delay.
// Throughput: line rate both ways at once (1.488 M frames/s of the shortest tester frame, 60 B
//             with the compact header; 1.157 M/s of 84 B, the shortest with the full header).
// Bad input:  as fp_eth_mac_1g and fp_ptrain_core: counted, never recorded, no hang.
// Parameters: PPS_INTERVAL_NS, RULES, STREAMS, WINDOW, RECORD_DEPTH as fp_ptrain_core;
//             RX_MAX_LEN the longest frame received, FCS included (9022: jumbo with a tag).
`default_nettype none

`include "fp_ptrain_record.vh"

module fp_ptrain_1g #(
    parameter PPS_INTERVAL_NS = 1000000000,
    parameter RULES           = 4,
    parameter STREAMS         = 4,
    parameter WINDOW          = 64,
    parameter RECORD_DEPTH    = 512,
    parameter RX_MAX_LEN      = 9022
) (
    input  wire                      clk,
    input  wire                      rst,

    input  wire [7:0]                gmii_rxd,
    input  wire                      gmii_rx_dv,
    input  wire                      gmii_rx_er,
    output wire [7:0]                gmii_txd,
    output wire                      gmii_tx_en,
    output wire                      gmii_tx_er,

    input  wire                      pps,
    output wire [63:0]               now,

    output wire [`FP_PTREC_W-1:0]    m_axis_rec_tdata,
    output wire [`FP_PTREC_W/8-1:0]  m_axis_rec_tkeep,
    output wire                      m_axis_rec_tvalid,
    input  wire                      m_axis_rec_tready,
    output wire                      m_axis_rec_tlast,

    input  wire [11:0]               s_axil_awaddr,
    input  wire                      s_axil_awvalid,
    output wire                      s_axil_awready,
    input  wire [31:0]               s_axil_wdata,
    input  wire [3:0]                s_axil_wstrb,
    input  wire                      s_axil_wvalid,
    output wire                      s_axil_wready,
    output wire [1:0]                s_axil_bresp,
    output wire                      s_axil_bvalid,
    input  wire                      s_axil_bready,
    input  wire [11:0]               s_axil_araddr,
    input  wire                      s_axil_arvalid,
    output wire                      s_axil_arready,
    output wire [31:0]               s_axil_rdata,
    output wire [1:0]                s_axil_rresp,
    output wire                      s_axil_rvalid,
    input  wire                      s_axil_rready
);

    generate
        if (RX_MAX_LEN < 64 || RX_MAX_LEN > 16383) begin : g_bad_len
            PARAMETER_ERROR_RX_MAX_LEN_must_be_64_to_16383 u_error();
        end
    endgenerate

    localparam KW = 8 / 8;
    wire [8-1:0] tx_tdata, rx_tdata;
    wire [KW-1:0]   tx_tkeep, rx_tkeep;
    wire            tx_tvalid, tx_tready, tx_tlast, tx_ts_insert, tx_ts_mode;
    wire [0:0]      tx_tuser, rx_tuser;
    wire [15:0]     tx_ts_offset;
    wire            rx_tvalid, rx_tlast;
    wire [63:0]     rx_ts;

    wire [63:0] mac_now;   // fp_ptrain_core's registered copy of now for the MAC

    fp_ptrain_core #(
        .DATA_WIDTH(8), .PERIOD_NUM(8), .PERIOD_DEN(1), .PPS_INTERVAL_NS(PPS_INTERVAL_NS),
        .RULES(RULES), .STREAMS(STREAMS), .WINDOW(WINDOW), .RECORD_DEPTH(RECORD_DEPTH)
    ) u_core (
        .clk(clk), .rst(rst), .pps(pps), .now(now), .mac_now(mac_now),
        .m_axis_tx_tdata(tx_tdata), .m_axis_tx_tkeep(tx_tkeep), .m_axis_tx_tvalid(tx_tvalid),
        .m_axis_tx_tready(tx_tready), .m_axis_tx_tlast(tx_tlast), .m_axis_tx_tuser(tx_tuser),
        .m_axis_tx_ts_insert(tx_ts_insert), .m_axis_tx_ts_mode(tx_ts_mode), .m_axis_tx_ts_offset(tx_ts_offset),
        .s_axis_rx_tdata(rx_tdata), .s_axis_rx_tkeep(rx_tkeep), .s_axis_rx_tvalid(rx_tvalid),
        .s_axis_rx_tlast(rx_tlast), .s_axis_rx_tuser(rx_tuser), .s_axis_rx_ts(rx_ts),
        .m_axis_rec_tdata(m_axis_rec_tdata), .m_axis_rec_tkeep(m_axis_rec_tkeep),
        .m_axis_rec_tvalid(m_axis_rec_tvalid), .m_axis_rec_tready(m_axis_rec_tready),
        .m_axis_rec_tlast(m_axis_rec_tlast),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
    );

    /* verilator lint_off PINCONNECTEMPTY */
    fp_eth_mac_1g #(.RX_INPUT_REG(1)) u_mac (
        .rx_clk(clk), .rx_rst(rst), .rx_clk_en(1'b1),
        .tx_clk(clk), .tx_rst(rst), .tx_clk_en(1'b1), .mii_select(1'b0),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er),
        .rx_ts_now(mac_now), .tx_ts_now(mac_now),
        .m_axis_tdata(rx_tdata), .m_axis_tkeep(rx_tkeep), .m_axis_tvalid(rx_tvalid),
        .m_axis_tlast(rx_tlast), .m_axis_tuser(rx_tuser), .m_axis_ts(rx_ts),
        .s_axis_tdata(tx_tdata), .s_axis_tkeep(tx_tkeep), .s_axis_tvalid(tx_tvalid),
        .s_axis_tready(tx_tready), .s_axis_tlast(tx_tlast), .s_axis_tuser(tx_tuser),
        .s_axis_ts_insert(tx_ts_insert), .s_axis_ts_mode(tx_ts_mode), .s_axis_ts_offset(tx_ts_offset),
        .tx_ts(), .tx_ts_valid(),
        .rx_pause_valid(), .rx_pause_quanta(),
        .cfg_rx_max_len(RX_MAX_LEN[15:0]), .cfg_tx_ifg(8'd12),
        .stat_rx_good(), .stat_rx_bad(), .stat_rx_bad_fcs(), .stat_rx_runt(), .stat_rx_oversize(),
        .stat_rx_phy_err(), .stat_rx_bad_preamble(), .stat_rx_pause(), .stat_rx_bytes(),
        .stat_tx_frames(), .stat_tx_bytes(), .stat_tx_stomped(), .stat_tx_underrun(),
        .stat_tx_ts_bad_offset(), .stat_tx_paused_cycles()
    );
    /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
