/*
 * Fuzzing gre_parse.
 *
 * Built two ways (host.mk beside this file):
 *  - with clang -fsanitize=fuzzer: a libFuzzer target (LLVMFuzzerTestOneInput). The first input
 *    byte steers the harness: bit 0 repairs the IPv4 header checksum and bit 1 the IP length
 *    field before parsing, so the fuzzer gets past those checks instead of stopping at them.
 *  - with -DFUZZ_STANDALONE (any C compiler): a deterministic driver that runs N million frames
 *    through the same checks: structured GRE frames (random tags, IPv4 with options or IPv6,
 *    C/K/S flags, protocols, padding) with random mutations, plus pure random bytes.
 *    `--write-corpus DIR` writes seed inputs for libFuzzer instead.
 *
 * Every input is checked against invariants that hold for any frame: the verdict is in range,
 * a pass returns the frame unchanged, a decapsulation returns exactly the slices its info
 * describes, the in-place variant agrees with the copying one, and a decapsulated frame really
 * has a correct IPv4 checksum, GRE version 0 and no reserved bits. A violation aborts.
 */
#include "gre_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME 4096

static void fail(const char *why, const uint8_t *f, size_t len)
{
    size_t i;
    fprintf(stderr, "fuzz_gre_parse: invariant violated: %s (len %zu)\n", why, len);
    for (i = 0; i < len && i < 128; i++)
        fprintf(stderr, "%02x%s", f[i], (i % 32 == 31) ? "\n" : "");
    fputc('\n', stderr);
    abort();
}

#define ENSURE(cond, why)            \
    do {                             \
        if (!(cond))                 \
            fail(why, f, len);       \
    } while (0)

static uint16_t rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

/* Check one frame; returns its verdict. */
static enum gre_verdict check_one(const uint8_t *f, size_t len)
{
    static uint8_t out[MAX_FRAME], buf[MAX_FRAME];
    struct gre_info a, b, c;
    size_t n, n2, off = 0;
    uint8_t *copy;

    if (len > MAX_FRAME)
        len = MAX_FRAME;
    /* an exact-size heap copy, so AddressSanitizer catches any read past the end */
    copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, f, len);
    f = copy;

    gre_parse(f, len, &a);
    ENSURE((unsigned)a.verdict < GRE_VERDICT_COUNT, "verdict out of range");
    gre_parse(f, len, &b);
    ENSURE(memcmp(&a, &b, sizeof(a)) == 0, "not deterministic");
    ENSURE(a.out_len <= len, "output longer than input");

    n = gre_decap(f, len, out, sizeof(out), &b);
    ENSURE(b.verdict == a.verdict && (len == 0 || n == a.out_len), "decap disagrees with parse");
    if (!gre_is_decap(a.verdict)) {
        ENSURE(a.out_len == len, "pass changes the length");
        ENSURE(memcmp(out, f, len) == 0, "pass changes the bytes");
    } else {
        size_t l2 = a.l2_len;
        ENSURE(a.inner_off + a.inner_len <= len, "inner slice out of bounds");
        ENSURE(l2 == 14 || l2 == 18 || l2 == 22, "odd L2 length");
        ENSURE(a.gre_len >= 4 && a.gre_len <= 16 && a.gre_len % 4 == 0, "odd GRE length");
        ENSURE(a.inner_off == (size_t)l2 + a.ip_len + a.gre_len, "inner offset");
        ENSURE((rd16(f + a.inner_off - a.gre_len) & 0x4FFFu) == 0, "GRE flags/version");
        if (a.ip_version == 4) {
            ENSURE(rd16(f + l2 - 2) == 0x0800, "IPv4 Ethertype");
            ENSURE(gre_inet_csum(f + l2, a.ip_len) == 0, "IPv4 checksum");
            ENSURE((rd16(f + l2 + 6) & 0x3FFF) == 0, "IPv4 fragment");
            ENSURE(f[l2 + 9] == 47, "IPv4 protocol");
            ENSURE(rd16(f + l2 + 2) == a.ip_len + a.gre_len + a.inner_len, "IPv4 length");
        } else {
            ENSURE(a.ip_version == 6 && a.ip_len == 40, "IP version");
            ENSURE(rd16(f + l2 - 2) == 0x86DD && f[l2 + 6] == 47, "IPv6 header");
            ENSURE(rd16(f + l2 + 4) == a.gre_len + a.inner_len, "IPv6 length");
        }
        ENSURE(a.inner_off + a.inner_len == len || len <= GRE_MIN_FRAME + 4u * a.tags,
               "trailing bytes");
        ENSURE(a.inner_len >= 1, "empty inner packet");
        if (a.verdict == GRE_DECAP_ETH) {
            ENSURE(a.gre_proto == 0x6558 && n == a.inner_len && n >= 14, "Ethernet output size");
            ENSURE(memcmp(out, f + a.inner_off, n) == 0, "Ethernet output bytes");
        } else {
            ENSURE(a.gre_proto == (a.verdict == GRE_DECAP_IPV4 ? 0x0800 : 0x86DD), "protocol");
            ENSURE(n == l2 + a.inner_len, "IP output size");
            ENSURE(memcmp(out, f, l2 - 2) == 0, "IP output L2 header");
            ENSURE(rd16(out + l2 - 2) == a.gre_proto, "IP output Ethertype");
            ENSURE(memcmp(out + l2, f + a.inner_off, a.inner_len) == 0, "IP output payload");
        }
    }

    memcpy(buf, f, len);
    n2 = gre_decap_inplace(buf, len, &off, &c);
    ENSURE(c.verdict == a.verdict && n2 == a.out_len, "in-place disagrees");
    ENSURE(off + n2 <= len, "in-place slice out of bounds");
    ENSURE(len == 0 || memcmp(buf + off, out, n2) == 0, "in-place bytes differ");

    free(copy);
    return a.verdict;
}

