"""fp_p4_tcam: cycle-by-cycle comparison with a Python TCAM (the lowest-index valid entry with
((key ^ value) & mask) == 0 wins), exact latency, write/lookup ordering, reset, bad writes.

The TCAM has a valid-only lookup pipeline and a write strobe, no AXI4-Stream port and no
backpressure, so no bus models or stalls apply: the test drives the pins directly with random
timing instead (key_valid in bursts of random density, writes at random cycles, garbage on the
key and write fields whenever their strobe is low). Inputs change on the falling edge and are
sampled on the rising edge; the outputs are checked in the read-only phase after every edge:
a result must appear exactly LATENCY cycles after its key and never otherwise, wr_bad exactly one
cycle after a write to an index >= ENTRIES, and a lookup must see exactly the writes presented
two or more cycles before its key (WR_DELAY), whole.

Entries are exact, LPM-shaped (prefix masks from the key's MSB), random ternary, match-all, and
derived from other entries (same value, wider or narrower mask: overlaps); value bits under a
mask bit of 0 are random, since they must not matter. Keys are random, built to hit a chosen
entry (its cared bits, random elsewhere), or one cared bit away from it (near misses).

The same cocotb tests run fp_p4_tcam_cascade (test_p4_tcam_cascade.py imports them): the geometry
and the latency come from the parameters.
"""
import cocotb
import pytest
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from fastpath.p4.pipeline_load import tcam_latency
from fastpath.sim import runner
from fastpath.sim.tb import high, params, rng, start


# ---- geometry ------------------------------------------------------------------------------

def geometry(p: dict) -> tuple[int, int, int]:
    """(entries, index width, latency) of fp_p4_tcam or fp_p4_tcam_cascade from its parameters."""
    if "BLOCKS" in p:
        entries = p["BLOCKS"] * p["BLOCK_ENTRIES"]
        lat = tcam_latency(p["KEY_WIDTH"], p["BLOCK_ENTRIES"], p["CMP_CHUNK"], p["AND_RADIX"],
                           p["ENC_RADIX"], blocks=p["BLOCKS"])
    else:
        entries = p["ENTRIES"]
        lat = tcam_latency(p["KEY_WIDTH"], entries, p["CMP_CHUNK"], p["AND_RADIX"], p["ENC_RADIX"])
    return entries, max(1, (entries - 1).bit_length()), lat


# ---- reference model and bench -------------------------------------------------------------

WR_DELAY = 2   # a lookup sees the writes presented this many cycles or more before its key

