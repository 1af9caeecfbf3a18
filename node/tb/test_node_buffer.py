"""fp_node_buffer: shared segment buffer (BM + QM + SCHED), cycle-level bench with a reference model.

Every cycle the bench drives the DATAPATHS input streams (random interleaving of the frames of
the datapath's source ports, random gaps), random m_axis backpressure, and out_room from a model
TX FIFO per output whose level lags by 5 cycles (the most the module allows: a segment handshaked
in cycle n counts from cycle n+5) and is randomly forced to 0. Checks:
  - admission exactly as the policy says, decided from the module's status outputs in the cycle
    the first segment leaves the input register (the first cycle after its acceptance with
    stat_free > 0; stat_free, stat_port_held, stat_queue_len are the registers the admission
    logic reads), and the drop events of every frame;
  - every output gets exactly its copies, whole packets one after another, in order per
    (src_port, prio), with the stored header and out_port, nothing else;
  - no model TX FIFO ever overflows, and no segment is read for an output whose out_room is 0;
  - after the traffic: stat_free == SEGMENTS, no segment held, every queue empty, no output busy;
  - LATENCY exactly, and full input throughput.
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

NOC = formats.load("noc_header")
R = NOC.const
LATENCY = 5
LAG = 5          # out_room in cycle m must count the segments handshaked in cycles <= m - LAG


def lanes(sig, n, width):
    """Split a flattened bus into n lanes of `width` bits; a lane holding X/Z reads as None."""
    bits = str(sig.value)
    out = []
    for i in range(n):
        lane = bits[len(bits) - (i + 1) * width: len(bits) - i * width]
        out.append(int(lane, 2) if set(lane) <= {"0", "1"} else None)
    return out


class Cfg:
    def __init__(self):
        p = params()
        self.ports = p.get("PORTS", 12)
        self.dps = p.get("DATAPATHS", 2)
        self.seg_bytes = p.get("SEG_BYTES", 64)
        self.segments = p.get("SEGMENTS", 3000)
        self.qdepth = p.get("QUEUE_DEPTH", 256)
        self.max_bytes = p.get("MAX_BYTES", 1518)
        self.room = p.get("ROOM", 8)
        self.nout = self.ports + self.dps
        self.cw = (self.segments).bit_length()          # $clog2(SEGMENTS + 1)
        self.qcw = (self.qdepth - 1).bit_length() + 1
        self.ppd = -(-self.ports // self.dps)
        self.reserve_default = self.nout * -(-self.max_bytes // self.seg_bytes)

    def dp_of(self, o):
        return o // self.ppd if o < self.ports else o - self.ports

    def sources(self, s):
        """src_ports that arrive on input stream s (its ports and its host port)."""
        return [p for p in range(self.ports) if self.dp_of(p) == s] + [self.ports + s]


class Frame:
    _n = 0

    def __init__(self, c, r, stream, src, nseg, dst, to_host, prio, discard=0, reason=0):
        Frame._n += 1
        self.id = Frame._n
        self.stream, self.src, self.prio = stream, src, prio
        self.dst, self.to_host = dst, to_host
        self.segs = []
        ts = r.getrandbits(24)
        for k in range(nseg):
            last = k == nseg - 1
            nbytes = r.randint(1, c.seg_bytes) if last else c.seg_bytes
            hdr = NOC.pack(first=int(k == 0), last=int(last), bytes=nbytes, seg_idx=k % 64,
                           src_port=src, ts=ts, prio=prio, dst=dst, to_host=to_host,
                           discard=discard, reason=reason, vid=r.getrandbits(12),
                           pcp=r.getrandbits(3), bad=int(last and r.random() < 0.1))
            self.segs.append((hdr, r.getrandbits(c.seg_bytes * 8), last))
        self.want = [o for o in range(c.ports) if dst >> o & 1]
        if to_host:
            self.want.append(c.ports + stream)
        self.discard, self.reason = discard, reason
        self.copies = None          # outputs admitted, set by the model at acceptance


class Bench:
    def __init__(self, dut, r, cfg_reserve=None, cfg_port_limit=None, cfg_queue_limit=None):
        self.dut, self.r, self.c = dut, r, Cfg()
        c = self.c
        self.reserve = c.reserve_default if cfg_reserve is None else cfg_reserve
        self.port_limit = (1 << c.cw) - 1 if cfg_port_limit is None else cfg_port_limit
        self.queue_limit = c.qdepth if cfg_queue_limit is None else cfg_queue_limit
        dut.s_axis_tvalid.value = 0
        dut.s_axis_tdata.value = 0
        dut.s_axis_tuser.value = 0
        dut.s_axis_tlast.value = 0
        dut.s_axis_tkeep.value = 0
        dut.m_axis_tready.value = 0
        dut.out_room.value = 0
        dut.stat_hwm_clear.value = 0
        self.set_cfg()
        # traffic knobs
        self.src_p = 0.0        # probability of a gap on an input stream
        self.sink_p = 0.0       # probability of m_axis_tready low
        self.room_off_p = 0.0   # probability of out_room forced to 0
        self.drain_p = 1.0      # probability a model TX FIFO drains a segment in a cycle
        self.cap = c.room       # model TX FIFO capacity (segments)
        self.hold = set()       # outputs whose out_room is held at 0
        # state
        self.cycle = 0
        self.pending = [[] for _ in range(c.dps)]   # per stream: list of (frame, seg index)
        self.present = [None] * c.dps
        self.accepted = []      # (cycle, frame) for every first segment
        self.expect = {}        # (o, src, prio) -> list of frames
        self.got = {o: [] for o in range(c.nout)}   # per output: list of (hdr, data)
        self.events = []        # (cycle, drop, reason, port, copy mask)
        self.want_events = []
        self.occ = [0] * c.nout
        self.occ_hist = []      # per cycle: occupancy list after the cycle
        self.first_valid = [None] * c.dps
        self.in_cycle = {}      # frame id -> accept cycle of its first segment
        self.stage = None       # (frame, segment index) in the input register
        self.out_cycle = {}     # (frame id, o) -> first cycle its first segment was valid
        self.accept_count = 0
        self.probe = hasattr(dut, "c_read")
        self.room_prev = 0      # out_room of the previous cycle (the choice of a read in R)

    def set_cfg(self):
        self.dut.cfg_reserve.value = self.reserve
        self.dut.cfg_port_limit.value = self.port_limit
        self.dut.cfg_queue_limit.value = self.queue_limit

    # ---- traffic ------------------------------------------------------------------------
    def add(self, frames):
        """Queue frames; the segments of frames on one stream are interleaved at random, each
        source's frames staying in order."""
        by_stream = {}
        for f in frames:
            by_stream.setdefault(f.stream, {}).setdefault(f.src, []).extend(
                (f, k) for k in range(len(f.segs)))
        for s, srcs in by_stream.items():
            lanes = [list(v) for v in srcs.values()]
            while lanes:
                lane = self.r.choice(lanes)
                self.pending[s].append(lane.pop(0))
                if not lane:
                    lanes.remove(lane)

    def random_frame(self, stream, src=None, max_seg=4, flood_p=0.3, host_p=0.1, discard_p=0.05,
                     only=None):
        c, r = self.c, self.r
        src = r.choice(c.sources(stream)) if src is None else src
        others = [p for p in range(c.ports) if p != src]
        if only is not None:
            dst = sum(1 << p for p in only)
        elif r.random() < flood_p:
            dst = sum(1 << p for p in others if r.random() < 0.6)
        else:
            dst = 1 << r.choice(others) if others else 0
        to_host = int(r.random() < host_p or (dst == 0))
        discard = int(r.random() < discard_p)
        reason = r.choice([R["reason_vlan"], R["reason_reserved_mac"], R["reason_no_dest"]]) if discard else 0
        return Frame(c, r, stream, src, r.randint(1, max_seg), dst, to_host, r.randint(0, 1),
                     discard, reason)

    # ---- model --------------------------------------------------------------------------
    def admit(self, f, snap):
        c = self.c
        free, held, qlen = snap
        drop, reason, copymask = 0, 0, 0
        copies = []
        if f.discard:
            drop, reason = 1, f.reason
        elif not f.want:
            drop, reason = 1, R["reason_no_dest"]
        elif free < self.reserve:
            drop, reason = 1, R["reason_buffer_full"]
        elif held[f.src] >= self.port_limit:
            drop, reason = 1, R["reason_port_threshold"]
        else:
            lim = min(self.queue_limit, c.qdepth)
            for o in f.want:
                if qlen[2 * o + f.prio] >= lim:
                    copymask |= 1 << o
                else:
                    copies.append(o)
            if not copies:
                drop, reason = 1, R["reason_queue_full"]
        f.copies = copies
        for o in copies:
            self.expect.setdefault((o, f.src, f.prio), []).append(f)
        if drop or copymask:
            self.want_events.append((self.cycle + 1, drop, reason if drop else None, f.src, copymask))

    def snapshot(self):
        c, d = self.c, self.dut
        held_v = int(d.stat_port_held.value)
        q_v = int(d.stat_queue_len.value)
        held = [(held_v >> (i * c.cw)) & ((1 << c.cw) - 1) for i in range(c.nout)]
        qlen = [(q_v >> (i * c.qcw)) & ((1 << c.qcw) - 1) for i in range(2 * c.nout)]
        return int(d.stat_free.value), held, qlen

    # ---- one cycle ----------------------------------------------------------------------
    async def step(self):
        c, d, r = self.c, self.dut, self.r
        await FallingEdge(d.clk)
        self.cycle += 1
        # inputs (a presented segment stays until accepted)
        valid = data = user = last = 0
        for s in range(c.dps):
            if self.present[s] is None and self.pending[s] and r.random() >= self.src_p:
                self.present[s] = self.pending[s].pop(0)
            if self.present[s] is not None:
                f, k = self.present[s]
                hdr, dat, lst = f.segs[k]
                valid |= 1 << s
                data |= dat << (s * c.seg_bytes * 8)
                user |= hdr << (s * NOC.width)
                last |= int(lst) << s
        d.s_axis_tvalid.value = valid
        d.s_axis_tdata.value = data
        d.s_axis_tuser.value = user
        d.s_axis_tlast.value = last
        ready = sum(1 << s for s in range(c.dps) if r.random() >= self.sink_p)
        d.m_axis_tready.value = ready
        room = 0
        for o in range(c.nout):
            seen = self.occ_hist[-LAG][o] if len(self.occ_hist) >= LAG else 0
            if c.room and self.cap - seen >= c.room and o not in self.hold and r.random() >= self.room_off_p:
                room |= 1 << o
        d.out_room.value = room
        await ReadOnly()
        # reads only for outputs with room: a read (stage R) was chosen in the previous cycle
        if self.probe and int(d.c_read.value):
            o = int(d.c_o.value)
            assert self.room_prev >> o & 1, f"cycle {self.cycle}: segment read for output {o} without out_room"
        self.room_prev = room
        # events (registered: they describe the acceptance of the previous cycle)
        if int(d.ev_drop.value) or int(d.ev_drop_copy.value):
            self.events.append((self.cycle, int(d.ev_drop.value),
                                int(d.ev_drop_reason.value) if int(d.ev_drop.value) else None,
                                int(d.ev_drop_port.value), int(d.ev_drop_copy.value)))
        # the input register passes its segment on (admission) when the free list is not empty
        if self.stage is not None:
            snap = self.snapshot()
            if snap[0] > 0:
                f, k = self.stage
                self.stage = None
                if k == 0:
                    self.admit(f, snap)
        # input handshakes
        tready = int(d.s_axis_tready.value)
        acc = valid & tready
        assert bin(acc).count("1") <= 1
        for s in range(c.dps):
            if acc >> s & 1:
                f, k = self.present[s]
                self.present[s] = None
                self.accept_count += 1
                assert self.stage is None, "accepted while the input register is held"
                self.stage = (f, k)
                if k == 0:
                    self.in_cycle[f.id] = self.cycle
        # outputs
        mvalid = int(d.m_axis_tvalid.value)
        if mvalid:
            mdata = lanes(d.m_axis_tdata, c.dps, c.seg_bytes * 8)
            muser = lanes(d.m_axis_tuser, c.dps, NOC.width)
            mlast = lanes(d.m_axis_tlast, c.dps, 1)
            mkeep = lanes(d.m_axis_tkeep, c.dps, c.seg_bytes)
        arrived = [0] * c.nout
        for s in range(c.dps):
            if not mvalid >> s & 1:
                continue
            hdr = muser[s]
            assert hdr is not None and mdata[s] is not None, f"X on m_axis {s}"
            h = NOC.unpack(hdr)
            o = h["out_port"]
            key = (hdr, o)
            if key not in self.out_cycle:
                self.out_cycle[key] = self.cycle
            if not ready >> s & 1:
                continue
            assert c.dp_of(o) == s, f"output {o} on datapath {s}"
            assert mlast[s] == h["last"]
            keep = mkeep[s]
            assert keep == (1 << h["bytes"]) - 1, (keep, h["bytes"])
            dat = mdata[s]
            self.got[o].append((hdr, dat, self.cycle))
            arrived[o] += 1
        # model TX FIFOs
        for o in range(c.nout):
            self.occ[o] += arrived[o]
            assert self.occ[o] <= self.cap, f"cycle {self.cycle}: TX FIFO {o} overflow"
            if self.occ[o] and r.random() < self.drain_p:
                self.occ[o] -= 1
        self.occ_hist.append(list(self.occ))
        if len(self.occ_hist) > 2 * LAG:
            self.occ_hist.pop(0)

    async def run_until_idle(self, limit=60000):
        c, d = self.c, self.dut
        quiet = 0
        for _ in range(limit):
            await self.step()
            busy = (any(self.pending) or any(p is not None for p in self.present) or self.stage is not None
                    or int(d.stat_busy.value) or int(d.m_axis_tvalid.value))
            quiet = 0 if busy else quiet + 1
            if quiet > 20:
                return
        raise AssertionError(f"not idle after {limit} cycles: free {int(d.stat_free.value)}, "
                             f"busy {int(d.stat_busy.value):x}")

    # ---- checks -------------------------------------------------------------------------
    def check(self):
        c, d = self.c, self.dut
        # deliveries
        for o in range(c.nout):
            beats = self.got[o]
            packets, cur = [], []
            for hdr, dat, cyc in beats:
                h = NOC.unpack(hdr)
                assert h["first"] == (not cur), f"output {o}: packets interleaved"
                cur.append((hdr, dat))
                if h["last"]:
                    packets.append(cur)
                    cur = []
            assert not cur, f"output {o}: packet not finished"
            seen = {}
            for pk in packets:
                h0 = NOC.unpack(pk[0][0])
                key = (o, h0["src_port"], h0["prio"])
                n = seen.get(key, 0)
                exp = self.expect.get(key, [])
                assert n < len(exp), f"output {o}: unexpected packet from {key}"
                f = exp[n]
                seen[key] = n + 1
                assert len(pk) == len(f.segs), f"output {o}: frame {f.id} has {len(pk)} segments"
                for (hdr, dat), (ihdr, idat, _) in zip(pk, f.segs):
                    want = NOC.unpack(ihdr)
                    want["out_port"] = o
                    assert NOC.unpack(hdr) == want, f"output {o} frame {f.id}: header"
                    assert dat == idat, f"output {o} frame {f.id}: data"
            for key, exp in self.expect.items():
                if key[0] == o:
                    assert seen.get(key, 0) == len(exp), f"{key}: got {seen.get(key, 0)} of {len(exp)}"
        # events
        assert self.events == self.want_events, (self.events[:5], self.want_events[:5])
        # nothing leaked
        free, held, qlen = self.snapshot()
        assert free == c.segments, f"free {free} != {c.segments}"
        assert held == [0] * c.nout and qlen == [0] * (2 * c.nout)
        assert int(d.stat_busy.value) == 0


