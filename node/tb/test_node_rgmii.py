"""fp_node_rgmii: the node with RGMII pins (1000 Mb/s), PORTS = 2 and SEGMENTS = 128 (a small
node), with cocotbext-eth RgmiiSource / RgmiiSink on every port.

Clocks: port_clk 125 MHz; port_clk90 2 ns later; every port's rgmii_rx_clk is port_clk90 (the
sources put each nibble on the pins at the opposite edge of rgmii_rx_clk, so it samples them in
the middle, as behind a PHY's RX delay); the sinks sample with the node's rgmii_tx_clk. The
RGMII models take one port each of the packed vectors through the `Slice` views of
test_fastpath_node, with their clock and RX_CTL edges waited for bit by bit (`BitEdge`).

Checked: random frames both ways (a broadcast to learn, then unicast, sizes 60..1514), exact bytes
and FCS at the far port, the exact latency between the pins for every frame, release_ns + 11
port cycles + 6 ns (the rising rgmii_rx_clk edge that samples the SFD's low nibble is 6 ns before
the next port_clk edge, which stamps it; the TX end is the rising port_clk edge that puts the
SFD's low nibble on the pins), and port 1's TX timestamps (every frame, 8 bytes at offset 14):
the time of that TX edge in the node's fp_time, as in test_fastpath_node.
"""
from __future__ import annotations

import logging

import cocotb
import cocotbext.eth.rgmii as _rgmii_mod
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Edge, FallingEdge, RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster
from cocotbext.eth import GmiiFrame, RgmiiSink, RgmiiSource

from fastpath import regs
from fastpath.node import budget as node_budget
from fastpath.sim import runner
from fastpath.sim.tb import rng
from test_fastpath_node import BCAST, Slice, frame, mac

PORTS = 2
SEGMENTS = 128         # the admission reserve is 4 outputs x 24 segments (MAX_BYTES 1518)
PORT_NS = 8
RX_PHASE_NS = 2         # rgmii_rx_clk = port_clk90
RELEASE_NS = node_budget.release_ns(64, 200.0)
STAMP_OFF = 14
RM = regs.load("node")


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


def _rising(sig):
    return BitEdge(sig, 1) if isinstance(sig, Slice) else RisingEdge(sig)


def _falling(sig):
    return BitEdge(sig, 0) if isinstance(sig, Slice) else FallingEdge(sig)


_rgmii_mod.RisingEdge = _rising
_rgmii_mod.FallingEdge = _falling


class Bench:
    def __init__(self, dut):
        self.dut = dut
        dut.rst.value = 1           # in reset before the models first look (Icarus: X)
        dut.port_rst.value = 1
        shadows = {n: {"v": 0} for n in ("rxd", "rx_ctl")}
        self.src, self.sink = [], []
        for p in range(PORTS):
            s = RgmiiSource(Slice(dut.rgmii_rxd, 4 * p, 4, shadows["rxd"]),
                            Slice(dut.rgmii_rx_ctl, p, 1, shadows["rx_ctl"]),
                            Slice(dut.rgmii_rx_clk, p, 1), dut.port_rst)
            k = RgmiiSink(Slice(dut.rgmii_txd, 4 * p, 4), Slice(dut.rgmii_tx_ctl, p, 1),
                          Slice(dut.rgmii_tx_clk, p, 1), dut.port_rst)
            for m in (s, k):
                m.log.setLevel(logging.WARNING)
            self.src.append(s)
            self.sink.append(k)
        self.regs = regs.RegClient(RM, AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))
        self.rx_sfd = {p: [] for p in range(PORTS)}
        self.tx_sfd = {p: [] for p in range(PORTS)}

    async def start(self):
        dut = self.dut
        dut.s_host_axis_tvalid.value = 0
        dut.s_host_axis_tdata.value = 0
        dut.s_host_axis_tkeep.value = 0
        dut.s_host_axis_tlast.value = 0
        dut.s_host_axis_tuser.value = 0
        dut.m_host_axis_tready.value = 3
        dut.rgmii_rx_clk.value = 0
        dut.rgmii_rxd.value = 0
        dut.rgmii_rx_ctl.value = 0
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        cocotb.start_soon(Clock(dut.port_clk, PORT_NS, unit="ns").start())
        await Timer(RX_PHASE_NS, unit="ns")
        cocotb.start_soon(Clock(dut.port_clk90, PORT_NS, unit="ns").start())
        cocotb.start_soon(self._rx_clocks())
        dut.rst.value = 1
        dut.port_rst.value = 1
        await ClockCycles(dut.port_clk, 20)
        self.t0 = get_sim_time(unit="ns")       # the node's fp_time 0 (see test_fastpath_node)
        dut.rst.value = 0
        dut.port_rst.value = 0
        await ClockCycles(dut.clk, SEGMENTS + 50)
        cocotb.start_soon(self._pins())

    async def _rx_clocks(self):
        """Every port's rgmii_rx_clk follows port_clk90 (all bits at once)."""
        dut = self.dut
        ones = (1 << PORTS) - 1
        while True:
            await RisingEdge(dut.port_clk90)
            dut.rgmii_rx_clk.value = ones
            await FallingEdge(dut.port_clk90)
            dut.rgmii_rx_clk.value = 0

    async def _pins(self):
        """SFD times: RX, the rising rgmii_rx_clk edge that samples the SFD's low nibble (read at
        port_clk's edges, 2 ns before rgmii_rx_clk's, while the pins hold); TX, the rising
        port_clk edge that puts it on the pins (read at port_clk90's edges, 2 ns after)."""
        dut = self.dut
        state = {"rx": [False] * PORTS, "tx": [False] * PORTS}
        while True:
            await RisingEdge(dut.port_clk)
            t_rx = get_sim_time(unit="ns") + RX_PHASE_NS
            rx_lo, rx_c1 = int(dut.rgmii_rxd.value), int(dut.rgmii_rx_ctl.value)
            await RisingEdge(dut.port_clk90)
            t_tx = get_sim_time(unit="ns") - RX_PHASE_NS
            try:
                tx_lo, tx_c1 = int(dut.rgmii_txd.value), int(dut.rgmii_tx_ctl.value)
            except ValueError:
                tx_lo, tx_c1 = 0, 0
            await FallingEdge(dut.port_clk)
            rx_hi = int(dut.rgmii_rxd.value)
            await FallingEdge(dut.port_clk90)
            try:
                tx_hi = int(dut.rgmii_txd.value)
            except ValueError:
                tx_hi = 0
            for p in range(PORTS):
                for lo, hi, c1, key, log, t in ((rx_lo, rx_hi, rx_c1, "rx", self.rx_sfd, t_rx),
                                                (tx_lo, tx_hi, tx_c1, "tx", self.tx_sfd, t_tx)):
                    byte = ((hi >> 4 * p) & 0xF) << 4 | ((lo >> 4 * p) & 0xF)
                    if not (c1 >> p) & 1:
                        state[key][p] = False
                    elif not state[key][p] and byte == 0xD5:
                        state[key][p] = True
                        log[p].append(t)


