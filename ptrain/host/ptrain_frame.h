/*
 * ptrain_frame: the packet-train tester's frames in C, built and parsed by the one description
 * ptrain/rtl/ptrain.fmt.toml (offsets and constants from the generated fastpath/fmt/ptrain.h).
 *
 * Parsing (ptrain_parse.c) follows fastpath.ptrain.frame.parse() rule for rule (ptrain/README.md,
 * "What the receiver takes"): a frame is a tester frame (PTRAIN_OK, fields filled in), not one
 * (PTRAIN_FOREIGN), or a tester frame that cannot be used, by reason (truncated, bad_length,
 * bad_checksum, bad_fields, time_mismatch, fragment: the Python names).
 *
 * Building (ptrain_build.c) makes the same bytes as fastpath.ptrain.frame.build() with
 * tx_time = unix_ns << 16: outer headers as scapy makes them (IPv4 identification 1, no flags,
 * TOS 0; IPv6 traffic class and flow label 0; one 802.1Q tag with DEI 0), the UDP checksum over
 * the frame with the time fields and csum_adj at zero, then the time fields and csum_adj.
 * It is split in two steps so that a sender takes its TX time only after the checksum is done:
 * ptrain_build_fields() (sequence, train, index, checksum) and ptrain_build_stamp() (time).
 *
 * IPv4 frames shorter than the full header's minimum (84 bytes, 88 tagged) carry the compact
 * header (layout compact of ptrain.fmt.toml, from 60 bytes, 64 tagged), as frame.build() makes
 * them: the index in the IPv4 identification (below PTRAIN_COMPACT_TRAIN_MAX), UDP checksum 0,
 * tx_time alone at the SFD; parsed, such a frame has train = seq - index, train_len 0, compact 1.
 */
#ifndef PTRAIN_FRAME_H
#define PTRAIN_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "fastpath/fmt/ptrain.h"

/* derived from the generated layout */
#define PTRAIN_TAG_LEN (PTRAIN_ETH_VLAN_LEN - PTRAIN_ETH_LEN)                  /* one 802.1Q tag */
#define PTRAIN_IPV4_ADDRS_LEN (PTRAIN_IPV4_SRC_LEN + PTRAIN_IPV4_DST_LEN)      /* in the pseudo header */
#define PTRAIN_IPV6_ADDRS_LEN (PTRAIN_IPV6_SRC_LEN + PTRAIN_IPV6_DST_LEN)

/* ---- parsing ---------------------------------------------------------------------------- */

enum ptrain_verdict {
    PTRAIN_OK = 0,
    PTRAIN_FOREIGN,
    PTRAIN_TRUNCATED,
    PTRAIN_BAD_LENGTH,
    PTRAIN_BAD_CHECKSUM,
    PTRAIN_BAD_FIELDS,
    PTRAIN_TIME_MISMATCH,
    PTRAIN_FRAGMENT,
    PTRAIN_VERDICT_COUNT
};

struct ptrain_frame {
    uint32_t seq, tv_sec, tv_usec, train, index, train_len;
    uint64_t tx_time;     /* fp_time (Q48.16 ns), 64 bits as carried */
    uint8_t flags;        /* ver_flags[3:0] */
    uint8_t stream;
    uint16_t frame_len;   /* the field: the length as sent */
    uint32_t size;        /* the length as received, from the IP/UDP lengths, without FCS */
    int ipv6;
    int vlan;             /* VLAN ID of the first tag, -1 without a tag */
    int compact;          /* the compact header: train = seq - index, train_len 0, tv_* 0,
                             frame_len = size */
};

/*
 * Parse one frame of caplen captured bytes whose length on the wire was wire_len (>= caplen;
 * pass caplen when the whole frame was captured). Reads data[0 .. caplen-1] only. `out` is
 * filled in for PTRAIN_OK and left alone otherwise (it may be NULL).
 */
enum ptrain_verdict ptrain_parse(const uint8_t *data, size_t caplen, size_t wire_len,
                                 struct ptrain_frame *out);

/* "ok", "foreign", then the reasons as fastpath.ptrain.frame.REASONS names them. */
const char *ptrain_verdict_name(enum ptrain_verdict v);

/* The ones'-complement sum of n bytes as big-endian 16-bit words (an odd last byte padded with
 * zero), folded to 16 bits; 0 only for all-zero data. */
