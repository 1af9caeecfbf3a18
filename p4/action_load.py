"""The loader of the action unit and the deparser: a compiled program (`fastpath.p4.compiler.Config`)
in, the images of `fp_p4_action` (the action program memory) and `fp_p4_deparser` (its
configuration words) out, or a one-line `LoadError` naming what the hardware cannot do.

`load_actions(cfg, ActionHW(...))` lowers every action's op program (p4/README.md, the compiler
section) into micro-ops of the action unit (p4/docs/actions.md): operands placed into the A and B
slots (a field, a temporary or a validity bit; an immediate, an action-data field or a
temporary), fields wider than 64 bits moved in 64-bit chunks, header copies and stack push/pop as
chunk moves plus one validity op, drop as writes of egress_spec (and mcast_grp); then groups them
(adjacent field writes from adjacent sources become one write; a validity op joins the slot of
the op before it), allocates the temporaries and schedules the ops into the OPS slots (an op
waits 7 slots for a PHV field an earlier op writes, 3 for a temporary). `ActionImage.words`
holds the op words, `ActionImage.pack_data` the action data of a table entry, `ActionModel` runs
the image bit-exactly as the RTL does.

`load_deparser(cfg, DeparserHW(...))` gives the deparser's header slots (deparser order: validity
bit, first and end byte in the PHV, whether the header continues the previous one in the PHV)
and checksum units (the target's bytes, the PHV bytes summed, byte swap, a constant addend and
the condition's validity bit), as 32-bit configuration writes (`DeparserImage.writes`).

`phv_from_state` / `state_from_phv` convert between the PHV integer (the compiler's layout, MSB
first, padded to the hardware's PHV_BITS at the LSB end) plus the validity integer and the
reference interpreter's per-packet state.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .compiler import DROP_PORT, Config

FIELD_BITS = 64         # the ALU and every field access are at most this wide
PHV_HAZARD = 7          # a slot sees the PHV writes of slots at least this many before it
TEMP_HAZARD = 3         # ... and the temporary writes of slots at least this many before it

ALU = {"movx": 0, "movy": 1, "add": 2, "sub": 3, "and": 4, "or": 5, "xor": 6, "not": 7, "shl": 8,
       "shr": 9, "eq": 10, "ne": 11, "lt": 12, "le": 13, "land": 14, "lor": 15, "lnot": 16,
       "bool": 17, "mux": 18}
A_KIND = {"field": 0, "temp": 1, "valid": 2, "zero": 3}
B_KIND = {"imm": 0, "param": 1, "temp": 2}
D_KIND = {None: 0, "field": 1, "temp": 2}
V_KIND = {None: 0, "set": 1, "shift": 2, "copy": 3}

M64 = (1 << 64) - 1


class LoadError(Exception):
    """The program needs something the hardware does not have; the message is one line."""


def _clog2(n: int) -> int:
    return max(0, (n - 1).bit_length())


def _mask(w: int) -> int:
    return (1 << w) - 1 if w < 64 else M64


# ---------------------------------------------------------------------------------------------
# The action unit


@dataclass(frozen=True)
class ActionHW:
    """fp_p4_action's parameters."""
    PHV_BITS: int = 448
    VALID_BITS: int = 8
    DATA_BITS: int = 128
    OPS: int = 8
    ACTIONS: int = 32
    TEMPS: int = 2

    def params(self) -> dict:
        return {k: getattr(self, k) for k in ("PHV_BITS", "VALID_BITS", "DATA_BITS", "OPS", "ACTIONS", "TEMPS")}

    @property
    def latency(self) -> int:
        return self.OPS + 9


class OpLayout:
    """The op word of fp_p4_action (its O_* localparams): fields LSB first."""

    def __init__(self, hw: ActionHW):
        self.shw = _clog2(hw.PHV_BITS)
        self.dsw = _clog2(hw.DATA_BITS)
        self.viw = max(1, _clog2(hw.VALID_BITS))
        self.tiw = max(1, _clog2(hw.TEMPS))
        self.fields = [("alu", 5), ("swap", 1), ("ak", 2), ("ash", self.shw), ("aw", 7), ("bk", 2),
                       ("bsh", self.dsw), ("bw", 7), ("imm", 64), ("c", self.tiw), ("dk", 2), ("dsh", self.shw),
                       ("dw", 7), ("vk", 2), ("vlo", self.viw), ("vhi", self.viw), ("varg", self.viw + 1),
                       ("exit", 1), ("digest", 1)]
        self.pos = {}
        off = 0
        for name, w in self.fields:
            self.pos[name] = (off, w)
            off += w
        self.width = off

    def encode(self, values: dict) -> int:
        word = 0
        for name, v in values.items():
            off, w = self.pos[name]
            if not 0 <= v < (1 << w):
                raise ValueError(f"op field {name}={v} does not fit {w} bits")
            word |= v << off
        return word

    def decode(self, word: int) -> dict:
        return {name: (word >> off) & ((1 << w) - 1) for name, (off, w) in self.pos.items()}


@dataclass
class MicroOp:
    """One slot's op before encoding. a: ("field", p, w) | ("temp", t) | ("valid", bit) | ("zero",);
    b: ("imm", v) | ("param", shift, w, or-immediate) | ("temp", t) (before the data layout:
    ("param", index, lo, w, param width) and ("run", items)); c: ("temp", t) or None;
    d: ("field", p, w) | ("temp", t) | None; v: ("set", lo, hi, value) | ("shift", lo, hi, amount) |
    ("copy", dst, src) | None. Temporaries are virtual (any hashable) until allocated."""
    alu: str = "movx"
    swap: bool = False
    a: tuple = ("zero",)
    b: tuple = ("imm", 0)
    c: tuple | None = None
    d: tuple | None = None
    v: tuple | None = None
    what: str = ""

    def temps_read(self) -> list:
        out = []
        if self.a[0] == "temp":
            out.append(self.a[1])
        if self.b[0] == "temp":
            out.append(self.b[1])
        if self.c is not None:
            out.append(self.c[1])
        return out

    def reads_a(self) -> bool:
        """Whether the ALU uses operand A (X or Y, after the swap)."""
        unary_x = self.alu in ("not", "lnot", "bool", "movx")
        if self.alu == "movy":
            return self.swap
        if unary_x:
            return not self.swap
        return True

    def describe(self) -> str:
        def opnd(x):
            if x is None:
                return "-"
            if x[0] == "field":
                return f"phv[{x[1]}:{x[1] + x[2]}]"
            if x[0] == "param":
                return f"data>>{x[1]}/{x[2]}" + (f"|{x[3]:#x}" if x[3] else "")
            if x[0] == "imm":
                return hex(x[1])
            if x[0] == "zero":
                return "0"
            return f"{x[0]}{x[1]}"
        parts = []
        if self.d is not None or self.alu != "movx":
            xy = (opnd(self.b), opnd(self.a)) if self.swap else (opnd(self.a), opnd(self.b))
            parts.append(f"{opnd(self.d)} = {self.alu}({xy[0]}, {xy[1]}"
                         + (f", c={opnd(self.c)})" if self.c else ")"))
        if self.v is not None:
            parts.append(f"valid {self.v[0]} {self.v[1:]}")
        return "; ".join(parts) or "nop"


