/*
 * ptrain-recv: the packet-train tester's software receiver, over AF_PACKET.
 *
 *   ptrain-recv -i IF [-w FILE.pcap] [--count N] [--timeout S] [--idle-ms MS]
 *               [--proto all|ipv4|ipv6] [--ring-mb MB] [--cpu N]
 *
 * Receives every frame of interface IF into a TPACKET_V3 ring, takes each frame's kernel RX
 * timestamp, parses it with ptrain_parse() (the rules of fastpath.ptrain.frame.parse()) and
 * writes it, when -w is given, to a nanosecond pcap whose timestamps are the kernel's RX times:
 * `fastpath ptrain analyze FILE.pcap` reads it (RX time: the kernel's; TX time: the frame's).
 *
 * Why a TPACKET_V3 ring and not recvmsg(): the kernel writes frames and their timestamps into
 * memory shared with the process and hands over whole blocks, so a burst of trains costs one
 * poll() per block instead of one system call per frame, and the receiver keeps up with the
 * fastest sender on the same host (recvmsg() per frame would drop frames at the socket first).
 * Blocks retire after 2 ms when not full, which delays the program, never the timestamps.
 *
 * Timestamps: SO_TIMESTAMPING with SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE
 * turns on the kernel's software RX stamp (taken in netif_rx / netif_receive_skb, before any
 * protocol handler; for veth, when the peer's xmit hands the frame over), and PACKET_TIMESTAMP
 * asks the ring for it: the frame header's tp_sec/tp_nsec then carry it and TP_STATUS_TS_SOFTWARE
 * says so ("ts_software" counts those; "ts_other" counts frames without, stamped by the ring
 * itself, a little later). The clock is CLOCK_REALTIME, the sender's.
 *
 * --proto: which frames the socket takes. "all" (ETH_P_ALL, the default) sees every frame as it
 * arrives, before the netdev ingress hook, with a VLAN tag the kernel took off put back from the
 * ring's metadata. "ipv4" / "ipv6" bind to that Ethertype: the socket then sits after the
 * netdev ingress hook (frames an nftables ingress rule drops are not seen, as behind a NIC that
 * drops them), but the kernel has removed any VLAN tag by then, so tagged frames arrive 4 bytes
 * shorter.
 *
 * Stops after --count N tester frames (0: no limit), after --timeout S seconds (default 10), or
 * when no frame arrived for --idle-ms (default 500) after the first one, or on SIGINT/SIGTERM.
 * Prints "ready" once the socket is bound (a script may start the sender then), and at the end
 * one line of JSON: frames, tester frames, foreign, malformed by reason, ring drops, timestamps.
 */
