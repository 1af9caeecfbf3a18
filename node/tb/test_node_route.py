"""fp_node_route: VLAN tag insert/strip per output port on an interleaved segment stream.

Random frames (tagged or not, random VLANs, some short) go to random access/trunk ports and host
outputs, their segments interleaved across outputs. The model reassembles the output per
out_port and compares every frame with the expected edited frame (bytes, bad, seg_idx, tkeep,
tlast, the untouched header fields). Random backpressure on both sides; without it every
segment appears exactly 2 cycles after it was accepted and the input is never stalled except
one cycle per splitting tag insertion.
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import params, random_bytes, rng, start

NOC = formats.load("noc_header")
LATENCY = 2


class SegSource:
    """Drives one segment per beat; `beats` are dicts with data (bytes), user (int)."""

    def __init__(self, dut, prefix, seg_bytes):
        self.dut, self.p, self.sb = dut, prefix, seg_bytes
        self.sig = lambda n: getattr(dut, f"{prefix}_{n}")
        self.sig("tvalid").value = 0
        self.sig("tdata").value = 0
        self.sig("tkeep").value = 0
        self.sig("tlast").value = 0
        self.sig("tuser").value = 0
        self.accepted = []  # cycle of each accepted beat
        self.pause_p = 0.0

    async def run(self, beats, r, clk, counter):
        for b in beats:
            while r.random() < self.pause_p:
                self.sig("tvalid").value = 0
                await RisingEdge(clk)
            self.sig("tdata").value = int.from_bytes(b["data"].ljust(self.sb, b"\0"), "little")
            self.sig("tkeep").value = (1 << len(b["data"])) - 1
            self.sig("tlast").value = NOC.unpack(b["user"])["last"]
            self.sig("tuser").value = b["user"]
            self.sig("tvalid").value = 1
            while True:
                await RisingEdge(clk)
                if str(self.sig("tready").value) == "1":
                    break
            self.accepted.append(counter.now)
        self.sig("tvalid").value = 0


class SegSink:
    def __init__(self, dut, prefix, clk, counter):
        self.sig = lambda n: getattr(dut, f"{prefix}_{n}")
        self.sig("tready").value = 0
        self.beats = []
        self.pause_p = 0.0
        self.clk, self.counter = clk, counter

    async def run(self, r):
        while True:
            self.sig("tready").value = int(r.random() >= self.pause_p)
            await RisingEdge(self.clk)
            if str(self.sig("tvalid").value) == "1" and str(self.sig("tready").value) == "1":
                self.beats.append(dict(data=int(self.sig("tdata").value),
                                       keep=int(self.sig("tkeep").value),
                                       last=int(self.sig("tlast").value),
                                       user=int(self.sig("tuser").value),
                                       cycle=self.counter.now))


class Counter:
    """Cycle index from the simulation time (5 ns clock), the same in every coroutine woken by
    one edge (a counting coroutine would depend on the order in which they run)."""

    def __init__(self, clk, period_ns=5):
        self.period = period_ns

    @property
    def now(self):
        return int(get_sim_time(unit="ns") // self.period)


def segment_frame(data, seg, base):
    """Split a frame into full segments (the last may be short) with NoC headers."""
    segs = [data[i:i + seg] for i in range(0, len(data), seg)]
    out = []
    for k, s in enumerate(segs):
        f = dict(base, first=int(k == 0), last=int(k == len(segs) - 1), bytes=len(s),
                 seg_idx=k % 64, bad=base["bad"] if k == len(segs) - 1 else 0)
        out.append(dict(data=s, user=NOC.pack(**f)))
    return out


def expected_edit(data, hdr, trunk, pvid, ports):
    """The frame as it should leave the given output."""
    op = hdr["out_port"]
    if op >= ports:
        return data
    egress_tagged = trunk[op] and hdr["vid"] != pvid[op]
    first_len = min(len(data), params_seg())
    if hdr["tagged"] and not egress_tagged and first_len >= 16:
        return data[:12] + data[16:]
    if not hdr["tagged"] and egress_tagged and first_len >= 12:
        tci = (hdr["pcp"] << 13) | hdr["vid"]
        return data[:12] + bytes([0x81, 0x00, tci >> 8, tci & 0xFF]) + data[12:]
    return data


def params_seg():
    return params().get("SEG_BYTES", 64)


async def setup(dut, r):
    p = params()
    ports, seg = p.get("PORTS", 12), p.get("SEG_BYTES", 64)
    cnt = Counter(dut.clk)
    src = SegSource(dut, "s_axis", seg)
    sink = SegSink(dut, "m_axis", dut.clk, cnt)
    trunk = [r.random() < 0.5 for _ in range(ports)]
    trunk[0] = True  # at least one trunk port, so tag insertions (and splits) always happen
    if ports > 1:
        trunk[1] = False
    pvid = [r.randint(1, 3) for _ in range(ports)]
    dut.cfg_port_trunk.value = sum(int(t) << i for i, t in enumerate(trunk))
    dut.cfg_port_pvid.value = sum(v << (12 * i) for i, v in enumerate(pvid))
    await start(dut)
    return ports, seg, cnt, src, sink, trunk, pvid


def make_traffic(r, ports, seg, nframes, lens=(12, 300)):
    """Frames per output, their segments interleaved across outputs."""
    per_out = {}
    frames = []
    for _ in range(nframes):
        op = r.randrange(ports + 2)  # ports and the two host outputs
        n = r.randint(*lens)
        hdr = dict(out_port=op, tagged=int(r.random() < 0.5), vid=r.randint(1, 4), pcp=r.randrange(8),
                   src_port=r.randrange(ports), ts=r.getrandbits(24), bad=int(r.random() < 0.2),
                   prio=r.randrange(2))
        data = random_bytes(r, n)
        frames.append((data, hdr))
        per_out.setdefault(op, []).extend(segment_frame(data, seg, hdr))
    beats = []
    queues = {k: list(v) for k, v in per_out.items()}
    while queues:
        k = r.choice(list(queues))
        beats.append(queues[k].pop(0))
        if not queues[k]:
            del queues[k]
    return frames, beats


def check(sink_beats, frames, trunk, pvid, ports, seg):
    # reassemble per out_port
    got = {}
    cur = {}
    for b in sink_beats:
        h = NOC.unpack(b["user"])
        op = h["out_port"]
        n = h["bytes"]
        assert 1 <= n <= seg, h
        assert b["keep"] == (1 << n) - 1, (hex(b["keep"]), n)
        assert b["last"] == h["last"]
        data = b["data"].to_bytes(seg, "little")[:n]
        if h["first"]:
            assert op not in cur, f"frame on output {op} restarted"
            cur[op] = dict(data=b"", idx=0, hdr=h)
        c = cur[op]
        assert h["seg_idx"] == c["idx"] % 64, (h, c["idx"])
        assert not h["bad"] or h["last"], "bad set before the last segment"
        for f in ("src_port", "ts", "vid", "pcp", "tagged", "prio"):
            assert h[f] == c["hdr"][f], f
        c["data"] += data
        c["idx"] += 1
        if h["last"]:
            got.setdefault(op, []).append((c["data"], h["bad"]))
            del cur[op]
    assert not cur, "frames left unfinished"
    exp = {}
    for data, hdr in frames:
        exp.setdefault(hdr["out_port"], []).append((expected_edit(data, hdr, trunk, pvid, ports), hdr["bad"]))
    assert got.keys() == exp.keys()
    for op in exp:
        assert len(got[op]) == len(exp[op]), op
        for i, (g, e) in enumerate(zip(got[op], exp[op])):
            assert g == e, f"output {op} frame {i}: got {g.hex()} expected {e.hex()}"


@cocotb.test()
async def random_traffic(dut):
    """Interleaved frames to access/trunk/host outputs under random backpressure."""
    r = rng()
    ports, seg, cnt, src, sink, trunk, pvid = await setup(dut, r)
    frames, beats = make_traffic(r, ports, seg, 250)
    src.pause_p, sink.pause_p = 0.3, 0.4
    cocotb.start_soon(sink.run(r))
    await src.run(beats, r, dut.clk, cnt)
    await ClockCycles(dut.clk, 20)
    check(sink.beats, frames, trunk, pvid, ports, seg)


@cocotb.test()
async def latency_and_throughput(dut):
    """No backpressure: each segment leaves 2 cycles after it was accepted; the input stalls
    exactly once per split insertion."""
    r = rng()
    ports, seg, cnt, src, sink, trunk, pvid = await setup(dut, r)
    frames, beats = make_traffic(r, ports, seg, 120)
    cocotb.start_soon(sink.run(r))
    await src.run(beats, r, dut.clk, cnt)
    await ClockCycles(dut.clk, 10)
    check(sink.beats, frames, trunk, pvid, ports, seg)
    # map output beats to input beats: an output beat that is a split's extra segment follows
    # its input's first part
    outs = sink.beats
    j = 0
    splits = 0
    for i, b in enumerate(beats):
        o = outs[j]
        assert o["cycle"] - src.accepted[i] == LATENCY, (i, o["cycle"], src.accepted[i])
        j += 1
        h = NOC.unpack(b["user"])
        if h["first"] and _is_insert(h, trunk, pvid, ports) and h["bytes"] + 4 > seg:
            # the extra segment follows its first part in the next cycle
            extra = NOC.unpack(outs[j]["user"])
            assert outs[j]["cycle"] == o["cycle"] + 1
            assert extra["seg_idx"] == 1 and extra["bytes"] == h["bytes"] + 4 - seg
            j += 1
            splits += 1
    assert j == len(outs)
    span = src.accepted[-1] - src.accepted[0] + 1
    assert span == len(beats) + splits, (span, len(beats), splits)
    assert splits > 0


def _is_insert(h, trunk, pvid, ports):
    op = h["out_port"]
    return op < ports and not h["tagged"] and trunk[op] and h["vid"] != pvid[op] and h["bytes"] >= 12


@cocotb.test()
async def reset_mid_stream(dut):
    """A reset with segments queued empties ROUTE (and its per-port state); traffic after it is clean."""
    r = rng()
    ports, seg, cnt, src, sink, trunk, pvid = await setup(dut, r)
    frames, beats = make_traffic(r, ports, seg, 10)
    task = cocotb.start_soon(src.run(beats, r, dut.clk, cnt))
    await ClockCycles(dut.clk, 5)
    task.cancel()
    dut.s_axis_tvalid.value = 0
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    await RisingEdge(dut.clk)
    assert str(dut.m_axis_tvalid.value) == "0"
    frames, beats = make_traffic(r, ports, seg, 40)
    cocotb.start_soon(sink.run(r))
    await src.run(beats, r, dut.clk, cnt)
    await ClockCycles(dut.clk, 10)
    check(sink.beats, frames, trunk, pvid, ports, seg)


@pytest.mark.parametrize("ports,seg", [(12, 64), (5, 32)])
def test_node_route(ports, seg):
    runner.run("fp_node_route", __name__, {"PORTS": ports, "SEG_BYTES": seg})
