"""`fastpath bench p4`: the P4 pipeline in simulation (packets per cycle, latency per block, SR-MPLS push throughput), compile times, the software baseline.

RTL (fp_p4_pipeline in Verilator, p4/pipeline_cocotb.py), no backpressure:
- every shared BMv2 program and sample on the 64-bit build (`pipeline_sim.SIM_HW`), with random
  entries and 300 random packets (`make_entries`, `make_packet`): the packets per cycle the
  pipeline accepts back to back, checked against the reference interpreter;
- SR-MPLS push of 3 labels (`samples.mpls_push`) on Ethernet/IPv4/UDP frames of 64, 1518 and 9000
  bytes (with FCS) on a one-stage build (`mpls_hw`) of 64, 256 and 512 bits (--quick: 64 bits on
  the shared 5-stage build): packets and bits per cycle out, and in Gb/s at the routed clock of
  `p4_pipeline_64` (build/syn/report.json) when `fastpath syn p4_pipeline_64` has been run (null
  otherwise: no figure at a clock the design does not meet);
- latency per block in cycles: the parser (its cycle model), each stage (`stage_latency()`,
  asserted by the tests), the deparser, and an isolated packet end to end (measured).
Beside it: compile time per shared program (median of 20, `compile_program`), table updates
from a P4Runtime Write to the entry being live on the RTL (`_update`: TCAM rows and cycles per
Write, ns at the routed clock, and the gRPC round trips), and the software SR-MPLS push over
veth (p4/bench_sw.py; root and namespaces only).

Writes build/bench/p4.json: {"packets_per_cycle_min", "mpls_push_gbps_1518B", "programs": {...},
"mpls": {width: {size: {...}}}, "table_update": {...}, "latency_cycles": {...}, "compile_ms": {...}, "syn": {...},
"software_baseline": {...}, "paper": {...}}.
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from fastpath import syn
from fastpath.paths import VECTORS, progress

from . import compiler
from . import pipeline_load as PL
from . import samples as S
from .pipeline_sim import SIM_HW
from .rtl_backend import run_job

BMV2 = VECTORS / "bmv2"
SIZES = (64, 1518, 9000)
MPLS_CMDS = "table_add tbl mpls_push3 0x0800 => 100 200 300 1\n"
PAPER = {"mpls_push_gbps_1518B": 78.97, "mpls_push_gbps_jumbo": 84.82, "compile_s": 3.07,
         "note": "seeds/004: 512-bit pipeline on an FPGA NIC; Menshen 424 ns for 64-byte packets"}


def mpls_hw(width: int) -> PL.PipelineHW:
    """The build for the SR-MPLS push at a width, sized to what the push needs: one stage,
    mpls_push's PHV (528 bits + 96 system bits, in 640), 5 op slots (the 3-label push takes 5, no
    waits), 1 temporary (it uses none), a 16-deep stage FIFO (one packet per 17 cycles short of one
    per cycle with this TCAM: far above the parser's rate); the 64-bit one is the synthesis entry
    p4_pipeline_64 (p4/syn.toml)."""
    return PL.PipelineHW(DATA_WIDTH=width, PHV_BITS=640, VALID_BITS=8, STAGES=1, STACKS=1, HDRS=8, CSUMS=1,
                         DATA_BITS=128, OPS=5, ACTIONS=8, TEMPS=1, SLOTS=1, SLOT_BITS=16, BLOCK_ENTRIES=8,
                         FIFO_DEPTH=16, PKT_DEPTH=512)


def _frame(size: int) -> bytes:
    """Ethernet / IPv4 / UDP of `size` bytes with the FCS (so size - 4 bytes here)."""
    from scapy.layers.inet import IP, UDP
    from scapy.layers.l2 import Ether
    p = Ether(dst="00:04:00:00:00:01", src="00:aa:bb:00:00:00") / IP(src="192.0.2.1", dst="10.0.0.5", ttl=64) / \
        UDP(sport=1234, dport=5678)
    return bytes(p) + bytes(size - 4 - len(p))


def _rate(r: dict) -> dict:
    n = len(r["in_first"])
    span_in = r["in_first"][-1] - r["in_first"][0]
    span_out = (r["out_first"][-1] - r["out_first"][0]) if len(r["out_first"]) > 1 else 0
    return {"packets": n, "packets_out": len(r["out_first"]), "mismatches": r["mismatches"],
            "packets_per_cycle": round((n - 1) / span_in, 4) if span_in else None,
            "packets_out_per_cycle": round((len(r["out_first"]) - 1) / span_out, 4) if span_out else None,
            "bits_out_per_cycle": round(8 * sum(r["out_bytes"][1:]) / span_out, 3) if span_out else None}


def _programs(quick: bool) -> dict:
    progs = [(f.stem, f) for f in sorted(BMV2.glob("*.json"))] if BMV2.is_dir() else []
    out = {}
    for name, path in progs:
        progress(f"pipeline (64 bits): {name}")
        r = run_job({"kind": "bench", "program": str(path), "random": {"seed": 1, "count": 100 if quick else 300}})
        out[name] = _rate(r) | {"stages": r["stages"]}
    return out


def _mpls(widths: list[int], quick: bool) -> dict:
    import json
    import tempfile
    from pathlib import Path
    prog = Path(tempfile.mkdtemp()) / "mpls_push.json"
    prog.write_text(json.dumps(S.mpls_push()))
    out = {}
    for w in widths:
        hw = SIM_HW if quick else mpls_hw(w)
        out[str(w)] = {}
        for size in SIZES:
            n = {64: 200, 1518: 40, 9000: 12}[size] // (2 if quick else 1)
            progress(f"SR-MPLS push, {w} bits, {size}-byte frames x {n}")
            f = _frame(size).hex()
            r = run_job({"kind": "bench", "program": str(prog), "commands": MPLS_CMDS, "frames": [f], "repeat": n,
                         "port": 0}, hw)
            x = _rate(r)
            x["latency_first_packet_cycles"] = r["out_first"][0] - r["in_first"][0]
            out[str(w)][str(size)] = x
    return out


def _compile_ms() -> dict:
    out = {}
    for f in sorted(BMV2.glob("*.json")) if BMV2.is_dir() else []:
        text = f.read_text()
        compiler.compile_program(text, name=f.stem)
        ts = []
        for _ in range(20):
            t0 = time.perf_counter()
            compiler.compile_program(text, name=f.stem)
            ts.append((time.perf_counter() - t0) * 1e3)
        out[f.stem] = {"median_ms": round(statistics.median(ts), 3), "max_ms": round(max(ts), 3)}
    return out


def _latency() -> dict:
    from .parser_load import LATENCY_BASE
    hw = SIM_HW
    return {"stage": hw.stage_latency(), "tcam_in_stage": hw.tcam_latency(), "action_unit": hw.action_hw().latency,
            "parser_base": LATENCY_BASE, "note": "parser: LATENCY_BASE + its states' cycles after the header window; "
            "deparser: 5 + its steps before the first output beat (p4/docs/parser.md, deparser.md)"}


def _syn() -> dict:
    out = {}
    for name in ("p4_pipeline_64", "p4_parser_64", "p4_action_64", "p4_deparser_64", "p4_tcam_32x104"):
        c = syn.report_entry(name)
        if c:
            out[name] = {"fmax_mhz": syn.routed_fmax(name) or None, "lut": c.get("xilinx", {}).get("lut"),
                         "ff": c.get("xilinx", {}).get("ff")}
    return out


def _update(n: int, fmax: float | None) -> dict:
    """Table updates on the RTL: `fastpath p4 serve --backend rtl`'s job (the server inside the
    simulation of SIM_HW) with `p4runtime.measure_update_latency` as its controller: n timed
    INSERTs of a /24 route into simple_router's ipv4_lpm, each followed by a PacketOut that must
    come back through it (the oldest route deleted, untimed, when the table's rows are nearly
    full). Each Write's changes reach the TCAM before the Write returns; per Write the job counts
    the TCAM rows and stage registers written and the cycles from the first write to a lookup that
    sees the last (`pipeline_sim.Driver.load_tables`): the hardware's update time, in ns at the
    routed clock. The microseconds are Python gRPC and the simulation on this machine."""
    from . import p4runtime
    from .rtl_backend import serving
    prog, info = BMV2 / "simple_router.json", BMV2 / "simple_router.p4info.txt"
    if not prog.exists():
        return {"skipped": "no shared vectors"}
    with serving() as box:
        if not box["addr"]:
            return {"skipped": f"the simulation did not serve: {box.get('error') or box.get('result')}"}
        wall = p4runtime.measure_update_latency(n=n, warmup=2, program=prog, p4info=info, addr=box["addr"],
                                                capacity=SIM_HW.rows - 1, backend="RTL (fp_p4_pipeline, SIM_HW)")
    commits = [c for c in box.get("result", {}).get("commits", []) if "cycles" in c]
    cyc = sorted(c["cycles"] for c in commits)
    rows = sorted(c["rows"] for c in commits)

    def st(xs):
        return {"median": statistics.median(xs), "max": xs[-1], "min": xs[0]} if xs else None
    out = {"writes_committed": len(commits), "rows": st(rows), "cycles": st(cyc),
           "ns_at_routed_clock": ({k: round(v * 1000 / fmax, 1) for k, v in st(cyc).items()} if fmax and cyc else None),
           "p4runtime": wall}
    return out


def _software(quick: bool) -> dict:
    from . import bench_sw
    try:
        return bench_sw.run(quick=quick)
    except Exception as e:  # noqa: BLE001 - a side figure: report, do not stop the bench
        return {"skipped": f"failed: {str(e).splitlines()[0] if str(e) else type(e).__name__}"}


def run(quick: bool = False) -> dict:
    programs = _programs(quick)
    widths = [64] if quick else [64, 256, 512]
    mpls = _mpls(widths, quick)
    # packets per cycle: random traffic of every program and the shortest MPLS frames (longer
    # frames are bounded by the stream's width, which bits_out_per_cycle shows)
    rates = [p["packets_per_cycle"] for p in programs.values() if p["packets_per_cycle"]]
    rates += [w["64"]["packets_per_cycle"] for w in mpls.values() if w["64"]["packets_per_cycle"]]
    synr = _syn()
    clocks = synr.get("p4_pipeline_64", {}).get("fmax_mhz") or {}
    fmax = min(clocks.values()) if isinstance(clocks, dict) and clocks else None
    b1518 = mpls["64"]["1518"]["bits_out_per_cycle"]
    update = _update(40 if quick else 100, fmax)
    best = max(mpls, key=lambda w: mpls[w]["1518"]["bits_out_per_cycle"] or 0)
    return {
        "packets_per_cycle_min": min(rates) if rates else None,
        "mpls_push_bits_per_cycle_1518B": {w: mpls[w]["1518"]["bits_out_per_cycle"] for w in mpls},
        "mpls_push_gbps_1518B": round(b1518 * fmax / 1000, 3) if fmax else None,
        "mpls_push_gbps_1518B_note": (f"64-bit build at the routed {fmax} MHz of p4_pipeline_64" if fmax else
                                      "no routed clock for the pipeline (run `fastpath syn p4_pipeline_64`): "
                                      "bits per cycle only"),
        "widest_1518B": best,
        "mismatches": sum(p["mismatches"] for p in programs.values())
        + sum(x["mismatches"] for w in mpls.values() for x in w.values()),
        "table_update": update,
        "programs": programs, "mpls": mpls, "latency_cycles": _latency(), "compile_ms": _compile_ms(),
        "syn": synr, "software_baseline": _software(quick), "paper": PAPER, "quick": quick,
    }


def table(r: dict) -> str:
    lines = [f"{'program (64 bits)':22} {'pkts/cycle in':>14} {'pkts/cycle out':>15} {'mismatches':>10}  stages"]
    for n, p in r["programs"].items():
        lines.append(f"{n:22} {p['packets_per_cycle'] or '-':>14} {p['packets_out_per_cycle'] or '-':>15} "
                     f"{p['mismatches']:>10}  {', '.join(p['stages'])}")
    lines.append(f"{'SR-MPLS push 3 labels':22} {'width':>6} {'frame B':>8} {'pkts/cycle':>11} {'bits/cycle out':>15} "
                 f"{'latency cyc':>12}")
    for w, sizes in r["mpls"].items():
        for size, x in sizes.items():
            lines.append(f"{'':22} {w:>6} {size:>8} {x['packets_per_cycle'] or '-':>11} "
                         f"{x['bits_out_per_cycle'] or '-':>15} {x['latency_first_packet_cycles']:>12}")
    lat = r["latency_cycles"]
    lines.append(f"latency: stage {lat['stage']} cycles (TCAM {lat['tcam_in_stage']}, action unit {lat['action_unit']})")
    lines.append("compile: " + ", ".join(f"{k} {v['median_ms']} ms" for k, v in r["compile_ms"].items()))
    for name, v in r["syn"].items():
        fm = ", ".join(f"{k} {x} MHz" for k, x in (v["fmax_mhz"] or {}).items()) or "not routed"
        lines.append(f"{name}: ECP5-6 {fm}; Xilinx {v['lut']} LUT / {v['ff']} FF")
    u = r.get("table_update") or {}
    if "cycles" in u and u["cycles"]:
        w = u["p4runtime"]
        lines.append(f"table update (P4Runtime INSERT/DELETE on the RTL, {u['writes_committed']} Writes): TCAM rows "
                     f"median {u['rows']['median']} max {u['rows']['max']}; cycles to live median "
                     f"{u['cycles']['median']} max {u['cycles']['max']}"
                     + (f" ({u['ns_at_routed_clock']['median']} / {u['ns_at_routed_clock']['max']} ns)"
                        if u["ns_at_routed_clock"] else "")
                     + f"; Write call to PacketIn median {w['write_to_live_us']['median']} us, misses {w['misses']}")
    elif u:
        lines.append(f"table update: {u.get('skipped', 'no figures')}")
    sw = r["software_baseline"]
    lines.append("software baseline (veth): " + (sw["skipped"] if "skipped" in sw else "see p4.json"))
    lines.append(f"packets_per_cycle_min {r['packets_per_cycle_min']}, mpls_push_gbps_1518B "
                 f"{r['mpls_push_gbps_1518B']} ({r['mpls_push_gbps_1518B_note']}), mismatches {r['mismatches']}")
    return "\n".join(lines)
