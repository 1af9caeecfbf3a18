// gre_encap: GRE tunnel encapsulation at line rate (RFC 2784 / RFC 2890, version 0).
//
// Each frame picks a tunnel with s_axis_tdest (valid with its first beat) from a table of TUNNELS
// entries (configuration ports). The output is outer Ethernet (tunnel MACs) / IPv4 (no options,
// DF, ID 0, the tunnel's TTL, header checksum computed on the fly) or IPv6 (hop limit = the TTL
// field) / GRE (K with the tunnel's key, S with the tunnel's sequence counter, both optional) /
// payload:
//   cfg_tun_l3 = 0: GRE protocol 0x6558 around the whole input frame;
//   cfg_tun_l3 = 1: the input's payload after its 14-byte Ethernet header, with the input's
//                   Ethertype (must be 0x0800 or 0x86DD) as the GRE protocol.
// The IP length fields need the frame length up front: s_axis_tlen[15:0], the frame's length in
// bytes, valid with the first beat. Sequence counters (one per tunnel) start at 0 after reset and
// count the frames sent with S. A disabled tunnel (or tdest >= TUNNELS) passes frames unchanged.
// stat_valid pulses once per frame (when its last input beat is consumed) with stat_reason:
// 0 encapsulated, 1 passed (tunnel disabled), 2 dropped (L3 tunnel, input not IPv4/IPv6 or
// shorter than 14 bytes), 3 encapsulated but s_axis_tlen disagreed with the frame (output bad).
//
// Latency:    2 cycles; 3 cycles at 64 bits for an L3 tunnel (the Ethertype is in the 2nd beat).
//             Every beat first goes through an input register that also holds its registered
//             tunnel lookup and IP length; the checksum and the header are formed after it.
// Throughput: 1 output beat per cycle, back-to-back frames, every width: the output is longer
//             than the input by the header, so the input is throttled (s_axis_tready, a register)
//             to the output's pace through a small buffer.
// Bad input:  tuser is passed through (tuser[0] on the last beat). A frame whose length differs
//             from s_axis_tlen leaves with the header already sent and tuser[0] = 1 on its last
//             beat. An L3-tunnel frame that is not IPv4/IPv6 is dropped and counted.
// Parameters: DATA_WIDTH 64, 256 or 512; KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             TUNNELS 1..64; DEST_WIDTH >= clog2(TUNNELS). Configuration inputs are quasi-static.
`default_nettype none

module gre_encap #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter TUNNELS = 4,
    parameter DEST_WIDTH = (TUNNELS > 1) ? $clog2(TUNNELS) : 1
) (
    input  wire                      clk,
    input  wire                      rst,

    input  wire [DATA_WIDTH-1:0]     s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]     s_axis_tkeep,
    input  wire                      s_axis_tvalid,
    output wire                      s_axis_tready,
    input  wire                      s_axis_tlast,
    input  wire [USER_WIDTH-1:0]     s_axis_tuser,
    input  wire [DEST_WIDTH-1:0]     s_axis_tdest,
    input  wire [15:0]               s_axis_tlen,

    output wire [DATA_WIDTH-1:0]     m_axis_tdata,
    output wire [KEEP_WIDTH-1:0]     m_axis_tkeep,
    output wire                      m_axis_tvalid,
    input  wire                      m_axis_tready,
    output wire                      m_axis_tlast,
    output wire [USER_WIDTH-1:0]     m_axis_tuser,

    input  wire [TUNNELS-1:0]        cfg_tun_enable,
    input  wire [TUNNELS-1:0]        cfg_tun_ipv6,
    input  wire [TUNNELS-1:0]        cfg_tun_l3,
    input  wire [TUNNELS-1:0]        cfg_tun_key_en,
    input  wire [TUNNELS-1:0]        cfg_tun_seq_en,
    input  wire [48*TUNNELS-1:0]     cfg_tun_mac_dst,
    input  wire [48*TUNNELS-1:0]     cfg_tun_mac_src,
    input  wire [128*TUNNELS-1:0]    cfg_tun_src,
    input  wire [128*TUNNELS-1:0]    cfg_tun_dst,
    input  wire [8*TUNNELS-1:0]      cfg_tun_ttl,
    input  wire [32*TUNNELS-1:0]     cfg_tun_key,

    output reg                       stat_valid,
    output reg  [1:0]                stat_reason
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
        if (TUNNELS < 1 || TUNNELS > 64) begin : g_bad_tunnels
            PARAMETER_ERROR_TUNNELS_must_be_1_to_64 u_error();
        end
        if (DEST_WIDTH < 1 || (1 << DEST_WIDTH) < TUNNELS) begin : g_bad_dest_width
            PARAMETER_ERROR_DEST_WIDTH_must_index_every_tunnel u_error();
        end
    endgenerate

    localparam [1:0] S_ENCAP = 2'd0, S_PASS = 2'd1, S_DROP = 2'd2, S_BAD_LENGTH = 2'd3;
    localparam [1:0] M_ENCAP = 2'd0, M_PASS = 2'd1, M_DROP = 2'd2;

    localparam W = KEEP_WIDTH;
    localparam LW = $clog2(W);
    localparam CW = LW + 1;
    localparam [CW-1:0] WB = W[CW-1:0];
    localparam [CW:0] WB1 = W[CW:0];
    localparam [6:0] W7 = W[6:0];
    localparam [USER_WIDTH-1:0] U_BAD = 1;           // tuser[0] = bad
    localparam [USER_WIDTH-1:0] U_NONE = 0;
    localparam DEPTH = 8;
    localparam AW = $clog2(DEPTH);
    localparam HMAX = 66;                            // longest outer header: 14 + 40 + 12
    localparam HW = 8 * HMAX;
    localparam ET_BEAT = (W == 8) ? 1 : 0;           // beat holding the input's Ethertype
    localparam [CW-1:0] ET_NEED = 14 - 8 * ET_BEAT;  // bytes of that beat up to the Ethertype

    // -----------------------------------------------------------------------------------------
    // Input: a small buffer of beats with their first-beat sideband and the length verdict
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

    reg              i_first;        // the next input beat starts a frame
    reg  [16:0]      i_fb;           // bytes of the frame before this beat (saturating)
    reg  [15:0]      i_tlen;         // the frame's s_axis_tlen
    wire [17:0]      i_cnt_wide = {1'b0, i_fb} + {{(18-CW){1'b0}}, in_cnt};
    wire [16:0]      i_cnt = i_cnt_wide[17] ? 17'h1FFFF : i_cnt_wide[16:0];
    wire [15:0]      i_len = i_first ? s_axis_tlen : i_tlen;
    wire             in_xbad = i_cnt != {1'b0, i_len};   // used on the last beat

    // Tunnel lookup and IP length of the beat (used on a frame's first beat), registered with
    // the beat in the input register (d_*) before the checksum and the header are formed.
    wire             i_t_in = {{(32-DEST_WIDTH){1'b0}}, s_axis_tdest} < TUNNELS;
    wire [DEST_WIDTH-1:0] i_t = i_t_in ? s_axis_tdest : {DEST_WIDTH{1'b0}};
    wire             i_en = i_t_in && cfg_tun_enable[i_t];
    wire [4:0]       i_glen = 5'd4 + {2'b00, cfg_tun_key_en[i_t], 2'b00} + {2'b00, cfg_tun_seq_en[i_t], 2'b00};
    wire [15:0]      i_payload = s_axis_tlen - (cfg_tun_l3[i_t] ? 16'd14 : 16'd0);
    // IPv4 total length, or IPv6 payload length
    wire [15:0]      i_iplen = i_payload + {11'd0, i_glen} + (cfg_tun_ipv6[i_t] ? 16'd0 : 16'd20);
    // The outer header's length H and, for an encapsulated frame, the output's offset T into the
    // input (H - 14 for L3 tunnels, else H) as the window's start: r = (-T) mod W bytes and the
    // first beat's base = -ceil(T / W) (see the output stage).
    wire [6:0]       i_hdlen = (cfg_tun_ipv6[i_t] ? 7'd54 : 7'd34) + {2'd0, i_glen};
    wire [7:0]       i_tt = {1'b0, i_hdlen} - (cfg_tun_l3[i_t] ? 8'd14 : 8'd0);
    wire [LW-1:0]    i_r = -i_tt[LW-1:0];
    wire [7:0]       i_tb = i_tt >> LW;                         // whole beats in T
    wire [7:0]       i_base = 8'd0 - i_tb - {7'd0, i_r != {LW{1'b0}}};

    // Whether the beat holds an IP Ethertype where an L3 tunnel reads it (bytes 12..13 of the
    // frame: beat ET_BEAT, bytes 12 - 8 * ET_BEAT ..), flagged at the input.
    wire [15:0]      i_et = {s_axis_tdata[8*(12-8*ET_BEAT) +: 8], s_axis_tdata[8*(13-8*ET_BEAT) +: 8]};
    wire             i_et_ip = i_et == 16'h0800 || i_et == 16'h86DD;

    reg                  d_v;
    reg                  d_et_ip;
    reg [DATA_WIDTH-1:0] d_data;
    reg [CW-1:0]         d_cnt;
    reg                  d_last;
    reg [USER_WIDTH-1:0] d_user;
    reg                  d_xbad;
    reg [DEST_WIDTH-1:0] d_t;
    reg                  d_en;
    reg [15:0]           d_iplen;
    reg [6:0]            d_hdlen;
    reg [LW-1:0]         d_r;
    reg [7:0]            d_base;
    always @(posedge clk) begin
        d_v <= in_fire;
        d_data <= s_axis_tdata;
        d_cnt <= in_cnt;
        d_last <= in_last;
        d_user <= s_axis_tuser;
        d_xbad <= in_xbad;
        d_t <= i_t;
        d_en <= i_en;
        d_iplen <= i_iplen;
        d_et_ip <= i_et_ip;
        d_hdlen <= i_hdlen;
        d_r <= i_r;
        d_base <= i_base;
        if (rst) d_v <= 1'b0;
    end
    // IPv4 header checksum of the beat's frame: the part that does not depend on the frame
    // (0x4500, DF, TTL and protocol, addresses) is summed per tunnel in registers from the
    // configuration (quasi-static: a change is used from the next cycle); the frame adds its
    // total length.
    reg  [20*TUNNELS-1:0] tun_csum;
    wire [19:0]      d_sum = tun_csum[20*d_t +: 20] + {4'd0, d_iplen};
    wire [16:0]      d_fold1 = {1'b0, d_sum[15:0]} + {13'd0, d_sum[19:16]};
    wire [15:0]      d_csum = ~(d_fold1[15:0] + {15'd0, d_fold1[16]});
    always @(posedge clk) begin
        if (in_fire) begin
            if (i_first) i_tlen <= s_axis_tlen;
            i_first <= in_last;
            i_fb <= in_last ? 17'd0 : i_cnt;
        end
        if (rst) begin
            i_first <= 1'b1;
            i_fb <= 17'd0;
        end
    end

    reg [DATA_WIDTH-1:0] b_data [0:DEPTH-1];
    reg [CW-1:0]         b_cnt  [0:DEPTH-1];
    reg                  b_last [0:DEPTH-1];
    reg [USER_WIDTH-1:0] b_user [0:DEPTH-1];
    reg                  b_xbad [0:DEPTH-1];
    reg [DEST_WIDTH-1:0] b_t    [0:DEPTH-1];
    reg                  b_en   [0:DEPTH-1];
    reg [15:0]           b_iplen [0:DEPTH-1];
    reg [15:0]           b_csum [0:DEPTH-1];
    reg                  b_et_ip [0:DEPTH-1];
    reg [6:0]            b_hdlen [0:DEPTH-1];
    reg [LW-1:0]         b_r    [0:DEPTH-1];
    reg [7:0]            b_base [0:DEPTH-1];
    reg [AW-1:0]         b_wr, b_rd;
    reg [AW:0]           b_count;
    wire [AW:0]          b_avail = b_count + {{AW{1'b0}}, d_v};

    // Read ports p0 = entry 0, p1 = entry 1 (a beat arriving from the input register in this
    // cycle is read directly).
    wire [AW-1:0]        p1_idx = b_rd + 1'b1;
    wire                 p0_buf = b_count != 0;
    wire                 p1_buf = b_count > 1;
    wire                 p0_ok = b_avail != 0;
    wire                 p1_ok = b_avail > 1;
    wire [DATA_WIDTH-1:0] p0_data = p0_buf ? b_data[b_rd]   : d_data;
    wire [DATA_WIDTH-1:0] p1_data = p1_buf ? b_data[p1_idx] : d_data;
    wire [CW-1:0]        p0_cnt  = p0_buf ? b_cnt[b_rd]     : d_cnt;
    wire [CW-1:0]        p1_cnt  = p1_buf ? b_cnt[p1_idx]   : d_cnt;
    wire                 p0_last = p0_buf ? b_last[b_rd]    : d_last;
    wire                 p1_last = p1_buf ? b_last[p1_idx]  : d_last;
    wire [USER_WIDTH-1:0] p0_user = p0_buf ? b_user[b_rd]   : d_user;
    wire [USER_WIDTH-1:0] p1_user = p1_buf ? b_user[p1_idx] : d_user;
    wire                 p0_xbad = p0_buf ? b_xbad[b_rd]    : d_xbad;
    wire                 p1_xbad = p1_buf ? b_xbad[p1_idx]  : d_xbad;
    wire [DEST_WIDTH-1:0] p0_t   = p0_buf ? b_t[b_rd]       : d_t;
    wire                 p0_en   = p0_buf ? b_en[b_rd]      : d_en;
    wire [15:0]          p0_iplen = p0_buf ? b_iplen[b_rd]  : d_iplen;
    wire [15:0]          p0_csum = p0_buf ? b_csum[b_rd]    : d_csum;
    wire                 p0_et_ip = p0_buf ? b_et_ip[b_rd]  : d_et_ip;
    wire                 p1_et_ip = p1_buf ? b_et_ip[p1_idx] : d_et_ip;
    wire [6:0]           p0_hdlen = p0_buf ? b_hdlen[b_rd]  : d_hdlen;
    wire [LW-1:0]        p0_r    = p0_buf ? b_r[b_rd]       : d_r;
    wire [7:0]           p0_base = p0_buf ? b_base[b_rd]    : d_base;

    // -----------------------------------------------------------------------------------------
    // The frame at the head: its tunnel, mode and outer header (used when it starts)
    // -----------------------------------------------------------------------------------------
    wire [DEST_WIDTH-1:0] t = p0_t;  // resolved at the input (0 when out of range)
    wire             t_en  = p0_en;
    wire             t_v6  = cfg_tun_ipv6[t];
    wire             t_l3  = cfg_tun_l3[t];
    wire             t_k   = cfg_tun_key_en[t];
    wire             t_s   = cfg_tun_seq_en[t];
    wire [47:0]      t_mdst = cfg_tun_mac_dst[48*t +: 48];
    wire [47:0]      t_msrc = cfg_tun_mac_src[48*t +: 48];
    wire [127:0]     t_src = cfg_tun_src[128*t +: 128];
    wire [127:0]     t_dst = cfg_tun_dst[128*t +: 128];
    wire [7:0]       t_ttl = cfg_tun_ttl[8*t +: 8];
    wire [31:0]      t_key = cfg_tun_key[32*t +: 32];

    reg  [32*TUNNELS-1:0] seq;       // per-tunnel sequence counters
    wire [31:0]      t_seq = seq[32*t +: 32];

    // The input's Ethertype (L3 tunnels): bytes 12..13, in beat ET_BEAT.
    wire [15:0]      et_in;
    generate
        if (ET_BEAT) begin : g_et_beat1
            assign et_in = {p1_data[8*4 +: 8], p1_data[8*5 +: 8]};
        end else begin : g_et_beat0
            assign et_in = {p0_data[8*12 +: 8], p0_data[8*13 +: 8]};
        end
    endgenerate
    wire             et_have = ET_BEAT ? (!p0_last && p1_ok && (!p1_last || p1_cnt >= ET_NEED))
                                       : (!p0_last || p0_cnt >= ET_NEED);
    wire             et_ok = et_have && (ET_BEAT ? p1_et_ip : p0_et_ip);
    wire             hd_wait = ET_BEAT && t_en && t_l3 && !p0_last && !p1_ok;
    wire [1:0]       hd_mode = !t_en ? M_PASS : (t_l3 && !et_ok) ? M_DROP : M_ENCAP;

    // Outer header bytes (byte j at hd[8j +: 8]).
    wire [15:0]      proto = t_l3 ? et_in : 16'h6558;
    wire [15:0]      v4_tot = p0_iplen;
    wire [15:0]      v6_plen = p0_iplen;
    wire [15:0]      v4_csum = p0_csum;
    wire [95:0]      gre_key_seq = t_k ? {t_key, t_seq, 32'd0} : {t_seq, 64'd0};
    wire [127:0]     gre_hdr = {1'b0, 1'b0, t_k, t_s, 4'd0, 8'd0, proto, gre_key_seq};  // 16 bytes max
    wire [6:0]       hd_len = p0_hdlen;

    reg [HW-1:0]     hd;             // built big-endian below, then byte-reversed into hd
    reg [HW-1:0]     hd_be;
    always @* begin
        hd_be = {HW{1'b0}};
        if (t_v6)
            hd_be[HW-1 -: 8*54] = {t_mdst, t_msrc, 16'h86DD, 32'h6000_0000, v6_plen, 8'd47, t_ttl,
                                   t_src, t_dst};
        else
            hd_be[HW-1 -: 8*34] = {t_mdst, t_msrc, 16'h0800, 16'h4500, v4_tot, 16'h0000, 16'h4000,
                                   t_ttl, 8'd47, v4_csum, t_src[31:0], t_dst[31:0]};
        if (t_v6) hd_be[HW-1-8*54 -: 96] = gre_hdr[127 -: 96];
        else      hd_be[HW-1-8*34 -: 128] = gre_hdr;
        for (i = 0; i < HMAX; i = i + 1) hd[8*i +: 8] = hd_be[HW-1-8*i -: 8];
    end

    // Output byte o: o < H (header length): header byte o; else input byte o - T with
    // T = H - (14 for L3 tunnels, else 0). Beat n reads the window {next, head} >> 8r where
    // head = input beat base = floor((nW - T) / W) and r = (-T) mod W; a passed frame is T = 0.
    // (precomputed at the input for an encapsulation: p0_r, p0_base)
    wire             hd_enc = hd_mode == M_ENCAP;
    wire [LW-1:0]    hd_r = hd_enc ? p0_r : {LW{1'b0}};
    wire signed [7:0] hd_base = hd_enc ? $signed(p0_base) : 8'sd0;

    // -----------------------------------------------------------------------------------------
    // Output stage
    // -----------------------------------------------------------------------------------------
    reg              st_act;
    reg [1:0]        st_mode;
    reg signed [7:0] st_base;
    reg [LW-1:0]     st_r;
    reg [6:0]        st_hleft;
    reg [HW-1:0]     st_hd;

    wire [1:0]       c_mode = st_act ? st_mode : hd_mode;
    wire signed [7:0] c_base = st_act ? st_base : hd_base;
    wire [LW-1:0]    c_r = st_act ? st_r : hd_r;
    wire [6:0]       c_hleft = st_act ? st_hleft : (hd_mode == M_ENCAP ? hd_len : 7'd0);
    wire [HW-1:0]    c_hd = st_act ? st_hd : hd;

    wire             r_nz = c_r != {LW{1'b0}};
    wire             b_pos = c_base >= 0;                 // head = p0, next = p1
    wire             b_m1 = c_base == -1;                 // head = none, next = p0
    wire [DATA_WIDTH-1:0] w_head = b_pos ? p0_data : {DATA_WIDTH{1'b0}};
    wire [DATA_WIDTH-1:0] w_next = b_pos ? p1_data : p0_data;
    /* verilator lint_off UNUSEDSIGNAL */  // only the low half of the shifted pair is the window
    wire [2*DATA_WIDTH-1:0] win2 = {w_next, w_head} >> {c_r, 3'b000};
    /* verilator lint_on UNUSEDSIGNAL */
    wire [DATA_WIDTH-1:0] win = win2[DATA_WIDTH-1:0];
    wire             head_last = b_pos && p0_last;
    wire             next_last = r_nz && (b_pos ? p1_last : b_m1 && p0_last);
    wire [CW-1:0]    next_cnt = b_pos ? p1_cnt : p0_cnt;
    wire             next_fits = next_last && next_cnt <= {1'b0, c_r};
    wire             fin = head_last || next_fits;
    wire [CW:0]      vb = head_last ? {1'b0, p0_cnt} - {1'b0, {(CW-LW){1'b0}}, c_r}
                        : next_fits ? WB1 - {1'b0, {(CW-LW){1'b0}}, c_r} + {1'b0, next_cnt}
                        : WB1;
    wire             step_ok = b_pos ? (p0_ok && (!r_nz || p0_last || p1_ok))
                                     : (!b_m1 || !r_nz || p0_ok);

    reg [DATA_WIDTH-1:0] o_data;
    always @* begin
        for (i = 0; i < W; i = i + 1)
            o_data[8*i +: 8] = (i < c_hleft) ? c_hd[8*i +: 8] : win[8*i +: 8];
    end
    wire             fin_xbad = head_last ? p0_xbad : (b_pos ? p1_xbad : p0_xbad);
    wire [USER_WIDTH-1:0] o_user_last = (head_last || !b_pos ? p0_user : p1_user)
                                      | (c_mode == M_ENCAP && fin_xbad ? U_BAD : U_NONE);

    reg                  m_valid;
    reg [DATA_WIDTH-1:0] m_data;
    reg [KEEP_WIDTH-1:0] m_keep;
    reg                  m_last;
    reg [USER_WIDTH-1:0] m_user;
    wire                 can_out = !m_valid || m_axis_tready;

    reg          go, out_ld, done, take;
    reg [1:0]    pop;
    wire [AW:0]  pop_w = {{(AW-1){1'b0}}, pop};
    always @* begin
        go = 1'b0;
        out_ld = 1'b0;
        done = 1'b0;
        take = 1'b0;
        pop = 2'd0;
        if (st_act || (p0_ok && !hd_wait)) begin
            if (c_mode == M_DROP) begin
                go = p0_ok;
                pop = {1'b0, p0_ok};
                done = p0_ok && p0_last;
            end else if (can_out && step_ok) begin
                go = 1'b1;
                out_ld = 1'b1;
                done = fin;
                pop = fin ? (head_last ? 2'd1 : b_pos ? 2'd2 : 2'd1) : (b_pos ? 2'd1 : 2'd0);
            end
            take = go && !st_act;
        end
    end

    always @(posedge clk) begin
        if (d_v) begin
            b_data[b_wr] <= d_data;
            b_cnt[b_wr]  <= d_cnt;
            b_last[b_wr] <= d_last;
            b_user[b_wr] <= d_user;
            b_xbad[b_wr] <= d_xbad;
            b_t[b_wr]    <= d_t;
            b_en[b_wr]   <= d_en;
            b_iplen[b_wr] <= d_iplen;
            b_csum[b_wr] <= d_csum;
            b_et_ip[b_wr] <= d_et_ip;
            b_hdlen[b_wr] <= d_hdlen;
            b_r[b_wr]    <= d_r;
            b_base[b_wr] <= d_base;
            b_wr <= b_wr + 1'b1;
        end
        b_rd <= b_rd + pop_w[AW-1:0];
        b_count <= b_avail - pop_w;
        // Room for one more beat besides the one entering the input register now, not counting
        // this cycle's pop (one cycle pessimistic, which keeps the output stage out of this path).
        tready_q <= {1'b0, b_avail} + {{AW{1'b0}}, in_fire} < DEPTH;

        if (go) begin
            st_act <= !done;
            st_mode <= c_mode;
            st_base <= c_base < 0 ? c_base + 8'sd1 : 8'sd0;
            st_r <= c_r;
            st_hleft <= c_hleft > W7 ? c_hleft - W7 : 7'd0;
            st_hd <= c_hd >> (8 * W);
        end

        stat_valid <= go && done;
        stat_reason <= c_mode == M_DROP ? S_DROP : c_mode == M_PASS ? S_PASS
                     : fin_xbad ? S_BAD_LENGTH : S_ENCAP;

        if (out_ld) begin
            m_data <= o_data;
            m_keep <= ~({KEEP_WIDTH{1'b1}} << (fin ? vb : WB1));
            m_last <= fin;
            m_user <= fin ? o_user_last : p0_user;
            m_valid <= 1'b1;
        end else if (m_axis_tready) begin
            m_valid <= 1'b0;
        end

        if (rst) begin
            b_wr <= {AW{1'b0}};
            b_rd <= {AW{1'b0}};
            b_count <= {(AW+1){1'b0}};
            tready_q <= 1'b0;
            st_act <= 1'b0;
            stat_valid <= 1'b0;
            m_valid <= 1'b0;
        end
    end

    genvar gt;
    generate
        for (gt = 0; gt < TUNNELS; gt = gt + 1) begin : g_seq
            always @(posedge clk) begin
                if (rst)
                    seq[32*gt +: 32] <= 32'd0;
                else if (take && hd_mode == M_ENCAP && t_s && {{(32-DEST_WIDTH){1'b0}}, t} == gt)
                    seq[32*gt +: 32] <= t_seq + 1'b1;
            end
            always @(posedge clk)
                tun_csum[20*gt +: 20] <= 20'h08500 + {4'd0, cfg_tun_ttl[8*gt +: 8], 8'h2F}
                                       + {4'd0, cfg_tun_src[128*gt+16 +: 16]} + {4'd0, cfg_tun_src[128*gt +: 16]}
                                       + {4'd0, cfg_tun_dst[128*gt+16 +: 16]} + {4'd0, cfg_tun_dst[128*gt +: 16]};
        end
    endgenerate

    assign m_axis_tdata = m_data;
    assign m_axis_tkeep = m_keep;
    assign m_axis_tvalid = m_valid;
    assign m_axis_tlast = m_last;
    assign m_axis_tuser = m_user;

endmodule

`default_nettype wire
