/*
 * ptrain_build: tester frames byte for byte as fastpath.ptrain.frame.build() makes them
 * (ptrain_frame.h). The UDP checksum is the generator's: computed with the time fields and
 * csum_adj at zero; ptrain_build_stamp() then writes the time and csum_adj, which cancels the
 * time fields in the checksum, as the tester's TX MAC does at the SFD.
 */
#include "ptrain_frame.h"

#include <string.h>

#define IPV4_IDENT 1          /* scapy's default identification, which frame.build() keeps */

void ptrain_headers_default(struct ptrain_headers *h, int ipv6)
{
    static const uint8_t v4_src[4] = {192, 0, 2, 1}, v4_dst[4] = {198, 51, 100, 1};
    static const uint8_t v6_src[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
    static const uint8_t v6_dst[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 2};
    static const uint8_t src_mac[6] = {2, 0, 0, 0, 0, 1}, dst_mac[6] = {2, 0, 0, 0, 0, 2};

    memset(h, 0, sizeof(*h));
    memcpy(h->dst_mac, dst_mac, 6);
    memcpy(h->src_mac, src_mac, 6);
    h->vlan = -1;
    h->ipv6 = ipv6;
    if (ipv6) {
        memcpy(h->src_ip, v6_src, 16);
        memcpy(h->dst_ip, v6_dst, 16);
    } else {
        memcpy(h->src_ip, v4_src, 4);
        memcpy(h->dst_ip, v4_dst, 4);
    }
    h->sport = h->dport = PTRAIN_UDP_PORT;
    h->ttl = 64;
}

size_t ptrain_headers_len(const struct ptrain_headers *h)
{
    return (size_t)(h->vlan >= 0 ? PTRAIN_ETH_VLAN_LEN : PTRAIN_ETH_LEN) +
           (h->ipv6 ? PTRAIN_IPV6_LEN : PTRAIN_IPV4_LEN) + PTRAIN_UDP_LEN;
}

size_t ptrain_min_full(const struct ptrain_headers *h)
{
    return ptrain_headers_len(h) + PTRAIN_TESTER_LEN;
}

size_t ptrain_min_size(const struct ptrain_headers *h)
{
    return ptrain_headers_len(h) + (h->ipv6 ? PTRAIN_TESTER_LEN : PTRAIN_COMPACT_LEN);
}

static uint16_t inet_csum(const uint8_t *p, size_t n)
{
    return (uint16_t)~ptrain_ones_sum(p, n, 0);
}

int ptrain_build_init(uint8_t *f, size_t size, const struct ptrain_headers *h, struct ptrain_tx *tx)
{
    size_t l2, udp_len;
    uint8_t *ip, *udp;

    if (size < ptrain_min_size(h) || size > 0xFFFF || h->vlan > 0xFFF || h->pcp > 7)
        return -1;
    memset(f, 0, size);
    memcpy(f + PTRAIN_ETH_DST_OFF, h->dst_mac, PTRAIN_ETH_DST_LEN);
    memcpy(f + PTRAIN_ETH_SRC_OFF, h->src_mac, PTRAIN_ETH_SRC_LEN);
    if (h->vlan >= 0) {
        ptrain_wr16(f + PTRAIN_ETH_VLAN_TPID_OFF, PTRAIN_ETHERTYPE_VLAN);
        ptrain_wr16(f + PTRAIN_ETH_VLAN_TCI_OFF, (h->pcp << 13) | (unsigned)h->vlan);
        l2 = PTRAIN_ETH_VLAN_LEN;
    } else {
        l2 = PTRAIN_ETH_LEN;
    }
    ptrain_wr16(f + l2 - PTRAIN_ETH_ETHERTYPE_LEN, h->ipv6 ? PTRAIN_ETHERTYPE_IPV6 : PTRAIN_ETHERTYPE_IPV4);
    ip = f + l2;
    tx->size = size;
    tx->l3 = l2;
    if (h->ipv6) {
        tx->l4 = l2 + PTRAIN_IPV6_LEN;
        udp_len = size - tx->l4;
        ip[PTRAIN_IPV6_VER_TC_FLOW_OFF] = 0x60;
        ptrain_wr16(ip + PTRAIN_IPV6_PAYLOAD_LEN_OFF, (uint32_t)udp_len);
        ip[PTRAIN_IPV6_NEXT_HEADER_OFF] = PTRAIN_IP_PROTO_UDP;
        ip[PTRAIN_IPV6_HOP_LIMIT_OFF] = h->ttl;
        memcpy(ip + PTRAIN_IPV6_SRC_OFF, h->src_ip, PTRAIN_IPV6_SRC_LEN);
        memcpy(ip + PTRAIN_IPV6_DST_OFF, h->dst_ip, PTRAIN_IPV6_DST_LEN);
        tx->base_sum = ptrain_ones_sum(ip + PTRAIN_IPV6_SRC_OFF, PTRAIN_IPV6_ADDRS_LEN, 0);
    } else {
        tx->l4 = l2 + PTRAIN_IPV4_LEN;
        udp_len = size - tx->l4;
        ip[PTRAIN_IPV4_VER_IHL_OFF] = 0x45;
        ptrain_wr16(ip + PTRAIN_IPV4_TOTAL_LEN_OFF, (uint32_t)(size - l2));
        ptrain_wr16(ip + PTRAIN_IPV4_IDENT_OFF, IPV4_IDENT);
        ip[PTRAIN_IPV4_TTL_OFF] = h->ttl;
        ip[PTRAIN_IPV4_PROTO_OFF] = PTRAIN_IP_PROTO_UDP;
        memcpy(ip + PTRAIN_IPV4_SRC_OFF, h->src_ip, PTRAIN_IPV4_SRC_LEN);
        memcpy(ip + PTRAIN_IPV4_DST_OFF, h->dst_ip, PTRAIN_IPV4_DST_LEN);
        ptrain_wr16(ip + PTRAIN_IPV4_CHECKSUM_OFF, inet_csum(ip, PTRAIN_IPV4_LEN));
        tx->base_sum = ptrain_ones_sum(ip + PTRAIN_IPV4_SRC_OFF, PTRAIN_IPV4_ADDRS_LEN, 0);
    }
    udp = f + tx->l4;
    ptrain_wr16(udp + PTRAIN_UDP_SPORT_OFF, h->sport);
    ptrain_wr16(udp + PTRAIN_UDP_DPORT_OFF, h->dport);
    ptrain_wr16(udp + PTRAIN_UDP_LEN_OFF, (uint32_t)udp_len);
    /* pseudo header (addresses, protocol, UDP length) + the UDP header with checksum 0; the
     * payload after the tester header is zero and adds nothing */
    tx->base_sum = ptrain_ones_sum(udp, PTRAIN_UDP_LEN,
                                   tx->base_sum + PTRAIN_IP_PROTO_UDP + (uint32_t)udp_len);
    tx->hdr = tx->l4 + PTRAIN_UDP_LEN;
    tx->compact = size < ptrain_min_full(h);
    return 0;
}

static int build_compact(uint8_t *f, const struct ptrain_tx *tx, uint32_t seq, uint32_t index,
                         uint8_t stream, unsigned flags)
{
    uint8_t *h = f + tx->hdr, *ip = f + tx->l3;

    if (index >= PTRAIN_COMPACT_TRAIN_MAX)
        return -1;
    ptrain_wr16(ip + PTRAIN_IPV4_IDENT_OFF, index);
    ptrain_wr16(ip + PTRAIN_IPV4_CHECKSUM_OFF, 0);
    ptrain_wr16(ip + PTRAIN_IPV4_CHECKSUM_OFF, inet_csum(ip, PTRAIN_IPV4_LEN));
    memset(h, 0, PTRAIN_COMPACT_LEN);
    ptrain_wr32(h + PTRAIN_COMPACT_MAGIC_OFF, PTRAIN_MAGIC);
    ptrain_wr32(h + PTRAIN_COMPACT_SEQ_OFF, seq);
    h[PTRAIN_COMPACT_VER_FLAGS_OFF] = (uint8_t)((PTRAIN_VERSION_COMPACT << 4) | flags);
    h[PTRAIN_COMPACT_STREAM_OFF] = stream;
    ptrain_wr16(f + tx->l4 + PTRAIN_UDP_CHECKSUM_OFF, 0);  /* no checksum (IPv4) */
    return 0;
}

int ptrain_build_fields(uint8_t *f, const struct ptrain_tx *tx, uint32_t seq, uint32_t train,
                        uint32_t index, uint32_t train_len, uint8_t stream, unsigned flags)
{
    uint8_t *h = f + tx->hdr;
    uint16_t s;

    if (index >= train_len || flags > 0xF)
        return -1;
    if (tx->compact)
        return build_compact(f, tx, seq, index, stream, flags);
    memset(h, 0, PTRAIN_TESTER_LEN);
    ptrain_wr32(h + PTRAIN_TESTER_MAGIC_OFF, PTRAIN_MAGIC);
    ptrain_wr32(h + PTRAIN_TESTER_SEQ_OFF, seq);
    h[PTRAIN_TESTER_VER_FLAGS_OFF] = (uint8_t)((PTRAIN_VERSION << 4) | flags);
    h[PTRAIN_TESTER_STREAM_OFF] = stream;
    ptrain_wr16(h + PTRAIN_TESTER_FRAME_LEN_OFF, (uint32_t)tx->size);
    ptrain_wr32(h + PTRAIN_TESTER_TRAIN_OFF, train);
    ptrain_wr32(h + PTRAIN_TESTER_INDEX_OFF, index);
    ptrain_wr32(h + PTRAIN_TESTER_TRAIN_LEN_OFF, train_len);
    s = ptrain_ones_sum(h, PTRAIN_TESTER_LEN, tx->base_sum);
    if (s == 0xFFFF)  /* frame.ones_sum() works modulo 0xFFFF: 0xFFFF is 0 */
        s = 0;
    ptrain_wr16(f + tx->l4 + PTRAIN_UDP_CHECKSUM_OFF, (uint16_t)~s);  /* never 0 */
    return 0;
}

uint64_t ptrain_build_stamp(uint8_t *f, const struct ptrain_tx *tx, uint64_t unix_ns)
{
    uint8_t *h = f + tx->hdr;
    uint64_t tx_time = unix_ns << 16;
    uint16_t s;

    if (tx->compact) {  /* the TX MAC's plain 8-byte stamp */
        ptrain_wr64(h + PTRAIN_COMPACT_TX_TIME_OFF, tx_time);
        return tx_time;
    }

    ptrain_wr32(h + PTRAIN_TESTER_TV_SEC_OFF, (uint32_t)(unix_ns / 1000000000u));
    ptrain_wr32(h + PTRAIN_TESTER_TV_USEC_OFF, (uint32_t)(unix_ns % 1000000000u / 1000u));
    ptrain_wr64(h + PTRAIN_TESTER_TX_TIME_OFF, tx_time);
    /* csum_adj: the ones' complement of the sum of tv_sec, tv_usec and tx_time (modulo 0xFFFF,
     * as frame.csum_adj()); all sit at even offsets from the UDP header */
    s = ptrain_ones_sum(h + PTRAIN_TESTER_TV_SEC_OFF, PTRAIN_TESTER_TV_SEC_LEN + PTRAIN_TESTER_TV_USEC_LEN, 0);
    s = ptrain_ones_sum(h + PTRAIN_TESTER_TX_TIME_OFF, PTRAIN_TESTER_TX_TIME_LEN, s);
    if (s == 0xFFFF)
        s = 0;
    ptrain_wr16(h + PTRAIN_TESTER_CSUM_ADJ_OFF, (uint16_t)~s);
    return tx_time;
}
