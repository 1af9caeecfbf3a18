/*
 * gre_bench_sender: traffic source and sink for the GRE forwarder benchmark.
 *
 * One single-threaded process holds two AF_PACKET sockets: a sender on -t TX_IF (in the
 * network namespace it was started in) and a sink on -r RX_IF, which may live in another
 * namespace (--rx-netns NAME, entered with setns() just to open the socket). Because both ends
 * are one process on one host clock, the per-packet latency is simply
 *
 *     latency = (time the sink sees the frame) - (TX timestamp the sender wrote into it)
 *
 * both read from CLOCK_MONOTONIC (--clock tai: CLOCK_TAI) in fastpath's fp_time format (Q48.16
 * nanoseconds, docs/architecture.md). The TX timestamp is taken immediately before the send
 * system call; the receive time immediately after the frame shows up in the sink's
 * memory-mapped TPACKET_V2 ring, which the loop polls between sends (busy-poll, no sleeping).
 *
 * Frames (default --size 88: 92 bytes on the wire with the FCS, the seed paper's size):
 *   outer Ethernet / IPv4 (proto 47) / GRE v0 (4 bytes, protocol 0x6558) / inner frame
 *   inner frame = Ethernet / IPv4 (protocol 253, RFC 3692 experimental) / payload:
 *       run id (u32) | sequence number (u32) | TX fp_time (u64) | pattern ..., big-endian
 * With --plain the inner frame is sent as it is (no GRE): the calibration path, where the sink
 * is expected to get exactly what was sent.
 *
 * The sink accepts only frames equal to the expected inner frame for this run (any other frame
 * is counted as "other"; a frame of this run whose bytes differ is "bad"); it counts
 * duplicates and reordering by sequence number.
 *
 *   gre_bench_sender -t TX_IF -r RX_IF [--rx-netns NAME] [--rate PPS] [--count N | --duration S]
 *                    [--size BYTES] [--plain] [--warmup N] [--drain-ms MS] [--batch N]
 *                    [--cpu N] [--rt PRIO] [--yield-us US] [--clock mono|tai] [--max-seconds S]
 * --rate 0 sends as fast as it can. --batch 1 sends one frame per system call and never two
 * back to back: a send that comes late moves the schedule instead of catching up (for latency
 * runs, where a burst would measure queueing). --cpu / --rt: pin to a CPU / run SCHED_FIFO
 * (see gre_fwd). --yield-us US lets ordinary tasks run for US us in every millisecond: the loop
 * blocks in ppoll() on the sink only while no frame is in flight (all came back, or the last
 * one left more than 1 ms ago) and the next one is due in more than 30 us, and wakes 20 us
 * before that send, so resting never delays a frame or a measurement. At rates above ~30,000
 * frames/s there is no such moment and it never rests; after the last frame it rests freely.
 * Prints one line of JSON with the results.
 */
#include "fastpath/fp_time.h"
#include "gre_parse.h"

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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_SIZE 2048u
#define MAX_BATCH 64u
#define RING_BLOCK (1u << 16)
#define RING_BLOCKS 64u
#define OUTER_HDR 38u           /* Ethernet 14 + IPv4 20 + GRE 4 */
#define INNER_HDR 34u           /* Ethernet 14 + IPv4 20 */
#define PAYLOAD_MIN 16u
#define IPPROTO_EXPERIMENT 253

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "gre_bench_sender: ");
    fprintf(stderr, fmt, arg, strerror(errno));
    fputc('\n', stderr);
    exit(1);
}

static void wr16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v >> 16); wr16(p + 2, v & 0xFFFF); }
static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* An Ethernet / IPv4 header pair at f (addresses from 02:00:00:00:00:xx, 198.18.0.x). */
static void eth_ipv4(uint8_t *f, uint8_t mac_last, unsigned total, uint8_t proto, uint8_t ip_last)
{
    static const uint8_t mac[6] = {0x02, 0x00, 0x00, 0x00, 0x00, 0x00};
    uint8_t *ip = f + 14;
    memcpy(f, mac, 6);
    f[5] = mac_last;
    memcpy(f + 6, mac, 6);
    f[11] = (uint8_t)(mac_last + 1);
    wr16(f + 12, 0x0800);
    memset(ip, 0, 20);
    ip[0] = 0x45;
    wr16(ip + 2, total);
    wr16(ip + 6, 0x4000);  /* DF */
    ip[8] = 64;
    ip[9] = proto;
    wr32(ip + 12, 0xC6120000u | ip_last);         /* 198.18.0.x: benchmarking range */
    wr32(ip + 16, 0xC6120000u | (ip_last + 1u));
    wr16(ip + 10, gre_inet_csum(ip, 20));
}

