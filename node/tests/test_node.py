"""fp_node as a whole, at its GMII pins, through the fast Verilator harness
(node/harness.py): randomized traffic scoreboarded against the reference model
(fastpath.node.model), oversubscription and its drop accounting, ageing, bad input, pause,
store-and-forward; the random traffic, bad input and latency tests also with 32-byte segments.
The cocotb test of the top (node/tb/test_fastpath_node.py) covers the bus
models, the host ports and the exact cut-through latency; this file is for volume.

After every test: the buffer is empty (buf_status.free == SEGMENTS), no TX FIFO ever ran dry
(drops_count[UNDERRUN] == 0) and no segment went astray (drops_count[INTERNAL] == 0).
"""
from __future__ import annotations

import random
from collections import Counter

import pytest

from fastpath import formats, regs
from fastpath.node.model import NodeCfg, NodeModel, RxCfg, Scoreboard, Vlan
from fastpath.node import budget as node_budget, l2 as node_l2
from fastpath.node.harness import InFrame, NodeHarness

PORTS = 4
SEGMENTS = 1024
RM = regs.load("node")
# Cut-through, measured at the pins (SFD sampled in -> SFD sampled out): release_ns +
# TAIL_PORT_CYCLES (11) port cycles, for every frame that finds its output idle
# (node/tb/test_fastpath_node.py explains it).
CT_EXTRA_PS = node_budget.TAIL_PORT_CYCLES * 8000
PORT_PS = 8000
ETHERTYPE = 0x88B5

# drop reasons (drops_count index), from the NoC header's one definition
_R = formats.load("noc_header").const
R_BAD, R_OVERSIZE, R_OVERFLOW = _R["reason_bad_frame"], _R["reason_oversize"], _R["reason_rx_overflow"]
R_VLAN, R_NO_DEST, R_RESERVED = _R["reason_vlan"], _R["reason_no_dest"], _R["reason_reserved_mac"]
R_BUFFER_FULL, R_QUEUE_FULL = _R["reason_buffer_full"], _R["reason_queue_full"]
R_PORT_THRESHOLD, R_UNDERRUN, R_INTERNAL = _R["reason_port_threshold"], _R["reason_underrun"], _R["reason_internal"]


@pytest.fixture(scope="module")
def harness():
    return NodeHarness(ports=PORTS, seg_bytes=64, segments=SEGMENTS)


@pytest.fixture(scope="module")
def harness32():
    """SEG_BYTES = 32 (the issue allows it; the release time drops from 904 to 648 ns)."""
    return NodeHarness(ports=PORTS, seg_bytes=32, segments=SEGMENTS)


# The tests marked `seg` run on both segment sizes; the others on 64-byte segments only.
SEGS = pytest.mark.parametrize("seg", [64, 32])


def pick(request, seg: int) -> NodeHarness:
    return request.getfixturevalue("harness" if seg == 64 else "harness32")


def seg_bytes(h: NodeHarness) -> int:
    return h.params["SEG_BYTES"]


def release_ns(h: NodeHarness) -> int:
    """The cut-through release time the tests program: the budget's bound at 200 MHz (904 ns for
    64-byte segments, 648 ns for 32)."""
    return node_budget.release_ns(seg_bytes(h), 200.0)


# ---- frames ------------------------------------------------------------------------------------

def mac(n: int) -> bytes:
    return bytes([0x02, 0, 0, 0, (n >> 8) & 0xFF, n & 0xFF])


BCAST = b"\xff" * 6
MCAST = bytes([0x01, 0x00, 0x5E, 0x00, 0x00, 0x07])


class Frames:
    """Unique test frames: a 4-byte id in the last bytes (so the scoreboard can tell copies apart)."""

    def __init__(self, seed: int):
        self.uid = 0
        self.r = random.Random(seed)

    def make(self, da: bytes, sa: bytes, size: int, vid: int | None = None, pcp: int = 0,
             ethertype: int = ETHERTYPE) -> bytes:
        """`size` bytes on the wire with the FCS (the harness appends the FCS)."""
        self.uid += 1
        head = da + sa
        if vid is not None:
            head += (0x8100).to_bytes(2, "big") + ((pcp << 13) | vid).to_bytes(2, "big")
        head += ethertype.to_bytes(2, "big")
        fill = bytes(self.r.getrandbits(8) for _ in range(size - 4 - len(head) - 4))
        return head + fill + self.uid.to_bytes(4, "big")


