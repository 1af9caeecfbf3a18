"""fp_p4_tcam_merge: random pairs of block results against a Python merge, latency exactly 1.

The merge has no AXI4-Stream port and no backpressure (a valid-only pipeline), so the test drives
its pins directly: in_valid in bursts of random density, random hits on either side or both (A
must win), indexes anywhere in each block, garbage index/action on a side that does not hit (it
must be ignored), and a reset in the middle. Inputs change on the falling edge; the outputs are
checked in the read-only phase after each rising edge against the inputs of the edge before.
"""
import cocotb
import pytest
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start


def merge(a_entries, valid, a, b):
    """The reference: (valid, hit, index, action); A's hit wins, B's index moves up by A_ENTRIES."""
    if not valid:
        return (0, 0, 0, 0)
    if a[0]:
        return (1, 1, a[1], a[2])
    if b[0]:
        return (1, 1, a_entries + b[1], b[2])
    return (1, 0, 0, 0)


@cocotb.test()
async def random_results(dut):
    r = rng()
    p = params()
    na, nb, aw = p["A_ENTRIES"], p["B_ENTRIES"], p["ACTION_WIDTH"]
    wa, wb = max(1, (na - 1).bit_length()), max(1, (nb - 1).bit_length())
    for s in ("in_valid", "a_hit", "a_index", "a_action", "b_hit", "b_index", "b_action"):
        getattr(dut, s).value = 0
    await start(dut)
    want = (0, 0, 0, 0)
    seen = {"a": 0, "b": 0, "both": 0, "miss": 0}
    p_valid = 0.5
    for n in range(3000):
        if n % 50 == 0:
            p_valid = r.choice([0.1, 0.6, 1.0])
        rst = 1500 <= n < 1503
        valid = int(r.random() < p_valid)
        sides = []
        for entries, width in ((na, wa), (nb, wb)):
            hit = int(r.random() < 0.5)
            index = r.randrange(entries) if hit else r.getrandbits(width)   # garbage when no hit
            sides.append((hit, index, r.getrandbits(aw)))
        a, b = sides
        await FallingEdge(dut.clk)
        dut.rst.value = int(rst)
        dut.in_valid.value = valid
        dut.a_hit.value, dut.a_index.value, dut.a_action.value = a
        dut.b_hit.value, dut.b_index.value, dut.b_action.value = b
        await RisingEdge(dut.clk)
        await ReadOnly()
        got = (int(dut.out_valid.value), int(dut.out_hit.value), int(dut.out_index.value),
               int(dut.out_action.value))
        # the results of the inputs of this edge show now (latency 1); during rst: nothing
        want = (0, 0, 0, 0) if rst else merge(na, valid, a, b)
        assert got == want, f"cycle {n}: a {a} b {b} valid {valid}: got {got}, want {want}"
        if valid and not rst:
            seen["both" if a[0] and b[0] else "a" if a[0] else "b" if b[0] else "miss"] += 1
    dut._log.info("merged: %s", seen)
    assert min(seen.values()) > 100


@pytest.mark.parametrize("a_entries, b_entries, action_width",
                         [(32, 32, 16), (64, 32, 8), (5, 7, 1), (1, 1, 3), (3, 1, 4)])
def test_p4_tcam_merge(a_entries, b_entries, action_width):
    runner.run("fp_p4_tcam_merge", __name__, {"A_ENTRIES": a_entries, "B_ENTRIES": b_entries,
                                              "ACTION_WIDTH": action_width})
