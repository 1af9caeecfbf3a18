"""fp_ptrain_fade_1g: the 1G tester's records to the host over FADE on its management port.

The test port's TX is wired back to its RX (fastpath.ptrain.wire, as test_ptrain_1g.py); the
management port's GMII pins go to the FADE host model (fade/tb/fade_bench.py's PinBench on
cocotbext-eth, fastpath.fade.model.FadeHost) through a channel that loses data frames and ACKs at
random, so FADE retransmits.

* Records at line rate: trains of 60-byte frames back to back (1,488,095 frames/s, every one
  selected), a train sent before FADE is started (its records wait in the tester's FIFO), frames
  dropped and swapped on the wire. The records decoded from FADE's stream
  (fastpath.ptrain.fade_records) equal the records the tester put on its record stream (the
  direct path, monitored), each exactly once and in order, numbered 0, 1, ...; their one-way
  delays equal the wire's + 8 ns; the analyser counts the wire's losses and reorderings; DRAIN
  answers the number of records sent; the receiver dropped no record (rx_record_drops 0).
  Logged: the records per second carried, the management port's load, the FIFO's peak fill.
* Latency: a record's first word is offered to FADE 2 cycles after its handshake whenever the
  serializer was empty, and that handshake is in the first cycle the record is valid.
* A full FIFO: records made while FADE is stopped beyond RECORD_DEPTH are dropped and counted by
  the receiver; the ones kept arrive after START. STOP without DRAIN cuts the record being sent:
  its rest is dropped while FADE is idle (ev_rec_cut), the next session starts on a record. A
  user command other than DRAIN is answered at once with the number of records sent.
"""
from __future__ import annotations

import sys

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource

from fastpath import regs
from fastpath.paths import ROOT
from fastpath.ptrain import analyze
from fastpath.ptrain import fade_records as fr
from fastpath.ptrain import record as rec
from fastpath.ptrain.wire import Driver, GmiiWire, Plan
from fastpath.sim import runner
from fastpath.sim.tb import CycleCounter, high, rng, start, uint

sys.path.insert(0, str(ROOT / "fade" / "tb"))
from fade_bench import PinBench  # noqa: E402

PERIOD_NS = 8
Q16 = 1 << 16
OFFSET_NS = 8            # the 1G tester's own delay (test_ptrain_1g.py)
LATENCY = 2              # record handshake -> first word valid on FADE's s_axis (serializer empty)
# FADE_N 2: a buffer of 4 packets (819 records) and a FIFO of 128 records hold fewer records than
# the line-rate run makes (LINE), so the run passes only if FADE's wire keeps up.
PARAMS = {"PPS_INTERVAL_NS": 100000, "FADE_N": 2, "FADE_TIMEOUT": 20000, "RECORD_DEPTH": 128}
LINE = 1000            # records of the line-rate run


class FadeView:
    """fp_fade_1g's port names, for fade_bench.PinBench, on the top: its clock and reset and the
    FADE core's state (the top drives the core's user stream and command ports itself)."""

    def __init__(self, dut):
        self.clk, self.rst, self.state = dut.clk, dut.rst, dut.fade_state
        self.cfg_local_mac = dut.cfg_local_mac


class PtrainDriver(Driver):
    """wire.Driver without its record sink: the records leave over FADE here."""

    def __init__(self, dut):
        from cocotbext.axi import AxiLiteBus, AxiLiteMaster
        self.dut, self.period_ns, self.beats = dut, PERIOD_NS, []
        self.regs = regs.RegClient(regs.load("ptrain"),
                                   AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))


