"""Synthesis flow: Yosys for Xilinx 7-series resources, Yosys + nextpnr-ecp5 for Fmax.

Each system declares its synthesis entries in `<system>/syn.toml`, found by discovery:

    [name]                         one entry (unique over every system); several may share a top
    top = "module"
    params = { NAME = value }
    clocks = { clk = 250.0 }       clock ports of the top and their target frequencies in MHz;
                                   inputs named with a clock's prefix (s_clk -> s_*) belong to
                                   that clock's domain, others to the first
    area = "node_parts"            optional grouping in the report (default: the system's name);
                                   `fastpath syn AREA` runs a whole group
    ecp5_params = { NAME = value } parameters changed for the ECP5 place and route only, for a core
                                   too big for the LFE5U-85F (the report says which were changed)
    nextpnr_args = ["--placer-heap-..."]  extra nextpnr-ecp5 arguments
    ecp5_flow = "placed"           placement only (default "route"), for a design whose routing
                                   does not converge, so that `make syn` finishes
    seeds = [1, 2, 3]              nextpnr seeds to place and route with (default [1]); the report
                                   gives each seed's Fmax and, as `fmax`, the worst over the seeds
    ecp5_outreg = false            keep the flip-flops behind block RAM reads in the fabric (default
                                   true: `fastpath.ecp5_outreg` moves them into the DP16KD's output
                                   register before nextpnr)
    board = { part = "25k", package = "CABGA256", speed = 6, lpf = "node/rtl/x.lpf" }
                                   a board build: the top is a chip top (pins, PLL), built as it is
                                   (no wrapper) for the given ECP5 part (nextpnr's --25k, --um-45k,
                                   ...), package and speed grade, placed and routed with the board's
                                   constraints (lpf: a path from the top of the tree; its FREQUENCY
                                   lines are the clock targets, `clocks` is then optional and unused;
                                   every top-level port must have a LOCATE: no
                                   --lpf-allow-unconstrained), and packed by ecppack into
                                   build/syn/<entry>/<entry>.bit. No Xilinx run and no ecp5_params.

Every entry is synthesized twice:
  * Xilinx 7-series (`synth_xilinx -flatten -noiopad`) on the bare core: LUT, LUT-as-memory, FF,
    BRAM (RAMB36 equivalents) and DSP counts.
  * ECP5 LFE5U-85F-6 (CABGA381) through nextpnr-ecp5 for the achieved Fmax of every clock
    (between Yosys and nextpnr, `fastpath.ecp5_outreg` moves the registers right behind block RAM
    reads into the RAMs' output registers; `ecp5_outreg_absorbed` in the report counts them). A core's
    wide buses would need more pins than the package has and pin placement would dominate timing,
    so the core is wrapped: each clock domain's inputs come from a shift chain fed by one pin, and
    its outputs are registered and folded into one registered pin by a signature shift register
    (one 2-input XOR between registers, no output can cancel another; see `ooc_wrapper`).
A board entry (`board = {...}`) is built for its own ECP5 part instead, without the wrapper and
without the Xilinx run: Yosys `synth_ecp5` on the chip top, nextpnr-ecp5 with the board's LPF,
and `ecppack` to a bitstream (with several seeds, from the seed with the most margin on its
tightest clock); the report gives the routed Fmax per clock, the utilization and the bitstream's
path and size.
With --depth, also the longest register-to-register path in LUT4 levels and its nets
(`logic_depth`): where to pipeline, without waiting for a place and route. With --placed, ECP5
placement only: nextpnr's Fmax estimate and the worst paths of the placed design with their
wire share (`fastpath.placed_timing`), for a design whose routing does not converge.
Results go to build/syn/<entry>/ and are collected in build/syn/report.json.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from . import ecp5_outreg, rtl
from .paths import BUILD, ROOT, systems, tool_env

OUT = BUILD / "syn"
ECP5 = {"device": "LFE5U-85F", "speed": 6, "package": "CABGA381"}
# Both tools run through fastpath.yowasp, which gives WebAssembly a larger call stack (abc9 on
# the flattened node recurses deeper than YoWASP's default allows).
YOSYS = [sys.executable, "-m", "fastpath.yowasp", "yosys"]
NEXTPNR = [sys.executable, "-m", "fastpath.yowasp", "nextpnr-ecp5"]
ECPPACK = [sys.executable, "-m", "fastpath.yowasp", "ecppack"]
# nextpnr-ecp5's device options (--25k, --um-45k, ...), for board entries
ECP5_PARTS = ("12k", "25k", "45k", "85k", "um-25k", "um-45k", "um-85k", "um5g-25k", "um5g-45k", "um5g-85k")
XILINX = {"family": "xc7", "reference_part": "XC7A200T", "reference_luts": 134_600}


@dataclass(frozen=True)
class Board:
    """A board build's chip (nextpnr-ecp5's device option without the dashes, the package, the
    speed grade) and its pin constraints (an LPF, absolute path)."""
    part: str
    package: str
    speed: int
    lpf: Path

    def nextpnr_args(self) -> list[str]:
        return [f"--{self.part}", "--package", self.package, "--speed", str(self.speed)]

    def as_dict(self) -> dict:
        lpf = self.lpf.relative_to(ROOT) if self.lpf.is_relative_to(ROOT) else self.lpf
        return {"part": self.part, "package": self.package, "speed": self.speed, "lpf": str(lpf)}


@dataclass
class Entry:
    name: str
    top: str
    params: dict = field(default_factory=dict)
    clocks: dict = field(default_factory=dict)
    area: str = ""
    # parameters changed for the ECP5 place-and-route only (a core too big for the ECP5-85)
    ecp5_params: dict = field(default_factory=dict)
    # extra nextpnr-ecp5 arguments (e.g. router2 for a congested whole design)
    nextpnr_args: list = field(default_factory=list)
    # "route" (place and route: the achieved Fmax) or "placed" (placement only, as --placed: for
    # a design whose routing does not converge, so that `make syn` finishes)
    ecp5_flow: str = "route"
    # nextpnr seeds; the reported Fmax of each clock is the worst over them
    seeds: list = field(default_factory=lambda: [1])
    # move registers behind block RAM reads into the DP16KD output register (fastpath.ecp5_outreg)
    ecp5_outreg: bool = True
    # a board build: the top is a chip top, built for this part with this LPF, to a bitstream
    board: Board | None = None


def entry_files() -> list[Path]:
    """Every system's syn.toml."""
    return [f / "syn.toml" for f in systems().values() if (f / "syn.toml").exists()]


