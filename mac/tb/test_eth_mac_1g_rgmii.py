"""fp_eth_mac_1g_rgmii: RGMII pins at 1000, 100 and 10 Mb/s with cocotbext-eth RgmiiSource/RgmiiSink.

RX (RgmiiSource on rgmii_rx_clk at 125 / 25 / 2.5 MHz): frames checked against the model, the
timestamp equals the rising edge that sampled the SFD, the latency is 8 (1000) / 14 (10/100)
rx_clk cycles. TX (gtx_clk 125 MHz, gtx_clk90 2 ns later; RgmiiSink on rgmii_tx_clk): frames,
FCS, injected and reported timestamps (the gtx_clk edge that launched the SFD into the fp_oddr), and
the latency to the pins (8 cycles at 1000). Random client gaps on TX, random IFGs on RX. Some
TX frames are tester frames with the tester stamp (s_axis_ts_mode = 1), checked as in
test_eth_mac_1g_tx (stamp_wire_1g, parse()).
"""
import logging

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Timer, with_timeout
from cocotbext.eth import RgmiiSink, RgmiiSource

from fastpath.mac.bench_cocotb_1g import (PERIOD_PS, Domain, PulseMonitor, RxMonitor, TxDriver,
                                          TxFrame, fp_ps, wire_frame)
from fastpath.mac import eth
from fastpath.sim import runner
from fastpath.sim.tb import rng
from test_eth_mac_1g_tx import ModeSideband, check_tester_frame, ptrain_frames, stamp_frame, stamp_wire_1g

SPEED_CODE = {1000: 2, 100: 1, 10: 0}
RX_PERIOD_PS = {1000: 8000, 100: 40000, 10: 400000}
TX_DIV = {1000: 1, 100: 5, 10: 50}
# RgmiiSink stamps sim_time_sfd at the falling rgmii_tx_clk edge that completes the unit after the
# SFD; in gtx_clk cycles after the edge that launched the SFD into the fp_oddr:
#   1000: fp_oddr +1, byte after the SFD +1, its falling TXC edge +0.75
#   100/10: next nibble +P, fp_oddr +1, TXC falling edge 4.75 / 37.25 cycles into it
SINK_SFD_CYCLES = {1000: 2.75, 100: 5 + 5.75, 10: 50 + 38.25}


