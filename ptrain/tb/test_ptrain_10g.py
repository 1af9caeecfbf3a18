"""fp_ptrain_10g: the 10G tester at its XGMII pins, TX wired back to RX through a delay line.

* Delay: every record's one-way delay equals the wire's, pin to pin, exactly (to the unit of
  fp_time), the same for every size and layout.
* Line rate: back-to-back trains of the shortest tester frame (60 B, 64 with FCS: the compact
  header, 14.88 Mpps) and of the shortest with the full header (84 B) are all recorded, and their
  dispersion gives 10 Gb/s.
"""
from __future__ import annotations

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from fastpath.ptrain import analyze
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import Driver, XgmiiWire
from fastpath.sim import runner

PERIOD_PS = 6400
Q16 = 1 << 16
DELAY = 300


async def setup(dut, seed: int = 1):
    cocotb.start_soon(Clock(dut.clk, PERIOD_PS, unit="ps").start())
    dut.pps.value = 0
    dut.rst.value = 1
    wire = XgmiiWire(dut, DELAY)
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    return wire, Driver(dut, PERIOD_PS / 1000, seed=seed)


@cocotb.test()
async def delay_constant_over_sizes_and_line_rate(dut):
    wire, t = await setup(dut)
    runs = [(60, False, None, 0), (84, False, None, 0), (333, True, None, 0), (1514, False, 42, 0),
            (9000, False, None, 0)]
    first = 0
    for size, ipv6, vlan, period in runs:
        await t.configure(size=size, train_len=50 if size < 1000 else 6, trains=2, period=period,
                          train_gap=4000, first_seq=first, ipv6=ipv6, vlan=vlan)
        await t.run(60_000)
        first += 1000
    beats = await t.drain(2000)
    expected = 2 * (50 + 50 + 50 + 6 + 6)
    assert len(beats) == expected and not any(b.bad for b in beats), (len(beats), expected)
    # 6.4 ns is not a whole number of 2^-16 ns: the timebase carries the remainder, so two stamps'
    # difference may differ by one unit (15 fs)
    owds = [analyze.diff(b.rx_time, b.tx_time) for b in beats]
    assert max(owds) - min(owds) <= 1, sorted({o / Q16 for o in owds})
    offset_ns = round(min(owds) / Q16 - (DELAY + 1) * PERIOD_PS / 1000, 3)
    dut._log.info(f"10G tester offset: {offset_ns} ns over a {DELAY}-cycle wire")
    assert offset_ns == 0, offset_ns
    # 84-byte back-to-back trains: 10 Gb/s at layer 1 from their dispersion (the MAC's deficit idle
    # count keeps the average gap at 12 bytes)
    for size in (60, 84):
        small = [r for r in rec.records(beats) if r.size == size]
        assert len(small) == 100 and all((r.train_len == 0) == (size == 60) for r in small)
        s = analyze.analyze(small)["streams"][0]["summary"]
        assert s["lost"] == 0 and abs(s["capacity_bps"] - 10e9) / 10e9 < 0.01, (size, s["capacity_bps"])


def test_ptrain_10g():
    runner.run("fp_ptrain_10g", __name__, {"PPS_INTERVAL_NS": 100000})