#include "ptrain_frame.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define BLOCK_SIZE (1u << 20)
#define FRAME_SLOT 2048u
#define RETIRE_MS 2u
#define MAX_FRAME (65535u + PTRAIN_TAG_LEN)

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static void die(const char *what)
{
    fprintf(stderr, "ptrain-recv: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "ptrain-recv: %s%s%s (see the comment at the top of ptrain/host/ptrain_recv.c)\n",
            msg, arg ? ": " : "", arg ? arg : "");
    exit(2);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
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

struct counts {
    uint64_t frames, verdict[PTRAIN_VERDICT_COUNT], ts_software, ts_other, vlan_restored;
    uint64_t first_rx_ns, last_rx_ns;
};

struct rx {
    FILE *pcap;
    struct counts c;
    uint64_t want;        /* tester frames to take; 0: no limit */
};

static void pcap_header(FILE *f)
{
    uint32_t h[6] = {0xa1b23c4du, 0x00040002u, 0, 0, 262144, 1};  /* ns magic, v2.4, Ethernet */
    if (fwrite(h, sizeof(h), 1, f) != 1)
        die("write pcap");
}

/* One frame from the ring; returns 1 when the wanted count is reached. */
static int take(struct rx *r, const struct tpacket3_hdr *ph)
{
    static uint8_t buf[MAX_FRAME];
    const struct sockaddr_ll *sll =
        (const void *)((const uint8_t *)ph + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
    const uint8_t *d = (const uint8_t *)ph + ph->tp_mac;
    size_t snap = ph->tp_snaplen, len = ph->tp_len;
    uint64_t t = (uint64_t)ph->tp_sec * 1000000000u + ph->tp_nsec;
    enum ptrain_verdict v;

    if (sll->sll_pkttype == PACKET_OUTGOING)
        return 0;
    if ((ph->tp_status & TP_STATUS_VLAN_VALID) && snap >= PTRAIN_ETH_ETHERTYPE_OFF &&
        snap + PTRAIN_TAG_LEN <= sizeof(buf)) {
        /* the kernel took the tag off (hardware-style VLAN acceleration): put it back */
        unsigned tpid = (ph->tp_status & TP_STATUS_VLAN_TPID_VALID) ? ph->hv1.tp_vlan_tpid
                                                                    : PTRAIN_ETHERTYPE_VLAN;
        memcpy(buf, d, PTRAIN_ETH_VLAN_TPID_OFF);
        ptrain_wr16(buf + PTRAIN_ETH_VLAN_TPID_OFF, tpid);
        ptrain_wr16(buf + PTRAIN_ETH_VLAN_TCI_OFF, ph->hv1.tp_vlan_tci);
        memcpy(buf + PTRAIN_ETH_VLAN_ETHERTYPE_OFF, d + PTRAIN_ETH_ETHERTYPE_OFF, snap - PTRAIN_ETH_ETHERTYPE_OFF);
        d = buf;
        snap += PTRAIN_TAG_LEN;
        len += PTRAIN_TAG_LEN;
        r->c.vlan_restored++;
    }
    if (ph->tp_status & TP_STATUS_TS_SOFTWARE)
        r->c.ts_software++;
    else
        r->c.ts_other++;
    if (!r->c.frames)
        r->c.first_rx_ns = t;
    r->c.last_rx_ns = t;
    r->c.frames++;
    v = ptrain_parse(d, snap, len, NULL);
    r->c.verdict[v]++;
    if (r->pcap) {
        uint32_t rec[4] = {(uint32_t)(t / 1000000000u), (uint32_t)(t % 1000000000u),
                           (uint32_t)snap, (uint32_t)len};
        if (fwrite(rec, sizeof(rec), 1, r->pcap) != 1 || fwrite(d, 1, snap, r->pcap) != snap)
            die("write pcap");
    }
    return r->want && r->c.verdict[PTRAIN_OK] >= r->want;
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"interface", required_argument, 0, 'i'}, {"write", required_argument, 0, 'w'},
        {"count", required_argument, 0, 'c'}, {"timeout", required_argument, 0, 't'},
        {"idle-ms", required_argument, 0, 'I'}, {"proto", required_argument, 0, 'p'},
        {"ring-mb", required_argument, 0, 'r'}, {"cpu", required_argument, 0, 'C'},
        {0, 0, 0, 0},
    };
    const char *ifname = NULL, *out = NULL, *proto_name = "all";
    double timeout_s = 10;
    uint64_t idle_ns = 500000000u, start, deadline, last_seen = 0;
    unsigned ring_mb = 16, blocks, cur = 0, v;
    int opt, fd, ifindex, cpu = -1, proto = ETH_P_ALL, flags;
    const char *why = "signal";
    struct tpacket_req3 req;
    struct sockaddr_ll sll;
    struct tpacket_stats_v3 stats;
    socklen_t sl = sizeof(stats);
    struct rx r;
    uint8_t *ring;
    size_t ring_len;

    memset(&r, 0, sizeof(r));
    while ((opt = getopt_long(argc, argv, "i:w:c:t:", options, NULL)) != -1) {
        switch (opt) {
        case 'i': ifname = optarg; break;
        case 'w': out = optarg; break;
        case 'c': r.want = number(optarg, "--count", 1ull << 48); break;
        case 't':
            timeout_s = atof(optarg);
            if (!(timeout_s > 0))
                usage_error("bad --timeout", optarg);
            break;
        case 'I': idle_ns = number(optarg, "--idle-ms", 1ull << 30) * 1000000u; break;
        case 'p':
            proto_name = optarg;
            if (!strcmp(optarg, "all"))
                proto = ETH_P_ALL;
            else if (!strcmp(optarg, "ipv4"))
                proto = ETH_P_IP;
            else if (!strcmp(optarg, "ipv6"))
                proto = ETH_P_IPV6;
            else
                usage_error("--proto is all, ipv4 or ipv6", optarg);
            break;
        case 'r': ring_mb = (unsigned)number(optarg, "--ring-mb", 4096); break;
        case 'C': cpu = (int)number(optarg, "--cpu", 4095); break;
        default: usage_error("unknown option", NULL);
        }
    }
    if (optind != argc)
        usage_error("unexpected argument", argv[optind]);
    if (!ifname)
        usage_error("-i INTERFACE is required", NULL);
    if (ring_mb < 1)
        ring_mb = 1;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof(set), &set))
            die("sched_setaffinity");
    }
    ifindex = (int)if_nametoindex(ifname);
    if (!ifindex)
        die(ifname);

    fd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: nothing arrives before bind() */
    if (fd < 0)
        die("socket(AF_PACKET) (needs CAP_NET_RAW)");
    v = 1;
    setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
    flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)))
        die("SO_TIMESTAMPING");
    flags = SOF_TIMESTAMPING_SOFTWARE;
    if (setsockopt(fd, SOL_PACKET, PACKET_TIMESTAMP, &flags, sizeof(flags)))
        die("PACKET_TIMESTAMP");
    v = TPACKET_V3;
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)))
        die("PACKET_VERSION TPACKET_V3");
    blocks = ring_mb * (1u << 20) / BLOCK_SIZE;
    memset(&req, 0, sizeof(req));
    req.tp_block_size = BLOCK_SIZE;
    req.tp_block_nr = blocks;
    req.tp_frame_size = FRAME_SLOT;
    req.tp_frame_nr = blocks * (BLOCK_SIZE / FRAME_SLOT);
    req.tp_retire_blk_tov = RETIRE_MS;
    if (setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)))
        die("PACKET_RX_RING");
    ring_len = (size_t)BLOCK_SIZE * blocks;
    ring = mmap(NULL, ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (ring == MAP_FAILED)
        die("mmap(PACKET_RX_RING)");
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons((uint16_t)proto);
    sll.sll_ifindex = ifindex;
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)))
        die("bind");
    if (out) {
        r.pcap = fopen(out, "wb");
        if (!r.pcap)
            die(out);
        setvbuf(r.pcap, NULL, _IOFBF, 1 << 20);
        pcap_header(r.pcap);
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    printf("ready\n");
    fflush(stdout);

    start = mono_ns();
    deadline = start + (uint64_t)(timeout_s * 1e9);
    while (!stop) {
        struct tpacket_block_desc *bd = (void *)(ring + (size_t)cur * BLOCK_SIZE);
        uint64_t now = mono_ns();
        if (now >= deadline) {  /* checked per block too: a flood never outlives --timeout */
            why = "timeout";
            break;
        }
        if (!(__atomic_load_n(&bd->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER)) {
            uint64_t end = deadline, wait_ms;
            struct pollfd pfd = {fd, POLLIN | POLLERR, 0};
            if (last_seen && now >= last_seen + idle_ns) {
                why = "idle";
                break;
            }
            if (last_seen && last_seen + idle_ns < end)
                end = last_seen + idle_ns;
            wait_ms = (end - now) / 1000000u + 1;
            poll(&pfd, 1, (int)(wait_ms > 100 ? 100 : wait_ms));
            continue;
        }
        {
            const uint8_t *p = (const uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
            uint32_t i, n = bd->hdr.bh1.num_pkts;
            int done = 0;
            for (i = 0; i < n && !done; i++) {
                const struct tpacket3_hdr *ph = (const void *)p;
                done = take(&r, ph);
                p += ph->tp_next_offset;
            }
            __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            cur = (cur + 1) % blocks;
            if (n)
                last_seen = mono_ns();
            if (done) {
                why = "count";
                break;
            }
        }
    }

    memset(&stats, 0, sizeof(stats));
    getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &stats, &sl);
    if (r.pcap && fclose(r.pcap))
        die(out);
    munmap(ring, ring_len);
    close(fd);

    printf("{\"frames\": %llu, \"tester\": %llu, \"foreign\": %llu, \"malformed\": {",
           (unsigned long long)r.c.frames, (unsigned long long)r.c.verdict[PTRAIN_OK],
           (unsigned long long)r.c.verdict[PTRAIN_FOREIGN]);
    {
        uint64_t total = 0;
        for (v = PTRAIN_TRUNCATED; v < PTRAIN_VERDICT_COUNT; v++) {
            printf("%s\"%s\": %llu", v == PTRAIN_TRUNCATED ? "" : ", ",
                   ptrain_verdict_name((enum ptrain_verdict)v), (unsigned long long)r.c.verdict[v]);
            total += r.c.verdict[v];
        }
        printf("}, \"malformed_total\": %llu, ", (unsigned long long)total);
    }
    printf("\"ring_packets\": %u, \"ring_drops\": %u, \"ring_freezes\": %u, \"ts_software\": %llu, "
           "\"ts_other\": %llu, \"vlan_restored\": %llu, \"first_rx_ns\": %llu, \"last_rx_ns\": %llu, "
           "\"proto\": \"%s\", \"stopped\": \"%s\"}\n",
           stats.tp_packets, stats.tp_drops, stats.tp_freeze_q_cnt,
           (unsigned long long)r.c.ts_software, (unsigned long long)r.c.ts_other,
           (unsigned long long)r.c.vlan_restored, (unsigned long long)r.c.first_rx_ns,
           (unsigned long long)r.c.last_rx_ns, proto_name, why);
    return 0;
}