# ---- configuration -----------------------------------------------------------------------------

def port_cfg(trunk: int = 0, pvid: int = 1, pcp: int = 0, enable: int = 1) -> int:
    return RM.encode("port_cfg", enable=enable, trunk=trunk, pvid=pvid, pcp=pcp)


def vlan_writes(vlans: list[Vlan]) -> list[tuple[int, int]]:
    """The whole 16-entry VLAN table: `vlans` first, the other entries invalid."""
    w = []
    for i in range(16):
        v = vlans[i] if i < len(vlans) else Vlan(False, 0, 0)
        w.append((RM.offset("vlan_id", i), RM.encode("vlan_id", vid=v.vid, valid=int(v.valid))))
        w.append((RM.offset("vlan_members", i), v.members))
    return w


STATUS_READS = ([RM.offset("buf_status")]
                + [RM.offset("drops_count", i) for i in range(16)]
                + [RM.offset(r, p) for p in range(PORTS)
                   for r in ("port_rx_frames", "port_tx_frames", "port_rx_drops", "port_tx_drops")])


def drops(res, reason: int) -> int:
    return res.reads[RM.offset("drops_count", reason)]


def counter(res, reg: str, port: int) -> int:
    return res.reads[RM.offset(reg, port)]


def run(h: NodeHarness, frames: list[InFrame], writes=(), drain_ps: int = 5_000_000, reads=(),
        rx_clocks: dict | None = None):
    writes = [(RM.offset("release_ns"), release_ns(h)), *writes]
    res = h.run(frames, writes=writes, reads=STATUS_READS + list(reads), drain_ps=drain_ps,
                end_ps=100_000_000_000,          # a safety net: the run stops when drained
                rx_clocks=rx_clocks)
    # every port saw all of its frames
    per_port = Counter(f.port for f in frames)
    for p, n in per_port.items():
        assert (p, n - 1) in res.rx, f"port {p}: only some of its {n} frames were sent"
    status = RM.decode("buf_status", res.reads[RM.offset("buf_status")])
    assert status["free"] == SEGMENTS, f"buffer not empty after traffic: {status}"
    assert drops(res, R_UNDERRUN) == 0, "a cut-through frame ran dry at its TX FIFO"
    assert drops(res, R_INTERNAL) == 0
    return res


def sfd_order(frames: list[InFrame], res) -> list[tuple[int, InFrame]]:
    """The frames with their RX SFD times, in SFD order (the order the model must see them)."""
    idx = Counter()
    out = []
    for f in frames:
        out.append((res.rx[(f.port, idx[f.port])], f))
        idx[f.port] += 1
    out.sort(key=lambda x: (x[0], x[1].port))
    return out


def got_frames(res, host: bool = True) -> dict:
    """out port -> [bytes] of the good frames that left (host ports numbered PORTS + d)."""
    got = {p: [o.data for o in res.tx[p] if o.ok and not o.er] for p in res.tx}
    if host:
        for d, fl in res.host.items():
            got[PORTS + d] = list(fl)
    return got


def bad_out(res) -> list:
    return [(p, o) for p in res.tx for o in res.tx[p] if not o.ok or o.er]


def wire_ps(data_len: int) -> int:
    """Time one frame takes on the wire: preamble + SFD, data, FCS, 12 bytes of gap."""
    return (8 + max(data_len, 60) + 4 + 12) * PORT_PS


# ---- randomized traffic -------------------------------------------------------------------------

# port 0: access, VLAN 1; port 1: access, VLAN 10; port 2: trunk, native VLAN 1;
# port 3: trunk, native VLAN 10. VLAN 20 lives on the trunks only.
TRUNK = 0b1100
PVID = [1, 10, 1, 10]
VLANS = [Vlan(True, 1, 0b1101), Vlan(True, 10, 0b1110), Vlan(True, 20, 0b1100)]
# stations: (port, vid, tagged on the wire)
STATIONS = [(0, 1, False), (0, 1, False), (1, 10, False), (1, 10, False),
            (2, 1, False), (2, 10, True), (2, 20, True), (2, 1, True),
            (3, 10, False), (3, 1, True), (3, 20, True), (3, 10, True)]


