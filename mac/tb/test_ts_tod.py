"""fp_ts_tod: fp_time -> (tv_sec, tv_usec) against fastpath.ptrain.frame.pktgen_time, the Python
reference the tester's frames are checked with, in both variants (USE_DSP = 0: carry-save adders in
the fabric; 1: the ECP5/7-series multipliers).

One input per cycle (with random idle cycles), checked cycle by cycle: out_valid exactly LATENCY
cycles after in_valid with that input's result, the outputs held while no result arrives. Inputs:
the edges of every reciprocal (10^9 k - 1, 10^9 k, 10^9 k + 999 / + 1000 around the microsecond,
over the whole 2^48 ns range, 2^48 - 1, 0), random fraction bits, and random 64-bit values.
"""
import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.ptrain.frame import pktgen_time
from fastpath.sim import runner
from fastpath.sim.tb import high, rng, start

LATENCY = 5  # in_valid in cycle c -> out_valid (with its result) in cycle c + 5
NS = 1 << 16
SPAN = 1 << 48  # ns


def edge_inputs(r) -> list[int]:
    """fp_time values at the boundaries where an exact quotient could go wrong."""
    out = [0, (SPAN - 1) * NS, (SPAN - 1) * NS + 0xFFFF, (1 << 64) - 1]
    top = (SPAN - 1) // 10**9  # 281,474 whole seconds in the span
    ks = list(range(0, 40)) + list(range(top - 40, top + 1)) + [r.randint(0, top) for _ in range(300)]
    for k in ks:
        for d in (-1001, -1000, -999, -1, 0, 1, 999, 1000, 999_999 * 1000 + 999):
            ns = k * 10**9 + d
            if 0 <= ns < SPAN:
                out.append(ns * NS + r.choice([0, 0xFFFF, r.getrandbits(16)]))
    # microsecond boundaries inside a second
    for _ in range(400):
        ns = r.randint(0, top) * 10**9 + r.randint(0, 999_999) * 1000 + r.choice([-1, 0, 999])
        if 0 <= ns < SPAN:
            out.append(ns * NS + r.getrandbits(16))
    return out


@cocotb.test()
async def conversions(dut):
    r = rng()
    dut.in_valid.value = 0
    dut.in_time.value = 0
    await start(dut, period_ns=6.4)
    inputs = edge_inputs(r) + [r.getrandbits(64) for _ in range(6000)]
    r.shuffle(inputs)
    pending = {}  # cycle -> expected (tv_sec, tv_usec)
    held = None
    cycle = 0
    i = 0
    checked = 0
    while i < len(inputs) or pending:
        # drive cycle `cycle` (the values are sampled by the edge that ends it)
        if i < len(inputs) and r.random() < 0.85:
            t = inputs[i]
            i += 1
            dut.in_valid.value = 1
            dut.in_time.value = t
            sec, usec = pktgen_time(t)
            pending[cycle + LATENCY] = (sec, usec)
        else:
            dut.in_valid.value = 0
            dut.in_time.value = r.getrandbits(64)  # ignored without in_valid
        await ReadOnly()
        want = pending.pop(cycle, None)
        got_valid = high(dut.out_valid)
        assert got_valid == (want is not None), f"cycle {cycle}: out_valid {got_valid}"
        got = (int(dut.out_tv_sec.value), int(dut.out_tv_usec.value))
        if want is not None:
            assert got == want, f"cycle {cycle}: {got} != {want}"
            held = want
            checked += 1
        elif held is not None:
            assert got == held, f"cycle {cycle}: outputs changed without out_valid"
        await RisingEdge(dut.clk)
        cycle += 1
    assert checked == len(inputs)


@pytest.mark.parametrize("use_dsp", [0, 1])
def test_ts_tod(use_dsp):
    runner.run("fp_ts_tod", __name__, {"USE_DSP": use_dsp})
