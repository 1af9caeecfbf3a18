/* Unit tests of gre_parse: every verdict, every header variant, every truncation.
 * Prints "N passed, N failed" and exits non-zero on any failure. */
#include "gre_parse.h"

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
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* ---- a small frame builder -------------------------------------------------------------- */

struct spec {
    int tags;               /* 0..3 */
    int ipv6;               /* outer IPv6 instead of IPv4 */
    int ihl;                /* IPv4 header words (5..15) */
    uint16_t gre_flags;     /* C/K/S/R/reserved/version bits as on the wire */
    uint16_t proto;         /* GRE protocol type */
    size_t inner_len;       /* bytes of inner payload */
    uint8_t ip_proto;       /* 47 normally */
    uint16_t frag;          /* IPv4 flags+offset field */
    int bad_csum;           /* corrupt the IPv4 checksum */
    int len_delta;          /* added to the IP length field */
    size_t pad_to;          /* pad the frame with zeros to this length (0: none) */
};

static struct spec base_spec(void)
{
    struct spec s;
    memset(&s, 0, sizeof(s));
    s.ihl = 5;
    s.proto = 0x6558;
    s.inner_len = 50;
    s.ip_proto = 47;
    return s;
}

static void wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, (uint16_t)(v >> 16)); wr16(p + 2, (uint16_t)v); }

/* Build a frame into f (capacity 2048); returns its length. Inner bytes are i*7+1. Records the
 * L2 header length, the GRE header offset and the inner offset. */
struct layout { size_t l2, l3, gre, inner; };

static size_t build(const struct spec *s, uint8_t *f, struct layout *lay)
{
    static const uint16_t tpids[3] = {0x88A8, 0x8100, 0x8100};
    size_t off = 12, l3, g, ghl = 4, iplen, i;
    int t;

    memset(f, 0, 2048);
    for (i = 0; i < 12; i++)
        f[i] = (uint8_t)(0x10 + i);
    f[0] = 0x02;
    for (t = 0; t < s->tags; t++) {
        wr16(f + off, tpids[t]);
        wr16(f + off + 2, (uint16_t)(100 + t));
        off += 4;
    }
    wr16(f + off, s->ipv6 ? 0x86DD : 0x0800);
    l3 = off + 2;
    if (s->gre_flags & GRE_FLAG_C) ghl += 4;
    if (s->gre_flags & GRE_FLAG_K) ghl += 4;
    if (s->gre_flags & GRE_FLAG_S) ghl += 4;
    if (s->ipv6) {
        g = l3 + 40;
        f[l3] = 0x60;
        wr16(f + l3 + 4, (uint16_t)(ghl + s->inner_len + (size_t)s->len_delta));
        f[l3 + 6] = s->ip_proto;
        f[l3 + 7] = 64;
        for (i = 0; i < 32; i++)
            f[l3 + 8 + i] = (uint8_t)(0xA0 + i);
    } else {
        g = l3 + (size_t)s->ihl * 4;
        iplen = (size_t)s->ihl * 4 + ghl + s->inner_len;
        f[l3] = (uint8_t)(0x40 | (s->ihl & 0x0F));
        wr16(f + l3 + 2, (uint16_t)(iplen + (size_t)s->len_delta));
        wr16(f + l3 + 4, 0x1234);
        wr16(f + l3 + 6, s->frag);
        f[l3 + 8] = 64;
        f[l3 + 9] = s->ip_proto;
        wr32(f + l3 + 12, 0xC0A80001);
        wr32(f + l3 + 16, 0xC0A80002);
        for (i = 20; i < (size_t)s->ihl * 4; i++)
            f[l3 + i] = 0x01;  /* NOP options */
        wr16(f + l3 + 10, gre_inet_csum(f + l3, (size_t)s->ihl * 4));
        if (s->bad_csum)
            f[l3 + 11] ^= 0x01;
    }
    wr16(f + g, s->gre_flags);
    wr16(f + g + 2, s->proto);
    off = g + 4;
    if (s->gre_flags & GRE_FLAG_C) { wr32(f + off, 0xCCCC0000); off += 4; }
    if (s->gre_flags & GRE_FLAG_K) { wr32(f + off, 0xDEADBEEF); off += 4; }
    if (s->gre_flags & GRE_FLAG_S) { wr32(f + off, 0x01020304); off += 4; }
    for (i = 0; i < s->inner_len; i++)
        f[off + i] = (uint8_t)(i * 7 + 1);
    if (lay) {
        lay->l2 = l3;
        lay->l3 = l3;
        lay->gre = g;
        lay->inner = off;
    }
    off += s->inner_len;
    if (s->pad_to > off)
        off = s->pad_to;
    return off;
}