def vlan_config(seg: int):
    writes = vlan_writes(VLANS)
    for p in range(PORTS):
        writes.append((RM.offset("port_cfg", p), port_cfg(trunk=(TRUNK >> p) & 1, pvid=PVID[p])))
    rx = RxCfg(ports=PORTS, seg_bytes=seg, port_trunk=TRUNK, pvid=PVID, vlans=VLANS)
    return writes, rx


def learning_phase(g: Frames, model_frames: list[InFrame]) -> int:
    """Every station sends one broadcast, well apart: afterwards the node knows them all.
    Returns the time the phase ends (ps)."""
    t = 0
    for i, (p, vid, tagged) in enumerate(STATIONS):
        # a tagged frame is 4 bytes longer: stripped, it must still be 64 bytes (no MAC padding)
        f = g.make(BCAST, mac(0x100 + i), 68 if tagged else 64, vid=vid if tagged else None)
        model_frames.append(InFrame(p, t, f))
        t += 3_000_000
    return t + 5_000_000


def random_frame(g: Frames, r: random.Random, src: int) -> bytes:
    """One frame from a station of port `src` to a random destination of its VLAN."""
    mine = [i for i, s in enumerate(STATIONS) if s[0] == src]
    i = r.choice(mine)
    _, vid, tagged = STATIONS[i]
    size = r.randint(68 if tagged else 64, 1522 if tagged else 1518)
    if r.random() < 0.3:
        size = r.choice([64, 65, 127, 128, 129, 1518]) + (4 if tagged else 0)
    pcp = r.randrange(8) if tagged else 0
    x = r.random()
    if x < 0.60:       # known unicast (sometimes to the same port: no destination)
        j = r.choice([k for k, s in enumerate(STATIONS) if s[1] == vid])
        da = mac(0x100 + j)
    elif x < 0.72:
        da = BCAST
    elif x < 0.80:
        da = MCAST
    elif x < 0.90:     # unknown unicast: never a source, so never learned
        da = mac(0x800 + r.randrange(50))
    elif x < 0.95:     # VLAN violations: a tag on an access port, or a VLAN the port is not in
        if src in (0, 1):
            return g.make(mac(0x100), mac(0x100 + i), max(size, 68), vid=PVID[src], pcp=pcp)
        return g.make(mac(0x100), mac(0x100 + i), max(size, 68), vid=30, pcp=pcp)
    else:              # priority-tagged traffic on a trunk, PCP high
        da = BCAST
        pcp = 7 if tagged else 0
    return g.make(da, mac(0x100 + i), size, vid=vid if tagged else None, pcp=pcp)


def random_rounds(g: Frames, r: random.Random, frames: list[InFrame], t: int, rounds: int,
                  burst: int) -> int:
    """Rounds in which every port sends a burst of 2..`burst` random frames at line rate (all
    ports at once, so the outputs get up to 3 times their rate for a while); the next round
    starts after twice the longest burst, when the node has caught up. Returns the end time."""
    for _ in range(rounds):
        longest = 0
        for p in range(PORTS):
            dur = 0
            for _ in range(r.randint(2, burst)):
                f = random_frame(g, r, p)
                frames.append(InFrame(p, t, f))
                dur += wire_ps(len(f))
            longest = max(longest, dur)
        t += 2 * longest
    return t


