"""fp_eth_mac_1g_tx: GMII 1000 and MII 100/10 into cocotbext-eth's GmiiSink (enable + mii_select).

Every frame on the wire is compared with fastpath.models.eth.tx_wire (padding, timestamp window,
FCS or stomped FCS) and its FCS checked by the GmiiSink model; the start of every frame is
checked against a cycle-exact model of the MAC's timing (latency 7 cycles GMII / 15 enables MII
from the first tvalid of an idle MAC to the SFD launch, the IFG exactly cfg_tx_ifg bytes); TX
timestamps (report and injection) equal the simulation time of the SFD launch edge. The client
side has random tvalid gaps between frames; one test drops tvalid mid-frame (underrun).

Tester stamp (s_axis_ts_mode = 1): packet-train tester frames from fastpath.ptrain.frame.build
(IPv4, IPv6, 802.1Q; random sizes; the time fields left at zero as the generator sends them) get
tv_sec, tv_usec, tx_time and csum_adj written at the SFD time: the wire equals build() with that
time, frame.parse() accepts it (UDP checksum, time fields consistent), the FCS is right; stamps
that do not fit follow the mode-0 rule (stamp_wire_1g, the model).
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge, Timer
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from fastpath.mac.bench_cocotb_1g import (PERIOD_PS, SPEED_DIV, Domain, PulseMonitor, TxDriver,
                                          TxFrame, fp_ps, gmii_sink, now_ps)
from fastpath.mac import eth
from fastpath.ptrain import frame as pframe
from fastpath.sim import runner
from fastpath.sim.tb import rng

PRE_UNITS = {1: 7, 2: 15}  # units (bytes / nibbles) launched before the SFD's last unit

# ---- tester stamp (s_axis_ts_mode = 1): model and helpers, shared with the wrapper tests -------

FIELDS = {f.name: (f.offset, f.nbytes) for f in pframe.TESTER.fields}
STAMP = ("tv_sec", "tv_usec", "tx_time", "csum_adj")        # written at the SFD, in this order
STAMP_FIRST = FIELDS["tv_sec"][0]                            # 8: first byte written
STAMP_END = FIELDS["csum_adj"][0] + FIELDS["csum_adj"][1]    # 42: past the last byte written


def stamp_bytes(ts: int) -> dict[int, int]:
    """{offset from the tester header: byte} of the four fields for the SFD time ts (fp_time)."""
    sec, usec = pframe.pktgen_time(ts)
    vals = {"tv_sec": sec, "tv_usec": usec, "tx_time": ts, "csum_adj": pframe.csum_adj(sec, usec, ts)}
    out = {}
    for name in STAMP:
        off, n = FIELDS[name]
        out.update({off + i: b for i, b in enumerate(vals[name].to_bytes(n, "big"))})
    return out


def stamp_wire_1g(data: bytes, bad: bool, off: int, ts: int) -> eth.TxResult:
    """What fp_eth_mac_1g_tx sends for a mode-1 frame (tester header at `off`): the four fields
    when the whole stamp (off + 8 .. off + 41) fits in the padded frame. Otherwise bad offset,
    and as in mode 0: if the first stamp byte is inside the client's data (cut-through: already
    on the wire when tlast shows the misfit), the stamp bytes inside the padded frame are written
    and the FCS stomped; else nothing is written."""
    body = bytearray(eth.padded(data))
    fits = off + STAMP_END <= len(body)
    begun = off + STAMP_FIRST < len(data)
    if fits or begun:
        for k, b in stamp_bytes(ts).items():
            if off + k < len(body):
                body[off + k] = b
    stomp = bad or (not fits and begun)
    f = eth.fcs(bytes(body))
    if stomp:
        f = bytes(b ^ 0xFF for b in f)
    return eth.TxResult(bytes(body) + f, fits, not fits, stomp)


def ptrain_frames(r, n: int, max_size: int = 400) -> list[tuple[bytes, int, dict]]:
    """n tester frames as fp_ptrain_gen sends them (build() with the time fields and csum_adj at
    zero), random layouts and sizes: (data, offset of the tester header, build() arguments)."""
    out = []
    for i in range(n):
        h = pframe.Headers(vlan=r.choice([None, r.randint(1, 4094)]), ipv6=r.random() < 0.4,
                           sport=r.randint(1, 65535))
        size = r.choice([h.min_frame, r.randint(h.min_frame, max_size), r.randint(h.min_frame, h.min_frame + 20)])
        kw = dict(size=size, seq=r.getrandbits(32), train=r.getrandbits(32), index=i % 7, train_len=7,
                  stream=r.getrandbits(8), flags=r.getrandbits(4), headers=h)
        data = bytearray(pframe.build(tx_time=0, **kw))
        for name in STAMP:
            o, m = FIELDS[name]
            data[h.length + o:h.length + o + m] = bytes(m)  # csum_adj too: the generator sends 0
        out.append((bytes(data), h.length, kw))
    return out


def check_tester_frame(wire_no_fcs: bytes, kw: dict, ts: int):
    """The wire equals build() at the SFD time ts, and parse() takes it with those fields."""
    assert wire_no_fcs == pframe.build(tx_time=ts, **kw), "tester frame differs from build()"
    t = pframe.parse(wire_no_fcs)
    assert t is not None and t.tx_time == ts and (t.tv_sec, t.tv_usec) == pframe.pktgen_time(ts)
    assert (t.seq, t.size, t.ipv6) == (kw["seq"], kw["size"], kw["headers"].ipv6)


class ModeSideband:
    """Drives s_axis_ts_mode for a TxDriver: the value of frame i is applied when frame i - 1 has
    been accepted (the driver appends it to `sent` at that edge, before it drives frame i)."""

    def __init__(self, sig, drv):
        self.sig, self.modes = sig, []
        sig.setimmediatevalue(0)
        side = self

        class Sent(list):
            def append(self, f):
                super().append(f)
                side.sig.value = side.modes[len(self)] if len(self) < len(side.modes) else 0

        self.sent = drv.sent = Sent()

    def queue(self, mode: int):
        self.modes.append(int(mode))
        if len(self.modes) == len(self.sent) + 1:  # no frame in flight: this one is next
            self.sig.value = int(mode)


def stamp_frame(data: bytes, off: int, **kw) -> TxFrame:
    """A TxFrame with the tester stamp (ts_insert = 1, ts_mode = 1) at tester header offset off."""
    f = TxFrame(data, ts_insert=True, ts_offset=off, **kw)
    f.ts_mode = 1
    return f


class Tb:
    def __init__(self, dut, speed: int, ifg: int = 12):
        self.dut = dut
        self.div = SPEED_DIV[speed]
        self.upb = 1 if speed == 1000 else 2  # wire units per byte
        self.ifg = max(ifg, 1)
        dut.mii_select.value = int(speed != 1000)
        dut.cfg_tx_ifg.value = ifg
        dut.pause_valid.value = 0
        dut.pause_quanta.value = 0
        self.dom = Domain(dut.clk, dut.clk_en, dut.ts_now)
        self.sink = gmii_sink(dut)
        self.drv = TxDriver(dut, dut.clk)
        self.mode = ModeSideband(dut.s_axis_ts_mode, self.drv)
        self.ts = PulseMonitor(dut.clk, dut.tx_ts_valid, dut.tx_ts)
        self.got = []
        self.counts = {}

    async def start(self):
        dut = self.dut
        self.dom.start_clock()
        dut.rst.value = 1
        self.dom.set_div(self.div)
        await ClockCycles(dut.clk, 4)
        dut.rst.value = 0
        await ClockCycles(dut.clk, 2)

    def send(self, f: TxFrame):
        f.ifg = self.ifg  # the IFG in force before this frame
        self.mode.queue(getattr(f, "ts_mode", 0))
        self.drv.send(f)

    def set_ifg(self, ifg: int):
        """Change cfg_tx_ifg (only while the MAC is idle)."""
        self.dut.cfg_tx_ifg.value = ifg
        self.ifg = max(ifg, 1)

    async def collect(self, n: int):
        while len(self.got) < n:
            self.got.append(await self.sink.recv())

    def unit(self) -> int:
        return self.div * PERIOD_PS

    def sfd_launch(self, g) -> int:
        """ps of the edge that launched the SFD (the sink sees it one enable later and stamps
        sim_time_sfd at the enable after that)."""
        return g.sim_time_sfd - 2 * self.unit()

    async def check(self, extra_gap_ps=None):
        """Wait for every frame, then check wire contents, timing, timestamps and counters.
        extra_gap_ps[i]: extra idle time the MAC had to insert before frame i (pause)."""
        await self.drv.wait()
        sent = self.drv.sent
        await self.collect(len(sent))
        await ClockCycles(self.dut.clk, 40 * self.div)
        assert self.sink.empty(), "more frames on the wire than sent"
        counts = dict(frames=0, bytes=0, stomped=0, underrun=0, ts_bad_offset=0)
        prev_end = None
        for i, (f, g) in enumerate(zip(sent, self.got)):
            assert g.error is None
            wire = bytes(g.get_payload(strip_fcs=False))
            # GmiiSink opens a frame on the first sampled byte (nibble) without storing it, so at
            # GMII it reports 6 preamble bytes; the 7th is proven by the start time check below.
            assert bytes(g.get_preamble()) == eth.PREAMBLE[self.upb == 1:] + bytes([eth.SFD])
            sfd = self.sfd_launch(g)
            ts = fp_ps(sfd)
            if f.underrun_at is not None:
                body = f.data[:f.underrun_at]
                exp = eth.TxResult(body + bytes(b ^ 0xFF for b in eth.fcs(body)), stomped=True)
                counts["underrun"] += 1
            elif getattr(f, "ts_mode", 0):
                exp = stamp_wire_1g(f.data, f.bad, f.ts_offset, ts)
            else:
                exp = eth.tx_wire(f.data, f.bad, f.ts_insert, f.ts_offset, ts)
            assert wire == exp.frame, f"frame {i}: wire differs from the model"
            assert g.check_fcs() == (not exp.stomped)
            counts["frames"] += 1
            counts["bytes"] += len(wire)
            counts["stomped"] += int(f.bad and f.underrun_at is None)
            counts["ts_bad_offset"] += int(exp.ts_bad_offset)
            # timing: the MAC starts at the first enable edge at which it is idle (IFG and any
            # pause over) and tvalid is up; the SFD follows PRE_UNITS enables later
            ready = f.t_valid
            if prev_end is not None:
                idle = prev_end + (f.ifg * self.upb - 1) * self.unit()
                if extra_gap_ps and extra_gap_ps.get(i):
                    idle += extra_gap_ps[i]
                ready = max(ready, idle)
                gap = g.sim_time_start - prev_end
                assert gap % self.unit() == 0 and gap // self.unit() >= f.ifg * self.upb
            start = self.dom.next_enable(ready)
            assert g.sim_time_start == start + self.unit(), f"frame {i}: tx_en rose off time"
            assert sfd - start == PRE_UNITS[self.upb] * self.unit(), \
                f"frame {i}: SFD launched {(sfd - start) / PERIOD_PS} cycles after the start"
            prev_end = g.sim_time_end
        # timestamp report: one per frame, in order, the cycle after the SFD launch edge
        assert len(self.ts.pulses) == len(sent)
        for (t, v), g in zip(self.ts.pulses, self.got):
            assert v == fp_ps(self.sfd_launch(g))
            assert t == self.sfd_launch(g) + PERIOD_PS
        for k, v in counts.items():
            assert int(getattr(self.dut, f"stat_tx_{k}").value) == v, k
        self.counts = counts


def latency(tb: Tb) -> int:
    """Stated latency (cycles) from the first tvalid at an enable edge to the SFD launch."""
    return PRE_UNITS[tb.upb] * tb.div


SIZES_1000 = list(range(60, 81)) + [1, 2, 13, 14, 40, 59, 81, 99, 127, 128, 255, 256, 511, 700, 1023,
                                    1024, 1300, 1499, 1514]
SIZES_100 = [1, 59, 60, 61, 63, 77, 128, 511, 1514]
SIZES_10 = [20, 60, 61, 150]


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100, 10])
async def line_rate_all_sizes(dut, speed):
    """Sizes 1..1514 (60..1514 and runts that get padded), back to back with the client always
    ready: every frame leaves at the minimum IFG (full line rate); then random client gaps."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    sizes = {1000: SIZES_1000, 100: SIZES_100, 10: SIZES_10}[speed]
    for n in sizes:
        tb.send(TxFrame(eth.build(r, max(n, 14))[:n]))
    for n in r.sample(sizes, min(len(sizes), 8)):
        tb.send(TxFrame(eth.build(r, max(n, 14))[:n], gap=r.choice([0, 1, 3, 10, 17, 40, 100]) * tb.div))
    await tb.check()
    # the back-to-back part ran at line rate: the train took exactly its wire time
    got = tb.got[:len(sizes)]
    wire_bytes = sum(8 + max(n, 60) + 4 + 12 for n in sizes[:-1])
    assert got[-1].sim_time_start - got[0].sim_time_start == wire_bytes * tb.upb * tb.unit()
    assert latency(tb) == PRE_UNITS[tb.upb] * tb.div


