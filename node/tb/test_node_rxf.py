"""fp_node_rxf: random frames (runts, bad, oversize) from a cocotbext-axi source with gaps, two
unrelated clocks (in_clk 125 MHz, clk 200 MHz, random phase) or one, vs a Python model that cuts
the expected segments; random and bursty m_axis backpressure; overflow drops and cuts (no
tready); exact latency per segment; event counters.

Times are taken in ps at the clock edges where things happen: a beat's transfer edge, and the
first clk edge at which m_axis_tvalid is sampled high with a segment (as in test_axis_async_fifo).
"""
import logging

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer, gather, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamSource

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.axis import frame
from fastpath.sim.tb import high, params, pauses, random_bytes, rng

RXU = formats.load("rxf_tuser")   # m_axis_tuser

IN_PERIOD_PS = 8000     # 125 MHz, the port clock
CLK_PERIOD_PS = 5000    # 200 MHz, the datapath clock
# Latency (RTL header): segment-completing beat's in_clk edge -> first clk edge sampling
# m_axis_tvalid high, in clk periods. ASYNC = 1: more than 4, at most 5 (4 on a coincident edge).
LATENCY_ASYNC = (4, 5)
LATENCY_SYNC = 3
MIN_BYTES = 14
EVENTS = ("ev_frame", "ev_drop_bad", "ev_trunc", "ev_drop_overflow")


def cfg():
    p = params()
    return {
        "in_bytes": p.get("IN_BYTES", 1), "seg": p.get("SEG_BYTES", 64),
        "depth": p.get("FIFO_SEGS", 8), "max": p.get("MAX_BYTES", 1518),
        "async": p.get("ASYNC", 1) == 1, "bp": p.get("BACKPRESSURE", 0) == 1,
    }


def model(data, bad, ts, c):
    """Expected segments of one frame and its event (None, 'drop_bad' or 'trunc')."""
    n, seg, mx = len(data), c["seg"], c["max"]
    if n < MIN_BYTES or (n <= seg and bad):
        return [], "drop_bad"
    trunc = n > mx
    keep = data[:mx] if trunc else data
    segs = []
    for start in range(0, len(keep), seg):
        chunk = keep[start:start + seg]
        last = start + seg >= len(keep)
        segs.append({"data": chunk, "first": int(start == 0), "last": int(last),
                     "bad": int(last and (bad or trunc)), "trunc": int(last and trunc),
                     "bytes": len(chunk), "ts": (ts >> 16) & 0xFFFFFF,
                     "done": start + len(chunk) - 1})  # byte whose arrival completes it
    return segs, "trunc" if trunc else None


def random_frame(r, c):
    k = r.random()
    mx = c["max"]
    if k < 0.05:
        n = r.randint(1, MIN_BYTES - 1)
    elif k < 0.35:
        n = r.randint(MIN_BYTES, 2 * c["seg"] + 1)
    elif k < 0.80:
        n = r.randint(MIN_BYTES, mx)
    elif k < 0.93:
        n = mx + r.randint(-2, 2)
    else:
        n = r.randint(mx + 1, min(2000, mx + 500))
    return random_bytes(r, n), r.random() < 0.2, r.getrandbits(64)