async def setup(dut, **kw):
    r = rng()
    b = Bench(dut, r, **kw)          # drives the inputs before reset
    await start(dut)
    c = b.c
    assert int(dut.s_axis_tready.value) == 0
    for _ in range(c.segments + 2):
        await RisingEdge(dut.clk)
        if int(dut.init_done.value):
            break
    await ReadOnly()
    assert int(dut.init_done.value), "init sweep did not finish"
    assert int(dut.stat_free.value) == c.segments
    return b, r


@cocotb.test()
async def random_traffic(dut):
    """Interleaved multi-segment unicast/flood frames on every stream, random backpressure,
    out_room toggling, generous limits (drops only by the reserve, decided exactly)."""
    b, r = await setup(dut)
    b.src_p, b.sink_p, b.room_off_p, b.drain_p = 0.3, 0.3, 0.3, 0.3
    frames = [b.random_frame(s, max_seg=b.c.max_bytes // b.c.seg_bytes) for s in range(b.c.dps) for _ in range(60)]
    b.add(frames)
    await b.run_until_idle()
    b.check()
    copies = sum(len(f.copies or []) for f in frames)
    dut._log.info(f"{len(frames)} frames, {copies} copies delivered, {len(b.events)} drop events, "
                  f"{b.cycle} cycles, hwm {int(dut.stat_used_hwm.value)}")
    assert copies > len(frames) // 2


@cocotb.test()
async def tight_limits(dut):
    """Small queue limit, port limit and a reserve under load: every drop exactly as the policy
    says, other outputs unaffected, nothing leaks."""
    c = Cfg()
    b, r = await setup(dut, cfg_reserve=c.segments // 3, cfg_port_limit=max(2, c.segments // 6),
                       cfg_queue_limit=2)
    b.src_p, b.sink_p, b.room_off_p, b.drain_p = 0.1, 0.3, 0.5, 0.15
    frames = [b.random_frame(s, max_seg=3) for s in range(c.dps) for _ in range(60)]
    b.add(frames)
    await b.run_until_idle()
    b.check()
    reasons = {e[2] for e in b.events}
    dut._log.info(f"drop reasons {sorted(str(x) for x in reasons)}, {len(b.events)} events")
    assert R["reason_queue_full"] in reasons or any(e[4] for e in b.events), reasons


@cocotb.test()
async def oversubscribed_output(dut):
    """Output X held (out_room 0) with cfg_queue_limit 3: its queue takes 3 packets per priority,
    later copies for X are dropped (queue_full, with the output), flood copies to Y still go;
    when X opens, high-priority packets leave first."""
    c = Cfg()
    b, r = await setup(dut, cfg_queue_limit=3)
    x, y = 1, 2
    b.hold = {x}
    src = c.sources(0)[0] if c.sources(0)[0] not in (x, y) else c.ports
    lo = [Frame(c, r, 0, src, 2, 1 << x, 0, 0) for _ in range(5)]
    fl = [Frame(c, r, 0, src, 2, (1 << x) | (1 << y), 0, 0) for _ in range(2)]
    hi = [Frame(c, r, 0, src, 1, 1 << x, 0, 1) for _ in range(4)]
    b.add(lo + fl + hi)
    for _ in range(400):
        await b.step()
    assert [len(f.copies) for f in lo] == [1, 1, 1, 0, 0]
    assert [f.copies for f in fl] == [[y], [y]]
    assert [len(f.copies) for f in hi] == [1, 1, 1, 0]
    assert b.got[x] == []
    drops = [e for e in b.events if e[1]]
    assert [e[2] for e in drops] == [R["reason_queue_full"]] * 3
    assert sum(1 for e in b.events if e[4] == 1 << x) == 5
    b.hold = set()
    await b.run_until_idle()
    b.check()
    order = [NOC.unpack(h)["prio"] for h, _, _ in b.got[x] if NOC.unpack(h)["first"]]
    assert order == [1, 1, 1, 0, 0, 0], order


@cocotb.test()
async def buffer_exhaustion(dut):
    """Reserve 0 and every output held: a frame longer than the buffer fills it, the input
    stalls (tready low) instead of dropping; opening the output drains it cut-through in order.
    Then the reserve and the port threshold drop frames while the buffer is held full."""
    c = Cfg()
    b, r = await setup(dut, cfg_reserve=0)
    b.hold = set(range(c.nout))
    b.drain_p = 0.5
    big = Frame(c, r, 0, c.sources(0)[0], c.segments + 20, 1 << c.ports - 1 if c.sources(0)[0] != c.ports - 1 else 1, 0, 0)
    b.add([big])
    for _ in range(c.segments + 60):
        await b.step()
    assert int(dut.stat_free.value) == 0
    assert b.pending[0], "input should stall with the buffer full"
    assert int(dut.stat_used_hwm.value) == c.segments
    b.hold = set()
    await b.run_until_idle()
    b.check()
    # with all outputs held, frames are stored until the port threshold, then the reserve, says no
    full = (1 << c.cw) - 1
    for reserve, limit, reason in ((0, max(2, c.segments // 32), "reason_port_threshold"),
                                   (c.segments // 2, full, "reason_buffer_full")):
        await FallingEdge(dut.clk)
        b.reserve, b.port_limit = reserve, limit
        b.set_cfg()
        b.hold = set(range(c.nout))
        b.events.clear()
        b.want_events.clear()
        fr = [b.random_frame(s, max_seg=3, discard_p=0) for s in range(c.dps) for _ in range(80)]
        b.add(fr)
        for _ in range(800):
            await b.step()
        reasons = [e[2] for e in b.events if e[1]]
        assert R[reason] in reasons, reasons
        b.hold = set()
        await b.run_until_idle()
        b.check()
    await FallingEdge(dut.clk)
    dut.stat_hwm_clear.value = 1
    await RisingEdge(dut.clk)
    dut.stat_hwm_clear.value = 0
    await ClockCycles(dut.clk, 2)
    assert int(dut.stat_used_hwm.value) == 0


@cocotb.test()
async def room_limit(dut):
    """A TX FIFO of exactly ROOM segments that does not drain: SCHED fills it and stops (never
    more than ROOM in flight, whatever the lag); when it drains, the rest follows."""
    c = Cfg()
    b, r = await setup(dut)
    b.drain_p = 0.0
    x = c.ports - 1
    f = Frame(c, r, 0, c.sources(0)[0], 3 * c.room + 2, 1 << x, 0, 0)
    b.add([f])
    for _ in range(200):
        await b.step()
    assert 1 <= b.occ[x] <= c.room and len(b.got[x]) == b.occ[x]
    b.drain_p = 0.2
    await b.run_until_idle()
    b.check()


@cocotb.test()
async def latency_and_throughput(dut):
    """Idle buffer and output: a first segment is valid on m_axis exactly LATENCY cycles after
    it was accepted (every output, both streams). Back to back, the input takes one segment per
    cycle (both streams together)."""
    c = Cfg()
    b, r = await setup(dut)
    for o in range(c.nout):
        s = c.dp_of(o) if o >= c.ports else 0
        srcs = [p for p in c.sources(s) if p != o]
        f = Frame(c, r, s, srcs[0], 1, 1 << o if o < c.ports else 0, int(o >= c.ports), 0)
        b.add([f])
        await b.run_until_idle()
        key = (f.segs[0][0], o)
        hdr = NOC.unpack(f.segs[0][0])
        hdr["out_port"] = o
        okey = [k for k in b.out_cycle if NOC.unpack(k[0]) == hdr]
        assert len(okey) == 1
        lat = b.out_cycle[okey[0]] - b.in_cycle[f.id]
        assert lat == LATENCY, f"output {o}: latency {lat}"
        del key
    b.check()
    # throughput: both streams always valid, outputs always ready
    b.src_p = 0.0
    frames = [b.random_frame(s, max_seg=4, flood_p=0, discard_p=0.5) for s in range(c.dps) for _ in range(40)]
    b.add(frames)
    start_count, start_cycle = b.accept_count, b.cycle
    n = 100
    for _ in range(n):
        await b.step()
    assert b.accept_count - start_count >= n - 1, f"{b.accept_count - start_count} segments in {n} cycles"
    await b.run_until_idle()
    b.check()


@cocotb.test()
async def output_throughput(dut):
    """Packets queued for outputs of both TX datapaths (held, then opened; TX FIFOs never full,
    m_axis always ready): SCHED reads one segment per cycle in total, so the backlog leaves within
    one cycle per op (segments + one FINISH per packet) plus the pipeline's fill, and no output
    gets two ops within 3 cycles."""
    c = Cfg()
    b, r = await setup(dut)
    b.cap = 1 << 16                 # out_room always 1
    outs = [o for o in range(c.ports) if o % c.ppd < 3][:6]
    frames = []
    for o in outs:
        s = c.dp_of(o) if c.dp_of(o) < c.dps else 0
        src = [p for p in c.sources(s) if p != o][0]
        frames += [Frame(c, r, s, src, 3, 1 << o, 0, 0) for _ in range(2)]
    b.hold = set(outs)
    b.add(frames)
    for _ in range(4 * sum(len(f.segs) for f in frames) + 20):
        await b.step()
    assert all(f.copies == [o] for f, o in zip(frames, [o for o in outs for _ in range(2)]))
    total = sum(len(f.segs) for f in frames)
    assert sum(len(b.got[o]) for o in outs) == 0
    b.hold = set()
    start_cycle = b.cycle
    while sum(len(b.got[o]) for o in outs) < total:
        await b.step()
        assert b.cycle - start_cycle < 10 * total, "backlog does not drain"
    elapsed = b.cycle - start_cycle
    ops = total + len(frames)
    dut._log.info(f"{total} segments + {len(frames)} FINISH ops for {len(outs)} outputs in {elapsed} cycles")
    # the first segment is on m_axis 3 cycles after the choice (R, read stage, output buffer)
    assert elapsed <= ops + 3, f"{total} segments ({ops} ops) took {elapsed} cycles"
    for o in outs:
        cyc = [t for _, _, t in b.got[o]]
        assert all(y - x >= 3 for x, y in zip(cyc, cyc[1:])), (o, cyc)
    await b.run_until_idle()
    b.check()


# MAX_BYTES is set so that the default reserve leaves room to work in these small buffers; the
# random frames stay within it (max_seg <= MAX_BYTES / SEG_BYTES).
PARAMS = [
    {"SEGMENTS": 256, "MAX_BYTES": 6 * 64},
    {"PORTS": 5, "SEG_BYTES": 32, "SEGMENTS": 64, "QUEUE_DEPTH": 8, "ROOM": 3, "MAX_BYTES": 3 * 32},
]


@pytest.mark.parametrize("p", PARAMS, ids=lambda p: "-".join(f"{k}{v}" for k, v in p.items()))
def test_node_buffer(p):
    runner.run("fp_node_buffer", __name__, p)
