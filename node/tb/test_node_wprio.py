"""fp_node_wprio: two-class round-robin arbiter, cycle by cycle against a model of its two pointers.

The arbiter has no AXI4-Stream ports (no bus models or backpressure apply): one coroutine drives
req and ack directly with random patterns (random ack plays the part of backpressure) and checks
the combinational (latency 0) grant, grant_valid and grant_index in the same cycle as the req
that causes them.

The model is two fp_rr_arbiter pointers: the high class (requesters 0..HI-1) is granted whenever
any of it asks, round robin from its pointer; otherwise the low class (HI..N-1), round robin from
its own. An acknowledged grant moves only the granted class's pointer, to the granted index + 1
(in the class, cyclically). HI = N is a plain fp_rr_arbiter (one pointer over all N).

Bounds checked on every acknowledged grant: a high-class requester that keeps req high sees at
most HI - 1 acknowledged grants of others before its own (so it is granted within HI acknowledged
grants), whatever the low class does; a low-class requester sees at most LO - 1 acknowledged
low-class grants of others before its own.
"""
import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start


class Model:
    """The two pointers (fp_rr_arbiter semantics in each class) and the wait counters."""

    def __init__(self, n, hi):
        self.n, self.hi, self.lo = n, hi, n - hi
        self.reset()
        self.max_wait_hi = 0    # acknowledged grants of others while a high requester waited
        self.max_wait_lo = 0    # acknowledged low-class grants of others while a low one waited
        self.waits = [0] * n

    def reset(self):
        self.hp = 0
        self.lp = 0

    def grant(self, req):
        for k in range(self.hi):
            i = (self.hp + k) % self.hi
            if req >> i & 1:
                return i
        for k in range(self.lo):
            i = self.hi + (self.lp + k) % self.lo
            if req >> i & 1:
                return i
        return None

    def clock(self, req, ack):
        """Advance one cycle (after this cycle's outputs were checked)."""
        g = self.grant(req)
        for i in range(self.n):
            if not req >> i & 1:
                self.waits[i] = 0
        if not (ack and g is not None):
            return
        if g < self.hi:
            self.hp = (g + 1) % self.hi
        else:
            self.lp = (g - self.hi + 1) % self.lo
        for i in range(self.n):
            if i == g or not req >> i & 1:
                self.waits[i] = 0
            elif i < self.hi:
                self.waits[i] += 1
                self.max_wait_hi = max(self.max_wait_hi, self.waits[i])
            elif g >= self.hi:
                self.waits[i] += 1
                self.max_wait_lo = max(self.max_wait_lo, self.waits[i])


async def setup(dut):
    dut.req.value = 0
    dut.ack.value = 0
    await start(dut)
    p = params()
    return Model(p["N"], p["HI"])


async def cycle(dut, model, req, ack):
    """Drive req/ack for one cycle, compare the outputs with the model, step both at the edge."""
    dut.req.value = req
    dut.ack.value = ack
    await ReadOnly()
    want = model.grant(req)
    grant = int(dut.grant.value)
    gv = int(dut.grant_valid.value)
    state = f"req {req:0{model.n}b} hp {model.hp} lp {model.lp}"
    if want is None:
        assert grant == 0 and gv == 0, f"{state}: grant {grant:b} valid {gv}, expected none"
    else:
        assert grant == 1 << want, f"{state}: grant {grant:0{model.n}b}, expected bit {want}"
        assert gv == 1, f"{state}: grant_valid 0"
        assert int(dut.grant_index.value) == want, \
            f"{state}: grant_index {int(dut.grant_index.value)}, expected {want}"
    model.clock(req, ack)
    assert model.max_wait_hi <= model.hi - 1, \
        f"{state}: a high requester waited {model.max_wait_hi} acknowledged grants"
    assert model.max_wait_lo <= max(model.lo - 1, 0), \
        f"{state}: a low requester waited {model.max_wait_lo} low-class grants"
    await RisingEdge(dut.clk)
    return want


