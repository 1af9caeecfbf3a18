"""cocotb side of the 1G MAC benchmark, and the GMII/MII helpers shared with tb/mac/test_eth_mac_1g*.

The bench (`measure`) runs on `fp_eth_mac_1g` with the GMII pins looped through cocotbext-eth models:
  RX latency  = rising edge at which the SFD is sampled at gmii_rxd (GmiiSource.sim_time_sfd)
                -> rising edge after which the frame's first byte is valid on m_axis, in cycles;
  TX latency  = rising edge at which the first s_axis_tvalid of an idle MAC is sampled
                -> rising edge at which the SFD is launched on gmii_txd, in cycles (at MII it
                includes the wait for the next clk_en, 0..P-1 cycles; tx_latency_from_clk_en
                counts from that clk_en edge);
  throughput  = frames back to back at the minimum IFG (12 bytes) and 7-byte preamble, in both
                directions at once: (n - 1) x (size + 20) byte times over the time from the first
                to the last frame at the MAC's output (RX: first beats on m_axis; TX: starts on
                the pins), in % (100 % = line rate, no extra gap, nothing lost).
for GMII at 1000 Mb/s and MII at 100 and 10 Mb/s (clk_en one cycle in 1, 5 and 50 at 125 MHz).
Configuration in $FASTPATH_BENCH (JSON): {"speeds": [1000, 100, 10], "sizes": [64, ...],
"frames": N}; sizes are with FCS (64..1518). Results to $FASTPATH_BENCH_OUT (JSON list, one row
per speed and size). Run it as fastpath.bench.lib runs stream_cocotb:
    runner.run("fp_eth_mac_1g", "fastpath.mac.bench_cocotb_1g", {},
               env={"FASTPATH_BENCH": json.dumps(cfg), "FASTPATH_BENCH_OUT": path})

Helpers (used by the tests as well):
  Domain       clock + clk_en (speed divider) + ts_now driver: ts_now = fp_time of each rising edge
               (of each enable edge when clk_en is divided), so MAC timestamps compare exactly
               with simulation times.
  RxMonitor    the MAC's RX stream (m_axis without tready): a fastpath.sim.monitor.BeatMonitor
               recording m_axis_ts too.
  PulseMonitor records one-cycle pulses (rx_pause_valid, tx_ts_valid) with their data.
  TxDriver     drives s_axis byte by byte with the ts sideband, random gaps between frames and a
               deliberate underrun (tvalid dropped mid-frame).
"""
from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass

import cocotb
from cocotb.clock import Clock
from cocotb.queue import Queue
from cocotb.simtime import get_sim_time
from cocotb.triggers import ClockCycles, Event, ReadOnly, RisingEdge, Timer, with_timeout
from cocotbext.eth import GmiiFrame, GmiiSink, GmiiSource

from fastpath.mac import eth
from fastpath.sim.monitor import BeatMonitor
from fastpath.sim.tb import high, rng

PERIOD_PS = 8000  # 125 MHz
SPEED_DIV = {1000: 1, 100: 5, 10: 50}
MASK64 = (1 << 64) - 1


def now_ps() -> int:
    return int(get_sim_time())


