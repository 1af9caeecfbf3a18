/*
 * libfade: the FADE-10G host side (include/fastpath/fade.h, fade/docs/host.md; the design, the
 * locking and the source files: fade_lib.h). This file: the context - options, fade_open() /
 * fade_close(), and the boards open in this process.
 */
#include "fade_lib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- boards opened in this process (frames from them are not "unknown") ------------------------ */

#define MAX_OPEN 64
static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct { int ifindex; uint8_t mac[6]; } open_boards[MAX_OPEN];
static int n_open;

static int register_board(int ifindex, const uint8_t mac[6])
{
    int i, ret = 0;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open; i++)
        if (open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6))
            ret = -EBUSY;
    if (!ret && n_open == MAX_OPEN)
        ret = -ENOSPC;
    if (!ret) {
        open_boards[n_open].ifindex = ifindex;
        memcpy(open_boards[n_open].mac, mac, 6);
        n_open++;
    }
    pthread_mutex_unlock(&open_lock);
    return ret;
}

static void unregister_board(int ifindex, const uint8_t mac[6])
{
    int i;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open; i++)
        if (open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6)) {
            open_boards[i] = open_boards[--n_open];
            break;
        }
    pthread_mutex_unlock(&open_lock);
}

int board_is_open(int ifindex, const uint8_t mac[6])
{
    int i, found = 0;
    pthread_mutex_lock(&open_lock);
    for (i = 0; i < n_open && !found; i++)
        found = open_boards[i].ifindex == ifindex && !memcmp(open_boards[i].mac, mac, 6);
    pthread_mutex_unlock(&open_lock);
    return found;
}

/* ---- options ----------------------------------------------------------------------------------- */

void fade_options_default(struct fade_options *o)
{
    memset(o, 0, sizeof(*o));
    o->buf_log2 = 0;   /* from the window (fade_open) */
    o->window_log2 = 4;
    o->ring_version = 3;
    o->ring_block_kib = 0;  /* from the window (ring_geometry) */
    o->ring_blocks = 0;
    o->rx_cpu = -1;
}

int fade_parse_mac(const char *s, uint8_t mac[6])
{
    unsigned v[6];
    char extra;
    int i;
    if (!s || sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                     &extra) != 6)
        return -EINVAL;
    for (i = 0; i < 6; i++) {
        if (v[i] > 255)
            return -EINVAL;
        mac[i] = (uint8_t)v[i];
    }
    return 0;
}

/* ---- open / close ------------------------------------------------------------------------------ */

static void free_context(struct fade *f)
{
    if (f->thread_started) {
        __atomic_store_n(&f->closing, 1, __ATOMIC_RELEASE);
        pthread_join(f->thread, NULL);
    }
    if (f->ring)
        munmap(f->ring, f->ring_len);
    if (f->fd >= 0)
        close(f->fd);
    close_tx_ring(f);
    if (f->cfd >= 0)
        close(f->cfd);
    free(f->cbuf);
    if (f->buf)
        munmap(f->buf, 2 * f->buf_len);
    free(f->slot_pkt);
    free(f->acks);
    free(f->ackf);
    free(f->msgs);
    free(f->iovs);
    free(f->spans);
    free(f->block_refs);
    if (f->kickfd >= 0)
        close(f->kickfd);
    pthread_mutex_destroy(&f->rx_lock);
    pthread_mutex_destroy(&f->lock);
    pthread_mutex_destroy(&f->cmd_lock);
    pthread_mutex_destroy(&f->resp_lock);
    pthread_cond_destroy(&f->data_cv);
    pthread_cond_destroy(&f->cmd_cv);
    free(f);
}

