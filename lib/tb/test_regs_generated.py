"""Every generated register map: each `<name>_regs` module under rtl/ (made by `fastpath regs` from
a `<name>.regs.toml`), plus lib/tb/regs_selftest.regs.toml, a fixture that uses every feature.

The test is generic: it reads the description and drives the module through cocotbext-axi's
AxiLiteMaster with random backpressure on all five channels, while the test drives the ro inputs
and the w1c set inputs. A per-cycle trace of every port is then replayed against a Python model of
the map (`check`): each read's data and response, each write's response, every rw/pulse output
port in every cycle, pulse strobes, w1c set/clear, 64-bit snapshots, unmapped addresses, and the
exact cycle every response appears (read and write latency `regs.READ_LATENCY`/`WRITE_LATENCY`).
"""
from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, SimTimeoutError, with_timeout
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from fastpath import regs, rtl
from fastpath.paths import BUILD, ROOT, use_toolchain
from fastpath.regs.bus import read_pipeline, write_pipeline
from fastpath.sim import runner
from fastpath.sim.tb import high, pauses, rng, start

FIXTURE = Path(__file__).with_name("regs_selftest.regs.toml")
M32 = 0xFFFF_FFFF
CLOCK_NS = 5.0  # fastpath.sim.tb.start's default period
TIMEOUT_CYCLES = 2000


def _int(handle) -> int:
    try:
        return int(handle.value)
    except ValueError:  # X or Z (before reset in Icarus)
        return -1


