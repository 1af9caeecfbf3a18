// fp_node_wdec: the word-serial node's decision stage (issue #18): per frame, from the key
// descriptor its RX port (fp_node_wrx) gives after byte 15 and the classification descriptor
// after it, the VLAN checks, the L2 lookup and learn (fp_node_wl2), the set of output ports,
// each copy's VLAN edit and TX timestamp request, one descriptor per copy to the TX ports
// (fp_node_wtx) and the frame's reference count to the buffer (fp_node_wbuf).
//
// Lanes 0..PORTS-1 are the switch ports, lanes PORTS..PORTS+HOSTS-1 the host ports (their frames
// come from the host); outputs are numbered the same way. The rules are fp_node_rxproc's
// (node/l2.py classify() is the reference), decided from the first 16 bytes and the
// classification (EtherType after one tag, IP protocol):
//   vid / pcp: the tag's (s_key_tagged: bytes 12-13 are a TPID) or, untagged, the port's
//     cfg_port_pvid / cfg_port_pcp (a host lane: VID 1, PCP 0). members = the OR of the member
//     sets of every valid VLAN entry with that VID, ANDed with cfg_port_enable.
//   first match wins: port disabled (PORT_DISABLED; not a host lane); the frame ended by byte 15
//     bad or shorter than 16 bytes (s_key_bad | s_key_short: the MAC marks every frame under 64
//     bytes bad; BAD_FRAME); not a host lane, and tagged on an access port or the port not a
//     member of the VID (VLAN); DA 01:80:C2:00:00:0x (RESERVED_MAC): to the host when
//     cfg_host_link_local and not from a host lane, else dropped; not a host lane,
//     cfg_host_unknown and an EtherType other than IPv4 / IPv6 / ARP / 0x8100: to the host only.
//   learn {vid, SA} -> port when cfg_learn_enable, not a host lane, the frame passed the first
//     three checks and SA is unicast. The lookup {vid, DA} sees the table before the learn.
//   dst: DA multicast or unknown: members minus the source port (flooding), and the host when
//     cfg_flood_host; known on a port p < PORTS: {p} when p is a member and not the source; known
//     on a port >= PORTS (a host entry): the host. Not a host lane: also the host for ARP
//     (cfg_host_arp) and ICMPv6 (cfg_host_icmpv6). Frames from a host lane never go to a host.
//     No destination -> NO_DEST. dst never holds the source port. "The host" is host output
//     PORTS + src / ceil(PORTS / HOSTS) (HOSTS = 0: no host copies, those frames are dropped
//     with their reason).
//   Each port copy's VLAN edit (fp_node_wtx vlan_op): output o wants a tag when cfg_port_trunk[o]
//     and vid != cfg_port_pvid[o]; a tagged frame that must leave untagged is stripped (1), an
//     untagged frame that must leave tagged gets 0x8100 + {pcp, 0, vid} inserted (2), else none.
//     Host copies leave unchanged. ts_insert[o]: cfg_ts_enable[o] and (not cfg_ts_by_type[o] or
//     the EtherType is cfg_ts_ethertype[o]).
// A frame's key is paired with its classification and its buffer outcome (buf_start: its head;
//   buf_drop: admission refused it) from the same source, in order: the push waits for all three.
//
// Structure. Per lane: K1 (the key registered, vid and pcp chosen), K2 (VLAN entries compared,
//   the buckets of {vid, DA} and {vid, SA} computed, the request registered and held until
//   granted), then one lookup per cycle through fp_node_wprio (the switch ports before the host
//   lanes) into LK0 and the table (fp_node_wl2: the lookup 5 cycles later; a granted request that
//   learns also goes to the table's learn queue through LN0), then D (the port decision, from the
//   response, in the lane). A shared push stage (fp_node_wprio again): X1 takes one decided frame
//   with its classification and outcome per cycle; X2 registers the host decision and one
//   descriptor per copy (m_desc_valid[o] is an offer for that one cycle: a copy whose TX port is
//   not ready then is dropped, ev_tx_drop[o]); X3 gives the buffer its reference (m_ref_*: the
//   copies accepted) one cycle after the descriptors, so every release comes after its ref.
//   Learning is the table engine's, after the lookup: a frame's SA is visible to lookups about 9
//   cycles after its own lookup (fp_node_wl2), where node/l2.py's model applies it at once.
//
// Latency (cycles, key valid in cycle k with K1 empty; classification and outcome in): key
//   accepted in k -> K1 in k + 1 -> request in k + 2, granted in g >= k + 2 (a port lane waits
//   for at most PORTS - 1 other ports' grants) -> LK0 in g + 1 -> response in g + 6 (D
//   registered at its end) -> X1 in g + 8 -> m_desc_valid in g + 9 -> m_ref in g + 10:
//   m_desc_valid 11 cycles after the key is accepted at the earliest. The push stage adds at most PORTS - 1 cycles for
//   a port lane (one push per cycle, ports first); a host lane waits while ports ask.
// Throughput: one lookup and one push per cycle in all; a lane takes a key every 9 cycles at
//   most (K2 holds it until its response); the table learns one SA per 8 cycles.
// Bad input: a buffer outcome with no key waiting is kept (2 per lane; a third before the lane
//   uses one is counted in ev_outcome_err and ignored). Frames are never lost without an event:
//   every pushed frame gives ev_frame (ev_frame_discard with its reason when no copy was made for
//   it, with reason BUFFER_FULL when the buffer had refused it), and each refused copy an
//   ev_tx_drop. A tagged frame of 16 or 17 bytes (a runt: the MAC marks it bad at its end) is
//   not seen as short here: it leaves stomped, where node/l2.py's classify() drops it.
// Parameters: PORTS 1..16, HOSTS 0..2, PORTS + HOSTS >= 2, SEGMENTS 64..65536 (power of 2),
//   VLANS 1..16, BUCKETS / WAYS as fp_node_wl2.
`default_nettype none
`include "fp_noc_header.vh"

