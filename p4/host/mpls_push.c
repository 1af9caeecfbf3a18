/*
 * mpls_push: the SR-MPLS label push in software, "without offload" (the P4 system's software
 * baseline). Receives Ethernet frames on one interface, pushes a configured label stack between
 * the (VLAN-tagged) Ethernet header and the IP packet (mpls_edit.h says exactly how), and sends
 * them out on another interface.
 *
 *   mpls_push -i IN -o OUT --labels L[/TC][,L[/TC]...]|none [--ttl ip|N] [--mtu N] [--busy]
 *             [--count N] [--timeout SECONDS] [--cpu N] [--rt PRIO] [--batch N]
 *             [--block-kb KB] [--blocks N]
 *   mpls_push --pcap-in IN.pcap --pcap-out OUT.pcap --labels ... [--ttl ip|N] [--mtu N]
 *             [--verdict-log FILE]
 *
 * --labels lists the stack outermost first, each label with an optional TC (default 0); the S
 * bit goes on the last. "none" forwards every frame unchanged (the plain forwarding reference).
 * --ttl ip (default) copies the IPv4 TTL / IPv6 hop limit into every entry, as Linux's MPLS
 * iptunnel does by default; --ttl N (1..255) writes N, as its `ttl N` route option does.
 * --mtu limits what follows the L2 header after the push (default: OUT's MTU; none in pcap mode).
 *
 * I/O (live mode): AF_PACKET. RX from a memory-mapped TPACKET_V3 ring (the kernel hands over
 * blocks of frames: one status check per block, frames of any size up to the block, jumbo frames
 * included); TX with sendmmsg() on a socket that bypasses the qdisc, each frame as two pieces:
 * the new header (MACs, tags, 0x8847, labels) from a small buffer and the rest of the frame
 * straight from the RX ring, so the payload is never copied in user space (the kernel copies it
 * once into the skb it sends). A block goes back to the kernel only after its frames were sent.
 * The kernel takes the outer VLAN tag off a frame before AF_PACKET sees it; it is put back from
 * the ring's frame header, so tagged frames are pushed behind their tags as they came.
 * AF_XDP is not used: its UMEM chunks are at most a page (no 9000-byte frames without multi-
 * buffer support), and on veth it runs in copy mode, no faster than AF_PACKET (gre/docs/software.md).
 * By default the loop sleeps in poll() when the ring is empty (its CPU time is then the real cost
 * of the push); --busy polls without sleeping.
 *
 * Output: "ready in=... out=... labels=N mtu=M" on stdout once frames can flow, and on
 * SIGINT/SIGTERM, --count frames or --timeout, one line of JSON with the counters (frames and
 * bytes in and out, one count per verdict, TX drops, frames the kernel could not put in the ring,
 * frames longer than the ring could hold, busy time, CPU time); SIGUSR1 prints the same line
 * without stopping. Exit 0. In pcap mode: every frame of IN.pcap (classic pcap, Ethernet, either
 * byte order, us or ns timestamps) goes through the same edit (a record the capture cut short is
 * edited as the bytes it holds); the frames that are not dropped go to OUT.pcap with their
 * timestamps; --verdict-log writes each input frame's verdict, one a line.
 */
#include "mpls_edit.h"

#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 64u
#define PCAP_MAX_FRAME 262144u

struct counters {
    uint64_t rx, rx_bytes, tx, tx_bytes;
    uint64_t verdict[MPLS_VERDICT_COUNT];
    uint64_t tx_drop;         /* the send failed (counted, never silent) */
    uint64_t rx_kernel_drop;  /* frames the kernel could not put in the ring */
    uint64_t rx_snap_trunc;   /* frames longer than a ring block: dropped */
    double busy_s;            /* time spent handling blocks of frames (their sends included) */
    double start_s;
};

static volatile sig_atomic_t stop_requested, dump_requested;
static int rx_stats_fd = -1;  /* the RX ring's socket, for PACKET_STATISTICS */

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        dump_requested = 1;
    else
        stop_requested = 1;
}

_Noreturn static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpls_push: ", stderr);
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

