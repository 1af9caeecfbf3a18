"""The RTL backend: jobs for fp_p4_pipeline in simulation (p4/pipeline_cocotb.py), for `fastpath
p4 stf|run` and `fastpath bench p4`.

`check(cfg)` says in one line why a program does not fit the simulated build (`SIM_HW`), or
returns None. `run_job(job, hw)` builds the pipeline once (Verilator; cached under build/sim, the
first build takes minutes) and returns the job's JSON results.
"""
from __future__ import annotations

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
