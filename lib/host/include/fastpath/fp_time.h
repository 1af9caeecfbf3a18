/*
 * fp_time: fastpath's one time format (docs/architecture.md, "Time").
 * An unsigned 64-bit count of nanoseconds in Q48.16 fixed point: bits 63..16 are whole
 * nanoseconds, bits 15..0 are 1/65,536 ns. Differences are plain unsigned subtraction.
 */
#ifndef FASTPATH_FP_TIME_H
#define FASTPATH_FP_TIME_H

#include <stdint.h>
#include <time.h>

typedef uint64_t fp_time;

#define FP_TIME_FRAC_BITS 16

static inline fp_time fp_time_from_ns(uint64_t ns) { return ns << FP_TIME_FRAC_BITS; }

static inline double fp_time_to_ns(fp_time t) { return (double)t / 65536.0; }

static inline fp_time fp_time_from_timespec(const struct timespec *ts)
{
    return fp_time_from_ns((uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec);
}

/* The current time of a host clock (CLOCK_MONOTONIC, CLOCK_TAI, ...) as fp_time. */
static inline fp_time fp_time_now(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return fp_time_from_timespec(&ts);
}

static inline void fp_time_put_be(uint8_t *p, fp_time t)
{
    int i;
    for (i = 7; i >= 0; i--) {
        p[i] = (uint8_t)t;
        t >>= 8;
    }
}

static inline fp_time fp_time_get_be(const uint8_t *p)
{
    fp_time t = 0;
    int i;
    for (i = 0; i < 8; i++)
        t = (t << 8) | p[i];
    return t;
}

#endif
