"""Absorb the flip-flops behind ECP5 block RAM reads into the RAM's own output register.

Yosys maps every inferred ECP5 block RAM to a DP16KD with REGMODE_A = REGMODE_B = "NOREG"
(share/lattice/brams_map_16kd.v, also for its 36-bit $__PDPW16KD_), so a register written right
behind a RAM read (fp_ram_sdp OUT_REG = 1, fp_node_wbuf's data slices, ...) becomes a fabric
TRELLIS_FF: the path into it starts with the RAM's 5.8 ns clock-to-out (LFE5U-85F-6) plus routing.
With REGMODE "OUTREG" the RAM registers its read data itself and nextpnr-ecp5 times its outputs
from that register (0.96 ns clock-to-out). This pass rewrites the ECP5 JSON netlist of
`synth_ecp5 -json` before nextpnr (`fastpath syn` runs it on every ECP5 entry unless the entry
says `ecp5_outreg = false`):

    python -m fastpath.ecp5_outreg [--lut-depth N|any] IN.json OUT.json   # prints what it did

A read port (DOA*/DOB*, or all 36 outputs of a DP16KD in PDP mode, read on port B) is rewritten
only if every one of its used output bits has exactly one load (not a module port), and that load
is one of these "cones", each ending in one TRELLIS_FF:
  * direct: the bit drives the DI of a TRELLIS_FF. The flip-flop is removed and the RAM output
    drives its Q net.
  * through one LUT4: the bit drives one input of a LUT4 (whose other inputs come from no RAM)
    whose output drives only the DI of a TRELLIS_FF. This is what Yosys builds for every
    same-clock RAM with a read-first (old data) read: memory_libmap delays the write by a cycle
    and emulates the read-during-write with a bypass multiplexer between the RAM output and the
    register, select and bypass data both registered. The flip-flop is retimed across the LUT:
    removed, each other LUT input gets a new flip-flop (clock and enable of the removed one;
    one per distinct net, shared between LUTs), and the LUT, fed by the RAM's output register and
    the new flip-flops, drives the removed flip-flop's Q net. Exact: with enable e, the old
    Q' = e ? f(DO, x) : Q and the new R' = e ? DO : R, x2' = e ? x : x2, out = f(R, x2) agree in
    every cycle (induction) if they agree at power-up (below). No net other than the RAM outputs
    changes its value in any cycle, so any x is allowed, even the register's own Q.
    The LUT then stands between the RAM's register and whatever the old flip-flop fed, with the
    RAM-to-fabric routing in front of it: ~2.5 ns more on every path out of the register. So by
    default (LUT_DEPTH = 0) a LUT cone is retimed only where the registers feed flip-flops, RAMs
    or ports directly, through no logic. On node_wbuf (seeds 1-3) moving every such register gave
    115.0 / 107.3 / 129.6 MHz (the frame state and next-pointer registers feed logic, which the
    multiplexer lengthened), moving only those that feed no logic 133.0 / 127.0 / 131.2, and
    leaving them all 110.5 / 122.9 / 117.0.
and the port's cones' flip-flops share, exactly:
  * the clock: the RAM port's clock net with the same polarity (CLKMUX vs CLKAMUX/CLKBMUX);
  * the clock enable: one net, not inverted (CEMUX "CE"), or none (CEMUX "1", or CE tied to 1):
    it drives the RAM's OCEx (OCEA and OCEB in PDP mode when both ports share the clock: Lattice's
    PDPW16KD has one OCER, which nextpnr maps to OCEB; driving OCEA too is harmless);
  * the set/reset (TRELLIS_FF semantics from Yosys' share/ecp5/cells_sim.v: LSR through LSRMUX,
    SRMODE "LSR_OVER_CE" = synchronous and ungated by CE, "ASYNC" = asynchronous, REGSET = the
    value the reset loads and, with the reset unused, the power-up value; LSRMODE "PRLD" loads M):
      - none (LSR tied inactive): the RAM port's reset (RSTx) must be unused (tied to 0), since the
        RAM's reset clears its output register too;
      - a reset is absorbed only where it maps exactly: direct cones, REGSET "RESET", synchronous
        (SRMODE "LSR_OVER_CE"), LSR the very net on the RAM port's RSTx with RESETMODE "SYNC", no
        clock enable (so whether the RAM gates its output register's reset with OCE does not
        matter), not PDP mode. The old flip-flop loaded 0 on reset, and loaded the RAM latch
        (cleared by the same reset a cycle earlier) otherwise; the output register does the same;
  * GSR: the flip-flops' GSR setting equals the RAM's (both are cleared, or neither, by a GSR).
Power-up: the RAM's output register powers up at zero, as its read latch does (Yosys declares
`rdinit zero` for the DP16KD). A fabric flip-flop without a reset powers up at its REGSET value
(Yosys encodes a register's init value in REGSET; a register without one gets "RESET", 0). A
port is rewritten only if every cone keeps its power-up value: a direct cone needs REGSET
"RESET"; a LUT cone needs f(0, new flip-flops at 0, constants) = the old flip-flop's REGSET value.
So no cycle differs, the first one included; a register with an init value of 1 stays in the
fabric.

Anything else is left as it is, with the reason in the returned summary: a RAM output that also
feeds other logic or goes through more than one LUT (a register with logic in front of it), cones
with different enables, clocks or resets, a LUT that merges several RAM outputs (a depth cascade),
an inverted enable, a reset that does not map, a port already in OUTREG, a LUT cone whose registers
feed logic (above), and with `owner` (`fastpath syn` gives "u_core.") registers whose output net
has no name in the core: the synthesis wrapper's output registers stand for the core's user, and
moving them into a RAM the core leaves unregistered would flatter the core's figure.
"""
from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

