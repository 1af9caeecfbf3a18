/*
 * rxf_tuser: generated from node/rtl/rxf_tuser.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: node/docs/formats/rxf_tuser.md
 */
#ifndef FASTPATH_FMT_RXF_TUSER_H
#define FASTPATH_FMT_RXF_TUSER_H

#define RXU_W 34  /* total width in bits */
#define RXU_BAD_LSB 0
#define RXU_BAD_W 1
#define RXU_FIRST_LSB 1
#define RXU_FIRST_W 1
#define RXU_BYTES_LSB 2
#define RXU_BYTES_W 7
#define RXU_TRUNC_LSB 9
#define RXU_TRUNC_W 1
#define RXU_TS_LSB 10
#define RXU_TS_W 24

#define RXU_BAD_MASK 0x1ull
#define RXU_FIRST_MASK 0x1ull
#define RXU_BYTES_MASK 0x7full
#define RXU_TRUNC_MASK 0x1ull
#define RXU_TS_MASK 0xffffffull

#endif /* FASTPATH_FMT_RXF_TUSER_H */
