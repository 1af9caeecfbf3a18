"""Software model of a packet-train generator and of the path its frames cross (tests, demos).

This is not the RTL generator (not built yet) and not a traffic source for a real network: it
computes, in Python, the frames a generator would send (`schedule`: trains of equal-size frames
at a set layer-1 rate, separated by idle gaps) and the times a receiver would stamp after a
delay model (`Delay`: constant + per byte + seeded uniform jitter, deterministic loss), and
returns them as a capture (`frames`), which `fastpath ptrain frames` writes to pcap or pcapng.
TX times carry the Q48.16 fraction; RX times are written with nanosecond resolution.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from fractions import Fraction

from . import capture as cap
from . import frame as fr

NS = 1 << 16


@dataclass(frozen=True)
class Traffic:
    count: int                             # frames in the run
    sizes: tuple[int, ...] = (1514,)       # bytes without FCS; train k uses sizes[k % len(sizes)]
    rate_mbps: float = 10_000.0            # layer-1 rate inside a train (10000: back-to-back 10GbE)
    train_length: int = 100                # frames per train (the last train may be shorter)
    train_gap_ns: int | None = None        # idle between trains; default: one train's duration
    start_ns: int = 1_700_000_000 * 10**9  # TX time of the first frame (Unix time, ns)
    stream: int = 0
    headers: fr.Headers = field(default_factory=fr.Headers)

    def check(self) -> None:
        if self.count < 1 or self.train_length < 1:
            raise ValueError("count and train length are at least 1")
        if self.train_gap_ns is not None and self.train_gap_ns < 0:
            raise ValueError("the gap between trains is at least 0 ns")
        if not self.rate_mbps > 0:
            raise ValueError("the rate is a positive number of Mb/s")
        for s in self.sizes:
            if not self.headers.min_size <= s <= 0xFFFF:
                raise ValueError(f"frame size {s}: tester frames with these headers are "
                                 f"{self.headers.min_size}..65535 bytes without FCS")
            if self.headers.compact(s) and self.train_length > fr.COMPACT_TRAIN_MAX:
                raise ValueError(f"frame size {s} carries the compact header: trains of at most "
                                 f"{fr.COMPACT_TRAIN_MAX} frames")


@dataclass(frozen=True)
class Sent:
    seq: int
    train: int
    index: int
    train_len: int
    size: int
    tx_time: int   # fp_time units since the Unix epoch, full width


def schedule(t: Traffic) -> list[Sent]:
    """Every frame of the run with its TX time (start of frame)."""
    t.check()
    rate = Fraction(str(t.rate_mbps))
    now = Fraction(t.start_ns)
    out: list[Sent] = []
    seq = 0
    train = 0
    while seq < t.count:
        n = min(t.train_length, t.count - seq)
        size = t.sizes[train % len(t.sizes)]
        slot = Fraction(fr.wire_bytes(size) * 8 * 1000) / rate   # ns per frame at the rate
        begin = now
        for i in range(n):
            out.append(Sent(seq, train, i, n, size, int(now * NS)))
            now += slot
            seq += 1
        now += t.train_gap_ns if t.train_gap_ns is not None else now - begin
        train += 1
    return out


@dataclass(frozen=True)
class Delay:
    base_ns: float = 1000.0     # constant part
    per_byte_ns: float = 0.0    # + per byte of frame (without FCS)
    jitter_ns: float = 0.0      # + uniform in [0, jitter_ns], from a Random(seed)
    loss_every: int = 0         # drop the frames with seq % loss_every == loss_every - 1 (0: none)
    seed: int = 1

    def delay(self, size: int, rng: random.Random) -> int:
        """fp_time units."""
        ns = self.base_ns + self.per_byte_ns * size + (rng.uniform(0, self.jitter_ns) if self.jitter_ns else 0.0)
        return round(ns * NS)


def frames(t: Traffic, d: Delay = Delay()) -> tuple[list[cap.Captured], list[Sent]]:
    """The capture a receiver would take (frames in RX order, RX time = TX + delay) and what was sent."""
    sent = schedule(t)
    rng = random.Random(d.seed)
    rx = []
    for s in sent:
        delay = d.delay(s.size, rng)
        if d.loss_every and s.seq % d.loss_every == d.loss_every - 1:
            continue
        flags = fr.FLAG_LAST if s.index == s.train_len - 1 else 0
        data = fr.build(s.size, s.seq & 0xFFFFFFFF, s.train, s.index, s.train_len, s.tx_time,
                        stream=t.stream, flags=flags, headers=t.headers)
        rx.append(cap.Captured(data, s.tx_time + delay, len(data)))
    rx.sort(key=lambda c: c.time)
    return rx, sent