RAM = "DP16KD"
FF = "TRELLIS_FF"
LUT = "LUT4"
LUT_PINS = ("A", "B", "C", "D")   # INIT bit index = D*8 + C*4 + B*2 + A
# A LUT4 cone is retimed only if its registers feed at most this many logic levels (see above)
LUT_DEPTH = 0


def _pstr(v) -> str:
    """A string parameter as Yosys' JSON writes it: one trailing space is added to a string that
    could be read as a bit vector ("1" is written "1 "), so one trailing space is removed."""
    if isinstance(v, str) and v.endswith(" "):
        return v[:-1]
    return v if isinstance(v, str) else str(v)


def _pint(v) -> int:
    """A numeric parameter (a string of binary digits in Yosys' JSON, or a number)."""
    if isinstance(v, int):
        return v
    v = _pstr(v)
    return int(v, 2) if v and set(v) <= {"0", "1"} else int(v)


@dataclass
class Port:
    """One read port of a DP16KD: its outputs and the pins of its clock, enable and reset."""
    ram: str
    name: str                 # "A", "B", or "PDP" (36-bit read on port B, outputs on DOA and DOB)
    outputs: list             # output pin names (DOA0, ...)
    clk: str                  # clock pin
    clkmux: str               # parameter holding the clock polarity (CLKAMUX / CLKBMUX)
    oce: list                 # output-register clock enable pins to drive
    rst: list                 # reset pins that must be unused (or carry the absorbed reset)
    regmode: list             # REGMODE parameters to set


@dataclass
class Cone:
    """A used RAM output bit and the single flip-flop it reaches, directly or through one LUT4."""
    pin: str
    bit: int
    ff: str
    lut: str | None = None
    lut_pin: str | None = None


