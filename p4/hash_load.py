"""The control plane of `fp_p4_hash` (p4/docs/hash.md): the hash functions, bit-exact with the RTL,
and `HashImage`, the software copy of the table that places entries by cuckoo displacement and
returns the writes to drive into the block's write port.

The table has WAYS ways of ROWS = ENTRIES / WAYS rows; entry index = way * ROWS + row, the address
space of `wr_index` and `result_index`. A key may live in way w only at row h_w(key). A lookup
probes row h_w(key) of every way and hits the LOWEST way whose entry is valid and holds the key.

**The hash functions (one rule, here and in the RTL's constant function `f_tables`).** h_w is
simple tabulation over the key's NC = ceil(KEY_WIDTH / 4) 4-bit characters (character c = key
bits 4c+3..4c, zero-extended): row bit j of way w (j = 0 .. RB-1, RB = log2(ROWS)) is the XOR
over c of T[w][j][c][character c], each T[w][j][c] a 16-bit truth table (one LUT4 in the RTL).
The tables of way w are the bit string S_w = the words o_0, o_1, ... of a generator (o_0 in bits
31:0, o_1 in bits 63:32, ...): T[w][j][c] = bits (j*NC + c)*16 .. (j*NC + c)*16 + 15 of S_w,
bit x of the table the value for character x. The generator of way w (all arithmetic mod 2^32):
x = SEED + (w + 1) * 0x9E3779B9 (1 if that is 0), d = x; each step does x ^= x << 13,
x ^= x >> 17, x ^= x << 5 (xorshift32), d += 0x6D2B79F5 (a Weyl sequence) and gives x + d; the
first WARMUP (8) outputs are dropped. SEED is the RTL parameter of the same name (0..2^31-1).

**Placement.** `insert(key, action)` writes an empty candidate row (lowest way first) or, when all
WAYS candidates are taken, searches breadth first for the shortest chain of moves (an entry moved
to its row in another way, whose occupant moves on, ... to an empty row) of at most `max_moves`
moves, and returns the writes from the chain's end back to the new key: each write copies an entry
into an empty row before its old row is overwritten, so every key stays findable while the writes
go in (between two writes a moved key is in two rows, with the same action). With no such chain
it raises `HashFull` and changes nothing. `delete(key)` is one write (valid 0).
`fill_until_full` and `python -m fastpath.p4.hash_load` measure the load factor reached.
"""
from __future__ import annotations

import random
import sys
from collections import deque
from typing import NamedTuple

M32 = 0xFFFF_FFFF
GOLDEN = 0x9E37_79B9      # per-way seed step
WEYL = 0x6D2B_79F5        # the Weyl sequence's increment
WARMUP = 8                # generator outputs dropped before the first table word
DEFAULT_SEED = 0x1B87_3593  # fp_p4_hash's SEED default

CHAR_BITS = 4             # key bits per tabulation character (a table is one LUT4)

# RTL geometry (fp_p4_hash's localparams): the hash is a registered XOR tree, HASH_GROUP key bits
# (4 tables) per leaf in its first stage, HASH_RADIX leaves per node above; the compare takes
# CMP_CHUNK key bits per flag and ANDs the flags (and the valid bit) in a radix-AND_RADIX tree.
HASH_GROUP = 16
HASH_RADIX = 16
CMP_CHUNK = 8
AND_RADIX = 16

MAX_MOVES = 32            # default bound on the moves of one insert
MAX_VISITS = 4096         # default bound on the rows the search looks at per insert


class HashFull(Exception):
    """No chain of at most max_moves moves frees a row for the key; the table is unchanged."""


class Write(NamedTuple):
    """One write of fp_p4_hash's write port: wr_index, wr_entry_valid, wr_value, wr_action."""
    index: int
    valid: int
    key: int
    action: int


