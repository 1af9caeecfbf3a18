"""fp_axil_slave: the AXI4-Lite protocol of every register map, in front of a Python register file.

cocotbext-axi's AxiLiteMaster drives the bus with random backpressure on all five channels (AW and
W paused independently, so they arrive in either order), plus writes whose AW and W the test
sends itself with a random gap either way round, and accesses at every byte offset. Behind the
register-side interface sits the reference model: a register file (a dict, word address -> value;
each mapped word belongs to one of READ_GROUPS groups). In the middle of every cycle it answers
the decode for that cycle's addresses (reg_wr_hit; the read groups and their hit bits, random
data when no group hits), applies a write when reg_wr_en is high (at the end of the cycle, as a
register would) and records a read when reg_rd_en is high, with the value it returned.

Every port is traced in every cycle and replayed (`check`): the cycle of every reg_wr_start,
reg_wr_en, reg_rd_start and reg_rd_en, predicted from the bus signals alone
(`fastpath.regs.bus.write_pipeline` / `read_pipeline`); the address (bits [1:0] dropped), data
and strobes they carry; each response's data and code against the model; and the latencies:
bvalid WRITE_LATENCY cycles after the later AW/W handshake and rvalid READ_LATENCY cycles after
the AR handshake whenever nothing is ahead of the access. The bus outputs
are also checked not to change when the register side's inputs do (no combinational path).
"""
from __future__ import annotations

import cocotb
import pytest
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge, SimTimeoutError, with_timeout
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

from fastpath.regs.bus import (READ_LATENCY, RESP_OKAY, RESP_SLVERR, UNMAPPED_READ_VALUE, WRITE_LATENCY,
                               read_pipeline, write_pipeline)
from fastpath.sim import runner
from fastpath.sim.tb import params, pauses, rng, start

M32 = 0xFFFF_FFFF
CLOCK_NS = 5.0  # fastpath.sim.tb.start's default period
TIMEOUT_CYCLES = 2000
BUS_IN = ["s_axil_awaddr", "s_axil_awvalid", "s_axil_wdata", "s_axil_wstrb", "s_axil_wvalid",
          "s_axil_bready", "s_axil_araddr", "s_axil_arvalid", "s_axil_rready"]
BUS_OUT = ["s_axil_awready", "s_axil_wready", "s_axil_bresp", "s_axil_bvalid", "s_axil_arready",
           "s_axil_rdata", "s_axil_rresp", "s_axil_rvalid"]
REG_OUT = ["reg_wr_start", "reg_wr_start_addr", "reg_wr_en", "reg_wr_addr", "reg_wr_data", "reg_wr_strb", "reg_rd_start", "reg_rd_start_addr",
           "reg_rd_en", "reg_rd_addr"]


def _int(handle) -> int:
    try:
        return int(handle.value)
    except ValueError:  # X or Z (before reset in Icarus)
        return -1


class RegFile:
    """The reference model behind the register side: mapped words, their values and groups."""

    def __init__(self, r, addr_width: int, groups: int):
        n = 1 << (addr_width - 2)
        if n <= 64:
            words = [w for w in range(n) if r.random() < 0.75]
            words = words or [0]
            if len(words) == n and n > 1:
                words.remove(r.randrange(n))  # keep an unmapped word
        else:
            words = {0, n - 1, *(r.randrange(n) for _ in range(40)), *range(8, 24)}
        self.words = n
        self.value = {w: r.getrandbits(32) for w in sorted(words)}
        self.group = {w: r.randrange(groups) for w in self.value}

    def read(self, word: int) -> int | None:
        return self.value.get(word)

    def write(self, word: int, data: int, strb: int) -> None:
        if word in self.value:
            m = sum(0xFF << (8 * b) for b in range(4) if strb >> b & 1)
            self.value[word] = (self.value[word] & ~m) | (data & m)


