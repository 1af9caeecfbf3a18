/*
 * Unit tests of mpls_edit: label stack entry encoding, the label list parser, the push on IPv4
 * and IPv6 with 0-3 VLAN tags and 1..MPLS_MAX_LABELS labels (expected frames written out by hand
 * here, not by the code under test), TTL copied or constant, TC per label, Ethernet padding,
 * every truncation of valid frames, non-IP and bad IP frames, the MTU limit at its exact
 * boundary, the header-only variant against the copying one, and plain forwarding.
 * Prints "N passed, N failed" and exits non-zero on any failure.
 */
#include "mpls_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static void wr16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

/* An Ethernet frame: tags[0..ntags) (TPID << 16 | TCI), then IPv4 (version 4) or IPv6 with
 * ttl, an IP packet of ip_len bytes (>= 20 / 40), and pad bytes of padding. Returns its length. */
static size_t make_frame(uint8_t *f, const uint32_t *tags, unsigned ntags, int v6, unsigned ttl,
                         size_t ip_len, size_t pad)
{
    size_t off = 12, i;
    unsigned t;
    for (i = 0; i < 12; i++)
        f[i] = (uint8_t)(0xA0 + i);
    for (t = 0; t < ntags; t++, off += 4) {
        wr16(f + off, tags[t] >> 16);
        wr16(f + off + 2, tags[t] & 0xFFFF);
    }
    wr16(f + off, v6 ? 0x86DD : 0x0800);
    off += 2;
    for (i = 0; i < ip_len; i++)
        f[off + i] = (uint8_t)(i * 13 + 1);
    if (v6) {
        f[off] = 0x60;
        wr16(f + off + 4, (unsigned)(ip_len - 40));
        f[off + 7] = (uint8_t)ttl;
    } else {
        f[off] = 0x45;
        wr16(f + off + 2, (unsigned)ip_len);
        f[off + 8] = (uint8_t)ttl;
    }
    for (i = 0; i < pad; i++)
        f[off + ip_len + i] = 0;
    return off + ip_len + pad;
}

static void cfg_set(struct mpls_cfg *c, unsigned n, const uint32_t *labels, const uint8_t *tcs,
                    unsigned ttl, unsigned mtu)
{
    unsigned i;
    memset(c, 0, sizeof(*c));
    c->n = n;
    for (i = 0; i < n; i++) {
        c->label[i].label = labels[i];
        c->label[i].tc = tcs ? tcs[i] : 0;
    }
    c->ttl = (uint8_t)ttl;
    c->mtu = mtu;
}

/* Run the edit both ways and check they agree with each other; returns the copy's length. */
#define edit(c, f, len, out, v) edit_cap(c, f, len, out, sizeof(out), v)
static size_t edit_cap(const struct mpls_cfg *c, const uint8_t *f, size_t len, uint8_t *out,
                       size_t cap, enum mpls_verdict *v)
{
    uint8_t hdr[MPLS_HDR_MAX], joined[12000];
    size_t hlen, cut, n, head = len < MPLS_PARSE_MAX ? len : MPLS_PARSE_MAX;
    enum mpls_verdict v2, v3;
    n = mpls_push(c, f, len, out, cap, v);
    v2 = mpls_push_header(c, f, len, len, hdr, &hlen, &cut);
    v3 = mpls_push_header(c, f, head, len, hdr, &hlen, &cut);  /* only the first bytes given */
    CHECK(v2 == *v && v3 == *v, "header-only verdicts %d %d, copy %d", v2, v3, *v);
    if (*v == MPLS_PUSHED || *v == MPLS_FORWARDED) {
        CHECK(cut <= len && hlen <= MPLS_HDR_MAX, "cut %zu hlen %zu", cut, hlen);
        memcpy(joined, hdr, hlen);
        memcpy(joined + hlen, f + cut, len - cut);
        CHECK(n == hlen + len - cut && memcmp(joined, out, n) == 0, "two pieces != copy");
    } else {
        CHECK(n == 0 && hlen == 0 && cut == 0, "a drop returns nothing");
    }
    return n;
}

