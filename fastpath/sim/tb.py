"""Helpers used inside cocotb tests: parameters, clock/reset, backpressure, cycle-exact logs.

Latency convention (used by every module's datasheet and test): the latency of a stream module
is the number of clock cycles from the rising edge at which the first beat of a frame is accepted
on the input (tvalid && tready) to the rising edge at which the first beat of that frame is first
presented on the output (tvalid), with the output always ready. Latency 0 would be combinational.
"""
from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass, field
from typing import Iterator

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.utils import get_sim_time


def high(signal) -> bool:
    """True when a 1-bit signal is a resolved 1 (X and Z read as 0, as before reset in Icarus)."""
    return str(signal.value) == "1"


def params() -> dict:
    """The HDL parameters this simulation was built with (set by fastpath.sim.runner.run)."""
    raw = json.loads(os.environ.get("FASTPATH_PARAMS", "{}"))
    out = {}
    for k, v in raw.items():
        try:
            out[k] = int(v, 0) if isinstance(v, str) else v
        except ValueError:
            out[k] = v
    return out


def sim_name() -> str:
    return os.environ.get("FASTPATH_SIM", "verilator")


def rng() -> random.Random:
    """A random generator seeded from cocotb's seed, so a failing run can be replayed."""
    return random.Random(cocotb.RANDOM_SEED)


async def start(dut, clk: str = "clk", period_ns: float = 5.0, rst: str | None = "rst", cycles: int = 4):
    """Start a clock and hold a synchronous active-high reset for `cycles` cycles."""
    clock = getattr(dut, clk)
    cocotb.start_soon(Clock(clock, period_ns, unit="ns").start())
    if rst is not None:
        reset = getattr(dut, rst)
        reset.value = 1
        for _ in range(cycles):
            await RisingEdge(clock)
        reset.value = 0
        await RisingEdge(clock)


def pauses(rng_: random.Random, p: float) -> Iterator[bool]:
    """An endless pause pattern for cocotbext-axi's set_pause_generator: pause with probability p."""
    while True:
        yield rng_.random() < p


class CycleCounter:
    """Counts rising edges of a clock; `now` is the index of the current cycle."""

    def __init__(self, clock):
        self.now = 0
        self._task = cocotb.start_soon(self._run(clock))

    async def _run(self, clock):
        while True:
            await RisingEdge(clock)
            self.now += 1


@dataclass
class FrameTiming:
    first_valid: int  # cycle when the first beat was first offered (tvalid)
    first_beat: int  # cycle when the first beat was accepted (tvalid && tready)
    last_beat: int  # cycle when the last beat was accepted
    beats: int
    first_valid_ns: float = 0.0  # simulation times of the same events, for cross-clock figures
    first_beat_ns: float = 0.0
    last_beat_ns: float = 0.0


@dataclass
class StreamTimer:
    """Records, per frame, the cycles at which an AXI4-Stream bus offered and moved its beats.

    `prefix` names the bus signals (`s_axis` -> s_axis_tvalid, s_axis_tready, s_axis_tlast).
    A bus without tready (always ready) is supported.
    """

    dut: object
    prefix: str
    clock: object
    frames: list = field(default_factory=list)

    def __post_init__(self):
        self._valid = getattr(self.dut, f"{self.prefix}_tvalid")
        self._ready = getattr(self.dut, f"{self.prefix}_tready", None)
        self._last = getattr(self.dut, f"{self.prefix}_tlast")
        cocotb.start_soon(self._run())

    async def _run(self):
        cycle = 0
        offered = first = None
        offered_ns = first_ns = 0.0
        beats = 0
        while True:
            await RisingEdge(self.clock)
            await ReadOnly()
            cycle += 1
            if not high(self._valid):
                continue
            if offered is None:
                offered, offered_ns = cycle, get_sim_time(unit="ns")
            if self._ready is not None and not high(self._ready):
                continue
            if first is None:
                first, first_ns = cycle, get_sim_time(unit="ns")
            beats += 1
            if high(self._last):
                self.frames.append(FrameTiming(offered, first, cycle, beats, offered_ns, first_ns,
                                               get_sim_time(unit="ns")))
                offered = first = None
                beats = 0


def latencies(inp: StreamTimer, out: StreamTimer) -> list[int]:
    """Per-frame latency (see module docstring) for frames that map one to one, in order."""
    n = min(len(inp.frames), len(out.frames))
    return [out.frames[i].first_valid - inp.frames[i].first_beat for i in range(n)]


def random_bytes(rng_: random.Random, n: int) -> bytes:
    return bytes(rng_.getrandbits(8) for _ in range(n))


