"""Build and run a cocotb test for any RTL module and parameter set.

`run("fp_axis_fifo", __name__, {"DEPTH": 64})` builds the module and everything it instantiates
(found by `fastpath.rtl.closure`) with the simulator named by $SIM (default: verilator), caches
the build per (simulator, module, parameter set), and runs the cocotb tests in the given Python
module. Parallel pytest workers that need the same build wait on a lock instead of racing.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Iterable, Mapping

from .. import rtl
from ..paths import BUILD, progress, use_toolchain

SIMULATORS = ("verilator", "icarus")
TIMESCALE = ("1ns", "1ps")


def simulator(sim: str | None = None) -> str:
    name = (sim or os.environ.get("SIM") or "verilator").lower()
    if name not in SIMULATORS:
        raise ValueError(f"SIM={name!r}: fastpath supports {', '.join(SIMULATORS)}")
    return name


@contextlib.contextmanager
def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _use_ccache() -> None:
    """Compile Verilator's C++ through ccache when the machine has it.

    Every build compiles the same five runtime objects (verilated.cpp, the VPI layer, cocotb's
    main: about 10 s of CPU); with several hundred parameter sets that was most of `make test`.
    verilated.mk honours $OBJCACHE; the cache lives in build/ccache so `make clean` clears it.
    """
    import shutil

    if "OBJCACHE" in os.environ or shutil.which("ccache") is None:
        return
    os.environ["OBJCACHE"] = "ccache"
    os.environ.setdefault("CCACHE_DIR", str(BUILD / "ccache"))
    # Build directories differ per parameter set; paths inside them must not split the cache.
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")


def build_dir(top: str, parameters: Mapping[str, object], sim: str) -> Path:
    key = json.dumps({"top": top, "params": {k: str(v) for k, v in sorted(parameters.items())}})
    digest = hashlib.sha1(key.encode()).hexdigest()[:10]
    return BUILD / "sim" / sim / f"{top}-{digest}"


def run(
    top: str,
    test_module: str,
    parameters: Mapping[str, object] | None = None,
    *,
    sim: str | None = None,
    testcase: str | Iterable[str] | None = None,
    env: Mapping[str, str] | None = None,
    seed: int | None = None,
    waves: bool = False,
    extra_sources: Iterable[Path] = (),
) -> Path:
    """Build `top` with `parameters` and run the cocotb tests of `test_module` on it.

    Returns the results XML path; raises (via cocotb's runner) when any test fails.
    The parameters reach the cocotb test as $FASTPATH_PARAMS (see `fastpath.sim.tb.params`).
    """
    from cocotb_tools.runner import get_runner

    use_toolchain()
    sim = simulator(sim)
    params = dict(parameters or {})
    bdir = build_dir(top, params, sim)
    sources = [*rtl.closure(top), *map(Path, extra_sources)]
    runner = get_runner(sim)
    build_args = []
    if sim == "verilator":
        _use_ccache()
        # Lint lives in `make lint` (-Wall, zero warnings); here only real errors stop a build.
        build_args += ["-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"]
    with _locked(bdir.with_suffix(".lock")):
        if not bdir.exists():
            progress(f"building {top} on {sim} ({', '.join(f'{k}={v}' for k, v in params.items()) or 'defaults'})")
        runner.build(
            sources=sources,
            hdl_toplevel=top,
            parameters=params,
            includes=rtl.include_dirs(),
            build_dir=bdir,
            build_args=build_args,
            timescale=TIMESCALE,
            waves=waves,
            log_file=bdir / "build.log",
        )
    # Each test module gets its own run directory, so parallel runs never share results files.
    mod_file = Path(sys.modules[test_module].__file__) if test_module in sys.modules else None
    if mod_file is not None and str(mod_file.parent) not in sys.path:
        sys.path.insert(0, str(mod_file.parent))
    leaf = re.sub(r"[^\w.-]+", "_", os.environ.get("PYTEST_CURRENT_TEST", test_module).split(" ")[0])
    run_env = {"FASTPATH_PARAMS": json.dumps(params), "FASTPATH_SIM": sim}
    run_env.update(env or {})
    return runner.test(
        test_module=test_module,
        hdl_toplevel=top,
        build_dir=bdir,
        test_dir=bdir / "runs" / leaf[-120:],
        testcase=testcase,
        extra_env=run_env,
        seed=seed,
        waves=waves,
        timescale=TIMESCALE,
    )


def run_json(top: str, test_module: str, parameters: Mapping[str, object] | None, cfg: object, *,
             env: Mapping[str, str] | None = None):
    """Run a cocotb module that reads its configuration from $FASTPATH_BENCH (JSON) and writes its
    results as JSON to $FASTPATH_BENCH_OUT (the benches and `fastpath ptrain gen`); return them.

    Cocotb's own chatter is kept to warnings. A simulation that wrote nothing (a failed cocotb
    test: its log is above) raises SimulationFailed with one line naming the module."""
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = Path(fh.name)
    try:
        run(top, test_module, parameters,
            env={"FASTPATH_BENCH": json.dumps(cfg), "FASTPATH_BENCH_OUT": str(out),
                 "COCOTB_LOG_LEVEL": "WARNING", "GPI_LOG_LEVEL": "WARNING", "PYTHONWARNINGS": "ignore", **(env or {})})
        text = out.read_text()
    finally:
        out.unlink(missing_ok=True)
    if not text:
        raise SimulationFailed(f"{test_module} on {top} wrote no results (its simulation log is above)")
    return json.loads(text)


class SimulationFailed(RuntimeError):
    """A cocotb run that should have written results did not."""
