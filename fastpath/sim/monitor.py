"""A cycle-stamped AXI4-Stream monitor: every beat with its cycle, time and fields, and the frames made of them.

    mon = BeatMonitor(dut, "m_axis", dut.clk, dut.rst)    # samples once per cycle, from now on
    ...
    f = mon.frames[0]          # Frame: data, user, first_valid, first_beat, last_beat, beats, gap
    f.beats[0].cycle, f.beats[0]["tdata"], f.last("tkeep"), f.first("ts"), mon.beats (every beat)

Cycle numbering (the latency convention of fastpath.sim.tb): cycle c is the clock cycle that begins
at the c-th rising edge after the monitor was made; a monitor's own loop samples the bus in ReadOnly
after each rising edge, i.e. the values held during cycle c. Monitors made in the same step (before
the clock starts, as testbenches do) count the same cycles. Without a clock the monitor has no loop:
the caller's loop calls `sample(cycle)` once per cycle with its own numbering -- in ReadOnly, or at
the rising edge that ends the cycle (the values that edge samples; then `on_frame` callbacks may
drive inputs), and `every_cycle` lets other per-cycle checks share a monitor's loop and numbering.

A beat is a cycle with tvalid && tready (tvalid alone on a bus without tready: the wire cannot
wait). A frame starts at its first tvalid (`first_valid`, offered) and ends with the beat that has
tlast (every beat is a frame on a bus without tlast). Recorded per beat: tdata, tkeep, tstrb, tlast,
tuser, tid, tdest when the bus has them (`fields` picks fewer) and `extra` non-standard signals of
the same prefix (m_axis_ts: extra=("ts",)). `data` keeps the bytes whose tkeep bit is set. X or Z
bits read as 0. Optional checks: `check` (tkeep contiguous from byte 0 and not 0, only the last
beat partial) and `constant` (fields that must not change inside a frame) raise AssertionError.
`reset` (active high) drops a frame in progress and ignores the bus while it is high.
`sleep=True` (for slow streams: clock enables, MII) lets the loop sleep while tvalid is low; the
cycle of a beat is then computed from the clock period measured over the first two edges.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

import cocotb
from cocotb.triggers import Event, ReadOnly, RisingEdge, with_timeout
from cocotb.simtime import get_sim_time

STANDARD = ("tdata", "tkeep", "tstrb", "tlast", "tuser", "tid", "tdest")


def high(signal) -> bool:
    """True when a 1-bit signal is a resolved 1 (X and Z read as 0, as before reset in Icarus)."""
    return str(signal.value) == "1"


def uint(signal) -> int:
    """A signal as an unsigned int; X and Z bits (Icarus, lanes outside tkeep) read as 0."""
    v = signal.value
    try:
        return int(v)
    except ValueError:
        return int(str(v).lower().replace("x", "0").replace("z", "0"), 2)


def now_ps() -> int:
    return round(get_sim_time("ps"))


class Beat:
    """One beat: `cycle`, `ps` (simulation time of the sample) and its fields (beat["tdata"])."""

    __slots__ = ("cycle", "ps", "fields")

    def __init__(self, cycle: int, ps: int, fields: dict):
        self.cycle, self.ps, self.fields = cycle, ps, fields

    def __getitem__(self, name: str) -> int:
        return self.fields[name]

    def get(self, name: str, default: int = 0) -> int:
        return self.fields.get(name, default)

    def __repr__(self):
        return f"Beat(cycle={self.cycle}, {self.fields})"


class Frame:
    """One frame: the cycle (and time in ps) its first beat was offered, its beats, and
    `gap` -- after how many beats tvalid first dropped inside it (an underrun; None: never)."""

    __slots__ = ("first_valid", "first_valid_ps", "beats", "gap", "data")

    def __init__(self, first_valid: int, first_valid_ps: int):
        self.first_valid, self.first_valid_ps = first_valid, first_valid_ps
        self.beats: list[Beat] = []
        self.gap: int | None = None
        self.data: bytes | None = None  # set when the frame ends, if tdata is recorded

    # cycles and times of the first and last accepted beats
    first_beat = property(lambda self: self.beats[0].cycle)
    last_beat = property(lambda self: self.beats[-1].cycle)
    first_beat_ps = property(lambda self: self.beats[0].ps)
    last_beat_ps = property(lambda self: self.beats[-1].ps)
    # the same times in ns (fastpath.sim.tb.FrameTiming's fields)
    first_valid_ns = property(lambda self: self.first_valid_ps / 1000)
    first_beat_ns = property(lambda self: self.first_beat_ps / 1000)
    last_beat_ns = property(lambda self: self.last_beat_ps / 1000)

    def first(self, name: str, default: int = 0) -> int:
        """A field on the first beat."""
        return self.beats[0].get(name, default)

    def last(self, name: str, default: int = 0) -> int:
        """A field on the last beat."""
        return self.beats[-1].get(name, default)

    @property
    def user(self) -> int:
        """tuser on the last beat (0 on a bus without tuser)."""
        return self.last("tuser")

    @property
    def bad(self) -> int:
        """tuser[0] on the last beat: the frame is marked bad."""
        return self.user & 1

    def __repr__(self):
        return (f"Frame(first_valid={self.first_valid}, beats={len(self.beats)}, gap={self.gap}"
                + (f", {len(self.data)} bytes)" if self.data is not None else ")"))


class BeatMonitor:
    """Records every beat of an AXI4-Stream bus with its cycle, and assembles frames (module docstring)."""

    def __init__(self, dut, prefix: str = "m_axis", clock=None, reset=None, *,
                 signals: Mapping[str, object] | None = None, fields: Iterable[str] | None = None,
                 extra: Iterable[str] = (), constant: Iterable[str] = (), check: bool = False,
                 sleep: bool = False):
        self.prefix = prefix
        handles = {}
        for name in (*STANDARD, "tvalid", "tready", *extra):
            h = getattr(dut, f"{prefix}_{name}", None)
            if h is not None:
                handles[name] = h
        handles.update(signals or {})
        if "tvalid" not in handles:
            raise ValueError(f"{prefix}: no {prefix}_tvalid")
        self._valid = handles["tvalid"]
        self._ready = handles.get("tready")
        self._has_last = "tlast" in handles
        wanted = set(STANDARD if fields is None else fields) | set(extra) | {"tlast"} | set(constant)
        self._fields = {n: h for n, h in handles.items() if n in wanted and n not in ("tvalid", "tready")}
        self._lanes = max(1, len(handles["tdata"]) // 8) if "tdata" in self._fields else 0
        self._constant = tuple(constant)
        self._check = check
        self._reset = reset
        self.frames: list[Frame] = []
        self.beats: list[Beat] = []  # every beat, in order
        self.current: Frame | None = None  # the frame being offered or received
        self.cycle = 0  # the last cycle sampled by the monitor's own loop
        self._each: list[Callable[[int], None]] = []
        self._on_frame: list[Callable[[Frame], None]] = []
        self._event = Event()
        self._sleep = sleep
        self._clock = clock
        if clock is not None:
            self._task = cocotb.start_soon(self._run())

    # ---- hooks ---------------------------------------------------------------------------------

    def every_cycle(self, fn: Callable[[int], None]):
        """Call fn(cycle) in every cycle of the monitor's loop, right after the bus is sampled
        (in ReadOnly: fn may read signals, not drive them). Not with sleep=True."""
        if self._clock is None or self._sleep:
            raise ValueError("every_cycle needs the monitor's own loop without sleep")
        self._each.append(fn)

    def on_frame(self, fn: Callable[[Frame], None]):
        """Call fn(frame) when a frame ends (after it is appended to `frames`)."""
        self._on_frame.append(fn)

    def clear(self):
        """Forget every frame and beat, and the frame in progress."""
        self.frames.clear()
        self.beats.clear()
        self.current = None

    async def wait_frames(self, n: int, timeout_us: float | None = None):
        """Wait until `frames` holds n frames (SimTimeoutError after timeout_us)."""
        async def _wait():
            while len(self.frames) < n:
                self._event.clear()
                await self._event.wait()
        if timeout_us is None:
            await _wait()
        else:
            await with_timeout(_wait(), timeout_us, "us")

    # ---- sampling ------------------------------------------------------------------------------

    def sample(self, cycle: int, ps: int | None = None):
        """Sample the bus once for `cycle` (the caller's loop, when the monitor has no clock)."""
        if self._reset is not None and high(self._reset):
            self.current = None
            return
        cur = self.current
        if not high(self._valid):
            if cur is not None and cur.beats and cur.gap is None:
                cur.gap = len(cur.beats)
            return
        if ps is None:
            ps = now_ps()
        if cur is None:
            cur = self.current = Frame(cycle, ps)
        if self._ready is not None and not high(self._ready):
            return
        beat = Beat(cycle, ps, {n: uint(h) for n, h in self._fields.items()})
        if self._check:
            self._check_beat(beat)
        for name in self._constant:
            if cur.beats and beat[name] != cur.beats[0][name]:
                raise AssertionError(f"{self.prefix}_{name} changed inside a frame")
        cur.beats.append(beat)
        self.beats.append(beat)
        if not self._has_last or beat["tlast"]:
            self._end(cur)

    def _check_beat(self, beat: Beat):
        keep = beat.get("tkeep", (1 << self._lanes) - 1)
        n = bin(keep).count("1")
        assert keep == (1 << n) - 1 and n > 0, f"{self.prefix}_tkeep {keep:0{max(2, self._lanes // 4)}x}"
        if self._has_last and not beat["tlast"] and n != self._lanes:
            raise AssertionError(f"{self.prefix}: partial beat without tlast")

    def _end(self, cur: Frame):
        if self._lanes:
            out = bytearray()
            full = (1 << self._lanes) - 1
            for b in cur.beats:
                word = b["tdata"].to_bytes(self._lanes, "little")
                keep = b.get("tkeep", full)
                if keep == full:
                    out += word
                else:
                    out += bytes(word[i] for i in range(self._lanes) if keep >> i & 1)
            cur.data = bytes(out)
        self.frames.append(cur)
        self.current = None
        self._event.set()
        for fn in self._on_frame:
            fn(cur)

    async def _run(self):
        clock, valid = self._clock, self._valid
        period = t_ref = c_ref = None
        while True:
            await RisingEdge(clock)
            t = now_ps()
            await ReadOnly()
            self.cycle += 1
            self.sample(self.cycle, t)
            for fn in self._each:
                fn(self.cycle)
            if not self._sleep:
                continue
            if period is None:
                if t_ref is not None:
                    period, t_ref, c_ref = t - t_ref, t, self.cycle
                else:
                    t_ref = t
                continue
            while not high(valid):
                await RisingEdge(valid)
                await ReadOnly()
                t = now_ps()
                # the cycle that began at the last rising edge at or before t
                self.cycle = c_ref + (t - t_ref) // period
                self.sample(self.cycle, t - (t - t_ref) % period)


class StreamTimer(BeatMonitor):
    """Per frame, the cycles at which a bus offered and moved its beats (a BeatMonitor that reads
    no data): `frames[i].first_valid`, `.first_beat`, `.last_beat`, and the same in ns."""

    def __init__(self, dut, prefix: str, clock):
        super().__init__(dut, prefix, clock, fields=())


FrameTiming = Frame  # the frames of a StreamTimer


def latencies(inp: BeatMonitor, out: BeatMonitor) -> list[int]:
    """Per-frame latency (fastpath.sim.tb's convention: first beat accepted on the input -> first
    beat offered on the output) for frames that map one to one, in order."""
    n = min(len(inp.frames), len(out.frames))
    return [out.frames[i].first_valid - inp.frames[i].first_beat for i in range(n)]


__all__ = ["Beat", "BeatMonitor", "Frame", "FrameTiming", "StreamTimer", "high", "latencies", "now_ps", "uint"]
