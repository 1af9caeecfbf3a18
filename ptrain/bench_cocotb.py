"""Cocotb side of `fastpath bench ptrain`: the whole tester (fp_ptrain_1g or fp_ptrain_10g) with its
TX pins wired back to its RX pins through fastpath.ptrain.wire, against the wire's truth.

Config in $FASTPATH_BENCH ({"speed": "1g" | "10g", "quick": bool}); results to $FASTPATH_BENCH_OUT.
Every run is one or more trains from the RTL generator; records come from the RTL receiver.

1. Calibration (seeds/003, section 6.3): a loopback (the wire at `LOOP` cycles, counted as zero)
   over several sizes; `fastpath.ptrain.analyze.fit` of delay against size.
2. Delay: the wire longer by a known amount at several sizes; each calibrated one-way delay
   against the truth (the added wire): owd_error_ns, max over every frame.
3. Capacity: back-to-back trains through a bottleneck of known rate (1G: 100, 400, 700 Mb/s and
   the line; 10G: the line), the analyser's capacity against it: capacity_error_pct.
4. Loss (1G): drops, duplicates and swaps by the wire; the receiver's hardware counters and the
   analyser on its records against the truth: loss_exact.
5. Line rate: a back-to-back train of the shortest tester frame (60 B, 64 with FCS: the compact
   header; minimum Ethernet frames, 1.488 / 14.88 Mpps at line rate) and one of the shortest with
   the full header (84 B): frames sent on the wire, recorded (the receiver's record and drop
   counters), frames per second from the TX stamps (generation) and from the RX stamps
   (reception) against the line rate.
"""
from __future__ import annotations

import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles

from fastpath.ptrain import analyze
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import Driver, GmiiWire, Plan, XgmiiWire

Q16 = 1 << 16
SPEEDS = {"1g": {"period_ps": 8000, "line_bps": 1e9}, "10g": {"period_ps": 6400, "line_bps": 10e9}}
# The loopback wire (counted as zero by the calibration), cycles: the GMII wire passes whole frames,
# so it must be longer than the longest (1514 + FCS + preamble); XGMII is a line of words.
LOOP = {"1g": 1600, "10g": 64}


_state: dict = {}


async def _run(dut, speed: str, delay: int, plan: Plan | None, runs: list[dict], seed: int):
    """One wire, one or more generator runs, from a reset; (records, wire, driver)."""
    sp = SPEEDS[speed]
    if "wire" in _state:
        _state["wire"].stop()
    dut.rst.value = 1
    wire = GmiiWire(dut, delay, plan, sp["line_bps"]) if speed == "1g" else XgmiiWire(dut, delay)
    _state["wire"] = wire
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)
    if "driver" not in _state:
        _state["driver"] = Driver(dut, sp["period_ps"] / 1000, pause_p=0.1, seed=seed)
    t = _state["driver"]
    t.beats = []
    first = 0
    for cfg in runs:
        await t.configure(first_seq=first, **cfg)
        await t.run(2_000_000)
        first += cfg["train_len"] * cfg["trains"]
    backlog = 0
    if plan and plan.bottleneck_bps:
        backlog = int(sum(r["train_len"] * (r["size"] + 24) for r in runs) * sp["line_bps"] / plan.bottleneck_bps)
    beats = await t.drain(delay + backlog + 3000)
    if wire.errors:
        raise AssertionError(wire.errors)
    return beats, wire, t


def _truth_ns(wire, speed: str) -> dict:
    """seq -> [wire delay in ns of each delivered copy] (seq = send index; runs number from 0)."""
    p = SPEEDS[speed]["period_ps"] / 1000
    out = {}
    for d in wire.delivered:
        out.setdefault(d.index, []).append((d.rx_cycle - d.tx_cycle) * p)
    return out


