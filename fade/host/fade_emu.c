/*
 * fade-emu: a software front-end board speaking the FPGA side of FADE-10G, for tests and
 * benchmarks of the host side without hardware.
 *
 *   fade-emu -i IF [--mac MAC] [--window-log2 N] [--timeout-us US] [--step K] [--first V]
 *            [--last-words K] [--adapt-window W] [--adapt-hi PCT] [--adapt-lo PCT]
 *            [--delay-step CYC] [--delay-max CYC] [--delay-min CYC] [--clock-mhz F]
 *            [--batch B] [--seconds S] [--cpu C] [--first-seq S] [--ack-records R]
 *
 * The same rules as the RTL core (fade/docs/host.md, "Protocol"):
 *  - accepts Ethertype 0xFADE, version 0x0100, destination = its MAC (broadcast for RESET);
 *    anything else is dropped and counted;
 *  - a buffer of 2^N packets; the data source (the test pattern: each 64-bit word = previous +
 *    step, from --first) fills it at full speed whenever a slot is free;
 *  - START (learns the host's MAC from its source), STOP (sends what it holds, then one LAST
 *    packet with --last-words words, default random 0..1023), RESET (no answer), user commands
 *    (result arg * 2 + 1, executions counted); a command with the csn of the last executed one
 *    is not executed again, its stored response is re-sent; responses ride in the next data
 *    frame, or a RESP frame when no data frame is waiting;
 *  - ACK confirms; stale ACKs are counted, ACKs for packets never sent are protocol errors;
 *    an ACK frame may carry up to --ack-records records (default 8, the RTL's ACK_RECORDS;
 *    the START / STOP response value says how many: fade/README.md, "ACK records");
 *    early retransmission on ACK (seq S, packet P): every sent, unconfirmed Q < P whose last
 *    seq is older than S; NACK: retransmit at once; timeout: retransmit after --timeout-us
 *    (default the RTL's TIMEOUT, 100,000 cycles of the --clock-mhz clock: 640 us; at least
 *    twice a window's time at 10 Gb/s: 0.84 ms at 2^6, 3.4 ms at 2^8);
 *  - delay adaptation: over --adapt-window transmissions, retransmissions / transmissions above
 *    HI % -> delay += step (<= max), below LO % -> delay -= step (>= min); the delay is in
 *    cycles of a --clock-mhz clock (default 156.25) and paces data frames.
 * Prints "ready mac=... if=..." once running; one JSON line of counters on SIGINT / SIGTERM /
 * --seconds (then exits 0) and on SIGUSR1 (keeps running).
 */
#include "fade_core.h"

#include <fastpath/fade.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

/* The RTL core's retransmission timeout: parameter TIMEOUT of fade/rtl/fp_fade_core.v (and its
 * tops), kept equal by fade/tests/test_host_fade.py */
#define RTL_TIMEOUT_CYCLES 100000u
#define RX_BATCH 64
#define MAX_TX_BATCH 64

struct slot {
    uint8_t *frame;       /* FADE_DATA_LEN bytes, header written once */
    uint32_t pkt;
    uint16_t seq;         /* last frame sequence number it was sent with */
    uint8_t sent, confirmed, queued, last;
    uint64_t sent_ns;
};

struct counters {
    uint64_t tx, tx_bytes, retx, retx_early, retx_nack, retx_timeout, resp_frames;
    uint64_t acks, stale_acks, ack_errors, nacks, cmds, cmd_exec, cmd_dup, starts, stops, resets;
    uint64_t foreign, bad, pkts, words, tx_fail, delay_up, delay_down, ack_frames;
};

static struct {
    int fd, ifindex;
    uint8_t self[6], dest[6];
    unsigned win_log2, win;
    struct slot *slots;
    uint32_t head, tail, next_send;   /* packets: filled, oldest unconfirmed, next never sent */
    uint32_t *retx_q;                 /* packets to retransmit at once (early / NACK) */
    unsigned rq_head, rq_len;
    uint16_t seq;
    int streaming, stopping, last_done;
    uint64_t word;                    /* next pattern word */
    uint64_t step;
    long last_words;
    /* commands */
    int csn_valid;
    uint16_t last_csn, resp_cmd;
    uint64_t resp_val;
    int resp_pending;
    /* retransmission timing and delay adaptation */
    uint64_t timeout_ns;
    double ns_per_cycle;
    uint32_t delay, delay_step, delay_max, delay_min;
    unsigned adapt_window, adapt_hi, adapt_lo, win_tx, win_retx;
    uint64_t next_tx_ns;
    unsigned batch;
    unsigned ack_records;             /* ACK records taken per ACK frame */
    struct counters c;
    unsigned rng;
} E;

