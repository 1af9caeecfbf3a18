"""fp_node, the whole node, with real bus models: cocotbext-eth GMII sources and sinks on
the ports (port_clk 125 MHz), cocotbext-axi AXI4-Lite on the registers and AXI4-Stream on the
host ports (clk 200 MHz). PORTS = 4, SEGMENTS = 256 to keep it fast. The ports' RX clocks
(gmii_rx_clk) run at 125 MHz half a cycle after port_clk (RX_PHASE_NS): the SFD stamps cross
from the port clock's timebase into them (node/tests/test_node.py also runs drifting RX clocks).

Checked against the reference model (fastpath.node.model): learning then unicast, broadcast
flooding, VLANs (an access port, a trunk: tag inserted and stripped), a link-local frame to the
host and a frame from the host, a bad-FCS multi-segment frame leaving stomped and counted, the
register block (id, build, counters, buf_status.free == SEGMENTS afterwards: nothing leaked),
and the exact cut-through latency (release_ns + 11 port cycles, node_budget.TAIL_PORT_CYCLES,
plus the 4 ns from the RX edge to the next port_clk edge, whatever the frame size).

TX timestamps (`tx_timestamps`): per-port stamp selections (PTP EtherType plain and behind the
trunk's tag, every frame, the tester stamp (TX_TESTER_STAMP = 1 in this build), an offset that
does not fit): each stamp equals the time the test sees the SFD appear at the TX pins (the MAC's
launch edge, one port cycle before the edge a PHY samples it at), in the node's fp_time (0 at the
last port_clk edge that sampled port_rst high: fp_timebase reads 8 ns after the first edge that
samples it low); unstamped frames are unchanged, every FCS is good, the latency is the same as
without stamps, and ts_stamped / ts_bad_offset count.

The node's ports are packed vectors (gmii_rxd[PORTS*8-1:0], s_host_axis_tdata[2*64-1:0], ...);
the bus models take one port each through `Slice` views of those vectors.
"""
from __future__ import annotations

import types

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer, with_timeout
from cocotb.clock import Clock
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiStreamFrame, AxiStreamSink, AxiStreamSource
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource

from fastpath import regs
from fastpath.ptrain import frame as pframe
from fastpath.node import budget as node_budget
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Scoreboard, Vlan
from fastpath.sim import runner
from fastpath.sim.packed import Slice, patch_bus_models
from fastpath.sim.tb import params, pauses, rng

PORTS = 4
SEGMENTS = 256
SEG_BYTES = 64
PORT_NS = 8
RX_PHASE_NS = 4         # gmii_rx_clk rises at port_clk's falling edge
RELEASE_NS = node_budget.release_ns(64, 200.0)   # the budget's worst case (904 ns)
RM = regs.load("node")
ETHERTYPE = 0x88B5
BCAST = b"\xff" * 6


AXIS_SIGNALS = {"_signals": ["tdata"], "_optional_signals": ["tvalid", "tready", "tlast", "tkeep", "tuser"]}


class HostSource(AxiStreamSource):
    _init_x = False     # the Slice views drive numbers (X would need a whole-vector LogicArray)


patch_bus_models()


# ---- frames and the test bench ------------------------------------------------------------------

def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x10, n])