@dataclass
class ActionProgram:
    id: int
    name: str
    ops: list[MicroOp]          # one per slot, empty slots included
    exit: bool
    digest: bool
    params: list[tuple[str, int, int]]   # (name, width, right shift in the action data)


@dataclass
class ActionImage:
    hw: ActionHW
    layout: OpLayout
    programs: dict[int, ActionProgram]
    words: dict[int, list[int]]          # action id -> OPS op words
    egress_shift: int
    egress_width: int
    drop_value: int
    drop_en: bool
    notes: list[str] = field(default_factory=list)

    def pack_data(self, aid: int, values: list[int]) -> int:
        """A table entry's action data for action `aid` with parameter values `values`."""
        prog = self.programs[aid]
        if len(values) != len(prog.params):
            raise LoadError(f"action {prog.name!r}: {len(values)} values for {len(prog.params)} parameters")
        d = 0
        for (name, w, sh), v in zip(prog.params, values):
            d |= (v & ((1 << w) - 1)) << sh
        return d

    def writes(self) -> list[tuple[int, int, int]]:
        """(action, slot, word) for every slot of every loaded action."""
        return [(aid, k, w) for aid, ws in sorted(self.words.items()) for k, w in enumerate(ws)]

    def listing(self) -> str:
        lines = []
        for aid, p in sorted(self.programs.items()):
            used = max((k + 1 for k, op in enumerate(p.ops) if op.describe() != "nop"), default=0)
            flags = "".join([" exit" if p.exit else "", " digest" if p.digest else ""])
            lines.append(f"action {p.name}#{aid}: {used} slots{flags}")
            for k, op in enumerate(p.ops[:used]):
                lines.append(f"  {k}: {op.describe()}" + (f"   <- {op.what}" if op.what else ""))
        return "\n".join(lines)


