"""Ethernet CRC-32 reference (the FCS), on top of zlib.crc32.

Two representations of the same CRC register are in use:
  * the *state* of lib/rtl/fp_crc32_step.v: the reflected register, NOT inverted, 0xFFFFFFFF at frame
    start;
  * the *FCS* (what zlib.crc32 returns): ~state after the last byte, sent little-endian.
"""
from __future__ import annotations

import zlib

MASK = 0xFFFF_FFFF
INIT = 0xFFFF_FFFF  # state at frame start
RESIDUE_STATE = 0xDEBB_20E3  # state after a frame including a correct FCS (fp_crc32_step crc_out)
RESIDUE_FCS = 0x2144_DF1C  # the same, inverted: zlib.crc32(frame_with_correct_fcs)


def fcs(data: bytes) -> int:
    """The FCS of `data` (zlib.crc32)."""
    return zlib.crc32(data)


def step(state: int, data: bytes) -> int:
    """The fp_crc32_step state after `data`, starting from `state` (both non-inverted)."""
    return zlib.crc32(data, state ^ MASK) ^ MASK


def append_fcs(data: bytes) -> bytes:
    """`data` followed by its 4 FCS bytes, least significant first (as sent on the wire)."""
    return bytes(data) + fcs(data).to_bytes(4, "little")


def fcs_ok(frame: bytes) -> bool:
    """True when `frame` ends with its correct FCS (residue check, as a receiver does it)."""
    return len(frame) >= 4 and zlib.crc32(frame) == RESIDUE_FCS