static void test_lse(void)
{
    CHECK(mpls_lse(16001, 5, 1, 64) == ((16001u << 12) | (5u << 9) | (1u << 8) | 64u), "lse");
    CHECK(mpls_lse(0xFFFFF, 7, 1, 255) == 0xFFFFFFFFu, "all ones");
    CHECK(mpls_lse(0, 0, 0, 0) == 0, "all zeros");
    CHECK(mpls_lse(0x12345, 0, 0, 1) == 0x12345001u, "label field");
    CHECK(mpls_lse(0x1FFFFF, 8, 2, 256) == 0xFFFFF100u, "fields masked");
}

static void test_parse(void)
{
    struct mpls_cfg c;
    char err[200];
    memset(&c, 0, sizeof(c));
    CHECK(mpls_cfg_parse_labels(&c, "16001/5,16002,1048575/7", err, sizeof(err)) == 0, "%s", err);
    CHECK(c.n == 3 && c.label[0].label == 16001 && c.label[0].tc == 5 &&
          c.label[1].label == 16002 && c.label[1].tc == 0 && c.label[2].label == 1048575 &&
          c.label[2].tc == 7, "parsed stack");
    CHECK(mpls_cfg_parse_labels(&c, "none", err, sizeof(err)) == 0 && c.n == 0, "none");
    CHECK(mpls_cfg_parse_labels(&c, "", err, sizeof(err)) == 0 && c.n == 0, "empty");
    CHECK(mpls_cfg_parse_labels(&c, "0,1,2,4", err, sizeof(err)) == 0 && c.n == 4, "reserved ok");
    CHECK(mpls_cfg_parse_labels(&c, "3", err, sizeof(err)) != 0, "implicit null refused");
    CHECK(mpls_cfg_parse_labels(&c, "1048576", err, sizeof(err)) != 0, "label too big");
    CHECK(mpls_cfg_parse_labels(&c, "99999999999999999999", err, sizeof(err)) != 0, "huge");
    CHECK(mpls_cfg_parse_labels(&c, "5/8", err, sizeof(err)) != 0, "TC 8");
    CHECK(mpls_cfg_parse_labels(&c, "5/12", err, sizeof(err)) != 0, "TC 12");
    CHECK(mpls_cfg_parse_labels(&c, "5/", err, sizeof(err)) != 0, "TC missing");
    CHECK(mpls_cfg_parse_labels(&c, "1,,2", err, sizeof(err)) != 0, "empty item");
    CHECK(mpls_cfg_parse_labels(&c, "1,", err, sizeof(err)) != 0, "trailing comma");
    CHECK(mpls_cfg_parse_labels(&c, "-1", err, sizeof(err)) != 0, "negative");
    CHECK(mpls_cfg_parse_labels(&c, "12x", err, sizeof(err)) != 0, "junk");
    CHECK(mpls_cfg_parse_labels(&c, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", err,
                                sizeof(err)) != 0, "3 inside a long list");
    CHECK(mpls_cfg_parse_labels(&c, "1,2,4,5,6,7,8,9,10,11,12,13,14,15,16,17", err,
                                sizeof(err)) == 0 && c.n == 16, "16 labels");
    CHECK(mpls_cfg_parse_labels(&c, "1,2,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18", err,
                                sizeof(err)) != 0, "17 labels");
}

