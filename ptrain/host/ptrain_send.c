/*
 * ptrain-send: the packet-train tester's software generator, over AF_PACKET.
 *
 * Sends trains of tester frames (ptrain/README.md, "Frame format"; byte for byte what
 * fastpath.ptrain.frame.build() makes with tx_time = the stamp << 16) on one interface:
 *
 *   ptrain-send -i IF [--count N | --trains N] [--train-len L] [--size BYTES]
 *               [--gap-ns NS | --rate-mbps R] [--train-gap-ns NS] [--ipv6] [--vlan ID] [--pcp P]
 *               [--src-mac M] [--dst-mac M] [--src-ip A] [--dst-ip A] [--sport P] [--dport P]
 *               [--ttl T] [--stream S] [--seq N] [--train0 N] [--tx-stamps FILE]
 *               [--spin-ns NS] [--cpu N] [--rt PRIO] [--pcap FILE]
 *
 * TX time. The frame carries a user-space CLOCK_REALTIME stamp taken immediately before the
 * send system call (after the frame's UDP checksum is computed; writing the stamp and csum_adj
 * is a few stores, as the hardware writes them at the SFD). The kernel's own TX timestamp cannot
 * be in the frame: the kernel takes it (SOF_TIMESTAMPING_TX_SOFTWARE, in the driver's xmit, for
 * veth in veth_xmit) after the frame's bytes were handed over, and returns it afterwards on the
 * socket's error queue. With --tx-stamps FILE both are kept: the frame's stamp and the kernel's
 * per sequence number ("seq train index frame_tx_ns kernel_tx_ns", 0 where the kernel gave none);
 * the error queue returns each frame's copy, whose sequence number says which frame it was (this
 * needs no SOF_TIMESTAMPING_OPT_ID, which packet sockets honour only on recent kernels). The
 * frames' flags say FLAG_TX_HW = 0 (software time) and FLAG_SYNCED = 0.
 *
 * Timing. --gap-ns is the time from one frame's send to the next one's within a train
 * (--rate-mbps R: the gap that offers R Mb/s at layer 1, i.e. (size + 24) * 8 / R us);
 * --train-gap-ns from a train's last send to the next train's first (default: one train's
 * duration, at least 100 us). The schedule runs on CLOCK_MONOTONIC: a wait longer than --spin-ns
 * (default 100 us) sleeps in clock_nanosleep(TIMER_ABSTIME) until --spin-ns before the send time,
 * then busy-waits on clock_gettime (a sleep alone wakes tens of microseconds late, even with the
 * timer slack set to 1 ns as here: 37 us on average, 69 us at most on the VM of ptrain/README.md);
 * shorter waits only busy-wait; gap 0 sends as fast as the system call allows. A frame that leaves more than
 * 1 us late moves the rest of its train's schedule (no catch-up burst: frames never leave closer
 * than the gap); such frames are counted as "late" (a train's first frame as "late_train_starts":
 * the idle time between trains matters less). Sends bypass the qdisc
 * (PACKET_QDISC_BYPASS); a send refused for lack of buffers is stamped again and retried.
 *
 * --pcap FILE writes the frames to a nanosecond pcap (time = the frame's stamp) instead of
 * sending them (a dry run; no interface needed). --cpu N pins the sender to CPU N; --rt PRIO runs it
 * SCHED_FIFO at that priority, so ordinary tasks cannot delay a send (the kernel's real-time
 * throttling still leaves them 5 % of each second). Prints one line of JSON: counts, rates, the
 * clock's resolution (clock_getres), the cost of one clock read and the smallest step seen.
 */
#include "ptrain_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/errqueue.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LATE_NS 1000u
#define MAX_FRAME 65535u
#define DRAIN_EVERY 8192u      /* a forced drain when no wait left time for it */
#define DRAIN_SPARE_NS 5000u   /* read a timestamp while the next send is further away */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void die(const char *what)
{
    fprintf(stderr, "ptrain-send: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ptrain-send: %s%s%s (see the comment at the top of ptrain/host/ptrain_send.c)\n",
            msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static unsigned long long number(const char *s, const char *opt, unsigned long long max)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno || end == s || *end || v > max || s[0] == '-')
        usage_error("bad number for", opt);
    return v;
}

