/*
 * bench_gre_parse: what the decapsulation itself costs, without any I/O.
 * Runs gre_decap() (parse + copy out) on the benchmark's 88-byte IPv4/GRE/0x6558 frame and on
 * a 1514-byte one for about --seconds each (default 0.3) and prints one line of JSON with the
 * nanoseconds per frame.
 */
#include "gre_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void frame(uint8_t *f, size_t len)
{
    uint16_t c;
    size_t i;
    memset(f, 0, len);
    f[0] = 0x02;
    f[6] = 0x02;
    f[12] = 0x08;
    f[14] = 0x45;
    f[16] = (uint8_t)((len - 14) >> 8);
    f[17] = (uint8_t)(len - 14);
    f[22] = 64;
    f[23] = 47;
    c = gre_inet_csum(f + 14, 20);
    f[24] = (uint8_t)(c >> 8);
    f[25] = (uint8_t)c;
    f[36] = 0x65;
    f[37] = 0x58;
    for (i = 38; i < len; i++)
        f[i] = (uint8_t)i;
}

static double ns_per_frame(size_t len, double seconds)
{
    static uint8_t in[2048], out[2048];
    struct gre_info info;
    volatile size_t sink = 0;
    unsigned long n = 0, k;
    double t0, t;
    frame(in, len);
    t0 = now_s();
    do {
        for (k = 0; k < 100000; k++) {
            in[60] = (uint8_t)k;  /* the input changes, so the call cannot be hoisted */
            sink += gre_decap(in, len, out, sizeof(out), &info);
        }
        n += k;
        t = now_s();
    } while (t - t0 < seconds);
    if (info.verdict != GRE_DECAP_ETH || sink == 0) {
        fprintf(stderr, "bench_gre_parse: unexpected verdict %s\n", gre_verdict_name(info.verdict));
        exit(1);
    }
    return (t - t0) * 1e9 / (double)n;
}

int main(int argc, char **argv)
{
    double seconds = argc > 2 && !strcmp(argv[1], "--seconds") ? atof(argv[2]) : 0.3;
    double small = ns_per_frame(88, seconds), large = ns_per_frame(1514, seconds);
    printf("{\"decap_ns_88\": %.1f, \"decap_ns_1514\": %.1f}\n", small, large);
    return 0;
}
