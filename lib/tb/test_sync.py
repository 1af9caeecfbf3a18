"""fp_sync_level, fp_sync_pulse, fp_sync_reset, fp_sync_gray: exact latency in edges of the destination clock, random
stimulus against Python models, with unrelated clocks at a random phase.

Inputs are changed in the middle of a clock cycle ("well away from the edge"), so the edge that
first samples a change is never ambiguous. Times are in ps; `Edges` keeps each clock's rising
edge times so that "the n-th edge after time t" can be looked up exactly.

Clocks: $SYNC_CLOCKS = "a,b" in ns; fp_sync_level and fp_sync_reset use a, fp_sync_pulse and fp_sync_gray use
a for src_clk and b for dst_clk.
"""
import bisect
import math
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from fastpath.sim import runner
from fastpath.sim.tb import high, params, rng


def now_ps():
    return round(get_sim_time("ps"))


def periods_ps():
    a, b = (float(x) for x in os.environ.get("SYNC_CLOCKS", "5.0,5.0").split(","))
    return round(a * 1000), round(b * 1000)


class Edges:
    """Rising edge times of one clock, recorded as the simulation runs."""

    def __init__(self, clock):
        self.times = []
        cocotb.start_soon(self._run(clock))

    async def _run(self, clock):
        while True:
            await RisingEdge(clock)
            self.times.append(now_ps())

    def nth_after(self, t, n):
        """Time of the n-th rising edge strictly after t (n >= 1)."""
        return self.times[bisect.bisect_right(self.times, t) + n - 1]

    def count_between(self, t0, t1):
        """Number of rising edges in (t0, t1]."""
        return bisect.bisect_right(self.times, t1) - bisect.bisect_right(self.times, t0)


async def start_clock(clock, period, r, phase=True, other=None):
    """Start a clock, after a random phase delay. If `other` (the period of a clock started just
    before) is given, the delay is chosen so that no edge of the two clocks ever coincides."""
    if phase:
        delay = r.randint(1, period - 1)
        if other is not None and delay % math.gcd(period, other) == 0:
            delay += 1
        await Timer(delay, unit="ps")
    cocotb.start_soon(Clock(clock, period, unit="ps").start())


async def before_edges(clock, period, fn):
    """Call fn(t_edge) 1 ps before every rising edge of clock (in the ReadOnly phase): it sees
    exactly the values that edge samples (inputs here only change mid-cycle)."""
    while True:
        await RisingEdge(clock)
        await Timer(period - 1, unit="ps")
        await ReadOnly()
        fn(now_ps() + 1)


