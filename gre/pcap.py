"""`fastpath gre decap|encap`: run the GRE cores (RTL, in simulation) over a capture.

    fastpath gre decap IN.pcap OUT.pcap [--width 64] [--accept ADDR[,key=K]]... [--drop-unknown]
    fastpath gre encap IN.pcap OUT.pcap --tunnel SRC,DST[,key=K][,seq][,l3][,ttl=N]... [--src-mac M] [--dst-mac M]

The capture's frames go through fp_gre_decap or fp_gre_encap back to back, run by the generic pcap
runner (fastpath.sim.stream.run_pcap, as `fastpath sim stream`) with the cfg_* ports set, s_axis_tlen
and s_axis_tdest driven per frame and the stat_valid/stat_reason pulses collected; OUT.pcap gets one
frame per input frame that is neither dropped nor marked bad (tuser[0]), in order, with the input
frame's timestamp. The counters come from those pulses, one per frame, named by fastpath.gre.model
(DECAP_REASONS, ENCAP_REASONS: the RTL's codes are their indices).
"""
from __future__ import annotations

import ipaddress
import tempfile
from dataclasses import dataclass
from pathlib import Path

from fastpath import frames as fr
from fastpath.gre import model as gre
from fastpath.sim import stream

WIDTHS = (64, 256, 512)
MAX_FRAME = 65535 - 66  # fp_gre_encap's 16-bit IP length with its longest header
# The table sizes built (ACCEPT_ENTRIES, TUNNELS): at least these, more when more are given.
MIN_ACCEPT_ENTRIES, MIN_TUNNELS, MAX_ENTRIES = 8, 4, 64
# The verdicts after which a core outputs nothing (fastpath.gre.model: decap returns None only for
# unknown_drop; Encap.encap only for drop). Frames marked bad are counted as dropped too.
NO_OUTPUT = {"decap": ("unknown_drop",), "encap": ("drop",)}


class GreError(Exception):
    """A problem with the user's input (printed as the message, non-zero exit)."""


# The simulation failed or its result does not add up (a bug: printed, non-zero exit).
SimulationError = stream.SimulationError


# ---------------------------------------------------------------------------------------------
# Argument parsing (also used as argparse `type=` functions: ValueError becomes a usage error)
# ---------------------------------------------------------------------------------------------

def _ip(text: str):
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an IPv4 or IPv6 address") from None


def _u32(text: str, what: str) -> int:
    try:
        v = int(text, 0)
    except ValueError:
        raise ValueError(f"{what} {text!r} is not a number") from None
    if not 0 <= v <= 0xFFFFFFFF:
        raise ValueError(f"{what} {v} is not a 32-bit value")
    return v


def parse_accept(spec: str) -> gre.Accept:
    """ADDR[,key=K]: the remote endpoint (outer source address, IPv4 or IPv6) and optional key."""
    addr, *opts = spec.split(",")
    a = _ip(addr)
    key = None
    for o in opts:
        name, eq, value = o.partition("=")
        if name.strip() != "key" or not eq:
            raise ValueError(f"{spec!r}: expected ADDR[,key=K], got {o!r}")
        key = _u32(value, "key")
    return gre.Accept(int(a), ipv6=a.version == 6, key=key)


def parse_tunnel(spec: str) -> gre.Tunnel:
    """SRC,DST[,key=K][,seq][,l3][,ttl=N]: outer addresses (both IPv4 or both IPv6), GRE key,
    sequence numbers, L3 mode (carry the IP packet after the Ethernet header), TTL / hop limit."""
    parts = spec.split(",")
    if len(parts) < 2:
        raise ValueError(f"{spec!r}: expected SRC,DST[,key=K][,seq][,l3][,ttl=N]")
    src, dst = _ip(parts[0]), _ip(parts[1])
    if src.version != dst.version:
        raise ValueError(f"{spec!r}: SRC and DST must both be IPv4 or both IPv6")
    t = gre.Tunnel(ipv6=src.version == 6, src=int(src), dst=int(dst))
    for o in parts[2:]:
        name, eq, value = (x.strip() for x in o.partition("="))
        if name == "key" and eq:
            t.key = _u32(value, "key")
        elif name == "ttl" and eq:
            t.ttl = _u32(value, "ttl")
            if t.ttl > 255:
                raise ValueError(f"{spec!r}: ttl {t.ttl} is not 0..255")
        elif name in ("seq", "l3") and not eq:
            setattr(t, name, True)
        else:
            raise ValueError(f"{spec!r}: unknown option {o!r} (key=K, seq, l3, ttl=N)")
    return t


