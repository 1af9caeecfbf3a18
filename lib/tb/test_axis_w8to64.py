"""fp_axis_w8to64: random byte frames with random gaps (no tready anywhere) -> packed 64-bit beats,
each beat valid exactly 1 cycle after the byte that completes it (8th byte or tlast byte); tuser
(USER_WIDTH bits, random on every byte) reaches only the tlast beat, from the tlast byte."""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from fastpath.sim import runner
from fastpath.sim.axis import last_user
from fastpath.sim.tb import high, params, pauses, random_bytes, rng, start

LATENCY = 1


def user_width() -> int:
    return params().get("USER_WIDTH", 1)


def frame(r, data: bytes, user: int) -> AxiStreamFrame:
    """A byte frame whose tlast byte carries `user` and every other byte random tuser (ignored)."""
    noise = [r.randrange(1 << user_width()) for _ in range(len(data) - 1)]
    return AxiStreamFrame(bytes(data), tuser=noise + [user])


def model(data: bytes, user: int):
    """Expected beats (tdata bytes, tkeep, tlast, tuser) of one input frame."""
    out = []
    for i in range(0, len(data), 8):
        chunk = data[i:i + 8]
        last = i + 8 >= len(data)
        out.append((chunk, (1 << len(chunk)) - 1, last, user if last else 0))
    return out


async def monitor(dut, log):
    """Per cycle: input bytes that complete a beat (cycle) and output beats (cycle, fields).
    Sampled mid-cycle (falling edge), when the inputs the next rising edge takes are settled in
    every simulator (a source without tready writes in a phase a ReadOnly may precede)."""
    cycle, n = 0, 0
    while True:
        await FallingEdge(dut.clk)
        cycle += 1
        if high(dut.s_axis_tvalid):
            n += 1
            if n == 8 or high(dut.s_axis_tlast):
                log["in"].append(cycle)
                n = 0
        if high(dut.m_axis_tvalid):
            keep = int(dut.m_axis_tkeep.value)
            nbytes = bin(keep).count("1")
            data = int(dut.m_axis_tdata.value).to_bytes(8, "little")[:nbytes]
            log["out"].append((cycle, (data, keep, high(dut.m_axis_tlast), int(dut.m_axis_tuser.value))))


async def setup(dut, r, gap_p):
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    if gap_p:
        source.set_pause_generator(pauses(r, gap_p))
    await start(dut)
    log = {"in": [], "out": []}
    cocotb.start_soon(monitor(dut, log))
    return source, sink, log


async def run_traffic(dut, gap_p):
    r = rng()
    source, sink, log = await setup(dut, r, gap_p)
    sent = []
    for _ in range(120):
        n = r.choice([1, 2, 7, 8, 9, 15, 16, 17]) if r.random() < 0.4 else r.randint(1, 100)
        sent.append((random_bytes(r, n), r.randrange(1, 1 << user_width()) if r.random() < 0.2 else 0))
    for data, user in sent:
        await source.send(frame(r, data, user))
    await source.wait()
    await ClockCycles(dut.clk, 5)
    expected = [b for data, user in sent for b in model(data, user)]
    got = [fields for _, fields in log["out"]]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g == e, f"beat {i}: got {g}, expected {e}"
    # exact latency: each beat 1 cycle after the byte that completes it
    assert len(log["in"]) == len(log["out"])
    lat = {o[0] - i for i, o in zip(log["in"], log["out"])}
    assert lat == {LATENCY}, lat
    # the sink model sees the same frames
    frames = [sink.recv_nowait() for _ in range(len(sent))]
    for f, (data, user) in zip(frames, sent):
        assert bytes(f.tdata) == data and last_user(f) == user
    return log


@cocotb.test()
async def random_gaps(dut):
    """Random frame sizes, random gaps between bytes: beats and tuser match the model, latency 1."""
    await run_traffic(dut, 0.4)


@cocotb.test()
async def back_to_back(dut):
    """No gaps: one byte per cycle in, every beat 1 cycle after its last byte (full throughput)."""
    log = await run_traffic(dut, 0.0)
    assert log["in"][-1] - log["in"][0] > 0


@cocotb.test()
async def reset_mid_beat(dut):
    """Bytes collected before a reset are discarded; the next frame starts at lane 0."""
    r = rng()
    source, sink, log = await setup(dut, r, 0.0)
    await source.send(frame(r, random_bytes(r, 5), 0))
    await ClockCycles(dut.clk, 3)  # part of the frame is in
    dut.rst.value = 1
    await ClockCycles(dut.clk, 8)
    source.clear()
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    sink.clear()
    log["out"].clear()
    data = random_bytes(r, 11)
    await source.send(frame(r, data, 1))
    await source.wait()
    await ClockCycles(dut.clk, 3)
    assert [f for _, f in log["out"]] == model(data, 1)


@pytest.mark.parametrize("user_width", [1, 3])
def test_axis_w8to64(user_width):
    runner.run("fp_axis_w8to64", __name__, {"USER_WIDTH": user_width})