static void parse_mac(const char *s, uint8_t *mac)
{
    unsigned b[6], i;
    char extra;
    if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &extra) != 6)
        usage_error("bad MAC address", s);
    for (i = 0; i < 6; i++) {
        if (b[i] > 255)
            usage_error("bad MAC address", s);
        mac[i] = (uint8_t)b[i];
    }
}

/* ---- the clock -------------------------------------------------------------------------- */

struct clock_info {
    uint64_t res_ns, step_min_ns;
    double read_ns;
};

static void measure_clock(struct clock_info *ci)
{
    struct timespec r;
    uint64_t t0, prev, t, i, n = 200000, step = UINT64_MAX;
    clock_getres(CLOCK_REALTIME, &r);
    ci->res_ns = (uint64_t)r.tv_sec * 1000000000u + (uint64_t)r.tv_nsec;
    t0 = prev = now_ns(CLOCK_REALTIME);
    for (i = 0; i < n; i++) {
        t = now_ns(CLOCK_REALTIME);
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
    }
    ci->read_ns = (double)(prev - t0) / (double)n;
    ci->step_min_ns = step == UINT64_MAX ? 0 : step;
}

/* ---- kernel TX timestamps from the error queue ----------------------------------------- */

struct stamps {
    uint64_t *frame_ns, *kernel_ns;   /* by k = seq - seq0; NULL when not asked for */
    uint64_t got;
    uint32_t seq0;
    uint64_t count;
    size_t hdr;                       /* offset of the tester header in the frame */
};

/* Read up to max timestamps waiting on the error queue; returns how many were read. */
static unsigned drain_errqueue(int fd, struct stamps *st, unsigned max)
{
    uint8_t data[256];
    char ctrl[512];
    unsigned n = 0;

    while (n < max) {
        struct iovec iov = {data, sizeof(data)};
        struct msghdr msg;
        struct cmsghdr *c;
        const struct scm_timestamping *ts = NULL;
        int is_snd = 0;
        ssize_t len;

        memset(&msg, 0, sizeof(msg));
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = ctrl;
        msg.msg_controllen = sizeof(ctrl);
        len = recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (len < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                die("recvmsg(MSG_ERRQUEUE)");
            return n;
        }
        n++;
        for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPING)
                ts = (const struct scm_timestamping *)(const void *)CMSG_DATA(c);
            else if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_TX_TIMESTAMP) {
                const struct sock_extended_err *e = (const void *)CMSG_DATA(c);
                is_snd = e->ee_origin == SO_EE_ORIGIN_TIMESTAMPING && e->ee_info == SCM_TSTAMP_SND;
            }
        }
        if (ts && is_snd && (size_t)len >= st->hdr + PTRAIN_TESTER_SEQ_OFF + PTRAIN_TESTER_SEQ_LEN &&
            ptrain_rd32(data + st->hdr + PTRAIN_TESTER_MAGIC_OFF) == PTRAIN_MAGIC) {
            uint32_t k = ptrain_rd32(data + st->hdr + PTRAIN_TESTER_SEQ_OFF) - st->seq0;
            uint64_t t = (uint64_t)ts->ts[0].tv_sec * 1000000000u + (uint64_t)ts->ts[0].tv_nsec;
            if (k < st->count && t && !st->kernel_ns[k]) {
                st->kernel_ns[k] = t;
                st->got++;
            }
        }
    }
    return n;
}

/* ---- pcap (dry run) --------------------------------------------------------------------- */

static void pcap_header(FILE *f)
{
    uint32_t h[6] = {0xa1b23c4du, 0x00040002u, 0, 0, 262144, 1};  /* ns magic, v2.4, Ethernet */
    if (fwrite(h, sizeof(h), 1, f) != 1)
        die("write pcap");
}