class _ActionLowering:
    def __init__(self, cfg: Config, hw: ActionHW):
        self.cfg = cfg
        self.hw = hw
        self.fields = {}
        for inst in cfg.instances:
            t = cfg.header_type(inst.type)
            for f in t.fields:
                self.fields[(inst.name, f.name)] = (inst.phv_offset + f.offset, f.width)
        self.mtemp = 0

    # --- operands -------------------------------------------------------------------------------
    def where(self, a, k=None):
        return f'action "{a.name}"' + (f" op {k} ({a.ops[k].op})" if k is not None else "")

    def operand(self, e, params, where):
        k = e[0]
        if k == "field":
            p, w = self.fields[(e[1], e[2])]
            return ("field", p, w)
        if k == "const":
            if e[1] < 0:
                raise LoadError(f"{where}: negative constant {e[1]}")
            return ("imm", e[1])
        if k == "param":
            return ("param", e[1], 0, params[e[1]][1], params[e[1]][1])
        if k == "tmp":
            return ("temp", ("c", e[1]))
        if k == "valid":
            return ("valid", self.cfg.instance(e[1]).valid_bit)
        if k == "stack_field":
            raise LoadError(f"{where}: the last element of stack {e[1]!r} is a run-time index: not in the action unit")
        if k == "op":
            raise LoadError(f"{where}: a nested expression (the compiler lowers these into temporaries)")
        raise LoadError(f"{where}: operand {k!r} is not in the action unit")

    @staticmethod
    def width(x) -> int:
        if x[0] == "field":
            return x[2]
        if x[0] == "param":
            return x[3]
        if x[0] == "valid":
            return 1
        if x[0] == "imm":
            return max(1, x[1].bit_length())
        return 64

    @staticmethod
    def fits_a(x) -> bool:
        return x[0] in ("field", "temp", "valid", "zero")

    @staticmethod
    def fits_b(x) -> bool:
        return x[0] in ("imm", "param", "temp")

    def new_temp(self):
        self.mtemp += 1
        return ("m", self.mtemp)

    def materialize(self, x, out, what):
        """A move of x into a new temporary; returns the temporary operand."""
        t = ("temp", self.new_temp())
        if self.fits_a(x):
            out.append(MicroOp("movx", False, x, ("imm", 0), None, t, None, what + " (operand into a temporary)"))
        else:
            out.append(MicroOp("movy", False, ("zero",), x, None, t, None, what + " (operand into a temporary)"))
        return t

    def check_alu_operand(self, x, where):
        if x[0] in ("field", "param") and self.width(x) > FIELD_BITS:
            raise LoadError(f"{where}: an operand of {self.width(x)} bits: the ALU is {FIELD_BITS} bits wide")
        if x[0] == "imm" and x[1] > M64:
            raise LoadError(f"{where}: constant {x[1]:#x} is wider than the {FIELD_BITS}-bit ALU")

    def place(self, xs, out, what, where):
        """Operands X (and Y) -> (a, b, swap), materializing one into a temporary if both need
        the same slot."""
        for x in xs:
            self.check_alu_operand(x, where)
        if len(xs) == 1:
            x = xs[0]
            return (x, ("imm", 0), False) if self.fits_a(x) else (("zero",), x, True)
        x, y = xs
        if self.fits_a(x) and self.fits_b(y):
            return x, y, False
        if self.fits_b(x) and self.fits_a(y):
            return y, x, True
        if self.fits_a(x):          # both A kinds (field / validity): Y into a temporary
            return x, self.materialize(y, out, what), False
        return self.materialize(x, out, what), y, False   # both B kinds: X into a temporary

    def dest(self, e, where):
        if e is None:
            return None
        if e[0] == "tmp":
            return ("temp", ("c", e[1]))
        if e[0] == "field":
            p, w = self.fields[(e[1], e[2])]
            return ("field", p, w)
        if e[0] == "stack_field":
            raise LoadError(f"{where}: the last element of stack {e[1]!r} is a run-time index: not in the action unit")
        raise LoadError(f"{where}: cannot write {e[0]!r}")

    # --- moves (set), chunked ---------------------------------------------------------------------
    def move(self, d, src, out, what, where):
        """d = src for any widths: chunks of at most 64 bits of the destination, each from the
        matching bits of the source (zero above the source's width)."""
        if d[0] == "temp":
            if src[0] in ("field", "param") and self.width(src) > FIELD_BITS:
                raise LoadError(f"{where}: a temporary of {self.width(src)} bits: temporaries are {FIELD_BITS} bits")
            self.check_alu_operand(src, where)
            if self.fits_a(src):
                out.append(MicroOp("movx", False, src, ("imm", 0), None, d, None, what))
            else:
                out.append(MicroOp("movy", False, ("zero",), src, None, d, None, what))
            return
        _, p, w = d
        ws = self.width(src) if src[0] in ("field", "param") else None
        for lo in range(0, w, FIELD_BITS):
            cw = min(FIELD_BITS, w - lo)
            dc = ("field", p + w - lo - cw, cw)
            if src[0] == "imm":
                s = ("imm", (src[1] >> lo) & _mask(cw))
            elif src[0] in ("field", "param"):
                if lo >= ws:
                    s = ("imm", 0)
                else:
                    sw = min(cw, ws - lo)
                    s = ("field", src[1] + ws - lo - sw, sw) if src[0] == "field" else ("param", src[1], lo, sw, ws)
            else:   # temporary or validity bit: at most 64 bits
                s = src if lo == 0 else ("imm", 0)
            if self.fits_a(s):
                out.append(MicroOp("movx", False, s, ("imm", 0), None, dc, None, what))
            else:
                out.append(MicroOp("movy", False, ("zero",), s, None, dc, None, what))

    def region_move(self, src: int, dst: int, bits: int, out, what, vop=None, descending=False):
        """PHV bits [src, src+bits) -> [dst, dst+bits) in 64-bit chunks, in the order that never
        overwrites a source bit before it is read (descending offsets when moving up)."""
        chunks = [(lo, min(FIELD_BITS, bits - lo)) for lo in range(0, bits, FIELD_BITS)]
        if descending:
            chunks.reverse()
        first = True
        for lo, cw in chunks:
            out.append(MicroOp("movx", False, ("field", src + lo, cw), ("imm", 0), None, ("field", dst + lo, cw),
                               vop if first else None, what))
            first = False
        if first and vop is not None:
            out.append(MicroOp(v=vop, what=what))

    def stack_geometry(self, stack: str, where):
        st = self.cfg.stack(stack)
        insts = [self.cfg.instance(m) for m in st.instances]
        ew = insts[0].width
        for i, inst in enumerate(insts):
            if inst.phv_offset != insts[0].phv_offset + i * ew or inst.valid_bit != insts[0].valid_bit + i:
                raise LoadError(f"{where}: the elements of stack {stack!r} are not consecutive in the PHV "
                                f"and the validity bits")
        return insts[0].phv_offset, insts[0].valid_bit, ew, len(insts)

    # --- one action -------------------------------------------------------------------------------
    def lower(self, a) -> tuple[list[MicroOp], bool, bool]:
        cfg = self.cfg
        params = [(name, w) for name, w in a.params]
        out: list[MicroOp] = []
        exit_, digest = False, False
        for k, op in enumerate(a.ops):
            where = self.where(a, k)
            what = f"{op.op} #{k}"
            name = op.op
            if name == "exit":
                exit_ = True
                break
            if name == "digest":
                digest = True
                continue
            if name in ("set_valid", "set_invalid"):
                vb = cfg.instance(op.dst[1]).valid_bit
                out.append(MicroOp(v=("set", vb, vb, int(name == "set_valid")), what=what))
            elif name == "copy_header":
                di, si = cfg.instance(op.dst[1]), cfg.instance(op.args[0][1])
                self.region_move(si.phv_offset, di.phv_offset, di.width, out, what,
                                 vop=("copy", di.valid_bit, si.valid_bit))
            elif name == "drop":
                if cfg.target == "l2_switch":
                    targets = [("standard_metadata", "egress_port", DROP_PORT)]
                else:
                    targets = [("standard_metadata", "egress_spec", DROP_PORT)]
                    if ("standard_metadata", "mcast_grp") in self.fields:
                        targets.append(("standard_metadata", "mcast_grp", 0))
                for inst, f, v in targets:
                    p, w = self.fields[(inst, f)]
                    self.move(("field", p, w), ("imm", v & _mask(w)), out, what, where)
            elif name in ("push", "pop"):
                n = op.args[0][1]
                p0, vb0, ew, size = self.stack_geometry(op.dst[1], where)
                if n <= 0:
                    continue
                rng = (vb0, vb0 + size - 1)
                if n >= size:
                    out.append(MicroOp(v=("set", *rng, 0), what=what))
                elif name == "push":
                    self.region_move(p0, p0 + n * ew, (size - n) * ew, out, what, ("shift", *rng, n), descending=True)
                else:
                    self.region_move(p0 + n * ew, p0, (size - n) * ew, out, what, ("shift", *rng, -n))
            elif name == "set":
                self.move(self.dest(op.dst, where), self.operand(op.args[0], params, where), out, what, where)
            else:
                self.alu_op(op, params, out, what, where)
        return out, exit_, digest

    def alu_op(self, op, params, out, what, where):
        name = op.op
        d = self.dest(op.dst, where)
        if d is not None and d[0] == "field" and d[2] > FIELD_BITS:
            raise LoadError(f"{where}: {name} into a field of {d[2]} bits: the ALU is {FIELD_BITS} bits wide")
        args = [self.operand(x, params, where) for x in op.args]
        if name in ("add", "sub", "and", "or", "xor", "shl", "shr", "eq", "ne", "lt", "le", "land", "lor"):
            alu, xs = name, args
        elif name in ("gt", "ge"):
            alu, xs = {"gt": "lt", "ge": "le"}[name], [args[1], args[0]]
        elif name == "dec":
            alu, xs = "sub", [args[0], ("imm", 1)]
        elif name in ("not", "lnot"):
            alu, xs = name, args[:1]
        elif name in ("d2b", "b2d"):
            alu, xs = "bool", args[:1]
        elif name == "mux":
            cond, xs = args[0], args[1:]
            self.check_alu_operand(cond, where)
            if cond[0] != "temp":
                cond = self.materialize(cond, out, what)
            a, b, swap = self.place(xs, out, what, where)
            out.append(MicroOp("mux", swap, a, b, cond, d, None, what))
            return
        else:
            raise LoadError(f"{where}: op {name!r} is not in the action unit")
        a, b, swap = self.place(xs, out, what, where)
        out.append(MicroOp(alu, swap, a, b, None, d, None, what))


