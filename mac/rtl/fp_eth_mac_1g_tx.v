// fp_eth_mac_1g_tx: 1G Ethernet transmit MAC, GMII (8 bits per clk_en) or MII (4 bits per clk_en).
//
// Takes a frame without FCS on s_axis (one byte per beat) and sends preamble (7 x 0x55), SFD,
// the frame, zero padding up to 60 bytes and the FCS, then at least cfg_tx_ifg idle bytes.
// Every clk_en cycle launches one GMII byte or one MII nibble (mii_select = 1: low nibble first,
// on gmii_txd[3:0]); 125 MHz with clk_en always 1 is 1000 Mb/s, clk_en one cycle in 5 (50) with
// mii_select = 1 is 100 (10) Mb/s. All outputs are registers (the IOB flops).
//
// s_axis_tready is combinational: high in the clk_en cycles in which a data byte is due on the
// wire (and while the rest of an underrun frame is discarded). The client must keep tvalid high
// from the first beat to tlast; a cycle without tvalid when a byte is due is an underrun. As
// AXI4-Stream requires, the first beat (with its sideband s_axis_ts_*) stays as offered from its
// first tvalid until it is taken: the MAC reads the sideband during the preamble.
//
// Timestamps. The SFD (GMII: the 0xD5 byte; MII: the 0xD nibble) is on the pins in the cycle
// that begins with its launch edge. ts_now of that cycle is reported on tx_ts with a one-cycle
// tx_ts_valid (one per frame, in order, one cycle after the launch edge) and, when the first beat
// had s_axis_ts_insert = 1, written big-endian over frame bytes s_axis_ts_offset .. +7 (counted
// from the first DA byte, padding included); the FCS covers the modified bytes. With ts_now
// aligned so that it reads the time of edge k after edge k, the stamp is the time of the SFD's
// launch edge.
//
// Tester stamp: s_axis_ts_insert = 1 with s_axis_ts_mode = 1 (first beat; mode 0 is the 8-byte
// insertion above, mode is ignored without ts_insert) takes s_axis_ts_offset as the offset of a
// packet-train tester header (ptrain/rtl/ptrain.fmt.toml, fp_ptrain.vh) and writes, for the same
// SFD time T, the four fields the MAC owns there, big-endian, at header offset + the FP_PTRAIN_
// TESTER_*_OFF of each: tv_sec (+8, floor(ns / 10^9) mod 2^32, ns = T[63:16]), tv_usec (+12,
// floor((ns mod 10^9) / 1000)), tx_time (+32, T) and csum_adj (+40, the ones' complement of the
// ones'-complement sum of those 8 16-bit words, 0xFFFF for a zero sum), so a UDP checksum computed
// over the frame with those fields at 0 stays valid. Bytes +16..+31 pass through. fp_ts_tod
// converts T from the SFD cycle on: tv fields 5 cycles later, csum_adj 7 (both in the stamp shift
// register before the first stamp byte is due: GMII, byte off + 8 >= 8 is due 8 cycles after the
// SFD cycle at the earliest; MII later), so every offset works.
//
// Latency (first s_axis_tvalid sampled by an idle MAC -> SFD launched on the pins, clk cycles):
//   GMII: 7 cycles (56 ns at 125 MHz): the 7 preamble bytes; the first byte is launched at the
//         edge that samples tvalid, the SFD 7 edges later. The first data byte is taken 1 cycle
//         after the SFD edge. Nothing is added: the preamble hides the whole start-up.
//   MII:  15 * P cycles when tvalid is first sampled at a clk_en edge (15 nibbles of preamble and
//         SFD before the 0xD nibble; 600 ns at 100 Mb/s, 6 us at 10 Mb/s), up to P - 1 more
//         otherwise (the wait for the next clk_en).
//   Idle means: no frame in progress, the IFG after the previous frame elapsed, no pause running.
// Throughput: line rate: 7 + 1 + max(len, 60) + 4 + cfg_tx_ifg byte times per frame when the
//   client keeps s_axis_tvalid high; cfg_tx_ifg (values below 1 act as 1) is honoured exactly.
// Pause: pause_valid loads quanta x 64 byte times (512 bit times) into the pause counter, which
//   counts down only while the MAC is idle after the IFG: a frame in progress finishes, then
//   nothing starts until the count is 0. A new pause restarts the count; quanta 0 ends it at once.
//   stat_tx_paused_cycles counts the clk cycles in which the pause counter held the MAC idle.
// Bad input:
//   - tuser[0] = 1 on the tlast beat: the frame leaves with an inverted FCS (stomped), counted in
//     stat_tx_stomped.
//   - Underrun (tvalid low when a data byte is due): the 4 stomped FCS bytes follow at once (no
//     padding), stat_tx_underrun counts it, and the rest of the client's frame is accepted at
//     once (tready high) and discarded up to its tlast.
//   - A timestamp window that does not fit in the frame after padding (offset + 8 > max(len, 60);
//     tester stamp: offset + 42 > max(len, 60), the window being bytes offset + 8 .. + 41)
//     counts in stat_tx_ts_bad_offset. If it starts at or after the client's last byte nothing
//     is written. If it starts inside the client's data, its first bytes are already on the wire
//     when tlast shows that it does not fit: they stay, the window is written up to the end of
//     the padded frame and the FCS is stomped, so no receiver takes a half-written stamp.
//   - s_axis_tkeep is ignored (8-bit stream: every beat carries its byte).
// Counters: 32-bit frame counters; stat_tx_bytes (64 bits) = bytes on the wire after the SFD,
//   padding and FCS included; stat_tx_paused_cycles 64 bits. They update 1 cycle after the edge
//   that launches the last FCS byte (stat_tx_ts_bad_offset: after tlast; stat_tx_underrun: after
//   the underrun); their events are registered before the adders.
// Parameters: none.
`default_nettype none
`include "fp_ptrain.vh"

