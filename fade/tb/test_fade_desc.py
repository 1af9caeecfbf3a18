"""fp_fade_desc: the descriptor manager between an emulated user, transmitter and ACK FIFO.

stream_and_ack: random user words (random gaps) until STOP, a transmitter that takes each
offered packet at random times and stays busy a few cycles, in-order ACKs after random delays,
plus duplicate and never-sent ACKs: RAM writes, packet order, frame sequence numbers, the LAST
packet, the state, ACK latency (ev_ack 3 cycles, s_axis_tready back 4 cycles after the ACK of a
full buffer), stale/protocol-error events. nack_early_timeout: NACK -> offered 4 cycles later,
early retransmission on an ACK with a newer seq, timeout retransmission within its window."""
import cocotb
from cocotb.triggers import ClockCycles, FallingEdge
from cocotb.utils import get_sim_time

from fastpath.sim import runner
from fastpath.sim.tb import high, params, rng, start

R_NEW, R_EARLY, R_NACK, R_TIMEOUT = 0, 1, 2, 3
S_IDLE, S_RUN, S_STOP = 0, 1, 2
WORDS = 1024
LAT_ACK = 3     # ACK handshake -> ev_ack (and every other ACK event)
LAT_FREE = 4    # ACK handshake -> s_axis_tready back (buffer was full)
LAT_NACK = 4    # NACK handshake -> tx_avail with that packet
EVENTS = ["ev_ack", "ev_nack", "ev_ack_stale", "ev_proto_err"]


