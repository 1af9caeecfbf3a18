"""Benchmarks: `fastpath bench [NAME...]` / `make bench`.

A system's bench is its module `<system>/bench.py` (`fastpath.<system>.bench`), found by discovery:
it has `run(quick: bool) -> dict` and `table(result) -> str`, and its docstring's first line says
what it measures. The result goes to build/bench/<system>.json and the table is printed.
Benchmarks measure in simulation (exact cycle counts) or on this machine (software baselines);
tests never do. A bench that builds simulators first says so before it starts (see `say`).
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import re
import sys
import time

from .paths import BUILD, systems

# `make bench` runs this one; the others run with `fastpath bench NAME` or BENCH=all.
MAIN = "node"


def available() -> dict[str, str]:
    """Bench name -> the first line of its docstring, for every system with a bench.py."""
    out = {}
    for name, folder in systems().items():
        path = folder / "bench.py"
        if path.exists():
            doc = ast.get_docstring(ast.parse(path.read_text())) or ""
            line = (doc.strip().splitlines() or [""])[0]
            out[name] = re.sub(r"^`fastpath bench \w+`[^:]*:\s*", "", line)
    return out


def say(text: str) -> None:
    """A progress line on stderr, shown at once (a bench may be silent for minutes otherwise)."""
    print(f"bench: {text}", file=sys.stderr, flush=True)


def run(names: list[str] | None = None, quick: bool = False) -> int:
    benches = available()
    names = names or list(benches)
    unknown = [n for n in names if n not in benches]
    if unknown:
        print(f"fastpath bench: no bench {', '.join(unknown)}; available: {', '.join(benches)}",
              file=sys.stderr)
        return 2
    out = BUILD / "bench"
    out.mkdir(parents=True, exist_ok=True)
    os.environ["FASTPATH_PROGRESS"] = "1"  # builds and long steps say what they do
    for i, name in enumerate(names, 1):
        say(f"[{i}/{len(names)}] {name}: {benches[name]}{' (--quick)' if quick else ''}")
        mod = importlib.import_module(f"fastpath.{name}.bench")
        t0 = time.monotonic()
        result = mod.run(quick=quick)
        result["wall_seconds"] = round(time.monotonic() - t0, 1)
        path = out / f"{name}.json"
        path.write_text(json.dumps(result, indent=2))
        print(f"== bench {name} ({result['wall_seconds']} s) -> {path}")
        print(mod.table(result), flush=True)
    return 0