class Bench:
    def __init__(self, dut):
        self.dut = dut
        shadows = {name: {"v": 0} for name in ("rxd", "rx_dv", "rx_er", "h_tdata", "h_tkeep",
                                                "h_tvalid", "h_tlast", "h_tuser", "h_tready")}
        self.src, self.sink = [], []
        for p in range(PORTS):
            self.src.append(GmiiSource(Slice(dut.gmii_rxd, 8 * p, 8, shadows["rxd"]),
                                       Slice(dut.gmii_rx_er, p, 1, shadows["rx_er"]),
                                       Slice(dut.gmii_rx_dv, p, 1, shadows["rx_dv"]),
                                       dut.port_clk, dut.port_rst))
            self.sink.append(GmiiSink(Slice(dut.gmii_txd, 8 * p, 8), Slice(dut.gmii_tx_er, p, 1),
                                      Slice(dut.gmii_tx_en, p, 1), dut.port_clk, dut.port_rst))
        self.host_src, self.host_sink = [], []
        for d in range(2):
            s = types.SimpleNamespace(
                _name=f"s_host_axis{d}", _entity=dut, **AXIS_SIGNALS,
                tdata=Slice(dut.s_host_axis_tdata, 64 * d, 64, shadows["h_tdata"]),
                tkeep=Slice(dut.s_host_axis_tkeep, 8 * d, 8, shadows["h_tkeep"]),
                tvalid=Slice(dut.s_host_axis_tvalid, d, 1, shadows["h_tvalid"]),
                tready=Slice(dut.s_host_axis_tready, d, 1),
                tlast=Slice(dut.s_host_axis_tlast, d, 1, shadows["h_tlast"]),
                tuser=Slice(dut.s_host_axis_tuser, d, 1, shadows["h_tuser"]))
            m = types.SimpleNamespace(
                _name=f"m_host_axis{d}", _entity=dut, **AXIS_SIGNALS,
                tdata=Slice(dut.m_host_axis_tdata, 64 * d, 64),
                tkeep=Slice(dut.m_host_axis_tkeep, 8 * d, 8),
                tvalid=Slice(dut.m_host_axis_tvalid, d, 1),
                tready=Slice(dut.m_host_axis_tready, d, 1, shadows["h_tready"]),
                tlast=Slice(dut.m_host_axis_tlast, d, 1),
                tuser=Slice(dut.m_host_axis_tuser, d, 1))
            self.host_src.append(HostSource(s, dut.clk, dut.rst))
            self.host_sink.append(AxiStreamSink(m, dut.clk, dut.rst))
        self.regs = regs.RegClient(RM, AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))
        self.rx_clock_run = True
        self.rx_sfd = {p: [] for p in range(PORTS)}    # SFD sampling times (ns) at the RX pins
        self.tx_sfd = {p: [] for p in range(PORTS)}    # and at the TX pins (a PHY's sampling edge)

    async def start(self):
        dut = self.dut
        cocotb.start_soon(Clock(dut.clk, 5, unit="ns").start())
        cocotb.start_soon(Clock(dut.port_clk, PORT_NS, unit="ns").start())
        cocotb.start_soon(self._rx_clocks())
        await self.reset()
        cocotb.start_soon(self._pins())

    async def reset(self):
        """rst and port_rst together for 20 port cycles, then the wait for the buffer's free list,
        which fills one segment per cycle after reset."""
        dut = self.dut
        dut.rst.value = 1
        dut.port_rst.value = 1
        await ClockCycles(dut.port_clk, 20)
        self.t0 = get_sim_time(unit="ns")       # the node's fp_time 0 (tx_timestamps)
        dut.rst.value = 0
        dut.port_rst.value = 0
        await ClockCycles(dut.clk, SEGMENTS + 50)

    async def _rx_clocks(self):
        """Every port's gmii_rx_clk: port_clk inverted (rising at its falling edge). The GMII
        sources change the RX pins at port_clk's rising edge, half a cycle before the RX MAC
        samples them. `rx_clock_run` = False stops them (low), as a PHY may."""
        dut = self.dut
        ones = (1 << PORTS) - 1
        dut.gmii_rx_clk.value = 0
        while True:
            await FallingEdge(dut.port_clk)
            if self.rx_clock_run:
                dut.gmii_rx_clk.value = ones
            await RisingEdge(dut.port_clk)
            dut.gmii_rx_clk.value = 0

    async def _pins(self):
        """SFD times at the pins, measured as the harness does: the rising clock edge at which
        the receiver (the node's RX MAC on gmii_rx_clk, or a PHY on the TX pins on port_clk)
        samples the 0xD5 byte. Read at port_clk's falling edge, when the pins are stable: that is
        the RX sampling edge; the TX one is 4 ns later."""
        dut = self.dut
        rx_in = [False] * PORTS
        tx_in = [False] * PORTS
        while True:
            await FallingEdge(dut.port_clk)
            t_rx = get_sim_time(unit="ns")
            t_tx = t_rx + PORT_NS / 2
            try:
                rxd, rdv = int(dut.gmii_rxd.value), int(dut.gmii_rx_dv.value)
                txd, ten = int(dut.gmii_txd.value), int(dut.gmii_tx_en.value)
            except ValueError:
                continue
            for p in range(PORTS):
                for d, en, state, log, t in ((rxd, rdv, rx_in, self.rx_sfd, t_rx),
                                             (txd, ten, tx_in, self.tx_sfd, t_tx)):
                    if not (en >> p) & 1:
                        state[p] = False
                    elif not state[p] and (d >> (8 * p)) & 0xFF == 0xD5:
                        state[p] = True
                        log[p].append(t)

    async def send(self, port: int, data: bytes, bad_fcs: bool = False):
        f = GmiiFrame.from_payload(data)
        if bad_fcs:
            f.data[-1] ^= 0xFF
        await self.src[port].send(f)

    async def recv(self, port: int, timeout_us: float = 100) -> GmiiFrame:
        return await with_timeout(self.sink[port].recv(), timeout_us, "us")

    async def recv_host(self, d: int, timeout_us: float = 100) -> AxiStreamFrame:
        return await with_timeout(self.host_sink[d].recv(), timeout_us, "us")

    async def idle(self, us: float = 20):
        for s in self.src:
            await s.wait()
        await Timer(us, "us")


