// fp_node_buffer: the node's shared segment buffer - BM (buffer manager), QM (queue manager) and
// SCHED (transmit schedulers) in one module.
//
// Outputs ("o") are 0..PORTS-1 (ports) and PORTS+d (host port of TX datapath d), NOUT in all;
// port p belongs to TX datapath p / ceil(PORTS/DATAPATHS), host port PORTS+d to datapath d.
//
// BM, write side. The DATAPATHS input segment streams share one write: a round-robin arbiter
// accepts at most one segment per cycle (200 M segments/s at 200 MHz, ~10x what 12 x 1G need)
// into an input register; the next cycle admits (stores or drops) it. Admission is decided at
// the first segment of a frame and kept, per (input stream, src_port), for its later segments,
// from the state (free segments, held, queue lengths) of the cycle the segment spends in the
// input register. In this order:
//   discard = 1                      -> not stored, event with the header's reason
//   src_port >= NOUT, or no output   -> not stored, NO_DEST  (outputs = dst[PORTS-1:0], plus
//                                       PORTS + s when to_host, s = the input stream)
//   free segments < cfg_reserve      -> not stored, BUFFER_FULL
//   held by src_port >= cfg_port_limit -> not stored, PORT_THRESHOLD
//   per output: its queue (the frame's prio) holds >= min(cfg_queue_limit, QUEUE_DEPTH) packets
//                                    -> that copy dropped (QUEUE_FULL); none left -> not stored.
// The three limit checks are flags kept in registers, formed at the previous edge from the counts'
// next values, so the counts are those of the cycle in the input register but cfg_reserve,
// cfg_port_limit and cfg_queue_limit are those of the cycle before it (a change of a limit
// applies to segments admitted from the second cycle after the change on).
// A stored segment takes the head of the free list; the frame's first segment is enqueued (its
// address, the packet head) into the queue of every output it goes to in the same cycle (one
// queue memory per output and priority), so SCHED can start it at once (cut-through). A later
// segment is linked to its predecessor in the cycle it is stored: next[prev] = {g(prev), new},
// where g is the segment's generation bit (below). Every segment gets a reference count = number
// of copies of its frame. The free list is swept full after reset (SEGMENTS cycles, s_axis_tready
// low, init_done low until done).
// Reserve: RESERVE_DEFAULT = NOUT * ceil(MAX_BYTES / SEG_BYTES) is the value to tie cfg_reserve
// to: at most NOUT frames are being written at a time (one per src_port), each admitted while at
// least that many segments were free, so every admitted frame finds segments for all its later
// segments. Should the free list run dry anyway (a smaller reserve, longer frames), s_axis_tready
// goes low for every stream until a segment is freed: nothing is dropped or overwritten. (With a
// too small reserve this can deadlock: readers waiting for a frame that cannot be written while
// the segments are held by packets queued behind it.)
//
// SCHED / read side. Per output a reader: current segment `cur` (not yet released), the address
// of the segment after it once linked, and whether cur is the packet's last. One op per cycle
// reads the single segment RAM port (shared by both TX datapaths; a round-robin between the
// datapaths when both have work, so an idle datapath costs nothing), in two stages: C chooses
// the op from registered state and registers the choice; R, the next cycle, forms the chosen
// output's target address (queue head or next pointer), reads the segment RAM, next pointer
// and the target's copy count there (kept by the reader until it releases that segment),
// reads the copies done of cur (the release) and pops the queue (START). Each TX datapath
// picks, in round robin over its outputs, one output with work:
//   START  no packet: pop the packet head (prio 1 queue first), send that segment;
//   SEND   the segment after cur is stored: send it and release cur;
//   FINISH cur is the last segment: release it, the packet is done.
// START and SEND also need out_room[o] = 1, fewer than ROOM segments of o in flight, and space in
// the datapath's output buffer (counting the segments in R and in the read stage), all checked
// in C. An output has at most one op in flight, from C to the end of the read stage (so at most
// one op per output every 3 cycles; a SEND whose link the reader finds in the next-pointer
// memory, read through its output register, is chosen a cycle after that: every 4 cycles).
// Releasing = decrementing the segment's reference count, in a stage of its own after the read
// (P2); the reader that takes it to zero frees the segment. Invariant: a reader releases segment k
// only when it moves past k, i.e. when k is last or when k's successor is stored (and so
// linked): a segment is never freed before the writer has linked it to its successor, and a
// reader never follows a link out of a freed segment. The reader learns of a link either from
// the memories (the next pointer and its generation, read with the segment in R) or, for links
// made at or after that read's edge, from the writer's link broadcast (prev, new), which the op
// in R compares with its target and every active reader with its cur. (Between C and R the chosen
// reader needs no broadcast: START has no cur, SEND already knows the link, FINISH's cur is last.)
// Linked flags: k is linked iff next[k]'s generation equals g(k), g(k) being stored with the
// segment. The free list carries each address with the generation its next life gets: the one
// that differs from next[k]'s - after a life released by SEND (k was linked) the other one,
// after one released by FINISH (a last segment, never linked) the same. So one write per link,
// into the next-pointer RAM, sets the flag, and a newly stored segment is never linked.
//
// Flow control (out_room, ROOM, default 8): a segment counts as in flight for output o from the
// cycle SCHED reads it until 4 cycles after its m_axis handshake (up to: 1 read stage + 4 in the
// output buffer + waiting under m_axis backpressure + 4 downstream cycles); SCHED keeps at most
// ROOM in flight per output and chooses a read (in C, the cycle before it) only when
// out_room[o] = 1. So out_room[o] must be 1 only when the TX FIFO of o can take ROOM more
// segments beyond every segment that left m_axis for o at least 4 cycles earlier (the level may
// lag the m_axis handshakes by up to 4 cycles).
//
// Outputs: m_axis[d] carries the segments of datapath d's outputs, segment-interleaved between
// outputs, each with its stored header (bad, first, last, bytes, ...) and out_port = o; the
// segments of one output are whole packets one after another. tlast = the header's last;
// tkeep = the low `bytes` bits (s_axis_tkeep is not stored: the header's bytes field says it).
// The header's last bit is taken from s_axis_tlast.
//
// Events (registered: two cycles after the first segment was accepted on s_axis):
//   ev_drop          a frame was not stored; ev_drop_reason (REASON_*), ev_drop_port (src_port);
//   ev_drop_copy[o]  the copy for output o was dropped (queue full); ev_drop_port says the input.
//   A frame losing all its copies gives both (ev_drop with QUEUE_FULL and the ev_drop_copy bits).
//
// Latency: 5 cycles from a first segment accepted on s_axis (idle buffer and output, out_room 1,
//   m_axis ready) to the same segment valid on m_axis: input register, admission+enqueue, SCHED
//   choice (C), read the RAM (R), output buffer. The next segment of a packet leaves 3 cycles
//   after it is stored when the reader was waiting for it (link broadcast, SEND).
// Throughput: input 1 segment per cycle in total (both streams); output 1 segment per cycle in
//   total (one RAM read per cycle), at most 1 segment per 3 cycles per output (per 4 when the
//   next segment was stored before the read of the one ahead of it), plus one FINISH op per
//   packet.
// Bad input: a later segment without an open frame of its (stream, src_port) is dropped
//   silently; a first segment while a frame of the same (stream, src_port) is open starts a new
//   frame and the open one never ends (its readers wait forever; the upstream must not do this).
// Status: stat_free (free segments), stat_used_hwm (most segments ever used, stat_hwm_clear
//   restarts it), stat_port_held[src*CW +: CW] (segments held per src_port),
//   stat_queue_len[(o*2+prio)*QCW +: QCW] (packets waiting), stat_busy[o] (o has a packet queued
//   or being sent).
// Memories: segment RAM 2^AW x (SEG_BYTES*8 + NOC_W) (fp_ram_sdp rounds SEGMENTS up to a power of
//   two), next pointers 2^AW x AW, reference counts (2 RAMs: copies + src_port written by the
//   writer, copies done written by the readers, so neither needs two write ports), 2*NOUT queue
//   RAMs QUEUE_DEPTH x AW, free list 2^AW x AW; the segment RAM, the next pointers, the first
//   reference count RAM and the free list carry one more bit each, the generation (no flags in
//   flip-flops).
// Parameters: PORTS 1..16; DATAPATHS 1..4 (PORTS+DATAPATHS <= 20); SEG_BYTES 32 or 64;
//   SEGMENTS 4..2^20; QUEUE_DEPTH a power of two 2..2^16; MAX_BYTES >= 1; ROOM 1..255.
`default_nettype none

`include "fp_noc_header.vh"