@pytest.mark.parametrize("seed,seg", [(1, 64), (2, 64), (3, 32)])
def test_random_traffic(request, seed, seg):
    """Every port at full load in bursts: unicast after learning, floods, VLANs (access, trunk,
    native VLANs, membership, tag insert/strip), 64..1522 bytes. Every frame reaches exactly the
    ports it should, unchanged but for the configured VLAN edit, in order per (input, output,
    priority); nothing is dropped but by the VLAN and no-destination rules, counted exactly."""
    harness = pick(request, seg)
    r = random.Random(seed)
    g = Frames(seed + 100)
    writes, rx = vlan_config(seg)
    frames: list[InFrame] = []
    t0 = learning_phase(g, frames)
    random_rounds(g, r, frames, t0, rounds=18, burst=16)
    res = run(harness, frames, writes)

    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=seg, rx=rx))
    sb = Scoreboard(model, by_prio=True)
    for _, f in sfd_order(frames, res):
        sb.send(f.port, f.data)
    assert not bad_out(res), bad_out(res)[:2]
    check = sb.check(got_frames(res))
    assert check["missing"] == 0
    # nothing dropped for lack of room; the rule drops exactly as the model says
    for reason in (R_BUFFER_FULL, R_QUEUE_FULL, R_PORT_THRESHOLD, R_OVERFLOW, R_BAD):
        assert drops(res, reason) == 0, reason
    for reason in (R_VLAN, R_NO_DEST):
        assert drops(res, reason) == sb.model_drops[reason], (reason, dict(sb.model_drops))
        assert sb.model_drops[reason] > 0
    sent = Counter(f.port for f in frames)
    for p in range(PORTS):
        assert counter(res, "port_rx_frames", p) == sent[p]
        assert counter(res, "port_tx_frames", p) == len(res.tx[p])
        assert counter(res, "port_tx_drops", p) == 0
    assert check["delivered"] > 500
    # the bursts made queues: the buffer held many segments at once
    assert RM.decode("buf_status", res.reads[RM.offset("buf_status")])["used_hwm"] > 100
    # every kind of frame was exercised: tags inserted and stripped, floods, known unicast
    kinds = Counter()
    for p in range(PORTS):
        for o in res.tx[p]:
            kinds["tagged" if o.data[12:14] == b"\x81\x00" else "untagged", p] += 1
    assert kinds["tagged", 2] and kinds["untagged", 2] and kinds["tagged", 3] and kinds["untagged", 3]
    assert not kinds["tagged", 0] and not kinds["tagged", 1]


# ---- independent RX clocks -----------------------------------------------------------------------

# Port 0's RX clock 125 ppm slow, port 1's 125 ppm fast (each beyond 802.3's +-100 ppm), port 2's
# at 125 MHz with its edges 7 ns after port_clk's (rising at 3,000 + 8,000 k ps; port_clk at
# 4,000 + 8,000 k); port 3 receives on port_clk itself.
RX_CLOCKS = {0: (8001, 1234), 1: (7999, 4321), 2: (8000, 3000)}


def test_rx_clocks(harness):
    """Each port's RX runs on its own clock (gmii_rx_clk): the random bursts of
    test_random_traffic all arrive, unchanged and in order, counted, with no underrun and
    nothing leaked. Every cut-through frame leaves release_ns + TAIL_PORT_CYCLES port cycles after
    its SFD plus the time from its RX edge to the next port_clk edge (the stamp is that edge's
    time: node/README.md, Clocks): in [0, 8 ns), exactly 0 on the port that receives on port_clk,
    so at most 999 ns with the budget's release time. The drifting clocks sweep that phase."""
    r = random.Random(7)
    g = Frames(107)
    writes, rx = vlan_config(64)
    rel = release_ns(harness)
    frames: list[InFrame] = []
    t = random_rounds(g, r, frames, learning_phase(g, frames), rounds=8, burst=12)
    # then probes at a low rate: port p to the next port's first station (its VLAN's), sizes mixed
    probes = []
    dst_station = {0: 4, 1: 8, 2: 0, 3: 2}        # same VLAN, untagged on both sides
    for k in range(24):
        for p in range(PORTS):
            i = [j for j, st in enumerate(STATIONS) if st[0] == p and not st[2]][0]
            f = g.make(mac(0x100 + dst_station[p]), mac(0x100 + i), [64, 300, 1518][k % 3])
            frames.append(InFrame(p, t + p * 1_000_000, f))
            probes.append((f, STATIONS[dst_station[p]][0], p))
        # more than a 1518-byte frame's time apart: a port whose RX clock is faster than port_clk
        # delivers back-to-back frames faster than its output can send them (802.3's gap cannot
        # shrink), and the second frame would wait for the first
        t += 14_000_000
    res = run(harness, frames, writes, rx_clocks=RX_CLOCKS)

    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=64, rx=rx))
    sb = Scoreboard(model, by_prio=True)
    for _, f in sfd_order(frames, res):
        sb.send(f.port, f.data)
    assert not bad_out(res), bad_out(res)[:2]
    check = sb.check(got_frames(res))
    assert check["missing"] == 0 and check["delivered"] > 300
    for reason in (R_BUFFER_FULL, R_QUEUE_FULL, R_PORT_THRESHOLD, R_OVERFLOW, R_BAD):
        assert drops(res, reason) == 0, reason
    sent = Counter(f.port for f in frames)
    for p in range(PORTS):
        assert counter(res, "port_rx_frames", p) == sent[p]
        assert counter(res, "port_tx_frames", p) == len(res.tx[p])

    rx_t = {f.data: ts for ts, f in sfd_order(frames, res)}
    ct = rel * 1000 + CT_EXTRA_PS
    lat = {p: [] for p in range(PORTS)}
    for f, dst, src in probes:
        outs = [o for o in res.tx[dst] if o.data == f]
        assert len(outs) == 1
        lat[src].append(outs[0].sfd_ps - rx_t[f])
    for p in range(PORTS):
        # [0, 8 ns), and up to 2 RX cycles' drift more (the crossing's two flops: 2 ps here)
        slack = 2 * abs(RX_CLOCKS[p][0] - PORT_PS) if p in RX_CLOCKS else 0
        assert all(ct <= v < ct + PORT_PS + slack for v in lat[p]), (p, sorted(set(lat[p])))
    assert set(lat[3]) == {ct}                       # RX on port_clk: exact
    assert set(lat[2]) == {ct + 1000}                # RX edges 7 ns after port_clk's: 1 ns to the next
    for p in (0, 1):                                 # drifting: the phase sweeps
        assert max(lat[p]) - min(lat[p]) > 4000, (p, sorted(set(lat[p])))


