/*
 * Unit tests of the FADE-10G host side without I/O (run under ASan + UBSan by `make test`):
 * serial-number compare with wrap, the frame parser and builders, the receiver packet buffer
 * (order, duplicates, packets from the future, a full buffer, the last packet, 32-bit packet
 * number wrap, a random lossy / reordering / duplicating channel), the pattern checker, and the
 * library calls that need no socket. Prints "N passed, N failed"; exits non-zero on a failure.
 */
#include "fade_core.h"
#include "fade_verify.h"

#include <fastpath/fade.h>

#include <errno.h>
#include <linux/filter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (cond) {                                                            \
            passed++;                                                          \
        } else {                                                               \
            failed++;                                                          \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static const uint8_t HOST[6] = {0x02, 0, 0, 0, 0, 0x01};
static const uint8_t BOARD[6] = {0x02, 0, 0, 0, 0, 0x02};

static unsigned rng_state = 12345;
static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 8) % n;
}

/* A DATA (nwords < 0) or LAST frame with pattern words first, first+1, ... */
static size_t data_frame(uint8_t *f, uint32_t pkt, uint16_t seq, int last_nwords, uint64_t first)
{
    unsigned i, n = last_nwords < 0 ? 1024u : (unsigned)last_nwords;
    memset(f, 0, FADE_DATA_LEN);
    fade_build_header(f, HOST, BOARD);
    fade_put16(f + FADE_DATA_TYPE_OFF, last_nwords < 0 ? FADE_TYPE_DATA : FADE_TYPE_LAST);
    fade_put16(f + FADE_DATA_SEQ_OFF, seq);
    fade_put32(f + FADE_DATA_PKT_OFF, pkt);
    fade_put32(f + FADE_DATA_DELAY_OFF, 77);
    fade_put16(f + FADE_DATA_RESP_CMD_OFF, FADE_CMD_NONE);
    for (i = 0; i < n; i++)
        fade_put64le(f + FADE_DATA_DATA_OFF + 8 * i, first + i);
    if (last_nwords >= 0)
        fade_put64le(f + FADE_LAST_NWORDS_OFF, (uint64_t)last_nwords);
    return FADE_DATA_LEN;
}

static void test_serial_numbers(void)
{
    CHECK(fade_seq_gt(1, 0) && !fade_seq_gt(0, 1), "seq 1 > 0");
    CHECK(fade_seq_gt(0, 0xFFFF) && !fade_seq_gt(0xFFFF, 0), "seq wraps");
    CHECK(fade_seq_gt(0x8000, 0), "seq: a difference of exactly 2^15 is 'greater'");
    CHECK(!fade_seq_gt(0x8001, 0) && fade_seq_gt(0, 0x8001), "seq: beyond 2^15 is older");
    CHECK(fade_seq_gt(5, 0xFFF0) && !fade_seq_gt(0xFFF0, 5), "seq across the wrap");
    CHECK(fade_pkt_gt(0, 0xFFFFFFFFu) && !fade_pkt_gt(0xFFFFFFFFu, 0), "pkt wraps");
    CHECK(fade_pkt_gt(0x80000000u, 0) && !fade_pkt_gt(0x80000001u, 0), "pkt: 2^31 boundary");
    {
        unsigned i;
        for (i = 0; i < 2000; i++) {
            uint16_t a = (uint16_t)rnd(65536), d = (uint16_t)(1 + rnd(0x7FFF));
            CHECK(fade_seq_gt((uint16_t)(a + d), a) && !fade_seq_gt(a, (uint16_t)(a + d)),
                  "seq %u + %u", a, d);
        }
    }
}

