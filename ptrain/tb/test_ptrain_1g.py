"""fp_ptrain_1g: the 1G tester at its GMII pins, TX wired back to RX through fastpath.ptrain.wire.

* Delay: every record's one-way delay equals the wire's (TX pins -> RX pins) plus the tester's own
  constant (OFFSET_NS, the same for every size and layout), and the frames parse (UDP checksum
  valid with the stamp the MAC wrote).
* Loss, duplicates, reordering: the receiver's counters and the analyser on its records equal
  what the wire did.
* Capacity: trains through a 400 Mb/s bottleneck give 400 Mb/s from their dispersion.
* Registers: the build register, a refused start (size below the layout's minimum).
"""
from __future__ import annotations

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from fastpath.ptrain import analyze
from fastpath.ptrain import frame as fr
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import GmiiWire, Plan, Driver
from fastpath.sim import runner

PERIOD_NS = 8
Q16 = 1 << 16
# The 1G tester reads a wire one cycle (8 ns) longer than it is, pin to pin (fastpath.ptrain.wire:
# from the edge that samples the TX SFD to the edge that samples the RX SFD): the RX MAC stamps
# the edge after the one that samples the SFD (its input register). The same for every size and
# layout: the loopback calibration (fastpath.ptrain.analyze.fit) takes it out.
OFFSET_NS = 8


async def setup(dut, delay: int, plan: Plan | None = None, seed: int = 1):
    cocotb.start_soon(Clock(dut.clk, PERIOD_NS, unit="ns").start())
    dut.pps.value = 0
    dut.rst.value = 1
    wire = GmiiWire(dut, delay, plan)
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    return wire, Driver(dut, PERIOD_NS, seed=seed)


def truth_by_seq(wire, first_seq: int = 0) -> dict:
    out = {}
    for d in wire.delivered:
        out.setdefault((first_seq + d.index) & 0xFFFFFFFF, []).append((d.rx_cycle - d.tx_cycle) * PERIOD_NS)
    return out


@cocotb.test()
async def delay_is_the_wires_at_every_size(dut):
    wire, t = await setup(dut, delay=1700)
    for k, (size, ipv6, vlan) in enumerate([(84, False, None), (300, True, None), (1514, False, 100),
                                            (127, True, 7)]):
        first = 1000 * k
        await t.configure(size=size, train_len=4, trains=2, period=size + 60, train_gap=3000,
                          first_seq=first, ipv6=ipv6, vlan=vlan)
        await t.run(40_000)
    beats = await t.drain(3000)
    assert not wire.errors, wire.errors
    assert len(beats) == 32 and not any(b.bad for b in beats)
    truth = {}
    # the wire's frames in send order carry seq 0..7, 1000..1007, ...: map by send order
    sent_seqs = [1000 * k + i for k in range(4) for i in range(8)]
    for d in wire.delivered:
        truth[sent_seqs[d.index]] = (d.rx_cycle - d.tx_cycle) * PERIOD_NS
        # every frame on the wire parses as a tester frame with consistent time fields
        body = wire.sent[d.index][1]
        sfd = body.index(0xD5)
        assert fr.parse(body[sfd + 1:-4]) is not None, f"frame {d.index} does not parse"
    for b in beats:
        owd = analyze.diff(b.rx_time, b.tx_time)
        assert owd == (truth[b.seq] + OFFSET_NS) * Q16, f"seq {b.seq}: {owd / Q16} ns, the wire's {truth[b.seq]} ns"


@cocotb.test()
async def loss_duplicates_reordering_counted_exactly(dut):
    plan = Plan(drop={3, 17, 18, 40}, dup={9, 30}, swap={12, 25})
    wire, t = await setup(dut, delay=700, plan=plan, seed=2)
    await t.configure(size=100, train_len=10, trains=5, period=300, train_gap=1000, first_seq=0xFFFFFFF0)
    await t.run(60_000)
    beats = await t.drain(2000)
    assert not wire.errors, wire.errors
    truth = truth_by_seq(wire, 0xFFFFFFF0)
    assert len(beats) == len(wire.delivered) == 50 - 4 + 2
    for b in beats:
        assert analyze.diff(b.rx_time, b.tx_time) in [(v + OFFSET_NS) * Q16 for v in truth[b.seq]]
    c = await t.counters(0)
    assert (c.received, c.unique, c.duplicates) == (48, 46, 2)
    assert c.reordered == 2 and c.lost == 4 and c.lost_trains == 4
    res = analyze.analyze(rec.records(beats))
    s = res["streams"][0]["summary"]
    assert (s["lost"], s["duplicates"], s["reordered"]) == (4, 2, 2)


@cocotb.test()
async def capacity_of_a_bottleneck_from_dispersion(dut):
    wire, t = await setup(dut, delay=1600, plan=Plan(bottleneck_bps=400e6), seed=3)
    await t.configure(size=500, train_len=12, trains=2, period=0, train_gap=20_000)
    await t.run(80_000)
    beats = await t.drain(12_000)
    assert not wire.errors, wire.errors
    assert len(beats) == 24
    s = analyze.analyze(rec.records(beats))["streams"][0]["summary"]
    err = abs(s["capacity_bps"] - 400e6) / 400e6
    assert err < 0.005, s["capacity_bps"]


@cocotb.test()
async def registers_build_and_refusal(dut):
    wire, t = await setup(dut, delay=200)
    b = await t.regs.read_fields("build")
    assert (b["data_width"], b["rules"], b["streams"]) == (8, 4, 4)
    await t.configure(size=59, train_len=1, trains=1)  # below every layout's minimum (60: compact IPv4)
    await t.regs.write("gen_ctrl", start=1)
    await ClockCycles(dut.clk, 40)
    st = await t.regs.read_fields("gen_status")
    assert st["refused"] and not st["running"]
    assert await t.regs.read("gen_refused") == 1 and await t.regs.read("gen_frames") == 0


def test_ptrain_1g():
    runner.run("fp_ptrain_1g", __name__, {"PPS_INTERVAL_NS": 100000})
