"""The RTL tree keeps the project's conventions; generated files stay in sync with it."""
import re

import pytest

from fastpath import fusesoc, rtl
from fastpath.paths import ROOT, TB

MODULES = sorted(rtl.modules())


def test_tree_is_not_empty():
    assert "axis_register" in MODULES


@pytest.mark.parametrize("module", MODULES)
def test_module_file_conventions(module):
    text = rtl.modules()[module].read_text()
    assert "`default_nettype none" in text
    header = text.split("`default_nettype none")[0]
    for word in ("Latency", "Throughput", "Bad input"):
        assert re.search(rf"^//.*{word}", header, re.M), f"{module}: header lacks '{word}'"
    assert not re.search(r"^\s*(logic|always_ff|always_comb|interface)\b", text, re.M), "SystemVerilog"
    for name in re.findall(r"^\s*parameter\s+(\w+)", text, re.M):
        assert name == name.upper(), f"{module}: parameter {name} is not UPPER_CASE"


@pytest.mark.parametrize("module", MODULES)
def test_every_module_has_a_cocotb_test(module):
    """Some test file runs the module as a simulation top: runner.run("<module>", ...).

    Generated register blocks are all run by tb/lib/test_regs_generated.py, which finds them itself.
    """
    from fastpath import regs
    if module in regs.generated_modules():
        return
    pattern = re.compile(rf"""runner\.run\(\s*["']{module}["']""")
    assert any(pattern.search(p.read_text()) for p in TB.rglob("test_*.py")), f"no cocotb test runs {module}"


def test_closure_orders_children_first():
    for module in MODULES:
        files = rtl.closure(module)
        assert files[-1].stem == module
        for i, f in enumerate(files):
            assert set(rtl.children(f.stem)) <= {p.stem for p in files[:i]}


@pytest.mark.parametrize("area", fusesoc.areas())
def test_fusesoc_core_files_are_current(area):
    assert fusesoc.path(area).exists(), "run `fastpath fusesoc`"
    assert fusesoc.path(area).read_text() == fusesoc.render(area), "run `fastpath fusesoc`"


def test_fusesoc_parses_core_files(tmp_path):
    fusesoc_cli = pytest.importorskip("fusesoc.main")
    del fusesoc_cli
    import subprocess
    import sys
    for area in fusesoc.areas():
        proc = subprocess.run(
            [sys.executable, "-m", "fusesoc.main", "--cores-root", str(ROOT / "rtl"), "core-info",
             f"fastpath:fastpath:{area}"], capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "verilogSource" in proc.stdout or "rtl" in proc.stdout
