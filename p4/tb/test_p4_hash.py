"""fp_p4_hash: cycle-by-cycle comparison with fastpath.p4.hash_load (the software image that places
the entries, and a second HashImage that takes every write the RTL takes, at the cycle it takes
it, and answers each lookup as the RTL must), exact latency, write/lookup ordering, the clear
after reset.

The block has a valid-only lookup pipeline and a write strobe, no AXI4-Stream port and no
backpressure, so no bus models or stalls apply: the test drives the pins directly with random
timing (key_valid in bursts of random density, writes at random cycles, garbage on the key and
write fields whenever their strobe is low). Inputs change on the falling edge and are sampled on
the rising edge; the outputs are checked in the read-only phase after every edge: a result must
appear exactly LATENCY cycles after its key and never otherwise, and a lookup must see exactly
the writes presented in the same cycle as its key or before it.

Keys looked up: present keys, keys deleted earlier, keys of the writes in flight (cuckoo moves:
a key in two ways for a while), random keys (almost always absent). Every placement comes from
HashImage.insert, so every hit also checks that the RTL's hash functions equal the Python ones
(result_index is way * ROWS + h_way(key)).
"""
import cocotb
import pytest
from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge

from fastpath.p4.hash_load import DEFAULT_SEED, HashFull, HashImage, Write, latency
from fastpath.sim import runner
from fastpath.sim.tb import high, params, rng, start


