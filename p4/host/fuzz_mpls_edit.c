/*
 * Fuzzing mpls_edit.
 *
 * Built two ways (host.mk beside this file):
 *  - with clang -fsanitize=fuzzer: a libFuzzer target (LLVMFuzzerTestOneInput). The first four
 *    input bytes are the configuration (number of labels 0..MPLS_MAX_LABELS, TTL mode/constant,
 *    MTU), the rest is the frame; byte 0's top bit repairs the IP length field before the edit,
 *    so the fuzzer gets past that check instead of stopping at it.
 *  - with -DFUZZ_STANDALONE (any C compiler): a deterministic driver that runs N million inputs
 *    through the same checks: structured frames (0-4 VLAN tags, IPv4 / IPv6 / other Ethertypes,
 *    sizes up to jumbo, padding, truncations) with random mutations, plus pure random bytes.
 *    `--write-corpus DIR` writes seed inputs for libFuzzer instead.
 *
 * Every input is checked against invariants that hold for any frame and configuration: the
 * verdict is in range and deterministic; the header-only variant given just the first
 * MPLS_PARSE_MAX bytes agrees with it given the whole frame and with the copying variant; a drop
 * returns nothing; plain forwarding returns the frame; a push keeps the MACs and tags, writes
 * 0x8847 where an IPv4/IPv6 Ethertype was, the configured labels and TCs with S on the last entry
 * only and the configured or the IP header's TTL, then the rest of the frame byte for byte, and
 * respects the MTU. A violation aborts.
 */
#include "mpls_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAME 9100

