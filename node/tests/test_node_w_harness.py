"""fp_node_w, the word-serial node, at its GMII pins through the fast Verilator harness
(node/harness.py, top "fp_node_w": one 125 MHz clock). The cocotb test (node/tb/test_node_w.py)
covers the bus models and the host ports; this file checks that the harness the benchmark uses
drives the word-serial node right, with a scoreboarded run against fastpath.node.model:

* learning, then frames one at a time (known and unknown unicast, broadcast, a link-local frame
  for the host, VLAN tags inserted and stripped, sizes 64-1518, one bad FCS that leaves stomped);
* then every port at line rate at once in a permutation (the frames' SFDs in the same cycle on
  every port), random sizes, with tag insertion and stripping;
* every forwarded frame leaves exactly w_release_ns + W_TAIL_CYCLES clk cycles after its SFD
  (fastpath.node.budget), plus, on the port whose RX clock runs 3 ns before clk, those 3 ns;
* the counters agree, and afterwards buf_status.free == SEGMENTS, no underrun, no internal drop.
"""
from __future__ import annotations

import random
import subprocess
from collections import Counter

import pytest

from fastpath import formats, regs
from fastpath.node import budget as node_budget
from fastpath.node.harness import InFrame, NodeHarness
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Scoreboard, Vlan

PORTS = 4
SEGMENTS = 256
RM = regs.load("node")
CLK_PS = 8000
ETHERTYPE = 0x88B5
BCAST = b"\xff" * 6
LLDP = bytes.fromhex("0180c200000e")
_R = formats.load("noc_header").const

# port 0, 1: access VLAN 1; port 2: trunk, native VLAN 1, carries VLAN 10 tagged; port 3: access
# VLAN 10
VLANS = [Vlan(True, 1, 0b0111), Vlan(True, 10, 0b1100)]
TRUNK = 0b0100
PVID = [1, 1, 1, 10]
# stations: (port, vid, tagged on the wire)
STATIONS = [(0, 1, False), (0, 1, False), (1, 1, False), (2, 1, False), (2, 10, True), (3, 10, False)]
# port 1's RX clock rises 3 ns before clk (clk rises at 4,000 + 8,000 k ps): its SFD stamps cross
# from the clk timebase, and its frames leave 3 ns later than the others' (node/rtl/fp_node_w.v)
RX_CLOCKS = {1: (CLK_PS, 1000)}
RX_LAG_PS = {1: 3000}


@pytest.fixture(scope="module")
def harness():
    return NodeHarness(ports=PORTS, segments=SEGMENTS, top="fp_node_w")


def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x10, n])


class Frames:
    def __init__(self, seed: int):
        self.uid = 0
        self.r = random.Random(seed)

    def make(self, da: bytes, sa: bytes, size: int, vid: int | None = None) -> bytes:
        """`size` bytes on the wire with the FCS (the harness appends it); a unique id last."""
        self.uid += 1
        head = da + sa
        if vid is not None:
            head += (0x8100).to_bytes(2, "big") + vid.to_bytes(2, "big")
        head += ETHERTYPE.to_bytes(2, "big")
        fill = bytes(self.r.getrandbits(8) for _ in range(size - 4 - len(head) - 4))
        return head + fill + self.uid.to_bytes(4, "big")

    def station(self, i: int, da: bytes, size: int) -> tuple[int, bytes]:
        port, vid, tagged = STATIONS[i]
        return port, self.make(da, mac(i), size + (4 if tagged else 0), vid if tagged else None)


def wire_ps(data_len: int) -> int:
    """preamble + SFD, the bytes, FCS, 12 bytes of gap"""
    return (8 + data_len + 4 + 12) * CLK_PS


def config_writes() -> list[tuple[int, int]]:
    w = [(RM.offset("release_ns"), node_budget.w_release_ns(PORTS))]
    for i in range(16):
        v = VLANS[i] if i < len(VLANS) else Vlan(False, 0, 0)
        w.append((RM.offset("vlan_id", i), RM.encode("vlan_id", vid=v.vid, valid=int(v.valid))))
        w.append((RM.offset("vlan_members", i), v.members))
    for p in range(PORTS):
        w.append((RM.offset("port_cfg", p), RM.encode("port_cfg", enable=1, trunk=(TRUNK >> p) & 1, pvid=PVID[p])))
    return w


READS = ([RM.offset("buf_status")] + [RM.offset("drops_count", i) for i in range(16)]
         + [RM.offset(r, p) for p in range(PORTS) for r in ("port_rx_frames", "port_tx_frames")])


