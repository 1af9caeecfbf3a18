"""Register maps: one description per core, from which the RTL, the C header and the docs are made.

A core's AXI4-Lite register map is described once, in `<name>.regs.toml` beside its RTL (the
format is in docs/registers.md). `fastpath regs` (`write_all()`) renders, for every description
in a system's rtl/ folder:

    <system>/rtl/fp_<name>_regs.v                the map's decode, registers and a port per field,
                                                 behind the shared slave lib/rtl/fp_axil_slave.v
    <system>/host/include/fastpath/regs/<name>.h offsets, fields and static inline accessors for C
    <system>/docs/regs/<name>.md                 the register tables

tests/test_regs.py checks the committed files equal fresh renders, so they never drift from the
description. Python (cocotb tests, host tools) reads the description directly:
`load(name)` -> `RegMap`, and `RegClient(regmap, axil_master)` reads and writes registers by name.

One module per concern, everything re-exported here:

    model     RegMap, Register, Field, Array; load(), load_file(), loads(), parse() and their checks
    bus       the AXI4-Lite behaviour every map has (the shared slave's latencies and responses)
    verilog   render_verilog(), ports(): the generated RTL
    c         render_c(), c_prefix(): the C header
    markdown  render_markdown(): the register tables
    files     outputs(), stale(), write_all(), run(): the generated files and `fastpath regs`
    client    RegClient, RegBusError: access by name over cocotbext-axi's AxiLiteMaster
"""
from __future__ import annotations

from .bus import (READ_LATENCY, RESP_OKAY, RESP_SLVERR, SLAVE, UNMAPPED_READ_VALUE,
                  WRITE_LATENCY)
from .c import c_prefix, render_c
from .client import RegBusError, RegClient
from .files import outputs, run, stale, write_all
from .markdown import render_markdown
from .model import (ACCESS, Array, Field, RegMap, Register, RegsError, descriptions,
                    generated_modules, load, load_file, loads, parse)
from .verilog import READ_GROUP_WORDS, ports, render_verilog

__all__ = [
    "ACCESS", "Array", "Field", "READ_GROUP_WORDS", "READ_LATENCY", "RESP_OKAY", "RESP_SLVERR",
    "RegBusError", "RegClient", "RegMap", "Register", "RegsError", "SLAVE", "UNMAPPED_READ_VALUE",
    "WRITE_LATENCY", "c_prefix", "descriptions", "generated_modules", "load", "load_file", "loads",
    "outputs", "parse", "ports", "render_c", "render_markdown", "render_verilog", "run", "stale",
    "write_all",
]
