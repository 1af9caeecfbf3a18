"""fp_iddr (generic model): rising- and falling-edge samples appear together one cycle later."""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer

from fastpath.sim import runner
from fastpath.sim.tb import params, rng

LATENCY = 1  # cycles: rising edge k (and falling edge k + 1/2) -> q1, q2 after edge k + 1


@cocotb.test()
async def random_ddr_samples(dut):
    """Random data set 1 ns after every edge: after rising edge k+1, q1/q2 are the samples of
    rising edge k and of the falling edge that follows it."""
    r = rng()
    width = params().get("WIDTH", 1)
    dut.d.value = 0
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    await FallingEdge(dut.clk)
    pairs = []
    for k in range(300):
        a, b = r.getrandbits(width), r.getrandbits(width)
        await Timer(1, unit="ns")
        dut.d.value = a  # sampled at the next rising edge (k)
        await RisingEdge(dut.clk)
        await ReadOnly()
        if k >= LATENCY:  # the pair of rising edge k - LATENCY
            assert (int(dut.q1.value), int(dut.q2.value)) == pairs[k - LATENCY], k
        await Timer(1, unit="ns")
        dut.d.value = b  # sampled at the falling edge after rising edge k
        pairs.append((a, b))
        await FallingEdge(dut.clk)


@pytest.mark.parametrize("width", [1, 5])
def test_iddr(width):
    runner.run("fp_iddr", __name__, {"WIDTH": width})