static void fail(const char *why, const uint8_t *f, size_t len)
{
    size_t i;
    fprintf(stderr, "fuzz_mpls_edit: invariant violated: %s (len %zu)\n", why, len);
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

static unsigned rd16(const uint8_t *p) { return ((unsigned)p[0] << 8) | p[1]; }
static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

/* The configuration from 4 bytes: labels derived from them so a corpus entry is reproducible. */
static void make_cfg(struct mpls_cfg *c, const uint8_t *k)
{
    unsigned i;
    uint32_t h = 0x9E3779B9u * (k[0] + 1u) ^ k[3];
    memset(c, 0, sizeof(*c));
    c->n = (k[0] & 0x7F) % (MPLS_MAX_LABELS + 1);
    for (i = 0; i < c->n; i++) {
        h = h * 1103515245u + 12345u;
        c->label[i].label = (h >> 8) & MPLS_LABEL_MAX;
        if (c->label[i].label == MPLS_LABEL_IMPLNULL)
            c->label[i].label = 16;
        c->label[i].tc = (uint8_t)(h >> 29);
    }
    c->ttl = (k[1] & 1) ? k[1] : 0;
    c->mtu = k[2] ? (uint32_t)k[2] * 40u + k[3] : 0;
}

/* Where the IP header starts as the edit sees it (0 if no IPv4/IPv6 Ethertype). */
static size_t find_l3(const uint8_t *f, size_t len)
{
    size_t off = 12;
    unsigned tags = 0, et;
    if (len < 14)
        return 0;
    et = rd16(f + 12);
    while ((et == 0x8100 || et == 0x88A8 || et == 0x9100) && tags < MPLS_MAX_TAGS) {
        off += 4;
        tags++;
        if (len < off + 2)
            return 0;
        et = rd16(f + off);
    }
    return (et == 0x0800 || et == 0x86DD) ? off + 2 : 0;
}

static void fix_length(uint8_t *f, size_t len)
{
    size_t l3 = find_l3(f, len);
    if (!l3 || len < l3 + 40)
        return;
    if (rd16(f + l3 - 2) == 0x0800) {
        f[l3 + 2] = (uint8_t)((len - l3) >> 8);
        f[l3 + 3] = (uint8_t)(len - l3);
    } else {
        f[l3 + 4] = (uint8_t)((len - l3 - 40) >> 8);
        f[l3 + 5] = (uint8_t)(len - l3 - 40);
    }
}

static enum mpls_verdict check_one(const struct mpls_cfg *c, const uint8_t *f, size_t len)
{
    static uint8_t out[MAX_FRAME + MPLS_HDR_MAX];
    uint8_t hdr[MPLS_HDR_MAX], hdr2[MPLS_HDR_MAX];
    size_t hlen, cut, hlen2, cut2, n, i;
    enum mpls_verdict v, v2, v3;
    uint8_t *copy;

    if (len > MAX_FRAME)
        len = MAX_FRAME;
    /* an exact-size heap copy, so AddressSanitizer catches any read past the end */
    copy = malloc(len ? len : 1);
    if (!copy)
        abort();
    memcpy(copy, f, len);
    f = copy;

    v = mpls_push_header(c, f, len, len, hdr, &hlen, &cut);
    ENSURE((unsigned)v < MPLS_VERDICT_COUNT, "verdict out of range");
    v2 = mpls_push_header(c, f, len, len, hdr2, &hlen2, &cut2);
    ENSURE(v2 == v && hlen2 == hlen && cut2 == cut && !memcmp(hdr, hdr2, hlen), "not deterministic");
    if (len > MPLS_PARSE_MAX) {
        v2 = mpls_push_header(c, f, MPLS_PARSE_MAX, len, hdr2, &hlen2, &cut2);
        ENSURE(v2 == v && hlen2 == hlen && cut2 == cut && !memcmp(hdr, hdr2, hlen),
               "the first MPLS_PARSE_MAX bytes do not decide");
    }
    n = mpls_push(c, f, len, out, sizeof(out), &v3);
    ENSURE(v3 == v, "copy disagrees");
    if (v != MPLS_PUSHED && v != MPLS_FORWARDED) {
        ENSURE(n == 0 && hlen == 0 && cut == 0, "a drop returns something");
    } else if (v == MPLS_FORWARDED) {
        ENSURE(c->n == 0 && (len == 0 || (n == len && !memcmp(out, f, len))), "plain changes");
    } else {
        size_t l3 = find_l3(f, len);
        unsigned et, ttl;
        ENSURE(c->n > 0 && l3 && cut == l3, "pushed where no IP was found");
        et = rd16(f + l3 - 2);
        ttl = c->ttl ? c->ttl : (et == 0x0800 ? f[l3 + 8] : f[l3 + 7]);
        ENSURE((f[l3] >> 4) == (et == 0x0800 ? 4u : 6u), "IP version");
        ENSURE(n == len + 4 * c->n && hlen == l3 + 4 * c->n, "lengths");
        ENSURE(!memcmp(out, f, l3 - 2) && rd16(out + l3 - 2) == MPLS_ETH_P_MPLS, "L2 header");
        for (i = 0; i < c->n; i++) {
            uint32_t lse = rd32(out + l3 + 4 * i);
            ENSURE(lse >> 12 == c->label[i].label && ((lse >> 9) & 7) == c->label[i].tc &&
                   ((lse >> 8) & 1) == (i + 1 == c->n) && (lse & 0xFF) == ttl, "label entry");
        }
        ENSURE(!memcmp(out + hlen, f + cut, len - cut), "payload");
        ENSURE(!c->mtu || n - (l3 - 2) - 2 <= c->mtu, "MTU");
        ENSURE(l3 + (et == 0x0800 ? rd16(f + l3 + 2) : 40u + rd16(f + l3 + 4)) <= len,
               "IP packet longer than the frame");
    }
    free(copy);
    return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t f[MAX_FRAME];
    struct mpls_cfg c;
    size_t len;
    if (size < 4)
        return 0;
    make_cfg(&c, data);
    len = size - 4 > MAX_FRAME ? MAX_FRAME : size - 4;
    memcpy(f, data + 4, len);
    if (data[0] & 0x80)
        fix_length(f, len);
    check_one(&c, f, len);
    return 0;
}

#ifdef FUZZ_STANDALONE
static uint64_t rng_state = 0x243F6A8885A308D3ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* A structured frame (into f, returns its length): tags, IPv4/IPv6/other, sizes, padding. */
static size_t make_frame(uint8_t *f)
{
    static const unsigned tpids[4] = {0x8100, 0x88A8, 0x9100, 0x8100};
    unsigned ntags = rnd() % 5, t, r = rnd() % 10;
    size_t off = 12, ip_len, pad, i;
    int v6 = r >= 5, other = r == 9;
    for (i = 0; i < 12; i++)
        f[i] = (uint8_t)rnd();
    for (t = 0; t < ntags; t++, off += 4) {
        unsigned tp = tpids[rnd() % 4], tci = rnd() & 0xFFFF;
        f[off] = (uint8_t)(tp >> 8);
        f[off + 1] = (uint8_t)tp;
        f[off + 2] = (uint8_t)(tci >> 8);
        f[off + 3] = (uint8_t)tci;
    }
    f[off] = other ? (uint8_t)rnd() : (v6 ? 0x86 : 0x08);
    f[off + 1] = other ? (uint8_t)rnd() : (v6 ? 0xDD : 0x00);
    off += 2;
    switch (rnd() % 4) {
    case 0: ip_len = (v6 ? 40 : 20) + rnd() % 40; break;
    case 1: ip_len = (v6 ? 40 : 20) + rnd() % 1500; break;
    case 2: ip_len = 1400 + rnd() % 200; break;
    default: ip_len = 8900 + rnd() % 150; break;
    }
    pad = rnd() % 4 ? 0 : rnd() % 30;
    if (off + ip_len + pad > MAX_FRAME)
        ip_len = MAX_FRAME - off - pad;
    for (i = 0; i < ip_len + pad; i++)
        f[off + i] = (uint8_t)rnd();
    if (ip_len >= 40 || (!v6 && ip_len >= 20)) {
        if (v6) {
            f[off] = (uint8_t)(0x60 | (f[off] & 0x0F));
            f[off + 4] = (uint8_t)((ip_len - 40) >> 8);
            f[off + 5] = (uint8_t)(ip_len - 40);
        } else {
            f[off] = 0x45;
            f[off + 2] = (uint8_t)(ip_len >> 8);
            f[off + 3] = (uint8_t)ip_len;
        }
    }
    return off + ip_len + pad;
}

static void mutate(uint8_t *f, size_t *len)
{
    unsigned k = rnd() % 4, i;
    if (k == 0 && *len)
        *len = rnd() % *len;  /* truncate */
    for (i = 0; i < (k == 1 ? 1 + rnd() % 4 : 0) && *len; i++)
        f[rnd() % (*len < 80 ? *len : 80)] ^= (uint8_t)(1u << (rnd() % 8));
    if (k == 2 && *len)
        f[rnd() % *len] = (uint8_t)rnd();
}

static void cfg_bytes(uint8_t *k)
{
    k[0] = (uint8_t)(rnd() % 4 == 0 ? rnd() % 17 : 1 + rnd() % 3);
    k[1] = (uint8_t)rnd();
    k[2] = (uint8_t)(rnd() % 3 == 0 ? 0 : rnd());
    k[3] = (uint8_t)rnd();
}

int main(int argc, char **argv)
{
    static uint8_t buf[4 + MAX_FRAME];
    unsigned long long total = 2000000ull, i, counts[MPLS_VERDICT_COUNT] = {0};
    int a, v;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--millions") && a + 1 < argc) {
            total = (unsigned long long)(atof(argv[++a]) * 1e6);
        } else if (!strcmp(argv[a], "--write-corpus") && a + 1 < argc) {
            const char *dir = argv[++a];
            for (i = 0; i < 64; i++) {
                char path[512];
                size_t len;
                FILE *fp;
                cfg_bytes(buf);
                buf[0] |= 0x80;
                len = make_frame(buf + 4);
                snprintf(path, sizeof(path), "%s/seed%02llu", dir, i);
                fp = fopen(path, "wb");
                if (!fp || fwrite(buf, 1, 4 + len, fp) != 4 + len) {
                    perror(path);
                    return 1;
                }
                fclose(fp);
            }
            return 0;
        } else {
            fprintf(stderr, "usage: fuzz_mpls_edit [--millions N] [--write-corpus DIR]\n");
            return 2;
        }
    }
    for (i = 0; i < total; i++) {
        struct mpls_cfg c;
        size_t len;
        cfg_bytes(buf);
        make_cfg(&c, buf);
        if (i % 16 == 15) {  /* pure random bytes */
            size_t j;
            len = rnd() % 200;
            for (j = 0; j < len; j++)
                buf[4 + j] = (uint8_t)rnd();
        } else {
            len = make_frame(buf + 4);
            if (rnd() % 2)
                mutate(buf + 4, &len);
        }
        counts[check_one(&c, buf + 4, len)]++;
    }
    printf("fuzz_mpls_edit: %llu inputs, invariants held;", total);
    for (v = 0; v < MPLS_VERDICT_COUNT; v++)
        printf(" %s %llu", mpls_verdict_name((enum mpls_verdict)v), counts[v]);
    printf("\n");
    return 0;
}
#endif
