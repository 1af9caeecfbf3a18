"""fp_node_wbuf: the word-serial shared segment buffer, against a Python model, cycle by cycle.

Write side: one cocotbext-axi AxiStreamSource per source with random pauses (the module's inputs
are flattened vectors, which cocotbext-axi cannot drive, so each source drives a lane of them
through a small signal proxy: `_Lanes`), frames of 1..1518 bytes (some over-long, some of one
word) as 16-byte words with the node_word sideband, on every source at once.
Decision model: for each m_start a random reference count 0..MAX_COPIES, given on s_ref at a
random time after it (the next cycle, later, or after m_end). Readers (a Python model of the read
protocol, random request timing, several requests in flight): each copy is either read word by
word, following the linked list (follow = 1 for a segment not yet known, sometimes for one that
is), and then released, or released without reading at a random time (possibly before m_end).
A word is requested from the second cycle after its beat on (s_rd_ready is high in the cycle
after a grant whether or not the reader offers a request, so a request may be granted in the
cycle it is offered: the module's rule is about the grant).
Checks:
  - every response exactly RD_LATENCY cycles after its grant, with the word and sideband the
    model stored (last/bad set by truncation) and the segment read; a frame's segments distinct,
    the last one m_end's tail;
  - m_start, m_end, ev_drop, ev_trunc exactly EV_LATENCY cycles after the beat of the frame's
    first word / last stored word, with their fields (head, tail, words, bad, src);
  - admission exactly as stated: the count of unreserved free segments the module compares is
    rebuilt from free_count and the events (give-backs 2 cycles late) and every m_start must have
    had >= MAX_FRAME_SEGS, every ev_drop fewer; frames longer than MAX_FRAME_SEGS segments cut with last = bad = 1;
  - free_count never above SEGMENTS, nor above SEGMENTS - the segments of frames not completely
    released; frames_live never below the frames not completely released;
  - after every test: free_count == SEGMENTS, frames_live == 0, no error pulse unless provoked;
  - the stated free latencies (release -> free_count, per segment; ref / m_end completing a frame),
    and bad input (unknown / second refs, releases of count-0 and unknown frames) counted and
    ignored.
"""
import heapq

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge
from cocotb.types import LogicArray
from cocotbext.axi import AxiStreamFrame, AxiStreamSource

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import high, params, rng, start, uint

NWF = formats.load("node_word")
NW = NWF.width
RD_LATENCY = 6         # read grant -> response (cycles)
EV_LATENCY = 2         # beat of a frame's first / last word -> m_start / m_end (cycles)
FREE_REL = 9           # last release's handshake -> its head counted in free_count
FREE_OP = 10           # ref (s_ref_valid) or m_end completing a frame -> head in free_count
FREE_STEP = 2          # each further segment of the frame
CLK_NS = 8.0           # 125 MHz


class Cfg:
    def __init__(self):
        p = params()
        self.sources = p.get("SOURCES", 6)
        self.readers = p.get("READERS", 6)
        self.segments = p.get("SEGMENTS", 1024)
        self.segw = p.get("SEG_WORDS", 4)
        self.max_copies = p.get("MAX_COPIES", 12)
        self.mfs = p.get("MAX_FRAME_SEGS", 24)
        self.sw = (self.segments - 1).bit_length()
        self.ww = (self.segw - 1).bit_length()
        self.cw = self.max_copies.bit_length()
        self.maxw = self.mfs * self.segw


# ---- cocotbext-axi on one lane of a flattened bus ------------------------------------------------

class _Lanes:
    """The s_axis_* vectors of the DUT, written lane by lane: every write re-forms the whole vector
    from the lanes' values (the last write in a time step carries every lane's)."""

    def __init__(self, dut, n, widths):
        self.dut, self.n, self.widths = dut, n, widths
        self.vals = {k: [0] * n for k in widths}

    def set(self, name, i, v):
        try:
            v = int(v)
        except (TypeError, ValueError):     # X from the source's initial values
            v = 0
        self.vals[name][i] = v
        w = self.widths[name]
        total = 0
        for j, x in enumerate(self.vals[name]):
            total |= x << (j * w)
        getattr(self.dut, f"s_axis_{name}").value = total


