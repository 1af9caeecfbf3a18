"""Frames and captures: a thin layer on scapy used by tests, models, benches and the CLI.

Frames are `bytes` from the destination MAC to the end of the payload, without preamble or FCS
(what the MACs' client streams carry). Captures are classic pcap or pcapng with Ethernet link type.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from .lib import crc

DLT_EN10MB = 1
MIN_FRAME = 60  # without FCS


@dataclass
class Captured:
    data: bytes
    time: float  # seconds


def read_pcap(path: str | Path) -> list[Captured]:
    """Every frame of a pcap/pcapng capture with its timestamp. Ethernet link type only."""
    from scapy.utils import RawPcapReader

    out = []
    with RawPcapReader(str(path)) as reader:  # pcap and pcapng alike
        linktype = getattr(reader, "linktype", DLT_EN10MB)
        if linktype != DLT_EN10MB:
            raise ValueError(f"{path}: link type {linktype} is not Ethernet (1)")
        for data, meta in reader:
            if hasattr(meta, "sec"):
                t = meta.sec + meta.usec * 1e-6
            else:  # pcapng: tshigh/tslow in the interface's resolution (microseconds by default)
                t = ((meta.tshigh << 32) | meta.tslow) / float(getattr(meta, "tsresol", 1_000_000))
            out.append(Captured(bytes(data), t))
    return out


def write_pcap(path: str | Path, frames: Iterable[bytes | Captured]) -> int:
    """Write frames as a classic Ethernet pcap that Wireshark opens; returns the count."""
    from scapy.utils import PcapWriter

    n = 0
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    writer = PcapWriter(str(path), linktype=DLT_EN10MB, sync=False)
    writer.write_header(None)  # write_packet() alone never writes the file header
    try:
        for i, f in enumerate(frames):
            data, t = (f.data, f.time) if isinstance(f, Captured) else (bytes(f), float(i) * 1e-6)
            sec = int(t)
            writer.write_packet(data, sec=sec, usec=int(round((t - sec) * 1e6)) % 1_000_000)
            n += 1
    finally:
        writer.close()
    return n


def fcs(frame: bytes) -> bytes:
    """The Ethernet FCS of a frame (without FCS), in wire order (see fastpath.lib.crc)."""
    return crc.fcs(frame).to_bytes(4, "little")


with_fcs = crc.append_fcs
fcs_ok = crc.fcs_ok


def pad(frame: bytes) -> bytes:
    return frame + bytes(max(0, MIN_FRAME - len(frame)))


def udp_frame(size: int, rng: random.Random | None = None, vlan: int | None = None,
              src: str = "02:00:00:00:00:01", dst: str = "02:00:00:00:00:02") -> bytes:
    """An Ethernet [/802.1Q] / IPv4 / UDP frame of exactly `size` bytes (without FCS), random payload."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Dot1Q, Ether

    rng = rng or random.Random(0)
    hdr = Ether(src=src, dst=dst)
    if vlan is not None:
        hdr = hdr / Dot1Q(vlan=vlan)
    hdr = hdr / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1024, dport=9)
    room = size - len(hdr)
    if room < 0:
        raise ValueError(f"a UDP frame needs at least {len(hdr)} bytes, asked {size}")
    payload = bytes(rng.getrandbits(8) for _ in range(room))
    return bytes(hdr / payload)


def random_frame(rng: random.Random, lo: int = 60, hi: int = 1514) -> bytes:
    """A random-length frame of random bytes with unicast addresses (no structure past the MACs)."""
    n = rng.randint(lo, hi)
    data = bytearray(rng.getrandbits(8) for _ in range(n))
    data[0] &= 0xFE  # unicast destination
    data[6] &= 0xFE
    return bytes(data)
