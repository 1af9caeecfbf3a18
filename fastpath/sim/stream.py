"""Run any AXI-Stream core over a pcap capture in simulation (`fastpath sim stream`)."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from . import runner


def run_pcap(top: str, in_pcap: str | Path, out_pcap: str | Path, params: Mapping[str, object] | None = None,
             set_signals: Mapping[str, int] | None = None, report: Sequence[str] = (),
             period_ns: float = 5.0, keep_bad: bool = False) -> dict:
    """Simulate `top` on every frame of `in_pcap`; write the output frames to `out_pcap`.

    Returns {"frames_in", "frames_out", "bad_out", "signals": {name: value}}.
    """
    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "summary.json"
        cfg = {"in": str(Path(in_pcap).resolve()), "out": str(Path(out_pcap).resolve()),
               "summary": str(summary), "set": dict(set_signals or {}), "report": list(report),
               "period_ns": period_ns, "keep_bad": keep_bad}
        runner.run(top, "fastpath.sim.pcap_stream", dict(params or {}),
                   env={"FASTPATH_STREAM": json.dumps(cfg), "COCOTB_LOG_LEVEL": "WARNING"})
        return json.loads(summary.read_text())
