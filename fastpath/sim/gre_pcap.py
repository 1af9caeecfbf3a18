"""cocotb side of `fastpath gre decap|encap`: run gre_decap or gre_encap over a capture.

Configured by $FASTPATH_GRE (JSON, written by `fastpath.gre_pcap`):
  in       input pcap/pcapng (Ethernet)
  out      pcap for every output frame, in order, bad ones included
  summary  JSON written at the end (below)
  set      {signal: value} driven before reset and held (the cores' cfg_* ports)
  tdest    per input frame, the tunnel index (gre_encap only)
  period_ns
Frames enter back to back with the output always ready; s_axis_tlen (when the core has it) and
s_axis_tdest are driven with every beat of the frame. The run ends when every frame has had its
stat_valid pulse and the output has been idle for a while (or at a generous cycle limit).

Summary: {"frames_in", "reasons": [stat_reason per frame, in order], "bad": [tuser[0] on the last
beat, per output frame], "cycles", "timed_out"}.
"""
import json
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fastpath import frames as fr
from fastpath.sim.tb import high

IDLE_CYCLES = 64


def _uint(signal) -> int:
    """A bus as an unsigned int; X/Z bits (Icarus, outside tkeep) read as 0."""
    v = signal.value
    try:
        return v.to_unsigned() if hasattr(v, "to_unsigned") else int(v)  # LogicArray, or Logic (1 bit)
    except ValueError:
        return int(str(v).lower().replace("x", "0").replace("z", "0"), 2)


def _beats(data: bytes, w: int):
    """(tdata, tkeep, tlast) per beat of one frame."""
    chunks = [data[i:i + w] for i in range(0, len(data), w)] or [b""]
    return [(int.from_bytes(c, "little"), (1 << len(c)) - 1, int(k == len(chunks) - 1))
            for k, c in enumerate(chunks)]


@cocotb.test()
async def gre_pcap(dut):
    cfg = json.loads(os.environ["FASTPATH_GRE"])
    w = len(dut.s_axis_tdata) // 8
    has_tlen = hasattr(dut, "s_axis_tlen")
    has_tdest = hasattr(dut, "s_axis_tdest")
    inputs = [c.data for c in fr.read_pcap(cfg["in"])]
    tdest = cfg.get("tdest") or [0] * len(inputs)

    for name in ("tdata", "tkeep", "tvalid", "tlast", "tuser"):
        getattr(dut, f"s_axis_{name}").value = 0
    if has_tlen:
        dut.s_axis_tlen.value = 0
    if has_tdest:
        dut.s_axis_tdest.value = 0
    dut.m_axis_tready.value = 1
    for name, value in cfg.get("set", {}).items():
        getattr(dut, name).value = int(value)
    cocotb.start_soon(Clock(dut.clk, cfg.get("period_ns", 5.0), unit="ns").start())
    dut.rst.value = 1
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 4)

    total_beats = sum(len(f) // w + 1 for f in inputs)
    limit = 10_000 + 8 * total_beats + 64 * len(inputs)
    reasons, bad, out = [], [], []
    cur = bytearray()
    fi, beats, bi = 0, None, 0  # input frame, its beats, the beat offered
    cycles, idle, timed_out = 0, 0, False
    while True:
        await RisingEdge(dut.clk)
        cycles += 1
        if beats is None and fi < len(inputs):
            beats, bi = _beats(inputs[fi], w), 0
            if has_tlen:
                dut.s_axis_tlen.value = len(inputs[fi]) & 0xFFFF
            if has_tdest:
                dut.s_axis_tdest.value = tdest[fi]
        if beats is not None:
            data, keep, last = beats[bi]
            dut.s_axis_tdata.value = data
            dut.s_axis_tkeep.value = keep
            dut.s_axis_tlast.value = last
            dut.s_axis_tvalid.value = 1
        else:
            dut.s_axis_tvalid.value = 0
        await ReadOnly()

        if high(dut.stat_valid):
            reasons.append(_uint(dut.stat_reason))
        if high(dut.m_axis_tvalid) and high(dut.m_axis_tready):
            idle = 0
            n = bin(_uint(dut.m_axis_tkeep)).count("1")
            cur += _uint(dut.m_axis_tdata).to_bytes(w, "little")[:n]
            if high(dut.m_axis_tlast):
                out.append(bytes(cur))
                bad.append(_uint(dut.m_axis_tuser) & 1)
                cur = bytearray()
        else:
            idle += 1
        if beats is not None and high(dut.s_axis_tready):
            bi += 1
            if bi == len(beats):
                beats, fi = None, fi + 1

        if fi == len(inputs) and len(reasons) >= len(inputs) and idle >= IDLE_CYCLES and not cur:
            break
        if cycles >= limit:
            timed_out = True
            break

    fr.write_pcap(cfg["out"], out)
    with open(cfg["summary"], "w") as fh:
        json.dump({"frames_in": len(inputs), "reasons": reasons, "bad": bad, "cycles": cycles,
                   "timed_out": timed_out}, fh)
