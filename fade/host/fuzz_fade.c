/*
 * Fuzzing the FADE-10G frame parser and the receiver packet buffer.
 *
 * Built two ways (host.mk beside this file):
 *  - with clang -fsanitize=fuzzer: a libFuzzer target (LLVMFuzzerTestOneInput);
 *  - with -DFUZZ_STANDALONE (any C compiler): a deterministic driver running N million frames:
 *    well-formed frames of every type (random fields, packet numbers around the receiver's
 *    window, lengths around each layout's), mutated (bit flips, cuts, extensions) and random
 *    bytes. `--write-corpus DIR` writes seed inputs for libFuzzer instead.
 *
 * Each input is parsed from an exact-size heap copy (ASan sees any read past the end), and
 * checked: the kind is in range, parsing is deterministic, a DATA/LAST frame's words lie inside
 * the frame with nwords <= 1024, builders round-trip. DATA/LAST frames then go into a persistent
 * receiver buffer (2^5 slots, window 2^3) whose invariants must hold after every frame: head
 * never moves back, head - tail <= the buffer length, head never passes the window. A violation
 * aborts.
 */
#include "fade_core.h"

#include <fastpath/fade.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 5
#define N 3

static uint8_t rx_buf[FADE_PACKET_BYTES << M];
static uint32_t rx_slots[1u << M];
static struct fade_rx rx;
static int rx_ready;
static unsigned consume_rng = 1;

static void fail(const char *why, const uint8_t *f, size_t len)
{
    size_t i;
    fprintf(stderr, "fuzz_fade: invariant violated: %s (len %zu)\n", why, len);
    for (i = 0; i < len && i < 64; i++)
        fprintf(stderr, "%02x%s", f[i], (i % 32 == 31) ? "\n" : "");
    fputc('\n', stderr);
    abort();
}

#define ENSURE(cond, why)      \
    do {                       \
        if (!(cond))           \
            fail(why, f, len); \
    } while (0)

