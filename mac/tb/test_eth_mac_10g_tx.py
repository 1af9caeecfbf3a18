"""fp_eth_mac_10g_tx: client frames from cocotbext-axi's AxiStreamSource, the wire checked with
cocotbext-eth's XgmiiSink against fastpath.models.eth10g (padding, FCS, stomping, timestamp
insertion), start positions against the deficit-idle-count model (line rate, 14.88 Mpps at 64 B),
exact latency (1 cycle: first tvalid of an idle MAC -> /S/+SFD word on the pins), TX timestamps
against the simulation time of the /S/ at the pins, pause timing at the pins, and underruns.

The MAC is the only backpressure source of s_axis (tready); the client side gets random gaps
between frames (never inside one, except in the underrun test).

Tester stamp (s_axis_ts_mode = 1): tester frames from fastpath.ptrain.frame.build (IPv4, IPv6,
802.1Q, random sizes) get tv_sec, tv_usec, tx_time and csum_adj written at the time reported on
tx_ts; the wire equals build() at that time, parse() takes it, the FCS is right; edge offsets
(the first one the conversion's latency allows, stamps that do not fit) follow stamp_wire_10g.
"""
import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource
from cocotbext.eth import XgmiiSink
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw

from fastpath.mac.bench_cocotb_10g import TsSideband, tx_client
from fastpath.mac import eth10g
from fastpath.mac.eth10g import dic_starts, fp, tx_wire
from fastpath.sim import runner
from fastpath.sim.tb import high, random_bytes, rng, start
from test_eth_mac_1g_tx import STAMP_END, STAMP_FIRST, check_tester_frame, ptrain_frames, stamp_bytes

LATENCY = 1  # cycle of the first tvalid (idle MAC) -> cycle of the /S/ + SFD word on the pins
STAMP_MIN_BEAT = 6  # mode 1: the first stamp byte must be in beat 6 or later (fp_ts_tod's latency)


def stamp_wire_10g(payload: bytes, off: int, ts: int, bad: bool = False, empty_tail: int = 0):
    """What fp_eth_mac_10g_tx sends for a mode-1 frame (tester header at `off`), and whether the
    stamp was made. Not made, nothing written, when the first stamp byte (off + 8) is before beat
    6. Otherwise made when the whole stamp (off + 8 .. off + 41) is in the frame; if not, and a
    stamp byte was in a beat before the client's last one (already on its way to the wire), the
    stamp bytes inside the padded frame are written and the FCS stomped; else nothing is written."""
    body = bytearray(payload.ljust(eth10g.MIN_DATA, b"\0"))
    early = (off + STAMP_FIRST) // 8 < STAMP_MIN_BEAT
    fits = off + STAMP_END <= len(body)
    begun = (len(payload) + empty_tail - 1) // 8 > (off + STAMP_FIRST) // 8
    if not early and (fits or begun):
        for k, b in stamp_bytes(ts).items():
            if off + k < len(body):
                body[off + k] = b
    crc = eth10g.fcs(bytes(body))
    if bad or (not early and not fits and begun):
        crc = bytes(b ^ 0xFF for b in crc)
    return bytes(body) + crc, not early and fits


class ModeSideband:
    """s_axis_ts_mode per frame, applied with TsSideband's values (when the frame before has been
    accepted, by the tx_client monitor)."""

    def __init__(self, dut, client):
        self.dut, self.client, self.modes = dut, client, []
        dut.s_axis_ts_mode.value = 0
        client.on_frame(lambda _: self._apply(len(client.frames)))

    def _apply(self, idx):
        self.dut.s_axis_ts_mode.value = self.modes[idx] if idx < len(self.modes) else 0

    def queue(self, mode: int):
        self.modes.append(int(mode))
        n = len(self.client.frames)
        if len(self.modes) == n + 1 and self.client.current is None:
            self._apply(n)


