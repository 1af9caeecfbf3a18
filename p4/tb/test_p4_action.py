"""fp_p4_action: the action unit against the reference interpreter's actions, loaded by
fastpath.p4.action_load from the compiler's configuration.

Programs: the shared BMv2 programs the compiler accepts (shared/vectors/bmv2; skipped when absent)
and the hand-made ones of fastpath.p4.samples (MPLS push of 1-3 labels and pop, VLAN push/pop/
retag, TTL decrement, every ALU operation with temporaries, header copy, a 128-bit move, exit and
digest). One build of the unit (PHV_BITS 843: every program's PHV, padded at the LSB end, and a
width that is not whole bytes) runs them all: each program's op words are written through
cfg_wr_*, then random packets go through it: random PHVs (zeros, all-ones, small and random field
values), random validity, a random action of the program with random parameters. The expected
PHV, validity, egress port and drop come from the interpreter running the action's ops on the same
state (Interpreter.run_ops; fastpath.p4.action_load.phv_from_state/state_from_phv convert), exit
and digest from the action's ops.

Per program two phases: packets with random gaps and the output always ready (every packet's
latency asserted: out_valid exactly OPS + 9 cycles after the cycle of in_valid && in_ready, and back-to-back
bursts come out back to back), then random backpressure on both sides (in_valid and out_ready
random; data and order checked). A last test resets the unit with packets in flight.

Inputs change on the falling edge; handshakes happen on the rising edge (in_ready and out_valid
are registers, read at the falling edge before it). The plain pytest functions check the loader
and its bit-exact model (fastpath.p4.action_load.ActionModel) against the interpreter and the
loader's one-line refusals, without a simulator.
"""
from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import FallingEdge

from fastpath.p4 import action_load as L
from fastpath.p4 import compiler
from fastpath.p4 import samples as S
from fastpath.p4.interp import Interpreter
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

BMV2 = Path(__file__).resolve().parents[2] / ".." / "shared" / "vectors" / "bmv2"
HW = L.ActionHW(PHV_BITS=843, VALID_BITS=8, DATA_BITS=128, OPS=8, ACTIONS=16, TEMPS=2)
SAMPLES = (S.mpls_push, S.vlan_push_pop, S.ipv4_ttl, S.alu_mix)


def programs() -> list[tuple[str, compiler.Config]]:
    out = []
    for f in sorted(BMV2.glob("*.json")) if BMV2.is_dir() else []:
        out.append((f.stem, compiler.compile_file(f)))
    for fn in SAMPLES:
        out.append((fn.__name__, compiler.compile_program(fn(), name=fn.__name__)))
    return out


def rand_value(r: random.Random, w: int) -> int:
    k = r.random()
    if k < 0.15:
        return 0
    if k < 0.3:
        return (1 << w) - 1
    if k < 0.45:
        return r.randrange(min(1 << w, 16))
    return r.getrandbits(w)


class Case:
    """One packet: the unit's inputs and the interpreter's outputs."""

    def __init__(self, r: random.Random, cfg, it: Interpreter, img: L.ActionImage, hw: L.ActionHW):
        s = it._new_state()
        for inst in cfg.instances:
            for f in cfg.header_type(inst.type).fields:
                s.vals[inst.name][f.name] = rand_value(r, f.width)
            s.valid[inst.name] = r.random() < 0.7
        a = r.choice(cfg.actions)
        vals = [rand_value(r, w) for _, w in a.params]
        self.aid = a.id
        self.phv, self.valid = L.phv_from_state(cfg, s, hw.PHV_BITS)
        self.data = img.pack_data(a.id, vals)
        s2 = s.clone()
        it.run_ops(a.ops, s2, vals)
        self.want_phv, self.want_valid = L.phv_from_state(cfg, s2, hw.PHV_BITS)
        eg_field = "egress_port" if cfg.target == "l2_switch" else "egress_spec"
        self.want_egress = s2.vals["standard_metadata"][eg_field]
        self.want_drop = self.want_egress == compiler.DROP_PORT
        ops = [o.op for o in a.ops]
        cut = ops.index("exit") if "exit" in ops else len(ops)
        self.want_exit = "exit" in ops
        self.want_digest = "digest" in ops[:cut]
        self.what = f"{cfg.program} {a.name}"

    def check(self, got: tuple):
        phv, valid, eg, drop, ex, dig = got
        assert phv == self.want_phv, f"{self.what}: PHV {phv:x} != {self.want_phv:x}"
        assert valid == self.want_valid, f"{self.what}: validity {valid:b} != {self.want_valid:b}"
        assert (eg, drop) == (self.want_egress, self.want_drop), f"{self.what}: egress {eg} drop {drop}"
        assert (ex, dig) == (self.want_exit, self.want_digest), f"{self.what}: exit {ex} digest {dig}"


