"""timebase: exact fp_time after N cycles (integer model), load, rate adjustment, PPS capture."""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, Timer

from fastpath.sim import runner
from fastpath.sim.tb import params, rng

MASK64 = (1 << 64) - 1
MASK80 = (1 << 80) - 1


class Model:
    """The timebase in integers: a Q48.32 count, the remainder accumulator and the rate offset."""

    def __init__(self, num: int, den: int):
        self.num, self.den = num, den
        self.inc, self.rem = divmod(num << 32, den)
        self.count = 0
        self.acc = 0
        self.adj = 0
        self.pending = None  # a new offset: it applies from the step after the next one

    def set(self, t: int):
        self.count = t << 16
        self.acc = 0

    def step(self):
        self.acc += self.rem
        carry = self.acc >= self.den
        if carry:
            self.acc -= self.den
        self.count = (self.count + self.inc + carry + self.adj) & MASK80
        if self.pending is not None:
            self.adj, self.pending = self.pending, None

    @property
    def now(self) -> int:
        return self.count >> 16


def period():
    p = params()
    return p.get("PERIOD_NUM", 8), p.get("PERIOD_DEN", 1)


async def setup(dut):
    dut.set_valid.value = 0
    dut.set_time.value = 0
    dut.adj_valid.value = 0
    dut.adj_delta.value = 0
    dut.pps.value = 0
    cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0


async def skip_cycles(dut, n: int):
    """Return at the n-th rising edge from here (from a point inside a cycle or at an edge),
    without waking up on every edge."""
    await FallingEdge(dut.clk)
    await Timer((n - 1) * 8 + 2, unit="ns")
    await RisingEdge(dut.clk)


async def now(dut) -> int:
    await ReadOnly()
    return int(dut.now.value)


