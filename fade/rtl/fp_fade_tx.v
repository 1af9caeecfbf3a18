// fp_fade_tx: FADE-10G frame builder (the paper's Ethernet Sender) with delay adaptation.
//
// Between frames it takes, in this order: a packet from the descriptor manager (tx_avail: a
// packet marked for retransmission, else the next unsent one), carrying the pending command
// response if there is one; else a pending response alone in a RESP frame. Frames (no FCS, the
// MAC adds it), 64-bit beats, byte 0 in tdata[7:0]:
//   data/last: 40-byte header in beats 0..4, then 1,024 words from the packet RAM (beats
//     5..1028, little-endian); a LAST packet sends its nwords valid words, zeros in the other
//     slots, and nwords in beat 1028. 1,029 beats, tkeep all ones.
//   resp: 30 bytes + 0xA5 filler to 60 bytes: 8 beats, tkeep 0x0F on the last.
// Every data frame gets the next frame sequence number (tx_seq) and the current delay.
//
// Inter-frame delay: after the last beat of a frame is produced the builder waits `delay`
// cycles, then 1 cycle to choose, then produces the first beat of the next frame (so with
// delay = 0 there is one idle cycle between frames when the MAC is always ready).
// Delay adaptation: every DA_WINDOW data frames, if more than DA_HI were retransmissions the
// delay grows by DA_STEP (up to DA_MAX); if fewer than DA_LO, it shrinks by DA_STEP (down to
// DA_MIN), in the cycle after the frame's choice. It starts at DA_INIT after reset.
//
// Abort (the RESET command): a frame in progress ends on its next beat with tlast and
// tuser[0] = 1, so the MAC sends it with a bad FCS (stomped) and the host never sees it; the
// reader stops and its FIFO and reads in flight are dropped.
//
// Packet RAM: ram_rdata must be a 2-cycle read (fp_ram_sdp with OUT_REG = 1, as fp_fade_core has it):
//   the word of a read issued with ram_ren in cycle i is on ram_rdata in cycle i + 2. It goes
//   through one more plain register (rd_word_q: the routing from the block RAMs, spread over the
//   device, gets a cycle of its own) into an 8-word FIFO (LUT RAM), so neither the RAM nor that
//   routing reaches the frame logic, and m_eth_tready does not reach the RAM's enable or
//   address. A reader runs ahead of the output: from the cycle after the choice it reads the
//   frame's words (1,024, or nwords for a LAST packet) one per cycle, as long as fewer than 8
//   words are read or in flight and not yet sent (a credit count in a register).
//
// Latency: tx_take (choice) -> first beat valid on m_eth 2 cycles later (the header does not wait
//   for the RAM: word 0 is read in the cycle after the choice, in the FIFO 4 cycles later, and
//   needed for beat 5). A word read in cycle i can be sent (taken from the FIFO) from cycle i + 4.
// Throughput: one beat per cycle while m_eth_tready is high, under any m_eth_tready pattern (the
//   loop from a word taken from the FIFO to the read it allows and that word's arrival is 5
//   cycles, the FIFO holds 8); delay + 1 idle cycles between frames when the MAC is always ready.
// Bad input: nothing is checked: tx_* (from fp_fade_desc) and rsp_* are trusted and taken only at the
//   choice; peer_mac and cfg_local_mac are read while the header beats are produced. tx_abort
//   cuts only a frame that goes on past the cycle it arrives in (an abort in the cycle that
//   produces the last beat leaves nothing pending); tx_abort
//   while idle only resets the delay adaptation (delay = DA_INIT).
// Parameters: N 2..6; DA_WINDOW 1..65535; DA_HI, DA_LO 0..65535; 0 <= DA_MIN <= DA_INIT <= DA_MAX
//   < 2^16; DA_STEP >= 0.
`default_nettype none
`include "fp_fade.vh"

