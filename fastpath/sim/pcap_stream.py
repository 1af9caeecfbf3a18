"""cocotb side of `fastpath sim stream`: run any AXI-Stream core over a capture.

Configured by $FASTPATH_STREAM (JSON): in/out pcap paths, summary path, clock period, signals to
set before reset ("set") and to read at the end ("report"). Frames enter back to back; the output
is collected until the core has been idle for `idle_cycles`. Frames marked bad (tuser[0] on the
last beat) are counted and, unless "keep_bad", left out of the output capture.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from fastpath import frames as fr
from fastpath.sim.axis import AxisHarness, frame, last_user


def _signal(dut, name):
    obj = dut
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


@cocotb.test()
async def stream(dut):
    cfg = json.loads(os.environ["FASTPATH_STREAM"])
    two = hasattr(dut, "s_clk")
    if two:
        clk, rsts = dut.m_clk, (dut.s_rst, dut.m_rst)
        h = AxisHarness(dut, None, None, s_clock=dut.s_clk, s_reset=dut.s_rst,
                        m_clock=dut.m_clk, m_reset=dut.m_rst)
        cocotb.start_soon(Clock(dut.s_clk, cfg["period_ns"], unit="ns").start())
    else:
        clk, rsts = dut.clk, (dut.rst,)
        h = AxisHarness(dut, dut.clk, dut.rst)
    cocotb.start_soon(Clock(clk, cfg["period_ns"], unit="ns").start())
    for name, value in cfg.get("set", {}).items():
        _signal(dut, name).value = int(value)
    for r in rsts:
        r.value = 1
    await ClockCycles(clk, 8)
    for r in rsts:
        r.value = 0
    await ClockCycles(clk, 4)

    inputs = fr.read_pcap(cfg["in"])
    await h.send([frame(c.data) for c in inputs])
    await h.source.wait()
    out, bad, idle = [], 0, 0
    while idle < cfg.get("idle_cycles", 200):
        await RisingEdge(clk)
        idle += 1
        while not h.sink.empty():
            f = h.sink.recv_nowait()
            idle = 0
            if last_user(f) & 1:
                bad += 1
                if not cfg.get("keep_bad"):
                    continue
            out.append(fr.Captured(bytes(f.tdata), get_sim_time(unit="ns") * 1e-9))
    fr.write_pcap(cfg["out"], out)
    report = {name: int(_signal(dut, name).value) for name in cfg.get("report", [])}
    with open(cfg["summary"], "w") as fh:
        json.dump({"frames_in": len(inputs), "frames_out": len(out), "bad_out": bad,
                   "signals": report}, fh)