def now() -> int:
    return int(get_sim_time(unit="ns") // 5)  # fastpath.sim.tb.start's 5 ns clock


class Bench:
    """Everything is driven and sampled at the falling edge: the outputs read there are registered
    (s_axis_tready, ack_ready, tx_*), so inputs set there decide the next rising edge."""

    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        p = params()
        self.n, self.pkt0, self.seq0 = p["N"], p.get("PKT_INIT", 0), p.get("SEQ_INIT", 0)
        for s in ("start_pulse", "stop_pulse", "s_axis_tdata", "s_axis_tvalid", "ack_valid", "ack_nack",
                  "ack_seq", "ack_pkt", "tx_take", "tx_busy", "tx_busy_slot"):
            getattr(dut, s).value = 0
        self.words = []          # words still to offer
        self.word_p = 0.8        # probability of offering a word in a cycle
        self.take_p = 0.3        # probability of taking an offered packet in a cycle
        self.taking = True
        self.take_delay = 0      # take an offer only this many cycles after it was first offered
        self.first_offer = None
        self.busy_left = 0
        self.acks = []           # pending (due_cycle, nack, seq, pkt)
        self.writes, self.takes, self.events, self.ack_hs, self.tready = [], [], [], [], {}
        self.avail_log = {}      # cycle -> (pkt, reason) offered

    def begin(self):
        cocotb.start_soon(self._run())

    async def _run(self):
        d, r = self.dut, self.r
        while True:
            await FallingEdge(d.clk)
            c = now()
            for e in EVENTS:
                if high(getattr(d, e)):
                    self.events.append((c, e))
            ready = high(d.s_axis_tready)
            self.tready[c] = ready
            # user: one word per handshake
            if self.words and r.random() < self.word_p:
                d.s_axis_tvalid.value = 1
                d.s_axis_tdata.value = self.words[0]
                if ready:
                    self.writes.append((int(d.ram_waddr.value), self.words.pop(0)))
            else:
                d.s_axis_tvalid.value = 0
            # transmitter
            take = False
            if high(d.tx_avail):
                self.avail_log[c] = (int(d.tx_pkt.value), int(d.tx_reason.value))
                if self.first_offer is None:
                    self.first_offer = c
                take = self.taking and self.busy_left == 0 and r.random() < self.take_p \
                    and c >= self.first_offer + self.take_delay
            else:
                self.first_offer = None
            if take:
                t = dict(cycle=c, pkt=int(d.tx_pkt.value), slot=int(d.tx_slot.value), last=high(d.tx_last),
                         nwords=int(d.tx_nwords.value), reason=int(d.tx_reason.value), seq=int(d.tx_seq.value))
                self.takes.append(t)
                self.first_offer = None
                self.busy_left = r.randint(2, 8)
                d.tx_busy_slot.value = t["slot"]
            elif self.busy_left:
                self.busy_left -= 1
            d.tx_take.value = int(take)
            d.tx_busy.value = int(self.busy_left > 0 and not take)
            # ACK FIFO: the handshake cycle is the one in which ack_valid && ack_ready hold
            due = self.acks and self.acks[0][0] <= c
            d.ack_valid.value = int(bool(due))
            if due:
                _, nack, seq, pkt = self.acks[0]
                d.ack_nack.value, d.ack_seq.value, d.ack_pkt.value = nack, seq, pkt
                if high(d.ack_ready):
                    self.ack_hs.append((c, self.acks.pop(0)))

    async def pulse(self, name):
        await FallingEdge(self.dut.clk)
        getattr(self.dut, name).value = 1
        await FallingEdge(self.dut.clk)
        getattr(self.dut, name).value = 0

    def ack(self, pkt, seq, nack=0, delay=0):
        self.acks.append((now() + delay, nack, seq & 0xFFFF, pkt & 0xFFFFFFFF))

    async def until(self, cond, limit=200_000):
        for _ in range(limit):
            if cond():
                return
            await FallingEdge(self.dut.clk)
        raise AssertionError("timeout")


async def setup(dut):
    r = rng()
    b = Bench(dut, r)
    await start(dut)
    b.begin()
    return r, b


def events_at(b, name):
    return [c for c, e in b.events if e == name]


@cocotb.test()
async def stream_and_ack(dut):
    r, b = await setup(dut)
    m = 2**b.n
    npk = m + 3
    extra = r.randint(0, 1023)
    words = [r.getrandbits(64) for _ in range(npk * WORDS + extra)]
    b.words = list(words)
    await b.pulse("start_pulse")
    await ClockCycles(dut.clk, 2)
    assert int(dut.state.value) == S_RUN
    acked = 0
    hold = True  # hold the first ACKs until the buffer is full
    while acked < npk or b.words:
        await FallingEdge(dut.clk)
        if hold and not b.tready[now()] and len(b.takes) >= m and b.busy_left == 0:
            hold = False
        if not hold and acked < len(b.takes) and b.busy_left == 0 and not b.acks:
            t = b.takes[acked]
            b.ack(t["pkt"], t["seq"], delay=r.randint(0, 30))
            acked += 1
    # STOP: the rest becomes the LAST packet
    await b.pulse("stop_pulse")
    await b.until(lambda: len(b.takes) == npk + 1)
    last = b.takes[-1]
    assert last["last"] and last["nwords"] == extra and last["pkt"] == (b.pkt0 + npk) & 0xFFFFFFFF
    assert int(dut.state.value) == S_STOP
    await b.until(lambda: b.busy_left == 0)
    b.ack(last["pkt"] - 1, b.takes[-2]["seq"])                     # duplicate: stale
    b.ack(last["pkt"] + 1, 0)                                      # never sent: protocol error
    b.ack(last["pkt"], last["seq"])
    await b.until(lambda: not b.acks)
    await ClockCycles(dut.clk, 8)
    assert int(dut.state.value) == S_IDLE
    # RAM writes: word i of packet k at {slot, i}
    exp = [(((((b.pkt0 + k) % m) << 10) | i), words[k * WORDS + i]) for k in range(npk + 1) for i in range(WORDS)
           if k * WORDS + i < len(words)]
    assert b.writes == exp
    # packets offered in order, once each, new; frame sequence numbers consecutive
    assert [t["pkt"] for t in b.takes] == [(b.pkt0 + k) & 0xFFFFFFFF for k in range(npk + 1)]
    assert [t["slot"] for t in b.takes] == [(b.pkt0 + k) % m for k in range(npk + 1)]
    assert all(t["reason"] == R_NEW for t in b.takes)
    assert [t["seq"] for t in b.takes] == [(b.seq0 + k) & 0xFFFF for k in range(npk + 1)]
    assert not any(t["last"] for t in b.takes[:-1])
    # ACK events exactly LAT_ACK cycles after each handshake
    kinds = ["ev_ack"] * npk + ["ev_ack_stale", "ev_proto_err", "ev_ack"]
    assert sorted(b.events) == sorted((c + LAT_ACK, k) for (c, _), k in zip(b.ack_hs, kinds))
    # the buffer filled up once (held ACKs); the ACK of its tail reopened the input LAT_FREE later
    (c_full, _) = b.ack_hs[0]
    assert not b.tready[c_full] and not b.tready[c_full + LAT_FREE - 1] and b.tready[c_full + LAT_FREE]


@cocotb.test()
async def nack_early_timeout(dut):
    r, b = await setup(dut)
    p = params()
    b.words = [r.getrandbits(64) for _ in range(3 * WORDS)]
    b.word_p, b.take_p = 1.0, 1.0
    await b.pulse("start_pulse")
    await b.until(lambda: len(b.takes) == 3 and b.busy_left == 0)
    b.taking = False
    p0, p1, p2 = (t["pkt"] for t in b.takes)
    s0, s1, s2 = (t["seq"] for t in b.takes)
    # NACK p1: offered again LAT_NACK cycles after the handshake, reason nack
    b.ack(p1, s1, nack=1)
    await b.until(lambda: b.ack_hs)
    c = b.ack_hs[0][0]
    await ClockCycles(dut.clk, LAT_NACK + 2)
    assert b.avail_log.get(c + LAT_NACK) == (p1, R_NACK), (c, sorted(b.avail_log.items())[-8:])
    assert c + LAT_NACK - 1 not in b.avail_log
    assert events_at(b, "ev_nack") == [c + LAT_ACK]
    b.taking = True
    await b.until(lambda: len(b.takes) == 4 and b.busy_left == 0)
    b.taking = False
    s1b = b.takes[3]["seq"]
    assert b.takes[3]["pkt"] == p1 and b.takes[3]["reason"] == R_NACK
    # ACK p2 with seq s2: p0 (seq s0, older) is resent early; p1 (resent with s1b, newer) is not
    b.ack(p2, s2)
    await b.until(lambda: len(b.ack_hs) == 2)
    await ClockCycles(dut.clk, 10)
    b.taking = True
    await b.until(lambda: len(b.takes) == 5 and b.busy_left == 0)
    assert (b.takes[4]["pkt"], b.takes[4]["reason"]) == (p0, R_EARLY)
    await ClockCycles(dut.clk, 10)
    assert len(b.takes) == 5, "p1 was not older than the ACK's seq: no early retransmission"
    b.ack(p0, b.takes[4]["seq"])
    await b.until(lambda: len(b.ack_hs) == 3)
    # p1 is never ACKed: retransmitted on timeout, TIMEOUT .. TIMEOUT + 2^N + 4 cycles after its
    # last transmission (the scan visits one slot per cycle)
    await b.until(lambda: len(b.takes) == 6, limit=p["TIMEOUT"] + 200)
    t = b.takes[5]
    assert (t["pkt"], t["reason"]) == (p1, R_TIMEOUT)
    age = t["cycle"] - b.takes[3]["cycle"]
    assert p["TIMEOUT"] <= age <= p["TIMEOUT"] + 2**b.n + 4, age
    assert s1b != t["seq"]


@cocotb.test()
async def timeout_take_during_evaluation(dut):
    """A packet that is never ACKed times out again and again; each retransmission is taken 0, 1,
    .., 2^N - 1 cycles after it is offered, so one of them lands in the cycle in which the scan
    evaluates that slot's (now stale) transmission time: it must not be marked again at once.
    Every timeout retransmission comes TIMEOUT .. TIMEOUT + 2^N + 4 cycles after the one before."""
    r, b = await setup(dut)
    p = params()
    m = 2**b.n
    b.words = [r.getrandbits(64) for _ in range(WORDS)]
    b.word_p, b.take_p = 1.0, 1.0
    await b.pulse("start_pulse")
    await b.until(lambda: len(b.takes) == 1 and b.busy_left == 0)
    for d in range(m):
        b.take_delay = d
        await b.until(lambda: len(b.takes) == d + 2, limit=p["TIMEOUT"] + 200)
    await ClockCycles(dut.clk, 2 * m + 20)
    assert len(b.takes) == m + 1, [(t["cycle"], t["reason"]) for t in b.takes]
    for prev, t in zip(b.takes, b.takes[1:]):
        assert (t["pkt"], t["reason"]) == (b.takes[0]["pkt"], R_TIMEOUT)
        age = t["cycle"] - prev["cycle"]
        assert p["TIMEOUT"] <= age <= p["TIMEOUT"] + m + 4 + m, \
            f"retransmitted {age} cycles after the one before: {[(t['cycle'], t['reason']) for t in b.takes]}"


PARAMS = [
    {"N": 2, "TIMEOUT": 9000},
    {"N": 3, "TIMEOUT": 12000, "PKT_INIT": 2**32 - 3, "SEQ_INIT": 0xFFFE},
]


def test_fade_desc():
    for p in PARAMS:
        runner.run("fp_fade_desc", __name__, p)
