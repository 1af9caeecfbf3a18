// txf_tuser: generated from node/rtl/txf_tuser.fmt.toml by `fastpath formats`. Do not edit.
// Tables: node/docs/formats/txf_tuser.md
`ifndef FASTPATH_FMT_TXF_TUSER_VH
`define FASTPATH_FMT_TXF_TUSER_VH
// total width in bits
`define FP_TXU_W 35
// The frame is bad: the TX side ends it with a stomped FCS (last segment only).
`define FP_TXU_BAD 0:0
`define FP_TXU_BAD_LSB 0
`define FP_TXU_BAD_W 1
// First segment of the frame.
`define FP_TXU_FIRST 1:1
`define FP_TXU_FIRST_LSB 1
`define FP_TXU_FIRST_W 1
// Last segment of the frame.
`define FP_TXU_LAST 2:2
`define FP_TXU_LAST_LSB 2
`define FP_TXU_LAST_W 1
// Valid bytes in the segment, 1..SEG_BYTES.
`define FP_TXU_BYTES 9:3
`define FP_TXU_BYTES_LSB 3
`define FP_TXU_BYTES_W 7
// The frame's RX SFD time (ns modulo 2^24): the reference of the cut-through release rule.
`define FP_TXU_TS 33:10
`define FP_TXU_TS_LSB 10
`define FP_TXU_TS_W 24
// The frame came from a host port (src_port >= the node's port count): released at once, no cut-through hold.
`define FP_TXU_FROM_HOST 34:34
`define FP_TXU_FROM_HOST_LSB 34
`define FP_TXU_FROM_HOST_W 1
`endif
