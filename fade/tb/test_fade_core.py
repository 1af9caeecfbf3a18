"""fp_fade_core: streaming with verified data under random backpressure; random (seeded) loss, duplication
and reordering of data frames and ACKs; STOP with a partial, an empty and an exactly-full last packet;
wrap-around of the 32-bit packet number, the 16-bit frame sequence number and the buffer slots
(PKT_INIT/SEQ_INIT near the top, N = 2); ACK records, up to 8 per frame (and 2 with ACK_RECORDS = 2 in the
wrap-around configuration). Bench: fade_bench.py; shared helpers: fade_common.py.
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles

from fade_common import *  # noqa: F401,F403  (setup, helpers, constants)
from fade_common import PARAMS, WRAP_PARAMS
from fastpath.fade import model as M
from fastpath.sim import runner
from fastpath.sim.tb import params


@cocotb.test()
async def stream_verified(dut):
    """8.3 packets of the test pattern under random user pauses and MAC backpressure."""
    b = await setup(dut)
    b.sink.set_pause_generator(M_pauses(b, 0.2))
    b.pump()
    await start_stream(b)
    n = 8 * 1024 + 300
    await b.feed(n, pause_p=0.2)
    await stop_and_drain(b)
    assert b.host.data == expected(n)
    assert M.check_pattern(b.host.data, b.host.data[1] - b.host.data[0]) is None
    assert b.count["ev_tx_data"] == 9 and b.count["ev_ack"] == 9
    assert b.count["ev_proto_err"] == 0 and b.host.future == 0 and b.host.duplicates == 0


@cocotb.test()
async def loss_dup_reorder(dut):
    """Random loss, duplication and reordering of data frames and ACKs: data still exact."""
    b = await setup(dut)
    b.sink.set_pause_generator(M_pauses(b, 0.1))
    b.pump(drop_data=0.1, dup_data=0.1, drop_ack=0.1, dup_ack=0.1, reorder=0.2, drop_first=(3,))
    await start_stream(b)
    n = 10 * 1024 + 17
    await b.feed(n, pause_p=0.1)
    await stop_and_drain(b)
    assert b.host.data == expected(n)
    retx = b.count["ev_tx_early"] + b.count["ev_tx_timeout"] + b.count["ev_tx_nack"]
    assert retx > 0 and b.count["ev_tx_data"] == 11
    assert b.count["ev_ack"] == 11             # every packet confirmed exactly once
    assert b.count["ev_proto_err"] == 0 and b.host.future == 0


@cocotb.test()
async def acks_batched(dut):
    """The core's START response says how many ACK records it takes per frame (ACK_RECORDS, 8 by
    default); the host model then packs up to that many into each ACK frame (fade/README.md, "ACK
    records"): with whole ACK frames and data frames lost and duplicated, the data is still
    exact, every packet is confirmed exactly once, no ACK frame meets a full FIFO, and ACK frames
    with several records did reach the core."""
    p = params()
    records = p.get("ACK_RECORDS", 8)
    b = await setup(dut)
    b.sink.set_pause_generator(M_pauses(b, 0.1))
    b.pump(drop_data=0.1, dup_data=0.05, drop_ack=0.1, dup_ack=0.1, batch=min(records, 1 << (p["N"] - 1)))
    await start_stream(b)
    assert b.host.board_records == records
    n = 12 * 1024 + 5
    await b.feed(n, pause_p=0.05)
    await stop_and_drain(b)
    assert b.host.data == expected(n)
    assert b.count["ev_tx_data"] == 13 and b.count["ev_ack"] == 13
    assert b.count["ev_proto_err"] == 0 and b.count["ev_rx_drop"] == 0 and b.host.future == 0
    assert max(b.ack_frame_records) >= 2 and max(b.ack_frame_records) <= records, b.ack_frame_records


@cocotb.test()
async def stop_last_packets(dut):
    """STOP with a partial packet (476 words), with 0 words, and right after a full packet."""
    b = await setup(dut)
    b.pump()
    for n in (1500, 0, 1024):
        if n == 1500:
            await start_stream(b)
        else:
            await b.command(b.host.start)
        assert int(dut.state.value) == 1
        await b.feed(n)
        await ClockCycles(dut.clk, 5)
        await stop_and_drain(b)
        assert b.host.data == expected(n), n
        assert b.host.last_pkt == n // 1024
        assert int(dut.s_axis_tready.value) == 0


@cocotb.test()
async def wrap_around(dut):
    """Packet numbers and frame sequence numbers wrap (PKT_INIT/SEQ_INIT near the top), slots
    wrap many times (small N), with loss and reordering."""
    p = params()
    if "PKT_INIT" not in p:
        return
    b = await setup(dut)
    b.pump(drop_data=0.1, drop_ack=0.1, reorder=0.2)
    await start_stream(b)
    n = 12 * 1024 + 99
    await b.feed(n, pause_p=0.05)
    await stop_and_drain(b)
    assert b.host.data == expected(n)
    sent = [f for _, f, _ in b.frames if isinstance(f, M.Data)]      # as sent, before the channel
    pkts = [f.pkt for f in sent]
    seqs = [f.seq for f in sent]
    assert seqs == [(p["SEQ_INIT"] + i) & 0xFFFF for i in range(len(seqs))]
    assert 0xFFFF_FFFF in pkts and 0 in pkts and 0xFFFF in seqs and 0 in seqs, (sorted(set(pkts)), sorted(set(seqs)))
    assert (sent[0].seq, sent[0].pkt) == (p["SEQ_INIT"], p["PKT_INIT"])


@pytest.mark.parametrize("cfg", ["n3", "wrap"])
def test_fade_core(cfg):
    if cfg == "n3":
        runner.run("fp_fade_core", __name__, PARAMS, testcase=[t for t in TESTS if t != "wrap_around"])
    else:
        runner.run("fp_fade_core", __name__, WRAP_PARAMS, testcase=["wrap_around", "acks_batched"])


TESTS = ['stream_verified', 'loss_dup_reorder', 'acks_batched', 'stop_last_packets', 'wrap_around']
