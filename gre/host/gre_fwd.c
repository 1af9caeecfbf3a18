/*
 * gre_fwd: the GRE decapsulating forwarder, fastpath's software baseline for the RTL core.
 *
 * Receives every frame on one interface, runs it through gre_decap() (gre_parse.c: the same
 * decisions as rtl/gre/), and sends the result on another interface: GRE v0 tunnel packets
 * leave decapsulated, everything else leaves unchanged. One thread, busy-polling: it never
 * sleeps and never blocks in the kernel while waiting for frames.
 *
 *   gre_fwd -i IN -o OUT [--mode auto|xdp|packet] [--rx-ring v2|v3|none] [--count N]
 *           [--timeout SECONDS] [--cpu N] [--rt PRIO] [--batch N] [--yield-us US]
 *           [--idle-us US]
 *
 * --count N stops after N frames (v3 and none finish the block / batch they are in), --timeout
 * after that many seconds.
 * --cpu pins the thread to one CPU; --rt runs it SCHED_FIFO at that priority (1..99), which
 * gives it the CPU the way DPDK's dedicated polling core has it (the kernel's RT throttling
 * still leaves ordinary tasks about 5 % of that CPU). Use both together, and --timeout, on a
 * shared machine.
 *
 * Busy-polling by default, the loop never blocks. Two options make it share a CPU politely:
 * --yield-us Y gives away Y us in every millisecond by blocking in ppoll() on the RX socket, and
 * a frame arriving ends a wait at once. It rests right after forwarding, for 60 % of the usual
 * gap between frames (minus 15 us), so with periodic traffic frames find it polling; when that
 * cannot give the Y us (frames closer than 40 us, or none), it rests whenever a round found
 * nothing and 2 Y us are owed; under full load it does not rest. --idle-us I
 * blocks (until a frame comes, 10 ms at most) after I us without any frame. With --rt the
 * kernel otherwise takes the CPU away for tens of milliseconds at a time to run ordinary tasks
 * (its fair-server / RT throttling guarantees them 5 %); giving them that time in small pieces
 * keeps those stalls out of the latency measurements.
 *
 * Modes
 *  xdp     AF_XDP. A five-instruction XDP program (loaded with the bpf() system call, no
 *          libbpf) redirects every frame arriving on IN to an AF_XDP socket; the forwarder
 *          reads its RX ring, decapsulates into the UMEM of a second AF_XDP socket bound to
 *          OUT, and kicks that socket's TX ring with sendto(). The program is attached in
 *          native (driver) mode, or generic mode where the driver has none, through a BPF link,
 *          so it goes away when the process exits, however it exits. veth has no zero-copy
 *          AF_XDP, so both sockets use copy mode.
 *  packet  AF_PACKET. RX through a memory-mapped ring, polled per frame: TPACKET_V2 by default
 *          (a frame is visible as soon as the kernel has written it), TPACKET_V3 with
 *          --rx-ring v3 (frames are handed over a block at a time, when the block fills or its
 *          retire timer fires: fewer cache misses under load, but at low rates frames wait
 *          milliseconds for the timer), or recvmmsg() without a ring (--rx-ring none). TX with
 *          sendmmsg() on a socket that bypasses the qdisc. The kernel strips the outer VLAN tag before AF_PACKET sees a frame; the
 *          forwarder puts it back from the ring header / auxiliary data, so tagged frames are
 *          forwarded as they came.
 *  auto    (default) xdp, falling back to packet if AF_XDP cannot be set up.
 * AF_XDP uses RX queue 0 of IN only (veth has one); on a multi-queue NIC, frames that arrive on
 * other queues would go to the kernel (the program's XDP_PASS fallback), not through gre_fwd.
 *
 * Output: one line "ready mode=... in=... out=..." on stdout once frames can flow, and on
 * SIGINT/SIGTERM, --count frames or --timeout, one line of JSON with the counters (frames and
 * bytes in and out, drops, kernel ring drops, one count per gre_parse verdict, seconds since
 * start and seconds spent in rounds that handled frames). Exit 0. SIGUSR1 prints the same
 * line without stopping (a snapshot).
 */
#include "gre_parse.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define FRAME_SIZE 2048u           /* UMEM chunk and packet ring frame size */
#define MAX_BATCH 64u
#define XSK_FRAMES 4096u           /* per UMEM */
#define XSK_RING 2048u             /* RX / TX / fill / completion ring entries */

/* ---- counters and shutdown ---------------------------------------------------------------- */

struct counters {
    uint64_t rx, rx_bytes, tx, tx_bytes;
    uint64_t tx_drop;       /* no room in the TX ring / UMEM, or the send failed */
    uint64_t rx_trunc;      /* frame longer than the receive buffer: dropped */
    uint64_t rx_kernel_drop; /* frames the kernel could not put in our RX ring */
    uint64_t verdict[GRE_VERDICT_COUNT];
    double busy_s;          /* time in loop rounds that handled frames (including their sends) */
    double start_s;         /* when forwarding started */
};

static volatile sig_atomic_t stop_requested, dump_requested;

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        dump_requested = 1;
    else
        stop_requested = 1;
}

