/*
 * libfade (fade_lib.h): the receive path - the frames of a V3 ring block or V2 ring frames, and
 * those of the response socket, parsed and placed into the receiver packet buffer (fade_core.c)
 * under `lock`, a batch at a time, their ACKs queued (fade_ack.c sends them); command responses
 * delivered to the waiting command; unknown boards RESET; frame mode entered and left.
 * Callers hold rx_lock (fade_poll.c: the receive thread or poll mode).
 */
#include "fade_lib.h"

#include <linux/if_packet.h>
#include <string.h>

#define FOREIGN_RESET_NS 10000000ull  /* at most one RESET per unknown board per 10 ms */
#define CTRL_BATCH 64u         /* response socket: frames read per call (then the ACKs go out) */

/* ---- one frame --------------------------------------------------------------------------------- */

/* Called with the lock held: a response carried by a DATA / LAST / RESP frame. The waiting
 * command thread is woken at once (it waits on resp_lock, not on the lock). */
static void got_response(struct fade *f, const struct fade_frame *fr)
{
    int match;
    pthread_mutex_lock(&f->resp_lock);
    match = f->pend_cmd != FADE_CMD_NONE && !f->pend_done && fr->resp_cmd == f->pend_cmd &&
            fr->resp_csn == f->pend_csn;
    if (match) {
        f->pend_done = 1;
        f->pend_val = fr->resp_val;
    }
    pthread_mutex_unlock(&f->resp_lock);
    if (match) {
        pthread_cond_broadcast(&f->cmd_cv);
        progress(f);
        f->c.responses++;
    } else {
        f->c.stale_responses++;
    }
}

static void reset_foreign(struct fade *f, const uint8_t mac[6])
{
    uint8_t frame[FADE_MIN_FRAME];
    uint64_t t = now_ns();
    if (!memcmp(mac, f->foreign_mac, 6) && t - f->foreign_ns < FOREIGN_RESET_NS)
        return;
    if (board_is_open(f->ifindex, mac))
        return;
    memcpy(f->foreign_mac, mac, 6);
    f->foreign_ns = t;
    fade_build_cmd(frame, mac, f->self, FADE_CMD_RESET, 0, 0);
    if (send_frame(f, frame, sizeof(frame)) == 0)
        f->c.resets_sent++;
}

/* One whole frame (from the ring, or the response socket), lock held; its ACK is queued in
 * f->acks[(*nacks)++], a duplicate's too unless !ack_dups. take_resp: deliver the response it
 * carries. */
static void handle_frame(struct fade *f, const uint8_t *d, size_t len, unsigned *nacks,
                         int take_resp, int ack_dups, int ring_block)
{
    struct fade_frame fr;
    enum fade_kind k = fade_parse(d, len, &fr);
    enum fade_rx_verdict v;
    int skipped = 0;

    if (len < 12 || memcmp(fr.src, f->board, 6) != 0) {
        f->c.foreign++;
        if (len >= 12 && (k == FADE_K_DATA || k == FADE_K_LAST || k == FADE_K_RESP))
            reset_foreign(f, fr.src);
        return;
    }
    f->c.frames++;
    switch (k) {
    case FADE_K_BAD_VERSION:
        f->c.bad_version++;
        return;
    case FADE_K_RESP:
        if (take_resp)
            got_response(f, &fr);
        return;
    case FADE_K_DATA:
    case FADE_K_LAST:
        break;
    default:
        f->c.bad_frame++;
        return;
    }
    if (fr.resp_cmd != FADE_CMD_NONE && take_resp)
        got_response(f, &fr);
    if (!f->active) {
        f->c.idle_data++;
        return;
    }
    v = fade_rx_data_ex(&f->rx, &fr, ring_block >= 0 && f->nspans < f->span_cap, &skipped);
    if (skipped && fr.nwords) {  /* read in place: the ring block stays the application's */
        struct span *sp = &f->spans[(f->span_first + f->nspans++) % f->span_cap];
        sp->data = fr.words;
        sp->len = fr.nwords * 8u;
        sp->block = (uint32_t)ring_block;
        f->block_refs[ring_block]++;
        f->c.inplace++;
    }
    if (v == FADE_RX_DUP && !ack_dups)  /* frame mode's second copy, not the board's duplicate */
        f->rx.dups--;
    if ((v == FADE_RX_NEW || (v == FADE_RX_DUP && ack_dups)) && *nacks < MAX_ACKS) {
        struct fade_ack_rec *r = &f->acks[(*nacks)++];
        r->type = FADE_TYPE_ACK;
        r->seq = fr.seq;
        r->pkt = fr.pkt;
        r->delay = fr.delay;
    }
}

/* ---- batches ----------------------------------------------------------------------------------- */

/* Frames handed over by the kernel, one V3 block or up to 64 V2 frames at a time: all handled
 * under the lock, then the ACKs go out together (send_acks). */
struct batch {
    uint64_t head_before;
    int eos_before;
    unsigned nacks;
};