def entries(files: list[Path] | None = None) -> dict[str, Entry]:
    out: dict[str, Entry] = {}
    for path in entry_files() if files is None else files:
        for name, entry in _entries(path).items():
            if name in out:
                raise ValueError(f"{_where(path)}: [{name}] is also an entry of {out[name].area}")
            out[name] = entry
    return out


def _where(path: Path) -> str:
    return str(path.resolve().relative_to(ROOT)) if path.resolve().is_relative_to(ROOT) else str(path)


def _entries(path: Path) -> dict[str, Entry]:
    where = _where(path)
    system = path.resolve().parent.name
    raw = tomllib.loads(path.read_text())
    out = {}
    for name, e in raw.items():
        board = _board(where, name, e["board"]) if "board" in e else None
        if not e.get("clocks") and board is None:
            raise ValueError(f"{where}: [{name}] needs clocks = {{ port = MHz }}")
        if board is not None and e.get("ecp5_params"):
            raise ValueError(f"{where}: [{name}] a board entry builds its top as it is: no ecp5_params")
        flow = e.get("ecp5_flow", "route")
        if flow not in ("route", "placed"):
            raise ValueError(f"{where}: [{name}] ecp5_flow must be \"route\" or \"placed\", not {flow!r}")
        seeds = list(e.get("seeds", [1]))
        if not seeds or not all(isinstance(x, int) and x >= 0 for x in seeds) or len(set(seeds)) != len(seeds):
            raise ValueError(f"{where}: [{name}] seeds must be distinct non-negative integers, not {seeds!r}")
        outreg = e.get("ecp5_outreg", True)
        if not isinstance(outreg, bool):
            raise ValueError(f"{where}: [{name}] ecp5_outreg must be true or false, not {outreg!r}")
        out[name] = Entry(name, e["top"], dict(e.get("params", {})), dict(e.get("clocks", {})),
                          e.get("area", system), dict(e.get("ecp5_params", {})), list(e.get("nextpnr_args", [])),
                          flow, seeds, outreg, board)
    return out


