"""The P4 agent: p4c's BMv2 JSON in, the pipeline's configuration out.

`compile_program(json)` reads the output of `p4c-bm2-ss` (the format of behavioral-model's
docs/JSON_format.md, versions 2.x, and the older p4c-bm files without `__meta__`) and produces a
`Config`: a tree of plain dataclasses that `Config.to_json()` writes out. It holds

- the header types with each field's bit offset in its header, and every header instance's place
  in the packet header vector (PHV: all instances, metadata too, laid end to end, MSB first) and
  its bit in the validity vector;
- the parser graph: states, their operations (extract, extract into the next element of a stack,
  set, verify, advance), the transition key (fields, last-stack-element fields, lookahead bits,
  each padded to whole bytes as in the JSON), and transitions (value, mask, next state);
- every table: its key layout (each key field's kind, width, PHV offset and bit offset in the
  table's key, MSB first), size, actions, default entry, const entries and where it goes in the
  hardware (`memory`): "tcam" for LPM, ternary, range and small exact tables (LPM by
  prefix-length priority, range by prefix expansion at insert), "hash" for exact tables larger
  than `HASH_MIN_ENTRIES`, "none" for keyless tables (the default action only);
- every action as a straight-line program of primitive ops (`Op`): set, add, sub, dec, and, or,
  xor, not, shl, shr, comparisons, mux, set_valid, set_invalid, copy_header, drop, push, pop,
  digest, exit. An expression is lowered into ops writing temporaries (`["tmp", n]`), the last op
  writing the destination; the truncating `& 0xff..` p4c adds is dropped (a write truncates) and
  `x + (2^w - k)` into a w-bit field becomes `sub k` (`dec` for k = 1: the TTL decrement);
- the control flow of each pipeline (tables and conditionals, the next node per action or per
  hit/miss), the deparser order, and the checksums (16-bit ones' complement sum over header
  fields, verified after parsing and updated before deparsing).

What the hardware cannot do is refused with `P4CompileError`, whose message starts with the
JSON path and name of the construct and says why: registers, counters, meters, other externs,
action profiles, parse value sets, header unions, variable-length fields, signed fields,
multiplication/division, dynamic stack indices, conditionals inside actions, clone / resubmit /
recirculate / truncate, hash and random primitives, checksums other than csum16 or over the
payload, keys wider than the TCAM (`TCAM_KEY_BITS`). `generate_digest` is accepted as a counted
no-op: the interpreter records each digest (learn list and field values) and the hardware op
`digest` has no learning path behind it yet.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# Hardware figures (seeds/004 section 3): the TCAM matches keys of up to 660 bits and gives 32
# matched outputs per block; blocks cascade for more entries.
TCAM_KEY_BITS = 660
TCAM_BLOCK_ENTRIES = 32
# Exact tables larger than this go to a hash table in block RAM rather than TCAM blocks.
HASH_MIN_ENTRIES = 64
DROP_PORT = 511  # v1model / simple_switch: egress_spec 511 drops the packet

CORE_ERRORS = {"NoError": 0, "PacketTooShort": 1, "NoMatch": 2, "StackOutOfBounds": 3,
               "HeaderTooShort": 4, "ParserTimeout": 5, "ParserInvalidArgument": 6}


class P4CompileError(Exception):
    """The JSON asks for something the pipeline cannot do, or is malformed. The message starts
    with the JSON path (and name) of the construct."""

    def __init__(self, where: str, why: str):
        super().__init__(f"{where}: {why}")
        self.where = where
        self.why = why


# ---------------------------------------------------------------------------------------------
# The configuration tree


@dataclass
class Field:
    name: str
    width: int
    offset: int  # bit offset in the header, from its first (most significant) bit


@dataclass
class HeaderType:
    name: str
    fields: list[Field]
    width: int  # bits


@dataclass
class Instance:
    name: str
    type: str
    metadata: bool
    width: int
    phv_offset: int  # first bit of this instance in the PHV
    valid_bit: int  # its bit in the validity vector
    stack: str | None = None
    index: int | None = None


@dataclass
class Stack:
    name: str
    type: str
    instances: list[str]


@dataclass
class KeySource:
    kind: str  # "field", "stack_field" (field of the last extracted element), "lookahead"
    ref: list  # [instance, field] / [stack, field] / [bit offset, width]
    width: int
    padded: int  # width rounded up to whole bytes: how the transition values lay it out


@dataclass
class Transition:
    value: int | None  # None: default
    mask: int | None
    next: str | None  # None: accept (end of parsing)


@dataclass
class ParserOp:
    op: str  # extract, extract_next, set, verify, advance, primitive
    args: list


@dataclass
class ParseState:
    name: str
    ops: list[ParserOp]
    key: list[KeySource]
    key_width: int  # padded bits
    transitions: list[Transition]


@dataclass
class Parser:
    name: str
    init: str
    states: list[ParseState]
    loops: bool  # the graph has a cycle (stack parsing)


@dataclass
class Op:
    op: str
    dst: Any  # an lvalue expression, or None
    args: list


@dataclass
class Action:
    id: int
    name: str
    params: list[list]  # [name, width]
    ops: list[Op]
    temps: int  # temporaries the program uses


@dataclass
class KeyField:
    name: str
    kind: str  # exact, lpm, ternary, range, valid
    ref: list  # expression: ["field", inst, f] or ["valid", inst]
    width: int
    key_offset: int  # first bit in the table key, from its MSB
    phv_offset: int  # first bit in the PHV (the validity vector's bit for "valid")
    mask: int | None  # static mask from the program


@dataclass
class DefaultEntry:
    action: int
    data: list[int]
    const: bool  # the control plane may not change the action
    entry_const: bool  # ... nor its data


@dataclass
class Table:
    id: int
    name: str
    pipeline: str
    match_type: str
    key: list[KeyField]
    key_width: int
    size: int
    actions: list[int]  # action ids
    action_names: list[str]
    default: DefaultEntry | None
    next: dict  # action name (or __HIT__ / __MISS__) -> next node
    base_default_next: str | None
    const_entries: list[dict]
    memory: str  # tcam, hash, none
    tcam_blocks: int
    priority: str  # how TCAM rows are ordered: "entry" (ternary/range), "prefix" (LPM), "-"


@dataclass
class Conditional:
    name: str
    pipeline: str
    expr: Any
    true_next: str | None
    false_next: str | None


@dataclass
class Pipeline:
    name: str
    init: str | None
    tables: list[str]
    conditionals: list[str]


@dataclass
class Checksum:
    name: str
    target: list  # ["field", inst, f]
    inputs: list  # expressions (fields or ["const", v, width])
    algo: str
    verify: bool
    update: bool
    cond: Any  # expression or None


@dataclass
class LearnList:
    id: int
    name: str
    fields: list


@dataclass
class Config:
    program: str
    target: str  # simple_switch (v1model) or l2_switch (bmv2's l2_switch target)
    json_version: list
    header_types: list[HeaderType]
    instances: list[Instance]
    stacks: list[Stack]
    phv_width: int
    errors: dict
    parser: Parser
    pipelines: list[Pipeline]
    tables: list[Table]
    conditionals: list[Conditional]
    actions: list[Action]
    deparser: list[str]
    checksums: list[Checksum]
    learn_lists: list[LearnList]
    notes: list[str]
    limits: dict
    compile_ms: float = 0.0
    _index: dict = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("_index", None)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"

    # look-ups (built once)
    def instance(self, name: str) -> Instance:
        return self._lookup("instance", self.instances)[name]

    def table(self, name: str) -> Table:
        return self._lookup("table", self.tables)[name]

    def action(self, aid: int) -> Action:
        return self._lookup("action", self.actions, key=lambda a: a.id)[aid]

    def header_type(self, name: str) -> HeaderType:
        return self._lookup("type", self.header_types)[name]

    def stack(self, name: str) -> Stack:
        return self._lookup("stack", self.stacks)[name]

    def _lookup(self, what, items, key=lambda x: x.name):
        if what not in self._index:
            self._index[what] = {key(x): x for x in items}
        return self._index[what]

    def field_width(self, inst: str, fname: str) -> int:
        for f in self.header_type(self.instance(inst).type).fields:
            if f.name == fname:
                return f.width
        raise KeyError(f"{inst}.{fname}")


def lower_expr(e, ops: list, temps: list):
    """An expression tree -> ops appended to `ops`, each writing a new temporary (`["tmp", n]`,
    added to `temps`); returns the operand holding the value (the expression itself for a leaf).
    Used by the compiler for actions and by the pipeline's loader for conditions."""
    if e[0] != "op":
        return e
    args = [lower_expr(a, ops, temps) for a in e[2:]]
    t = ["tmp", len(temps)]
    temps.append(t)
    ops.append(Op(e[1], t, args))
    return t