/* Locate the outer IPv4 header the way the parser does (tags, Ethertype); 0 if none. */
static size_t find_ipv4(const uint8_t *f, size_t len)
{
    size_t off = 12;
    int tags = 0;
    if (len < 14)
        return 0;
    while ((rd16(f + off) == 0x8100 || rd16(f + off) == 0x88A8) && tags < 2) {
        off += 4;
        tags++;
        if (len < off + 2)
            return 0;
    }
    if (rd16(f + off) != 0x0800 || len < off + 2 + 20)
        return 0;
    return off + 2;
}

static void fix_length(uint8_t *f, size_t len)
{
    size_t l3 = find_ipv4(f, len);
    if (l3) {
        size_t total = len - l3;
        f[l3 + 2] = (uint8_t)(total >> 8);
        f[l3 + 3] = (uint8_t)total;
    }
}

static void fix_csum(uint8_t *f, size_t len)
{
    size_t l3 = find_ipv4(f, len), ihl;
    uint16_t c;
    if (!l3)
        return;
    ihl = (size_t)(f[l3] & 0x0F) * 4;
    if (ihl < 20 || l3 + ihl > len)
        return;
    f[l3 + 10] = f[l3 + 11] = 0;
    c = gre_inet_csum(f + l3, ihl);
    f[l3 + 10] = (uint8_t)(c >> 8);
    f[l3 + 11] = (uint8_t)c;
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
    if (data[0] & 2)
        fix_length(f, len);
    if (data[0] & 1)
        fix_csum(f, len);
    check_one(f, len);
    return 0;
}

#ifdef FUZZ_STANDALONE

/* ---- deterministic driver ----------------------------------------------------------------- */

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

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

