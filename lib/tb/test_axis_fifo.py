"""fp_axis_fifo: random frames under random backpressure against a Python model, exact latency,
full throughput, drops (bad and oversize) with their pulses, occupancy, reset mid-stream.

A `Watch` samples both buses, the drop pulses and `occupancy` after every rising edge. It checks
`occupancy` every cycle against a beat-level model (so a leaked or double-freed slot fails at once)
and records every beat with its cycle; the tests then compare the output beats (tdata, tkeep, tlast,
tuser) with what the frame-level model `expected()` says must come out, and the output cycles with
the stated latency.
"""
from collections import namedtuple

import cocotb
import pytest
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, with_timeout
from cocotbext.axi import AxiStreamFrame

from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness
from fastpath.sim.tb import high, params, random_bytes, rng, start

# Non-frame mode: beat accepted -> same beat valid. Frame mode: last beat of a frame accepted ->
# first beat of that frame valid. Both when the output side is idle and always ready.
LATENCY = 3
PERIOD_NS = 5  # fastpath.sim.tb.start's default clock

Beat = namedtuple("Beat", "data keep last user")


class Cfg:
    def __init__(self):
        p = params()
        self.lanes = p.get("DATA_WIDTH", 64) // 8
        self.user_width = p.get("USER_WIDTH", 1)
        self.depth = p.get("DEPTH", 512)
        self.frame_mode = p.get("FRAME_MODE", 0) == 1
        self.drop_bad = p.get("DROP_BAD", 1) == 1
        self.limit = min(p.get("MAX_FRAME_BEATS", self.depth), self.depth)


def sample(dut, prefix):
    def sig(name):
        return int(getattr(dut, f"{prefix}_{name}").value)

    return Beat(sig("tdata"), sig("tkeep"), sig("tlast"), sig("tuser"))


