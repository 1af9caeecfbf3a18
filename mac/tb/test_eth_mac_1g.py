"""fp_eth_mac_1g: both directions at once (GmiiSource -> RX, TX -> GmiiSink), pause coupling and
timestamps, at 1000 (GMII) and 100/10 (MII through clk_en), with rx_clk and tx_clk out of phase.

RX frames are checked against fastpath.models.eth.rx_expect, TX frames against tx_wire; the RX
latency (7 cycles GMII, 12 * P + 1 MII) and TX latency (7 cycles GMII, 15 * P MII, from an idle
MAC) are asserted per frame; RX timestamps equal the SFD sampling time, TX timestamps (report and
injected) the SFD launch time. A pause frame received while the TX sends a frame holds the next
frame for exactly IFG + quanta x 64 byte times, measured at the TX pins. Some TX frames are
tester frames with the tester stamp (s_axis_ts_mode = 1): written at the SFD launch time, parse()
takes them (stamp_wire_1g and the tester checks of test_eth_mac_1g_tx).
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge, Timer, with_timeout

from fastpath.mac.bench_cocotb_1g import (PERIOD_PS, SPEED_DIV, Domain, PulseMonitor, RxMonitor,
                                          TxDriver, TxFrame, fp_ps, gmii_sink, gmii_source, wire_frame)
from fastpath.mac import eth
from fastpath.sim import runner
from fastpath.sim.tb import rng
from test_eth_mac_1g_tx import ModeSideband, check_tester_frame, ptrain_frames, stamp_frame, stamp_wire_1g

TX_PHASE_PS = 3000  # tx_clk lags rx_clk by 3 ns


class Tb:
    def __init__(self, dut, speed: int):
        self.dut = dut
        self.div = SPEED_DIV[speed]
        self.upb = 1 if speed == 1000 else 2
        self.unit = self.div * PERIOD_PS
        dut.mii_select.value = int(speed != 1000)
        dut.cfg_rx_max_len.value = 1518
        dut.cfg_tx_ifg.value = 12
        self.rx_dom = Domain(dut.rx_clk, dut.rx_clk_en, dut.rx_ts_now)
        self.tx_dom = Domain(dut.tx_clk, dut.tx_clk_en, dut.tx_ts_now)
        self.source = gmii_source(dut)
        self.sink = gmii_sink(dut)
        self.rxmon = RxMonitor(dut, dut.rx_clk)
        self.drv = TxDriver(dut, dut.tx_clk)
        self.mode = ModeSideband(dut.s_axis_ts_mode, self.drv)
        self.testers = {}  # TX frame index -> build() arguments of a tester frame
        self.tx_ts = PulseMonitor(dut.tx_clk, dut.tx_ts_valid, dut.tx_ts)
        self.pauses = PulseMonitor(dut.rx_clk, dut.rx_pause_valid, dut.rx_pause_quanta)
        self.rx_sent = []  # (RxResult, [sent GmiiFrame copy])
        self.got_tx = []

    async def start(self):
        dut = self.dut
        dut.rx_rst.value = 1
        dut.tx_rst.value = 1
        self.rx_dom.start_clock()
        await Timer(TX_PHASE_PS, unit="ps")
        self.tx_dom.start_clock()
        self.rx_dom.set_div(self.div)
        self.tx_dom.set_div(self.div)
        await ClockCycles(dut.rx_clk, 5)
        dut.rx_rst.value = 0
        dut.tx_rst.value = 0
        await ClockCycles(dut.rx_clk, 3)

    def tx_send(self, f: TxFrame, kw: dict | None = None):
        if kw is not None:
            self.testers[len(self.mode.modes)] = kw
        self.mode.queue(getattr(f, "ts_mode", 0))
        self.drv.send(f)

    async def rx_send(self, frame_with_fcs: bytes, ifg: int = 12):
        self.source.ifg = ifg
        gf = wire_frame(frame_with_fcs)
        box = []
        gf.tx_complete = box.append
        self.rx_sent.append((eth.rx_expect(frame_with_fcs), box))
        await self.source.send(gf)

    async def tx_collect(self, n: int):
        while len(self.got_tx) < n:
            self.got_tx.append(await with_timeout(self.sink.recv(), 50, "ms"))

    async def check_rx(self):
        await self.source.wait()
        await ClockCycles(self.dut.rx_clk, 40 * self.div)
        fwd = [(e, box[0]) for e, box in self.rx_sent if e.data is not None]
        got = self.rxmon.frames
        assert len(got) == len(fwd)
        lat = (6 if self.div == 1 else 12 * self.div) + 1
        for (e, w), g in zip(fwd, got):
            assert bytes(g.data) == e.data and g.bad == int(e.bad)
            assert g.first("ts") == fp_ps(w.sim_time_sfd)
            assert g.first_beat_ps - w.sim_time_sfd == lat * PERIOD_PS
        pauses = [e.pause for e, _ in self.rx_sent if e.pause is not None]
        assert [p[1] for p in self.pauses.pulses] == pauses
        assert int(self.dut.stat_rx_good.value) == sum(e.counts["good"] for e, _ in self.rx_sent)
        assert int(self.dut.stat_rx_pause.value) == sum(e.counts["pause"] for e, _ in self.rx_sent)
        assert int(self.dut.stat_rx_bytes.value) == sum(e.counts["bytes"] for e, _ in self.rx_sent)

    async def check_tx(self, extra_gap_ps=None):
        await self.drv.wait()
        sent = self.drv.sent
        await self.tx_collect(len(sent))
        prev_end = None
        for i, (f, g) in enumerate(zip(sent, self.got_tx)):
            sfd = g.sim_time_sfd - 2 * self.unit
            if getattr(f, "ts_mode", 0):
                exp = stamp_wire_1g(f.data, f.bad, f.ts_offset, fp_ps(sfd))
            else:
                exp = eth.tx_wire(f.data, f.bad, f.ts_insert, f.ts_offset, fp_ps(sfd))
            assert bytes(g.get_payload(strip_fcs=False)) == exp.frame
            assert g.check_fcs() == (not exp.stomped)
            if i in self.testers:
                check_tester_frame(bytes(g.get_payload(strip_fcs=True)), self.testers[i], fp_ps(sfd))
            ready = f.t_valid
            if prev_end is not None:
                idle = prev_end + (12 * self.upb - 1) * self.unit + (extra_gap_ps or {}).get(i, 0)
                ready = max(ready, idle)
            start = self.tx_dom.next_enable(ready)
            assert g.sim_time_start == start + self.unit
            assert sfd - start == (7 if self.upb == 1 else 15) * self.unit
            prev_end = g.sim_time_end
        launches = [g.sim_time_sfd - 2 * self.unit for g in self.got_tx]
        assert [v for _, v in self.tx_ts.pulses] == [fp_ps(t) for t in launches]
        assert int(self.dut.stat_tx_frames.value) == len(sent)
        assert not self.testers or max(self.testers) < len(sent)


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100, 10])
async def full_duplex(dut, speed):
    """Frames both ways at once, back to back at the minimum IFG, with timestamps injected in
    some TX frames: everything arrives intact and on time in both directions."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    n = {1000: 30, 100: 8, 10: 3}[speed]
    choices = [60, 61, 64, 100, 200, 511, 1000, 1514] if speed != 10 else [60, 61, 100]
    sizes = [r.choice(choices) for _ in range(n)]
    testers = ptrain_frames(r, n, max_size={1000: 400, 100: 200, 10: 110}[speed])
    for k, size in enumerate(sizes):
        await tb.rx_send(eth.with_fcs(eth.build(r, size)))
        if k % 3 == 1:  # a tester frame with the tester stamp
            data, off, kw = testers[k]
            tb.tx_send(stamp_frame(data, off), kw)
            continue
        ins = r.random() < 0.4
        tb.tx_send(TxFrame(eth.build(r, size), ts_insert=ins, ts_offset=r.randint(0, size - 8) if ins else 0))
    await tb.check_rx()
    await tb.check_tx()


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def pause_coupling(dut, speed):
    """A pause frame received while the TX sends a frame: the next frame leaves exactly
    IFG + quanta x 64 byte times after it (at the TX pins). A pause with a bad FCS and a
    non-pause MAC Control frame change nothing; quanta 0 costs nothing."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    byte_ps = tb.upb * tb.unit
    cases = [("pause", r.randint(1, 30)), ("bad fcs", 20), ("pause", 0), ("other opcode", 20), ("pause", 7)]
    extra = {}
    for i, (kind, q) in enumerate(cases):
        tb.tx_send(TxFrame(eth.build(r, 400)))
        tb.tx_send(TxFrame(eth.build(r, 64)))
        await RisingEdge(dut.gmii_tx_en)
        p = bytearray(eth.with_fcs(eth.pause_frame(q)))
        if kind == "bad fcs":
            p[-1] ^= 1
        elif kind == "other opcode":
            p[15] = 2
            p = bytearray(eth.with_fcs(bytes(p[:-4])))
        await tb.rx_send(bytes(p))  # 72 byte times: ends well inside the 400-byte TX frame
        if kind == "pause":
            extra[2 * i + 1] = q * 64 * byte_ps
        await tb.tx_collect(2 * i + 2)
        await Timer(2, unit="us")
    await tb.check_rx()
    await tb.check_tx(extra_gap_ps=extra)
    for i, (kind, q) in enumerate(cases):
        a, b = tb.got_tx[2 * i], tb.got_tx[2 * i + 1]
        gap = (b.sim_time_start - a.sim_time_end) // byte_ps
        assert gap == 12 + (q * 64 if kind == "pause" else 0), (kind, q, gap)
    assert int(dut.stat_rx_pause.value) == 3
    assert int(dut.stat_rx_bad.value) == 2
    paused = sum(q * 64 * tb.upb * tb.div for k, q in cases if k == "pause")
    assert int(dut.stat_tx_paused_cycles.value) == paused


@pytest.mark.parametrize("rx_input_reg", [1])
def test_eth_mac_1g(rx_input_reg):
    runner.run("fp_eth_mac_1g", __name__, {"RX_INPUT_REG": rx_input_reg})
