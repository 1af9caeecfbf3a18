"""fp_fade_core retransmission: the early-retransmission scenario of the paper's Figure 4(b), NACK, timeout,
and exact latencies: ACK -> buffer slot freed, NACK -> retransmission, command -> m_cmd_valid,
s_rsp -> RESP frame; the user input streaming at one word per cycle until the buffer is full.
"""
import cocotb
from cocotb.triggers import ClockCycles

from fade_common import *  # noqa: F401,F403  (setup, helpers, constants)
from fade_common import PARAMS
from fastpath.fade import model as M
from fastpath.sim import runner
from fastpath.sim.tb import high, params


@cocotb.test()
async def figure_4b(dut):
    """Paper Figure 4(b): packet 2 and the ACK of packet 4 are lost. ACK(3) -> only 2 is resent
    (seq 7); ACK(5, seq 5) -> only 4 is resent (2's last seq 7 is newer than 5); ACK(6) -> none."""
    b = await setup(dut)
    b.responder()
    h = b.host
    await b.send(h.start())
    model = M.CoreRetransModel()
    await b.feed(7 * 1024)
    got = {}
    while len(got) < 7:
        raw, p, bad = await b.recv()
        if isinstance(p, M.Data):
            assert p.seq == model.send(p.pkt) and p.seq == p.pkt
            got[p.pkt] = raw
        elif p is not None:
            h.receive(raw)        # START response
    acks = {k: h.receive(v)[0] for k, v in got.items() if k != 2}   # data packet 2 lost

    async def expect_resend(pkts):
        for q in pkts:
            raw, p, _ = await b.recv(timeout_cycles=3000)
            assert isinstance(p, M.Data) and p.pkt == q, (p, q)
            assert p.seq == model.send(q)
            h.receive(raw)

    for k in (0, 1):
        await b.send(acks[k])
        assert model.ack(k, k) == []
    await b.send(acks[3])
    assert model.ack(3, 3) == [2]
    await expect_resend([2])                          # seq 7
    assert model.last_seq[2] == 7
    # the ACK of packet 4 is lost
    await b.send(acks[5])
    assert model.ack(5, 5) == [4]
    await expect_resend([4])                          # seq 8
    await b.send(acks[6])
    assert model.ack(6, 6) == []
    await ClockCycles(dut.clk, 1500)
    assert b.sink.empty(), "ACK(6) must not trigger a retransmission"
    assert b.count["ev_tx_early"] == 2 and b.count["ev_tx_timeout"] == 0
    # the host's ACKs of the resent packets 2 and 4 free everything
    b.pump()
    await b.send(M.ack_frame(FPGA_MAC, HOST_MAC, 7, 2))
    await b.send(M.ack_frame(FPGA_MAC, HOST_MAC, 8, 4))
    await stop_and_drain(b)
    assert b.host.data == expected(7 * 1024)


@cocotb.test()
async def latencies_nack_throughput(dut):
    """User input at one word per cycle until the buffer is full; exact latencies of ACK ->
    slot freed, NACK -> retransmission, command -> m_cmd_valid, s_rsp -> RESP frame."""
    b = await setup(dut)
    w = Watch(b)
    h = b.host
    await b.send(h.start())
    raw, p, _ = await b.recv()
    assert isinstance(p, M.Resp) and h.receive(raw) == [] and h.cmd.results[-1][0] == C["cmd_start"]
    m = 1 << params().get("N", 4)
    # full throughput: m packets accepted in m * 1024 consecutive cycles
    t0 = b.cyc.now
    await b.feed(m * 1024)
    assert b.cyc.now - t0 == m * 1024, f"{m * 1024} words took {b.cyc.now - t0} cycles"
    frames = {}
    while len(frames) < m:
        raw, p, _ = await b.recv()
        frames[p.pkt] = raw
    assert int(dut.s_axis_tready.value) == 0
    # ACK of packet 0 -> tready rises
    ack0 = h.receive(frames[0])[0]
    await b.send(ack0)
    await cycle_of(dut, lambda: high(dut.s_axis_tready))
    assert b.cyc.now - w.tlast[-1] == LAT_ACK_FREE, b.cyc.now - w.tlast[-1]
    await ClockCycles(dut.clk, 50)
    # NACK of packet 1 -> retransmission
    await b.send(M.ack_frame(FPGA_MAC, HOST_MAC, 1, 1, nack=True))
    await cycle_of(dut, lambda: high(dut.m_eth_tvalid))
    assert b.cyc.now - w.tlast[-1] == LAT_NACK, b.cyc.now - w.tlast[-1]
    raw, p, _ = await b.recv()
    assert p.pkt == 1 and p.seq == m and b.count["ev_tx_nack"] == 1 and b.count["ev_nack"] == 1
    for k in range(1, m):
        await b.send(h.receive(frames[k])[0])
    await b.wait_for(lambda: b.count["ev_ack"] == m)
    # command latency and response latency (transmitter idle)
    b.responder(ready_p=1.0, max_wait=0)
    await b.send(h.command(0x0123, 0xCAFE))
    await cycle_of(dut, lambda: high(dut.m_cmd_valid))
    assert b.cyc.now - w.tlast[-1] == LAT_CMD, b.cyc.now - w.tlast[-1]
    await cycle_of(dut, lambda: high(dut.s_rsp_valid) and high(dut.s_rsp_ready))
    t_rsp = b.cyc.now
    await cycle_of(dut, lambda: high(dut.m_eth_tvalid))
    assert b.cyc.now - t_rsp == LAT_RSP, b.cyc.now - t_rsp
    raw, p, _ = await b.recv()
    assert isinstance(p, M.Resp) and p.resp == (0x0123, h.cmd.pending[1], user_value(0x0123, 0xCAFE))


@cocotb.test()
async def timeout_retransmission(dut):
    """An ACK lost and never followed by another: the packet is resent after TIMEOUT cycles."""
    b = await setup(dut)
    h = b.host
    b.responder()
    await b.send(h.start())
    await b.feed(2 * 1024)
    times = {}
    n_data = 0
    while n_data < 3:
        raw, p, _ = await b.recv(timeout_cycles=TIMEOUT * 2)
        if isinstance(p, M.Data):
            n_data += 1
            times.setdefault(p.pkt, []).append(b.cyc.now)
            acks = h.receive(raw)
            if not (p.pkt == 1 and len(times[1]) == 1):
                for a in acks:
                    await b.send(a)
        else:
            h.receive(raw)
    assert len(times[1]) == 2 and b.count["ev_tx_timeout"] == 1
    gap = times[1][1] - times[1][0]
    m = 1 << params().get("N", 4)
    assert TIMEOUT <= gap <= TIMEOUT + m + 4, gap
    b.pump()
    await stop_and_drain(b)
    assert h.data == expected(2 * 1024)


def test_fade_core_retx():
    runner.run("fp_fade_core", __name__, PARAMS)
