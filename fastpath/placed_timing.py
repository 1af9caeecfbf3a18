"""Critical paths of a placed (not yet routed) ECP5 design, by nextpnr's own delay prediction.

nextpnr-ecp5 prints an Fmax estimate after placement but names critical paths only after
routing, and a congested whole design may never finish routing. This module reads the design
nextpnr writes after placement (`--no-route --write placed.json`) and runs a static timing pass
over it with the same wire model nextpnr's placer uses (`Arch::predictDelay`: 120 ps per tile at
speed grade 6, corners weighted as nextpnr does, zero for carry chains and the slice-internal
mux inputs) and fixed cell delays, so that the paths it ranks are the ones that set the
estimate. Cell delays are round figures, not the timing database: the ranking and the wire
share of each path are what this is for, not the absolute figure, which came out about 1.4x
nextpnr's own estimate on the designs tried (fp_rr_arbiter 11.7 against 8.3 ns, the 2-port node
36.4 against 25.8 ns). Pins are unconstrained and constant nets are not timed, as in nextpnr.

    python -m fastpath.placed_timing build/syn/ENTRY/placed.json [-n 10] [--slow-ns 20]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

TILE_PS = 120              # (120 - 22 * speed index), speed grade 6 = index 0
LUT_PS = 400               # a LUT4 (and the slice muxes behind it)
MUX_PS = 200               # FXA/FXB/M -> OFX (PFUMX / L6MUX21)
CARRY_PS = 60              # FCI -> FCO inside a carry chain
CLK_Q_PS = {"TRELLIS_FF": 400, "DP16KD": 5800}   # launch delay of a start point (else 0)
SETUP_PS = 200

_LOC = re.compile(r"X(\d+)/Y(\d+)/")


def predict_ps(drv: tuple[int, int], snk: tuple[int, int]) -> int:
    """nextpnr-ecp5's predicted delay of one arc (driver location -> sink location)."""
    dx, dy = abs(drv[0] - snk[0]), abs(drv[1] - snk[1])
    return TILE_PS * (6 + max(dx - 5, 0) + max(dy - 5, 0) + 2 * (min(dx, 5) + min(dy, 5)))


@dataclass
class Step:
    cell: str
    port: str
    kind: str
    loc: tuple[int, int]
    src: str
    net_ps: int          # the wire into this step
    at_ps: int           # arrival at this step's output (or endpoint input)


def _cell_ps(iport: str, oport: str) -> int | None:
    """Delay through a TRELLIS_COMB from an input to an output, None when there is no arc:
    F is the LUT4 of A..D; OFX the slice mux (PFUMX / L6MUX21) of this LUT, F1 (the other LUT
    of the pair) and FXA / FXB (the muxes below) selected by M; FCO the carry out."""
    lut = iport in ("A", "B", "C", "D")
    if oport == "F":
        return LUT_PS if lut or iport == "FCI" else None
    if oport == "OFX":
        return LUT_PS + MUX_PS if lut else MUX_PS if iport in ("M", "F1", "FXA", "FXB") else None
    if oport == "FCO":
        return CARRY_PS if iport == "FCI" else LUT_PS if lut else None
    return LUT_PS if lut else None


def _loc(cell: dict) -> tuple[int, int]:
    m = _LOC.match(cell.get("attributes", {}).get("NEXTPNR_BEL", ""))
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _src(cell: dict) -> str:
    src = cell.get("attributes", {}).get("src", "")
    return next((s for s in src.split("|") if not s.startswith("/share/")), src.split("|")[0])


def instance(cell: str) -> str:
    """The module instance a cell belongs to: its name up to the last `u_...` element
    ("u_core.g_rx[3].g_host.u_rxf.discard_q_TRELLIS_FF_Q" -> "u_core.g_rx[3].g_host.u_rxf");
    "(wrapper)" for the out-of-context wrapper's own cells."""
    parts = cell.split(".")
    last = max((i for i, p in enumerate(parts[:-1]) if p.startswith("u_")), default=None)
    return ".".join(parts[:last + 1]) if last is not None else "(wrapper)"


