/*
 * fade: generated from fade/rtl/fade.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: fade/docs/formats/fade.md
 */
#ifndef FASTPATH_FMT_FADE_H
#define FASTPATH_FMT_FADE_H

#define FADE_HEADER_LEN 16  /* bytes in layout header */
#define FADE_HEADER_DST_OFF 0  /* Destination MAC address. */
#define FADE_HEADER_DST_LEN 6
#define FADE_HEADER_SRC_OFF 6  /* Source MAC address. */
#define FADE_HEADER_SRC_LEN 6
#define FADE_HEADER_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_HEADER_ETHERTYPE_LEN 2
#define FADE_HEADER_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_HEADER_VERSION_LEN 2
#define FADE_ACK_LEN 28  /* bytes in layout ack */
#define FADE_ACK_DST_OFF 0  /* Destination MAC address. */
#define FADE_ACK_DST_LEN 6
#define FADE_ACK_SRC_OFF 6  /* Source MAC address. */
#define FADE_ACK_SRC_LEN 6
#define FADE_ACK_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_ACK_ETHERTYPE_LEN 2
#define FADE_ACK_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_ACK_VERSION_LEN 2
#define FADE_ACK_TYPE_OFF 16  /* TYPE_ACK or TYPE_NACK. */
#define FADE_ACK_TYPE_LEN 2
#define FADE_ACK_SEQ_OFF 18  /* Frame sequence number copied from the data frame. */
#define FADE_ACK_SEQ_LEN 2
#define FADE_ACK_PKT_OFF 20  /* Packet number in the data stream copied from the data frame. */
#define FADE_ACK_PKT_LEN 4
#define FADE_ACK_DELAY_OFF 24  /* Transmission delay copied from the data frame. */
#define FADE_ACK_DELAY_LEN 4
#define FADE_CMD_LEN 24  /* bytes in layout cmd */
#define FADE_CMD_DST_OFF 0  /* Destination MAC address. */
#define FADE_CMD_DST_LEN 6
#define FADE_CMD_SRC_OFF 6  /* Source MAC address. */
#define FADE_CMD_SRC_LEN 6
#define FADE_CMD_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_CMD_ETHERTYPE_LEN 2
#define FADE_CMD_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_CMD_VERSION_LEN 2
#define FADE_CMD_CMD_OFF 16  /* Command code: CMD_START, CMD_STOP, CMD_RESET, or a user code in CMD_USER_MIN..CMD_USER_MAX. */
#define FADE_CMD_CMD_LEN 2
#define FADE_CMD_CSN_OFF 18  /* Command sequence number; a repeat of the last one re-sends its response without executing again. */
#define FADE_CMD_CSN_LEN 2
#define FADE_CMD_ARG_OFF 20  /* Command argument. */
#define FADE_CMD_ARG_LEN 4
#define FADE_DATA_LEN 8232  /* bytes in layout data */
#define FADE_DATA_DST_OFF 0  /* Destination MAC address. */
#define FADE_DATA_DST_LEN 6
#define FADE_DATA_SRC_OFF 6  /* Source MAC address. */
#define FADE_DATA_SRC_LEN 6
#define FADE_DATA_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_DATA_ETHERTYPE_LEN 2
#define FADE_DATA_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_DATA_VERSION_LEN 2
#define FADE_DATA_TYPE_OFF 16  /* TYPE_DATA. */
#define FADE_DATA_TYPE_LEN 2
#define FADE_DATA_SEQ_OFF 18  /* Frame sequence number, incremented on every data frame sent (also retransmissions). */
#define FADE_DATA_SEQ_LEN 2
#define FADE_DATA_PKT_OFF 20  /* Packet number in the data stream. */
#define FADE_DATA_PKT_LEN 4
#define FADE_DATA_DELAY_OFF 24  /* Current inter-frame delay of the sender (delay adaptation), in sender clock cycles. */
#define FADE_DATA_DELAY_LEN 4
#define FADE_DATA_RESP_CMD_OFF 28  /* Command response: code of the command answered, CMD_NONE when the field carries no response. */
#define FADE_DATA_RESP_CMD_LEN 2
#define FADE_DATA_RESP_CSN_OFF 30  /* Command response: its command sequence number. */
#define FADE_DATA_RESP_CSN_LEN 2
#define FADE_DATA_RESP_VAL_OFF 32  /* Command response: user-defined return value. */
#define FADE_DATA_RESP_VAL_LEN 8
#define FADE_DATA_DATA_OFF 40  /* 1,024 64-bit data words, little-endian. */
#define FADE_DATA_DATA_LEN 8192
#define FADE_LAST_LEN 8232  /* bytes in layout last */
#define FADE_LAST_DST_OFF 0  /* Destination MAC address. */
#define FADE_LAST_DST_LEN 6
#define FADE_LAST_SRC_OFF 6  /* Source MAC address. */
#define FADE_LAST_SRC_LEN 6
#define FADE_LAST_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_LAST_ETHERTYPE_LEN 2
#define FADE_LAST_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_LAST_VERSION_LEN 2
#define FADE_LAST_TYPE_OFF 16  /* TYPE_LAST. */
#define FADE_LAST_TYPE_LEN 2
#define FADE_LAST_SEQ_OFF 18  /* As in data. */
#define FADE_LAST_SEQ_LEN 2
#define FADE_LAST_PKT_OFF 20  /* As in data. */
#define FADE_LAST_PKT_LEN 4
#define FADE_LAST_DELAY_OFF 24  /* As in data. */
#define FADE_LAST_DELAY_LEN 4
#define FADE_LAST_RESP_CMD_OFF 28  /* As in data. */
#define FADE_LAST_RESP_CMD_LEN 2
#define FADE_LAST_RESP_CSN_OFF 30  /* As in data. */
#define FADE_LAST_RESP_CSN_LEN 2
#define FADE_LAST_RESP_VAL_OFF 32  /* As in data. */
#define FADE_LAST_RESP_VAL_LEN 8
#define FADE_LAST_DATA_OFF 40  /* 1,023 word slots, the first `nwords` valid, little-endian. */
#define FADE_LAST_DATA_LEN 8184
#define FADE_LAST_NWORDS_OFF 8224  /* Number of valid words in this packet (0..1023), a 64-bit little-endian word like the data. */
#define FADE_LAST_NWORDS_LEN 8
#define FADE_RESP_LEN 30  /* bytes in layout resp */
#define FADE_RESP_DST_OFF 0  /* Destination MAC address. */
#define FADE_RESP_DST_LEN 6
#define FADE_RESP_SRC_OFF 6  /* Source MAC address. */
#define FADE_RESP_SRC_LEN 6
#define FADE_RESP_ETHERTYPE_OFF 12  /* ETHERTYPE (0xFADE). */
#define FADE_RESP_ETHERTYPE_LEN 2
#define FADE_RESP_VERSION_OFF 14  /* VERSION (0x0100). */
#define FADE_RESP_VERSION_LEN 2
#define FADE_RESP_TYPE_OFF 16  /* TYPE_RESP (the paper's 'filler'). */
#define FADE_RESP_TYPE_LEN 2
#define FADE_RESP_RESP_CMD_OFF 18  /* Code of the command answered. */
#define FADE_RESP_RESP_CMD_LEN 2
#define FADE_RESP_RESP_CSN_OFF 20  /* Its command sequence number. */
#define FADE_RESP_RESP_CSN_LEN 2
#define FADE_RESP_RESP_VAL_OFF 22  /* User-defined return value. */
#define FADE_RESP_RESP_VAL_LEN 8
#define FADE_ETHERTYPE 0xfade  /* Private Ethertype of FADE frames. */
#define FADE_VERSION 0x100  /* Protocol version of FADE-10G. */
#define FADE_FILLER 0xa5  /* Byte that fills frames shorter than the Ethernet minimum. */
#define FADE_TYPE_DATA 0xa5a5  /* Data packet. */
#define FADE_TYPE_LAST 0xa5a6  /* Last data packet of a stream. */
#define FADE_TYPE_RESP 0xa5a4  /* Dedicated command response frame (code chosen here; the paper leaves it open). */
#define FADE_TYPE_ACK 0x3  /* ACK. */
#define FADE_TYPE_NACK 0x4  /* NACK: retransmit this packet at once. */
#define FADE_CMD_NONE 0x0  /* In a response field: no response carried. */
#define FADE_CMD_START 0x1  /* START streaming (handled by the receiver, confirmed with a response). */
#define FADE_CMD_STOP 0x2  /* STOP streaming: the core sends what it holds, ending with a last packet (confirmed). */
#define FADE_CMD_RESET 0x5  /* RESET the core (not confirmed). */
#define FADE_CMD_USER_MIN 0x100  /* Lowest user command code (passed to the command port). */
#define FADE_CMD_USER_MAX 0x7fff  /* Highest user command code. */
#define FADE_WORDS_PER_PACKET 0x400  /* 64-bit words in a data packet (8,192 bytes). */
#define FADE_ACK_RECORD_LEN 0xc  /* Bytes per ACK record (type, seq, pkt, delay); record i of an ACK frame starts at byte 16 + 12 i. */
#define FADE_ACK_RECORDS_MAX 0x8  /* Most ACK records one ACK frame may carry (a 112-byte frame). */

#endif /* FASTPATH_FMT_FADE_H */
