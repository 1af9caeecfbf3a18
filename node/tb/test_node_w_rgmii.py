"""fp_node_w_rgmii: the word-serial node with RGMII pins (1000 Mb/s), PORTS = 2 at the sizes of the
ECP5 Versa board's node (fp_node_w_board_versa), with cocotbext-eth RgmiiSource / RgmiiSink on
both ports and cocotbext-axi AXI4-Lite on the registers.

Clocks: clk 125 MHz; clk90 2 ns later; every port's rgmii_rx_clk is clk90 (the sources put each
nibble on the pins at the opposite edge of rgmii_rx_clk, so it samples them in the middle, as
behind a PHY's RX delay); the sinks sample with the node's rgmii_tx_clk (clk90 through its
fp_oddr). The RGMII models take one port each of the packed vectors through `Slice` views, their
clock and RX_CTL edges waited for bit by bit (`BitEdge`).

release_ns is fastpath.node.budget.w_release_ns(2) + 8 ns: the fp_iddr's cycle lies inside the
release (fp_node_w_rgmii Latency).

Checked against the reference model (fastpath.node.model): learning, unicast both ways, an unknown
unicast flooded, frames of 60..1514 bytes alone and with both ports loaded at line rate at once,
exact bytes and FCS at the far port, every frame's latency between the pins exactly release_ns + 11
clk cycles + 6 ns (the rising rgmii_rx_clk edge that samples the SFD's low nibble is 6 ns before the
next clk edge; the TX end is the rising clk edge that puts the SFD's low nibble on the pins), port
1's TX timestamps (every frame, 8 bytes at offset 14: the time of that TX edge in the node's
fp_time), a bad FCS and a PHY error (RX_CTL) after byte 15 leaving stomped and counted, and the
buffer's free list full again afterwards.
"""
from __future__ import annotations

import logging

import cocotb
import cocotbext.eth.rgmii as _rgmii_mod
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Edge, FallingEdge, RisingEdge, Timer
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster
from cocotbext.eth import GmiiFrame, RgmiiSink, RgmiiSource

from fastpath import regs
from fastpath.node import budget as node_budget
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Scoreboard, Vlan
from fastpath.sim import runner
from fastpath.sim.packed import Slice
from fastpath.sim.tb import params, rng

CLK_NS = 8
RX_PHASE_NS = 2         # rgmii_rx_clk = clk90
STAMP_OFF = 14
ETHERTYPE = 0x88B5
BCAST = b"\xff" * 6
RM = regs.load("node")
# the board's node (fp_node_w_board_versa): 2 ports, 256 segments, a 64 x 4 table, 4 VLANs
BOARD = {"PORTS": 2, "SEGMENTS": 256, "VLANS": 4, "BUCKETS": 64, "WAYS": 4}


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


def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x20, n])


def frame(da: bytes, sa: bytes, size: int, uid: int) -> bytes:
    """`size` bytes without the FCS, the id in the last 4."""
    head = da + sa + ETHERTYPE.to_bytes(2, "big")
    return head + bytes((uid + i) & 0xFF for i in range(size - len(head) - 4)) + uid.to_bytes(4, "big")


def release_ns(ports: int) -> int:
    """The budget's worst case plus the fp_iddr's cycle (fp_node_w_rgmii Latency)."""
    return node_budget.w_release_ns(ports) + CLK_NS


def expected_latency(release: int) -> float:
    return release + node_budget.W_TAIL_CYCLES * CLK_NS + (CLK_NS - RX_PHASE_NS)


