"""`fastpath bench lib`: latency and throughput of the library's stream cores in simulation.

For each configuration and frame size, frames go back to back into the core with the output
always ready. Latency is counted as in docs/architecture.md (first beat accepted -> first beat
offered), in output-clock cycles and ns; across clock domains it comes from simulation time.
Throughput is output beats per cycle of the slower side's clock (100 % = one beat every cycle
of the slower clock).
"""
from __future__ import annotations

import json
import os
import tempfile

from fastpath import rtl
from fastpath.sim import runner

# name, top, parameters, write-side period (ns), read-side period (ns)
CONFIGS = [
    ("fp_axis_register 64b", "fp_axis_register", {"DATA_WIDTH": 64}, 5.0, 5.0),
    ("fp_axis_fifo 64b", "fp_axis_fifo", {"DATA_WIDTH": 64, "DEPTH": 512}, 5.0, 5.0),
    ("fp_axis_fifo 64b frame", "fp_axis_fifo", {"DATA_WIDTH": 64, "DEPTH": 512, "FRAME_MODE": 1}, 5.0, 5.0),
    ("fp_axis_async_fifo 64b 156->200", "fp_axis_async_fifo", {"DATA_WIDTH": 64, "DEPTH": 512}, 6.4, 5.0),
]
SIZES = [64, 128, 256, 512, 1024, 1518]


def run(quick: bool = False) -> dict:
    cores = []
    for name, top, params, s_ns, m_ns in CONFIGS:
        if top not in rtl.modules():
            continue
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
            out = fh.name
        cfg = {"sizes": SIZES[:3] if quick else SIZES, "frames": 8 if quick else 32,
               "s_period_ns": s_ns, "m_period_ns": m_ns}
        runner.run(top, "fastpath.lib.bench_cocotb", params,
                   env={"FASTPATH_BENCH": json.dumps(cfg), "FASTPATH_BENCH_OUT": out,
                        "COCOTB_LOG_LEVEL": "WARNING"})
        with open(out) as fh:
            rows = json.load(fh)
        os.unlink(out)
        cores.append({"name": name, "top": top, "params": params, "clock_mhz": round(1000 / m_ns, 2),
                      "results": rows})
    return {"simulator": runner.simulator(), "cores": cores}


def table(result: dict) -> str:
    lines = [f"{'core':30} {'size':>5} {'latency cyc':>12} {'latency ns':>12} {'throughput':>10}"]
    for c in result["cores"]:
        for r in c["results"]:
            lc, ln = r["latency_cycles"], r["latency_ns"]
            cyc = f"{lc['min']}" if lc["min"] == lc["max"] else f"{lc['min']}-{lc['max']}"
            ns = f"{ln['min']:g}" if ln["min"] == ln["max"] else f"{ln['min']:g}-{ln['max']:g}"
            lines.append(f"{c['name']:30} {r['size']:>5} {cyc:>12} {ns:>12} {r['throughput_pct']:>9.1f}%")
    return "\n".join(lines)
