// fp_node_w_board_versa: the chip top of a 2-port switch on the Lattice ECP5 Versa board
// (LFE5UM-45F-8BG381C, two Marvell 88E1512 gigabit PHYs on RGMII, a 100 MHz LVDS oscillator,
// 8 user LEDs): fp_node_w_rgmii with PORTS = 2 on the board's two RJ45 ports, its host ports and
// register bus tied off. Pins: fp_node_w_board_versa.lpf beside this file; the build: the
// synthesis entry node_board_versa (node/syn.toml). The PHYs must be strapped for RGMII (the
// board's jumpers J66 across pins 1-2, J67 open, J68 shorted).
//
// Clocks: an EHXPLLL makes clk (125 MHz: the node's datapath, TX MACs and GTX) and clk90 (the
//   forwarded RGMII TX clocks, TXC_SHIFT degrees after clk) from clk100 (100 MHz / 4 = 25 MHz at
//   the phase detector, VCO 625 MHz, output dividers 5). rgmii_rx_clk[p] comes from PHY p. In
//   simulation (no SYNTHESIS) there is no PLL: the test bench drives sim_pll_clk, sim_pll_clk90
//   and sim_pll_lock, ports that only exist then (the EHXPLLL has no simulation model here),
//   and clk100 is unused.
// Reset: rst (clk) is the PLL's lock through fp_sync_reset and one register: the node is in
//   reset until the PLL locks, and again if it loses lock.
//   phy_rst_n[p] is low in reset and for PHY_RST_CYCLES clk cycles after it (16.8 ms: the
//   88E1512 wants 10 ms); phy_mdc[p] is held low: the PHYs keep their strapped configuration (no
//   MDIO master; MDIO is pulled up by the LPF).
// Registers: the node's reset values make it a learning switch on VLAN 1 with both ports enabled;
//   release_ns resets to 0 (each frame leaves as soon as its first word is back, so latency varies
//   with load and a frame can underrun). After reset a small AXI4-Lite master writes RELEASE_NS
//   (default fastpath.node.budget.w_release_ns(2) + 8 ns, the fp_iddr's cycle: the worst case,
//   fp_node_w_rgmii) into release_ns once, then reads port_rx_frames of port 0 and 1 in turn
//   forever, for the LEDs.
// LEDs (led_n[7:0], active low): 0 lit once the PLL has locked and release_ns is written; 1
//   (port 0) and 2 (port 1) lit, and dark for LED_CYCLES clk cycles (33.5 ms) then lit again for
//   as long whenever that port's received frame count changed (activity: they blink at 15 Hz
//   under traffic); 3 lit once the PHYs are out of reset; 4..7 dark. Link state lives in the
//   PHYs (MDIO), which this top does not read.
// Latency: frames between the RJ45 ports: fp_node_w_rgmii's, release_ns + 11 clk cycles between
//   the RGMII pins (plus the phase of the PHY's RX clock against clk); phy_rst_n and led_n are
//   registers (1 clk cycle after their cause).
// Throughput: both ports at 1000 Mb/s line rate (1000BASE-T links only: the node's MACs do not
//   take 10/100 MII timing).
// Bad input: as fp_node_w (bad frames dropped or stomped and counted); the AXI4-Lite responses
//   are not checked (the map always answers OKAY).
// Parameters: RELEASE_NS 0..16777215 (release_ns bits 23:0); PHY_RST_CYCLES >= 1; LED_CYCLES >= 1;
//   TXC_SHIFT 90 (the forwarded TX clock centred in the data: a PHY without TX clock delay, the
//   fp_gmii_rgmii contract) or 0 (edge aligned: a PHY that delays TXC itself; LiteX's Versa
//   target runs these PHYs with their own TX and RX clock delays, so 0 is the likely setting on
//   the board; not tried on hardware).
// Pin timing: fp_node_w_rgmii's DDR registers are the generic ones (VENDOR "GENERIC": fabric
//   flip-flops placed by nextpnr, no IDDRX1F / ODDRX1F in the I/O cells), so the RGMII pins'
//   setup, hold and skew are not controlled by the build (nextpnr takes no I/O timing
//   constraints): hardware needs a Lattice branch in fp_iddr / fp_oddr first.
`default_nettype none

module fp_node_w_board_versa #(
    parameter RELEASE_NS     = 472,
    parameter PHY_RST_CYCLES = 1 << 21,
    parameter LED_CYCLES     = 1 << 22,
    parameter TXC_SHIFT      = 90
) (
    // the oscillator; unused in simulation
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire       clk100,
    /* verilator lint_on UNUSEDSIGNAL */
`ifndef SYNTHESIS
    input  wire       sim_pll_clk,
    input  wire       sim_pll_clk90,
    input  wire       sim_pll_lock,
