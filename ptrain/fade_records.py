"""The packet-train receiver's records as they reach the host over FADE (fp_ptrain_fade_1g).

fp_ptrain_rec64 sends each record as 5 64-bit words; FADE delivers the words in order, exactly
once, little-endian (byte 0 of a word = bits 7:0), so the host's byte stream is 40 bytes per
record: the record's 36 bytes as `fastpath.ptrain.record` reads them (bit 0 in byte 0), then the
record's number (32 bits, little-endian: records sent by the tester top since its reset, modulo
2^32). `fade-recv -o FILE` writes exactly this stream to FILE; `FadeHost.data` (the Python host
model, fastpath.fade.model) holds it as words.

    from fastpath.ptrain import analyze, fade_records
    got = fade_records.decode(open("records.bin", "rb").read())
    result = analyze.analyze(got.records())

Every stream FADE delivers from a START starts on a record (the top drops the rest of a record a
STOP or RESET cut while the core is idle). A stream stopped without a DRAIN command first may end
inside a record: `Decoded.cut_bytes` says how many bytes of it arrived. Numbers that do not follow
each other (`Decoded.gaps`) show a record cut between two sessions whose streams were joined, or
a stream that does not start on a record (e.g. a file cut at an arbitrary byte).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from . import record as rec
from .analyze import Record

WORDS = 5                              # 64-bit words per record (fp_ptrain_rec64)
NBYTES = 8 * WORDS                     # 40
NUMBER_OFF = rec.NBYTES                # the number: bytes 36..39
MASK32 = 0xFFFFFFFF
CMD_DRAIN = 0x0101                     # fp_ptrain_fade_1g's user command (answer: records sent);
                                       # not 0x0100, which fade-recv --commands sends as a test

assert rec.NBYTES + 4 == NBYTES, "fp_ptrain_rec64 packs a 288-bit record and a 32-bit number"


def words_to_bytes(words: Iterable[int]) -> bytes:
    """FADE's 64-bit user words (as FadeHost.data holds them) -> the host's byte stream."""
    return b"".join((w & ((1 << 64) - 1)).to_bytes(8, "little") for w in words)


@dataclass
class Decoded:
    """What a FADE record stream holds: the records in arrival order with their numbers, the
    places where a number does not follow the previous one, and the bytes of a cut last record."""
    rx: list = field(default_factory=list)          # fastpath.ptrain.record.RxRecord
    numbers: list = field(default_factory=list)
    gaps: list = field(default_factory=list)        # (position, expected number, number)
    cut_bytes: int = 0

    def records(self, drop_bad: bool = True) -> list[Record]:
        """The analyser's records (fastpath.ptrain.record.records: bad-FCS ones left out)."""
        return rec.records(self.rx, drop_bad=drop_bad)

    @property
    def bad(self) -> int:
        return sum(r.bad for r in self.rx)

    def to_dict(self) -> dict:
        return {"records": len(self.rx), "bad_fcs": self.bad,
                "first_number": self.numbers[0] if self.numbers else None,
                "last_number": self.numbers[-1] if self.numbers else None,
                "number_gaps": len(self.gaps), "cut_bytes": self.cut_bytes}


class Decoder:
    """Decodes a FADE record stream fed in pieces of any size (e.g. as libfade hands them over);
    the numbers are checked across pieces."""

    def __init__(self) -> None:
        self.out = Decoded()
        self._rest = b""

    def feed(self, data: bytes) -> list:
        """Take more bytes; return the records they completed."""
        buf = self._rest + bytes(data)
        n = len(buf) // NBYTES
        self._rest = buf[n * NBYTES:]
        new = []
        for i in range(n):
            chunk = buf[i * NBYTES:(i + 1) * NBYTES]
            number = int.from_bytes(chunk[NUMBER_OFF:], "little")
            if self.out.numbers and number != (self.out.numbers[-1] + 1) & MASK32:
                self.out.gaps.append((len(self.out.rx), (self.out.numbers[-1] + 1) & MASK32, number))
            r = rec.decode(chunk[:NUMBER_OFF])
            self.out.rx.append(r)
            self.out.numbers.append(number)
            new.append(r)
        return new

    def finish(self) -> Decoded:
        """The stream has ended: a partial record left is counted in cut_bytes."""
        self.out.cut_bytes = len(self._rest)
        self._rest = b""
        return self.out


def decode(data: bytes) -> Decoded:
    """A whole FADE record stream (bytes) -> Decoded."""
    d = Decoder()
    d.feed(data)
    return d.finish()


def decode_words(words: Iterable[int]) -> Decoded:
    """The same from FADE's words (FadeHost.data)."""
    return decode(words_to_bytes(words))


def read(path: str | Path) -> Decoded:
    """A file fade-recv wrote (-o FILE) while fp_ptrain_fade_1g streamed its records."""
    return decode(Path(path).read_bytes())


def encode(records: Iterable, first_number: int = 0) -> bytes:
    """The stream fp_ptrain_rec64 makes of these records (RxRecord), numbered from first_number
    (tests, and files to try the CLI on)."""
    return b"".join(rec.to_bytes(r) + ((first_number + i) & MASK32).to_bytes(4, "little")
                    for i, r in enumerate(records))