class Harness:
    """The DUT with an AXI4-Lite master, input drivers and a per-cycle trace of every port."""

    def __init__(self, dut):
        self.dut = dut
        self.map = regs.load_file(os.environ["FASTPATH_REGS_FILE"])
        self.rng = rng()
        self.ports = regs.ports(self.map)
        self.ro_inputs, self.set_inputs = _inputs(self.map)
        self.rows: list[dict] = []
        self.extra_sets: list[tuple[int, str, int]] = []  # (row, port, bits) driven between samples
        self.handles = {n: getattr(dut, n) for _, _, n in self.ports}
        for n, w in self.ro_inputs:
            self.handles[n].value = self.rng.getrandbits(w)
        for n, _ in self.set_inputs:
            self.handles[n].value = 0
        # bus model first: it drives the inputs idle before reset
        self.master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        self.client = regs.RegClient(self.map, self.master)
        self._inputs_task = None
        cocotb.start_soon(self._trace())

    async def _trace(self):
        while True:
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            self.rows.append({n: _int(h) for n, h in self.handles.items()})

    def backpressure(self, p: float):
        wr, rd = self.master.write_if, self.master.read_if
        for ch in (wr.aw_channel, wr.w_channel, wr.b_channel, rd.ar_channel, rd.r_channel):
            ch.set_pause_generator(pauses(self.rng, p) if p else None)
            if not p:
                ch.pause = False  # stopping a generator leaves the last pause value in place

    def drive_inputs(self, p_change: float = 0.3, p_set: float = 0.05):
        """Change ro inputs (each with probability p_change per cycle) and pulse random w1c set
        bits (p_set per cycle), forever."""
        async def run():
            r = self.rng
            while True:
                await RisingEdge(self.dut.clk)
                for n, w in self.ro_inputs:
                    if r.random() < p_change:
                        self.handles[n].value = r.getrandbits(w)
                for n, w in self.set_inputs:
                    self.handles[n].value = r.getrandbits(w) & r.getrandbits(w) if r.random() < p_set else 0
        self.stop_inputs()
        self._inputs_task = cocotb.start_soon(run())

    def stop_inputs(self):
        if self._inputs_task is not None:
            self._inputs_task.cancel()
            self._inputs_task = None
        for n, _ in self.set_inputs:
            self.handles[n].value = 0

    # ---- bus accesses (the check reads addresses, data and responses from the trace)

    def mapped(self) -> list[int]:
        return sorted(self.map.words())

    def unmapped(self) -> list[int]:
        words = self.map.words()
        return [a for a in range(0, self.map.size, 4) if a not in words]

    async def read(self, addr: int, length: int = 4):
        return await self._bounded(self.master.read(addr, length), f"read {addr:#x}")

    async def write(self, addr: int, data: bytes):
        return await self._bounded(self.master.write(addr, data), f"write {addr:#x}")

    async def raw_write(self, addr: int, data: int, strb: int) -> int:
        """A write with any wstrb and data in every lane (the master's write() only makes
        contiguous strobes with zeros elsewhere). Uses the master's channel drivers, so their
        backpressure applies; only while the master has no write of its own in flight."""
        async def run():
            wr = self.master.write_if
            assert wr.idle(), "raw_write while the master is writing"
            aw, w = wr.aw_channel._transaction_obj(), wr.w_channel._transaction_obj()
            aw.awaddr, w.wdata, w.wstrb = addr, data, strb
            await wr.aw_channel.send(aw)
            await wr.w_channel.send(w)
            return int((await wr.b_channel.recv()).bresp)
        return await self._bounded(run(), f"raw write {addr:#x}")

    async def _bounded(self, coro, what: str):
        """Fail (never hang) when an access takes more than TIMEOUT_CYCLES."""
        try:
            return await with_timeout(coro, TIMEOUT_CYCLES * CLOCK_NS, "ns")
        except SimTimeoutError:
            bus = [n for _, _, n in self.ports if n.startswith("s_axil_")]
            for row in self.rows[-12:]:
                self.dut._log.error(" ".join(f"{n[7:]}={row[n]:x}" for n in bus))
            raise AssertionError(f"{what}: no response in {TIMEOUT_CYCLES} cycles") from None

    def random_access(self, raw: bool = False):
        """A random read or write (coroutine): mapped or unmapped, any size and byte offset;
        with raw, some writes have random strobes and data in every lane."""
        r = self.rng
        pool = self.mapped() if r.random() < 0.85 or not self.unmapped() else self.unmapped()
        word = r.choice(pool)
        off = r.randrange(4) if r.random() < 0.3 else 0
        n = r.randint(1, 4 - off) if off or r.random() < 0.3 else 4
        if r.random() < 0.5:
            return self.read(word + off, n)
        if raw and r.random() < 0.4:
            return self.raw_write(word + off, r.getrandbits(32), r.getrandbits(4))
        return self.write(word + off, bytes(r.getrandbits(8) for _ in range(n)))

    async def settle(self, cycles: int = 4):
        await self.master.wait()
        await ClockCycles(self.dut.clk, cycles)

    async def check(self):
        """Replay the trace against the model; every test ends with this."""
        self.stop_inputs()
        await self.settle()
        return check(self.map, self.rows, self.extra_sets)


def _inputs(rm: regs.RegMap):
    """[(port, width)] of the ro inputs and of the w1c set inputs."""
    ro, sets = [], []
    for r in rm.registers:
        count = r.array.count if r.array else 1
        for f in r.fields:
            if r.access == "ro" and f.value is None:
                ro.append((r.port(f), f.width * count))
            elif r.access == "w1c":
                sets.append((f"{r.port(f)}_set", f.width * count))
    return ro, sets


# ---- the model, replayed over the trace


