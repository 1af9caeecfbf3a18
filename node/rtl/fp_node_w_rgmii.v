// fp_node_w_rgmii: the word-serial node (fp_node_w) with RGMII pins: per port an fp_gmii_rgmii
// between its MAC's GMII side and the pins, at 1000 Mb/s only (speed fixed to 2'b10: no 10/100,
// whose MII byte enable the node's MACs do not take). Everything else is fp_node_w's (its header,
// node/docs/word-serial.md): the register map, the host ports, the latency rule.
//
// Clocks: clk (125 MHz) is the datapath, every TX MAC and the GTX clock of every port: it drives
//   the data fp_oddr. clk90 is clk + 90 degrees (2 ns later), for the forwarded rgmii_tx_clk[p]
//   (its edges in the middle of each nibble: no PHY TX delay needed; a board whose PHY adds its
//   own TX delay drives clk90 with clk's phase instead). rgmii_rx_clk[p] is port p's receive clock
//   from its PHY (125 MHz, its edges in the middle of each nibble: the PHY's RX delay, or an input
//   delay at the chip top); it clocks the fp_iddr and the port's RX MAC (fp_node_w's
//   gmii_rx_clk[p]). rst (clk), s_host_axis, m_host_axis, s_axil: as fp_node_w.
// fp_node_w runs with DDR_PINS = 1: its RX MACs take the fp_iddr's output register as their input
//   register, the SFD stamp is the time of the rising rgmii_rx_clk edge that sampled the SFD's
//   low nibble (as for a GMII pin), and the TX timestamps are the time the SFD's low nibble
//   appears on the RGMII pins.
// Latency: as fp_node_w between the RGMII pins: release_ns + 11 clk cycles from the rising
//   rgmii_rx_clk edge that samples the SFD's low nibble (plus the time from that edge to the next
//   clk edge, fp_node_w Clocks) to the rising clk edge that puts the SFD's low nibble on the TX
//   pins. Against the GMII node the fp_iddr adds 1 cycle before the RX MAC's first byte (8 RX
//   cycles after the SFD instead of 7): it lies inside release_ns, whose worst case is then
//   fastpath.node.budget.w_release_ns(PORTS) + 8 ns; the fp_oddr adds 1 cycle after the TX MAC,
//   and the pins show the SFD at the edge a GMII PHY would have sampled it at (no cycle added to
//   the rule).
// Throughput: as fp_node_w (every port at 1G line rate, every frame size).
// Bad input: as fp_node_w; a PHY error (the two RX_CTL samples of a byte differ inside a frame)
//   is rx_er.
// Parameters: as fp_node_w (PORTS 2..14, SEGMENTS, MAX_BYTES, VLANS, BUCKETS, WAYS), and VENDOR
//   "GENERIC" (default) or "XILINX" for the DDR registers (fp_iddr / fp_oddr).
`default_nettype none

module fp_node_w_rgmii #(
    parameter PORTS     = 4,
    parameter SEGMENTS  = 1024,
    parameter MAX_BYTES = 1518,
    parameter VLANS     = 16,
    parameter BUCKETS   = 128,
    parameter WAYS      = 8,
    parameter VENDOR    = "GENERIC"
) (
    input  wire                   clk,
    input  wire                   clk90,
    // rst is synchronous to clk and also the (asynchronous) source of each RX domain's
    // fp_sync_reset inside fp_node_w: both uses are intended.
    /* verilator lint_off SYNCASYNCNET */
    input  wire                   rst,
    /* verilator lint_on SYNCASYNCNET */

    input  wire [PORTS-1:0]       rgmii_rx_clk,
    input  wire [PORTS*4-1:0]     rgmii_rxd,
    input  wire [PORTS-1:0]       rgmii_rx_ctl,
    output wire [PORTS-1:0]       rgmii_tx_clk,
    output wire [PORTS*4-1:0]     rgmii_txd,
    output wire [PORTS-1:0]       rgmii_tx_ctl,

    input  wire [2*64-1:0]        s_host_axis_tdata,
    input  wire [2*8-1:0]         s_host_axis_tkeep,
    input  wire [1:0]             s_host_axis_tvalid,
    output wire [1:0]             s_host_axis_tready,
    input  wire [1:0]             s_host_axis_tlast,
    input  wire [1:0]             s_host_axis_tuser,

    output wire [2*64-1:0]        m_host_axis_tdata,
    output wire [2*8-1:0]         m_host_axis_tkeep,
    output wire [1:0]             m_host_axis_tvalid,
    input  wire [1:0]             m_host_axis_tready,
    output wire [1:0]             m_host_axis_tlast,
    output wire [1:0]             m_host_axis_tuser,

    input  wire [11:0]            s_axil_awaddr,
    input  wire                   s_axil_awvalid,
    output wire                   s_axil_awready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    input  wire                   s_axil_wvalid,
    output wire                   s_axil_wready,
    output wire [1:0]             s_axil_bresp,
    output wire                   s_axil_bvalid,
    input  wire                   s_axil_bready,
    input  wire [11:0]            s_axil_araddr,
    input  wire                   s_axil_arvalid,
    output wire                   s_axil_arready,
    output wire [31:0]            s_axil_rdata,
    output wire [1:0]             s_axil_rresp,
    output wire                   s_axil_rvalid,
    input  wire                   s_axil_rready
);

    // PORTS and the other fp_node_w parameters are checked by fp_node_w; VENDOR by fp_gmii_rgmii.

    wire [PORTS*8-1:0] gmii_rxd, gmii_txd;
    wire [PORTS-1:0]   gmii_rx_dv, gmii_rx_er, gmii_tx_en, gmii_tx_er;

    genvar p;
    generate
        for (p = 0; p < PORTS; p = p + 1) begin : g_pins
            /* verilator lint_off PINCONNECTEMPTY */
            fp_gmii_rgmii #(.VENDOR(VENDOR)) u_pins (
                .gtx_clk(clk), .gtx_clk90(clk90), .gtx_rst(rst), .speed(2'b10),
                .mii_select(), .tx_clk_en(),    // 1000 only: 0 and 1
                .rgmii_rx_clk(rgmii_rx_clk[p]), .rgmii_rxd(rgmii_rxd[p*4 +: 4]),
                .rgmii_rx_ctl(rgmii_rx_ctl[p]),
                .rgmii_tx_clk(rgmii_tx_clk[p]), .rgmii_txd(rgmii_txd[p*4 +: 4]),
                .rgmii_tx_ctl(rgmii_tx_ctl[p]),
                .gmii_rxd(gmii_rxd[p*8 +: 8]), .gmii_rx_dv(gmii_rx_dv[p]), .gmii_rx_er(gmii_rx_er[p]),
                .gmii_txd(gmii_txd[p*8 +: 8]), .gmii_tx_en(gmii_tx_en[p]), .gmii_tx_er(gmii_tx_er[p])
            );
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate

    fp_node_w #(
        .PORTS(PORTS), .SEGMENTS(SEGMENTS), .MAX_BYTES(MAX_BYTES), .VLANS(VLANS),
        .BUCKETS(BUCKETS), .WAYS(WAYS), .DDR_PINS(1)
    ) u_node (
        .clk(clk), .rst(rst),
        .gmii_rx_clk(rgmii_rx_clk), .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv),
        .gmii_rx_er(gmii_rx_er), .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en),
        .gmii_tx_er(gmii_tx_er),
        .s_host_axis_tdata(s_host_axis_tdata), .s_host_axis_tkeep(s_host_axis_tkeep),
        .s_host_axis_tvalid(s_host_axis_tvalid), .s_host_axis_tready(s_host_axis_tready),
        .s_host_axis_tlast(s_host_axis_tlast), .s_host_axis_tuser(s_host_axis_tuser),
        .m_host_axis_tdata(m_host_axis_tdata), .m_host_axis_tkeep(m_host_axis_tkeep),
        .m_host_axis_tvalid(m_host_axis_tvalid), .m_host_axis_tready(m_host_axis_tready),
        .m_host_axis_tlast(m_host_axis_tlast), .m_host_axis_tuser(m_host_axis_tuser),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
    );

endmodule

`default_nettype wire
