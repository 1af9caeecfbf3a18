"""cocotb side of `fastpath.sim.stream.run_pcap` (`fastpath sim stream`, `fastpath gre decap|encap`):
run an AXI-Stream core over a capture.

Configured by $FASTPATH_STREAM (JSON, written by fastpath.sim.stream):
  in, out, summary   input pcap, output pcap, summary JSON (below)
  period_ns          clock period (both clocks of a core with s_clk/m_clk)
  set                {signal: value} driven before reset and held (configuration ports)
  sideband           {signal: [value per input frame]} driven with every beat of the frame (s_axis_tlen,
                     s_axis_tdest, ...)
  pulses             {valid: value}: record `value` in every cycle `valid` is high (stat_valid/stat_reason)
  pulses_per_frame   the run does not end before every pulse list holds this many values per input frame
  report             signals read at the end
  keep_bad           also write the frames marked bad (tuser[0] on the last beat) to `out`
  idle_cycles        the run ends when the input is done and the output has been idle this long
  max_cycles         ... or at this cycle limit (default: generous for the capture's size)
Frames enter back to back (s_axis_tkeep contiguous, tuser 0) with the output always ready; the output
is collected by a BeatMonitor on m_axis. Cycles count from the end of reset on the output clock.

Summary: {"frames_in", "frames_out" (written), "bad_out", "bad": [tuser[0] per output frame],
"pulses": {valid: [values]}, "signals": {name: value}, "cycles", "timed_out", "accepted" (input frames)}.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Event, ReadOnly, RisingEdge

from fastpath import frames as fr
from fastpath.sim.monitor import BeatMonitor, high, uint


def _signal(dut, name):
    obj = dut
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


class FrameDriver:
    """Drives whole frames on an AXI-Stream input back to back, with per-frame sideband signals
    held for every beat of their frame; `accepted` counts the frames taken by the core."""

    def __init__(self, dut, prefix: str, clock, frames: list[bytes], sideband: dict):
        self.clock = clock
        self.s = {n: getattr(dut, f"{prefix}_{n}", None)
                  for n in ("tdata", "tkeep", "tvalid", "tready", "tlast", "tuser")}
        self.lanes = max(1, len(self.s["tdata"]) // 8)
        self.frames = frames
        self.sideband = {_signal(dut, k): v for k, v in sideband.items()}
        self.accepted = 0
        for h in (*self.s.values(), *self.sideband):
            if h is not None and h is not self.s["tready"]:
                h.value = 0

    def _beats(self, data: bytes):
        """(tdata, tkeep, tlast) per beat of one frame."""
        w = self.lanes
        chunks = [data[i:i + w] for i in range(0, len(data), w)] or [b""]
        return [(int.from_bytes(c, "little"), (1 << len(c)) - 1, int(k == len(chunks) - 1))
                for k, c in enumerate(chunks)]

    async def run(self):
        s = self.s
        beats = None
        while True:
            await RisingEdge(self.clock)
            if beats is None and self.accepted < len(self.frames):
                beats, bi = self._beats(self.frames[self.accepted]), 0
                for h, values in self.sideband.items():
                    h.value = values[self.accepted]
            if beats is None:
                s["tvalid"].value = 0
                if self.accepted == len(self.frames):
                    return
                continue
            data, keep, last = beats[bi]
            s["tdata"].value = data
            if s["tkeep"] is not None:
                s["tkeep"].value = keep
            s["tlast"].value = last
            s["tvalid"].value = 1
            await ReadOnly()
            if s["tready"] is None or high(s["tready"]):
                bi += 1
                if bi == len(beats):
                    beats = None
                    self.accepted += 1


@cocotb.test()
async def stream(dut):
    cfg = json.loads(os.environ["FASTPATH_STREAM"])
    two = hasattr(dut, "s_clk")
    s_clk, clk = (dut.s_clk, dut.m_clk) if two else (dut.clk, dut.clk)
    rsts = (dut.s_rst, dut.m_rst) if two else (dut.rst,)
    inputs = [c.data for c in fr.read_pcap(cfg["in"])]
    driver = FrameDriver(dut, "s_axis", s_clk, inputs, cfg.get("sideband") or {})
    if hasattr(dut, "m_axis_tready"):
        dut.m_axis_tready.value = 1
    for name, value in cfg.get("set", {}).items():
        _signal(dut, name).value = int(value)
    for c in (s_clk, clk) if two else (clk,):
        cocotb.start_soon(Clock(c, cfg["period_ns"], unit="ns").start())
    for r in rsts:
        r.value = 1
    await ClockCycles(clk, 8)
    for r in rsts:
        r.value = 0
    await ClockCycles(clk, 4)

    pulses = {v: (_signal(dut, v), _signal(dut, x), []) for v, x in (cfg.get("pulses") or {}).items()}
    want_pulses = cfg.get("pulses_per_frame", 0) * len(inputs)
    idle_cycles = cfg.get("idle_cycles", 200)
    total_beats = sum(len(f) // driver.lanes + 1 for f in inputs)
    limit = cfg.get("max_cycles") or 10_000 + 16 * total_beats + 64 * len(inputs)
    mon = BeatMonitor(dut, "m_axis", clk, fields=("tdata", "tkeep", "tlast", "tuser"))
    done = Event()
    state = {"idle": 0, "beats": 0, "timed_out": False, "cycles": 0}

    def each(cycle):
        for valid, value, got in pulses.values():
            if high(valid):
                got.append(uint(value))
        if len(mon.beats) != state["beats"]:
            state["beats"], state["idle"] = len(mon.beats), 0
        else:
            state["idle"] += 1
        if (driver.accepted == len(inputs) and all(len(got) >= want_pulses for _, _, got in pulses.values())
                and state["idle"] >= idle_cycles and (mon.current is None or not mon.current.beats)):
            state["cycles"] = cycle
            done.set()
        elif cycle >= limit:
            state["cycles"], state["timed_out"] = cycle, True
            done.set()

    mon.every_cycle(each)
    cocotb.start_soon(driver.run())
    await done.wait()

    keep_bad = cfg.get("keep_bad", False)
    out = [fr.Captured(f.data, f.last_beat_ps * 1e-12) for f in mon.frames if keep_bad or not f.bad]
    fr.write_pcap(cfg["out"], out)
    report = {name: uint(_signal(dut, name)) for name in cfg.get("report", [])}
    with open(cfg["summary"], "w") as fh:
        json.dump({"frames_in": len(inputs), "frames_out": len(out), "bad_out": sum(f.bad for f in mon.frames),
                   "bad": [f.bad for f in mon.frames], "pulses": {k: got for k, (_, _, got) in pulses.items()},
                   "signals": report, "cycles": state["cycles"], "timed_out": state["timed_out"],
                   "accepted": driver.accepted}, fh)
