"""fastpath.formats: descriptions load, the generated files are current, and the three views
(Python pack/unpack, Verilog macros, C #defines) agree."""
import re
import subprocess

import pytest

from fastpath import formats
from fastpath.paths import ROOT

NAMES = [p.name[: -len(formats.SUFFIX)] for p in formats.descriptions()]


def test_generated_files_are_current():
    assert formats.stale() == [], "run `fastpath formats`"


@pytest.mark.parametrize("name", NAMES)
def test_views_agree(name):
    fmt = formats.load(name)
    vh_path, h_path = [p for p in formats.targets(fmt) if p.suffix in (".vh", ".h")]
    assert vh_path.name == f"fp_{name}.vh" and vh_path.parent.name == "rtl"
    vh, h = vh_path.read_text(), h_path.read_text()
    # Verilog names are the C names with FP_ before them (Verilog macros share one namespace).
    vdefs = {k[len("FP_"):]: v for k, v in re.findall(r"^`define (FP_\w+) (\S+)$", vh, re.M)}
    cdefs = dict(re.findall(r"^#define (\w+) (\S+?)(?:\s|$)", h, re.M))
    P = fmt.prefix
    if fmt.kind == "bits":
        assert int(vdefs[f"{P}_W"]) == fmt.width
        lsb = 0
        for f in fmt.fields:
            N = f"{P}_{f.name.upper()}"
            assert vdefs[N] == f"{lsb + f.width - 1}:{lsb}"
            assert int(cdefs[f"{N}_LSB"]) == lsb == f.lsb
            assert int(cdefs[f"{N}_W"]) == f.width
            lsb += f.width
    elif fmt.kind == "bytes":
        for L in fmt.layouts.values():
            assert int(cdefs[f"{P}_{L.name.upper()}_LEN"]) == L.length
            for f in L.fields:
                N = f"{P}_{L.name.upper()}_{f.name.upper()}"
                assert int(vdefs[f"{N}_OFF"]) == int(cdefs[f"{N}_OFF"]) == f.offset
    for c in fmt.consts:
        N = f"{P}_{c.name.upper()}"
        assert vdefs[N] == f"{c.width}'d{c.value}"
        assert int(cdefs[N], 0) == c.value


def test_noc_header_pack_roundtrip():
    noc = formats.load("noc_header")
    v = dict(bad=1, first=1, bytes=64, src_port=11, ts=0xABCDEF, dst=0x0FFE, reason=noc.const["reason_vlan"])
    word = noc.pack(**v)
    got = noc.unpack(word)
    assert {k: got[k] for k in v} == v
    assert word & 1 == 1, "field 0 is bad: tuser[0] keeps its project-wide meaning"
    assert word < (1 << noc.width)
    with pytest.raises(ValueError, match="does not fit"):
        noc.pack(bytes=128)
    with pytest.raises(KeyError):
        noc.pack(nope=1)


def test_fade_layouts_match_the_paper():
    fade = formats.load("fade")
    c = fade.const
    assert (c["ethertype"], c["version"], c["type_data"], c["type_last"], c["type_ack"], c["type_nack"]) == \
        (0xFADE, 0x0100, 0xA5A5, 0xA5A6, 0x0003, 0x0004)
    assert fade.layout("header").length == 16
    assert fade.layout("ack").length == 16 + 12               # Table 2a
    assert fade.layout("cmd").length == 16 + 8                # Table 2b
    assert fade.layout("data").length == 16 + 24 + 8192       # Table 2c: 12 + 12-byte response + data
    assert fade.layout("last").length == fade.layout("data").length
    assert fade.layout("resp").length == 16 + 14              # Table 2e: filler + 12-byte response
    ack = fade.layout("ack")
    raw = ack.pack(dst=b"\xff" * 6, ethertype=0xFADE, version=0x100, type=3, seq=0xBEEF, pkt=7, delay=9)
    assert raw[12:14] == b"\xfa\xde" and raw[16:18] == b"\x00\x03" and raw[18:20] == b"\xbe\xef"
    assert ack.unpack(raw)["pkt"] == 7


def test_consts_only_description():
    """kind = "consts": constants and nothing else; Verilog and C get only the constants."""
    import tomllib
    fmt = formats.parse(tomllib.loads(CONSTS + '[[const]]\nname = "ok"\nvalue = 0\nwidth = 3\n'
                                      '[[const]]\nname = "bad"\nvalue = 5\n'), "t.fmt.toml")
    assert fmt.kind == "consts" and fmt.const == {"ok": 0, "bad": 5}
    assert not fmt.fields and not fmt.layouts
    vh, h = formats.render_verilog(fmt), formats.render_c(fmt)
    assert re.findall(r"^`define (FP_\w+) (\S+)$", vh, re.M) == [("FP_T_OK", "3'd0"), ("FP_T_BAD", "3'd5")]
    assert re.findall(r"^#define (T_\w+) (\S+)", h, re.M) == [("T_OK", "0x0"), ("T_BAD", "0x5")]
    assert "| `T_BAD` | 0x5 |" in formats.render_doc(fmt)


BASE = '[format]\nname = "t"\nprefix = "T"\nkind = "bits"\n'
CONSTS = '[format]\nname = "t"\nprefix = "T"\nkind = "consts"\n'


@pytest.mark.parametrize("text,match", [
    ('[format]\nname = "t"\nprefix = "t"\nkind = "bits"\n', "UPPER_CASE"),
    ('[format]\nname = "t"\nprefix = "T"\nkind = "words"\n', "kind must be"),
    (BASE, "at least one"),
    (BASE + '[[field]]\nname = "a"\nwidth = 1\n[[field]]\nname = "a"\nwidth = 2\n', "duplicate name a"),
    (BASE + '[[field]]\nname = "a"\nwidth = 0\n', "positive integer"),
    (BASE + '[[field]]\nname = "A"\nwidth = 1\n', "lower_case"),
    (BASE + '[[field]]\nname = "a"\nwidth = 1\n[[const]]\nname = "c"\nvalue = 4\nwidth = 2\n', "does not fit"),
    ('[format]\nname = "t"\nprefix = "T"\nkind = "bytes"\n[[layout]]\nname = "x"\ninclude = "y"\n', "not a layout"),
    (CONSTS, "at least one \\[\\[const\\]\\]"),
    (CONSTS + '[[field]]\nname = "a"\nwidth = 1\n[[const]]\nname = "c"\nvalue = 1\n', "has no \\[\\[field\\]\\]"),
    (CONSTS + '[[layout]]\nname = "x"\n[[const]]\nname = "c"\nvalue = 1\n', "has no \\[\\[layout\\]\\]"),
])
def test_bad_descriptions(text, match):
    import tomllib
    with pytest.raises(formats.FormatError, match=match):
        formats.parse(tomllib.loads(text), "t.fmt.toml")


def test_c_header_compiles(tmp_path):
    src = tmp_path / "t.c"
    src.write_text('#include "fastpath/fmt/noc_header.h"\n#include "fastpath/fmt/fade.h"\n'
                   '#include "fastpath/fmt/gre_verdict.h"\n'
                   "_Static_assert(FADE_DATA_DATA_OFF == 40, \"data offset\");\n"
                   "_Static_assert(GRE_VERDICT_DECAP_DECAP == 0, \"consts only\");\n"
                   "_Static_assert(NOC_BAD_LSB == 0, \"bad at bit 0\");\nint main(void) { return 0; }\n")
    incs = [f"-I{d}" for d in sorted(ROOT.glob("*/host/include"))]
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *incs,
                        "-o", str(tmp_path / "t"), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
