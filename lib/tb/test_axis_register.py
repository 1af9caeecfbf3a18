"""fp_axis_register: random frames under random backpressure, exact latency, full throughput."""
import cocotb
import pytest
from cocotb.triggers import ClockCycles

from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness, frame, last_user
from fastpath.sim.tb import params, random_bytes, rng, start

LATENCY = 1


async def setup(dut):
    h = AxisHarness(dut, dut.clk, dut.rst)  # bus models first: they drive the inputs idle
    await start(dut)
    return h


@cocotb.test()
async def random_traffic(dut):
    """Random sizes and tuser under random backpressure on both sides: output == input."""
    r = rng()
    h = await setup(dut)
    h.backpressure(r, source_p=0.3, sink_p=0.4)
    sent = [frame(random_bytes(r, r.randint(1, 300)), bad=r.random() < 0.2) for _ in range(150)]
    await h.send(sent)
    got = await h.recv(len(sent))
    for s, g in zip(sent, got):
        assert g.tdata == s.tdata
        assert last_user(g) == last_user(s)


@cocotb.test()
async def latency_and_throughput(dut):
    """No backpressure: every frame appears LATENCY cycles after it is accepted, no bubbles."""
    r = rng()
    h = await setup(dut)
    width = params().get("DATA_WIDTH", 64) // 8
    sizes = [r.randint(1, 200) for _ in range(60)]
    await h.send([frame(random_bytes(r, n)) for n in sizes])
    got = await h.recv(len(sizes))
    assert [len(g.tdata) for g in got] == sizes
    assert set(h.latencies()) == {LATENCY}, h.latencies()
    beats = sum(-(-n // width) for n in sizes)
    span = h.t_out.frames[-1].last_beat - h.t_out.frames[0].first_beat + 1
    assert span == beats, f"{beats} beats took {span} cycles"


@cocotb.test()
async def reset_mid_frame(dut):
    """A reset mid-stream empties the slice; traffic after it is clean."""
    r = rng()
    h = await setup(dut)
    h.sink.pause = True
    await h.send([frame(random_bytes(r, 64))])
    await ClockCycles(dut.clk, 10)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    assert int(dut.m_axis_tvalid.value) == 0
    h.source.clear()
    h.sink.clear()
    h.sink.pause = False
    data = random_bytes(r, 100)
    await h.send([frame(data)])
    (g,) = await h.recv(1)
    assert g.tdata == data


@pytest.mark.parametrize("data_width", [8, 64, 256])
def test_axis_register(data_width):
    runner.run("fp_axis_register", __name__, {"DATA_WIDTH": data_width})
