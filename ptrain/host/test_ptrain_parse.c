/*
 * Unit tests of ptrain_parse() and ptrain_build_*() (ptrain_frame.h), run under ASan + UBSan by
 * `make -f scripts/host.mk test-ptrain`.
 *
 *  1. Embedded vectors: frames made by fastpath.ptrain.frame.build() (and broken by hand), with
 *     what frame.parse() says of them (ptrain/tests/test_ptrain_baseline.py checks that Python
 *     still says so).
 *  2. Frames built by the C builder for every header variant, parsed back, then broken in each
 *     way the acceptance rules name (foreign, fragment, truncated, bad_length, bad_checksum,
 *     bad_fields, time_mismatch) and in the ways that must still pass (checksum 0, a capture cut
 *     after the tester header, the wraps of seq and tx_time).
 *     Compact frames (IPv4 below 84 / 88 bytes) likewise.
 *  3. `--vectors FILE`: lines written by the pytest test from Python's build() and parse():
 *       parse VERDICT WIRE_LEN SEQ STREAM TRAIN INDEX TRAIN_LEN TX_TIME TV_SEC TV_USEC FLAGS
 *             FRAME_LEN SIZE IPV6 VLAN HEX      (fields 0 unless VERDICT is ok; VLAN -1: none)
 *       build SIZE SEQ TRAIN INDEX TRAIN_LEN UNIX_NS STREAM FLAGS VLAN PCP IPV6 TTL SPORT DPORT
 *             SRC_MAC DST_MAC SRC_IP DST_IP HEX (MACs and IPs in hex; the C builder must make HEX)
 * Prints "test_ptrain_parse: N passed, M failed"; exit status 1 on any failure.
 */
#include "ptrain_frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long passed, failed;

#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (cond) {                                                   \
            passed++;                                                 \
        } else {                                                      \
            failed++;                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
        }                                                             \
    } while (0)

static size_t unhex(const char *s, uint8_t *out, size_t max)
{
    size_t n = 0;
    while (s[0] && s[1] && n < max) {
        unsigned b;
        if (sscanf(s, "%2x", &b) != 1)
            break;
        out[n++] = (uint8_t)b;
        s += 2;
    }
    return n;
}

/* Parse from an exact-size heap copy, so AddressSanitizer sees any read past caplen. */
static enum ptrain_verdict parse_copy(const uint8_t *f, size_t caplen, size_t wire_len,
                                      struct ptrain_frame *out)
{
    uint8_t *c = malloc(caplen ? caplen : 1);
    enum ptrain_verdict v;
    if (!c)
        abort();
    memcpy(c, f, caplen);
    v = ptrain_parse(c, caplen, wire_len, out);
    free(c);
    return v;
}

/* ---- 1. embedded vectors from frame.build() ---------------------------------------------- */

struct vector {
    const char *verdict, *hex;
    uint32_t seq, train, index, train_len, size;
    uint64_t tx_time;
    int vlan, ipv6;
};

