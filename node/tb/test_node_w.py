"""fp_node_w, the word-serial node, with real bus models: cocotbext-eth GMII sources and sinks on
the ports (clk 125 MHz, the datapath and every GMII TX), cocotbext-axi AXI4-Lite on the registers
and AXI4-Stream on the two host ports.
PORTS = 4, SEGMENTS = 256. The ports' RX clocks (gmii_rx_clk) run at 125 MHz half a cycle after
clk (RX_PHASE_NS): the SFD stamps cross from the clk timebase into them.

Checked against the reference model (fastpath.node.model): learning then unicast, flooding, VLANs
(an access port, a trunk: tag inserted and stripped), a link-local frame to the host and a frame
from the host, a bad-FCS frame leaving stomped, the counters, and the exact cut-through latency
(release_ns + node_budget.W_TAIL_CYCLES + the RX clock's phase) for every frame, alone and with
every port loaded at line rate at once; the buffer's free list full again afterwards.
"""
from __future__ import annotations

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource
import types

from fastpath import regs
from fastpath.node import budget as node_budget
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Scoreboard, Vlan
from fastpath.sim import runner
from fastpath.sim.packed import Slice, patch_bus_models
from fastpath.sim.tb import params, pauses, rng

CLK_NS = 8
RX_PHASE_NS = 4         # gmii_rx_clk rises at clk's falling edge
ETHERTYPE = 0x88B5
BCAST = b"\xff" * 6

patch_bus_models()
RM = regs.load("node")
HOSTS = 2
AXIS_SIGNALS = {"_signals": ["tdata"], "_optional_signals": ["tvalid", "tready", "tlast", "tkeep", "tuser"]}


class HostSource(AxiStreamSource):
    _init_x = False     # the Slice views drive numbers (X would need a whole-vector LogicArray)

# port 0, 1: access VLAN 1; port 2: trunk, native VLAN 1, also carries VLAN 10 (tagged);
# port 3: access VLAN 10
VLANS = [Vlan(True, 1, 0b0111), Vlan(True, 10, 0b1100)]
TRUNK = 0b0100
PVID = [1, 1, 1, 10]


def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x10, n])


def frame(da: bytes, sa: bytes, size: int, uid: int, vid: int | None = None) -> bytes:
    """`size` bytes without the FCS, the id in the last 4."""
    head = da + sa
    if vid is not None:
        head += bytes.fromhex("8100") + vid.to_bytes(2, "big")
    head += ETHERTYPE.to_bytes(2, "big")
    return head + bytes((uid + i) & 0xFF for i in range(size - len(head) - 4)) + uid.to_bytes(4, "big")