static void test_parser(void)
{
    static uint8_t f[FADE_DATA_LEN + 64];
    struct fade_frame fr;
    size_t n, cut;
    unsigned i;

    n = fade_build_ack(f, BOARD, HOST, FADE_TYPE_ACK, 0xBEEF, 0x01020304, 0x0A0B0C0D);
    CHECK(n == 60, "ACK filled to 60 bytes (%zu)", n);
    CHECK(f[FADE_ACK_LEN] == FADE_FILLER && f[59] == FADE_FILLER, "filler bytes");
    CHECK(fade_parse(f, n, &fr) == FADE_K_ACK && fr.seq == 0xBEEF && fr.pkt == 0x01020304 &&
              fr.delay == 0x0A0B0C0D && !memcmp(fr.dst, BOARD, 6) && !memcmp(fr.src, HOST, 6),
          "ACK round trip");
    CHECK(f[12] == 0xFA && f[13] == 0xDE && f[14] == 0x01 && f[15] == 0x00, "Ethertype, version");
    n = fade_build_ack(f, BOARD, HOST, FADE_TYPE_NACK, 1, 2, 3);
    CHECK(fade_parse(f, n, &fr) == FADE_K_NACK && fr.pkt == 2, "NACK");
    n = fade_build_cmd(f, BOARD, HOST, 0x1234, 0x5678, 0x9ABCDEF0);
    CHECK(fade_parse(f, n, &fr) == FADE_K_CMD && fr.type == 0x1234 && fr.csn == 0x5678 &&
              fr.arg == 0x9ABCDEF0, "user command");
    n = fade_build_cmd(f, BOARD, HOST, FADE_CMD_START, 7, 0);
    CHECK(fade_parse(f, n, &fr) == FADE_K_CMD && fr.type == FADE_CMD_START, "START");
    n = fade_build_cmd(f, BOARD, HOST, 0x00FF, 7, 0);
    CHECK(fade_parse(f, n, &fr) == FADE_K_BAD_TYPE, "0x00FF is neither command nor type");
    n = fade_build_resp(f, HOST, BOARD, 0x0101, 0x0202, 0x1122334455667788ull);
    CHECK(n == 60 && fade_parse(f, n, &fr) == FADE_K_RESP && fr.resp_cmd == 0x0101 &&
              fr.resp_csn == 0x0202 && fr.resp_val == 0x1122334455667788ull, "RESP");
    CHECK(fade_parse(f, FADE_RESP_LEN, &fr) == FADE_K_RESP, "RESP without filler");
    CHECK(fade_parse(f, FADE_RESP_LEN - 1, &fr) == FADE_K_SHORT, "RESP short");
    CHECK(fade_parse_response(f, n, &fr) == 1 && fr.kind == FADE_K_RESP && fr.resp_cmd == 0x0101 &&
              fr.resp_csn == 0x0202 && fr.resp_val == 0x1122334455667788ull, "RESP: response");
    CHECK(fade_parse_response(f, FADE_RESP_LEN - 1, &fr) == 0, "RESP short: no response");

    n = data_frame(f, 0xCAFEBABE, 0x4242, -1, 1000);
    fade_put16(f + FADE_DATA_RESP_CMD_OFF, FADE_CMD_STOP);
    fade_put16(f + FADE_DATA_RESP_CSN_OFF, 9);
    fade_put64(f + FADE_DATA_RESP_VAL_OFF, 5);
    CHECK(fade_parse(f, n, &fr) == FADE_K_DATA && fr.pkt == 0xCAFEBABE && fr.seq == 0x4242 &&
              fr.delay == 77 && fr.nwords == 1024 && fr.words == f + FADE_DATA_DATA_OFF &&
              fr.resp_cmd == FADE_CMD_STOP && fr.resp_csn == 9 && fr.resp_val == 5,
          "DATA fields");
    CHECK(fade_get64le(fr.words + 8 * 1023) == 1000 + 1023, "DATA words little-endian");
    CHECK(fade_parse(f, n + 40, &fr) == FADE_K_DATA, "DATA with trailing bytes");
    /* the response socket's view: the first 64 bytes of the frame (its BPF snap length) */
    CHECK(fade_parse_response(f, 64, &fr) == 1 && fr.kind == FADE_K_DATA && fr.pkt == 0xCAFEBABE &&
              fr.resp_cmd == FADE_CMD_STOP && fr.resp_csn == 9 && fr.resp_val == 5 &&
              !memcmp(fr.src, BOARD, 6) && !fr.words && !fr.nwords,
          "response from a DATA frame's head");
    CHECK(fade_parse_response(f, FADE_DATA_DATA_OFF, &fr) == 1, "head: the fields are enough");
    CHECK(fade_parse_response(f, FADE_DATA_DATA_OFF - 1, &fr) == 0 && fr.kind == FADE_K_SHORT,
          "head: one byte short");
    fade_put16(f + FADE_DATA_RESP_CMD_OFF, FADE_CMD_NONE);
    CHECK(fade_parse_response(f, 64, &fr) == 0 && fr.kind == FADE_K_DATA, "DATA without response");
    fade_put16(f + FADE_DATA_RESP_CMD_OFF, FADE_CMD_STOP);
    f[15] = 0x01;
    CHECK(fade_parse_response(f, 64, &fr) == 0, "response: version 0x0101");
    f[15] = 0x00;
    f[13] = 0xDF;
    CHECK(fade_parse_response(f, 64, &fr) == 0, "response: other Ethertype");
    f[13] = 0xDE;
    for (cut = 0; cut < n; cut += (cut < 64 ? 1 : 509)) {
        enum fade_kind k = fade_parse(f, cut, &fr);
        CHECK(k == FADE_K_SHORT, "DATA cut to %zu: %s", cut, fade_kind_name(k));
    }
    n = data_frame(f, 3, 4, 0, 0);
    CHECK(fade_parse(f, n, &fr) == FADE_K_LAST && fr.nwords == 0, "LAST with 0 words");
    n = data_frame(f, 3, 4, 1023, 0);
    CHECK(fade_parse(f, n, &fr) == FADE_K_LAST && fr.nwords == 1023, "LAST with 1023 words");
    fade_put64le(f + FADE_LAST_NWORDS_OFF, 1024);
    CHECK(fade_parse(f, n, &fr) == FADE_K_BAD_NWORDS, "LAST with 1024 words");
    fade_put64le(f + FADE_LAST_NWORDS_OFF, 1ull << 40);
    CHECK(fade_parse(f, n, &fr) == FADE_K_BAD_NWORDS, "LAST with a huge count");
    CHECK(fade_parse(f, FADE_LAST_LEN - 1, &fr) == FADE_K_SHORT, "LAST short");

    n = data_frame(f, 0, 0, -1, 0);
    f[13] = 0xDF;
    CHECK(fade_parse(f, n, &fr) == FADE_K_NOT_FADE, "other Ethertype");
    f[13] = 0xDE;
    f[15] = 0x01;
    CHECK(fade_parse(f, n, &fr) == FADE_K_BAD_VERSION, "version 0x0101");
    f[15] = 0x00;
    fade_put16(f + FADE_DATA_TYPE_OFF, 0xA5A7);
    CHECK(fade_parse(f, n, &fr) == FADE_K_BAD_TYPE, "type 0xA5A7");
    for (i = 0; i < 14; i++)
        CHECK(fade_parse(f, i, &fr) == FADE_K_SHORT, "%u bytes", i);
    CHECK(!strcmp(fade_kind_name(FADE_K_DATA), "data") && !strcmp(fade_kind_name(FADE_K_COUNT), "?"),
          "kind names");
}

