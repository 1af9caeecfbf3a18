"""fp_ram_sdp_dc: random writes on wclk and random reads on rclk, running at the same time with
unrelated clocks, against a Python model; exact 1-cycle read latency; rdata holds while ren is low.

The RAM gives undefined data when one address is read and written at the same instant from the
two domains, which its user (fp_axis_async_fifo) never does. The test keeps the two ports on
different halves of the address space: in each epoch the writer fills one half while the reader
checks the other half (written in the previous epoch), then they swap.

Clocks: $RAM_CLOCKS = "wclk,rclk" periods in ns.
"""
import os

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge, Timer, gather

from fastpath.sim import runner
from fastpath.sim.tb import params, rng


def periods_ps():
    w, r = (float(x) for x in os.environ.get("RAM_CLOCKS", "5.0,5.0").split(","))
    return round(w * 1000), round(r * 1000)


class Tb:
    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        p = params()
        self.aw, self.dw = p["ADDR_WIDTH"], p["DATA_WIDTH"]
        self.tw, self.tr = periods_ps()
        self.mem = {}
        self.reads = 0

    async def start(self):
        dut = self.dut
        dut.wen.value = 0
        dut.ren.value = 0
        dut.waddr.value = 0
        dut.raddr.value = 0
        dut.wdata.value = 0
        cocotb.start_soon(Clock(dut.wclk, self.tw, unit="ps").start())
        await Timer(self.r.randint(1, self.tr - 1), unit="ps")
        cocotb.start_soon(Clock(dut.rclk, self.tr, unit="ps").start())
        await RisingEdge(dut.rclk)

    def half(self, h):
        size = 1 << (self.aw - 1)
        return range(h * size, (h + 1) * size)

    async def write(self, addrs, n, p_idle):
        """n write cycles on wclk to random addresses of `addrs`; idle cycles with probability
        p_idle. Inputs change on the falling edge, the model updates at the rising edge."""
        dut = self.dut
        for _ in range(n):
            await FallingEdge(dut.wclk)
            if self.r.random() < p_idle:
                dut.wen.value = 0
                dut.waddr.value = self.r.getrandbits(self.aw)  # ignored while wen is low
                continue
            a, d = self.r.choice(addrs), self.r.getrandbits(self.dw)
            dut.wen.value, dut.waddr.value, dut.wdata.value = 1, a, d
            await RisingEdge(dut.wclk)
            self.mem[a] = d
        await FallingEdge(dut.wclk)
        dut.wen.value = 0

    async def read(self, addrs, n, p_idle):
        """n read cycles on rclk from random addresses of `addrs`, idle with probability p_idle.
        After the rclk edge that samples ren=1, rdata must be the model's word (latency 1);
        after an edge with ren=0 it must still hold the previous word."""
        dut = self.dut
        expect = None
        for _ in range(n):
            await FallingEdge(dut.rclk)
            read = self.r.random() >= p_idle
            a = self.r.choice(addrs)
            dut.ren.value, dut.raddr.value = int(read), a
            await RisingEdge(dut.rclk)
            await ReadOnly()
            if read:
                expect = self.mem[a]
                self.reads += 1
            if expect is not None:
                got = int(dut.rdata.value)
                assert got == expect, f"addr {a:#x} ren={int(read)}: rdata {got:#x}, expected {expect:#x}"
        await FallingEdge(dut.rclk)
        dut.ren.value = 0


@cocotb.test()
async def concurrent_random(dut):
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    # Fill the whole RAM once so every address has a known word.
    for a in range(1 << tb.aw):
        await FallingEdge(dut.wclk)
        d = r.getrandbits(tb.dw)
        dut.wen.value, dut.waddr.value, dut.wdata.value = 1, a, d
        await RisingEdge(dut.wclk)
        tb.mem[a] = d
    await FallingEdge(dut.wclk)
    dut.wen.value = 0
    for epoch in range(12):
        w_half, r_half = epoch % 2, 1 - epoch % 2
        p_w, p_r = r.choice([0.0, 0.3, 0.7]), r.choice([0.0, 0.3, 0.7])
        # The reader's half is not written during this epoch, so its model is fixed.
        await gather(tb.write(tb.half(w_half), 150, p_w), tb.read(tb.half(r_half), 150, p_r))
    assert tb.reads > 500


@cocotb.test()
async def read_latency_and_hold(dut):
    """rdata changes to the addressed word at the first rclk edge that samples ren=1 (not
    before), then holds through any number of edges with ren low, whatever raddr does."""
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    for _ in range(30):
        (a, da), (b, db) = [(addr, r.getrandbits(tb.dw)) for addr in r.sample(range(1 << tb.aw), 2)]
        if da == db:
            db ^= 1
        for addr, word in ((a, da), (b, db)):
            await FallingEdge(dut.wclk)
            dut.wen.value, dut.waddr.value, dut.wdata.value = 1, addr, word
        await FallingEdge(dut.wclk)
        dut.wen.value = 0
        await Timer(3 * max(tb.tw, tb.tr), unit="ps")
        # Put b's word on rdata, then ask for a's.
        await FallingEdge(dut.rclk)
        dut.ren.value, dut.raddr.value = 1, b
        await FallingEdge(dut.rclk)
        dut.ren.value, dut.raddr.value = 1, a
        await ReadOnly()
        assert int(dut.rdata.value) == db
        await RisingEdge(dut.rclk)
        await ReadOnly()
        assert int(dut.rdata.value) == da, "rdata not updated at the first edge with ren=1"
        for _ in range(r.randint(1, 6)):
            await FallingEdge(dut.rclk)
            dut.ren.value, dut.raddr.value = 0, r.getrandbits(tb.aw)
            await RisingEdge(dut.rclk)
            await ReadOnly()
            assert int(dut.rdata.value) == da, "rdata changed while ren was low"
        await FallingEdge(dut.rclk)
        dut.ren.value = 0


@pytest.mark.parametrize("addr_width,data_width,clocks", [
    (4, 8, "4.0,10.0"),    # fast writer, slow reader
    (9, 72, "10.0,4.0"),   # slow writer, fast reader; block-RAM sized
    (6, 32, "6.4,5.0"),
])
def test_ram_sdp_dc(addr_width, data_width, clocks):
    runner.run("fp_ram_sdp_dc", __name__, {"ADDR_WIDTH": addr_width, "DATA_WIDTH": data_width},
               env={"RAM_CLOCKS": clocks})
