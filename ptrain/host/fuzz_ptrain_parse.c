/*
 * Fuzzing ptrain_parse (and the builder that makes its seed frames).
 *
 * Built two ways (host.mk beside this file):
 *  - with clang -fsanitize=fuzzer: a libFuzzer target (LLVMFuzzerTestOneInput). The first input
 *    byte steers the harness: bit 0 makes the IP and UDP lengths agree with the frame's length,
 *    bit 1 makes the pktgen seconds/microseconds agree with tx_time, bit 2 repairs the UDP
 *    checksum (in that order), so the fuzzer gets past those checks instead of stopping at them.
 *  - with -DFUZZ_STANDALONE (any C compiler): a deterministic driver that runs N million frames
 *    through the same checks: tester frames from ptrain_build_*() with random headers (tags,
 *    IPv4 / IPv6), sizes, fields and stamps, mutated at random (bit flips and bytes biased to the
 *    headers, cuts, extensions, repairs), plus pure random bytes. `--write-corpus DIR` writes
 *    seed inputs for libFuzzer instead. It fails when some verdict was never reached.
 *
 * Invariants checked on every input (a violation aborts): the verdict is in range and the same
 * twice; an accepted frame has a size between the shortest tester frame and its wire length,
 * index < train_len and consistent times (a compact frame: train_len 0, train = seq - index),
 * and a valid UDP checksum when captured whole; it stays
 * accepted, with the same fields, with a longer wire length or padding after its datagram.
 * Every parse reads an exact-size heap copy, so AddressSanitizer catches a read past the end.
 */
#include "ptrain_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME 2048

static void fail(const char *why, const uint8_t *f, size_t len)
{
    size_t i;
    fprintf(stderr, "fuzz_ptrain_parse: invariant violated: %s (len %zu)\n", why, len);
    for (i = 0; i < len && i < 160; i++)
        fprintf(stderr, "%02x%s", f[i], (i % 32 == 31) ? "\n" : "");
    fputc('\n', stderr);
    abort();
}

#define ENSURE(cond, why)      \
    do {                       \
        if (!(cond))           \
            fail(why, f, len); \
    } while (0)

static enum ptrain_verdict parse_copy(const uint8_t *f, size_t n, size_t wl, struct ptrain_frame *p)
{
    uint8_t *c = malloc(n ? n : 1);
    enum ptrain_verdict v;
    if (!c)
        abort();
    memcpy(c, f, n);
    v = ptrain_parse(c, n, wl, p);
    free(c);
    return v;
}

/* The pseudo header's addresses, summed. */
static uint32_t addr_sum(const uint8_t *f, size_t l3, int v6)
{
    return v6 ? ptrain_ones_sum(f + l3 + PTRAIN_IPV6_SRC_OFF, PTRAIN_IPV6_ADDRS_LEN, 0)
              : ptrain_ones_sum(f + l3 + PTRAIN_IPV4_SRC_OFF, PTRAIN_IPV4_ADDRS_LEN, 0);
}

/* Where a frame's IP and UDP headers are, the way the parser looks (0: not IPv4/IPv6 UDP). */
static int locate(const uint8_t *f, size_t len, size_t *l3, size_t *l4, int *ipv6)
{
    size_t off = PTRAIN_ETH_ETHERTYPE_OFF;
    int t;
    if (len < PTRAIN_ETH_LEN)
        return 0;
    for (t = 0; t < 2 && (ptrain_rd16(f + off) == PTRAIN_ETHERTYPE_VLAN || ptrain_rd16(f + off) == 0x88A8); t++) {
        off += PTRAIN_TAG_LEN;
        if (len < off + PTRAIN_ETH_ETHERTYPE_LEN)
            return 0;
    }
    *l3 = off + PTRAIN_ETH_ETHERTYPE_LEN;
    if (ptrain_rd16(f + off) == PTRAIN_ETHERTYPE_IPV4 && len >= *l3 + PTRAIN_IPV4_LEN && (f[*l3] & 0xF) >= 5) {
        *l4 = *l3 + (f[*l3] & 0xFu) * 4;
        *ipv6 = 0;
    } else if (ptrain_rd16(f + off) == PTRAIN_ETHERTYPE_IPV6 && len >= *l3 + PTRAIN_IPV6_LEN) {
        *l4 = *l3 + PTRAIN_IPV6_LEN;
        *ipv6 = 1;
    } else {
        return 0;
    }
    return len >= *l4 + PTRAIN_UDP_LEN;
}

