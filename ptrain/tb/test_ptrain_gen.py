"""fp_ptrain_gen: random configurations (IPv4/IPv6, tag or not, the shortest frames, a jumbo,
train lengths, periods and gaps, first sequence numbers across the 2^32 wrap, PPS lock changing
during a run), every frame compared byte for byte with fastpath.ptrain.frame.build() made with
the time fields at zero, the MAC's stamp side band on the first beat, and the exact cycle of every
frame start under random backpressure or none.

Reference frames: build(..., tx_time=0) is the frame the MAC would send at time 0; the generator
leaves csum_adj at 0 where build() writes 0xFFFF (the adjustment that cancels four zero fields:
0xFFFF and 0 are the same in the ones'-complement sum, so the UDP checksum is the same). build()
has no TOS / traffic class and no DEI: the test sets them in the reference and recomputes the IPv4
header checksum (RFC 1071).

Compact frames (IPv4 below the full header's minimum, from 60 bytes): in the random mix, at the
shortest sizes, and 60-byte trains back to back (8 beats at 64 bits, 60 at 8: the line rate of
64-byte frames once the MAC adds FCS, preamble and IFG), each against build(), with the plain
stamp side band (mode 0, offset magic + 8).

Timing (the module's header): the first frame is offered 14 cycles after the start pulse; frame
k+1 starts at max(start of k + period (train gap after a train's last frame), the cycle after k's
last beat, start of k + 9; + 5 for compact frames). This is asserted exactly, with and without backpressure; without it,
frames are also checked to start exactly max(period, beats) apart and to leave no idle cycle when
sent back to back.
"""
import ipaddress

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink

from fastpath.ptrain import frame as fr
from fastpath.sim import runner
from fastpath.sim.tb import BeatMonitor, high, params, pauses, rng, start, uint

LATENCY = 14      # start pulse -> first tvalid
MIN_SPACING = 9   # frame start -> next frame start, at least (the checksum pipeline)
MIN_SPACING_C = 5  # the same for compact frames (the IPv4 header checksum)
MAX_LEN = 9000