class Watch:
    """One loop per cycle (cheaper than a monitor each): the records on the tester's record stream
    (the direct path) with the cycle each was first valid and taken; the first word of each record
    offered to FADE (fp_ptrain_rec64's m_axis, 5 words a record) and the cycle of its last word;
    the FADE core's retransmissions; the management port's TX load; the record FIFO's and FADE
    buffer's peak fill;
    ev_rec_cut pulses."""

    def __init__(self, dut):
        self.dut = dut
        self.direct: list[rec.RxRecord] = []
        self.rec_valid: list[int] = []     # per record: first cycle valid on the record stream
        self.rec_taken: list[int] = []     # ... handshake
        self.word_first: list[int] = []    # per record: first cycle its first word is offered
        self.word_last: list[int] = []     # ... its last word taken
        self.cycle = 0
        self.retx = 0
        self.tx_busy = 0
        self.fifo_max = 0
        self.buf_max = 0                   # FADE's buffer: packets held, peak
        self.cuts = 0
        self.window = None                 # (first, last) cycle over which tx_busy counts
        self._valid_since = None
        self._words = 0
        self._fifo = dut.u_ptrain.u_core.u_rx.f_cnt_q
        self._buf = dut.u_fade.u_core.u_desc.n_valid
        u = dut.u_fade
        self._retx = (u.ev_tx_early, u.ev_tx_nack, u.ev_tx_timeout)
        cocotb.start_soon(self._run())

    async def _run(self):
        d, r = self.dut, self.dut.u_rec64
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            c = self.cycle
            if high(d.rec_tvalid) and high(r.s_axis_tvalid):          # offered past the gate
                if self._valid_since is None:
                    self._valid_since = c
                if high(d.rec_tready):
                    self.direct.append(rec.decode(uint(d.rec_tdata)))
                    self.rec_valid.append(self._valid_since)
                    self.rec_taken.append(c)
                    self._valid_since = None
            if high(r.m_axis_tvalid):
                if self._words % 5 == 0 and len(self.word_first) == self._words // 5:
                    self.word_first.append(c)
                if high(r.m_axis_tready):
                    self._words += 1
                    if self._words % 5 == 0:
                        self.word_last.append(c)
            self.retx += sum(high(s) for s in self._retx)
            if self.window and self.window[0] <= c < self.window[1]:
                self.tx_busy += high(d.mgmt_gmii_tx_en)
            self.fifo_max = max(self.fifo_max, uint(self._fifo))
            self.buf_max = max(self.buf_max, uint(self._buf))
            self.cuts += high(d.ev_rec_cut)


async def setup(dut, delay: int, plan: Plan | None = None):
    dut.pps.value = 0
    wire = GmiiWire(dut, delay, plan)
    src = GmiiSource(dut.mgmt_gmii_rxd, dut.mgmt_gmii_rx_er, dut.mgmt_gmii_rx_dv, dut.clk, dut.rst)
    sink = GmiiSink(dut.mgmt_gmii_txd, dut.mgmt_gmii_tx_er, dut.mgmt_gmii_tx_en, dut.clk, dut.rst)
    b = PinBench(FadeView(dut), rng(), src, sink, GmiiFrame, n=PARAMS["FADE_N"], user_ports=False)
    t = PtrainDriver(dut)
    w = Watch(dut)
    await start(dut, period_ns=PERIOD_NS)
    b.cyc = CycleCounter(dut.clk)        # what Bench.start does, without its 13 ev_* counters
    return wire, b, t, w


async def drain_and_stop(b):
    """DRAIN (the records sent so far are all in the stream), STOP, wait for the last packet."""
    res = await b.command(lambda: b.host.command(fr.CMD_DRAIN, 0), timeout_cycles=60_000)
    await b.command(b.host.stop, timeout_cycles=60_000)
    await b.wait_for(lambda: b.host.done and int(b.dut.state.value) == 0, 600_000)
    return res[2]


