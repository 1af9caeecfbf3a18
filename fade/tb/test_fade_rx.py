"""fp_fade_rx: random good and bad frames (ACK, NACK with 1..10 ACK records, records cut by the
frame's end or ended by another type, START, STOP, RESET, user commands; bad FCS, foreign or
broadcast destination, wrong Ethertype/version, short, unknown codes) with random gaps and random
backpressure on the ACK and command FIFOs, checked against a Python model of the receiver
(fastpath.fade.model.ack_records for the records); every pulse, event and (idle FIFO) output
exactly 2 cycles after the tlast beat."""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSource

from fastpath import formats
from fastpath.fade import model as FM
from fastpath.sim import runner
from fastpath.sim.axis import frame
from fastpath.sim.tb import high, params, pauses, rng, start


F = formats.load("fade")
CTL_CODES = (F.const["cmd_start"], F.const["cmd_stop"])
C = F.const
ME = 0x02_12_34_56_78_9A
BCAST = 0xFFFF_FFFF_FFFF
LATENCY = 2  # tlast beat -> pulses, ev_*, FIFO output of an empty FIFO


def pad(b: bytes, r) -> bytes:
    """Ethernet minimum 60 bytes (no FCS) most of the time, sometimes the bare frame."""
    return b if r.random() < 0.2 else b + bytes(max(0, 60 - len(b)))


def random_frame(r, csns):
    """(bytes, bad_fcs) of a random frame; csns: recently used csn values (to make repeats)."""
    hdr = dict(dst=ME, src=r.getrandbits(48) & ~(1 << 40), ethertype=C["ethertype"], version=C["version"])
    kind = r.choice(["ack", "ack", "ack", "cmd", "cmd", "cmd", "reset", "junk"])
    if kind == "ack":
        n = r.choice([1, 1, 2, 3, r.randint(1, 10), FM.ACK_RECORDS_MAX, FM.ACK_RECORDS_MAX + 1])
        recs = [(r.getrandbits(16), r.getrandbits(32), r.getrandbits(32), r.random() < 0.3) for _ in range(n)]
        b = bytearray(FM.acks_frame(hdr["dst"], hdr["src"], recs[:FM.ACK_RECORDS_MAX]))
        if n > FM.ACK_RECORDS_MAX:
            b += bytes(b[-FM.ACK_RECORD_LEN:])          # one record past the limit
        if n > 1 and r.random() < 0.2:                  # a later record of another type ends them
            i = r.randrange(1, n)
            off = FM.ACK_OFF + FM.ACK_RECORD_LEN * i
            b[off:off + 2] = r.choice([0, C["type_data"], C["type_ack"] ^ 0x100]).to_bytes(2, "big")
        if r.random() < 0.15:                           # cut inside or at the end of a record
            b = b[:r.randint(F.layout("ack").length, len(b))]
        elif r.random() < 0.3:
            b = b[:F.layout("ack").length + FM.ACK_RECORD_LEN * (n - 1)]   # bare, no padding
        b = bytes(b)
        lim = F.layout("ack").length
    else:
        if kind == "reset":
            code = C["cmd_reset"]
            if r.random() < 0.5:
                hdr["dst"] = BCAST
        elif kind == "junk":  # unknown codes
            code = r.choice([C["cmd_none"], 6, 255, C["cmd_user_max"] + 1, 0xFFFF])
        else:
            code = r.choice([C["cmd_start"], C["cmd_stop"], r.randint(C["cmd_user_min"], C["cmd_user_max"]),
                             C["cmd_user_min"], C["cmd_user_max"]])
        csn = r.choice(csns) if csns and r.random() < 0.4 else r.getrandbits(16)
        csns[:] = (csns + [csn])[-3:]
        b = F.layout("cmd").pack(**hdr, cmd=code, csn=csn, arg=r.getrandbits(32))
        lim = F.layout("cmd").length
    b = bytearray(pad(b, r))
    x = r.random()
    if x < 0.05:
        b[0:6] = r.getrandbits(48).to_bytes(6, "big")  # foreign destination
    elif x < 0.08 and kind != "reset":
        b[0:6] = BCAST.to_bytes(6, "big")  # broadcast is only for RESET
    elif x < 0.11:
        b[12] ^= 1 << r.randrange(8)  # Ethertype
    elif x < 0.14:
        b[15] ^= 1 << r.randrange(8)  # version
    elif x < 0.18:
        b = b[:r.randint(1, lim - 1)]  # too short for its layout
    return bytes(b), r.random() < 0.08