/* Frames the kernel could not put in the ring since the last call (reading resets them). */
static void add_kernel_drops(struct counters *c)
{
    struct tpacket_stats_v3 st;
    socklen_t len = sizeof(st);
    memset(&st, 0, sizeof(st));
    if (rx_stats_fd >= 0 && getsockopt(rx_stats_fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
        c->rx_kernel_drop += st.tp_drops;
}

static void print_counters(struct counters *c, const struct mpls_cfg *cfg)
{
    struct rusage ru;
    int v;
    add_kernel_drops(c);
    memset(&ru, 0, sizeof(ru));
    getrusage(RUSAGE_SELF, &ru);
    printf("{\"labels\": %u, \"mtu\": %u, \"rx\": %llu, \"rx_bytes\": %llu, \"tx\": %llu, "
           "\"tx_bytes\": %llu, \"tx_drop\": %llu, \"rx_kernel_drop\": %llu, "
           "\"rx_snap_trunc\": %llu, \"elapsed_s\": %.6f, \"busy_s\": %.6f, \"utime_s\": %.6f, "
           "\"stime_s\": %.6f, \"verdicts\": {",
           cfg->n, cfg->mtu, (unsigned long long)c->rx, (unsigned long long)c->rx_bytes,
           (unsigned long long)c->tx, (unsigned long long)c->tx_bytes,
           (unsigned long long)c->tx_drop, (unsigned long long)c->rx_kernel_drop,
           (unsigned long long)c->rx_snap_trunc, c->start_s > 0 ? now_s() - c->start_s : 0.0,
           c->busy_s, ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
           ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
    for (v = 0; v < MPLS_VERDICT_COUNT; v++)
        printf("%s\"%s\": %llu", v ? ", " : "", mpls_verdict_name((enum mpls_verdict)v),
               (unsigned long long)c->verdict[v]);
    printf("}}\n");
    fflush(stdout);
}

struct options {
    const char *in, *out, *pcap_in, *pcap_out, *verdict_log;
    struct mpls_cfg cfg;
    int mtu_given;
    uint64_t count;
    double timeout;
    int cpu, rt, busy;
    unsigned batch, block_kb, blocks;
};

/* ===== pcap mode ============================================================================= */

static uint32_t get32(const uint8_t *p, int swap)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? __builtin_bswap32(v) : v;
}

static void put32(uint8_t *p, uint32_t v, int swap)
{
    if (swap)
        v = __builtin_bswap32(v);
    memcpy(p, &v, 4);
}

static int run_pcap(const struct options *o)
{
    static uint8_t in[PCAP_MAX_FRAME], out[PCAP_MAX_FRAME + MPLS_HDR_MAX];
    uint8_t gh[24], rh[16];
    uint32_t magic;
    int swap;
    struct counters c;
    FILE *fi = fopen(o->pcap_in, "rb"), *fo, *log = NULL;

    if (!fi)
        die("%s: %s", o->pcap_in, strerror(errno));
    if (fread(gh, 1, 24, fi) != 24)
        die("%s: not a pcap file (too short)", o->pcap_in);
    memcpy(&magic, gh, 4);
    if (magic == 0xa1b2c3d4u || magic == 0xa1b23c4du)
        swap = 0;
    else if (magic == 0xd4c3b2a1u || magic == 0x4d3cb2a1u)
        swap = 1;
    else
        die("%s: not a classic pcap file (pcapng is not read)", o->pcap_in);
    if (get32(gh + 20, swap) != 1)
        die("%s: link type %u, not Ethernet (1)", o->pcap_in, get32(gh + 20, swap));
    fo = fopen(o->pcap_out, "wb");
    if (!fo)
        die("%s: %s", o->pcap_out, strerror(errno));
    if (o->verdict_log && !(log = fopen(o->verdict_log, "w")))
        die("%s: %s", o->verdict_log, strerror(errno));
    put32(gh + 16, PCAP_MAX_FRAME + MPLS_HDR_MAX, swap);  /* snaplen */
    if (fwrite(gh, 1, 24, fo) != 24)
        die("%s: write failed", o->pcap_out);

    memset(&c, 0, sizeof(c));
    c.start_s = now_s();
    for (;;) {
        size_t got = fread(rh, 1, 16, fi), len, n;
        enum mpls_verdict v;
        if (got == 0)
            break;
        if (got != 16)
            die("%s: truncated record header", o->pcap_in);
        len = get32(rh + 8, swap);
        if (len > PCAP_MAX_FRAME)
            die("%s: record of %zu bytes", o->pcap_in, len);
        if (fread(in, 1, len, fi) != len)
            die("%s: truncated record", o->pcap_in);
        c.rx++;
        c.rx_bytes += len;
        n = mpls_push(&o->cfg, in, len, out, sizeof(out), &v);
        c.verdict[v]++;
        if (log)
            fprintf(log, "%s\n", mpls_verdict_name(v));
        if (v != MPLS_PUSHED && v != MPLS_FORWARDED)
            continue;
        put32(rh + 8, (uint32_t)n, swap);
        put32(rh + 12, (uint32_t)n, swap);
        if (fwrite(rh, 1, 16, fo) != 16 || fwrite(out, 1, n, fo) != n)
            die("%s: write failed", o->pcap_out);
        c.tx++;
        c.tx_bytes += n;
    }
    fclose(fi);
    if (fclose(fo))
        die("%s: write failed", o->pcap_out);
    if (log)
        fclose(log);
    print_counters(&c, &o->cfg);
    return 0;
}

/* ===== live mode: AF_PACKET, TPACKET_V3 RX ring, sendmmsg TX ================================= */

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

static unsigned if_mtu(const char *name)
{
    struct ifreq ifr;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    unsigned mtu = 0;
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
    if (fd >= 0 && ioctl(fd, SIOCGIFMTU, &ifr) == 0)
        mtu = (unsigned)ifr.ifr_mtu;
    if (fd >= 0)
        close(fd);
    return mtu;
}

struct tx_batch {
    int fd;
    unsigned n;
    uint8_t hdr[MAX_BATCH][MPLS_HDR_MAX];
    struct iovec iov[MAX_BATCH][2];
    struct mmsghdr msg[MAX_BATCH];
};

static void tx_flush(struct tx_batch *t, struct counters *c)
{
    unsigned done = 0;
    int tries = 0;
    while (done < t->n) {
        int k = sendmmsg(t->fd, t->msg + done, t->n - done, 0);
        if (k < 0) {
            if ((errno == ENOBUFS || errno == EAGAIN || errno == EINTR) && ++tries < 100)
                continue;
            c->tx_drop++;  /* this frame cannot be sent (e.g. EMSGSIZE): skip it */
            done++;
            tries = 0;
            continue;
        }
        while (k-- > 0) {
            c->tx++;
            c->tx_bytes += t->msg[done].msg_len;
            done++;
        }
    }
    t->n = 0;
}

/* One received frame: data[0, len) as the ring holds it (outer VLAN tag taken off by the kernel
 * when tagged); queue the edited frame for sending. */
static void handle_frame(const struct options *o, struct tx_batch *t, struct counters *c,
                         const uint8_t *data, size_t len, int tagged, uint16_t tpid, uint16_t tci)
{
    uint8_t scratch[MPLS_PARSE_MAX];
    const uint8_t *head = data;
    size_t wire_len = len, head_len = len, hlen, cut, pcut;
    unsigned slot = t->n;
    enum mpls_verdict v;

    if (tagged && len >= 12) {  /* rebuild the wire frame's first bytes with the tag */
        size_t rest = len - 12;
        if (rest > MPLS_PARSE_MAX - 16)
            rest = MPLS_PARSE_MAX - 16;
        memcpy(scratch, data, 12);
        scratch[12] = (uint8_t)(tpid >> 8);
        scratch[13] = (uint8_t)tpid;
        scratch[14] = (uint8_t)(tci >> 8);
        scratch[15] = (uint8_t)tci;
        memcpy(scratch + 16, data + 12, rest);
        head = scratch;
        wire_len = len + 4;
        head_len = 16 + rest;
    } else {
        tagged = 0;
    }
    c->rx++;
    c->rx_bytes += wire_len;
    v = mpls_push_header(&o->cfg, head, head_len, wire_len, t->hdr[slot], &hlen, &cut);
    c->verdict[v]++;
    if (v == MPLS_FORWARDED) {
        if (tagged) {  /* the MACs and the tag from scratch, the rest from the ring */
            memcpy(t->hdr[slot], scratch, 16);
            hlen = cut = 16;
        } else {
            hlen = cut = 0;
        }
    } else if (v != MPLS_PUSHED) {
        return;
    }
    pcut = tagged ? cut - 4 : cut;  /* where the rest starts in the ring's copy */
    t->iov[slot][0].iov_base = t->hdr[slot];
    t->iov[slot][0].iov_len = hlen;
    t->iov[slot][1].iov_base = (void *)(data + pcut);
    t->iov[slot][1].iov_len = len - pcut;
    t->n++;
    if (t->n == o->batch)
        tx_flush(t, c);
}

static void run_live(const struct options *o, struct counters *c)
{
    static struct tx_batch tx;
    struct tpacket_req3 req;
    uint8_t *ring;
    size_t ring_len, block_size = (size_t)o->block_kb * 1024;
    unsigned next = 0, i;
    int in_if = (int)if_nametoindex(o->in), out_if = (int)if_nametoindex(o->out), rx_fd;
    double deadline;

    if (!in_if || !out_if)
        die("no such interface: %s", in_if ? o->out : o->in);
    if (in_if == out_if)
        die("IN and OUT must differ");

    tx.fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (tx.fd < 0)
        die("socket(AF_PACKET): %s", strerror(errno));
    set_int(tx.fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS", 0);
    set_int(tx.fd, SOL_SOCKET, SO_SNDBUF, 4 << 20, "SO_SNDBUF", 0);
    bind_packet(tx.fd, out_if, 0, o->out);
    for (i = 0; i < MAX_BATCH; i++) {
        memset(&tx.msg[i], 0, sizeof(tx.msg[i]));
        tx.msg[i].msg_hdr.msg_iov = tx.iov[i];
        tx.msg[i].msg_hdr.msg_iovlen = 2;
    }

    /* protocol 0 until the ring exists and the socket is bound: nothing arrives meanwhile */
    rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (rx_fd < 0)
        die("socket(AF_PACKET): %s", strerror(errno));
    set_int(rx_fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING", 0);
    set_int(rx_fd, SOL_PACKET, PACKET_VERSION, TPACKET_V3, "PACKET_VERSION", 1);
    memset(&req, 0, sizeof(req));
    req.tp_block_size = (unsigned)block_size;
    req.tp_frame_size = 2048;
    req.tp_block_nr = o->blocks;
    req.tp_frame_nr = req.tp_block_nr * (req.tp_block_size / req.tp_frame_size);
    req.tp_retire_blk_tov = 1;  /* ms: hand over a partly filled block after that long */
    if (setsockopt(rx_fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
        die("PACKET_RX_RING (TPACKET_V3, %u x %u KiB): %s", o->blocks, o->block_kb,
            strerror(errno));
    ring_len = block_size * o->blocks;
    ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rx_fd, 0);
    if (ring == MAP_FAILED)
        die("mmap(PACKET_RX_RING): %s", strerror(errno));
    bind_packet(rx_fd, in_if, ETH_P_ALL, o->in);
    rx_stats_fd = rx_fd;
    add_kernel_drops(c);  /* start from zero */
    c->rx_kernel_drop = 0;

    printf("ready in=%s out=%s labels=%u mtu=%u poll=%s\n", o->in, o->out, o->cfg.n, o->cfg.mtu,
           o->busy ? "busy" : "block");
    fflush(stdout);
    c->start_s = now_s();
    deadline = o->timeout > 0 ? c->start_s + o->timeout : 0;

    while (!stop_requested && !(o->count && c->rx >= o->count)) {
        struct tpacket_block_desc *b = (void *)(ring + (size_t)next * block_size);
        uint32_t st = __atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE);
        double now;
        if (st & TP_STATUS_USER) {
            double t0 = now_s();
            struct tpacket3_hdr *h = (void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
            uint32_t k, npkts = b->hdr.bh1.num_pkts;
            for (k = 0; k < npkts; k++) {
                if (h->tp_snaplen != h->tp_len) {
                    c->rx_snap_trunc++;
                } else {
                    int tagged = !!(h->tp_status & TP_STATUS_VLAN_VALID);
                    uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID)
                                        ? h->hv1.tp_vlan_tpid : ETH_P_8021Q;
                    handle_frame(o, &tx, c, (uint8_t *)h + h->tp_mac, h->tp_snaplen, tagged, tpid,
                                 (uint16_t)h->hv1.tp_vlan_tci);
                }
                h = (void *)((uint8_t *)h + h->tp_next_offset);
            }
            if (tx.n)
                tx_flush(&tx, c);  /* before the block (which holds the payloads) goes back */
            __atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            next = (next + 1) % o->blocks;
            now = now_s();
            c->busy_s += now - t0;
        } else {
            now = now_s();
            if (!o->busy) {
                struct pollfd p;
                p.fd = rx_fd;
                p.events = POLLIN | POLLERR;
                p.revents = 0;
                poll(&p, 1, 10);
            }
        }
        if (dump_requested) {
            dump_requested = 0;
            print_counters(c, &o->cfg);
        }
        if (deadline && now > deadline)
            break;
    }
    if (tx.n)
        tx_flush(&tx, c);
    add_kernel_drops(c);
    rx_stats_fd = -1;
    munmap(ring, ring_len);
    close(rx_fd);
    close(tx.fd);
}

/* ===== main ================================================================================== */

_Noreturn static void usage(void)
{
    fprintf(stderr,
            "usage: mpls_push -i IN -o OUT --labels L[/TC][,...]|none [--ttl ip|N] [--mtu N]\n"
            "                 [--busy] [--count N] [--timeout S] [--cpu N] [--rt PRIO]\n"
            "                 [--batch N] [--block-kb KB] [--blocks N]\n"
            "       mpls_push --pcap-in IN.pcap --pcap-out OUT.pcap --labels ... [--ttl ip|N]\n"
            "                 [--mtu N] [--verdict-log FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    struct options o;
    struct counters c;
    struct sigaction sa;
    const char *labels = NULL;
    char err[200];
    int a;

    memset(&o, 0, sizeof(o));
    o.cpu = -1;
    o.batch = 32;
    o.block_kb = 256;
    o.blocks = 64;
    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(arg, "-h") || !strcmp(arg, "--help"))
            usage();
        if (!strcmp(arg, "--busy")) {
            o.busy = 1;
            continue;
        }
        if (!val)
            usage();
        a++;
        if (!strcmp(arg, "-i")) o.in = val;
        else if (!strcmp(arg, "-o")) o.out = val;
        else if (!strcmp(arg, "--pcap-in")) o.pcap_in = val;
        else if (!strcmp(arg, "--pcap-out")) o.pcap_out = val;
        else if (!strcmp(arg, "--verdict-log")) o.verdict_log = val;
        else if (!strcmp(arg, "--labels")) labels = val;
        else if (!strcmp(arg, "--ttl")) {
            if (!strcmp(val, "ip"))
                o.cfg.ttl = 0;
            else if (atoi(val) >= 1 && atoi(val) <= 255)
                o.cfg.ttl = (uint8_t)atoi(val);
            else
                die("--ttl must be ip or 1..255");
        }
        else if (!strcmp(arg, "--mtu")) { o.cfg.mtu = (uint32_t)strtoul(val, NULL, 0); o.mtu_given = 1; }
        else if (!strcmp(arg, "--count")) o.count = strtoull(val, NULL, 0);
        else if (!strcmp(arg, "--timeout")) o.timeout = atof(val);
        else if (!strcmp(arg, "--cpu")) o.cpu = atoi(val);
        else if (!strcmp(arg, "--rt")) o.rt = atoi(val);
        else if (!strcmp(arg, "--batch")) o.batch = (unsigned)atoi(val);
        else if (!strcmp(arg, "--block-kb")) o.block_kb = (unsigned)atoi(val);
        else if (!strcmp(arg, "--blocks")) o.blocks = (unsigned)atoi(val);
        else usage();
    }
    if (!labels)
        die("--labels is required (\"none\" for plain forwarding)");
    if (mpls_cfg_parse_labels(&o.cfg, labels, err, sizeof(err)))
        die("--labels: %s", err);
    if (o.batch < 1 || o.batch > MAX_BATCH)
        die("--batch must be 1..%u", MAX_BATCH);
    if (o.block_kb < 16 || o.block_kb > 65536 || (o.block_kb & (o.block_kb - 1)) || o.blocks < 2)
        die("--block-kb must be a power of two in 16..65536, --blocks at least 2");

    if (o.pcap_in || o.pcap_out) {
        if (!o.pcap_in || !o.pcap_out || o.in || o.out)
            usage();
        return run_pcap(&o);
    }
    if (!o.in || !o.out)
        usage();
    if (!o.mtu_given)
        o.cfg.mtu = if_mtu(o.out);
    if (o.cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(o.cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set))
            fprintf(stderr, "mpls_push: cannot pin to CPU %d: %s\n", o.cpu, strerror(errno));
    }
    if (o.rt > 0) {
        struct sched_param sp;
        memset(&sp, 0, sizeof(sp));
        sp.sched_priority = o.rt;
        if (sched_setscheduler(0, SCHED_FIFO, &sp))
            fprintf(stderr, "mpls_push: cannot use SCHED_FIFO %d: %s\n", o.rt, strerror(errno));
        mlockall(MCL_CURRENT | MCL_FUTURE);
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);

    memset(&c, 0, sizeof(c));
    run_live(&o, &c);
    print_counters(&c, &o.cfg);
    return 0;
}