@dataclass
class Summary:
    rams: int = 0             # DP16KD cells with at least one port changed to OUTREG
    ports: int = 0
    bits: int = 0             # RAM output bits now registered in the RAM
    direct_bits: int = 0      # ... whose flip-flop was removed outright
    lut_bits: int = 0         # ... whose flip-flop was retimed across a LUT4
    ffs_removed: int = 0
    ffs_added: int = 0        # flip-flops delaying the other LUT inputs
    absorbed: list = field(default_factory=list)   # (ram, port, bits, kind)
    skipped: list = field(default_factory=list)    # (ram, port, reason)

    def as_dict(self, max_skipped: int = 50) -> dict:
        reasons: dict[str, int] = defaultdict(int)
        for _, _, why in self.skipped:   # counted by kind: without the pin names and details
            reasons[re.sub(r"\bDO[AB]\d+\b", "DO", re.sub(r"^DO[AB]\d+: ", "", why)).split(":")[0]] += 1
        return {"rams": self.rams, "ports": self.ports, "bits": self.bits,
                "direct_bits": self.direct_bits, "lut_bits": self.lut_bits,
                "ffs_removed": self.ffs_removed, "ffs_added": self.ffs_added,
                "ports_skipped": len(self.skipped), "skip_reasons": dict(sorted(reasons.items())),
                "skipped": [{"ram": r, "port": p, "reason": w} for r, p, w in self.skipped[:max_skipped]]}

    def log(self) -> str:
        lines = [f"ecp5_outreg: {self.rams} DP16KD, {self.ports} read ports, {self.bits} bits absorbed into the "
                 f"RAM output register ({self.direct_bits} direct, {self.lut_bits} retimed across a LUT4); "
                 f"{self.ffs_removed} flip-flops removed, {self.ffs_added} added; "
                 f"{len(self.skipped)} ports left as they were"]
        lines += [f"  absorbed {r} port {p}: {n} bits ({k})" for r, p, n, k in self.absorbed]
        lines += [f"  skipped  {r} port {p}: {w}" for r, p, w in self.skipped]
        return "\n".join(lines)


class _Module:
    """Connectivity of one module of the netlist."""

    def __init__(self, mod: dict):
        self.mod = mod
        self.cells: dict = mod.setdefault("cells", {})
        self.driver: dict[int, tuple[str, str]] = {}
        self.loads: dict[int, list[tuple[str, str]]] = defaultdict(list)
        self.port_bits: set[int] = set()
        for p in mod.get("ports", {}).values():
            for b in p.get("bits", []):
                if isinstance(b, int):
                    self.port_bits.add(b)
                    if p.get("direction") == "input":
                        self.driver[b] = ("<port>", "")
        top = 0
        for name, c in self.cells.items():
            dirs = c.get("port_directions", {})
            for pin, bits in c.get("connections", {}).items():
                for b in bits:
                    if not isinstance(b, int):
                        continue
                    top = max(top, b)
                    d = dirs.get(pin, "input")
                    if d in ("output", "inout"):
                        self.driver[b] = (name, pin)
                    if d in ("input", "inout"):
                        self.loads[b].append((name, pin))
        for n in mod.get("netnames", {}).values():
            top = max([top] + [b for b in n.get("bits", []) if isinstance(b, int)])
        for b in self.port_bits:
            top = max(top, b)
        self.next_bit = top + 1
        self.names: dict[int, str] = {}
        for name, n in mod.get("netnames", {}).items():
            for i, b in enumerate(n.get("bits", [])):
                if isinstance(b, int) and (b not in self.names or not n.get("hide_name")):
                    self.names[b] = name if len(n["bits"]) == 1 else f"{name}[{i}]"

    def pin(self, cell: str, pin: str):
        bits = self.cells[cell].get("connections", {}).get(pin)
        return bits[0] if bits else None

    def param(self, cell: str, name: str, default: str = "") -> str:
        v = self.cells[cell].get("parameters", {}).get(name)
        return default if v is None else _pstr(v)

    def new_bit(self, name: str) -> int:
        b = self.next_bit
        self.next_bit += 1
        nets = self.mod.setdefault("netnames", {})
        while name in nets:
            name += "_"
        nets[name] = {"hide_name": 0, "bits": [b], "attributes": {}}
        self.names[b] = name
        return b