static void print_counters(const char *mode, const struct counters *c);

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gre_fwd: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct options {
    const char *in, *out;
    const char *mode;      /* auto, xdp, packet */
    const char *rx_ring;   /* v2, v3, none */
    uint64_t count;        /* stop after this many frames received (0: never) */
    double timeout;        /* stop after this many seconds (0: never) */
    int cpu;               /* pin to this CPU (-1: no) */
    int rt;                /* SCHED_FIFO priority (0: no) */
    unsigned batch;
    double yield_s;        /* --yield-us, in seconds (0: never) */
    double idle_s;         /* --idle-us, in seconds (0: never) */
};

/* The end of every loop round: time accounting, counter snapshots, resting, the timeout. */
struct rest {
    const struct options *o;
    const char *mode;
    struct counters *c;
    double deadline, last_yield, last_frame, round_start;
    double owed;  /* --yield-us time still to give away */
    double gap;   /* average time between rounds that found frames (EWMA) */
};

static void rest_init(struct rest *r, const struct options *o, const char *mode,
                      struct counters *c)
{
    memset(r, 0, sizeof(*r));
    r->o = o;
    r->mode = mode;
    r->c = c;
    r->last_yield = r->last_frame = r->round_start = c->start_s = now_s();
    r->deadline = o->timeout > 0 ? r->last_frame + o->timeout : 0;
}

static void wait_for_frame(int fd, double seconds)
{
    struct pollfd p;
    struct timespec ts;
    p.fd = fd;
    p.events = POLLIN;
    p.revents = 0;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    ppoll(&p, 1, &ts, NULL);
}

/* Returns nonzero when the loop should stop (timeout). busy: this round handled frames. */
static int rest_step(struct rest *r, int fd, int busy)
{
    const struct options *o = r->o;
    double now = now_s(), wait = 0;
    if (busy) {
        double gap = now - r->last_frame;
        r->c->busy_s += now - r->round_start;
        if (gap < 0.01)
            r->gap = r->gap ? 0.9 * r->gap + 0.1 * gap : gap;
        r->last_frame = now;
    }
    if (dump_requested) {
        dump_requested = 0;
        print_counters(r->mode, r->c);
    }
    if (o->idle_s && now - r->last_frame > o->idle_s) {
        wait_for_frame(fd, 0.01);
        r->last_yield = now = now_s();
        r->owed = 0;
    } else if (o->yield_s) {
        if (now - r->last_yield > 1e-3) {  /* a new millisecond: Y us more to give away */
            r->owed = r->owed + o->yield_s > 3 * o->yield_s ? 3 * o->yield_s : r->owed + o->yield_s;
            r->last_yield = now;
        }
        if (busy && r->gap > 40e-6)  /* just after frames: rest into the usual gap */
            wait = 0.6 * r->gap - 15e-6 < r->owed ? 0.6 * r->gap - 15e-6 : r->owed;
        else if (!busy && r->owed >= 2 * o->yield_s)  /* behind: rest now */
            wait = r->owed;
        if (wait > 2e-6) {  /* a frame ends the wait at once */
            double t = now;
            wait_for_frame(fd, wait);
            now = now_s();
            r->owed -= now - t;
        }
    }
    r->round_start = now;
    return r->deadline && now > r->deadline;
}

/* Decapsulate one received frame into out (capacity FRAME_SIZE); returns the output length. */
static size_t forward_one(struct counters *c, const uint8_t *frame, size_t len, uint8_t *out)
{
    struct gre_info info;
    size_t n = gre_decap(frame, len, out, FRAME_SIZE, &info);
    c->rx++;
    c->rx_bytes += len;
    c->verdict[info.verdict]++;
    return n;
}

/* ===== AF_XDP ================================================================================ */

struct xring {
    uint32_t *producer, *consumer;
    void *desc;
    uint32_t mask;
    void *map;
    size_t map_len;
};

struct xsk {
    int fd;
    uint8_t *umem;
    size_t umem_len;
    struct xring fill, comp, rx, tx;
    uint64_t free_addr[XSK_FRAMES];
    uint32_t nfree;
    uint32_t tx_outstanding;  /* submitted to TX, not yet completed */
};

