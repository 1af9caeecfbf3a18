// rxf_tuser: generated from node/rtl/rxf_tuser.fmt.toml by `fastpath formats`. Do not edit.
// Tables: node/docs/formats/rxf_tuser.md
`ifndef FASTPATH_FMT_RXF_TUSER_VH
`define FASTPATH_FMT_RXF_TUSER_VH
// total width in bits
`define FP_RXU_W 34
// The frame is bad (the MAC's tuser, truncated, or cut by an overflow); set on the last segment only.
`define FP_RXU_BAD 0:0
`define FP_RXU_BAD_LSB 0
`define FP_RXU_BAD_W 1
// First segment of the frame.
`define FP_RXU_FIRST 1:1
`define FP_RXU_FIRST_LSB 1
`define FP_RXU_FIRST_W 1
// Valid bytes in the segment, 1..SEG_BYTES.
`define FP_RXU_BYTES 8:2
`define FP_RXU_BYTES_LSB 2
`define FP_RXU_BYTES_W 7
// The frame was longer than MAX_BYTES and was cut (bad is set too); last segment only.
`define FP_RXU_TRUNC 9:9
`define FP_RXU_TRUNC_LSB 9
`define FP_RXU_TRUNC_W 1
// The frame's SFD time, s_axis_ts[39:16] of its first beat (ns modulo 2^24); the same on every segment.
`define FP_RXU_TS 33:10
`define FP_RXU_TS_LSB 10
`define FP_RXU_TS_W 24
`endif
