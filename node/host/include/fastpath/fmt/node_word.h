/*
 * node_word: generated from node/rtl/node_word.fmt.toml by `fastpath formats`. Do not edit.
 * Tables: node/docs/formats/node_word.md
 */
#ifndef FASTPATH_FMT_NODE_WORD_H
#define FASTPATH_FMT_NODE_WORD_H

#define NW_W 6  /* total width in bits */
#define NW_BAD_LSB 0
#define NW_BAD_W 1
#define NW_LAST_LSB 1
#define NW_LAST_W 1
#define NW_NBYTES_M1_LSB 2
#define NW_NBYTES_M1_W 4

#define NW_BAD_MASK 0x1ull
#define NW_LAST_MASK 0x1ull
#define NW_NBYTES_M1_MASK 0xfull

#endif /* FASTPATH_FMT_NODE_WORD_H */
