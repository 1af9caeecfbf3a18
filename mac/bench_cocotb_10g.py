"""cocotb side of the 10G MAC benchmark, and the XGMII helpers shared with mac/tb/test_eth_mac_10g.py.

The bench (`measure`) runs on `fp_eth_mac_10g` with cocotbext-eth's XgmiiSource on the RX pins (DIC,
minimum IFG 12) and XgmiiSink on the TX pins, cocotbext-axi's AxiStreamSource on s_axis:
  RX latency  = cycle in which the SFD is on the RX pins -> cycle in which the frame's first beat
                is valid on m_axis (both counted as the cycle that starts at a rising edge, as
                fastpath.sim.monitor.BeatMonitor counts; the edge that samples the SFD is one later);
  TX latency  = cycle in which the first s_axis_tvalid is offered to an idle MAC -> cycle in
                which the SFD is on the TX pins (a lone frame: idle link, lane-0 start);
  throughput  = N frames back to back in both directions at once (RX at the minimum IFG with DIC
                from the source, TX as fast as the MAC sends with the client always ready):
                frames per second from the first to the last start, and the wire's byte times
                against the ideal (size + 8 preamble + 12 IFG per frame), in % of 10 Gb/s.
Configuration in $FASTPATH_BENCH (JSON): {"sizes": [64, ...] (bytes with FCS, 64..9022),
"frames": N}; results to $FASTPATH_BENCH_OUT (JSON list, one row per size).
"""
from __future__ import annotations

import json
import logging
import os

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, with_timeout
from cocotb.utils import get_sim_time
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource
from cocotbext.eth import XgmiiFrame, XgmiiSink, XgmiiSource

from fastpath.mac import eth10g
from fastpath.mac.eth10g import fp, pause_frame
from fastpath.sim.tb import BeatMonitor, high, random_bytes, rng, start

PERIOD_PS = eth10g.PERIOD_PS
STAT_NAMES = ["rx_good", "rx_bad", "rx_bad_fcs", "rx_runt", "rx_oversize", "rx_phy_err", "rx_bad_preamble",
              "rx_pause", "rx_bytes", "tx_frames", "tx_bytes", "tx_stomped", "tx_underrun", "tx_ts_bad_offset",
              "tx_paused_cycles"]


def quiet(model):
    model.log.setLevel(logging.WARNING)
    return model


def starts_in(d: int, c: int):
    """Lanes (0 or 4) holding a start character in one XGMII word."""
    return [lane for lane in (0, 4) if (c >> lane) & 1 and (d >> 8 * lane) & 0xFF == 0xFB]


def tx_client(dut) -> BeatMonitor:
    """s_axis of a 10G MAC's transmit path (shared by the bench and the TX test): a BeatMonitor the
    caller samples at each rising edge, with the handshake of the cycle that ended. Per frame offered:
    first_valid, its accepted beats, `gap` (after how many beats the client dropped tvalid inside
    it: an underrun)."""
    return BeatMonitor(dut, "s_axis", reset=dut.rst)


def rx_client(dut, clock=None) -> BeatMonitor:
    """m_axis of a 10G MAC's receive path (no tready; shared by the bench and the RX test): whole
    frames (data, user, first("ts"), first_beat) with the stream's rules checked on every beat
    (contiguous tkeep, only the last beat partial, m_axis_ts constant inside a frame)."""
    return BeatMonitor(dut, "m_axis", clock, dut.rst, extra=("ts",), constant=("ts",), check=True)