class Model:
    """The register file's state and what a read or write does to it (docs/registers.md)."""

    def __init__(self, rm: regs.RegMap):
        self.map = rm
        self.words = rm.words()
        self.state = {}  # (register, index) -> value of rw and w1c registers
        self.snap = {}  # (register, index) -> latched high word of 64-bit ro registers
        self.pulse_data = {}  # (register, index) -> last data of pulse registers
        for r in rm.registers:
            for i in (range(r.array.count) if r.array else [None]):
                if r.access in ("rw", "w1c"):
                    self.state[(r.name, i)] = r.reset if r.access == "rw" else 0
                if r.access == "ro" and r.width == 64:
                    self.snap[(r.name, i)] = 0
                if r.access == "pulse":
                    self.pulse_data[(r.name, i)] = 0

    @staticmethod
    def _known(r) -> int:
        return sum(f.mask for f in r.fields)

    def ro_value(self, r, i, row) -> int:
        v = 0
        for f in r.fields:
            fv = f.value if f.value is not None else \
                (row[r.port(f)] >> ((i or 0) * f.width)) & ((1 << f.width) - 1)
            v |= fv << f.lsb
        return v

    def read(self, addr: int, row: dict) -> tuple[int, int]:
        hit = self.words.get(addr)
        if hit is None:
            return regs.UNMAPPED_READ_VALUE, regs.RESP_SLVERR
        r, i, w = hit
        if r.access in ("rw", "w1c"):
            return (self.state[(r.name, i)] >> (32 * w)) & M32, regs.RESP_OKAY
        if r.access == "pulse":
            return 0, regs.RESP_OKAY
        if r.width == 64 and w == 1:
            return self.snap[(r.name, i)], regs.RESP_OKAY
        v = self.ro_value(r, i, row)
        if r.width == 64:
            self.snap[(r.name, i)] = v >> 32
        return v & M32, regs.RESP_OKAY

    def write(self, addr: int, data: int, strb: int):
        """Returns (response, pulse register name and index or None)."""
        hit = self.words.get(addr)
        if hit is None:
            return regs.RESP_SLVERR, None
        r, i, w = hit
        bytes_ = sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)
        known = self._known(r)
        key = (r.name, i)
        if r.access == "rw":
            m = (bytes_ << (32 * w)) & known
            self.state[key] = (self.state[key] & ~m) | ((data << (32 * w)) & m)
        elif r.access == "w1c":
            self.state[key] &= ~(data & bytes_ & known)
        elif r.access == "pulse":
            self.pulse_data[key] = data & bytes_ & known
            return regs.RESP_OKAY, key
        return regs.RESP_OKAY, None

    def set(self, port: str, bits: int):
        for r in self.map.registers:
            if r.access != "w1c":
                continue
            for f in r.fields:
                if f"{r.port(f)}_set" != port:
                    continue
                for i in (range(r.array.count) if r.array else [None]):
                    b = (bits >> ((i or 0) * f.width)) & ((1 << f.width) - 1)
                    self.state[(r.name, i)] |= b << f.lsb

    def outputs(self, strobes: set) -> dict:
        """Expected value of every output port but the bus's."""
        out = {}
        for r in self.map.registers:
            if r.access not in ("rw", "pulse"):
                continue
            entries = list(range(r.array.count)) if r.array else [None]
            if r.access == "pulse":
                out[f"{r.name}_wr"] = sum(1 << (i or 0) for i in entries if (r.name, i) in strobes)
            for f in r.fields:
                v = 0
                for i in entries:
                    reg = self.state[(r.name, i)] if r.access == "rw" else self.pulse_data[(r.name, i)]
                    v |= ((reg >> f.lsb) & ((1 << f.width) - 1)) << ((i or 0) * f.width)
                out[r.port(f)] = v
        return out


def _handshakes(rows, start, valid, ready):
    return [c for c in range(start, len(rows)) if rows[c][valid] == 1 and rows[c][ready] == 1]


def _offers(rows, start, valid, ready):
    """Cycles at which a new response is first offered."""
    return [c for c in range(start, len(rows)) if rows[c][valid] == 1 and
            (c == start or rows[c - 1][valid] != 1 or rows[c - 1][ready] == 1)]


