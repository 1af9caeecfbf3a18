"""Cocotb side of `fastpath ptrain gen`: the RTL generator and TX MAC of fp_ptrain_1g (or
fp_ptrain_10g) send one run; every frame is taken off the TX pins (fastpath.ptrain.wire), its FCS
checked, and written with the time of its SFD as the tester's own clock counted it (the stamp the
MAC wrote into the frame), to a nanosecond pcap or pcapng.

Config in $FASTPATH_BENCH (JSON: size, count, train_len, period, ipv6, vlan, stream, pcap, speed);
a summary to $FASTPATH_BENCH_OUT (fastpath.sim.runner.run_json).
"""
from __future__ import annotations

import json
import os
import zlib

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from fastpath.ptrain import capture as cap
from fastpath.ptrain import frame as fr
from fastpath.ptrain.wire import XGMII_IDLE, Driver, GmiiWire, XgmiiWire, _int

PERIOD_PS = {"1g": 8000, "10g": 6400}


def _xgmii_frames(words: list[tuple[int, int]]) -> list[bytes]:
    """Frames (from the byte after the SFD to the end of the FCS) out of XGMII TX words."""
    lanes = []
    for d, c in words:
        for i in range(8):
            lanes.append(((d >> (8 * i)) & 0xFF, (c >> i) & 1))
    out, cur = [], None
    for b, ctl in lanes:
        if ctl and b == 0xFB:
            cur = bytearray()
        elif cur is not None and ctl:
            out.append(bytes(cur[7:]))      # drop the 6 preamble bytes and the SFD after the start
            cur = None
        elif cur is not None:
            cur.append(b)
    return out


@cocotb.test()
async def gen(dut):
    cfg = json.loads(os.environ["FASTPATH_BENCH"])
    speed = cfg.get("speed", "1g")
    cocotb.start_soon(Clock(dut.clk, PERIOD_PS[speed], unit="ps").start())
    dut.pps.value = 0
    dut.rst.value = 1
    if speed == "1g":
        wire = GmiiWire(dut, 1600)
    else:
        wire = XgmiiWire(dut, 64)
        words = []

        async def tap():
            from cocotb.triggers import RisingEdge
            while True:
                await RisingEdge(dut.clk)
                words.append((_int(dut.xgmii_txd, XGMII_IDLE), _int(dut.xgmii_txc, 0xFF)))
        cocotb.start_soon(tap())
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    t = Driver(dut, PERIOD_PS[speed] / 1000, pause_p=0)
    count, train_len = cfg["count"], cfg["train_len"]
    trains = -(-count // train_len)
    await t.configure(size=cfg["size"], train_len=train_len, trains=trains, period=cfg["period"],
                      train_gap=cfg["period"] or 0, ipv6=cfg["ipv6"], vlan=cfg["vlan"], stream=cfg["stream"])
    await t.run(100 * count * (cfg["size"] + 24) + 100_000)
    await ClockCycles(dut.clk, 100)
    if speed == "1g":
        raw = [d for _, d in wire.sent]
        bodies = [d[d.index(0xD5) + 1:] for d in raw]
    else:
        bodies = _xgmii_frames(words)
    frames, bad = [], 0
    for b in bodies[:count]:
        data, fcs = b[:-4], b[-4:]
        if zlib.crc32(data).to_bytes(4, "little") != fcs:
            bad += 1
            continue
        p = fr.parse(data)
        if p is None:
            bad += 1
            continue
        frames.append(cap.Captured(data, p.tx_time, len(data)))
    n = cap.write(cfg["pcap"], frames)
    with open(os.environ["FASTPATH_BENCH_OUT"], "w") as fh:
        json.dump({"written": n, "sent": len(bodies), "bad": bad, "trains": trains}, fh)
