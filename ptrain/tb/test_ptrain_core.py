"""fp_ptrain_core: the tester without its MAC, its registers, generator and receiver wired in Python.

The generator's stream (random backpressure) is checked against fastpath.ptrain.frame.build (time
fields zero: the MAC writes them) with the tester-stamp sideband on its first beat; the frames, as
the MAC would stamp them (frame.build with a TX time), go back into the receiver with known RX
times, and the records and the per-stream counters read through the registers must match. The
latency from the gen_ctrl.start write to the first beat is asserted (1 + fp_ptrain_gen's 14).
"""
from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from fastpath.ptrain import frame as fr
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import Driver
from fastpath.sim import runner
from fastpath.sim.tb import pauses, rng

GEN_LATENCY = 15


@cocotb.test()
async def generator_receiver_and_registers(dut):
    r = rng()
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    dut.pps.value = 0
    dut.rst.value = 1
    for name in ("tdata", "tkeep", "tvalid", "tlast", "tuser"):
        getattr(dut, f"s_axis_rx_{name}").value = 0
    dut.s_axis_rx_ts.value = 0
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 2)
    t = Driver(dut, 8, seed=r.randrange(1 << 30))
    tx = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_tx"), dut.clk, dut.rst)
    tx.set_pause_generator(pauses(r, 0.3))
    rx = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis_rx"), dut.clk, dut.rst)

    sideband = []
    first_valid = []

    async def watch():
        prev = 0
        cyc = 0
        while True:
            await RisingEdge(dut.clk)
            cyc += 1
            v = int(dut.m_axis_tx_tvalid.value)
            if v and not prev:
                first_valid.append(cyc)
                sideband.append((int(dut.m_axis_tx_ts_insert.value), int(dut.m_axis_tx_ts_mode.value),
                                 int(dut.m_axis_tx_ts_offset.value)))
            if v and int(dut.m_axis_tx_tready.value):
                prev = 0 if int(dut.m_axis_tx_tlast.value) else 1
            else:
                prev = v

    size, train_len, trains, first = r.choice([84, 120, 400]), 5, 3, r.randrange(1 << 32)
    await t.configure(size=size, train_len=train_len, trains=trains, period=0, train_gap=50,
                      first_seq=first, stream=2)
    cocotb.start_soon(watch())
    await t.run(20_000)
    n = train_len * trains
    frames = [await tx.recv() for _ in range(n)]
    hdr = fr.Headers()
    for k, f in enumerate(frames):
        seq = (first + k) & 0xFFFFFFFF
        # flags: 1 = TX time from hardware, 2 = last of its train (no PPS lock here)
        # the time fields are zero from the generator (the MAC fills them), and so is csum_adj
        want = fr.unstamped(size, seq, k // train_len, k % train_len, train_len, stream=2,
                            flags=1 | (2 if k % train_len == train_len - 1 else 0))
        got = bytes(f.tdata)
        assert got == want, f"frame {k} differs"
    assert all(s == (1, 1, hdr.length) for s in sideband), sideband[:3]
    assert await t.regs.read("gen_frames") == n and await t.regs.read("gen_trains") == trains

    # back through the receiver with known times; drop one, repeat one
    sent = []
    for k, f in enumerate(frames):
        if k == 4:
            continue
        tx_time = (1_000_000 + 5000 * k) << 16
        d = fr.parse(bytes(f.tdata))
        data = fr.build(size, d.seq, d.train, d.index, d.train_len, tx_time, stream=2, flags=d.flags)
        for copy in range(2 if k == 7 else 1):
            dut.s_axis_rx_ts.value = tx_time + (777 << 16)
            await rx.send(AxiStreamFrame(data))
            await rx.wait()
            await ClockCycles(dut.clk, 20)
            sent.append((d.seq, tx_time))
    beats = await t.drain(200)
    assert [(b.seq, b.tx_time) for b in beats] == sent
    assert all(rec.decode(rec.to_bytes(b)).rx_time - b.tx_time == 777 << 16 for b in beats)
    c = await t.counters(2)
    assert (c.received, c.unique, c.duplicates, c.lost) == (n, n - 1, 1, 1)
    assert await t.regs.read("rx_records") == n


@cocotb.test()
async def start_to_first_beat_latency(dut):
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    dut.pps.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    t = Driver(dut, 8, pause_p=0)
    dut.m_axis_tx_tready.value = 1
    await t.configure(size=84, train_len=1, trains=1)
    # the strobe of the gen_ctrl write: count from the cycle it is high to the first tvalid
    cocotb.start_soon(t.regs.write("gen_ctrl", start=1))
    while True:
        await RisingEdge(dut.clk)
        if int(dut.u_core.gen_ctrl_wr.value) if hasattr(dut, "u_core") else int(dut.gen_ctrl_wr.value):
            break
    for cyc in range(1, 100):
        await RisingEdge(dut.clk)
        if int(dut.m_axis_tx_tvalid.value):
            break
    assert cyc == GEN_LATENCY - 1 or cyc == GEN_LATENCY, cyc


def test_ptrain_core():
    runner.run("fp_ptrain_core", __name__, {"PPS_INTERVAL_NS": 100000})