class Harness:
    def __init__(self, dut):
        self.dut = dut
        p = params()
        self.addr_width = p.get("ADDR_WIDTH", 12)
        self.groups = p.get("READ_GROUPS", 1)
        self.rng = rng()
        self.regs = RegFile(self.rng, self.addr_width, self.groups)
        self.rows: list[dict] = []
        self.reads: dict[int, tuple] = {}  # cycle reg_rd_en was high -> (word, value or None)
        self.comb_errors: list[str] = []
        self.handles = {n: getattr(dut, n) for n in ["rst", *BUS_IN, *BUS_OUT, *REG_OUT]}
        dut.reg_wr_hit.value = 0
        dut.reg_rd_data.value = 0
        dut.reg_rd_hit.value = 0
        self.master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
        cocotb.start_soon(self._cycles())

    async def _cycles(self):
        """Each cycle: trace every port, then (mid-cycle) answer the decode as a register file."""
        d, r = self.dut, self.rng
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            row = {n: _int(h) for n, h in self.handles.items()}
            self.rows.append(row)
            c = len(self.rows) - 1
            await FallingEdge(d.clk)
            live = row["rst"] == 0
            # a read sees the registers as they are in this cycle: a write committing in the same
            # cycle lands at its end (below), so the read returns the old value
            word = row["reg_rd_addr"]
            value = self.regs.read(word)
            if value is None:  # no group hits: whatever the groups carry is ignored
                d.reg_rd_hit.value = 0
                d.reg_rd_data.value = r.getrandbits(32 * self.groups)
            else:
                g = self.regs.group[word]
                d.reg_rd_hit.value = 1 << g
                d.reg_rd_data.value = value << (32 * g)
            if live and row["reg_rd_en"] == 1:
                self.reads[c] = (word, value)
            word = row["reg_wr_addr"]
            d.reg_wr_hit.value = int(word in self.regs.value)
            if live and row["reg_wr_en"] == 1:
                self.regs.write(word, row["reg_wr_data"], row["reg_wr_strb"])
            # the bus outputs do not follow the register side's inputs within the cycle
            await ReadOnly()
            for n in BUS_OUT:
                if live and _int(self.handles[n]) != row[n]:
                    self.comb_errors.append(f"cycle {c}: {n} changed with the register side's inputs")

    def backpressure(self, p: float, channels: str = "aw w b ar r"):
        wr, rd = self.master.write_if, self.master.read_if
        chans = {"aw": wr.aw_channel, "w": wr.w_channel, "b": wr.b_channel, "ar": rd.ar_channel, "r": rd.r_channel}
        for name, ch in chans.items():
            on = p and name in channels.split()
            ch.set_pause_generator(pauses(self.rng, p) if on else None)
            if not on:
                ch.pause = False  # stopping a generator leaves the last pause value in place

    # ---- accesses

    def mapped(self) -> list[int]:
        return [4 * w for w in self.regs.value]

    def unmapped(self, n: int = 32) -> list[int]:
        if self.regs.words <= 64:
            return [4 * w for w in range(self.regs.words) if w not in self.regs.value]
        out = []
        while len(out) < n:
            w = self.rng.randrange(self.regs.words)
            if w not in self.regs.value:
                out.append(4 * w)
        return out

    async def read(self, addr: int, length: int = 4):
        return await self._bounded(self.master.read(addr, length), f"read {addr:#x}")

    async def write(self, addr: int, data: bytes):
        return await self._bounded(self.master.write(addr, data), f"write {addr:#x}")

    async def raw_write(self, addr: int, data: int, strb: int, gap: int = 0) -> int:
        """A write with any wstrb and data in every lane, through the master's channel drivers (so
        their backpressure applies); AW goes `gap` cycles after W (before it when negative).
        Only while the master has no write of its own in flight."""
        async def run():
            wr = self.master.write_if
            assert wr.idle(), "raw_write while the master is writing"
            aw, w = wr.aw_channel._transaction_obj(), wr.w_channel._transaction_obj()
            aw.awaddr, w.wdata, w.wstrb = addr, data, strb
            first, second = ((wr.w_channel, w), (wr.aw_channel, aw)) if gap >= 0 else \
                ((wr.aw_channel, aw), (wr.w_channel, w))
            await first[0].send(first[1])
            if gap:
                await ClockCycles(self.dut.clk, abs(gap))
            await second[0].send(second[1])
            return int((await wr.b_channel.recv()).bresp)
        return await self._bounded(run(), f"raw write {addr:#x}")

    async def _bounded(self, coro, what: str):
        try:
            return await with_timeout(coro, TIMEOUT_CYCLES * CLOCK_NS, "ns")
        except SimTimeoutError:
            for row in self.rows[-12:]:
                self.dut._log.error(" ".join(f"{n}={v:x}" for n, v in row.items()))
            raise AssertionError(f"{what}: no response in {TIMEOUT_CYCLES} cycles") from None

    def random_access(self, raw: bool = False):
        """A random read or write (coroutine): mapped or unmapped word, any byte offset and size;
        with raw, some writes have random strobes and data in every lane, AW and W apart."""
        r = self.rng
        pool = self.mapped() if r.random() < 0.85 or not self.unmapped() else self.unmapped()
        word = r.choice(pool)
        off = r.randrange(4) if r.random() < 0.3 else 0
        n = r.randint(1, 4 - off) if off or r.random() < 0.3 else 4
        if r.random() < 0.5:
            return self.read(word + off, n)
        if raw and r.random() < 0.4:
            return self.raw_write(word + off, r.getrandbits(32), r.getrandbits(4), r.randint(-4, 4))
        return self.write(word + off, bytes(r.getrandbits(8) for _ in range(n)))

    async def check(self) -> dict:
        await self.master.wait()
        await ClockCycles(self.dut.clk, 4)
        return check(self)


