"""Setup, constants and helpers shared by the fp_fade_core test files (not a test module itself)."""
import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fade_bench import Bench, FPGA_MAC, HOST_MAC, expected, user_value
from fastpath.fade import model as M
from fastpath.sim.tb import high, params, rng

C = M.C
TIMEOUT = 12000
# Latencies in cycles from the cycle the tlast beat of the incoming frame is on s_eth.
LAT_ACK_FREE = 6        # ... to s_axis_tready rising (buffer was full)
LAT_NACK = 8            # ... to the retransmission's first beat valid on m_eth (idle transmitter)
LAT_CMD = 3             # ... to m_cmd_valid
LAT_RSP = 3             # s_rsp_valid && s_rsp_ready -> RESP frame's first beat valid on m_eth


async def setup(dut, **kw):
    p = params()
    b = Bench(dut, rng(), n=p.get("N", 4), pkt_init=p.get("PKT_INIT", 0), **kw)
    await b.start()
    return b


async def start_stream(b, drop_cmd=0.0):
    b.responder()
    return await b.command(b.host.start, drop_cmd=drop_cmd)


async def stop_and_drain(b, timeout_cycles=400_000):
    await b.command(b.host.stop)
    await b.wait_for(lambda: b.host.done and int(b.dut.state.value) == 0, timeout_cycles)


async def cycle_of(dut, cond):
    """Cycle index (CycleCounter) at which cond() is first true, sampled in ReadOnly."""
    while True:
        await RisingEdge(dut.clk)
        await ReadOnly()
        if cond():
            return


class Watch:
    """Records cycles of the s_eth tlast beats (incoming frames)."""

    def __init__(self, b):
        self.b = b
        self.tlast = []
        cocotb.start_soon(self._run())

    async def _run(self):
        d = self.b.dut
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            if high(d.s_eth_tvalid) and high(d.s_eth_tlast):
                self.tlast.append(self.b.cyc.now)


def M_pauses(b, p):
    from fastpath.sim.tb import pauses
    return pauses(b.r, p)




PARAMS = {"N": 3, "TIMEOUT": TIMEOUT}
WRAP_PARAMS = {"N": 2, "TIMEOUT": 6000, "PKT_INIT": 0xFFFF_FFFA, "SEQ_INIT": 0xFFF8, "ACK_RECORDS": 2}
