"""Records of the RTL receiver (fp_ptrain_rx) and its per-stream counters, for the analyser.

The receiver writes one record per received tester frame: one m_axis beat of `WIDTH` bits whose
layout is ptrain/rtl/ptrain_record.fmt.toml (table: ptrain/docs/formats/ptrain_record.md); as
bytes, a record is `NBYTES` bytes with bit 0 in byte 0 (the beat's byte 0 first, as any AXI4-Stream
byte stream or a DMA buffer holds it). `decode()` reads one, `records()` turns a sequence of them
into the analyser's records (`fastpath.ptrain.analyze.Record`, in arrival order), dropping by default
those of frames the MAC marked bad:

    from fastpath.ptrain import analyze, record
    result = analyze.analyze(record.records(record.split(dma_bytes)))

`Counters` derives the loss figures from the receiver's per-stream counters (`stat_*` ports).
Records that reached the host over FADE (fp_ptrain_fade_1g, 40 bytes each with their number):
`fastpath.ptrain.fade_records`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from fastpath import formats

from .analyze import Record

FMT = formats.load("ptrain_record")
WIDTH = FMT.width          # bits of a record (one m_axis beat)
NBYTES = WIDTH // 8
FIELDS = tuple(f.name for f in FMT.fields)
MASK32 = 0xFFFFFFFF


@dataclass(frozen=True)
class RxRecord:
    """One record as the receiver wrote it (the fields of ptrain_record.fmt.toml)."""
    bad: int
    dup: int
    reordered: int
    late: int
    tx_flags: int
    stream: int
    size: int
    seq: int
    train: int
    index: int
    train_len: int
    tx_time: int
    rx_time: int

    def to_record(self) -> Record:
        """The analyser's record (its flags are the tester header's, tx_flags)."""
        return Record(seq=self.seq, train=self.train, index=self.index, size=self.size,
                      tx_time=self.tx_time, rx_time=self.rx_time, flags=self.tx_flags,
                      stream=self.stream, train_len=self.train_len)

    def encode(self) -> int:
        return FMT.pack(**{n: getattr(self, n) for n in FIELDS})


def decode(beat: int | bytes | bytearray) -> RxRecord:
    """A record from its beat (an int: tdata) or its NBYTES bytes (byte 0 = bits 7:0)."""
    if isinstance(beat, (bytes, bytearray)):
        if len(beat) != NBYTES:
            raise ValueError(f"a record is {NBYTES} bytes, got {len(beat)}")
        beat = int.from_bytes(beat, "little")
    if not 0 <= beat < 1 << WIDTH:
        raise ValueError(f"a record is {WIDTH} bits")
    return RxRecord(**FMT.unpack(beat))


def to_bytes(rec: RxRecord) -> bytes:
    return rec.encode().to_bytes(NBYTES, "little")


def split(data: bytes) -> list[bytes]:
    """Records stored back to back (NBYTES each) -> one bytes object per record."""
    if len(data) % NBYTES:
        raise ValueError(f"{len(data)} bytes is not a whole number of {NBYTES}-byte records")
    return [bytes(data[i:i + NBYTES]) for i in range(0, len(data), NBYTES)]


def records(beats: Iterable[int | bytes | RxRecord], drop_bad: bool = True) -> list[Record]:
    """The analyser's records, in arrival order; records of frames marked bad (bad FCS) are left
    out unless drop_bad is False."""
    out = []
    for b in beats:
        r = b if isinstance(b, RxRecord) else decode(b)
        if drop_bad and r.bad:
            continue
        out.append(r.to_record())
    return out


@dataclass(frozen=True)
class Counters:
    """One stream's counters as fp_ptrain_rx keeps them (stat_* ports, 32 bits each)."""
    seen: int
    received: int
    unique: int
    duplicates: int
    reordered: int
    late: int
    seq_first: int
    seq_highest: int
    train_first: int
    train_end: int

    @property
    def seq_span(self) -> int:
        """Frames from the lowest to the highest sequence number received."""
        return ((self.seq_highest - self.seq_first) & MASK32) + 1 if self.seen else 0

    @property
    def lost(self) -> int:
        """seq_span - unique: frames missing between the lowest and highest sequence numbers."""
        return self.seq_span - self.unique

    @property
    def frames_expected(self) -> int:
        """Frames of the trains received, from the first frame of the earliest train to the last
        of the latest (the analyser's frames_expected). For compact frames (train_len 0 in the
        record) the receiver takes a train's end as its highest sequence number received + 1, as
        the analyser takes its length as the highest index + 1."""
        return (self.train_end - self.train_first) & MASK32 if self.seen else 0

    @property
    def lost_trains(self) -> int:
        """frames_expected - unique: the analyser's `lost` (whole trains and train tails too)."""
        return self.frames_expected - self.unique
