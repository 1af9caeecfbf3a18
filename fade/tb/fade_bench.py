"""Shared cocotb bench for fp_fade_core's tests: the Ethernet streams driven by cocotbext-axi from the
Python host model (fastpath.fade.model), a user data source with the test pattern, a user command
responder, a lossy channel between host and core, and counters of the core's ev_* pulses."""
from __future__ import annotations

import logging
import random

import cocotb
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, SimTimeoutError, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from fastpath.fade import model as M
from fastpath.sim.tb import CycleCounter, high, start

FPGA_MAC = 0x02_0F_AD_E0_00_01
HOST_MAC = 0x02_00_00_00_AB_CD
STEP = 0x0123_4567_89AB_CDEF
FIRST = 0x1111_2222_3333_4444
EVENTS = ["ev_tx_data", "ev_tx_early", "ev_tx_nack", "ev_tx_timeout", "ev_tx_resp", "ev_ack", "ev_nack",
          "ev_ack_stale", "ev_proto_err", "ev_rx_bad_fcs", "ev_rx_drop", "ev_cmd_exec", "ev_cmd_repeat"]


HOLD_CYCLES = 3000   # pump(batch > 1): ACK records held at most this long without a frame


def user_value(code: int, arg: int) -> int:
    return ((code << 48) ^ (arg * 0x9E37_79B9_7F4A_7C15)) & M.MASK64