def lookup(table, key):
    """The reference: (index, action) of the lowest-index valid entry matching key, or None."""
    for i, e in enumerate(table):
        if e is not None and e[0] and ((key ^ e[1]) & e[2]) == 0:
            return i, e[3]
    return None


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.r = rng()
        p = params()
        self.kw, self.aw = p["KEY_WIDTH"], p["ACTION_WIDTH"]
        self.entries, self.iw, self.latency = geometry(p)
        self.ones = (1 << self.kw) - 1
        self.table = [None] * self.entries      # (valid, value, mask, action) or None (after reset)
        self.pending = {}                       # accept cycle -> expected lookup result
        self.in_flight = []                     # (cycle, index, entry): writes not yet seen
        self.t = 0
        self.stats = dict(lookups=0, hits=0, misses=0, writes=0, bad=0, write_in_flight=0, write_in_flight_changed=0)
        self.winners = set()                    # indexes that won a lookup

    async def start(self):
        d = self.dut
        d.key_valid.value = 0
        d.key.value = 0
        d.wr_en.value = 0
        d.wr_index.value = 0
        d.wr_entry_valid.value = 0
        d.wr_value.value = 0
        d.wr_mask.value = 0
        d.wr_action.value = 0
        await start(d)
        d._log.info("entries %d, key %d bits, action %d bits, latency %d",
                    self.entries, self.kw, self.aw, self.latency)

    # -- entries and keys --
    def entry(self, kind=None):
        """A random entry (valid, value, mask, action); value bits under mask 0 are random."""
        r, kw = self.r, self.kw
        kind = kind or r.choices(["exact", "lpm", "ternary", "derived", "all"], [3, 4, 4, 3, 0.3])[0]
        value = r.getrandbits(kw)
        if kind == "exact":
            mask = self.ones
        elif kind == "lpm":
            plen = r.randint(0, kw)
            mask = (self.ones << (kw - plen)) & self.ones
        elif kind == "ternary":
            # sparse masks only on wide keys: on a 10-bit key they would match almost every key
            density = r.choice([0.1, 0.5, 0.9, 0.98] if kw >= 64 else [0.5, 0.8, 0.9, 0.98])
            mask = sum(1 << b for b in range(kw) if r.random() < density)
        elif kind == "derived":   # overlaps an existing entry: same cared value, other mask
            others = [e for e in self.table if e is not None]
            if not others:
                return self.entry("ternary")
            _, ov, om, _ = r.choice(others)
            flip = sum(1 << b for b in range(kw) if r.random() < 0.1)
            mask = om & ~flip if r.random() < 0.5 else om | flip
            value = (ov & om) | (value & ~om)
        else:                     # match-all
            mask = 0
        return (int(r.random() < 0.9), value, mask, r.getrandbits(self.aw))

    def key_for(self, e, near=False):
        """A key matching entry e's cared bits (random elsewhere); near: one cared bit flipped."""
        _, value, mask, _ = e
        key = (value & mask) | (self.r.getrandbits(self.kw) & ~mask & self.ones)
        if near and mask:
            bits = [b for b in range(self.kw) if mask >> b & 1]
            key ^= 1 << self.r.choice(bits)
        return key

    def random_key(self):
        r = self.r
        live = [e for e in self.table if e is not None]
        x = r.random()
        if live and x < 0.6:
            return self.key_for(r.choice(live))
        if live and x < 0.8:
            return self.key_for(r.choice(live), near=True)
        return r.getrandbits(self.kw)

    # -- one clock cycle --
    async def step(self, key=None, write=None, rst=False):
        """Drive one cycle (key: int or None, write: (index, entry) or None), then check what the
        outputs show after the rising edge."""
        d, r = self.dut, self.r
        await FallingEdge(d.clk)
        d.rst.value = int(rst)
        d.key_valid.value = int(key is not None)
        d.key.value = key if key is not None else r.getrandbits(self.kw)
        d.wr_en.value = int(write is not None)
        if write is not None:
            index, (valid, value, mask, action) = write
        else:  # garbage the TCAM must ignore
            index, valid, value, mask, action = (r.getrandbits(self.iw), r.getrandbits(1), r.getrandbits(self.kw),
                                                 r.getrandbits(self.kw), r.getrandbits(self.aw))
        d.wr_index.value = index
        d.wr_entry_valid.value = valid
        d.wr_value.value = value
        d.wr_mask.value = mask
        d.wr_action.value = action
        await RisingEdge(d.clk)
        t = self.t
        self.t += 1
        bad = False
        if rst:       # in-flight lookups and writes are dropped, every entry becomes invalid
            self.pending.clear()
            self.in_flight.clear()
            self.table = [None] * self.entries
        else:
            # a lookup sees the writes presented WR_DELAY (2) or more cycles before its key
            while self.in_flight and self.in_flight[0][0] <= t - WR_DELAY:
                _, i, e = self.in_flight.pop(0)
                self.table[i] = e
            if key is not None:
                want = self.pending[t] = lookup(self.table, key)
                self.stats["lookups"] += 1
                self.stats["hits" if want else "misses"] += 1
                if want:
                    self.winners.add(want[0])
                if self.in_flight or write is not None:   # a write in flight changes the answer
                    ahead = list(self.table)
                    for _, i, e in self.in_flight + ([(t, index, write[1])] if write is not None
                                                     and index < self.entries else []):
                        ahead[i] = e
                    self.stats["write_in_flight"] += 1
                    self.stats["write_in_flight_changed"] += lookup(ahead, key) != want
            if write is not None:
                if index >= self.entries:
                    bad = True
                    self.stats["bad"] += 1
                else:
                    self.in_flight.append((t, index, write[1]))
                    self.stats["writes"] += 1
        await ReadOnly()
        self.check(t - self.latency, t)
        assert high(d.wr_bad) == bad, f"cycle {t}: wr_bad {d.wr_bad.value}, want {int(bad)}"

    def check(self, t_key, t):
        d = self.dut
        got = (int(d.result_valid.value), int(d.result_hit.value), int(d.result_index.value),
               int(d.result_action.value))
        if t_key in self.pending:
            want = self.pending.pop(t_key)
            expect = (1, 0, 0, 0) if want is None else (1, 1, want[0], want[1])
            assert got == expect, (f"cycle {t}: key of cycle {t_key} gave (valid, hit, index, action) "
                                   f"{got}, want {expect}")
        else:
            assert got == (0, 0, 0, 0), f"cycle {t}: result {got} without a key {self.latency} cycles before"

    async def drain(self):
        for _ in range(self.latency + 1):
            await self.step()
        assert not self.pending

    def write_all(self, kinds=None):
        """Writes filling every entry, in random order."""
        order = list(range(self.entries))
        self.r.shuffle(order)
        return [(i, self.entry(self.r.choice(kinds) if kinds else None)) for i in order]

    def report(self, name):
        self.dut._log.info("%s: %s, %d entries won a lookup", name,
                           ", ".join(f"{k} {v}" for k, v in self.stats.items()), len(self.winners))