# ---- the replay


def _handshakes(rows, start, valid, ready):
    return [c for c in range(start, len(rows)) if rows[c][valid] == 1 and rows[c][ready] == 1]


def _offers(rows, start, valid, ready):
    """Cycles at which a new response is first offered."""
    return [c for c in range(start, len(rows)) if rows[c][valid] == 1 and
            (c == start or rows[c - 1][valid] != 1 or rows[c - 1][ready] == 1)]


def check(h: Harness) -> dict:
    """Replay the trace; returns the measured latencies {"read": [...], "write": [...]} of the
    accesses nothing was ahead of."""
    rows = h.rows
    assert not h.comb_errors, h.comb_errors[:5]
    start = max(c for c, row in enumerate(rows) if row["rst"] != 0) + 1
    ar = _handshakes(rows, start, "s_axil_arvalid", "s_axil_arready")
    aw = _handshakes(rows, start, "s_axil_awvalid", "s_axil_awready")
    wd = _handshakes(rows, start, "s_axil_wvalid", "s_axil_wready")
    r_off = _offers(rows, start, "s_axil_rvalid", "s_axil_rready")
    b_off = _offers(rows, start, "s_axil_bvalid", "s_axil_bready")
    assert len(r_off) == len(ar), f"{len(ar)} reads, {len(r_off)} responses"
    assert len(aw) == len(wd) == len(b_off), f"{len(aw)} AW, {len(wd)} W, {len(b_off)} B"
    measured = {"read": [], "write": []}

    # writes: reg_wr_start and reg_wr_en in exactly the predicted cycles, carrying the handshakes'
    # address and data
    w_started, commits = write_pipeline(rows, start)
    wr_start = [c for c in range(start, len(rows)) if rows[c]["reg_wr_start"] == 1]
    wr_en = [c for c in range(start, len(rows)) if rows[c]["reg_wr_en"] == 1]
    assert wr_start == w_started and len(w_started) == len(aw), \
        f"reg_wr_start at {wr_start[:8]}..., predicted {w_started[:8]}..."
    assert wr_en == commits, f"reg_wr_en at {wr_en[:8]}..., predicted {commits[:8]}..."
    for k, s in enumerate(commits):
        row = rows[s]
        word = rows[aw[k]]["s_axil_awaddr"] >> 2
        assert max(aw[k], wd[k]) <= w_started[k] < s, f"write {k}: started at {w_started[k]}, committed at {s}"
        assert rows[w_started[k]]["reg_wr_start_addr"] == word, f"write {k}: started with the wrong address"
        assert row["reg_wr_addr"] == word, f"write {k}: word {row['reg_wr_addr']:#x}, AW said {word:#x}"
        assert (row["reg_wr_data"], row["reg_wr_strb"]) == \
            (rows[wd[k]]["s_axil_wdata"], rows[wd[k]]["s_axil_wstrb"]), f"write {k}: data/strb"
        assert b_off[k] == s + 1, f"write {k}: committed at {s}, bvalid at {b_off[k]}"
        want = RESP_OKAY if word in h.regs.value else RESP_SLVERR
        assert rows[b_off[k]]["s_axil_bresp"] == want, f"write {k} to word {word:#x}: bresp"
        # nothing ahead of it (B empty at the later handshake, every earlier answer offered): the
        # stated latency exactly
        c = max(aw[k], wd[k])
        if rows[c]["s_axil_bvalid"] != 1 and (k == 0 or b_off[k - 1] < c):
            assert b_off[k] == c + WRITE_LATENCY, f"write {k}: AW/W at {c}, bvalid at {b_off[k]}"
            measured["write"].append(b_off[k] - c)

    # reads: reg_rd_start and reg_rd_en in exactly the predicted cycles, with the read's address;
    # each answer is what the model served
    started, served, moved = read_pipeline(rows, start)
    rd_start = [c for c in range(start, len(rows)) if rows[c]["reg_rd_start"] == 1]
    rd_en = [c for c in range(start, len(rows)) if rows[c]["reg_rd_en"] == 1]
    assert rd_start == started and len(started) == len(ar), \
        f"reg_rd_start at {rd_start[:8]}..., predicted {started[:8]}... ({len(ar)} reads)"
    assert rd_en == served and len(served) == len(ar), \
        f"reg_rd_en at {rd_en[:8]}..., predicted {served[:8]}... ({len(ar)} reads)"
    for k, c in enumerate(ar):
        s = served[k]
        word = rows[c]["s_axil_araddr"] >> 2
        assert c <= started[k] < s, f"read {k}: AR at {c}, started at {started[k]}, served at {s}"
        assert rows[started[k]]["reg_rd_start_addr"] == word, f"read {k}: started with the wrong address"
        assert rows[s]["reg_rd_addr"] == word, f"read {k}: served at {s} with the wrong address"
        assert h.reads[s][0] == word
        assert r_off[k] == moved[k] + 1, f"read {k}: to R at {moved[k]}, rvalid at {r_off[k]}"
        value = h.reads[s][1]
        want = (UNMAPPED_READ_VALUE, RESP_SLVERR) if value is None else (value, RESP_OKAY)
        got = (rows[r_off[k]]["s_axil_rdata"], rows[r_off[k]]["s_axil_rresp"])
        assert got == want, f"read {k} of word {word:#x}: got {got[0]:#x}/{got[1]}, model {want[0]:#x}/{want[1]}"
        # nothing ahead of it (R empty at the handshake, every earlier answer already offered):
        # the stated latency exactly
        if rows[c]["s_axil_rvalid"] != 1 and (k == 0 or r_off[k - 1] < c):
            assert r_off[k] == c + READ_LATENCY, f"read {k}: AR at {c}, rvalid at {r_off[k]}"
            measured["read"].append(r_off[k] - c)
    assert measured["read"] or not ar, "no read ran without backpressure: the latency went unchecked"
    assert measured["write"] or not aw, "no write ran without backpressure: the latency went unchecked"
    return measured