/* Check gre_decap and gre_decap_inplace against the expected verdict and output. */
static void expect(const char *what, const uint8_t *f, size_t len, enum gre_verdict want,
                   const uint8_t *want_out, size_t want_len)
{
    static uint8_t out[4096], buf[4096];
    struct gre_info info, info2;
    size_t n, n2, off2 = 99;

    n = gre_decap(f, len, out, sizeof(out), &info);
    CHECK(info.verdict == want, "%s: verdict %s, want %s", what, gre_verdict_name(info.verdict),
          gre_verdict_name(want));
    if (!gre_is_decap(want)) {
        want_out = f;
        want_len = len;
    }
    CHECK(n == want_len && info.out_len == want_len, "%s: length %zu, want %zu", what, n, want_len);
    CHECK(n != want_len || memcmp(out, want_out, n) == 0, "%s: output bytes differ", what);

    memcpy(buf, f, len);
    n2 = gre_decap_inplace(buf, len, &off2, &info2);
    CHECK(info2.verdict == info.verdict && n2 == n, "%s: in-place disagrees", what);
    CHECK(n2 != n || off2 + n2 <= len, "%s: in-place slice out of bounds", what);
    CHECK(n2 != n || off2 + n2 > len || memcmp(buf + off2, out, n) == 0,
          "%s: in-place bytes differ", what);
}

/* Expected output of a decapsulated frame built from s. */
static size_t expected_out(const struct spec *s, const uint8_t *f, const struct layout *lay,
                           uint8_t *out)
{
    if (s->proto == 0x6558) {
        memcpy(out, f + lay->inner, s->inner_len);
        return s->inner_len;
    }
    memcpy(out, f, lay->l2 - 2);
    wr16(out + lay->l2 - 2, s->proto);
    memcpy(out + lay->l2, f + lay->inner, s->inner_len);
    return lay->l2 + s->inner_len;
}

static enum gre_verdict decap_verdict(uint16_t proto)
{
    return proto == 0x6558 ? GRE_DECAP_ETH : proto == 0x0800 ? GRE_DECAP_IPV4 : GRE_DECAP_IPV6;
}

/* ---- tests ------------------------------------------------------------------------------- */

static void test_all_good_variants(void)
{
    static const uint16_t protos[3] = {0x6558, 0x0800, 0x86DD};
    static const uint16_t flagsets[8] = {0, 0x8000, 0x2000, 0x1000, 0xA000, 0x9000, 0x3000, 0xB000};
    uint8_t f[2048], want[2048];
    struct layout lay;
    char what[160];
    int tags, v6, ihl, fi, p;

    for (tags = 0; tags <= 2; tags++)
        for (v6 = 0; v6 <= 1; v6++)
            for (ihl = 5; ihl <= 15; ihl += v6 ? 11 : 1)
                for (fi = 0; fi < 8; fi++)
                    for (p = 0; p < 3; p++) {
                        struct spec s = base_spec();
                        struct gre_info info;
                        size_t len, wl;
                        s.tags = tags;
                        s.ipv6 = v6;
                        s.ihl = ihl;
                        s.gre_flags = flagsets[fi];
                        s.proto = protos[p];
                        len = build(&s, f, &lay);
                        wl = expected_out(&s, f, &lay, want);
                        snprintf(what, sizeof(what), "tags=%d v6=%d ihl=%d flags=%04x proto=%04x",
                                 tags, v6, ihl, s.gre_flags, s.proto);
                        expect(what, f, len, decap_verdict(s.proto), want, wl);
                        gre_parse(f, len, &info);
                        CHECK(info.tags == tags && info.l2_len == lay.l2 &&
                                  info.inner_off == lay.inner && info.inner_len == s.inner_len &&
                                  info.ip_version == (v6 ? 6 : 4),
                              "%s: info fields", what);
                        CHECK(!(s.gre_flags & GRE_FLAG_K) || info.gre_key == 0xDEADBEEF,
                              "%s: key", what);
                        CHECK(!(s.gre_flags & GRE_FLAG_S) || info.gre_seq == 0x01020304,
                              "%s: seq", what);
                        CHECK(info.gre_len == lay.inner - lay.gre, "%s: gre_len", what);
                    }
}