def test_refuses_another_clock(harness):
    """fp_node_w has one clock, the GMII's: the harness refuses any other period (in Python and
    in the C++ driver itself)."""
    with pytest.raises(ValueError, match="clk_ps must be 8000"):
        harness.run([], clk_ps=5000)
    script = harness.exe.parent / "refuse.script"
    script.write_text("clk_ps 5000\n")
    proc = subprocess.run([str(harness.exe), str(script), str(script.with_suffix(".out"))],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "clk_ps must be 8000" in proc.stderr


def test_scoreboard_and_exact_latency(harness):
    g = Frames(18)
    r = random.Random(18)
    frames: list[InFrame] = []
    bad: list[bytes] = []
    t = 0
    # learning: every station sends a broadcast
    for i in range(len(STATIONS)):
        p, f = g.station(i, BCAST, 64)
        frames.append(InFrame(p, t, f))
        t += 3_000_000
    # one at a time: unicast (known and unknown), broadcast, link-local to the host, any size
    for k in range(36):
        i = r.randrange(len(STATIONS))
        vid = STATIONS[i][1]
        x = r.random()
        if x < 0.6:
            da = mac(r.choice([j for j, s in enumerate(STATIONS) if s[1] == vid and j != i]))
        elif x < 0.75:
            da = BCAST
        elif x < 0.9:
            da = mac(0x80 + r.randrange(8))          # never a source: flooded
        else:
            da = LLDP
        size = r.choice([64, 65, 127, 128, 1518]) if k % 2 else r.randint(64, 1518)
        p, f = g.station(i, da, size)
        frames.append(InFrame(p, t, f))
        t += wire_ps(len(f)) + 2_000_000
    # a bad FCS on a long frame: already leaving when its FCS arrives, so it leaves stomped
    p, f = g.station(0, mac(2), 400)
    frames.append(InFrame(p, t, f, bad_fcs=True))
    bad.append(f)
    t += wire_ps(len(f)) + 2_000_000
    # full load: every port at once, back to back, in a permutation (port 0 <-> 1 in VLAN 1,
    # 2 -> 3 stripped, 3 -> 2 tagged). A frame that gains a tag is 4 bytes longer at the output,
    # so port 3 leaves 4 more idle bytes after each frame (its output stays within line rate).
    flows = {0: (0, 2), 1: (2, 0), 2: (4, 5), 3: (5, 4)}
    t_next = {p: t for p in range(PORTS)}
    for k in range(40):
        for p, (i, j) in flows.items():
            size = r.choice([64, 65, 127, 128, 255, 1518]) if k % 3 else r.randint(64, 1518)
            q, f = g.station(i, mac(j), size)
            frames.append(InFrame(q, t_next[p], f))
            if p == 3:
                t_next[p] += wire_ps(len(f)) + 4 * CLK_PS
    res = harness.run(frames, writes=config_writes(), reads=READS, drain_ps=2_000_000,
                      end_ps=10_000_000_000, rx_clocks=RX_CLOCKS)

    # the model, in the order of the SFDs
    idx = Counter()
    order = []
    for f in frames:
        order.append((res.rx[(f.port, idx[f.port])], f.port, f))
        idx[f.port] += 1
    assert len(order) == len(frames)
    rx = RxCfg(ports=PORTS, port_trunk=TRUNK, pvid=PVID, vlans=VLANS)
    sb = Scoreboard(NodeModel(NodeCfg(ports=PORTS, rx=rx)))
    sfd_of = {}
    for t_sfd, p, f in sorted(order, key=lambda x: (x[0], x[1])):
        sfd_of[f.data[-4:]] = (p, t_sfd)
        if not f.bad_fcs:
            sb.send(p, f.data)
    got = {p: [o.data for o in res.tx[p] if o.ok and not o.er] for p in res.tx}
    for d, fl in res.host.items():
        got[PORTS + d] = list(fl)
    stomped = [(p, o.data) for p in res.tx for o in res.tx[p] if not o.ok or o.er]
    check = sb.check(got)
    assert check["missing"] == 0
    assert check["delivered"] == sum(len(v) for v in sb.expected.values()) > 180
    assert stomped == [(1, bad[0])], stomped
    assert any(PORTS + d in got and got[PORTS + d] for d in (0, 1)), "no frame reached the host"
    kinds = Counter(("tagged" if o.data[12:14] == b"\x81\x00" else "untagged", p)
                    for p in res.tx for o in res.tx[p])
    assert kinds["tagged", 2] and kinds["untagged", 2] and kinds["untagged", 3]

    # the exact latency of every frame that left a port (the stomped one included)
    want = node_budget.w_latency_ns(PORTS) * 1000
    assert want == node_budget.w_release_ns(PORTS) * 1000 + node_budget.W_TAIL_CYCLES * CLK_PS
    lat = Counter()
    for q in res.tx:
        for o in res.tx[q]:
            p, t_in = sfd_of[o.data[-4:]]
            lat[o.sfd_ps - t_in - RX_LAG_PS.get(p, 0)] += 1
    assert set(lat) == {want}, lat
    assert sum(lat.values()) == sum(len(v) for v in res.tx.values())

    # the counters, and nothing left behind
    rd = res.reads
    drops = [rd[RM.offset("drops_count", i)] for i in range(16)]
    assert drops[_R["reason_bad_frame"]] == 1
    for reason in (_R["reason_vlan"], _R["reason_no_dest"]):
        assert drops[reason] == sb.model_drops[reason], (reason, drops, dict(sb.model_drops))
    assert drops[_R["reason_underrun"]] == 0 and drops[_R["reason_internal"]] == 0
    assert sum(drops) == 1 + sum(sb.model_drops.values()), drops
    sent = Counter(f.port for f in frames)
    for p in range(PORTS):
        assert rd[RM.offset("port_rx_frames", p)] == sent[p]
        assert rd[RM.offset("port_tx_frames", p)] == len(res.tx[p])
    status = RM.decode("buf_status", rd[RM.offset("buf_status")])
    assert status["free"] == SEGMENTS, status
