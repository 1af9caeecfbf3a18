"""Formats: one description per header or frame layout, from which RTL, C and docs are made.

A format is described once, in `<name>.fmt.toml` beside the RTL that uses it (syntax below).
`fastpath formats` (`write_all()`) renders, for every description in a system's rtl/:

    <system>/rtl/fp_<name>.vh                   `define macros for the RTL (include guard, no
                                                localparams, so a module that uses a few fields has
                                                no unused names); every name starts with FP_, as
                                                Verilog macros share one namespace in a design
    <system>/host/include/fastpath/fmt/<name>.h the same names, without FP_, as C #defines
    <system>/docs/formats/<name>.md             the tables

Python reads the description itself: `load(name)` -> `Format`, with `const` (name -> value),
`pack`/`unpack` for bit vectors and `layout(n).pack/unpack` for frames. tests/test_formats.py
checks the generated files equal fresh renders, so RTL, C and Python never drift apart.

Three kinds:

* `kind = "bits"`: a packed vector (a sideband such as the node's NoC header). Fields are listed
  from bit 0 upwards. Names: `<P>_W` (total width), `<P>_<F>` (the `hi:lo` range, for
  `hdr[`NOC_SRC_PORT]`), `<P>_<F>_LSB`, `<P>_<F>_W`.
* `kind = "bytes"`: frames on the wire, fields in network byte order (most significant byte
  first). Each `[[layout]]` lists its fields from byte 0; `include = "other"` first places
  another layout's fields. Names: `<P>_<L>_<F>_OFF`, `<P>_<L>_<F>_LEN` (bytes), `<P>_<L>_LEN`.
* `kind = "consts"`: constants only (codes such as a core's verdicts): no fields or layouts, at
  least one `[[const]]`.

Constants (`[[const]]`, any kind): `<P>_<C>`, in Verilog as a sized literal (`4'd3`), in C as a
plain number.

    [format]
    name = "noc_header"          # equals the file name before .fmt.toml
    prefix = "NOC"
    kind = "bits"
    description = "..."

    [[field]]                    # kind = "bits"
    name = "src_port"
    width = 5
    description = "..."

    [[layout]]                   # kind = "bytes"
    name = "ack"
    include = "header"
    description = "..."
      [[layout.field]]
      name = "type"
      bytes = 2
      description = "..."

    [[const]]
    name = "reason_flood"
    value = 3
    width = 4                    # optional (Verilog literal width); default: the smallest that fits
    description = "..."
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field as dc_field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore

from .paths import ROOT, system_of
from .rtl import PREFIX, sources

SUFFIX = ".fmt.toml"
_IDENT = re.compile(r"^[a-z][a-z0-9_]*$")
_PREFIX = re.compile(r"^[A-Z][A-Z0-9_]*$")


class FormatError(ValueError):
    """A description that cannot be used; the message says where and why."""


@dataclass
class Field:
    name: str
    width: int            # bits
    lsb: int = 0          # kind "bits": position in the vector
    offset: int = 0       # kind "bytes": byte offset in the frame
    description: str = ""

    @property
    def nbytes(self) -> int:
        return self.width // 8

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1


@dataclass
class Layout:
    name: str
    fields: list[Field]
    description: str = ""

    @property
    def length(self) -> int:
        return sum(f.nbytes for f in self.fields)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"layout {self.name} has no field {name}")

    def pack(self, **values) -> bytes:
        """The layout's bytes; fields not given are 0. Bytes fields accept bytes or an int."""
        out = bytearray(self.length)
        for k in values:
            self.field(k)
        for f in self.fields:
            v = values.get(f.name, 0)
            if isinstance(v, (bytes, bytearray)):
                if len(v) != f.nbytes:
                    raise ValueError(f"{self.name}.{f.name}: {len(v)} bytes, expected {f.nbytes}")
                b = bytes(v)
            else:
                if not 0 <= v <= f.mask:
                    raise ValueError(f"{self.name}.{f.name}: {v:#x} does not fit in {f.nbytes} bytes")
                b = int(v).to_bytes(f.nbytes, "big")
            out[f.offset:f.offset + f.nbytes] = b
        return bytes(out)

    def unpack(self, data: bytes) -> dict:
        """Field values (ints) from the first `length` bytes of data."""
        if len(data) < self.length:
            raise ValueError(f"{self.name}: {len(data)} bytes, needs {self.length}")
        return {f.name: int.from_bytes(data[f.offset:f.offset + f.nbytes], "big") for f in self.fields}