static void test_seed_frame(void)
{
    /* the seed's throughput frame: 92 bytes on the wire with FCS = 88 here; 50-byte inner */
    uint8_t f[2048], want[2048];
    struct layout lay;
    struct spec s = base_spec();
    size_t len = build(&s, f, &lay), wl = expected_out(&s, f, &lay, want);
    CHECK(len == 88, "seed frame is %zu bytes", len);
    expect("seed frame", f, len, GRE_DECAP_ETH, want, wl);
    CHECK(wl == 50, "inner %zu", wl);
}

static void test_pass_cases(void)
{
    uint8_t f[2048];
    struct spec s;
    size_t len;

    s = base_spec(); s.tags = 3;
    len = build(&s, f, NULL);
    expect("three tags", f, len, GRE_PASS_NOT_IP, NULL, 0);

    s = base_spec(); len = build(&s, f, NULL);
    f[12] = 0x08; f[13] = 0x06;  /* ARP */
    expect("ARP", f, len, GRE_PASS_NOT_IP, NULL, 0);

    s = base_spec(); s.ip_proto = 17;
    len = build(&s, f, NULL);
    expect("UDP", f, len, GRE_PASS_NOT_GRE, NULL, 0);

    s = base_spec(); s.ipv6 = 1; s.ip_proto = 0;  /* hop-by-hop first: not walked */
    len = build(&s, f, NULL);
    expect("IPv6 extension header", f, len, GRE_PASS_NOT_GRE, NULL, 0);

    s = base_spec(); s.gre_flags = 0x2001;  /* PPTP-like: K, version 1 */
    len = build(&s, f, NULL);
    expect("GRE version 1", f, len, GRE_PASS_GRE_VERSION, NULL, 0);

    s = base_spec(); s.gre_flags = 0x0007;
    len = build(&s, f, NULL);
    expect("GRE version 7", f, len, GRE_PASS_GRE_VERSION, NULL, 0);

    s = base_spec(); s.gre_flags = GRE_FLAG_R;
    len = build(&s, f, NULL);
    expect("routing bit", f, len, GRE_PASS_GRE_FLAGS, NULL, 0);
    {
        int bit;
        for (bit = 3; bit <= 11; bit++) {
            char what[64];
            s = base_spec(); s.gre_flags = (uint16_t)(1u << bit);
            len = build(&s, f, NULL);
            snprintf(what, sizeof(what), "reserved bit %d", bit);
            expect(what, f, len, GRE_PASS_GRE_FLAGS, NULL, 0);
        }
    }

    s = base_spec(); s.proto = 0x88BE;  /* ERSPAN */
    len = build(&s, f, NULL);
    expect("unknown protocol", f, len, GRE_PASS_GRE_PROTO, NULL, 0);

    s = base_spec(); s.frag = 0x2000;
    len = build(&s, f, NULL);
    expect("first fragment (MF)", f, len, GRE_PASS_FRAGMENT, NULL, 0);
    s = base_spec(); s.frag = 0x0010;
    len = build(&s, f, NULL);
    expect("later fragment", f, len, GRE_PASS_FRAGMENT, NULL, 0);
    {
        uint8_t want[2048];
        struct layout lay;
        s = base_spec(); s.frag = 0x4000;  /* DF is fine */
        len = build(&s, f, &lay);
        expect("DF", f, len, GRE_DECAP_ETH, want, expected_out(&s, f, &lay, want));
    }

    s = base_spec(); s.bad_csum = 1;
    len = build(&s, f, NULL);
    expect("bad checksum", f, len, GRE_PASS_CSUM, NULL, 0);

    s = base_spec(); s.ihl = 4;
    len = build(&s, f, NULL);
    expect("IHL 4", f, len, GRE_PASS_BAD_IP, NULL, 0);

    s = base_spec(); len = build(&s, f, NULL);
    f[14] = 0x65;  /* version 6 under Ethertype 0x0800 */
    expect("version mismatch v4", f, len, GRE_PASS_BAD_IP, NULL, 0);
    s = base_spec(); s.ipv6 = 1; len = build(&s, f, NULL);
    f[14] = 0x45;
    expect("version mismatch v6", f, len, GRE_PASS_BAD_IP, NULL, 0);

    s = base_spec(); s.len_delta = 1;
    len = build(&s, f, NULL);
    expect("total length too long", f, len, GRE_PASS_LENGTH, NULL, 0);
    s = base_spec(); s.len_delta = -1;
    len = build(&s, f, NULL);
    expect("total length too short", f, len, GRE_PASS_LENGTH, NULL, 0);
    s = base_spec(); s.len_delta = -(int)(4 + 50 + 1);  /* below the IP header itself */
    len = build(&s, f, NULL);
    expect("total length below IHL", f, len, GRE_PASS_LENGTH, NULL, 0);
    s = base_spec(); s.ipv6 = 1; s.len_delta = 2;
    len = build(&s, f, NULL);
    expect("IPv6 payload length too long", f, len, GRE_PASS_LENGTH, NULL, 0);
    s = base_spec(); s.ipv6 = 1; s.len_delta = -2;
    len = build(&s, f, NULL);
    expect("IPv6 payload length too short", f, len, GRE_PASS_LENGTH, NULL, 0);

    s = base_spec(); s.inner_len = 13;
    len = build(&s, f, NULL);
    expect("inner Ethernet frame of 13 bytes", f, len, GRE_PASS_SHORT, NULL, 0);
    {
        uint8_t want[2048];
        struct layout lay;
        s = base_spec(); s.inner_len = 14;
        len = build(&s, f, &lay);
        expect("inner Ethernet frame of 14 bytes", f, len, GRE_DECAP_ETH, want,
               expected_out(&s, f, &lay, want));
        s = base_spec(); s.proto = 0x0800; s.inner_len = 0;
        len = build(&s, f, &lay);
        CHECK(len == 38, "len %zu", len);
        expect("empty inner IPv4 packet", f, len, GRE_PASS_SHORT, NULL, 0);
        s = base_spec(); s.proto = 0x86DD; s.inner_len = 1;
        len = build(&s, f, &lay);
        expect("one-byte inner IPv6 packet", f, len, GRE_DECAP_IPV6, want,
               expected_out(&s, f, &lay, want));
    }

    /* GRE optional fields announced but cut off by the IP length */
    s = base_spec(); s.gre_flags = 0xB000; s.inner_len = 0; s.proto = 0x0800;
    len = build(&s, f, NULL);
    /* shrink the IP packet to end inside the sequence number, keeping the frame consistent */
    {
        size_t cut = 6;
        len -= cut;
        f[16] = (uint8_t)((len - 14) >> 8);
        f[17] = (uint8_t)(len - 14);
        f[24] = f[25] = 0;
        {
            uint16_t c = gre_inet_csum(f + 14, 20);
            f[24] = (uint8_t)(c >> 8);
            f[25] = (uint8_t)c;
        }
        expect("GRE options cut by IP length", f, len, GRE_PASS_SHORT, NULL, 0);
    }

    expect("empty frame", f, 0, GRE_PASS_SHORT, NULL, 0);
}

