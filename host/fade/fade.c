/*
 * libfade: the FADE-10G host side (include/fastpath/fade.h, docs/fade_host.md).
 *
 * A context = one board: an AF_PACKET socket on the interface (TPACKET_V3 RX ring sized from the
 * window, or V2 with ring_version = 2; classic BPF filter on the Ethertype; our own outgoing
 * frames ignored); with V3 a second, ringless socket that receives the head of every frame that
 * carries a command response (the ring keeps every data frame whole), so responses do not wait
 * for a V3 block, and in frame mode (after a loss) every frame whole; a send-only socket
 * with a PACKET_TX_RING for the ACKs (one send() per batch; each ring frame starts with a
 * virtio_net_hdr so the kernel copies the ACK instead of attaching the ring page); a receive
 * thread that ACKs every data packet; and the receiver packet buffer (fade_core.c) in a memfd
 * mapped twice back to back.
 *
 * Poll mode (option poll_mode): no receive thread; the threads calling fade_read_ptrs() /
 * fade_read_span() / fade_poll() handle the ring themselves (poll_step()) and sleep in poll()
 * on the sockets (and an eventfd another thread wakes them with when it made progress for
 * them); a command thread reads its response itself. Reading in place (option inplace): packets
 * that arrive in order stay in the RX ring and are handed to the application as spans; their
 * ring block goes back to the kernel when the last span in it is released.
 *
 * Locking: `lock` protects the receive state (fade_rx, the spans) and the
 * counters. The receive thread takes it once per ring block; the application takes it in
 * read_ptrs / write_ptrs / get_counters; the data bytes between tail and head belong to the
 * application and are read without the lock. `rx_lock` (taken before `lock`) serializes the
 * handling of the rings, the response socket and the ACK TX ring between the threads that call
 * in (poll mode) or the receive thread and START / RESET. `resp_lock` protects the pending
 * command (taken briefly, also by the receive thread inside `lock`; never the other way round). `cmd_lock` serializes commands:
 * one in flight per board, which is what makes the board's "same csn -> do not execute again"
 * rule give exactly-once execution.
 */
#include <fastpath/fade.h>

#include "fade_core.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define CMD_TRY_MS 50u        /* START / STOP: wait this long per try */
#define FOREIGN_RESET_NS 10000000ull  /* at most one RESET per unknown board per 10 ms */
#define MAX_ACKS 1024u
#define CTRL_BATCH 64u         /* response socket: frames read per call (then the ACKs go out) */
#define FILL_MAX_NS 320000u    /* a ring block fills within half the RTL core's timeout */
#define FRAME_TRUESIZE 17408u   /* kernel memory a whole data frame takes in a socket queue */
#define TX_FRAME 256u         /* ACK TX ring: frame size (header + an ACK frame of up to 112 bytes) ... */
#define TX_FRAMES 4096u       /* ... and frames: ACKs not yet consumed by the peer hold one each */
#define TX_DATA_OFF (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))  /* frame data in a V2 TX frame */

struct fade {
    char ifname[IF_NAMESIZE];
    int ifindex;
    uint8_t board[6], self[6];
    int fd;
    /* RX ring */
    uint8_t *ring;
    size_t ring_len, block_size;
    unsigned blocks, block;
    int v2;                /* TPACKET_V2: frame by frame (frames/frame_size/frame/per_block) */
    unsigned frames, frame, per_block;
    size_t frame_size;
    /* receiver packet buffer */
    uint8_t *buf;          /* 2 * buf_len of address space, both halves the same memory */
    size_t buf_len;
    uint32_t *slot_pkt;
    pthread_mutex_t lock;
    pthread_cond_t data_cv, cmd_cv;
    struct fade_rx rx;
    int active;            /* a stream was started: data frames are accepted */
    size_t wakeup;
    int waiters;
    int closing;
    struct fade_counters c;
    /* commands */
    pthread_mutex_t cmd_lock;
    uint16_t csn;
    pthread_mutex_t resp_lock;    /* the pending command (pend_*), cmd_cv: held only briefly, so
                                   * a command never waits for the receive thread's batch */
    uint16_t pend_cmd, pend_csn;  /* pend_cmd == FADE_CMD_NONE: nothing pending */
    int pend_done;
    uint64_t pend_val;
    /* receive thread */
    pthread_t thread;
    int thread_started;
    int rx_cpu;
    uint8_t foreign_mac[6];
    uint64_t foreign_ns;
    struct fade_ack_rec *acks;  /* the batch's ACK records, in the order of their data frames */
    uint8_t (*ackf)[FADE_ACK_FRAME_MAX];  /* ACK frames for sendmmsg() (no TX ring, or full) */
    unsigned ack_max;       /* option ack_records: most records per ACK frame (1..MAX) */
    unsigned ack_per_frame; /* records per ACK frame now: min(ack_max, the board's START answer) */
    struct mmsghdr *msgs;
    struct iovec *iovs;
    /* ACK transmission: a PACKET_TX_RING (TPACKET_V2) on a second, send-only socket: ACKs are
     * written into ring frames and one send() hands the whole batch to the kernel; sendmmsg()
     * on fd when the ring is unavailable or full */
    int txfd;
    uint8_t *txring;
    unsigned tx_off;       /* where the frame starts in a TX ring frame (after a virtio_net_hdr) */
    unsigned tx_next;      /* next TX ring frame to fill */
    int tx_unsent;         /* frames still waiting for a send() (the kernel had no room) */
    /* Command responses without the V3 block delay: with the V3 ring, a second, ringless
     * socket receives the RESP frames and the first FADE_CTRL_SNAP bytes of every DATA / LAST frame
     * that carries a response (BPF filters), read frame by frame as they arrive: the response
     * is taken at once. The data frame itself stays in the ring, so its words, its ACK and the
     * ring block's filling do not depend on whether it carried a response. */
    int cfd;
    uint8_t *cbuf;         /* one frame (or head) read from cfd */
    int cfd_ready;         /* poll() saw cfd readable */
    /* Frame mode (V3, when a ring block holds half the window or more): a block is handed over
     * only when full or by the kernel's retire timer (1 jiffy, 4 ms at HZ = 250). After a loss
     * the board's window can be used up before the open block fills, and then everything waits
     * for that timer; on a slow link a block may take longer to fill than the board waits for
     * its ACKs (ring_geometry() sizes the blocks for that). So when a block shows a gap (a
     * packet missing below one received) or duplicates (a lost ACK), cfd is given every FADE
     * frame whole too, and the frames are handled one at a time as they arrive (the ring keeps
     * receiving: its copies come later, as duplicates, not ACKed again), until frame_exit new
     * packets in a row arrived in order; then cfd gets only the response heads again.
     * frame_mode is rx_lock's (both modes); read elsewhere as a hint. */
    int frame_mode_ok;
    int frame_mode;
    unsigned block_frames; /* V3: data frames a ring block holds */
    unsigned clean, frame_exit;
    unsigned grace;        /* ring blocks after frame mode whose duplicates are its own */
    /* poll mode (no receive thread): the threads calling fade_read_ptrs() / fade_poll() /
     * commands handle the frames themselves, one at a time (rx_lock: the rings, the response
     * socket, the ACK TX ring). `events` counts progress (data, end of stream,
     * a response); a thread that made progress while another sleeps in poll() (`sleepers`)
     * wakes it through the eventfd `kickfd`. */
    int poll_mode;
    pthread_mutex_t rx_lock;
    int kickfd;
    unsigned events;
    int sleepers;
    int readers;           /* threads in fade_read_ptrs() / fade_read_span() / fade_poll() */
    int retry_soon;        /* ACKs wait for kernel memory (for the sleepers: tx_unsent is
                            * rx_lock's) */
    uintptr_t last_reader; /* the last thread to leave one of them (this_thread()) ... */
    uint64_t reader_ns;    /* ... and when */
    /* reading in place (option inplace: poll mode, V3): in-order packets stay in the RX ring;
     * `spans` (FIFO, under both rx_lock and lock) are their words, in stream order, all older
     * than any unread byte of the receiver buffer; a ring block goes back to the kernel once the
     * application has released its last span (block_refs). cur_block: the block being handled
     * (-1: none, or the frame is not in the ring). */
    int inplace;
    int cur_block;
    struct span { const uint8_t *data; uint32_t len; uint32_t block; } *spans;
    unsigned span_first, nspans, span_cap;
    unsigned *block_refs;
};

