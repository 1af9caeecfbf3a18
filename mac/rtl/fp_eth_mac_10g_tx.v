// fp_eth_mac_10g_tx: 10G Ethernet transmit MAC, XGMII 64-bit (8 lanes) at 156.25 MHz.
//
// Takes frames without FCS on s_axis and sends them on xgmii_txd/xgmii_txc (registered outputs,
// lane 0 = bits 7:0 = first byte on the wire): /S/ + six 0x55 + SFD, the data padded with zeros
// to 60 bytes, the FCS, /T/ in whatever lane follows, then idles. Frames start on lane 0 or lane 4
// as the deficit idle count (DIC, IEEE 802.3 46.3.1.4) decides, so the inter-frame gap averages
// cfg_tx_ifg bytes exactly (never less than cfg_tx_ifg - 3) and 64-byte frames run at line rate.
//
// Datapath: one beat register (S1) between s_axis and the output register. A beat is loaded into
// S1 in the cycle before it goes out, with the timestamp bytes (if any) already in it, and the CRC
// of the frame so far is updated in the same cycle as a full 64-bit step over the beat with the
// bytes past its end zeroed. When the last beat goes out, the FCS is that state with the z padding
// zero bytes undone (three fixed 32x32 stages, Z^-8, Z^-16, Z^-32) and inverted, and is placed
// with /T/ by one byte shift; bytes that do not fit go out in one more word. A lane-4 frame is the
// same virtual word stream delayed by half a word (the upper half of each word is held one cycle).
//
// Latency:    1 cycle: the first beat offered (tvalid) with the link idle -> the /S/ + preamble +
//             SFD word on the pins in the next cycle (an idle link always starts on lane 0; a
//             lane-4 start puts the SFD in the word after the /S/ word, one cycle later).
// Throughput: line rate for every frame size: one beat per cycle while a frame is sent (tready is
//             high for one beat per cycle), the IFG is cfg_tx_ifg on average (DIC), 14.88 Mpps
//             for 64-byte frames at 12. tready does not depend on tvalid.
// Timestamp:  the fp_time of the /S/ byte at the pins: the ts_now of the cycle the /S/ word is on
//             the pins (+ PERIOD/2 on lane 4). Because the first beat (which may hold the inserted
//             timestamp) is loaded the cycle before, the value is predicted: ts_now sampled two
//             cycles earlier + 2 periods (+ 2.5 periods on lane 4), which is exact for a fp_timebase
//             that adds one period per cycle (to its 1/65536-ns rounding). tx_ts/tx_ts_valid report
//             it for every frame, in order, in the cycle the /S/ word is on the pins.
//             s_axis_ts_insert + s_axis_ts_offset (first beat) write it big-endian at frame bytes
//             offset..offset+7 (after padding), the FCS covers it. If those bytes are not all in the
//             frame, nothing is written and tx_status_ts_bad_offset is set. An insertion that spans
//             two beats is written into the first tentatively; if the second beat is too short the
//             first beat's bytes are restored and the CRC corrected by the XOR of the data-only CRC
//             of the change (a second 64-bit network, in parallel).
// Tester stamp: s_axis_ts_insert = 1 with s_axis_ts_mode = 1 (first beat; mode 0 is the insertion
//             above) takes s_axis_ts_offset as the offset of a packet-train tester header
//             (ptrain.fmt.toml, fp_ptrain.vh) and writes, for the same time T (tx_ts), big-endian
//             at header offset + FP_PTRAIN_TESTER_*_OFF: tv_sec (+8, floor(ns / 10^9) mod 2^32,
//             ns = T[63:16]), tv_usec (+12, floor((ns mod 10^9) / 1000)), tx_time (+32, T),
//             csum_adj (+40, ones' complement of the ones'-complement sum of those 8 16-bit words,
//             0xFFFF for a zero sum: a UDP checksum computed with them at 0 stays valid).
//             Budget: fp_ts_tod takes T with the first beat (cycle g) and has the seconds and
//             microseconds in cycle g + 5; beat b is loaded into S1 in cycle g + b with its stamp
//             bytes prepared in cycle g + b - 1, so the first stamp byte must be in beat 6 or later:
//             offset + 8 >= 48, offset >= 40 (42 for IPv4, the earliest tester header, leaves no
//             cycle to spare). csum_adj is there in g + 7, needed from beat 10 (g + 9) on.
//             A smaller offset: not made, nothing written, tx_status_ts_bad_offset. A stamp whose
//             last byte (offset + 41) is past the client's frame: tx_status_ts_bad_offset, and if a
//             stamp byte was in a beat before the client's last beat (already on its way to the
//             pins) the stamp bytes inside the frame are written and the FCS stomped; otherwise
//             nothing is written.
// Bad input:  tuser[0] on the tlast beat: the frame goes out with its FCS inverted (stomped,
//             tx_status_stomped). Underrun (tvalid low in the middle of a frame): the frame is ended
//             at once after the beat on the wire with a stomped FCS (no padding), tx_status_underrun
//             (not tx_status_stomped, which counts tuser only); the rest of the frame is then
//             accepted and dropped up to its tlast.
//             tkeep: only the last beat's counts (holes are taken as set; 0 = no byte in it); other
//             beats are taken as full. cfg_tx_ifg below 8 acts as 8.
// Pause:      pause_valid loads quanta x 8 cycles (512 bit times); the count runs in the cycles in
//             which a frame could otherwise start (idle, IFG done: so after the frame in progress
//             and its IFG), and no frame starts until it is 0. A new pause restarts it; 0 resumes.
//             tx_paused is high (one cycle later) for every cycle the count ran.
// Status:     tx_status_valid pulses once per frame sent, after its last data beat, with the
//             length (bytes with FCS, saturating at 65535) and the flags.
// Parameters: PERIOD_NUM/PERIOD_DEN = clock period in ns (default 32/5 = 6.4 ns), for the
//             timestamp prediction; 1..1000 each.
`default_nettype none
`include "fp_ptrain.vh"