class Tx:
    """Client source with the ts sideband, wire sink, and one cycle-exact monitor of everything."""

    def __init__(self, dut):
        self.dut = dut
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.sink = XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst)
        for name, v in (("ts_now", 0), ("cfg_tx_ifg", 12), ("pause_valid", 0), ("pause_quanta", 0)):
            getattr(dut, name).value = v
        self.client = tx_client(dut)  # a BeatMonitor sampled by _monitor at every rising edge
        self.side = TsSideband(dut, self.client)
        self.mode = ModeSideband(dut, self.client)
        self.cycle = 0
        self.frames_in = self.client.frames  # per client frame: first_valid, beats (cycles), gap
        self.starts = []  # (cycle, lane, sim time of the cycle in ps) of each /S/ on the pins
        self.tx_ts = []
        self.status = []
        self.paused = 0
        self.pause_at = {}  # cycle -> quanta: pause_valid pulses to drive
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            # values sampled by this edge: the client handshake of the cycle that just ended
            self.client.sample(self.cycle)
            self.cycle += 1
            dut.ts_now.value = fp(get_sim_time("ps"))
            q = self.pause_at.pop(self.cycle, None)
            dut.pause_valid.value = int(q is not None)
            dut.pause_quanta.value = q or 0
            await ReadOnly()
            if high(dut.rst):
                continue
            d, c = int(dut.xgmii_txd.value), int(dut.xgmii_txc.value)
            for lane in range(8):
                if (c >> lane) & 1 and (d >> 8 * lane) & 0xFF == 0xFB:
                    assert lane in (0, 4), f"/S/ on lane {lane}"
                    self.starts.append((self.cycle, lane, int(get_sim_time("ps"))))
            if high(dut.tx_ts_valid):
                self.tx_ts.append(int(dut.tx_ts.value))
            if high(dut.tx_status_valid):
                self.status.append({k: int(getattr(dut, f"tx_status_{k}").value)
                                    for k in ("len", "stomped", "underrun", "ts_bad_offset")})
            if high(dut.tx_paused):
                self.paused += 1

    async def send(self, payload: bytes, bad=False, ts_insert=0, ts_offset=0, empty_tail=0, ts_mode=0):
        """Queue a client frame; `empty_tail` garbage bytes with tkeep 0 end it (a last beat
        with tkeep = 0 when len(payload) is a multiple of 8)."""
        self.side.queue(ts_insert, ts_offset)
        self.mode.queue(ts_mode)
        n = len(payload) + empty_tail
        f = AxiStreamFrame(payload + b"\xa5" * empty_tail, tkeep=[1] * len(payload) + [0] * empty_tail,
                           tuser=[0] * (n - 1) + [int(bad)])
        await self.source.send(f)

    async def recv(self, n):
        out = []
        for _ in range(n):
            out.append(await with_timeout(self.sink.recv(), 200, "us"))
        return out


async def setup(dut):
    tx = Tx(dut)  # bus models first: they drive the inputs idle
    await start(dut, period_ns=6.4)
    return tx


def wire_of(rx_frame) -> bytes:
    assert rx_frame.ctrl is None, "control character inside a frame"
    assert bytes(rx_frame.get_preamble()) == eth10g.PREAMBLE
    return bytes(rx_frame.get_payload(strip_fcs=False))


def check_starts(tx, first_index, lens, ifg):
    """/S/ positions of frames sent back to back = the DIC model's, from the first one on."""
    got = [8 * c + lane for c, lane, _ in tx.starts[first_index:first_index + len(lens)]]
    want = dic_starts(lens, ifg, first=got[0])
    assert got == want, f"starts differ at frame {next(i for i, (a, b) in enumerate(zip(got, want)) if a != b)}"
    return got


def check_latency(tx, i):
    """The /S/ word leaves in the cycle after the first beat is accepted; for a frame that found
    the MAC idle (accepted at its first tvalid) that is LATENCY cycles after its first tvalid."""
    fin, (s_cycle, _, _) = tx.frames_in[i], tx.starts[i]
    assert s_cycle - fin.first_beat == 1, f"frame {i}: /S/ {s_cycle - fin.first_beat} after accept"
    return s_cycle - fin.first_valid


@cocotb.test()
async def sizes_back_to_back(dut):
    """Every client size 1..80 (padding, every tkeep), a spread, 1514: back to back, the wire equals
    the model (padding, FCS checked by the sink), starts equal the DIC model, status lengths."""
    r = rng()
    tx = await setup(dut)
    sizes = list(range(1, 81)) + [r.randint(81, 1513) for _ in range(6)] + [1514]
    payloads = [random_bytes(r, n) for n in sizes]
    for p in payloads:
        await tx.send(p)
    got = await tx.recv(len(payloads))
    for i, (p, g) in enumerate(zip(payloads, got)):
        want, _ = tx_wire(p)
        assert g.check_fcs()
        assert wire_of(g) == want, f"frame {i} ({len(p)} B)"
    await ClockCycles(dut.clk, 10)
    lens = [max(n, 60) + 4 for n in sizes]
    check_starts(tx, 0, lens, 12)
    assert check_latency(tx, 0) == LATENCY
    for i in range(len(sizes)):
        check_latency(tx, i)
    assert [s["len"] for s in tx.status] == lens
    assert not any(s["stomped"] or s["underrun"] or s["ts_bad_offset"] for s in tx.status)
    assert {lane for _, lane, _ in tx.starts} == {0, 4}

    # bad input: a last beat with tkeep = 0 (the frame ends with the beat before), padding too
    for size in (8, 64, 72, 200):
        p = random_bytes(r, size)
        await tx.send(p, empty_tail=8)
        (g,) = await tx.recv(1)
        assert g.check_fcs() and wire_of(g) == tx_wire(p)[0], size


