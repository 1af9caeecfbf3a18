/* fade_core: frame parsing/building and the receiver packet buffer logic (fade_core.h). */
#include "fade_core.h"

#include <linux/filter.h>

#include <string.h>

static const char *const kind_names[FADE_K_COUNT] = {
    "data", "last", "resp", "ack", "nack", "cmd",
    "short", "not_fade", "bad_version", "bad_type", "bad_nwords",
};

const char *fade_kind_name(enum fade_kind k)
{
    return (unsigned)k < FADE_K_COUNT ? kind_names[k] : "?";
}

void fade_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

void fade_put32(uint8_t *p, uint32_t v)
{
    fade_put16(p, (uint16_t)(v >> 16));
    fade_put16(p + 2, (uint16_t)v);
}

void fade_put64(uint8_t *p, uint64_t v)
{
    fade_put32(p, (uint32_t)(v >> 32));
    fade_put32(p + 4, (uint32_t)v);
}

void fade_put64le(uint8_t *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++, v >>= 8)
        p[i] = (uint8_t)v;
}

static int is_cmd_code(uint16_t c)
{
    return c == FADE_CMD_START || c == FADE_CMD_STOP || c == FADE_CMD_RESET ||
           (c >= FADE_CMD_USER_MIN && c <= FADE_CMD_USER_MAX);
}

static void get_resp(const uint8_t *f, struct fade_frame *fr, size_t cmd_off, size_t csn_off,
                     size_t val_off)
{
    fr->resp_cmd = fade_get16(f + cmd_off);
    fr->resp_csn = fade_get16(f + csn_off);
    fr->resp_val = fade_get64(f + val_off);
}

void fade_bpf_filter(struct sock_filter *c, int which)
{
    /* what is kept of: a data frame with a response, a RESP frame, any other FADE frame */
    static const uint32_t keep[3][3] = {
        [FADE_FILT_RING] = {0x40000, 0, 0x40000},
        [FADE_FILT_CTRL] = {FADE_CTRL_SNAP, FADE_CTRL_SNAP, 0},
        [FADE_FILT_ALL] = {0x40000, 0x40000, 0x40000},
    };
    const uint32_t data_resp = keep[which][0], resp = keep[which][1], other = keep[which][2];
    const struct sock_filter code[FADE_BPF_LEN] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, FADE_HEADER_ETHERTYPE_OFF),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FADE_ETHERTYPE, 0, 11),  /* else 13 */
        /* 2 */ BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
        /* 3 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, FADE_DATA_RESP_CMD_OFF + 2, 0, 8), /* else 12 */
        /* 4 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, FADE_DATA_TYPE_OFF),
        /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FADE_TYPE_RESP, 5, 0),   /* 11 */
        /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FADE_TYPE_DATA, 1, 0),   /* 8 */
        /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FADE_TYPE_LAST, 0, 4),   /* else 12 */
        /* 8 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, FADE_DATA_RESP_CMD_OFF),
        /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FADE_CMD_NONE, 2, 0),    /* 12 */
        /* 10 */ BPF_STMT(BPF_RET | BPF_K, data_resp),  /* a data frame with a response */
        /* 11 */ BPF_STMT(BPF_RET | BPF_K, resp),       /* a RESP frame */
        /* 12 */ BPF_STMT(BPF_RET | BPF_K, other),      /* any other FADE frame */
        /* 13 */ BPF_STMT(BPF_RET | BPF_K, 0),          /* not FADE */
    };
    memcpy(c, code, sizeof(code));
}

int fade_parse_response(const uint8_t *f, size_t len, struct fade_frame *fr)
{
    uint16_t t;
    memset(fr, 0, sizeof(*fr));
    fr->kind = FADE_K_SHORT;
    if (len < FADE_HEADER_LEN + 2 || fade_get16(f + FADE_HEADER_ETHERTYPE_OFF) != FADE_ETHERTYPE ||
        fade_get16(f + FADE_HEADER_VERSION_OFF) != FADE_VERSION)
        return 0;
    memcpy(fr->dst, f + FADE_HEADER_DST_OFF, 6);
    memcpy(fr->src, f + FADE_HEADER_SRC_OFF, 6);
    fr->type = t = fade_get16(f + FADE_DATA_TYPE_OFF);
    if ((t == FADE_TYPE_DATA || t == FADE_TYPE_LAST) && len >= FADE_DATA_DATA_OFF) {
        fr->seq = fade_get16(f + FADE_DATA_SEQ_OFF);
        fr->pkt = fade_get32(f + FADE_DATA_PKT_OFF);
        get_resp(f, fr, FADE_DATA_RESP_CMD_OFF, FADE_DATA_RESP_CSN_OFF, FADE_DATA_RESP_VAL_OFF);
        fr->kind = t == FADE_TYPE_DATA ? FADE_K_DATA : FADE_K_LAST;
    } else if (t == FADE_TYPE_RESP && len >= FADE_RESP_LEN) {
        get_resp(f, fr, FADE_RESP_RESP_CMD_OFF, FADE_RESP_RESP_CSN_OFF, FADE_RESP_RESP_VAL_OFF);
        fr->kind = FADE_K_RESP;
    } else {
        return 0;
    }
    return fr->resp_cmd != FADE_CMD_NONE;
}