static void pcap_frame(FILE *f, const uint8_t *d, size_t n, uint64_t t_ns)
{
    uint32_t r[4];
    r[0] = (uint32_t)(t_ns / 1000000000u);
    r[1] = (uint32_t)(t_ns % 1000000000u);
    r[2] = r[3] = (uint32_t)n;
    if (fwrite(r, sizeof(r), 1, f) != 1 || fwrite(d, 1, n, f) != n)
        die("write pcap");
}

/* ---- main ------------------------------------------------------------------------------- */

enum {
    O_COUNT = 256, O_TRAINS, O_TRAIN_LEN, O_SIZE, O_GAP, O_RATE, O_TRAIN_GAP, O_IPV6, O_VLAN,
    O_PCP, O_SRC_MAC, O_DST_MAC, O_SRC_IP, O_DST_IP, O_SPORT, O_DPORT, O_TTL, O_STREAM, O_SEQ,
    O_TRAIN0, O_TX_STAMPS, O_SPIN, O_CPU, O_RT, O_PCAP
};

static const struct option options[] = {
    {"interface", required_argument, 0, 'i'}, {"count", required_argument, 0, O_COUNT},
    {"trains", required_argument, 0, O_TRAINS}, {"train-len", required_argument, 0, O_TRAIN_LEN},
    {"size", required_argument, 0, O_SIZE}, {"gap-ns", required_argument, 0, O_GAP},
    {"rate-mbps", required_argument, 0, O_RATE}, {"train-gap-ns", required_argument, 0, O_TRAIN_GAP},
    {"ipv6", no_argument, 0, O_IPV6}, {"vlan", required_argument, 0, O_VLAN},
    {"pcp", required_argument, 0, O_PCP}, {"src-mac", required_argument, 0, O_SRC_MAC},
    {"dst-mac", required_argument, 0, O_DST_MAC}, {"src-ip", required_argument, 0, O_SRC_IP},
    {"dst-ip", required_argument, 0, O_DST_IP}, {"sport", required_argument, 0, O_SPORT},
    {"dport", required_argument, 0, O_DPORT}, {"ttl", required_argument, 0, O_TTL},
    {"stream", required_argument, 0, O_STREAM}, {"seq", required_argument, 0, O_SEQ},
    {"train0", required_argument, 0, O_TRAIN0}, {"tx-stamps", required_argument, 0, O_TX_STAMPS},
    {"spin-ns", required_argument, 0, O_SPIN}, {"cpu", required_argument, 0, O_CPU},
    {"rt", required_argument, 0, O_RT}, {"pcap", required_argument, 0, O_PCAP}, {0, 0, 0, 0},
};

