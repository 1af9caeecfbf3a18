/*
 * fade_lib.h: libfade's internals, shared by its source files (not installed; the API is
 * include/fastpath/fade.h, the design fade/docs/host.md).
 *
 * A context = one board: an AF_PACKET socket on the interface (TPACKET_V3 RX ring sized from the
 * window, or V2 with ring_version = 2; classic BPF filter on the Ethertype; our own outgoing
 * frames ignored); with V3 a second, ringless socket that receives the head of every frame that
 * carries a command response (the ring keeps every data frame whole), so responses do not wait
 * for a V3 block, and in frame mode (after a loss) every frame whole; a send-only socket
 * with a PACKET_TX_RING for the ACKs (one send() per batch; each ring frame starts with a
 * virtio_net_hdr so the kernel copies the ACK instead of attaching the ring page); a receive
 * thread that ACKs every data packet; and the receiver packet buffer (fade_core.c) in a memfd
 * mapped twice back to back.
 *
 * Poll mode (option poll_mode): no receive thread; the threads calling fade_read_ptrs() /
 * fade_read_span() / fade_poll() handle the ring themselves (poll_step()) and sleep in poll()
 * on the sockets (and an eventfd another thread wakes them with when it made progress for
 * them); a command thread reads its response itself. Reading in place (option inplace): packets
 * that arrive in order stay in the RX ring and are handed to the application as spans; their
 * ring block goes back to the kernel when the last span in it is released.
 *
 * Locking: `lock` protects the receive state (fade_rx, the spans) and the
 * counters. The receive thread takes it once per ring block; the application takes it in
 * read_ptrs / write_ptrs / get_counters; the data bytes between tail and head belong to the
 * application and are read without the lock. `rx_lock` (taken before `lock`) serializes the
 * handling of the rings, the response socket and the ACK TX ring between the threads that call
 * in (poll mode) or the receive thread and START / RESET. `resp_lock` protects the pending
 * command (taken briefly, also by the receive thread inside `lock`; never the other way round). `cmd_lock` serializes commands:
 * one in flight per board, which is what makes the board's "same csn -> do not execute again"
 * rule give exactly-once execution.
 *
 * The source files, by concern:
 *   fade.c         the context: options, open / close, the boards open in this process
 *   fade_socket.c  the RX socket and ring (geometry), the response socket, the receiver buffer
 *                  mapping
 *   fade_rxpath.c  the receive path: ring blocks / frames and the response socket into the
 *                  receiver buffer, responses, unknown boards, frame mode
 *   fade_ack.c     ACK transmission: the ACK TX ring (set up, filled, kicked), sendmmsg()
 *   fade_poll.c    who runs the receive path and how threads sleep: the receive thread, poll
 *                  mode's steps and waits, the progress wake-ups
 *   fade_cmd.c     commands (exactly once, retries, poll-mode waits) and START / STOP / RESET
 *   fade_read.c    the application's side of the buffer: pointers, spans, wake-up threshold
 *   fade_stats.c   counters and error text
 */
#ifndef FADE_LIB_H
#define FADE_LIB_H

#include <fastpath/fade.h>

#include "fade_core.h"

#include <net/if.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#define MAX_ACKS 1024u         /* most ACK records a batch queues (f->acks) */
#define FRAME_TRUESIZE 17408u  /* kernel memory a whole data frame takes in a socket queue */
/* V3 packs a data frame into 8,320 bytes of a block (header, sockaddr_ll, alignment). */
#define V3_FRAME_BYTES 8320u
#define V3_BLOCK_HDR 48u