enum fade_kind fade_parse(const uint8_t *f, size_t len, struct fade_frame *fr)
{
    memset(fr, 0, sizeof(*fr));
    fr->kind = FADE_K_SHORT;
    if (len < FADE_HEADER_VERSION_OFF)
        return fr->kind;
    memcpy(fr->dst, f + FADE_HEADER_DST_OFF, 6);
    memcpy(fr->src, f + FADE_HEADER_SRC_OFF, 6);
    if (fade_get16(f + FADE_HEADER_ETHERTYPE_OFF) != FADE_ETHERTYPE)
        return fr->kind = FADE_K_NOT_FADE;
    if (len < FADE_HEADER_LEN)
        return fr->kind;
    if (fade_get16(f + FADE_HEADER_VERSION_OFF) != FADE_VERSION)
        return fr->kind = FADE_K_BAD_VERSION;
    if (len < FADE_HEADER_LEN + 2)
        return fr->kind;
    fr->type = fade_get16(f + FADE_DATA_TYPE_OFF);
    switch (fr->type) {
    case FADE_TYPE_DATA:
    case FADE_TYPE_LAST:
        /* DATA and LAST share the header fields (checked by the static asserts below) */
        if (len < FADE_DATA_LEN)
            return fr->kind;
        fr->seq = fade_get16(f + FADE_DATA_SEQ_OFF);
        fr->pkt = fade_get32(f + FADE_DATA_PKT_OFF);
        fr->delay = fade_get32(f + FADE_DATA_DELAY_OFF);
        get_resp(f, fr, FADE_DATA_RESP_CMD_OFF, FADE_DATA_RESP_CSN_OFF, FADE_DATA_RESP_VAL_OFF);
        fr->words = f + FADE_DATA_DATA_OFF;
        if (fr->type == FADE_TYPE_DATA) {
            fr->nwords = FADE_WORDS_PER_PACKET;
            return fr->kind = FADE_K_DATA;
        }
        {
            uint64_t n = fade_get64le(f + FADE_LAST_NWORDS_OFF);
            if (n >= FADE_WORDS_PER_PACKET)
                return fr->kind = FADE_K_BAD_NWORDS;
            fr->nwords = (uint32_t)n;
        }
        return fr->kind = FADE_K_LAST;
    case FADE_TYPE_RESP:
        if (len < FADE_RESP_LEN)
            return fr->kind;
        get_resp(f, fr, FADE_RESP_RESP_CMD_OFF, FADE_RESP_RESP_CSN_OFF, FADE_RESP_RESP_VAL_OFF);
        return fr->kind = FADE_K_RESP;
    case FADE_TYPE_ACK:
    case FADE_TYPE_NACK:
        if (len < FADE_ACK_LEN)
            return fr->kind;
        fr->seq = fade_get16(f + FADE_ACK_SEQ_OFF);
        fr->pkt = fade_get32(f + FADE_ACK_PKT_OFF);
        fr->delay = fade_get32(f + FADE_ACK_DELAY_OFF);
        return fr->kind = fr->type == FADE_TYPE_ACK ? FADE_K_ACK : FADE_K_NACK;
    default:
        if (!is_cmd_code(fr->type))
            return fr->kind = FADE_K_BAD_TYPE;
        if (len < FADE_CMD_LEN)
            return fr->kind;
        fr->csn = fade_get16(f + FADE_CMD_CSN_OFF);
        fr->arg = fade_get32(f + FADE_CMD_ARG_OFF);
        return fr->kind = FADE_K_CMD;
    }
}

_Static_assert(FADE_DATA_SEQ_OFF == FADE_LAST_SEQ_OFF && FADE_DATA_PKT_OFF == FADE_LAST_PKT_OFF &&
               FADE_DATA_DELAY_OFF == FADE_LAST_DELAY_OFF &&
               FADE_DATA_RESP_CMD_OFF == FADE_LAST_RESP_CMD_OFF &&
               FADE_DATA_RESP_CSN_OFF == FADE_LAST_RESP_CSN_OFF &&
               FADE_DATA_RESP_VAL_OFF == FADE_LAST_RESP_VAL_OFF &&
               FADE_DATA_DATA_OFF == FADE_LAST_DATA_OFF && FADE_DATA_LEN == FADE_LAST_LEN,
               "DATA and LAST frames share their header");