int main(int argc, char **argv)
{
    static uint8_t frame[MAX_FRAME];
    struct ptrain_headers h;
    struct ptrain_tx tx;
    struct clock_info ci;
    struct stamps st;
    const char *ifname = NULL, *stamps_path = NULL, *pcap_path = NULL;
    const char *src_ip = NULL, *dst_ip = NULL, *src_mac = NULL, *dst_mac = NULL;
    uint64_t count = 0, trains = 0, train_len = 100, size = 1000, gap = 0, train_gap = 0;
    uint64_t spin = 100000, k, sent = 0, retries = 0, late = 0, late_starts = 0, first_tx = 0, last_tx = 0;
    uint64_t target = 0, last_mono = 0, since_drain = 0;
    double rate_mbps = 0;
    int have_train_gap = 0, ipv6 = 0, vlan = -1, cpu = -1, rt = 0, fd = -1, opt, done;
    unsigned pcp = 0, ttl = 64, sport = PTRAIN_UDP_PORT, dport = PTRAIN_UDP_PORT, stream = 0;
    uint32_t seq0 = 0, train0 = 0;
    FILE *pcap = NULL;

    while ((opt = getopt_long(argc, argv, "i:", options, NULL)) != -1) {
        switch (opt) {
        case 'i': ifname = optarg; break;
        case O_COUNT: count = number(optarg, "--count", 1ull << 40); break;
        case O_TRAINS: trains = number(optarg, "--trains", 0xFFFFFFFFull); break;
        case O_TRAIN_LEN: train_len = number(optarg, "--train-len", 0xFFFFFFFFull); break;
        case O_SIZE: size = number(optarg, "--size", 0xFFFF); break;
        case O_GAP: gap = number(optarg, "--gap-ns", 1ull << 40); break;
        case O_RATE:
            rate_mbps = atof(optarg);
            if (!(rate_mbps > 0))
                usage_error("bad --rate-mbps", optarg);
            break;
        case O_TRAIN_GAP: train_gap = number(optarg, "--train-gap-ns", 1ull << 40); have_train_gap = 1; break;
        case O_IPV6: ipv6 = 1; break;
        case O_VLAN: vlan = (int)number(optarg, "--vlan", 4095); break;
        case O_PCP: pcp = (unsigned)number(optarg, "--pcp", 7); break;
        case O_SRC_MAC: src_mac = optarg; break;
        case O_DST_MAC: dst_mac = optarg; break;
        case O_SRC_IP: src_ip = optarg; break;
        case O_DST_IP: dst_ip = optarg; break;
        case O_SPORT: sport = (unsigned)number(optarg, "--sport", 0xFFFF); break;
        case O_DPORT: dport = (unsigned)number(optarg, "--dport", 0xFFFF); break;
        case O_TTL: ttl = (unsigned)number(optarg, "--ttl", 255); break;
        case O_STREAM: stream = (unsigned)number(optarg, "--stream", 255); break;
        case O_SEQ: seq0 = (uint32_t)number(optarg, "--seq", 0xFFFFFFFFull); break;
        case O_TRAIN0: train0 = (uint32_t)number(optarg, "--train0", 0xFFFFFFFFull); break;
        case O_TX_STAMPS: stamps_path = optarg; break;
        case O_SPIN: spin = number(optarg, "--spin-ns", 1ull << 40); break;
        case O_CPU: cpu = (int)number(optarg, "--cpu", 4095); break;
        case O_RT: rt = (int)number(optarg, "--rt", 99); break;
        case O_PCAP: pcap_path = optarg; break;
        default: usage_error("unknown option", NULL);
        }
    }
    if (optind != argc)
        usage_error("unexpected argument", argv[optind]);
    if (!ifname && !pcap_path)
        usage_error("-i INTERFACE is required (or --pcap FILE for a dry run)", NULL);
    if (train_len < 1)
        usage_error("--train-len must be at least 1", NULL);
    if (trains) {
        if (count && count != trains * train_len)
            usage_error("--count and --trains disagree (count = trains * train-len)", NULL);
        count = trains * train_len;
    }
    if (!count)
        count = 1000;
    trains = (count + train_len - 1) / train_len;

    ptrain_headers_default(&h, ipv6);
    h.vlan = vlan;
    h.pcp = pcp;
    h.ttl = (uint8_t)ttl;
    h.sport = (uint16_t)sport;
    h.dport = (uint16_t)dport;
    if (src_mac)
        parse_mac(src_mac, h.src_mac);
    if (dst_mac)
        parse_mac(dst_mac, h.dst_mac);
    if (src_ip && inet_pton(ipv6 ? AF_INET6 : AF_INET, src_ip, h.src_ip) != 1)
        usage_error("bad --src-ip for this IP version", src_ip);
    if (dst_ip && inet_pton(ipv6 ? AF_INET6 : AF_INET, dst_ip, h.dst_ip) != 1)
        usage_error("bad --dst-ip for this IP version", dst_ip);
    if (ptrain_build_init(frame, (size_t)size, &h, &tx) < 0) {
        fprintf(stderr, "ptrain-send: a tester frame with these headers is %zu..65535 bytes "
                "(without FCS), asked %llu\n", ptrain_min_size(&h), (unsigned long long)size);
        return 2;
    }
    if (tx.compact && train_len > PTRAIN_COMPACT_TRAIN_MAX) {
        fprintf(stderr, "ptrain-send: %llu-byte frames carry the compact header (below %zu bytes): "
                "trains of at most %u frames, asked --train-len %llu\n", (unsigned long long)size,
                ptrain_min_full(&h), (unsigned)PTRAIN_COMPACT_TRAIN_MAX, (unsigned long long)train_len);
        return 2;
    }
    if (rate_mbps > 0)
        gap = (uint64_t)((double)(size + PTRAIN_WIRE_OVERHEAD) * 8.0 * 1000.0 / rate_mbps + 0.5);
    if (!have_train_gap) {
        train_gap = gap * train_len;
        if (train_gap < 100000)
            train_gap = 100000;
    }

    memset(&st, 0, sizeof(st));
    st.seq0 = seq0;
    st.count = count;
    st.hdr = tx.hdr;
    if (stamps_path) {
        st.frame_ns = calloc(count, sizeof(uint64_t));
        st.kernel_ns = calloc(count, sizeof(uint64_t));
        if (!st.frame_ns || !st.kernel_ns)
            die("memory for --tx-stamps");
    }

    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set))
            die("sched_setaffinity");
    }
    if (rt) {
        struct sched_param sp = {.sched_priority = rt};
        if (sched_setscheduler(0, SCHED_FIFO, &sp))
            die("sched_setscheduler(SCHED_FIFO)");
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);  /* sleeps end when asked, not 50 us later */

    if (pcap_path) {
        pcap = fopen(pcap_path, "wb");
        if (!pcap)
            die(pcap_path);
        pcap_header(pcap);
    } else {
        struct sockaddr_ll sll;
        int v = 1, ifindex = (int)if_nametoindex(ifname);
        if (!ifindex)
            die(ifname);
        fd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: receives nothing */
        if (fd < 0)
            die("socket(AF_PACKET) (needs CAP_NET_RAW)");
        setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
        memset(&sll, 0, sizeof(sll));
        sll.sll_family = AF_PACKET;
        sll.sll_ifindex = ifindex;
        if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
            die("bind");
        if (stamps_path) {
            int flags = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
            v = 64 << 20;  /* room for the error queue's copies between drains */
            if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)))
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
            if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
                die("SO_TIMESTAMPING");
        }
    }
    measure_clock(&ci);

    for (k = 0; k < count && !stop; k++) {
        uint64_t train = k / train_len, index = k % train_len, t_len, mono, unix_ns;
        t_len = train == trains - 1 ? count - train * train_len : train_len;
        ptrain_build_fields(frame, &tx, seq0 + (uint32_t)k, train0 + (uint32_t)train,
                            (uint32_t)index, (uint32_t)t_len, (uint8_t)stream,
                            index == t_len - 1 ? PTRAIN_FLAG_LAST : 0);
        /* the send time of this frame on CLOCK_MONOTONIC */
        if (k == 0)
            target = now_ns(CLOCK_MONOTONIC);
        else if (index == 0)
            target = last_mono + train_gap;
        mono = now_ns(CLOCK_MONOTONIC);
        /* time to spare: collect timestamps, one at a time (a system call each) */
        while (st.kernel_ns && fd >= 0 && target > mono + DRAIN_SPARE_NS && drain_errqueue(fd, &st, 1)) {
            since_drain = 0;
            mono = now_ns(CLOCK_MONOTONIC);
        }
        if (target > mono) {
            if (target - mono > spin) {
                uint64_t wake = target - spin;
                struct timespec ts = {(time_t)(wake / 1000000000u), (long)(wake % 1000000000u)};
                while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
                    ;
            }
            while ((mono = now_ns(CLOCK_MONOTONIC)) < target)
                ;
        }
        if (mono > target + LATE_NS && k > 0) {
            if (index)
                late += gap != 0;
            else
                late_starts++;  /* a train that starts late: its gaps are intact */
            target = mono;      /* the rest of the train keeps its gaps from here */
        }
        for (done = 0; !done;) {
            unix_ns = now_ns(CLOCK_REALTIME);
            ptrain_build_stamp(frame, &tx, unix_ns);
            if (pcap) {
                pcap_frame(pcap, frame, (size_t)size, unix_ns);
                done = 1;
            } else if (send(fd, frame, (size_t)size, 0) == (ssize_t)size) {
                done = 1;
            } else if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
                die("send");
            } else {
                retries++;
                if (stop)
                    break;
            }
        }
        if (!done)  /* interrupted while the kernel had no room: this frame was not sent */
            break;
        if (st.frame_ns)
            st.frame_ns[k] = unix_ns;
        if (!sent)
            first_tx = unix_ns;
        last_tx = unix_ns;
        sent++;
        last_mono = mono;
        target += gap;
        if (st.kernel_ns && fd >= 0 && ++since_drain >= DRAIN_EVERY) {
            drain_errqueue(fd, &st, UINT32_MAX);
            since_drain = 0;
        }
    }

    if (st.kernel_ns && fd >= 0) {  /* the last timestamps: wait up to 200 ms for them */
        uint64_t until = now_ns(CLOCK_MONOTONIC) + 200000000u;
        while (st.got < sent && now_ns(CLOCK_MONOTONIC) < until) {
            struct timespec ts = {0, 1000000};
            drain_errqueue(fd, &st, UINT32_MAX);
            nanosleep(&ts, NULL);
        }
        drain_errqueue(fd, &st, UINT32_MAX);
    }
    if (stamps_path) {
        FILE *f = fopen(stamps_path, "w");
        if (!f)
            die(stamps_path);
        fprintf(f, "# ptrain-send TX times, ns since the Unix epoch: frame = the stamp in the frame "
                "(CLOCK_REALTIME before send), kernel = SOF_TIMESTAMPING_TX_SOFTWARE (0: none)\n"
                "# seq train index frame_tx_ns kernel_tx_ns\n");
        for (k = 0; k < sent; k++)
            fprintf(f, "%u %u %u %llu %llu\n", (unsigned)(seq0 + (uint32_t)k),
                    (unsigned)(train0 + (uint32_t)(k / train_len)), (unsigned)(k % train_len),
                    (unsigned long long)st.frame_ns[k], (unsigned long long)st.kernel_ns[k]);
        if (fclose(f))
            die(stamps_path);
    }
    if (pcap && fclose(pcap))
        die(pcap_path);
    if (fd >= 0)
        close(fd);

    {
        double span = (double)(last_tx - first_tx);
        double fps = sent > 1 && span > 0 ? (double)(sent - 1) * 1e9 / span : 0;
        printf("{\"sent\": %llu, \"count\": %llu, \"trains\": %llu, \"train_len\": %llu, \"size\": %llu, "
               "\"gap_ns\": %llu, \"train_gap_ns\": %llu, \"send_retries\": %llu, \"late\": %llu, "
               "\"late_train_starts\": %llu, \"first_tx_ns\": %llu, \"last_tx_ns\": %llu, "
               "\"frames_per_s\": %.1f, \"l1_bps\": %.1f, "
               "\"tx_stamps\": %llu, \"clock_res_ns\": %llu, \"clock_read_ns\": %.1f, "
               "\"clock_step_min_ns\": %llu, \"interrupted\": %s}\n",
               (unsigned long long)sent, (unsigned long long)count, (unsigned long long)trains,
               (unsigned long long)train_len, (unsigned long long)size, (unsigned long long)gap,
               (unsigned long long)train_gap, (unsigned long long)retries, (unsigned long long)late,
               (unsigned long long)late_starts,
               (unsigned long long)first_tx, (unsigned long long)last_tx, fps,
               fps * (double)(size + PTRAIN_WIRE_OVERHEAD) * 8.0, (unsigned long long)st.got,
               (unsigned long long)ci.res_ns, ci.read_ns, (unsigned long long)ci.step_min_ns,
               stop ? "true" : "false");
    }
    free(st.frame_ns);
    free(st.kernel_ns);
    return stop ? 130 : 0;
}
