// fp_ptrain_gen: packet-train generator of the tester (seeds/003): trains of equal-size tester
// frames (ptrain/rtl/ptrain.fmt.toml) on an AXI4-Stream towards a TX MAC in tester stamp mode.
//
// Frames. Ethernet [+ one 802.1Q tag] / IPv4 (no options) or IPv6 / UDP / the 42-byte tester
// header, zero padding up to cfg_frame_len bytes (without FCS), exactly as
// fastpath.ptrain.frame.build() makes them with the time fields absent: tv_sec, tv_usec, tx_time
// and csum_adj are left at zero and the UDP checksum (0 sent as 0xFFFF) is computed with them at
// zero. The first beat of every frame carries m_axis_ts_insert = 1, m_axis_ts_mode = 1 and
// m_axis_ts_offset = the offset of the tester header's first byte (the pktgen magic) from the
// first DA byte (42, 46 with a tag, 62 over IPv6, 66 both): the MAC writes the four time fields
// at the SFD. The side-band outputs hold these values for the whole frame. IPv4: identification
// 1, no flags, TTL cfg_ttl, TOS cfg_tos, valid header checksum. IPv6: traffic class cfg_tos,
// flow label 0, hop limit cfg_ttl. Tag: TPID 0x8100, TCI cfg_vlan_tci. The addresses are
// cfg_src_ip / cfg_dst_ip, IPv4 in bits [31:0].
// Compact frames: an IPv4 frame shorter than the full header's minimum (cfg_frame_len 60..83,
// 64..87 with a tag: down to minimum Ethernet frames) carries the 18-byte compact header
// (layout compact: magic, seq, tx_time, version 2 + flags, stream; zeros after it), exactly as
// frame.build() makes it with tx_time at zero: IPv4 identification = index (the train is at most
// 65,536 frames), its header checksum per frame, UDP checksum 0. Its first beat carries
// m_axis_ts_mode = 0 (the MAC's plain 8-byte stamp) and m_axis_ts_offset = the compact tx_time's
// offset (magic + 8: 50, 54 with a tag). Nothing selects it but the length.
// Tester fields: seq starts at cfg_first_seq and counts +1 per frame across trains (wrapping at
// 2^32); train counts from 0; index 0..train_len-1; train_len = cfg_train_len; frame_len =
// cfg_frame_len; stream = cfg_stream; ver_flags = version 1, FLAG_TX_HW always, FLAG_LAST on the
// last frame of a train, FLAG_SYNCED = cfg_pps_locked as sampled in the cycle after the start
// pulse (frame 0) or in the first cycle of the previous frame (its first m_axis_tvalid cycle).
//
// How. Every frame is the same up to its tester header: a 108-byte image (112 at 64 bits) of
// the headers is assembled from the cfg_* inputs and the per-frame registers into a register,
// loaded into a shift register when the frame starts and shifted out one beat per cycle; zeros
// follow. The
// checksums are incremental: the IPv4 header checksum and the constant part of the UDP sum
// (pseudo header, UDP header, magic, stream, frame_len, train_len) are computed once per run by
// a 5-stage adder pipeline; per frame, seq, train, index and ver_flags are added to it by a
// 6-stage pipeline that runs while the previous frame is sent, and the IPv4 header checksum is
// finished from its per-run sum and the identification (two stages). No byte of the frame is
// summed.
// m_axis_tready reaches only the output registers and the shift register's clock enable; the
// schedule's counters move one cycle after a frame starts.
//
// Schedule (counts in clk cycles; a frame's start is the cycle its first beat is first offered,
// m_axis_tvalid rising or held across the boundary):
//   frame k+1 of a train starts at max(start of frame k + cfg_period, the cycle after frame k's
//   last beat was accepted); the first frame of the next train starts at max(start of the last
//   frame of the previous train + cfg_train_gap, the cycle after that frame's last beat). So when
//   the MAC keeps up, frames start exactly cfg_period apart and trains start
//   (cfg_train_len - 1) * cfg_period + cfg_train_gap apart; a period (or gap) of 0, or below the
//   frame's own length in beats, sends back to back (the next frame offered in the cycle after
//   tlast; the MAC's preamble and IFG then set the spacing on the wire). The MAC keeps up when
//   the period is at least the frame's wire time: cfg_frame_len + 24 cycles at 1G (8 bits at
//   125 MHz), (cfg_frame_len + 24) / 8 cycles on average at 10G (64 bits at 156.25 MHz).
//   When the MAC stalls a frame past the next frame's due start, no frame is dropped and the
//   schedule re-anchors: the late frame starts right after the stalled one ends, and the period
//   counts again from that late start (the schedule never catches up with a burst: frame starts
//   are never closer than cfg_period).
//
// Control: start (a one-cycle pulse) while not running checks the configuration: cfg_frame_len
//   from the format's minimum (60 IPv4 with the compact header, 104 IPv6, 4 more with a tag) to
//   9000, cfg_train_len >= 1, and at most 65,536 for compact frames.
//   A bad configuration is refused: no frame, refused = 1 (until the next accepted start) and
//   stat_refused + 1. An accepted start sets running, clears done and refused, and sends
//   cfg_num_trains trains (0: until stopped). stop (pulse, while running) ends the run at the end
//   of the train in progress (no train is cut, so receivers see no loss): at once if no train is
//   in progress. running falls, and done rises, in the cycle after the last beat of the run was
//   accepted (or the stop was taken); start while running is ignored. stat_frames (+1 per frame,
//   at its tlast beat) and stat_trains (+1 at the last beat of a train's last frame) count
//   every run since reset, 32 bits, wrapping. The cfg_* inputs are read while running (the
//   frame length, layout and train length are also latched at the start): keep them static.
//
// Latency: start pulse in cycle c (sampled at the edge ending it) -> first m_axis_tvalid in
//   cycle c + 14 (start register, latch, the per-run and first per-frame checksum pipelines, the
//   image register), whatever m_axis_tready does; refused rises in cycle c + 2. Frame starts are
//   at least 9 cycles apart with the full header (the per-frame UDP checksum pipeline), 5 with
//   the compact one (the IPv4 header checksum); frames are at least 11 and 8 beats long (64 bits)
//   respectively, so this never limits.
// Throughput: one beat per cycle while m_axis_tready is high, and no idle cycle between frames
//   sent back to back: the stream never limits the MAC. m_axis_tvalid never falls inside a frame
//   (a MAC underrun cannot come from here), and does not depend on m_axis_tready.
//   Frame rates at the line rate (the MAC's 12-byte IFG and 8-byte preamble): 60-byte frames
//   (the shortest, compact, IPv4; 64 with FCS) 1.488 Mfps at 1G, 14.88 Mfps at 10G, where this
//   module offers 2.083 M (60 beats at 125 MHz) and 19.53 M (8 beats at 156.25 MHz) back to back;
//   84-byte frames (the shortest with the full header) 1.157 / 11.57 Mfps.
// Bad input: a refused configuration (above); cfg_* changed while running gives frames with
//   mixed old and new fields and possibly wrong checksums for a few frames (never a malformed
//   stream: the length and layout are latched); start while running and stop while not running
//   are ignored.
// Parameters: DATA_WIDTH 8 (1G MAC, tkeep 1 bit, one byte per beat) or 64 (10G MAC, tkeep 8 bits,
//   only the last beat partial).
`default_nettype none
`include "fp_ptrain.vh"

