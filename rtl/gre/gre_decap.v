// gre_decap: GRE tunnel termination at line rate (RFC 2784 / RFC 2890, version 0).
//
// Input: Ethernet [+ one or two 802.1Q (0x8100) / 802.1ad (0x88A8) tags] / IPv4 (IHL 5..15) or
// IPv6 (next header 47) / GRE v0 with any of the C, K, S flags (4..16-byte GRE header).
//   GRE protocol 0x6558 (transparent Ethernet bridging): the output is the inner Ethernet frame.
//   GRE protocol 0x0800 / 0x86DD: the output is the outer MACs and tags, the GRE protocol as
//   Ethertype, then the inner packet.
// Everything else leaves unchanged (reason code on stat_reason): not GRE, unsupported GRE (version
// != 0, routing / strict-route / recursion / reserved bits, other protocols), IPv4 fragments, bad
// IPv4 header checksum, frames that end before their headers do (or whose IP length leaves no
// inner frame), GRE from an endpoint not in the accept table (or dropped, cfg_drop_unknown).
// The accept table: ACCEPT_ENTRIES entries of (outer source address, IPv4 in addr[31:0] or IPv6,
// optional key); cfg_accept_all accepts every endpoint.
// The outer IP length is checked against the frame at the frame's end: a decapsulated frame whose
// length disagrees (other than Ethernet padding up to 60 bytes + 4 per tag) leaves with
// tuser[0] = 1 (reason drop_length). The outer frame's padding is not output.
// stat_valid pulses once per frame (the cycle after its last beat is accepted) with stat_reason:
// 0 decap, 1 not GRE, 2 unsupported, 3 fragment, 4 bad checksum, 5 too short, 6 unknown tunnel
// (passed), 7 unknown tunnel (dropped), 8 drop_length.
//
// Latency:    1 + max(k_dec + 1, k_data) cycles. k_dec: index of the beat completing the
//             decision (IPv4/IPv6 header, whole GRE header and one inner byte; fewer bytes when
//             the frame is not decapsulated, see docs/gre.md); the decision is made while that
//             beat is on the input and registered with it, and used one cycle later. k_data (a
//             decapsulation): the last beat holding the first output beat's inner bytes, used in
//             the cycle it arrives. Plain IPv4/GRE/0x6558: 6 cycles at 64 bits, 3 at 256, 2 at
//             512; IPv4/GRE/0x0800: 6 / 3 / 2; one-beat frames: 2. A frame may wait until the
//             previous one has left.
// Throughput: 1 beat per cycle in and out, back-to-back frames of every size, every width; a
//             frame whose output is shorter never stalls the input. s_axis_tready is a register:
//             low only when the output has been stalled long enough to fill the header buffer.
// Bad input:  tuser is passed through (tuser[0] on the last beat; a decapsulated frame's last beat
//             carries the input's last tuser with bit 0 ORed with the length verdict). Malformed
//             or truncated headers pass unchanged; nothing hangs.
// Parameters: DATA_WIDTH 64, 256 or 512; KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             ACCEPT_ENTRIES 1..64. Configuration inputs are quasi-static.
`default_nettype none

module gre_decap #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter ACCEPT_ENTRIES = 8
) (
    input  wire                         clk,
    input  wire                         rst,

    input  wire [DATA_WIDTH-1:0]        s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]        s_axis_tkeep,
    input  wire                         s_axis_tvalid,
    output wire                         s_axis_tready,
    input  wire                         s_axis_tlast,
    input  wire [USER_WIDTH-1:0]        s_axis_tuser,

    output wire [DATA_WIDTH-1:0]        m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]        m_axis_tkeep,
    output wire                         m_axis_tvalid,
    input  wire                         m_axis_tready,
    output wire                         m_axis_tlast,
    output wire [USER_WIDTH-1:0]        m_axis_tuser,

    input  wire                         cfg_accept_all,
    input  wire                         cfg_drop_unknown,
    input  wire [ACCEPT_ENTRIES-1:0]    cfg_acc_valid,
    input  wire [ACCEPT_ENTRIES-1:0]    cfg_acc_ipv6,
    input  wire [128*ACCEPT_ENTRIES-1:0] cfg_acc_addr,
    input  wire [ACCEPT_ENTRIES-1:0]    cfg_acc_key_valid,
    input  wire [32*ACCEPT_ENTRIES-1:0] cfg_acc_key,

    output reg                          stat_valid,
    output reg  [3:0]                   stat_reason
);

    generate
        if (DATA_WIDTH != 64 && DATA_WIDTH != 256 && DATA_WIDTH != 512) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_64_256_or_512 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (USER_WIDTH < 1) begin : g_bad_user_width
            PARAMETER_ERROR_USER_WIDTH_must_be_at_least_1 u_error();
        end
        if (ACCEPT_ENTRIES < 1 || ACCEPT_ENTRIES > 64) begin : g_bad_accept_entries
            PARAMETER_ERROR_ACCEPT_ENTRIES_must_be_1_to_64 u_error();
        end
    endgenerate

    // Reason codes (stat_reason).
    localparam [3:0] R_DECAP = 4'd0, R_NOT_GRE = 4'd1, R_UNSUPPORTED = 4'd2, R_FRAGMENT = 4'd3,
                     R_BAD_CSUM = 4'd4, R_TOO_SHORT = 4'd5, R_UNKNOWN_PASS = 4'd6,
                     R_UNKNOWN_DROP = 4'd7, R_DROP_LENGTH = 4'd8;
    // What the output stage does with a frame.
    localparam [1:0] M_PASS = 2'd0, M_DECAP = 2'd1, M_DROP = 2'd2;

    localparam W = KEEP_WIDTH;                       // bytes per beat
    localparam LW = $clog2(W);                       // log2 bytes per beat
    localparam CW = LW + 1;                          // a byte count 0..W
    localparam [CW-1:0] WB = W[CW-1:0];              // W as a byte count
    localparam [CW:0] WB1 = W[CW:0];
    localparam W5I = (W > 31) ? 31 : W;
    localparam [4:0] W5 = W5I[4:0];                  // W against the (<= 22-byte) prefix counts
    // Header buffer: holds the beats of a frame until its decision (at most byte 98) plus one.
    localparam DEPTH = (W == 8) ? 16 : (W == 32) ? 8 : 4;
    localparam AW = $clog2(DEPTH);
    localparam [4:0] DEPTH5 = DEPTH[4:0];           // beat counts are 5 bits (DEPTH <= 16)
    localparam HB = 94;                              // header bytes the decision reads (0..93)
    localparam KW = 5;                               // beat index within a frame, saturating
    localparam FW = 17;                              // frame byte counts (saturating)
    localparam [FW-1:0] FMAX = {FW{1'b1}};
    localparam [FW-1:0] WF = W[FW-1:0];
    localparam [USER_WIDTH-1:0] U_BAD = 1;           // tuser[0] = bad
    localparam [USER_WIDTH-1:0] U_NONE = 0;

    // -----------------------------------------------------------------------------------------
    // Input beat
    // -----------------------------------------------------------------------------------------
    reg              tready_q;
    wire             in_fire = s_axis_tvalid && tready_q;
    wire             in_last = s_axis_tlast;
    reg  [CW-1:0]    in_keep_cnt;
    integer          i;
    always @* begin
        in_keep_cnt = {CW{1'b0}};
        for (i = 0; i < W; i = i + 1)
            if (s_axis_tkeep[i]) in_keep_cnt = i[CW-1:0] + 1'b1;
    end
    wire [CW-1:0]    in_cnt = in_last ? in_keep_cnt : WB;
    assign s_axis_tready = tready_q;

    // -----------------------------------------------------------------------------------------
    // Parser: header capture and the decision (combinational over the bytes so far + this beat)
    // -----------------------------------------------------------------------------------------
    reg  [KW-1:0]    p_k;            // index of the current beat in its frame (saturating)
    reg  [FW-1:0]    p_fb;           // bytes of the frame before the current beat (saturating)
    reg  [8*HB-1:0]  hdr;            // the frame's first HB bytes as far as received
    reg  [21:0]      p_acc;          // IPv4 header one's complement sum (unfolded) so far
    reg              p_dec;          // the current frame's decision has been made
    reg  [1:0]       p_mode;
    reg  [3:0]       p_reason;
    reg  [FW-1:0]    p_e;            // where the IP packet ends by its length field
    reg  [6:0]       p_lim;          // longest frame that may carry padding

    wire [FW:0]      cnt_wide = {1'b0, p_fb} + {{(FW+1-CW){1'b0}}, in_cnt};
    wire [FW-1:0]    cnt = cnt_wide[FW] ? FMAX : cnt_wide[FW-1:0];  // bytes so far incl. this beat
    // The decision compares the byte count with values <= 99: a short count saturating at 127
    // (p_k saturates at 31 beats, >= 248 bytes) keeps those compares off the 17-bit adder.
    wire [KW+LW:0]   cnt_k = {1'b0, p_k, {LW{1'b0}}} + {{KW{1'b0}}, in_cnt};
    wire [6:0]       cnt_s = cnt_k > 127 ? 7'd127 : cnt_k[6:0];

    wire [8*HB-1:0]  hn;             // hdr with this beat's bytes merged
    genvar gb;
    generate
        for (gb = 0; gb < HB; gb = gb + 1) begin : g_hn
            localparam integer BEAT = gb / W;
            localparam [KW-1:0] BEAT_K = BEAT[KW-1:0];
            assign hn[8*gb +: 8] = p_k == BEAT_K ? s_axis_tdata[8*(gb % W) +: 8] : hdr[8*gb +: 8];
        end
    endgenerate

    // Layer 2: up to two tags.
    wire [15:0] et0 = {hn[8*12 +: 8], hn[8*13 +: 8]};
    wire [15:0] et1 = {hn[8*16 +: 8], hn[8*17 +: 8]};
    wire [15:0] et2 = {hn[8*20 +: 8], hn[8*21 +: 8]};
    wire        tag0 = et0 == 16'h8100 || et0 == 16'h88A8;
    wire        tag1 = tag0 && (et1 == 16'h8100 || et1 == 16'h88A8);
    wire [1:0]  tags = tag1 ? 2'd2 : tag0 ? 2'd1 : 2'd0;
    wire [6:0]  l2 = 7'd14 + {3'd0, tags, 2'b00};
    wire [15:0] et = tag1 ? et2 : tag0 ? et1 : et0;
    wire        is4 = et == 16'h0800;
    wire        is6 = et == 16'h86DD;

    // The IP header's first 24 bytes (ipw byte j = frame byte l2 + j).
    wire [8*24-1:0] ipw = tag1 ? hn[8*22 +: 8*24] : tag0 ? hn[8*18 +: 8*24] : hn[8*14 +: 8*24];
    wire [3:0]  ip_ver = ipw[7:4];
    wire [3:0]  ihl = ipw[3:0];
    wire [15:0] v4_len = {ipw[8*2 +: 8], ipw[8*3 +: 8]};
    wire [15:0] v4_frag = {ipw[8*6 +: 8], ipw[8*7 +: 8]};
    wire [7:0]  v4_proto = ipw[8*9 +: 8];
    wire [15:0] v6_plen = {ipw[8*4 +: 8], ipw[8*5 +: 8]};
    wire [7:0]  v6_nh = ipw[8*6 +: 8];
    reg  [31:0]  src4;
    reg  [127:0] src6;
    always @* begin
        for (i = 0; i < 4; i = i + 1) src4[8*(3-i) +: 8] = ipw[8*(12+i) +: 8];
        for (i = 0; i < 16; i = i + 1) src6[8*(15-i) +: 8] = ipw[8*(8+i) +: 8];
    end
    wire        v4_bad = ip_ver != 4'd4 || ihl < 4'd5 || v4_proto != 8'd47;
    wire        v6_bad = ip_ver != 4'd6 || v6_nh != 8'd47;
    wire [6:0]  iph_end = l2 + {1'b0, ihl, 2'b00};        // IPv4 header end
    wire        v4_is_frag = (v4_frag & 16'h3FFF) != 16'd0;

    // IPv4 header checksum: sum the 16-bit words of this beat that lie inside the header. A word's
    // position is known from bytes at or before it (tags, IHL), so this works beat by beat.
    // The words are summed in a balanced tree (heap order: node n = node 2n+1 + node 2n+2,
    // leaves NW-1 .. 2NW-2), so the depth is log2(W/2) adders, not W/2.
    localparam PW = KW + LW;
    localparam NW = W / 2;
    wire [21:0] csum_tree [0:2*NW-2];
    genvar gn;
    generate
        for (gn = 0; gn < NW; gn = gn + 1) begin : g_csum_leaf
            localparam integer OFFI = 2 * gn;
            localparam [LW-1:0] OFF = OFFI[LW-1:0];
            wire [PW-1:0] pos = {p_k, OFF};
            wire in_hdr = pos >= {{(PW-7){1'b0}}, l2} && pos < {{(PW-7){1'b0}}, iph_end};
            assign csum_tree[NW-1+gn] = in_hdr ? {6'd0, s_axis_tdata[16*gn +: 8], s_axis_tdata[16*gn+8 +: 8]}
                                               : 22'd0;
        end
        for (gn = 0; gn < NW - 1; gn = gn + 1) begin : g_csum_node
            assign csum_tree[gn] = csum_tree[2*gn+1] + csum_tree[2*gn+2];
        end
    endgenerate
    wire [21:0] acc = (p_k == 0 ? 22'd0 : p_acc) + csum_tree[0];
    // The header is good when the folded sum is 0xFFFF. With at most 30 words the sum is below
    // 2^21, and folding it (acc[15:0] + acc[21:16], then the carry) gives 0xFFFF exactly when
    // acc[15:0] + acc[21:16] == 0xFFFF, i.e. acc[15:0] == ~acc[21:16]: no folding adders.
    wire        csum_ok = acc[15:0] == ~{10'd0, acc[21:16]};

    // GRE header at g = l2 + IP header length: g = 34 + 4m, m = 0..12.
    wire [3:0]  gm = {2'b00, tags} + (is4 ? ihl - 4'd5 : 4'd5);
    reg  [95:0] gw;                                     // gw byte j = frame byte g + j
    always @* begin
        gw = 96'd0;
        for (i = 0; i < 13; i = i + 1)
            if (gm == i[3:0]) gw = hn[8*(34 + 4*i) +: 96];
    end
    wire [6:0]  g = 7'd34 + {1'b0, gm, 2'b00};
    wire        gc = gw[7], gk = gw[5], gs = gw[4];
    wire        gre_bad_flags = (gw[7:0] & 8'h4F) != 8'd0 || gw[15:8] != 8'd0;
    wire [15:0] gproto = {gw[8*2 +: 8], gw[8*3 +: 8]};
    wire        p6558 = gproto == 16'h6558;
    wire        proto_ok = p6558 || gproto == 16'h0800 || gproto == 16'h86DD;
    wire [31:0] gkey = gc ? {gw[8*8 +: 8], gw[8*9 +: 8], gw[8*10 +: 8], gw[8*11 +: 8]}
                          : {gw[8*4 +: 8], gw[8*5 +: 8], gw[8*6 +: 8], gw[8*7 +: 8]};
    wire [6:0]  hlen = g + 7'd4 + {4'd0, gc, 2'b00} + {4'd0, gk, 2'b00} + {4'd0, gs, 2'b00};
    wire [FW-1:0] ip_e = {{(FW-7){1'b0}}, l2} + (is4 ? {1'b0, v4_len} : {1'b0, v6_plen} + 17'd40);
    // ip_e < hlen + (14 or 1), compared on the IP length field against a 7-bit bound instead of
    // on 17-bit sums: IPv4 total length < hlen - l2 + min; IPv6 payload length < that - 40.
    wire [6:0]  len_min = hlen - l2 + (p6558 ? 7'd14 : 7'd1) - (is4 ? 7'd0 : 7'd40);
    wire [15:0] len_field = is4 ? v4_len : v6_plen;
    wire        ip_short = len_field < {9'd0, len_min};

    // Tunnel filter.
    reg         acc_hit;
    reg [127:0] ent_addr;
    reg [31:0]  ent_key;
    always @* begin
        acc_hit = cfg_accept_all;
        for (i = 0; i < ACCEPT_ENTRIES; i = i + 1) begin
            ent_addr = cfg_acc_addr[128*i +: 128];
            ent_key = cfg_acc_key[32*i +: 32];
            if (cfg_acc_valid[i] && cfg_acc_ipv6[i] == is6
                    && (is6 ? ent_addr == src6 : ent_addr[31:0] == src4)
                    && (!cfg_acc_key_valid[i] || (gk && gkey == ent_key)))
                acc_hit = 1'b1;
        end
    end

    // The decision chain (docs/gre.md): d_wait = more bytes needed.
    reg         d_wait;
    reg  [3:0]  d_reason;
    reg         gre_wait;
    reg  [3:0]  gre_reason;
    always @* begin
        gre_wait = 1'b0;
        gre_reason = R_DECAP;
        if (cnt_s < g + 7'd4)                     gre_wait = 1'b1;
        else if (gre_bad_flags || !proto_ok)      gre_reason = R_UNSUPPORTED;
        else if (cnt_s < hlen + 7'd1)             gre_wait = 1'b1;
        else if (ip_short)                        gre_reason = R_TOO_SHORT;
        else if (!acc_hit)                        gre_reason = cfg_drop_unknown ? R_UNKNOWN_DROP : R_UNKNOWN_PASS;

        d_wait = 1'b0;
        d_reason = R_NOT_GRE;
        if (cnt_s < 7'd14)                        d_wait = 1'b1;
        else if (tag0 && cnt_s < 7'd18)           d_wait = 1'b1;
        else if (tag1 && cnt_s < 7'd22)           d_wait = 1'b1;
        else if (is4) begin
            if (cnt_s < l2 + 7'd20)               d_wait = 1'b1;
            else if (v4_bad)                      d_reason = R_NOT_GRE;
            else if (cnt_s < iph_end)             d_wait = 1'b1;
            else if (!csum_ok)                    d_reason = R_BAD_CSUM;
            else if (v4_is_frag)                  d_reason = R_FRAGMENT;
            else begin
                d_wait = gre_wait;
                d_reason = gre_reason;
            end
        end else if (is6) begin
            if (cnt_s < l2 + 7'd40)               d_wait = 1'b1;
            else if (v6_bad)                      d_reason = R_NOT_GRE;
            else begin
                d_wait = gre_wait;
                d_reason = gre_reason;
            end
        end
        if (d_wait) d_reason = R_TOO_SHORT;      // only used when the frame ends here
    end
    wire        d_ready = !d_wait || in_last;
    wire        dec_push = in_fire && !p_dec && d_ready;
    wire [1:0]  d_mode = d_reason == R_DECAP ? M_DECAP : d_reason == R_UNKNOWN_DROP ? M_DROP : M_PASS;

    // The record the output stage needs: S = bytes removed before the shifted part (b0 beats + r
    // bytes), pu = unshifted bytes kept (outer MACs and tags), p = pu + 2 (the new Ethertype),
    // eo = output length by the IP length field.
    wire [6:0]  d_s = p6558 ? hlen : hlen - l2;
    wire [3:0]  d_b0 = d_s[6:3] >> (LW - 3);        // whole beats removed (<= 12)
    wire [LW-1:0] d_r = d_s[LW-1:0];               // and bytes
    wire [4:0]  d_pu = p6558 ? 5'd0 : l2[4:0] - 5'd2;
    wire [4:0]  d_p = p6558 ? 5'd0 : l2[4:0];
    wire [FW-1:0] d_eo = ip_e - {10'd0, d_s};
    wire [6:0]  d_lim = l2 + 7'd46;                      // 60 + 4 per tag
    localparam RW = 2 + 4 + LW + 5 + 5 + 16 + FW;
    wire [RW-1:0] d_rec = {d_mode, d_b0, d_r, d_pu, d_p, gproto, d_eo};

    // Length verdict at the frame's last beat.
    wire [1:0]  f_mode = p_dec ? p_mode : d_mode;
    wire [3:0]  f_reason = p_dec ? p_reason : d_reason;
    wire [FW-1:0] f_e = p_dec ? p_e : ip_e;
    wire [6:0]  f_lim = p_dec ? p_lim : d_lim;
    wire        len_ok = cnt == f_e || (cnt > f_e && cnt <= {10'd0, f_lim});
    wire        in_xbad = in_last && f_mode == M_DECAP && !len_ok;
    // The output stage can only be reading this beat directly (bypass) if the frame's decision
    // was made in an earlier beat, so the bypass copy uses the registered decision alone.
    wire        len_ok_p = cnt == p_e || (cnt > p_e && cnt <= {10'd0, p_lim});
    wire        in_xbad_b = in_last && p_mode == M_DECAP && !len_ok_p;

    always @(posedge clk) begin
        stat_valid <= 1'b0;
        if (in_fire) begin
            hdr <= hn;
            p_acc <= acc;
            if (dec_push) begin
                p_mode <= d_mode;
                p_reason <= d_reason;
                p_e <= ip_e;
                p_lim <= d_lim;
            end
            if (in_last) begin
                p_k <= {KW{1'b0}};
                p_fb <= {FW{1'b0}};
                p_dec <= 1'b0;
                stat_valid <= 1'b1;
                stat_reason <= in_xbad ? R_DROP_LENGTH : f_reason;
            end else begin
                if (p_k != {KW{1'b1}}) p_k <= p_k + 1'b1;
                p_fb <= cnt;
                if (d_ready) p_dec <= 1'b1;
            end
        end
        if (rst) begin
            p_k <= {KW{1'b0}};
            p_fb <= {FW{1'b0}};
            p_dec <= 1'b0;
            stat_valid <= 1'b0;
        end
    end

    // -----------------------------------------------------------------------------------------
    // Header buffer (beats), read through a bypass so that a beat arriving in this cycle can be
    // output in this cycle, and decision queue (records, registered: a decision made in a cycle
    // is used from the next one, which splits the parser and the output stage in two cycles).
    // -----------------------------------------------------------------------------------------
    reg [DATA_WIDTH-1:0] b_data [0:DEPTH-1];
    reg [CW-1:0]         b_cnt  [0:DEPTH-1];
    reg                  b_last [0:DEPTH-1];
    reg [USER_WIDTH-1:0] b_user [0:DEPTH-1];
    reg                  b_xbad [0:DEPTH-1];
    reg [AW-1:0]         b_wr, b_rd;
    reg [4:0]            b_count;
    wire [4:0]           b_avail = b_count + {4'd0, in_fire};

    reg [RW-1:0]         q_rec [0:DEPTH-1];
    reg [AW-1:0]         q_wr, q_rd;
    reg [4:0]            q_count;
    wire                 rec_avail = q_count != 0;
    wire [RW-1:0]        rec = q_rec[q_rd];
    wire [1:0]           rec_mode;
    wire [3:0]           rec_b0;
    wire [LW-1:0]        rec_r;
    wire [4:0]           rec_pu, rec_p;
    wire [15:0]          rec_proto;
    wire [FW-1:0]        rec_eo;
    assign {rec_mode, rec_b0, rec_r, rec_pu, rec_p, rec_proto, rec_eo} = rec;

    // Three read ports: u = entry 0 (the unshifted beat), s = entry soff, s1 = entry soff + 1.
    reg  [3:0]           soff;       // current frame's shifted-window offset (see the stage)
    wire [3:0]           soff1 = soff + 1'b1;
    wire                 u_buf  = b_count != 0;
    wire                 s_buf  = {1'b0, soff} < b_count;
    wire                 s1_buf = {1'b0, soff1} < b_count;
    wire [AW-1:0]        u_idx  = b_rd;
    wire [AW-1:0]        s_idx  = b_rd + soff[AW-1:0];
    wire [AW-1:0]        s1_idx = b_rd + soff1[AW-1:0];
    wire                 u_ok   = b_avail != 0;
    wire                 s_ok   = {1'b0, soff} < b_avail;
    wire                 s1_ok  = {1'b0, soff1} < b_avail;
    wire [DATA_WIDTH-1:0] u_data  = u_buf  ? b_data[u_idx]  : s_axis_tdata;
    wire [DATA_WIDTH-1:0] s_data  = s_buf  ? b_data[s_idx]  : s_axis_tdata;
    wire [DATA_WIDTH-1:0] s1_data = s1_buf ? b_data[s1_idx] : s_axis_tdata;
    wire [CW-1:0]        u_cnt   = u_buf  ? b_cnt[u_idx]   : in_cnt;
    wire [CW-1:0]        s_cnt   = s_buf  ? b_cnt[s_idx]   : in_cnt;
    wire [CW-1:0]        s1_cnt  = s1_buf ? b_cnt[s1_idx]  : in_cnt;
    wire                 u_last  = u_buf  ? b_last[u_idx]  : in_last;
    wire                 s_last  = s_buf  ? b_last[s_idx]  : in_last;
    wire                 s1_last = s1_buf ? b_last[s1_idx] : in_last;
    wire [USER_WIDTH-1:0] u_user  = u_buf  ? b_user[u_idx]  : s_axis_tuser;
    wire [USER_WIDTH-1:0] s_user  = s_buf  ? b_user[s_idx]  : s_axis_tuser;
    wire [USER_WIDTH-1:0] s1_user = s1_buf ? b_user[s1_idx] : s_axis_tuser;
    wire                 u_xbad  = u_buf  ? b_xbad[u_idx]  : in_xbad_b;
    wire                 s_xbad  = s_buf  ? b_xbad[s_idx]  : in_xbad_b;
    wire                 s1_xbad = s1_buf ? b_xbad[s1_idx] : in_xbad_b;

    // -----------------------------------------------------------------------------------------
    // Output stage. Output byte o of a decapsulated frame is: o < pu: input byte o (outer MACs
    // and tags, from the unshifted beat u); pu <= o < p: the GRE protocol; o >= p: input byte
    // o + S, taken from the window {s1, s} shifted by r = S mod W bytes (s = input beat
    // floor((o_beat + S) / W)). A passed frame is the same with S = 0 and no prefix.
    // -----------------------------------------------------------------------------------------
    reg              st_act, st_drain;
    reg [1:0]        st_mode;
    reg [LW-1:0]     st_r;
    reg [3:0]        st_soff;
    reg [4:0]        st_uleft, st_pleft;   // unshifted / prefix bytes still to output
    reg [15:0]       st_proto;
    reg [FW-1:0]     st_eleft;             // output bytes left by the IP length

    wire [1:0]       c_mode  = st_act ? st_mode  : rec_mode;
    wire [LW-1:0]    c_r     = st_act ? st_r     : rec_r;
    wire [4:0]       c_uleft = st_act ? st_uleft : rec_pu;
    wire [4:0]       c_pleft = st_act ? st_pleft : rec_p;
    wire [15:0]      c_proto = st_act ? st_proto : rec_proto;
    wire [FW-1:0]    c_eleft = st_act ? st_eleft : rec_eo;
    always @* soff = st_act ? st_soff : rec_b0;

    reg                  m_valid;
    reg [DATA_WIDTH-1:0] m_data;
    reg [KEEP_WIDTH-1:0] m_keep;
    reg                  m_last;
    reg [USER_WIDTH-1:0] m_user;
    wire                 can_out = !m_valid || m_axis_tready;

    /* verilator lint_off UNUSEDSIGNAL */  // only the low half of the shifted pair is the window
    wire [2*DATA_WIDTH-1:0] win2 = {s1_data, s_data} >> {c_r, 3'b000};
    /* verilator lint_on UNUSEDSIGNAL */
    wire [DATA_WIDTH-1:0]   win = win2[DATA_WIDTH-1:0];

    // Decapsulation step: end of frame by the input's end (F) or by the IP length (E).
    wire         r_nz = c_r != {LW{1'b0}};
    wire         dc_ready = s_ok && (!r_nz || s_last || s1_ok);
    wire [CW:0]  wr_left = WB1 - {{(CW+1-LW){1'b0}}, c_r};          // bytes of s in the window
    wire         fin_f = s_last || (r_nz && s1_last && s1_cnt <= {1'b0, c_r});
    wire         vis_last = s_last || (r_nz && s1_last);
    wire [CW:0]  vb_f = s_last ? {1'b0, s_cnt} - {{(CW+1-LW){1'b0}}, c_r}
                      : (r_nz && s1_last && s1_cnt <= {1'b0, c_r}) ? wr_left + {1'b0, s1_cnt}
                      : WB1;
    wire         fin_e = c_eleft <= WF;
    wire [CW:0]  vb = (fin_e && c_eleft[CW:0] < vb_f) ? c_eleft[CW:0] : vb_f;
    // Only at 64 bits does the kept prefix (outer MACs and tags, <= 20 bytes) span beats.
    wire         more_pre;
    wire [4:0]   nx_uleft, nx_pleft;
    generate
        if (W < 32) begin : g_multi_beat_prefix
            assign more_pre = c_uleft > W5;
            assign nx_uleft = c_uleft > W5 ? c_uleft - W5 : 5'd0;
            assign nx_pleft = c_pleft > W5 ? c_pleft - W5 : 5'd0;
        end else begin : g_one_beat_prefix
            assign more_pre = 1'b0;
            assign nx_uleft = 5'd0;
            assign nx_pleft = 5'd0;
        end
    endgenerate

    reg [DATA_WIDTH-1:0] dc_data;
    always @* begin
        for (i = 0; i < W; i = i + 1) begin
            if (i < c_uleft)
                dc_data[8*i +: 8] = u_data[8*i +: 8];
            else if (i < c_pleft)
                dc_data[8*i +: 8] = (i[6:0] == {2'b00, c_uleft}) ? c_proto[15:8] : c_proto[7:0];
            else
                dc_data[8*i +: 8] = win[8*i +: 8];
        end
    end

    reg [4:0]    pop;
    reg          take, out_ld, out_hold, drain_done;
    reg          nx_act, nx_drain;
    reg [3:0]    nx_soff;
    reg [DATA_WIDTH-1:0] o_data;
    reg [CW:0]   o_cnt;
    reg          o_last;
    reg [USER_WIDTH-1:0] o_user;
    always @* begin
        pop = 5'd0;
        take = 1'b0;
        out_ld = 1'b0;
        out_hold = 1'b0;
        drain_done = 1'b0;
        nx_act = st_act;
        nx_drain = st_drain;
        nx_soff = soff;
        o_data = dc_data;
        o_cnt = vb;
        o_last = 1'b0;
        o_user = s_user;
        if (st_drain) begin
            // The output's last beat is held until the input frame's end shows its verdict.
            if (u_ok) begin
                pop = 1;
                if (u_last) begin
                    drain_done = 1'b1;
                    nx_drain = 1'b0;
                    nx_act = 1'b0;
                end
            end
        end else if ((st_act || rec_avail) && u_ok) begin
            case (c_mode)
                M_DECAP: if (can_out && dc_ready) begin
                    take = !st_act;
                    out_ld = 1'b1;
                    nx_act = 1'b1;
                    if (fin_f || fin_e) begin
                        o_last = 1'b1;
                        if (vis_last) begin
                            pop = {1'b0, soff} + (s_last ? 1 : 2);
                            o_user = s_last ? (s_user | (s_xbad ? U_BAD : U_NONE))
                                            : (s1_user | (s1_xbad ? U_BAD : U_NONE));
                            nx_act = 1'b0;
                        end else begin
                            pop = {1'b0, soff} + 1;
                            out_hold = 1'b1;
                            nx_drain = 1'b1;
                        end
                    end else if (more_pre) begin
                        pop = 1;
                    end else begin
                        pop = {1'b0, soff} + 1;
                        nx_soff = 4'd0;
                    end
                end
                M_DROP: begin
                    take = !st_act;
                    pop = 1;
                    nx_act = !u_last;
                end
                default: if (can_out) begin
                    take = !st_act;
                    out_ld = 1'b1;
                    pop = 1;
                    nx_act = !u_last;
                    o_data = u_data;
                    o_cnt = {1'b0, u_cnt};
                    o_last = u_last;
                    o_user = u_user | (u_xbad && u_last ? U_BAD : U_NONE);
                end
            endcase
        end
    end

    wire [FW-1:0] eleft_next = c_eleft - WF;

    always @(posedge clk) begin
        // header buffer
        if (in_fire) begin
            b_data[b_wr] <= s_axis_tdata;
            b_cnt[b_wr]  <= in_cnt;
            b_last[b_wr] <= in_last;
            b_user[b_wr] <= s_axis_tuser;
            b_xbad[b_wr] <= in_xbad;
            b_wr <= b_wr + 1'b1;
        end
        b_rd <= b_rd + pop[AW-1:0];
        b_count <= b_avail - pop;
        // decision queue
        if (dec_push) begin
            q_rec[q_wr] <= d_rec;
            q_wr <= q_wr + 1'b1;
        end
        if (take) q_rd <= q_rd + 1'b1;
        q_count <= q_count + {4'd0, dec_push} - {4'd0, take};
        // Room for one more beat. The decision queue needs no check: it holds at most one record
        // per frame with beats in the header buffer.
        tready_q <= (b_avail - pop) < DEPTH5;

        // output stage
        st_act <= nx_act;
        st_drain <= nx_drain;
        if (out_ld || (c_mode != M_DECAP && take)) begin
            st_mode <= c_mode;
            st_r <= c_r;
            st_soff <= nx_soff;
            st_uleft <= nx_uleft;
            st_pleft <= nx_pleft;
            st_proto <= c_proto;
            st_eleft <= eleft_next;
        end
        if (out_ld) begin
            m_data <= o_data;
            m_keep <= ~({KEEP_WIDTH{1'b1}} << o_cnt);
            m_last <= o_last;
            m_user <= o_user;
            m_valid <= !out_hold;
        end else if (drain_done) begin
            m_user <= u_user | (u_xbad ? U_BAD : U_NONE);
            m_valid <= 1'b1;
        end else if (m_axis_tready) begin
            m_valid <= 1'b0;
        end

        if (rst) begin
            b_wr <= {AW{1'b0}};
            b_rd <= {AW{1'b0}};
            b_count <= 5'd0;
            q_wr <= {AW{1'b0}};
            q_rd <= {AW{1'b0}};
            q_count <= 5'd0;
            tready_q <= 1'b0;
            st_act <= 1'b0;
            st_drain <= 1'b0;
            m_valid <= 1'b0;
        end
    end

    assign m_axis_tdata = m_data;
    assign m_axis_tkeep = m_keep;
    assign m_axis_tvalid = m_valid;
    assign m_axis_tlast = m_last;
    assign m_axis_tuser = m_user;

endmodule

`default_nettype wire
