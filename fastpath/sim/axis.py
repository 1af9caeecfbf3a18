"""An AXI4-Stream test harness on cocotbext-axi: source, sink, backpressure and cycle timers.

    h = AxisHarness(dut, dut.clk, dut.rst)
    h.backpressure(rng, source_p=0.2, sink_p=0.3)
    await h.send(frames); got = await h.recv(len(frames))
"""
from __future__ import annotations

import random

from cocotb.triggers import ClockCycles, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from .tb import StreamTimer, latencies, pauses


def frame(data: bytes, bad: bool = False, user_last: int | None = None) -> AxiStreamFrame:
    """A frame whose tuser is 0 on every beat but the last, which carries `bad` (or user_last)."""
    last = int(bad) if user_last is None else user_last
    return AxiStreamFrame(bytes(data), tuser=[0] * (len(data) - 1) + [last])


def last_user(f: AxiStreamFrame) -> int:
    """tuser on the frame's last beat."""
    if f.tuser is None:
        return 0
    return f.tuser if isinstance(f.tuser, int) else f.tuser[-1]


class AxisHarness:
    def __init__(self, dut, clock, reset, s: str = "s_axis", m: str = "m_axis",
                 s_clock=None, s_reset=None, m_clock=None, m_reset=None):
        # cocotb handles have no truth value: compare with None, never use `or`.
        sc = s_clock if s_clock is not None else clock
        mc = m_clock if m_clock is not None else clock
        sr = s_reset if s_reset is not None else reset
        mr = m_reset if m_reset is not None else reset
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, s), sc, sr)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, m), mc, mr)
        self.t_in = StreamTimer(dut, s, sc)
        self.t_out = StreamTimer(dut, m, mc)
        self._clock = mc

    def backpressure(self, rng: random.Random, source_p: float = 0.0, sink_p: float = 0.0):
        self.source.set_pause_generator(pauses(rng, source_p) if source_p else None)
        self.sink.set_pause_generator(pauses(rng, sink_p) if sink_p else None)
        # Removing a generator leaves `pause` at its last value: make "no backpressure" mean it.
        if not source_p:
            self.source.pause = False
        if not sink_p:
            self.sink.pause = False

    async def send(self, frames):
        for f in frames:
            await self.source.send(f if isinstance(f, AxiStreamFrame) else frame(f))

    async def recv(self, n: int, timeout_cycles: int = 200_000):
        """Receive n frames; fail (never hang) if they do not arrive within timeout_cycles."""
        out = []
        for _ in range(n):
            out.append(await with_timeout(self.sink.recv(), timeout_cycles * 10, "ns"))
        return out

    async def drain(self, idle_cycles: int = 50):
        """Wait until the source is idle, then idle_cycles more; returns frames that arrived."""
        await self.source.wait()
        await ClockCycles(self._clock, idle_cycles)
        out = []
        while not self.sink.empty():
            out.append(self.sink.recv_nowait())
        return out

    def latencies(self):
        return latencies(self.t_in, self.t_out)


__all__ = ["AxisHarness", "frame", "last_user"]