# ---- oversubscription -----------------------------------------------------------------------------

@pytest.mark.parametrize("limit", ["queue", "buffer"])
def test_oversubscription(harness, limit):
    """Ports 0, 1, 2 send to port 3 at 100 % (port 0 also to port 1 every other frame), port 3
    sends to port 2 at 100 %. Every frame is unicast, so a drop is one missing frame.
    limit = queue: buf_queue_limit = 12 packets: output 3 loses frames by queue_full only,
    counted exactly; the flows to ports 1 and 2 lose nothing (no head-of-line blocking).
    limit = buffer: buf_reserve leaves only 96 segments to share: frames are refused at admission
    (buffer_full, for any output: the documented policy) or by queue_full; the missing frames
    equal the two counters exactly (and rx_drops / tx_drops add up to them). Either way: afterwards every pair of
    ports still switches (no deadlock) and the buffer is empty."""
    r = random.Random(3)
    g = Frames(4)
    frames: list[InFrame] = []
    for p in range(PORTS):                       # learning
        frames.append(InFrame(p, p * 2_000_000, g.make(BCAST, mac(p), 64)))
    t0 = 10_000_000
    n = 80
    for p in range(PORTS):
        for k in range(n):
            dst = 3 if p < 3 else 2
            if p == 0 and k % 2:
                dst = 1
            frames.append(InFrame(p, t0, g.make(mac(dst), mac(p), r.randint(64, 1518))))
    # afterwards: every port to every other port, lightly
    t1 = t0 + n * wire_ps(1514) * 3 + 100_000_000
    for k in range(3):
        for p in range(PORTS):
            for q in range(PORTS):
                if p != q:
                    frames.append(InFrame(p, t1 + k * 10_000_000, g.make(mac(q), mac(p), r.randint(64, 600))))
    if limit == "queue":
        writes = [(RM.offset("buf_queue_limit"), 12)]
    else:
        writes = [(RM.offset("buf_reserve"), SEGMENTS - 96)]
    res = run(harness, frames, writes, drain_ps=5_000_000)

    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=seg_bytes(harness)))
    sb = Scoreboard(model)
    for _, f in sfd_order(frames, res):
        sb.send(f.port, f.data)
    assert not bad_out(res)
    check = sb.check(got_frames(res), allow_missing=True)
    lost = check["missing_by_out"]
    last = [f.data for _, f in sfd_order(frames, res)][-3 * PORTS * (PORTS - 1):]
    out_all = {d for p in res.tx for d in (o.data for o in res.tx[p])}
    assert all(f in out_all for f in last), "traffic after the overload must flow"
    if limit == "buffer":
        assert drops(res, R_BUFFER_FULL) > 0
        assert check["missing"] == drops(res, R_BUFFER_FULL) + drops(res, R_QUEUE_FULL), (lost, check)
        # rx_drops: admission drops of that input (queue_full copies count at the output)
        assert sum(counter(res, "port_rx_drops", p) for p in range(PORTS)) == drops(res, R_BUFFER_FULL)
        assert sum(counter(res, "port_tx_drops", p) for p in range(PORTS)) == drops(res, R_QUEUE_FULL)
        for reason in (R_PORT_THRESHOLD, R_OVERFLOW, R_BAD, R_NO_DEST):
            assert drops(res, reason) == 0, reason
        return
    assert lost.get(1, 0) == 0 and lost.get(2, 0) == 0 and lost.get(0, 0) == 0, lost
    assert lost.get(3, 0) > 0, "3 ports into 1 at 100 % must overflow the queue limit"
    assert drops(res, R_QUEUE_FULL) == lost[3]
    assert counter(res, "port_tx_drops", 3) == lost[3]
    for reason in (R_BUFFER_FULL, R_PORT_THRESHOLD, R_OVERFLOW, R_BAD, R_NO_DEST):
        assert drops(res, reason) == 0, reason
    for p in range(3):
        assert counter(res, "port_tx_drops", p) == 0
        assert counter(res, "port_rx_drops", p) == 0
    # the port 3 output ran at line rate while it was overloaded
    to3 = [o for o in res.tx[3] if o.data[:6] != BCAST]
    busy = [b.sfd_ps - a.sfd_ps - wire_ps(len(a.data)) for a, b in zip(to3, to3[1:40])]
    assert max(busy) == 0, busy


