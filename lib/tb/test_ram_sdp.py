"""fp_ram_sdp: random writes and reads against a Python dict, 1-cycle read latency (2 with the
output register, OUT_REG = 1), old data on a read of the address being written, rdata held while
ren is low.

The RAM has no stream interface, so this test drives its pins directly: no AXIS bus models and no
backpressure (there is no handshake to push back on). Inputs change on the falling edge and are
sampled on the rising edge; rdata is checked in the read-only phase after each rising edge.
"""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from fastpath.sim import runner
from fastpath.sim.tb import params, rng


async def cycle(dut, wen=0, waddr=0, wdata=0, ren=0, raddr=0):
    """Drive one cycle's inputs; return rdata just before and just after the rising edge."""
    await FallingEdge(dut.clk)
    dut.wen.value = wen
    dut.waddr.value = waddr
    dut.wdata.value = wdata
    dut.ren.value = ren
    dut.raddr.value = raddr
    await ReadOnly()
    before = int(dut.rdata.value) if dut.rdata.value.is_resolvable else None
    await RisingEdge(dut.clk)
    await ReadOnly()
    return before, int(dut.rdata.value) if dut.rdata.value.is_resolvable else None


@cocotb.test()
async def random_access(dut):
    r = rng()
    p = params()
    aw, dw, extra = p["ADDR_WIDTH"], p["DATA_WIDTH"], p["OUT_REG"]
    size = 1 << aw
    cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
    await cycle(dut)  # inputs driven before anything is checked

    mem = {}
    held = None  # last value read, which rdata must keep while ren is low
    # With the output register a read shows one edge later: `late` holds (ren, value) per cycle.
    late = [(False, None)] * extra

    async def step(wen=0, waddr=0, wdata=0, ren=0, raddr=0):
        """One cycle; returns (rdata before the edge, rdata after it, what should show now)."""
        before, out = await cycle(dut, wen, waddr, wdata, ren, raddr)
        late.append((bool(ren), mem.get(raddr) if ren else None))
        return before, out, late.pop(0)

    # Fill every address (so every later read is checkable), reading back the previous one.
    for a in range(size):
        word = r.getrandbits(dw)
        _, out, (shown, want) = await step(wen=1, waddr=a, wdata=word, ren=a > 0,
                                           raddr=a - 1 if a else 0)
        if shown:
            assert out == want, f"fill: read {a - 1 - extra}"
            held = out
        mem[a] = word

    same = stale = 0
    for i in range(4000):
        wen, ren = r.random() < 0.6, r.random() < 0.6
        waddr = r.randrange(size)
        raddr = waddr if r.random() < 0.25 else r.randrange(size)  # often read where we write
        wdata = r.getrandbits(dw)
        before, out, (shown, want) = await step(wen, waddr, wdata, ren, raddr)
        if held is not None:
            assert before == held, f"cycle {i}: rdata changed before the clock edge (latency short)"
        if ren:
            same += wen and waddr == raddr
            stale += wen and waddr == raddr and wdata != mem[raddr]
        if shown:
            assert out == want, f"cycle {i}: got {out if out is None else hex(out)}, want {want:#x}"
            held = want
        elif held is not None:
            assert out == held, f"cycle {i}: rdata changed while ren was low"
        if wen:
            mem[waddr] = wdata
    assert stale > 50, f"only {stale} reads of an address being written with new data"
    dut._log.info("%d reads during a write of the same address (old data returned)", same)

    # Read everything back once more (and `extra` more cycles for the last reads to show).
    for a in range(size + extra):
        _, out, (shown, want) = await step(ren=a < size, raddr=a % size)
        if shown:
            assert out == want, f"final: read {a - extra}"


@pytest.mark.parametrize("addr_width,data_width,out_reg", [(4, 8, 0), (10, 72, 0), (4, 8, 1),
                                                           (10, 72, 1)])
def test_ram_sdp(addr_width, data_width, out_reg):
    runner.run("fp_ram_sdp", __name__, {"ADDR_WIDTH": addr_width, "DATA_WIDTH": data_width,
                                     "OUT_REG": out_reg})