`endif

    input  wire [1:0] rgmii_rx_clk,
    input  wire [7:0] rgmii_rxd,
    input  wire [1:0] rgmii_rx_ctl,
    output wire [1:0] rgmii_tx_clk,
    output wire [7:0] rgmii_txd,
    output wire [1:0] rgmii_tx_ctl,
    output wire [1:0] phy_rst_n,
    output wire [1:0] phy_mdc,
    // MDIO is not driven (the LPF pulls it up)
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [1:0] phy_mdio,
    /* verilator lint_on UNUSEDSIGNAL */

    output wire [7:0] led_n
);

    generate
        if (RELEASE_NS < 0 || RELEASE_NS > 24'hFF_FFFF) begin : g_bad_release
            PARAMETER_ERROR_RELEASE_NS_must_be_0_to_16777215 u_error();
        end
        if (PHY_RST_CYCLES < 1) begin : g_bad_phy_rst
            PARAMETER_ERROR_PHY_RST_CYCLES_must_be_at_least_1 u_error();
        end
        if (LED_CYCLES < 1) begin : g_bad_led
            PARAMETER_ERROR_LED_CYCLES_must_be_at_least_1 u_error();
        end
        if (TXC_SHIFT != 0 && TXC_SHIFT != 90) begin : g_bad_txc
            PARAMETER_ERROR_TXC_SHIFT_must_be_0_or_90 u_error();
        end
    endgenerate

    // ---- clocks and reset --------------------------------------------------------------------
    wire clk, clk90, locked;
`ifdef SYNTHESIS
    // 100 MHz / CLKI_DIV 4 = 25 MHz at the phase detector; feedback from CLKOP: VCO = 25 x
    // CLKFB_DIV 5 x CLKOP_DIV 5 = 625 MHz (400..800), CLKOP = CLKOS = 625 / 5 = 125 MHz. Phases in
    // VCO cycles (1.6 ns, 72 degrees of 125 MHz) and eighths of one: CLKOS is CLKOP + 1 2/8
    // cycles = 2 ns = 90 degrees (CPHASE 3, FPHASE 2 against CLKOP's 2, 0), or in phase with it.
    localparam CLKOS_CPHASE = (TXC_SHIFT == 90) ? 3 : 2;
    localparam CLKOS_FPHASE = (TXC_SHIFT == 90) ? 2 : 0;
    (* FREQUENCY_PIN_CLKI = "100" *)
    (* FREQUENCY_PIN_CLKOP = "125" *)
    (* FREQUENCY_PIN_CLKOS = "125" *)
    EHXPLLL #(
        .CLKI_DIV(4), .CLKFB_DIV(5), .FEEDBK_PATH("CLKOP"),
        .CLKOP_ENABLE("ENABLED"), .CLKOP_DIV(5), .CLKOP_CPHASE(2), .CLKOP_FPHASE(0),
        .CLKOS_ENABLE("ENABLED"), .CLKOS_DIV(5), .CLKOS_CPHASE(CLKOS_CPHASE),
        .CLKOS_FPHASE(CLKOS_FPHASE),
        .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"),
        .PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"),
        .DPHASE_SOURCE("DISABLED")
    ) u_pll (
        .CLKI(clk100), .CLKFB(clk), .CLKOP(clk), .CLKOS(clk90), .LOCK(locked),
        .RST(1'b0), .STDBY(1'b0), .ENCLKOP(1'b0), .PLLWAKESYNC(1'b0),
        .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b0), .PHASESTEP(1'b0),
        .PHASELOADREG(1'b0)
    );
`else
    assign clk    = sim_pll_clk;
    assign clk90  = sim_pll_clk90;
    assign locked = sim_pll_lock;
`endif

    // rst: the lock through fp_sync_reset and one more register (a register of this module: the
    // node's reset is synchronous to clk and also the asynchronous source of its RX domains'
    // fp_sync_reset, both uses intended)
    wire rst_sync;
    fp_sync_reset #(.STAGES(3)) u_rst (.clk(clk), .rst_in(!locked), .rst_out(rst_sync));
    /* verilator lint_off SYNCASYNCNET */
    reg  rst;
    /* verilator lint_on SYNCASYNCNET */
    always @(posedge clk) begin
        rst <= rst_sync;
    end

    // ---- PHY reset ---------------------------------------------------------------------------
    localparam PW = $clog2(PHY_RST_CYCLES + 1);
    localparam [PW-1:0] PHY_RST_N = PHY_RST_CYCLES;
    reg [PW-1:0] phy_cnt_q;
    reg          phy_up_q;
    always @(posedge clk) begin
        if (rst) begin
            phy_cnt_q <= PHY_RST_N;
            phy_up_q  <= 1'b0;
        end else begin
            if (phy_cnt_q != {PW{1'b0}}) begin
                phy_cnt_q <= phy_cnt_q - {{(PW-1){1'b0}}, 1'b1};
            end
            phy_up_q <= phy_cnt_q == {PW{1'b0}};
        end
    end
    assign phy_rst_n = {2{phy_up_q}};
    assign phy_mdc   = 2'b00;

    // ---- the node ------------------------------------------------------------------------------
    // node/rtl/node.regs.toml: release_ns at 0x028; port p's rx_frames (64 bits, low word first)
    // at 0x408 + 0x40 p.
    localparam [31:0] RELEASE   = RELEASE_NS;
    localparam [11:0] A_RELEASE = 12'h028;
    localparam [11:0] A_RX0     = 12'h408;
    localparam [11:0] A_RX1     = 12'h448;
    reg  [11:0] araddr_q;
    reg         awvalid_q, wvalid_q, bready_q, arvalid_q, rready_q;
    wire        awready, wready, bvalid, arready, rvalid;
    wire [31:0] rdata;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [1:0]  bresp, rresp;                       // always OKAY (the map's rule)
    wire [1:0]  h_tready, m_tvalid, m_tlast, m_tuser;
    wire [127:0] m_tdata;
    wire [15:0] m_tkeep;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_node_w_rgmii #(
        .PORTS(2), .SEGMENTS(256), .MAX_BYTES(1518), .VLANS(4), .BUCKETS(64), .WAYS(4),
        .VENDOR("GENERIC")
    ) u_node (
        .clk(clk), .clk90(clk90), .rst(rst),
        .rgmii_rx_clk(rgmii_rx_clk), .rgmii_rxd(rgmii_rxd), .rgmii_rx_ctl(rgmii_rx_ctl),
        .rgmii_tx_clk(rgmii_tx_clk), .rgmii_txd(rgmii_txd), .rgmii_tx_ctl(rgmii_tx_ctl),
        // no host: nothing comes in, and frames for it are taken and discarded
        .s_host_axis_tdata(128'd0), .s_host_axis_tkeep(16'd0), .s_host_axis_tvalid(2'b00),
        .s_host_axis_tready(h_tready), .s_host_axis_tlast(2'b00), .s_host_axis_tuser(2'b00),
        .m_host_axis_tdata(m_tdata), .m_host_axis_tkeep(m_tkeep), .m_host_axis_tvalid(m_tvalid),
        .m_host_axis_tready(2'b11), .m_host_axis_tlast(m_tlast), .m_host_axis_tuser(m_tuser),
        .s_axil_awaddr(A_RELEASE), .s_axil_awvalid(awvalid_q), .s_axil_awready(awready),
        .s_axil_wdata(RELEASE), .s_axil_wstrb(4'hF), .s_axil_wvalid(wvalid_q),
        .s_axil_wready(wready), .s_axil_bresp(bresp), .s_axil_bvalid(bvalid),
        .s_axil_bready(bready_q), .s_axil_araddr(araddr_q), .s_axil_arvalid(arvalid_q),
        .s_axil_arready(arready), .s_axil_rdata(rdata), .s_axil_rresp(rresp),
        .s_axil_rvalid(rvalid), .s_axil_rready(rready_q)
    );

    // ---- the register master: release_ns once, then the receive counters ---------------------
    localparam [1:0] S_WRITE = 2'd0, S_WRESP = 2'd1, S_READ = 2'd2, S_RDATA = 2'd3;
    reg  [1:0]  state_q;
    reg         running_q, poll_port_q;
    reg  [1:0]  act_q;              // port p's received frame count changed (one cycle)
    reg  [31:0] last0_q, last1_q;
    always @(posedge clk) begin
        act_q <= 2'b00;
        case (state_q)
            S_WRITE: begin
                if (awready) awvalid_q <= 1'b0;
                if (wready)  wvalid_q  <= 1'b0;
                if ((awready || !awvalid_q) && (wready || !wvalid_q)) begin
                    bready_q <= 1'b1;
                    state_q  <= S_WRESP;
                end
            end
            S_WRESP: begin
                if (bvalid) begin
                    bready_q  <= 1'b0;
                    running_q <= 1'b1;
                    arvalid_q <= 1'b1;
                    state_q   <= S_READ;
                end
            end
            S_READ: begin
                if (arready) begin
                    arvalid_q <= 1'b0;
                    rready_q  <= 1'b1;
                    state_q   <= S_RDATA;
                end
            end
            default: begin          // S_RDATA
                if (rvalid) begin
                    rready_q <= 1'b0;
                    if (poll_port_q) begin
                        act_q[1] <= rdata != last1_q;
                        last1_q  <= rdata;
                    end else begin
                        act_q[0] <= rdata != last0_q;
                        last0_q  <= rdata;
                    end
                    poll_port_q <= !poll_port_q;
                    arvalid_q   <= 1'b1;
                    araddr_q    <= poll_port_q ? A_RX0 : A_RX1;
                    state_q     <= S_READ;
                end
            end
        endcase
        if (rst) begin
            state_q     <= S_WRITE;
            awvalid_q   <= 1'b1;
            wvalid_q    <= 1'b1;
            bready_q    <= 1'b0;
            arvalid_q   <= 1'b0;
            araddr_q    <= A_RX0;
            rready_q    <= 1'b0;
            running_q   <= 1'b0;
            poll_port_q <= 1'b0;
            act_q       <= 2'b00;
            last0_q     <= 32'd0;
            last1_q     <= 32'd0;
        end
    end

    // ---- LEDs ------------------------------------------------------------------------------------
    localparam LW = $clog2(2 * LED_CYCLES + 1);
    localparam [LW-1:0] L_BLINK = 2 * LED_CYCLES;
    localparam [LW-1:0] L_DARK  = LED_CYCLES;
    reg [LW-1:0] blink_q [0:1];     // 0: idle; else counts down, dark while above LED_CYCLES
    reg [7:0]    led_n_q;
    integer i;
    always @(posedge clk) begin
        for (i = 0; i < 2; i = i + 1) begin
            if (rst) begin
                blink_q[i] <= {LW{1'b0}};
            end else if (blink_q[i] != {LW{1'b0}}) begin
                blink_q[i] <= blink_q[i] - {{(LW-1){1'b0}}, 1'b1};
            end else if (act_q[i]) begin
                blink_q[i] <= L_BLINK;
            end
        end
        led_n_q <= rst ? 8'hFF : {4'hF, !phy_up_q, !running_q || blink_q[1] > L_DARK,
                                  !running_q || blink_q[0] > L_DARK, !running_q};
    end
    assign led_n = led_n_q;

endmodule

`default_nettype wire