/* ---- receiver packet buffer ------------------------------------------------------------------- */

struct rxt {
    struct fade_rx rx;
    uint8_t *buf;
    uint32_t *slots;
    uint8_t frame[FADE_DATA_LEN];
};

static void rxt_init(struct rxt *t, unsigned m, unsigned n)
{
    t->buf = calloc((size_t)FADE_PACKET_BYTES << m, 1);
    t->slots = calloc((size_t)1 << m, sizeof(uint32_t));
    fade_rx_init(&t->rx, t->buf, t->slots, m, n);
}

static void rxt_free(struct rxt *t)
{
    free(t->buf);
    free(t->slots);
}

static enum fade_rx_verdict put(struct rxt *t, uint32_t pkt, int last_nwords)
{
    struct fade_frame fr;
    data_frame(t->frame, pkt, (uint16_t)pkt, last_nwords, (uint64_t)pkt * 1024);
    fade_parse(t->frame, FADE_DATA_LEN, &fr);
    return fade_rx_data(&t->rx, &fr);
}

static void test_buffer_basics(void)
{
    struct rxt t;
    uint64_t w;
    rxt_init(&t, 4, 2);  /* 16 slots, window 4 */
    CHECK(fade_rx_head(&t.rx) == 0 && !fade_rx_eos(&t.rx), "empty");
    CHECK(put(&t, 1, -1) == FADE_RX_NEW && fade_rx_head(&t.rx) == 0, "out of order: no head move");
    CHECK(put(&t, 1, -1) == FADE_RX_DUP, "same packet again: duplicate (ACK again)");
    CHECK(put(&t, 4, -1) == FADE_RX_FUTURE, "head + window: from the future");
    CHECK(put(&t, 0x80000000u, -1) == FADE_RX_DUP, "2^31 away: older (its ACK was lost)");
    CHECK(put(&t, 0, -1) == FADE_RX_NEW && fade_rx_head(&t.rx) == 2 * 8192, "head moves over 0,1");
    CHECK(put(&t, 0, -1) == FADE_RX_DUP && put(&t, 0xFFFFFFFFu, -1) == FADE_RX_DUP,
          "older than head: duplicate");
    CHECK(t.rx.dups == 4 && t.rx.future >= 1 && t.rx.new_pkts == 2, "counts");
    memcpy(&w, t.buf + 8192 + 8 * 5, 8);
    CHECK(w == 1024 + 5, "packet 1 in slot 1");
    CHECK(put(&t, 2, -1) == FADE_RX_NEW && put(&t, 3, -1) == FADE_RX_NEW && put(&t, 4, -1) ==
          FADE_RX_NEW && put(&t, 5, -1) == FADE_RX_NEW, "window moves with head");
    rxt_free(&t);

    /* a full buffer: nothing consumed, 16 slots */
    rxt_init(&t, 4, 4);
    {
        uint32_t p;
        for (p = 0; p < 16; p++)
            CHECK(put(&t, p, -1) == FADE_RX_NEW, "fill %u", p);
        CHECK(put(&t, 16, -1) == FADE_RX_NO_SPACE && t.rx.no_space == 1, "full: dropped");
        t.rx.tail = 8191;  /* packet 0 not fully consumed: still occupied */
        CHECK(put(&t, 16, -1) == FADE_RX_NO_SPACE, "partly consumed slot is occupied");
        t.rx.tail = 8192;
        CHECK(put(&t, 16, -1) == FADE_RX_NEW && fade_rx_head(&t.rx) == 17 * 8192, "slot reused");
        memcpy(&w, t.buf, 8);
        CHECK(w == 16 * 1024, "slot 0 holds packet 16");
    }
    rxt_free(&t);

    /* the last packet */
    rxt_init(&t, 4, 2);
    CHECK(put(&t, 0, -1) == FADE_RX_NEW, "p0");
    CHECK(put(&t, 2, 100) == FADE_RX_NEW && !fade_rx_eos(&t.rx), "last before p1: not the end");
    CHECK(put(&t, 3, -1) == FADE_RX_FUTURE, "after the last: error");
    CHECK(put(&t, 2, 50) == FADE_RX_DUP, "last again");
    CHECK(put(&t, 1, -1) == FADE_RX_NEW && fade_rx_eos(&t.rx), "end of stream");
    CHECK(fade_rx_head(&t.rx) == 2 * 8192 + 100 * 8, "head at the last word (%llu)",
          (unsigned long long)fade_rx_head(&t.rx));
    CHECK(put(&t, 1, -1) == FADE_RX_DUP && put(&t, 2, 100) == FADE_RX_DUP, "dups after the end");
    CHECK(t.rx.bytes == 2 * 8192 + 800, "bytes");
    fade_rx_reset(&t.rx);
    CHECK(fade_rx_head(&t.rx) == 0 && !fade_rx_eos(&t.rx) && put(&t, 0, 0) == FADE_RX_NEW &&
              fade_rx_eos(&t.rx) && fade_rx_head(&t.rx) == 0, "empty stream: LAST 0 words");
    rxt_free(&t);
}

