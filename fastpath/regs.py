"""Register maps: one description per core, from which the RTL, the C header and the docs are made.

A core's AXI4-Lite register map is described once, in `<name>.regs.toml` beside its RTL (the
format is in docs/registers.md). `fastpath regs` (`write_all()`) renders, for every description
under rtl/:

    rtl/<area>/<name>_regs.v               the AXI4-Lite slave: decode, registers, one port per field
    host/include/fastpath/regs/<name>.h    offsets, fields and static inline accessors for C
    docs/regs/<name>.md                    the register tables

tests/test_regs.py checks the committed files equal fresh renders, so they never drift from the
description. Python (cocotb tests, host tools) reads the description directly:
`load(name)` -> `RegMap`, and `RegClient(regmap, axil_master)` reads and writes registers by name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore

from .paths import ROOT, RTL

ACCESS = ("rw", "ro", "w1c", "pulse")
HOST_INCLUDE = ROOT / "host" / "include" / "fastpath" / "regs"
DOCS = ROOT / "docs" / "regs"

# The bus behaviour every generated slave has (stated in its header, the docs and asserted by
# tb/lib/test_regs_generated.py).
READ_LATENCY = 2
WRITE_LATENCY = 1
# Words ORed into one first-stage register of the read tree (see render_verilog).
READ_GROUP_WORDS = 16
RESP_OKAY = 0
RESP_SLVERR = 2
UNMAPPED_READ_VALUE = 0

_IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
_VERILOG_KEYWORDS = set("""
always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config deassign
default defparam design disable edge else end endcase endconfig endfunction endgenerate endmodule
endprimitive endspecify endtable endtask event for force forever fork function generate genvar
highz0 highz1 if ifnone incdir include initial inout input instance integer join large liblist
library localparam macromodule medium module nand negedge nmos nor noshowcancelled not notif0
notif1 or output parameter pmos posedge primitive pull0 pull1 pulldown pullup pulsestyle_onevent
pulsestyle_ondetect rcmos real realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1
scalared showcancelled signed small specify specparam strong0 strong1 supply0 supply1 table task
time tran tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned use uwire vectored wait wand
weak0 weak1 while wire wor xnor xor logic bit byte int shortint longint interface
""".split())
_RESERVED_PORTS = {"clk", "rst", "unused"}


class RegsError(ValueError):
    """A register description is invalid; the message names the file and the register."""


class RegBusError(RuntimeError):
    """An AXI4-Lite access answered with a response other than OKAY."""


@dataclass
class Field:
    name: str
    lsb: int
    width: int
    reset: int = 0  # rw: value after reset
    value: int | None = None  # ro: a constant (no port)
    description: str = ""

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def mask(self) -> int:
        """The field's bits in register position."""
        return ((1 << self.width) - 1) << self.lsb

    @property
    def bits(self) -> str:
        return f"{self.msb}:{self.lsb}" if self.width > 1 else str(self.lsb)


@dataclass
class Array:
    name: str
    offset: int
    count: int
    stride: int
    description: str = ""
    registers: list = dc_field(default_factory=list)


@dataclass
class Register:
    name: str  # full name; registers of an array are named <array>_<register>
    offset: int  # byte offset (of entry 0 for a register of an array)
    access: str
    width: int  # 32 or 64
    fields: list
    description: str = ""
    implicit: bool = False  # no fields declared: one field, named as the register, all its bits
    array: Array | None = None

    @property
    def words(self) -> int:
        return self.width // 32

    @property
    def reset(self) -> int:
        """The value the register reads after reset (ro inputs read as 0 here)."""
        v = 0
        for f in self.fields:
            if self.access == "rw":
                v |= f.reset << f.lsb
            elif f.value is not None:
                v |= f.value << f.lsb
        return v

    @property
    def constant(self) -> bool:
        return self.access == "ro" and all(f.value is not None for f in self.fields)

    def port(self, f: Field) -> str:
        """The RTL port carrying field f (for w1c the set input adds `_set`)."""
        return self.name if self.implicit else f"{self.name}_{f.name}"

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"register {self.name} has no field {name!r} "
                       f"(fields: {', '.join(f.name for f in self.fields)})")


@dataclass
class RegMap:
    name: str
    description: str
    address_width: int
    registers: list  # every register, arrays' included, by offset
    arrays: list
    source: Path | None = None

    @property
    def size(self) -> int:
        return 1 << self.address_width

    @property
    def module(self) -> str:
        return f"{self.name}_regs"

    def register(self, name: str) -> Register:
        for r in self.registers:
            if r.name == name:
                return r
        raise KeyError(f"{self.name} has no register {name!r}")

    def offset(self, reg: str, index: int | None = None) -> int:
        """Byte offset of a register; `index` selects the entry of an array's register."""
        r = self.register(reg)
        if r.array is None:
            if index not in (None, 0):
                raise IndexError(f"{self.name}.{reg} is not in an array")
            return r.offset
        if index is None or not 0 <= index < r.array.count:
            raise IndexError(f"{self.name}.{reg}: index must be 0..{r.array.count - 1}, got {index}")
        return r.offset + index * r.array.stride

    def field(self, reg: str, name: str) -> Field:
        return self.register(reg).field(name)

    def encode(self, reg: str, value: int | None = None, **fields: int) -> int:
        """A register value from a whole value, or from fields (the others take their reset)."""
        r = self.register(reg)
        if value is not None and fields:
            raise ValueError("give a value or fields, not both")
        if value is not None:
            if not 0 <= value < (1 << r.width):
                raise ValueError(f"{reg}: value {value:#x} does not fit {r.width} bits")
            return value
        if not fields:
            raise ValueError("give a value or fields")
        v = r.reset if r.access == "rw" else 0
        for name, fv in fields.items():
            f = r.field(name)
            if not 0 <= fv < (1 << f.width):
                raise ValueError(f"{reg}.{name}: {fv:#x} does not fit {f.width} bits")
            v = (v & ~f.mask) | (fv << f.lsb)
        return v

    def decode(self, reg: str, value: int) -> dict:
        r = self.register(reg)
        return {f.name: (value >> f.lsb) & ((1 << f.width) - 1) for f in r.fields}

    def words(self) -> dict:
        """Every mapped 32-bit word: byte address -> (register, entry index or None, word 0/1)."""
        out = {}
        for r in self.registers:
            entries = range(r.array.count) if r.array else [None]
            for i in entries:
                base = self.offset(r.name, i)
                for w in range(r.words):
                    out[base + 4 * w] = (r, i, w)
        return out


