"""fp_axis_async_fifo: two unrelated clocks, random frames vs a Python model, drops, latency range,
throughput, occupancy.

The clock periods (ns) come from $FIFO_CLOCKS ("s,m"), set by the pytest function. Times are
measured in ps at the clock edges where things take effect (see EdgeLog) and converted to m_clk
periods to check the latency range stated in the RTL header.
"""
import logging
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer, gather, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource

from fastpath.sim import runner
from fastpath.sim.axis import frame, last_user
from fastpath.sim.tb import high, params, pauses, random_bytes, rng

# Latency (see the RTL header): from the s_clk edge transferring the beat (the tlast beat in frame
# mode) to the first m_clk edge at which m_axis_tvalid is sampled high, in m_clk periods.
LATENCY_STREAM = (4, 5)
LATENCY_FRAME = (5, 6)


def cfg():
    p = params()
    depth = p.get("DEPTH", 512)
    return {
        "bytes": p.get("DATA_WIDTH", 64) // 8,
        "depth": depth,
        "frame": p.get("FRAME_MODE", 0) == 1,
        "drop_bad": p.get("DROP_BAD", 1) == 1,
        "max_beats": p.get("MAX_FRAME_BEATS", depth),
    }


def periods_ps():
    s, m = (float(x) for x in os.environ.get("FIFO_CLOCKS", "6.4,5.0").split(","))
    return round(s * 1000), round(m * 1000)