class Model:
    """The receiver as documented: what each frame does (in order, no FIFO full)."""

    def __init__(self, records: int):
        self.records = records
        self.have_csn, self.last_csn, self.peer = False, 0, BCAST
        self.acks, self.cmds, self.events = [], [], []

    def frame(self, b: bytes, bad: bool):
        """Returns the set of pulse/event names this frame raises."""
        if bad:
            return {"ev_rx_bad_fcs", "ev_rx_drop"}
        if len(b) < 16:
            return {"ev_rx_drop"}
        h = F.layout("header").unpack(b)
        if h["ethertype"] != C["ethertype"] or h["version"] != C["version"]:
            return {"ev_rx_drop"}
        code = int.from_bytes(b[16:18], "big") if len(b) >= 18 else 0
        if code in (C["type_ack"], C["type_nack"]) and h["dst"] == ME and len(b) >= F.layout("ack").length:
            self.acks += [(nack, seq, pkt) for nack, seq, pkt, _ in FM.ack_records(b, self.records)]
            return set()
        if len(b) < F.layout("cmd").length:
            return {"ev_rx_drop"}
        c = F.layout("cmd").unpack(b)
        if code == C["cmd_reset"] and h["dst"] in (ME, BCAST):
            self.have_csn = False
            return {"reset_pulse"}
        user = C["cmd_user_min"] <= code <= C["cmd_user_max"]
        if h["dst"] != ME or not (code in (C["cmd_start"], C["cmd_stop"]) or user):
            return {"ev_rx_drop"}
        dup = int(self.have_csn and c["csn"] == self.last_csn)
        self.have_csn, self.last_csn = True, c["csn"]
        self.cmds.append((dup, code, c["csn"], c["arg"]))
        if code == C["cmd_start"]:
            self.peer = h["src"]  # learned on every START queued (a repeat carries the same source)
        if dup:
            return set()
        return {"start_pulse"} if code == C["cmd_start"] else {"stop_pulse"} if code == C["cmd_stop"] else set()


PULSES = ["start_pulse", "stop_pulse", "reset_pulse", "ev_rx_bad_fcs", "ev_rx_drop"]


class Bench:
    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_eth"), dut.clk, dut.rst)
        dut.cfg_local_mac.value = ME
        dut.ack_ready.value = 0
        dut.cmd_ready.value = 0
        self.p_ack = self.p_cmd = 0.0  # probability of holding ready low
        self.cycle = 0
        self.tlast, self.events, self.acks, self.cmds = [], [], [], []
        self.ack_first, self.cmd_first = [], []  # cycle each entry was first seen at the output

    def begin(self):
        cocotb.start_soon(self._run())

    async def _run(self):
        d = self.dut
        ack_seen = cmd_seen = False
        while True:
            await FallingEdge(d.clk)
            self.cycle += 1
            c = self.cycle
            if high(d.s_eth_tvalid) and high(d.s_eth_tlast):
                self.tlast.append(c)
            for name in PULSES:
                if high(getattr(d, name)):
                    self.events.append((c, name, int(d.peer_mac.value)))
            if high(d.ack_valid):
                if not ack_seen:
                    self.ack_first.append(c)
                ack_seen = True
                take = self.r.random() >= self.p_ack
                if take:
                    self.acks.append((int(d.ack_nack.value), int(d.ack_seq.value), int(d.ack_pkt.value)))
                    ack_seen = False
                d.ack_ready.value = int(take)
            else:
                d.ack_ready.value = int(self.r.random() < 0.5)  # ready without valid: harmless
            if high(d.cmd_valid):
                if not cmd_seen:
                    self.cmd_first.append(c)
                cmd_seen = True
                take = self.r.random() >= self.p_cmd
                if take:
                    assert int(d.cmd_ctl.value) == int(int(d.cmd_code.value) in (CTL_CODES))
                    self.cmds.append((int(d.cmd_dup.value), int(d.cmd_code.value), int(d.cmd_csn.value),
                                      int(d.cmd_arg.value)))
                    cmd_seen = False
                d.cmd_ready.value = int(take)
            else:
                d.cmd_ready.value = int(self.r.random() < 0.5)

    async def send(self, b: bytes, bad: bool):
        await self.source.send(frame(b, bad=bad))

    async def idle(self):
        await self.source.wait()
        await ClockCycles(self.dut.clk, LATENCY + 1)  # the last frame has reached the FIFOs
        while high(self.dut.ack_valid) or high(self.dut.cmd_valid):
            await ClockCycles(self.dut.clk, 1)
        await ClockCycles(self.dut.clk, 2)