@cocotb.test()
async def random_requests(dut):
    """Independent random req every cycle at varying density per class, random ack (also in
    cycles without a grant)."""
    r = rng()
    model = await setup(dut)
    n, hi = model.n, model.hi
    counts = [0] * n
    for _ in range(3000):
        dh, dl = r.choice([0.0, 0.1, 0.5, 0.9]), r.choice([0.1, 0.5, 0.9])
        req = sum(1 << i for i in range(n) if r.random() < (dh if i < hi else dl))
        ack = int(r.random() < 0.6)
        g = await cycle(dut, model, req, ack)
        if ack and g is not None:
            counts[g] += 1
    assert all(c > 0 for c in counts), f"a requester was never granted: {counts}"


@cocotb.test()
async def sticky_requests(dut):
    """Requesters hold req until their grant is acknowledged (the node's use: one request per
    frame), rare enough that the high class leaves room: every request is served, a high one
    within HI acknowledged grants (its own included)."""
    r = rng()
    model = await setup(dut)
    n, hi = model.n, model.hi
    req = raised = served = 0
    for step in range(3000 + 4 * n):
        if step < 3000:  # then a drain with ack every cycle: every pending request is served
            new = sum(1 << i for i in range(n) if r.random() < (0.06 if i < hi else 0.1)) & ~req
            raised += bin(new).count("1")
            req |= new
        ack = int(r.random() < 0.5) if step < 3000 else 1
        g = await cycle(dut, model, req, ack)
        if ack and g is not None:
            req &= ~(1 << g)
            served += 1
    assert req == 0 and served == raised, f"left {req:b}, served {served} of {raised}"
    if hi > 1:
        assert model.max_wait_hi > 0, "the high-class bound was never exercised"


@cocotb.test()
async def full_rotation(dut):
    """Everyone asks, ack every cycle: the high class rotates 0..HI-1 and the low class never
    gets a grant (the documented starvation); the worst wait is exactly HI - 1. With only the
    low class asking it rotates HI..N-1; reset returns both pointers to 0."""
    model = await setup(dut)
    n, hi = model.n, model.hi
    everyone = (1 << n) - 1
    order = [await cycle(dut, model, everyone, 1) for _ in range(3 * hi + 1)]
    assert order == [i % hi for i in range(3 * hi + 1)], order
    assert model.max_wait_hi == hi - 1
    if n > hi:
        low = everyone & ~((1 << hi) - 1)
        lo = n - hi
        order = [await cycle(dut, model, low, 1) for _ in range(2 * lo + 1)]
        assert order == [hi + i % lo for i in range(2 * lo + 1)], order
        # a high request takes over at once, from its class's pointer (1 after the rotation)
        assert await cycle(dut, model, low | 0b1, 1) == 0
    # move both pointers off 0, then reset
    await cycle(dut, model, 1, 1)
    if n > hi:
        await cycle(dut, model, 1 << hi, 1)
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    dut.rst.value = 0
    model.reset()
    assert await cycle(dut, model, everyone, 0) == 0
    if n > hi:
        assert await cycle(dut, model, everyone & ~((1 << hi) - 1), 0) == hi


@cocotb.test()
async def ack_without_grant(dut):
    """ack while nothing asks (or while the other class holds the grant) moves no pointer."""
    r = rng()
    model = await setup(dut)
    n, hi = model.n, model.hi
    for _ in range(400):
        req = r.getrandbits(n) if r.random() < 0.5 else 0
        if r.random() < 0.3 and n > hi:
            req &= (1 << hi) - 1      # only the high class: an ack must leave the low pointer
        await cycle(dut, model, req, 1)


@pytest.mark.parametrize("n,hi", [(6, 4), (14, 12), (3, 2), (4, 4)])
def test_node_wprio(n, hi):
    runner.run("fp_node_wprio", __name__, {"N": n, "HI": hi})
