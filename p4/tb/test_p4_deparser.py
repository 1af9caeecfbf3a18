"""fp_p4_deparser: new packets from PHVs and original packets, against the reference interpreter's
deparser (Interpreter.deparse: the checksums updated, the valid headers in deparser order, then
the payload), with the configuration from fastpath.p4.action_load.load_deparser.

Programs: the shared BMv2 programs the compiler accepts (shared/vectors/bmv2; skipped when absent)
and fastpath.p4.samples' MPLS push/pop (3-label stack), VLAN push/pop, IPv4 TTL with a conditional
IPv4 checksum and the ALU mix (four headers). Two kinds of packets per program:
- parsed: a random header stack deparsed by the interpreter, a random payload, parsed back by the
  interpreter (so the PHV, validity and payload offset are what the parser produces), then a
  random action of the program run on it (MPLS labels pushed and popped, VLAN tags pushed and
  removed, TTL decremented: header insertion and removal, every shift amount);
- raw: random field values, random validity, a random packet and a random payload offset
  (including past the end, and no valid header at all), so that every header/payload alignment
  occurs.
About 5% of descriptors ask for a drop; tuser[0] (bad frame) is random on the last input beat and
must come out on the output's last beat.

Per program and width, phase "timing": packets back to back with no backpressure: every output
beat must appear at exactly the cycle the cycle model (action_load.deparser_schedule) gives (which
asserts the stated latency, 5 + the FSM steps before the first output beat, and the throughput);
then isolated packets, each with its latency asserted through fastpath.sim.tb's latencies(); then
phase "stress": random pauses on the input, the output and the descriptors, data checked. Output
frames are checked against the interpreter byte for byte, and stat_drop pulses are counted.
"""
from __future__ import annotations

import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge

from fastpath.p4 import action_load as L
from fastpath.p4 import compiler
from fastpath.p4 import samples as S
from fastpath.p4.interp import Interpreter
from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness, frame
from fastpath.sim.monitor import BeatMonitor
from fastpath.sim.tb import params, rng, sim_name, start

BMV2 = Path(__file__).resolve().parents[2] / ".." / "shared" / "vectors" / "bmv2"
SAMPLES = (S.mpls_push, S.vlan_push_pop, S.ipv4_ttl, S.alu_mix)
PHV_BITS = 680
BASE = dict(PHV_BITS=PHV_BITS, VALID_BITS=12, HDRS=8, CSUMS=2)


def programs() -> list[tuple[str, compiler.Config]]:
    out = []
    for f in sorted(BMV2.glob("*.json")) if BMV2.is_dir() else []:
        out.append((f.stem, compiler.compile_file(f)))
    for fn in SAMPLES:
        out.append((fn.__name__, compiler.compile_program(fn(), name=fn.__name__)))
    return out


def rand_value(r: random.Random, w: int) -> int:
    k = r.random()
    if k < 0.1:
        return 0
    if k < 0.2:
        return (1 << w) - 1
    return r.getrandbits(w)