async def setup(dut):
    r = rng()
    b = Bench(dut, r)
    await start(dut)
    b.begin()
    return r, b


async def random_run(dut, gap_p, ready_p, n):
    r, b = await setup(dut)
    if gap_p:
        b.source.set_pause_generator(pauses(r, gap_p))
    b.p_ack = b.p_cmd = ready_p
    p = params()
    depth, records = p.get("ACK_DEPTH", 16), p.get("ACK_RECORDS", 8)
    m = Model(records)
    csns = []
    expected_events = []  # per frame, the set of pulses
    queued = []  # per frame: ("ack", index of its first record), ("cmd", index) or None
    for _ in range(n):
        data, bad = random_frame(r, csns)
        if not bad and len(data) >= 18 and int.from_bytes(data[16:18], "big") == C["cmd_reset"]:
            await b.idle()  # RESET empties the FIFOs: let the consumers drain them first
        na, nc = len(m.acks), len(m.cmds)
        if not bad and len(data) >= 18 and int.from_bytes(data[16:18], "big") in (C["type_ack"], C["type_nack"]):
            # the model has no FIFO-full case: wait until the frame's records surely fit
            # (records queued by the model and not yet taken at the output <= the free slots)
            while len(m.acks) - len(b.acks) + min(records, len(FM.ack_records(data, records))) > depth:
                await ClockCycles(dut.clk, 1)
        expected_events.append(m.frame(data, bad))
        queued.append(("ack", na) if len(m.acks) > na else ("cmd", nc) if len(m.cmds) > nc else None)
        await b.send(data, bad)
    await b.idle()
    assert b.acks == m.acks
    assert b.cmds == m.cmds
    assert len(b.tlast) == n
    got = {}
    for c, name, peer in b.events:
        got.setdefault(c, set()).add(name)
        if name == "start_pulse":
            assert peer != BCAST
    want = {t + LATENCY: ev for t, ev in zip(b.tlast, expected_events) if ev}
    assert got == want
    assert int(dut.peer_mac.value) == m.peer
    return b, [(t, q) for t, q in zip(b.tlast, queued)]


@cocotb.test()
async def random_frames(dut):
    """Random frames with random gaps, random FIFO backpressure: model match, latency 2 on pulses."""
    await random_run(dut, gap_p=0.3, ready_p=0.4, n=400)


@cocotb.test()
async def fifo_latency(dut):
    """Back-to-back frames, consumers always ready: each command and each ACK frame's first
    record at the FIFO output exactly 2 cycles after its tlast beat (or, if records of the frames
    before it are still queued, the cycle after the last of them), its other records in the
    cycles after it."""
    b, queued = await random_run(dut, gap_p=0.0, ready_p=0.0, n=300)
    acks = {i: t + LATENCY for t, q in queued if q and q[0] == "ack" for i in [q[1]]}
    cmds_t = [t + LATENCY for t, q in queued if q and q[0] == "cmd"]
    assert acks and cmds_t
    assert len(b.ack_first) == len(b.acks)
    want, t = [], -1
    for i in range(len(b.acks)):
        t = max(acks.get(i, -1), t + 1)
        want.append(t)
    assert b.ack_first == want
    assert b.cmd_first == cmds_t