# ---------------------------------------------------------------------------------------------
# The compiler


_ALU = {"+": "add", "-": "sub", "&": "and", "|": "or", "^": "xor", "<<": "shl", ">>": "shr",
        "~": "not", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
        "and": "land", "or": "lor", "not": "lnot", "d2b": "d2b", "b2d": "b2d", "?": "mux",
        "last_stack_index": "last_index", "size_stack": "stack_size"}
_NO_ALU = {"*": "multiplication", "/": "division", "%": "modulo",
           "two_comp_mod": "signed (two's complement) arithmetic", "sat_cast": "saturating casts",
           "usat_cast": "saturating casts", "valid_union": "header unions",
           "dereference_union_stack": "header union stacks", "access_union_header": "header unions"}
# Primitives with no place in the pipeline, and why.
_REFUSED_PRIMITIVES = {
    "count": "counters are not in the hardware (no counter memory)",
    "execute_meter": "meters are not in the hardware",
    "register_read": "registers are not in the hardware (no stateful memory)",
    "register_write": "registers are not in the hardware (no stateful memory)",
    "modify_field_with_hash_based_offset": "hash calculations are not in the action unit",
    "modify_field_rng_uniform": "random numbers are not in the action unit",
    "clone_ingress_pkt_to_egress": "clone is not in the hardware (no packet replication engine)",
    "clone_egress_pkt_to_egress": "clone is not in the hardware (no packet replication engine)",
    "clone_ingress_pkt_to_ingress": "clone is not in the hardware",
    "resubmit": "resubmit is not in the hardware (one pass per packet)",
    "recirculate": "recirculate is not in the hardware (one pass per packet)",
    "truncate": "truncate is not in the deparser",
    "_jump": "control flow inside an action: the action unit runs straight-line programs",
    "_jump_if_zero": "a conditional inside an action: the action unit runs straight-line programs",
    "assign_VL": "variable-length fields are not in the parser",
    "assign_union": "header unions are not supported",
    "assign_union_stack": "header unions are not supported",
    "assign_header_stack": "whole-stack assignment is not in the action unit",
    "assert": "assert/assume abort the switch: not in the hardware",
    "assume": "assert/assume abort the switch: not in the hardware",
    "log_msg": "log messages have no hardware path",
    "hash": "hash calculations are not in the action unit",
    "random": "random numbers are not in the action unit",
    "digest": "digest extern calls are not supported (use generate_digest)",
}


