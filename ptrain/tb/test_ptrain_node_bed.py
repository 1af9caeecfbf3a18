"""fp_ptrain_node_bed: the 1G tester measures a fastpath node (2 ports, 64-byte segments, datapath
at 200 MHz) in one simulation: trains from the tester's TX into the node's port 0, flooded out of
port 1 back into the tester's RX. The tester's one-way delay, less its own offset (8 ns, the
loopback calibration of test_ptrain_1g.py), must equal the node's latency as the node's own bench
and tests assert it (fastpath.node.budget.expected_latency_ns: SFD in to SFD out at the pins), for
every size, at full load on the port; no frame may be lost and the capacity from the trains'
dispersion must be the line rate (trains of 12 back-to-back frames of 84, 512 and 1514 bytes).
"""
from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from fastpath import regs
from fastpath.node import budget
from fastpath.ptrain import analyze
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import Driver
from fastpath.sim import runner

Q16 = 1 << 16
TESTER_OFFSET_NS = 8        # test_ptrain_1g.py: OFFSET_NS
DP_MHZ = 200.0


@cocotb.test()
async def tester_measures_the_node(dut):
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    cocotb.start_soon(Clock(dut.dp_clk, round(1e6 / DP_MHZ), unit="ps").start())
    dut.pps.value = 0
    dut.rst.value = 1
    dut.dp_rst.value = 1
    await ClockCycles(dut.clk, 10)
    dut.rst.value = 0
    dut.dp_rst.value = 0
    await ClockCycles(dut.clk, 10)
    node = regs.RegClient(regs.load("node"), AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_node_axil"),
                                                           dut.dp_clk, dut.dp_rst))
    release = budget.release_ns(64, DP_MHZ)
    await node.write("release_ns", release)
    t = Driver(dut, 8, seed=5)
    sizes = [84, 512, 1514]
    first = 0
    for size in sizes:
        # back to back: the port at full load (line rate), trains of 20
        await t.configure(size=size, train_len=12, trains=1, period=0, first_seq=first)
        await t.run(200_000)
        first += 12
    beats = await t.drain(3000)
    expected = budget.expected_latency_ns(64, DP_MHZ)
    owds = {(b.size, analyze.diff(b.rx_time, b.tx_time) / Q16 - TESTER_OFFSET_NS) for b in beats}
    dut._log.info(f"node latency measured by the tester: {sorted(owds)}; the node's own figure {expected} ns")
    assert len(beats) == 12 * len(sizes), f"{len(beats)} records of {12 * len(sizes)} frames"
    assert {o for _, o in owds} == {expected}, sorted(owds)
    res = analyze.analyze(rec.records(beats))["streams"][0]
    assert res["summary"]["lost"] == 0
    for tr in res["trains"]:
        assert abs(tr["capacity_bps"] - 1e9) / 1e9 < 1e-6, tr["capacity_bps"]
    c = await t.counters(0)
    assert (c.received, c.unique, c.duplicates, c.lost) == (36, 36, 0, 0)


def test_ptrain_node_bed():
    runner.run("fp_ptrain_node_bed", __name__, {"PPS_INTERVAL_NS": 100000})
