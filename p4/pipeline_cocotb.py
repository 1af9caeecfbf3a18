"""Cocotb side of the RTL backend: fp_p4_pipeline in a simulation, for `fastpath p4 stf`,
`fastpath p4 run` and `fastpath bench p4` (fastpath.p4.rtl_backend.run_job starts it).

The job comes in $FASTPATH_BENCH (JSON) and the results go to $FASTPATH_BENCH_OUT
(fastpath.sim.runner.run_json):

- `{"kind": "stf", "program": PATH, "text": STF, "name": NAME}`: the STF test run by
  fastpath.p4.stf against the RTL: table commands change the table store, and before each packet
  the stage registers and TCAM rows that changed are written (`Driver.load_tables`); each packet goes through
  the pipeline alone, and its frame (if any), through the traffic manager
  (`pipeline_load.deliver`), is what `expect` checks. Out: the report's checks.
- `{"kind": "run", "program": PATH, "commands": TEXT, "frames": [HEX], "port": N}`: the packets
  one at a time; out: per packet the (port, hex) outputs and the TCAM rows written.
- `{"kind": "bench", "program": PATH, "commands": TEXT, "frames": [HEX], "repeat": R, "port": N}`:
  the packets (the list R times: the job travels in an environment variable, which holds at
  most 128 KiB) back to back with no backpressure; with `"random": {"seed": S, "count": N}` instead of frames,
  random entries and packets (fastpath.p4.pipeline_sim.make_entries / make_packet). Out: the
  cycles of every input and output frame (first and last beat), the bytes out, and how many
  packets' outputs differ from the reference interpreter's (`mismatches`).
- `{"kind": "serve", "program": PATH or null, "p4info": PATH or null, "addr": "HOST:PORT",
  "device_id": N, "cpu_port": N, "ready": PATH, "stop": PATH, "duration": S or null}`: the
  P4Runtime server (fastpath.p4.p4runtime) on the simulated pipeline, for `fastpath p4 serve
  --backend rtl`. It writes its bound address to `ready` and runs until the file `stop` exists
  (or `duration` seconds); SIGINT is ignored here (the CLI stops it). Each pipeline config a
  controller sets is planned onto the build (INVALID_ARGUMENT when it does not fit) and loaded
  into the pipeline when its first Write or packet comes; an INSERT the TCAM rows or hash block cannot
  hold is RESOURCE_EXHAUSTED; a Write's changes go into the live config's stages before the Write
  returns (`commit`: the TCAM rows and stage registers that differ, in a hitless order,
  `pipeline_sim.write_order`). Out: the server's counts, per commit the rows, registers and
  cycles written (`commits`), and the packets out of data-plane ports (`egress`: [port, hex]).
"""
from __future__ import annotations

import json
import os
import queue
import random
import signal
import threading
import time
from pathlib import Path

import cocotb
from cocotb.task import bridge, resume

from fastpath.sim.axis import AxisHarness
from fastpath.sim.monitor import BeatMonitor
from fastpath.sim.tb import params, start

from . import pipeline_load as PL
from . import stf as STF
from .compiler import compile_file
from .interp import Interpreter
from .pipeline_sim import Driver, Pool, make_entries, make_packet, pair_frames
from .action_load import LoadError
from .runtime import CommandError, Runtime, TableStore


def _mismatches(plan: PL.Plan, store: TableStore, pkts, frames) -> int:
    """Packets whose outputs differ from the reference interpreter's, and frames left over."""
    it = Interpreter(plan.cfg, store)
    wants = [it.process(data, port).outputs for port, data in pkts]
    got, extra = pair_frames(plan, store, pkts, wants, frames)
    return sum(g != w for g, w in zip(got, wants)) + extra


