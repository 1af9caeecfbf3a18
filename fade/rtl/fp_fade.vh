// fade: generated from fade/rtl/fade.fmt.toml by `fastpath formats`. Do not edit.
// Tables: fade/docs/formats/fade.md
`ifndef FASTPATH_FMT_FADE_VH
`define FASTPATH_FMT_FADE_VH
// bytes in layout header
`define FP_FADE_HEADER_LEN 16
// Destination MAC address.
`define FP_FADE_HEADER_DST_OFF 0
`define FP_FADE_HEADER_DST_LEN 6
// Source MAC address.
`define FP_FADE_HEADER_SRC_OFF 6
`define FP_FADE_HEADER_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_HEADER_ETHERTYPE_OFF 12
`define FP_FADE_HEADER_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_HEADER_VERSION_OFF 14
`define FP_FADE_HEADER_VERSION_LEN 2
// bytes in layout ack
`define FP_FADE_ACK_LEN 28
// Destination MAC address.
`define FP_FADE_ACK_DST_OFF 0
`define FP_FADE_ACK_DST_LEN 6
// Source MAC address.
`define FP_FADE_ACK_SRC_OFF 6
`define FP_FADE_ACK_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_ACK_ETHERTYPE_OFF 12
`define FP_FADE_ACK_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_ACK_VERSION_OFF 14
`define FP_FADE_ACK_VERSION_LEN 2
// TYPE_ACK or TYPE_NACK.
`define FP_FADE_ACK_TYPE_OFF 16
`define FP_FADE_ACK_TYPE_LEN 2
// Frame sequence number copied from the data frame.
`define FP_FADE_ACK_SEQ_OFF 18
`define FP_FADE_ACK_SEQ_LEN 2
// Packet number in the data stream copied from the data frame.
`define FP_FADE_ACK_PKT_OFF 20
`define FP_FADE_ACK_PKT_LEN 4
// Transmission delay copied from the data frame.
`define FP_FADE_ACK_DELAY_OFF 24
`define FP_FADE_ACK_DELAY_LEN 4
// bytes in layout cmd
`define FP_FADE_CMD_LEN 24
// Destination MAC address.
`define FP_FADE_CMD_DST_OFF 0
`define FP_FADE_CMD_DST_LEN 6
// Source MAC address.
`define FP_FADE_CMD_SRC_OFF 6
`define FP_FADE_CMD_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_CMD_ETHERTYPE_OFF 12
`define FP_FADE_CMD_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_CMD_VERSION_OFF 14
`define FP_FADE_CMD_VERSION_LEN 2
// Command code: CMD_START, CMD_STOP, CMD_RESET, or a user code in CMD_USER_MIN..CMD_USER_MAX.
`define FP_FADE_CMD_CMD_OFF 16
`define FP_FADE_CMD_CMD_LEN 2
// Command sequence number; a repeat of the last one re-sends its response without executing again.
`define FP_FADE_CMD_CSN_OFF 18
`define FP_FADE_CMD_CSN_LEN 2
// Command argument.
`define FP_FADE_CMD_ARG_OFF 20
`define FP_FADE_CMD_ARG_LEN 4
// bytes in layout data
`define FP_FADE_DATA_LEN 8232
// Destination MAC address.
`define FP_FADE_DATA_DST_OFF 0
`define FP_FADE_DATA_DST_LEN 6
// Source MAC address.
`define FP_FADE_DATA_SRC_OFF 6
`define FP_FADE_DATA_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_DATA_ETHERTYPE_OFF 12
`define FP_FADE_DATA_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_DATA_VERSION_OFF 14
`define FP_FADE_DATA_VERSION_LEN 2
// TYPE_DATA.
`define FP_FADE_DATA_TYPE_OFF 16
`define FP_FADE_DATA_TYPE_LEN 2
// Frame sequence number, incremented on every data frame sent (also retransmissions).
`define FP_FADE_DATA_SEQ_OFF 18
`define FP_FADE_DATA_SEQ_LEN 2
// Packet number in the data stream.
`define FP_FADE_DATA_PKT_OFF 20
`define FP_FADE_DATA_PKT_LEN 4
// Current inter-frame delay of the sender (delay adaptation), in sender clock cycles.
`define FP_FADE_DATA_DELAY_OFF 24
`define FP_FADE_DATA_DELAY_LEN 4
// Command response: code of the command answered, CMD_NONE when the field carries no response.
`define FP_FADE_DATA_RESP_CMD_OFF 28
`define FP_FADE_DATA_RESP_CMD_LEN 2
// Command response: its command sequence number.
`define FP_FADE_DATA_RESP_CSN_OFF 30
`define FP_FADE_DATA_RESP_CSN_LEN 2
// Command response: user-defined return value.
`define FP_FADE_DATA_RESP_VAL_OFF 32
`define FP_FADE_DATA_RESP_VAL_LEN 8
// 1,024 64-bit data words, little-endian.
`define FP_FADE_DATA_DATA_OFF 40
`define FP_FADE_DATA_DATA_LEN 8192
// bytes in layout last
`define FP_FADE_LAST_LEN 8232
// Destination MAC address.
`define FP_FADE_LAST_DST_OFF 0
`define FP_FADE_LAST_DST_LEN 6
// Source MAC address.
`define FP_FADE_LAST_SRC_OFF 6
`define FP_FADE_LAST_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_LAST_ETHERTYPE_OFF 12
`define FP_FADE_LAST_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_LAST_VERSION_OFF 14
`define FP_FADE_LAST_VERSION_LEN 2
// TYPE_LAST.
`define FP_FADE_LAST_TYPE_OFF 16
`define FP_FADE_LAST_TYPE_LEN 2
// As in data.
`define FP_FADE_LAST_SEQ_OFF 18
`define FP_FADE_LAST_SEQ_LEN 2
// As in data.
`define FP_FADE_LAST_PKT_OFF 20
`define FP_FADE_LAST_PKT_LEN 4
// As in data.
`define FP_FADE_LAST_DELAY_OFF 24
`define FP_FADE_LAST_DELAY_LEN 4
// As in data.
`define FP_FADE_LAST_RESP_CMD_OFF 28
`define FP_FADE_LAST_RESP_CMD_LEN 2
// As in data.
`define FP_FADE_LAST_RESP_CSN_OFF 30
`define FP_FADE_LAST_RESP_CSN_LEN 2
// As in data.
`define FP_FADE_LAST_RESP_VAL_OFF 32
`define FP_FADE_LAST_RESP_VAL_LEN 8
// 1,023 word slots, the first `nwords` valid, little-endian.
`define FP_FADE_LAST_DATA_OFF 40
`define FP_FADE_LAST_DATA_LEN 8184
// Number of valid words in this packet (0..1023), a 64-bit little-endian word like the data.
`define FP_FADE_LAST_NWORDS_OFF 8224
`define FP_FADE_LAST_NWORDS_LEN 8
// bytes in layout resp
`define FP_FADE_RESP_LEN 30
// Destination MAC address.
`define FP_FADE_RESP_DST_OFF 0
`define FP_FADE_RESP_DST_LEN 6
// Source MAC address.
`define FP_FADE_RESP_SRC_OFF 6
`define FP_FADE_RESP_SRC_LEN 6
// ETHERTYPE (0xFADE).
`define FP_FADE_RESP_ETHERTYPE_OFF 12
`define FP_FADE_RESP_ETHERTYPE_LEN 2
// VERSION (0x0100).
`define FP_FADE_RESP_VERSION_OFF 14
`define FP_FADE_RESP_VERSION_LEN 2
// TYPE_RESP (the paper's 'filler').
`define FP_FADE_RESP_TYPE_OFF 16
`define FP_FADE_RESP_TYPE_LEN 2
// Code of the command answered.
`define FP_FADE_RESP_RESP_CMD_OFF 18
`define FP_FADE_RESP_RESP_CMD_LEN 2
// Its command sequence number.
`define FP_FADE_RESP_RESP_CSN_OFF 20
`define FP_FADE_RESP_RESP_CSN_LEN 2
// User-defined return value.
`define FP_FADE_RESP_RESP_VAL_OFF 22
`define FP_FADE_RESP_RESP_VAL_LEN 8
// Private Ethertype of FADE frames.
`define FP_FADE_ETHERTYPE 16'd64222
// Protocol version of FADE-10G.
`define FP_FADE_VERSION 16'd256
// Byte that fills frames shorter than the Ethernet minimum.
`define FP_FADE_FILLER 8'd165
// Data packet.
`define FP_FADE_TYPE_DATA 16'd42405
// Last data packet of a stream.
`define FP_FADE_TYPE_LAST 16'd42406
// Dedicated command response frame (code chosen here; the paper leaves it open).
`define FP_FADE_TYPE_RESP 16'd42404
// ACK.
`define FP_FADE_TYPE_ACK 16'd3
// NACK: retransmit this packet at once.
`define FP_FADE_TYPE_NACK 16'd4
// In a response field: no response carried.
`define FP_FADE_CMD_NONE 16'd0
// START streaming (handled by the receiver, confirmed with a response).
`define FP_FADE_CMD_START 16'd1
// STOP streaming: the core sends what it holds, ending with a last packet (confirmed).
`define FP_FADE_CMD_STOP 16'd2
// RESET the core (not confirmed).
`define FP_FADE_CMD_RESET 16'd5
// Lowest user command code (passed to the command port).
`define FP_FADE_CMD_USER_MIN 16'd256
// Highest user command code.
`define FP_FADE_CMD_USER_MAX 16'd32767
// 64-bit words in a data packet (8,192 bytes).
`define FP_FADE_WORDS_PER_PACKET 11'd1024
// Bytes per ACK record (type, seq, pkt, delay); record i of an ACK frame starts at byte 16 + 12 i.
`define FP_FADE_ACK_RECORD_LEN 8'd12
// Most ACK records one ACK frame may carry (a 112-byte frame).
`define FP_FADE_ACK_RECORDS_MAX 8'd8
`endif