class _LaneSig:
    def __init__(self, lanes, name, i, width):
        self.lanes, self.name, self.i, self.width = lanes, name, i, width

    def __len__(self):
        return self.width

    @property
    def value(self):
        if self.name == "tready":
            bits = str(self.lanes.dut.s_axis_tready.value)
            return int(bits[len(bits) - 1 - self.i] == "1")
        v = self.lanes.vals[self.name][self.i]
        return v if self.name == "tvalid" else LogicArray.from_unsigned(v, self.width)

    @value.setter
    def value(self, v):
        self.lanes.set(self.name, self.i, v)

    def setimmediatevalue(self, v):
        self.value = v


class _LaneBus:
    """What AxiStreamSource needs of a bus: its signals as attributes."""
    _signals = ["tdata"]
    _optional_signals = ["tvalid", "tready", "tlast", "tuser"]

    def __init__(self, lanes, i):
        self._entity = lanes.dut
        self._name = f"s_axis{i}"
        self.tdata = _LaneSig(lanes, "tdata", i, 128)
        self.tuser = _LaneSig(lanes, "tuser", i, NW)
        self.tvalid = _LaneSig(lanes, "tvalid", i, 1)
        self.tlast = _LaneSig(lanes, "tlast", i, 1)
        self.tready = _LaneSig(lanes, "tready", i, 1)


# ---- the model ---------------------------------------------------------------------------------

