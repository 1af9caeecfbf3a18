// gre_verdict: generated from gre/rtl/gre_verdict.fmt.toml by `fastpath formats`. Do not edit.
// Tables: gre/docs/formats/gre_verdict.md
`ifndef FASTPATH_FMT_GRE_VERDICT_VH
`define FASTPATH_FMT_GRE_VERDICT_VH
// Decapsulated: the output is the inner frame (0x6558) or the outer L2 header with the inner IP packet (0x0800 / 0x86DD).
`define FP_GRE_VERDICT_DECAP_DECAP 4'd0
// Passed unchanged: not IPv4/IPv6 after the tags, IP version or IHL wrong, or the IP protocol / next header is not 47.
`define FP_GRE_VERDICT_DECAP_NOT_GRE 4'd1
// Passed unchanged: GRE version not 0, routing / strict-route / recursion / reserved bits set, or a GRE protocol other than 0x6558, 0x0800, 0x86DD.
`define FP_GRE_VERDICT_DECAP_UNSUPPORTED 4'd2
// Passed unchanged: an IPv4 fragment (MF set or fragment offset not 0).
`define FP_GRE_VERDICT_DECAP_FRAGMENT 4'd3
// Passed unchanged: the IPv4 header checksum is wrong.
`define FP_GRE_VERDICT_DECAP_BAD_CHECKSUM 4'd4
// Passed unchanged: the frame ends before the headers it announces do, or its IP length leaves no inner frame.
`define FP_GRE_VERDICT_DECAP_TOO_SHORT 4'd5
// Passed unchanged: GRE from an endpoint (source address, key) not in the accept table, cfg_drop_unknown = 0.
`define FP_GRE_VERDICT_DECAP_UNKNOWN_PASS 4'd6
// Dropped (nothing is output): GRE from an endpoint not in the accept table, cfg_drop_unknown = 1.
`define FP_GRE_VERDICT_DECAP_UNKNOWN_DROP 4'd7
// Decapsulated but marked bad (tuser[0] = 1 on the last beat): the frame's actual length disagrees with its IP length (other than Ethernet padding); with LEN_IN = 1 only when s_axis_tlen was not the frame's length.
`define FP_GRE_VERDICT_DECAP_DROP_LENGTH 4'd8
// Passed unchanged (LEN_IN = 1): s_axis_tlen disagrees with the IP length (other than Ethernet padding).
`define FP_GRE_VERDICT_DECAP_PASS_LENGTH 4'd9
// Encapsulated in the tunnel s_axis_tdest selects.
`define FP_GRE_VERDICT_ENCAP_ENCAP 2'd0
// Passed unchanged: the tunnel is disabled (or s_axis_tdest >= TUNNELS).
`define FP_GRE_VERDICT_ENCAP_PASS 2'd1
// Dropped: an L3 tunnel's input is not IPv4/IPv6 or shorter than 14 bytes.
`define FP_GRE_VERDICT_ENCAP_DROP 2'd2
// Encapsulated but marked bad (tuser[0] = 1 on the last beat): s_axis_tlen disagreed with the frame's length.
`define FP_GRE_VERDICT_ENCAP_BAD_LENGTH 2'd3
// GRE protocol 0x6558: the output is the inner Ethernet frame (RTL: decap).
`define FP_GRE_VERDICT_PARSE_DECAP_ETH 4'd0
// GRE protocol 0x0800: the output is the outer L2 header and the inner IPv4 packet (RTL: decap).
`define FP_GRE_VERDICT_PARSE_DECAP_IPV4 4'd1
// GRE protocol 0x86DD: the output is the outer L2 header and the inner IPv6 packet (RTL: decap).
`define FP_GRE_VERDICT_PARSE_DECAP_IPV6 4'd2
// The frame (or IP packet) is too short for a header it announces (RTL: too_short).
`define FP_GRE_VERDICT_PARSE_PASS_SHORT 4'd3
// The Ethertype after the tags is neither IPv4 nor IPv6 (RTL: not_gre).
`define FP_GRE_VERDICT_PARSE_PASS_NOT_IP 4'd4
// The IP version disagrees with the Ethertype, or the IPv4 IHL is below 5 (RTL: not_gre).
`define FP_GRE_VERDICT_PARSE_PASS_BAD_IP 4'd5
// The IPv4 header checksum is wrong (RTL: bad_checksum).
`define FP_GRE_VERDICT_PARSE_PASS_CSUM 4'd6
// The IPv4 total length / IPv6 payload length disagrees with the frame (RTL: pass_length with LEN_IN = 1 and s_axis_tlen the frame's length, drop_length with LEN_IN = 0).
`define FP_GRE_VERDICT_PARSE_PASS_LENGTH 4'd7
// An IPv4 fragment (RTL: fragment).
`define FP_GRE_VERDICT_PARSE_PASS_FRAGMENT 4'd8
// The IP protocol / next header is not 47 (RTL: not_gre).
`define FP_GRE_VERDICT_PARSE_PASS_NOT_GRE 4'd9
// The GRE version is not 0, e.g. 1 (PPTP) (RTL: unsupported).
`define FP_GRE_VERDICT_PARSE_PASS_GRE_VERSION 4'd10
// The GRE routing bit or reserved bits are set (RTL: unsupported).
`define FP_GRE_VERDICT_PARSE_PASS_GRE_FLAGS 4'd11
// The GRE protocol type is not 0x6558, 0x0800 or 0x86DD (RTL: unsupported).
`define FP_GRE_VERDICT_PARSE_PASS_GRE_PROTO 4'd12
`endif
