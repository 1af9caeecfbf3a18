/*
 * ptrain_parse: is a received frame a tester frame, and what does it say (ptrain_frame.h).
 *
 * The rules are fastpath.ptrain.frame.parse()'s, in the same order, so the C receiver and the
 * Python analyser count every frame alike (ptrain/tests/test_ptrain_baseline.py runs both over
 * the same frames):
 *   foreign   not Ethernet [up to two 802.1Q / 802.1ad tags] / IPv4 (IHL >= 5) or IPv6 / UDP, a
 *             later IPv4 fragment, no pktgen magic (or cut before it), another header version
 *             (a Linux pktgen frame; the compact version over IPv6), or cut before the
 *             version byte while the UDP length is below a tester header (a short Linux
 *             pktgen frame)
 *   fragment  the first fragment of a fragmented tester frame
 *   truncated cut before the tester header's end, or shorter on the wire than its IP/UDP lengths
 *   bad_length UDP length unlike the IP length, or shorter than UDP + tester header
 *   bad_checksum the UDP checksum is wrong (checked when the whole datagram was captured and the
 *             checksum is not 0)
 *   bad_fields index >= train_len, or train_len 0
 *   time_mismatch the pktgen seconds/microseconds are not tx_time truncated to the microsecond
 * The parser reads only the caplen bytes it is given and never writes.
 */
#include "ptrain_frame.h"

#define ETH_TPID_QINQ 0x88A8u
#define SPAN_NS_MASK ((UINT64_C(1) << 48) - 1)

static const char *const names[PTRAIN_VERDICT_COUNT] = {
    "ok", "foreign", "truncated", "bad_length", "bad_checksum", "bad_fields", "time_mismatch",
    "fragment",
};

const char *ptrain_verdict_name(enum ptrain_verdict v)
{
    return (unsigned)v < PTRAIN_VERDICT_COUNT ? names[v] : "?";
}

uint16_t ptrain_ones_sum(const uint8_t *p, size_t n, uint32_t start)
{
    uint64_t s = start;
    size_t i;
    for (i = 0; i + 1 < n; i += 2)
        s += ptrain_rd16(p + i);
    if (n & 1)
        s += (uint32_t)p[n - 1] << 8;
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)s;
}

int ptrain_time_consistent(uint64_t tx_time, uint32_t tv_sec, uint32_t tv_usec)
{
    uint64_t coarse;
    if (tv_usec >= 1000000u)
        return 0;
    coarse = (uint64_t)tv_sec * 1000000000u + (uint64_t)tv_usec * 1000u;  /* < 2^63 */
    return (((tx_time >> 16) - coarse) & SPAN_NS_MASK) < 1000u;
}

enum ptrain_verdict ptrain_parse(const uint8_t *d, size_t n, size_t wire_len,
                                 struct ptrain_frame *out)
{
    size_t off = PTRAIN_ETH_ETHERTYPE_OFF, l3, l4, p, size;
    unsigned etype, udp_len;
    long ip_len;
    int vlan = -1, ipv6, fragment = 0, t, compact;
    unsigned version, hlen;
    const uint8_t *h;
    uint32_t train_len, index, tv_sec, tv_usec;
    uint64_t tx_time;

