"""Ethernet reference model: frames, FCS, pause frames, and what a fastpath MAC does with them.

Frames are `bytes` from the first destination-MAC byte; "with FCS" means the 4 FCS bytes are
appended (little-endian, as on the wire); "wire" means preamble + SFD + frame + FCS.
Building and parsing go through scapy, so the helpers produce and accept real Ethernet frames.

The MAC behaviour (mac/README.md) is modelled by `rx_expect` (what the receive MAC forwards and
counts for one frame on the wire) and `tx_wire` (what the transmit MAC puts on the wire for one
frame from the client). Both are speed-independent; the RTL tests compare against them.
"""
from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

from scapy.layers.l2 import Ether
from scapy.packet import Raw

from fastpath.lib import crc

PREAMBLE = b"\x55" * 7
SFD = 0xD5
MIN_FRAME = 64  # bytes with FCS
MIN_PAYLOAD = 60  # bytes before the FCS, after padding
PAUSE_DA = "01:80:c2:00:00:01"
PAUSE_DA_BYTES = bytes.fromhex("0180c2000001")
PAUSE_TYPE = 0x8808
PAUSE_OPCODE = 0x0001
FP_ONE_NS = 1 << 16  # fp_time: Q48.16 ns


def fp_time(ns: float | int) -> int:
    """fp_time (Q48.16 ns, 64 bits) of a time in ns (rounded to the nearest 2^-16 ns)."""
    return round(ns * FP_ONE_NS) & ((1 << 64) - 1)


# ---- frames -------------------------------------------------------------------------------------

def fcs(frame: bytes) -> bytes:
    """The 4 FCS bytes of `frame`, in wire order."""
    return crc.fcs(frame).to_bytes(4, "little")


def with_fcs(frame: bytes) -> bytes:
    return bytes(frame) + fcs(frame)


def fcs_ok(frame_with_fcs: bytes) -> bool:
    return crc.fcs_ok(frame_with_fcs)


def padded(frame: bytes, minimum: int = MIN_PAYLOAD) -> bytes:
    """The frame padded with zeros to `minimum` bytes (what a transmitter sends before the FCS)."""
    return bytes(frame) + bytes(max(0, minimum - len(frame)))


def wire(frame_with_fcs: bytes, preamble: bytes = PREAMBLE) -> bytes:
    """Preamble + SFD + frame: the bytes a GMII/XGMII source puts on the pins."""
    return bytes(preamble) + bytes([SFD]) + bytes(frame_with_fcs)


def random_mac(rng: random.Random, unicast: bool = True) -> str:
    b = bytearray(rng.getrandbits(8) for _ in range(6))
    if unicast:
        b[0] &= 0xFE
    return ":".join(f"{x:02x}" for x in b)


def build(rng: random.Random, size: int, ethertype: int | None = None, dst: str | None = None,
          src: str | None = None) -> bytes:
    """A random Ethernet frame of `size` bytes WITHOUT FCS (size >= 14): unicast DA and SA,
    an Ethertype (random if not given, never 0x8808) and a random payload."""
    if size < 14:
        raise ValueError("an Ethernet frame has at least 14 header bytes")
    if ethertype is None:
        ethertype = rng.choice([0x0800, 0x86DD, 0x88B5, 0x0806, rng.randint(0x0600, 0x8807)])
    pkt = Ether(dst=dst or random_mac(rng), src=src or random_mac(rng), type=ethertype)
    pkt = pkt / Raw(bytes(rng.getrandbits(8) for _ in range(size - 14)))
    return bytes(pkt)


def parse(frame: bytes) -> Ether:
    """The frame (with or without FCS) as a scapy packet."""
    return Ether(bytes(frame))


def pause_frame(quanta: int, src: str = "02:00:00:00:00:01") -> bytes:
    """An 802.3x PAUSE frame without FCS, padded to 60 bytes."""
    pkt = Ether(dst=PAUSE_DA, src=src, type=PAUSE_TYPE) / Raw(struct.pack(">HH", PAUSE_OPCODE, quanta))
    return padded(bytes(pkt))


def pause_quanta(frame_with_fcs: bytes) -> int | None:
    """The quanta of a valid PAUSE frame (MAC-control DA, type 0x8808, opcode 1, >= 64 bytes,
    good FCS), else None."""
    f = bytes(frame_with_fcs)
    if len(f) < MIN_FRAME or not fcs_ok(f):
        return None
    p = parse(f[:-4])
    if p.dst.lower() != PAUSE_DA or p.type != PAUSE_TYPE:
        return None
    opcode, quanta = struct.unpack(">HH", f[14:18])
    return quanta if opcode == PAUSE_OPCODE else None