module fp_eth_mac_1g_tx (
    input  wire        clk,
    input  wire        rst,
    input  wire        clk_en,
    input  wire        mii_select,

    input  wire [7:0]  s_axis_tdata,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [0:0]  s_axis_tkeep,      // an 8-bit beat always carries its byte: ignored
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire        s_axis_tvalid,
    output wire        s_axis_tready,
    input  wire        s_axis_tlast,
    input  wire [0:0]  s_axis_tuser,
    input  wire        s_axis_ts_insert,
    input  wire        s_axis_ts_mode,
    input  wire [15:0] s_axis_ts_offset,

    output reg  [7:0]  gmii_txd,
    output reg         gmii_tx_en,
    output wire        gmii_tx_er,

    input  wire [63:0] ts_now,
    output reg  [63:0] tx_ts,
    output reg         tx_ts_valid,

    input  wire        pause_valid,
    input  wire [15:0] pause_quanta,

    input  wire [7:0]  cfg_tx_ifg,

    output reg  [31:0] stat_tx_frames,
    output reg  [63:0] stat_tx_bytes,
    output reg  [31:0] stat_tx_stomped,
    output reg  [31:0] stat_tx_underrun,
    output reg  [31:0] stat_tx_ts_bad_offset,
    output reg  [63:0] stat_tx_paused_cycles
);

    // Tester stamp (mode 1): field offsets from the tester header's first byte (ptrain.fmt.toml).
    // The fields are written in this order from a shift register: the layout must keep it.
    localparam integer F_SEC  = `FP_PTRAIN_TESTER_TV_SEC_OFF;
    localparam integer F_USEC = `FP_PTRAIN_TESTER_TV_USEC_OFF;
    localparam integer F_TX   = `FP_PTRAIN_TESTER_TX_TIME_OFF;
    localparam integer F_CSUM = `FP_PTRAIN_TESTER_CSUM_ADJ_OFF;
    localparam integer F_END  = F_CSUM + `FP_PTRAIN_TESTER_CSUM_ADJ_LEN;  // past the last byte written
    localparam integer LE_MAX_I = 60 - F_END;  // offsets up to this fit in 60 bytes whatever the length
    // the same as ranges of the d (= offset - byte index) of the byte due now, for the next one
    localparam integer D_SEC_I  = 1 - F_SEC;
    localparam integer D_USEC_I = 1 - F_USEC;
    localparam integer D_TX_I   = 1 - F_TX;
    localparam integer D_CSUM_I = 1 - F_CSUM;
    localparam integer D_LAST_I = 2 - F_END;
    localparam [15:0]        LE_MAX = LE_MAX_I[15:0];

    // The mode-1 flags of d as 128-entry patterns over its 7-bit two's complement (index = d mod
    // 128 for d in [-64, 63]): in a stamp field, at or past the first (d <= D_SEC_I), at or past
    // the last (d <= D_LAST_I).
    function [127:0] d_pattern(input integer which);
        integer i, d;
        begin
            d_pattern = 128'd0;
            for (i = 0; i < 128; i = i + 1) begin
                d = (i < 64) ? i : i - 128;
                if (which == 0)
                    d_pattern[i] = (d <= D_SEC_I && d >= D_SEC_I - 3) || (d <= D_USEC_I && d >= D_USEC_I - 3) ||
                                   (d <= D_TX_I && d >= D_TX_I - 7) || (d <= D_CSUM_I && d >= D_LAST_I);
                else if (which == 1)
                    d_pattern[i] = d <= D_SEC_I;
                else
                    d_pattern[i] = d <= D_LAST_I;
            end
        end
    endfunction
    localparam [127:0] W1_PAT   = d_pattern(0);
    localparam [127:0] BEG1_PAT = d_pattern(1);
    localparam [127:0] LAST_PAT = d_pattern(2);

    generate
        if (D_SEC_I > 63 || D_LAST_I < -64) begin : g_bad_bounds
            PARAMETER_ERROR_tester_stamp_bounds_outside_minus_64_to_63 u_error();
        end
        if (`FP_PTRAIN_TESTER_TV_SEC_LEN != 4 || `FP_PTRAIN_TESTER_TV_USEC_LEN != 4 ||
            `FP_PTRAIN_TESTER_TX_TIME_LEN != 8 || `FP_PTRAIN_TESTER_CSUM_ADJ_LEN != 2 ||
            F_SEC < 1 || F_USEC < F_SEC + 4 || F_TX < F_USEC + 4 || F_CSUM < F_TX + 8 || F_END > 60) begin : g_bad_fmt
            PARAMETER_ERROR_ptrain_tester_fields_not_sec_usec_tx_time_csum_adj_in_order u_error();
        end
    endgenerate

    localparam [2:0] S_IDLE = 3'd0;  // IFG, pause, or waiting for a frame
    localparam [2:0] S_PRE  = 3'd1;  // preamble bytes 2..7 and the SFD
    localparam [2:0] S_DATA = 3'd2;  // client bytes
    localparam [2:0] S_PAD  = 3'd3;  // zero padding up to 60 bytes
    localparam [2:0] S_FCS  = 3'd4;  // the 4 FCS bytes

    assign gmii_tx_er = 1'b0;

    reg  [2:0]  state_q;
    reg         phase_q;      // MII: the high nibble of the current byte is due at the next clk_en
    reg  [3:0]  hi_q;
    reg         sfd_hi_q;     // MII: that high nibble is the SFD's 0xD
    reg         sfd_q;        // the SFD was launched at the last edge
    reg         sfd_due_q;    // PRE: the byte due now is the SFD (cnt_q == 7)
    reg  [15:0] cnt_q;        // PRE: preamble bytes sent; DATA/PAD: frame bytes sent (saturating)
    reg  [1:0]  fcs_i_q;
    reg  [31:0] crc_q;
    reg  [7:0]  ifg_q;
    reg  [21:0] pause_q;
    reg         ifz_q, pz_q;  // ifg_q == 0, pause_q == 0 (registered with them)
    reg         stomp_q;      // send the inverted FCS
    reg         user_bad_q;   // stomped because of tuser (counted at the end)
    reg         ins_q;
    reg  [17:0] dm_q;         // offset - index of the byte after the one due now (signed)
    reg  [2:0]  nrel_q;       // -dm_q mod 8: that byte's index in the 8-byte window
    reg         pw_q, pb_q, pf_q; // pw, pb, pf (below) of dm_q, for that byte
    reg         rw1_q, rbeg1_q, rlast_q;  // mode 1: the compares of n_w1, n_beg1, n_fit1, a byte ahead
    reg         le52_q;       // the offset is <= 52: the window fits whatever the length
    reg  [63:0] ts_q;
    reg         discard_q;    // swallowing the rest of an underrun frame
    reg         first_q;      // in DATA, the first client byte is due
    reg         st_q;         // the byte due now (cnt_q, not the first) is a stamp byte written ...
    reg  [7:0]  stb_q;        // ... this one (of the SFD time, mode 0, or of the stamp register)
    reg         fits_q;       // the window fits if the byte due now is the client's last
    reg         begun_q;      // the window begins at or before the byte due now
    reg         m1_q;         // tester stamp (mode 1) for this frame
    reg         w1_q;         // mode 1: the byte due now is a stamp byte (and written) ...
    reg         beg1_q;       // ... the first stamp byte is at or before it
    reg         fit1_q;       // ... the stamp fits if it is the client's last
    reg         le_q;         // mode 1: the stamp fits in 60 bytes whatever the length
    reg  [143:0] sr_q;        // mode 1: the stamp bytes in wire order (tv_sec, tv_usec, tx_time, csum_adj)
    reg  [17:0] tsum_q;       // sum of the 16-bit words of ts_q
    reg  [18:0] csum_s_q;     // ... plus those of tv_sec and tv_usec
    reg  [15:0] csum_f_q;     // ... folded (end-around carries included)
    reg  [1:0]  tod_d_q;      // the conversion's result arrived 1, 2 cycles ago
    reg         ev_done_q, ev_user_q, ev_under_q, ev_tsbad_q, ev_paused_q;
    reg  [16:0] ev_bytes_q;   // counter events, one cycle before the counters move
    // The first beat's sideband, registered in every cycle: it is stable from the cycle the frame
    // starts (tvalid held, AXI4-Stream) through the preamble to the first data byte, so the flags
    // of the first byte come from registers, not from the client's ports.
    reg         f_ins0_q, f_ins1_q, f_offz_q, f_le52_q, f_le_q;
    reg  [17:0] f_d1_q, f_d2_q;   // offset - 1, offset - 2
    reg  [2:0]  f_rel_q;          // (1 - offset) mod 8
    reg         f_pw_q, f_pb_q, f_pf_q;     // pw, pb, pf of offset - 1 (the second byte's)
    reg         f2_pw_q, f2_pb_q, f2_pf_q;  // ... of offset - 2 (the third byte's)

    wire byte_step = clk_en && !(mii_select && phase_q);
    wire nib_step  = clk_en && mii_select && phase_q;

    assign s_axis_tready = discard_q || (state_q == S_DATA && byte_step);

    // ---- the byte due now ----------------------------------------------------------------------
    // The timestamp window flags of the byte due now come from registers prepared when the
    // previous byte went out (for the first byte, from the sideband registered during the
    // preamble), so no adder or comparator sits in front of the CRC, and no client sideband.
    wire        first     = first_q;                               // DATA, no byte taken yet
    wire        ins0_in   = f_ins0_q;                              // first beat: 8-byte insertion
    wire        ins1_in   = f_ins1_q;                              // first beat: tester stamp
    wire        ins_now   = first ? ins0_in : ins_q;
    wire        off_zero  = f_offz_q;
    wire        le52_now  = first ? f_le52_q : le52_q;             // fits in 60 bytes
    // mode 1: byte 0 is never a stamp byte (F_SEC >= 1)
    wire        m1_now    = first ? ins1_in : m1_q;
    wire        le_now    = first ? f_le_q : le_q;
    wire        fit1_now  = first ? le_now : fit1_q;
    wire        beg1_now  = !first && beg1_q;
    wire        w1_now    = !first && w1_q;
    wire        ts_fits   = first ? le52_now : fits_q;             // if this byte is the last
    wire        ts_start  = first ? off_zero : begun_q;            // window already begun
    // The byte to send and to put in the CRC: for the first byte, the client's or (offset 0) the
    // SFD time's first byte, which is due in the SFD cycle itself (GMII), before ts_q holds it;
    // after it, the stamp byte prepared with the flags (st_q, stb_q), the client's, or padding.
    wire [7:0]  ts_byte0  = sfd_q ? ts_now[63:56] : ts_q[63:56];
    wire [63:0] ts_cur    = sfd_q ? ts_now : ts_q;                 // the SFD time, for stb_q
    wire [7:0]  data_byte = first ? ((ins0_in && off_zero) ? ts_byte0 : s_axis_tdata) :
                            st_q ? stb_q : (state_q == S_PAD ? 8'h00 : s_axis_tdata);
    wire [31:0] fcs_word  = stomp_q ? crc_q : ~crc_q;
    wire [7:0]  fcs_byte  = fcs_word[8 * fcs_i_q +: 8];
    wire [7:0]  stomp0    = crc_q[7:0];                            // first stomped FCS byte

    wire [31:0] crc_next;
    fp_crc32_step #(.DATA_WIDTH(8)) u_crc (
        .crc_in(crc_q), .data(data_byte), .keep(1'b1), .crc_out(crc_next)
    );

    wire        take      = state_q == S_DATA && byte_step && s_axis_tvalid;
    wire        take_last = take && s_axis_tlast;
    wire        ts_bad0   = take_last && ins_now && !ts_fits;
    wire        ts_bad1   = take_last && m1_now && !fit1_now;
    wire        ts_bad    = ts_bad0 || ts_bad1;
    wire        underrun  = state_q == S_DATA && byte_step && !s_axis_tvalid;
    wire        frame_done = state_q == S_FCS && byte_step && fcs_i_q == 2'd3;
    wire        can_start = ifz_q && pz_q && s_axis_tvalid && !discard_q;
    wire [15:0] cnt_inc   = (cnt_q == 16'hFFFF) ? cnt_q : cnt_q + 16'd1;

    // Window flags of the next byte (index n = cnt_q + 1), registered when this one goes out,
    // from d = offset - n (a down-counter): in the window for d = -7 .. 0 (index -d), begun for
    // d <= 0, and the window fits if that byte is the last for offset <= 52 or d <= -7.
    wire [17:0] dist_next = first ? f_d1_q : dm_q;                 // registers, no adder
    wire [17:0] dm_next   = first ? f_d2_q : dm_q - 18'd1;
    // (registered a byte ahead: on dm_q's next value dm_q - 1, as compares of dm_q with the
    // bounds moved by one, or from the first beat's offset)
    function pw(input [17:0] d);  // in the window
        pw = d == 18'd0 || (&d[17:3] && d[2:0] != 3'd0);
    endfunction
    function pb(input [17:0] d);  // begun
        pb = d[17] || d == 18'd0;
    endfunction
    function pf(input [17:0] d);  // fits (unless the offset is <= 52)
        pf = d[17] && !(&d[17:3] && d[2:0] >= 3'd2);
    endfunction
    wire        n_begun   = first ? f_pb_q : pb_q;
    wire        n_win     = first ? f_pw_q : pw_q;
    wire [2:0]  n_rel     = first ? f_rel_q : nrel_q;             // -dist_next mod 8
    wire        n_fits    = le52_now || (first ? f_pf_q : pf_q);
    wire signed [17:0] dms = dm_q;
    wire        pw_next   = first ? f2_pw_q : (dms >= -18'sd6 && dms <= 18'sd1);  // pw(dm_q - 1)
    wire        pb_next   = first ? f2_pb_q : dms <= 18'sd1;                       // pb(dm_q - 1)
    wire        pf_next   = first ? f2_pf_q : dms <= -18'sd6;                      // pf(dm_q - 1)
    // mode 1: the next byte (d = dist_next - 1 = offset - 1 - n; after the first byte) is a stamp
    // byte, the stamp has begun at it, and fits if it is the client's last. The compares are made
    // on dist_next a byte ahead (D_*_I are the bounds + 1, as patterns over d mod 128) and registered (rw1_q, rbeg1_q, rlast_q),
    // so only registers reach the flags.
    // Every bound lies in [-64, 63] (the fields end by byte 60), so each compare is a 7-bit
    // pattern lookup on d[6:0] (d = dist_next) when d's upper bits are a sign extension (dn_small), and the
    // sign alone otherwise: LUTs only, no carry chain between dm_q and the flags.
    wire        dn_small  = (dist_next[17:6] == 12'd0) || (&dist_next[17:6]);
    wire        r_w1      = dn_small && W1_PAT[dist_next[6:0]];
    wire        r_beg1    = dn_small ? BEG1_PAT[dist_next[6:0]] : dist_next[17];   // d <= D_SEC_I
    wire        r_last    = dn_small ? LAST_PAT[dist_next[6:0]] : dist_next[17];   // d <= D_LAST_I
    wire        n_w1      = !first && rw1_q;
    wire        n_beg1    = !first && rbeg1_q;
    wire        n_fit1    = le_now || (!first && rlast_q);
    // the window / stamp is still to be written after this byte (a tlast that shows it does not fit
    // and has not begun cancels it), so the next byte's flags include it
    wire        ins_next  = ins_now && !(ts_bad0 && !ts_start);
    wire        m1_next   = m1_now && !(ts_bad1 && !beg1_now);
    // the next byte's stamp byte: the SFD time's byte n_rel (mode 0), or the stamp register's
    // first byte after this step (mode 1; the register is loaded long before its first byte)
    wire        sr_shift  = w1_now && byte_step && (state_q == S_PAD || (state_q == S_DATA && s_axis_tvalid));
    wire [7:0]  n_sr      = sr_shift ? sr_q[135:128] : sr_q[143:136];
    wire [7:0]  n_stb     = m1_now ? n_sr : ts_cur[8 * (3'd7 - n_rel) +: 8];  // modes exclude each other

    // mode 1: the SFD time in pktgen seconds + microseconds (the conversion starts with sfd_q,
    // its result is there 5 cycles later), and csum_adj = ~(ones'-complement sum of the words)
    wire        tod_valid;
    wire [31:0] tod_sec, tod_usec;
    fp_ts_tod u_tod (
        .clk(clk), .rst(rst), .in_valid(sfd_q), .in_time(ts_now),
        .out_valid(tod_valid), .out_tv_sec(tod_sec), .out_tv_usec(tod_usec)
    );
    // the fold of csum_s_q with its end-around carry: s[15:0] + s[18:16], plus 1 if that carries
    // out (it then is <= 6, so no second carry); both sums in parallel, then a 2:1 choice
    wire [16:0] csum_a    = {1'b0, csum_s_q[15:0]} + {14'd0, csum_s_q[18:16]};
    wire [15:0] csum_b    = csum_s_q[15:0] + {13'd0, csum_s_q[18:16]} + 16'd1;
    wire [15:0] csum_adj  = csum_f_q == 16'hFFFF ? 16'hFFFF : ~csum_f_q;  // a sum of 0 (mod 0xFFFF) -> 0xFFFF

    // the byte to launch at this byte step (GMII) or its low nibble (MII)
    reg        send;
    reg  [7:0] send_byte;
    always @(*) begin
        send      = 1'b1;
        send_byte = 8'h55;
        case (state_q)
            S_IDLE:  send = byte_step && can_start;
            S_PRE:   send_byte = sfd_due_q ? 8'hD5 : 8'h55;
            S_DATA:  send_byte = s_axis_tvalid ? data_byte : stomp0;
            S_PAD:   send_byte = data_byte;
            default: send_byte = fcs_byte;
        endcase
    end

    always @(posedge clk) begin
        sfd_q       <= 1'b0;
        tx_ts_valid <= 1'b0;

        // ---- wire side ----
        if (nib_step) begin
            gmii_txd <= {4'h0, hi_q};
            phase_q  <= 1'b0;
            if (sfd_hi_q) begin
                sfd_q <= 1'b1;
            end
            sfd_hi_q <= 1'b0;
        end else if (byte_step) begin
            if (send) begin
                gmii_txd   <= mii_select ? {4'h0, send_byte[3:0]} : send_byte;
                gmii_tx_en <= 1'b1;
                hi_q       <= send_byte[7:4];
                phase_q    <= mii_select;
                if (state_q == S_PRE && sfd_due_q) begin
                    sfd_q    <= !mii_select;
                    sfd_hi_q <= mii_select;
                end
            end else begin
                gmii_txd   <= 8'h00;
                gmii_tx_en <= 1'b0;
                hi_q       <= 4'h0;
                // keep counting whole bytes (2 nibbles) through the IFG and the pause
                phase_q    <= mii_select && !(ifz_q && pz_q);
            end
        end

        // ---- frame state ----
        if (byte_step) begin
            case (state_q)
                S_IDLE: begin
                    if (!ifz_q) begin
                        ifg_q <= ifg_q - 8'd1;
                        ifz_q <= ifg_q == 8'd1;
                    end else if (!pz_q) begin
                        pause_q <= pause_q - 22'd1;
                        pz_q    <= pause_q == 22'd1;
                    end else if (can_start) begin
                        state_q <= S_PRE;
                        cnt_q   <= 16'd1;
                    end
                end
                S_PRE: begin
                    sfd_due_q <= cnt_q == 16'd6;
                    if (sfd_due_q) begin
                        state_q    <= S_DATA;
                        first_q    <= 1'b1;
                        cnt_q      <= 16'd0;
                        crc_q      <= 32'hFFFFFFFF;
                        stomp_q    <= 1'b0;
                        user_bad_q <= 1'b0;
                    end else begin
                        cnt_q <= cnt_q + 16'd1;
                    end
                end
                S_DATA: begin
                    first_q <= 1'b0;
                    if (s_axis_tvalid) begin
                        crc_q   <= crc_next;
                        cnt_q   <= cnt_inc;
                        rw1_q   <= r_w1;
                        rbeg1_q <= r_beg1;
                        rlast_q <= r_last;
                        dm_q    <= dm_next;
                        nrel_q  <= 3'd0 - dm_next[2:0];
                        pw_q    <= pw_next;
                        pb_q    <= pb_next;
                        pf_q    <= pf_next;
                        st_q    <= (n_win && ins_next) || (n_w1 && m1_next);
                        stb_q   <= n_stb;
                        fits_q  <= n_fits;
                        begun_q <= n_begun;
                        w1_q    <= n_w1 && m1_next;
                        beg1_q  <= n_beg1;
                        fit1_q  <= n_fit1;
                        if (first) begin
                            ins_q  <= ins0_in;
                            le52_q <= le52_now;
                            m1_q   <= ins1_in;
                            le_q   <= le_now;
                        end
                        if (s_axis_tlast) begin
                            stomp_q    <= s_axis_tuser[0] || (ts_bad0 && ts_start) || (ts_bad1 && beg1_now);
                            user_bad_q <= s_axis_tuser[0];
                            if (ts_bad0 && !ts_start) begin
                                ins_q <= 1'b0;  // the window would fall past the end: not written
                            end
                            if (ts_bad1 && !beg1_now) begin
                                m1_q <= 1'b0;   // the stamp would not fit and has not begun: not written
                            end
                            fcs_i_q <= 2'd0;
                            state_q <= cnt_q < 16'd59 ? S_PAD : S_FCS;
                        end
                    end else begin
                        // underrun: the first stomped FCS byte goes out now
                        stomp_q   <= 1'b1;
                        fcs_i_q   <= 2'd1;
                        state_q   <= S_FCS;
                    end
                end
                S_PAD: begin
                    crc_q   <= crc_next;
                    cnt_q   <= cnt_inc;
                    rw1_q   <= r_w1;
                    rbeg1_q <= r_beg1;
                    rlast_q <= r_last;
                    dm_q    <= dm_next;
                    nrel_q  <= 3'd0 - dm_next[2:0];
                    pw_q    <= pw_next;
                    pb_q    <= pb_next;
                    pf_q    <= pf_next;
                    st_q    <= (n_win && ins_q) || (n_w1 && m1_q);
                    stb_q   <= n_stb;
                    w1_q    <= n_w1 && m1_q;
                    if (cnt_q == 16'd59) begin
                        state_q <= S_FCS;
                    end
                end
                default: begin  // S_FCS
                    fcs_i_q <= fcs_i_q + 2'd1;
                    if (fcs_i_q == 2'd3) begin
                        state_q <= S_IDLE;
                        ifg_q   <= (cfg_tx_ifg == 8'd0) ? 8'd1 : cfg_tx_ifg;
                        ifz_q   <= 1'b0;
                    end
                end
            endcase
        end

        // ---- the first beat's sideband (see f_*_q) ----
        f_ins0_q <= s_axis_ts_insert && !s_axis_ts_mode;
        f_ins1_q <= s_axis_ts_insert && s_axis_ts_mode;
        f_offz_q <= s_axis_ts_offset == 16'd0;
        f_le52_q <= s_axis_ts_offset <= 16'd52;
        f_le_q   <= s_axis_ts_offset <= LE_MAX;
        f_d1_q   <= {2'b00, s_axis_ts_offset} - 18'd1;
        f_d2_q   <= {2'b00, s_axis_ts_offset} - 18'd2;
        f_rel_q  <= 3'd1 - s_axis_ts_offset[2:0];
        f_pw_q   <= pw({2'b00, s_axis_ts_offset} - 18'd1);
        f_pb_q   <= pb({2'b00, s_axis_ts_offset} - 18'd1);
        f_pf_q   <= pf({2'b00, s_axis_ts_offset} - 18'd1);
        f2_pw_q  <= pw({2'b00, s_axis_ts_offset} - 18'd2);
        f2_pb_q  <= pb({2'b00, s_axis_ts_offset} - 18'd2);
        f2_pf_q  <= pf({2'b00, s_axis_ts_offset} - 18'd2);

        // ---- timestamp of the SFD ----
        if (sfd_q) begin
            ts_q        <= ts_now;
            tx_ts       <= ts_now;
            tx_ts_valid <= 1'b1;
        end

        // ---- mode 1: the stamp bytes (sfd_q in cycle T: tv fields loaded at the end of T + 5,
        // csum_adj at the end of T + 7; the first stamp byte is due in T + 8 at the earliest) ----
        tsum_q   <= {2'd0, ts_q[63:48]} + {2'd0, ts_q[47:32]} + {2'd0, ts_q[31:16]} + {2'd0, ts_q[15:0]};
        csum_s_q <= {1'b0, tsum_q} + {3'd0, tod_sec[31:16]} + {3'd0, tod_sec[15:0]} +
                    {3'd0, tod_usec[31:16]} + {3'd0, tod_usec[15:0]};
        csum_f_q <= csum_a[16] ? csum_b : csum_a[15:0];
        tod_d_q  <= {tod_d_q[0], tod_valid};
        if (tod_valid) begin
            sr_q[143:16] <= {tod_sec, tod_usec, ts_q};
        end else if (sr_shift) begin
            sr_q <= {sr_q[135:0], 8'h00};
        end
        if (tod_d_q[1]) begin
            sr_q[15:0] <= csum_adj;
        end

        // ---- discard after an underrun ----
        if (underrun) begin
            discard_q <= 1'b1;
        end else if (discard_q && s_axis_tvalid && s_axis_tlast) begin
            discard_q <= 1'b0;
        end

        // ---- pause (after the byte step, so a new pause wins over the count down) ----
        if (pause_valid) begin
            pause_q <= {pause_quanta, 6'd0};
            pz_q    <= pause_quanta == 16'd0;
        end

        // ---- counters: the events are registered first, the adders run in the next cycle ----
        ev_done_q   <= frame_done;
        ev_bytes_q  <= {1'b0, cnt_q} + 17'd4;
        ev_user_q   <= user_bad_q;
        ev_under_q  <= underrun;
        ev_tsbad_q  <= ts_bad;
        ev_paused_q <= state_q == S_IDLE && ifz_q && !pz_q;
        if (ev_done_q) begin
            stat_tx_frames  <= stat_tx_frames + 32'd1;
            stat_tx_bytes   <= stat_tx_bytes + {47'd0, ev_bytes_q};
            stat_tx_stomped <= stat_tx_stomped + {31'd0, ev_user_q};
        end
        if (ev_under_q) begin
            stat_tx_underrun <= stat_tx_underrun + 32'd1;
        end
        if (ev_tsbad_q) begin
            stat_tx_ts_bad_offset <= stat_tx_ts_bad_offset + 32'd1;
        end
        if (ev_paused_q) begin
            stat_tx_paused_cycles <= stat_tx_paused_cycles + 64'd1;
        end

        if (rst) begin
            state_q               <= S_IDLE;
            phase_q               <= 1'b0;
            hi_q                  <= 4'h0;
            sfd_hi_q              <= 1'b0;
            sfd_q                 <= 1'b0;
            sfd_due_q             <= 1'b0;
            cnt_q                 <= 16'd0;
            fcs_i_q               <= 2'd0;
            crc_q                 <= 32'hFFFFFFFF;
            ifg_q                 <= 8'd0;
            pause_q               <= 22'd0;
            ifz_q                 <= 1'b1;
            pz_q                  <= 1'b1;
            stomp_q               <= 1'b0;
            user_bad_q            <= 1'b0;
            ins_q                 <= 1'b0;
            rw1_q                 <= 1'b0;
            rbeg1_q               <= 1'b0;
            rlast_q               <= 1'b0;
            dm_q                  <= 18'd0;
            nrel_q                <= 3'd0;
            pw_q                  <= 1'b0;
            pb_q                  <= 1'b0;
            pf_q                  <= 1'b0;
            le52_q                <= 1'b0;
            ts_q                  <= 64'd0;
            discard_q             <= 1'b0;
            first_q               <= 1'b0;
            st_q                  <= 1'b0;
            stb_q                 <= 8'd0;
            fits_q                <= 1'b0;
            begun_q               <= 1'b0;
            m1_q                  <= 1'b0;
            w1_q                  <= 1'b0;
            beg1_q                <= 1'b0;
            fit1_q                <= 1'b0;
            le_q                  <= 1'b0;
            tod_d_q               <= 2'd0;
            ev_done_q             <= 1'b0;
            ev_under_q            <= 1'b0;
            ev_tsbad_q            <= 1'b0;
            ev_paused_q           <= 1'b0;
            gmii_txd              <= 8'h00;
            gmii_tx_en            <= 1'b0;
            tx_ts                 <= 64'd0;
            tx_ts_valid           <= 1'b0;
            stat_tx_frames        <= 32'd0;
            stat_tx_bytes         <= 64'd0;
            stat_tx_stomped       <= 32'd0;
            stat_tx_underrun      <= 32'd0;
            stat_tx_ts_bad_offset <= 32'd0;
            stat_tx_paused_cycles <= 64'd0;
        end
    end

endmodule

`default_nettype wire
