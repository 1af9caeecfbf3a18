// fp_node_wbuf: the word-serial node's shared segment buffer (issue #18): SOURCES word streams
// written into linked lists of segments, read word by word by READERS readers, freed by
// reference count.
//
// A frame is stored as 16-byte words (128 bits) with the node_word sideband (bad, last,
// nbytes_m1: node/rtl/node_word.fmt.toml) in a data RAM addressed {segment, word}; SEG_WORDS words
// make a segment, the allocation and linked-list unit (next[seg] = the frame's following segment).
//
// Write side. Each source carries one frame at a time (tlast ends it; the stored `last` bit is
// tlast, whatever the sideband says). s_axis_tready is a register: a round-robin arbiter
// (fp_rr_arbiter) picks, among the sources with tvalid, the one whose tready is high in the next
// cycle; the source being accepted may be picked again (a source keeping tvalid gets every cycle
// alone, and a source that drops tvalid after a beat loses that one slot). One word is written per
// cycle in all. A frame's first word allocates a segment (the head), every SEG_WORDS-th word
// after it the next one, linked by next[prev] = new. Admission: a frame starts only if the free
// segments minus those reserved by the frames in progress are >= MAX_FRAME_SEGS; it reserves
// MAX_FRAME_SEGS and gives back what it did not use at its end. A refused frame is consumed and
// dropped whole (ev_drop with its source, no other event). The word in a frame's position
// MAX_FRAME_SEGS * SEG_WORDS - 1 that is not its last is written with last = 1 and bad = 1, the
// rest of the frame is consumed and dropped (ev_trunc), and m_end carries bad = 1.
// Events (registered, each port at most once per cycle; a one-word frame gives m_start and m_end
// in the same cycle): m_start (src, head) when a frame's first word is written; m_end (src,
// head, tail, words, bad) when its last word is written.
//
// Frame state by head (a RAM: live, ended, ref given, count, tail), changed by one operation per
// cycle in a read-modify-write pipeline with forwarding, the operations taken in this order:
// the writer's start/end events (from a 32-entry queue), then refs (a 32-entry queue), then one
// release (round robin over the readers; s_rel_ready is a register, high only for a cycle in which
// both queues are empty, so a committed release never waits). The writer's tready is held low
// while the two queues hold 8 or more entries together (their size is never exceeded). A frame
// is freed when its end, its ref and all its releases have happened (any order): it goes into a
// queue of frames to free (2^SW entries: never full), from which a walker pushes its segments
// onto the free list, head first, following next[] (a second copy of the next RAM) to the tail.
//
// Read side. Per reader a request (valid/ready, ready a register as for the write streams; one
// grant per cycle in all): word `word` of segment `seg`, or with follow = 1 word `word` of
// next[seg]. The pipeline reads next[] (copy 1), chooses seg or next[seg], reads the data RAM. The
// response is on m_rd_* (m_rd_valid one-hot: whose; m_rd_seg: the segment read; no ready)
// exactly RD_LATENCY cycles after the grant. A request granted 2 or more cycles after a word's
// beat on s_axis (i.e. in the cycle of the frame's m_start or later for its first word) reads
// that word and its link; readers never check whether a word was written.
//
// Reset: the free list is filled with segments 0..SEGMENTS-1 and the frame state cleared in
// 2^SW cycles after rst (init_done low, every tready low, refs counted as errors).
//
// Latency:    first word's beat on s_axis (cycle c) -> m_start in cycle c + 2; last word's beat
//             -> m_end in cycle c + 2. Read grant (handshake in cycle g) -> response in cycle
//             g + 6 (RD_LATENCY). Last release's handshake (cycle r, frame ended, ref given,
//             pipeline and walker idle) -> its head counted in free_count in cycle r + 9, each
//             further segment 2 cycles after the one before; a count-0 ref (s_ref_valid in cycle
//             f) or an m_end (cycle e) that completes a frame: its head in cycle f + 10 / e + 10.
// Throughput: one word written (any mix of sources), one read and one state operation (start/end
//             event, ref or release) per cycle; releases take the cycles in which no event or
//             ref is queued. The walker frees one segment every 2 cycles (a one-segment frame:
//             one per cycle).
// Bad input:  a ref for a head that is not a started frame awaiting its ref (unknown head,
//             second ref, body segment) and a ref before init_done: stat_ref_err pulse, ignored.
//             A release of a frame that is not live, has no ref yet, or whose count is already 0:
//             stat_rel_err pulse, ignored. (A release must come in a cycle after its frame's ref,
//             a ref in a cycle after its m_start; earlier ones are such errors.) Nothing hangs.
//             A read of a word not written returns whatever the RAM holds. s_ref_count above
//             MAX_COPIES is counted down like any other.
// Status:     free_count (free segments, registered, one cycle behind the free list), frames_live
//             (frames started and not yet freed), init_done.
// Timing choices (125 MHz on ECP5): every tready/ready is a register (no input-to-output path);
//             the input word, the write address/data, the events and every RAM address come from
//             flip-flops; every block RAM's read data goes straight into a flip-flop of its own,
//             with no logic between (a DP16KD's clock-to-out is 5.8 ns on ECP5-6; the two
//             32-entry queues are LUT RAM with a registered read): the data RAM is built of
//             slices narrow enough to be one DP16KD each (2^(SW+WW) x SLW bits; one of the full
//             width and deeper than 2048 words is mapped as DP16KDs cascaded in depth, with a
//             multiplexer on their outputs), the free list and the queue of frames to free are
//             fp_fifo_fwft with HEAD_REG = 3 (the head a multiplexer of registers), the allocated
//             segment comes from the second of two registers fed by the free list's head (and
//             the walker takes its next frame from a register fed by its queue's head);
//             admission compares a counter of unreserved free segments kept a cycle ahead (ok
//             flag registered, give-backs applied two cycles late and frees three, which only
//             makes admission stricter); the state pipeline's forwarding matches are compared a
//             stage early.
// Memories:   data 2^(SW+WW) x (128 + FP_NW_W) in slices of SLW bits (the whole word up to 2048
//             words, then 4, 2, 1 bits: 34 DP16KD at 4096 words); next 2 x 2^SW x SW; frame state
//             2^SW x (3 + CW + SW); free list 2^SW x SW; frames to free 2^SW x 2*SW; two 32-entry
//             queues.
// Parameters: SOURCES 1..16, READERS 1..16, SEGMENTS 64..4096, SEG_WORDS 2 or 4, MAX_COPIES
//             1..16, MAX_FRAME_SEGS 1..SEGMENTS (1518-byte frames in 64-byte segments: 24).
`default_nettype none

`include "fp_node_word.vh"

