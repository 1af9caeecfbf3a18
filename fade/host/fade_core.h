/*
 * fade_core: the parts of the FADE-10G host side that do no I/O, so unit tests, the fuzz target,
 * the library and the emulator share them: frame parsing and building, serial-number compare,
 * and the receiver packet buffer logic (which packet goes where, what is ACKed).
 * Offsets and codes come only from the generated <fastpath/fmt/fade.h>.
 */
#ifndef FADE_CORE_H
#define FADE_CORE_H

#include <fastpath/fmt/fade.h>
#include <stddef.h>
#include <stdint.h>

#define FADE_MIN_FRAME 60u   /* Ethernet minimum without FCS: shorter frames are filled */

/* ---- serial-number arithmetic (paper footnotes 3-5) ------------------------------------------ */

/* a > b for 16-bit frame sequence numbers: (a - b) mod 2^16 <= 2^15 (the footnote's rule; it
 * also holds for a == b, which callers exclude where it matters). */
static inline int fade_seq_gt(uint16_t a, uint16_t b) { return (uint16_t)(a - b) <= 0x8000u; }

/* a > b for 32-bit packet numbers: (a - b) mod 2^32 <= 2^31. */
static inline int fade_pkt_gt(uint32_t a, uint32_t b) { return (uint32_t)(a - b) <= 0x80000000u; }

/* ---- frames ---------------------------------------------------------------------------------- */

enum fade_kind {
    FADE_K_DATA, FADE_K_LAST, FADE_K_RESP,   /* FPGA -> host */
    FADE_K_ACK, FADE_K_NACK, FADE_K_CMD,     /* host -> FPGA */
    FADE_K_SHORT,        /* shorter than its header / its type's layout */
    FADE_K_NOT_FADE,     /* Ethertype is not 0xFADE */
    FADE_K_BAD_VERSION,  /* version is not 0x0100 */
    FADE_K_BAD_TYPE,     /* unknown type code */
    FADE_K_BAD_NWORDS,   /* last packet with nwords > 1023 */
    FADE_K_COUNT
};

struct fade_frame {
    enum fade_kind kind;
    uint8_t dst[6], src[6];
    uint16_t type;               /* DATA/LAST/RESP/ACK/NACK type code; CMD: the command code */
    uint16_t seq, csn;
    uint32_t pkt, delay, arg;
    uint16_t resp_cmd, resp_csn; /* resp_cmd == FADE_CMD_NONE: no response carried */
    uint64_t resp_val;
    const uint8_t *words;        /* DATA/LAST: the data words, in the frame */
    uint32_t nwords;             /* DATA: 1024, LAST: 0..1023 */
};

const char *fade_kind_name(enum fade_kind k);

/* Parse one Ethernet frame (no FCS). Reads only inside f[0..len). Fills fr (kind always).
 * Host -> FPGA frames are parsed too (the emulator uses this). Frames longer than their layout
 * (padding) are accepted. */
enum fade_kind fade_parse(const uint8_t *f, size_t len, struct fade_frame *fr);

/* Classic BPF programs for libfade's sockets (one definition, unit-tested on a socket pair).
 * FADE_FILT_RING, the V3 RX ring: every FADE frame but RESP frames, whole. FADE_FILT_CTRL,
 * the response socket: RESP frames, and the first FADE_CTRL_SNAP bytes of every DATA / LAST
 * frame whose response field is not CMD_NONE (which the ring receives whole too).
 * FADE_FILT_ALL, the V2 RX ring and the response socket in frame mode: every FADE frame,
 * whole. Other Ethertypes: never. Frames too short for the fields go with "any other FADE frame". Writes
 * FADE_BPF_LEN instructions to c. */
struct sock_filter;
enum { FADE_FILT_RING, FADE_FILT_CTRL, FADE_FILT_ALL };
#define FADE_CTRL_SNAP 64u
#define FADE_BPF_LEN 14u
void fade_bpf_filter(struct sock_filter *c, int which);

/* The command response a frame carries, from its first len bytes: a RESP frame, or the head of
 * a DATA / LAST frame (at least FADE_DATA_DATA_OFF bytes; the response socket receives only
 * that much of a data frame, its words are the RX ring's). 1 with fr->src and fr->resp_* set
 * (fr->kind FADE_K_RESP, FADE_K_DATA or FADE_K_LAST; no words) if the frame is a FADE frame of
 * our version with a response field other than CMD_NONE; else 0. */
int fade_parse_response(const uint8_t *f, size_t len, struct fade_frame *fr);

