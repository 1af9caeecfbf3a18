// fp_node_wrx: one RX port of the word-serial node (issue #18). Packs the RX MAC's byte stream
// into 16-byte words, parses the header as the bytes arrive, and carries words and header
// descriptors from the port's GMII RX clock (rx_clk) to the datapath clock (clk).
//
// Input (rx_clk): fp_eth_mac_1g's m_axis: s_axis_tdata (one byte per beat), s_axis_tvalid,
//   s_axis_tlast, s_axis_tuser[0] = bad (the MAC's verdict, looked at on tlast only), no tready
//   (the wire cannot wait). s_axis_ts (fp_time of the SFD) is taken on the frame's first byte;
//   bits 39:16 (ns modulo 2^24) are kept.
// Word output (clk): m_axis_tdata 128 bits (frame byte 16k+i in tdata[8i+7:8i] of word k),
//   m_axis_tuser = the node_word sideband (FP_NW_*: bad, last, nbytes_m1), m_axis_tlast = last.
//   Every word but a frame's last holds 16 bytes; bytes beyond nbytes_m1 in a last word are 0.
// Header output (clk), two descriptors per frame, each through its own small async FIFO so the
//   lookup can start on the first:
//   m_key_* (valid/ready), written with word 0: after byte 15, or at the frame's end if it is
//     shorter. da / sa (bytes 0-5 / 6-11, byte 0 in bits 47:40), tagged (bytes 12-13 are 0x8100 or
//     0x88A8), tci (bytes 14-15, whether tagged or not), ts (s_axis_ts[39:16]), short (the frame
//     has fewer than 16 bytes; bytes it does not have read as 0), bad (the frame ended by byte 15
//     and its verdict was bad; 0 otherwise).
//   (Two descriptors with their own FIFOs rather than one with two strobes: a FIFO entry is
//   written once, and the key must not wait for the classification bytes.)
//   m_cls_* (valid/ready), written with the byte that completes the classification, never
//     before the key (both can be written by the same edge), or at the frame's end:
//     ethertype: bytes 12-13, or 16-17 when tagged (one tag at most is looked through; bytes the
//       frame does not have read as 0, and a tagged frame of fewer than 18 bytes gives 0 there);
//     ip_valid / ip_proto: the IPv4 protocol (ethertype 0x0800, byte 23, tagged 27) or the IPv6
//       next header (0x86DD, byte 20, tagged 24); ip_proto 0 when ip_valid is 0;
//     short: the frame ended before the byte that completes them (the ethertype's second byte,
//       or the protocol byte for IPv4 / IPv6).
//     Written at: byte 15 (untagged, not IP), byte 19 (tagged, not IP: two bytes after its
//     ethertype, as for an untagged frame; for timing), the protocol byte (IP), or the frame's
//     last byte, whichever comes first.
//   A frame gives both descriptors or neither (dropped whole, below); m_key and m_cls stay in
//   step with the word stream's frames.
//
// Packing. Bytes go into a word register by a one-hot lane register (no byte-index decoder); the
//   byte that completes a word (lane 15, the frame's last byte, or the truncation byte) is merged
//   in through one LUT per bit (lane i takes the byte, the other lanes hold, or clear at a word's
//   first byte) and the merged word, its sideband and the write enable are registered: the word
//   FIFO is written from flip-flops one rx_clk edge later. The header fields are taken from the
//   same merged word and from flags registered as the earlier bytes went by (each ethertype / TPID
//   comparison is split over the byte before: the ethertype's high byte registers which low byte
//   would complete a tag, IPv4 or IPv6; the arriving byte is then compared a nibble at a time),
//   and the byte that writes the cls descriptor is a one-hot countdown loaded at the ethertype's
//   last byte (2, 7 or 10 bytes on). The header FIFOs are written at the byte's own edge; their
//   write enables are one LUT of tvalid, tlast and flags registered a byte ahead (for the next
//   byte being its frame's last, or not: FIFO room, word 0's end, the countdown); compares of the
//   arriving byte feed descriptor data and parsing flags only. Nothing waits for a whole word
//   before being crossed. Timing (LFE5U-85F-6, `fastpath syn node_wrx`: rx_clk 184 MHz routed, seed
//   1): at most 4 LUT levels between flip-flops in the ECP5 netlist (a LUT5/6 of PFUMX / L6MUX in
//   one slice counting as one), the header FIFOs' write side included.
//
// Overflow (the reader fell behind: never in the node, whose buffer serves every source within
//   16 cycles). One slot of the word FIFO is kept for ending a frame: a word that is not its
//   frame's last is written only while 2 slots are free, a last word needs 1. Room is judged
//   from the FIFOs' occupancy registered, then from flags registered from it (admission: 2
//   edges; the word FIFO's room is seen one edge later still, behind its registered write), so
//   a write made up to 4 rx_clk cycles before is not yet counted: a word that checks for room
//   follows its frame's previous word write by 16 cycles or more, and word 0 follows the
//   previous frame's last word and descriptors by 21 or more (the gap), so the writer's own
//   writes are always counted; a read is seen late, which only frees.
//   - A frame's word 0 that finds no room (2 slots, 1 if it is also the last word), or a full key
//     or cls FIFO: the frame is dropped whole: no word, no descriptor. ev_overflow.
//   - A later word that finds fewer than 2 slots free is written into the reserve as the frame's
//     last, with bad = 1, and the rest of the frame's words are discarded. ev_overflow. The cls
//     descriptor is still produced from the bytes on the wire.
//   A frame longer than MAX_BYTES: the word holding byte MAX_BYTES-1 is its last, with bad = 1;
//   the rest is discarded. ev_trunc.
// Events (clk): ev_frame (every frame's last byte), ev_trunc, ev_overflow: single-cycle pulses.
//   Each is registered, counted in rx_clk (up to 15 waiting) and crossed by fp_sync_pulse, one
//   per round trip (about 6 cycles): a frame takes at least 21 rx_clk cycles, so none is ever
//   merged.
//
// Latency (clocks in cycles of 8 ns, 125 MHz; from the rx_clk edge that takes a byte to the first
//   clk edge at which the output's valid is sampled high, output empty and ready). The crossing is
//   fp_axis_async_fifo's stream mode; everything before it happens at the byte's own edge.
//   rx_clk = clk, same phase (coincident edges, which sample the old pointer):
//     word k: 6 clk cycles (48 ns) after the edge taking its last byte (byte 16k+15, or the
//             frame's last): the registered write, then the crossing's 5;
//     m_key:  5 cycles after byte 15 (or the frame's last byte if earlier): 20 cycles (160 ns)
//             after the frame's first byte on the MAC stream;
//     m_cls:  5 cycles after its completing byte (above).
//   Other phase / frequency (plesiochronous, +-100 ppm): words more than 5 and at most 6 clk
//     periods after the rx_clk edge (5 on a coincident clk edge that samples the new pointer),
//     descriptors more than 4 and at most 5 (4). A metastable synchronizer flop can add one clk
//     period in hardware. A frame's last word that follows its previous word by one rx_clk cycle
//     can wait one more clk cycle behind it.
// Throughput: line rate: one byte per rx_clk cycle, frames of 1 .. any length (MAX_BYTES kept)
//   back to back with the 20-cycle minimum gap (IFG + preamble), as long as the word reader takes
//   a word per 16 rx_clk cycles on average (a frame's last word can follow its previous word by one
//   cycle; FIFO_WORDS absorbs that) and the descriptor readers one of each per frame.
// Resets: rx_rst (rx_clk) and rst (clk) synchronous; assert both together (fp_axis_async_fifo's
//   rule). A reset in the middle of a frame makes its remaining bytes look like a new frame.
// Bad input: frames marked bad are carried through, bad = 1 on their last word (the buffer and TX
//   decide); frames shorter than 16 bytes (runts) give their words and both descriptors with
//   short = 1; no byte sequence hangs the module (every frame ends with tlast; a frame longer than
//   MAX_BYTES is cut). Input beats during rx_rst are ignored.
// Parameters: FIFO_WORDS 8 or 16 (words in the crossing FIFO; on ECP5 both take the same LUT RAM,
//   16 deep); HDR_DEPTH 8 or 16 (descriptors per header FIFO); MAX_BYTES 64..16383.
`default_nettype none

`include "fp_node_word.vh"