# ---- ageing -----------------------------------------------------------------------------------------

def test_ageing(harness):
    """age_cycles = A: a learned address stays (unicast) within one period and is flooded again
    after two periods without traffic from it."""
    g = Frames(5)
    age = 40_000                                  # cycles: 200 us at 200 MHz
    period_ps = age * 5000
    x, y = mac(0x51), mac(0x52)
    frames = [InFrame(1, 0, g.make(BCAST, x, 64)),                    # learn x on port 1
              InFrame(0, 2_000_000, g.make(x, y, 100)),               # -> port 1 only
              InFrame(0, period_ps // 2, g.make(x, y, 100)),          # still known
              InFrame(0, period_ps * 2 + 20_000_000, g.make(x, y, 100)),  # aged: flooded
              ]
    res = run(harness, frames, [(RM.offset("age_cycles"), age)])
    datas = [f.data for f in frames]
    where = {i: sorted(p for p in range(PORTS) for o in res.tx[p] if o.data == datas[i]) for i in range(1, 4)}
    assert where[1] == [1] and where[2] == [1], where
    assert where[3] == [1, 2, 3], where


def test_ageing_l2_read(harness):
    """Through l2_cmd (read at the entry's index): a learned address reads back valid with its
    port and key, and invalid after two ageing periods without traffic from it."""
    g = Frames(6)
    age = 20_000                                  # cycles: 100 us at 200 MHz
    x = 0x020000000061
    index = node_l2.l2_hash(1, x, 128) * 8         # way 0: the table was empty
    frames = [InFrame(1, 0, g.make(BCAST, x.to_bytes(6, "big"), 64))]
    timed = []
    for t in (10_000_000, age * 5000 * 2 + 20_000_000):
        timed += [(t, "W", RM.offset("l2_cmd"), RM.encode("l2_cmd", op=0, index=index)),
                  (t + 1_000_000, "R", RM.offset("l2_status")),
                  (t + 1_000_000, "R", RM.offset("l2_rd_key_lo")),
                  (t + 1_000_000, "R", RM.offset("l2_rd_key_hi"))]
    res = harness.run(frames, writes=[(RM.offset("age_cycles"), age)], timed=timed,
                      reads=[RM.offset("buf_status"), RM.offset("l2_learned")], drain_ps=2_000_000)
    rd = [v for _, v, _ in res.timed_reads]
    assert len(rd) == 6
    fresh, aged = RM.decode("l2_status", rd[0]), RM.decode("l2_status", rd[3])
    assert fresh["busy"] == 0 and fresh["ok"] == 1 and fresh["valid"] == 1 and fresh["port"] == 1, fresh
    assert rd[1] == x & 0xFFFFFFFF and rd[2] == (1 << 16) | (x >> 32), [hex(v) for v in rd]
    assert aged["busy"] == 0 and aged["valid"] == 0, aged
    assert res.reads[RM.offset("l2_learned")] == 1
    assert RM.decode("buf_status", res.reads[RM.offset("buf_status")])["free"] == SEGMENTS


# ---- bad input ----------------------------------------------------------------------------------------

@SEGS
def test_bad_input(request, seg):
    """Bad FCS, PHY errors, runts and oversize frames never leave as good frames: one that fits
    in one segment is dropped and counted; a longer one, already leaving in cut-through, leaves
    with a stomped FCS and is counted. Good frames around them pass untouched."""
    harness = pick(request, seg)
    g = Frames(7)
    frames = [InFrame(p, p * 2_000_000, g.make(BCAST, mac(p), 64)) for p in range(PORTS)]
    t = 10_000_000
    cases = [  # (data length, bad_fcs, rx_er, multi-segment?)
        (60, True, False), (40, False, False), (60, False, True), (56, True, False),
        (500, True, False), (300, False, True), (1600, False, False), (64 + 1, True, False),
        (1518, True, False),
    ]
    bad = []
    for k, (n, fcs, er) in enumerate(cases):
        good = g.make(mac(1), mac(0), 200)
        f = g.make(mac(1), mac(0), n + 4)
        frames.append(InFrame(0, t, good))
        frames.append(InFrame(0, t, f, bad_fcs=fcs, rx_er=er))
        bad.append((f, n > seg))
        t += 30_000_000
    frames.append(InFrame(0, t, g.make(mac(1), mac(0), 200)))
    res = run(harness, frames)
    single = sum(1 for _, multi in bad if not multi)
    multi = [f for f, m in bad if m]
    # good frames all arrive, exactly
    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=seg_bytes(harness)))
    sb = Scoreboard(model)
    bad_set = {f for f, _ in bad}
    for _, f in sfd_order(frames, res):
        if f.data not in bad_set:
            sb.send(f.port, f.data)
    sb.check(got_frames(res))
    # the long bad frames left port 1 stomped (and nowhere else); the short ones never left
    stomped = [o for o in res.tx[1] if not o.ok]
    assert len(stomped) == len(multi), (len(stomped), len(multi))
    for p in (0, 2, 3):
        assert all(o.ok for o in res.tx[p])
    # the stomped copies carry the frame's bytes (the oversize one cut at MAX_BYTES = 1518; a
    # runt longer than one 32-byte segment padded to 60 bytes by the TX MAC)
    for o, f in zip(stomped, multi):
        want = f[:1518]
        assert len(o.data) == max(len(want), 60) and o.data[:len(want)] == want
        assert o.data[len(want):] == bytes(len(o.data) - len(want))
    # the short ones are dropped, the long ones stomped: all counted (see test_bad_forwarded_counted)
    assert drops(res, R_BAD) >= single