static void test_padding(void)
{
    uint8_t f[2048], want[2048];
    struct layout lay;
    struct spec s;
    size_t len;

    /* IPv4/GRE/0x0800 with 10 inner bytes: 48 bytes, padded to 60 */
    s = base_spec(); s.proto = 0x0800; s.inner_len = 10; s.pad_to = 60;
    len = build(&s, f, &lay);
    memset(f + 48, 0xEE, 12);  /* padding content must not matter */
    CHECK(len == 60, "len %zu", len);
    expect("padded to 60", f, len, GRE_DECAP_IPV4, want, expected_out(&s, f, &lay, want));

    s.pad_to = 61;
    len = build(&s, f, &lay);
    expect("padded to 61", f, len, GRE_PASS_LENGTH, NULL, 0);
    s.pad_to = 59;  /* padding that stops short of 60 is still padding */
    len = build(&s, f, &lay);
    expect("padded to 59", f, len, GRE_DECAP_IPV4, want, expected_out(&s, f, &lay, want));

    /* with tags, frames up to 60 + 4 per tag may carry padding */
    {
        int tags;
        for (tags = 1; tags <= 2; tags++) {
            char what[64];
            s = base_spec(); s.tags = tags; s.proto = 0x86DD; s.inner_len = 2;
            s.pad_to = (size_t)(60 + 4 * tags);
            len = build(&s, f, &lay);
            snprintf(what, sizeof(what), "%d tags, padded to %zu", tags, s.pad_to);
            expect(what, f, len, GRE_DECAP_IPV6, want, expected_out(&s, f, &lay, want));
            s.pad_to++;
            len = build(&s, f, &lay);
            snprintf(what, sizeof(what), "%d tags, padded to %zu", tags, s.pad_to);
            expect(what, f, len, GRE_PASS_LENGTH, NULL, 0);
        }
    }

    /* IPv6 outer, padded: 14 + 40 + 4 + 1 = 59 bytes */
    s = base_spec(); s.ipv6 = 1; s.proto = 0x0800; s.inner_len = 1; s.pad_to = 60;
    len = build(&s, f, &lay);
    expect("IPv6 outer padded", f, len, GRE_DECAP_IPV4, want, expected_out(&s, f, &lay, want));
}