/* Packet numbers across 2^32: start the stream just below the wrap. */
static void test_buffer_wrap(void)
{
    struct rxt t;
    uint64_t base = 0xFFFFFFF0ull, p;
    rxt_init(&t, 4, 3);
    t.rx.head_pkt = base;
    t.rx.tail = base * 8192;
    for (p = base; p < base + 16; p++)  /* as fade_rx_reset() leaves them, relative to head */
        t.slots[p & 15] = (uint32_t)(p - 16);
    for (p = base; p < base + 40; p++) {
        uint64_t w;
        CHECK(put(&t, (uint32_t)(p + 1), -1) == FADE_RX_NEW, "p+1 %llx", (unsigned long long)p);
        CHECK(put(&t, (uint32_t)p, -1) == FADE_RX_NEW, "p %llx", (unsigned long long)p);
        CHECK(fade_rx_head(&t.rx) == (p + 2) * 8192, "head %llx", (unsigned long long)p);
        CHECK(put(&t, (uint32_t)(p - 3), -1) == FADE_RX_DUP, "old %llx", (unsigned long long)p);
        CHECK(put(&t, (uint32_t)(p + 2 + 8), -1) == FADE_RX_FUTURE, "future");
        memcpy(&w, t.buf + ((p & 15) * 8192), 8);
        CHECK(w == (uint64_t)(uint32_t)p * 1024, "data of %llx", (unsigned long long)p);
        t.rx.tail = (p + 2) * 8192;
        p++;
    }
    rxt_free(&t);
}

