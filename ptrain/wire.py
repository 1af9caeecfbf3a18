"""The whole tester at its pins, in cocotb: a wire from its TX pins back to its RX pins, and a driver.

Used by ptrain/tb/test_ptrain_1g.py, test_ptrain_10g.py and the bench (ptrain/bench_cocotb.py):

* `GmiiWire` (fp_ptrain_1g) copies what the TX pins send to the RX pins `delay` cycles later, and
  can drop, duplicate or swap whole frames and space them as a slower link would (a bottleneck of
  `bottleneck_bps`). `XgmiiWire` (fp_ptrain_10g) is a pure delay line of XGMII words.
* Every frame the wire puts on the RX pins is remembered with its truth: its index in the order
  sent (= its sequence number minus the run's first), the clock edge at which its first preamble
  byte is sampled on the TX pins (what cocotb reads just after an edge is what that edge
  sampled) and the edge at which the tester samples it on the RX pins (the edge after the one the
  wire drives it at). The difference is the wire's delay, pin to pin, as a PHY would see it; the
  SFD keeps its place in the frame.
* `Driver` configures the registers (ptrain/rtl/ptrain.regs.toml) by name, starts the
  generator, collects the records (fastpath.ptrain.record) with random backpressure, and reads
  the receiver's per-stream counters.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

import cocotb
from cocotb.triggers import ClockCycles, RisingEdge

from fastpath import regs
from fastpath.ptrain import record as rec
from fastpath.sim.tb import pauses

IFG = 12
XGMII_IDLE = 0x0707070707070707


def _int(sig, idle: int = 0) -> int:
    """A pin's value; X or Z (a simulator's pins before reset, e.g. Icarus) read as `idle`."""
    v = sig.value
    return int(v) if v.is_resolvable else idle


@dataclass
class Delivered:
    """One copy of a frame the wire delivered: which frame (index in send order), when it left
    the TX pins and when it reached the RX pins (cycles), and its size on the wire."""
    index: int
    tx_cycle: int
    rx_cycle: int
    wire_bytes: int
    copy: int = 0


@dataclass
class Plan:
    """What the wire does to frames, by their index in send order."""
    drop: set = field(default_factory=set)
    dup: set = field(default_factory=set)
    swap: set = field(default_factory=set)      # k: frames k and k+1 arrive in the other order
    bottleneck_bps: float | None = None         # space frames as a link of this rate would


class GmiiWire:
    """TX GMII pins -> RX GMII pins of one fp_ptrain_1g, `delay` cycles later (the frame's first
    preamble byte), with the plan's impairments."""

    def __init__(self, dut, delay: int, plan: Plan | None = None, line_bps: float = 1e9):
        self.dut, self.delay, self.plan, self.line_bps = dut, delay, plan or Plan(), line_bps
        self.cycle = 0
        self.sent: list[tuple[int, bytes]] = []       # (tx cycle, bytes incl. preamble)
        self.delivered: list[Delivered] = []
        self._cur: list[int] | None = None
        self._start = 0
        self._held: tuple[int, int, bytes] | None = None
        self._queue: list[tuple[int, int, bytes, int]] = []   # (rx cycle, index, bytes, copy)
        self._emit: bytes = b""
        self._pos = 0
        self._last_emit_start = None
        self.errors: list[str] = []
        dut.gmii_rxd.value = 0
        dut.gmii_rx_dv.value = 0
        dut.gmii_rx_er.value = 0
        self._task = cocotb.start_soon(self._run())

    def stop(self) -> None:
        self._task.cancel()

    def _schedule(self, index: int, tx_cycle: int, data: bytes, at: int, copy: int = 0) -> None:
        if self.plan.bottleneck_bps and self._last_emit_start is not None:
            gap = -(-(len(data) + IFG) * self.line_bps // self.plan.bottleneck_bps)
            at = max(at, self._last_emit_start + int(gap))
        if at <= self.cycle:
            self.errors.append(f"frame {index}: due on the RX pins at cycle {at}, already past "
                               f"(delay {self.delay} too short for the plan)")
            return
        self._last_emit_start = at
        self._queue.append((at, index, data, copy))
        self._queue.sort()
        self.delivered.append(Delivered(index, tx_cycle, at + 1, len(data), copy))

    def _captured(self, tx_cycle: int, data: bytes) -> None:
        k = len(self.sent)
        self.sent.append((tx_cycle, data))
        p = self.plan
        if self._held is not None:                     # k is the partner of a swap
            hk, ht, hd = self._held
            self._held = None
            if k not in p.drop:
                self._schedule(k, tx_cycle, data, ht + self.delay)
            self._schedule(hk, ht, hd, tx_cycle + self.delay)
            return
        if k in p.drop:
            return
        if k in p.swap:
            self._held = (k, tx_cycle, data)
            return
        self._schedule(k, tx_cycle, data, tx_cycle + self.delay)
        if k in p.dup:
            self._schedule(k, tx_cycle, data, tx_cycle + self.delay + len(data) + IFG, copy=1)

    async def _run(self) -> None:
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            en = _int(dut.gmii_tx_en)
            if en:
                if self._cur is None:
                    self._cur, self._start = [], self.cycle
                self._cur.append(_int(dut.gmii_txd))
            elif self._cur is not None:
                self._captured(self._start, bytes(self._cur))
                self._cur = None
            if self._pos >= len(self._emit) and self._queue and self._queue[0][0] == self.cycle:
                _, _, self._emit, _ = self._queue.pop(0)
                self._pos = 0
            elif self._pos < len(self._emit) and self._queue and self._queue[0][0] == self.cycle:
                self.errors.append(f"two frames on the RX pins at cycle {self.cycle}")
                self._queue.pop(0)
            if self._pos < len(self._emit):
                dut.gmii_rxd.value = self._emit[self._pos]
                dut.gmii_rx_dv.value = 1
                self._pos += 1
            else:
                dut.gmii_rxd.value = 0
                dut.gmii_rx_dv.value = 0


class XgmiiWire:
    """TX XGMII -> RX XGMII of one fp_ptrain_10g, every word `delay` cycles later. Frames are found
    by their start character (lane 0 or 4) for the truth."""

    def __init__(self, dut, delay: int):
        self.dut, self.delay = dut, delay
        self.cycle = 0
        self._line: list[tuple[int, int]] = []
        self.starts: list[tuple[int, int]] = []       # (cycle, lane) of each frame's start
        self.delivered: list[Delivered] = []
        self.errors: list[str] = []
        dut.xgmii_rxd.value = XGMII_IDLE
        dut.xgmii_rxc.value = 0xFF
        self._task = cocotb.start_soon(self._run())

    def stop(self) -> None:
        self._task.cancel()

    async def _run(self) -> None:
        dut = self.dut
        while True:
            await RisingEdge(dut.clk)
            self.cycle += 1
            d, c = _int(dut.xgmii_txd, XGMII_IDLE), _int(dut.xgmii_txc, 0xFF)
            for lane in (0, 4):
                if c >> lane & 1 and (d >> (8 * lane)) & 0xFF == 0xFB:
                    k = len(self.starts)
                    self.starts.append((self.cycle, lane))
                    self.delivered.append(Delivered(k, self.cycle, self.cycle + self.delay + 1, 0))
            self._line.append((d, c))
            if len(self._line) > self.delay:
                d, c = self._line.pop(0)
            else:
                d, c = XGMII_IDLE, 0xFF
            dut.xgmii_rxd.value = d
            dut.xgmii_rxc.value = c


class Driver:
    """Registers, generator and records of one tester top in cocotb."""

    def __init__(self, dut, period_ns: float, pause_p: float = 0.2, seed: int = 1):
        from cocotbext.axi import AxiLiteBus, AxiLiteMaster, AxiStreamBus, AxiStreamSink
        self.dut, self.period_ns = dut, period_ns
        self.regs = regs.RegClient(regs.load("ptrain"),
                                   AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst))
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_rec"), dut.clk, dut.rst)
        if pause_p:
            self.sink.set_pause_generator(pauses(random.Random(seed), pause_p))
        self.beats: list[rec.RxRecord] = []

    async def configure(self, *, size: int, train_len: int, trains: int, period: int = 0,
                        train_gap: int = 0, first_seq: int = 0, ipv6: bool = False, vlan: int | None = None,
                        stream: int = 0, dst_mac: int = 0x02_00_00_00_00_02, src_mac: int = 0x02_00_00_00_00_01,
                        src_ip: int = 0xC0000201, dst_ip: int = 0xC6336401, sport: int = 9, dport: int = 9) -> None:
        w = self.regs.write
        await w("gen_dst_mac", addr=dst_mac)
        await w("gen_src_mac", addr=src_mac)
        await w("gen_layout", vlan_en=int(vlan is not None), ipv6=int(ipv6), vlan_tci=vlan or 0)
        await w("gen_ip", ttl=64, tos=0, stream=stream)
        for i in range(4):
            await w("gen_src_ip_word", (src_ip >> (32 * i)) & 0xFFFFFFFF, index=i)
            await w("gen_dst_ip_word", (dst_ip >> (32 * i)) & 0xFFFFFFFF, index=i)
        await w("gen_ports", sport=sport, dport=dport)
        await w("gen_frame_len", bytes=size)
        await w("gen_train_len", train_len)
        await w("gen_num_trains", trains)
        await w("gen_period", period)
        await w("gen_train_gap", train_gap)
        await w("gen_first_seq", first_seq)
        # receiver: one rule, UDP to the generator's destination port
        await w("rule_proto", index=0, number=17, mask=0xFF)
        await w("rule_ports", index=0, sport=0, dport=dport)
        await w("rule_ports_mask", index=0, sport=0, dport=0xFFFF)
        await w("rx_rule_en", rules=1)

    async def run(self, timeout_cycles: int) -> None:
        """Start the generator and wait until it is done and the last frame had time to arrive."""
        await self.regs.write("gen_ctrl", start=1)
        for _ in range(timeout_cycles // 256 + 1):
            await ClockCycles(self.dut.clk, 256)
            st = await self.regs.read_fields("gen_status")
            if st["done"] and not st["running"]:
                return
        raise TimeoutError(f"the generator did not finish within {timeout_cycles} cycles")

    async def drain(self, cycles: int) -> list[rec.RxRecord]:
        await ClockCycles(self.dut.clk, cycles)
        while not self.sink.empty():
            f = self.sink.recv_nowait()
            self.beats.append(rec.decode(bytes(f.tdata)))
        return self.beats

    async def counters(self, stream: int = 0) -> rec.Counters:
        vals = {}
        for name in ("seen", "received", "unique", "duplicates", "reordered", "late", "seq_first",
                     "seq_highest", "train_first", "train_end"):
            vals[name] = await self.regs.read(f"stream_{name}", index=stream)
        return rec.Counters(**vals)
