"""`fastpath bench mac`: latency and throughput of the Ethernet MACs in simulation.

Runs the cocotb benches of the 1G MAC (GMII 1000, MII 100 and 10; mac/bench_cocotb_1g.py)
and of the 10G MAC (XGMII; mac/bench_cocotb_10g.py) and writes build/bench/mac.json:
{"macs": [{"name", "speed_mbps", "clock_mhz", "rx_latency_cycles", "tx_latency_cycles",
"rx_latency_ns", "tx_latency_ns", "throughput_pct_min", "sizes": [...per-size rows...]}, ...]}.
RX latency: SFD at the RX pins -> first byte valid on m_axis. TX latency: first s_axis_tvalid of an
idle MAC -> SFD at the TX pins. Throughput: frames back to back at the minimum IFG, in % of line
rate, the minimum over sizes and directions.
"""
from __future__ import annotations

from fastpath import rtl
from fastpath.sim import runner

SIZES = [64, 128, 256, 512, 1024, 1280, 1518]


def _run(top: str, module: str, cfg: dict) -> list[dict]:
    return runner.run_json(top, module, {}, cfg)


def _span(v) -> tuple[float, float]:
    if isinstance(v, dict):
        return v["min"], v["max"]
    if isinstance(v, list):
        return min(v), max(v)
    return v, v


def _summary(name: str, speed: int, clock_mhz: float, rows: list[dict]) -> dict:
    rx = [x for r in rows for x in _span(r["rx_latency_cycles"])]
    tx = [x for r in rows for x in _span(r["tx_latency_cycles"])]
    thr = [r[k] for r in rows for k in r if k.endswith(("line_rate_pct", "throughput_pct"))]
    ns = 1000.0 / clock_mhz
    return {"name": name, "speed_mbps": speed, "clock_mhz": clock_mhz,
            "rx_latency_cycles": max(rx), "tx_latency_cycles": max(tx),
            "rx_latency_ns": round(max(rx) * ns, 2), "tx_latency_ns": round(max(tx) * ns, 2),
            "throughput_pct_min": min(thr), "sizes": rows}


def run(quick: bool = False) -> dict:
    sizes = [64, 512, 1518] if quick else SIZES
    frames = 4 if quick else 16
    macs = []
    if "fp_eth_mac_1g" in rtl.modules():
        speeds = [1000, 100] if quick else [1000, 100, 10]
        rows = _run("fp_eth_mac_1g", "fastpath.mac.bench_cocotb_1g",
                    {"speeds": speeds, "sizes": sizes, "frames": frames})
        for s in speeds:
            name = "fp_eth_mac_1g GMII" if s == 1000 else f"fp_eth_mac_1g MII {s}"
            macs.append(_summary(name, s, 125.0, [r for r in rows if r["speed_mbps"] == s]))
    if "fp_eth_mac_10g" in rtl.modules():
        rows = _run("fp_eth_mac_10g", "fastpath.mac.bench_cocotb_10g", {"sizes": sizes, "frames": frames * 2})
        macs.append(_summary("fp_eth_mac_10g XGMII", 10000, 156.25, rows))
    return {"simulator": runner.simulator(), "macs": macs}


def table(result: dict) -> str:
    lines = [f"{'MAC':22} {'Mb/s':>6} {'RX cyc':>7} {'RX ns':>8} {'TX cyc':>7} {'TX ns':>8} {'line rate min':>14}"]
    for m in result["macs"]:
        lines.append(f"{m['name']:22} {m['speed_mbps']:>6} {m['rx_latency_cycles']:>7} {m['rx_latency_ns']:>8g} "
                     f"{m['tx_latency_cycles']:>7} {m['tx_latency_ns']:>8g} {m['throughput_pct_min']:>13.2f}%")
    return "\n".join(lines)