@cocotb.test()
async def fifo_full_and_reset_flush(dut):
    """Bad input: ACKs / commands beyond a full FIFO are dropped (ev_rx_drop); a RESET empties the
    FIFOs and forgets the last csn (the same csn after it is not a repeat)."""
    r, b = await setup(dut)
    p = params()
    b.p_ack = b.p_cmd = 1.0  # nobody takes anything
    hdr = dict(dst=ME, src=0x0A0B0C0D0E0F, ethertype=C["ethertype"], version=C["version"])
    acks = [(0, r.getrandbits(16), r.getrandbits(32)) for _ in range(p.get("ACK_DEPTH", 16) + 3)]
    for _, seq, pkt in acks:
        await b.send(pad(F.layout("ack").pack(**hdr, type=C["type_ack"], seq=seq, pkt=pkt, delay=0), r), False)
    ncmd = p.get("CMD_DEPTH", 4)
    cmds = [(0, C["cmd_user_min"] + i, 100 + i, r.getrandbits(32)) for i in range(ncmd + 2)]
    for _, code, csn, arg in cmds:
        await b.send(pad(F.layout("cmd").pack(**hdr, cmd=code, csn=csn, arg=arg), r), False)
    await b.source.wait()
    await ClockCycles(dut.clk, 5)
    drops = [e for e in b.events if e[1] == "ev_rx_drop"]
    assert len(drops) == 3 + 2
    b.p_ack = b.p_cmd = 0.0
    while high(dut.ack_valid) or high(dut.cmd_valid):
        await ClockCycles(dut.clk, 1)
    assert b.acks == [(n, s, k) for n, s, k in acks[:p.get("ACK_DEPTH", 16)]]
    assert b.cmds == cmds[:ncmd]
    # refill, then RESET: the queued entries vanish; the last csn is forgotten
    b.p_ack = b.p_cmd = 1.0
    b.acks.clear()
    b.cmds.clear()
    await b.send(pad(F.layout("ack").pack(**hdr, type=C["type_nack"], seq=1, pkt=2, delay=0), r), False)
    await b.send(pad(F.layout("cmd").pack(**hdr, cmd=C["cmd_start"], csn=7, arg=0), r), False)
    await b.send(pad(F.layout("cmd").pack(**{**hdr, "dst": BCAST}, cmd=C["cmd_reset"], csn=0, arg=0), r), False)
    await b.source.wait()
    await ClockCycles(dut.clk, 4)
    assert not high(dut.ack_valid) and not high(dut.cmd_valid)
    b.p_ack = b.p_cmd = 0.0
    await b.send(pad(F.layout("cmd").pack(**hdr, cmd=C["cmd_start"], csn=7, arg=0), r), False)
    await b.idle()
    assert b.acks == [] and b.cmds == [(0, C["cmd_start"], 7, 0)]


@cocotb.test()
async def records_partly_free(dut):
    """Bad input: an ACK frame whose records do not all find a free slot publishes none of them
    (dropped and counted, as a lost ACK frame); the free slots are still free afterwards. A cut
    last record (not in the frame) that finds no slot does not drop the frame."""
    r, b = await setup(dut)
    p = params()
    depth, records = p.get("ACK_DEPTH", 16), p.get("ACK_RECORDS", 8)
    b.p_ack = 1.0
    hdr = dict(dst=ME, src=0x0A0B0C0D0E0F)
    first = [(i, 1000 + i, 0, False) for i in range(depth - records + 1)]
    for i in range(0, len(first), records):
        await b.send(FM.acks_frame(**hdr, records=first[i:i + records]), False)
    batch = [(100 + i, 2000 + i, 0, i % 2 == 1) for i in range(records)]
    await b.send(FM.acks_frame(**hdr, records=batch), False)     # one record too many for the room
    await b.source.wait()
    await ClockCycles(dut.clk, 5)
    assert [e[1] for e in b.events] == ["ev_rx_drop"]
    b.p_ack = 0.0
    await b.idle()
    assert b.acks == [(0, s, k) for s, k, _, _ in first]
    b.acks.clear()
    await b.send(FM.acks_frame(**hdr, records=batch), False)     # now it fits
    await b.idle()
    assert b.acks == [(int(n), s, k) for s, k, _, n in batch]
    # one free slot, and a frame of record 0 plus only the first 8 bytes of record 1: record 1 is
    # not in the frame, so its missing slot does not drop the frame; record 0 is published
    b.acks.clear()
    b.events.clear()
    b.p_ack = 1.0
    fill = [(i, 3000 + i, 0, False) for i in range(depth - 1)]
    for i in range(0, len(fill), records):
        await b.send(FM.acks_frame(**hdr, records=fill[i:i + records]), False)
    cut = FM.acks_frame(**hdr, records=[(7, 4000, 0, False), (8, 4001, 0, False)])[:FM.ACK_OFF + FM.ACK_RECORD_LEN + 8]
    assert FM.ack_records(cut) == [(0, 7, 4000, 0)]
    await b.send(cut, False)
    await b.source.wait()
    await ClockCycles(dut.clk, 5)
    assert b.events == []
    b.p_ack = 0.0
    await b.idle()
    assert b.acks == [(0, s, k) for s, k, _, _ in fill] + [(0, 7, 4000)]


@pytest.mark.parametrize("records,depth", [(8, 16), (3, 4), (1, 2)])
def test_fade_rx(records, depth):
    runner.run("fp_fade_rx", __name__, {"ACK_RECORDS": records, "ACK_DEPTH": depth})