@cocotb.test()
async def exact_after_n_cycles(dut):
    """From reset and from a load: `now` equals the integer model every cycle and after 40,000 more."""
    num, den = period()
    await setup(dut)
    # Reset released at this edge: the first step happens at the next one.
    m = Model(num, den)
    assert await now(dut) == 0
    for _ in range(600):
        await RisingEdge(dut.clk)
        m.step()
        assert await now(dut) == m.now
    # closed form: floor(n * NUM * 2^16 / DEN) after n cycles
    await RisingEdge(dut.clk)
    m.step()
    n0 = 601
    assert await now(dut) == (n0 * num << 16) // den
    big = 40_000
    await skip_cycles(dut, big)
    assert await now(dut) == ((n0 + big) * num << 16) // den

    # a load: now == set_time in the next cycle, then set_time + floor(k * NUM * 2^16 / DEN)
    r = rng()
    for t0 in (r.getrandbits(64), MASK64 - (5000 << 16)):  # the second one wraps past 2^64
        await FallingEdge(dut.clk)
        dut.set_valid.value = 1
        dut.set_time.value = t0
        await RisingEdge(dut.clk)
        await FallingEdge(dut.clk)
        dut.set_valid.value = 0
        await ReadOnly()
        assert int(dut.now.value) == t0
        for k in range(1, 1000):
            await RisingEdge(dut.clk)
            assert await now(dut) == (t0 + ((k * num << 16) // den)) & MASK64, k


@cocotb.test()
async def rate_adjustment(dut):
    """adj_delta replaces the rate offset (2^-32 ns per cycle) from the second step after the
    adj_valid edge on (the stated 2-cycle latency)."""
    num, den = period()
    r = rng()
    await setup(dut)
    m = Model(num, den)
    await FallingEdge(dut.clk)
    t0 = r.getrandbits(60)
    dut.set_valid.value = 1
    dut.set_time.value = t0
    await RisingEdge(dut.clk)
    m.set(t0)
    await FallingEdge(dut.clk)
    dut.set_valid.value = 0
    for _ in range(8):
        adj = r.choice([r.randint(-(1 << 31), (1 << 31) - 1), r.randint(-3000, 3000), 1, -1, 0])
        hold = r.randint(1, 400)
        # adj_valid sampled at the next edge; the offset applies from the second step after it
        dut.adj_valid.value = 1
        dut.adj_delta.value = adj & 0xFFFF_FFFF
        await RisingEdge(dut.clk)
        m.step()
        m.pending = adj
        assert await now(dut) == m.now
        await FallingEdge(dut.clk)
        dut.adj_valid.value = 0
        for _ in range(hold):
            await RisingEdge(dut.clk)
            m.step()
            assert await now(dut) == m.now
        await FallingEdge(dut.clk)
    # long run with a fixed offset: the closed form still holds (no drift); the first step after
    # the load still has the previous offset
    last = m.adj
    adj = 123_456
    dut.adj_valid.value = 1
    dut.adj_delta.value = adj
    dut.set_valid.value = 1
    dut.set_time.value = 0
    await RisingEdge(dut.clk)
    dut.adj_valid.value = 0
    dut.set_valid.value = 0
    k = 20_000
    await skip_cycles(dut, k)
    expect = (last + (k - 1) * adj + ((k * num << 32) // den)) >> 16
    assert await now(dut) == expect


@cocotb.test()
async def pps_capture(dut):
    """A PPS rising anywhere in a cycle gives pps_time = `now` of the cycle after the first edge
    that samples it high, and pps_valid exactly 2 cycles after that edge, once per PPS edge."""
    r = rng()
    await setup(dut)
    await ClockCycles(dut.clk, 5)
    history = []  # `now` after each edge, in edge order

    async def record():
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            history.append((int(dut.now.value), str(dut.pps_valid.value) == "1", int(dut.pps_time.value)))

    cocotb.start_soon(record())
    for _ in range(6):
        await RisingEdge(dut.clk)
        await Timer(r.randint(1, 7), unit="ns")  # inside the cycle, never on an edge
        dut.pps.value = 1
        base = len(history)  # the next edge (index base) is the first to sample pps high
        high_cycles = r.randint(3, 20)
        await ClockCycles(dut.clk, high_cycles)
        await Timer(1, unit="ns")
        dut.pps.value = 0
        await ClockCycles(dut.clk, r.randint(4, 30))
        pulses = [i for i in range(base, len(history)) if history[i][1]]
        assert pulses == [base + 2], (pulses, base)
        assert history[base + 2][2] == history[base][0]


@cocotb.test()
async def reset_clears(dut):
    """A reset mid-run brings now, the offset and the remainder back to 0."""
    num, den = period()
    await setup(dut)
    dut.adj_valid.value = 1
    dut.adj_delta.value = 999
    await ClockCycles(dut.clk, 77)
    dut.adj_valid.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    assert await now(dut) == 0
    for n in range(1, 50):
        await RisingEdge(dut.clk)
        assert await now(dut) == (n * num << 16) // den


@cocotb.test()
async def now_next_predicts_now(dut):
    """now_next in every cycle equals the `now` after the next edge, through random sets, rate
    adjustments and a reset (a register loaded with it is a copy of `now`)."""
    r = rng()
    await setup(dut)
    for cycle in range(400):
        dut.set_valid.value = int(r.random() < 0.05)
        dut.set_time.value = r.getrandbits(64)
        dut.adj_valid.value = int(r.random() < 0.1)
        dut.adj_delta.value = r.getrandbits(31) >> r.randint(0, 30)
        dut.rst.value = int(cycle in (150, 151))
        await ReadOnly()
        predicted = int(dut.now_next.value)
        await RisingEdge(dut.clk)
        await ReadOnly()
        assert int(dut.now.value) == predicted, cycle
        await Timer(1, unit="ns")
    dut.set_valid.value = 0
    dut.adj_valid.value = 0
    dut.rst.value = 0


@pytest.mark.parametrize("num,den", [(8, 1), (32, 5), (5, 1), (20, 3)])
def test_timebase(num, den):
    runner.run("fp_timebase", __name__, {"PERIOD_NUM": num, "PERIOD_DEN": den})