def check(rm: regs.RegMap, rows: list, extra_sets=()) -> dict:
    """Replay the trace against Model; returns the reads {ar handshake cycle: (served cycle, addr,
    value)} for tests that check more."""
    start = max(c for c, row in enumerate(rows) if row["rst"] != 0) + 1
    ar = _handshakes(rows, start, "s_axil_arvalid", "s_axil_arready")
    aw = _handshakes(rows, start, "s_axil_awvalid", "s_axil_awready")
    wd = _handshakes(rows, start, "s_axil_wvalid", "s_axil_wready")
    r_off = _offers(rows, start, "s_axil_rvalid", "s_axil_rready")
    b_off = _offers(rows, start, "s_axil_bvalid", "s_axil_bready")
    assert len(r_off) == len(ar), f"{len(ar)} reads, {len(r_off)} responses"
    assert len(aw) == len(wd) == len(b_off), f"{len(aw)} AW, {len(wd)} W, {len(b_off)} B"

    events = defaultdict(list)  # cycle -> (order, kind, ...): reads, then writes, then sets
    reads = {}
    _, served, moved = read_pipeline(rows, start)
    quiet_reads = 0
    assert len(served) >= len(ar) and len(moved) >= len(ar)
    for k, c in enumerate(ar):
        s = served[k]
        assert s >= c, f"read {k}: served at {s} before its AR handshake at {c}"
        assert r_off[k] == moved[k] + 1, \
            f"read {k}: AR at cycle {c}, served at {s}, to R at {moved[k]}, rvalid at {r_off[k]}"
        # the stated latency, from the bus alone: a read whose AR handshake finds the R channel
        # empty and every earlier response already offered answers READ_LATENCY cycles later
        if rows[c]["s_axil_rvalid"] != 1 and (k == 0 or r_off[k - 1] < c):
            assert r_off[k] == c + regs.READ_LATENCY, f"read {k}: AR at {c}, rvalid at {r_off[k]}"
            quiet_reads += 1
        events[s].append((0, "read", k, rows[c]["s_axil_araddr"] & ~3, r_off[k], c))
    assert quiet_reads > 0 or not ar, "no read ran without backpressure: the latency went unchecked"
    _, commits = write_pipeline(rows, start)
    assert len(commits) >= len(b_off)
    words = rm.words()
    quiet_writes = 0
    for k in range(len(b_off)):
        c, s = max(aw[k], wd[k]), commits[k]
        assert b_off[k] == s + 1, f"write {k}: AW/W at {aw[k]}/{wd[k]}, committed at {s}, bvalid at {b_off[k]}"
        if rows[c]["s_axil_bvalid"] != 1 and (k == 0 or b_off[k - 1] < c):
            assert b_off[k] == c + regs.WRITE_LATENCY, \
                f"write {k}: AW/W at {aw[k]}/{wd[k]}, bvalid at {b_off[k]} (latency {regs.WRITE_LATENCY})"
            quiet_writes += 1
        # rw registers load the data a cycle after the commit (registered lane enables)
        addr = rows[aw[k]]["s_axil_awaddr"] & ~3
        hit = words.get(addr)
        at = s + 1 if hit is not None and hit[0].access == "rw" else s
        events[at].append((1, "write", k, addr, rows[wd[k]]["s_axil_wdata"],
                           rows[wd[k]]["s_axil_wstrb"], b_off[k]))
    assert quiet_writes > 0 or not aw, "no write ran without backpressure: the latency went unchecked"
    set_ports = [n for n, _ in _inputs(rm)[1]]
    for c in range(start, len(rows)):
        for n in set_ports:
            if rows[c][n] > 0:
                events[c].append((2, "set", n, rows[c][n]))
    for c, n, bits in extra_sets:
        events[c].append((2, "set", n, bits))

    model = Model(rm)
    strobes: set = set()
    for c in range(start, len(rows)):
        row = rows[c]
        for port, want in model.outputs(strobes).items():
            assert row[port] == want, f"cycle {c}: port {port} = {row[port]:#x}, model {want:#x}"
        strobes = set()
        for ev in sorted(events.get(c, []), key=lambda e: e[0]):
            if ev[1] == "read":
                _, _, k, addr, at, c_ar = ev
                want = model.read(addr, row)
                got = (rows[at]["s_axil_rdata"], rows[at]["s_axil_rresp"])
                assert got == want, f"read {k} at {addr:#x} (cycle {c}): got {got[0]:#x}/{got[1]}, " \
                                    f"model {want[0]:#x}/{want[1]}"
                reads[c_ar] = (c, addr, got[0])
            elif ev[1] == "write":
                _, _, k, addr, data, strb, at = ev
                resp, pulse = model.write(addr, data, strb)
                assert rows[at]["s_axil_bresp"] == resp, \
                    f"write {k} at {addr:#x}: bresp {rows[at]['s_axil_bresp']}, model {resp}"
                if pulse:
                    strobes.add(pulse)
            else:
                model.set(ev[2], ev[3])
    return reads