static volatile sig_atomic_t stop_requested, dump_requested;

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        dump_requested = 1;
    else
        stop_requested = 1;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void print_counters(void)
{
    const struct counters *c = &E.c;
    printf("{\"tx\": %llu, \"tx_bytes\": %llu, \"retx\": %llu, \"retx_early\": %llu, "
           "\"retx_nack\": %llu, \"retx_timeout\": %llu, \"resp_frames\": %llu, \"acks\": %llu, "
           "\"stale_acks\": %llu, \"ack_errors\": %llu, \"nacks\": %llu, \"cmds\": %llu, "
           "\"cmd_exec\": %llu, \"cmd_dup\": %llu, \"starts\": %llu, \"stops\": %llu, "
           "\"resets\": %llu, \"foreign\": %llu, \"bad\": %llu, \"pkts\": %llu, \"words\": %llu, "
           "\"tx_fail\": %llu, \"delay\": %u, \"delay_up\": %llu, \"delay_down\": %llu, "
           "\"ack_frames\": %llu}\n",
           (unsigned long long)c->tx, (unsigned long long)c->tx_bytes,
           (unsigned long long)c->retx, (unsigned long long)c->retx_early,
           (unsigned long long)c->retx_nack, (unsigned long long)c->retx_timeout,
           (unsigned long long)c->resp_frames, (unsigned long long)c->acks,
           (unsigned long long)c->stale_acks, (unsigned long long)c->ack_errors,
           (unsigned long long)c->nacks, (unsigned long long)c->cmds,
           (unsigned long long)c->cmd_exec, (unsigned long long)c->cmd_dup,
           (unsigned long long)c->starts, (unsigned long long)c->stops,
           (unsigned long long)c->resets, (unsigned long long)c->foreign,
           (unsigned long long)c->bad, (unsigned long long)c->pkts,
           (unsigned long long)c->words, (unsigned long long)c->tx_fail, E.delay,
           (unsigned long long)c->delay_up, (unsigned long long)c->delay_down,
           (unsigned long long)c->ack_frames);
    fflush(stdout);
}

static void die(const char *msg)
{
    fprintf(stderr, "fade-emu: %s: %s\n", msg, strerror(errno));
    exit(1);
}

static struct slot *slot_of(uint32_t pkt) { return &E.slots[pkt & (E.win - 1)]; }

static void send_raw(const uint8_t *frame, size_t len)
{
    if (send(E.fd, frame, len, 0) != (ssize_t)len)
        E.c.tx_fail++;
}

/* ---- stream state ------------------------------------------------------------------------------ */

static void reset_stream(void)
{
    unsigned i;
    for (i = 0; i < E.win; i++) {
        E.slots[i].sent = E.slots[i].confirmed = E.slots[i].queued = E.slots[i].last = 0;
        E.slots[i].pkt = i - E.win;
    }
    E.head = E.tail = E.next_send = 0;
    E.rq_head = E.rq_len = 0;
    E.streaming = E.stopping = E.last_done = 0;
}

static void queue_retx(uint32_t pkt)
{
    struct slot *s = slot_of(pkt);
    if (s->queued)
        return;
    s->queued = 1;
    E.retx_q[(E.rq_head + E.rq_len) % E.win] = pkt;
    E.rq_len++;
}

/* Fill free slots from the data source. */
static void generate(void)
{
    while ((E.streaming || (E.stopping && !E.last_done)) && E.head - E.tail < E.win) {
        struct slot *s = slot_of(E.head);
        uint8_t *w = s->frame + FADE_DATA_DATA_OFF;
        unsigned i, n = FADE_WORDS_PER_PACKET;
        int last = E.stopping && !E.last_done;
        if (last) {
            n = E.last_words >= 0 ? (unsigned)E.last_words : (unsigned)(rand_r(&E.rng) % 1024);
            if (n > 1023)
                n = 1023;
        }
        for (i = 0; i < n; i++, E.word += E.step)
            memcpy(w + 8 * i, &E.word, 8);  /* little-endian host: the wire order */
        if (last) {
            memset(w + 8 * n, 0, FADE_LAST_NWORDS_OFF - FADE_LAST_DATA_OFF - 8 * n);
            fade_put64le(s->frame + FADE_LAST_NWORDS_OFF, n);
            E.last_done = 1;
            E.streaming = 0;
        }
        fade_put16(s->frame + FADE_DATA_TYPE_OFF, last ? FADE_TYPE_LAST : FADE_TYPE_DATA);
        fade_put32(s->frame + FADE_DATA_PKT_OFF, E.head);
        s->pkt = E.head;
        s->sent = s->confirmed = s->queued = 0;
        s->last = (uint8_t)last;
        E.head++;
        E.c.pkts++;
        E.c.words += n;
    }
}