def _board(where: str, name: str, b) -> Board:
    """An entry's `board = { part, package, speed, lpf }`, checked."""
    keys = {"part", "package", "speed", "lpf"}
    if not isinstance(b, dict) or set(b) != keys:
        raise ValueError(f"{where}: [{name}] board needs exactly {{ part, package, speed, lpf }}, not {b!r}")
    if b["part"] not in ECP5_PARTS:
        raise ValueError(f"{where}: [{name}] board part must be one of {', '.join(ECP5_PARTS)}, not {b['part']!r}")
    if not isinstance(b["package"], str) or not re.fullmatch(r"[A-Z]+\d+", b["package"]):
        raise ValueError(f"{where}: [{name}] board package must be a package name such as CABGA256, "
                         f"not {b['package']!r}")
    if b["speed"] not in (6, 7, 8) or isinstance(b["speed"], bool):
        raise ValueError(f"{where}: [{name}] board speed must be 6, 7 or 8, not {b['speed']!r}")
    lpf = Path(b["lpf"]) if isinstance(b["lpf"], str) and b["lpf"] else None
    if lpf is not None and not lpf.is_absolute():
        lpf = ROOT / lpf
    if lpf is None or lpf.suffix != ".lpf" or not lpf.is_file():
        raise ValueError(f"{where}: [{name}] board lpf must name an existing .lpf file (from the top of "
                         f"the tree), not {b['lpf']!r}")
    return Board(b["part"], b["package"], b["speed"], lpf)


def _run(cmd: list[str], log: Path) -> None:
    # YoWASP tools run sandboxed: they are given absolute paths (see _rel).
    with open(log, "w") as fh:
        proc = subprocess.run(cmd, cwd=ROOT, env=tool_env(), stdout=fh, stderr=subprocess.STDOUT)
    if proc.returncode:
        tail = "".join(log.read_text().splitlines(keepends=True)[-15:])
        raise RuntimeError(f"{cmd[3] if cmd[0] == sys.executable else cmd[0]} failed (log: {log}):\n{tail}")


def _rel(p: Path) -> str:
    """A path as the YoWASP tools are given it: absolute (they see the host's top-level folders
    under their own names; a relative path is resolved from the sandbox's root, so a system
    folder named like one of them, such as lib/, would point at the host's /lib)."""
    return str(p.resolve())


def _chparams(params: dict) -> str:
    return " ".join(f"-chparam {k} {v}" for k, v in params.items())


_PORT = re.compile(r"^(input|output|inout) \[(\d+):(\d+)\] (\S+)$")


def _ports(path: Path) -> list[tuple[str, str, int]]:
    ports = []
    for line in path.read_text().splitlines():
        m = _PORT.match(line.strip())
        if m:
            ports.append((m[1], m[4], int(m[2]) - int(m[3]) + 1))
    return ports