def _ports(m: _Module, ram: str) -> list[Port]:
    conn = m.cells[ram].get("connections", {})
    wa = _pint(m.cells[ram].get("parameters", {}).get("DATA_WIDTH_A", "18"))
    wb = _pint(m.cells[ram].get("parameters", {}).get("DATA_WIDTH_B", "18"))
    do_a = [f"DOA{i}" for i in range(18) if f"DOA{i}" in conn]
    do_b = [f"DOB{i}" for i in range(18) if f"DOB{i}" in conn]
    if wa == 36 or wb == 36:
        # PDP mode: the read is port B's (clock, enable, reset) and may come out on both halves
        inv_a, inv_b = (m.param(ram, f"CLK{x}MUX", f"CLK{x}") == "INV" for x in "AB")
        same_clk = m.pin(ram, "CLKA") == m.pin(ram, "CLKB") and inv_a == inv_b
        return [Port(ram, "PDP", do_a + do_b, "CLKB", "CLKBMUX", ["OCEB", "OCEA"] if same_clk else ["OCEB"],
                     ["RSTB", "RSTA"], ["REGMODE_A", "REGMODE_B"])]
    return [Port(ram, "A", do_a, "CLKA", "CLKAMUX", ["OCEA"], ["RSTA"], ["REGMODE_A"]),
            Port(ram, "B", do_b, "CLKB", "CLKBMUX", ["OCEB"], ["RSTB"], ["REGMODE_B"])]


def _const(b, value: str) -> bool:
    return isinstance(b, str) and b == value


def _ff_control(m: _Module, ff: str):
    """(clock bit, inverted clock, enable, reset, reset_sync, regset value, gsr) of a TRELLIS_FF,
    or a string saying why it cannot go into a RAM. enable: a net bit or None (always enabled);
    reset: a net bit or None (never reset)."""
    if m.param(ff, "LSRMODE", "LSR") == "PRLD":
        return "flip-flop with an asynchronous load (LSRMODE PRLD)"
    cemux = m.param(ff, "CEMUX", "1")
    ce = m.pin(ff, "CE")
    if cemux == "1" or (cemux not in ("0", "INV") and _const(ce, "1")) or (cemux == "INV" and _const(ce, "0")):
        enable = None
    elif cemux == "0" or (cemux != "INV" and _const(ce, "0")) or (cemux == "INV" and _const(ce, "1")):
        return "flip-flop never enabled"
    elif cemux == "INV":
        return "inverted clock enable"
    elif isinstance(ce, int):
        enable = ce
    else:
        return f"clock enable tied to {ce!r}"
    lsr, inv = m.pin(ff, "LSR"), m.param(ff, "LSRMUX", "LSR") == "INV"
    if lsr is None or _const(lsr, "0") and not inv or _const(lsr, "1") and inv:
        reset = None
    elif isinstance(lsr, int) and not inv:
        reset = lsr
    else:
        return "set/reset inverted or tied active"
    clk = m.pin(ff, "CLK")
    if not isinstance(clk, int):
        return "flip-flop without a clock net"
    return (clk, m.param(ff, "CLKMUX", "CLK") == "INV", enable, reset,
            m.param(ff, "SRMODE", "LSR_OVER_CE") != "ASYNC",
            1 if m.param(ff, "REGSET", "RESET") == "SET" else 0, m.param(ff, "GSR", "ENABLED"))


def _lut_value(m: _Module, lut: str, values: dict[str, int]) -> int:
    init = _pint(m.cells[lut]["parameters"]["INIT"])
    idx = sum(values[p] << i for i, p in enumerate(LUT_PINS))
    return (init >> idx) & 1


