// fp_gre_encap: GRE tunnel encapsulation at line rate (RFC 2784 / RFC 2890, version 0).
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
// stat_valid pulses once per frame (when its last input beat is consumed) with stat_reason, one of
// the `FP_GRE_VERDICT_ENCAP_* codes of gre/rtl/gre_verdict.fmt.toml (fp_gre_verdict.vh; table in
// gre/docs/formats/gre_verdict.md): encap, pass (tunnel disabled), drop (L3 tunnel, input not
// IPv4/IPv6 or shorter than 14 bytes), bad_length (encapsulated, but s_axis_tlen disagreed with
// the frame: output bad).
//
// Latency:    2 cycles; 3 cycles at 64 bits for an L3 tunnel (the Ethertype is in the 2nd beat).
//             Every beat first goes through an input register that also holds its registered
//             tunnel lookup and IP length, and the frame's mode and window offsets as the output
//             stage uses them at the frame's start (flags); the checksum is formed after it and
//             queued with them as one record per frame (head in a register), the header from the
//             record when the frame starts, then held in a register for its later beats.
// Throughput: 1 output beat per cycle, back-to-back frames, every width: the output is longer
//             than the input by the header, so the input is throttled (s_axis_tready, a register)
//             to the output's pace through a small buffer.
// Bad input:  tuser is passed through (tuser[0] on the last beat). A frame whose length differs
//             from s_axis_tlen leaves with the header already sent and tuser[0] = 1 on its last
//             beat. An L3-tunnel frame that is not IPv4/IPv6 is dropped and counted.
// Parameters: DATA_WIDTH 64, 256 or 512; KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             TUNNELS 1..64; DEST_WIDTH >= clog2(TUNNELS). Configuration inputs are quasi-static:
//             a change applies to frames whose first beat is accepted 2 or more cycles later.
`default_nettype none

`include "fp_gre_verdict.vh"

