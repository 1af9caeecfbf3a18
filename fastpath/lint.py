"""`make lint`: `verilator --lint-only -Wall` on every module of every system, with its children.

Zero warnings is the rule. A waiver is a `/* verilator lint_off RULE */` in the RTL next to a
comment saying why; there is no global waiver list.
"""
from __future__ import annotations

import subprocess
from concurrent.futures import ThreadPoolExecutor

from . import rtl
from .paths import ROOT, tool_env, which


def lint_module(module: str) -> tuple[str, int, str]:
    files = [str(p.relative_to(ROOT)) for p in rtl.closure(module)]
    incs = [f"-I{d.relative_to(ROOT)}" for d in rtl.include_dirs()]
    cmd = ["verilator", "--lint-only", "-Wall", "--quiet", "--top-module", module, *incs, *files]
    proc = subprocess.run(cmd, cwd=ROOT, env=tool_env(), capture_output=True, text=True)
    return module, proc.returncode, (proc.stdout + proc.stderr).strip()


def run(modules: list[str] | None = None, jobs: int = 2, listing: bool = False) -> int:
    if listing:
        for m in sorted(rtl.modules()):
            print(f"{rtl.area(m):6} {m}")
        return 0
    unknown = [m for m in modules or () if m not in rtl.modules()]
    if unknown:
        print(f"lint: no module {', '.join(unknown)} (`fastpath lint --list` names them)")
        return 2
    if which("verilator") is None:
        print("lint: verilator not found (run scripts/bootstrap.sh)")
        return 2
    names = modules or sorted(rtl.modules())
    print(f"lint: verilator --lint-only -Wall on {len(names)} modules ...", flush=True)
    failed = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for module, rc, text in pool.map(lint_module, names):
            if rc or text:
                failed += 1
                print(f"--- {module}\n{text}")
    print(f"lint: {len(names) - failed}/{len(names)} modules clean" if failed else
          f"lint: {len(names)} modules clean")
    return 1 if failed else 0