module fp_node_wdec #(
    parameter PORTS    = 4,
    parameter HOSTS    = 2,
    parameter SEGMENTS = 1024,
    parameter VLANS    = 16,
    parameter BUCKETS  = 128,
    parameter WAYS     = 8,
    // derived, do not set
    parameter LANES = PORTS + HOSTS,
    parameter SW = $clog2(SEGMENTS),
    parameter LW = (LANES > 1) ? $clog2(LANES) : 1,
    parameter CW = $clog2(LANES + 1)
) (
    input  wire                     clk,
    input  wire                     rst,

    // key descriptors (fp_node_wrx m_key_*), lane l: field l
    input  wire [LANES-1:0]         s_key_valid,
    output wire [LANES-1:0]         s_key_ready,
    input  wire [LANES*48-1:0]      s_key_da,
    input  wire [LANES*48-1:0]      s_key_sa,
    input  wire [LANES-1:0]         s_key_tagged,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [LANES*16-1:0]      s_key_tci,          // the DEI bit (12) is not used
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [LANES*24-1:0]      s_key_ts,
    input  wire [LANES-1:0]         s_key_short,
    input  wire [LANES-1:0]         s_key_bad,

    // classification descriptors (fp_node_wrx m_cls_*)
    input  wire [LANES-1:0]         s_cls_valid,
    output wire [LANES-1:0]         s_cls_ready,
    input  wire [LANES*16-1:0]      s_cls_ethertype,
    input  wire [LANES-1:0]         s_cls_ip_valid,
    input  wire [LANES*8-1:0]       s_cls_ip_proto,

    // the buffer's outcome of each frame (fp_node_wbuf m_start_*, ev_drop*)
    input  wire                     buf_start,
    input  wire [LW-1:0]            buf_start_src,
    input  wire [SW-1:0]            buf_start_head,
    input  wire                     buf_drop,
    input  wire [LW-1:0]            buf_drop_src,

    // the frame's reference count (fp_node_wbuf s_ref_*)
    output reg                      m_ref_valid,
    output reg  [SW-1:0]            m_ref_head,
    output reg  [CW-1:0]            m_ref_count,

    // one descriptor per copy (fp_node_wtx s_desc_*), output o: field o; head/ts/tci shared
    output reg  [LANES-1:0]         m_desc_valid,
    input  wire [LANES-1:0]         m_desc_ready,
    output reg  [SW-1:0]            m_desc_head,
    output reg  [23:0]              m_desc_ts,
    output reg  [LANES*2-1:0]       m_desc_vlan_op,
    output reg  [15:0]              m_desc_tci,
    output reg  [LANES-1:0]         m_desc_ts_insert,

    input  wire [PORTS-1:0]         cfg_port_enable,
    input  wire [PORTS-1:0]         cfg_port_trunk,
    input  wire [12*PORTS-1:0]      cfg_port_pvid,
    input  wire [3*PORTS-1:0]       cfg_port_pcp,
    input  wire [VLANS-1:0]         cfg_vlan_valid,
    input  wire [12*VLANS-1:0]      cfg_vlan_vid,
    input  wire [PORTS*VLANS-1:0]   cfg_vlan_members,   // entry i: [i*PORTS +: PORTS]
    input  wire                     cfg_learn_enable,
    input  wire                     cfg_host_link_local,
    input  wire                     cfg_host_arp,
    input  wire                     cfg_host_icmpv6,
    input  wire                     cfg_host_unknown,
    input  wire                     cfg_flood_host,
    input  wire [PORTS-1:0]         cfg_ts_enable,
    input  wire [PORTS-1:0]         cfg_ts_by_type,
    input  wire [16*PORTS-1:0]      cfg_ts_ethertype,
    input  wire [31:0]              cfg_age_cycles,

    // the table's host side (fp_node_wl2 host_cmd_* / host_rsp_*)
    input  wire                     host_cmd_valid,
    output wire                     host_cmd_ready,
    input  wire [2:0]               host_cmd_op,
    input  wire [$clog2(BUCKETS)-1:0] host_cmd_bucket,
    input  wire [$clog2(WAYS)-1:0]  host_cmd_way,
    input  wire                     host_cmd_entry_valid,
    input  wire                     host_cmd_static,
    input  wire [4:0]               host_cmd_port,
    input  wire [11:0]              host_cmd_vid,
    input  wire [47:0]              host_cmd_mac,
    output wire                     host_rsp_valid,
    output wire [1:0]               host_rsp_status,
    output wire                     host_rsp_entry_valid,
    output wire                     host_rsp_static,
    output wire                     host_rsp_hit,
    output wire [4:0]               host_rsp_port,
    output wire [11:0]              host_rsp_vid,
    output wire [47:0]              host_rsp_mac,

    // events (registered single-cycle pulses)
    output reg                      ev_frame,           // a frame decided (with its outcome)
    output reg  [LW-1:0]            ev_frame_src,
    output reg                      ev_frame_discard,   // ... and no copy was made for it
    output reg  [`FP_NOC_REASON_W-1:0] ev_frame_reason, // why (BUFFER_FULL: the buffer refused it)
    output reg  [LANES-1:0]         ev_tx_drop,         // a copy its output could not take
    output reg                      ev_outcome_err,
    output wire                     ev_learn_new,
    output wire                     ev_learn_move,
    output wire                     ev_learn_full,
    output wire                     ev_learn_drop       // a learn the table's queue could not take
);

    `include "fp_node_l2_hash.vh"

    generate
        if (PORTS < 1 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_1_to_16 u_error();
        end
        if (HOSTS < 0 || HOSTS > 2) begin : g_bad_hosts
            PARAMETER_ERROR_HOSTS_must_be_0_to_2 u_error();
        end
        if (SEGMENTS < 64 || SEGMENTS > 65536 || (SEGMENTS & (SEGMENTS - 1)) != 0) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_a_power_of_2_from_64_to_65536 u_error();
        end
        if (VLANS < 1 || VLANS > 16) begin : g_bad_vlans
            PARAMETER_ERROR_VLANS_must_be_1_to_16 u_error();
        end
        if (PORTS + HOSTS < 2) begin : g_bad_one_lane
            PARAMETER_ERROR_PORTS_plus_HOSTS_must_be_at_least_2 u_error();
        end
        if (LANES != PORTS + HOSTS) begin : g_bad_lanes
            PARAMETER_ERROR_LANES_is_derived_do_not_set_it u_error();
        end
    endgenerate

    localparam PER_DP  = (HOSTS > 0) ? (PORTS + HOSTS - 1) / HOSTS : 1;  // ports per host output
    localparam RW      = `FP_NOC_REASON_W;
    localparam [RW-1:0] R_NONE = `FP_NOC_REASON_NONE, R_BAD = `FP_NOC_REASON_BAD_FRAME,
                        R_DIS = `FP_NOC_REASON_PORT_DISABLED, R_VLAN = `FP_NOC_REASON_VLAN,
                        R_NODEST = `FP_NOC_REASON_NO_DEST, R_RES = `FP_NOC_REASON_RESERVED_MAC,
                        R_BUF = `FP_NOC_REASON_BUFFER_FULL;

    // ---- the table ----------------------------------------------------------------------------
    // One lookup port, taken round robin by the lanes' requests through a register (LK0); each
    // granted request with a learn also goes to the table's learn queue (through LN0).
    localparam HB = $clog2(BUCKETS);
    reg              lk0_v, ln0_v;
    reg  [HB-1:0]    lk0_bucket, ln0_bucket;
    reg  [11:0]      lk0_vid, ln0_vid;
    reg  [47:0]      lk0_da, ln0_sa;
    reg  [4:0]       ln0_port;
    wire             t_lk_hit;
    wire [4:0]       t_lk_port;
    /* verilator lint_off UNUSEDSIGNAL */
    wire             t_lk_valid;       // each lane knows when its response is due
    wire             t_init_done;      // the table misses every lookup until then
    wire [HB-1:0]    t_host_bucket;    // the host reads its index from its command
    wire [$clog2(WAYS)-1:0] t_host_way;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_node_wl2 #(.BUCKETS(BUCKETS), .WAYS(WAYS), .PORT_BITS(5), .LEARN_DEPTH(16)) u_l2 (
        .clk(clk), .rst(rst),
        .s_lk_valid(lk0_v), .s_lk_bucket(lk0_bucket), .s_lk_vid(lk0_vid), .s_lk_mac(lk0_da),
        .m_lk_valid(t_lk_valid), .m_lk_hit(t_lk_hit), .m_lk_port(t_lk_port),
        .s_ln_valid(ln0_v), .s_ln_bucket(ln0_bucket), .s_ln_vid(ln0_vid), .s_ln_mac(ln0_sa),
        .s_ln_port(ln0_port),
        .cfg_age_cycles(cfg_age_cycles),
        .host_cmd_valid(host_cmd_valid), .host_cmd_ready(host_cmd_ready), .host_cmd_op(host_cmd_op),
        .host_cmd_bucket(host_cmd_bucket), .host_cmd_way(host_cmd_way),
        .host_cmd_entry_valid(host_cmd_entry_valid), .host_cmd_static(host_cmd_static),
        .host_cmd_port(host_cmd_port), .host_cmd_vid(host_cmd_vid), .host_cmd_mac(host_cmd_mac),
        .host_rsp_valid(host_rsp_valid), .host_rsp_status(host_rsp_status),
        .host_rsp_bucket(t_host_bucket), .host_rsp_way(t_host_way),
        .host_rsp_entry_valid(host_rsp_entry_valid), .host_rsp_static(host_rsp_static),
        .host_rsp_hit(host_rsp_hit), .host_rsp_port(host_rsp_port), .host_rsp_vid(host_rsp_vid),
        .host_rsp_mac(host_rsp_mac),
        .ev_learn_new(ev_learn_new), .ev_learn_move(ev_learn_move), .ev_learn_full(ev_learn_full),
        .ev_learn_drop(ev_learn_drop), .init_done(t_init_done)
    );

    // ---- lanes ----------------------------------------------------------------------------------
    // what D holds for the push stage: {flood, hosthit, ll, reason, tagged, pcp, vid, ts, dst}
    localparam DW = 3 + RW + 1 + 3 + 12 + 24 + PORTS;
    wire [LANES-1:0]        l_req;          // K2 holds a request not yet granted
    wire [LANES-1:0]        l_grant;        // ... granted in this cycle
    wire [LANES*12-1:0]     l_vid;
    wire [LANES*48-1:0]     l_da;
    wire [LANES*48-1:0]     l_sa;
    wire [LANES*HB-1:0]     l_bda;          // the buckets of {vid, DA} and {vid, SA}
    wire [LANES*HB-1:0]     l_bsa;
    wire [LANES-1:0]        l_learn;
    wire [LANES-1:0]        l_push;         // D decided, the classification and the outcome in
    wire [LANES-1:0]        l_pop;          // taken by the push stage in this cycle
    wire [LANES*DW-1:0]     l_d;
    wire [LANES*SW-1:0]     l_head;
    wire [LANES-1:0]        l_bdrop;
    wire [LANES-1:0]        l_oerr;

    genvar gp, gv;
    generate
        for (gp = 0; gp < LANES; gp = gp + 1) begin : g_lane
            localparam         HOST = gp >= PORTS;
            localparam integer PI = HOST ? 0 : gp;         // the port's configuration index
            localparam [PORTS-1:0] SRC = HOST ? {PORTS{1'b0}} : ({{(PORTS-1){1'b0}}, 1'b1} << PI);

            // K1: the key, vid and pcp
            reg          k1_v, k1_tagged, k1_badfirst;
            reg [47:0]   k1_da, k1_sa;
            reg [11:0]   k1_vid;
            reg [2:0]    k1_pcp;
            reg [23:0]   k1_ts;
            // K2: VLAN members, the request
            reg          k2_v, k2_req, k2_learn, k2_tagged, k2_mcast, k2_ll;
            reg [47:0]   k2_da, k2_sa;
            reg [11:0]   k2_vid;
            reg [2:0]    k2_pcp;
            reg [23:0]   k2_ts;
            reg [PORTS-1:0] k2_members;
            reg [RW-1:0] k2_reason;        // a discard decided before the lookup (NONE: none)
            reg [HB-1:0] k2_bda, k2_bsa;
            reg [5:0]    age;              // one-hot: the response is due when age[5]
            // D: the port decision
            reg          d_v;
            reg [DW-1:0] d;
            // the buffer's outcomes: a 2-entry queue
            reg          o0_v, o1_v, o0_drop, o1_drop;
            reg [SW-1:0] o0_head, o1_head;
            reg          oerr;

            wire key_take = s_key_valid[gp] && !k1_v;
            wire k2_take  = k1_v && !k2_v;
            assign s_key_ready[gp] = !k1_v;

            // VLAN entries, compared against K1's vid
            wire [VLANS-1:0] vhit;
            for (gv = 0; gv < VLANS; gv = gv + 1) begin : g_v
                assign vhit[gv] = cfg_vlan_valid[gv] && cfg_vlan_vid[12*gv +: 12] == k1_vid;
            end
            reg [PORTS-1:0] members;
            integer i;
            always @* begin
                members = {PORTS{1'b0}};
                for (i = 0; i < VLANS; i = i + 1) begin
                    if (vhit[i]) begin
                        members = members | cfg_vlan_members[i*PORTS +: PORTS];
                    end
                end
            end
            wire en_in    = HOST || cfg_port_enable[PI];
            wire vlan_bad = !HOST && ((k1_tagged && !cfg_port_trunk[PI]) || !members[PI]);
            wire [RW-1:0] reason_in = !en_in ? R_DIS : k1_badfirst ? R_BAD : vlan_bad ? R_VLAN : R_NONE;

            // the response for this lane: 6 cycles after the grant (LK0, then the table's 5)
            wire       resp_now = age[5];
            wire       hit      = t_lk_hit;
            wire [4:0] hport    = t_lk_port;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [11:0] hda = fp_node_l2_hash({k1_vid, k1_da}, HB);   // [HB-1:0] used
            wire [11:0] hsa = fp_node_l2_hash({k1_vid, k1_sa}, HB);
            /* verilator lint_on UNUSEDSIGNAL */
            reg  [PORTS-1:0] known;
            integer j;
            always @* begin
                known = {PORTS{1'b0}};
                for (j = 0; j < PORTS; j = j + 1) begin
                    if (hport == j[4:0] && !(j == PI && !HOST)) begin
                        known[j] = k2_members[j];
                    end
                end
            end
            wire flood   = k2_mcast || !hit;
            wire hosthit = !flood && {27'd0, hport} >= PORTS;
            wire [PORTS-1:0] dst_calc = (k2_reason != R_NONE || k2_ll) ? {PORTS{1'b0}} :
                                        flood ? (k2_members & ~SRC) : known;

            wire o_push = buf_start && buf_start_src == gp[LW-1:0];
            wire o_drop = buf_drop && buf_drop_src == gp[LW-1:0];

            always @(posedge clk) begin
                if (key_take) begin
                    k1_da       <= s_key_da[48*gp +: 48];
                    k1_sa       <= s_key_sa[48*gp +: 48];
                    k1_tagged   <= s_key_tagged[gp];
                    k1_vid      <= s_key_tagged[gp] ? s_key_tci[16*gp +: 12] :
                                   HOST ? 12'd1 : cfg_port_pvid[12*PI +: 12];
                    k1_pcp      <= s_key_tagged[gp] ? s_key_tci[16*gp + 13 +: 3] :
                                   HOST ? 3'd0 : cfg_port_pcp[3*PI +: 3];
                    k1_ts       <= s_key_ts[24*gp +: 24];
                    k1_badfirst <= s_key_bad[gp] || s_key_short[gp];
                end
                if (k2_take) begin
                    k2_da      <= k1_da;
                    k2_sa      <= k1_sa;
                    k2_vid     <= k1_vid;
                    k2_pcp     <= k1_pcp;
                    k2_ts      <= k1_ts;
                    k2_tagged  <= k1_tagged;
                    k2_members <= members & cfg_port_enable;
                    k2_reason  <= reason_in;
                    k2_learn   <= !HOST && cfg_learn_enable && reason_in == R_NONE && !k1_sa[40];
                    k2_mcast   <= k1_da[40];
                    k2_ll      <= k1_da[47:4] == 44'h0180C200000;
                    k2_bda     <= hda[HB-1:0];
                    k2_bsa     <= hsa[HB-1:0];
                end
                if (resp_now) begin
                    d <= {flood, hosthit, k2_ll, k2_reason, k2_tagged, k2_pcp, k2_vid, k2_ts, dst_calc};
                end
                // outcome queue: o0 is the head
                if (l_pop[gp]) begin
                    o0_drop <= o1_drop;
                    o0_head <= o1_head;
                end
                if ((o_push || o_drop) && ((l_pop[gp] && !o1_v) || (!l_pop[gp] && !o0_v))) begin
                    o0_drop <= o_drop;
                    o0_head <= buf_start_head;
                end
                if ((o_push || o_drop) && ((l_pop[gp] && o1_v) || (!l_pop[gp] && o0_v && !o1_v))) begin
                    o1_drop <= o_drop;
                    o1_head <= buf_start_head;
                end
                if (rst) begin
                    k1_v <= 1'b0;
                    k2_v <= 1'b0;
                    k2_req <= 1'b0;
                    age  <= 6'd0;
                    d_v  <= 1'b0;
                    o0_v <= 1'b0;
                    o1_v <= 1'b0;
                    oerr <= 1'b0;
                end else begin
                    k1_v <= key_take || (k1_v && !k2_take);
                    if (k2_take) begin
                        k2_v   <= 1'b1;
                        k2_req <= 1'b1;
                    end else if (resp_now) begin
                        k2_v   <= 1'b0;
                    end
                    if (l_grant[gp]) begin
                        k2_req <= 1'b0;
                    end
                    age <= {age[4:0], l_grant[gp]};
                    d_v <= resp_now || (d_v && !l_pop[gp]);
                    // the outcome queue's valid bits
                    case ({o_push || o_drop, l_pop[gp]})
                        2'b10: begin
                            o0_v <= 1'b1;
                            o1_v <= o0_v;
                        end
                        2'b01: begin
                            o0_v <= o1_v;
                            o1_v <= 1'b0;
                        end
                        default: ;
                    endcase
                    oerr <= (o_push || o_drop) && !l_pop[gp] && o1_v;
                end
            end

            // a request is offered only while D is free for its response
            assign l_req[gp]    = k2_req && !d_v;
            assign l_vid[12*gp +: 12] = k2_vid;
            assign l_da[48*gp +: 48]  = k2_da;
            assign l_sa[48*gp +: 48]  = k2_sa;
            assign l_learn[gp]  = k2_learn;
            assign l_bda[HB*gp +: HB] = k2_bda;
            assign l_bsa[HB*gp +: HB] = k2_bsa;
            assign l_push[gp]   = d_v && o0_v && s_cls_valid[gp];
            assign s_cls_ready[gp] = l_pop[gp];
            assign l_d[DW*gp +: DW]    = d;
            assign l_head[SW*gp +: SW] = o0_head;
            assign l_bdrop[gp]         = o0_drop;
            assign l_oerr[gp]          = oerr;
        end

    endgenerate

    // ---- the lookup port: round robin over the lanes' requests ---------------------------------
    // (the switch ports before the host lanes: fp_node_wprio)
    wire [LANES-1:0] lg;
    wire             lg_valid;
    wire [LW-1:0]    lg_index;
    fp_node_wprio #(.N(LANES), .HI(PORTS)) u_lk_arb (
        .clk(clk), .rst(rst), .req(l_req), .ack(lg_valid),
        .grant(lg), .grant_valid(lg_valid), .grant_index(lg_index)
    );
    assign l_grant = lg;
    always @(posedge clk) begin
        lk0_bucket <= l_bda[HB*lg_index +: HB];
        lk0_vid    <= l_vid[12*lg_index +: 12];
        lk0_da     <= l_da[48*lg_index +: 48];
        ln0_bucket <= l_bsa[HB*lg_index +: HB];
        ln0_vid    <= l_vid[12*lg_index +: 12];
        ln0_sa     <= l_sa[48*lg_index +: 48];
        ln0_port   <= {{(5-LW){1'b0}}, lg_index};
        if (rst) begin
            lk0_v <= 1'b0;
            ln0_v <= 1'b0;
        end else begin
            lk0_v <= lg_valid;
            ln0_v <= lg_valid && l_learn[lg_index];
        end
    end

    // ---- push stage -----------------------------------------------------------------------------
    wire [LANES-1:0] pg;
    wire             pg_valid;
    wire [LW-1:0]    pg_index;
    fp_node_wprio #(.N(LANES), .HI(PORTS)) u_push_arb (
        .clk(clk), .rst(rst), .req(l_push), .ack(pg_valid),
        .grant(pg), .grant_valid(pg_valid), .grant_index(pg_index)
    );
    assign l_pop = pg;

    // X1: the granted lane's decision, classification and outcome
    reg              x1_v, x1_bdrop, x1_host, x1_ip_valid;
    reg [LW-1:0]     x1_src;
    reg [DW-1:0]     x1_d;
    reg [SW-1:0]     x1_head;
    reg [15:0]       x1_et;
    reg [7:0]        x1_proto;
    reg              x1_hsel;      // the source's host output: PORTS + x1_hsel
    wire             x1_flood   = x1_d[DW-1];
    wire             x1_hosthit = x1_d[DW-2];
    wire             x1_ll      = x1_d[DW-3];
    wire [RW-1:0]    x1_reason  = x1_d[DW-4 -: RW];
    wire             x1_tagged  = x1_d[DW-4-RW];
    wire [2:0]       x1_pcp     = x1_d[DW-5-RW -: 3];
    wire [11:0]      x1_vid     = x1_d[DW-8-RW -: 12];
    wire [23:0]      x1_ts      = x1_d[PORTS +: 24];
    wire [PORTS-1:0] x1_dst     = x1_d[PORTS-1:0];

    // the host decision and the final discard
    wire known_et = x1_et == 16'h0800 || x1_et == 16'h86DD || x1_et == 16'h0806 || x1_et == 16'h8100;
    wire unk      = !x1_host && cfg_host_unknown && !known_et;
    wire pre      = x1_reason != R_NONE;
    wire to_host  = !x1_bdrop && !x1_host && !pre &&
                    (x1_ll ? cfg_host_link_local :
                     unk ? 1'b1 :
                     (x1_flood && cfg_flood_host) || x1_hosthit ||
                     (cfg_host_arp && x1_et == 16'h0806) ||
                     (cfg_host_icmpv6 && x1_et == 16'h86DD && x1_ip_valid && x1_proto == 8'd58));
    wire [PORTS-1:0] dst = (x1_bdrop || unk) ? {PORTS{1'b0}} : x1_dst;
    wire [RW-1:0] reason = x1_bdrop ? R_BUF : pre ? x1_reason : x1_ll ? R_RES :
                           (dst == {PORTS{1'b0}} && !to_host) ? R_NODEST : R_NONE;

    reg              x2_v, x2_discard;
    reg [LW-1:0]     x2_src;
    reg [RW-1:0]     x2_reason;

    reg [CW-1:0]     ncopies;
    integer n;
    always @* begin
        ncopies = {CW{1'b0}};
        for (n = 0; n < LANES; n = n + 1) begin
            ncopies = ncopies + {{(CW-1){1'b0}}, m_desc_valid[n] && m_desc_ready[n]};
        end
    end

    integer o;
    always @(posedge clk) begin
        // X1: the granted lane
        x1_src   <= pg_index;
        x1_d     <= l_d[DW*pg_index +: DW];
        x1_head  <= l_head[SW*pg_index +: SW];
        x1_bdrop <= l_bdrop[pg_index];
        x1_host  <= {{(32-LW){1'b0}}, pg_index} >= PORTS;
        x1_et    <= s_cls_ethertype[16*pg_index +: 16];
        x1_ip_valid <= s_cls_ip_valid[pg_index];
        x1_proto <= s_cls_ip_proto[8*pg_index +: 8];
        x1_hsel  <= HOSTS > 1 && {{(32-LW){1'b0}}, pg_index} >= PER_DP;
        // X2: one descriptor per copy
        m_desc_head <= x1_head;
        m_desc_ts   <= x1_ts;
        m_desc_tci  <= {x1_pcp, 1'b0, x1_vid};
        for (o = 0; o < LANES; o = o + 1) begin
            if (o >= PORTS) begin
                m_desc_vlan_op[2*o +: 2] <= 2'd0;
                m_desc_ts_insert[o]      <= 1'b0;
            // output o wants a tag: trunk and not its PVID
            end else if (x1_tagged && !(cfg_port_trunk[o] && x1_vid != cfg_port_pvid[12*o +: 12])) begin
                m_desc_vlan_op[2*o +: 2] <= 2'd1;
            end else if (!x1_tagged && cfg_port_trunk[o] && x1_vid != cfg_port_pvid[12*o +: 12]) begin
                m_desc_vlan_op[2*o +: 2] <= 2'd2;
            end else begin
                m_desc_vlan_op[2*o +: 2] <= 2'd0;
            end
            if (o < PORTS) begin
                m_desc_ts_insert[o] <= cfg_ts_enable[o] &&
                                       (!cfg_ts_by_type[o] || x1_et == cfg_ts_ethertype[16*o +: 16]);
            end
        end
        x2_src     <= x1_src;
        x2_reason  <= reason;
        x2_discard <= dst == {PORTS{1'b0}} && !(to_host && HOSTS > 0);
        // X3: the reference and the events
        m_ref_head      <= m_desc_head;
        m_ref_count     <= ncopies;
        ev_frame_src    <= x2_src;
        ev_frame_reason <= x2_reason;
        if (rst) begin
            x1_v             <= 1'b0;
            x2_v             <= 1'b0;
            m_desc_valid     <= {LANES{1'b0}};
            m_ref_valid      <= 1'b0;
            ev_frame         <= 1'b0;
            ev_frame_discard <= 1'b0;
            ev_tx_drop       <= {LANES{1'b0}};
            ev_outcome_err   <= 1'b0;
        end else begin
            x1_v           <= pg_valid;
            x2_v           <= x1_v;
            for (o = 0; o < LANES; o = o + 1) begin
                if (o < PORTS) begin
                    m_desc_valid[o] <= x1_v && dst[o];
                end else begin
                    m_desc_valid[o] <= x1_v && to_host && (x1_hsel == (o != PORTS));
                end
            end
            m_ref_valid      <= x2_v && x2_reason != R_BUF;
            ev_frame         <= x2_v;
            ev_frame_discard <= x2_v && x2_discard;
            ev_tx_drop       <= m_desc_valid & ~m_desc_ready;
            ev_outcome_err   <= |l_oerr;
        end
    end

endmodule

`default_nettype wire