static void fix_lengths(uint8_t *f, size_t len)
{
    size_t l3, l4;
    int v6;
    if (!locate(f, len, &l3, &l4, &v6) || len - l3 > 0xFFFF)
        return;
    ptrain_wr16(f + l4 + PTRAIN_UDP_LEN_OFF, (uint32_t)(len - l4));
    if (v6)
        ptrain_wr16(f + l3 + PTRAIN_IPV6_PAYLOAD_LEN_OFF, (uint32_t)(len - l4));
    else
        ptrain_wr16(f + l3 + PTRAIN_IPV4_TOTAL_LEN_OFF, (uint32_t)(len - l3));
}

static void fix_time(uint8_t *f, size_t len)
{
    size_t l3, l4, h;
    int v6;
    uint64_t ns;
    if (!locate(f, len, &l3, &l4, &v6) || len < l4 + PTRAIN_UDP_LEN + PTRAIN_TESTER_LEN)
        return;
    h = l4 + PTRAIN_UDP_LEN;
    ns = ptrain_rd64(f + h + PTRAIN_TESTER_TX_TIME_OFF) >> 16;
    ptrain_wr32(f + h + PTRAIN_TESTER_TV_SEC_OFF, (uint32_t)(ns / 1000000000u));
    ptrain_wr32(f + h + PTRAIN_TESTER_TV_USEC_OFF, (uint32_t)(ns % 1000000000u / 1000u));
}

static void fix_udp_csum(uint8_t *f, size_t len)
{
    size_t l3, l4;
    int v6;
    unsigned ulen;
    uint32_t ps;
    uint16_t s;
    if (!locate(f, len, &l3, &l4, &v6))
        return;
    ulen = ptrain_rd16(f + l4 + PTRAIN_UDP_LEN_OFF);
    if (ulen < PTRAIN_UDP_LEN || l4 + ulen > len)
        return;
    ps = addr_sum(f, l3, v6);
    ptrain_wr16(f + l4 + PTRAIN_UDP_CHECKSUM_OFF, 0);
    s = ptrain_ones_sum(f + l4, ulen, ps + PTRAIN_IP_PROTO_UDP + ulen);
    s = (uint16_t)~s;
    ptrain_wr16(f + l4 + PTRAIN_UDP_CHECKSUM_OFF, s ? s : 0xFFFF);
}

static enum ptrain_verdict check_one(const uint8_t *f, size_t len)
{
    static uint8_t pad[MAX_FRAME + 16];
    struct ptrain_frame a, b;
    enum ptrain_verdict v, w;

    if (len > MAX_FRAME)
        len = MAX_FRAME;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    v = parse_copy(f, len, len, &a);
    ENSURE((unsigned)v < PTRAIN_VERDICT_COUNT, "verdict out of range");
    w = parse_copy(f, len, len, &b);
    ENSURE(v == w && memcmp(&a, &b, sizeof(a)) == 0, "not deterministic");
    if (v != PTRAIN_OK)
        return v;
    ENSURE(a.size <= len && a.size >= PTRAIN_MIN_FRAME_COMPACT, "size out of range");
    ENSURE(a.size >= (a.ipv6 ? PTRAIN_MIN_FRAME_IPV6 : a.compact ? PTRAIN_MIN_FRAME_COMPACT : PTRAIN_MIN_FRAME_IPV4),
           "size below the minimum");
    if (a.compact) {
        ENSURE(!a.ipv6 && a.train_len == 0 && a.index < PTRAIN_COMPACT_TRAIN_MAX &&
               a.train == a.seq - a.index && a.frame_len == a.size, "compact fields");
    } else {
        ENSURE(a.index < a.train_len, "index");
        ENSURE(ptrain_time_consistent(a.tx_time, a.tv_sec, a.tv_usec), "time");
    }
    ENSURE(a.vlan >= -1 && a.vlan <= 4095, "vlan");
    {
        size_t l3, l4;
        int v6;
        ENSURE(locate(f, len, &l3, &l4, &v6) && v6 == a.ipv6 &&
               l4 + ptrain_rd16(f + l4 + PTRAIN_UDP_LEN_OFF) == a.size, "size from the UDP length");
        if (ptrain_rd16(f + l4 + PTRAIN_UDP_CHECKSUM_OFF)) {
            unsigned ulen = ptrain_rd16(f + l4 + PTRAIN_UDP_LEN_OFF);
            uint32_t ps = addr_sum(f, l3, v6);
            uint16_t s = ptrain_ones_sum(f + l4, ulen, ps + PTRAIN_IP_PROTO_UDP + ulen);
            ENSURE(s == 0 || s == 0xFFFF, "accepted with a bad checksum");
        }
    }
    memset(&b, 0, sizeof(b));
    ENSURE(parse_copy(f, len, len + 100, &b) == PTRAIN_OK && memcmp(&a, &b, sizeof(a)) == 0,
           "a longer wire length changes the result");
    memcpy(pad, f, len);
    memset(pad + len, 0x5A, 16);
    memset(&b, 0, sizeof(b));
    ENSURE(parse_copy(pad, len + 16, len + 16, &b) == PTRAIN_OK && memcmp(&a, &b, sizeof(a)) == 0,
           "padding changes the result");
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t f[MAX_FRAME];
    size_t len;
    if (size < 1)
        return 0;
    len = size - 1 > MAX_FRAME ? MAX_FRAME : size - 1;
    memcpy(f, data + 1, len);
    if (data[0] & 1)
        fix_lengths(f, len);
    if (data[0] & 2)
        fix_time(f, len);
    if (data[0] & 4)
        fix_udp_csum(f, len);
    check_one(f, len);
    return 0;
}

