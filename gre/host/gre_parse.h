/*
 * gre_parse: the GRE decapsulation decision, as a pure function on a byte buffer.
 *
 * The software twin of the RTL decapsulator (gre/rtl/): same input, same decisions, same output
 * bytes. No I/O, no allocation, no global state; safe on any buffer and any length.
 *
 * Input: one Ethernet frame from the destination MAC to the end of the payload, without FCS
 * (what a MAC's client stream, AF_PACKET and AF_XDP carry).
 *
 *   Ethernet (14) [+ up to two 802.1Q (0x8100) / 802.1ad (0x88A8) tags, 4 bytes each]
 *   / outer IPv4 (any IHL, 20..60 bytes) or IPv6 (40 bytes, next header must be 47 directly)
 *   / GRE version 0, any of the C, K, S flags (4, 8, 12 or 16 bytes)
 *   / inner packet
 *
 * Output, by GRE protocol type:
 *   0x6558 (transparent Ethernet bridging): the inner Ethernet frame, unchanged.
 *   0x0800 / 0x86DD: the outer destination and source MACs and the outer tags, then the GRE
 *                    protocol type as the Ethertype, then the inner packet.
 *   anything else and every frame below that is not a well-formed GRE v0 tunnel packet: the
 *                    frame, unchanged (a "pass" verdict).
 *
 * A frame is decapsulated only if every check below holds; the first failing check, in this
 * order, names its verdict:
 *   1. 14 bytes of Ethernet header, 4 more per tag (at most two tags)   else GRE_PASS_SHORT
 *   2. Ethertype after the tags is 0x0800 or 0x86DD                      else GRE_PASS_NOT_IP
 *      (a third tag is "not IP")
 *   3. the fixed IP header fits in the frame (20 / 40 bytes)             else GRE_PASS_SHORT
 *   4. IP version matches the Ethertype; IPv4 IHL >= 5                   else GRE_PASS_BAD_IP
 *   5. IPv4: the IHL * 4 header bytes fit in the frame                   else GRE_PASS_SHORT
 *   6. IPv4: header checksum is correct                                  else GRE_PASS_CSUM
 *   7. IP length agrees with the frame: the IP packet ends exactly at    else GRE_PASS_LENGTH
 *      the end of the frame, or inside Ethernet padding: a frame of at
 *      most 60 bytes + 4 per tag may be longer than its IP packet.
 *      IPv4 total length must also cover its own header.
 *   8. IPv4: not a fragment (MF = 0 and fragment offset = 0)             else GRE_PASS_FRAGMENT
 *   9. IPv4 protocol / IPv6 next header is 47                            else GRE_PASS_NOT_GRE
 *  10. the 4-byte GRE base header fits in the IP packet                  else GRE_PASS_SHORT
 *  11. GRE version (bits 2..0) is 0                                      else GRE_PASS_GRE_VERSION
 *  12. routing bit R and reserved bits (s, recursion, flags) are 0      else GRE_PASS_GRE_FLAGS
 *  13. the optional fields (4 bytes each for C, K, S) fit               else GRE_PASS_SHORT
 *  14. protocol type is 0x6558, 0x0800 or 0x86DD                        else GRE_PASS_GRE_PROTO
 *  15. the inner frame has at least 14 bytes (0x6558) / the inner       else GRE_PASS_SHORT
 *      packet at least 1 byte (0x0800, 0x86DD)
 * All bounds are within the IP packet: padding after it is never part of the output.
 * These are the decisions of gre/rtl/fp_gre_decap.v (fastpath.gre.model) with its tunnel filter
 * accepting every endpoint, with one difference the hardware cannot avoid: the RTL decides before
 * it has seen the whole frame, so a GRE frame whose length disagrees with its IP length leaves
 * decapsulated but marked bad (and is then dropped); here it passes unchanged.
 * The GRE checksum (C flag) is carried, not verified; key and sequence number are reported.
 */
