// noc_header: generated from node/rtl/noc_header.fmt.toml by `fastpath formats`. Do not edit.
// Tables: node/docs/formats/noc_header.md
`ifndef FASTPATH_FMT_NOC_HEADER_VH
`define FASTPATH_FMT_NOC_HEADER_VH
// total width in bits
`define FP_NOC_W 90
// The frame failed a MAC check (FCS, PHY error) or was truncated; meaningful on its last segment (earlier segments carry 0). TX ends such a frame with a stomped FCS.
`define FP_NOC_BAD 0:0
`define FP_NOC_BAD_LSB 0
`define FP_NOC_BAD_W 1
// First segment of a frame (it holds the Ethernet header).
`define FP_NOC_FIRST 1:1
`define FP_NOC_FIRST_LSB 1
`define FP_NOC_FIRST_W 1
// Last segment of a frame (equals tlast).
`define FP_NOC_LAST 2:2
`define FP_NOC_LAST_LSB 2
`define FP_NOC_LAST_W 1
// Valid bytes in this segment, 1..SEG_BYTES; only the last segment of a frame may have fewer than SEG_BYTES.
`define FP_NOC_BYTES 9:3
`define FP_NOC_BYTES_LSB 3
`define FP_NOC_BYTES_W 7
// Index of the segment in its frame (0 for the first), wrapping at 64; for checks and debug.
`define FP_NOC_SEG_IDX 15:10
`define FP_NOC_SEG_IDX_LSB 10
`define FP_NOC_SEG_IDX_W 6
// Input port 0..N-1; the host port of RxProcDP d is N + d.
`define FP_NOC_SRC_PORT 20:16
`define FP_NOC_SRC_PORT_LSB 16
`define FP_NOC_SRC_PORT_W 5
// RX SFD time of the frame in ns, modulo 2^24 (bits 39:16 of the fp_time timebase): the reference for cut-through release and for latency.
`define FP_NOC_TS 44:21
`define FP_NOC_TS_LSB 21
`define FP_NOC_TS_W 24
// The frame was longer than the configured maximum and was cut (also sets bad on the last segment).
`define FP_NOC_TRUNC 45:45
`define FP_NOC_TRUNC_LSB 45
`define FP_NOC_TRUNC_W 1
// The frame arrived with an 802.1Q tag (written by RxProcDP).
`define FP_NOC_TAGGED 46:46
`define FP_NOC_TAGGED_LSB 46
`define FP_NOC_TAGGED_W 1
// The frame's VLAN: from its tag, or the input port's PVID when untagged (RxProcDP).
`define FP_NOC_VID 58:47
`define FP_NOC_VID_LSB 47
`define FP_NOC_VID_W 12
// Priority code point: from the tag, or the port's default priority (RxProcDP).
`define FP_NOC_PCP 61:59
`define FP_NOC_PCP_LSB 59
`define FP_NOC_PCP_W 3
// Output queue: 1 = high (PCP >= the configured threshold), 0 = low (RxProcDP).
`define FP_NOC_PRIO 62:62
`define FP_NOC_PRIO_LSB 62
`define FP_NOC_PRIO_W 1
// Output port set, bit i = port i (RxProcDP); never contains src_port.
`define FP_NOC_DST 78:63
`define FP_NOC_DST_LSB 63
`define FP_NOC_DST_W 16
// Also (or only) deliver to the host port of this RxProcDP (RxProcDP).
`define FP_NOC_TO_HOST 79:79
`define FP_NOC_TO_HOST_LSB 79
`define FP_NOC_TO_HOST_W 1
// Drop the frame; `reason` says why (RxProcDP, or BM on admission).
`define FP_NOC_DISCARD 80:80
`define FP_NOC_DISCARD_LSB 80
`define FP_NOC_DISCARD_W 1
// Why the frame (or one of its copies) was dropped: one of the REASON_ constants.
`define FP_NOC_REASON 84:81
`define FP_NOC_REASON_LSB 81
`define FP_NOC_REASON_W 4
// Transmit side: the one output port this copy goes to (SCHED); N + d = host port of TxProcDP d.
`define FP_NOC_OUT_PORT 89:85
`define FP_NOC_OUT_PORT_LSB 85
`define FP_NOC_OUT_PORT_W 5
// Ports a node may have (width of `dst`).
`define FP_NOC_MAX_PORTS 8'd16
// Not dropped.
`define FP_NOC_REASON_NONE 4'd0
// Failed a MAC check (bad FCS, PHY error, runt): dropped when it fits in one segment; a longer one, already on its way, leaves with a stomped FCS. Counted either way.
`define FP_NOC_REASON_BAD_FRAME 4'd1
// Longer than the maximum frame length.
`define FP_NOC_REASON_OVERSIZE 4'd2
// The input port's RXF was full (the datapath could not take the segment).
`define FP_NOC_REASON_RX_OVERFLOW 4'd3
// Input or output port disabled.
`define FP_NOC_REASON_PORT_DISABLED 4'd4
// VLAN ingress filter: tagged on an access port, or the input port is not a member of the VLAN.
`define FP_NOC_REASON_VLAN 4'd5
// No output left: destination is the input port itself, or the VLAN has no other member.
`define FP_NOC_REASON_NO_DEST 4'd6
// Link-local destination 01:80:C2:00:00:0x (pause, STP, LLDP...), never forwarded (to the host if so configured).
`define FP_NOC_REASON_RESERVED_MAC 4'd7
// BM admission: free segments below the reserve.
`define FP_NOC_REASON_BUFFER_FULL 4'd8
// QM tail drop: the output queue is at its threshold.
`define FP_NOC_REASON_QUEUE_FULL 4'd9
// BM: the input port holds its share of the buffer.
`define FP_NOC_REASON_PORT_THRESHOLD 4'd10
// Counter index only (never in a header): a TX FIFO ran dry in a frame (the MAC stomped it).
`define FP_NOC_REASON_UNDERRUN 4'd14
// Counter index only: a segment no output of its TX datapath could take (must stay 0).
`define FP_NOC_REASON_INTERNAL 4'd15
`endif
