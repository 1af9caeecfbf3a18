"""The reference interpreter: a compiled program (`fastpath.p4.compiler.Config`) run on packets
with the semantics of bmv2's simple_switch (v1model) or l2_switch target.

`Interpreter(config, store).process(data, port)` returns a `Result`: the output packets as
(egress port, bytes), whether the packet was dropped, the parser error, the digests generated and
a trace of the tables applied. It executes the configuration the hardware will load (the
actions' lowered op programs, the key layouts, the parser graph), so it is the golden model for
the RTL pipeline, which is not built yet.

Semantics, per packet:

- Parse from the init state: `extract` takes the header's bytes (too few left: error
  PacketTooShort, the header stays invalid and nothing is consumed), `extract_next` the next
  element of a stack (none left: StackOutOfBounds), `verify` raises its error, `advance` skips
  bytes; the transition key is the concatenation of its fields, each padded to whole bytes, and
  the first transition whose `(key & mask) == (value & mask)` holds is taken (none: NoMatch).
  A parser error stops parsing; as in v1model the packet still goes through ingress, with
  `standard_metadata.parser_error` set (when the program has that field) and the unparsed bytes
  kept as payload, so a truncated or malformed packet comes out as it came in unless the program
  changes it. Then every checksum with `verify` is checked (`standard_metadata.checksum_error`).
- Ingress: tables and conditionals from the pipeline's init node. A table builds its key, looks
  it up in the `TableStore`, runs the entry's action (or the default action on a miss; none set:
  nothing), and goes to the next node of that action (or of __HIT__/__MISS__). `exit` ends the
  pipeline.
- simple_switch: `mark_to_drop`/`drop` set egress_spec to 511; after ingress a non-zero
  `mcast_grp` replicates the packet to its multicast group's ports (`mc_*` commands), else
  egress_spec 511 drops it, else egress_port = egress_spec and egress runs; egress_spec 511 after
  egress drops it too. l2_switch: egress_port is set by ingress (511 drops), a non-zero
  `intrinsic_metadata.mgid` sends a copy to every port of that group but the ingress port.
- Deparse: checksums with `update` are recomputed, then the valid headers in deparser order,
  then the payload.

Stacks follow P4_16 (bmv2's StackP4_16): push/pop shift the whole stack and the new elements
are invalid. Fields of invalid headers read as their last value (zero at the start of a packet).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .compiler import DROP_PORT, Config
from .runtime import TableStore

MAX_PARSE_STATES = 4096  # a parser loop that consumes nothing ends with ParserTimeout


@dataclass
class Result:
    outputs: list[tuple[int, bytes]]
    dropped: bool
    parser_error: str = "NoError"
    digests: list[tuple[str, list[int]]] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


class _ParserError(Exception):
    def __init__(self, name: str):
        self.name = name


class _State:
    """One packet's header values and validity."""

    __slots__ = ("vals", "valid", "next", "payload", "exit")

    def __init__(self):
        self.vals: dict[str, dict[str, int]] = {}
        self.valid: dict[str, bool] = {}
        self.next: dict[str, int] = {}
        self.payload = b""
        self.exit = False

    def clone(self) -> "_State":
        s = _State()
        s.vals = {k: dict(v) for k, v in self.vals.items()}
        s.valid = dict(self.valid)
        s.next = dict(self.next)
        s.payload = self.payload
        return s


