/*
 * mpls_bench: traffic source and sink for the SR-MPLS push benchmark (p4/bench_sw.py).
 *
 * One single-threaded process holds two AF_PACKET sockets: a sender on -t TX_IF (in the network
 * namespace it was started in) and a sink on -r RX_IF, which may live in another namespace
 * (--rx-netns NAME, entered with setns() only to open the socket). It sends IPv4 frames of
 * --size bytes (without FCS: 60, 1514, 8996 are 64, 1518, 9000 bytes on a wire) as fast as it can
 * (or at --rate frames/s) for --duration seconds, in sendmmsg() batches on a socket that bypasses
 * the qdisc, and between batches drains the sink's TPACKET_V3 ring, so sending and receiving
 * share one CPU and one clock.
 *
 * Frames: Ethernet 02:00:00:00:00:01 -> 02:00:00:00:00:02 / IPv4 198.18.0.1 -> 198.18.0.2
 * (RFC 2544's benchmarking range), TTL 64, DF, protocol 253 (RFC 3692 experimental) / payload:
 * run id (u32), sequence number (u32), then a byte pattern. The sink expects each frame as the
 * forwarder should deliver it: the sent frame put through mpls_edit with the same --labels and
 * --ttl (mpls_push's), or the frame as sent with --labels none (plain forwarding, or no forwarder
 * at all). A frame of this run is "good" when its length, its headers (everything before the
 * sequence number), its last 8 bytes and its sequence number's range are right (--full-check:
 * every byte), "bad" otherwise; frames of other runs or of other kinds are "other".
 *
 *   mpls_bench -t TX_IF -r RX_IF [--rx-netns NAME] --size BYTES [--labels SPEC|none]
 *              [--ttl ip|N] [--duration S] [--rate PPS] [--batch N] [--drain-ms MS]
 *              [--cpu N] [--rt PRIO] [--full-check]
 *   mpls_bench --edit-only --size BYTES --labels SPEC [--duration S]
 *
 * --edit-only times the edit alone, no I/O: mpls_push_header() (what mpls_push does per frame)
 * and the copying mpls_push() on the bench's frame, in a loop for --duration seconds, and prints
 * {"edit_ns": ..., "edit_copy_ns": ...} (nanoseconds per frame).
 *
 * Prints one line of JSON: frames sent, received (good, bad, other), lost (sent - good), sequence
 * numbers seen out of order (reordered) and gaps in them (losses), the sink ring's kernel drops,
 * the sending time, the offered rate, the delivered rate over the whole run and in the steady
 * state (frames received between 20 % of the sending time and its end), and this process's CPU
 * time.
 */
#include "mpls_edit.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BATCH 64u
#define MAX_SIZE 9600u
#define SEQ_OFF (14u + 20u + 4u)   /* sequence number in the sent frame */
#define RING_BLOCK (1u << 20)
#define RING_BLOCKS 64u

_Noreturn static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "mpls_bench: ");
    fprintf(stderr, fmt, arg, strerror(errno));
    fputc('\n', stderr);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void wr16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v >> 16); wr16(p + 2, v & 0xFFFF); }
static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void build_frame(uint8_t *f, size_t size, uint32_t run)
{
    static const uint8_t dst[6] = {2, 0, 0, 0, 0, 2}, src[6] = {2, 0, 0, 0, 0, 1};
    uint8_t *ip = f + 14;
    uint32_t sum = 0;
    size_t i;
    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    wr16(f + 12, 0x0800);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    wr16(ip + 2, (unsigned)(size - 14));
    wr16(ip + 6, 0x4000);  /* DF */
    ip[8] = 64;
    ip[9] = 253;
    wr32(ip + 12, 0xC6120001u);  /* 198.18.0.1 */
    wr32(ip + 16, 0xC6120002u);  /* 198.18.0.2 */
    for (i = 0; i < 20; i += 2)
        sum += ((uint32_t)ip[i] << 8) | ip[i + 1];
    while (sum >> 16)
        sum = (sum & 0xFFFF) + (sum >> 16);
    wr16(ip + 10, ~sum & 0xFFFF);
    wr32(f + 34, run);
    wr32(f + SEQ_OFF, 0);
    for (i = SEQ_OFF + 4; i < size; i++)
        f[i] = (uint8_t)(i * 7 + 3);
}