/* A sender with a window of 2^N over a channel that loses, duplicates and reorders; the consumer
 * reads random amounts. Every byte must come out once, in order. */
/* inplace: packets the buffer logic lets the caller read in place (fade_rx_data_ex) are checked
 * from the frame at once, as the library's reader would before anything later. */
static void test_buffer_random(unsigned m, unsigned n, unsigned total_pkts, unsigned seed,
                               int inplace)
{
    struct rxt t;
    uint32_t win = 1u << n, sent_upto = 0, confirmed_upto = 0, last_words;
    uint8_t *acked = calloc(total_pkts + 1, 1);
    uint64_t consumed = 0, expect = (uint64_t)0x1000 << 20;
    unsigned iter = 0, errors = 0, in_place = 0;
    rng_state = seed;
    rxt_init(&t, m, n);
    last_words = rnd(1024);
    while (!fade_rx_eos(&t.rx) && iter++ < 2000000) {
        uint32_t p;
        /* sender: a random packet of its window, as a retransmission or the next new one */
        while (confirmed_upto < total_pkts && acked[confirmed_upto])
            confirmed_upto++;
        if (sent_upto < total_pkts && sent_upto < confirmed_upto + win && rnd(3))
            p = sent_upto++;
        else if (sent_upto > confirmed_upto)
            p = confirmed_upto + rnd(sent_upto - confirmed_upto);
        else
            p = confirmed_upto;
        if (p < total_pkts && rnd(100) >= 20) {  /* 20 % lost */
            struct fade_frame fr;
            int lw = p == total_pkts - 1 ? (int)last_words : -1;
            enum fade_rx_verdict v;
            int skipped = 0;
            uint64_t head0 = fade_rx_head(&t.rx);
            data_frame(t.frame, p, 0, lw, expect + (uint64_t)p * 1024);
            fade_parse(t.frame, FADE_DATA_LEN, &fr);
            v = fade_rx_data_ex(&t.rx, &fr, inplace && rnd(4), &skipped);
            if (skipped) {  /* the words of the frame are the stream's next ones */
                uint32_t i;
                in_place++;
                if (head0 != consumed || t.rx.tail != fade_rx_head(&t.rx) ||
                    t.rx.tail != consumed + (uint64_t)fr.nwords * 8)
                    errors++;
                for (i = 0; i < fr.nwords; i++)
                    if (fade_get64le(fr.words + 8 * i) != expect + consumed / 8 + i)
                        errors++;
                consumed = t.rx.tail;
            }
            if (v == FADE_RX_FUTURE)
                errors++;
            if ((v == FADE_RX_NEW || v == FADE_RX_DUP) && rnd(100) >= 20)  /* ACK lost */
                acked[p] = 1;
        }
        /* consumer */
        if (rnd(4) == 0) {
            uint64_t head = fade_rx_head(&t.rx), avail = head - consumed, k, i;
            k = avail ? (rnd(2) ? avail : (rnd((unsigned)(avail / 8 + 1))) * 8) : 0;
            for (i = 0; i < k; i += 8) {
                uint64_t w, off = (consumed + i) % ((uint64_t)FADE_PACKET_BYTES << m);
                memcpy(&w, t.buf + off, 8);
                if (w != expect + (consumed + i) / 8)
                    errors++;
            }
            consumed += k;
            t.rx.tail = consumed;
        }
    }
    CHECK(fade_rx_eos(&t.rx), "m=%u n=%u: stream ended (%u iterations)", m, n, iter);
    CHECK(errors == 0, "m=%u n=%u: %u errors", m, n, errors);
    CHECK(fade_rx_head(&t.rx) == (uint64_t)(total_pkts - 1) * 8192 + 8ull * last_words,
          "m=%u n=%u: all bytes", m, n);
    CHECK(t.rx.new_pkts == total_pkts && t.rx.dups > 0, "each packet stored once");
    CHECK(!inplace || in_place > 0, "m=%u n=%u: some packets read in place", m, n);
    free(acked);
    rxt_free(&t);
}