# ---- tests


async def setup(dut) -> Harness:
    h = Harness(dut)
    await start(dut)
    return h


@cocotb.test()
async def latency(dut):
    """No backpressure, one access at a time: rvalid READ_LATENCY cycles after the AR handshake,
    bvalid WRITE_LATENCY cycle after the AW/W handshake, for mapped and unmapped words."""
    h = await setup(dut)
    for a in h.mapped()[:8] + h.unmapped()[:4]:
        await h.write(a, h.rng.getrandbits(32).to_bytes(4, "little"))
        await h.read(a)
    m = await h.check()
    assert set(m["read"]) == {READ_LATENCY} and set(m["write"]) == {WRITE_LATENCY}, m
    dut._log.info(f"measured: read latency {sorted(set(m['read']))} cycles over {len(m['read'])} reads, "
                  f"write latency {sorted(set(m['write']))} over {len(m['write'])} writes")


@cocotb.test()
async def random_traffic(dut):
    """Random reads and writes (mapped and unmapped words, any byte offset, partial strobes, AW
    and W apart), one at a time and pipelined, under random backpressure on every channel."""
    h = await setup(dut)
    for phase in range(6):
        h.backpressure((0.0, 0.2, 0.5)[phase % 3])
        if phase % 2:  # pipelined: the master keeps several requests in flight
            tasks = [cocotb.start_soon(h.random_access()) for _ in range(120)]
            for t in tasks:
                await t
        else:
            for _ in range(80):
                await h.random_access(raw=True)
    m = await h.check()
    assert set(m["read"]) == {READ_LATENCY} and set(m["write"]) == {WRITE_LATENCY}, m
    dut._log.info(f"{len(m['read'])} reads and {len(m['write'])} writes met by nothing ahead of them "
                  f"answered in exactly {READ_LATENCY} and {WRITE_LATENCY} cycles")