def levels(n: int, radix: int) -> int:
    """Register levels of a radix-`radix` tree reducing n leaves to one."""
    count = 0
    while n > 1:
        n = -(-n // radix)
        count += 1
    return count


def hash_stages(key_width: int) -> int:
    """H: fp_p4_hash's hash pipeline stages (group parities, then the XOR tree)."""
    return 1 + levels(-(-key_width // HASH_GROUP), HASH_RADIX)


def and_levels(key_width: int) -> int:
    """A: the levels of the AND tree over the compare flags (one per CMP_CHUNK bits + valid)."""
    return levels(-(-key_width // CMP_CHUNK) + 1, AND_RADIX)


def latency(key_width: int) -> int:
    """fp_p4_hash's LATENCY: key register, H hash stages, RAM read and output register, compare,
    A AND levels, way select / output register: H + A + 4."""
    return hash_stages(key_width) + and_levels(key_width) + 4


def check_params(key_width: int, entries: int, ways: int, seed: int = DEFAULT_SEED) -> None:
    """The RTL's elaboration checks, as ValueError."""
    if not 1 <= key_width <= 660:
        raise ValueError(f"key width {key_width}: must be 1..660")
    if ways not in (1, 2, 4):
        raise ValueError(f"ways {ways}: must be 1, 2 or 4")
    if entries & (entries - 1) or not 2 * ways <= entries <= 65536:
        raise ValueError(f"entries {entries}: must be a power of two, {2 * ways}..65536 with {ways} ways")
    if not 0 <= seed < 1 << 31:
        raise ValueError(f"seed {seed:#x}: must be 0..2^31-1")


def _words(seed: int, way: int, n: int) -> list[int]:
    """The first n table words of way `way` (see the module docstring)."""
    x = (seed + (way + 1) * GOLDEN) & M32
    if x == 0:
        x = 1
    d = x
    out = []
    for k in range(WARMUP + n):
        x ^= (x << 13) & M32
        x ^= x >> 17
        x ^= (x << 5) & M32
        d = (d + WEYL) & M32
        if k >= WARMUP:
            out.append((x + d) & M32)
    return out


def way_tables(key_width: int, rows: int, way: int, seed: int = DEFAULT_SEED) -> list[list[int]]:
    """The hash of one way as per-character row tables: R[c][x] = the row bits (bit j from
    T[way][j][c]) that character c contributes when it is x; h(key) = XOR over c of R[c][x_c]."""
    rb = rows.bit_length() - 1
    nc = -(-key_width // CHAR_BITS)
    s = 0
    for k, w in enumerate(_words(seed, way, -(-(rb * nc * 16) // 32))):
        s |= w << (32 * k)
    r = [[0] * 16 for _ in range(nc)]
    for j in range(rb):
        for c in range(nc):
            t = (s >> ((j * nc + c) * 16)) & 0xFFFF
            for x in range(16):
                r[c][x] |= ((t >> x) & 1) << j
    return r


def hash_row(key: int, tables: list[list[int]]) -> int:
    """The row of `key` for one way's tables (`way_tables`)."""
    row = 0
    for c, t in enumerate(tables):
        row ^= t[(key >> (CHAR_BITS * c)) & 15]
    return row


class HashImage:
    """The software copy of one fp_p4_hash table (see the module docstring)."""

    def __init__(self, key_width: int, entries: int, ways: int = 2, seed: int = DEFAULT_SEED,
                 max_moves: int = MAX_MOVES, max_visits: int = MAX_VISITS):
        check_params(key_width, entries, ways, seed)
        self.key_width, self.entries, self.ways, self.seed = key_width, entries, ways, seed
        self.rows = entries // ways
        self.index_width = entries.bit_length() - 1
        self.max_moves, self.max_visits = max_moves, max_visits
        self.tables = [way_tables(key_width, self.rows, w, seed) for w in range(ways)]
        # slot i: (valid, key, action), as the RTL's entry i
        self.slots: list[tuple[int, int, int]] = [(0, 0, 0)] * entries
        self.count = 0            # valid entries
        self.moves = 0            # moves done by insert, in total

    # -- the hash and the lookup, as the RTL --
    def candidates(self, key: int) -> list[int]:
        """The index key may occupy in each way, way 0 first."""
        return [w * self.rows + hash_row(key, self.tables[w]) for w in range(self.ways)]

    def lookup(self, key: int) -> tuple[bool, int, int]:
        """(hit, index, action) as fp_p4_hash gives it: the lowest way holding key, valid;
        (False, 0, 0) on a miss."""
        for i in self.candidates(key):
            valid, k, action = self.slots[i]
            if valid and k == key:
                return True, i, action
        return False, 0, 0

    def apply(self, w: Write) -> None:
        """Set one entry as the RTL's write port does (no placement rule: the test's copy of the
        RTL's contents takes every write here, including ones that break the placement)."""
        if not 0 <= w.index < self.entries:
            raise ValueError(f"index {w.index}: the table has {self.entries} entries")
        self.count += bool(w.valid) - bool(self.slots[w.index][0])
        self.slots[w.index] = (int(bool(w.valid)), w.key, w.action)

    # -- placement --
    def _check_key(self, key: int) -> None:
        if not 0 <= key < 1 << self.key_width:
            raise ValueError(f"key {key:#x} does not fit {self.key_width} bits")

    def insert(self, key: int, action: int) -> list[Write]:
        """Place key with action; return the writes (in order) that make the RTL match. A key
        already present gets the new action in place (one write). Raises HashFull (table
        unchanged) when no chain of at most max_moves moves frees a row."""
        self._check_key(key)
        hit, index, _ = self.lookup(key)
        if hit:
            return self._do([Write(index, 1, key, action)])
        cands = self.candidates(key)
        for i in cands:
            if not self.slots[i][0]:
                return self._do([Write(i, 1, key, action)])
        # breadth first over rows: parent[i] = the row whose occupant moves into i's place chain
        parent: dict[int, int | None] = {i: None for i in cands}
        depth = {i: 1 for i in cands}      # moves needed if the chain ends beyond i
        queue = deque(cands)
        while queue:
            s = queue.popleft()
            if depth[s] > self.max_moves:
                continue
            occupant = self.slots[s][1]
            for t in self.candidates(occupant):
                if t in parent:
                    continue
                parent[t] = s
                depth[t] = depth[s] + 1
                if not self.slots[t][0]:
                    return self._do(self._chain(t, parent, key, action))
                if len(parent) >= self.max_visits:
                    queue.clear()
                    break
                queue.append(t)
        raise HashFull(f"{self.key_width}-bit key {key:#x} cannot be placed: no row frees within "
                       f"{self.max_moves} moves ({self.count} of {self.entries} entries used, "
                       f"{self.ways} way{'s' if self.ways > 1 else ''})")

    def _chain(self, free: int, parent: dict, key: int, action: int) -> list[Write]:
        """Writes for the chain ending at the empty row `free`: each occupant moves one step
        toward it, last one first, then the new key."""
        writes = []
        t = free
        s = parent[t]
        while s is not None:
            _, k, a = self.slots[s]
            writes.append(Write(t, 1, k, a))
            t, s = s, parent[s]
        writes.append(Write(t, 1, key, action))
        self.moves += len(writes) - 1
        return writes

    def _do(self, writes: list[Write]) -> list[Write]:
        for w in writes:
            self.apply(w)
        return writes

    def delete(self, key: int) -> list[Write]:
        """Remove key: one write clearing its entry. KeyError when key is not in the table."""
        self._check_key(key)
        hit, index, _ = self.lookup(key)
        if not hit:
            raise KeyError(f"key {key:#x} is not in the table")
        return self._do([Write(index, 0, 0, 0)])

    def __len__(self) -> int:
        return self.count

    def __contains__(self, key: int) -> bool:
        return self.lookup(key)[0]


# ---- load factor ------------------------------------------------------------------------------

def fill_until_full(key_width: int, entries: int, ways: int, rng: random.Random,
                    seed: int = DEFAULT_SEED, sequential: bool = False, **kw) -> tuple[int, int]:
    """Insert distinct keys until the first HashFull: (entries placed, moves done). Keys are
    random, or (sequential) consecutive integers from a random base (host addresses of a
    subnet, say)."""
    img = HashImage(key_width, entries, ways, seed, **kw)
    base = rng.getrandbits(key_width)
    seen = set()
    n = 0
    while True:
        if sequential:
            key = (base + n) % (1 << key_width)
        else:
            key = rng.getrandbits(key_width)
            if key in seen:
                continue
            seen.add(key)
        n += 1
        try:
            img.insert(key, 0)
        except HashFull:
            return len(img), img.moves


def load_factor(key_width: int, entries: int, ways: int, trials: int, rng_seed: int = 1,
                sequential: bool = False, **kw) -> dict:
    """Mean, min and max fill (fraction of the entries) at the first failure over `trials`
    tables, each with its own hash SEED; and the mean moves per insert."""
    rng = random.Random(rng_seed)
    fills, moves = [], 0.0
    for _ in range(trials):
        n, m = fill_until_full(key_width, entries, ways, rng, seed=rng.getrandbits(31),
                               sequential=sequential, **kw)
        fills.append(n / entries)
        moves += m / max(n, 1)
    return {"mean": sum(fills) / trials, "min": min(fills), "max": max(fills),
            "moves_per_insert": moves / trials}


def main(argv: list[str]) -> int:
    """Print the load factor table of p4/docs/hash.md (argument: trials, default 20)."""
    trials = int(argv[0]) if argv else 20
    print(f"first HashFull, {trials} tables (hash seeds) each; max_moves {MAX_MOVES}, "
          f"max_visits {MAX_VISITS}")
    print("| keys | entries | ways | mean fill | min | max | moves per insert |")
    print("|---|---|---|---|---|---|---|")
    for keys, kw, seq in (("48-bit random", 48, False), ("32-bit consecutive", 32, True)):
        for entries in (512, 4096):
            for ways in (2, 4):
                r = load_factor(kw, entries, ways, trials, sequential=seq)
                print(f"| {keys} | {entries} | {ways} | {100 * r['mean']:.1f}% | {100 * r['min']:.1f}% | "
                      f"{100 * r['max']:.1f}% | {r['moves_per_insert']:.2f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
