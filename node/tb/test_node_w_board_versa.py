"""fp_node_w_board_versa: the ECP5 Versa chip top in simulation, with cocotbext-eth RgmiiSource /
RgmiiSink on the board's two RGMII ports.

The EHXPLLL has no simulation model here: in simulation the top has no PLL and takes its outputs
from the test bench (sim_pll_clk 125 MHz, sim_pll_clk90 2 ns later, sim_pll_lock); the PLL's
configuration is checked by the synthesis entry node_board_versa (Yosys and nextpnr). Every port's
rgmii_rx_clk is sim_pll_clk90 (RX_PHASE_NS after clk), as in test_node_w_rgmii.

Checked: both phy_rst_n low while the PLL is unlocked and for exactly PHY_RST_CYCLES clk cycles
after the node's reset (plus its 4 synchronizer and register cycles and its own register), high
after, with LED 3; LED 0 dark until release_ns is written, then lit; release_ns written by the
top's register master (every frame's latency between the pins is exactly RELEASE_NS + 11 clk
cycles + 6 ns); frames switched both ways after learning, checked against the reference model;
LED 1 (2) going dark for LED_CYCLES cycles and lit again when port 0 (1) received a frame, the
other LEDs unchanged; a loss of lock resetting the node and the PHYs; and the top's default
release (RELEASE_NS in the Verilog) equal to fastpath.node.budget.w_release_ns(2) + 8 ns.
"""
from __future__ import annotations

import logging
import re

import cocotb
import cocotbext.eth.rgmii as _rgmii_mod
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Edge, FallingEdge, ReadOnly, RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.eth import GmiiFrame, RgmiiSink, RgmiiSource

from fastpath import rtl
from fastpath.node import budget as node_budget
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Vlan
from fastpath.sim import runner
from fastpath.sim.packed import Slice
from fastpath.sim.tb import params, rng

CLK_NS = 8
RX_PHASE_NS = 2
PORTS = 2
SEGMENTS = 256          # the top's node (fp_node_w_board_versa)
RST_LAG = 4             # lock -> rst: fp_sync_reset (3) and the top's register (1)
TEST_PARAMS = {"PHY_RST_CYCLES": 100, "LED_CYCLES": 300}
BCAST = b"\xff" * 6


class BitEdge:
    """A rising (level 1) or falling (level 0) edge of one bit of a packed vector (a Slice)."""

    def __init__(self, sl: Slice, level: int):
        self.sl, self.level = sl, level

    def __await__(self):
        return self._wait().__await__()

    async def _wait(self):
        prev = self.sl.value
        while True:
            await Edge(self.sl.sig)
            v = self.sl.value
            if v == self.level and prev != self.level:
                return
            prev = v


_rgmii_mod.RisingEdge = lambda s: BitEdge(s, 1) if isinstance(s, Slice) else RisingEdge(s)
_rgmii_mod.FallingEdge = lambda s: BitEdge(s, 0) if isinstance(s, Slice) else FallingEdge(s)


def default_release() -> int:
    """RELEASE_NS's default in the top's Verilog."""
    text = rtl.modules()["fp_node_w_board_versa"].read_text()
    return int(re.search(r"parameter\s+RELEASE_NS\s*=\s*(\d+)", text).group(1))


def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x50, n])


