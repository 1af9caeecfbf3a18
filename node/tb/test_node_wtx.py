"""fp_node_wtx: buffer reads, releases, VLAN edits and the byte stream to a MAC, against models.

A behavioural model of fp_node_wbuf's read port answers the reads: frames are Python words in random
segment chains (a tail's next[] and a freed segment's point at one of 8 segments never allocated),
a request is granted when it is seen with rd_ready high (rd_ready random, or held low to the 15th
cycle of waiting: the worst arbitration of 16 readers; never later), and the response comes a
fixed number of cycles after the grant (the DUT's RD_LATENCY, unless a test makes the buffer
late). Released frames are scribbled over at once, so a word read after its frame's release
would show; a word read twice fails. The MAC side is a model of fp_eth_mac_1g_tx's s_axis, driven
by the test's loop (a pause generator of cocotbext-axi's AxiStreamSink cannot follow the MAC's
state cycle for cycle): tready low for the 7 preamble cycles after the MAC first sees tvalid, then
high every cycle to tlast (an empty cycle in between is its underrun), then low for the 4 FCS and
12 gap cycles. fastpath's cycle-stamped BeatMonitor and cocotbext-axi's AxiStreamMonitor both
record the frames (60..1518 bytes, some bad, random VLAN edits and ts_insert; short and chain-cut
frames in bad_frames), compared byte for byte with `edit` below. One loop drives and samples every
signal once per cycle (ReadOnly), so the header's latencies are asserted exactly:
  - descriptor accepted in cycle a -> word 0's request shown in a + 2;
  - release rule true in cycle T -> first byte valid in T + 2 (strip too: its rule is taken as met
    in T - 4, its G is T - 3); store-and-forward or
    rule already true: in r + 3 (strip r + 7), r = the cycle of word 0's response;
  - word k >= 1 requested first in cycle G + 16k + 7 - TURN (insert: + 4 for k >= 2), G = T + 1
    (r + 2), TURN = 15 + RD_LATENCY + 1, and never granted earlier;
  - frames back to back: each starts in the MAC's first idle cycle after the previous one's gap,
    or 3 cycles (strip 7) after its word 0, requested as soon as the previous frame was read;
  - grants at the worst wait (15 cycles) give no underrun; a buffer one cycle late gives one per
    frame, counted by ev_underrun, the frames still whole and released after their last word.
"""
import collections

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamMonitor

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.axis import last_user
from fastpath.sim.monitor import BeatMonitor, high, uint
from fastpath.sim.tb import params, random_bytes, rng

NW = formats.load("node_word")
NONE, STRIP, INSERT, REWRITE = range(4)
MAC_PRE = 8          # tvalid first seen in cycle c -> first byte taken in c + 8
MAC_GAP = 16         # tlast taken in cycle d -> the MAC looks at tvalid again from d + 17
WAIT_MAX = 15        # the longest a request waits for its grant (16 readers, round robin)
MASK24 = (1 << 24) - 1


def edit(f: bytes, op: int, tci: int) -> bytes:
    """The frame fp_node_wtx sends for f with VLAN edit op (its header: short frames included)."""
    t = tci.to_bytes(2, "big")
    if op == STRIP:
        return f[:12] + f[16:]
    if op == INSERT:
        return f[:12] + b"\x81\x00" + t + f[12:] if len(f) >= 12 else f
    if op == REWRITE:
        return (f[:14] + t + f[16:])[:len(f)]
    return f