def frame(da: bytes, sa: bytes, size: int, uid: int, vid: int | None = None) -> bytes:
    """`size` bytes without the FCS, the id in the last 4."""
    head = da + sa
    if vid is not None:
        head += bytes.fromhex("8100") + vid.to_bytes(2, "big")
    head += ETHERTYPE.to_bytes(2, "big")
    return head + bytes((uid + i) & 0xFF for i in range(size - len(head) - 4)) + uid.to_bytes(4, "big")


# port 0, 1: access VLAN 1; port 2: trunk, native VLAN 1, also carries VLAN 10 (tagged);
# port 3: access VLAN 10
VLANS = [Vlan(True, 1, 0b0111), Vlan(True, 10, 0b1100)]
TRUNK = 0b0100
PVID = [1, 1, 1, 10]


async def configure(b: Bench, release_ns: int = RELEASE_NS):
    for i in range(16):
        v = VLANS[i] if i < len(VLANS) else Vlan(False, 0, 0)
        await b.regs.write("vlan_id", vid=v.vid, valid=int(v.valid), index=i)
        if i < len(VLANS):
            await b.regs.write("vlan_members", v.members, index=i)
    for p in range(PORTS):
        await b.regs.write("port_cfg", enable=1, trunk=(TRUNK >> p) & 1, pvid=PVID[p], index=p)
    await b.regs.write("release_ns", release_ns)


def model() -> NodeModel:
    return NodeModel(NodeCfg(ports=PORTS, seg_bytes=SEG_BYTES,
                             rx=RxCfg(ports=PORTS, seg_bytes=SEG_BYTES, port_trunk=TRUNK, pvid=PVID,
                                      vlans=VLANS)))


async def learned_bench(dut):
    """A started and configured bench that has learned station B on port 1; returns (b, A, B)."""
    b = Bench(dut)
    await b.start()
    await configure(b)
    A, B = mac(0xA), mac(0xB)
    await b.send(1, frame(BCAST, B, 60, 1))
    await b.idle(3)
    return b, A, B