def frame(da: bytes, sa: bytes, size: int, uid: int) -> bytes:
    head = da + sa + (0x88B5).to_bytes(2, "big")
    return head + bytes((uid + i) & 0xFF for i in range(size - len(head) - 4)) + uid.to_bytes(4, "big")


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.p = params()
        dut.sim_pll_lock.value = 0
        dut.clk100.value = 0
        dut.phy_mdio.value = 3
        dut.rgmii_rx_clk.value = 0
        shadows = {n: {"v": 0} for n in ("rxd", "rx_ctl")}
        self.src, self.sink = [], []
        for q in range(PORTS):
            # the PHYs: in reset while phy_rst_n is low (both bits are one register)
            s = RgmiiSource(Slice(dut.rgmii_rxd, 4 * q, 4, shadows["rxd"]),
                            Slice(dut.rgmii_rx_ctl, q, 1, shadows["rx_ctl"]), Slice(dut.rgmii_rx_clk, q, 1),
                            dut.phy_rst_n, reset_active_level=False)
            k = RgmiiSink(Slice(dut.rgmii_txd, 4 * q, 4), Slice(dut.rgmii_tx_ctl, q, 1),
                          Slice(dut.rgmii_tx_clk, q, 1), dut.phy_rst_n, reset_active_level=False)
            for m in (s, k):
                m.log.setLevel(logging.WARNING)
            self.src.append(s)
            self.sink.append(k)
        self.rx_sfd = {q: [] for q in range(PORTS)}
        self.tx_sfd = {q: [] for q in range(PORTS)}
        self.led = []               # (ns, led_n[7:0]) at every change

    async def start(self):
        dut = self.dut
        cocotb.start_soon(Clock(dut.sim_pll_clk, CLK_NS, unit="ns").start())
        await Timer(RX_PHASE_NS, unit="ns")
        cocotb.start_soon(Clock(dut.sim_pll_clk90, CLK_NS, unit="ns").start())
        cocotb.start_soon(self._rx_clocks())
        cocotb.start_soon(self._pins())
        cocotb.start_soon(self._led())

    async def _rx_clocks(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.sim_pll_clk90)
            dut.rgmii_rx_clk.value = (1 << PORTS) - 1
            await FallingEdge(dut.sim_pll_clk90)
            dut.rgmii_rx_clk.value = 0

    async def _led(self):
        dut = self.dut
        while True:
            await Edge(dut.led_n)
            self.led.append((get_sim_time(unit="ns"), int(dut.led_n.value)))

    async def _pins(self):
        """SFD times as in test_node_w_rgmii: RX, the rising rgmii_rx_clk edge that samples the
        SFD's low nibble; TX, the rising clk edge that puts it on the pins."""
        dut = self.dut
        state = {"rx": [False] * PORTS, "tx": [False] * PORTS}
        while True:
            await RisingEdge(dut.sim_pll_clk)
            t_rx = get_sim_time(unit="ns") + RX_PHASE_NS
            rx_lo, rx_c1 = int(dut.rgmii_rxd.value), int(dut.rgmii_rx_ctl.value)
            await RisingEdge(dut.sim_pll_clk90)
            t_tx = get_sim_time(unit="ns") - RX_PHASE_NS
            try:
                tx_lo, tx_c1 = int(dut.rgmii_txd.value), int(dut.rgmii_tx_ctl.value)
            except ValueError:
                tx_lo, tx_c1 = 0, 0
            await FallingEdge(dut.sim_pll_clk)
            rx_hi = int(dut.rgmii_rxd.value)
            await FallingEdge(dut.sim_pll_clk90)
            try:
                tx_hi = int(dut.rgmii_txd.value)
            except ValueError:
                tx_hi = 0
            for q in range(PORTS):
                for lo, hi, c1, key, log, t in ((rx_lo, rx_hi, rx_c1, "rx", self.rx_sfd, t_rx),
                                                (tx_lo, tx_hi, tx_c1, "tx", self.tx_sfd, t_tx)):
                    byte = ((hi >> 4 * q) & 0xF) << 4 | ((lo >> 4 * q) & 0xF)
                    if not (c1 >> q) & 1:
                        state[key][q] = False
                    elif not state[key][q] and byte == 0xD5:
                        state[key][q] = True
                        log[q].append(t)

    async def lock(self) -> int:
        """Lock the PLL after a clk edge; returns the clk edges until the one that raised phy_rst_n."""
        dut = self.dut
        await RisingEdge(dut.sim_pll_clk)
        dut.sim_pll_lock.value = 1
        n = 0
        while True:
            await RisingEdge(dut.sim_pll_clk)
            await ReadOnly()            # the values this edge set
            n += 1
            assert n < self.p["PHY_RST_CYCLES"] + 50, "phy_rst_n never rose"
            rst_n = int(dut.phy_rst_n.value)
            assert rst_n in (0, 3), "both PHYs leave reset together"
            if rst_n:
                return n

    async def through(self, src: int, dst: int, f: bytes) -> float:
        n_rx, n_tx = len(self.rx_sfd[src]), len(self.tx_sfd[dst])
        await self.src[src].send(GmiiFrame.from_payload(f))
        g = await with_timeout(self.sink[dst].recv(), 50, "us")
        assert g.check_fcs() and not any(g.error or [])
        assert bytes(g.get_payload()) == f
        await Timer(1, "us")
        assert len(self.rx_sfd[src]) == n_rx + 1 and len(self.tx_sfd[dst]) == n_tx + 1
        return round(self.tx_sfd[dst][-1] - self.rx_sfd[src][-1], 3)

    async def led_blinked(self, mark: int, led: int) -> None:
        """Since self.led[mark]: LED `led` went dark once, for exactly LED_CYCLES clk cycles, and is
        lit again, and no other LED changed (waits for the whole blink, dark and lit, to end)."""
        cycles = self.p["LED_CYCLES"]
        await ClockCycles(self.dut.sim_pll_clk, 2 * cycles + 200)
        ev = self.led[mark:]
        assert [v for _, v in ev] == [0xF0 | 1 << led, 0xF0], [(t, hex(v)) for t, v in ev]
        assert ev[1][0] - ev[0][0] == cycles * CLK_NS, ev


