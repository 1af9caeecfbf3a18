"""The tree keeps the project's conventions: one folder per system, prefixed module names, RTL
file rules, a cocotb test per module, discovered (never registered) benches, CLI verbs, synthesis
entries and host builds, and generated files in sync."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fastpath import bench, cli, fusesoc, rtl, syn
from fastpath.paths import ROOT, systems

MODULES = sorted(rtl.modules())
SYSTEMS = systems()
# What may stand at the top of the tree besides the system folders: generic tooling and docs.
GENERIC = {"fastpath", "tests", "docs", "scripts", "build", ".ci", ".venv", ".git", "README.md",
           "CHANGELOG.md", "Makefile", "pyproject.toml", "requirements.txt", "conftest.py",
           ".gitignore", "fastpath.egg-info", ".pytest_cache"}
SYSTEM_PARTS = {"rtl", "tb", "tests", "host", "docs", "README.md", "__init__.py", "syn.toml"}


def test_tree_is_not_empty():
    assert "fp_axis_register" in MODULES
    assert {"lib", "mac", "node", "gre", "fade"} <= set(SYSTEMS)


def test_the_top_of_the_tree_lists_the_systems():
    """Every folder at the top is a system (with __init__.py) or generic tooling; no rtl/, tb/,
    host/ or syn/ outside a system."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    top = {Path(f).parts[0] for f in tracked} or {p.name for p in ROOT.iterdir()}
    strays = sorted(top - set(SYSTEMS) - GENERIC)
    assert not strays, f"not a system folder (no __init__.py) nor generic tooling: {strays}"


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_system_folder_shape(system):
    """A system folder holds its datasheet, its package marker with a one-line summary, and
    otherwise only the known parts and its Python modules."""
    folder = SYSTEMS[system]
    assert (folder / "README.md").exists(), f"{system}/README.md: the datasheet is missing"
    doc = (folder / "__init__.py").read_text()
    assert doc.startswith('"""'), f"{system}/__init__.py: starts with the system's one-line summary"
    for p in folder.iterdir():
        if p.name.startswith(".") or p.name == "__pycache__":
            continue
        assert p.name in SYSTEM_PARTS or p.suffix == ".py", f"{system}/{p.name}: not a known part of a system folder"


@pytest.mark.parametrize("module", MODULES)
def test_module_file_conventions(module):
    text = rtl.modules()[module].read_text()
    assert module.startswith(rtl.PREFIX), f"{module}: module names start with {rtl.PREFIX}"
    assert rtl.modules()[module].parent.name == "rtl"
    assert "`default_nettype none" in text
    header = text.split("`default_nettype none")[0]
    for word in ("Latency", "Throughput", "Bad input"):
        assert re.search(rf"^//.*{word}", header, re.M), f"{module}: header lacks '{word}'"
    assert not re.search(r"^\s*(logic|always_ff|always_comb|interface)\b", text, re.M), "SystemVerilog"
    for name in re.findall(r"^\s*parameter\s+(\w+)", text, re.M):
        assert name == name.upper(), f"{module}: parameter {name} is not UPPER_CASE"


def test_include_files_and_macros_are_prefixed():
    """Include files are fp_*.vh and every macro they define starts with FP_ (Verilog's macro
    namespace is global over a whole design); includes name only such files."""
    for vh in rtl.sources("*.vh"):
        assert vh.name.startswith(rtl.PREFIX), f"{vh}: include files start with {rtl.PREFIX}"
        for name in re.findall(r"^\s*`define\s+(\w+)", vh.read_text(), re.M):
            assert name.startswith(("FP_", "FASTPATH_")), f"{vh.name}: macro {name} lacks the FP_ prefix"
    for path in rtl.modules().values():
        for inc in re.findall(r'`include\s+"([^"]+)"', path.read_text()):
            assert inc.startswith(rtl.PREFIX), f"{path.name}: includes {inc}"


def test_a_module_without_the_prefix_is_refused(tmp_path):
    """The convention checks above fail on a module named without fp_ (shown, not assumed)."""
    bad = tmp_path / "axis_fifo.v"
    bad.write_text("`default_nettype none\nmodule axis_fifo; endmodule\n")
    names = rtl._MODULE.findall(rtl._COMMENT.sub("", bad.read_text()))
    assert names == ["axis_fifo"] and not names[0].startswith(rtl.PREFIX)


def _cocotb_tests() -> list[Path]:
    return [p for s in SYSTEMS.values() for p in (s / "tb").rglob("test_*.py")]


