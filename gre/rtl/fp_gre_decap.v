// fp_gre_decap: GRE tunnel termination at line rate (RFC 2784 / RFC 2890, version 0).
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
// The outer IP length is checked against the frame's length F (other than Ethernet padding up to
// 60 bytes + 4 per tag, F must equal the IP length). LEN_IN = 1 (default): F is given up front on
// s_axis_tlen with the first beat and the verdict is one of the header checks, made before the
// output starts: a GRE frame whose length disagrees passes unchanged (reason pass_length); if the
// frame's actual end then disagrees with s_axis_tlen, a decapsulated frame is still ended as
// below. LEN_IN = 0 (cut-through source that cannot know F; s_axis_tlen ignored): F is known at
// the frame's end only, and a decapsulated frame whose length disagrees leaves with
// tuser[0] = 1 (reason drop_length). The outer frame's padding is not output.
// stat_valid pulses once per frame (1 + PARSE_STAGES cycles after its last beat is accepted) with
// stat_reason, one of the `FP_GRE_VERDICT_DECAP_* codes of gre/rtl/gre_verdict.fmt.toml
// (fp_gre_verdict.vh; table in gre/docs/formats/gre_verdict.md): decap, not_gre, unsupported,
// fragment, bad_checksum, too_short, unknown_pass, unknown_drop (dropped), drop_length
// (decapsulated, marked bad), pass_length (passed: s_axis_tlen disagrees with the IP length).
//
// Latency:    1 + PARSE_STAGES + max(k_dec + 1, k_data + X) + X cycles, X = OUT_STAGES - 1; with
//             the defaults (PARSE_STAGES = 0, OUT_STAGES = 1) 1 + max(k_dec + 1, k_data): the
//             output starts one cycle after the beat holding the decision's last byte arrived.
//             k_dec: index of the beat completing the decision (IPv4/IPv6 header, whole GRE
//             header and one inner byte; fewer bytes when the frame is not decapsulated, see
//             gre/README.md); the decision is registered with that beat and used one cycle later.
//             k_data (a decapsulation): the last beat holding the first output beat's inner
//             bytes, read in the cycle it arrives (OUT_STAGES = 1) or from the buffer one cycle
//             later, the output beat being formed in a second cycle (OUT_STAGES = 2). Every beat
//             reaches the decision and the header buffer PARSE_STAGES cycles after it is
//             accepted (the parser pipelined over those cycles).
//             Plain IPv4/GRE/0x6558 with the defaults: 6 cycles at 64 bits, 3 at 256, 2 at 512
//             (11 / 8 / 7 with the pipelined option PARSE_STAGES = 3, OUT_STAGES = 2); one-beat
//             frames: 2 + PARSE_STAGES + X.
//             A decapsulation whose whole output is one beat while input beats (padding) follow
//             the ones it needs waits for the input's last beat, whose tuser it carries
//             (fastpath.models.gre.decap_latency gives the exact figure).
//             A frame may wait until the previous one has left. LEN_IN changes no latency.
// Throughput: 1 beat per cycle in and out, back-to-back frames of every size, every width; a
//             frame whose output is shorter never stalls the input. s_axis_tready is a register:
//             low only when the output has been stalled long enough to fill the header buffer.
//             Clock: PARSE_STAGES and OUT_STAGES trade cycles of latency for Fmax (gre/README.md).
// Bad input:  tuser is passed through (tuser[0] on the last beat; a decapsulated frame's last beat
//             carries the input's last tuser with bit 0 ORed with the length verdict). Malformed
//             or truncated headers pass unchanged; nothing hangs.
// Parameters: DATA_WIDTH 64, 256 or 512; KEEP_WIDTH = DATA_WIDTH/8; USER_WIDTH >= 1;
//             ACCEPT_ENTRIES 1..64; PARSE_STAGES 0..3 (default 0): pipeline registers in the
//             parser (1: after the IP fields; 2: also after layer 2; 3: also before the verdict;
//             0 and 1 at 64/256 bits register the positional facts, IP checks, checksum and GRE
//             window a beat ahead instead, EARLY_CTL); OUT_STAGES 1 or 2 (default 1): cycles of
//             the output stage (2: the buffer is read without bypass and the shift is done in a
//             second cycle); LEN_IN 0 or 1 (default
//             1): s_axis_tlen (bytes, no FCS, with the first beat) is used for the length
//             verdict. Configuration inputs are quasi-static. s_axis_tkeep must be contiguous
//             from byte 0.
`default_nettype none

`include "fp_gre_verdict.vh"