# ---- without a simulator: the loader's model against the interpreter, the refusals -------------

@pytest.mark.parametrize("name,cfg", programs(), ids=lambda x: x if isinstance(x, str) else "")
def test_model_matches_interpreter(name, cfg):
    r = random.Random(name)
    it = Interpreter(cfg)
    img = L.load_actions(cfg, HW)
    model = L.ActionModel(img)
    for _ in range(300 if cfg.actions else 0):
        c = Case(r, cfg, it, img, HW)
        c.check(model.run(c.phv, c.valid, c.aid, c.data))


def test_grouping_fits_sr_mpls_in_few_slots():
    """Three labels pushed in one action: 5 slots (validity shift, two grouped 64/32-bit
    label writes with set_valid, Ethertype, port); a VLAN push in 5."""
    img = L.load_actions(compiler.compile_program(S.mpls_push()), HW)
    used = {p.name: sum(op.describe() != "nop" for op in p.ops) for p in img.programs.values()}
    assert used["mpls_push1"] == 4 and used["mpls_push2"] == 4 and used["mpls_push3"] == 5, used
    img = L.load_actions(compiler.compile_program(S.vlan_push_pop()), HW)
    assert sum(op.describe() != "nop" for op in img.programs[1].ops) == 5


def _one_action(prims, params=(), extra=None):
    p = S._byte_aligned(S.minimal())
    S.add_header(p, "h", "h_t", [("a", 32), ("b", 16), ("w", 96), ("c", 8)])
    S.add_header(p, "st[0]", "t_t", [("v", 16)])
    S.add_header(p, "x", "t_t", [])
    S.add_header(p, "st[1]", "t_t", [])
    p["header_stacks"] = [{"name": "st", "id": 0, "size": 2, "header_type": "t_t", "header_ids": [4, 6]}]
    p["actions"].append(S.action(1, "act", prims, list(params)))
    if extra:
        extra(p)
    return compiler.compile_program(p)


F = S.field


@pytest.mark.parametrize("prims,params,hw,msg", [
    ([S.assign(F("h", "a"), S.expr("+", F("h", "a"), S.const(1)))] * 9, (), HW,
     'action "act": needs 57 op slots (9 ops and 48 waits for earlier results); the action unit has 8'),
    ([S.assign(F("h", "a"), S.expr("+", F("h", "a"), S.const(1))), S.assign(F("h", "b"), F("h", "a"))], (),
     L.ActionHW(PHV_BITS=843, OPS=4), "needs 8 op slots (2 ops and 6 waits for earlier results)"),
    ([S.assign(F("h", "w"), S.expr("+", F("h", "w"), S.const(1)))], (), HW,
     "add into a field of 96 bits: the ALU is 64 bits wide"),
    ([S.assign(F("h", "a"), S.expr("+", S.expr("+", F("h", "a"), F("h", "b")),
                                  S.expr("+", F("h", "c"), S.expr("+", F("h", "b"), F("h", "a")))))], (),
     L.ActionHW(PHV_BITS=843, TEMPS=1), "needs more than 1 temporaries at once"),
    ([S.assign(F("h", "a"), S.param(0))], [("p", 200)], HW,
     'action "act": action data of 200 bits (parameters): the action data is 128 bits'),
    ([S.prim("push", {"type": "header_stack", "value": "st"}, S.const(1))], (), HW,
     "the elements of stack 'st' are not consecutive in the PHV and the validity bits"),
    ([], (), L.ActionHW(PHV_BITS=400), "PHV of 472 bits: the action unit has PHV_BITS = 400"),
    ([], (), L.ActionHW(PHV_BITS=843, VALID_BITS=4), "7 header instances: the action unit has VALID_BITS = 4"),
    ([], (), L.ActionHW(PHV_BITS=843, ACTIONS=2), 'action "act": action id 2: the action unit has ACTIONS = 2'),
])
def test_loader_refusals(prims, params, hw, msg):
    def extra(p):
        if hw.ACTIONS == 2:
            p["actions"][-1]["id"] = 2
    cfg = _one_action(prims, params, extra)
    with pytest.raises(L.LoadError) as e:
        L.load_actions(cfg, hw)
    text = str(e.value)
    assert "\n" not in text and msg in text, text