class Cfg:
    def __init__(self, r, *, ipv6=None, tag=None, size=None, train_len=None, trains=None,
                 period=None, gap=None, first_seq=None):
        self.ipv6 = r.random() < 0.5 if ipv6 is None else ipv6
        self.tag = r.random() < 0.5 if tag is None else tag
        self.tci = r.getrandbits(16)
        self.src_mac = r.getrandbits(48) & ~(1 << 40)
        self.dst_mac = r.getrandbits(48)
        if self.ipv6:
            self.src_ip = r.getrandbits(128)
            self.dst_ip = r.getrandbits(128)
        else:
            self.src_ip = r.getrandbits(32)
            self.dst_ip = r.getrandbits(32)
        self.ttl = r.getrandbits(8)
        self.tos = r.getrandbits(8)
        self.sport = r.getrandbits(16)
        self.dport = r.choice([fr.UDP_PORT, r.getrandbits(16)])
        self.stream = r.getrandbits(8)
        h = self.headers()
        if size is None:   # compact frames (IPv4 below the full minimum) about a third of the time
            size = r.randint(h.min_size, h.min_frame - 1) if h.min_size < h.min_frame and r.random() < 0.35 \
                else r.randint(h.min_frame, 300)
        self.size = size
        self.train_len = r.randint(1, 5) if train_len is None else train_len
        self.trains = r.randint(1, 3) if trains is None else trains
        self.period = r.choice([0, r.randint(1, 3 * self.size)]) if period is None else period
        self.gap = r.choice([0, r.randint(1, 4 * self.size)]) if gap is None else gap
        self.first_seq = r.getrandbits(32) if first_seq is None else first_seq
        self.pps = r.random() < 0.5

    def ip(self, v):
        return str(ipaddress.IPv6Address(v) if self.ipv6 else ipaddress.IPv4Address(v))

    def headers(self):
        mac = lambda v: ":".join(f"{b:02x}" for b in v.to_bytes(6, "big"))  # noqa: E731
        return fr.Headers(src_mac=mac(self.src_mac), dst_mac=mac(self.dst_mac),
                          vlan=(self.tci & 0xFFF) if self.tag else None, pcp=self.tci >> 13,
                          ipv6=self.ipv6, src_ip=self.ip(self.src_ip), dst_ip=self.ip(self.dst_ip),
                          sport=self.sport, dport=self.dport, ttl=self.ttl)

    def frame(self, seq, train, index, synced):
        """The reference frame: build() with the time fields at zero, csum_adj 0, TOS and DEI set."""
        h = self.headers()
        flags = fr.FLAG_TX_HW | (fr.FLAG_LAST if index == self.train_len - 1 else 0) | \
            (fr.FLAG_SYNCED if synced else 0)
        b = bytearray(fr.unstamped(self.size, seq & 0xFFFFFFFF, train, index, self.train_len,
                                   stream=self.stream, flags=flags, headers=h))
        if self.tag:
            b[14:16] = self.tci.to_bytes(2, "big")
        l3 = 18 if self.tag else 14
        if self.ipv6:
            b[l3] = 0x60 | self.tos >> 4
            b[l3 + 1] = (self.tos & 0xF) << 4 | (b[l3 + 1] & 0xF)
        else:
            b[l3 + 1] = self.tos
            b[l3 + 10:l3 + 12] = bytes(2)
            s = sum(int.from_bytes(b[l3 + i:l3 + i + 2], "big") for i in range(0, 20, 2))
            while s >> 16:
                s = (s & 0xFFFF) + (s >> 16)
            b[l3 + 10:l3 + 12] = (~s & 0xFFFF).to_bytes(2, "big")
        return bytes(b)

    def apply(self, dut):
        dut.cfg_dst_mac.value = self.dst_mac
        dut.cfg_src_mac.value = self.src_mac
        dut.cfg_vlan_en.value = int(self.tag)
        dut.cfg_vlan_tci.value = self.tci
        dut.cfg_ipv6.value = int(self.ipv6)
        # IPv4 lives in bits [31:0]; the bits above must not matter
        dut.cfg_src_ip.value = self.src_ip if self.ipv6 else self.src_ip | (0xDEAD << 64)
        dut.cfg_dst_ip.value = self.dst_ip if self.ipv6 else self.dst_ip | (0xBEEF << 96)
        dut.cfg_ttl.value = self.ttl
        dut.cfg_tos.value = self.tos
        dut.cfg_sport.value = self.sport
        dut.cfg_dport.value = self.dport
        dut.cfg_stream.value = self.stream
        dut.cfg_frame_len.value = self.size
        dut.cfg_train_len.value = self.train_len
        dut.cfg_num_trains.value = self.trains
        dut.cfg_period.value = self.period
        dut.cfg_train_gap.value = self.gap
        dut.cfg_first_seq.value = self.first_seq
        dut.cfg_pps_locked.value = int(self.pps)

    def __repr__(self):
        return (f"Cfg(ipv6={self.ipv6}, tag={self.tag}, size={self.size}, train_len={self.train_len}, "
                f"trains={self.trains}, period={self.period}, gap={self.gap}, first_seq={self.first_seq:#x})")