struct frames {
    uint8_t outer[FRAME_SIZE], inner[FRAME_SIZE];
    size_t outer_len, inner_len;
    uint32_t run_id;
};

static void build_frames(struct frames *t, size_t size, int plain)
{
    size_t i, inner = plain ? size : size - OUTER_HDR;
    uint8_t *payload = t->inner + INNER_HDR;
    t->inner_len = inner;
    eth_ipv4(t->inner, 0x04, (unsigned)(inner - 14), IPPROTO_EXPERIMENT, 3);
    wr32(payload, t->run_id);
    for (i = PAYLOAD_MIN; i < inner - INNER_HDR; i++)
        payload[i] = (uint8_t)(i * 13 + 5);
    t->outer_len = OUTER_HDR + inner;
    eth_ipv4(t->outer, 0x02, (unsigned)(t->outer_len - 14), 47, 1);
    wr16(t->outer + 34, 0x0000);
    wr16(t->outer + 36, 0x6558);
    memcpy(t->outer + OUTER_HDR, t->inner, inner);
}

/* ---- sink: TPACKET_V2 ring ---------------------------------------------------------------- */

struct sink {
    int fd;
    uint8_t *ring;
    size_t ring_len;
    unsigned frames, next;
};

static int open_netns(const char *name)
{
    char path[512];
    int fd;
    if (strchr(name, '/'))
        snprintf(path, sizeof(path), "%s", name);
    else
        snprintf(path, sizeof(path), "/var/run/netns/%s", name);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        die("open %s: %s", path);
    return fd;
}

