"""fp_p4_stage: one match-action stage (key slots, TCAM, default action, gate, FIFOs, action unit)
against a Python reference model, with action programs that are real: stage 0 of
fastpath.p4.pipeline_load.plan() for a sample program (ipv4_ttl on one build, vlan_push_pop with
its validity shifts on the other), loaded through act_wr_*.

The model (StageModel) follows the stage's header: the key is SLOTS slots of SLOT_BITS bits, slot 0
the most significant, slot s the field of width w_s whose LSB is bit o_s of {PHV, validity bits};
the gate is PHV bit GATE (from the PHV's LSB, below GATE_BITS) when enabled; the TCAM's first
valid row i with ((key ^ value_i) & mask_i) == 0 gives {action id, action data}, a miss the
default action and data, a closed gate action 0 with data 0; then the loader's bit-exact
ActionModel gives the PHV, validity, egress port and drop. Every output is checked in order.

Per build, after the action programs are loaded:

- the plan's own configuration: Plan.stage_writes and Plan.tcam_rows of a TableStore with random
  entries and a random default action; the expected action comes from the TableStore's own lookup
  of the key field read out of the PHV (and must equal the TCAM model's), so the loader's slot
  offsets, row packing and match order are checked against the RTL too;
- random configurations: slot offsets and widths (unused slots, fields in the validity bits,
  fields straddling a 64-bit boundary, fields running past the vector's end or wholly beyond it),
  the gate on or off at a random position (sometimes at or beyond GATE_BITS: always closed), a
  random default action and data, rows with exact, prefix, ternary and match-all masks, rows
  derived from earlier ones (shadowed or shadowing), rows written invalid, value bits outside the
  mask; half the PHVs are built so that their key hits some row, the gate bit set or clear.
  Ten configurations (the gate on in every other one), each running: random gaps on in_valid with
  out_ready high (every packet's latency asserted: out_valid exactly the stage's latency after the
  cycle of in_valid && in_ready), in every third one (and the plan's) a back-to-back burst of
  3 * FIFO_DEPTH packets (in_ready never drops, every packet on time: one packet per cycle), then
  random gaps and random backpressure on out_ready;
- a long stall of out_ready with input offered every cycle (in_ready must drop: the credit
  counter; nothing lost or reordered afterwards).

The run ends by asserting its coverage: row hits, hits on several rows that differ (the match
order decides), misses whose default action reads its data, closed gates.

The stated latency (the stage's header) is 1 + 2 + the TCAM's latency (p4/docs/tcam.md: 1 +
ceil(log4(ceil(KEY_WIDTH / 4))) compare stages + ceil(log4(BLOCK_ENTRIES)) encoder stages + 1, +
ceil(log2(BLOCKS))) + 2 + 1 + OPS + 9 + 1 (stage_latency below): 31 and 32 cycles here.
PipelineHW.stage_latency() takes the TCAM latency of 32-entry blocks and says 32 and 33
(test_stage_latency_formula: an expected failure until pipeline_load.py counts BLOCK_ENTRIES).

A last test resets the stage with packets in flight: nothing comes out, the configuration
registers and the TCAM are cleared (every packet gets action 0, latency asserted), the action
programs stay (the next configuration's packets use them).

Inputs change on the falling edge; handshakes happen on the rising edge (in_ready and out_valid are
registers, read at the falling edge before it), as in test_p4_action.py.
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import fields as dc_fields

import cocotb
import pytest
from cocotb.triggers import FallingEdge

from fastpath.p4 import action_load as L
from fastpath.p4 import compiler
from fastpath.p4 import pipeline_load as PL
from fastpath.p4 import samples as S
from fastpath.p4.runtime import CommandError, TableStore
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

# name: (sample program, fp_p4_stage parameters)
CONFIGS = {
    "ipv4_ttl_2x64_1x16": (S.ipv4_ttl, dict(PHV_BITS=528, VALID_BITS=8, DATA_BITS=64, OPS=8, ACTIONS=16,
                                            SLOTS=2, SLOT_BITS=64, BLOCKS=1, BLOCK_ENTRIES=16, FIFO_DEPTH=32)),
    "vlan_3x24_2x8_fifo16": (S.vlan_push_pop, dict(PHV_BITS=600, VALID_BITS=8, DATA_BITS=64, OPS=8, ACTIONS=16,
                                                   SLOTS=3, SLOT_BITS=24, BLOCKS=2, BLOCK_ENTRIES=8,
                                                   FIFO_DEPTH=16, GATE_BITS=64)),
}
HW_FIELDS = {f.name for f in dc_fields(PL.PipelineHW)}


def pipeline_hw(p: dict) -> PL.PipelineHW:
    return PL.PipelineHW(**{k: v for k, v in p.items() if k in HW_FIELDS})


def tcam_latency(p: dict) -> int:
    """fp_p4_tcam_cascade's LATENCY as p4/docs/tcam.md states it (CMP_CHUNK, AND_RADIX and
    ENC_RADIX at their defaults, 4)."""
    return PL.tcam_latency(p["SLOTS"] * p["SLOT_BITS"], p["BLOCK_ENTRIES"], blocks=p["BLOCKS"])


def stage_latency(p: dict) -> int:
    """The stage's header: 1 (input register) + 2 (key) + the TCAM's latency + 2 (the result
    FIFO) + 1 (action register) + OPS + 9 (the action unit) + 1 (the output FIFO). (Traced: the
    TCAM takes LATENCY + 1 cycles from the cycle of key_valid to the cycle of result_valid, as
    p4/docs/tcam.md counts from the edge that loads its key register, and the FIFO 1; the sum is
    the same.)"""
    return 1 + 2 + tcam_latency(p) + 2 + 1 + p["OPS"] + 9 + 1


def ones(w: int) -> int:
    return (1 << w) - 1


# ---- the reference model -----------------------------------------------------------------------

class StageModel:
    """fp_p4_stage's configuration registers and TCAM, and what they do to a packet."""

    def __init__(self, p: dict, image: L.ActionImage):
        self.p = p
        self.pb, self.vb = p["PHV_BITS"], p["VALID_BITS"]
        self.db, self.sb, self.slots_n = p["DATA_BITS"], p["SLOT_BITS"], p["SLOTS"]
        self.kw = self.slots_n * self.sb
        self.src_bits = self.pb + self.vb
        self.gate_bits = p.get("GATE_BITS", 128)
        self.aid_width = max(1, (p["ACTIONS"] - 1).bit_length())
        self.rows_n = p["BLOCKS"] * p["BLOCK_ENTRIES"]
        self.act = L.ActionModel(image)
        self.stats: Counter = Counter()    # what the packets met: row hits, misses, closed gates
        self.reset()

    def reset(self):
        self.gate_en, self.gate_pos = False, 0
        self.def_aid, self.def_data = 0, 0
        self.slots = [(0, 0)] * self.slots_n
        self.rows: list[tuple | None] = [None] * self.rows_n   # (value, mask, aid, data) of valid rows

    # the configuration interfaces, decoded as the header describes them
    def cfg_write(self, addr: int, word: int):
        if addr == PL.STAGE_CFG_GATE:
            self.gate_en, self.gate_pos = bool(word & 1), word >> 16 & 0xFFFF
        elif addr == PL.STAGE_CFG_DEFAULT:
            self.def_aid = word & ones(self.aid_width)
        elif PL.STAGE_CFG_SLOT <= addr < PL.STAGE_CFG_SLOT + self.slots_n:
            self.slots[addr - PL.STAGE_CFG_SLOT] = (word & 0xFFFF, min(word >> 16 & 0x7F, self.sb))
        elif PL.STAGE_CFG_DATA <= addr < PL.STAGE_CFG_DATA + (self.db + 31) // 32:
            w = addr - PL.STAGE_CFG_DATA
            self.def_data = (self.def_data & ~(ones(32) << 32 * w) | word << 32 * w) & ones(self.db)

    def tcam_write(self, index: int, valid: bool, value: int, mask: int, action: int):
        self.rows[index] = (value, mask, action >> self.db, action & ones(self.db)) if valid else None

    def slot_pos(self, s: int) -> int:
        """The LSB of slot s in the key (slot 0 most significant)."""
        return self.kw - self.sb * (s + 1)

    def live_bits(self) -> int:
        """The key bits that come from the vector (the rest are always 0)."""
        k = 0
        for s, (o, w) in enumerate(self.slots):
            k |= ones(min(w, max(0, self.src_bits - o))) << self.slot_pos(s)
        return k

    def key(self, phv: int, valid: int) -> int:
        src = phv << self.vb | valid
        k = 0
        for s, (o, w) in enumerate(self.slots):
            k |= (src >> o & ones(w)) << self.slot_pos(s)
        return k

    def gate(self, phv: int) -> bool:
        return not self.gate_en or (self.gate_pos < self.gate_bits and bool(phv >> self.gate_pos & 1))

    def lookup(self, key: int) -> int | None:
        return next((i for i, r in enumerate(self.rows) if r is not None and (key ^ r[0]) & r[1] == 0), None)

    def action(self, phv: int, valid: int) -> tuple[int, int, str]:
        if not self.gate(phv):
            return 0, 0, "gate closed"
        i = self.lookup(self.key(phv, valid))
        if i is None:
            return self.def_aid, self.def_data, "miss"
        return self.rows[i][2], self.rows[i][3], f"row {i}"

    def shadows(self, phv: int, valid: int) -> bool:
        """A later row matches too, with another action or data (the match order decides)."""
        key = self.key(phv, valid)
        hits = [r[2:] for r in self.rows if r is not None and (key ^ r[0]) & r[1] == 0]
        return self.gate(phv) and len(set(hits)) > 1

    def run(self, phv: int, valid: int) -> tuple[tuple, str]:
        aid, data, how = self.action(phv, valid)
        self.stats[how.split()[0]] += 1
        self.stats["miss_data"] += how == "miss" and bool(self.act.img.programs[aid].params)
        self.stats["shadow"] += self.shadows(phv, valid)
        p, v, eg, drop, _, _ = self.act.run(phv, valid, aid, data)
        return (p, v, eg, drop), f"{how}, action {aid}"