def _move_items(m: MicroOp):
    """When m is a plain move into a field: (destination, source) with the source either
    ("field", p, w) of the destination's width or a list of immediate/parameter items
    [("imm", value, width) | ("param", index, width)], MSB first."""
    if m.c is not None or m.d is None or m.d[0] != "field" or m.swap:
        return None
    w = m.d[2]
    if m.alu == "movx" and m.a[0] == "field" and m.a[2] == w:
        return m.d, m.a
    if m.alu != "movy":
        return None
    if m.b[0] == "run":
        return m.d, m.b[1]
    if m.b[0] == "imm" and m.b[1] < (1 << w):
        return m.d, [("imm", m.b[1], w)]
    if m.b[0] == "param" and m.b[2] == 0 and m.b[3] == w and m.b[3] == m.b[4]:
        return m.d, [("param", m.b[1], w)]
    return None


def _overlap(x, y) -> bool:
    return x[0] < y[0] + y[1] and y[0] < x[0] + x[1]


def _pure_vop(m: MicroOp) -> bool:
    return m.d is None and m.alu == "movx" and m.v is not None


def group(ops: list[MicroOp]) -> list[MicroOp]:
    """The paper's grouping, on an action's micro-ops in order:
    - grouped set: a move into the field right after the previous move's destination joins it
      (up to 64 bits) when its source continues the previous source (the next PHV field), or
      when both are immediates or parameters: the joined op writes B = action-data window |
      immediate, the loader laying the parameters out in the action data with zeros where the
      immediates go (a parameter joins one such group at most);
    - a validity op joins the slot of the op before it, or of the op after it when that op
      reads no validity bit; `set` validity ops of adjacent bits become one range."""
    out: list[MicroOp] = []
    owner: dict = {}            # parameter index -> the op whose action-data window holds it
    for m in ops:
        prev = out[-1] if out else None
        if prev is not None:
            pm, cm = _move_items(prev), _move_items(m)
            if pm and cm and (prev.v is None or m.v is None):
                (pd, ps), (cd, cs) = pm, cm
                ok = pd[1] + pd[2] == cd[1] and pd[2] + cd[2] <= FIELD_BITS
                if ok and isinstance(ps, tuple) and isinstance(cs, tuple):        # PHV field to field
                    ok = ps[1] + ps[2] == cs[1] and not _overlap((cs[1], cs[2]), (pd[1], pd[2]))
                    if ok:
                        prev.a = ("field", ps[1], ps[2] + cs[2])
                elif ok and isinstance(ps, list) and isinstance(cs, list):        # immediates and parameters
                    items = ps + cs
                    pidx = [x[1] for x in items if x[0] == "param"]
                    ok = len(pidx) == len(set(pidx)) and all(owner.get(i, prev) is prev for i in pidx)
                    if ok:
                        for i in pidx:
                            owner[i] = prev
                        prev.b = ("run", items)
                else:
                    ok = False
                if ok:
                    prev.d = ("field", pd[1], pd[2] + cd[2])
                    prev.v = prev.v or m.v
                    prev.what = prev.what if prev.what == m.what else f"{prev.what} + {m.what}"
                    continue
            if _pure_vop(m) and prev.v is None:
                prev.v = m.v
                prev.what = prev.what if prev.what == m.what else f"{prev.what} + {m.what}"
                continue
            if (_pure_vop(m) and prev.v is not None and prev.v[0] == "set" and m.v[0] == "set"
                    and prev.v[3] == m.v[3] and prev.v[2] + 1 == m.v[1]):
                prev.v = ("set", prev.v[1], m.v[2], m.v[3])
                continue
            if _pure_vop(prev) and m.v is None and not (m.a[0] == "valid" and m.reads_a()):
                m.v = prev.v
                m.what = prev.what if prev.what == m.what else f"{prev.what} + {m.what}"
                out[-1] = m
                continue
        out.append(m)
    for m in out:   # a group of immediates only is one immediate; of one parameter, a parameter
        if m.b[0] == "run" and all(x[0] == "imm" for x in m.b[1]):
            v = 0
            for x in m.b[1]:
                v = (v << x[2]) | x[1]
            m.b = ("imm", v)
        elif m.b[0] == "run" and len(m.b[1]) == 1:
            it = m.b[1][0]
            m.b = ("param", it[1], 0, it[2], it[2])
    return out