module fp_node_buffer #(
    parameter PORTS       = 12,
    parameter DATAPATHS   = 2,
    parameter SEG_BYTES   = 64,
    parameter SEGMENTS    = 3000,
    parameter QUEUE_DEPTH = 256,
    parameter MAX_BYTES   = 1518,
    parameter ROOM        = 8,
    // derived, do not set
    parameter NOUT        = PORTS + DATAPATHS,
    parameter CW          = $clog2(SEGMENTS + 1),   // segment counts
    parameter QCW         = $clog2(QUEUE_DEPTH) + 1 // queue lengths
) (
    input  wire                             clk,
    input  wire                             rst,

    input  wire [DATAPATHS*SEG_BYTES*8-1:0] s_axis_tdata,
    /* verilator lint_off UNUSEDSIGNAL */  // not stored: the header's bytes field gives tkeep
    input  wire [DATAPATHS*SEG_BYTES-1:0]   s_axis_tkeep,
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [DATAPATHS-1:0]             s_axis_tvalid,
    output wire [DATAPATHS-1:0]             s_axis_tready,
    input  wire [DATAPATHS-1:0]             s_axis_tlast,
    input  wire [DATAPATHS*`FP_NOC_W-1:0]      s_axis_tuser,

    output wire [DATAPATHS*SEG_BYTES*8-1:0] m_axis_tdata,
    output wire [DATAPATHS*SEG_BYTES-1:0]   m_axis_tkeep,
    output wire [DATAPATHS-1:0]             m_axis_tvalid,
    input  wire [DATAPATHS-1:0]             m_axis_tready,
    output wire [DATAPATHS-1:0]             m_axis_tlast,
    output wire [DATAPATHS*`FP_NOC_W-1:0]      m_axis_tuser,

    input  wire [NOUT-1:0]                  out_room,

    input  wire [CW-1:0]                    cfg_reserve,
    input  wire [CW-1:0]                    cfg_port_limit,
    input  wire [QCW-1:0]                   cfg_queue_limit,

    output wire                             init_done,

    output reg                              ev_drop,
    output reg  [3:0]                       ev_drop_reason,
    output reg  [`FP_NOC_SRC_PORT_W-1:0]       ev_drop_port,
    output reg  [NOUT-1:0]                  ev_drop_copy,

    output wire [CW-1:0]                    stat_free,
    output reg  [CW-1:0]                    stat_used_hwm,
    input  wire                             stat_hwm_clear,
    output wire [NOUT*CW-1:0]               stat_port_held,
    output wire [NOUT*2*QCW-1:0]            stat_queue_len,
    output wire [NOUT-1:0]                  stat_busy
);

    generate
        if (PORTS < 1 || PORTS > 16) begin : g_bad_ports
            PARAMETER_ERROR_PORTS_must_be_1_to_16 u_error();
        end
        if (DATAPATHS < 1 || DATAPATHS > 4 || PORTS + DATAPATHS > 20) begin : g_bad_datapaths
            PARAMETER_ERROR_DATAPATHS_must_be_1_to_4 u_error();
        end
        if (SEG_BYTES != 32 && SEG_BYTES != 64) begin : g_bad_seg_bytes
            PARAMETER_ERROR_SEG_BYTES_must_be_32_or_64 u_error();
        end
        if (SEGMENTS < 4 || SEGMENTS > (1 << 20)) begin : g_bad_segments
            PARAMETER_ERROR_SEGMENTS_must_be_4_to_2_pow_20 u_error();
        end
        if (QUEUE_DEPTH < 2 || QUEUE_DEPTH > (1 << 16) || (QUEUE_DEPTH & (QUEUE_DEPTH - 1)) != 0) begin : g_bad_queue_depth
            PARAMETER_ERROR_QUEUE_DEPTH_must_be_a_power_of_2_from_2_to_65536 u_error();
        end
        if (MAX_BYTES < 1) begin : g_bad_max_bytes
            PARAMETER_ERROR_MAX_BYTES_must_be_at_least_1 u_error();
        end
        if (ROOM < 1 || ROOM > 255) begin : g_bad_room
            PARAMETER_ERROR_ROOM_must_be_1_to_255 u_error();
        end
        if (NOUT != PORTS + DATAPATHS || CW != $clog2(SEGMENTS + 1) || QCW != $clog2(QUEUE_DEPTH) + 1) begin : g_bad_derived
            PARAMETER_ERROR_NOUT_CW_QCW_must_not_be_set u_error();
        end
    endgenerate

    // ------------------------------------------------------------------------------------------
    // Constants
    // ------------------------------------------------------------------------------------------
    localparam DW   = SEG_BYTES * 8;
    localparam HW   = `FP_NOC_W;
    localparam SW   = HW + DW;                     // segment word: {header, data}
    localparam AW   = $clog2(SEGMENTS);            // segment address
    localparam NCW  = $clog2(NOUT + 1);            // copy counts
    localparam PW   = `FP_NOC_SRC_PORT_W;
    localparam OW   = (NOUT > 1) ? $clog2(NOUT) : 1;
    localparam SIW  = (DATAPATHS > 1) ? $clog2(DATAPATHS) : 1;
    localparam NKEY = DATAPATHS * NOUT;            // write state per (stream, src_port)
    localparam PPD  = (PORTS + DATAPATHS - 1) / DATAPATHS;
    localparam LAG  = 4;                           // downstream cycles until out_room follows
    localparam ODEPTH = 4;                         // output buffer per TX datapath
    localparam RCW  = $clog2(ROOM + 1);
    localparam [CW-1:0]  SEGS   = SEGMENTS[CW-1:0];
    localparam [QCW-1:0] QDEPTH = QUEUE_DEPTH[QCW-1:0];

    // Datapath of each output, and the member mask of each datapath.
    function integer dp_of;
        input integer o;
        begin
            dp_of = (o < PORTS) ? o / PPD : o - PORTS;
        end
    endfunction

    function [NOUT-1:0] members;
        input integer dp;
        integer o;
        begin
            for (o = 0; o < NOUT; o = o + 1) begin
                members[o] = dp_of(o) == dp;
            end
        end
    endfunction

    // ------------------------------------------------------------------------------------------
    // Free list and init sweep
    // ------------------------------------------------------------------------------------------
    reg           init_done_q;
    reg  [AW-1:0] sweep_q;
    wire          fl_push;
    wire [AW:0]   fl_push_data;                  // {generation, address}
    wire          fl_pop;
    wire [AW:0]   fl_head;
    wire          fl_empty;
    /* verilator lint_off UNUSEDSIGNAL */  // the top bit only matters when SEGMENTS = 2^AW
    wire [AW:0]   fl_count;
    /* verilator lint_on UNUSEDSIGNAL */

    fp_fifo_fwft #(
        .WIDTH   (AW + 1),
        .DEPTH   (1 << AW),
        .HEAD_REG(1)                             // the pop (admission) off the RAM's address
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
            init_done_q <= 1'b0;
            sweep_q     <= {AW{1'b0}};
        end else if (!init_done_q) begin
            sweep_q <= sweep_q + 1'b1;
            if ({1'b0, sweep_q} == SEGMENTS[AW:0] - 1'b1) begin
                init_done_q <= 1'b1;
            end
        end
    end

    assign init_done = init_done_q;
    wire [CW-1:0] free_now = fl_count[CW-1:0];   // the list never holds more than SEGMENTS
    assign stat_free = free_now;

    // ------------------------------------------------------------------------------------------
    // Write side: input arbiter
    // ------------------------------------------------------------------------------------------
    // Stage I, the input register: the arbiter's pick is registered before admission, so the
    // arbitration and the admission decision are in different cycles. The register passes its
    // segment on (stored or dropped) only while the free list has a segment, as a direct
    // acceptance did before; it takes a new one when it is empty or passing its segment on.
    reg                  i_v;
    reg  [SIW-1:0]       i_s;
    reg  [HW-1:0]        i_raw;
    reg  [DW-1:0]        i_data;
    reg                  i_last;
    reg                  i_src_ok;               // src_port < NOUT
    reg  [NOUT-1:0]      i_src_hot;              // one-hot src_port (0 if not src_ok)
    reg  [NKEY-1:0]      i_key_hot;              // one-hot (stream, src_port) (0 if not src_ok)
    wire                 i_go       = i_v && !fl_empty;
    wire                 can_accept = init_done_q && (!i_v || i_go);
    wire [DATAPATHS-1:0] in_grant;
    wire                 in_any;
    wire [SIW-1:0]       arb_s;

    fp_rr_arbiter #(
        .N(DATAPATHS)
    ) u_in_arb (
        .clk        (clk),
        .rst        (rst),
        .req        (s_axis_tvalid & {DATAPATHS{can_accept}}),
        .ack        (1'b1),
        .grant      (in_grant),
        .grant_valid(in_any),
        .grant_index(arb_s)
    );

    assign s_axis_tready = in_grant & {DATAPATHS{can_accept}};

    // the picked segment's src_port decoded here, so that admission starts from registers
    wire [PW-1:0]   arb_src = s_axis_tuser[arb_s * HW + `FP_NOC_SRC_PORT_LSB +: PW];
    reg  [NOUT-1:0] arb_src_hot;
    reg  [NKEY-1:0] arb_key_hot;
    integer ia;
    always @* begin
        for (ia = 0; ia < NOUT; ia = ia + 1) begin
            arb_src_hot[ia] = arb_src == ia[PW-1:0];
        end
        for (ia = 0; ia < NKEY; ia = ia + 1) begin
            arb_key_hot[ia] = {{(32-SIW){1'b0}}, arb_s} == ia / NOUT && arb_src_hot[ia % NOUT];
        end
    end

    always @(posedge clk) begin
        if (can_accept) begin
            i_s       <= arb_s;
            i_raw     <= s_axis_tuser[arb_s * HW +: HW];
            i_data    <= s_axis_tdata[arb_s * DW +: DW];
            i_last    <= s_axis_tlast[arb_s];
            i_src_ok  <= {27'd0, arb_src} < NOUT;
            i_src_hot <= arb_src_hot;
            i_key_hot <= arb_key_hot;
        end
        if (rst) begin
            i_v <= 1'b0;
        end else if (can_accept) begin
            i_v <= in_any;                       // req already includes can_accept
        end
    end

    // Stage B: admission and store of the registered segment
    wire          accept  = i_go;
    wire [SIW-1:0] in_s   = i_s;
    wire [HW-1:0] in_raw  = i_raw;
    wire [DW-1:0] in_data = i_data;
    wire          in_last = i_last;
    reg  [HW-1:0] in_hdr;                        // the header with last = tlast
    always @* begin
        in_hdr = in_raw;
        in_hdr[`FP_NOC_LAST_LSB] = in_last;
    end

    wire          in_first   = in_hdr[`FP_NOC_FIRST_LSB];
    wire [PW-1:0] in_src     = in_hdr[`FP_NOC_SRC_PORT];
    wire          in_prio    = in_hdr[`FP_NOC_PRIO_LSB];
    wire          in_discard = in_hdr[`FP_NOC_DISCARD_LSB];
    wire          src_ok     = i_src_ok;
    wire [OW-1:0] src_o      = src_ok ? in_src[OW-1:0] : {OW{1'b0}};

    // Write state per (stream, src_port)
    reg            w_active [0:NKEY-1];
    reg            w_admit  [0:NKEY-1];
    reg  [AW-1:0]  w_tail   [0:NKEY-1];
    reg            w_tgen   [0:NKEY-1];          // generation of the tail segment
    reg  [NCW-1:0] w_ncopy  [0:NKEY-1];
    reg  [CW-1:0]  held     [0:NOUT-1];

    // read with the one-hot key (an AND-OR, no index arithmetic in front of a mux); all 0 when
    // not src_ok (then nothing is stored or linked)
    reg            st_active, st_admit, st_tgen;
    reg  [AW-1:0]  st_tail;
    reg  [NCW-1:0] st_ncopy;
    integer ik;
    always @* begin
        st_active = 1'b0;
        st_admit  = 1'b0;
        st_tgen   = 1'b0;
        st_tail   = {AW{1'b0}};
        st_ncopy  = {NCW{1'b0}};
        for (ik = 0; ik < NKEY; ik = ik + 1) begin
            st_active = st_active | (i_key_hot[ik] & w_active[ik]);
            st_admit  = st_admit  | (i_key_hot[ik] & w_admit[ik]);
            st_tgen   = st_tgen   | (i_key_hot[ik] & w_tgen[ik]);
            st_tail   = st_tail   | ({AW{i_key_hot[ik]}} & w_tail[ik]);
            st_ncopy  = st_ncopy  | ({NCW{i_key_hot[ik]}} & w_ncopy[ik]);
        end
    end

    // ------------------------------------------------------------------------------------------
    // Admission
    // ------------------------------------------------------------------------------------------
    // The three threshold checks read flags kept in registers (below): free_ok_q = free
    // segments >= cfg_reserve, held_full_q[p] = held[p] >= cfg_port_limit, qfull_q[o*2+prio] =
    // queue length >= min(cfg_queue_limit, QUEUE_DEPTH). Each is formed at the edge before the
    // cycle it describes, from the count's three possible next values (+1, same, -1) compared
    // with the limits, selected by the cycle's push and pop: the same value as comparing the
    // count in its cycle, so admission only ANDs and ORs flags. (The cfg_* inputs are thus read
    // a cycle earlier than before: a change of a limit takes effect one cycle later.)
    wire [2*NOUT*QCW-1:0] qlen;                  // queue o*2 + prio at [(o*2+prio)*QCW +: QCW]
    wire [QCW-1:0]  qlim = (cfg_queue_limit > QDEPTH) ? QDEPTH : cfg_queue_limit;
    reg             free_ok_q;
    reg  [NOUT-1:0] held_full_q;
    reg  [2*NOUT-1:0] qfull_q;
    reg  [NOUT-1:0] want, qfull;
    reg  [NCW-1:0]  okcount;
    integer i, j, m;
    always @* begin
        want = {NOUT{1'b0}};
        want[PORTS-1:0] = in_hdr[`FP_NOC_DST_LSB +: PORTS];
        for (i = 0; i < DATAPATHS; i = i + 1) begin
            want[PORTS + i] = in_hdr[`FP_NOC_TO_HOST_LSB] && in_s == i[SIW-1:0];
        end
        okcount = {NCW{1'b0}};
        for (i = 0; i < NOUT; i = i + 1) begin
            qfull[i] = in_prio ? qfull_q[2 * i + 1] : qfull_q[2 * i];
            okcount = okcount + {{(NCW-1){1'b0}}, want[i] && !qfull[i]};
        end
    end
    wire [NOUT-1:0] okmask = want & ~qfull;
    wire src_held_full = |(i_src_hot & held_full_q);   // held_full_q[src_o] (0 if not src_ok)

    reg        adm_store, adm_copies;   // stored / reached the per-output check
    reg  [3:0] adm_reason;
    always @* begin
        adm_store  = 1'b0;
        adm_copies = 1'b0;
        adm_reason = `FP_NOC_REASON_NONE;
        if (in_discard) begin
            adm_reason = in_hdr[`FP_NOC_REASON];
        end else if (!src_ok || want == {NOUT{1'b0}}) begin
            adm_reason = `FP_NOC_REASON_NO_DEST;
        end else if (!free_ok_q) begin
            adm_reason = `FP_NOC_REASON_BUFFER_FULL;
        end else if (src_held_full) begin
            adm_reason = `FP_NOC_REASON_PORT_THRESHOLD;
        end else begin
            adm_copies = 1'b1;
            if (okmask == {NOUT{1'b0}}) begin
                adm_reason = `FP_NOC_REASON_QUEUE_FULL;
            end else begin
                adm_store = 1'b1;
            end
        end
    end

    wire           store    = accept && src_ok && (in_first ? adm_store : (st_active && st_admit));
    // a first segment stored, but for the queue checks: the copy for queue o*2+prio is enqueued
    // when it passes its queue's check (then store is 1: okmask is not 0)
    wire           first_go = accept && src_ok && in_first && !in_discard && free_ok_q
                              && !src_held_full;
    wire [AW-1:0]  wa       = fl_head[AW-1:0];
    wire           wgen     = fl_head[AW];
    wire [NCW-1:0] ncopies  = in_first ? okcount : st_ncopy;
    // = store && !in_first, written so that it does not pass through the first segment's
    // admission (the queue checks) in the logic
    wire           link_ev  = accept && src_ok && !in_first && st_active && st_admit;
    wire [AW-1:0]  link_prev = st_tail;
    wire [AW-1:0]  link_next = wa;

    assign fl_pop = store;

    always @(posedge clk) begin
        ev_drop        <= accept && in_first && !adm_store;
        ev_drop_reason <= adm_reason;
        ev_drop_port   <= in_src;
        ev_drop_copy   <= (accept && in_first && adm_copies) ? (want & qfull) : {NOUT{1'b0}};
        if (rst) begin
            ev_drop      <= 1'b0;
            ev_drop_copy <= {NOUT{1'b0}};
        end
    end

    // (i_key_hot has one bit set when src_ok, none otherwise)
    always @(posedge clk) begin
        for (j = 0; j < NKEY; j = j + 1) begin
            if (accept && i_key_hot[j]) begin
                if (in_first) begin
                    w_active[j] <= !in_last;
                    w_admit[j]  <= adm_store;
                    w_ncopy[j]  <= okcount;
                end else if (in_last) begin
                    w_active[j] <= 1'b0;
                end
                if (store) begin
                    w_tail[j] <= wa;
                    w_tgen[j] <= wgen;
                end
            end
            if (rst) begin
                w_active[j] <= 1'b0;
            end
        end
    end

    // Linked flags, without a second write port: every segment has a generation bit g (from the
    // free list, written with the segment into the segment RAM and the reference count RAM);
    // linking k writes next[k] = {g(k), successor}, and k is linked iff next[k]'s generation
    // equals g(k). The free list hands out the generation that differs from next[k]'s: a segment
    // released by SEND was linked (next[k] carries g(k)), so it returns with ~g(k); one released
    // by FINISH (a last segment, never linked) returns with g(k). The init sweep writes
    // generation 1 into every next[k] and pushes k with generation 0.

    // ------------------------------------------------------------------------------------------
    // Memories
    // ------------------------------------------------------------------------------------------
    // read side signals (defined below)
    wire           rd_seg_en;
    wire [AW-1:0]  rd_seg_addr;
    wire [AW-1:0]  rd_rel_addr;
    wire [SW:0]    seg_rdata;                    // {generation, header, data}
    wire [AW:0]    next_rdata;                   // {generation of the linked segment, next}
    wire [OW+NCW:0] ref_rdata;                   // {generation, src_port, copies}
    wire [NCW-1:0] done_rdata;
    wire           done_wen;
    wire [AW-1:0]  done_waddr;
    wire [NCW-1:0] done_wdata;

    fp_ram_sdp #(.ADDR_WIDTH(AW), .DATA_WIDTH(SW + 1)) u_seg_ram (
        .clk(clk), .wen(store), .waddr(wa), .wdata({wgen, in_hdr, in_data}),
        .ren(rd_seg_en), .raddr(rd_seg_addr), .rdata(seg_rdata)
    );

    // written by the links and by the init sweep (generation 1: no segment linked). Read in R
    // through the output register (OUT_REG): the reader takes a link found in memory in P2.
    fp_ram_sdp #(.ADDR_WIDTH(AW), .DATA_WIDTH(AW + 1), .OUT_REG(1)) u_next_ram (
        .clk(clk), .wen(link_ev || !init_done_q), .waddr(init_done_q ? link_prev : sweep_q),
        .wdata(init_done_q ? {st_tgen, link_next} : {1'b1, {AW{1'b0}}}),
        .ren(rd_seg_en), .raddr(rd_seg_addr), .rdata(next_rdata)
    );

    // reference count, part 1: copies of the segment's frame, its src_port and generation
    // (writer only). Read with the segment (at the target of START / SEND): the reader keeps them
    // for its cur (r_rgen, r_rsrc, r_rtm1) until it releases it, so the release does not wait
    // for this RAM.
    fp_ram_sdp #(.ADDR_WIDTH(AW), .DATA_WIDTH(OW + NCW + 1)) u_ref_ram (
        .clk(clk), .wen(store), .waddr(wa), .wdata({wgen, src_o, ncopies}),
        .ren(rd_seg_en), .raddr(rd_seg_addr), .rdata(ref_rdata)
    );

    // reference count, part 2: copies already done (readers only; 0 after the init sweep and
    // whenever a segment is freed). Read in R like the others, through the output register
    // (OUT_REG): the release uses it in P2, so no RAM clock-to-out reaches the freeing logic.
    fp_ram_sdp #(.ADDR_WIDTH(AW), .DATA_WIDTH(NCW), .OUT_REG(1)) u_done_ram (
        .clk(clk), .wen(done_wen), .waddr(done_waddr), .wdata(done_wdata),
        .ren(1'b1), .raddr(rd_rel_addr), .rdata(done_rdata)
    );

    // ------------------------------------------------------------------------------------------
    // QM: per output and priority a queue of packet heads
    // ------------------------------------------------------------------------------------------
    wire [2*NOUT*AW-1:0] qhead;
    wire [2*NOUT-1:0] qempty;
    reg  [2*NOUT-1:0] qpop;
    reg  [2*NOUT-1:0] qpush;
    always @* begin
        for (i = 0; i < 2 * NOUT; i = i + 1) begin
            // = store && in_first && okmask[i/2] && the frame's prio is i's
            qpush[i] = first_go && want[i / 2] && !qfull_q[i] && (in_prio == (i % 2 == 1));
        end
    end

    genvar g;
    generate
        for (g = 0; g < 2 * NOUT; g = g + 1) begin : g_queue
            // the head is a register (HEAD_REG = 2), so SCHED's stage R starts from flip-flops;
            // that mode needs no pop in the cycle after a pop, and a queue is only popped by a
            // START of its output, at most once in 3 cycles (one op per output in C..P1)
            fp_fifo_fwft #(
                .WIDTH   (AW),
                .DEPTH   (QUEUE_DEPTH),
                .HEAD_REG(2)
            ) u_q (
                .clk      (clk),
                .rst      (rst),
                .push     (qpush[g]),
                .push_data(wa),
                .pop      (qpop[g]),
                .head     (qhead[g * AW +: AW]),
                .empty    (qempty[g]),
                .count    (qlen[g * QCW +: QCW])
            );
        end
    endgenerate

    // ------------------------------------------------------------------------------------------
    // SCHED: per-output reader state
    // ------------------------------------------------------------------------------------------
    // Two stages. C (choose): eligibility and the round robins, from registers only; the choice
    // is registered (c_*) and marks its output in flight. R (read): the registered choice's
    // target address (the queue head or the next pointer) reads the segment, next pointer and
    // linked generation, and the reference count data (copies, src_port, generation; kept per
    // output for the release of that segment); the release address (cur) reads the copies done;
    // the queue is popped.
    // P1: the RAM data is valid, the segment goes into the output buffer.
    // P2: the release (the copies done of cur through the RAM's output register).
    // An output has one op in C..P1 at a time, so its reader state is only changed by that op
    // (R: cur, P1: last and a broadcast link, P2: a link found in memory; the output's next op
    // reaches R only after that P2) and by link broadcasts while it waits.
    reg  [NOUT-1:0] r_active, r_inflight, r_last, r_nv;
    reg  [AW-1:0]   r_cur [0:NOUT-1];
    reg  [AW-1:0]   r_nxt [0:NOUT-1];
    reg  [RCW-1:0]  r_cnt [0:NOUT-1];            // segments in flight (ROOM accounting)
    // cur's reference count data (u_ref_ram, read with the segment): generation, src_port,
    // copies - 1
    reg  [NOUT-1:0] r_rgen;
    reg  [OW-1:0]   r_rsrc [0:NOUT-1];
    reg  [NCW-1:0]  r_rtm1 [0:NOUT-1];

    wire [DATAPATHS-1:0] fifo_ok;
    reg  [NOUT-1:0] want_start, want_send, want_fin, elig;
    always @* begin
        for (i = 0; i < NOUT; i = i + 1) begin
            want_start[i] = !r_active[i] && !(qempty[2 * i] && qempty[2 * i + 1]);
            want_send[i]  = r_active[i] && r_nv[i] && !r_last[i];
            want_fin[i]   = r_active[i] && r_last[i];
            elig[i] = !r_inflight[i] && (want_fin[i] ||
                      ((want_start[i] || want_send[i]) && out_room[i] &&
                       r_cnt[i] < ROOM[RCW-1:0] && fifo_ok[dp_of(i)]));
        end
    end

    // per datapath: round robin over its outputs; then round robin between the datapaths
    wire [DATAPATHS*OW-1:0]   dp_pick;
    wire [DATAPATHS*NOUT-1:0] dp_onehot;
    wire [DATAPATHS-1:0] dp_req;
    wire [DATAPATHS-1:0] dp_grant;
    /* verilator lint_off UNUSEDSIGNAL */  // = |chosen: the registered choice is one-hot (c_oh)
    wire                 iss_v;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [SIW-1:0]       iss_d;

    // fp_rr_arbiter finds the first request by prefix ORs over its pointer mask (no carry chain)
    generate
        for (g = 0; g < DATAPATHS; g = g + 1) begin : g_sched
            wire [NOUT-1:0] member = members(g);
            fp_rr_arbiter #(
                .N(NOUT)
            ) u_rr (
                .clk        (clk),
                .rst        (rst),
                .req        (elig & member),
                .ack        (dp_grant[g]),
                .grant      (dp_onehot[g * NOUT +: NOUT]),
                .grant_valid(dp_req[g]),
                .grant_index(dp_pick[g * OW +: OW])
            );
        end
    endgenerate

    fp_rr_arbiter #(
        .N(DATAPATHS)
    ) u_dp_arb (
        .clk        (clk),
        .rst        (rst),
        .req        (dp_req),
        .ack        (1'b1),
        .grant      (dp_grant),
        .grant_valid(iss_v),
        .grant_index(iss_d)
    );

    // the choice (stage C): output iss_o; chosen[o] one-hot
    wire [OW-1:0]   iss_o    = dp_pick[iss_d * OW +: OW];
    reg  [NOUT-1:0] chosen;
    always @* begin
        for (i = 0; i < NOUT; i = i + 1) begin
            chosen[i] = dp_grant[dp_of(i)] && dp_onehot[dp_of(i) * NOUT + i];
        end
    end

    // the choice registered one-hot (c_oh: the op's output; c_st / c_sd: that output's op is a
    // START / SEND, from the want_* of this cycle), so that stage R selects with AND-ORs and no
    // decoder; c_o (binary) only goes on to P1
    reg  [NOUT-1:0] c_oh, c_st, c_sd;
    reg  [OW-1:0]   c_o;
    reg  [SIW-1:0]  c_d;
    always @(posedge clk) begin
        c_o  <= iss_o;
        c_d  <= iss_d;
        c_oh <= chosen;
        c_st <= chosen & want_start;
        c_sd <= chosen & want_send;
        if (rst) begin
            c_oh <= {NOUT{1'b0}};
            c_st <= {NOUT{1'b0}};
            c_sd <= {NOUT{1'b0}};
        end
    end

    // stage R: the registered choice reads the memories. Per output o its target t_tgt[o]: the
    // head of its prio 1 queue if that is not empty, else of its prio 0 queue (START), or the
    // segment after cur (SEND); the queue heads are registers (fp_fifo_fwft HEAD_REG = 2). The
    // chosen output's target (one-hot AND-OR) addresses the segment RAM.
    wire            c_v     = |c_oh;
    wire            c_start = |c_st;
    wire            c_send  = |c_sd;
    wire            c_read  = c_start || c_send;
    reg  [NOUT*AW-1:0] t_tgt;
    reg  [AW-1:0]   c_tgt, c_rel;
    reg             c_rgen;
    reg  [OW-1:0]   c_rsrc;
    reg  [NCW-1:0]  c_rtm1;
    always @* begin
        c_tgt  = {AW{1'b0}};
        c_rel  = {AW{1'b0}};
        c_rgen = 1'b0;
        c_rsrc = {OW{1'b0}};
        c_rtm1 = {NCW{1'b0}};
        for (i = 0; i < NOUT; i = i + 1) begin
            t_tgt[i * AW +: AW] = !c_st[i] ? r_nxt[i]
                                : qempty[2 * i + 1] ? qhead[(2 * i) * AW +: AW]
                                : qhead[(2 * i + 1) * AW +: AW];
            c_tgt = c_tgt
                  | ({AW{c_st[i] && !qempty[2 * i + 1]}} & qhead[(2 * i + 1) * AW +: AW])
                  | ({AW{c_st[i] && qempty[2 * i + 1]}} & qhead[(2 * i) * AW +: AW])
                  | ({AW{c_sd[i]}} & r_nxt[i]);
            c_rel = c_rel | ({AW{c_oh[i]}} & r_cur[i]);
            c_rgen = c_rgen | (c_oh[i] & r_rgen[i]);
            c_rsrc = c_rsrc | ({OW{c_oh[i]}} & r_rsrc[i]);
            c_rtm1 = c_rtm1 | ({NCW{c_oh[i]}} & r_rtm1[i]);
        end
    end

    assign rd_seg_en   = c_read;
    assign rd_seg_addr = c_tgt;
    assign rd_rel_addr = c_rel;

    always @* begin
        for (i = 0; i < NOUT; i = i + 1) begin
            qpop[2 * i]     = c_st[i] && qempty[2 * i + 1];
            qpop[2 * i + 1] = c_st[i] && !qempty[2 * i + 1];
        end
    end

    // P1: op read at the previous edge, RAM data valid now
    reg           p1_v, p1_send, p1_rel;
    reg  [OW-1:0] p1_o;
    reg  [SIW-1:0] p1_d;
    reg  [AW-1:0] p1_rel_addr;
    reg            p1_rgen;                      // the released segment's reference data
    reg  [NOUT-1:0] p1_rsrc_hot;
    reg  [NCW-1:0] p1_rtm1;
    always @(posedge clk) begin
        p1_rgen     <= c_rgen;
        p1_rtm1     <= c_rtm1;
        for (i = 0; i < NOUT; i = i + 1) begin
            p1_rsrc_hot[i] <= c_rsrc == i[OW-1:0];
        end
        p1_send     <= c_start || c_send;
        p1_rel      <= !c_start;                 // SEND and FINISH release cur
        p1_o        <= c_o;
        p1_d        <= c_d;
        p1_rel_addr <= c_rel;
        if (rst) begin
            p1_v <= 1'b0;
        end else begin
            p1_v <= c_v;
        end
    end

    wire [HW-1:0] rd_hdr    = seg_rdata[SW-1 -: HW];
    wire          rd_last   = rd_hdr[`FP_NOC_LAST_LSB];
    // P2 of a read (START / SEND): the next pointer read in R arrives through the RAM's output
    // register. The segment read is linked iff next's generation is the segment's (as of the read
    // edge); the segment's generation is registered in P1 for it.
    reg            p2_lv;                        // a START / SEND read is in P2
    reg  [NOUT-1:0] p2_loh;                      // ... for this output (one-hot)
    reg            p2_sgen;
    always @(posedge clk) begin
        p2_sgen <= seg_rdata[SW];
        for (i = 0; i < NOUT; i = i + 1) begin
            p2_loh[i] <= p1_o == i[OW-1:0];
        end
        p2_lv <= !rst && p1_v && p1_send;
    end
    wire           p2_linked = p2_lv && next_rdata[AW] == p2_sgen;

    // P2, the release (SEND and FINISH release cur), a cycle after P1: the copies done of cur
    // come from the RAM's output register. done + 1 is written back, or 0 and the segment goes
    // to the free list when this is its last copy. A release in P2 writes at the end of its
    // cycle, and a read in R sees only writes made before it, so the values written by the two
    // releases ahead (one and two cycles earlier) are forwarded when they were to the same
    // address; their address compares are made in P1 from registers.
    reg            p2_v, p2_send, p2_rgen;
    reg  [AW-1:0]  p2_rel_addr;
    reg  [NOUT-1:0] p2_rsrc_hot;
    reg  [NCW-1:0] p2_rtm1;
    reg            p3_v;                         // the release of the cycle before (its address)
    reg  [AW-1:0]  p3_rel_addr;
    reg  [NCW-1:0] fwd1_val, fwd2_val;           // written one / two cycles ago
    reg            fwd1_hit, fwd2_hit;           // ... to the address released now
    always @(posedge clk) begin
        p2_send     <= p1_send;
        p2_rgen     <= p1_rgen;
        p2_rel_addr <= p1_rel_addr;
        p2_rsrc_hot <= p1_rsrc_hot;
        p2_rtm1     <= p1_rtm1;
        p3_rel_addr <= p2_rel_addr;
        fwd1_val    <= done_wdata;
        fwd2_val    <= fwd1_val;
        fwd1_hit    <= p2_v && p2_rel_addr == p1_rel_addr;
        fwd2_hit    <= p3_v && p3_rel_addr == p1_rel_addr;
        if (rst) begin
            p2_v     <= 1'b0;
            p3_v     <= 1'b0;
            fwd1_hit <= 1'b0;
            fwd2_hit <= 1'b0;
        end else begin
            p2_v     <= p1_v && p1_rel;
            p3_v     <= p2_v;
        end
    end

    // the last copy: done before it = copies - 1 (never more); each candidate compared on its own,
    // the forwarding flags only select
    wire           last_ram  = done_rdata == p2_rtm1;
    wire           last_f1   = fwd1_val == p2_rtm1;
    wire           last_f2   = fwd2_val == p2_rtm1;
    wire           freeing   = p2_v && (fwd1_hit ? last_f1 : fwd2_hit ? last_f2 : last_ram);
    wire [NCW-1:0] done_old  = fwd1_hit ? fwd1_val : fwd2_hit ? fwd2_val : done_rdata;
    wire [NCW-1:0] done_new  = done_old + 1'b1;

    assign done_wen   = p2_v || !init_done_q;
    assign done_waddr = init_done_q ? p2_rel_addr : sweep_q;
    assign done_wdata = (init_done_q && !freeing) ? done_new : {NCW{1'b0}};

    // a segment released by SEND was linked: its next generation is the other one
    assign fl_push      = freeing || !init_done_q;
    assign fl_push_data = init_done_q ? {p2_rgen ^ p2_send, p2_rel_addr} : {1'b0, sweep_q};

    // segments held per src_port: +1 / -1 formed from the register, the events only select
    localparam [CW-1:0] CW_ONE = 1, CW_ZERO = 0;
    reg [NOUT-1:0] held_up, held_dn;
    always @* begin
        for (i = 0; i < NOUT; i = i + 1) begin
            held_up[i] = store && i_src_hot[i];
            held_dn[i] = freeing && p2_rsrc_hot[i];
        end
    end
    always @(posedge clk) begin
        for (m = 0; m < NOUT; m = m + 1) begin
            if (held_up[m] != held_dn[m]) begin
                held[m] <= held_up[m] ? held[m] + CW_ONE : held[m] - CW_ONE;
            end
            if (rst) begin
                held[m] <= CW_ZERO;
            end
        end
    end

    // Admission flags (see Admission): for a count c with the cycle's events up/down, the flag
    // "c >= L" of the next cycle is (c+1 >= L, c >= L, c-1 >= L) as the count goes up, stays or
    // goes down; the comparisons are of registers (and the cfg inputs), the events only select.
    // (c-1 is only selected when c >= 1, c+1 only when c is below its maximum.)
    localparam [CW:0]  CX_ONE = 1;
    localparam [QCW:0] QX_ONE = 1;
    wire [CW:0] free_x = {1'b0, free_now};
    wire [CW:0] res_x  = {1'b0, cfg_reserve};
    wire [CW:0] plim_x = {1'b0, cfg_port_limit};
    wire [QCW:0] qlim_x = {1'b0, qlim};
    integer fi;
    always @(posedge clk) begin
        // written as up ? (down ? same : +1) : (down ? -1 : same), the comparisons precomputed
        free_ok_q <= fl_pop ? (fl_push ? free_x >= res_x : free_x >= res_x + CX_ONE)
                            : (fl_push ? free_x + CX_ONE >= res_x : free_x >= res_x);
        for (fi = 0; fi < NOUT; fi = fi + 1) begin
            held_full_q[fi] <= held_up[fi]
                ? (held_dn[fi] ? {1'b0, held[fi]} >= plim_x : {1'b0, held[fi]} + CX_ONE >= plim_x)
                : (held_dn[fi] ? {1'b0, held[fi]} >= plim_x + CX_ONE : {1'b0, held[fi]} >= plim_x);
        end
        for (fi = 0; fi < 2 * NOUT; fi = fi + 1) begin
            qfull_q[fi] <= qpush[fi]
                ? (qpop[fi] ? {1'b0, qlen[fi * QCW +: QCW]} >= qlim_x
                            : {1'b0, qlen[fi * QCW +: QCW]} + QX_ONE >= qlim_x)
                : (qpop[fi] ? {1'b0, qlen[fi * QCW +: QCW]} >= qlim_x + QX_ONE
                            : {1'b0, qlen[fi * QCW +: QCW]} >= qlim_x);
        end
        if (rst) begin                           // the counts are 0 after the reset
            free_ok_q   <= cfg_reserve == CW_ZERO;
            held_full_q <= {NOUT{cfg_port_limit == CW_ZERO}};
            qfull_q     <= {2*NOUT{qlim == {QCW{1'b0}}}};
        end
    end

    // ------------------------------------------------------------------------------------------
    // Output buffers (per TX datapath) and ROOM accounting
    // ------------------------------------------------------------------------------------------
    wire [DATAPATHS*SW-1:0] ob_head;
    wire [DATAPATHS-1:0] ob_empty;
    reg  [HW-1:0]  out_hdr;
    always @* begin
        out_hdr = rd_hdr;
        out_hdr[`FP_NOC_OUT_PORT] = {`FP_NOC_OUT_PORT_W{1'b0}};
        out_hdr[`FP_NOC_OUT_PORT_LSB +: OW] = p1_o;
    end

    localparam OBW = $clog2(ODEPTH) + 1;
    localparam [OBW-1:0] OB_ONE = 1, OB_ZERO = 0, OB_DEPTH = ODEPTH;
    wire [DATAPATHS-1:0]    lag_end_v;           // a segment left m_axis LAG cycles ago
    wire [DATAPATHS*OW-1:0] lag_end_o;           // ... for this output

    generate
        for (g = 0; g < DATAPATHS; g = g + 1) begin : g_out
            /* verilator lint_off UNUSEDSIGNAL */  // the FIFO's own count: ob_res is used
            wire [$clog2(ODEPTH):0] ob_count;
            /* verilator lint_on UNUSEDSIGNAL */
            wire [SW-1:0] word = ob_head[g * SW +: SW];
            wire [HW-1:0] hdr = word[SW-1 -: HW];
            wire [6:0]    nb  = hdr[`FP_NOC_BYTES];
            wire          hs  = !ob_empty[g] && m_axis_tready[g];
            fp_fifo_fwft #(
                .WIDTH(SW),
                .DEPTH(ODEPTH)
            ) u_ob (
                .clk      (clk),
                .rst      (rst),
                .push     (p1_v && p1_send && p1_d == g),
                .push_data({out_hdr, seg_rdata[DW-1:0]}),
                .pop      (hs),
                .head     (ob_head[g * SW +: SW]),
                .empty    (ob_empty[g]),
                .count    (ob_count)
            );
            // space: the buffer's entries plus the segments chosen for it and not yet in it (in
            // R and the read stage), counted in a register of their own (+1 at the choice of a
            // read, -1 at the m_axis handshake) so that the check is a compare of a register
            reg  [OBW-1:0] ob_res;
            wire ch_read = |(chosen & (want_start | want_send) & members(g));
            always @(posedge clk) begin
                ob_res <= ob_res + (ch_read ? OB_ONE : OB_ZERO) - (hs ? OB_ONE : OB_ZERO);
                if (rst) begin
                    ob_res <= OB_ZERO;
                end
            end
            assign fifo_ok[g] = ob_res < OB_DEPTH;

            assign m_axis_tdata[g * DW +: DW]              = word[DW-1:0];
            assign m_axis_tuser[g * HW +: HW]              = hdr;
            assign m_axis_tlast[g]                         = hdr[`FP_NOC_LAST_LSB];
            assign m_axis_tvalid[g]                        = !ob_empty[g];
            assign m_axis_tkeep[g * SEG_BYTES +: SEG_BYTES] =
                ({25'd0, nb} >= SEG_BYTES) ? {SEG_BYTES{1'b1}} : ~({SEG_BYTES{1'b1}} << nb);

            reg [LAG-1:0]    lag_v;
            reg [LAG*OW-1:0] lag_o;
            always @(posedge clk) begin
                lag_v <= {lag_v[LAG-2:0], hs};
                lag_o <= {lag_o[(LAG-1)*OW-1:0], hdr[`FP_NOC_OUT_PORT_LSB +: OW]};
                if (rst) begin
                    lag_v <= {LAG{1'b0}};
                end
            end
            assign lag_end_v[g]            = lag_v[LAG-1];
            assign lag_end_o[g * OW +: OW] = lag_o[(LAG-1)*OW +: OW];
        end
    endgenerate

    // ------------------------------------------------------------------------------------------
    // Per-output reader state update
    // ------------------------------------------------------------------------------------------
    reg [NOUT-1:0] lh, dec;
    integer a, b, d;
    always @* begin
        for (a = 0; a < NOUT; a = a + 1) begin
            lh[a]  = link_ev && r_active[a] && link_prev == r_cur[a];
            dec[a] = 1'b0;
            for (d = 0; d < DATAPATHS; d = d + 1) begin
                if (lag_end_v[d] && lag_end_o[d * OW +: OW] == a[OW-1:0]) begin
                    dec[a] = 1'b1;
                end
            end
        end
    end

    localparam [RCW-1:0] RC_ONE = 1, RC_ZERO = 0;
    always @(posedge clk) begin
        for (b = 0; b < NOUT; b = b + 1) begin
            // in flight from the choice (C) to the end of P1
            if (chosen[b]) begin
                r_inflight[b] <= 1'b1;
            end else if (p1_v && p1_o == b[OW-1:0]) begin
                r_inflight[b] <= 1'b0;
            end
            if (c_oh[b]) begin
                // R: START and SEND move to the target
                if (c_st[b]) begin
                    r_active[b] <= 1'b1;
                end
                if (c_st[b] || c_sd[b]) begin
                    r_cur[b]  <= t_tgt[b * AW +: AW];
                    r_last[b] <= 1'b0;
                    // a link made at this very edge is not in the memories read now
                    r_nv[b]   <= link_ev && link_prev == t_tgt[b * AW +: AW];
                    r_nxt[b]  <= link_next;
                end
            end else if (p1_v && p1_o == b[OW-1:0]) begin
                if (p1_send) begin
                    r_last[b] <= rd_last;
                    r_rgen[b] <= ref_rdata[OW+NCW];
                    r_rsrc[b] <= ref_rdata[OW+NCW-1 -: OW];
                    r_rtm1[b] <= ref_rdata[NCW-1:0] - 1'b1;
                    // a link made at or after the read's edge (the memory's is taken in P2)
                    if (lh[b]) begin
                        r_nv[b]  <= 1'b1;
                        r_nxt[b] <= link_next;
                    end
                end else begin
                    r_active[b] <= 1'b0;           // FINISH: packet done
                end
            end else if (p2_linked && p2_loh[b]) begin
                // P2: linked in memory (the output's next op is chosen at the earliest now, so
                // it reads r_nxt after this edge)
                r_nv[b]  <= 1'b1;
                r_nxt[b] <= next_rdata[AW-1:0];
            end else if (lh[b] && !r_nv[b]) begin
                r_nv[b]  <= 1'b1;
                r_nxt[b] <= link_next;
            end
            // ROOM accounting: +1 when read (R), -1 LAG cycles after the m_axis handshake
            r_cnt[b] <= r_cnt[b]
                + ((c_st[b] || c_sd[b]) ? RC_ONE : RC_ZERO)
                - (dec[b] ? RC_ONE : RC_ZERO);
            if (rst) begin
                r_active[b]   <= 1'b0;
                r_inflight[b] <= 1'b0;
                r_last[b]     <= 1'b0;
                r_nv[b]       <= 1'b0;
                r_cnt[b]      <= RC_ZERO;
            end
        end
    end

    // ------------------------------------------------------------------------------------------
    // Status
    // ------------------------------------------------------------------------------------------
    wire [CW-1:0] used_now = SEGS - free_now;
    always @(posedge clk) begin
        if (rst || stat_hwm_clear) begin
            stat_used_hwm <= {CW{1'b0}};
        end else if (init_done_q && used_now > stat_used_hwm) begin
            stat_used_hwm <= used_now;
        end
    end

    assign stat_queue_len = qlen;

    generate
        for (g = 0; g < NOUT; g = g + 1) begin : g_stat
            assign stat_port_held[g * CW +: CW] = held[g];
            assign stat_busy[g] = r_active[g] || !qempty[2 * g] || !qempty[2 * g + 1];
        end
    endgenerate

endmodule

`default_nettype wire
