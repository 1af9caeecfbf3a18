"""The GRE verdict codes are described once (gre/rtl/gre_verdict.fmt.toml) and the RTL, the Python
model and the C parser all take them from there:

* the description: three groups (decap_*, encap_*, parse_*), each numbered 0..n-1, every code
  fitting the RTL's stat_reason port;
* Python: fastpath.gre.model's DECAP_REASONS / ENCAP_REASONS / PARSE_VERDICTS are those names in
  code order, and the reasons the model returns are among them;
* RTL: fp_gre_decap and fp_gre_encap include fp_gre_verdict.vh and define every reason code from
  its macros (no literal codes), one per verdict of their group, and the generated macros carry
  the description's values at the stat_reason width;
* C: gre_parse.h's enum gre_verdict equals the parse_* codes name for name (compiled and run:
  value, gre_verdict_name(), GRE_VERDICT_COUNT), and the generated header's GRE_VERDICT_DECAP_* /
  ENCAP_* equal the RTL's codes.
(The cocotb tests compare the RTL's stat_reason with the model's reasons through these tables, so
the codes the hardware emits are checked against the same description.)
"""
from __future__ import annotations

import re
import subprocess

import pytest

from fastpath import formats
from fastpath.gre import model as gre
from fastpath.paths import ROOT

FMT = formats.load("gre_verdict")
GROUPS = {"decap": gre.DECAP_REASONS, "encap": gre.ENCAP_REASONS, "parse": gre.PARSE_VERDICTS}
RTL = {"decap": (ROOT / "gre" / "rtl" / "fp_gre_decap.v", 4),   # module, stat_reason width
       "encap": (ROOT / "gre" / "rtl" / "fp_gre_encap.v", 2)}


def codes(group: str) -> dict[str, int]:
    return {c.name[len(group) + 1:]: c.value for c in FMT.consts if c.name.startswith(group + "_")}


def test_description_groups():
    assert FMT.kind == "consts" and FMT.prefix == "GRE_VERDICT"
    assert all(c.name.split("_")[0] in GROUPS for c in FMT.consts), "every code belongs to a group"
    assert all(c.description for c in FMT.consts), "every code is described"
    for group, names in GROUPS.items():
        c = codes(group)
        assert sorted(c.values()) == list(range(len(c))), group
        assert names == tuple(sorted(c, key=c.get)), group
    for group, (_, width) in RTL.items():
        assert all(c.width == width for c in FMT.consts if c.name.startswith(group + "_")), group
        assert len(GROUPS[group]) <= 1 << width


def test_model_reasons_are_described():
    """The reasons the model returns are names of its tables (the cocotb tests index them)."""
    cfg = gre.DecapConfig(accept_all=True)
    assert gre.decap(b"\x00" * 10, cfg)[1] in gre.DECAP_REASONS
    assert {"decap", "not_gre", "too_short", "pass_length", "drop_length", "unknown_drop"} <= set(gre.DECAP_REASONS)
    assert set(gre.ENCAP_REASONS) == {"encap", "pass", "drop", "bad_length"}


@pytest.mark.parametrize("group", sorted(RTL))
def test_rtl_takes_its_codes_from_the_description(group):
    path, width = RTL[group]
    text = re.sub(r"//.*", "", path.read_text())
    assert '`include "fp_gre_verdict.vh"' in text
    assert re.search(rf"output\s+reg\s+\[{width - 1}:0\]\s+stat_reason\b", text), "stat_reason width"
    # every localparam assigned from a verdict macro, and every verdict of the group so used
    used = re.findall(rf"(\w+)\s*=\s*`FP_GRE_VERDICT_{group.upper()}_(\w+)", text)
    assert sorted(m.lower() for _, m in used) == sorted(GROUPS[group])
    # the names stat_reason is assigned from are exactly those localparams (no literal codes)
    local = {n for n, _ in used}
    for rhs in re.findall(r"stat_reason\s*<=\s*([^;]+);", text):
        assert not re.search(r"\d+'[dhb]", rhs), f"literal code in stat_reason <= {rhs}"
    assert not re.search(r"localparam\s*\[\d+:0\]\s*(R|S)_\w+\s*=\s*\d", text), "literal reason code"
    assert local, "no reason localparams"
    vh = (ROOT / "gre" / "rtl" / "fp_gre_verdict.vh").read_text()
    for name, value in codes(group).items():
        assert f"`define FP_GRE_VERDICT_{group.upper()}_{name.upper()} {width}'d{value}\n" in vh


def test_c_parser_uses_the_description(tmp_path):
    """The C enum's values and names are the parse_* codes; the C header's RTL codes are the
    description's (compiled with the host build's flags and run)."""
    names = gre.PARSE_VERDICTS
    lines = ['#include <stdio.h>', '#include "gre_parse.h"', "int main(void)", "{"]
    for i, n in enumerate(names):
        N = n.upper()
        lines.append(f'    _Static_assert(GRE_{N} == GRE_VERDICT_PARSE_{N}, "{n}");')
        lines.append(f'    printf("%d %s\\n", (int)GRE_{N}, gre_verdict_name(GRE_{N}));')
    lines.append('    printf("count %d %s\\n", (int)GRE_VERDICT_COUNT, gre_verdict_name(GRE_VERDICT_COUNT));')
    for group in RTL:
        for n in GROUPS[group]:
            lines.append(f'    printf("{group} {n} %d\\n", (int)GRE_VERDICT_{group.upper()}_{n.upper()});')
    lines += ["    return 0;", "}"]
    src = tmp_path / "verdicts.c"
    src.write_text("\n".join(lines) + "\n")
    incs = [f"-I{d}" for d in sorted(ROOT.glob("*/host/include"))] + [f"-I{ROOT / 'gre' / 'host'}"]
    exe = tmp_path / "verdicts"
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", *incs, "-o", str(exe), str(src),
                        str(ROOT / "gre" / "host" / "gre_parse.c")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[:len(names)] == [f"{i} {n}" for i, n in enumerate(names)]
    assert out[len(names)] == f"count {len(names)} ?"
    rest = [line.split() for line in out[len(names) + 1:]]
    assert {(g, n): int(v) for g, n, v in rest} == {(g, n): i for g in RTL for i, n in enumerate(GROUPS[g])}