def layout_data(ops: list[MicroOp], params: list[tuple[str, int]], data_bits: int, where: str):
    """Lay the action data out: each group of immediates and parameters its window (MSB first,
    zeros under the immediates), then every other parameter; resolve the operands to
    ("param", right shift, width, or-immediate). Returns [(name, width, right shift)]."""
    regions = []                # (op, width)
    placed = {}                 # parameter -> (op, offset of its LSB inside the window)
    for m in ops:
        if m.b[0] == "run":
            w = sum(x[2] for x in m.b[1])
            regions.append((m, w))
            off = w
            for x in m.b[1]:
                off -= x[2]
                if x[0] == "param":
                    placed[x[1]] = (m, off)
    top = data_bits
    region_sh = {}
    for m, w in regions:
        top -= w
        region_sh[id(m)] = top
    psh = {}
    for i, (name, w) in enumerate(params):
        if i in placed:
            m, off = placed[i]
            psh[i] = region_sh[id(m)] + off
        else:
            top -= w
            psh[i] = top
    if top < 0:
        raise LoadError(f"{where}: action data of {data_bits - top} bits (parameters"
                        f"{' and the zeros of grouped sets' if regions else ''}): the action data is {data_bits} bits")
    for m in ops:
        if m.b[0] == "run":
            w = sum(x[2] for x in m.b[1])
            imm, off = 0, w
            for x in m.b[1]:
                off -= x[2]
                if x[0] == "imm":
                    imm |= x[1] << off
            m.b = ("param", region_sh[id(m)], w, imm)
        elif m.b[0] == "param":
            _, i, lo, w = m.b[:4]
            m.b = ("param", psh[i] + lo, w, 0)
    return [(name, w, psh[i]) for i, (name, w) in enumerate(params)]


def allocate_temps(ops: list[MicroOp], temps: int, where: str) -> None:
    """Virtual temporaries -> physical ones (liveness: from the write to the last read)."""
    last_use = {}
    for i, m in enumerate(ops):
        for t in m.temps_read():
            last_use[t] = i
    phys, free = {}, list(range(temps))
    for i, m in enumerate(ops):
        reads = m.temps_read()
        for t in reads:
            if t not in phys:
                raise LoadError(f"{where}: temporary {t} read before it is written")
        mapped = {t: phys[t] for t in reads}
        for t in set(reads):
            if last_use[t] == i:
                free.append(phys.pop(t))
                free.sort()
        if m.d is not None and m.d[0] == "temp":
            t = m.d[1]
            if t in phys:
                raise LoadError(f"{where}: temporary {t} written twice")
            if not free:
                raise LoadError(f"{where}: needs more than {temps} temporaries at once")
            p = free.pop(0)
            m.d = ("temp", p)
            if last_use.get(t, -1) > i:
                phys[t] = p
            else:
                free.append(p)
                free.sort()
        if m.a[0] == "temp":
            m.a = ("temp", mapped[m.a[1]])
        if m.b[0] == "temp":
            m.b = ("temp", mapped[m.b[1]])
        if m.c is not None:
            m.c = ("temp", mapped[m.c[1]])


def schedule(ops: list[MicroOp], slots: int, where: str) -> list[MicroOp]:
    """Place the ops into slots in order, an op at least PHV_HAZARD slots after an earlier op
    writing a PHV field it reads, TEMP_HAZARD after the write of a temporary it reads; empty
    slots are nops."""
    placed: list[tuple[int, MicroOp]] = []
    for m in ops:
        s = placed[-1][0] + 1 if placed else 0
        reads_field = m.a if (m.a[0] == "field" and m.reads_a()) else None
        for sj, mj in placed:
            if mj.d is None:
                continue
            if mj.d[0] == "field" and reads_field is not None and _overlap(reads_field[1:], mj.d[1:]):
                s = max(s, sj + PHV_HAZARD)
            if mj.d[0] == "temp" and mj.d[1] in m.temps_read():
                s = max(s, sj + TEMP_HAZARD)
        placed.append((s, m))
    n = placed[-1][0] + 1 if placed else 0
    if n > slots:
        raise LoadError(f"{where}: needs {n} op slots ({len(ops)} ops and {n - len(ops)} waits for earlier "
                        f"results); the action unit has {slots}")
    out = [MicroOp(what="") for _ in range(slots)]
    for s, m in placed:
        out[s] = m
    return out


def encode(m: MicroOp, layout: OpLayout, hw: ActionHW, exit_: bool = False, digest: bool = False) -> int:
    v = {"alu": ALU[m.alu], "swap": int(m.swap), "exit": int(exit_), "digest": int(digest)}
    a = m.a
    v["ak"] = A_KIND[a[0]]
    if a[0] == "field":
        v["ash"], v["aw"] = hw.PHV_BITS - a[1] - a[2], a[2]
    elif a[0] in ("temp", "valid"):
        v["ash"] = a[1]
    b = m.b
    v["bk"] = B_KIND[b[0]]
    if b[0] == "imm":
        v["imm"] = b[1]
    elif b[0] == "param":
        v["bsh"], v["bw"], v["imm"] = b[1], b[2], b[3]
    else:
        v["bsh"] = b[1]
    if m.c is not None:
        v["c"] = m.c[1]
    d = m.d
    v["dk"] = D_KIND[d[0] if d else None]
    if d is not None and d[0] == "field":
        v["dsh"], v["dw"] = hw.PHV_BITS - d[1] - d[2], d[2]
    elif d is not None:
        v["dsh"] = d[1]
    if m.v is not None:
        kind = m.v[0]
        v["vk"] = V_KIND[kind]
        if kind == "copy":
            v["vlo"], v["varg"] = m.v[1], m.v[2]
        else:
            v["vlo"], v["vhi"] = m.v[1], m.v[2]
            v["varg"] = m.v[3] & ((1 << (layout.viw + 1)) - 1)
    return layout.encode(v)


def load_actions(cfg: Config, hw: ActionHW = ActionHW()) -> ActionImage:
    """Config -> the action unit's image, or LoadError."""
    if cfg.phv_width > hw.PHV_BITS:
        raise LoadError(f"PHV of {cfg.phv_width} bits: the action unit has PHV_BITS = {hw.PHV_BITS}")
    if len(cfg.instances) > hw.VALID_BITS:
        raise LoadError(f"{len(cfg.instances)} header instances: the action unit has VALID_BITS = {hw.VALID_BITS}")
    layout = OpLayout(hw)
    low = _ActionLowering(cfg, hw)
    programs, words = {}, {}
    for a in cfg.actions:
        where = low.where(a)
        if not 0 <= a.id < hw.ACTIONS:
            raise LoadError(f"{where}: action id {a.id}: the action unit has ACTIONS = {hw.ACTIONS}")
        micro, exit_, digest = low.lower(a)
        micro = group(micro)
        params = layout_data(micro, [tuple(x) for x in a.params], hw.DATA_BITS, where)
        allocate_temps(micro, hw.TEMPS, where)
        slots = schedule(micro, hw.OPS, where)
        programs[a.id] = ActionProgram(a.id, a.name, slots, exit_, digest, params)
        words[a.id] = [encode(m, layout, hw, exit_ and k == 0, digest and k == 0) for k, m in enumerate(slots)]
    egress = ("standard_metadata", "egress_port" if cfg.target == "l2_switch" else "egress_spec")
    p, w = low.fields[egress]
    if w > 16:
        raise LoadError(f"{egress[0]}.{egress[1]} of {w} bits: the egress port output is 16 bits")
    return ActionImage(hw, layout, programs, words, hw.PHV_BITS - p - w, w, DROP_PORT & _mask(w), True)