uint16_t ptrain_ones_sum(const uint8_t *p, size_t n, uint32_t start);

/* True when the pktgen seconds/microseconds are tx_time truncated to the microsecond, modulo
 * the 2^48 ns span of fp_time (frame.time_consistent()). */
int ptrain_time_consistent(uint64_t tx_time, uint32_t tv_sec, uint32_t tv_usec);

/* ---- building --------------------------------------------------------------------------- */

struct ptrain_headers {
    uint8_t dst_mac[6], src_mac[6];
    int vlan;             /* VLAN ID 0..4095 of one 802.1Q tag, -1 for none */
    unsigned pcp;         /* priority 0..7 of the tag */
    int ipv6;
    uint8_t src_ip[16], dst_ip[16];  /* IPv4: the first 4 bytes */
    uint16_t sport, dport;
    uint8_t ttl;          /* IPv4 TTL / IPv6 hop limit */
};

/* frame.Headers(): 02:00:00:00:00:01 -> 02:00:00:00:00:02, no tag, 192.0.2.1 -> 198.51.100.1
 * (2001:db8::1 -> 2001:db8::2), ports 9 -> 9, TTL 64. */
void ptrain_headers_default(struct ptrain_headers *h, int ipv6);

/* Bytes before the tester header: Ethernet [+ tag] + IP + UDP. */
size_t ptrain_headers_len(const struct ptrain_headers *h);

/* The shortest tester frame with these headers: the compact header's over IPv4, the full one's
 * over IPv6; and the shortest with the full header (frames below it carry the compact one). */
size_t ptrain_min_size(const struct ptrain_headers *h);
size_t ptrain_min_full(const struct ptrain_headers *h);

/* A frame under construction: where its parts are, and the checksum of its constant part. */
struct ptrain_tx {
    size_t size, l3, l4, hdr;   /* frame length; offsets of IP, UDP, tester header */
    uint32_t base_sum;          /* ones'-complement sum of pseudo header + UDP header (checksum 0) */
    int compact;                /* the frame carries the compact header */
};

/*
 * Write the outer headers of a frame of `size` bytes (without FCS) into frame[0 .. size-1], the
 * rest zero. Returns 0, or -1 when size is outside ptrain_min_size() .. 65535 or a header
 * field is out of range.
 */
int ptrain_build_init(uint8_t *frame, size_t size, const struct ptrain_headers *h,
                      struct ptrain_tx *tx);

/*
 * The generator's part: the tester header with the time fields and csum_adj at zero, and the
 * UDP checksum over it (compact: the header with tx_time at zero, the index in the IPv4
 * identification with the header checksum, UDP checksum 0; train and train_len are not
 * carried). Returns -1 (frame unchanged) when index >= train_len or flags > 15, or, compact,
 * index >= PTRAIN_COMPACT_TRAIN_MAX.
 */
int ptrain_build_fields(uint8_t *frame, const struct ptrain_tx *tx, uint32_t seq, uint32_t train,
                        uint32_t index, uint32_t train_len, uint8_t stream, unsigned flags);

/*
 * The TX MAC's part, at the moment of sending: tv_sec, tv_usec and tx_time from unix_ns (ns
 * since the Unix epoch; tx_time = unix_ns << 16 modulo 2^64) and csum_adj, so the UDP checksum
 * stays valid (compact: tx_time alone). Returns the tx_time written.
 */
uint64_t ptrain_build_stamp(uint8_t *frame, const struct ptrain_tx *tx, uint64_t unix_ns);

/* big-endian access */
static inline uint16_t ptrain_rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t ptrain_rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline uint64_t ptrain_rd64(const uint8_t *p)
{
    return ((uint64_t)ptrain_rd32(p) << 32) | ptrain_rd32(p + 4);
}
static inline void ptrain_wr16(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void ptrain_wr32(uint8_t *p, uint32_t v)
{
    ptrain_wr16(p, v >> 16);
    ptrain_wr16(p + 2, v & 0xFFFF);
}
static inline void ptrain_wr64(uint8_t *p, uint64_t v)
{
    ptrain_wr32(p, (uint32_t)(v >> 32));
    ptrain_wr32(p + 4, (uint32_t)v);
}

#endif
