// fp_node_wtx: one TX port of the word-serial node (issue #18): reads its frames word by word out
// of the shared segment buffer (fp_node_wbuf), releases them there, applies the VLAN edit and
// serializes the bytes to the port's 1G MAC (fp_eth_mac_1g's s_axis, one byte per cycle, clk =
// the MAC's 125 MHz clock).
//
// Descriptors (s_desc_*, valid/ready, into a QUEUE-deep FIFO): head (the frame's head segment),
//   ts (its RX SFD time in ns mod 2^24), sf, vlan_op, tci, ts_insert.
//   sf = 0 (cut-through): the frame starts when ((now_ns - ts) mod 2^24) >= cfg_release_ns. As in
//     fp_node_txf the comparison is registered (go_q, off every other path): a frame starts in
//     the cycle after one in which the rule held. A frame that waited past 2^24 ns looks young
//     again and waits up to cfg_release_ns more. cfg_release_ns = 0: at once.
//   sf = 1 (store-and-forward): the descriptor says the frame is complete in the buffer (its
//     producer gives it after wbuf's m_end): the frame starts as soon as it can; ts is not used.
//     (Chosen over an end-event input: no per-port matching of wbuf's events, no extra latency.)
//   vlan_op: 0 none, 1 strip bytes 12..15 (the 802.1Q tag), 2 insert 0x8100 + tci after byte 11,
//     3 rewrite bytes 14..15 (the TCI) with tci. All edits touch word 0 only: word 0 is loaded
//     into the byte shift register rearranged (12, 20 or 16 bytes), every later word as it is;
//     no segment or word is shifted.
//   ts_insert: m_axis_ts_insert on the frame's first beat (held with it from the first tvalid,
//     as fp_eth_mac_1g_tx reads it during the preamble), 0 on every other beat. The decision is
//     the producer's (it parses the header for the VLAN edit anyway): the TX reads only word 0
//     before the start, and a tagged frame's EtherType lies in word 1.
// Buffer reads (wbuf's read port r: rd_* = s_rd_*[r], rsp_valid = m_rd_valid[r], rsp_data/
//   rsp_user/rsp_seg = the shared m_rd_data/m_rd_user/m_rd_seg): a request (rd_valid, held until
//   rd_ready, the grant) reads word rd_word of segment rd_seg, or with rd_follow = 1 of next[rd_seg];
//   responses come in order, any fixed number of cycles after the grant (up to 4 outstanding).
//   Word 0 of a frame is read into a register of its own as soon as its descriptor has left the
//   queue and the frame before it has been read whole (its last word arrived; the decision logic
//   has read the header, so word 0 is in the buffer by then). Not earlier: while a frame is being
//   read each of its requests may wait RD_WAIT cycles (every reader busy), and one more request
//   in between would delay its next word by a whole grant round. Words k >= 1 are read after the
//   frame's start, each just in time for the MAC: word 1 a fixed time after the start decision,
//   word k >= 2 when the byte shift register moves a byte of word k-2 with TH = TURN - 13 bytes
//   left (the MAC takes one byte per cycle), so that a word granted RD_WAIT cycles after its
//   request arrives exactly when the serializer needs it. TURN = RD_WAIT + RD_LATENCY + 1 (20 at
//   the defaults; 22 with fp_node_wbuf's 6-cycle reads and 16 readers). Every word of a segment
//   whose number is not yet known is read with follow = 1 from the one before; rsp_seg teaches
//   it. A frame's end is learned from the last bit of its words (node_word sideband), so one word
//   past the end may be requested (its response is dropped).
// Release: rel_valid / rel_head / rel_ready (= wbuf's s_rel_*[r]): the frame's head once its last
//   word has been read (its response arrived), one release per frame, through a 2-entry queue (a
//   full queue holds the next start).
//
// Latency (clk cycles):
//   - descriptor accepted (s_desc_valid && s_desc_ready in cycle a) -> word 0's request
//     (rd_valid) in cycle a + 2, when the frame before it has been read whole (else 1 cycle after
//     its last word's response, or after the grant of a request then waiting).
//   - release rule true in cycle T (now_ns of cycle T) -> first byte valid on m_axis in cycle
//     T + 2, when the frame's word 0 has arrived (rsp_valid) by cycle T - 1 and the previous
//     frame's tlast beat was taken by cycle T + 1. A strip frame's rule is taken as met 32 ns
//     (4 cycles) early, in T - 4 (its ts is read as 32 ns older), and its output waits 4 cycles
//     more (it starts with the 12 bytes before the tag), so its first byte is valid in T + 2 as
//     well, when its word 0 has arrived by T - 5: the latency does not depend on the edit, and a
//     strip frame needs its words 4 cycles earlier (the release time covers it). Store-and-forward,
//     or the rule already true: word 0's response in cycle r -> first byte valid in r + 3
//     (strip: r + 7). G, the start-decision cycle (T + 1, r + 2), is the read schedule's origin.
//   - reads: word k >= 1 is requested first in cycle G + 16k + 7 - TURN (G + 16k - 13 at the
//     defaults; insert: + 4 for k >= 2), later when the MAC was still in its gap at the start, so
//     no word k is granted before then; input byte i >= 16 reaches the MAC no earlier than
//     G + 9 + i. The buffer must hold word k by then: the release time is chosen for that. A strip
//     frame's G is 4 cycles earlier than another frame's with the same rule (above) and its reads
//     follow the same schedule from its G.
//   - word k is needed (its first byte into the shift register) exactly TURN cycles after that
//     request when the MAC takes a byte per cycle from the start, so the MAC never underruns when
//     every grant comes within RD_WAIT cycles of its request and every response RD_LATENCY cycles
//     after its grant, and one cycle more is an underrun (both asserted by the test).
// Throughput: one byte per cycle. Frames back to back: a frame's first byte is valid in the cycle
//   after the previous frame's tlast beat is taken (the MAC starts it after its FCS and gap), or
//   3 cycles after its word 0 arrived (strip 7) if that is later: with grant waits well below
//   RD_WAIT almost always the former; with every grant at RD_WAIT (all readers busy, more than
//   the node's 75 % budget) the MAC idles 6 to 9 cycles per gap on average (simulation), and
//   never underruns. Reads per frame: one per 16 bytes and at most one dropped word past the end.
// Bad input:
//   - a word with bad = 1: the frame ends with tuser[0] = 1 on its tlast beat (the MAC stomps the
//     FCS); bad on a word that is not the last is kept and applied to the frame's last beat.
//   - underrun (the MAC's tready high, m_axis_tvalid low, inside a frame: a response came late):
//     ev_underrun pulses once per frame; the rest of the frame still goes out as it arrives (the
//     MAC stomps the FCS and discards it), the release is given as usual.
//   - a frame without a last word within MAX_WORDS words (a corrupt chain) is cut: its MAX_WORDS-th
//     word is taken as its last, with bad = 1. nbytes_m1 is used on the last word only.
//   - a frame whose last word is word 0 (fewer than 17 bytes, never produced for a good frame)
//     is sent as it is, edited: insert only when it has 12 bytes or more; strip keeps 12 bytes.
//   - vlan_op is applied as told (strip or rewrite of a frame without a tag changes its bytes 12
//     to 15; the producer decides). None of these stalls the port.
// Events: ev_frame pulses when a frame's tlast beat is taken, ev_underrun as above (registered,
//   one cycle later).
// Timing (125 MHz on ECP5): every output is a flip-flop (s_desc_ready, rel_valid included: each
//   registered from its next value); the release compare (24-bit subtract and compare: carry
//   chains) is registered into go_q; word 0 is rearranged by the VLAN edit as it arrives (a
//   register of its own). The serializer's conditions (S empty / 1 byte left / the frame's last
//   byte / TH bytes left, each with or without a word waiting; N's word 0 waiting; running or
//   holding; armed, not strip) are registered from their next values, so that each decision
//   (take, next word, arm, trigger, start) is one or two LUTs of them, go_q, rl_ok and the MAC's
//   tready, and each next value a choice between a loaded and a running S (2 LUTs after the
//   decisions). Byte counts are one-hot (S's, word 0's, each word's, stored with it), the small
//   counters thermometers. The word FIFO's and the tag FIFO's oldest entries are held in
//   registers: the LUT RAM is read at a registered address (kept: Yosys would otherwise merge it
//   into the read port and read at the pointer's next value) straight into them through one
//   multiplexer, so S loads from flip-flops. At most 4 LUT levels between flip-flops in the ECP5
//   netlist (a LUT5/6 of PFUMX / L6MUX in one slice counting as one), the release compare's carry
//   chains aside (`fastpath syn node_wtx`: 154 MHz routed on LFE5U-85F-6, seed 1). S's bytes
//   beyond its count are left as they come (no zero fill: no reset logic on S). The MAC's tready
//   (combinational in fp_eth_mac_1g_tx) is the one input used deep: up to 4 LUT levels to S;
//   taking it through a register would need a one-byte skid, S a byte ahead of the MAC and the
//   read schedule a cycle earlier.
// Parameters: SEGMENTS 64..4096 (SW = clog2); SEG_WORDS 2 or 4; QUEUE a power of two 2..64;
//   RD_LATENCY (wbuf's grant -> response, 1..8) and RD_WAIT (the longest grant wait, 0..15) set
//   the read schedule (their sum 13..21 keeps it exact; smaller sums read earlier than needed);
//   MAX_WORDS 8..127. Change cfg_release_ns only while idle.
`default_nettype none

`include "fp_node_word.vh"