/* T = 1,700,000,000.123456789 s as fp_time; frame.build(size, seq, train, index, train_len, T') */
static const struct vector vectors[] = {
    /* build(84, 0, 0, 0, 10, T) */
    {"ok", "0200000000020200000000010800450000460001000040118e70c0000201c63364010009000900325af2"
           "be9be955000000006553f1000001e2401000005400000000000000000000000a9cfe3d85cd1500001fd0",
     0, 0, 0, 10, 84, 11312546958881914880ull, -1, 0},
    /* build(130, 0xFFFFFFFF, 7, 9, 10, T + 12345, stream=3, flags=FLAG_LAST, IPv6, VLAN 100 PCP 5) */
    {"ok", "0200000000020200000000018100a06486dd600000000048114020010db8000000000000000000000001"
           "20010db8000000000000000000000002000900090048e946be9be955ffffffff6553f1000001e2401203"
           "008200000007000000090000000a9cfe3d85cd153039ef9600000000000000000000000000000000000000"
           "000000",
     0xFFFFFFFFu, 7, 9, 10, 130, 11312546958881927225ull, 100, 1},
    /* build(100, 5, 1, 2, 10, T) with the last byte flipped */
    {"bad_checksum", "0200000000020200000000010800450000560001000040118e60c0000201c63364010009000900"
                     "425ababe9be955000000056553f1000001e2401000006400000001000000020000000a9cfe3d"
                     "85cd1500001fd000000000000000000000000000000001",
     0, 0, 0, 0, 0, 0, 0, 0},
    /* build(60, 0x12345678, 0, 300, 1000, T, stream=7, flags=3): the compact header */
    {"ok", "02000000000202000000000108004500002e012c000040118d5dc0000201c633640100090009001a0000"
           "be9be955123456789cfe3d85cd1500002307",
     0x12345678u, 0x12345678u - 300u, 300, 0, 60, 11312546958881914880ull, -1, 0},
    /* build(70, 5, 0, 65535, 65536, T + 1, VLAN 9): compact, index 65535 */
    {"ok", "02000000000202000000000181000009080045000034ffff000040118e83c0000201c63364010009000900"
           "200000be9be955000000059cfe3d85cd1500012000000000000000",
     5, 5u - 65535u, 65535, 0, 70, 11312546958881914881ull, 9, 0},
    /* the same frame cut after 70 bytes */
    {"truncated", "0200000000020200000000010800450000560001000040118e60c0000201c633640100090009004"
                  "25ababe9be955000000056553f1000001e240100000640000000100000002",
     0, 0, 0, 0, 0, 0, 0, 0},
};

static void test_embedded(void)
{
    size_t i;
    for (i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        const struct vector *v = &vectors[i];
        uint8_t f[2048];
        struct ptrain_frame p;
        size_t n = unhex(v->hex, f, sizeof(f));
        enum ptrain_verdict got = parse_copy(f, n, n, &p);
        CHECK(!strcmp(ptrain_verdict_name(got), v->verdict), "vector %zu: %s, expected %s", i,
              ptrain_verdict_name(got), v->verdict);
        if (got == PTRAIN_OK)
            CHECK(p.seq == v->seq && p.train == v->train && p.index == v->index &&
                  p.train_len == v->train_len && p.size == v->size && p.tx_time == v->tx_time &&
                  p.vlan == v->vlan && p.ipv6 == v->ipv6, "vector %zu: fields", i);
    }
}

/* ---- 2. frames of the C builder, broken on purpose ---------------------------------------- */

static const uint64_t T_NS = 1700000000123456789ull;

static size_t make(uint8_t *f, struct ptrain_tx *tx, int ipv6, int vlan, size_t size)
{
    struct ptrain_headers h;
    ptrain_headers_default(&h, ipv6);
    h.vlan = vlan;
    h.pcp = vlan >= 0 ? 3 : 0;
    if (!size)
        size = ptrain_headers_len(&h) + PTRAIN_TESTER_LEN;
    if (ptrain_build_init(f, size, &h, tx) || ptrain_build_fields(f, tx, 1000, 4, 3, 8, 2, 0))
        return 0;
    ptrain_build_stamp(f, tx, T_NS);
    return size;
}

/* The UDP checksum over the frame is valid (or zero). */
static int udp_ok(const uint8_t *f, const struct ptrain_tx *tx)
{
    unsigned udp_len = ptrain_rd16(f + tx->l4 + PTRAIN_UDP_LEN_OFF);
    uint32_t ps = tx->l4 - tx->l3 == PTRAIN_IPV6_LEN
                      ? ptrain_ones_sum(f + tx->l3 + PTRAIN_IPV6_SRC_OFF, PTRAIN_IPV6_ADDRS_LEN, 0)
                      : ptrain_ones_sum(f + tx->l3 + PTRAIN_IPV4_SRC_OFF, PTRAIN_IPV4_ADDRS_LEN, 0);
    uint16_t s = ptrain_ones_sum(f + tx->l4, udp_len, ps + PTRAIN_IP_PROTO_UDP + udp_len);
    return s == 0xFFFF || s == 0;
}

static void zero_udp_csum(uint8_t *f, const struct ptrain_tx *tx)
{
    ptrain_wr16(f + tx->l4 + PTRAIN_UDP_CHECKSUM_OFF, 0);
}