/* The exact output, written out by hand for one frame of each kind. */
static void test_exact(void)
{
    static const uint32_t labels[3] = {16001, 16002, 0xFFFFF};
    static const uint8_t tcs[3] = {5, 0, 7};
    uint8_t f[200], out[300], want[300];
    struct mpls_cfg c;
    enum mpls_verdict v;
    size_t len, n;

    /* untagged IPv4, one label, TTL copied (64) */
    len = make_frame(f, NULL, 0, 0, 64, 46, 0);
    cfg_set(&c, 1, labels, NULL, 0, 1500);
    n = edit(&c, f, len, out, &v);
    memcpy(want, f, 12);
    want[12] = 0x88; want[13] = 0x47;
    want[14] = 0x03; want[15] = 0xE8; want[16] = 0x11; want[17] = 64;  /* 16001 = 0x3E81 */
    memcpy(want + 18, f + 14, 46);
    CHECK(v == MPLS_PUSHED && n == 64 && memcmp(out, want, n) == 0, "IPv4 1 label");

    /* three labels: TC per label, S only on the last, same TTL on each */
    cfg_set(&c, 3, labels, tcs, 0, 1500);
    n = edit(&c, f, len, out, &v);
    memcpy(want, f, 12);
    want[12] = 0x88; want[13] = 0x47;
    want[14] = 0x03; want[15] = 0xE8; want[16] = 0x1A; want[17] = 64;  /* TC 5, S 0 */
    want[18] = 0x03; want[19] = 0xE8; want[20] = 0x20; want[21] = 64;  /* 16002 TC 0 S 0 */
    want[22] = 0xFF; want[23] = 0xFF; want[24] = 0xFF; want[25] = 64;  /* TC 7 S 1 */
    memcpy(want + 26, f + 14, 46);
    CHECK(v == MPLS_PUSHED && n == 72 && memcmp(out, want, n) == 0, "IPv4 3 labels");

    /* constant TTL */
    cfg_set(&c, 3, labels, tcs, 200, 1500);
    n = edit(&c, f, len, out, &v);
    CHECK(v == MPLS_PUSHED && n == 72 && out[17] == 200 && out[21] == 200 && out[25] == 200,
          "constant TTL");
    CHECK(memcmp(out + 26, f + 14, 46) == 0 && out[26 + 8] == 64, "IP header untouched");

    /* IPv6: the hop limit, 2 tags kept in order */
    {
        static const uint32_t tags[2] = {0x88A80064u, 0x8100A00Au};
        len = make_frame(f, tags, 2, 1, 7, 60, 0);
        cfg_set(&c, 2, labels, NULL, 0, 1500);
        n = edit(&c, f, len, out, &v);
        memcpy(want, f, 20);  /* MACs and both tags */
        want[20] = 0x88; want[21] = 0x47;
        want[22] = 0x03; want[23] = 0xE8; want[24] = 0x10; want[25] = 7;
        want[26] = 0x03; want[27] = 0xE8; want[28] = 0x21; want[29] = 7;
        memcpy(want + 30, f + 22, 60);
        CHECK(v == MPLS_PUSHED && n == len + 8 && memcmp(out, want, n) == 0, "IPv6 2 tags");
    }

    /* Ethernet padding after a short IP packet is carried along */
    len = make_frame(f, NULL, 0, 0, 9, 28, 18);
    cfg_set(&c, 1, labels, NULL, 0, 1500);
    n = edit(&c, f, len, out, &v);
    CHECK(v == MPLS_PUSHED && n == 64 && memcmp(out + 18, f + 14, 46) == 0 && out[17] == 9,
          "padding kept");

    /* TTL 0 in the packet is copied as it is (Linux does the same) */
    len = make_frame(f, NULL, 0, 0, 0, 20, 0);
    n = edit(&c, f, len, out, &v);
    CHECK(v == MPLS_PUSHED && n == len + 4 && out[17] == 0, "TTL 0 copied");
}