static void test_verify(void)
{
    struct fade_verify v;
    uint64_t w[10];
    unsigned i;
    for (i = 0; i < 10; i++)
        w[i] = 100 + 3 * i;
    fade_verify_init(&v, 3);
    fade_verify_bytes(&v, (uint8_t *)w, sizeof(w));
    CHECK(fade_verify_ok(&v) && v.words == 10 && v.first == 100, "clean pattern");
    w[0] = 130 + 3 * 4;  /* 4 words lost */
    w[1] = w[0] + 3;
    fade_verify_bytes(&v, (uint8_t *)w, 16);
    CHECK(v.lost == 4 && v.dup == 0 && v.corrupt == 0, "lost %llu", (unsigned long long)v.lost);
    w[0] = w[1];  /* one duplicate */
    fade_verify_bytes(&v, (uint8_t *)w, 8);
    CHECK(v.dup == 1, "dup %llu", (unsigned long long)v.dup);
    w[0] = w[1] + 3 + 1;  /* corrupt */
    fade_verify_bytes(&v, (uint8_t *)w, 8);
    CHECK(v.corrupt == 1 && v.expect == w[1] + 6, "corrupt");
}

static void test_api_without_socket(void)
{
    uint8_t mac[6];
    struct fade_options o;
    char err[128] = "";
    CHECK(fade_parse_mac("02:00:0a:Bb:cc:ff", mac) == 0 && mac[2] == 0x0A && mac[3] == 0xBB &&
              mac[5] == 0xFF, "parse MAC");
    CHECK(fade_parse_mac("02:00:0a:bb:cc", mac) == -EINVAL &&
              fade_parse_mac("02:00:0a:bb:cc:ff:", mac) == -EINVAL &&
              fade_parse_mac("02:00:0a:bb:cc:100", mac) == -EINVAL, "bad MACs");
    fade_options_default(&o);
    CHECK(o.buf_log2 == 0 && o.window_log2 == 4 && o.rx_cpu == -1 && o.poll_mode == 0,
          "defaults (buf_log2 0: from the window)");
    o.buf_log2 = 12;
    o.window_log2 = 13;
    CHECK(fade_open("lo", mac, &o, err, sizeof(err)) == NULL && strstr(err, "bad options"),
          "window larger than the buffer refused: %s", err);
    CHECK(fade_open("this-is-a-too-long-ifname", mac, NULL, err, sizeof(err)) == NULL,
          "long name refused");
    CHECK(fade_user_cmd(NULL, 0x100, 0, 0, 1, NULL) == -EINVAL &&
              fade_read_ptrs(NULL, NULL, 0) == -EINVAL && fade_write_ptrs(NULL, 1) == -EINVAL &&
              fade_poll(NULL, 0) == -EINVAL,
          "NULL context");
    CHECK(strstr(fade_strerror(-ETIMEDOUT), "timed out") != NULL, "strerror");
}

