// fp_ptrain_core: the packet-train tester (seeds/003) without its MAC: the disciplined clock
// (fp_ptrain_clock: fp_timebase + fp_pps_servo), the generator (fp_ptrain_gen), the timestamping
// receiver (fp_ptrain_rx) and the register block (fp_ptrain_regs, ptrain/rtl/ptrain.regs.toml,
// ptrain/docs/regs/ptrain.md). fp_ptrain_1g and fp_ptrain_10g put a MAC under it.
//
//   regs -> gen  -> m_axis_tx (+ ts_insert = 1, ts_mode = 1: the MAC writes the TX stamp at the SFD)
//   s_axis_rx (+ s_axis_rx_ts: the SFD time the MAC stamped) -> rx -> m_axis_rec (records)
//   pps -> clock -> now (the MAC's ts_now: one clock for both directions)
//
// Everything runs in clk, the MAC's TX clock: the MAC's RX side must be clocked by clk too (a PHY
// whose receive clock is locked to the transmit clock, a loopback, a simulation); ptrain/README.md
// says what a plesiochronous receive clock would need.
// Latency:    the parts' own (register writes take effect in the register block's 1 cycle): the
//             generator's first beat 15 cycles after the gen_ctrl.start write's strobe (1 for
//             the strobe register + 14, fp_ptrain_gen), a record 15 cycles after the frame's
//             tlast beat (fp_ptrain_rx), the servo's correction after each PPS (fp_pps_servo).
// Throughput: as the parts: frames back to back at line rate in both directions.
// Bad input:  as the parts: refused generator starts and malformed or foreign received frames are
//             counted, never sent or recorded; nothing hangs.
// Parameters: DATA_WIDTH 8 (1G) or 64 (10G); PERIOD_NUM / PERIOD_DEN the clk period in ns (8/1 at
//             125 MHz, 32/5 at 156.25 MHz); PPS_INTERVAL_NS the PPS period (1 s; tests scale it);
//             RULES and STREAMS 1..4 (the register map has 4 of each); WINDOW, RECORD_DEPTH as
//             fp_ptrain_rx.
`default_nettype none

`include "fp_ptrain_record.vh"

