"""The RTL backend: jobs for fp_p4_pipeline in simulation (p4/pipeline_cocotb.py), for `fastpath
p4 stf|run` and `fastpath bench p4`.

`check(cfg)` says in one line why a program does not fit the simulated build (`SIM_HW`), or
returns None. `run_job(job, hw)` builds the pipeline once (Verilator; cached under build/sim, the
first build takes minutes) and returns the job's JSON results. `serving(...)` runs the P4Runtime
server inside the simulation (job "serve") in a thread for the length of a `with` block.
"""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from .action_load import LoadError
from .compiler import Config
from .pipeline_load import PipelineHW, plan
from .pipeline_sim import SIM_HW

TOP = "fp_p4_pipeline"
MODULE = "fastpath.p4.pipeline_cocotb"
BACKEND_LINE = "backend: RTL (fp_p4_pipeline in Verilator; the first run builds it, a few minutes)"


def check(cfg: Config, hw: PipelineHW = SIM_HW) -> str | None:
    """None when the program maps onto `hw`; else the loader's one-line reason."""
    try:
        plan(cfg, hw)
    except LoadError as e:
        return str(e)
    return None


def run_job(job: dict, hw: PipelineHW = SIM_HW) -> dict:
    from fastpath.sim import runner
    job = dict(job)
    if job.get("program"):
        job["program"] = str(Path(job["program"]).resolve())
    return runner.run_json(TOP, MODULE, hw.params(), job)


@contextmanager
def serving(program: str | None = None, p4info: str | None = None, addr: str = "127.0.0.1:0",
            device_id: int = 1, cpu_port: int = 255):
    """The P4Runtime server inside the pipeline's simulation (fastpath.p4.pipeline_cocotb, job
    "serve"), started in a thread. Yields a dict: "addr" (where it listens; None when the
    simulation ended before it did) and "alive" (a function: the simulation runs). Leaving the
    block stops the server (a file the job watches) and waits for it; the dict then has the job's
    "result" (its counts, commits, egress) or the "error" that ended it."""
    import tempfile
    import threading
    import time
    tmp = Path(tempfile.mkdtemp(prefix="fastpath-p4-serve-"))
    ready, stop = tmp / "ready", tmp / "stop"
    job = {"kind": "serve", "program": program, "p4info": p4info and str(Path(p4info).resolve()),
           "addr": addr, "device_id": device_id, "cpu_port": cpu_port,
           "ready": str(ready), "stop": str(stop), "duration": None}
    box: dict = {"addr": None}

    def sim():
        try:
            box["result"] = run_job(job)
        except Exception as e:  # noqa: BLE001 (handed to the caller in box["error"])
            box["error"] = e
    th = threading.Thread(target=sim, daemon=True)
    box["alive"] = th.is_alive
    th.start()
    try:
        while th.is_alive() and not ready.exists():
            time.sleep(0.1)
        if ready.exists():
            box["addr"] = ready.read_text()
        yield box
    finally:
        stop.touch()
        th.join()
        for f in (ready, stop):
            f.unlink(missing_ok=True)
        tmp.rmdir()