@cocotb.test()
async def line_rate_dic(dut):
    """64-byte frames back to back at IFG 12: 14.88 Mpps (84 byte times per frame on average);
    then random sizes at cfg_tx_ifg 8, 13 and 20: start positions equal the DIC model."""
    r = rng()
    tx = await setup(dut)
    n = 96
    for _ in range(n):
        await tx.send(random_bytes(r, 60))
    got = await tx.recv(n)
    assert all(g.check_fcs() for g in got)
    pos = check_starts(tx, 0, [64] * n, 12)
    mpps = (n - 1) / ((pos[-1] - pos[0]) * 0.8e-9) / 1e6
    assert abs(mpps - 14.88) < 0.01 and pos[-1] - pos[0] == 84 * (n - 1), mpps
    base = n
    for ifg in (8, 13, 20):
        await ClockCycles(dut.clk, 20)
        dut.cfg_tx_ifg.value = ifg
        sizes = [r.choice([60, 61, 62, 63, 64, r.randint(60, 300)]) for _ in range(24)]
        for s in sizes:
            await tx.send(random_bytes(r, s))
        got = await tx.recv(len(sizes))
        assert all(g.check_fcs() for g in got)
        check_starts(tx, base, [s + 4 for s in sizes], ifg)
        base += len(sizes)


def udp_frame(r, size):
    """An Ethernet/IPv4/UDP frame of `size` bytes (without FCS) built by scapy, or random bytes
    when too short for the headers."""
    if size < 42:
        return random_bytes(r, size)
    pkt = Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") / IP(src="10.0.0.1", dst="10.0.0.2") \
        / UDP(sport=319, dport=319) / Raw(random_bytes(r, size - 42))
    return bytes(pkt)