module fp_ptrain_core #(
    parameter DATA_WIDTH      = 8,
    parameter PERIOD_NUM      = 8,
    parameter PERIOD_DEN      = 1,
    parameter PPS_INTERVAL_NS = 1000000000,
    parameter RULES           = 4,
    parameter STREAMS         = 4,
    parameter WINDOW          = 64,
    parameter RECORD_DEPTH    = 512
) (
    input  wire                      clk,
    input  wire                      rst,
    input  wire                      pps,
    output wire [63:0]               now,
    output reg  [63:0]               mac_now,    // a registered copy of `now` for the MACs (below)

    // to the TX MAC
    output wire [DATA_WIDTH-1:0]     m_axis_tx_tdata,
    output wire [DATA_WIDTH/8-1:0]   m_axis_tx_tkeep,
    output wire                      m_axis_tx_tvalid,
    input  wire                      m_axis_tx_tready,
    output wire                      m_axis_tx_tlast,
    output wire [0:0]                m_axis_tx_tuser,
    output wire                      m_axis_tx_ts_insert,
    output wire                      m_axis_tx_ts_mode,
    output wire [15:0]               m_axis_tx_ts_offset,

    // from the RX MAC (no tready: the wire cannot wait)
    input  wire [DATA_WIDTH-1:0]     s_axis_rx_tdata,
    input  wire [DATA_WIDTH/8-1:0]   s_axis_rx_tkeep,
    input  wire                      s_axis_rx_tvalid,
    input  wire                      s_axis_rx_tlast,
    input  wire [0:0]                s_axis_rx_tuser,
    input  wire [63:0]               s_axis_rx_ts,

    // records (ptrain/rtl/ptrain_record.fmt.toml), one beat each
    output wire [`FP_PTREC_W-1:0]    m_axis_rec_tdata,
    output wire [`FP_PTREC_W/8-1:0]  m_axis_rec_tkeep,
    output wire                      m_axis_rec_tvalid,
    input  wire                      m_axis_rec_tready,
    output wire                      m_axis_rec_tlast,

    input  wire [11:0]               s_axil_awaddr,
    input  wire                      s_axil_awvalid,
    output wire                      s_axil_awready,
    input  wire [31:0]               s_axil_wdata,
    input  wire [3:0]                s_axil_wstrb,
    input  wire                      s_axil_wvalid,
    output wire                      s_axil_wready,
    output wire [1:0]                s_axil_bresp,
    output wire                      s_axil_bvalid,
    input  wire                      s_axil_bready,
    input  wire [11:0]               s_axil_araddr,
    input  wire                      s_axil_arvalid,
    output wire                      s_axil_arready,
    output wire [31:0]               s_axil_rdata,
    output wire [1:0]                s_axil_rresp,
    output wire                      s_axil_rvalid,
    input  wire                      s_axil_rready
);

    generate
        if (DATA_WIDTH != 8 && DATA_WIDTH != 64) begin : g_bad_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_8_or_64 u_error();
        end
        if (RULES < 1 || RULES > 4) begin : g_bad_rules
            PARAMETER_ERROR_RULES_must_be_1_to_4 u_error();
        end
        if (STREAMS < 1 || STREAMS > 4) begin : g_bad_streams
            PARAMETER_ERROR_STREAMS_must_be_1_to_4 u_error();
        end
    endgenerate

    // ---- register block --------------------------------------------------------------------
    reg  [63:0] cycles;
    always @(posedge clk) cycles <= rst ? 64'd0 : cycles + 64'd1;

    wire         gen_ctrl_wr, gen_ctrl_start, gen_ctrl_stop;
    wire         gen_running, gen_done, gen_refused_flag;
    wire [47:0]  gen_dst_mac, gen_src_mac;
    wire         gen_vlan_en, gen_ipv6;
    wire [15:0]  gen_vlan_tci;
    wire [7:0]   gen_ttl, gen_tos, gen_stream;
    wire [127:0] gen_src_ip, gen_dst_ip;
    wire [15:0]  gen_sport, gen_dport;
    wire [15:0]  gen_frame_len;
    wire [31:0]  gen_train_len, gen_num_trains, gen_period, gen_train_gap, gen_first_seq;
    wire [31:0]  gen_frames, gen_trains, gen_refused;
    wire [3:0]   rx_rule_en;
    wire [31:0]  rx_frames, rx_not_selected, rx_foreign, rx_truncated, rx_bad_length, rx_fragment,
                 rx_bad_checksum, rx_bad_fields, rx_records, rx_record_drops, rx_bad_fcs, rx_untracked;
    wire         clk_enable;
    wire [4:0]   clk_kp_shift, clk_ki_shift;
    wire [47:0]  clk_tod_ns;
    wire [31:0]  clk_lock_ns, clk_step_ns, clk_reject_ns;
    wire [1:0]   clk_state;
    wire         clk_locked, clk_holdover;
    wire [47:0]  clk_phase_err;
    wire [31:0]  clk_freq_ppb, clk_pulses, clk_steps, clk_missed, clk_rejected;
    wire [191:0] rule_dst_mac, rule_dst_mac_mask, rule_src_mac, rule_src_mac_mask;
    wire [47:0]  rule_vid, rule_vid_mask;
    wire [3:0]   rule_tagged, rule_tagged_mask, rule_ipv6, rule_ipv6_mask;
    wire [31:0]  rule_proto, rule_proto_mask;
    wire [127:0] rule_ip_src, rule_ip_src_mask, rule_ip_dst, rule_ip_dst_mask;
    wire [63:0]  rule_sport, rule_dport, rule_sport_mask, rule_dport_mask;
    wire [STREAMS-1:0]    st_seen;
    wire [32*STREAMS-1:0] st_received, st_unique, st_duplicates, st_reordered, st_late,
                          st_seq_first, st_seq_highest, st_train_first, st_train_end;

    // Streams the build does not track read 0 (the map has 4).
    wire [127:0] p_seen, p_received, p_unique, p_duplicates, p_reordered, p_late, p_seq_first,
                 p_seq_highest, p_train_first, p_train_end;
    genvar s;
    generate
        for (s = 0; s < 4; s = s + 1) begin : g_stream
            if (s < STREAMS) begin : g_have
                assign p_seen[32*s +: 32]        = {31'd0, st_seen[s]};
                assign p_received[32*s +: 32]    = st_received[32*s +: 32];
                assign p_unique[32*s +: 32]      = st_unique[32*s +: 32];
                assign p_duplicates[32*s +: 32]  = st_duplicates[32*s +: 32];
                assign p_reordered[32*s +: 32]   = st_reordered[32*s +: 32];
                assign p_late[32*s +: 32]        = st_late[32*s +: 32];
                assign p_seq_first[32*s +: 32]   = st_seq_first[32*s +: 32];
                assign p_seq_highest[32*s +: 32] = st_seq_highest[32*s +: 32];
                assign p_train_first[32*s +: 32] = st_train_first[32*s +: 32];
                assign p_train_end[32*s +: 32]   = st_train_end[32*s +: 32];
            end else begin : g_none
                assign p_seen[32*s +: 32]        = 32'd0;
                assign p_received[32*s +: 32]    = 32'd0;
                assign p_unique[32*s +: 32]      = 32'd0;
                assign p_duplicates[32*s +: 32]  = 32'd0;
                assign p_reordered[32*s +: 32]   = 32'd0;
                assign p_late[32*s +: 32]        = 32'd0;
                assign p_seq_first[32*s +: 32]   = 32'd0;
                assign p_seq_highest[32*s +: 32] = 32'd0;
                assign p_train_first[32*s +: 32] = 32'd0;
                assign p_train_end[32*s +: 32]   = 32'd0;
            end
        end
    endgenerate

    /* verilator lint_off PINCONNECTEMPTY */
    fp_ptrain_regs u_regs (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
        .scratch(), .cycles(cycles),
        .build_data_width(DATA_WIDTH[7:0]), .build_rules(RULES[3:0]), .build_streams(STREAMS[3:0]),
        .gen_ctrl_wr(gen_ctrl_wr), .gen_ctrl_start(gen_ctrl_start), .gen_ctrl_stop(gen_ctrl_stop),
        .gen_status_running(gen_running), .gen_status_done(gen_done), .gen_status_refused(gen_refused_flag),
        .gen_dst_mac_addr(gen_dst_mac), .gen_src_mac_addr(gen_src_mac),
        .gen_layout_vlan_en(gen_vlan_en), .gen_layout_ipv6(gen_ipv6), .gen_layout_vlan_tci(gen_vlan_tci),
        .gen_ip_ttl(gen_ttl), .gen_ip_tos(gen_tos), .gen_ip_stream(gen_stream),
        .gen_src_ip_word(gen_src_ip), .gen_dst_ip_word(gen_dst_ip),
        .gen_ports_sport(gen_sport), .gen_ports_dport(gen_dport),
        .gen_frame_len_bytes(gen_frame_len), .gen_train_len(gen_train_len), .gen_num_trains(gen_num_trains),
        .gen_period(gen_period), .gen_train_gap(gen_train_gap), .gen_first_seq(gen_first_seq),
        .gen_frames(gen_frames), .gen_trains(gen_trains), .gen_refused(gen_refused),
        .rx_rule_en_rules(rx_rule_en),
        .rx_frames(rx_frames), .rx_not_selected(rx_not_selected), .rx_foreign(rx_foreign),
        .rx_truncated(rx_truncated), .rx_bad_length(rx_bad_length), .rx_fragment(rx_fragment),
        .rx_bad_checksum(rx_bad_checksum), .rx_bad_fields(rx_bad_fields), .rx_records(rx_records),
        .rx_record_drops(rx_record_drops), .rx_bad_fcs(rx_bad_fcs), .rx_untracked(rx_untracked),
        .clock_ctrl_enable(clk_enable), .clock_ctrl_kp_shift(clk_kp_shift), .clock_ctrl_ki_shift(clk_ki_shift),
        .clock_tod_ns_ns(clk_tod_ns), .clock_lock_ns(clk_lock_ns), .clock_step_ns(clk_step_ns),
        .clock_reject_ns(clk_reject_ns),
        .clock_status_state(clk_state), .clock_status_locked(clk_locked), .clock_status_holdover(clk_holdover),
        .clock_phase_err({{16{clk_phase_err[47]}}, clk_phase_err}), .clock_freq_ppb(clk_freq_ppb),
        .clock_pulses(clk_pulses), .clock_steps(clk_steps), .clock_missed(clk_missed),
        .clock_rejected(clk_rejected), .clock_now(now),
        .rule_dst_mac_addr(rule_dst_mac), .rule_dst_mac_mask_addr(rule_dst_mac_mask),
        .rule_src_mac_addr(rule_src_mac), .rule_src_mac_mask_addr(rule_src_mac_mask),
        .rule_l2_vid(rule_vid), .rule_l2_tagged(rule_tagged), .rule_l2_ipv6(rule_ipv6),
        .rule_l2_vid_mask(rule_vid_mask), .rule_l2_tagged_mask(rule_tagged_mask),
        .rule_l2_ipv6_mask(rule_ipv6_mask),
        .rule_proto_number(rule_proto), .rule_proto_mask(rule_proto_mask),
        .rule_ip_src(rule_ip_src), .rule_ip_src_mask(rule_ip_src_mask),
        .rule_ip_dst(rule_ip_dst), .rule_ip_dst_mask(rule_ip_dst_mask),
        .rule_ports_sport(rule_sport), .rule_ports_dport(rule_dport),
        .rule_ports_mask_sport(rule_sport_mask), .rule_ports_mask_dport(rule_dport_mask),
        .stream_seen(p_seen), .stream_received(p_received), .stream_unique(p_unique),
        .stream_duplicates(p_duplicates), .stream_reordered(p_reordered), .stream_late(p_late),
        .stream_seq_first(p_seq_first), .stream_seq_highest(p_seq_highest),
        .stream_train_first(p_train_first), .stream_train_end(p_train_end)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // The MACs' copy of `now`: a register loaded with the clock's now_next equals `now` in every
    // cycle, and the placer puts it beside the MAC it feeds (the TX stamp -> data byte -> FCS path
    // then starts at a register next to it, not at the timebase's count across the chip).
    wire [63:0] now_next;
    always @(posedge clk) begin
        mac_now <= now_next;
    end

    // ---- the disciplined clock ---------------------------------------------------------------
    /* verilator lint_off PINCONNECTEMPTY */
    fp_ptrain_clock #(
        .PERIOD_NUM(PERIOD_NUM), .PERIOD_DEN(PERIOD_DEN), .PPS_INTERVAL_NS(PPS_INTERVAL_NS)
    ) u_clock (
        .clk(clk), .rst(rst), .pps(pps), .now(now), .now_next(now_next), .pps_valid(), .pps_time(),
        .cfg_enable(clk_enable), .cfg_tod_ns(clk_tod_ns), .cfg_kp_shift(clk_kp_shift),
        .cfg_ki_shift(clk_ki_shift), .cfg_lock_ns(clk_lock_ns), .cfg_step_ns(clk_step_ns),
        .cfg_reject_ns(clk_reject_ns),
        .state(clk_state), .locked(clk_locked), .holdover(clk_holdover), .phase_err(clk_phase_err),
        .freq_ppb(clk_freq_ppb), .cnt_pulses(clk_pulses), .cnt_steps(clk_steps), .cnt_missed(clk_missed),
        .cnt_rejected(clk_rejected), .status_valid()
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // ---- generator -------------------------------------------------------------------------------
    fp_ptrain_gen #(.DATA_WIDTH(DATA_WIDTH)) u_gen (
        .clk(clk), .rst(rst),
        .cfg_dst_mac(gen_dst_mac), .cfg_src_mac(gen_src_mac),
        .cfg_vlan_en(gen_vlan_en), .cfg_vlan_tci(gen_vlan_tci), .cfg_ipv6(gen_ipv6),
        .cfg_src_ip(gen_src_ip), .cfg_dst_ip(gen_dst_ip), .cfg_ttl(gen_ttl), .cfg_tos(gen_tos),
        .cfg_sport(gen_sport), .cfg_dport(gen_dport), .cfg_stream(gen_stream),
        .cfg_frame_len(gen_frame_len), .cfg_train_len(gen_train_len), .cfg_num_trains(gen_num_trains),
        .cfg_period(gen_period), .cfg_train_gap(gen_train_gap), .cfg_first_seq(gen_first_seq),
        .cfg_pps_locked(clk_locked),
        .start(gen_ctrl_wr & gen_ctrl_start), .stop(gen_ctrl_wr & gen_ctrl_stop),
        .running(gen_running), .done(gen_done), .refused(gen_refused_flag),
        .stat_frames(gen_frames), .stat_trains(gen_trains), .stat_refused(gen_refused),
        .m_axis_tdata(m_axis_tx_tdata), .m_axis_tkeep(m_axis_tx_tkeep), .m_axis_tvalid(m_axis_tx_tvalid),
        .m_axis_tready(m_axis_tx_tready), .m_axis_tlast(m_axis_tx_tlast), .m_axis_tuser(m_axis_tx_tuser),
        .m_axis_ts_insert(m_axis_tx_ts_insert), .m_axis_ts_mode(m_axis_tx_ts_mode),
        .m_axis_ts_offset(m_axis_tx_ts_offset)
    );

    // ---- receiver ----------------------------------------------------------------------------------
    wire [48*RULES-1:0] r_dst_mac, r_dst_mac_mask, r_src_mac, r_src_mac_mask;
    genvar r;
    generate
        for (r = 0; r < RULES; r = r + 1) begin : g_rule
            assign r_dst_mac[48*r +: 48]      = rule_dst_mac[48*r +: 48];
            assign r_dst_mac_mask[48*r +: 48] = rule_dst_mac_mask[48*r +: 48];
            assign r_src_mac[48*r +: 48]      = rule_src_mac[48*r +: 48];
            assign r_src_mac_mask[48*r +: 48] = rule_src_mac_mask[48*r +: 48];
        end
    endgenerate

    fp_ptrain_rx #(
        .DATA_WIDTH(DATA_WIDTH), .RULES(RULES), .STREAMS(STREAMS), .WINDOW(WINDOW),
        .RECORD_DEPTH(RECORD_DEPTH)
    ) u_rx (
        .clk(clk), .rst(rst),
        .s_axis_tdata(s_axis_rx_tdata), .s_axis_tkeep(s_axis_rx_tkeep), .s_axis_tvalid(s_axis_rx_tvalid),
        .s_axis_tlast(s_axis_rx_tlast), .s_axis_tuser(s_axis_rx_tuser), .s_axis_ts(s_axis_rx_ts),
        .m_axis_tdata(m_axis_rec_tdata), .m_axis_tkeep(m_axis_rec_tkeep), .m_axis_tvalid(m_axis_rec_tvalid),
        .m_axis_tready(m_axis_rec_tready), .m_axis_tlast(m_axis_rec_tlast),
        .cfg_rule_en(rx_rule_en[RULES-1:0]),
        .cfg_rule_dst_mac(r_dst_mac), .cfg_rule_dst_mac_mask(r_dst_mac_mask),
        .cfg_rule_src_mac(r_src_mac), .cfg_rule_src_mac_mask(r_src_mac_mask),
        .cfg_rule_tagged(rule_tagged[RULES-1:0]), .cfg_rule_tagged_mask(rule_tagged_mask[RULES-1:0]),
        .cfg_rule_vid(rule_vid[12*RULES-1:0]), .cfg_rule_vid_mask(rule_vid_mask[12*RULES-1:0]),
        .cfg_rule_ipv6(rule_ipv6[RULES-1:0]), .cfg_rule_ipv6_mask(rule_ipv6_mask[RULES-1:0]),
        .cfg_rule_proto(rule_proto[8*RULES-1:0]), .cfg_rule_proto_mask(rule_proto_mask[8*RULES-1:0]),
        .cfg_rule_ip_src(rule_ip_src[32*RULES-1:0]), .cfg_rule_ip_src_mask(rule_ip_src_mask[32*RULES-1:0]),
        .cfg_rule_ip_dst(rule_ip_dst[32*RULES-1:0]), .cfg_rule_ip_dst_mask(rule_ip_dst_mask[32*RULES-1:0]),
        .cfg_rule_sport(rule_sport[16*RULES-1:0]), .cfg_rule_sport_mask(rule_sport_mask[16*RULES-1:0]),
        .cfg_rule_dport(rule_dport[16*RULES-1:0]), .cfg_rule_dport_mask(rule_dport_mask[16*RULES-1:0]),
        .stat_frames(rx_frames), .stat_not_selected(rx_not_selected), .stat_foreign(rx_foreign),
        .stat_truncated(rx_truncated), .stat_bad_length(rx_bad_length), .stat_fragment(rx_fragment),
        .stat_bad_checksum(rx_bad_checksum), .stat_bad_fields(rx_bad_fields), .stat_records(rx_records),
        .stat_record_drops(rx_record_drops), .stat_bad_fcs(rx_bad_fcs), .stat_untracked(rx_untracked),
        .stat_seen(st_seen), .stat_received(st_received), .stat_unique(st_unique),
        .stat_duplicates(st_duplicates), .stat_reordered(st_reordered), .stat_late(st_late),
        .stat_seq_first(st_seq_first), .stat_seq_highest(st_seq_highest),
        .stat_train_first(st_train_first), .stat_train_end(st_train_end)
    );

endmodule

`default_nettype wire