static void test_every_truncation(void)
{
    static const uint16_t flagsets[3] = {0, 0xB000, 0x2000};
    uint8_t f[2048];
    struct spec s;
    size_t len, n;
    int tags, v6, fi;

    for (tags = 0; tags <= 2; tags++)
        for (v6 = 0; v6 <= 1; v6++)
            for (fi = 0; fi < 3; fi++) {
                s = base_spec();
                s.tags = tags; s.ipv6 = v6; s.ihl = 7; s.gre_flags = flagsets[fi];
                len = build(&s, f, NULL);
                for (n = 0; n < len; n++) {
                    struct gre_info info;
                    enum gre_verdict v;
                    uint8_t *t = malloc(n ? n : 1);  /* exact size: ASan sees any read past n */
                    if (!t)
                        abort();
                    memcpy(t, f, n);
                    v = gre_parse(t, n, &info);
                    free(t);
                    CHECK(v == GRE_PASS_SHORT || v == GRE_PASS_LENGTH,
                          "tags=%d v6=%d flags=%04x truncated to %zu: %s", tags, v6, s.gre_flags,
                          n, gre_verdict_name(v));
                    CHECK(info.out_len == n, "pass keeps the length");
                }
            }
}

static void test_api_edges(void)
{
    uint8_t f[2048], out[2048];
    struct gre_info info;
    struct spec s = base_spec();
    size_t len = build(&s, f, NULL), i, j;

    CHECK(gre_decap(f, len, out, len - 1, &info) == 0, "too small an output buffer");
    CHECK(gre_decap(f, len, out, len, &info) == 50, "exact output buffer");
    CHECK(strcmp(gre_verdict_name(GRE_VERDICT_COUNT), "?") == 0, "name out of range");
    for (i = 0; i < GRE_VERDICT_COUNT; i++)
        for (j = i + 1; j < GRE_VERDICT_COUNT; j++)
            CHECK(strcmp(gre_verdict_name((enum gre_verdict)i),
                         gre_verdict_name((enum gre_verdict)j)) != 0, "names unique");
    /* RFC 1071 example: 0001 f203 f4f5 f6f7 sums to ddf2, checksum 220d */
    {
        static const uint8_t ex[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
        CHECK(gre_inet_csum(ex, 8) == 0x220d, "RFC 1071 example %04x", gre_inet_csum(ex, 8));
        CHECK(gre_inet_csum(ex, 7) == 0x2304, "odd length %04x", gre_inet_csum(ex, 7));
    }
}

int main(void)
{
    test_all_good_variants();
    test_seed_frame();
    test_pass_cases();
    test_padding();
    test_every_truncation();
    test_api_edges();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
