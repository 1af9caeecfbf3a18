"""The loader of the assembled RTL pipeline (`fp_p4_pipeline`): a compiled program and its table
store -> the parser's, the stages' and the deparser's configuration, and the TCAM rows of every
table (datasheet p4/docs/pipeline.md).

The mapping:

- **The system region.** The program's PHV is padded to the hardware's PHV_BITS and ends with an
  instance of the pipeline's own, `__fp_sys`, at fixed bit positions (counted from the PHV's
  least significant bit): the ingress port (15:0), parser_error (47:16), the payload offset
  (63:48), the egress port (79:64), the multicast group (95:80) and the control-flow flags (96
  and up). The program's `standard_metadata.ingress_port`, `parser_error`, its egress field
  (`egress_spec`, or `egress_port` on l2_switch) and its multicast group (`mcast_grp`, or
  `intrinsic_metadata.mgid`) are renamed to those fields everywhere (actions, keys, conditions),
  so the hardware puts packet facts in and takes results out without a shifter.
- **Control flow.** Every table and conditional of a pipeline becomes one stage, in a
  topological order of the control graph (ingress, then egress). A node other than a
  pipeline's first runs only when its "reached" flag is set (the stage's gate); each action of
  a table ends by setting the flag of its next node (an action whose next node depends on hit or
  miss gets one program for each), a conditional is a keyless stage whose default action
  computes the condition into its two successors' flags, and `exit` clears the flags of the
  rest of its pipeline. simple_switch programs with an egress pipeline get a bridge stage
  (egress_port = egress_spec; the egress flag unless the packet is dropped).
- **Tables.** The key's fields go into the stage's key slots (one field per slot, a field
  wider than a slot into several); the rows of the TCAM are the table store's entries in match
  order (priority order for ternary and range tables, longest prefix first for LPM), ranges
  expanded into prefixes; each row's action word is {stage action id, action data}. Tables the
  compiler puts in hash memory (large exact tables) go to the stage's hash block (fp_p4_hash,
  placed by `hash_load.HashImage`) when the build has one (HASH_ENTRIES > 0), else into TCAM rows.

What does not fit is a one-line `LoadError`.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from itertools import product

from .action_load import ActionHW, ActionImage, DeparserHW, DeparserImage, LoadError, load_actions, load_deparser
from .compiler import DROP_PORT, Action, Config, Field, HeaderType, Instance, Op, Table, lower_expr
from .hash_load import levels
from .parser_load import Geometry, ParserLoadError
from .parser_load import load as load_parser
from .runtime import TableStore, range_to_prefixes

SYS = "__fp_sys"
SYS_PORT, SYS_ERR, SYS_OFF, SYS_EGRESS, SYS_MCAST, SYS_FLAGS = 0, 16, 48, 64, 80, 96
GATE_BITS = 128   # fp_p4_pipeline's stages: gates in the PHV's 128 least significant bits
HASH_EXTRA = 1    # fp_p4_hash: key_valid to result_valid is LATENCY + HASH_EXTRA in the stage (measured)
STAGE_CFG_GATE, STAGE_CFG_DEFAULT, STAGE_CFG_SLOT, STAGE_CFG_DATA = 0, 1, 2, 64


def tcam_latency(key_width: int, entries: int, cmp_chunk: int = 4, and_radix: int = 4, enc_radix: int = 4,
                 blocks: int = 1) -> int:
    """fp_p4_tcam's LATENCY (p4/docs/tcam.md): the compare stage and the AND tree over the key's
    chunks, the priority tree over the entries, the output register; with blocks > 1,
    fp_p4_tcam_cascade's: one merge level per doubling."""
    return (1 + levels(-(-key_width // cmp_chunk), and_radix) + levels(entries, enc_radix) + 1
            + levels(blocks, 2))


@dataclass(frozen=True)
class PipelineHW:
    """fp_p4_pipeline's parameters (the RTL's defaults)."""
    DATA_WIDTH: int = 64
    PHV_BITS: int = 512
    VALID_BITS: int = 8
    STAGES: int = 4
    HDR_BYTES: int = 128
    STATES: int = 16
    KEY_BYTES: int = 4
    TRANS: int = 8
    STACKS: int = 1
    EXT_BYTES: int = 8
    ERR_WIDTH: int = 8
    DATA_BITS: int = 128
    OPS: int = 8
    ACTIONS: int = 16
    TEMPS: int = 2
    SLOTS: int = 2
    SLOT_BITS: int = 64
    BLOCKS: int = 1
    BLOCK_ENTRIES: int = 32
    FIFO_DEPTH: int = 32
    HASH_ENTRIES: int = 0
    HASH_WAYS: int = 4
    HDRS: int = 8
    CSUMS: int = 1
    PKT_DEPTH: int = 512

    def params(self) -> dict:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @property
    def rows(self) -> int:
        return self.BLOCKS * self.BLOCK_ENTRIES

    @property
    def key_width(self) -> int:
        return self.SLOTS * self.SLOT_BITS

    def action_hw(self) -> ActionHW:
        return ActionHW(PHV_BITS=self.PHV_BITS, VALID_BITS=self.VALID_BITS, DATA_BITS=self.DATA_BITS,
                        OPS=self.OPS, ACTIONS=self.ACTIONS, TEMPS=self.TEMPS)

    def geometry(self) -> Geometry:
        return Geometry(hdr_bytes=self.HDR_BYTES, phv_bits=self.PHV_BITS, valid_bits=self.VALID_BITS,
                        states=self.STATES, key_bytes=self.KEY_BYTES, trans=self.TRANS,
                        stacks=self.STACKS, ext_bytes=self.EXT_BYTES, err_width=self.ERR_WIDTH)

    def deparser_hw(self) -> DeparserHW:
        return DeparserHW(DATA_WIDTH=self.DATA_WIDTH, PHV_BITS=self.PHV_BITS, VALID_BITS=self.VALID_BITS,
                          HDRS=self.HDRS, CSUMS=self.CSUMS)

    def tcam_latency(self) -> int:
        """The stage's fp_p4_tcam_cascade's LATENCY (CMP_CHUNK, AND_RADIX, ENC_RADIX at their 4)."""
        return tcam_latency(self.key_width, self.BLOCK_ENTRIES, blocks=self.BLOCKS)

    def hash_latency(self) -> int:
        """fp_p4_hash's LATENCY for this key width (p4/docs/hash.md)."""
        from .hash_load import latency
        return latency(self.key_width)

    def stage_latency(self, memory: str = "tcam") -> int:
        """fp_p4_stage, input handshake to out_valid: input register, 2 key cycles, the TCAM (its
        LATENCY + 1: it counts from the edge that loads its key register), the result FIFO (1),
        the action register (1), the action unit (OPS + 9), the output FIFO (1); asserted by
        p4/tb/test_p4_pipeline.py and p4/tb/test_p4_stage.py."""
        lk = self.hash_latency() + HASH_EXTRA if memory == "hash" else self.tcam_latency() + 1
        return 1 + 2 + lk + 1 + 1 + self.action_hw().latency + 1


@dataclass
class Slot:
    offset: int   # LSB of the field in {PHV, validity bits}
    width: int
    key_field: int   # index in the table's key
    shift: int       # right shift of the key field's value for this slot (wide fields)


@dataclass
class Stage:
    index: int
    kind: str                   # table, conditional, bridge, idle
    name: str
    pipeline: str | None
    gate: int | None            # flag bit (PHV LSB position), None: always
    table: Table | None
    slots: list[Slot]
    image: ActionImage
    # (original action id, hit) -> stage action id; the miss variant is used by the default
    aids: dict = field(default_factory=dict)
    default: tuple[int, list[int]] = (0, [])    # (stage aid, data values) when no table default applies
    memory: str = "tcam"        # tcam, or hash (the stage's fp_p4_hash: exact tables in hash memory)


@dataclass
class Plan:
    hw: PipelineHW
    cfg: Config                 # the program as given (the reference interpreter runs it)
    flow: Config                # the program as the hardware runs it (system region, flags)
    stages: list[Stage]
    flags: dict                 # node -> flag bit
    parser_writes: list
    deparser: DeparserImage
    egress_width: int
    notes: list[str] = field(default_factory=list)

    # --- configuration ----------------------------------------------------------------------
    def stage_writes(self, store: TableStore) -> list[tuple[int, int, int]]:
        """(stage, address, word) for every stage register, defaults from `store`."""
        out = []
        for st in self.stages:
            word = (0 if st.gate is None else (1 | st.gate << 16)) | (2 if st.memory == "hash" else 0)
            out.append((st.index, STAGE_CFG_GATE, word))
            aid, data = self.default_of(st, store)
            out.append((st.index, STAGE_CFG_DEFAULT, aid))
            for s in range(self.hw.SLOTS):
                sl = st.slots[s] if s < len(st.slots) else None
                out.append((st.index, STAGE_CFG_SLOT + s, 0 if sl is None else (sl.offset | sl.width << 16)))
            d = st.image.pack_data(aid, data) if aid else 0
            for w in range((self.hw.DATA_BITS + 31) // 32):
                out.append((st.index, STAGE_CFG_DATA + w, (d >> (32 * w)) & 0xFFFFFFFF))
        return out

    def action_writes(self) -> list[tuple[int, int, int, int]]:
        """(stage, action, slot, op word)."""
        return [(st.index, a, k, w) for st in self.stages for a, k, w in st.image.writes()]

    def default_of(self, st: Stage, store: TableStore) -> tuple[int, list[int]]:
        if st.kind != "table":
            return st.default
        ts = store.tables[st.table.name]
        if ts.default is None:
            return st.default
        aid, data = ts.default
        return st.aids[(aid, False)], list(data)

    def pack_key(self, stage: Stage, values: list[int]) -> int:
        """Per key field values -> the stage's key: each slot its field's piece, slot 0 the most
        significant (fp_p4_stage's key register)."""
        key = 0
        for i, sl in enumerate(stage.slots):
            pos = self.hw.key_width - self.hw.SLOT_BITS * (i + 1)
            key |= ((values[sl.key_field] >> sl.shift) & ((1 << sl.width) - 1)) << pos
        return key

    def tcam_rows(self, store: TableStore, stage: Stage) -> list[tuple[int, int, int]]:
        """The TCAM rows (value, mask, action word) of a table stage, in match order."""
        return [(v, m, a) for _, v, m, a in self.tcam_rows_ranked(store, stage)]

    def tcam_rows_ranked(self, store: TableStore, stage: Stage) -> list[tuple[tuple, int, int, int]]:
        """The TCAM rows in match order, each with its rank: (rank, value, mask, action word). A
        TCAM answers as the table does when its valid rows' ranks never decrease from row 0 down:
        rows of equal rank never match the same key (exact entries; LPM entries of one prefix
        length; the disjoint rows of one range entry), so their order among themselves is free
        (`pipeline_sim.place_rows` uses that to write one row per insert)."""
        t = stage.table
        ts = store.tables[t.name]
        if not t.key:
            return []
        if ts.is_prio:
            entries = sorted(ts.entries.values(), key=lambda e: (e.priority, e.handle))
        elif ts.is_exact:
            entries = sorted(ts.entries.values(), key=lambda e: e.handle)
        else:
            entries = sorted(ts.entries.values(), key=lambda e: (-e.prefix_len(), e.handle))
        rows = []
        aw_shift = self.hw.DATA_BITS
        for e in entries:
            rank = (e.priority, e.handle) if ts.is_prio else (0,) if ts.is_exact else (-e.prefix_len(),)
            aid = stage.aids[(e.action, True)]
            word = aid << aw_shift | stage.image.pack_data(aid, e.data)
            per_field = []
            for k, kf in zip(e.key, t.key):
                w = kf.width
                ones = (1 << w) - 1
                smask = kf.mask if kf.mask is not None else ones
                if k[0] in ("exact", "valid"):
                    per_field.append([(k[1], ones & smask)])
                elif k[0] == "lpm":
                    m = ((1 << k[2]) - 1) << (w - k[2]) if k[2] else 0
                    per_field.append([(k[1], m & smask)])
                elif k[0] == "ternary":
                    per_field.append([(k[1], k[2] & smask)])
                else:   # range
                    per_field.append([(v, m & smask) for v, m in range_to_prefixes(k[1], k[2], w)])
            for combo in product(*per_field):
                mask = self.pack_key(stage, [m for _, m in combo])
                rows.append((rank, self.pack_key(stage, [v for v, _ in combo]) & mask, mask, word))
        if len(rows) > self.hw.rows:
            raise LoadError(f'table "{t.name}": {len(rows)} TCAM rows, the stage has {self.hw.rows} '
                            f"(BLOCKS * BLOCK_ENTRIES)")
        return rows

    def table_rows(self, store: TableStore, stage: Stage) -> list[tuple[int, int, int, int]]:
        """(index, value, mask, action word) of every valid row of a table stage: the TCAM's rows
        in match order, or the hash block's entries where HashImage placed them."""
        if stage.kind != "table":
            return []
        if stage.memory == "tcam":
            return [(i, v, m, a) for i, (v, m, a) in enumerate(self.tcam_rows(store, stage))]
        from .hash_load import HashFull, HashImage
        t = stage.table
        img = HashImage(self.hw.key_width, self.hw.HASH_ENTRIES, self.hw.HASH_WAYS)
        ones = (1 << self.hw.key_width) - 1
        for e in sorted(store.tables[t.name].entries.values(), key=lambda e: e.handle):
            aid = stage.aids[(e.action, True)]
            word = aid << self.hw.DATA_BITS | stage.image.pack_data(aid, e.data)
            key = self.pack_key(stage, [k[1] for k in e.key])
            try:
                img.insert(key, word)
            except HashFull:
                raise LoadError(f'table "{t.name}": the hash block holds no more entries '
                                f"({img.count} placed of HASH_ENTRIES = {self.hw.HASH_ENTRIES})") from None
        return [(i, k, ones, a) for i, (v, k, a) in enumerate(img.slots) if v]

    def stage_latency(self, i: int) -> int:
        return self.hw.stage_latency(self.stages[i].memory)

    def latency(self) -> int:
        return sum(self.stage_latency(i) for i in range(len(self.stages)))


# ---------------------------------------------------------------------------------------------
# The program as the hardware runs it


def _order(cfg: Config, pipeline: str) -> list[str]:
    """The nodes of a pipeline reachable from its init node, in a topological order."""
    p = next((x for x in cfg.pipelines if x.name == pipeline), None)
    if p is None or p.init is None:
        return []
    tables = {t.name: t for t in cfg.tables}
    conds = {c.name: c for c in cfg.conditionals}

    def succ(n):
        if n in conds:
            c = conds[n]
            return [x for x in (c.true_next, c.false_next) if x is not None]
        t = tables[n]
        out = [x for x in t.next.values() if x is not None]
        if t.base_default_next is not None:
            out.append(t.base_default_next)
        return list(dict.fromkeys(out))

    seen, post = set(), []

    def visit(n):
        seen.add(n)
        for m in succ(n):
            if m not in seen:
                visit(m)
        post.append(n)

    visit(p.init)
    return post[::-1]


def _rename(x, alias: dict):
    """Every ["field", inst, f] in an expression tree with (inst, f) in alias, renamed."""
    if isinstance(x, list):
        if len(x) == 3 and x[0] == "field" and (x[1], x[2]) in alias:
            return ["field", SYS, alias[(x[1], x[2])]]
        return [_rename(y, alias) for y in x]
    return x


def flow_config(cfg: Config, hw: PipelineHW) -> tuple[Config, dict, dict, int]:
    """(the program with the system region, node -> flag bit, alias map, egress width)."""
    nodes = _order(cfg, "ingress") + _order(cfg, "egress")
    inits = {p.init for p in cfg.pipelines if p.init is not None}
    egress_init = next((p.init for p in cfg.pipelines if p.name == "egress"), None)
    flagged = [n for n in nodes if n not in inits or n == egress_init]
    flags = {n: SYS_FLAGS + k for k, n in enumerate(flagged)}
    if SYS_FLAGS + len(flags) > GATE_BITS:
        raise LoadError(f"{len(nodes)} tables and conditionals: the stages' gates reach {GATE_BITS - SYS_FLAGS} flags")

    sm = {f.name: f.width for i in cfg.instances if i.name == "standard_metadata"
          for f in cfg.header_type(i.type).fields}
    l2 = cfg.target == "l2_switch"
    alias = {}
    widths = {}

    def take(inst, f, name):
        try:
            w = cfg.field_width(inst, f)
        except KeyError:
            return
        room = 32 if name == "parser_error" else 16
        if w > room:
            raise LoadError(f"{inst}.{f} of {w} bits: the pipeline's {name} field is {room} bits")
        alias[(inst, f)] = name
        widths[name] = w

    take("standard_metadata", "ingress_port", "ingress_port")
    take("standard_metadata", "parser_error", "parser_error")
    take("standard_metadata", "egress_port" if l2 else "egress_spec", "egress")
    if l2:
        take("intrinsic_metadata", "mgid", "mcast")
    else:
        take("standard_metadata", "mcast_grp", "mcast")
    if "egress" not in widths:
        raise LoadError("the program has no standard_metadata egress field")

    # the __fp_sys header type, MSB first, ending at the PHV's least significant bit
    sys_bits = SYS_FLAGS + len(flags)
    pad = hw.PHV_BITS - cfg.phv_width - sys_bits
    if pad < 0:
        raise LoadError(f"PHV of {cfg.phv_width} bits + {sys_bits} system bits: the pipeline has PHV_BITS = {hw.PHV_BITS}")
    fields: list[tuple[str, int]] = []
    if pad:
        fields.append(("pad", pad))
    for n in reversed(flagged):
        fields.append((f"f{flags[n] - SYS_FLAGS}", 1))
    for name in ("mcast", "egress", "payload_offset", "parser_error", "ingress_port"):
        room = 32 if name == "parser_error" else 16
        w = 16 if name == "payload_offset" else widths.get(name, 0)
        if w < room:
            fields.append((f"{name}_pad", room - w))
        if w:
            fields.append((name, w))
    ftypes, off = [], 0
    for n, w in fields:
        ftypes.append(Field(n, w, off))
        off += w
    sys_t = HeaderType(f"{SYS}_t", ftypes, off)
    sys_i = Instance(SYS, sys_t.name, True, off, cfg.phv_width, len(cfg.instances))

    flow = copy.deepcopy(cfg)
    flow._index = {}
    flow.header_types.append(sys_t)
    flow.instances.append(sys_i)
    flow.phv_width = hw.PHV_BITS
    for a in flow.actions:
        a.ops = [Op(o.op, _rename(o.dst, alias), _rename(o.args, alias)) for o in a.ops]
    for c in flow.conditionals:
        c.expr = _rename(c.expr, alias)
    for t in flow.tables:
        for k in t.key:
            k.ref = _rename(k.ref, alias)
            if k.kind != "valid" and k.ref[1] == SYS:
                f = next(f for f in sys_t.fields if f.name == k.ref[2])
                k.phv_offset = sys_i.phv_offset + f.offset
    for ck in flow.checksums:
        ck.inputs = _rename(ck.inputs, alias)
        ck.target = _rename(ck.target, alias)
    return flow, flags, alias, widths["egress"]


def _flag(flags: dict, node) -> list:
    return ["field", SYS, f"f{flags[node] - SYS_FLAGS}"]


def _stage_actions(flow: Config, flags: dict, node_pipe: dict, kind: str, obj, widths_egress: int):
    """The actions of one stage: [Action], the (original id, hit) -> stage id map, default."""
    acts = [Action(0, "__nop", [], [], 0)]
    aids = {}

    def fixup(ops: list, pipeline: str) -> list:
        out = []
        for o in ops:
            if o.op == "drop":
                out.append(Op("set", ["field", SYS, "egress"], [["const", DROP_PORT & ((1 << widths_egress) - 1)]]))
                if any(f.name == "mcast" for f in flow.header_type(f"{SYS}_t").fields) and flow.target != "l2_switch":
                    out.append(Op("set", ["field", SYS, "mcast"], [["const", 0]]))
            elif o.op == "exit":
                for n, p in node_pipe.items():
                    if p == pipeline and n in flags:
                        out.append(Op("set", _flag(flags, n), [["const", 0]]))
                break
            else:
                out.append(o)
        return out

    def add(name, params, ops, temps):
        a = Action(len(acts), name, params, ops, temps)
        acts.append(a)
        return a.id

    if kind == "table":
        t = obj
        split = "__HIT__" in t.next or "__MISS__" in t.next
        for aid in t.actions:
            a = flow.action(aid)
            for hit in (True, False):
                if split:
                    nxt = t.next.get("__HIT__" if hit else "__MISS__")
                else:
                    nxt = t.next[a.name] if a.name in t.next else t.base_default_next
                ops = fixup(a.ops, t.pipeline)
                exits = any(o.op == "exit" for o in a.ops)
                if nxt is not None and not exits:
                    ops = ops + [Op("set", _flag(flags, nxt), [["const", 1]])]
                key = (aid, hit)
                if not split and not hit:
                    aids[key] = aids[(aid, True)]
                    continue
                aids[key] = add(f"{a.name}{'' if not split else ('@hit' if hit else '@miss')}", a.params, ops, a.temps)
        # a miss without a default action: only the next node's flag
        nxt = t.next.get("__MISS__") if split else t.base_default_next
        ops = [] if nxt is None else [Op("set", _flag(flags, nxt), [["const", 1]])]
        default = (add("__miss", [], ops, 0), [])
        return acts, aids, default
    if kind == "conditional":
        c = obj
        ops, temps = [], []
        v = lower_expr(c.expr, ops, temps)
        if c.true_next is not None:
            ops.append(Op("set", _flag(flags, c.true_next), [v]))
        if c.false_next is not None:
            ops.append(Op("lnot", _flag(flags, c.false_next), [v]))
        aid = add(f"__cond_{c.name}", [], ops, len(temps))
        return acts, aids, (aid, [])
    if kind == "bridge":
        einit = obj
        ops = [Op("ne", ["tmp", 0], [["field", SYS, "egress"], ["const", DROP_PORT]]),
               Op("set", ["field", "standard_metadata", "egress_port"], [["field", SYS, "egress"]]),
               Op("set", _flag(flags, einit), [["tmp", 0]])]
        aid = add("__bridge", [], ops, 1)
        return acts, aids, (aid, [])
    return acts, aids, (0, [])


def plan(cfg: Config, hw: PipelineHW = PipelineHW()) -> Plan:
    """A compiled program -> its mapping onto fp_p4_pipeline, or LoadError."""
    flow, flags, alias, we = flow_config(cfg, hw)
    notes = []
    ing, egr = _order(cfg, "ingress"), _order(cfg, "egress")
    node_pipe = {n: "ingress" for n in ing} | {n: "egress" for n in egr}
    mcast_ref = ["field", SYS, "mcast"]
    mcast_used = any(o.dst == mcast_ref or mcast_ref in o.args for a in flow.actions for o in a.ops)
    if egr and mcast_used and cfg.target == "simple_switch":
        raise LoadError("multicast with an egress pipeline: the pipeline runs egress once per packet "
                        "(replication is outside it)")
    seq: list[tuple[str, object, str]] = []
    tables = {t.name: t for t in flow.tables}
    conds = {c.name: c for c in flow.conditionals}
    for n in ing:
        seq.append(("table" if n in tables else "conditional", tables.get(n) or conds[n], n))
    if egr and cfg.target == "simple_switch":
        if not any(f.name == "egress_port" for f in flow.header_type(flow.instance("standard_metadata").type).fields):
            raise LoadError("standard_metadata has no egress_port for the egress pipeline")
        seq.append(("bridge", egr[0], "__bridge"))
    for n in egr:
        seq.append(("table" if n in tables else "conditional", tables.get(n) or conds[n], n))
    if len(seq) > hw.STAGES:
        raise LoadError(f"{len(seq)} stages needed ({', '.join(x[2] for x in seq)}): the pipeline has STAGES = {hw.STAGES}")
    ahw = hw.action_hw()
    stages = []
    for i in range(hw.STAGES):
        if i < len(seq):
            kind, obj, name = seq[i]
        else:
            kind, obj, name = "idle", None, f"__idle{i}"
        acts, aids, default = _stage_actions(flow, flags, node_pipe, kind, obj, we)
        if len(acts) > hw.ACTIONS:
            raise LoadError(f'stage {i} "{name}": {len(acts)} action programs, the stages have ACTIONS = {hw.ACTIONS}')
        scfg = replace(flow, actions=acts, _index={})
        try:
            img = load_actions(scfg, ahw)
        except LoadError as e:
            raise LoadError(f'stage {i} "{name}": {e}') from None
        img.egress_shift, img.egress_width = SYS_EGRESS, we
        slots = []
        table = obj if kind == "table" else None
        if table is not None:
            for ki, kf in enumerate(table.key):
                if kf.kind == "valid":
                    base = kf.phv_offset   # the validity bit
                else:
                    base = hw.VALID_BITS + hw.PHV_BITS - kf.phv_offset - kf.width
                rest, sh = kf.width, kf.width
                while rest > 0:   # most significant chunk first
                    w = min(hw.SLOT_BITS, rest)
                    sh -= w
                    slots.append(Slot(base + sh, w, ki, sh))
                    rest -= w
            if len(slots) > hw.SLOTS:
                raise LoadError(f'table "{table.name}": a key of {table.key_width} bits takes {len(slots)} slots of '
                                f"{hw.SLOT_BITS} bits, the stages have SLOTS = {hw.SLOTS}")
        gate = flags.get(name) if kind in ("table", "conditional") else None
        if kind == "idle":
            gate = None
        memory = "tcam"
        if (table is not None and table.memory == "hash" and hw.HASH_ENTRIES
                and all(k.kind in ("exact", "valid") and k.mask is None for k in table.key)):
            memory = "hash"
        stages.append(Stage(i, kind, name, node_pipe.get(name), gate, table, slots, img, aids, default, memory))
    try:
        pimg = load_parser(flow, hw.geometry())
    except ParserLoadError as e:
        raise LoadError(f"parser: {e}") from None
    dimg = load_deparser(flow, hw.deparser_hw())
    if any(t.memory == "hash" for t in cfg.tables) and not hw.HASH_ENTRIES:
        notes.append("hash-memory tables are held in their stage's TCAM rows (HASH_ENTRIES = 0)")
    return Plan(hw, cfg, flow, stages, flags, pimg.writes(), dimg, we, notes)


def deliver(plan: Plan, store: TableStore, tdest: int, data: bytes, in_port: int) -> list[tuple[int, bytes]]:
    """The traffic manager after the pipeline: one packet with its m_axis_tdest -> (port, bytes)
    copies, as bmv2 sends them (a multicast group replicates; l2_switch skips the ingress port)."""
    egress, mcast = tdest & 0xFFFF, tdest >> 16
    if mcast:
        return [(p, data) for _, p in store.mcast_ports(mcast)
                if not (plan.cfg.target == "l2_switch" and p == in_port)]
    if egress == DROP_PORT & ((1 << plan.egress_width) - 1):
        return []
    return [(egress, data)]
