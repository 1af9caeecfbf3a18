"""fp_fade_core commands and robustness: exactly-once commands under loss of commands and responses, RESET
mid-frame, stale / future ACKs, bad-FCS and foreign frames ignored and counted.
"""
import cocotb
from cocotb.triggers import ClockCycles

from fade_common import *  # noqa: F401,F403  (setup, helpers, constants)
from fade_common import PARAMS
from fastpath.fade import model as M
from fastpath.sim import runner
from fastpath.sim.tb import high


@cocotb.test()
async def commands_exactly_once(dut):
    """User commands (and START/STOP) under loss of commands and of responses (in RESP and in
    data frames): every command runs exactly once on the command port, answers are right."""
    b = await setup(dut)
    b.pump(drop_resp=0.3)
    b.responder()
    await b.command(b.host.start, drop_cmd=0.3)
    feeding = cocotb.start_soon(b.feed(3 * 1024 + 5, pause_p=0.3))
    want = []
    for i in range(8):
        code, arg = C["cmd_user_min"] + b.r.randint(0, 0x7EFF), b.r.getrandbits(32)
        res = await b.command(lambda: b.host.command(code, arg), drop_cmd=0.3, timeout_cycles=2500)
        want.append((code, res[1], arg))
        assert res[2] == user_value(code, arg)
    # a response surely lost: the same command (same csn) again after it was answered
    code, arg = C["cmd_user_min"] + 1, 0x5555
    res = await b.command(lambda: b.host.command(code, arg), timeout_cycles=2500)
    want.append((code, res[1], arg))
    repeats = b.count["ev_cmd_repeat"]
    await b.send(M.cmd_frame(FPGA_MAC, HOST_MAC, code, res[1], arg))
    await b.wait_for(lambda: b.count["ev_cmd_repeat"] > repeats)
    await feeding
    await b.command(b.host.stop, drop_cmd=0.3)
    await b.wait_for(lambda: b.host.done and int(dut.state.value) == 0, 200_000)
    assert b.executed == want, (b.executed, want)
    assert b.host.data == expected(3 * 1024 + 5)
    assert b.count["ev_cmd_exec"] == 11
    assert b.count["ev_cmd_repeat"] >= 1


@cocotb.test()
async def reset_mid_frame(dut):
    """RESET (broadcast) while a data frame is on the wire: the frame ends at once marked bad
    (the MAC stomps it), the core is idle; a new START streams from packet 0 again."""
    b = await setup(dut)
    h = b.host
    b.responder()
    await b.send(h.start())
    await b.feed(2 * 1024)
    await cycle_of(dut, lambda: high(dut.ev_tx_data))
    await ClockCycles(dut.clk, 300)
    await b.send(h.reset(broadcast=True))
    bad = 0
    for _ in range(3):
        raw, p, is_bad = await b.recv()
        bad += is_bad
        if is_bad:
            break
    assert bad == 1 and len(raw) < M.F.layout("data").length
    await ClockCycles(dut.clk, 10)
    assert int(dut.state.value) == 0 and int(dut.s_axis_tready.value) == 0
    while not b.sink.empty():
        b.sink.recv_nowait()
    b.pump()
    await b.command(h.start)
    await b.feed(1024 + 10)
    await stop_and_drain(b)
    assert h.data == expected(1024 + 10)
    assert b.host.seqs[0] == (0, 0)


@cocotb.test()
async def bad_and_foreign_frames(dut):
    """Stale, duplicate and future ACKs; bad FCS; foreign Ethertype, version, destination; unknown
    command; truncated frame: all ignored and counted exactly."""
    b = await setup(dut)
    h = b.host
    b.pump()
    await start_stream(b)
    await b.feed(2 * 1024)
    await b.wait_for(lambda: b.count["ev_ack"] == 2 and int(dut.s_axis_tready.value) == 1)
    ack = lambda seq, pkt, nack=False: M.ack_frame(FPGA_MAC, HOST_MAC, seq, pkt, nack=nack)
    await b.send(ack(0, 0))                      # freed: stale
    await b.send(ack(1, 1, nack=True))           # freed: stale
    await b.send(ack(5, 2))                      # never sent: protocol error
    await b.send(ack(5, 1000))                   # future: protocol error
    await b.send(ack(5, 0xFFFF_FFF0))            # older: stale
    good = ack(0, 0)
    await b.send(good, bad=True)                 # bad FCS
    await b.send(good[:12] + b"\x08\x00" + good[14:])          # foreign Ethertype
    await b.send(good[:14] + b"\x01\x01" + good[16:])          # foreign version
    await b.send(M.ack_frame(0x02_11_22_33_44_55, HOST_MAC, 0, 0))   # other destination
    await b.send(M.cmd_frame(FPGA_MAC, HOST_MAC, 0x0050, 77))  # unknown command code
    await b.send(M.cmd_frame(FPGA_MAC, HOST_MAC, C["cmd_user_min"], 77)[:20])  # truncated
    await b.send(M.cmd_frame(0xFFFF_FFFF_FFFF, HOST_MAC, C["cmd_start"], 99))  # START broadcast
    await ClockCycles(dut.clk, 200)
    assert b.count["ev_ack_stale"] == 3 and b.count["ev_proto_err"] == 2
    assert b.count["ev_rx_bad_fcs"] == 1 and b.count["ev_rx_drop"] == 7
    assert b.executed == [] and int(dut.state.value) == 1
    await stop_and_drain(b)
    assert h.data == expected(2 * 1024)


def test_fade_core_cmd():
    runner.run("fp_fade_core", __name__, PARAMS)
