"""fastpath.placed_timing: nextpnr's arc prediction and the path walk over a placed design."""
from fastpath import placed_timing as pt


def cell(kind, bel, conns, dirs, src="x.v:1"):
    return {"type": kind, "attributes": {"NEXTPNR_BEL": bel, "src": src}, "parameters": {},
            "connections": conns, "port_directions": dirs}


FF_DIRS = {"Q": "output", "DI": "input", "CLK": "input", "LSR": "input", "CE": "input"}
LUT_DIRS = {"A": "input", "B": "input", "C": "input", "D": "input", "F": "output", "OFX": "output"}


def design():
    # bit 1: clock (global), 2: ff_a.Q, 3: ff_b.Q, 4: lut.F, 5: ff_c.Q (unused)
    cells = {
        "gbuf": cell("DCCA", "X0/Y0/TDCC0", {"CLKI": [9], "CLKO": [1]}, {"CLKI": "input", "CLKO": "output"}),
        "ff_a": cell("TRELLIS_FF", "X10/Y10/SLICEA.FF0", {"Q": [2], "DI": [5], "CLK": [1]}, FF_DIRS, "a.v:3"),
        "ff_b": cell("TRELLIS_FF", "X60/Y10/SLICEA.FF0", {"Q": [3], "DI": [5], "CLK": [1]}, FF_DIRS, "b.v:4"),
        "lut": cell("TRELLIS_COMB", "X11/Y10/SLICEA.K0", {"A": [2], "B": [3], "F": [4]}, LUT_DIRS),
        "ff_c": cell("TRELLIS_FF", "X12/Y10/SLICEA.FF0", {"Q": [5], "DI": [4], "CLK": [1]}, FF_DIRS, "c.v:5"),
    }
    return {"modules": {"top": {"cells": cells, "netnames": {"far": {"bits": [3], "hide_name": 0}}}}}


def test_predict_matches_nextpnr_formula():
    assert pt.predict_ps((0, 0), (0, 0)) == 120 * 6
    assert pt.predict_ps((0, 0), (3, 0)) == 120 * (6 + 6)
    assert pt.predict_ps((0, 0), (50, 7)) == 120 * (6 + 45 + 2 + 2 * (5 + 5))


def test_worst_path_is_the_far_register():
    r = pt.analyse(design(), count=3)
    worst = r["paths"][0]
    assert [s["cell"] for s in worst] == ["ff_b", "lut", "ff_c"]
    far = pt.predict_ps((60, 10), (11, 10))
    near = pt.predict_ps((11, 10), (12, 10))
    assert worst[-1]["at_ps"] == pt.CLK_Q_PS["TRELLIS_FF"] + far + pt.LUT_PS + near + pt.SETUP_PS
    assert r["long_nets"][0]["net"] == "far" and r["long_nets"][0]["ps"] == far
    assert "ff_b" in pt.report(r)
    sm = r["summary"]
    assert sm["endpoints"] == 3 and sm["slow_by_instance"] == {"(wrapper)": 2}  # ff_c, ff_b
    assert pt.instance("u_core.g_rx[3].g_host.u_rxf.discard_q_TRELLIS_FF_Q") == "u_core.g_rx[3].g_host.u_rxf"