@cocotb.test()
async def aw_w_order(dut):
    """AW before W, W before AW (by up to 8 cycles) and both together, with B backpressure: the
    write starts with the later handshake and commits once B is free."""
    h = await setup(dut)
    h.backpressure(0.4, "b")
    for _ in range(60):
        gap = h.rng.randint(-8, 8)
        addr = h.rng.choice(h.mapped() + h.unmapped()[:2]) + h.rng.randrange(4)
        resp = await h.raw_write(addr, h.rng.getrandbits(32), h.rng.getrandbits(4), gap)
        assert resp == (RESP_OKAY if addr >> 2 in h.regs.value else RESP_SLVERR)
        await h.read(addr & ~3)
    await h.check()
    start_ = max(c for c, row in enumerate(h.rows) if row["rst"] != 0) + 1
    aw = _handshakes(h.rows, start_, "s_axil_awvalid", "s_axil_awready")
    wd = _handshakes(h.rows, start_, "s_axil_wvalid", "s_axil_wready")
    order = {(a > w) - (a < w) for a, w in zip(aw, wd)}
    assert order == {-1, 0, 1}, f"AW/W orders seen: {order}"


@cocotb.test()
async def same_cycle_and_stalled_read(dut):
    """A read served in the cycle a write to its word commits returns the old value (AR, AW and W
    together: both are one cycle after their handshakes); reads that wait in stage 0 or in the AR holding register (R full, rready low)
    are served, and sampled, when stage 1 frees, so they return a value written while they
    waited."""
    h = await setup(dut)
    a = h.mapped()[0]
    old = h.regs.value[a >> 2]
    new = old ^ M32
    w = cocotb.start_soon(h.write(a, new.to_bytes(4, "little")))
    r = await h.read(a)
    await w
    rd = [c for c, row in enumerate(h.rows) if row["reg_rd_en"] == 1 and row["rst"] == 0]
    wr = [c for c, row in enumerate(h.rows) if row["reg_wr_en"] == 1 and row["rst"] == 0]
    assert rd == wr and len(rd) == 1, f"read served at {rd}, write committed at {wr}: not the same cycle"
    assert int.from_bytes(r.data, "little") == old, "same cycle: the old value"
    assert h.regs.value[a >> 2] == new
    # four reads with R stalled: 1 in R, 1 in stage 1, 1 in stage 0, 1 in the AR holding register
    h.master.read_if.r_channel.pause = True
    reads = [cocotb.start_soon(h.read(a)) for _ in range(4)]
    await ClockCycles(dut.clk, 10)
    newer = new ^ 0x5A5A_5A5A
    await h.write(a, newer.to_bytes(4, "little"))
    await ClockCycles(dut.clk, 3)
    h.master.read_if.r_channel.pause = False
    got = [int.from_bytes((await t).data, "little") for t in reads]
    assert got == [new, new, newer, newer], [hex(g) for g in got]
    await h.check()


@cocotb.test()
async def throughput(dut):
    """No backpressure: pipelined reads answer one per cycle and writes one per cycle, both at
    once."""
    h = await setup(dut)
    n = 24
    reads = [cocotb.start_soon(h.read(h.rng.choice(h.mapped()))) for _ in range(n)]
    writes = [cocotb.start_soon(h.write(h.rng.choice(h.mapped()), h.rng.getrandbits(32).to_bytes(4, "little")))
              for _ in range(n)]
    for t in reads + writes:
        await t
    await h.check()
    start_ = max(c for c, row in enumerate(h.rows) if row["rst"] != 0) + 1
    r_off = _offers(h.rows, start_, "s_axil_rvalid", "s_axil_rready")
    b_off = _offers(h.rows, start_, "s_axil_bvalid", "s_axil_bready")
    assert r_off == list(range(r_off[0], r_off[0] + n)), f"reads answered at cycles {r_off}"
    assert b_off == list(range(b_off[0], b_off[0] + n)), f"writes answered at cycles {b_off}"
    assert abs(r_off[0] - b_off[0]) <= 2, "reads and writes run concurrently"


# ---- pytest entry point


@pytest.mark.parametrize("addr_width,read_groups", [(3, 1), (32, 4)])
def test_axil_slave(addr_width, read_groups):
    runner.run("fp_axil_slave", __name__, {"ADDR_WIDTH": addr_width, "READ_GROUPS": read_groups})
