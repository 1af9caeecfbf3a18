/*
 * txf_tuser: generated from node/rtl/txf_tuser.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: node/docs/formats/txf_tuser.md
 */
#ifndef FASTPATH_FMT_TXF_TUSER_H
#define FASTPATH_FMT_TXF_TUSER_H

#define TXU_W 35  /* total width in bits */
#define TXU_BAD_LSB 0
#define TXU_BAD_W 1
#define TXU_FIRST_LSB 1
#define TXU_FIRST_W 1
#define TXU_LAST_LSB 2
#define TXU_LAST_W 1
#define TXU_BYTES_LSB 3
#define TXU_BYTES_W 7
#define TXU_TS_LSB 10
#define TXU_TS_W 24
#define TXU_FROM_HOST_LSB 34
#define TXU_FROM_HOST_W 1

#define TXU_BAD_MASK 0x1ull
#define TXU_FIRST_MASK 0x1ull
#define TXU_LAST_MASK 0x1ull
#define TXU_BYTES_MASK 0x7full
#define TXU_TS_MASK 0xffffffull
#define TXU_FROM_HOST_MASK 0x1ull

#endif /* FASTPATH_FMT_TXF_TUSER_H */
