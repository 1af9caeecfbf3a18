"""fp_fade_10g at the XGMII pins (cocotbext-eth XgmiiSource / XgmiiSink) driven by the Python host model:
START, a short stream (2 packets and 100 words) with data frames and ACK frames lost (ACKs up to 4
records to a frame, as the core's START response allows), then one ACK frame of 3 records taken
whole, a user command,
a frame with a bad FCS (counted by the core, ignored), STOP; data verified, FCS of every frame good."""
import cocotb
from cocotb.triggers import ClockCycles
from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

from fade_bench import FPGA_MAC, HOST_MAC, PinBench, expected, user_value
from fastpath.fade import model as M
from fastpath.sim import runner
from fastpath.sim.tb import rng

PARAMS = {"N": 2, "TIMEOUT": 6000}


async def run_stream(b, period_ns, hold_cycles=None):
    await b.start(period_ns=period_ns)
    b.responder()
    b.pump(drop_data=0.15, drop_ack=0.15, batch=4, hold_cycles=hold_cycles)
    await b.command(b.host.start, timeout_cycles=20_000)
    n = 2 * 1024 + 100
    feeding = cocotb.start_soon(b.feed(n, pause_p=0.1))
    code, arg = M.C["cmd_user_min"] + 7, 0xDEAD_BEEF
    res = await b.command(lambda: b.host.command(code, arg), timeout_cycles=40_000)
    assert res[2] == user_value(code, arg)
    await b.send(M.ack_frame(FPGA_MAC, HOST_MAC, 0, 0), bad=True)
    await feeding
    await b.command(b.host.stop, timeout_cycles=40_000)
    await b.wait_for(lambda: b.host.done and int(b.dut.state.value) == 0, 400_000)
    await ClockCycles(b.clk, 20)
    assert b.host.data == expected(n)
    assert b.fcs_errors == 0 and b.count["ev_rx_bad_fcs"] == 1
    assert b.executed == [(code, b.host.cmd.results[1][1], arg)]
    # The stream's ACK frames carry several records only when data frames come close together
    # (the loss is random), so one frame of 3 records is sent for sure: NACKs for packets never
    # sent, each a protocol error, all 3 taken from the one frame through the MAC and the core.
    assert max(b.ack_frame_records) <= 4, b.ack_frame_records
    errs, drops = b.count["ev_proto_err"], b.count["ev_rx_drop"]
    await b.send(M.acks_frame(FPGA_MAC, HOST_MAC, [(0, 0x4000_0000 + i, 0, True) for i in range(3)]))
    await b.wait_for(lambda: b.count["ev_proto_err"] == errs + 3, 20_000)
    await ClockCycles(b.clk, 200)
    assert b.count["ev_proto_err"] == errs + 3 and b.count["ev_rx_drop"] == drops


@cocotb.test()
async def stream_at_pins(dut):
    src = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
    sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
    b = PinBench(dut, rng(), src, sink, XgmiiFrame, n=PARAMS["N"])
    await run_stream(b, 6.4)


def test_fade_10g():
    runner.run("fp_fade_10g", __name__, PARAMS)