def _cones(m: _Module, port: Port, ram_outputs: set[int]):
    """The cones of a port's used outputs, or a string saying why the port stays as it is."""
    conn = m.cells[port.ram]["connections"]
    cones = []
    for pin in port.outputs:
        b = conn[pin][0]
        if not isinstance(b, int) or (not m.loads.get(b) and b not in m.port_bits):
            continue
        loads = m.loads.get(b, [])
        if b in m.port_bits:
            return f"{pin} is a module port"
        if len(loads) != 1:
            return f"{pin} drives {len(loads)} loads"
        cell, cpin = loads[0]
        ctype = m.cells[cell]["type"]
        if ctype == FF and cpin == "DI":
            cones.append(Cone(pin, b, cell))
            continue
        if ctype != LUT or cpin not in LUT_PINS:
            return f"{pin} drives {ctype}.{cpin}, not a flip-flop's DI nor a LUT4"
        z = m.pin(cell, "Z")
        zl = m.loads.get(z, []) if isinstance(z, int) else []
        if not isinstance(z, int) or z in m.port_bits or len(zl) != 1:
            return f"{pin} drives a LUT4 whose output has {len(zl)} loads or is a module port"
        if m.cells[zl[0][0]]["type"] != FF or zl[0][1] != "DI":
            return f"{pin} drives a LUT4 that drives {m.cells[zl[0][0]]['type']}.{zl[0][1]}, not a flip-flop's DI"
        for p in LUT_PINS:
            x = m.pin(cell, p)
            if p == cpin:
                continue
            if isinstance(x, int) and (x in ram_outputs or m.driver.get(x, ("", ""))[0] in m.cells
                                       and m.cells[m.driver[x][0]]["type"] == RAM):
                return f"{pin} meets another RAM output in a LUT4 (a cascade multiplexer)"
            if isinstance(x, str) and x not in ("0", "1"):
                return f"{pin}'s LUT4 has input {p} tied to {x!r}"
        cones.append(Cone(pin, b, zl[0][0], cell, cpin))
    return cones


COMB = {"LUT4": ("Z",), "PFUMX": ("Z",), "L6MUX21": ("Z",), "CCU2C": ("S0", "S1", "COUT"), "LUT2": ("Z",)}


def _depth(m: _Module, net: int, limit: int, memo: dict) -> int:
    """Logic levels (LUT4, PFUMX, L6MUX21, CCU2C cells) from a net to the registers, RAMs and ports
    it reaches, along its longest path, counted up to limit + 1 (so at most limit + 1 deep)."""
    key = (net, limit)
    if key not in memo:
        outs = [b for cell, _ in m.loads.get(net, []) if cell in m.cells
                for o in COMB.get(m.cells[cell]["type"], ()) for b in m.cells[cell]["connections"].get(o, [])
                if isinstance(b, int)]
        if not outs or limit < 0:
            memo[key] = 1 if outs else 0
        else:
            memo[key] = 1 + max(_depth(m, b, limit - 1, memo) for b in outs)
    return memo[key]