# ---- tests


async def setup(dut) -> Harness:
    h = Harness(dut)
    await start(dut)
    return h


@cocotb.test()
async def reset_values(dut):
    """After reset: rw ports at their reset values, every mapped word reads its reset (or input)
    value, constants read their value; random order, random backpressure."""
    h = await setup(dut)
    h.backpressure(0.3)
    words = h.mapped()
    h.rng.shuffle(words)
    for a in words:
        await h.read(a)
    for r in h.map.registers:
        if r.access == "rw" or r.constant:
            for i in (range(r.array.count) if r.array else [None]):
                assert await h.client.read(r.name, i) == r.reset, r.name
    await h.check()


@cocotb.test()
async def random_traffic(dut):
    """Random reads and writes (any register, unmapped words, partial and unaligned accesses),
    one at a time and pipelined, while ro inputs change and w1c set bits arrive at random."""
    h = await setup(dut)
    h.drive_inputs()
    for phase in range(6):
        h.backpressure((0.0, 0.2, 0.5)[phase % 3])
        if phase % 2:  # pipelined: the master keeps several requests in flight
            tasks = [cocotb.start_soon(h.random_access()) for _ in range(100)]
            for t in tasks:
                await t
        else:
            for _ in range(100):
                await h.random_access(raw=True)
    await h.check()


@cocotb.test()
async def readback_by_name(dut):
    """RegClient: write every rw register (whole values and by fields), read it back by name;
    the ports follow."""
    h = await setup(dut)
    h.backpressure(0.2)
    for r in h.map.registers:
        if r.access != "rw":
            continue
        for i in (range(r.array.count) if r.array else [None]):
            v = h.rng.getrandbits(r.width) & sum(f.mask for f in r.fields)
            await h.client.write(r.name, v, index=i)
            assert await h.client.read(r.name, i) == v
            if not r.implicit:
                fields = {f.name: h.rng.getrandbits(f.width) for f in r.fields}
                await h.client.write(r.name, index=i, **fields)
                assert await h.client.read_fields(r.name, i) == fields
    await h.check()


@cocotb.test()
async def partial_writes(dut):
    """Writes with any wstrb (none, one byte, scattered bytes) and data in every lane: an rw
    register changes only the strobed bytes, a w1c register clears only bits in them, a pulse
    register's data carries only them (the rest 0)."""
    h = await setup(dut)
    h.backpressure(0.3)
    words = [a for a, (r, _, _) in h.map.words().items() if r.access in ("rw", "w1c", "pulse")]
    for a in words * 4:
        if h.map.words()[a][0].access == "w1c":  # set every sticky bit, so a clear shows
            for n, w in h.set_inputs:
                h.handles[n].value = (1 << w) - 1
            await RisingEdge(dut.clk)
            for n, _ in h.set_inputs:
                h.handles[n].value = 0
        await h.raw_write(a, h.rng.getrandbits(32), h.rng.getrandbits(4))
        await h.read(a)
    await h.check()