class ActionModel:
    """fp_p4_action, bit-exact: runs an image's op words slot by slot with the pipeline's
    visibility (a slot reads the PHV as written by the slots at least PHV_HAZARD before it, the
    temporaries as written by the slots at least TEMP_HAZARD before it)."""

    def __init__(self, image: ActionImage):
        self.img = image
        self.hw = image.hw
        self.lay = image.layout
        self.ram = {aid: list(ws) for aid, ws in image.words.items()}

    def run(self, phv: int, valid: int, aid: int, data: int):
        hw, lay = self.hw, self.lay
        words = [lay.decode(w) for w in self.ram.get(aid, [0] * hw.OPS)]
        vmask = (1 << hw.VALID_BITS) - 1
        writes: list = []                   # per slot: (left shift, width, value) or None
        twrites: list = []                  # per slot: (index, value) or None
        vals = [valid]                      # validity before slot k
        for k, w in enumerate(words):
            p = phv
            for wr in writes[:max(0, k - PHV_HAZARD + 1)]:
                if wr is not None:
                    sh, wd, val = wr
                    p = (p & ~(_mask(wd) << sh)) | ((val & _mask(wd)) << sh)
            temps = [0] * hw.TEMPS
            for tw in twrites[:max(0, k - TEMP_HAZARD + 1)]:
                if tw is not None and tw[0] < hw.TEMPS:
                    temps[tw[0]] = tw[1]
            v = vals[k]
            # operands
            if w["ak"] == 0:
                a = (p >> (w["ash"] & ~7) >> (w["ash"] & 7)) & _mask(w["aw"])
            elif w["ak"] == 1:
                a = temps[w["ash"] & ((1 << lay.tiw) - 1)] if (w["ash"] & ((1 << lay.tiw) - 1)) < hw.TEMPS else 0
            elif w["ak"] == 2:
                a = (v >> (w["ash"] & ((1 << lay.viw) - 1))) & 1
            else:
                a = 0
            if w["bk"] == 0:
                b = w["imm"]
            elif w["bk"] == 1:
                b = ((data >> w["bsh"]) & _mask(w["bw"])) | w["imm"]
            elif w["bk"] == 2:
                ti = w["bsh"] & ((1 << lay.tiw) - 1)
                b = temps[ti] if ti < hw.TEMPS else 0
            else:
                b = 0
            c = temps[w["c"]] != 0 if w["c"] < hw.TEMPS else False
            x, y = (b, a) if w["swap"] else (a, b)
            res = _alu_hw(w["alu"], x, y, c)
            writes.append((w["dsh"], w["dw"], res) if w["dk"] == 1 else None)
            twrites.append((w["dsh"] & ((1 << lay.tiw) - 1), res) if w["dk"] == 2 else None)
            vals.append(_vop(w, v, hw.VALID_BITS, lay.viw) & vmask)
        p = phv
        for wr in writes:
            if wr is not None:
                sh, wd, val = wr
                p = (p & ~(_mask(wd) << sh)) | ((val & _mask(wd)) << sh)
        p &= (1 << hw.PHV_BITS) - 1
        eg = (p >> self.img.egress_shift) & _mask(self.img.egress_width) & 0xFFFF
        w0 = words[0]
        return p, vals[-1], eg, self.img.drop_en and eg == self.img.drop_value, bool(w0["exit"]), bool(w0["digest"])


def _alu_hw(op: int, x: int, y: int, c: bool) -> int:
    names = {v: k for k, v in ALU.items()}
    n = names.get(op)
    if n == "movx":
        return x
    if n == "movy":
        return y
    if n == "add":
        return (x + y) & M64
    if n == "sub":
        return (x - y) & M64
    if n == "and":
        return x & y
    if n == "or":
        return x | y
    if n == "xor":
        return x ^ y
    if n == "not":
        return ~x & M64
    if n == "shl":
        return 0 if y >= 64 else (x << y) & M64
    if n == "shr":
        return 0 if y >= 64 else x >> y
    if n == "eq":
        return int(x == y)
    if n == "ne":
        return int(x != y)
    if n == "lt":
        return int(x < y)
    if n == "le":
        return int(x <= y)
    if n == "land":
        return int(bool(x) and bool(y))
    if n == "lor":
        return int(bool(x) or bool(y))
    if n == "lnot":
        return int(not x)
    if n == "bool":
        return int(bool(x))
    if n == "mux":
        return x if c else y
    return 0


def _vop(w: dict, v: int, bits: int, viw: int) -> int:
    lo, hi, arg = w["vlo"], w["vhi"], w["varg"]
    rng = 0
    for j in range(bits):
        if lo <= j <= hi:
            rng |= 1 << j
    kind = w["vk"]
    if kind == 1:
        return (v & ~rng) | (rng if arg & 1 else 0)
    if kind == 2:
        sh = arg - (1 << (viw + 1)) if arg >> viw else arg
        src = v & rng
        src = src << sh if sh >= 0 else src >> -sh
        return (v & ~rng) | (src & rng)
    if kind == 3:
        src = arg & ((1 << viw) - 1)
        bit = (v >> src) & 1 if src < bits else 0
        if lo >= bits:
            return v
        return (v & ~(1 << lo)) | (bit << lo)
    return v


# ---------------------------------------------------------------------------------------------
# PHV <-> interpreter state