static void batch_begin(struct fade *f, struct batch *b)
{
    pthread_mutex_lock(&f->lock);
    b->head_before = fade_rx_head(&f->rx);
    b->eos_before = fade_rx_eos(&f->rx);
    b->nacks = 0;
}

static void batch_frame(struct fade *f, struct batch *b, const uint8_t *hdr, size_t hdr_len,
                        unsigned mac_off, unsigned snaplen)
{
    const struct sockaddr_ll *sll = (const void *)(hdr + TPACKET_ALIGN(hdr_len));
    if (sll->sll_pkttype == PACKET_OUTGOING)
        return;
    /* with the response socket (V3) the responses are its; V2 has them in the ring. In frame
     * mode the response socket had (and ACKed) nearly every frame first: the ring's duplicates
     * are not ACKed again, nor counted as duplicates. */
    handle_frame(f, hdr + mac_off, snaplen, &b->nacks, f->cfd < 0, !f->frame_mode, f->cur_block);
}

/* Wakes the reader only when what it waits for is there (avail >= wakeup, or the end of the
 * stream), after the lock is released, so the woken thread does not block on the mutex at once. The waiters test their condition under
 * the lock, so no wake-up is lost. */
static void batch_end(struct fade *f, struct batch *b)
{
    uint64_t head = fade_rx_head(&f->rx);
    int eos = fade_rx_eos(&f->rx), wake_data;
    wake_data = f->waiters && (head != b->head_before || eos != b->eos_before) &&
                (head - f->rx.tail >= f->wakeup || eos);
    sync_counters(f);
    if (head != b->head_before || eos != b->eos_before)
        progress(f);
    pthread_mutex_unlock(&f->lock);
    if (wake_data)
        pthread_cond_broadcast(&f->data_cv);
}

/* ---- the response socket ----------------------------------------------------------------------- */

/* The response socket (V3; rx_lock held), frame by frame as they arrive, at most CTRL_BATCH
 * per call: RESP frames; the heads of the DATA / LAST frames that carry a response, whose
 * response is delivered at once (the frame itself, its words and its ACK, is the ring's); and
 * in frame mode every frame whole. Frames read. */
static int rx_control(struct fade *f)
{
    struct batch b;
    int got = 0;
    while (got < (int)CTRL_BATCH) {
        struct sockaddr_ll from;
        socklen_t fl = sizeof(from);
        struct fade_frame fr;
        ssize_t r = recvfrom(f->cfd, f->cbuf, FADE_DATA_LEN, MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &fl);
        size_t len;
        uint16_t t;
        int data;
        uint64_t new_before;
        if (r < 0)
            break;
        len = (size_t)r > FADE_DATA_LEN ? FADE_DATA_LEN : (size_t)r;
        if (!got++)
            batch_begin(f, &b);
        if (from.sll_pkttype == PACKET_OUTGOING)
            continue;
        t = len >= FADE_DATA_TYPE_OFF + 2 ? fade_get16(f->cbuf + FADE_DATA_TYPE_OFF) : 0;
        data = t == FADE_TYPE_DATA || t == FADE_TYPE_LAST;
        if (data && len < FADE_DATA_LEN) {
            /* a data frame's head (or a short one): its response if it is our board's and
             * well formed; the ring has the frame and counts it, whatever it is */
            if (fade_parse_response(f->cbuf, len, &fr) && !memcmp(fr.src, f->board, 6))
                got_response(f, &fr);
            continue;
        }
        /* a whole frame: RESP frames; in frame mode (or queued just before it ended) all */
        new_before = f->rx.new_pkts;
        handle_frame(f, f->cbuf, len, &b.nacks, 1, 1, -1);
        if (f->frame_mode && data && !memcmp(f->cbuf + FADE_HEADER_SRC_OFF, f->board, 6)) {
            f->c.frame_mode_frames++;
            if (f->rx.new_pkts != new_before && f->rx.hi_pkt == f->rx.head_pkt) {
                f->clean++;
            } else {
                f->clean = 0;
            }
        }
    }
    if (got == (int)CTRL_BATCH)  /* more may be there: read again at the next look */
        __atomic_store_n(&f->cfd_ready, 1, __ATOMIC_RELAXED);
    if (got) {
        batch_end(f, &b);
        if (b.nacks)
            send_acks(f, b.nacks);
    }
    if (f->frame_mode && f->clean >= f->frame_exit)  /* frame_exit new packets in order */
        frame_mode(f, 0);
    return got;
}

/* The response socket: when poll() said so, always while a command waits (`waiting`) and in
 * frame mode (the data comes there then); no syscall per call otherwise. Frames read. */
int check_control(struct fade *f, int waiting)
{
    if (f->cfd >= 0 &&
        (__atomic_exchange_n(&f->cfd_ready, 0, __ATOMIC_RELAXED) || waiting || f->frame_mode))
        return rx_control(f);
    return 0;
}

/* ---- frame mode -------------------------------------------------------------------------------- */