_Static_assert(FADE_CMD_CMD_OFF == FADE_DATA_TYPE_OFF && FADE_ACK_TYPE_OFF == FADE_DATA_TYPE_OFF &&
               FADE_RESP_TYPE_OFF == FADE_DATA_TYPE_OFF, "the type / command code is at one place");
_Static_assert(FADE_DATA_DATA_LEN == 8 * FADE_WORDS_PER_PACKET, "8,192-byte packets");

size_t fade_build_header(uint8_t *out, const uint8_t dst[6], const uint8_t src[6])
{
    memcpy(out + FADE_HEADER_DST_OFF, dst, 6);
    memcpy(out + FADE_HEADER_SRC_OFF, src, 6);
    fade_put16(out + FADE_HEADER_ETHERTYPE_OFF, FADE_ETHERTYPE);
    fade_put16(out + FADE_HEADER_VERSION_OFF, FADE_VERSION);
    return FADE_HEADER_LEN;
}

static size_t fill(uint8_t *out, size_t len)
{
    if (len < FADE_MIN_FRAME)
        memset(out + len, FADE_FILLER, FADE_MIN_FRAME - len);
    return len < FADE_MIN_FRAME ? FADE_MIN_FRAME : len;
}

size_t fade_build_acks(uint8_t *out, const uint8_t dst[6], const uint8_t src[6],
                       const struct fade_ack_rec *r, unsigned n)
{
    unsigned i;
    if (n < 1)
        n = 1;
    if (n > FADE_ACK_RECORDS_MAX)
        n = FADE_ACK_RECORDS_MAX;
    fade_build_header(out, dst, src);
    for (i = 0; i < n; i++) {
        uint8_t *o = out + FADE_ACK_RECORD_LEN * i;
        fade_put16(o + FADE_ACK_TYPE_OFF, r[i].type);
        fade_put16(o + FADE_ACK_SEQ_OFF, r[i].seq);
        fade_put32(o + FADE_ACK_PKT_OFF, r[i].pkt);
        fade_put32(o + FADE_ACK_DELAY_OFF, r[i].delay);
    }
    return fill(out, FADE_ACK_LEN + FADE_ACK_RECORD_LEN * (n - 1));
}

size_t fade_build_ack(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t type,
                      uint16_t seq, uint32_t pkt, uint32_t delay)
{
    struct fade_ack_rec r = {.type = type, .seq = seq, .pkt = pkt, .delay = delay};
    return fade_build_acks(out, dst, src, &r, 1);
}

unsigned fade_parse_acks(const uint8_t *f, size_t len, struct fade_ack_rec *r, unsigned max)
{
    unsigned n = 0;
    size_t off = 0;
    for (; n < max && n < FADE_ACK_RECORDS_MAX; n++, off += FADE_ACK_RECORD_LEN) {
        uint16_t t;
        if (FADE_ACK_LEN + off > len)
            break;
        t = fade_get16(f + FADE_ACK_TYPE_OFF + off);
        if (t != FADE_TYPE_ACK && t != FADE_TYPE_NACK)
            break;
        r[n].type = t;
        r[n].seq = fade_get16(f + FADE_ACK_SEQ_OFF + off);
        r[n].pkt = fade_get32(f + FADE_ACK_PKT_OFF + off);
        r[n].delay = fade_get32(f + FADE_ACK_DELAY_OFF + off);
    }
    return n;
}

unsigned fade_board_ack_records(uint64_t resp_val)
{
    unsigned n = (unsigned)(resp_val & 0xFF);
    return n < 1 ? 1 : n > FADE_ACK_RECORDS_MAX ? FADE_ACK_RECORDS_MAX : n;
}

size_t fade_build_cmd(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t cmd,
                      uint16_t csn, uint32_t arg)
{
    fade_build_header(out, dst, src);
    fade_put16(out + FADE_CMD_CMD_OFF, cmd);
    fade_put16(out + FADE_CMD_CSN_OFF, csn);
    fade_put32(out + FADE_CMD_ARG_OFF, arg);
    return fill(out, FADE_CMD_LEN);
}

size_t fade_build_resp(uint8_t *out, const uint8_t dst[6], const uint8_t src[6], uint16_t cmd,
                       uint16_t csn, uint64_t val)
{
    fade_build_header(out, dst, src);
    fade_put16(out + FADE_RESP_TYPE_OFF, FADE_TYPE_RESP);
    fade_put16(out + FADE_RESP_RESP_CMD_OFF, cmd);
    fade_put16(out + FADE_RESP_RESP_CSN_OFF, csn);
    fade_put64(out + FADE_RESP_RESP_VAL_OFF, val);
    return fill(out, FADE_RESP_LEN);
}