@cocotb.test()
async def board(dut):
    r = rng()
    b = Bench(dut)
    await b.start()
    await ClockCycles(dut.sim_pll_clk, 20)
    assert int(dut.phy_rst_n.value) == 0 and int(dut.led_n.value) == 0xFF and int(dut.phy_mdc.value) == 0
    n = await b.lock()
    # lock -> rst falls after RST_LAG edges; the counter runs PHY_RST_CYCLES; phy_rst_n is a register
    assert n == RST_LAG + b.p["PHY_RST_CYCLES"] + 1, n
    await ClockCycles(dut.sim_pll_clk, 2)                   # (the LEDs are one register later)
    assert int(dut.led_n.value) == 0xF0, "running, both ports idle, the PHYs out of reset: LEDs 0-3 lit"
    await ClockCycles(dut.sim_pll_clk, SEGMENTS + 50)       # the buffer's free list fills

    release = b.p.get("RELEASE_NS", default_release())
    want = release + node_budget.W_TAIL_CYCLES * CLK_NS + (CLK_NS - RX_PHASE_NS)
    rx = RxCfg(ports=PORTS, vlans=[Vlan(True, 1, 0b11)])
    model = NodeModel(NodeCfg(ports=PORTS, rx=rx, buckets=64, ways=4))
    A, B = mac(0xA), mac(0xB)
    lat = set()
    # learn A on port 0 (a broadcast: port 1 only); LED 1 blinks for port 0's frame
    f = frame(BCAST, A, 64, 1)
    assert model.ingress(0, f) == [(1, f)]
    mark = len(b.led)
    lat.add(await b.through(0, 1, f))
    await b.led_blinked(mark, 1)
    # learn B on port 1; LED 2 blinks for port 1's frame
    f = frame(BCAST, B, 64, 2)
    assert model.ingress(1, f) == [(0, f)]
    mark = len(b.led)
    lat.add(await b.through(1, 0, f))
    await b.led_blinked(mark, 2)
    for k in range(6):
        src = r.randrange(PORTS)
        f = frame((B, A)[src], (A, B)[src], r.choice((60, r.randint(61, 400), 1514)), 10 + k)
        assert model.ingress(src, f) == [(1 - src, f)], "known unicast: the other port only"
        lat.add(await b.through(src, 1 - src, f))
    assert lat == {want}, (lat, want)

    # losing lock resets the node and the PHYs
    dut.sim_pll_lock.value = 0
    await ClockCycles(dut.sim_pll_clk, 10)
    assert int(dut.phy_rst_n.value) == 0 and int(dut.led_n.value) == 0xFF
    assert await b.lock() == RST_LAG + b.p["PHY_RST_CYCLES"] + 1
    await ClockCycles(dut.sim_pll_clk, 2)
    assert int(dut.led_n.value) == 0xF0


def test_node_w_board_versa():
    assert default_release() == node_budget.w_release_ns(PORTS) + CLK_NS, \
        "RELEASE_NS: the budget's worst case for 2 ports plus the fp_iddr's cycle"
    runner.run("fp_node_w_board_versa", __name__, TEST_PARAMS)