def test_bad_forwarded_counted(harness):
    """Minimal: one 504-byte frame with a bad FCS, port 0 -> port 1 (learned). It leaves port 1
    stomped and is counted in drops_count[bad_frame] and in its input port's rx_drops."""
    g = Frames(10)
    frames = [InFrame(p, p * 2_000_000, g.make(BCAST, mac(p), 64)) for p in range(PORTS)]
    frames.append(InFrame(0, 10_000_000, g.make(mac(1), mac(0), 508), bad_fcs=True))
    res = run(harness, frames)
    assert [o.ok for o in res.tx[1]] == [True, True, True, False]
    assert drops(res, R_BAD) + drops(res, R_OVERSIZE) == 1


# ---- pause ----------------------------------------------------------------------------------------

def pause_frame(src: bytes, quanta: int) -> bytes:
    body = bytes.fromhex("0180c2000001") + src + (0x8808).to_bytes(2, "big") \
        + (1).to_bytes(2, "big") + quanta.to_bytes(2, "big")
    return body + bytes(60 - len(body))


def test_pause(harness):
    """An 802.3x pause received on port 2 stops port 2's transmitter for quanta x 512 ns; the
    frames for port 2 wait in the buffer and all leave afterwards, in order; port 3's traffic
    in the same datapath leaves on time meanwhile. The MAC consumes the pause frame: it reaches
    neither the host nor the datapath (port_rx_frames does not count it)."""
    g = Frames(8)
    frames = [InFrame(p, p * 2_000_000, g.make(BCAST, mac(p), 64)) for p in range(PORTS)]
    quanta = 300
    t_pause = 10_000_000
    pf = pause_frame(mac(0x77), quanta)
    frames.append(InFrame(2, t_pause, pf))
    t0 = t_pause + 2_000_000
    n = 20
    for k in range(n):
        frames.append(InFrame(0, t0, g.make(mac(2), mac(0), 500)))
        frames.append(InFrame(1, t0, g.make(mac(3), mac(1), 500)))
    # the pins are quiet during the pause: drain for longer than it lasts
    res = run(harness, frames, drain_ps=quanta * 512 * 1000 + 20_000_000)
    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=seg_bytes(harness)))
    sb = Scoreboard(model)
    order = sfd_order(frames, res)
    for _, f in order:
        if f.data != pf:
            sb.send(f.port, f.data)
    assert sb.check(got_frames(res))["missing"] == 0
    assert not bad_out(res)
    assert not res.host, "the MAC consumes pause frames"
    assert counter(res, "port_rx_frames", 2) == 1
    rx_t = {f.data: t for t, f in order}
    pause_end = rx_t[pf] + (len(pf) + 4) * PORT_PS + quanta * 512 * 1000
    to2 = [o for o in res.tx[2] if o.data[6:12] == mac(0) and o.data[:6] != BCAST]
    to3 = [o for o in res.tx[3] if o.data[6:12] == mac(1) and o.data[:6] != BCAST]
    assert len(to2) == n and len(to3) == n
    assert to2[0].sfd_ps >= pause_end - 2 * PORT_PS, (to2[0].sfd_ps, pause_end)
    assert to2[0].sfd_ps <= pause_end + 2_000_000
    # port 3 ran at line rate during the pause, its frames as early as the release time allows
    assert to3[-1].sfd_ps < pause_end
    lat3 = to3[0].sfd_ps - rx_t[to3[0].data]
    assert lat3 == release_ns(harness) * 1000 + CT_EXTRA_PS, lat3
    gaps = {b.sfd_ps - a.sfd_ps for a, b in zip(to3, to3[1:])}
    assert gaps == {wire_ps(500 - 4)}, gaps