class Tb:
    def __init__(self, dut, r):
        self.dut, self.r, self.c = dut, r, cfg()
        c = self.c
        self.in_clk = dut.in_clk if c["async"] else dut.clk
        self.in_rst = dut.in_rst if c["async"] else dut.rst
        self.in_period = IN_PERIOD_PS if c["async"] else CLK_PERIOD_PS
        dut.in_clk.value = 0
        dut.in_rst.value = 1
        dut.rst.value = 1
        dut.s_axis_ts.value = 0
        dut.m_axis_tready.value = 0
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), self.in_clk, self.in_rst)
        self.source.log.setLevel(logging.WARNING)
        self.sink_mode = ("always", 0.0)
        self.ts_list = []
        self.beats = [[]]           # per input frame: (bytes after the beat, transfer edge ps)
        self.stalls = 0             # input cycles with tvalid && !tready
        self.segs = []
        self.events = dict.fromkeys(EVENTS, 0)
        self.cuts = 0               # frames cut by an overflow (set by check)
        cocotb.start_soon(self._input_side())
        cocotb.start_soon(self._output_side())

    async def start(self):
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, CLK_PERIOD_PS, unit="ps").start())
        if self.c["async"]:
            await Timer(self.r.randint(1, IN_PERIOD_PS - 1), unit="ps")
            cocotb.start_soon(Clock(dut.in_clk, IN_PERIOD_PS, unit="ps").start())
        await Timer(4 * IN_PERIOD_PS, unit="ps")

        async def release(clock, reset):
            await RisingEdge(clock)
            reset.value = 0

        await gather(release(dut.clk, dut.rst), release(self.in_clk, self.in_rst))
        if not self.c["async"]:
            dut.in_rst.value = 0

    async def _input_side(self):
        """Per input cycle: record transferred beats; after a tlast, present the next frame's ts."""
        d = self.dut
        count = 0
        next_ts = None
        while True:
            await RisingEdge(self.in_clk)
            if next_ts is not None:
                d.s_axis_ts.value = next_ts
                next_ts = None
            await ReadOnly()
            if high(self.in_rst) or not high(d.s_axis_tvalid):
                continue
            if not high(d.s_axis_tready):
                self.stalls += 1
                continue
            t = round(get_sim_time("ps")) + self.in_period
            last = high(d.s_axis_tlast)
            if last and self.c["in_bytes"] > 1:
                count += bin(int(d.s_axis_tkeep.value)).count("1")
            else:
                count += self.c["in_bytes"]
            self.beats[-1].append((count, t))
            if last:
                count = 0
                self.beats.append([])
                n = len(self.beats) - 1
                if n < len(self.ts_list):
                    next_ts = self.ts_list[n]

    async def _output_side(self):
        """Per clk cycle: drive tready, record segments (with their presentation time), events."""
        d = self.dut
        present = None
        off_left = 0
        while True:
            await RisingEdge(d.clk)
            mode, p = self.sink_mode
            if mode == "stopped":   # stopped until p frames have gone in, then bursty
                d.m_axis_tready.value = 0
                if len(self.beats) - 1 >= p:
                    self.sink_mode = ("bursty", 0.0)
            elif mode == "random":
                d.m_axis_tready.value = int(self.r.random() >= p)
            elif mode == "bursty":
                if off_left > 0:
                    off_left -= 1
                    d.m_axis_tready.value = 0
                elif self.r.random() < 1 / 150:
                    off_left = self.r.randint(200, 2500)
                else:
                    d.m_axis_tready.value = 1
            else:
                d.m_axis_tready.value = 1
            await ReadOnly()
            if high(d.rst):
                continue
            for ev in EVENTS:
                self.events[ev] += high(getattr(d, ev))
            if not high(d.m_axis_tvalid):
                continue
            t = round(get_sim_time("ps")) + CLK_PERIOD_PS
            if present is None:
                present = t
            if not high(d.m_axis_tready):
                continue
            u = RXU.unpack(int(d.m_axis_tuser.value))
            n = u["bytes"]
            self.segs.append({
                "data": (int(d.m_axis_tdata.value) & ((1 << 8 * n) - 1)).to_bytes(n, "little"),
                "keep": int(d.m_axis_tkeep.value), "last": int(d.m_axis_tlast.value),
                "bad": u["bad"], "first": u["first"], "bytes": n, "trunc": u["trunc"],
                "ts": u["ts"], "present": present,
            })
            present = None

    async def run(self, frames):
        self.ts_list = [ts for _, _, ts in frames]
        self.dut.s_axis_ts.value = self.ts_list[0]
        for data, bad, _ in frames:
            await self.source.send(frame(data, bad=bad))
        await with_timeout(self.source.wait(), 200 * sum(len(f[0]) for f in frames) + 100_000, "ns")
        idle, seen = 0, -1
        quiet = 3000 if self.sink_mode[0] == "bursty" else 300  # longer than any stop of m_axis
        while idle < quiet:
            await RisingEdge(self.dut.clk)
            idle = idle + 1 if len(self.segs) == seen else 0
            seen = len(self.segs)

    def check(self, frames, overflow_ok=False):
        """Compare the output with the model; returns the latencies (clk periods) per segment."""
        c = self.c
        for s in self.segs:
            assert s["keep"] == (1 << s["bytes"]) - 1, "tkeep != low `bytes` bits"
        got = []                                  # output frames
        cur = []
        for s in self.segs:
            cur.append(s)
            if s["last"]:
                got.append(cur)
                cur = []
        assert not cur, "output ends inside a frame"
        want = {"drop_bad": 0, "trunc": 0, "drop_overflow": 0}
        lat = []
        gi = 0
        for fi, (data, bad, ts) in enumerate(frames):
            segs, ev = model(data, bad, ts, c)
            if not segs:
                want[ev] += 1
                continue
            g = got[gi] if gi < len(got) else None
            if g is None or g[0]["data"] != segs[0]["data"]:
                assert overflow_ok, f"frame {fi} ({len(data)} bytes) missing"
                want["drop_overflow"] += 1
                continue
            gi += 1
            if ev:
                want[ev] += 1
            keys = ("data", "first", "last", "bad", "trunc", "bytes", "ts")
            if len(g) != len(segs):
                assert overflow_ok and len(g) < len(segs), f"frame {fi}: {len(g)} segments, want {len(segs)}"
                want["drop_overflow"] += 1
                self.cuts += 1
                if ev:
                    want[ev] -= 1
                cut = dict(segs[len(g) - 1], last=1, bad=1, trunc=0)
                segs = segs[:len(g) - 1] + [cut]
            for k, (s, e) in enumerate(zip(g, segs)):
                assert {x: s[x] for x in keys} == {x: e[x] for x in keys}, \
                    f"frame {fi} segment {k}: {[(x, s[x], e[x]) for x in keys if s[x] != e[x]]}"
                done = next(t for end, t in self.beats[fi] if end > e["done"])
                lat.append((s["present"] - done) / CLK_PERIOD_PS)
        assert gi == len(got), f"{len(got) - gi} unexpected output frames"
        assert self.events["ev_frame"] == len(frames)
        for k, v in want.items():
            assert self.events["ev_" + k] == v, (k, self.events, want)
        return lat, want["drop_overflow"]