/* A ring block showed a gap or duplicates (rx_block(); rx_lock held, `lock` not): frame mode.
 * gap_only: the missing packets may be whole frames still in the response socket (queued in
 * frame mode, just before it ended): take them first, and start only if a gap remains. */
static void start_frame_mode(struct fade *f, int gap_only)
{
    if (gap_only) {
        int gap;
        rx_control(f);
        pthread_mutex_lock(&f->lock);
        gap = f->rx.hi_pkt > f->rx.head_pkt;
        pthread_mutex_unlock(&f->lock);
        if (!gap)
            return;
    }
    frame_mode(f, 1);
}

/* Frame mode on / off (rx_lock held). Only the response socket's filter changes: the ring keeps
 * every data frame, so no frame is lost to the switch (the frames that were in the open ring
 * block when it began come from there, the later ones twice: the ring's copies are
 * duplicates). If the kernel refuses the new filter, the mode stays as it was. */
void frame_mode(struct fade *f, int on)
{
    if (on == f->frame_mode || set_filter(f->cfd, on ? FADE_FILT_ALL : FADE_FILT_CTRL) < 0)
        return;
    if (on)
        __atomic_fetch_add(&f->c.frame_mode_entries, 1, __ATOMIC_RELAXED);
    else
        f->grace = 2;
    __atomic_store_n(&f->frame_mode, on, __ATOMIC_RELAXED);
    f->clean = 0;
}

/* ---- the RX ring ------------------------------------------------------------------------------- */

/* TPACKET_V3: the kernel hands over whole blocks (full, or after the retire timer). One block
 * if there is one: its number of frames; -1 if the kernel has not handed the next one over. */
static int rx_block(struct fade *f)
{
    struct tpacket_block_desc *bd = (void *)(f->ring + (size_t)f->block * f->block_size);
    struct tpacket3_hdr *h;
    struct batch b;
    unsigned i, n;
    uint64_t dups_before;
    int dup, gap, stall;
    if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER) ||
        (f->inplace && f->block_refs[f->block]))  /* handled, still read in place */
        return -1;
    n = bd->hdr.bh1.num_pkts;
    h = (void *)((uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt);
    batch_begin(f, &b);
    f->cur_block = f->inplace ? (int)f->block : -1;
    dups_before = f->rx.dups;
    for (i = 0; i < n; i++) {
        batch_frame(f, &b, (const uint8_t *)h, sizeof(struct tpacket3_hdr), h->tp_mac,
                    h->tp_snaplen);
        h = (void *)((uint8_t *)h + h->tp_next_offset);
    }
    f->cur_block = -1;
    /* Frame mode after a gap (a lost data frame) or duplicates (a lost ACK: the board
     * retransmits): the board's window may run out before the next block fills. Duplicates
     * right after frame mode are its own (the ring's copies). Not the retire timer: it also
     * hands over blocks that were still filling (it fires at the next tick, 0-4 ms after a
     * block opens). */
    dup = f->rx.dups != dups_before && !f->grace;
    if (f->grace)
        f->grace--;
    gap = f->rx.hi_pkt > f->rx.head_pkt;
    stall = f->frame_mode_ok && !f->frame_mode && f->active && !fade_rx_eos(&f->rx) && (gap || dup);
    batch_end(f, &b);
    /* back to the kernel, unless the application reads some of it in place (then the last
     * fade_release_span() of it returns it) */
    if (!f->inplace || !f->block_refs[f->block])
        __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    f->block = (f->block + 1) % f->blocks;
    if (b.nacks)
        send_acks(f, b.nacks);
    if (stall)
        start_frame_mode(f, gap && !dup);
    return (int)n;
}

/* TPACKET_V2: every frame has its own status word, seen as soon as the kernel wrote it. */
static struct tpacket2_hdr *v2_frame(struct fade *f, unsigned i)
{
    return (void *)(f->ring + (size_t)(i / f->per_block) * f->block_size +
                    (size_t)(i % f->per_block) * f->frame_size);
}

/* Up to 64 frames: how many; -1 if there is none. */
static int rx_frames(struct fade *f)
{
    struct tpacket2_hdr *h = v2_frame(f, f->frame);
    struct batch b;
    unsigned n = 0, first = f->frame, handled;
    if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
        return -1;
    batch_begin(f, &b);
    while (n < 64 && (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
        batch_frame(f, &b, (const uint8_t *)h, sizeof(struct tpacket2_hdr), h->tp_mac,
                    h->tp_snaplen);
        n++;
        f->frame = (f->frame + 1) % f->frames;
        h = v2_frame(f, f->frame);
    }
    batch_end(f, &b);
    handled = n;
    while (n--) {
        __atomic_store_n(&v2_frame(f, first)->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        first = (first + 1) % f->frames;
    }
    if (b.nacks)
        send_acks(f, b.nacks);
    return (int)handled;
}

/* The next ring batch: a V3 block or up to 64 V2 frames; frames, or -1 if none is there. */
int rx_ring(struct fade *f)
{
    return f->v2 ? rx_frames(f) : rx_block(f);
}