#ifdef FUZZ_STANDALONE

/* ---- deterministic driver ----------------------------------------------------------------- */

static uint64_t rng_state = 0x853C49E6748FEA9Bull;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;  /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static unsigned rn(unsigned n) { return (unsigned)(rnd() % n); }

/* A tester frame from the builder, with random headers and fields; returns its length. */
static size_t gen_frame(uint8_t *f)
{
    struct ptrain_headers h;
    struct ptrain_tx tx;
    size_t min, size;
    uint32_t tl = rn(4) ? 1 + rn(1000) : (uint32_t)rnd();
    unsigned i;

    ptrain_headers_default(&h, rn(3) == 0);
    h.vlan = rn(3) == 0 ? (int)rn(4096) : -1;
    h.pcp = rn(8);
    h.ttl = (uint8_t)rnd();
    h.sport = (uint16_t)rnd();
    h.dport = rn(2) ? PTRAIN_UDP_PORT : (uint16_t)rnd();
    for (i = 0; i < 16; i++) {
        h.src_ip[i] = (uint8_t)rnd();
        h.dst_ip[i] = (uint8_t)rnd();
    }
    min = ptrain_min_size(&h);   /* compact frames (IPv4 below 84/88 bytes) included */
    size = min + (rn(4) ? rn(64) : rn(MAX_FRAME - 200));
    if (ptrain_build_init(f, size, &h, &tx) ||
        ptrain_build_fields(f, &tx, (uint32_t)rnd(), (uint32_t)rnd(),
                            rn(tx.compact && tl > PTRAIN_COMPACT_TRAIN_MAX ? PTRAIN_COMPACT_TRAIN_MAX : tl), tl,
                            (uint8_t)rnd(), rn(16)))
        abort();
    ptrain_build_stamp(f, &tx, rnd() >> rn(20));
    if (rn(8) == 0)  /* a payload that is not zero (the checksum no longer holds) */
        for (i = (unsigned)(tx.hdr + PTRAIN_TESTER_LEN); i < size; i++)
            f[i] = (uint8_t)rnd();
    return size;
}

