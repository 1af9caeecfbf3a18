"""Driving fp_p4_pipeline in a cocotb simulation: loading a `pipeline_load.Plan` and its table
store, sending packets, taking frames off m_axis with their destination. Used by the pipeline's
test (p4/tb/test_p4_pipeline.py) and by the RTL backend of `fastpath p4 stf|run` and `fastpath
bench p4` (p4/pipeline_cocotb.py).

`Pool`, `make_entries` and `make_packet` make table entries and packets that exercise a program
(lookups that hit, chained tables, the parser's real paths).

`SIM_HW` is the build those share (one Verilator build, cached under build/sim): sized for every
shared BMv2 program and the samples (PHV 768 bits, 5 stages, 32 TCAM rows and a 512-entry 4-way
hash block per stage, 64-bit stream).
"""
from __future__ import annotations

import random

from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from cocotbext.axi import AxiStreamFrame

from . import pipeline_load as PL
from .runtime import CommandError, TableStore

SIM_HW = PL.PipelineHW(PHV_BITS=768, VALID_BITS=8, STAGES=5, STATES=16, STACKS=1, HDRS=8, CSUMS=2,
                       DATA_BITS=128, ACTIONS=16, SLOTS=2, BLOCK_ENTRIES=32, HASH_ENTRIES=512, HASH_WAYS=4)


def tcam_update(old: dict, new: list, n_rows: int) -> tuple[dict, list]:
    """How one TCAM of `n_rows` rows goes from `old` ({row: (rank, value, mask, action)}) to the
    rows `new` [(rank, value, mask, action)] of `Plan.tcam_rows_ranked`: (the rows as they end,
    [(row, content, or None to invalidate)] to write in that order).

    A row that stays (same rank, value and mask) keeps its place (a new action is written in
    place); a row that goes is invalidated and leaves a hole; a new row takes a hole between the
    last row of lower rank and the first of higher rank, or, when there is none, the nearest hole
    below (above) is closed by moving the rows in between down (up) by one, the row next to the
    hole first. Each write before the new row's then copies a row next to itself, so every single
    write leaves a TCAM that answers every key as the table before the update or after it (for an
    update of one entry with one row: a P4Runtime INSERT, MODIFY or DELETE); such an update
    writes one row when a hole is in range."""
    cur = dict(old)
    writes: list = []
    want = {(r, v, m): a for r, v, m, a in new}
    for i in sorted(cur):
        r, v, m, a = cur[i]
        if (r, v, m) not in want:
            del cur[i]
            writes.append((i, None))
        elif want[(r, v, m)] != a:
            cur[i] = (r, v, m, want[(r, v, m)])
            writes.append((i, cur[i]))
    placed = {cur[i][:3] for i in cur}
    for r, v, m, a in new:
        if (r, v, m) in placed:
            continue
        lo = max((i for i in cur if cur[i][0] < r), default=-1)       # rows of lower rank end here
        hi = min((i for i in cur if cur[i][0] > r), default=n_rows)   # rows of higher rank start here
        row = next((i for i in range(lo + 1, hi) if i not in cur), None)
        if row is None:
            below = next((i for i in range(hi, n_rows) if i not in cur), None)
            above = next((i for i in range(lo, -1, -1) if i not in cur), None)
            if below is not None and (above is None or below - hi <= lo - above):
                for i in range(below, hi, -1):      # rows hi..below-1 down by one, the last first
                    cur[i] = cur[i - 1]
                    writes.append((i, cur[i]))
                row = hi
            elif above is not None:
                for i in range(above, lo):          # rows above+1..lo up by one, the first first
                    cur[i] = cur[i + 1]
                    writes.append((i, cur[i]))
                row = lo
            else:
                raise ValueError(f"{len(new)} rows do not fit in {n_rows}")
        cur[row] = (r, v, m, a)
        placed.add((r, v, m))
        writes.append((row, cur[row]))
    return cur, writes