@dataclass
class Const:
    name: str
    value: int
    width: int
    description: str = ""


@dataclass
class Format:
    name: str
    prefix: str
    kind: str
    description: str
    fields: list[Field] = dc_field(default_factory=list)      # kind "bits"
    layouts: dict[str, Layout] = dc_field(default_factory=dict)  # kind "bytes"
    consts: list[Const] = dc_field(default_factory=list)
    source: Path | None = None

    @property
    def const(self) -> dict[str, int]:
        return {c.name: c.value for c in self.consts}

    @property
    def width(self) -> int:
        return sum(f.width for f in self.fields)

    def field(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(f"format {self.name} has no field {name}")

    def layout(self, name: str) -> Layout:
        return self.layouts[name]

    def pack(self, **values) -> int:
        """kind "bits": the vector as an int; fields not given are 0."""
        v = 0
        for k, x in values.items():
            f = self.field(k)
            if not 0 <= int(x) <= f.mask:
                raise ValueError(f"{self.name}.{k}: {x:#x} does not fit in {f.width} bits")
            v |= int(x) << f.lsb
        return v

    def unpack(self, v: int) -> dict:
        v = int(v)
        return {f.name: (v >> f.lsb) & f.mask for f in self.fields}


# --------------------------------------------------------------------------------------------
# Loading


def descriptions() -> list[Path]:
    return sources("*" + SUFFIX)


def load(name: str) -> Format:
    for p in descriptions():
        if p.name == name + SUFFIX:
            return load_file(p)
    raise FormatError(f"no format {name} (looked for rtl/**/{name}{SUFFIX})")


def load_file(path: Path | str) -> Format:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise FormatError(f"{path}: {e}") from None
    fmt = parse(doc, str(path), expect_name=path.name[: -len(SUFFIX)])
    fmt.source = path
    return fmt


def _keys(t: dict, allowed: set, where: str) -> None:
    extra = set(t) - allowed
    if extra:
        raise FormatError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")


def _name(t: dict, where: str) -> str:
    n = t.get("name")
    if not isinstance(n, str) or not _IDENT.match(n):
        raise FormatError(f"{where}: name {n!r} must be lower_case (a-z, 0-9, _)")
    return n


def _posint(v, what: str, where: str) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise FormatError(f"{where}: {what} must be a positive integer, not {v!r}")
    return v


def parse(doc: dict, where: str = "<string>", expect_name: str | None = None) -> Format:
    _keys(doc, {"format", "field", "layout", "const"}, where)
    head = doc.get("format")
    if not isinstance(head, dict):
        raise FormatError(f"{where}: missing [format] table")
    _keys(head, {"name", "prefix", "kind", "description"}, f"{where} [format]")
    name = _name(head, f"{where} [format]")
    if expect_name is not None and name != expect_name:
        raise FormatError(f"{where}: [format] name {name!r} must equal the file name {expect_name!r}")
    prefix = head.get("prefix", "")
    if not isinstance(prefix, str) or not _PREFIX.match(prefix):
        raise FormatError(f"{where}: prefix {prefix!r} must be UPPER_CASE")
    kind = head.get("kind")
    if kind not in ("bits", "bytes", "consts"):
        raise FormatError(f"{where}: kind must be \"bits\", \"bytes\" or \"consts\", not {kind!r}")
    fmt = Format(name, prefix, kind, str(head.get("description", "")).strip())
    names: set[str] = set()

    def claim(n: str, w: str) -> None:
        if n in names:
            raise FormatError(f"{w}: duplicate name {n}")
        names.add(n)

    if kind == "bits":
        if "layout" in doc:
            raise FormatError(f"{where}: [[layout]] belongs to kind = \"bytes\"")
        lsb = 0
        for i, t in enumerate(doc.get("field", [])):
            w = f"{where} field #{i + 1}"
            _keys(t, {"name", "width", "description"}, w)
            n = _name(t, w)
            claim(n, w)
            width = _posint(t.get("width"), "width", w)
            fmt.fields.append(Field(n, width, lsb=lsb, description=str(t.get("description", "")).strip()))
            lsb += width
        if not fmt.fields:
            raise FormatError(f"{where}: a bits format needs at least one [[field]]")
    elif kind == "consts":
        for part in ("field", "layout"):
            if part in doc:
                raise FormatError(f"{where}: kind = \"consts\" has no [[{part}]]")
        if not doc.get("const"):
            raise FormatError(f"{where}: a consts format needs at least one [[const]]")
    else:
        if "field" in doc:
            raise FormatError(f"{where}: top-level [[field]] belongs to kind = \"bits\"; use [[layout]]")
        for i, t in enumerate(doc.get("layout", [])):
            w = f"{where} layout #{i + 1}"
            _keys(t, {"name", "include", "description", "field"}, w)
            n = _name(t, w)
            claim(n, w)
            fields: list[Field] = []
            off = 0
            inc = t.get("include")
            if inc is not None:
                if inc not in fmt.layouts:
                    raise FormatError(f"{w}: include {inc!r} is not a layout defined above")
                for f in fmt.layouts[inc].fields:
                    fields.append(Field(f.name, f.width, offset=f.offset, description=f.description))
                off = fmt.layouts[inc].length
            seen = {f.name for f in fields}
            for j, ft in enumerate(t.get("field", [])):
                fw = f"{w} ({n}) field #{j + 1}"
                _keys(ft, {"name", "bytes", "description"}, fw)
                fname = _name(ft, fw)
                if fname in seen:
                    raise FormatError(f"{fw}: duplicate field {fname}")
                seen.add(fname)
                nb = _posint(ft.get("bytes"), "bytes", fw)
                fields.append(Field(fname, nb * 8, offset=off, description=str(ft.get("description", "")).strip()))
                off += nb
            if not fields:
                raise FormatError(f"{w}: layout {n} has no fields")
            fmt.layouts[n] = Layout(n, fields, str(t.get("description", "")).strip())
        if not fmt.layouts:
            raise FormatError(f"{where}: a bytes format needs at least one [[layout]]")
    for i, t in enumerate(doc.get("const", [])):
        w = f"{where} const #{i + 1}"
        _keys(t, {"name", "value", "width", "description"}, w)
        n = _name(t, w)
        claim(n, w)
        v = t.get("value")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise FormatError(f"{w}: value must be a non-negative integer")
        width = t.get("width", max(1, v.bit_length()))
        _posint(width, "width", w)
        if v >> width:
            raise FormatError(f"{w}: value {v:#x} does not fit in {width} bits")
        fmt.consts.append(Const(n, v, width, str(t.get("description", "")).strip()))
    return fmt


# --------------------------------------------------------------------------------------------
# Rendering


def _up(*parts: str) -> str:
    return "_".join(p.upper() for p in parts if p)


def _macros(fmt: Format) -> list[tuple[str, str, str, str]]:
    """(name, verilog value, C value, comment) for every generated name."""
    out = []
    P = fmt.prefix
    if fmt.kind == "bits":
        out.append((f"{P}_W", str(fmt.width), str(fmt.width), "total width in bits"))
        for f in fmt.fields:
            N = _up(P, f.name)
            hi = f.lsb + f.width - 1
            out.append((N, f"{hi}:{f.lsb}", None, f.description.split("\n")[0]))
            out.append((f"{N}_LSB", str(f.lsb), str(f.lsb), ""))
            out.append((f"{N}_W", str(f.width), str(f.width), ""))
    elif fmt.kind == "bytes":
        for L in fmt.layouts.values():
            out.append((_up(P, L.name, "len"), str(L.length), str(L.length),
                        f"bytes in layout {L.name}"))
            for f in L.fields:
                N = _up(P, L.name, f.name)
                out.append((f"{N}_OFF", str(f.offset), str(f.offset), f.description.split("\n")[0]))
                out.append((f"{N}_LEN", str(f.nbytes), str(f.nbytes), ""))
    for c in fmt.consts:
        out.append((_up(P, c.name), f"{c.width}'d{c.value}", f"{c.value:#x}", c.description.split("\n")[0]))
    return out


def _banner(fmt: Format, comment: str) -> list[str]:
    src = fmt.source.relative_to(ROOT) if fmt.source else f"{fmt.name}{SUFFIX}"
    return [f"{comment} {fmt.name}: generated from {src} by `fastpath formats`. Do not edit.",
            f"{comment} Tables: {_system(fmt)}/docs/formats/{fmt.name}.md"]


def render_verilog(fmt: Format) -> str:
    guard = f"FASTPATH_FMT_{fmt.name.upper()}_VH"
    lines = _banner(fmt, "//") + [f"`ifndef {guard}", f"`define {guard}"]
    for n, v, _c, com in _macros(fmt):
        if com:  # on its own line: some tools keep a trailing comment in the macro text
            lines.append(f"// {com}")
        lines.append(f"`define {PREFIX.upper()}{n} {v}")
    lines.append("`endif")
    return "\n".join(lines) + "\n"


def render_c(fmt: Format) -> str:
    guard = f"FASTPATH_FMT_{fmt.name.upper()}_H"
    lines = ["/*"] + [" *" + l[2:] for l in _banner(fmt, "//")] + [" */",
             f"#ifndef {guard}", f"#define {guard}", ""]
    for n, _v, c, com in _macros(fmt):
        if c is None:
            continue
        lines.append(f"#define {n} {c}" + (f"  /* {com} */" if com else ""))
    if fmt.kind == "bits":
        lines.append("")
        for f in fmt.fields:
            N = _up(fmt.prefix, f.name)
            lines.append(f"#define {N}_MASK {f.mask:#x}ull")
    lines += ["", f"#endif /* {guard} */"]
    return "\n".join(lines) + "\n"


def _cell(s: str) -> str:
    return " ".join(s.split()).replace("|", "\\|")


def render_doc(fmt: Format) -> str:
    src = fmt.source.relative_to(ROOT) if fmt.source else f"{fmt.name}{SUFFIX}"
    out = [f"# {fmt.name}", "",
           f"Generated from `{src}` by `fastpath formats`; do not edit. RTL: "
           f"`{PREFIX}{fmt.name}.vh` (every name with `{PREFIX.upper()}` before it), C: "
           f"`{_system(fmt)}/host/include/fastpath/fmt/{fmt.name}.h`, Python: "
           f"`fastpath.formats.load(\"{fmt.name}\")`.", ""]
    if fmt.description:
        out += [fmt.description, ""]
    if fmt.kind == "bits":
        out += [f"{fmt.width} bits, field 1 at bit 0.", "",
                "| bits | field | width | meaning |", "|---|---|---|---|"]
        for f in fmt.fields:
            rng = f"{f.lsb + f.width - 1}:{f.lsb}" if f.width > 1 else str(f.lsb)
            out.append(f"| {rng} | `{f.name}` | {f.width} | {_cell(f.description)} |")
        out.append("")
    elif fmt.kind == "bytes":
        out += ["Network byte order (most significant byte first).", ""]
        for L in fmt.layouts.values():
            out += [f"## {L.name} ({L.length} bytes)", ""]
            if L.description:
                out += [L.description, ""]
            out += ["| offset | bytes | field | meaning |", "|---|---|---|---|"]
            for f in L.fields:
                out.append(f"| {f.offset} | {f.nbytes} | `{f.name}` | {_cell(f.description)} |")
            out.append("")
    if fmt.consts:
        out += ["## Constants", "", "| name | value | meaning |", "|---|---|---|"]
        for c in fmt.consts:
            out.append(f"| `{_up(fmt.prefix, c.name)}` | {c.value:#x} | {_cell(c.description)} |")
        out.append("")
    return "\n".join(out)


def _system(fmt: Format) -> str:
    return system_of(fmt.source) if fmt.source else "lib"


def targets(fmt: Format) -> dict[Path, str]:
    assert fmt.source is not None
    return {
        fmt.source.with_name(PREFIX + fmt.name + ".vh"): render_verilog(fmt),
        ROOT / _system(fmt) / "host" / "include" / "fastpath" / "fmt" / f"{fmt.name}.h": render_c(fmt),
        ROOT / _system(fmt) / "docs" / "formats" / f"{fmt.name}.md": render_doc(fmt),
    }


def write_all() -> list[Path]:
    written = []
    for p in descriptions():
        for path, text in targets(load_file(p)).items():
            path.parent.mkdir(parents=True, exist_ok=True)
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
                written.append(path)
    return written


def stale() -> list[Path]:
    bad = []
    for p in descriptions():
        for path, text in targets(load_file(p)).items():
            if not path.exists() or path.read_text() != text:
                bad.append(path)
    return bad


def run(check: bool = False) -> int:
    """`fastpath formats [--check]`."""
    if check:
        bad = stale()
        for p in bad:
            print(f"stale: {p.relative_to(ROOT)} (run `fastpath formats`)")
        return 1 if bad else 0
    for p in write_all():
        print(p.relative_to(ROOT))
    return 0
