/*
 * libfade (fade_lib.h): the application's side of the receiver buffer - the wake-up threshold,
 * fade_read_ptrs() / fade_write_ptrs(), fade_poll(), and reading in place (spans:
 * fade_read_span() / fade_release_span()); in poll mode these calls run the receive path
 * themselves (fade_poll.c), as "readers".
 */
#include "fade_lib.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <string.h>

/* ---- the buffer and the wake-up threshold ------------------------------------------------------ */

int fade_set_wakeup(fade_t *f, size_t bytes)
{
    if (!f || bytes == 0 || bytes > f->buf_len)
        return -EINVAL;
    pthread_mutex_lock(&f->lock);
    f->wakeup = bytes;
    pthread_mutex_unlock(&f->lock);
    pthread_cond_broadcast(&f->data_cv);  /* a waiting reader re-checks with the new threshold */
    progress(f);
    return 0;
}

size_t fade_buf_len(const fade_t *f) { return f ? f->buf_len : 0; }

const uint8_t *fade_buf(const fade_t *f) { return f ? f->buf : NULL; }

static void fill_ptrs(struct fade *f, struct fade_ptrs *p)
{
    uint64_t head = fade_rx_head(&f->rx);
    p->total = head;
    p->avail = head - f->rx.tail;
    p->head = head % f->buf_len;
    p->tail = f->rx.tail % f->buf_len;
    p->eos = fade_rx_eos(&f->rx);
}

/* ---- readers: poll mode's threads in the calls below ------------------------------------------- */

/* A number for the calling thread (the address of a thread-local variable). */
static uintptr_t this_thread(void)
{
    static __thread char me;
    return (uintptr_t)&me;
}

/* Poll mode: another thread reads (or did within the last 20 ms, and will again): it handles
 * the ring, and a command thread must not (ACKs from two threads can overtake each other). */
int reader_active(struct fade *f)
{
    if (__atomic_load_n(&f->readers, __ATOMIC_SEQ_CST))
        return 1;
    return __atomic_load_n(&f->last_reader, __ATOMIC_RELAXED) != this_thread() &&
           now_ns() - __atomic_load_n(&f->reader_ns, __ATOMIC_RELAXED) < 20000000u;
}

/* ---- fade_read_ptrs(), fade_poll(), fade_write_ptrs() ------------------------------------------ */

/* Poll mode: handle frames, then test `ready` (given the number just handled); sleep in poll()
 * between tries until it holds (0) or the timeout in ms passes (-ETIMEDOUT; < 0: none). The
 * event count is read before `ready`, so a frame that arrives after the test ends the sleep. */
typedef int (*ready_fn)(struct fade *f, int handled, void *arg);

static int poll_until(struct fade *f, ready_fn ready, void *arg, int timeout_ms)
{
    uint64_t end = timeout_ms > 0 ? now_ns() + (uint64_t)timeout_ms * 1000000u : 0;
    for (;;) {
        int n = poll_step(f, 0, 1), ms;
        unsigned ev = __atomic_load_n(&f->events, __ATOMIC_SEQ_CST);
        if (ready(f, n, arg))
            return 0;
        ms = timeout_ms < 0 ? -1 : timeout_ms == 0 ? 0 : ms_left(end);
        if (ms == 0)
            return -ETIMEDOUT;
        /* while a command waits, its thread reads the response socket (except in frame mode,
         * when the data comes there): the reader is not woken for the response too */
        poll_wait(f, ev, ms, 1, !cmd_pending(f) || __atomic_load_n(&f->frame_mode, __ATOMIC_RELAXED));
    }
}

static int closing(struct fade *f)
{
    return __atomic_load_n(&f->closing, __ATOMIC_ACQUIRE);
}

/* fade_read_ptrs: the wake-up threshold, the end of the stream, or a buffer that cannot take
 * another window (then what is there, even below the threshold) */
static int ptrs_ready(struct fade *f, int handled, void *arg)
{
    struct fade_ptrs *p = arg;
    int ready;
    (void)handled;
    pthread_mutex_lock(&f->lock);
    fill_ptrs(f, p);
    ready = p->avail >= f->wakeup || p->eos || closing(f);
    pthread_mutex_unlock(&f->lock);
    return ready || (p->avail && buffer_full(f));
}

/* Run `call` as a reader and return its value (`readers`: a waiting command thread leaves the
 * ring to the readers, see reader_active()). */
#define AS_READER(f, call)                                                                    \
    do {                                                                                      \
        int ret_;                                                                             \
        __atomic_fetch_add(&(f)->readers, 1, __ATOMIC_SEQ_CST);                               \
        ret_ = (call);                                                                        \
        __atomic_store_n(&(f)->last_reader, this_thread(), __ATOMIC_RELAXED);                 \
        __atomic_store_n(&(f)->reader_ns, now_ns(), __ATOMIC_RELAXED);                        \
        __atomic_fetch_sub(&(f)->readers, 1, __ATOMIC_SEQ_CST);                               \
        return ret_;                                                                          \
    } while (0)

static int read_ptrs_poll(struct fade *f, struct fade_ptrs *p, int timeout_ms)
{
    AS_READER(f, poll_until(f, ptrs_ready, p, timeout_ms));
}