class Tb:
    def __init__(self, dut, r, wait="random", late=0):
        p = params()
        self.dut, self.r = dut, r
        self.sw = p.get("SEG_WORDS", 4)
        self.nseg = p.get("SEGMENTS", 1024)
        self.lat = p.get("RD_LATENCY", 4)
        self.max_words = p.get("MAX_WORDS", 96)
        self.turn = WAIT_MAX + self.lat + 1
        self.rsp_lat = self.lat + late
        self.wait = wait
        # segments 0..7 are never allocated: stale next[] pointers (a tail's, a freed segment's)
        # point there, so a read past a frame's end never hits another frame's word
        self.free = list(range(8, self.nseg))
        r.shuffle(self.free)
        self.mem = {}                   # (seg, word) -> (data, user)
        self.nxt = {}                   # seg -> seg
        self.where = {}                 # (seg, word) -> (frame id, word index)
        self.frames = []                # in descriptor order
        self.by_id = {}
        self.desc_q = collections.deque()
        self.driving = None
        self.rsp = {}                   # cycle -> (data, user, seg, (fid, k))
        self.req_since = None
        self.req_first = {}             # (fid, k) -> first cycle the request was shown
        self.grant = {}                 # (fid, k) -> grant cycle
        self.rsp_cycle = {}             # (fid, k) -> response cycle
        self.overreads = collections.Counter()
        self.hist = []
        self.grant_cycles = set()
        self.releases = []
        self.rel_next = 0
        self.out_next = 0
        self.cycle = 0
        self.now0 = (1 << 24) - r.randrange(8 * 30000)   # now_ns wraps during most tests
        self.rel_p = 0.7
        # MAC model
        self.mac_state = "idle"
        self.mac_idle_from = 0
        self.mac_data_from = 0
        self.mac_ready = 0
        self.mac_under = 0
        self.mac_under_frame = False
        self.mac_starts = []            # (cycle the MAC saw tvalid, its first idle cycle)
        self.ev = collections.Counter()
        self.mon = BeatMonitor(dut, "m_axis", extra=("ts_insert",), check=True)
        self.mon.on_frame(self._check_frame)
        # cocotbext-axi's passive monitor on the same bus: its frames are compared at the end
        self.axis_mon = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)

    # ---- setup ----------------------------------------------------------------------------------

    async def start(self, release_ns=0):
        dut = self.dut
        for s in ("s_desc_valid", "s_desc_head", "s_desc_ts", "s_desc_sf", "s_desc_vlan_op",
                  "s_desc_tci", "s_desc_ts_insert", "rd_ready", "rsp_valid", "rsp_data", "rsp_user",
                  "rsp_seg", "rel_ready", "m_axis_tready", "now_ns"):
            getattr(dut, s).value = 0
        dut.cfg_release_ns.value = release_ns
        self.release_ns = release_ns
        cocotb.start_soon(Clock(dut.clk, 8, unit="ns").start())
        dut.rst.value = 1
        for _ in range(5):
            await RisingEdge(dut.clk)
        dut.rst.value = 0
        cocotb.start_soon(self._loop())

    def now(self, c):
        return (self.now0 + 8 * c) & MASK24

    # ---- frames in the buffer model -------------------------------------------------------------

    def frame(self, n=None, op=None, sf=0, bad=None, cut=False, data=None):
        r = self.r
        if data is None:
            data = random_bytes(r, n if n is not None else r.randint(60, 1518))
        op = r.randrange(4) if op is None else op
        bad = int(r.random() < 0.2) if bad is None else bad
        fid = len(self.frames)
        words = [data[i:i + 16] for i in range(0, len(data), 16)]
        if cut:                          # no last bit: the DUT takes word MAX_WORDS - 1 as the last
            words += [random_bytes(r, 16) for _ in range(self.max_words + 8 - len(words))]
        nsegs = -(-len(words) // self.sw)
        segs = [self.free.pop() for _ in range(nsegs)]
        for i, s in enumerate(segs):
            self.nxt[s] = segs[i + 1] if i + 1 < nsegs else r.randrange(8)
        for k, w in enumerate(words):
            last = k == len(words) - 1 and not cut
            user = NW.pack(bad=bad if last else 0, last=int(last), nbytes_m1=len(w) - 1)
            key = (segs[k // self.sw], k % self.sw)
            self.mem[key] = (int.from_bytes(w.ljust(16, b"\0"), "little"), user)
            self.where[key] = (fid, k)
        if cut:
            data = b"".join(words[:self.max_words])
            bad = 1
        f = dict(id=fid, data=data, bad=bad, op=op, tci=r.randrange(1 << 16), tsi=int(r.random() < 0.3),
                 sf=sf, head=segs[0], segs=segs, nwords=min(len(words), self.max_words), ts=0,
                 T=None, acc=None, kind=None)
        f["expect"] = edit(data, op, f["tci"])
        self.frames.append(f)
        self.by_id[fid] = f
        return f

    def send(self, f, at=0, kind="sf", delay=0):
        """Queue f's descriptor from cycle `at`. kind: sf (store-and-forward), ct (the release
        rule becomes true `delay` cycles after the cycle the descriptor is first offered), late
        (the rule already holds then)."""
        f["kind"], f["at"], f["delay"] = kind, at, delay
        f["sf"] = int(kind == "sf")
        self.desc_q.append(f)

    # ---- the per-cycle loop ---------------------------------------------------------------------

    def _ready_for(self, c):
        if self.req_since is not None and c - self.req_since >= WAIT_MAX:
            return 1
        if self.wait == "worst":
            return 0
        if self.wait == "fast":
            return 1
        return int(self.r.random() < 0.35)

    async def _loop(self):
        dut, r = self.dut, self.r
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            c = self.cycle
            # ---- drive cycle c
            dut.now_ns.value = self.now(c)
            ready = self._ready_for(c)
            dut.rd_ready.value = ready
            rsp = self.rsp.pop(c, None)
            dut.rsp_valid.value = int(rsp is not None)
            if rsp is not None:
                dut.rsp_data.value, dut.rsp_user.value, dut.rsp_seg.value = rsp[:3]
                if rsp[3] is not None:
                    self.rsp_cycle[rsp[3]] = c
            else:
                dut.rsp_data.value = r.getrandbits(128)
            rel_ready = int(r.random() < self.rel_p)
            dut.rel_ready.value = rel_ready
            dut.m_axis_tready.value = self.mac_ready
            if self.driving is None and self.desc_q and self.desc_q[0]["at"] <= c:
                f = self.driving = self.desc_q.popleft()
                if f["kind"] == "ct":
                    f["T"] = c + f["delay"]
                    f["ts"] = (self.now(f["T"]) - self.release_ns) & MASK24
                elif f["kind"] == "late":
                    f["ts"] = (self.now(c) - self.release_ns - r.randrange(1000)) & MASK24
                else:
                    f["ts"] = r.randrange(1 << 24)
                dut.s_desc_valid.value = 1
                dut.s_desc_head.value = f["head"]
                dut.s_desc_ts.value = f["ts"]
                dut.s_desc_sf.value = f["sf"]
                dut.s_desc_vlan_op.value = f["op"]
                dut.s_desc_tci.value = f["tci"]
                dut.s_desc_ts_insert.value = f["tsi"]
                f["offered"] = c
            elif self.driving is None:
                dut.s_desc_valid.value = 0
            await ReadOnly()
            # ---- sample cycle c
            if self.driving is not None and high(dut.s_desc_ready):
                self.driving["acc"] = c
                self.driving = None
            if high(dut.rd_valid):
                if self.req_since is None:
                    self.req_since = c
                    self._req_key(c, first=True)
                if ready:
                    self._grant(c)
                    self.req_since = None
            if high(dut.rel_valid) and rel_ready:
                self._release(c, uint(dut.rel_head))
            if high(dut.ev_frame):
                self.ev["frame"] += 1
            if high(dut.ev_underrun):
                self.ev["underrun"] += 1
            self.mon.sample(c)
            self._mac(c)

    def _resolve(self):
        dut = self.dut
        seg, word = uint(dut.rd_seg), uint(dut.rd_word)
        if high(dut.rd_follow):
            seg = self.nxt.get(seg, self.r.randrange(8))
        return seg, word

    def _req_key(self, c, first):
        key = self.where.get(self._resolve())
        if key is not None and key not in self.req_first:
            self.req_first[key] = c

    def _grant(self, c):
        seg, word = self._resolve()
        key = self.where.get((seg, word))
        self.hist.append((c, int(high(self.dut.rd_follow)), uint(self.dut.rd_seg), word, seg, key))
        data, user = self.mem.get((seg, word), (self.r.getrandbits(128), self.r.getrandbits(6)))
        self.grant_cycles.add(c)
        if key is not None:
            if key in self.grant:
                raise AssertionError(f"word {key} read twice (cycles {self.grant[key]}, {c}); last grants {self.hist[-8:]}")
            self.grant[key] = c
        else:
            self.overreads[c] += 1
        self.rsp[c + self.rsp_lat] = (data, user, seg, key)

    def _release(self, c, head):
        f = self.frames[self.rel_next]
        assert head == f["head"], f"release {head}, expected frame {f['id']}'s head {f['head']}"
        last = (f["id"], f["nwords"] - 1)
        assert last in self.rsp_cycle and c > self.rsp_cycle[last], \
            f"frame {f['id']} released in cycle {c} before its last word's response"
        self.releases.append(c)
        self.rel_next += 1
        for s in f["segs"]:             # freed: scribble over it, back on the free list
            for w in range(self.sw):
                self.mem[(s, w)] = (self.r.getrandbits(128), self.r.getrandbits(6))
                self.where.pop((s, w), None)
            self.nxt[s] = self.r.randrange(8)
        self.free[:0] = f["segs"]

    def _mac(self, c):
        dut = self.dut
        valid = high(dut.m_axis_tvalid)
        if self.mac_state == "idle":
            if c >= self.mac_idle_from and valid:
                self.mac_state = "pre"
                self.mac_data_from = c + MAC_PRE
                self.mac_starts.append((c, self.mac_idle_from))
        elif self.mac_state == "data":
            if not valid:
                if not self.mac_under_frame:
                    self.mac_under += 1
                self.mac_under_frame = True
            elif high(dut.m_axis_tlast):
                self.mac_state = "idle"
                self.mac_idle_from = c + MAC_GAP + 1
                self.mac_under_frame = False
        if self.mac_state == "pre" and c + 1 >= self.mac_data_from:
            self.mac_state = "data"
        self.mac_ready = int(self.mac_state == "data")

    # ---- checks -----------------------------------------------------------------------------------

    def _check_frame(self, fr):
        f = self.frames[self.out_next]
        self.out_next += 1
        f["out"] = fr
        assert fr.data == f["expect"], (
            f"frame {f['id']} (op {f['op']}, {len(f['data'])} bytes): sent {len(fr.data)} bytes, "
            f"first difference at {next((i for i, (a, b) in enumerate(zip(fr.data, f['expect'])) if a != b), None)}")
        assert fr.bad == f["bad"], f"frame {f['id']}: tuser {fr.bad}, expected bad {f['bad']}"
        assert all(not b.get("tuser") for b in fr.beats[:-1]), "tuser before tlast"
        assert fr.first("ts_insert") == f["tsi"], f"frame {f['id']}: ts_insert {fr.first('ts_insert')}"
        assert not any(b["ts_insert"] for b in fr.beats[1:]), "ts_insert after the first beat"

    async def wait_done(self, n=None, limit=200_000):
        n = len(self.frames) if n is None else n
        start = self.cycle
        while self.out_next < n or self.rel_next < n or self.desc_q or self.driving is not None:
            await RisingEdge(self.dut.clk)
            if self.cycle - start >= limit:
                d = self.dut
                st = {k: str(getattr(d, k).value) for k in ("n_valid_q", "n_req_q", "w0_valid_q", "s_arm_q", "s_run_q", "sb_q", "s_lastw_q", "s_hold_q", "c_done_q", "due_q", "rd_valid_q", "tg_th_q", "wf_th_q", "rl_th_q", "o_valid_q", "rq_fol_q", "rq_hop2_q", "epoch_q")}
                raise AssertionError(f"stuck: {self.out_next} frames out, {self.rel_next} released of {n}; {st}; {self.hist[-6:]}")
        for _ in range(40):
            await RisingEdge(self.dut.clk)

    def check_end(self, underruns=0):
        n = len(self.frames)
        assert self.out_next == n and self.rel_next == n
        assert self.ev["frame"] == n, f"ev_frame {self.ev['frame']} for {n} frames"
        assert self.ev["underrun"] == self.mac_under, f"ev_underrun {self.ev['underrun']}, MAC saw {self.mac_under}"
        if underruns is not None:
            assert self.mac_under == underruns, f"{self.mac_under} underruns, expected {underruns}"
        assert sum(self.overreads.values()) <= n, "more than one read past a frame's end per frame"
        assert not self.rsp, "responses left"
        for f in self.frames:
            af = self.axis_mon.recv_nowait()
            assert bytes(af.tdata) == f["expect"] and last_user(af) & 1 == f["bad"], f"AxiStreamMonitor: frame {f['id']}"
        assert self.axis_mon.empty()

    def word_schedule(self, f, G):
        """Assert the read schedule of an isolated frame (the MAC idle at its start)."""
        for k in range(1, f["nwords"]):
            key = (f["id"], k)
            want = G + 16 * k + 7 - self.turn + (4 if f["op"] == INSERT and k >= 2 else 0)
            assert self.req_first.get(key) == want, \
                f"frame {f['id']} op {f['op']} word {k}: requested in {self.req_first.get(key)}, expected {want} (G {G})"
            assert self.grant[key] >= want


async def isolated(dut, wait):
    """Frames one at a time: exact latencies and read schedule."""
    r = rng()
    tb = Tb(dut, r, wait=wait)
    await tb.start(release_ns=r.randrange(600, 3000))
    kinds = ["ct", "ct", "late", "sf"]
    for i in range(14):
        f = tb.frame(n=r.choice([60, 61, 64, 100, r.randint(60, 1518), r.randint(60, 1518)]), op=i % 4)
        tb.send(f, at=tb.cycle + r.randint(1, 5), kind=r.choice(kinds), delay=r.randint(30, 60))
        await tb.wait_done()
        assert f["acc"] == f["offered"], "descriptor not taken at once by an empty queue"
        w0 = (f["id"], 0)
        assert tb.req_first[w0] == f["acc"] + 2, f"word 0 requested {tb.req_first[w0] - f['acc']} cycles after the descriptor"
        hold = 4 if f["op"] == STRIP else 0
        fv = f["out"].first_valid
        if f["kind"] == "ct":
            # a strip frame's rule is taken as met 4 cycles early: same first byte, G 4 earlier
            assert fv == f["T"] + 2, f"frame {f['id']} ({f['kind']}): first byte {fv - f['T']} cycles after the rule"
            G = f["T"] + 1 - hold
        else:
            rc = tb.rsp_cycle[w0]
            assert fv == rc + 3 + hold, f"frame {f['id']} ({f['kind']}): first byte {fv - rc} cycles after word 0"
            G = rc + 2
        tb.word_schedule(f, G)
    tb.check_end()


@cocotb.test()
async def cut_through_and_sf_latency(dut):
    """Isolated frames, random grant waits: exact start latencies and read schedule."""
    await isolated(dut, "random")


@cocotb.test()
async def worst_wait_schedule(dut):
    """Isolated frames, every grant at the 15th cycle: the schedule holds with no underrun."""
    await isolated(dut, "worst")


async def burst(dut, wait, late=0, n=24, underruns=0, bad_mix=False, rel_p=0.7):
    r = rng()
    tb = Tb(dut, r, wait=wait, late=late)
    tb.rel_p = rel_p
    await tb.start(release_ns=r.choice([0, r.randrange(100, 400)]))
    for i in range(n):
        if bad_mix and i % 6 == 1:
            f = tb.frame(data=random_bytes(r, r.randint(1, 3)), bad=r.randrange(2))
        elif bad_mix and i % 6 == 3:
            f = tb.frame(data=random_bytes(r, r.randint(1, 20)), bad=1)
        elif bad_mix and i % 6 == 5:
            f = tb.frame(n=96, cut=True)
        else:
            f = tb.frame()
        tb.send(f, kind=r.choice(["sf", "late"]))
    await tb.wait_done()
    tb.check_end(underruns=underruns if underruns is not None else None)
    return tb


def check_back_to_back(tb):
    """Each frame starts when the MAC's gap ends, unless its word 0 came later: then 3 cycles
    after it (strip 7); word 0 is requested right after the previous frame's last word arrived
    (or after the grant of a request then waiting). Returns the MAC's idle cycles per frame."""
    starts = tb.mac_starts
    assert len(starts) == len(tb.frames)
    waits = []
    for i, (seen, idle) in enumerate(starts[1:], 1):
        f, prev = tb.frames[i], tb.frames[i - 1]
        w0 = (f["id"], 0)
        after = tb.rsp_cycle[(prev["id"], prev["nwords"] - 1)]
        shown = tb.req_first[w0]
        assert shown == after + 1 or (shown - 1 > after and shown - 1 in tb.grant_cycles), \
            f"frame {i}: word 0 requested in {shown}, the previous frame's last word came in {after}"
        if seen > idle:
            hold = 4 if f["op"] == STRIP else 0
            assert f["out"].first_valid == tb.rsp_cycle[w0] + 3 + hold, \
                f"frame {i}: the MAC waited {seen - idle} cycles, word 0 came in {tb.rsp_cycle[w0]}"
        waits.append(seen - idle)
    return waits


@cocotb.test()
async def back_to_back(dut):
    """Queued frames, random waits: each starts right after the MAC's gap. (A wait would need
    both the previous frame's last word and this one's word 0 granted near the 15th cycle and a
    short last word: about 1e-4 per run at these waits; check_back_to_back says why.)"""
    tb = await burst(dut, "random")
    waits = check_back_to_back(tb)
    assert sum(waits) == 0, f"the MAC waited {waits}"
    dut._log.info("MAC idle cycles between frames: %d in %d gaps (max %d)", sum(waits), len(waits), max(waits))


@cocotb.test()
async def back_to_back_worst_wait(dut):
    """Queued frames, every grant at the 15th cycle (every reader busy): no underrun; a frame
    whose word 0 comes after the MAC's gap starts 3 cycles after it."""
    tb = await burst(dut, "worst")
    waits = check_back_to_back(tb)
    dut._log.info("MAC idle cycles between frames: %d in %d gaps (max %d)", sum(waits), len(waits), max(waits))


@cocotb.test()
async def late_buffer_underruns(dut):
    """A buffer answering one cycle late at the worst wait: one underrun per frame (counted by
    ev_underrun, as the MAC sees it); the frames still go out whole and are released."""
    tb = await burst(dut, "worst", late=1, n=8, underruns=None)
    long_frames = sum(1 for f in tb.frames if f["nwords"] >= 2)
    assert tb.mac_under == long_frames, f"{tb.mac_under} underruns for {long_frames} frames"


@cocotb.test()
async def bad_frames(dut):
    """Bad frames (tuser on tlast), frames of 1..20 bytes, frames without a last word (cut at
    MAX_WORDS, bad), random waits, releases taken slowly (the release queue fills and holds the
    next start); all released, no underrun."""
    await burst(dut, "random", n=18, bad_mix=True, rel_p=0.03)


@pytest.mark.parametrize("p", [
    {},
    {"SEGMENTS": 4096, "SEG_WORDS": 2, "QUEUE": 4, "RD_LATENCY": 6},
], ids=["seg4_lat4", "seg2_lat6"])
def test_node_wtx(p):
    runner.run("fp_node_wtx", __name__, p)