def analyse(design: dict, count: int = 10, slow_ns: float | None = None) -> dict:
    """Worst register-to-register paths of a placed nextpnr design. Returns {"paths": [...],
    "long_nets": [...], "summary": {...}} with each path a list of steps, worst first (one per
    endpoint cell). The summary counts the endpoints over thresholds with the wire share of their
    paths, and the endpoints slower than slow_ns (default: half the worst path) by instance."""
    top = next(iter(design["modules"].values()))
    cells = top["cells"]
    drivers: dict[int, tuple[str, str]] = {}
    sinks: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            d = c["port_directions"].get(port)
            for b in bits:
                if not isinstance(b, int):
                    continue
                if d == "output":
                    drivers[b] = (name, port)
                else:
                    sinks[b].append((name, port))
    untimed_bits = {b for name, c in cells.items() if c["type"] == "DCCA"
                   for b in c["connections"].get("CLKO", [])}
    locs = {name: _loc(c) for name, c in cells.items()}
    # Constant drivers (nextpnr's $PACKER_VCC / $PACKER_GND: a LUT with no inputs) time nothing.
    const_bits = {b for name, c in cells.items() if c["type"] == "TRELLIS_COMB"
                  and not any(c["connections"].get(p) for p in ("A", "B", "C", "D", "M", "FCI", "FXA", "FXB", "F1"))
                  for port in ("F", "OFX", "FCO") for b in c["connections"].get(port, [])}
    untimed_bits |= const_bits
    # Pins are unconstrained (as in nextpnr's figure): their nets are not timed.
    untimed_bits |= {b for c in cells.values() if c["type"] == "TRELLIS_IO"
                    for p, bits in c["connections"].items() if c["port_directions"].get(p) == "output"
                    for b in bits}
    inputs_of: dict[str, list[tuple[str, int]]] = defaultdict(list)   # comb cell -> (port, bit)
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) == "input":
                inputs_of[name] += [(port, b) for b in bits if isinstance(b, int)]

    def net_ps(bit: int, sink: tuple[str, str]) -> int:
        drv = drivers.get(bit)
        if drv is None or bit in untimed_bits:
            return 0
        if (drv[1] == "FCO" and sink[1] == "FCI") or sink[1] in ("FXA", "FXB", "F1"):
            return 0
        return predict_ps(locs[drv[0]], locs[sink[0]])

    # Arrival time at every cell output, memoised; comb cells are TRELLIS_COMB (LUTs, carries,
    # LUT RAM read ports): their inputs are walked back, everything else is a start point.
    arrival: dict[tuple[str, str], tuple[int, tuple[str, str] | None, int]] = {}

    def out_arrival(cell: str, port: str) -> int:
        key = (cell, port)
        if key in arrival:
            return arrival[key][0]
        c = cells[cell]
        if c["type"] != "TRELLIS_COMB":
            arrival[key] = (CLK_Q_PS.get(c["type"], 0), None, 0)
            return arrival[key][0]
        arrival[key] = (0, None, 0)          # guards against a combinational loop
        best = (0, None, 0)
        for iport, bit in inputs_of[cell]:
            cost = _cell_ps(iport, port)
            if cost is None:
                continue
            drv = drivers.get(bit)
            if drv is None:
                continue
            w = net_ps(bit, (cell, iport))
            t = out_arrival(*drv) + w + cost
            if t > best[0]:
                best = (t, (drv[0], drv[1]), w)
        arrival[key] = best
        return arrival[key][0]

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100000))
    ends = []
    for name, c in cells.items():
        if c["type"] not in ("TRELLIS_FF", "DP16KD"):
            continue
        worst = None
        for iport, bit in inputs_of[name]:
            if iport in ("CLK", "CLKA", "CLKB", "WCK"):
                continue
            drv = drivers.get(bit)
            if drv is None or bit in untimed_bits:
                continue
            w = net_ps(bit, (name, iport))
            t = out_arrival(*drv) + w + SETUP_PS
            if worst is None or t > worst[0]:
                worst = (t, iport, drv, w)
        if worst:
            ends.append((worst[0], name, worst[1], worst[2], worst[3]))
    ends.sort(reverse=True)

    def trace(end) -> list[Step]:
        t, name, iport, drv, w = end
        steps = [Step(name, iport, cells[name]["type"], locs[name], _src(cells[name]), w, t)]
        cur = drv
        while cur is not None:
            at, prev, w_in = arrival[cur]
            c = cells[cur[0]]
            steps.append(Step(cur[0], cur[1], c["type"], locs[cur[0]], _src(c), w_in, at))
            cur = prev
        return steps[::-1]

    # Long nets: the worst arc of each net, whatever the logic around it.
    long_nets = []
    names = {}
    for nname, n in top.get("netnames", {}).items():
        for b in n["bits"]:
            if isinstance(b, int) and (b not in names or n.get("hide_name", 1) == 0):
                names[b] = nname
    for bit, snks in sinks.items():
        if bit not in drivers or bit in untimed_bits or any(cells[c]["type"] == "DCCA" for c, _ in snks):
            continue
        worst = max(snks, key=lambda s: net_ps(bit, s))
        long_nets.append((net_ps(bit, worst), len(snks), names.get(bit, str(bit)), drivers[bit][0], worst[0]))
    long_nets.sort(reverse=True)

    # Summary over every endpoint: the wire share and length of its worst path.
    traces = [trace(e) for e in ends]
    per_end = [(e[0], sum(st.net_ps for st in steps), len(steps) - 2, instance(e[1]))
               for e, steps in zip(ends, traces)]
    slow = slow_ns * 1000 if slow_ns is not None else (ends[0][0] / 2 if ends else 0)
    thresholds = []
    for ns in (30, 20, 10, 5):
        sel = [x for x in per_end if x[0] > ns * 1000]
        if sel:
            thresholds.append({"worse_than_ns": ns, "endpoints": len(sel),
                               "wire_share": round(sum(x[1] for x in sel) / sum(x[0] for x in sel), 3),
                               "mean_cells": round(sum(x[2] for x in sel) / len(sel), 1)})
    by_inst: dict[str, int] = defaultdict(int)
    for x in per_end:
        if x[0] > slow:
            by_inst[x[3]] += 1
    return {
        "paths": [[st.__dict__ for st in steps] for steps in traces[:count]],
        "long_nets": [{"ps": p, "fanout": f, "net": n, "driver": d, "sink": s}
                      for p, f, n, d, s in long_nets[:count]],
        "summary": {"endpoints": len(ends), "thresholds": thresholds, "slow_ns": round(slow / 1000, 2),
                    "slow_by_instance": dict(sorted(by_inst.items(), key=lambda kv: -kv[1]))},
    }