@cocotb.test()
async def switching(dut):
    """Learning, unicast, flooding, VLAN tag insert/strip, to and from the host, a stomped bad
    frame, the counters, and an empty buffer afterwards."""
    r = rng()
    b = Bench(dut)
    await b.start()
    assert await b.regs.read("id") == 0x46500004
    build = RM.decode("build", await b.regs.read("build"))
    assert build == {"ports": PORTS, "datapaths": 2, "seg_bytes": SEG_BYTES, "segments": SEGMENTS}
    assert RM.decode("buf_status", await b.regs.read("buf_status"))["free"] == SEGMENTS
    await configure(b)
    for d in range(2):
        b.host_src[d].set_pause_generator(pauses(r, 0.3))
        b.host_sink[d].set_pause_generator(pauses(r, 0.3))

    sb = Scoreboard(model())
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
    ]
    for port, f in steps:
        sb.send(port, f)
        await b.send(port, f)
        await b.idle(2)
    # from the host port of datapath 1: to B (learned on port 1), untagged, VLAN 1
    hf = frame(B, H, 150, next(uid))
    sb.send(PORTS + 1, hf)
    await b.host_src[1].send(AxiStreamFrame(hf, tuser=0))
    await b.idle(5)
    # a bad FCS on a frame of several segments: it is already leaving when the FCS arrives
    bad = frame(B, A, 400, next(uid))
    await b.send(0, bad, bad_fcs=True)
    await b.idle(5)
    # one that fits in a segment is dropped before it leaves, and counted
    await b.send(0, frame(B, A, 60, next(uid)), bad_fcs=True)
    await b.idle(10)

    got = {p: [] for p in range(PORTS + 2)}
    stomped = []
    for p in range(PORTS):
        while not b.sink[p].empty():
            g = b.sink[p].recv_nowait()
            payload = bytes(g.get_payload())
            if g.check_fcs() and not g.error:
                got[p].append(payload)
            else:
                stomped.append((p, payload))
    for d in range(2):
        while not b.host_sink[d].empty():
            g = b.host_sink[d].recv_nowait()
            assert not (g.tuser[-1] if isinstance(g.tuser, list) else g.tuser), "good frame marked bad"
            got[PORTS + d].append(bytes(g.tdata))
    res = sb.check(got)
    assert res["missing"] == 0 and res["delivered"] == sum(len(v) for v in sb.expected.values()) == 13, res
    # the VLAN edits happened
    assert any(f[12:16] == bytes.fromhex("8100000a") for f in got[2]), "tag inserted on the trunk"
    assert any(f[12:14] == ETHERTYPE.to_bytes(2, "big") and f[:6] == C for f in got[3]), "tag stripped"
    assert len(got[PORTS]) == 1 and got[PORTS][0][:6] == bytes.fromhex("0180c200000e")
    # the bad frame left port 1 only, stomped, with its bytes
    assert [p for p, _ in stomped] == [1], stomped
    assert stomped[0][1] == bad
    # counters
    # bad_frame: the short one (dropped) and the long one (stomped), both from port 0
    assert await b.regs.read("drops_count", 1) == 2
    assert await b.regs.read("port_rx_drops", 0) == 2
    assert await b.regs.read("drops_count", 14) == 0               # underrun
    assert await b.regs.read("drops_count", 15) == 0               # internal
    assert await b.regs.read("drops_count", 7) == 0                # LLDP went to the host
    sent = [sum(1 for p, _ in steps if p == q) for q in range(PORTS)]
    sent[0] += 1        # the long bad frame; the short one never reached the datapath (rx_drops)
    for p in range(PORTS):
        assert await b.regs.read("port_rx_frames", p) == sent[p], p
        assert await b.regs.read("port_tx_frames", p) == len(got[p]) + sum(1 for q, _ in stomped if q == p), p
        assert await b.regs.read("port_tx_drops", p) == 0
    # A, B (VLAN 1), C, D, E (VLAN 10); the host's source addresses are not learned
    assert await b.regs.read("l2_learned") == sb.model.table.events["learn_new"] == 5
    status = RM.decode("buf_status", await b.regs.read("buf_status"))
    assert status["free"] == SEGMENTS, status
    assert status["used_hwm"] > 0


@cocotb.test()
async def cut_through_latency(dut):
    """With release_ns = R, a frame's SFD leaves its output exactly R + 11 port cycles
    (node_budget.TAIL_PORT_CYCLES) + 4 ns after its SFD was sampled at the input, for short and
    long frames alike, and for two values of R.

    Where the 11 cycles come from (E0 = the first port_clk edge at or after the gmii_rx_clk edge
    at which the RX MAC's input flop samples the SFD: PORT_NS - RX_PHASE_NS = 4 ns later): the
    MAC stamps the frame with the time of E0 (the timebase crossed into the RX clock in Gray
    code, compensated for the crossing's latency: node/README.md, Clocks); the TX FIFO's release
    rule (now - ts >= R) is first true in the cycle after E(R/8); the TX FIFO registers that
    comparison at the next edge (1) and its first byte at the edge after (1); the TX MAC samples that tvalid at the edge after (1); the MAC
    launches the SFD 7 cycles later (7); the PHY samples it at the next edge (1). The datapath
    (RX MAC holdback, segment accumulation, clock crossings, arbitration, lookup, buffer, route)
    finishes inside R (RELEASE_NS, the worst case of fastpath.node.budget), so it does not
    show: the latency is independent of the frame size."""
    b, A, B = await learned_bench(dut)
    lat = {}
    for rel in (RELEASE_NS, 1200):
        await b.regs.write("release_ns", rel)
        for k, size in enumerate((60, 1514, 300)):
            n_rx, n_tx = len(b.rx_sfd[0]), len(b.tx_sfd[1])
            f = frame(B, A, size, 10 + k + (rel & 0xFF00))
            await b.send(0, f)
            g = await b.recv(1)
            assert g.check_fcs() and bytes(g.get_payload()) == f
            assert len(b.rx_sfd[0]) == n_rx + 1 and len(b.tx_sfd[1]) == n_tx + 1
            lat[rel, size] = b.tx_sfd[1][-1] - b.rx_sfd[0][-1]
            await b.idle(2)
    for (rel, size), v in lat.items():
        assert v == rel + node_budget.TAIL_PORT_CYCLES * PORT_NS + (PORT_NS - RX_PHASE_NS), lat
    assert RM.decode("buf_status", await b.regs.read("buf_status"))["free"] == SEGMENTS


