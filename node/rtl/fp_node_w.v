// fp_node_w: the word-serial node (issue #18): PORTS 1G ports (GMII) and 2 host ports switched
// through a shared buffer of 16-byte words in 64-byte linked segments, with one clock for the
// datapath and every TX MAC, and the AXI4-Lite register block of fp_node (node/rtl/node.regs.toml).
// Contract, budget and figures: node/docs/word-serial.md.
//
//   port p: fp_eth_mac_1g RX -> fp_node_wrx p --words--> fp_node_wbuf --reads--> fp_node_wtx p
//                                     \--key, cls--> fp_node_wdec --descriptors--/   -> MAC TX
//   host d: s_host_axis -> fp_axis_fifo (whole frames) -> fp_axis_w64to8 -> fp_node_wrx
//           fp_node_wtx -> fp_axis_w8to64 -> fp_axis_fifo -> m_host_axis
//                    (fp_node_l2_table inside fp_node_wdec; references to the buffer)
// Lane / output numbers: port p is p, host d is PORTS + d; port p's frames for the host go to host
// d = p / ceil(PORTS / 2).
//
// What it does: the switch ports, the VLAN checks and egress edits, L2 learning and ageing, host
//   access to the table (l2_cmd), flooding, the host rules (link-local, ARP, ICMPv6, unknown
//   EtherTypes, flood to host), the constant-latency release (cut-through release_ns after the
//   RX SFD, for every output, host ports included), TX timestamps (ts[p]: the MAC writes the
//   SFD time at ts_cfg.offset, for every frame or one EtherType), the buffer's admission (a frame
//   starts only with room for its longest size), the counters.
// Not yet (registers present, no effect): store_forward, buf_reserve, buf_port_limit,
//   buf_queue_limit, ts_cfg.mode (the tester stamp), the second priority, pause.
//
// Clocks: clk (125 MHz: the datapath, every GMII TX, the fp_timebase, the registers and the host
//   streams); gmii_rx_clk[p] (port p's receive clock from its PHY, 125 MHz +-100 ppm; tie to clk
//   where it is locked to it). The timebase crosses into each RX domain in Gray code
//   (fp_sync_gray, 8 ns units), compensated by the crossing's latency: the SFD stamp is exact when
//   gmii_rx_clk[p] is clk. rst (clk) also resets each RX domain through fp_sync_reset.
// Latency (SFD sampled at an RX pin -> SFD sampled at the TX pins): release_ns + 11 cycles for
//   every forwarded frame, whatever its size or VLAN edit, when release_ns covers the worst case
//   of fastpath.node.budget.w_rows (w_release_ns: 488 ns at 4 ports); with an RX clock of another
//   phase, plus the time from its edge to the next clk edge. Host frames leave their port
//   release_ns + 11 cycles after their first byte reached the node's RX.
// Throughput: every port at 1G line rate for every frame size at once; a host port at 1 Gb/s
//   each way (one byte per cycle through its wrx / wtx).
// Bad input: frames failing a MAC check are dropped when they end by byte 15, else sent on with a
//   stomped FCS (the decision is made at byte 15: cut-through) and counted (drops[bad_frame]);
//   frames longer than MAX_BYTES are cut, stomped and counted (oversize); bad host frames (tuser
//   on tlast) are dropped whole before they enter; frames no output takes are dropped and counted
//   by reason. Nothing leaks: buf_status.free returns to SEGMENTS when traffic stops.
// DDR_PINS = 1: the GMII pins connect to RGMII DDR registers (fp_gmii_rgmii, as in
//   fp_node_w_rgmii): each received byte comes from an fp_iddr, which presents it one cycle after
//   the rising edge that sampled its low nibble, so the RX MAC takes the pins without its input
//   register and the SFD stamp is taken one cycle earlier (the crossing's lag 3 instead of 4): the
//   stamp stays the time at the (RGMII) pin, and the fp_iddr's cycle lies inside release_ns (the
//   worst case needs w_release_ns + 8 ns). Transmitted bytes reach the RGMII pins one clk cycle
//   after the GMII pins, at the edge a GMII PHY would have sampled them at, so the latency rule is
//   unchanged and the TX MACs' time runs one cycle ahead (a register: now + 16 ns): the TX stamps
//   are the times the SFD's low nibble appears on the RGMII pins.
// Parameters: PORTS 2..14 (the 2 host ports make at most 16 lanes); SEGMENTS 64..4096, a power of
//   2; MAX_BYTES 64..1518; VLANS 1..16; BUCKETS / WAYS as fp_node_wl2; DDR_PINS 0 or 1.
`default_nettype none
`include "fp_node_word.vh"
`include "fp_noc_header.vh"

module fp_node_w #(
    parameter PORTS     = 4,
    parameter SEGMENTS  = 1024,
    parameter MAX_BYTES = 1518,
    parameter VLANS     = 16,
    parameter BUCKETS   = 128,
    parameter WAYS      = 8,
    parameter DDR_PINS  = 0
) (
    input  wire                   clk,
    // rst is synchronous to clk and also the (asynchronous) source of each RX domain's
    // fp_sync_reset: both uses are intended.
    /* verilator lint_off SYNCASYNCNET */
    input  wire                   rst,
    /* verilator lint_on SYNCASYNCNET */

    input  wire [PORTS-1:0]       gmii_rx_clk,
    input  wire [PORTS*8-1:0]     gmii_rxd,
    input  wire [PORTS-1:0]       gmii_rx_dv,
    input  wire [PORTS-1:0]       gmii_rx_er,
    output wire [PORTS*8-1:0]     gmii_txd,
    output wire [PORTS-1:0]       gmii_tx_en,
    output wire [PORTS-1:0]       gmii_tx_er,

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

    localparam HOSTS      = 2;
    localparam LANES      = PORTS + HOSTS;
    localparam SW         = $clog2(SEGMENTS);
    localparam LW         = $clog2(LANES);
    localparam NCW        = $clog2(SEGMENTS + 1);
    localparam CW         = $clog2(LANES + 1);
    localparam MAX_SEGS   = (MAX_BYTES + 63) / 64;
    localparam MAX_WORDS  = (MAX_BYTES + 15) / 16 + 1;
    localparam RD_WAIT    = (LANES + 1 > 15) ? 15 : LANES + 1;
    localparam MAX_COPIES = LANES;
    localparam HOST_BEATS = (MAX_BYTES + 7) / 8;
    localparam [15:0] RX_MAX_LEN = MAX_BYTES + 4;          // the MAC counts the FCS
    localparam [4:0]  B_PORTS    = PORTS;
    localparam [2:0]  B_DPS      = HOSTS;
    localparam [7:0]  B_SEG      = 8'd64;
    localparam [15:0] B_SEGMENTS = SEGMENTS;
    // the RX SFD stamp: the time in 8 ns units crossed into the RX clock, plus the crossing's
    // latency when the RX clock is clk (1 + 2 + 1 edges, fp_sync_gray); with DDR_PINS the fp_iddr
    // in front of the MAC delays every byte one cycle more than the MAC's input register would:
    // one unit less (header)
    localparam [20:0] RX_TIME_LAG = (DDR_PINS != 0) ? 21'd3 : 21'd4;
    localparam        RX_IN_REG   = (DDR_PINS != 0) ? 0 : 1;

    generate
        if (PORTS < 2 || PORTS > 14) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_2_to_14 u_error();
        end
        if (SEGMENTS < 64 || SEGMENTS > 4096 || (SEGMENTS & (SEGMENTS - 1)) != 0) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_a_power_of_2_from_64_to_4096 u_error();
        end
        if (MAX_BYTES < 64 || MAX_BYTES > 1518) begin : g_bad_max
            PARAMETER_ERROR_MAX_BYTES_must_be_64_to_1518 u_error();
        end
        if (VLANS < 1 || VLANS > 16) begin : g_bad_vlans
            PARAMETER_ERROR_VLANS_must_be_1_to_16 u_error();
        end
        if (DDR_PINS != 0 && DDR_PINS != 1) begin : g_bad_ddr
            PARAMETER_ERROR_DDR_PINS_must_be_0_or_1 u_error();
        end
    endgenerate

    // ---- registers -------------------------------------------------------------------------
    // The map is sized for 16 ports and 16 VLAN entries of 32 member bits; a node with fewer
    // ports uses the low bits. Registers of what this node does not do yet are kept, unused.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0]   r_release_ns, r_store_forward, r_age_cycles;
    wire [31:0]   r_buf_reserve, r_buf_port_limit, r_buf_queue_limit;
    wire          r_learn, r_host_ll, r_host_arp, r_host_icmpv6, r_host_unknown, r_flood_host;
    wire [2:0]    r_prio_pcp_min;
    wire          r_hwm_clear;
    wire          r_l2_cmd_wr;
    wire [2:0]    r_l2_cmd_op;
    wire [15:0]   r_l2_cmd_index;
    wire [31:0]   r_l2_key_lo, r_l2_key_hi;
    wire [4:0]    r_l2_entry_port;
    wire          r_l2_entry_valid, r_l2_entry_static;
    wire [191:0]  r_vlan_vid;
    wire [15:0]   r_vlan_valid;
    wire [511:0]  r_vlan_members;
    wire [15:0]   r_port_enable, r_port_trunk;
    wire [47:0]   r_port_pcp;
    wire [191:0]  r_port_pvid;
    wire [15:0]   r_ts_enable, r_ts_mode, r_ts_by_type;
    wire [255:0]  r_ts_offset, r_ts_ethertype;
    /* verilator lint_on UNUSEDSIGNAL */

    reg  [63:0]   cycles;
    reg           l2_busy, l2_ok, l2_valid, l2_static, l2_hit;
    reg  [4:0]    l2_port;
    reg  [31:0]   l2_rd_lo, l2_rd_hi;
    reg  [63:0]   l2_learned, l2_learn_full;
    reg  [64*16-1:0] drops_count;
    reg  [64*16-1:0] port_rx_frames, port_rx_bytes, port_tx_frames, port_tx_bytes;
    reg  [64*16-1:0] port_rx_drops, port_tx_drops;
    reg  [64*16-1:0] ts_stamped, ts_bad_offset;
    reg  [15:0]   free16, hwm16;

    /* verilator lint_off PINCONNECTEMPTY */
    fp_node_regs u_regs (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(s_axil_awaddr), .s_axil_awvalid(s_axil_awvalid), .s_axil_awready(s_axil_awready),
        .s_axil_wdata(s_axil_wdata), .s_axil_wstrb(s_axil_wstrb), .s_axil_wvalid(s_axil_wvalid),
        .s_axil_wready(s_axil_wready), .s_axil_bresp(s_axil_bresp), .s_axil_bvalid(s_axil_bvalid),
        .s_axil_bready(s_axil_bready), .s_axil_araddr(s_axil_araddr), .s_axil_arvalid(s_axil_arvalid),
        .s_axil_arready(s_axil_arready), .s_axil_rdata(s_axil_rdata), .s_axil_rresp(s_axil_rresp),
        .s_axil_rvalid(s_axil_rvalid), .s_axil_rready(s_axil_rready),
        .scratch(), .cycles(cycles),
        .build_ports(B_PORTS), .build_datapaths(B_DPS), .build_seg_bytes(B_SEG),
        .build_segments(B_SEGMENTS),
        .ctrl_learn(r_learn), .ctrl_host_link_local(r_host_ll), .ctrl_host_arp(r_host_arp),
        .ctrl_host_icmpv6(r_host_icmpv6), .ctrl_host_unknown(r_host_unknown),
        .ctrl_flood_host(r_flood_host), .ctrl_prio_pcp_min(r_prio_pcp_min),
        .release_ns(r_release_ns), .store_forward(r_store_forward), .age_cycles(r_age_cycles),
        .buf_reserve(r_buf_reserve), .buf_port_limit(r_buf_port_limit),
        .buf_queue_limit(r_buf_queue_limit),
        .buf_status_free(free16), .buf_status_used_hwm(hwm16),
        .hwm_clear_wr(r_hwm_clear), .hwm_clear(),
        .l2_cmd_wr(r_l2_cmd_wr), .l2_cmd_op(r_l2_cmd_op), .l2_cmd_index(r_l2_cmd_index),
        .l2_key_lo(r_l2_key_lo), .l2_key_hi(r_l2_key_hi),
        .l2_entry_port(r_l2_entry_port), .l2_entry_valid(r_l2_entry_valid),
        .l2_entry_static(r_l2_entry_static),
        .l2_status_busy(l2_busy), .l2_status_ok(l2_ok), .l2_status_port(l2_port),
        .l2_status_valid(l2_valid), .l2_status_static(l2_static), .l2_status_hit(l2_hit),
        .l2_rd_key_lo(l2_rd_lo), .l2_rd_key_hi(l2_rd_hi),
        .l2_learned(l2_learned), .l2_learn_full(l2_learn_full),
        .drops_count(drops_count),
        .vlan_id_vid(r_vlan_vid), .vlan_id_valid(r_vlan_valid), .vlan_members(r_vlan_members),
        .port_cfg_enable(r_port_enable), .port_cfg_trunk(r_port_trunk), .port_cfg_pcp(r_port_pcp),
        .port_cfg_pvid(r_port_pvid),
        .port_rx_frames(port_rx_frames), .port_rx_bytes(port_rx_bytes),
        .port_tx_frames(port_tx_frames), .port_tx_bytes(port_tx_bytes),
        .port_rx_drops(port_rx_drops), .port_tx_drops(port_tx_drops),
        .ts_cfg_enable(r_ts_enable), .ts_cfg_mode(r_ts_mode), .ts_cfg_by_type(r_ts_by_type),
        .ts_cfg_offset(r_ts_offset), .ts_match_ethertype(r_ts_ethertype),
        .ts_stamped(ts_stamped), .ts_bad_offset(ts_bad_offset)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    always @(posedge clk) begin
        if (rst) cycles <= 64'd0;
        else     cycles <= cycles + 64'd1;
    end

    // configuration in the shapes the datapath modules take
    wire [PORTS*VLANS-1:0] cfg_vlan_members;
    wire [16*PORTS-1:0]    cfg_ts_ethertype;
    genvar gv;
    generate
        for (gv = 0; gv < VLANS; gv = gv + 1) begin : g_vlan
            assign cfg_vlan_members[gv*PORTS +: PORTS] = r_vlan_members[gv*32 +: PORTS];
        end
        for (gv = 0; gv < PORTS; gv = gv + 1) begin : g_tscfg
            assign cfg_ts_ethertype[16*gv +: 16] = r_ts_ethertype[16*gv +: 16];
        end
    endgenerate

    // ---- time ------------------------------------------------------------------------------
    wire [63:0] now;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [63:0] now_next;           // bits 39:16 are the TX ports' time
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_off PINCONNECTEMPTY */
    fp_timebase #(.PERIOD_NUM(8), .PERIOD_DEN(1)) u_time (
        .clk(clk), .rst(rst), .now(now), .now_next(now_next),
        .set_valid(1'b0), .set_time(64'd0), .adj_valid(1'b0), .adj_delta(32'd0),
        .pps(1'b0), .pps_valid(), .pps_time()
    );
    /* verilator lint_on PINCONNECTEMPTY */
    wire [20:0] now_8ns = now[39:19];
    // The TX MACs' time: `now`, or with DDR_PINS one cycle ahead (the fp_oddr puts the SFD on the
    // pins one cycle after the MAC launched it): after edge k it reads now(k - 1) + 16 ns, the
    // time of edge k + 1.
    wire [63:0] tx_now;
    generate
        if (DDR_PINS != 0) begin : g_tx_now_ddr
            reg [63:0] tx_now_q;
            always @(posedge clk) begin
                tx_now_q <= now + 64'h0000_0000_0010_0000;
            end
            assign tx_now = tx_now_q;
        end else begin : g_tx_now
            assign tx_now = now;
        end
    endgenerate
    reg  [23:0] now_ns_q;            // the TX ports' copy of now[39:16], a register beside them
    always @(posedge clk) begin
        now_ns_q <= now_next[39:16];
    end

    // ---- lanes: words and descriptors into clk ---------------------------------------------
    wire [LANES*128-1:0]       w_tdata;
    wire [LANES*`FP_NW_W-1:0]  w_tuser;
    wire [LANES-1:0]           w_tvalid, w_tready, w_tlast;
    wire [LANES-1:0]           key_valid, key_ready, key_tagged, key_short, key_bad;
    wire [LANES*48-1:0]        key_da, key_sa;
    wire [LANES*16-1:0]        key_tci;
    wire [LANES*24-1:0]        key_ts;
    wire [LANES-1:0]           cls_valid, cls_ready, cls_ip_valid;
    wire [LANES*16-1:0]        cls_ethertype;
    wire [LANES*8-1:0]         cls_ip_proto;
    wire [LANES-1:0]           ev_rx_overflow, ev_rx_trunc;
    wire [1:0]                 ev_host_bad;

    // TX-side byte streams (clk): outputs 0..PORTS-1 to the MACs, PORTS + d to host d
    wire [LANES*8-1:0]         tx_tdata;
    wire [LANES-1:0]           tx_tvalid, tx_tready, tx_tlast, tx_tuser, tx_ts_insert;
    wire [32*PORTS-1:0]        mac_ts_bad;

    genvar gp;
    generate
        for (gp = 0; gp < LANES; gp = gp + 1) begin : g_in
            wire        rx_clk;
            /* verilator lint_off SYNCASYNCNET */
            wire        rx_rst;
            /* verilator lint_on SYNCASYNCNET */
            wire        wrx_rst;
            wire [7:0]  b_tdata;
            wire        b_tvalid, b_tlast;
            wire [0:0]  b_tuser;
            wire [63:0] b_ts;
            if (gp < PORTS) begin : g_port
                wire mac_tx_rst;
                assign rx_clk = gmii_rx_clk[gp];
                // rx_rst asserts at once and releases 2 RX clock edges after rst; the clk sides
                // of the crossings leave reset only after the RX side has (fp_axis_async_fifo)
                fp_sync_reset #(.STAGES(2)) u_rx_rst (.clk(rx_clk), .rst_in(rst), .rst_out(rx_rst));
                fp_sync_reset #(.STAGES(2)) u_wrx_rst (.clk(clk), .rst_in(rst || rx_rst), .rst_out(wrx_rst));
                fp_sync_reset #(.STAGES(2)) u_tx_rst (.clk(clk), .rst_in(rst || rx_rst), .rst_out(mac_tx_rst));
                wire [20:0] rx_8ns;
                fp_sync_gray #(.WIDTH(21), .STAGES(2)) u_rx_time (
                    .src_clk(clk), .src_rst(rst), .src_count(now_8ns),
                    .dst_clk(rx_clk), .dst_rst(rx_rst), .dst_count(rx_8ns)
                );
                wire [20:0] rx_8ns_now = rx_8ns + RX_TIME_LAG;
                /* verilator lint_off UNUSEDSIGNAL */
                wire [0:0]  mac_tkeep;      // always 1 on the 1G MAC's byte stream
                /* verilator lint_on UNUSEDSIGNAL */
                /* verilator lint_off PINCONNECTEMPTY */
                fp_eth_mac_1g #(.RX_INPUT_REG(RX_IN_REG)) u_mac (
                    .rx_clk(rx_clk), .rx_rst(rx_rst), .rx_clk_en(1'b1),
                    .tx_clk(clk), .tx_rst(mac_tx_rst), .tx_clk_en(1'b1), .mii_select(1'b0),
                    .gmii_rxd(gmii_rxd[gp*8 +: 8]), .gmii_rx_dv(gmii_rx_dv[gp]),
                    .gmii_rx_er(gmii_rx_er[gp]),
                    .gmii_txd(gmii_txd[gp*8 +: 8]), .gmii_tx_en(gmii_tx_en[gp]),
                    .gmii_tx_er(gmii_tx_er[gp]),
                    .rx_ts_now({24'd0, rx_8ns_now, 19'd0}), .tx_ts_now(tx_now),
                    .m_axis_tdata(b_tdata), .m_axis_tkeep(mac_tkeep), .m_axis_tvalid(b_tvalid),
                    .m_axis_tlast(b_tlast), .m_axis_tuser(b_tuser), .m_axis_ts(b_ts),
                    .s_axis_tdata(tx_tdata[gp*8 +: 8]), .s_axis_tkeep(1'b1),
                    .s_axis_tvalid(tx_tvalid[gp]), .s_axis_tready(tx_tready[gp]),
                    .s_axis_tlast(tx_tlast[gp]), .s_axis_tuser(tx_tuser[gp]),
                    .s_axis_ts_insert(tx_ts_insert[gp]), .s_axis_ts_mode(1'b0),
                    .s_axis_ts_offset(r_ts_offset[gp*16 +: 16]),
                    .tx_ts(), .tx_ts_valid(), .rx_pause_valid(), .rx_pause_quanta(),
                    .cfg_rx_max_len(RX_MAX_LEN), .cfg_tx_ifg(8'd12),
                    .stat_rx_good(), .stat_rx_bad(), .stat_rx_bad_fcs(), .stat_rx_runt(),
                    .stat_rx_oversize(), .stat_rx_phy_err(), .stat_rx_bad_preamble(),
                    .stat_rx_pause(), .stat_rx_bytes(), .stat_tx_frames(), .stat_tx_bytes(),
                    .stat_tx_stomped(), .stat_tx_underrun(),
                    .stat_tx_ts_bad_offset(mac_ts_bad[32*gp +: 32]),
                    .stat_tx_paused_cycles()
                );
                /* verilator lint_on PINCONNECTEMPTY */
            end else begin : g_host
                // whole frames first (a host may pause inside a frame; the node's ports may not),
                // then one byte per cycle into the same word path as a port's
                localparam integer D = gp - PORTS;
                wire [63:0] f_tdata;
                wire [7:0]  f_tkeep;
                wire        f_tvalid, f_tready, f_tlast;
                wire [0:0]  f_tuser;
                /* verilator lint_off UNUSEDSIGNAL */
                wire [$clog2(512):0] f_occ;
                wire        f_oversize;     // cut by the wrx instead (MAX_BYTES)
                /* verilator lint_on UNUSEDSIGNAL */
                assign rx_clk  = clk;
                assign rx_rst  = rst;
                assign wrx_rst = rst;
                fp_axis_fifo #(.DATA_WIDTH(64), .USER_WIDTH(1), .DEPTH(512), .FRAME_MODE(1),
                               .DROP_BAD(1), .MAX_FRAME_BEATS(HOST_BEATS)) u_hfifo (
                    .clk(clk), .rst(rst),
                    .s_axis_tdata(s_host_axis_tdata[D*64 +: 64]), .s_axis_tkeep(s_host_axis_tkeep[D*8 +: 8]),
                    .s_axis_tvalid(s_host_axis_tvalid[D]), .s_axis_tready(s_host_axis_tready[D]),
                    .s_axis_tlast(s_host_axis_tlast[D]), .s_axis_tuser(s_host_axis_tuser[D]),
                    .m_axis_tdata(f_tdata), .m_axis_tkeep(f_tkeep), .m_axis_tvalid(f_tvalid),
                    .m_axis_tready(f_tready), .m_axis_tlast(f_tlast), .m_axis_tuser(f_tuser),
                    .occupancy(f_occ), .drop_bad(ev_host_bad[D]), .drop_oversize(f_oversize)
                );
                fp_axis_w64to8 #(.USER_WIDTH(1)) u_hw (
                    .clk(clk), .rst(rst),
                    .s_axis_tdata(f_tdata), .s_axis_tkeep(f_tkeep), .s_axis_tvalid(f_tvalid),
                    .s_axis_tready(f_tready), .s_axis_tlast(f_tlast), .s_axis_tuser(f_tuser),
                    .m_axis_tdata(b_tdata), .m_axis_tvalid(b_tvalid), .m_axis_tready(1'b1),
                    .m_axis_tlast(b_tlast), .m_axis_tuser(b_tuser)
                );
                assign b_ts = now;
            end

            /* verilator lint_off PINCONNECTEMPTY */
            fp_node_wrx #(.FIFO_WORDS(16), .HDR_DEPTH(8), .MAX_BYTES(MAX_BYTES)) u_wrx (
                .rx_clk(rx_clk), .rx_rst(rx_rst), .clk(clk), .rst(wrx_rst),
                .s_axis_tdata(b_tdata), .s_axis_tvalid(b_tvalid), .s_axis_tlast(b_tlast),
                .s_axis_tuser(b_tuser), .s_axis_ts(b_ts),
                .m_axis_tdata(w_tdata[gp*128 +: 128]), .m_axis_tvalid(w_tvalid[gp]),
                .m_axis_tready(w_tready[gp]), .m_axis_tlast(w_tlast[gp]),
                .m_axis_tuser(w_tuser[gp*`FP_NW_W +: `FP_NW_W]),
                .m_key_valid(key_valid[gp]), .m_key_ready(key_ready[gp]),
                .m_key_da(key_da[gp*48 +: 48]), .m_key_sa(key_sa[gp*48 +: 48]),
                .m_key_tagged(key_tagged[gp]), .m_key_tci(key_tci[gp*16 +: 16]),
                .m_key_ts(key_ts[gp*24 +: 24]), .m_key_short(key_short[gp]),
                .m_key_bad(key_bad[gp]),
                .m_cls_valid(cls_valid[gp]), .m_cls_ready(cls_ready[gp]),
                .m_cls_ethertype(cls_ethertype[gp*16 +: 16]),
                .m_cls_ip_valid(cls_ip_valid[gp]), .m_cls_ip_proto(cls_ip_proto[gp*8 +: 8]),
                .m_cls_short(),
                .ev_frame(), .ev_trunc(ev_rx_trunc[gp]), .ev_overflow(ev_rx_overflow[gp])
            );
            /* verilator lint_on PINCONNECTEMPTY */
        end
    endgenerate

    // ---- the buffer ------------------------------------------------------------------------
    wire              b_start, b_drop;
    wire [LW-1:0]     b_start_src, b_drop_src;
    wire [SW-1:0]     b_start_head;
    wire [NCW-1:0]    b_free;
    wire              ref_valid;
    wire [SW-1:0]     ref_head;
    wire [CW-1:0]     ref_count;
    wire [LANES-1:0]  rel_valid, rel_ready;
    wire [LANES*SW-1:0] rel_head;
    wire [LANES-1:0]  rd_valid, rd_ready, rd_follow, rsp_valid;
    wire [LANES*SW-1:0] rd_seg;
    wire [LANES*2-1:0] rd_word;
    wire [127:0]      rsp_data;
    wire [`FP_NW_W-1:0] rsp_user;
    wire [SW-1:0]     rsp_seg;

    /* verilator lint_off UNUSEDSIGNAL */
    wire              b_end, b_trunc, b_end_bad;   // cut-through: the end events are not needed;
    wire [LW-1:0]     b_end_src, b_trunc_src;      // the wrx cuts long frames first (MAX_BYTES)
    wire [SW-1:0]     b_end_head, b_end_tail;
    wire [$clog2(MAX_SEGS * 4 + 1)-1:0] b_end_words;
    wire [NCW-1:0]    b_live;
    /* verilator lint_on UNUSEDSIGNAL */
    wire              b_init;
    wire              b_ref_err, b_rel_err;

    fp_node_wbuf #(.SOURCES(LANES), .READERS(LANES), .SEGMENTS(SEGMENTS), .SEG_WORDS(4),
                   .MAX_COPIES(MAX_COPIES), .MAX_FRAME_SEGS(MAX_SEGS)) u_buf (
        .clk(clk), .rst(rst),
        .s_axis_tdata(w_tdata), .s_axis_tuser(w_tuser), .s_axis_tvalid(w_tvalid),
        .s_axis_tready(w_tready), .s_axis_tlast(w_tlast),
        .m_start(b_start), .m_start_src(b_start_src), .m_start_head(b_start_head),
        .m_end(b_end), .m_end_src(b_end_src), .m_end_head(b_end_head), .m_end_tail(b_end_tail),
        .m_end_words(b_end_words), .m_end_bad(b_end_bad),
        .ev_drop(b_drop), .ev_drop_src(b_drop_src), .ev_trunc(b_trunc), .ev_trunc_src(b_trunc_src),
        .s_ref_valid(ref_valid), .s_ref_head(ref_head), .s_ref_count(ref_count),
        .s_rel_valid(rel_valid), .s_rel_head(rel_head), .s_rel_ready(rel_ready),
        .s_rd_valid(rd_valid), .s_rd_ready(rd_ready), .s_rd_follow(rd_follow),
        .s_rd_seg(rd_seg), .s_rd_word(rd_word),
        .m_rd_valid(rsp_valid), .m_rd_data(rsp_data), .m_rd_user(rsp_user), .m_rd_seg(rsp_seg),
        .free_count(b_free), .frames_live(b_live), .init_done(b_init),
        .stat_ref_err(b_ref_err), .stat_rel_err(b_rel_err)
    );

    // ---- the decision --------------------------------------------------------------------------
    localparam BW = $clog2(BUCKETS);
    localparam WB = $clog2(WAYS);
    wire [LANES-1:0]   desc_valid, desc_ready, desc_ts_insert;
    wire [SW-1:0]      desc_head;
    wire [23:0]        desc_ts;
    wire [LANES*2-1:0] desc_vlan_op;
    wire [15:0]        desc_tci;
    wire               ev_frame, ev_discard, ev_outcome_err, ev_learn_new, ev_learn_full;
    wire               ev_learn_drop;
    wire [LW-1:0]      ev_src;
    wire [`FP_NOC_REASON_W-1:0] ev_reason;
    wire [LANES-1:0]   ev_tx_drop;
    reg                l2_cmd_valid;
    wire               l2_cmd_ready, l2_rsp_valid, l2_rsp_entry_valid, l2_rsp_static, l2_rsp_hit;
    wire [1:0]         l2_rsp_status;
    wire [4:0]         l2_rsp_port;
    wire [11:0]        l2_rsp_vid;
    wire [47:0]        l2_rsp_mac;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_node_wdec #(.PORTS(PORTS), .HOSTS(HOSTS), .SEGMENTS(SEGMENTS), .VLANS(VLANS),
                   .BUCKETS(BUCKETS), .WAYS(WAYS)) u_dec (
        .clk(clk), .rst(rst),
        .s_key_valid(key_valid), .s_key_ready(key_ready), .s_key_da(key_da), .s_key_sa(key_sa),
        .s_key_tagged(key_tagged), .s_key_tci(key_tci), .s_key_ts(key_ts),
        .s_key_short(key_short), .s_key_bad(key_bad),
        .s_cls_valid(cls_valid), .s_cls_ready(cls_ready), .s_cls_ethertype(cls_ethertype),
        .s_cls_ip_valid(cls_ip_valid), .s_cls_ip_proto(cls_ip_proto),
        .buf_start(b_start), .buf_start_src(b_start_src), .buf_start_head(b_start_head),
        .buf_drop(b_drop), .buf_drop_src(b_drop_src),
        .m_ref_valid(ref_valid), .m_ref_head(ref_head), .m_ref_count(ref_count),
        .m_desc_valid(desc_valid), .m_desc_ready(desc_ready), .m_desc_head(desc_head),
        .m_desc_ts(desc_ts), .m_desc_vlan_op(desc_vlan_op), .m_desc_tci(desc_tci),
        .m_desc_ts_insert(desc_ts_insert),
        .cfg_port_enable(r_port_enable[PORTS-1:0]), .cfg_port_trunk(r_port_trunk[PORTS-1:0]),
        .cfg_port_pvid(r_port_pvid[12*PORTS-1:0]), .cfg_port_pcp(r_port_pcp[3*PORTS-1:0]),
        .cfg_vlan_valid(r_vlan_valid[VLANS-1:0]), .cfg_vlan_vid(r_vlan_vid[12*VLANS-1:0]),
        .cfg_vlan_members(cfg_vlan_members), .cfg_learn_enable(r_learn),
        .cfg_host_link_local(r_host_ll), .cfg_host_arp(r_host_arp),
        .cfg_host_icmpv6(r_host_icmpv6), .cfg_host_unknown(r_host_unknown),
        .cfg_flood_host(r_flood_host),
        .cfg_ts_enable(r_ts_enable[PORTS-1:0]), .cfg_ts_by_type(r_ts_by_type[PORTS-1:0]),
        .cfg_ts_ethertype(cfg_ts_ethertype), .cfg_age_cycles(r_age_cycles),
        .host_cmd_valid(l2_cmd_valid), .host_cmd_ready(l2_cmd_ready), .host_cmd_op(r_l2_cmd_op),
        .host_cmd_bucket(r_l2_cmd_index[WB +: BW]), .host_cmd_way(r_l2_cmd_index[WB-1:0]),
        .host_cmd_entry_valid(r_l2_entry_valid), .host_cmd_static(r_l2_entry_static),
        .host_cmd_port(r_l2_entry_port), .host_cmd_vid(r_l2_key_hi[27:16]),
        .host_cmd_mac({r_l2_key_hi[15:0], r_l2_key_lo}),
        .host_rsp_valid(l2_rsp_valid), .host_rsp_status(l2_rsp_status),
        .host_rsp_entry_valid(l2_rsp_entry_valid), .host_rsp_static(l2_rsp_static),
        .host_rsp_hit(l2_rsp_hit), .host_rsp_port(l2_rsp_port), .host_rsp_vid(l2_rsp_vid),
        .host_rsp_mac(l2_rsp_mac),
        .ev_frame(ev_frame), .ev_frame_src(ev_src), .ev_frame_discard(ev_discard),
        .ev_frame_reason(ev_reason), .ev_tx_drop(ev_tx_drop), .ev_outcome_err(ev_outcome_err),
        .ev_learn_new(ev_learn_new), .ev_learn_move(), .ev_learn_full(ev_learn_full),
        .ev_learn_drop(ev_learn_drop)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // host access to the table: l2_cmd starts an operation, l2_status holds its result
    always @(posedge clk) begin
        if (rst) begin
            l2_cmd_valid <= 1'b0;
            l2_busy <= 1'b0;
            l2_ok <= 1'b0;
            l2_valid <= 1'b0;
            l2_static <= 1'b0;
            l2_hit <= 1'b0;
            l2_port <= 5'd0;
            l2_rd_lo <= 32'd0;
            l2_rd_hi <= 32'd0;
            l2_learned <= 64'd0;
            l2_learn_full <= 64'd0;
        end else begin
            if (r_l2_cmd_wr && !l2_busy) begin
                l2_cmd_valid <= 1'b1;
                l2_busy <= 1'b1;
            end else if (l2_cmd_valid && l2_cmd_ready) begin
                l2_cmd_valid <= 1'b0;
            end
            if (l2_rsp_valid) begin
                l2_busy <= 1'b0;
                l2_ok <= (l2_rsp_status == 2'd0);
                l2_valid <= l2_rsp_entry_valid;
                l2_static <= l2_rsp_static;
                l2_hit <= l2_rsp_hit;
                l2_port <= l2_rsp_port;
                l2_rd_lo <= l2_rsp_mac[31:0];
                l2_rd_hi <= {4'd0, l2_rsp_vid, l2_rsp_mac[47:32]};
            end
            l2_learned <= l2_learned + {63'd0, ev_learn_new};
            l2_learn_full <= l2_learn_full + {63'd0, ev_learn_full} + {63'd0, ev_learn_drop};
        end
    end

    // ---- outputs: TX ports and host ports ------------------------------------------------------
    wire [LANES-1:0] ev_tx_underrun;
    generate
        for (gp = 0; gp < LANES; gp = gp + 1) begin : g_out
            /* verilator lint_off UNUSEDSIGNAL */
            wire       wtx_ev_frame;
            wire [0:0] wtx_tkeep;       // always 1: one byte per beat
            /* verilator lint_on UNUSEDSIGNAL */
            fp_node_wtx #(.SEGMENTS(SEGMENTS), .SEG_WORDS(4), .QUEUE(16), .RD_LATENCY(6),
                          .RD_WAIT(RD_WAIT), .MAX_WORDS(MAX_WORDS)) u_wtx (
                .clk(clk), .rst(rst),
                .s_desc_valid(desc_valid[gp]), .s_desc_ready(desc_ready[gp]),
                .s_desc_head(desc_head), .s_desc_ts(desc_ts), .s_desc_sf(1'b0),
                .s_desc_vlan_op(desc_vlan_op[gp*2 +: 2]), .s_desc_tci(desc_tci),
                .s_desc_ts_insert(desc_ts_insert[gp]),
                .cfg_release_ns(r_release_ns[23:0]), .now_ns(now_ns_q),
                .rd_valid(rd_valid[gp]), .rd_ready(rd_ready[gp]), .rd_follow(rd_follow[gp]),
                .rd_seg(rd_seg[gp*SW +: SW]), .rd_word(rd_word[gp*2 +: 2]),
                .rsp_valid(rsp_valid[gp]), .rsp_data(rsp_data), .rsp_user(rsp_user),
                .rsp_seg(rsp_seg),
                .rel_valid(rel_valid[gp]), .rel_ready(rel_ready[gp]), .rel_head(rel_head[gp*SW +: SW]),
                .m_axis_tdata(tx_tdata[gp*8 +: 8]), .m_axis_tkeep(wtx_tkeep),
                .m_axis_tvalid(tx_tvalid[gp]), .m_axis_tready(tx_tready[gp]),
                .m_axis_tlast(tx_tlast[gp]), .m_axis_tuser(tx_tuser[gp]),
                .m_axis_ts_insert(tx_ts_insert[gp]),
                .ev_frame(wtx_ev_frame), .ev_underrun(ev_tx_underrun[gp])
            );
            if (gp >= PORTS) begin : g_host
                // bytes -> 64-bit beats -> a FIFO the host may pause; the wtx waits while fewer
                // than 4 beats are free (the packer holds at most one beat, the FIFO's ready is a
                // register). Like a MAC sending its preamble, the first byte of each frame is
                // taken 9 cycles after it is offered: the wtx reads a frame's words just in time
                // for that pace (a MAC's), never earlier.
                localparam integer D = gp - PORTS;
                wire [63:0] p_tdata;
                wire [7:0]  p_tkeep;
                wire        p_tvalid, p_tlast;
                wire [0:0]  p_tuser;
                wire [5:0]  h_occ;
                /* verilator lint_off UNUSEDSIGNAL */
                wire        h_tready, h_drop_bad, h_drop_over;
                /* verilator lint_on UNUSEDSIGNAL */
                reg         room_q, idle_q;
                reg  [3:0]  pre_q;
                always @(posedge clk) begin
                    room_q <= !rst && h_occ <= 6'd28;
                    if (rst || (tx_tvalid[gp] && tx_tready[gp] && tx_tlast[gp])) begin
                        idle_q <= 1'b1;
                        pre_q  <= 4'd0;
                    end else if (idle_q && tx_tvalid[gp]) begin
                        idle_q <= pre_q != 4'd8;
                        pre_q  <= pre_q + 4'd1;
                    end
                end
                assign tx_tready[gp] = room_q && !idle_q;
                fp_axis_w8to64 #(.USER_WIDTH(1)) u_pack (
                    .clk(clk), .rst(rst),
                    .s_axis_tdata(tx_tdata[gp*8 +: 8]), .s_axis_tvalid(tx_tvalid[gp] && tx_tready[gp]),
                    .s_axis_tlast(tx_tlast[gp]), .s_axis_tuser(tx_tuser[gp]),
                    .m_axis_tdata(p_tdata), .m_axis_tkeep(p_tkeep), .m_axis_tvalid(p_tvalid),
                    .m_axis_tlast(p_tlast), .m_axis_tuser(p_tuser)
                );
                fp_axis_fifo #(.DATA_WIDTH(64), .USER_WIDTH(1), .DEPTH(32), .FRAME_MODE(0)) u_hout (
                    .clk(clk), .rst(rst),
                    .s_axis_tdata(p_tdata), .s_axis_tkeep(p_tkeep), .s_axis_tvalid(p_tvalid),
                    .s_axis_tready(h_tready), .s_axis_tlast(p_tlast), .s_axis_tuser(p_tuser),
                    .m_axis_tdata(m_host_axis_tdata[D*64 +: 64]), .m_axis_tkeep(m_host_axis_tkeep[D*8 +: 8]),
                    .m_axis_tvalid(m_host_axis_tvalid[D]), .m_axis_tready(m_host_axis_tready[D]),
                    .m_axis_tlast(m_host_axis_tlast[D]), .m_axis_tuser(m_host_axis_tuser[D]),
                    .occupancy(h_occ), .drop_bad(h_drop_bad), .drop_oversize(h_drop_over)
                );
            end
        end
    endgenerate

    // ---- counters and status (clk) ---------------------------------------------------------
    // Each counter's increment is formed and registered first, then added to the 64-bit counter
    // the cycle after (one carry chain per counter per cycle): the counters lag their events by
    // two to three cycles; the registers read the same totals once traffic stops.
    // rx_frames / rx_bytes count the frames and bytes of each port's word stream into the buffer
    // (bad ones included; frames the RX dropped whole on overflow are rx_drops); tx_* count the
    // bytes the TX MAC took. A frame that ends bad after its first word (it was already on its
    // way) counts as bad_frame when its last word enters the buffer; one that ends bad in its
    // first word is dropped by the decision, which counts it.
    reg  [LANES-1:0] w_more;        // the lane's frame is past its first word
    always @(posedge clk) begin
        if (rst) begin
            w_more <= {LANES{1'b0}};
        end else begin
            w_more <= (w_more | (w_tvalid & w_tready)) & ~(w_tvalid & w_tready & w_tlast);
        end
    end

    // one loop variable per process (a variable written by two processes has two drivers)
    integer i, e, i2, e2, i3;
    reg  [PORTS-1:0] inc_rx_frame, inc_tx_frame, inc_tx_byte, inc_ts, inc_tx_drop_q;
    reg  [PORTS-1:0] inc_rx_drop_q, inc_ovf_q, inc_stomp_q;
    reg  [4:0]       inc_rx_bytes [0:PORTS-1];
    reg  [PORTS-1:0] ts_bad_lo_q;
    reg  [4:0]       n_bad, n_overflow, n_trunc, n_underrun, n_copy;
    reg              d_discard;
    reg  [2:0]       n_int;          // internal errors: buffer ref / release, decision outcome
    reg  [`FP_NOC_REASON_W-1:0] d_reason;
    reg  [4:0]       n_bad_d, n_overflow_d, n_trunc_d, n_underrun_d, n_copy_d;
    always @* begin
        n_bad_d = {4'd0, ev_host_bad[0]} + {4'd0, ev_host_bad[1]};   // bad host frames, dropped whole
        n_overflow_d = 5'd0; n_trunc_d = 5'd0; n_underrun_d = 5'd0; n_copy_d = 5'd0;
        for (e = 0; e < LANES; e = e + 1) begin
            n_bad_d      = n_bad_d + {4'd0, w_tvalid[e] & w_tready[e] & w_tlast[e] & w_more[e]
                                            & w_tuser[e*`FP_NW_W + `FP_NW_BAD_LSB]};
            n_overflow_d = n_overflow_d + {4'd0, ev_rx_overflow[e]};
            n_trunc_d    = n_trunc_d    + {4'd0, ev_rx_trunc[e]};
            n_underrun_d = n_underrun_d + {4'd0, ev_tx_underrun[e]};
            n_copy_d     = n_copy_d     + {4'd0, ev_tx_drop[e]};
        end
    end
    always @(posedge clk) begin
        {n_bad, n_overflow, n_trunc, n_underrun, n_copy} <=
            rst ? 25'd0 : {n_bad_d, n_overflow_d, n_trunc_d, n_underrun_d, n_copy_d};
        n_int     <= rst ? 3'd0 : {2'd0, b_ref_err} + {2'd0, b_rel_err} + {2'd0, ev_outcome_err};
        d_discard <= !rst && ev_frame && ev_discard;
        d_reason  <= ev_reason;
        for (i = 0; i < PORTS; i = i + 1) begin
            inc_rx_frame[i]  <= !rst && w_tvalid[i] && w_tready[i] && w_tlast[i];
            inc_rx_bytes[i]  <= (!rst && w_tvalid[i] && w_tready[i])
                                ? {1'b0, w_tuser[i*`FP_NW_W + `FP_NW_NBYTES_M1_LSB +: 4]} + 5'd1 : 5'd0;
            inc_tx_byte[i]   <= !rst && tx_tvalid[i] && tx_tready[i];
            inc_tx_frame[i]  <= !rst && tx_tvalid[i] && tx_tready[i] && tx_tlast[i];
            inc_ts[i]        <= !rst && tx_tvalid[i] && tx_tready[i] && tx_ts_insert[i];
            inc_tx_drop_q[i] <= !rst && (ev_tx_drop[i] || ev_tx_underrun[i]);
            inc_ovf_q[i]     <= !rst && ev_rx_overflow[i];
            inc_stomp_q[i]   <= !rst && w_tvalid[i] && w_tready[i] && w_tlast[i] && w_more[i]
                                && w_tuser[i*`FP_NW_W + `FP_NW_BAD_LSB];
            inc_rx_drop_q[i] <= !rst && ev_frame && ev_discard && ev_src == i[LW-1:0];
            ts_bad_lo_q[i]   <= mac_ts_bad[32*i];
        end
    end

    // drops by reason: the decision's discards, and the sums of the events counted elsewhere
    reg  [5:0]  drop_sum [0:15];
    reg  [5:0]  inc_drop [0:15];
    always @* begin
        for (e2 = 0; e2 < 16; e2 = e2 + 1) begin
            drop_sum[e2] = {5'd0, d_discard && d_reason == e2[3:0]};
        end
        drop_sum[`FP_NOC_REASON_BAD_FRAME]   = drop_sum[`FP_NOC_REASON_BAD_FRAME] + {1'b0, n_bad};
        drop_sum[`FP_NOC_REASON_RX_OVERFLOW] = drop_sum[`FP_NOC_REASON_RX_OVERFLOW] + {1'b0, n_overflow};
        drop_sum[`FP_NOC_REASON_OVERSIZE]    = drop_sum[`FP_NOC_REASON_OVERSIZE] + {1'b0, n_trunc};
        drop_sum[`FP_NOC_REASON_UNDERRUN]    = drop_sum[`FP_NOC_REASON_UNDERRUN] + {1'b0, n_underrun};
        drop_sum[`FP_NOC_REASON_QUEUE_FULL]  = drop_sum[`FP_NOC_REASON_QUEUE_FULL] + {1'b0, n_copy};
        drop_sum[`FP_NOC_REASON_INTERNAL]    = drop_sum[`FP_NOC_REASON_INTERNAL] + {3'd0, n_int};
    end
    always @(posedge clk) begin
        for (i2 = 0; i2 < 16; i2 = i2 + 1) begin
            inc_drop[i2] <= rst ? 6'd0 : drop_sum[i2];
        end
    end

    always @(posedge clk) begin
        free16 <= {{(16-NCW){1'b0}}, b_free};
        if (rst || r_hwm_clear) begin
            hwm16 <= 16'd0;
        end else if (b_init && B_SEGMENTS - free16 > hwm16) begin   // (not the fill after reset)
            hwm16 <= B_SEGMENTS - free16;
        end
        if (rst) begin
            drops_count    <= {64*16{1'b0}};
            port_rx_frames <= {64*16{1'b0}};
            port_rx_bytes  <= {64*16{1'b0}};
            port_tx_frames <= {64*16{1'b0}};
            port_tx_bytes  <= {64*16{1'b0}};
            port_rx_drops  <= {64*16{1'b0}};
            port_tx_drops  <= {64*16{1'b0}};
            ts_stamped     <= {64*16{1'b0}};
            ts_bad_offset  <= {64*16{1'b0}};
        end else begin
            for (i3 = 0; i3 < 16; i3 = i3 + 1) begin
                drops_count[i3*64 +: 64] <= drops_count[i3*64 +: 64] + {58'd0, inc_drop[i3]};
            end
            for (i3 = 0; i3 < PORTS; i3 = i3 + 1) begin
                port_rx_frames[i3*64 +: 64] <= port_rx_frames[i3*64 +: 64] + {63'd0, inc_rx_frame[i3]};
                port_rx_bytes[i3*64 +: 64]  <= port_rx_bytes[i3*64 +: 64] + {59'd0, inc_rx_bytes[i3]};
                port_tx_frames[i3*64 +: 64] <= port_tx_frames[i3*64 +: 64] + {63'd0, inc_tx_frame[i3]};
                port_tx_bytes[i3*64 +: 64]  <= port_tx_bytes[i3*64 +: 64] + {63'd0, inc_tx_byte[i3]};
                port_rx_drops[i3*64 +: 64]  <= port_rx_drops[i3*64 +: 64] + {63'd0, inc_rx_drop_q[i3]}
                                              + {63'd0, inc_ovf_q[i3]} + {63'd0, inc_stomp_q[i3]};
                port_tx_drops[i3*64 +: 64]  <= port_tx_drops[i3*64 +: 64] + {63'd0, inc_tx_drop_q[i3]};
                ts_stamped[i3*64 +: 64]     <= ts_stamped[i3*64 +: 64] + {63'd0, inc_ts[i3]};
                ts_bad_offset[i3*64 +: 64]  <= ts_bad_offset[i3*64 +: 64]
                                              + {63'd0, mac_ts_bad[32*i3] != ts_bad_lo_q[i3]};
            end
        end
    end

endmodule

`default_nettype wire