static void adapt(int retransmission)
{
    E.win_tx++;
    E.win_retx += retransmission;
    if (E.win_tx < E.adapt_window)
        return;
    if (E.win_retx * 100u > E.adapt_hi * E.win_tx) {
        E.delay = E.delay + E.delay_step > E.delay_max ? E.delay_max : E.delay + E.delay_step;
        E.c.delay_up++;
    } else if (E.win_retx * 100u < E.adapt_lo * E.win_tx) {
        E.delay = E.delay < E.delay_min + E.delay_step ? E.delay_min : E.delay - E.delay_step;
        E.c.delay_down++;
    }
    E.win_tx = E.win_retx = 0;
}

/* Prepare slot s for (re)transmission; the frame goes out in the caller's batch. */
static uint8_t *prepare(struct slot *s, int retransmission, uint64_t now)
{
    uint8_t *f = s->frame;
    memcpy(f + FADE_HEADER_DST_OFF, E.dest, 6);
    fade_put16(f + FADE_DATA_SEQ_OFF, E.seq);
    fade_put32(f + FADE_DATA_DELAY_OFF, E.delay);
    if (E.resp_pending) {
        fade_put16(f + FADE_DATA_RESP_CMD_OFF, E.resp_cmd);
        fade_put16(f + FADE_DATA_RESP_CSN_OFF, E.last_csn);
        fade_put64(f + FADE_DATA_RESP_VAL_OFF, E.resp_val);
        E.resp_pending = 0;
    } else {
        fade_put16(f + FADE_DATA_RESP_CMD_OFF, FADE_CMD_NONE);
        fade_put16(f + FADE_DATA_RESP_CSN_OFF, 0);
        fade_put64(f + FADE_DATA_RESP_VAL_OFF, 0);
    }
    s->seq = E.seq++;
    s->sent = 1;
    s->sent_ns = now;
    E.c.tx++;
    E.c.tx_bytes += FADE_DATA_LEN;
    if (retransmission)
        E.c.retx++;
    adapt(retransmission);
    return f;
}

/* The next frame to send, or NULL: early/NACK retransmissions, new packets, timeouts. */
static uint8_t *next_frame(uint64_t now)
{
    uint32_t p;
    while (E.rq_len) {
        struct slot *s;
        p = E.retx_q[E.rq_head];
        E.rq_head = (E.rq_head + 1) % E.win;
        E.rq_len--;
        s = slot_of(p);
        s->queued = 0;
        if (s->pkt == p && s->sent && !s->confirmed && p - E.tail < E.next_send - E.tail)
            return prepare(s, 1, now);
    }
    if (E.next_send != E.head)
        return prepare(slot_of(E.next_send++), 0, now);
    for (p = E.tail; p != E.next_send; p++) {
        struct slot *s = slot_of(p);
        if (!s->confirmed && now - s->sent_ns > E.timeout_ns) {
            E.c.retx_timeout++;
            return prepare(s, 1, now);
        }
    }
    return NULL;
}

/* ---- received frames ---------------------------------------------------------------------------- */

static void respond(uint16_t cmd, uint16_t csn, uint64_t val)
{
    E.csn_valid = 1;
    E.last_csn = csn;
    E.resp_cmd = cmd;
    E.resp_val = val;
    E.resp_pending = 1;
}

static void on_cmd(const struct fade_frame *fr)
{
    E.c.cmds++;
    if (fr->type == FADE_CMD_RESET) {
        E.c.resets++;
        reset_stream();
        E.csn_valid = 0;
        E.resp_pending = 0;
        return;
    }
    if (E.csn_valid && fr->csn == E.last_csn) {  /* a repeat: re-send, do not execute */
        E.c.cmd_dup++;
        E.resp_pending = 1;
        if (fr->type == FADE_CMD_START)
            memcpy(E.dest, fr->src, 6);
        return;
    }
    switch (fr->type) {
    case FADE_CMD_START:
        E.c.starts++;
        reset_stream();
        memcpy(E.dest, fr->src, 6);
        E.streaming = 1;
        respond(FADE_CMD_START, fr->csn, E.ack_records);
        break;
    case FADE_CMD_STOP:
        E.c.stops++;
        if (E.streaming) {
            E.streaming = 0;
            E.stopping = 1;
        }
        respond(FADE_CMD_STOP, fr->csn, E.ack_records);
        break;
    default:
        E.c.cmd_exec++;
        respond(fr->type, fr->csn, (uint64_t)fr->arg * 2 + 1);
        break;
    }
}