def _check(m: _Module, port: Port, cones: list[Cone]):
    """The shared control of the cones' flip-flops if the port can take them in, else why not."""
    ram = port.ram
    if not cones:
        return "no used output"
    if any(m.param(ram, r, "NOREG") != "NOREG" for r in port.regmode):
        return "already has an output register"
    ctl = {}
    for c in cones:
        r = _ff_control(m, c.ff)
        if isinstance(r, str):
            return f"{c.pin}: {r}"
        ctl[c.ff] = r
    clk, clk_inv, enable, reset, sync, _, gsr = next(iter(ctl.values()))
    for c in cones:
        k, ki, e, rst, s, _, g = ctl[c.ff]
        if (k, ki) != (clk, clk_inv):
            return "the registers have different clocks"
        if e != enable:
            return "the registers have different clock enables"
        if rst != reset or s != sync:
            return "the registers have different set/resets"
        if g != gsr:
            return "the registers have different GSR settings"
    if m.pin(ram, port.clk) != clk:
        return "the registers are clocked by another net than the RAM port"
    if (m.param(ram, port.clkmux, "CLK") == "INV") != clk_inv:
        return "the registers and the RAM port use opposite clock edges"
    if m.param(ram, "GSR", "ENABLED") != gsr:
        return f"GSR differs (flip-flops {gsr}, RAM {m.param(ram, 'GSR', 'ENABLED')})"
    rst_pins = [m.pin(ram, p) for p in port.rst if p in m.cells[ram]["connections"]]
    if reset is None:
        if any(not _const(r, "0") for r in rst_pins if r is not None):
            return "the RAM's read reset is in use and would clear the output register, the registers have no reset"
        for c in cones:
            init = ctl[c.ff][5]
            if c.lut is None:
                if init:
                    return f"{c.pin}: the register powers up at 1, the RAM output register at 0"
            else:
                vals = {p: (0 if isinstance(m.pin(c.lut, p), int) else int(m.pin(c.lut, p))) for p in LUT_PINS}
                vals[c.lut_pin] = 0
                if _lut_value(m, c.lut, vals) != init:
                    return f"{c.pin}: the retimed LUT4 would power up at {1 - init}, the register at {init}"
    else:
        if port.name == "PDP":
            return "registers with a reset behind a RAM in PDP mode"
        if any(c.lut for c in cones):
            return "registers with a reset behind a LUT4"
        if any(ctl[c.ff][5] for c in cones):
            return "registers set (not reset) by their reset"
        if not sync or m.param(ram, "RESETMODE", "SYNC") != "SYNC":
            return "asynchronous reset"
        if enable is not None:
            return "registers with both a reset and a clock enable"
        if m.pin(ram, port.rst[0]) != reset or any(not _const(r, "0") for r in rst_pins[1:]):
            return "the registers' reset is not the RAM port's reset"
    return clk, clk_inv, enable, reset, gsr


def _absorb(m: _Module, port: Port, cones: list[Cone], ctl, delays: dict, s: Summary) -> None:
    clk, clk_inv, enable, reset, gsr = ctl
    ram = m.cells[port.ram]
    for p in port.regmode:
        ram["parameters"][p] = "OUTREG"
    for p in port.oce:
        ram["connections"][p] = [enable if enable is not None else "1"]
        ram.setdefault("port_directions", {})[p] = "input"
    n_lut = 0
    for c in cones:
        ff = m.cells[c.ff]
        q = ff["connections"]["Q"][0]
        if c.lut is None:
            ram["connections"][c.pin] = [q]
        else:
            n_lut += 1
            lut = m.cells[c.lut]
            for p in LUT_PINS:
                x = lut["connections"][p][0]
                if p == c.lut_pin or not isinstance(x, int):
                    continue
                key = (x, clk, clk_inv, enable, gsr)
                if key not in delays:
                    delays[key] = _delay_ff(m, c.ff, x)
                    s.ffs_added += 1
                lut["connections"][p] = [delays[key]]
            lut["connections"]["Z"] = [q]
        del m.cells[c.ff]
        s.ffs_removed += 1
    s.ports += 1
    s.bits += len(cones)
    s.lut_bits += n_lut
    s.direct_bits += len(cones) - n_lut
    kind = "direct" if not n_lut else "through a LUT4" if n_lut == len(cones) else f"{n_lut} through a LUT4"
    s.absorbed.append((port.ram, port.name, len(cones), kind))