def beats(n_bytes, width):
    return -(-n_bytes // width)


def expected(frames, c):
    """The frames the FIFO must deliver, and the (bad, oversize) drop counts."""
    out, n_bad, n_over = [], 0, 0
    for f in frames:
        if c["frame"] and beats(len(f.tdata), c["bytes"]) > c["max_beats"]:
            n_over += 1
        elif c["frame"] and c["drop_bad"] and last_user(f):
            n_bad += 1
        else:
            out.append(f)
    return out, n_bad, n_over


class EdgeLog:
    """Per frame on one AXI4-Stream bus, in ps: `present` = first edge at which tvalid of the
    first beat is sampled high, `first`/`last` = edges transferring the first/last beat.
    Also every transfer time (`transfers`) and the number of stalled cycles (tvalid && !tready)."""

    def __init__(self, dut, prefix, clock, period_ps):
        self.valid = getattr(dut, f"{prefix}_tvalid")
        self.ready = getattr(dut, f"{prefix}_tready")
        self.tlast = getattr(dut, f"{prefix}_tlast")
        self.clock, self.period = clock, period_ps
        self.frames, self.transfers, self.stalls = [], [], 0
        cocotb.start_soon(self._run())

    async def _run(self):
        present = first = None
        while True:
            await RisingEdge(self.clock)
            await ReadOnly()
            # Values seen after this edge are sampled at the next one.
            t = round(get_sim_time("ps")) + self.period
            if not high(self.valid):
                continue
            if present is None:
                present = t
            if not high(self.ready):
                self.stalls += 1
                continue
            self.transfers.append(t)
            if first is None:
                first = t
            if high(self.tlast):
                self.frames.append({"present": present, "first": first, "last": t})
                present = first = None


class Tb:
    def __init__(self, dut):
        self.dut = dut
        self.c = cfg()
        self.ts, self.tm = periods_ps()
        # Bus models first: they drive the inputs idle before reset. (AxisHarness is not used:
        # its `s_clock or clock` truth-tests a cocotb handle, which cocotb 2 refuses.)
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.s_clk, dut.s_rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.m_clk, dut.m_rst)
        for model in (self.source, self.sink):
            model.log.setLevel(logging.WARNING)  # no per-frame logs: they cost more than the sim
        self.s_log = EdgeLog(dut, "s_axis", dut.s_clk, self.ts)
        self.m_log = EdgeLog(dut, "m_axis", dut.m_clk, self.tm)
        self.drops = {"bad": 0, "oversize": 0}
        self.max_occ = {"s": 0, "m": 0}

    async def start(self, r):
        """Both clocks at a random relative phase, both resets held together, then released."""
        dut = self.dut
        dut.s_rst.value = 1
        dut.m_rst.value = 1
        cocotb.start_soon(Clock(dut.s_clk, self.ts, unit="ps").start())
        await Timer(r.randint(1, self.tm - 1), unit="ps")
        cocotb.start_soon(Clock(dut.m_clk, self.tm, unit="ps").start())
        cocotb.start_soon(self._count_drops())
        cocotb.start_soon(self._watch_occupancy(dut.s_clk, dut.s_rst, dut.s_occupancy, "s"))
        cocotb.start_soon(self._watch_occupancy(dut.m_clk, dut.m_rst, dut.m_occupancy, "m"))
        await self.reset_both()

    async def reset_both(self):
        """Assert both resets, hold them 4 periods of the slower clock, release each synchronously."""
        self.dut.s_rst.value = 1
        self.dut.m_rst.value = 1
        await Timer(4 * max(self.ts, self.tm), unit="ps")

        async def release(clock, reset):
            await RisingEdge(clock)
            reset.value = 0

        await gather(release(self.dut.s_clk, self.dut.s_rst), release(self.dut.m_clk, self.dut.m_rst))

    async def _count_drops(self):
        while True:
            await RisingEdge(self.dut.s_clk)
            await ReadOnly()
            if high(self.dut.s_rst):
                continue
            self.drops["bad"] += high(self.dut.s_drop_bad)
            self.drops["oversize"] += high(self.dut.s_drop_oversize)

    async def _watch_occupancy(self, clock, reset, occ, side):
        limit = self.c["depth"] + (0 if side == "s" else 2)
        while True:
            await RisingEdge(clock)
            await ReadOnly()
            if high(reset) or not occ.value.is_resolvable:
                continue
            v = int(occ.value)
            assert v <= limit, f"{side}_occupancy {v} > {limit}"
            self.max_occ[side] = max(self.max_occ[side], v)

    async def wait_idle_empty(self):
        """Wait for the source to finish and the FIFO to drain; both occupancies must reach 0."""
        await self.source.wait()
        for _ in range(2000):
            await RisingEdge(self.dut.s_clk)
            await ReadOnly()
            if int(self.dut.s_occupancy.value) == 0 and int(self.dut.m_occupancy.value) == 0 \
                    and not high(self.dut.m_axis_tvalid):
                break
        # Stays empty: nothing leaks back in over the next few cycles of both clocks.
        await Timer(20 * max(self.ts, self.tm), unit="ps")
        await ReadOnly()
        assert int(self.dut.s_occupancy.value) == 0, "s_occupancy not back to 0"
        assert int(self.dut.m_occupancy.value) == 0, "m_occupancy not back to 0"
        assert not high(self.dut.m_axis_tvalid)

    def random_frames(self, r, n, bad_p=0.2):
        c = self.c
        top = c["max_beats"] + 3 if c["frame"] else min(3 * c["depth"] // 2, 96)
        frames = []
        for _ in range(n):
            kind = r.random()
            if kind < 0.5:
                size = r.randint(1, 3 * c["bytes"])
            elif kind < 0.8 or not c["frame"]:
                size = r.randint(1, top * c["bytes"])
            else:  # around the oversize boundary
                size = (c["max_beats"] + r.choice([-1, 0, 0, 1, 1, 2])) * c["bytes"] - r.randint(0, c["bytes"] - 1)
            frames.append(frame(random_bytes(r, max(1, size)), bad=r.random() < bad_p))
        return frames

    def check(self, sent, got):
        exp, n_bad, n_over = expected(sent, self.c)
        assert len(got) == len(exp), f"{len(got)} frames out, {len(exp)} expected"
        for i, (e, g) in enumerate(zip(exp, got)):
            assert g.tdata == e.tdata, f"frame {i}: data differs"
            assert last_user(g) == last_user(e), f"frame {i}: tuser differs"
        assert self.drops == {"bad": n_bad, "oversize": n_over}, (self.drops, n_bad, n_over)

    def backpressure(self, r, source_p=0.0, sink_p=0.0):
        for model, p in ((self.source, source_p), (self.sink, sink_p)):
            model.set_pause_generator(pauses(r, p) if p else None)
            if not p:
                model.pause = False  # removing a generator leaves its last value in place

    async def send(self, frames):
        for f in frames:
            await self.source.send(f)

    async def recv(self, n):
        """n frames from the sink; fails (never hangs) if they take longer than 100 us each."""
        return [await with_timeout(self.sink.recv(), 100, "us") for _ in range(n)]


@cocotb.test()
async def random_traffic(dut):
    """Random frames under random backpressure on both sides (sink-bound, then source-bound)."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    for source_p, sink_p in ((0.1, 0.8), (0.6, 0.2), (0.3, 0.3)):
        tb.drops.update(bad=0, oversize=0)
        tb.backpressure(r, source_p=source_p, sink_p=sink_p)
        sent = tb.random_frames(r, 30)
        if sink_p > source_p:  # sink-bound: enough beats to fill the FIFO whatever the clocks
            while sum(beats(len(f.tdata), tb.c["bytes"]) for f in sent) < 2 * tb.c["depth"] + 100:
                sent += tb.random_frames(r, 5)
        await tb.send(sent)
        got = await tb.recv(len(expected(sent, tb.c)[0]))
        await tb.wait_idle_empty()
        tb.check(sent, got)
    # The FIFO did fill up (sink-bound phase), so the full logic was exercised.
    assert tb.max_occ["s"] == tb.c["depth"], tb.max_occ


@cocotb.test()
async def latency(dut):
    """FIFO empty, sink always ready, random phase: every frame's latency is in the stated range."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    lo, hi = LATENCY_FRAME if tb.c["frame"] else LATENCY_STREAM
    n = 40
    for _ in range(n):
        size = r.randint(1, min(tb.c["max_beats"], 8) * tb.c["bytes"])
        await tb.send([frame(random_bytes(r, size))])
        await tb.recv(1)
        await Timer(r.randint(10 * tb.tm, 20 * tb.tm), unit="ps")
    measured = []
    for fi, fo in zip(tb.s_log.frames, tb.m_log.frames):
        start = fi["last"] if tb.c["frame"] else fi["first"]
        measured.append((fo["present"] - start) / tb.tm)
    assert len(measured) == n
    dut._log.info("latency %.3f .. %.3f m_clk periods (stated %d .. %d)", min(measured), max(measured), lo, hi)
    bad = [x for x in measured if not lo <= x <= hi]
    assert not bad, f"latencies outside [{lo}, {hi}] m_clk periods: {bad}"
    # The random phase really spread the measurements over the range.
    assert max(measured) - min(measured) > 0.3, measured


@cocotb.test()
async def throughput(dut):
    """A long burst with no backpressure: the slower side runs at one beat per cycle."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    c = tb.c
    n_beats = max(3 * c["depth"], 1000)
    # Frame mode: frames short enough that one frame plus a pointer round trip fits in DEPTH.
    frame_max = max(1, c["depth"] // 8) if c["frame"] else 4 * c["depth"]
    sizes = []
    while sum(sizes) < n_beats:
        sizes.append(r.randint(1, frame_max))
    sent = [frame(random_bytes(r, b * c["bytes"])) for b in sizes]
    total = sum(sizes)
    await tb.send(sent)
    got = await tb.recv(len(sent))
    tb.check(sent, got)
    s_t, m_t = tb.s_log.transfers, tb.m_log.transfers
    dut._log.info("%d beats: writer %d stalls, in %.0f ns, out %.0f ns, last out %.1f ns after last in",
                  total, tb.s_log.stalls, (s_t[-1] - s_t[0]) / 1000, (m_t[-1] - m_t[0]) / 1000,
                  (m_t[-1] - s_t[-1]) / 1000)
    assert len(s_t) == len(m_t) == total
    if tb.tm <= tb.ts:
        # The read side keeps up: the writer is never throttled...
        assert tb.s_log.stalls == 0, f"writer stalled {tb.s_log.stalls} cycles"
        assert s_t[-1] - s_t[0] == (total - 1) * tb.ts
        # ...and the reader finishes within a fixed time of the writer (nothing piles up).
        slack = LATENCY_STREAM[1] * tb.tm
        if c["frame"]:
            # Commits wait for the pointer handshake: at worst the whole FIFO (DEPTH+2 beats)
            # is left when the writer ends; it drains at one beat per m_clk cycle.
            slack = LATENCY_FRAME[1] * tb.tm + 3 * (tb.tm + tb.ts) + (c["depth"] + 2) * tb.tm
        assert m_t[-1] - s_t[-1] <= slack, (m_t[-1] - s_t[-1], slack)
    else:
        # The writer is faster: the read side runs flat out, one beat per m_clk cycle, once
        # started (frame mode: once the FIFO has filled and committed frames are always there).
        gaps = sum((b - a) // tb.tm - 1 for a, b in zip(m_t, m_t[1:]))
        allowed = 0 if not c["frame"] else c["depth"]
        assert gaps <= allowed, f"read side idle {gaps} cycles during the burst"
    await tb.wait_idle_empty()


@cocotb.test()
async def fill_and_occupancy(dut):
    """Sink stopped: exactly DEPTH+2 beats fit (RAM + two prefetch registers); occupancies exact."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    depth, extra = tb.c["depth"], 5
    tb.sink.pause = True
    sent = [frame(random_bytes(r, r.randint(1, tb.c["bytes"]))) for _ in range(depth + 2 + extra)]
    await tb.send(sent)
    await Timer(2 * (depth + 2 + extra) * tb.ts + 20 * max(tb.ts, tb.tm), unit="ps")
    await RisingEdge(dut.s_clk)
    await ReadOnly()
    assert len(tb.s_log.transfers) == depth + 2
    assert not high(dut.s_axis_tready)
    assert int(dut.s_occupancy.value) == depth
    assert int(dut.m_occupancy.value) == depth + 2
    tb.sink.pause = False
    got = await tb.recv(len(sent))
    tb.check(sent, got)
    await tb.wait_idle_empty()


@cocotb.test()
async def frame_drops(dut):
    """Frame mode: boundary sizes, bad frames, and an oversize frame that arrives while the FIFO
    is full must be accepted to its end and dropped (never a stall)."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    c = tb.c
    assert c["frame"], "frame mode only (selected by test_axis_async_fifo)"
    w, mx = c["bytes"], c["max_beats"]
    tb.backpressure(r, source_p=0.2, sink_p=0.2)
    sent = []
    for size_beats, bad in [(mx, 0), (mx + 1, 0), (mx, 1), (mx + 1, 1), (1, 1), (1, 1), (1, 0),
                            (mx - 1, 0), (2 * mx + 3, 0), (c["depth"], 0)]:
        n = size_beats * w - r.randint(0, w - 1)
        sent.append(frame(random_bytes(r, n), bad=bool(bad)))
    r.shuffle(sent)
    await tb.send(sent)
    got = await tb.recv(len(expected(sent, c)[0]))
    await tb.wait_idle_empty()
    tb.check(sent, got)

    # Sink stopped and room for exactly MAX_FRAME_BEATS more beats, then a frame of 2*DEPTH+MAX
    # beats: its first MAX beats fill the FIFO, the rest must still be swallowed (oversize) at
    # full rate, and the filler frames must come out afterwards.
    tb.drops.update(bad=0, oversize=0)
    tb.backpressure(r)
    tb.sink.pause = True
    filler = [frame(random_bytes(r, r.randint(1, w))) for _ in range(c["depth"] + 2 - mx)]
    huge = frame(random_bytes(r, (2 * c["depth"] + mx) * w))
    await tb.send(filler)
    await Timer(2 * len(filler) * tb.ts + 20 * max(tb.ts, tb.tm), unit="ps")
    n_before, stalls_before = len(tb.s_log.transfers), tb.s_log.stalls
    await tb.send([huge])
    await with_timeout(tb.source.wait(), 20 * c["depth"] * tb.ts, "ps")
    await RisingEdge(dut.s_clk)
    await ReadOnly()
    assert tb.drops["oversize"] == 1
    assert int(dut.s_occupancy.value) == c["depth"] - mx  # only the filler left (2 prefetched)
    # The huge frame went through in one beat per cycle although the FIFO was full at its beat MAX.
    assert tb.s_log.stalls == stalls_before
    assert len(tb.s_log.transfers) - n_before == 2 * c["depth"] + mx
    tb.sink.pause = False
    got = await tb.recv(len(filler))
    await tb.wait_idle_empty()
    tb.check(filler + [huge], got)


@cocotb.test()
async def reset_mid_traffic(dut):
    """Both sides reset together mid-stream: the FIFO comes back empty and works cleanly."""
    r = rng()
    tb = Tb(dut)
    await tb.start(r)
    tb.backpressure(r, source_p=0.3, sink_p=0.5)
    await tb.send(tb.random_frames(r, 20, bad_p=0.0))
    await Timer(r.randint(50, 300) * tb.ts, unit="ps")
    tb.source.clear()  # queued frames; the one in flight is cut by the reset
    await tb.reset_both()
    tb.sink.clear()
    await RisingEdge(dut.m_clk)
    await ReadOnly()
    assert int(dut.m_occupancy.value) == 0 and not high(dut.m_axis_tvalid)
    await Timer(10 * max(tb.ts, tb.tm), unit="ps")
    tb.drops.update(bad=0, oversize=0)
    sent = tb.random_frames(r, 20)
    await tb.send(sent)
    got = await tb.recv(len(expected(sent, tb.c)[0]))
    await tb.wait_idle_empty()
    tb.check(sent, got)


CONFIGS = {
    "w64_d16_stream": {"DATA_WIDTH": 64, "DEPTH": 16, "FRAME_MODE": 0},
    "w64_d64_frame": {"DATA_WIDTH": 64, "DEPTH": 64, "FRAME_MODE": 1, "MAX_FRAME_BEATS": 40},
    "w8_d32_frame": {"DATA_WIDTH": 8, "DEPTH": 32, "FRAME_MODE": 1},
    "w256_d512_stream": {"DATA_WIDTH": 256, "DEPTH": 512, "FRAME_MODE": 0},
}
# (s_clk, m_clk) periods in ns: slow-to-fast, fast-to-slow, nearly equal (both ways).
CASES = [
    ("w64_d16_stream", "6.4,5.0"),
    ("w64_d16_stream", "4.0,8.0"),
    ("w64_d16_stream", "5.0,5.1"),
    ("w64_d64_frame", "6.4,5.0"),
    ("w64_d64_frame", "4.0,8.0"),
    ("w8_d32_frame", "5.1,5.0"),
    ("w8_d32_frame", "4.0,8.0"),
    ("w256_d512_stream", "6.4,5.0"),
]


TESTS = ["random_traffic", "latency", "throughput", "fill_and_occupancy", "reset_mid_traffic"]


@pytest.mark.parametrize("config,clocks", CASES)
def test_axis_async_fifo(config, clocks):
    p = CONFIGS[config]
    tests = TESTS + (["frame_drops"] if p["FRAME_MODE"] else [])
    runner.run("fp_axis_async_fifo", __name__, p, testcase=tests, env={"FIFO_CLOCKS": clocks})