/* ACK records (fade/README.md, "ACK records"): the frame's layout, the board's reading of it, and
 * what a START response value allows. */
static void test_ack_records(void)
{
    uint8_t f[FADE_ACK_FRAME_MAX + 8];
    struct fade_ack_rec r[FADE_ACK_RECORDS_MAX], g[FADE_ACK_RECORDS_MAX];
    struct fade_frame fr;
    unsigned i, n;
    size_t len;

    for (i = 0; i < FADE_ACK_RECORDS_MAX; i++) {
        r[i].type = i % 3 == 2 ? FADE_TYPE_NACK : FADE_TYPE_ACK;
        r[i].seq = (uint16_t)(0x100 + i);
        r[i].pkt = 0x1000u + i;
        r[i].delay = 7u * i;
    }
    CHECK(FADE_ACK_FRAME_MAX == 112 && FADE_ACK_RECORD_LEN == 12, "112-byte frame of 8 records");
    for (n = 1; n <= FADE_ACK_RECORDS_MAX; n++) {
        len = fade_build_acks(f, BOARD, HOST, r, n);
        CHECK(len == (n <= 3 ? 60u : 16u + 12u * n), "%u records: %zu bytes", n, len);
        CHECK(fade_parse(f, len, &fr) == FADE_K_ACK && fr.seq == 0x100 && fr.pkt == 0x1000,
              "%u records: record 0 is the paper's ACK", n);
        CHECK(fade_parse_acks(f, len, g, FADE_ACK_RECORDS_MAX) == n && !memcmp(g, r, n * sizeof(*r)),
              "%u records read back", n);
        CHECK(fade_parse_acks(f, len, g, 2) == (n < 2 ? n : 2), "%u records, limit 2", n);
        if (n > 1)
            CHECK(fade_parse_acks(f, len - 1, g, FADE_ACK_RECORDS_MAX) == (len > 16 + 12 * n ? n : n - 1),
                  "%u records, the last one cut", n);
    }
    len = fade_build_acks(f, BOARD, HOST, r, 5);
    fade_put16(f + FADE_ACK_TYPE_OFF + 3 * FADE_ACK_RECORD_LEN, FADE_TYPE_DATA);
    CHECK(fade_parse_acks(f, len, g, FADE_ACK_RECORDS_MAX) == 3, "another type ends the records");
    len = fade_build_ack(f, BOARD, HOST, FADE_TYPE_NACK, 1, 2, 3);
    CHECK(fade_parse_acks(f, len, g, FADE_ACK_RECORDS_MAX) == 1 && g[0].type == FADE_TYPE_NACK,
          "a paper ACK frame (0xA5 filler) is one record");
    CHECK(fade_build_acks(f, BOARD, HOST, r, 0) == 60 && fade_parse_acks(f, 60, g, 8) == 1, "n 0 -> 1");
    CHECK(fade_build_acks(f, BOARD, HOST, r, 99) == FADE_ACK_FRAME_MAX, "n clamped to 8");
    CHECK(fade_board_ack_records(0) == 1 && fade_board_ack_records(1) == 1 &&
              fade_board_ack_records(5) == 5 && fade_board_ack_records(8) == 8 &&
              fade_board_ack_records(200) == 8 && fade_board_ack_records(0x100) == 1,
          "START response value -> records per frame");
}