def phv_from_state(cfg: Config, s, phv_bits: int | None = None) -> tuple[int, int]:
    """The interpreter's state -> (PHV integer, validity integer), MSB first, padded at the LSB
    end to phv_bits."""
    bits = cfg.phv_width if phv_bits is None else phv_bits
    phv, valid = 0, 0
    for inst in cfg.instances:
        t = cfg.header_type(inst.type)
        for f in t.fields:
            phv |= (s.vals[inst.name][f.name] & ((1 << f.width) - 1)) << (bits - inst.phv_offset - f.offset - f.width)
        if s.valid[inst.name]:
            valid |= 1 << inst.valid_bit
    return phv, valid


def state_from_phv(interp, phv: int, valid: int, phv_bits: int | None = None):
    """(PHV, validity) -> a new interpreter state holding them."""
    cfg = interp.cfg
    bits = cfg.phv_width if phv_bits is None else phv_bits
    s = interp._new_state()
    for inst in cfg.instances:
        t = cfg.header_type(inst.type)
        for f in t.fields:
            s.vals[inst.name][f.name] = (phv >> (bits - inst.phv_offset - f.offset - f.width)) & ((1 << f.width) - 1)
        s.valid[inst.name] = bool((valid >> inst.valid_bit) & 1)
    return s


# ---------------------------------------------------------------------------------------------
# The deparser


@dataclass(frozen=True)
class DeparserHW:
    """fp_p4_deparser's parameters."""
    DATA_WIDTH: int = 64
    PHV_BITS: int = 448
    VALID_BITS: int = 8
    HDRS: int = 8
    CSUMS: int = 1


CFG_HDR = 0x000          # header slot i: address i
CFG_CSUM = 0x100         # checksum unit u: 0x100 + 0x100 u + (0: control, 1: addend, 2..: byte mask words)


@dataclass
class HeaderSlot:
    name: str
    vbit: int
    start: int      # first byte in the PHV
    end: int        # end byte (exclusive)
    cont: bool      # starts where the previous slot's header ends


@dataclass
class ChecksumUnit:
    name: str
    target: int         # PHV byte of the 16-bit target's first byte
    tgt_vbit: int       # the target's header: the checksum applies only when it is valid
    cond_vbit: int | None
    swap: bool          # the inputs sit at odd PHV bytes: sum byte-swapped
    addend: int         # constant inputs, summed (16-bit ones' complement)
    bytes: list[int]    # PHV bytes summed

    def mask(self, nbytes: int) -> int:
        m = 0
        for b in self.bytes:
            m |= 1 << b
        return m & ((1 << nbytes) - 1)


@dataclass
class DeparserImage:
    hw: DeparserHW
    headers: list[HeaderSlot]
    checksums: list[ChecksumUnit]

    def writes(self) -> list[tuple[int, int]]:
        """(address, 32-bit data) configuration writes; every slot and unit is written."""
        hw = self.hw
        out = []
        for i in range(hw.HDRS):
            if i < len(self.headers):
                h = self.headers[i]
                out.append((CFG_HDR + i, (1 << 31) | (int(h.cont) << 30) | (h.vbit << 24) | (h.start << 12) | h.end))
            else:
                out.append((CFG_HDR + i, 0))
        nbytes = (hw.PHV_BITS + 7) // 8
        words = (nbytes + 31) // 32
        for u in range(hw.CSUMS):
            base = CFG_CSUM + 0x100 * u
            if u < len(self.checksums):
                c = self.checksums[u]
                ctl = (1 << 31) | (int(c.swap) << 30) | (int(c.cond_vbit is not None) << 29) | \
                      (c.tgt_vbit << 18) | ((c.cond_vbit or 0) << 12) | c.target
                m = c.mask(nbytes)
                out += [(base, ctl), (base + 1, c.addend)]
                out += [(base + 2 + j, (m >> (32 * j)) & 0xFFFFFFFF) for j in range(words)]
            else:
                out.append((base, 0))
        return out


def _fold(x: int) -> int:
    while x >> 16:
        x = (x & 0xFFFF) + (x >> 16)
    return x