def parse_mac(text: str) -> bytes:
    parts = text.split(":")
    try:
        mac = bytes(int(p, 16) for p in parts)
    except ValueError:
        mac = b""
    if len(parts) != 6 or len(mac) != 6 or any(len(p) not in (1, 2) for p in parts):
        raise ValueError(f"{text!r} is not a MAC address (aa:bb:cc:dd:ee:ff)")
    return mac


# ---------------------------------------------------------------------------------------------
# Configuration ports
# ---------------------------------------------------------------------------------------------

# gre.decap_ports / gre.encap_ports (gre/model.py) give the cores' cfg_* port values.


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------

def read_input(path: str | Path) -> list[fr.Captured]:
    """The capture's frames, or GreError with a message a user can act on."""
    try:
        return stream.read_frames(path, MAX_FRAME, "the GRE cores")
    except stream.InputError as e:
        raise GreError(str(e)) from None


@dataclass
class Result:
    direction: str          # "decap" or "encap"
    top: str
    width: int
    sim: str
    frames_in: int
    frames_out: int
    cycles: int
    reasons: dict           # every verdict name -> frames (in the reason table's order)
    done: int               # decapsulated / encapsulated (and written)
    passed: dict            # reason -> frames written unchanged (reasons that occurred)
    dropped: dict           # reason -> frames not written: dropped by the core, or marked bad
    output: str

    def as_dict(self) -> dict:
        done = "decapsulated" if self.direction == "decap" else "encapsulated"
        return {"command": f"gre {self.direction}", "top": self.top, "width": self.width, "sim": self.sim,
                "frames_in": self.frames_in, "frames_out": self.frames_out, done: self.done,
                "passed": self.passed, "dropped": self.dropped, "reasons": self.reasons,
                "cycles": self.cycles, "output": self.output}

    def table(self) -> str:
        done = "decapsulated" if self.direction == "decap" else "encapsulated"
        rows = [("frames in", self.frames_in), ("frames out", self.frames_out), (done, self.done),
                ("passed", sum(self.passed.values()))]
        rows += [(f"  {k}", v) for k, v in self.passed.items()]
        rows.append(("dropped", sum(self.dropped.values())))
        rows += [(f"  {k}", v) for k, v in self.dropped.items()]
        head = (f"{self.top} {self.width} bits ({self.sim}, {self.cycles} cycles) -> {self.output}")
        return "\n".join([head] + [f"  {k:<16}{v:>8}" for k, v in rows])