/* One ACK / NACK record (an ACK frame carries 1..--ack-records of them). */
static void on_ack(const struct fade_ack_rec *r)
{
    uint32_t p = r->pkt, q;
    struct slot *s;
    if (p - E.tail >= E.next_send - E.tail) {  /* not a sent packet in the buffer */
        if (fade_pkt_gt(E.tail, p) && p != E.tail)
            E.c.stale_acks++;       /* older: a duplicate ACK */
        else
            E.c.ack_errors++;       /* never sent: protocol error */
        return;
    }
    s = slot_of(p);
    if (r->type == FADE_TYPE_NACK) {
        E.c.nacks++;
        if (!s->confirmed)
            queue_retx(p);
        return;
    }
    E.c.acks++;
    if (s->confirmed) {
        E.c.stale_acks++;
        return;
    }
    s->confirmed = 1;
    /* early retransmission (Figure 4b) */
    for (q = E.tail; q != p; q++) {
        struct slot *o = slot_of(q);
        if (!o->confirmed && o->sent && o->seq != r->seq && fade_seq_gt(r->seq, o->seq)) {
            E.c.retx_early++;
            queue_retx(q);
        }
    }
    while (E.tail != E.next_send && slot_of(E.tail)->confirmed) {
        slot_of(E.tail)->confirmed = 0;
        slot_of(E.tail)->sent = 0;
        E.tail++;
    }
}

static void on_frame(const uint8_t *d, size_t len)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    struct fade_frame fr;
    enum fade_kind k = fade_parse(d, len, &fr);
    int to_me = len >= 6 && memcmp(fr.dst, E.self, 6) == 0;
    if (!to_me && !(k == FADE_K_CMD && fr.type == FADE_CMD_RESET && !memcmp(fr.dst, bcast, 6))) {
        E.c.foreign++;
        return;
    }
    switch (k) {
    case FADE_K_ACK:
    case FADE_K_NACK: {
        struct fade_ack_rec r[FADE_ACK_RECORDS_MAX];
        unsigned i, n = fade_parse_acks(d, len, r, E.ack_records);
        E.c.ack_frames++;
        for (i = 0; i < n; i++)
            on_ack(&r[i]);
        break;
    }
    case FADE_K_CMD:
        on_cmd(&fr);
        break;
    default:
        E.c.bad++;
        break;
    }
}

/* ---- main ---------------------------------------------------------------------------------------- */

