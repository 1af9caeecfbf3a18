/*
 * libfade: the host side of FADE-10G (seed 002, section 4) in user space.
 *
 * One context (fade_t) per front-end board (FEB), opened by interface name and the board's MAC
 * address. A receive thread inside the library (or, with the option poll_mode, the
 * application's own fade_read_ptrs() / fade_poll() calls) reads the interface's 0xFADE frames from an
 * AF_PACKET TPACKET_V3 ring (classic BPF filter on the Ethertype), ACKs every data packet,
 * places the data words into the receiver packet buffer and delivers command responses.
 * The application reads the data IN PLACE from that buffer: 2^M packet slots of 8,192 bytes,
 * memory-mapped twice back to back, so the `avail` bytes from `buf + tail` are always contiguous
 * even when they wrap around the end.
 *
 * The functions are the paper's Table 4:
 *   SETWAKEUP  fade_set_wakeup      GETBUFLEN fade_buf_len       READPTRS fade_read_ptrs
 *   WRITEPTRS  fade_write_ptrs      GETMAC    fade_open          STARTMAC fade_start
 *   STOPMAC    fade_stop            FREEMAC   fade_close         RESETMAC fade_reset
 *   USERCMD    fade_user_cmd
 * fade_user_cmd() may be called from any thread while another thread reads data; commands are
 * serialized (one in flight per board), so the board's "same csn -> re-send the response, do
 * not execute again" rule makes every command execute exactly once however often the command or
 * its response is lost. Functions return 0 or a negative errno value (fade_strerror()).
 * Protocol and design: fade/docs/host.md.
 */
#ifndef FASTPATH_FADE_H
#define FASTPATH_FADE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fade fade_t;

#define FADE_PACKET_BYTES 8192u   /* data bytes in one full packet (1,024 words) */

struct fade_options {
    unsigned buf_log2;     /* M: receiver buffer of 2^M packets, 4..20; 0 (default): poll_mode:
                            * max(2^7, 2 * 2^N) packets (1 MiB at N <= 6, 4 MiB at N = 8),
                            * threaded: max(2^12, 2^N) (32 MiB) */
    unsigned window_log2;  /* N: the board's window of 2^N packets (default 4), 0..M */
    unsigned ring_version; /* AF_PACKET RX ring: 3 (TPACKET_V3, the default) or 2 (TPACKET_V2) */
    unsigned ring_block_kib; /* ring block size in KiB, a power of two 16..4096; 0 (default):
                              * from the window, at most 2^N - 1 data frames per V3 block and
                              * 256 KiB (N = 4: 128 KiB, N >= 5: 256 KiB) */
    unsigned ring_blocks;  /* ring blocks; 0 (default): 16 MiB in all (at least 8 blocks) */
    int no_reset;          /* 1: do not RESET the board in fade_open() */
    int rx_cpu;            /* pin the receive thread to this CPU (-1: no, the default) */
    int no_tx_ring;        /* 1: send ACKs with sendmmsg() instead of a PACKET_TX_RING */
    int poll_mode;         /* 1: no receive thread: fade_read_ptrs() / fade_poll() of the
                            * application drive the ring (handle the frames, copy, ACK) and
                            * sleep in poll() on the sockets; ACKs go out only while the
                            * application is in those calls. Commands from other threads still
                            * work (the waiting command thread reads its response itself). */
    unsigned ack_records;  /* most ACK records per ACK frame (fade/README.md, "ACK records"):
                            * 0 (default): as many as the board's START response allows (up to
                            * 8); 1: one ACK per frame, the paper's format, whatever the board */
    int inplace;           /* 1 (needs poll_mode and ring_version 3): packets that arrive in
                            * order are read IN PLACE from the RX ring (no copy into the buffer);
                            * read with fade_read_span() / fade_release_span(), not
                            * fade_read_ptrs() (-EINVAL then) */
    int no_frame_mode;     /* 1: never switch to frame mode (V3: while a ring block stalls after
                            * a loss, the data frames are taken one by one from the response
                            * socket; fade/docs/host.md) */
};

struct fade_ptrs {
    uint64_t avail;    /* bytes readable at buf + tail (contiguous: the buffer is mirrored) */
    uint64_t head;     /* offset in the buffer of the next byte to be written (< buf_len) */
    uint64_t tail;     /* offset in the buffer of the first byte not yet consumed (< buf_len) */
    uint64_t total;    /* bytes of this stream delivered into the buffer so far */
    int eos;           /* 1: the last packet and everything before it are in the buffer */
};