#define EXPECT(f, n, wl, want, what)                                                      \
    do {                                                                                  \
        enum ptrain_verdict got_ = parse_copy(f, n, wl, NULL);                            \
        CHECK(got_ == (want), "%s (v6 %d vlan %d): %s, expected %s", what, ipv6, vlan,   \
              ptrain_verdict_name(got_), ptrain_verdict_name(want));                      \
    } while (0)

static void test_variant(int ipv6, int vlan)
{
    uint8_t f[2048], g[2048];
    struct ptrain_tx tx;
    struct ptrain_frame p;
    size_t sizes[3] = {0, 300, 1514}, si, n, k;
    enum ptrain_verdict v;

    memset(g, 0, sizeof(g));
    for (si = 0; si < 3; si++) {
        n = make(f, &tx, ipv6, vlan, sizes[si]);
        CHECK(n > 0, "build");
        if (!n)
            return;
        CHECK(udp_ok(f, &tx), "the UDP checksum is valid as built");
        memset(&p, 0, sizeof(p));
        v = parse_copy(f, n, n, &p);
        CHECK(v == PTRAIN_OK, "round trip: %s", ptrain_verdict_name(v));
        CHECK(p.seq == 1000 && p.train == 4 && p.index == 3 && p.train_len == 8 && p.stream == 2 &&
              p.flags == 0 && p.frame_len == n && p.size == n && p.ipv6 == ipv6 && p.vlan == vlan &&
              p.tx_time == T_NS << 16 && p.tv_sec == 1700000000u && p.tv_usec == 123456u,
              "round trip fields");
        /* padding after the datagram (a path that pads) and a capture cut after the header */
        memcpy(g, f, n);
        memset(g + n, 0, 8);
        EXPECT(g, n + 8, n + 8, PTRAIN_OK, "trailing padding");
        EXPECT(f, tx.hdr + PTRAIN_TESTER_LEN, n, PTRAIN_OK, "snap after the header");
        /* every shorter capture: foreign when cut before the magic's end, truncated after */
        for (k = 0; k < n; k++) {
            v = parse_copy(f, k, k, NULL);
            CHECK(v == (k < tx.hdr + PTRAIN_PKTGEN_MAGIC_LEN ? PTRAIN_FOREIGN : PTRAIN_TRUNCATED),
                  "cut at %zu of %zu: %s", k, n, ptrain_verdict_name(v));
        }
        EXPECT(f, n, n - 1, PTRAIN_TRUNCATED, "shorter on the wire than the IP length");
    }

    n = make(f, &tx, ipv6, vlan, 200);
    /* foreign */
    memcpy(g, f, n);
    ptrain_wr16(g + tx.l3 - 2, 0x0806);
    EXPECT(g, n, n, PTRAIN_FOREIGN, "ARP ethertype");
    memcpy(g, f, n);
    g[tx.l3 + (ipv6 ? PTRAIN_IPV6_NEXT_HEADER_OFF : PTRAIN_IPV4_PROTO_OFF)] = 6;
    EXPECT(g, n, n, PTRAIN_FOREIGN, "TCP");
    memcpy(g, f, n);
    g[tx.l3] ^= 0x20;  /* IP version 6 <-> 4 under the wrong Ethertype */
    EXPECT(g, n, n, PTRAIN_FOREIGN, "IP version");
    memcpy(g, f, n);
    g[tx.hdr] ^= 1;
    EXPECT(g, n, n, PTRAIN_FOREIGN, "no magic");
    memcpy(g, f, n);
    g[tx.hdr + PTRAIN_TESTER_VER_FLAGS_OFF] = 0;  /* Linux pktgen: zeros after its header */
    EXPECT(g, n, n, PTRAIN_FOREIGN, "Linux pktgen frame");
    memcpy(g, f, n);
    g[tx.hdr + PTRAIN_TESTER_VER_FLAGS_OFF] = 0x3F;
    EXPECT(g, n, n, PTRAIN_FOREIGN, "version 3");
    g[tx.hdr + PTRAIN_TESTER_VER_FLAGS_OFF] = 0x2F;   /* the compact version: IPv4 reads it so */
    zero_udp_csum(g, &tx);
    EXPECT(g, n, n, ipv6 ? PTRAIN_FOREIGN : PTRAIN_OK, "version 2 (compact) in a long frame");
    if (!ipv6) {
        memcpy(g, f, n);
        g[tx.l3] = 0x44;
        EXPECT(g, n, n, PTRAIN_FOREIGN, "IHL 4");
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_FRAG_OFF, 0x0010);
        EXPECT(g, n, n, PTRAIN_FOREIGN, "a later fragment");
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_FRAG_OFF, 0x2000);
        EXPECT(g, n, n, PTRAIN_FRAGMENT, "first fragment");
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_FRAG_OFF, 0x4000);  /* DF alone is fine */
        EXPECT(g, n, n, PTRAIN_OK, "DF");
        /* a short Linux pktgen frame: UDP length below a tester header, cut before the version */
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l4 + PTRAIN_UDP_LEN_OFF, PTRAIN_UDP_LEN + 16);
        EXPECT(g, tx.hdr + 16, tx.hdr + 16, PTRAIN_FOREIGN, "short pktgen frame");
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_TOTAL_LEN_OFF, (uint32_t)(n - tx.l3 + 2));
        EXPECT(g, n + 2, n + 2, PTRAIN_BAD_LENGTH, "IP length unlike UDP length");
    } else {
        memcpy(g, f, n);
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV6_PAYLOAD_LEN_OFF, (uint32_t)(n - tx.l4 + 2));
        EXPECT(g, n + 2, n + 2, PTRAIN_BAD_LENGTH, "IPv6 length unlike UDP length");
    }
    /* UDP length below UDP + tester header, IP length agreeing */
    memcpy(g, f, n);
    ptrain_wr16(g + tx.l4 + PTRAIN_UDP_LEN_OFF, PTRAIN_UDP_LEN + PTRAIN_TESTER_LEN - 2);
    if (ipv6)
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV6_PAYLOAD_LEN_OFF, PTRAIN_UDP_LEN + PTRAIN_TESTER_LEN - 2);
    else
        ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_TOTAL_LEN_OFF, PTRAIN_IPV4_LEN + PTRAIN_UDP_LEN + PTRAIN_TESTER_LEN - 2);
    EXPECT(g, n, n, PTRAIN_BAD_LENGTH, "UDP length below the header");
    /* checksum */
    memcpy(g, f, n);
    g[n - 1] ^= 0x40;
    EXPECT(g, n, n, PTRAIN_BAD_CHECKSUM, "payload bit flipped");
    EXPECT(g, n - 1, n, PTRAIN_OK, "payload bit flipped but not captured");
    zero_udp_csum(g, &tx);
    EXPECT(g, n, n, PTRAIN_OK, "checksum 0 is not checked");
    /* fields */
    memcpy(g, f, n);
    zero_udp_csum(g, &tx);
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_INDEX_OFF, 8);
    EXPECT(g, n, n, PTRAIN_BAD_FIELDS, "index = train_len");
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_INDEX_OFF, 0);
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_TRAIN_LEN_OFF, 0);
    EXPECT(g, n, n, PTRAIN_BAD_FIELDS, "train_len 0");
    /* time */
    memcpy(g, f, n);
    zero_udp_csum(g, &tx);
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_TV_USEC_OFF, 123457);
    EXPECT(g, n, n, PTRAIN_TIME_MISMATCH, "tv_usec + 1");
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_TV_USEC_OFF, 1000000);
    EXPECT(g, n, n, PTRAIN_TIME_MISMATCH, "tv_usec 10^6");
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_TV_USEC_OFF, 123456);
    ptrain_wr32(g + tx.hdr + PTRAIN_TESTER_TV_SEC_OFF, 1700000001u);
    EXPECT(g, n, n, PTRAIN_TIME_MISMATCH, "tv_sec + 1");
}