struct fade {
    char ifname[IF_NAMESIZE];
    int ifindex;
    uint8_t board[6], self[6];
    int fd;
    /* RX ring */
    uint8_t *ring;
    size_t ring_len, block_size;
    unsigned blocks, block;
    int v2;                /* TPACKET_V2: frame by frame (frames/frame_size/frame/per_block) */
    unsigned frames, frame, per_block;
    size_t frame_size;
    /* receiver packet buffer */
    uint8_t *buf;          /* 2 * buf_len of address space, both halves the same memory */
    size_t buf_len;
    uint32_t *slot_pkt;
    pthread_mutex_t lock;
    pthread_cond_t data_cv, cmd_cv;
    struct fade_rx rx;
    int active;            /* a stream was started: data frames are accepted */
    size_t wakeup;
    int waiters;
    int closing;
    struct fade_counters c;
    /* commands */
    pthread_mutex_t cmd_lock;
    uint16_t csn;
    pthread_mutex_t resp_lock;    /* the pending command (pend_*), cmd_cv: held only briefly, so
                                   * a command never waits for the receive thread's batch */
    uint16_t pend_cmd, pend_csn;  /* pend_cmd == FADE_CMD_NONE: nothing pending */
    int pend_done;
    uint64_t pend_val;
    /* receive thread */
    pthread_t thread;
    int thread_started;
    int rx_cpu;
    uint8_t foreign_mac[6];
    uint64_t foreign_ns;
    struct fade_ack_rec *acks;  /* the batch's ACK records, in the order of their data frames */
    uint8_t (*ackf)[FADE_ACK_FRAME_MAX];  /* ACK frames for sendmmsg() (no TX ring, or full) */
    unsigned ack_max;       /* option ack_records: most records per ACK frame (1..MAX) */
    unsigned ack_per_frame; /* records per ACK frame now: min(ack_max, the board's START answer) */
    struct mmsghdr *msgs;
    struct iovec *iovs;
    /* ACK transmission: a PACKET_TX_RING (TPACKET_V2) on a second, send-only socket: ACKs are
     * written into ring frames and one send() hands the whole batch to the kernel; sendmmsg()
     * on fd when the ring is unavailable or full */
    int txfd;
    uint8_t *txring;
    unsigned tx_off;       /* where the frame starts in a TX ring frame (after a virtio_net_hdr) */
    unsigned tx_next;      /* next TX ring frame to fill */
    int tx_unsent;         /* frames still waiting for a send() (the kernel had no room) */
    /* Command responses without the V3 block delay: with the V3 ring, a second, ringless
     * socket receives the RESP frames and the first FADE_CTRL_SNAP bytes of every DATA / LAST frame
     * that carries a response (BPF filters), read frame by frame as they arrive: the response
     * is taken at once. The data frame itself stays in the ring, so its words, its ACK and the
     * ring block's filling do not depend on whether it carried a response. */
    int cfd;
    uint8_t *cbuf;         /* one frame (or head) read from cfd */
    int cfd_ready;         /* poll() saw cfd readable */
    /* Frame mode (V3, when a ring block holds half the window or more): a block is handed over
     * only when full or by the kernel's retire timer (1 jiffy, 4 ms at HZ = 250). After a loss
     * the board's window can be used up before the open block fills, and then everything waits
     * for that timer; on a slow link a block may take longer to fill than the board waits for
     * its ACKs (ring_geometry() sizes the blocks for that). So when a block shows a gap (a
     * packet missing below one received) or duplicates (a lost ACK), cfd is given every FADE
     * frame whole too, and the frames are handled one at a time as they arrive (the ring keeps
     * receiving: its copies come later, as duplicates, not ACKed again), until frame_exit new
     * packets in a row arrived in order; then cfd gets only the response heads again.
     * frame_mode is rx_lock's (both modes); read elsewhere as a hint. */
    int frame_mode_ok;
    int frame_mode;
    unsigned block_frames; /* V3: data frames a ring block holds */
    unsigned clean, frame_exit;
    unsigned grace;        /* ring blocks after frame mode whose duplicates are its own */
    /* poll mode (no receive thread): the threads calling fade_read_ptrs() / fade_poll() /
     * commands handle the frames themselves, one at a time (rx_lock: the rings, the response
     * socket, the ACK TX ring). `events` counts progress (data, end of stream,
     * a response); a thread that made progress while another sleeps in poll() (`sleepers`)
     * wakes it through the eventfd `kickfd`. */
    int poll_mode;
    pthread_mutex_t rx_lock;
    int kickfd;
    unsigned events;
    int sleepers;
    int readers;           /* threads in fade_read_ptrs() / fade_read_span() / fade_poll() */
    int retry_soon;        /* ACKs wait for kernel memory (for the sleepers: tx_unsent is
                            * rx_lock's) */
    uintptr_t last_reader; /* the last thread to leave one of them (this_thread()) ... */
    uint64_t reader_ns;    /* ... and when */
    /* reading in place (option inplace: poll mode, V3): in-order packets stay in the RX ring;
     * `spans` (FIFO, under both rx_lock and lock) are their words, in stream order, all older
     * than any unread byte of the receiver buffer; a ring block goes back to the kernel once the
     * application has released its last span (block_refs). cur_block: the block being handled
     * (-1: none, or the frame is not in the ring). */
    int inplace;
    int cur_block;
    struct span { const uint8_t *data; uint32_t len; uint32_t block; } *spans;
    unsigned span_first, nspans, span_cap;
    unsigned *block_refs;
};