class TsSideband:
    """The per-frame timestamp sideband of s_axis (s_axis_ts_insert / s_axis_ts_offset), which must
    show a frame's values while that frame is offered: `queue` appends a frame's values, applied
    when the frame before it has been accepted (by `client`, the tx_client monitor, sampled at the
    rising edge: the values change at the edge that accepts the tlast beat)."""

    def __init__(self, dut, client: BeatMonitor):
        self.dut, self.client = dut, client
        self.side = []     # per frame queued: (ts_insert, ts_offset)
        client.on_frame(lambda _: self._apply(len(client.frames)))
        self._apply(0)

    def _apply(self, idx):
        ins, off = self.side[idx] if idx < len(self.side) else (0, 0)
        self.dut.s_axis_ts_insert.value = ins
        self.dut.s_axis_ts_offset.value = off

    def queue(self, ts_insert: int = 0, ts_offset: int = 0):
        self.side.append((ts_insert, ts_offset))
        n = len(self.client.frames)
        if len(self.side) == n + 1 and self.client.current is None:
            self._apply(n)


class Mac10g:
    """fp_eth_mac_10g with its bus models and one cycle-exact monitor of both directions.

    cycle c = the clock cycle that begins at the c-th rising edge; ts_now during cycle c is the
    fp_time of that edge, so timestamps compare exactly with simulation times."""

    def __init__(self, dut, rx_source: bool = True):
        self.dut = dut
        self.rx_source = quiet(XgmiiSource(dut.xgmii_rxd, dut.xgmii_rxc, dut.clk, dut.rst)) if rx_source else None
        self.tx_sink = quiet(XgmiiSink(dut.xgmii_txd, dut.xgmii_txc, dut.clk, dut.rst))
        self.client = quiet(AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst))
        for name, v in (("ts_now", 0), ("cfg_tx_ifg", 12), ("cfg_rx_max_len", 1518)):
            getattr(dut, name).value = v
        if not rx_source:
            dut.xgmii_rxd.value = int.from_bytes(b"\x07" * 8, "little")
            dut.xgmii_rxc.value = 0xFF
        self.cycle = 0
        self.rx_starts = []  # (cycle, lane, ps) of /S/ on the RX pins
        self.tx_starts = []  # (cycle, lane, ps) of /S/ on the TX pins
        self.tx_client = tx_client(dut)
        self.tx_side = TsSideband(dut, self.tx_client)
        self.rx_client = rx_client(dut)
        self.rx_frames = self.rx_client.frames  # Frame: data, user, first("ts"), first_beat
        self.tx_in = self.tx_client.frames      # per client frame: first_valid, beats, gap
        self.tx_ts = []
        self.rx_pauses = []
        self.rx_sent = []
        self._rx_ifgs = []
        self.loop = None     # callable(d, c) -> None: loop TX pins into RX pins (one cycle later)
        cocotb.start_soon(self._monitor())

    async def _monitor(self):
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            self.tx_client.sample(self.cycle)
            self.cycle += 1
            now = int(get_sim_time("ps"))
            dut.ts_now.value = fp(now)
            if self.loop is not None:
                self.loop()
            await ReadOnly()
            self.rx_client.sample(self.cycle)
            if high(dut.rst):
                continue
            for lane in starts_in(int(dut.xgmii_rxd.value), int(dut.xgmii_rxc.value)):
                self.rx_starts.append((self.cycle, lane, now))
            for lane in starts_in(int(dut.xgmii_txd.value), int(dut.xgmii_txc.value)):
                self.tx_starts.append((self.cycle, lane, now))
            if high(dut.tx_ts_valid):
                self.tx_ts.append(int(dut.tx_ts.value))
            if high(dut.rx_pause_valid):
                self.rx_pauses.append((self.cycle, int(dut.rx_pause_quanta.value)))

    async def send_tx(self, payload: bytes, bad: bool = False, ts_insert: int = 0, ts_offset: int = 0):
        self.tx_side.queue(ts_insert, ts_offset)
        await self.client.send(AxiStreamFrame(payload, tuser=[0] * (len(payload) - 1) + [int(bad)]))

    def send_rx(self, frame: XgmiiFrame, ifg: int = 12):
        """Queue a frame on the RX pins; `ifg` = the source's IFG setting after it (DIC: +-3)."""
        if not self._rx_ifgs:
            self.rx_source.ifg = ifg
        self._rx_ifgs.append(ifg)
        frame.tx_complete = self._rx_done
        self.rx_source.send_nowait(frame)

    def _rx_done(self, frame):
        # the source reads .ifg when a frame ends, just before this callback: set the next one's
        self.rx_sent.append(frame)
        if len(self.rx_sent) < len(self._rx_ifgs):
            self.rx_source.ifg = self._rx_ifgs[len(self.rx_sent)]

    async def recv_tx(self, n: int, timeout_us: float = 500):
        return [await with_timeout(self.tx_sink.recv(), timeout_us, "us") for _ in range(n)]

    async def wait_rx(self, n: int, timeout_cycles: int = 100_000):
        for _ in range(timeout_cycles):
            if len(self.rx_frames) >= n:
                return
            await RisingEdge(self.dut.clk)
        raise AssertionError(f"{len(self.rx_frames)} RX frames, {n} expected")

    def stats(self) -> dict:
        return {k: int(getattr(self.dut, f"stat_{k}").value) for k in STAT_NAMES}


