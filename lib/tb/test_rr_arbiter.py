"""fp_rr_arbiter: cycle-by-cycle comparison with a Python round-robin model, one-hot, starvation bound.

The arbiter has no AXI4-Stream ports, so no bus models or backpressure apply here: the test drives
req and ack directly with random patterns (random ack plays the part of backpressure) and checks
the combinational (0-cycle latency) grant in the same cycle as the req that causes it.
"""
import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start


class Model:
    """The reference: pointer = highest priority; ack of grant i moves it to i + 1."""

    def __init__(self, n):
        self.n = n
        self.ptr = 0
        self.waits = [0] * n  # acks given to others while requester i kept requesting ungranted
        self.max_wait = 0

    def grant(self, req):
        for k in range(self.n):
            i = (self.ptr + k) % self.n
            if req >> i & 1:
                return i
        return None

    def clock(self, req, ack):
        """Advance one cycle (after checking this cycle's outputs)."""
        g = self.grant(req)
        if not (ack and g is not None):
            for i in range(self.n):
                if not req >> i & 1:
                    self.waits[i] = 0
            return
        self.ptr = (g + 1) % self.n
        for i in range(self.n):
            if i == g or not req >> i & 1:
                self.waits[i] = 0
            else:
                self.waits[i] += 1
                self.max_wait = max(self.max_wait, self.waits[i])


async def setup(dut):
    dut.req.value = 0
    dut.ack.value = 0
    await start(dut)
    return params()["N"]


async def cycle(dut, model, req, ack):
    """Drive req/ack for one cycle, compare the outputs with the model, step both at the edge."""
    dut.req.value = req
    dut.ack.value = ack
    await ReadOnly()
    want = model.grant(req)
    grant = int(dut.grant.value)
    assert grant & (grant - 1) == 0, f"grant {grant:b} not one-hot"
    assert grant & ~req == 0, f"grant {grant:b} outside req {req:b}"
    if want is None:
        assert grant == 0 and int(dut.grant_valid.value) == 0, f"req 0: grant {grant:b}"
    else:
        assert grant == 1 << want, f"ptr {model.ptr} req {req:b}: grant {grant:b}, want bit {want}"
        assert int(dut.grant_valid.value) == 1
        assert int(dut.grant_index.value) == want
    model.clock(req, ack)
    assert model.max_wait <= model.n - 1, f"starvation: {model.max_wait} acks to others"
    await RisingEdge(dut.clk)
    return want


@cocotb.test()
async def random_requests(dut):
    """Independent random req every cycle at varying density, random ack (also with no grant)."""
    r = rng()
    n = await setup(dut)
    model = Model(n)
    for _ in range(1500):
        density = r.choice([0.1, 0.5, 0.9])
        req = sum(1 << i for i in range(n) if r.random() < density)
        await cycle(dut, model, req, int(r.random() < 0.6))


@cocotb.test()
async def sticky_requests(dut):
    """Requesters hold req until their grant is acknowledged (as real users do), random ack:
    every request is served, within N-1 acknowledged grants of others."""
    r = rng()
    n = await setup(dut)
    model = Model(n)
    req = 0
    raised = served = 0
    for step in range(2000 + n):
        if step < 2000:  # then n cycles of drain: every pending request must be served
            new = sum(1 << i for i in range(n) if r.random() < 0.1) & ~req
            raised += bin(new).count("1")
            req |= new
        ack = int(r.random() < 0.5) if step < 2000 else 1
        g = await cycle(dut, model, req, ack)
        if ack and g is not None:
            req &= ~(1 << g)
            served += 1
    assert req == 0 and served == raised
    if n > 1:
        assert model.max_wait > 0  # the bound was exercised, not vacuous


@cocotb.test()
async def full_rotation(dut):
    """All requesting, ack every cycle: one grant per cycle, in order 0, 1, ..., N-1, 0, ...;
    the worst-case wait is exactly N-1 acknowledged grants. Reset returns the pointer to 0."""
    n = await setup(dut)
    model = Model(n)
    everyone = (1 << n) - 1
    order = [await cycle(dut, model, everyone, 1) for _ in range(3 * n + 1)]
    assert order == [i % n for i in range(3 * n + 1)]
    assert model.max_wait == n - 1
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    model.ptr = 0
    assert await cycle(dut, model, everyone, 0) == 0


@pytest.mark.parametrize("n", [1, 3, 8, 12])
def test_rr_arbiter(n):
    runner.run("fp_rr_arbiter", __name__, {"N": n})