#ifndef FASTPATH_GRE_PARSE_H
#define FASTPATH_GRE_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "fastpath/fmt/gre_verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The verdicts are the parse_* codes of gre/rtl/gre_verdict.fmt.toml (described once for the RTL,
 * Python and C: fastpath/fmt/gre_verdict.h, gre/docs/formats/gre_verdict.md), 0..COUNT-1, under
 * the API's names. The header also defines the RTL's codes (GRE_VERDICT_DECAP_*: fp_gre_decap's
 * stat_reason, GRE_VERDICT_ENCAP_*: fp_gre_encap's). */
enum gre_verdict {
    GRE_DECAP_ETH        = GRE_VERDICT_PARSE_DECAP_ETH,        /* 0x6558: the inner Ethernet frame */
    GRE_DECAP_IPV4       = GRE_VERDICT_PARSE_DECAP_IPV4,       /* 0x0800: outer L2 + inner IPv4 */
    GRE_DECAP_IPV6       = GRE_VERDICT_PARSE_DECAP_IPV6,       /* 0x86DD: outer L2 + inner IPv6 */
    GRE_PASS_SHORT       = GRE_VERDICT_PARSE_PASS_SHORT,       /* too short for a header */
    GRE_PASS_NOT_IP      = GRE_VERDICT_PARSE_PASS_NOT_IP,      /* Ethertype not IPv4 / IPv6 */
    GRE_PASS_BAD_IP      = GRE_VERDICT_PARSE_PASS_BAD_IP,      /* IP version wrong, IHL < 5 */
    GRE_PASS_CSUM        = GRE_VERDICT_PARSE_PASS_CSUM,        /* IPv4 header checksum wrong */
    GRE_PASS_LENGTH      = GRE_VERDICT_PARSE_PASS_LENGTH,      /* IP length disagrees with frame */
    GRE_PASS_FRAGMENT    = GRE_VERDICT_PARSE_PASS_FRAGMENT,    /* IPv4 fragment */
    GRE_PASS_NOT_GRE     = GRE_VERDICT_PARSE_PASS_NOT_GRE,     /* IP protocol is not 47 */
    GRE_PASS_GRE_VERSION = GRE_VERDICT_PARSE_PASS_GRE_VERSION, /* GRE version not 0 (1: PPTP) */
    GRE_PASS_GRE_FLAGS   = GRE_VERDICT_PARSE_PASS_GRE_FLAGS,   /* routing or reserved bits set */
    GRE_PASS_GRE_PROTO   = GRE_VERDICT_PARSE_PASS_GRE_PROTO,   /* protocol not 0x6558/0800/86DD */
    GRE_VERDICT_COUNT    = GRE_VERDICT_PARSE_PASS_GRE_PROTO + 1
};

/* True for the three verdicts that change the frame. */
static inline int gre_is_decap(enum gre_verdict v)
{
    return v == GRE_DECAP_ETH || v == GRE_DECAP_IPV4 || v == GRE_DECAP_IPV6;
}

#define GRE_MAX_TAGS 2
#define GRE_MIN_FRAME 60      /* Ethernet minimum without FCS (+4 per tag): may carry padding */

#define GRE_FLAG_C 0x8000u    /* checksum present */
#define GRE_FLAG_R 0x4000u    /* routing present (RFC 1701): not supported, passes */
#define GRE_FLAG_K 0x2000u    /* key present */
#define GRE_FLAG_S 0x1000u    /* sequence number present */
#define GRE_RESERVED_MASK 0x0FF8u  /* s, recursion control, flags: must be 0 */
#define GRE_VERSION_MASK 0x0007u

/* What the parser found. Offsets are from the start of the frame; fields past the point where
 * parsing stopped are 0. */
struct gre_info {
    enum gre_verdict verdict;
    uint8_t tags;           /* VLAN tags before the IP header (0..2) */
    uint8_t ip_version;     /* 4 or 6 once the IP header was reached, else 0 */
    uint16_t l2_len;        /* Ethernet header + tags, including the final Ethertype */
    uint16_t ip_len;        /* IP header length (IHL * 4, or 40) */
    uint16_t gre_len;       /* GRE header length including optional fields (4..16) */
    uint16_t gre_flags;     /* first 16 bits of the GRE header */
    uint16_t gre_proto;     /* GRE protocol type */
    uint32_t gre_key;       /* valid when gre_flags & GRE_FLAG_K */
    uint32_t gre_seq;       /* valid when gre_flags & GRE_FLAG_S */
    size_t inner_off;       /* first byte after the GRE header */
    size_t inner_len;       /* bytes of inner packet / frame (to the end of the IP packet) */
    size_t out_len;         /* length of the output frame (the input length for a pass) */
};

/* Parse a frame and decide. Never reads outside frame[0, len). Returns info->verdict. */
enum gre_verdict gre_parse(const uint8_t *frame, size_t len, struct gre_info *info);

/* Parse and write the output frame (decapsulated, or the input unchanged for a pass) to out,
 * which must hold out_cap >= len bytes (the output is never longer than the input); out may not
 * overlap frame. Returns the output length, or 0 if out_cap < len (nothing written). */
size_t gre_decap(const uint8_t *frame, size_t len, uint8_t *out, size_t out_cap,
                 struct gre_info *info);

/* Decapsulate in place. The output frame is buf[*out_off, *out_off + return value): a slice of
 * the input for 0x6558 and for a pass, and for 0x0800 / 0x86DD the L2 header moved up to meet
 * the inner packet (bytes before *out_off are clobbered). Returns the output length. */
size_t gre_decap_inplace(uint8_t *buf, size_t len, size_t *out_off, struct gre_info *info);

/* A short stable name for a verdict ("decap_eth", "pass_csum", ...); "?" if out of range. */
const char *gre_verdict_name(enum gre_verdict v);

/* The ones'-complement Internet checksum of len bytes (RFC 1071), as stored in a header. */
uint16_t gre_inet_csum(const uint8_t *p, size_t len);

#ifdef __cplusplus
}
#endif

#endif