class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.r = rng()
        p = params()
        self.kw, self.aw = p["KEY_WIDTH"], p["ACTION_WIDTH"]
        self.entries, self.ways = p["ENTRIES"], p["WAYS"]
        self.seed = p.get("SEED", DEFAULT_SEED)
        self.rows = self.entries // self.ways
        self.iw = self.entries.bit_length() - 1
        self.latency = latency(self.kw)
        assert int(dut.LATENCY.value) == self.latency, "the RTL's LATENCY differs from hash_load.latency"
        self.img = self.image()                 # the control plane's copy: placement
        self.hw = self.image()                  # the RTL's contents as the lookups see them
        self.queue = []                         # (write, is a move) from img, not yet driven
        self.moved = None                       # key of the move driven last cycle, if any
        self.deleted = []                       # keys removed (lookups of them must miss)
        self.recent = []                        # keys of the last writes driven (moves in flight)
        self.pending = {}                       # key cycle -> expected (hit, index, action)
        self.clear_left = 0                     # cycles of the clear after rst still to run
        self.t = 0
        self.stats = dict(lookups=0, hits=0, misses=0, writes=0, moves=0, full=0, deletes=0,
                          refused=0, same_cycle_write=0, two_ways=0, blind=0)

    def image(self):
        return HashImage(self.kw, self.entries, self.ways, self.seed)

    async def start(self):
        d = self.dut
        d.key_valid.value = 0
        d.key.value = 0
        d.wr_en.value = 0
        d.wr_index.value = 0
        d.wr_entry_valid.value = 0
        d.wr_value.value = 0
        d.wr_action.value = 0
        await start(d)
        d._log.info("%d entries = %d ways x %d rows, key %d bits, action %d bits, latency %d",
                    self.entries, self.ways, self.rows, self.kw, self.aw, self.latency)
        await self.reset()

    async def reset(self, cycles=1, traffic=False):
        """rst for `cycles` cycles (with keys and writes if traffic), then the whole clear."""
        for _ in range(cycles):
            await self.step(key=self.any_key() if traffic else None,
                            write=Write(self.r.randrange(self.entries), 1, self.r.getrandbits(self.kw),
                                        self.r.getrandbits(self.aw)) if traffic else None, rst=True)
        while self.clear_left:
            await self.step(key=self.any_key() if traffic or self.r.random() < 0.5 else None,
                            write=Write(self.r.randrange(self.entries), 1, self.r.getrandbits(self.kw), 0)
                            if traffic or self.r.random() < 0.3 else None)

    # -- keys --
    def present(self):
        return [k for v, k, _ in self.img.slots if v]

    def any_key(self):
        """A key to look up: present, deleted, in a write in flight, or random."""
        r = self.r
        x = r.random()
        live = self.present()
        if self.queue and x < 0.1:
            return r.choice(self.queue)[0].key
        if self.recent and x < 0.35:             # often the one just written: a move in flight
            return self.recent[-1] if r.random() < 0.5 else r.choice(self.recent)
        if live and x < 0.65:
            return r.choice(live)
        if self.deleted and x < 0.8:
            return r.choice(self.deleted)
        return r.getrandbits(self.kw)

    # -- control plane --
    def insert(self, key=None):
        """img.insert of a key (new random one by default); its writes join the queue."""
        key = self.r.getrandbits(self.kw) if key is None else key
        try:
            writes = self.img.insert(key, self.r.getrandbits(self.aw))
        except HashFull:
            self.stats["full"] += 1
            return False
        self.stats["moves"] += len(writes) - 1
        self.queue += [(w, n < len(writes) - 1) for n, w in enumerate(writes)]
        if key in self.deleted:
            self.deleted.remove(key)
        return True

    def delete(self):
        live = self.present()
        if not live:
            return
        key = self.r.choice(live)
        self.queue += [(w, False) for w in self.img.delete(key)]
        self.deleted = (self.deleted + [key])[-64:]
        self.stats["deletes"] += 1

    # -- one clock cycle --
    async def step(self, key=None, write=None, rst=False):
        """Drive one cycle (key: int or None, write: Write or None), then check what the outputs
        show after the rising edge."""
        d, r = self.dut, self.r
        await FallingEdge(d.clk)
        d.rst.value = int(rst)
        d.key_valid.value = int(key is not None)
        d.key.value = key if key is not None else r.getrandbits(self.kw)
        d.wr_en.value = int(write is not None)
        w = write if write is not None else Write(r.getrandbits(self.iw), r.getrandbits(1),
                                                  r.getrandbits(self.kw), r.getrandbits(self.aw))
        d.wr_index.value = w.index
        d.wr_entry_valid.value = w.valid
        d.wr_value.value = w.key
        d.wr_action.value = w.action
        await RisingEdge(d.clk)
        t = self.t
        self.t += 1
        refused = False
        if rst:       # in-flight lookups and writes are dropped; the table clears after rst
            self.pending.clear()
            self.hw = self.image()
            self.clear_left = self.rows
        elif self.clear_left:   # a clear cycle: keys miss, writes are refused (wr_bad)
            self.clear_left -= 1
            if key is not None:
                self.pending[t] = (False, 0, 0)
                self.stats["blind"] += 1
            if write is not None:
                refused = True
                self.stats["refused"] += 1
        else:
            # the lookup sees the write presented with it
            if write is not None:
                self.hw.apply(write)
                self.stats["writes"] += 1
                self.recent = (self.recent + [write.key])[-4:]
            if key is not None:
                want = self.pending[t] = self.hw.lookup(key)
                self.stats["lookups"] += 1
                self.stats["hits" if want[0] else "misses"] += 1
                cands = self.hw.candidates(key)
                if write is not None and write.index in cands:
                    self.stats["same_cycle_write"] += 1
                if sum(self.hw.slots[i][0] and self.hw.slots[i][1] == key for i in cands) > 1:
                    self.stats["two_ways"] += 1
        await ReadOnly()
        self.check(t - self.latency, t)
        assert high(d.wr_bad) == refused, f"cycle {t}: wr_bad {d.wr_bad.value}, want {int(refused)}"

    def check(self, t_key, t):
        d = self.dut
        got = (int(d.result_valid.value), int(d.result_hit.value), int(d.result_index.value),
               int(d.result_action.value))
        if t_key in self.pending:
            hit, index, action = self.pending.pop(t_key)
            expect = (1, int(hit), index, action)
            assert got == expect, (f"cycle {t}: key of cycle {t_key} gave (valid, hit, index, action) "
                                   f"{got}, want {expect}")
        else:
            assert got == (0, 0, 0, 0), f"cycle {t}: result {got} without a key {self.latency} cycles before"

    async def traffic(self, cycles, p_key, p_write):
        """Drive the queued writes (one per cycle, at random gaps) under lookups; half the time,
        a move (an entry copied to its row in another way, its old row not yet overwritten) is
        followed by a cycle without a write that looks up the moved key: in two ways then."""
        r = self.r
        for _ in range(cycles):
            moved, self.moved = self.moved, None
            if moved is not None and r.random() < 0.5:
                await self.step(key=moved)
                continue
            write = None
            if self.queue and r.random() < p_write:
                write, move = self.queue.pop(0)
                self.moved = write.key if move else None
            await self.step(key=self.any_key() if r.random() < p_key else None, write=write)

    async def drain(self):
        while self.queue:
            await self.step(key=self.any_key(), write=self.queue.pop(0)[0])
        for _ in range(self.latency + 1):
            await self.step()
        assert not self.pending

    def report(self, name):
        self.dut._log.info("%s: %s; %d of %d entries used", name,
                           ", ".join(f"{k} {v}" for k, v in self.stats.items()), len(self.img), self.entries)


