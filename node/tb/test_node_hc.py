"""fp_node_hc: random segment streams under random backpressure vs a Python header model; exact
latency (1 cycle), full throughput, seg_idx wrap, ev_frame/ev_bytes."""
import logging

import cocotb
import pytest
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import BeatMonitor, high, params, pauses, random_bytes, rng, start

NOC = formats.load("noc_header")
LATENCY = 1


RXU = formats.load("rxf_tuser")   # fp_node_rxf's m_axis_tuser, this module's s_axis_tuser


def rxf_user(bad, first, nbytes, trunc, ts):
    return RXU.pack(bad=bad, first=first, bytes=nbytes, trunc=trunc, ts=ts)


def make_frame(r, seg, nseg=None):
    """A frame as fp_node_rxf would give it: list of segments (data, rxf tuser, expected header)."""
    nseg = nseg or r.choice([1, 1, 2, 3, r.randint(1, 30)])
    ts = r.getrandbits(24)
    bad = r.random() < 0.3
    trunc = bad and r.random() < 0.3
    segs = []
    for i in range(nseg):
        last = i == nseg - 1
        n = r.randint(1, seg) if last else seg
        segs.append({
            "data": random_bytes(r, n),
            "user": rxf_user(int(bad and last), int(i == 0), n, int(trunc and last), ts),
            "bad": int(bad and last), "first": int(i == 0), "last": int(last), "bytes": n,
            "seg_idx": i % 64, "ts": ts, "trunc": int(trunc and last),
        })
    return segs


def to_axis(segs):
    data = b"".join(s["data"] for s in segs)
    user = [s["user"] for s in segs for _ in s["data"]]
    return AxiStreamFrame(data, tuser=user)


class Tb:
    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        self.seg = params().get("SEG_BYTES", 64)
        self.port = r.randint(0, 17)
        dut.cfg_src_port.value = self.port
        dut.m_axis_tready.value = 0
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.source.log.setLevel(logging.WARNING)
        self.sink_p = 0.0
        self.evs = []
        # Monitors run from before reset, so they see every cycle the source does. The s_axis
        # monitor is sampled in the m_axis monitor's loop: both count the same cycles.
        self.m_mon = BeatMonitor(dut, "m_axis", dut.clk, dut.rst)
        self.s_mon = BeatMonitor(dut, "s_axis", reset=dut.rst, fields=())
        self.m_mon.every_cycle(self._cycle)
        self.ins = self.s_mon.beats  # every accepted segment: .cycle
        self.outs = self.m_mon.beats  # .cycle, ["tdata"], ["tkeep"], ["tlast"], ["tuser"] (the noc_header)
        cocotb.start_soon(self._ready())

    async def start(self):
        await start(self.dut)

    async def _ready(self):
        while True:
            self.dut.m_axis_tready.value = int(self.r.random() >= self.sink_p)
            await RisingEdge(self.dut.clk)

    def _cycle(self, cycle):
        d = self.dut
        self.s_mon.sample(cycle)
        if high(d.rst):
            return
        if high(d.ev_frame):
            self.evs.append(int(d.ev_bytes.value))
        else:
            assert int(d.ev_bytes.value) == 0

    async def run(self, frames):
        for f in frames:
            await self.source.send(to_axis(f))
        total = sum(len(f) for f in frames)
        for _ in range(100 * total + 100):
            if len(self.outs) == total:
                break
            await RisingEdge(self.dut.clk)
        for _ in range(5):
            await RisingEdge(self.dut.clk)
        self.check(frames)

    def check(self, frames):
        segs = [s for f in frames for s in f]
        assert len(self.outs) == len(segs)
        for i, (s, o) in enumerate(zip(segs, self.outs)):
            n = s["bytes"]
            assert o["tkeep"] == (1 << n) - 1, f"segment {i}: tkeep"
            assert (o["tdata"] & ((1 << 8 * n) - 1)).to_bytes(n, "little") == s["data"], f"segment {i}"
            assert o["tlast"] == s["last"]
            hdr = NOC.unpack(o["tuser"])
            want = {k: 0 for k in NOC.unpack(0)}
            want.update({k: s[k] for k in ("bad", "first", "last", "bytes", "seg_idx", "ts", "trunc")})
            want["src_port"] = self.port
            assert hdr == want, f"segment {i}: {hdr} != {want}"
        assert self.evs == [sum(s["bytes"] for s in f) for f in frames]


@cocotb.test()
async def random_traffic(dut):
    """Random frames (one of 70 segments: seg_idx wraps) under random backpressure both sides."""
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    tb.source.set_pause_generator(pauses(r, 0.3))
    tb.sink_p = 0.4
    frames = [make_frame(r, tb.seg) for _ in range(60)]
    frames.insert(10, make_frame(r, tb.seg, nseg=70))
    await tb.run(frames)


@cocotb.test()
async def latency_and_throughput(dut):
    """Output always ready, input back to back: every segment LATENCY cycles later, no bubbles."""
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    frames = [make_frame(r, tb.seg) for _ in range(40)]
    await tb.run(frames)
    lat = {o.cycle - i.cycle for i, o in zip(tb.ins, tb.outs)}
    assert lat == {LATENCY}, lat
    span = tb.outs[-1].cycle - tb.outs[0].cycle + 1
    assert span == len(tb.outs), f"{len(tb.outs)} segments took {span} cycles"


@pytest.mark.parametrize("seg_bytes", [64, 32])
def test_node_hc(seg_bytes):
    runner.run("fp_node_hc", __name__, {"SEG_BYTES": seg_bytes})