static void check_one(const uint8_t *data, size_t len)
{
    struct fade_frame a, b;
    uint8_t *f = malloc(len ? len : 1);
    uint64_t head_before, head;
    enum fade_kind k;

    if (!f)
        abort();
    memcpy(f, data, len);
    if (!rx_ready) {
        fade_rx_init(&rx, rx_buf, rx_slots, M, N);
        rx_ready = 1;
    }
    k = fade_parse(f, len, &a);
    ENSURE((unsigned)k < FADE_K_COUNT && a.kind == k, "kind out of range");
    fade_parse(f, len, &b);
    ENSURE(memcmp(&a, &b, sizeof(a)) == 0, "not deterministic");
    /* the response socket's reading: the parser's response, also from a data frame's head */
    {
        struct fade_frame c;
        int has = fade_parse_response(f, len, &c);
        if (k == FADE_K_DATA || k == FADE_K_LAST || k == FADE_K_RESP) {
            ENSURE(has == (a.resp_cmd != FADE_CMD_NONE) && c.kind == k, "response: kind");
            ENSURE(!has || (c.resp_cmd == a.resp_cmd && c.resp_csn == a.resp_csn &&
                            c.resp_val == a.resp_val && !memcmp(c.src, a.src, 6)),
                   "response: fields");
            if (k != FADE_K_RESP)
                ENSURE(fade_parse_response(f, FADE_DATA_DATA_OFF, &b) == has && b.kind == k &&
                           b.resp_cmd == c.resp_cmd && b.resp_csn == c.resp_csn &&
                           b.resp_val == c.resp_val && !memcmp(b.src, a.src, 6) &&
                           b.seq == a.seq && b.pkt == a.pkt,
                       "response: from the head");
        } else if (has) {
            /* only a data frame's head too short for fade_parse(), or a LAST with a bad count */
            ENSURE((c.kind == FADE_K_DATA || c.kind == FADE_K_LAST) &&
                       ((k == FADE_K_SHORT && len < FADE_DATA_LEN) || k == FADE_K_BAD_NWORDS),
                   "response: from a frame the parser refused");
        }
    }
    if (k == FADE_K_DATA || k == FADE_K_LAST) {
        ENSURE(a.words == f + FADE_DATA_DATA_OFF && len >= FADE_DATA_LEN, "words outside");
        ENSURE(a.nwords <= FADE_WORDS_PER_PACKET && (k == FADE_K_DATA) == (a.nwords == 1024),
               "nwords");
        head_before = fade_rx_head(&rx);
        fade_rx_data(&rx, &a);
        head = fade_rx_head(&rx);
        ENSURE(head >= head_before, "head moved back");
        ENSURE(head - rx.tail <= sizeof(rx_buf), "more data than buffer");
        ENSURE(head <= rx.head_pkt * FADE_PACKET_BYTES, "head_pkt");
        ENSURE(rx.head_pkt * FADE_PACKET_BYTES - head <= FADE_PACKET_BYTES, "head_pkt"); /* LAST, 0 words */
        /* the application consumes a random part */
        consume_rng = consume_rng * 1103515245u + 12345u;
        if ((consume_rng >> 16) & 1)
            rx.tail = head - (((consume_rng >> 17) % 3 == 0) ? 0 : (head - rx.tail) / 2);
        if (fade_rx_eos(&rx) || ((consume_rng >> 20) & 0xFF) == 0)
            fade_rx_reset(&rx);
    } else if (k == FADE_K_ACK || k == FADE_K_NACK) {
        uint8_t out[FADE_ACK_FRAME_MAX];
        struct fade_frame c;
        struct fade_ack_rec r[FADE_ACK_RECORDS_MAX], r2[FADE_ACK_RECORDS_MAX];
        unsigned n, n2, i;
        size_t olen;
        fade_build_ack(out, a.dst, a.src, a.type, a.seq, a.pkt, a.delay);
        ENSURE(fade_parse(out, FADE_MIN_FRAME, &c) == k && c.seq == a.seq && c.pkt == a.pkt &&
                   c.delay == a.delay, "ACK round trip");
        /* the board's reading of the records (fade-emu): within the frame, record 0 = the
         * parser's, every record an ACK/NACK, fewer with a lower limit; they round-trip */
        n = fade_parse_acks(f, len, r, FADE_ACK_RECORDS_MAX);
        ENSURE(n >= 1 && n <= FADE_ACK_RECORDS_MAX &&
                   FADE_ACK_LEN + (size_t)FADE_ACK_RECORD_LEN * (n - 1) <= len, "records outside");
        ENSURE(r[0].type == a.type && r[0].seq == a.seq && r[0].pkt == a.pkt && r[0].delay == a.delay,
               "record 0");
        ENSURE(fade_parse_acks(f, len, r2, n - 1) == n - 1, "limit");
        olen = fade_build_acks(out, a.dst, a.src, r, n);
        n2 = fade_parse_acks(out, olen, r2, FADE_ACK_RECORDS_MAX);
        ENSURE(n2 == n && olen <= sizeof(out), "records round trip");
        for (i = 0; i < n; i++)
            ENSURE(r2[i].type == r[i].type && r2[i].seq == r[i].seq && r2[i].pkt == r[i].pkt &&
                       r2[i].delay == r[i].delay, "records round trip");
    } else if (k == FADE_K_CMD) {
        uint8_t out[FADE_MIN_FRAME];
        struct fade_frame c;
        fade_build_cmd(out, a.dst, a.src, a.type, a.csn, a.arg);
        ENSURE(fade_parse(out, sizeof(out), &c) == k && c.csn == a.csn && c.arg == a.arg,
               "CMD round trip");
    } else if (k == FADE_K_RESP) {
        uint8_t out[FADE_MIN_FRAME];
        struct fade_frame c;
        fade_build_resp(out, a.dst, a.src, a.resp_cmd, a.resp_csn, a.resp_val);
        ENSURE(fade_parse(out, sizeof(out), &c) == k && c.resp_val == a.resp_val, "RESP");
    }
    free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_one(data, size);
    return 0;
}

#ifdef FUZZ_STANDALONE
static uint64_t rs = 88172645463325252ull;
static uint64_t rnd64(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}
static unsigned rnd(unsigned n) { return (unsigned)(rnd64() % n); }

static const uint16_t TYPES[] = {FADE_TYPE_DATA, FADE_TYPE_LAST, FADE_TYPE_RESP, FADE_TYPE_ACK,
                                 FADE_TYPE_NACK, FADE_CMD_START, FADE_CMD_STOP, FADE_CMD_RESET,
                                 FADE_CMD_USER_MIN, FADE_CMD_USER_MAX, 0xA5A7, 0};