/* Every combination of IP version, 0-3 tags and 1..MPLS_MAX_LABELS labels, checked field by field. */
static void test_matrix(void)
{
    static const uint32_t tpids[3] = {0x8100, 0x88A8, 0x9100};
    uint32_t labels[MPLS_MAX_LABELS], tags[3];
    uint8_t tcs[MPLS_MAX_LABELS], f[2000], out[2200];
    unsigned v6, ntags, n, i, bad;
    struct mpls_cfg c;
    enum mpls_verdict v;

    for (i = 0; i < MPLS_MAX_LABELS; i++) {
        labels[i] = (i * 77773u + 16u) & 0xFFFFF;
        tcs[i] = (uint8_t)(i % 8);
    }
    for (v6 = 0; v6 < 2; v6++)
        for (ntags = 0; ntags <= 3; ntags++)
            for (n = 1; n <= MPLS_MAX_LABELS; n++) {
                size_t len, out_len, l2;
                for (i = 0; i < ntags; i++)
                    tags[i] = tpids[(i + v6) % 3] << 16 | (0x100 + i);
                len = make_frame(f, tags, ntags, (int)v6, 33 + n, v6 ? 1000 : 1500, 0);
                l2 = 12 + 4 * ntags;
                cfg_set(&c, n, labels, tcs, 0, 0);
                out_len = edit(&c, f, len, out, &v);
                bad = v != MPLS_PUSHED || out_len != len + 4 * n;
                bad |= memcmp(out, f, l2) != 0 || out[l2] != 0x88 || out[l2 + 1] != 0x47;
                for (i = 0; i < n && !bad; i++) {
                    const uint8_t *e = out + l2 + 2 + 4 * i;
                    uint32_t lse = ((uint32_t)e[0] << 24) | ((uint32_t)e[1] << 16) |
                                   ((uint32_t)e[2] << 8) | e[3];
                    bad |= lse >> 12 != labels[i] || ((lse >> 9) & 7) != tcs[i] ||
                           ((lse >> 8) & 1) != (i + 1 == n) || (lse & 0xFF) != 33 + n;
                }
                bad |= memcmp(out + l2 + 2 + 4 * n, f + l2 + 2, len - l2 - 2) != 0;
                CHECK(!bad, "v6 %u tags %u labels %u", v6, ntags, n);
            }
}

static void test_drops(void)
{
    static const uint32_t labels[3] = {100, 200, 300};
    static const uint32_t four_tags[4] = {0x81000001u, 0x81000002u, 0x81000003u, 0x81000004u};
    uint8_t f[2000], out[2100];
    struct mpls_cfg c;
    enum mpls_verdict v;
    size_t len, cut, bad;
    unsigned v6, ntags;

    cfg_set(&c, 2, labels, NULL, 0, 1500);
    /* every truncation of valid frames is "truncated" */
    for (v6 = 0; v6 < 2; v6++)
        for (ntags = 0; ntags <= 3; ntags++) {
            len = make_frame(f, four_tags, ntags, (int)v6, 64, v6 ? 70 : 50, 0);
            bad = 0;
            for (cut = 0; cut < len; cut++)
                bad += edit(&c, f, cut, out, &v) != 0 || v != MPLS_DROP_TRUNCATED;
            CHECK(bad == 0, "v6 %u tags %u: %zu truncations not dropped as truncated", v6, ntags,
                  bad);
        }
    /* a fourth tag: not IP */
    len = make_frame(f, four_tags, 4, 0, 64, 40, 0);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_NOT_IP, "4 tags");
    /* ARP, MPLS already, a made-up Ethertype */
    len = make_frame(f, NULL, 0, 0, 64, 40, 0);
    wr16(f + 12, 0x0806);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_NOT_IP, "ARP");
    wr16(f + 12, 0x8847);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_NOT_IP, "MPLS in");
    wr16(f + 12, 0x0005);
    CHECK(edit(&c, f, 14, out, &v) == 0 && v == MPLS_DROP_NOT_IP, "bare header, not IP");
    /* bad IP headers */
    len = make_frame(f, NULL, 0, 0, 64, 40, 0);
    f[14] = 0x65;
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_BAD_IP, "IPv4 Ethertype, version 6");
    f[14] = 0x44;
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_BAD_IP, "IHL 4");
    f[14] = 0x45;
    wr16(f + 16, 19);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_BAD_IP, "total length < header");
    wr16(f + 16, 41);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TRUNCATED, "total length > frame");
    wr16(f + 16, 30);
    CHECK(edit(&c, f, len, out, &v) == len + 8 && v == MPLS_PUSHED, "total length < frame: ok");
    len = make_frame(f, NULL, 0, 1, 64, 60, 0);
    f[14] = 0x45;
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_BAD_IP, "IPv6 Ethertype, version 4");
    f[14] = 0x60;
    wr16(f + 18, 21);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TRUNCATED, "IPv6 payload > frame");
}

