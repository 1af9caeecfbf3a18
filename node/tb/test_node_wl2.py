"""fp_node_wl2, the word-serial node's L2 table, cycle by cycle against fastpath.node.l2.L2Table.

The module has no AXI4-Stream ports (the lookup port has no ready, the host port a valid/ready
pair driven here with commands held until taken, the only backpressure there is). One coroutine
(`Bench.cycle`) drives every input and samples every output once per cycle.

The engine is modelled exactly: `Bench` mirrors its registers (the init sweep, the learn queue
and its count, the 8-cycle operation slots and their order host > flush sweep > learn > ageing
step, the host command register, the ageing timer, request and sweep) and so knows in every cycle
which operation starts, which bucket it reads and in which cycle it writes its bucket back. The
L2Table model is the RAM as the lookup port sees it: an operation is applied to it in the cycle
the engine writes (8 cycles after the operation was chosen), after that cycle's lookups have been
evaluated (a read in the cycle of a write returns the old word). Checked in every cycle, exactly:

- m_lk_valid (the 5-cycle latency of every lookup, and no output otherwise), m_lk_hit and, on a
  hit, m_lk_port: the model's lookup at the lookup's read cycle; a miss when init_done was low in
  that cycle;
- ev_learn_new / move / full of every learn in its write cycle (the model's learn result), and
  ev_learn_drop the cycle after a learn that found the queue full (the model skips it);
- host_cmd_ready (low from acceptance to the response), host_rsp_* of every command in its
  write cycle (status, bucket, way, entry), against the model's host_* operation;
- init_done.

Measured and asserted: a learn into an empty queue with the engine idle is written 9 cycles after
its s_ln_valid and seen by lookups issued from 10 cycles after it (the header's figure).
"""
from __future__ import annotations

from collections import Counter, deque

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.node import l2 as M
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

LK_LATENCY = 5
OP_CYCLES = 8
MASK32 = (1 << 32) - 1


class WModel(M.L2Table):
    """L2Table with the bucket function cached."""

    _hash_cache: dict = {}

    def hash(self, vid, mac):
        k = (vid, mac, self.buckets)
        h = self._hash_cache.get(k)
        if h is None:
            h = self._hash_cache[k] = M.l2_hash(vid, mac, self.buckets)
        return h

    def dynamic_count(self):
        return sum(e.valid and not e.static for bk in self.b for e in bk)


class Op:
    """One engine operation: its kind, bucket and arguments."""

    __slots__ = ("kind", "bucket", "args", "last")

    def __init__(self, kind, bucket, args=None, last=False):
        self.kind, self.bucket, self.args, self.last = kind, bucket, args, last