@cocotb.test()
async def bad_frame_counted(dut):
    """A bad-FCS frame of several segments leaves its output stomped (cut-through: its first
    segments were already on their way) and is counted in drops_count[bad_frame]. Sequence:
    learn B on port 1, then one 400-byte frame A -> B with a bad FCS on port 0."""
    b, A, B = await learned_bench(dut)
    f = frame(B, A, 400, 2)
    await b.send(0, f, bad_fcs=True)
    g = await b.recv(1)
    assert not g.check_fcs() and bytes(g.get_payload()) == f      # stomped: right
    await b.idle(3)
    assert await b.regs.read("drops_count", 1) + await b.regs.read("drops_count", 2) == 1


@cocotb.test()
async def reset_with_rx_clock_stopped(dut):
    """The PHYs' RX clocks stop, the node is reset, and they run again only later: the RX side of
    each port is reset when its clock returns, and the datapath side of its crossings stays in
    reset until then (fp_node: rx_rst), so nothing of the frames received before the reset
    comes out again, and no undefined segment enters the datapath. Afterwards the node switches
    normally and the buffer is whole."""
    b, A, B = await learned_bench(dut)
    for k in range(3):                                  # the RX FIFOs' pointers move on
        await b.send(0, frame(B, A, 300 + 100 * k, 2 + k))
        await b.recv(1)
    await b.idle(3)
    for s in b.sink:
        while not s.empty():
            s.recv_nowait()
    b.rx_clock_run = False
    await ClockCycles(dut.port_clk, 10)
    await b.reset()                                     # the RX clocks stay off
    await configure(b)
    await ClockCycles(dut.clk, 2000)
    assert all(s.empty() for s in b.sink), "frames came out of a node whose RX clocks are stopped"
    b.rx_clock_run = True
    await ClockCycles(dut.port_clk, 100)
    await b.idle(5)
    assert all(s.empty() for s in b.sink), "frames received before the reset came out again"
    for p in range(PORTS):
        assert await b.regs.read("port_rx_frames", p) == 0
        assert await b.regs.read("port_tx_frames", p) == 0
    for reason in range(16):
        assert await b.regs.read("drops_count", reason) == 0, reason
    f = frame(BCAST, A, 200, 9)                         # the table was reset too: flooded
    await b.send(0, f)
    for p in (1, 2):
        g = await b.recv(p)
        assert g.check_fcs() and bytes(g.get_payload()) == f
    await b.idle(3)
    assert all(s.empty() for s in b.sink)
    assert RM.decode("buf_status", await b.regs.read("buf_status"))["free"] == SEGMENTS


PTP = 0x88F7


def ptp_frame(da: bytes, sa: bytes, size: int, uid: int, vid: int | None = None) -> bytes:
    f = bytearray(frame(da, sa, size, uid, vid))
    et = 16 if vid is not None else 12
    f[et:et + 2] = PTP.to_bytes(2, "big")
    return bytes(f)


def ptrain_probe(da: bytes, sa: bytes, size: int, seq: int) -> tuple[bytes, dict, int]:
    """A packet-train tester frame as its generator sends it (time fields and csum_adj 0): the
    frame, build()'s arguments, the tester header's offset."""
    h = pframe.Headers(src_mac=sa.hex(":"), dst_mac=da.hex(":"))
    kw = dict(size=size, seq=seq, train=7, index=0, train_len=1, headers=h)
    return pframe.unstamped(**kw), kw, h.length