def report(result: dict) -> str:
    out = []
    sm = result.get("summary")
    if sm:
        out.append(f"{sm['endpoints']} endpoints")
        for t in sm["thresholds"]:
            out.append(f"  worse than {t['worse_than_ns']:>2} ns: {t['endpoints']:>6}, "
                       f"{t['wire_share']:.0%} of it wire, {t['mean_cells']} cells per path")
        out.append(f"endpoints worse than {sm['slow_ns']} ns by instance:")
        for inst, n in list(sm["slow_by_instance"].items())[:25]:
            out.append(f"  {n:>6}  {inst}")
    for i, path in enumerate(result["paths"]):
        total = path[-1]["at_ps"]
        wire = sum(s["net_ps"] for s in path)
        out.append(f"path {i + 1}: {total / 1000:.2f} ns ({1e6 / total:.1f} MHz), wire {wire / 1000:.2f} ns, "
                   f"{len(path) - 2} cells between")
        for s in path:
            out.append(f"  {s['at_ps'] / 1000:7.2f} (+{s['net_ps'] / 1000:5.2f} wire) X{s['loc'][0]:<3} "
                       f"Y{s['loc'][1]:<3} {s['kind']:<12} {s['cell'][:70]}.{s['port']}  {s['src']}")
    out.append("longest nets (worst arc):")
    for n in result["long_nets"]:
        out.append(f"  {n['ps'] / 1000:6.2f} ns fanout {n['fanout']:<6} {n['net'][:80]}  <- {n['driver'][:60]}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("placed", type=Path)
    ap.add_argument("-n", type=int, default=10, help="paths and nets to list")
    ap.add_argument("-s", "--slow-ns", type=float, help="count endpoints slower than this by instance")
    a = ap.parse_args(argv)
    print(report(analyse(json.loads(a.placed.read_text()), a.n, a.slow_ns)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