class Bench:
    def __init__(self, dut):
        p = params()
        self.dut = dut
        self.B, self.W = p["BUCKETS"], p["WAYS"]
        self.PB, self.D = p.get("PORT_BITS", 5), p.get("LEARN_DEPTH", 16)
        self.model = WModel(self.B, self.W, self.PB)
        self.j = 0                  # the current cycle
        self.checking = False       # the mirror is known (after two reset cycles)
        self.rst_run = 0
        self.lk_exp = {}            # cycle -> (hit, port) of the lookup due then
        self.host_cmd = None        # the command presented (held until taken)
        self.age = 0                # cfg_age_cycles driven
        self.stats = Counter()
        self.learn_done = []        # (write cycle, vid, mac, port, result)
        self.host_done = []         # (accept cycle, response cycle, cmd, HostRsp)
        self.age_steps = []         # (write cycle, bucket)
        self.removed_by_age = {}    # key -> the cycle an ageing step removed it
        self.lk_log = []            # (issue cycle, m_lk_hit) of every lookup answered
        self.lk_mismatch = None     # a list: lookup hit mismatches are recorded, not asserted
        self.lk_bucket = {}         # issue cycle -> bucket (only while lk_mismatch is a list)
        self._mreset()

    # ---- the mirror of the RTL's registers -------------------------------------------------
    def _mreset(self):
        self.init_q, self.init_idx, self.init_done, self.init_fin = True, 0, False, False
        self.busy, self.t, self.op = False, 0, None
        self.fin = None             # the operation writing back in this cycle
        self.q = deque()            # the learn queue (count includes an entry being popped)
        self.pop_now = False
        self.drop = False           # ev_learn_drop in this cycle
        self.h_pend = self.h_busy = False
        self.h = None               # (accept cycle, cmd)
        self.age_cnt, self.age_req, self.age_run, self.age_idx = 0, False, False, 0
        self.fl_run, self.fl_idx, self.fl_port = False, 0, None
        self.ev_after_rst = (0, 0, 0)

    @property
    def ready(self):
        return not self.h_busy and not self.h_pend

    def key_bucket(self, vid, mac):
        return self.model.hash(vid, mac)

    def _apply(self, op):
        """Apply an operation to the model (its write cycle); return (events, host response)."""
        m, ev, rsp = self.model, (0, 0, 0), None
        if op.kind == "learn":
            vid, mac, port = op.args
            assert m.hash(vid, mac) == op.bucket
            w = m._find(op.bucket, vid, mac)
            if w is not None and m.b[op.bucket][w].static and m.b[op.bucket][w].port != port:
                self.stats["learn_on_static_other_port"] += 1
            res = m.learn(vid, mac, port)
            ev = self._events(res)
            self.learn_done.append((self.j, vid, mac, port, res))
            self.stats["learn_" + res] += 1
        elif op.kind == "age":
            before = {(e.vid, e.mac) for e in m.b[op.bucket] if e.valid}
            m.age_bucket(op.bucket)
            after = {(e.vid, e.mac) for e in m.b[op.bucket] if e.valid}
            for k in before - after:
                self.removed_by_age[k] = self.j
            self.stats["age_removed"] += len(before - after)
            self.age_steps.append((self.j, op.bucket))
            self.stats["age_steps"] += 1
        elif op.kind == "flush":
            m.flush_bucket(op.bucket, op.args)     # args: the port, None for all
            if op.last:
                rsp = m.host_read(self.B - 1, 0)
        else:
            c = op.args
            if op.kind == "read":
                rsp = m.host_read(c["bucket"], c["way"])
            elif op.kind == "write":
                rsp = m.host_write(c["bucket"], c["way"], c["ev"], c["static"], c["port"],
                                   c["vid"], c["mac"])
            elif op.kind == "insert":
                rsp = m.host_insert(c["ev"], c["static"], c["port"], c["vid"], c["mac"])
            else:
                rsp = m.host_read(c["bucket"], c["way"])._replace(status=M.ST_BAD_OP)
        return ev, rsp

    @staticmethod
    def _events(res):
        return (int(res == "new"), int(res == "move"), int(res == "full"))

    def _edge(self, rst, ln, host_valid):
        """Advance the mirror over the rising edge that ends this cycle."""
        if rst:
            # an operation completing at this edge neither writes nor raises its learn event
            # (wr_en and the event registers are reset)
            ev = (0, 0, 0)
            if self.busy and self.t == 7 and self.op.kind == "learn":
                self.stats["learn_cut_at_reset"] += 1
            self._mreset()
            self.ev_after_rst = ev
            self.model = WModel(self.B, self.W, self.PB)
            return
        self.ev_after_rst = (0, 0, 0)
        full = len(self.q) == self.D
        self.drop = bool(ln) and full
        if self.drop:
            self.stats["drops"] += 1
        accept = host_valid and self.ready
        # the choice (from this cycle's registers)
        start_ = not self.init_q and not self.busy
        go_host = start_ and self.h_pend
        go_flush = start_ and not self.h_pend and self.fl_run
        go_learn = start_ and not self.h_pend and not self.fl_run and len(self.q) > 0
        go_age = start_ and not self.h_pend and not self.fl_run and not self.q and self.age_run
        # ageing timer and request
        a = self.age
        tick = a != 0 and self.age_cnt == 0
        age_start = not self.age_run and self.age_req and not self.busy
        if a == 0:
            self.age_cnt = 0
        elif self.age_cnt == 0 or self.age_cnt >= a:
            self.age_cnt = a - 1
        else:
            self.age_cnt -= 1
        if tick:
            self.age_req = True
            self.stats["age_ticks"] += 1
        if age_start:
            self.age_run, self.age_req, self.age_idx = True, False, 0
            self.stats["sweeps"] += 1
        fin = None
        if self.busy:
            if self.t == 7:
                fin = self.op
                self.busy = False
                if fin.kind == "age":
                    self.age_idx += 1
                    if fin.bucket == self.B - 1:
                        self.age_run = False
                elif fin.kind == "flush":
                    self.fl_idx += 1
                    if fin.last:
                        self.fl_run = False
                if fin.kind not in ("learn", "age") and not (fin.kind == "flush" and not fin.last):
                    self.h_busy = False
            else:
                self.t += 1
        new = None
        if go_host:
            _, c = self.h
            self.h_pend = False
            op = c["op"]
            if op in (M.OP_FLUSH_ALL, M.OP_FLUSH_PORT):
                self.fl_run, self.fl_idx = True, 0
                self.fl_port = c["port"] if op == M.OP_FLUSH_PORT else None
                new = Op("flush", 0, self.fl_port, last=self.B == 1)
            else:
                kind = {M.OP_READ: "read", M.OP_WRITE: "write", M.OP_INSERT: "insert"}.get(op, "bad")
                bk = self.key_bucket(c["vid"], c["mac"]) if kind == "insert" else c["bucket"]
                new = Op(kind, bk, c)
        elif go_flush:
            new = Op("flush", self.fl_idx, self.fl_port, last=self.fl_idx == self.B - 1)
        elif go_learn:
            bk, vid, mac, port = self.q[0]
            new = Op("learn", bk, (vid, mac, port))
        elif go_age:
            new = Op("age", self.age_idx)
        if new is not None:
            self.op, self.busy, self.t = new, True, 1

        if self.pop_now:
            self.q.popleft()
        self.pop_now = go_learn
        if ln and not full:
            self.q.append(ln)
        if accept:
            self.h_pend = self.h_busy = True
            self.h = (self.j, dict(self.host_cmd))
        self.fin = fin
        if self.init_fin:       # init_done: the cycle after the last init write
            self.init_fin, self.init_done = False, True
        if self.init_q:
            if self.init_idx == self.B - 1:
                self.init_q, self.init_fin = False, True
            self.init_idx += 1

    # ---- one cycle ---------------------------------------------------------------------------
    async def cycle(self, lk=None, ln=None, rst=0):
        """Drive one cycle: lk = (vid, mac) to look up, ln = (vid, mac, port) to learn."""
        dut = self.dut
        dut.rst.value = rst
        if lk is not None:
            dut.s_lk_valid.value = 1
            dut.s_lk_bucket.value = self.key_bucket(*lk)
            dut.s_lk_vid.value = lk[0]
            dut.s_lk_mac.value = lk[1]
        else:
            dut.s_lk_valid.value = 0
        lnq = None
        if ln is not None:
            lnq = (self.key_bucket(ln[0], ln[1]), ln[0], ln[1], ln[2])
            dut.s_ln_valid.value = 1
            dut.s_ln_bucket.value = lnq[0]
            dut.s_ln_vid.value = ln[0]
            dut.s_ln_mac.value = ln[1]
            dut.s_ln_port.value = ln[2]
        else:
            dut.s_ln_valid.value = 0
        dut.cfg_age_cycles.value = self.age
        c = self.host_cmd
        if c is not None:
            dut.host_cmd_valid.value = 1
            dut.host_cmd_op.value = c["op"]
            dut.host_cmd_bucket.value = c["bucket"]
            dut.host_cmd_way.value = c["way"]
            dut.host_cmd_entry_valid.value = c["ev"]
            dut.host_cmd_static.value = c["static"]
            dut.host_cmd_port.value = c["port"]
            dut.host_cmd_vid.value = c["vid"]
            dut.host_cmd_mac.value = c["mac"]
        else:
            dut.host_cmd_valid.value = 0
        await ReadOnly()
        j = self.j
        if self.checking:
            # lookups read the RAM in this cycle, before this cycle's write
            if lk is not None and not rst:
                if self.lk_mismatch is not None:
                    self.lk_bucket[j] = self.key_bucket(*lk)
                self.lk_exp[j + LK_LATENCY] = self.model.lookup(*lk) if self.init_done else (False, 0)
                self.stats["lookups"] += 1
                self.stats["lookups_before_init"] += not self.init_done
            ev, rsp = (0, 0, 0), None
            if self.fin is not None:
                ev, rsp = self._apply(self.fin)
            if self.ev_after_rst != (0, 0, 0):
                ev = self.ev_after_rst
            self._check(j, ev, rsp)
            if rsp is not None:
                acc, cmd = self.h
                self.host_done.append((acc, j, cmd, rsp))
                if self.host_cmd is not None:
                    self.stats["host_cmd_waited_for_ready"] += 1
                self.stats[f"host_op{cmd['op']}_st{rsp.status}"] += 1
            self._edge(rst, lnq, c is not None)
            if c is not None and self.h is not None and self.h[0] == j:
                self.host_cmd = None     # taken at this edge
            if rst:
                for k in range(j + 1, j + LK_LATENCY + 1):
                    self.lk_exp.pop(k, None)
                self.host_cmd = None
        if rst:
            self.rst_run += 1
            if self.rst_run >= 2 and not self.checking:
                self.checking = True
                self._mreset()
                self.model = WModel(self.B, self.W, self.PB)
        else:
            self.rst_run = 0
        await RisingEdge(dut.clk)
        self.j += 1

    def _check(self, j, ev, rsp):
        dut = self.dut
        want = self.lk_exp.pop(j, None)
        got_v = int(dut.m_lk_valid.value)
        assert got_v == (want is not None), \
            f"cycle {j}: m_lk_valid {got_v}, expected {int(want is not None)} (5-cycle latency)"
        if want is not None:
            hit = int(dut.m_lk_hit.value)
            if self.lk_mismatch is not None and hit != want[0]:
                self.lk_mismatch.append((j - LK_LATENCY, hit))
                want = (hit, int(dut.m_lk_port.value))
            assert hit == want[0], f"cycle {j}: lookup issued in cycle {j - LK_LATENCY}: " \
                f"m_lk_hit {hit}, expected {int(want[0])}"
            if hit:
                port = int(dut.m_lk_port.value)
                assert port == want[1], f"cycle {j}: m_lk_port {port}, expected {want[1]}"
            self.stats["hits"] += hit
            self.lk_log.append((j - LK_LATENCY, hit))
        got_ev = (int(dut.ev_learn_new.value), int(dut.ev_learn_move.value),
                  int(dut.ev_learn_full.value))
        assert got_ev == ev, f"cycle {j}: ev_learn new/move/full {got_ev}, expected {ev}"
        drop = int(dut.ev_learn_drop.value)
        assert drop == int(self.drop), f"cycle {j}: ev_learn_drop {drop}, expected {int(self.drop)}"
        ready = int(dut.host_cmd_ready.value)
        assert ready == int(self.ready), f"cycle {j}: host_cmd_ready {ready}, expected {int(self.ready)}"
        idone = int(dut.init_done.value)
        assert idone == int(self.init_done), f"cycle {j}: init_done {idone}, expected {int(self.init_done)}"
        rv = int(dut.host_rsp_valid.value)
        assert rv == (rsp is not None), f"cycle {j}: host_rsp_valid {rv}, expected {int(rsp is not None)}"
        if rsp is not None:
            got = (int(dut.host_rsp_status.value), int(dut.host_rsp_bucket.value),
                   int(dut.host_rsp_way.value), int(dut.host_rsp_entry_valid.value),
                   int(dut.host_rsp_static.value), int(dut.host_rsp_hit.value),
                   int(dut.host_rsp_port.value), int(dut.host_rsp_vid.value),
                   int(dut.host_rsp_mac.value))
            e = rsp.entry
            exp = (rsp.status, rsp.bucket, rsp.way, int(e.valid), int(e.static), int(e.hit),
                   e.port, e.vid, e.mac)
            assert got == exp, f"cycle {j}: host response {got}, expected {exp} for {self.h}"

    # ---- helpers ------------------------------------------------------------------------------
    async def reset(self, cycles=3, **kw):
        for _ in range(cycles):
            await self.cycle(rst=1, **kw)

    async def begin(self):
        dut = self.dut
        for s in ("rst", "s_lk_valid", "s_lk_bucket", "s_lk_vid", "s_lk_mac", "s_ln_valid",
                  "s_ln_bucket", "s_ln_vid", "s_ln_mac", "s_ln_port", "cfg_age_cycles",
                  "host_cmd_valid", "host_cmd_op", "host_cmd_bucket", "host_cmd_way",
                  "host_cmd_entry_valid", "host_cmd_static", "host_cmd_port", "host_cmd_vid",
                  "host_cmd_mac"):
            getattr(dut, s).value = 0
        await start(dut, rst=None)
        await RisingEdge(dut.clk)
        await self.reset()

    async def until_init(self, **kw):
        while not self.init_done:
            await self.cycle(**kw)

    async def host(self, op, bucket=0, way=0, ev=1, static=0, port=0, vid=0, mac=0, lk=None):
        """Send one host command and wait for its response (lookups `lk()` meanwhile)."""
        assert self.host_cmd is None
        n = len(self.host_done)
        self.host_cmd = dict(op=op, bucket=bucket, way=way, ev=ev, static=static, port=port,
                             vid=vid, mac=mac)
        while len(self.host_done) == n:
            await self.cycle(lk=lk() if lk else None)
        return self.host_done[-1]

    async def idle(self, n, lk=None):
        for _ in range(n):
            await self.cycle(lk=lk() if lk else None)

    async def drain(self, lk=None):
        """Run until the queue is empty, no engine operation and no host command are left."""
        while self.q or self.busy or self.h_pend or self.h_busy or self.fl_run or \
                self.host_cmd is not None or self.fin is not None:
            await self.cycle(lk=lk() if lk else None)


