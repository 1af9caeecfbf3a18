/*
 * ptrain: generated from ptrain/rtl/ptrain.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: ptrain/docs/formats/ptrain.md
 */
#ifndef FASTPATH_FMT_PTRAIN_H
#define FASTPATH_FMT_PTRAIN_H

#define PTRAIN_ETH_LEN 14  /* bytes in layout eth */
#define PTRAIN_ETH_DST_OFF 0  /* Destination MAC address. */
#define PTRAIN_ETH_DST_LEN 6
#define PTRAIN_ETH_SRC_OFF 6  /* Source MAC address. */
#define PTRAIN_ETH_SRC_LEN 6
#define PTRAIN_ETH_ETHERTYPE_OFF 12  /* ETHERTYPE_IPV4 or ETHERTYPE_IPV6. */
#define PTRAIN_ETH_ETHERTYPE_LEN 2
#define PTRAIN_ETH_VLAN_LEN 18  /* bytes in layout eth_vlan */
#define PTRAIN_ETH_VLAN_DST_OFF 0  /* Destination MAC address. */
#define PTRAIN_ETH_VLAN_DST_LEN 6
#define PTRAIN_ETH_VLAN_SRC_OFF 6  /* Source MAC address. */
#define PTRAIN_ETH_VLAN_SRC_LEN 6
#define PTRAIN_ETH_VLAN_TPID_OFF 12  /* ETHERTYPE_VLAN. */
#define PTRAIN_ETH_VLAN_TPID_LEN 2
#define PTRAIN_ETH_VLAN_TCI_OFF 14  /* Priority (3 bits), DEI, VLAN ID (12 bits). */
#define PTRAIN_ETH_VLAN_TCI_LEN 2
#define PTRAIN_ETH_VLAN_ETHERTYPE_OFF 16  /* ETHERTYPE_IPV4 or ETHERTYPE_IPV6. */
#define PTRAIN_ETH_VLAN_ETHERTYPE_LEN 2
#define PTRAIN_IPV4_LEN 20  /* bytes in layout ipv4 */
#define PTRAIN_IPV4_VER_IHL_OFF 0  /* 0x45. */
#define PTRAIN_IPV4_VER_IHL_LEN 1
#define PTRAIN_IPV4_TOS_OFF 1  /* DSCP and ECN. */
#define PTRAIN_IPV4_TOS_LEN 1
#define PTRAIN_IPV4_TOTAL_LEN_OFF 2  /* IP header + UDP header + UDP payload, in bytes. */
#define PTRAIN_IPV4_TOTAL_LEN_LEN 2
#define PTRAIN_IPV4_IDENT_OFF 4  /* Identification. */
#define PTRAIN_IPV4_IDENT_LEN 2
#define PTRAIN_IPV4_FRAG_OFF 6  /* Flags and fragment offset: 0 (the tester never fragments). */
#define PTRAIN_IPV4_FRAG_LEN 2
#define PTRAIN_IPV4_TTL_OFF 8  /* Time to live. */
#define PTRAIN_IPV4_TTL_LEN 1
#define PTRAIN_IPV4_PROTO_OFF 9  /* IP_PROTO_UDP. */
#define PTRAIN_IPV4_PROTO_LEN 1
#define PTRAIN_IPV4_CHECKSUM_OFF 10  /* Header checksum. */
#define PTRAIN_IPV4_CHECKSUM_LEN 2
#define PTRAIN_IPV4_SRC_OFF 12  /* Source address. */
#define PTRAIN_IPV4_SRC_LEN 4
#define PTRAIN_IPV4_DST_OFF 16  /* Destination address. */
#define PTRAIN_IPV4_DST_LEN 4
#define PTRAIN_IPV6_LEN 40  /* bytes in layout ipv6 */
#define PTRAIN_IPV6_VER_TC_FLOW_OFF 0  /* Version 6, traffic class, flow label. */
#define PTRAIN_IPV6_VER_TC_FLOW_LEN 4
#define PTRAIN_IPV6_PAYLOAD_LEN_OFF 4  /* UDP header + UDP payload, in bytes. */
#define PTRAIN_IPV6_PAYLOAD_LEN_LEN 2
#define PTRAIN_IPV6_NEXT_HEADER_OFF 6  /* IP_PROTO_UDP. */
#define PTRAIN_IPV6_NEXT_HEADER_LEN 1
#define PTRAIN_IPV6_HOP_LIMIT_OFF 7  /* Hop limit. */
#define PTRAIN_IPV6_HOP_LIMIT_LEN 1
#define PTRAIN_IPV6_SRC_OFF 8  /* Source address. */
#define PTRAIN_IPV6_SRC_LEN 16
#define PTRAIN_IPV6_DST_OFF 24  /* Destination address. */
#define PTRAIN_IPV6_DST_LEN 16
#define PTRAIN_UDP_LEN 8  /* bytes in layout udp */
#define PTRAIN_UDP_SPORT_OFF 0  /* Source port. */
#define PTRAIN_UDP_SPORT_LEN 2
#define PTRAIN_UDP_DPORT_OFF 2  /* Destination port (UDP_PORT by default, as Linux pktgen). */
#define PTRAIN_UDP_DPORT_LEN 2
#define PTRAIN_UDP_LEN_OFF 4  /* UDP header + payload, in bytes. */
#define PTRAIN_UDP_LEN_LEN 2
#define PTRAIN_UDP_CHECKSUM_OFF 6  /* UDP checksum, valid over the frame as sent (see csum_adj). */
#define PTRAIN_UDP_CHECKSUM_LEN 2
#define PTRAIN_PKTGEN_LEN 16  /* bytes in layout pktgen */
#define PTRAIN_PKTGEN_MAGIC_OFF 0  /* MAGIC (0xbe9be955). */
#define PTRAIN_PKTGEN_MAGIC_LEN 4
#define PTRAIN_PKTGEN_SEQ_OFF 4  /* Sequence number of the frame in its stream, +1 per frame, across trains; wraps. */
#define PTRAIN_PKTGEN_SEQ_LEN 4
#define PTRAIN_PKTGEN_TV_SEC_OFF 8  /* TX time, whole seconds (modulo 2^32), written at the SFD. */
#define PTRAIN_PKTGEN_TV_SEC_LEN 4
#define PTRAIN_PKTGEN_TV_USEC_OFF 12  /* TX time, microseconds within the second (0..999999), written at the SFD. */
#define PTRAIN_PKTGEN_TV_USEC_LEN 4
#define PTRAIN_TESTER_LEN 42  /* bytes in layout tester */
#define PTRAIN_TESTER_MAGIC_OFF 0  /* MAGIC (0xbe9be955). */
#define PTRAIN_TESTER_MAGIC_LEN 4
#define PTRAIN_TESTER_SEQ_OFF 4  /* Sequence number of the frame in its stream, +1 per frame, across trains; wraps. */
#define PTRAIN_TESTER_SEQ_LEN 4
#define PTRAIN_TESTER_TV_SEC_OFF 8  /* TX time, whole seconds (modulo 2^32), written at the SFD. */
#define PTRAIN_TESTER_TV_SEC_LEN 4
#define PTRAIN_TESTER_TV_USEC_OFF 12  /* TX time, microseconds within the second (0..999999), written at the SFD. */
#define PTRAIN_TESTER_TV_USEC_LEN 4
#define PTRAIN_TESTER_VER_FLAGS_OFF 16  /* Bits 7:4: VERSION; bits 3:0: flags (FLAG_TX_HW, FLAG_LAST, FLAG_SYNCED). A receiver takes a frame with another version (other than VERSION_COMPACT over IPv4, layout compact) for a foreign one. */
#define PTRAIN_TESTER_VER_FLAGS_LEN 1
#define PTRAIN_TESTER_STREAM_OFF 17  /* Stream id: one sequence space per generator (or per port of one). */
#define PTRAIN_TESTER_STREAM_LEN 1
#define PTRAIN_TESTER_FRAME_LEN_OFF 18  /* The frame's length as sent, in bytes from the destination MAC to the end of the payload, without FCS (a path that adds or removes a tag changes the length that arrives; a receiver detects truncation from the IP and UDP lengths). */
#define PTRAIN_TESTER_FRAME_LEN_LEN 2
#define PTRAIN_TESTER_TRAIN_OFF 20  /* Train number in the stream, +1 per train. */
#define PTRAIN_TESTER_TRAIN_LEN 4
#define PTRAIN_TESTER_INDEX_OFF 24  /* Position of the frame in its train, 0..train_len-1. */
#define PTRAIN_TESTER_INDEX_LEN 4
#define PTRAIN_TESTER_TRAIN_LEN_OFF 28  /* Frames in the train (at least 1). */
#define PTRAIN_TESTER_TRAIN_LEN_LEN 4
#define PTRAIN_TESTER_TX_TIME_OFF 32  /* TX time as fp_time (Q48.16 ns), taken and written when the SFD leaves the transmitter. */
#define PTRAIN_TESTER_TX_TIME_LEN 8
#define PTRAIN_TESTER_CSUM_ADJ_OFF 40  /* Written with tx_time: keeps the UDP checksum valid (ones' complement of the ones'-complement sum of tv_sec, tv_usec and tx_time as 16-bit words). */
#define PTRAIN_TESTER_CSUM_ADJ_LEN 2
#define PTRAIN_COMPACT_LEN 18  /* bytes in layout compact */
#define PTRAIN_COMPACT_MAGIC_OFF 0  /* MAGIC (0xbe9be955), as the pktgen header. */
#define PTRAIN_COMPACT_MAGIC_LEN 4
#define PTRAIN_COMPACT_SEQ_OFF 4  /* Sequence number, as in the tester header. */
#define PTRAIN_COMPACT_SEQ_LEN 4
#define PTRAIN_COMPACT_TX_TIME_OFF 8  /* TX time as fp_time (Q48.16 ns), written by the TX MAC's plain stamp (s_axis_ts_mode = 0, offset magic + 8) at the SFD. Where pktgen has tv_sec and tv_usec. */
#define PTRAIN_COMPACT_TX_TIME_LEN 8
#define PTRAIN_COMPACT_VER_FLAGS_OFF 16  /* Bits 7:4: VERSION_COMPACT; bits 3:0: the tester header's flags (FLAG_TX_HW, FLAG_LAST, FLAG_SYNCED). */
#define PTRAIN_COMPACT_VER_FLAGS_LEN 1
#define PTRAIN_COMPACT_STREAM_OFF 17  /* Stream id, as in the tester header. */
#define PTRAIN_COMPACT_STREAM_LEN 1
#define PTRAIN_MAGIC 0xbe9be955  /* Linux pktgen's PKTGEN_MAGIC, the first 4 bytes of the UDP payload. */
#define PTRAIN_VERSION 0x1  /* Tester header version, in ver_flags[7:4]. */
#define PTRAIN_VERSION_COMPACT 0x2  /* Compact header version, in ver_flags[7:4] (layout compact). */
#define PTRAIN_FLAG_TX_HW 0x1  /* ver_flags bit 0: tx_time was taken by hardware at the SFD (0: by software, e.g. the software model). */
#define PTRAIN_FLAG_LAST 0x2  /* ver_flags bit 1: the last frame of its train. */
#define PTRAIN_FLAG_SYNCED 0x4  /* ver_flags bit 2: the transmitter's clock was locked to its PPS reference when the frame left. */
#define PTRAIN_ETHERTYPE_IPV4 0x800  /* Ethertype of IPv4. */
#define PTRAIN_ETHERTYPE_IPV6 0x86dd  /* Ethertype of IPv6. */
#define PTRAIN_ETHERTYPE_VLAN 0x8100  /* TPID of an 802.1Q tag. */
#define PTRAIN_IP_PROTO_UDP 0x11  /* IP protocol / next header of UDP. */
#define PTRAIN_UDP_PORT 0x9  /* Default UDP destination port (Linux pktgen's default, discard). */
#define PTRAIN_MIN_FRAME_IPV4 0x54  /* Shortest tester frame over IPv4 without a tag, without FCS: 14 + 20 + 8 + 42. */
#define PTRAIN_MIN_FRAME_IPV6 0x68  /* Shortest tester frame over IPv6 without a tag, without FCS: 14 + 40 + 8 + 42. */
#define PTRAIN_MIN_FRAME_COMPACT 0x3c  /* Shortest frame with the compact header (IPv4, no tag), without FCS: 14 + 20 + 8 + 18; the compact header is used from here up to MIN_FRAME_IPV4 - 1 (4 more each with a tag). */
#define PTRAIN_COMPACT_TRAIN_MAX 0x10000  /* Most frames in a train of compact frames (the index is the 16-bit IPv4 identification). */
#define PTRAIN_WIRE_OVERHEAD 0x18  /* Bytes a frame occupies on the wire beyond its length without FCS: FCS 4, preamble and SFD 8, minimum inter-frame gap 12. */

#endif /* FASTPATH_FMT_PTRAIN_H */