/* ---- boards opened in this process (frames from them are not "unknown") ---------------------- */

#define MAX_OPEN 64
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { int ifindex; uint8_t mac[6]; } open_boards[MAX_OPEN];
static int n_open;

static int register_board(int ifindex, const uint8_t mac[6])
{
    int i, ret = 0;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open; i++)
        if (open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6))
            ret = -EBUSY;
    if (!ret && n_open == MAX_OPEN)
        ret = -ENOSPC;
    if (!ret) {
        open_boards[n_open].ifindex = ifindex;
        memcpy(open_boards[n_open].mac, mac, 6);
        n_open++;
    }
    pthread_mutex_unlock(&open_lock);
    return ret;
}

static void unregister_board(int ifindex, const uint8_t mac[6])
{
    int i;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open; i++)
        if (open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6)) {
            open_boards[i] = open_boards[--n_open];
            break;
        }
    pthread_mutex_unlock(&open_lock);
}

static int board_is_open(int ifindex, const uint8_t mac[6])
{
    int i, found = 0;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open && !found; i++)
        found = open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6);
    pthread_mutex_unlock(&open_lock);
    return found;
}

/* ---- small helpers ----------------------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static struct timespec deadline_in(unsigned ms)
{
    uint64_t t = now_ns() + (uint64_t)ms * 1000000u;
    struct timespec ts;
    ts.tv_sec = (time_t)(t / 1000000000u);
    ts.tv_nsec = (long)(t % 1000000000u);
    return ts;
}

/* Poll mode: something a waiting thread may wait for happened (data, end of stream, response,
 * reset); wake the threads sleeping in poll() (never the caller: it is not sleeping). */
static void progress(struct fade *f)
{
    static const uint64_t one = 1;
    if (f->kickfd < 0)
        return;
    __atomic_fetch_add(&f->events, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->sleepers, __ATOMIC_SEQ_CST) > 0 &&
        write(f->kickfd, &one, sizeof(one)) < 0) {
        /* EAGAIN: the counter is already non-zero, the sleepers will see it */
    }
}

void fade_options_default(struct fade_options *o)
{
    memset(o, 0, sizeof(*o));
    o->buf_log2 = 0;   /* from the window (fade_open) */
    o->window_log2 = 4;
    o->ring_version = 3;
    o->ring_block_kib = 0;  /* from the window (ring_geometry) */
    o->ring_blocks = 0;
    o->rx_cpu = -1;
}

int fade_parse_mac(const char *s, uint8_t mac[6])
{
    unsigned v[6];
    char extra;
    int i;
    if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &extra) != 6)
        return -EINVAL;
    for (i = 0; i < 6; i++) {
        if (v[i] > 255)
            return -EINVAL;
        mac[i] = (uint8_t)v[i];
    }
    return 0;
}

const char *fade_strerror(int err)
{
    if (err == 0)
        return "ok";
    if (err == -ETIMEDOUT)
        return "timed out (no response from the board)";
    return strerror(err < 0 ? -err : err);
}

static int send_frame(struct fade *f, const uint8_t *frame, size_t len)
{
    struct sockaddr_ll to;
    memset(&to, 0, sizeof(to));
    to.sll_family = AF_PACKET;
    to.sll_ifindex = f->ifindex;
    to.sll_halen = 6;
    memcpy(to.sll_addr, frame, 6);
    if (sendto(f->fd, frame, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len)
        return -errno;
    return 0;
}

/* ---- receive thread ---------------------------------------------------------------------------- */

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

static void sync_counters(struct fade *f)
{
    f->c.data = f->rx.new_pkts;
    f->c.dups = f->rx.dups;
    f->c.future = f->rx.future;
    f->c.no_space = f->rx.no_space;
    f->c.bytes = f->rx.bytes;
}

static struct tpacket2_hdr *tx_frame(struct fade *f, unsigned i)
{
    return (void *)(f->txring + (size_t)i * TX_FRAME);
}

/* Hand the TX ring's SEND_REQUEST frames to the kernel (without waiting for them to leave). */
static void tx_kick(struct fade *f)
{
    unsigned last = (f->tx_next + TX_FRAMES - 1) % TX_FRAMES;
    if (send(f->txfd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != ENOBUFS &&
        errno != EINTR)
        __atomic_fetch_add(&f->c.ack_send_fail, 1, __ATOMIC_RELAXED);
    /* the kernel stops at a frame it has no memory for and leaves it SEND_REQUEST: kick again
     * before sleeping (wait_for_frames) */
    f->tx_unsent = __atomic_load_n(&tx_frame(f, last)->tp_status, __ATOMIC_ACQUIRE) ==
                   TP_STATUS_SEND_REQUEST;
}

/* The batch's ACK records (f->acks[0..n)), ack_per_frame to an ACK frame (docs/fade.md, "ACK
 * records"): into the TX ring and one send(); the frames that do not fit (or all, without a TX
 * ring) with sendmmsg() on the receiving socket. */
static void send_acks(struct fade *f, unsigned n)
{
    unsigned per = __atomic_load_n(&f->ack_per_frame, __ATOMIC_RELAXED);
    unsigned g, k, ring = 0, ring_recs = 0, m = 0, i;
    int ring_ok = f->txring != NULL;
    for (g = 0; g < n; g += k) {
        k = n - g < per ? n - g : per;
        if (ring_ok) {
            struct tpacket2_hdr *h = tx_frame(f, f->tx_next);
            /* AVAILABLE again once the peer has consumed the ACK frame sent from this slot */
            if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) == TP_STATUS_AVAILABLE) {
                size_t len = fade_build_acks((uint8_t *)h + f->tx_off, f->board, f->self,
                                             f->acks + g, k);
                h->tp_len = (unsigned)(f->tx_off - TX_DATA_OFF + len);
                __atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
                f->tx_next = (f->tx_next + 1) % TX_FRAMES;
                ring++;
                ring_recs += k;
                continue;
            }
            ring_ok = 0;
        }
        f->iovs[m].iov_len = fade_build_acks(f->ackf[m], f->board, f->self, f->acks + g, k);
        m++;
    }
    if (ring)
        tx_kick(f);
    for (i = 0; i < m;) {
        int r = sendmmsg(f->fd, f->msgs + i, m - i, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            __atomic_fetch_add(&f->c.ack_send_fail, m - i, __ATOMIC_RELAXED);
            break;
        }
        i += (unsigned)r;
    }
    /* the sendmmsg() frames hold per records each but the last: frames [0, i) carried
     * min(i * per, the rest) */
    __atomic_fetch_add(&f->c.acks_sent, ring_recs + (i * per < n - ring_recs ? i * per : n - ring_recs),
                       __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->c.ack_frames, ring + i, __ATOMIC_RELAXED);
}

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