def test_stack_field_and_wide_operands_are_refused():
    cfg = _one_action([S.assign(F("h", "a"), S.expr("&", F("h", "w"), S.const(1)))])
    with pytest.raises(L.LoadError, match="an operand of 96 bits: the ALU is 64 bits wide"):
        L.load_actions(cfg, HW)
    cfg = _one_action([S.assign(F("h", "a"), S.expr("+", F("h", "a"), S.const(1 << 70)))])
    with pytest.raises(L.LoadError, match="wider than the 64-bit ALU"):
        L.load_actions(cfg, HW)


def test_op_word_layout_matches_rtl():
    """OpLayout's width is the RTL's OP_WIDTH formula; encode/decode round-trip."""
    for hw in (HW, L.ActionHW(PHV_BITS=16, VALID_BITS=1, DATA_BITS=8, TEMPS=1),
               L.ActionHW(PHV_BITS=4096, VALID_BITS=64, DATA_BITS=1024, TEMPS=4)):
        lay = L.OpLayout(hw)
        viw = max(1, (hw.VALID_BITS - 1).bit_length())
        tiw = max(1, (hw.TEMPS - 1).bit_length())
        assert lay.width == 102 + 2 * (hw.PHV_BITS - 1).bit_length() + (hw.DATA_BITS - 1).bit_length() + tiw + 3 * viw
        r = random.Random(hw.PHV_BITS)
        for _ in range(50):
            v = {n: r.getrandbits(w) for n, w in lay.fields}
            assert lay.decode(lay.encode(v)) == v


# ---- the RTL -----------------------------------------------------------------------------------