static void wr16(uint8_t *p, unsigned v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

/* A structured, usually valid GRE frame; returns its length. */
static size_t gen_frame(uint8_t *f)
{
    static const unsigned tpids[2] = {0x8100, 0x88A8};
    static const unsigned protos[5] = {0x6558, 0x0800, 0x86DD, 0x88BE, 0x0806};
    size_t off = 12, l3, g, ghl = 4, inner, i, end;
    unsigned tags = rn(8) == 0 ? 3 : rn(3), t, flags, v6 = rn(3) == 0, ihl = 5;

    for (i = 0; i < 12; i++)
        f[i] = (uint8_t)rnd();
    for (t = 0; t < tags; t++) {
        wr16(f + off, tpids[rn(2)]);
        wr16(f + off + 2, rn(4096));
        off += 4;
    }
    wr16(f + off, v6 ? 0x86DD : 0x0800);
    l3 = off + 2;
    flags = (rn(2) ? 0x8000u : 0) | (rn(2) ? 0x2000u : 0) | (rn(2) ? 0x1000u : 0);
    if (rn(16) == 0)
        flags |= 1u << rn(15);  /* sometimes R, reserved or version bits */
    ghl += 4u * (((flags >> 15) & 1) + ((flags >> 13) & 1) + ((flags >> 12) & 1));
    inner = rn(4) == 0 ? rn(20) : rn(300);
    if (v6) {
        g = l3 + 40;
        f[l3] = 0x60;
        f[l3 + 1] = f[l3 + 2] = f[l3 + 3] = 0;
        wr16(f + l3 + 4, (unsigned)(ghl + inner));
        f[l3 + 6] = rn(16) ? 47 : (uint8_t)rnd();
        f[l3 + 7] = 64;
        for (i = 8; i < 40; i++)
            f[l3 + i] = (uint8_t)rnd();
    } else {
        ihl = rn(4) ? 5 : 5 + rn(11);
        g = l3 + ihl * 4;
        f[l3] = (uint8_t)(0x40 | ihl);
        f[l3 + 1] = 0;
        wr16(f + l3 + 2, (unsigned)(ihl * 4 + ghl + inner));
        wr16(f + l3 + 4, rn(65536));
        wr16(f + l3 + 6, rn(8) ? (rn(2) ? 0x4000u : 0) : rn(65536));
        f[l3 + 8] = 64;
        f[l3 + 9] = rn(16) ? 47 : (uint8_t)rnd();
        for (i = 12; i < ihl * 4; i++)
            f[l3 + i] = (uint8_t)rnd();
        f[l3 + 10] = f[l3 + 11] = 0;
        {
            uint16_t c = gre_inet_csum(f + l3, ihl * 4);
            wr16(f + l3 + 10, c);
        }
    }
    wr16(f + g, flags);
    wr16(f + g + 2, rn(8) ? protos[rn(3)] : rn(4) ? protos[rn(5)] : rn(65536));
    for (i = g + 4; i < g + ghl + inner; i++)
        f[i] = (uint8_t)rnd();
    end = g + ghl + inner;
    if (end < GRE_MIN_FRAME + 4 * tags && rn(2)) {  /* Ethernet padding, sometimes too much */
        size_t to = GRE_MIN_FRAME + 4 * tags - rn(3) + rn(3);
        if (to > end) {
            memset(f + end, rn(2) ? 0 : 0xAA, to - end);
            end = to;
        }
    }
    return end;
}

/* Mutate a frame in place; returns the new length. */
static size_t mutate(uint8_t *f, size_t len)
{
    unsigned k, n = rn(4);
    for (k = 0; k < n; k++) {
        switch (rn(6)) {
        case 0:  /* flip a bit */
            if (len)
                f[rn((unsigned)len)] ^= (uint8_t)(1u << rn(8));
            break;
        case 1:  /* set a byte, biased to the headers */
            if (len)
                f[rn(len < 80 ? (unsigned)len : 80)] = (uint8_t)rnd();
            break;
        case 2:  /* truncate */
            if (len)
                len = rn((unsigned)len + 1);
            break;
        case 3: {  /* extend */
            size_t add = rn(32), i;
            for (i = 0; i < add && len < MAX_FRAME; i++)
                f[len++] = (uint8_t)rnd();
            break;
        }
        case 4:
            fix_length(f, len);
            break;
        default:
            fix_csum(f, len);
            break;
        }
    }
    return len;
}

int main(int argc, char **argv)
{
    static uint8_t f[MAX_FRAME];
    unsigned long long counts[GRE_VERDICT_COUNT] = {0}, total = 0, i, frames;
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
            f[0] = (uint8_t)rn(4);
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
        if (kind == 0) {  /* random bytes */
            size_t k;
            len = rn(200);
            for (k = 0; k < len; k++)
                f[k] = (uint8_t)rnd();
            if (len >= 14 && rn(2))
                wr16(f + 12, rn(2) ? 0x0800 : 0x86DD);
        } else {
            len = gen_frame(f);
            if (kind >= 4)
                len = mutate(f, len);
        }
        counts[check_one(f, len)]++;
        total++;
    }
    printf("fuzz_gre_parse: %llu frames, 0 invariant violations\n", total);
    for (v = 0; v < GRE_VERDICT_COUNT; v++)
        printf("  %-18s %llu\n", gre_verdict_name((enum gre_verdict)v), counts[v]);
    for (v = 0; v < GRE_VERDICT_COUNT; v++)
        if (counts[v] == 0) {
            printf("fuzz_gre_parse: verdict %s never reached\n",
                   gre_verdict_name((enum gre_verdict)v));
            return 1;
        }
    return 0;
}

#endif