class TB:
    def __init__(self, dut):
        self.dut = dut
        self.kw = params().get("DATA_WIDTH", 8) // 8
        self.mon = BeatMonitor(dut, "m_axis", dut.clk, dut.rst, check=True,
                               extra=("ts_insert", "ts_mode", "ts_offset"))
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.starts, self.stops, self.pps = [], [], {}
        self.mon.every_cycle(self._cycle)
        self.frames = self.trains = self.refused = 0

    def _cycle(self, c):
        d = self.dut
        if high(d.start):
            self.starts.append(c)
        if high(d.stop):
            self.stops.append(c)
        self.pps[c] = high(d.cfg_pps_locked)

    def backpressure(self, r, p):
        self.sink.set_pause_generator(pauses(r, p) if p else None)
        if not p:
            self.sink.pause = False

    async def pulse(self, name):
        sig = getattr(self.dut, name)
        sig.value = 1
        await RisingEdge(self.dut.clk)
        sig.value = 0

    async def until(self, cond, limit, what):
        for _ in range(limit):
            await RisingEdge(self.dut.clk)
            await ReadOnly()
            if cond():
                await RisingEdge(self.dut.clk)
                return
        raise AssertionError(f"timeout waiting for {what}")

    def drain(self):
        while not self.sink.empty():
            self.sink.recv_nowait()

    def beats(self, c):
        return -(-c.size // self.kw)

    def check_run(self, c, got, bp):
        """Every frame of the run against the reference, its side band and its start cycle."""
        dut = self.dut
        c0 = self.starts[0]
        h = c.headers()
        assert got, f"{c}: no frame"
        assert got[0].first_valid - c0 == LATENCY, f"start -> first tvalid {got[0].first_valid - c0} cycles"
        seq = c.first_seq
        for k, f in enumerate(got):
            train, index = divmod(k, c.train_len)
            synced = self.pps[c0 + 1] if k == 0 else self.pps[got[k - 1].first_valid]
            want = c.frame(seq + k, train, index, synced)
            assert f.data == want, f"{c} frame {k}:\n got {f.data.hex()}\nwant {want.hex()}"
            assert fr.parse(f.data) is not None
            assert f.gap is None, f"frame {k}: tvalid fell inside the frame"
            if h.compact(c.size):   # the MAC's plain 8-byte stamp at the compact tx_time
                assert (f.first("ts_insert"), f.first("ts_mode"), f.first("ts_offset")) == \
                    (1, 0, h.length + fr.COMPACT.field("tx_time").offset)
            else:
                assert (f.first("ts_insert"), f.first("ts_mode"), f.first("ts_offset")) == (1, 1, h.length)
            assert all(b["tuser"] == 0 for b in f.beats)
            assert len(f.beats) == self.beats(c)
            if k:
                p = got[k - 1]
                last = (k - 1) % c.train_len == c.train_len - 1
                due = p.first_valid + (c.gap if last else c.period)
                want_s = max(due, p.last_beat + 1,
                             p.first_valid + (MIN_SPACING_C if h.compact(c.size) else MIN_SPACING))
                assert f.first_valid == want_s, \
                    f"{c} frame {k} starts at {f.first_valid}, expected {want_s} (previous {p.first_valid}..{p.last_beat})"
                if not bp:
                    assert f.first_valid - p.first_valid == max(c.gap if last else c.period, self.beats(c))
        self.frames += len(got)
        self.trains += len(got) // c.train_len
        assert int(dut.stat_frames.value) == self.frames
        assert int(dut.stat_trains.value) == self.trains
        assert high(dut.done) and not high(dut.running) and not high(dut.refused)

    async def run(self, r, c, bp=0.0, stop_after=None, pps_toggle=False, restart=False):
        dut = self.dut
        dut._log.info("run %s bp=%s%s", c, bp, " stop" if stop_after else "")
        self.backpressure(r, bp)
        c.apply(dut)
        self.mon.clear()
        self.starts.clear()
        self.stops.clear()
        await RisingEdge(dut.clk)
        await self.pulse("start")
        if pps_toggle:   # the cycle after the pulse is the one frame 0 samples
            dut.cfg_pps_locked.value = int(not c.pps)
        total = None if stop_after else c.train_len * c.trains
        limit = 60 + 3 * (c.train_len * c.trains if total else stop_after + 2 * c.train_len) * \
            (max(c.period, c.gap, self.beats(c)) + 24) * (3 if bp else 1)
        n = 0
        while True:
            await RisingEdge(dut.clk)       # drive for this cycle, then look at it
            n += 1
            assert n < limit, f"{c}: the run did not end"
            dut.start.value = int(restart and n == 40)   # ignored while running
            if pps_toggle and r.random() < 0.3:
                dut.cfg_pps_locked.value = int(not self.pps[max(self.pps)])
            dut.stop.value = int(bool(stop_after) and len(self.mon.frames) >= stop_after and not self.stops)
            await ReadOnly()
            if high(dut.done):
                break
        got = list(self.mon.frames)
        if stop_after:
            # the run ends with the train in progress when the stop came: every train whole
            cs = self.stops[0]
            begun = [f for k, f in enumerate(got) if k % c.train_len == 0 and f.first_valid <= cs + 1]
            assert len(got) == len(begun) * c.train_len, f"{len(got)} frames, {len(begun)} trains begun"
            c.trains = len(begun)
        else:
            assert len(got) == total, f"{c}: {len(got)} frames, expected {total}"
        self.check_run(c, got, bp)
        await RisingEdge(dut.clk)
        self.drain()

    async def refuse(self, c):
        """A bad configuration: no frame, refused, counted."""
        dut = self.dut
        dut._log.info("refused %s", c)
        c.apply(dut)
        self.mon.clear()
        before = int(dut.stat_refused.value)
        await RisingEdge(dut.clk)
        await self.pulse("start")
        for _ in range(LATENCY + 40):
            await RisingEdge(dut.clk)
            await ReadOnly()
            assert not high(dut.m_axis_tvalid) and not high(dut.running)
        assert high(dut.refused)
        self.refused += 1
        assert int(dut.stat_refused.value) == before + 1 == self.refused
        await RisingEdge(dut.clk)


@cocotb.test()
async def run_test(dut):
    r = rng()
    for name in ("start", "stop", "cfg_pps_locked"):
        getattr(dut, name).value = 0
    Cfg(r, ipv6=False, tag=False, size=84).apply(dut)
    await start(dut, "clk", 8.0 if params().get("DATA_WIDTH", 8) == 8 else 6.4)
    tb = TB(dut)
    wide = tb.kw == 8

    # the shortest frames of each layout, back to back, across the 2^32 wrap of seq
    for ipv6 in (False, True):
        for tag in (False, True):
            c = Cfg(r, ipv6=ipv6, tag=tag, size=None, train_len=3, trains=2, period=0, gap=0,
                    first_seq=0xFFFFFFFE)
            c.size = c.headers().min_frame
            await tb.run(r, c)
            if not ipv6:   # and the shortest and longest compact frames
                for size in (c.headers().min_size, c.headers().min_frame - 1):
                    c = Cfg(r, ipv6=False, tag=tag, size=size, train_len=3, trains=2, period=0, gap=0,
                            first_seq=0xFFFFFFFE)
                    await tb.run(r, c)
    # 60-byte frames (64 with FCS) back to back, two trains of 40: a frame every 8 beats at 64
    # bits, every 60 at 8 bits, with no idle cycle (the MAC adds FCS, preamble and IFG)
    c = Cfg(r, ipv6=False, tag=False, size=60, train_len=40, trains=2, period=0, gap=0)
    await tb.run(r, c)
    starts = [f.first_valid for f in tb.mon.frames]
    assert set(b - a for a, b in zip(starts, starts[1:])) == {tb.beats(c)}
    # periods exactly at the 1G / 10G wire time of the frame, and random ones
    c = Cfg(r, train_len=4, trains=2)
    c.period = (c.size + 24 + 7) // 8 if wide else c.size + 24
    c.gap = 3 * c.period
    await tb.run(r, c)
    for _ in range(3):
        await tb.run(r, Cfg(r))
    # random backpressure: the schedule re-anchors, nothing is dropped
    for p in (0.3, 0.7):
        await tb.run(r, Cfg(r), bp=p)
    c = Cfg(r, train_len=5, trains=2, period=0)
    await tb.run(r, c, bp=0.2, pps_toggle=True, restart=True)
    # a UDP checksum that computes as 0 goes out as 0xFFFF: first_seq chosen to make it so
    c = Cfg(r, train_len=1, trains=1, first_seq=r.getrandbits(16) << 16)
    h = c.headers()
    c.size = max(c.size, h.min_frame)     # the full header (a compact frame's checksum is 0)
    l4 = h.length - fr.UDP.length
    want = c.frame(c.first_seq, 0, 0, c.pps)[l4 + 6:l4 + 8]
    c.first_seq |= int.from_bytes(want, "big") % 0xFFFF
    assert c.frame(c.first_seq, 0, 0, c.pps)[l4 + 6:l4 + 8] == b"\xff\xff"
    await tb.run(r, c)
    # a jumbo frame
    await tb.run(r, Cfg(r, size=MAX_LEN, train_len=2, trains=1), bp=0.1)
    # until stopped: the train in progress ends the run
    await tb.run(r, Cfg(r, train_len=3, trains=0, period=r.randint(0, 200)), stop_after=4)
    await tb.run(r, Cfg(r, train_len=2, trains=0, gap=400), bp=0.3, stop_after=3)

    # bad configurations: too short for the layout, too long, empty trains
    for ipv6 in (False, True):
        for tag in (False, True):
            c = Cfg(r, ipv6=ipv6, tag=tag)
            c.size = c.headers().min_size - 1
            await tb.refuse(c)
    # compact trains longer than the 16-bit identification counts
    await tb.refuse(Cfg(r, ipv6=False, size=70, train_len=fr.COMPACT_TRAIN_MAX + 1))
    await tb.refuse(Cfg(r, size=MAX_LEN + 1))
    await tb.refuse(Cfg(r, size=0xFFFF))
    await tb.refuse(Cfg(r, train_len=0))
    # a good start after a refused one clears the flag
    await tb.run(r, Cfg(r, train_len=1, trains=1))


@pytest.mark.parametrize("data_width", [8, 64])
def test_ptrain_gen(data_width):
    runner.run("fp_ptrain_gen", __name__, {"DATA_WIDTH": data_width})