/* A well-formed frame of a random type; returns its length. */
static size_t make_frame(uint8_t *f)
{
    static const uint8_t a[6] = {2, 0, 0, 0, 0, 1}, b[6] = {2, 0, 0, 0, 0, 2};
    uint16_t type = TYPES[rnd(sizeof(TYPES) / sizeof(TYPES[0]))];
    size_t len;
    switch (type) {
    case FADE_TYPE_DATA:
    case FADE_TYPE_LAST:
        fade_build_header(f, a, b);
        fade_put16(f + FADE_DATA_TYPE_OFF, type);
        fade_put16(f + FADE_DATA_SEQ_OFF, (uint16_t)rnd64());
        /* packet numbers near the buffer's head, sometimes anywhere */
        fade_put32(f + FADE_DATA_PKT_OFF, rnd(8) ? (uint32_t)(rx.head_pkt + rnd(12) - 2)
                                                 : (uint32_t)rnd64());
        fade_put32(f + FADE_DATA_DELAY_OFF, (uint32_t)rnd64());
        fade_put16(f + FADE_DATA_RESP_CMD_OFF, (uint16_t)rnd(3));
        fade_put64(f + FADE_DATA_RESP_VAL_OFF, rnd64());
        fade_put64le(f + FADE_LAST_NWORDS_OFF, rnd(16) ? rnd(1024) : rnd64());
        len = FADE_DATA_LEN;
        break;
    case FADE_TYPE_RESP:
        len = fade_build_resp(f, a, b, (uint16_t)rnd64(), (uint16_t)rnd64(), rnd64());
        break;
    case FADE_TYPE_ACK:
    case FADE_TYPE_NACK: {
        struct fade_ack_rec r[FADE_ACK_RECORDS_MAX];
        unsigned i, n = 1 + rnd(FADE_ACK_RECORDS_MAX);
        for (i = 0; i < n; i++) {
            r[i].type = i == 0 ? type : rnd(2) ? FADE_TYPE_ACK : FADE_TYPE_NACK;
            r[i].seq = (uint16_t)rnd64();
            r[i].pkt = (uint32_t)rnd64();
            r[i].delay = (uint32_t)rnd64();
        }
        len = fade_build_acks(f, b, a, r, n);
        break;
    }
    default:
        len = fade_build_cmd(f, b, a, type, (uint16_t)rnd64(), (uint32_t)rnd64());
        break;
    }
    if (rnd(4) == 0) /* a length around the layout's */
        len = (size_t)((long)len + (long)rnd(9) - 4 < 0 ? 0 : (long)len + (long)rnd(9) - 4);
    if (rnd(20) == 0)
        len = rnd(64);
    return len;
}

static size_t mutate(uint8_t *f, size_t len, size_t cap)
{
    unsigned i, n = 1 + rnd(3);
    for (i = 0; i < n; i++) {
        switch (rnd(4)) {
        case 0:
            if (len)
                f[rnd((unsigned)len)] ^= (uint8_t)(1u << rnd(8));
            break;
        case 1:
            if (len)
                f[rnd((unsigned)(len < 48 ? len : 48))] = (uint8_t)rnd64();
            break;
        case 2:
            len = rnd((unsigned)len + 1);
            break;
        default:
            if (len + 16 <= cap) {
                unsigned k = 1 + rnd(16), j;
                for (j = 0; j < k; j++)
                    f[len + j] = (uint8_t)rnd64();
                len += k;
            }
        }
    }
    return len;
}

int main(int argc, char **argv)
{
    static uint8_t f[FADE_DATA_LEN + 64];
    double millions = 1;
    unsigned long long i, total;
    int a;
    for (a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--millions") && a + 1 < argc) {
            millions = atof(argv[++a]);
        } else if (!strcmp(argv[a], "--write-corpus") && a + 1 < argc) {
            const char *dir = argv[++a];
            int k;
            for (k = 0; k < 24; k++) {
                char path[512];
                size_t len = make_frame(f);
                FILE *o;
                snprintf(path, sizeof(path), "%s/seed%02d", dir, k);
                o = fopen(path, "wb");
                if (!o || fwrite(f, 1, len, o) != len) {
                    perror(path);
                    return 1;
                }
                fclose(o);
            }
            return 0;
        } else {
            fprintf(stderr, "usage: fuzz_fade_san [--millions X] [--write-corpus DIR]\n");
            return 2;
        }
    }
    total = (unsigned long long)(millions * 1e6);
    for (i = 0; i < total; i++) {
        size_t len;
        unsigned kind = (unsigned)(i % 10);
        if (kind == 0) {
            len = rnd(80);
            for (size_t j = 0; j < len; j++)
                f[j] = (uint8_t)rnd64();
        } else {
            len = make_frame(f);
            if (kind >= 6)
                len = mutate(f, len, sizeof(f));
        }
        check_one(f, len);
    }
    printf("%llu frames, 0 invariant violations\n", total);
    return 0;
}
#endif
