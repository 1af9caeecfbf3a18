/*
 * noc_header: generated from node/rtl/noc_header.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: node/docs/formats/noc_header.md
 */
#ifndef FASTPATH_FMT_NOC_HEADER_H
#define FASTPATH_FMT_NOC_HEADER_H

#define NOC_W 90  /* total width in bits */
#define NOC_BAD_LSB 0
#define NOC_BAD_W 1
#define NOC_FIRST_LSB 1
#define NOC_FIRST_W 1
#define NOC_LAST_LSB 2
#define NOC_LAST_W 1
#define NOC_BYTES_LSB 3
#define NOC_BYTES_W 7
#define NOC_SEG_IDX_LSB 10
#define NOC_SEG_IDX_W 6
#define NOC_SRC_PORT_LSB 16
#define NOC_SRC_PORT_W 5
#define NOC_TS_LSB 21
#define NOC_TS_W 24
#define NOC_TRUNC_LSB 45
#define NOC_TRUNC_W 1
#define NOC_TAGGED_LSB 46
#define NOC_TAGGED_W 1
#define NOC_VID_LSB 47
#define NOC_VID_W 12
#define NOC_PCP_LSB 59
#define NOC_PCP_W 3
#define NOC_PRIO_LSB 62
#define NOC_PRIO_W 1
#define NOC_DST_LSB 63
#define NOC_DST_W 16
#define NOC_TO_HOST_LSB 79
#define NOC_TO_HOST_W 1
#define NOC_DISCARD_LSB 80
#define NOC_DISCARD_W 1
#define NOC_REASON_LSB 81
#define NOC_REASON_W 4
#define NOC_OUT_PORT_LSB 85
#define NOC_OUT_PORT_W 5
#define NOC_MAX_PORTS 0x10  /* Ports a node may have (width of `dst`). */
#define NOC_REASON_NONE 0x0  /* Not dropped. */
#define NOC_REASON_BAD_FRAME 0x1  /* Failed a MAC check (bad FCS, PHY error, runt): dropped when it fits in one segment; a longer one, already on its way, leaves with a stomped FCS. Counted either way. */
#define NOC_REASON_OVERSIZE 0x2  /* Longer than the maximum frame length. */
#define NOC_REASON_RX_OVERFLOW 0x3  /* The input port's RXF was full (the datapath could not take the segment). */
#define NOC_REASON_PORT_DISABLED 0x4  /* Input or output port disabled. */
#define NOC_REASON_VLAN 0x5  /* VLAN ingress filter: tagged on an access port, or the input port is not a member of the VLAN. */
#define NOC_REASON_NO_DEST 0x6  /* No output left: destination is the input port itself, or the VLAN has no other member. */
#define NOC_REASON_RESERVED_MAC 0x7  /* Link-local destination 01:80:C2:00:00:0x (pause, STP, LLDP...), never forwarded (to the host if so configured). */
#define NOC_REASON_BUFFER_FULL 0x8  /* BM admission: free segments below the reserve. */
#define NOC_REASON_QUEUE_FULL 0x9  /* QM tail drop: the output queue is at its threshold. */
#define NOC_REASON_PORT_THRESHOLD 0xa  /* BM: the input port holds its share of the buffer. */
#define NOC_REASON_UNDERRUN 0xe  /* Counter index only (never in a header): a TX FIFO ran dry in a frame (the MAC stomped it). */
#define NOC_REASON_INTERNAL 0xf  /* Counter index only: a segment no output of its TX datapath could take (must stay 0). */

#define NOC_BAD_MASK 0x1ull
#define NOC_FIRST_MASK 0x1ull
#define NOC_LAST_MASK 0x1ull
#define NOC_BYTES_MASK 0x7full
#define NOC_SEG_IDX_MASK 0x3full
#define NOC_SRC_PORT_MASK 0x1full
#define NOC_TS_MASK 0xffffffull
#define NOC_TRUNC_MASK 0x1ull
#define NOC_TAGGED_MASK 0x1ull
#define NOC_VID_MASK 0xfffull
#define NOC_PCP_MASK 0x7ull
#define NOC_PRIO_MASK 0x1ull
#define NOC_DST_MASK 0xffffull
#define NOC_TO_HOST_MASK 0x1ull
#define NOC_DISCARD_MASK 0x1ull
#define NOC_REASON_MASK 0xfull
#define NOC_OUT_PORT_MASK 0x1full

#endif /* FASTPATH_FMT_NOC_HEADER_H */