# --------------------------------------------------------------------------------------------
# Loading and checking a description


def descriptions() -> list[Path]:
    """Every `*.regs.toml` under rtl/."""
    return sorted(RTL.rglob("*.regs.toml"))


def generated_modules() -> set[str]:
    """Names of the RTL modules generated from descriptions (each is tested by
    tb/lib/test_regs_generated.py)."""
    return {f"{_stem(p)}_regs" for p in descriptions()}


def _stem(path: Path) -> str:
    return path.name[: -len(".regs.toml")]


def load(name: str) -> RegMap:
    """The register map `name`, from rtl/**/<name>.regs.toml."""
    found = [p for p in descriptions() if _stem(p) == name]
    if not found:
        raise RegsError(f"no register description {name}.regs.toml under {RTL}")
    if len(found) > 1:
        raise RegsError(f"{name}.regs.toml found twice: {found}")
    return load_file(found[0])


def load_file(path: Path | str, _including: tuple = ()) -> RegMap:
    path = Path(path)
    if not path.name.endswith(".regs.toml"):
        raise RegsError(f"{path}: a register description is named <name>.regs.toml")
    try:
        with open(path, "rb") as fh:
            doc = tomllib.load(fh)
    except tomllib.TOMLDecodeError as e:
        raise RegsError(f"{path}: {e}") from None
    return parse(doc, str(path), expect_name=_stem(path), source=path, _including=_including)


