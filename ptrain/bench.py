"""`fastpath bench ptrain`: the RTL tester's one-way-delay, capacity and loss errors against simulation truth.

The whole tester (fp_ptrain_1g at 125 MHz, fp_ptrain_10g at 156.25 MHz) runs in Verilator with its
TX pins wired back to its RX pins (ptrain/bench_cocotb.py, fastpath.ptrain.wire): a loopback run
calibrates it (seeds/003, section 6.3), then wires of known extra length, bottlenecks of known
rate and known drops, duplicates and swaps give the truth each figure is held against. Beside it:
the software baseline over veth (fastpath.ptrain.baseline, root and namespaces only) and the
routed clock of the 1G tester (`fastpath syn ptrain_1g`, build/syn/report.json) when it was run.

Writes build/bench/ptrain.json: {"owd_error_ns_max": {"1g", "10g"}, "capacity_error_pct_max",
"loss_exact", "rtl": {"1g": {...}, "10g": {...}}, "software": {...} or {"skipped": why},
"syn": {entry: {"fmax_mhz", "lut", "ff"}}}.
"""
from __future__ import annotations

from fastpath import syn
from fastpath.paths import progress
from fastpath.sim import runner

TOPS = {"1g": "fp_ptrain_1g", "10g": "fp_ptrain_10g"}
SYN = ("ptrain_1g", "ptrain_10g")
PAPER = {"owd_resolution_ns": 8, "note": "seeds/003: 8 ns timestamps on a 125 MHz clock, GPS PPS"}


def _rtl(speed: str, quick: bool) -> dict:
    progress(f"{speed} tester in simulation ({'quick' if quick else 'full'})")
    return runner.run_json(TOPS[speed], "fastpath.ptrain.bench_cocotb", {"PPS_INTERVAL_NS": 100000},
                           {"speed": speed, "quick": quick})


def _syn() -> dict:
    out = {}
    for name in SYN:
        c = syn.report_entry(name)
        if c:
            out[name] = {"fmax_mhz": syn.routed_fmax(name), "lut": c["xilinx"]["lut"], "ff": c["xilinx"]["ff"],
                         "bram36": c["xilinx"]["bram36"]}
    return out


def _software(quick: bool) -> dict:
    from fastpath.ptrain import baseline
    why = baseline.unavailable()
    if why:
        return {"skipped": why}
    progress("software baseline over veth")
    try:
        return baseline.measure(quick)
    except Exception as e:  # noqa: BLE001 - the baseline is a side figure; report, do not stop the bench
        return {"skipped": f"failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"}


def run(quick: bool = False) -> dict:
    rtl = {speed: _rtl(speed, quick) for speed in TOPS}
    return {"owd_error_ns_max": {s: r["owd_error_ns_max"] for s, r in rtl.items()},
            "capacity_error_pct_max": max(r["capacity_error_pct_max"] for r in rtl.values()),
            "loss_exact": all(r.get("loss_exact", True) for r in rtl.values()),
            "rtl": rtl, "software": _software(quick), "syn": _syn(), "paper": PAPER}


def table(r: dict) -> str:
    lines = [f"{'speed':5} {'loopback fit':>26} {'owd err max ns':>15} {'capacity err %':>15} "
             f"{'loss exact':>10} {'60 B frames/s':>14} {'rx frames/s':>14} {'line':>12}"]
    for s, x in r["rtl"].items():
        c = x["calibration"]
        fit = f"{c['slope_ns_per_byte']:.4f} ns/B + {c['intercept_ns']:.1f}"
        lr = x["line_rate"]
        lines.append(f"{s:5} {fit:>26} {x['owd_error_ns_max']:>15g} {x['capacity_error_pct_max']:>15g} "
                     f"{str(x.get('loss_exact', '-')):>10} {lr['frames_per_s']:>14,.0f} "
                     f"{lr['frames_per_s_rx']:>14,.0f} {lr['line_frames_per_s']:>12,.0f}")
    for s, x in r["rtl"].items():
        for k in ("line_rate", "line_rate_full"):
            lr = x[k]
            lines.append(f"  {s} {lr['size']} B ({lr['size_with_fcs']} with FCS) back to back: {lr['sent']} sent, "
                         f"{lr['recorded']} recorded, {lr['record_drops']} record drops, "
                         f"{lr['frames_per_s']:,.0f} frames/s sent, {lr['frames_per_s_rx']:,.0f} received "
                         f"(line {lr['line_frames_per_s']:,.0f}: {lr['of_line_rate']:.6f})")
    for s, x in r["rtl"].items():
        for c in x["capacity_runs"]:
            lines.append(f"  {s} bottleneck {c['bottleneck_bps'] / 1e6:g} Mb/s: capacity "
                         f"{c['capacity_bps'] / 1e6:.4f} Mb/s ({c['error_pct']:g} %)")
        for lr in x.get("loss_runs", []):
            lines.append(f"  {s} loss run: truth {lr['truth']}, hardware {lr['hardware']}, exact {lr['exact']}")
    sw = r["software"]
    lines.append("software baseline (veth): " + (sw["skipped"] if "skipped" in sw else "see ptrain.json"))
    for name, v in r["syn"].items():
        lines.append(f"{name}: ECP5-6 {v['fmax_mhz']} MHz, Xilinx {v['lut']} LUT / {v['ff']} FF")
    lines.append(f"owd_error_ns_max {r['owd_error_ns_max']}, capacity_error_pct_max "
                 f"{r['capacity_error_pct_max']}, loss_exact {r['loss_exact']}")
    return "\n".join(lines)