def xilinx_resources(stat: dict) -> dict:
    cells = {}
    for mod in stat["modules"].values():
        for k, v in mod.get("num_cells_by_type", {}).items():
            cells[k] = cells.get(k, 0) + v
    lut = sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]", k))
    lutram = sum(v * (4 if k.startswith(("RAM32M", "RAM64M")) else 2 if "X1D" in k else 1)
                 for k, v in cells.items() if k.startswith(("RAM32", "RAM64", "RAM128", "RAM256", "SRL")))
    ff = sum(v for k, v in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", k))
    bram = cells.get("RAMB36E1", 0) + 0.5 * cells.get("RAMB18E1", 0)
    dsp = cells.get("DSP48E1", 0)
    return {"lut": lut, "lutram": lutram, "ff": ff, "bram36": bram, "dsp": dsp, "cells": cells}


def _xor_fold(c: str, regs: list[str], width: int) -> list[str]:
    """Fold the registered outputs into {c}_dout through a signature shift register: stage k
    takes stage k-1 XOR output bit k, and the last stage drives the pin. One 2-input XOR between
    registers, so no wrapper path competes with the core's (a one-cycle XOR of thousands of bits
    was itself ~10 ns deep), and no output can cancel another: in a plain XOR reduction two
    outputs with the same logic (merged by Yosys) fold to 0 and their logic is removed - which
    had dropped one of fp_node_l2_table's two bucket RAM copies from its ECP5 netlist."""
    if not regs:
        return [f"    always @(posedge {c}) {c}_dout <= 1'b0;"]
    lines = [f"    wire [{width - 1}:0] {c}_f0 = {{{', '.join(regs)}}};"]
    if width == 1:
        lines.append(f"    always @(posedge {c}) {c}_dout <= {c}_f0[0];")
        return lines
    lines.append(f"    reg  [{width - 1}:0] {c}_sig;")
    lines.append(f"    always @(posedge {c}) {c}_sig <= {{{c}_sig[{width - 2}:0], 1'b0}} ^ {c}_f0;")
    lines.append(f"    always @(posedge {c}) {c}_dout <= {c}_sig[{width - 1}];")
    return lines


def ooc_wrapper(e: Entry, ports: list[tuple[str, str, int]]) -> str:
    """A wrapper with one data-in and one data-out pin per clock domain (see module docstring)."""
    clocks = list(e.clocks)

    def domain(port: str) -> str:
        """The clock whose name, less "_clk" or "clk", begins the port's name (the longest such:
        gmii_rx_clk takes gmii_rxd and gmii_rx_dv); the first clock otherwise."""
        best, size = clocks[0], 0
        for c in clocks:
            prefix = c[:-4] if c.endswith("_clk") else c[:-3] if c.endswith("clk") else c
            if prefix and port.startswith(prefix) and len(prefix) > size:
                best, size = c, len(prefix)
        return best

    lines = ["`default_nettype none", "module fp_syn_wrap ("]
    pins = [f"    input wire {c}" for c in clocks]
    for c in clocks:
        pins += [f"    input wire {c}_din", f"    output reg {c}_dout"]
    lines.append(",\n".join(pins) + "\n);")
    conns = []
    for c in clocks:
        ins = [(n, w) for d, n, w in ports if d == "input" and n not in clocks and domain(n) == c]
        outs = [(n, w) for d, n, w in ports if d == "output" and domain(n) == c]
        total_in = max(1, sum(w for _, w in ins))
        lines.append(f"    reg [{total_in - 1}:0] {c}_chain;")
        lines.append(f"    always @(posedge {c}) {c}_chain <= {{{c}_chain[{max(total_in - 2, 0)}:0], {c}_din}};"
                     if total_in > 1 else f"    always @(posedge {c}) {c}_chain <= {c}_din;")
        pos = 0
        for n, w in ins:
            conns.append(f"        .{n}({c}_chain[{pos + w - 1}:{pos}])")
            pos += w
        for n, w in outs:
            lines.append(f"    wire [{w - 1}:0] {c}_o_{n};")
            lines.append(f"    reg  [{w - 1}:0] {c}_q_{n};")
            lines.append(f"    always @(posedge {c}) {c}_q_{n} <= {c}_o_{n};")
            conns.append(f"        .{n}({c}_o_{n})")
        lines += _xor_fold(c, [f"{c}_q_{n}" for n, _ in outs], sum(w for _, w in outs))
    widths = {n: w for _, n, w in ports}
    for c in clocks:   # a clock vector (one per port, e.g. gmii_rx_clk) is driven by one pin
        w = widths.get(c, 1)
        conns.append(f"        .{c}({c})" if w == 1 else f"        .{c}({{{w}{{{c}}}}})")
    params = ", ".join(f".{k}({v})" for k, v in e.params.items())
    lines.append(f"    {e.top} {'#(' + params + ') ' if params else ''}u_core (")
    lines.append(",\n".join(conns))
    lines += ["    );", "endmodule", "`default_nettype wire", ""]
    return "\n".join(lines)


def logic_depth(e: Entry) -> dict:
    """The core's longest register-to-register path in 4-input LUT levels, with the nets along
    it (`fastpath syn --depth`): a generic Yosys synthesis (`abc -lut 4`, memories kept as cells,
    so a path ends at a RAM) and `ltp -noff`. Arithmetic counts as LUTs here, so a chip with
    carry chains does better on adders and comparators than the count says; the path's names
    show where a register would cut it."""
    out = OUT / e.name
    out.mkdir(parents=True, exist_ok=True)
    files = " ".join(_rel(p) for p in rtl.closure(e.top))
    incs = " ".join(f"-I{_rel(d)}" for d in rtl.include_dirs())
    # a chip top instantiates ECP5 primitives (the PLL): known to Yosys as black boxes
    prims = "read_verilog -lib -specify +/ecp5/cells_bb.v; " if e.board is not None else ""
    script = (f"{prims}read_verilog -DSYNTHESIS {incs} {files}; "
              f"hierarchy -check -top {e.top} {_chparams(e.params)}; "
              f"synth -flatten -top {e.top} -run :fine; techmap; opt -fast; abc -lut 4; opt_clean; "
              f"tee -q -o {_rel(out)}/depth.txt ltp -noff")
    _run(YOSYS + ["-q", "-p", script], out / "depth.log")
    text = (out / "depth.txt").read_text()
    m = re.search(r"Longest topological path in \S+ \(length=(\d+)\)", text)
    path = [re.sub(r"\s*\(via.*", "", ln.split(":", 1)[1]).strip()
            for ln in text.splitlines() if re.match(r"\s+(\d+|ff):", ln)]
    named = [n[1:] for n in path if n.startswith("\\")]  # the design's nets (not tool-made)
    return {"lut4_levels": int(m.group(1)) if m else None,
            "from": named[0] if named else None, "to": named[-1] if named else None,
            "through": named[1:-1]}


def synth(e: Entry, ecp5: bool = True, depth: bool = False, placed: bool = False) -> dict:
    if e.board is not None:
        return _synth_board(e, ecp5, depth, placed)
    out = OUT / e.name
    out.mkdir(parents=True, exist_ok=True)
    files = " ".join(_rel(p) for p in rtl.closure(e.top))
    incs = " ".join(f"-I{_rel(d)}" for d in rtl.include_dirs())
    t0 = time.monotonic()
    script = (f"read_verilog -DSYNTHESIS {incs} {files}; "
              f"hierarchy -check -top {e.top} {_chparams(e.params)}; "
              f"tee -q -o {_rel(out)}/ports.txt portlist; "
              f"synth_xilinx -flatten -noiopad -noclkbuf -top {e.top}; "
              f"tee -q -o {_rel(out)}/xilinx_stat.json stat -json")
    _run(YOSYS + ["-q", "-p", script], out / "xilinx.log")
    result = {"name": e.name, "area": e.area, "top": e.top, "params": e.params,
              "xilinx": xilinx_resources(json.loads((out / "xilinx_stat.json").read_text()))}
    result["xilinx"]["seconds"] = round(time.monotonic() - t0, 1)
    if depth:
        result["depth"] = logic_depth(e)
    if ecp5:
        try:
            placed_only = placed or e.ecp5_flow == "placed"
            ecp5 = _ecp5(e, out, files, incs, placed_only)
            result["ecp5_outreg_absorbed"] = ecp5.pop("outreg")
            result["ecp5_placed" if placed_only else "ecp5"] = ecp5
        except RuntimeError as ex:  # e.g. the core does not fit: keep the Xilinx figures
            result["ecp5"] = {"error": str(ex).splitlines()[0], "log": _rel(out)}
    return result


def _ecp5(e: Entry, out: Path, files: str, incs: str, placed: bool = False) -> dict:
    t0 = time.monotonic()
    ports = out / "ports.txt"
    changed = bool(e.ecp5_params)
    if changed:
        e = Entry(e.name, e.top, {**e.params, **e.ecp5_params}, e.clocks, e.area,
                  nextpnr_args=e.nextpnr_args, ecp5_flow=e.ecp5_flow, seeds=e.seeds, ecp5_outreg=e.ecp5_outreg)
        ports = out / "ecp5_ports.txt"
        _run(YOSYS + ["-q", "-p", f"read_verilog -DSYNTHESIS {incs} {files}; "
                      f"hierarchy -check -top {e.top} {_chparams(e.params)}; "
                      f"tee -q -o {_rel(ports)} portlist"], out / "ecp5_ports.log")
    (out / "fp_syn_wrap.v").write_text(ooc_wrapper(e, _ports(ports)))
    (out / "clocks.lpf").write_text("".join(f'FREQUENCY PORT "{c}" {f} MHz;\n' for c, f in e.clocks.items()))
    script = (f"read_verilog -DSYNTHESIS {incs} {files} {_rel(out)}/fp_syn_wrap.v; "
              f"synth_ecp5 -top fp_syn_wrap -json {_rel(out)}/ecp5_yosys.json")
    _run(YOSYS + ["-q", "-p", script], out / "ecp5_yosys.log")
    outreg = _outreg(e, out)
    common = ["--85k", "--package", ECP5["package"], "--speed", str(ECP5["speed"]),
              "--json", f"{_rel(out)}/ecp5.json", "--lpf", f"{_rel(out)}/clocks.lpf",
              "--lpf-allow-unconstrained", "--timing-allow-fail"]
    if placed:
        return {**_placed(e, out, common + ["--seed", str(e.seeds[0])], t0), "outreg": outreg}
    per_seed, util = _route(e, out, common)
    res = {"fmax": _worst(per_seed), "utilization_with_wrapper": util,
           "seconds": round(time.monotonic() - t0, 1), "outreg": outreg}
    if len(e.seeds) > 1:
        res["fmax_per_seed"] = {str(k): v for k, v in per_seed.items()}
    if changed:
        res["params"] = e.params
    return res


def _seed_tag(e: Entry, seed: int) -> str:
    return "" if e.seeds == [1] else f"_seed{seed}"


def _route(e: Entry, out: Path, common: list[str], extra=lambda seed: []) -> tuple[dict, dict]:
    """nextpnr-ecp5 once per seed: ({seed: {clock: {achieved_mhz, target_mhz}}}, utilization);
    extra(seed) adds arguments to a seed's run (a board's --textcfg)."""
    per_seed, util = {}, {}
    for seed in e.seeds:
        tag = _seed_tag(e, seed)
        report = out / f"nextpnr_report{tag}.json"
        _run(NEXTPNR + common + ["--seed", str(seed), "--report", _rel(report), *extra(seed), *e.nextpnr_args],
             out / f"nextpnr{tag}.log")
        rep = json.loads(report.read_text())
        per_seed[seed] = {_clock_name(net): {"achieved_mhz": round(v["achieved"], 1), "target_mhz": v["constraint"]}
                          for net, v in rep.get("fmax", {}).items()}
        util = {k: v["used"] for k, v in rep.get("utilization", {}).items() if v.get("used")}
    return per_seed, util


def _worst(per_seed: dict) -> dict:
    """Each clock's figure is the worst seed's: a clock holds only if every seed met it."""
    fmax, worst_seed = {}, {}
    for seed, clocks in per_seed.items():
        for clk, v in clocks.items():
            if clk not in fmax or v["achieved_mhz"] < fmax[clk]["achieved_mhz"]:
                fmax[clk], worst_seed[clk] = dict(v), seed
    for clk in fmax:
        fmax[clk]["seed"] = worst_seed[clk]
    return fmax


def _synth_board(e: Entry, ecp5: bool, depth: bool, placed: bool) -> dict:
    """A board entry: the chip top through Yosys `synth_ecp5`, nextpnr-ecp5 on the board's part
    with its LPF, and ecppack (module docstring). Without ecp5 (--no-ecp5) nothing is measured."""
    out = OUT / e.name
    out.mkdir(parents=True, exist_ok=True)
    result = {"name": e.name, "area": e.area, "top": e.top, "params": e.params, "board": e.board.as_dict()}
    if depth:
        result["depth"] = logic_depth(e)
    if not ecp5:
        return result
    t0 = time.monotonic()
    files = " ".join(_rel(p) for p in rtl.closure(e.top))
    incs = " ".join(f"-I{_rel(d)}" for d in rtl.include_dirs())
    try:
        # (no -check before synth_ecp5: the ECP5 primitives, the PLL, are known only once it has
        # read its cell library; its own hierarchy pass checks the design)
        _run(YOSYS + ["-q", "-p", f"read_verilog -DSYNTHESIS {incs} {files}; "
                      f"hierarchy -top {e.top} {_chparams(e.params)}; "
                      f"synth_ecp5 -top {e.top} -json {_rel(out)}/ecp5_yosys.json"], out / "ecp5_yosys.log")
        outreg = _outreg(e, out, owner=None)       # the whole design is the board's
        common = [*e.board.nextpnr_args(), "--json", f"{_rel(out)}/ecp5.json", "--lpf", _rel(e.board.lpf),
                  "--timing-allow-fail"]
        if placed or e.ecp5_flow == "placed":
            result["ecp5_outreg_absorbed"] = outreg
            result["ecp5_placed"] = _placed(e, out, common + ["--seed", str(e.seeds[0])], t0)
            return result
        per_seed, util = _route(e, out, common,
                                lambda seed: ["--textcfg", f"{_rel(out)}/ecp5{_seed_tag(e, seed)}.config"])
        # the bitstream: the seed with the most margin on its tightest clock
        best = max(e.seeds, key=lambda s: min((v["achieved_mhz"] / v["target_mhz"]
                                               for v in per_seed[s].values()), default=0.0))
        bit = out / f"{e.name}.bit"
        _run(ECPPACK + ["--input", f"{_rel(out)}/ecp5{_seed_tag(e, best)}.config", "--bit", _rel(bit)],
             out / "ecppack.log")
        res = {"fmax": _worst(per_seed), "utilization": util, "seconds": round(time.monotonic() - t0, 1),
               "bitstream": {"path": str(bit.relative_to(ROOT)), "bytes": bit.stat().st_size, "seed": best}}
        if len(e.seeds) > 1:
            res["fmax_per_seed"] = {str(k): v for k, v in per_seed.items()}
        result["ecp5_outreg_absorbed"] = outreg
        result["ecp5"] = res
    except RuntimeError as ex:
        result["ecp5"] = {"error": str(ex).splitlines()[0], "log": _rel(out)}
    return result


def _outreg(e: Entry, out: Path, owner: str | None = "u_core.") -> dict:
    """Yosys' ECP5 netlist (ecp5_yosys.json) -> the one nextpnr reads (ecp5.json), with the
    registers behind block RAM reads moved into the RAMs (`fastpath.ecp5_outreg`) unless the entry
    says `ecp5_outreg = false`. What was absorbed, and why the rest was not: ecp5_outreg.log."""
    src, dst, log = out / "ecp5_yosys.json", out / "ecp5.json", out / "ecp5_outreg.log"
    if not e.ecp5_outreg:
        src.replace(dst)
        log.write_text("ecp5_outreg: off for this entry (ecp5_outreg = false in its syn.toml)\n")
        return {"enabled": False}
    try:
        summary = ecp5_outreg.run(src, dst, owner=owner)   # the core's registers, not a wrapper's
    except Exception as ex:   # a fault in the pass: place and route Yosys' netlist, say so
        shutil.copyfile(src, dst)
        log.write_text(f"ecp5_outreg failed, Yosys' netlist used as it is: {ex!r}\n")
        return {"enabled": True, "error": repr(ex)}
    log.write_text(summary.log() + "\n")
    return {"enabled": True, **summary.as_dict(max_skipped=20)}


def _clock_name(net: str) -> str:
    """The design's clock name in a nextpnr clock net name ("$glbnet$clk$TRELLIS_IO_IN" -> "clk")."""
    return re.sub(r"^\$glbnet\$", "", net).split("$")[0]


def _placed(e: Entry, out: Path, common: list[str], t0: float) -> dict:
    """Placement only (`fastpath syn --placed`): nextpnr's Fmax estimate after placement and the
    worst paths of the placed design by nextpnr's own wire prediction (fastpath.placed_timing),
    for a design whose routing takes too long or does not converge."""
    from . import placed_timing
    _run(NEXTPNR + common + e.nextpnr_args + ["--no-route", "--write", f"{_rel(out)}/placed.json"],
         out / "placed.log")
    est = {}
    for m in re.finditer(r"Max frequency for clock\s+'([^']+)': ([\d.]+) MHz \((?:PASS|FAIL) at ([\d.]+) MHz",
                         (out / "placed.log").read_text()):
        est[_clock_name(m.group(1))] = {"estimate_mhz": float(m.group(2)), "target_mhz": float(m.group(3))}
    analysis = placed_timing.analyse(json.loads((out / "placed.json").read_text()), count=20)
    (out / "placed_paths.txt").write_text(placed_timing.report(analysis) + "\n")
    worst = [{"ns": round(p[-1]["at_ps"] / 1000, 2), "wire_ns": round(sum(s["net_ps"] for s in p) / 1000, 2),
              "from": p[0]["cell"], "to": p[-1]["cell"]} for p in analysis["paths"][:5]]
    return {"fmax_after_placement": est, "worst_paths": worst, "paths": _rel(out / "placed_paths.txt"),
            "seconds": round(time.monotonic() - t0, 1)}


def report_entry(name: str, path: Path | None = None) -> dict:
    """An entry's figures from the last `fastpath syn` (build/syn/report.json), {} if never run."""
    try:
        return json.loads((path or OUT / "report.json").read_text()).get("cores", {}).get(name, {})
    except (OSError, ValueError):
        return {}


def routed_fmax(name: str, path: Path | None = None) -> dict:
    """{clock: MHz} an entry reached after place and route (the worst of its seeds); {} when it
    was not routed (never run, placement only, or failed)."""
    fmax = report_entry(name, path).get("ecp5", {}).get("fmax", {})
    return {clk: v["achieved_mhz"] for clk, v in fmax.items()}


def run(names: list[str] | None = None, jobs: int = 2, ecp5: bool = True, quiet: bool = False,
        depth: bool = False, placed: bool = False) -> dict:
    all_entries = entries()
    unknown = [n for n in names or [] if n not in all_entries and n not in {e.area for e in all_entries.values()}]
    if unknown:
        raise SystemExit(f"fastpath syn: no entry or area {', '.join(unknown)} in any */syn.toml "
                         f"(areas: {', '.join(sorted({e.area for e in all_entries.values()}))})")
    chosen = [e for e in all_entries.values() if not names or e.name in names or e.area in names]
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        results = list(pool.map(lambda e: synth(e, ecp5, depth, placed), chosen))
    report_path = OUT / "report.json"
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    report.setdefault("cores", {})
    report["xilinx_target"] = XILINX
    report["ecp5_target"] = ECP5
    for r in results:  # figures not measured in this run (ECP5, depth) stay from earlier runs
        report["cores"][r["name"]] = {**report["cores"].get(r["name"], {}), **r}
    OUT.mkdir(parents=True, exist_ok=True)
    report_path.write_text(json.dumps(report, indent=2, sort_keys=True))
    if not quiet:
        print(table(results))
        print(f"\nreport: {report_path.relative_to(ROOT)}")
    return report


def table(results: list[dict]) -> str:
    rows = [("entry", "LUT", "LUTRAM", "FF", "BRAM36", "DSP", "LUT4 levels", "Fmax MHz (ECP5-6, target)")]
    for r in results:
        x = r.get("xilinx", {})       # (none for a board entry)
        ecp5 = r.get("ecp5", {})
        fmax = ", ".join(f"{c} {v['achieved_mhz']:.0f} ({v['target_mhz']:.0f})"
                         for c, v in ecp5.get("fmax", {}).items()) or ("failed" if "error" in ecp5 else "-")
        if "ecp5_placed" in r:
            fmax = "placed only: " + ", ".join(f"{c} {v['estimate_mhz']:.0f} ({v['target_mhz']:.0f})" for c, v in
                                               r["ecp5_placed"]["fmax_after_placement"].items())
        if "params" in ecp5:
            fmax += " with " + ", ".join(f"{k}={v}" for k, v in ecp5["params"].items() if r["params"].get(k) != v)
        if "bitstream" in ecp5:
            fmax += f"; {r['board']['part']} {r['board']['package']}-{r['board']['speed']}: " \
                    f"{ecp5['bitstream']['path']} ({ecp5['bitstream']['bytes']} bytes)"
        d = r.get("depth", {}).get("lut4_levels")
        rows.append((r["name"], x.get("lut", "-"), x.get("lutram", "-"), x.get("ff", "-"),
                     f"{x['bram36']:g}" if "bram36" in x else "-", x.get("dsp", "-"),
                     "-" if d is None else d, fmax))
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows)
