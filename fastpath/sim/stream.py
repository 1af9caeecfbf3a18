"""Run any AXI-Stream core over a pcap capture in simulation (`fastpath sim stream`, and the systems'
own verbs built on it, e.g. `fastpath gre decap|encap`); fastpath.sim.pcap_stream is the cocotb side.

    s = run_pcap("fp_axis_register", "in.pcap", "out.pcap", {"DATA_WIDTH": 64})

Errors a user can act on (the capture is missing, unreadable, not Ethernet; a sideband list of the
wrong length) raise InputError before anything is built; a failed build or simulation, or a run
that hit its cycle limit, raises SimulationError. Both carry a one-line message.
"""
from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path
from typing import Mapping, Sequence

from .. import frames as fr
from . import runner


class InputError(ValueError):
    """A problem with the user's input (the message says what and where)."""


class SimulationError(RuntimeError):
    """The simulation failed or gave no result (a bug in the core or the tools)."""


def read_frames(path: str | Path, max_len: int | None = None, what: str = "a core") -> list[fr.Captured]:
    """The frames of a pcap/pcapng capture, or InputError with a message a user can act on.
    Frames must hold 1..max_len bytes; `what` names the consumer in the message about link types."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{path}: no such file")
    try:
        frames = fr.read_pcap(p)
    except ValueError as e:  # a link type other than Ethernet
        raise InputError(f"{e}: only Ethernet captures can be run through {what}") from None
    except Exception as e:  # noqa: BLE001 - scapy raises its own types for unreadable files
        raise InputError(f"{path}: not a readable pcap/pcapng capture ({e})") from None
    for i, c in enumerate(frames):
        if not len(c.data) or (max_len is not None and len(c.data) > max_len):
            limit = f"1..{max_len}" if max_len is not None else "at least 1"
            raise InputError(f"{path}: frame {i + 1} is {len(c.data)} bytes ({limit} supported)")
    return frames


def run_pcap(top: str, in_pcap: str | Path, out_pcap: str | Path, params: Mapping[str, object] | None = None,
             set_signals: Mapping[str, int] | None = None, report: Sequence[str] = (),
             period_ns: float = 5.0, keep_bad: bool = False, *,
             sideband: Mapping[str, Sequence[int]] | None = None, pulses: Mapping[str, str] | None = None,
             pulses_per_frame: int = 0, idle_cycles: int = 200, max_cycles: int | None = None,
             sim: str | None = None) -> dict:
    """Simulate `top` on every frame of `in_pcap` (back to back, output always ready); write the
    output frames to `out_pcap` (those marked bad, tuser[0] on the last beat, only with keep_bad).

    set_signals  input ports held at a value from before reset (configuration)
    report       signals read at the end
    sideband     input port -> one value per input frame, driven with every beat of that frame
    pulses       valid signal -> value signal: the value in every cycle the valid is high (a
                 per-frame verdict, a counter event); pulses_per_frame: the run waits for that many
                 per input frame
    idle_cycles  the run ends this long after the last output beat, once all input is taken
    max_cycles   ... or at this limit (SimulationError; default: generous for the capture)
    sim          "verilator" or "icarus" (default: $SIM, else verilator)

    Returns {"frames_in", "frames_out", "bad_out", "signals": {name: value}, "bad": [flag per output
    frame, written or not], "pulses": {valid: [values]}, "cycles", "sim"}.
    """
    frames = read_frames(in_pcap)
    for name, values in (sideband or {}).items():
        if len(values) != len(frames):
            raise InputError(f"sideband {name}: {len(values)} values for {len(frames)} frames")
    if not Path(out_pcap).resolve().parent.is_dir():
        raise InputError(f"{out_pcap}: its directory does not exist")
    sim_name = runner.simulator(sim)
    params = dict(params or {})
    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "summary.json"
        cfg = {"in": str(Path(in_pcap).resolve()), "out": str(Path(out_pcap).resolve()),
               "summary": str(summary), "set": dict(set_signals or {}), "report": list(report),
               "period_ns": period_ns, "keep_bad": keep_bad, "idle_cycles": idle_cycles,
               "max_cycles": max_cycles, "sideband": {k: list(v) for k, v in (sideband or {}).items()},
               "pulses": dict(pulses or {}), "pulses_per_frame": pulses_per_frame}
        where = runner.build_dir(top, params, sim_name)
        try:
            runner.run(top, "fastpath.sim.pcap_stream", params, sim=sim_name,
                       env={"FASTPATH_STREAM": json.dumps(cfg), "COCOTB_LOG_LEVEL": "WARNING",
                            "GPI_LOG_LEVEL": "WARNING"})
        except (SystemExit, subprocess.CalledProcessError) as e:  # cocotb's runner exits on a failure
            raise SimulationError(f"{top}: the simulation failed ({e}); its files are under {where}") from None
        if not summary.exists():  # the cocotb test failed (the runner only checks under pytest)
            raise SimulationError(f"{top}: the simulation ended without a result; its log is under {where}/runs")
        s = json.loads(summary.read_text())
    if s.pop("timed_out"):
        got = ", ".join(f"{len(v)} {k} pulses" for k, v in s["pulses"].items())
        raise SimulationError(f"{top}: the simulation stopped at its cycle limit ({s['cycles']} cycles) with "
                              f"{s['accepted']} of {len(frames)} frames taken, {len(s['bad'])} out"
                              + (f", {got}" if got else ""))
    s.pop("accepted")
    s["sim"] = sim_name
    return s