def fp_ps(ps: int) -> int:
    """fp_time of a simulation time in ps (exact integer rounding, as the drivers use)."""
    return ((ps * 65536 + 500) // 1000) & MASK64


# ---- clock, clk_en and ts_now ------------------------------------------------------------------

class Domain:
    """One clock domain of a MAC: clock, optional clk_en divider and ts_now driver.

    With div == 1, clk_en stays 1 and ts_now is rewritten 1 ns after every rising edge with the
    fp_time of that edge. With div > 1, clk_en is high one cycle in div and ts_now is rewritten
    1 ns after each enable edge (the only edges at which a MAC can sample or launch anything).
    """

    def __init__(self, clk, clk_en=None, ts=None, period_ps: int = PERIOD_PS):
        self.clk, self.clk_en, self.ts, self.period = clk, clk_en, ts, period_ps
        self.div = 1
        self._task = None
        if clk_en is not None:
            clk_en.setimmediatevalue(1)
        if ts is not None:
            ts.setimmediatevalue(0)

    def start_clock(self):
        cocotb.start_soon(Clock(self.clk, self.period, unit="ps").start())

    def set_div(self, div: int):
        if self._task is not None:
            self._task.cancel()
        self.div = div
        self._task = cocotb.start_soon(self._run(div))

    def next_enable(self, t: int) -> int:
        """The first enable edge (ps) at or after time t (an edge time)."""
        if self.div == 1:
            return t
        n = -(-(t - self.en_origin) // (self.div * self.period))
        return self.en_origin + max(0, n) * self.div * self.period

    async def _run(self, div: int):
        await RisingEdge(self.clk)
        e = now_ps()
        self.en_origin = e + self.period  # first enable edge when div > 1
        await Timer(1000, unit="ps")
        if self.ts is not None:
            self.ts.value = fp_ps(e)
        if self.clk_en is not None:
            self.clk_en.value = 1
        if div == 1:
            if self.ts is None:
                return
            while True:
                await Timer(self.period, unit="ps")
                e += self.period
                self.ts.value = fp_ps(e)
        while True:
            await Timer(self.period, unit="ps")  # enable edge e, + 1 ns
            e += self.period
            if self.clk_en is not None:
                self.clk_en.value = 0
            if self.ts is not None:
                self.ts.value = fp_ps(e)
            await Timer((div - 1) * self.period, unit="ps")
            e += (div - 1) * self.period
            if self.clk_en is not None:
                self.clk_en.value = 1


# ---- RX stream and pulse monitors ------------------------------------------------------------

class RxMonitor(BeatMonitor):
    """The MAC's RX stream (m_axis without tready) and m_axis_ts, which must stay constant inside
    a frame: a BeatMonitor that sleeps while tvalid is low (one byte per clk_en at MII). Frames:
    data, bad, first("ts"), first_beat_ps (the rising edge after which the first byte was valid)."""

    def __init__(self, dut, clk, prefix: str = "m_axis"):
        super().__init__(dut, prefix, clk, extra=("ts",), constant=("ts",), sleep=True)


class PulseMonitor:
    """Records (ps, values...) for every one-cycle pulse of `sig`."""

    def __init__(self, clk, sig, *values):
        self.clk, self.sig, self.values = clk, sig, values
        self.pulses: list[tuple] = []
        cocotb.start_soon(self._run())

    async def _run(self):
        while True:
            await RisingEdge(self.sig)
            await ReadOnly()
            self.pulses.append((now_ps(), *[int(v.value) for v in self.values]))
            await RisingEdge(self.clk)


# ---- TX client driver -------------------------------------------------------------------------

@dataclass
class TxFrame:
    data: bytes
    bad: bool = False
    ts_insert: bool = False
    ts_offset: int = 0
    gap: int = 0  # idle cycles before tvalid rises for this frame
    underrun_at: int | None = None  # byte index before which tvalid drops
    underrun_cycles: int = 0
    t_valid: int = 0  # filled in: ps of the first edge that samples tvalid high
    t_done: int = 0  # filled in: ps of the edge that accepted tlast


class TxDriver:
    """Drives s_axis (8 bits) with the timestamp sideband. tready is sampled at each rising edge
    (before the edge's updates), the usual AXI handshake."""

    def __init__(self, dut, clk, prefix: str = "s_axis"):
        self.clk = clk
        self.d = {n: getattr(dut, f"{prefix}_{n}") for n in
                  ("tdata", "tkeep", "tvalid", "tready", "tlast", "tuser", "ts_insert", "ts_offset")}
        for n in ("tdata", "tvalid", "tlast", "tuser", "ts_insert", "ts_offset"):
            self.d[n].setimmediatevalue(0)
        self.d["tkeep"].setimmediatevalue(1)
        self.queue: Queue = Queue()
        self.sent: list[TxFrame] = []
        self.idle = Event()
        self.idle.set()
        cocotb.start_soon(self._run())

    def send(self, f: TxFrame):
        self.idle.clear()
        self.queue.put_nowait(f)

    async def wait(self):
        await self.idle.wait()

    async def _run(self):
        d = self.d
        while True:
            if self.queue.empty():
                self.idle.set()
                f = await self.queue.get()
                # woken up at an arbitrary time: drive from a clock edge, as with back-to-back
                # frames, so a write never races the edge that should sample it
                await RisingEdge(self.clk)
            else:
                f = self.queue.get_nowait()
            if f.gap:
                await ClockCycles(self.clk, f.gap)
            n = len(f.data)
            d["ts_insert"].value = int(f.ts_insert)
            d["ts_offset"].value = f.ts_offset
            d["tuser"].value = 0
            d["tlast"].value = int(n == 1)
            first = True
            for i in range(n):
                if f.underrun_at is not None and i == f.underrun_at and f.underrun_cycles:
                    d["tvalid"].value = 0
                    await ClockCycles(self.clk, f.underrun_cycles)
                d["tdata"].value = f.data[i]
                if i == n - 1:
                    d["tlast"].value = 1
                    d["tuser"].value = int(f.bad)
                if i == 1:
                    d["ts_insert"].value = 0
                    d["ts_offset"].value = 0
                d["tvalid"].value = 1
                if first:
                    await RisingEdge(self.clk)
                    f.t_valid = now_ps()
                    first = False
                    if high(d["tready"]):
                        continue
                while True:
                    # sleep until tready can be high (it pulses once per byte at 10/100 Mb/s),
                    # then take the handshake at the edge, from the values before the edge
                    await ReadOnly()
                    if not high(d["tready"]):
                        await RisingEdge(d["tready"])
                    await RisingEdge(self.clk)
                    if high(d["tready"]):
                        break
            f.t_done = now_ps()
            d["tvalid"].value = 0
            d["tlast"].value = 0
            d["tuser"].value = 0
            self.sent.append(f)


def quiet(model):
    """cocotbext-eth models log every frame at INFO: keep them to warnings."""
    model.log.setLevel(logging.WARNING)
    return model


def gmii_source(dut, prefix: str = "gmii_rx", reset: bool = True):
    """A GmiiSource on the MAC's RX pins (rx_clk/rx_clk_en of fp_eth_mac_1g, or clk/clk_en)."""
    two = hasattr(dut, "rx_clk")
    rst = (dut.rx_rst if two else dut.rst) if reset else None
    pins = [getattr(dut, f"{prefix}{n}") for n in ("d", "_er", "_dv")]
    return quiet(GmiiSource(*pins, dut.rx_clk if two else dut.clk, rst,
                            enable=dut.rx_clk_en if two else dut.clk_en, mii_select=dut.mii_select))


def gmii_sink(dut, prefix: str = "gmii_tx"):
    """A GmiiSink on the MAC's TX pins (tx_clk/tx_clk_en of fp_eth_mac_1g, or clk/clk_en)."""
    two = hasattr(dut, "tx_clk")
    pins = [getattr(dut, f"{prefix}{n}") for n in ("d", "_er", "_en")]
    return quiet(GmiiSink(*pins, dut.tx_clk if two else dut.clk, dut.tx_rst if two else dut.rst,
                          enable=dut.tx_clk_en if two else dut.clk_en, mii_select=dut.mii_select))


def wire_frame(frame_with_fcs: bytes, preamble: int = 7, error_at: int | None = None) -> GmiiFrame:
    """A GmiiFrame: `preamble` bytes of 0x55, the SFD, the frame; rx_er on byte `error_at` of
    the frame (index after the SFD; negative: in the preamble)."""
    raw = b"\x55" * preamble + bytes([eth.SFD]) + bytes(frame_with_fcs)
    err = None
    if error_at is not None:
        err = [0] * len(raw)
        err[preamble + 1 + error_at] = 1
    return GmiiFrame(raw, err)


# ---- the bench --------------------------------------------------------------------------------

@cocotb.test()
async def measure(dut):
    cfg = json.loads(os.environ.get("FASTPATH_BENCH", "{}"))
    speeds = cfg.get("speeds", [1000, 100, 10])
    sizes = cfg.get("sizes", [64, 128, 256, 512, 1024, 1518])
    nframes = cfg.get("frames", 8)
    r = rng()

    dut.rx_rst.value = 1
    dut.tx_rst.value = 1
    dut.mii_select.value = 0
    dut.cfg_rx_max_len.value = 1518
    dut.cfg_tx_ifg.value = 12
    rx_dom = Domain(dut.rx_clk, dut.rx_clk_en, dut.rx_ts_now)
    tx_dom = Domain(dut.tx_clk, dut.tx_clk_en, dut.tx_ts_now)
    source = gmii_source(dut)
    sink = gmii_sink(dut)
    rxmon = RxMonitor(dut, dut.rx_clk)
    txd = TxDriver(dut, dut.tx_clk)
    rx_dom.start_clock()
    tx_dom.start_clock()
    results = []
    for speed in speeds:
        div = SPEED_DIV[speed]
        dut.rx_rst.value = 1
        dut.tx_rst.value = 1
        dut.mii_select.value = int(speed != 1000)
        sink.mii_mode = source.mii_mode = speed != 1000
        source.ifg = 12 if speed == 1000 else 24  # the model counts its IFG in nibbles at MII
        rx_dom.set_div(div)
        tx_dom.set_div(div)
        await ClockCycles(dut.rx_clk, 8)
        dut.rx_rst.value = 0
        dut.tx_rst.value = 0
        await ClockCycles(dut.rx_clk, 8)
        rxmon.clear()
        byte_ps = (1 if speed == 1000 else 2) * div * PERIOD_PS  # one byte on the wire
        for size in sizes:
            n = max(2, nframes if speed == 1000 else nframes // (4 if speed == 100 else 8))
            frames = [eth.with_fcs(eth.build(r, size - 4)) for _ in range(n)]
            rx0 = len(rxmon.frames)
            sent_rx = []
            for f in frames:
                gf = wire_frame(f)
                gf.tx_complete = sent_rx.append
                await source.send(gf)
                txd.send(TxFrame(f[:-4]))
            got_tx = []
            while len(got_tx) < n:
                got_tx.append(await with_timeout(sink.recv(), 50 * n * (size + 30) * byte_ps, "ps"))
            await rxmon.wait_frames(rx0 + n)
            await txd.wait()
            tx_sent = txd.sent[-n:]
            rxf = rxmon.frames[rx0:rx0 + n]
            assert [bytes(x.data) for x in rxf] == [f[:-4] for f in frames], "RX data"
            assert all(g.check_fcs() and bytes(g.get_payload()) == f[:-4]
                       for g, f in zip(got_tx, frames)), "TX data"
            rx_lat = [(x.first_beat_ps - w.sim_time_sfd) // PERIOD_PS for x, w in zip(rxf, sent_rx)]
            # TX latency of an idle MAC: the first frame of each batch (the MAC was idle before it)
            sfd_launch = got_tx[0].sim_time_sfd - 2 * div * PERIOD_PS
            tx_lat = (sfd_launch - tx_sent[0].t_valid) // PERIOD_PS
            tx_lat_en = (sfd_launch - tx_dom.next_enable(tx_sent[0].t_valid)) // PERIOD_PS
            ideal = (n - 1) * (size + 20) * byte_ps  # preamble + SFD 8, IFG 12
            rx_span = rxf[-1].first_beat_ps - rxf[0].first_beat_ps
            tx_span = got_tx[-1].sim_time_start - got_tx[0].sim_time_start
            results.append({
                "speed_mbps": speed, "size": size, "frames": n, "clock_mhz": 125.0, "clk_en_div": div,
                "rx_latency_cycles": {"min": min(rx_lat), "max": max(rx_lat)},
                "rx_latency_ns": {"min": min(rx_lat) * PERIOD_PS / 1000,
                                  "max": max(rx_lat) * PERIOD_PS / 1000},
                "tx_latency_cycles": tx_lat, "tx_latency_ns": tx_lat * PERIOD_PS / 1000,
                "tx_latency_from_clk_en_cycles": tx_lat_en,
                "rx_line_rate_pct": round(100.0 * ideal / rx_span, 2),
                "tx_line_rate_pct": round(100.0 * ideal / tx_span, 2),
                "frame_rate_mbps": round(speed * size / (size + 20), 1),
            })
            await Timer(20 * byte_ps, unit="ps")
    out = os.environ.get("FASTPATH_BENCH_OUT")
    if out:
        with open(out, "w") as fh:
            json.dump(results, fh, indent=1)
