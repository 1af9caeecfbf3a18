"""fp_fifo_fwft: random push/pop against a Python deque, exact latency, one push and one pop per
cycle at every fill level, reset mid-stream; with HEAD_REG 0 (read ahead), 1 (head register),
2 (head always a register; pops at most every other cycle) and 3 (the RAM's read data straight
into a register, a front queue of 4 registers: the same ports and behaviour as 0 and 1).

A `Fifo` driver runs the ports: before every rising edge (at the falling edge) it checks `empty`,
`count` and `head` against the model (a deque of the words pushed and not yet popped), then picks
this cycle's push/pop at random, respecting the module's own flow-control outputs (pop only when
`empty` is low; push only when count < DEPTH, or together with a pop when count == DEPTH), and
applies them to the model for the coming edge. With HEAD_REG 2 the driver never pops in the cycle
after a pop (the caller's rule of that mode). So every cycle asserts the stated latency: a word
pushed into an empty FIFO at an edge is `head` (empty low, count 1) right after that edge.
"""
from collections import deque

import cocotb
import pytest
from cocotb.triggers import FallingEdge, RisingEdge

from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start


class Fifo:
    """Drives push/pop/push_data and checks the outputs every cycle (see the module docstring)."""

    def __init__(self, dut):
        p = params()
        self.dut = dut
        self.width = p.get("WIDTH", 12)
        self.depth = p.get("DEPTH", 16)
        self.model = deque()
        self.pop_gap = p.get("HEAD_REG", 0) == 2  # no pop in the cycle after a pop
        self.popped = False
        self.pushes = self.pops = 0
        self.stats = {"full": 0, "empty": 0, "push_into_empty": 0, "push_pop_full": 0, "push_pop_one": 0}
        self.idle()

    def idle(self):
        self.dut.push.value = 0
        self.dut.pop.value = 0
        self.dut.push_data.value = 0
        self.popped = False

    def check(self):
        """Outputs (registered; sampled between edges) against the model."""
        dut, n = self.dut, len(self.model)
        count = int(dut.count.value)
        empty = int(dut.empty.value)
        assert count == n, f"count {count}, model {n}"
        assert empty == int(n == 0), f"empty {empty} with {n} entries"
        if n:
            head = int(dut.head.value)
            assert head == self.model[0], f"head {head:#x}, model {self.model[0]:#x} ({n} entries)"
        self.stats["full"] += n == self.depth
        self.stats["empty"] += n == 0
        return count, empty

    async def cycle(self, want_push, want_pop, data=None, r=None):
        """One clock cycle: check the outputs, then push/pop as asked where the module allows it.
        Returns (pushed, popped)."""
        await FallingEdge(self.dut.clk)
        count, empty = self.check()
        pop = bool(want_pop) and not empty and not (self.pop_gap and self.popped)
        push = bool(want_push) and (count < self.depth or pop)
        if data is None:
            data = r.getrandbits(self.width) if r else 0
        self.dut.push.value = int(push)
        self.dut.pop.value = int(pop)
        self.dut.push_data.value = data
        if push:
            self.stats["push_into_empty"] += count == 0
            self.stats["push_pop_full"] += pop and count == self.depth
            self.stats["push_pop_one"] += pop and count == 1
        self.popped = pop
        if pop:
            self.model.popleft()
            self.pops += 1
        if push:
            self.model.append(data)
            self.pushes += 1
        return push, pop

    async def run(self, r, cycles, p_push, p_pop):
        for _ in range(cycles):
            await self.cycle(r.random() < p_push, r.random() < p_pop, r=r)

    async def drain(self):
        for _ in range(2 * self.depth + 2):
            await self.cycle(False, True)
        await self.cycle(False, False)
        assert not self.model


async def setup(dut):
    f = Fifo(dut)  # drives the inputs idle before reset (Icarus has X otherwise)
    await start(dut)
    return f


@cocotb.test()
async def random_traffic(dut):
    """Random push/pop (filling, draining, balanced, bursty): every cycle's outputs == model;
    the FIFO reaches full and empty, and pushes with pops at full and at one entry."""
    r = rng()
    f = await setup(dut)
    for p_push, p_pop in [(0.8, 0.3), (0.3, 0.8), (0.5, 0.5), (0.95, 0.95), (0.9, 0.6), (0.2, 0.2)]:
        await f.run(r, 600, p_push, p_pop)
    await f.drain()
    dut._log.info("%d pushes, %d pops, %s", f.pushes, f.pops, f.stats)
    assert f.pushes == f.pops > 1000
    for k, v in f.stats.items():
        assert v > 0, f"never hit: {k}"