def loads(text: str, where: str = "<string>") -> RegMap:
    """A register map from TOML text (tests, examples)."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RegsError(f"{where}: {e}") from None
    return parse(doc, where)


def _keys(table: dict, allowed: set, where: str) -> None:
    extra = set(table) - allowed
    if extra:
        raise RegsError(f"{where}: unknown key(s) {', '.join(sorted(extra))} "
                        f"(allowed: {', '.join(sorted(allowed))})")


def _ident(name, what: str, where: str) -> str:
    if not isinstance(name, str) or not _IDENT.match(name):
        raise RegsError(f"{where}: {what} name {name!r} must be lower-case letters, digits and _, "
                        "starting with a letter")
    if name in _VERILOG_KEYWORDS:
        raise RegsError(f"{where}: {what} name {name!r} is a Verilog keyword")
    return name


def _int(v, what: str, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RegsError(f"{where}: {what} must be an integer, got {v!r}")
    if v < lo or (hi is not None and v > hi):
        raise RegsError(f"{where}: {what} {v:#x} out of range {lo:#x}..{hi:#x}")
    return v


def _bits(v, width: int, where: str) -> tuple[int, int]:
    """`bits = 3` or "3" or "15:8" -> (lsb, width)."""
    if isinstance(v, int) and not isinstance(v, bool):
        msb = lsb = v
    elif isinstance(v, str) and re.fullmatch(r"\s*\d+\s*(:\s*\d+\s*)?", v):
        parts = [int(p) for p in v.split(":")]
        msb, lsb = (parts[0], parts[-1])
    else:
        raise RegsError(f"{where}: bits must be N or \"MSB:LSB\", got {v!r}")
    if msb < lsb:
        raise RegsError(f"{where}: bits \"{msb}:{lsb}\": MSB must not be below LSB")
    if msb >= width:
        raise RegsError(f"{where}: bits {msb}:{lsb} outside the {width}-bit register")
    return lsb, msb - lsb + 1


def _parse_field(t: dict, access: str, width: int, where: str) -> Field:
    _keys(t, {"name", "bits", "reset", "value", "description"}, where)
    if "name" not in t or "bits" not in t:
        raise RegsError(f"{where}: a field needs a name and bits")
    name = _ident(t["name"], "field", where)
    where = f"{where} ({name})"
    lsb, w = _bits(t["bits"], width, where)
    top = (1 << w) - 1
    reset = _int(t.get("reset", 0), "reset", where, 0, top)
    if reset and access != "rw":
        raise RegsError(f"{where}: reset applies to rw fields only ({access} fields reset to 0)")
    value = None
    if "value" in t:
        if access != "ro":
            raise RegsError(f"{where}: value (a constant) applies to ro fields only")
        value = _int(t["value"], "value", where, 0, top)
    return Field(name, lsb, w, reset, value, str(t.get("description", "")))


def _parse_register(t: dict, where: str) -> Register:
    _keys(t, {"name", "offset", "access", "width", "reset", "value", "description", "field"}, where)
    for k in ("name", "offset", "access"):
        if k not in t:
            raise RegsError(f"{where}: a register needs {k}")
    name = _ident(t["name"], "register", where)
    where = f"{where} register {name}"
    access = t["access"]
    if access == "rc":
        raise RegsError(f"{where}: access 'rc' (clear on read) is not supported: a read with a side "
                        "effect is lost to a debugger's or a retried read; use a free-running 'ro' "
                        "counter (software takes differences) or 'w1c' sticky bits")
    if access in ("wo", "wp"):
        access = "pulse"
    if access not in ACCESS:
        raise RegsError(f"{where}: access {access!r} must be one of {', '.join(ACCESS)}")
    width = t.get("width", 32)
    if width not in (32, 64):
        raise RegsError(f"{where}: width must be 32 or 64, got {width!r}")
    if width == 64 and access not in ("rw", "ro"):
        raise RegsError(f"{where}: 64-bit registers must be rw or ro")
    offset = _int(t["offset"], "offset", where)
    if offset % 4:
        raise RegsError(f"{where}: offset {offset:#x} is misaligned (must be a multiple of 4)")
    if width == 64 and offset % 8:
        raise RegsError(f"{where}: offset {offset:#x} is misaligned (a 64-bit register must be at a "
                        "multiple of 8: low word first, high word at offset + 4)")
    fields_t = t.get("field", [])
    if fields_t:
        for k in ("reset", "value"):
            if k in t:
                raise RegsError(f"{where}: with fields, give {k} per field")
        fields = [_parse_field(f, access, width, f"{where} field") for f in fields_t]
        implicit = False
    else:
        ft = {"name": name, "bits": f"{width - 1}:0", "description": t.get("description", "")}
        for k in ("reset", "value"):
            if k in t:
                ft[k] = t[k]
        fields = [_parse_field(ft, access, width, where)]
        implicit = True
    seen: dict = {}
    for f in fields:
        if f.name in seen:
            raise RegsError(f"{where}: duplicate field {f.name}")
        for o in seen.values():
            if f.lsb <= o.msb and o.lsb <= f.msb:
                raise RegsError(f"{where}: field {f.name} [{f.bits}] overlaps field {o.name} [{o.bits}]")
        seen[f.name] = f
    return Register(name, offset, access, width, fields, str(t.get("description", "")), implicit)


def parse(doc: dict, where: str, expect_name: str | None = None, source: Path | None = None,
          _including: tuple = ()) -> RegMap:
    _keys(doc, {"block", "register", "array", "include"}, where)
    block = doc.get("block")
    if not isinstance(block, dict):
        raise RegsError(f"{where}: needs a [block] table (name, description, address_width)")
    _keys(block, {"name", "description", "address_width"}, f"{where} [block]")
    name = _ident(block.get("name"), "block", f"{where} [block]")
    if expect_name is not None and name != expect_name:
        raise RegsError(f"{where}: block name {name!r} must match the file name ({expect_name}.regs.toml)")
    if "address_width" not in block:
        raise RegsError(f"{where} [block]: needs address_width (bits of byte address)")
    aw = _int(block["address_width"], "address_width", f"{where} [block]", 3, 32)

    regs: list[Register] = []
    arrays: list[Array] = []
    for t in doc.get("register", []):
        regs.append(_parse_register(t, where))
    for t in doc.get("array", []):
        aw_where = f"{where} array {t.get('name')!r}"
        _keys(t, {"name", "offset", "count", "stride", "description", "register"}, aw_where)
        for k in ("name", "offset", "count", "stride", "register"):
            if k not in t:
                raise RegsError(f"{aw_where}: an array needs {k}")
        a = Array(_ident(t["name"], "array", aw_where), _int(t["offset"], "offset", aw_where),
                  _int(t["count"], "count", aw_where, 1, 4096), _int(t["stride"], "stride", aw_where, 4),
                  str(t.get("description", "")))
        if a.offset % 4 or a.stride % 4:
            raise RegsError(f"{aw_where}: offset {a.offset:#x} and stride {a.stride:#x} must be "
                            "multiples of 4 (misaligned)")
        for rt in t["register"]:
            r = _parse_register(rt, aw_where)
            if r.width == 64 and (a.stride % 8 or a.offset % 8):
                raise RegsError(f"{aw_where}: a 64-bit register needs the array's offset and stride to "
                                "be multiples of 8 (misaligned)")
            if r.offset + r.width // 8 > a.stride:
                raise RegsError(f"{aw_where} register {r.name}: offset {r.offset:#x} + {r.width // 8} "
                                f"bytes does not fit in the stride {a.stride:#x}")
            r.name = f"{a.name}_{r.name}"
            r.offset += a.offset
            r.array = a
            a.registers.append(r)
            regs.append(r)
        arrays.append(a)

    for t in doc.get("include", []):
        inc_where = f"{where} include {t.get('block')!r}"
        _keys(t, {"block", "offset", "values"}, inc_where)
        blk = t.get("block")
        if blk in _including or blk == name:
            raise RegsError(f"{inc_where}: includes itself")
        offset = _int(t.get("offset", 0), "offset", inc_where)
        if offset % 8:
            raise RegsError(f"{inc_where}: offset {offset:#x} must be a multiple of 8 (misaligned)")
        found = [p for p in descriptions() if _stem(p) == blk]
        if len(found) != 1:
            raise RegsError(f"{inc_where}: no description {blk}.regs.toml under {RTL}")
        sub = load_file(found[0], _including + (name,))
        values = t.get("values", {})
        for rname, v in values.items():
            try:
                r = sub.register(rname)
            except KeyError:
                raise RegsError(f"{inc_where}: values: {blk} has no register {rname!r}") from None
            if not r.constant:
                raise RegsError(f"{inc_where}: values: {rname} is not a constant ro register")
            _int(v, f"values.{rname}", inc_where, 0, (1 << r.width) - 1)
            known = sum(f.mask for f in r.fields)
            if v & ~known:
                raise RegsError(f"{inc_where}: values.{rname} {v:#x} sets bits outside its fields")
            for f in r.fields:
                f.value = (v >> f.lsb) & ((1 << f.width) - 1)
        for a in sub.arrays:
            a.offset += offset
            arrays.append(a)
        for r in sub.registers:
            r.offset += offset
            regs.append(r)

    rm = RegMap(name, str(block.get("description", "")), aw, sorted(regs, key=lambda r: r.offset),
                arrays, source)
    _check(rm, where)
    return rm


def _check(rm: RegMap, where: str) -> None:
    names: dict = {}
    for r in rm.registers:
        if r.name in names:
            raise RegsError(f"{where}: duplicate register {r.name}")
        names[r.name] = r
    for a in rm.arrays:
        if a.name in names:
            raise RegsError(f"{where}: array {a.name} has the name of a register")
    words: dict = {}
    for r in rm.registers:
        entries = range(r.array.count) if r.array else [None]
        for i in entries:
            base = r.offset + (i or 0) * (r.array.stride if r.array else 0)
            for w in range(r.words):
                addr = base + 4 * w
                if addr + 4 > rm.size:
                    raise RegsError(f"{where}: register {r.name} at {addr:#x} is outside the "
                                    f"{rm.size:#x}-byte window (address_width {rm.address_width})")
                if addr in words:
                    o, oi = words[addr]
                    what = f"{r.name}" + (f"[{i}]" if i is not None else "")
                    other = f"{o.name}" + (f"[{oi}]" if oi is not None else "")
                    raise RegsError(f"{where}: register {what} overlaps {other} at {addr:#x}")
                words[addr] = (r, i)
    ports: dict = {}
    for r in rm.registers:
        for p in _port_names(r):
            if p in _RESERVED_PORTS or p.startswith(("s_axil_", "bus_")):
                raise RegsError(f"{where}: register {r.name} makes port {p}, a reserved name")
            if p in ports:
                raise RegsError(f"{where}: port {p} made by both {ports[p]} and {r.name}; rename one")
            ports[p] = r.name


def _port_names(r: Register) -> list[str]:
    """Every identifier the RTL declares for register r (ports and their internal registers)."""
    out = []
    if r.access == "pulse":
        out += [f"{r.name}_wr", f"{r.name}_wr_q"]
    if r.access == "ro" and r.width == 64:
        out.append(f"{r.name}_hi_q")
    for f in r.fields:
        p = r.port(f)
        if r.access == "ro" and f.value is not None:
            continue
        if r.access == "w1c":
            out += [f"{p}_set", f"{p}_q", f"{p}_clr"]
        elif r.access == "ro":
            out.append(p)
        else:
            out += [p, f"{p}_q"]
    return out


# --------------------------------------------------------------------------------------------
# Verilog


def _hex(v: int, width: int) -> str:
    return f"{width}'h{v:0{(width + 3) // 4}x}"


def _addr(rm: RegMap, r: Register, word: int, index: str | None) -> str:
    """The byte address of a register word as a 32-bit expression (index: entry variable)."""
    if r.array is None:
        return f"32'h{r.offset + 4 * word:0{_hexdigits(rm)}x}"
    a = r.array
    return (f"32'h{a.offset:0{_hexdigits(rm)}x} + {index} * 32'h{a.stride:x} + "
            f"32'h{r.offset - a.offset + 4 * word:x}")


def _hexdigits(rm: RegMap) -> int:
    return max(3, (rm.address_width + 3) // 4)


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
            L.append(f"{ind}wire {sel} = bus_wr_en && bus_wr_byte == {_addr(rm, r, w, index)};")
    if r.access == "rw":
        L.append(f"{ind}always @(posedge clk) begin")
        L.append(f"{ind}    if (rst) begin")
        for f in r.fields:
            q = _slice(f"{r.port(f)}_q", f.width, f.width - 1, 0, count, index)
            L.append(f"{ind}        {q} <= {_hex(f.reset, f.width)};")
        L.append(f"{ind}    end else begin")
        for f in r.fields:
            for word, lane, fhi, flo, dhi, dlo in _lanes(r, f):
                q = _slice(f"{r.port(f)}_q", f.width, fhi, flo, count, index)
                d = f"bus_wr_data[{dhi}:{dlo}]" if dhi != dlo else f"bus_wr_data[{dhi}]"
                L.append(f"{ind}        if ({_wr_sel(r, word, index)} && bus_wr_strb[{lane}]) {q} <= {d};")
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
        L.append(f"{ind}    end else if (bus_rd_en && bus_rd_byte == {_addr(rm, r, 0, index)}) begin")
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
        where = f"0x{r.offset:0{_hexdigits(rm)}x}"
        if r.array:
            where += f" + i*0x{r.array.stride:x} (i < {r.array.count})"
        rows.append((where, kind, r))
    w = max(len(x[0]) for x in rows) if rows else 0
    return [f"//   {where:<{w}}  {kind:<8} {r.width}  {r.name}" for where, kind, r in rows]


def render_verilog(rm: RegMap) -> str:
    aw = rm.address_width
    src = _rel(rm.source)
    desc = [f"// {line}".rstrip() for line in _wrap(rm.description, 96)]
    L = [
        f"// {rm.module}: AXI4-Lite register map of the {rm.name} block.",
        f"// Generated by `fastpath regs` from {src}; do not edit by hand.",
        *(["//", *desc] if desc else []),
        "//",
        f"// Registers (byte offset, access, width, name; {rm.size} bytes, docs/regs/{rm.name}.md):",
        *_summary_rows(rm),
        "//",
        f"// Latency:    read {READ_LATENCY} cycles: rvalid (with the data sampled at the AR handshake) rises",
        f"//             {READ_LATENCY} cycles after the AR handshake when no earlier response is waiting.",
        f"//             write {WRITE_LATENCY} cycle: the register and its port change, and bvalid rises,",
        f"//             {WRITE_LATENCY} cycle after the later of the AW and W handshakes, once the previous",
        "//             write response is taken. Pulse strobes are high for that one cycle.",
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

    hasarr = bool(rm.arrays)
    groups = _read_groups(rm)
    ng = len(groups)
    L += [
        "    localparam [1:0] RESP_OKAY = 2'b00, RESP_SLVERR = 2'b10;",
        "",
        "    // ---- Write channel: AW and W are taken in any order; each waits in a holding register",
        "    // until the other has come and the previous response is taken (B free).",
        _d("reg", "", "bus_aw_held_q, bus_w_held_q, bus_b_valid_q;"),
        _d("reg", f"[{aw - 1}:0]", "bus_aw_addr_q;"),
        _d("reg", "[31:0]", "bus_w_data_q;"),
        _d("reg", "[3:0]", "bus_w_strb_q;"),
        _d("reg", "[1:0]", "bus_b_resp_q;"),
        _d("reg", "", "bus_wr_hit;"),
        "",
        _d("wire", "", "bus_b_free  = !bus_b_valid_q || s_axil_bready;"),
        _d("wire", "", "bus_wr_en   = (bus_aw_held_q || s_axil_awvalid) &&"),
        "                                   (bus_w_held_q || s_axil_wvalid) && bus_b_free;",
        _d("wire", f"[{aw - 1}:0]", "bus_wr_addr = bus_aw_held_q ? bus_aw_addr_q : s_axil_awaddr;"),
        _d("wire", "[31:0]", "bus_wr_data = bus_w_held_q ? bus_w_data_q : s_axil_wdata;"),
        _d("wire", "[3:0]", "bus_wr_strb = bus_w_held_q ? bus_w_strb_q : s_axil_wstrb;"),
        _d("wire", "[31:0]", f"bus_wr_byte = {_word_addr('bus_wr_addr', aw)};"),
        "",
        "    assign s_axil_awready = !bus_aw_held_q;",
        "    assign s_axil_wready  = !bus_w_held_q;",
        "    assign s_axil_bvalid  = bus_b_valid_q;",
        "    assign s_axil_bresp   = bus_b_resp_q;",
        "",
        "    always @(posedge clk) begin",
        "        if (!bus_aw_held_q) bus_aw_addr_q <= s_axil_awaddr;",
        "        if (!bus_w_held_q) begin",
        "            bus_w_data_q <= s_axil_wdata;",
        "            bus_w_strb_q <= s_axil_wstrb;",
        "        end",
        "        if (bus_wr_en) bus_b_resp_q <= bus_wr_hit ? RESP_OKAY : RESP_SLVERR;",
        "        if (rst) begin",
        "            bus_aw_held_q <= 1'b0;",
        "            bus_w_held_q  <= 1'b0;",
        "            bus_b_valid_q <= 1'b0;",
        "        end else begin",
        "            if (bus_wr_en) begin",
        "                bus_aw_held_q <= 1'b0;",
        "                bus_w_held_q  <= 1'b0;",
        "            end else begin",
        "                if (s_axil_awvalid) bus_aw_held_q <= 1'b1;",
        "                if (s_axil_wvalid) bus_w_held_q <= 1'b1;",
        "            end",
        "            if (bus_wr_en) bus_b_valid_q <= 1'b1;",
        "            else if (s_axil_bready) bus_b_valid_q <= 1'b0;",
        "        end",
        "    end",
        "",
        "    // ---- Read channel, two stages. A read is served (its data sampled) when its address",
        "    // enters stage 1: the words are ORed in groups of up to "
        f"{READ_GROUP_WORDS}"
        " (an array's entries stay",
        "    // together), each group into a register of its own that the placer puts beside the group's",
        "    // sources; stage 2 ORs the groups into the R register. No wide tree converges on one spot.",
        _d("reg", "", "bus_ar_held_q, bus_r_valid_q, bus_p1_valid_q;"),
        _d("reg", f"[{aw - 1}:0]", "bus_ar_addr_q;"),
        _d("reg", "[31:0]", "bus_r_data_q;"),
        _d("reg", "[1:0]", "bus_r_resp_q;"),
        _d("reg", f"[{ng * 32 - 1}:0]", "bus_rd_grp, bus_rd_grp_q;"),
        _d("reg", f"[{ng - 1}:0]" if ng > 1 else "", "bus_rd_ghit, bus_rd_ghit_q;"),
        _d("reg", "[31:0]", "bus_rd_data;"),
        "",
        _d("wire", "", "bus_rd_adv  = bus_p1_valid_q && (!bus_r_valid_q || s_axil_rready);"),
        _d("wire", "", "bus_rd_en   = (bus_ar_held_q || s_axil_arvalid) &&"),
        "                                   (!bus_p1_valid_q || bus_rd_adv);",
        _d("wire", f"[{aw - 1}:0]", "bus_rd_addr = bus_ar_held_q ? bus_ar_addr_q : s_axil_araddr;"),
        _d("wire", "[31:0]", f"bus_rd_byte = {_word_addr('bus_rd_addr', aw)};"),
        _d("wire", "", "bus_rd_hit  = |bus_rd_ghit_q;"),
        "",
        "    assign s_axil_arready = !bus_ar_held_q;",
        "    assign s_axil_rvalid  = bus_r_valid_q;",
        "    assign s_axil_rdata   = bus_r_data_q;",
        "    assign s_axil_rresp   = bus_r_resp_q;",
        "",
        "    always @(posedge clk) begin",
        "        if (!bus_ar_held_q) bus_ar_addr_q <= s_axil_araddr;",
        "        if (bus_rd_en) begin",
        "            bus_rd_grp_q  <= bus_rd_grp;",
        "            bus_rd_ghit_q <= bus_rd_ghit;",
        "        end",
        "        if (bus_rd_adv) begin",
        f"            bus_r_data_q <= bus_rd_hit ? bus_rd_data : 32'd{UNMAPPED_READ_VALUE};",
        "            bus_r_resp_q <= bus_rd_hit ? RESP_OKAY : RESP_SLVERR;",
        "        end",
        "        if (rst) begin",
        "            bus_ar_held_q  <= 1'b0;",
        "            bus_p1_valid_q <= 1'b0;",
        "            bus_r_valid_q  <= 1'b0;",
        "        end else begin",
        "            if (bus_rd_en) bus_ar_held_q <= 1'b0;",
        "            else if (s_axil_arvalid) bus_ar_held_q <= 1'b1;",
        "            if (bus_rd_en) bus_p1_valid_q <= 1'b1;",
        "            else if (bus_rd_adv) bus_p1_valid_q <= 1'b0;",
        "            if (bus_rd_adv) bus_r_valid_q <= 1'b1;",
        "            else if (s_axil_rready) bus_r_valid_q <= 1'b0;",
        "        end",
        "    end",
        "",
        "    // ---- Registers",
        *_declarations(rm),
    ]
    for r in rm.registers:
        if r.array is None and not (r.access == "ro" and r.width == 32):
            L += ["", f"    // {r.name} ({r.access}, {r.width}-bit) at 0x{r.offset:x}"]
            L += _reg_logic(rm, r, None, "    ")
    if hasarr:
        L += ["", "    genvar i;"]
        for a in rm.arrays:
            body = []
            for r in a.registers:
                lg = _reg_logic(rm, r, "i", "            ")
                if lg:
                    body += ["", f"            // {r.name} ({r.access}, {r.width}-bit)"] + lg
            if not body:
                continue
            L += ["", f"    // {a.name}: {a.count} entries at 0x{a.offset:x}, stride 0x{a.stride:x};"
                      f" entry i at bits [i*W +: W] of each port",
                  "    generate",
                  f"        for (i = 0; i < {a.count}; i = i + 1) begin : g_{a.name}"]
            L += body[1:]
            L += ["        end", "    endgenerate"]

    # read data (stage 1: the groups; stage 2: their OR) and write hit
    L += ["", "    // ---- Read data (stage 1: one OR per group of words) and address decode"]
    if hasarr:
        L.append("    integer bus_rd_k, bus_wr_k;")
    L += ["    always @* begin", f"        bus_rd_grp  = {ng * 32}'d0;", f"        bus_rd_ghit = {ng}'d0;"]

    def gsl(g):
        return f"bus_rd_grp[{32 * g + 31}:{32 * g}]"

    def hsl(g):
        return f"bus_rd_ghit[{g}]" if ng > 1 else "bus_rd_ghit"

    scal = [(g, r, w) for g, grp in enumerate(groups) if grp[0] == "words" for r, w in grp[1]]
    if scal:
        L.append("        case (bus_rd_byte)")
        for g, r, w in scal:
            L.append(f"            {_addr(rm, r, w, None)}: begin {hsl(g)} = 1'b1; "
                     f"{gsl(g)} = {_read_expr(r, w, None)}; end")
        L += ["            default: ;", "        endcase"]
    if rm.arrays:
        # Array words are OR-ed in, not selected by `if`: the addresses are distinct, so at most
        # one term is non-zero, and an OR (unlike a chain of priority muxes, one per word)
        # synthesizes as a balanced tree: a few LUT levels instead of one per word.
        L.append("        // array words: at most one address matches; OR (a balanced tree), not if-chains")
    for g, grp in enumerate(groups):
        if grp[0] != "entries":
            continue
        _, a, lo, hi = grp
        L.append(f"        for (bus_rd_k = {lo}; bus_rd_k < {hi}; bus_rd_k = bus_rd_k + 1) begin")
        for r in a.registers:
            for w in range(r.words):
                m = f"(bus_rd_byte == {_addr(rm, r, w, 'bus_rd_k')})"
                L.append(f"            {hsl(g)} = {hsl(g)} | {m};")
                L.append(f"            {gsl(g)} = {gsl(g)} | ({{32{{{m}}}}} & {_read_expr(r, w, 'bus_rd_k')});")
        L.append("        end")
    L += ["    end", "", "    // stage 2: the groups' OR (only the addressed group is non-zero)",
          "    always @* begin", "        bus_rd_data = 32'd0;"]
    L += [f"        bus_rd_data = bus_rd_data | bus_rd_grp_q[{32 * g + 31}:{32 * g}];" for g in range(ng)]
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
    L += ["    end", "",
          "    // Address bits [1:0] select a byte within the word; accesses are whole words.",
          "    wire unused = &{1'b0, bus_wr_addr[1:0], bus_rd_addr[1:0]};",
          "", "endmodule", "", "`default_nettype wire", ""]
    text = "\n".join(L)
    return text


def _d(kind: str, rng: str, rest: str) -> str:
    """A declaration with its name in a fixed column."""
    return f"    {kind:<4} {rng:<11} {rest}"


def _word_addr(sig: str, aw: int) -> str:
    """{zeros, sig[aw-1:2], 2'b00}: the word's byte address widened to 32 bits."""
    if aw == 32:
        return f"{{{sig}[31:2], 2'b00}}"
    return f"{{{32 - aw}'d0, {sig}[{aw - 1}:2], 2'b00}}"


def _wrap(text: str, width: int) -> list[str]:
    import textwrap
    out = []
    for para in text.strip().split("\n\n") if text.strip() else []:
        out += textwrap.wrap(" ".join(para.split()), width) + [""]
    return out[:-1]


def _rel(p: Path | None) -> str:
    if p is None:
        return "<string>"
    try:
        return Path(p).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return Path(p).name


# --------------------------------------------------------------------------------------------
# C header


def c_prefix(rm: RegMap) -> str:
    """`fastpath_<name>` for identifiers; a name that already starts with fastpath_ is kept."""
    return rm.name if rm.name.startswith("fastpath_") else f"fastpath_{rm.name}"


def render_c(rm: RegMap) -> str:
    p = c_prefix(rm)
    P = p.upper()
    defs: list[tuple[str, str]] = []
    fns: list[str] = []
    seen: set = set()

    def define(name, value, comment=None):
        if name in seen:
            raise RegsError(f"{rm.name}: C name {name} is made twice; rename a register or field")
        seen.add(name)
        defs.append((name, value) if comment is None else (name, value, comment))

    def u(v, width):
        return f"0x{v:x}ULL" if width == 64 else f"0x{v:x}u"

    define(f"{P}_SIZE", f"0x{rm.size:x}u")
    for a in rm.arrays:
        defs.append(("", ""))
        define(f"{P}_{a.name.upper()}_OFFSET", f"0x{a.offset:x}u", f"array {a.name}: base")
        define(f"{P}_{a.name.upper()}_COUNT", f"{a.count}u")
        define(f"{P}_{a.name.upper()}_STRIDE", f"0x{a.stride:x}u")
    for r in rm.registers:
        R = f"{P}_{r.name.upper()}"
        kind = "ro, constant" if r.constant else r.access
        defs.append(("", ""))
        note = f"{r.name} ({kind}, {r.width}-bit)" + (f" [{r.array.name}]" if r.array else "")
        define(f"{R}_OFFSET", f"0x{r.offset:x}u", note)
        if r.constant:
            define(f"{R}_VALUE", u(r.reset, r.width))
        elif r.access in ("rw", "w1c"):
            define(f"{R}_RESET", u(r.reset, r.width))
        if not r.implicit:
            for f in r.fields:
                F = f"{R}_{f.name.upper()}"
                define(f"{F}_SHIFT", f"{f.lsb}u")
                define(f"{F}_MASK", u(f.mask, r.width))
                if r.access == "rw":
                    define(f"{F}_RESET", u(f.reset, r.width))
                if f.value is not None:
                    define(f"{F}_VALUE", u(f.value, r.width))

        ctype = "uint64_t" if r.width == 64 else "uint32_t"
        fn = f"{p}_{r.name}"
        idx_arg = ", uint32_t index" if r.array else ""
        word = f"{R}_OFFSET / 4u" if not r.array else \
            f"({R}_OFFSET + index * {P}_{r.array.name.upper()}_STRIDE) / 4u"
        if r.access != "pulse":
            if r.width == 64:
                fns.append(
                    f"/* Reads the low word first: that latches the high word (ro) so the two halves\n"
                    f" * are one value. */\n"
                    f"static inline uint64_t {fn}_read(volatile uint32_t *base{idx_arg})\n{{\n"
                    f"    uint64_t lo = base[{word}];\n"
                    f"    uint64_t hi = base[{word} + 1u];\n"
                    f"    return (hi << 32) | lo;\n}}")
            else:
                fns.append(f"static inline uint32_t {fn}_read(volatile uint32_t *base{idx_arg})\n{{\n"
                           f"    return base[{word}];\n}}")
        if r.access in ("rw", "w1c", "pulse"):
            what = {"w1c": "Writes 1s to clear those bits. ", "pulse": "A write is a one-cycle strobe. ",
                    "rw": ""}[r.access]
            sig = f"static inline void {fn}_write(volatile uint32_t *base{idx_arg}, {ctype} value)"
            if r.width == 64:
                fns.append(f"/* {what}Writes the low word, then the high word (not atomic). */\n"
                           f"{sig}\n{{\n"
                           f"    base[{word}] = (uint32_t)value;\n"
                           f"    base[{word} + 1u] = (uint32_t)(value >> 32);\n}}")
            else:
                pre = f"/* {what.strip()} */\n" if what else ""
                fns.append(f"{pre}{sig}\n{{\n    base[{word}] = value;\n}}")
        if not r.implicit:
            for f in r.fields:
                F = f"{R}_{f.name.upper()}"
                cast = "(uint64_t)" if r.width == 64 else ""
                fns.append(f"static inline {ctype} {fn}_{f.name}_get({ctype} reg)\n{{\n"
                           f"    return (reg & {F}_MASK) >> {F}_SHIFT;\n}}")
                fns.append(f"static inline {ctype} {fn}_{f.name}_set({ctype} reg, {ctype} value)\n{{\n"
                           f"    return (reg & ~{F}_MASK) | (({cast}value << {F}_SHIFT) & {F}_MASK);\n}}")
    for name in re.findall(r"static inline \w+ (\w+)\(", "\n".join(fns)):
        if name in seen:
            raise RegsError(f"{rm.name}: C function {name} is made twice; rename a register or field")
        seen.add(name)

    guard = f"FASTPATH_REGS_{rm.name.upper()}_H"
    width = max(len(d[0]) for d in defs if d[0])
    lines = [
        "/*",
        f" * {rm.name} registers: offsets, fields and accessors.",
        f" * Generated by `fastpath regs` from {_rel(rm.source)}; do not edit by hand.",
        *([" *"] + [f" * {line}".rstrip() for line in _wrap(rm.description, 96)] if rm.description else []),
        " *",
        " * Offsets are in bytes from the block's base. Accessors take that base as a",
        " * `volatile uint32_t *`: a mapped register window or a simulated bus. An array's",
        " * register offset is its entry 0; entry i is at OFFSET + i * STRIDE.",
        " */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stdint.h>",
        "",
    ]
    for d in defs:
        if not d[0]:
            lines.append("")
            continue
        if len(d) == 3:
            lines.append(f"/* {d[2]} */")
        lines.append(f"#define {d[0]:<{width}} {d[1]}")
    lines.append("")
    for f in fns:
        lines += [f, ""]
    lines += [f"#endif /* {guard} */", ""]
    return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Markdown


def render_markdown(rm: RegMap) -> str:
    d = _hexdigits(rm)
    L = [
        f"# {rm.name} registers",
        "",
        f"Generated by `fastpath regs` from `{_rel(rm.source)}`; do not edit by hand. The format and the",
        "bus behaviour are described in [docs/registers.md](../registers.md).",
        "",
    ]
    if rm.description:
        L += [" ".join(rm.description.split()), ""]
    L += [
        f"AXI4-Lite slave `{rm.module}`, {rm.size} bytes (address width {rm.address_width}). "
        f"Read latency {READ_LATENCY} cycles, write latency {WRITE_LATENCY} cycle; an unmapped address "
        "reads 0 with SLVERR and a write to it is ignored with SLVERR. "
        f"C: `host/include/fastpath/regs/{rm.name}.h`; Python: `fastpath.regs.load(\"{rm.name}\")`.",
        "",
        "| Offset | Register | Access | Width | Reset | Description |",
        "|---|---|---|---|---|---|",
    ]
    for r in rm.registers:
        off = f"0x{r.offset:0{d}x}"
        if r.array:
            off += f" + i*0x{r.array.stride:x}"
        kind = "ro (constant)" if r.constant else r.access
        reset = "input" if r.access == "ro" and not r.constant else f"0x{r.reset:x}"
        L.append(f"| {off} | {r.name} | {kind} | {r.width} | {reset} | {_md(r.description)} |")
    if rm.arrays:
        L += ["", "## Arrays", "", "| Array | Offset | Count | Stride | Registers | Description |",
              "|---|---|---|---|---|---|"]
        for a in rm.arrays:
            L.append(f"| {a.name} | 0x{a.offset:0{d}x} | {a.count} | 0x{a.stride:x} | "
                     f"{', '.join(r.name for r in a.registers)} | {_md(a.description)} |")
    L += ["", "## Fields and ports", ""]
    for r in rm.registers:
        L += [f"### {r.name} (0x{r.offset:0{d}x}, {r.access})", ""]
        if r.description:
            L += [" ".join(r.description.split()), ""]
        L += ["| Bits | Field | Port | Reset / value | Description |", "|---|---|---|---|---|"]
        for f in r.fields:
            if f.value is not None:
                port, rv = "(constant)", f"0x{f.value:x}"
            elif r.access == "ro":
                port, rv = f"`{r.port(f)}` (input)", "input"
            elif r.access == "w1c":
                port, rv = f"`{r.port(f)}_set` (input)", "0x0"
            elif r.access == "pulse":
                port, rv = f"`{r.port(f)}` (output, with `{r.name}_wr`)", "0x0"
            else:
                port, rv = f"`{r.port(f)}` (output)", f"0x{f.reset:x}"
            doc = "" if r.implicit else _md(f.description)
            L.append(f"| {f.bits} | {f.name} | {port} | {rv} | {doc} |")
        L.append("")
    return "\n".join(L)


def _md(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# --------------------------------------------------------------------------------------------
# Files


def outputs(rm: RegMap) -> dict:
    """Generated file path -> text, for a description under rtl/."""
    return {
        rm.source.parent / f"{rm.module}.v": render_verilog(rm),
        HOST_INCLUDE / f"{rm.name}.h": render_c(rm),
        DOCS / f"{rm.name}.md": render_markdown(rm),
    }


def stale() -> list[Path]:
    """Generated files that differ from a fresh render (or are missing)."""
    out = []
    for src in descriptions():
        for path, text in outputs(load_file(src)).items():
            if not path.exists() or path.read_text() != text:
                out.append(path)
    return out


def write_all() -> list[Path]:
    """Render every description under rtl/; rewrite only files whose text changed. Returns all
    generated paths."""
    out = []
    for src in descriptions():
        for path, text in outputs(load_file(src)).items():
            if not path.exists() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            out.append(path)
    return out


def run(check: bool = False) -> int:
    """`fastpath regs [--check]`: regenerate every register map (or, with check, list stale ones)."""
    if check:
        bad = stale()
        for p in bad:
            print(f"stale: {_rel(p)} (run `fastpath regs`)")
        return 1 if bad else 0
    for p in write_all():
        print(_rel(p))
    return 0


# --------------------------------------------------------------------------------------------
# Python access over AXI4-Lite (cocotb)


class RegClient:
    """Read and write a block's registers by name through a cocotbext-axi AxiLiteMaster.

        regs = RegClient(load("fastpath_id"), AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), ...))
        await regs.write("scratch", 0x1234)          # or write("ctrl", enable=1, mode=2)
        v = await regs.read("scratch"); t = await regs.read64("cycles")

    A response other than OKAY raises RegBusError. `base` is the block's address on the bus.
    """

    def __init__(self, regmap: RegMap, master, base: int = 0):
        self.map = regmap
        self.master = master
        self.base = base

    async def read_word(self, offset: int) -> int:
        r = await self.master.read(self.base + offset, 4)
        if int(r.resp) != RESP_OKAY:
            raise RegBusError(f"{self.map.name}: read at {offset:#x} answered {r.resp!r}")
        return int.from_bytes(r.data, "little")

    async def write_word(self, offset: int, value: int) -> None:
        r = await self.master.write(self.base + offset, int(value).to_bytes(4, "little"))
        if int(r.resp) != RESP_OKAY:
            raise RegBusError(f"{self.map.name}: write at {offset:#x} answered {r.resp!r}")

    async def read(self, reg: str, index: int | None = None) -> int:
        """A register's value; a 64-bit register is read low word first (see read64)."""
        r = self.map.register(reg)
        off = self.map.offset(reg, index)
        if r.width == 64:
            lo = await self.read_word(off)
            return lo | (await self.read_word(off + 4)) << 32
        return await self.read_word(off)

    async def read64(self, reg: str, index: int | None = None) -> int:
        """A 64-bit register: low word (which latches the high word of an ro register), then high."""
        if self.map.register(reg).width != 64:
            raise TypeError(f"{reg} is a 32-bit register")
        return await self.read(reg, index)

    async def read_fields(self, reg: str, index: int | None = None) -> dict:
        return self.map.decode(reg, await self.read(reg, index))

    async def write(self, reg: str, value: int | None = None, *, index: int | None = None, **fields) -> None:
        """Write a whole value, or fields by name (fields not named take their reset value)."""
        r = self.map.register(reg)
        v = self.map.encode(reg, value, **fields)
        off = self.map.offset(reg, index)
        await self.write_word(off, v & 0xFFFFFFFF)
        if r.width == 64:
            await self.write_word(off + 4, v >> 32)