class Bench:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.ports, self.segments = p["PORTS"], p["SEGMENTS"]
        shadows = {name: {"v": 0} for name in ("rxd", "rx_dv", "rx_er")}
        self.src, self.sink = [], []
        for q in range(self.ports):
            self.src.append(GmiiSource(Slice(dut.gmii_rxd, 8 * q, 8, shadows["rxd"]),
                                       Slice(dut.gmii_rx_er, q, 1, shadows["rx_er"]),
                                       Slice(dut.gmii_rx_dv, q, 1, shadows["rx_dv"]),
                                       dut.clk, dut.rst))
            self.sink.append(GmiiSink(Slice(dut.gmii_txd, 8 * q, 8), Slice(dut.gmii_tx_er, q, 1),
                                      Slice(dut.gmii_tx_en, q, 1), dut.clk, dut.rst))
        hs = {name: {"v": 0} for name in ("tdata", "tkeep", "tvalid", "tlast", "tuser", "tready")}
        self.host_src, self.host_sink = [], []
        for d in range(HOSTS):
            s_ = types.SimpleNamespace(
                _name=f"s_host_axis{d}", _entity=dut, **AXIS_SIGNALS,
                tdata=Slice(dut.s_host_axis_tdata, 64 * d, 64, hs["tdata"]),
                tkeep=Slice(dut.s_host_axis_tkeep, 8 * d, 8, hs["tkeep"]),
                tvalid=Slice(dut.s_host_axis_tvalid, d, 1, hs["tvalid"]),
                tready=Slice(dut.s_host_axis_tready, d, 1),
                tlast=Slice(dut.s_host_axis_tlast, d, 1, hs["tlast"]),
                tuser=Slice(dut.s_host_axis_tuser, d, 1, hs["tuser"]))
            m_ = types.SimpleNamespace(
                _name=f"m_host_axis{d}", _entity=dut, **AXIS_SIGNALS,
                tdata=Slice(dut.m_host_axis_tdata, 64 * d, 64),
                tkeep=Slice(dut.m_host_axis_tkeep, 8 * d, 8),
                tvalid=Slice(dut.m_host_axis_tvalid, d, 1),
                tready=Slice(dut.m_host_axis_tready, d, 1, hs["tready"]),
                tlast=Slice(dut.m_host_axis_tlast, d, 1),
                tuser=Slice(dut.m_host_axis_tuser, d, 1))
            self.host_src.append(HostSource(s_, dut.clk, dut.rst))
            self.host_sink.append(AxiStreamSink(m_, dut.clk, dut.rst))
        self.regs = regs.RegClient(RM, AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))
        self.rx_sfd = {q: [] for q in range(self.ports)}    # SFD sampling times (ns) at the RX pins
        self.tx_sfd = {q: [] for q in range(self.ports)}    # and at the TX pins (a PHY's edge)

    async def start(self, release_ns: int):
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, CLK_NS, unit="ns").start())
        cocotb.start_soon(self._rx_clocks())
        dut.rst.value = 1
        await ClockCycles(dut.clk, 20)
        dut.rst.value = 0
        await ClockCycles(dut.clk, self.segments + 50)
        assert RM.decode("buf_status", await self.regs.read("buf_status"))["free"] == self.segments
        cocotb.start_soon(self._pins())
        await self.configure(release_ns)

    async def configure(self, release_ns: int):
        for i in range(16):
            v = VLANS[i] if i < len(VLANS) else Vlan(False, 0, 0)
            await self.regs.write("vlan_id", vid=v.vid, valid=int(v.valid), index=i)
            if i < len(VLANS):
                await self.regs.write("vlan_members", v.members & ((1 << self.ports) - 1), index=i)
        for q in range(self.ports):
            await self.regs.write("port_cfg", enable=1, trunk=(TRUNK >> q) & 1, pvid=PVID[q], index=q)
        await self.regs.write("release_ns", release_ns)
        self.release = release_ns

    async def one_vlan(self):
        """Every port an access port of VLAN 1."""
        for q in range(self.ports):
            await self.regs.write("port_cfg", enable=1, trunk=0, pvid=1, index=q)
        await self.regs.write("vlan_members", (1 << self.ports) - 1, index=0)
        await self.regs.write("vlan_members", 0, index=1)

    async def counters(self) -> dict:
        out = {"drops": [await self.regs.read("drops_count", i) for i in range(16)]}
        for name in ("rx_frames", "tx_frames", "rx_drops", "tx_drops"):
            out[name] = [await self.regs.read(f"port_{name}", q) for q in range(self.ports)]
        return out

    def model(self) -> NodeModel:
        n = self.ports
        rx = RxCfg(ports=n, port_trunk=TRUNK, pvid=PVID[:n], vlans=VLANS)
        return NodeModel(NodeCfg(ports=n, rx=rx))

    async def _rx_clocks(self):
        """Every port's gmii_rx_clk: clk inverted (rising at its falling edge). The GMII sources
        change the RX pins at clk's rising edge, half a cycle before the RX MAC samples them."""
        dut = self.dut
        ones = (1 << self.ports) - 1
        dut.gmii_rx_clk.value = 0
        while True:
            await FallingEdge(dut.clk)
            dut.gmii_rx_clk.value = ones
            await RisingEdge(dut.clk)
            dut.gmii_rx_clk.value = 0

    async def _pins(self):
        """SFD times at the pins: the rising clock edge at which the receiver (the node's RX MAC
        on gmii_rx_clk, or a PHY on the TX pins on clk) samples the 0xD5 byte. Read at clk's
        falling edge: that is the RX sampling edge; the TX one is 4 ns later."""
        dut = self.dut
        rx_in = [False] * self.ports
        tx_in = [False] * self.ports
        while True:
            await FallingEdge(dut.clk)
            t_rx = get_sim_time(unit="ns")
            t_tx = t_rx + CLK_NS / 2
            try:
                rxd, rdv = int(dut.gmii_rxd.value), int(dut.gmii_rx_dv.value)
                txd, ten = int(dut.gmii_txd.value), int(dut.gmii_tx_en.value)
            except ValueError:
                continue
            for q in range(self.ports):
                for d, en, state, log, t in ((rxd, rdv, rx_in, self.rx_sfd, t_rx),
                                             (txd, ten, tx_in, self.tx_sfd, t_tx)):
                    if not (en >> q) & 1:
                        state[q] = False
                    elif not state[q] and (d >> (8 * q)) & 0xFF == 0xD5:
                        state[q] = True
                        log[q].append(t)

    async def send(self, port: int, data: bytes, bad_fcs: bool = False, min_len: int = 60):
        f = GmiiFrame.from_payload(data, min_len=min_len)
        if bad_fcs:
            f.data[-1] ^= 0xFF
        await self.src[port].send(f)

    async def recv(self, port: int, timeout_us: float = 100) -> GmiiFrame:
        return await with_timeout(self.sink[port].recv(), timeout_us, "us")

    async def idle(self, us: float = 20):
        for s in self.src:
            await s.wait()
        await Timer(us, "us")

    def drain(self) -> tuple[dict, list]:
        """Every frame the sinks hold: ({port: [good payloads]}, [(port, stomped payload)])."""
        got, stomped = {q: [] for q in range(self.ports)}, []
        for q in range(self.ports):
            while not self.sink[q].empty():
                g = self.sink[q].recv_nowait()
                payload = bytes(g.get_payload())
                if g.check_fcs() and not g.error:
                    got[q].append(payload)
                else:
                    stomped.append((q, payload))
        return got, stomped

    def drain_host(self) -> dict:
        got = {}
        for d in range(HOSTS):
            got[self.ports + d] = []
            while not self.host_sink[d].empty():
                g = self.host_sink[d].recv_nowait()
                assert not (g.tuser[-1] if isinstance(g.tuser, list) else g.tuser), "good frame marked bad"
                got[self.ports + d].append(bytes(g.tdata))
        return got

    async def assert_empty(self):
        """Nothing leaked (every segment back on the free list), nothing went wrong inside."""
        await ClockCycles(self.dut.clk, 200)
        assert RM.decode("buf_status", await self.regs.read("buf_status"))["free"] == self.segments
        assert await self.regs.read("drops_count", 14) == 0        # underrun
        assert await self.regs.read("drops_count", 15) == 0        # internal