class Bench:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.ports, self.segments = p["PORTS"], p["SEGMENTS"]
        dut.rst.value = 1           # in reset before the models first look (Icarus: X)
        shadows = {n: {"v": 0} for n in ("rxd", "rx_ctl")}
        self.src, self.sink = [], []
        for q in range(self.ports):
            s = RgmiiSource(Slice(dut.rgmii_rxd, 4 * q, 4, shadows["rxd"]),
                            Slice(dut.rgmii_rx_ctl, q, 1, shadows["rx_ctl"]),
                            Slice(dut.rgmii_rx_clk, q, 1), dut.rst)
            k = RgmiiSink(Slice(dut.rgmii_txd, 4 * q, 4), Slice(dut.rgmii_tx_ctl, q, 1),
                          Slice(dut.rgmii_tx_clk, q, 1), dut.rst)
            for m in (s, k):
                m.log.setLevel(logging.WARNING)
            self.src.append(s)
            self.sink.append(k)
        self.regs = regs.RegClient(RM, AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))
        self.rx_sfd = {q: [] for q in range(self.ports)}
        self.tx_sfd = {q: [] for q in range(self.ports)}

    async def start(self, release: int):
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
        cocotb.start_soon(Clock(dut.clk, CLK_NS, unit="ns").start())
        await Timer(RX_PHASE_NS, unit="ns")
        cocotb.start_soon(Clock(dut.clk90, CLK_NS, unit="ns").start())
        cocotb.start_soon(self._rx_clocks())
        dut.rst.value = 1
        await ClockCycles(dut.clk, 20)
        self.t0 = get_sim_time(unit="ns")       # the node's fp_time 0 (see test_fastpath_node)
        dut.rst.value = 0
        await ClockCycles(dut.clk, self.segments + 50)
        assert RM.decode("buf_status", await self.regs.read("buf_status"))["free"] == self.segments
        cocotb.start_soon(self._pins())
        await self.regs.write("release_ns", release)
        self.release = release

    async def _rx_clocks(self):
        """Every port's rgmii_rx_clk follows clk90 (all bits at once)."""
        dut = self.dut
        ones = (1 << self.ports) - 1
        while True:
            await RisingEdge(dut.clk90)
            dut.rgmii_rx_clk.value = ones
            await FallingEdge(dut.clk90)
            dut.rgmii_rx_clk.value = 0

    async def _pins(self):
        """SFD times: RX, the rising rgmii_rx_clk edge that samples the SFD's low nibble (read at
        clk's edges, 2 ns before rgmii_rx_clk's, while the pins hold); TX, the rising clk edge
        that puts it on the pins (read at clk90's edges, 2 ns after)."""
        dut = self.dut
        state = {"rx": [False] * self.ports, "tx": [False] * self.ports}
        while True:
            await RisingEdge(dut.clk)
            t_rx = get_sim_time(unit="ns") + RX_PHASE_NS
            rx_lo, rx_c1 = int(dut.rgmii_rxd.value), int(dut.rgmii_rx_ctl.value)
            await RisingEdge(dut.clk90)
            t_tx = get_sim_time(unit="ns") - RX_PHASE_NS
            try:
                tx_lo, tx_c1 = int(dut.rgmii_txd.value), int(dut.rgmii_tx_ctl.value)
            except ValueError:
                tx_lo, tx_c1 = 0, 0
            await FallingEdge(dut.clk)
            rx_hi = int(dut.rgmii_rxd.value)
            await FallingEdge(dut.clk90)
            try:
                tx_hi = int(dut.rgmii_txd.value)
            except ValueError:
                tx_hi = 0
            for q in range(self.ports):
                for lo, hi, c1, key, log, t in ((rx_lo, rx_hi, rx_c1, "rx", self.rx_sfd, t_rx),
                                                (tx_lo, tx_hi, tx_c1, "tx", self.tx_sfd, t_tx)):
                    byte = ((hi >> 4 * q) & 0xF) << 4 | ((lo >> 4 * q) & 0xF)
                    if not (c1 >> q) & 1:
                        state[key][q] = False
                    elif not state[key][q] and byte == 0xD5:
                        state[key][q] = True
                        log[q].append(t)

    def model(self) -> Scoreboard:
        p = params()
        rx = RxCfg(ports=self.ports, vlans=[Vlan(True, 1, (1 << self.ports) - 1)])
        return Scoreboard(NodeModel(NodeCfg(ports=self.ports, rx=rx, buckets=p["BUCKETS"], ways=p["WAYS"])))

    async def send(self, port: int, data: bytes, bad_fcs: bool = False, phy_error_at: int | None = None):
        f = GmiiFrame.from_payload(data)
        if bad_fcs:
            f.data[-1] ^= 0xFF
        if phy_error_at is not None:        # RX_ER on one byte (counted from the first DA byte)
            f.error = [0] * len(f.data)
            f.error[8 + phy_error_at] = 1
        await self.src[port].send(f)

    async def idle(self, us: float = 2):
        for s in self.src:
            await s.wait()
        await Timer(us, "us")

    def drain(self) -> tuple[dict, list]:
        """Every frame the sinks hold: ({port: [(payload, good)]})."""
        got = {q: [] for q in range(self.ports)}
        for q in range(self.ports):
            while not self.sink[q].empty():
                g = self.sink[q].recv_nowait()
                got[q].append((bytes(g.get_payload()), g.check_fcs() and not any(g.error or [])))
        return got

    async def assert_empty(self):
        """Nothing leaked (every segment back on the free list), nothing went wrong inside."""
        await ClockCycles(self.dut.clk, 200)
        assert RM.decode("buf_status", await self.regs.read("buf_status"))["free"] == self.segments
        assert await self.regs.read("drops_count", 14) == 0        # underrun
        assert await self.regs.read("drops_count", 15) == 0        # internal

    def latencies(self, pairs: dict) -> set:
        """pairs: output -> its inputs; each output's TX SFDs in order against its inputs' RX SFDs
        in order (the tests send so that this pairing holds)."""
        out = set()
        for q, srcs in pairs.items():
            rx = sorted(t for s in srcs for t in self.rx_sfd[s])
            assert len(rx) == len(self.tx_sfd[q]), (q, len(rx), len(self.tx_sfd[q]))
            out |= {round(t - r, 3) for r, t in zip(rx, self.tx_sfd[q])}
        return out