def scale(b: Bench, n: int) -> int:
    """Cycles for a test: fewer for very wide keys (Icarus time grows with the key width)."""
    return n if b.kw <= 128 else n // 2


# ---- tests ---------------------------------------------------------------------------------

@cocotb.test()
async def random_traffic(dut):
    """Random tables and keys; writes (new entries, invalidations, action changes, bad indexes)
    interleaved with lookups at random times; key_valid in bursts of random density."""
    b = Bench(dut)
    r = b.r
    await b.start()
    fill = b.write_all()
    while fill:   # filling while looking up
        await b.step(key=b.random_key() if r.random() < 0.5 else None,
                     write=fill.pop() if r.random() < 0.7 else None)
    p_key = p_write = 0.0
    last = None
    for n in range(scale(b, 4000)):
        if n % 64 == 0:
            p_key = r.choice([0.2, 0.7, 1.0, 1.0])
            p_write = r.choice([0.0, 0.05, 0.2, 0.5])
        write = None
        if r.random() < p_write:
            i = r.randrange(b.entries)
            old = b.table[i]
            x = r.random()
            if x < 0.1 and b.iw and b.entries < (1 << b.iw):
                write = (r.randrange(b.entries, 1 << b.iw), b.entry())        # bad index
            elif x < 0.3 and old is not None:
                write = (i, (1 - old[0],) + old[1:])                           # (in)validate
            elif x < 0.45 and old is not None:
                write = (i, old[:3] + (r.getrandbits(b.aw),))                  # new action
            else:
                write = (i, b.entry())
        key = None
        if r.random() < p_key:
            if write is not None and write[0] < b.entries and r.random() < 0.5:
                key = b.key_for(write[1])                     # the entry being written now
            elif last is not None and r.random() < 0.3:
                key = b.key_for(last[1])                      # the one written just before
            else:
                key = b.random_key()
        await b.step(key=key, write=write)
        if write is not None and write[0] < b.entries:
            last = write
    await b.drain()
    b.report("random_traffic")
    s = b.stats
    assert s["hits"] > s["lookups"] // 4, s
    assert s["write_in_flight_changed"] > 0, "no lookup ever met a write in flight that changed its result"
    if b.entries < (1 << b.iw):
        assert s["bad"] > 0


@cocotb.test()
async def lpm_routes(dut):
    """An LPM table (prefixes from the key's MSB, nested ones, a default route) sorted by prefix
    length, longest first: the lowest-index rule gives the longest matching prefix."""
    b = Bench(dut)
    r = b.r
    kw = b.kw
    await b.start()
    prefixes = []
    while len(prefixes) < b.entries:
        if prefixes and r.random() < 0.5:   # nested under (or around) an existing prefix
            pv, pl = r.choice(prefixes)
            plen = max(0, min(kw, pl + r.randint(-8, 8)))
            value = (pv & (b.ones << (kw - pl))) | (r.getrandbits(kw) & ~(b.ones << (kw - pl)))
        else:
            plen, value = r.randint(0, kw), r.getrandbits(kw)
        mask = (b.ones << (kw - plen)) & b.ones
        if all((v & mask, l) != (value & mask, plen) for v, l in prefixes):
            prefixes.append((value, plen))
    prefixes.sort(key=lambda vl: -vl[1])
    for i, (value, plen) in enumerate(prefixes):
        await b.step(write=(i, (1, value, (b.ones << (kw - plen)) & b.ones, r.getrandbits(b.aw))))
    for _ in range(WR_DELAY):
        await b.step()
    for _ in range(scale(b, 2000)):
        key = b.random_key() if r.random() < 0.9 else None
        if key is not None:
            lengths = [l for v, l in prefixes if ((key ^ v) >> (kw - l)) == 0]
            got = lookup(b.table, key)
            assert (got is None) == (not lengths)
            if got is not None:
                assert prefixes[got[0]][1] == max(lengths), "the model is not longest-prefix-match"
        await b.step(key=key)
    await b.drain()
    b.report("lpm_routes")
    assert b.stats["hits"] > b.stats["lookups"] // 2
    assert len(b.winners) >= 3 * b.entries // 4, "most entries (in every block) should win a lookup"