class Frame:
    _n = 0

    def __init__(self, c, r, src, nbytes, bad):
        Frame._n += 1
        self.id = Frame._n
        self.src = src
        self.nbytes = nbytes
        data = r.randbytes(nbytes)
        n = -(-nbytes // 16)
        self.words = []                      # as sent: (data, user)
        for k in range(n):
            chunk = data[16 * k:16 * k + 16]
            last = k == n - 1
            self.words.append((int.from_bytes(chunk, "little"),
                               NWF.pack(bad=int(last and bad), last=int(last), nbytes_m1=len(chunk) - 1)))
        self.n = n
        self.trunc = n > c.maxw
        self.nstored = min(n, c.maxw)
        self.stored = list(self.words[:self.nstored])   # as the buffer holds them
        if self.trunc:
            d, u = self.stored[-1]
            f = NWF.unpack(u)
            f.update(last=1, bad=1)
            self.stored[-1] = (d, NWF.pack(**f))
        self.nsegs = -(-self.nstored // c.segw)
        self.hs = []                         # beat cycles of the words sent
        self.admitted = None
        self.head = None
        self.start_cycle = None
        self.end_cycle = None
        self.tail = None
        self.segs = {}                       # segment index -> segment number, learned by reads
        self.copies = None
        self.ref_cycle = None
        self.rel_left = None
        self.done_cycle = None               # end, ref and every release have happened

    def axis(self):
        return AxiStreamFrame(tdata=[d for d, _ in self.words], tuser=[u for _, u in self.words])

    def check_done(self, cycle):
        if (self.done_cycle is None and self.end_cycle is not None and self.ref_cycle is not None
                and self.rel_left == 0):
            self.done_cycle = cycle


class Reader:
    """One reader: read jobs (copies to read, then release) one after another, and releases."""

    def __init__(self, b, idx):
        self.b, self.idx = b, idx
        self.jobs = []            # frames to read, in order
        self.k = 0                # next word to request in jobs[0]
        self.got = 0              # responses received for jobs[0]
        self.req = None           # the request being offered: (frame, k, follow, seg)
        self.flight = []          # requests granted: (due cycle, frame, k, follow, seg)
        self.rels = []            # heap of (earliest cycle, seq, frame)
        self.rel = None           # the release being offered
        self.seq = 0

    def add_release(self, frame, earliest):
        self.seq += 1
        heapq.heappush(self.rels, (earliest, self.seq, frame))

    def drive(self, cycle):
        """Choose this cycle's request and release (the DUT's inputs for this cycle)."""
        b, r = self.b, self.b.r
        if self.req is None and self.jobs and r.random() >= b.rd_gap_p:
            f = self.jobs[0]
            k = self.k
            if (f.ref_cycle is not None and f.ref_cycle < cycle and k < f.nstored
                    and len(f.hs) > k and f.hs[k] + 2 <= cycle):
                j, w = divmod(k, b.c.segw)
                if j == 0:
                    self.req = (f, k, 0, f.head)
                elif j in f.segs and r.random() >= 0.3:
                    self.req = (f, k, 0, f.segs[j])
                elif (j - 1) in f.segs:
                    self.req = (f, k, 1, f.segs[j - 1])
                if self.req is not None:
                    self.k += 1
        if self.rel is None and self.rels and self.rels[0][0] <= cycle and r.random() >= b.rel_gap_p:
            f = self.rels[0][2]
            # a release comes in a cycle after its frame's ref (injected bad ones: any time)
            if isinstance(f, int) or (f.ref_cycle is not None and f.ref_cycle < cycle):
                self.rel = heapq.heappop(self.rels)[2]


class Bench:
    def __init__(self, dut, r, src_p=0.3):
        self.dut, self.r, self.c = dut, r, Cfg()
        c = self.c
        self.lanes = _Lanes(dut, c.sources, {"tdata": 128, "tuser": NW, "tvalid": 1, "tlast": 1})
        self.src = []
        for i in range(c.sources):
            s = AxiStreamSource(_LaneBus(self.lanes, i), dut.clk, dut.rst, byte_lanes=1)
            s.log.setLevel("WARNING")
            self.src.append(s)
        self.set_src_pause(src_p)
        for name in ("s_ref_valid", "s_ref_head", "s_ref_count", "s_rel_valid", "s_rel_head",
                     "s_rd_valid", "s_rd_follow", "s_rd_seg", "s_rd_word"):
            getattr(dut, name).value = 0
        self.readers = [Reader(self, i) for i in range(c.readers)]
        # knobs
        self.rd_gap_p = 0.2       # a reader offers no request in a cycle
        self.rel_gap_p = 0.3
        self.read_p = 0.3         # a copy is read (else released without reading)
        self.ref_delay = (1, 40)
        self.ref_after_end_p = 0.2
        self.copies = (0, c.max_copies)
        # state
        self.cycle = 0
        self.sent = [[] for _ in range(c.sources)]       # frames queued on each source, in order
        self.wpos = [0] * c.sources                      # (frame index, word) of the next beat
        self.wword = [0] * c.sources
        self.undecided = [[] for _ in range(c.sources)]  # frames whose first word was taken
        self.open = [None] * c.sources                   # admitted frame awaiting m_end
        self.frames = []
        self.refs = []            # heap of (earliest cycle, id, frame)
        self.ref_now = None
        self.ref_err = 0
        self.rel_err = 0
        self.drops = 0
        self.truncs = 0
        self.free_log = {}        # cycle -> free_count
        self.manual = None        # dict(copies=n, ref=delay or None): decide() does only that
        self.extra_refs = []      # (cycle, head, count) injected by a test (bad input)
        self.extra_rels = []      # (reader, head) injected releases
        self.on_cycle = []
        self.owner = {}           # segment -> the frame it was last seen in

    def set_src_pause(self, p):
        for s in self.src:
            s.set_pause_generator(_pauses(self.r, p) if p else None)
            if not p:
                s.pause = False

    # ---- traffic ------------------------------------------------------------------------------

    def make_frame(self, src, nbytes=None, bad=None):
        r, c = self.r, self.c
        if nbytes is None:
            x = r.random()
            if x < 0.15:
                nbytes = r.randint(1, 16)
            elif x < 0.2:
                nbytes = r.randint(c.maxw * 16 - 20, c.maxw * 16 + 100)   # around the cut
            else:
                nbytes = r.randint(1, 1518)
        if bad is None:
            bad = r.random() < 0.1
        f = Frame(c, r, src, nbytes, bad)
        self.sent[src].append(f)
        self.frames.append(f)
        return f

    async def send(self, f):
        await self.src[f.src].send(f.axis())

    # ---- the cycle loop ----------------------------------------------------------------------

    async def step(self):
        await RisingEdge(self.dut.clk)
        self.cycle += 1
        self.drive()
        await ReadOnly()
        self.sample()

    def drive(self):
        d, c, cyc = self.dut, self.c, self.cycle
        # refs: one per cycle, the earliest due first (injected bad ones take their cycle)
        self.ref_now = None
        inj = [x for x in self.extra_refs if x[0] == cyc]
        if inj:
            _, head, cnt = inj[0]
            d.s_ref_valid.value = 1
            d.s_ref_head.value = head
            d.s_ref_count.value = cnt
        elif self.refs and self.refs[0][0] <= cyc:
            f = heapq.heappop(self.refs)[2]
            self.ref_now = f
            d.s_ref_valid.value = 1
            d.s_ref_head.value = f.head
            d.s_ref_count.value = f.copies
        else:
            d.s_ref_valid.value = 0
        # readers
        for rd in self.readers:
            rd.drive(cyc)
        v = fol = seg = word = 0
        rv = rh = 0
        for rd in self.readers:
            i = rd.idx
            if rd.req is not None:
                f, k, follow, s = rd.req
                v |= 1 << i
                fol |= follow << i
                seg |= s << (i * c.sw)
                word |= (k % c.segw) << (i * c.ww)
            if rd.rel is not None:
                rv |= 1 << i
                head = rd.rel if isinstance(rd.rel, int) else rd.rel.head
                rh |= head << (i * c.sw)
        d.s_rd_valid.value = v
        d.s_rd_follow.value = fol
        d.s_rd_seg.value = seg
        d.s_rd_word.value = word
        d.s_rel_valid.value = rv
        d.s_rel_head.value = rh

    def sample(self):
        d, c, cyc = self.dut, self.c, self.cycle
        # write beats
        tv, tr = uint(d.s_axis_tvalid), uint(d.s_axis_tready)
        for s in range(c.sources):
            if (tv >> s) & 1 and (tr >> s) & 1:
                fi, wk = self.wpos[s], self.wword[s]
                f = self.sent[s][fi]
                f.hs.append(cyc)
                if wk == 0:
                    self.undecided[s].append(f)
                if wk == f.n - 1:
                    self.wpos[s] += 1
                    self.wword[s] = 0
                else:
                    self.wword[s] += 1
        # events
        if high(d.m_start):
            s = uint(d.m_start_src)
            f = self.undecided[s].pop(0)
            assert cyc == f.hs[0] + EV_LATENCY, (f.id, cyc, f.hs[0])
            av = self.admission_view(cyc)
            assert av >= c.mfs, f"frame {f.id} admitted with {av} segments available"
            f.admitted, f.head, f.start_cycle = True, uint(d.m_start_head), cyc
            f.segs[0] = f.head
            self.own(f.head, f)
            self.open[s] = f
            self.decide(f)
        if high(d.ev_drop):
            s = uint(d.ev_drop_src)
            f = self.undecided[s].pop(0)
            assert cyc == f.hs[0] + EV_LATENCY, (f.id, cyc, f.hs[0])
            av = self.admission_view(cyc)
            assert av < c.mfs, f"frame {f.id} refused with {av} segments available"
            f.admitted = False
            self.drops += 1
        if high(d.m_end):
            s = uint(d.m_end_src)
            f = self.open[s]
            assert f is not None, f"m_end from source {s} without an open frame"
            self.open[s] = None
            assert cyc == f.hs[f.nstored - 1] + EV_LATENCY, (f.id, cyc, f.hs[f.nstored - 1])
            assert uint(d.m_end_head) == f.head, (f.id, uint(d.m_end_head), f.head)
            assert uint(d.m_end_words) == f.nstored, (f.id, uint(d.m_end_words), f.nstored)
            assert uint(d.m_end_bad) == NWF.unpack(f.stored[-1][1])["bad"], f.id
            f.tail, f.end_cycle = uint(d.m_end_tail), cyc
            self.own(f.tail, f)
            if getattr(f, "ref_at_end", False):
                heapq.heappush(self.refs, (cyc + self.r.randint(1, 20), f.id, f))
            if f.nsegs - 1 in f.segs:
                assert f.segs[f.nsegs - 1] == f.tail, (f.id, f.segs, f.tail)
            if f.nsegs == 1:
                assert f.tail == f.head, f.id
            f.check_done(cyc)
        if high(d.ev_trunc):
            s = uint(d.ev_trunc_src)
            # m_end of the same frame comes in the same cycle (processed above)
            cand = [x for x in self.frames if x.src == s and x.trunc and x.end_cycle == cyc]
            assert len(cand) == 1, (s, cyc)
            assert cyc == cand[0].hs[c.maxw - 1] + EV_LATENCY
            self.truncs += 1
        # read responses
        mv = uint(d.m_rd_valid)
        for rd in self.readers:
            due = rd.flight[0][0] if rd.flight else None
            if (mv >> rd.idx) & 1:
                assert due == cyc, f"reader {rd.idx}: response in cycle {cyc}, expected {due}"
                _, f, k, follow, s = rd.flight.pop(0)
                data, user, seg = uint(d.m_rd_data), uint(d.m_rd_user), uint(d.m_rd_seg)
                ed, eu = f.stored[k]
                assert (data, user) == (ed, eu), \
                    f"frame {f.id} word {k}: {data:#x}/{user:#x}, expected {ed:#x}/{eu:#x}"
                j = k // c.segw
                if follow:
                    if j in f.segs:
                        assert f.segs[j] == seg, (f.id, j, f.segs, seg)
                    else:
                        assert seg not in f.segs.values(), (f.id, j, f.segs, seg)
                        f.segs[j] = seg
                        self.own(seg, f)
                        if j == f.nsegs - 1 and f.tail is not None:
                            assert seg == f.tail, (f.id, seg, f.tail)
                else:
                    assert seg == s, (f.id, k, seg, s)
                rd.got += 1
                if rd.got == f.nstored:
                    rd.jobs.pop(0)
                    rd.k = rd.got = 0
                    rd.add_release(f, cyc + self.r.randint(1, 6))
            else:
                assert due is None or due > cyc, f"reader {rd.idx}: no response in cycle {cyc}"
        # read grants
        rr = uint(d.s_rd_ready)
        for rd in self.readers:
            if rd.req is not None and (rr >> rd.idx) & 1:
                f, k, follow, s = rd.req
                rd.flight.append((cyc + RD_LATENCY, f, k, follow, s))
                rd.req = None
        # releases
        lr = uint(d.s_rel_ready)
        for rd in self.readers:
            if rd.rel is not None and (lr >> rd.idx) & 1:
                f = rd.rel
                rd.rel = None
                if not isinstance(f, int):
                    f.rel_left -= 1
                    assert f.rel_left >= 0
                    f.last_rel_cycle = cyc
                    f.check_done(cyc)
        # refs
        if self.ref_now is not None:
            f = self.ref_now
            f.ref_cycle = cyc
            f.check_done(cyc)
        if high(d.stat_ref_err):
            self.ref_err += 1
        if high(d.stat_rel_err):
            self.rel_err += 1
        # status
        free = uint(d.free_count)
        assert free <= c.segments, f"free_count {free} > {c.segments}"
        held = live = 0
        for f in self.frames:
            if f.admitted and f.done_cycle is None:
                # segments of words taken 4 or more cycles ago (allocated by now)
                old = sum(1 for h in f.hs[:f.nstored] if h <= cyc - 4)
                held += -(-old // c.segw)
                if f.start_cycle <= cyc - 40:
                    live += 1
        self.free_log[cyc] = free
        assert free <= c.segments - held, f"cycle {cyc}: {free} free with {held} segments held"
        assert uint(d.frames_live) >= live, f"cycle {cyc}: frames_live {uint(d.frames_live)} < {live}"
        for fn in self.on_cycle:
            fn(cyc)

    def admission_view(self, ev):
        """The unreserved free segments the admission compared with MAX_FRAME_SEGS for the frame
        whose m_start / ev_drop is in cycle ev (its first word in stage B in cycle ev - 1): the free
        segments as free_count shows them in cycle ev - 1 (pushes and allocations up to cycle
        ev - 3) less those pushed in cycle ev - 3, minus the reservations of the frames admitted up to then less the segments they
        had taken, minus those of a frame admitted in the cycle before, and with the give-back of a
        frame whose m_end was in cycle ev - 2 not yet returned (give-backs arrive 2 cycles late)."""
        c = self.c
        x = ev - 1
        res = 0
        for f in self.frames:
            if not f.admitted or f.start_cycle is None or f.start_cycle > x:
                continue
            if f.start_cycle == x:
                res += c.mfs
            elif f.end_cycle is None or f.end_cycle > x - 1:
                used = sum(1 for h in f.hs[:f.nstored] if h <= x - 3)
                res += c.mfs - -(-used // c.segw)
            elif f.end_cycle == x - 1:
                res += c.mfs - f.nsegs
        # frees reach the admission a cycle later than free_count: the segments pushed in cycle
        # x - 2 (free_count's step from x - 1 to x, plus what was allocated then) are not there yet
        allocs = sum(1 for f in self.frames if f.admitted
                     for k in range(0, min(len(f.hs), f.nstored), c.segw) if f.hs[k] == x - 3)
        pushed = self.free_log[x] - self.free_log[x - 1] + allocs
        return self.free_log[x] - res - pushed

    def own(self, seg, f):
        """seg belongs to frame f: no other frame still in use may hold it."""
        o = self.owner.get(seg)
        assert o is None or o is f or o.done_cycle is not None, \
            f"cycle {self.cycle}: segment {seg} in frame {f.id} and in frame {o.id} (not released)"
        self.owner[seg] = f

    def decide(self, f):
        """The decision logic's part: copies, readers, the ref's time."""
        r, c = self.r, self.c
        if self.manual is not None:
            f.copies = f.rel_left = self.manual["copies"]
            if self.manual["ref"] is not None:
                heapq.heappush(self.refs, (self.cycle + self.manual["ref"], f.id, f))
            return
        f.copies = r.randint(*self.copies)
        f.rel_left = f.copies
        lo, hi = self.ref_delay
        f.ref_at_end = r.random() < self.ref_after_end_p
        if not f.ref_at_end:
            heapq.heappush(self.refs, (self.cycle + r.randint(lo, hi), f.id, f))
        for _ in range(f.copies):
            rd = self.readers[r.randrange(c.readers)]
            if r.random() < self.read_p:
                rd.jobs.append(f)
            else:
                rd.add_release(f, self.cycle + r.randint(2, 120))

    # ---- helpers -----------------------------------------------------------------------------

    async def run_until_idle(self, limit=200_000):
        start_c = self.cycle
        while True:
            await self.step()
            busy = any(not s.idle() for s in self.src) or self.refs or any(
                rd.jobs or rd.req or rd.flight or rd.rels or rd.rel for rd in self.readers)
            busy = busy or any(f.admitted is None for f in self.frames)
            if not busy:
                break
            if self.cycle - start_c >= limit:
                raise AssertionError("traffic does not drain: " + self.pending())
        # the last frees: the state pipeline, then the walker (2 cycles a segment); a leak shows
        # as free_count never reaching SEGMENTS
        for _ in range(2 * self.c.segments + 100):
            if uint(self.dut.free_count) == self.c.segments and uint(self.dut.frames_live) == 0:
                break
            await self.step()
        for _ in range(10):
            await self.step()

    def pending(self):
        """What is still pending (for failure messages)."""
        out = [f"sources busy {[not s.idle() for s in self.src]}", f"refs {len(self.refs)}"]
        for rd in self.readers:
            out.append(f"reader {rd.idx}: jobs {[f.id for f in rd.jobs]} k {rd.k} req {rd.req is not None} "
                       f"flight {len(rd.flight)} rels {[(t, getattr(f, 'id', f)) for t, _, f in rd.rels][:5]} "
                       f"rel {getattr(rd.rel, 'id', rd.rel)}")
        und = [f.id for f in self.frames if f.admitted is None]
        out.append(f"undecided {und[:10]}")
        for f in self.frames:
            if f.admitted and f.done_cycle is None:
                out.append(f"frame {f.id}: src {f.src} words {len(f.hs)}/{f.n} end {f.end_cycle} "
                           f"ref {f.ref_cycle} rel_left {f.rel_left}")
        return "; ".join(out)

    def check_idle(self):
        d, c = self.dut, self.c
        for f in self.frames:
            assert f.admitted is not None, f"frame {f.id} never decided"
            if f.admitted:
                assert f.end_cycle is not None, f"frame {f.id} never ended"
                assert f.rel_left == 0 and f.ref_cycle is not None, f"frame {f.id} not released"
        assert uint(d.free_count) == c.segments, \
            f"leak: free_count {uint(d.free_count)}, frames_live {uint(d.frames_live)}"
        assert uint(d.frames_live) == 0, f"frames_live {uint(d.frames_live)}"
        assert not any(self.open), "frame left open"


def _pauses(r, p):
    while True:
        yield r.random() < p


async def setup(dut, **kw):
    r = rng()
    b = Bench(dut, r, **kw)
    await start(dut, period_ns=CLK_NS)
    # the reset sweep: init_done after 2^SW cycles
    while not high(dut.init_done):
        await b.step()
    assert uint(dut.free_count) <= b.c.segments
    for _ in range(3):
        await b.step()
    assert uint(dut.free_count) == b.c.segments
    assert uint(dut.frames_live) == 0
    return b


async def traffic(b, per_source):
    for s in range(b.c.sources):
        for _ in range(per_source):
            await b.send(b.make_frame(s))


@cocotb.test()
async def random_traffic(dut):
    """All sources at once, random copies, cut-through reads and releases; no leak after."""
    b = await setup(dut)
    n = 24 if b.c.segments >= 512 else 30
    await traffic(b, n)
    await b.run_until_idle()
    b.check_idle()
    admitted = sum(1 for f in b.frames if f.admitted)
    reads = sum(1 for f in b.frames if f.admitted and f.copies)
    dut._log.info(f"{len(b.frames)} frames, {admitted} admitted, {b.drops} refused, "
                  f"{b.truncs} cut, {b.cycle} cycles, {reads} with copies")
    assert b.ref_err == 0 and b.rel_err == 0
    assert b.truncs == sum(1 for f in b.frames if f.admitted and f.trunc)
    assert admitted >= len(b.frames) // 2


@cocotb.test()
async def short_frames(dut):
    """One-word frames back to back on every source, refs the next cycle with count 0 or 1: the
    event and ref queues at their fullest (the writer's hold), one-segment frees."""
    b = await setup(dut, src_p=0.0)
    b.ref_delay = (1, 1)
    b.copies = (0, 1)
    b.read_p = 0.5
    for s in range(b.c.sources):
        for _ in range(40):
            await b.send(b.make_frame(s, nbytes=b.r.randint(1, 16)))
    await b.run_until_idle()
    b.check_idle()
    assert b.ref_err == 0 and b.rel_err == 0


@cocotb.test()
async def hold_frames(dut):
    """Refs (and so every release) withheld until the buffer has refused frames, then given:
    exhaustion, admission drops, recovery, no leak."""
    b = await setup(dut, src_p=0.1)
    b.ref_delay = (10**9, 10**9)
    b.ref_after_end_p = 0.0
    b.copies = (1, b.c.max_copies)
    b.read_p = 0.1
    let_go = []

    def watch(cyc):
        if not let_go and (b.drops >= 2 * b.c.sources or all(s.idle() for s in b.src)):
            let_go.append(cyc)
            b.refs = [(cyc + b.r.randint(1, 300), i, f) for _, i, f in b.refs]
            heapq.heapify(b.refs)
        if let_go:       # frames admitted later: refs at the usual times
            b.ref_delay = (1, 40)

    b.on_cycle.append(watch)
    per = max(6, (3 * b.c.segments) // (b.c.sources * 10))
    await traffic(b, per)
    await b.run_until_idle()
    b.check_idle()
    dut._log.info(f"{len(b.frames)} frames, {b.drops} refused, min free {min(b.free_log.values())}")
    assert b.drops > 0, "the buffer never ran out"
    assert b.ref_err == 0 and b.rel_err == 0


@cocotb.test()
async def free_latency(dut):
    """The stated free latencies, with nothing else going on: the last release -> free_count; a
    count-0 ref after m_end; m_end after a count-0 ref. A three-segment frame each time."""
    b = await setup(dut, src_p=0.0)
    c = b.c
    nsegs = 3
    nbytes = 16 * ((nsegs - 1) * c.segw + 1)

    async def frame(copies, ref):
        b.manual = {"copies": copies, "ref": ref}
        f = b.make_frame(0, nbytes=nbytes)
        await b.send(f)
        while f.end_cycle is None:
            await b.step()
        for _ in range(20):
            await b.step()
        return f

    async def expect(t0, what):
        while b.cycle < t0 + FREE_STEP * nsegs + 2:
            await b.step()
        log = b.free_log
        free0 = log[t0 - 1]
        got = [log[t] for t in range(t0 - 2, t0 + FREE_STEP * nsegs + 1)]
        want = [free0] * 2 + [free0 + 1 + k // FREE_STEP for k in range(FREE_STEP * nsegs - 1)]
        want += [free0 + nsegs] * 2
        assert got == want, f"{what}: free_count from cycle {t0 - 2}: {got}, expected {want}"

    # the last release (copies 1, the ref long before)
    f = await frame(1, 1)
    b.readers[0].add_release(f, b.cycle + 1)
    while f.done_cycle is None:
        await b.step()
    await expect(f.done_cycle + FREE_REL, "release")
    # a count-0 ref after m_end
    f = await frame(0, None)
    heapq.heappush(b.refs, (b.cycle + 1, f.id, f))
    while f.done_cycle is None:
        await b.step()
    await expect(f.ref_cycle + FREE_OP, "ref")
    # m_end after a count-0 ref (given the cycle after m_start)
    b.manual = {"copies": 0, "ref": 1}
    f = b.make_frame(0, nbytes=nbytes)
    await b.send(f)
    while f.end_cycle is None:
        await b.step()
    assert f.ref_cycle is not None and f.ref_cycle < f.end_cycle
    await expect(f.end_cycle + FREE_OP, "end")
    b.manual = None
    await b.run_until_idle()
    b.check_idle()


@cocotb.test()
async def bad_input(dut):
    """Refs for unknown heads, second refs, releases of count-0 / unknown / finished frames: each
    one error pulse, no effect on the buffer."""
    b = await setup(dut, src_p=0.0)
    c = b.c
    f1 = b.make_frame(0, nbytes=100)
    b.copies = (2, 2)
    b.read_p = 0.0
    b.ref_delay = (1, 1)
    await b.send(f1)
    while f1.ref_cycle is None:
        await b.step()
    # a second ref of f1, a ref of a free segment's number (never a head now)
    unknown = (f1.head + 7) % c.segments
    b.extra_refs = [(b.cycle + 3, f1.head, 1), (b.cycle + 5, unknown, 1)]
    rd = b.readers[0]
    for _ in range(20):
        await b.step()
    assert b.ref_err == 2, b.ref_err
    # releases of a head never started
    rd.add_release(unknown, b.cycle + 1)
    while rd.rels or rd.rel is not None:
        await b.step()
    for _ in range(10):
        await b.step()
    assert b.rel_err == 1, b.rel_err
    # the frame's two copies are released by the model (added in decide); then one more
    await b.run_until_idle()
    b.readers[1].add_release(f1.head, b.cycle + 1)   # its count is 0 now (and it is freed)
    await b.run_until_idle()
    assert b.rel_err == 2, b.rel_err
    b.check_idle()
    # a frame with a count-0 ref, then a release of it
    f2 = b.make_frame(1, nbytes=40)
    b.copies = (0, 0)
    await b.send(f2)
    while f2.ref_cycle is None:
        await b.step()
    b.readers[2 % c.readers].add_release(f2.head, b.cycle + 2)
    await b.run_until_idle()
    assert b.rel_err == 3, b.rel_err
    assert b.ref_err == 2, b.ref_err
    b.check_idle()
    # traffic still works
    await traffic(b, 3)
    await b.run_until_idle()
    b.check_idle()


PARAMS = [
    {"SOURCES": 6, "READERS": 6, "SEGMENTS": 1024, "SEG_WORDS": 4, "MAX_COPIES": 12, "MAX_FRAME_SEGS": 24},
    {"SOURCES": 3, "READERS": 4, "SEGMENTS": 64, "SEG_WORDS": 2, "MAX_COPIES": 5, "MAX_FRAME_SEGS": 8},
]


@pytest.mark.parametrize("p", PARAMS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_node_wbuf(p):
    runner.run("fp_node_wbuf", __name__, p)
