"""cocotb side of the stream benchmarks: latency and throughput of one stream core.

Driven by fastpath.lib.bench through $FASTPATH_BENCH (JSON: sizes, frames per size, clock periods)
and writing $FASTPATH_BENCH_OUT. Frames go back to back with the output always ready, so the
measured latency is the module's unloaded latency and the throughput its sustained maximum.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge

from fastpath.sim.axis import AxisHarness, frame
from fastpath.sim.tb import random_bytes, rng


@cocotb.test()
async def measure(dut):
    cfg = json.loads(os.environ["FASTPATH_BENCH"])
    r = rng()
    two_clocks = hasattr(dut, "s_clk")
    if two_clocks:
        s_clk, m_clk, s_rst, m_rst = dut.s_clk, dut.m_clk, dut.s_rst, dut.m_rst
        h = AxisHarness(dut, None, None, s_clock=s_clk, s_reset=s_rst, m_clock=m_clk, m_reset=m_rst)
        cocotb.start_soon(Clock(s_clk, cfg["s_period_ns"], unit="ns").start())
        cocotb.start_soon(Clock(m_clk, cfg["m_period_ns"], unit="ns").start())
        resets = (s_rst, m_rst)
    else:
        m_clk = dut.clk
        h = AxisHarness(dut, dut.clk, dut.rst)
        cocotb.start_soon(Clock(dut.clk, cfg["m_period_ns"], unit="ns").start())
        resets = (dut.rst,)
    for rst in resets:
        rst.value = 1
    await ClockCycles(m_clk, 8)
    for rst in resets:
        rst.value = 0
    await ClockCycles(m_clk, 8)
    width = len(dut.s_axis_tdata) // 8
    results = []
    for size in cfg["sizes"]:
        n0_in, n0_out = len(h.t_in.frames), len(h.t_out.frames)
        n = cfg["frames"]
        await h.send([frame(random_bytes(r, size)) for _ in range(n)])
        got = await h.recv(n)
        assert all(len(g.tdata) == size for g in got)
        fin, fout = h.t_in.frames[n0_in:], h.t_out.frames[n0_out:]
        # Times, not cycle indices: the two sides may run on different clocks.
        lat_ns = [o.first_valid_ns - i.first_beat_ns for i, o in zip(fin, fout)]
        beats = n * -(-size // width)
        m_ns = cfg["m_period_ns"]
        span_ns = fout[-1].last_beat_ns - fout[0].first_beat_ns + m_ns
        slow_ns = max(cfg["s_period_ns"], m_ns)  # full rate = one beat per cycle of the slower side
        results.append({"size": size, "frames": n,
                        "latency_ns": {"min": round(min(lat_ns), 3), "max": round(max(lat_ns), 3)},
                        "latency_cycles": {"min": round(min(lat_ns) / m_ns, 2), "max": round(max(lat_ns) / m_ns, 2)},
                        "beats": beats, "span_ns": span_ns,
                        "throughput_pct": round(100.0 * beats * slow_ns / span_ns, 2)})
        await RisingEdge(m_clk)
    with open(os.environ["FASTPATH_BENCH_OUT"], "w") as fh:
        json.dump(results, fh)
