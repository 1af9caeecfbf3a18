/*
 * libfade (fade_lib.h): ACK transmission - a batch's ACK records, ack_per_frame to an ACK frame,
 * written into the ACK TX ring (a send-only socket's PACKET_TX_RING) and handed to the kernel
 * with one send(); sendmmsg() on the receiving socket when the ring is unavailable or full.
 */
#include "fade_lib.h"

#include <errno.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#define TX_FRAME 256u         /* ACK TX ring: frame size (header + an ACK frame of up to 112 bytes) ... */
#define TX_FRAMES 4096u       /* ... and frames: ACKs not yet consumed by the peer hold one each */
#define TX_DATA_OFF (TPACKET2_HDRLEN - sizeof(struct sockaddr_ll))  /* frame data in a V2 TX frame */

/* ---- sending ----------------------------------------------------------------------------------- */

static struct tpacket2_hdr *tx_frame(struct fade *f, unsigned i)
{
    return (void *)(f->txring + (size_t)i * TX_FRAME);
}

/* Hand the TX ring's SEND_REQUEST frames to the kernel (without waiting for them to leave). */
void tx_kick(struct fade *f)
{
    unsigned last = (f->tx_next + TX_FRAMES - 1) % TX_FRAMES;
    if (send(f->txfd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != ENOBUFS &&
        errno != EINTR)
        __atomic_fetch_add(&f->c.ack_send_fail, 1, __ATOMIC_RELAXED);
    /* the kernel stops at a frame it has no memory for and leaves it SEND_REQUEST: kick again
     * before sleeping (wait_for_frames) */
    f->tx_unsent = __atomic_load_n(&tx_frame(f, last)->tp_status, __ATOMIC_ACQUIRE) ==
                   TP_STATUS_SEND_REQUEST;
}

/* The batch's ACK records (f->acks[0..n)), ack_per_frame to an ACK frame (fade/README.md, "ACK
 * records"): into the TX ring and one send(); the frames that do not fit (or all, without a TX
 * ring) with sendmmsg() on the receiving socket. */
void send_acks(struct fade *f, unsigned n)
{
    unsigned per = __atomic_load_n(&f->ack_per_frame, __ATOMIC_RELAXED);
    unsigned g, k, ring = 0, ring_recs = 0, m = 0, i;
    int ring_ok = f->txring != NULL;
    for (g = 0; g < n; g += k) {
        k = n - g < per ? n - g : per;
        if (ring_ok) {
            struct tpacket2_hdr *h = tx_frame(f, f->tx_next);
            /* AVAILABLE again once the peer has consumed the ACK frame sent from this slot */
            if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) == TP_STATUS_AVAILABLE) {
                size_t len = fade_build_acks((uint8_t *)h + f->tx_off, f->board, f->self,
                                             f->acks + g, k);
                h->tp_len = (unsigned)(f->tx_off - TX_DATA_OFF + len);
                __atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST, __ATOMIC_RELEASE);
                f->tx_next = (f->tx_next + 1) % TX_FRAMES;
                ring++;
                ring_recs += k;
                continue;
            }
            ring_ok = 0;
        }
        f->iovs[m].iov_len = fade_build_acks(f->ackf[m], f->board, f->self, f->acks + g, k);
        m++;
    }
    if (ring)
        tx_kick(f);
    for (i = 0; i < m;) {
        int r = sendmmsg(f->fd, f->msgs + i, m - i, 0);
        if (r <= 0) {
            if (r < 0 && errno == EINTR)
                continue;
            __atomic_fetch_add(&f->c.ack_send_fail, m - i, __ATOMIC_RELAXED);
            break;
        }
        i += (unsigned)r;
    }
    /* the sendmmsg() frames hold per records each but the last: frames [0, i) carried
     * min(i * per, the rest) */
    __atomic_fetch_add(&f->c.acks_sent, ring_recs + (i * per < n - ring_recs ? i * per : n - ring_recs),
                       __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->c.ack_frames, ring + i, __ATOMIC_RELAXED);
}

/* ---- setting up -------------------------------------------------------------------------------- */

