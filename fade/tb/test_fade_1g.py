"""fp_fade_1g at the GMII pins (cocotbext-eth GmiiSource / GmiiSink) driven by the Python host model:
START, a short stream (2 packets and 100 words) with data frames and ACK frames lost (ACKs up to 4
records to a frame, as the core's START response allows), then one ACK frame of 3 records taken
whole, a user command,
a frame with a bad FCS (counted by the core, ignored), STOP; data verified, FCS of every frame good."""
import cocotb
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource

from fade_bench import PinBench
from fastpath.sim import runner
from fastpath.sim.tb import rng
from test_fade_10g import run_stream

PARAMS = {"N": 2, "TIMEOUT": 40000}


@cocotb.test()
async def stream_at_pins(dut):
    src = GmiiSource(dut.gmii_rxd, dut.gmii_rx_er, dut.gmii_rx_dv, dut.clk, dut.rst)
    sink = GmiiSink(dut.gmii_txd, dut.gmii_tx_er, dut.gmii_tx_en, dut.clk, dut.rst)
    b = PinBench(dut, rng(), src, sink, GmiiFrame, n=PARAMS["N"])
    await run_stream(b, 8.0, hold_cycles=40_000)   # a data frame lasts ~8,300 byte cycles at 1G


def test_fade_1g():
    runner.run("fp_fade_1g", __name__, PARAMS)