def _simulate(top: str, params: dict, frames: list[fr.Captured], in_pcap: Path, out_pcap: Path,
              signals: dict, tdest: list[int] | None, sim: str | None, direction: str,
              names: tuple[str, ...]) -> Result:
    sideband = {"s_axis_tlen": [len(c.data) & 0xFFFF for c in frames]}
    if tdest is not None:
        sideband["s_axis_tdest"] = tdest
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.pcap"  # every output frame, in order, bad ones included
        s = stream.run_pcap(top, in_pcap, raw, params, set_signals=signals, keep_bad=True, sideband=sideband,
                            pulses={"stat_valid": "stat_reason"}, pulses_per_frame=1, idle_cycles=64, sim=sim)
        outs = [c.data for c in fr.read_pcap(raw)]
    sim_name, reasons_raw = s["sim"], s["pulses"]["stat_valid"]
    if len(reasons_raw) != len(frames):
        raise SimulationError(f"{top}: {len(reasons_raw)} stat_valid pulses for {len(frames)} frames")
    verdicts = [names[c] if c < len(names) else f"code_{c}" for c in reasons_raw]
    # Pair output frames with the input frames that produce one (the cores keep the order).
    producing = [i for i, v in enumerate(verdicts) if v not in NO_OUTPUT[direction]]
    if len(producing) != len(outs):
        raise SimulationError(f"{top}: {len(outs)} output frames, expected {len(producing)} from the verdicts")
    # Grouped by what happened to each frame: written (done or passed unchanged) or not (no output,
    # or marked bad); within a group by verdict, in the reason table's order.
    reasons = {n: 0 for n in names}
    passed, dropped = {}, {}
    for v in verdicts:
        reasons[v] = reasons.get(v, 0) + 1
        if v in NO_OUTPUT[direction]:
            dropped[v] = dropped.get(v, 0) + 1
    written, done = [], 0
    for i, data, bad in zip(producing, outs, s["bad"]):
        v = verdicts[i]
        if bad:
            dropped[v] = dropped.get(v, 0) + 1
        elif v == direction:
            done += 1
        else:
            passed[v] = passed.get(v, 0) + 1
        if not bad:
            written.append(fr.Captured(data, frames[i].time))
    fr.write_pcap(out_pcap, written)
    order = {n: i for i, n in enumerate(reasons)}
    passed, dropped = ({k: d[k] for k in sorted(d, key=order.get)} for d in (passed, dropped))
    return Result(direction, top, params["DATA_WIDTH"], sim_name, len(frames), len(written), s["cycles"],
                  reasons, done, passed, dropped, str(out_pcap))


def _check_width(width: int):
    if width not in WIDTHS:
        raise GreError(f"--width {width}: the GRE cores support {', '.join(map(str, WIDTHS))}")


def run_decap(in_pcap, out_pcap, width: int = 64, accept: list[gre.Accept] | None = None,
              drop_unknown: bool = False, sim: str | None = None) -> Result:
    """fp_gre_decap over a capture. No accept entries: every endpoint is accepted."""
    _check_width(width)
    accept = list(accept or [])
    if len(accept) > MAX_ENTRIES:
        raise GreError(f"{len(accept)} --accept entries: fp_gre_decap holds at most {MAX_ENTRIES}")
    frames = read_input(in_pcap)
    cfg = gre.DecapConfig(entries=accept, accept_all=not accept, drop_unknown=drop_unknown)
    params = {"DATA_WIDTH": width, "ACCEPT_ENTRIES": max(MIN_ACCEPT_ENTRIES, len(accept))}
    return _simulate("fp_gre_decap", params, frames, Path(in_pcap), Path(out_pcap), gre.decap_ports(cfg), None,
                     sim, "decap", gre.DECAP_REASONS)


def run_encap(in_pcap, out_pcap, tunnels: list[gre.Tunnel], width: int = 64, src_mac: bytes | None = None,
              dst_mac: bytes | None = None, tunnel_by: str = "first", sim: str | None = None) -> Result:
    """fp_gre_encap over a capture: frame i into tunnel 0 ("first") or tunnel i mod n ("round-robin")."""
    _check_width(width)
    if not tunnels:
        raise GreError("gre encap needs at least one --tunnel SRC,DST")
    if len(tunnels) > MAX_ENTRIES:
        raise GreError(f"{len(tunnels)} tunnels: fp_gre_encap holds at most {MAX_ENTRIES}")
    for t in tunnels:
        if src_mac is not None:
            t.mac_src = src_mac
        if dst_mac is not None:
            t.mac_dst = dst_mac
    frames = read_input(in_pcap)
    if tunnel_by == "first":
        tdest = [0] * len(frames)
    elif tunnel_by == "round-robin":
        tdest = [i % len(tunnels) for i in range(len(frames))]
    else:
        raise GreError(f"--tunnel-by {tunnel_by!r}: expected first or round-robin")
    params = {"DATA_WIDTH": width, "TUNNELS": max(MIN_TUNNELS, len(tunnels))}
    return _simulate("fp_gre_encap", params, frames, Path(in_pcap), Path(out_pcap), gre.encap_ports(tunnels), tdest,
                     sim, "encap", gre.ENCAP_REASONS)
