"""Captures with nanosecond timestamps: read pcap/pcapng keeping every digit, write both.

`fastpath.frames.read_pcap` gives float seconds, which cannot hold nanoseconds at today's Unix
time (a float has ~240 ns steps there); the tester needs every nanosecond, so this module reads
the raw timestamps with scapy's RawPcapReader/RawPcapNgReader and keeps them as integers:
`Captured.time` is fp_time units (1/65536 ns) since the capture's epoch, not wrapped.

Writes: classic pcap with nanosecond timestamps (magic 0xa1b23c4d) and pcapng whose interface
says if_tsresol = 9 (nanoseconds), both Ethernet.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Iterable

DLT_EN10MB = 1
NS = 1 << 16  # fp_time units per ns


class CaptureError(ValueError):
    """A file that is not a usable capture; the message says why, in one line."""


@dataclass
class Captured:
    data: bytes
    time: int        # fp_time units (ns * 65536) since the capture's epoch, full width
    wire_len: int    # the frame's length on the wire as recorded (>= len(data))

    @property
    def time_ns(self) -> int:
        return self.time >> 16


@dataclass
class Capture:
    frames: list[Captured]
    kind: str                # "pcap" or "pcapng"
    resolution_ns: float     # the coarsest timestamp unit of the file's interfaces


def read(path: str | Path) -> Capture:
    """Every frame of an Ethernet pcap or pcapng with its exact timestamp."""
    from scapy.error import Scapy_Exception
    from scapy.utils import RawPcapNgReader, RawPcapReader

    path = Path(path)
    if not path.is_file():
        raise CaptureError(f"no such capture: {path}")
    try:
        reader = RawPcapReader(str(path))  # a pcapng file gives a RawPcapNgReader
    except (Scapy_Exception, OSError, EOFError, struct.error) as e:
        raise CaptureError(f"{path}: not a pcap or pcapng capture ({e})") from None
    frames: list[Captured] = []
    resolutions: set[int] = set()
    with reader:
        ng = isinstance(reader, RawPcapNgReader)
        if not ng and reader.linktype != DLT_EN10MB:
            raise CaptureError(f"{path}: link type {reader.linktype} is not Ethernet (1)")
        unit = 10**9 if getattr(reader, "nano", False) else 10**6
        for data, meta in reader:
            if ng:
                if meta.linktype != DLT_EN10MB:
                    raise CaptureError(f"{path}: an interface with link type {meta.linktype}, not Ethernet (1)")
                if meta.tshigh is None:
                    raise CaptureError(f"{path}: simple packet blocks carry no timestamps")
                ticks, unit = (meta.tshigh << 32) | meta.tslow, meta.tsresol
            else:
                ticks = meta.sec * unit + meta.usec
            resolutions.add(unit)
            t = Fraction(ticks * 10**9 * NS, unit)
            frames.append(Captured(bytes(data), round(t), max(meta.wirelen, len(data))))
    res = 1e9 / min(resolutions) if resolutions else 1.0
    return Capture(frames, "pcapng" if ng else "pcap", res)


def _split(t: int) -> tuple[int, int]:
    ns = t >> 16
    return ns // 10**9, ns % 10**9


def write_pcap(path: str | Path, frames: Iterable[Captured]) -> int:
    """Classic pcap, nanosecond timestamps (fractions of a ns are dropped); returns the count."""
    from scapy.utils import PcapWriter

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with PcapWriter(str(path), linktype=DLT_EN10MB, nano=True, sync=False) as w:
        w.write_header(None)
        for f in frames:
            sec, ns = _split(f.time)
            w.write_packet(f.data, sec=sec, usec=ns, wirelen=max(f.wire_len, len(f.data)))
            n += 1
    return n


def _ns_pcapng_writer():
    from scapy.utils import PcapNgWriter

    class NsPcapNgWriter(PcapNgWriter):
        """scapy's pcapng writer with nanosecond timestamps: the interface block carries
        if_tsresol = 9 and every timestamp is an exact integer count of nanoseconds."""

        def __init__(self, filename: str):
            super().__init__(filename)
            self.tsresol = 10**9
            self.linktype = DLT_EN10MB

        def _write_block_idb(self, linktype, ifname=None):
            body = struct.pack("<HHI", linktype, 0, 262144)
            opts = struct.pack("<HHB3x", 9, 1, 9)  # if_tsresol: 10^-9 s
            if ifname:
                opts += struct.pack("<HH", 2, len(ifname)) + self._add_padding(ifname)
            opts += struct.pack("<HH", 0, 0)
            self.f.write(self.build_block(struct.pack("<I", 1), body, options=opts))

    return NsPcapNgWriter


def write_pcapng(path: str | Path, frames: Iterable[Captured], comments: Iterable[str] | None = None) -> int:
    """pcapng with if_tsresol = 9; optionally one comment per frame; returns the count."""
    from scapy.packet import Raw

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    notes = iter(comments) if comments is not None else None
    n = 0
    w = _ns_pcapng_writer()(str(path))
    try:
        w.write_header(None)
        for f in frames:
            pkt: bytes | Raw = f.data
            if notes is not None:
                pkt = Raw(f.data)
                pkt.comments = [next(notes).encode()]
            w.write_packet(pkt, sec=Fraction(f.time >> 16, 10**9), wirelen=max(f.wire_len, len(f.data)))
            n += 1
    finally:
        w.close()
    return n


def write(path: str | Path, frames: Iterable[Captured]) -> int:
    """pcapng when the name ends in .pcapng, else classic pcap; nanosecond timestamps either way."""
    if str(path).endswith(".pcapng"):
        return write_pcapng(path, frames)
    return write_pcap(path, frames)