class Bench:
    def __init__(self, dut, r: random.Random, n: int = 4, pkt_init: int = 0, eth_prefixes=("s_eth", "m_eth"),
                 clk=None, rst=None, user_ports: bool = True):
        """user_ports False: the design drives FADE's user stream and command ports itself (a top
        that embeds the core); the bench leaves them alone and needs none of them."""
        self.dut = dut
        self.r = r
        self.clk = clk if clk is not None else dut.clk
        rst = rst if rst is not None else dut.rst
        if eth_prefixes:
            self.src = AxiStreamSource(AxiStreamBus.from_prefix(dut, eth_prefixes[0]), self.clk, rst)
            self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, eth_prefixes[1]), self.clk, rst)
            for m in (self.src, self.sink):
                m.log.setLevel(logging.WARNING)   # no per-frame dumps of 8 KB frames
        if user_ports:
            dut.s_axis_tvalid.value = 0
            dut.s_axis_tdata.value = 0
            dut.m_cmd_ready.value = 0
            dut.s_rsp_valid.value = 0
            dut.s_rsp_value.value = 0
        dut.cfg_local_mac.value = FPGA_MAC
        self.host = M.FadeHost(HOST_MAC, FPGA_MAC, n=n, first_pkt=pkt_init)
        self.count = {e: 0 for e in EVENTS}
        self.executed = []           # (code, csn, arg) seen on the command port
        self.words_in = 0            # user words accepted
        self.frames = []             # every frame from the core: (cycle, parsed or None, tuser)
        self.cyc = None
        self.pump_task = None
        self.ack_frame_records = []  # records per ACK frame the pump sent with batch > 1

    async def start(self, period_ns=5.0):
        await start(self.dut, period_ns=period_ns)
        self.cyc = CycleCounter(self.clk)
        for e in EVENTS:
            cocotb.start_soon(self._count(e))

    async def _count(self, name):
        sig = getattr(self.dut, name)
        while True:
            await RisingEdge(self.clk)
            await ReadOnly()
            if high(sig):
                self.count[name] += 1

    # ---- Ethernet side ----
    async def send(self, frame: bytes, bad: bool = False):
        await self.src.send(AxiStreamFrame(frame, tuser=[0] * (len(frame) - 1) + [int(bad)]))

    async def recv(self, timeout_cycles=40_000):
        f = await with_timeout(self.sink.recv(), timeout_cycles * 5, "ns")
        bad = M_last_user(f)
        p = None if bad else M.parse(bytes(f.tdata))
        self.frames.append((self.cyc.now, p, bad))
        return bytes(f.tdata), p, bad

    def pump(self, drop_data=0.0, dup_data=0.0, drop_ack=0.0, dup_ack=0.0, reorder=0.0, drop_resp=0.0,
             drop_first=(), batch=1, hold_cycles=None):
        """Host loop: frames from the core through a lossy channel to the host model, ACKs back
        through a lossy channel (drop_ack, dup_ack, reorder: an ACK frame overtaken by the next
        ones). Packets in drop_first lose their first transmission for sure. batch > 1: ACK
        records are held and sent min(batch, the core's START response) to a frame, as libfade
        does per ring block: when that many are held, or when no frame has come for hold_cycles
        (default HOLD_CYCLES, about three 64-bit data frames; in units of 5 ns like recv()); the
        losses then hit whole ACK frames. self.ack_frame_records: the records in each ACK frame
        sent."""
        held = None

        async def send_back(acks):
            nonlocal held
            out = []
            for a in acks:
                if self.r.random() < drop_ack:
                    continue
                out.append(a)
                if self.r.random() < dup_ack:
                    out.append(a)
            if held is not None:
                out.append(held)
                held = None
            if out and self.r.random() < reorder:
                held = out.pop(0)         # overtaken by the next ones
            for a in out:
                await self.send(a)

        async def run():
            dropped = set()
            pending = []                  # ACK frames of one record each, not yet sent
            while True:
                try:
                    raw, p, bad = await self.recv(
                        timeout_cycles=(hold_cycles or HOLD_CYCLES) if pending else 10**9)
                except SimTimeoutError:
                    raw, p, bad = b"", None, False
                if not (bad or p is None):
                    if isinstance(p, M.Resp) or p.resp is not None:
                        if self.r.random() < drop_resp:
                            continue
                    if isinstance(p, M.Data):
                        if p.pkt in drop_first and p.pkt not in dropped:
                            dropped.add(p.pkt)
                            continue
                        if self.r.random() < drop_data:
                            continue
                    copies = 2 if self.r.random() < dup_data else 1
                    for _ in range(copies):
                        pending += self.host.receive(raw)
                per = min(batch, self.host.board_records)
                if pending and (p is None or len(pending) >= per):
                    out = M.pack_acks(pending, per) if per > 1 else pending
                    pending = []
                    self.ack_frame_records += [len(M.ack_records(a)) for a in out]
                    await send_back(out)
        self.pump_task = cocotb.start_soon(run())
        return self.pump_task

    # ---- user side ----
    async def feed(self, nwords: int, pause_p: float = 0.0, first_index: int = 0):
        """Drive the test pattern words first_index.. on s_axis (random pauses)."""
        dut = self.dut
        i = 0
        while i < nwords:
            if pause_p and self.r.random() < pause_p:
                dut.s_axis_tvalid.value = 0
            else:
                dut.s_axis_tvalid.value = 1
                dut.s_axis_tdata.value = (FIRST + (first_index + i) * STEP) & M.MASK64
            await ReadOnly()
            took = high(dut.s_axis_tvalid) and high(dut.s_axis_tready)
            await RisingEdge(self.clk)
            if took:
                i += 1
                self.words_in += 1
        dut.s_axis_tvalid.value = 0

    def responder(self, ready_p: float = 0.5, max_wait: int = 20):
        """The user's command logic: take each command, answer it after a random time."""
        async def run():
            dut = self.dut
            while True:
                dut.m_cmd_ready.value = int(self.r.random() < ready_p)
                await ReadOnly()
                took = high(dut.m_cmd_valid) and high(dut.m_cmd_ready)
                if took:
                    code, csn, arg = int(dut.m_cmd_code.value), int(dut.m_cmd_csn.value), int(dut.m_cmd_arg.value)
                    self.executed.append((code, csn, arg))
                await RisingEdge(self.clk)
                if took:
                    dut.m_cmd_ready.value = 0
                    wait = self.r.randint(0, max_wait)
                    if wait:
                        await ClockCycles(self.clk, wait)
                    dut.s_rsp_valid.value = 1
                    dut.s_rsp_value.value = user_value(code, arg)
                    while True:
                        await ReadOnly()
                        done = high(dut.s_rsp_ready)
                        await RisingEdge(self.clk)
                        if done:
                            break
                    dut.s_rsp_valid.value = 0
        return cocotb.start_soon(run())

    async def command(self, frame_fn, timeout_cycles=3000, drop_cmd=0.0, max_tries=50):
        """Issue a command (frame_fn() makes the first frame) and resend it until answered."""
        frame = frame_fn()
        n0 = len(self.host.cmd.results)
        for _ in range(max_tries):
            if self.r.random() >= drop_cmd:
                await self.send(frame)
            for _ in range(timeout_cycles // 50):
                await ClockCycles(self.clk, 50)
                if len(self.host.cmd.results) > n0:
                    return self.host.cmd.results[-1]
            frame = self.host.retry()
        raise AssertionError("command never answered")

    async def wait_for(self, cond, timeout_cycles=200_000, step=16):
        for _ in range(timeout_cycles // step):
            if cond():
                return
            await ClockCycles(self.clk, step)
        raise AssertionError("timed out waiting")


class PinBench(Bench):
    """The same bench at the MAC pins: `source` / `sink` are cocotbext-eth XGMII or GMII models and
    `frame_cls` their frame class (XgmiiFrame / GmiiFrame); frames carry a real FCS."""

    def __init__(self, dut, r, source, sink, frame_cls, **kw):
        super().__init__(dut, r, eth_prefixes=None, **kw)
        self.src, self.sink, self.frame_cls = source, sink, frame_cls
        for m in (source, sink):
            m.log.setLevel(logging.WARNING)
        self.fcs_errors = 0

    async def send(self, frame: bytes, bad: bool = False):
        f = self.frame_cls.from_payload(frame)
        if bad:
            f.data[-1] ^= 0xFF                   # corrupt the FCS
        await self.src.send(f)

    async def recv(self, timeout_cycles=200_000):
        f = await with_timeout(self.sink.recv(), timeout_cycles * 8, "ns")
        bad = int(not f.check_fcs())
        self.fcs_errors += bad
        raw = bytes(f.get_payload())
        p = None if bad else M.parse(raw)
        self.frames.append((self.cyc.now, p, bad))
        return raw, p, bad


def M_last_user(f) -> int:
    if f.tuser is None:
        return 0
    return f.tuser if isinstance(f.tuser, int) else f.tuser[-1]


def expected(n: int, first_index: int = 0) -> list:
    return [(FIRST + (first_index + i) * STEP) & M.MASK64 for i in range(n)]


__all__ = ["Bench", "PinBench", "FPGA_MAC", "HOST_MAC", "STEP", "FIRST", "expected", "user_value"]
