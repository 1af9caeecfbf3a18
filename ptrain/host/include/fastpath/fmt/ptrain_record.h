/*
 * ptrain_record: generated from ptrain/rtl/ptrain_record.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: ptrain/docs/formats/ptrain_record.md
 */
#ifndef FASTPATH_FMT_PTRAIN_RECORD_H
#define FASTPATH_FMT_PTRAIN_RECORD_H

#define PTREC_W 288  /* total width in bits */
#define PTREC_BAD_LSB 0
#define PTREC_BAD_W 1
#define PTREC_DUP_LSB 1
#define PTREC_DUP_W 1
#define PTREC_REORDERED_LSB 2
#define PTREC_REORDERED_W 1
#define PTREC_LATE_LSB 3
#define PTREC_LATE_W 1
#define PTREC_TX_FLAGS_LSB 4
#define PTREC_TX_FLAGS_W 4
#define PTREC_STREAM_LSB 8
#define PTREC_STREAM_W 8
#define PTREC_SIZE_LSB 16
#define PTREC_SIZE_W 16
#define PTREC_SEQ_LSB 32
#define PTREC_SEQ_W 32
#define PTREC_TRAIN_LSB 64
#define PTREC_TRAIN_W 32
#define PTREC_INDEX_LSB 96
#define PTREC_INDEX_W 32
#define PTREC_TRAIN_LEN_LSB 128
#define PTREC_TRAIN_LEN_W 32
#define PTREC_TX_TIME_LSB 160
#define PTREC_TX_TIME_W 64
#define PTREC_RX_TIME_LSB 224
#define PTREC_RX_TIME_W 64

#define PTREC_BAD_MASK 0x1ull
#define PTREC_DUP_MASK 0x1ull
#define PTREC_REORDERED_MASK 0x1ull
#define PTREC_LATE_MASK 0x1ull
#define PTREC_TX_FLAGS_MASK 0xfull
#define PTREC_STREAM_MASK 0xffull
#define PTREC_SIZE_MASK 0xffffull
#define PTREC_SEQ_MASK 0xffffffffull
#define PTREC_TRAIN_MASK 0xffffffffull
#define PTREC_INDEX_MASK 0xffffffffull
#define PTREC_TRAIN_LEN_MASK 0xffffffffull
#define PTREC_TX_TIME_MASK 0xffffffffffffffffull
#define PTREC_RX_TIME_MASK 0xffffffffffffffffull

#endif /* FASTPATH_FMT_PTRAIN_RECORD_H */
