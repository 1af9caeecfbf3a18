// fp_node_rgmii: the node (fp_node) with RGMII pins: per port an fp_gmii_rgmii between its MAC's
// GMII side and the pins, at 1000 Mb/s only (speed fixed to 2'b10: no 10/100, whose MII byte
// enable fp_node's MACs do not take). Everything else is fp_node's (node/README.md): the
// register map, the host ports, the clocks, the latency rule.
//
// Clocks: port_clk (125 MHz) is every port's GTX clock: it drives the TX MACs and the data
//   fp_oddr; port_clk90 is port_clk + 90 degrees, for the forwarded rgmii_tx_clk[p] (its edges
//   sit in the middle of each nibble: no PHY TX delay needed). rgmii_rx_clk[p] is port p's
//   receive clock from its PHY (125 MHz, its edges in the middle of each nibble: the PHY's RX
//   delay, or an input delay at the chip top); it clocks the fp_iddr and the port's RX MAC (it is
//   fp_node's gmii_rx_clk[p]). clk, rst, port_rst, s_host_axis, m_host_axis, s_axil: as fp_node.
// fp_node runs with DDR_PINS = 1: its RX MACs take the fp_iddr's output register as their input
//   register, the SFD stamp is the time of the rising rgmii_rx_clk edge that sampled the SFD's
//   low nibble (as for a GMII pin), and the TX timestamps are the time the SFD's low nibble
//   appears on the RGMII pins.
// Latency: as fp_node between the RGMII pins: release_ns + 11 port_clk cycles from the rising
//   rgmii_rx_clk edge that samples the SFD's low nibble (plus the 0..8 ns to the next port_clk
//   edge, fp_node Clocks) to the rising port_clk edge that puts the SFD's low nibble on the TX
//   pins. Against the GMII node the fp_iddr adds 1 cycle before the RX MAC's first byte (8 rx_clk
//   cycles after the SFD instead of 7, inside release_ns) and the fp_oddr 1 cycle after the TX
//   MAC (the pins show the SFD at the edge a GMII PHY would have sampled it at).
// Throughput: as fp_node (every port at 1G line rate).
// Bad input: as fp_node; a PHY error (the two RX_CTL samples of a byte differ inside a frame) is
//   rx_er.
// Parameters: as fp_node (PORTS, SEG_BYTES, SEGMENTS, MAX_BYTES, QUEUE_DEPTH, VLANS, BUCKETS,
//   WAYS, TX_TESTER_STAMP), and VENDOR "GENERIC" (default) or "XILINX" for the DDR registers
//   (fp_iddr / fp_oddr).
`default_nettype none

module fp_node_rgmii #(
    parameter PORTS       = 12,
    parameter SEG_BYTES   = 64,
    parameter SEGMENTS    = 3000,
    parameter MAX_BYTES   = 1518,
    parameter QUEUE_DEPTH = 256,
    parameter VLANS       = 16,
    parameter BUCKETS     = 128,
    parameter WAYS        = 8,
    parameter TX_TESTER_STAMP = 0,
    parameter VENDOR      = "GENERIC"
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   port_clk,
    input  wire                   port_clk90,
    // port_rst is synchronous to port_clk and also the (asynchronous) source of each RX
    // domain's fp_sync_reset inside fp_node: both uses are intended.
    /* verilator lint_off SYNCASYNCNET */
    input  wire                   port_rst,
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

    // PORTS and the other fp_node parameters are checked by fp_node; VENDOR by fp_gmii_rgmii.

    wire [PORTS*8-1:0] gmii_rxd, gmii_txd;
    wire [PORTS-1:0]   gmii_rx_dv, gmii_rx_er, gmii_tx_en, gmii_tx_er;

    genvar p;
    generate
        for (p = 0; p < PORTS; p = p + 1) begin : g_pins
            /* verilator lint_off PINCONNECTEMPTY */
            fp_gmii_rgmii #(.VENDOR(VENDOR)) u_pins (
                .gtx_clk(port_clk), .gtx_clk90(port_clk90), .gtx_rst(port_rst), .speed(2'b10),
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

    fp_node #(
        .PORTS(PORTS), .SEG_BYTES(SEG_BYTES), .SEGMENTS(SEGMENTS), .MAX_BYTES(MAX_BYTES),
        .QUEUE_DEPTH(QUEUE_DEPTH), .VLANS(VLANS), .BUCKETS(BUCKETS), .WAYS(WAYS),
        .TX_TESTER_STAMP(TX_TESTER_STAMP), .DDR_PINS(1)
    ) u_node (
        .clk(clk), .rst(rst), .port_clk(port_clk), .port_rst(port_rst),
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
