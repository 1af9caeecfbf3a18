"""fp_node_ht: demux of the TX segment stream by out_port, NoC header -> the TXF's reduced tuser.

Random segments for the datapath's ports, its host port and (dropped) foreign outputs, random
backpressure on the input and on every output; each output's stream is compared with the model
(data, tkeep, tlast, reduced tuser). Without backpressure each segment leaves exactly 1 cycle
after it was accepted, one per cycle. A blocked output does not hold up the others.
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import params, random_bytes, rng, start

NOC = formats.load("noc_header")
LATENCY = 1
TXU_W = 35


def now_cycle():
    return int(get_sim_time(unit="ns") // 5)


TXU = formats.load("txf_tuser")   # the reduced tuser on m_axis


def txu(h, ports):
    """The reduced tuser the model expects for NoC header h."""
    return TXU.pack(bad=h["bad"], first=h["first"], last=h["last"], bytes=h["bytes"], ts=h["ts"],
                    from_host=int(h["src_port"] >= ports))


class Tb:
    def __init__(self, dut, r):
        p = params()
        self.dut, self.r = dut, r
        self.ports = p.get("PORTS", 12)
        self.seg = p.get("SEG_BYTES", 64)
        self.base = p.get("PORT_BASE", 0)
        self.outs = p.get("OUTPUTS", 7)
        self.host = self.ports + p.get("DP_INDEX", 0)
        self.accepted = []
        self.got = [[] for _ in range(self.outs)]
        self.pause_in = 0.0
        self.pause_out = [0.0] * self.outs
        dut.s_axis_tvalid.value = 0
        dut.s_axis_tdata.value = 0
        dut.s_axis_tkeep.value = 0
        dut.s_axis_tlast.value = 0
        dut.s_axis_tuser.value = 0
        dut.m_axis_tready.value = 0
        self.drops = 0

    def target(self, op):
        if op == self.host:
            return self.outs - 1
        if self.base <= op < self.base + self.outs - 1:
            return op - self.base
        return None

    def make(self, n, foreign=0.05):
        segs = []
        mine = [self.base + i for i in range(self.outs - 1)] + [self.host]
        for _ in range(n):
            if self.r.random() < foreign:
                op = self.r.choice([x for x in range(self.ports + 2) if self.target(x) is None] or [31])
            else:
                op = self.r.choice(mine)
            nb = self.r.randint(1, self.seg)
            h = dict(out_port=op, bytes=nb, first=self.r.randrange(2), last=self.r.randrange(2),
                     bad=self.r.randrange(2), ts=self.r.getrandbits(24),
                     src_port=self.r.randrange(self.ports + 2), seg_idx=self.r.randrange(64),
                     vid=self.r.getrandbits(12), dst=self.r.getrandbits(16))
            segs.append(dict(data=random_bytes(self.r, nb), hdr=h, user=NOC.pack(**h)))
        return segs

    async def drive(self, segs):
        dut = self.dut
        for s in segs:
            while self.r.random() < self.pause_in:
                dut.s_axis_tvalid.value = 0
                await RisingEdge(dut.clk)
            dut.s_axis_tdata.value = int.from_bytes(s["data"], "little")
            dut.s_axis_tkeep.value = (1 << len(s["data"])) - 1
            dut.s_axis_tlast.value = s["hdr"]["last"]
            dut.s_axis_tuser.value = s["user"]
            dut.s_axis_tvalid.value = 1
            while True:
                await RisingEdge(dut.clk)
                if str(dut.s_axis_tready.value) == "1":
                    break
            self.accepted.append(now_cycle())
        dut.s_axis_tvalid.value = 0

    async def sink(self):
        dut = self.dut
        dw = self.seg * 8
        while True:
            ready = sum(int(self.r.random() >= p) << i for i, p in enumerate(self.pause_out))
            dut.m_axis_tready.value = ready
            await RisingEdge(dut.clk)
            valid = int(dut.m_axis_tvalid.value)
            fire = valid & ready
            if not fire:
                continue
            data = int(dut.m_axis_tdata.value)
            keep = int(dut.m_axis_tkeep.value)
            last = int(dut.m_axis_tlast.value)
            user = int(dut.m_axis_tuser.value)
            for i in range(self.outs):
                if fire >> i & 1:
                    self.got[i].append(dict(
                        data=(data >> (i * dw)) & ((1 << dw) - 1),
                        keep=(keep >> (i * self.seg)) & ((1 << self.seg) - 1),
                        last=last >> i & 1,
                        user=(user >> (i * TXU_W)) & ((1 << TXU_W) - 1),
                        cycle=now_cycle()))

    async def drop_counter(self):
        while True:
            await RisingEdge(self.dut.clk)
            if str(self.dut.ev_drop.value) == "1":
                self.drops += 1

    def check(self, segs):
        exp = [[] for _ in range(self.outs)]
        for k, s in enumerate(segs):
            t = self.target(s["hdr"]["out_port"])
            if t is not None:
                exp[t].append((k, s))
        assert self.drops == sum(self.target(s["hdr"]["out_port"]) is None for s in segs)
        for i in range(self.outs):
            assert len(self.got[i]) == len(exp[i]), (i, len(self.got[i]), len(exp[i]))
            for g, (k, s) in zip(self.got[i], exp[i]):
                n = len(s["data"])
                assert g["keep"] == (1 << n) - 1
                assert g["data"] & ((1 << 8 * n) - 1) == int.from_bytes(s["data"], "little")
                assert g["last"] == s["hdr"]["last"]
                assert g["user"] == txu(s["hdr"], self.ports), (hex(g["user"]), s["hdr"])
                g["src"] = k
        return exp


async def setup(dut):
    r = rng()
    tb = Tb(dut, r)
    await start(dut)
    cocotb.start_soon(tb.drop_counter())
    return tb


@cocotb.test()
async def random_traffic(dut):
    """Random outputs and headers, random backpressure on the input and every output."""
    tb = await setup(dut)
    tb.pause_in = 0.3
    tb.pause_out = [tb.r.choice([0.1, 0.4, 0.7]) for _ in range(tb.outs)]
    cocotb.start_soon(tb.sink())
    segs = tb.make(600)
    await tb.drive(segs)
    await ClockCycles(dut.clk, 20)
    tb.check(segs)


@cocotb.test()
async def latency_and_throughput(dut):
    """Outputs always ready: 1 cycle per segment through, no input stall."""
    tb = await setup(dut)
    cocotb.start_soon(tb.sink())
    segs = tb.make(300)
    await tb.drive(segs)
    await ClockCycles(dut.clk, 10)
    tb.check(segs)
    for i in range(tb.outs):
        for g in tb.got[i]:
            assert g["cycle"] - tb.accepted[g["src"]] == LATENCY
    assert tb.accepted[-1] - tb.accepted[0] + 1 == len(segs)


@cocotb.test()
async def blocked_output(dut):
    """One output stuck (tready low): up to 2 of its segments are taken, the other outputs keep
    flowing at full rate; once it is released its segments follow in order."""
    tb = await setup(dut)
    stuck = tb.r.randrange(tb.outs)
    tb.pause_out = [0.0] * tb.outs
    tb.pause_out[stuck] = 1.0
    cocotb.start_soon(tb.sink())
    segs = tb.make(200, foreign=0.0)
    mine = [s for s in segs if tb.target(s["hdr"]["out_port"]) == stuck][:2]
    others = [s for s in segs if tb.target(s["hdr"]["out_port"]) != stuck]
    order = mine + others
    await tb.drive(order)
    assert tb.accepted[-1] - tb.accepted[0] + 1 == len(order), "a blocked output held up the others"
    assert len(tb.got[stuck]) == 0
    tb.pause_out[stuck] = 0.0
    await ClockCycles(dut.clk, 10)
    tb.check(order)


@pytest.mark.parametrize("ports,seg,base,outputs,dp", [
    (12, 64, 0, 7, 0),
    (12, 32, 6, 7, 1),
    (5, 64, 3, 3, 1),
])
def test_node_ht(ports, seg, base, outputs, dp):
    runner.run("fp_node_ht", __name__, {"PORTS": ports, "SEG_BYTES": seg, "PORT_BASE": base,
                                     "OUTPUTS": outputs, "DP_INDEX": dp})