def expected_latency(release_ns: int) -> float:
    """SFD sampled at the RX pin -> SFD sampled at the TX pin (module docstring)."""
    return release_ns + node_budget.W_TAIL_CYCLES * CLK_NS + (CLK_NS - RX_PHASE_NS)


@cocotb.test()
async def latency_budget(dut):
    """The budget (fastpath.node.budget.w_rows) against the simulation: with release 0 a frame
    leaves as soon as its word 0 is back at its TX port, so its latency is the budget's fixed
    cycles (less the 4 a strip frame's early start needs) plus the waits it met, which lie within
    the budget's worst case; the smallest is seen."""
    r = rng()
    b = Bench(dut)
    await b.start(0)
    await b.one_vlan()
    n = b.ports
    st = [mac(0x30 + q) for q in range(n)]
    for q in range(n):
        await b.send(q, frame(BCAST, st[q], 60, q))
        await b.idle(2)
    b.drain()
    fixed = (node_budget.w_fixed_cycles(n) - 4 + node_budget.W_TAIL_CYCLES) * CLK_NS + (CLK_NS - RX_PHASE_NS)
    worst = node_budget.w_release_ns(n) - node_budget.w_fixed_cycles(n) * CLK_NS
    seen = []
    for k in range(40):
        q = r.randrange(n)
        d = r.choice([x for x in range(n) if x != q])
        n_rx, n_tx = len(b.rx_sfd[q]), len(b.tx_sfd[d])
        f = frame(st[d], st[q], r.choice((60, 200, 1514)), 0x100 + k)
        await b.send(q, f)
        await ClockCycles(dut.clk, r.randrange(5))
        g = await b.recv(d)
        assert bytes(g.get_payload()) == f
        seen.append(round(b.tx_sfd[d][n_tx] - b.rx_sfd[q][n_rx], 3))
        await b.idle(1)
    dut._log.info("release 0: latencies %s, budget fixed %s + waits up to %s", sorted(set(seen)), fixed, worst)
    assert min(seen) == fixed, (sorted(set(seen)), fixed)
    assert max(seen) <= fixed + worst
    await b.assert_empty()