module fp_gre_encap #(
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

    // Reason codes (stat_reason): gre/rtl/gre_verdict.fmt.toml.
    localparam [1:0] S_ENCAP      = `FP_GRE_VERDICT_ENCAP_ENCAP,
                     S_PASS       = `FP_GRE_VERDICT_ENCAP_PASS,
                     S_DROP       = `FP_GRE_VERDICT_ENCAP_DROP,
                     S_BAD_LENGTH = `FP_GRE_VERDICT_ENCAP_BAD_LENGTH;
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
    localparam NHB = (HMAX + W - 1) / W;             // beats the longest header spans
    localparam HPW = NHB * DATA_WIDTH;
    localparam HBW = 4;
    localparam [HBW-1:0] NHB_B = NHB[HBW-1:0];
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
    // Per tunnel, from the configuration in registers (g_seq below): what the IP length adds to
    // the frame length (GRE header, IPv4 header, minus the Ethernet header of an L3 tunnel's
    // input), the outer header's length H and, for an encapsulated frame, the output's offset T
    // into the input (H - 14 for L3 tunnels, else H) as the window's start: r = (-T) mod W bytes
    // and the first beat's base = -ceil(T / W) (see the output stage).
    reg  [16*TUNNELS-1:0] tun_ipadd;
    reg  [7*TUNNELS-1:0]  tun_hdlen;
    reg  [LW*TUNNELS-1:0] tun_r;
    reg  [8*TUNNELS-1:0]  tun_base;
    // IPv4 total length, or IPv6 payload length
    wire [15:0]      i_iplen = s_axis_tlen + tun_ipadd[16*i_t +: 16];
    wire [6:0]       i_hdlen = tun_hdlen[7*i_t +: 7];
    wire [LW-1:0]    i_r = tun_r[LW*i_t +: LW];
    wire [7:0]       i_base = tun_base[8*i_t +: 8];
    // The same as the output stage uses them when the frame starts: T = 0 for a passed frame
    // (a dropped frame uses none of them), and the window's base as flags (base >= 0, base = -1)
    // so that the start decides from registered bits, not from an 8-bit compare.
    wire [LW-1:0]    i_r_e = i_en ? i_r : {LW{1'b0}};
    wire [7:0]       i_base_e = i_en ? i_base : 8'd0;
    wire [6:0]       i_hl_e = i_en ? i_hdlen : 7'd0;

    // Whether the beat holds an IP Ethertype where an L3 tunnel reads it (bytes 12..13 of the
    // frame: beat ET_BEAT, bytes 12 - 8 * ET_BEAT ..), flagged at the input.
    wire [15:0]      i_et = {s_axis_tdata[8*(12-8*ET_BEAT) +: 8], s_axis_tdata[8*(13-8*ET_BEAT) +: 8]};
    wire             i_et_ip = i_et == 16'h0800 || i_et == 16'h86DD;
    // ... and holds it whole (a last beat may end before byte 13).
    wire             i_et_ok = i_et_ip && (!in_last || in_cnt >= ET_NEED);
    // The frame's mode as far as its first beat tells: pass (tunnel disabled), drop (an L3 tunnel
    // and no IP Ethertype in this beat, when it is the Ethertype's beat), else encapsulate; at
    // 64 bits an L3 tunnel's Ethertype comes with the next beat (i_l3w: decided at the start).
    wire             i_l3 = cfg_tun_l3[i_t];
    wire             i_l3w = ET_BEAT && i_en && i_l3;
    wire [1:0]       i_mode = !i_en ? M_PASS : (!ET_BEAT && i_l3 && !i_et_ok) ? M_DROP : M_ENCAP;

    reg                  d_v;
    reg                  d_first;        // the beat starts a frame
    reg                  d_et_ok;
    reg                  d_l3w;
    reg [1:0]            d_mode;
    reg                  d_bpos;
    reg                  d_bm1;
    reg                  d_rnz;
    reg [DATA_WIDTH-1:0] d_data;
    reg [CW-1:0]         d_cnt;
    reg                  d_last;
    reg [USER_WIDTH-1:0] d_user;
    reg                  d_xbad;
    reg [DEST_WIDTH-1:0] d_t;
    reg [15:0]           d_iplen;
    reg [6:0]            d_hdlen;
    reg [LW-1:0]         d_r;
    reg [7:0]            d_base;
    always @(posedge clk) begin
        d_l3w <= i_l3w;
        d_mode <= i_mode;
        d_bpos <= i_base_e == 8'd0;
        d_bm1 <= i_base_e == 8'hFF;
        d_rnz <= i_r_e != {LW{1'b0}};
        d_v <= in_fire;
        d_first <= i_first;
        d_data <= s_axis_tdata;
        d_cnt <= in_cnt;
        d_last <= in_last;
        d_user <= s_axis_tuser;
        d_xbad <= in_xbad;
        d_t <= i_t;
        d_iplen <= i_iplen;
        d_et_ok <= i_et_ok;
        d_hdlen <= i_hl_e;
        d_r <= i_r_e;
        d_base <= i_base_e;
        if (rst) d_v <= 1'b0;
    end
    // IPv4 header checksum of the beat's frame: the part that does not depend on the frame
    // (0x4500, DF, TTL and protocol, addresses) is summed per tunnel in registers from the
    // configuration (quasi-static: a change is used two cycles later), summed and then folded to
    // 16 bits (tun_fold); the frame adds its total length with the end-around carry taken by
    // selecting between the sum and the sum + 1 (one carry chain deep).
    reg  [20*TUNNELS-1:0] tun_csum;
    reg  [16*TUNNELS-1:0] tun_fold;
    wire [15:0]      d_tf = tun_fold[16*d_t +: 16];
    wire [16:0]      d_s0 = {1'b0, d_tf} + {1'b0, d_iplen};
    wire [15:0]      d_s1 = d_tf + d_iplen + 16'd1;
    wire [15:0]      d_csum = ~(d_s0[16] ? d_s1 : d_s0[15:0]);
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
    reg                  b_et_ok [0:DEPTH-1];
    reg [AW-1:0]         b_wr, b_rd;
    reg [AW-1:0]         p1_idx;         // b_rd + 1, kept in a register
    reg [AW:0]           b_count;
    wire [AW:0]          b_avail = b_count + {{AW{1'b0}}, d_v};

    // b_count also as a thermometer code (b_th[k] = b_count > k), so the reads' selects and
    // availability are register bits, not compares on the count the output stage just changed.
    reg  [DEPTH-1:0]     b_th;
    integer              k;
    wire [DEPTH+2:0]     b_th_x = {2'b00, b_th, 1'b1};
    wire                 p0_buf = b_th[0];
    wire                 p1_buf = b_th[1];
    wire                 p0_ok = b_th[0] || d_v;
    wire                 p1_ok = b_th[1] || (b_th[0] && d_v);
    // Read ports p0 = entry 0, p1 = entry 1 (a beat arriving from the input register in this
    // cycle is read directly).
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
    wire                 p1_et_ok = p1_buf ? b_et_ok[p1_idx] : d_et_ok;

    // Frame records: what a frame's start needs (tunnel, IP length, checksum, mode, window
    // offsets and flags), one per frame, taken from its first beat in the input register. They
    // queue in f_mem in front of a head register fh_rec, so the start reads registers, not LUT
    // RAM: the frame at p0 starts from fh_rec when p0 is in the buffer (its record is then the
    // oldest not yet started, in fh_rec), else from the input register's own record.
    localparam RW = DEST_WIDTH + 16 + 16 + 1 + 2 + 3 + 7 + LW + 8;
    wire [RW-1:0]        d_rec = {d_t, d_iplen, d_csum, d_l3w, d_mode, d_bpos, d_bm1, d_rnz, d_hdlen,
                                  d_r, d_base};
    reg  [RW-1:0]        f_mem [0:DEPTH-1];
    reg  [RW-1:0]        fh_rec;
    reg                  fh_v;
    reg  [AW-1:0]        f_wr, f_rd;
    reg  [AW:0]          f_cnt;
    wire [RW-1:0]        p0_rec = p0_buf ? fh_rec : d_rec;
    wire [DEST_WIDTH-1:0] p0_t;
    wire [15:0]          p0_iplen, p0_csum;
    wire                 p0_l3w, p0_bpos, p0_bm1, p0_rnz;
    wire [1:0]           p0_mode;
    wire [6:0]           p0_hdlen;
    wire [LW-1:0]        p0_r;
    wire [7:0]           p0_base;
    assign {p0_t, p0_iplen, p0_csum, p0_l3w, p0_mode, p0_bpos, p0_bm1, p0_rnz, p0_hdlen, p0_r,
            p0_base} = p0_rec;

    // -----------------------------------------------------------------------------------------
    // The frame at the head: its tunnel, mode and outer header (used when it starts)
    // -----------------------------------------------------------------------------------------
    wire [DEST_WIDTH-1:0] t = p0_t;  // resolved at the input (0 when out of range)
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

    // Per-tunnel sequence counters. A frame's start only sets seq_bump (one flag per tunnel); the
    // counter moves to seq_p1 (its value + 1, kept ready) in the next cycle, and a frame starting
    // in that cycle already reads seq_p1: the wide counter enables hang off a register.
    reg  [32*TUNNELS-1:0] seq;
    reg  [32*TUNNELS-1:0] seq_p1;
    reg  [TUNNELS-1:0]    seq_bump;
    wire [31:0]      t_seq = seq_bump[t] ? seq_p1[32*t +: 32] : seq[32*t +: 32];

    // The input's Ethertype (L3 tunnels): bytes 12..13, in beat ET_BEAT.
    wire [15:0]      et_in;
    generate
        if (ET_BEAT) begin : g_et_beat1
            assign et_in = {p1_data[8*4 +: 8], p1_data[8*5 +: 8]};
        end else begin : g_et_beat0
            assign et_in = {p0_data[8*12 +: 8], p0_data[8*13 +: 8]};
        end
    endgenerate
    // The mode was decided at the input (p0_mode), except at 64 bits on an L3 tunnel (p0_l3w):
    // the start waits for the second beat and drops the frame unless it holds an IP Ethertype.
    wire             et_ok = !p0_last && p1_ok && p1_et_ok;
    wire             hd_wait = p0_l3w && !p0_last && !p1_ok;
    wire [1:0]       hd_mode = (p0_l3w && !et_ok) ? M_DROP : p0_mode;

    // Outer header bytes (byte j at hd[8j +: 8]), padded to whole beats.
    wire [15:0]      proto = t_l3 ? et_in : 16'h6558;
    wire [15:0]      v4_tot = p0_iplen;
    wire [15:0]      v6_plen = p0_iplen;
    wire [15:0]      v4_csum = p0_csum;
    wire [95:0]      gre_key_seq = t_k ? {t_key, t_seq, 32'd0} : {t_seq, 64'd0};
    wire [127:0]     gre_hdr = {1'b0, 1'b0, t_k, t_s, 4'd0, 8'd0, proto, gre_key_seq};  // 16 bytes max

    reg [HPW-1:0]    hd;             // built big-endian below, then byte-reversed into hd
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
        hd = {HPW{1'b0}};
        for (i = 0; i < HMAX; i = i + 1) hd[8*i +: 8] = hd_be[HW-1-8*i -: 8];
    end

    // Output byte o: o < H (header length): header byte o; else input byte o - T with
    // T = H - (14 for L3 tunnels, else 0). Beat n reads the window {next, head} >> 8r where
    // head = input beat base = floor((nW - T) / W) and r = (-T) mod W; a passed frame is T = 0.
    // (precomputed at the input: p0_r, p0_base and its flags p0_bpos (base >= 0), p0_bm1
    // (base = -1), p0_rnz (r != 0), p0_hdlen = H; all 0 for a passed frame)

    // -----------------------------------------------------------------------------------------
    // Output stage
    // -----------------------------------------------------------------------------------------
    // The first beat of a frame takes its header bytes from hd; the whole header is registered
    // in st_hd in every cycle no frame is active (so in the cycle a frame starts: no wide enable
    // on the start decision), and the frame's later beats select their header beat st_hb from it.
    reg              st_act;
    reg [1:0]        st_mode;
    reg signed [7:0] st_base;
    reg              st_bpos, st_bm1, st_rnz;
    reg [LW-1:0]     st_r;
    reg [6:0]        st_hleft;
    reg [HBW-1:0]    st_hb;
    reg [HPW-1:0]    st_hd;

    wire [1:0]       c_mode = st_act ? st_mode : hd_mode;
    wire signed [7:0] c_base = st_act ? st_base : $signed(p0_base);
    wire             c_bpos = st_act ? st_bpos : p0_bpos;  // head = p0, next = p1
    wire             c_bm1 = st_act ? st_bm1 : p0_bm1;     // head = none, next = p0
    wire             r_nz = st_act ? st_rnz : p0_rnz;
    wire [LW-1:0]    c_r = st_act ? st_r : p0_r;
    wire [6:0]       c_hleft = st_act ? st_hleft : p0_hdlen;
    reg  [DATA_WIDTH-1:0] hd_beat;
    integer          j;
    always @* begin
        hd_beat = {DATA_WIDTH{1'b0}};
        for (j = 1; j < NHB; j = j + 1)
            if (st_hb == j[HBW-1:0]) hd_beat = st_hd[DATA_WIDTH*j +: DATA_WIDTH];
    end
    wire [DATA_WIDTH-1:0] c_hd = st_act ? hd_beat : hd[DATA_WIDTH-1:0];

    // Selects between the two read ports are written as AND-OR, not as muxes: Yosys merges two
    // LUT RAM reads feeding a mux into one read whose address then waits for the select.
    wire [DATA_WIDTH-1:0] w_head = c_bpos ? p0_data : {DATA_WIDTH{1'b0}};
    wire [DATA_WIDTH-1:0] w_next = (p1_data & {DATA_WIDTH{c_bpos}}) | (p0_data & {DATA_WIDTH{!c_bpos}});
    /* verilator lint_off UNUSEDSIGNAL */  // only the low half of the shifted pair is the window
    wire [2*DATA_WIDTH-1:0] win2 = {w_next, w_head} >> {c_r, 3'b000};
    /* verilator lint_on UNUSEDSIGNAL */
    wire [DATA_WIDTH-1:0] win = win2[DATA_WIDTH-1:0];
    wire             head_last = c_bpos && p0_last;
    wire             next_last = r_nz && ((c_bpos && p1_last) || (c_bm1 && p0_last));
    wire [CW-1:0]    next_cnt = (p1_cnt & {CW{c_bpos}}) | (p0_cnt & {CW{!c_bpos}});
    wire             next_fits = next_last && next_cnt <= {1'b0, c_r};
    wire             fin = head_last || next_fits;
    wire [CW:0]      vb = head_last ? {1'b0, p0_cnt} - {1'b0, {(CW-LW){1'b0}}, c_r}
                        : next_fits ? WB1 - {1'b0, {(CW-LW){1'b0}}, c_r} + {1'b0, next_cnt}
                        : WB1;
    wire             step_ok = c_bpos ? (p0_ok && (!r_nz || p0_last || p1_ok))
                                      : (!c_bm1 || !r_nz || p0_ok);

    reg [DATA_WIDTH-1:0] o_data;
    always @* begin
        for (i = 0; i < W; i = i + 1)
            o_data[8*i +: 8] = (i < c_hleft) ? c_hd[8*i +: 8] : win[8*i +: 8];
    end
    wire             u_p0 = head_last || !c_bpos;    // the frame's last input beat is p0, else p1
    wire             fin_xbad = (u_p0 && p0_xbad) || (!u_p0 && p1_xbad);
    wire [USER_WIDTH-1:0] o_user_last = (p0_user & {USER_WIDTH{u_p0}}) | (p1_user & {USER_WIDTH{!u_p0}})
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
    wire         f_push = d_v && d_first && !(take && !p0_buf);  // a record to keep
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
                pop = fin ? (head_last ? 2'd1 : c_bpos ? 2'd2 : 2'd1) : (c_bpos ? 2'd1 : 2'd0);
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
            b_et_ok[b_wr] <= d_et_ok;
            b_wr <= b_wr + 1'b1;
        end
        b_rd <= b_rd + pop_w[AW-1:0];
        p1_idx <= p1_idx + pop_w[AW-1:0];

        // Frame records: a start from the input register's record (buffer empty) consumes it;
        // otherwise the head is consumed and refilled from the queue, or from the input register.
        if (!fh_v || take) begin
            if (f_cnt != 0) begin
                fh_rec <= f_mem[f_rd];
                f_rd <= f_rd + 1'b1;
            end else begin
                fh_rec <= d_rec;
            end
            fh_v <= f_cnt != 0 || f_push;
        end
        // f_mem[f_wr] is free: written in every cycle (no enable from the output stage), kept
        // by moving f_wr when the record is queued.
        f_mem[f_wr] <= d_rec;
        if (f_push && !((!fh_v || take) && f_cnt == 0)) f_wr <= f_wr + 1'b1;
        f_cnt <= f_cnt + {{AW{1'b0}}, f_push && !((!fh_v || take) && f_cnt == 0)}
                       - {{AW{1'b0}}, (!fh_v || take) && f_cnt != 0};
        b_count <= b_avail - pop_w;
        for (k = 0; k < DEPTH; k = k + 1)
            case ({pop, d_v})
                3'b001:         b_th[k] <= b_th_x[k];        // + 1
                3'b000, 3'b011: b_th[k] <= b_th_x[k + 1];    // + 0
                3'b010, 3'b101: b_th[k] <= b_th_x[k + 2];    // - 1
                default:        b_th[k] <= b_th_x[k + 3];    // - 2
            endcase
        // Room for one more beat besides the one entering the input register now, not counting
        // this cycle's pop (one cycle pessimistic, which keeps the output stage out of this path).
        tready_q <= {1'b0, b_avail} + {{AW{1'b0}}, in_fire} < DEPTH;

        if (go) begin
            st_act <= !done;
            st_mode <= c_mode;
            st_base <= c_base < 0 ? c_base + 8'sd1 : 8'sd0;
            st_bpos <= c_bpos || c_bm1;
            st_bm1 <= c_base == -8'sd2;
            st_rnz <= r_nz;
            st_r <= c_r;
            st_hleft <= c_hleft > W7 ? c_hleft - W7 : 7'd0;
            if (!st_act) st_hb <= {{(HBW-1){1'b0}}, 1'b1};
            else if (st_hb != NHB_B) st_hb <= st_hb + 1'b1;
        end
        if (!st_act) st_hd <= hd;

        stat_valid <= go && done;
        stat_reason <= c_mode == M_DROP ? S_DROP : c_mode == M_PASS ? S_PASS
                     : fin_xbad ? S_BAD_LENGTH : S_ENCAP;

        // The output register loads whenever it may (its contents only count with m_valid), so
        // the wide enable is can_out, not the output stage's decision.
        if (can_out) begin
            m_data <= o_data;
            m_keep <= ~({KEEP_WIDTH{1'b1}} << (fin ? vb : WB1));
            m_last <= fin;
            m_user <= fin ? o_user_last : p0_user;
        end
        if (out_ld) m_valid <= 1'b1;
        else if (m_axis_tready) m_valid <= 1'b0;

        if (rst) begin
            b_wr <= {AW{1'b0}};
            b_rd <= {AW{1'b0}};
            p1_idx <= {{(AW-1){1'b0}}, 1'b1};
            b_count <= {(AW+1){1'b0}};
            b_th <= {DEPTH{1'b0}};
            fh_v <= 1'b0;
            f_wr <= {AW{1'b0}};
            f_rd <= {AW{1'b0}};
            f_cnt <= {(AW+1){1'b0}};
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
                seq_bump[gt] <= take && hd_mode == M_ENCAP && t_s && {{(32-DEST_WIDTH){1'b0}}, t} == gt;
                if (seq_bump[gt]) begin
                    seq[32*gt +: 32] <= seq_p1[32*gt +: 32];
                    seq_p1[32*gt +: 32] <= seq_p1[32*gt +: 32] + 1'b1;
                end
                if (rst) begin
                    seq_bump[gt] <= 1'b0;
                    seq[32*gt +: 32] <= 32'd0;
                    seq_p1[32*gt +: 32] <= 32'd1;
                end
            end
            wire [4:0]    g_glen = 5'd4 + {2'b00, cfg_tun_key_en[gt], 2'b00} + {2'b00, cfg_tun_seq_en[gt], 2'b00};
            wire [6:0]    g_hdlen = (cfg_tun_ipv6[gt] ? 7'd54 : 7'd34) + {2'd0, g_glen};
            wire [7:0]    g_tt = {1'b0, g_hdlen} - (cfg_tun_l3[gt] ? 8'd14 : 8'd0);
            wire [LW-1:0] g_r = -g_tt[LW-1:0];
            wire [7:0]    g_tb = g_tt >> LW;                    // whole beats in T
            always @(posedge clk) begin
                tun_ipadd[16*gt +: 16] <= {11'd0, g_glen} + (cfg_tun_ipv6[gt] ? 16'd0 : 16'd20)
                                        - (cfg_tun_l3[gt] ? 16'd14 : 16'd0);
                tun_hdlen[7*gt +: 7] <= g_hdlen;
                tun_r[LW*gt +: LW] <= g_r;
                tun_base[8*gt +: 8] <= 8'd0 - g_tb - {7'd0, g_r != {LW{1'b0}}};
            end
            always @(posedge clk)
                tun_csum[20*gt +: 20] <= 20'h08500 + {4'd0, cfg_tun_ttl[8*gt +: 8], 8'h2F}
                                       + {4'd0, cfg_tun_src[128*gt+16 +: 16]} + {4'd0, cfg_tun_src[128*gt +: 16]}
                                       + {4'd0, cfg_tun_dst[128*gt+16 +: 16]} + {4'd0, cfg_tun_dst[128*gt +: 16]};
            wire [16:0] tun_f1 = {1'b0, tun_csum[20*gt +: 16]} + {13'd0, tun_csum[20*gt+16 +: 4]};
            always @(posedge clk)
                tun_fold[16*gt +: 16] <= tun_f1[15:0] + {15'd0, tun_f1[16]};
        end
    endgenerate

    assign m_axis_tdata = m_data;
    assign m_axis_tkeep = m_keep;
    assign m_axis_tvalid = m_valid;
    assign m_axis_tlast = m_last;
    assign m_axis_tuser = m_user;

endmodule

`default_nettype wire
