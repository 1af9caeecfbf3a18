"""fp_fade_tx: random packets (new/retransmitted, data/LAST) and responses offered at random times,
random MAC backpressure, a Python packet RAM with the 2-cycle read of fp_ram_sdp OUT_REG = 1; frames
checked byte for byte against the frame formats, the delay adaptation against a Python model,
first beat exactly 2 cycles after the choice (tx_take), one beat per cycle within a frame and the
inter-frame gap (delay + 1 idle cycles) with the MAC always ready, and abort (frames after it
intact)."""
import cocotb
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamSink

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.axis import last_user
from fastpath.sim.tb import high, params, pauses, rng, start

F = formats.load("fade")
C = F.const
WORDS = C["words_per_packet"]
DATA_OFF = F.layout("data").field("data").offset if hasattr(F.layout("data"), "field") else 40
ME, PEER = 0x02_00_00_00_00_01, 0x02_AA_BB_CC_DD_EE
LATENCY = 2  # tx_take high in cycle c -> first beat valid in cycle c + 2
R_NEW, R_EARLY, R_NACK, R_TIMEOUT = 0, 1, 2, 3
PERIOD_NS = 5  # fastpath.sim.tb.start's clock


def now() -> int:
    """Cycle index of the current falling edge (the same in every coroutine resumed there)."""
    return int(get_sim_time(unit="ns") // PERIOD_NS)


EVENTS = ["ev_tx_data", "ev_tx_early", "ev_tx_nack", "ev_tx_timeout"]


def ram_word(addr: int) -> int:
    return (addr * 0x9E3779B97F4A7C15 + 0x1234567) & (2**64 - 1)


def data_frame(p, delay, resp):
    """Expected bytes of a data/LAST frame for offered packet p with the current delay."""
    n = params()["N"]
    rc, rs, rv = resp if resp else (C["cmd_none"], 0, 0)
    hdr = F.layout("data").pack(dst=PEER, src=ME, ethertype=C["ethertype"], version=C["version"],
                                type=C["type_last" if p["last"] else "type_data"], seq=p["seq"], pkt=p["pkt"],
                                delay=delay, resp_cmd=rc, resp_csn=rs, resp_val=rv)[:DATA_OFF]
    body = bytearray()
    for w in range(WORDS):
        v = ram_word((p["slot"] << 10) | w) if not p["last"] or w < p["nwords"] else 0
        body += v.to_bytes(8, "little")
    if p["last"]:
        body[-8:] = p["nwords"].to_bytes(8, "little")
    assert p["slot"] < 2**n
    return hdr + bytes(body)


def resp_frame(resp):
    b = F.layout("resp").pack(dst=PEER, src=ME, ethertype=C["ethertype"], version=C["version"],
                              type=C["type_resp"], resp_cmd=resp[0], resp_csn=resp[1], resp_val=resp[2])
    return b + bytes([C["filler"]]) * (60 - len(b))


class DelayModel:
    def __init__(self, p):
        self.p = p
        self.delay, self.frames, self.retx = p["DA_INIT"], 0, 0

    def take(self, reason):
        """Delay in the frame's header (before the update), then update as documented."""
        hdr = self.delay
        total = self.retx + (reason != R_NEW)
        if self.frames + 1 >= self.p["DA_WINDOW"]:
            self.frames = self.retx = 0
            if total > self.p["DA_HI"]:
                self.delay = min(self.delay + self.p["DA_STEP"], self.p["DA_MAX"])
            elif total < self.p["DA_LO"]:
                self.delay = max(self.delay - self.p["DA_STEP"], self.p["DA_MIN"])
        else:
            self.frames, self.retx = self.frames + 1, total
        return hdr


class Bench:
    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_eth"), dut.clk, dut.rst)
        dut.cfg_local_mac.value = ME
        dut.peer_mac.value = PEER
        dut.tx_abort.value = 0
        self.idle_inputs()
        dut.ram_rdata.value = 0
        self.starts, self.ends, self.takes = [], [], []  # cycles: first valid, last beat, choice

    def idle_inputs(self):
        d = self.dut
        d.tx_avail.value = 0
        d.rsp_valid.value = 0
        for s in ("tx_pkt", "tx_slot", "tx_last", "tx_nwords", "tx_reason", "tx_seq", "rsp_code", "rsp_csn",
                  "rsp_value"):
            getattr(d, s).value = 0

    def begin(self):
        cocotb.start_soon(self._ram())
        cocotb.start_soon(self._mon())

    async def _ram(self):
        """fp_ram_sdp with OUT_REG = 1 (as fp_fade_core has it): a read sampled at the edge where ren is
        high shows on rdata after the next edge; rdata holds otherwise."""
        d = self.dut
        pending = None  # the word read at the previous edge (in the RAM's read register)
        while True:
            await FallingEdge(d.clk)  # ren / raddr settled (the sink drives tready at the edge)
            nxt = ram_word(int(d.ram_raddr.value)) if high(d.ram_ren) else None
            await RisingEdge(d.clk)
            if pending is not None:
                d.ram_rdata.value = pending
            pending = nxt

    async def _mon(self):
        d = self.dut
        in_frame = False
        while True:
            await FallingEdge(d.clk)
            if high(d.m_eth_tvalid):
                if not in_frame:
                    self.starts.append(now())
                    in_frame = True
                if high(d.m_eth_tready) and high(d.m_eth_tlast):
                    self.ends.append(now())
                    in_frame = False

    async def drive(self, items, avail_p):
        """Offer `items` (("pkt", dict) or ("rsp", tuple)) in order; a response is offered together
        with the next packet when both are pending (it rides in that data frame). Returns the
        expected frames and the choice cycles."""
        d, r = self.dut, self.r
        model = DelayModel(params())
        expected = []
        pkts = [x for k, x in items if k == "pkt"]
        rsps = [x for k, x in items if k == "rsp"]
        order = list(items)
        offered_pkt = offered_rsp = None
        while order or offered_pkt or offered_rsp:
            await FallingEdge(d.clk)
            # what happened at the edge just passed (inputs set at the previous falling edge)
            ev = [i for i, e in enumerate(EVENTS) if high(getattr(d, e))]
            if ev or high(d.ev_tx_resp):
                self.takes.append(now() - 1)
                if ev:
                    assert ev == [offered_pkt["reason"]]
                    delay = model.take(offered_pkt["reason"])
                    expected.append(data_frame(offered_pkt, delay, offered_rsp))
                    offered_pkt = None
                else:
                    assert offered_rsp is not None
                    expected.append(resp_frame(offered_rsp))
                offered_rsp = None
            # next offer: in item order; sometimes nothing
            if offered_pkt is None and offered_rsp is None and order and r.random() >= avail_p:
                k, x = order.pop(0)
                if k == "rsp":
                    offered_rsp = x
                    if order and order[0][0] == "pkt" and r.random() < 0.5:
                        offered_pkt = order.pop(0)[1]
                else:
                    offered_pkt = x
            d.tx_avail.value = int(offered_pkt is not None)
            if offered_pkt:
                p = offered_pkt
                d.tx_pkt.value, d.tx_slot.value, d.tx_last.value = p["pkt"], p["slot"], int(p["last"])
                d.tx_nwords.value, d.tx_reason.value, d.tx_seq.value = p["nwords"], p["reason"], p["seq"]
            d.rsp_valid.value = int(offered_rsp is not None)
            if offered_rsp:
                d.rsp_code.value, d.rsp_csn.value, d.rsp_value.value = offered_rsp
        return expected, model


def random_items(r, n, p_rsp=0.25):
    slots = 2**params()["N"]
    items = []
    for i in range(n):
        if r.random() < p_rsp:
            items.append(("rsp", (r.randint(C["cmd_user_min"], C["cmd_user_max"]), r.getrandbits(16),
                                  r.getrandbits(64))))
        last = r.random() < 0.3
        items.append(("pkt", dict(pkt=r.getrandbits(32), slot=r.randrange(slots), last=last,
                                  nwords=r.choice([0, 1, 5, 1023, r.randrange(1024)]) if last else 0,
                                  reason=r.choice([R_NEW, R_NEW, R_EARLY, R_NACK, R_TIMEOUT]),
                                  seq=r.getrandbits(16))))
    return items


async def setup(dut):
    r = rng()
    b = Bench(dut, r)
    await start(dut)
    b.begin()
    return r, b


async def collect(b, n):
    got = []
    for _ in range(n):
        got.append(await b.sink.recv())
    return got


@cocotb.test()
async def random_frames(dut):
    """Random offers, random MAC backpressure: every frame as specified, latency 2 from choice."""
    r, b = await setup(dut)
    b.sink.set_pause_generator(pauses(r, 0.3))
    items = random_items(r, 14)
    expected, _ = await b.drive(items, avail_p=0.5)
    got = await collect(b, len(expected))
    # every packet went out once; a response either rode in a data frame or had its own
    assert sum(len(e) > 60 for e in expected) == sum(k == "pkt" for k, _ in items)
    rsp_in = [F.layout("data").unpack(e)["resp_csn"] if len(e) > 60 else F.layout("resp").unpack(e)["resp_csn"]
              for e in expected if len(e) == 60 or F.layout("data").unpack(e)["resp_cmd"] != C["cmd_none"]]
    assert rsp_in == [x[1] for k, x in items if k == "rsp"]
    for i, (g, e) in enumerate(zip(got, expected)):
        assert bytes(g.tdata) == e, f"frame {i}"
        assert last_user(g) == 0
    assert [s - t for s, t in zip(b.starts, b.takes)] == [LATENCY] * len(expected)


@cocotb.test()
async def delay_and_gap(dut):
    """MAC always ready, packets always offered: delay adaptation as the model, the header carries
    the delay, and the next frame's first beat comes delay + 2 cycles after the previous last beat."""
    r, b = await setup(dut)
    # phases: many retransmissions (delay grows to DA_MAX), then none (shrinks to DA_MIN)
    items = [(k, x) for k, x in random_items(r, 30, p_rsp=0.1)]
    for i, (k, x) in enumerate(items):
        if k == "pkt":
            x["last"], x["nwords"] = False, 0
            x["reason"] = r.choice([R_EARLY, R_NACK, R_TIMEOUT]) if i < len(items) // 2 else R_NEW
    expected, model = await b.drive(items, avail_p=0.0)
    got = await collect(b, len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert bytes(g.tdata) == e, f"frame {i}"
    delays = [F.layout("data").unpack(bytes(g.tdata))["delay"] for g in got if len(g.tdata) > 60]
    p = params()
    assert p["DA_MAX"] in delays and delays[-1] < p["DA_MAX"], delays
    assert [s - t for s, t in zip(b.starts, b.takes)] == [LATENCY] * len(expected)
    # one beat per cycle within a frame (no bubble while the packet RAM reader runs ahead)
    assert [e - s for s, e in zip(b.starts, b.ends)] == [(len(g.tdata) + 7) // 8 - 1 for g in got]
    # inter-frame gap: delay (as in force when the frame ended = the next header's delay) + 2
    hdr_delay = [F.layout("data").unpack(bytes(g.tdata))["delay"] if len(g.tdata) > 60 else None for g in got]
    gaps = [(b.starts[i + 1] - b.ends[i], hdr_delay[i + 1]) for i in range(len(got) - 1) if hdr_delay[i + 1] is not None]
    assert all(g == d + 2 for g, d in gaps), gaps
    assert model.delay == int(dut.delay.value)


@cocotb.test()
async def abort_mid_frame(dut):
    """tx_abort: the frame in progress ends on its next beat with tlast and tuser[0] = 1; the frames
    after it are complete and right."""
    r, b = await setup(dut)
    b.sink.set_pause_generator(pauses(r, 0.3))
    items = random_items(r, 1, p_rsp=0.0)
    cocotb.start_soon(b.drive(items, avail_p=0.0))
    await ClockCycles(dut.clk, r.randint(20, 400))
    await FallingEdge(dut.clk)
    dut.tx_abort.value = 1
    await FallingEdge(dut.clk)
    dut.tx_abort.value = 0
    (g,) = await collect(b, 1)
    assert last_user(g) == 1 and len(g.tdata) < 8232
    assert int(dut.delay.value) == params()["DA_INIT"]
    # the reader's words of the aborted frame are dropped: the next frames are intact
    items = random_items(r, 4)
    expected, _ = await b.drive(items, avail_p=0.3)
    got = await collect(b, len(expected))
    for i, (g, e) in enumerate(zip(got, expected)):
        assert bytes(g.tdata) == e, f"frame {i} after the abort"
        assert last_user(g) == 0


@cocotb.test()
async def abort_at_frame_end(dut):
    """tx_abort in each cycle around the end of a frame (MAC always ready): that frame completes
    or ends aborted, and the next frame is always complete and right. (An abort in the very cycle
    that produced a frame's last beat used to stay pending and cut the next frame to one beat.)"""
    r, b = await setup(dut)

    def rsp():
        return ("rsp", (C["cmd_user_min"], r.getrandbits(16), r.getrandbits(64)))

    await b.drive([rsp()], avail_p=0.0)
    (g,) = await collect(b, 1)
    beats = (len(g.tdata) + 7) // 8
    for k in range(-3, 4):
        await b.drive([rsp()], avail_p=0.0)
        target = b.takes[-1] + beats + k
        while now() < target:
            await FallingEdge(dut.clk)
        dut.tx_abort.value = 1
        await FallingEdge(dut.clk)
        dut.tx_abort.value = 0
        await collect(b, 1)             # the frame the abort met: complete or aborted
        expected, _ = await b.drive([rsp()], avail_p=0.0)
        (g,) = await collect(b, 1)
        assert bytes(g.tdata) == expected[0], f"frame after an abort at offset {k}"
        assert last_user(g) == 0, f"frame after an abort at offset {k}"


DA = {"DA_WINDOW": 4, "DA_HI": 2, "DA_LO": 1, "DA_STEP": 3, "DA_MIN": 1, "DA_MAX": 10, "DA_INIT": 4}


def test_fade_tx():
    runner.run("fp_fade_tx", __name__, {"N": 2, **DA})