@cocotb.test()
async def tx_timestamps(dut):
    """Stamps per port as configured (see the module docstring), exact against the TX pins."""
    tester = params().get("TX_TESTER_STAMP", 0)
    b, A, B = await learned_bench(dut)
    for s in b.sink:                                    # the learning broadcast
        while not s.empty():
            s.recv_nowait()
    C = mac(0xC)
    # port 0: every frame, the tester stamp at the tester header; port 1: PTP only, at 30;
    # port 2 (trunk): PTP only (behind the tag), at 20; port 3: every frame, at 100
    await b.regs.write("ts_cfg", enable=1, mode=1, by_type=0, offset=42, index=0)
    await b.regs.write("ts_cfg", enable=1, mode=0, by_type=1, offset=30, index=1)
    await b.regs.write("ts_cfg", enable=1, mode=0, by_type=1, offset=20, index=2)
    await b.regs.write("ts_cfg", enable=1, mode=0, by_type=0, offset=100, index=3)
    assert RM.decode("ts_match", await b.regs.read("ts_match", 2))["ethertype"] == PTP

    async def through(src: int, f: bytes, dst: int, vid_out: int | None = None):
        """Send f on src, receive it on dst; the wire frame, the stamp time (fp_time of the SFD
        launch at dst) and the latency."""
        n_rx, n_tx = len(b.rx_sfd[src]), len(b.tx_sfd[dst])
        await b.send(src, f)
        g = await b.recv(dst)
        assert g.check_fcs() and not g.error
        assert len(b.rx_sfd[src]) == n_rx + 1 and len(b.tx_sfd[dst]) == n_tx + 1
        launch = b.tx_sfd[dst][-1] - PORT_NS
        lat = b.tx_sfd[dst][-1] - b.rx_sfd[src][-1]
        assert lat == RELEASE_NS + node_budget.TAIL_PORT_CYCLES * PORT_NS + (PORT_NS - RX_PHASE_NS), lat
        await b.idle(2)
        return bytes(g.get_payload()), round(launch - b.t0) << 16

    def stamped(f: bytes, off: int, t: int) -> bytes:
        return f[:off] + t.to_bytes(8, "big") + f[off + 8:]

    # learn A on port 0 with a frame port 1 does not stamp (EtherType 0x88B5)
    f = frame(B, A, 100, 1)
    got, _ = await through(0, f, 1)
    assert got == f
    for k, size in enumerate((90, 1514)):               # PTP to port 1: stamped at 30
        f = ptp_frame(B, A, size, 2 + k)
        got, t = await through(0, f, 1)
        assert got == stamped(f, 30, t), (got.hex(), t)
    # a tester frame to port 0: mode 1 writes the tester fields (build() at the SFD time);
    # a node built without the tester stamp writes the 8-byte time at the header instead
    f, kw, off = ptrain_probe(A, B, 120, 77)
    got, t = await through(1, f, 0)
    if tester:
        assert got == pframe.build(tx_time=t, **kw)
        p = pframe.parse(got)
        assert p is not None and p.tx_time == t
    else:
        assert got == stamped(f, off, t)
    # VLAN 10 from port 3 floods to the trunk (port 2), tagged on the way: PTP after the tag is
    # stamped, another EtherType is not
    f = ptp_frame(BCAST, C, 80, 5)
    got, t = await through(3, f, 2)
    tagged = f[:12] + bytes.fromhex("8100000a") + f[12:]
    assert got == stamped(tagged, 20, t)
    f = frame(BCAST, C, 80, 6)
    got, _ = await through(3, f, 2)
    assert got == f[:12] + bytes.fromhex("8100000a") + f[12:]
    # tagged in on the trunk, to port 3 (untagged): a 60-byte frame leaves the stamp at 100
    # outside (bad offset: nothing written; 56 bytes after the strip, padded), a 200-byte one
    # carries it
    f = frame(BCAST, mac(0xD), 60, 7, vid=10)
    got, _ = await through(2, f, 3)
    assert got == (f[:12] + f[16:]).ljust(60, b"\0")
    f = frame(BCAST, mac(0xD), 200, 8, vid=10)
    got, t = await through(2, f, 3)
    assert got == stamped(f[:12] + f[16:], 100, t)
    assert all(s.empty() for s in b.sink)
    await b.idle(1)
    for p, n in enumerate((1, 2, 1, 2)):
        assert await b.regs.read("ts_stamped", p) == n, p
        assert await b.regs.read("ts_bad_offset", p) == int(p == 3), p
    assert RM.decode("buf_status", await b.regs.read("buf_status"))["free"] == SEGMENTS


def test_fastpath_node():
    runner.run("fp_node", __name__, {"PORTS": PORTS, "SEGMENTS": SEGMENTS, "TX_TESTER_STAMP": 1})