static void test_tags_and_wraps(void)
{
    uint8_t f[256], g[256];
    struct ptrain_tx tx;
    struct ptrain_frame p;
    size_t n;
    int ipv6 = 0, vlan = 5;

    memset(g, 0, sizeof(g));

    /* a second tag (802.1ad outer) is skipped, a third makes the frame foreign */
    n = make(f, &tx, 0, 5, 120);
    memcpy(g, f, PTRAIN_ETH_VLAN_TPID_OFF);
    ptrain_wr16(g + PTRAIN_ETH_VLAN_TPID_OFF, 0x88A8);
    ptrain_wr16(g + PTRAIN_ETH_VLAN_TCI_OFF, 77);
    memcpy(g + PTRAIN_ETH_VLAN_LEN - PTRAIN_ETH_ETHERTYPE_LEN, f + PTRAIN_ETH_VLAN_TPID_OFF,
           n - PTRAIN_ETH_VLAN_TPID_OFF);
    memset(&p, 0, sizeof(p));
    EXPECT(g, n + PTRAIN_TAG_LEN, n + PTRAIN_TAG_LEN, PTRAIN_OK, "QinQ");
    ptrain_parse(g, n + PTRAIN_TAG_LEN, n + PTRAIN_TAG_LEN, &p);
    CHECK(p.vlan == 77 && p.size == n + PTRAIN_TAG_LEN, "QinQ: the outer VLAN, size %u", p.size);
    memmove(g + PTRAIN_ETH_VLAN_TPID_OFF + PTRAIN_TAG_LEN, g + PTRAIN_ETH_VLAN_TPID_OFF,
            n + PTRAIN_TAG_LEN - PTRAIN_ETH_VLAN_TPID_OFF);  /* three tags */
    ptrain_wr16(g + PTRAIN_ETH_VLAN_TPID_OFF, PTRAIN_ETHERTYPE_VLAN);
    ptrain_wr16(g + PTRAIN_ETH_VLAN_TCI_OFF, 1);
    EXPECT(g, n + 2 * PTRAIN_TAG_LEN, n + 2 * PTRAIN_TAG_LEN, PTRAIN_FOREIGN, "three tags");
    EXPECT(g, PTRAIN_ETH_VLAN_LEN - 1, PTRAIN_ETH_VLAN_LEN - 1, PTRAIN_FOREIGN, "cut inside the tags");

    /* seq 0xFFFFFFFF and a tx_time whose 64 bits wrap; csum stays valid */
    {
        struct ptrain_headers h;
        uint64_t ns = (UINT64_C(1) << 48) * 3 - 500;  /* << 16 wraps 2^64 */
        ptrain_headers_default(&h, 0);
        ptrain_build_init(f, 84, &h, &tx);
        ptrain_build_fields(f, &tx, 0xFFFFFFFFu, 0xFFFFFFFFu, 0, 1, 255, 0xF);
        CHECK(ptrain_build_stamp(f, &tx, ns) == ns << 16, "stamp value");
        CHECK(udp_ok(f, &tx), "checksum after a wrapping stamp");
        memset(&p, 0, sizeof(p));
        CHECK(ptrain_parse(f, 84, 84, &p) == PTRAIN_OK && p.seq == 0xFFFFFFFFu && p.flags == 0xF &&
              p.stream == 255 && p.tx_time == ns << 16, "wrap fields");
        CHECK(ptrain_build_fields(f, &tx, 0, 0, 1, 1, 0, 0) < 0, "index >= train_len refused");
        CHECK(ptrain_build_fields(f, &tx, 0, 0, 0, 1, 0, 16) < 0, "flags > 15 refused");
        CHECK(ptrain_build_init(f, 59, &h, &tx) < 0, "59 bytes refused");
        CHECK(ptrain_build_init(f, 83, &h, &tx) == 0 && tx.compact, "83 bytes: compact");
        CHECK(ptrain_build_init(f, 84, &h, &tx) == 0 && !tx.compact, "84 bytes: full");
        h.vlan = 3;
        CHECK(ptrain_build_init(f, 63, &h, &tx) < 0, "63 bytes tagged refused");
        CHECK(ptrain_build_init(f, 87, &h, &tx) == 0 && tx.compact, "87 bytes tagged: compact");
        h.vlan = -1;
        h.ipv6 = 1;
        CHECK(ptrain_build_init(f, 103, &h, &tx) < 0, "103 bytes over IPv6 refused");
    }
    /* many stamps: the checksum holds for each (covers csum_adj's 0xFFFF corner) */
    {
        uint64_t i, bad = 0;
        n = make(f, &tx, 1, -1, 104);
        for (i = 0; i < 200000; i++) {
            ptrain_build_stamp(f, &tx, T_NS + i * 7919u);
            if (!udp_ok(f, &tx) || ptrain_parse(f, n, n, NULL) != PTRAIN_OK)
                bad++;
        }
        CHECK(bad == 0, "%llu stamps broke the checksum", (unsigned long long)bad);
    }
    CHECK(!strcmp(ptrain_verdict_name(PTRAIN_TIME_MISMATCH), "time_mismatch") &&
          !strcmp(ptrain_verdict_name(PTRAIN_VERDICT_COUNT), "?"), "names");
    CHECK(ptrain_time_consistent(UINT64_C(999) << 16, 0, 0) && !ptrain_time_consistent(UINT64_C(1000) << 16, 0, 0),
          "time_consistent edges");
}