def n_frames(c, n):
    """Fewer frames when they are long (1518 bytes at 8 ns a byte), to keep the run short."""
    return n if c["max"] <= 300 else n * 2 // 5


async def setup(dut):
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    return tb, r


@cocotb.test()
async def random_traffic(dut):
    """Gaps on the input, random backpressure on m_axis: output == model, counters."""
    tb, r = await setup(dut)
    tb.source.set_pause_generator(pauses(r, 0.2))
    tb.sink_mode = ("random", 0.3)
    frames = [random_frame(r, tb.c) for _ in range(n_frames(tb.c, 30))]
    await tb.run(frames)
    tb.check(frames)


@cocotb.test()
async def latency_and_throughput(dut):
    """Back-to-back frames, m_axis always ready: every segment's exact latency; the input is
    never stalled (one beat per in_clk cycle)."""
    tb, r = await setup(dut)
    frames = [random_frame(r, tb.c) for _ in range(n_frames(tb.c, 30))]
    await tb.run(frames)
    lat, _ = tb.check(frames)
    assert lat
    if tb.c["async"]:
        lo, hi = LATENCY_ASYNC
        assert all(lo <= x <= hi for x in lat), sorted(set(lat))
        dut._log.info("latency %.2f .. %.2f clk periods", min(lat), max(lat))
    else:
        assert set(lat) == {LATENCY_SYNC}, sorted(set(lat))
    assert tb.stalls == 0


@cocotb.test()
async def overflow(dut):
    """m_axis stopped for long stretches. No tready: whole frames dropped or cut with bad on
    their last segment, each counted once. With tready: the input waits, nothing is lost."""
    tb, r = await setup(dut)
    c = tb.c
    # Directed start, m_axis stopped: A (5 segments) fits; B (12 segments) finds the FIFO
    # filling: cut (without tready); C finds it full: dropped whole. Then random stops.
    tb.sink_mode = ("bursty", 0.0) if c["bp"] else ("stopped", 3)  # with tready A..C would wait
    frames = [(random_bytes(r, n), False, r.getrandbits(64))
              for n in (5 * c["seg"] - 3, min(c["max"], 12 * c["seg"]), 20)]
    for _ in range(n_frames(tb.c, 40)):
        f = random_frame(r, tb.c)
        while r.random() < 0.8 and len(f[0]) <= 2 * tb.c["seg"]:  # mostly 3+ segments: cuts
            f = random_frame(r, tb.c)
        frames.append(f)
    await tb.run(frames)
    _, n_over = tb.check(frames, overflow_ok=not tb.c["bp"])
    if tb.c["bp"]:
        assert tb.stalls > 0, "the FIFO never filled"
    else:
        assert 0 < tb.cuts < n_over, f"{n_over} overflows, {tb.cuts} of them cuts: want both kinds"


@pytest.mark.parametrize("in_bytes,seg_bytes,asyn,bp,max_bytes", [
    (1, 64, 1, 0, 1518),    # a MAC port
    (8, 64, 0, 1, 1518),    # the host port
    (1, 32, 0, 0, 200),
    (8, 32, 1, 1, 300),
])
def test_node_rxf(in_bytes, seg_bytes, asyn, bp, max_bytes):
    runner.run("fp_node_rxf", __name__, {"IN_BYTES": in_bytes, "SEG_BYTES": seg_bytes, "ASYNC": asyn,
                                      "BACKPRESSURE": bp, "MAX_BYTES": max_bytes})