@cocotb.test()
async def snapshot_64(dut):
    """A 64-bit ro register changes every cycle; reading the low word latches the high word, so
    lo then hi (with other reads and a random delay between) is the input at the lo read."""
    h = await setup(dut)
    ro64 = [(r, i) for r in h.map.registers if r.access == "ro" and r.width == 64
            for i in (range(r.array.count) if r.array else [None])]
    if not ro64:
        return
    h.drive_inputs(p_change=1.0, p_set=0.0)
    h.backpressure(0.2)
    others = [a for a, (r, _, _) in h.map.words().items() if not (r.access == "ro" and r.width == 64)]
    for _ in range(30):
        r, i = h.rng.choice(ro64)
        lo = h.map.offset(r.name, i)
        await h.read(lo)
        for _ in range(h.rng.randint(0, 3)):
            await h.read(h.rng.choice(others))
        await ClockCycles(dut.clk, h.rng.randint(0, 10))
        await h.read(lo + 4)
    r, i = ro64[0]
    v = await h.client.read64(r.name, i)
    reads = await h.check()
    # Directly: each hi read returns the high half of the input at the preceding lo read.
    model, words, lo_row, pairs = Model(h.map), h.map.words(), {}, 0
    for c_ar in sorted(reads):
        s, addr, value = reads[c_ar]
        reg, idx, word = words.get(addr, (None, None, None))
        if reg is None or reg.access != "ro" or reg.width != 64:
            continue
        if word == 0:
            lo_row[(reg.name, idx)] = s
        else:
            full = model.ro_value(reg, idx, h.rows[lo_row[(reg.name, idx)]])
            assert value == full >> 32, f"{reg.name}[{idx}]: hi {value:#x}, latched {full >> 32:#x}"
            pairs += 1
    assert pairs == 31
    assert v == model.ro_value(r, i, h.rows[lo_row[(r.name, i)]])


@cocotb.test()
async def w1c_set_wins_over_clear(dut):
    """A set input in the very cycle a write clears the same bit leaves it set; other bits clear."""
    h = await setup(dut)
    w1c = [(r, f, i) for r in h.map.registers if r.access == "w1c" for f in r.fields
           for i in (range(r.array.count) if r.array else [None])]
    if not w1c:
        return
    h.backpressure(0.3)
    for _ in range(12):
        r, f, i = h.rng.choice(w1c)
        port, shift = f"{r.port(f)}_set", (i or 0) * f.width
        handle = h.handles[port]
        handle.value = ((1 << f.width) - 1) << shift  # set every bit of the field
        await RisingEdge(dut.clk)
        handle.value = 0
        await ClockCycles(dut.clk, 2)
        keep = 1 << h.rng.randrange(f.width)
        watcher = cocotb.start_soon(_set_at_commit(h, port, keep << shift))
        await h.client.write(r.name, ((1 << f.width) - 1) << f.lsb, index=i)
        await watcher
        assert h.map.decode(r.name, await h.client.read(r.name, i))[f.name] == keep
        await h.client.write(r.name, keep << f.lsb, index=i)
        assert h.map.decode(r.name, await h.client.read(r.name, i))[f.name] == 0
    await h.check()


async def _set_at_commit(h: Harness, port: str, bits: int):
    """Pulse a set input for exactly the cycle in which the next write commits."""
    d = h.dut
    aw_seen = w_seen = False
    while True:
        await RisingEdge(d.clk)
        await ReadOnly()
        aw_seen = aw_seen or (high(d.s_axil_awvalid) and high(d.s_axil_awready))
        w_seen = w_seen or (high(d.s_axil_wvalid) and high(d.s_axil_wready))
        if aw_seen and w_seen:  # the write starts here (stage 1 is empty: one write at a time)
            break
    while True:  # and commits in the first later cycle with B free
        await RisingEdge(d.clk)
        await ReadOnly()
        if not high(d.s_axil_bvalid) or high(d.s_axil_bready):
            break
    await FallingEdge(d.clk)
    row = len(h.rows) - 1  # by now the trace holds this cycle's row
    h.handles[port].value = bits
    h.extra_sets.append((row, port, bits))
    await RisingEdge(d.clk)
    h.handles[port].value = 0