class Packet:
    """One packet: the descriptor, the original bytes, the expected output (None: nothing)."""

    def __init__(self, r: random.Random, cfg, it: Interpreter, img: L.DeparserImage, bw: int):
        hdrs = [cfg.instance(h) for h in cfg.deparser]
        s = it._new_state()
        for inst in cfg.instances:
            for f in cfg.header_type(inst.type).fields:
                s.vals[inst.name][f.name] = rand_value(r, f.width)
            if not inst.metadata:
                s.valid[inst.name] = r.random() < 0.6
        payload = bytes(r.getrandbits(8) for _ in range(r.choice([0, 1, r.randrange(2, 2 * bw + 3),
                                                                   r.randrange(2, 120)])))
        if r.random() < 0.55:       # parsed: what the parser makes of a real header stack
            s0 = s.clone()
            s0.payload = b""
            data = it.deparse(s0) + payload
            s = it._new_state()
            it.parse(s, data)
            off = len(data) - len(s.payload)
            if cfg.actions and r.random() < 0.8:
                a = r.choice(cfg.actions)
                it.run_ops(a.ops, s, [rand_value(r, w) for _, w in a.params])
        else:                       # raw: any PHV, any packet, any offset
            data = bytes(r.getrandbits(8) for _ in range(r.randrange(1, 3 * bw + 40)))
            off = r.choice([0, r.randrange(0, len(data) + 1), len(data), len(data) + r.randrange(1, 9)])
            if r.random() < 0.1:
                for h in hdrs:
                    s.valid[h.name] = False
        if not data:
            data = b"\x00"
        self.data = data
        self.off = off
        self.drop = r.random() < 0.05
        self.bad = r.random() < 0.2
        self.phv, self.valid = L.phv_from_state(cfg, s, PHV_BITS)
        s2 = s.clone()
        s2.payload = data[off:]
        out = it.deparse(s2)
        self.want = None if (self.drop or not out) else out
        beats = [bw] * ((len(data) - 1) // bw) + [len(data) - bw * ((len(data) - 1) // bw)]
        self.cycles, self.pushes = L.deparser_schedule(bw, L.deparser_runs(img, self.valid), off, beats, self.drop)
        assert (len(self.pushes) > 0) == (self.want is not None)
        if self.want is not None:
            assert sum(k for _, k, _ in self.pushes) == len(self.want) and self.pushes[-1][2]


# ---- without a simulator: the loader, its checksum model, the refusals -------------------------

@pytest.mark.parametrize("name,cfg", programs(), ids=lambda x: x if isinstance(x, str) else "")
def test_checksum_model_matches_interpreter(name, cfg):
    """deparser_checksum (the checksum unit) == the interpreter's checksum update."""
    img = L.load_deparser(cfg, L.DeparserHW(**BASE))
    it = Interpreter(cfg)
    r = random.Random(name)
    for _ in range(200 if img.checksums else 0):
        s = it._new_state()
        for inst in cfg.instances:
            for f in cfg.header_type(inst.type).fields:
                s.vals[inst.name][f.name] = rand_value(r, f.width)
            s.valid[inst.name] = inst.metadata or r.random() < 0.8
        phv, valid = L.phv_from_state(cfg, s, PHV_BITS)
        pb = phv.to_bytes(PHV_BITS // 8, "big")
        s2 = s.clone()
        it._checksums(s2, verify=False)
        for ck, u in zip([c for c in cfg.checksums if c.update], img.checksums):
            want = s2.vals[ck.target[1]][ck.target[2]]
            apply = (valid >> u.tgt_vbit) & 1 and (u.cond_vbit is None or (valid >> u.cond_vbit) & 1)
            got = L.deparser_checksum(u, pb) if apply else s.vals[ck.target[1]][ck.target[2]]
            assert got == want


def _csum_program(inputs, cond=None, target="c"):
    p = S._byte_aligned(S.minimal())
    S.add_header(p, "h", "h_t", [("a", 16), ("b", 8), ("c", 16), ("d", 8), ("e", 4), ("f", 4)])
    S.add_header(p, "h2", "h_t", [])
    p["deparsers"][0]["order"] = ["ethernet", "h", "h2"]
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "csum16", "input": inputs}]
    p["checksums"] = [{"name": "ck", "id": 0, "target": ["h", target], "type": "generic", "calculation": "calc",
                       "verify": False, "update": True, "if_cond": cond}]
    return compiler.compile_program(p)


F = S.field


@pytest.mark.parametrize("inputs,cond,msg", [
    ([F("h", "a"), F("h2", "a")], None, 'checksum "ck": input h2.a: the checksum unit sums fields of the target\'s '
                                         "header (h) only"),
    ([F("h", "a"), F("h", "d")], None, "input h.d is not aligned with the other inputs"),
    ([F("h", "a"), F("h", "b"), F("h", "c")], None, "the target is one of its own inputs"),
    ([F("h", "a"), F("h", "e"), {"type": "hexstr", "value": "0x5", "bitwidth": 4}], None,
     "the inputs cover part of PHV byte"),
    ([F("h", "a")], S.expr("==", F("h", "b"), S.const(1)), "a condition other than a header's validity"),
])
def test_deparser_loader_refusals(inputs, cond, msg):
    cfg = _csum_program(inputs, cond)
    with pytest.raises(L.LoadError) as e:
        L.load_deparser(cfg, L.DeparserHW(**BASE))
    assert "\n" not in str(e.value) and msg in str(e.value), str(e.value)


