// fp_gmii_rgmii: GMII (and MII through clk_en) <-> RGMII pins (1000 / 100 / 10 Mb/s), the DDR I/O
// between a 1G MAC's GMII side and an RGMII PHY, through fp_iddr/fp_oddr (generic models, or the
// vendor primitives with VENDOR = "XILINX"). Used by fp_eth_mac_1g_rgmii and fp_node_rgmii.
//
// RX (rgmii_rx_clk domain, the PHY's 125 / 25 / 2.5 MHz clock; clock buffers belong to the chip
// top): at 1000 the rising-edge sample is the low nibble and RX_DV, the falling-edge sample the
// high nibble and RX_DV ^ RX_ER; gmii_rxd = {high, low}, gmii_rx_dv, gmii_rx_er. At 10/100 each
// rx_clk cycle carries one nibble (both edges the same): gmii_rxd = {4'h0, nibble}, the MII
// convention of fp_eth_mac_1g (mii_select = 1, rx_clk_en = 1). The outputs are the fp_iddr's
// output register: a MAC takes them without an input register of its own.
// TX (gtx_clk, 125 MHz): gmii_txd/tx_en/tx_er from the MAC's output registers go into the data
// fp_oddr: at 1000 the low nibble and TX_EN on the rising edge, the high nibble and
// TX_EN ^ TX_ER on the falling edge. rgmii_tx_clk is an fp_oddr on gtx_clk90 (gtx_clk + 90
// degrees): at 1000 the pattern (1, 0), so its edges sit in the middle of the data (no PHY TX
// delay needed). At 10/100 tx_clk_en is high one gtx_clk cycle in 5 (50) (the MAC's MII byte
// enable), each nibble holds for 5 (50) cycles on both edges, and rgmii_tx_clk is a 25 (2.5)
// MHz 50 % clock from the same divider whose rising edge falls 2.25 (12.25) gtx_clk cycles into
// the nibble. The pattern registers cross from gtx_clk to gtx_clk90 (a 2 ns path, as for any
// forwarded clock).
// speed: 2'b10 = 1000, 2'b01 = 100, 2'b00 (or 2'b11) = 10 Mb/s; quasi-static (change it with
// gtx_rst asserted). mii_select = (speed != 2'b10), for the MAC.
//
// Latency: RX: the rising rgmii_rx_clk edge that samples a byte's low nibble (10/100: the nibble)
//   -> the byte (nibble) on gmii_rxd after the next rising edge: 1 rx_clk cycle (fp_iddr).
//   TX: 1 gtx_clk cycle (fp_oddr): a byte a MAC launches onto gmii_txd at edge k is sampled at
//   edge k + 1 and is on the pins from that edge (low nibble; the high nibble from the falling
//   edge after it), i.e. one cycle after it was on the GMII side, at the edge a GMII PHY would
//   have sampled it at.
// Throughput: one byte per cycle at 1000, one nibble per clk_en at 10/100.
// Bad input: none possible: the pins are passed as they are sampled (a PHY error, RX_CTL's two
//   samples differing, is gmii_rx_er).
// Parameters: VENDOR "GENERIC" (default) or "XILINX" (passed to fp_iddr/fp_oddr).
`default_nettype none

module fp_gmii_rgmii #(
    parameter VENDOR = "GENERIC"
) (
    input  wire       gtx_clk,
    input  wire       gtx_clk90,
    input  wire       gtx_rst,
    input  wire [1:0] speed,
    output wire       mii_select,
    output wire       tx_clk_en,

    input  wire       rgmii_rx_clk,
    input  wire [3:0] rgmii_rxd,
    input  wire       rgmii_rx_ctl,
    output wire       rgmii_tx_clk,
    output wire [3:0] rgmii_txd,
    output wire       rgmii_tx_ctl,

    output wire [7:0] gmii_rxd,
    output wire       gmii_rx_dv,
    output wire       gmii_rx_er,
    input  wire [7:0] gmii_txd,
    input  wire       gmii_tx_en,
    input  wire       gmii_tx_er
);

    generate
        if (VENDOR != "GENERIC" && VENDOR != "XILINX") begin : g_bad_vendor
            PARAMETER_ERROR_VENDOR_must_be_GENERIC_or_XILINX u_error();
        end
    endgenerate

    wire mii     = speed != 2'b10;
    wire speed10 = speed[1] == speed[0];  // 2'b00 (and the unused 2'b11)

    assign mii_select = mii;

    // ---- RX ------------------------------------------------------------------------------------
    wire [4:0] rx_q1, rx_q2;  // {ctl, data}: rising-edge and falling-edge samples
    fp_iddr #(.VENDOR(VENDOR), .WIDTH(5)) u_iddr (
        .clk(rgmii_rx_clk), .d({rgmii_rx_ctl, rgmii_rxd}), .q1(rx_q1), .q2(rx_q2)
    );

    assign gmii_rxd   = mii ? {4'h0, rx_q1[3:0]} : {rx_q2[3:0], rx_q1[3:0]};
    assign gmii_rx_dv = rx_q1[4];
    assign gmii_rx_er = rx_q1[4] ^ rx_q2[4];

    // ---- TX clock enable and forwarded clock pattern (gtx_clk) ---------------------------------
    reg  [5:0] div_q;      // 0 .. P-1; 0 in the cycle after the clk_en edge
    reg        txc_d1_q, txc_d2_q;
    wire [5:0] div_last   = speed10 ? 6'd49 : 6'd4;
    wire [5:0] div_next   = (div_q == div_last) ? 6'd0 : div_q + 6'd1;

    assign tx_clk_en = !mii || div_q == div_last;

    always @(posedge gtx_clk) begin
        div_q <= div_next;
        // The pattern is re-registered on gtx_clk90 (+1 cycle) before its fp_oddr, so it is set one
        // cycle ahead: cycle m after the clk_en edge shows the value set at m - 1.
        if (!mii) begin
            txc_d1_q <= 1'b1;
            txc_d2_q <= 1'b0;
        end else if (speed10) begin
            // high for cycles 13..37 after the clk_en edge: rising 13.25, falling 38.25 cycles in
            txc_d1_q <= div_next >= 6'd12 && div_next <= 6'd36;
            txc_d2_q <= div_next >= 6'd12 && div_next <= 6'd36;
        end else begin
            // cycles 0..4 show (1,0) (0,0) (0,0) (1,1) (1,1): rising 3.25, falling 5.75 cycles in
            txc_d1_q <= div_next >= 6'd2;
            txc_d2_q <= div_next == 6'd2 || div_next == 6'd3;
        end
        if (gtx_rst) begin
            div_q    <= 6'd0;
            txc_d1_q <= 1'b0;
            txc_d2_q <= 1'b0;
        end
    end

    // into the gtx_clk90 domain (a 1/4-cycle path from gtx_clk, as for any forwarded clock)
    reg txc90_d1_q, txc90_d2_q;
    always @(posedge gtx_clk90) begin
        txc90_d1_q <= txc_d1_q;
        txc90_d2_q <= txc_d2_q;
    end

    // ---- TX pins -------------------------------------------------------------------------------
    wire [4:0] tx_d1 = {gmii_tx_en, gmii_txd[3:0]};
    wire [4:0] tx_d2 = {gmii_tx_en ^ gmii_tx_er, mii ? gmii_txd[3:0] : gmii_txd[7:4]};

    fp_oddr #(.VENDOR(VENDOR), .WIDTH(5)) u_oddr_data (
        .clk(gtx_clk), .d1(tx_d1), .d2(tx_d2), .q({rgmii_tx_ctl, rgmii_txd})
    );

    fp_oddr #(.VENDOR(VENDOR), .WIDTH(1)) u_oddr_clk (
        .clk(gtx_clk90), .d1(txc90_d1_q), .d2(txc90_d2_q), .q(rgmii_tx_clk)
    );

endmodule

`default_nettype wire
