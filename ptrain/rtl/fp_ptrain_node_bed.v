// fp_ptrain_node_bed: the 1G packet-train tester and a fastpath node in one design, the node as the
// device under test (the paper's Catalyst switch): the tester's TX pins drive the node's port 0 RX
// pins, the node's port 1 TX pins drive the tester's RX pins. Frames the node has not learned are
// flooded from port 0 to port 1 (a 2-port node), so the tester measures the node's latency, its
// throughput and its loss at full load on one port, with no other wiring. Simulation and
// self-test builds; the node's registers are s_node_axil, the tester's s_axil.
// Latency:    the node's (node/README.md) plus the tester's own offset (ptrain/README.md).
// Throughput: the tester's line rate through the node.
// Bad input:  as fp_ptrain_1g and fp_node.
// Parameters: PPS_INTERVAL_NS as fp_ptrain_1g; SEG_BYTES, SEGMENTS as fp_node (PORTS = 2).
`default_nettype none

`include "fp_ptrain_record.vh"

module fp_ptrain_node_bed #(
    parameter PPS_INTERVAL_NS = 1000000000,
    parameter SEG_BYTES       = 64,
    parameter SEGMENTS        = 256
) (
    input  wire                      clk,        // 125 MHz: the tester, the node's port_clk and RX clocks
    input  wire                      rst,
    input  wire                      dp_clk,     // the node's datapath clock
    input  wire                      dp_rst,
    input  wire                      pps,

    output wire [`FP_PTREC_W-1:0]    m_axis_rec_tdata,
    output wire [`FP_PTREC_W/8-1:0]  m_axis_rec_tkeep,
    output wire                      m_axis_rec_tvalid,
    input  wire                      m_axis_rec_tready,
    output wire                      m_axis_rec_tlast,

    input  wire [11:0]   s_axil_awaddr,
    input  wire          s_axil_awvalid,
    output wire          s_axil_awready,
    input  wire [31:0]   s_axil_wdata,
    input  wire [3:0]    s_axil_wstrb,
    input  wire          s_axil_wvalid,
    output wire          s_axil_wready,
    output wire [1:0]    s_axil_bresp,
    output wire          s_axil_bvalid,
    input  wire          s_axil_bready,
    input  wire [11:0]   s_axil_araddr,
    input  wire          s_axil_arvalid,
    output wire          s_axil_arready,
    output wire [31:0]   s_axil_rdata,
    output wire [1:0]    s_axil_rresp,
    output wire          s_axil_rvalid,
    input  wire          s_axil_rready,
    input  wire [11:0]   s_node_axil_awaddr,
    input  wire          s_node_axil_awvalid,
    output wire          s_node_axil_awready,
    input  wire [31:0]   s_node_axil_wdata,
    input  wire [3:0]    s_node_axil_wstrb,
    input  wire          s_node_axil_wvalid,
    output wire          s_node_axil_wready,
    output wire [1:0]    s_node_axil_bresp,
    output wire          s_node_axil_bvalid,
    input  wire          s_node_axil_bready,
    input  wire [11:0]   s_node_axil_araddr,
    input  wire          s_node_axil_arvalid,
    output wire          s_node_axil_arready,
    output wire [31:0]   s_node_axil_rdata,
    output wire [1:0]    s_node_axil_rresp,
    output wire          s_node_axil_rvalid,
    input  wire          s_node_axil_rready,
    output wire [63:0]               now
);

    wire [7:0]  t_txd, n_txd1;
    wire        t_tx_en, t_tx_er, n_tx_en1, n_tx_er1;
    // The node's port 0 transmits nothing the bed uses (frames from port 0 flood to port 1 only).
    /* verilator lint_off UNUSEDSIGNAL */
    wire [15:0] n_txd;
    wire [1:0]  n_tx_en, n_tx_er;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_ptrain_1g #(.PPS_INTERVAL_NS(PPS_INTERVAL_NS)) u_tester (
        .clk(clk), .rst(rst),
        .gmii_rxd(n_txd1), .gmii_rx_dv(n_tx_en1), .gmii_rx_er(n_tx_er1),
        .gmii_txd(t_txd), .gmii_tx_en(t_tx_en), .gmii_tx_er(t_tx_er),
        .pps(pps), .now(now),
        .m_axis_rec_tdata(m_axis_rec_tdata), .m_axis_rec_tkeep(m_axis_rec_tkeep),
        .m_axis_rec_tvalid(m_axis_rec_tvalid), .m_axis_rec_tready(m_axis_rec_tready),
        .m_axis_rec_tlast(m_axis_rec_tlast),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready), .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid), .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid), .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid), .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp), .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
    );

    assign n_txd1   = n_txd[15:8];
    assign n_tx_en1 = n_tx_en[1];
    assign n_tx_er1 = n_tx_er[1];

    /* verilator lint_off PINCONNECTEMPTY */
    fp_node #(.PORTS(2), .SEG_BYTES(SEG_BYTES), .SEGMENTS(SEGMENTS)) u_node (
        .clk(dp_clk), .rst(dp_rst), .port_clk(clk), .port_rst(rst),
        .gmii_rx_clk({clk, clk}), .gmii_rxd({8'd0, t_txd}), .gmii_rx_dv({1'b0, t_tx_en}),
        .gmii_rx_er({1'b0, t_tx_er}),
        .gmii_txd(n_txd), .gmii_tx_en(n_tx_en), .gmii_tx_er(n_tx_er),
        .s_host_axis_tdata(128'd0), .s_host_axis_tkeep(16'd0), .s_host_axis_tvalid(2'b00),
        .s_host_axis_tready(), .s_host_axis_tlast(2'b00), .s_host_axis_tuser(2'b00),
        .m_host_axis_tdata(), .m_host_axis_tkeep(), .m_host_axis_tvalid(), .m_host_axis_tready(2'b11),
        .m_host_axis_tlast(), .m_host_axis_tuser(),
        .s_axil_awaddr(s_node_axil_awaddr), .s_axil_awvalid(s_node_axil_awvalid), .s_axil_awready(s_node_axil_awready), .s_axil_wdata(s_node_axil_wdata), .s_axil_wstrb(s_node_axil_wstrb), .s_axil_wvalid(s_node_axil_wvalid), .s_axil_wready(s_node_axil_wready), .s_axil_bresp(s_node_axil_bresp), .s_axil_bvalid(s_node_axil_bvalid), .s_axil_bready(s_node_axil_bready), .s_axil_araddr(s_node_axil_araddr), .s_axil_arvalid(s_node_axil_arvalid), .s_axil_arready(s_node_axil_arready), .s_axil_rdata(s_node_axil_rdata), .s_axil_rresp(s_node_axil_rresp), .s_axil_rvalid(s_node_axil_rvalid), .s_axil_rready(s_node_axil_rready)
    );
    /* verilator lint_on PINCONNECTEMPTY */

endmodule

`default_nettype wire
