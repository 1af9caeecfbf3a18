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
    vh = (fmt.source.with_name(name + ".vh")).read_text()
    h = (formats.HOST_INCLUDE / f"{name}.h").read_text()
    vdefs = dict(re.findall(r"^`define (\w+) (\S+)$", vh, re.M))
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
    else:
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


BASE = '[format]\nname = "t"\nprefix = "T"\nkind = "bits"\n'


@pytest.mark.parametrize("text,match", [
    ('[format]\nname = "t"\nprefix = "t"\nkind = "bits"\n', "UPPER_CASE"),
    ('[format]\nname = "t"\nprefix = "T"\nkind = "words"\n', "kind must be"),
    (BASE, "at least one"),
    (BASE + '[[field]]\nname = "a"\nwidth = 1\n[[field]]\nname = "a"\nwidth = 2\n', "duplicate name a"),
    (BASE + '[[field]]\nname = "a"\nwidth = 0\n', "positive integer"),
    (BASE + '[[field]]\nname = "A"\nwidth = 1\n', "lower_case"),
    (BASE + '[[field]]\nname = "a"\nwidth = 1\n[[const]]\nname = "c"\nvalue = 4\nwidth = 2\n', "does not fit"),
    ('[format]\nname = "t"\nprefix = "T"\nkind = "bytes"\n[[layout]]\nname = "x"\ninclude = "y"\n', "not a layout"),
])
def test_bad_descriptions(text, match):
    import tomllib
    with pytest.raises(formats.FormatError, match=match):
        formats.parse(tomllib.loads(text), "t.fmt.toml")


def test_c_header_compiles(tmp_path):
    src = tmp_path / "t.c"
    src.write_text('#include "fastpath/fmt/noc_header.h"\n#include "fastpath/fmt/fade.h"\n'
                   "_Static_assert(FADE_DATA_DATA_OFF == 40, \"data offset\");\n"
                   "_Static_assert(NOC_BAD_LSB == 0, \"bad at bit 0\");\nint main(void) { return 0; }\n")
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "host" / "include"),
                        "-o", str(tmp_path / "t"), str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