def keys_in_bucket(r, bucket, buckets, n, vid=1):
    """n distinct keys {vid, mac} whose bucket is `bucket` (the fold is linear: flip the low bits)."""
    hb = buckets.bit_length() - 1
    out = []
    while len(out) < n:
        mac = r.getrandbits(48) & ~(1 << 40)
        mac ^= M.l2_hash(vid, mac, buckets) ^ bucket
        assert M.l2_hash(vid, mac, buckets) == bucket and hb <= 12
        if (vid, mac) not in out:
            out.append((vid, mac))
    return out


# ---- tests ---------------------------------------------------------------------------------------

@cocotb.test()
async def random_traffic(dut):
    """Lookups and learns at random in every cycle through phases of learn load (bursts that fill
    the queue, steady, quiet), moves, a hot bucket that fills (learn_full), random host commands
    of every op held until taken, ageing with a short period: every output checked each cycle."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    B, W, pb = b.B, b.W, b.PB
    b.age = max(300, 5 * B)
    pool = [(r.choice([1, 2, 100, 4095]), r.getrandbits(48)) for _ in range(min(3 * B * W // 4, 400))]
    hot = keys_in_bucket(r, r.randrange(B), B, W + 3, vid=7)
    home = {k: r.randrange(6) for k in pool + hot}

    def any_key():
        x = r.random()
        if x < 0.65:
            return r.choice(pool)
        if x < 0.8:
            return r.choice(hot)
        if x < 0.9:  # a pool key's MAC under another VID (another bucket): a miss
            v, m = r.choice(pool)
            return (v ^ 8, m)
        return (r.randrange(4096), r.getrandbits(48))

    def host_cmd():
        op = r.choices(range(6), [25, 20, 35, 1, 1, 3])[0]
        op = r.randint(5, 7) if op == 5 else op
        vid, mac = r.choice(pool + hot) if r.random() < 0.8 else any_key()
        bucket = b.key_bucket(vid, mac) if r.random() < 0.5 else r.randrange(B)
        return dict(op=op, bucket=bucket, way=r.randrange(W), ev=int(r.random() < 0.75),
                    static=int(r.random() < 0.4), port=r.randrange(1 << pb), vid=vid, mac=mac)

    # (learn probability, phase length): bursts fill the queue, the quiet ones let sweeps run
    # learns come from a window of the pool that moves with each phase, so that the keys left
    # out are not refreshed and age out
    phases = [(0.5, 300), (0.08, 1500), (0.0, 1500), (0.1, 1000), (0.03, 1500)]
    cycles = 20000
    flushes = 0
    while b.j < cycles:
        p_ln, length = r.choice(phases)
        w0 = r.randrange(len(pool))
        active = (pool + pool)[w0:w0 + len(pool) // 3]
        for _ in range(r.randrange(length // 4, length)):
            lk = any_key() if r.random() < 0.85 else None
            ln = None
            if r.random() < p_ln:
                k = r.choice(active) if r.random() < 0.8 else r.choice(hot)
                if r.random() < 0.03:
                    home[k] = r.randrange(6)
                ln = (k[0], k[1], home[k] if r.random() < 0.9 else r.randrange(1 << pb))
            # offered also while the previous one runs: held with ready low until its response
            if b.host_cmd is None and r.random() < 0.015:
                c = host_cmd()
                if c["op"] in (M.OP_FLUSH_ALL, M.OP_FLUSH_PORT):
                    flushes += 1
                    if flushes > 3:
                        c["op"] = M.OP_READ
                b.host_cmd = c
            await b.cycle(lk=lk, ln=ln)
    await b.drain()
    s = b.stats
    dut._log.info(f"{b.j} cycles; stats {dict(sorted(s.items()))}")
    assert s["lookups"] > 10000 and s["hits"] > 1000, "too few lookups / hits"
    for k in ("learn_new", "learn_move", "learn_full", "learn_refresh", "drops", "age_removed"):
        assert s[k] > 0, f"no {k}"
    assert s["age_steps"] > B, "not one full sweep"
    for op in range(3):
        assert sum(v for k, v in s.items() if k.startswith(f"host_op{op}_")) > 0, f"no host op {op}"
    assert s["host_op2_st1"] + s["host_op2_st2"] > 0, "no INSERT FULL / NOT_FOUND"


@cocotb.test()
async def host_ops(dut):
    """Every host op directed, with lookups in every cycle: WRITE (static and dynamic), INSERT
    (new, update, FULL, remove, NOT_FOUND), READ, FLUSH_PORT, FLUSH_ALL (statics stay), BAD_OP
    5..7; host_cmd_ready low from acceptance to the response (asserted each cycle), the response
    exactly 8 cycles after the operation starts (a flush: 8 per bucket)."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    B, W = b.B, b.W
    keys = []
    await b.until_init()
    bucket = r.randrange(B)
    hot = keys_in_bucket(r, bucket, B, W + 1, vid=3)

    def lk():
        return r.choice(hot + keys) if keys and r.random() < 0.9 else r.choice(hot)

    # idle engine: accepted at a, started at a + 1, response at a + 1 + 8
    for way, (vid, mac) in enumerate(hot[:W - 1]):
        acc, rsp_at, _, rsp = await b.host(M.OP_WRITE, bucket, way, ev=1, static=way % 2,
                                           port=way + 1, vid=vid, mac=mac, lk=lk)
        assert rsp.status == M.ST_OK and rsp_at == acc + 1 + OP_CYCLES
    vid, mac = hot[W - 1]
    _, _, _, rsp = await b.host(M.OP_INSERT, ev=1, static=0, port=9, vid=vid, mac=mac, lk=lk)
    assert rsp.status == M.ST_OK and rsp.way == W - 1 and rsp.bucket == bucket
    _, _, _, rsp = await b.host(M.OP_INSERT, ev=1, static=1, port=10, vid=vid, mac=mac, lk=lk)
    assert rsp.status == M.ST_OK and rsp.way == W - 1 and rsp.entry.static   # update in place
    vid, mac = hot[W]
    _, _, _, rsp = await b.host(M.OP_INSERT, ev=1, port=2, vid=vid, mac=mac, lk=lk)
    assert rsp.status == M.ST_FULL
    _, _, _, rsp = await b.host(M.OP_INSERT, ev=0, vid=vid, mac=mac, lk=lk)
    assert rsp.status == M.ST_NOT_FOUND
    vid, mac = hot[0]
    _, _, _, rsp = await b.host(M.OP_INSERT, ev=0, vid=vid, mac=mac, lk=lk)
    assert rsp.status == M.ST_OK and rsp.way == 0 and not rsp.entry.valid
    for way in range(W):
        _, _, _, rsp = await b.host(M.OP_READ, bucket, way, lk=lk)
        assert rsp.status == M.ST_OK
    for op in (5, 6, 7):
        _, _, _, rsp = await b.host(op, r.randrange(B), r.randrange(W), lk=lk)
        assert rsp.status == M.ST_BAD_OP
    # learned entries on ports 0..3 all over the table, then flush port 2, then all
    for i in range(min(B * W // 2, 120)):
        k = (1, r.getrandbits(48))
        keys.append(k)
        await b.cycle(lk=lk(), ln=(k[0], k[1], i % 4))
        await b.idle(7, lk=lk)
    await b.drain(lk=lk)
    n_dyn = b.model.dynamic_count()
    acc, rsp_at, _, rsp = await b.host(M.OP_FLUSH_PORT, port=2, lk=lk)
    assert rsp.status == M.ST_OK and rsp.bucket == B - 1 and rsp.way == 0
    assert rsp_at == acc + 1 + OP_CYCLES * B
    assert all(not (e.valid and not e.static and e.port == 2) for bk in b.model.b for e in bk)
    assert 0 < b.model.dynamic_count() < n_dyn
    statics = sum(e.valid and e.static for bk in b.model.b for e in bk)
    acc, rsp_at, _, rsp = await b.host(M.OP_FLUSH_ALL, lk=lk)
    assert rsp_at == acc + 1 + OP_CYCLES * B
    assert b.model.dynamic_count() == 0 and statics > 0
    assert sum(e.valid and e.static for bk in b.model.b for e in bk) == statics
    dut._log.info(f"stats {dict(sorted(b.stats.items()))}")


@cocotb.test()
async def learn_timing_and_queue(dut):
    """A learn into an empty queue and an idle engine, its key looked up in every cycle: the
    write 9 cycles after s_ln_valid, lookups hit from 10 cycles after it. A burst of learns in
    consecutive cycles: the queue takes LEARN_DEPTH (plus those the engine takes meanwhile), the
    rest is dropped (ev_learn_drop, checked each cycle against the mirror's queue count), the
    accepted ones are written one per 8 cycles and then found by lookups."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    await b.until_init()
    await b.idle(3)
    vid, mac = 5, r.getrandbits(48)
    v = b.j
    await b.cycle(lk=(vid, mac), ln=(vid, mac, 3))
    for _ in range(14):
        await b.cycle(lk=(vid, mac))
    await b.idle(LK_LATENCY + 1)
    wr = b.learn_done[-1][0]
    assert wr == v + 1 + OP_CYCLES, f"learn at {v} written in cycle {wr}"
    hits = [c for c, h in b.lk_log if c >= v and h]
    first = hits[0]
    assert hits == list(range(first, v + 15)), "a lookup missed after the first hit"
    dut._log.info(f"learn at cycle {v}: written in cycle {wr}, lookups hit from cycle {first} "
                  f"(s_ln_valid + {first - v})")
    assert first == wr + 1
    # a burst of learns, one per cycle
    n = b.D + 12
    keys = [(6, r.getrandbits(48)) for _ in range(n)]
    d0, l0 = b.stats["drops"], len(b.learn_done)
    for k in keys:
        await b.cycle(ln=(k[0], k[1], 1))
    await b.drain()
    dropped = b.stats["drops"] - d0
    done = b.learn_done[l0:]
    assert dropped > 0 and len(done) == n - dropped
    assert all(y[0] - x[0] == OP_CYCLES for x, y in zip(done, done[1:]))
    for k in keys:
        await b.cycle(lk=k)
    await b.idle(LK_LATENCY + 1)
    found = {(x[1], x[2]) for x in done if x[4] != "full"}
    assert sum(h for c, h in b.lk_log[-n:]) == len(found)
    dut._log.info(f"burst of {n} learns in {n} cycles: {dropped} dropped")


@cocotb.test()
async def ageing(dut):
    """A short ageing period (a sweep + BUCKETS + 400 cycles), lookups in every cycle: a dynamic entry
    that is not refreshed is gone after one to two periods, those refreshed twice a period and
    the static ones stay; sweeps start once per period; cfg_age_cycles = 0 stops them."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    B, W = b.B, b.W
    sweep = OP_CYCLES * B
    # long enough for the first sweep (from reset) and the learns below to end before the next
    period = sweep + B + 400
    b.age = period
    await b.until_init()
    while b.age_run:
        await b.cycle()
    # one key per bucket (spread, so that none is refused as full)
    n = min(B, 32)
    keys = [keys_in_bucket(r, bk * B // n, B, 1, vid=9)[0] for bk in range(n)]
    kept, statics, plain = keys[:4], keys[4:8], keys[8:]
    for k in plain:
        await b.cycle(ln=(k[0], k[1], 2))
        await b.idle(OP_CYCLES - 1)
    await b.drain()
    learned = {(x[1], x[2]): x[0] for x in b.learn_done}
    assert all(x[4] == "new" for x in b.learn_done)
    for k in statics:
        await b.host(M.OP_INSERT, ev=1, static=1, port=4, vid=k[0], mac=k[1])
    t_end = b.j + 3 * period
    refresh = deque()
    while b.j < t_end:
        if b.j % (period // 2) == 0:    # all kept ones twice a period, a learn per cycle
            refresh.extend(kept)
        k = refresh.popleft() if refresh else None
        await b.cycle(lk=r.choice(keys), ln=(k[0], k[1], 1) if k else None)
    # a sweep is held back by at most the refresh learns it meets (2 bursts) and an operation
    slack = OP_CYCLES * (2 * len(kept) + 2)
    for k, t in learned.items():
        gone = b.removed_by_age.get(k)
        assert gone is not None, f"{k} not aged out"
        life = gone - t
        assert period - slack <= life <= 2 * period + slack, \
            f"{k} learned in cycle {t}, aged out in {gone}: {life} cycles, period {period}"
    for k in kept + statics:
        assert b.model.lookup(*k)[0] and k not in b.removed_by_age, f"{k} aged out"
    # the sweeps' first steps (the first sweep, requested at reset, waited for init)
    starts = [t for t, bk in b.age_steps if bk == 0][1:]
    assert len(starts) >= 3
    assert all(period - slack <= y - x <= period + slack for x, y in zip(starts, starts[1:])), starts
    # ageing off: once the sweep under way (and one requested) is over, entries stay
    b.age = 0
    while b.age_run or b.age_req:
        await b.cycle(lk=r.choice(keys))
    for k in plain:
        await b.cycle(lk=r.choice(keys), ln=(k[0], k[1], 3))
        await b.idle(OP_CYCLES - 1)
    n_steps = b.stats["age_steps"]
    for _ in range(2 * period):
        await b.cycle(lk=r.choice(plain))
    assert b.stats["age_steps"] == n_steps and all(b.model.lookup(*k)[0] for k in plain)
    dut._log.info(f"stats {dict(sorted(b.stats.items()))}")


@cocotb.test()
async def init_after_reset(dut):
    """After the first reset: lookups in every cycle of init miss, init_done rises after
    BUCKETS + 1 cycles, learns (more than the queue holds: the rest dropped) and a host command sent
    during init wait for it and then run in order (host first). Then a reset that cuts a learn
    in its last cycle."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    B = b.B
    t0 = b.j
    keys = [(1, r.getrandbits(48)) for _ in range(B)]
    b.host_cmd = dict(op=M.OP_INSERT, bucket=0, way=0, ev=1, static=1, port=1,
                      vid=keys[0][0], mac=keys[0][1])
    i = 0
    while not b.init_done:
        await b.cycle(lk=r.choice(keys), ln=(keys[i][0], keys[i][1], 2) if i % 3 == 0 else None)
        i += 1
    assert b.j - t0 == B + 1, f"init_done {b.j - t0} cycles after reset"
    assert b.stats["lookups_before_init"] == B + 1
    await b.drain(lk=lambda: r.choice(keys))
    # the first operation starts in the cycle after the last init write: the host command
    assert b.host_done[0][1] == t0 + B + OP_CYCLES
    assert b.learn_done[0][0] == b.host_done[0][1] + OP_CYCLES
    assert b.stats["drops"] == max(0, (B + 2) // 3 - b.D)
    # a reset in the last cycle of a learn: the write and its event are cancelled (wr_en and the
    # event registers are reset); the key is not in the table after init
    k = (11, r.getrandbits(48))
    await b.cycle(ln=(k[0], k[1], 1))
    while not (b.busy and b.t == 7 and b.op.kind == "learn"):
        await b.cycle()
    await b.reset(cycles=2)
    assert b.stats["learn_cut_at_reset"] == 1
    await b.until_init()
    await b.idle(2)
    t0 = len(b.lk_log)
    await b.cycle(lk=k)
    await b.idle(LK_LATENCY + 1)
    assert b.lk_log[t0][1] == 0
    dut._log.info(f"stats {dict(sorted(b.stats.items()))}")


@cocotb.test()
async def reset_with_entries(dut):
    """A reset with a full table in the middle of traffic (learns and a host command under way):
    every lookup issued while init_done is low misses, and the table is empty from init_done on
    (lookups of the buckets cleared last, in the last cycles of init and the first after it)."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    B, W = b.B, b.W
    await b.until_init()
    # fill the table by index (every way of every bucket holds a key of its bucket)
    live = []
    for bk in range(B):
        for w, k in enumerate(keys_in_bucket(r, bk, B, W, vid=2)):
            await b.host(M.OP_WRITE, bk, w, ev=1, static=0, port=w, vid=k[0], mac=k[1])
            live.append(k)
    await b.drain()
    assert all(b.model.lookup(*k)[0] for k in live)
    b.host_cmd = dict(op=M.OP_READ, bucket=1, way=0, ev=1, static=0, port=0, vid=0, mac=0)
    for _ in range(5):
        await b.cycle(lk=r.choice(live), ln=(3, r.getrandbits(48), 1))
    await b.reset(cycles=2)
    # lookups of live keys in every cycle of init; in its last cycles, of the buckets not yet
    # cleared; then the last bucket (cleared last) and the others
    b.lk_mismatch = []
    r0 = b.j
    while not b.init_done:
        k = live[W * (B - 1 - r.randrange(4)) + r.randrange(W)] if b.init_idx >= B - 6 \
            else r.choice(live)
        await b.cycle(lk=k)
    done_at = b.j
    for _ in range(3):
        await b.cycle(lk=live[W * (B - 1) + r.randrange(W)])
    for k in live[:64]:
        await b.cycle(lk=k)
    await b.idle(LK_LATENCY + 1)
    stale = [(c - done_at, b.lk_bucket[c]) for c, _ in b.lk_mismatch]
    assert not stale, f"reset released in cycle {r0}, init_done from cycle {done_at}: lookups " \
        f"issued in cycles init_done{stale[0][0]:+d}.. hit entries from before the reset " \
        f"(cycle relative to init_done, bucket): {stale}"


@cocotb.test()
async def ageing_enabled_at_run_time(dut):
    """cfg_age_cycles = 0 (off) after reset, then set to a short period: an unrefreshed entry is
    gone within two periods and a sweep."""
    r = rng()
    b = Bench(dut)
    await b.begin()
    await b.until_init()
    k = (4, r.getrandbits(48))
    await b.cycle(ln=(k[0], k[1], 1))
    await b.drain()
    await b.idle(50)
    period = OP_CYCLES * b.B + 100
    b.age = period
    await b.idle(2 * period + OP_CYCLES * b.B + 50)
    t0 = len(b.lk_log)
    await b.cycle(lk=k)
    await b.idle(LK_LATENCY + 1)
    assert not b.lk_log[t0][1], \
        f"entry still present {2 * period + OP_CYCLES * b.B + 50} cycles after ageing was " \
        f"enabled with cfg_age_cycles = {period} (sweeps requested: {b.stats['age_ticks']})"


@pytest.mark.parametrize("buckets,ways", [(16, 2), (128, 8), (256, 4)])
def test_node_wl2(buckets, ways):
    runner.run("fp_node_wl2", __name__,
               {"BUCKETS": buckets, "WAYS": ways, "PORT_BITS": 5, "LEARN_DEPTH": 16})