def load_deparser(cfg: Config, hw: DeparserHW = DeparserHW()) -> DeparserImage:
    """Config -> the deparser's configuration, or LoadError."""
    if cfg.phv_width > hw.PHV_BITS:
        raise LoadError(f"PHV of {cfg.phv_width} bits: the deparser has PHV_BITS = {hw.PHV_BITS}")
    if len(cfg.instances) > hw.VALID_BITS:
        raise LoadError(f"{len(cfg.instances)} header instances: the deparser has VALID_BITS = {hw.VALID_BITS}")
    if len(cfg.deparser) > hw.HDRS:
        raise LoadError(f"deparser of {len(cfg.deparser)} headers: the deparser has HDRS = {hw.HDRS}")
    if (hw.PHV_BITS + 7) // 8 > 4095:
        raise LoadError("a PHV of more than 4095 bytes")
    heads: list[HeaderSlot] = []
    for name in cfg.deparser:
        inst = cfg.instance(name)
        if inst.phv_offset % 8:
            raise LoadError(f"deparser: header {name!r} starts at PHV bit {inst.phv_offset}, not on a byte "
                            "boundary (p4c pads metadata to whole bytes)")
        start = inst.phv_offset // 8
        end = start + inst.width // 8
        cont = bool(heads) and heads[-1].end == start
        heads.append(HeaderSlot(name, inst.valid_bit, start, end, cont))
    units: list[ChecksumUnit] = []
    seen = set()
    fields = {}
    for inst in cfg.instances:
        for f in cfg.header_type(inst.type).fields:
            fields[(inst.name, f.name)] = (inst.phv_offset + f.offset, f.width)
    for ck in cfg.checksums:
        if not ck.update:
            continue
        key = (repr(ck.target), repr(ck.inputs), repr(ck.cond))
        if key in seen:
            continue
        seen.add(key)
        where = f'checksum "{ck.name}"'
        tinst = ck.target[1]
        tp, tw = fields[(tinst, ck.target[2])]
        if tp % 8:
            raise LoadError(f"{where}: target {tinst}.{ck.target[2]} is not on a byte boundary of the PHV")
        cond_vbit = None
        c = ck.cond
        if c is not None:
            if c[0] == "op" and c[1] in ("d2b", "b2d") and len(c) == 3:
                c = c[2]
            if c[0] != "valid":
                raise LoadError(f"{where}: a condition other than a header's validity is not in the checksum unit")
            cond_vbit = cfg.instance(c[1]).valid_bit
        # the inputs' concatenation, 16-bit words: every field bit must sit at the same place in
        # a word as in the PHV's words (or byte-swapped), constants are summed apart
        cpos, delta, addend, bits_in = 0, None, 0, {}
        for x in ck.inputs:
            if x[0] == "const":
                w = x[2]
                v = x[1] & ((1 << w) - 1)
                for i in range(w):   # concat bit cpos + i, MSB first
                    if (v >> (w - 1 - i)) & 1:
                        bit = cpos + i
                        addend += 1 << (15 - bit % 16)
                cpos += w
                continue
            if x[1] != tinst:
                raise LoadError(f"{where}: input {x[1]}.{x[2]}: the checksum unit sums fields of the target's "
                                f"header ({tinst}) only")
            p, w = fields[(x[1], x[2])]
            d = (p - cpos) % 16
            if delta is None:
                delta = d
            if d != delta or d % 8:
                raise LoadError(f"{where}: input {x[1]}.{x[2]} is not aligned with the other inputs in 16-bit words")
            for i in range(w):
                if p + i in bits_in:
                    raise LoadError(f"{where}: input {x[1]}.{x[2]} is summed twice")
                bits_in[p + i] = True
            cpos += w
        if (ck.target[1], ck.target[2]) and any(tp <= b < tp + tw for b in bits_in):
            raise LoadError(f"{where}: the target is one of its own inputs")
        byte_list = sorted({b // 8 for b in bits_in})
        for b in byte_list:
            if not all(8 * b + i in bits_in for i in range(8)):
                raise LoadError(f"{where}: the inputs cover part of PHV byte {b}: not whole bytes")
        units.append(ChecksumUnit(ck.name, tp // 8, cfg.instance(tinst).valid_bit, cond_vbit, delta == 8,
                                  _fold(addend), byte_list))
    if len(units) > hw.CSUMS:
        raise LoadError(f"{len(units)} checksums to update: the deparser has CSUMS = {hw.CSUMS}")
    for u in units:
        for v in units:
            if u is not v and any(v.target <= b < v.target + 2 for b in u.bytes):
                raise LoadError(f'checksum "{u.name}" sums the target of checksum "{v.name}": the units run in '
                                "parallel")
    return DeparserImage(hw, heads, units)


def deparser_checksum(unit: ChecksumUnit, phv_bytes: bytes) -> int:
    """The checksum unit on a PHV (as bytes, wire order): the value written to the target."""
    t = 0
    for i in range(0, len(phv_bytes), 2):
        hi = phv_bytes[i] if i in unit.bytes else 0
        lo = phv_bytes[i + 1] if (i + 1 < len(phv_bytes) and i + 1 in unit.bytes) else 0
        t += (hi << 8) | lo
    s = _fold(t)
    if unit.swap:
        s = ((s & 0xFF) << 8) | (s >> 8)
    return ~_fold(s + unit.addend) & 0xFFFF


def deparser_runs(image: DeparserImage, valid: int) -> list[tuple[int, int]]:
    """The header runs fp_p4_deparser emits for validity bits `valid`: (first byte, end byte) of
    each run of valid slots that continue each other in the PHV, in deparser order."""
    runs: list[list[int]] = []
    prev_on = False
    for h in image.headers:
        on = bool((valid >> h.vbit) & 1)
        if on:
            if h.cont and prev_on:
                runs[-1][1] = h.end
            else:
                runs.append([h.start, h.end])
        prev_on = on
    return [(s, e) for s, e in runs]


def deparser_schedule(bw: int, runs: list[tuple[int, int]], payload: int, beats: list[int], drop: bool):
    """The cycle model of fp_p4_deparser's control FSM for one packet: `bw` bytes per beat, the
    header runs, the payload offset, the kept bytes of each input beat, drop. Input beat j is
    taken to be available from the packet's cycle j on (a continuous input). Returns (cycles,
    pushes): the FSM cycles the packet takes and, per output beat, (cycle, keep bytes, last)."""
    pbeat, pmod = payload // bw, payload % bw
    c = f = k = 0
    held = known = False
    pushes = []
    ph = "drop" if drop else ("hdr" if runs else "pay")
    ri = 0
    rs, rl = runs[0] if runs else (0, 0)
    rl -= rs
    n = len(beats)
    while True:
        avail = k < n and k <= c
        last = k == n - 1
        cnt = beats[k] if avail else 0
        at_p, after_p = k == pbeat, k > pbeat
        skip_ok = avail and not last and k < pbeat
        nonempty = avail and (after_p or (at_p and (not last or cnt > pmod)))
        n_known = known or nonempty
        pop = done = False
        if ph == "hdr":
            t = rl + f
            full, run_done = t >= bw, t <= bw
            final = run_done and ri == len(runs) - 1
            push = held or (full and (not final or n_known))
            if push:
                pushes.append((c, bw, False))
            if full:
                f, held = 0, held or not push
            else:
                f, held = t, False
            if run_done:
                ri += 1
                if ri < len(runs):
                    rs, rl = runs[ri][0], runs[ri][1] - runs[ri][0]
                else:
                    ph = "pay"
            else:
                rs, rl = rs + bw - f, t - bw
            pop = skip_ok
        elif ph == "pay":
            if skip_ok:
                pop = True
            elif avail:
                pop = True
                if after_p:
                    nb = cnt if last else bw
                elif at_p:
                    nb = max(0, cnt - pmod) if last else bw - pmod
                else:
                    nb = 0
                tot = f + nb
                if held:
                    push = not (last and tot == 0)
                    n_held = tot in (0, bw)
                else:
                    push = tot >= bw and not (last and tot == bw)
                    n_held = last and tot == bw
                if push:
                    pushes.append((c, bw, False))
                f, held = tot % bw, n_held
                if last:
                    ph = "tail"
        elif ph == "tail":
            if held or f:
                pushes.append((c, bw if held else f, True))
            done = True
        else:
            if avail:
                pop = True
                if last:
                    ph = "tail"
        known = n_known
        if pop:
            k += 1
        c += 1
        if done:
            return c, pushes