def test_deparser_loader_accepts_swapped_and_constant_inputs():
    """Inputs at odd PHV bytes are summed byte-swapped; constants become the addend."""
    cfg = _csum_program([F("h", "c"), F("h", "d"), {"type": "hexstr", "value": "0x1234", "bitwidth": 16},
                         F("h", "e"), F("h", "f")], target="a")
    img = L.load_deparser(cfg, L.DeparserHW(**BASE))
    (u,) = img.checksums
    assert u.swap and u.addend == 0x3412 and len(u.bytes) == 4     # the constant straddles two words
    it = Interpreter(cfg)
    r = random.Random(3)
    for _ in range(50):
        s = it._new_state()
        for f in cfg.header_type("h_t").fields:
            s.vals["h"][f.name] = r.getrandbits(f.width)
        s.valid["h"] = True
        phv, _ = L.phv_from_state(cfg, s, PHV_BITS)
        s2 = s.clone()
        it._checksums(s2, verify=False)
        assert L.deparser_checksum(u, phv.to_bytes(PHV_BITS // 8, "big")) == s2.vals["h"]["a"]


def test_deparser_geometry_refusals():
    cfg = compiler.compile_program(S.minimal())          # metadata of 159 bits: Ethernet at bit 159
    with pytest.raises(L.LoadError, match="header 'ethernet' starts at PHV bit 159, not on a byte boundary"):
        L.load_deparser(cfg, L.DeparserHW(**BASE))
    cfg = compiler.compile_program(S.mpls_push())
    with pytest.raises(L.LoadError, match="deparser of 5 headers: the deparser has HDRS = 4"):
        L.load_deparser(cfg, L.DeparserHW(PHV_BITS=PHV_BITS, VALID_BITS=8, HDRS=4))
    with pytest.raises(L.LoadError, match="1 checksums to update: the deparser has CSUMS = 0"):
        L.load_deparser(cfg, L.DeparserHW(PHV_BITS=PHV_BITS, VALID_BITS=8, HDRS=8, CSUMS=0))


# ---- the RTL -----------------------------------------------------------------------------------

class Bench:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.bw = p["DATA_WIDTH"] // 8
        self.hw = L.DeparserHW(DATA_WIDTH=p["DATA_WIDTH"], PHV_BITS=p["PHV_BITS"], VALID_BITS=p["VALID_BITS"],
                               HDRS=p["HDRS"], CSUMS=p["CSUMS"])
        self.r = rng()
        self.h = AxisHarness(dut, dut.clk, dut.rst)
        self.mi = BeatMonitor(dut, "s_axis", dut.clk, dut.rst, fields=("tlast",))
        self.mo = BeatMonitor(dut, "m_axis", dut.clk, dut.rst, check=True)
        self.drops = 0
        self.desc: list[Packet] = []
        self.desc_p = 0.0
        cocotb.start_soon(self._count_drops())

    async def init(self):
        d = self.dut
        d.phv_valid.value = 0
        for n in ("phv", "phv_hdr_valid", "phv_payload", "phv_drop", "cfg_wr_en", "cfg_wr_addr", "cfg_wr_data"):
            getattr(d, n).value = 0
        await start(d, period_ns=5.0)
        cocotb.start_soon(self._drive_desc())

    async def _count_drops(self):
        while True:
            await RisingEdge(self.dut.clk)
            if str(self.dut.stat_drop.value) == "1":
                self.drops += 1

    async def _drive_desc(self):
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            if self.desc and self.r.random() >= self.desc_p:
                p = self.desc[0]
                d.phv_valid.value = 1
                d.phv.value = p.phv
                d.phv_hdr_valid.value = p.valid
                d.phv_payload.value = p.off
                d.phv_drop.value = int(p.drop)
                if int(d.phv_ready.value):
                    self.desc.pop(0)
            else:
                d.phv_valid.value = 0
                if self.r.random() < 0.05:      # garbage while phv_valid is low (now and then:
                    d.phv.value = self.r.getrandbits(PHV_BITS)   # a new PHV every cycle slows Icarus 10x)

    async def configure(self, img: L.DeparserImage):
        d = self.dut
        for addr, data in img.writes():
            await FallingEdge(d.clk)
            d.cfg_wr_en.value = 1
            d.cfg_wr_addr.value = addr
            d.cfg_wr_data.value = data
        await FallingEdge(d.clk)
        d.cfg_wr_en.value = 0

    def check_frames(self, pkts, frames):
        want = [p for p in pkts if p.want is not None]
        assert len(frames) == len(want), f"{len(frames)} frames out, {len(want)} expected"
        for p, f in zip(want, frames):
            assert f.data == p.want, f"frame differs:\n got  {f.data.hex()}\n want {p.want.hex()}"
            assert f.bad == int(p.bad), "tuser[0] not carried to the last beat"

    async def run(self, pkts, timing: bool):
        """Descriptors first (all of them when timing), then the packets back to back."""
        mo_n, mi_n, d0 = len(self.mo.frames), len(self.mi.frames), self.drops
        self.desc += pkts
        if timing:      # the contexts wait in the descriptor pipeline before the packets come
            await ClockCycles(self.dut.clk, 30)
        await self.h.send([frame(p.data, bad=p.bad) for p in pkts])
        n_out = sum(p.want is not None for p in pkts)
        for _ in range(200_000):
            if len(self.mo.frames) - mo_n >= n_out and len(self.mi.frames) - mi_n >= len(pkts) and not self.desc:
                break
            await RisingEdge(self.dut.clk)
        await ClockCycles(self.dut.clk, 30)
        frames = self.mo.frames[mo_n:]
        self.check_frames(pkts, frames)
        assert self.drops - d0 == len(pkts) - n_out, f"stat_drop pulsed {self.drops - d0} times"
        if timing:
            t = self.mi.frames[mi_n].first_beat + 1          # the FSM's first cycle (input register)
            beats = [b for f in frames for b in f.beats]
            want = []
            for p in pkts:
                want += [(t + c + 4, k, last) for c, k, last in p.pushes]
                t += p.cycles
            got = [(b.cycle, bin(b["tkeep"]).count("1"), bool(b["tlast"])) for b in beats]
            assert got == want, f"output beats (cycle, bytes, last):\n got  {got[:12]}\n want {want[:12]}"


def _cases(b: Bench, cfg, it, img, n):
    return [Packet(b.r, cfg, it, img, b.bw) for _ in range(n)]


@cocotb.test()
async def programs_timing_and_stress(dut):
    b = Bench(dut)
    await b.init()
    quick = sim_name() == "icarus"
    n_time, n_stress = (8, 12) if quick else (16, 30)
    for name, cfg in programs():
        img = L.load_deparser(cfg, b.hw)
        await b.configure(img)
        it = Interpreter(cfg)
        # timing: back to back, no backpressure, every output beat at its modelled cycle
        b.h.backpressure(b.r)
        b.desc_p = 0.0
        await b.run(_cases(b, cfg, it, img, n_time), timing=True)
        # isolated packets: the stated latency, 5 + the FSM steps before the first output beat
        for p in _cases(b, cfg, it, img, 3):
            mi, mo = len(b.mi.frames), len(b.mo.frames)
            await b.run([p], timing=True)
            if p.want is not None:
                lat = b.mo.frames[mo].first_valid - b.mi.frames[mi].first_beat
                assert lat == 5 + p.pushes[0][0], f"latency {lat}, stated {5 + p.pushes[0][0]}"
        # stress: random pauses everywhere
        b.h.backpressure(b.r, source_p=0.3, sink_p=0.4)
        b.desc_p = 0.5
        await b.run(_cases(b, cfg, it, img, n_stress), timing=False)


def _scattered() -> dict:
    """Eight headers of 1 to 4 bytes deparsed in the reverse of their PHV order: no header
    continues another, so every valid header is a run of its own and the next run may be up to
    seven slots on (the run look-up's pointer doubling)."""
    p = S._byte_aligned(S.minimal())
    for i in range(7):
        S.add_header(p, f"x{i}", f"x{i}_t", [("v", 8 * (1 + i % 4))])
    p["deparsers"][0]["order"] = [f"x{i}" for i in reversed(range(7))] + ["ethernet"]
    return p


@cocotb.test()
async def header_lengths_every_alignment(dut):
    """Every combination of valid headers: the ALU mix (14-, 33-, 6- and 6-byte headers, one
    after the other in the PHV) with payload offsets 0 .. 2 beats, so that every fill level meets
    every payload alignment, the MPLS program (Ethernet, three 4-byte labels, IPv4) and eight
    scattered headers (`_scattered`: up to eight runs) with a few offsets."""
    b = Bench(dut)
    await b.init()
    for fn, offsets in ((S.alu_mix, range(0, 2 * b.bw + 1, 1 if b.bw <= 16 else 7)), (S.mpls_push, (0, 5, 34)),
                        (_scattered, (3,))):
        cfg = compiler.compile_program(fn(), name=fn.__name__)
        img = L.load_deparser(cfg, b.hw)
        await b.configure(img)
        it = Interpreter(cfg)
        pkts = []
        for valid in range(1 << len(cfg.deparser)):
            for off in offsets:
                p = Packet(b.r, cfg, it, img, b.bw)
                s = L.state_from_phv(it, p.phv, p.valid, PHV_BITS)
                for i, h in enumerate(cfg.deparser):
                    s.valid[h] = bool(valid >> i & 1)
                p.valid = L.phv_from_state(cfg, s, PHV_BITS)[1]
                p.data = bytes(b.r.getrandbits(8) for _ in range(off + b.r.randrange(1, 2 * b.bw)))
                p.off, p.drop = off, False
                s.payload = p.data[off:]
                out = it.deparse(s)
                p.want = out or None
                n = len(p.data)
                beats = [b.bw] * ((n - 1) // b.bw) + [n - b.bw * ((n - 1) // b.bw)]
                p.cycles, p.pushes = L.deparser_schedule(b.bw, L.deparser_runs(img, p.valid), off, beats, False)
                pkts.append(p)
        b.h.backpressure(b.r)
        await b.run(pkts, timing=True)


@pytest.mark.parametrize("width", [64, 512])
def test_p4_deparser(width):
    runner.run("fp_p4_deparser", __name__, dict(DATA_WIDTH=width, **BASE))
