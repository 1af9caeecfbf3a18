// fp_eth_mac_1g: 1G Ethernet MAC, GMII pins (MII 10/100 through clk_en + mii_select): fp_eth_mac_1g_rx
// and fp_eth_mac_1g_tx, with received pause frames pausing the local transmitter.
//
// Two clock domains, as the PHY gives them: rx_clk (GMII RX_CLK, or the 125 MHz clock that
// samples an MII PHY with rx_clk_en) carries the RX pins, m_axis, rx_ts_now, cfg_rx_max_len and
// the RX counters; tx_clk (GTX_CLK, 125 MHz) carries the TX pins, s_axis, tx_ts_now, tx_ts,
// cfg_tx_ifg and the TX counters. They may be the same clock. A received pause (rx_pause_valid,
// also an output) crosses to tx_clk through fp_sync_pulse; its quanta are read from the RX
// register, which holds still for far longer than the crossing (a pause frame lasts 84 byte
// times).
//
// Latency: as fp_eth_mac_1g_rx and fp_eth_mac_1g_tx (nothing added on the data paths):
//   RX, SFD sampled at the pins -> first byte valid on m_axis: GMII 7 cycles (RX_INPUT_REG = 1;
//   6 with 0), MII 12 * P + RX_INPUT_REG cycles (clk_en one cycle in P).
//   TX, first s_axis_tvalid of an idle MAC -> SFD launched on the pins: GMII 7 cycles, MII 15 * P
//   (+ up to P - 1 to the next clk_en).
//   Pause: rx_pause_valid -> TX pause counter loaded: about 4 tx_clk cycles (fp_sync_pulse with
//   STAGES = 2: toggle, two synchronizer flops, load), plus up to one cycle of clock phase.
//   The pause acts at the end of the frame in progress, so the crossing never shows on the
//   wire unless the TX was idle.
// Throughput: line rate in both directions at once, any frame size.
// Bad input: as fp_eth_mac_1g_rx and fp_eth_mac_1g_tx (RX marks or discards and counts, TX stomps
//   and counts). mii_select is quasi-static: change it only while both resets are asserted.
// Parameters: RX_INPUT_REG 0 or 1 (see fp_eth_mac_1g_rx).
`default_nettype none

module fp_eth_mac_1g #(
    parameter RX_INPUT_REG = 1
) (
    input  wire        rx_clk,
    input  wire        rx_rst,
    input  wire        rx_clk_en,
    input  wire        tx_clk,
    input  wire        tx_rst,
    input  wire        tx_clk_en,
    input  wire        mii_select,

    input  wire [7:0]  gmii_rxd,
    input  wire        gmii_rx_dv,
    input  wire        gmii_rx_er,
    output wire [7:0]  gmii_txd,
    output wire        gmii_tx_en,
    output wire        gmii_tx_er,

    input  wire [63:0] rx_ts_now,
    input  wire [63:0] tx_ts_now,

    output wire [7:0]  m_axis_tdata,
    output wire [0:0]  m_axis_tkeep,
    output wire        m_axis_tvalid,
    output wire        m_axis_tlast,
    output wire [0:0]  m_axis_tuser,
    output wire [63:0] m_axis_ts,

    input  wire [7:0]  s_axis_tdata,
    input  wire [0:0]  s_axis_tkeep,
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

    output wire [31:0] stat_rx_good,
    output wire [31:0] stat_rx_bad,
    output wire [31:0] stat_rx_bad_fcs,
    output wire [31:0] stat_rx_runt,
    output wire [31:0] stat_rx_oversize,
    output wire [31:0] stat_rx_phy_err,
    output wire [31:0] stat_rx_bad_preamble,
    output wire [31:0] stat_rx_pause,
    output wire [63:0] stat_rx_bytes,
    output wire [31:0] stat_tx_frames,
    output wire [63:0] stat_tx_bytes,
    output wire [31:0] stat_tx_stomped,
    output wire [31:0] stat_tx_underrun,
    output wire [31:0] stat_tx_ts_bad_offset,
    output wire [63:0] stat_tx_paused_cycles
);

    generate
        if (RX_INPUT_REG != 0 && RX_INPUT_REG != 1) begin : g_bad_rx_input_reg
            PARAMETER_ERROR_RX_INPUT_REG_must_be_0_or_1 u_error();
        end
    endgenerate

    fp_eth_mac_1g_rx #(.INPUT_REG(RX_INPUT_REG)) u_rx (
        .clk(rx_clk), .rst(rx_rst), .clk_en(rx_clk_en), .mii_select(mii_select),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .ts_now(rx_ts_now),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser), .m_axis_ts(m_axis_ts),
        .rx_pause_valid(rx_pause_valid), .rx_pause_quanta(rx_pause_quanta),
        .cfg_rx_max_len(cfg_rx_max_len),
        .stat_rx_good(stat_rx_good), .stat_rx_bad(stat_rx_bad), .stat_rx_bad_fcs(stat_rx_bad_fcs),
        .stat_rx_runt(stat_rx_runt), .stat_rx_oversize(stat_rx_oversize),
        .stat_rx_phy_err(stat_rx_phy_err), .stat_rx_bad_preamble(stat_rx_bad_preamble),
        .stat_rx_pause(stat_rx_pause), .stat_rx_bytes(stat_rx_bytes)
    );

    // ---- pause: rx_clk -> tx_clk ---------------------------------------------------------------
    wire pause_tx;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_sync_pulse #(.STAGES(2)) u_pause_sync (
        .src_clk(rx_clk), .src_rst(rx_rst), .src_pulse(rx_pause_valid),
        .src_busy(),  // pause frames are >= 84 byte times apart, far more than a round trip
        .dst_clk(tx_clk), .dst_rst(tx_rst), .dst_pulse(pause_tx)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    fp_eth_mac_1g_tx u_tx (
        .clk(tx_clk), .rst(tx_rst), .clk_en(tx_clk_en), .mii_select(mii_select),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .s_axis_ts_insert(s_axis_ts_insert), .s_axis_ts_mode(s_axis_ts_mode),
        .s_axis_ts_offset(s_axis_ts_offset),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er),
        .ts_now(tx_ts_now), .tx_ts(tx_ts), .tx_ts_valid(tx_ts_valid),
        .pause_valid(pause_tx), .pause_quanta(rx_pause_quanta),
        .cfg_tx_ifg(cfg_tx_ifg),
        .stat_tx_frames(stat_tx_frames), .stat_tx_bytes(stat_tx_bytes),
        .stat_tx_stomped(stat_tx_stomped), .stat_tx_underrun(stat_tx_underrun),
        .stat_tx_ts_bad_offset(stat_tx_ts_bad_offset), .stat_tx_paused_cycles(stat_tx_paused_cycles)
    );

endmodule

`default_nettype wire
