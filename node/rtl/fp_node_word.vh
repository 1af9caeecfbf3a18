// node_word: generated from node/rtl/node_word.fmt.toml by `fastpath formats`. Do not edit.
// Tables: node/docs/formats/node_word.md
`ifndef FASTPATH_FMT_NODE_WORD_VH
`define FASTPATH_FMT_NODE_WORD_VH
// total width in bits
`define FP_NW_W 6
// The frame is bad (FCS or PHY error, truncated): meaningful on the last word (earlier words carry 0); TX ends such a frame with a stomped FCS.
`define FP_NW_BAD 0:0
`define FP_NW_BAD_LSB 0
`define FP_NW_BAD_W 1
// The frame's last word.
`define FP_NW_LAST 1:1
`define FP_NW_LAST_LSB 1
`define FP_NW_LAST_W 1
// Valid bytes in the word minus one (0..15: 1..16 bytes), from byte 0 up; below 15 only on the last word.
`define FP_NW_NBYTES_M1 5:2
`define FP_NW_NBYTES_M1_LSB 2
`define FP_NW_NBYTES_M1_W 4
`endif