class Packet:
    def __init__(self, phv: int, valid: int, model: StageModel, note: str = ""):
        self.phv, self.valid = phv, valid
        self.want, how = model.run(phv, valid)
        self.what = f"packet {note}({how})"

    def check(self, got: tuple):
        phv, valid, eg, drop = got
        wp, wv, we, wd = self.want
        assert phv == wp, f"{self.what}: PHV {phv:x} != {wp:x}"
        assert valid == wv, f"{self.what}: validity {valid:b} != {wv:b}"
        assert (eg, drop) == (we, wd), f"{self.what}: egress {eg} drop {drop}, expected {we} {wd}"


# ---- random configurations and packets ---------------------------------------------------------

def rand_bits(r: random.Random, w: int) -> int:
    k = r.random()
    if k < 0.05:
        return 0
    if k < 0.1:
        return ones(w)
    return r.getrandbits(w)


def rand_data(r: random.Random, image: L.ActionImage, aid: int, db: int) -> int:
    """Action data: the action's parameters packed by the loader, or any bits."""
    prog = image.programs[aid]
    if prog.params and r.random() < 0.6:
        return image.pack_data(aid, [rand_bits(r, w) for _, w, _ in prog.params])
    return r.getrandbits(db) if r.random() < 0.7 else 0


def rand_slot(r: random.Random, m: StageModel) -> tuple[int, int]:
    src, sb = m.src_bits, m.sb
    if r.random() < 0.08:
        return r.randrange(src), 0                              # unused: reads zero
    w = sb if r.random() < 0.4 else r.randint(1, sb)
    k = r.random()
    if k < 0.15:
        o = r.randrange(m.vb)                                   # starts in the validity bits
    elif k < 0.45 and w > 1:
        o = 64 * r.randrange(1, (src - 1) // 64 + 1) - r.randint(1, w - 1)   # straddles 64-bit boundary
    elif k < 0.52:
        o = src - r.randint(1, w)                               # runs past the vector's end
    elif k < 0.57:
        o = src + r.randrange(200) if r.random() < 0.7 else r.randrange(src, 1 << 16)   # wholly beyond
    else:
        o = r.randrange(src - w + 1)
    return max(0, o), w


def rand_rows(r: random.Random, m: StageModel, image: L.ActionImage) -> list[tuple[int, int, int, int, int]]:
    """(index, valid, value, mask, action word) for every TCAM row."""
    aids = sorted(image.programs)
    live = m.live_bits()
    out, made = [], []
    fill = r.uniform(0.4, 1.0)
    for i in range(m.rows_n):
        if r.random() > fill:
            out.append((i, 0, r.getrandbits(m.kw), r.getrandbits(m.kw), 0))
            continue
        if made and r.random() < 0.4:      # from an earlier row: fewer or more cared bits
            value, mask = r.choice(made)
            if r.random() < 0.5:
                mask &= ~(r.getrandbits(m.kw) & r.getrandbits(m.kw))     # a quarter of them fewer
            else:
                more = r.getrandbits(m.kw) & live & ~mask
                value, mask = value & ~more | r.getrandbits(m.kw) & more, mask | more
        else:
            value = mask = 0
            for s, (_, w) in enumerate(m.slots):
                pos = m.slot_pos(s)
                sv = rand_bits(r, w)
                k = r.random()
                if k < 0.45:
                    sm = ones(w)                                 # exact
                elif k < 0.7:
                    plen = r.randint(0, w)
                    sm = ones(plen) << (w - plen)               # prefix
                elif k < 0.9:
                    sm = r.getrandbits(w)                        # ternary
                else:
                    sm = 0                                       # match all
                if w < m.sb and r.random() < 0.03:   # a cared bit above the field (the key has 0 there)
                    sm |= 1 << r.randrange(w, m.sb)
                value |= sv << pos
                mask |= sm << pos
            if r.random() < 0.9:   # key bits beyond the vector are 0: keep the row hittable
                value &= live | ~mask
        if r.random() < 0.5:
            value |= r.getrandbits(m.kw) & ~mask                 # value bits under a 0 mask: ignored
        made.append((value, mask))
        aid = r.choice(aids)
        word = aid << m.db | rand_data(r, image, aid, m.db)
        out.append((i, int(r.random() >= 0.12), value, mask, word))
    return out


def rand_phv(r: random.Random, m: StageModel) -> tuple[int, int]:
    k = r.random()
    phv = 0 if k < 0.03 else ones(m.pb) if k < 0.06 else r.getrandbits(m.pb)
    return phv, r.getrandbits(m.vb)


def hitting_packet(r: random.Random, m: StageModel) -> tuple[int, int]:
    """A random PHV whose key fields are set from a random valid row (its don't-care bits random);
    overlapping slots may spoil it, the model decides."""
    phv, valid = rand_phv(r, m)
    live = [x for x in m.rows if x is not None]
    if not live:
        return phv, valid
    value, mask, _, _ = r.choice(live)
    src = phv << m.vb | valid
    for s, (o, w) in enumerate(m.slots):
        pos = m.slot_pos(s)
        sv, sm = value >> pos & ones(w), mask >> pos & ones(w)
        field = (sv & sm) | (r.getrandbits(w) & ~sm) if w else 0
        src = src & ~(ones(w) << o) | field << o
    src &= ones(m.src_bits)
    return src >> m.vb, src & ones(m.vb)


def gated(r: random.Random, m: StageModel, phv: int) -> int:
    """Set or clear the gate bit (when the gate is on and its bit is in the PHV)."""
    if m.gate_en and m.gate_pos < m.pb:
        bit = 1 << m.gate_pos
        phv = phv | bit if r.random() < 0.7 else phv & ~bit
    return phv


def random_config(r: random.Random, m: StageModel, image: L.ActionImage, gate: bool) -> list[tuple[int, int]]:
    """(address, word) writes of a random gate (on or off), default action and slots."""
    writes = []
    if gate:
        pos = r.randrange(m.gate_bits) if r.random() < 0.85 else r.randrange(m.gate_bits, 1 << 16)
        writes.append((PL.STAGE_CFG_GATE, 1 | pos << 16))
    else:
        writes.append((PL.STAGE_CFG_GATE, r.randrange(1 << 16) << 16))   # disabled: the position is ignored
    with_data = [a for a, prog in sorted(image.programs.items()) if prog.params]
    aid = r.choice(with_data if with_data and r.random() < 0.6 else sorted(image.programs))
    writes.append((PL.STAGE_CFG_DEFAULT, aid))
    data = rand_data(r, image, aid, m.db)
    for w in range((m.db + 31) // 32):
        writes.append((PL.STAGE_CFG_DATA + w, data >> 32 * w & ones(32)))
    for s in range(m.slots_n):
        o, w = rand_slot(r, m)
        writes.append((PL.STAGE_CFG_SLOT + s, o | w << 16))
    r.shuffle(writes)
    return writes


# ---- the plan's own configuration -------------------------------------------------------------

class PlanPhase:
    """Stage 0 of a plan with a TableStore of random entries; packets with the table's key fields
    set from the entries, expected actions from the store's lookup."""

    def __init__(self, r: random.Random, plan: PL.Plan, m: StageModel):
        self.r, self.plan, self.m = r, plan, m
        self.st = plan.stages[0]
        self.table = self.st.table
        self.store = TableStore(plan.cfg)
        ts = self.ts = self.store.tables[self.table.name]
        cfg = plan.cfg
        for _ in range(4 * m.rows_n):
            if len(ts.entries) >= m.rows_n - 2:
                break
            key = []
            for kf in self.table.key:
                v = r.getrandbits(kf.width)
                if kf.kind == "lpm":
                    key.append(["lpm", v, kf.width if r.random() < 0.3 else r.randint(kf.width // 2, kf.width)])
                elif kf.kind == "ternary":
                    key.append(["ternary", v, r.getrandbits(kf.width)])
                elif kf.kind == "valid":
                    key.append(["valid", r.getrandbits(1)])
                else:
                    key.append(["exact", v])
            aid = r.choice(self.table.actions)
            data = [r.getrandbits(w) for _, w in cfg.action(aid).params]
            try:
                ts.add(key, aid, data, r.randrange(100) if ts.is_prio else None)
            except CommandError:
                continue
        if r.random() < 0.6:
            aid = r.choice(self.table.actions)
            ts.set_default(aid, [r.getrandbits(w) for _, w in cfg.action(aid).params])
        self.cfg_writes = [(a, w) for s, a, w in plan.stage_writes(self.store) if s == 0]
        rows = plan.tcam_rows(self.store, self.st)
        self.tcam_writes = [(i, 1, *rows[i]) if i < len(rows) else (i, 0, 0, 0, 0) for i in range(m.rows_n)]

    def field_values(self, phv: int, valid: int) -> list[int]:
        m = self.m
        out = []
        for kf in self.table.key:
            if kf.kind == "valid":
                out.append(valid >> kf.phv_offset & 1)
            else:
                out.append(phv >> (m.pb - kf.phv_offset - kf.width) & ones(kf.width))
        return out

    def packet(self) -> Packet:
        r, m = self.r, self.m
        phv, valid = rand_phv(r, m)
        if self.ts.entries and r.random() < 0.6:
            e = r.choice(list(self.ts.entries.values()))
            for kf, k in zip(self.table.key, e.key):
                if kf.kind == "valid":
                    valid = valid & ~(1 << kf.phv_offset) | k[1] << kf.phv_offset
                    continue
                w = kf.width
                v = k[1]
                if k[0] == "lpm":
                    v = v & (ones(k[2]) << (w - k[2])) | r.getrandbits(w) & ones(w - k[2])
                elif k[0] == "ternary":
                    v = v & k[2] | r.getrandbits(w) & ~k[2]
                sh = m.pb - kf.phv_offset - w
                phv = phv & ~(ones(w) << sh) | v << sh
        # the independent reference: the table store's lookup, the plan's action ids
        e = self.ts.lookup(self.field_values(phv, valid))
        if e is not None:
            aid = self.st.aids[(e.action, True)]
            data = self.st.image.pack_data(aid, e.data)
        else:
            aid, dvals = self.plan.default_of(self.st, self.store)
            data = self.st.image.pack_data(aid, dvals) if aid else 0
        got = m.action(phv, valid)
        assert got[:2] == (aid, data), (f"the plan's configuration: the stage model gives action {got[0]} data "
                                        f"{got[1]:x} ({got[2]}), the table store {aid} data {data:x}")
        return Packet(phv, valid, m, "plan ")


# ---- the bench ---------------------------------------------------------------------------------

class Bench:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.p = p
        name, (fn, _) = next((n, c) for n, c in CONFIGS.items() if all(p.get(k) == v for k, v in c[1].items()))
        self.name = name
        self.hw = pipeline_hw(p)
        self.cfg = compiler.compile_program(fn(), name=fn.__name__)
        self.plan = PL.plan(self.cfg, self.hw)
        self.image = self.plan.stages[0].image
        self.m = StageModel(p, self.image)
        self.lat = stage_latency(p)
        self.r = rng()
        self.edge = 0                  # rising edges so far
        self.sent: list = []           # (accept edge, packet), not yet out
        self.offered = None            # edge at which the current head was first offered
        self.done = 0
        self.sink_p = 0.0              # probability out_ready is low
        self.src_p = 0.0               # probability of no packet offered
        self.check_latency = True
        self.lat_seen: set[int] = set()

    async def init(self):
        d = self.dut
        for n in ("in_valid", "in_phv", "in_hdr_valid", "cfg_wr_en", "cfg_wr_addr", "cfg_wr_data", "act_wr_en",
                  "act_wr_action", "act_wr_slot", "act_wr_op", "tcam_wr_en", "tcam_wr_index", "tcam_wr_valid",
                  "tcam_wr_value", "tcam_wr_mask", "tcam_wr_action", "cfg_egress_shift", "cfg_egress_width",
                  "cfg_drop_value", "cfg_drop_en"):
            getattr(d, n).value = 0
        d.out_ready.value = 1
        await start(d, period_ns=5.0)

    async def tick(self):
        await FallingEdge(self.dut.clk)
        self.edge += 1
        assert not int(self.dut.tcam_wr_bad.value), "tcam_wr_bad for a write within the entries"

    async def load_actions(self):
        d, img = self.dut, self.image
        for aid, slot, word in img.writes():
            await self.tick()
            d.act_wr_en.value = 1
            d.act_wr_action.value = aid
            d.act_wr_slot.value = slot
            d.act_wr_op.value = word
        await self.tick()
        d.act_wr_en.value = 0
        d.cfg_egress_shift.value = img.egress_shift
        d.cfg_egress_width.value = img.egress_width
        d.cfg_drop_value.value = img.drop_value
        d.cfg_drop_en.value = int(img.drop_en)

    async def configure(self, cfg_writes, tcam_writes):
        """Register and TCAM writes (the stage idle), into the RTL and the model; then enough idle
        cycles for the TCAM's delayed action writes to land. tcam_writes may be a function, called
        after the register writes."""
        assert not self.sent
        d = self.dut
        for addr, word in cfg_writes:
            await self.tick()
            d.cfg_wr_en.value, d.cfg_wr_addr.value, d.cfg_wr_data.value = 1, addr, word
            self.m.cfg_write(addr, word)
        await self.tick()
        d.cfg_wr_en.value = 0
        if callable(tcam_writes):    # rows made for the new slots
            tcam_writes = tcam_writes()
        for index, valid, value, mask, word in tcam_writes:
            await self.tick()
            d.tcam_wr_en.value, d.tcam_wr_index.value, d.tcam_wr_valid.value = 1, index, valid
            d.tcam_wr_value.value, d.tcam_wr_mask.value, d.tcam_wr_action.value = value, mask, word
            self.m.tcam_write(index, bool(valid), value, mask, word)
        await self.tick()
        d.tcam_wr_en.value = 0
        for _ in range(tcam_latency(self.p) + 4):
            await self.tick()

    def output(self) -> tuple:
        d = self.dut
        return int(d.out_phv.value), int(d.out_hdr_valid.value), int(d.out_egress.value), bool(int(d.out_drop.value))

    async def cycle(self, pkt: Packet | None) -> bool:
        """One falling edge: look at the outputs, drive the inputs for the next rising edge.
        Returns True when `pkt` will be accepted at that edge."""
        d = self.dut
        await FallingEdge(d.clk)
        assert not int(d.tcam_wr_bad.value), "tcam_wr_bad without a write"
        if int(d.out_valid.value):
            assert self.sent, "out_valid without a packet in flight"
            if self.offered is None:
                self.offered = self.edge
                a_edge, c = self.sent[0]
                if self.check_latency:
                    assert self.edge - a_edge == self.lat, f"{c.what}: latency {self.edge - a_edge}, stated {self.lat}"
                    self.lat_seen.add(self.edge - a_edge)
            ready = self.r.random() >= self.sink_p
            d.out_ready.value = int(ready)
            if ready:
                a_edge, c = self.sent.pop(0)
                c.check(self.output())
                self.offered = None
                self.done += 1
        else:
            d.out_ready.value = int(self.r.random() >= self.sink_p)
        take = pkt is not None and bool(int(d.in_ready.value))
        if pkt is not None:
            d.in_valid.value = 1
            d.in_phv.value = pkt.phv
            d.in_hdr_valid.value = pkt.valid
        else:
            d.in_valid.value = 0
            if self.r.random() < 0.1:          # garbage while in_valid is low
                d.in_phv.value = self.r.getrandbits(self.m.pb)
                d.in_hdr_valid.value = self.r.getrandbits(self.m.vb)
        if take:      # the handshake is in this cycle (the house latency convention counts from it)
            self.sent.append((self.edge, pkt))
        self.edge += 1
        return take

    async def run(self, pkts: list[Packet], burst: bool = False) -> int:
        """Offer the packets (random gaps unless burst); returns the cycles in which a packet was
        offered and not taken."""
        refused = 0
        for c in pkts:
            while self.r.random() < self.src_p and not burst:
                await self.cycle(None)
            while not await self.cycle(c):
                refused += 1
                assert refused < 5000, "in_ready stuck low"
        return refused

    async def drain(self, limit: int = 400):
        self.sink_p = 0.0
        for _ in range(limit):
            if not self.sent:
                break
            await self.cycle(None)
        assert not self.sent, f"{len(self.sent)} packets never came out"
        for _ in range(3):
            await self.cycle(None)

    def random_packets(self, n: int) -> list[Packet]:
        r, m = self.r, self.m
        out = []
        for _ in range(n):
            if r.random() < 0.5:
                phv, valid = hitting_packet(r, m)
            else:
                phv, valid = rand_phv(r, m)
            out.append(Packet(gated(r, m, phv), valid, m))
        return out

    async def traffic(self, make, n: int, burst: bool = True):
        """Gaps with the output ready (latency asserted), a back-to-back burst (one per cycle), then
        random gaps and backpressure."""
        self.sink_p, self.src_p, self.check_latency = 0.0, 0.5, True
        await self.run(make(n))
        await self.drain()
        if burst:
            k = 3 * self.p["FIFO_DEPTH"]
            refused = await self.run(make(k), burst=True)
            assert refused == 0, f"back to back with out_ready high: in_ready low in {refused} of {k} cycles"
            await self.drain()
        self.sink_p, self.src_p, self.check_latency = 0.4, 0.3, False
        await self.run(make(n))
        await self.drain()


@cocotb.test()
async def random_configs(dut):
    """The plan's configuration, then random configurations, each with exact latency, a
    back-to-back burst and random backpressure; then a long output stall."""
    b = Bench(dut)
    await b.init()
    await b.load_actions()
    ph = PlanPhase(b.r, b.plan, b.m)
    await b.configure(ph.cfg_writes, ph.tcam_writes)
    await b.traffic(lambda n: [ph.packet() for _ in range(n)], 60)
    for i in range(10):
        await b.configure(random_config(b.r, b.m, b.image, gate=i % 2 == 1), lambda: rand_rows(b.r, b.m, b.image))
        await b.traffic(b.random_packets, 35, burst=i % 3 == 0)
    # a long stall: the credit counter must stop the input before a FIFO overflows
    b.sink_p, b.check_latency = 1.0, False
    n = 4 * b.p["FIFO_DEPTH"] + 2 * b.lat
    pkts = b.random_packets(n)
    taken = 0
    for _ in range(n):
        taken += await b.cycle(pkts[taken])
    assert taken < n, f"in_ready never dropped while out_ready was low for {n} cycles"
    b.sink_p = 0.2
    await b.run(pkts[taken:], burst=True)
    await b.drain()
    assert b.done > 0 and b.lat_seen == {b.lat}
    st = b.m.stats
    dut._log.info(f"{b.name}: {b.done} packets ({st['row']} row hits, {st['shadow']} of them on more than one "
                  f"row, {st['miss']} misses ({st['miss_data']} with a default action that reads its data), "
                  f"{st['gate']} gate closed), latency {b.lat} (PipelineHW.stage_latency() "
                  f"{b.hw.stage_latency()}), {taken} accepted during a {n}-cycle output stall")
    assert min(st["row"], st["miss"]) > 100 and min(st["gate"], st["shadow"], st["miss_data"]) > 30, st


@cocotb.test()
async def reset_in_flight(dut):
    """A reset with packets in the stage and the output stalled: nothing comes out afterwards,
    in_ready is high again, the registers and the TCAM are cleared (every packet gets action 0),
    the action programs stay; reconfigured, the stage works on."""
    b = Bench(dut)
    await b.init()
    await b.load_actions()
    await b.configure(random_config(b.r, b.m, b.image, gate=True), lambda: rand_rows(b.r, b.m, b.image))
    b.sink_p, b.check_latency = 1.0, False
    pkts = b.random_packets(b.p["FIFO_DEPTH"])
    taken = 0
    for _ in range(len(pkts)):
        taken += await b.cycle(pkts[taken])
    dut.in_valid.value = 0
    dut.rst.value = 1
    await FallingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    b.edge += 2
    b.sent.clear()
    b.offered = None
    b.m.reset()
    for _ in range(b.lat + 4):
        await b.tick()
        assert not int(dut.out_valid.value), "a packet from before the reset came out"
    assert int(dut.in_ready.value)
    b.sink_p, b.src_p, b.check_latency = 0.0, 0.3, True
    await b.run(b.random_packets(30))
    await b.drain()
    await b.configure(random_config(b.r, b.m, b.image, gate=True), lambda: rand_rows(b.r, b.m, b.image))
    b.sink_p, b.check_latency = 0.3, False
    await b.run(b.random_packets(40))
    await b.drain()


# ---- without a simulator -----------------------------------------------------------------------

def test_reference_model_on_the_plan():
    """The plan's configuration gives, in the model, the table store's action for every key."""
    for name, (fn, p) in CONFIGS.items():
        hw = pipeline_hw(p)
        plan = PL.plan(compiler.compile_program(fn(), name=fn.__name__), hw)
        m = StageModel(p, plan.stages[0].image)
        ph = PlanPhase(random.Random(name), plan, m)
        for addr, word in ph.cfg_writes:
            m.cfg_write(addr, word)
        for w in ph.tcam_writes:
            m.tcam_write(w[0], bool(w[1]), *w[2:])
        hits = sum(ph.packet().what.startswith("packet plan (row") for _ in range(300))
        assert 60 < hits < 300, f"{name}: {hits} of 300 packets hit"


@pytest.mark.parametrize("config", list(CONFIGS))
def test_stage_latency_formula(config):
    """PipelineHW.stage_latency() is the stage's latency (the simulation asserts stage_latency(),
    the header's formula with p4/docs/tcam.md's TCAM latency)."""
    p = CONFIGS[config][1]
    assert pipeline_hw(p).stage_latency() == stage_latency(p)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_p4_stage(config):
    runner.run("fp_p4_stage", __name__, CONFIGS[config][1])
