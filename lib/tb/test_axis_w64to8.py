"""fp_axis_w64to8: random 64-bit frames (contiguous and sparse tkeep) under random backpressure ->
the kept bytes, lane 0 first; latency 1 cycle, one byte per cycle without bubbles; tuser
(USER_WIDTH bits, random on every beat) leaves only with the last byte of the tlast beat."""
import cocotb
import pytest
from cocotb.triggers import ClockCycles
from cocotbext.axi import AxiStreamFrame

from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness, last_user
from fastpath.sim.tb import params, random_bytes, rng, start

LATENCY = 1


def user_width() -> int:
    return params().get("USER_WIDTH", 1)


def random_user(r) -> int:
    return r.randrange(1, 1 << user_width()) if r.random() < 0.2 else 0


def frame(r, data: bytes, user: int = 0) -> AxiStreamFrame:
    """A frame whose last byte carries `user` and every other byte random tuser (ignored: the
    source model puts a beat's last byte's tuser on the beat)."""
    noise = [r.randrange(1 << user_width()) for _ in range(len(data) - 1)]
    return AxiStreamFrame(bytes(data), tuser=noise + [user])


def check_user(g: AxiStreamFrame, user: int):
    """tuser is `user` on the received frame's last byte and 0 on every other byte."""
    tuser = g.tuser if isinstance(g.tuser, list) else [g.tuser or 0] * len(g.tdata)
    assert last_user(g) == user
    assert not any(tuser[:-1]), f"tuser on a byte before the last: {tuser}"


def sparse_frame(r, beats: int, user: int):
    """A frame of `beats` 64-bit beats with random tkeep (some middle beats all zero; the last
    beat keeps at least one byte, or the tlast would be lost) and the bytes the adapter must send."""
    data, keep = bytearray(), []
    for i in range(beats):
        if i < beats - 1 and r.random() < 0.1:
            k = [0] * 8
        else:
            k = [r.randint(0, 1) for _ in range(8)]
            if not any(k):
                k[r.randrange(8)] = 1
        data += random_bytes(r, 8)
        keep += k
    noise = [r.randrange(1 << user_width()) for _ in range(len(data) - 1)]
    f = AxiStreamFrame(bytes(data), tkeep=keep, tuser=noise + [user])
    return f, bytes(b for b, k in zip(data, keep) if k)


async def setup(dut):
    h = AxisHarness(dut, dut.clk, dut.rst)  # bus models first: they drive the inputs idle
    await start(dut)
    return h


@cocotb.test()
async def random_contiguous(dut):
    """Random sizes (tkeep contiguous on the last beat), random backpressure on both sides."""
    r = rng()
    h = await setup(dut)
    h.backpressure(r, source_p=0.3, sink_p=0.4)
    sent = [frame(r, random_bytes(r, r.randint(1, 120)), random_user(r)) for _ in range(100)]
    await h.send(sent)
    got = await h.recv(len(sent))
    for s, g in zip(sent, got):
        assert bytes(g.tdata) == bytes(s.tdata)
        check_user(g, last_user(s))


@cocotb.test()
async def random_sparse_tkeep(dut):
    """Non-contiguous tkeep and all-zero beats: only the kept bytes leave, in lane order."""
    r = rng()
    h = await setup(dut)
    h.backpressure(r, source_p=0.3, sink_p=0.4)
    sent = [sparse_frame(r, r.randint(1, 12), random_user(r)) for _ in range(80)]
    await h.send([f for f, _ in sent])
    got = await h.recv(len(sent))
    for (f, expect), g in zip(sent, got):
        assert bytes(g.tdata) == expect
        check_user(g, last_user(f))


@cocotb.test()
async def latency_and_throughput(dut):
    """No backpressure: first byte 1 cycle after the first beat is accepted; one byte per cycle,
    no bubble between beats or frames."""
    r = rng()
    h = await setup(dut)
    sizes = [r.randint(1, 100) for _ in range(50)]
    await h.send([frame(r, random_bytes(r, n)) for n in sizes])
    got = await h.recv(len(sizes))
    assert [len(g.tdata) for g in got] == sizes
    assert set(h.latencies()) == {LATENCY}, h.latencies()
    span = h.t_out.frames[-1].last_beat - h.t_out.frames[0].first_beat + 1
    assert span == sum(sizes), f"{sum(sizes)} bytes took {span} cycles"


@cocotb.test()
async def reset_mid_beat(dut):
    """A reset while a beat is being sent drops its remaining bytes; traffic after it is clean."""
    r = rng()
    h = await setup(dut)
    h.sink.pause = True
    await h.send([frame(r, random_bytes(r, 40))])
    await ClockCycles(dut.clk, 6)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    assert int(dut.m_axis_tvalid.value) == 0
    h.source.clear()
    h.sink.clear()
    h.sink.pause = False
    data = random_bytes(r, 21)
    await h.send([frame(r, data, 1)])
    (g,) = await h.recv(1)
    assert bytes(g.tdata) == data
    check_user(g, 1)


@pytest.mark.parametrize("user_width", [1, 3])
def test_axis_w64to8(user_width):
    runner.run("fp_axis_w64to8", __name__, {"USER_WIDTH": user_width})