def scale(b: Bench, n: int) -> int:
    """Cycles for a test: fewer for wide keys (Icarus time grows with the key width)."""
    return n if b.kw <= 64 else n // 2


# ---- tests ---------------------------------------------------------------------------------

@cocotb.test()
async def random_traffic(dut):
    """Fill the table by HashImage.insert (cuckoo moves) while looking up, until inserts fail;
    then churn: deletes, new inserts, action updates of present keys, all under lookups."""
    b = Bench(dut)
    r = b.r
    await b.start()
    # fill: a new insert whenever the queue runs dry, until HashFull has happened 4 times (or
    # every entry is used)
    while b.stats["full"] < 4 and len(b.img) < b.entries:
        if len(b.queue) < 2:
            b.insert()
        await b.traffic(1, r.choice([0.5, 0.9, 1.0]), r.choice([0.6, 1.0]))
    b.dut._log.info("filled: %d of %d entries, %d moves", len(b.img), b.entries, b.stats["moves"])
    full = len(b.img)
    if b.ways > 1:
        assert full > b.entries * (0.25 if b.ways == 2 else 0.75), f"low fill: {full} of {b.entries}"
    # churn at the fill reached: delete, insert (new key or a deleted one back), update
    p_key = p_write = 0.0
    for n in range(scale(b, 3000)):
        if n % 64 == 0:
            p_key = r.choice([0.3, 0.8, 1.0, 1.0])
            p_write = r.choice([0.2, 0.6, 1.0])
        if len(b.queue) < 2 and r.random() < 0.3:
            x = r.random()
            if len(b.img) >= full - 2 and x < 0.6:
                b.delete()
            elif x < 0.75 and b.deleted:
                b.insert(r.choice(b.deleted))
            elif x < 0.85 and len(b.img):
                b.insert(r.choice(b.present()))       # new action in place
            else:
                b.insert()
        await b.traffic(1, p_key, p_write)
    await b.drain()
    b.report("random_traffic")
    s = b.stats
    assert s["hits"] > s["lookups"] // 3, s
    assert s["same_cycle_write"] > 0, "no lookup met a write of one of its rows in its own cycle"
    if b.ways > 1:
        assert s["moves"] > 0 and s["two_ways"] > 0, "no cuckoo move was looked up in flight"


@cocotb.test()
async def raw_writes(dut):
    """Writes that ignore the placement rule (keys from a small pool at their hash rows, in
    several ways at once, with different actions; keys one bit away from a pool key at that key's
    row; random indexes): a key is found only at its hash row, only where the stored key equals
    it in every bit, and the lowest way holding it wins."""
    b = Bench(dut)
    r = b.r
    await b.start()
    pool = [r.getrandbits(b.kw) for _ in range(8)]
    for _ in range(scale(b, 2000)):
        k = r.choice(pool)
        x = r.random()
        if x < 0.5:
            write = Write(r.choice(b.hw.candidates(k)), int(r.random() < 0.8), k, r.getrandbits(b.aw))
        elif x < 0.8:   # a near miss at k's row: k must not hit it, whichever bit differs
            write = Write(r.choice(b.hw.candidates(k)), 1, k ^ (1 << r.randrange(b.kw)), r.getrandbits(b.aw))
        else:
            write = Write(r.randrange(b.entries), 1, k, r.getrandbits(b.aw))
        key = r.choice(pool) if r.random() < 0.85 else r.getrandbits(b.kw)
        await b.step(key=key if r.random() < 0.9 else None, write=write if r.random() < 0.5 else None)
    await b.drain()
    b.report("raw_writes")
    assert b.stats["hits"] > 100 and b.stats["misses"] > 50
    if b.ways > 1:
        assert b.stats["two_ways"] > 10