/* fade_poll: frames were handled (their number is kept in *arg), or there is nothing to do
 * until the application consumes (buffer full) or closes */
static int handled_ready(struct fade *f, int handled, void *arg)
{
    *(int *)arg = handled;
    return handled > 0 || closing(f) || buffer_full(f);
}

static int poll_loop(struct fade *f, int timeout_ms)
{
    int n = 0;
    return poll_until(f, handled_ready, &n, timeout_ms) ? 0 : n;
}

int fade_poll(fade_t *f, int timeout_ms)
{
    if (!f || !f->poll_mode)
        return -EINVAL;
    AS_READER(f, poll_loop(f, timeout_ms));
}

int fade_read_ptrs(fade_t *f, struct fade_ptrs *p, int timeout_ms)
{
    struct timespec dl;
    int ret = 0;
    if (!f || !p)
        return -EINVAL;
    if (f->inplace) {
        memset(p, 0, sizeof(*p));
        return -EINVAL;  /* fade_read_span() */
    }
    if (f->poll_mode)
        return read_ptrs_poll(f, p, timeout_ms);
    if (timeout_ms > 0)
        dl = deadline_in((unsigned)timeout_ms);
    pthread_mutex_lock(&f->lock);
    f->waiters++;
    for (;;) {
        fill_ptrs(f, p);
        if (p->avail >= f->wakeup || p->eos || f->closing)
            break;
        if (timeout_ms == 0) {
            ret = -ETIMEDOUT;
            break;
        }
        if (timeout_ms < 0)
            pthread_cond_wait(&f->data_cv, &f->lock);
        else if (pthread_cond_timedwait(&f->data_cv, &f->lock, &dl) == ETIMEDOUT) {
            fill_ptrs(f, p);
            ret = (p->avail >= f->wakeup || p->eos) ? 0 : -ETIMEDOUT;
            break;
        }
    }
    f->waiters--;
    pthread_mutex_unlock(&f->lock);
    return ret;
}

int fade_write_ptrs(fade_t *f, size_t n)
{
    int ret = 0;
    if (!f)
        return -EINVAL;
    pthread_mutex_lock(&f->lock);
    if (n > fade_rx_head(&f->rx) - f->rx.tail)
        ret = -EINVAL;
    else
        f->rx.tail += n;
    pthread_mutex_unlock(&f->lock);
    return ret;
}

/* ---- reading in place: spans ------------------------------------------------------------------- */

/* Inplace (lock held): the next span, 1 if there is one (or the end of the stream). */
static int next_span(struct fade *f, struct fade_span *s)
{
    uint64_t head = fade_rx_head(&f->rx);
    int eos = fade_rx_eos(&f->rx);
    memset(s, 0, sizeof(*s));
    if (f->nspans) {  /* spans are older than anything unread in the buffer */
        const struct span *sp = &f->spans[f->span_first];
        s->data = sp->data;
        s->len = sp->len;
        s->in_ring = 1;
        s->eos = eos && f->nspans == 1 && head == f->rx.tail;
        return 1;
    }
    s->data = f->buf + f->rx.tail % f->buf_len;
    s->len = head - f->rx.tail;
    s->eos = eos;
    return s->len > 0 || eos;
}

static int span_ready(struct fade *f, int handled, void *arg)
{
    int ready;
    (void)handled;
    pthread_mutex_lock(&f->lock);
    ready = next_span(f, arg) || closing(f);
    pthread_mutex_unlock(&f->lock);
    return ready;
}

int fade_read_span(fade_t *f, struct fade_span *s, int timeout_ms)
{
    if (!f || !s || !f->inplace)
        return -EINVAL;
    AS_READER(f, poll_until(f, span_ready, s, timeout_ms));
}

int fade_release_span(fade_t *f, const struct fade_span *s)
{
    int ret = 0;
    if (!f || !s || !f->inplace)
        return -EINVAL;
    pthread_mutex_lock(&f->rx_lock);
    pthread_mutex_lock(&f->lock);
    if (s->in_ring) {
        const struct span *sp = &f->spans[f->span_first];
        if (!f->nspans || sp->data != s->data || sp->len != s->len) {
            ret = -EINVAL;
        } else {
            uint32_t b = sp->block;
            f->span_first = (f->span_first + 1) % f->span_cap;
            f->nspans--;
            if (--f->block_refs[b] == 0) {  /* the block's last span: back to the kernel */
                struct tpacket_block_desc *bd = (void *)(f->ring + (size_t)b * f->block_size);
                __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
            }
        }
    } else if (s->len > fade_rx_head(&f->rx) - f->rx.tail) {
        ret = -EINVAL;
    } else {
        f->rx.tail += s->len;
    }
    pthread_mutex_unlock(&f->lock);
    pthread_mutex_unlock(&f->rx_lock);
    return ret;
}

/* Inplace: forget the spans of the old stream and give their ring blocks back (rx_lock and
 * lock held). */
void drop_spans(struct fade *f)
{
    for (; f->nspans; f->nspans--) {
        uint32_t b = f->spans[f->span_first].block;
        f->span_first = (f->span_first + 1) % f->span_cap;
        if (--f->block_refs[b] == 0) {
            struct tpacket_block_desc *bd = (void *)(f->ring + (size_t)b * f->block_size);
            __atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
        }
    }
}
