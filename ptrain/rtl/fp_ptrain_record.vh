// ptrain_record: generated from ptrain/rtl/ptrain_record.fmt.toml by `fastpath formats`. Do not edit.
// Tables: ptrain/docs/formats/ptrain_record.md
`ifndef FASTPATH_FMT_PTRAIN_RECORD_VH
`define FASTPATH_FMT_PTRAIN_RECORD_VH
// total width in bits
`define FP_PTREC_W 288
// The MAC marked the frame bad (tuser[0] on its last beat: bad FCS, runt, PHY error). Its fields may be corrupt: it is not counted in the per-stream loss, duplicate and reordering counters (dup, reordered and late are 0), and the analyser should drop it (ptrain/record.py does by default).
`define FP_PTREC_BAD 0:0
`define FP_PTREC_BAD_LSB 0
`define FP_PTREC_BAD_W 1
// A copy of a sequence number already received in the stream's window.
`define FP_PTREC_DUP 1:1
`define FP_PTREC_DUP_LSB 1
`define FP_PTREC_DUP_W 1
// First copy of a sequence number lower than the highest received before it in its stream (RFC 4737), inside the window or late.
`define FP_PTREC_REORDERED 2:2
`define FP_PTREC_REORDERED_LSB 2
`define FP_PTREC_REORDERED_W 1
// Sequence number WINDOW or more behind the stream's highest: counted as reordered and unique, not checked for duplication.
`define FP_PTREC_LATE 3:3
`define FP_PTREC_LATE_LSB 3
`define FP_PTREC_LATE_W 1
// ver_flags[3:0] of the tester header: FLAG_TX_HW, FLAG_LAST, FLAG_SYNCED of ptrain.fmt.toml (the analyser's flags).
`define FP_PTREC_TX_FLAGS 7:4
`define FP_PTREC_TX_FLAGS_LSB 4
`define FP_PTREC_TX_FLAGS_W 4
// Stream id from the tester header.
`define FP_PTREC_STREAM 15:8
`define FP_PTREC_STREAM_LSB 8
`define FP_PTREC_STREAM_W 8
// Frame length in bytes without FCS, from the IP/UDP lengths (Ethernet header + tags + IP header + UDP length); bytes after it (padding) are not counted.
`define FP_PTREC_SIZE 31:16
`define FP_PTREC_SIZE_LSB 16
`define FP_PTREC_SIZE_W 16
// Sequence number from the tester header.
`define FP_PTREC_SEQ 63:32
`define FP_PTREC_SEQ_LSB 32
`define FP_PTREC_SEQ_W 32
// Train number from the tester header; of a compact frame (ptrain.fmt.toml, layout compact), seq - index, the sequence number of its train's first frame.
`define FP_PTREC_TRAIN 95:64
`define FP_PTREC_TRAIN_LSB 64
`define FP_PTREC_TRAIN_W 32
// Position in the train from the tester header (below train_len); of a compact frame, its IPv4 identification.
`define FP_PTREC_INDEX 127:96
`define FP_PTREC_INDEX_LSB 96
`define FP_PTREC_INDEX_W 32
// Frames in the train from the tester header (at least 1); 0 for a compact frame (unknown).
`define FP_PTREC_TRAIN_LEN 159:128
`define FP_PTREC_TRAIN_LEN_LSB 128
`define FP_PTREC_TRAIN_LEN_W 32
// TX time from the tester header (fp_time, Q48.16 ns).
`define FP_PTREC_TX_TIME 223:160
`define FP_PTREC_TX_TIME_LSB 160
`define FP_PTREC_TX_TIME_W 64
// RX time: the MAC's s_axis_ts, the fp_time of the frame's SFD at the receiver.
`define FP_PTREC_RX_TIME 287:224
`define FP_PTREC_RX_TIME_LSB 224
`define FP_PTREC_RX_TIME_W 64
`endif