class _Compiler:
    def __init__(self, j: dict, name: str, target: str | None):
        if not isinstance(j, dict):
            raise P4CompileError("(top level)", "not a BMv2 JSON object")
        self.j = j
        self.name = name
        self.target_override = target
        self.notes: list[str] = []
        self.aliases: dict[str, tuple[str, str]] = {}

    # --- helpers ------------------------------------------------------------------------------
    def need(self, obj: dict, key: str, where: str, kinds=None):
        if not isinstance(obj, dict) or key not in obj:
            raise P4CompileError(where, f"missing attribute {key!r}")
        v = obj[key]
        if kinds is not None and not isinstance(v, kinds):
            raise P4CompileError(f"{where}.{key}", f"expected {_kind_name(kinds)}, got {type(v).__name__}")
        return v

    def top(self, key: str) -> list:
        v = self.j.get(key) or []
        if not isinstance(v, list):
            raise P4CompileError(key, "expected a JSON array")
        return v

    # --- headers ------------------------------------------------------------------------------
    def headers(self):
        self.types: dict[str, HeaderType] = {}
        for i, t in enumerate(self.need(self.j, "header_types", "(top level)", list)):
            where = f"header_types[{i}]"
            name = self.need(t, "name", where, str)
            where = f'{where} "{name}"'
            fields, off = [], 0
            for k, f in enumerate(self.need(t, "fields", where, list)):
                if not isinstance(f, list) or len(f) < 2:
                    raise P4CompileError(f"{where}.fields[{k}]", "expected [name, width(, signed)]")
                if f[1] == "*":
                    raise P4CompileError(f"{where}.fields[{k}] \"{f[0]}\"",
                                         "variable-length (varbit) fields are not in the parser")
                if len(f) > 2 and f[2]:
                    raise P4CompileError(f"{where}.fields[{k}] \"{f[0]}\"",
                                         "signed fields are not supported (the action unit is unsigned)")
                if not isinstance(f[1], int) or f[1] <= 0:
                    raise P4CompileError(f"{where}.fields[{k}]", f"bad width {f[1]!r}")
                fields.append(Field(f[0], f[1], off))
                off += f[1]
            self.types[name] = HeaderType(name, fields, off)
        self.instances: dict[str, Instance] = {}
        self.inst_by_id: dict[int, str] = {}
        phv = 0
        for i, h in enumerate(self.need(self.j, "headers", "(top level)", list)):
            where = f"headers[{i}]"
            name = self.need(h, "name", where, str)
            where = f'{where} "{name}"'
            tname = self.need(h, "header_type", where, str)
            if tname not in self.types:
                raise P4CompileError(where, f"unknown header type {tname!r}")
            width = self.types[tname].width
            meta = bool(h.get("metadata", False))
            if not meta and width % 8:
                raise P4CompileError(where, f"header of {width} bits: packet headers must be whole bytes")
            self.instances[name] = Instance(name, tname, meta, width, phv, len(self.instances))
            self.inst_by_id[h.get("id", i)] = name
            phv += width
        self.phv_width = phv
        self.stacks: dict[str, Stack] = {}
        for i, s in enumerate(self.top("header_stacks")):
            where = f"header_stacks[{i}]"
            name = self.need(s, "name", where, str)
            ids = self.need(s, "header_ids", f'{where} "{name}"', list)
            try:
                members = [self.inst_by_id[x] for x in ids]
            except KeyError as e:
                raise P4CompileError(f'{where} "{name}"', f"unknown header id {e.args[0]}") from None
            for k, m in enumerate(members):
                self.instances[m].stack, self.instances[m].index = name, k
            self.stacks[name] = Stack(name, s.get("header_type", self.instances[members[0]].type if members else ""),
                                      members)
        for key in ("header_unions", "header_union_stacks"):
            if self.top(key):
                u = self.top(key)[0]
                raise P4CompileError(f'{key}[0] "{u.get("name")}"', "header unions are not supported by the parser")
        for i, a in enumerate(self.top("field_aliases")):
            try:
                alias, (inst, fname) = a
            except (TypeError, ValueError):
                raise P4CompileError(f"field_aliases[{i}]", "expected [alias, [header, field]]") from None
            if inst in self.instances:
                self.aliases[alias] = (inst, fname)

    def field_ref(self, v, where: str) -> list:
        if not isinstance(v, list) or len(v) != 2 or not all(isinstance(x, str) for x in v):
            raise P4CompileError(where, f"bad field reference {v!r}")
        inst, fname = v
        if f"{inst}.{fname}" in self.aliases:
            inst, fname = self.aliases[f"{inst}.{fname}"]
        if inst not in self.instances:
            raise P4CompileError(where, f"unknown header instance {inst!r}")
        if fname == "$valid$":
            return ["valid", inst]
        if not any(f.name == fname for f in self.types[self.instances[inst].type].fields):
            raise P4CompileError(where, f"header {inst!r} has no field {fname!r}")
        return ["field", inst, fname]

    def width_of(self, e) -> int | None:
        if e[0] == "field":
            t = self.types[self.instances[e[1]].type]
            return next(f.width for f in t.fields if f.name == e[2])
        if e[0] == "valid":
            return 1
        return None

    # --- expressions --------------------------------------------------------------------------
    def expr(self, j, where: str, ctx: str = "action"):
        """A BMv2 type/value object -> a normalized expression (nested lists)."""
        if not isinstance(j, dict) or "type" not in j:
            raise P4CompileError(where, f"expected a type/value object, got {j!r}")
        t, v = j["type"], j.get("value")
        if t == "field":
            return self.field_ref(v, where)
        if t == "hexstr":
            try:
                return ["const", int(v, 16)]
            except (TypeError, ValueError):
                raise P4CompileError(where, f"bad hexstr {v!r}") from None
        if t == "bool":
            return ["const", 1 if v else 0]
        if t in ("runtime_data", "local"):
            if ctx != "action":
                raise P4CompileError(where, f"{t} outside an action")
            return ["param", int(v)]
        if t == "header":
            if v not in self.instances:
                raise P4CompileError(where, f"unknown header instance {v!r}")
            return ["header", v]
        if t == "header_stack":
            if v not in self.stacks:
                raise P4CompileError(where, f"unknown header stack {v!r}")
            return ["stack", v]
        if t == "stack_field":
            stack, fname = v
            if stack not in self.stacks:
                raise P4CompileError(where, f"unknown header stack {stack!r}")
            return ["stack_field", stack, fname]
        if t == "lookahead":
            if ctx != "parser":
                raise P4CompileError(where, "lookahead outside the parser")
            return ["lookahead", int(v[0]), int(v[1])]
        if t == "expression":
            node = v
            while isinstance(node, dict) and "op" not in node and node.get("type") == "expression":
                node = node.get("value")
            if isinstance(node, dict) and "type" in node and "op" not in node:
                return self.expr(node, where, ctx)
            return self.op_expr(node, where, ctx)
        if t in ("register", "register_array"):
            raise P4CompileError(where, "registers are not in the hardware (no stateful memory)")
        if t in ("meter_array", "counter_array"):
            raise P4CompileError(where, f"{t.split('_')[0]}s are not in the hardware")
        if t == "extern":
            raise P4CompileError(where, f"extern {v!r}: externs are not in the hardware")
        if t in ("union_stack_field", "header_union", "header_union_stack"):
            raise P4CompileError(where, "header unions are not supported")
        raise P4CompileError(where, f"unsupported operand type {t!r}")

    def op_expr(self, node, where: str, ctx: str):
        if not isinstance(node, dict) or "op" not in node:
            raise P4CompileError(where, f"bad expression {node!r}")
        op = node["op"]
        if op in _NO_ALU:
            raise P4CompileError(where, f"operator {op!r}: {_NO_ALU[op]} is not in the action unit")
        if op == "valid":
            h = self.expr(node.get("right"), where, ctx)
            if h[0] != "header":
                raise P4CompileError(where, "valid() of something that is not a header")
            return ["valid", h[1]]
        if op == "dereference_header_stack":
            s = self.expr(node.get("left"), where, ctx)
            idx = self.expr(node.get("right"), where, ctx)
            if s[0] != "stack" or idx[0] != "const":
                raise P4CompileError(where, "a header stack index computed at run time is not supported")
            members = self.stacks[s[1]].instances
            if not 0 <= idx[1] < len(members):
                raise P4CompileError(where, f"stack index {idx[1]} out of bounds for {s[1]!r}")
            return ["header", members[idx[1]]]
        if op == "access_field":
            h = self.expr(node.get("left"), where, ctx)
            if h[0] != "header":
                raise P4CompileError(where, "access_field on something that is not a header")
            fields = self.types[self.instances[h[1]].type].fields
            k = node.get("right")
            if not isinstance(k, int) or not 0 <= k < len(fields):
                raise P4CompileError(where, f"bad field offset {k!r}")
            return ["field", h[1], fields[k].name]
        if op not in _ALU:
            raise P4CompileError(where, f"unknown expression operator {op!r}")
        args = []
        if op == "?":
            args.append(self.expr(node.get("cond"), where, ctx))
        if node.get("left") is not None:
            args.append(self.expr(node["left"], where, ctx))
        args.append(self.expr(node.get("right"), where, ctx))
        return ["op", _ALU[op], *args]

    # --- lowering expressions into ops --------------------------------------------------------
    def lower_assign(self, dst, e, ops: list, temps: list, where: str):
        if dst[0] not in ("field", "stack_field"):
            raise P4CompileError(where, f"cannot assign to {dst[0]}")
        w = self.width_of(dst)
        # a write truncates: drop a top-level "& all-ones" mask
        if e[0] == "op" and e[1] == "and" and w:
            ones = (1 << w) - 1
            for a, b in ((e[2], e[3]), (e[3], e[2])):
                if b[0] == "const" and b[1] >= 0 and b[1] & ones == ones:
                    e = a
                    break
        if e[0] != "op":
            ops.append(Op("set", dst, [e]))
            return
        args = [lower_expr(a, ops, temps) for a in e[2:]]
        op = Op(e[1], dst, args)
        # x + (2^w - k) into a w-bit field is x - k; the TTL decrement is dec
        if w and op.op == "add" and args[1][0] == "const" and (1 << (w - 1)) <= args[1][1] < (1 << w):
            k = (1 << w) - args[1][1]
            op = Op("dec", dst, [args[0]]) if k == 1 and args[0] == dst else Op("sub", dst, [args[0], ["const", k]])
        elif w and op.op == "sub" and args[1] == ["const", 1] and args[0] == dst:
            op = Op("dec", dst, [args[0]])
        ops.append(op)


    # --- primitives ---------------------------------------------------------------------------
    def primitive(self, p: dict, where: str, ops: list, temps: list, ctx: str = "action"):
        name = self.need(p, "op", where, str)
        where = f'{where} (op "{name}")'
        params = p.get("parameters") or []
        P = lambda i: self.expr(params[i], f"{where}.parameters[{i}]", ctx)  # noqa: E731

        def nparams(n):
            if len(params) != n:
                raise P4CompileError(where, f"expects {n} parameters, has {len(params)}")

        if name in ("assign", "modify_field"):
            if len(params) not in (2, 3):
                raise P4CompileError(where, f"expects 2 parameters, has {len(params)}")
            if len(params) == 3:
                raise P4CompileError(where, "modify_field with a mask is not supported")
            dst, src = P(0), P(1)
            if dst[0] == "header" and src[0] == "header":  # P4_16 header assignment
                ops.append(Op("copy_header", dst, [src]))
                return
            self.lower_assign(dst, src, ops, temps, where)
        elif name in ("add_to_field", "subtract_from_field"):
            nparams(2)
            dst = P(0)
            self.lower_assign(dst, ["op", "add" if name == "add_to_field" else "sub", dst, P(1)], ops, temps, where)
        elif name in ("add", "subtract", "bit_and", "bit_or", "bit_xor", "shift_left", "shift_right"):
            nparams(3)
            alu = {"add": "add", "subtract": "sub", "bit_and": "and", "bit_or": "or", "bit_xor": "xor",
                   "shift_left": "shl", "shift_right": "shr"}[name]
            self.lower_assign(P(0), ["op", alu, P(1), P(2)], ops, temps, where)
        elif name in ("add_header", "remove_header", "setValid", "setInvalid"):
            nparams(1)
            h = P(0)
            if h[0] != "header":
                raise P4CompileError(where, "expects a header")
            ops.append(Op("set_valid" if name in ("add_header", "setValid") else "set_invalid", h, []))
        elif name in ("copy_header", "assign_header"):
            nparams(2)
            dst, src = P(0), P(1)
            if dst[0] != "header" or src[0] != "header":
                raise P4CompileError(where, "expects two headers")
            if self.instances[dst[1]].type != self.instances[src[1]].type:
                raise P4CompileError(where, f"headers {dst[1]!r} and {src[1]!r} are of different types")
            ops.append(Op("copy_header", dst, [src]))
        elif name in ("drop", "mark_to_drop"):
            ops.append(Op("drop", None, []))
        elif name in ("push", "pop"):
            nparams(2)
            s, n = P(0), P(1)
            if s[0] != "stack" or n[0] != "const":
                raise P4CompileError(where, "expects a header stack and a constant count")
            ops.append(Op(name, s, [n]))
        elif name == "generate_digest":
            nparams(2)
            lid = P(1)
            if lid[0] != "const" or lid[1] not in self.learn_ids:
                raise P4CompileError(where, f"unknown learn list {lid!r}")
            ops.append(Op("digest", None, [lid]))
            self.notes.append(f"{where}: accepted as a counted no-op (the interpreter records the digest; "
                              "the hardware has no learning path)")
        elif name == "exit":
            ops.append(Op("exit", None, []))
        elif name == "no_op":
            pass
        elif name in _REFUSED_PRIMITIVES:
            raise P4CompileError(where, _REFUSED_PRIMITIVES[name])
        elif name.startswith("_") or any(x.get("type") == "extern" for x in params if isinstance(x, dict)):
            raise P4CompileError(where, "extern method calls are not in the hardware")
        else:
            raise P4CompileError(where, "unknown primitive")

    def actions(self):
        self.learn_ids = {}
        self.learn_lists = []
        for i, l in enumerate(self.top("learn_lists")):
            where = f"learn_lists[{i}]"
            lid = self.need(l, "id", where, int)
            fields = [self.expr(e, f"{where}.elements[{k}]") for k, e in enumerate(l.get("elements") or [])]
            self.learn_ids[lid] = l.get("name", str(lid))
            self.learn_lists.append(LearnList(lid, l.get("name", str(lid)), fields))
        self.actions_: dict[int, Action] = {}
        for i, a in enumerate(self.need(self.j, "actions", "(top level)", list)):
            where = f"actions[{i}]"
            name = self.need(a, "name", where, str)
            where = f'{where} "{name}"'
            aid = self.need(a, "id", where, int)
            params = []
            for k, r in enumerate(a.get("runtime_data") or []):
                params.append([self.need(r, "name", f"{where}.runtime_data[{k}]", str),
                               self.need(r, "bitwidth", f"{where}.runtime_data[{k}]", int)])
            ops: list[Op] = []
            temps: list = []
            for k, p in enumerate(self.need(a, "primitives", where, list)):
                self.primitive(p, f"{where}.primitives[{k}]", ops, temps)
                for op in ops:
                    for x in _leaves([op.dst, *op.args]):
                        if x[0] == "param" and not 0 <= x[1] < len(params):
                            raise P4CompileError(f"{where}.primitives[{k}]",
                                                 f"runtime_data index {x[1]} out of range")
            if aid in self.actions_:
                raise P4CompileError(where, f"duplicate action id {aid}")
            self.actions_[aid] = Action(aid, name, params, ops, len(temps))

    # --- parser -------------------------------------------------------------------------------
    def parser(self) -> Parser:
        parsers = self.need(self.j, "parsers", "(top level)", list)
        if not parsers:
            raise P4CompileError("parsers", "no parser")
        if len(parsers) > 1:
            raise P4CompileError(f'parsers[1] "{parsers[1].get("name")}"', "one parser only")
        p = parsers[0]
        where0 = f'parsers[0] "{p.get("name")}"'
        states, names = [], set()
        raw_states = self.need(p, "parse_states", where0, list)
        for s in raw_states:
            names.add(s.get("name"))
        for i, s in enumerate(raw_states):
            where = f"{where0}.parse_states[{i}]"
            name = self.need(s, "name", where, str)
            where = f'{where} "{name}"'
            ops = []
            for k, o in enumerate(s.get("parser_ops") or []):
                ops.append(self.parser_op(o, f"{where}.parser_ops[{k}]"))
            key, kw = [], 0
            for k, src in enumerate(s.get("transition_key") or []):
                e = self.expr(src, f"{where}.transition_key[{k}]", ctx="parser")
                if e[0] == "field":
                    w = self.width_of(e)
                    key.append(KeySource("field", e[1:], w, (w + 7) // 8 * 8))
                elif e[0] == "stack_field":
                    t = self.types[self.stacks[e[1]].type]
                    f = next((f for f in t.fields if f.name == e[2]), None)
                    if f is None:
                        raise P4CompileError(f"{where}.transition_key[{k}]", f"no field {e[2]!r} in stack {e[1]!r}")
                    key.append(KeySource("stack_field", e[1:], f.width, (f.width + 7) // 8 * 8))
                elif e[0] == "lookahead":
                    key.append(KeySource("lookahead", e[1:], e[2], (e[2] + 7) // 8 * 8))
                elif e[0] == "valid":
                    key.append(KeySource("valid", [e[1]], 1, 8))
                else:
                    raise P4CompileError(f"{where}.transition_key[{k}]", f"unsupported transition key {e[0]}")
                kw += key[-1].padded
            trans = []
            for k, t in enumerate(self.need(s, "transitions", where, list)):
                tw = f"{where}.transitions[{k}]"
                kind = t.get("type") or ("default" if t.get("value") in (None, "default") else "hexstr")
                nxt = t.get("next_state")
                if nxt is not None and nxt not in names:
                    raise P4CompileError(tw, f"unknown next state {nxt!r}")
                if kind == "default":
                    trans.append(Transition(None, None, nxt))
                elif kind == "hexstr":
                    try:
                        val = int(t["value"], 16)
                        mask = None if t.get("mask") is None else int(t["mask"], 16)
                    except (KeyError, TypeError, ValueError):
                        raise P4CompileError(tw, f"bad transition value {t.get('value')!r}") from None
                    if kw == 0:
                        raise P4CompileError(tw, "a value transition in a state without a transition key")
                    if val >> kw or (mask is not None and mask >> kw):
                        raise P4CompileError(tw, f"value wider than the {kw}-bit transition key")
                    trans.append(Transition(val, mask, nxt))
                elif kind == "parse_vset":
                    raise P4CompileError(tw, "parse value sets are not in the parser")
                else:
                    raise P4CompileError(tw, f"unknown transition type {kind!r}")
            states.append(ParseState(name, ops, key, kw, trans))
        init = self.need(p, "init_state", where0, str)
        if init not in names:
            raise P4CompileError(where0, f"unknown init_state {init!r}")
        # cycles (stack loops)?
        graph = {s.name: [t.next for t in s.transitions if t.next] for s in states}
        loops = _has_cycle(graph)
        return Parser(p.get("name", "parser"), init, states, loops)

    def parser_op(self, o: dict, where: str) -> ParserOp:
        op = self.need(o, "op", where, str)
        where = f'{where} (op "{op}")'
        params = o.get("parameters") or []
        if op == "extract":
            if len(params) != 1:
                raise P4CompileError(where, "expects one parameter")
            t, v = params[0].get("type"), params[0].get("value")
            if t == "regular":
                if v not in self.instances:
                    raise P4CompileError(where, f"unknown header instance {v!r}")
                if self.instances[v].metadata:
                    raise P4CompileError(where, f"extract into metadata {v!r}")
                return ParserOp("extract", [v])
            if t == "stack":
                if v not in self.stacks:
                    raise P4CompileError(where, f"unknown header stack {v!r}")
                return ParserOp("extract_next", [v])
            if t == "union_stack":
                raise P4CompileError(where, "header unions are not supported by the parser")
            raise P4CompileError(where, f"unknown extract type {t!r}")
        if op == "extract_VL":
            raise P4CompileError(where, "variable-length (varbit) extraction is not in the parser")
        if op == "set":
            if len(params) != 2:
                raise P4CompileError(where, "expects two parameters")
            ops, temps = [], []
            self.lower_assign(self.expr(params[0], where, "parser"), self.expr(params[1], where, "parser"),
                              ops, temps, where)
            return ParserOp("primitive", [ops])
        if op == "verify":
            if len(params) != 2:
                raise P4CompileError(where, "expects two parameters")
            return ParserOp("verify", [self.expr(params[0], where, "parser"), self.expr(params[1], where, "parser")])
        if op in ("shift", "advance"):
            if len(params) != 1:
                raise P4CompileError(where, "expects one parameter")
            e = self.expr(params[0], where, "parser")
            if op == "shift":
                if e[0] != "const":
                    raise P4CompileError(where, "shift by a non-constant")
                e = ["const", e[1] * 8]
            if e[0] == "const" and e[1] % 8:
                raise P4CompileError(where, f"advance by {e[1]} bits: not a whole number of bytes")
            return ParserOp("advance", [e])
        if op == "primitive":
            if len(params) != 1:
                raise P4CompileError(where, "expects one parameter")
            ops, temps = [], []
            self.primitive(params[0], where, ops, temps, ctx="parser")
            return ParserOp("primitive", [ops])
        raise P4CompileError(where, "unknown parser operation")

    # --- tables and control flow --------------------------------------------------------------
    def pipelines(self):
        self.tables_: list[Table] = []
        self.conds: list[Conditional] = []
        out = []
        node_names: dict[str, str] = {}
        raw = self.need(self.j, "pipelines", "(top level)", list)
        by_name = {}
        for a in self.actions_.values():
            by_name.setdefault(a.name, []).append(a.id)
        for pi, p in enumerate(raw):
            pwhere = f"pipelines[{pi}]"
            pname = self.need(p, "name", pwhere, str)
            pwhere = f'{pwhere} "{pname}"'
            if p.get("action_profiles"):
                ap = p["action_profiles"][0]
                raise P4CompileError(f'{pwhere}.action_profiles[0] "{ap.get("name")}"',
                                     "action profiles / selectors are not in the hardware")
            if p.get("action_calls"):
                raise P4CompileError(f"{pwhere}.action_calls", "direct action calls are not supported")
            tnames, cnames = [], []
            for ti, t in enumerate(p.get("tables") or []):
                tw = f"{pwhere}.tables[{ti}]"
                name = self.need(t, "name", tw, str)
                tw = f'{tw} "{name}"'
                if name in node_names:
                    raise P4CompileError(tw, f"name also used by {node_names[name]}")
                node_names[name] = tw
                self.tables_.append(self.table(t, tw, pname, by_name))
                tnames.append(name)
            for ci, c in enumerate(p.get("conditionals") or []):
                cw = f"{pwhere}.conditionals[{ci}]"
                name = self.need(c, "name", cw, str)
                cw = f'{cw} "{name}"'
                if name in node_names:
                    raise P4CompileError(cw, f"name also used by {node_names[name]}")
                node_names[name] = cw
                e = self.expr(self.need(c, "expression", cw), f"{cw}.expression", ctx="control")
                self.conds.append(Conditional(name, pname, e, c.get("true_next"), c.get("false_next")))
                cnames.append(name)
            out.append(Pipeline(pname, p.get("init_table"), tnames, cnames))
        # every reference resolves
        for pl, p in zip(out, raw):
            if pl.init is not None and pl.init not in node_names:
                raise P4CompileError(f'pipelines "{pl.name}".init_table', f"unknown node {pl.init!r}")
        for t in self.tables_:
            for k, n in list(t.next.items()) + [("base_default_next", t.base_default_next)]:
                if n is not None and n not in node_names:
                    raise P4CompileError(f'table "{t.name}".next_tables[{k!r}]', f"unknown node {n!r}")
        for c in self.conds:
            for n in (c.true_next, c.false_next):
                if n is not None and n not in node_names:
                    raise P4CompileError(f'conditional "{c.name}"', f"unknown next node {n!r}")
        names = [p.name for p in out]
        if "ingress" not in names:
            raise P4CompileError("pipelines", "no ingress pipeline")
        for extra in names:
            if extra not in ("ingress", "egress"):
                raise P4CompileError(f'pipelines "{extra}"', "only ingress and egress pipelines")
        return out

    def table(self, t: dict, where: str, pipeline: str, by_name: dict) -> Table:
        name = t["name"]
        ttype = t.get("type", "simple")
        if ttype != "simple":
            raise P4CompileError(where, f"table type {ttype!r}: action profiles / selectors are not in the hardware")
        if t.get("with_counters"):
            raise P4CompileError(where, "direct counters (with_counters) are not in the hardware")
        if t.get("direct_meters"):
            raise P4CompileError(where, f"direct meter {t['direct_meters']!r}: meters are not in the hardware")
        if t.get("support_timeout"):
            raise P4CompileError(where, "entry ageing (support_timeout) is not in the hardware")
        mt = self.need(t, "match_type", where, str)
        if mt not in ("exact", "lpm", "ternary", "range"):
            raise P4CompileError(where, f"unknown match_type {mt!r}")
        size = self.need(t, "max_size", where, int)
        key, off = [], 0
        for k, kf in enumerate(self.need(t, "key", where, list)):
            kw = f"{where}.key[{k}]"
            kind = self.need(kf, "match_type", kw, str)
            if kind not in ("exact", "lpm", "ternary", "range", "valid"):
                raise P4CompileError(kw, f"unknown key match_type {kind!r}")
            target = self.need(kf, "target", kw)
            if kind == "valid":
                if target not in self.instances:
                    raise P4CompileError(kw, f"unknown header instance {target!r}")
                ref = ["valid", target]
            else:
                ref = self.field_ref(target, kw)
            w = self.width_of(ref)
            inst = self.instances[ref[1]]
            if ref[0] == "valid":
                phv = inst.valid_bit
            else:
                fo = next(f.offset for f in self.types[inst.type].fields if f.name == ref[2])
                phv = inst.phv_offset + fo
            mask = kf.get("mask")
            try:
                mask = None if mask is None else int(mask, 16)
            except (TypeError, ValueError):
                raise P4CompileError(kw, f"bad mask {mask!r}") from None
            kname = kf.get("name") or (f"{ref[1]}.$valid$" if ref[0] == "valid" else f"{ref[1]}.{ref[2]}")
            key.append(KeyField(kname, kind, ref, w, off, phv, mask))
            off += w
        kinds = {k.kind for k in key}
        if sum(k.kind == "lpm" for k in key) > 1:
            raise P4CompileError(where, "more than one lpm key field")
        if off > TCAM_KEY_BITS:
            raise P4CompileError(where, f"key of {off} bits: the TCAM matches at most {TCAM_KEY_BITS} bits")
        # actions
        names = self.need(t, "actions", where, list)
        ids = t.get("action_ids")
        if ids is None:
            ids = []
            for n in names:
                cands = by_name.get(n, [])
                if len(cands) != 1:
                    raise P4CompileError(f"{where}.actions", f"action {n!r} is {'ambiguous' if cands else 'unknown'}")
                ids.append(cands[0])
        if len(ids) != len(names):
            raise P4CompileError(where, "actions and action_ids differ in length")
        for n, i in zip(names, ids):
            if i not in self.actions_ or self.actions_[i].name != n:
                raise P4CompileError(f"{where}.action_ids", f"no action {n!r} with id {i}")
        nxt = dict(self.need(t, "next_tables", where, dict))
        for k in nxt:
            if k not in names and k not in ("__HIT__", "__MISS__"):
                raise P4CompileError(f"{where}.next_tables", f"{k!r} is not an action of the table")
        default = None
        de = t.get("default_entry")
        if de is None and isinstance(t.get("default_action"), dict):
            de = t["default_action"]
        if de is not None:
            dw = f"{where}.default_entry"
            aid = self.need(de, "action_id", dw, int)
            if aid not in ids:
                raise P4CompileError(dw, f"action id {aid} is not an action of the table")
            data = [int(x, 16) for x in de.get("action_data") or []]
            if de.get("action_data") is None:
                data = [0] * len(self.actions_[aid].params)  # no data given: zeros
            elif len(data) != len(self.actions_[aid].params):
                raise P4CompileError(dw, "action_data does not match the action's parameters")
            default = DefaultEntry(aid, data, bool(de.get("action_const")),
                                   bool(de.get("action_entry_const")) and de.get("action_data") is not None)
        entries = []
        for ei, e in enumerate(t.get("entries") or []):
            ew = f"{where}.entries[{ei}]"
            mk = self.need(e, "match_key", ew, list)
            if len(mk) != len(key):
                raise P4CompileError(ew, f"{len(mk)} match fields for a key of {len(key)}")
            spec = []
            for m, kf in zip(mk, key):
                if m.get("match_type") != kf.kind:
                    raise P4CompileError(ew, f"match_type {m.get('match_type')!r} for a {kf.kind} key field")
                try:
                    if kf.kind in ("exact",):
                        spec.append(["exact", int(m["key"], 16)])
                    elif kf.kind == "valid":
                        spec.append(["valid", 1 if m["key"] else 0])
                    elif kf.kind == "lpm":
                        spec.append(["lpm", int(m["key"], 16), int(m["prefix_length"])])
                    elif kf.kind == "ternary":
                        spec.append(["ternary", int(m["key"], 16), int(m["mask"], 16)])
                    else:
                        spec.append(["range", int(m["start"], 16), int(m["end"], 16)])
                except (KeyError, TypeError, ValueError) as x:
                    raise P4CompileError(ew, f"bad match key ({x})") from None
            ae = self.need(e, "action_entry", ew, dict)
            aid = self.need(ae, "action_id", f"{ew}.action_entry", int)
            if aid not in ids:
                raise P4CompileError(ew, f"action id {aid} is not an action of the table")
            entries.append({"key": spec, "action": aid, "data": [int(x, 16) for x in ae.get("action_data") or []],
                            "priority": e.get("priority", ei)})
        if not key:
            memory, blocks, prio = "none", 0, "-"
        elif kinds <= {"exact", "valid"} and size > HASH_MIN_ENTRIES:
            memory, blocks, prio = "hash", 0, "-"
        else:
            memory, blocks = "tcam", -(-size // TCAM_BLOCK_ENTRIES)
            prio = "entry" if kinds & {"ternary", "range"} else ("prefix" if "lpm" in kinds else "-")
        return Table(t.get("id", 0), name, pipeline, mt, key, off, size, list(ids), list(names), default, nxt,
                     t.get("base_default_next"), entries, memory, blocks, prio)

    # --- checksums, target ----------------------------------------------------------------------
    def checksums(self) -> list[Checksum]:
        calcs = {}
        for i, c in enumerate(self.top("calculations")):
            calcs[c.get("name")] = (i, c)
        out = []
        for i, c in enumerate(self.top("checksums")):
            where = f"checksums[{i}]"
            name = self.need(c, "name", where, str)
            where = f'{where} "{name}"'
            target = self.field_ref(self.need(c, "target", where), f"{where}.target")
            if c.get("type", "generic") not in ("generic", "ipv4"):
                raise P4CompileError(where, f"checksum type {c.get('type')!r}")
            cname = self.need(c, "calculation", where, str)
            if cname not in calcs:
                raise P4CompileError(where, f"unknown calculation {cname!r}")
            ci, calc = calcs[cname]
            cw = f'calculations[{ci}] "{cname}"'
            algo = calc.get("algo")
            if algo != "csum16":
                raise P4CompileError(cw, f"algorithm {algo!r}: the checksum unit computes only csum16 "
                                         "(16-bit ones' complement sum)")
            inputs = []
            for k, x in enumerate(self.need(calc, "input", cw, list)):
                t = x.get("type")
                if t == "payload":
                    raise P4CompileError(f"{cw}.input[{k}]", "a checksum over the payload (TCP/UDP) is not in "
                                                             "the checksum unit, which covers header fields")
                if t == "hexstr":
                    inputs.append(["const", int(x["value"], 16), int(self.need(x, "bitwidth", f"{cw}.input[{k}]"))])
                elif t == "field":
                    inputs.append(self.field_ref(x.get("value"), f"{cw}.input[{k}]"))
                elif t == "header":
                    h = x.get("value")
                    if h not in self.instances:
                        raise P4CompileError(f"{cw}.input[{k}]", f"unknown header {h!r}")
                    inputs += [["field", h, f.name] for f in self.types[self.instances[h].type].fields]
                else:
                    raise P4CompileError(f"{cw}.input[{k}]", f"unsupported input type {t!r}")
            bits = sum(x[2] if x[0] == "const" else self.width_of(x) for x in inputs)
            if bits % 8:
                raise P4CompileError(cw, f"inputs of {bits} bits: not whole bytes")
            if self.width_of(target) != 16:
                raise P4CompileError(f"{where}.target", "a csum16 target must be a 16-bit field")
            cond = c.get("if_cond")
            cond = None if cond is None else self.expr(cond, f"{where}.if_cond", ctx="control")
            if cond == ["const", 1]:
                cond = None
            out.append(Checksum(name, target, inputs, algo, bool(c.get("verify", True)), bool(c.get("update", True)),
                                cond))
        return out

    def target(self) -> str:
        if self.target_override:
            t = self.target_override
        else:
            im = self.instances.get("intrinsic_metadata")
            names = {f.name for f in self.types[im.type].fields} if im else set()
            t = "l2_switch" if {"mgid", "learn_id"} <= names else "simple_switch"
        need = {"simple_switch": [("standard_metadata", "ingress_port"), ("standard_metadata", "egress_spec"),
                                  ("standard_metadata", "egress_port")],
                "l2_switch": [("standard_metadata", "ingress_port"), ("standard_metadata", "egress_port"),
                              ("intrinsic_metadata", "mgid"), ("intrinsic_metadata", "learn_id")]}
        if t not in need:
            raise P4CompileError("(target)", f"unknown target {t!r} (simple_switch or l2_switch)")
        for inst, f in need[t]:
            try:
                self.field_ref([inst, f], "(target)")
            except P4CompileError:
                raise P4CompileError("headers", f"the {t} target needs the field {inst}.{f}") from None
        return t

    def refuse_stateful(self):
        why = {"register_arrays": "registers are not in the hardware (no stateful memory)",
               "counter_arrays": "counters are not in the hardware (no counter memory)",
               "meter_arrays": "meters are not in the hardware",
               "extern_instances": "externs are not in the hardware",
               "parse_vsets": "parse value sets are not in the parser"}
        for key, reason in why.items():
            items = self.top(key)
            if items:
                x = items[0]
                extra = f" of type {x.get('type')!r}" if key == "extern_instances" else ""
                raise P4CompileError(f'{key}[0] "{x.get("name")}"', reason + extra)

    def run(self) -> Config:
        meta = self.j.get("__meta__") or {}
        version = meta.get("version") or [1, 0]
        if not isinstance(version, list) or version[0] not in (1, 2):
            raise P4CompileError("__meta__.version", f"unsupported BMv2 JSON version {version!r} (2.x expected)")
        self.headers()
        self.refuse_stateful()
        errors = dict(CORE_ERRORS)
        if self.j.get("errors"):
            errors = {}
            for i, e in enumerate(self.top("errors")):
                if not isinstance(e, list) or len(e) != 2:
                    raise P4CompileError(f"errors[{i}]", "expected [name, value]")
                errors[e[0]] = e[1]
        self.errors = errors
        self.actions()
        parser = self.parser()
        pipelines = self.pipelines()
        deps = self.need(self.j, "deparsers", "(top level)", list)
        if len(deps) != 1:
            raise P4CompileError("deparsers", f"{len(deps)} deparsers: one expected")
        order = self.need(deps[0], "order", "deparsers[0]", list)
        for k, h in enumerate(order):
            if h not in self.instances:
                raise P4CompileError(f"deparsers[0].order[{k}]", f"unknown header instance {h!r}")
            if self.instances[h].metadata:
                raise P4CompileError(f"deparsers[0].order[{k}]", f"metadata {h!r} cannot be deparsed")
        checksums = self.checksums()
        target = self.target()
        limits = {"tcam_key_bits": TCAM_KEY_BITS, "tcam_block_entries": TCAM_BLOCK_ENTRIES,
                  "hash_min_entries": HASH_MIN_ENTRIES, "drop_port": DROP_PORT}
        return Config(
            program=Path(str(self.j.get("program") or self.name)).name, target=target, json_version=list(version),
            header_types=list(self.types.values()), instances=list(self.instances.values()),
            stacks=list(self.stacks.values()), phv_width=self.phv_width, errors=self.errors, parser=parser,
            pipelines=pipelines, tables=self.tables_, conditionals=self.conds,
            actions=sorted(self.actions_.values(), key=lambda a: a.id), deparser=list(order), checksums=checksums,
            learn_lists=self.learn_lists, notes=self.notes, limits=limits)


def _kind_name(kinds) -> str:
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    return " or ".join({"list": "a JSON array", "dict": "a JSON object", "str": "a string", "int": "an integer"}
                       .get(k.__name__, k.__name__) for k in kinds)


def _leaves(exprs):
    for e in exprs:
        if isinstance(e, list) and e:
            if e[0] == "op":
                yield from _leaves(e[2:])
            else:
                yield e


def _has_cycle(graph: dict) -> bool:
    state = {}

    def visit(n):
        state[n] = 1
        for m in graph.get(n, []):
            if state.get(m) == 1 or (m not in state and visit(m)):
                return True
        state[n] = 2
        return False

    return any(n not in state and visit(n) for n in graph)


def compile_program(j: dict | str | bytes, name: str = "program", target: str | None = None) -> Config:
    """BMv2 JSON (parsed, or its text) -> Config. `compile_ms` measures this call (JSON text
    parsing included). `target` overrides the detected architecture."""
    t0 = time.perf_counter()
    if isinstance(j, (str, bytes)):
        try:
            j = json.loads(j)
        except json.JSONDecodeError as e:
            raise P4CompileError("(file)", f"not JSON: {e}") from None
    cfg = _Compiler(j, name, target).run()
    cfg.compile_ms = (time.perf_counter() - t0) * 1000.0
    return cfg


def compile_file(path: str | Path, target: str | None = None) -> Config:
    """Read and compile a BMv2 JSON file (file reading is not in `compile_ms`)."""
    path = Path(path)
    return compile_program(path.read_bytes(), name=path.stem, target=target)


def summary(cfg: Config) -> str:
    """A short human-readable table of what the program became."""
    lines = [f"program {cfg.program}: target {cfg.target}, PHV {cfg.phv_width} bits, "
             f"{len(cfg.parser.states)} parse states, {len(cfg.tables)} tables, {len(cfg.actions)} actions, "
             f"compiled in {cfg.compile_ms:.2f} ms"]
    for t in cfg.tables:
        kinds = ",".join(k.kind for k in t.key) or "-"
        lines.append(f"  table {t.name} ({t.pipeline}): key {t.key_width} bits [{kinds}], {t.size} entries -> "
                     f"{t.memory}"
                     + (f" ({t.tcam_blocks} blocks, priority by {t.priority})" if t.memory == "tcam" else ""))
    for a in cfg.actions:
        if a.ops:
            lines.append(f"  action {a.name}#{a.id}: " + "; ".join(op.op for op in a.ops))
    for n in cfg.notes:
        lines.append(f"  note: {n}")
    return "\n".join(lines)