module fp_eth_mac_10g_tx #(
    parameter PERIOD_NUM = 32,
    parameter PERIOD_DEN = 5
) (
    input  wire        clk,
    input  wire        rst,

    input  wire [63:0] s_axis_tdata,
    input  wire [7:0]  s_axis_tkeep,
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,
    input  wire [0:0]  s_axis_tuser,
    input  wire        s_axis_ts_insert,
    input  wire        s_axis_ts_mode,
    input  wire [15:0] s_axis_ts_offset,

    output reg  [63:0] xgmii_txd,
    output reg  [7:0]  xgmii_txc,

    input  wire [63:0] ts_now,
    input  wire [7:0]  cfg_tx_ifg,
    input  wire        pause_valid,
    input  wire [15:0] pause_quanta,

    output reg  [63:0] tx_ts,
    output reg         tx_ts_valid,

    output reg         tx_status_valid,
    output reg  [15:0] tx_status_len,
    output reg         tx_status_stomped,
    output reg         tx_status_underrun,
    output reg         tx_status_ts_bad_offset,
    output reg         tx_paused
);

    generate
        if (PERIOD_NUM < 1 || PERIOD_DEN < 1 || PERIOD_NUM > 1000 || PERIOD_DEN > 1000) begin : g_bad_period
            PARAMETER_ERROR_PERIOD_NUM_and_PERIOD_DEN_must_be_1_to_1000 u_error();
        end
    endgenerate

    // Tester stamp (mode 1): field offsets from the tester header's first byte (ptrain.fmt.toml)
    localparam integer F_SEC  = `FP_PTRAIN_TESTER_TV_SEC_OFF;
    localparam integer F_USEC = `FP_PTRAIN_TESTER_TV_USEC_OFF;
    localparam integer F_TX   = `FP_PTRAIN_TESTER_TX_TIME_OFF;
    localparam integer F_CSUM = `FP_PTRAIN_TESTER_CSUM_ADJ_OFF;
    localparam integer F_END  = F_CSUM + `FP_PTRAIN_TESTER_CSUM_ADJ_LEN;  // past the last byte written
    localparam integer NCH    = (F_END + 7) / 8;   // 8-byte chunks of the stamp image
    // The conversion (fp_ts_tod) gives the seconds 5 cycles after the first beat: the first stamp
    // byte must be in beat 6 or later (offset + F_SEC >= 48), else the stamp is not made.
    localparam integer MIN_OFF_I = 48 - F_SEC;
    localparam [15:0]  MIN_OFF   = MIN_OFF_I[15:0];

    generate
        if (`FP_PTRAIN_TESTER_TV_SEC_LEN != 4 || `FP_PTRAIN_TESTER_TV_USEC_LEN != 4 ||
            `FP_PTRAIN_TESTER_TX_TIME_LEN != 8 || `FP_PTRAIN_TESTER_CSUM_ADJ_LEN != 2 ||
            F_SEC < 1 || F_SEC > 48 || F_END > 64) begin : g_bad_fmt
            PARAMETER_ERROR_ptrain_tester_stamp_fields_not_as_fp_eth_mac_10g_tx_expects u_error();
        end
    endgenerate

    // the byte mask of the stamp image of n bytes (bit i: byte i after the tester header's first)
    function [8*NCH-1:0] stamp_mask(input integer n);
        integer i;
        begin
            stamp_mask = {8*NCH{1'b0}};
            for (i = 0; i < n; i = i + 1) begin
                if ((i >= F_SEC && i < F_SEC + 4) || (i >= F_USEC && i < F_USEC + 4) ||
                    (i >= F_TX && i < F_TX + 8) || (i >= F_CSUM && i < F_END)) begin
                    stamp_mask[i] = 1'b1;
                end
            end
        end
    endfunction
    localparam [8*NCH-1:0] IMASK = stamp_mask(8 * NCH);

    localparam [63:0] IDLE_W  = {8{8'h07}};
    localparam [63:0] START_W = 64'hD5_55_55_55_55_55_55_FB;
    localparam [31:0] POLY    = 32'hEDB88320;
    localparam [31:0] INIT    = 32'hFFFFFFFF;
    // ts_now two cycles ahead, and two and a half (lane 4), in fp_time (Q48.16 ns), rounded.
    localparam [63:0] ADJ0 = (4 * PERIOD_NUM * 65536 + PERIOD_DEN) / (2 * PERIOD_DEN);
    localparam [63:0] ADJ4 = (5 * PERIOD_NUM * 65536 + PERIOD_DEN) / (2 * PERIOD_DEN);

    // Z^-1, the inverse of the CRC register's zero-bit step Z(s) = (s >> 1) ^ (s[0] ? POLY : 0).
    function [31:0] zero_unstep(input [31:0] t);
        zero_unstep = ((t ^ (t[31] ? POLY : 32'd0)) << 1) | {31'd0, t[31]};
    endfunction

    // Row j of Z^-(8*bytes): bit i set if state bit i reaches bit j.
    function [31:0] unstep_row(input integer bytes, input integer j);
        integer i, c;
        reg [31:0] v;
        begin
            for (i = 0; i < 32; i = i + 1) begin
                v = 32'd1 << i;
                for (c = 0; c < 8 * bytes; c = c + 1) begin
                    v = zero_unstep(v);
                end
                unstep_row[i] = |(v & (32'd1 << j));
            end
        end
    endfunction

    function [63:0] bytes_of(input [7:0] m);  // lane mask -> bit mask
        integer i;
        begin
            for (i = 0; i < 8; i = i + 1) begin
                bytes_of[8*i +: 8] = {8{m[i]}};
            end
        end
    endfunction

    localparam T_IDLE = 2'd0;
    localparam T_DATA = 2'd1;  // S1 goes out this cycle
    localparam T_TAIL = 2'd2;  // the FCS bytes that did not fit and /T/

    reg  [1:0]  state;
    reg         off4_q;          // the current (or last) frame started on lane 4
    reg  [31:0] vhi_d;           // upper half of the previous virtual word (lane-4 frames)
    reg  [3:0]  vhi_c;

    reg  [63:0] s1_d;            // beat going out next: data (timestamp inserted), zero past the end
    reg  [63:0] s1_od;           // the same without the tentative timestamp bytes
    reg  [7:0]  s1_m;            // its bytes
    reg         s1_last;         // last beat of the frame on the wire
    reg         s1_clast;        // the client's last beat has been taken (padding may follow)
    reg         s1_pend;         // holds the first half of a timestamp that needs the next beat
    reg         s1_bad;          // the client marked the frame bad
    reg  [12:0] s1_b;            // beat index in the frame
    reg  [2:0]  s1_z;            // zero bytes padded in its CRC step
    reg  [31:0] crc1_q;          // CRC state through S1's beat
    reg  [31:0] alt_q;           // data-only CRC of the tentative timestamp bytes in S1

    reg         ts_req_q, ts_done_q;
    reg  [12:0] ts_b0_q;
    reg  [2:0]  ts_r_q;
    reg  [63:0] ts_val_q, ts_hi_q, ts_p0_q, ts_p4_q;

    reg  [63:0] tail_d;
    reg  [7:0]  tail_c;
    reg  [2:0]  tail_k;          // lane of /T/ in the tail word
    reg  [8:0]  ifg_q;           // idle bytes still owed before a start
    reg  [1:0]  dic_q;           // deficit idle count, 0..3
    reg  [18:0] pause_q;         // pause cycles left
    reg         discard_q;       // dropping the rest of an underrun frame

    reg         m1_req_q;        // mode 1: the frame asked for the tester stamp
    reg         m1_act_q;        // ... which is being written
    reg         m1_done_q;       // ... its last byte is written
    reg         m1_stomp_q;      // ... it did not fit after it had begun: stomp the FCS
    reg  [2:0]  m1_r_q;          // offset mod 8
    reg  [3:0]  m1_kb_q;         // beat of the first stamp byte, from the tester header's beat
    reg  [3:0]  m1_ke_q;         // beat of the last stamp byte, from the tester header's beat
    reg  [2:0]  m1_le_q;         // lane of the last stamp byte
    reg  signed [14:0] m1_k_q;   // the beat loaded in this cycle, from the tester header's beat
    reg         m1_beg_q;        // that beat is after the first stamp beat
    reg         m1_eq_q;         // that beat holds the last stamp byte
    reg         m1_gt_q;         // that beat is after it
    reg  [63:0] ov_d;            // stamp bytes for the beat loaded in this cycle ...
    reg  [7:0]  ov_m;            // ... and their lanes
    reg  [17:0] tsum_q;          // csum_adj: sum of the words of tx_time,
    reg  [18:0] csum_s_q;        // ... plus those of tv_sec and tv_usec,
    reg  [16:0] csum_f_q;        // ... folded once

    // ---- control ---------------------------------------------------------------------------------
    wire [7:0]  ifg_cfg     = cfg_tx_ifg < 8'd8 ? 8'd8 : cfg_tx_ifg;
    wire [9:0]  ifg_sum     = {1'b0, ifg_q} + {8'd0, dic_q};
    wire        ifg_ok      = ifg_sum <= 10'd7;
    wire        can_start   = state == T_IDLE && ifg_ok && pause_q == 19'd0 && !discard_q;
    wire        need_client = state == T_DATA && !s1_last && !s1_clast;
    wire        go          = can_start && s_axis_tvalid;
    wire        lane4       = ifg_sum > 10'd3;
    wire        load_client = go || (need_client && s_axis_tvalid);
    wire        load_pad    = state == T_DATA && !s1_last && s1_clast;
    wire        load        = load_client || load_pad;
    wire        underrun    = need_client && !s_axis_tvalid;
    wire [12:0] nb          = go ? 13'd0 : s1_b + 13'd1;

    assign s_axis_tready = can_start || discard_q || need_client;

    // ---- the beat loaded into S1 -----------------------------------------------------------------
    wire [7:0] km;  // tkeep filled below its highest set bit
    genvar j;
    generate
        for (j = 0; j < 8; j = j + 1) begin : g_km
            assign km[j] = |s_axis_tkeep[7:j];
        end
    endgenerate
    wire [7:0]  cm    = s_axis_tlast ? km : 8'hFF;
    wire [7:0]  padm  = nb <= 13'd6 ? 8'hFF : (nb == 13'd7 ? 8'h0F : 8'h00);  // bytes below 60
    wire [7:0]  wm    = load_client ? (cm | padm) : padm;
    wire        wlast = (!load_client || s_axis_tlast) && nb >= 13'd7;
    wire [63:0] wdat  = load_client ? (s_axis_tdata & bytes_of(cm)) : 64'd0;

    // timestamp: big-endian at frame bytes off..off+7, i.e. lanes r..7 of beat b0 and 0..r-1 of b0+1
    wire        treq = go ? s_axis_ts_insert && !s_axis_ts_mode : ts_req_q;
    wire [12:0] tb0  = go ? s_axis_ts_offset[15:3] : ts_b0_q;
    wire [2:0]  tr   = go ? s_axis_ts_offset[2:0] : ts_r_q;
    wire [63:0] tgo  = lane4 ? ts_p4_q : ts_p0_q;  // the time of a frame starting now
    wire [63:0] tval = go ? tgo : ts_val_q;
    wire [63:0] tbe;
    generate
        for (j = 0; j < 8; j = j + 1) begin : g_be
            assign tbe[8*j +: 8] = tval[56 - 8*j +: 8];
        end
    endgenerate
    wire [127:0] tsv     = {64'd0, tbe} << {tr, 3'b000};
    wire         at_b0   = treq && load && nb == tb0;
    wire         b0_fit  = tr == 3'd0 && (!wlast || wm == 8'hFF);  // known to fit now
    wire         b0_pend = tr != 3'd0 && !wlast;                  // fits if the next beat is long enough
    wire         fit1    = load && wm[tr - 3'd1];                 // next beat has >= r bytes
    wire         nofit   = s1_pend && !fit1;                      // restore S1, correct the CRC
    wire [7:0]   hi_l    = 8'hFF << tr;
    wire [7:0]   tsm     = at_b0 ? ((b0_fit || b0_pend) ? hi_l : 8'h00)
                                 : ((s1_pend && fit1) ? ~hi_l : 8'h00);
    wire [63:0]  tsd     = at_b0 ? tsv[63:0] : ts_hi_q;
    // mode 1: the stamp bytes prepared for this beat (ov_d/ov_m), inside the frame; none in the
    // client's last beat when the stamp had not begun before it (it cannot fit there)
    wire         m1_supp = load_client && s_axis_tlast && !go && !m1_beg_q;
    wire [7:0]   om      = ov_m & wm & {8{m1_act_q && !m1_supp && !go}};
    wire [63:0]  ldat    = (wdat & ~bytes_of(tsm | om)) | (tsd & bytes_of(tsm)) | (ov_d & bytes_of(om));

    // CRC: full 64-bit steps; a beat with n < 8 bytes is stepped with 8 - n zero bytes after it
    wire [31:0] crc_prev = nofit ? crc1_q ^ alt_q : crc1_q;
    wire [31:0] crc_base = go ? INIT : crc_prev;
    wire [31:0] crc_full, alt_ld;
    fp_crc32_step #(
        .DATA_WIDTH (64)
    ) u_crc (
        .crc_in  (crc_base),
        .data    (ldat),
        .keep    (8'hFF),
        .crc_out (crc_full)
    );
    fp_crc32_step #(
        .DATA_WIDTH (64)
    ) u_alt (
        .crc_in  (32'd0),
        .data    (ldat ^ wdat),
        .keep    (8'hFF),
        .crc_out (alt_ld)
    );
    reg [2:0] z_ld;  // zero bytes after the wm bytes (0 when wm is empty: the beat is not stepped)
    integer k;
    always @* begin
        z_ld = 3'd0;
        for (k = 1; k < 8; k = k + 1) begin
            if (!wm[k] && wm[0]) begin
                z_ld = z_ld + 3'd1;
            end
        end
    end
    wire [31:0] crc_ld = wm == 8'd0 ? crc_base : crc_full;

    // ---- FCS of S1's state: undo the zero bytes, invert unless stomped ---------------------------
    wire [32*4-1:0] un;  // un[32*s +: 32]: input of stage s
    assign un[31:0] = crc_prev;
    generate
        for (j = 0; j < 3; j = j + 1) begin : g_unstep
            wire [31:0] cur = un[32*j +: 32];
            wire [31:0] back;
            genvar b;
            for (b = 0; b < 32; b = b + 1) begin : g_bit
                localparam [31:0] ROW = unstep_row(1 << j, b);
                assign back[b] = ^(cur & ROW);
            end
            assign un[32*(j+1) +: 32] = s1_z[j] ? back : cur;
        end
    endgenerate
    wire        stomp = !s1_last || s1_bad || m1_stomp_q;  // (not last here = underrun)
    wire [31:0] fcs   = un[127:96] ^ {32{!stomp}};

    // ---- the virtual word (as if the frame started on lane 0) -------------------------------------
    reg  [3:0] n1;  // bytes in S1
    always @* begin
        n1 = 4'd0;
        for (k = 0; k < 8; k = k + 1) begin
            n1 = n1 + {3'd0, s1_m[k]};
        end
    end
    wire [3:0]   n_eff = s1_last ? n1 : 4'd8;
    wire [7:0]   dm    = s1_last ? s1_m : 8'hFF;
    wire [63:0]  s1_o  = nofit ? s1_od : s1_d;
    wire [127:0] t16   = {{11{8'h07}}, 8'hFD, fcs};
    wire [15:0]  c16   = {11'h7FF, 1'b1, 4'h0};
    wire [127:0] tsh   = t16 << {n_eff, 3'b000};
    wire [15:0]  csh   = c16 << n_eff;

    reg  [63:0] vd;
    reg  [7:0]  vc;
    always @* begin
        case (state)
            T_DATA: begin
                vd = (s1_o & bytes_of(dm)) | (tsh[63:0] & ~bytes_of(dm));
                vc = csh[7:0] & ~dm;
            end
            T_TAIL: begin
                vd = tail_d;
                vc = tail_c;
            end
            default: begin
                vd = go ? START_W : IDLE_W;
                vc = go ? 8'h01 : 8'hFF;
            end
        endcase
    end
    wire        off_now = go ? lane4 : off4_q;
    wire        data_end = state == T_DATA && (s1_last || underrun);
    wire        t_now = (state == T_DATA && s1_last && n_eff <= 4'd3) || state == T_TAIL;
    wire [2:0]  t_lane = state == T_TAIL ? tail_k : n_eff[2:0] + 3'd4;
    wire [3:0]  t_pos = {1'b0, t_lane} + (off4_q ? 4'd4 : 4'd0);  // physical, from this word's lane 0
    wire        pause_tick = state == T_IDLE && ifg_ok && pause_q != 19'd0;
    wire [16:0] len_sum = {1'b0, s1_b, 3'b000} + {13'd0, n_eff} + 17'd4;

    // ---- mode 1: the tester stamp --------------------------------------------------------------
    // The SFD time (tval, taken with the first beat) in pktgen seconds + microseconds: there from
    // 5 cycles after the first beat (fp_ts_tod), csum_adj 2 cycles later. The stamp bytes of the
    // beat loaded in cycle c are prepared in cycle c - 1 from the image of the tester header's
    // bytes (8-byte chunks) shifted to the offset's lane.
    wire [31:0] tod_sec, tod_usec;
    /* verilator lint_off PINCONNECTEMPTY */
    fp_ts_tod u_tod (
        .clk(clk), .rst(rst), .in_valid(go), .in_time(tgo),  // tgo = tval when go
        .out_valid(),  // the latency is fixed: the result is there 5 cycles after go, and held
        .out_tv_sec(tod_sec), .out_tv_usec(tod_usec)
    );
    /* verilator lint_on PINCONNECTEMPTY */

    function [31:0] bswap32(input [31:0] x);
        bswap32 = {x[7:0], x[15:8], x[23:16], x[31:24]};
    endfunction

    wire [15:0] csum_fold = csum_f_q[15:0] + {15'd0, csum_f_q[16]};  // end-around carry
    wire [15:0] csum_adj  = csum_fold == 16'hFFFF ? 16'hFFFF : ~csum_fold;  // a sum of 0 (mod 0xFFFF) -> 0xFFFF

    reg  [64*NCH-1:0] img;  // byte i: the stamp byte i bytes after the tester header's first (lane order)
    always @* begin
        img = {64*NCH{1'b0}};
        img[8*F_SEC  +: 32] = bswap32(tod_sec);
        img[8*F_USEC +: 32] = bswap32(tod_usec);
        img[8*F_TX   +: 64] = {bswap32(ts_val_q[31:0]), bswap32(ts_val_q[63:32])};
        img[8*F_CSUM +: 16] = {csum_adj[7:0], csum_adj[15:8]};
    end

    // chunk k (of the next beat) and k - 1
    wire signed [14:0] m1_kn = m1_k_q + 15'sd1;
    reg  [63:0] ch_cur, ch_prev;
    reg  [7:0]  mk_cur, mk_prev;
    always @* begin
        ch_cur  = 64'd0;
        ch_prev = 64'd0;
        mk_cur  = 8'd0;
        mk_prev = 8'd0;
        for (k = 0; k < NCH; k = k + 1) begin
            if (m1_kn == $signed(k[14:0])) begin
                ch_cur = img[64*k +: 64];
                mk_cur = IMASK[8*k +: 8];
            end
            if (m1_kn == $signed(k[14:0]) + 15'sd1) begin
                ch_prev = img[64*k +: 64];
                mk_prev = IMASK[8*k +: 8];
            end
        end
    end
    // lanes 0..7 of the next beat = bytes 8 - r .. 15 - r of {chunk k, chunk k - 1}
    // (lint: the upper halves of the shifted pairs, and the first byte's lane, are not needed)
    /* verilator lint_off UNUSEDSIGNAL */
    wire [3:0]   m1_sh = 4'd8 - {1'b0, m1_r_q};
    wire [127:0] ov_cat = {ch_cur, ch_prev} >> {m1_sh, 3'b000};
    wire [15:0]  om_cat = {mk_cur, mk_prev} >> m1_sh;

    // at the first beat: where the stamp's first and last bytes fall (beat from the header's, lane)
    wire [6:0]  m1_first = {4'd0, s_axis_ts_offset[2:0]} + F_SEC[6:0];
    wire [6:0]  m1_last  = {4'd0, s_axis_ts_offset[2:0]} + F_END[6:0] - 7'd1;
    /* verilator lint_on UNUSEDSIGNAL */
    wire        m1_fits  = m1_gt_q || (m1_eq_q && cm[m1_le_q]);  // at the client's last beat

    always @(posedge clk) begin
        ts_p0_q <= ts_now + ADJ0;
        ts_p4_q <= ts_now + ADJ4;

        xgmii_txd <= off_now ? {vd[31:0], vhi_d} : vd;
        xgmii_txc <= off_now ? {vc[3:0], vhi_c} : vc;
        vhi_d     <= off_now ? vd[63:32] : IDLE_W[31:0];
        vhi_c     <= off_now ? vc[7:4] : 4'hF;

        if (load) begin
            s1_d     <= ldat;
            s1_od    <= wdat;
            s1_m     <= wm;
            s1_last  <= wlast;
            s1_clast <= !load_client || s_axis_tlast;
            s1_b     <= nb;
            s1_z     <= z_ld;
            s1_pend  <= at_b0 && b0_pend;
            crc1_q   <= crc_ld;
            alt_q    <= alt_ld;
            if (load_client) begin
                s1_bad <= s_axis_tlast && s_axis_tuser[0];
            end
            if (at_b0) begin
                ts_hi_q <= tsv[127:64];
            end
            if ((at_b0 && b0_fit) || (s1_pend && fit1)) begin
                ts_done_q <= 1'b1;
            end
        end

        // ---- mode 1 ----
        tsum_q   <= {2'd0, ts_val_q[63:48]} + {2'd0, ts_val_q[47:32]} + {2'd0, ts_val_q[31:16]} +
                    {2'd0, ts_val_q[15:0]};
        csum_s_q <= {1'b0, tsum_q} + {3'd0, tod_sec[31:16]} + {3'd0, tod_sec[15:0]} +
                    {3'd0, tod_usec[31:16]} + {3'd0, tod_usec[15:0]};
        csum_f_q <= {1'b0, csum_s_q[15:0]} + {14'd0, csum_s_q[18:16]};
        m1_k_q   <= m1_kn;
        m1_beg_q <= m1_kn > $signed({11'd0, m1_kb_q});
        m1_eq_q  <= m1_kn == $signed({11'd0, m1_ke_q});
        m1_gt_q  <= m1_kn > $signed({11'd0, m1_ke_q});
        ov_d     <= ov_cat[63:0];
        ov_m     <= m1_act_q ? om_cat[7:0] : 8'd0;
        if (go) begin
            m1_req_q   <= s_axis_ts_insert && s_axis_ts_mode;
            // a one-beat frame cannot hold it: nothing is written
            m1_act_q   <= s_axis_ts_insert && s_axis_ts_mode && s_axis_ts_offset >= MIN_OFF && !s_axis_tlast;
            m1_done_q  <= 1'b0;
            m1_stomp_q <= 1'b0;
            m1_r_q     <= s_axis_ts_offset[2:0];
            m1_kb_q    <= {1'b0, m1_first[5:3]};
            m1_ke_q    <= m1_last[6:3];
            m1_le_q    <= m1_last[2:0];
            m1_k_q     <= 15'sd1 - $signed({2'b00, s_axis_ts_offset[15:3]});
            m1_beg_q   <= 1'b0;
            m1_eq_q    <= 1'b0;
            m1_gt_q    <= 1'b0;
            ov_m       <= 8'd0;
        end else if (load_client && m1_act_q) begin
            if (m1_eq_q && wm[m1_le_q] && !m1_supp) begin
                m1_done_q <= 1'b1;
            end
            if (s_axis_tlast && !m1_fits) begin
                if (m1_beg_q) begin
                    m1_stomp_q <= 1'b1;  // already partly on the wire: finish in the frame, stomp
                end else begin
                    m1_act_q <= 1'b0;    // not begun: not written
                end
            end
        end else if (load && m1_act_q && m1_eq_q && wm[m1_le_q]) begin
            m1_done_q <= 1'b1;
        end

        tx_ts_valid     <= go;
        tx_status_valid <= data_end;
        tx_paused       <= pause_tick;
        if (go) begin
            tx_ts     <= tval;
            ts_val_q  <= tval;
            ts_req_q  <= s_axis_ts_insert && !s_axis_ts_mode;
            ts_b0_q   <= s_axis_ts_offset[15:3];
            ts_r_q    <= s_axis_ts_offset[2:0];
            ts_done_q <= at_b0 && b0_fit;
            off4_q    <= lane4;
        end
        if (data_end) begin
            tx_status_len           <= len_sum[16] ? 16'hFFFF : len_sum[15:0];
            tx_status_stomped       <= s1_last && s1_bad;
            tx_status_underrun      <= underrun;
            tx_status_ts_bad_offset <= (ts_req_q && !ts_done_q) || (m1_req_q && !m1_done_q);
            tail_d <= tsh[127:64];
            tail_c <= csh[15:8];
            tail_k <= n_eff[2:0] - 3'd4;
            s1_pend <= 1'b0;
            m1_act_q <= 1'b0;
        end

        case (state)
            T_IDLE: begin
                if (go) begin
                    state <= T_DATA;
                end
            end
            T_DATA: begin
                if (data_end) begin
                    state <= n_eff >= 4'd4 ? T_TAIL : T_IDLE;
                end
            end
            default: begin
                state <= T_IDLE;
            end
        endcase

        // inter-frame gap with the deficit idle count, counted on the pins' words
        if (t_now) begin
            ifg_q <= {1'b0, ifg_cfg} + {5'd0, t_pos} - 9'd8;
        end else if (state == T_IDLE) begin
            if (!ifg_ok) begin
                if (ifg_q >= 9'd8) begin
                    ifg_q <= ifg_q - 9'd8;
                end else begin
                    dic_q <= ifg_sum[1:0];  // = dic + ifg - 8, 0..2
                    ifg_q <= 9'd0;
                end
            end else if (go) begin
                dic_q <= ifg_sum[1:0];  // dic + ifg, - 4 on lane 4 (then the sum is 4..7): 0..3
                ifg_q <= 9'd0;
            end else begin
                dic_q <= 2'd0;
                ifg_q <= 9'd0;
            end
        end

        if (pause_valid) begin
            pause_q <= {pause_quanta, 3'b000};
        end else if (pause_tick) begin
            pause_q <= pause_q - 19'd1;
        end

        if (state == T_DATA && underrun) begin
            discard_q <= 1'b1;
        end else if (discard_q && s_axis_tvalid && s_axis_tlast) begin
            discard_q <= 1'b0;
        end

        if (rst) begin
            state           <= T_IDLE;
            off4_q          <= 1'b0;
            xgmii_txd       <= IDLE_W;
            xgmii_txc       <= 8'hFF;
            vhi_d           <= IDLE_W[31:0];
            vhi_c           <= 4'hF;
            s1_pend         <= 1'b0;
            m1_req_q        <= 1'b0;
            m1_act_q        <= 1'b0;
            m1_stomp_q      <= 1'b0;
            ov_m            <= 8'd0;
            ifg_q           <= 9'd0;
            dic_q           <= 2'd0;
            pause_q         <= 19'd0;
            discard_q       <= 1'b0;
            tx_ts_valid     <= 1'b0;
            tx_status_valid <= 1'b0;
            tx_paused       <= 1'b0;
        end
    end

endmodule

`default_nettype wire
