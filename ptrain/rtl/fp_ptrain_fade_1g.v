// fp_ptrain_fade_1g: the 1G packet-train tester (fp_ptrain_1g, its test port on gmii_*) with its
// records carried to the host over FADE (fp_fade_1g) on a second GMII port, mgmt_gmii_* (a
// management port, as the paper's ZedBoard hands its records to its ARM): the tester's record
// stream (one 288-bit beat per record) -> fp_ptrain_rec64 (5 64-bit words per record, the last
// carrying a 32-bit record number) -> fp_fade_1g's user stream. The host receives the words as
// bytes (fade-recv -o FILE, or libfade) and fastpath.ptrain.fade_records turns them into records
// (`fastpath ptrain analyze --records FILE`). One clock: clk is both ports' GMII clock (125 MHz)
// and samples both RX pin sets (as fp_ptrain_1g and fp_fade_1g).
//
// Flow: records leave the tester's record FIFO (RECORD_DEPTH) only while the FADE core is running
// (state 1) and no DRAIN is pending; FADE's backpressure (buffer full: s_axis_tready low) stops
// the serializer, which stops taking records, so the FIFO fills and the receiver counts the
// records that find it full (register rx_record_drops): nothing is lost silently. When the FADE
// core is idle (after a STOP completed, a RESET, before the first START) a record cut by a STOP or
// RESET is dropped from the serializer (ev_rec_cut), so every session's stream starts on a record.
// FADE sends a packet when 1,024 words (204.8 records) are in it, or at STOP: at low record rates
// records wait in FADE's buffer until the packet is full.
//
// Command channel (FADE user commands, exactly once; fade/README.md): every user command is
// answered with {32'd0, records sent} (the number the next record will carry, rec_count).
// CMD_DRAIN (0x0101): stop taking records from the tester and answer once the serializer is empty,
// so the records up to that number are all in FADE's stream; a STOP after it ends the stream on a
// record boundary. Records flow again after the next START (DRAIN is cleared when the core is
// idle). Any other user code (e.g. 0x0100, which fade-recv --commands sends) is answered at
// once, with no effect.
//
// Latency:    a record valid on the tester's record stream reaches fp_fade_1g's s_axis with its
//             first word 2 cycles after its handshake (the serializer empty, FADE running; the
//             handshake is in the first cycle the record is valid then); then FADE's latency
//             (fade/README.md) once its packet is full. A user command is answered 1 cycle after
//             it is taken (DRAIN: 1 cycle after the serializer is empty); fp_ptrain_1g's own
//             latencies are unchanged.
// Throughput: the serializer takes a record per 5 cycles (25 M/s), FADE-1G's wire 1 word per
//             8.06 cycles (992 Mb/s of user data: 3.1 M records/s); the tester records at most
//             1.488 M/s (60-byte frames at line rate), so records keep up (ptrain/README.md,
//             "Records over FADE").
// Bad input:  as fp_ptrain_1g on the test port and fp_fade_1g on the management port (counted,
//             dropped); unknown user commands are answered, not executed; records beyond the
//             FIFO while FADE is stopped or slow are dropped and counted by the receiver.
// Parameters: PPS_INTERVAL_NS, RULES, STREAMS, WINDOW, RECORD_DEPTH, RX_MAX_LEN as fp_ptrain_1g;
//             FADE_N (2..6), FADE_TIMEOUT (16..2^28 cycles), FADE_ACK_RECORDS (1..8) as
//             fp_fade_1g's N, TIMEOUT, ACK_RECORDS (checked here and by the instances).
`default_nettype none

`include "fp_ptrain_record.vh"