@cocotb.test()
async def write_hazards(dut):
    """A write every cycle to a few entries and a key every cycle built to hit the entry being
    written (old or new contents) or one written a cycle or two before: a lookup sees the writes
    presented two or more cycles before its key, never one presented with it or a cycle before
    it, and never half an entry (match from one write, action from another)."""
    b = Bench(dut)
    r = b.r
    await b.start()
    hot = r.sample(range(b.entries), min(3, b.entries))
    recent = []
    for _ in range(scale(b, 1500)):
        i = r.choice(hot)
        old = b.table[i]
        kind = r.random()
        if old is not None and kind < 0.3:
            e = old[:3] + (r.getrandbits(b.aw),)            # same match, new action
        elif old is not None and kind < 0.45:
            e = (1 - old[0],) + old[1:]                       # flip valid
        else:
            e = b.entry(r.choice(["exact", "ternary", "lpm", "derived"]))
        pick = r.random()
        if pick < 0.35:
            key = b.key_for(e)
        elif pick < 0.55 and old is not None:
            key = b.key_for(old)
        elif recent:
            key = b.key_for(r.choice(recent))
        else:
            key = b.random_key()
        await b.step(key=key, write=(i, e) if r.random() < 0.9 else None)
        recent = (recent + [e])[-3:]
    await b.drain()
    b.report("write_hazards")
    assert b.stats["write_in_flight_changed"] > 20


@cocotb.test()
async def reset_clears(dut):
    """rst in the middle of traffic drops the lookups in flight, ignores the writes presented
    with it and leaves every entry invalid: afterwards every key misses until entries are
    written again, and then they match again."""
    b = Bench(dut)
    r = b.r
    await b.start()
    for w in b.write_all(["exact", "ternary", "all"]):
        await b.step(key=b.random_key(), write=w)
    for _ in range(3 * b.latency):
        await b.step(key=b.random_key())
    for n in range(r.randint(1, 4)):
        await b.step(key=b.random_key(), write=(r.randrange(b.entries), b.entry()), rst=True)
    assert all(e is None for e in b.table)
    misses = b.stats["misses"]
    for _ in range(200):
        await b.step(key=r.getrandbits(b.kw))
    assert b.stats["misses"] == misses + 200
    for w in b.write_all(["all"]):   # match-all entries: every key hits entry 0 again
        await b.step(write=(w[0], (1,) + w[1][1:]))
    for _ in range(WR_DELAY):
        await b.step()
    hits = b.stats["hits"]
    for _ in range(100):
        await b.step(key=r.getrandbits(b.kw))
    await b.drain()
    b.report("reset_clears")
    assert b.stats["hits"] == hits + 100


# ---- pytest --------------------------------------------------------------------------------

CONFIGS = {
    # name: KEY_WIDTH, ENTRIES, ACTION_WIDTH, CMP_CHUNK, AND_RADIX, ENC_RADIX; latency in the comment
    "k10x32": (10, 32, 8, 4, 4, 4),            # 3 chunks: 6
    "k104x32": (104, 32, 16, 4, 4, 4),         # an IPv4 5-tuple, the defaults: 8
    "k660x32": (660, 32, 32, 4, 4, 4),         # the seed's widest key, 165 chunks: 9
    "k40x24_r2": (40, 24, 1, 8, 2, 2),         # not a power of two (bad indexes), radix 2 trees: 10
    "k12x3_r8": (12, 3, 4, 32, 16, 8),         # one chunk (no AND stage), one encoder level: 3
    "k10x1": (10, 1, 3, 3, 3, 4),              # one entry: no encoder; 4 uneven chunks; index 1 bad: 4
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_p4_tcam(config):
    kw, entries, aw, chunk, and_radix, enc_radix = CONFIGS[config]
    runner.run("fp_p4_tcam", __name__, {"KEY_WIDTH": kw, "ENTRIES": entries, "ACTION_WIDTH": aw, "CMP_CHUNK": chunk,
                                        "AND_RADIX": and_radix, "ENC_RADIX": enc_radix})