static void open_socket(const char *ifname)
{
    struct sockaddr_ll sll;
    struct ifreq ifr;
    int v = 1;
    E.fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (E.fd < 0)
        die("socket(AF_PACKET)");
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    if (ioctl(E.fd, SIOCGIFINDEX, &ifr) < 0)
        die(ifname);
    E.ifindex = ifr.ifr_ifindex;
    if (ioctl(E.fd, SIOCGIFHWADDR, &ifr) < 0)
        die("SIOCGIFHWADDR");
    if (!E.self[0] && !E.self[1] && !E.self[2] && !E.self[3] && !E.self[4] && !E.self[5])
        memcpy(E.self, ifr.ifr_hwaddr.sa_data, 6);
    setsockopt(E.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
    setsockopt(E.fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
    v = 4 << 20;
    setsockopt(E.fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(FADE_ETHERTYPE);
    sll.sll_ifindex = E.ifindex;
    if (bind(E.fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
        die("bind");
}

static void usage(void)
{
    fprintf(stderr, "usage: fade-emu -i IF [--mac MAC] [--window-log2 N] [--timeout-us US] "
                    "[--step K] [--first V] [--last-words K] [--adapt-window W] [--adapt-hi PCT] "
                    "[--adapt-lo PCT] [--delay-step C] [--delay-max C] [--delay-min C] "
                    "[--clock-mhz F] [--batch B] [--seconds S] [--cpu C] [--first-seq S] "
                    "[--ack-records R]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"mac", 1, 0, 'm'}, {"window-log2", 1, 0, 'N'}, {"timeout-us", 1, 0, 't'},
        {"step", 1, 0, 'k'}, {"first", 1, 0, 'f'}, {"last-words", 1, 0, 'l'},
        {"adapt-window", 1, 0, 'W'}, {"adapt-hi", 1, 0, 'H'}, {"adapt-lo", 1, 0, 'L'},
        {"delay-step", 1, 0, 'S'}, {"delay-max", 1, 0, 'X'}, {"delay-min", 1, 0, 'Y'},
        {"clock-mhz", 1, 0, 'c'}, {"batch", 1, 0, 'b'}, {"seconds", 1, 0, 's'},
        {"cpu", 1, 0, 'C'}, {"first-seq", 1, 0, 'q'}, {"ack-records", 1, 0, 'R'}, {0, 0, 0, 0}};
    const char *ifname = NULL;
    double seconds = 0, clock_mhz = 156.25;
    int opt, cpu = -1;
    unsigned i;
    uint64_t start, idle_since;
    uint8_t *batch[MAX_TX_BATCH];
    struct mmsghdr rmsg[RX_BATCH], tmsg[MAX_TX_BATCH];
    struct iovec riov[RX_BATCH], tiov[MAX_TX_BATCH];
    static uint8_t rbuf[RX_BATCH][2048];
    struct sigaction sa;

    memset(&E, 0, sizeof(E));
    E.win_log2 = 4;
    E.timeout_ns = 0;  /* default: the RTL core's TIMEOUT, 100,000 cycles (640 us at 156.25 MHz) */
    E.step = 1;
    E.last_words = -1;
    E.adapt_window = 256;
    E.adapt_hi = 20;
    E.adapt_lo = 2;
    E.delay_step = 16;
    E.delay_max = 20000;
    E.batch = 16;
    E.ack_records = FADE_ACK_RECORDS_MAX;
    E.rng = (unsigned)getpid();
    while ((opt = getopt_long(argc, argv, "i:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'i': ifname = optarg; break;
        case 'm': if (fade_parse_mac(optarg, E.self)) usage(); break;
        case 'N': E.win_log2 = (unsigned)atoi(optarg); break;
        case 't': E.timeout_ns = strtoull(optarg, NULL, 0) * 1000u; break;
        case 'k': E.step = strtoull(optarg, NULL, 0); break;
        case 'f': E.word = strtoull(optarg, NULL, 0); break;
        case 'l': E.last_words = atol(optarg); break;
        case 'W': E.adapt_window = (unsigned)atoi(optarg); break;
        case 'H': E.adapt_hi = (unsigned)atoi(optarg); break;
        case 'L': E.adapt_lo = (unsigned)atoi(optarg); break;
        case 'S': E.delay_step = (uint32_t)atoi(optarg); break;
        case 'X': E.delay_max = (uint32_t)atoi(optarg); break;
        case 'Y': E.delay_min = (uint32_t)atoi(optarg); break;
        case 'c': clock_mhz = atof(optarg); break;
        case 'b': E.batch = (unsigned)atoi(optarg); break;
        case 's': seconds = atof(optarg); break;
        case 'C': cpu = atoi(optarg); break;
        case 'q': E.seq = (uint16_t)strtoul(optarg, NULL, 0); break;  /* tests: start near a wrap */
        case 'R': E.ack_records = (unsigned)atoi(optarg); break;
        default: usage();
        }
    }
    if (!ifname || E.win_log2 > 16 || E.batch < 1 || E.batch > MAX_TX_BATCH || clock_mhz <= 0 ||
        E.ack_records < 1 || E.ack_records > FADE_ACK_RECORDS_MAX ||
        E.adapt_window < 1)
        usage();
    E.win = 1u << E.win_log2;
    E.ns_per_cycle = 1000.0 / clock_mhz;
    if (!E.timeout_ns) {
        /* the RTL's, but at least twice the time a whole window takes at 10 Gb/s (the RTL's
         * largest window, 2^6, takes 0.42 ms; the emulator goes to 2^16) */
        uint64_t win_ns = (uint64_t)E.win * FADE_DATA_LEN * 8u / 10u;
        E.timeout_ns = (uint64_t)(RTL_TIMEOUT_CYCLES * E.ns_per_cycle);
        if (E.timeout_ns < 2 * win_ns)
            E.timeout_ns = 2 * win_ns;
    }
    E.delay = E.delay_min;
    if (cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        sched_setaffinity(0, sizeof(set), &set);
    }
    open_socket(ifname);
    E.slots = calloc(E.win, sizeof(*E.slots));
    E.retx_q = calloc(E.win, sizeof(*E.retx_q));
    if (!E.slots || !E.retx_q)
        die("calloc");
    for (i = 0; i < E.win; i++) {
        E.slots[i].frame = calloc(1, FADE_DATA_LEN);
        if (!E.slots[i].frame)
            die("calloc");
        fade_build_header(E.slots[i].frame, E.dest, E.self);
    }
    reset_stream();
    for (i = 0; i < RX_BATCH; i++) {
        riov[i].iov_base = rbuf[i];
        riov[i].iov_len = sizeof(rbuf[i]);
        memset(&rmsg[i], 0, sizeof(rmsg[i]));
        rmsg[i].msg_hdr.msg_iov = &riov[i];
        rmsg[i].msg_hdr.msg_iovlen = 1;
    }
    for (i = 0; i < MAX_TX_BATCH; i++) {
        memset(&tmsg[i], 0, sizeof(tmsg[i]));
        tmsg[i].msg_hdr.msg_iov = &tiov[i];
        tmsg[i].msg_hdr.msg_iovlen = 1;
        tiov[i].iov_len = FADE_DATA_LEN;
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    printf("ready mac=%02x:%02x:%02x:%02x:%02x:%02x if=%s window=%u\n", E.self[0], E.self[1],
           E.self[2], E.self[3], E.self[4], E.self[5], ifname, E.win);
    fflush(stdout);
    start = idle_since = now_ns();

    while (!stop_requested) {
        uint64_t now;
        int n, j, work = 0;
        unsigned nb = 0;

        if (dump_requested) {
            dump_requested = 0;
            print_counters();
        }
        n = recvmmsg(E.fd, rmsg, RX_BATCH, MSG_DONTWAIT, NULL);
        for (j = 0; j < n; j++)
            on_frame(rbuf[j], rmsg[j].msg_len);
        work |= n > 0;
        generate();
        now = now_ns();
        if (seconds > 0 && now - start > (uint64_t)(seconds * 1e9))
            break;
        /* transmit: a batch at full speed, or one frame per delay when the delay is not 0 */
        if (now >= E.next_tx_ns) {
            unsigned max = E.delay ? 1 : E.batch;
            while (nb < max) {
                uint8_t *f = next_frame(now);
                if (!f)
                    break;
                batch[nb++] = f;
            }
            if (E.delay && nb)
                E.next_tx_ns = now + (uint64_t)(E.delay * E.ns_per_cycle);
        }
        if (nb) {
            unsigned k = 0;
            for (i = 0; i < nb; i++)
                tiov[i].iov_base = batch[i];
            while (k < nb) {
                int r = sendmmsg(E.fd, tmsg + k, nb - k, 0);
                if (r <= 0) {
                    if (r < 0 && (errno == EINTR || errno == ENOBUFS || errno == EAGAIN))
                        continue;
                    E.c.tx_fail += nb - k;
                    break;
                }
                k += (unsigned)r;
            }
            work = 1;
        } else if (E.resp_pending && E.dest[0] | E.dest[1] | E.dest[2] | E.dest[3] | E.dest[4] |
                                         E.dest[5]) {
            uint8_t f[FADE_MIN_FRAME];
            fade_build_resp(f, E.dest, E.self, E.resp_cmd, E.last_csn, E.resp_val);
            send_raw(f, sizeof(f));
            E.resp_pending = 0;
            E.c.resp_frames++;
            work = 1;
        }
        if (work) {
            idle_since = now;
            continue;
        }
        /* nothing to do: wait for a frame, the next timeout, or the pacing delay */
        {
            uint64_t wait = now - idle_since < 200000 ? 0 : 100000000;  /* spin 200 us first */
            struct pollfd p = {.fd = E.fd, .events = POLLIN};
            struct timespec ts;
            uint32_t q;
            if (wait) {
                for (q = E.tail; q != E.next_send; q++) {
                    struct slot *s = slot_of(q);
                    uint64_t due = s->sent_ns + E.timeout_ns;
                    if (!s->confirmed)
                        wait = due > now ? (due - now < wait ? due - now : wait) : 0;
                }
                if (E.next_tx_ns > now && E.next_tx_ns - now < wait)
                    wait = E.next_tx_ns - now;
                ts.tv_sec = (time_t)(wait / 1000000000u);
                ts.tv_nsec = (long)(wait % 1000000000u);
                ppoll(&p, 1, &ts, NULL);
            }
        }
    }
    print_counters();
    return 0;
}
