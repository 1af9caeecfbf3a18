"""fp_eth_mac_10g_rx: XGMII frames from cocotbext-eth's XgmiiSource (DIC, lane-0 and lane-4 starts)
against the reference model fastpath.models.eth10g.rx_expect: data, tuser, status flags and lengths,
pause decode, exact latency (3 cycles from the SFD on the pins) and exact SFD timestamps.

There is no tready on m_axis (the wire cannot be stopped), so the only "backpressure" is the wire's:
frames back to back at the minimum IFG (settings 12 and 8 with DIC), random IFG settings down to 5
(gaps of 2 bytes) and random idle gaps.
"""
import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotb.utils import get_sim_time
from cocotbext.eth import XgmiiFrame, XgmiiSource

from fastpath.mac.bench_cocotb_10g import bad_case, rx_client, starts_in
from fastpath.mac import eth10g
from fastpath.mac.eth10g import PAUSE_DA, fp, pause_frame, rx_expect, with_fcs
from fastpath.sim import runner
from fastpath.sim.tb import high, random_bytes, rng, start

LATENCY = 3  # cycle of the SFD on the pins -> first beat valid
STATUS = ["good", "bad", "bad_fcs", "runt", "oversize", "phy_err", "pause"]


class Rx:
    """Source + monitors: the wire's starts, m_axis frames, status, pause and preamble pulses."""

    def __init__(self, dut):
        self.dut = dut
        self.source = XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)
        dut.ts_now.value = 0
        dut.cfg_rx_max_len.value = 1518
        self.starts = []  # (cycle of the /S/ word, lane, sim time of that cycle in ps)
        self.client = rx_client(dut, dut.clk)  # a BeatMonitor with its own loop, shared by _pins
        self.frames = self.client.frames  # Frame: data, user, first("ts"), first_beat (cycle)
        self.status = []
        self.pauses = []  # (cycle, quanta)
        self.bad_preamble = 0
        self.sent = []  # XgmiiFrame copies reported by the source (sim_time_start / _sfd, start_lane)
        self.ifgs = []
        self.client.every_cycle(self._pins)
        cocotb.start_soon(self._ts())

    async def _ts(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.dut.ts_now.value = fp(get_sim_time("ps"))

    def _pins(self, cycle):
        """Every cycle of the client monitor's loop: /S/ on the pins, status, pause, preamble."""
        dut = self.dut
        if str(dut.xgmii_rxc.value).count("x") == 0 and not high(dut.rst):
            for lane in starts_in(int(dut.xgmii_rxd.value), int(dut.xgmii_rxc.value)):
                self.starts.append((cycle, lane, get_sim_time("ps")))
        if high(dut.rx_status_valid):
            st = {k: int(getattr(dut, f"rx_status_{k}").value) for k in STATUS}
            st["len"] = int(dut.rx_status_len.value)
            self.status.append(st)
        if high(dut.rx_pause_valid):
            self.pauses.append((cycle, int(dut.rx_pause_quanta.value)))
        if high(dut.rx_bad_preamble):
            self.bad_preamble += 1

    def send(self, frame: XgmiiFrame, ifg: int = 12):
        """Queue a frame; `ifg` = the source's IFG setting after it (with DIC: ifg - 3 .. ifg + 3)."""
        if not self.ifgs:
            self.source.ifg = ifg
        self.ifgs.append(ifg)
        frame.tx_complete = self._done
        self.source.send_nowait(frame)

    def _done(self, frame):
        # the source reads .ifg when a frame ends, just before this callback: set the next one's
        self.sent.append(frame)
        if len(self.sent) < len(self.ifgs):
            self.source.ifg = self.ifgs[len(self.sent)]

    async def drain(self, extra=40):
        await self.source.wait()
        await ClockCycles(self.dut.clk, extra)


async def setup(dut):
    rx = Rx(dut)  # the source drives idles from here on
    await start(dut, period_ns=6.4)
    return rx


def good_body(r, n):
    """A frame of n bytes (FCS included) with a random payload."""
    return with_fcs(random_bytes(r, n - 4))


def check(rx, cases, max_len_of=lambda i: 1518):
    """cases: list of (body, errors, bad_end, preamble_ok) in send order."""
    expects = []
    for i, (body, errors, bad_end, pre_ok) in enumerate(cases):
        if pre_ok:
            expects.append((i, rx_expect(body, errors, bad_end, max_len_of(i))))
    fwd = [(i, e) for i, e in expects if e.forwarded is not None]
    assert len(rx.frames) == len(fwd), f"{len(rx.frames)} frames out, {len(fwd)} expected"
    assert len(rx.starts) == len(cases) == len(rx.sent)
    for (i, e), got in zip(fwd, rx.frames):
        assert got.data == e.forwarded, f"frame {i}: data differs ({len(got.data)} vs {len(e.forwarded)} B)"
        assert got.user == e.tuser, f"frame {i}: tuser {got.user} != {e.tuser}"
        cycle, lane, t_ps = rx.starts[i]
        sfd_cycle = cycle + (1 if lane == 4 else 0)
        assert got.first_beat - sfd_cycle == LATENCY, f"frame {i} (lane {lane}): latency {got.first_beat - sfd_cycle}"
        # timestamp: the fp_time of the /S/ byte at the pins (the word's cycle, +3.2 ns on lane 4),
        # exact to the rounding of fp_time (the RTL adds 3.2 ns rounded to 1/65536 ns) ...
        s_ps = t_ps + (eth10g.PERIOD_PS // 2 if lane == 4 else 0)
        ts = got.first("ts")
        assert abs(ts - fp(s_ps)) <= 1, f"frame {i}: ts {ts} != {fp(s_ps)}"
        assert ts == fp(t_ps) + (eth10g.HALF_PERIOD_FP if lane == 4 else 0)
        # ... so within one clock of the SFD byte, 7 byte times (5.6 ns) later on either lane
        sfd_ps = s_ps + 7 * eth10g.PERIOD_PS // 8
        assert 0 < fp(sfd_ps) - ts <= fp(eth10g.PERIOD_PS)
        assert rx.sent[i].start_lane == lane
    assert len(rx.status) == len(expects), f"{len(rx.status)} status pulses, {len(expects)} expected"
    for (i, e), st in zip(expects, rx.status):
        assert st == e.status, f"frame {i}: status {st} != {e.status}"
    want_q = [e.pause_quanta for _, e in expects if e.pause_quanta is not None]
    assert [q for _, q in rx.pauses] == want_q
    assert rx.bad_preamble == sum(1 for c in cases if not c[3])
    return expects


@cocotb.test()
async def sizes_back_to_back(dut):
    """Every frame size 64..84 with FCS, a spread up to 1518, back to back at IFG 12 with DIC
    (then all on lane 4, then IFG 8 = 5 bytes minimum): all delivered, exact data, latency, timestamps."""
    r = rng()
    rx = await setup(dut)
    sizes = list(range(64, 85)) + [r.randint(85, 1517) for _ in range(8)] + [127, 128, 129, 1518]
    cases = []
    for force4, ifg in ((False, 12), (True, 12), (False, 8)):
        rx.source.force_offset_start = force4
        for n in sizes:
            body = good_body(r, n)
            cases.append((body, (), False, True))
            rx.send(XgmiiFrame.from_raw_payload(body), ifg)
        await rx.drain()
    check(rx, cases)
    lanes = {lane for _, lane, _ in rx.starts}
    assert lanes == {0, 4}, lanes
    assert all(st["good"] for st in rx.status)


@cocotb.test()
async def jumbo(dut):
    """A 9000-byte payload with cfg_rx_max_len raised to 9600 is good; the same frame at 1518 is
    cut after 1514 data bytes and marked oversize; then normal traffic again."""
    r = rng()
    rx = await setup(dut)
    body = good_body(r, 9004)
    small = good_body(r, 100)
    cases = []
    dut.cfg_rx_max_len.value = 9600
    for b in (body, small):
        cases.append((b, (), False, True))
        rx.send(XgmiiFrame.from_raw_payload(b))
    await rx.drain()
    dut.cfg_rx_max_len.value = 1518
    for b in (body, small):
        cases.append((b, (), False, True))
        rx.send(XgmiiFrame.from_raw_payload(b))
    await rx.drain()
    exp = check(rx, cases, max_len_of=lambda i: 9600 if i < 2 else 1518)
    assert [e.status["oversize"] for _, e in exp] == [0, 0, 1, 0]
    assert len(rx.frames[0].data) == 9000 and len(rx.frames[2].data) == 1514


@cocotb.test()
async def bad_frames(dut):
    """Random mix of good, bad FCS, runts, 0..4-byte frames, oversize, /E/ anywhere, frames ended
    by a control character other than /T/, damaged or short preambles, pause frames (good, bad)
    and other MAC Control frames, back to back at random IFGs, for several cfg_rx_max_len values
    (so the oversize cut lands on every byte lane), IFG down to 2 bytes: data, tuser, per-frame status, counts."""
    r = rng()
    rx = await setup(dut)
    cases, limits = [], []
    for max_len in (64, 65, 66, 67, 68, 69, 70, 71) + tuple(r.randint(72, 200) for _ in range(4)):
        dut.cfg_rx_max_len.value = max_len
        rx.source.force_offset_start = r.random() < 0.3
        for _ in range(20):
            body, errors, bad_end, pre_ok, frame = bad_case(r, max_len)
            cases.append((body, errors, bad_end, pre_ok))
            limits.append(max_len)
            # IFG down to 2 bytes (5 with DIC), 5 (the receive minimum of 802.3) after 0..3-byte frames
            rx.send(frame, r.choice([5, 5, 8, 12, 20]) if len(body) > 3 else 8)
        await rx.drain()
    exp = check(rx, cases, max_len_of=lambda i: limits[i])
    seen = {k for _, e in exp for k in STATUS if e.status[k]}
    assert seen == set(STATUS), f"causes not exercised: {set(STATUS) - seen}"


@cocotb.test()
async def pause_decode(dut):
    """Pause frames between data frames: quanta out one cycle after the frame's end, nothing
    forwarded; a pause frame with a bad FCS is counted bad, also not forwarded."""
    r = rng()
    rx = await setup(dut)
    cases = []
    quanta = [0, 1, 0xFFFF, r.getrandbits(16)]
    for q in quanta:
        for body in (good_body(r, r.randint(64, 300)), pause_frame(q)):
            cases.append((body, (), False, True))
            rx.send(XgmiiFrame.from_raw_payload(body))
    bad = bytearray(pause_frame(7))
    bad[-1] ^= 1
    cases.append((bytes(bad), (), False, True))
    rx.send(XgmiiFrame.from_raw_payload(bytes(bad)))
    await rx.drain()
    check(rx, cases)
    assert [q for _, q in rx.pauses] == quanta
    assert all(not f.data.startswith(PAUSE_DA) for f in rx.frames)
    assert rx.status[-1]["bad"] and rx.status[-1]["bad_fcs"]


@cocotb.test()
async def start_inside_frame(dut):
    """A /S/ (lane 0 or 4) inside a frame ends that frame as a PHY error and starts the next one."""
    r = rng()
    rx = await setup(dut)
    exp = []
    for _ in range(8):
        b1 = good_body(r, 4 * r.randint(4, 40))  # a multiple of 4: the inner /S/ lands on lane 0 or 4
        b2 = good_body(r, r.randint(64, 200))
        data = eth10g.PREAMBLE + b1 + b"\xfb" + eth10g.PREAMBLE[1:] + b2
        ctrl = [0] * len(data)
        ctrl[len(eth10g.PREAMBLE) + len(b1)] = 1
        rx.send(XgmiiFrame(data, ctrl))
        exp += [rx_expect(b1, (), True), rx_expect(b2)]
    await rx.drain()
    fwd = [e for e in exp if e.forwarded is not None]
    assert [f.data for f in rx.frames] == [e.forwarded for e in fwd]
    assert [f.user for f in rx.frames] == [e.tuser for e in fwd]
    assert rx.status == [e.status for e in exp]
    assert rx.bad_preamble == 0 and len(rx.starts) == 2 * 8


@cocotb.test()
async def idle_gaps_and_reset(dut):
    """Random idle gaps and a reset in the middle of a frame: the frame is lost, the MAC recovers."""
    r = rng()
    rx = await setup(dut)
    cases = []
    for _ in range(12):
        body = good_body(r, r.randint(64, 400))
        cases.append((body, (), False, True))
        rx.send(XgmiiFrame.from_raw_payload(body))
        await rx.drain(extra=r.randint(0, 5))
    await ClockCycles(dut.clk, 40)  # the last frame leaves the MAC after the source goes idle
    check(rx, cases)
    rx.send(XgmiiFrame.from_raw_payload(good_body(r, 1000)))
    await ClockCycles(dut.clk, 40)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 200)
    n_frames, n_status = len(rx.frames), len(rx.status)
    body = good_body(r, 200)
    rx.send(XgmiiFrame.from_raw_payload(body))
    await rx.drain()
    assert len(rx.frames) == n_frames + 1 and rx.frames[-1].data == body[:-4]
    assert rx.frames[-1].user == 0 and len(rx.status) == n_status + 1


def test_eth_mac_10g_rx():
    runner.run("fp_eth_mac_10g_rx", __name__)
