/*
 * libfade (fade_lib.h): the sockets and mappings of a context - the RX socket with its BPF filter
 * and TPACKET_V3 / V2 ring (its geometry from the window and the link speed), the response
 * socket (V3), and the receiver packet buffer mapped twice back to back.
 */
#include "fade_lib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

#define FILL_MAX_NS 320000u    /* a ring block fills within half the RTL core's timeout */

/* ---- the RX socket and ring -------------------------------------------------------------------- */

/* The ring's block size and count when the options leave them 0. V3 hands a block over only
 * when the next frame does not fit (or on its 1-jiffy timer), and the board stops when its
 * window is unconfirmed, so a block must fill with fewer frames than the window: at most
 * 2^N - 1 data frames per block, one ACK batch per window (N = 4: 128 KiB, 15 frames), and at
 * most 256 KiB (31 frames): larger blocks save little CPU and, with loss, leave the board
 * waiting for the timer (at N = 8 and 5 % loss 1 MiB blocks halved the goodput). And a block
 * must fill within FILL_MAX_NS at the link's speed (mbps; <= 0: unknown, taken as 10G): the
 * board retransmits what is unconfirmed after its timeout (the RTL's 640 us), and no frame of
 * a block is ACKed before the block is full (1G: 66 us per frame, 3 frames per 32 KiB block).
 * Where a block holds half the window or more, a loss can still use up the window before the
 * block fills: frame mode (struct fade) takes over then. About 16 MiB in all. V2: 64 KiB. */
static void ring_geometry(const struct fade_options *o, int mbps, unsigned *kib, unsigned *blocks)
{
    unsigned win = 1u << o->window_log2, max_frames = win > 1 ? win - 1 : 1;
    /* wire time of a data frame in ns: its bytes + preamble, FCS and gap (24), 8 bits each */
    uint64_t frame_ns = (uint64_t)(FADE_DATA_LEN + 24) * 8u * 1000u / (uint64_t)(mbps > 0 ? mbps : 10000);
    if (frame_ns && FILL_MAX_NS / frame_ns < max_frames)
        max_frames = FILL_MAX_NS / frame_ns > 1 ? (unsigned)(FILL_MAX_NS / frame_ns) : 1;
    *kib = o->ring_block_kib;
    if (!*kib) {
        *kib = 16;
        if (o->ring_version != 2)
            while (*kib < 256 && ((*kib * 2) * 1024 - V3_BLOCK_HDR) / V3_FRAME_BYTES <= max_frames)
                *kib *= 2;
        else
            *kib = 64;
    }
    *blocks = o->ring_blocks ? o->ring_blocks : (16384 / *kib < 8 ? 8 : 16384 / *kib);
}

/* The interface's link speed in Mb/s (ethtool), or -1. */
static int link_mbps(int fd, const char *ifname)
{
    struct ethtool_cmd ec;
    struct ifreq ifr;
    memset(&ec, 0, sizeof(ec));
    memset(&ifr, 0, sizeof(ifr));
    ec.cmd = ETHTOOL_GSET;
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
    ifr.ifr_data = (void *)&ec;
    if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
        return -1;
    return ethtool_cmd_speed(&ec) == (uint32_t)SPEED_UNKNOWN ? -1 : (int)ethtool_cmd_speed(&ec);
}