module fp_node_wtx #(
    parameter SEGMENTS   = 1024,
    parameter SEG_WORDS  = 4,
    parameter QUEUE      = 8,
    parameter RD_LATENCY = 4,
    parameter RD_WAIT    = 15,
    parameter MAX_WORDS  = 96,
    parameter SW         = $clog2(SEGMENTS),
    parameter WW         = $clog2(SEG_WORDS)
) (
    input  wire                 clk,
    input  wire                 rst,

    input  wire                 s_desc_valid,
    output wire                 s_desc_ready,
    input  wire [SW-1:0]        s_desc_head,
    input  wire [23:0]          s_desc_ts,
    input  wire                 s_desc_sf,
    input  wire [1:0]           s_desc_vlan_op,
    input  wire [15:0]          s_desc_tci,
    input  wire                 s_desc_ts_insert,

    input  wire [23:0]          cfg_release_ns,
    input  wire [23:0]          now_ns,

    output wire                 rd_valid,
    input  wire                 rd_ready,
    output wire                 rd_follow,
    output wire [SW-1:0]        rd_seg,
    output wire [WW-1:0]        rd_word,

    input  wire                 rsp_valid,
    input  wire [127:0]         rsp_data,
    input  wire [`FP_NW_W-1:0]  rsp_user,
    input  wire [SW-1:0]        rsp_seg,

    output wire                 rel_valid,
    input  wire                 rel_ready,
    output wire [SW-1:0]        rel_head,

    output wire [7:0]           m_axis_tdata,
    output wire [0:0]           m_axis_tkeep,
    output wire                 m_axis_tvalid,
    input  wire                 m_axis_tready,
    output wire                 m_axis_tlast,
    output wire [0:0]           m_axis_tuser,
    output wire                 m_axis_ts_insert,

    output reg                  ev_frame,
    output reg                  ev_underrun
);

    generate
        if (SEGMENTS < 64 || SEGMENTS > 4096) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_64_to_4096 u_error();
        end
        if (SEG_WORDS != 2 && SEG_WORDS != 4) begin : g_bad_seg_words
            PARAMETER_ERROR_SEG_WORDS_must_be_2_or_4 u_error();
        end
        if (QUEUE < 2 || QUEUE > 64 || (QUEUE & (QUEUE - 1)) != 0) begin : g_bad_queue
            PARAMETER_ERROR_QUEUE_must_be_a_power_of_two_from_2_to_64 u_error();
        end
        if (RD_LATENCY < 1 || RD_LATENCY > 8) begin : g_bad_rd_latency
            PARAMETER_ERROR_RD_LATENCY_must_be_1_to_8 u_error();
        end
        if (RD_WAIT < 0 || RD_WAIT > 15 || RD_WAIT + RD_LATENCY > 21) begin : g_bad_rd_wait
            PARAMETER_ERROR_RD_WAIT_must_be_0_to_15_and_RD_WAIT_plus_RD_LATENCY_at_most_21 u_error();
        end
        if (MAX_WORDS < 8 || MAX_WORDS > 127) begin : g_bad_max_words
            PARAMETER_ERROR_MAX_WORDS_must_be_8_to_127 u_error();
        end
        if (SW != $clog2(SEGMENTS) || WW != $clog2(SEG_WORDS)) begin : g_bad_derived
            PARAMETER_ERROR_SW_and_WW_are_derived_do_not_set_them u_error();
        end
    endgenerate

    // The read schedule (module header): a request shown in cycle q has its word in the word FIFO
    // by q + TURN at the latest. Word k >= 2 is requested from the cycle after the shift register
    // moves a byte out of word k-2 with TH bytes left; word 1 W1 cycles after the start decision.
    localparam integer TURN   = RD_WAIT + RD_LATENCY + 1;
    localparam integer TH_I   = (TURN - 13 < 1) ? 1 : TURN - 13;
    localparam integer W1_I   = 21 - TURN;     // -1: word 1 is requested in the start cycle itself
    localparam integer W1P_I  = (W1_I < 1) ? 0 : W1_I;
    localparam [4:0]   W1     = W1P_I[4:0];
    localparam         W1_NOW = W1_I < 0;
    localparam         W1_DUE = W1_I == 0;
    localparam integer W2_I   = (SEG_WORDS == 2) ? 0 : 2;
    localparam [WW-1:0] W2    = W2_I[WW-1:0];   // word 2's place in the head segment (SEG_WORDS = 4)
    localparam integer MAXW_I = MAX_WORDS - 1;
    localparam [6:0]   MAXW   = MAXW_I[6:0];     // the word index taken as the last
    localparam         DW     = SW + 24 + 1 + 2 + 16 + 1;
    localparam [1:0]   OP_STRIP = 2'd1, OP_INSERT = 2'd2, OP_REWRITE = 2'd3;   // 0: none

    // ------------------------------------------------------------------ descriptor queue
    wire [DW-1:0]  q_head;
    wire           q_empty;
    wire [$clog2(QUEUE):0] q_count;
    wire           q_pop;
    wire           q_push = s_desc_valid && s_desc_ready;
    reg            q_ready_q;            // s_desc_ready = q_count != QUEUE, as a register
    assign s_desc_ready = q_ready_q;

    fp_fifo_fwft #(.WIDTH(DW), .DEPTH(QUEUE), .HEAD_REG(2)) u_queue (
        .clk(clk), .rst(rst),
        .push(q_push),
        .push_data({s_desc_head, s_desc_ts, s_desc_sf, s_desc_vlan_op, s_desc_tci, s_desc_ts_insert}),
        .pop(q_pop),
        .head(q_head), .empty(q_empty), .count(q_count)
    );

    wire [SW-1:0]  qh_head = q_head[DW-1 -: SW];
    wire [23:0]    qh_ts   = q_head[43:20];
    wire           qh_sf   = q_head[19];
    wire [1:0]     qh_op   = q_head[18:17];
    wire [15:0]    qh_tci  = q_head[16:1];
    wire           qh_tsi  = q_head[0];

    // ------------------------------------------------------------------ state
    // N: the next frame (descriptor, word 0 requested / arrived); C: the current frame (started,
    // its words >= 1 being read).
    reg            n_valid_q, n_req_q, n_sf_q, n_tsi_q;
    reg  [SW-1:0]  n_head_q;
    reg  [23:0]    n_ts_q;
    reg  [1:0]     n_op_q;
    reg  [15:0]    n_tci_q;
    reg            w0_valid_q;           // word 0 of N has arrived (in w0_*)
    reg  [159:0]   w0_arr_q;             // ... rearranged by N's VLAN edit
    reg  [20:0]    w0_sb_q;              // ... its byte count then (1..20), one-hot (bit k: k)
    reg            w0_last_q, w0_bad_q;  // ... its sideband
    reg            go_q;                 // N may start: store-and-forward, or its release rule
                                         // held in the previous cycle
    reg            n_strip_q;            // N's vlan_op is strip

    reg  [SW-1:0]  c_head_q;
    reg            c_done_q;             // C's last word has been read (or no frame yet)
    reg            epoch_q;              // toggles at each start: tags C's requests
    reg  [6:0]     c_words_q;            // C's words read (word 0 included)
    reg            cut_q, cm1_q;         // c_words_q == MAX_WORDS - 1 (the next word is taken as
                                         // the last), == MAX_WORDS - 2
    reg  [6:0]     due_q;                // C's word requests due and not yet issued (thermometer:
                                         // due_q[k] = more than k)
    reg  [4:0]     w1_q;                 // countdown to word 1's request after the start
    reg            w1one_q;              // w1_q == 1
    reg  [SW-1:0]  rq_seg_q;             // the last segment whose number is known
    reg  [WW-1:0]  rq_w_q;               // the word (in its segment) of C's next request
    reg            rq_fol_q;             // that word is in next[rq_seg_q]
    reg            rq_hop2_q;            // ... in next[next[rq_seg_q]]: wait to learn one
    reg            rq_sp_q;              // parity of the request's segment ordinal in the frame
    reg            rq_up_q;              // parity of the unknown segment's ordinal

    reg            rd_valid_q, rd_follow_q;
    reg  [SW-1:0]  rd_seg_q;
    reg  [WW-1:0]  rd_word_q;
    reg  [3:0]     rd_tag_q;             // {w0, epoch, follow, segment parity}

    // shift register: S holds the bytes of the word being sent, byte 0 in [7:0]
    reg  [159:0]   s_q;
    reg  [20:0]    sb_q;                 // one-hot: bytes left in S (bit 0: none)
    reg            s_busy_q;             // S belongs to a frame (armed, holding or running)
    reg            h1_q;                 // s_hold_q == 1
    reg            s_lastw_q;            // S holds its frame's last word
    reg            s_bad_q;              // the frame is bad (so far)
    reg            s_first_q;            // S's next byte is the frame's first
    reg            s_arm_q;              // S holds N's word 0, not started
    reg  [2:0]     s_hold_q;             // strip: cycles left before the output starts
    reg            s_run_q;              // S belongs to a started frame
    reg            s_tsi_q;
    // the serializer's conditions, registered from the next values of the registers above, so
    // that each decision is one or two LUTs of them, go_q, rl_ok and the MAC's tready:
    reg            rh_q;                 // s_run_q || h1_q
    reg            as_q;                 // s_arm_q && !n_strip_q
    reg            ew_q;                 // S empty, not the last word, a word waiting
    reg            fw_q;                 // S has 1 byte, not the last word, a word waiting
    reg            fn_q;                 // S has the frame's last byte
    reg            aw_q;                 // word 0 waiting, S free
    reg            wfn_q;                // word 0 waiting, S has the frame's last byte
    reg            th_q;                 // S has TH bytes, not the last word (trigger)

    reg  [7:0]     o_data_q;
    reg            o_valid_q, o_last_q, o_bad_q, o_ts_q;
    reg            inframe_q, under_q;

    // ------------------------------------------------------------------ word FIFO (C's words >= 1)
    // Four entries in LUT RAM; the oldest is also held in registers (hd_*, loaded from the RAM's
    // read at a registered address, or from the response itself), so S loads from flip-flops.
    reg  [127:0]   wf_data [0:3];
    reg  [17:0]    wf_side [0:3];        // {one-hot byte count 16..1, last, bad}
    reg  [1:0]     wf_wr_q;              // write slot
    // the slot after the oldest: the RAM's read address, kept a register (keep: Yosys would
    // otherwise merge it into the read port and read at its next value, after the decisions)
    (* keep *) reg [1:0] wf_rd1_q;
    reg  [3:0]     wf_th_q;              // words held (thermometer: wf_th_q[k] = more than k)
    reg  [127:0]   hd_data_q;
    reg  [15:0]    hd_oh_q;              // one-hot: bit k-1 = k bytes
    reg            hd_last_q, hd_bad_q;

    // ------------------------------------------------------------------ tags of outstanding reads
    // the same: four entries, the oldest also in a register
    reg  [3:0]     tg_mem [0:3];
    reg  [1:0]     tg_wr_q;
    (* keep *) reg [1:0] tg_rd1_q;       // (keep: as wf_rd1_q)
    reg  [3:0]     tg_th_q;              // outstanding reads (thermometer; up to 4: a request
                                         // issued with 2 outstanding while a grant makes 3)
    reg  [3:0]     tg_hd_q;

    // ------------------------------------------------------------------ responses
    wire           t_w0    = tg_hd_q[3];
    wire           t_epoch = tg_hd_q[2];
    wire           t_fol   = tg_hd_q[1];
    wire           t_par   = tg_hd_q[0];
    wire           rc_m    = !t_w0 && t_epoch == epoch_q && !c_done_q;
    wire           r_c     = rsp_valid && rc_m;                              // kept C word
    wire           r_last  = rsp_user[`FP_NW_LAST] || cut_q;
    wire           r_bad   = rsp_user[`FP_NW_BAD] || (cut_q && !rsp_user[`FP_NW_LAST]);
    wire           c_last_in = r_c && r_last;                                // C's last word read
    wire           learn   = rsp_valid && rc_m && t_fol && rq_fol_q && t_par == rq_up_q;
    wire           lhop    = learn && rq_hop2_q;
    // the response's byte count, one-hot (a cut word is taken as the last: 16 bytes then)
    reg  [15:0]    r_oh;
    integer k;
    always @* begin
        for (k = 0; k < 16; k = k + 1) begin
            r_oh[k] = r_last ? {28'd0, rsp_user[`FP_NW_NBYTES_M1]} == k : k == 15;
        end
    end

    // ------------------------------------------------------------------ serializer
    reg            o_free_q;             // !o_valid_q (a copy: adv is one gate)
    wire           adv      = o_free_q || m_axis_tready;
    wire           rl_ok;                // the release queue can take C's release (a register)
    wire           start    = s_arm_q && go_q && rl_ok;            // cycle G
    wire           running  = rh_q || (as_q && go_q && rl_ok);     // (start && !n_strip_q) || ...
    wire           s_take   = adv && running && !sb_q[0];          // a byte S -> O
    wire           fr_end   = adv && running && fn_q;              // the frame's last byte S -> O
    wire           s_next   = running && (ew_q || (adv && fw_q));  // C's next word in
    wire           arm      = aw_q || (adv && running && wfn_q);   // N's word 0 in
    wire           trig     = adv && running && th_q;
    wire           s_load   = arm || s_next;
    // what a load takes: N's word 0 when S is free or holds the last word, else C's next word
    wire           src_w0   = s_lastw_q || !s_busy_q;
    wire [20:0]    hd_sb    = {4'd0, hd_oh_q, 1'b0};
    // (bytes of S beyond its count are never sent: they are left as they come, no zero fill)
    wire [159:0]   ld_data  = {w0_arr_q[159:128], src_w0 ? w0_arr_q[127:0] : hd_data_q};
    wire [20:0]    ld_sb    = src_w0 ? w0_sb_q : hd_sb;
    wire           ld_last  = src_w0 ? w0_last_q : hd_last_q;
    wire           ld_bad   = src_w0 ? w0_bad_q : (s_bad_q || hd_bad_q);
    wire           wf_ne    = wf_th_q[0];

    // word 0 as it arrives, rearranged by N's VLAN edit (registered with it); its byte count
    wire [4:0]     r_nb    = rsp_user[`FP_NW_LAST] ? {1'b0, rsp_user[`FP_NW_NBYTES_M1]} + 5'd1 : 5'd16;
    reg  [159:0]   r_arr;
    reg  [4:0]     r_n;
    reg  [20:0]    r_sb;
    always @(*) begin
        r_arr = {32'd0, rsp_data};
        r_n   = r_nb;
        case (n_op_q)
            OP_STRIP: begin
                r_arr = {64'd0, rsp_data[95:0]};
                r_n   = (r_nb > 5'd12) ? 5'd12 : r_nb;
            end
            OP_INSERT: begin
                r_arr = {rsp_data[127:96], n_tci_q[7:0], n_tci_q[15:8], 16'h0081, rsp_data[95:0]};
                r_n   = (r_nb >= 5'd12) ? r_nb + 5'd4 : r_nb;
            end
            OP_REWRITE: begin
                r_arr = {32'd0, n_tci_q[7:0], n_tci_q[15:8], rsp_data[111:0]};
            end
            default: ;
        endcase
        for (k = 0; k < 21; k = k + 1) begin
            r_sb[k] = {27'd0, r_n} == k;
        end
    end

    // ------------------------------------------------------------------ N stage and queue pop
    wire           n_load  = !q_empty && (!n_valid_q || start);
    assign q_pop = n_load;

    // ------------------------------------------------------------------ read requests
    wire           rd_free  = !rd_valid_q || rd_ready;
    wire           tg_room  = !tg_th_q[2];                            // fewer than 3 outstanding
    // C's next word is due (all but "its last word arrives now", which stops it)
    wire           c_due    = tg_room && !c_done_q && due_q[0] && !rq_hop2_q;
    wire           issue_c  = rd_free && c_due && !c_last_in;
    wire           rq_wrap  = rq_w_q == SEG_WORDS[WW-1:0] - 1'b1;
    wire           issue_cw = rd_free && c_due && rq_wrap && !c_last_in;   // issue_c && rq_wrap
    // word 1 in the start cycle (W1_NOW): from N's head, the new epoch
    wire           issue_s  = W1_NOW && start && rd_free && tg_room;
    wire           s2       = SEG_WORDS == 2 && issue_s;               // word 1 was the head's last
    // the next frame's word 0 only once the current frame has been read: while it is being read
    // each of its requests may wait RD_WAIT cycles (every reader busy), and one more request in
    // between would delay its next word by a whole grant round. (At a start the current frame
    // has been read: c_done_q, so no C word arrives; N is loaded from the queue when N is empty.)
    wire           w0_want  = tg_room && !start &&
                              ((!q_empty && !n_valid_q) || (n_valid_q && !n_req_q));
    wire           issue_w0 = rd_free && w0_want && (c_done_q || c_last_in);
    wire [SW-1:0]  w0_seg   = n_valid_q ? n_head_q : qh_head;

    // requests due: word 1 W1 cycles after the start, word k+2 at each trigger of word k
    // (no C request is issued at a start: C has been read)
    wire           due_inc  = w1one_q || trig;
    wire           due_init = W1_DUE || (W1_NOW && !(rd_free && tg_room));
    reg  [6:0]     due_d;
    always @* begin
        for (k = 0; k < 7; k = k + 1) begin
            due_d[k] = issue_c ? (due_inc ? due_q[k] : (k == 6 ? 1'b0 : due_q[k + 1]))
                               : (start ? (k == 0 && due_init)
                                        : (due_inc ? (k == 0 ? 1'b1 : due_q[k - 1]) : due_q[k]));
        end
    end

    // ------------------------------------------------------------------ release queue (2 entries)
    reg  [SW-1:0]  rl0_q, rl1_q;
    reg  [1:0]     rl_th_q;              // entries (thermometer)
    wire           single    = start && w0_last_q;        // word 0 was the last
    wire           rl_push   = c_last_in || single;
    wire [SW-1:0]  rl_push_h = single ? n_head_q : c_head_q;
    wire           rl_pop    = rl_th_q[0] && rel_ready;
    assign rel_valid = rl_th_q[0];
    assign rel_head  = rl0_q;

    reg            rl_ok_q;
    assign rl_ok = rl_ok_q;

    // ------------------------------------------------------------------ next values (for the
    // registered conditions above)
    wire           s_arm_n  = !start && (arm || s_arm_q);
    wire           strip_n  = n_load ? qh_op == OP_STRIP : n_strip_q;
    wire           h1_n     = !start && (s_hold_q != 3'd0 ? s_hold_q == 3'd2 : h1_q);
    wire           run_go   = (as_q && go_q && rl_ok) || h1_q;
    wire           s_run_n  = !fr_end && (run_go || s_run_q);
    wire           w0v_in   = (rsp_valid && t_w0) || w0_valid_q;    // unless armed
    // S after this cycle: loaded (arm: N's word 0; s_next: C's next word), a byte taken, or held
    // (one-hot counts: 1 byte is bit 1, TH bytes bit TH). Each condition below is a choice
    // between a loaded S (arm ? .. : ..) and a running one (s_take ? .. : ..), the parts of which
    // are registers or one LUT of them: (s_load ? load_case : take_case), 2 levels after the
    // decisions. A C word is waiting after this cycle when one arrives or one is left (rq_*).
    // (While N's word 0 is armed the word FIFO is empty: C's words have all been loaded.)
    wire           rq_ne    = r_c || wf_ne;                         // (not loading)
    wire           rq_2     = r_c || wf_th_q[1];                    // (loading C's next word)
    wire           ew_t     = (s_take ? sb_q[1] : (sb_q[0] && !s_lastw_q)) && rq_ne;
    wire           ew_n     = !arm && !s_next && ew_t;
    wire           fw_l     = !arm && hd_oh_q[0] && !hd_last_q && rq_2;
    wire           fw_t     = (s_take ? (sb_q[2] && !s_lastw_q) : (sb_q[1] && !s_lastw_q)) && rq_ne;
    wire           fw_n     = (arm || s_next) ? fw_l : fw_t;
    wire           fn_l     = arm ? (w0_sb_q[1] && w0_last_q) : (hd_oh_q[0] && hd_last_q);
    wire           fn_t     = s_take ? (sb_q[2] && s_lastw_q) : fn_q;
    wire           fn_n     = (arm || s_next) ? fn_l : fn_t;
    wire           th_l     = arm ? (w0_sb_q[TH_I] && !w0_last_q) : (hd_sb[TH_I] && !hd_last_q);
    wire           th_t     = s_take ? (sb_q[TH_I + 1] && !s_lastw_q) : th_q;
    wire           th_n     = (arm || s_next) ? th_l : th_t;
    wire           busy_n   = arm || (s_busy_q && !fr_end);
    wire           aw_n     = !arm && w0v_in && !(s_busy_q && !fr_end);
    // word 0 waiting after this cycle (not armed now: arrived before or now) and S ending with
    // the frame's last byte
    wire           wfn_l    = w0v_in && hd_oh_q[0] && hd_last_q;
    wire           wfn_t    = w0v_in && (s_take ? (sb_q[2] && s_lastw_q) : fn_q);
    wire           wfn_n    = !arm && (s_next ? wfn_l : wfn_t);

    always @(posedge clk) begin
        // ---- release queue
        if (rst) begin
            rl_th_q <= 2'd0;
            rl_ok_q <= 1'b1;
        end else begin
            if (rl_push && !rl_pop) begin
                rl_th_q <= {rl_th_q[0], 1'b1};
            end else if (rl_pop && !rl_push) begin
                rl_th_q <= {1'b0, rl_th_q[1]};
            end
            // not 2 entries after this cycle
            rl_ok_q <= !(rl_th_q[1] ? !(rl_pop && !rl_push) : (rl_th_q[0] && rl_push && !rl_pop));
        end
        if (rl_pop) begin
            rl0_q <= rl_th_q[1] ? rl1_q : rl_push_h;
        end else if (!rl_th_q[0]) begin
            rl0_q <= rl_push_h;
        end
        if ((rl_th_q[0] && !rl_th_q[1] && !rl_pop) || (rl_th_q[1] && rl_pop)) begin
            rl1_q <= rl_push_h;
        end

        // ---- N stage, release rule
        go_q <= n_valid_q && !n_load && !start && (n_sf_q || now_ns - n_ts_q >= cfg_release_ns);
        if (n_load) begin
            n_head_q <= qh_head;
            // a strip frame's rule is met 32 ns (4 cycles) early: with its 4-cycle hold its
            // first byte leaves when any other frame's would (the latency does not depend on
            // the edit)
            n_ts_q   <= (qh_op == OP_STRIP) ? qh_ts - 24'd32 : qh_ts;
            n_sf_q   <= qh_sf;
            n_op_q   <= qh_op;
            n_tci_q  <= qh_tci;
            n_tsi_q  <= qh_tsi;
            n_strip_q <= qh_op == OP_STRIP;
        end
        if (start) begin
            c_head_q <= n_head_q;
        end
        if (rsp_valid && t_w0) begin
            w0_arr_q  <= r_arr;
            w0_sb_q   <= r_sb;
            w0_last_q <= rsp_user[`FP_NW_LAST];
            w0_bad_q  <= rsp_user[`FP_NW_BAD];
        end

        // ---- request register (its fields matter only with a request: issue_s at a start,
        // issue_w0 when C's last word arrives, issue_c when C has words due, else issue_w0)
        if (rd_free) begin
            if (start) begin
                rd_follow_q <= 1'b0;
                rd_seg_q    <= n_head_q;
                rd_word_q   <= {{(WW-1){1'b0}}, 1'b1};
                rd_tag_q    <= {1'b0, !epoch_q, 2'b00};
            end else if (!c_last_in && c_due) begin
                rd_follow_q <= rq_fol_q;
                rd_seg_q    <= rq_seg_q;
                rd_word_q   <= rq_w_q;
                rd_tag_q    <= {1'b0, epoch_q, rq_fol_q, rq_sp_q};
            end else begin
                rd_follow_q <= 1'b0;
                rd_seg_q    <= w0_seg;
                rd_word_q   <= {WW{1'b0}};
                rd_tag_q    <= 4'b1000;
            end
        end

        // ---- word FIFO and tag FIFO storage, their head registers
        if (r_c) begin
            wf_data[wf_wr_q] <= rsp_data;
            wf_side[wf_wr_q] <= {r_oh, r_last, r_bad};
        end
        if (s_next || !wf_ne) begin
            // the oldest word after this cycle: the next in the RAM, or the one arriving now
            // (if any: else the FIFO is empty and the head is not looked at)
            if (s_next && wf_th_q[1]) begin
                hd_data_q <= wf_data[wf_rd1_q];
                {hd_oh_q, hd_last_q, hd_bad_q} <= wf_side[wf_rd1_q];
            end else begin
                hd_data_q <= rsp_data;
                {hd_oh_q, hd_last_q, hd_bad_q} <= {r_oh, r_last, r_bad};
            end
        end
        if (rd_valid_q && rd_ready) begin
            tg_mem[tg_wr_q] <= rd_tag_q;
        end
        if (rsp_valid && tg_th_q[1]) begin
            tg_hd_q <= tg_mem[tg_rd1_q];
        end else if (rsp_valid || !tg_th_q[0]) begin
            tg_hd_q <= rd_tag_q;
        end

        // ---- shift register data (no reset needed)
        if (s_load) begin
            s_q <= ld_data;
        end else if (s_take) begin
            s_q <= {s_q[7:0], s_q[159:8]};
        end
        if (s_take) begin
            o_data_q <= s_q[7:0];
            o_last_q <= s_lastw_q && sb_q[1];
            o_bad_q  <= s_lastw_q && sb_q[1] && s_bad_q;
            o_ts_q   <= s_first_q && (start ? n_tsi_q : s_tsi_q);
        end

        if (rst) begin
            q_ready_q  <= 1'b1;
            n_valid_q  <= 1'b0;
            n_req_q    <= 1'b0;
            w0_valid_q <= 1'b0;
            c_done_q   <= 1'b1;
            epoch_q    <= 1'b0;
            c_words_q  <= 7'd0;
            cut_q      <= 1'b0;
            cm1_q      <= 1'b0;
            due_q      <= 7'd0;
            w1_q       <= 5'd0;
            w1one_q    <= 1'b0;
            rq_seg_q   <= {SW{1'b0}};
            rq_w_q     <= {WW{1'b0}};
            rq_fol_q   <= 1'b0;
            rq_hop2_q  <= 1'b0;
            rq_sp_q    <= 1'b0;
            rq_up_q    <= 1'b0;
            rd_valid_q <= 1'b0;
            wf_wr_q    <= 2'd0;
            wf_rd1_q   <= 2'd1;
            wf_th_q    <= 4'd0;
            tg_wr_q    <= 2'd0;
            tg_rd1_q   <= 2'd1;
            tg_th_q    <= 4'd0;
            sb_q       <= 21'd1;
            s_busy_q   <= 1'b0;
            h1_q       <= 1'b0;
            s_lastw_q  <= 1'b0;
            s_bad_q    <= 1'b0;
            s_first_q  <= 1'b0;
            s_arm_q    <= 1'b0;
            s_hold_q   <= 3'd0;
            s_run_q    <= 1'b0;
            s_tsi_q    <= 1'b0;
            rh_q       <= 1'b0;
            as_q       <= 1'b0;
            ew_q       <= 1'b0;
            fw_q       <= 1'b0;
            fn_q       <= 1'b0;
            aw_q       <= 1'b0;
            wfn_q      <= 1'b0;
            th_q       <= 1'b0;
            o_valid_q  <= 1'b0;
            o_free_q   <= 1'b1;
            inframe_q  <= 1'b0;
            under_q    <= 1'b0;
            ev_frame   <= 1'b0;
            ev_underrun <= 1'b0;
        end else begin
            // descriptor queue: not full after this cycle
            q_ready_q <= (q_count == QUEUE[$clog2(QUEUE):0]) ? (q_pop && !q_push)
                       : !(q_count == QUEUE[$clog2(QUEUE):0] - 1'b1 && q_push && !q_pop);

            // N stage
            if (n_load) begin
                n_valid_q <= 1'b1;
                n_req_q   <= issue_w0;
            end else begin
                if (start) begin
                    n_valid_q <= 1'b0;
                end
                if (issue_w0) begin
                    n_req_q <= 1'b1;
                end
            end
            if (rsp_valid && t_w0) begin
                w0_valid_q <= 1'b1;
            end else if (arm) begin
                w0_valid_q <= 1'b0;
            end

            // C frame: start, words read, release
            if (start) begin
                epoch_q   <= !epoch_q;
                c_done_q  <= w0_last_q;
                c_words_q <= 7'd1;
                cut_q     <= 1'b0;
                cm1_q     <= 1'b0;
                w1_q      <= W1;
                w1one_q   <= W1 == 5'd1;
                rq_seg_q  <= n_head_q;
            end else begin
                if (r_c) begin
                    c_words_q <= c_words_q + 7'd1;
                    cut_q     <= cm1_q;
                    cm1_q     <= c_words_q == MAXW - 7'd2;
                    if (r_last) begin
                        c_done_q <= 1'b1;
                    end
                end
                if (w1_q != 5'd0) begin
                    w1_q <= w1_q - 5'd1;
                end
                w1one_q <= w1_q == 5'd2;
                if (learn) begin
                    rq_seg_q <= rsp_seg;
                end
            end
            // (at a start no C word arrives or is requested: learn and issue_c are 0)
            if (start || issue_c) begin
                rq_w_q <= start ? (s2 ? {WW{1'b0}} : (issue_s ? W2 : {{(WW-1){1'b0}}, 1'b1}))
                                : rq_w_q + 1'b1;
            end
            rq_sp_q   <= start ? s2 : (rq_sp_q ^ issue_cw);
            rq_hop2_q <= !start && !learn && (rq_hop2_q || (issue_cw && rq_fol_q));
            rq_fol_q  <= (start ? s2 : rq_fol_q) ? !(learn && !rq_hop2_q && !issue_cw) : issue_cw;
            rq_up_q   <= issue_cw ? (rq_fol_q ? (learn ? (rq_hop2_q ? rq_sp_q : !rq_sp_q) : rq_up_q)
                                              : !rq_sp_q)
                                  : (lhop ? rq_sp_q : (rq_up_q || s2));
            due_q     <= due_d;

            // request register
            if (rd_free) begin
                rd_valid_q <= issue_c || issue_w0 || issue_s;
            end

            // word FIFO
            if (r_c) begin
                wf_wr_q <= wf_wr_q + 2'd1;
            end
            if (s_next) begin
                wf_rd1_q <= wf_rd1_q + 2'd1;
            end
            if (r_c && !s_next) begin
                wf_th_q <= {wf_th_q[2:0], 1'b1};
            end else if (s_next && !r_c) begin
                wf_th_q <= {1'b0, wf_th_q[3:1]};
            end

            // tag FIFO
            if (rd_valid_q && rd_ready) begin
                tg_wr_q <= tg_wr_q + 2'd1;
            end
            if (rsp_valid) begin
                tg_rd1_q <= tg_rd1_q + 2'd1;
            end
            if (rd_valid_q && rd_ready && !rsp_valid) begin
                tg_th_q <= {tg_th_q[2:0], 1'b1};
            end else if (rsp_valid && !(rd_valid_q && rd_ready)) begin
                tg_th_q <= {1'b0, tg_th_q[3:1]};
            end

            // serializer
            if (start) begin
                s_hold_q <= n_strip_q ? 3'd4 : 3'd0;
                s_tsi_q  <= n_tsi_q;
                h1_q     <= 1'b0;
            end else if (s_hold_q != 3'd0) begin
                s_hold_q <= s_hold_q - 3'd1;
                h1_q     <= s_hold_q == 3'd2;
            end
            s_busy_q <= busy_n;
            s_arm_q  <= s_arm_n;
            s_run_q  <= s_run_n;
            if (s_load) begin
                sb_q      <= ld_sb;
                s_lastw_q <= ld_last;
                s_bad_q   <= ld_bad;
                s_first_q <= src_w0 || (s_first_q && !s_take);
            end else if (s_take) begin
                sb_q      <= {1'b0, sb_q[20:1]};
                s_first_q <= 1'b0;
                if (sb_q[1]) begin
                    s_lastw_q <= 1'b0;
                end
            end
            rh_q  <= s_run_n || h1_n;
            as_q  <= s_arm_n && !strip_n;
            ew_q  <= ew_n;
            fw_q  <= fw_n;
            fn_q  <= fn_n;
            aw_q  <= aw_n;
            wfn_q <= wfn_n;
            th_q  <= th_n;

            // output register
            if (s_take) begin
                o_valid_q <= 1'b1;
                o_free_q  <= 1'b0;
            end else if (m_axis_tready) begin
                o_valid_q <= 1'b0;
                o_free_q  <= 1'b1;
            end
            if (o_valid_q && m_axis_tready) begin
                inframe_q <= !o_last_q;
            end
            ev_frame    <= o_valid_q && m_axis_tready && o_last_q;
            ev_underrun <= inframe_q && m_axis_tready && !o_valid_q && !under_q;
            if (inframe_q && m_axis_tready && !o_valid_q) begin
                under_q <= 1'b1;
            end else if (o_valid_q && m_axis_tready && o_last_q) begin
                under_q <= 1'b0;
            end
        end
    end

    assign rd_valid  = rd_valid_q;
    assign rd_follow = rd_follow_q;
    assign rd_seg    = rd_seg_q;
    assign rd_word   = rd_word_q;

    assign m_axis_tdata     = o_data_q;
    assign m_axis_tkeep     = 1'b1;
    assign m_axis_tvalid    = o_valid_q;
    assign m_axis_tlast     = o_last_q;
    assign m_axis_tuser     = o_bad_q;
    assign m_axis_ts_insert = o_ts_q;

endmodule

`default_nettype wire