async def mid_cycle(clock, period):
    """Wait for the next rising edge, then half a period: the middle of that cycle."""
    await RisingEdge(clock)
    await Timer(period // 2, unit="ps")


# ------------------------------------------------------------------------------------ fp_sync_level


async def level_setup(dut, r):
    t, _ = periods_ps()
    dut.rst.value = 1
    dut["in"].value = 0  # `in` is a Python keyword: index the handle by name
    edges = Edges(dut.clk)
    await start_clock(dut.clk, t, r, phase=False)
    for _ in range(3):
        await RisingEdge(dut.clk)
    await Timer(t // 2, unit="ps")
    dut.rst.value = 0
    return t, edges


@cocotb.test()
async def level_latency(dut):
    """Every input change reaches `out` at exactly the STAGES-th clk edge after it, and the
    output sequence equals a Python STAGES-stage shift register fed with the input."""
    r = rng()
    stages, width = params()["STAGES"], params()["WIDTH"]
    t, edges = await level_setup(dut, r)
    din, out = dut["in"], dut.out

    model = [0] * stages
    out_after = {}  # edge time -> value of `out` right after that edge
    mismatches = []

    async def check():
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            model.insert(0, int(din.value))  # sampled at this edge (stable since mid-cycle)
            model.pop()
            got = int(out.value)
            out_after[now_ps()] = got
            if got != model[-1]:
                mismatches.append((now_ps(), got, model[-1]))

    cocotb.start_soon(check())
    changes_in = []
    value = 0
    for _ in range(200):
        # Hold for a random number of cycles: 1 (shorter than the documented STAGES+1) and up.
        for _ in range(r.choice([1, 1, 2, stages, stages + 1, stages + 4])):
            await RisingEdge(dut.clk)
        await Timer(r.randint(t // 4, 3 * t // 4), unit="ps")
        new = r.getrandbits(width)
        value = new if new != value else value ^ 1
        din.value = value
        changes_in.append((now_ps(), value))
    for _ in range(stages + 2):
        await RisingEdge(dut.clk)
    await ReadOnly()
    assert not mismatches, mismatches[:5]

    # Every change shows up on `out` exactly at the STAGES-th edge after it, not one edge earlier.
    for tc, v in changes_in:
        t_out = edges.nth_after(tc, stages)
        assert out_after[t_out] == v, f"change to {v} at {tc} ps: not on out at {t_out} ps"
        assert out_after[edges.nth_after(tc, stages - 1)] != v, f"change at {tc} ps came early"
        assert (stages - 1) * t < t_out - tc < stages * t


@cocotb.test()
async def level_reset(dut):
    """`out` is 0 while rst is high, and restarts STAGES edges after rst falls."""
    r = rng()
    stages, width = params()["STAGES"], params()["WIDTH"]
    t, edges = await level_setup(dut, r)
    ones = (1 << width) - 1
    dut["in"].value = ones
    for _ in range(stages + 2):
        await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.out.value) == ones
    await Timer(t // 2, unit="ps")
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    await ReadOnly()
    assert int(dut.out.value) == 0, "out must clear at the first edge with rst high"
    await Timer(t // 2, unit="ps")
    dut.rst.value = 0
    t_rel = now_ps()
    for n in range(1, stages + 1):
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert now_ps() == edges.nth_after(t_rel, n)
        assert int(dut.out.value) == (ones if n == stages else 0), f"edge {n} after reset release"


# ------------------------------------------------------------------------------------ fp_sync_pulse


async def two_clock_setup(dut, r, source_input: str):
    """src_clk and dst_clk started (the second at a phase never coinciding with the first), both
    resets applied and released, `source_input` held at 0; returns (ts, td, src_edges, dst_edges)."""
    ts, td = periods_ps()
    dut.src_rst.value = 1
    dut.dst_rst.value = 1
    dut[source_input].value = 0
    src_edges, dst_edges = Edges(dut.src_clk), Edges(dut.dst_clk)
    await start_clock(dut.src_clk, ts, r, phase=False)
    await start_clock(dut.dst_clk, td, r, other=ts)
    await Timer(4 * max(ts, td), unit="ps")
    await RisingEdge(dut.src_clk)
    dut.src_rst.value = 0
    await RisingEdge(dut.dst_clk)
    dut.dst_rst.value = 0
    for _ in range(4):
        await RisingEdge(dut.src_clk)
    return ts, td, src_edges, dst_edges


class PulseMonitor:
    """Times (ps) of the src edges that accept a pulse (src_pulse && !src_busy), of those that
    sample a pulse while busy, and of the dst edges after which dst_pulse is high."""

    def __init__(self, dut, ts):
        self.accepted, self.merged, self.delivered = [], [], []
        self.too_long = 0

        def src(t_edge):
            if high(dut.src_pulse):
                (self.merged if high(dut.src_busy) else self.accepted).append(t_edge)

        cocotb.start_soon(before_edges(dut.src_clk, ts, src))
        cocotb.start_soon(self._dst(dut))

    async def _dst(self, dut):
        prev = False
        while True:
            await RisingEdge(dut.dst_clk)
            await ReadOnly()
            cur = high(dut.dst_pulse)
            if cur:
                self.delivered.append(now_ps())
                self.too_long += prev
            prev = cur


async def src_pulse_at_next_mid_cycle(dut, ts):
    """Raise src_pulse for exactly one src cycle, set and cleared mid-cycle."""
    await mid_cycle(dut.src_clk, ts)
    dut.src_pulse.value = 1
    await mid_cycle(dut.src_clk, ts)
    dut.src_pulse.value = 0


def min_spacing(ts, td, stages):
    """The documented minimum spacing, 2*(STAGES+1) cycles of the slower clock, in src cycles."""
    return -(-2 * (stages + 1) * max(ts, td) // ts)


@cocotb.test()
async def pulse_once_each(dut):
    """Pulses spaced by the documented minimum (plus random extra): src_busy is always low when a
    pulse comes, each is delivered exactly once as a one-cycle dst pulse, at exactly the
    STAGES-th dst edge after the src edge that took it."""
    r = rng()
    stages = params()["STAGES"]
    ts, td, src_edges, dst_edges = await two_clock_setup(dut, r, "src_pulse")
    mon = PulseMonitor(dut, ts)
    gap = min_spacing(ts, td, stages)
    n = 60
    for i in range(n):
        await src_pulse_at_next_mid_cycle(dut, ts)
        # src_pulse was set mid-cycle and sampled by exactly one edge; wait the spacing from it.
        for _ in range(gap - 2 + (r.randint(0, 3) if i % 2 else 0)):
            await RisingEdge(dut.src_clk)
    for _ in range(2 * gap):
        await RisingEdge(dut.src_clk)
    assert mon.merged == [], f"pulses given while src_busy at {mon.merged[:5]}"
    assert len(mon.accepted) == n
    assert len(mon.delivered) == n, f"{len(mon.delivered)} delivered for {n} pulses"
    assert mon.too_long == 0, "a dst pulse lasted more than one cycle"
    for ta, tdel in zip(mon.accepted, mon.delivered):
        assert tdel == dst_edges.nth_after(ta, stages), (ta, tdel)
        # In time: more than STAGES-1, at most STAGES dst periods after the src edge.
        assert (stages - 1) * td < tdel - ta <= stages * td


@cocotb.test()
async def pulse_busy_and_merge(dut):
    """src_busy rises right after an accepted pulse and falls once the acknowledgement is back
    (within the round-trip bounds); pulses given while busy are merged: random pulse trains
    deliver exactly one dst pulse per accepted src pulse (Python model: accepted = not busy)."""
    r = rng()
    stages = params()["STAGES"]
    ts, td, src_edges, dst_edges = await two_clock_setup(dut, r, "src_pulse")
    mon = PulseMonitor(dut, ts)

    busy_spans = []  # (rise, fall) times of src_busy, as seen after src edges

    async def watch_busy():
        rise = None
        while True:
            await RisingEdge(dut.src_clk)
            await ReadOnly()
            b = high(dut.src_busy)
            if b and rise is None:
                rise = now_ps()
            elif not b and rise is not None:
                busy_spans.append((rise, now_ps()))
                rise = None

    cocotb.start_soon(watch_busy())
    for _ in range(80):
        await mid_cycle(dut.src_clk, ts)
        # Random trains: src_pulse high for 1 to 3*STAGES+2 edges, separated by random gaps.
        dut.src_pulse.value = 1
        for _ in range(r.randint(1, 3 * stages + 2)):
            await RisingEdge(dut.src_clk)
        await Timer(ts // 2, unit="ps")
        dut.src_pulse.value = 0
        for _ in range(r.randint(0, 3 * min_spacing(ts, td, stages))):
            await RisingEdge(dut.src_clk)
    for _ in range(3 * min_spacing(ts, td, stages)):
        await RisingEdge(dut.src_clk)
    await ReadOnly()
    assert mon.merged, "the random trains should have pulsed while busy"
    assert len(mon.delivered) == len(mon.accepted), (len(mon.delivered), len(mon.accepted))
    assert mon.too_long == 0
    for ta, tdel in zip(mon.accepted, mon.delivered):
        assert tdel == dst_edges.nth_after(ta, stages), (ta, tdel)
    # Busy: high right after each accepted pulse's edge, low again at the STAGES-th src edge
    # after the dst edge that registers the toggle (the (STAGES+1)-th dst edge).
    assert len(busy_spans) == len(mon.accepted)
    for ta, (rise, fall) in zip(mon.accepted, busy_spans):
        assert rise == ta
        ack_dst = dst_edges.nth_after(ta, stages + 1)
        assert fall == src_edges.nth_after(ack_dst, stages), (ta, rise, fall)
        # The round trip: the documented minimum spacing covers it.
        assert fall - rise < 2 * (stages + 1) * max(ts, td)


# ------------------------------------------------------------------------------------ fp_sync_reset


@cocotb.test()
async def reset_assert_and_release(dut):
    """rst_out rises with rst_in, even with the clock stopped and between edges; it falls
    exactly at the STAGES-th clk edge after rst_in falls, and never in between."""
    r = rng()
    stages = params()["STAGES"]
    t, _ = periods_ps()
    dut.rst_in.value = 0
    await Timer(1, unit="ns")
    # No clock yet: the flops are X or random. Asserting rst_in must still set rst_out.
    dut.rst_in.value = 1
    await Timer(1, unit="ps")
    assert high(dut.rst_out), "rst_out must assert without a clock"
    edges = Edges(dut.clk)
    await start_clock(dut.clk, t, r)

    changes = []

    async def watch():
        while True:
            await dut.rst_out.value_change
            changes.append((now_ps(), high(dut.rst_out)))

    cocotb.start_soon(watch())
    for _ in range(40):
        for _ in range(r.randint(1, 2 * stages)):  # reset held 1 to 2*STAGES edges
            await RisingEdge(dut.clk)
        await Timer(r.randint(t // 4, 3 * t // 4), unit="ps")
        t_fall = now_ps()
        dut.rst_in.value = 0
        # Released at exactly the STAGES-th edge after rst_in fell.
        for n in range(1, stages + 1):
            await RisingEdge(dut.clk)
            await ReadOnly()
            assert high(dut.rst_out) == (n < stages), f"rst_out at edge {n} after rst_in fell"
        assert now_ps() == edges.nth_after(t_fall, stages)
        # Stay out of reset a random while, then assert between two edges.
        for _ in range(r.randint(0, 3)):
            await RisingEdge(dut.clk)
        await Timer(r.randint(t // 4, 3 * t // 4), unit="ps")
        t_rise = now_ps()
        dut.rst_in.value = 1
        await Timer(1, unit="ps")
        assert high(dut.rst_out), "rst_out must assert immediately"
        assert edges.count_between(t_rise, now_ps()) == 0
    # Every fall of rst_out happened exactly on a clk edge (synchronous release).
    falls = [tc for tc, v in changes if not v]
    assert len(falls) == 40
    assert all(tc in edges.times for tc in falls)


@cocotb.test()
async def reset_glitch(dut):
    """A rst_in glitch shorter than a cycle, between edges, keeps rst_out high for exactly
    STAGES clk edges (never a partial reset)."""
    r = rng()
    stages = params()["STAGES"]
    t, _ = periods_ps()
    dut.rst_in.value = 1
    await start_clock(dut.clk, t, r)
    await Timer(1, unit="ps")
    await RisingEdge(dut.clk)
    dut.rst_in.value = 0
    for _ in range(stages + 2):
        await RisingEdge(dut.clk)
    for _ in range(20):
        await mid_cycle(dut.clk, t)
        await Timer(r.randint(1, t // 8), unit="ps")  # cocotb: a Timer must be > 0
        dut.rst_in.value = 1
        await Timer(r.randint(1, t // 8), unit="ps")
        dut.rst_in.value = 0
        await ReadOnly()
        assert high(dut.rst_out), "the glitch must assert rst_out"
        # The next edge samples this 1; the following ones sample rst_out as left by each edge.
        seen = [1]
        for _ in range(stages + 1):
            await RisingEdge(dut.clk)
            await ReadOnly()
            seen.append(int(high(dut.rst_out)))
        assert seen == [1] * stages + [0, 0], f"rst_out sampled by successive edges: {seen}"
        await RisingEdge(dut.clk)


# ------------------------------------------------------------------------------------ pytest


@pytest.mark.parametrize("stages,width,clock", [(2, 1, "5.0"), (3, 8, "6.4"), (4, 3, "4.0")])
def test_sync_level(stages, width, clock):
    runner.run("fp_sync_level", __name__, {"STAGES": stages, "WIDTH": width},
               testcase=["level_latency", "level_reset"], env={"SYNC_CLOCKS": f"{clock},{clock}"})


@pytest.mark.parametrize("stages,clocks", [
    (2, "4.0,10.0"),   # fast source, slow destination
    (2, "10.0,4.0"),   # slow source, fast destination
    (3, "6.4,5.0"),
    (3, "5.0,6.4"),
])
def test_sync_pulse(stages, clocks):
    runner.run("fp_sync_pulse", __name__, {"STAGES": stages},
               testcase=["pulse_once_each", "pulse_busy_and_merge"], env={"SYNC_CLOCKS": clocks})


@pytest.mark.parametrize("stages,clock", [(2, "5.0"), (3, "8.0")])
def test_sync_reset(stages, clock):
    runner.run("fp_sync_reset", __name__, {"STAGES": stages},
               testcase=["reset_assert_and_release", "reset_glitch"], env={"SYNC_CLOCKS": f"{clock},{clock}"})


# ------------------------------------------------------------------------------------ fp_sync_gray


@cocotb.test()
async def gray_follows(dut):
    """A count that steps by 0 or +1 per src cycle (mid-cycle, with runs of steps every cycle
    and wrap-arounds) reaches dst_count exactly: after dst edge k it shows the count the src edge
    before dst edge k - STAGES sampled (1 src edge + STAGES + 1 dst edges), for every dst edge;
    so it never runs ahead of the source and never shows a value the count did not hold."""
    r = rng()
    stages, width = params()["STAGES"], params()["WIDTH"]
    mask = (1 << width) - 1
    ts, td, src_edges, dst_edges = await two_clock_setup(dut, r, "src_count")

    sampled = []          # (src edge time, count it sampled)
    shown = []            # (dst edge time, dst_count after it)

    def src(t_edge):
        sampled.append((t_edge, int(dut.src_count.value)))

    async def dst():
        while True:
            await RisingEdge(dut.dst_clk)
            await ReadOnly()
            shown.append((now_ps(), int(dut.dst_count.value)))

    cocotb.start_soon(before_edges(dut.src_clk, ts, src))
    cocotb.start_soon(dst())
    count = mask - 40     # wraps around during the test
    for _ in range(1500):
        await mid_cycle(dut.src_clk, ts)
        if r.random() < 0.7:
            count = (count + 1) & mask
            dut.src_count.value = count
    for _ in range(stages + 4):
        await RisingEdge(dut.dst_clk)
    await ReadOnly()
    t_src = [t for t, _ in sampled]
    checked = 0
    for k, (t_dst, v) in enumerate(shown):
        if t_dst < dst_edges.times[0] + (stages + 3) * td or t_dst <= sampled[0][0] + (stages + 2) * td:
            continue  # the pipeline still holds values from before the first recorded sample
        ref = dst_edges.times[dst_edges.times.index(t_dst) - stages]
        i = bisect.bisect_left(t_src, ref) - 1          # the last src edge strictly before it
        assert v == sampled[i][1], f"dst edge {t_dst} ps: {v}, expected {sampled[i][1]}"
        checked += 1
    assert checked > 0.9 * len(shown) > 500
    assert shown[-1][1] == count


@pytest.mark.parametrize("stages,width,clocks", [
    (2, 21, "8.0,8.0"),     # the node's port time into an RX clock of the same frequency
    (2, 8, "8.0,7.9"),      # a faster destination (a wrapping 8-bit count)
    (2, 12, "4.0,10.0"),    # a slower destination: steps of several counts
    (3, 16, "10.0,4.0"),
])
def test_sync_gray(stages, width, clocks):
    runner.run("fp_sync_gray", __name__, {"STAGES": stages, "WIDTH": width},
               testcase=["gray_follows"], env={"SYNC_CLOCKS": clocks})