class Watch:
    """Per-cycle monitor of the FIFO (see the module docstring). Start it before reset."""

    def __init__(self, dut, cfg):
        self.dut, self.cfg = dut, cfg
        self.cycle = 0
        self.clear()
        cocotb.start_soon(self._run())

    def clear(self):
        """Forget all traffic (call only while the FIFO is empty and idle, e.g. after a reset)."""
        self.ins, self.outs = [], []  # (cycle, Beat)
        self.pulses = {"bad": [], "oversize": []}  # cycles in which drop_* was high
        self.want_pulses = {"bad": [], "oversize": []}  # cycles in which the model wants them
        self.max_occupancy = 0
        self.stalls = 0  # cycles with s_axis_tvalid high and s_axis_tready low
        self._empty()

    def _empty(self):
        self.held = 0  # beats the FIFO must hold now
        self.frame = 0  # beats of the frame being written that are held
        self.discarding = False

    def _accept(self, beat):
        """Model of the input side for a beat accepted in this cycle (effect at the next edge)."""
        cfg = self.cfg
        if not cfg.frame_mode:
            self.held += 1
        elif self.discarding:
            self.discarding = not beat.last
        elif self.frame == cfg.limit:  # this beat makes the frame oversize: drop what is held
            self.held -= self.frame
            self.frame = 0
            self.discarding = not beat.last
            self.want_pulses["oversize"].append(self.cycle + 1)
        else:
            self.held += 1
            self.frame += 1
            if beat.last:
                if cfg.drop_bad and beat.user & 1:
                    self.held -= self.frame
                    self.want_pulses["bad"].append(self.cycle + 1)
                self.frame = 0

    async def _run(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            if high(dut.rst):
                self._empty()
                continue
            occupancy = int(dut.occupancy.value)
            assert occupancy == self.held, f"cycle {self.cycle}: occupancy {occupancy}, model {self.held}"
            assert occupancy <= self.cfg.depth
            self.max_occupancy = max(self.max_occupancy, occupancy)
            for name in self.pulses:
                if high(getattr(dut, f"drop_{name}")):
                    self.pulses[name].append(self.cycle)
            if high(dut.s_axis_tvalid):
                if high(dut.s_axis_tready):
                    beat = sample(dut, "s_axis")
                    self.ins.append((self.cycle, beat))
                    self._accept(beat)
                else:
                    self.stalls += 1
            if high(dut.m_axis_tvalid) and high(dut.m_axis_tready):
                self.outs.append((self.cycle, sample(dut, "m_axis")))
                self.held -= 1


def split_frames(beats):
    """Group (cycle, Beat) pairs into complete frames."""
    frames, cur = [], []
    for item in beats:
        cur.append(item)
        if item[1].last:
            frames.append(cur)
            cur = []
    assert not cur, "input ended mid-frame"
    return frames


def expected(ins, cfg):
    """Frame-level reference model: (frames that must come out, bad drops, oversize drops)."""
    kept, bad, oversize = [], 0, 0
    for f in split_frames(ins):
        if cfg.frame_mode and len(f) > cfg.limit:
            oversize += 1
        elif cfg.frame_mode and cfg.drop_bad and f[-1][1].user & 1:
            bad += 1
        else:
            kept.append(f)
    return kept, bad, oversize


def check(w):
    """Output == model, pulse counts == model counts, pulses in the exact cycles."""
    kept, bad, oversize = expected(w.ins, w.cfg)
    want = [b for f in kept for _, b in f]
    got = [b for _, b in w.outs]
    assert len(got) == len(want), f"{len(got)} beats out, model says {len(want)}"
    for i, (g, e) in enumerate(zip(got, want)):
        assert g == e, f"beat {i}: got {g}, want {e}"
    assert len(w.pulses["bad"]) == bad, (w.pulses["bad"], bad)
    assert len(w.pulses["oversize"]) == oversize, (w.pulses["oversize"], oversize)
    assert w.pulses == w.want_pulses, (w.pulses, w.want_pulses)
    return kept


def expected_out_cycles(w):
    """Output cycle of every beat when m_axis is always ready (LATENCY, one beat per cycle)."""
    kept, _, _ = expected(w.ins, w.cfg)
    cycles, prev = [], -10**9
    if not w.cfg.frame_mode:
        for c, _ in w.ins:
            prev = max(c + LATENCY, prev + 1)
            cycles.append(prev)
        return cycles
    for f in kept:
        first = max(f[-1][0] + LATENCY, prev + 1)
        cycles += range(first, first + len(f))
        prev = cycles[-1]
    return cycles


def make_frame(r, cfg, beats, bad):
    """A frame of `beats` beats with random data, random tuser on every beat, and tuser[0] on the
    last beat = bad. (cocotbext-axi takes a beat's tuser from its last byte; tuser is per byte.)"""
    nbytes = (beats - 1) * cfg.lanes + r.randint(1, cfg.lanes)
    users = [r.getrandbits(cfg.user_width) for _ in range(beats - 1)]
    users.append((r.getrandbits(cfg.user_width) & ~1) | int(bad))
    tuser = [users[i // cfg.lanes] for i in range(nbytes)]
    return AxiStreamFrame(random_bytes(r, nbytes), tuser=tuser)


def random_frames(r, cfg, n, cap, p_bad=0.2, n_long=None):
    """n frames of 1..cap beats, plus some long ones: around the limit (frame mode; exactly at it,
    just over, well over) or longer than the FIFO (non-frame mode)."""
    cap = min(cap, cfg.limit) if cfg.frame_mode else cap
    sizes = [r.randint(1, cap) for _ in range(n)]
    if n_long is None:
        n_long = 3 if cfg.limit > 256 else n // 6
    for _ in range(n_long):
        if cfg.frame_mode:
            size = r.choice([cfg.limit - 1, cfg.limit, cfg.limit + 1, cfg.limit + r.randint(2, 6)])
        else:
            size = r.randint(cfg.depth, 2 * cfg.depth)
        sizes.insert(r.randint(0, len(sizes)), max(1, size))
    return [make_frame(r, cfg, s, r.random() < p_bad) for s in sizes]


async def setup(dut):
    cfg = Cfg()
    h = AxisHarness(dut, dut.clk, dut.rst)  # bus models first: they drive the inputs idle
    w = Watch(dut, cfg)  # before reset, so it sees the first beat
    await start(dut)
    return cfg, h, w


async def drain(dut, h, w, timeout_cycles=200_000):
    """Wait until everything sent has been accepted and everything the model keeps has come out,
    then check that the FIFO stays empty (occupancy 0, no output) for a while."""
    await with_timeout(h.source.wait(), timeout_cycles * PERIOD_NS, "ns")
    await ClockCycles(dut.clk, 2)
    kept, _, _ = expected(w.ins, w.cfg)
    n = sum(len(f) for f in kept)
    for _ in range(timeout_cycles):
        if len(w.outs) >= n:
            break
        await RisingEdge(dut.clk)
    outs = len(w.outs)
    await ClockCycles(dut.clk, 20)
    assert len(w.outs) == outs, "beats came out of an empty FIFO"
    await ReadOnly()
    assert int(dut.occupancy.value) == 0, "occupancy did not return to 0"
    assert not high(dut.m_axis_tvalid)
    check(w)
    await RisingEdge(dut.clk)


@cocotb.test()
async def random_traffic(dut):
    """Random frames (bad, oversize, longer than the FIFO) under random backpressure on both sides."""
    r = rng()
    cfg, h, w = await setup(dut)
    for source_p, sink_p in [(0.3, 0.5), (0.6, 0.1), (0.1, 0.8)]:
        h.backpressure(r, source_p=source_p, sink_p=sink_p)
        await h.send(random_frames(r, cfg, 30, cap=64))
        await drain(dut, h, w)
    dut._log.info("%d beats in, %d out, drops: %d bad, %d oversize, max occupancy %d", len(w.ins),
                  len(w.outs), len(w.pulses["bad"]), len(w.pulses["oversize"]), w.max_occupancy)


@cocotb.test()
async def latency(dut):
    """Random source pauses, output always ready: every beat comes out in exactly the cycle that
    LATENCY and one beat per cycle give (frame mode: LATENCY after the frame's last beat)."""
    r = rng()
    cfg, h, w = await setup(dut)
    h.backpressure(r, source_p=0.4)
    await h.send(random_frames(r, cfg, 40, cap=48))
    await drain(dut, h, w)
    assert [c for c, _ in w.outs] == expected_out_cycles(w)
    if not cfg.frame_mode:  # frames map one to one: the house convention (first beat in -> out)
        assert set(h.latencies()) == {LATENCY}, h.latencies()


@cocotb.test()
async def throughput(dut):
    """No backpressure anywhere: the input takes a beat every cycle (frames back to back, drops
    included) and every beat comes out in the cycle the latency model says (no bubbles)."""
    r = rng()
    cfg, h, w = await setup(dut)
    await h.send(random_frames(r, cfg, 60, cap=min(64, cfg.depth // 2 - 4), n_long=0))
    await drain(dut, h, w)
    cycles = [c for c, _ in w.ins]
    assert cycles == list(range(cycles[0], cycles[0] + len(cycles))), "input bubble"
    assert w.stalls == 0
    assert [c for c, _ in w.outs] == expected_out_cycles(w)


async def run_at_level(dut, r, cfg, h, w, level, beats):
    """Hold the output until `level` beats are stored, then run input and output at once."""
    h.sink.pause = True
    cap = max(1, min(32, cfg.depth // 4, cfg.limit))
    sent, frames = 0, []
    while sent < level + beats:
        f = make_frame(r, cfg, r.randint(1, cap), bad=False)
        sent += -(-len(f.tdata) // cfg.lanes)
        frames.append(f)
    await h.send(frames)
    for _ in range(10 * cfg.depth):
        await RisingEdge(dut.clk)
        if int(dut.occupancy.value) >= level:
            break
    if level >= cfg.depth:
        await ClockCycles(dut.clk, 10)  # stay full a while, the input stalled
    h.sink.pause = False
    await drain(dut, h, w)
    outs = [c for c, _ in w.outs]
    assert outs == list(range(outs[0], outs[0] + len(outs))), "output bubble"
    ins = [c for c, _ in w.ins if c > outs[0]]
    assert ins == list(range(outs[0] + 1, outs[0] + 1 + len(ins))), "input bubble while draining"
    assert len(ins) >= beats - cap - 4, "overlap too short"


@cocotb.test()
async def simultaneous(dut):
    """In and out at one beat per cycle at once, for a long run: at half fill (no input stall at
    all) and from a full FIFO (the input loses only the cycle in which it was full)."""
    r = rng()
    cfg, h, w = await setup(dut)
    run = 1500
    await run_at_level(dut, r, cfg, h, w, cfg.depth // 2, run)
    assert w.stalls == 0
    w.clear()
    await run_at_level(dut, r, cfg, h, w, cfg.depth, run)
    assert w.max_occupancy == cfg.depth and w.stalls > 0


@cocotb.test(skip=params().get("FRAME_MODE", 0) != 1)
async def oversize_and_full(dut):
    """Frame mode, output held: oversize frames are swallowed whole without a reader (never stall);
    frames that fit fill the FIFO, then a frame that can fit waits, not dropped, until it drains."""
    r = rng()
    cfg, h, w = await setup(dut)
    h.sink.pause = True
    over = [cfg.limit + 1, cfg.limit + 2, cfg.limit + 5]
    await h.send([make_frame(r, cfg, n, bad=(i == 1)) for i, n in enumerate(over)])
    await with_timeout(h.source.wait(), 4 * sum(over) * PERIOD_NS, "ns")
    await ClockCycles(dut.clk, 3)
    assert len(w.pulses["oversize"]) == len(over) and not w.pulses["bad"]
    assert int(dut.occupancy.value) == 0 and len(w.outs) == 0

    fits = cfg.depth // cfg.limit  # frames of exactly `limit` beats that fit at once
    await h.send([make_frame(r, cfg, cfg.limit, bad=False) for _ in range(fits)])
    await with_timeout(h.source.wait(), 4 * fits * cfg.limit * PERIOD_NS, "ns")
    await ClockCycles(dut.clk, 3)
    assert int(dut.occupancy.value) == fits * cfg.limit

    await h.send([make_frame(r, cfg, cfg.limit, bad=False), make_frame(r, cfg, cfg.limit + 1, bad=False)])
    await ClockCycles(dut.clk, 3 * cfg.limit + 20)
    assert int(dut.occupancy.value) == cfg.depth, "the waiting frame should fill the FIFO"
    assert not high(dut.s_axis_tready) and high(dut.s_axis_tvalid)
    assert len(w.pulses["oversize"]) == len(over) and not w.pulses["bad"], "a frame that fits was dropped"
    h.sink.pause = False
    await drain(dut, h, w)
    assert len(w.outs) == (fits + 1) * cfg.limit


@cocotb.test()
async def reset_mid_stream(dut):
    """A reset with the FIFO part full and frames half written empties it (outputs and occupancy
    at once); traffic after it is clean."""
    r = rng()
    cfg, h, w = await setup(dut)
    h.backpressure(r, source_p=0.2, sink_p=0.7)
    await h.send(random_frames(r, cfg, 20, cap=64))
    for _ in range(20_000):
        await RisingEdge(dut.clk)
        if int(dut.occupancy.value) >= min(8, cfg.depth // 2) and high(dut.s_axis_tvalid):
            break
    assert int(dut.occupancy.value) > 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    h.source.clear()
    h.sink.clear()
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.occupancy.value) == 0
    assert not high(dut.m_axis_tvalid) and not high(dut.drop_bad) and not high(dut.drop_oversize)
    await RisingEdge(dut.clk)
    w.clear()
    await h.send(random_frames(r, cfg, 20, cap=64))
    await drain(dut, h, w)


PARAMS = [
    dict(DATA_WIDTH=8, DEPTH=16, USER_WIDTH=2),
    dict(DATA_WIDTH=64, DEPTH=32),
    dict(DATA_WIDTH=8, DEPTH=16, USER_WIDTH=2, FRAME_MODE=1, DROP_BAD=0),
    dict(DATA_WIDTH=64, DEPTH=64, FRAME_MODE=1, MAX_FRAME_BEATS=24),
    dict(DATA_WIDTH=256, DEPTH=1024, FRAME_MODE=1),
]


@pytest.mark.parametrize("parameters", PARAMS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_axis_fifo(parameters):
    runner.run("fp_axis_fifo", __name__, parameters)
