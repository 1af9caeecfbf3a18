"""`fastpath bench gre`: the GRE cores in simulation beside the software forwarder over veth.

RTL (gre/bench_cocotb.py): per width, the decap latency of plain IPv4/GRE/0x6558 in cycles
and ns at the stated clock (156.25 MHz for 64 bits, 10G; 322 MHz for 256/512 bits), bubbles over a
long back-to-back run of 92-byte frames, and Mpps (the seed: 11.19 Mpps at 92 B, 0 loss). Encap the
same way. Software (gre/bench_sw.py): the C forwarder between veth pairs in namespaces,
per-packet latency distribution and the maximum loss-free rate (skipped without root).
Each RTL row also carries the ECP5-6 Fmax of that core and width from the last `fastpath syn`
(build/syn/report.json, entries gre_decap_<width> / gre_encap_<width>; None when not run), to set
against the stated clock, and the latency in ns and the 92-byte rate at that Fmax.
The decapsulator runs twice per width: its defaults ("rtl", the output one cycle after the
decision's last byte) and the pipelined option PARSE_STAGES = 3, OUT_STAGES = 2
("rtl_pipelined", Fmax from the entries gre_decap_<width>_p3), which trades cycles for clock.
Writes build/bench/gre.json: {"rtl": [...], "rtl_pipelined": [...], "encap": [...], "software": {...}}.
"""
from __future__ import annotations

from fastpath import syn
from fastpath.sim import runner
from fastpath.gre import bench_sw as gre_sw

WIDTHS = [64, 256, 512]
SEED_MPPS_92B = 11.19
PIPELINED = {"PARSE_STAGES": 3, "OUT_STAGES": 2}


def _rtl(top: str, width: int, frames: int, params: dict | None = None, entry: str = "") -> dict:
    r = runner.run_json(top, "fastpath.gre.bench_cocotb", {"DATA_WIDTH": width, **(params or {})},
                        {"frames": frames, "size": 92})
    r["params"] = params or {}
    r["fmax_mhz_ecp5"] = _fmax(f"{top}_{width}{entry}")
    return r


def _fmax(entry: str) -> float | None:
    """The ECP5-6 Fmax of a gre/syn.toml entry from the last `fastpath syn`, if it was run."""
    return syn.routed_fmax(entry).get("clk")


def _row(r: dict) -> dict:
    run92 = next((v for k, v in r["runs"].items() if k.startswith("92B") and "6558" in k), None) \
        or next(iter(r["runs"].values()))
    fmax = r.get("fmax_mhz_ecp5")
    at_fmax = {}
    if fmax:
        at_fmax = {"latency_ns_ecp5": round(r["headline_latency_cycles"] * 1000.0 / fmax, 1),
                   "mpps_92B_ecp5": round(run92["mpps"] * fmax / r["clock_mhz"], 2)}
    return {"width": r["data_width"], "clock_mhz": r["clock_mhz"], "params": r["params"],
            "latency_cycles": r["headline_latency_cycles"], "latency_ns": r["headline_latency_ns"],
            "mpps_92B": run92["mpps"], "bubbles": run92["bubbles"], "fmax_mhz_ecp5": fmax, **at_fmax,
            "latency_cycles_by_variant": r["latency_cycles"], "runs": r["runs"]}


def run(quick: bool = False) -> dict:
    frames = 200 if quick else 2000
    rtl = [_row(_rtl("fp_gre_decap", w, frames)) for w in WIDTHS]
    piped = [_row(_rtl("fp_gre_decap", w, frames, PIPELINED, "_p3")) for w in WIDTHS]
    encap = [_row(_rtl("fp_gre_encap", w, frames)) for w in WIDTHS]
    software = gre_sw.run(quick=quick)
    return {"simulator": runner.simulator(), "seed": {"mpps_92B": SEED_MPPS_92B, "fpga_us": 3.18, "dpdk_us": 9.52},
            "rtl": rtl, "rtl_pipelined": piped, "encap": encap, "software": software}


def table(result: dict) -> str:
    lines = [f"{'core':13} {'width':>5} {'clock MHz':>9} {'latency':>14} {'Mpps @92B':>10} {'bubbles':>8} "
             f"{'ECP5-6 Fmax':>11} {'there: latency':>14} {'Mpps @92B':>10}"]
    for name, rows in (("fp_gre_decap", result["rtl"]), ("  pipelined", result.get("rtl_pipelined", [])),
                       ("fp_gre_encap", result["encap"])):
        for r in rows:
            lat = f"{r['latency_cycles']} cyc {r['latency_ns']:g} ns"
            fmax = "-" if r.get("fmax_mhz_ecp5") is None else f"{r['fmax_mhz_ecp5']:g} MHz"
            there = f"{r['latency_ns_ecp5']:g} ns" if "latency_ns_ecp5" in r else "-"
            mpps = f"{r['mpps_92B_ecp5']:.2f}" if "mpps_92B_ecp5" in r else "-"
            lines.append(f"{name:13} {r['width']:>5} {r['clock_mhz']:>9g} {lat:>14} {r['mpps_92B']:>10.2f} "
                         f"{r['bubbles']:>8} {fmax:>11} {there:>14} {mpps:>10}")
    lines.append(f"(seed FPGA: {SEED_MPPS_92B} Mpps at 92 B)")
    sw = result["software"]
    if "skipped" in sw:
        lines.append(f"software forwarder: skipped ({sw['skipped']})")
    else:
        lines.append(f"software forwarder ({sw.get('mode')}): median {sw['median_us']} us, p99.9 {sw['p999_us']} us, "
                     f"max {sw['max_us']} us, max rate {sw['max_mpps']} Mpps (seed DPDK: 9.52 us end to end)")
    return "\n".join(lines)