module fp_fade_tx #(
    parameter N = 4,
    parameter DA_WINDOW = 64,
    parameter DA_HI = 8,
    parameter DA_LO = 1,
    parameter DA_STEP = 16,
    parameter DA_MIN = 0,
    parameter DA_MAX = 4096,
    parameter DA_INIT = 0
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          tx_abort,

    input  wire [47:0]   cfg_local_mac,
    input  wire [47:0]   peer_mac,

    input  wire          tx_avail,
    input  wire [31:0]   tx_pkt,
    input  wire [N-1:0]  tx_slot,
    input  wire          tx_last,
    input  wire [9:0]    tx_nwords,
    input  wire [1:0]    tx_reason,
    input  wire [15:0]   tx_seq,
    output wire          tx_take,
    output wire          tx_busy,
    output wire [N-1:0]  tx_busy_slot,

    input  wire          rsp_valid,
    input  wire [15:0]   rsp_code,
    input  wire [15:0]   rsp_csn,
    input  wire [63:0]   rsp_value,
    output wire          rsp_take,

    output wire          ram_ren,
    output wire [N+9:0]  ram_raddr,
    input  wire [63:0]   ram_rdata,

    output wire [63:0]   m_eth_tdata,
    output reg  [7:0]    m_eth_tkeep,
    output reg           m_eth_tvalid,
    input  wire          m_eth_tready,
    output reg           m_eth_tlast,
    output reg  [0:0]    m_eth_tuser,

    output reg  [15:0]   delay,
    output reg           ev_tx_data,
    output reg           ev_tx_early,
    output reg           ev_tx_nack,
    output reg           ev_tx_timeout,
    output reg           ev_tx_resp
);

    generate
        if (N < 2 || N > 6) begin : g_bad_n
            PARAMETER_ERROR_N_must_be_2_to_6 u_error();
        end
        if (DA_WINDOW < 1 || DA_WINDOW > 65535 || DA_HI < 0 || DA_HI > 65535 || DA_LO < 0 || DA_LO > 65535 || DA_STEP < 0 || DA_MIN < 0 || DA_MIN > DA_INIT || DA_INIT > DA_MAX ||
            DA_MAX > 65535) begin : g_bad_da
            PARAMETER_ERROR_DA_parameters_need_WINDOW_1_to_65535_HI_LO_below_65536_and_0_le_MIN_le_INIT_le_MAX_lt_65536 u_error();
        end
    endgenerate

    localparam [15:0] STEP = DA_STEP, DMIN = DA_MIN, DMAX = DA_MAX, DINIT = DA_INIT;
    localparam [15:0] WIN = DA_WINDOW, HI = DA_HI, LO = DA_LO;
    localparam [10:0] DATA_BEATS = 11'd1029, RESP_BEATS = 11'd8;
    localparam [1:0]  R_NEW = 2'd0, R_EARLY = 2'd1, R_NACK = 2'd2;

    reg          busy;          // producing the beats of a frame
    reg          abort_q;       // end the frame in progress on its next beat
    reg          is_resp;
    reg          is_last;
    reg  [10:0]  beat;          // next beat to produce
    reg  [N-1:0] slot;
    reg  [9:0]   nwords;
    reg  [15:0]  f_seq, f_rcode, f_rcsn, f_delay;
    reg  [31:0]  f_pkt;
    reg  [63:0]  f_rval;
    reg  [15:0]  gap;
    reg          gap_z;         // gap == 0 (a register: timing)
    reg  [15:0]  da_frames, da_retx;
    reg  [63:0]  hdr_q;
    reg          sel_ram;

    wire choose  = !busy && gap_z && !tx_abort;
    assign tx_take  = choose && tx_avail;
    assign rsp_take = (tx_take || (choose && rsp_valid)) && rsp_valid;
    assign tx_busy      = busy && !is_resp;
    assign tx_busy_slot = slot;

    // Header bytes of the frame being sent, byte k in bits [8k+7:8k].
    function [511:0] put;
        input [511:0] v;
        input integer off;
        input integer len;
        input [63:0] val;
        integer j;
        begin
            put = v;
            for (j = 0; j < len; j = j + 1) begin
                put[8 * (off + j) +: 8] = val[8 * (len - 1 - j) +: 8];
            end
        end
    endfunction

    reg [511:0] hb;
    always @* begin
        hb = {64{`FP_FADE_FILLER}};
        hb = put(hb, `FP_FADE_HEADER_DST_OFF, `FP_FADE_HEADER_DST_LEN, {16'd0, peer_mac});
        hb = put(hb, `FP_FADE_HEADER_SRC_OFF, `FP_FADE_HEADER_SRC_LEN, {16'd0, cfg_local_mac});
        hb = put(hb, `FP_FADE_HEADER_ETHERTYPE_OFF, `FP_FADE_HEADER_ETHERTYPE_LEN, {48'd0, `FP_FADE_ETHERTYPE});
        hb = put(hb, `FP_FADE_HEADER_VERSION_OFF, `FP_FADE_HEADER_VERSION_LEN, {48'd0, `FP_FADE_VERSION});
        if (is_resp) begin
            hb = put(hb, `FP_FADE_RESP_TYPE_OFF, `FP_FADE_RESP_TYPE_LEN, {48'd0, `FP_FADE_TYPE_RESP});
            hb = put(hb, `FP_FADE_RESP_RESP_CMD_OFF, `FP_FADE_RESP_RESP_CMD_LEN, {48'd0, f_rcode});
            hb = put(hb, `FP_FADE_RESP_RESP_CSN_OFF, `FP_FADE_RESP_RESP_CSN_LEN, {48'd0, f_rcsn});
            hb = put(hb, `FP_FADE_RESP_RESP_VAL_OFF, `FP_FADE_RESP_RESP_VAL_LEN, f_rval);
        end else begin
            hb = put(hb, `FP_FADE_DATA_TYPE_OFF, `FP_FADE_DATA_TYPE_LEN,
                     {48'd0, is_last ? `FP_FADE_TYPE_LAST : `FP_FADE_TYPE_DATA});
            hb = put(hb, `FP_FADE_DATA_SEQ_OFF, `FP_FADE_DATA_SEQ_LEN, {48'd0, f_seq});
            hb = put(hb, `FP_FADE_DATA_PKT_OFF, `FP_FADE_DATA_PKT_LEN, {32'd0, f_pkt});
            hb = put(hb, `FP_FADE_DATA_DELAY_OFF, `FP_FADE_DATA_DELAY_LEN, {48'd0, f_delay});
            hb = put(hb, `FP_FADE_DATA_RESP_CMD_OFF, `FP_FADE_DATA_RESP_CMD_LEN, {48'd0, f_rcode});
            hb = put(hb, `FP_FADE_DATA_RESP_CSN_OFF, `FP_FADE_DATA_RESP_CSN_LEN, {48'd0, f_rcsn});
            hb = put(hb, `FP_FADE_DATA_RESP_VAL_OFF, `FP_FADE_DATA_RESP_VAL_LEN, f_rval);
        end
    end

    // The data part starts on a beat boundary (FADE_DATA_DATA_OFF = 40 = 5 beats).
    localparam [10:0] HDR_BEATS = `FP_FADE_DATA_DATA_OFF / 8;

    // Packet RAM reader (see the header): rd_word is the next word to read, rd_end the frame's last
    // one; rd_v1 / rd_v2 / rd_v3 mark the reads issued 1 / 2 / 3 cycles ago (rd_v2: the word is on
    // ram_rdata and goes into rd_word_q; rd_v3: rd_word_q goes into the FIFO); rd_count counts the
    // words read (or in flight) and not yet sent.
    reg          rd_active;
    reg  [9:0]   rd_word;
    reg  [9:0]   rd_end;
    reg          rd_v1, rd_v2, rd_v3;
    reg  [63:0]  rd_word_q;
    reg  [3:0]   rd_count;      // 0..8
    reg  [63:0]  fifo [0:7];
    reg  [3:0]   f_wr, f_rd;    // FIFO pointers with a wrap bit
    reg  [63:0]  data_q;        // the RAM word on m_eth (sel_ram)
    wire         issue    = rd_active && !rd_count[3];
    wire         f_any    = f_wr != f_rd;
    assign ram_ren   = issue;
    assign ram_raddr = {slot, rd_word};

    // The output register: one beat per cycle when it is free or taken, and (for a data word) the
    // word is in the FIFO. from_ram_q (this beat is a packet word) is a register: the next beat
    // is one if it is past the header (beat >= HDR_BEATS - 1 now) and words are left (ram_left:
    // the packet words still to send, 1,024 or nwords at the choice, 0 for a RESP frame).
    reg         from_ram_q;
    reg  [10:0] ram_left;
    wire        adv       = !m_eth_tvalid || m_eth_tready;
    wire        need_ram  = from_ram_q && !abort_q;
    wire        produce   = busy && adv && (!need_ram || f_any);
    wire        pop       = produce && need_ram;
    wire [10:0] end_beat  = is_resp ? RESP_BEATS - 11'd1 : DATA_BEATS - 11'd1;
    wire        start     = tx_take || (choose && rsp_valid);
    wire        in_data   = beat >= HDR_BEATS - 11'd1;
    wire        more_ram  = from_ram_q ? ram_left != 11'd1 : ram_left != 11'd0;

    always @(posedge clk) begin
        if (produce) begin
            from_ram_q <= in_data && more_ram;
        end else if (start) begin
            from_ram_q <= 1'b0;
        end
        if (pop) begin
            ram_left <= ram_left - 11'd1;
        end
        if (start) begin
            ram_left <= !tx_take ? 11'd0 : (tx_last ? {1'b0, tx_nwords} : 11'd1024);
        end

        rd_v1     <= issue;
        rd_v2     <= rd_v1;
        rd_v3     <= rd_v2;
        rd_word_q <= ram_rdata;
        rd_count  <= rd_count + {3'b000, issue} - {3'b000, pop};
        if (issue) begin
            rd_word <= rd_word + 10'd1;
            if (rd_word == rd_end) begin
                rd_active <= 1'b0;
            end
        end
        if (rd_v3) begin
            fifo[f_wr[2:0]] <= rd_word_q;
            f_wr <= f_wr + 4'd1;
        end
        if (pop) begin
            data_q <= fifo[f_rd[2:0]];
            f_rd   <= f_rd + 4'd1;
        end
        if (start) begin
            rd_word   <= 10'd0;
            rd_end    <= tx_last ? tx_nwords - 10'd1 : 10'd1023;
            rd_active <= tx_take && !(tx_last && tx_nwords == 10'd0);
        end
        if (tx_abort || rst) begin
            rd_active <= 1'b0;
            rd_v1     <= 1'b0;
            rd_v2     <= 1'b0;
            rd_v3     <= 1'b0;
            rd_count  <= 4'd0;
            f_wr      <= 4'd0;
            f_rd      <= 4'd0;
        end
        if (rst) begin
            from_ram_q <= 1'b0;
            ram_left   <= 11'd0;
            rd_word    <= 10'd0;
            rd_end     <= 10'd0;
            data_q     <= 64'd0;
            rd_word_q  <= 64'd0;
        end
    end
    assign m_eth_tdata = sel_ram ? data_q : hdr_q;

    // Delay adaptation one cycle after the choice (da_take, da_is_retx: timing; the next frame is
    // chosen 8 or more cycles later, so no frame sees the difference). With retx_total = da_retx
    // + da_is_retx, the compares against HI and LO are formed from da_retx and constants.
    reg         da_take, da_is_retx;
    wire [15:0] retx_total = da_retx + {15'd0, da_is_retx};
    wire        da_hi      = da_is_retx ? da_retx >= HI : da_retx > HI;
    // Waiver: with LO = 0 or 1 (LO = 1 is the default) a compare is against 0, constant by design.
    /* verilator lint_off UNSIGNED */
    wire        da_lo      = da_is_retx ? (LO != 16'd0 && da_retx < LO - 16'd1) : da_retx < LO;
    /* verilator lint_on UNSIGNED */

    always @(posedge clk) begin
        ev_tx_data    <= 1'b0;
        ev_tx_early   <= 1'b0;
        ev_tx_nack    <= 1'b0;
        ev_tx_timeout <= 1'b0;
        ev_tx_resp    <= 1'b0;
        if (adv) m_eth_tvalid <= 1'b0;

        if (!busy && !gap_z) begin
            gap   <= gap - 16'd1;
            gap_z <= gap == 16'd1;
        end

        if (start) begin
            busy    <= 1'b1;
            beat    <= 11'd0;
            is_resp <= !tx_take;
            is_last <= tx_last;
            slot    <= tx_slot;
            nwords  <= tx_nwords;
            f_seq   <= tx_seq;
            f_pkt   <= tx_pkt;
            f_delay <= delay;
            f_rcode <= rsp_valid ? rsp_code : `FP_FADE_CMD_NONE;
            f_rcsn  <= rsp_valid ? rsp_csn : 16'd0;
            f_rval  <= rsp_valid ? rsp_value : 64'd0;
        end
        if (tx_take) begin
            ev_tx_data    <= tx_reason == R_NEW;
            ev_tx_early   <= tx_reason == R_EARLY;
            ev_tx_nack    <= tx_reason == R_NACK;
            ev_tx_timeout <= tx_reason == 2'd3;
        end else if (choose && rsp_valid) begin
            ev_tx_resp <= 1'b1;
        end
        da_take    <= tx_take;
        da_is_retx <= tx_reason != R_NEW;
        if (da_take) begin
            if (da_frames >= WIN - 16'd1) begin
                da_frames <= 16'd0;
                da_retx   <= 16'd0;
                if (da_hi) begin
                    delay <= (delay > DMAX - STEP) ? DMAX : delay + STEP;
                end else if (da_lo) begin
                    delay <= (delay < DMIN + STEP) ? DMIN : delay - STEP;
                end
            end else begin
                da_frames <= da_frames + 16'd1;
                da_retx   <= retx_total;
            end
        end

        if (produce) begin
            m_eth_tvalid <= 1'b1;
            m_eth_tkeep  <= (is_resp && beat == end_beat) ? 8'h0F : 8'hFF;
            m_eth_tlast  <= beat == end_beat || abort_q;
            m_eth_tuser  <= abort_q;
            sel_ram      <= need_ram;
            if (beat < HDR_BEATS || is_resp) begin
                hdr_q <= hb[64 * beat[2:0] +: 64];
            end else if (beat == DATA_BEATS - 11'd1) begin
                hdr_q <= {54'd0, nwords};          // LAST: the word count in the last slot
            end else begin
                hdr_q <= 64'd0;                    // LAST: unused word slots are sent as 0
            end
            beat <= beat + 11'd1;
            if (beat == end_beat || abort_q) begin
                busy    <= 1'b0;
                abort_q <= 1'b0;
                gap     <= abort_q ? 16'd0 : delay;
                gap_z   <= abort_q || delay == 16'd0;
            end
        end

        if (tx_abort) begin
            // only a frame that goes on past this cycle is cut (one whose last beat is produced
            // now has ended: an abort left pending would cut the next frame)
            abort_q   <= busy && !(produce && (beat == end_beat || abort_q));
            gap       <= 16'd0;
            gap_z     <= 1'b1;
            delay     <= DINIT;
            da_frames <= 16'd0;
            da_retx   <= 16'd0;
        end

        if (rst) begin
            busy         <= 1'b0;
            abort_q      <= 1'b0;
            is_resp      <= 1'b0;
            is_last      <= 1'b0;
            beat         <= 11'd0;
            slot         <= {N{1'b0}};
            nwords       <= 10'd0;
            f_seq        <= 16'd0;
            f_pkt        <= 32'd0;
            f_delay      <= 16'd0;
            f_rcode      <= 16'd0;
            f_rcsn       <= 16'd0;
            f_rval       <= 64'd0;
            gap          <= 16'd0;
            gap_z        <= 1'b1;
            delay        <= DINIT;
            da_frames    <= 16'd0;
            da_retx      <= 16'd0;
            da_take      <= 1'b0;
            da_is_retx   <= 1'b0;
            hdr_q        <= 64'd0;
            sel_ram      <= 1'b0;
            m_eth_tvalid <= 1'b0;
            m_eth_tkeep  <= 8'h00;
            m_eth_tlast  <= 1'b0;
            m_eth_tuser  <= 1'b0;
            ev_tx_data   <= 1'b0;
            ev_tx_early  <= 1'b0;
            ev_tx_nack   <= 1'b0;
            ev_tx_timeout <= 1'b0;
            ev_tx_resp   <= 1'b0;
        end
    end

endmodule

`default_nettype wire