module fp_ptrain_gen #(
    parameter DATA_WIDTH = 8
) (
    input  wire                    clk,
    input  wire                    rst,

    // configuration: static while running
    input  wire [47:0]             cfg_dst_mac,
    input  wire [47:0]             cfg_src_mac,
    input  wire                    cfg_vlan_en,
    input  wire [15:0]             cfg_vlan_tci,
    input  wire                    cfg_ipv6,
    input  wire [127:0]            cfg_src_ip,     // IPv4: [31:0]
    input  wire [127:0]            cfg_dst_ip,     // IPv4: [31:0]
    input  wire [7:0]              cfg_ttl,        // TTL / hop limit
    input  wire [7:0]              cfg_tos,        // TOS / traffic class
    input  wire [15:0]             cfg_sport,
    input  wire [15:0]             cfg_dport,
    input  wire [7:0]              cfg_stream,
    input  wire [15:0]             cfg_frame_len,  // bytes without FCS
    input  wire [31:0]             cfg_train_len,  // frames per train, >= 1
    input  wire [31:0]             cfg_num_trains, // 0: until stopped
    input  wire [31:0]             cfg_period,     // cycles between frame starts in a train
    input  wire [31:0]             cfg_train_gap,  // cycles from a train's last start to the next train's first
    input  wire [31:0]             cfg_first_seq,
    input  wire                    cfg_pps_locked, // FLAG_SYNCED

    input  wire                    start,
    input  wire                    stop,
    output reg                     running,
    output reg                     done,
    output reg                     refused,
    output reg  [31:0]             stat_frames,
    output reg  [31:0]             stat_trains,
    output reg  [31:0]             stat_refused,

    output wire [DATA_WIDTH-1:0]   m_axis_tdata,
    output reg  [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output reg                     m_axis_tvalid,
    input  wire                    m_axis_tready,
    output reg                     m_axis_tlast,
    output wire [0:0]              m_axis_tuser,
    output wire                    m_axis_ts_insert,
    output wire                    m_axis_ts_mode,
    output wire [15:0]             m_axis_ts_offset
);

    generate
        if (DATA_WIDTH != 8 && DATA_WIDTH != 64) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_8_or_64 u_error();
        end
    endgenerate

    localparam KW        = DATA_WIDTH / 8;
    localparam IMG_BYTES = (DATA_WIDTH == 8) ? 108 : 112;  // longest headers + tester header, whole beats
    localparam IB        = IMG_BYTES * 8;
    localparam [15:0] MAX_LEN  = 16'd9000;
    localparam [15:0] IP_IDENT = 16'd1;     // as frame.build() (scapy's default identification)
    localparam [15:0] TAG_LEN  = `FP_PTRAIN_ETH_VLAN_LEN - `FP_PTRAIN_ETH_LEN;
    localparam [15:0] ETH_LEN  = `FP_PTRAIN_ETH_LEN;
    localparam [15:0] IP4_LEN  = `FP_PTRAIN_IPV4_LEN;
    localparam [15:0] IP6_LEN  = `FP_PTRAIN_IPV6_LEN;
    localparam [15:0] UDP_LEN  = `FP_PTRAIN_UDP_LEN;
    localparam [31:0] MAGIC    = `FP_PTRAIN_MAGIC;
    localparam [7:0]  PROTO    = `FP_PTRAIN_IP_PROTO_UDP;
    localparam [3:0]  WAIT_START = 4'd11;   // start taken -> first frame's image ready (see Latency)
    localparam [3:0]  WAIT_FRAME = 4'd7;    // frame start + 1 -> next frame's image ready
    localparam [3:0]  WAIT_FRAME_C = 4'd3;  // the same for compact frames (no UDP checksum)
    localparam [15:0] CT_OFF   = `FP_PTRAIN_COMPACT_TX_TIME_OFF;
    localparam [32:0] CT_MAX   = {16'd0, `FP_PTRAIN_COMPACT_TRAIN_MAX};

    // ---- start: check and latch --------------------------------------------------------------
    // Every length the configuration implies is one of a few constants chosen by the layout bits
    // (no adder between the configuration registers and the compares or the latched fields).
    localparam [15:0] MIN_V6  = {9'd0, `FP_PTRAIN_MIN_FRAME_IPV6};
    localparam [15:0] MIN_CMP = {10'd0, `FP_PTRAIN_MIN_FRAME_COMPACT};
    localparam [15:0] MIN_V4  = {9'd0, `FP_PTRAIN_MIN_FRAME_IPV4};
    wire [15:0] c_eth  = cfg_vlan_en ? ETH_LEN + TAG_LEN : ETH_LEN;
    wire [15:0] c_l3   = cfg_vlan_en ? (cfg_ipv6 ? ETH_LEN + TAG_LEN + IP6_LEN : ETH_LEN + TAG_LEN + IP4_LEN)
                                     : (cfg_ipv6 ? ETH_LEN + IP6_LEN : ETH_LEN + IP4_LEN);  // eth + ip
    localparam [15:0] T_E4 = ETH_LEN + IP4_LEN + UDP_LEN;               // tester header offsets
    localparam [15:0] T_E6 = ETH_LEN + IP6_LEN + UDP_LEN;
    wire [15:0] c_toff = cfg_vlan_en ? (cfg_ipv6 ? T_E6 + TAG_LEN : (cmp_q ? T_E4 + TAG_LEN + CT_OFF : T_E4 + TAG_LEN))
                                     : (cfg_ipv6 ? T_E6 : (cmp_q ? T_E4 + CT_OFF : T_E4));
    wire        ge_min = cfg_ipv6 ? (cfg_vlan_en ? cfg_frame_len >= MIN_V6 + TAG_LEN : cfg_frame_len >= MIN_V6)
                                  : (cfg_vlan_en ? cfg_frame_len >= MIN_CMP + TAG_LEN : cfg_frame_len >= MIN_CMP);
    // compact: IPv4 below the full header's minimum
    wire        c_cmp  = !cfg_ipv6 && (cfg_vlan_en ? cfg_frame_len < MIN_V4 + TAG_LEN : cfg_frame_len < MIN_V4);
    wire        cfg_ok = ge_min && cfg_frame_len <= MAX_LEN && cfg_train_len != 32'd0 &&
                         !(c_cmp && {1'b0, cfg_train_len} > CT_MAX);
    // the pulse and the check are registered (one cycle), then acted on
    reg         start_q, cfg_ok_q, cmp_q;
    always @(posedge clk) begin
        start_q  <= start && !rst;
        cfg_ok_q <= cfg_ok;
        cmp_q    <= c_cmp;
    end
    wire        start_ok  = start_q && !running && cfg_ok_q;
    wire        start_bad = start_q && !running && !cfg_ok_q;
    wire [15:0] len_m1 = cfg_frame_len - 16'd1;

    reg  [1:0]    lay;            // {ipv6, tag}
    reg  [15:0]   r_len;          // frame length
    reg  [15:0]   r_iplen;        // IPv4 total length
    reg  [15:0]   r_ulen;         // UDP length (= IPv6 payload length)
    reg  [15:0]   r_toff;         // tester header offset
    reg  [15:0]   r_beats_m1;     // beats per frame - 1
    reg  [KW-1:0] r_lkeep;        // tkeep of the last beat
    reg  [31:0]   r_tl, r_tl_m1;  // train length, - 1
    reg  [31:0]   r_nt_m1;        // trains - 1
    reg           r_nt_inf;       // until stopped
    reg           r_cmp;          // compact frames

    localparam [15:0] KW16 = KW[15:0];
    wire [15:0]   lk_shift = (KW16 - 16'd1) - len_m1 % KW16;  // bytes missing from the last beat

    always @(posedge clk) begin
        if (start_ok) begin
            lay        <= {cfg_ipv6, cfg_vlan_en};
            r_len      <= cfg_frame_len;
            r_iplen    <= cfg_frame_len - c_eth;
            r_ulen     <= cfg_frame_len - c_l3;
            r_toff     <= c_toff;
            r_cmp      <= cmp_q;
            r_beats_m1 <= len_m1 / KW16;
            r_lkeep    <= {KW{1'b1}} >> lk_shift;
            r_tl       <= cfg_train_len;
            r_tl_m1    <= cfg_train_len - 32'd1;
            r_nt_m1    <= cfg_num_trains - 32'd1;
            r_nt_inf   <= cfg_num_trains == 32'd0;
        end
        if (rst) begin
            r_toff <= 16'd0;
            r_cmp  <= 1'b0;
        end
    end

    // ---- per-run sums (free-running, valid 5 cycles after the latch) -------------------------
    // The UDP sum's constant part: pseudo header (addresses, protocol, length), UDP header (ports,
    // length; checksum 0), tester header: magic, stream, frame_len, train_len. Plain binary sums,
    // folded (end-around carry) at the end.
    wire v6 = lay[1];
    function [20:0] w;  // 16-bit word i (from the low end) of a 128-bit address, widened
        input [127:0] a;
        input integer i;
        w = {5'd0, a[16*i +: 16]};
    endfunction
    function [20:0] x;  // a 16-bit term, widened
        input [15:0] a;
        x = {5'd0, a};
    endfunction
    wire [20:0] m6 = {21{v6}};
    localparam [20:0] MAGIC_SUM = {5'd0, MAGIC[31:16]} + {5'd0, MAGIC[15:0]};

    reg [20:0] c_sa, c_sb, c_da, c_db, c_h1, c_h2, c_h3, i_1, i_a;
    reg [20:0] c_s, c_h, i_2, c_t;
    reg [16:0] i_3, c_f;
    reg [15:0] ip_sum, c_sum;
    always @(posedge clk) begin
        // S1 (every sum a tree of 2-input adders: two carry chains deep)
        c_sa <= (w(cfg_src_ip, 0) + w(cfg_src_ip, 1)) + (m6 & (w(cfg_src_ip, 2) + w(cfg_src_ip, 3)));
        c_sb <= m6 & ((w(cfg_src_ip, 4) + w(cfg_src_ip, 5)) + (w(cfg_src_ip, 6) + w(cfg_src_ip, 7)));
        c_da <= (w(cfg_dst_ip, 0) + w(cfg_dst_ip, 1)) + (m6 & (w(cfg_dst_ip, 2) + w(cfg_dst_ip, 3)));
        c_db <= m6 & ((w(cfg_dst_ip, 4) + w(cfg_dst_ip, 5)) + (w(cfg_dst_ip, 6) + w(cfg_dst_ip, 7)));
        c_h1 <= {4'd0, r_ulen, 1'b0} + (x({8'd0, PROTO}) + x(cfg_sport));
        c_h2 <= (x(cfg_dport) + x({8'd0, cfg_stream})) + (x(r_len) + MAGIC_SUM);
        c_h3 <= x(r_tl[31:16]) + x(r_tl[15:0]);
        // (compact frames: the identification is the index, added per frame)
        i_1  <= (x({4'h4, 4'd5, cfg_tos}) + x(r_iplen)) + (x(r_cmp ? 16'd0 : IP_IDENT) + x({cfg_ttl, PROTO}));
        i_a  <= (w(cfg_src_ip, 0) + w(cfg_src_ip, 1)) + (w(cfg_dst_ip, 0) + w(cfg_dst_ip, 1));
        // S2
        c_s <= (c_sa + c_sb) + (c_da + c_db);
        c_h <= (c_h1 + c_h2) + c_h3;
        i_2 <= i_1 + i_a;
        // S3
        c_t <= c_s + c_h;
        i_3 <= {1'b0, i_2[15:0]} + {12'd0, i_2[20:16]};
        // S4
        c_f     <= {1'b0, c_t[15:0]} + {12'd0, c_t[20:16]};
        ip_sum  <= i_3[15:0] + {15'd0, i_3[16]};
        // S5
        c_sum <= c_f[15:0] + {15'd0, c_f[16]};
    end

    // ---- the next frame's fields and its UDP checksum ----------------------------------------
    reg  [31:0] n_seq, n_train, n_idx;
    reg         n_first;      // n_idx == 0
    reg         n_synced;
    reg         pf_last, pf_fin;
    reg  [7:0]  pf_vf;
    reg  [18:0] px, py, pz;
    reg  [16:0] pf1, iq1;
    reg  [15:0] pf2, n_csum, ip_csum;
    wire        idx_last = n_idx == r_tl_m1;
    always @(posedge clk) begin
        // P0
        pf_last <= idx_last;
        pf_fin  <= !r_nt_inf && n_train == r_nt_m1;
        pf_vf   <= {r_cmp ? `FP_PTRAIN_VERSION_COMPACT : `FP_PTRAIN_VERSION, `FP_PTRAIN_FLAG_TX_HW
                    | (idx_last ? `FP_PTRAIN_FLAG_LAST : 4'd0)
                    | (n_synced ? `FP_PTRAIN_FLAG_SYNCED : 4'd0)};
        // P1
        px <= ({3'd0, c_sum} + {3'd0, n_seq[31:16]}) + ({3'd0, n_seq[15:0]} + {3'd0, pf_vf, 8'd0});
        py <= ({3'd0, n_train[31:16]} + {3'd0, n_train[15:0]}) + ({3'd0, n_idx[31:16]} + {3'd0, n_idx[15:0]});
        // P2
        pz <= px + py;
        // P3
        pf1 <= {1'b0, pz[15:0]} + {14'd0, pz[18:16]};
        // P4
        pf2 <= pf1[15:0] + {15'd0, pf1[16]};
        // P5: the checksum is the complement of the sum; 0 is sent as 0xFFFF; compact: none (0)
        n_csum <= r_cmp ? 16'd0 : (pf2 == 16'hFFFF) ? 16'hFFFF : ~pf2;
        // The IPv4 header checksum: the per-run sum plus the identification (compact: the
        // index), folded and complemented (two stages, ready in P2)
        iq1     <= {1'b0, ip_sum} + {1'b0, r_cmp ? n_idx[15:0] : 16'd0};
        ip_csum <= ~(iq1[15:0] + {15'd0, iq1[16]});
    end

    // ---- the header image of the next frame, per layout --------------------------------------
    // img (in each g_lay block) is big-endian: frame byte o is img[IB-1-8*o -: 8]; img_all holds
    // the four layouts with byte o at bits 8*o +: 8 (the stream's order).
    wire [4*IB-1:0] img_all;
    genvar gl, gb;
    generate
        for (gl = 0; gl < 4; gl = gl + 1) begin : g_lay
            localparam TAG = (gl % 2 == 1);
            localparam IP6 = (gl / 2 == 1);
            localparam integer I = TAG ? `FP_PTRAIN_ETH_VLAN_LEN : `FP_PTRAIN_ETH_LEN;
            localparam integer U = I + (IP6 ? `FP_PTRAIN_IPV6_LEN : `FP_PTRAIN_IPV4_LEN);
            localparam integer T = U + `FP_PTRAIN_UDP_LEN;
            reg [IB-1:0] img;
            always @* begin
                img = {IB{1'b0}};
                if (TAG) begin
                    img[IB-1-8*`FP_PTRAIN_ETH_VLAN_DST_OFF -: 48]       = cfg_dst_mac;
                    img[IB-1-8*`FP_PTRAIN_ETH_VLAN_SRC_OFF -: 48]       = cfg_src_mac;
                    img[IB-1-8*`FP_PTRAIN_ETH_VLAN_TPID_OFF -: 16]      = `FP_PTRAIN_ETHERTYPE_VLAN;
                    img[IB-1-8*`FP_PTRAIN_ETH_VLAN_TCI_OFF -: 16]       = cfg_vlan_tci;
                    img[IB-1-8*`FP_PTRAIN_ETH_VLAN_ETHERTYPE_OFF -: 16] =
                        IP6 ? `FP_PTRAIN_ETHERTYPE_IPV6 : `FP_PTRAIN_ETHERTYPE_IPV4;
                end else begin
                    img[IB-1-8*`FP_PTRAIN_ETH_DST_OFF -: 48]       = cfg_dst_mac;
                    img[IB-1-8*`FP_PTRAIN_ETH_SRC_OFF -: 48]       = cfg_src_mac;
                    img[IB-1-8*`FP_PTRAIN_ETH_ETHERTYPE_OFF -: 16] =
                        IP6 ? `FP_PTRAIN_ETHERTYPE_IPV6 : `FP_PTRAIN_ETHERTYPE_IPV4;
                end
                if (IP6) begin
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_VER_TC_FLOW_OFF) -: 32] = {4'd6, cfg_tos, 20'd0};
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_PAYLOAD_LEN_OFF) -: 16] = r_ulen;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_NEXT_HEADER_OFF) -: 8]  = PROTO;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_HOP_LIMIT_OFF) -: 8]    = cfg_ttl;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_SRC_OFF) -: 128]        = cfg_src_ip;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV6_DST_OFF) -: 128]        = cfg_dst_ip;
                end else begin
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_VER_IHL_OFF) -: 8]    = 8'h45;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_TOS_OFF) -: 8]        = cfg_tos;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_TOTAL_LEN_OFF) -: 16] = r_iplen;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_IDENT_OFF) -: 16]     = r_cmp ? n_idx[15:0] : IP_IDENT;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_TTL_OFF) -: 8]        = cfg_ttl;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_PROTO_OFF) -: 8]      = PROTO;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_CHECKSUM_OFF) -: 16]  = ip_csum;
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_SRC_OFF) -: 32]       = cfg_src_ip[31:0];
                    img[IB-1-8*(I+`FP_PTRAIN_IPV4_DST_OFF) -: 32]       = cfg_dst_ip[31:0];
                end
                img[IB-1-8*(U+`FP_PTRAIN_UDP_SPORT_OFF) -: 16]    = cfg_sport;
                img[IB-1-8*(U+`FP_PTRAIN_UDP_DPORT_OFF) -: 16]    = cfg_dport;
                img[IB-1-8*(U+`FP_PTRAIN_UDP_LEN_OFF) -: 16]      = r_ulen;
                img[IB-1-8*(U+`FP_PTRAIN_UDP_CHECKSUM_OFF) -: 16] = n_csum;
                if (!IP6 && r_cmp) begin
                    // the compact header; tx_time zero, written by the MAC's plain stamp
                    img[IB-1-8*(T+`FP_PTRAIN_COMPACT_MAGIC_OFF) -: 32]    = MAGIC;
                    img[IB-1-8*(T+`FP_PTRAIN_COMPACT_SEQ_OFF) -: 32]      = n_seq;
                    img[IB-1-8*(T+`FP_PTRAIN_COMPACT_VER_FLAGS_OFF) -: 8] = pf_vf;
                    img[IB-1-8*(T+`FP_PTRAIN_COMPACT_STREAM_OFF) -: 8]    = cfg_stream;
                end else begin
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_MAGIC_OFF) -: 32]     = MAGIC;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_SEQ_OFF) -: 32]       = n_seq;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_VER_FLAGS_OFF) -: 8]  = pf_vf;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_STREAM_OFF) -: 8]     = cfg_stream;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_FRAME_LEN_OFF) -: 16] = r_len;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_TRAIN_OFF) -: 32]     = n_train;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_INDEX_OFF) -: 32]     = n_idx;
                    img[IB-1-8*(T+`FP_PTRAIN_TESTER_TRAIN_LEN_OFF) -: 32] = r_tl;
                    // tv_sec, tv_usec, tx_time, csum_adj: zero, written by the MAC at the SFD
                end
            end
            for (gb = 0; gb < IMG_BYTES; gb = gb + 1) begin : g_byte
                assign img_all[gl*IB + 8*gb +: 8] = img[IB-1-8*gb -: 8];
            end
        end
    endgenerate
    // registered, so that the layout multiplexer is not in the shift register's load path; it
    // follows the per-frame fields one cycle late, which the checksum wait covers (WAIT_*)
    reg  [IB-1:0] img_next;
    always @(posedge clk)
        img_next <= img_all[lay*IB +: IB];

    // ---- schedule and output -----------------------------------------------------------------
    reg  [IB-1:0] sr;          // the frame's image, shifted out one beat at a time
    reg  [15:0]   bcnt;        // beats after the current one
    reg           cur_last;    // the frame on the bus is the last of its train
    reg  [32:0]   tmr;         // counts down from the start; see due
    reg           due;         // the period (or gap) since the current frame's start is over
    reg  [3:0]    wcnt;        // cycles until the next frame's image (checksum included) is ready
    reg           stop_req;
    reg           fin;         // the run's last frame has been loaded
    reg           arm;         // the next frame may start when the bus is free (see arm_ng)
    reg           per_le2, gap_le2;
    reg           b_one;       // bcnt == 1
    reg           go_q;        // a frame started in this cycle (its first beat is offered)

    wire adv     = m_axis_tvalid && m_axis_tready;
    wire free    = !m_axis_tvalid || (m_axis_tready && m_axis_tlast);
    wire no_more = fin || (stop_req && n_first);
    wire go      = arm && free;             // load the next frame: it starts in the next cycle
    wire finish  = running && no_more && free;

    // go drives only the output registers and go_q; the schedule's state moves on go_q, in the
    // frame's first cycle, so that no wide logic hangs on the handshake. arm is stale in that
    // cycle, which does not matter: a frame's first beat is not its last, so go cannot fire.
    // The period timer: with P the period (or gap) of frame start s, due = (j >= P - 1) in cycle
    // s + j (j >= 1), so the next frame may start at s + P; tmr = P - 3 - j until negative.
    wire [32:0] tmr_go  = {1'b0, pf_last ? cfg_train_gap : cfg_period} - 33'd4;
    wire        due_go  = pf_last ? gap_le2 : per_le2;
    wire [32:0] tmr_ng  = tmr[32] ? tmr : tmr - 33'd1;
    wire        due_ng  = start_ok || due || tmr[32];
    wire [3:0]  wcnt_ng = start_ok ? WAIT_START : (wcnt == 4'd0) ? 4'd0 : wcnt - 4'd1;
    // arm for the next cycle: running, frames left, checksum ready, period over (a run that
    // finishes in this cycle has no_more set, so it cannot arm)
    wire        arm_ng  = !start_ok && running && !fin && !((stop_req || stop) && n_first)
                          && wcnt <= 4'd1 && (due || tmr[32]);

    assign m_axis_tdata     = sr[DATA_WIDTH-1:0];
    assign m_axis_tuser     = 1'b0;
    assign m_axis_ts_insert = m_axis_tvalid;
    assign m_axis_ts_mode   = m_axis_tvalid && !r_cmp;   // compact: the plain 8-byte stamp
    assign m_axis_ts_offset = r_toff;

    always @(posedge clk) begin
        // the output beat
        // sr: m_axis_tready reaches it only through its clock enable (one gate). While no beat is
        // offered, and with the last beat, it loads the next image (whether a frame starts or not:
        // tdata does not matter while tvalid is low); otherwise a taken beat shifts it.
        if (!m_axis_tvalid || m_axis_tready)
            sr <= (!m_axis_tvalid || m_axis_tlast) ? img_next : {{DATA_WIDTH{1'b0}}, sr[IB-1:DATA_WIDTH]};
        if (go) begin
            m_axis_tvalid <= 1'b1;
            m_axis_tlast  <= 1'b0;
            m_axis_tkeep  <= {KW{1'b1}};
            bcnt          <= r_beats_m1;
            b_one         <= 1'b0;           // frames are at least 8 beats
            cur_last      <= pf_last;
        end else if (adv) begin
            if (m_axis_tlast) begin
                m_axis_tvalid <= 1'b0;
            end else begin
                bcnt         <= bcnt - 16'd1;
                b_one        <= bcnt == 16'd2;
                m_axis_tlast <= b_one;
                m_axis_tkeep <= b_one ? r_lkeep : {KW{1'b1}};
            end
        end

        // the next frame's fields
        n_first <= start_ok || (go_q ? pf_last : n_first);
        if (start_ok) begin
            n_seq    <= cfg_first_seq;
            n_train  <= 32'd0;
            n_idx    <= 32'd0;
            n_synced <= cfg_pps_locked;
        end else if (go_q) begin
            n_seq    <= n_seq + 32'd1;
            n_synced <= cfg_pps_locked;
            if (pf_last) begin
                n_idx   <= 32'd0;
                n_train <= n_train + 32'd1;
            end else begin
                n_idx   <= n_idx + 32'd1;
            end
        end

        // the period timer, the checksum wait, run control
        per_le2  <= cfg_period <= 32'd2;
        gap_le2  <= cfg_train_gap <= 32'd2;
        go_q     <= go;
        tmr      <= go_q ? tmr_go : tmr_ng;
        due      <= go_q ? due_go : due_ng;
        wcnt     <= go_q ? (r_cmp ? WAIT_FRAME_C : WAIT_FRAME) : wcnt_ng;
        arm      <= !go_q && arm_ng;
        fin      <= !start_ok && (fin || (go_q && pf_last && pf_fin));
        stop_req <= !start_ok && (stop_req || (stop && running));
        running  <= start_ok || (running && !finish);
        if (start_ok) begin
            done    <= 1'b0;
            refused <= 1'b0;
        end else begin
            if (start_bad) begin
                refused      <= 1'b1;
                stat_refused <= stat_refused + 32'd1;
            end
            if (finish)
                done <= 1'b1;
        end
        if (adv && m_axis_tlast) begin
            stat_frames <= stat_frames + 32'd1;
            if (cur_last)
                stat_trains <= stat_trains + 32'd1;
        end

        if (rst) begin
            m_axis_tvalid <= 1'b0;
            m_axis_tlast  <= 1'b0;
            running       <= 1'b0;
            done          <= 1'b0;
            refused       <= 1'b0;
            stop_req      <= 1'b0;
            fin           <= 1'b0;
            arm           <= 1'b0;
            go_q          <= 1'b0;
            due           <= 1'b0;
            wcnt          <= 4'd0;
            stat_frames   <= 32'd0;
            stat_trains   <= 32'd0;
            stat_refused  <= 32'd0;
        end
    end

endmodule

`default_nettype wire