@cocotb.test()
async def forwarding_latency_stamps(dut):
    r = rng()
    b = Bench(dut)
    await b.start()
    await b.regs.write("release_ns", RELEASE_NS)
    await b.regs.write("ts_cfg", enable=1, mode=0, by_type=0, offset=STAMP_OFF, index=1)
    A, B = mac(0xA), mac(0xB)
    # learn both stations (broadcasts: the only other port), then unicast both ways at once
    sent = {0: [frame(BCAST, A, 80, 1)], 1: [frame(BCAST, B, 64, 2)]}
    for k in range(6):
        sent[0].append(frame(B, A, r.choice([60, r.randint(61, 300), 1514]), 10 + k))
        sent[1].append(frame(A, B, r.choice([60, r.randint(61, 300), 1514]), 20 + k))
    for f in sent[0][:1] + sent[1][:1]:
        await b.src[0 if f[6:12] == A else 1].send(GmiiFrame.from_payload(f))
        await Timer(3, "us")
    for k in range(1, len(sent[0])):
        for p in range(PORTS):
            await b.src[p].send(GmiiFrame.from_payload(sent[p][k]))
    for p in range(PORTS):
        q = 1 - p
        for k, f in enumerate(sent[p]):
            g = await with_timeout(b.sink[q].recv(), 100, "us")
            assert g.check_fcs() and not any(g.error or [])
            got = bytes(g.get_payload())
            if q == 1:
                t = round(b.tx_sfd[q][k] - b.t0) << 16
                f = f[:STAMP_OFF] + t.to_bytes(8, "big") + f[STAMP_OFF + 8:]
            assert got == f, (p, k, got.hex(), f.hex())
    for p in range(PORTS):
        q = 1 - p
        assert len(b.rx_sfd[p]) == len(b.tx_sfd[q]) == len(sent[p])
        lat = [tx - rx for rx, tx in zip(b.rx_sfd[p], b.tx_sfd[q])]
        exp = RELEASE_NS + node_budget.TAIL_PORT_CYCLES * PORT_NS + (PORT_NS - RX_PHASE_NS)
        assert set(lat) == {exp}, (p, lat, exp)
    await Timer(2, "us")
    assert await b.regs.read("ts_stamped", 1) == len(sent[0]) and await b.regs.read("ts_stamped", 0) == 0
    assert await b.regs.read("port_tx_frames", 0) == len(sent[1])
    assert RM.decode("buf_status", await b.regs.read("buf_status"))["free"] == SEGMENTS


def test_node_rgmii():
    runner.run("fp_node_rgmii", __name__, {"PORTS": PORTS, "SEGMENTS": SEGMENTS})