@cocotb.test()
async def timestamp_insertion(dut):
    """Random sizes and offsets (inside, straddling two beats, in the padding, partly or wholly
    outside the frame): the stamp equals tx_ts, which equals the fp_time of the /S/ at the pins;
    the FCS covers it (sink check), scapy still parses the frame; misfits counted, nothing written."""
    r = rng()
    tx = await setup(dut)
    cases = []
    for i in range(70):
        size = r.choice([r.randint(1, 70), r.randint(42, 200)])
        end = max(size, 60)
        off = r.choice([0, r.randint(0, 7), r.randint(0, max(end - 8, 0)), end - 8, end - 7, end - 1,
                        end + r.randint(0, 20), r.randint(0, end + 8)])
        off = max(off, 0)
        payload = udp_frame(r, size)
        cases.append((payload, off))
        await tx.send(payload, ts_insert=1, ts_offset=off)
        if r.random() < 0.3:
            await ClockCycles(dut.clk, r.randint(1, 12))
    got = await tx.recv(len(cases))
    await ClockCycles(dut.clk, 10)
    assert len(tx.tx_ts) == len(cases) == len(tx.status)
    bad = 0
    kinds = set()
    for i, ((payload, off), g) in enumerate(zip(cases, got)):
        end = max(len(payload), 60)
        if off % 8 and off // 8 < (end - 1) // 8:  # spans two beats, the first not the last
            kinds.add("straddle fits" if off + 8 <= end else "straddle restored")
        ts = tx.tx_ts[i]
        cycle, lane, t_ps = tx.starts[i]
        want_ts = fp(t_ps + (eth10g.PERIOD_PS // 2 if lane == 4 else 0))
        assert abs(ts - want_ts) <= 2, f"frame {i}: tx_ts {ts} vs /S/ at {want_ts}"
        sfd_ps = t_ps + (eth10g.PERIOD_PS // 2 if lane == 4 else 0) + 7 * eth10g.PERIOD_PS // 8
        assert 0 < fp(sfd_ps) - ts <= fp(eth10g.PERIOD_PS), f"frame {i}: SFD left {fp(sfd_ps) - ts} after ts"
        want, made = tx_wire(payload, ts=ts, ts_offset=off)
        assert g.check_fcs(), f"frame {i}: FCS"
        assert wire_of(g) == want, f"frame {i} ({len(payload)} B, offset {off}, made {made})"
        assert tx.status[i]["ts_bad_offset"] == int(not made)
        bad += not made
        if len(payload) >= 42 and (off >= 42 or not made):  # stamp in the UDP payload (or none)
            pkt = Ether(wire_of(g)[:-4])
            assert pkt.haslayer(UDP) and pkt[UDP].dport == 319 and pkt[IP].src == "10.0.0.1"
            if made and off + 8 <= len(payload):
                assert pkt[Raw].load[off - 42:off - 34] == ts.to_bytes(8, "big")
        check_latency(tx, i)
    assert 0 < bad < len(cases)
    assert kinds == {"straddle fits", "straddle restored"}, kinds


@cocotb.test()
async def ptrain_stamp(dut):
    """Mode 1: tester frames (IPv4 / IPv6 / 802.1Q, random sizes, random gaps, so /S/ on lanes 0
    and 4) between mode-0 and unstamped frames: the four fields equal tx_ts (the /S/ time), parse()
    takes the frame, FCS good. Then the edges: offsets 39 (the first stamp byte in beat 5: too
    early, not made) and 40 (beat 6: made), every lane of the last stamp byte, stamps that end one
    byte past the frame (begun: partly written + stomped; not begun: nothing), a tkeep-0 last
    beat, tuser bad, one-beat frames. The status flags count the misfits."""
    r = rng()
    tx = await setup(dut)
    cases = []  # (payload, offset, build() arguments or None, bad, empty tail, mode)
    for data, off, kw in ptrain_frames(r, 40, max_size=300):
        cases.append((data, off, kw, False, 0, 1))
        if r.random() < 0.3:
            p = udp_frame(r, r.randint(60, 120))
            cases.append((p, r.randint(0, 52), None, False, 0, 0))
    edges = [(100, o) for o in range(39, 48)] + [(82, 40), (81, 40), (55, 40), (56, 40), (57, 40),
             (89, 47), (88, 47), (88, 46), (87, 46), (50, 45), (8, 40), (1, 60), (300, 250), (300, 259),
             (300, 258)]
    edges += [(n, r.randint(40, 47)) for n in r.sample(range(60, 120), 8)]
    for n, off in edges:
        cases.append((random_bytes(r, n), off, None, False, 0, 1))
    cases.append((random_bytes(r, 64), 40, None, False, 8, 1))   # tkeep-0 last beat, begun
    cases.append((random_bytes(r, 120), 44, None, True, 0, 1))   # tuser bad
    for p, off, _, bad, tail, mode in cases:
        await tx.send(p, bad=bad, ts_insert=1 if mode or r.random() < 0.5 else 0, ts_offset=off,
                      empty_tail=tail, ts_mode=mode)
        if r.random() < 0.3:
            await ClockCycles(dut.clk, r.randint(1, 12))
    got = await tx.recv(len(cases))
    await ClockCycles(dut.clk, 10)
    assert len(tx.tx_ts) == len(cases) == len(tx.status)
    lanes, made_n = set(), 0
    for i, ((p, off, kw, bad, tail, mode), g) in enumerate(zip(cases, got)):
        ts = tx.tx_ts[i]
        _, lane, t_ps = tx.starts[i]
        assert abs(ts - fp(t_ps + (eth10g.PERIOD_PS // 2 if lane == 4 else 0))) <= 2, f"frame {i}: tx_ts"
        wire = wire_of(g)
        if mode:
            want, made = stamp_wire_10g(p, off, ts, bad, tail)
            made_n += made
            if made:
                lanes.add((lane, (off + STAMP_END - 1) % 8))
        else:
            ins = tx.side.side[i][0]
            want, made = tx_wire(p, ts=ts if ins else None, ts_offset=off)
            made = made or not ins
        assert wire == want, f"frame {i} ({len(p)} B, offset {off}, mode {mode})"
        assert g.check_fcs() == (want[-4:] == eth10g.fcs(want[:-4])), f"frame {i}: FCS"
        assert tx.status[i]["ts_bad_offset"] == int(not made), f"frame {i}: ts_bad_offset"
        assert tx.status[i]["stomped"] == int(bad)
        if kw is not None:
            check_tester_frame(wire[:-4], kw, ts)
            assert g.check_fcs()
        check_latency(tx, i)
    assert {lane for lane, _ in lanes} == {0, 4} and len({le for _, le in lanes}) == 8, lanes
    assert made_n >= 40


@cocotb.test()
async def stomp_and_underrun(dut):
    """tuser bad at tlast -> inverted FCS; tvalid dropped mid-frame on purpose -> the frame ends at
    once with an inverted FCS over what was sent, the rest is swallowed; the next frames are clean."""
    r = rng()
    tx = await setup(dut)
    kinds = []
    for i in range(30):
        kind = r.choice(["good", "bad", "under", "under"])
        size = r.randint(17, 200) if kind == "under" else r.randint(1, 200)
        payload = random_bytes(r, size)
        kinds.append((kind, payload))
        if kind == "under":
            await tx.source.wait()  # nothing queued: this frame's beats are alone on the bus
            before = len(tx.frames_in)
            await tx.send(payload)
            stop = r.randint(1, -(-size // 8) - 2)  # beats before the gap (one more may slip through)
            while tx.client.current is None or len(tx.client.current.beats) < stop:
                await RisingEdge(dut.clk)
            tx.source.pause = True
            await ClockCycles(dut.clk, r.randint(1, 6))
            tx.source.pause = False
            while len(tx.frames_in) == before:
                await RisingEdge(dut.clk)
        else:
            await tx.send(payload, bad=kind == "bad")
    got = await tx.recv(len(kinds))
    await ClockCycles(dut.clk, 10)
    for i, ((kind, payload), g, fin, st) in enumerate(zip(kinds, got, tx.frames_in, tx.status)):
        wire = wire_of(g)
        if kind == "under":
            sent = payload[:8 * fin.gap]
            assert wire == sent + bytes(b ^ 0xFF for b in eth10g.fcs(sent)), f"frame {i}: underrun wire"
            assert st == {"len": len(sent) + 4, "stomped": 0, "underrun": 1, "ts_bad_offset": 0}
        else:
            want, _ = tx_wire(payload, bad=kind == "bad")
            assert wire == want, f"frame {i}"
            assert g.check_fcs() == (kind == "good")
            assert fin.gap is None
            assert st == {"len": max(len(payload), 60) + 4, "stomped": int(kind == "bad"),
                          "underrun": 0, "ts_bad_offset": 0}
    assert sum(k == "under" for k, _ in kinds) > 3


@cocotb.test()
async def pause_timing(dut):
    """A pause received while a long frame is on the wire: that frame finishes, then nothing starts
    for quanta x 8 cycles counted from the cycle the IFG would have let the next frame start
    (measured at the pins); a second pause restarts the count; quanta 0 resumes at once."""
    r = rng()
    tx = await setup(dut)
    for q in (1, 2, r.randint(3, 12)):
        await ClockCycles(dut.clk, 30)
        i = len(tx.starts)
        paused0 = tx.paused
        a, b = random_bytes(r, r.randint(300, 600)), random_bytes(r, 80)
        await tx.send(a)
        await tx.send(b)
        while len(tx.starts) <= i:
            await RisingEdge(dut.clk)
        tx.pause_at[tx.cycle + 5] = q
        await tx.recv(2)
        s_a = 8 * tx.starts[i][0]
        free = dic_starts([len(a) + 4, len(b) + 4], 12, first=s_a)[1]  # without the pause
        assert tx.starts[i + 1][:2] == (free // 8 + 8 * q, 0), (tx.starts[i + 1], free, q)
        assert tx.paused - paused0 == 8 * q

    # restart, then resume with quanta 0
    for q2, resume in ((3, False), (9, True)):
        await ClockCycles(dut.clk, 30)
        i = len(tx.starts)
        await tx.send(random_bytes(r, 400))
        await tx.send(random_bytes(r, 70))
        while len(tx.starts) <= i:
            await RisingEdge(dut.clk)
        tx.pause_at[tx.cycle + 3] = 4
        tx.pause_at[tx.cycle + 4] = q2  # during the frame: the count restarts from this pulse
        await with_timeout(tx.sink.recv(), 50, "us")
        free = dic_starts([400 + 4, 74], 12, first=8 * tx.starts[i][0])[1] // 8
        p2 = free + 5  # a pulse while the pause count runs
        if resume:
            tx.pause_at[p2] = 0
            want = p2 + 2
        else:
            tx.pause_at[p2] = 5
            want = p2 + 8 * 5 + 2
        await with_timeout(tx.sink.recv(), 50, "us")
        assert tx.starts[i + 1][:2] == (want, 0), (tx.starts[i + 1], want)


def test_eth_mac_10g_tx():
    runner.run("fp_eth_mac_10g_tx", __name__)