/* Compact frames (IPv4 below the full header's minimum): round trip, cuts, broken lengths. */
static void test_compact(int vlan)
{
    uint8_t f[128], g[128];
    struct ptrain_headers h;
    struct ptrain_tx tx;
    struct ptrain_frame p;
    size_t n, k, sizes[3];
    int ipv6 = 0, si;
    enum ptrain_verdict v;

    ptrain_headers_default(&h, 0);
    h.vlan = vlan;
    sizes[0] = ptrain_min_size(&h);
    sizes[1] = sizes[0] + 5;
    sizes[2] = ptrain_min_full(&h) - 1;
    CHECK(sizes[0] == (vlan < 0 ? 60u : 64u) && sizes[2] == (vlan < 0 ? 83u : 87u), "compact sizes");
    for (si = 0; si < 3; si++) {
        n = sizes[si];
        memset(f, 0xA5, sizeof(f));
        CHECK(ptrain_build_init(f, n, &h, &tx) == 0 && tx.compact, "compact init %zu", n);
        CHECK(ptrain_build_fields(f, &tx, 0xFFFFFFF0u, 9, 0x1234, 0x10000, 4, 6) == 0, "compact fields");
        CHECK(ptrain_rd64(f + tx.hdr + PTRAIN_COMPACT_TX_TIME_OFF) == 0, "tx_time zero before the stamp");
        CHECK(ptrain_build_stamp(f, &tx, T_NS) == T_NS << 16, "compact stamp");
        CHECK(ptrain_rd16(f + tx.l4 + PTRAIN_UDP_CHECKSUM_OFF) == 0 &&
              ptrain_rd16(f + tx.l3 + PTRAIN_IPV4_IDENT_OFF) == 0x1234 &&
              ptrain_ones_sum(f + tx.l3, PTRAIN_IPV4_LEN, 0) == 0xFFFF, "UDP checksum 0, IP header valid");
        memset(&p, 0, sizeof(p));
        v = parse_copy(f, n, n, &p);
        CHECK(v == PTRAIN_OK && p.compact && p.seq == 0xFFFFFFF0u && p.index == 0x1234 &&
              p.train == 0xFFFFFFF0u - 0x1234u && p.train_len == 0 && p.tx_time == T_NS << 16 &&
              p.flags == 6 && p.stream == 4 && p.size == n && p.frame_len == n && p.vlan == vlan &&
              p.tv_sec == 0 && p.tv_usec == 0, "compact round trip (%s)", ptrain_verdict_name(v));
        for (k = 0; k < n; k++) {
            v = parse_copy(f, k, k, NULL);
            CHECK(v == (k < tx.hdr + PTRAIN_COMPACT_VER_FLAGS_OFF + 1 ? PTRAIN_FOREIGN : PTRAIN_TRUNCATED),
                  "compact cut at %zu of %zu: %s", k, n, ptrain_verdict_name(v));
        }
        EXPECT(f, tx.hdr + PTRAIN_COMPACT_LEN, n, PTRAIN_OK, "compact snap after the header");
        memcpy(g, f, n);
        memset(g + n, 0, 8);
        EXPECT(g, n + 8, n + 8, PTRAIN_OK, "compact trailing padding");
    }
    n = sizes[1];
    ptrain_build_init(f, n, &h, &tx);
    CHECK(ptrain_build_fields(f, &tx, 1, 0, 0x10000, 0x10001, 0, 0) < 0, "compact index 65536 refused");
    ptrain_build_fields(f, &tx, 1, 0, 3, 10, 0, 0);
    ptrain_build_stamp(f, &tx, T_NS);
    /* a UDP checksum, when present, is checked */
    memcpy(g, f, n);
    {
        unsigned ulen = ptrain_rd16(g + tx.l4 + PTRAIN_UDP_LEN_OFF);
        uint32_t ps = ptrain_ones_sum(g + tx.l3 + PTRAIN_IPV4_SRC_OFF, PTRAIN_IPV4_ADDRS_LEN, 0);
        uint16_t s = (uint16_t)~ptrain_ones_sum(g + tx.l4, ulen, ps + PTRAIN_IP_PROTO_UDP + ulen);
        ptrain_wr16(g + tx.l4 + PTRAIN_UDP_CHECKSUM_OFF, s ? s : 0xFFFF);
    }
    EXPECT(g, n, n, PTRAIN_OK, "compact with a valid UDP checksum");
    g[n - 1] ^= 4;
    EXPECT(g, n, n, PTRAIN_BAD_CHECKSUM, "compact with a wrong UDP checksum");
    /* lengths */
    memcpy(g, f, n);
    ptrain_wr16(g + tx.l4 + PTRAIN_UDP_LEN_OFF, PTRAIN_UDP_LEN + PTRAIN_COMPACT_LEN - 1);
    ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_TOTAL_LEN_OFF, PTRAIN_IPV4_LEN + PTRAIN_UDP_LEN + PTRAIN_COMPACT_LEN - 1);
    EXPECT(g, n, n, PTRAIN_BAD_LENGTH, "compact UDP length below the header");
    memcpy(g, f, n);
    ptrain_wr16(g + tx.l4 + PTRAIN_UDP_LEN_OFF, (uint32_t)(n - tx.l4 - 1));
    EXPECT(g, n, n, PTRAIN_BAD_LENGTH, "compact UDP length unlike the IP length");
    memcpy(g, f, n);
    ptrain_wr16(g + tx.l3 + PTRAIN_IPV4_FRAG_OFF, 0x2000);
    EXPECT(g, n, n, PTRAIN_FRAGMENT, "compact first fragment");
    memcpy(g, f, n);
    g[tx.hdr + PTRAIN_COMPACT_VER_FLAGS_OFF] = 0x10;   /* version 1: its header does not fit */
    EXPECT(g, n, n, PTRAIN_TRUNCATED, "version 1 in a compact frame");
}