@cocotb.test()
async def switching(dut):
    """Learning, unicast, flooding, VLAN tag insert/strip, to and from the host, a reserved DA to
    the host, a tagged frame on an access port dropped, a bad frame leaving stomped, the
    counters; every frame on a port at the same latency; an empty buffer afterwards."""
    r = rng()
    b = Bench(dut)
    release = node_budget.w_release_ns(b.ports)
    await b.start(release)
    for d in range(HOSTS):
        b.host_src[d].set_pause_generator(pauses(r, 0.3))
        b.host_sink[d].set_pause_generator(pauses(r, 0.3))
    sb = Scoreboard(b.model())
    A, B, C, H = mac(0xA), mac(0xB), mac(0xC), mac(0x40)
    uid = iter(range(1, 1000))
    steps = [  # (input port, frame)
        (0, frame(BCAST, A, 100, next(uid))),                 # flood VLAN 1: ports 1, 2 (untagged)
        (1, frame(BCAST, B, 70, next(uid))),                  # learn B
        (3, frame(BCAST, C, 300, next(uid))),                 # VLAN 10: port 2, tag inserted
        (0, frame(B, A, 60, next(uid))),                      # known unicast: port 1 only
        (1, frame(A, B, 1514, next(uid))),                    # known unicast: port 0 only, long
        (2, frame(C, mac(0xD), 200, next(uid), vid=10)),      # tagged in on the trunk: stripped to 3
        (0, frame(mac(0x99), A, 128, next(uid))),             # unknown unicast: flooded
        (0, bytes.fromhex("0180c200000e") + A + bytes.fromhex("88cc") + bytes(46)),  # LLDP: host
        (2, frame(bytes.fromhex("01005e000001"), mac(0xE), 90, next(uid), vid=10)),  # multicast
        (3, frame(C, mac(0xF), 80, next(uid), vid=10)),       # tagged on an access port: dropped
    ]
    for port, f in steps:
        sb.send(port, f)
        await b.send(port, f)
        await b.idle(2)
    # from host port 1: to B (learned on port 1), untagged, VLAN 1
    hf = frame(B, H, 150, next(uid))
    sb.send(b.ports + 1, hf)
    await b.host_src[1].send(AxiStreamFrame(hf, tuser=0))
    await b.idle(5)
    # a bad FCS: the frame is already leaving when its FCS arrives
    bad = frame(B, A, 400, next(uid))
    await b.send(0, bad, bad_fcs=True)
    await b.idle(5)
    # a runt that ends by byte 15 (14 bytes and the FCS) is dropped before it leaves, and counted
    await b.send(0, frame(B, A, 60, next(uid))[:14], min_len=0)
    await b.idle(5)
    got, stomped = b.drain()
    got.update(b.drain_host())
    res = sb.check(got)
    assert res["missing"] == 0 and res["delivered"] == sum(len(v) for v in sb.expected.values()) == 13, res
    assert any(f[12:16] == bytes.fromhex("8100000a") for f in got[2]), "tag inserted on the trunk"
    assert any(f[12:14] == ETHERTYPE.to_bytes(2, "big") and f[:6] == C for f in got[3]), "tag stripped"
    assert len(got[b.ports]) == 1 and got[b.ports][0][:6] == bytes.fromhex("0180c200000e")
    assert stomped == [(1, bad)], stomped
    c = await b.counters()
    assert c["drops"][1] == 2, c            # bad_frame: the stomped one and the short one
    assert c["drops"][5] == 1, c            # vlan: the tagged frame on the access port
    assert c["drops"][7] == 0, c            # the LLDP frame went to the host
    sent = [sum(1 for q, _ in steps if q == p) for p in range(b.ports)]
    sent[0] += 2
    assert c["rx_frames"] == sent, c
    assert c["tx_frames"] == [len(got[p]) + sum(1 for q, _ in stomped if q == p) for p in range(b.ports)], c
    assert c["rx_drops"] == [2, 0, 0, 1], c
    assert c["tx_drops"] == [0] * b.ports, c
    assert await b.regs.read("l2_learned") == sb.model.table.events["learn_new"] == 5
    lat = latencies(b)
    assert set(lat) == {expected_latency(release)}, lat
    await b.assert_empty()