    if (n < PTRAIN_ETH_LEN)
        return PTRAIN_FOREIGN;
    etype = ptrain_rd16(d + off);
    for (t = 0; t < 2; t++) {
        if (etype != PTRAIN_ETHERTYPE_VLAN && etype != ETH_TPID_QINQ)
            break;
        if (n < off + PTRAIN_TAG_LEN + PTRAIN_ETH_ETHERTYPE_LEN)
            return PTRAIN_FOREIGN;
        if (vlan < 0)
            vlan = ptrain_rd16(d + off + PTRAIN_ETH_VLAN_TCI_OFF - PTRAIN_ETH_VLAN_TPID_OFF) & 0xFFF;
        off += PTRAIN_TAG_LEN;
        etype = ptrain_rd16(d + off);
    }
    l3 = off + PTRAIN_ETH_ETHERTYPE_LEN;
    if (etype == PTRAIN_ETHERTYPE_IPV4) {
        unsigned ihl, frag;
        if (n < l3 + PTRAIN_IPV4_LEN || d[l3] >> 4 != 4 || (d[l3] & 0xF) < 5 ||
            d[l3 + PTRAIN_IPV4_PROTO_OFF] != PTRAIN_IP_PROTO_UDP)
            return PTRAIN_FOREIGN;
        frag = ptrain_rd16(d + l3 + PTRAIN_IPV4_FRAG_OFF);
        if (frag & 0x1FFF)  /* a later fragment: no UDP header */
            return PTRAIN_FOREIGN;
        fragment = (frag & 0x2000) != 0;
        ihl = (d[l3] & 0xFu) * 4;
        l4 = l3 + ihl;
        ip_len = (long)ptrain_rd16(d + l3 + PTRAIN_IPV4_TOTAL_LEN_OFF) - (long)ihl;
        ipv6 = 0;
    } else if (etype == PTRAIN_ETHERTYPE_IPV6) {
        if (n < l3 + PTRAIN_IPV6_LEN || d[l3] >> 4 != 6 ||
            d[l3 + PTRAIN_IPV6_NEXT_HEADER_OFF] != PTRAIN_IP_PROTO_UDP)
            return PTRAIN_FOREIGN;
        l4 = l3 + PTRAIN_IPV6_LEN;
        ip_len = ptrain_rd16(d + l3 + PTRAIN_IPV6_PAYLOAD_LEN_OFF);
        ipv6 = 1;
    } else {
        return PTRAIN_FOREIGN;
    }
    p = l4 + PTRAIN_UDP_LEN;
    if (n < p + PTRAIN_PKTGEN_MAGIC_LEN || ptrain_rd32(d + p + PTRAIN_TESTER_MAGIC_OFF) != PTRAIN_MAGIC)
        return PTRAIN_FOREIGN;
    udp_len = ptrain_rd16(d + l4 + PTRAIN_UDP_LEN_OFF);
    if (n < p + PTRAIN_TESTER_VER_FLAGS_OFF + 1) {  /* the version byte is not in the capture */
        if ((long)udp_len - PTRAIN_UDP_LEN >= PTRAIN_TESTER_LEN)
            return PTRAIN_TRUNCATED;
        return PTRAIN_FOREIGN;                       /* a short Linux pktgen frame */
    }
    h = d + p;
    version = h[PTRAIN_TESTER_VER_FLAGS_OFF] >> 4;
    compact = version == PTRAIN_VERSION_COMPACT && !ipv6;
    if (version != PTRAIN_VERSION && !compact)
        return PTRAIN_FOREIGN;
    if (fragment)
        return PTRAIN_FRAGMENT;
    hlen = compact ? PTRAIN_COMPACT_LEN : PTRAIN_TESTER_LEN;
    if (n < p + hlen)
        return PTRAIN_TRUNCATED;
    if ((long)udp_len != ip_len || udp_len < PTRAIN_UDP_LEN + hlen)
        return PTRAIN_BAD_LENGTH;
    size = l4 + udp_len;
    if (wire_len < size)
        return PTRAIN_TRUNCATED;
    if (n >= size && ptrain_rd16(d + l4 + PTRAIN_UDP_CHECKSUM_OFF)) {
        uint32_t pseudo;
        uint16_t s;
        if (ipv6)
            pseudo = ptrain_ones_sum(d + l3 + PTRAIN_IPV6_SRC_OFF, PTRAIN_IPV6_ADDRS_LEN, 0);
        else
            pseudo = ptrain_ones_sum(d + l3 + PTRAIN_IPV4_SRC_OFF, PTRAIN_IPV4_ADDRS_LEN, 0);
        pseudo += PTRAIN_IP_PROTO_UDP + udp_len;
        s = ptrain_ones_sum(d + l4, udp_len, pseudo);
        if (s != 0 && s != 0xFFFF)  /* zero modulo 0xFFFF: valid */
            return PTRAIN_BAD_CHECKSUM;
    }
    if (compact) {
        if (out) {
            index = ptrain_rd16(d + l3 + PTRAIN_IPV4_IDENT_OFF);
            out->seq = ptrain_rd32(h + PTRAIN_COMPACT_SEQ_OFF);
            out->tv_sec = 0;
            out->tv_usec = 0;
            out->train = out->seq - index;
            out->index = index;
            out->train_len = 0;
            out->tx_time = ptrain_rd64(h + PTRAIN_COMPACT_TX_TIME_OFF);
            out->flags = h[PTRAIN_COMPACT_VER_FLAGS_OFF] & 0xF;
            out->stream = h[PTRAIN_COMPACT_STREAM_OFF];
            out->frame_len = (uint16_t)size;
            out->size = (uint32_t)size;
            out->ipv6 = 0;
            out->vlan = vlan;
            out->compact = 1;
        }
        return PTRAIN_OK;
    }
    train_len = ptrain_rd32(h + PTRAIN_TESTER_TRAIN_LEN_OFF);
    index = ptrain_rd32(h + PTRAIN_TESTER_INDEX_OFF);
    if (train_len < 1 || index >= train_len)
        return PTRAIN_BAD_FIELDS;
    tx_time = ptrain_rd64(h + PTRAIN_TESTER_TX_TIME_OFF);
    tv_sec = ptrain_rd32(h + PTRAIN_TESTER_TV_SEC_OFF);
    tv_usec = ptrain_rd32(h + PTRAIN_TESTER_TV_USEC_OFF);
    if (!ptrain_time_consistent(tx_time, tv_sec, tv_usec))
        return PTRAIN_TIME_MISMATCH;
    if (out) {
        out->seq = ptrain_rd32(h + PTRAIN_TESTER_SEQ_OFF);
        out->tv_sec = tv_sec;
        out->tv_usec = tv_usec;
        out->train = ptrain_rd32(h + PTRAIN_TESTER_TRAIN_OFF);
        out->index = index;
        out->train_len = train_len;
        out->tx_time = tx_time;
        out->flags = h[PTRAIN_TESTER_VER_FLAGS_OFF] & 0xF;
        out->stream = h[PTRAIN_TESTER_STREAM_OFF];
        out->frame_len = ptrain_rd16(h + PTRAIN_TESTER_FRAME_LEN_OFF);
        out->size = (uint32_t)size;
        out->ipv6 = ipv6;
        out->vlan = vlan;
        out->compact = 0;
    }
    return PTRAIN_OK;
}