module fp_gre_decap #(
    parameter DATA_WIDTH = 64,
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    parameter USER_WIDTH = 1,
    parameter ACCEPT_ENTRIES = 8,
    parameter PARSE_STAGES = 0,
    parameter OUT_STAGES = 1,
    parameter LEN_IN = 1
) (
    input  wire                         clk,
    input  wire                         rst,

    input  wire [DATA_WIDTH-1:0]        s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]        s_axis_tkeep,
    input  wire                         s_axis_tvalid,
    output wire                         s_axis_tready,
    input  wire                         s_axis_tlast,
    input  wire [USER_WIDTH-1:0]        s_axis_tuser,
    input  wire [15:0]                  s_axis_tlen,       // frame bytes (no FCS), first beat

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
        if (PARSE_STAGES < 0 || PARSE_STAGES > 3) begin : g_bad_parse_stages
            PARAMETER_ERROR_PARSE_STAGES_must_be_0_to_3 u_error();
        end
        if (OUT_STAGES != 1 && OUT_STAGES != 2) begin : g_bad_out_stages
            PARAMETER_ERROR_OUT_STAGES_must_be_1_or_2 u_error();
        end
        if (LEN_IN != 0 && LEN_IN != 1) begin : g_bad_len_in
            PARAMETER_ERROR_LEN_IN_must_be_0_or_1 u_error();
        end
    endgenerate

    // Reason codes (stat_reason): gre/rtl/gre_verdict.fmt.toml.
    localparam [3:0] R_DECAP        = `FP_GRE_VERDICT_DECAP_DECAP,
                     R_NOT_GRE      = `FP_GRE_VERDICT_DECAP_NOT_GRE,
                     R_UNSUPPORTED  = `FP_GRE_VERDICT_DECAP_UNSUPPORTED,
                     R_FRAGMENT     = `FP_GRE_VERDICT_DECAP_FRAGMENT,
                     R_BAD_CSUM     = `FP_GRE_VERDICT_DECAP_BAD_CHECKSUM,
                     R_TOO_SHORT    = `FP_GRE_VERDICT_DECAP_TOO_SHORT,
                     R_UNKNOWN_PASS = `FP_GRE_VERDICT_DECAP_UNKNOWN_PASS,
                     R_UNKNOWN_DROP = `FP_GRE_VERDICT_DECAP_UNKNOWN_DROP,
                     R_DROP_LENGTH  = `FP_GRE_VERDICT_DECAP_DROP_LENGTH,
                     R_PASS_LENGTH  = `FP_GRE_VERDICT_DECAP_PASS_LENGTH;
    // What the output stage does with a frame.
    localparam [1:0] M_PASS = 2'd0, M_DECAP = 2'd1, M_DROP = 2'd2;

    localparam W = KEEP_WIDTH;                       // bytes per beat
    localparam LW = $clog2(W);                       // log2 bytes per beat
    localparam CW = LW + 1;                          // a byte count 0..W
    localparam [CW-1:0] WB = W[CW-1:0];              // W as a byte count
    localparam [CW:0] WB1 = W[CW:0];
    localparam W5I = (W > 31) ? 31 : W;
    localparam [4:0] W5 = W5I[4:0];                  // W against the (<= 22-byte) prefix counts
    localparam P = PARSE_STAGES;                     // cycles of the parser pipeline
    // OUT_STAGES = 1: the output stage reads a beat in the cycle it reaches the header buffer
    // (bypass) and forms the output beat in that cycle. 2: it reads only beats already in the
    // buffer (control from registered state), registers the raw window, and shifts in a second
    // cycle.
    localparam BYP = (OUT_STAGES == 1) ? 1 : 0;
    // Header buffer: holds the beats of a frame until its decision (at most byte 98) plus one
    // (DEPTH0), twice that for the beats still in the PARSE_STAGES-cycle delay line and a
    // pessimistic s_axis_tready (see below).
    localparam DEPTH0 = (W == 8) ? 16 : (W == 32) ? 8 : 4;
    localparam DEPTH = 2 * DEPTH0;
    localparam AW = $clog2(DEPTH);
    localparam [5:0] DEPTH6 = DEPTH[5:0];           // beat counts are 6 bits (DEPTH <= 32)
    localparam HB = 94;                              // header bytes the decision reads (0..93)
    localparam KW = 5;                               // beat index within a frame, saturating
    localparam FW = 17;                              // frame byte counts (saturating)
    localparam [FW-1:0] FMAX = {FW{1'b1}};
    localparam [FW-1:0] WF = W[FW-1:0];
    localparam [USER_WIDTH-1:0] U_BAD = 1;           // tuser[0] = bad
    localparam [USER_WIDTH-1:0] U_NONE = 0;

    // -----------------------------------------------------------------------------------------
    // Input beat (stage 0) and the delay line: every beat reaches the header buffer and the
    // decision logic's last stage (the "virtual input", v_*) PARSE_STAGES cycles after it was
    // accepted; the parser computes the beat's decision over those cycles (stages 0..3 below,
    // separated by the cuts A, B, C, which are registers or wires depending on PARSE_STAGES).
    // Behind the delay line the core works exactly as if the input arrived PARSE_STAGES cycles
    // later, so every cycle relation (latency, bubbles) is the unpipelined one + PARSE_STAGES.
    // -----------------------------------------------------------------------------------------
    reg              tready_q;
    wire             in_fire = s_axis_tvalid && tready_q;
    wire             in_last = s_axis_tlast;
    // Bytes in the beat: tkeep is contiguous from byte 0 (a thermometer code), so bit j of the
    // count n is set when n mod 2^(j+1) >= 2^j, i.e. when some keep[k*2^j - 1] (k odd) is set and
    // keep[(k+1)*2^j - 1] is not: a flat OR of terms instead of a W-deep priority chain.
    reg  [CW-1:0]    in_keep_cnt;
    integer          i, kj;
    always @* begin
        in_keep_cnt = {CW{1'b0}};
        for (i = 0; i < CW; i = i + 1)
            for (kj = 1; kj * (1 << i) <= W; kj = kj + 2)
                if (s_axis_tkeep[kj * (1 << i) - 1]
                    && ((kj + 1) * (1 << i) > W || !s_axis_tkeep[((kj + 1) * (1 << i) - 1) % W]))
                    in_keep_cnt[i] = 1'b1;
    end
    wire [CW-1:0]    in_cnt = in_last ? in_keep_cnt : WB;
    assign s_axis_tready = tready_q;

    localparam DLW = 1 + CW + 1 + USER_WIDTH;     // a beat's sideband (valid on top)
    // Link j of the chains: the beat accepted j cycles ago (link 0: this cycle's input).
    wire [DATA_WIDTH*(P+1)-1:0] dl_data;
    wire [DLW*(P+1)-1:0]        dl_side;
    wire [2:0]                  dl_v;         // valid of links 0..2 (0 beyond P)
    assign dl_data[0 +: DATA_WIDTH] = s_axis_tdata;
    assign dl_side[0 +: DLW] = {in_fire, in_cnt, in_last, s_axis_tuser};
    genvar gd;
    generate
        for (gd = 0; gd < P; gd = gd + 1) begin : g_delay
            reg [DATA_WIDTH-1:0] d;
            reg [DLW-1:0]        s;
            always @(posedge clk) begin
                d <= dl_data[DATA_WIDTH*gd +: DATA_WIDTH];
                s <= dl_side[DLW*gd +: DLW];
                if (rst) s[DLW-1] <= 1'b0;
            end
            assign dl_data[DATA_WIDTH*(gd+1) +: DATA_WIDTH] = d;
            assign dl_side[DLW*(gd+1) +: DLW] = s;
        end
        for (gd = 0; gd < 3; gd = gd + 1) begin : g_delay_v
            if (gd <= P) begin : g_link
                assign dl_v[gd] = dl_side[DLW*gd + DLW-1];
            end else begin : g_none
                assign dl_v[gd] = 1'b0;
            end
        end
    endgenerate
    // Beats that will still be in the delay line next cycle: links 0 .. P-1 now.
    wire [1:0]       dl_busy = (P >= 1 ? {1'b0, dl_v[0]} : 2'd0) + (P >= 2 ? {1'b0, dl_v[1]} : 2'd0)
                               + (P >= 3 ? {1'b0, dl_v[2]} : 2'd0);
    wire [DLW-1:0]   dl_out = dl_side[DLW*P +: DLW];
    wire [DATA_WIDTH-1:0] v_data = dl_data[DATA_WIDTH*P +: DATA_WIDTH];
    wire                  v_fire, v_last;
    wire [CW-1:0]         v_cnt;
    wire [USER_WIDTH-1:0] v_user;
    assign {v_fire, v_cnt, v_last, v_user} = dl_out;

    // -----------------------------------------------------------------------------------------
    // Parser stage 0 (the input cycle): header capture, byte counts, layer 2, IP header window,
    // the IPv4 checksum's per-dword sums.
    // -----------------------------------------------------------------------------------------
    reg  [KW-1:0]    i_k;            // index of the current input beat in its frame (saturating)
    localparam NHB = (HB + W - 1) / W;                // beats holding header bytes
    reg  [NHB-1:0]   i_oh;           // i_k one-hot over those beats (0 past them): the header
                                     // capture selects by a register bit, not an i_k compare
    reg  [FW-1:0]    i_fb;           // bytes of the frame before the current beat (saturating)
    reg  [8*HB-1:0]  hdr;            // the frame's first HB bytes as far as received

    wire [FW:0]      cnt_wide = {1'b0, i_fb} + {{(FW+1-CW){1'b0}}, in_cnt};
    wire [FW-1:0]    cnt = cnt_wide[FW] ? FMAX : cnt_wide[FW-1:0];  // bytes so far incl. this beat
    // The decision compares the byte count with values <= 99: a short count saturating at 127
    // (i_k saturates at 31 beats, >= 248 bytes) keeps those compares off the 17-bit adder.
    wire [KW+LW:0]   cnt_k = {1'b0, i_k, {LW{1'b0}}} + {{KW{1'b0}}, in_cnt};
    wire [6:0]       cnt_s = cnt_k > 127 ? 7'd127 : cnt_k[6:0];

    wire [8*HB-1:0]  hn;             // hdr with this beat's bytes merged
    genvar gb;
    generate
        for (gb = 0; gb < (HB + W - 1) / W; gb = gb + 1) begin : g_hn
            localparam integer NBY = (HB - gb * W < W) ? HB - gb * W : W;   // bytes of hdr here
            assign hn[8*W*gb +: 8*NBY] = i_oh[gb] ? s_axis_tdata[0 +: 8*NBY] : hdr[8*W*gb +: 8*NBY];
        end
    endgenerate

    // The frame length given up front (LEN_IN = 1): s_axis_tlen with the first beat, held for
    // the frame's other beats; it travels through the parser with every beat.
    wire [15:0]      tlen_b;
    generate
        if (LEN_IN != 0) begin : g_len_in
            reg [15:0] i_tlen;
            always @(posedge clk)
                if (in_fire && i_oh[0]) i_tlen <= s_axis_tlen;
            assign tlen_b = i_oh[0] ? s_axis_tlen : i_tlen;
        end else begin : g_no_len_in
            // LEN_IN = 0: the length is only known at the frame's end; s_axis_tlen is ignored.
            /* verilator lint_off UNUSEDSIGNAL */
            wire unused_tlen = ^s_axis_tlen;
            /* verilator lint_on UNUSEDSIGNAL */
            assign tlen_b = 16'd0;
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
    wire        is4 = tag1 ? et2 == 16'h0800 : tag0 ? et1 == 16'h0800 : et0 == 16'h0800;
    wire        is6 = tag1 ? et2 == 16'h86DD : tag0 ? et1 == 16'h86DD : et0 == 16'h86DD;
    // The IP header's first 24 bytes as this beat places them (byte j = frame byte l2 + j).
    wire [8*24-1:0] ipw_now = tag1 ? hn[8*22 +: 8*24] : tag0 ? hn[8*18 +: 8*24] : hn[8*14 +: 8*24];
    wire [3:0]  ihl0 = ipw_now[3:0];                  // IPv4 IHL
    // Where the GRE header starts, worked out here so that stage 1 shifts by a register:
    // g = l2 + IP header length = 34 + 4m, m = 0..12 (m > 12 only when the IP header is
    // rejected anyway).
    wire [3:0]      gm0 = {2'b00, tags} + (is4 ? ihl0 - 4'd5 : 4'd5);

    // IPv4 header checksum, step 1: the sum of each dword t at frame bytes 14 + 4t (the IPv4
    // header is dwords tags .. tags + IHL - 1 of these; they end by byte 82).
    localparam NT = 17;
    wire [17*NT-1:0] dsum;
    genvar gn;
    generate
        for (gn = 0; gn < NT; gn = gn + 1) begin : g_dsum
            assign dsum[17*gn +: 17] = {1'b0, hn[8*(14+4*gn) +: 8], hn[8*(15+4*gn) +: 8]}
                                     + {1'b0, hn[8*(16+4*gn) +: 8], hn[8*(17+4*gn) +: 8]};
        end
    endgenerate
    // Which of those dwords are inside the IPv4 header (tags <= t < tags + IHL), worked out here
    // from this stage's tags and IHL so that stage 1 only masks.
    wire [NT-1:0] dmask;
    generate
        for (gn = 0; gn < NT; gn = gn + 1) begin : g_dmask0
            localparam [4:0] T = gn;
            wire [4:0] rel = T - {3'd0, tags};        // wraps to >= 30 below the header
            assign dmask[gn] = rel < {1'b0, ihl0};
        end
    endgenerate

    // Positional facts: the layer-2 shape and IP header length that place every later field (the
    // IP header window, the GRE offset, the checksum dwords, where the IP packet ends). With
    // EARLY_CTL they come from a register loaded with this stage's values at every input beat,
    // i.e. from the frame's bytes before the current beat, so that stage 1, which runs in the
    // input cycle when PARSE_STAGES < 2 (stages 2-3 too with 0), places fields with registers
    // instead of behind the tag compares. That is exact wherever the decision reads them: it uses the IP fields only
    // once l2 + 20 (IPv4) or l2 + 40 (IPv6) bytes have arrived, i.e. from byte 34 on, and with
    // beats of at most 32 bytes the beat holding byte 33 or later starts after byte 22, the last
    // byte those facts read. The layer-2 checks of stage 3 (not IP, waiting for a tag) still
    // use this beat's own values. At 512 bits the whole header is in the first beat: no
    // EARLY_CTL, the facts are this stage's.
    localparam EARLY_CTL = (P < 2 && W <= 32) ? 1 : 0;
    wire           ptag0, ptag1, pis4, pis6;
    wire [6:0]     pl2;
    wire [3:0]     pgm;
    wire           ec_csum_ok;       // EARLY_CTL: the checksum verdict (see g_early_ctl)
    wire [95:0]    ec_gw;            // EARLY_CTL: the GRE header window (see g_early_ctl)
    generate
        if (EARLY_CTL) begin : g_early_ctl
            reg           r_tag0, r_tag1, r_is4, r_is6;
            reg [6:0]     r_l2;
            reg [3:0]     r_gm;
            always @(posedge clk)
                if (in_fire) begin
                    r_tag0 <= tag0;
                    r_tag1 <= tag1;
                    r_is4 <= is4;
                    r_is6 <= is6;
                    r_l2 <= l2;
                    r_gm <= gm0;
                end
            assign {ptag0, ptag1, pis4, pis6, pl2, pgm} = {r_tag0, r_tag1, r_is4, r_is6, r_l2, r_gm};

            // The IPv4 header checksum, accumulated beat by beat, so that the verdict adds this
            // beat's W/2 words and one register instead of summing the whole header: cs_acc is
            // the sum of the header's 16-bit words in the frame's earlier beats. Word m of a beat
            // is frame byte b = i_k W + 2m (b is even, as l2 is: no word spans two beats), in
            // the header when l2 <= b < l2 + 4 IHL. The verdict needs no tag or length compare:
            //  - the high bound (and b >= 14) is a mask bit per word made at the beat before
            //    (hi_ok). It matters from b = 34 on (below, b < l2 + 20 <= the header's end),
            //    and the beat holding such a word comes after the one holding the IHL (byte
            //    <= 22) or is the beat right after it, whose fire loads the mask;
            //  - the low bound: the words at 14 <= b < l2 (the tags: words 14 and 16 when there
            //    is a first tag, 18 and 20 when a second) are masked with this beat's tag
            //    compares, whose bytes precede them (Ethertypes 12-13 and 16-17), in the sum
            //    that is accumulated (cwa) only: they are before byte 22, never in a beat whose
            //    checksum verdict is read (it holds byte 33 or later), so the verdict's sum (cw)
            //    leaves them.
            // Bytes a beat holds past the frame's end are never read: the verdict waits for them.
            localparam NWB = W / 2;
            reg  [20:0] cs_acc;
            reg  [NWB-1:0] hi_ok;            // this beat's words: 14 <= b < max(34, header end)
            reg  [NWB-1:0] hi_nx, hi_first;  // the same for the next beat, for a first beat
            reg  [16*NWB-1:0] cw, cwa;       // this beat's words under hi_ok / also past the tags
            wire [KW-1:0] k_nx = in_last ? {KW{1'b0}} : i_k + {{(KW-1){1'b0}}, i_k != {KW{1'b1}}};
            wire [6:0]  hend = l2 + {1'b0, ihl0, 2'b00};
            integer     m, t;
            reg  [10:0] wbn;
            always @* begin
                for (m = 0; m < NWB; m = m + 1) begin
                    wbn = ({6'd0, k_nx} << LW) + {m[9:0], 1'b0};
                    cw[16*m +: 16] = hi_ok[m] ? {s_axis_tdata[8*(2*m) +: 8], s_axis_tdata[8*(2*m+1) +: 8]}
                                              : 16'd0;
                    cwa[16*m +: 16] = cw[16*m +: 16];
                    for (t = 14; t < 22; t = t + 2)
                        if (t % W == 2 * m && i_oh[t / W] && (t < 18 ? tag0 : tag1))
                            cwa[16*m +: 16] = 16'd0;
                    hi_nx[m] = wbn >= 14 && (wbn < 34 || wbn < {4'd0, hend});
                    hi_first[m] = 2 * m >= 14 && 2 * m < 34;
                end
            end
            // Balanced trees over the beat's words (NWB is 4 or 16): ct over cw, cta over cwa
            // (they share the subtrees without a tag lane).
            wire [21*(2*NWB-1)-1:0] ct, cta; // node n: 21 bits; leaves NWB-1 .. 2 NWB-2
            genvar gt;
            for (gt = 0; gt < NWB; gt = gt + 1) begin : g_ct_leaf
                assign ct[21*(NWB-1+gt) +: 21] = {5'd0, cw[16*gt +: 16]};
                assign cta[21*(NWB-1+gt) +: 21] = {5'd0, cwa[16*gt +: 16]};
            end
            for (gt = 0; gt < NWB - 1; gt = gt + 1) begin : g_ct_node
                assign ct[21*gt +: 21] = ct[21*(2*gt+1) +: 21] + ct[21*(2*gt+2) +: 21];
                assign cta[21*gt +: 21] = cta[21*(2*gt+1) +: 21] + cta[21*(2*gt+2) +: 21];
            end
            wire [20:0] cs_base = i_oh[0] ? 21'd0 : cs_acc;
            wire [20:0] cs_now = cs_base + ct[0 +: 21];
            always @(posedge clk) begin
                if (in_fire) begin
                    cs_acc <= cs_base + cta[0 +: 21];
                    hi_ok <= hi_nx;
                end
                if (rst) hi_ok <= hi_first;
            end
            // At most 30 words: cs_now < 2^21, and it folds to 0xFFFF exactly when its low 16
            // bits are 0xFFFF minus its high 5 (as csum_ok below).
            assign ec_csum_ok = cs_now[15:0] == ~{11'd0, cs_now[20:16]};

            // The GRE header window (12 bytes from g = 34 + 4 gm), gathered beat by beat: byte j
            // comes from this beat's lane (g + j) mod W when g + j is in this beat (gw_in, a
            // mask bit made at the beat before), else from gw_r (the window as far as the
            // earlier beats hold it). The lane takes W/4 values (g is 2 mod 4), selected by the
            // low bits of the registered offset, instead of shifting 60 bytes by it. Exact from
            // byte 34 on, where the offset is registered (see EARLY_CTL above).
            localparam GSW = LW - 2;                   // offset bits that select the lane
            reg  [95:0]   gw_r, gw_now;
            reg  [7:0]    gw_lane;
            reg  [11:0]   gw_in, gw_in_nx;
            reg  [6:0]    gpos;
            integer       j, v;
            always @* begin
                for (j = 0; j < 12; j = j + 1) begin
                    gw_lane = 8'd0;
                    for (v = 0; v < (1 << GSW); v = v + 1)
                        if (pgm[GSW-1:0] == v[GSW-1:0])
                            gw_lane = s_axis_tdata[8*((34 + j + 4 * v) % W) +: 8];
                    gw_now[8*j +: 8] = gw_in[j] ? gw_lane : gw_r[8*j +: 8];
                    gpos = 7'd34 + j[6:0] + {1'b0, gm0, 2'b00};
                    gw_in_nx[j] = (gpos >> LW) == {2'd0, k_nx};
                end
            end
            always @(posedge clk) begin
                if (in_fire) begin
                    gw_r <= gw_now;
                    gw_in <= gw_in_nx;
                end
                if (rst) gw_in <= 12'd0;
            end
            assign ec_gw = gw_now;
        end else begin : g_ctl_now
            assign {ptag0, ptag1, pis4, pis6, pl2, pgm} = {tag0, tag1, is4, is6, l2, gm0};
            assign ec_csum_ok = 1'b0;
            assign ec_gw = 96'd0;
        end
    endgenerate
    // The IP header's first 24 bytes (ipw byte j = frame byte l2 + j).
    // The IP header window the later stages read, placed with the positional facts (with
    // EARLY_CTL the registered ones; the checksum dword mask is then unused: the sum is
    // accumulated in g_early_ctl).
    wire [8*24-1:0] ipw = !EARLY_CTL ? ipw_now
                        : ptag1 ? hn[8*22 +: 8*24] : ptag0 ? hn[8*18 +: 8*24] : hn[8*14 +: 8*24];

    localparam AXW = FW + 7 + 1 + 1 + 7 + 1 + 1 + 8*24 + 4 + 17*NT + NT + 16 + 7 + 1 + 1;
    wire [AXW-1:0] a_d = {cnt, cnt_s, tag0, tag1, l2, is4, is6, ipw, pgm, dsum, dmask,
                          tlen_b, pl2, pis4, pis6};
    wire [AXW-1:0] a_q;
    wire [8*60-1:0] a_hg;            // frame bytes 34..93 (where the GRE header can be)
    generate
        if (P >= 2) begin : g_cut_a
            reg [AXW-1:0] r;
            reg [8*60-1:0] rh;
            always @(posedge clk) begin
                r <= a_d;
                rh <= hn[8*34 +: 8*60];
            end
            assign a_q = r;
            assign a_hg = rh;
        end else begin : g_no_cut_a
            assign a_q = a_d;
            assign a_hg = hn[8*34 +: 8*60];
        end
    endgenerate
    wire [FW-1:0]     a_cnt;
    wire [6:0]        a_cnt_s, a_l2;
    wire              a_tag0, a_tag1, a_is4, a_is6;
    wire [8*24-1:0]   a_ipw;
    wire [3:0]        gm;
    wire [17*NT-1:0]  a_dsum;
    wire [NT-1:0]     a_dmask;
    wire [15:0]       a_tlen;
    wire [6:0]        a_pl2;
    wire              a_pis4, a_pis6;
    assign {a_cnt, a_cnt_s, a_tag0, a_tag1, a_l2, a_is4, a_is6, a_ipw, gm, a_dsum,
            a_dmask, a_tlen, a_pl2, a_pis4, a_pis6} = a_q;

    // -----------------------------------------------------------------------------------------
    // Parser stage 1: IP fields, GRE header window, per-entry address match, checksum partial sums.
    // -----------------------------------------------------------------------------------------
    // The IP header's checks and lengths from its window, the layer-2 length and the IP version.
    localparam IPFW = 1 + 1 + 7 + 1 + FW + 16;
    /* verilator lint_off UNUSEDSIGNAL */  // bytes 1 and 8 (TOS, TTL / hop limit) are not checked
    function [IPFW-1:0] ip_facts(input [8*10-1:0] w, input [6:0] fl2, input f4);
        reg [15:0] v4_len, v6_plen;
        begin
            v4_len = {w[8*2 +: 8], w[8*3 +: 8]};
            v6_plen = {w[8*4 +: 8], w[8*5 +: 8]};
            ip_facts = {w[7:4] != 4'd4 || w[3:0] < 4'd5 || w[8*9 +: 8] != 8'd47,   // v4_bad
                        w[7:4] != 4'd6 || w[8*6 +: 8] != 8'd47,                     // v6_bad
                        fl2 + {1'b0, w[3:0], 2'b00},                                // IPv4 header end
                        ({w[8*6 +: 8], w[8*7 +: 8]} & 16'h3FFF) != 16'd0,           // fragment
                        {{(FW-7){1'b0}}, fl2} + (f4 ? {1'b0, v4_len} : {1'b0, v6_plen} + 17'd40),
                        f4 ? v4_len : v6_plen};                                     // length field
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    // With EARLY_CTL they are registered at each input beat from this beat's layer-2 values
    // (ipw_now), i.e. the decision reads them for the bytes before its beat: it reads them once
    // l2 + 20 (IPv4) or l2 + 40 (IPv6) bytes have arrived, and the fields they read end at byte
    // l2 + 9 <= 31. At 64 bits that is at least 10 bytes, more than a beat, before the deciding
    // byte; at 256 bits the fields are in beat 0 and a beat holding l2 + 20 >= 34 bytes is beat 1
    // or later.
    wire [IPFW-1:0] ipf;
    wire [IPFW-1:0] ipf_cur;         // EARLY_CTL: this beat's, from this beat's layer 2
    generate
        if (EARLY_CTL) begin : g_ipf_reg
            reg  [IPFW-1:0] r;
            assign ipf_cur = ip_facts(ipw_now[8*10-1:0], l2, is4);
            always @(posedge clk)
                if (in_fire) r <= ipf_cur;
            assign ipf = r;
        end else begin : g_ipf_now
            assign ipf_cur = {IPFW{1'b0}};
            assign ipf = ip_facts(a_ipw[8*10-1:0], a_pl2, a_pis4);
        end
    endgenerate
    wire        v4_bad, v6_bad, v4_is_frag;
    wire [6:0]  iph_end;
    wire [FW-1:0] ip_e;
    wire [15:0] len_field;
    assign {v4_bad, v6_bad, iph_end, v4_is_frag, ip_e, len_field} = ipf;
    // The outer source address (it can be in the deciding beat: from the window placed with the
    // positional facts).
    reg  [31:0]  src4;
    reg  [127:0] src6;
    always @* begin
        for (i = 0; i < 4; i = i + 1) src4[8*(3-i) +: 8] = a_ipw[8*(12+i) +: 8];
        for (i = 0; i < 16; i = i + 1) src6[8*(15-i) +: 8] = a_ipw[8*(8+i) +: 8];
    end

    // GRE header at g = 34 + 4 gm (gm from stage 0). gw byte j = frame byte g + j: a shift by a
    // register, no adder in front of it.
    /* verilator lint_off UNUSEDSIGNAL */  // only the low 12 bytes of the shifted window are used
    wire [8*60-1:0] hg_shift = a_hg >> {gm, 5'd0};
    /* verilator lint_on UNUSEDSIGNAL */
    wire [95:0] gw = EARLY_CTL ? ec_gw : hg_shift[95:0];
    wire [6:0]  g = 7'd34 + {1'b0, gm, 2'b00};

    // Tunnel filter, part 1: which entries match the outer source address.
    reg  [ACCEPT_ENTRIES-1:0] addr_hit;
    reg  [127:0] ent_addr;
    always @* begin
        for (i = 0; i < ACCEPT_ENTRIES; i = i + 1) begin
            ent_addr = cfg_acc_addr[128*i +: 128];
            addr_hit[i] = cfg_acc_valid[i] && cfg_acc_ipv6[i] == a_pis6
                          && (a_pis6 ? ent_addr == src6 : ent_addr[31:0] == src4);
        end
    end

    // IPv4 header checksum, step 2: the dwords inside the header summed in two balanced trees of
    // 8 (dwords 0..7 and 8..15) and dword 16 alone.
    wire [16:0] dm [0:NT-1];
    generate
        for (gn = 0; gn < NT; gn = gn + 1) begin : g_dmask
            assign dm[gn] = a_dsum[17*gn +: 17] & {17{a_dmask[gn]}};
        end
    endgenerate
    wire [17:0] cs_l1 [0:7];
    wire [18:0] cs_l2 [0:3];
    generate
        for (gn = 0; gn < 8; gn = gn + 1) begin : g_cs1
            assign cs_l1[gn] = {1'b0, dm[2*gn]} + {1'b0, dm[2*gn+1]};
        end
        for (gn = 0; gn < 4; gn = gn + 1) begin : g_cs2
            assign cs_l2[gn] = {1'b0, cs_l1[2*gn]} + {1'b0, cs_l1[2*gn+1]};
        end
    endgenerate
    // With EARLY_CTL the sum is accumulated beat by beat instead (g_early_ctl).
    wire [19:0] cs0 = {1'b0, cs_l2[0]} + {1'b0, cs_l2[1]};
    wire [19:0] cs1 = {1'b0, cs_l2[2]} + {1'b0, cs_l2[3]};
    wire [16:0] cs2 = dm[16];

    localparam BXW = FW + 7 + 1 + 1 + 7 + 1 + 1 + 1 + 1 + 7 + 1 + 7 + FW + 16 + ACCEPT_ENTRIES + 96
                     + 20 + 20 + 17 + 16 + 7 + 1 + 1;
    wire [BXW-1:0] b_d = {a_cnt, a_cnt_s, a_tag0, a_tag1, a_l2, a_is4, a_is6, v4_bad, v6_bad,
                          iph_end, v4_is_frag, g, ip_e, len_field, addr_hit, gw, cs0, cs1, cs2,
                          a_tlen, a_pl2, a_pis4, ec_csum_ok};
    wire [BXW-1:0] b_q;
    generate
        if (P >= 1) begin : g_cut_b
            reg [BXW-1:0] r;
            always @(posedge clk) r <= b_d;
            assign b_q = r;
        end else begin : g_no_cut_b
            assign b_q = b_d;
        end
    endgenerate
    wire [FW-1:0]     b_cnt_f, b_ip_e;
    wire [6:0]        b_cnt_s, b_l2, b_iph_end, b_g;
    wire              b_tag0, b_tag1, b_is4, b_is6, b_v4_bad, b_v6_bad, b_v4_is_frag;
    wire [15:0]       b_len_field;
    wire [ACCEPT_ENTRIES-1:0] b_addr_hit;
    wire [95:0]       b_gw;
    wire [19:0]       b_cs0, b_cs1;
    wire [16:0]       b_cs2;
    wire [15:0]       b_tlen;
    wire [6:0]        b_pl2;         // positional (see EARLY_CTL); b_l2: this beat's, for waits
    wire              b_pis4;
    wire              b_ec_ok;
    assign {b_cnt_f, b_cnt_s, b_tag0, b_tag1, b_l2, b_is4, b_is6, b_v4_bad, b_v6_bad, b_iph_end,
            b_v4_is_frag, b_g, b_ip_e, b_len_field, b_addr_hit, b_gw, b_cs0, b_cs1, b_cs2,
            b_tlen, b_pl2, b_pis4, b_ec_ok} = b_q;

    // -----------------------------------------------------------------------------------------
    // Parser stage 2: checksum verdict, GRE flags and protocol, key match per entry, the lengths
    // and the output record.
    // -----------------------------------------------------------------------------------------
    wire [21:0] csum = {2'b00, b_cs0} + {2'b00, b_cs1} + {5'd0, b_cs2};
    // The header is good when the folded sum is 0xFFFF. With at most 15 dwords the sum is below
    // 2^21, and folding it (sum[15:0] + sum[21:16], then the carry) gives 0xFFFF exactly when
    // sum[15:0] + sum[21:16] == 0xFFFF, i.e. sum[15:0] == ~sum[21:16]: no folding adders.
    // (With EARLY_CTL the verdict comes from the sum accumulated beat by beat.)
    wire        csum_ok = EARLY_CTL ? b_ec_ok : csum[15:0] == ~{10'd0, csum[21:16]};

    wire        gc = b_gw[7], gk = b_gw[5], gs = b_gw[4];
    wire        gre_bad_flags = (b_gw[7:0] & 8'h4F) != 8'd0 || b_gw[15:8] != 8'd0;
    wire [15:0] gproto = {b_gw[8*2 +: 8], b_gw[8*3 +: 8]};
    wire        p6558 = gproto == 16'h6558;
    wire        proto_ok = p6558 || gproto == 16'h0800 || gproto == 16'h86DD;
    wire        gre_bad = gre_bad_flags || !proto_ok;
    wire [31:0] gkey0 = {b_gw[8*4 +: 8], b_gw[8*5 +: 8], b_gw[8*6 +: 8], b_gw[8*7 +: 8]};
    wire [31:0] gkey1 = {b_gw[8*8 +: 8], b_gw[8*9 +: 8], b_gw[8*10 +: 8], b_gw[8*11 +: 8]};
    // The GRE header length is g + 4 + 4 nf, nf = C + K + S. What depends on it is worked out
    // for each nf (and protocol class) from the registered facts, in parallel with the flags,
    // which then only select: no adder or compare behind the flags.
    wire [1:0]  nf = {1'b0, gc} + {1'b0, gk} + {1'b0, gs};
    // ip_e < hlen + (14 or 1), compared on the IP length field against a 7-bit bound instead of
    // on 17-bit sums: IPv4 total length < hlen - l2 + min; IPv6 payload length < that - 40.
    // d_s: the bytes removed before the shifted part (hlen for 0x6558, hlen - l2 otherwise);
    // d_eo: the output length by the IP length field.
    localparam CNW = 7*4 + 8 + 7*8 + FW*8;
    // fgl: g - l2 (the IP header's length: 4 IHL, or 40), kept apart from l2 so that what does
    // not need l2 (the bounds on the length field) does not wait for the tags.
    // The output length d_eo = ip_e - d_s = len + (IPv6 ? 40 : 0) + (0x6558 ? 0 : l2) - d, d =
    // hlen - l2, is formed from the length field with one adder.
    function [CNW-1:0] hdr_cands(input [6:0] fgl, input [6:0] fl2, input f4, input [15:0] flen);
        reg  [7*4-1:0]  nh_c;        // per nf: hlen + 1 (the bytes the decision waits for)
        reg  [7:0]      short_c;     // per (nf, 0x6558): the IP length leaves no inner frame
        reg  [7*8-1:0]  ds_c;        // d_s
        reg  [FW*8-1:0] eo_c;        // d_eo
        reg  [6:0]      d, dp, lm, ds;   // d = hlen - l2, dp = d - (IPv6 ? 40 : 0)
        integer         n, pc;
        begin
            for (n = 0; n < 4; n = n + 1) begin
                d = fgl + 7'd4 + {n[4:0], 2'b00};
                dp = d - (f4 ? 7'd0 : 7'd40);
                nh_c[7*n +: 7] = fl2 + d + 7'd1;
                for (pc = 0; pc < 2; pc = pc + 1) begin
                    lm = dp + (pc == 1 ? 7'd14 : 7'd1);
                    ds = pc == 1 ? fl2 + d : d;
                    short_c[2*n + pc] = flen < {9'd0, lm};
                    ds_c[7*(2*n + pc) +: 7] = ds;
                    eo_c[FW*(2*n + pc) +: FW] = {1'b0, flen} + (pc == 1 ? {FW{1'b0}} : {10'd0, fl2})
                                                - {10'd0, dp};
                end
            end
            hdr_cands = {nh_c, short_c, ds_c, eo_c};
        end
    endfunction
    // With EARLY_CTL they are registered at each input beat from the values of that beat (as
    // the positional facts and the IP checks are), so the flags select among registers; they
    // read the same bytes as the IP checks (the IHL and length field), so they are exact where
    // those are. (With PARSE_STAGES = 1 the decision reads them after cut B, i.e. including its
    // own beat, which is as exact.)
    wire [CNW-1:0]  cands;
    generate
        if (EARLY_CTL) begin : g_cands_reg
            reg  [CNW-1:0] r;
            wire [15:0]    len_cur = ipf_cur[15:0];
            always @(posedge clk)
                if (in_fire) r <= hdr_cands(is4 ? {1'b0, ihl0, 2'b00} : 7'd40, l2, is4, len_cur);
            assign cands = r;
            /* verilator lint_off UNUSEDSIGNAL */  // the registered copies are not needed here
            wire unused_b = ^{b_len_field, b_pis4, ipf_cur[IPFW-1:16]};
            /* verilator lint_on UNUSEDSIGNAL */
        end else begin : g_cands_now
            assign cands = hdr_cands(b_g - b_pl2, b_pl2, b_pis4, b_len_field);
            /* verilator lint_off UNUSEDSIGNAL */  // EARLY_CTL only
            wire unused_c = ^ipf_cur;
            /* verilator lint_on UNUSEDSIGNAL */
        end
    endgenerate
    wire [7*4-1:0]  nh_c;
    wire [7:0]      short_c;
    wire [7*8-1:0]  ds_c;
    wire [FW*8-1:0] eo_c;
    assign {nh_c, short_c, ds_c, eo_c} = cands;
    wire [2:0]  nfp = {nf, p6558};
    wire        ip_short = short_c[nfp];

    // Tunnel filter, part 2: the key, per entry (the key is at GRE byte 4, or 8 after a checksum).
    reg  [ACCEPT_ENTRIES-1:0] ent_hit;
    reg  [31:0] ent_key;
    always @* begin
        for (i = 0; i < ACCEPT_ENTRIES; i = i + 1) begin
            ent_key = cfg_acc_key[32*i +: 32];
            ent_hit[i] = b_addr_hit[i] && (!cfg_acc_key_valid[i]
                                           || (gk && (gc ? gkey1 == ent_key : gkey0 == ent_key)));
        end
    end

    // The record the output stage needs: S = bytes removed before the shifted part (b0 beats + r
    // bytes), pu = unshifted bytes kept (outer MACs and tags), p = pu + 2 (the new Ethertype),
    // eo = output length by the IP length field.
    wire [6:0]  d_s = ds_c[7*nfp +: 7];
    wire [3:0]  d_b0 = d_s[6:3] >> (LW - 3);        // whole beats removed (<= 12)
    wire [LW-1:0] d_r = d_s[LW-1:0];               // and bytes
    wire [4:0]  d_pu = p6558 ? 5'd0 : b_pl2[4:0] - 5'd2;
    wire [4:0]  d_p = p6558 ? 5'd0 : b_pl2[4:0];
    wire [FW-1:0] d_eo = eo_c[FW*nfp +: FW];
    wire [6:0]  d_lim = b_pl2 + 7'd46;                   // 60 + 4 per tag
    // The length verdict from s_axis_tlen (LEN_IN = 1): the frame length F agrees with the IP
    // length E when F == E, or E < F <= 60 + 4 per tag (Ethernet padding).
    wire [FW-1:0] t_f = {{(FW-16){1'b0}}, b_tlen};
    wire        tlen_ok = t_f == b_ip_e || (t_f > b_ip_e && t_f <= {{(FW-7){1'b0}}, d_lim});
    wire        len_bad = LEN_IN != 0 && !tlen_ok;
    // Byte counts the chain below waits for.
    wire [6:0]  n_v4 = b_l2 + 7'd20, n_v6 = b_l2 + 7'd40, n_gre = b_g + 7'd4, n_hdr = nh_c[7*nf +: 7];

    localparam CXW = FW + 7 + 1 + 1 + 1 + 1 + 1 + 1 + 7 + 1 + 1 + 7 + 7 + 7 + 1 + 7 + 1
                     + ACCEPT_ENTRIES + 4 + LW + 5 + 5 + 16 + FW + FW + 7 + 1;
    wire [CXW-1:0] c_d = {b_cnt_f, b_cnt_s, b_tag0, b_tag1, b_is4, b_is6, b_v4_bad, b_v6_bad,
                          b_iph_end, csum_ok, b_v4_is_frag, n_v4, n_v6, n_gre, gre_bad, n_hdr,
                          ip_short, ent_hit, d_b0, d_r, d_pu, d_p, gproto, d_eo, b_ip_e, d_lim,
                          len_bad};
    wire [CXW-1:0] c_q;
    generate
        if (P >= 3) begin : g_cut_c
            reg [CXW-1:0] r;
            always @(posedge clk) r <= c_d;
            assign c_q = r;
        end else begin : g_no_cut_c
            assign c_q = c_d;
        end
    endgenerate
    wire [FW-1:0]     c_cnt, c_eo, c_ip_e;
    wire [6:0]        c_cnt_s, c_iph_end, c_n_v4, c_n_v6, c_n_gre, c_n_hdr, c_lim;
    wire              c_tag0, c_tag1, c_is4, c_is6, c_v4_bad, c_v6_bad, c_csum_ok, c_v4_is_frag;
    wire              c_gre_bad, c_ip_short, c_len_bad;
    wire [ACCEPT_ENTRIES-1:0] c_ent_hit;
    wire [3:0]        c_b0;
    wire [LW-1:0]     c_r0;
    wire [4:0]        c_pu, c_p;
    wire [15:0]       c_gproto;
    assign {c_cnt, c_cnt_s, c_tag0, c_tag1, c_is4, c_is6, c_v4_bad, c_v6_bad, c_iph_end, c_csum_ok,
            c_v4_is_frag, c_n_v4, c_n_v6, c_n_gre, c_gre_bad, c_n_hdr, c_ip_short, c_ent_hit, c_b0,
            c_r0, c_pu, c_p, c_gproto, c_eo, c_ip_e, c_lim, c_len_bad} = c_q;

    // -----------------------------------------------------------------------------------------
    // Parser stage 3 (the cycle the beat reaches the virtual input): the decision chain
    // (gre/README.md), registered with the beat; the length verdict at the frame's last beat.
    // -----------------------------------------------------------------------------------------
    wire        acc_hit = cfg_accept_all || c_ent_hit != {ACCEPT_ENTRIES{1'b0}};
    reg         d_wait;              // more bytes needed
    reg  [3:0]  d_reason;
    reg         gre_wait;
    reg  [3:0]  gre_reason;
    always @* begin
        gre_wait = 1'b0;
        gre_reason = R_DECAP;
        if (c_cnt_s < c_n_gre)                    gre_wait = 1'b1;
        else if (c_gre_bad)                       gre_reason = R_UNSUPPORTED;
        else if (c_cnt_s < c_n_hdr)               gre_wait = 1'b1;
        else if (c_ip_short)                      gre_reason = R_TOO_SHORT;
        else if (!acc_hit)                        gre_reason = cfg_drop_unknown ? R_UNKNOWN_DROP : R_UNKNOWN_PASS;
        else if (c_len_bad)                       gre_reason = R_PASS_LENGTH;

        d_wait = 1'b0;
        d_reason = R_NOT_GRE;
        if (c_cnt_s < 7'd14)                      d_wait = 1'b1;
        else if (c_tag0 && c_cnt_s < 7'd18)       d_wait = 1'b1;
        else if (c_tag1 && c_cnt_s < 7'd22)       d_wait = 1'b1;
        else if (c_is4) begin
            if (c_cnt_s < c_n_v4)                 d_wait = 1'b1;
            else if (c_v4_bad)                    d_reason = R_NOT_GRE;
            else if (c_cnt_s < c_iph_end)         d_wait = 1'b1;
            else if (!c_csum_ok)                  d_reason = R_BAD_CSUM;
            else if (c_v4_is_frag)                d_reason = R_FRAGMENT;
            else begin
                d_wait = gre_wait;
                d_reason = gre_reason;
            end
        end else if (c_is6) begin
            if (c_cnt_s < c_n_v6)                 d_wait = 1'b1;
            else if (c_v6_bad)                    d_reason = R_NOT_GRE;
            else begin
                d_wait = gre_wait;
                d_reason = gre_reason;
            end
        end
        if (d_wait) d_reason = R_TOO_SHORT;      // only used when the frame ends here
    end

    reg              p_dec;          // the current (virtual input) frame's decision has been made
    reg  [1:0]       p_mode;
    reg  [3:0]       p_reason;
    reg  [FW-1:0]    p_e;            // where the IP packet ends by its length field
    reg  [6:0]       p_lim;          // longest frame that may carry padding

    wire        d_ready = !d_wait || v_last;
    wire        dec_push = v_fire && !p_dec && d_ready;
    wire [1:0]  d_mode = d_reason == R_DECAP ? M_DECAP : d_reason == R_UNKNOWN_DROP ? M_DROP : M_PASS;
    localparam RW = 2 + 4 + LW + 5 + 5 + 16 + FW;
    wire [RW-1:0] d_rec = {d_mode, c_b0, c_r0, c_pu, c_p, c_gproto, c_eo};

    // Length verdict at the frame's last beat from the bytes received (with LEN_IN = 1 it can
    // only fail when s_axis_tlen was not the frame's length).
    wire [1:0]  f_mode = p_dec ? p_mode : d_mode;
    wire [3:0]  f_reason = p_dec ? p_reason : d_reason;
    wire [FW-1:0] f_e = p_dec ? p_e : c_ip_e;
    wire [6:0]  f_lim = p_dec ? p_lim : c_lim;
    wire        len_ok = c_cnt == f_e || (c_cnt > f_e && c_cnt <= {10'd0, f_lim});
    wire        v_xbad = v_last && f_mode == M_DECAP && !len_ok;
    // The output stage can only be reading this beat directly (bypass) if the frame's decision
    // was made in an earlier beat, so the bypass copy uses the registered decision alone.
    wire        len_ok_p = c_cnt == p_e || (c_cnt > p_e && c_cnt <= {10'd0, p_lim});
    wire        v_xbad_b = v_last && p_mode == M_DECAP && !len_ok_p;

    always @(posedge clk) begin
        stat_valid <= 1'b0;
        if (in_fire) begin
            hdr <= hn;
            if (in_last) begin
                i_k <= {KW{1'b0}};
                i_oh <= {{(NHB-1){1'b0}}, 1'b1};
                i_fb <= {FW{1'b0}};
            end else begin
                i_oh <= i_oh << 1;
                if (i_k != {KW{1'b1}}) i_k <= i_k + 1'b1;
                i_fb <= cnt;
            end
        end
        if (v_fire) begin
            if (dec_push) begin
                p_mode <= d_mode;
                p_reason <= d_reason;
                p_e <= c_ip_e;
                p_lim <= c_lim;
            end
            if (v_last) begin
                p_dec <= 1'b0;
                stat_valid <= 1'b1;
                stat_reason <= v_xbad ? R_DROP_LENGTH : f_reason;
            end else if (d_ready) begin
                p_dec <= 1'b1;
            end
        end
        if (rst) begin
            i_k <= {KW{1'b0}};
            i_oh <= {{(NHB-1){1'b0}}, 1'b1};
            i_fb <= {FW{1'b0}};
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
    reg [5:0]            b_count;
    wire [5:0]           b_avail = b_count + {5'd0, v_fire};
`ifndef SYNTHESIS
    // Simulation only: FPGA LUT RAM starts defined (zero). Without this, the bytes of an output
    // beat outside tkeep can come from a never-written entry (the window's second beat, read
    // without bypass with OUT_STAGES = 2) and be X in a 4-state simulator.
    integer bi;
    initial begin
        for (bi = 0; bi < DEPTH; bi = bi + 1) begin
            b_data[bi] = {DATA_WIDTH{1'b0}};
            b_cnt[bi] = {CW{1'b0}};
            b_last[bi] = 1'b0;
            b_user[bi] = {USER_WIDTH{1'b0}};
            b_xbad[bi] = 1'b0;
        end
    end
`endif

    // The queue's head is a register (h_rec), so the output stage never reads LUT RAM for its
    // record; the rest waits in q_rec. A record pushed in a cycle is at the head in the next one
    // when nothing is ahead of it, as with a plain LUT RAM queue.
    reg [RW-1:0]         q_rec [0:DEPTH-1];
    reg [AW-1:0]         q_wr, q_rd;
    reg [5:0]            q_count;    // records in q_rec (behind the head)
    reg                  h_valid;
    reg [RW-1:0]         h_rec;
    wire                 rec_avail = h_valid;
    wire [RW-1:0]        rec = h_rec;
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
    wire [5:0]           soff6 = {2'b00, soff}, soff16 = {2'b00, soff1};
    wire                 u_buf  = !BYP || b_count != 0;
    wire                 s_buf  = !BYP || soff6 < b_count;
    wire                 s1_buf = !BYP || soff16 < b_count;
    wire [AW-1:0]        u_idx  = b_rd;
    wire [AW-1:0]        s_idx  = b_rd + soff6[AW-1:0];
    wire [AW-1:0]        s1_idx = b_rd + soff16[AW-1:0];
    wire [5:0]           b_rdy  = BYP ? b_avail : b_count;   // beats the output stage can read
    wire                 u_ok   = b_rdy != 0;
    wire                 s_ok   = soff6 < b_rdy;
    wire                 s1_ok  = soff16 < b_rdy;
    wire [DATA_WIDTH-1:0] u_data  = u_buf  ? b_data[u_idx]  : v_data;
    wire [DATA_WIDTH-1:0] s_data  = s_buf  ? b_data[s_idx]  : v_data;
    wire [DATA_WIDTH-1:0] s1_data = s1_buf ? b_data[s1_idx] : v_data;
    wire [CW-1:0]        u_cnt   = u_buf  ? b_cnt[u_idx]   : v_cnt;
    wire [CW-1:0]        s_cnt   = s_buf  ? b_cnt[s_idx]   : v_cnt;
    wire [CW-1:0]        s1_cnt  = s1_buf ? b_cnt[s1_idx]  : v_cnt;
    wire                 u_last  = u_buf  ? b_last[u_idx]  : v_last;
    wire                 s_last  = s_buf  ? b_last[s_idx]  : v_last;
    wire                 s1_last = s1_buf ? b_last[s1_idx] : v_last;
    wire [USER_WIDTH-1:0] u_user  = u_buf  ? b_user[u_idx]  : v_user;
    wire [USER_WIDTH-1:0] s_user  = s_buf  ? b_user[s_idx]  : v_user;
    wire [USER_WIDTH-1:0] s1_user = s1_buf ? b_user[s1_idx] : v_user;
    wire                 u_xbad  = u_buf  ? b_xbad[u_idx]  : v_xbad_b;
    wire                 s_xbad  = s_buf  ? b_xbad[s_idx]  : v_xbad_b;
    wire                 s1_xbad = s1_buf ? b_xbad[s1_idx] : v_xbad_b;

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

    // The prefix (pleft <= 22 bytes) only reaches the first NPRE bytes of a beat.
    localparam NPRE = W < 24 ? W : 24;

    reg                  m_valid;
    reg [DATA_WIDTH-1:0] m_data;
    reg [CW:0]           m_cnt;      // bytes in the output beat (tkeep is decoded from it)
    reg                  m_last;
    reg [USER_WIDTH-1:0] m_user;
    wire                 m_free = !m_valid || m_axis_tready;
    wire                 can_out;    // the output stage may form a beat (see g_form_*)

    // Decapsulation step: end of frame by the input's end (F) or by the IP length (E).
    wire         r_nz = c_r != {LW{1'b0}};
    wire         dc_ready = s_ok && (!r_nz || s_last || s1_ok);
    wire [CW:0]  wr_left = WB1 - {{(CW+1-LW){1'b0}}, c_r};          // bytes of s in the window
    wire         fin_f = s_last || (r_nz && s1_last && s1_cnt <= {1'b0, c_r});
    wire         vis_last = s_last || (r_nz && s1_last);
    // The selects between values read from different ports (s, s1, u) are AND-OR, not muxes:
    // Yosys merges two LUT RAM reads feeding a mux into one read whose address waits for the
    // select (which here depends on the output state).
    wire         sel_a = s_last;
    wire         sel_b = !s_last && r_nz && s1_last && s1_cnt <= {1'b0, c_r};
    wire         sel_c = !sel_a && !sel_b;
    wire [CW:0]  vb_fa = {1'b0, s_cnt} - {{(CW+1-LW){1'b0}}, c_r};
    wire [CW:0]  vb_fb = wr_left + {1'b0, s1_cnt};
    wire [CW:0]  vb_f = (vb_fa & {(CW+1){sel_a}}) | (vb_fb & {(CW+1){sel_b}}) | (WB1 & {(CW+1){sel_c}});
    wire         fin_e = c_eleft <= WF;
    // vb = min(vb_f, eleft) when fin_e. The compare eleft < vb_f is made per candidate, in
    // parallel with the buffer read, against eleft + r (from registers): eleft < s_cnt - r
    // (the last beat always holds more than r bytes of a decapsulated frame) is eleft + r <
    // s_cnt, and eleft < W - r + s1_cnt is eleft + r < W + s1_cnt.
    wire [CW:0]  e_low = c_eleft[CW:0];
    wire [CW+1:0] e_r = {1'b0, e_low} + {{(CW+2-LW){1'b0}}, c_r};
    wire         lt_a = e_r < {2'b00, s_cnt};
    wire         lt_b = e_r < {2'b00, s1_cnt} + {1'b0, WB1};
    wire         lt_c = e_low < WB1;
    wire         lt_f = (lt_a && sel_a) || (lt_b && sel_b) || (lt_c && sel_c);
    wire [CW:0]  vb = (fin_e && lt_f) ? e_low : vb_f;
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

    // Forming the output beat (the shift and the prefix): from this cycle's reads
    // (OUT_STAGES = 1) or from the window register (2; see below). f_*: its inputs.
    wire [DATA_WIDTH-1:0] f_s, f_s1;
    wire [8*NPRE-1:0]     f_u;
    wire [LW-1:0]         f_r;
    wire [4:0]            f_uleft, f_pleft;
    wire [15:0]           f_proto;
    /* verilator lint_off UNUSEDSIGNAL */  // only the low half of the shifted pair is the window
    wire [2*DATA_WIDTH-1:0] win2 = {f_s1, f_s} >> {f_r, 3'b000};
    /* verilator lint_on UNUSEDSIGNAL */
    wire [DATA_WIDTH-1:0]   win = win2[DATA_WIDTH-1:0];
    reg [DATA_WIDTH-1:0] dc_data;
    always @* begin
        dc_data = win;
        for (i = 0; i < NPRE; i = i + 1) begin
            if (i < f_uleft)
                dc_data[8*i +: 8] = f_u[8*i +: 8];
            else if (i < f_pleft)
                dc_data[8*i +: 8] = (i[6:0] == {2'b00, f_uleft}) ? f_proto[15:8] : f_proto[7:0];
        end
    end

    reg [4:0]    pop;
    reg          take, out_ld, out_hold, drain_done;
    reg          nx_act, nx_drain;
    reg [3:0]    nx_soff;
    reg          o_pass;             // the output beat is u as it is (a passed frame)
    wire [CW:0]  o_cnt;
    reg          o_last;
    // Which tuser the beat carries: 0 s's, 1 s's with its length verdict, 2 s1's with its
    // verdict, 3 u's (with its verdict on a last beat). Selected from the reads in the same cycle
    // (OUT_STAGES = 1) or from their registered copies in the next one (2), so that no read's
    // address depends on another read's data.
    localparam [1:0] US_S = 2'd0, US_SX = 2'd1, US_S1X = 2'd2, US_U = 2'd3;
    reg [1:0]    o_usel;
    always @* begin
        pop = 5'd0;
        take = 1'b0;
        out_ld = 1'b0;
        out_hold = 1'b0;
        drain_done = 1'b0;
        nx_act = st_act;
        nx_drain = st_drain;
        nx_soff = soff;
        o_pass = 1'b0;
        o_last = 1'b0;
        o_usel = US_S;
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
                            o_usel = s_last ? US_SX : US_S1X;
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
                    o_pass = 1'b1;
                    o_last = u_last;
                    o_usel = US_U;
                end
            endcase
        end
    end

    // a passed beat's count is u's, else vb (AND-OR: see vb_f)
    assign o_cnt = ({1'b0, u_cnt} & {(CW+1){o_pass}}) | (vb & {(CW+1){!o_pass}});

    wire [FW-1:0] eleft_next = c_eleft - WF;
    // The head is (re)loaded when it is free or taken: from q_rec if that holds records, else
    // with this cycle's decision; a decision that cannot go to the head is stored.
    wire          h_load = take || !h_valid;
    wire          q_store = dec_push && !(h_load && q_count == 0);

    always @(posedge clk) begin
        // header buffer
        if (v_fire) begin
            b_data[b_wr] <= v_data;
            b_cnt[b_wr]  <= v_cnt;
            b_last[b_wr] <= v_last;
            b_user[b_wr] <= v_user;
            b_xbad[b_wr] <= v_xbad;
            b_wr <= b_wr + 1'b1;
        end
        b_rd <= b_rd + pop[AW-1:0];
        b_count <= b_avail - {1'b0, pop};
        // decision queue
        if (h_load && q_count != 0) begin
            h_rec <= q_rec[q_rd];
            q_rd <= q_rd + 1'b1;
        end else if (h_load) begin
            h_rec <= d_rec;
        end
        if (h_load) h_valid <= q_count != 0 || dec_push;
        if (q_store) begin
            q_rec[q_wr] <= d_rec;
            q_wr <= q_wr + 1'b1;
        end
        q_count <= q_count + {5'd0, q_store} - {5'd0, h_load && q_count != 0};
        // Room for one more beat besides those still in the delay line, not counting this cycle's
        // pop (one cycle pessimistic, which keeps the output stage out of this path; the buffer
        // is twice what back-to-back traffic needs). The decision queue needs no check: it holds
        // at most one record per frame with beats in the header buffer.
        tready_q <= b_avail + {4'd0, dl_busy} < DEPTH6;

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
        if (rst) begin
            b_wr <= {AW{1'b0}};
            b_rd <= {AW{1'b0}};
            b_count <= 6'd0;
            q_wr <= {AW{1'b0}};
            q_rd <= {AW{1'b0}};
            q_count <= 6'd0;
            h_valid <= 1'b0;
            tready_q <= 1'b0;
            st_act <= 1'b0;
            st_drain <= 1'b0;
        end
    end

    // The output register: loaded in the cycle the beat is formed (OUT_STAGES = 1), or one
    // cycle later from the window register x_* (2).
    generate
        if (BYP) begin : g_form_now
            assign can_out = m_free;
            assign f_s = s_data;
            assign f_s1 = s1_data;
            assign f_u = u_data[8*NPRE-1:0];
            assign f_r = c_r;
            assign f_uleft = c_uleft;
            assign f_pleft = c_pleft;
            assign f_proto = c_proto;
            always @(posedge clk) begin
                if (out_ld) begin
                    m_data <= o_pass ? u_data : dc_data;
                    m_cnt <= o_cnt;
                    m_last <= o_last;
                    case (o_usel)
                        US_S:    m_user <= s_user;
                        US_SX:   m_user <= s_user | (s_xbad ? U_BAD : U_NONE);
                        US_S1X:  m_user <= s1_user | (s1_xbad ? U_BAD : U_NONE);
                        default: m_user <= u_user | (u_xbad && u_last ? U_BAD : U_NONE);
                    endcase
                    m_valid <= !out_hold;
                end else if (drain_done) begin
                    m_user <= u_user | (u_xbad ? U_BAD : U_NONE);
                    m_valid <= 1'b1;
                end else if (m_axis_tready) begin
                    m_valid <= 1'b0;
                end
                if (rst) m_valid <= 1'b0;
            end
        end else begin : g_form_next
            // The window register between the two cycles: the raw beats, the shift and the
            // prefix (a passed beat is u with no shift); x_valid = 0 with the beat in it while a
            // length-checked last beat is held for the input frame's end.
            reg                  x_valid;
            reg [DATA_WIDTH-1:0] x_s, x_s1;
            reg [8*NPRE-1:0]     x_u;
            reg [LW-1:0]         x_r;
            reg [4:0]            x_uleft, x_pleft;
            reg [15:0]           x_proto;
            reg [CW:0]           x_cnt;
            reg                  x_last;
            reg [1:0]            x_usel;
            reg [USER_WIDTH-1:0] x_su, x_s1u, x_uu;
            reg                  x_sx, x_s1x, x_ux;
            assign can_out = !x_valid || m_free;
            assign f_s = x_s;
            assign f_s1 = x_s1;
            assign f_u = x_u;
            assign f_r = x_r;
            assign f_uleft = x_uleft;
            assign f_pleft = x_pleft;
            assign f_proto = x_proto;
            always @(posedge clk) begin
                if (out_ld) begin
                    x_s <= (u_data & {DATA_WIDTH{o_pass}}) | (s_data & {DATA_WIDTH{!o_pass}});
                    x_s1 <= s1_data;
                    x_u <= u_data[8*NPRE-1:0];
                    x_r <= o_pass ? {LW{1'b0}} : c_r;
                    x_uleft <= o_pass ? 5'd0 : c_uleft;
                    x_pleft <= o_pass ? 5'd0 : c_pleft;
                    x_proto <= c_proto;
                    x_cnt <= o_cnt;
                    x_last <= o_last;
                    x_usel <= o_usel;
                    x_su <= s_user;
                    x_sx <= s_xbad;
                    x_s1u <= s1_user;
                    x_s1x <= s1_xbad;
                    x_uu <= u_user;
                    x_ux <= u_xbad && u_last;
                    x_valid <= !out_hold;
                end else if (drain_done) begin
                    x_usel <= US_U;
                    x_uu <= u_user;
                    x_ux <= u_xbad;
                    x_valid <= 1'b1;
                end else if (m_free) begin
                    x_valid <= 1'b0;
                end
                if (x_valid && m_free) begin
                    m_data <= dc_data;
                    m_cnt <= x_cnt;
                    m_last <= x_last;
                    case (x_usel)
                        US_S:    m_user <= x_su;
                        US_SX:   m_user <= x_su | (x_sx ? U_BAD : U_NONE);
                        US_S1X:  m_user <= x_s1u | (x_s1x ? U_BAD : U_NONE);
                        default: m_user <= x_uu | (x_ux ? U_BAD : U_NONE);
                    endcase
                    m_valid <= 1'b1;
                end else if (m_axis_tready) begin
                    m_valid <= 1'b0;
                end
                if (rst) begin
                    x_valid <= 1'b0;
                    m_valid <= 1'b0;
                end
            end
        end
    endgenerate

    assign m_axis_tdata = m_data;
    // A decode of a register (not of the output stage's logic), kept off the byte-count path.
    assign m_axis_tkeep = ~({KEEP_WIDTH{1'b1}} << m_cnt);
    assign m_axis_tvalid = m_valid;
    assign m_axis_tlast = m_last;
    assign m_axis_tuser = m_user;

endmodule

`default_nettype wire