static inline uint16_t fade_get16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t fade_get32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t fade_get64(const uint8_t *p)
{
    return ((uint64_t)fade_get32(p) << 32) | fade_get32(p + 4);
}
static inline uint64_t fade_get64le(const uint8_t *p)
{
    uint64_t v = 0;
    int i;
    for (i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}
void fade_put16(uint8_t *p, uint16_t v);
void fade_put32(uint8_t *p, uint32_t v);
void fade_put64(uint8_t *p, uint64_t v);
void fade_put64le(uint8_t *p, uint64_t v);

/* ACK records (fade/README.md, "ACK records"): an ACK frame carries 1..FADE_ACK_RECORDS_MAX of
 * them, record i at byte FADE_ACK_TYPE_OFF + FADE_ACK_RECORD_LEN * i; a board takes as many per
 * frame as its START / STOP response value (bits 7..0) says, one when that is 0. */
#define FADE_ACK_FRAME_MAX (FADE_ACK_TYPE_OFF + FADE_ACK_RECORD_LEN * FADE_ACK_RECORDS_MAX)
struct fade_ack_rec {
    uint16_t type;          /* FADE_TYPE_ACK or FADE_TYPE_NACK */
    uint16_t seq;
    uint32_t pkt, delay;
};

/* Builders: write the frame into out (at least FADE_MIN_FRAME bytes; FADE_ACK_FRAME_MAX for
 * fade_build_acks), return its length (filled to 60 bytes with FADE_FILLER). */
size_t fade_build_header(uint8_t *out, const uint8_t dst[6], const uint8_t src[6]);
size_t fade_build_ack(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t type,
                      uint16_t seq, uint32_t pkt, uint32_t delay);
/* One ACK frame with records r[0..n), n 1..FADE_ACK_RECORDS_MAX (clamped). */
size_t fade_build_acks(uint8_t *out, const uint8_t dst[6], const uint8_t src[6],
                       const struct fade_ack_rec *r, unsigned n);
/* The records of an ACK/NACK frame (fade_parse() said FADE_K_ACK or FADE_K_NACK) as a board
 * taking max per frame reads them: from record 0, while the type is ACK or NACK and all its
 * bytes are within len. Returns how many were written to r (0..max). */
unsigned fade_parse_acks(const uint8_t *f, size_t len, struct fade_ack_rec *r, unsigned max);
/* What a START / STOP response value says: ACK records per frame the board takes, 1..MAX. */
unsigned fade_board_ack_records(uint64_t resp_val);
size_t fade_build_cmd(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t cmd,
                      uint16_t csn, uint32_t arg);
size_t fade_build_resp(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t cmd,
                       uint16_t csn, uint64_t val);

/* ---- the receiver packet buffer --------------------------------------------------------------- */

/* Slot s of the buffer holds packet number p with p mod 2^M == s. head_pkt is the first packet
 * not yet received (all before it are in the buffer); packets head_pkt .. head_pkt + 2^N - 1 may
 * arrive in any order. Positions are 64-bit stream offsets (bytes since START), so they never
 * wrap; the 32-bit packet numbers on the wire are placed relative to head_pkt. */
struct fade_rx {
    uint8_t *buf;           /* 2^M * 8192 bytes (the caller's memory) */
    uint32_t *slot_pkt;     /* 2^M: packet number stored in each slot */
    unsigned buf_log2, win_log2;
    uint64_t head_pkt;      /* first packet not received */
    uint64_t hi_pkt;        /* 1 + the highest packet received (> head_pkt: some out of order) */
    uint64_t tail;          /* stream bytes consumed by the application */
    int have_last;
    uint64_t last_pkt;      /* the last packet's number, extended */
    uint32_t last_nwords;
    uint64_t new_pkts, dups, future, no_space, bytes;
};

enum fade_rx_verdict {
    FADE_RX_NEW,       /* stored: ACK it */
    FADE_RX_DUP,       /* already here or older: ACK it again */
    FADE_RX_FUTURE,    /* beyond the window (or after the last packet): error, no ACK */
    FADE_RX_NO_SPACE   /* the application has not consumed enough: dropped, no ACK */
};

/* buf and slot_pkt are the caller's; resets the state to an empty stream. */
void fade_rx_init(struct fade_rx *rx, uint8_t *buf, uint32_t *slot_pkt, unsigned buf_log2,
                  unsigned win_log2);
void fade_rx_reset(struct fade_rx *rx);
/* One DATA or LAST frame (parsed). */
enum fade_rx_verdict fade_rx_data(struct fade_rx *rx, const struct fade_frame *fr);
/* The same; with may_skip_copy, a new packet that is the next of the stream while nothing out
 * of order is stored and the application has consumed everything (tail == head) is NOT copied:
 * *skipped = 1, head and tail both move past it, and the caller hands fr->words to the
 * application (reading in place from the RX ring). Otherwise as fade_rx_data, *skipped = 0. */
enum fade_rx_verdict fade_rx_data_ex(struct fade_rx *rx, const struct fade_frame *fr,
                                     int may_skip_copy, int *skipped);
/* Stream bytes in the buffer (received in order). */
uint64_t fade_rx_head(const struct fade_rx *rx);
int fade_rx_eos(const struct fade_rx *rx);
static inline uint64_t fade_rx_buf_len(const struct fade_rx *rx)
{
    return (uint64_t)FADE_DATA_DATA_LEN << rx->buf_log2;
}

#endif