class Interpreter:
    """Runs one compiled program; `store` holds its tables (a new empty one if not given)."""

    def __init__(self, cfg: Config, store: TableStore | None = None):
        self.cfg = cfg
        self.store = store if store is not None else TableStore(cfg)
        self.types = {t.name: t for t in cfg.header_types}
        self.fields = {i.name: [(f.name, f.width) for f in self.types[i.type].fields] for i in cfg.instances}
        self.widths = {i.name: {f.name: f.width for f in self.types[i.type].fields} for i in cfg.instances}
        self.meta = {i.name for i in cfg.instances if i.metadata}
        self.states = {s.name: s for s in cfg.parser.states}
        self.tables = {t.name: t for t in cfg.tables}
        self.conds = {c.name: c for c in cfg.conditionals}
        self.pipes = {p.name: p for p in cfg.pipelines}
        self.actions = {a.id: a for a in cfg.actions}
        self.learn = {l.id: l for l in cfg.learn_lists}
        self.err_names = {v: k for k, v in cfg.errors.items()}
        sm = self.widths.get("standard_metadata", {})
        self.has = lambda inst, f: f in self.widths.get(inst, {})  # noqa: E731
        self.sm = sm

    # --- values -------------------------------------------------------------------------------
    def _new_state(self) -> _State:
        s = _State()
        for inst, fl in self.fields.items():
            s.vals[inst] = {f: 0 for f, _ in fl}
            s.valid[inst] = inst in self.meta
        for st in self.cfg.stacks:
            s.next[st.name] = 0
        return s

    def _set(self, s: _State, inst: str, f: str, v: int):
        s.vals[inst][f] = v & ((1 << self.widths[inst][f]) - 1)

    def _last(self, s: _State, stack: str) -> str:
        n = s.next[stack]
        if n == 0:
            raise _ParserError("StackOutOfBounds")
        return self.cfg.stack(stack).instances[n - 1]

    def eval(self, e, s: _State, params=(), temps=None, data: bytes = b"", off: int = 0) -> int:
        k = e[0]
        if k == "field":
            return s.vals[e[1]][e[2]]
        if k == "const":
            return e[1]
        if k == "valid":
            return 1 if s.valid[e[1]] else 0
        if k == "param":
            return params[e[1]]
        if k == "tmp":
            return temps[e[1]]
        if k == "stack_field":
            return s.vals[self._last(s, e[1])][e[2]]
        if k == "lookahead":
            start, width = off * 8 + e[1], e[2]
            nbytes = (start + width + 7) // 8
            if nbytes > len(data):
                raise _ParserError("PacketTooShort")
            v = int.from_bytes(data[start // 8:nbytes], "big") if nbytes > start // 8 else 0
            return (v >> (nbytes * 8 - start - width)) & ((1 << width) - 1) if width else 0
        if k == "op":
            if e[1] in ("last_index", "stack_size"):
                n = s.next[e[2][1]]
                return n if e[1] == "stack_size" else n - 1
            args = [self.eval(a, s, params, temps, data, off) for a in e[2:]]
            return _alu(e[1], args, s, self.cfg)
        raise ValueError(f"cannot evaluate {e!r}")

    # --- ops ----------------------------------------------------------------------------------
    def run_ops(self, ops, s: _State, params=(), res: Result | None = None):
        temps = {}
        for op in ops:
            name = op.op if hasattr(op, "op") else op["op"]
            dst = op.dst if hasattr(op, "dst") else op["dst"]
            args = op.args if hasattr(op, "args") else op["args"]
            if name == "set_valid":
                s.valid[dst[1]] = True
            elif name == "set_invalid":
                s.valid[dst[1]] = False
            elif name == "copy_header":
                s.vals[dst[1]] = dict(s.vals[args[0][1]])
                s.valid[dst[1]] = s.valid[args[0][1]]
            elif name == "drop":
                if self.cfg.target == "l2_switch":
                    self._set(s, "standard_metadata", "egress_port", DROP_PORT)
                else:
                    self._set(s, "standard_metadata", "egress_spec", DROP_PORT)
                    if self.has("standard_metadata", "mcast_grp"):
                        self._set(s, "standard_metadata", "mcast_grp", 0)
            elif name in ("push", "pop"):
                self._shift(s, dst[1], args[0][1], name == "push")
            elif name == "digest":
                lid = args[0][1]
                ll = self.learn[lid]
                if res is not None:
                    res.digests.append((ll.name, [self.eval(f, s, params, temps) for f in ll.fields]))
            elif name == "exit":
                s.exit = True
                return
            else:
                v = self.eval(["op", name, *args], s, params, temps) if name != "set" else \
                    self.eval(args[0], s, params, temps)
                if dst[0] == "tmp":
                    temps[dst[1]] = v
                elif dst[0] == "field":
                    self._set(s, dst[1], dst[2], v)
                elif dst[0] == "stack_field":
                    self._set(s, self._last(s, dst[1]), dst[2], v)
                else:
                    raise ValueError(f"bad destination {dst!r}")

    def _shift(self, s: _State, stack: str, n: int, push: bool):
        members = self.cfg.stack(stack).instances
        size = len(members)
        if n <= 0:
            return
        if push:
            for i in range(size - 1, n - 1, -1):
                s.vals[members[i]] = dict(s.vals[members[i - n]])
                s.valid[members[i]] = s.valid[members[i - n]]
            for i in range(min(n, size)):
                s.valid[members[i]] = False
            s.next[stack] = min(size, s.next[stack] + n)
        else:
            for i in range(size):
                if i + n < size:
                    s.vals[members[i]] = dict(s.vals[members[i + n]])
                    s.valid[members[i]] = s.valid[members[i + n]]
                else:
                    s.valid[members[i]] = False
            s.next[stack] = max(0, s.next[stack] - n)

    # --- parser -------------------------------------------------------------------------------
    def _extract(self, s: _State, inst: str, data: bytes, off: int) -> int:
        fl = self.fields[inst]
        n = sum(w for _, w in fl) // 8
        if off + n > len(data):
            raise _ParserError("PacketTooShort")
        v = int.from_bytes(data[off:off + n], "big")
        left = n * 8
        vals = s.vals[inst]
        for f, w in fl:
            left -= w
            vals[f] = (v >> left) & ((1 << w) - 1)
        s.valid[inst] = True
        return off + n

    def parse(self, s: _State, data: bytes) -> str:
        off = 0
        state = self.cfg.parser.init
        steps = 0
        error = "NoError"
        try:
            while state is not None:
                steps += 1
                if steps > MAX_PARSE_STATES:
                    raise _ParserError("ParserTimeout")
                st = self.states[state]
                for op in st.ops:
                    if op.op == "extract":
                        off = self._extract(s, op.args[0], data, off)
                    elif op.op == "extract_next":
                        stack = op.args[0]
                        members = self.cfg.stack(stack).instances
                        if s.next[stack] >= len(members):
                            raise _ParserError("StackOutOfBounds")
                        off = self._extract(s, members[s.next[stack]], data, off)
                        s.next[stack] += 1
                    elif op.op == "primitive":
                        self.run_ops(op.args[0], s)
                    elif op.op == "verify":
                        if not self.eval(op.args[0], s, data=data, off=off):
                            code = self.eval(op.args[1], s, data=data, off=off)
                            raise _ParserError(self.err_names.get(code, str(code)))
                    elif op.op == "advance":
                        n = self.eval(op.args[0], s, data=data, off=off)
                        if n % 8:
                            raise _ParserError("ParserInvalidArgument")
                        if off + n // 8 > len(data):
                            raise _ParserError("PacketTooShort")
                        off += n // 8
                key = 0
                for ks in st.key:
                    if ks.kind == "field":
                        v = s.vals[ks.ref[0]][ks.ref[1]]
                    elif ks.kind == "stack_field":
                        v = s.vals[self._last(s, ks.ref[0])][ks.ref[1]]
                    elif ks.kind == "valid":
                        v = 1 if s.valid[ks.ref[0]] else 0
                    else:
                        v = self.eval(["lookahead", *ks.ref], s, data=data, off=off)
                    key = (key << ks.padded) | v
                nxt = _NOMATCH = object()
                for t in st.transitions:
                    if t.value is None:
                        nxt = t.next
                        break
                    m = t.mask if t.mask is not None else (1 << st.key_width) - 1
                    if key & m == t.value & m:
                        nxt = t.next
                        break
                if nxt is _NOMATCH:
                    raise _ParserError("NoMatch")
                state = nxt
        except _ParserError as e:
            error = e.name
        s.payload = data[off:]
        return error

    # --- checksums ----------------------------------------------------------------------------
    def _csum(self, s: _State, ck) -> int:
        v, bits = 0, 0
        for x in ck.inputs:
            if x[0] == "const":
                v, bits = (v << x[2]) | (x[1] & ((1 << x[2]) - 1)), bits + x[2]
            else:
                if not s.valid[x[1]]:
                    continue  # fields of invalid headers are left out
                w = self.widths[x[1]][x[2]]
                v, bits = (v << w) | s.vals[x[1]][x[2]], bits + w
        if bits % 16:
            v, bits = v << 8, bits + 8
        total = 0
        for i in range(bits // 16):
            total += (v >> (bits - 16 * (i + 1))) & 0xFFFF
        while total >> 16:
            total = (total & 0xFFFF) + (total >> 16)
        return ~total & 0xFFFF

    def _checksums(self, s: _State, verify: bool):
        for ck in self.cfg.checksums:
            if not (ck.verify if verify else ck.update):
                continue
            if not s.valid[ck.target[1]]:
                continue
            if ck.cond is not None and not self.eval(ck.cond, s):
                continue
            c = self._csum(s, ck)
            if verify:
                if c != s.vals[ck.target[1]][ck.target[2]] and self.has("standard_metadata", "checksum_error"):
                    self._set(s, "standard_metadata", "checksum_error", 1)
            else:
                self._set(s, ck.target[1], ck.target[2], c)

    # --- control ------------------------------------------------------------------------------
    def run_pipeline(self, name: str, s: _State, res: Result):
        p = self.pipes.get(name)
        if p is None:
            return
        node = p.init
        s.exit = False
        while node is not None and not s.exit:
            if node in self.conds:
                c = self.conds[node]
                node = c.true_next if self.eval(c.expr, s) else c.false_next
                continue
            t = self.tables[node]
            ts = self.store.tables[node]
            values = []
            for k in t.key:
                v = self.eval(k.ref, s)
                if k.mask is not None:
                    v &= k.mask
                values.append(v)
            e = ts.lookup(values) if t.key else None
            if e is not None:
                aid, data, hit = e.action, e.data, True
            elif ts.default is not None:
                (aid, data), hit = ts.default, False
            else:
                aid, data, hit = None, [], False
            if aid is not None:
                a = self.actions[aid]
                res.trace.append(f"{name}: {t.name} {'hit' if hit else 'miss'} -> {a.name}")
                self.run_ops(a.ops, s, data, res)
            else:
                res.trace.append(f"{name}: {t.name} miss -> (no action)")
            if "__HIT__" in t.next or "__MISS__" in t.next:
                node = t.next.get("__HIT__" if hit else "__MISS__")
            elif aid is not None:
                aname = self.actions[aid].name
                node = t.next[aname] if aname in t.next else t.base_default_next
            else:
                node = t.base_default_next

    def deparse(self, s: _State) -> bytes:
        self._checksums(s, verify=False)
        out = bytearray()
        for inst in self.cfg.deparser:
            if not s.valid[inst]:
                continue
            v, bits = 0, 0
            for f, w in self.fields[inst]:
                v, bits = (v << w) | s.vals[inst][f], bits + w
            out += v.to_bytes(bits // 8, "big")
        return bytes(out) + s.payload

    def _egress(self, s: _State, port: int, res: Result, rid: int = 0) -> None:
        self._set(s, "standard_metadata", "egress_port", port)
        if self.has("standard_metadata", "egress_rid") and rid:
            self._set(s, "standard_metadata", "egress_rid", rid)
        self.run_pipeline("egress", s, res)
        if self.cfg.target == "simple_switch" and s.vals["standard_metadata"]["egress_spec"] == DROP_PORT:
            res.trace.append(f"egress: dropped (port {port})")
            return
        res.outputs.append((port, self.deparse(s)))

    def process(self, data: bytes, port: int) -> Result:
        """One packet in on `port`: what comes out."""
        data = bytes(data)
        res = Result([], False)
        s = self._new_state()
        self._set(s, "standard_metadata", "ingress_port", port)
        if self.has("standard_metadata", "packet_length"):
            self._set(s, "standard_metadata", "packet_length", len(data))
        res.parser_error = self.parse(s, data)
        if res.parser_error != "NoError":
            res.trace.append(f"parser: error {res.parser_error}")
        if self.has("standard_metadata", "parser_error") and res.parser_error in self.cfg.errors:
            self._set(s, "standard_metadata", "parser_error", self.cfg.errors[res.parser_error])
        self._checksums(s, verify=True)
        self.run_pipeline("ingress", s, res)
        sm = s.vals["standard_metadata"]
        if self.cfg.target == "l2_switch":
            mgid = s.vals["intrinsic_metadata"]["mgid"]
            egress_port = sm["egress_port"]
            if mgid:
                s.vals["intrinsic_metadata"]["mgid"] = 0
                for rid, p in self.store.mcast_ports(mgid):
                    if p != port:
                        self._egress(s.clone(), p, res, rid)
            elif egress_port == DROP_PORT:
                res.trace.append("ingress: dropped")
            else:
                self._egress(s, egress_port, res)
        else:
            mcast = sm.get("mcast_grp", 0)
            if mcast:
                for rid, p in self.store.mcast_ports(mcast):
                    self._egress(s.clone(), p, res, rid)
            elif sm["egress_spec"] == DROP_PORT:
                res.trace.append("ingress: dropped")
            else:
                self._egress(s, sm["egress_spec"], res)
        res.dropped = not res.outputs
        return res


def _alu(op: str, a: list[int], s: _State, cfg: Config) -> int:
    if op == "add":
        return a[0] + a[1]
    if op == "sub":
        return a[0] - a[1]
    if op == "dec":
        return a[0] - 1
    if op == "and":
        return a[0] & a[1]
    if op == "or":
        return a[0] | a[1]
    if op == "xor":
        return a[0] ^ a[1]
    if op == "not":
        return ~a[0]
    if op == "shl":
        return a[0] << a[1]
    if op == "shr":
        return a[0] >> a[1]
    if op == "eq":
        return int(a[0] == a[1])
    if op == "ne":
        return int(a[0] != a[1])
    if op == "lt":
        return int(a[0] < a[1])
    if op == "le":
        return int(a[0] <= a[1])
    if op == "gt":
        return int(a[0] > a[1])
    if op == "ge":
        return int(a[0] >= a[1])
    if op == "land":
        return int(bool(a[0]) and bool(a[1]))
    if op == "lor":
        return int(bool(a[0]) or bool(a[1]))
    if op == "lnot":
        return int(not a[0])
    if op in ("d2b", "b2d"):
        return int(bool(a[0]))
    if op == "mux":
        return a[1] if a[0] else a[2]
    raise ValueError(f"unknown op {op!r}")

