/*
 * mpls_edit: the SR-MPLS label push of the P4 system's software baseline, as a pure function on
 * a byte buffer (no I/O, no allocation, no global state).
 *
 * Input: one Ethernet frame without FCS, as on the wire: destination and source MAC, up to
 * MPLS_MAX_TAGS VLAN tags (TPID 0x8100, 0x88A8 or 0x9100), then Ethertype 0x0800 (IPv4) or 0x86DD
 * (IPv6) and the IP packet (Ethernet padding may follow it).
 * Output: the same MAC addresses and VLAN tags, Ethertype 0x8847 (MPLS unicast), the configured
 * label stack (outermost label first, the S bit set on the last one only), then the IP packet
 * and whatever followed it in the frame, unchanged:
 *
 *   in:  DMAC SMAC [TAG...] 0x0800|0x86DD  IP packet [padding]
 *   out: DMAC SMAC [TAG...] 0x8847  LSE_0 ... LSE_n-1(S=1)  IP packet [padding]
 *
 * Each label stack entry is label(20) | TC(3) | S(1) | TTL(8), big-endian (RFC 3032).
 * TTL is chosen as Linux's MPLS light-weight tunnel (net/mpls/mpls_iptunnel.c, `ip route ...
 * encap mpls L1/L2/...`) chooses it with its defaults: every pushed entry carries the IPv4 TTL /
 * IPv6 hop limit of the packet as it is (net.mpls.ip_ttl_propagate = 1), unless a constant TTL
 * is configured (the route's `ttl N`, N != 0: every entry gets N); the IP header itself is not
 * changed. Linux always pushes TC 0; here each label may have its own TC (default 0).
 *
 * Checks, in this order; the first that fails is the verdict and the frame is dropped:
 *  1. 14 bytes of Ethernet header, 4 more per VLAN tag (at most MPLS_MAX_TAGS)  else TRUNCATED
 *  2. the Ethertype after the tags is 0x0800 or 0x86DD (MPLS, ARP, a 4th tag...) else NOT_IP
 *  3. the fixed IP header (20 / 40 bytes) is in the frame                         else TRUNCATED
 *  4. IP version matches the Ethertype; IPv4: IHL >= 5, total length >= IHL * 4   else BAD_IP
 *  5. the IP packet (IPv4 total length, IPv6 40 + payload length) is in the frame else TRUNCATED
 *  6. with an MTU set: labels + everything after the Ethertype (the IP packet and any padding,
 *     what the wire carries after the L2 header) fit in the MTU, as Linux's check
 *     "IP packet + new labels <= MTU of the output device"                        else TOO_BIG
 * With no labels configured (n = 0) the frame is forwarded unchanged without any check
 * (MPLS_FORWARDED): the plain forwarding reference of the benchmark.
 *
 * The edit reads at most MPLS_PARSE_MAX bytes of the frame and writes a new header of at most
 * MPLS_HDR_MAX bytes that replaces the frame's first `cut` bytes: a forwarder can send the new
 * header and the untouched rest of the received frame as two pieces (no copy of the payload).
 */
#ifndef FASTPATH_MPLS_EDIT_H
#define FASTPATH_MPLS_EDIT_H

#include <stddef.h>
#include <stdint.h>

#define MPLS_MAX_LABELS 16u
#define MPLS_MAX_TAGS 3u
#define MPLS_ETH_P_MPLS 0x8847u
#define MPLS_LABEL_MAX 0xFFFFFu
#define MPLS_LABEL_IMPLNULL 3u   /* never on the wire: refused in a stack, as Linux does */
/* bytes of the frame the edit may read: MACs, tags, Ethertype, a fixed IPv6 header */
#define MPLS_PARSE_MAX (12u + 4u * MPLS_MAX_TAGS + 2u + 40u)
/* the longest new header: MACs, tags, Ethertype, the label stack */
#define MPLS_HDR_MAX (12u + 4u * MPLS_MAX_TAGS + 2u + 4u * MPLS_MAX_LABELS)

enum mpls_verdict {
    MPLS_PUSHED = 0,        /* labels pushed */
    MPLS_FORWARDED,         /* no labels configured: the frame as it came */
    MPLS_DROP_TRUNCATED,    /* shorter than its L2 header, IP header or IP packet */
    MPLS_DROP_NOT_IP,       /* Ethertype after the tags is not IPv4 / IPv6 */
    MPLS_DROP_BAD_IP,       /* IP version / IHL / total length inconsistent */
    MPLS_DROP_TOO_BIG,      /* would exceed the MTU after the push */
    MPLS_VERDICT_COUNT
};

struct mpls_label_cfg {
    uint32_t label;  /* 0..0xFFFFF, not 3 */
    uint8_t tc;      /* 0..7 */
};

struct mpls_cfg {
    unsigned n;                                     /* labels to push (0: plain forwarding) */
    struct mpls_label_cfg label[MPLS_MAX_LABELS];   /* outermost (top of stack) first */
    uint8_t ttl;      /* 0: copy the IP TTL / hop limit (Linux's default); else this constant */
    uint32_t mtu;     /* limit on what follows the L2 header after the push; 0: none */
};

/* One label stack entry as a host-order 32-bit value (write it big-endian). */
uint32_t mpls_lse(uint32_t label, unsigned tc, int bos, unsigned ttl);

/* Parse a label list "L[/TC][,L[/TC]...]" (outermost first; "none" or "" for no labels) into
 * cfg->n and cfg->label (ttl and mtu untouched). Returns 0, or -1 with a message in err. */
int mpls_cfg_parse_labels(struct mpls_cfg *cfg, const char *spec, char *err, size_t errlen);

/* The edit. `head` holds the frame's first head_len bytes, frame_len is the whole frame's length
 * (head_len >= frame_len, or head_len >= MPLS_PARSE_MAX: the edit reads nothing beyond).
 * On MPLS_PUSHED / MPLS_FORWARDED the output frame is hdr[0, *hdr_len) followed by the input
 * frame from byte *cut on; its length is *hdr_len + frame_len - *cut. hdr has room for
 * MPLS_HDR_MAX bytes. On a drop *hdr_len = *cut = 0. */
enum mpls_verdict mpls_push_header(const struct mpls_cfg *cfg, const uint8_t *head, size_t head_len,
                                   size_t frame_len, uint8_t *hdr, size_t *hdr_len, size_t *cut);

/* The same as one copy: writes the output frame into out (capacity cap) and returns its length;
 * 0 when the frame is dropped (see *verdict), or when out is too small (the verdict is then
 * MPLS_PUSHED / MPLS_FORWARDED). */
size_t mpls_push(const struct mpls_cfg *cfg, const uint8_t *in, size_t len, uint8_t *out,
                 size_t cap, enum mpls_verdict *verdict);

/* "pushed", "forwarded", "truncated", "not_ip", "bad_ip", "too_big"; "?" out of range. */
const char *mpls_verdict_name(enum mpls_verdict v);

#endif
