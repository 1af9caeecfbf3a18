// fp_eth_mac_1g_rgmii: fp_eth_mac_1g behind RGMII pins (1000 / 100 / 10 Mb/s), DDR I/O through
// fp_gmii_rgmii (fp_iddr/fp_oddr: generic models, or the vendor primitives with VENDOR = "XILINX").
//
// RX: the PHY's rgmii_rx_clk (125 / 25 / 2.5 MHz) clocks the fp_iddr and the whole RX MAC, which
// runs in the rx_clk domain (rx_clk = rgmii_rx_clk, rx_rst = gtx_rst synchronized to it; clock
// buffers are left to the chip top). At 1000 the rising-edge sample is the low nibble and RX_DV,
// the falling-edge sample the high nibble and RX_DV ^ RX_ER. At 10/100 each rx_clk cycle carries
// one nibble (both edges the same) and the MAC runs in MII mode with clk_en = 1. The fp_iddr's
// output register is the MAC's input register (fp_eth_mac_1g RX_INPUT_REG = 0).
// TX: gtx_clk (125 MHz) clocks the TX MAC and the data fp_oddr. At 1000 each cycle sends a byte
// (low nibble on the rising edge); rgmii_tx_clk is an fp_oddr (1, 0) on gtx_clk90 (gtx_clk + 90
// degrees), so the clock edges sit in the middle of the data (no PHY TX delay needed). At 10/100
// the MAC runs in MII mode with clk_en one cycle in 5 (50); each nibble holds for 5 (50) cycles
// on both edges, and rgmii_tx_clk is a 25 (2.5) MHz 50 % clock from the same divider whose
// rising edge falls 2.25 (12.25) gtx_clk cycles into the nibble.
// speed: 2'b10 = 1000, 2'b01 = 100, 2'b00 (or 2'b11) = 10 Mb/s; quasi-static (change it with
// gtx_rst asserted; the PHY changes rgmii_rx_clk with it). rx_ts_now must come from a fp_timebase
// clocked by rgmii_rx_clk, i.e. of the period that goes with the speed.
//
// Latency (edges of the clock named):
//   RX, rising rgmii_rx_clk edge that samples the SFD's low nibble (1000) or the 0xD nibble
//   (10/100) -> first byte valid on m_axis: 8 rx_clk cycles at 1000 (64 ns: the GMII MAC's 7,
//   plus 1 because the byte is only complete at the falling edge, so the fp_iddr presents it one
//   cycle after its low nibble was sampled), 14 rx_clk cycles at 10/100 (560 ns at 100 Mb/s,
//   5.6 us at 10 Mb/s: the byte-5 nibble is the 12th after the SFD nibble, plus the fp_iddr's two
//   stages). m_axis_ts is the ts_now of the cycle that begins with that sampling edge.
//   TX, first s_axis_tvalid of an idle MAC -> SFD on the pins: 8 gtx_clk cycles at 1000 (64 ns:
//   7 for the preamble, 1 for the fp_oddr); at 10/100, 15 * P + 1 cycles (P = 5 or 50; + up to
//   P - 1 to the next clk_en), the nibble then sampled by the PHY at the next rgmii_tx_clk rising
//   edge. tx_ts is the time of the gtx_clk edge that launched the SFD into the fp_oddr (the pins
//   follow 1 cycle later at 1000; documented offset, see mac/docs/mac_1g.md).
// Throughput: line rate in both directions at every speed.
// Bad input: as fp_eth_mac_1g; a PHY error (RX_CTL falling-edge sample != rising-edge sample while
//   in a frame) is rx_er.
// Parameters: VENDOR "GENERIC" (default) or "XILINX" (passed to fp_iddr/fp_oddr).
`default_nettype none

module fp_eth_mac_1g_rgmii #(
    parameter VENDOR = "GENERIC"
) (
    input  wire        gtx_clk,
    input  wire        gtx_clk90,
    // gtx_rst is synchronous to gtx_clk and also the (asynchronous) source of rx_rst's
    // synchronizer in the rgmii_rx_clk domain: both uses are intended.
    /* verilator lint_off SYNCASYNCNET */
    input  wire        gtx_rst,
    /* verilator lint_on SYNCASYNCNET */
    output wire        rx_clk,
    output wire        rx_rst,
    input  wire [1:0]  speed,

    input  wire        rgmii_rx_clk,
    input  wire [3:0]  rgmii_rxd,
    input  wire        rgmii_rx_ctl,
    output wire        rgmii_tx_clk,
    output wire [3:0]  rgmii_txd,
    output wire        rgmii_tx_ctl,

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

    // ---- RX reset ------------------------------------------------------------------------------
    assign rx_clk = rgmii_rx_clk;

    fp_sync_reset #(.STAGES(2)) u_rx_rst (.clk(rgmii_rx_clk), .rst_in(gtx_rst), .rst_out(rx_rst));

    // ---- the DDR pins (fp_gmii_rgmii) ------------------------------------------------------------
    wire [7:0] gmii_rxd, gmii_txd;
    wire       gmii_rx_dv, gmii_rx_er, gmii_tx_en, gmii_tx_er;
    wire       mii, tx_clk_en;

    fp_gmii_rgmii #(.VENDOR(VENDOR)) u_pins (
        .gtx_clk(gtx_clk), .gtx_clk90(gtx_clk90), .gtx_rst(gtx_rst), .speed(speed),
        .mii_select(mii), .tx_clk_en(tx_clk_en),
        .rgmii_rx_clk(rgmii_rx_clk), .rgmii_rxd(rgmii_rxd), .rgmii_rx_ctl(rgmii_rx_ctl),
        .rgmii_tx_clk(rgmii_tx_clk), .rgmii_txd(rgmii_txd), .rgmii_tx_ctl(rgmii_tx_ctl),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er)
    );

    // The fp_iddr delivers a byte one cycle after the rising edge that sampled its low nibble,
    // where a GMII input register would hold it already: ts_now is delayed by that cycle, so
    // m_axis_ts is the time of the sampling edge (as for GMII).
    reg [63:0] rx_ts_q;
    always @(posedge rgmii_rx_clk) begin
        rx_ts_q <= rx_ts_now;
    end

    // ---- the MAC -------------------------------------------------------------------------------
    // The fp_gmii_rgmii's fp_iddr output register is the MAC's input register (RX_INPUT_REG = 0).
    fp_eth_mac_1g #(.RX_INPUT_REG(0)) u_mac (
        .rx_clk(rgmii_rx_clk), .rx_rst(rx_rst), .rx_clk_en(1'b1),
        .tx_clk(gtx_clk), .tx_rst(gtx_rst), .tx_clk_en(tx_clk_en), .mii_select(mii),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er),
        .rx_ts_now(rx_ts_q), .tx_ts_now(tx_ts_now),
        .m_axis_tdata(m_axis_tdata), .m_axis_tkeep(m_axis_tkeep), .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tlast(m_axis_tlast), .m_axis_tuser(m_axis_tuser), .m_axis_ts(m_axis_ts),
        .s_axis_tdata(s_axis_tdata), .s_axis_tkeep(s_axis_tkeep), .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready), .s_axis_tlast(s_axis_tlast), .s_axis_tuser(s_axis_tuser),
        .s_axis_ts_insert(s_axis_ts_insert), .s_axis_ts_mode(s_axis_ts_mode),
        .s_axis_ts_offset(s_axis_ts_offset),
        .tx_ts(tx_ts), .tx_ts_valid(tx_ts_valid),
        .rx_pause_valid(rx_pause_valid), .rx_pause_quanta(rx_pause_quanta),
        .cfg_rx_max_len(cfg_rx_max_len), .cfg_tx_ifg(cfg_tx_ifg),
        .stat_rx_good(stat_rx_good), .stat_rx_bad(stat_rx_bad), .stat_rx_bad_fcs(stat_rx_bad_fcs),
        .stat_rx_runt(stat_rx_runt), .stat_rx_oversize(stat_rx_oversize),
        .stat_rx_phy_err(stat_rx_phy_err), .stat_rx_bad_preamble(stat_rx_bad_preamble),
        .stat_rx_pause(stat_rx_pause), .stat_rx_bytes(stat_rx_bytes),
        .stat_tx_frames(stat_tx_frames), .stat_tx_bytes(stat_tx_bytes),
        .stat_tx_stomped(stat_tx_stomped), .stat_tx_underrun(stat_tx_underrun),
        .stat_tx_ts_bad_offset(stat_tx_ts_bad_offset), .stat_tx_paused_cycles(stat_tx_paused_cycles)
    );

endmodule

`default_nettype wire
