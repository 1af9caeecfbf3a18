// fp_node_rxproc: RxProcDP, the receive processing of one datapath: classification of every frame.
//
// Input: the segment stream from fp_node_rxarb (NoC header RX fields filled). Output: the same
// segments in the same order, with tagged/vid/pcp/prio/dst/to_host/discard/reason written into
// EVERY segment of each frame; the other header fields, tdata, tkeep and tlast pass unchanged.
// The first segment's decision is kept per source port (ports 0..PORTS-1, and one slot for the
// host port) and written into the frame's later segments.
//
// Per first segment (node/l2.py classify() is the reference):
//   parse: DA, SA, TPID 0x8100 -> tagged (VID, PCP from the tag; Ethertype after it); bytes past
//     tkeep read as 0. Untagged: VID = cfg PVID, PCP = cfg PCP of the port (host: VID 1, PCP 0).
//     prio = (pcp >= cfg_prio_pcp_min).
//   decisions, first match wins:
//     1. input port disabled (not for the host port)              -> discard PORT_DISABLED
//     2. bad on a first+last segment, or shorter than an Ethernet
//        header (14 bytes, 18 tagged)                              -> discard BAD_FRAME
//     3. not host: tagged on an access port, or the port is not a
//        member of the VID (VLAN table: entries with valid && vid,
//        compared in parallel, members ORed; for untagged frames
//        the check uses a register of the configuration, so a
//        configuration change applies one cycle later)             -> discard VLAN
//     4. DA 01:80:C2:00:00:0x: never switched; to_host if cfg_host_link_local and not from the
//        host, else discard; reason RESERVED_MAC either way.
//     5. not host, cfg_host_unknown, Ethertype not IPv4/IPv6/ARP/0x8100 -> to the host only.
//     6. DA multicast (bit 0 of byte 0) or unknown: dst = members & enabled & ~src,
//        to_host = cfg_flood_host. Known on port p < PORTS: dst = {p} if p != src, enabled and
//        a member, else none. Known on a port >= PORTS (a host entry): to_host.
//        Not host: to_host also for ARP (cfg_host_arp) and ICMPv6 (IPv6 next header 58,
//        cfg_host_icmpv6). Frames from the host never get to_host. dst = 0 and no to_host ->
//        discard NO_DEST. dst never holds the source port.
//   Discarded frames (1-3, 4 without host, NO_DEST) have dst = 0 and to_host = 0.
//   Table request (every first segment, in the cycle it is accepted): lookup {vid, DA}; learn
//     {vid, SA} -> src_port when cfg_learn_enable, not from the host, SA not multicast and the
//     frame passed 1-3. Decision: learning happens at the first segment, so a multi-segment
//     frame whose bad flag only shows on its last segment is learned from. Delaying the learn to
//     the last segment would need a second table access per frame and per-port SA/VID storage;
//     a MAC-bad frame on a 1G link is rare, and a wrong entry is corrected by the next good
//     frame of that address (or ages out). Single-segment bad frames are not learned from.
//
// Table interface (l2_req_* / l2_resp_*): one client port of fp_node_l2_table, whose response comes
// exactly TABLE_LATENCY = 4 cycles after the request is accepted (the decide stage is stage 4,
// so an unstalled first segment meets its response there; responses that arrive while m_axis
// backpressure stalls the pipeline wait in a 4-entry FIFO). Reset this module and the table
// together.
//
// Latency:    5 cycles (segment accepted -> on m_axis), fixed, for every segment.
// Throughput: one segment per cycle, except that a first segment waits (s_axis_tready low) until
//             the table takes its request (l2_req_ready: one slot every 3 cycles with the default
//             table), so first segments closer than that are spaced out. Backpressure from
//             m_axis stalls the whole pipeline a cycle later: the segment m_axis did not take
//             waits in a skid register, and the pipeline advances while that register or the
//             output register is empty (flip-flops), so no path runs from m_axis_tready to
//             s_axis_tready, the table request or the pipeline's enables. m_axis comes from the output register or the
//             skid register (a 2:1 select by a flip-flop).
// tready:     depends on s_axis_tuser (first) and l2_req_ready, not on m_axis_tready.
// Bad input:  segments of a frame whose first segment never came take the source's last decision.
// Parameters: PORTS 1..16, SEG_BYTES 32 or 64, DP_INDEX 0..1 (documents the host port
//             PORTS + DP_INDEX; any src_port >= PORTS is treated as the host), VLANS 1..64.
`default_nettype none
`include "fp_noc_header.vh"