int setup_socket(struct fade *f, const struct fade_options *o, char *err, size_t errlen)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    struct tpacket_req3 req;
    struct sockaddr_ll sll;
    struct ifreq ifr;
    int v;

    f->fd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: nothing arrives before bind() */
    if (f->fd < 0) {
        snprintf(err, errlen, "socket(AF_PACKET): %s (needs CAP_NET_RAW)", strerror(errno));
        return -1;
    }
    memset(&ifr, 0, sizeof(ifr));
    snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", f->ifname);
    if (ioctl(f->fd, SIOCGIFINDEX, &ifr) < 0) {
        snprintf(err, errlen, "interface %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    f->ifindex = ifr.ifr_ifindex;
    if (ioctl(f->fd, SIOCGIFHWADDR, &ifr) < 0) {
        snprintf(err, errlen, "SIOCGIFHWADDR %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    memcpy(f->self, ifr.ifr_hwaddr.sa_data, 6);
    if (ioctl(f->fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu < FADE_DATA_LEN - 14) {
        snprintf(err, errlen, "MTU of %s is %d: FADE data frames need %d (set 9000)", f->ifname,
                 ifr.ifr_mtu, FADE_DATA_LEN - 14);
        return -1;
    }
    /* V2: every FADE frame in the ring; V3: RESP frames go to cfd instead */
    fade_bpf_filter(code, o->ring_version == 2 ? FADE_FILT_ALL : FADE_FILT_RING);
    if (setsockopt(f->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
        snprintf(err, errlen, "SO_ATTACH_FILTER: %s", strerror(errno));
        return -1;
    }
    v = 1;
    setsockopt(f->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v)); /* also checked per frame */
    setsockopt(f->fd, SOL_PACKET, PACKET_QDISC_BYPASS, &v, sizeof(v));
    f->v2 = o->ring_version == 2;
    v = f->v2 ? TPACKET_V2 : TPACKET_V3;
    if (setsockopt(f->fd, SOL_PACKET, PACKET_VERSION, &v, sizeof(v)) < 0) {
        snprintf(err, errlen, "PACKET_VERSION %d: %s", v + 1, strerror(errno));
        return -1;
    }
    memset(&req, 0, sizeof(req));
    {
        unsigned kib, blocks;
        ring_geometry(o, link_mbps(f->fd, f->ifname), &kib, &blocks);
        f->block_size = (size_t)kib * 1024;
        f->blocks = blocks;
    }
    req.tp_block_size = (unsigned)f->block_size;
    req.tp_block_nr = f->blocks;
    if (f->v2) {
        /* one data frame per ring frame: header, sockaddr_ll, padding, 8,232 bytes */
        f->frame_size = 8448;
        f->per_block = (unsigned)(f->block_size / f->frame_size);
        f->frames = f->per_block * f->blocks;
        req.tp_frame_size = (unsigned)f->frame_size;
        req.tp_frame_nr = f->frames;
    } else {
        req.tp_frame_size = 2048;  /* unused by V3 beyond this consistency check */
        req.tp_frame_nr = (unsigned)(f->block_size / 2048) * f->blocks;
        req.tp_retire_blk_tov = 1;  /* ms (rounded up to a jiffy): hand over a partial block */
    }
    if (setsockopt(f->fd, SOL_PACKET, PACKET_RX_RING, &req, f->v2 ? sizeof(struct tpacket_req)
                                                                  : sizeof(req)) < 0) {
        snprintf(err, errlen, "PACKET_RX_RING: %s", strerror(errno));
        return -1;
    }
    f->ring_len = f->block_size * f->blocks;
    f->ring = mmap(NULL, f->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, f->fd, 0);
    if (f->ring == MAP_FAILED) {
        f->ring = NULL;
        snprintf(err, errlen, "mmap(PACKET_RX_RING): %s", strerror(errno));
        return -1;
    }
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(FADE_ETHERTYPE);
    sll.sll_ifindex = f->ifindex;
    if (bind(f->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, errlen, "bind %s: %s", f->ifname, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- the response socket ----------------------------------------------------------------------- */

/* V3 only: the ringless socket for the command responses (and frame mode). */
int setup_control(struct fade *f, char *err, size_t errlen)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    struct sockaddr_ll sll;
    int v = 1;
    f->cbuf = malloc(FADE_DATA_LEN);
    f->cfd = socket(AF_PACKET, SOCK_RAW, 0);  /* protocol 0: nothing arrives before bind() */
    fade_bpf_filter(code, FADE_FILT_CTRL);
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(FADE_ETHERTYPE);
    sll.sll_ifindex = f->ifindex;
    if (!f->cbuf || f->cfd < 0 ||
        setsockopt(f->cfd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ||
        bind(f->cfd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        snprintf(err, errlen, "response socket: %s", strerror(errno));
        return -1;
    }
    setsockopt(f->cfd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &v, sizeof(v));
    /* frame mode queues up to a window of whole frames here (FRAME_TRUESIZE each): 4 MiB asked
     * (the kernel doubles it) */
    v = 4 << 20;
    if (setsockopt(f->cfd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) < 0)
        setsockopt(f->cfd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v));  /* up to rmem_max */
    return 0;
}

/* Frame mode (fade_rxpath.c): another of the BPF programs on the response socket. */
int set_filter(int fd, int which)
{
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    fade_bpf_filter(code, which);
    return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

/* ---- the receiver packet buffer ---------------------------------------------------------------- */

/* The receiver packet buffer: a memfd mapped at buf and again at buf + buf_len. */
int setup_buffer(struct fade *f, char *err, size_t errlen)
{
    int fd = memfd_create("fade-rx", MFD_CLOEXEC);
    uint8_t *base;
    if (fd < 0 || ftruncate(fd, (off_t)f->buf_len) < 0) {
        snprintf(err, errlen, "memfd for a %zu-byte buffer: %s", f->buf_len, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    base = mmap(NULL, 2 * f->buf_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED ||
        mmap(base, f->buf_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE, fd,
             0) == MAP_FAILED ||
        mmap(base + f->buf_len, f->buf_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
             0) == MAP_FAILED) {
        snprintf(err, errlen, "mapping the receive buffer: %s", strerror(errno));
        if (base != MAP_FAILED)
            munmap(base, 2 * f->buf_len);
        close(fd);
        return -1;
    }
    close(fd);
    f->buf = base;
    return 0;
}
