"""Helpers used inside cocotb tests: parameters, clock/reset, backpressure, cycle-exact logs.

Latency convention (used by every module's datasheet and test): the latency of a stream module
is the number of clock cycles from the rising edge at which the first beat of a frame is accepted
on the input (tvalid && tready) to the rising edge at which the first beat of that frame is first
presented on the output (tvalid), with the output always ready. Latency 0 would be combinational.
The cycle-stamped stream monitor (BeatMonitor, and StreamTimer on it) is in fastpath.sim.monitor.
"""
from __future__ import annotations

import json
import os
import random
from typing import Iterator

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge

# The stream monitor lives in .monitor; its names are also this module's (StreamTimer, FrameTiming and
# latencies were defined here before BeatMonitor replaced them).
from .monitor import Beat, BeatMonitor, Frame, FrameTiming, StreamTimer, high, latencies, uint  # noqa: F401


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


def random_bytes(rng_: random.Random, n: int) -> bytes:
    return bytes(rng_.getrandbits(8) for _ in range(n))