module fp_node_rxproc #(
    parameter PORTS     = 12,
    parameter SEG_BYTES = 64,
    parameter DP_INDEX  = 0,
    parameter VLANS     = 16
) (
    input  wire                     clk,
    input  wire                     rst,

    input  wire [SEG_BYTES*8-1:0]   s_axis_tdata,
    input  wire [SEG_BYTES-1:0]     s_axis_tkeep,
    input  wire                     s_axis_tvalid,
    output wire                     s_axis_tready,
    input  wire                     s_axis_tlast,
    input  wire [`FP_NOC_W-1:0]        s_axis_tuser,

    output wire [SEG_BYTES*8-1:0]   m_axis_tdata,
    output wire [SEG_BYTES-1:0]     m_axis_tkeep,
    output wire                     m_axis_tvalid,
    input  wire                     m_axis_tready,
    output wire                     m_axis_tlast,
    output wire [`FP_NOC_W-1:0]        m_axis_tuser,

    // client port of fp_node_l2_table
    output wire                     l2_req_valid,
    input  wire                     l2_req_ready,
    output wire [11:0]              l2_req_vid,
    output wire [47:0]              l2_req_da,
    output wire [47:0]              l2_req_sa,
    output wire [4:0]               l2_req_src_port,
    output wire                     l2_req_learn,
    input  wire                     l2_resp_valid,
    input  wire                     l2_resp_hit,
    input  wire [4:0]               l2_resp_port,

    input  wire [PORTS-1:0]         cfg_port_enable,
    input  wire [PORTS-1:0]         cfg_port_trunk,
    input  wire [12*PORTS-1:0]      cfg_port_pvid,
    input  wire [3*PORTS-1:0]       cfg_port_pcp,
    input  wire [2:0]               cfg_prio_pcp_min,
    input  wire [VLANS-1:0]         cfg_vlan_valid,
    input  wire [12*VLANS-1:0]      cfg_vlan_vid,
    input  wire [PORTS*VLANS-1:0]   cfg_vlan_members,   // entry i: [i*PORTS +: PORTS]
    input  wire                     cfg_learn_enable,
    input  wire                     cfg_host_link_local,
    input  wire                     cfg_host_arp,
    input  wire                     cfg_host_icmpv6,
    input  wire                     cfg_host_unknown,
    input  wire                     cfg_flood_host
);

    generate
        if (PORTS < 1 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_1_to_16 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (DP_INDEX < 0 || DP_INDEX > 1) begin : g_bad_dp_index
            PARAMETER_ERROR_DP_INDEX_must_be_0_or_1 u_error();
        end
        if (VLANS < 1 || VLANS > 64) begin : g_bad_vlans
            PARAMETER_ERROR_VLANS_must_be_1_to_64 u_error();
        end
    endgenerate

    localparam D = 4;                                   // fp_node_l2_table latency = decide stage
    localparam SW = SEG_BYTES * 9 + 1 + `FP_NOC_W;         // a segment: data, keep, last, header
    localparam PW = (PORTS > 1) ? $clog2(PORTS) : 1;
    // classification carried with the segment from the input to the decide stage
    localparam [2:0] C_FWD = 3'd0, C_DISABLED = 3'd1, C_BAD = 3'd2, C_VLAN = 3'd3,
                     C_LINK_LOCAL = 3'd4, C_HOST_ONLY = 3'd5;

    // ---- input: parse the first segment (bytes past tkeep read as 0) ------------------------
    localparam HBYTES = 18;                             // header bytes 0..17 (and 20, 24)
    localparam [4:0] NPORTS = PORTS[4:0];
    wire [HBYTES*8-1:0] hb;
    genvar gb;
    generate
        for (gb = 0; gb < HBYTES; gb = gb + 1) begin : g_hb
            assign hb[gb*8 +: 8] = s_axis_tkeep[gb] ? s_axis_tdata[gb*8 +: 8] : 8'd0;
        end
    endgenerate
    wire [7:0] b20 = s_axis_tkeep[20] ? s_axis_tdata[20*8 +: 8] : 8'd0;
    wire [7:0] b24 = s_axis_tkeep[24] ? s_axis_tdata[24*8 +: 8] : 8'd0;

    wire [47:0] da = {hb[7:0], hb[15:8], hb[23:16], hb[31:24], hb[39:32], hb[47:40]};
    wire [47:0] sa = {hb[55:48], hb[63:56], hb[71:64], hb[79:72], hb[87:80], hb[95:88]};
    wire [15:0] tpid = {hb[103:96], hb[111:104]};
    wire [2:0]  tag_pcp = hb[119:117];                  // TCI: PCP, DEI (ignored), VID
    wire [11:0] tag_vid = {hb[115:112], hb[127:120]};
    /* verilator lint_off UNUSEDSIGNAL */
    wire        tag_dei = hb[116];                      // DEI: carried in the frame, not used here
    /* verilator lint_on UNUSEDSIGNAL */
    wire        is_tagged = (tpid == 16'h8100);
    wire [15:0] etype = is_tagged ? {hb[135:128], hb[143:136]} : tpid;
    wire [7:0]  v6_next = is_tagged ? b24 : b20;

    wire [4:0]    src = s_axis_tuser[`FP_NOC_SRC_PORT];
    wire          host = (src >= NPORTS);
    wire [PW-1:0] srci = src[PW-1:0];             // every use is gated by !host (or is_tagged)
    wire          s_first = s_axis_tuser[`FP_NOC_FIRST];
    wire          s_last = s_axis_tuser[`FP_NOC_LAST];
    wire [6:0]    nbytes = s_axis_tuser[`FP_NOC_BYTES];

    wire [11:0] vid = is_tagged ? tag_vid : host ? 12'd1 : cfg_port_pvid[srci*12 +: 12];
    wire [2:0]  pcp = is_tagged ? tag_pcp : host ? 3'd0 : cfg_port_pcp[srci*3 +: 3];

    // VLAN membership of the source port, for the input check (rule 3) and the learn request:
    //   untagged: pvid_ok_q[src], precomputed from the configuration (a register: a change of
    //     the VLAN table or the PVIDs takes effect one cycle later);
    //   tagged: the tag's VID compared with every entry, ANDed with the entry's bit of src.
    // The whole member set (for flooding) is computed a stage later from the registered VID.
    reg  [PORTS-1:0] pvid_ok_q;
    reg              tag_ok;
    wire [31:0]      srci32 = {{(32 - PW){1'b0}}, srci};
    integer v, pp;
    always @(posedge clk) begin
        for (pp = 0; pp < PORTS; pp = pp + 1) begin
            pvid_ok_q[pp] <= 1'b0;
            for (v = 0; v < VLANS; v = v + 1) begin
                if (cfg_vlan_valid[v] && cfg_vlan_vid[v*12 +: 12] == cfg_port_pvid[pp*12 +: 12] &&
                    cfg_vlan_members[v*PORTS + pp]) begin
                    pvid_ok_q[pp] <= 1'b1;
                end
            end
        end
    end
    always @* begin
        tag_ok = 1'b0;
        for (v = 0; v < VLANS; v = v + 1) begin
            tag_ok = tag_ok | (cfg_vlan_valid[v] && cfg_vlan_vid[v*12 +: 12] == tag_vid &&
                               cfg_vlan_members[v*PORTS + srci32]);
        end
    end
    wire src_member = is_tagged ? tag_ok : pvid_ok_q[srci];

    reg  [PORTS-1:0] src_bit;
    integer b;
    always @* begin
        for (b = 0; b < PORTS; b = b + 1) begin
            src_bit[b] = !host && (srci == b[PW-1:0]);
        end
    end
    wire runt = s_last && (nbytes < 7'd14 || (is_tagged && nbytes < 7'd18));
    wire bad_first = (s_last && s_axis_tuser[`FP_NOC_BAD]) || runt;
    wire disabled = !host && !cfg_port_enable[srci];
    wire vlan_bad = !host && ((is_tagged && !cfg_port_trunk[srci]) || !src_member);
    wire link_local = (da[47:8] == 40'h0180C20000) && (da[7:4] == 4'h0);
    wire known_et = etype == 16'h0800 || etype == 16'h86DD || etype == 16'h0806 ||
                    etype == 16'h8100;
    wire copy = !host && ((cfg_host_arp && etype == 16'h0806) ||
                          (cfg_host_icmpv6 && etype == 16'h86DD && v6_next == 8'd58));

    wire [2:0] cls = disabled ? C_DISABLED : bad_first ? C_BAD : vlan_bad ? C_VLAN :
                     link_local ? C_LINK_LOCAL :
                     (!host && cfg_host_unknown && !known_et) ? C_HOST_ONLY : C_FWD;

    // ---- handshakes: the whole pipeline advances together, while the skid or output register is
    // empty
    reg  out_valid_q, skid_valid_q;
    wire adv = !skid_valid_q || !out_valid_q;

    assign s_axis_tready = adv && (!s_first || l2_req_ready);
    assign l2_req_valid = s_axis_tvalid && s_first && adv;
    assign l2_req_vid = vid;
    assign l2_req_da = da;
    assign l2_req_sa = sa;
    assign l2_req_src_port = src;
    assign l2_req_learn = cfg_learn_enable && !host && !sa[40] && !disabled && !bad_first &&
                          !vlan_bad;

    wire accept = s_axis_tvalid && s_axis_tready;

    // ---- stages 1..D: the segment and its classification ------------------------------------
    localparam CW = 3 + 1 + 1 + 1 + 1 + PORTS + PORTS + 1 + 3 + 12;
    reg  [SW-1:0] st_seg [1:D];
    reg  [CW-1:0] st_cls [1:D];
    reg  [D:1]    st_valid;
    integer k;
    always @(posedge clk) begin
        if (adv) begin
            st_seg[1] <= {s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tuser};
            st_cls[1] <= {cls, host, copy, da[40], (pcp >= cfg_prio_pcp_min), {PORTS{1'b0}},
                          src_bit, is_tagged, pcp, vid};
            st_valid[1] <= accept;
            for (k = 2; k <= D; k = k + 1) begin
                st_seg[k] <= st_seg[k-1];
                st_cls[k] <= st_cls[k-1];
                st_valid[k] <= st_valid[k-1];
            end
            st_cls[2][MEM_LSB +: PORTS] <= members1 & cfg_port_enable;  // filled in stage 1 -> 2
        end
        if (rst) begin
            st_valid <= {D{1'b0}};
        end
    end

    // the VLAN's member set, from the VID registered in stage 1 (an AND-OR: a balanced tree)
    localparam MEM_LSB = 16 + PORTS;                    // members in st_cls (see the order above)
    wire [11:0]      vid1 = st_cls[1][11:0];
    reg  [PORTS-1:0] members1;
    always @* begin
        members1 = {PORTS{1'b0}};
        for (v = 0; v < VLANS; v = v + 1) begin
            members1 = members1 | ({PORTS{cfg_vlan_valid[v] && cfg_vlan_vid[v*12 +: 12] == vid1}} &
                                   cfg_vlan_members[v*PORTS +: PORTS]);
        end
    end

    // ---- table responses: in request order; used directly if the first segment is on time ---
    reg  [5:0] rf_mem [0:D-1];
    reg  [1:0] rf_wr, rf_rd;
    reg  [2:0] rf_count;

    wire [SW-1:0] seg = st_seg[D];
    wire [`FP_NOC_W-1:0] hdr = seg[`FP_NOC_W-1:0];
    wire          d_first = hdr[`FP_NOC_FIRST];
    wire [4:0]    d_src = hdr[`FP_NOC_SRC_PORT];
    wire          pop = st_valid[D] && d_first && adv;
    wire          bypass = (rf_count == 3'd0);
    wire [5:0]    resp = bypass ? {l2_resp_hit, l2_resp_port} : rf_mem[rf_rd];
    wire          push = l2_resp_valid && !(pop && bypass);

    always @(posedge clk) begin
        if (push) begin
            rf_mem[rf_wr] <= {l2_resp_hit, l2_resp_port};
            rf_wr <= rf_wr + 2'd1;
        end
        if (pop && !bypass) begin
            rf_rd <= rf_rd + 2'd1;
        end
        rf_count <= rf_count + {2'b00, push} - {2'b00, pop && !bypass};
        if (rst) begin
            rf_wr <= 2'd0;
            rf_rd <= 2'd0;
            rf_count <= 3'd0;
        end
    end

    // ---- stage D: the decision ---------------------------------------------------------------
    wire [2:0]       d_cls;
    wire             d_host, d_copy, d_mcast, d_prio, d_tagged;
    wire [PORTS-1:0] d_members, d_src_bit;
    wire [2:0]       d_pcp;
    wire [11:0]      d_vid;
    assign {d_cls, d_host, d_copy, d_mcast, d_prio, d_members, d_src_bit, d_tagged, d_pcp,
            d_vid} = st_cls[D];

    wire             hit = resp[5];
    wire [4:0]       rport = resp[4:0];
    wire             rport_host = (rport >= NPORTS);
    reg  [PORTS-1:0] rport_bit;
    always @* begin
        for (b = 0; b < PORTS; b = b + 1) begin
            rport_bit[b] = !rport_host && (rport[PW-1:0] == b[PW-1:0]);
        end
    end
    wire             flood = d_mcast || !hit;
    wire [PORTS-1:0] fwd_dst = flood ? (d_members & ~d_src_bit) : (rport_bit & d_members & ~d_src_bit);
    wire             fwd_host = !d_host && (d_copy || (flood ? cfg_flood_host : rport_host));
    wire             ll_host = !d_host && cfg_host_link_local;

    reg  [PORTS-1:0] n_dst;
    reg              n_to_host, n_discard;
    reg  [3:0]       n_reason;
    always @* begin
        n_dst = {PORTS{1'b0}};
        n_to_host = 1'b0;
        n_discard = 1'b0;
        n_reason = `FP_NOC_REASON_NONE;
        case (d_cls)
            C_DISABLED: begin
                n_discard = 1'b1;
                n_reason = `FP_NOC_REASON_PORT_DISABLED;
            end
            C_BAD: begin
                n_discard = 1'b1;
                n_reason = `FP_NOC_REASON_BAD_FRAME;
            end
            C_VLAN: begin
                n_discard = 1'b1;
                n_reason = `FP_NOC_REASON_VLAN;
            end
            C_LINK_LOCAL: begin
                n_to_host = ll_host;
                n_discard = !ll_host;
                n_reason = `FP_NOC_REASON_RESERVED_MAC;
            end
            C_HOST_ONLY: begin
                n_to_host = 1'b1;
            end
            default: begin
                n_dst = fwd_dst;
                n_to_host = fwd_host;
                if (fwd_dst == {PORTS{1'b0}} && !fwd_host) begin
                    n_discard = 1'b1;
                    n_reason = `FP_NOC_REASON_NO_DEST;
                end
            end
        endcase
    end

    // the decision of the first segment, kept per source (ports, then one slot for the host)
    localparam DECW = 1 + 12 + 3 + 1 + PORTS + 1 + 1 + 4;
    localparam IW = $clog2(PORTS + 1);
    reg  [DECW-1:0] dec_q [0:PORTS];
    wire [IW-1:0]   d_idx = (d_src >= NPORTS) ? PORTS[IW-1:0] : d_src[IW-1:0];
    wire [DECW-1:0] dec = d_first ? {d_tagged, d_vid, d_pcp, d_prio, n_dst, n_to_host, n_discard, n_reason}
                                  : dec_q[d_idx];
    always @(posedge clk) begin
        if (adv && st_valid[D] && d_first) begin
            dec_q[d_idx] <= dec;
        end
    end

    wire             o_tagged, o_prio, o_to_host, o_discard;
    wire [11:0]      o_vid;
    wire [2:0]       o_pcp;
    wire [PORTS-1:0] o_dst;
    wire [3:0]       o_reason;
    assign {o_tagged, o_vid, o_pcp, o_prio, o_dst, o_to_host, o_discard, o_reason} = dec;

    reg  [`FP_NOC_W-1:0] new_hdr;
    always @* begin
        new_hdr = hdr;
        new_hdr[`FP_NOC_TAGGED] = o_tagged;
        new_hdr[`FP_NOC_VID] = o_vid;
        new_hdr[`FP_NOC_PCP] = o_pcp;
        new_hdr[`FP_NOC_PRIO] = o_prio;
        new_hdr[`FP_NOC_DST] = 16'd0;
        new_hdr[`FP_NOC_DST_LSB +: PORTS] = o_dst;
        new_hdr[`FP_NOC_TO_HOST] = o_to_host;
        new_hdr[`FP_NOC_DISCARD] = o_discard;
        new_hdr[`FP_NOC_REASON] = o_reason;
    end

    // ---- output register and skid register ----------------------------------------------------
    // A segment offered from out_q and not taken moves to skid_q while the pipeline advances
    // (out_q takes the next one); while skid_q holds it, m_axis shows skid_q and the pipeline
    // stands still. Order is kept: skid_q is always the older of the two.
    reg [SW-1:0] out_q, skid_q;
    always @(posedge clk) begin
        if (adv) begin
            out_q <= {seg[SW-1:`FP_NOC_W], new_hdr};
            out_valid_q <= st_valid[D];
        end
        if (!skid_valid_q) skid_q <= out_q;
        if (rst) begin
            out_valid_q <= 1'b0;
            skid_valid_q <= 1'b0;
        end else if (!skid_valid_q) begin
            skid_valid_q <= out_valid_q && !m_axis_tready;
        end else if (m_axis_tready) begin
            skid_valid_q <= 1'b0;
        end
    end

    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = skid_valid_q ? skid_q : out_q;
    assign m_axis_tvalid = skid_valid_q || out_valid_q;

endmodule

`default_nettype wire