@cocotb.test()
async def bench(dut):
    cfg = json.loads(os.environ.get("FASTPATH_BENCH", "{}"))
    speed, quick = cfg.get("speed", "1g"), bool(cfg.get("quick"))
    sp = SPEEDS[speed]
    cocotb.start_soon(Clock(dut.clk, sp["period_ps"], unit="ps").start())
    dut.pps.value = 0
    sizes = [60, 84, 300, 1514] if quick else [60, 84, 128, 256, 512, 1024, 1514]
    if speed == "10g" and not quick:
        sizes.append(9000)
    out = {"speed": speed, "quick": quick, "clock_mhz": 1e6 / sp["period_ps"]}

    # 1. calibration: the loopback
    runs = [{"size": s, "train_len": 8, "trains": 1, "period": 0, "train_gap": 0} for s in sizes]
    beats, wire, _ = await _run(dut, speed, LOOP[speed], None, runs, 1)
    cal = analyze.fit(((b.size, analyze.diff(b.rx_time, b.tx_time)) for b in beats), source="loopback")
    out["calibration"] = cal.to_dict()
    out["loopback_ns"] = LOOP[speed] * sp["period_ps"] / 1000

    # 2. delay: the wire longer by known amounts
    errors, rows = [], []
    for extra in ([37, 1111] if quick else [1, 37, 250, 1111, 5003]):
        beats, wire, _ = await _run(dut, speed, LOOP[speed] + extra, None, runs, 2)
        truth_ns = extra * sp["period_ps"] / 1000        # the wire added beyond the loopback
        errs = [analyze.diff(b.rx_time, b.tx_time) / Q16 - cal.delay_q16(b.size) / Q16 - truth_ns for b in beats]
        errors += errs
        rows.append({"added_wire_ns": truth_ns, "frames": len(beats), "sent": len(wire.delivered),
                     "owd_error_ns_max": round(max(abs(e) for e in errs), 6)})
    out["delay_runs"] = rows
    out["owd_error_ns_max"] = round(max(abs(e) for e in errors), 6)

    # 3. capacity
    caps = []
    rates = [sp["line_bps"]] + ([100e6, 400e6, 700e6] if speed == "1g" else [])
    for bps in rates:
        plan = Plan(bottleneck_bps=bps) if bps < sp["line_bps"] else None
        size = 1000
        runs_c = [{"size": size, "train_len": 10 if quick else 30, "trains": 2, "period": 0,
                   "train_gap": 40_000}]
        beats, wire, _ = await _run(dut, speed, 2000, plan, runs_c, 3)
        s = analyze.analyze(rec.records(beats))["streams"][0]["summary"]
        # the truth is the rate the wire realised: it spaces frames by whole cycles
        truth = bps
        if plan is not None:
            wire_bits = (size + 24) * 8
            gap = -(-(size + 12 + 12) * sp["line_bps"] // bps)
            truth = wire_bits / (gap * sp["period_ps"] * 1e-12)
        err = 100 * abs(s["capacity_bps"] - truth) / truth
        caps.append({"bottleneck_bps": bps, "realised_bps": truth, "capacity_bps": s["capacity_bps"],
                     "error_pct": round(err, 6), "trains": s["trains_measured"]})
    out["capacity_runs"] = caps
    out["capacity_error_pct_max"] = round(max(c["error_pct"] for c in caps), 6)

    # 4. loss, duplicates, reordering (the GMII wire can impair; XGMII is a delay line)
    if speed == "1g":
        loss_runs = []
        plans = [Plan(drop={3, 17, 18, 40}, dup={9, 30}, swap={12, 25}),
                 Plan(drop=set(range(20, 30)) | {55}, dup={2, 70}, swap={60})]
        for k, plan in enumerate(plans[:1] if quick else plans):
            runs_l = [{"size": 100, "train_len": 10, "trains": 8, "period": 300, "train_gap": 1000}]
            beats, wire, t = await _run(dut, speed, 1600, plan, runs_l, 4 + k)
            n = 80
            truth = {"lost": len(plan.drop), "duplicates": len(plan.dup), "reordered": len(plan.swap - plan.drop),
                     "received": n - len(plan.drop) + len(plan.dup)}
            c = await t.counters(0)
            s = analyze.analyze(rec.records(beats))["streams"][0]["summary"]
            hw = {"lost": c.lost_trains, "duplicates": c.duplicates, "reordered": c.reordered, "received": c.received}
            sw = {"lost": s["lost"], "duplicates": s["duplicates"], "reordered": s["reordered"],
                  "received": s["received"] + s["duplicates"]}
            loss_runs.append({"truth": truth, "hardware": hw, "analyser": sw, "exact": truth == hw == sw})
        out["loss_runs"] = loss_runs
        out["loss_exact"] = all(r["exact"] for r in loss_runs)

    # 5. line rate with the shortest tester frame (compact header) and the shortest full one
    n = 200 if quick else 1000
    for key, size in (("line_rate", 60), ("line_rate_full", 84)):
        runs_r = [{"size": size, "train_len": n, "trains": 1, "period": 0, "train_gap": 0}]
        beats, wire, t = await _run(dut, speed, LOOP[speed], None, runs_r, 9)
        rs = rec.records(beats)
        tx_ns = analyze.diff(rs[-1].tx_time, rs[0].tx_time) / Q16
        rx_ns = analyze.diff(rs[-1].rx_time, rs[0].rx_time) / Q16
        c = await t.counters(0)
        line = sp["line_bps"] / ((size + 24) * 8)
        out[key] = {"size": size, "size_with_fcs": size + 4, "train_len": n, "sent": len(wire.delivered),
                    "recorded": len(rs), "record_drops": await t.regs.read("rx_record_drops"),
                    "unique": c.unique, "lost": c.lost,
                    "frames_per_s": round((len(rs) - 1) * 1e9 / tx_ns, 1),
                    "frames_per_s_rx": round((len(rs) - 1) * 1e9 / rx_ns, 1),
                    "line_frames_per_s": round(line, 1),
                    "of_line_rate": round((len(rs) - 1) * 1e9 / tx_ns / line, 6)}
    with open(os.environ["FASTPATH_BENCH_OUT"], "w") as fh:
        json.dump(out, fh, indent=1)