def latencies(b: Bench) -> list[float]:
    """Each TX SFD against the earlier RX SFDs of the last microsecond: the one that gives the
    expected latency, else the nearest (the frames of these tests are sent one at a time, 2 us
    apart; a frame from the host has none); returns the distinct values."""
    out = []
    want = expected_latency(b.release)
    rx = sorted(t for q in b.rx_sfd for t in b.rx_sfd[q])
    for q in b.tx_sfd:
        for t in b.tx_sfd[q]:
            cands = [t - r_ for r_ in rx if 0 < t - r_ < 1000]
            if cands:                   # (none: a frame from the host)
                out.append(round(min(cands, key=lambda d: abs(d - want)), 3))
    return sorted(set(out))


@cocotb.test()
async def full_load(dut):
    """Every port receives back-to-back frames of random sizes (60-1514 bytes) at line rate,
    unicast to a learned station on another port, in a permutation (no output oversubscribed):
    every frame arrives exactly once, in order, with the same latency, and nothing leaks."""
    r = rng()
    b = Bench(dut)
    release = node_budget.w_release_ns(b.ports)
    await b.start(release)
    await b.one_vlan()
    n = b.ports
    rx = RxCfg(ports=n, vlans=[Vlan(True, 1, (1 << n) - 1)])
    sb = Scoreboard(NodeModel(NodeCfg(ports=n, rx=rx)))
    st = [mac(0x20 + q) for q in range(n)]
    for q in range(n):              # learn station q on port q
        f = frame(BCAST, st[q], 60, q)
        sb.send(q, f)
        await b.send(q, f)
        await b.idle(2)
    b.drain()
    sb.expected.clear()
    b.rx_sfd = {q: [] for q in range(n)}
    b.tx_sfd = {q: [] for q in range(n)}
    per_port = 30
    sent = []
    for k in range(per_port):
        for q in range(n):
            dst = q ^ 1 if q ^ 1 < n else 0
            size = r.choice((60, 61, 64, 127, 128, 255, 256, 1514)) if k % 3 else r.randint(60, 1514)
            f = frame(st[dst], st[q], size, 0x10000 * q + k)
            sb.send(q, f)
            sent.append((q, f))
    # queue everything at once: the GMII sources send back to back (minimum IFG)
    for q, f in sent:
        await b.send(q, f)
    await b.idle(30)
    got, stomped = b.drain()
    assert not stomped
    res = sb.check(got)
    assert res["missing"] == 0 and res["delivered"] == per_port * n, res
    # latency of every frame: per output in order against its input's SFDs
    want = expected_latency(release)
    for q in range(n):
        src = [s_ for s_ in range(n) if (s_ ^ 1 if s_ ^ 1 < n else 0) == q]
        rx_times = sorted(t for s_ in src for t in b.rx_sfd[s_])
        assert len(rx_times) == len(b.tx_sfd[q]), (q, len(rx_times), len(b.tx_sfd[q]))
        lat = {round(t - r_, 3) for r_, t in zip(rx_times, b.tx_sfd[q])}
        assert lat == {want}, (q, lat)
    c = await b.counters()
    assert sum(c["drops"]) == 0, c
    await b.assert_empty()


@pytest.mark.parametrize("ports", [4])
def test_node_w(ports):
    runner.run("fp_node_w", __name__, {"PORTS": ports, "SEGMENTS": 256})