static uint32_t load_acquire(const uint32_t *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store_release(uint32_t *p, uint32_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

static int xring_map(int fd, struct xring *r, const struct xdp_ring_offset *off, size_t desc_size,
                     off_t pgoff)
{
    r->map_len = off->desc + XSK_RING * desc_size;
    r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, pgoff);
    if (r->map == MAP_FAILED) {
        r->map = NULL;
        return -1;
    }
    r->producer = (uint32_t *)((uint8_t *)r->map + off->producer);
    r->consumer = (uint32_t *)((uint8_t *)r->map + off->consumer);
    r->desc = (uint8_t *)r->map + off->desc;
    r->mask = XSK_RING - 1;
    return 0;
}

static void xsk_close(struct xsk *x)
{
    struct xring *rings[4] = {&x->fill, &x->comp, &x->rx, &x->tx};
    int i;
    for (i = 0; i < 4; i++)
        if (rings[i]->map)
            munmap(rings[i]->map, rings[i]->map_len);
    if (x->fd >= 0)
        close(x->fd);
    if (x->umem)
        munmap(x->umem, x->umem_len);
    memset(x, 0, sizeof(*x));
    x->fd = -1;
}

/* An AF_XDP socket on queue 0 of ifindex, copy mode, with its own UMEM. want_rx: give the
 * whole UMEM to the fill ring; otherwise keep it on the free list for TX. */
static int xsk_open(struct xsk *x, int ifindex, int want_rx, char *err, size_t errlen)
{
    struct xdp_umem_reg reg;
    struct xdp_mmap_offsets off;
    struct sockaddr_xdp sa;
    socklen_t optlen = sizeof(off);
    unsigned ring = XSK_RING, i;

    memset(x, 0, sizeof(*x));
    x->fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (x->fd < 0) {
        snprintf(err, errlen, "socket(AF_XDP): %s", strerror(errno));
        return -1;
    }
    x->umem_len = (size_t)XSK_FRAMES * FRAME_SIZE;
    x->umem = mmap(NULL, x->umem_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (x->umem == MAP_FAILED) {
        x->umem = NULL;
        snprintf(err, errlen, "mmap(UMEM): %s", strerror(errno));
        goto fail;
    }
    memset(&reg, 0, sizeof(reg));
    reg.addr = (uintptr_t)x->umem;
    reg.len = x->umem_len;
    reg.chunk_size = FRAME_SIZE;
    if (setsockopt(x->fd, SOL_XDP, XDP_UMEM_REG, &reg, sizeof(reg)) ||
        setsockopt(x->fd, SOL_XDP, XDP_UMEM_FILL_RING, &ring, sizeof(ring)) ||
        setsockopt(x->fd, SOL_XDP, XDP_UMEM_COMPLETION_RING, &ring, sizeof(ring)) ||
        (want_rx && setsockopt(x->fd, SOL_XDP, XDP_RX_RING, &ring, sizeof(ring))) ||
        (!want_rx && setsockopt(x->fd, SOL_XDP, XDP_TX_RING, &ring, sizeof(ring)))) {
        snprintf(err, errlen, "AF_XDP setsockopt: %s", strerror(errno));
        goto fail;
    }
    if (getsockopt(x->fd, SOL_XDP, XDP_MMAP_OFFSETS, &off, &optlen)) {
        snprintf(err, errlen, "XDP_MMAP_OFFSETS: %s", strerror(errno));
        goto fail;
    }
    if (xring_map(x->fd, &x->fill, &off.fr, sizeof(uint64_t), XDP_UMEM_PGOFF_FILL_RING) ||
        xring_map(x->fd, &x->comp, &off.cr, sizeof(uint64_t), XDP_UMEM_PGOFF_COMPLETION_RING) ||
        (want_rx &&
         xring_map(x->fd, &x->rx, &off.rx, sizeof(struct xdp_desc), XDP_PGOFF_RX_RING)) ||
        (!want_rx &&
         xring_map(x->fd, &x->tx, &off.tx, sizeof(struct xdp_desc), XDP_PGOFF_TX_RING))) {
        snprintf(err, errlen, "mmap(AF_XDP ring): %s", strerror(errno));
        goto fail;
    }
    if (want_rx) {  /* the fill ring gets as many frames as it holds; the rest stay unused */
        uint64_t *fq = x->fill.desc;
        for (i = 0; i < XSK_RING; i++)
            fq[i] = (uint64_t)i * FRAME_SIZE;
        store_release(x->fill.producer, XSK_RING);
    } else {
        for (i = 0; i < XSK_FRAMES; i++)
            x->free_addr[x->nfree++] = (uint64_t)i * FRAME_SIZE;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sxdp_family = AF_XDP;
    sa.sxdp_ifindex = (uint32_t)ifindex;
    sa.sxdp_queue_id = 0;
    sa.sxdp_flags = XDP_COPY;
    if (bind(x->fd, (struct sockaddr *)&sa, sizeof(sa))) {
        snprintf(err, errlen, "bind(AF_XDP): %s", strerror(errno));
        goto fail;
    }
    return 0;
fail:
    xsk_close(x);
    return -1;
}

/* ---- the XDP program, written as bytecode ---- */

static long sys_bpf(int cmd, union bpf_attr *attr)
{
    return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
    struct bpf_insn i;
    memset(&i, 0, sizeof(i));
    i.code = code;
    i.dst_reg = dst & 0xF;
    i.src_reg = src & 0xF;
    i.off = off;
    i.imm = imm;
    return i;
}

struct xdp_redirect {
    int map_fd, prog_fd, link_fd;
    const char *attach;  /* "drv" or "skb" */
};

static void xdp_redirect_close(struct xdp_redirect *r)
{
    if (r->link_fd >= 0)
        close(r->link_fd);  /* detaches the program */
    if (r->prog_fd >= 0)
        close(r->prog_fd);
    if (r->map_fd >= 0)
        close(r->map_fd);
    r->link_fd = r->prog_fd = r->map_fd = -1;
}

/* Load "return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS)" and attach it to
 * ifindex, with xsk_fd in the map at index 0 (veth has one queue). */
static int xdp_redirect_open(struct xdp_redirect *r, int ifindex, int xsk_fd, char *err,
                             size_t errlen)
{
    static char log[4096];
    struct bpf_insn prog[6];
    union bpf_attr a;
    uint32_t key = 0, val = (uint32_t)xsk_fd;
    static const uint32_t modes[2] = {XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE};
    int m;

    r->map_fd = r->prog_fd = r->link_fd = -1;
    memset(&a, 0, sizeof(a));
    a.map_type = BPF_MAP_TYPE_XSKMAP;
    a.key_size = 4;
    a.value_size = 4;
    a.max_entries = 1;
    r->map_fd = (int)sys_bpf(BPF_MAP_CREATE, &a);
    if (r->map_fd < 0) {
        snprintf(err, errlen, "bpf(MAP_CREATE XSKMAP): %s", strerror(errno));
        return -1;
    }
    memset(&a, 0, sizeof(a));
    a.map_fd = (uint32_t)r->map_fd;
    a.key = (uintptr_t)&key;
    a.value = (uintptr_t)&val;
    if (sys_bpf(BPF_MAP_UPDATE_ELEM, &a)) {
        snprintf(err, errlen, "bpf(MAP_UPDATE_ELEM): %s", strerror(errno));
        goto fail;
    }

    /* r2 = ctx->rx_queue_index; r1 = map; r3 = XDP_PASS; call redirect_map; exit */
    prog[0] = insn(BPF_LDX | BPF_W | BPF_MEM, BPF_REG_2, BPF_REG_1,
                   (int16_t)offsetof(struct xdp_md, rx_queue_index), 0);
    prog[1] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, r->map_fd);
    prog[2] = insn(0, 0, 0, 0, 0);
    prog[3] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, XDP_PASS);
    prog[4] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map);
    prog[5] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

    memset(&a, 0, sizeof(a));
    a.prog_type = BPF_PROG_TYPE_XDP;
    a.insns = (uintptr_t)prog;
    a.insn_cnt = 6;
    a.license = (uintptr_t)"GPL";
    a.log_buf = (uintptr_t)log;
    a.log_size = sizeof(log);
    a.log_level = 1;
    log[0] = 0;
    r->prog_fd = (int)sys_bpf(BPF_PROG_LOAD, &a);
    if (r->prog_fd < 0) {
        snprintf(err, errlen, "bpf(PROG_LOAD): %s; verifier: %.200s", strerror(errno), log);
        goto fail;
    }

    for (m = 0; m < 2; m++) {
        memset(&a, 0, sizeof(a));
        a.link_create.prog_fd = (uint32_t)r->prog_fd;
        a.link_create.target_ifindex = (uint32_t)ifindex;
        a.link_create.attach_type = BPF_XDP;
        a.link_create.flags = modes[m];
        r->link_fd = (int)sys_bpf(BPF_LINK_CREATE, &a);
        if (r->link_fd >= 0) {
            r->attach = m == 0 ? "drv" : "skb";
            return 0;
        }
    }
    snprintf(err, errlen, "bpf(LINK_CREATE XDP): %s", strerror(errno));
fail:
    xdp_redirect_close(r);
    return -1;
}