@cocotb.test()
async def switching_stamps_bad_frames(dut):
    """Learning, unicast both ways, an unknown unicast, port 1's TX stamps, a bad FCS and a PHY
    error leaving stomped; the exact latency of every frame; counters; an empty buffer."""
    r = rng()
    b = Bench(dut)
    release = release_ns(b.ports)
    await b.start(release)
    await b.regs.write("ts_cfg", enable=1, mode=0, by_type=0, offset=STAMP_OFF, index=1)
    sb = b.model()
    A, B = mac(0xA), mac(0xB)
    sent = {0: [], 1: []}
    uid = iter(range(1, 1000))

    async def one(port: int, f: bytes):
        sb.send(port, f)
        sent[port].append(f)
        await b.send(port, f)

    # learn both stations (broadcasts), then unicast both ways at once, then an unknown unicast
    await one(0, frame(BCAST, A, 80, next(uid)))
    await b.idle(2)
    await one(1, frame(BCAST, B, 64, next(uid)))
    await b.idle(2)
    for k in range(8):
        await one(0, frame(B, A, r.choice([60, r.randint(61, 300), 1514]), next(uid)))
        await one(1, frame(A, B, r.choice([60, r.randint(61, 300), 1514]), next(uid)))
    await b.idle(2)
    await one(1, frame(mac(0x99), B, 100, next(uid)))
    await b.idle(2)
    # bad frames, decided after byte 15 (they are already leaving): stomped on port 1, not stamped
    bad = [frame(B, A, 200, next(uid)), frame(B, A, 300, next(uid))]
    await b.send(0, bad[0], bad_fcs=True)
    await b.idle(2)
    await b.send(0, bad[1], phy_error_at=100)
    await b.idle(5)

    got = b.drain()
    stomped = [(q, f) for q in got for f, good in got[q] if not good]
    assert [q for q, _ in stomped] == [1, 1], stomped
    assert [f[-4:] for _, f in stomped] == [f[-4:] for f in bad]
    good = {q: [f for f, ok in got[q] if ok] for q in got}
    # port 1 stamps every frame: the time of the clk edge that put its SFD on the pins
    by_uid = {f[-4:]: f for fs in sent.values() for f in fs}
    tx1 = [t for t, (_, ok) in zip(b.tx_sfd[1], got[1]) if ok]
    assert len(tx1) == len(good[1])
    for k, (g, t_tx) in enumerate(zip(good[1], tx1)):
        f = by_uid[g[-4:]]
        stamp = round(t_tx - b.t0) << 16
        assert g == f[:STAMP_OFF] + stamp.to_bytes(8, "big") + f[STAMP_OFF + 8:], (k, g[:24].hex(), stamp)
        good[1][k] = f
    res = sb.check(good)
    assert res["missing"] == 0 and res["delivered"] == len(sent[0]) + len(sent[1]), res
    # latency: every frame of port 0 (the bad ones included) leaves on port 1 and vice versa
    assert b.latencies({0: [1], 1: [0]}) == {expected_latency(release)}
    assert await b.regs.read("drops_count", 1) == 2                    # bad_frame: both stomped
    assert await b.regs.read("ts_stamped", 1) == len(good[1]) + 2
    assert await b.regs.read("ts_stamped", 0) == 0
    assert await b.regs.read("port_rx_frames", 0) == len(sent[0]) + 2
    assert await b.regs.read("port_tx_frames", 0) == len(sent[1])
    assert await b.regs.read("l2_learned") == 2
    await b.assert_empty()


@cocotb.test()
async def full_load(dut):
    """Both ports receive back-to-back frames of random sizes (60-1514 bytes) at line rate, each
    unicast to the station on the other port: every frame arrives exactly once, in order, with
    the same latency; no drops; nothing leaks."""
    r = rng()
    b = Bench(dut)
    release = release_ns(b.ports)
    await b.start(release)
    sb = b.model()
    st = [mac(0x30 + q) for q in range(b.ports)]
    for q in range(b.ports):
        f = frame(BCAST, st[q], 60, q)
        sb.send(q, f)
        await b.send(q, f)
        await b.idle(2)
    b.drain()
    sb.expected.clear()
    b.rx_sfd = {q: [] for q in range(b.ports)}
    b.tx_sfd = {q: [] for q in range(b.ports)}
    sent = []
    for k in range(14):
        for q in range(b.ports):
            size = r.choice((60, 61, 64, 127, 128, 255, 256, 1514)) if k % 3 else r.randint(60, 1514)
            f = frame(st[1 - q], st[q], size, 0x10000 * q + k)
            sb.send(q, f)
            sent.append((q, f))
    for q, f in sent:               # queued at once: the sources send back to back (12-byte IFG)
        await b.send(q, f)
    await b.idle(10)
    got = b.drain()
    assert all(ok for q in got for _, ok in got[q])
    res = sb.check({q: [f for f, _ in got[q]] for q in got})
    assert res["missing"] == 0 and res["delivered"] == len(sent), res
    assert b.latencies({0: [1], 1: [0]}) == {expected_latency(release)}
    assert sum([await b.regs.read("drops_count", i) for i in range(16)]) == 0
    await b.assert_empty()


def test_node_w_rgmii():
    runner.run("fp_node_w_rgmii", __name__, BOARD)
