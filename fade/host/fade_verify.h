/*
 * fade_verify: checking the test pattern (each 64-bit word = previous + step) in a received
 * stream, shared by fade-recv and fade-tcp. A word that is not the expected one is classified:
 * (word - expected) a positive multiple of step -> that many words lost, a negative multiple ->
 * that many duplicated (the check then continues from the word seen), anything else -> corrupt
 * (the check continues from the expected word).
 */
#ifndef FADE_VERIFY_H
#define FADE_VERIFY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How far ahead (bytes) the check prefetches: the data of an in-place read was written into the
 * RX ring by the kernel, often on another CPU, so it arrives cache-cold, and the hardware
 * prefetcher stops at each 4 KiB page. 1024 and 2048 measured alike (fade/docs/host.md). */
#ifndef FADE_VERIFY_AHEAD
#define FADE_VERIFY_AHEAD 1024
#endif

struct fade_verify {
    uint64_t step, expect, first, words, lost, dup, corrupt;
    int started;
};

static inline void fade_verify_init(struct fade_verify *v, uint64_t step)
{
    memset(v, 0, sizeof(*v));
    v->step = step;
}

static inline void fade_verify_slow(struct fade_verify *v, uint64_t w)
{
    int64_t d = (int64_t)(w - v->expect), st = (int64_t)v->step;
    if (st > 0 && d != INT64_MIN && d % st == 0 && d != 0) {
        if (d > 0)
            v->lost += (uint64_t)(d / st);
        else
            v->dup += (uint64_t)(-d / st);
        v->expect = w + v->step;
    } else {
        v->corrupt++;
        v->expect += v->step;
    }
}

/* n bytes (a multiple of 8) of little-endian words. */
/* One word against the expected e; the next expected word. */
static inline uint64_t fade_verify_word(struct fade_verify *v, uint64_t e, uint64_t w)
{
    if (__builtin_expect(w == e, 1))
        return e + v->step;
    v->expect = e;
    fade_verify_slow(v, w);
    return v->expect;
}

static inline void fade_verify_bytes(struct fade_verify *v, const uint8_t *p, size_t n)
{
    size_t i, nw = n / 8;
    uint64_t e, step = v->step;
    if (!nw)
        return;
    if (!v->started) {
        memcpy(&v->first, p, 8);
        v->expect = v->first;
        v->started = 1;
    }
    e = v->expect;
    i = 0;
    /* a 64-byte line at a time: one test per line (the words XORed with what they should be,
     * ORed), word by word only where that fails, and for the words after the last line */
    for (; i + 8 <= nw; i += 8) {
        uint64_t w[8], bad = 0;
        unsigned k;
        __builtin_prefetch(p + 8 * i + FADE_VERIFY_AHEAD);
        memcpy(w, p + 8 * i, sizeof(w));
        for (k = 0; k < 8; k++)
            bad |= w[k] ^ (e + k * step);
        if (__builtin_expect(!bad, 1)) {
            e += 8 * step;
            continue;
        }
        for (k = 0; k < 8; k++)
            e = fade_verify_word(v, e, w[k]);
    }
    for (; i < nw; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        e = fade_verify_word(v, e, w);
    }
    v->expect = e;
    v->words += nw;
}

static inline int fade_verify_ok(const struct fade_verify *v)
{
    return v->lost == 0 && v->dup == 0 && v->corrupt == 0;
}

#endif