static void frame_mode(struct fade *f, int on);

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

static int cmd_pending(struct fade *f)
{
    return __atomic_load_n(&f->pend_cmd, __ATOMIC_RELAXED) != FADE_CMD_NONE;
}

/* Sleep in poll() on the ring socket (ring) and the response socket (resp) (and, in poll mode,
 * the eventfd other threads wake us with) until a frame arrives, at most max_ms (-1: no limit)
 * and at most 20 ms (2 ms while ACKs wait for kernel memory: retried then). */
static void wait_for_frames(struct fade *f, int max_ms, int ring, int resp)
{
    struct pollfd p[3];
    int n = 0, c = -1, k = -1, timeout = 20;
    if (ring)  /* not: a command thread while a reader handles the ring */
        p[n++] = (struct pollfd){.fd = f->fd, .events = POLLIN | POLLERR};
    if (f->cfd >= 0 && resp) {
        c = n;
        p[n++] = (struct pollfd){.fd = f->cfd, .events = POLLIN | POLLERR};
    }
    if (f->kickfd >= 0) {
        k = n;
        p[n++] = (struct pollfd){.fd = f->kickfd, .events = POLLIN};
    }
    if (!f->poll_mode && f->tx_unsent)  /* ACKs the kernel had no room for: retry soon (poll
                                          * mode: poll_step() does, under rx_lock) */
        tx_kick(f);
    if (f->poll_mode ? __atomic_load_n(&f->retry_soon, __ATOMIC_RELAXED) : f->tx_unsent)
        timeout = 2;
    if (max_ms >= 0 && max_ms < timeout)
        timeout = max_ms;
    if (poll(p, (nfds_t)n, timeout) > 0) {
        if (c >= 0 && p[c].revents)
            __atomic_store_n(&f->cfd_ready, 1, __ATOMIC_RELAXED);
        if (k >= 0 && p[k].revents) {
            uint64_t v;
            if (read(f->kickfd, &v, sizeof(v)) < 0) {
                /* EAGAIN: another sleeper read it first */
            }
        }
    }
}

/* The response socket: when poll() said so, always while a command waits (`waiting`) and in
 * frame mode (the data comes there then); no syscall per call otherwise. Frames read. */
static int check_control(struct fade *f, int waiting)
{
    if (f->cfd >= 0 &&
        (__atomic_exchange_n(&f->cfd_ready, 0, __ATOMIC_RELAXED) || waiting || f->frame_mode))
        return rx_control(f);
    return 0;
}

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
static int rx_ring(struct fade *f)
{
    return f->v2 ? rx_frames(f) : rx_block(f);
}

/* Poll mode: the receiver buffer has no room for another window of packets. */
static int buffer_full(struct fade *f)
{
    uint64_t used;
    pthread_mutex_lock(&f->lock);
    used = fade_rx_head(&f->rx) - f->rx.tail;
    pthread_mutex_unlock(&f->lock);
    return used + ((uint64_t)FADE_PACKET_BYTES << f->rx.win_log2) > f->buf_len;
}

/* Poll mode: everything the kernel has handed over, without sleeping (ring: at most 64 ring
 * batches, taking rx_lock for each, so a command thread gets in between); frames handled. The
 * response socket is read when poll() saw it readable, always by the thread waiting for a
 * response (cmd), and in frame mode: not by the reader on every call otherwise. */
static int poll_step(struct fade *f, int cmd, int ring)
{
    int n = 0, r = 0, i;
    pthread_mutex_lock(&f->rx_lock);
    /* a reader leaves the frames in the response socket too while the buffer is full (frame
     * mode; they would be dropped unACKed) */
    if (cmd || !f->frame_mode || !buffer_full(f))
        n = check_control(f, cmd);
    for (i = 0; ring && i < 64 && r >= 0; i++) {
        if (i) {
            pthread_mutex_unlock(&f->rx_lock);
            pthread_mutex_lock(&f->rx_lock);
        }
        /* leave the frames in the ring while the buffer is full (they would be dropped); not
         * for a thread waiting for a response: with V2 it may be in the ring behind them */
        if (!cmd && buffer_full(f))
            break;
        r = rx_ring(f);
        if (r > 0)
            n += r;
    }
    if (ring && f->tx_unsent)
        tx_kick(f);
    __atomic_store_n(&f->retry_soon, f->tx_unsent, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->rx_lock);
    return n;
}

/* Poll mode: sleep until a frame arrives or max_ms passed, unless another thread made
 * progress since `ev` (f->events read after this thread's last look at its condition). */
static void poll_wait(struct fade *f, unsigned ev, int max_ms, int ring, int resp)
{
    __atomic_fetch_add(&f->sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->events, __ATOMIC_SEQ_CST) == ev)
        wait_for_frames(f, max_ms, ring, resp);
    __atomic_fetch_sub(&f->sleepers, 1, __ATOMIC_SEQ_CST);
}

/* Milliseconds left until `end` (now_ns() time; 0: no limit -> -1), at least 1; 0 if past. */
static int ms_left(uint64_t end)
{
    uint64_t t;
    if (!end)
        return -1;
    t = now_ns();
    if (t >= end)
        return 0;
    return (int)((end - t + 999999u) / 1000000u);
}