@cocotb.test()
async def latency(dut):
    """Push into an empty FIFO at an edge -> head (count 1, empty low) right after that edge;
    popping the last entry -> empty right after the edge; a push with the pop of the last entry
    -> the new word is head right after the edge. Checked explicitly here (and by every cycle)."""
    r = rng()
    f = await setup(dut)
    for _ in range(20):
        word = r.getrandbits(f.width)
        await f.cycle(True, False, data=word)  # push into empty at the next edge
        await FallingEdge(dut.clk)  # one cycle later
        assert int(dut.empty.value) == 0 and int(dut.count.value) == 1
        assert int(dut.head.value) == word
        f.idle()
        word2 = r.getrandbits(f.width)
        await RisingEdge(dut.clk)
        await f.cycle(True, True, data=word2)  # pop word, push word2 (count stays 1)
        await FallingEdge(dut.clk)
        assert int(dut.count.value) == 1 and int(dut.head.value) == word2
        f.idle()
        await RisingEdge(dut.clk)
        await f.cycle(False, True)  # pop the last entry
        await FallingEdge(dut.clk)
        assert int(dut.empty.value) == 1 and int(dut.count.value) == 0
        f.idle()
        await RisingEdge(dut.clk)
        for _ in range(r.randint(0, 3)):
            await f.cycle(False, False)
    await f.cycle(False, False)


@cocotb.test()
async def throughput(dut):
    """At every fill level 1..DEPTH: one push and one pop in every cycle for a long run (HEAD_REG 2:
    in every other cycle, the cycles between idle), the level stays, every word comes out in order
    (the model checks head every cycle)."""
    r = rng()
    f = await setup(dut)
    for level in range(1, f.depth + 1):
        while len(f.model) < level:
            assert (await f.cycle(True, False, r=r)) == (True, False)
        for _ in range(60):
            assert (await f.cycle(True, True, r=r)) == (True, True), f"level {level}: no push+pop"
            if f.pop_gap:
                await f.cycle(False, False)
        assert len(f.model) == level
    await f.drain()


@cocotb.test()
async def reset_mid_stream(dut):
    """A reset with the FIFO part full empties it (empty, count 0 right after); traffic after it
    is clean."""
    r = rng()
    f = await setup(dut)
    await f.run(r, 200, 0.7, 0.3)
    while not f.model:
        await f.cycle(True, False, r=r)
    await FallingEdge(dut.clk)
    f.idle()
    dut.rst.value = 1
    await RisingEdge(dut.clk)
    await RisingEdge(dut.clk)
    await FallingEdge(dut.clk)
    dut.rst.value = 0
    assert int(dut.empty.value) == 1 and int(dut.count.value) == 0
    f.model.clear()
    await RisingEdge(dut.clk)
    await f.run(r, 800, 0.6, 0.5)
    await f.drain()


PARAMS = [
    dict(WIDTH=12, DEPTH=16),  # fp_node_buffer's free list / queue size class
    dict(WIDTH=33, DEPTH=2),   # smallest FIFO: bypass and full cases every few cycles
    dict(WIDTH=11, DEPTH=16, HEAD_REG=1),  # fp_node_buffer's free list: the pop off the RAM address
    dict(WIDTH=33, DEPTH=2, HEAD_REG=1),
    dict(WIDTH=10, DEPTH=16, HEAD_REG=2),  # fp_node_buffer's output queues: head always a register
    dict(WIDTH=33, DEPTH=2, HEAD_REG=2),
    dict(WIDTH=7, DEPTH=4, HEAD_REG=2),
    dict(WIDTH=10, DEPTH=16, HEAD_REG=3),  # fp_node_wbuf's free list / frames to free
    dict(WIDTH=33, DEPTH=2, HEAD_REG=3),   # everything fits in the front queue
    dict(WIDTH=7, DEPTH=8, HEAD_REG=3),
]


@pytest.mark.parametrize("parameters", PARAMS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_fifo_fwft(parameters):
    runner.run("fp_fifo_fwft", __name__, parameters)
