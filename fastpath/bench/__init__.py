"""Benchmarks: `fastpath bench [NAME...]` / `make bench`.

Each bench is a module here with `run(quick: bool) -> dict` and `table(result) -> str`. The
result is written to build/bench/<name>.json and the table printed. Benchmarks measure in
simulation (exact cycle counts) or on this machine (software baselines); tests never do.
"""
from __future__ import annotations

import importlib
import json
import time

from ..paths import BUILD

BENCHES = {
    "node": "fastpath.bench.node",
    "lib": "fastpath.bench.lib",
    "mac": "fastpath.bench.mac",
    "gre": "fastpath.bench.gre",
    "fade": "fastpath.bench.fade",
}


def run(names: list[str] | None = None, quick: bool = False) -> int:
    names = names or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        print(f"fastpath bench: unknown {', '.join(unknown)}; available: {', '.join(BENCHES)}")
        return 2
    out = BUILD / "bench"
    out.mkdir(parents=True, exist_ok=True)
    for name in names:
        mod = importlib.import_module(BENCHES[name])
        t0 = time.monotonic()
        result = mod.run(quick=quick)
        result["wall_seconds"] = round(time.monotonic() - t0, 1)
        path = out / f"{name}.json"
        path.write_text(json.dumps(result, indent=2))
        print(f"== bench {name} ({result['wall_seconds']} s) -> {path}")
        print(mod.table(result))
    return 0