fade_t *fade_open(const char *ifname, const uint8_t board_mac[6], const struct fade_options *opt,
                  char *err, size_t errlen)
{
    struct fade_options o;
    pthread_condattr_t ca;
    struct fade *f;
    char dummy[1];

    if (!err) {
        err = dummy;
        errlen = sizeof(dummy);
    }
    if (opt)
        o = *opt;
    else
        fade_options_default(&o);
    if (!ifname || strlen(ifname) >= IF_NAMESIZE || !board_mac) {
        snprintf(err, errlen, "bad interface name or MAC");
        return NULL;
    }
    if (o.buf_log2 == 0 && !o.poll_mode) {
        /* threaded: the buffer also absorbs the reader's scheduling delays while the receive
         * thread goes on filling it (1 MiB overflowed under load: dropped, unACKed packets) */
        o.buf_log2 = o.window_log2 > 12 ? o.window_log2 : 12;
    } else if (o.buf_log2 == 0) {
        /* poll mode: two windows (in flight + as much again the application has not consumed)
         * and at least 1 MiB; small, so that the copy into it and the application's reads hit
         * the cache; the buffer fills only in the application's own calls, which leave what
         * does not fit in the ring (fade/docs/host.md) */
        o.buf_log2 = o.window_log2 + 1 > 7 ? o.window_log2 + 1 : 7;
        if (o.buf_log2 > 20)
            o.buf_log2 = 20;
    }
    if (o.buf_log2 < 4 || o.buf_log2 > 20 || o.window_log2 > o.buf_log2 ||
        o.window_log2 > 20 ||
        (o.ring_block_kib && (o.ring_block_kib < 16 || o.ring_block_kib > 4096 ||
                              (o.ring_block_kib & (o.ring_block_kib - 1)))) ||
        (o.ring_blocks && (o.ring_blocks < 2 || o.ring_blocks > 65536)) ||
        (o.ring_version != 2 && o.ring_version != 3) ||
        (o.inplace && (!o.poll_mode || o.ring_version != 3))) {
        snprintf(err, errlen, "bad options: buf_log2 4..20, window_log2 0..buf_log2, "
                              "ring_block_kib 0 or a power of two 16..4096, ring_blocks 0 or "
                              "2..65536, "
                              "ring_version 2 or 3, inplace only with poll_mode and ring 3");
        return NULL;
    }
    f = calloc(1, sizeof(*f));
    if (!f) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    f->fd = f->txfd = f->cfd = f->kickfd = -1;
    f->poll_mode = o.poll_mode != 0;
    f->inplace = o.inplace != 0;
    f->cur_block = -1;
    pthread_mutex_init(&f->rx_lock, NULL);
    snprintf(f->ifname, sizeof(f->ifname), "%s", ifname);
    memcpy(f->board, board_mac, 6);
    f->rx_cpu = o.rx_cpu;
    pthread_mutex_init(&f->lock, NULL);
    pthread_mutex_init(&f->cmd_lock, NULL);
    pthread_mutex_init(&f->resp_lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->data_cv, &ca);
    pthread_cond_init(&f->cmd_cv, &ca);
    pthread_condattr_destroy(&ca);
    f->buf_len = (size_t)FADE_PACKET_BYTES << o.buf_log2;
    f->wakeup = FADE_PACKET_BYTES;
    f->slot_pkt = calloc((size_t)1 << o.buf_log2, sizeof(uint32_t));
    f->acks = calloc(MAX_ACKS, sizeof(*f->acks));
    f->ackf = calloc(MAX_ACKS, sizeof(*f->ackf));
    f->msgs = calloc(MAX_ACKS, sizeof(*f->msgs));
    f->iovs = calloc(MAX_ACKS, sizeof(*f->iovs));
    f->ack_max = o.ack_records < 1 ? FADE_ACK_RECORDS_MAX :
                 o.ack_records > FADE_ACK_RECORDS_MAX ? FADE_ACK_RECORDS_MAX : o.ack_records;
    f->ack_per_frame = 1;
    if (!f->slot_pkt || !f->acks || !f->ackf || !f->msgs || !f->iovs) {
        snprintf(err, errlen, "out of memory");
        free_context(f);
        return NULL;
    }
    if (setup_socket(f, &o, err, errlen) < 0 || setup_buffer(f, err, errlen) < 0) {
        free_context(f);
        return NULL;
    }
    if (!f->v2 && setup_control(f, err, errlen) < 0) {
        free_context(f);
        return NULL;
    }
    if (!f->v2) {
        int rcvbuf = 0;
        socklen_t sl = sizeof(rcvbuf);
        f->block_frames = (unsigned)((f->block_size - V3_BLOCK_HDR) / V3_FRAME_BYTES);
        f->frame_exit = 4u << o.window_log2;
        /* frame mode where blocks cannot go round two at a time, if the response socket can
         * queue the window's frames (without CAP_NET_ADMIN its buffer ends at rmem_max) */
        getsockopt(f->cfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &sl);
        f->frame_mode_ok = !o.no_frame_mode && 2 * f->block_frames >= (1u << o.window_log2) &&
                           (uint64_t)rcvbuf >= (uint64_t)FRAME_TRUESIZE << o.window_log2;
    }
    if (f->inplace) {  /* at most every data frame the ring can hold */
        f->span_cap = f->blocks * (unsigned)(f->block_size / V3_FRAME_BYTES + 1);
        f->spans = calloc(f->span_cap, sizeof(*f->spans));
        f->block_refs = calloc(f->blocks, sizeof(*f->block_refs));
        if (!f->spans || !f->block_refs) {
            snprintf(err, errlen, "out of memory");
            free_context(f);
            return NULL;
        }
    }
    if (!o.no_tx_ring)
        setup_tx_ring(f);
    init_ack_msgs(f);  /* the sendmmsg() fallback for ACKs */
    fade_rx_init(&f->rx, f->buf, f->slot_pkt, o.buf_log2, o.window_log2);
    /* a csn the board is unlikely to hold as its last one; never 0 */
    f->csn = (uint16_t)((now_ns() >> 10) ^ (uint64_t)getpid());
    if (register_board(f->ifindex, f->board) < 0) {
        snprintf(err, errlen, "board already open on %s in this process", ifname);
        free_context(f);
        return NULL;
    }
    if (f->poll_mode) {
        f->kickfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (f->kickfd < 0) {
            snprintf(err, errlen, "eventfd: %s", strerror(errno));
            unregister_board(f->ifindex, f->board);
            free_context(f);
            return NULL;
        }
    } else if (pthread_create(&f->thread, NULL, rx_thread, f) != 0) {
        snprintf(err, errlen, "pthread_create failed");
        unregister_board(f->ifindex, f->board);
        free_context(f);
        return NULL;
    } else {
        f->thread_started = 1;
    }
    if (!o.no_reset)
        fade_reset(f);
    return f;
}

void fade_close(fade_t *f)
{
    if (!f)
        return;
    pthread_mutex_lock(&f->lock);
    __atomic_store_n(&f->closing, 1, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&f->data_cv);
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_lock(&f->resp_lock);
    pthread_cond_broadcast(&f->cmd_cv);
    pthread_mutex_unlock(&f->resp_lock);
    progress(f);
    unregister_board(f->ifindex, f->board);
    free_context(f);
}