# ---- latency: cut-through constant, store-and-forward grows with size ---------------------------------

@SEGS
def test_latency_ct_and_saf(request, seg):
    """Port 1 in store-and-forward, port 2 cut-through. Cut-through: every frame leaves
    release_ns + TAIL_PORT_CYCLES port cycles after it arrived, whatever its size, also with a tag inserted.
    Store-and-forward: the latency grows by 8 ns per byte."""
    harness = pick(request, seg)
    g = Frames(9)
    writes = vlan_writes([Vlan(True, 1, 0b1111), Vlan(True, 10, 0b1110)])
    writes += [(RM.offset("port_cfg", 2), port_cfg(trunk=1, pvid=1)),
               (RM.offset("port_cfg", 3), port_cfg(pvid=10)),
               (RM.offset("store_forward"), 0b0010)]
    frames = [InFrame(p, p * 2_000_000, g.make(BCAST, mac(p), 64)) for p in range(PORTS)]
    sizes = [64, 65, 128, 129, 512, 1000, 1518]
    t = 10_000_000
    probes = []      # (frame, out, mode)
    for n in sizes:
        for src, dst, mode in ((0, 1, "saf"), (0, 2, "ct"), (3, 2, "ct_tag")):
            f = g.make(mac(dst) if src == 0 else BCAST, mac(src), n)
            frames.append(InFrame(src, t, f))
            probes.append((f, dst, mode, n))
            t += 40_000_000
    res = run(harness, frames, writes)
    assert not bad_out(res)
    rx_t = {f.data: ts for ts, f in sfd_order(frames, res)}
    lat = {}
    for f, dst, mode, n in probes:
        outs = [o for o in res.tx[dst] if o.data[-4:] == f[-4:]]
        assert len(outs) == 1 and outs[0].ok
        if mode == "ct_tag":
            assert outs[0].data == f[:12] + bytes.fromhex("8100000a") + f[12:]
        lat[mode, n] = outs[0].sfd_ps - rx_t[f]
    ct = release_ns(harness) * 1000 + CT_EXTRA_PS
    for n in sizes:
        assert lat["ct", n] == ct, (n, lat["ct", n])
        assert lat["ct_tag", n] == ct, (n, lat["ct_tag", n])
    saf = [lat["saf", n] for n in sizes]
    for (a, na), (b, nb) in zip(zip(saf, sizes), zip(saf[1:], sizes[1:])):
        assert b - a >= (nb - na) * PORT_PS - 2 * PORT_PS, (na, a, nb, b)
    assert saf[0] > 0