@cocotb.test()
async def reset_clears(dut):
    """rst in the middle of traffic drops the lookups and writes in flight; the clear that
    follows (ROWS cycles) gives misses and refuses writes (wr_bad); afterwards the table is
    empty, and filling it again works."""
    b = Bench(dut)
    r = b.r
    await b.start()
    for _ in range(min(64, b.entries // 2)):
        b.insert()
    await b.traffic(4 * b.entries // 2, 1.0, 0.7)
    old = b.present()
    assert old
    await b.reset(cycles=r.randint(1, 3), traffic=True)
    assert b.stats["refused"] > 0 and b.stats["blind"] > 0
    b.img = b.image()
    b.queue.clear()
    hits = b.stats["hits"]
    for _ in range(200):                     # the keys of before the reset: all gone
        await b.step(key=r.choice(old))
    assert b.stats["hits"] == hits
    for _ in range(min(32, b.entries // 4)):
        b.insert()
    await b.drain()
    for k in b.present():
        await b.step(key=k)
    await b.drain()
    b.report("reset_clears")
    assert b.stats["hits"] >= hits + len(b.present())


# ---- pytest --------------------------------------------------------------------------------

CONFIGS = {
    # name: KEY_WIDTH, ENTRIES, WAYS, ACTION_WIDTH, SEED (None: default); latency in the comment
    "k9x256w4": (9, 256, 4, 9, None),         # simple_router's send_frame (egress port): 6
    "k48x512w2": (48, 512, 2, 32, None),      # l2_switch's smac/dmac, the defaults: 7
    "k104x128w1": (104, 128, 1, 16, 12345),   # a 5-tuple, one way (no moves), another SEED: 7
    "k300x8w4": (300, 8, 4, 1, 1),            # 3 hash stages, 2 AND levels; 2 rows per way: 9
}


def test_hash_image_writes():
    """HashImage alone (no simulator): replaying its writes one at a time keeps every key placed
    before findable with its action after every single write (moves copy before they overwrite),
    the writes rebuild the image exactly, HashFull changes nothing, and the latency formula
    matches the datasheet's table."""
    import random
    rng = random.Random(7)
    for kw, entries, ways in ((48, 512, 2), (32, 256, 4), (9, 64, 4)):
        img = HashImage(kw, entries, ways, seed=rng.getrandbits(31))
        mirror = HashImage(kw, entries, ways, seed=img.seed)
        present = {}
        full = 0
        while full < 3:
            key = rng.getrandbits(kw)
            before = list(img.slots)
            try:
                writes = img.insert(key, rng.getrandbits(16))
            except HashFull:
                assert img.slots == before, "HashFull changed the table"
                full += 1
                continue
            if rng.random() < 0.1 and present:
                writes += img.delete(k := rng.choice(sorted(present)))
                del present[k]
            for w in writes:
                mirror.apply(w)
                for k, a in present.items():
                    if k not in (w.key, key):
                        assert mirror.lookup(k)[0] and mirror.lookup(k)[2] == a, "a key was lost mid-move"
            present = {k: img.lookup(k)[2] for k in present}
            if img.lookup(key)[0]:
                present[key] = img.lookup(key)[2]
        assert mirror.slots == img.slots
        assert all(img.lookup(k) == (True, img.lookup(k)[1], a) for k, a in present.items())
        assert len(img) > entries * (0.25 if ways == 2 else 0.75)
    assert [latency(k) for k in (1, 16, 17, 120, 121, 256, 257, 660)] == [6, 6, 7, 7, 8, 8, 9, 9]


@pytest.mark.parametrize("config", list(CONFIGS))
def test_p4_hash(config):
    kw, entries, ways, aw, seed = CONFIGS[config]
    p = {"KEY_WIDTH": kw, "ENTRIES": entries, "WAYS": ways, "ACTION_WIDTH": aw}
    if seed is not None:
        p["SEED"] = seed
    runner.run("fp_p4_hash", __name__, p)
