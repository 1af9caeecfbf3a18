"""`fastpath bench gre`: the JSON rows and the table, from a simulated result (no simulator).

The keys the issue names ({"rtl": [{"width", "clock_mhz", "latency_cycles", "latency_ns",
"mpps_92B", "bubbles"}, ...], "software": {"median_us", "p999_us", "max_mpps"}}) must stay, and
the figures at the ECP5 Fmax must be the stated-clock figures scaled by the clock ratio.
"""
from __future__ import annotations

from fastpath.gre import bench as gre


def _sim(width: int, clock: float, cycles: int, beats: int) -> dict:
    """A result as gre/bench_cocotb.py writes it (one 92-byte run)."""
    frames = 1000
    return {"top": "fp_gre_decap", "data_width": width, "clock_mhz": clock,
            "latency_cycles": {"ipv4_gre_6558": cycles},
            "headline_latency_cycles": cycles, "headline_latency_ns": round(cycles * 1000 / clock, 2),
            "runs": {"92B_ipv4_gre_6558": {"frames": frames, "bubbles": 0, "input_cycles": frames * beats,
                                           "mpps": round(clock / beats, 3)}},
            "params": {}}


def test_row_keys_and_figures_at_the_ecp5_fmax():
    r = _sim(256, 322.0, 3, 3)
    r["fmax_mhz_ecp5"] = 42.2
    row = gre._row(r)
    for key in ("width", "clock_mhz", "latency_cycles", "latency_ns", "mpps_92B", "bubbles"):
        assert key in row
    assert (row["width"], row["latency_cycles"], row["bubbles"]) == (256, 3, 0)
    assert row["latency_ns_ecp5"] == round(3 * 1000 / 42.2, 1)            # 71.1 ns
    assert abs(row["mpps_92B_ecp5"] - 42.2 / 3) < 0.01                    # 14.07 Mpps


def test_row_without_a_synthesis_run_has_no_fmax_figures():
    r = _sim(64, 156.25, 6, 12)
    r["fmax_mhz_ecp5"] = None
    row = gre._row(r)
    assert row["fmax_mhz_ecp5"] is None
    assert "latency_ns_ecp5" not in row and "mpps_92B_ecp5" not in row


def test_table_lists_default_pipelined_and_encap_rows():
    rows = []
    for cycles, fmax in ((6, 50.7), (11, None)):
        r = _sim(64, 156.25, cycles, 12)
        r["fmax_mhz_ecp5"] = fmax
        rows.append(gre._row(r))
    result = {"rtl": [rows[0]], "rtl_pipelined": [rows[1]], "encap": [rows[0]],
              "software": {"skipped": "not root"}}
    text = gre.table(result)
    lines = text.splitlines()
    assert any(line.startswith("fp_gre_decap") and "6 cyc" in line and "118.3 ns" in line for line in lines)
    assert any(line.startswith("  pipelined") and "11 cyc" in line for line in lines)
    assert "software forwarder: skipped (not root)" in text


def test_fmax_of_an_entry_never_run_is_none(tmp_path, monkeypatch):
    from fastpath import syn
    monkeypatch.setattr(syn, "OUT", tmp_path / "syn")
    assert gre._fmax("gre_decap_64") is None