@cocotb.test()
async def records_at_line_rate_over_lossy_fade(dut):
    plan = Plan(drop={5, 33}, swap={20, 401})   # no duplicates: at line rate a copy has no slot
    wire, b, t, w = await setup(dut, delay=300, plan=plan)
    b.pump(drop_data=0.1, drop_ack=0.1, batch=1, drop_first=(1, 3))   # packets 1 and 3 lost once for sure
    # a first train while FADE is idle: its records wait in the tester's FIFO
    await t.configure(size=60, train_len=50, trains=1, period=0, train_gap=0, first_seq=0)
    await t.run(10_000)
    await ClockCycles(dut.clk, 500)
    assert len(w.direct) == 0, "records left the tester before START"
    await b.command(b.host.start, timeout_cycles=20_000)
    # then LINE trains of 100 back to back, at line rate
    await t.configure(size=60, train_len=100, trains=LINE // 100, period=0, train_gap=0, first_seq=50)
    w.fifo_max = w.buf_max = 0
    c0 = w.cycle
    w.window = (c0, 1 << 62)
    await t.run(LINE * 84 + 20_000)
    w.window = (c0, w.cycle)
    await ClockCycles(dut.clk, 1000)      # the last frame crosses the wire and the receiver
    sent_recs = await drain_and_stop(b)
    await ClockCycles(dut.clk, 50)
    assert not wire.errors, wire.errors

    d = fr.decode_words(b.host.data)
    n = len(wire.delivered)
    assert n == 50 + LINE - 2
    # exactly once, in order, equal to the direct path; numbered from 0
    assert d.rx == w.direct, (len(d.rx), len(w.direct))
    assert len(d.rx) == n and d.numbers == list(range(n)) and not d.gaps and d.cut_bytes == 0
    assert sent_recs == n and int(dut.rec_count.value) == n
    assert await t.regs.read("rx_records") == n and await t.regs.read("rx_record_drops") == 0
    # against the wire's truth: every delay is the wire's + the tester's 8 ns
    truth = {}
    for x in wire.delivered:
        truth.setdefault(x.index, []).append((x.rx_cycle - x.tx_cycle) * PERIOD_NS)
    for r in d.rx:
        assert not r.bad and analyze.diff(r.rx_time, r.tx_time) in [(v + OFFSET_NS) * Q16 for v in truth[r.seq]]
    s = analyze.analyze(d.records())["streams"][0]["summary"]
    assert (s["lost"], s["duplicates"], s["reordered"]) == (2, 0, 2)
    # FADE retransmitted (lost data frames / ACKs) and still delivered every word once
    assert w.retx > 0 and b.fcs_errors == 0
    # latency: every record that found the serializer empty was taken in its first valid cycle
    # and its first word offered LATENCY cycles later
    assert len(w.word_first) == len(w.word_last) == n
    alone = [k for k in range(n) if k == 0 or w.word_last[k - 1] < w.rec_valid[k]]
    assert len(alone) > n // 2
    for k in alone:
        assert (w.rec_taken[k] - w.rec_valid[k], w.word_first[k] - w.rec_taken[k]) == (0, LATENCY), k
    assert all(w.word_first[k] - w.rec_taken[k] >= LATENCY for k in range(n))
    # the figures: records carried per second at the offered rate, the port's load, the FIFO
    rx = sorted(r.rx_time for r in d.rx if r.seq >= 50)
    rate = (len(rx) - 1) / ((rx[-1] - rx[0]) / Q16 * 1e-9)
    load = w.tx_busy / (w.window[1] - w.window[0])
    dut._log.info(f"records over FADE: {len(rx)} records of back-to-back 60-byte frames at "
                  f"{rate:,.0f} records/s, all carried (0 dropped); FADE retransmissions {w.retx}; "
                  f"management TX busy {load:.1%} of the run; peaks: tester FIFO {w.fifo_max} of "
                  f"{PARAMS['RECORD_DEPTH']} records, FADE buffer {w.buf_max} of {1 << PARAMS['FADE_N']} packets")
    assert abs(rate - 125e6 / 84) < 1.0


@cocotb.test()
async def full_fifo_counted_and_cut_record(dut):
    wire, b, t, w = await setup(dut, delay=200)
    b.pump(drop_data=0.05, drop_ack=0.05, batch=1)
    depth = PARAMS["RECORD_DEPTH"]
    # FADE stopped: depth records kept, the rest dropped and counted
    await t.configure(size=60, train_len=200, trains=1, period=0, first_seq=0)
    await t.run(30_000)
    await ClockCycles(dut.clk, 500)
    assert await t.regs.read("rx_records") == depth
    assert await t.regs.read("rx_record_drops") == 200 - depth
    # session 1: START, then at once STOP without DRAIN, while the FIFO's records go to FADE back
    # to back (a word of a record every cycle: the STOP very likely cuts one)
    await b.command(b.host.start, timeout_cycles=20_000)
    await b.command(b.host.stop, timeout_cycles=60_000)
    await b.wait_for(lambda: b.host.done and int(b.dut.state.value) == 0, 600_000)
    s1 = fr.decode_words(b.host.data)
    # session 2: the FIFO's other records, from a record boundary, then a train while running
    await b.command(b.host.start, timeout_cycles=20_000)
    # another user code (0x0100: what fade-recv --commands sends) is answered with the records
    # sent so far and changes nothing
    res = await b.command(lambda: b.host.command(fr.CMD_DRAIN - 1, 7), timeout_cycles=20_000)
    assert len(s1.rx) < res[2] <= len(w.direct)
    await t.configure(size=60, train_len=100, trains=1, period=0, first_seq=200)
    await t.run(20_000)
    await ClockCycles(dut.clk, 1000)
    sent = await drain_and_stop(b)
    s2 = fr.decode_words(b.host.data)
    assert not s1.gaps and not s2.gaps and s2.cut_bytes == 0
    cut = int(s1.cut_bytes > 0)
    k = len(s1.rx)
    assert w.cuts == cut and s1.cut_bytes % 8 == 0 and s1.cut_bytes < fr.NBYTES
    assert s1.rx == w.direct[:k] and s1.numbers == list(range(k))
    assert s2.rx == w.direct[k + cut:] and s2.numbers == list(range(k + cut, len(w.direct)))
    assert [r.seq for r in w.direct] == list(range(depth)) + list(range(200, 300))
    assert sent == len(w.direct) == int(dut.rec_count.value)
    assert await t.regs.read("rx_record_drops") == 200 - depth
    dut._log.info(f"session 1: {k} records + {s1.cut_bytes} bytes of a cut one; session 2: {len(s2.rx)} records")


def test_ptrain_fade_1g():
    runner.run("fp_ptrain_fade_1g", __name__, PARAMS)