/* ---- receiver packet buffer ------------------------------------------------------------------ */

void fade_rx_init(struct fade_rx *rx, uint8_t *buf, uint32_t *slot_pkt, unsigned buf_log2,
                  unsigned win_log2)
{
    memset(rx, 0, sizeof(*rx));
    rx->buf = buf;
    rx->slot_pkt = slot_pkt;
    rx->buf_log2 = buf_log2;
    rx->win_log2 = win_log2;
    fade_rx_reset(rx);
}

void fade_rx_reset(struct fade_rx *rx)
{
    uint32_t s, n = 1u << rx->buf_log2;
    /* each slot "holds" the packet one buffer length before the one that belongs there next,
     * so no slot matches a packet of the new stream until it is received */
    for (s = 0; s < n; s++)
        rx->slot_pkt[s] = s - n;
    rx->head_pkt = rx->tail = rx->last_pkt = rx->hi_pkt = 0;
    rx->have_last = 0;
    rx->last_nwords = 0;
    rx->new_pkts = rx->dups = rx->future = rx->no_space = rx->bytes = 0;
}

enum fade_rx_verdict fade_rx_data(struct fade_rx *rx, const struct fade_frame *fr)
{
    return fade_rx_data_ex(rx, fr, 0, NULL);
}

enum fade_rx_verdict fade_rx_data_ex(struct fade_rx *rx, const struct fade_frame *fr,
                                     int may_skip_copy, int *skipped)
{
    uint64_t mask = (1u << rx->buf_log2) - 1, p, tail_pkt;
    int32_t d = (int32_t)(fr->pkt - (uint32_t)rx->head_pkt);
    uint32_t slot;
    int in_place;

    if (skipped)
        *skipped = 0;
    if (d < 0) { /* older than everything unconfirmed: its ACK was lost */
        rx->dups++;
        return FADE_RX_DUP;
    }
    p = rx->head_pkt + (uint32_t)d;
    if ((uint32_t)d >= (1u << rx->win_log2) || (rx->have_last && p > rx->last_pkt) ||
        (rx->have_last && fr->kind == FADE_K_LAST && p != rx->last_pkt) ||
        (rx->have_last && fr->kind == FADE_K_DATA && p == rx->last_pkt)) {
        rx->future++;
        return FADE_RX_FUTURE;
    }
    slot = (uint32_t)(p & mask);
    if (rx->slot_pkt[slot] == (uint32_t)p) {
        rx->dups++;
        return FADE_RX_DUP;
    }
    tail_pkt = rx->tail / FADE_DATA_DATA_LEN;
    if (p >= tail_pkt + mask + 1) {
        rx->no_space++;
        return FADE_RX_NO_SPACE;
    }
    /* in place: the next packet of the stream, nothing out of order stored after it and the
     * application has consumed everything before it (tail == head) */
    in_place = may_skip_copy && p == rx->head_pkt && rx->hi_pkt <= rx->head_pkt &&
               rx->tail == rx->head_pkt * FADE_DATA_DATA_LEN;
    if (!in_place)
        memcpy(rx->buf + (size_t)slot * FADE_DATA_DATA_LEN, fr->words, (size_t)fr->nwords * 8);
    if (p + 1 > rx->hi_pkt)
        rx->hi_pkt = p + 1;
    rx->slot_pkt[slot] = (uint32_t)p;
    rx->new_pkts++;
    rx->bytes += (uint64_t)fr->nwords * 8;
    if (fr->kind == FADE_K_LAST) {
        rx->have_last = 1;
        rx->last_pkt = p;
        rx->last_nwords = fr->nwords;
    }
    while (rx->slot_pkt[rx->head_pkt & mask] == (uint32_t)rx->head_pkt &&
           !(rx->have_last && rx->head_pkt > rx->last_pkt))
        rx->head_pkt++;
    if (in_place)
        rx->tail = fade_rx_head(rx);  /* consumed by the caller, from the frame */
    if (skipped)
        *skipped = in_place;
    return FADE_RX_NEW;
}

int fade_rx_eos(const struct fade_rx *rx)
{
    return rx->have_last && rx->head_pkt > rx->last_pkt;
}

uint64_t fade_rx_head(const struct fade_rx *rx)
{
    if (fade_rx_eos(rx))
        return rx->last_pkt * FADE_DATA_DATA_LEN + (uint64_t)rx->last_nwords * 8;
    return rx->head_pkt * FADE_DATA_DATA_LEN;
}