static void sink_open(struct sink *s, const char *ifname, const char *netns)
{
    struct tpacket_req req;
    struct sockaddr_ll sll;
    int v = TPACKET_V2, one = 1, here = -1, there = -1, ifindex;

    if (netns) {
        here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        there = open_netns(netns);
        if (here < 0 || setns(there, CLONE_NEWNET))
            die("setns %s: %s", netns);
    }
    ifindex = (int)if_nametoindex(ifname);
    if (!ifindex)
        die("no interface %s: %s", ifname);
    s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (s->fd < 0)
        die("socket(AF_PACKET) for %s: %s", ifname);
    setsockopt(s->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
    if (setsockopt(s->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
        die("PACKET_VERSION on %s: %s", ifname);
    memset(&req, 0, sizeof(req));
    req.tp_block_size = RING_BLOCK;
    req.tp_block_nr = RING_BLOCKS;
    req.tp_frame_size = FRAME_SIZE;
    req.tp_frame_nr = RING_BLOCKS * (RING_BLOCK / FRAME_SIZE);
    if (setsockopt(s->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
        die("PACKET_RX_RING on %s: %s", ifname);
    s->frames = req.tp_frame_nr;
    s->ring_len = (size_t)RING_BLOCK * RING_BLOCKS;
    s->ring = mmap(NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, s->fd, 0);
    if (s->ring == MAP_FAILED)
        die("mmap ring on %s: %s", ifname);
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(ETH_P_ALL);
    sll.sll_ifindex = ifindex;
    if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind %s: %s", ifname);
    s->next = 0;
    if (netns) {
        if (setns(here, CLONE_NEWNET))
            die("setns back from %s: %s", netns);
        close(here);
        close(there);
    }
}

/* ---- results ------------------------------------------------------------------------------- */

struct stats {
    uint64_t sent, received, bad, other, dup, reordered, tx_errors;
    uint64_t max_seq_seen;
    uint8_t *seen;          /* one byte per sequence number */
    double *lat_ns;         /* latencies of measured (non-warm-up) frames */
    size_t nlat, caplat;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* nearest-rank percentile of a sorted array */
static double pct(const double *v, size_t n, double q)
{
    size_t k;
    if (!n)
        return 0;
    k = (size_t)(q * (double)n + 0.999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return v[k - 1];
}

static void sink_poll(struct sink *s, const struct frames *t, struct stats *st, uint64_t warmup,
                      clockid_t clock, unsigned max)
{
    unsigned k;
    for (k = 0; k < max; k++) {
        struct tpacket2_hdr *h = (void *)(s->ring + (size_t)s->next * FRAME_SIZE);
        const uint8_t *d;
        uint32_t seq;
        fp_time rx, tx;
        if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER))
            return;
        rx = fp_time_now(clock);
        d = (const uint8_t *)h + h->tp_mac;
        if (h->tp_snaplen != t->inner_len || rd32(d + INNER_HDR) != t->run_id ||
            memcmp(d, t->inner, INNER_HDR) != 0) {
            st->other++;
        } else if (memcmp(d + INNER_HDR + PAYLOAD_MIN, t->inner + INNER_HDR + PAYLOAD_MIN,
                          t->inner_len - INNER_HDR - PAYLOAD_MIN) != 0 ||
                   (seq = rd32(d + INNER_HDR + 4)) >= st->sent) {
            st->bad++;
        } else if (st->seen[seq]) {
            st->dup++;
        } else {
            st->seen[seq] = 1;
            st->received++;
            if (seq < st->max_seq_seen)
                st->reordered++;
            else
                st->max_seq_seen = seq;
            tx = fp_time_get_be(d + INNER_HDR + 8);
            if (seq >= warmup) {
                if (st->nlat == st->caplat) {
                    st->caplat = st->caplat ? 2 * st->caplat : 1u << 16;
                    st->lat_ns = realloc(st->lat_ns, st->caplat * sizeof(double));
                    if (!st->lat_ns)
                        die("out of memory%s: %s", "");
                }
                st->lat_ns[st->nlat++] = fp_time_to_ns(rx - tx);
            }
        }
        __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        s->next = (s->next + 1) % s->frames;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: gre_bench_sender -t TX_IF -r RX_IF [--rx-netns NAME] [--rate PPS]\n"
            "         [--count N | --duration S] [--size BYTES] [--plain] [--warmup N]\n"
            "         [--drain-ms MS] [--batch N] [--cpu N] [--rt PRIO] [--yield-us US]\n"
            "         [--clock mono|tai] [--max-seconds S]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static struct frames t;
    static uint8_t buf[MAX_BATCH][FRAME_SIZE];
    static struct iovec iov[MAX_BATCH];
    static struct mmsghdr msg[MAX_BATCH];
    const char *tx_if = NULL, *rx_if = NULL, *rx_netns = NULL;
    double rate = 1000, duration = 0, max_seconds = 60, drain_ms = 50, yield_s = 0;
    uint64_t count = 0, warmup = 0, limit, i;
    size_t size = 88;
    unsigned batch = 32;
    int plain = 0, cpu = -1, rt = 0, a, txfd, one = 1, sndbuf = 4 << 20;
    clockid_t clock = CLOCK_MONOTONIC;
    struct sockaddr_ll sll;
    struct sink sink;
    struct stats st;
    double t0, t_end_send = 0, elapsed;
    struct tpacket_stats kst;
    socklen_t klen = sizeof(kst);

    for (a = 1; a < argc; a++) {
        const char *arg = argv[a], *val = a + 1 < argc ? argv[a + 1] : NULL;
        if (!strcmp(arg, "--plain")) { plain = 1; continue; }
        if (!val)
            usage();
        a++;
        if (!strcmp(arg, "-t")) tx_if = val;
        else if (!strcmp(arg, "-r")) rx_if = val;
        else if (!strcmp(arg, "--rx-netns")) rx_netns = val;
        else if (!strcmp(arg, "--rate")) rate = atof(val);
        else if (!strcmp(arg, "--count")) count = strtoull(val, NULL, 0);
        else if (!strcmp(arg, "--duration")) duration = atof(val);
        else if (!strcmp(arg, "--size")) size = (size_t)atoi(val);
        else if (!strcmp(arg, "--warmup")) warmup = strtoull(val, NULL, 0);
        else if (!strcmp(arg, "--drain-ms")) drain_ms = atof(val);
        else if (!strcmp(arg, "--batch")) batch = (unsigned)atoi(val);
        else if (!strcmp(arg, "--cpu")) cpu = atoi(val);
        else if (!strcmp(arg, "--rt")) rt = atoi(val);
        else if (!strcmp(arg, "--yield-us")) yield_s = atof(val) * 1e-6;
        else if (!strcmp(arg, "--max-seconds")) max_seconds = atof(val);
        else if (!strcmp(arg, "--clock")) clock = !strcmp(val, "tai") ? CLOCK_TAI : CLOCK_MONOTONIC;
        else usage();
    }
    if (!tx_if || !rx_if || (!count && duration <= 0) || batch < 1 || batch > MAX_BATCH)
        usage();
    if (size < (plain ? 0u : OUTER_HDR) + INNER_HDR + PAYLOAD_MIN || size > 1514) {
        fprintf(stderr, "gre_bench_sender: --size must be %u..1514\n",
                (plain ? 0u : OUTER_HDR) + INNER_HDR + PAYLOAD_MIN);
        return 2;
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
            fprintf(stderr, "gre_bench_sender: cannot use SCHED_FIFO %d: %s\n", rt,
                    strerror(errno));
        mlockall(MCL_CURRENT | MCL_FUTURE);
    }
    /* the frame count bounds every array: --duration at --rate, or a hard cap at full speed */
    limit = count ? count : (uint64_t)((rate > 0 ? rate : 5e6) * duration) + 1;

    {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        t.run_id = (uint32_t)(ts.tv_nsec ^ (getpid() << 16) ^ ts.tv_sec);
    }
    build_frames(&t, size, plain);

    txfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    if (txfd < 0)
        die("socket(AF_PACKET) for %s: %s", tx_if);
    setsockopt(txfd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
    setsockopt(txfd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = (int)if_nametoindex(tx_if);
    if (!sll.sll_ifindex)
        die("no interface %s: %s", tx_if);
    if (bind(txfd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind %s: %s", tx_if);
    sink_open(&sink, rx_if, rx_netns);

    memset(&st, 0, sizeof(st));
    st.seen = calloc(limit, 1);
    if (!st.seen)
        die("out of memory%s: %s", "");
    for (i = 0; i < MAX_BATCH; i++) {
        memcpy(buf[i], plain ? t.inner : t.outer, plain ? t.inner_len : t.outer_len);
        iov[i].iov_base = buf[i];
        iov[i].iov_len = plain ? t.inner_len : t.outer_len;
        msg[i].msg_hdr.msg_iov = &iov[i];
        msg[i].msg_hdr.msg_iovlen = 1;
    }
    {
        /* where run id / seq / timestamp sit in the sent frame */
        size_t pay = (plain ? 0 : OUTER_HDR) + INNER_HDR;
        double next_check = 0, last_yield, last_send = 0, t_sched, owed = 0;
        t0 = last_yield = t_sched = now_s();
        for (;;) {
            double now = now_s();
            int sending = st.sent < limit && (count || now - t0 < duration);
            if (sending) {
                uint64_t due = rate > 0 ? (uint64_t)((now - t_sched) * rate) + 1 : st.sent + batch;
                uint64_t k;
                if (rate > 0 && batch == 1 && due > st.sent + 1) {  /* late: move the schedule */
                    t_sched = now - (double)st.sent / rate;
                    due = st.sent + 1;
                }
                k = due > st.sent ? due - st.sent : 0;
                if (k > batch)
                    k = batch;
                if (k > limit - st.sent)
                    k = limit - st.sent;
                if (k) {
                    fp_time ts;
                    int n;
                    for (i = 0; i < k; i++)
                        wr32(buf[i] + pay + 4, (uint32_t)(st.sent + i));
                    ts = fp_time_now(clock);
                    for (i = 0; i < k; i++)
                        fp_time_put_be(buf[i] + pay + 8, ts);
                    n = sendmmsg(txfd, msg, (unsigned)k, 0);
                    last_send = now_s();
                    if (n > 0)
                        st.sent += (uint64_t)n;
                    else
                        st.tx_errors++;
                    if (st.sent >= limit || (!count && now - t0 >= duration))
                        t_end_send = now_s();
                }
            } else if (!t_end_send) {
                t_end_send = now;
            }
            sink_poll(&sink, &t, &st, warmup, clock, 64);
            if (yield_s > 0) {
                double next_send = rate > 0 ? t_sched + (double)st.sent / rate : now, wait = 0;
                int in_flight = st.sent > st.received + st.dup && now - last_send < 1e-3;
                if (now - last_yield > 1e-3) {  /* a new millisecond: US more to give away */
                    owed = owed + yield_s > 2 * yield_s ? 2 * yield_s : owed + yield_s;
                    last_yield = now;
                }
                if (!sending)
                    wait = owed;
                else if (rate > 0 && !in_flight && next_send - now > 30e-6)
                    wait = next_send - now - 20e-6 < owed ? next_send - now - 20e-6 : owed;
                if (wait > 2e-6) {
                    struct pollfd p = {.fd = sink.fd, .events = POLLIN, .revents = 0};
                    struct timespec ts = {.tv_sec = (time_t)wait,
                                          .tv_nsec = (long)((wait - (double)(time_t)wait) * 1e9)};
                    double t = now_s();
                    ppoll(&p, 1, &ts, NULL);
                    owed -= now_s() - t;
                }
            }
            if (now > next_check) {  /* end conditions, checked every millisecond or so */
                next_check = now + 1e-3;
                if (!sending &&
                    (st.received + st.dup >= st.sent || now - t_end_send > drain_ms * 1e-3))
                    break;
                if (now - t0 > max_seconds)
                    break;
            }
        }
    }
    elapsed = t_end_send > t0 ? t_end_send - t0 : now_s() - t0;
    memset(&kst, 0, sizeof(kst));
    getsockopt(sink.fd, SOL_PACKET, PACKET_STATISTICS, &kst, &klen);

    qsort(st.lat_ns, st.nlat, sizeof(double), cmp_double);
    {
        double sum = 0;
        for (i = 0; i < st.nlat; i++)
            sum += st.lat_ns[i];
        printf("{\"plain\": %s, \"size\": %zu, \"rate\": %.0f, \"sent\": %llu, \"received\": %llu, "
               "\"lost\": %llu, \"duplicates\": %llu, \"reordered\": %llu, \"bad\": %llu, "
               "\"other\": %llu, \"tx_errors\": %llu, \"sink_kernel_drop\": %u, "
               "\"send_seconds\": %.6f, \"tx_pps\": %.1f, \"rx_pps\": %.1f, "
               "\"latency_ns\": {\"count\": %zu, \"min\": %.1f, \"median\": %.1f, \"p99\": %.1f, "
               "\"p999\": %.1f, \"max\": %.1f, \"mean\": %.1f}}\n",
               plain ? "true" : "false", size, rate, (unsigned long long)st.sent,
               (unsigned long long)st.received, (unsigned long long)(st.sent - st.received),
               (unsigned long long)st.dup, (unsigned long long)st.reordered,
               (unsigned long long)st.bad, (unsigned long long)st.other,
               (unsigned long long)st.tx_errors, kst.tp_drops, elapsed,
               elapsed > 0 ? st.sent / elapsed : 0, elapsed > 0 ? st.received / elapsed : 0,
               st.nlat, st.nlat ? st.lat_ns[0] : 0, pct(st.lat_ns, st.nlat, 0.5),
               pct(st.lat_ns, st.nlat, 0.99), pct(st.lat_ns, st.nlat, 0.999),
               st.nlat ? st.lat_ns[st.nlat - 1] : 0, st.nlat ? sum / st.nlat : 0);
    }
    free(st.seen);
    free(st.lat_ns);
    munmap(sink.ring, sink.ring_len);
    close(sink.fd);
    close(txfd);
    return 0;
}
