"""The Verilog of a register map: `fp_<name>_regs`, the map-specific part of an AXI4-Lite slave.

The bus protocol is not generated: the module instantiates the shared, hand-written slave
`lib/rtl/fp_axil_slave.v` (`bus.SLAVE`) and adds only what the description decides: the address
decode (the write hit, and the read data as first-stage groups of up to READ_GROUP_WORDS words),
the registers, and a port per field.
"""
from __future__ import annotations

import re

from ._text import hexdigits, rel, system, wrap
from .bus import READ_LATENCY, SLAVE, WRITE_LATENCY
from .model import Field, RegMap, Register

# Words ORed into one first-stage group of the slave's two-stage read (see _read_groups).
READ_GROUP_WORDS = 16


def _hex(v: int, width: int) -> str:
    return f"{width}'h{v:0{(width + 3) // 4}x}"


def _addr(rm: RegMap, r: Register, word: int, index: str | None) -> str:
    """The byte address of a register word as a 32-bit expression (index: entry variable)."""
    if r.array is None:
        return f"32'h{r.offset + 4 * word:0{hexdigits(rm)}x}"
    a = r.array
    return (f"32'h{a.offset:0{hexdigits(rm)}x} + {index} * 32'h{a.stride:x} + "
            f"32'h{r.offset - a.offset + 4 * word:x}")


def _slice(name: str, fw: int, hi: int, lo: int, count: int, index: str | None) -> str:
    """Bits [hi:lo] of a field of width fw carried by vector `name` (flattened when in an array)."""
    n = hi - lo + 1
    if index is None:
        if n == fw:
            return name
        return f"{name}[{hi}]" if n == 1 else f"{name}[{hi}:{lo}]"
    if fw == 1:
        return f"{name}[{index}]"
    base = f"{index}*{fw}" + (f" + {lo}" if lo else "")
    return f"{name}[{base} +: {n}]"


def _word_parts(r: Register, word: int):
    """(field, field_hi, field_lo, reg_bit_hi, reg_bit_lo) for fields overlapping 32-bit `word`,
    most significant first."""
    wlo, whi = 32 * word, 32 * word + 31
    for f in sorted(r.fields, key=lambda f: -f.lsb):
        lo, hi = max(f.lsb, wlo), min(f.msb, whi)
        if lo <= hi:
            yield f, hi - f.lsb, lo - f.lsb, hi - wlo, lo - wlo


def _concat(parts: list[tuple[int, int, str]], width: int = 32) -> str:
    """Concatenate (bit_hi, bit_lo, expr) pieces into a `width`-bit value, zero-filling gaps."""
    out, pos = [], width - 1
    for hi, lo, expr in parts:
        if hi < pos:
            out.append(f"{pos - hi}'d0")
        out.append(expr)
        pos = lo - 1
    if pos >= 0:
        out.append(f"{pos + 1}'d0")
    return out[0] if len(out) == 1 else "{" + ", ".join(out) + "}"


def _read_expr(r: Register, word: int, index: str | None, from_inputs: bool = False) -> str:
    """The 32-bit value a read of `word` returns (or, from_inputs, the live ro value)."""
    if r.access == "pulse":
        return "32'd0"
    if r.access == "ro" and r.width == 64 and word == 1 and not from_inputs:
        return _slice(f"{r.name}_hi_q", 32, 31, 0, 0, index)
    count = r.array.count if r.array else 1
    parts = []
    for f, fhi, flo, bhi, blo in _word_parts(r, word):
        if f.value is not None:
            expr = _hex((f.value >> flo) & ((1 << (fhi - flo + 1)) - 1), fhi - flo + 1)
        else:
            src = r.port(f) if r.access in ("rw", "ro") else f"{r.port(f)}_q"
            expr = _slice(src, f.width, fhi, flo, count, index)
        parts.append((bhi, blo, expr))
    return _concat(parts)


