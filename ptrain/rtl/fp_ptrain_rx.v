// fp_ptrain_rx: the packet-train tester's timestamping receiver (seeds/003). It sits behind an RX
// MAC (fp_eth_mac_1g: DATA_WIDTH 8; fp_eth_mac_10g: DATA_WIDTH 64), whose stream has no tready,
// tuser[0] = bad on the tlast beat and s_axis_ts = the fp_time of the frame's SFD (constant in a
// frame). Every frame is
//   1. filtered: selected when any enabled rule matches (RULES rules, cfg_rule_* ports, static
//      while running). A rule is a masked match (value, mask; mask 0 = any) on each of: destination
//      MAC, source MAC, tagged (one bit), VLAN ID of the first tag, IP version (ipv6 bit), IP
//      protocol (IPv6: next header), IPv4 source / destination address (IPv6: the low 32 bits of
//      each address), UDP (or any L4) source / destination port. A term with a non-zero mask fails
//      on a frame that lacks the field: MACs and tagged need 14 bytes, the VLAN ID a complete tag,
//      IP fields an IPv4 header without options or an IPv6 header, ports also the first 4 bytes
//      of the L4 header (not an IPv4 later fragment).
//   2. classified as fastpath.ptrain.frame.parse() does (ptrain/README.md "What the receiver takes"),
//      with two differences: IPv4 with options (IHL != 5) is foreign, and the pktgen seconds /
//      microseconds are not compared with tx_time (no time_mismatch). Checked: up to two 802.1Q /
//      802.1ad tags, IPv4 (no options, not a later fragment) or IPv6 (no extension header), UDP,
//      the magic, version 1, header complete, UDP length = IP length and >= 50, frame at least as
//      long as its IP/UDP lengths (longer is padding), the UDP checksum (when not 0, over the
//      datagram and the pseudo-header), train_len != 0 and index < train_len. Compact frames
//      (version 2, IPv4 only; over IPv6 foreign): the 18-byte compact header complete, UDP length
//      = IP length and >= 26, the checksum when not 0; their record has train = seq - index,
//      index = the IPv4 identification, train_len = 0, tx_time from the compact header, and the
//      stream window takes their train's end as seq + 1 (train_len unknown). Outcome per frame:
//      not selected, foreign, truncated, bad_length, fragment (IPv4 MF set), bad_checksum,
//      bad_fields (each counted in its stat_* counter), or a record.
//   3. A record (ptrain/rtl/ptrain_record.fmt.toml, one m_axis beat of `FP_PTREC_W bits, tlast = 1,
//      tkeep all ones) goes through a FIFO of RECORD_DEPTH records; a record that finds it full is
//      dropped and counted (stat_record_drops). Records of frames the MAC marked bad carry the bad
//      flag (stat_bad_fcs counts them).
//   4. Per stream (stream id < STREAMS; stat_untracked counts good records of other streams;
//      frames marked bad are not tracked), with sequence numbers in serial arithmetic (RFC 1982):
//      received, unique, duplicates, reordered (a first copy lower than the highest before it,
//      RFC 4737, as fastpath.ptrain.analyze), late, the first (lowest) and highest sequence
//      number, and the span of the trains received (lowest seq - index, highest seq - index +
//      train_len). A bitmap of the WINDOW sequence numbers at and below the highest finds
//      duplicates; a frame WINDOW or more behind the highest is late: counted as unique and
//      reordered without a duplicate check. Lost = (highest - first + 1) - unique; lost as the
//      analyser counts it (whole trains and train tails) = (train_end - train_first) - unique.
//
// Latency:    15 cycles from the tlast beat of a frame to its record valid on m_axis (m_axis
//             ready, record FIFO empty): 1 for the input register (the s_axis_* ports are
//             registered before any use), 7 to classify (E0..E6), 4 for the stream window
//             (T1..T4), 3 from the FIFO's write to m_axis. The per-frame counters show a frame 9
//             cycles after its tlast beat, the per-stream ones and stat_records 13.
// Throughput: every frame at line rate on both widths, back to back without any gap between
//             frames (frames of any size, any gaps, inside frames too): the parser takes a beat
//             per cycle and classifies a frame per cycle; the stream window is a pipeline of 5
//             cycles (read to write) that a stream's next frame enters only after the write
//             (tester frames are at least 60 bytes: 8 beats at 64 bits). Records: at most one per
//             8 cycles (64 bits: 60-byte frames back to back, 14.88 M/s on a 10G wire where they
//             come every 10 or 11 cycles) / 60 cycles (8 bits); m_axis takes one per 3 cycles at
//             most when ready, so no record is dropped at line rate while m_axis is ready.
// Bad input:  foreign, malformed and unselected frames are counted and make no record; frames
//             marked bad by the MAC make a record with the bad flag (when otherwise valid); no
//             header field is used beyond the frame's end (every check is gated by the frame's
//             length); a full record FIFO drops and counts. tkeep must be contiguous from byte 0
//             (only the last beat partial). Nothing hangs; nothing is lost without a count.
// Parameters: DATA_WIDTH 8 or 64; KEEP_WIDTH = DATA_WIDTH/8; RULES 1..16; STREAMS 1..16; WINDOW a
//             power of two 16..1024; RECORD_DEPTH a power of two 16..4096 (the FIFO's RAM:
//             block RAM at 512, LUT RAM at 32).
`default_nettype none

`include "fp_ptrain.vh"
`include "fp_ptrain_record.vh"

module fp_ptrain_rx #(
    parameter DATA_WIDTH   = 8,
    parameter KEEP_WIDTH   = DATA_WIDTH / 8,
    parameter RULES        = 4,
    parameter STREAMS      = 4,
    parameter WINDOW       = 64,
    parameter RECORD_DEPTH = 512
) (
    input  wire                        clk,
    input  wire                        rst,

    input  wire [DATA_WIDTH-1:0]       s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0]       s_axis_tkeep,
    input  wire                        s_axis_tvalid,
    input  wire                        s_axis_tlast,
    input  wire [0:0]                  s_axis_tuser,
    input  wire [63:0]                 s_axis_ts,

    output wire [`FP_PTREC_W-1:0]      m_axis_tdata,
    output wire [`FP_PTREC_W/8-1:0]    m_axis_tkeep,
    output wire                        m_axis_tvalid,
    input  wire                        m_axis_tready,
    output wire                        m_axis_tlast,

    input  wire [RULES-1:0]            cfg_rule_en,
    input  wire [48*RULES-1:0]         cfg_rule_dst_mac,
    input  wire [48*RULES-1:0]         cfg_rule_dst_mac_mask,
    input  wire [48*RULES-1:0]         cfg_rule_src_mac,
    input  wire [48*RULES-1:0]         cfg_rule_src_mac_mask,
    input  wire [RULES-1:0]            cfg_rule_tagged,
    input  wire [RULES-1:0]            cfg_rule_tagged_mask,
    input  wire [12*RULES-1:0]         cfg_rule_vid,
    input  wire [12*RULES-1:0]         cfg_rule_vid_mask,
    input  wire [RULES-1:0]            cfg_rule_ipv6,
    input  wire [RULES-1:0]            cfg_rule_ipv6_mask,
    input  wire [8*RULES-1:0]          cfg_rule_proto,
    input  wire [8*RULES-1:0]          cfg_rule_proto_mask,
    input  wire [32*RULES-1:0]         cfg_rule_ip_src,
    input  wire [32*RULES-1:0]         cfg_rule_ip_src_mask,
    input  wire [32*RULES-1:0]         cfg_rule_ip_dst,
    input  wire [32*RULES-1:0]         cfg_rule_ip_dst_mask,
    input  wire [16*RULES-1:0]         cfg_rule_sport,
    input  wire [16*RULES-1:0]         cfg_rule_sport_mask,
    input  wire [16*RULES-1:0]         cfg_rule_dport,
    input  wire [16*RULES-1:0]         cfg_rule_dport_mask,

    // Per frame (32 bits, wrapping): every frame = not_selected + foreign + truncated +
    // bad_length + fragment + bad_checksum + bad_fields + records + record_drops.
    output wire [31:0]                 stat_frames,
    output wire [31:0]                 stat_not_selected,
    output wire [31:0]                 stat_foreign,
    output wire [31:0]                 stat_truncated,
    output wire [31:0]                 stat_bad_length,
    output wire [31:0]                 stat_fragment,
    output wire [31:0]                 stat_bad_checksum,
    output wire [31:0]                 stat_bad_fields,
    output wire [31:0]                 stat_records,
    output wire [31:0]                 stat_record_drops,
    output wire [31:0]                 stat_bad_fcs,
    output wire [31:0]                 stat_untracked,
    // Per stream s (bits [32*s +: 32]); stat_seen[s]: the stream has had a tracked frame.
    output wire [STREAMS-1:0]          stat_seen,
    output wire [32*STREAMS-1:0]       stat_received,
    output wire [32*STREAMS-1:0]       stat_unique,
    output wire [32*STREAMS-1:0]       stat_duplicates,
    output wire [32*STREAMS-1:0]       stat_reordered,
    output wire [32*STREAMS-1:0]       stat_late,
    output wire [32*STREAMS-1:0]       stat_seq_first,
    output wire [32*STREAMS-1:0]       stat_seq_highest,
    output wire [32*STREAMS-1:0]       stat_train_first,
    output wire [32*STREAMS-1:0]       stat_train_end
);

    generate
        if (DATA_WIDTH != 8 && DATA_WIDTH != 64) begin : g_bad_data_width
            PARAMETER_ERROR_DATA_WIDTH_must_be_8_or_64 u_error();
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin : g_bad_keep_width
            PARAMETER_ERROR_KEEP_WIDTH_must_be_DATA_WIDTH_div_8 u_error();
        end
        if (RULES < 1 || RULES > 16) begin : g_bad_rules
            PARAMETER_ERROR_RULES_must_be_1_to_16 u_error();
        end
        if (STREAMS < 1 || STREAMS > 16) begin : g_bad_streams
            PARAMETER_ERROR_STREAMS_must_be_1_to_16 u_error();
        end
        if (WINDOW < 16 || WINDOW > 1024 || (WINDOW & (WINDOW - 1)) != 0) begin : g_bad_window
            PARAMETER_ERROR_WINDOW_must_be_a_power_of_2_from_16_to_1024 u_error();
        end
        if (RECORD_DEPTH < 16 || RECORD_DEPTH > 4096 || (RECORD_DEPTH & (RECORD_DEPTH - 1)) != 0) begin : g_bad_record_depth
            PARAMETER_ERROR_RECORD_DEPTH_must_be_a_power_of_2_from_16_to_4096 u_error();
        end
    endgenerate


    // ------------------------------------------------------------------------------------------
    // Constants (offsets from ptrain/rtl/ptrain.fmt.toml)

    localparam integer BYTES    = DATA_WIDTH / 8;
    localparam integer LB       = BYTES > 1 ? $clog2(BYTES) : 0;   // lane bits of a byte position
    localparam integer ETH_LEN  = `FP_PTRAIN_ETH_LEN;                              // 14
    localparam integer TAG_LEN  = `FP_PTRAIN_ETH_VLAN_LEN - `FP_PTRAIN_ETH_LEN;    // 4
    localparam integer ET0_OFF  = `FP_PTRAIN_ETH_ETHERTYPE_OFF;                    // 12
    localparam integer TCI_OFF  = `FP_PTRAIN_ETH_VLAN_TCI_OFF;                     // 14
    localparam integer IP4_LEN  = `FP_PTRAIN_IPV4_LEN;                             // 20
    localparam integer IP6_LEN  = `FP_PTRAIN_IPV6_LEN;                             // 40
    localparam integer UDP_LEN  = `FP_PTRAIN_UDP_LEN;                              // 8
    localparam integer HDR_LEN  = `FP_PTRAIN_TESTER_LEN;                           // 42
    localparam integer HDRC_LEN = `FP_PTRAIN_COMPACT_LEN;                          // 18
    // The header buffer: the longest header read, two tags + IPv6 + UDP + tester header up to
    // the end of tx_time (csum_adj is not read).
    localparam integer HB       = ETH_LEN + 2 * TAG_LEN + IP6_LEN + UDP_LEN +
                                  `FP_PTRAIN_TESTER_TX_TIME_OFF + `FP_PTRAIN_TESTER_TX_TIME_LEN;  // 110
    localparam integer HB_BEATS = (HB + BYTES - 1) / BYTES;
    localparam integer NW       = 17;                     // byte counts (saturating)
    localparam integer LW       = $clog2(WINDOW);
    localparam integer SW       = STREAMS > 1 ? $clog2(STREAMS) : 1;
    localparam integer RW       = `FP_PTREC_W;
    localparam integer KW       = BYTES > 1 ? $clog2(BYTES) + 1 : 1;
    localparam integer WW       = BYTES > 1 ? DATA_WIDTH : 16;   // checksum words of a beat x 16
    // The fields read from the buffer, per header variant (0, 1, 2 tags x IPv4, IPv6): the full
    // header's, then the IPv4 identification and the compact header's tx_time.
    localparam integer BW       = 8 + 16 + 14 + 8 + 32 + 32 + 4 * 16 + 32 + 32 + 8 + 8 + 32 + 32 + 32 + 64 + 16 + 64;

    localparam [15:0] TPID_Q    = `FP_PTRAIN_ETHERTYPE_VLAN;  // 0x8100
    localparam [15:0] TPID_AD   = 16'h88A8;                   // 802.1ad, skipped as parse() does
    localparam [15:0] ET_IPV4   = `FP_PTRAIN_ETHERTYPE_IPV4;
    localparam [15:0] ET_IPV6   = `FP_PTRAIN_ETHERTYPE_IPV6;
    localparam [7:0]  UDP_PROTO = `FP_PTRAIN_IP_PROTO_UDP;
    localparam [31:0] MAGIC     = `FP_PTRAIN_MAGIC;
    localparam [3:0]  VERSION   = `FP_PTRAIN_VERSION;
    localparam [3:0]  VERSION_C = `FP_PTRAIN_VERSION_COMPACT;
    localparam integer STREAMS_I = STREAMS;
    localparam [8:0]  NSTREAMS  = STREAMS_I[8:0];
    localparam [NW-1:0] NMAX    = {NW{1'b1}};
    localparam [NW-1:0] N_BYTES = BYTES[NW-1:0];

    // Lengths a frame must reach (bytes), for the checks; from the IP header (IP4/IP6) or from
    // the UDP header (the rest).
    localparam integer MIN_UDP_I = UDP_LEN + HDR_LEN;                              // 50
    localparam integer MIN_UDPC_I = UDP_LEN + HDRC_LEN;                            // 26 (compact)
    localparam integer T_HDRC_I  = UDP_LEN + HDRC_LEN;                             // 26
    localparam integer T_MAGIC_I = UDP_LEN + `FP_PTRAIN_TESTER_MAGIC_LEN;          // 12
    localparam integer T_VER_I   = UDP_LEN + `FP_PTRAIN_TESTER_VER_FLAGS_OFF + 1;  // 25
    localparam integer T_HDR_I   = UDP_LEN + HDR_LEN;                              // 50
    localparam integer TAG1_I    = ETH_LEN + TAG_LEN;                              // 18
    localparam integer TAG2_I    = ETH_LEN + 2 * TAG_LEN;                          // 22
    localparam [NW-1:0] N_ETH    = ETH_LEN[NW-1:0];
    localparam [NW-1:0] N_TAG1   = TAG1_I[NW-1:0];
    localparam [NW-1:0] N_TAG2   = TAG2_I[NW-1:0];
    localparam [15:0]   MIN_UDP  = MIN_UDP_I[15:0];
    localparam [15:0]   MIN_UDPC = MIN_UDPC_I[15:0];
    localparam [16:0]   IP4_17   = IP4_LEN[16:0];
    // Checksum bounds: the sum starts at the IP source address (22 .. 34: 22, or 26 and more
    // with a tag); the datagram's end matters only in beats that can hold bytes past a tester
    // datagram's shortest end (l4 + 26 over IPv4, the compact header; l4 + 50 over IPv6), from
    // l4 + 27 - BYTES (l4 + 51 - BYTES) on (53 - BYTES at the least).
    localparam integer A_MIN_I   = ETH_LEN + `FP_PTRAIN_IPV6_SRC_OFF;              // 22
    localparam integer A_1_I     = A_MIN_I + TAG_LEN;
    localparam integer A_2_I     = A_MIN_I + 2 * TAG_LEN;
    localparam integer A_3_I     = A_MIN_I + 3 * TAG_LEN;
    localparam [5:0]    A_0      = A_MIN_I[5:0];
    localparam [5:0]    A_1      = A_1_I[5:0];
    localparam [5:0]    A_2      = A_2_I[5:0];
    localparam [5:0]    A_3      = A_3_I[5:0];
    localparam integer LIM_OFF_I = MIN_UDP_I + 1 - BYTES;      // IPv6
    localparam integer LIM_OFFC_I = MIN_UDPC_I + 1 - BYTES;    // IPv4
    localparam integer LIM_MIN_I = ETH_LEN + IP4_LEN + LIM_OFFC_I;
    localparam [NW-1:0] N_LIM_MIN = LIM_MIN_I[NW-1:0];
    localparam integer SRC4_I    = `FP_PTRAIN_IPV4_SRC_OFF;
    localparam integer SRC6_I    = `FP_PTRAIN_IPV6_SRC_OFF;

    // Outcome codes (internal).
    localparam [2:0] C_FOREIGN = 3'd1, C_TRUNC = 3'd2, C_BADLEN = 3'd3, C_FRAG = 3'd4, C_CHECK = 3'd5;

    genvar gi;
    integer i, j, k, r;

    // ------------------------------------------------------------------------------------------
    // Input register: the MAC's stream (no tready) registered at the boundary, so that its
    // tvalid, which enables the whole header buffer, leaves a flip-flop of this module. Nothing
    // below uses s_axis_* directly.

    reg  [DATA_WIDTH-1:0] in_data;
    reg  [KEEP_WIDTH-1:0] in_keep;
    reg                   in_valid, in_last, in_bad;
    reg  [63:0]           in_ts;
    always @(posedge clk) begin
        in_data  <= s_axis_tdata;
        in_keep  <= s_axis_tkeep;
        in_last  <= s_axis_tlast;
        in_bad   <= s_axis_tuser[0];
        in_ts    <= s_axis_ts;
        in_valid <= !rst && s_axis_tvalid;
    end

    // ------------------------------------------------------------------------------------------
    // Byte position, header buffer, type flags

    reg  [NW-1:0]       pos_q;     // bytes of the frame before the current beat (saturating)
    // The beat position, one-hot: bit k while the current beat is beat k of the frame (k <
    // HB_BEATS); all zero past the header (the bit shifts out and nothing is set again until
    // the next frame's first beat). Each buffer byte's enable is in_valid and one of its bits.
    reg  [HB_BEATS-1:0] beat_q;
    // The frame's first HB bytes: byte i at [8*(HB-1-i) +: 8]. The first type's second byte
    // (13) is only read through the type flags (fl_*), as it arrives.
    /* verilator lint_off UNUSEDSIGNAL */
    reg  [8*HB-1:0]   hb_q;
    /* verilator lint_on UNUSEDSIGNAL */

    reg  [KW-1:0]     keep_cnt;
    always @* begin
        keep_cnt = {KW{1'b0}};
        for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
            if (in_keep[i]) begin
                keep_cnt = i[KW-1:0] + 1'b1;
            end
        end
    end

    wire [NW:0]   pos_next = {1'b0, pos_q} + {1'b0, N_BYTES};
    wire [NW:0]   pos_end  = {1'b0, pos_q} + {{(NW+1-KW){1'b0}}, keep_cnt};
    localparam [HB_BEATS-1:0] BEAT0 = {{(HB_BEATS-1){1'b0}}, 1'b1};

    always @(posedge clk) begin
        if (rst) begin
            pos_q  <= {NW{1'b0}};
            beat_q <= BEAT0;
        end else if (in_valid) begin
            pos_q  <= in_last ? {NW{1'b0}} : (pos_next[NW] ? NMAX : pos_next[NW-1:0]);
            beat_q <= in_last ? BEAT0 : (beat_q << 1);
        end
    end

    generate
        for (gi = 0; gi < HB; gi = gi + 1) begin : g_hb
            localparam integer BEAT = gi / BYTES;
            always @(posedge clk) begin
                if (in_valid && beat_q[BEAT]) begin
                    hb_q[8*(HB-1-gi) +: 8] <= in_data[8*(gi % BYTES) +: 8];
                end
            end
        end
    endgenerate

    // The three places a type can sit at (bytes 12, 16, 20: no tag, one, two), compared with the
    // TPIDs and the IP types as their second byte arrives: registered with the buffer.
    reg  [1:0]  fl_tpid;         // (a third tag makes a foreign frame: no flag needed)
    reg  [2:0]  fl_v4, fl_v6;
    generate
        for (gi = 0; gi < 3; gi = gi + 1) begin : g_flag
            localparam integer P      = ET0_OFF + TAG_LEN * gi;   // the type's first byte
            localparam integer LANE   = (P + 1) % BYTES;          // the lane of its second byte
            localparam integer BEAT   = (P + 1) / BYTES;
            wire [15:0] t;
            if (BYTES > 1) begin : g_wide   // both bytes in one beat (P is even)
                assign t = {in_data[8*(LANE-1) +: 8], in_data[8*LANE +: 8]};
            end else begin : g_byte         // the first byte is in the buffer already
                assign t = {hb_q[8*(HB-1-P) +: 8], in_data[7:0]};
            end
            always @(posedge clk) begin
                if (in_valid && beat_q[BEAT]) begin
                    fl_v4[gi] <= t == ET_IPV4;
                    fl_v6[gi] <= t == ET_IPV6;
                end
            end
            if (gi < 2) begin : g_tpid
                always @(posedge clk) begin
                    if (in_valid && beat_q[BEAT]) begin
                        fl_tpid[gi] <= t == TPID_Q || t == TPID_AD;
                    end
                end
            end
        end
    endgenerate

    // ------------------------------------------------------------------------------------------
    // Header class, registered from the flags (one cycle behind the buffer): tags, IP version,
    // the variant (one-hot), and the offsets and lengths that follow from them. The UDP length
    // (from the buffer, by the variant) and the datagram's end follow one and two cycles later.

    wire        tag0 = fl_tpid[0];
    wire        tag1 = tag0 && fl_tpid[1];
    wire        is6  = tag1 ? fl_v6[2] : tag0 ? fl_v6[1] : fl_v6[0];
    wire        is4  = tag1 ? fl_v4[2] : tag0 ? fl_v4[1] : fl_v4[0];

    reg         hc_tag0, hc_tag1, hc_v4, hc_v6;
    reg  [5:0]  hc_sel;          // one-hot header variant: 2 * tags + ipv6
    reg  [6:0]  hc_l4;           // the UDP header's offset (also the length of a whole IP header)
    reg  [6:0]  hc_t_ports, hc_t_magic, hc_t_ver, hc_t_hdr, hc_t_hdrc;  // lengths to reach
    reg  [3:0]  hc_a1h;          // first byte the checksum sums (IP source address): 22, 26, 30, 34
    reg  [6:0]  hc_t_lim;        // first beat start the datagram's end can bound

    // The offsets of each variant, as constants: the class is a table lookup, no adder.
    wire [6*7-1:0] tab_l4, tab_ports, tab_magic, tab_ver, tab_hdr, tab_hdrc, tab_lim;
    wire [6*4-1:0] tab_a1h;
    generate
        for (gi = 0; gi < 6; gi = gi + 1) begin : g_tab
            localparam integer L4 = ETH_LEN + TAG_LEN * (gi / 2) + ((gi % 2 != 0) ? IP6_LEN : IP4_LEN);
            localparam integer A  = ETH_LEN + TAG_LEN * (gi / 2) + ((gi % 2 != 0) ? SRC6_I : SRC4_I);
            localparam integer PO = L4 + 4;
            localparam integer MA = L4 + T_MAGIC_I;
            localparam integer VE = L4 + T_VER_I;
            localparam integer HD = L4 + T_HDR_I;
            localparam integer HC = L4 + T_HDRC_I;
            localparam integer LI = L4 + ((gi % 2 != 0) ? LIM_OFF_I : LIM_OFFC_I);
            assign tab_l4[7*gi +: 7]    = L4[6:0];
            assign tab_ports[7*gi +: 7] = PO[6:0];
            assign tab_magic[7*gi +: 7] = MA[6:0];
            assign tab_ver[7*gi +: 7]   = VE[6:0];
            assign tab_hdr[7*gi +: 7]   = HD[6:0];
            assign tab_hdrc[7*gi +: 7]  = HC[6:0];
            assign tab_lim[7*gi +: 7]   = LI[6:0];
            assign tab_a1h[4*gi +: 4]   = 4'd1 << ((A - A_MIN_I) / TAG_LEN);
        end
    endgenerate

    reg  [2:0]  variant;
    always @* begin
        variant = {tag1, tag0 && !tag1, is6};   // 2 * tags + ipv6
    end

    always @(posedge clk) begin
        hc_tag0 <= tag0;
        hc_tag1 <= tag1;
        hc_v4   <= is4;
        hc_v6   <= is6;
        hc_sel  <= 6'd1 << variant;
        for (k = 0; k < 6; k = k + 1) begin
            if ({29'd0, variant} == k) begin
                hc_l4      <= tab_l4[7*k +: 7];
                hc_t_ports <= tab_ports[7*k +: 7];
                hc_t_magic <= tab_magic[7*k +: 7];
                hc_t_ver   <= tab_ver[7*k +: 7];
                hc_t_hdr   <= tab_hdr[7*k +: 7];
                hc_t_hdrc  <= tab_hdrc[7*k +: 7];
                hc_a1h     <= tab_a1h[4*k +: 4];
                hc_t_lim   <= tab_lim[7*k +: 7];
            end
        end
    end

    // UDP length of each variant, from the buffer.
    wire [16*6-1:0] var_ulen;
    generate
        for (gi = 0; gi < 6; gi = gi + 1) begin : g_ulen
            localparam integer L4 = ETH_LEN + TAG_LEN * (gi / 2) + ((gi % 2 != 0) ? IP6_LEN : IP4_LEN);
            assign var_ulen[16*gi +: 16] = hb_q[8*(HB-(L4+`FP_PTRAIN_UDP_LEN_OFF)-2) +: 16];
        end
    endgenerate
    reg  [15:0]   ulen_now, ulen_q;
    reg  [6:0]    l4_q;
    reg  [NW-1:0] lim_q;         // l4 + UDP length: the datagram's end
    always @* begin
        ulen_now = 16'd0;
        for (k = 0; k < 6; k = k + 1) begin
            if (hc_sel[k]) begin
                ulen_now = ulen_now | var_ulen[16*k +: 16];
            end
        end
    end
    always @(posedge clk) begin
        ulen_q <= ulen_now;
        l4_q   <= hc_l4;
        lim_q  <= {{(NW-7){1'b0}}, l4_q} + {1'b0, ulen_q};
    end

    // ------------------------------------------------------------------------------------------
    // UDP checksum: the ones'-complement sum of the bytes from the IP source address to the end
    // of the datagram (the pseudo-header's addresses and the UDP datagram are contiguous for IPv4
    // and IPv6), as 16-bit words at even offsets. The datagram's end is compared with the beat
    // as it arrives (the UDP length, in the buffer from l4 + 6 on, gives the end 3 cycles later:
    // at 64 bits in time for the first beat it can bound, beat 7 of an untagged compact frame;
    // at 8 bits 13 bytes before); the start
    // one cycle later (the class is known by then); the beat's masked words are summed the
    // cycle after, and accumulated the next: the frame's sum is in cs_final_q from 4 cycles
    // after its tlast beat.

    // At the input: the beat against the datagram's end (hi_* registered with the beat).
    wire          lim_applies = pos_q >= N_LIM_MIN && pos_q >= {{(NW-7){1'b0}}, hc_t_lim};
    wire          beat_lt     = pos_q[NW-1:LB] < lim_q[NW-1:LB];
    wire          beat_eq     = pos_q[NW-1:LB] == lim_q[NW-1:LB];

    reg               cs1_v, cs1_first, cs1_last, cs1_hi_all, cs1_hi_eq;
    reg  [DATA_WIDTH-1:0] cs1_d;
    reg  [KEEP_WIDTH-1:0] cs1_k;
    reg  [2:0]        cs1_lim_lo;  // 64 bits: the lanes of the end's beat that are in
    reg               cs2_v, cs2_first, cs2_last;
    reg  [WW-1:0]     cs2_w;       // the beat's summed bytes as 16-bit words (big-endian)
    reg               cs3_v, cs3_first, cs3_last;
    reg  [18:0]       cs3_sum;
    reg  [31:0]       cs_acc_q, cs_final_q;

    // One cycle later: each lane against the start and the end. The lanes' positions against the
    // four possible starts are compared at the input and registered with the beat (cs1_ge), so
    // only the class's one-hot start selects among flags here (no compare after the register).
    reg  [DATA_WIDTH-1:0] cs_masked;
    reg               lo_ok, hi_ok;
    reg               cs1_past;            // 64 and on: past any start
    reg  [4*BYTES-1:0] cs1_ge;             // lane j at or past start k: bit 4*j + k
    always @(posedge clk) begin
        cs1_past <= pos_q[NW-1:6] != {(NW-6){1'b0}};
        for (j = 0; j < BYTES; j = j + 1) begin   // lane j's offset: pos_q | j (a multiple of BYTES)
            cs1_ge[4*j]     <= (pos_q[5:0] | j[5:0]) >= A_0;
            cs1_ge[4*j + 1] <= (pos_q[5:0] | j[5:0]) >= A_1;
            cs1_ge[4*j + 2] <= (pos_q[5:0] | j[5:0]) >= A_2;
            cs1_ge[4*j + 3] <= (pos_q[5:0] | j[5:0]) >= A_3;
        end
    end
    always @* begin
        for (j = 0; j < BYTES; j = j + 1) begin
            // (bytes 22..23 arrive with the second tag's type at 64 bits: a start of 22 needs
            // no tag, known from bytes 12..13 already, so they never wait for the class)
            lo_ok = cs1_past || (hc_a1h[0] && !hc_tag0 && cs1_ge[4*j]) ||
                    (hc_a1h[1] && cs1_ge[4*j + 1]) || (hc_a1h[2] && cs1_ge[4*j + 2]) ||
                    (hc_a1h[3] && cs1_ge[4*j + 3]);
            hi_ok = cs1_hi_all || (cs1_hi_eq && j[2:0] < cs1_lim_lo);
            cs_masked[8*j +: 8] = (cs1_k[j] && lo_ok && hi_ok) ? cs1_d[8*j +: 8] : 8'd0;
        end
    end

    // Bytes at even offsets are the high bytes of their words.
    wire [WW-1:0] cs_w;
    generate
        if (BYTES == 1) begin : g_w8
            reg cs1_odd;   // the byte's offset is odd: a word's low byte (registered with the beat)
            always @(posedge clk) begin
                cs1_odd <= pos_q[0];
            end
            assign cs_w = cs1_odd ? {8'd0, cs_masked} : {cs_masked, 8'd0};
        end else begin : g_w64
            for (gi = 0; gi < BYTES / 2; gi = gi + 1) begin : g_word
                assign cs_w[16*gi +: 16] = {cs_masked[16*gi +: 8], cs_masked[16*gi+8 +: 8]};
            end
        end
    endgenerate

    reg [18:0] cs_words;
    always @* begin
        cs_words = 19'd0;
        for (j = 0; j < WW / 16; j = j + 1) begin
            cs_words = cs_words + {3'd0, cs2_w[16*j +: 16]};
        end
    end

    wire [31:0] cs_next = (cs3_first ? 32'd0 : cs_acc_q) + {13'd0, cs3_sum};

    always @(posedge clk) begin
        cs1_d      <= in_data;
        cs1_k      <= in_keep;
        cs1_first  <= pos_q == {NW{1'b0}};
        cs1_last   <= in_last;
        cs1_hi_all <= !lim_applies || beat_lt;
        cs1_hi_eq  <= BYTES > 1 && beat_eq;       // (8 bits: the end's own byte is out)
        cs1_lim_lo <= BYTES > 1 ? lim_q[2:0] : 3'd0;
        cs2_w      <= cs_w;
        cs2_first  <= cs1_first;
        cs2_last   <= cs1_last;
        cs3_sum    <= cs_words;
        cs3_first  <= cs2_first;
        cs3_last   <= cs2_last;
        if (cs3_v) begin
            cs_acc_q <= cs_next;
            if (cs3_last) begin
                cs_final_q <= cs_next;
            end
        end
        if (rst) begin
            cs1_v <= 1'b0;
            cs2_v <= 1'b0;
            cs3_v <= 1'b0;
        end else begin
            cs1_v <= in_valid;
            cs2_v <= cs1_v;
            cs3_v <= cs2_v;
        end
    end

    // ------------------------------------------------------------------------------------------
    // Frame end, one frame per cycle. E0: the tlast beat's length, tuser and time. E1: the MACs
    // (the next frame overwrites bytes 0..BYTES-1 of the buffer at the end of E1). E2: the
    // fields of the frame's header variant (bytes from 8 on are still this frame's in E2) and
    // its length against the lengths it must reach. E3: field checks, rule comparisons. E4:
    // combined checks, rule terms, checksum total. E5: rules, checksum, outcome. E6: counts.

    reg               e0_v, e0_bad;
    reg  [NW-1:0]     e0_n;
    reg  [63:0]       e0_ts;
    always @(posedge clk) begin
        if (in_valid && in_last) begin
            e0_n   <= pos_end[NW] ? NMAX : pos_end[NW-1:0];
            e0_bad <= in_bad;
            e0_ts  <= in_ts;
        end
        e0_v <= !rst && in_valid && in_last;
    end

    reg               e1_v, e1_bad;
    reg  [NW-1:0]     e1_n;
    reg  [63:0]       e1_ts;
    reg  [47:0]       e1_dst, e1_src;
    always @(posedge clk) begin
        e1_v   <= !rst && e0_v;
        e1_bad <= e0_bad;
        e1_n   <= e0_n;
        e1_ts  <= e0_ts;
        e1_dst <= hb_q[8*(HB-`FP_PTRAIN_ETH_DST_OFF-6) +: 48];
        e1_src <= hb_q[8*(HB-`FP_PTRAIN_ETH_SRC_OFF-6) +: 48];
    end

    // The fields of each header variant.
    wire [6*BW-1:0] var_fields;
    generate
        for (gi = 0; gi < 6; gi = gi + 1) begin : g_var
            localparam SIX           = gi % 2 != 0;
            localparam integer L3    = ETH_LEN + TAG_LEN * (gi / 2);
            localparam integer L4    = L3 + (SIX ? IP6_LEN : IP4_LEN);
            localparam integer P     = L4 + UDP_LEN;
            localparam integer O_LEN = L3 + (SIX ? `FP_PTRAIN_IPV6_PAYLOAD_LEN_OFF : `FP_PTRAIN_IPV4_TOTAL_LEN_OFF);
            localparam integer O_PRO = L3 + (SIX ? `FP_PTRAIN_IPV6_NEXT_HEADER_OFF : `FP_PTRAIN_IPV4_PROTO_OFF);
            // IPv6: the low 32 bits of each address
            localparam integer O_SRC = SIX ? L3 + `FP_PTRAIN_IPV6_SRC_OFF + `FP_PTRAIN_IPV6_SRC_LEN - 4 : L3 + `FP_PTRAIN_IPV4_SRC_OFF;
            localparam integer O_DST = SIX ? L3 + `FP_PTRAIN_IPV6_DST_OFF + `FP_PTRAIN_IPV6_DST_LEN - 4 : L3 + `FP_PTRAIN_IPV4_DST_OFF;
            // flags and fragment offset without the reserved and DF bits
            wire [13:0] frag = SIX ? 14'd0 : hb_q[8*(HB-(L3+`FP_PTRAIN_IPV4_FRAG_OFF)-2) +: 14];
            assign var_fields[BW*gi +: BW] = {
                hb_q[8*(HB-L3-1) +: 8],                                        // version, IHL
                hb_q[8*(HB-O_LEN-2) +: 16],                                    // IP length
                frag,
                hb_q[8*(HB-O_PRO-1) +: 8],                                     // protocol
                hb_q[8*(HB-O_SRC-4) +: 32],
                hb_q[8*(HB-O_DST-4) +: 32],
                hb_q[8*(HB-(L4+`FP_PTRAIN_UDP_SPORT_OFF)-2) +: 16],
                hb_q[8*(HB-(L4+`FP_PTRAIN_UDP_DPORT_OFF)-2) +: 16],
                hb_q[8*(HB-(L4+`FP_PTRAIN_UDP_LEN_OFF)-2) +: 16],
                hb_q[8*(HB-(L4+`FP_PTRAIN_UDP_CHECKSUM_OFF)-2) +: 16],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_MAGIC_OFF)-4) +: 32],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_SEQ_OFF)-4) +: 32],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_VER_FLAGS_OFF)-1) +: 8],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_STREAM_OFF)-1) +: 8],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_TRAIN_OFF)-4) +: 32],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_INDEX_OFF)-4) +: 32],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_TRAIN_LEN_OFF)-4) +: 32],
                hb_q[8*(HB-(P+`FP_PTRAIN_TESTER_TX_TIME_OFF)-8) +: 64],
                hb_q[8*(HB-(L3+`FP_PTRAIN_IPV4_IDENT_OFF)-2) +: 16],              // (IPv4)
                hb_q[8*(HB-(P+`FP_PTRAIN_COMPACT_TX_TIME_OFF)-8) +: 64]
            };
        end
    endgenerate

    reg [BW-1:0] sel_fields;
    always @* begin
        sel_fields = {BW{1'b0}};
        for (k = 0; k < 6; k = k + 1) begin
            if (hc_sel[k]) begin
                sel_fields = sel_fields | var_fields[BW*k +: BW];
            end
        end
    end

    reg               e2_v, e2_bad, e2_tag0, e2_tag1, e2_v4, e2_v6;
    reg               e2_ge_eth, e2_ge_tag1, e2_ge_tag2, e2_ge_ip, e2_ge_ports, e2_ge_magic, e2_ge_ver, e2_ge_hdr,
                      e2_ge_hdrc;
    reg  [NW-1:0]     e2_n;
    reg  [63:0]       e2_ts;
    reg  [47:0]       e2_dst, e2_src;
    reg  [11:0]       e2_vid;
    reg  [6:0]        e2_l4;
    reg  [7:0]        e2_vihl, e2_proto, e2_vf, e2_stream;
    reg  [13:0]       e2_frag;
    reg  [15:0]       e2_iplen, e2_sport, e2_dport, e2_ulen, e2_ucsum;
    reg  [31:0]       e2_ipsrc, e2_ipdst, e2_magic, e2_seq, e2_train, e2_index, e2_tlen;
    reg  [63:0]       e2_txt, e2_txtc;
    reg  [15:0]       e2_ident;
    always @(posedge clk) begin
        e2_v        <= !rst && e1_v;
        e2_bad      <= e1_bad;
        e2_n        <= e1_n;
        e2_ts       <= e1_ts;
        e2_dst      <= e1_dst;
        e2_src      <= e1_src;
        e2_vid      <= hb_q[8*(HB-TCI_OFF-2) +: 12];
        e2_tag0     <= hc_tag0;
        e2_tag1     <= hc_tag1;
        e2_v4       <= hc_v4;
        e2_v6       <= hc_v6;
        e2_l4       <= hc_l4;
        e2_ge_eth   <= e1_n >= N_ETH;
        e2_ge_tag1  <= e1_n >= N_TAG1;
        e2_ge_tag2  <= e1_n >= N_TAG2;
        e2_ge_ip    <= e1_n >= {{(NW-7){1'b0}}, hc_l4};
        e2_ge_ports <= e1_n >= {{(NW-7){1'b0}}, hc_t_ports};
        e2_ge_magic <= e1_n >= {{(NW-7){1'b0}}, hc_t_magic};
        e2_ge_ver   <= e1_n >= {{(NW-7){1'b0}}, hc_t_ver};
        e2_ge_hdr   <= e1_n >= {{(NW-7){1'b0}}, hc_t_hdr};
        e2_ge_hdrc  <= e1_n >= {{(NW-7){1'b0}}, hc_t_hdrc};
        {e2_vihl, e2_iplen, e2_frag, e2_proto, e2_ipsrc, e2_ipdst, e2_sport, e2_dport, e2_ulen,
         e2_ucsum, e2_magic, e2_seq, e2_vf, e2_stream, e2_train, e2_index, e2_tlen, e2_txt, e2_ident,
         e2_txtc} <= sel_fields;
    end

    // E3: the checks of parse(), each in its own flag; every field is used only when the frame
    // covers it (the ge flags).
    wire       tag_fail = e2_tag0 && (!e2_ge_tag1 || (e2_tag1 && !e2_ge_tag2));
    wire       ip_ok    = e2_ge_eth && !tag_fail && e2_ge_ip &&
                          ((e2_v4 && e2_vihl == 8'h45) || (e2_v6 && e2_vihl[7:4] == 4'd6));

    reg        e3_v, e3_bad, e3_ip_ok, e3_l4_ok, e3_udp, e3_frag0, e3_ge_magic, e3_magic, e3_ge_ver,
               e3_ulen_ok, e3_ver_ok, e3_mf, e3_ge_hdr, e3_v6, e3_len6, e3_csum_nz, e3_fields_ok,
               e3_cmp, e3_ulen_okc;
    // the compact header: version 2 over IPv4 (the Ethertype's; a bad IPv4 header is foreign anyway)
    wire       cmp2 = e2_vf[7:4] == VERSION_C && e2_v4;
    reg        e3_mac_p, e3_vid_p;
    reg  [15:0] e3_iplen;
    reg  [16:0] e3_ulen20;
    reg  [NW-1:0] e3_n, e3_size, e3_ulen17;
    reg  [63:0] e3_ts, e3_txt;
    reg  [3:0]  e3_flags;
    reg  [7:0]  e3_stream;
    reg  [31:0] e3_seq, e3_train, e3_index, e3_tlen;
    // rule comparisons, in parts of at most 16 bits: dst, src 3 each, addresses 2 each
    reg  [3*RULES-1:0] e3_eq_dst, e3_eq_src;
    reg  [2*RULES-1:0] e3_eq_ipsrc, e3_eq_ipdst;
    reg  [RULES-1:0]   e3_eq_tag, e3_eq_vid, e3_eq_v6, e3_eq_proto, e3_eq_sport, e3_eq_dport;
    always @(posedge clk) begin
        e3_v         <= !rst && e2_v;
        e3_bad       <= e2_bad;
        e3_n         <= e2_n;
        e3_ip_ok     <= ip_ok;
        e3_l4_ok     <= (e2_v6 || e2_frag[12:0] == 13'd0) && e2_ge_ports;   // not a later fragment
        e3_udp       <= e2_proto == UDP_PROTO;
        e3_frag0     <= e2_frag[12:0] == 13'd0;
        e3_ge_magic  <= e2_ge_magic;
        e3_magic     <= e2_magic == MAGIC;
        e3_ge_ver    <= e2_ge_ver;
        e3_ulen_ok   <= e2_ulen >= MIN_UDP;
        e3_ulen_okc  <= e2_ulen >= MIN_UDPC;
        e3_cmp       <= cmp2;
        e3_ver_ok    <= e2_vf[7:4] == VERSION || cmp2;
        e3_mf        <= e2_frag[13];
        e3_ge_hdr    <= cmp2 ? e2_ge_hdrc : e2_ge_hdr;
        e3_v6        <= e2_v6;
        e3_len6      <= e2_iplen == e2_ulen;
        e3_iplen     <= e2_iplen;
        e3_ulen20    <= {1'b0, e2_ulen} + IP4_17;
        e3_size      <= {{(NW-7){1'b0}}, e2_l4} + {1'b0, e2_ulen};
        e3_ulen17    <= {1'b0, e2_ulen} + {9'd0, UDP_PROTO};   // pseudo-header: protocol + UDP length
        e3_csum_nz   <= e2_ucsum != 16'd0;
        e3_fields_ok <= cmp2 || (e2_tlen != 32'd0 && e2_index < e2_tlen);
        e3_mac_p     <= e2_ge_eth;
        e3_vid_p     <= e2_tag0 && e2_ge_tag1;
        for (r = 0; r < RULES; r = r + 1) begin
            for (i = 0; i < 3; i = i + 1) begin
                e3_eq_dst[3*r+i] <= ((e2_dst[16*i +: 16] ^ cfg_rule_dst_mac[48*r+16*i +: 16]) &
                                     cfg_rule_dst_mac_mask[48*r+16*i +: 16]) == 16'd0;
                e3_eq_src[3*r+i] <= ((e2_src[16*i +: 16] ^ cfg_rule_src_mac[48*r+16*i +: 16]) &
                                     cfg_rule_src_mac_mask[48*r+16*i +: 16]) == 16'd0;
            end
            for (i = 0; i < 2; i = i + 1) begin
                e3_eq_ipsrc[2*r+i] <= ((e2_ipsrc[16*i +: 16] ^ cfg_rule_ip_src[32*r+16*i +: 16]) &
                                       cfg_rule_ip_src_mask[32*r+16*i +: 16]) == 16'd0;
                e3_eq_ipdst[2*r+i] <= ((e2_ipdst[16*i +: 16] ^ cfg_rule_ip_dst[32*r+16*i +: 16]) &
                                       cfg_rule_ip_dst_mask[32*r+16*i +: 16]) == 16'd0;
            end
            e3_eq_tag[r]   <= e2_tag0 == cfg_rule_tagged[r];
            e3_eq_vid[r]   <= ((e2_vid ^ cfg_rule_vid[12*r +: 12]) & cfg_rule_vid_mask[12*r +: 12]) == 12'd0;
            e3_eq_v6[r]    <= e2_v6 == cfg_rule_ipv6[r];
            e3_eq_proto[r] <= ((e2_proto ^ cfg_rule_proto[8*r +: 8]) & cfg_rule_proto_mask[8*r +: 8]) == 8'd0;
            e3_eq_sport[r] <= ((e2_sport ^ cfg_rule_sport[16*r +: 16]) & cfg_rule_sport_mask[16*r +: 16]) == 16'd0;
            e3_eq_dport[r] <= ((e2_dport ^ cfg_rule_dport[16*r +: 16]) & cfg_rule_dport_mask[16*r +: 16]) == 16'd0;
        end
        e3_ts        <= e2_ts;
        e3_txt       <= cmp2 ? e2_txtc : e2_txt;
        e3_flags     <= e2_vf[3:0];
        e3_stream    <= e2_stream;
        e3_seq       <= e2_seq;
        e3_train     <= e2_train;           // compact: made in T1 (seq - index)
        e3_index     <= cmp2 ? {16'd0, e2_ident} : e2_index;
        // compact: the train's length for the stream window, index + 1 (the record's is 0)
        e3_tlen      <= cmp2 ? {15'd0, {1'b0, e2_ident} + 17'd1} : e2_tlen;
    end

    // Which terms each rule uses (mask not 0), registered: the configuration is static.
    reg [RULES-1:0] use_dst, use_src, use_tag, use_vid, use_v6, use_proto, use_ipsrc, use_ipdst,
                    use_sport, use_dport, rule_en;
    always @(posedge clk) begin
        for (r = 0; r < RULES; r = r + 1) begin
            use_dst[r]   <= cfg_rule_dst_mac_mask[48*r +: 48] != 48'd0;
            use_src[r]   <= cfg_rule_src_mac_mask[48*r +: 48] != 48'd0;
            use_tag[r]   <= cfg_rule_tagged_mask[r];
            use_vid[r]   <= cfg_rule_vid_mask[12*r +: 12] != 12'd0;
            use_v6[r]    <= cfg_rule_ipv6_mask[r];
            use_proto[r] <= cfg_rule_proto_mask[8*r +: 8] != 8'd0;
            use_ipsrc[r] <= cfg_rule_ip_src_mask[32*r +: 32] != 32'd0;
            use_ipdst[r] <= cfg_rule_ip_dst_mask[32*r +: 32] != 32'd0;
            use_sport[r] <= cfg_rule_sport_mask[16*r +: 16] != 16'd0;
            use_dport[r] <= cfg_rule_dport_mask[16*r +: 16] != 16'd0;
        end
        rule_en <= cfg_rule_en;
    end

    // E4: each rule's terms (a term with mask 0 holds; otherwise the field must be present and
    // equal), the checks combined, the frame against its IP/UDP lengths, the checksum total.
    wire       port_p = e3_ip_ok && e3_l4_ok;
    reg  [RULES-1:0] e4_t_dst, e4_t_src, e4_t_tag, e4_t_vid, e4_t_v6, e4_t_proto, e4_t_ipsrc,
                     e4_t_ipdst, e4_t_sport, e4_t_dport;
    reg         e4_v, e4_bad, e4_base_ok, e4_ge_ver, e4_ulen_ok, e4_ver_ok, e4_mf, e4_ge_hdr,
                e4_len_ok, e4_full, e4_csum_nz, e4_fields_ok, e4_cmp;
    reg  [31:0] e4_total;
    reg  [15:0] e4_size;
    reg  [63:0] e4_ts, e4_txt;
    reg  [3:0]  e4_flags;
    reg  [7:0]  e4_stream;
    reg  [31:0] e4_seq, e4_train, e4_index, e4_tlen;
    always @(posedge clk) begin
        for (r = 0; r < RULES; r = r + 1) begin
            e4_t_dst[r]   <= !use_dst[r]   || (e3_mac_p && e3_eq_dst[3*r +: 3] == 3'b111);
            e4_t_src[r]   <= !use_src[r]   || (e3_mac_p && e3_eq_src[3*r +: 3] == 3'b111);
            e4_t_tag[r]   <= !use_tag[r]   || (e3_mac_p && e3_eq_tag[r]);
            e4_t_vid[r]   <= !use_vid[r]   || (e3_vid_p && e3_eq_vid[r]);
            e4_t_v6[r]    <= !use_v6[r]    || (e3_ip_ok && e3_eq_v6[r]);
            e4_t_proto[r] <= !use_proto[r] || (e3_ip_ok && e3_eq_proto[r]);
            e4_t_ipsrc[r] <= !use_ipsrc[r] || (e3_ip_ok && e3_eq_ipsrc[2*r +: 2] == 2'b11);
            e4_t_ipdst[r] <= !use_ipdst[r] || (e3_ip_ok && e3_eq_ipdst[2*r +: 2] == 2'b11);
            e4_t_sport[r] <= !use_sport[r] || (port_p && e3_eq_sport[r]);
            e4_t_dport[r] <= !use_dport[r] || (port_p && e3_eq_dport[r]);
        end
        e4_v         <= !rst && e3_v;
        e4_bad       <= e3_bad;
        e4_base_ok   <= e3_ip_ok && e3_udp && e3_frag0 && e3_ge_magic && e3_magic;
        e4_ge_ver    <= e3_ge_ver;
        e4_ulen_ok   <= e3_ulen_ok;
        e4_ver_ok    <= e3_ver_ok;
        e4_mf        <= e3_mf;
        e4_ge_hdr    <= e3_ge_hdr;
        e4_len_ok    <= (e3_cmp ? e3_ulen_okc : e3_ulen_ok) && (e3_v6 ? e3_len6 : {1'b0, e3_iplen} == e3_ulen20);
        e4_cmp       <= e3_cmp;
        e4_full      <= e3_n >= e3_size;
        e4_total     <= cs_final_q + {{(32-NW){1'b0}}, e3_ulen17};
        e4_csum_nz   <= e3_csum_nz;
        e4_fields_ok <= e3_fields_ok;
        e4_size      <= e3_size[15:0];
        e4_ts        <= e3_ts;
        e4_txt       <= e3_txt;
        e4_flags     <= e3_flags;
        e4_stream    <= e3_stream;
        e4_seq       <= e3_seq;
        e4_train     <= e3_train;
        e4_index     <= e3_index;
        e4_tlen      <= e3_tlen;
    end

    // E5: selected or not; the checksum (the sum must be 0 modulo 0xFFFF); the outcome in
    // parse()'s order.
    wire [RULES-1:0] hit = rule_en & e4_t_dst & e4_t_src & e4_t_tag & e4_t_vid & e4_t_v6 &
                           e4_t_proto & e4_t_ipsrc & e4_t_ipdst & e4_t_sport & e4_t_dport;
    // total = H * 2^16 + L = H + L modulo 0xFFFF; H + L (0 .. 0x1FFFE) is a multiple of 0xFFFF
    // when it is 0 (H = L = 0), 0xFFFF (H = ~L) or 0x1FFFE (H = L = 0xFFFF): no adder needed.
    wire [15:0] sum_h = e4_total[31:16];
    wire [15:0] sum_l = e4_total[15:0];
    wire        fold_zero = sum_h == ~sum_l || (sum_h == 16'h0000 && sum_l == 16'h0000) ||
                            (sum_h == 16'hFFFF && sum_l == 16'hFFFF);
    reg  [2:0]  out5;
    always @* begin
        if (!e4_base_ok)                     out5 = C_FOREIGN;
        else if (!e4_ge_ver)                 out5 = e4_ulen_ok ? C_TRUNC : C_FOREIGN;
        else if (!e4_ver_ok)                 out5 = C_FOREIGN;
        else if (e4_mf)                      out5 = C_FRAG;
        else if (!e4_ge_hdr)                 out5 = C_TRUNC;
        else if (!e4_len_ok)                 out5 = C_BADLEN;
        else if (!e4_full)                   out5 = C_TRUNC;
        else                                 out5 = C_CHECK;
    end

    reg         e5_v, e5_sel, e5_bad, e5_csum_ok, e5_fields_ok, e5_cmp;
    reg  [2:0]  e5_out;
    reg  [15:0] e5_size;
    reg  [63:0] e5_ts, e5_txt;
    reg  [3:0]  e5_flags;
    reg  [7:0]  e5_stream;
    reg  [31:0] e5_seq, e5_train, e5_index, e5_tlen;
    always @(posedge clk) begin
        e5_v         <= !rst && e4_v;
        e5_sel       <= hit != {RULES{1'b0}};
        e5_out       <= out5;
        e5_csum_ok   <= !e4_csum_nz || fold_zero;
        e5_bad       <= e4_bad;
        e5_fields_ok <= e4_fields_ok;
        e5_cmp       <= e4_cmp;
        e5_size      <= e4_size;
        e5_ts        <= e4_ts;
        e5_txt       <= e4_txt;
        e5_flags     <= e4_flags;
        e5_stream    <= e4_stream;
        e5_seq       <= e4_seq;
        e5_train     <= e4_train;
        e5_index     <= e4_index;
        e5_tlen      <= e4_tlen;
    end

    // E6: the frame's count, and whether it makes a record and is tracked.
    wire        check = e5_sel && e5_out == C_CHECK;
    reg         e6_v, e6_nosel, e6_foreign, e6_trunc, e6_badlen, e6_frag, e6_badcsum, e6_badfields;
    reg         e6_rec, e6_trk, e6_bad, e6_cmp;
    reg  [SW-1:0] e6_sidx;
    reg  [15:0] e6_size;
    reg  [63:0] e6_ts, e6_txt;
    reg  [3:0]  e6_flags;
    reg  [7:0]  e6_stream;
    reg  [31:0] e6_seq, e6_train, e6_index, e6_tlen;
    always @(posedge clk) begin
        e6_v         <= !rst && e5_v;
        e6_nosel     <= !e5_sel;
        e6_foreign   <= e5_sel && e5_out == C_FOREIGN;
        e6_trunc     <= e5_sel && e5_out == C_TRUNC;
        e6_badlen    <= e5_sel && e5_out == C_BADLEN;
        e6_frag      <= e5_sel && e5_out == C_FRAG;
        e6_badcsum   <= check && !e5_csum_ok;
        e6_badfields <= check && e5_csum_ok && !e5_fields_ok;
        e6_rec       <= !rst && e5_v && check && e5_csum_ok && e5_fields_ok;
        e6_trk       <= !rst && e5_v && check && e5_csum_ok && e5_fields_ok && !e5_bad &&
                        {1'b0, e5_stream} < NSTREAMS;
        e6_bad       <= e5_bad;
        e6_cmp       <= e5_cmp;
        e6_sidx      <= e5_stream[SW-1:0];
        e6_size      <= e5_size;
        e6_ts        <= e5_ts;
        e6_txt       <= e5_txt;
        e6_flags     <= e5_flags;
        e6_stream    <= e5_stream;
        e6_seq       <= e5_seq;
        e6_train     <= e5_train;
        e6_index     <= e5_index;
        e6_tlen      <= e5_tlen;
    end

    // ------------------------------------------------------------------------------------------
    // Per-stream window. T1 reads the stream's state, T2 subtracts, T3 classifies and shifts by
    // the coarse part of the distance, T4 computes the verdict and the new state, T5 writes it.
    // A stream's next frame reads its state at least 8 cycles later (tester frames are at least
    // 60 bytes long: 8 beats at 64 bits), after the write (5 cycles after the read). The
    // record's other fields travel alongside.

    localparam [WINDOW-1:0] BIT0 = {{(WINDOW-1){1'b0}}, 1'b1};
    localparam integer RF = 1 + 16 + 64 + 64 + 4 + 8 + 32 + 32 + 32;   // record fields carried

    reg  [STREAMS-1:0]         st_seen_q;
    reg  [32*STREAMS-1:0]      st_first_q, st_hi_q, st_tf_q, st_te_q;
    reg  [32*STREAMS-1:0]      st_rx_q, st_uniq_q, st_dup_q, st_reord_q, st_late_q;
    reg  [WINDOW*STREAMS-1:0]  st_bm_q;

    reg           rd_seen;
    reg  [31:0]   rd_first, rd_hi, rd_tf, rd_te;
    reg  [WINDOW-1:0] rd_bm;
    always @* begin
        rd_seen  = 1'b0;
        rd_first = 32'd0;
        rd_hi    = 32'd0;
        rd_tf    = 32'd0;
        rd_te    = 32'd0;
        rd_bm    = {WINDOW{1'b0}};
        for (k = 0; k < STREAMS; k = k + 1) begin
            if ({{(32-SW){1'b0}}, e6_sidx} == k) begin
                rd_seen  = st_seen_q[k];
                rd_first = st_first_q[32*k +: 32];
                rd_hi    = st_hi_q[32*k +: 32];
                rd_tf    = st_tf_q[32*k +: 32];
                rd_te    = st_te_q[32*k +: 32];
                rd_bm    = st_bm_q[WINDOW*k +: WINDOW];
            end
        end
    end

    // T1
    reg               t1_rec, t1_trk, t1_seen;
    reg  [SW-1:0]     t1_s;
    reg  [31:0]       t1_seq, t1_start, t1_tlen, t1_first, t1_hi, t1_tf, t1_te;
    reg  [WINDOW-1:0] t1_bm;
    reg  [RF-1:0]     t1_f;
    always @(posedge clk) begin
        t1_rec   <= !rst && e6_v && e6_rec;
        t1_trk   <= !rst && e6_v && e6_trk;
        t1_s     <= e6_sidx;
        t1_seq   <= e6_seq;
        t1_start <= e6_seq - e6_index;
        t1_tlen  <= e6_tlen;
        t1_seen  <= rd_seen;
        t1_first <= rd_first;
        t1_hi    <= rd_hi;
        t1_tf    <= rd_tf;
        t1_te    <= rd_te;
        t1_bm    <= rd_bm;
        // compact: the record's train is seq - index (the train's first frame), its train_len 0
        t1_f     <= {e6_bad, e6_size, e6_ts, e6_txt, e6_flags, e6_stream,
                     e6_cmp ? e6_seq - e6_index : e6_train, e6_index, e6_cmp ? 32'd0 : e6_tlen};
    end

    // T2: the distances (serial-number arithmetic: only the signs of d_first and d_tf are used).
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0] d_first = t1_seq - t1_first;
    wire [31:0] d_tf    = t1_start - t1_tf;
    /* verilator lint_on UNUSEDSIGNAL */
    reg               t2_rec, t2_trk, t2_seen, t2_same, t2_lt_first, t2_lt_tf;
    reg  [SW-1:0]     t2_s;
    reg  [31:0]       t2_ahead, t2_behind, t2_seq, t2_start, t2_end, t2_te;
    reg  [WINDOW-1:0] t2_bm;
    reg  [RF-1:0]     t2_f;
    always @(posedge clk) begin
        t2_rec      <= !rst && t1_rec;
        t2_trk      <= !rst && t1_trk;
        t2_seen     <= t1_seen;
        t2_same     <= t1_seq == t1_hi;
        t2_lt_first <= d_first[31];
        t2_lt_tf    <= d_tf[31];
        t2_s        <= t1_s;
        t2_ahead    <= t1_seq - t1_hi;
        t2_behind   <= t1_hi - t1_seq;
        t2_seq      <= t1_seq;
        t2_start    <= t1_start;
        t2_end      <= t1_start + t1_tlen;
        t2_te       <= t1_te;
        t2_bm       <= t1_bm;
        t2_f        <= t1_f;
    end

    // T3: ahead (a new highest), in the window, or late; the bitmap shifted by the distance's
    // multiple of 8 (ahead), the bit of the sequence number (behind) and the bitmap with it set.
    wire              ahead    = t2_seen && !t2_same && !t2_ahead[31];
    wire              behind_w = t2_behind[31:LW] == {(32-LW){1'b0}};
    wire [LW-1:0]     d_coarse = t2_ahead[LW-1:0] & {{(LW-3){1'b1}}, 3'b000};
    wire [LW-1:0]     b_low    = t2_behind[LW-1:0];
    /* verilator lint_off UNUSEDSIGNAL */
    wire [31:0]       d_te     = t2_end - t2_te;   // only its sign
    /* verilator lint_on UNUSEDSIGNAL */
    reg               t3_rec, t3_trk, t3_new, t3_ahead, t3_far, t3_late, t3_inwin, t3_bit;
    reg               t3_lt_first, t3_lt_tf, t3_te_ahead, t3_te_same;
    reg  [SW-1:0]     t3_s;
    reg  [2:0]        t3_d;
    reg  [31:0]       t3_seq, t3_start, t3_end;
    reg  [WINDOW-1:0] t3_bm, t3_bmc, t3_bmset;
    reg  [RF-1:0]     t3_f;
    always @(posedge clk) begin
        t3_rec      <= !rst && t2_rec;
        t3_trk      <= !rst && t2_trk;
        t3_new      <= !t2_seen;
        t3_ahead    <= ahead;
        t3_far      <= t2_ahead[31:LW] != {(32-LW){1'b0}};
        t3_late     <= t2_seen && !ahead && !behind_w;
        t3_inwin    <= t2_seen && !ahead && behind_w;
        t3_bit      <= t2_bm[b_low];
        t3_lt_first <= t2_lt_first;
        t3_lt_tf    <= t2_lt_tf;
        t3_te_ahead <= !d_te[31];
        t3_te_same  <= t2_end == t2_te;
        t3_s        <= t2_s;
        t3_d        <= t2_ahead[2:0];
        t3_bmc      <= t2_bm << d_coarse;
        t3_bmset    <= t2_bm | (BIT0 << b_low);   // a duplicate's bit is set already
        t3_bm       <= t2_bm;
        t3_seq      <= t2_seq;
        t3_start    <= t2_start;
        t3_end      <= t2_end;
        t3_f        <= t2_f;
    end

    // T4: the verdict and the new state, registered with the stream's write enable.
    wire              dup      = t3_inwin && t3_bit;
    reg               t4_rec, t4_dup, t4_reord, t4_late, t4_hi, t4_first, t4_tf, t4_te;
    reg  [STREAMS-1:0] t4_we;
    reg  [31:0]       t4_seq, t4_start, t4_end;
    reg  [WINDOW-1:0] t4_bm;
    reg  [RF-1:0]     t4_f;
    always @(posedge clk) begin
        t4_rec   <= !rst && t3_rec;
        t4_dup   <= t3_trk && dup;
        t4_reord <= t3_trk && ((t3_inwin && !dup) || t3_late);
        t4_late  <= t3_trk && t3_late;
        for (k = 0; k < STREAMS; k = k + 1) begin
            t4_we[k] <= !rst && t3_trk && {{(32-SW){1'b0}}, t3_s} == k;
        end
        t4_hi    <= t3_new || t3_ahead;
        t4_first <= t3_new || t3_lt_first;
        t4_tf    <= t3_new || t3_lt_tf;
        t4_te    <= t3_new || (t3_te_ahead && !t3_te_same);
        t4_bm    <= (t3_new || (t3_ahead && t3_far)) ? BIT0 :
                    t3_ahead ? ((t3_bmc << t3_d) | BIT0) :
                    t3_inwin ? t3_bmset : t3_bm;
        t4_seq   <= t3_seq;
        t4_start <= t3_start;
        t4_end   <= t3_end;
        t4_f     <= t3_f;
    end

    // T5: the write.
    always @(posedge clk) begin
        if (rst) begin
            st_seen_q  <= {STREAMS{1'b0}};
            st_first_q <= {32*STREAMS{1'b0}};
            st_hi_q    <= {32*STREAMS{1'b0}};
            st_tf_q    <= {32*STREAMS{1'b0}};
            st_te_q    <= {32*STREAMS{1'b0}};
            st_rx_q    <= {32*STREAMS{1'b0}};
            st_uniq_q  <= {32*STREAMS{1'b0}};
            st_dup_q   <= {32*STREAMS{1'b0}};
            st_reord_q <= {32*STREAMS{1'b0}};
            st_late_q  <= {32*STREAMS{1'b0}};
            st_bm_q    <= {WINDOW*STREAMS{1'b0}};
        end else begin
            for (k = 0; k < STREAMS; k = k + 1) begin
                if (t4_we[k]) begin
                    st_seen_q[k]                <= 1'b1;
                    st_bm_q[WINDOW*k +: WINDOW] <= t4_bm;
                    if (t4_hi) begin
                        st_hi_q[32*k +: 32] <= t4_seq;
                    end
                    if (t4_first) begin
                        st_first_q[32*k +: 32] <= t4_seq;
                    end
                    if (t4_tf) begin
                        st_tf_q[32*k +: 32] <= t4_start;
                    end
                    if (t4_te) begin
                        st_te_q[32*k +: 32] <= t4_end;
                    end
                    st_rx_q[32*k +: 32] <= st_rx_q[32*k +: 32] + 32'd1;
                    if (!t4_dup) begin
                        st_uniq_q[32*k +: 32] <= st_uniq_q[32*k +: 32] + 32'd1;
                    end
                    if (t4_dup) begin
                        st_dup_q[32*k +: 32] <= st_dup_q[32*k +: 32] + 32'd1;
                    end
                    if (t4_reord) begin
                        st_reord_q[32*k +: 32] <= st_reord_q[32*k +: 32] + 32'd1;
                    end
                    if (t4_late) begin
                        st_late_q[32*k +: 32] <= st_late_q[32*k +: 32] + 32'd1;
                    end
                end
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Record FIFO: RECORD_DEPTH records in a RAM that reads the head (the read pointer) at every
    // cycle, through its read register and an output register straight onto m_axis_tdata: its
    // address, write enable and data come from flip-flops. The head is valid 2 cycles after the
    // read pointer reached it (or after it was written into an empty FIFO); a pop moves the
    // pointer, so m_axis takes a record at most every 3 cycles (records come at most one per 8
    // cycles). The count (f_cnt_q) gives full and not-empty without an adder in their path.

    reg  [RW-1:0] rec_data;
    wire          h_bad;
    wire [15:0]   h_size;
    wire [63:0]   h_ts, h_txt;
    wire [3:0]    h_flags;
    wire [7:0]    h_stream;
    wire [31:0]   h_train, h_index, h_tlen;
    assign {h_bad, h_size, h_ts, h_txt, h_flags, h_stream, h_train, h_index, h_tlen} = t4_f;
    always @* begin
        rec_data = {RW{1'b0}};
        rec_data[`FP_PTREC_BAD]       = h_bad;
        rec_data[`FP_PTREC_DUP]       = t4_dup;
        rec_data[`FP_PTREC_REORDERED] = t4_reord;
        rec_data[`FP_PTREC_LATE]      = t4_late;
        rec_data[`FP_PTREC_TX_FLAGS]  = h_flags;
        rec_data[`FP_PTREC_STREAM]    = h_stream;
        rec_data[`FP_PTREC_SIZE]      = h_size;
        rec_data[`FP_PTREC_SEQ]       = t4_seq;
        rec_data[`FP_PTREC_TRAIN]     = h_train;
        rec_data[`FP_PTREC_INDEX]     = h_index;
        rec_data[`FP_PTREC_TRAIN_LEN] = h_tlen;
        rec_data[`FP_PTREC_TX_TIME]   = h_txt;
        rec_data[`FP_PTREC_RX_TIME]   = h_ts;
    end

    localparam integer AW = $clog2(RECORD_DEPTH);
    localparam integer F_DEPTH_I = RECORD_DEPTH;
    localparam integer F_LAST_I  = RECORD_DEPTH - 1;
    localparam [AW:0] F_DEPTH = F_DEPTH_I[AW:0];
    localparam [AW:0] F_LAST  = F_LAST_I[AW:0];
    reg  [AW:0]   f_wr_q, f_rd_q, f_cnt_q;
    reg           f_full_q, f_avail_q, out_valid_q;
    reg  [1:0]    f_age_q;           // cycles the head has been read at (saturates at 2)
    wire          f_full_d;          // f_full_q's next value
    reg           f_wen_q;           // = t4_rec && !f_full_q, a flip-flop (it drives every RAM bit)
    wire          f_wen   = f_wen_q;
    wire          f_pop   = out_valid_q && m_axis_tready;
    // (full and not empty from the count's comparisons and the two events: no adder before them)
    wire          f_cnt0  = f_cnt_q == {(AW+1){1'b0}};
    wire          f_cnt1  = f_cnt_q == {{AW{1'b0}}, 1'b1};

    // The records' RAM (block RAM at 512 records, LUT RAM at 32), read at every cycle into two
    // registers (the RAM's read register and the output register, m_axis_tdata). no_rw_check:
    // the head is never used from a read in the cycle its slot is written (a record written into
    // an empty FIFO is shown from 3 cycles later, f_age_q), so Yosys needs no read-during-write
    // bypass, which on ECP5 would put a multiplexer behind the block RAM's slow output.
    (* no_rw_check *)
    reg  [RW-1:0] f_mem [0:RECORD_DEPTH-1];
    reg  [RW-1:0] f_rd_data, f_out_data;
    always @(posedge clk) begin
        if (f_wen) begin
            f_mem[f_wr_q[AW-1:0]] <= rec_data;
        end
        f_rd_data  <= f_mem[f_rd_q[AW-1:0]];
        f_out_data <= f_rd_data;
    end
    assign m_axis_tdata = f_out_data;

    assign f_full_d = !f_pop && (f_cnt_q == F_DEPTH || (f_cnt_q == F_LAST && f_wen));
    always @(posedge clk) begin
        f_wen_q <= !rst && t3_rec && !f_full_d;
    end

    always @(posedge clk) begin
        if (rst) begin
            f_wr_q      <= {(AW+1){1'b0}};
            f_rd_q      <= {(AW+1){1'b0}};
            f_cnt_q     <= {(AW+1){1'b0}};
            f_full_q    <= 1'b0;
            f_avail_q   <= 1'b0;
            f_age_q     <= 2'd0;
            out_valid_q <= 1'b0;
        end else begin
            f_wr_q      <= f_wr_q + {{AW{1'b0}}, f_wen};
            f_rd_q      <= f_rd_q + {{AW{1'b0}}, f_pop};
            f_cnt_q     <= f_cnt_q + {{AW{1'b0}}, f_wen} - {{AW{1'b0}}, f_pop};
            f_full_q    <= f_full_d;
            f_avail_q   <= f_wen || !(f_cnt0 || (f_cnt1 && f_pop));
            // the head is read at the edge after the pointer reached it (or it was written),
            // and is in the RAM's output register from the next edge on
            f_age_q     <= (f_pop || !f_avail_q) ? 2'd0 : (f_age_q == 2'd2 ? 2'd2 : f_age_q + 2'd1);
            out_valid_q <= !f_pop && f_avail_q && f_age_q != 2'd0;
        end
    end

    assign m_axis_tkeep  = {(RW/8){1'b1}};
    assign m_axis_tvalid = out_valid_q;
    assign m_axis_tlast  = 1'b1;

    // ------------------------------------------------------------------------------------------
    // Counters

    reg [31:0] c_frames, c_nosel, c_foreign, c_trunc, c_badlen, c_frag, c_badcsum, c_badfields,
               c_records, c_drops, c_bad, c_untracked;
    always @(posedge clk) begin
        if (rst) begin
            c_frames    <= 32'd0;
            c_nosel     <= 32'd0;
            c_foreign   <= 32'd0;
            c_trunc     <= 32'd0;
            c_badlen    <= 32'd0;
            c_frag      <= 32'd0;
            c_badcsum   <= 32'd0;
            c_badfields <= 32'd0;
            c_records   <= 32'd0;
            c_drops     <= 32'd0;
            c_bad       <= 32'd0;
            c_untracked <= 32'd0;
        end else begin
            if (e6_v) begin
                c_frames    <= c_frames + 32'd1;
                c_nosel     <= c_nosel + {31'd0, e6_nosel};
                c_foreign   <= c_foreign + {31'd0, e6_foreign};
                c_trunc     <= c_trunc + {31'd0, e6_trunc};
                c_badlen    <= c_badlen + {31'd0, e6_badlen};
                c_frag      <= c_frag + {31'd0, e6_frag};
                c_badcsum   <= c_badcsum + {31'd0, e6_badcsum};
                c_badfields <= c_badfields + {31'd0, e6_badfields};
                c_bad       <= c_bad + {31'd0, e6_rec && e6_bad};
                c_untracked <= c_untracked + {31'd0, e6_rec && !e6_bad && !e6_trk};
            end
            if (t4_rec) begin
                if (!f_full_q) begin
                    c_records <= c_records + 32'd1;
                end else begin
                    c_drops   <= c_drops + 32'd1;
                end
            end
        end
    end

    assign stat_frames       = c_frames;
    assign stat_not_selected = c_nosel;
    assign stat_foreign      = c_foreign;
    assign stat_truncated    = c_trunc;
    assign stat_bad_length   = c_badlen;
    assign stat_fragment     = c_frag;
    assign stat_bad_checksum = c_badcsum;
    assign stat_bad_fields   = c_badfields;
    assign stat_records      = c_records;
    assign stat_record_drops = c_drops;
    assign stat_bad_fcs      = c_bad;
    assign stat_untracked    = c_untracked;
    assign stat_seen         = st_seen_q;
    assign stat_received     = st_rx_q;
    assign stat_unique       = st_uniq_q;
    assign stat_duplicates   = st_dup_q;
    assign stat_reordered    = st_reord_q;
    assign stat_late         = st_late_q;
    assign stat_seq_first    = st_first_q;
    assign stat_seq_highest  = st_hi_q;
    assign stat_train_first  = st_tf_q;
    assign stat_train_end    = st_te_q;

endmodule

`default_nettype wire