class Driver:
    """Configuration and traffic for one fp_p4_pipeline `dut` (an AxisHarness `h`, a BeatMonitor
    `mo` on m_axis)."""

    def __init__(self, dut, hw: PL.PipelineHW, h, mo):
        self.dut, self.hw, self.h, self.mo = dut, hw, h, mo
        self.rows_written: dict[int, dict] = {}   # stage -> {row: (rank, value, mask, action)} as written
        self.regs_written: dict[tuple, int] = {}  # (stage, address) -> word as written
        self.tcam_writes = 0

    def idle_inputs(self):
        d = self.dut
        for n in ("prs_wr_valid", "dep_wr_en", "stg_wr_en", "act_wr_en", "tcam_wr_en", "cfg_egress_shift",
                  "cfg_egress_width", "cfg_drop_value", "cfg_drop_en"):
            getattr(d, n).value = 0

    async def reset(self):
        d = self.dut
        await FallingEdge(d.clk)
        d.rst.value = 1
        await ClockCycles(d.clk, 4)
        await FallingEdge(d.clk)
        d.rst.value = 0
        self.rows_written, self.regs_written = {}, {}
        if self.hw.HASH_ENTRIES:     # fp_p4_hash clears itself after a reset, one row per cycle
            await ClockCycles(d.clk, self.hw.HASH_ENTRIES // self.hw.HASH_WAYS + 4)

    async def _writes(self, en: str, rows: list[dict]):
        await self._write_seq([(en, f) for f in rows])

    async def _write_seq(self, writes: list[tuple[str, dict]]):
        """One write per cycle, back to back: (enable signal, {port: value})."""
        d = self.dut
        if not writes:
            return
        prev = None
        for en, f in writes:
            await FallingEdge(d.clk)
            if prev is not None and prev != en:
                getattr(d, prev).value = 0
            getattr(d, en).value = 1
            for k, v in f.items():
                getattr(d, k).value = v
            prev = en
        await FallingEdge(d.clk)
        getattr(d, prev).value = 0

    async def load(self, plan: PL.Plan, store: TableStore):
        """Everything: parser, deparser, action programs, stage registers, TCAM rows."""
        d = self.dut
        d.cfg_egress_shift.value = PL.SYS_EGRESS
        d.cfg_egress_width.value = plan.egress_width
        d.cfg_drop_value.value = PL.DROP_PORT & ((1 << plan.egress_width) - 1)
        d.cfg_drop_en.value = 1
        await self._writes("prs_wr_valid", [dict(prs_wr_addr=a, prs_wr_data=v) for a, v in plan.parser_writes])
        await self._writes("dep_wr_en", [dict(dep_wr_addr=a, dep_wr_data=v) for a, v in plan.deparser.writes()])
        await self._writes("act_wr_en", [dict(act_wr_stage=s, act_wr_action=a, act_wr_slot=k, act_wr_op=w)
                                         for s, a, k, w in plan.action_writes()])
        await self.load_tables(plan, store)

    async def load_tables(self, plan: PL.Plan, store: TableStore) -> dict:
        """The stage registers (defaults) and the TCAM rows of every table, written where they
        differ from what this driver wrote since the last reset, in the order `tcam_update` gives
        (a single insert, delete or modify is hitless; the hash block's rows are where its hashes
        put them). Returns {"rows": TCAM rows written, "regs": stage registers written, "cycles":
        from the first write to the first cycle a lookup sees the last (fp_p4_tcam: a key
        presented two cycles after a write sees it)}."""
        regs = [(s, a, v) for s, a, v in plan.stage_writes(store) if self.regs_written.get((s, a)) != v]
        rows = []
        for st in plan.stages:
            old = self.rows_written.get(st.index, {})
            if st.memory == "tcam":
                final, seq = tcam_update(old, plan.tcam_rows_ranked(store, st) if st.kind == "table" and st.table.key
                                         else [], self.hw.rows)
            else:
                final = {i: ((0,), v, m, a) for i, v, m, a in plan.table_rows(store, st)}
                seq = [(i, final.get(i)) for i in sorted(set(old) | set(final)) if old.get(i) != final.get(i)]
            for i, row in seq:
                _, v, m, a = row if row is not None else (None, 0, 0, 0)
                rows.append(dict(tcam_wr_stage=st.index, tcam_wr_index=i, tcam_wr_valid=int(row is not None),
                                 tcam_wr_value=v, tcam_wr_mask=m, tcam_wr_action=a))
            self.rows_written[st.index] = final
        await self._write_seq([("stg_wr_en", dict(stg_wr_stage=s, stg_wr_addr=a, stg_wr_data=v)) for s, a, v in regs]
                              + [("tcam_wr_en", f) for f in rows])
        for s, a, v in regs:
            self.regs_written[(s, a)] = v
        self.tcam_writes += len(rows)
        done = len(regs) + len(rows)
        return {"rows": len(rows), "regs": len(regs), "cycles": done + 2 if done else 0}

    async def send(self, pkts: list[tuple[int, bytes]]):
        for port, data in pkts:
            await self.h.source.send(AxiStreamFrame(data, tuser=[0] * len(data), tid=port))

    async def exchange(self, pkts: list[tuple[int, bytes]], quiet: int = 400) -> list:
        """Send (ingress port, bytes) packets back to back; wait until they are sent and no frame
        has come out for `quiet` cycles; the frames that came out (BeatMonitor frames: .data,
        .last("tdest"), .first_valid, ...)."""
        n0 = len(self.mo.frames)
        await self.send(pkts)
        await self.h.source.wait()
        idle, seen = 0, len(self.mo.frames)
        while idle < quiet:
            await RisingEdge(self.dut.clk)
            idle = 0 if len(self.mo.frames) != seen else idle + 1
            seen = len(self.mo.frames)
        return self.mo.frames[n0:]


def pair_frames(plan: PL.Plan, store: TableStore, pkts: list[tuple[int, bytes]], wants: list, frames: list):
    """The frames out (in order) matched to the packets in: per packet what the traffic manager
    (`pipeline_load.deliver`) makes of its frame, [] when it left none; and how many frames are
    left over. A packet the reference sends nowhere may still have left a frame that delivers
    nothing (a multicast group without ports): it takes that frame."""
    got, k = [], 0
    for (port, data), want in zip(pkts, wants):
        g = []
        if k < len(frames):
            cand = PL.deliver(plan, store, frames[k].last("tdest"), frames[k].data, port)
            if want or cand == []:
                g, k = cand, k + 1
        got.append(g)
    return got, len(frames) - k


# ---- traffic and entries that exercise a program -------------------------------------------

class Pool:
    """Values shared by packets and entries, per field width."""

    def __init__(self, r: random.Random, cfg: compiler.Config):
        self.r = r
        self.vals: dict[int, list[int]] = {}
        for st in cfg.parser.states:
            for t in st.transitions:
                if t.value is not None:
                    self._add(st.key_width, t.value)
                    # each key field's own part too (keys are concatenations of padded fields)
                    sh = st.key_width
                    for k in st.key:
                        sh -= k.padded
                        self._add(k.width, (t.value >> sh) & ((1 << k.padded) - 1) & ((1 << k.width) - 1))

    def _add(self, w: int, v: int):
        self.vals.setdefault(w, []).append(v)

    def value(self, w: int) -> int:
        vs = self.vals.setdefault(w, [])
        if len(vs) < 4:
            vs.append(self.r.getrandbits(w))
        k = self.r.random()
        if k < 0.6:
            return self.r.choice(vs)
        if k < 0.65:
            return 0
        return self.r.getrandbits(w)


def make_entries(r: random.Random, cfg, store: TableStore, pool: Pool, per_table: int = 10):
    """Random entries (keys and parameters from the pool, random default actions) in every
    table that may change, and multicast groups 1-3 with random ports."""
    for t in cfg.tables:
        ts = store.tables[t.name]
        if ts.immutable or not t.key:
            if not t.key and ts.default is not None and not ts.default_const and r.random() < 0.7:
                aid = r.choice(t.actions)
                try:
                    ts.set_default(aid, [pool.value(w) for _, w in cfg.action(aid).params])
                except CommandError:
                    pass
            continue
        for _ in range(per_table):
            key = []
            for k in t.key:
                w = k.width
                v = pool.value(w)
                if k.kind in ("exact", "valid"):
                    key.append([k.kind, v & 1 if k.kind == "valid" else v])
                elif k.kind == "lpm":
                    key.append(["lpm", v, r.randrange(0, w + 1)])
                elif k.kind == "ternary":
                    key.append(["ternary", v, r.choice([(1 << w) - 1, r.getrandbits(w), 0])])
                else:
                    lo = v
                    key.append(["range", lo, min((1 << w) - 1, lo + r.randrange(0, 1 << min(w, 6)))])
            aid = r.choice(t.actions)
            data = [pool.value(w) for _, w in cfg.action(aid).params]
            try:
                ts.add(key, aid, data, r.randrange(1, 20) if ts.is_prio else None)
            except CommandError:
                pass
        if ts.default is not None and not ts.default_const and r.random() < 0.5:
            aid = r.choice(t.actions)
            try:
                ts.set_default(aid, [pool.value(w) for _, w in cfg.action(aid).params])
            except CommandError:
                pass
    store.mc_groups, store.mc_nodes = {}, {}
    for g in (1, 2, 3):
        store.mc_nodes[g] = (g, sorted(r.sample(range(8), r.randrange(0, 4))))
        store.mc_groups[g] = [g]


def make_packet(r: random.Random, cfg, it, pool: Pool, truncate: float = 0.1) -> bytes:
    """A packet from random header values (from the pool) and validity, by the interpreter's
    deparser, with a random payload; a fraction `truncate` cut short (the parser's error path)."""
    s = it._new_state()
    for inst in cfg.instances:
        for f in cfg.header_type(inst.type).fields:
            s.vals[inst.name][f.name] = pool.value(f.width)
        if not inst.metadata:
            s.valid[inst.name] = r.random() < 0.7
    payload = bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, r.randrange(2, 40), r.randrange(40, 200)])))
    s.payload = payload
    data = it.deparse(s)
    if r.random() < truncate and len(data) > 2:      # truncated: the parser's error path
        data = data[:r.randrange(1, len(data))]
    return data or b"\x00"