class Bench:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.hw = L.ActionHW(**{k: p[k] for k in ("PHV_BITS", "VALID_BITS", "DATA_BITS", "OPS", "ACTIONS", "TEMPS")})
        self.lat = self.hw.latency
        self.r = rng()
        self.edge = 0                  # rising edges so far
        self.sent: list = []           # (accept edge, case), not yet out
        self.offered = None            # edge at which the current head was first offered
        self.done = 0
        self.sink_p = 0.0              # probability out_ready is low
        self.src_p = 0.0               # probability of no packet offered
        self.check_latency = True

    async def init(self):
        d = self.dut
        d.in_valid.value = 0
        d.out_ready.value = 1
        d.cfg_wr_en.value = 0
        for n in ("in_phv", "in_hdr_valid", "in_action", "in_data", "cfg_wr_action", "cfg_wr_slot", "cfg_wr_op",
                  "cfg_egress_shift", "cfg_egress_width", "cfg_drop_value", "cfg_drop_en"):
            getattr(d, n).value = 0
        await start(d, period_ns=5.0)

    async def load(self, img: L.ActionImage):
        d = self.dut
        for aid, slot, word in img.writes():
            await FallingEdge(d.clk)
            self.edge += 1
            d.cfg_wr_en.value = 1
            d.cfg_wr_action.value = aid
            d.cfg_wr_slot.value = slot
            d.cfg_wr_op.value = word
        await FallingEdge(d.clk)
        self.edge += 1
        d.cfg_wr_en.value = 0
        d.cfg_egress_shift.value = img.egress_shift
        d.cfg_egress_width.value = img.egress_width
        d.cfg_drop_value.value = img.drop_value
        d.cfg_drop_en.value = int(img.drop_en)

    def output(self) -> tuple:
        d = self.dut
        return (int(d.out_phv.value), int(d.out_hdr_valid.value), int(d.out_egress.value), bool(int(d.out_drop.value)),
                bool(int(d.out_exit.value)), bool(int(d.out_digest.value)))

    async def cycle(self, case: Case | None):
        """One falling edge: look at the outputs, drive the inputs for the next rising edge.
        Returns True when `case` will be accepted at that edge."""
        d = self.dut
        await FallingEdge(d.clk)
        if int(d.out_valid.value):
            assert self.sent, "out_valid without a packet in flight"
            if self.offered is None:
                self.offered = self.edge
                a_edge, c = self.sent[0]
                if self.check_latency:
                    assert self.edge - a_edge == self.lat, f"{c.what}: latency {self.edge - a_edge}, stated {self.lat}"
            ready = self.r.random() >= self.sink_p
            d.out_ready.value = int(ready)
            if ready:
                a_edge, c = self.sent.pop(0)
                c.check(self.output())
                self.offered = None
                self.done += 1
        else:
            d.out_ready.value = int(self.r.random() >= self.sink_p)
        take = case is not None and bool(int(d.in_ready.value))
        if case is not None:
            d.in_valid.value = 1
            d.in_phv.value = case.phv
            d.in_hdr_valid.value = case.valid
            d.in_action.value = case.aid
            d.in_data.value = case.data
        else:
            d.in_valid.value = 0
            if self.r.random() < 0.1:          # garbage while in_valid is low (now and then: Icarus
                d.in_phv.value = self.r.getrandbits(self.hw.PHV_BITS)   # re-evaluates the PHV logic)
        if take:      # the handshake is in this cycle (the house latency convention counts from it)
            self.sent.append((self.edge, case))
        self.edge += 1
        return take

    async def run(self, cases: list[Case], burst: bool = False):
        for c in cases:
            while self.r.random() < self.src_p and not burst:
                await self.cycle(None)
            while not await self.cycle(c):
                pass

    async def drain(self, limit: int = 200):
        for _ in range(limit):
            if not self.sent:
                break
            await self.cycle(None)
        assert not self.sent, f"{len(self.sent)} packets never came out"


@cocotb.test()
async def random_programs(dut):
    """Every program: its op words loaded, random packets with exact latency, then random
    backpressure; outputs equal to the interpreter's."""
    b = Bench(dut)
    await b.init()
    n_phase = 60 if b.hw.PHV_BITS > 600 else 100
    for name, cfg in programs():
        if not cfg.actions:
            continue
        img = L.load_actions(cfg, b.hw)
        await b.load(img)
        it = Interpreter(cfg)
        cases = lambda n: [Case(b.r, cfg, it, img, b.hw) for _ in range(n)]  # noqa: E731
        b.sink_p, b.src_p, b.check_latency = 0.0, 0.4, True
        await b.run(cases(n_phase))
        await b.run(cases(12), burst=True)      # back to back: one per cycle, each exactly on time
        await b.drain()
        b.sink_p, b.src_p, b.check_latency = 0.4, 0.3, False
        await b.run(cases(n_phase))
        b.sink_p = 0.0
        await b.drain()
    assert b.done > 0


@cocotb.test()
async def reset_in_flight(dut):
    """A reset with packets in the pipeline and the output buffer full: nothing comes out
    afterwards, in_ready is high again, and the unit works on."""
    b = Bench(dut)
    await b.init()
    cfg = compiler.compile_program(S.ipv4_ttl(), name="ipv4_ttl")
    img = L.load_actions(cfg, b.hw)
    await b.load(img)
    it = Interpreter(cfg)
    b.sink_p = 1.0
    await b.run([Case(b.r, cfg, it, img, b.hw) for _ in range(6)], burst=True)
    dut.in_valid.value = 0
    dut.rst.value = 1
    await FallingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    b.edge += 2
    b.sent.clear()
    b.offered = None
    for _ in range(b.lat + 4):
        await FallingEdge(dut.clk)
        b.edge += 1
        assert not int(dut.out_valid.value), "a packet from before the reset came out"
    assert int(dut.in_ready.value)
    b.sink_p = 0.0
    await b.run([Case(b.r, cfg, it, img, b.hw) for _ in range(20)])
    await b.drain()


def test_p4_action():
    runner.run("fp_p4_action", __name__, HW.params())
