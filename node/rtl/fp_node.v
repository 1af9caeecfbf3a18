// fp_node: the node's top level - PORTS 1G ports (GMII), 2 receive and 2 transmit
// processing datapaths, a shared segment buffer, a host port per datapath and the AXI4-Lite
// register block (node/rtl/node.regs.toml, node/docs/regs/node.md). Data flow and design decisions:
// node/README.md.
//
//   port p: fp_eth_mac_1g RX -> fp_node_rxf -> fp_node_hc --+
//   host d: s_host_axis   -> fp_node_rxf -> fp_node_hc --+-> fp_node_rxarb d -> fp_node_rxproc d --+
//                                          fp_node_l2_table (shared by both datapaths) |
//   fp_node_buffer (BM, QM, SCHED) <-------------------------------------------------+
//     -> fp_node_route d -> fp_node_ht d -> fp_node_txf (per port) -> fp_eth_mac_1g TX
//                                  -> fp_node_txf (host)     -> m_host_axis d
// Port p belongs to datapath p / ceil(PORTS / 2); the host port of datapath d is port PORTS + d.
//
// Clocks: clk (datapath, 125..250 MHz, default 200); port_clk (125 MHz: GMII TX of every port,
//   the fp_timebase); gmii_rx_clk[p] (125 MHz, port p's receive clock from its PHY; tie to
//   port_clk where the PHYs' RX clocks are locked to it). The fp_timebase crosses into each RX
//   domain in Gray code (fp_sync_gray), compensated by its latency with one clock: exact when
//   gmii_rx_clk[p] is port_clk, else the SFD stamp is the time of the first port_clk edge at or
//   after the RX edge (0 to 8 ns late; up to 8 ns early if a synchronizer flop goes
//   metastable). s_host_axis, m_host_axis and s_axil are in clk. port_rst resets the RX
//   domains too (through fp_sync_reset); with an RX clock stopped, that port's RX side and the
//   far sides of its crossings stay in reset until the clock runs again.
// Latency (SFD sampled at an RX pin -> SFD sampled at a TX pin), cut-through: the frame starts on
//   its output cfg release_ns after its RX SFD time (once its first segment has arrived), plus
//   the TX MAC's 7 cycles and the crossings of the SFD timestamp: node/README.md gives the
//   budget module by module and the measured figures; store-and-forward: after the frame's last
//   segment has reached the TX FIFO.
// Throughput: every port at 1G line rate for every frame size, all at once (the datapaths carry
//   one segment per clk cycle each; 12 x 1G needs under 10 % of that).
// Bad input: frames failing a MAC check are dropped when they fit in one segment, else sent on
//   with a stomped FCS (cut-through) and counted; oversize frames are cut and stomped; frames
//   no output can take are dropped and counted by reason (drops_count) and by port (rx_drops,
//   tx_drops). Nothing leaks: the free list refills when traffic stops (buf_status.free).
// TX timestamps (registers ts[p]): port p's TXF asks its MAC to stamp the frames ts_cfg selects
//   (every frame, or one EtherType after an optional 802.1Q tag), decided from the frame's first
//   segment before its first byte leaves (no cycle added); the MAC writes the time its SFD
//   appears at the node's TX pins at ts_cfg.offset and recomputes the FCS. ts_stamped and
//   ts_bad_offset count per port (port_clk events crossed as toggles into clk: a count changes at
//   the 4th clk edge after the event's port_clk edge, the 5th if a synchronizer flop goes
//   metastable). Mode 1 (the packet-train tester stamp) needs TX_TESTER_STAMP = 1 (each MAC then keeps
//   its fp_ts_tod, about 1,400 LUTs); with 0 it acts as mode 0.
// DDR_PINS = 1: the GMII pins connect to RGMII DDR registers (fp_gmii_rgmii, as in fp_node_rgmii):
//   each received byte comes from an fp_iddr, which presents it one cycle after the rising edge
//   that sampled its low nibble, so the RX MAC takes the pins without its input register and the
//   SFD stamp is taken one cycle earlier (the crossing's lag 3 instead of 4); transmitted bytes
//   reach the RGMII pins one port_clk cycle after the GMII pins, so the TX MACs' time runs one
//   cycle ahead (a register: now + 16 ns). Both stamps stay the times at the (RGMII) pins.
// Parameters: PORTS 2..16; SEG_BYTES 32 or 64; SEGMENTS >= 64; MAX_BYTES 64..2000 (without FCS);
//   QUEUE_DEPTH a power of two >= 4; VLANS 1..16; BUCKETS / WAYS powers of two; TX_TESTER_STAMP
//   0 or 1; DDR_PINS 0 or 1.
`default_nettype none
`include "fp_noc_header.vh"
`include "fp_rxf_tuser.vh"
`include "fp_txf_tuser.vh"
module fp_node #(
    parameter PORTS       = 12,
    parameter SEG_BYTES   = 64,
    parameter SEGMENTS    = 3000,
    parameter MAX_BYTES   = 1518,
    parameter QUEUE_DEPTH = 256,
    parameter VLANS       = 16,
    parameter BUCKETS     = 128,
    parameter WAYS        = 8,
    parameter TX_TESTER_STAMP = 0,
    parameter DDR_PINS    = 0
) (
    input  wire                   clk,
    input  wire                   rst,
    input  wire                   port_clk,
    // port_rst is synchronous to port_clk and also the (asynchronous) source of each RX
    // domain's fp_sync_reset: both uses are intended.
    /* verilator lint_off SYNCASYNCNET */
    input  wire                   port_rst,
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

    localparam DPS      = 2;
    localparam PER      = (PORTS + DPS - 1) / DPS;            // ports of datapath 0
    localparam NOUT     = PORTS + DPS;
    localparam SW       = SEG_BYTES * 8;
    localparam HW       = `FP_NOC_W;
    localparam CW       = $clog2(SEGMENTS + 1);
    localparam QCW      = $clog2(QUEUE_DEPTH) + 1;
    localparam MAXSEGS  = (MAX_BYTES + SEG_BYTES - 1) / SEG_BYTES;
    // TX FIFO sizing: the buffer keeps at most BUF_ROOM segments in flight per output; ROUTE can
    // turn each into two (a tag insertion splits a first segment), so the TX FIFO asks for twice
    // that; in store-and-forward a whole frame (+1 for an inserted tag) must fit below the
    // threshold, or the frame could never complete.
    localparam BUF_ROOM = 8;
    localparam TX_ROOM  = 2 * BUF_ROOM;
    localparam TX_NEED  = MAXSEGS + 1 + TX_ROOM;
    localparam TX_SEGS  = (TX_NEED <= 32) ? 32 : (TX_NEED <= 64) ? 64 : 128;
    localparam RESERVE  = NOUT * MAXSEGS;
    localparam [4:0]  B_PORTS    = PORTS;
    localparam [2:0]  B_DPS      = DPS;
    localparam [7:0]  B_SEG      = SEG_BYTES;
    localparam [15:0] B_SEGMENTS = SEGMENTS;
    localparam [15:0] RX_MAX_LEN = MAX_BYTES + 4;            // the MAC counts the FCS

    generate
        if (PORTS < 2 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_2_to_16 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (SEGMENTS < 64) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_at_least_64 u_error();
        end
        if (MAX_BYTES < 64 || MAX_BYTES > 2000) begin : g_bad_max
            PARAMETER_ERROR_MAX_BYTES_must_be_64_to_2000 u_error();
        end
        if (VLANS < 1 || VLANS > 16) begin : g_bad_vlans
            PARAMETER_ERROR_VLANS_must_be_1_to_16 u_error();
        end
        if (SEGMENTS > 65535) begin : g_bad_segments_max
            PARAMETER_ERROR_SEGMENTS_must_be_at_most_65535 u_error();
        end
        if (TX_NEED > 128) begin : g_bad_txf
            PARAMETER_ERROR_MAX_BYTES_too_large_for_the_TX_FIFO u_error();
        end
        if (TX_TESTER_STAMP != 0 && TX_TESTER_STAMP != 1) begin : g_bad_tester
            PARAMETER_ERROR_TX_TESTER_STAMP_must_be_0_or_1 u_error();
        end
        if (DDR_PINS != 0 && DDR_PINS != 1) begin : g_bad_ddr
            PARAMETER_ERROR_DDR_PINS_must_be_0_or_1 u_error();
        end
    endgenerate

    // ---- registers -------------------------------------------------------------------------
    // The register map is sized for 16 ports and 16 VLAN entries of 32 member bits; a node with
    // fewer ports uses the low bits, and the address/key registers have spare bits.
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
    wire [CW-1:0] stat_free, stat_used_hwm;
    reg           l2_busy, l2_ok, l2_valid, l2_static, l2_hit;
    reg  [4:0]    l2_port;
    reg  [31:0]   l2_rd_lo, l2_rd_hi;
    reg  [63:0]   l2_learned, l2_learn_full;
    reg  [64*16-1:0] drops_count;
    reg  [64*16-1:0] port_rx_frames, port_rx_bytes, port_tx_frames, port_tx_bytes;
    reg  [64*16-1:0] port_rx_drops, port_tx_drops;
    wire [64*16-1:0] ts_stamped, ts_bad_offset;

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

    wire [15:0] free16 = {{(16-CW){1'b0}}, stat_free};
    wire [15:0] hwm16  = {{(16-CW){1'b0}}, stat_used_hwm};

    always @(posedge clk) begin
        if (rst) cycles <= 64'd0;
        else     cycles <= cycles + 64'd1;
    end

    // configuration in the shapes the datapath modules take
    wire [PORTS-1:0]       cfg_enable = r_port_enable[PORTS-1:0];
    wire [PORTS-1:0]       cfg_trunk  = r_port_trunk[PORTS-1:0];
    wire [3*PORTS-1:0]     cfg_pcp    = r_port_pcp[3*PORTS-1:0];
    wire [12*PORTS-1:0]    cfg_pvid   = r_port_pvid[12*PORTS-1:0];
    wire [PORTS*VLANS-1:0] cfg_vlan_members;
    genvar gv;
    generate
        for (gv = 0; gv < VLANS; gv = gv + 1) begin : g_vlan
            assign cfg_vlan_members[gv*PORTS +: PORTS] = r_vlan_members[gv*32 +: PORTS];
        end
    endgenerate
    wire [CW-1:0]  cfg_reserve     = (r_buf_reserve == 32'd0) ? RESERVE[CW-1:0] : r_buf_reserve[CW-1:0];
    wire [CW-1:0]  cfg_port_limit  = (r_buf_port_limit == 32'd0) ? {CW{1'b1}} : r_buf_port_limit[CW-1:0];
    wire [QCW-1:0] cfg_queue_limit = (r_buf_queue_limit == 32'd0 || r_buf_queue_limit > QUEUE_DEPTH)
                                     ? QUEUE_DEPTH[QCW-1:0] : r_buf_queue_limit[QCW-1:0];

    // ---- time (port_clk) -------------------------------------------------------------------
    wire [63:0] now;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_timebase #(.PERIOD_NUM(8), .PERIOD_DEN(1)) u_time (
        .clk(port_clk), .rst(port_rst), .now(now), .now_next(),
        .set_valid(1'b0), .set_time(64'd0), .adj_valid(1'b0), .adj_delta(32'd0),
        .pps(1'b0), .pps_valid(), .pps_time()
    );
    /* verilator lint_on PINCONNECTEMPTY */
    // The time in 8 ns units: the fp_timebase steps by exactly one per port_clk cycle (PERIOD 8/1,
    // never set or adjusted here), as fp_sync_gray requires. An RX domain rebuilds the SFD stamp's
    // bits [39:16] (ns modulo 2^24, all fp_node_rxf keeps) from it, plus RX_TIME_LAG units: the
    // crossing's latency when the RX clock is port_clk (1 + 2 + 1 edges, fp_sync_gray).
    // With DDR_PINS the fp_iddr in front of the pins delays every RX byte by one cycle more than
    // the MAC's input register would: the stamp is taken one unit earlier (3).
    localparam [20:0] RX_TIME_LAG = (DDR_PINS != 0) ? 21'd3 : 21'd4;
    localparam        RX_IN_REG   = (DDR_PINS != 0) ? 0 : 1;
    wire [20:0] now_8ns = now[39:19];

    // The TX MACs' time: `now`, or with DDR_PINS one cycle ahead (the fp_oddr puts the SFD on the
    // pins one cycle after the MAC launched it): after edge k it reads now(k - 1) + 16 ns = the
    // time of edge k + 1.
    wire [63:0] tx_now;
    generate
        if (DDR_PINS != 0) begin : g_tx_now_ddr
            reg [63:0] tx_now_q;
            always @(posedge port_clk) begin
                tx_now_q <= now + 64'h0000_0000_0010_0000;
            end
            assign tx_now = tx_now_q;
        end else begin : g_tx_now
            assign tx_now = now;
        end
    endgenerate

    // ---- receive side ----------------------------------------------------------------------
    // Segment streams after HC: index p < PORTS for ports, PORTS + d for host d.
    wire [NOUT*SW-1:0]        hc_tdata;
    wire [NOUT*SEG_BYTES-1:0] hc_tkeep;
    wire [NOUT-1:0]           hc_tvalid, hc_tready, hc_tlast;
    wire [NOUT*HW-1:0]        hc_tuser;
    wire [NOUT-1:0]           ev_rx_frame, ev_rx_bad, ev_rx_trunc, ev_rx_overflow;
    wire [NOUT*16-1:0]        ev_rx_bytes;

    // TX-side byte streams into the MACs (port_clk)
    wire [PORTS*8-1:0] tx_tdata;
    wire [PORTS-1:0]   tx_tvalid, tx_tready, tx_tlast, tx_tuser;
    wire [PORTS-1:0]   tx_ts_insert;        // the TXF's stamp request, on a frame's first beat

    genvar gp;
    generate
        for (gp = 0; gp < NOUT; gp = gp + 1) begin : g_rx
            localparam [4:0] SRC = gp;
            wire [SW-1:0]        rxf_tdata;
            wire [SEG_BYTES-1:0] rxf_tkeep;
            wire                 rxf_tvalid, rxf_tready, rxf_tlast;
            wire [`FP_RXU_W-1:0]    rxf_tuser;
            /* verilator lint_off PINCONNECTEMPTY */
            if (gp < PORTS) begin : g_port
                wire [7:0]  mac_tdata;
                wire        mac_tvalid, mac_tlast;
                wire [0:0]  mac_tuser, mac_tkeep;
                wire [63:0] mac_ts;
                wire        rx_clk = gmii_rx_clk[gp];
                wire [20:0] rx_8ns;
                // rx_rst: the RX domain's reset. It asserts at once and releases 2 RX clock edges
                // after port_rst, so it stays high while the RX clock is stopped. The far sides
                // of the crossings out of the RX domain (fp_node_rxf's clk side, the MAC's pause
                // crossing into its TX) take it too, released in their own clocks: they leave
                // reset only after the RX side has really been reset, even if the PHY's RX clock
                // stopped during port_rst (fp_axis_async_fifo's reset rule).
                /* verilator lint_off SYNCASYNCNET */
                wire        rx_rst;
                /* verilator lint_on SYNCASYNCNET */
                wire        rxf_rst, mac_tx_rst;
                fp_sync_reset #(.STAGES(2)) u_rx_rst (.clk(rx_clk), .rst_in(port_rst), .rst_out(rx_rst));
                fp_sync_reset #(.STAGES(2)) u_rxf_rst (.clk(clk), .rst_in(rst || rx_rst), .rst_out(rxf_rst));
                fp_sync_reset #(.STAGES(2)) u_tx_rst (.clk(port_clk), .rst_in(port_rst || rx_rst),
                                                   .rst_out(mac_tx_rst));
                fp_sync_gray #(.WIDTH(21), .STAGES(2)) u_rx_time (
                    .src_clk(port_clk), .src_rst(port_rst), .src_count(now_8ns),
                    .dst_clk(rx_clk), .dst_rst(rx_rst), .dst_count(rx_8ns)
                );
                wire [20:0] rx_8ns_now = rx_8ns + RX_TIME_LAG;
                wire [63:0] rx_now = {24'd0, rx_8ns_now, 19'd0};
                /* verilator lint_off UNUSEDSIGNAL */
                wire [31:0] mac_ts_bad;     // only its low bit: a toggle per bad offset
                /* verilator lint_on UNUSEDSIGNAL */
                fp_eth_mac_1g #(.RX_INPUT_REG(RX_IN_REG)) u_mac (
                    .rx_clk(rx_clk), .rx_rst(rx_rst), .rx_clk_en(1'b1),
                    .tx_clk(port_clk), .tx_rst(mac_tx_rst), .tx_clk_en(1'b1), .mii_select(1'b0),
                    .gmii_rxd(gmii_rxd[gp*8 +: 8]), .gmii_rx_dv(gmii_rx_dv[gp]),
                    .gmii_rx_er(gmii_rx_er[gp]),
                    .gmii_txd(gmii_txd[gp*8 +: 8]), .gmii_tx_en(gmii_tx_en[gp]),
                    .gmii_tx_er(gmii_tx_er[gp]),
                    .rx_ts_now(rx_now), .tx_ts_now(tx_now),
                    .m_axis_tdata(mac_tdata), .m_axis_tkeep(mac_tkeep), .m_axis_tvalid(mac_tvalid),
                    .m_axis_tlast(mac_tlast), .m_axis_tuser(mac_tuser), .m_axis_ts(mac_ts),
                    .s_axis_tdata(tx_tdata[gp*8 +: 8]), .s_axis_tkeep(1'b1),
                    .s_axis_tvalid(tx_tvalid[gp]), .s_axis_tready(tx_tready[gp]),
                    .s_axis_tlast(tx_tlast[gp]), .s_axis_tuser(tx_tuser[gp]),
                    .s_axis_ts_insert(tx_ts_insert[gp]),
                    .s_axis_ts_mode(r_ts_mode[gp] && TX_TESTER_STAMP != 0),
                    .s_axis_ts_offset(r_ts_offset[gp*16 +: 16]),
                    .tx_ts(), .tx_ts_valid(), .rx_pause_valid(), .rx_pause_quanta(),
                    .cfg_rx_max_len(RX_MAX_LEN), .cfg_tx_ifg(8'd12),
                    .stat_rx_good(), .stat_rx_bad(), .stat_rx_bad_fcs(), .stat_rx_runt(),
                    .stat_rx_oversize(), .stat_rx_phy_err(), .stat_rx_bad_preamble(),
                    .stat_rx_pause(), .stat_rx_bytes(), .stat_tx_frames(), .stat_tx_bytes(),
                    .stat_tx_stomped(), .stat_tx_underrun(), .stat_tx_ts_bad_offset(mac_ts_bad),
                    .stat_tx_paused_cycles()
                );
                // TX timestamp counters: a stamped frame's first beat taken by the MAC flips
                // stamp_tgl_q, a bad offset flips the MAC counter's low bit; both cross into clk
                // as levels (frames are >= 84 byte times apart, far longer than the crossing)
                // and every change counts, registered before the 64-bit adders.
                reg         stamp_tgl_q;
                always @(posedge port_clk) begin
                    if (mac_tx_rst) begin
                        stamp_tgl_q <= 1'b0;
                    end else if (tx_tvalid[gp] && tx_tready[gp] && tx_ts_insert[gp]) begin
                        stamp_tgl_q <= !stamp_tgl_q;
                    end
                end
                wire [1:0]  ts_lvl;
                reg  [1:0]  ts_lvl_q, ts_inc_q;
                reg  [63:0] stamped_q, bad_offset_q;
                fp_sync_level #(.WIDTH(2), .STAGES(2)) u_ts_sync (
                    .clk(clk), .rst(rst), .in({mac_ts_bad[0], stamp_tgl_q}), .out(ts_lvl)
                );
                always @(posedge clk) begin
                    if (rst) begin
                        ts_lvl_q     <= 2'd0;
                        ts_inc_q     <= 2'd0;
                        stamped_q    <= 64'd0;
                        bad_offset_q <= 64'd0;
                    end else begin
                        ts_lvl_q     <= ts_lvl;
                        ts_inc_q     <= ts_lvl ^ ts_lvl_q;
                        stamped_q    <= stamped_q + {63'd0, ts_inc_q[0]};
                        bad_offset_q <= bad_offset_q + {63'd0, ts_inc_q[1]};
                    end
                end
                assign ts_stamped[gp*64 +: 64]    = stamped_q;
                assign ts_bad_offset[gp*64 +: 64] = bad_offset_q;
                fp_node_rxf #(.IN_BYTES(1), .SEG_BYTES(SEG_BYTES), .FIFO_SEGS(8), .MAX_BYTES(MAX_BYTES),
                           .ASYNC(1), .BACKPRESSURE(0)) u_rxf (
                    .in_clk(rx_clk), .in_rst(rx_rst), .clk(clk), .rst(rxf_rst),
                    .s_axis_tdata(mac_tdata), .s_axis_tkeep(mac_tkeep), .s_axis_tvalid(mac_tvalid),
                    .s_axis_tready(), .s_axis_tlast(mac_tlast), .s_axis_tuser(mac_tuser),
                    .s_axis_ts(mac_ts),
                    .m_axis_tdata(rxf_tdata), .m_axis_tkeep(rxf_tkeep), .m_axis_tvalid(rxf_tvalid),
                    .m_axis_tready(rxf_tready), .m_axis_tlast(rxf_tlast), .m_axis_tuser(rxf_tuser),
                    .ev_frame(), .ev_drop_bad(ev_rx_bad[gp]), .ev_trunc(ev_rx_trunc[gp]),
                    .ev_drop_overflow(ev_rx_overflow[gp])
                );
            end else begin : g_host
                localparam integer D = gp - PORTS;
                fp_node_rxf #(.IN_BYTES(8), .SEG_BYTES(SEG_BYTES), .FIFO_SEGS(8), .MAX_BYTES(MAX_BYTES),
                           .ASYNC(0), .BACKPRESSURE(1)) u_rxf (
                    .in_clk(clk), .in_rst(rst), .clk(clk), .rst(rst),
                    .s_axis_tdata(s_host_axis_tdata[D*64 +: 64]), .s_axis_tkeep(s_host_axis_tkeep[D*8 +: 8]),
                    .s_axis_tvalid(s_host_axis_tvalid[D]), .s_axis_tready(s_host_axis_tready[D]),
                    .s_axis_tlast(s_host_axis_tlast[D]), .s_axis_tuser(s_host_axis_tuser[D]),
                    .s_axis_ts(64'd0),
                    .m_axis_tdata(rxf_tdata), .m_axis_tkeep(rxf_tkeep), .m_axis_tvalid(rxf_tvalid),
                    .m_axis_tready(rxf_tready), .m_axis_tlast(rxf_tlast), .m_axis_tuser(rxf_tuser),
                    .ev_frame(), .ev_drop_bad(ev_rx_bad[gp]), .ev_trunc(ev_rx_trunc[gp]),
                    .ev_drop_overflow(ev_rx_overflow[gp])
                );
            end
            /* verilator lint_on PINCONNECTEMPTY */
            fp_node_hc #(.SEG_BYTES(SEG_BYTES)) u_hc (
                .clk(clk), .rst(rst), .cfg_src_port(SRC),
                .s_axis_tdata(rxf_tdata), .s_axis_tkeep(rxf_tkeep), .s_axis_tvalid(rxf_tvalid),
                .s_axis_tready(rxf_tready), .s_axis_tlast(rxf_tlast), .s_axis_tuser(rxf_tuser),
                .m_axis_tdata(hc_tdata[gp*SW +: SW]), .m_axis_tkeep(hc_tkeep[gp*SEG_BYTES +: SEG_BYTES]),
                .m_axis_tvalid(hc_tvalid[gp]), .m_axis_tready(hc_tready[gp]),
                .m_axis_tlast(hc_tlast[gp]), .m_axis_tuser(hc_tuser[gp*HW +: HW]),
                .ev_frame(ev_rx_frame[gp]), .ev_bytes(ev_rx_bytes[gp*16 +: 16])
            );
        end
    endgenerate

    generate
        if (PORTS < 16) begin : g_ts_unused
            assign ts_stamped[64*16-1:64*PORTS]    = {(64*(16-PORTS)){1'b0}};
            assign ts_bad_offset[64*16-1:64*PORTS] = {(64*(16-PORTS)){1'b0}};
        end
    endgenerate

    // ---- RXARB, RxProcDP, L2 table ---------------------------------------------------------
    wire [DPS*SW-1:0]        rp_tdata;
    wire [DPS*SEG_BYTES-1:0] rp_tkeep;
    wire [DPS-1:0]           rp_tvalid, rp_tready, rp_tlast;
    wire [DPS*HW-1:0]        rp_tuser;
    wire [DPS-1:0]           l2_req_valid, l2_req_ready, l2_req_learn, l2_resp_valid, l2_resp_hit;
    wire [DPS*12-1:0]        l2_req_vid;
    wire [DPS*48-1:0]        l2_req_da, l2_req_sa;
    wire [DPS*5-1:0]         l2_req_src_port, l2_resp_port;

    genvar gd;
    generate
        for (gd = 0; gd < DPS; gd = gd + 1) begin : g_dp
            localparam integer BASE = gd * PER;
            localparam integer NIN  = (gd == 0) ? PER : PORTS - PER;
            wire [SW-1:0]        arb_tdata;
            wire [SEG_BYTES-1:0] arb_tkeep;
            wire                 arb_tvalid, arb_tready, arb_tlast;
            wire [HW-1:0]        arb_tuser;
            fp_node_rxarb #(.SEG_BYTES(SEG_BYTES), .INPUTS(NIN), .HOST(1)) u_arb (
                .clk(clk), .rst(rst),
                .s_axis_tdata(hc_tdata[BASE*SW +: NIN*SW]),
                .s_axis_tkeep(hc_tkeep[BASE*SEG_BYTES +: NIN*SEG_BYTES]),
                .s_axis_tvalid(hc_tvalid[BASE +: NIN]), .s_axis_tready(hc_tready[BASE +: NIN]),
                .s_axis_tlast(hc_tlast[BASE +: NIN]), .s_axis_tuser(hc_tuser[BASE*HW +: NIN*HW]),
                .s_host_axis_tdata(hc_tdata[(PORTS+gd)*SW +: SW]),
                .s_host_axis_tkeep(hc_tkeep[(PORTS+gd)*SEG_BYTES +: SEG_BYTES]),
                .s_host_axis_tvalid(hc_tvalid[PORTS+gd]), .s_host_axis_tready(hc_tready[PORTS+gd]),
                .s_host_axis_tlast(hc_tlast[PORTS+gd]), .s_host_axis_tuser(hc_tuser[(PORTS+gd)*HW +: HW]),
                .m_axis_tdata(arb_tdata), .m_axis_tkeep(arb_tkeep), .m_axis_tvalid(arb_tvalid),
                .m_axis_tready(arb_tready), .m_axis_tlast(arb_tlast), .m_axis_tuser(arb_tuser)
            );
            fp_node_rxproc #(.PORTS(PORTS), .SEG_BYTES(SEG_BYTES), .DP_INDEX(gd), .VLANS(VLANS)) u_proc (
                .clk(clk), .rst(rst),
                .s_axis_tdata(arb_tdata), .s_axis_tkeep(arb_tkeep), .s_axis_tvalid(arb_tvalid),
                .s_axis_tready(arb_tready), .s_axis_tlast(arb_tlast), .s_axis_tuser(arb_tuser),
                .m_axis_tdata(rp_tdata[gd*SW +: SW]), .m_axis_tkeep(rp_tkeep[gd*SEG_BYTES +: SEG_BYTES]),
                .m_axis_tvalid(rp_tvalid[gd]), .m_axis_tready(rp_tready[gd]),
                .m_axis_tlast(rp_tlast[gd]), .m_axis_tuser(rp_tuser[gd*HW +: HW]),
                .l2_req_valid(l2_req_valid[gd]), .l2_req_ready(l2_req_ready[gd]),
                .l2_req_vid(l2_req_vid[gd*12 +: 12]), .l2_req_da(l2_req_da[gd*48 +: 48]),
                .l2_req_sa(l2_req_sa[gd*48 +: 48]), .l2_req_src_port(l2_req_src_port[gd*5 +: 5]),
                .l2_req_learn(l2_req_learn[gd]),
                .l2_resp_valid(l2_resp_valid[gd]), .l2_resp_hit(l2_resp_hit[gd]),
                .l2_resp_port(l2_resp_port[gd*5 +: 5]),
                .cfg_port_enable(cfg_enable), .cfg_port_trunk(cfg_trunk), .cfg_port_pvid(cfg_pvid),
                .cfg_port_pcp(cfg_pcp), .cfg_prio_pcp_min(r_prio_pcp_min),
                .cfg_vlan_valid(r_vlan_valid[VLANS-1:0]), .cfg_vlan_vid(r_vlan_vid[12*VLANS-1:0]),
                .cfg_vlan_members(cfg_vlan_members), .cfg_learn_enable(r_learn),
                .cfg_host_link_local(r_host_ll), .cfg_host_arp(r_host_arp),
                .cfg_host_icmpv6(r_host_icmpv6), .cfg_host_unknown(r_host_unknown),
                .cfg_flood_host(r_flood_host)
            );
        end
    endgenerate

    localparam BW = $clog2(BUCKETS);
    localparam WW = $clog2(WAYS);
    reg         l2_cmd_valid;
    wire        l2_cmd_ready, l2_rsp_valid, l2_rsp_entry_valid, l2_rsp_static, l2_rsp_hit;
    wire [1:0]  l2_rsp_status;
    wire [4:0]  l2_rsp_port;
    wire [11:0] l2_rsp_vid;
    wire [47:0] l2_rsp_mac;
    wire        ev_learn_new, ev_learn_full;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_node_l2_table #(.BUCKETS(BUCKETS), .WAYS(WAYS), .CLIENTS(DPS), .PORT_BITS(5)) u_l2 (
        .clk(clk), .rst(rst),
        .req_valid(l2_req_valid), .req_ready(l2_req_ready), .req_vid(l2_req_vid),
        .req_da(l2_req_da), .req_sa(l2_req_sa), .req_src_port(l2_req_src_port),
        .req_learn(l2_req_learn),
        .resp_valid(l2_resp_valid), .resp_hit(l2_resp_hit), .resp_port(l2_resp_port),
        .cfg_age_cycles(r_age_cycles),
        .host_cmd_valid(l2_cmd_valid), .host_cmd_ready(l2_cmd_ready), .host_cmd_op(r_l2_cmd_op),
        .host_cmd_bucket(r_l2_cmd_index[WW +: BW]), .host_cmd_way(r_l2_cmd_index[WW-1:0]),
        .host_cmd_entry_valid(r_l2_entry_valid), .host_cmd_static(r_l2_entry_static),
        .host_cmd_port(r_l2_entry_port), .host_cmd_vid(r_l2_key_hi[27:16]),
        .host_cmd_mac({r_l2_key_hi[15:0], r_l2_key_lo}),
        .host_rsp_valid(l2_rsp_valid), .host_rsp_status(l2_rsp_status), .host_rsp_bucket(),
        .host_rsp_way(), .host_rsp_entry_valid(l2_rsp_entry_valid), .host_rsp_static(l2_rsp_static),
        .host_rsp_hit(l2_rsp_hit), .host_rsp_port(l2_rsp_port), .host_rsp_vid(l2_rsp_vid),
        .host_rsp_mac(l2_rsp_mac),
        .ev_learn_new(ev_learn_new), .ev_learn_move(), .ev_learn_full(ev_learn_full)
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
            l2_learn_full <= l2_learn_full + {63'd0, ev_learn_full};
        end
    end

    // ---- shared segment buffer -------------------------------------------------------------
    wire [DPS*SW-1:0]        bo_tdata;
    wire [DPS*SEG_BYTES-1:0] bo_tkeep;
    wire [DPS-1:0]           bo_tvalid, bo_tready, bo_tlast;
    wire [DPS*HW-1:0]        bo_tuser;
    wire [NOUT-1:0]          out_room;
    wire                     ev_drop;
    wire [3:0]               ev_drop_reason;
    wire [4:0]               ev_drop_port;
    wire [NOUT-1:0]          ev_drop_copy;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_node_buffer #(.PORTS(PORTS), .DATAPATHS(DPS), .SEG_BYTES(SEG_BYTES), .SEGMENTS(SEGMENTS),
                  .QUEUE_DEPTH(QUEUE_DEPTH), .MAX_BYTES(MAX_BYTES), .ROOM(BUF_ROOM)) u_buf (
        .clk(clk), .rst(rst),
        .s_axis_tdata(rp_tdata), .s_axis_tkeep(rp_tkeep), .s_axis_tvalid(rp_tvalid),
        .s_axis_tready(rp_tready), .s_axis_tlast(rp_tlast), .s_axis_tuser(rp_tuser),
        .m_axis_tdata(bo_tdata), .m_axis_tkeep(bo_tkeep), .m_axis_tvalid(bo_tvalid),
        .m_axis_tready(bo_tready), .m_axis_tlast(bo_tlast), .m_axis_tuser(bo_tuser),
        .out_room(out_room),
        .cfg_reserve(cfg_reserve), .cfg_port_limit(cfg_port_limit), .cfg_queue_limit(cfg_queue_limit),
        .init_done(),
        .ev_drop(ev_drop), .ev_drop_reason(ev_drop_reason), .ev_drop_port(ev_drop_port),
        .ev_drop_copy(ev_drop_copy),
        .stat_free(stat_free), .stat_used_hwm(stat_used_hwm), .stat_hwm_clear(r_hwm_clear),
        .stat_port_held(), .stat_queue_len(), .stat_busy()
    );
    /* verilator lint_on PINCONNECTEMPTY */

    // ---- transmit side ---------------------------------------------------------------------
    wire [NOUT-1:0]  ev_tx_underrun;
    wire [NOUT-1:0]  tx_seg_valid;      // a segment handed to output o's TX FIFO
    wire [NOUT-1:0]  tx_seg_last;
    wire [NOUT*7-1:0] tx_seg_bytes;
    wire [DPS-1:0]   ev_ht_drop;

    generate
        for (gd = 0; gd < DPS; gd = gd + 1) begin : g_tx
            localparam integer BASE = gd * PER;
            localparam integer NPT  = (gd == 0) ? PER : PORTS - PER;   // ports of this datapath
            localparam integer NO   = NPT + 1;                         // + the host port
            wire [SW-1:0]         rt_tdata;
            wire [SEG_BYTES-1:0]  rt_tkeep;
            wire                  rt_tvalid, rt_tready, rt_tlast;
            wire [HW-1:0]         rt_tuser;
            wire [NO*SW-1:0]        ht_tdata;
            wire [NO*SEG_BYTES-1:0] ht_tkeep;
            wire [NO-1:0]           ht_tvalid, ht_tready, ht_tlast;
            wire [NO*`FP_TXU_W-1:0]    ht_tuser;
            fp_node_route #(.PORTS(PORTS), .SEG_BYTES(SEG_BYTES)) u_route (
                .clk(clk), .rst(rst),
                .s_axis_tdata(bo_tdata[gd*SW +: SW]), .s_axis_tkeep(bo_tkeep[gd*SEG_BYTES +: SEG_BYTES]),
                .s_axis_tvalid(bo_tvalid[gd]), .s_axis_tready(bo_tready[gd]),
                .s_axis_tlast(bo_tlast[gd]), .s_axis_tuser(bo_tuser[gd*HW +: HW]),
                .m_axis_tdata(rt_tdata), .m_axis_tkeep(rt_tkeep), .m_axis_tvalid(rt_tvalid),
                .m_axis_tready(rt_tready), .m_axis_tlast(rt_tlast), .m_axis_tuser(rt_tuser),
                .cfg_port_trunk(cfg_trunk), .cfg_port_pvid(cfg_pvid)
            );
            fp_node_ht #(.PORTS(PORTS), .SEG_BYTES(SEG_BYTES), .PORT_BASE(BASE), .OUTPUTS(NO),
                      .DP_INDEX(gd)) u_ht (
                .clk(clk), .rst(rst),
                .s_axis_tdata(rt_tdata), .s_axis_tkeep(rt_tkeep), .s_axis_tvalid(rt_tvalid),
                .s_axis_tready(rt_tready), .s_axis_tlast(rt_tlast), .s_axis_tuser(rt_tuser),
                .m_axis_tdata(ht_tdata), .m_axis_tkeep(ht_tkeep), .m_axis_tvalid(ht_tvalid),
                .m_axis_tready(ht_tready), .m_axis_tlast(ht_tlast), .m_axis_tuser(ht_tuser),
                .ev_drop(ev_ht_drop[gd])
            );
            genvar go;
            for (go = 0; go < NO; go = go + 1) begin : g_out
                localparam integer O = (go < NPT) ? BASE + go : PORTS + gd;   // output number
                assign tx_seg_valid[O] = ht_tvalid[go] & ht_tready[go];
                assign tx_seg_last[O]  = ht_tlast[go];
                assign tx_seg_bytes[O*7 +: 7] = ht_tuser[go*`FP_TXU_W + `FP_TXU_BYTES_LSB +: `FP_TXU_BYTES_W];
                /* verilator lint_off PINCONNECTEMPTY */
                if (go < NPT) begin : g_port
                    fp_node_txf #(.SEG_BYTES(SEG_BYTES), .OUT_BYTES(1), .ASYNC(1), .FIFO_SEGS(TX_SEGS),
                               .ROOM(TX_ROOM)) u_txf (
                        .clk(clk), .rst(rst),
                        .s_axis_tdata(ht_tdata[go*SW +: SW]), .s_axis_tkeep(ht_tkeep[go*SEG_BYTES +: SEG_BYTES]),
                        .s_axis_tvalid(ht_tvalid[go]), .s_axis_tready(ht_tready[go]),
                        .s_axis_tlast(ht_tlast[go]), .s_axis_tuser(ht_tuser[go*`FP_TXU_W +: `FP_TXU_W]),
                        .out_room(out_room[O]), .cfg_store_forward(r_store_forward[O]),
                        .cfg_release_ns(r_release_ns[23:0]),
                        .cfg_ts_enable(r_ts_enable[O]), .cfg_ts_by_type(r_ts_by_type[O]),
                        .cfg_ts_ethertype(r_ts_ethertype[O*16 +: 16]),
                        .ev_frame(), .ev_underrun(ev_tx_underrun[O]),
                        .out_clk(port_clk), .out_rst(port_rst), .now_ns(now[39:16]),
                        .m_axis_tdata(tx_tdata[O*8 +: 8]), .m_axis_tkeep(),
                        .m_axis_tvalid(tx_tvalid[O]), .m_axis_tready(tx_tready[O]),
                        .m_axis_tlast(tx_tlast[O]), .m_axis_tuser(tx_tuser[O]),
                        .m_axis_ts_insert(tx_ts_insert[O])
                    );
                end else begin : g_host
                    fp_node_txf #(.SEG_BYTES(SEG_BYTES), .OUT_BYTES(8), .ASYNC(0), .FIFO_SEGS(TX_SEGS),
                               .ROOM(TX_ROOM)) u_txf (
                        .clk(clk), .rst(rst),
                        .s_axis_tdata(ht_tdata[go*SW +: SW]), .s_axis_tkeep(ht_tkeep[go*SEG_BYTES +: SEG_BYTES]),
                        .s_axis_tvalid(ht_tvalid[go]), .s_axis_tready(ht_tready[go]),
                        .s_axis_tlast(ht_tlast[go]), .s_axis_tuser(ht_tuser[go*`FP_TXU_W +: `FP_TXU_W]),
                        .out_room(out_room[O]), .cfg_store_forward(1'b1),
                        .cfg_release_ns(24'd0),
                        .cfg_ts_enable(1'b0), .cfg_ts_by_type(1'b0), .cfg_ts_ethertype(16'd0),
                        .ev_frame(), .ev_underrun(ev_tx_underrun[O]),
                        .out_clk(clk), .out_rst(rst), .now_ns(24'd0),
                        .m_axis_tdata(m_host_axis_tdata[gd*64 +: 64]), .m_axis_tkeep(m_host_axis_tkeep[gd*8 +: 8]),
                        .m_axis_tvalid(m_host_axis_tvalid[gd]), .m_axis_tready(m_host_axis_tready[gd]),
                        .m_axis_tlast(m_host_axis_tlast[gd]), .m_axis_tuser(m_host_axis_tuser[gd]),
                        .m_axis_ts_insert()
                    );
                end
                /* verilator lint_on PINCONNECTEMPTY */
            end
        end
    endgenerate

    // ---- counters (clk) --------------------------------------------------------------------
    // A bad frame of several segments is not dropped (its first segments are already on their
    // way): it leaves stomped, and is counted here as it leaves HC (bad on its last segment;
    // truncated frames are counted as oversize by the RXF instead).
    // Counted a cycle late (registered here: the handshake and the event sums stay out of the
    // 64-bit counters' cycle); the registers read the same totals once traffic stops.
    wire [NOUT-1:0] ev_rx_bad_fwd_d;
    generate
        for (gp = 0; gp < NOUT; gp = gp + 1) begin : g_badfwd
            assign ev_rx_bad_fwd_d[gp] = hc_tvalid[gp] & hc_tready[gp] & hc_tlast[gp]
                                       & hc_tuser[gp*HW + `FP_NOC_BAD_LSB] & ~hc_tuser[gp*HW + `FP_NOC_TRUNC_LSB];
        end
    endgenerate
    reg  [NOUT-1:0] ev_rx_bad_fwd;

    // one loop variable per process: a variable written by two processes has two drivers
    integer i, e;
    reg [7:0] n_bad_d, n_overflow_d, n_trunc_d, n_underrun_d, n_copy_d;
    reg [7:0] n_bad, n_overflow, n_trunc, n_underrun, n_copy;
    always @* begin
        n_bad_d = 8'd0; n_overflow_d = 8'd0; n_trunc_d = 8'd0; n_underrun_d = 8'd0; n_copy_d = 8'd0;
        for (e = 0; e < NOUT; e = e + 1) begin
            n_bad_d      = n_bad_d      + {7'd0, ev_rx_bad[e]} + {7'd0, ev_rx_bad_fwd[e]};
            n_overflow_d = n_overflow_d + {7'd0, ev_rx_overflow[e]};
            n_trunc_d    = n_trunc_d    + {7'd0, ev_rx_trunc[e]};
            n_underrun_d = n_underrun_d + {7'd0, ev_tx_underrun[e]};
            n_copy_d     = n_copy_d     + {7'd0, ev_drop_copy[e]};
        end
    end
    always @(posedge clk) begin
        ev_rx_bad_fwd <= rst ? {NOUT{1'b0}} : ev_rx_bad_fwd_d;
        {n_bad, n_overflow, n_trunc, n_underrun, n_copy} <=
            rst ? 40'd0 : {n_bad_d, n_overflow_d, n_trunc_d, n_underrun_d, n_copy_d};
    end

    // Each counter's increment is formed and registered first (a few bits: the event sums and
    // the drop reason decode), then added to the 64-bit counter the cycle after: one carry chain
    // per counter per cycle, with a small addend (several 64-bit adders in series were the
    // flattened node's longest path). So the counters lag the events by up to three cycles; the
    // registers read the same totals once traffic stops.
    reg  [8:0]  inc_drop [0:15];                 // per reason
    reg  [2:0]  inc_rx_drops [0:PORTS-1];
    reg  [1:0]  inc_tx_drops [0:PORTS-1];
    reg  [PORTS-1:0] inc_rx_frame, inc_tx_frame, inc_tx_seg;
    reg  [15:0] inc_rx_bytes [0:PORTS-1];
    reg  [6:0]  inc_tx_bytes [0:PORTS-1];
    // a buffer drop counted in its reason's row (queue_full, rx_overflow and oversize count their
    // events through their own sums instead), plus each row's sum from the rest of the node
    wire        drop_gen = ev_drop && ev_drop_reason != `FP_NOC_REASON_QUEUE_FULL
                           && ev_drop_reason != `FP_NOC_REASON_RX_OVERFLOW
                           && ev_drop_reason != `FP_NOC_REASON_OVERSIZE;
    reg  [8:0]  drop_sum [0:15];
    always @* begin
        for (i = 0; i < 16; i = i + 1) begin
            drop_sum[i] = 9'd0;
        end
        drop_sum[`FP_NOC_REASON_BAD_FRAME]   = {1'b0, n_bad};
        drop_sum[`FP_NOC_REASON_RX_OVERFLOW] = {1'b0, n_overflow};
        drop_sum[`FP_NOC_REASON_OVERSIZE]    = {1'b0, n_trunc};
        drop_sum[`FP_NOC_REASON_QUEUE_FULL]  = {1'b0, n_copy};
        drop_sum[`FP_NOC_REASON_UNDERRUN]    = {1'b0, n_underrun};
        drop_sum[`FP_NOC_REASON_INTERNAL]    = {8'd0, ev_ht_drop[0]} + {8'd0, ev_ht_drop[1]};
    end
    always @(posedge clk) begin
        for (i = 0; i < 16; i = i + 1) begin
            inc_drop[i] <= drop_sum[i] + {8'd0, drop_gen && ev_drop_reason == i[3:0]};
        end
        for (i = 0; i < PORTS; i = i + 1) begin
            inc_rx_drops[i] <= {2'd0, ev_rx_bad[i]} + {2'd0, ev_rx_bad_fwd[i]} + {2'd0, ev_rx_overflow[i]}
                + {2'd0, ev_drop && ev_drop_port == i[4:0] && ev_drop_reason != `FP_NOC_REASON_QUEUE_FULL};
            inc_tx_drops[i] <= {1'b0, ev_drop_copy[i]} + {1'b0, ev_tx_underrun[i]};
            inc_rx_frame[i] <= ev_rx_frame[i];
            inc_rx_bytes[i] <= ev_rx_bytes[i*16 +: 16];
            inc_tx_seg[i]   <= tx_seg_valid[i];
            inc_tx_frame[i] <= tx_seg_valid[i] && tx_seg_last[i];
            inc_tx_bytes[i] <= tx_seg_bytes[i*7 +: 7];
        end
        if (rst) begin
            for (i = 0; i < 16; i = i + 1) begin
                inc_drop[i] <= 9'd0;
            end
            for (i = 0; i < PORTS; i = i + 1) begin
                inc_rx_drops[i] <= 3'd0;
                inc_tx_drops[i] <= 2'd0;
                inc_rx_bytes[i] <= 16'd0;
            end
            inc_rx_frame <= {PORTS{1'b0}};
            inc_tx_seg   <= {PORTS{1'b0}};
            inc_tx_frame <= {PORTS{1'b0}};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            drops_count <= {64*16{1'b0}};
            port_rx_frames <= {64*16{1'b0}};
            port_rx_bytes  <= {64*16{1'b0}};
            port_tx_frames <= {64*16{1'b0}};
            port_tx_bytes  <= {64*16{1'b0}};
            port_rx_drops  <= {64*16{1'b0}};
            port_tx_drops  <= {64*16{1'b0}};
        end else begin
            // drops by reason: frames (copies for queue_full)
            for (i = 0; i < 16; i = i + 1) begin
                drops_count[i*64 +: 64] <= drops_count[i*64 +: 64] + {55'd0, inc_drop[i]};
            end
            for (i = 0; i < PORTS; i = i + 1) begin
                if (inc_rx_frame[i]) begin
                    port_rx_frames[i*64 +: 64] <= port_rx_frames[i*64 +: 64] + 64'd1;
                end
                port_rx_bytes[i*64 +: 64] <= port_rx_bytes[i*64 +: 64] + {48'd0, inc_rx_bytes[i]};
                port_rx_drops[i*64 +: 64] <= port_rx_drops[i*64 +: 64] + {61'd0, inc_rx_drops[i]};
                if (inc_tx_seg[i]) begin
                    port_tx_bytes[i*64 +: 64] <= port_tx_bytes[i*64 +: 64] + {57'd0, inc_tx_bytes[i]};
                end
                if (inc_tx_frame[i]) begin
                    port_tx_frames[i*64 +: 64] <= port_tx_frames[i*64 +: 64] + 64'd1;
                end
                port_tx_drops[i*64 +: 64] <= port_tx_drops[i*64 +: 64] + {62'd0, inc_tx_drops[i]};
            end
        end
    end

endmodule

`default_nettype wire
