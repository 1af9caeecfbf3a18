"""`fastpath bench node` gives nanoseconds only at the clock the routed node_4p (fp_node_w, one
125 MHz clock) meets; otherwise cycles only, every *_ns null (no simulation: the harness is
replaced by a stand-in)."""
import json

import pytest

from fastpath.node import bench
from fastpath.node import budget as node_budget


def _report(tmp_path, fmax=None, placed=False, per_seed=None):
    core = {}
    if fmax is not None:
        ecp5 = {"fmax": {c: {"achieved_mhz": v, "target_mhz": 125.0, "seed": 2} for c, v in fmax.items()}}
        if per_seed:
            ecp5["fmax_per_seed"] = per_seed
        core["ecp5_placed" if placed else "ecp5"] = ecp5
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"cores": {"node_4p": core} if fmax is not None else {},
                                "ecp5_target": {"device": "LFE5U-85F", "speed": 6}}))
    return path


def test_no_routed_figure_means_cycles_only(tmp_path):
    r = bench.routed_clocks(_report(tmp_path))
    assert r["clock_mhz"] is None and r["fmax"] is None and "fastpath syn node_4p" in r["reason"]
    assert bench.routed_clocks(tmp_path / "missing.json")["clock_mhz"] is None


def test_placement_is_not_a_routed_figure(tmp_path):
    r = bench.routed_clocks(_report(tmp_path, {"clk": 150.0, "gmii_rx_clk": 150.0}, placed=True))
    assert r["clock_mhz"] is None


@pytest.mark.parametrize("fmax,slow", [({"clk": 110.5, "gmii_rx_clk": 150.0}, "clk 110.5 MHz"),
                                       ({"clk": 131.0, "gmii_rx_clk": 124.9}, "gmii_rx_clk 124.9 MHz")])
def test_a_clock_below_gmii_gives_no_ns(tmp_path, fmax, slow):
    r = bench.routed_clocks(_report(tmp_path, fmax))
    assert r["clock_mhz"] is None and slow in r["reason"] and r["fmax"] == fmax


def test_a_clock_missing_from_the_report_gives_no_ns(tmp_path):
    r = bench.routed_clocks(_report(tmp_path, {"clk": 140.0}))
    assert r["clock_mhz"] is None and "gmii_rx_clk" in r["reason"]


def test_routed_figures_give_ns_at_the_gmii_clock(tmp_path):
    """fp_node_w's one clock is the GMII's: 125 MHz however fast the routed design is."""
    per_seed = {"1": {}, "2": {}, "3": {}}
    r = bench.routed_clocks(_report(tmp_path, {"clk": 131.27, "gmii_rx_clk": 160.0}, per_seed=per_seed))
    assert r["clock_mhz"] == 125.0 and r["seed"] == {"clk": 2, "gmii_rx_clk": 2}
    assert r["seeds"] == [1, 2, 3] and r["part"] == "LFE5U-85F-6"


class _Harness:
    """Stands in for NodeHarness (no Verilator build)."""

    def __init__(self, ports=12, seg_bytes=64, segments=None, extra_params=None, top="fp_node"):
        self.top, self.seg_bytes, self.params = top, seg_bytes, {"PORTS": ports}
        self.default_clk_ps = 8000 if top == "fp_node_w" else 5000


def _fake_run(monkeypatch, tmp_path, fmax, off_budget_ps=0, quick=True):
    want_ps = int(node_budget.w_latency_ns(bench.PORTS) * 1000)

    def measure(h, size, load, n, rel, clk_ps=None):
        lat = [want_ps, want_ps + (off_budget_ps if load == "full" and size == 1518 else 0)]
        ns = {"min": min(lat) / 1000, "avg": sum(lat) / 2000, "max": max(lat) / 1000}
        return {"subject": h.top, "mode": "ct", "size": size, "load": load, "datapath_mhz": 125.0,
                "latency_ns": ns, "latency_cycles": {k: v / 8 for k, v in ns.items()},
                "latencies_ps": sorted(set(lat)), "throughput_pct": 100.0 if load == "full" else None,
                "lost": 0, "frames": n, "bad_out": 0, "model_missing": 0, "release_ns": rel}

    monkeypatch.setattr(bench, "NodeHarness", _Harness)
    monkeypatch.setattr(bench, "measure", measure)
    monkeypatch.setattr(bench, "_plot", lambda out: None)
    return bench.run(quick=quick, report_path=_report(tmp_path, fmax))


def test_run_without_a_routed_clock_reports_cycles_only(monkeypatch, tmp_path):
    out = _fake_run(monkeypatch, tmp_path, {"clk": 110.5, "gmii_rx_clk": 150.0})
    assert out["clock_mhz"] is None and out["routed_fmax_mhz"] == {"clk": 110.5, "gmii_rx_clk": 150.0}
    assert out["worst_latency_ns"] is None and out["jitter_ns"] is None and out["budget"]["latency_ns"] is None
    assert all(r["latency_ns"] is None for r in out["results"])
    assert out["worst_latency_cycles"] == node_budget.w_latency_ns(bench.PORTS) / 8 and out["jitter_cycles"] == 0
    assert out["budget"]["release_ns"] == node_budget.w_release_ns(bench.PORTS)
    assert out["budget"]["every_frame_at_budget"] is True
    assert "store_forward" in out["not_measured"]
    assert {r["subject"] for r in out["results"]} == {"fp_node_w"}
    assert all(r["throughput_pct"] == 100.0 for r in out["results"] if r["load"] == "full")
    text = bench.table(out)
    assert "cycles only" in text and "110.5" in text
    assert " ns" not in text.split("cycles only")[0]


def test_run_with_a_routed_clock_reports_ns(monkeypatch, tmp_path):
    out = _fake_run(monkeypatch, tmp_path, {"clk": 131.0, "gmii_rx_clk": 150.0}, off_budget_ps=8000)
    assert out["clock_mhz"] == 125.0 <= min(out["routed_fmax_mhz"].values())
    assert out["worst_latency_ns"] == node_budget.w_latency_ns(bench.PORTS) + 8 and out["jitter_ns"] == 8
    assert out["budget"]["latency_ns"] == node_budget.w_latency_ns(bench.PORTS)
    assert out["budget"]["every_frame_at_budget"] is False
    assert [r["at_budget"] for r in out["results"]].count(False) == 1
    assert "ns at 125 MHz" in bench.table(out)


def test_full_run_adds_fp_node_in_cycles_only(monkeypatch, tmp_path):
    out = _fake_run(monkeypatch, tmp_path, {"clk": 131.0, "gmii_rx_clk": 150.0}, quick=False)
    seg = [r for r in out["results"] if r["subject"] == "fp_node"]
    assert seg and all(r["latency_ns"] is None and r["at_budget"] is None for r in seg)
    assert out["fp_node"]["worst_latency_cycles"] is not None
    assert all(r["latency_ns"] is not None for r in out["results"] if r["subject"] == "fp_node_w")
    assert "fp_node for comparison" in bench.table(out)
