"""`fastpath bench node` gives nanoseconds only at a clock the routed node_4p meets (no simulation)."""
import json

from fastpath.node import bench


def _report(tmp_path, fmax=None, placed=False):
    core = {}
    if fmax is not None:
        core["ecp5_placed" if placed else "ecp5"] = {"fmax": {c: {"achieved_mhz": v, "target_mhz": 125.0, "seed": 2}
                                                              for c, v in fmax.items()}}
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"cores": {"node_4p": core} if fmax is not None else {},
                                "ecp5_target": {"device": "LFE5U-85F", "speed": 6}}))
    return path


def test_no_routed_figure_means_cycles_only(tmp_path):
    r = bench.routed_clocks(_report(tmp_path))
    assert r["clock_mhz"] is None and r["fmax"] is None and "fastpath syn node_4p" in r["reason"]
    assert bench.routed_clocks(tmp_path / "missing.json")["clock_mhz"] is None


def test_placement_is_not_a_routed_figure(tmp_path):
    r = bench.routed_clocks(_report(tmp_path, {"clk": 150.0, "port_clk": 150.0}, placed=True))
    assert r["clock_mhz"] is None


def test_port_clock_below_gmii_gives_no_ns(tmp_path):
    r = bench.routed_clocks(_report(tmp_path, {"clk": 42.0, "port_clk": 69.0, "gmii_rx_clk": 130.0}))
    assert r["clock_mhz"] is None and "port_clk 69 MHz" in r["reason"] and r["fmax"]["clk"] == 42.0


def test_routed_clock_caps_the_datapath_clock(tmp_path):
    r = bench.routed_clocks(_report(tmp_path, {"clk": 131.27, "port_clk": 140.0, "gmii_rx_clk": 160.0}))
    assert r["clock_mhz"] == 131.2 and r["seed"] == [2] and r["part"] == "LFE5U-85F-6"
    r = bench.routed_clocks(_report(tmp_path, {"clk": 260.0, "port_clk": 140.0, "gmii_rx_clk": 160.0}))
    assert r["clock_mhz"] == bench.DATAPATH_TARGET_MHZ


def test_table_in_cycles_when_not_routed():
    rows = [{"mode": "ct", "seg_bytes": 64, "clock_mhz": 200.0, "size": 64, "load": "full",
             "latency_ns": None, "latency_cycles": {"min": 124.0, "avg": 124.0, "max": 124.0},
             "throughput_pct": 100.0, "lost": 0}]
    out = {"results": rows, "clock_mhz": None, "routed_fmax_mhz": None, "config": {"datapath_clock_mhz": [200.0]},
           "routed": {"entry": "node_4p", "part": "LFE5U-85F-6", "seed": None, "reason": "no routed figure"},
           "worst_latency_cycles": 124.0, "jitter_cycles": 0.0, "worst_latency_ns": None, "jitter_ns": None,
           "capacity_mpps": 133.3, "capacity_clock_mhz": 200.0, "offered_mpps_64B_full": 17.86}
    text = bench.table(out)
    assert "cycles only" in text and "124" in text and " ns" not in text.split("cycles only")[0]