# ---- receive MAC ---------------------------------------------------------------------------------

RX_COUNTERS = ("good", "bad", "bad_fcs", "runt", "oversize", "phy_err", "bad_preamble", "pause", "bytes")


@dataclass
class RxResult:
    """What the receive MAC does with one start of carrier."""
    data: bytes | None = None  # forwarded bytes (None: nothing forwarded)
    bad: bool = False  # tuser[0] on the tlast beat
    pause: int | None = None  # quanta handed to the TX
    counts: dict = field(default_factory=dict)  # counter increments (names as in RX_COUNTERS)


def rx_expect(frame_with_fcs: bytes, max_len: int = 1518, phy_err: bool = False,
              preamble_ok: bool = True) -> RxResult:
    """The RX MAC's reaction to one frame on the wire (bytes after the SFD up to the end of
    carrier), per mac/README.md. `phy_err`: rx_er was asserted somewhere before the end (or the
    cut); `preamble_ok`: the start had a valid preamble and SFD."""
    c = dict.fromkeys(RX_COUNTERS, 0)
    if not preamble_ok:
        c["bad_preamble"] = 1
        return RxResult(counts=c)
    f = bytes(frame_with_fcs)
    mac_control = len(f) >= 6 and f[:6] == PAUSE_DA_BYTES
    if len(f) > max_len:
        c.update(oversize=1, bad=1, phy_err=int(phy_err), bytes=max_len + 1)
        data = None if mac_control else f[:max_len - 4]
        return RxResult(data=data, bad=True, counts=c)
    runt = len(f) < MIN_FRAME
    bad_fcs = not fcs_ok(f)
    bad = runt or bad_fcs or phy_err
    quanta = None if (bad or not mac_control) else pause_quanta(f)
    c.update(runt=int(runt), bad_fcs=int(bad_fcs), phy_err=int(phy_err), bytes=len(f))
    if quanta is not None:
        c["pause"] = 1
    elif bad or mac_control:
        c["bad"] = 1
    else:
        c["good"] = 1
    data = None if (mac_control or len(f) < 5) else f[:-4]
    return RxResult(data=data, bad=bad, pause=quanta, counts=c)


# ---- transmit MAC --------------------------------------------------------------------------------

@dataclass
class TxResult:
    frame: bytes  # the frame on the wire after the SFD, FCS included
    ts_inserted: bool = False
    ts_bad_offset: bool = False
    stomped: bool = False  # the FCS is inverted


def tx_wire(data: bytes, bad: bool = False, ts_insert: bool = False, ts_offset: int = 0,
            ts: int = 0) -> TxResult:
    """What the TX MAC sends for a client frame `data` (no FCS) with tuser[0] = `bad` at tlast:
    padding to 60 bytes, the 8-byte big-endian timestamp `ts` at `ts_offset` when it fits in the
    padded frame, and the FCS (inverted when stomped). An insertion that does not fit is counted
    (bad offset). If its window starts inside the client's data, the MAC has already sent the
    first timestamp bytes when tlast shows that the rest does not fit (cut-through cannot take
    them back): the window is written up to the end of the padded frame and the FCS stomped.
    If it starts at or after the client's last byte, nothing is written."""
    body = bytearray(padded(data))
    inserted = bad_offset = False
    stomp = bad
    if ts_insert:
        if ts_offset + 8 <= len(body):
            body[ts_offset:ts_offset + 8] = ts.to_bytes(8, "big")
            inserted = True
        else:
            bad_offset = True
            if ts_offset < len(data):
                n = len(body) - ts_offset
                body[ts_offset:] = ts.to_bytes(8, "big")[:n]
                stomp = True
    f = fcs(bytes(body))
    if stomp:
        f = bytes(b ^ 0xFF for b in f)
    return TxResult(bytes(body) + f, inserted, bad_offset, stomp)


__all__ = [
    "PREAMBLE", "SFD", "MIN_FRAME", "MIN_PAYLOAD", "PAUSE_DA", "PAUSE_TYPE", "PAUSE_OPCODE",
    "fp_time", "fcs", "with_fcs", "fcs_ok", "padded", "wire", "random_mac", "build", "parse",
    "pause_frame", "pause_quanta", "RxResult", "rx_expect", "RX_COUNTERS", "TxResult", "tx_wire",
]