@cocotb.test()
async def unmapped_addresses(dut):
    """Every unmapped word (up to 64 of them) reads 0 with SLVERR; writes to them answer SLVERR
    and change nothing (the check compares every port and a full read-back)."""
    h = await setup(dut)
    h.backpressure(0.3)
    holes = h.unmapped()
    h.rng.shuffle(holes)
    for a in holes[:64]:
        resp = await h.read(a)
        assert int(resp.resp) == regs.RESP_SLVERR and resp.data == bytes(4)
        resp = await h.write(a, h.rng.getrandbits(32).to_bytes(4, "little"))
        assert int(resp.resp) == regs.RESP_SLVERR
    for a in h.mapped():
        await h.read(a)
    await h.check()


@cocotb.test()
async def throughput(dut):
    """With no backpressure, pipelined reads answer one per cycle and writes one per cycle, both
    at once."""
    h = await setup(dut)
    n = 24
    rw = [a for a, (r, _, _) in h.map.words().items() if r.access == "rw"]
    reads = [cocotb.start_soon(h.read(h.rng.choice(h.mapped()))) for _ in range(n)]
    writes = [cocotb.start_soon(h.write(h.rng.choice(rw), h.rng.getrandbits(32).to_bytes(4, "little")))
              for _ in range(n)]
    for t in reads + writes:
        await t
    await h.check()
    start = max(c for c, row in enumerate(h.rows) if row["rst"] != 0) + 1
    r_off = _offers(h.rows, start, "s_axil_rvalid", "s_axil_rready")
    b_off = _offers(h.rows, start, "s_axil_bvalid", "s_axil_bready")
    assert r_off == list(range(r_off[0], r_off[0] + n)), f"reads answered at cycles {r_off}"
    assert b_off == list(range(b_off[0], b_off[0] + n)), f"writes answered at cycles {b_off}"
    assert abs(r_off[0] - b_off[0]) <= 2, "reads and writes run concurrently"


# ---- pytest entry points


def _fixture_run():
    """Render the fixture to build/ and simulate it (fastpath.sim.runner only builds rtl/ modules)."""
    from cocotb_tools.runner import get_runner

    use_toolchain()
    sim = runner.simulator()
    rm = regs.load_file(FIXTURE)
    bdir = BUILD / "sim" / sim / f"{rm.module}-fixture"
    bdir.mkdir(parents=True, exist_ok=True)
    src = bdir / f"{rm.module}.v"
    text = regs.render_verilog(rm)
    if not src.exists() or src.read_text() != text:
        src.write_text(text)
    r = get_runner(sim)
    build_args = ["-Wno-fatal", "--x-assign", "unique", "--x-initial", "unique"] if sim == "verilator" else []
    slave = rtl.modules()[regs.SLAVE]  # the shared bus logic every generated map instantiates
    r.build(sources=[slave, src], hdl_toplevel=rm.module, build_dir=bdir, build_args=build_args,
            timescale=runner.TIMESCALE, log_file=bdir / "build.log")
    r.test(test_module=__name__, hdl_toplevel=rm.module, build_dir=bdir, test_dir=bdir / "run",
           extra_env={"FASTPATH_REGS_FILE": str(FIXTURE), "FASTPATH_SIM": sim, "FASTPATH_PARAMS": "{}"},
           timescale=runner.TIMESCALE)


@pytest.mark.parametrize("desc", regs.descriptions(), ids=lambda p: p.name[:-len(".regs.toml")])
def test_regs_generated(desc):
    """The committed `<name>_regs` module under rtl/ (tests/test_regs.py checks it is current)."""
    top = regs.load_file(desc).module
    runner.run(top, __name__, env={"FASTPATH_REGS_FILE": str(desc)})


def test_regs_generated_fixture():
    """Every feature of the format (lib/tb/regs_selftest.regs.toml)."""
    assert FIXTURE.exists(), FIXTURE.relative_to(ROOT)
    _fixture_run()
