// fp_fade_desc: FADE-10G descriptor manager. Owns the packet buffer's bookkeeping: writes the
// user's words into the packet RAM, keeps one descriptor per buffer slot, handles ACK/NACK,
// decides (re)transmissions and frees confirmed packets in order from the tail.
//
// Packets are numbered from 0 after START; packet p lives in slot p mod 2^N. Three 32-bit
// pointers: tail (oldest packet held), snd (next packet never sent), fill (packet being filled);
// tail <= snd <= fill <= tail + 2^N. Packets in [tail, fill) are complete (V), in [tail, snd) sent
// (S); per slot: confirmed (C), resend (R) + its reason, and in a small RAM the last frame
// sequence number (Seq) and the time of the last transmission. The paper's F flag is the LAST
// packet register (last_pkt, last_nwords).
//
// User input: s_axis_tready = running, no STOP pending and fill - tail < 2^N. One word per
// cycle, no bubble at packet boundaries (the next slot is used in the next cycle).
// STOP: the packet being filled (0..1023 words) becomes the LAST packet as soon as its slot is
// free (the cycle after stop_pulse, or after a slot is freed when the buffer is full); then no
// more input. When the LAST packet is freed the state returns to idle.
//
// ACK (seq S, pkt P), taken from the FIFO when the manager is not scanning:
//   P in [tail, snd) and not confirmed -> C = 1 (ev_ack); then every Q in [tail, P), sent,
//     unconfirmed, not already marked, whose Seq is older than S (16-bit: S > Seq iff
//     (S - Seq) mod 2^16 in 1..2^15) is marked for retransmission (reason early). 1 cycle per Q.
//   P in [tail, snd) and confirmed, or P older than tail -> stale (ev_ack_stale).
//   anything else (never sent, or in the future) -> ev_proto_err.
// NACK P: P sent and unconfirmed -> marked for retransmission (reason nack); else as ACK.
// Timeout: between ACKs the manager scans one slot per cycle; a sent, unconfirmed packet whose
//   last transmission is TIMEOUT or more cycles old is marked (reason timeout).
// The transmitter takes marked packets first (lowest slot), then the next unsent one.
//
// Latency: ACK on the FIFO output (ack_valid) -> C set 3 cycles later -> packet freed (tail
//   moves, s_axis_tready rises if it was full) 1 cycle after that. NACK on the FIFO output ->
//   tx_avail with that packet 4 cycles later (the choice offered to the transmitter is a
//   register, one cycle behind the descriptors). A slot read by a scan (early retransmission or
//   timeout) is marked 3 cycles after its read (RAM, age compares, mark). Freeing: one packet per
//   cycle, except in the cycle an ACK's distance P - tail is computed.
// Throughput: one user word per cycle while s_axis_tready is high; one ACK/NACK per 3 cycles
//   (ack_ready only in the idle step), plus 1 cycle per slot scanned for early retransmission.
// Bad input: ACK/NACK are checked (stale -> ev_ack_stale, never sent -> ev_proto_err, ignored;
//   P - tail >= 2^31 counts as stale; "sent" is judged in the cycle P - tail is computed, so an
//   ACK of a packet whose first transmission starts in that very cycle is a protocol error).
//   START while not idle and STOP while not running are ignored.
//   The transmitter is trusted: tx_take without tx_avail would still advance the send pointer.
// Parameters: N 2..6; TIMEOUT 16..2^28 cycles; PKT_INIT, SEQ_INIT: first packet number and frame
//   sequence number after START (0 in the protocol; other values only to test wrap-around).
`default_nettype none

module fp_fade_desc #(
    parameter N = 4,
    parameter TIMEOUT = 100000,
    parameter [31:0] PKT_INIT = 32'd0,
    parameter [15:0] SEQ_INIT = 16'd0
) (
    input  wire            clk,
    input  wire            rst,

    input  wire            start_pulse,
    input  wire            stop_pulse,
    output reg  [1:0]      state,

    input  wire [63:0]     s_axis_tdata,
    input  wire            s_axis_tvalid,
    output wire            s_axis_tready,

    output wire            ram_wen,
    output wire [N+9:0]    ram_waddr,
    output wire [63:0]     ram_wdata,

    input  wire            ack_valid,
    output wire            ack_ready,
    input  wire            ack_nack,
    input  wire [15:0]     ack_seq,
    input  wire [31:0]     ack_pkt,

    output wire            tx_avail,
    output wire [31:0]     tx_pkt,
    output wire [N-1:0]    tx_slot,
    output wire            tx_last,
    output wire [9:0]      tx_nwords,
    output wire [1:0]      tx_reason,
    output wire [15:0]     tx_seq,
    input  wire            tx_take,
    input  wire            tx_busy,
    input  wire [N-1:0]    tx_busy_slot,

    output reg             ev_ack,
    output reg             ev_nack,
    output reg             ev_ack_stale,
    output reg             ev_proto_err
);

    generate
        if (N < 2 || N > 6) begin : g_bad_n
            PARAMETER_ERROR_N_must_be_2_to_6 u_error();
        end
        if (TIMEOUT < 16 || TIMEOUT > (1 << 28)) begin : g_bad_timeout
            PARAMETER_ERROR_TIMEOUT_must_be_16_to_2_pow_28 u_error();
        end
    endgenerate

    localparam M  = 1 << N;
    // Time stamps of TW bits, 2^TW > 4 * TIMEOUT. timed_out is the sign of (age - TIMEOUT) mod
    // 2^TW, right for ages below TIMEOUT + 2^(TW-1) > 3 * TIMEOUT: the age never wraps unseen.
    localparam TW = $clog2(TIMEOUT + 1) + 2;
    localparam [TW-1:0] TO = TIMEOUT;
    localparam [N:0]    MN = M;
    localparam [1:0] S_IDLE = 2'd0, S_RUN = 2'd1, S_STOP = 2'd2;
    localparam [1:0] R_NEW = 2'd0, R_EARLY = 2'd1, R_NACK = 2'd2, R_TIMEOUT = 2'd3;
    localparam [1:0] D_IDLE = 2'd0, D_ACK = 2'd1, D_SCAN = 2'd2, D_CLS = 2'd3;

    reg [31:0]   tail, snd, fill;
    reg [9:0]    fill_cnt;
    reg          stop_req;
    reg          last_valid;
    reg [31:0]   last_pkt;
    reg [9:0]    last_nwords;
    reg [M-1:0]  conf, resend;
    reg [M-1:0]  sent;            // per slot: in [tail, snd) (the S flag; timing: no slot - tail)
    reg [2*M-1:0] reason;
    reg [15:0]   seq_ctr;
    reg [TW-1:0] now;
    reg [TW-1:0] now_to;          // now - TIMEOUT (a register: one subtraction behind the RAM)

    // fill - tail and snd - tail (0..2^N), kept as registers updated with the pointers (timing:
    // no subtractor in front of the compares that use them)
    reg  [N:0]   n_valid, n_sent;
    wire [N-1:0] tail_slot = tail[N-1:0];
    wire         room = n_valid != MN;

    // ---- user input ----
    assign s_axis_tready = state == S_RUN && !stop_req && room;
    wire   word_in = s_axis_tvalid && s_axis_tready;
    assign ram_wen   = word_in;
    assign ram_waddr = {fill[N-1:0], fill_cnt};
    assign ram_wdata = s_axis_tdata;

    // ---- transmission choice: a marked packet (lowest slot) first, else the next unsent ----
    // (timing: the lowest marked slot as a one-hot word from one carry chain, then OR trees for its
    // number and reason, instead of a priority chain; the packet number's wrap from a mask)
    wire [M-1:0] want = resend & ~conf;
    wire [M-1:0] want_low = want & (~want + {{(M-1){1'b0}}, 1'b1});   // lowest set bit only
    reg  [N-1:0] want_slot;
    reg  [1:0]   want_reason;
    // slots below tail_slot, a register kept with tail (timing: no compare in front of the choice)
    reg  [M-1:0] below_tail;
    localparam [M:0]   INIT_ONE   = {{M{1'b0}}, 1'b1} << PKT_INIT[N-1:0];
    localparam [M-1:0] BELOW_INIT = INIT_ONE[M-1:0] - 1'b1;
    integer i;
    always @* begin
        want_slot   = {N{1'b0}};
        want_reason = 2'd0;
        for (i = 0; i < M; i = i + 1) begin
            want_slot     = want_slot | (want_low[i] ? i[N-1:0] : {N{1'b0}});
            want_reason   = want_reason | (want_low[i] ? reason[2 * i +: 2] : 2'd0);
        end
    end
    wire         have_want = |want;
    // packet number of want_slot: the one in [tail, tail + 2^N) with those low bits; it is in the
    // next 2^N block when the lowest marked slot is below tail_slot
    wire         want_wrap = |(want & below_tail);
    // tail[31:N] + 1, kept as a register updated with tail (timing: no carry chain in front of
    // the choice register)
    reg  [31-N:0] tail_hi1;
    wire [31:0]  want_pkt  = want_wrap ? {tail_hi1, want_slot} : {tail[31:N], want_slot};
    wire [31:0]  next_pkt  = have_want ? want_pkt : snd;
    wire [N-1:0] next_slot = have_want ? want_slot : snd[N-1:0];
    // The choice is registered (timing): it lags the descriptors by one cycle. The transmitter
    // takes at most one packet per frame, so it never sees the same stale choice twice; a packet
    // confirmed in that cycle may be sent once more (the host ACKs it again as a duplicate).
    reg          c_avail, c_want, c_last;
    reg  [31:0]  c_pkt;
    reg  [1:0]   c_reason;
    assign tx_avail  = c_avail;
    assign tx_pkt    = c_pkt;
    assign tx_slot   = c_pkt[N-1:0];
    assign tx_last   = c_last;
    assign tx_nwords = last_nwords;
    assign tx_reason = c_reason;
    assign tx_seq    = seq_ctr;

    // ---- descriptor RAM: {Seq, time of last transmission} per slot ----
    reg  [1:0]    dstate;
    reg  [N-1:0]  scan_slot;      // slot read this cycle
    reg  [N:0]    scan_left;      // ACK scan: slots still to read
    reg  [N-1:0]  idle_slot;      // timeout scan position
    wire [N-1:0]  rd_slot = dstate == D_SCAN ? scan_slot : idle_slot;
    wire [15+TW:0] rd_data;

    fp_ram_sdp #(.ADDR_WIDTH(N), .DATA_WIDTH(16 + TW)) u_desc_ram (
        .clk(clk),
        .wen(tx_take), .waddr(tx_slot), .wdata({seq_ctr, now}),
        .ren(1'b1), .raddr(rd_slot), .rdata(rd_data)
    );

    // Evaluation stage E (one cycle after the read): the slot's age compares, registered; stage F
    // (the next cycle) marks the slot with the descriptors of that cycle (timing: no carry chain
    // in front of the descriptor update).
    reg          ev_v, ev_early, ev_skip;
    reg [N-1:0]  ev_slot;
    reg [15:0]   ev_s;
    wire [15:0]  d_seq  = rd_data[15+TW:TW];
    wire [TW-1:0] d_time = rd_data[TW-1:0];
    wire [15:0]  seq_age = ev_s - d_seq;
    // seq_age in 1..2^15, as bit logic (not a second carry chain behind the subtraction)
    wire         is_older = seq_age != 16'd0 && (!seq_age[15] || seq_age[14:0] == 15'd0);
    wire [TW-1:0] to_diff  = now_to - d_time;   // age - TIMEOUT
    wire         timed_out = !to_diff[TW-1];
    reg          f_v, f_skip, f_early_mark, f_timeout_mark;
    reg [N-1:0]  f_slot;
    // A transmission of the slot makes the time read stale, so it is not marked: in the read
    // cycle (ev_skip), in stage E (f_skip), in stage F (the tx_take clear of resend comes later
    // in the always block).
    wire         f_cand = f_v && !f_skip && sent[f_slot] && !conf[f_slot] && !resend[f_slot];

    // ---- ACK classification ----
    reg          a_nack;
    reg  [15:0]  a_seq;
    reg  [31:0]  a_pkt;
    reg  [N:0]   a_d;                 // P - tail (low bits), registered in D_ACK (no freeing there)
    reg          a_sent, a_old;       // P in [tail, snd); P - tail >= 2^31: both from D_ACK
    wire [N-1:0] a_slot   = a_pkt[N-1:0];
    wire [31:0]  a_d_now  = a_pkt - tail;
    wire         a_stale  = a_old || (a_sent && conf[a_slot]);

    assign ack_ready = dstate == D_IDLE;

    wire free_it = tail != fill && conf[tail_slot] && !(tx_busy && tx_busy_slot == tail_slot) &&
                   dstate != D_ACK;

    wire fill_inc = (word_in && fill_cnt == 10'd1023) || (stop_req && room);
    wire snd_inc  = tx_take && !c_want;

    always @(posedge clk) begin
        now          <= now + 1'b1;
        now_to       <= now_to + 1'b1;
        n_valid      <= n_valid + {{N{1'b0}}, fill_inc} - {{N{1'b0}}, free_it};
        n_sent       <= n_sent + {{N{1'b0}}, snd_inc} - {{N{1'b0}}, free_it};
        c_avail      <= have_want || snd != fill;
        c_want       <= have_want;
        c_pkt        <= next_pkt;
        c_last       <= last_valid && next_slot == last_pkt[N-1:0];   // slots are unique in the buffer
        c_reason     <= have_want ? want_reason : R_NEW;
        ev_ack       <= 1'b0;
        ev_nack      <= 1'b0;
        ev_ack_stale <= 1'b0;
        ev_proto_err <= 1'b0;

        // user words
        if (word_in) begin
            fill_cnt <= fill_cnt + 1'b1;
            if (fill_cnt == 10'd1023) fill <= fill + 1'b1;
        end
        // STOP: close the LAST packet when its slot is free
        if (stop_pulse && state == S_RUN) stop_req <= 1'b1;
        if (stop_req && room) begin
            stop_req    <= 1'b0;
            last_valid  <= 1'b1;
            last_pkt    <= fill;
            last_nwords <= fill_cnt;
            fill        <= fill + 1'b1;
            fill_cnt    <= 10'd0;
            state       <= S_STOP;
        end

        // evaluation of the slot read last cycle (E: timeout, early retransmission), marked in F
        ev_v           <= 1'b0;
        f_v            <= ev_v;
        f_slot         <= ev_slot;
        f_skip         <= ev_skip || (tx_take && tx_slot == ev_slot);
        f_early_mark   <= ev_early && is_older;
        f_timeout_mark <= timed_out;
        if (f_cand && f_early_mark) begin
            resend[f_slot]          <= 1'b1;
            reason[2 * f_slot +: 2] <= R_EARLY;
        end else if (f_cand && f_timeout_mark) begin
            resend[f_slot]          <= 1'b1;
            reason[2 * f_slot +: 2] <= R_TIMEOUT;
        end

        case (dstate)
            D_IDLE: begin
                ev_v      <= 1'b1;
                ev_early  <= 1'b0;
                ev_slot   <= idle_slot;
                ev_skip   <= tx_take && tx_slot == idle_slot;
                idle_slot <= idle_slot + 1'b1;
                if (ack_valid) begin
                    a_nack <= ack_nack;
                    a_seq  <= ack_seq;
                    a_pkt  <= ack_pkt;
                    dstate <= D_ACK;
                end
            end
            D_ACK: begin
                // a_d_now < n_sent (<= 2^N) as the high bits all zero and an (N+1)-bit compare,
                // registered here (timing: no subtractor or compare in front of the descriptors)
                a_d    <= a_d_now[N:0];
                a_sent <= a_d_now[31:N+1] == {(31-N){1'b0}} && a_d_now[N:0] < n_sent;
                a_old  <= a_d_now[31];
                dstate <= D_CLS;
            end
            D_CLS: begin
                dstate <= D_IDLE;
                if (a_stale) begin
                    ev_ack_stale <= 1'b1;
                end else if (!a_sent) begin
                    ev_proto_err <= 1'b1;
                end else if (a_nack) begin
                    ev_nack               <= 1'b1;
                    resend[a_slot]        <= 1'b1;
                    reason[2 * a_slot +: 2] <= R_NACK;
                end else begin
                    ev_ack          <= 1'b1;
                    conf[a_slot]    <= 1'b1;
                    resend[a_slot]  <= 1'b0;
                    scan_slot       <= tail_slot;
                    scan_left       <= a_d[N:0];
                    if (a_d[N:0] != 0) dstate <= D_SCAN;
                end
            end
            default: begin  // D_SCAN: read slots tail .. P-1, evaluated next cycle
                ev_v      <= 1'b1;
                ev_early  <= 1'b1;
                ev_s      <= a_seq;
                ev_slot   <= scan_slot;
                ev_skip   <= tx_take && tx_slot == scan_slot;
                scan_slot <= scan_slot + 1'b1;
                scan_left <= scan_left - 1'b1;
                if (scan_left == 1) dstate <= D_IDLE;
            end
        endcase

        // freeing from the tail, one packet per cycle
        if (free_it) begin
            conf[tail_slot]   <= 1'b0;
            resend[tail_slot] <= 1'b0;
            sent[tail_slot]   <= 1'b0;
            tail              <= tail + 1'b1;
            if (&tail_slot) tail_hi1 <= tail_hi1 + 1'b1;   // = (tail + 1)[31:N] + 1
            below_tail        <= &tail_slot ? {M{1'b0}} : {below_tail[M-2:0], 1'b1};
            if (last_valid && tail == last_pkt) begin
                last_valid <= 1'b0;
                state      <= S_IDLE;
            end
        end

        // transmission taken: the last word on this slot
        if (tx_take) begin
            seq_ctr         <= seq_ctr + 1'b1;
            resend[tx_slot] <= 1'b0;
            if (snd_inc) begin
                snd                <= snd + 1'b1;
                sent[snd[N-1:0]]   <= 1'b1;
            end
        end

        if (start_pulse && state == S_IDLE) begin
            state    <= S_RUN;
            tail     <= PKT_INIT;
            tail_hi1 <= PKT_INIT[31:N] + 1'b1;
            below_tail <= BELOW_INIT;
            snd      <= PKT_INIT;
            fill     <= PKT_INIT;
            fill_cnt <= 10'd0;
            n_valid  <= {(N+1){1'b0}};
            n_sent   <= {(N+1){1'b0}};
            conf     <= {M{1'b0}};
            resend   <= {M{1'b0}};
            sent     <= {M{1'b0}};
            seq_ctr  <= SEQ_INIT;
        end

        if (rst) begin
            state      <= S_IDLE;
            tail       <= PKT_INIT;
            tail_hi1   <= PKT_INIT[31:N] + 1'b1;
            below_tail <= BELOW_INIT;
            snd        <= PKT_INIT;
            fill       <= PKT_INIT;
            fill_cnt   <= 10'd0;
            n_valid    <= {(N+1){1'b0}};
            n_sent     <= {(N+1){1'b0}};
            stop_req   <= 1'b0;
            last_valid <= 1'b0;
            last_pkt   <= 32'd0;
            last_nwords <= 10'd0;
            conf       <= {M{1'b0}};
            resend     <= {M{1'b0}};
            sent       <= {M{1'b0}};
            reason     <= {2*M{1'b0}};
            seq_ctr    <= SEQ_INIT;
            now        <= {TW{1'b0}};
            now_to     <= {TW{1'b0}} - TO;
            c_avail    <= 1'b0;
            c_want     <= 1'b0;
            c_last     <= 1'b0;
            c_pkt      <= PKT_INIT;
            c_reason   <= R_NEW;
            dstate     <= D_IDLE;
            scan_slot  <= {N{1'b0}};
            scan_left  <= {(N+1){1'b0}};
            idle_slot  <= {N{1'b0}};
            ev_v       <= 1'b0;
            f_v        <= 1'b0;
            f_skip     <= 1'b0;
            f_slot     <= {N{1'b0}};
            f_early_mark   <= 1'b0;
            f_timeout_mark <= 1'b0;
            ev_early   <= 1'b0;
            ev_skip    <= 1'b0;
            ev_slot    <= {N{1'b0}};
            ev_s       <= 16'd0;
            a_nack     <= 1'b0;
            a_seq      <= 16'd0;
            a_pkt      <= 32'd0;
            a_d        <= {(N+1){1'b0}};
            a_sent     <= 1'b0;
            a_old      <= 1'b0;
            ev_ack     <= 1'b0;
            ev_nack    <= 1'b0;
            ev_ack_stale <= 1'b0;
            ev_proto_err <= 1'b0;
        end
    end

endmodule

`default_nettype wire
