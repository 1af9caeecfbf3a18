"""fp_oddr (generic model): d1 shows in the high half and d2 in the low half of the next cycle."""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import Edge, ReadOnly, RisingEdge, Timer

from cocotb.simtime import get_sim_time

from fastpath.sim import runner
from fastpath.sim.tb import params, rng

LATENCY = 1  # cycles: d1, d2 sampled at rising edge k -> q during cycle k .. k + 1


@cocotb.test()
async def random_ddr_values(dut):
    """New random d1/d2 after every rising edge (as from rising-edge flip-flops); q is checked in
    the middle of each half cycle of the next cycle, and must never glitch."""
    r = rng()
    width = params().get("WIDTH", 1)
    dut.d1.value = 0
    dut.d2.value = 0
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    await RisingEdge(dut.clk)
    changes = []  # sim times at which q changed

    async def watch():
        while True:
            await Edge(dut.q)
            changes.append(get_sim_time())

    seq = []  # the values q must show, half cycle by half cycle
    n = 300
    pairs = [(r.getrandbits(width), r.getrandbits(width)) for _ in range(n)]
    dut.d1.value, dut.d2.value = pairs[0]  # as from rising-edge flip-flops: set after an edge
    for k in range(n):
        d1, d2 = pairs[k]
        seq += [d1, d2]
        await RisingEdge(dut.clk)  # samples pair k
        if k == 0:
            t0 = get_sim_time()
            cocotb.start_soon(watch())
        if k + 1 < n:
            dut.d1.value, dut.d2.value = pairs[k + 1]
        await Timer(2, unit="ns")
        await ReadOnly()
        assert int(dut.q.value) == d1, k
        await Timer(4, unit="ns")
        await ReadOnly()
        assert int(dut.q.value) == d2, k
    # no zero-time glitches: q changes exactly when the value to show changes, once each time
    expected = sum(a != b for a, b in zip(seq, seq[1:]))
    after = [t for t in changes if t > t0]
    assert len(after) == expected and len(set(after)) == len(after), (len(after), expected)


@pytest.mark.parametrize("width", [1, 5])
def test_oddr(width):
    runner.run("fp_oddr", __name__, {"WIDTH": width})