struct sink {
    int fd;
    uint8_t *ring;
    unsigned next;
    const uint8_t *want;   /* the expected frame (sequence number 0) */
    size_t want_len, seq_off;
    uint32_t run;
    int full_check;
    uint64_t good, bad, other, reordered, gaps;
    uint32_t next_seq;
    double first_rx, last_rx;
};

static void sink_open(struct sink *s, const char *ifname, const char *netns)
{
    struct tpacket_req3 req;
    struct sockaddr_ll sll;
    int here = -1, ifindex, ver = TPACKET_V3, one = 1;

    if (netns) {
        char path[256];
        int there;
        snprintf(path, sizeof(path), "/var/run/netns/%s", netns);
        here = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
        there = open(path, O_RDONLY | O_CLOEXEC);
        if (here < 0 || there < 0 || setns(there, CLONE_NEWNET))
            die("setns %s: %s", netns);
        close(there);
    }
    ifindex = (int)if_nametoindex(ifname);
    if (!ifindex)
        die("no interface %s: %s", ifname);
    s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (s->fd < 0)
        die("socket(AF_PACKET) for %s: %s", ifname);
    setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &ver, sizeof(ver)))
        die("PACKET_VERSION on %s: %s", ifname);
    memset(&req, 0, sizeof(req));
    req.tp_block_size = RING_BLOCK;
    req.tp_frame_size = 2048;
    req.tp_block_nr = RING_BLOCKS;
    req.tp_frame_nr = RING_BLOCKS * (RING_BLOCK / 2048);
    req.tp_retire_blk_tov = 1;
    if (setsockopt(s->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
        die("PACKET_RX_RING on %s: %s", ifname);
    s->ring = mmap(NULL, (size_t)RING_BLOCK * RING_BLOCKS, PROT_READ | PROT_WRITE,
                   MAP_SHARED | MAP_POPULATE, s->fd, 0);
    if (s->ring == MAP_FAILED)
        die("mmap ring on %s: %s", ifname);
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = ifindex;
    if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind %s: %s", ifname);
    if (netns) {
        if (setns(here, CLONE_NEWNET))
            die("setns back from %s: %s", netns);
        close(here);
    }
}

static void sink_frame(struct sink *s, const uint8_t *f, size_t len)
{
    uint32_t seq;
    if (len < s->seq_off + 4 || len != s->want_len || rd32(f + s->seq_off - 4) != s->run) {
        s->other++;
        return;
    }
    seq = rd32(f + s->seq_off);
    if (memcmp(f, s->want, s->seq_off) ||
        memcmp(f + len - 8, s->want + len - 8, 8) ||
        (s->full_check && memcmp(f + s->seq_off + 4, s->want + s->seq_off + 4,
                                 len - s->seq_off - 4))) {
        s->bad++;
        return;
    }
    if (seq < s->next_seq) {
        s->reordered++;
    } else {
        s->gaps += seq != s->next_seq;
        s->next_seq = seq + 1;
    }
    s->good++;
}

/* Drain every ready block; returns the frames seen. */
static unsigned sink_poll(struct sink *s)
{
    unsigned seen = 0;
    for (;;) {
        struct tpacket_block_desc *b = (void *)(s->ring + (size_t)s->next * RING_BLOCK);
        struct tpacket3_hdr *h;
        uint32_t k;
        if (!(__atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
            return seen;
        h = (void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
        for (k = 0; k < b->hdr.bh1.num_pkts; k++) {
            sink_frame(s, (uint8_t *)h + h->tp_mac, h->tp_snaplen);
            h = (void *)((uint8_t *)h + h->tp_next_offset);
        }
        seen += b->hdr.bh1.num_pkts;
        __atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        s->next = (s->next + 1) % RING_BLOCKS;
        if (seen) {
            double t = now_s();
            if (!s->first_rx)
                s->first_rx = t;
            s->last_rx = t;
        }
    }
}

/* The edit alone: ns per frame of mpls_push_header() and of mpls_push(). */
static int time_edit(const struct mpls_cfg *cfg, size_t size, double duration)
{
    static uint8_t f[MAX_SIZE], out[MAX_SIZE + MPLS_HDR_MAX];
    uint8_t hdr[MPLS_HDR_MAX];
    volatile size_t keep = 0;
    double ns[2];
    int pass;
    build_frame(f, size, 1);
    for (pass = 0; pass < 2; pass++) {
        uint64_t n = 0, k;
        double t0 = now_s(), t;
        do {
            for (k = 0; k < 1000; k++) {
                size_t hlen, cut;
                enum mpls_verdict v;
                f[22] = (uint8_t)k;  /* the TTL: a new frame each time, as far as the edit knows */
                if (pass == 0) {
                    mpls_push_header(cfg, f, size, size, hdr, &hlen, &cut);
                    keep += hlen + hdr[hlen - 1];
                } else {
                    keep += mpls_push(cfg, f, size, out, sizeof(out), &v);
                }
            }
            n += 1000;
            t = now_s();
        } while (t - t0 < duration);
        ns[pass] = (t - t0) / (double)n * 1e9;
    }
    printf("{\"size\": %zu, \"labels\": %u, \"edit_ns\": %.2f, \"edit_copy_ns\": %.2f}\n", size,
           cfg->n, ns[0], ns[1]);
    return keep == 0;  /* never 0: the header is there */
}

_Noreturn static void usage(void)
{
    fprintf(stderr,
            "usage: mpls_bench -t TX_IF -r RX_IF [--rx-netns NAME] --size BYTES\n"
            "                  [--labels SPEC|none] [--ttl ip|N] [--duration S] [--rate PPS]\n"
            "                  [--batch N] [--drain-ms MS] [--cpu N] [--rt PRIO] [--full-check]\n"
            "       mpls_bench --edit-only --size BYTES --labels SPEC [--duration S]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static uint8_t frames[MAX_BATCH][MAX_SIZE], want[MAX_SIZE + MPLS_HDR_MAX];
    static struct iovec iov[MAX_BATCH];
    static struct mmsghdr msg[MAX_BATCH];
    const char *tx_if = NULL, *rx_if = NULL, *rx_netns = NULL, *labels = "none";
    struct mpls_cfg cfg;
    struct sink s;
    struct sockaddr_ll sll;
    struct rusage ru;
    enum mpls_verdict v;
    size_t size = 0;
    double duration = 1.0, rate = 0, drain_ms = 200, t0, t_warm, t_end, next_due;
    unsigned batch = 64, i;
    int cpu = -1, rt = 0, a, tx_fd, one = 1, warm_taken = 0, edit_only = 0;
    uint64_t sent = 0, good_at_warm = 0, good_at_end = 0, send_fail = 0;
    uint32_t run;
    char err[200];

    memset(&cfg, 0, sizeof(cfg));
    memset(&s, 0, sizeof(s));
    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(arg, "--full-check")) {
            s.full_check = 1;
            continue;
        }
        if (!strcmp(arg, "--edit-only")) {
            edit_only = 1;
            continue;
        }
        if (!val)
            usage();
        a++;
        if (!strcmp(arg, "-t")) tx_if = val;
        else if (!strcmp(arg, "-r")) rx_if = val;
        else if (!strcmp(arg, "--rx-netns")) rx_netns = val;
        else if (!strcmp(arg, "--size")) size = strtoul(val, NULL, 0);
        else if (!strcmp(arg, "--labels")) labels = val;
        else if (!strcmp(arg, "--ttl")) cfg.ttl = (uint8_t)(strcmp(val, "ip") ? atoi(val) : 0);
        else if (!strcmp(arg, "--duration")) duration = atof(val);
        else if (!strcmp(arg, "--rate")) rate = atof(val);
        else if (!strcmp(arg, "--batch")) batch = (unsigned)atoi(val);
        else if (!strcmp(arg, "--drain-ms")) drain_ms = atof(val);
        else if (!strcmp(arg, "--cpu")) cpu = atoi(val);
        else if (!strcmp(arg, "--rt")) rt = atoi(val);
        else usage();
    }
    if (edit_only) {
        if (size < SEQ_OFF + 12 || size > MAX_SIZE ||
            mpls_cfg_parse_labels(&cfg, labels, err, sizeof(err)) || cfg.n == 0)
            usage();
        return time_edit(&cfg, size, duration);
    }
    if (!tx_if || !rx_if || size < SEQ_OFF + 12 || size > MAX_SIZE || batch < 1 ||
        batch > MAX_BATCH || duration <= 0)
        usage();
    if (mpls_cfg_parse_labels(&cfg, labels, err, sizeof(err))) {
        errno = EINVAL;
        die("--labels: %s (%s)", err);
    }
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    if (rt > 0) {
        struct sched_param sp;
        memset(&sp, 0, sizeof(sp));
        sp.sched_priority = rt;
        if (sched_setscheduler(0, SCHED_FIFO, &sp))
            fprintf(stderr, "mpls_bench: cannot use SCHED_FIFO: %s\n", strerror(errno));
    }

    run = (uint32_t)(now_s() * 1e6) ^ ((uint32_t)getpid() << 16);
    for (i = 0; i < batch; i++) {
        build_frame(frames[i], size, run);
        iov[i].iov_base = frames[i];
        iov[i].iov_len = size;
        memset(&msg[i], 0, sizeof(msg[i]));
        msg[i].msg_hdr.msg_iov = &iov[i];
        msg[i].msg_hdr.msg_iovlen = 1;
    }
    s.want_len = mpls_push(&cfg, frames[0], size, want, sizeof(want), &v);
    if (!s.want_len) {
        errno = EINVAL;
        die("the template frame is not pushed: %s (%s)", mpls_verdict_name(v));
    }
    s.want = want;
    s.seq_off = SEQ_OFF + (s.want_len - size);
    s.run = run;
    sink_open(&s, rx_if, rx_netns);

    tx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (tx_fd < 0)
        die("socket(AF_PACKET) for %s: %s", tx_if);
    setsockopt(tx_fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = (int)if_nametoindex(tx_if);
    if (!sll.sll_ifindex || bind(tx_fd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind %s: %s", tx_if);

    t0 = next_due = now_s();
    t_warm = t0 + 0.2 * duration;
    t_end = t0 + duration;
    for (;;) {
        double now = now_s();
        int k;
        if (now >= t_end)
            break;
        if (!warm_taken && now >= t_warm) {
            good_at_warm = s.good;
            warm_taken = 1;
        }
        if (rate > 0 && now < next_due) {
            sink_poll(&s);
            continue;
        }
        for (i = 0; i < batch; i++)
            wr32(frames[i] + SEQ_OFF, (uint32_t)(sent + i));
        k = sendmmsg(tx_fd, msg, batch, 0);
        if (k < 0) {
            if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR)
                die("sendmmsg on %s: %s", tx_if);
            send_fail++;
            k = 0;
        }
        sent += (unsigned)k;  /* what was not sent goes out next round, numbered anew */
        if (rate > 0)
            next_due += batch / rate;
        sink_poll(&s);
    }
    t_end = now_s();
    good_at_end = s.good;
    {
        double until = t_end + drain_ms * 1e-3, last = t_end;
        for (;;) {
            double now = now_s();
            if (sink_poll(&s))
                last = now;
            if (s.good + s.bad >= sent || now > until || now - last > 0.05)
                break;
        }
    }
    {
        struct tpacket_stats_v3 st;
        socklen_t len = sizeof(st);
        memset(&st, 0, sizeof(st));
        getsockopt(s.fd, SOL_PACKET, PACKET_STATISTICS, &st, &len);
        memset(&ru, 0, sizeof(ru));
        getrusage(RUSAGE_SELF, &ru);
        printf("{\"size\": %zu, \"out_size\": %zu, \"labels\": %u, \"sent\": %llu, "
               "\"received\": %llu, \"good\": %llu, \"bad\": %llu, \"other\": %llu, "
               "\"lost\": %lld, \"reordered\": %llu, \"gaps\": %llu, \"sink_kernel_drop\": %u, "
               "\"send_fail\": %llu, \"send_seconds\": %.6f, \"tx_pps\": %.1f, "
               "\"rx_pps\": %.1f, \"rx_pps_steady\": %.1f, \"utime_s\": %.6f, "
               "\"stime_s\": %.6f}\n",
               size, s.want_len, cfg.n, (unsigned long long)sent,
               (unsigned long long)(s.good + s.bad + s.other), (unsigned long long)s.good,
               (unsigned long long)s.bad, (unsigned long long)s.other,
               (long long)sent - (long long)s.good, (unsigned long long)s.reordered,
               (unsigned long long)s.gaps,
               st.tp_drops, (unsigned long long)send_fail, t_end - t0, sent / (t_end - t0),
               s.last_rx > t0 ? s.good / (s.last_rx - t0) : 0.0,
               (good_at_end - good_at_warm) / (t_end - t_warm),
               ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
               ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
    }
    return 0;
}