def _lanes(r: Register, f: Field):
    """(word, lane, field_hi, field_lo, data_hi, data_lo) for each byte lane a field spans."""
    for b in range(f.lsb // 8, f.msb // 8 + 1):
        lo, hi = max(f.lsb, 8 * b), min(f.msb, 8 * b + 7)
        word, lane = divmod(b, 4)
        yield word, lane, hi - f.lsb, lo - f.lsb, hi - 32 * word, lo - 32 * word


def _wr_sel(r: Register, word: int, index: str | None) -> str:
    suffix = ("_lo", "_hi")[word] if r.width == 64 else ""
    return f"bus_wr_{r.name}{suffix}" if index is None else f"wr_{r.name}{suffix}"


def _reg_logic(rm: RegMap, r: Register, index: str | None, ind: str) -> list[str]:
    """Declarations-free logic for one register (or one entry of an array's register)."""
    count = r.array.count if r.array else 1
    L: list[str] = []
    # address decode for writes
    if r.access != "ro":
        for w in range(r.words):
            sel = _wr_sel(r, w, index)
            L.append(f"{ind}wire {sel} = bus_wr_en && {_sel(rm, r, w, index, write=True)};")
    if r.access == "rw":
        # The byte lanes' enables are registered (one flip-flop per lane the register uses) and
        # the storage loads bus_wr_data_q with them a cycle after the commit: each enable drives
        # only its lane's flip-flops, and the commit's fan-out to every word ends in a register.
        lanes = sorted({(word, lane) for f in r.fields for word, lane, *_ in _lanes(r, f)})
        we = {wl: f"{_wr_sel(r, wl[0], index)}_we{wl[1]}" for wl in lanes}
        for (word, lane), n in we.items():
            L.append(f"{ind}reg  {n};")
        L.append(f"{ind}always @(posedge clk) begin")
        for (word, lane), n in we.items():
            L.append(f"{ind}    {n} <= !rst && {_wr_sel(r, word, index)} && bus_wr_strb[{lane}];")
        L.append(f"{ind}end")
        L.append(f"{ind}always @(posedge clk) begin")
        L.append(f"{ind}    if (rst) begin")
        for f in r.fields:
            q = _slice(f"{r.port(f)}_q", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}        {q} <= {_hex(f.reset, f.width)};")
        L.append(f"{ind}    end else begin")
        for f in r.fields:
            for word, lane, fhi, flo, dhi, dlo in _lanes(r, f):
                q = _slice(f"{r.port(f)}_q", f.width, fhi, flo, count, index)
                d = f"bus_wr_data_q[{dhi}:{dlo}]" if dhi != dlo else f"bus_wr_data_q[{dhi}]"
                L.append(f"{ind}        if ({we[(word, lane)]}) {q} <= {d};")
        L.append(f"{ind}    end")
        L.append(f"{ind}end")
    elif r.access == "w1c":
        sel = _wr_sel(r, 0, index)
        for f in r.fields:
            p = r.port(f)
            clr = f"{p}_clr"
            parts = []
            for _, lane, fhi, flo, dhi, dlo in _lanes(r, f):
                n = fhi - flo + 1
                if n == 1:
                    parts.append(f"({sel} && bus_wr_strb[{lane}] && bus_wr_data[{dhi}])")
                else:
                    parts.append(f"({{{n}{{{sel} && bus_wr_strb[{lane}]}}}} & bus_wr_data[{dhi}:{dlo}])")
            rng = f"[{f.width - 1}:0] " if f.width > 1 else ""
            expr = parts[0] if len(parts) == 1 else "{" + ", ".join(reversed(parts)) + "}"
            L.append(f"{ind}wire {rng}{clr} = {expr};")
        L.append(f"{ind}always @(posedge clk) begin")
        L.append(f"{ind}    if (rst) begin")
        for f in r.fields:
            q = _slice(f"{r.port(f)}_q", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}        {q} <= {_hex(0, f.width)};")
        L.append(f"{ind}    end else begin")
        L.append(f"{ind}        // A set in the same cycle as a clear wins: no event is lost.")
        for f in r.fields:
            p = r.port(f)
            clr = f"{p}_clr"
            q = _slice(f"{p}_q", f.width, f.width - 1, 0, count, index)
            s = _slice(f"{p}_set", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}        {q} <= ({q} & ~{clr}) | {s};")
        L.append(f"{ind}    end")
        L.append(f"{ind}end")
    elif r.access == "pulse":
        sel = _wr_sel(r, 0, index)
        strobe = f"{r.name}_wr_q" if index is None else f"{r.name}_wr_q[{index}]"
        L.append(f"{ind}always @(posedge clk) begin")
        L.append(f"{ind}    if (rst) begin")
        L.append(f"{ind}        {strobe} <= 1'b0;")
        for f in r.fields:
            q = _slice(f"{r.port(f)}_q", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}        {q} <= {_hex(0, f.width)};")
        L.append(f"{ind}    end else begin")
        L.append(f"{ind}        {strobe} <= {sel};")
        L.append(f"{ind}        if ({sel}) begin")
        for f in r.fields:
            parts = []
            for _, lane, fhi, flo, dhi, dlo in _lanes(r, f):
                n = fhi - flo + 1
                if n == 1:
                    parts.append(f"(bus_wr_strb[{lane}] && bus_wr_data[{dhi}])")
                else:
                    parts.append(f"({{{n}{{bus_wr_strb[{lane}]}}}} & bus_wr_data[{dhi}:{dlo}])")
            expr = parts[0] if len(parts) == 1 else "{" + ", ".join(reversed(parts)) + "}"
            q = _slice(f"{r.port(f)}_q", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}            {q} <= {expr};")
        L.append(f"{ind}        end")
        L.append(f"{ind}    end")
        L.append(f"{ind}end")
    elif r.access == "ro" and r.width == 64:
        q = _slice(f"{r.name}_hi_q", 32, 31, 0, count, index)
        L.append(f"{ind}// Reading the low word latches the high word: lo then hi is one 64-bit value.")
        L.append(f"{ind}always @(posedge clk) begin")
        L.append(f"{ind}    if (rst) begin")
        L.append(f"{ind}        {q} <= 32'd0;")
        L.append(f"{ind}    end else if (bus_rd_en && {_sel(rm, r, 0, index)}) begin")
        L.append(f"{ind}        {q} <= {_read_expr(r, 1, index, from_inputs=True)};")
        L.append(f"{ind}    end")
        L.append(f"{ind}end")
    return L


def _read_groups(rm: RegMap) -> list[tuple]:
    """The read tree's first-stage groups, in address order: ("words", [(register, word), ...])
    of up to READ_GROUP_WORDS scalar words, or ("entries", array, lo, hi): whole entries of an
    array, as many as fit in READ_GROUP_WORDS words (at least one)."""
    groups: list[tuple] = []
    scal = [(r, w) for r in rm.registers if r.array is None for w in range(r.words)]
    for k in range(0, len(scal), READ_GROUP_WORDS):
        groups.append(("words", scal[k:k + READ_GROUP_WORDS]))
    for a in rm.arrays:
        per = sum(r.words for r in a.registers)
        if per == 0:
            continue
        step = max(1, READ_GROUP_WORDS // per)
        for lo in range(0, a.count, step):
            groups.append(("entries", a, lo, min(a.count, lo + step)))
    return groups or [("words", [])]


def _decoded(r: Register, write: bool) -> bool:
    """Whether a register's words have select bits: every word for reads, not ro ones for writes."""
    return not write or r.access != "ro"


def _sel_layout(rm: RegMap, write: bool = False) -> tuple[dict, int]:
    """The decode's select bits, registered when an access starts (`bus_rd_sel_q`, or
    `bus_wr_sel_q` with write): {register name: (first, stride)} (word w of a scalar register at
    bit first + w; of entry i of an array register at first + i * stride + w) and the number of
    bits. Scalar words come first in register (read-group) order, then each array's entries, so
    every read group's bits are contiguous."""
    where, n = {}, 0
    for r in rm.registers:
        if r.array is None and _decoded(r, write):
            where[r.name] = (n, 0)
            n += r.words
    for a in rm.arrays:
        regs = [r for r in a.registers if _decoded(r, write)]
        per = sum(r.words for r in regs)
        j = 0
        for r in regs:
            where[r.name] = (n + j, per)
            j += r.words
        n += a.count * per
    return where, n


def _sel(rm: RegMap, r: Register, word: int, index: str | None, write: bool = False) -> str:
    """A word's select bit (index: the entry variable, for array registers)."""
    first, stride = _sel_layout(rm, write)[0][r.name]
    name = "bus_wr_sel_q" if write else "bus_rd_sel_q"
    if r.array is None:
        return f"{name}[{first + word}]"
    return f"{name}[{first + word} + {index} * {stride}]"


def _sel_block(rm: RegMap, write: bool) -> list[str]:
    """The always block that registers the select bits when an access starts."""
    rw = "wr" if write else "rd"
    _, nsel = _sel_layout(rm, write)
    L = []
    if nsel:
        L.append(_d("reg", f"[{nsel - 1}:0]", f"bus_{rw}_sel_q;"))
    L += ["    always @(posedge clk) begin", f"        if (bus_{rw}_start) begin"]
    for r in rm.registers:
        if r.array is None and _decoded(r, write):
            for w in range(r.words):
                L.append(f"            {_sel(rm, r, w, None, write)} <= bus_{rw}_start_byte == "
                         f"{_addr(rm, r, w, None)};")
    for a in rm.arrays:
        regs = [r for r in a.registers if r.words and _decoded(r, write)]
        if not regs:
            continue
        k = f"bus_{rw}_k"
        L.append(f"            for ({k} = 0; {k} < {a.count}; {k} = {k} + 1) begin")
        for r in regs:
            for w in range(r.words):
                L.append(f"                {_sel(rm, r, w, k, write)} <= "
                         f"bus_{rw}_start_byte == {_addr(rm, r, w, k)};")
        L.append("            end")
    L += ["        end", "    end"]
    return L


def ports(rm: RegMap) -> list[tuple[str, int, str]]:
    """(direction, width, name) of every port of the generated module, in order."""
    aw = rm.address_width
    P = [("input", 1, "clk"), ("input", 1, "rst"),
         ("input", aw, "s_axil_awaddr"), ("input", 1, "s_axil_awvalid"), ("output", 1, "s_axil_awready"),
         ("input", 32, "s_axil_wdata"), ("input", 4, "s_axil_wstrb"), ("input", 1, "s_axil_wvalid"),
         ("output", 1, "s_axil_wready"), ("output", 2, "s_axil_bresp"), ("output", 1, "s_axil_bvalid"),
         ("input", 1, "s_axil_bready"),
         ("input", aw, "s_axil_araddr"), ("input", 1, "s_axil_arvalid"), ("output", 1, "s_axil_arready"),
         ("output", 32, "s_axil_rdata"), ("output", 2, "s_axil_rresp"), ("output", 1, "s_axil_rvalid"),
         ("input", 1, "s_axil_rready")]
    for r in rm.registers:
        count = r.array.count if r.array else 1
        if r.access == "pulse":
            P.append(("output", count, f"{r.name}_wr"))
        for f in r.fields:
            if f.value is not None:
                continue
            if r.access in ("rw", "pulse"):
                P.append(("output", f.width * count, r.port(f)))
            elif r.access == "ro":
                P.append(("input", f.width * count, r.port(f)))
            else:
                P.append(("input", f.width * count, f"{r.port(f)}_set"))
    return P


def _declarations(rm: RegMap) -> list[str]:
    decls = []
    for r in rm.registers:
        count = r.array.count if r.array else 1

        def rng(w, count=count):
            return f"[{w * count - 1}:0]" if w * count > 1 else ""
        if r.access == "pulse":
            decls.append((rng(1), f"{r.name}_wr_q"))
        if r.access == "ro" and r.width == 64:
            decls.append((rng(32), f"{r.name}_hi_q"))
        for f in r.fields:
            if r.access in ("rw", "pulse", "w1c"):
                decls.append((rng(f.width), f"{r.port(f)}_q"))
    L = [_d("reg", rg, f"{name};") for rg, name in decls]
    assigns = []
    for r in rm.registers:
        if r.access == "pulse":
            assigns.append(f"{r.name}_wr")
        if r.access in ("rw", "pulse"):
            assigns += [r.port(f) for f in r.fields]
    if assigns:
        L.append("")
        L += [f"    assign {p} = {p}_q;" for p in assigns]
    return L


def _summary_rows(rm: RegMap) -> list[str]:
    rows = []
    for r in rm.registers:
        kind = "ro const" if r.constant else r.access
        where = f"0x{r.offset:0{hexdigits(rm)}x}"
        if r.array:
            where += f" + i*0x{r.array.stride:x} (i < {r.array.count})"
        rows.append((where, kind, r))
    w = max(len(x[0]) for x in rows) if rows else 0
    return [f"//   {where:<{w}}  {kind:<8} {r.width}  {r.name}" for where, kind, r in rows]


# The slave's ports, in its order, and the generated module's signal on each (None: same name).
_SLAVE_PINS = [
    "clk", "rst",
    "s_axil_awaddr", "s_axil_awvalid", "s_axil_awready", "s_axil_wdata", "s_axil_wstrb", "s_axil_wvalid",
    "s_axil_wready", "s_axil_bresp", "s_axil_bvalid", "s_axil_bready",
    "s_axil_araddr", "s_axil_arvalid", "s_axil_arready", "s_axil_rdata", "s_axil_rresp", "s_axil_rvalid",
    "s_axil_rready",
    ("reg_wr_start", "bus_wr_start"), ("reg_wr_start_addr", "bus_wr_start_addr"),
    ("reg_wr_en", "bus_wr_en"), ("reg_wr_addr", "bus_wr_addr"), ("reg_wr_data", "bus_wr_data"),
    ("reg_wr_strb", "bus_wr_strb"), ("reg_wr_hit", "bus_wr_hit"),
    ("reg_rd_start", "bus_rd_start"), ("reg_rd_start_addr", "bus_rd_start_addr"),
    ("reg_rd_en", "bus_rd_en"), ("reg_rd_addr", "bus_rd_addr"), ("reg_rd_data", "bus_rd_grp"),
    ("reg_rd_hit", "bus_rd_ghit"),
]


def render_verilog(rm: RegMap) -> str:
    aw = rm.address_width
    src = rel(rm.source)
    desc = [f"// {line}".rstrip() for line in wrap(rm.description, 96)]
    groups = _read_groups(rm)
    ng = len(groups)
    L = [
        f"// {rm.module}: AXI4-Lite register map of the {rm.name} block.",
        f"// Generated by `fastpath regs` from {src}; do not edit by hand.",
        *(["//", *desc] if desc else []),
        "//",
        f"// The bus protocol is the shared slave lib/rtl/{SLAVE}.v (instance bus_axil); this module",
        "// adds what the description decides: the address decode, the registers and a port per field.",
        "// A read's address is decoded into a select bit per word when the read starts (stage 0),",
        f"// and the words are ORed into {ng} group{'s' if ng > 1 else ''} of up to {READ_GROUP_WORDS} words "
        "when it is served (stage 1).",
        "//",
        f"// Registers (byte offset, access, width, name; {rm.size} bytes, {system(rm)}/docs/regs/{rm.name}.md):",
        *_summary_rows(rm),
        "//",
        f"// Latency:    read {READ_LATENCY} cycles: rvalid (with the data sampled in the cycle after the AR",
        f"//             handshake) rises {READ_LATENCY} cycles after the AR handshake when no earlier response",
        f"//             is waiting. Write {WRITE_LATENCY} cycles: the register and its port change, and bvalid",
        f"//             rises, {WRITE_LATENCY} cycles after the later of the AW and W handshakes when no earlier",
        "//             write response is waiting. Pulse strobes are high for that one cycle.",
        "// Throughput: one read and one write per cycle, independently, while rready/bready are high.",
        "//             All bus outputs come from flip-flops or from ready = !holding-register-full.",
        "// Bad input:  a read of an unmapped address returns 0 with SLVERR; a write to one changes",
        "//             nothing and is answered SLVERR. Address bits [1:0] are ignored (an access",
        "//             goes to its whole word); rw fields honour wstrb per byte; writes to ro and",
        "//             constant registers are ignored (OKAY); pulse registers read 0 (OKAY).",
        "// Parameters: none; the map is fixed by the description.",
        "`default_nettype none",
        "",
        f"module {rm.module} (",
    ]
    plist = [(d, f"[{w - 1}:0]" if w > 1 else "", n) for d, w, n in ports(rm)]
    width = max(len(p[1]) for p in plist)
    body = []
    for k, (d, rng, name) in enumerate(plist):
        if k in (2, 19):  # a blank line before the bus and before the register ports
            body.append("")
        body.append(f"    {d:<6} wire {rng:<{width}} {name}".rstrip() + ",")
    # the last port ends without a comma
    for i in range(len(body) - 1, -1, -1):
        if body[i]:
            body[i] = body[i][:-1]
            break
    L += body
    L += [");", ""]

    pins = [p if isinstance(p, tuple) else (p, p) for p in _SLAVE_PINS]
    pw = max(len(p) for p, _ in pins)
    L += [
        f"    // ---- Bus: {SLAVE} takes AW/W/AR into holding registers and answers B and R. A write",
        "    // starts in the cycle bus_wr_start is high: its address is decoded into the write select",
        "    // bits; it commits in the cycle bus_wr_en is high, when bus_wr_hit (the word is mapped)",
        "    // is decoded from stage 1's address register for the response.",
        "    // A read starts in the cycle bus_rd_start is high: its address is decoded into the read",
        "    // select bits (stage 0); it is served in the cycle bus_rd_en is high: the slave registers",
        "    // the groups (stage 1) and ORs them into its R register (stage 2). No comparator is",
        "    // between the address and a register's enable or the read data, and each group's",
        "    // register is placed beside the group's sources, so no wide OR tree converges on one",
        "    // spot. bus_*_addr are word addresses.",
        _d("wire", "", "bus_wr_start, bus_wr_en, bus_rd_start, bus_rd_en;"),
        _d("wire", f"[{aw - 3}:0]", "bus_wr_start_addr, bus_wr_addr, bus_rd_start_addr, bus_rd_addr;"),
        _d("wire", "[31:0]", "bus_wr_data;"),
        _d("wire", "[3:0]", "bus_wr_strb;"),
        _d("reg", "", "bus_wr_hit;"),
        _d("reg", f"[{ng * 32 - 1}:0]", "bus_rd_grp;"),
        _d("reg", f"[{ng - 1}:0]" if ng > 1 else "", "bus_rd_ghit;"),
    ] + ([_d("wire", "[31:0]", f"bus_wr_start_byte = {_byte_addr('bus_wr_start_addr', aw)};")]
         if _sel_layout(rm, True)[1] else
         ["    /* verilator lint_off UNUSEDSIGNAL */  // no writable word: nothing to decode at the start",
          _d("wire", "[31:0]", f"bus_wr_start_byte = {_byte_addr('bus_wr_start_addr', aw)};"),
          "    /* verilator lint_on UNUSEDSIGNAL */"]) + [
        _d("wire", "[31:0]", f"bus_wr_byte = {_byte_addr('bus_wr_addr', aw)};"),
        _d("wire", "[31:0]", f"bus_rd_start_byte = {_byte_addr('bus_rd_start_addr', aw)};"),
        "",
        f"    {SLAVE} #(",
        f"        .ADDR_WIDTH({aw}),",
        f"        .READ_GROUPS({ng})",
        "    ) bus_axil (",
    ]
    L += [f"        .{p:<{pw}} ({s})" + ("," if k < len(pins) - 1 else "") for k, (p, s) in enumerate(pins)]
    L += ["    );", ""]

    # what follows uses the bus signals; those it does not use are collected in `unused`
    D = ["    // ---- Registers", *_declarations(rm)]
    if any(r.access == "rw" for r in rm.registers):
        D += ["    // rw registers load the write data a cycle after the commit, with their lanes'",
              "    // registered enables (the update lands with bvalid, before any later read samples it).",
              "    reg  [31:0] bus_wr_data_q;",
              "    always @(posedge clk) begin",
              "        bus_wr_data_q <= bus_wr_data;",
              "    end"]
    for r in rm.registers:
        if r.array is None and not (r.access == "ro" and r.width == 32):
            D += ["", f"    // {r.name} ({r.access}, {r.width}-bit) at 0x{r.offset:x}"]
            D += _reg_logic(rm, r, None, "    ")
    if rm.arrays:
        D += ["", "    genvar i;"]
        for a in rm.arrays:
            body = []
            for r in a.registers:
                lg = _reg_logic(rm, r, "i", "            ")
                if lg:
                    body += ["", f"            // {r.name} ({r.access}, {r.width}-bit)"] + lg
            if not body:
                continue
            D += ["", f"    // {a.name}: {a.count} entries at 0x{a.offset:x}, stride 0x{a.stride:x};"
                      f" entry i at bits [i*W +: W] of each port",
                  "    generate",
                  f"        for (i = 0; i < {a.count}; i = i + 1) begin : g_{a.name}"]
            D += body[1:]
            D += ["        end", "    endgenerate"]
    D += _decode(rm, groups)
    L += D

    used = "\n".join(D)
    unused = [s for s in ("bus_wr_en", "bus_wr_data", "bus_wr_strb", "bus_wr_addr", "bus_rd_start",
                          "bus_rd_en", "bus_rd_start_byte", "bus_rd_addr")
              if not re.search(rf"\b{s}\b", used)]
    if unused:
        L += ["", "    // Bus signals this map has no use for.",
              f"    wire unused = &{{1'b0, {', '.join(unused)}}};"]
    L += ["", "endmodule", "", "`default_nettype wire", ""]
    return "\n".join(L)


def _decode(rm: RegMap, groups: list[tuple]) -> list[str]:
    """The read decode (stage 0: a select bit per word), the read data of every group (stage 1's
    inputs: an AND-OR of the words with their select bits) and the write hit."""
    ng = len(groups)
    where, _ = _sel_layout(rm)
    L = ["", "    // ---- Access decode: one select bit per word, set when a read (write) of that word starts;",
         "    // the addresses are distinct, so at most one bit is set. The write hit is registered too."]
    if rm.arrays:
        L.append("    integer bus_rd_k, bus_wr_k;")
    L += _sel_block(rm, write=False) + _sel_block(rm, write=True)
    L += ["", "    // ---- Read data (stage 1's inputs): per group, the OR of its words ANDed with their select",
          "    // bits (a balanced tree of a few LUT levels, no comparator), and the group's hit bit",
          "    always @* begin", f"        bus_rd_grp  = {ng * 32}'d0;", f"        bus_rd_ghit = {ng}'d0;"]

    def gsl(g):
        return f"bus_rd_grp[{32 * g + 31}:{32 * g}]"

    def hsl(g):
        return f"bus_rd_ghit[{g}]" if ng > 1 else "bus_rd_ghit"

    def bits(lo, hi):
        return f"bus_rd_sel_q[{lo}]" if hi == lo + 1 else f"|bus_rd_sel_q[{hi - 1}:{lo}]"

    scal = [(g, r, w) for g, grp in enumerate(groups) if grp[0] == "words" for r, w in grp[1]]
    for g, grp in enumerate(groups):
        if grp[0] == "words":
            if not grp[1]:
                continue
            idx = [where[r.name][0] + w for r, w in grp[1]]
            L.append(f"        {hsl(g)} = {bits(min(idx), max(idx) + 1)};")
            for r, w in grp[1]:
                L.append(f"        {gsl(g)} = {gsl(g)} | ({{32{{{_sel(rm, r, w, None)}}}}} & {_read_expr(r, w, None)});")
        else:
            _, a, lo, hi = grp
            base, per = where[a.registers[0].name]   # an "entries" group's array has words
            L.append(f"        {hsl(g)} = {bits(base + lo * per, base + hi * per)};")
            L.append(f"        for (bus_rd_k = {lo}; bus_rd_k < {hi}; bus_rd_k = bus_rd_k + 1) begin")
            for r in a.registers:
                for w in range(r.words):
                    L.append(f"            {gsl(g)} = {gsl(g)} | ({{32{{{_sel(rm, r, w, 'bus_rd_k')}}}}} & "
                             f"{_read_expr(r, w, 'bus_rd_k')});")
            L.append("        end")
    L += ["    end", "", "    always @* begin", "        bus_wr_hit = 1'b0;"]
    if scal:
        L.append("        case (bus_wr_byte)")
        addrs = [_addr(rm, r, w, None) for _, r, w in scal]
        for k in range(0, len(addrs), 4):
            sep = "," if k + 4 < len(addrs) else ": bus_wr_hit = 1'b1;"
            L.append("            " + ", ".join(addrs[k:k + 4]) + sep)
        L += ["            default: ;", "        endcase"]
    for a in rm.arrays:
        L.append(f"        for (bus_wr_k = 0; bus_wr_k < {a.count}; bus_wr_k = bus_wr_k + 1) begin")
        for r in a.registers:
            for w in range(r.words):
                L.append(f"            if (bus_wr_byte == {_addr(rm, r, w, 'bus_wr_k')}) bus_wr_hit = 1'b1;")
        L.append("        end")
    L.append("    end")
    return L


def _d(kind: str, rng: str, rest: str) -> str:
    """A declaration with its name in a fixed column."""
    return f"    {kind:<4} {rng:<11} {rest}"


def _byte_addr(sig: str, aw: int) -> str:
    """{zeros, sig, 2'b00}: the byte address of word address `sig` ([aw-3:0]), 32 bits wide."""
    if aw == 32:
        return f"{{{sig}, 2'b00}}"
    return f"{{{32 - aw}'d0, {sig}, 2'b00}}"