@pytest.mark.parametrize("module", MODULES)
def test_every_module_has_a_cocotb_test(module):
    """Some test file runs the module as a simulation top: runner.run("<module>", ...).

    Generated register blocks are all run by lib/tb/test_regs_generated.py, which finds them itself.
    """
    from fastpath import regs
    if module in regs.generated_modules():
        return
    pattern = re.compile(rf"""runner\.run\(\s*["']{module}["']""")
    assert any(pattern.search(p.read_text()) for p in _cocotb_tests()), f"no cocotb test runs {module}"


def test_test_file_names_are_unique():
    """pytest imports test files by their base name (no packages under tb/ and tests/)."""
    seen = {}
    for p in sorted(ROOT.glob("*/tb/**/test_*.py")) + sorted(ROOT.glob("*/tests/test_*.py")) + \
            sorted(ROOT.glob("tests/test_*.py")):
        assert p.name not in seen, f"{p} and {seen[p.name]} share a name"
        seen[p.name] = p


def test_closure_orders_children_first():
    for module in MODULES:
        files = rtl.closure(module)
        assert files[-1].stem == module
        for i, f in enumerate(files):
            assert set(rtl.children(f.stem)) <= {p.stem for p in files[:i]}


def test_benches_cli_syn_and_host_builds_are_discovered():
    """Nothing is registered by hand: a system's bench.py, cli.py, syn.toml and host/host.mk are
    found because they exist."""
    assert set(bench.available()) == {n for n, f in SYSTEMS.items() if (f / "bench.py").exists()}
    assert set(cli.system_clis()) == {n for n, f in SYSTEMS.items() if (f / "cli.py").exists()}
    assert {p.parent.name for p in syn.entry_files()} == {n for n, f in SYSTEMS.items() if (f / "syn.toml").exists()}
    verbs = set(cli.parser()._subparsers._group_actions[0].choices)
    assert set(cli.system_clis()) <= verbs
    mk = (ROOT / "scripts" / "host.mk").read_text()
    assert "wildcard $(ROOT)/*/host/host.mk" in mk
    for n, f in SYSTEMS.items():
        if any((f / "host").glob("*.c")):
            assert (f / "host" / "host.mk").exists(), f"{n}/host has C sources but no host.mk"
    for name in ("node", "gre", "fade", "lib", "mac"):
        assert name in bench.available()


def test_a_new_system_folder_is_found(tmp_path, monkeypatch):
    """Adding a core is adding a folder: a system with bench.py, cli.py and syn.toml is picked up
    by every registry without touching anything else."""
    import fastpath
    from fastpath import paths
    root = tmp_path
    (root / "fastpath").mkdir()
    demo = root / "demo"
    (demo / "rtl").mkdir(parents=True)
    (demo / "__init__.py").write_text('"""A demo system."""\n')
    (demo / "bench.py").write_text('"""`fastpath bench demo`: nothing, quickly."""\n'
                                   "def run(quick=False):\n    return {}\n\ndef table(r):\n    return ''\n")
    (demo / "cli.py").write_text("def register(sub):\n    sub.add_parser('demo').set_defaults(fn=lambda a: 0)\n")
    (demo / "syn.toml").write_text('[demo_x]\ntop = "fp_demo"\nclocks = { clk = 100.0 }\n')
    monkeypatch.setattr(paths, "ROOT", root)
    for mod in (bench, cli, syn):
        monkeypatch.setattr(mod, "systems", paths.systems)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(fastpath, "__path__", [*fastpath.__path__, str(root)])
    assert bench.available() == {"demo": "nothing, quickly."}
    assert cli.system_clis() == {"demo": "fastpath.demo.cli"}
    assert cli.main(["demo"]) == 0
    assert list(syn.entries()) == ["demo_x"] and syn.entries()["demo_x"].area == "demo"
    sys.modules.pop("fastpath.demo", None)
    sys.modules.pop("fastpath.demo.cli", None)


@pytest.mark.parametrize("area", fusesoc.areas())
def test_fusesoc_core_files_are_current(area):
    assert fusesoc.path(area).exists(), "run `fastpath fusesoc`"
    assert fusesoc.path(area).read_text() == fusesoc.render(area), "run `fastpath fusesoc`"


def test_fusesoc_parses_core_files(tmp_path):
    """Every core file parses, with the VLNV fastpath:fastpath:<system>, and its dependencies
    resolve among the systems' core files."""
    pytest.importorskip("fusesoc.main")
    roots = []
    for area in fusesoc.areas():
        roots += ["--cores-root", str(fusesoc.path(area).parent)]
    for area in fusesoc.areas():
        proc = subprocess.run([sys.executable, "-m", "fusesoc.main", *roots, "core-info", f"fastpath:fastpath:{area}"],
                              capture_output=True, text=True, cwd=tmp_path)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert "verilogSource" in proc.stdout or "rtl" in proc.stdout