/* Return completed TX frames to the free list. */
static void xsk_reap_tx(struct xsk *t)
{
    uint32_t prod = load_acquire(t->comp.producer), cons = *t->comp.consumer;
    const uint64_t *cq = t->comp.desc;
    while (cons != prod) {
        t->free_addr[t->nfree++] = cq[cons & t->comp.mask] & ~(uint64_t)(FRAME_SIZE - 1);
        cons++;
        t->tx_outstanding--;
    }
    store_release(t->comp.consumer, cons);
}

static void xsk_kick_tx(struct xsk *t)
{
    if (sendto(t->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 && errno != EAGAIN &&
        errno != EBUSY && errno != ENOBUFS && errno != EINTR) {
        fprintf(stderr, "gre_fwd: sendto(AF_XDP TX): %s; stopping\n", strerror(errno));
        stop_requested = 1;
    }
}

struct xdp_path {
    struct xsk rx, tx;
    struct xdp_redirect prog;
};

/* Set up both AF_XDP sockets and the XDP program; on failure undo everything and say why. (The
 * set-up is done once: a socket's queue is released asynchronously after close, so probing and
 * then opening again can find the queue still busy.) */
static int xdp_open(struct xdp_path *x, const struct options *o, int in_if, int out_if,
                    char *err, size_t errlen)
{
    char why[400];
    if (xsk_open(&x->rx, in_if, 1, why, sizeof(why))) {
        snprintf(err, errlen, "AF_XDP on %s: %s", o->in, why);
        return -1;
    }
    if (xsk_open(&x->tx, out_if, 0, why, sizeof(why))) {
        snprintf(err, errlen, "AF_XDP on %s: %s", o->out, why);
        xsk_close(&x->rx);
        return -1;
    }
    if (xdp_redirect_open(&x->prog, in_if, x->rx.fd, why, sizeof(why))) {
        snprintf(err, errlen, "XDP program on %s: %s", o->in, why);
        xsk_close(&x->rx);
        xsk_close(&x->tx);
        return -1;
    }
    return 0;
}

static void run_xdp(const struct options *o, struct xdp_path *x, struct counters *c)
{
    struct xsk *rx = &x->rx, *tx = &x->tx;
    struct xdp_redirect *prog = &x->prog;
    struct rest rs;

    printf("ready mode=xdp attach=%s in=%s out=%s\n", prog->attach, o->in, o->out);
    fflush(stdout);
    rest_init(&rs, o, "xdp", c);

    while (!stop_requested && !(o->count && c->rx >= o->count)) {
        uint32_t prod = load_acquire(rx->rx.producer), cons = *rx->rx.consumer;
        uint32_t n = prod - cons, i, fprod, tprod, sent = 0;
        const struct xdp_desc *rd = rx->rx.desc;
        struct xdp_desc *td = tx->tx.desc;
        uint64_t *fq = rx->fill.desc;

        if (n > o->batch)
            n = o->batch;
        if (o->count && n > o->count - c->rx)
            n = (uint32_t)(o->count - c->rx);
        if (n) {
            uint32_t tx_room = XSK_RING - (*tx->tx.producer - load_acquire(tx->tx.consumer));
            fprod = *rx->fill.producer;
            tprod = *tx->tx.producer;
            for (i = 0; i < n; i++) {
                const struct xdp_desc *d = &rd[(cons + i) & rx->rx.mask];
                const uint8_t *frame = rx->umem + d->addr;
                if (sent < tx_room && tx->nfree) {
                    uint64_t addr = tx->free_addr[--tx->nfree];
                    size_t len = forward_one(c, frame, d->len, tx->umem + addr);
                    td[(tprod + sent) & tx->tx.mask].addr = addr;
                    td[(tprod + sent) & tx->tx.mask].len = (uint32_t)len;
                    td[(tprod + sent) & tx->tx.mask].options = 0;
                    sent++;
                    c->tx++;
                    c->tx_bytes += len;
                } else {
                    struct gre_info info;
                    c->rx++;
                    c->rx_bytes += d->len;
                    c->verdict[gre_parse(frame, d->len, &info)]++;
                    c->tx_drop++;
                }
                fq[(fprod + i) & rx->fill.mask] = d->addr & ~(uint64_t)(FRAME_SIZE - 1);
            }
            store_release(rx->rx.consumer, cons + n);
            store_release(rx->fill.producer, fprod + n);
            if (sent) {
                store_release(tx->tx.producer, tprod + sent);
                tx->tx_outstanding += sent;
            }
        }
        if (tx->tx_outstanding) {
            xsk_kick_tx(tx);
            xsk_reap_tx(tx);
            n = 1;  /* sending counts as work */
        }
        if (rest_step(&rs, rx->fd, n != 0))
            break;
    }
    /* let the last frames out (bounded) */
    {
        double until = now_s() + 0.5;
        while (tx->tx_outstanding && now_s() < until) {
            xsk_kick_tx(tx);
            xsk_reap_tx(tx);
        }
    }
    {
        struct xdp_statistics st;
        socklen_t len = sizeof(st);
        memset(&st, 0, sizeof(st));
        if (getsockopt(rx->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0)
            c->rx_kernel_drop = st.rx_dropped + st.rx_ring_full;
    }
    xdp_redirect_close(prog);
    xsk_close(rx);
    xsk_close(tx);
}

/* ===== AF_PACKET ============================================================================= */

struct pkt_rx {
    int fd;
    int version;      /* 2, 3, or 0 (no ring) */
    uint8_t *ring;
    size_t ring_len;
    unsigned frames;  /* v2: frame slots */
    unsigned blocks;  /* v3: blocks */
    size_t block_size;
    unsigned next;    /* next slot / block */
};

static void set_int(int fd, int level, int opt, int val, const char *what, int must)
{
    if (setsockopt(fd, level, opt, &val, sizeof(val)) && must)
        die("setsockopt(%s): %s", what, strerror(errno));
}

static void bind_packet(int fd, int ifindex, int proto, const char *name)
{
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = (uint16_t)htons((uint16_t)proto);
    sll.sll_ifindex = ifindex;
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind(AF_PACKET, %s): %s", name, strerror(errno));
}

static void pkt_rx_open(struct pkt_rx *r, int ifindex, const char *name, const char *ring)
{
    memset(r, 0, sizeof(*r));
    /* protocol 0 until bound to the interface: receive nothing from elsewhere meanwhile */
    r->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (r->fd < 0)
        die("socket(AF_PACKET): %s", strerror(errno));
    set_int(r->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING", 0);
    if (!strcmp(ring, "v2")) {
        struct tpacket_req req;
        r->version = 2;
        set_int(r->fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2, "PACKET_VERSION", 1);
        memset(&req, 0, sizeof(req));
        req.tp_block_size = 1u << 16;
        req.tp_frame_size = FRAME_SIZE;
        req.tp_block_nr = 64;
        req.tp_frame_nr = req.tp_block_nr * (req.tp_block_size / req.tp_frame_size);
        if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
            die("PACKET_RX_RING v2: %s", strerror(errno));
        r->frames = req.tp_frame_nr;
        r->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
    } else if (!strcmp(ring, "v3")) {
        struct tpacket_req3 req;
        r->version = 3;
        set_int(r->fd, SOL_PACKET, PACKET_VERSION, TPACKET_V3, "PACKET_VERSION", 1);
        memset(&req, 0, sizeof(req));
        req.tp_block_size = 1u << 16;
        req.tp_frame_size = FRAME_SIZE;
        req.tp_block_nr = 64;
        req.tp_frame_nr = req.tp_block_nr * (req.tp_block_size / req.tp_frame_size);
        req.tp_retire_blk_tov = 1;  /* ms: the shortest */
        if (setsockopt(r->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
            die("PACKET_RX_RING v3: %s", strerror(errno));
        r->blocks = req.tp_block_nr;
        r->block_size = req.tp_block_size;
        r->ring_len = (size_t)req.tp_block_size * req.tp_block_nr;
    } else if (!strcmp(ring, "none")) {
        r->version = 0;
        set_int(r->fd, SOL_PACKET, PACKET_AUXDATA, 1, "PACKET_AUXDATA", 1);
        set_int(r->fd, SOL_SOCKET, SO_RCVBUF, 4 << 20, "SO_RCVBUF", 0);
    } else {
        die("--rx-ring must be v2, v3 or none");
    }
    if (r->version) {
        r->ring = mmap(NULL, r->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                       r->fd, 0);
        if (r->ring == MAP_FAILED)
            die("mmap(PACKET_RX_RING): %s", strerror(errno));
    }
    bind_packet(r->fd, ifindex, ETH_P_ALL, name);
}

/* Rebuild the frame as it was on the wire: put back the VLAN tag the kernel took off. */
static const uint8_t *with_tag(const uint8_t *data, size_t *len, int tagged, uint16_t tpid,
                               uint16_t tci, uint8_t *scratch)
{
    if (!tagged || *len < 12 || *len + 4 > FRAME_SIZE)
        return data;
    memcpy(scratch, data, 12);
    scratch[12] = (uint8_t)(tpid >> 8);
    scratch[13] = (uint8_t)tpid;
    scratch[14] = (uint8_t)(tci >> 8);
    scratch[15] = (uint8_t)tci;
    memcpy(scratch + 16, data + 12, *len - 12);
    *len += 4;
    return scratch;
}

struct pkt_tx {
    int fd;
    uint8_t buf[MAX_BATCH][FRAME_SIZE];
    struct iovec iov[MAX_BATCH];
    struct mmsghdr msg[MAX_BATCH];
    unsigned n;
};

static void pkt_tx_flush(struct pkt_tx *t, struct counters *c)
{
    unsigned done = 0;
    int tries = 0;
    while (done < t->n) {
        int k = sendmmsg(t->fd, t->msg + done, t->n - done, 0);
        if (k < 0) {
            if ((errno == ENOBUFS || errno == EAGAIN || errno == EINTR) && ++tries < 100)
                continue;
            c->tx_drop += t->n - done;  /* counted, never silent */
            break;
        }
        while (k-- > 0) {
            c->tx++;
            c->tx_bytes += t->msg[done].msg_len;
            done++;
        }
    }
    t->n = 0;
}

/* Forward one frame (as on the wire) into the TX batch; flush when full. */
static void pkt_forward(struct pkt_tx *t, struct counters *c, const uint8_t *frame, size_t len)
{
    size_t n = forward_one(c, frame, len, t->buf[t->n]);
    if (n == 0) {  /* longer than a buffer: cannot happen at MTU 1500, counted if it does */
        c->tx_drop++;
        return;
    }
    t->iov[t->n].iov_len = n;
    t->n++;
    if (t->n == MAX_BATCH)
        pkt_tx_flush(t, c);
}

static void run_packet(const struct options *o, int in_if, int out_if, struct counters *c)
{
    static struct pkt_tx tx;
    static uint8_t scratch[FRAME_SIZE], rxbuf[MAX_BATCH][FRAME_SIZE];
    static uint8_t cbuf[MAX_BATCH][CMSG_SPACE(sizeof(struct tpacket_auxdata))];
    struct pkt_rx rx;
    struct rest rs;
    unsigned i;

    tx.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (tx.fd < 0)
        die("socket(AF_PACKET): %s", strerror(errno));
    set_int(tx.fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS", 0);
    set_int(tx.fd, SOL_SOCKET, SO_SNDBUF, 4 << 20, "SO_SNDBUF", 0);
    bind_packet(tx.fd, out_if, 0, o->out);
    for (i = 0; i < MAX_BATCH; i++) {
        tx.iov[i].iov_base = tx.buf[i];
        memset(&tx.msg[i], 0, sizeof(tx.msg[i]));
        tx.msg[i].msg_hdr.msg_iov = &tx.iov[i];
        tx.msg[i].msg_hdr.msg_iovlen = 1;
    }
    pkt_rx_open(&rx, in_if, o->in, o->rx_ring);
    printf("ready mode=packet rx_ring=%s in=%s out=%s\n", o->rx_ring, o->in, o->out);
    fflush(stdout);
    rest_init(&rs, o, "packet", c);

    while (!stop_requested && !(o->count && c->rx >= o->count)) {
        unsigned got = 0;  /* frames (v3: blocks) taken this round */
        if (rx.version == 2) {
            while (got < o->batch && !(o->count && c->rx >= o->count)) {
                struct tpacket2_hdr *h = (void *)(rx.ring + (size_t)rx.next * FRAME_SIZE);
                uint32_t st = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
                if (!(st & TP_STATUS_USER))
                    break;
                if (h->tp_snaplen != h->tp_len) {
                    c->rx_trunc++;
                } else {
                    size_t len = h->tp_snaplen;
                    const uint8_t *d = with_tag((uint8_t *)h + h->tp_mac, &len,
                                                !!(st & TP_STATUS_VLAN_VALID),
                                                (st & TP_STATUS_VLAN_TPID_VALID) ? h->tp_vlan_tpid
                                                                                 : ETH_P_8021Q,
                                                h->tp_vlan_tci, scratch);
                    pkt_forward(&tx, c, d, len);
                }
                __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
                rx.next = (rx.next + 1) % rx.frames;
                got++;
            }
        } else if (rx.version == 3) {
            struct tpacket_block_desc *b = (void *)(rx.ring + (size_t)rx.next * rx.block_size);
            uint32_t st = __atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE);
            if (st & TP_STATUS_USER) {
                struct tpacket3_hdr *h = (void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
                uint32_t k;
                for (k = 0; k < b->hdr.bh1.num_pkts; k++) {
                    if (h->tp_snaplen != h->tp_len) {
                        c->rx_trunc++;
                    } else {
                        size_t len = h->tp_snaplen;
                        const uint8_t *d = with_tag(
                            (uint8_t *)h + h->tp_mac, &len, !!(h->tp_status & TP_STATUS_VLAN_VALID),
                            (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? h->hv1.tp_vlan_tpid
                                                                        : ETH_P_8021Q,
                            h->hv1.tp_vlan_tci, scratch);
                        pkt_forward(&tx, c, d, len);
                    }
                    h = (void *)((uint8_t *)h + h->tp_next_offset);
                }
                __atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
                rx.next = (rx.next + 1) % rx.blocks;
                got = 1;
            }
        } else {
            static struct mmsghdr m[MAX_BATCH];
            static struct iovec v[MAX_BATCH];
            int k, j;
            for (j = 0; j < (int)o->batch; j++) {
                v[j].iov_base = rxbuf[j];
                v[j].iov_len = FRAME_SIZE;
                memset(&m[j], 0, sizeof(m[j]));
                m[j].msg_hdr.msg_iov = &v[j];
                m[j].msg_hdr.msg_iovlen = 1;
                m[j].msg_hdr.msg_control = cbuf[j];
                m[j].msg_hdr.msg_controllen = sizeof(cbuf[j]);
            }
            k = recvmmsg(rx.fd, m, o->batch, MSG_DONTWAIT | MSG_TRUNC, NULL);
            if (k < 0 && errno != EAGAIN && errno != EINTR) {
                fprintf(stderr, "gre_fwd: recvmmsg: %s; stopping\n", strerror(errno));
                break;
            }
            for (j = 0; j < k; j++) {
                struct cmsghdr *cm;
                size_t len = m[j].msg_len;
                const uint8_t *d = rxbuf[j];
                if (m[j].msg_hdr.msg_flags & MSG_TRUNC || len > FRAME_SIZE) {
                    c->rx_trunc++;
                    continue;
                }
                for (cm = CMSG_FIRSTHDR(&m[j].msg_hdr); cm; cm = CMSG_NXTHDR(&m[j].msg_hdr, cm)) {
                    if (cm->cmsg_level == SOL_PACKET && cm->cmsg_type == PACKET_AUXDATA) {
                        struct tpacket_auxdata aux;
                        memcpy(&aux, CMSG_DATA(cm), sizeof(aux));
                        d = with_tag(d, &len, !!(aux.tp_status & TP_STATUS_VLAN_VALID),
                                     (aux.tp_status & TP_STATUS_VLAN_TPID_VALID) ? aux.tp_vlan_tpid
                                                                                 : ETH_P_8021Q,
                                     aux.tp_vlan_tci, scratch);
                    }
                }
                pkt_forward(&tx, c, d, len);
            }
            if (k > 0)
                got = (unsigned)k;
        }
        if (tx.n) {
            pkt_tx_flush(&tx, c);
            got = 1;
        }
        if (rest_step(&rs, rx.fd, got != 0))
            break;
    }
    if (tx.n)
        pkt_tx_flush(&tx, c);
    {
        union {
            struct tpacket_stats v2;
            struct tpacket_stats_v3 v3;
        } st;
        socklen_t len = sizeof(st);
        memset(&st, 0, sizeof(st));
        if (getsockopt(rx.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
            c->rx_kernel_drop = st.v2.tp_drops;
    }
    if (rx.ring)
        munmap(rx.ring, rx.ring_len);
    close(rx.fd);
    close(tx.fd);
}

/* ===== main ================================================================================== */

static void usage(void)
{
    fprintf(stderr,
            "usage: gre_fwd -i IN -o OUT [--mode auto|xdp|packet] [--rx-ring v2|v3|none]\n"
            "               [--count N] [--timeout SECONDS] [--cpu N] [--rt PRIO] [--batch N]\n"
            "               [--yield-us US] [--idle-us US]\n");
    exit(2);
}

static void print_counters(const char *mode, const struct counters *c)
{
    int v;
    printf("{\"mode\": \"%s\", \"rx\": %llu, \"rx_bytes\": %llu, \"tx\": %llu, \"tx_bytes\": %llu, "
           "\"tx_drop\": %llu, \"rx_trunc\": %llu, \"rx_kernel_drop\": %llu, "
           "\"elapsed_s\": %.6f, \"busy_s\": %.6f, \"verdicts\": {",
           mode, (unsigned long long)c->rx, (unsigned long long)c->rx_bytes,
           (unsigned long long)c->tx, (unsigned long long)c->tx_bytes,
           (unsigned long long)c->tx_drop, (unsigned long long)c->rx_trunc,
           (unsigned long long)c->rx_kernel_drop, c->start_s > 0 ? now_s() - c->start_s : 0.0,
           c->busy_s);
    for (v = 0; v < GRE_VERDICT_COUNT; v++)
        printf("%s\"%s\": %llu", v ? ", " : "", gre_verdict_name((enum gre_verdict)v),
               (unsigned long long)c->verdict[v]);
    printf("}}\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct options o;
    struct counters c;
    struct sigaction sa;
    int a, in_if, out_if;
    const char *mode;

    memset(&o, 0, sizeof(o));
    o.mode = "auto";
    o.rx_ring = "v2";
    o.cpu = -1;
    o.batch = 32;
    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
            usage();
        if (!val)
            usage();
        a++;
        if (!strcmp(arg, "-i")) o.in = val;
        else if (!strcmp(arg, "-o")) o.out = val;
        else if (!strcmp(arg, "--mode")) o.mode = val;
        else if (!strcmp(arg, "--rx-ring")) o.rx_ring = val;
        else if (!strcmp(arg, "--count")) o.count = strtoull(val, NULL, 0);
        else if (!strcmp(arg, "--timeout")) o.timeout = atof(val);
        else if (!strcmp(arg, "--cpu")) o.cpu = atoi(val);
        else if (!strcmp(arg, "--rt")) o.rt = atoi(val);
        else if (!strcmp(arg, "--batch")) o.batch = (unsigned)atoi(val);
        else if (!strcmp(arg, "--yield-us")) o.yield_s = atof(val) * 1e-6;
        else if (!strcmp(arg, "--idle-us")) o.idle_s = atof(val) * 1e-6;
        else usage();
    }
    if (!o.in || !o.out)
        usage();
    if (o.batch < 1 || o.batch > MAX_BATCH)
        die("--batch must be 1..%u", MAX_BATCH);
    if (strcmp(o.mode, "auto") && strcmp(o.mode, "xdp") && strcmp(o.mode, "packet"))
        die("--mode must be auto, xdp or packet");
    in_if = (int)if_nametoindex(o.in);
    out_if = (int)if_nametoindex(o.out);
    if (!in_if || !out_if)
        die("no such interface: %s", in_if ? o.out : o.in);
    if (in_if == out_if)
        die("IN and OUT must differ");
    if (o.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set))
            fprintf(stderr, "gre_fwd: cannot pin to CPU %d: %s\n", o.cpu, strerror(errno));
    }
    if (o.rt > 0) {
        struct sched_param sp;
        memset(&sp, 0, sizeof(sp));
        sp.sched_priority = o.rt;
        if (sched_setscheduler(0, SCHED_FIFO, &sp))
            fprintf(stderr, "gre_fwd: cannot use SCHED_FIFO %d: %s\n", o.rt, strerror(errno));
        mlockall(MCL_CURRENT | MCL_FUTURE);
    }

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    mode = o.mode;
    memset(&c, 0, sizeof(c));
    if (strcmp(mode, "packet")) {
        static struct xdp_path x;  /* two UMEM free lists: keep them off the stack */
        char err[512];
        if (xdp_open(&x, &o, in_if, out_if, err, sizeof(err)) == 0) {
            mode = "xdp";
            run_xdp(&o, &x, &c);
        } else if (!strcmp(mode, "xdp")) {
            die("%s", err);
        } else {
            fprintf(stderr, "gre_fwd: AF_XDP unavailable (%s); using AF_PACKET\n", err);
            mode = "packet";
        }
    }
    if (!strcmp(mode, "packet"))
        run_packet(&o, in_if, out_if, &c);
    print_counters(mode, &c);
    return 0;
}
