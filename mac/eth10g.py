"""Reference model of the 10G MAC (rtl/mac/eth_mac_10g_*): what it does with each frame, and the
XGMII transmit timing (deficit idle count).

Generic Ethernet pieces (FCS, padding, pause frame layout) are written out here with zlib so that
this file does not depend on the 1G model; they could move to a shared `mac/eth.py`.
"""
from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

RESIDUE_FCS = 0x2144_DF1C  # zlib.crc32(frame + good FCS)
PAUSE_DA = bytes.fromhex("0180c2000001")
PREAMBLE = b"\x55" * 7 + b"\xd5"
MIN_DATA = 60  # padding target (frame without FCS)
LANES = 8
PERIOD_PS = 6400  # 156.25 MHz


def fp(ps) -> int:
    """fp_time (Q48.16 ns) of a simulation time in ps, rounded down (what the testbenches drive)."""
    return int(round(ps)) * 65536 // 1000


HALF_PERIOD_FP = (32 * 65536 + 5) // 10  # 3.2 ns, rounded as the RTL does (PERIOD_NUM/DEN = 32/5)


def fcs(data: bytes) -> bytes:
    return struct.pack("<L", zlib.crc32(data))


def with_fcs(data: bytes) -> bytes:
    return bytes(data) + fcs(data)


def fcs_ok(frame: bytes) -> bool:
    return len(frame) >= 4 and zlib.crc32(frame) == RESIDUE_FCS


def pause_frame(quanta: int, sa: bytes = bytes.fromhex("020000000001"), opcode: int = 1) -> bytes:
    """A MAC Control pause frame with its FCS (64 bytes on the wire)."""
    body = PAUSE_DA + sa + struct.pack(">HHH", 0x8808, opcode, quanta)
    return with_fcs(body.ljust(MIN_DATA, b"\0"))


# ---- receive ------------------------------------------------------------------------------------

@dataclass
class RxExpect:
    """What fp_eth_mac_10g_rx does with one frame that had a valid preamble and SFD."""
    forwarded: bytes | None  # m_axis bytes, or None when nothing is forwarded
    tuser: int
    status: dict = field(default_factory=dict)
    pause_quanta: int | None = None


def rx_expect(body: bytes, errors=(), bad_end: bool = False, max_len: int = 1518) -> RxExpect:
    """`body`: the bytes after the SFD up to the end character (FCS included; an /E/ byte is in
    `body` as 0xFE and its position in `errors`). `bad_end`: the frame ended with a control
    character other than /T/."""
    n = len(body)
    perr = bool(errors) or bad_end
    good_fcs = zlib.crc32(body) == RESIDUE_FCS if n else False
    oversize = n > max_len
    runt = n < 64 and not oversize
    ctrl = body[:6] == PAUSE_DA
    pause_op = body[12:16] == bytes.fromhex("88080001")
    clean = good_fcs and not perr and not runt and not oversize
    good = clean and not ctrl
    pause = clean and ctrl and pause_op
    data = body[:max_len - 4] if oversize else body[:max(n - 4, 0)]
    forwarded = data if data and not ctrl else None
    status = {"len": min(n, 65535), "good": int(good), "bad": int(not good and not pause),
              "bad_fcs": int(not good_fcs), "runt": int(runt), "oversize": int(oversize),
              "phy_err": int(perr), "pause": int(pause)}
    quanta = struct.unpack(">H", body[16:18])[0] if pause else None
    return RxExpect(forwarded, int(oversize or not good_fcs or runt or perr), status, quanta)


# ---- transmit -----------------------------------------------------------------------------------

def tx_wire(payload: bytes, bad: bool = False, ts: int | None = None, ts_offset: int = 0) -> tuple[bytes, bool]:
    """The frame fp_eth_mac_10g_tx sends for a client frame (after the SFD, FCS included), and whether
    the timestamp insertion was made. `bad` stomps the FCS (inverted)."""
    data = bytearray(payload.ljust(MIN_DATA, b"\0"))
    made = False
    if ts is not None and ts_offset + 8 <= len(data):
        data[ts_offset:ts_offset + 8] = ts.to_bytes(8, "big")
        made = True
    crc = zlib.crc32(bytes(data))
    if bad:
        crc ^= 0xFFFF_FFFF
    return bytes(data) + struct.pack("<L", crc), made


def dic_starts(frame_lens, ifg: int = 12, first: int = 0) -> list[int]:
    """Physical byte positions of /S/ for frames sent back to back (always available) with the
    deficit idle count, as fp_eth_mac_10g_tx and cocotbext-eth's XgmiiSource do it.
    `frame_lens`: bytes after the SFD including the FCS. `first`: position of the first /S/ (lane 0)."""
    ifg = max(ifg, 8)
    starts = []
    pos = first
    deficit = 0
    for i, n in enumerate(frame_lens):
        starts.append(pos)
        term = pos + 8 + n  # /T/ position
        word = term // LANES
        cnt = max(ifg - (LANES - term % LANES), 0)  # idle bytes still owed after the /T/ word
        w = word + 1
        while cnt + deficit > LANES - 1:  # whole idle words
            cnt -= LANES
            if cnt < 0:
                deficit = max(deficit + cnt, 0)
                cnt = 0
            w += 1
        lane4 = cnt + deficit > 3
        rem = cnt - (4 if lane4 else 0)
        deficit = max(deficit + rem, 0)
        pos = w * LANES + (4 if lane4 else 0)
    return starts