def _good(r, n):
    return eth10g.with_fcs(random_bytes(r, n - 4))


def bad_case(r, max_len: int, max_quanta: int = 0xFFFF):
    """One random RX frame for fp_eth_mac_10g_rx.rx_expect: good, bad FCS, runt, 0..4 bytes, oversize,
    /E/ inside, ended by a control character other than /T/, damaged or short preamble, pause
    (good or damaged), other MAC Control. Returns (body, errors, bad_end, preamble_ok, XgmiiFrame)."""
    kind = r.choice(["good", "good", "fcs", "runt", "tiny", "oversize", "err", "bad_end",
                     "preamble", "pause", "pause_bad", "ctrl_other"])
    n = r.randint(64, max_len)
    errors, bad_end, pre_ok = [], False, True
    preamble = eth10g.PREAMBLE
    if kind == "good":
        body = _good(r, n)
    elif kind == "fcs":
        body = bytearray(_good(r, n))
        body[r.randrange(n)] ^= 1 << r.randrange(8)
        body = bytes(body)
    elif kind == "runt":
        body = _good(r, r.randint(5, 63)) if r.random() < 0.5 else random_bytes(r, r.randint(5, 63))
    elif kind == "tiny":  # 0..4 bytes after the SFD: nothing to forward
        body = random_bytes(r, r.randint(0, 4))
    elif kind == "oversize":
        body = _good(r, r.randint(max_len + 1, max_len + 24))
    elif kind == "err":
        body = _good(r, r.randint(5, max_len + 24))
        errors = sorted(r.sample(range(len(body)), r.randint(1, 2)))
        body = bytearray(body)
        for e in errors:
            body[e] = 0xFE
        body = bytes(body)
    elif kind == "bad_end":
        body = _good(r, n) if r.random() < 0.5 else _good(r, n)[:-r.randint(1, 8)]
        bad_end = True
    elif kind == "preamble":
        pre_ok = False
        body = _good(r, n)
        preamble = r.choice([b"\x55" * 8, b"\x55\x55\x55\xd5", b"\x55" * 3 + b"\x54" + b"\x55" * 3 + b"\xd5",
                             b"\x55" * 6 + b"\xd5"])
    elif kind == "pause":
        body = pause_frame(r.randint(0, max_quanta))
    elif kind == "pause_bad":
        body = bytearray(pause_frame(r.randint(0, max_quanta)))
        body[r.randrange(64)] ^= 0x10
        body = bytes(body)
    else:  # MAC Control, not a pause (e.g. PFC opcode 0x0101): consumed, counted bad
        body = pause_frame(r.randint(0, max_quanta), opcode=0x0101)
    data = bytearray(preamble + body)
    ctrl = [0] * len(data)
    for e in errors:
        ctrl[len(preamble) + e] = 1
    if bad_end:
        data.append(0x07)
        ctrl.append(1)
    frame = XgmiiFrame(data, ctrl)
    return body, tuple(errors), bad_end, pre_ok, frame


