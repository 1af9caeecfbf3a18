"""fp_ptrain_rec64: 288-bit records -> 5 64-bit words each (the last with the record's number).

* Random records under random backpressure on both sides: the words equal
  fastpath.ptrain.fade_records.encode() of the records (numbers from 0), tlast on every 5th word,
  and fade_records.decode() gives the records back.
* Latency: 2 cycles from a record's handshake to its first word offered (module empty), for every
  record sent alone; back to back, one word per cycle with no bubble (record starts 5 cycles apart).
* cut: the rest of a partly sent record is dropped (one ev_cut pulse, the module idle after), a
  record none of whose words was taken is kept, and the next record follows on a record boundary.
"""
from __future__ import annotations

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fastpath.ptrain import fade_records as fr
from fastpath.ptrain import record as rec
from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness
from fastpath.sim.tb import high, rng, start

LATENCY = 2


def random_record(r) -> rec.RxRecord:
    return rec.decode(r.getrandbits(rec.WIDTH))


async def setup(dut):
    dut.cut.value = 0
    h = AxisHarness(dut, dut.clk, dut.rst)
    await start(dut, period_ns=8.0)
    return h


def words_of(frames) -> list[int]:
    out = []
    for f in frames:
        b = bytes(f.tdata)
        assert len(b) == fr.NBYTES, f"a record is {fr.NBYTES} bytes between tlasts, got {len(b)}"
        out += [int.from_bytes(b[i:i + 8], "little") for i in range(0, len(b), 8)]
    return out


@cocotb.test()
async def random_records_under_backpressure(dut):
    r = rng()
    h = await setup(dut)
    for sp, mp in [(0.3, 0.3), (0.0, 0.6), (0.7, 0.0)]:
        h.backpressure(r, source_p=sp, sink_p=mp)
        n0 = int(dut.count.value)
        recs = [random_record(r) for _ in range(150)]
        await h.send([rec.to_bytes(x) for x in recs])
        got = await h.recv(len(recs))
        data = b"".join(bytes(f.tdata) for f in got)
        assert data == fr.encode(recs, first_number=n0)
        d = fr.decode(data)
        assert d.rx == recs and d.numbers == list(range(n0, n0 + len(recs))) and not d.gaps
        assert len(words_of(got)) == 5 * len(recs)
        await ClockCycles(dut.clk, 4)
        assert high(dut.idle) and int(dut.count.value) == n0 + len(recs)


@cocotb.test()
async def latency_and_throughput(dut):
    r = rng()
    h = await setup(dut)
    h.backpressure(r)
    # alone: each record into an empty module
    for _ in range(20):
        await h.send([rec.to_bytes(random_record(r))])
        await h.recv(1)
        await ClockCycles(dut.clk, r.randint(1, 5))
    lat = h.latencies()
    assert lat == [LATENCY] * 20, lat
    # back to back: one word per cycle, records 5 cycles apart, latency of the first only
    k = len(h.t_out.frames)
    await h.send([rec.to_bytes(random_record(r)) for _ in range(30)])
    await h.recv(30)
    starts = [f.first_valid for f in h.t_out.frames[k:]]
    assert [b - a for a, b in zip(starts, starts[1:])] == [5] * 29, starts
    assert h.t_out.frames[k].first_valid - h.t_in.frames[k].first_beat == LATENCY
    for f in h.t_out.frames[k:]:
        assert f.last_beat - f.first_valid == 4          # 5 words, no gap inside a record


@cocotb.test()
async def cut_drops_the_rest_of_a_started_record(dut):
    from cocotbext.axi import AxiStreamBus, AxiStreamSource
    r = rng()
    dut.cut.value = 0
    dut.m_axis_tready.value = 0
    src = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    await start(dut, period_ns=8.0)
    words, cuts = [], []

    async def sink():          # words and ev_cut pulses (m_axis_tready: take_words)
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            if high(dut.m_axis_tvalid) and high(dut.m_axis_tready):
                words.append(int(dut.m_axis_tdata.value))
            if high(dut.ev_cut):
                cuts.append(1)
    cocotb.start_soon(sink())

    a, b, c = (random_record(r) for _ in range(3))
    await src.send(rec.to_bytes(a))
    await src.send(rec.to_bytes(b))
    await ClockCycles(dut.clk, 6)
    await take_words(dut, 2)
    assert len(words) == 2
    dut.cut.value = 1
    await ClockCycles(dut.clk, 4)          # a's rest dropped; b is then loaded, not started: kept
    dut.cut.value = 0
    await ClockCycles(dut.clk, 2)
    assert cuts == [1] and len(words) == 2
    await src.send(rec.to_bytes(c))
    await take_words(dut, 10)
    got = fr.words_to_bytes(words)
    assert got[:16] == fr.encode([a])[:16]
    assert got[16:] == fr.encode([b, c], first_number=1)
    await ClockCycles(dut.clk, 4)
    assert high(dut.idle) and cuts == [1] and int(dut.count.value) == 3


async def take_words(dut, n: int) -> None:
    """Hold m_axis_tready high for exactly n handshakes (called just after a rising edge)."""
    got = 0
    while got < n:
        dut.m_axis_tready.value = 1
        await ReadOnly()
        if high(dut.m_axis_tvalid):
            got += 1
        await RisingEdge(dut.clk)
    dut.m_axis_tready.value = 0


def test_ptrain_rec64():
    runner.run("fp_ptrain_rec64", __name__, {})