/* ---- 3. vectors from the Python side ----------------------------------------------------- */

static int run_vectors(const char *path)
{
    FILE *fp = fopen(path, "r");
    static char hex[2 * 65536 + 2];
    static uint8_t f[65536], g[65536];
    char *line = NULL, kind[16], verdict[32];
    size_t cap = 0;
    unsigned long lines = 0, bad_lines = 0;

    if (!fp) {
        perror(path);
        return -1;
    }
    while (getline(&line, &cap, fp) > 0) {
        if (sscanf(line, "%15s", kind) != 1 || kind[0] == '#')
            continue;
        lines++;
        if (!strcmp(kind, "parse")) {
            unsigned long long wl, seq, stream, train, index, tl, tx, sec, usec, flags, flen, size;
            int ipv6, vlan;
            struct ptrain_frame p;
            size_t n;
            enum ptrain_verdict v;
            if (sscanf(line, "parse %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %d %d %131073s",
                       verdict, &wl, &seq, &stream, &train, &index, &tl, &tx, &sec, &usec, &flags,
                       &flen, &size, &ipv6, &vlan, hex) != 16) {
                if (sscanf(line, "parse %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %d %d",
                           verdict, &wl, &seq, &stream, &train, &index, &tl, &tx, &sec, &usec, &flags,
                           &flen, &size, &ipv6, &vlan) != 15) {
                    bad_lines++;
                    continue;
                }
                hex[0] = 0;  /* an empty frame */
            }
            n = unhex(hex, f, sizeof(f));
            memset(&p, 0, sizeof(p));
            v = parse_copy(f, n, (size_t)wl, &p);
            CHECK(!strcmp(ptrain_verdict_name(v), verdict), "line %lu: C says %s, Python %s", lines,
                  ptrain_verdict_name(v), verdict);
            if (v == PTRAIN_OK && !strcmp(verdict, "ok"))
                CHECK(p.seq == seq && p.stream == stream && p.train == train && p.index == index &&
                      p.train_len == tl && p.tx_time == tx && p.tv_sec == sec && p.tv_usec == usec &&
                      p.flags == flags && p.frame_len == flen && p.size == size && p.ipv6 == ipv6 &&
                      p.vlan == vlan, "line %lu: fields differ", lines);
        } else if (!strcmp(kind, "build")) {
            unsigned long long size, seq, train, index, tl, ns, stream, flags, pcp, ttl, sport, dport;
            int vlan, ipv6;
            char smac[16], dmac[16], sip[40], dip[40];
            struct ptrain_headers h;
            struct ptrain_tx tx;
            size_t n;
            if (sscanf(line, "build %llu %llu %llu %llu %llu %llu %llu %llu %d %llu %d %llu %llu %llu "
                             "%15s %15s %39s %39s %131073s",
                       &size, &seq, &train, &index, &tl, &ns, &stream, &flags, &vlan, &pcp, &ipv6,
                       &ttl, &sport, &dport, smac, dmac, sip, dip, hex) != 19) {
                bad_lines++;
                continue;
            }
            ptrain_headers_default(&h, ipv6);
            h.vlan = vlan;
            h.pcp = (unsigned)pcp;
            h.ttl = (uint8_t)ttl;
            h.sport = (uint16_t)sport;
            h.dport = (uint16_t)dport;
            unhex(smac, h.src_mac, 6);
            unhex(dmac, h.dst_mac, 6);
            unhex(sip, h.src_ip, 16);
            unhex(dip, h.dst_ip, 16);
            n = unhex(hex, f, sizeof(f));
            memset(g, 0xA5, sizeof(g));
            CHECK(ptrain_build_init(g, (size_t)size, &h, &tx) == 0 &&
                  ptrain_build_fields(g, &tx, (uint32_t)seq, (uint32_t)train, (uint32_t)index,
                                      (uint32_t)tl, (uint8_t)stream, (unsigned)flags) == 0,
                  "line %lu: build refused", lines);
            ptrain_build_stamp(g, &tx, ns);
            CHECK(n == size && memcmp(f, g, n) == 0, "line %lu: C build differs from frame.build()", lines);
        } else {
            bad_lines++;
        }
    }
    free(line);
    fclose(fp);
    CHECK(bad_lines == 0 && lines > 0, "%s: %lu lines, %lu unreadable", path, lines, bad_lines);
    printf("test_ptrain_parse: %lu vector lines from %s\n", lines, path);
    return 0;
}

int main(int argc, char **argv)
{
    int ipv6, vlan;
    test_embedded();
    for (ipv6 = 0; ipv6 < 2; ipv6++)
        for (vlan = -1; vlan <= 4095; vlan += 4096 / 2)
            test_variant(ipv6, vlan < 0 ? -1 : vlan);
    test_tags_and_wraps();
    test_compact(-1);
    test_compact(100);
    if (argc == 3 && !strcmp(argv[1], "--vectors")) {
        if (run_vectors(argv[2]))
            return 1;
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--vectors FILE]\n", argv[0]);
        return 2;
    }
    printf("test_ptrain_parse: %lu passed, %lu failed\n", passed, failed);
    return failed ? 1 : 0;
}