module fp_node_wbuf #(
    parameter SOURCES        = 6,
    parameter READERS        = 6,
    parameter SEGMENTS       = 1024,
    parameter SEG_WORDS      = 4,
    parameter MAX_COPIES     = 12,
    parameter MAX_FRAME_SEGS = 24,
    // derived, do not set
    parameter SW   = $clog2(SEGMENTS),                         // segment number
    parameter WW   = $clog2(SEG_WORDS),                        // word in a segment
    parameter CW   = $clog2(MAX_COPIES + 1),                   // reference count
    parameter SRCW = (SOURCES > 1) ? $clog2(SOURCES) : 1,      // source index
    parameter FW   = $clog2(MAX_FRAME_SEGS * SEG_WORDS + 1),   // words of a frame
    parameter NCW  = $clog2(SEGMENTS + 1)                      // segment counts
) (
    input  wire                         clk,
    input  wire                         rst,

    input  wire [SOURCES*128-1:0]       s_axis_tdata,
    input  wire [SOURCES*`FP_NW_W-1:0]  s_axis_tuser,
    input  wire [SOURCES-1:0]           s_axis_tvalid,
    output wire [SOURCES-1:0]           s_axis_tready,
    input  wire [SOURCES-1:0]           s_axis_tlast,

    output reg                          m_start,
    output reg  [SRCW-1:0]              m_start_src,
    output reg  [SW-1:0]                m_start_head,
    output reg                          m_end,
    output reg  [SRCW-1:0]              m_end_src,
    output reg  [SW-1:0]                m_end_head,
    output reg  [SW-1:0]                m_end_tail,
    output reg  [FW-1:0]                m_end_words,
    output reg                          m_end_bad,
    output reg                          ev_drop,
    output reg  [SRCW-1:0]              ev_drop_src,
    output reg                          ev_trunc,
    output reg  [SRCW-1:0]              ev_trunc_src,

    input  wire                         s_ref_valid,
    input  wire [SW-1:0]                s_ref_head,
    input  wire [CW-1:0]                s_ref_count,

    input  wire [READERS-1:0]           s_rel_valid,
    input  wire [READERS*SW-1:0]        s_rel_head,
    output wire [READERS-1:0]           s_rel_ready,

    input  wire [READERS-1:0]           s_rd_valid,
    output wire [READERS-1:0]           s_rd_ready,
    input  wire [READERS-1:0]           s_rd_follow,
    input  wire [READERS*SW-1:0]        s_rd_seg,
    input  wire [READERS*WW-1:0]        s_rd_word,

    output reg  [READERS-1:0]           m_rd_valid,
    output wire [127:0]                 m_rd_data,
    output wire [`FP_NW_W-1:0]          m_rd_user,
    output reg  [SW-1:0]                m_rd_seg,

    output reg  [NCW-1:0]               free_count,
    output reg  [NCW-1:0]               frames_live,
    output reg                          init_done,
    output reg                          stat_ref_err,
    output reg                          stat_rel_err
);

    generate
        if (SOURCES < 1 || SOURCES > 16) begin : g_bad_sources
            PARAMETER_ERROR_SOURCES_must_be_1_to_16 u_error();
        end
        if (READERS < 1 || READERS > 16) begin : g_bad_readers
            PARAMETER_ERROR_READERS_must_be_1_to_16 u_error();
        end
        if (SEGMENTS < 64 || SEGMENTS > 4096) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_64_to_4096 u_error();
        end
        if (SEG_WORDS != 2 && SEG_WORDS != 4) begin : g_bad_seg_words
            PARAMETER_ERROR_SEG_WORDS_must_be_2_or_4 u_error();
        end
        if (MAX_COPIES < 1 || MAX_COPIES > 16) begin : g_bad_max_copies
            PARAMETER_ERROR_MAX_COPIES_must_be_1_to_16 u_error();
        end
        if (MAX_FRAME_SEGS < 1 || MAX_FRAME_SEGS > SEGMENTS) begin : g_bad_max_frame_segs
            PARAMETER_ERROR_MAX_FRAME_SEGS_must_be_1_to_SEGMENTS u_error();
        end
        if (SW != $clog2(SEGMENTS) || WW != $clog2(SEG_WORDS) || CW != $clog2(MAX_COPIES + 1)
                || SRCW != ((SOURCES > 1) ? $clog2(SOURCES) : 1)
                || FW != $clog2(MAX_FRAME_SEGS * SEG_WORDS + 1)
                || NCW != $clog2(SEGMENTS + 1)) begin : g_bad_derived
            PARAMETER_ERROR_derived_widths_must_not_be_set u_error();
        end
    endgenerate

    localparam NW    = `FP_NW_W;
    localparam DW    = 128 + NW;                    // a stored word: {sideband, data}
    localparam STW   = 3 + CW + SW;                 // frame state: {tail, count, refd, ended, live}
    localparam QD    = 32;                          // event and ref queues
    localparam QCW   = $clog2(QD) + 1;
    localparam HOLD  = 8;                           // writer held while the queues hold this many
    localparam AVW   = NCW + 1;                     // unreserved free segments (and 2*MFS)
    localparam MAXW  = MAX_FRAME_SEGS * SEG_WORDS;  // words of the longest frame
    localparam DAW   = SW + WW;                     // data RAM address
    // data RAM slices: 2^DAW words x SLW bits fit one DP16KD (4096 x 4, 8192 x 2, 16384 x 1,
    // 2048 x 9 and less deep ones wider), so Yosys cascades none in depth
    localparam SLW   = (DAW <= 11) ? DW : (DAW == 12) ? 4 : (DAW == 13) ? 2 : 1;
    localparam NSL   = (DW + SLW - 1) / SLW;

    localparam [SW:0]    SEGS      = SEGMENTS;
    // (integer first, then sliced: the parameters may come in as 32-bit values)
    localparam integer   POS_MAX_I = MAXW - 1;
    localparam integer   MFS_I     = MAX_FRAME_SEGS;
    localparam integer   MFS2_I    = 2 * MAX_FRAME_SEGS;
    localparam integer   LASTSEG_I = MAX_FRAME_SEGS - 1;
    localparam [FW-1:0]  POS_MAX   = POS_MAX_I[FW-1:0];
    localparam [FW-1:0]  POS_ONE   = 1;
    localparam [AVW-1:0] MFS_AV    = MFS_I[AVW-1:0];
    localparam [AVW-1:0] MFS2_AV   = MFS2_I[AVW-1:0];
    localparam [FW-WW-1:0] LASTSEG = LASTSEG_I[FW-WW-1:0];
    localparam [QCW-1:0] Q_ONE     = 1;
    localparam [QCW:0]   Q_HOLD    = HOLD;
    localparam [CW-1:0]  CNT_ONE   = 1;
    localparam [NCW-1:0] N_ONE     = 1;

    integer i;

    // ---------------------------------------------------------------------------------------
    // Reset sweep: fill the free list with 0..SEGMENTS-1, clear the frame state of all 2^SW heads
    // ---------------------------------------------------------------------------------------
    reg [SW-1:0] init_cnt;
    always @(posedge clk) begin
        if (rst) begin
            init_cnt  <= {SW{1'b0}};
            init_done <= 1'b0;
        end else if (!init_done) begin
            init_cnt <= init_cnt + 1'b1;
            if (init_cnt == {SW{1'b1}}) begin
                init_done <= 1'b1;
            end
        end
    end
    wire init_push = !init_done && ({1'b0, init_cnt} < SEGS);

    // ---------------------------------------------------------------------------------------
    // Write side: registered tready from a round-robin arbiter, input register (A)
    // ---------------------------------------------------------------------------------------
    reg                 hold_q;         // the event/ref queues are filling: stop the writer
    reg                 ok_q;           // a frame may be admitted (registered, see avail_q)
    wire                wr_ok = init_done && !hold_q;
    wire [SOURCES-1:0]  wa_grant;
    wire                wa_any;
    wire [SRCW-1:0]     wa_idx;
    reg  [SOURCES-1:0]  tready_q;
    reg  [SRCW-1:0]     tready_idx_q;

    fp_rr_arbiter #(
        .N(SOURCES)
    ) u_warb (
        .clk        (clk),
        .rst        (rst),
        .req        (s_axis_tvalid),
        .ack        (wa_any && wr_ok),
        .grant      (wa_grant),
        .grant_valid(wa_any),
        .grant_index(wa_idx)
    );

    always @(posedge clk) begin
        if (rst) begin
            tready_q <= {SOURCES{1'b0}};
        end else begin
            tready_q <= wa_grant & {SOURCES{wr_ok}};
        end
        tready_idx_q <= wa_idx;
    end
    assign s_axis_tready = tready_q;

    // the accepted word (tready_q is one-hot): an AND-OR of the inputs
    wire [SOURCES-1:0] acc = tready_q & s_axis_tvalid;
    reg  [127:0]       in_data;
    reg  [NW-1:0]      in_user;
    reg                in_last;
    always @* begin
        in_data = 128'd0;
        in_user = {NW{1'b0}};
        in_last = 1'b0;
        for (i = 0; i < SOURCES; i = i + 1) begin
            in_data = in_data | ({128{tready_q[i]}} & s_axis_tdata[i*128 +: 128]);
            in_user = in_user | ({NW{tready_q[i]}} & s_axis_tuser[i*NW +: NW]);
            in_last = in_last | (tready_q[i] & s_axis_tlast[i]);
        end
    end

    reg [SOURCES-1:0]  a_oh;            // the source of the word in A (zero: no word)
    reg [SRCW-1:0]     a_src;
    reg [127:0]        a_data;
    reg [NW-1:0]       a_user;
    reg                a_last;
    always @(posedge clk) begin
        if (rst) begin
            a_oh <= {SOURCES{1'b0}};
        end else begin
            a_oh <= acc;
        end
        a_src  <= tready_idx_q;
        a_data <= in_data;
        a_user <= in_user;
        a_last <= in_last;
    end

    // ---------------------------------------------------------------------------------------
    // Write side, stage B: per-source frame state, allocation, RAM write and event registers
    // ---------------------------------------------------------------------------------------
    reg  [SOURCES-1:0]    st_act;       // an admitted frame is being written
    reg  [SOURCES-1:0]    st_drop;      // the rest of a refused or truncated frame is consumed
    reg  [SOURCES-1:0]    st_nseg;      // the next word starts a segment
    reg  [SOURCES-1:0]    st_max;       // the next word takes the frame's last allowed position
    reg  [SOURCES*SW-1:0] st_head;
    reg  [SOURCES*SW-1:0] st_cur;
    reg  [SOURCES*FW-1:0] st_pos;       // the next word's index in the frame

    // the free list's head goes through two registers (sa, then sb = the spare): the RAM's
    // clock-to-out feeds only sa, whatever placement the allocation logic gets
    reg                   sa_v, sb_v;
    reg  [SW-1:0]         sa_q, sb_q;
    wire [SW-1:0]         spare_q = sb_q;

    wire [SOURCES-1:0] s_first = ~st_act & ~st_drop;
    wire [SOURCES-1:0] s_wr    = (s_first & {SOURCES{ok_q}}) | st_act;
    wire [SOURCES-1:0] s_end   = s_wr & ({SOURCES{a_last}} | st_max);

    wire b_wr     = |(a_oh & s_wr);
    wire b_first  = |(a_oh & s_first);
    wire b_newseg = |(a_oh & st_nseg);
    wire b_max    = |(a_oh & st_max);
    wire b_end    = b_wr && (a_last || b_max);
    wire b_trunc  = b_wr && b_max && !a_last;
    wire b_take   = b_wr && b_newseg;
    wire b_admit  = b_wr && b_first;
    wire b_refuse = |(a_oh & s_first) && !ok_q;

    reg [SW-1:0] b_cur, b_head;
    reg [FW-1:0] b_pos;
    always @* begin
        b_cur  = {SW{1'b0}};
        b_head = {SW{1'b0}};
        b_pos  = {FW{1'b0}};
        for (i = 0; i < SOURCES; i = i + 1) begin
            b_cur  = b_cur  | ({SW{a_oh[i]}} & st_cur[i*SW +: SW]);
            b_head = b_head | ({SW{a_oh[i]}} & st_head[i*SW +: SW]);
            b_pos  = b_pos  | ({FW{a_oh[i]}} & st_pos[i*FW +: FW]);
        end
    end
    wire [SW-1:0] b_seg   = b_take ? spare_q : b_cur;
    wire [SW-1:0] b_fhead = b_admit ? spare_q : b_head;

    genvar gs;
    generate
        for (gs = 0; gs < SOURCES; gs = gs + 1) begin : g_src
            wire [FW-1:0] pos1 = st_pos[gs*FW +: FW] + POS_ONE;
            always @(posedge clk) begin
                if (rst) begin
                    st_act[gs]               <= 1'b0;
                    st_drop[gs]              <= 1'b0;
                    st_nseg[gs]              <= 1'b1;
                    st_max[gs]               <= 1'b0;
                    st_pos[gs*FW +: FW]      <= {FW{1'b0}};
                end else if (a_oh[gs]) begin
                    if (s_wr[gs]) begin
                        st_act[gs]          <= !s_end[gs];
                        st_drop[gs]         <= s_end[gs] && !a_last;      // truncated
                        st_pos[gs*FW +: FW] <= s_end[gs] ? {FW{1'b0}} : pos1;
                        st_nseg[gs]         <= s_end[gs] || pos1[WW-1:0] == {WW{1'b0}};
                        st_max[gs]          <= !s_end[gs] && pos1 == POS_MAX;
                    end else begin
                        st_drop[gs]         <= !a_last;                   // refused or dropping
                    end
                end
            end
            always @(posedge clk) begin
                if (a_oh[gs] && s_wr[gs] && st_nseg[gs]) begin
                    st_cur[gs*SW +: SW] <= spare_q;
                end
                if (a_oh[gs] && s_first[gs]) begin
                    st_head[gs*SW +: SW] <= spare_q;
                end
            end
        end
    endgenerate

    // the write registers (the RAMs are written from flip-flops in the next cycle)
    reg            w_en, l_en;
    reg [DAW-1:0]  w_addr;
    reg [DW-1:0]   w_data;
    reg [SW-1:0]   l_addr, l_data;
    reg [NW-1:0]   b_user;
    always @* begin
        b_user = a_user;
        b_user[`FP_NW_LAST] = b_end;
        b_user[`FP_NW_BAD]  = a_user[`FP_NW_BAD] | b_trunc;
    end

    reg [FW-WW-1:0] gbe_q;              // segments an ending frame gives back
    always @(posedge clk) begin
        if (rst) begin
            w_en     <= 1'b0;
            l_en     <= 1'b0;
            m_start  <= 1'b0;
            m_end    <= 1'b0;
            ev_drop  <= 1'b0;
            ev_trunc <= 1'b0;
            gbe_q    <= {(FW-WW){1'b0}};
        end else begin
            w_en     <= b_wr;
            l_en     <= b_take && !b_first;
            m_start  <= b_admit;
            m_end    <= b_end;
            ev_drop  <= b_refuse;
            ev_trunc <= b_trunc;
            gbe_q    <= b_end ? LASTSEG - b_pos[FW-1:WW] : {(FW-WW){1'b0}};
        end
        w_addr       <= {b_seg, b_pos[WW-1:0]};
        w_data       <= {b_user, a_data};
        l_addr       <= b_cur;
        l_data       <= spare_q;
        m_start_src  <= a_src;
        m_start_head <= spare_q;
        m_end_src    <= a_src;
        m_end_head   <= b_fhead;
        m_end_tail   <= b_seg;
        m_end_words  <= b_pos + POS_ONE;
        m_end_bad    <= a_user[`FP_NW_BAD] | b_trunc;
        ev_drop_src  <= a_src;
        ev_trunc_src <= a_src;
    end

    // ---------------------------------------------------------------------------------------
    // Free list, spare segment, admission counter
    // ---------------------------------------------------------------------------------------
    wire          fl_push;
    wire [SW-1:0] fl_push_data;
    wire [SW-1:0] fl_head;
    wire          fl_empty;
    wire [SW:0]   fl_count;
    wire          sb_fill  = sa_v && (!sb_v || b_take);
    wire          fl_pop   = !fl_empty && (!sa_v || sb_fill);

    fp_fifo_fwft #(
        .WIDTH   (SW),
        .DEPTH   (1 << SW),
        .HEAD_REG(3)                    // the RAM's read data straight into a register
    ) u_free (
        .clk      (clk),
        .rst      (rst),
        .push     (fl_push),
        .push_data(fl_push_data),
        .pop      (fl_pop),
        .head     (fl_head),
        .empty    (fl_empty),
        .count    (fl_count)
    );

    always @(posedge clk) begin
        if (rst) begin
            sa_v <= 1'b0;
            sb_v <= 1'b0;
        end else begin
            sa_v <= fl_pop || (sa_v && !sb_fill);
            sb_v <= sb_fill || (sb_v && !b_take);
        end
        if (fl_pop) begin
            sa_q <= fl_head;
        end
        if (sb_fill) begin
            sb_q <= sa_q;
        end
    end

    // avail_q = free segments - segments reserved by frames in progress, as the admission sees
    // it: an admission takes MAX_FRAME_SEGS at once, give-backs arrive two cycles late, frees
    // three (a segment pushed onto an empty free list is the spare 2 cycles after its push).
    reg  [AVW-1:0] avail_q;
    reg  [AVW-1:0] gb_q;
    reg            fl_push_q;
    wire [AVW-1:0] avail_a = avail_q + gb_q;
    always @(posedge clk) begin
        if (rst) begin
            avail_q <= {AVW{1'b0}};
            gb_q    <= {AVW{1'b0}};
            ok_q    <= 1'b0;
            fl_push_q <= 1'b0;
        end else begin
            fl_push_q <= fl_push;
            gb_q    <= {{(AVW-FW+WW){1'b0}}, gbe_q} + {{(AVW-1){1'b0}}, fl_push_q};
            avail_q <= b_admit ? avail_a - MFS_AV : avail_a;
            ok_q    <= b_admit ? avail_a >= MFS2_AV : avail_a >= MFS_AV;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            free_count <= {NCW{1'b0}};
        end else begin
            free_count <= fl_count[NCW-1:0] + {{(NCW-1){1'b0}}, sa_v} + {{(NCW-1){1'b0}}, sb_v};
        end
    end

    // ---------------------------------------------------------------------------------------
    // Data RAM (NSL slices of SLW bits: a deeper one of the whole width is mapped by Yosys as
    // DP16KDs cascaded in depth, with a multiplexer between the RAMs and their output register)
    // and next RAMs
    // ---------------------------------------------------------------------------------------
    reg  [SW-1:0]  a3_seg;
    reg  [WW-1:0]  a3_word;
    wire [DW-1:0]  d_rdata;             // the slices' output registers

    genvar gk;
    generate
        for (gk = 0; gk < NSL; gk = gk + 1) begin : g_slice
            localparam K0 = gk * SLW;
            localparam KW = (DW - K0 < SLW) ? DW - K0 : SLW;
            wire [KW-1:0] d_raw;
            fp_ram_sdp #(
                .ADDR_WIDTH(DAW),
                .DATA_WIDTH(KW),
                .OUT_REG   (0)
            ) u_data (
                .clk  (clk),
                .wen  (w_en),
                .waddr(w_addr),
                .wdata(w_data[K0 +: KW]),
                .ren  (1'b1),
                .raddr({a3_seg, a3_word}),
                .rdata(d_raw)
            );
            // the output register (plain: no enable, no logic after the RAM)
            reg [KW-1:0] d_q;
            always @(posedge clk) begin
                d_q <= d_raw;
            end
            assign d_rdata[K0 +: KW] = d_q;
        end
    endgenerate
    assign m_rd_data = d_rdata[127:0];
    assign m_rd_user = d_rdata[128 +: NW];

    reg  [SW-1:0]  r0_seg;
    wire [SW-1:0]  nx_rd_raw, nx_wk_raw;    // the RAMs' read data (clock-to-out)
    wire [STW-1:0] st_raw;
    reg  [STW-1:0] st_rdata;            // the frame state RAM's output register
    reg  [SW-1:0]  nx_rd_rdata;         // next[] for the read pipeline (output register)
    reg  [SW-1:0]  nx_wk_rdata;         // next[] for the walker (output register)
    wire [SW-1:0]  nx_wk_raddr;

    fp_ram_sdp #(
        .ADDR_WIDTH(SW),
        .DATA_WIDTH(SW),
        .OUT_REG   (0)
    ) u_next_rd (
        .clk  (clk),
        .wen  (l_en),
        .waddr(l_addr),
        .wdata(l_data),
        .ren  (1'b1),
        .raddr(r0_seg),
        .rdata(nx_rd_raw)
    );

    fp_ram_sdp #(
        .ADDR_WIDTH(SW),
        .DATA_WIDTH(SW),
        .OUT_REG   (0)
    ) u_next_wk (
        .clk  (clk),
        .wen  (l_en),
        .waddr(l_addr),
        .wdata(l_data),
        .ren  (1'b1),
        .raddr(nx_wk_raddr),
        .rdata(nx_wk_raw)
    );

    // the RAMs' output registers: plain flip-flops right behind the RAMs (no enable, no logic)
    always @(posedge clk) begin
        nx_rd_rdata <= nx_rd_raw;
        nx_wk_rdata <= nx_wk_raw;
        st_rdata    <= st_raw;
    end

    // ---------------------------------------------------------------------------------------
    // Read side: registered ready, R0 (request), R1, R2 (next[] read), A3 (data RAM address),
    // R4, R5 = the response registers (the data RAM's output register holds the word)
    // ---------------------------------------------------------------------------------------
    wire [READERS-1:0] ra_grant;
    wire               ra_any;
    /* verilator lint_off UNUSEDSIGNAL */  // the grant is used one-hot, its index is not needed
    wire [((READERS > 1) ? $clog2(READERS) : 1)-1:0] ra_idx;
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [READERS-1:0] rd_ready_q;

    fp_rr_arbiter #(
        .N(READERS)
    ) u_rarb (
        .clk        (clk),
        .rst        (rst),
        .req        (s_rd_valid),
        .ack        (ra_any),
        .grant      (ra_grant),
        .grant_valid(ra_any),
        .grant_index(ra_idx)
    );

    always @(posedge clk) begin
        if (rst) begin
            rd_ready_q <= {READERS{1'b0}};
        end else begin
            rd_ready_q <= ra_grant;
        end
    end
    assign s_rd_ready = rd_ready_q;

    wire [READERS-1:0] rd_hs = rd_ready_q & s_rd_valid;
    reg  [SW-1:0]      rq_seg;
    reg  [WW-1:0]      rq_word;
    reg                rq_follow;
    always @* begin
        rq_seg    = {SW{1'b0}};
        rq_word   = {WW{1'b0}};
        rq_follow = 1'b0;
        for (i = 0; i < READERS; i = i + 1) begin
            rq_seg    = rq_seg    | ({SW{rd_ready_q[i]}} & s_rd_seg[i*SW +: SW]);
            rq_word   = rq_word   | ({WW{rd_ready_q[i]}} & s_rd_word[i*WW +: WW]);
            rq_follow = rq_follow | (rd_ready_q[i] & s_rd_follow[i]);
        end
    end

    reg [READERS-1:0] r0_who, r1_who, r2_who, a3_who, r4_who;
    reg [WW-1:0]      r0_word, r1_word, r2_word;
    reg               r0_follow, r1_follow, r2_follow;
    reg [SW-1:0]      r1_seg, r2_seg, r4_seg;

    always @(posedge clk) begin
        if (rst) begin
            r0_who     <= {READERS{1'b0}};
            r1_who     <= {READERS{1'b0}};
            r2_who     <= {READERS{1'b0}};
            a3_who     <= {READERS{1'b0}};
            r4_who     <= {READERS{1'b0}};
            m_rd_valid <= {READERS{1'b0}};
        end else begin
            r0_who     <= rd_hs;
            r1_who     <= r0_who;
            r2_who     <= r1_who;
            a3_who     <= r2_who;
            r4_who     <= a3_who;
            m_rd_valid <= r4_who;
        end
        r0_seg    <= rq_seg;
        r0_word   <= rq_word;
        r0_follow <= rq_follow;
        r1_seg    <= r0_seg;
        r1_word   <= r0_word;
        r1_follow <= r0_follow;
        r2_seg    <= r1_seg;
        r2_word   <= r1_word;
        r2_follow <= r1_follow;
        a3_seg    <= r2_follow ? nx_rd_rdata : r2_seg;
        a3_word   <= r2_word;
        r4_seg    <= a3_seg;
        m_rd_seg  <= r4_seg;
    end

    // ---------------------------------------------------------------------------------------
    // Frame state: the writer's events queue, the refs queue, the releases (registered ready)
    // ---------------------------------------------------------------------------------------
    wire                 ev_push = m_start || m_end;
    wire [2+2*SW-1:0]    ev_head;
    wire                 ev_empty;
    wire [QCW-1:0]       ev_count;
    wire                 ev_pop = !ev_empty;

    fp_fifo_fwft #(
        .WIDTH   (2 + 2 * SW),
        .DEPTH   (QD),
        .HEAD_REG(1)
    ) u_evq (
        .clk      (clk),
        .rst      (rst),
        .push     (ev_push),
        .push_data({m_start, m_end, m_end ? m_end_head : m_start_head, m_end_tail}),
        .pop      (ev_pop),
        .head     (ev_head),
        .empty    (ev_empty),
        .count    (ev_count)
    );

    wire              rf_push = s_ref_valid && init_done;
    wire [SW+CW-1:0]  rf_head;
    wire              rf_empty;
    wire [QCW-1:0]    rf_count;
    wire              rf_pop = ev_empty && !rf_empty;

    fp_fifo_fwft #(
        .WIDTH   (SW + CW),
        .DEPTH   (QD),
        .HEAD_REG(1)
    ) u_refq (
        .clk      (clk),
        .rst      (rst),
        .push     (rf_push),
        .push_data({s_ref_count, s_ref_head}),
        .pop      (rf_pop),
        .head     (rf_head),
        .empty    (rf_empty),
        .count    (rf_count)
    );

    always @(posedge clk) begin
        if (rst) begin
            hold_q <= 1'b0;
        end else begin
            hold_q <= {1'b0, ev_count} + {1'b0, rf_count} >= Q_HOLD;
        end
    end

    // a release is committed (s_rel_ready for the next cycle) only when both queues will be empty
    // then: the queues are always popped when not empty, so a committed release never waits
    wire ev_empty_next = ev_empty ? !ev_push : (ev_count == Q_ONE && !ev_push);
    wire rf_empty_next = rf_empty ? !rf_push : (ev_empty && rf_count == Q_ONE && !rf_push);
    wire commit_ok     = init_done && ev_empty_next && rf_empty_next;

    wire [READERS-1:0] la_grant;
    wire               la_any;
    /* verilator lint_off UNUSEDSIGNAL */  // the grant is used one-hot, its index is not needed
    wire [((READERS > 1) ? $clog2(READERS) : 1)-1:0] la_idx;
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [READERS-1:0] rel_ready_q;

    fp_rr_arbiter #(
        .N(READERS)
    ) u_larb (
        .clk        (clk),
        .rst        (rst),
        .req        (s_rel_valid),
        .ack        (la_any && commit_ok),
        .grant      (la_grant),
        .grant_valid(la_any),
        .grant_index(la_idx)
    );

    always @(posedge clk) begin
        if (rst) begin
            rel_ready_q <= {READERS{1'b0}};
        end else begin
            rel_ready_q <= la_grant & {READERS{commit_ok}};
        end
    end
    assign s_rel_ready = rel_ready_q;

    wire         rel_hs = |(rel_ready_q & s_rel_valid);
    reg [SW-1:0] rel_head;
    always @* begin
        rel_head = {SW{1'b0}};
        for (i = 0; i < READERS; i = i + 1) begin
            rel_head = rel_head | ({SW{rel_ready_q[i]}} & s_rel_head[i*SW +: SW]);
        end
    end

    // ---------------------------------------------------------------------------------------
    // Frame state pipeline: P0 (operation), P1 (RAM read; forwarding matches), P2 (RAM data,
    // forwarding, decision), P3 (write, free), P4, P5 (values being written, for forwarding)
    // ---------------------------------------------------------------------------------------
    reg          p0_v, p0_start, p0_end, p0_ref, p0_rel;
    reg [SW-1:0] p0_head, p0_tail;
    reg [CW-1:0] p0_cnt;
    always @(posedge clk) begin
        if (rst) begin
            p0_v <= 1'b0;
        end else begin
            p0_v <= ev_pop || rf_pop || rel_hs;
        end
        p0_start <= ev_pop && ev_head[2*SW+1];
        p0_end   <= ev_pop && ev_head[2*SW];
        p0_ref   <= rf_pop;
        p0_rel   <= !ev_pop && !rf_pop && rel_hs;
        p0_head  <= ev_pop ? ev_head[SW +: SW] : rf_pop ? rf_head[SW-1:0] : rel_head;
        p0_tail  <= ev_head[SW-1:0];
        p0_cnt   <= rf_head[SW +: CW];
    end

    reg           p1_v, p1_start, p1_end, p1_ref, p1_rel;
    reg [SW-1:0]  p1_head, p1_tail;
    reg [CW-1:0]  p1_cnt;
    reg           p2_v, p2_start, p2_end, p2_ref, p2_rel, p2_f1, p2_f2, p2_f3;
    reg [SW-1:0]  p2_head, p2_tail;
    reg [CW-1:0]  p2_cnt;
    reg           p3_wen, p4_wen;
    reg [SW-1:0]  p3_head, p4_head;
    reg [STW-1:0] p3_st, p4_st, p5_st;
    reg           p3_free, p3_new;
    reg [SW-1:0]  p3_ftail;

    always @(posedge clk) begin
        if (rst) begin
            p1_v <= 1'b0;
            p2_v <= 1'b0;
        end else begin
            p1_v <= p0_v;
            p2_v <= p1_v;
        end
        p1_start <= p0_start;
        p1_end   <= p0_end;
        p1_ref   <= p0_ref;
        p1_rel   <= p0_rel;
        p1_head  <= p0_head;
        p1_tail  <= p0_tail;
        p1_cnt   <= p0_cnt;
        p2_start <= p1_start;
        p2_end   <= p1_end;
        p2_ref   <= p1_ref;
        p2_rel   <= p1_rel;
        p2_head  <= p1_head;
        p2_tail  <= p1_tail;
        p2_cnt   <= p1_cnt;
        // the operations ahead whose writes the RAM read of P1 misses
        p2_f1    <= p1_v && p2_v && p1_head == p2_head;     // will be in P3
        p2_f2    <= p1_v && p3_wen && p1_head == p3_head;   // will be in P4
        p2_f3    <= p1_v && p4_wen && p1_head == p4_head;   // will be in P5
    end

    wire [STW-1:0] o_st = (p2_f1 && p3_wen) ? p3_st : p2_f2 ? p4_st : p2_f3 ? p5_st : st_rdata;
    wire           o_live  = o_st[0];
    wire           o_ended = o_st[1];
    wire           o_refd  = o_st[2];
    wire [CW-1:0]  o_cnt   = o_st[3 +: CW];
    wire [SW-1:0]  o_tail  = o_st[3+CW +: SW];

    wire           ref_err  = p2_ref && (!o_live || o_refd);
    wire           rel_err  = p2_rel && (!o_live || !o_refd || o_cnt == {CW{1'b0}});
    wire           o_cnt1   = o_cnt == CNT_ONE;
    wire           n_free   = (p2_end && !p2_start && o_refd && o_cnt == {CW{1'b0}})
                           || (p2_ref && !ref_err && o_ended && p2_cnt == {CW{1'b0}})
                           || (p2_rel && !rel_err && o_ended && o_cnt1);
    reg  [STW-1:0] n_st;
    always @* begin
        n_st = o_st;
        if (p2_start) begin
            n_st = {STW{1'b0}};
            n_st[0] = 1'b1;
        end
        if (p2_end) begin
            n_st[1]           = 1'b1;
            n_st[3+CW +: SW]  = p2_tail;
        end
        if (p2_ref) begin
            n_st[2]           = 1'b1;
            n_st[3 +: CW]     = p2_cnt;
        end
        if (p2_rel) begin
            n_st[3 +: CW]     = o_cnt - CNT_ONE;
        end
        if (n_free) begin
            n_st[0]           = 1'b0;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            p3_wen       <= 1'b0;
            p4_wen       <= 1'b0;
            p3_free      <= 1'b0;
            p3_new       <= 1'b0;
            stat_ref_err <= 1'b0;
            stat_rel_err <= 1'b0;
        end else begin
            p3_wen       <= p2_v && !ref_err && !rel_err;
            p4_wen       <= p3_wen;
            p3_free      <= p2_v && n_free;
            p3_new       <= p2_v && p2_start;
            stat_ref_err <= (p2_v && ref_err) || (s_ref_valid && !init_done);
            stat_rel_err <= p2_v && rel_err;
        end
        p3_head  <= p2_head;
        p3_st    <= n_st;
        p3_ftail <= p2_end ? p2_tail : o_tail;
        p4_head  <= p3_head;
        p4_st    <= p3_st;
        p5_st    <= p4_st;
    end

    fp_ram_sdp #(
        .ADDR_WIDTH(SW),
        .DATA_WIDTH(STW),
        .OUT_REG   (0)
    ) u_state (
        .clk  (clk),
        .wen  (p3_wen || !init_done),
        .waddr(init_done ? p3_head : init_cnt),
        .wdata(init_done ? p3_st : {STW{1'b0}}),
        .ren  (1'b1),
        .raddr(p0_head),
        .rdata(st_raw)
    );

    always @(posedge clk) begin
        if (rst) begin
            frames_live <= {NCW{1'b0}};
        end else if (p3_new != p3_free) begin
            frames_live <= p3_new ? frames_live + N_ONE : frames_live - N_ONE;
        end
    end

    // ---------------------------------------------------------------------------------------
    // Frames to free, and the walker pushing their segments onto the free list
    // ---------------------------------------------------------------------------------------
    wire [2*SW-1:0] fr_head;
    wire            fr_empty;
    /* verilator lint_off UNUSEDSIGNAL */  // never full by construction: its count is not needed
    wire [SW:0]     fr_count;
    /* verilator lint_on UNUSEDSIGNAL */
    wire            fr_pop;

    fp_fifo_fwft #(
        .WIDTH   (2 * SW),
        .DEPTH   (1 << SW),
        .HEAD_REG(3)                    // the RAM's read data straight into a register
    ) u_tofree (
        .clk      (clk),
        .rst      (rst),
        .push     (p3_free),
        .push_data({p3_ftail, p3_head}),
        .pop      (fr_pop),
        .head     (fr_head),
        .empty    (fr_empty),
        .count    (fr_count)
    );

    // the queue's head goes through a register (fq) before the walker, as the free list's does
    localparam [1:0] WK_IDLE = 2'd0, WK_PUSH = 2'd1, WK_WAIT = 2'd2, WK_PUSH_RD = 2'd3;
    reg  [1:0]      wk_st;
    reg  [SW-1:0]   wk_cur, wk_tail;
    reg             fq_v;
    reg  [2*SW-1:0] fq_q;
    wire            wk_push = wk_st == WK_PUSH || wk_st == WK_PUSH_RD;
    wire [SW-1:0]   wk_seg  = (wk_st == WK_PUSH_RD) ? nx_wk_rdata : wk_cur;
    wire            wk_last = wk_push && wk_seg == wk_tail;
    wire            wk_take = fq_v && (wk_st == WK_IDLE || wk_last);
    assign fr_pop       = !fr_empty && (!fq_v || wk_take);
    assign nx_wk_raddr  = wk_seg;
    assign fl_push      = init_push || wk_push;
    assign fl_push_data = init_done ? wk_seg : init_cnt;

    always @(posedge clk) begin
        if (rst) begin
            fq_v <= 1'b0;
        end else begin
            fq_v <= fr_pop || (fq_v && !wk_take);
        end
        if (fr_pop) begin
            fq_q <= fr_head;
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            wk_st <= WK_IDLE;
        end else if (wk_take) begin
            wk_st <= WK_PUSH;
        end else if (wk_last) begin
            wk_st <= WK_IDLE;
        end else if (wk_push) begin
            wk_st <= WK_WAIT;
        end else if (wk_st == WK_WAIT) begin
            wk_st <= WK_PUSH_RD;
        end
        if (wk_take) begin
            wk_cur  <= fq_q[SW-1:0];
            wk_tail <= fq_q[SW +: SW];
        end
    end

endmodule

`default_nettype wire
