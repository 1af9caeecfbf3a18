/*
 * libfade (fade_lib.h): commands - one in flight per board (cmd_lock), sent again until the
 * response arrives (the board executes a csn once), its response taken by the receive path or,
 * in poll mode, read by the waiting thread itself - and the stream commands START / STOP /
 * RESET, which also drop what belongs to the old stream.
 */
#include "fade_lib.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <string.h>

#define CMD_TRY_MS 50u        /* START / STOP: wait this long per try */

/* ---- commands ---------------------------------------------------------------------------------- */

int send_frame(struct fade *f, const uint8_t *frame, size_t len)
{
    struct sockaddr_ll to;
    memset(&to, 0, sizeof(to));
    to.sll_family = AF_PACKET;
    to.sll_ifindex = f->ifindex;
    to.sll_halen = 6;
    memcpy(to.sll_addr, frame, 6);
    if (sendto(f->fd, frame, len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)len)
        return -errno;
    return 0;
}

int cmd_pending(struct fade *f)
{
    return __atomic_load_n(&f->pend_cmd, __ATOMIC_RELAXED) != FADE_CMD_NONE;
}

/* Poll mode: the thread waiting for a response reads the response socket itself until the
 * response is there, the context closes or try_ms passed; and the ring too while no thread is
 * reading (with V2 the response rides in a ring frame; and a board may hold the response for
 * a data frame its full window holds back, e.g. while the reader itself is in fade_stop()).
 * While a reader handles the ring this thread leaves the ring to it (with V2 the reader
 * delivers the responses it finds there and wakes this thread: progress()) and reads only the
 * response socket (V3), which holds response heads, and in frame mode data frames, which it
 * then handles and ACKs like the reader (both under rx_lock). (reader_active() is looked at
 * once per wake-up, at least every 20 ms.) */
static void cmd_poll_wait(struct fade *f, unsigned try_ms)
{
    uint64_t end = now_ns() + (uint64_t)try_ms * 1000000u;
    for (;;) {
        unsigned ev;
        int done, ms, ring = !reader_active(f);
        poll_step(f, 1, ring);
        ev = __atomic_load_n(&f->events, __ATOMIC_SEQ_CST);
        pthread_mutex_lock(&f->resp_lock);
        done = f->pend_done;
        pthread_mutex_unlock(&f->resp_lock);
        ms = ms_left(end);
        if (done || ms == 0 || __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE))
            return;
        poll_wait(f, ev, ms, ring, 1);
    }
}

static int do_cmd(struct fade *f, uint16_t cmd, uint32_t arg, unsigned retries, unsigned try_ms,
                  uint64_t *result)
{
    uint8_t frame[FADE_MIN_FRAME];
    unsigned t;
    int done = 0, ret = 0;
    uint64_t val = 0;

    pthread_mutex_lock(&f->cmd_lock);
    pthread_mutex_lock(&f->resp_lock);
    if (++f->csn == 0)
        f->csn = 1;
    f->pend_csn = f->csn;
    f->pend_done = 0;
    __atomic_store_n(&f->pend_cmd, cmd, __ATOMIC_RELAXED);  /* read unlocked as a hint */
    pthread_mutex_unlock(&f->resp_lock);
    fade_build_cmd(frame, f->board, f->self, cmd, f->pend_csn, arg);
    for (t = 0; t <= retries && !done; t++) {
        struct timespec dl = deadline_in(try_ms);
        int closing;
        ret = send_frame(f, frame, sizeof(frame));
        __atomic_fetch_add(&f->c.cmds_sent, 1, __ATOMIC_RELAXED);
        if (t)
            __atomic_fetch_add(&f->c.cmd_retries, 1, __ATOMIC_RELAXED);
        if (f->poll_mode)
            cmd_poll_wait(f, try_ms);
        pthread_mutex_lock(&f->resp_lock);
        while (!f->poll_mode && !f->pend_done &&
               !(closing = __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE)))
            if (pthread_cond_timedwait(&f->cmd_cv, &f->resp_lock, &dl) == ETIMEDOUT)
                break;
        done = f->pend_done;
        val = f->pend_val;
        closing = __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE);
        pthread_mutex_unlock(&f->resp_lock);
        if (closing)
            t = retries;
    }
    pthread_mutex_lock(&f->resp_lock);
    __atomic_store_n(&f->pend_cmd, FADE_CMD_NONE, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->resp_lock);
    pthread_mutex_unlock(&f->cmd_lock);
    if (done) {
        if (result)
            *result = val;
        return 0;
    }
    return ret < 0 ? ret : -ETIMEDOUT;
}

int fade_user_cmd(fade_t *f, uint16_t cmd, uint32_t arg, unsigned retries, unsigned timeout_ms,
                  uint64_t *result)
{
    if (!f || cmd < FADE_CMD_USER_MIN || cmd > FADE_CMD_USER_MAX || timeout_ms == 0)
        return -EINVAL;
    return do_cmd(f, cmd, arg, retries, timeout_ms, result);
}

/* ---- START / STOP / RESET ---------------------------------------------------------------------- */

/* START / RESET: drop what belongs to the old stream (frame mode, whatever the response
 * socket holds: its whole frames would otherwise be taken as the new one's, the spans), under
 * rx_lock; returns with `lock` held (lock order: rx_lock, then lock). */
static void drop_old_stream(struct fade *f)
{
    pthread_mutex_lock(&f->rx_lock);
    if (f->cfd >= 0) {
        frame_mode(f, 0);
        while (recv(f->cfd, f->cbuf, FADE_CTRL_SNAP, MSG_DONTWAIT | MSG_TRUNC) >= 0) {
        }
    }
    pthread_mutex_lock(&f->lock);
    if (f->inplace)
        drop_spans(f);
    pthread_mutex_unlock(&f->rx_lock);
}

int fade_start(fade_t *f, unsigned timeout_ms)
{
    uint64_t val = 0;
    int ret;
    if (!f)
        return -EINVAL;
    drop_old_stream(f);
    fade_rx_reset(&f->rx);
    sync_counters(f);
    f->active = 1;
    pthread_mutex_unlock(&f->lock);
    /* one ACK record per frame until the board has said how many it takes (its answer) */
    __atomic_store_n(&f->ack_per_frame, 1, __ATOMIC_RELAXED);
    ret = do_cmd(f, FADE_CMD_START, 0, timeout_ms / CMD_TRY_MS, CMD_TRY_MS, &val);
    if (ret == 0) {
        unsigned n = fade_board_ack_records(val);
        __atomic_store_n(&f->ack_per_frame, n < f->ack_max ? n : f->ack_max, __ATOMIC_RELAXED);
    }
    return ret;
}

int fade_stop(fade_t *f, unsigned timeout_ms)
{
    if (!f)
        return -EINVAL;
    return do_cmd(f, FADE_CMD_STOP, 0, timeout_ms / CMD_TRY_MS, CMD_TRY_MS, NULL);
}

int fade_reset(fade_t *f)
{
    uint8_t frame[FADE_MIN_FRAME];
    int ret;
    if (!f)
        return -EINVAL;
    fade_build_cmd(frame, f->board, f->self, FADE_CMD_RESET, 0, 0);
    ret = send_frame(f, frame, sizeof(frame));
    drop_old_stream(f);
    if (ret == 0)
        f->c.resets_sent++;
    f->active = 0;
    fade_rx_reset(&f->rx);
    sync_counters(f);
    pthread_cond_broadcast(&f->data_cv);
    progress(f);
    pthread_mutex_unlock(&f->lock);
    return ret;
}