/* The BPF programs of libfade's two V3 sockets, run by the kernel on a datagram socket pair
 * (no privileges needed; the kernel trims to the returned length as on a packet socket): what
 * arrives, and how much of it, for each kind of frame in each program. */
static void test_bpf_filters(void)
{
    static uint8_t f[FADE_DATA_LEN], got[FADE_DATA_LEN + 16];
    struct sock_filter code[FADE_BPF_LEN];
    struct sock_fprog prog = {.len = FADE_BPF_LEN, .filter = code};
    /* frames: data + response, data, last + response, RESP, ACK, a short FADE frame, not FADE */
    enum { DATA_R, DATA, LAST_R, RESP, ACK, SHORT, OTHER, NKIND };
    static const char *name[NKIND] = {"DATA+resp", "DATA", "LAST+resp", "RESP", "ACK", "short", "other"};
    /* what arrives: 0 nothing, 1 the head (FADE_CTRL_SNAP bytes), 2 the whole frame */
    static const int want[3][NKIND] = {
        [FADE_FILT_RING] = {2, 2, 2, 0, 2, 2, 0},
        [FADE_FILT_CTRL] = {1, 0, 1, 1, 0, 0, 0},
        [FADE_FILT_ALL] = {2, 2, 2, 2, 2, 2, 0},
    };
    int which, k;
    for (which = 0; which < 3; which++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0) {
            CHECK(0, "socketpair: %s", strerror(errno));
            return;
        }
        fade_bpf_filter(code, which);
        CHECK(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) == 0,
              "filter %d attaches", which);
        for (k = 0; k < NKIND; k++) {
            size_t n;
            ssize_t r;
            switch (k) {
            case DATA_R: case DATA: case LAST_R:
                n = data_frame(f, 5, 6, k == LAST_R ? 10 : -1, 0);
                if (k != DATA)
                    fade_put16(f + FADE_DATA_RESP_CMD_OFF, 0x0100);
                break;
            case RESP: n = fade_build_resp(f, HOST, BOARD, 0x0100, 3, 7); break;
            case ACK: n = fade_build_ack(f, BOARD, HOST, FADE_TYPE_ACK, 1, 2, 3); break;
            case SHORT: n = fade_build_resp(f, HOST, BOARD, 0x0100, 3, 7) - 32; break;  /* 28 bytes */
            default:
                n = data_frame(f, 5, 6, -1, 0);
                f[12] = 0x08;
                f[13] = 0x00;
                break;
            }
            CHECK(send(sv[0], f, n, 0) == (ssize_t)n, "send %s", name[k]);
            r = recv(sv[1], got, sizeof(got), MSG_DONTWAIT | MSG_TRUNC);
            if (want[which][k] == 0)
                CHECK(r < 0, "filter %d: %s dropped (got %zd)", which, name[k], r);
            else
                CHECK(r == (ssize_t)(want[which][k] == 1 && n > FADE_CTRL_SNAP ? FADE_CTRL_SNAP : n) &&
                          !memcmp(got, f, (size_t)r),
                      "filter %d: %s: %zd bytes", which, name[k], r);
        }
        close(sv[0]);
        close(sv[1]);
    }
}

int main(void)
{
    unsigned s;
    test_serial_numbers();
    test_parser();
    test_bpf_filters();
    test_ack_records();
    test_buffer_basics();
    test_buffer_wrap();
    for (s = 1; s <= 6; s++)
        test_buffer_random(4 + s % 3, s % 5, 300 + 50 * s, s * 7919, s % 2);
    test_buffer_random(4, 4, 2000, 99, 0);  /* window = buffer */
    test_buffer_random(4, 4, 2000, 98, 1);
    test_buffer_random(6, 3, 3000, 97, 1);
    test_verify();
    test_api_without_socket();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