/* Linux major.minor or later (uname). */
static int kernel_at_least(int major, int minor)
{
    struct utsname u;
    int ma = 0, mi = 0;
    if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
        return 0;
    return ma > major || (ma == major && mi >= minor);
}

/* The ACK TX ring: a send-only AF_PACKET socket (protocol 0: it receives nothing) with a
 * TPACKET_V2 PACKET_TX_RING, bypassing the qdisc like the receiving socket. Optional: without
 * it (an old kernel) ACKs go out with sendmmsg().
 * PACKET_VNET_HDR: every ring frame starts with a virtio_net_hdr whose hdr_len is the whole
 * ACK, so the kernel copies the 60 bytes into the skb's linear part. Without it only the
 * 14-byte link header is copied and the rest is attached as a zero-copy fragment of the ring
 * page, which veth (and any path that must not keep user pages) then replaces by a freshly
 * allocated page (skb_copy_ubufs): a page allocation, copy and free per ACK (measured: 0.54 ->
 * 0.46 CPU s/GB at window 2^4). The TX ring reads the header from Linux 4.17 on; older kernels
 * would send it as part of the frame, so it is not used there. */
void setup_tx_ring(struct fade *f)
{
    struct tpacket_req req;
    struct sockaddr_ll sll;
    int v, fd = socket(AF_PACKET, SOCK_RAW, 0);
    unsigned i;
    uint8_t *ring;
    if (fd < 0)
        return;
    v = 1;
    f->tx_off = TX_DATA_OFF;
    if (kernel_at_least(4, 17) && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &v, sizeof(v)) == 0)
        f->tx_off += sizeof(struct virtio_net_hdr);
    setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
    setsockopt(fd, SOL_PACKET, PACKET_LOSS, &v, sizeof(v));  /* a bad frame never blocks the ring */
    v = 4 << 20;  /* room for the skbs of ACKs the board has not read yet */
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) < 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v));
    v = TPACKET_V2;
    memset(&req, 0, sizeof(req));
    req.tp_block_size = 4096;
    req.tp_frame_size = TX_FRAME;
    req.tp_frame_nr = TX_FRAMES;
    req.tp_block_nr = TX_FRAMES * TX_FRAME / 4096;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = f->ifindex;
    if (setsockopt(fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0 ||
        setsockopt(fd, SOL_PACKET, PACKET_TX_RING, &req, sizeof(req)) < 0 ||
        bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        close(fd);
        return;
    }
    ring = mmap(NULL, (size_t)TX_FRAMES * TX_FRAME, PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE, fd, 0);
    if (ring == MAP_FAILED) {
        close(fd);
        return;
    }
    if (f->tx_off != TX_DATA_OFF)
        for (i = 0; i < TX_FRAMES; i++) {
            struct virtio_net_hdr vh;
            memset(&vh, 0, sizeof(vh));  /* no checksum offload, no GSO */
            vh.hdr_len = FADE_MIN_FRAME; /* host order (legacy virtio on a packet socket) */
            memcpy(ring + (size_t)i * TX_FRAME + TX_DATA_OFF, &vh, sizeof(vh));
        }
    f->txfd = fd;
    f->txring = ring;
}

/* fade_close(): the ACK TX ring's mapping and socket, if there is one. */
void close_tx_ring(struct fade *f)
{
    if (f->txring)
        munmap(f->txring, (size_t)TX_FRAMES * TX_FRAME);
    if (f->txfd >= 0)
        close(f->txfd);
}

/* The sendmmsg() fallback: message i sends ACK frame buffer f->ackf[i] (send_acks() sets its
 * length). */
void init_ack_msgs(struct fade *f)
{
    unsigned i;
    for (i = 0; i < MAX_ACKS; i++) {
        f->iovs[i].iov_base = f->ackf[i];
        f->iovs[i].iov_len = FADE_MIN_FRAME;
        f->msgs[i].msg_hdr.msg_iov = &f->iovs[i];
        f->msgs[i].msg_hdr.msg_iovlen = 1;
    }
}