class RtlBackend:
    """An STF backend on the simulated pipeline (the interface of stf.InterpreterBackend)."""

    name = "RTL (fp_p4_pipeline in simulation)"

    def __init__(self, drv: Driver, plan: PL.Plan, store: TableStore):
        self.drv, self.plan, self.tables = drv, plan, store

    async def send_async(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        await self.drv.load_tables(self.plan, self.tables)    # what changed since (nothing: no write)
        frames = await self.drv.exchange([(port, data)], quiet=300)
        out = []
        for f in frames:
            out += PL.deliver(self.plan, self.tables, f.last("tdest"), f.data, port)
        return out

    def send(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return resume(self.send_async)(port, data)


async def _run(cfg_job: dict, hw: PL.PipelineHW, drv: Driver, mi, mo, result: dict) -> None:
    cfg = compile_file(cfg_job["program"])
    plan = PL.plan(cfg, hw)
    store = TableStore(cfg)
    if cfg_job.get("commands"):
        Runtime(store).run(cfg_job["commands"])
    await drv.load(plan, store)
    result["stages"] = [s.kind + ":" + s.name for s in plan.stages]
    result["latency_stages_cycles"] = plan.latency()
    kind = cfg_job["kind"]
    if kind == "stf":
        backend = RtlBackend(drv, plan, store)

        @bridge
        def run_stf():
            return STF.run(cfg_job["text"], backend, name=cfg_job.get("name", "test.stf"))

        try:
            report = await run_stf()
            result["checks"] = [[c.line, c.text, c.ok, c.detail] for c in report.checks]
        except STF.StfError as e:
            result["error"] = str(e)
    elif kind == "run":
        backend = RtlBackend(drv, plan, store)
        outs = []
        for hx in cfg_job["frames"]:
            got = await backend.send_async(cfg_job.get("port", 0), bytes.fromhex(hx))
            outs.append([[port, data.hex()] for port, data in got])
        result["outputs"] = outs
    elif kind == "bench":
        if "random" in cfg_job:
            r = random.Random(cfg_job["random"]["seed"])
            pool = Pool(r, cfg)
            make_entries(r, cfg, store, pool)
            await drv.load_tables(plan, store)
            it = Interpreter(cfg, store)
            pkts = [(r.randrange(8), make_packet(r, cfg, it, pool, truncate=0))
                    for _ in range(cfg_job["random"]["count"])]
        else:
            pkts = [(cfg_job.get("port", 0), bytes.fromhex(hx)) for hx in cfg_job["frames"]]
            pkts *= cfg_job.get("repeat", 1)
        i0 = len(mi.frames)
        frames = await drv.exchange(pkts, quiet=400)
        result["mismatches"] = _mismatches(plan, store, pkts, frames)
        ins = mi.frames[i0:]
        result["in_first"] = [f.first_beat for f in ins]
        result["in_last"] = [f.last_beat for f in ins]
        result["out_first"] = [f.first_beat for f in frames]
        result["out_last"] = [f.last_beat for f in frames]
        result["out_bytes"] = [len(f.data) for f in frames]
        result["outputs"] = [[f.last("tdest"), f.data.hex()] for f in frames]


class _SimCalls:
    """Coroutine functions run in the simulation on behalf of other threads (the gRPC server's):
    `call` queues one and waits; the bridged thread in `serve_until` runs them one at a time
    with `resume`. While the queue is empty the simulation does not advance."""

    def __init__(self):
        self.q: queue.Queue = queue.Queue()

    def call(self, fn, *args):
        done, box = threading.Event(), {}
        self.q.put((fn, args, done, box))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def serve_until(self, stop) -> None:
        while not stop():
            try:
                fn, args, done, box = self.q.get(timeout=0.05)
            except queue.Empty:
                continue
            try:
                box["value"] = resume(fn)(*args)
            except Exception as e:      # noqa: BLE001 (handed to the caller's thread)
                box["error"] = e
            done.set()


class _ServeBackend(RtlBackend):
    """A P4Runtime backend on the simulated pipeline: one per pipeline config; the one whose
    packet comes is (re)loaded into the hardware first if another config ran last."""

    def __init__(self, ctx: dict, cfg):
        from .p4runtime import SC, P4RTError
        try:
            plan = PL.plan(cfg, ctx["hw"])
        except LoadError as e:
            raise P4RTError(SC.INVALID_ARGUMENT, f"the pipeline's build cannot run it: {e}") from None
        super().__init__(ctx["drv"], plan, TableStore(cfg))
        self.ctx = ctx

    def fits(self, table: str) -> str | None:
        for st in self.plan.stages:
            if st.kind == "table" and st.table.name == table:
                try:
                    self.plan.table_rows(self.tables, st)
                except LoadError as e:
                    return str(e)
        return None

    async def _current(self) -> bool:
        """Make this config the one in the hardware; True when it had to be loaded whole."""
        if self.ctx.get("current") is self:
            return False
        await self.drv.reset()
        await self.drv.load(self.plan, self.tables)
        self.ctx["current"] = self
        return True

    async def _send(self, port: int, data: bytes):
        await self._current()
        return await self.send_async(port, data)

    def send(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return self.ctx["calls"].call(self._send, port, data)

    async def _commit(self) -> dict:
        if await self._current():
            return {"loaded": True}
        done = await self.drv.load_tables(self.plan, self.tables)
        if done["cycles"]:
            self.ctx.setdefault("commits", []).append(done)
        return done

    def commit(self) -> dict | None:
        """The Write's changes into the stages now (only the rows that differ)."""
        return self.ctx["calls"].call(self._commit)


async def _serve(cfg_job: dict, hw: PL.PipelineHW, drv: Driver, result: dict) -> None:
    from .p4runtime import P4RTError, P4RuntimeServer, load_p4info
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # Ctrl-C reaches the CLI, which stops us
    ctx = {"hw": hw, "drv": drv, "calls": _SimCalls()}
    server = P4RuntimeServer(device_id=cfg_job.get("device_id", 1), cpu_port=cfg_job.get("cpu_port", 255),
                             backend_factory=lambda cfg: _ServeBackend(ctx, cfg))
    egress: list = []
    server.device.on_egress = lambda port, data: egress.append([port, data.hex()])
    stop_file = Path(cfg_job["stop"])
    t_end = time.monotonic() + cfg_job["duration"] if cfg_job.get("duration") else None

    @bridge
    def run():
        if cfg_job.get("program"):
            try:
                server.install(load_p4info(cfg_job["p4info"]), Path(cfg_job["program"]).read_bytes())
            except P4RTError as e:
                return f"{Path(cfg_job['program']).name}: {e.msg}"
        try:
            server.start(cfg_job["addr"])
        except OSError as e:
            return str(e)
        Path(cfg_job["ready"]).write_text(server.addr)
        try:
            ctx["calls"].serve_until(lambda: stop_file.exists() or (t_end is not None and time.monotonic() >= t_end))
        finally:
            server.stop()
        return None

    err = await run()
    if err:
        result["error"] = err
    result["stats"] = dict(server.device.stats)
    result["commits"] = ctx.get("commits", [])
    result["egress"] = egress


@cocotb.test()
async def job(dut):
    cfg_job = json.loads(os.environ["FASTPATH_BENCH"])
    p = params()
    hw = PL.PipelineHW(**{k: v for k, v in p.items() if k in PL.PipelineHW.__dataclass_fields__})
    h = AxisHarness(dut, dut.clk, dut.rst)
    mo = BeatMonitor(dut, "m_axis", dut.clk, dut.rst)
    mi = BeatMonitor(dut, "s_axis", dut.clk, dut.rst, fields=("tlast",))
    drv = Driver(dut, hw, h, mo)
    drv.idle_inputs()
    await start(dut, period_ns=5.0)
    result: dict = {"hw": hw.params()}
    try:
        if cfg_job["kind"] == "serve":
            await _serve(cfg_job, hw, drv, result)
        else:
            await _run(cfg_job, hw, drv, mi, mo, result)
    except (LoadError, CommandError) as e:      # entries that do not fit, bad commands: one line
        result["error"] = str(e)
    result["tcam_writes"] = drv.tcam_writes
    with open(os.environ["FASTPATH_BENCH_OUT"], "w") as fh:
        json.dump(result, fh)