static size_t mutate(uint8_t *f, size_t len)
{
    unsigned k, n = 1 + rn(3);
    for (k = 0; k < n; k++) {
        switch (rn(9)) {
        case 0:
            if (len)
                f[rn((unsigned)len)] ^= (uint8_t)(1u << rn(8));
            break;
        case 1:  /* a header byte: Ethernet, IP, UDP, tester header */
            if (len)
                f[rn(len < 110 ? (unsigned)len : 110)] = (uint8_t)rnd();
            break;
        case 2:
            if (len)
                len = rn((unsigned)len + 1);
            break;
        case 3: {
            size_t add = rn(40), i;
            for (i = 0; i < add && len < MAX_FRAME; i++)
                f[len++] = (uint8_t)(rn(2) ? 0 : rnd());
            break;
        }
        case 4:
            fix_lengths(f, len);
            break;
        case 5:
            fix_time(f, len);
            break;
        case 6: {  /* tester fields: index / train_len / version / fragment bits */
            size_t l3, l4;
            int v6;
            if (locate(f, len, &l3, &l4, &v6) && len >= l4 + PTRAIN_UDP_LEN + PTRAIN_TESTER_LEN) {
                uint8_t *h = f + l4 + PTRAIN_UDP_LEN;
                switch (rn(4)) {
                case 0: ptrain_wr32(h + PTRAIN_TESTER_INDEX_OFF, (uint32_t)rnd()); break;
                case 1: ptrain_wr32(h + PTRAIN_TESTER_TRAIN_LEN_OFF, rn(3)); break;
                case 2: h[PTRAIN_TESTER_VER_FLAGS_OFF] = (uint8_t)rnd(); break;
                default:
                    if (!v6)
                        ptrain_wr16(f + l3 + PTRAIN_IPV4_FRAG_OFF, rn(2) ? 0x2000 : rn(65536));
                }
            }
            break;
        }
        case 7: {  /* cut inside the tester header */
            size_t l3, l4;
            int v6;
            if (locate(f, len, &l3, &l4, &v6)) {
                size_t cut = l4 + PTRAIN_UDP_LEN + rn(PTRAIN_TESTER_LEN + 1);
                if (cut < len)
                    len = cut;
            }
            break;
        }
        default:
            fix_udp_csum(f, len);
            break;
        }
    }
    return len;
}

int main(int argc, char **argv)
{
    static uint8_t f[MAX_FRAME];
    unsigned long long counts[PTRAIN_VERDICT_COUNT] = {0}, total = 0, i, frames;
    double millions = 2.0;
    const char *corpus = NULL;
    int a, v;

    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--millions") && a + 1 < argc)
            millions = atof(argv[++a]);
        else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
            rng_state = strtoull(argv[++a], NULL, 0) | 1;
        else if (!strcmp(argv[a], "--write-corpus") && a + 1 < argc)
            corpus = argv[++a];
        else {
            fprintf(stderr, "usage: %s [--millions N] [--seed S] [--write-corpus DIR]\n", argv[0]);
            return 2;
        }
    }

    if (corpus) {
        for (i = 0; i < 64; i++) {
            char path[4096];
            FILE *fp;
            size_t len = gen_frame(f + 1);
            f[0] = (uint8_t)rn(8);
            snprintf(path, sizeof(path), "%s/seed_%02llu", corpus, i);
            fp = fopen(path, "wb");
            if (!fp || fwrite(f, 1, len + 1, fp) != len + 1) {
                perror(path);
                return 1;
            }
            fclose(fp);
        }
        printf("wrote 64 seed inputs to %s\n", corpus);
        return 0;
    }

    frames = (unsigned long long)(millions * 1e6);
    for (i = 0; i < frames; i++) {
        size_t len;
        unsigned kind = rn(10);
        if (kind == 0) {
            size_t k;
            len = rn(200);
            for (k = 0; k < len; k++)
                f[k] = (uint8_t)rnd();
            if (len >= PTRAIN_ETH_LEN && rn(2))
                ptrain_wr16(f + PTRAIN_ETH_ETHERTYPE_OFF, rn(2) ? PTRAIN_ETHERTYPE_IPV4 : PTRAIN_ETHERTYPE_IPV6);
        } else {
            len = gen_frame(f);
            if (kind >= 3)
                len = mutate(f, len);
        }
        counts[check_one(f, len)]++;
        total++;
    }
    printf("fuzz_ptrain_parse: %llu frames, 0 invariant violations\n", total);
    for (v = 0; v < PTRAIN_VERDICT_COUNT; v++)
        printf("  %-14s %llu\n", ptrain_verdict_name((enum ptrain_verdict)v), counts[v]);
    for (v = 0; v < PTRAIN_VERDICT_COUNT; v++)
        if (counts[v] == 0) {
            printf("fuzz_ptrain_parse: verdict %s never reached\n",
                   ptrain_verdict_name((enum ptrain_verdict)v));
            return 1;
        }
    return 0;
}

#endif