module fp_ptrain_fade_1g #(
    parameter PPS_INTERVAL_NS  = 1000000000,
    parameter RULES            = 4,
    parameter STREAMS          = 4,
    parameter WINDOW           = 64,
    parameter RECORD_DEPTH     = 512,
    parameter RX_MAX_LEN       = 9022,
    parameter FADE_N           = 4,
    parameter FADE_TIMEOUT     = 100000,
    parameter FADE_ACK_RECORDS = 8
) (
    input  wire         clk,
    input  wire         rst,

    // test port: the tester's trains out, the frames it measures in
    input  wire [7:0]   gmii_rxd,
    input  wire         gmii_rx_dv,
    input  wire         gmii_rx_er,
    output wire [7:0]   gmii_txd,
    output wire         gmii_tx_en,
    output wire         gmii_tx_er,

    // management port: FADE to the host
    input  wire [7:0]   mgmt_gmii_rxd,
    input  wire         mgmt_gmii_rx_dv,
    input  wire         mgmt_gmii_rx_er,
    output wire [7:0]   mgmt_gmii_txd,
    output wire         mgmt_gmii_tx_en,
    output wire         mgmt_gmii_tx_er,
    input  wire [47:0]  cfg_local_mac,

    input  wire         pps,
    output wire [63:0]  now,

    output wire [1:0]   fade_state,
    output wire [31:0]  rec_count,
    output wire         ev_rec_cut,

    input  wire [11:0]  s_axil_awaddr,
    input  wire         s_axil_awvalid,
    output wire         s_axil_awready,
    input  wire [31:0]  s_axil_wdata,
    input  wire [3:0]   s_axil_wstrb,
    input  wire         s_axil_wvalid,
    output wire         s_axil_wready,
    output wire [1:0]   s_axil_bresp,
    output wire         s_axil_bvalid,
    input  wire         s_axil_bready,
    input  wire [11:0]  s_axil_araddr,
    input  wire         s_axil_arvalid,
    output wire         s_axil_arready,
    output wire [31:0]  s_axil_rdata,
    output wire [1:0]   s_axil_rresp,
    output wire         s_axil_rvalid,
    input  wire         s_axil_rready
);

    generate
        if (FADE_N < 2 || FADE_N > 6) begin : g_bad_n
            PARAMETER_ERROR_FADE_N_must_be_2_to_6 u_error();
        end
        if (FADE_TIMEOUT < 16 || FADE_TIMEOUT > 268435456) begin : g_bad_timeout
            PARAMETER_ERROR_FADE_TIMEOUT_must_be_16_to_2_pow_28 u_error();
        end
        if (FADE_ACK_RECORDS < 1 || FADE_ACK_RECORDS > 8) begin : g_bad_records
            PARAMETER_ERROR_FADE_ACK_RECORDS_must_be_1_to_8 u_error();
        end
    endgenerate

    localparam [15:0] CMD_DRAIN = 16'h0101;

    // ---- the tester -------------------------------------------------------------------------
    wire [`FP_PTREC_W-1:0]   rec_tdata;
    wire                     rec_tvalid, rec_tready;
    // a record stream's tkeep (all ones) and tlast (1) carry nothing
    /* verilator lint_off UNUSEDSIGNAL */
    wire [`FP_PTREC_W/8-1:0] rec_tkeep;
    wire                     rec_tlast;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_ptrain_1g #(
        .PPS_INTERVAL_NS(PPS_INTERVAL_NS), .RULES(RULES), .STREAMS(STREAMS), .WINDOW(WINDOW),
        .RECORD_DEPTH(RECORD_DEPTH), .RX_MAX_LEN(RX_MAX_LEN)
    ) u_ptrain (
        .clk(clk), .rst(rst),
        .gmii_rxd(gmii_rxd), .gmii_rx_dv(gmii_rx_dv), .gmii_rx_er(gmii_rx_er),
        .gmii_txd(gmii_txd), .gmii_tx_en(gmii_tx_en), .gmii_tx_er(gmii_tx_er),
        .pps(pps), .now(now),
        .m_axis_rec_tdata(rec_tdata), .m_axis_rec_tkeep(rec_tkeep), .m_axis_rec_tvalid(rec_tvalid),
        .m_axis_rec_tready(rec_tready), .m_axis_rec_tlast(rec_tlast),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready)
    );

    // ---- records -> 64-bit words, gated by the FADE core's state -----------------------------
    reg          gate_q;             // FADE running and no DRAIN pending
    reg          drain_q;
    wire         ser_tready, ser_idle;
    wire [63:0]  w_tdata;
    wire         w_tvalid, w_tready;
    wire [31:0]  ser_count;

    assign rec_tready = ser_tready && gate_q;

    /* verilator lint_off PINCONNECTEMPTY */
    fp_ptrain_rec64 u_rec64 (
        .clk(clk), .rst(rst),
        .s_axis_tdata(rec_tdata), .s_axis_tvalid(rec_tvalid && gate_q), .s_axis_tready(ser_tready),
        .m_axis_tdata(w_tdata), .m_axis_tvalid(w_tvalid), .m_axis_tready(w_tready), .m_axis_tlast(),
        .cut(fade_state == 2'd0), .ev_cut(ev_rec_cut), .idle(ser_idle), .count(ser_count)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // ---- FADE user commands ------------------------------------------------------------------
    wire         cmd_valid, cmd_ready;
    wire [15:0]  cmd_code;
    reg          rsp_v_q, rsp_wait_q;
    reg  [31:0]  rsp_count_q;
    wire         rsp_ready;
    wire         cmd_take = cmd_valid && cmd_ready;

    assign cmd_ready = !rsp_v_q && !rsp_wait_q;

    always @(posedge clk) begin
        if (rst) begin
            gate_q      <= 1'b0;
            drain_q     <= 1'b0;
            rsp_v_q     <= 1'b0;
            rsp_wait_q  <= 1'b0;
            rsp_count_q <= 32'd0;
        end else begin
            gate_q <= fade_state == 2'd1 && !drain_q && !(cmd_take && cmd_code == CMD_DRAIN);
            if (cmd_take && cmd_code == CMD_DRAIN) begin
                drain_q <= 1'b1;
            end else if (fade_state == 2'd0) begin
                drain_q <= 1'b0;
            end
            if (cmd_take) begin
                rsp_wait_q <= cmd_code == CMD_DRAIN;
                rsp_v_q    <= cmd_code != CMD_DRAIN;
                rsp_count_q <= ser_count;
            end else if (rsp_wait_q && ser_idle && !gate_q) begin
                rsp_wait_q  <= 1'b0;
                rsp_v_q     <= 1'b1;
                rsp_count_q <= ser_count;
            end else if (rsp_v_q && rsp_ready) begin
                rsp_v_q <= 1'b0;
            end
        end
    end

    // ---- FADE on the management port ---------------------------------------------------------
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] unused_cmd_arg;
    wire [15:0] unused_cmd_csn;
    /* verilator lint_on UNUSEDSIGNAL */

    /* verilator lint_off PINCONNECTEMPTY */
    fp_fade_1g #(
        .N(FADE_N), .TIMEOUT(FADE_TIMEOUT), .ACK_RECORDS(FADE_ACK_RECORDS)
    ) u_fade (
        .clk(clk), .rst(rst),
        .gmii_rxd(mgmt_gmii_rxd), .gmii_rx_dv(mgmt_gmii_rx_dv), .gmii_rx_er(mgmt_gmii_rx_er),
        .gmii_txd(mgmt_gmii_txd), .gmii_tx_en(mgmt_gmii_tx_en), .gmii_tx_er(mgmt_gmii_tx_er),
        .cfg_local_mac(cfg_local_mac),
        .s_axis_tdata(w_tdata), .s_axis_tvalid(w_tvalid), .s_axis_tready(w_tready),
        .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready), .m_cmd_code(cmd_code),
        .m_cmd_arg(unused_cmd_arg), .m_cmd_csn(unused_cmd_csn),
        .s_rsp_valid(rsp_v_q), .s_rsp_ready(rsp_ready), .s_rsp_value({32'd0, rsp_count_q}),
        .state(fade_state), .delay(),
        .ev_tx_data(), .ev_tx_early(), .ev_tx_nack(), .ev_tx_timeout(), .ev_tx_resp(), .ev_ack(),
        .ev_nack(), .ev_ack_stale(), .ev_proto_err(), .ev_rx_bad_fcs(), .ev_rx_drop(),
        .ev_cmd_exec(), .ev_cmd_repeat(),
        .stat_rx_good(), .stat_rx_bad(), .stat_rx_bad_fcs(), .stat_rx_runt(), .stat_rx_oversize(),
        .stat_rx_phy_err(), .stat_rx_bad_preamble(), .stat_rx_pause(), .stat_rx_bytes(),
        .stat_tx_frames(), .stat_tx_bytes(), .stat_tx_stomped(), .stat_tx_underrun(),
        .stat_tx_ts_bad_offset(), .stat_tx_paused_cycles()
    );
    /* verilator lint_on PINCONNECTEMPTY */

    assign rec_count = ser_count;

endmodule

`default_nettype wire
