/*
 * libfade (fade_lib.h): the counters (fade_get_counters(): the receiver buffer's, the kernel's
 * drops, the ACK and command counters kept with atomics) and the error text.
 */
#include "fade_lib.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <string.h>

/* The receiver buffer's counters (fade_rx) into f->c (lock held). */
void sync_counters(struct fade *f)
{
    f->c.data = f->rx.new_pkts;
    f->c.dups = f->rx.dups;
    f->c.future = f->rx.future;
    f->c.no_space = f->rx.no_space;
    f->c.bytes = f->rx.bytes;
}

void fade_get_counters(fade_t *f, struct fade_counters *c)
{
    struct tpacket_stats_v3 st;
    socklen_t sl = sizeof(st);
    if (!f || !c)
        return;
    pthread_mutex_lock(&f->lock);
    if (getsockopt(f->fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
        f->c.kernel_drops += st.tp_drops;  /* reading the statistics resets them */
    sl = sizeof(st);
    if (f->cfd >= 0 && getsockopt(f->cfd, SOL_PACKET, PACKET_STATISTICS, &st, &sl) == 0)
        f->c.kernel_drops += st.tp_drops;
    sync_counters(f);
    *c = f->c;
    c->acks_sent = __atomic_load_n(&f->c.acks_sent, __ATOMIC_RELAXED);
    c->ack_frames = __atomic_load_n(&f->c.ack_frames, __ATOMIC_RELAXED);
    c->ack_records = __atomic_load_n(&f->ack_per_frame, __ATOMIC_RELAXED);
    c->ack_send_fail = __atomic_load_n(&f->c.ack_send_fail, __ATOMIC_RELAXED);
    c->cmds_sent = __atomic_load_n(&f->c.cmds_sent, __ATOMIC_RELAXED);
    c->cmd_retries = __atomic_load_n(&f->c.cmd_retries, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&f->lock);
}

const char *fade_strerror(int err)
{
    if (err == 0)
        return "ok";
    if (err == -ETIMEDOUT)
        return "timed out (no response from the board)";
    return strerror(err < 0 ? -err : err);
}
