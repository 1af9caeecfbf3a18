// fp_fade_1g: the FADE-10G core on the 1G MAC: fp_fade_core + fp_eth_mac_1g through 8 <-> 64-bit width
// adapters (fp_axis_w8to64 on RX, fp_axis_w64to8 on TX), GMII pins, one 125 MHz clock for the MAC RX,
// MAC TX and the core (GMII RX_CLK and GTX_CLK must be the same clock here; put an async FIFO in
// front otherwise). The core's user side is passed through; the MAC's counters are outputs.
// Frames up to 9,600 bytes are received; IFG 12 bytes; no timestamps.
//
// Latency: fp_fade_core's plus the MAC's (RX 7 cycles SFD -> first byte, TX 7 cycles) plus 1 cycle
//   in each adapter; on RX the core sees a 64-bit beat every 8 cycles.
// Throughput: 1 Gb/s line rate: the core's TX runs at 1/8 of its beat rate (the adapter holds
//   it back through m_eth_tready), so the inter-frame delay is in core cycles of 8 ns.
// Bad input: frames the MAC marks bad (FCS, runt, oversize > 9,600 bytes, gmii_rx_er) or
//   discards are counted by the MAC; fp_fade_core drops those and every foreign or malformed frame
//   (ev_rx_bad_fcs, ev_rx_drop). Different RX and TX clocks are not detected (see above).
// Parameters: as fp_fade_core.
`default_nettype none

module fp_fade_1g #(
    parameter N = 4,
    parameter TIMEOUT = 100000,
    parameter DA_WINDOW = 64,
    parameter DA_HI = 8,
    parameter DA_LO = 1,
    parameter DA_STEP = 16,
    parameter DA_MIN = 0,
    parameter DA_MAX = 4096,
    parameter DA_INIT = 0,
    parameter ACK_FIFO = 16,
    parameter ACK_RECORDS = 8,
    parameter CMD_FIFO = 4
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [7:0]  gmii_rxd,
    input  wire        gmii_rx_dv,
    input  wire        gmii_rx_er,
    output wire [7:0]  gmii_txd,
    output wire        gmii_tx_en,
    output wire        gmii_tx_er,

    input  wire [47:0] cfg_local_mac,

    input  wire [63:0] s_axis_tdata,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,

    output wire        m_cmd_valid,
    input  wire        m_cmd_ready,
    output wire [15:0] m_cmd_code,
    output wire [31:0] m_cmd_arg,
    output wire [15:0] m_cmd_csn,
    input  wire        s_rsp_valid,
    output wire        s_rsp_ready,
    input  wire [63:0] s_rsp_value,

    output wire [1:0]  state,
    output wire [15:0] delay,
    output wire        ev_tx_data,
    output wire        ev_tx_early,
    output wire        ev_tx_nack,
    output wire        ev_tx_timeout,
    output wire        ev_tx_resp,
    output wire        ev_ack,
    output wire        ev_nack,
    output wire        ev_ack_stale,
    output wire        ev_proto_err,
    output wire        ev_rx_bad_fcs,
    output wire        ev_rx_drop,
    output wire        ev_cmd_exec,
    output wire        ev_cmd_repeat,

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

    wire [63:0] tx_tdata, rx_tdata;
    wire [7:0]  tx_tkeep, rx_tkeep;
    wire        tx_tvalid, tx_tready, tx_tlast, rx_tvalid, rx_tlast;
    wire [0:0]  tx_tuser, rx_tuser;

    fp_fade_core #(
        .N(N), .TIMEOUT(TIMEOUT), .DA_WINDOW(DA_WINDOW), .DA_HI(DA_HI), .DA_LO(DA_LO),
        .DA_STEP(DA_STEP), .DA_MIN(DA_MIN), .DA_MAX(DA_MAX), .DA_INIT(DA_INIT),
        .ACK_FIFO(ACK_FIFO), .CMD_FIFO(CMD_FIFO), .ACK_RECORDS(ACK_RECORDS)
    ) u_core (
        .clk(clk), .rst(rst), .cfg_local_mac(cfg_local_mac),
        .s_axis_tdata(s_axis_tdata), .s_axis_tvalid(s_axis_tvalid), .s_axis_tready(s_axis_tready),
        .m_eth_tdata(tx_tdata), .m_eth_tkeep(tx_tkeep), .m_eth_tvalid(tx_tvalid),
        .m_eth_tready(tx_tready), .m_eth_tlast(tx_tlast), .m_eth_tuser(tx_tuser),
        .s_eth_tdata(rx_tdata), .s_eth_tkeep(rx_tkeep), .s_eth_tvalid(rx_tvalid),
        .s_eth_tlast(rx_tlast), .s_eth_tuser(rx_tuser),
        .m_cmd_valid(m_cmd_valid), .m_cmd_ready(m_cmd_ready), .m_cmd_code(m_cmd_code),
        .m_cmd_arg(m_cmd_arg), .m_cmd_csn(m_cmd_csn),
        .s_rsp_valid(s_rsp_valid), .s_rsp_ready(s_rsp_ready), .s_rsp_value(s_rsp_value),
        .state(state), .delay(delay),
        .ev_tx_data(ev_tx_data), .ev_tx_early(ev_tx_early), .ev_tx_nack(ev_tx_nack),
        .ev_tx_timeout(ev_tx_timeout), .ev_tx_resp(ev_tx_resp), .ev_ack(ev_ack), .ev_nack(ev_nack),
        .ev_ack_stale(ev_ack_stale), .ev_proto_err(ev_proto_err), .ev_rx_bad_fcs(ev_rx_bad_fcs),
        .ev_rx_drop(ev_rx_drop), .ev_cmd_exec(ev_cmd_exec), .ev_cmd_repeat(ev_cmd_repeat)
    );

    wire [7:0]  mrx_tdata, mtx_tdata;
    wire        mrx_tvalid, mrx_tlast, mtx_tvalid, mtx_tready, mtx_tlast;
    wire [0:0]  mrx_tuser, mtx_tuser;

    fp_axis_w8to64 #(
        .USER_WIDTH(1)
    ) u_rx_w (
        .clk(clk), .rst(rst),
        .s_axis_tdata(mrx_tdata), .s_axis_tvalid(mrx_tvalid), .s_axis_tlast(mrx_tlast),
        .s_axis_tuser(mrx_tuser),
        .m_axis_tdata(rx_tdata), .m_axis_tkeep(rx_tkeep), .m_axis_tvalid(rx_tvalid),
        .m_axis_tlast(rx_tlast), .m_axis_tuser(rx_tuser)
    );

    fp_axis_w64to8 #(
        .USER_WIDTH(1)
    ) u_tx_w (
        .clk(clk), .rst(rst),
        .s_axis_tdata(tx_tdata), .s_axis_tkeep(tx_tkeep), .s_axis_tvalid(tx_tvalid),
        .s_axis_tready(tx_tready), .s_axis_tlast(tx_tlast), .s_axis_tuser(tx_tuser),
        .m_axis_tdata(mtx_tdata), .m_axis_tvalid(mtx_tvalid), .m_axis_tready(mtx_tready),
        .m_axis_tlast(mtx_tlast), .m_axis_tuser(mtx_tuser)
    );

    // MAC outputs not used here: RX tkeep (always 1), timestamps, pause indication.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [0:0]  unused_rx_keep;
    wire [63:0] unused_rx_ts, unused_tx_ts;
    wire        unused_tx_ts_valid, unused_pause_valid;
    wire [15:0] unused_pause_quanta;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_eth_mac_1g u_mac (
        .rx_clk(clk), .rx_rst(rst), .rx_clk_en(1'b1), .tx_clk(clk), .tx_rst(rst), .tx_clk_en(1'b1),
        .mii_select(1'b0),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er),
        .rx_ts_now(64'd0), .tx_ts_now(64'd0),
        .m_axis_tdata(mrx_tdata), .m_axis_tkeep(unused_rx_keep), .m_axis_tvalid(mrx_tvalid),
        .m_axis_tlast(mrx_tlast), .m_axis_tuser(mrx_tuser), .m_axis_ts(unused_rx_ts),
        .s_axis_tdata(mtx_tdata), .s_axis_tkeep(1'b1), .s_axis_tvalid(mtx_tvalid),
        .s_axis_tready(mtx_tready), .s_axis_tlast(mtx_tlast), .s_axis_tuser(mtx_tuser),
        .s_axis_ts_insert(1'b0), .s_axis_ts_mode(1'b0), .s_axis_ts_offset(16'd0),
        .tx_ts(unused_tx_ts), .tx_ts_valid(unused_tx_ts_valid),
        .rx_pause_valid(unused_pause_valid), .rx_pause_quanta(unused_pause_quanta),
        .cfg_rx_max_len(16'd9600), .cfg_tx_ifg(8'd12),
        .stat_rx_good(stat_rx_good),
        .stat_rx_bad(stat_rx_bad),
        .stat_rx_bad_fcs(stat_rx_bad_fcs),
        .stat_rx_runt(stat_rx_runt),
        .stat_rx_oversize(stat_rx_oversize),
        .stat_rx_phy_err(stat_rx_phy_err),
        .stat_rx_bad_preamble(stat_rx_bad_preamble),
        .stat_rx_pause(stat_rx_pause),
        .stat_rx_bytes(stat_rx_bytes),
        .stat_tx_frames(stat_tx_frames),
        .stat_tx_bytes(stat_tx_bytes),
        .stat_tx_stomped(stat_tx_stomped),
        .stat_tx_underrun(stat_tx_underrun),
        .stat_tx_ts_bad_offset(stat_tx_ts_bad_offset),
        .stat_tx_paused_cycles(stat_tx_paused_cycles)
    );

endmodule

`default_nettype wire
