// fp_eth_mac_10g: 10G Ethernet MAC, XGMII 64-bit at 156.25 MHz: fp_eth_mac_10g_rx + fp_eth_mac_10g_tx, the
// pause coupling (a pause frame received on RX holds the local TX) and the counters of
// mac/README.md. RX and TX share one clock (the PCS's 156.25 MHz; rx and tx XGMII in that domain).
//
// Latency:    RX 3 cycles (SFD on the pins -> first beat valid on m_axis, either start lane);
//             TX 1 cycle (first tvalid of an idle MAC -> /S/ + SFD word on the pins). The pause
//             quanta reach the TX one cycle after the pause frame's last byte is checked (RX
//             status cycle); counters update one cycle after the RX/TX status pulses.
// Throughput: line rate in both directions at once, any frame size (14.88 Mpps at 64 bytes).
// Bad input:  as fp_eth_mac_10g_rx and fp_eth_mac_10g_tx; every bad or dropped frame is counted.
// Counters:   free-running, cleared by rst, wrapping: frame counters 32 bits, stat_rx_bytes and
//             stat_tx_bytes 64 bits (bytes with FCS, without preamble: every frame with a valid SFD
//             on RX, its full length even when cut as oversize; every frame sent on TX),
//             stat_tx_paused_cycles 64 bits. stat_rx_bad counts every frame that is neither good
//             nor a valid pause (each cause also counts in its own counter); stat_tx_stomped
//             counts tuser-bad frames, stat_tx_underrun underruns (also sent stomped).
// Parameters: PERIOD_NUM/PERIOD_DEN = clock period in ns (default 32/5 = 6.4 ns), for timestamps.
`default_nettype none

module fp_eth_mac_10g #(
    parameter PERIOD_NUM = 32,
    parameter PERIOD_DEN = 5
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] xgmii_rxd,
    input  wire [7:0]  xgmii_rxc,
    output wire [63:0] xgmii_txd,
    output wire [7:0]  xgmii_txc,

    input  wire [63:0] ts_now,

    output wire [63:0] m_axis_tdata,
    output wire [7:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    output wire        m_axis_tlast,
    output wire [0:0]  m_axis_tuser,
    output wire [63:0] m_axis_ts,

    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,
    input  wire [0:0]  s_axis_tuser,
    input  wire        s_axis_ts_insert,
    input  wire        s_axis_ts_mode,
    input  wire [15:0] s_axis_ts_offset,

    output wire [63:0] tx_ts,
    output wire        tx_ts_valid,
    output wire        rx_pause_valid,
    output wire [15:0] rx_pause_quanta,

    input  wire [15:0] cfg_rx_max_len,
    input  wire [7:0]  cfg_tx_ifg,

    output reg  [31:0] stat_rx_good,
    output reg  [31:0] stat_rx_bad,
    output reg  [31:0] stat_rx_bad_fcs,
    output reg  [31:0] stat_rx_runt,
    output reg  [31:0] stat_rx_oversize,
    output reg  [31:0] stat_rx_phy_err,
    output reg  [31:0] stat_rx_bad_preamble,
    output reg  [31:0] stat_rx_pause,
    output reg  [63:0] stat_rx_bytes,
    output reg  [31:0] stat_tx_frames,
    output reg  [63:0] stat_tx_bytes,
    output reg  [31:0] stat_tx_stomped,
    output reg  [31:0] stat_tx_underrun,
    output reg  [31:0] stat_tx_ts_bad_offset,
    output reg  [63:0] stat_tx_paused_cycles
);

    wire        rx_st_valid, rx_st_good, rx_st_bad, rx_st_bad_fcs, rx_st_runt, rx_st_oversize;
    wire        rx_st_phy_err, rx_st_pause, rx_bad_preamble;
    wire [15:0] rx_st_len;
    wire        tx_st_valid, tx_st_stomped, tx_st_underrun, tx_st_ts_bad_offset, tx_paused;
    wire [15:0] tx_st_len;

    fp_eth_mac_10g_rx #(
        .PERIOD_NUM (PERIOD_NUM),
        .PERIOD_DEN (PERIOD_DEN)
    ) u_rx (
        .clk                (clk),
        .rst                (rst),
        .xgmii_rxd          (xgmii_rxd),
        .xgmii_rxc          (xgmii_rxc),
        .ts_now             (ts_now),
        .cfg_rx_max_len     (cfg_rx_max_len),
        .m_axis_tdata       (m_axis_tdata),
        .m_axis_tkeep       (m_axis_tkeep),
        .m_axis_tvalid      (m_axis_tvalid),
        .m_axis_tlast       (m_axis_tlast),
        .m_axis_tuser       (m_axis_tuser),
        .m_axis_ts          (m_axis_ts),
        .rx_pause_valid     (rx_pause_valid),
        .rx_pause_quanta    (rx_pause_quanta),
        .rx_status_valid    (rx_st_valid),
        .rx_status_len      (rx_st_len),
        .rx_status_good     (rx_st_good),
        .rx_status_bad      (rx_st_bad),
        .rx_status_bad_fcs  (rx_st_bad_fcs),
        .rx_status_runt     (rx_st_runt),
        .rx_status_oversize (rx_st_oversize),
        .rx_status_phy_err  (rx_st_phy_err),
        .rx_status_pause    (rx_st_pause),
        .rx_bad_preamble    (rx_bad_preamble)
    );

    fp_eth_mac_10g_tx #(
        .PERIOD_NUM (PERIOD_NUM),
        .PERIOD_DEN (PERIOD_DEN)
    ) u_tx (
        .clk                     (clk),
        .rst                     (rst),
        .s_axis_tdata            (s_axis_tdata),
        .s_axis_tkeep            (s_axis_tkeep),
        .s_axis_tvalid           (s_axis_tvalid),
        .s_axis_tready           (s_axis_tready),
        .s_axis_tlast            (s_axis_tlast),
        .s_axis_tuser            (s_axis_tuser),
        .s_axis_ts_insert        (s_axis_ts_insert),
        .s_axis_ts_mode          (s_axis_ts_mode),
        .s_axis_ts_offset        (s_axis_ts_offset),
        .xgmii_txd               (xgmii_txd),
        .xgmii_txc               (xgmii_txc),
        .ts_now                  (ts_now),
        .cfg_tx_ifg              (cfg_tx_ifg),
        .pause_valid             (rx_pause_valid),
        .pause_quanta            (rx_pause_quanta),
        .tx_ts                   (tx_ts),
        .tx_ts_valid             (tx_ts_valid),
        .tx_status_valid         (tx_st_valid),
        .tx_status_len           (tx_st_len),
        .tx_status_stomped       (tx_st_stomped),
        .tx_status_underrun      (tx_st_underrun),
        .tx_status_ts_bad_offset (tx_st_ts_bad_offset),
        .tx_paused               (tx_paused)
    );

    wire rx_v = rx_st_valid;
    wire tx_v = tx_st_valid;

    always @(posedge clk) begin
        stat_rx_good          <= stat_rx_good + {31'd0, rx_v && rx_st_good};
        stat_rx_bad           <= stat_rx_bad + {31'd0, rx_v && rx_st_bad};
        stat_rx_bad_fcs       <= stat_rx_bad_fcs + {31'd0, rx_v && rx_st_bad_fcs};
        stat_rx_runt          <= stat_rx_runt + {31'd0, rx_v && rx_st_runt};
        stat_rx_oversize      <= stat_rx_oversize + {31'd0, rx_v && rx_st_oversize};
        stat_rx_phy_err       <= stat_rx_phy_err + {31'd0, rx_v && rx_st_phy_err};
        stat_rx_pause         <= stat_rx_pause + {31'd0, rx_v && rx_st_pause};
        stat_rx_bad_preamble  <= stat_rx_bad_preamble + {31'd0, rx_bad_preamble};
        stat_rx_bytes         <= stat_rx_bytes + (rx_v ? {48'd0, rx_st_len} : 64'd0);
        stat_tx_frames        <= stat_tx_frames + {31'd0, tx_v};
        stat_tx_bytes         <= stat_tx_bytes + (tx_v ? {48'd0, tx_st_len} : 64'd0);
        stat_tx_stomped       <= stat_tx_stomped + {31'd0, tx_v && tx_st_stomped};
        stat_tx_underrun      <= stat_tx_underrun + {31'd0, tx_v && tx_st_underrun};
        stat_tx_ts_bad_offset <= stat_tx_ts_bad_offset + {31'd0, tx_v && tx_st_ts_bad_offset};
        stat_tx_paused_cycles <= stat_tx_paused_cycles + {63'd0, tx_paused};
        if (rst) begin
            stat_rx_good          <= 32'd0;
            stat_rx_bad           <= 32'd0;
            stat_rx_bad_fcs       <= 32'd0;
            stat_rx_runt          <= 32'd0;
            stat_rx_oversize      <= 32'd0;
            stat_rx_phy_err       <= 32'd0;
            stat_rx_pause         <= 32'd0;
            stat_rx_bad_preamble  <= 32'd0;
            stat_rx_bytes         <= 64'd0;
            stat_tx_frames        <= 32'd0;
            stat_tx_bytes         <= 64'd0;
            stat_tx_stomped       <= 32'd0;
            stat_tx_underrun      <= 32'd0;
            stat_tx_ts_bad_offset <= 32'd0;
            stat_tx_paused_cycles <= 64'd0;
        end
    end

endmodule

`default_nettype wire
