"""Run fp_node or fp_node_w fast: the Verilator C++ harness (node/tb/harness/node_harness.cpp).

    h = NodeHarness(ports=12, seg_bytes=64)              # builds once per parameter set (cached)
    h = NodeHarness(ports=12, top="fp_node_w")           # the word-serial node (one 125 MHz clock)
    res = h.run(frames=[InFrame(port=0, t_ps=0, data=b"...")], writes=[(addr, value)],
                reads=[addr], clk_ps=5000)
    res.rx[(port, idx)] -> SFD time in ps of the idx-th frame sent on port
    res.tx[port] -> [OutFrame(sfd_ps, ok, er, data)]     in the order they left
    res.reads[addr] -> value
    h.run(..., timed=[(t_ps, "W", addr, value), (t_ps, "R", addr)])  # bus operations during the
    res.timed_reads -> [(addr, value, t_ps)]                         # traffic, in list order
    h.run(..., rx_clocks={port: (period_ps, phase_ps)})  # a port's RX clock on its own

Tops: "fp_node" (the default: the segment datapath, clk at clk_ps, default 5,000 ps = 200 MHz,
plus port_clk at 125 MHz) and "fp_node_w" (the word-serial node: one clock, clk = the 125 MHz
port clock, so clk_ps is 8,000 and nothing else; its parameters are PORTS, SEGMENTS, MAX_BYTES,
VLANS, BUCKETS, WAYS: no SEG_BYTES, its segments are 64 bytes). fp_node_w is built with
Verilator's `--prefix Vfp_node` and `-DNODE_W`, so the one C++ harness drives both.

The harness drives GMII RX pins with preamble, SFD and FCS, checks the FCS of every frame on the
TX pins, and measures both SFDs at the sampling clock edge (see the .cpp header). Cocotb tests
drive the node with cocotbext-eth's GMII models for correctness; this is for volume (the
benchmark and the long randomized scoreboards), where cocotb would take hours.
"""
from __future__ import annotations

import fcntl
import hashlib
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from fastpath import rtl
from fastpath.paths import ROOT, progress, tool_env

HARNESS = ROOT / "node" / "tb" / "harness" / "node_harness.cpp"
BUILD = ROOT / "build" / "node_harness"
TOP = "fp_node"                   # the default top
TOPS = ("fp_node", "fp_node_w")
W_CLK_PS = 8000                   # fp_node_w: clk is the 125 MHz GMII clock
W_SEG_BYTES = 64                  # fp_node_w: the buffer's segment (not a parameter)


@dataclass
class InFrame:
    port: int
    t_ps: int            # earliest start (the SFD follows 7 preamble bytes later)
    data: bytes          # without preamble and FCS
    bad_fcs: bool = False
    rx_er: bool = False


@dataclass
class OutFrame:
    sfd_ps: int
    ok: bool             # FCS right
    er: bool             # tx_er seen
    data: bytes


@dataclass
class Result:
    rx: dict = field(default_factory=dict)        # (port, idx) -> sfd_ps
    tx: dict = field(default_factory=dict)        # port -> [OutFrame]
    host: dict = field(default_factory=dict)      # datapath -> [bytes]
    reads: dict = field(default_factory=dict)     # addr -> value
    timed_reads: list = field(default_factory=list)  # [(addr, value, t_ps)] of the "R" operations
    end_ps: int = 0
    cycles: int = 0