# ---- the bench --------------------------------------------------------------------------------

@cocotb.test()
async def measure(dut):
    cfg = json.loads(os.environ.get("FASTPATH_BENCH", "{}"))
    sizes = cfg.get("sizes", [64, 128, 256, 512, 1024, 1518])
    nframes = cfg.get("frames", 32)
    r = rng()
    mac = Mac10g(dut)
    await start(dut, period_ns=PERIOD_PS / 1000)
    dut.cfg_rx_max_len.value = max(1518, max(sizes))
    results = []
    for size in sizes:
        await ClockCycles(dut.clk, 40)
        # TX latency: one frame to an idle MAC
        i = len(mac.tx_starts)
        await mac.send_tx(random_bytes(r, size - 4))
        await mac.recv_tx(1)
        tx_lat = mac.tx_starts[i][0] - mac.tx_in[-1].first_valid
        await ClockCycles(dut.clk, 40)
        # both directions back to back
        rx0, tx0, rxs0 = len(mac.rx_frames), len(mac.tx_starts), len(mac.rx_starts)
        bodies = [eth10g.with_fcs(random_bytes(r, size - 4)) for _ in range(nframes)]
        for b in bodies:
            mac.send_rx(XgmiiFrame.from_raw_payload(b))
        payloads = [random_bytes(r, size - 4) for _ in range(nframes)]
        for p in payloads:
            await mac.send_tx(p)
        got = await mac.recv_tx(nframes)
        await mac.wait_rx(rx0 + nframes)
        rxf = mac.rx_frames[rx0:rx0 + nframes]
        assert [f.data for f in rxf] == [b[:-4] for b in bodies], "RX lost or changed frames"
        assert all(g.check_fcs() and bytes(g.get_payload()) == p for g, p in zip(got, payloads)), "TX"
        rx_lat = []
        for f, (c, lane, _) in zip(rxf, mac.rx_starts[rxs0:rxs0 + nframes]):
            rx_lat.append(f.first_beat - (c + (1 if lane == 4 else 0)))
        txs = [8 * c + lane for c, lane, _ in mac.tx_starts[tx0:tx0 + nframes]]
        rxs = [8 * c + lane for c, lane, _ in mac.rx_starts[rxs0:rxs0 + nframes]]
        ideal = (nframes - 1) * (size + 20)  # byte times from the first start to the last
        row = {
            "speed_mbps": 10000, "size": size, "frames": nframes,
            "rx_latency_cycles": sorted(set(rx_lat)), "tx_latency_cycles": [tx_lat],
            "rx_latency_ns": [c * PERIOD_PS / 1000 for c in sorted(set(rx_lat))],
            "tx_latency_ns": [tx_lat * PERIOD_PS / 1000],
            "rx_start_lanes": sorted({lane for _, lane, _ in mac.rx_starts[rxs0:rxs0 + nframes]}),
            "tx_start_lanes": sorted({lane for _, lane, _ in mac.tx_starts[tx0:tx0 + nframes]}),
            "rx_throughput_pct": round(100.0 * ideal / (rxs[-1] - rxs[0]), 2),
            "tx_throughput_pct": round(100.0 * ideal / (txs[-1] - txs[0]), 2),
            "rx_mpps": round((nframes - 1) / ((rxs[-1] - rxs[0]) * 0.8e-3), 3),
            "tx_mpps": round((nframes - 1) / ((txs[-1] - txs[0]) * 0.8e-3), 3),
            "line_rate_mpps": round(1e4 / ((size + 20) * 8), 3),
        }
        results.append(row)
    out = os.environ.get("FASTPATH_BENCH_OUT")
    if out:
        with open(out, "w") as fh:
            json.dump(results, fh)