def _delay_ff(m: _Module, template: str, x: int) -> int:
    """A new flip-flop with the template's clock, enable and GSR, no reset, powering up at 0, fed
    by net x; returns its output net."""
    src = m.driver.get(x, ("", ""))[0]
    base = m.names.get(x) or (src if src in m.cells else f"net{x}")
    q = m.new_bit(f"{base}$outreg_q")
    t = m.cells[template]
    params = dict(t.get("parameters", {}))
    params["REGSET"] = "RESET"
    params["LSRMUX"] = "LSR"
    params.pop("LSRMODE", None)
    conn = {"CLK": t["connections"]["CLK"], "LSR": ["0"], "DI": [x], "Q": [q]}
    dirs = {"CLK": "input", "LSR": "input", "DI": "input", "Q": "output"}
    if "CE" in t["connections"]:
        conn["CE"], dirs["CE"] = t["connections"]["CE"], "input"
    name = f"{base}$outreg"
    while name in m.cells:
        name += "_"
    m.cells[name] = {"hide_name": 0, "type": FF, "parameters": params,
                     "attributes": {k: v for k, v in t.get("attributes", {}).items() if k == "src"},
                     "port_directions": dirs, "connections": conn}
    m.driver[q] = (name, "Q")
    return q


def absorb(netlist: dict, lut_depth: int | None = LUT_DEPTH, owner: str | None = None) -> Summary:
    """Rewrite a Yosys ECP5 JSON netlist in place (see the module docstring); returns what was done.
    lut_depth: retime across a LUT4 only where the registers feed at most this many logic levels
    (None: wherever it is exact). owner: move only registers whose output net has a name under this
    hierarchy prefix (`fastpath syn` gives "u_core.": the core's registers, not its harness's)."""
    s = Summary()
    for mod in netlist.get("modules", {}).values():
        rams = [n for n, c in mod.get("cells", {}).items() if c.get("type") == RAM]
        if not rams:
            continue
        m = _Module(mod)
        ram_outputs = {b for r in rams for p, bits in m.cells[r].get("connections", {}).items()
                       if p.startswith("DO") for b in bits if isinstance(b, int)}
        delays: dict = {}
        memo: dict = {}
        owned = None if owner is None else \
            {b for n, v in mod.get("netnames", {}).items() if n.startswith(owner) for b in v.get("bits", [])}
        for r in sorted(rams):
            changed = False
            for port in _ports(m, r):
                cones = _cones(m, port, ram_outputs)
                if isinstance(cones, str):
                    s.skipped.append((r, port.name, cones))
                    continue
                if not cones:
                    continue
                ctl = _check(m, port, cones)
                if not isinstance(ctl, str) and owned is not None and \
                        any(m.pin(c.ff, "Q") not in owned for c in cones):
                    ctl = f"the registers are not under {owner} (the synthesis harness's)"
                if not isinstance(ctl, str) and lut_depth is not None and any(c.lut for c in cones):
                    d = max(_depth(m, m.pin(c.ff, "Q"), lut_depth, memo) for c in cones)
                    if d > lut_depth:
                        ctl = f"retiming the LUT4 would lengthen paths: the registers feed logic (> {lut_depth} levels)"
                if isinstance(ctl, str):
                    s.skipped.append((r, port.name, ctl))
                    continue
                _absorb(m, port, cones, ctl, delays, s)
                changed = True
            s.rams += changed
    return s


def run(src: Path, dst: Path, lut_depth: int | None = LUT_DEPTH, owner: str | None = None) -> Summary:
    """Read a netlist, absorb, write the result (dst may be src)."""
    netlist = json.loads(Path(src).read_text())
    s = absorb(netlist, lut_depth, owner)
    Path(dst).write_text(json.dumps(netlist))
    return s


def main(argv: list[str]) -> int:
    depth: int | None = LUT_DEPTH
    if len(argv) == 4 and argv[0] == "--lut-depth":
        depth = None if argv[1] == "any" else int(argv[1])
        argv = argv[2:]
    if len(argv) != 2:
        print("usage: python -m fastpath.ecp5_outreg [--lut-depth N|any] IN.json OUT.json", file=sys.stderr)
        return 2
    print(run(Path(argv[0]), Path(argv[1]), depth).log())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