module fp_node_wrx #(
    parameter FIFO_WORDS = 16,
    parameter HDR_DEPTH  = 8,
    parameter MAX_BYTES  = 1518
) (
    input  wire                 rx_clk,
    input  wire                 rx_rst,
    input  wire                 clk,
    input  wire                 rst,

    // rx_clk: the RX MAC's stream
    input  wire [7:0]           s_axis_tdata,
    input  wire                 s_axis_tvalid,
    input  wire                 s_axis_tlast,
    input  wire [0:0]           s_axis_tuser,
    input  wire [63:0]          s_axis_ts,

    // clk: words
    output wire [127:0]         m_axis_tdata,
    output wire                 m_axis_tvalid,
    input  wire                 m_axis_tready,
    output wire                 m_axis_tlast,
    output wire [`FP_NW_W-1:0]  m_axis_tuser,

    // clk: key descriptor
    output wire                 m_key_valid,
    input  wire                 m_key_ready,
    output wire [47:0]          m_key_da,
    output wire [47:0]          m_key_sa,
    output wire                 m_key_tagged,
    output wire [15:0]          m_key_tci,
    output wire [23:0]          m_key_ts,
    output wire                 m_key_short,
    output wire                 m_key_bad,

    // clk: classification descriptor
    output wire                 m_cls_valid,
    input  wire                 m_cls_ready,
    output wire [15:0]          m_cls_ethertype,
    output wire                 m_cls_ip_valid,
    output wire [7:0]           m_cls_ip_proto,
    output wire                 m_cls_short,

    // clk: events
    output wire                 ev_frame,
    output wire                 ev_trunc,
    output wire                 ev_overflow
);

    generate
        if (FIFO_WORDS != 8 && FIFO_WORDS != 16) begin : g_bad_fifo_words
            PARAMETER_ERROR_FIFO_WORDS_must_be_8_or_16 u_error();
        end
        if (HDR_DEPTH != 8 && HDR_DEPTH != 16) begin : g_bad_hdr_depth
            PARAMETER_ERROR_HDR_DEPTH_must_be_8_or_16 u_error();
        end
        if (MAX_BYTES < 64 || MAX_BYTES > 16383) begin : g_bad_max_bytes
            PARAMETER_ERROR_MAX_BYTES_must_be_64_to_16383 u_error();
        end
    endgenerate

    localparam NW       = `FP_NW_W;
    localparam AW       = $clog2(FIFO_WORDS);
    localparam CW       = $clog2(MAX_BYTES);           // byte index 0 .. MAX_BYTES-1
    localparam WCW      = CW - 4;                      // word index (bytes 16k .. 16k+15)
    localparam KEY_W    = 48 + 48 + 1 + 16 + 24 + 1 + 1;
    localparam CLS_W    = 16 + 1 + 8 + 1;
    localparam integer  MAX_M2_I = MAX_BYTES - 2;
    localparam integer  WM_I     = MAX_M2_I / 16;      // the word holding byte MAX_BYTES-2 (>= 3)
    localparam integer  LM       = MAX_M2_I % 16;      // ... its lane
    localparam integer  WM1_I    = WM_I - 1;
    localparam [WCW-1:0] WM1     = WM1_I[WCW-1:0];
    localparam [AW:0]   ROOM2    = FIFO_WORDS - 2;     // occupancy that leaves 2 slots free

    // ------------------------------------------------------------------ rx_clk: packing
    // State of the next byte (the one arriving in this cycle): the registers below describe it.
    reg  [127:0]  acc_q;      // the word being gathered
    reg  [15:0]   lane_q;     // one-hot: lane of the next byte in its word
    reg  [17:0]   pos_q;      // one-hot: index of the next byte, bytes 0..17; 0 beyond
    reg           ge14_q, ge17_q, ge18_q;   // the next byte's index is at least 14 / 17 / 18
    reg           w0_q;       // the next byte belongs to word 0
    reg  [3:0]    lo_q;       // index of the next byte in its word
    reg  [WCW-1:0] wc_q;      // index of the next byte's word
    reg           wm_q;       // wc_q is the word holding byte MAX_BYTES-2
    reg           at_max_q;   // the next byte is byte MAX_BYTES-1
    reg           disc_q;     // discarding the rest of the frame's words
    reg           keep_q;     // !w0_q && !disc_q: the next byte is in a later word, kept
    reg           clsp_q;     // key written, cls not yet
    reg  [23:0]   ts_q;
    // header parsing state (cleared at each frame's end)
    reg           tagged_q;   // bytes 12-13 are a TPID
    reg           ipc_q;      // the ethertype is IPv4 or IPv6
    reg  [15:0]   et_q;       // the ethertype bytes received so far (a tag's TPID: masked below)
    reg           p81_q, p88_q;   // the next byte is byte 13 and byte 12 was 0x81 / 0x88
    reg           p00_q, pdd_q;   // the next byte completes an ethertype 0x08.. / 0x86..
    reg           p0z_q;          // p00_q || p81_q
    reg           el_q;           // the next byte completes the ethertype (13, tagged 17)
    reg  [9:0]    cd_q;       // one-hot: the cls descriptor is written k bytes after the next
                              // byte's (set at the ethertype's last byte: 2, 7 or 10 bytes on)
    // Precomputed one byte ahead, so that the header FIFOs' write enables are one LUT of the
    // arriving beat's tvalid / tlast and flip-flops (*1: if the next byte is its frame's last,
    // *0: if not). Admission (kw: key, word 0 and cls admitted; a frame's word 0 end without it
    // drops the frame) is decided from these alone.
    reg           kw1_q, kw0_q;   // the key FIFO is written
    reg           cw1_q, cw0_q;   // the cls FIFO is written

    wire          v       = s_axis_tvalid;
    wire [7:0]    d       = s_axis_tdata;
    wire          lst     = s_axis_tlast;
    wire          bad_in  = s_axis_tlast && s_axis_tuser[0];
    wire          fin     = v && lst;                  // the frame ends with this byte

    // the word with this byte merged in (lanes other than the byte's clear at a word's first byte)
    reg  [127:0]  merged;
    integer i;
    always @* begin
        for (i = 0; i < 16; i = i + 1) begin
            merged[8*i +: 8] = lane_q[i] ? d : (lane_q[0] ? 8'h00 : acc_q[8*i +: 8]);
        end
    end

    // FIFO room, registered from the FIFOs' occupancy, and the admission flags registered from it
    // in turn: a decision sees the FIFOs as they were 2 cycles before (the word FIFO 3: its write
    // is registered once more, below). Exact for the writer's own writes - a word that checks for
    // room follows the previous word write by at least 16 cycles, word 0 follows the previous
    // frame's last word and descriptors by at least 21 - and late in seeing a read, which only
    // frees.
    wire [AW:0]   w_occ;
    wire          w_rdy;      // at least one slot free
    wire          key_rdy, cls_rdy;
    reg           room2_q;    // word FIFO: 2 slots free
    reg           adm1_q;     // a frame may start with a 1-word frame: 1 slot, key and cls room
    reg           adm2_q;     // ... with a longer frame: 2 slots, key and cls room

    wire          w0b     = w0_q && !lane_q[15];      // the byte after the next is in word 0 too
    wire          key_wen = v && (lst ? kw1_q : kw0_q);
    wire          cls_wen = v && (lst ? cw1_q : cw0_q);
    // word 0 ends (byte 15 or the last) without admission: the frame is dropped
    wire          drop    = v && w0_q && (lst ? !kw1_q : (lane_q[15] && !kw0_q));
    // a later word ends: byte MAX_BYTES-1 with more to come (over), or a word that is not the
    // last with fewer than 2 slots free (cut, when a byte arrives: cut_at)
    wire          cut_at  = keep_q && lane_q[15] && !at_max_q && !room2_q;
    wire          cut     = v && !lst && cut_at;
    wire          wen     = v && (lst ? (kw1_q || keep_q)
                                      : (kw0_q || (keep_q && (lane_q[15] || at_max_q))));
    // drop, cut or over at this byte (if it is not the last)
    wire          disc_at = at_max_q || (lane_q[15] && (w0_q ? !kw0_q : !room2_q));

    wire [23:0]   ts_cur  = pos_q[0] ? s_axis_ts[39:16] : ts_q;

    // ------------------------------------------------------------------ rx_clk: header parsing
    wire          et_hi_at = pos_q[12] || (pos_q[16] && tagged_q);
    wire          et_lo_at = el_q;
    // compares of the arriving byte, a nibble at a time: each flag below is 2 LUT levels
    wire          lo_0     = d[3:0] == 4'h0;
    wire          lo_8     = d[3:0] == 4'h8;
    wire          lo_d     = d[3:0] == 4'hD;
    wire          hi_0     = d[7:4] == 4'h0;
    wire          hi_a     = d[7:4] == 4'hA;
    wire          hi_d     = d[7:4] == 4'hD;
    wire          tag81    = p81_q && lo_0 && hi_0;
    wire          tag88    = p88_q && lo_8 && hi_a;
    wire          ip4_now  = p00_q && lo_0 && hi_0;
    wire          ip6_now  = pdd_q && lo_d && hi_d;
    wire          ip_now   = ip4_now || ip6_now;
    wire          load2    = el_q && !(p0z_q && lo_0 && hi_0) && !tag88 && !ip6_now;
    wire          proto_at = cd_q[0] && ipc_q;
    wire          et_done  = (ge14_q && !tagged_q) || ge18_q;   // before this byte
    // a tagged frame's bytes 12-13 (the TPID) stay in et_q until byte 16 replaces them: read as 0
    wire          et_tpid  = tagged_q && !ge17_q;
    // cls short: at the ethertype's last byte when it makes a tag or IP (the protocol byte is to
    // come); elsewhere when the ethertype is incomplete or IP, except at the protocol byte
    wire          cls_short = (p0z_q && lo_0 && hi_0) || tag88 || ip6_now ||
                              (!et_lo_at && !proto_at && (!et_done || ipc_q));

    // the ethertype as read now: a TPID completed by this byte reads as 0 (bits of 0x81 / 0x88
    // only, the others are 0 then anyway)
    reg  [7:0]    et_hi, et_lo;
    integer j;
    always @* begin
        for (j = 0; j < 8; j = j + 1) begin
            et_hi[j] = et_hi_at ? d[j] : (et_q[8 + j] && !et_tpid &&
                                          !(tag81 && (j == 0 || j == 7)) &&
                                          !(tag88 && (j == 3 || j == 7)));
            et_lo[j] = et_lo_at ? (d[j] && !(tag88 && (j == 3 || j == 5 || j == 7)))
                                : (et_q[j] && !et_tpid);
        end
    end

    // key and cls descriptors (packing of the header FIFOs)
    wire [KEY_W-1:0] key_w = {
        bad_in,                                        // [138] bad
        !pos_q[15],                                    // [137] short (written before byte 15)
        ts_cur,                                        // [136:113] ts
        merged[8*14 +: 8], merged[8*15 +: 8],          // [112:97] tci
        tagged_q || tag81 || tag88,                    // [96] tagged
        merged[8*6 +: 8], merged[8*7 +: 8], merged[8*8 +: 8],
        merged[8*9 +: 8], merged[8*10 +: 8], merged[8*11 +: 8],   // [95:48] sa
        merged[8*0 +: 8], merged[8*1 +: 8], merged[8*2 +: 8],
        merged[8*3 +: 8], merged[8*4 +: 8], merged[8*5 +: 8]      // [47:0] da
    };
    wire [CLS_W-1:0] cls_w = {
        cls_short,                                     // [25] short
        proto_at ? d : 8'h00,                          // [24:17] ip_proto
        proto_at,                                      // [16] ip_valid
        et_hi, et_lo                                   // [15:0] ethertype
    };

    always @(posedge rx_clk) begin
        if (rx_rst) begin
            room2_q <= 1'b0;
            adm1_q  <= 1'b0;
            adm2_q  <= 1'b0;
            kw1_q   <= 1'b0;
            kw0_q   <= 1'b0;
            cw1_q   <= 1'b0;
            cw0_q   <= 1'b0;
        end else begin
            room2_q <= w_occ <= ROOM2;
            adm1_q  <= key_rdy && cls_rdy && w_rdy;
            adm2_q  <= key_rdy && cls_rdy && w_occ <= ROOM2;
            // for the next byte: it is its frame's last (kw1, cw1) or not (kw0, cw0); the next
            // byte's state is this one's if no byte arrives, else it follows from this byte
            // (word 0: the key with word 0's last byte; the cls with the key at byte 15 when
            // cd says so, else at cd's byte or the last, once the key is written)
            kw1_q   <= adm1_q && (v ? (lst || w0b) : w0_q);
            kw0_q   <= adm2_q && (v ? (!lst && pos_q[14]) : pos_q[15]);
            cw1_q   <= v ? ((lst || w0b) ? adm1_q : (!cw0_q && (clsp_q || kw0_q)))
                         : (w0_q ? adm1_q : clsp_q);
            cw0_q   <= v ? (!lst && cd_q[1] && (w0b ? adm2_q : (!cw0_q && (clsp_q || kw0_q))))
                         : (cd_q[0] && (w0_q ? adm2_q : clsp_q));
        end
    end

    always @(posedge rx_clk) begin
        if (rx_rst) begin
            acc_q     <= 128'd0;
            lane_q    <= 16'd1;
            pos_q     <= 18'd1;
            ge14_q    <= 1'b0;
            ge17_q    <= 1'b0;
            ge18_q    <= 1'b0;
            w0_q      <= 1'b1;
            lo_q      <= 4'd0;
            wc_q      <= {WCW{1'b0}};
            wm_q      <= 1'b0;
            at_max_q  <= 1'b0;
            disc_q    <= 1'b0;
            keep_q    <= 1'b0;
            clsp_q    <= 1'b0;
            ts_q      <= 24'd0;
            tagged_q  <= 1'b0;
            ipc_q     <= 1'b0;
            et_q      <= 16'd0;
            p81_q     <= 1'b0;
            p88_q     <= 1'b0;
            p00_q     <= 1'b0;
            pdd_q     <= 1'b0;
            p0z_q     <= 1'b0;
            el_q      <= 1'b0;
        end else if (v) begin
            acc_q <= merged;
            ts_q  <= ts_cur;
            if (et_hi_at) begin
                et_q <= {d, 8'h00};
            end
            if (et_lo_at) begin
                et_q[7:0] <= d;
            end
            // the ethertype's high byte tells what its low byte (next) must be
            p81_q <= pos_q[12] && d == 8'h81;
            p88_q <= pos_q[12] && d == 8'h88;
            p00_q <= et_hi_at && d == 8'h08;
            pdd_q <= et_hi_at && d == 8'h86;
            p0z_q <= (et_hi_at && d == 8'h08) || (pos_q[12] && d == 8'h81);
            el_q  <= !lst && (pos_q[12] || (pos_q[16] && tagged_q));
            if (lst) begin
                lane_q    <= 16'd1;
                pos_q     <= 18'd1;
                ge14_q    <= 1'b0;
                ge17_q    <= 1'b0;
                ge18_q    <= 1'b0;
                w0_q      <= 1'b1;
                lo_q      <= 4'd0;
                wc_q      <= {WCW{1'b0}};
                wm_q      <= 1'b0;
                at_max_q  <= 1'b0;
                disc_q    <= 1'b0;
                keep_q    <= 1'b0;
                clsp_q    <= 1'b0;
                tagged_q  <= 1'b0;
                ipc_q     <= 1'b0;
                et_q      <= 16'd0;
                p81_q     <= 1'b0;
                p88_q     <= 1'b0;
                p00_q     <= 1'b0;
                pdd_q     <= 1'b0;
                p0z_q     <= 1'b0;
            end else begin
                lane_q   <= {lane_q[14:0], lane_q[15]};
                pos_q    <= {pos_q[16:0], 1'b0};
                ge14_q   <= ge14_q || pos_q[13];
                ge17_q   <= ge17_q || pos_q[16];
                ge18_q   <= ge18_q || pos_q[17];
                w0_q     <= w0b;
                lo_q     <= lo_q + 4'd1;
                if (lane_q[15]) begin
                    wc_q <= wc_q + 1'b1;
                    wm_q <= wc_q == WM1;
                end
                at_max_q <= wm_q && lane_q[LM];
                if (disc_at) begin
                    disc_q <= 1'b1;
                end
                keep_q   <= !w0b && !disc_q && !disc_at;
                if (cw0_q) begin
                    clsp_q <= 1'b0;
                end else if (kw0_q) begin
                    clsp_q <= 1'b1;
                end
                tagged_q <= tagged_q || tag81 || tag88;
                ipc_q    <= ipc_q || ip_now;
            end
        end
    end

    // the cls byte: IPv4 protocol 10 bytes after the ethertype, IPv6 next header 7, not IP
    // 2 bytes after it (byte 15, tagged 19); a tag (looked through once) loads nothing
    always @(posedge rx_clk) begin
        if (rx_rst || fin) begin
            cd_q <= 10'd0;
        end else if (v) begin
            cd_q <= {ip4_now, cd_q[9:8], cd_q[7] || ip6_now, cd_q[6:3], cd_q[2] || load2, cd_q[1]};
        end
    end

    // the word write, registered: the word FIFO's write side sees flip-flops only
    reg           wq_valid_q;
    reg  [127:0]  wq_data_q;
    reg  [NW-1:0] wq_user_q;
    always @(posedge rx_clk) begin
        wq_data_q                     <= merged;
        wq_user_q[`FP_NW_BAD]         <= bad_in || (!lst && (at_max_q || cut_at));
        wq_user_q[`FP_NW_LAST]        <= lst || at_max_q || cut_at;
        wq_user_q[`FP_NW_NBYTES_M1]   <= lo_q;
        wq_valid_q                    <= !rx_rst && wen;
    end

    wire unused_ts = &{1'b0, s_axis_ts[63:40], s_axis_ts[15:0]};

    // ------------------------------------------------------------------ crossings
    wire [15:0] unused_w_keep;
    wire [AW:0] unused_w_mocc;
    wire        unused_w_drop_bad, unused_w_drop_oversize;

    fp_axis_async_fifo #(
        .DATA_WIDTH (128),
        .USER_WIDTH (NW),
        .DEPTH      (FIFO_WORDS),
        .FRAME_MODE (0)
    ) u_words (
        .s_clk           (rx_clk),
        .s_rst           (rx_rst),
        .s_axis_tdata    (wq_data_q),
        .s_axis_tkeep    (16'hFFFF),
        .s_axis_tvalid   (wq_valid_q),
        .s_axis_tready   (w_rdy),
        .s_axis_tlast    (wq_user_q[`FP_NW_LAST]),
        .s_axis_tuser    (wq_user_q),
        .s_occupancy     (w_occ),
        .s_drop_bad      (unused_w_drop_bad),
        .s_drop_oversize (unused_w_drop_oversize),
        .m_clk           (clk),
        .m_rst           (rst),
        .m_axis_tdata    (m_axis_tdata),
        .m_axis_tkeep    (unused_w_keep),
        .m_axis_tvalid   (m_axis_tvalid),
        .m_axis_tready   (m_axis_tready),
        .m_axis_tlast    (m_axis_tlast),
        .m_axis_tuser    (m_axis_tuser),
        .m_occupancy     (unused_w_mocc)
    );

    localparam HW = $clog2(HDR_DEPTH);

    wire [KEY_W-1:0] key_r;
    wire [CLS_W-1:0] cls_r;
    wire [HW:0]      unused_k_socc, unused_k_mocc, unused_c_socc, unused_c_mocc;
    wire             unused_k_keep, unused_k_last, unused_k_db, unused_k_do;
    wire             unused_c_keep, unused_c_last, unused_c_db, unused_c_do;

    fp_axis_async_fifo #(
        .DATA_WIDTH (8),
        .USER_WIDTH (KEY_W - 8),
        .DEPTH      (HDR_DEPTH),
        .FRAME_MODE (0)
    ) u_key (
        .s_clk           (rx_clk),
        .s_rst           (rx_rst),
        .s_axis_tdata    (key_w[7:0]),
        .s_axis_tkeep    (1'b1),
        .s_axis_tvalid   (key_wen),
        .s_axis_tready   (key_rdy),
        .s_axis_tlast    (1'b1),
        .s_axis_tuser    (key_w[KEY_W-1:8]),
        .s_occupancy     (unused_k_socc),
        .s_drop_bad      (unused_k_db),
        .s_drop_oversize (unused_k_do),
        .m_clk           (clk),
        .m_rst           (rst),
        .m_axis_tdata    (key_r[7:0]),
        .m_axis_tkeep    (unused_k_keep),
        .m_axis_tvalid   (m_key_valid),
        .m_axis_tready   (m_key_ready),
        .m_axis_tlast    (unused_k_last),
        .m_axis_tuser    (key_r[KEY_W-1:8]),
        .m_occupancy     (unused_k_mocc)
    );

    fp_axis_async_fifo #(
        .DATA_WIDTH (8),
        .USER_WIDTH (CLS_W - 8),
        .DEPTH      (HDR_DEPTH),
        .FRAME_MODE (0)
    ) u_cls (
        .s_clk           (rx_clk),
        .s_rst           (rx_rst),
        .s_axis_tdata    (cls_w[7:0]),
        .s_axis_tkeep    (1'b1),
        .s_axis_tvalid   (cls_wen),
        .s_axis_tready   (cls_rdy),
        .s_axis_tlast    (1'b1),
        .s_axis_tuser    (cls_w[CLS_W-1:8]),
        .s_occupancy     (unused_c_socc),
        .s_drop_bad      (unused_c_db),
        .s_drop_oversize (unused_c_do),
        .m_clk           (clk),
        .m_rst           (rst),
        .m_axis_tdata    (cls_r[7:0]),
        .m_axis_tkeep    (unused_c_keep),
        .m_axis_tvalid   (m_cls_valid),
        .m_axis_tready   (m_cls_ready),
        .m_axis_tlast    (unused_c_last),
        .m_axis_tuser    (cls_r[CLS_W-1:8]),
        .m_occupancy     (unused_c_mocc)
    );

    assign m_key_da        = key_r[47:0];
    assign m_key_sa        = key_r[95:48];
    assign m_key_tagged    = key_r[96];
    assign m_key_tci       = key_r[112:97];
    assign m_key_ts        = key_r[136:113];
    assign m_key_short     = key_r[137];
    assign m_key_bad       = key_r[138];
    assign m_cls_ethertype = cls_r[15:0];
    assign m_cls_ip_valid  = cls_r[16];
    assign m_cls_ip_proto  = cls_r[24:17];
    assign m_cls_short     = cls_r[25];

    wire unused = &{1'b0, unused_ts, unused_w_keep, unused_w_mocc, unused_w_drop_bad,
                    unused_w_drop_oversize, unused_k_socc, unused_k_mocc, unused_c_socc,
                    unused_c_mocc, unused_k_keep, unused_k_last, unused_k_db, unused_k_do,
                    unused_c_keep, unused_c_last, unused_c_db, unused_c_do};

    // ------------------------------------------------------------------ events
    // registered, counted in rx_clk (a thermometer of up to 15 waiting: th_q[k] = more than k),
    // crossed one at a time (fp_sync_pulse round trip ~6 cycles)
    reg  [2:0] ev_q;
    wire [2:0] ev_c;

    always @(posedge rx_clk) begin
        ev_q <= rx_rst ? 3'd0 : {fin, v && !lst && keep_q && at_max_q, drop || cut};
    end

    genvar e;
    generate
        for (e = 0; e < 3; e = e + 1) begin : g_ev
            reg  [14:0] th_q;
            wire        busy;
            wire        send = th_q[0] && !busy;
            wire        inc  = ev_q[e] && !th_q[14];

            always @(posedge rx_clk) begin
                if (rx_rst) begin
                    th_q <= 15'd0;
                end else if (inc && !send) begin
                    th_q <= {th_q[13:0], 1'b1};
                end else if (!inc && send) begin
                    th_q <= {1'b0, th_q[14:1]};
                end
            end

            fp_sync_pulse #(.STAGES(2)) u_sync (
                .src_clk(rx_clk), .src_rst(rx_rst), .src_pulse(send), .src_busy(busy),
                .dst_clk(clk), .dst_rst(rst), .dst_pulse(ev_c[e])
            );
        end
    endgenerate

    assign {ev_frame, ev_trunc, ev_overflow} = ev_c;

endmodule

`default_nettype wire
