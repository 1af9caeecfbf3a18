"""The register description: its data model (RegMap, Register, Field, Array), and loading,
parsing and checking `<name>.regs.toml` files (the format is in docs/registers.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore

from ..rtl import PREFIX, sources

ACCESS = ("rw", "ro", "w1c", "pulse")

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
        return f"{PREFIX}{self.name}_regs"

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
    """Every `*.regs.toml` in a system's rtl/ folder."""
    return sources("*.regs.toml")


def generated_modules() -> set[str]:
    """Names of the RTL modules generated from descriptions (each is tested by
    lib/tb/test_regs_generated.py)."""
    return {f"{PREFIX}{_stem(p)}_regs" for p in descriptions()}


def _stem(path: Path) -> str:
    return path.name[: -len(".regs.toml")]


def load(name: str) -> RegMap:
    """The register map `name`, from rtl/**/<name>.regs.toml."""
    found = [p for p in descriptions() if _stem(p) == name]
    if not found:
        raise RegsError(f"no register description {name}.regs.toml in any <system>/rtl/")
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
            raise RegsError(f"{inc_where}: no description {blk}.regs.toml in any <system>/rtl/")
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