struct fade_counters {
    uint64_t frames;        /* 0xFADE frames from the opened board */
    uint64_t data;          /* data/last packets stored (new) */
    uint64_t dups;          /* data packets already received: ACKed again, not stored */
    uint64_t future;        /* data packets beyond the window: protocol error, dropped */
    uint64_t no_space;      /* new packets dropped: the receiver buffer was full */
    uint64_t idle_data;     /* data packets while no stream was started: dropped */
    uint64_t foreign;       /* frames from other sources (other MACs, our own, not 0xFADE) */
    uint64_t bad_version;   /* frames from the board with a wrong protocol version */
    uint64_t bad_frame;     /* frames from the board with a bad type, length or word count */
    uint64_t resets_sent;   /* RESETs sent: to unknown boards sending FADE data, and ours */
    uint64_t acks_sent;     /* ACK records sent */
    uint64_t ack_frames;    /* ... in this many frames (up to ack_records records each) */
    uint64_t ack_records;   /* ACK records per frame now: min(option, the board's START answer) */
    uint64_t ack_send_fail; /* ACK frames the kernel refused to send */
    uint64_t responses;     /* command responses matched to the waiting command */
    uint64_t stale_responses; /* responses nobody waits for (duplicates, old csn) */
    uint64_t cmds_sent;     /* command frames sent, retries included */
    uint64_t cmd_retries;
    uint64_t kernel_drops;  /* frames the kernel could not put in the RX ring */
    uint64_t bytes;         /* data bytes stored in the buffer (this stream; with inplace also
                             * those read in place) */
    uint64_t inplace;       /* inplace: packets handed to the application in the RX ring */
    uint64_t frame_mode_entries; /* V3: times the data frames were taken frame by frame from
                                  * the response socket (after a gap, duplicates or a slowly
                                  * filled ring block; option no_frame_mode) */
    uint64_t frame_mode_frames;  /* ... the board's data frames received that way */
};

void fade_options_default(struct fade_options *o);

/* Parse "02:00:00:00:00:01" into mac; 0 or -EINVAL. */
int fade_parse_mac(const char *s, uint8_t mac[6]);

/* GETMAC: open a context for the board with MAC board_mac behind interface ifname (needs
 * CAP_NET_RAW). Sends the board a RESET unless o->no_reset. NULL on error, reason in err. */
fade_t *fade_open(const char *ifname, const uint8_t board_mac[6], const struct fade_options *o,
                  char *err, size_t errlen);

/* STARTMAC: empty the buffer, then START (retried, exactly once). 0 when the board confirmed. */
int fade_start(fade_t *f, unsigned timeout_ms);

/* STOPMAC: STOP; the board sends what it holds and a last packet; eos follows. */
int fade_stop(fade_t *f, unsigned timeout_ms);

/* RESETMAC: RESET the board (not confirmed) and forget the stream. */
int fade_reset(fade_t *f);

/* FREEMAC: stop the receive thread, free everything. The board is not told. */
void fade_close(fade_t *f);

/* SETWAKEUP: fade_read_ptrs() returns once this many bytes are available (or the stream ended). */
int fade_set_wakeup(fade_t *f, size_t bytes);

/* GETBUFLEN, and the buffer itself (read-only for the application; mirrored: byte i and byte
 * i + len are the same memory, for i < len). */
size_t fade_buf_len(const fade_t *f);
const uint8_t *fade_buf(const fade_t *f);

/* READPTRS: wait until avail >= the wake-up threshold, or the end of the stream, or timeout_ms
 * (-1: forever, 0: do not wait). Fills p in every case; returns 0, or -ETIMEDOUT.
 * With poll_mode the calling thread itself handles the frames while it waits (frames that the
 * buffer has no room for stay in the RX ring; when the buffer cannot take another window it
 * returns what is there, even below the threshold). */
int fade_read_ptrs(fade_t *f, struct fade_ptrs *p, int timeout_ms);

/* poll_mode only (-EINVAL otherwise): handle what the kernel has handed over (frames into the
 * buffer, ACKs out), sleeping in poll() up to timeout_ms (-1: forever, 0: not at all) until
 * something was handled. Returns the number of frames handled, 0 if none came in time.
 * fade_read_ptrs() does the same until its condition holds; fade_poll() is for applications
 * that want to keep ACKs going while they are busy elsewhere. */
int fade_poll(fade_t *f, int timeout_ms);

/* inplace only: the next piece of the stream, in stream order: one packet's words still in
 * the RX ring (in_ring = 1: the ring block is the application's until released; packets that
 * arrived in order), or the bytes the receiver buffer holds (in_ring = 0: what came out of
 * order was copied there, like fade_read_ptrs()). Returns 0 as soon as there is anything (or
 * the end of the stream: eos = 1 on the last span, len may be 0), or -ETIMEDOUT. Spans are
 * released in the order they were read; a held span keeps its ring block from the kernel, so
 * release them promptly. fade_start() / fade_reset() drop the spans of the old stream. */
struct fade_span {
    const uint8_t *data;
    uint64_t len;      /* bytes (a multiple of 8) */
    int in_ring;
    int eos;
};
int fade_read_span(fade_t *f, struct fade_span *s, int timeout_ms);
int fade_release_span(fade_t *f, const struct fade_span *s);

/* WRITEPTRS: the application is done with n bytes from the tail. -EINVAL if n > avail. */
int fade_write_ptrs(fade_t *f, size_t n);

/* USERCMD: send user command cmd (FADE_CMD_USER_MIN..MAX) with arg, wait up to timeout_ms for the
 * response, resend up to `retries` times. *result gets the board's 64-bit return value.
 * 0, -ETIMEDOUT (no response after all tries), -EINVAL. Thread-safe. */
int fade_user_cmd(fade_t *f, uint16_t cmd, uint32_t arg, unsigned retries, unsigned timeout_ms,
                  uint64_t *result);

void fade_get_counters(fade_t *f, struct fade_counters *c);

const char *fade_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* FASTPATH_FADE_H */