@cocotb.test()
async def jumbo_and_ifg(dut):
    """A 9000-byte frame, then cfg_tx_ifg 1, 5, 0 (acts as 1) and 40, checked exactly."""
    r = rng()
    tb = Tb(dut, 1000)
    await tb.start()
    tb.send(TxFrame(eth.build(r, 8996)))
    for ifg in (1, 5, 0, 40, 12):
        await tb.check()
        tb.set_ifg(ifg)
        first = len(tb.got)
        for _ in range(4):
            tb.send(TxFrame(eth.build(r, r.randint(60, 120))))
        await tb.check()
        for g, h in zip(tb.got[first:], tb.got[first + 1:]):
            assert h.sim_time_start - g.sim_time_end == max(ifg, 1) * PERIOD_PS


def udp_frame(r, payload_len: int) -> bytes:
    pkt = Ether(dst=eth.random_mac(r), src=eth.random_mac(r)) / IP(src="10.0.0.1", dst="10.0.0.2") / \
        UDP(sport=1234, dport=5678) / Raw(bytes(payload_len))
    return bytes(pkt)


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def timestamp_injection(dut, speed):
    """Timestamps written at random offsets (data, padding, the last 8 bytes, offset 0), bad
    offsets (past the end: not written; starting inside the data: partly written + stomped):
    the stamp equals the SFD launch time and the FCS covers it (GmiiSink, model, scapy)."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    frames = []
    # a UDP probe: the stamp at the start of the UDP payload, read back through scapy
    probe = udp_frame(r, 16)
    frames.append(TxFrame(probe, ts_insert=True, ts_offset=42))
    for n in [60, 61, 100, 300, 20, 1, 52, 53]:
        data = eth.build(r, max(n, 14))[:n]
        padded = max(n, 60)
        offs = [0, padded - 8, r.randint(0, padded - 8)]
        if n <= 52:
            offs.append(r.randint(n, 52))  # inside the padding
        for o in offs:
            frames.append(TxFrame(data, ts_insert=True, ts_offset=o, gap=r.choice([0, 0, 5, 30])))
    for n, o in [(100, 93), (100, 100), (100, 4000), (30, 55), (30, 52), (58, 53), (64, 60)]:
        data = eth.build(r, max(n, 14))[:n]
        frames.append(TxFrame(data, ts_insert=True, ts_offset=o))
    frames.append(TxFrame(eth.build(r, 80), ts_insert=True, ts_offset=10, bad=True))
    frames.append(TxFrame(eth.build(r, 80), ts_insert=False, ts_offset=10))
    for f in frames:
        tb.send(f)
    await tb.check()
    g = tb.got[0]
    pkt = Ether(bytes(g.get_payload()))
    assert int.from_bytes(bytes(pkt[UDP].payload)[:8], "big") == fp_ps(tb.sfd_launch(g))
    assert g.check_fcs()
    assert tb.counts["ts_bad_offset"] == 6


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def ptrain_stamp(dut, speed):
    """Mode 1: tester frames (IPv4 / IPv6 / 802.1Q, random sizes, random client gaps) mixed with
    mode-0 and unstamped frames: the four fields equal the SFD launch time (tx_ts), parse() takes
    the frames, FCS good. Then stamps in the padding, exactly fitting, not fitting (begun: partly
    written + stomped; not begun: nothing), with tuser bad: the wire equals stamp_wire_1g and
    stat_tx_ts_bad_offset counts the misfits."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    plan = []  # (index of the frame, build() arguments) of the tester frames
    for data, off, kw in ptrain_frames(r, 24 if speed == 1000 else 8):
        plan.append((len(tb.mode.modes), kw))
        tb.send(stamp_frame(data, off, gap=r.choice([0, 0, 1, 3, 20]) * tb.div))
        if r.random() < 0.3:  # other traffic between them: an 8-byte stamp or none
            tb.send(TxFrame(eth.build(r, r.randint(60, 120)), ts_insert=r.random() < 0.5,
                            ts_offset=r.randint(0, 52)))
    # the MAC does not parse the frame: any bytes, offsets at the edges of the rule
    cases = [(1, 0), (20, 18), (60, 19), (30, 19), (26, 19), (27, 19), (28, 19), (83, 41), (83, 42),
             (100, 58), (100, 59), (100, 91), (100, 92), (100, 300)]
    for n, off in cases:
        tb.send(stamp_frame(eth.build(r, max(n, 14))[:n], off, gap=r.choice([0, 2])))
    tb.send(stamp_frame(eth.build(r, 90), 30, bad=True))
    await tb.check()
    for i, kw in plan:
        g = tb.got[i]
        check_tester_frame(bytes(g.get_payload(strip_fcs=True)), kw, fp_ps(tb.sfd_launch(g)))
        assert g.check_fcs()
    misfits = sum(off + STAMP_END > max(n, 60) for n, off in cases)
    assert tb.counts["ts_bad_offset"] == misfits == 10  # the other frames all fit


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def stomp_and_underrun(dut, speed):
    """tuser bad at tlast -> inverted FCS; tvalid dropped mid-frame -> the frame ends at once
    with a stomped FCS, the rest of it is swallowed, the next frame is clean. Counters exact."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    for _ in range(12):
        kind = r.choice(["good", "bad", "underrun", "underrun"])
        n = r.randint(30, 200)
        data = eth.build(r, n)
        f = TxFrame(data, gap=r.choice([0, 2, 20]) * tb.div)
        if kind == "bad":
            f.bad = True
        elif kind == "underrun":
            f.underrun_at = r.randint(1, n - 1)
            f.underrun_cycles = r.randint(2, 6) * 2 * tb.div  # spans at least one byte step
            f.bad = r.random() < 0.3  # ignored: the frame is already stomped
        tb.send(f)
    await tb.check()


@cocotb.test()
@cocotb.parametrize(speed=[1000, 100])
async def pause(dut, speed):
    """A pause received during a frame holds the next one for exactly quanta x 512 bit times
    after the IFG (quanta 0: not at all); stat_tx_paused_cycles counts those cycles."""
    r = rng()
    tb = Tb(dut, speed)
    await tb.start()
    byte_ps = tb.upb * tb.unit()
    qs = [r.randint(1, 40), 3, 0, r.randint(41, 100)]
    extra = {}
    for i, q in enumerate(qs):
        tb.send(TxFrame(eth.build(r, 300)))
        tb.send(TxFrame(eth.build(r, 80)))
        await RisingEdge(dut.gmii_tx_en)  # the 300-byte frame is on the wire: pause mid-frame
        await ClockCycles(dut.clk, 100 * tb.div)
        dut.pause_valid.value = 1
        dut.pause_quanta.value = q
        await RisingEdge(dut.clk)
        dut.pause_valid.value = 0
        extra[2 * i + 1] = q * 64 * byte_ps
        await tb.collect(2 * i + 2)
        await Timer(1, unit="us")
    await tb.check(extra_gap_ps=extra)
    assert int(dut.stat_tx_paused_cycles.value) == sum(q * 64 * tb.upb * tb.div for q in qs)


@cocotb.test()
async def pause_restart(dut):
    """A long pause, then a short one while it counts: the count restarts from the short one's
    arrival (GMII: the frame starts exactly quanta x 64 + 1 cycles after it is sampled)."""
    r = rng()
    tb = Tb(dut, 1000)
    await tb.start()
    dut.pause_valid.value = 1
    dut.pause_quanta.value = 1000
    await RisingEdge(dut.clk)
    dut.pause_valid.value = 0
    tb.send(TxFrame(eth.build(r, 100)))
    await ClockCycles(dut.clk, 300)
    assert not tb.got and tb.sink.empty()
    q = r.randint(1, 5)
    dut.pause_valid.value = 1
    dut.pause_quanta.value = q
    await RisingEdge(dut.clk)
    t_pause = now_ps()
    dut.pause_valid.value = 0
    await tb.collect(1)
    # launch of the first preamble byte (the sink stamps its start one cycle later)
    assert tb.got[0].sim_time_start - PERIOD_PS - t_pause == (q * 64 + 1) * PERIOD_PS
    # every cycle from the first pause to the end of the second one's count (the frame waited)
    assert int(dut.stat_tx_paused_cycles.value) == 300 + 1 + q * 64
    # quanta 0 ends a running pause at once
    dut.pause_valid.value = 1
    dut.pause_quanta.value = 2000
    await RisingEdge(dut.clk)
    dut.pause_valid.value = 0
    tb.send(TxFrame(eth.build(r, 100)))
    await ClockCycles(dut.clk, 200)
    assert len(tb.got) == 1 and tb.sink.empty()
    dut.pause_valid.value = 1
    dut.pause_quanta.value = 0
    await RisingEdge(dut.clk)
    t_pause = now_ps()
    dut.pause_valid.value = 0
    await tb.collect(2)
    assert tb.got[1].sim_time_start - PERIOD_PS - t_pause == PERIOD_PS


@cocotb.test()
async def latency_exact(dut):
    """First tvalid of an idle MAC -> SFD launch: 7 cycles at 1000 (asserted per frame in every
    test through the timing model; here stated explicitly)."""
    r = rng()
    tb = Tb(dut, 1000)
    await tb.start()
    for _ in range(10):
        tb.send(TxFrame(eth.build(r, 64), gap=r.randint(30, 60)))
    await tb.check()
    for f, g in zip(tb.drv.sent, tb.got):
        assert tb.sfd_launch(g) - f.t_valid == 7 * PERIOD_PS


@pytest.mark.parametrize("dummy", [0])
def test_eth_mac_1g_tx(dummy):
    runner.run("fp_eth_mac_1g_tx", __name__, {})