class Tb:
    def __init__(self, dut, speed: int):
        self.dut = dut
        self.speed = speed
        self.rx_period = RX_PERIOD_PS[speed]
        dut.speed.value = SPEED_CODE[speed]
        dut.cfg_rx_max_len.value = 1518
        dut.cfg_tx_ifg.value = 12
        dut.gtx_rst.value = 1
        self.rx_dom = Domain(dut.rgmii_rx_clk, None, dut.rx_ts_now, self.rx_period)
        self.tx_dom = Domain(dut.gtx_clk, None, dut.tx_ts_now)
        self.source = RgmiiSource(dut.rgmii_rxd, dut.rgmii_rx_ctl, dut.rgmii_rx_clk, dut.rx_rst)
        self.sink = RgmiiSink(dut.rgmii_txd, dut.rgmii_tx_ctl, dut.rgmii_tx_clk, dut.gtx_rst)
        for m in (self.source, self.sink):
            m.log.setLevel(logging.WARNING)
            m.mii_mode = speed != 1000
        self.rxmon = RxMonitor(dut, dut.rgmii_rx_clk)
        self.drv = TxDriver(dut, dut.gtx_clk)
        self.mode = ModeSideband(dut.s_axis_ts_mode, self.drv)
        self.testers = {}  # TX frame index -> build() arguments of a tester frame
        self.tx_ts = PulseMonitor(dut.gtx_clk, dut.tx_ts_valid, dut.tx_ts)
        self.rx_sent = []

    async def start(self):
        dut = self.dut
        self.tx_dom.start_clock()
        await Timer(2, unit="ns")
        cocotb.start_soon(Clock(dut.gtx_clk90, PERIOD_PS, unit="ps").start())
        await Timer(1300, unit="ps")
        self.rx_dom.start_clock()
        self.rx_dom.set_div(1)
        self.tx_dom.set_div(1)
        await ClockCycles(dut.gtx_clk, 10)
        await ClockCycles(dut.rgmii_rx_clk, 3)
        dut.gtx_rst.value = 0
        await ClockCycles(dut.rgmii_rx_clk, 4)
        await ClockCycles(dut.gtx_clk, 4)

    def tx_send(self, f: TxFrame, kw: dict | None = None):
        if kw is not None:
            self.testers[len(self.mode.modes)] = kw
        self.mode.queue(getattr(f, "ts_mode", 0))
        self.drv.send(f)

    async def rx_send(self, frame_with_fcs: bytes, error_at=None, ifg: int = 12):
        self.source.ifg = ifg
        gf = wire_frame(frame_with_fcs, 7, error_at)
        box = []
        gf.tx_complete = box.append
        self.rx_sent.append((eth.rx_expect(frame_with_fcs, phy_err=error_at is not None), box))
        await self.source.send(gf)

    async def check(self):
        dut = self.dut
        # RX
        await self.source.wait()
        await ClockCycles(dut.rgmii_rx_clk, 40)
        fwd = [(e, box[0]) for e, box in self.rx_sent if e.data is not None]
        got = self.rxmon.frames
        assert len(got) == len(fwd)
        lat = 8 if self.speed == 1000 else 14
        for (e, w), g in zip(fwd, got):
            assert bytes(g.data) == e.data and g.bad == int(e.bad)
            assert g.first("ts") == fp_ps(w.sim_time_sfd)
            assert g.first_beat_ps - w.sim_time_sfd == lat * self.rx_period
        for name in ("good", "bad", "bad_fcs", "phy_err", "bytes"):
            assert int(getattr(dut, f"stat_rx_{name}").value) == sum(e.counts[name] for e, _ in self.rx_sent)
        # TX
        await self.drv.wait()
        sent = self.drv.sent
        got_tx = []
        while len(got_tx) < len(sent):
            got_tx.append(await with_timeout(self.sink.recv(), 20, "ms"))
        div = TX_DIV[self.speed]
        for i, (f, g, (t_ts, v_ts)) in enumerate(zip(sent, got_tx, self.tx_ts.pulses)):
            launch = g.sim_time_sfd - round(SINK_SFD_CYCLES[self.speed] * PERIOD_PS)
            assert v_ts == fp_ps(launch) and t_ts == launch + PERIOD_PS
            if getattr(f, "ts_mode", 0):
                exp = stamp_wire_1g(f.data, f.bad, f.ts_offset, v_ts)
            else:
                exp = eth.tx_wire(f.data, f.bad, f.ts_insert, f.ts_offset, v_ts)
            assert bytes(g.get_payload(strip_fcs=False)) == exp.frame
            assert g.check_fcs()
            if i in self.testers:
                check_tester_frame(bytes(g.get_payload(strip_fcs=True)), self.testers[i], v_ts)
            pins = launch + PERIOD_PS  # the SFD leaves the fp_oddr one cycle after its launch
            cycles = (pins - f.t_valid) // PERIOD_PS
            if self.speed == 1000:
                if f.gap:  # idle MAC: the stated latency
                    assert cycles == 8, cycles
            elif f.gap:
                assert 15 * div + 1 <= cycles <= 16 * div, cycles
        assert len(self.tx_ts.pulses) == len(sent)
        assert int(dut.stat_tx_frames.value) == len(sent)
        assert not self.testers or max(self.testers) < len(sent)


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100, 10])
async def both_directions(dut, speed):
    """Frames both ways; RX with random IFGs and a PHY error and a bad FCS frame, TX with
    random client gaps (long ones leave the MAC idle: latency asserted) and timestamps."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    n = {1000: 24, 100: 6, 10: 2}[speed]
    sizes = [60, 61, 64, 100, 255, 1514] if speed != 10 else [60, 61]
    testers = ptrain_frames(r, n, max_size={1000: 400, 100: 200, 10: 110}[speed])
    for k in range(n):
        size = r.choice(sizes)
        err = r.randint(0, size) if (speed != 10 and k % 7 == 3) else None
        f = eth.with_fcs(eth.build(r, size))
        if speed != 10 and k % 5 == 2:
            f = f[:-1] + bytes([f[-1] ^ 0x80])
        await tb.rx_send(f, error_at=err, ifg=r.choice([12, 12, 5]))
        gap = r.choice([0, 0, 400 * TX_DIV[speed]])
        if k % 3 == 1:  # a tester frame with the tester stamp
            data, off, kw = testers[k]
            tb.tx_send(stamp_frame(data, off, gap=gap), kw)
            continue
        ins = r.random() < 0.5
        tb.tx_send(TxFrame(eth.build(r, size), ts_insert=ins, ts_offset=r.randint(0, size - 8) if ins else 0,
                            gap=gap))
    await tb.check()


@pytest.mark.parametrize("vendor", ["GENERIC"])  # the default; XILINX needs the unisim library
def test_eth_mac_1g_rgmii(vendor):
    runner.run("fp_eth_mac_1g_rgmii", __name__, {})
