/*
 * libfade (fade_lib.h): who runs the receive path (fade_rxpath.c) and how threads sleep - the
 * receive thread; in poll mode the steps the application's calls take (under rx_lock) and their
 * sleeps in poll() on the sockets and the eventfd through which a thread that made progress
 * wakes the others.
 */
#include "fade_lib.h"

#include <poll.h>
#include <sched.h>
#include <unistd.h>

/* ---- waking and sleeping ----------------------------------------------------------------------- */

/* Poll mode: something a waiting thread may wait for happened (data, end of stream, response,
 * reset); wake the threads sleeping in poll() (never the caller: it is not sleeping). */
void progress(struct fade *f)
{
    static const uint64_t one = 1;
    if (f->kickfd < 0)
        return;
    __atomic_fetch_add(&f->events, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->sleepers, __ATOMIC_SEQ_CST) > 0 &&
        write(f->kickfd, &one, sizeof(one)) < 0) {
        /* EAGAIN: the counter is already non-zero, the sleepers will see it */
    }
}

/* Sleep in poll() on the ring socket (ring) and the response socket (resp) (and, in poll mode,
 * the eventfd other threads wake us with) until a frame arrives, at most max_ms (-1: no limit)
 * and at most 20 ms (2 ms while ACKs wait for kernel memory: retried then). */
static void wait_for_frames(struct fade *f, int max_ms, int ring, int resp)
{
    struct pollfd p[3];
    int n = 0, c = -1, k = -1, timeout = 20;
    if (ring)  /* not: a command thread while a reader handles the ring */
        p[n++] = (struct pollfd){.fd = f->fd, .events = POLLIN | POLLERR};
    if (f->cfd >= 0 && resp) {
        c = n;
        p[n++] = (struct pollfd){.fd = f->cfd, .events = POLLIN | POLLERR};
    }
    if (f->kickfd >= 0) {
        k = n;
        p[n++] = (struct pollfd){.fd = f->kickfd, .events = POLLIN};
    }
    if (!f->poll_mode && f->tx_unsent)  /* ACKs the kernel had no room for: retry soon (poll
                                          * mode: poll_step() does, under rx_lock) */
        tx_kick(f);
    if (f->poll_mode ? __atomic_load_n(&f->retry_soon, __ATOMIC_RELAXED) : f->tx_unsent)
        timeout = 2;
    if (max_ms >= 0 && max_ms < timeout)
        timeout = max_ms;
    if (poll(p, (nfds_t)n, timeout) > 0) {
        if (c >= 0 && p[c].revents)
            __atomic_store_n(&f->cfd_ready, 1, __ATOMIC_RELAXED);
        if (k >= 0 && p[k].revents) {
            uint64_t v;
            if (read(f->kickfd, &v, sizeof(v)) < 0) {
                /* EAGAIN: another sleeper read it first */
            }
        }
    }
}

/* ---- poll mode --------------------------------------------------------------------------------- */

/* Poll mode: the receiver buffer has no room for another window of packets. */
int buffer_full(struct fade *f)
{
    uint64_t used;
    pthread_mutex_lock(&f->lock);
    used = fade_rx_head(&f->rx) - f->rx.tail;
    pthread_mutex_unlock(&f->lock);
    return used + ((uint64_t)FADE_PACKET_BYTES << f->rx.win_log2) > f->buf_len;
}

/* Poll mode: everything the kernel has handed over, without sleeping (ring: at most 64 ring
 * batches, taking rx_lock for each, so a command thread gets in between); frames handled. The
 * response socket is read when poll() saw it readable, always by the thread waiting for a
 * response (cmd), and in frame mode: not by the reader on every call otherwise. */
int poll_step(struct fade *f, int cmd, int ring)
{
    int n = 0, r = 0, i;
    pthread_mutex_lock(&f->rx_lock);
    /* a reader leaves the frames in the response socket too while the buffer is full (frame
     * mode; they would be dropped unACKed) */
    if (cmd || !f->frame_mode || !buffer_full(f))
        n = check_control(f, cmd);
    for (i = 0; ring && i < 64 && r >= 0; i++) {
        if (i) {
            pthread_mutex_unlock(&f->rx_lock);
            pthread_mutex_lock(&f->rx_lock);
        }
        /* leave the frames in the ring while the buffer is full (they would be dropped); not
         * for a thread waiting for a response: with V2 it may be in the ring behind them */
        if (!cmd && buffer_full(f))
            break;
        r = rx_ring(f);
        if (r > 0)
            n += r;
    }
    if (ring && f->tx_unsent)
        tx_kick(f);
    __atomic_store_n(&f->retry_soon, f->tx_unsent, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->rx_lock);
    return n;
}

/* Poll mode: sleep until a frame arrives or max_ms passed, unless another thread made
 * progress since `ev` (f->events read after this thread's last look at its condition). */
void poll_wait(struct fade *f, unsigned ev, int max_ms, int ring, int resp)
{
    __atomic_fetch_add(&f->sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&f->events, __ATOMIC_SEQ_CST) == ev)
        wait_for_frames(f, max_ms, ring, resp);
    __atomic_fetch_sub(&f->sleepers, 1, __ATOMIC_SEQ_CST);
}

/* ---- the receive thread ------------------------------------------------------------------------ */

/* The receive thread (without poll mode): the response socket and the ring under rx_lock, and
 * a sleep in poll() whenever the kernel has handed nothing over. */
void *rx_thread(void *arg)
{
    struct fade *f = arg;
    if (f->rx_cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(f->rx_cpu, &set);
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    while (!__atomic_load_n(&f->closing, __ATOMIC_ACQUIRE)) {
        int r;
        pthread_mutex_lock(&f->rx_lock);  /* against fade_start() / fade_reset() */
        check_control(f, cmd_pending(f));
        r = rx_ring(f);
        pthread_mutex_unlock(&f->rx_lock);
        if (r < 0)
            wait_for_frames(f, -1, 1, 1);
    }
    return NULL;
}