static void test_mtu(void)
{
    static const uint32_t labels[3] = {100, 200, 300};
    static const uint32_t tags[2] = {0x81000005u, 0x88A80006u};
    uint8_t f[10000], out[10100];
    struct mpls_cfg c;
    enum mpls_verdict v;
    size_t len;
    unsigned n, ntags;

    for (n = 1; n <= 3; n++)
        for (ntags = 0; ntags <= 2; ntags++) {
            /* IP packet + labels == MTU: sent; one byte more: too big */
            cfg_set(&c, n, labels, NULL, 0, 1500);
            len = make_frame(f, tags, ntags, 0, 64, 1500 - 4 * n, 0);
            CHECK(edit(&c, f, len, out, &v) == len + 4 * n && v == MPLS_PUSHED,
                  "%u labels %u tags at the MTU", n, ntags);
            len = make_frame(f, tags, ntags, 0, 64, 1501 - 4 * n, 0);
            CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TOO_BIG,
                  "%u labels %u tags one over", n, ntags);
        }
    /* a full 1500-byte packet does not fit a 1500 MTU once pushed, fits a 9000 one; jumbo */
    cfg_set(&c, 1, labels, NULL, 0, 1500);
    len = make_frame(f, NULL, 0, 0, 64, 1500, 0);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TOO_BIG, "1514 at MTU 1500");
    c.mtu = 9000;
    CHECK(edit(&c, f, len, out, &v) == 1518 && v == MPLS_PUSHED, "1514 at MTU 9000");
    cfg_set(&c, 3, labels, NULL, 0, 9000);
    len = make_frame(f, NULL, 0, 1, 64, 8982, 0);
    CHECK(edit(&c, f, len, out, &v) == 9008 && v == MPLS_PUSHED, "IPv6 jumbo");
    len = make_frame(f, NULL, 0, 1, 64, 8990, 0);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TOO_BIG, "jumbo over");
    c.mtu = 0;
    CHECK(edit(&c, f, len, out, &v) == len + 12 && v == MPLS_PUSHED, "no MTU");
    /* padding counts: it is on the wire after the push too */
    cfg_set(&c, 1, labels, NULL, 0, 49);
    len = make_frame(f, NULL, 0, 0, 64, 28, 18);
    CHECK(edit(&c, f, len, out, &v) == 0 && v == MPLS_DROP_TOO_BIG, "padding counts");
    c.mtu = 50;
    CHECK(edit(&c, f, len, out, &v) == 64 && v == MPLS_PUSHED, "padding fits");
}

static void test_misc(void)
{
    static const uint32_t labels[2] = {100, 200};
    uint8_t f[200], out[300];
    struct mpls_cfg c;
    enum mpls_verdict v;
    size_t len = make_frame(f, NULL, 0, 0, 64, 46, 0);
    int i;

    /* output buffer too small: 0 with a pushing verdict; exact size fits */
    cfg_set(&c, 2, labels, NULL, 0, 0);
    CHECK(mpls_push(&c, f, len, out, len + 7, &v) == 0 && v == MPLS_PUSHED, "cap too small");
    CHECK(mpls_push(&c, f, len, out, len + 8, &v) == len + 8, "cap exact");
    CHECK(mpls_push(&c, f, len, out, len + 8, NULL) == len + 8, "verdict optional");
    /* plain forwarding: anything, unchanged, even garbage */
    cfg_set(&c, 0, labels, NULL, 0, 10);
    CHECK(edit(&c, f, len, out, &v) == len && v == MPLS_FORWARDED && !memcmp(out, f, len),
          "plain");
    memset(f, 0xEE, 5);
    CHECK(edit(&c, f, 5, out, &v) == 5 && v == MPLS_FORWARDED, "plain garbage");
    CHECK(mpls_push(&c, f, 0, out, sizeof(out), &v) == 0 && v == MPLS_FORWARDED, "plain empty");
    /* names */
    CHECK(strcmp(mpls_verdict_name(MPLS_VERDICT_COUNT), "?") == 0, "name out of range");
    for (i = 0; i < MPLS_VERDICT_COUNT; i++)
        CHECK(strcmp(mpls_verdict_name((enum mpls_verdict)i), "?") != 0, "name %d", i);
    CHECK(strcmp(mpls_verdict_name(MPLS_DROP_TOO_BIG), "too_big") == 0, "too_big");
}

int main(void)
{
    test_lse();
    test_parse();
    test_exact();
    test_matrix();
    test_drops();
    test_mtu();
    test_misc();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