class NodeHarness:
    # frames start this long after time 0: the resets (16 cycles) and the buffer's free-list
    # sweep (SEGMENTS datapath cycles, 15 us for 3000 at 200 MHz; 24 us at 125 MHz) are over
    START_PS = 40_000_000

    def __init__(self, ports: int = 12, seg_bytes: int = 64, segments: int | None = None,
                 extra_params: dict | None = None, top: str = TOP):
        if top not in TOPS:
            raise ValueError(f"NodeHarness: top must be one of {', '.join(TOPS)}, not {top!r}")
        self.top = top
        if top == "fp_node_w":
            if seg_bytes != W_SEG_BYTES or "SEG_BYTES" in (extra_params or {}):
                raise ValueError("fp_node_w has no SEG_BYTES parameter: its segments are 64 bytes")
            self.params = {"PORTS": ports}
        else:
            self.params = {"PORTS": ports, "SEG_BYTES": seg_bytes}
        if segments is not None:
            self.params["SEGMENTS"] = segments
        self.params.update(extra_params or {})
        self.ports = ports
        self.seg_bytes = seg_bytes
        self.exe = self._build()

    @property
    def default_clk_ps(self) -> int:
        return W_CLK_PS if self.top == "fp_node_w" else 5000

    def _build(self) -> Path:
        top = self.top
        files = rtl.closure(top)
        key = hashlib.sha256()
        if top != TOP:              # (fp_node's key as before: its cached builds stay valid)
            key.update(top.encode())
        for p in files:
            key.update(p.read_bytes())
        key.update(repr(sorted(self.params.items())).encode())
        # one Verilator output folder per RTL + parameters; the harness is recompiled alone when
        # only it changed
        d = BUILD / key.hexdigest()[:16]
        exe = d / f"Vfp_node_{hashlib.sha256(HARNESS.read_bytes()).hexdigest()[:8]}"
        d.mkdir(parents=True, exist_ok=True)
        with open(d / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if exe.exists():
                return exe
            cflags = f"-O2 -DNODE_PORTS={self.params['PORTS']}"
            if top == "fp_node_w":
                cflags += " -DNODE_W"
            cmd = ["verilator", "--cc", "--exe", "--build", "-O3", "--x-assign", "fast",
                   "--x-initial", "fast", "--no-timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
                   "--top-module", top, "--prefix", "Vfp_node",     # one class name for both tops
                   "-Mdir", str(d / "obj"), "-o", str(exe), "-CFLAGS", cflags]
            for inc in rtl.include_dirs():
                cmd.append(f"-I{inc}")
            for k, v in self.params.items():
                cmd.append(f"-G{k}={v}")
            cmd += [str(p) for p in files] + [str(HARNESS)]
            progress(f"building the Verilator harness of {top} "
                     f"({', '.join(f'{k}={v}' for k, v in self.params.items())}): 1-3 minutes, cached after")
            proc = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(f"building the node harness failed:\n{proc.stderr[-4000:]}")
        return exe

    def run(self, frames: list[InFrame], writes: list[tuple[int, int]] = (), reads: list[int] = (),
            clk_ps: int | None = None, end_ps: int | None = None, drain_ps: int = 20_000_000,
            timed: list[tuple] = (), rx_clocks: dict | None = None) -> Result:
        """clk_ps: clk's period (fp_node: default 5,000 ps; fp_node_w: 8,000 ps, the only one it
        takes). rx_clocks: {port: (period_ps, first_rising_edge_ps)} for ports whose gmii_rx_clk
        runs on its own (the others are driven by the port clock itself: port_clk, or fp_node_w's
        clk)."""
        if clk_ps is None:
            clk_ps = self.default_clk_ps
        if self.top == "fp_node_w" and clk_ps != W_CLK_PS:
            raise ValueError(f"fp_node_w runs on one 125 MHz clock (the GMII's): clk_ps must be "
                             f"{W_CLK_PS}, not {clk_ps}")
        lines = [f"clk_ps {clk_ps}", f"drain_ps {drain_ps}"]
        lines += [f"rxclk {p} {per} {ph}" for p, (per, ph) in sorted((rx_clocks or {}).items())]
        if end_ps is not None:
            lines.append(f"end_ps {end_ps}")
        lines += [f"w {a:x} {v:x}" for a, v in writes]
        for f in frames:
            flags = (1 if f.bad_fcs else 0) | (2 if f.rx_er else 0)
            lines.append(f"f {f.port} {f.t_ps + self.START_PS} {flags} {f.data.hex()}")
        lines += [f"r {a:x}" for a in reads]
        for op in timed:          # (t_ps, "W", addr, value) or (t_ps, "R", addr), same time base as frames
            t = op[0] + self.START_PS
            lines.append(f"W {t} {op[2]:x} {op[3]:x}" if op[1] == "W" else f"R {t} {op[2]:x}")
        with tempfile.TemporaryDirectory() as tmp:
            script, out = Path(tmp) / "script", Path(tmp) / "out"
            script.write_text("\n".join(lines) + "\n")
            subprocess.run([str(self.exe), str(script), str(out)], check=True)
            return parse(out.read_text(), self.ports)


def parse(text: str, ports: int) -> Result:
    r = Result(tx={p: [] for p in range(ports)})
    for line in text.splitlines():
        w = line.split()
        if not w:
            continue
        if w[0] == "rx":
            r.rx[(int(w[1]), int(w[2]))] = int(w[3])
        elif w[0] == "tx":
            data = bytes.fromhex(w[5]) if len(w) > 5 else b""
            r.tx[int(w[1])].append(OutFrame(int(w[2]), w[3] == "1", w[4] == "1", data))
        elif w[0] == "host":
            r.host.setdefault(int(w[1]), []).append(bytes.fromhex(w[2]) if len(w) > 2 else b"")
        elif w[0] == "rd":
            r.reads[int(w[1], 16)] = int(w[2], 16)
        elif w[0] == "trd":
            r.timed_reads.append((int(w[1], 16), int(w[2], 16), int(w[3]) - NodeHarness.START_PS))
        elif w[0] == "end":
            r.end_ps, r.cycles = int(w[1]), int(w[2])
    return r