/* Everything below is internal to libfade.so (not exported, as when it was all static). */
#pragma GCC visibility push(hidden)

/* ---- time -------------------------------------------------------------------------------------- */

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline struct timespec deadline_in(unsigned ms)
{
    uint64_t t = now_ns() + (uint64_t)ms * 1000000u;
    struct timespec ts;
    ts.tv_sec = (time_t)(t / 1000000000u);
    ts.tv_nsec = (long)(t % 1000000000u);
    return ts;
}

/* Milliseconds left until `end` (now_ns() time; 0: no limit -> -1), at least 1; 0 if past. */
static inline int ms_left(uint64_t end)
{
    uint64_t t;
    if (!end)
        return -1;
    t = now_ns();
    if (t >= end)
        return 0;
    return (int)((end - t + 999999u) / 1000000u);
}

/* ---- fade.c: the boards opened in this process (frames from them are not "unknown") ------------ */

int board_is_open(int ifindex, const uint8_t mac[6]);

/* ---- fade_socket.c ----------------------------------------------------------------------------- */

/* The RX socket (f->fd) on f->ifname, its filter and its mapped ring; f->ifindex, f->self. */
int setup_socket(struct fade *f, const struct fade_options *o, char *err, size_t errlen);
/* V3 only: the ringless response socket (f->cfd, f->cbuf). */
int setup_control(struct fade *f, char *err, size_t errlen);
/* The receiver packet buffer (f->buf, f->buf_len bytes mapped twice). */
int setup_buffer(struct fade *f, char *err, size_t errlen);
/* Attach the BPF program FADE_FILT_* `which` to fd (setsockopt's result). */
int set_filter(int fd, int which);

/* ---- fade_rxpath.c ----------------------------------------------------------------------------- */

/* The next ring batch: a V3 block or up to 64 V2 frames; frames, or -1 if none is there. */
int rx_ring(struct fade *f);
/* The response socket when there may be something to read (rx_lock held); frames read. */
int check_control(struct fade *f, int waiting);
/* Frame mode on / off (rx_lock held). */
void frame_mode(struct fade *f, int on);

/* ---- fade_ack.c -------------------------------------------------------------------------------- */

/* The ACK TX ring (optional: f->txring stays NULL without it) and its teardown. */
void setup_tx_ring(struct fade *f);
void close_tx_ring(struct fade *f);
/* The sendmmsg() fallback's messages over f->ackf (allocated by fade_open()). */
void init_ack_msgs(struct fade *f);
/* The batch's ACK records f->acks[0..n) out: TX ring, else sendmmsg(). */
void send_acks(struct fade *f, unsigned n);
/* Hand the TX ring's waiting frames to the kernel again. */
void tx_kick(struct fade *f);

/* ---- fade_poll.c ------------------------------------------------------------------------------- */

/* The receive thread (without poll mode; arg: the context). */
void *rx_thread(void *arg);
/* Poll mode: wake the threads sleeping in poll(): progress was made. */
void progress(struct fade *f);
/* Poll mode: handle what the kernel has handed over (cmd: for a thread waiting for a
 * response; ring: the RX ring too); frames handled. */
int poll_step(struct fade *f, int cmd, int ring);
/* Poll mode: sleep until a frame arrives, max_ms passes or progress was made since `ev`. */
void poll_wait(struct fade *f, unsigned ev, int max_ms, int ring, int resp);
/* Poll mode: the receiver buffer has no room for another window of packets. */
int buffer_full(struct fade *f);

/* ---- fade_cmd.c -------------------------------------------------------------------------------- */

/* One frame out on the receiving socket, to the frame's destination MAC. */
int send_frame(struct fade *f, const uint8_t *frame, size_t len);
/* A command waits for its response. */
int cmd_pending(struct fade *f);

/* ---- fade_read.c ------------------------------------------------------------------------------- */

/* Poll mode: another thread reads (or did lately): it handles the ring. */
int reader_active(struct fade *f);
/* Inplace: forget the spans, give their ring blocks back (rx_lock and lock held). */
void drop_spans(struct fade *f);

/* ---- fade_stats.c ------------------------------------------------------------------------------ */

/* The receiver buffer's counters into f->c (lock held). */
void sync_counters(struct fade *f);

#pragma GCC visibility pop

#endif
