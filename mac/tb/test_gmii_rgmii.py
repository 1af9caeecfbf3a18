"""fp_gmii_rgmii: RGMII pins <-> GMII (MII at 10/100) with cocotbext-eth models on both sides.

RX: RgmiiSource on rgmii_rx_clk (125 / 25 MHz, a random phase to gtx_clk) -> GmiiSink on the GMII
side (rgmii_rx_clk, mii_select). TX: GmiiSource on gtx_clk with tx_clk_en and mii_select ->
RgmiiSink on rgmii_tx_clk. Random frames with random IFGs, some with an error byte (RX_ER /
TX_ER through RX_CTL / TX_CTL's second sample): the bytes and error flags arrive as sent, and
the latency is exact: RX, the GMII side shows the SFD 1 rx_clk cycle after the rising edge that
sampled its low nibble (nibble at 100); TX (1000), the SFD's low nibble is on the pins from the
edge at which the fp_oddr samples it from the GMII side (1 cycle after a GMII MAC launched it),
and the RgmiiSink's rgmii_tx_clk (gtx_clk90) samples it 2 ns later. At 100 the TX latency is the
same for every frame (the nibble's phase to the divider is fixed).

Model conventions used for the times: RgmiiSource / GmiiSource sim_time_sfd is the edge at which
the receiver samples the SFD (its low nibble); GmiiSink's is the edge that samples the unit after
the SFD; RgmiiSink's the falling rgmii_tx_clk edge that completes the unit after the SFD.
"""
import logging

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, Timer, with_timeout
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource, RgmiiSink, RgmiiSource

from fastpath.sim import runner
from fastpath.sim.tb import random_bytes, rng

SPEED_CODE = {1000: 2, 100: 1}
RX_NS = {1000: 8, 100: 40}
GTX_NS = 8


def tail(g: GmiiFrame, n: int) -> tuple[bytes, list[int]]:
    """The last n bytes of a frame (from its SFD on) and their error flags (GmiiSink drops the
    first preamble byte, and compact() leaves error None when no byte has one)."""
    err = list(g.error) if g.error else [0] * len(g.data)
    return bytes(g.data[-n:]), err[-n:]


def make(r, n: int) -> list[GmiiFrame]:
    out = []
    for _ in range(n):
        f = GmiiFrame.from_payload(random_bytes(r, r.randint(60, 300)))
        f.error = [0] * len(f.data)
        if r.random() < 0.3:
            f.error[r.randrange(8, len(f.data))] = 1
        out.append(f)
    return out


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def both_directions(dut, speed):
    r = rng()
    mii = speed != 1000
    dut.speed.value = SPEED_CODE[speed]
    dut.gtx_rst.value = 1
    cocotb.start_soon(Clock(dut.gtx_clk, GTX_NS, unit="ns").start())
    await Timer(2, unit="ns")
    cocotb.start_soon(Clock(dut.gtx_clk90, GTX_NS, unit="ns").start())
    await Timer(r.randrange(1, 8000), unit="ps")
    cocotb.start_soon(Clock(dut.rgmii_rx_clk, RX_NS[speed], unit="ns").start())
    # the DDR registers have no reset: idle pins through them before the models look (Icarus X)
    dut.rgmii_rxd.value = 0
    dut.rgmii_rx_ctl.value = 0
    dut.gmii_txd.value = 0
    dut.gmii_tx_en.value = 0
    dut.gmii_tx_er.value = 0
    await ClockCycles(dut.rgmii_rx_clk, 3)
    await ClockCycles(dut.gtx_clk, 3)

    rsrc = RgmiiSource(dut.rgmii_rxd, dut.rgmii_rx_ctl, dut.rgmii_rx_clk)
    gsink = GmiiSink(dut.gmii_rxd, dut.gmii_rx_er, dut.gmii_rx_dv, dut.rgmii_rx_clk,
                     mii_select=dut.mii_select)
    gsrc = GmiiSource(dut.gmii_txd, dut.gmii_tx_er, dut.gmii_tx_en, dut.gtx_clk,
                      enable=dut.tx_clk_en, mii_select=dut.mii_select)
    rsink = RgmiiSink(dut.rgmii_txd, dut.rgmii_tx_ctl, dut.rgmii_tx_clk)
    for m in (rsrc, gsink, gsrc, rsink):
        m.log.setLevel(logging.WARNING)
    rsrc.mii_mode = rsink.mii_mode = mii
    await ClockCycles(dut.gtx_clk, 10)
    dut.gtx_rst.value = 0
    await ClockCycles(dut.gtx_clk, 10)

    n = 12 if speed == 1000 else 4
    rx, tx = make(r, n), make(r, n)
    rx_ref = [tail(f, len(f.data) - 7) for f in rx]     # from the SFD on
    tx_ref = [tail(f, len(f.data) - 7) for f in tx]
    rx_done, tx_done = [], []       # the frames as sent (the models send copies), with times
    for a, b in zip(rx, tx):
        rsrc.ifg = gsrc.ifg = r.choice([12, 12, 3])
        a.tx_complete, b.tx_complete = rx_done.append, tx_done.append
        await rsrc.send(a)
        await gsrc.send(b)

    T = RX_NS[speed]
    for k, (data, err) in enumerate(rx_ref):
        g = await with_timeout(gsink.recv(), 2, "ms")
        f = rx_done[k]
        assert tail(g, len(data)) == (data, err)
        # the GMII side shows the SFD one cycle after the sampling edge; GmiiSink samples it a
        # cycle later still and stamps the unit after it
        assert g.sim_time_sfd - 2 * T * 1000 - f.sim_time_sfd == T * 1000, (g.sim_time_sfd, f.sim_time_sfd)
    lat = set()
    for k, (data, err) in enumerate(tx_ref):
        g = await with_timeout(rsink.recv(), 2, "ms")
        f = tx_done[k]
        assert tail(g, len(data)) == (data, err)
        assert g.check_fcs()
        lat.add(g.sim_time_sfd - f.sim_time_sfd)
    if speed == 1000:
        # low nibble from the edge the GMII side is sampled at; RgmiiSink: the unit after the SFD
        # completes at its falling rgmii_tx_clk edge, 1.5 cycles + 2 ns later
        assert lat == {(GTX_NS * 3 // 2 + 2) * 1000}, lat
    else:
        assert len(lat) == 1, lat


@pytest.mark.parametrize("vendor", ["GENERIC"])  # the default; XILINX needs the unisim library
def test_gmii_rgmii(vendor):
    runner.run("fp_gmii_rgmii", __name__, {})