static void *rx_thread(void *arg)
{
    struct fade *f = arg;
    if (f->rx_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(f->rx_cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    while (!__atomic_load_n(&f->closing, __ATOMIC_ACQUIRE)) {
        int r;
        pthread_mutex_lock(&f->rx_lock);  /* against fade_start() / fade_reset() */
        check_control(f, cmd_pending(f));
        r = rx_ring(f);
        pthread_mutex_unlock(&f->rx_lock);
        if (r < 0)
            wait_for_frames(f, -1, 1, 1);
    }
    return NULL;
}

/* ---- open / close ------------------------------------------------------------------------------ */

/* V3 packs a data frame into 8,320 bytes of a block (header, sockaddr_ll, alignment). */
#define V3_FRAME_BYTES 8320u
#define V3_BLOCK_HDR 48u

/* The ring's block size and count when the options leave them 0. V3 hands a block over only
 * when the next frame does not fit (or on its 1-jiffy timer), and the board stops when its
 * window is unconfirmed, so a block must fill with fewer frames than the window: at most
 * 2^N - 1 data frames per block, one ACK batch per window (N = 4: 128 KiB, 15 frames), and at
 * most 256 KiB (31 frames): larger blocks save little CPU and, with loss, leave the board
 * waiting for the timer (at N = 8 and 5 % loss 1 MiB blocks halved the goodput). And a block
 * must fill within FILL_MAX_NS at the link's speed (mbps; <= 0: unknown, taken as 10G): the
 * board retransmits what is unconfirmed after its timeout (the RTL's 640 us), and no frame of
 * a block is ACKed before the block is full (1G: 66 us per frame, 3 frames per 32 KiB block).
 * Where a block holds half the window or more, a loss can still use up the window before the
 * block fills: frame mode (struct fade) takes over then. About 16 MiB in all. V2: 64 KiB. */
static void ring_geometry(const struct fade_options *o, int mbps, unsigned *kib, unsigned *blocks)
{
    unsigned win = 1u << o->window_log2, max_frames = win > 1 ? win - 1 : 1;
    /* wire time of a data frame in ns: its bytes + preamble, FCS and gap (24), 8 bits each */
    uint64_t frame_ns = (uint64_t)(FADE_DATA_LEN + 24) * 8u * 1000u / (uint64_t)(mbps > 0 ? mbps : 10000);
    if (frame_ns && FILL_MAX_NS / frame_ns < max_frames)
        max_frames = FILL_MAX_NS / frame_ns > 1 ? (unsigned)(FILL_MAX_NS / frame_ns) : 1;
    *kib = o->ring_block_kib;
    if (!*kib) {
        *kib = 16;
        if (o->ring_version != 2)
            while (*kib < 256 && ((*kib * 2) * 1024 - V3_BLOCK_HDR) / V3_FRAME_BYTES <= max_frames)
                *kib *= 2;
        else
            *kib = 64;
    }
    *blocks = o->ring_blocks ? o->ring_blocks : (16384 / *kib < 8 ? 8 : 16384 / *kib);
}

/* The interface's link speed in Mb/s (ethtool), or -1. */
static int link_mbps(int fd, const char *ifname)
{
    struct ethtool_cmd ec;
    struct ifreq ifr;
    memset(&ec, 0, sizeof(ec));
    memset(&ifr, 0, sizeof(ifr));
    ec.cmd = ETHTOOL_GSET;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)&ec;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        return -1;
    return ethtool_cmd_speed(&ec) == (uint32_t)SPEED_UNKNOWN ? -1 : (int)ethtool_cmd_speed(&ec);
}

static int setup_socket(struct fade *f, const struct fade_options *o, char *err, size_t errlen)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    struct tpacket_req3 req;
    struct sockaddr_ll sll;
    struct ifreq ifr;
    int v;

    f->fd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: nothing arrives before bind() */
    if (f->fd < 0) {
        snprintf(err, errlen, "socket(AF_PACKET): %s (needs CAP_NET_RAW)", strerror(errno));
        return -1;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->ifname);
    if (ioctl(f->fd, SIOCGIFINDEX, &ifr) < 0) {
        snprintf(err, errlen, "interface %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    f->ifindex = ifr.ifr_ifindex;
    if (ioctl(f->fd, SIOCGIFHWADDR, &ifr) < 0) {
        snprintf(err, errlen, "SIOCGIFHWADDR %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    memcpy(f->self, ifr.ifr_hwaddr.sa_data, 6);
    if (ioctl(f->fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu < FADE_DATA_LEN - 14) {
        snprintf(err, errlen, "MTU of %s is %d: FADE data frames need %d (set 9000)", f->ifname,
                 ifr.ifr_mtu, FADE_DATA_LEN - 14);
        return -1;
    }
    /* V2: every FADE frame in the ring; V3: RESP frames go to cfd instead */
    fade_bpf_filter(code, o->ring_version == 2 ? FADE_FILT_ALL : FADE_FILT_RING);
    if (setsockopt(f->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
        snprintf(err, errlen, "SO_ATTACH_FILTER: %s", strerror(errno));
        return -1;
    }
    v = 1;
    setsockopt(f->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v)); /* also checked per frame */
    setsockopt(f->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
    f->v2 = o->ring_version == 2;
    v = f->v2 ? TPACKET_V2 : TPACKET_V3;
    if (setsockopt(f->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0) {
        snprintf(err, errlen, "PACKET_VERSION %d: %s", v + 1, strerror(errno));
        return -1;
    }
    memset(&req, 0, sizeof(req));
    {
        unsigned kib, blocks;
        ring_geometry(o, link_mbps(f->fd, f->ifname), &kib, &blocks);
        f->block_size = (size_t)kib * 1024;
        f->blocks = blocks;
    }
    req.tp_block_size = (unsigned)f->block_size;
    req.tp_block_nr = f->blocks;
    if (f->v2) {
        /* one data frame per ring frame: header, sockaddr_ll, padding, 8,232 bytes */
        f->frame_size = 8448;
        f->per_block = (unsigned)(f->block_size / f->frame_size);
        f->frames = f->per_block * f->blocks;
        req.tp_frame_size = (unsigned)f->frame_size;
        req.tp_frame_nr = f->frames;
    } else {
        req.tp_frame_size = 2048;  /* unused by V3 beyond this consistency check */
        req.tp_frame_nr = (unsigned)(f->block_size / 2048) * f->blocks;
        req.tp_retire_blk_tov = 1;  /* ms (rounded up to a jiffy): hand over a partial block */
    }
    if (setsockopt(f->fd, SOL_PACKET, PACKET_RX_RING, &req, f->v2 ? sizeof(struct tpacket_req)
                                                                  : sizeof(req)) < 0) {
        snprintf(err, errlen, "PACKET_RX_RING: %s", strerror(errno));
        return -1;
    }
    f->ring_len = f->block_size * f->blocks;
    f->ring = mmap(NULL, f->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f->fd, 0);
    if (f->ring == MAP_FAILED) {
        f->ring = NULL;
        snprintf(err, errlen, "mmap(PACKET_RX_RING): %s", strerror(errno));
        return -1;
    }
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(FADE_ETHERTYPE);
    sll.sll_ifindex = f->ifindex;
    if (bind(f->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, errlen, "bind %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    return 0;
}

/* V3 only: the ringless socket for the command responses (and frame mode). */
static int setup_control(struct fade *f, char *err, size_t errlen)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    struct sockaddr_ll sll;
    int v = 1;
    f->cbuf = malloc(FADE_DATA_LEN);
    f->cfd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: nothing arrives before bind() */
    fade_bpf_filter(code, FADE_FILT_CTRL);
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(FADE_ETHERTYPE);
    sll.sll_ifindex = f->ifindex;
    if (!f->cbuf || f->cfd < 0 ||
        setsockopt(f->cfd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
        bind(f->cfd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, errlen, "response socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(f->cfd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
    /* frame mode queues up to a window of whole frames here (FRAME_TRUESIZE each): 4 MiB asked
     * (the kernel doubles it) */
    v = 4 << 20;
    if (setsockopt(f->cfd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
        setsockopt(f->cfd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));  /* up to rmem_max */
    return 0;
}

static int set_filter(int fd, int which)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    fade_bpf_filter(code, which);
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* Frame mode on / off (rx_lock held). Only the response socket's filter changes: the ring keeps
 * every data frame, so no frame is lost to the switch (the frames that were in the open ring
 * block when it began come from there, the later ones twice: the ring's copies are
 * duplicates). If the kernel refuses the new filter, the mode stays as it was. */
static void frame_mode(struct fade *f, int on)
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

/* Linux major.minor or later (uname). */
static int kernel_at_least(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return 0;
    return ma > major || (ma == major && mi >= minor);
}

/* The ACK TX ring: a send-only AF_PACKET socket (protocol 0: it receives nothing) with a
 * TPACKET_V2 PACKET_TX_RING, bypassing the qdisc like the receiving socket. Optional: without
 * it (an old kernel) ACKs go out with sendmmsg().
 * PACKET_VNET_HDR: every ring frame starts with a virtio_net_hdr whose hdr_len is the whole
 * ACK, so the kernel copies the 60 bytes into the skb's linear part. Without it only the
 * 14-byte link header is copied and the rest is attached as a zero-copy fragment of the ring
 * page, which veth (and any path that must not keep user pages) then replaces by a freshly
 * allocated page (skb_copy_ubufs): a page allocation, copy and free per ACK (measured: 0.54 ->
 * 0.46 CPU s/GB at window 2^4). The TX ring reads the header from Linux 4.17 on; older kernels
 * would send it as part of the frame, so it is not used there. */
static void setup_tx_ring(struct fade *f)
{
    struct tpacket_req req;
    struct sockaddr_ll sll;
    int v, fd = socket(AF_PACKET, SOCK_RAW, 0);
    unsigned i;
    uint8_t *ring;
    if (fd < 0)
        return;
    v = 1;
    f->tx_off = TX_DATA_OFF;
    if (kernel_at_least(4, 17) && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &v, sizeof(v)) == 0)
        f->tx_off += sizeof(struct virtio_net_hdr);
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
    setsockopt(fd, SOL_PACKET, PACKET_LOSS, &v, sizeof(v));  /* a bad frame never blocks the ring */
    v = 4 << 20;  /* room for the skbs of ACKs the board has not read yet */
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    v = TPACKET_V2;
    memset(&req, 0, sizeof(req));
    req.tp_block_size = 4096;
    req.tp_frame_size = TX_FRAME;
    req.tp_frame_nr = TX_FRAMES;
    req.tp_block_nr = TX_FRAMES * TX_FRAME / 4096;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = f->ifindex;
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0 ||
        bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        close(fd);
        return;
    }
    ring = mmap(NULL, (size_t)TX_FRAMES * TX_FRAME, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE, fd, 0);
    if (ring == MAP_FAILED) {
        close(fd);
        return;
    }
    if (f->tx_off != TX_DATA_OFF)
        for (i = 0; i < TX_FRAMES; i++) {
            struct virtio_net_hdr vh;
            memset(&vh, 0, sizeof(vh));  /* no checksum offload, no GSO */
            vh.hdr_len = FADE_MIN_FRAME; /* host order (legacy virtio on a packet socket) */
            memcpy(ring + (size_t)i * TX_FRAME + TX_DATA_OFF, &vh, sizeof(vh));
        }
    f->txfd = fd;
    f->txring = ring;
}

/* The receiver packet buffer: a memfd mapped at buf and again at buf + buf_len. */
static int setup_buffer(struct fade *f, char *err, size_t errlen)
{
    int fd = memfd_create("fade-rx", MFD_CLOEXEC);
    uint8_t *base;
    if (fd < 0 || ftruncate(fd, (off_t)f->buf_len) < 0) {
        snprintf(err, errlen, "memfd for a %zu-byte buffer: %s", f->buf_len, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    base = mmap(NULL, 2 * f->buf_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED ||
        mmap(base, f->buf_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd,
             0) == MAP_FAILED ||
        mmap(base + f->buf_len, f->buf_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
             0) == MAP_FAILED) {
        snprintf(err, errlen, "mapping the receive buffer: %s", strerror(errno));
        if (base != MAP_FAILED)
            munmap(base, 2 * f->buf_len);
        close(fd);
        return -1;
    }
    close(fd);
    f->buf = base;
    return 0;
}

static void free_context(struct fade *f)
{
    if (f->thread_started) {
        __atomic_store_n(&f->closing, 1, __ATOMIC_RELEASE);
        pthread_join(f->thread, NULL);
    }
    if (f->ring)
        munmap(f->ring, f->ring_len);
    if (f->fd >= 0)
        close(f->fd);
    if (f->txring)
        munmap(f->txring, (size_t)TX_FRAMES * TX_FRAME);
    if (f->txfd >= 0)
        close(f->txfd);
    if (f->cfd >= 0)
        close(f->cfd);
    free(f->cbuf);
    if (f->buf)
        munmap(f->buf, 2 * f->buf_len);
    free(f->slot_pkt);
    free(f->acks);
    free(f->ackf);
    free(f->msgs);
    free(f->iovs);
    free(f->spans);
    free(f->block_refs);
    if (f->kickfd >= 0)
        close(f->kickfd);
    pthread_mutex_destroy(&f->rx_lock);
    pthread_mutex_destroy(&f->lock);
    pthread_mutex_destroy(&f->cmd_lock);
    pthread_mutex_destroy(&f->resp_lock);
    pthread_cond_destroy(&f->data_cv);
    pthread_cond_destroy(&f->cmd_cv);
    free(f);
}

fade_t *fade_open(const char *ifname, const uint8_t board_mac[6], const struct fade_options *opt,
                  char *err, size_t errlen)
{
    struct fade_options o;
    pthread_condattr_t ca;
    struct fade *f;
    unsigned i;
    char dummy[1];

    if (!err) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    if (opt)
        o = *opt;
    else
        fade_options_default(&o);
    if (!ifname || strlen(ifname) >= IF_NAMESIZE || !board_mac) {
        snprintf(err, errlen, "bad interface name or MAC");
        return NULL;
    }
    if (o.buf_log2 == 0 && !o.poll_mode) {
        /* threaded: the buffer also absorbs the reader's scheduling delays while the receive
         * thread goes on filling it (1 MiB overflowed under load: dropped, unACKed packets) */
        o.buf_log2 = o.window_log2 > 12 ? o.window_log2 : 12;
    } else if (o.buf_log2 == 0) {
        /* poll mode: two windows (in flight + as much again the application has not consumed)
         * and at least 1 MiB; small, so that the copy into it and the application's reads hit
         * the cache; the buffer fills only in the application's own calls, which leave what
         * does not fit in the ring (docs/fade_host.md) */
        o.buf_log2 = o.window_log2 + 1 > 7 ? o.window_log2 + 1 : 7;
        if (o.buf_log2 > 20)
            o.buf_log2 = 20;
    }
    if (o.buf_log2 < 4 || o.buf_log2 > 20 || o.window_log2 > o.buf_log2 ||
        o.window_log2 > 20 ||
        (o.ring_block_kib && (o.ring_block_kib < 16 || o.ring_block_kib > 4096 ||
                              (o.ring_block_kib & (o.ring_block_kib - 1)))) ||
        (o.ring_blocks && (o.ring_blocks < 2 || o.ring_blocks > 65536)) ||
        (o.ring_version != 2 && o.ring_version != 3) ||
        (o.inplace && (!o.poll_mode || o.ring_version != 3))) {
        snprintf(err, errlen, "bad options: buf_log2 4..20, window_log2 0..buf_log2, "
                              "ring_block_kib 0 or a power of two 16..4096, ring_blocks 0 or "
                              "2..65536, "
                              "ring_version 2 or 3, inplace only with poll_mode and ring 3");
        return NULL;
    }
    f = calloc(1, sizeof(*f));
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->fd = f->txfd = f->cfd = f->kickfd = -1;
    f->poll_mode = o.poll_mode != 0;
    f->inplace = o.inplace != 0;
    f->cur_block = -1;
    pthread_mutex_init(&f->rx_lock, NULL);
    snprintf(f->ifname, sizeof(f->ifname), "%s", ifname);
    memcpy(f->board, board_mac, 6);
    f->rx_cpu = o.rx_cpu;
    pthread_mutex_init(&f->lock, NULL);
    pthread_mutex_init(&f->cmd_lock, NULL);
    pthread_mutex_init(&f->resp_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->data_cv, &ca);
    pthread_cond_init(&f->cmd_cv, &ca);
    pthread_condattr_destroy(&ca);
    f->buf_len = (size_t)FADE_PACKET_BYTES << o.buf_log2;
    f->wakeup = FADE_PACKET_BYTES;
    f->slot_pkt = calloc((size_t)1 << o.buf_log2, sizeof(uint32_t));
    f->acks = calloc(MAX_ACKS, sizeof(*f->acks));
    f->ackf = calloc(MAX_ACKS, sizeof(*f->ackf));
    f->msgs = calloc(MAX_ACKS, sizeof(*f->msgs));
    f->iovs = calloc(MAX_ACKS, sizeof(*f->iovs));
    f->ack_max = o.ack_records < 1 ? FADE_ACK_RECORDS_MAX :
                 o.ack_records > FADE_ACK_RECORDS_MAX ? FADE_ACK_RECORDS_MAX : o.ack_records;
    f->ack_per_frame = 1;
    if (!f->slot_pkt || !f->acks || !f->ackf || !f->msgs || !f->iovs) {
        snprintf(err, errlen, "out of memory");
        free_context(f);
        return NULL;
    }
    if (setup_socket(f, &o, err, errlen) < 0 || setup_buffer(f, err, errlen) < 0) {
        free_context(f);
        return NULL;
    }
    if (!f->v2 && setup_control(f, err, errlen) < 0) {
        free_context(f);
        return NULL;
    }
    if (!f->v2) {
        int rcvbuf = 0;
        socklen_t sl = sizeof(rcvbuf);
        f->block_frames = (unsigned)((f->block_size - V3_BLOCK_HDR) / V3_FRAME_BYTES);
        f->frame_exit = 4u << o.window_log2;
        /* frame mode where blocks cannot go round two at a time, if the response socket can
         * queue the window's frames (without CAP_NET_ADMIN its buffer ends at rmem_max) */
        getsockopt(f->cfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl);
        f->frame_mode_ok = !o.no_frame_mode && 2 * f->block_frames >= (1u << o.window_log2) &&
                           (uint64_t)rcvbuf >= (uint64_t)FRAME_TRUESIZE << o.window_log2;
    }
    if (f->inplace) {  /* at most every data frame the ring can hold */
        f->span_cap = f->blocks * (unsigned)(f->block_size / V3_FRAME_BYTES + 1);
        f->spans = calloc(f->span_cap, sizeof(*f->spans));
        f->block_refs = calloc(f->blocks, sizeof(*f->block_refs));
        if (!f->spans || !f->block_refs) {
            snprintf(err, errlen, "out of memory");
            free_context(f);
            return NULL;
        }
    }
    if (!o.no_tx_ring)
        setup_tx_ring(f);
    for (i = 0; i < MAX_ACKS; i++) {  /* the sendmmsg() fallback for ACKs */
        f->iovs[i].iov_base = f->ackf[i];
        f->iovs[i].iov_len = FADE_MIN_FRAME;
        f->msgs[i].msg_hdr.msg_iov = &f->iovs[i];
        f->msgs[i].msg_hdr.msg_iovlen = 1;
    }
    fade_rx_init(&f->rx, f->buf, f->slot_pkt, o.buf_log2, o.window_log2);
    /* a csn the board is unlikely to hold as its last one; never 0 */
    f->csn = (uint16_t)((now_ns() >> 10) ^ (uint64_t)getpid());
    if (register_board(f->ifindex, f->board) < 0) {
        snprintf(err, errlen, "board already open on %s in this process", ifname);
        free_context(f);
        return NULL;
    }
    if (f->poll_mode) {
        f->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (f->kickfd < 0) {
            snprintf(err, errlen, "eventfd: %s", strerror(errno));
            unregister_board(f->ifindex, f->board);
            free_context(f);
            return NULL;
        }
    } else if (pthread_create(&f->thread, NULL, rx_thread, f) != 0) {
        snprintf(err, errlen, "pthread_create failed");
        unregister_board(f->ifindex, f->board);
        free_context(f);
        return NULL;
    } else {
        f->thread_started = 1;
    }
    if (!o.no_reset)
        fade_reset(f);
    return f;
}

void fade_close(fade_t *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    __atomic_store_n(&f->closing, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&f->data_cv);
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_lock(&f->resp_lock);
    pthread_cond_broadcast(&f->cmd_cv);
    pthread_mutex_unlock(&f->resp_lock);
    progress(f);
    unregister_board(f->ifindex, f->board);
    free_context(f);
}

/* ---- commands ---------------------------------------------------------------------------------- */

/* Poll mode: the thread waiting for a response reads the response socket itself until the
 * response is there, the context closes or try_ms passed; and the ring too while no thread is
 * reading (with V2 the response rides in a ring frame; and a board may hold the response for
 * a data frame its full window holds back, e.g. while the reader itself is in fade_stop()).
 * While a reader handles the ring this thread leaves the ring to it (with V2 the reader
 * delivers the responses it finds there and wakes this thread: progress()) and reads only the
 * response socket (V3), which holds response heads, and in frame mode data frames, which it
 * then handles and ACKs like the reader (both under rx_lock). (reader_active() is looked at
 * once per wake-up, at least every 20 ms.) */
/* A number for the calling thread (the address of a thread-local variable). */
static uintptr_t this_thread(void)
{
    static __thread char me;
    return (uintptr_t)&me;
}

/* Poll mode: another thread reads (or did within the last 20 ms, and will again): it handles
 * the ring, and a command thread must not (ACKs from two threads can overtake each other). */
static int reader_active(struct fade *f)
{
    if (__atomic_load_n(&f->readers, __ATOMIC_SEQ_CST))
        return 1;
    return __atomic_load_n(&f->last_reader, __ATOMIC_RELAXED) != this_thread() &&
           now_ns() - __atomic_load_n(&f->reader_ns, __ATOMIC_RELAXED) < 20000000u;
}

static void cmd_poll_wait(struct fade *f, unsigned try_ms)
{
    uint64_t end = now_ns() + (uint64_t)try_ms * 1000000u;
    for (;;) {
        unsigned ev;
        int done, ms, ring = !reader_active(f);
        poll_step(f, 1, ring);
        ev = __atomic_load_n(&f->events, __ATOMIC_SEQ_CST);
        pthread_mutex_lock(&f->resp_lock);
        done = f->pend_done;
        pthread_mutex_unlock(&f->resp_lock);
        ms = ms_left(end);
        if (done || ms == 0 || __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE))
            return;
        poll_wait(f, ev, ms, ring, 1);
    }
}

static int do_cmd(struct fade *f, uint16_t cmd, uint32_t arg, unsigned retries, unsigned try_ms,
                  uint64_t *result)
{
    uint8_t frame[FADE_MIN_FRAME];
    unsigned t;
    int done = 0, ret = 0;
    uint64_t val = 0;

    pthread_mutex_lock(&f->cmd_lock);
    pthread_mutex_lock(&f->resp_lock);
    if (++f->csn == 0)
        f->csn = 1;
    f->pend_csn = f->csn;
    f->pend_done = 0;
    __atomic_store_n(&f->pend_cmd, cmd, __ATOMIC_RELAXED);  /* read unlocked as a hint */
    pthread_mutex_unlock(&f->resp_lock);
    fade_build_cmd(frame, f->board, f->self, cmd, f->pend_csn, arg);
    for (t = 0; t <= retries && !done; t++) {
        struct timespec dl = deadline_in(try_ms);
        int closing;
        ret = send_frame(f, frame, sizeof(frame));
        __atomic_fetch_add(&f->c.cmds_sent, 1, __ATOMIC_RELAXED);
        if (t)
            __atomic_fetch_add(&f->c.cmd_retries, 1, __ATOMIC_RELAXED);
        if (f->poll_mode)
            cmd_poll_wait(f, try_ms);
        pthread_mutex_lock(&f->resp_lock);
        while (!f->poll_mode && !f->pend_done &&
               !(closing = __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE)))
            if (pthread_cond_timedwait(&f->cmd_cv, &f->resp_lock, &dl) == ETIMEDOUT)
                break;
        done = f->pend_done;
        val = f->pend_val;
        closing = __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE);
        pthread_mutex_unlock(&f->resp_lock);
        if (closing)
            t = retries;
    }
    pthread_mutex_lock(&f->resp_lock);
    __atomic_store_n(&f->pend_cmd, FADE_CMD_NONE, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->resp_lock);
    pthread_mutex_unlock(&f->cmd_lock);
    if (done) {
        if (result)
            *result = val;
        return 0;
    }
    return ret < 0 ? ret : -ETIMEDOUT;
}

int fade_user_cmd(fade_t *f, uint16_t cmd, uint32_t arg, unsigned retries, unsigned timeout_ms,
                  uint64_t *result)
{
    if (!f || cmd < FADE_CMD_USER_MIN || cmd > FADE_CMD_USER_MAX || timeout_ms == 0)
        return -EINVAL;
    return do_cmd(f, cmd, arg, retries, timeout_ms, result);
}

/* Inplace: forget the spans of the old stream and give their ring blocks back (rx_lock and
 * lock held). */
static void drop_spans(struct fade *f)
{
    for (; f->nspans; f->nspans--) {
        uint32_t b = f->spans[f->span_first].block;
        f->span_first = (f->span_first + 1) % f->span_cap;
        if (--f->block_refs[b] == 0) {
            struct tpacket_block_desc *bd = (void *)(f->ring + (size_t)b * f->block_size);
            __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        }
    }
}

/* START / RESET: drop what belongs to the old stream (frame mode, whatever the response
 * socket holds: its whole frames would otherwise be taken as the new one's, the spans), under
 * rx_lock; returns with `lock` held (lock order: rx_lock, then lock). */
static void drop_old_stream(struct fade *f)
{
    pthread_mutex_lock(&f->rx_lock);
    if (f->cfd >= 0) {
        frame_mode(f, 0);
        while (recv(f->cfd, f->cbuf, FADE_CTRL_SNAP, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
        }
    }
    pthread_mutex_lock(&f->lock);
    if (f->inplace)
        drop_spans(f);
    pthread_mutex_unlock(&f->rx_lock);
}

int fade_start(fade_t *f, unsigned timeout_ms)
{
    uint64_t val = 0;
    int ret;
    if (!f)
        return -EINVAL;
    drop_old_stream(f);
    fade_rx_reset(&f->rx);
    sync_counters(f);
    f->active = 1;
    pthread_mutex_unlock(&f->lock);
    /* one ACK record per frame until the board has said how many it takes (its answer) */
    __atomic_store_n(&f->ack_per_frame, 1, __ATOMIC_RELAXED);
    ret = do_cmd(f, FADE_CMD_START, 0, timeout_ms / CMD_TRY_MS, CMD_TRY_MS, &val);
    if (ret == 0) {
        unsigned n = fade_board_ack_records(val);
        __atomic_store_n(&f->ack_per_frame, n < f->ack_max ? n : f->ack_max, __ATOMIC_RELAXED);
    }
    return ret;
}

int fade_stop(fade_t *f, unsigned timeout_ms)
{
    if (!f)
        return -EINVAL;
    return do_cmd(f, FADE_CMD_STOP, 0, timeout_ms / CMD_TRY_MS, CMD_TRY_MS, NULL);
}

int fade_reset(fade_t *f)
{
    uint8_t frame[FADE_MIN_FRAME];
    int ret;
    if (!f)
        return -EINVAL;
    fade_build_cmd(frame, f->board, f->self, FADE_CMD_RESET, 0, 0);
    ret = send_frame(f, frame, sizeof(frame));
    drop_old_stream(f);
    if (ret == 0)
        f->c.resets_sent++;
    f->active = 0;
    fade_rx_reset(&f->rx);
    sync_counters(f);
    pthread_cond_broadcast(&f->data_cv);
    progress(f);
    pthread_mutex_unlock(&f->lock);
    return ret;
}

/* ---- the buffer -------------------------------------------------------------------------------- */

int fade_set_wakeup(fade_t *f, size_t bytes)
{
    if (!f || bytes == 0 || bytes > f->buf_len)
        return -EINVAL;
    pthread_mutex_lock(&f->lock);
    f->wakeup = bytes;
    pthread_mutex_unlock(&f->lock);
    pthread_cond_broadcast(&f->data_cv);  /* a waiting reader re-checks with the new threshold */
    progress(f);
    return 0;
}

size_t fade_buf_len(const fade_t *f) { return f ? f->buf_len : 0; }

const uint8_t *fade_buf(const fade_t *f) { return f ? f->buf : NULL; }

static void fill_ptrs(struct fade *f, struct fade_ptrs *p)
{
    uint64_t head = fade_rx_head(&f->rx);
    p->total = head;
    p->avail = head - f->rx.tail;
    p->head = head % f->buf_len;
    p->tail = f->rx.tail % f->buf_len;
    p->eos = fade_rx_eos(&f->rx);
}

/* Poll mode: handle frames, then test `ready` (given the number just handled); sleep in poll()
 * between tries until it holds (0) or the timeout in ms passes (-ETIMEDOUT; < 0: none). The
 * event count is read before `ready`, so a frame that arrives after the test ends the sleep. */
typedef int (*ready_fn)(struct fade *f, int handled, void *arg);

static int poll_until(struct fade *f, ready_fn ready, void *arg, int timeout_ms)
{
    uint64_t end = timeout_ms > 0 ? now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    for (;;) {
        int n = poll_step(f, 0, 1), ms;
        unsigned ev = __atomic_load_n(&f->events, __ATOMIC_SEQ_CST);
        if (ready(f, n, arg))
            return 0;
        ms = timeout_ms < 0 ? -1 : timeout_ms == 0 ? 0 : ms_left(end);
        if (ms == 0)
            return -ETIMEDOUT;
        /* while a command waits, its thread reads the response socket (except in frame mode,
         * when the data comes there): the reader is not woken for the response too */
        poll_wait(f, ev, ms, 1, !cmd_pending(f) || __atomic_load_n(&f->frame_mode, __ATOMIC_RELAXED));
    }
}

static int closing(struct fade *f)
{
    return __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE);
}

/* fade_read_ptrs: the wake-up threshold, the end of the stream, or a buffer that cannot take
 * another window (then what is there, even below the threshold) */
static int ptrs_ready(struct fade *f, int handled, void *arg)
{
    struct fade_ptrs *p = arg;
    int ready;
    (void)handled;
    pthread_mutex_lock(&f->lock);
    fill_ptrs(f, p);
    ready = p->avail >= f->wakeup || p->eos || closing(f);
    pthread_mutex_unlock(&f->lock);
    return ready || (p->avail && buffer_full(f));
}

/* Run `call` as a reader and return its value (`readers`: a waiting command thread leaves the
 * ring to the readers, see reader_active()). */
#define AS_READER(f, call)                                                                    \
    do {                                                                                      \
        int ret_;                                                                             \
        __atomic_fetch_add(&(f)->readers, 1, __ATOMIC_SEQ_CST);                               \
        ret_ = (call);                                                                        \
        __atomic_store_n(&(f)->last_reader, this_thread(), __ATOMIC_RELAXED);                 \
        __atomic_store_n(&(f)->reader_ns, now_ns(), __ATOMIC_RELAXED);                        \
        __atomic_fetch_sub(&(f)->readers, 1, __ATOMIC_SEQ_CST);                               \
        return ret_;                                                                          \
    } while (0)

static int read_ptrs_poll(struct fade *f, struct fade_ptrs *p, int timeout_ms)
{
    AS_READER(f, poll_until(f, ptrs_ready, p, timeout_ms));
}

/* fade_poll: frames were handled (their number is kept in *arg), or there is nothing to do
 * until the application consumes (buffer full) or closes */
static int handled_ready(struct fade *f, int handled, void *arg)
{
    *(int *)arg = handled;
    return handled > 0 || closing(f) || buffer_full(f);
}

static int poll_loop(struct fade *f, int timeout_ms)
{
    int n = 0;
    return poll_until(f, handled_ready, &n, timeout_ms) ? 0 : n;
}

int fade_poll(fade_t *f, int timeout_ms)
{
    if (!f || !f->poll_mode)
        return -EINVAL;
    AS_READER(f, poll_loop(f, timeout_ms));
}

int fade_read_ptrs(fade_t *f, struct fade_ptrs *p, int timeout_ms)
{
    struct timespec dl;
    int ret = 0;
    if (!f || !p)
        return -EINVAL;
    if (f->inplace) {
        memset(p, 0, sizeof(*p));
        return -EINVAL;  /* fade_read_span() */
    }
    if (f->poll_mode)
        return read_ptrs_poll(f, p, timeout_ms);
    if (timeout_ms > 0)
        dl = deadline_in((unsigned)timeout_ms);
    pthread_mutex_lock(&f->lock);
    f->waiters++;
    for (;;) {
        fill_ptrs(f, p);
        if (p->avail >= f->wakeup || p->eos || f->closing)
            break;
        if (timeout_ms == 0) {
            ret = -ETIMEDOUT;
            break;
        }
        if (timeout_ms < 0)
            pthread_cond_wait(&f->data_cv, &f->lock);
        else if (pthread_cond_timedwait(&f->data_cv, &f->lock, &dl) == ETIMEDOUT) {
            fill_ptrs(f, p);
            ret = (p->avail >= f->wakeup || p->eos) ? 0 : -ETIMEDOUT;
            break;
        }
    }
    f->waiters--;
    pthread_mutex_unlock(&f->lock);
    return ret;
}

/* Inplace (lock held): the next span, 1 if there is one (or the end of the stream). */
static int next_span(struct fade *f, struct fade_span *s)
{
    uint64_t head = fade_rx_head(&f->rx);
    int eos = fade_rx_eos(&f->rx);
    memset(s, 0, sizeof(*s));
    if (f->nspans) {  /* spans are older than anything unread in the buffer */
        const struct span *sp = &f->spans[f->span_first];
        s->data = sp->data;
        s->len = sp->len;
        s->in_ring = 1;
        s->eos = eos && f->nspans == 1 && head == f->rx.tail;
        return 1;
    }
    s->data = f->buf + f->rx.tail % f->buf_len;
    s->len = head - f->rx.tail;
    s->eos = eos;
    return s->len > 0 || eos;
}

static int span_ready(struct fade *f, int handled, void *arg)
{
    int ready;
    (void)handled;
    pthread_mutex_lock(&f->lock);
    ready = next_span(f, arg) || closing(f);
    pthread_mutex_unlock(&f->lock);
    return ready;
}

int fade_read_span(fade_t *f, struct fade_span *s, int timeout_ms)
{
    if (!f || !s || !f->inplace)
        return -EINVAL;
    AS_READER(f, poll_until(f, span_ready, s, timeout_ms));
}

int fade_release_span(fade_t *f, const struct fade_span *s)
{
    int ret = 0;
    if (!f || !s || !f->inplace)
        return -EINVAL;
    pthread_mutex_lock(&f->rx_lock);
    pthread_mutex_lock(&f->lock);
    if (s->in_ring) {
        const struct span *sp = &f->spans[f->span_first];
        if (!f->nspans || sp->data != s->data || sp->len != s->len) {
            ret = -EINVAL;
        } else {
            uint32_t b = sp->block;
            f->span_first = (f->span_first + 1) % f->span_cap;
            f->nspans--;
            if (--f->block_refs[b] == 0) {  /* the block's last span: back to the kernel */
                struct tpacket_block_desc *bd = (void *)(f->ring + (size_t)b * f->block_size);
                __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            }
        }
    } else if (s->len > fade_rx_head(&f->rx) - f->rx.tail) {
        ret = -EINVAL;
    } else {
        f->rx.tail += s->len;
    }
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_unlock(&f->rx_lock);
    return ret;
}

int fade_write_ptrs(fade_t *f, size_t n)
{
    int ret = 0;
    if (!f)
        return -EINVAL;
    pthread_mutex_lock(&f->lock);
    if (n > fade_rx_head(&f->rx) - f->rx.tail)
        ret = -EINVAL;
    else
        f->rx.tail += n;
    pthread_mutex_unlock(&f->lock);
    return ret;
}

void fade_get_counters(fade_t *f, struct fade_counters *c)
{
    struct tpacket_stats_v3 st;
    socklen_t sl = sizeof(st);
    if (!f || !c)
        return;
    pthread_mutex_lock(&f->lock);
    if (getsockopt(f->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
        f->c.kernel_drops += st.tp_drops;  /* reading the statistics resets them */
    sl = sizeof(st);
    if (f->cfd >= 0 && getsockopt(f->cfd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
        f->c.kernel_drops += st.tp_drops;
    sync_counters(f);
    *c = f->c;
    c->acks_sent = __atomic_load_n(&f->c.acks_sent, __ATOMIC_RELAXED);
    c->ack_frames = __atomic_load_n(&f->c.ack_frames, __ATOMIC_RELAXED);
    c->ack_records = __atomic_load_n(&f->ack_per_frame, __ATOMIC_RELAXED);
    c->ack_send_fail = __atomic_load_n(&f->c.ack_send_fail, __ATOMIC_RELAXED);
    c->cmds_sent = __atomic_load_n(&f->c.cmds_sent, __ATOMIC_RELAXED);
    c->cmd_retries = __atomic_load_n(&f->c.cmd_retries, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->lock);
}
