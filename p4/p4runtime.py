"""A P4Runtime server for one device: the compiled pipeline (`fastpath.p4.compiler`) with its
table store (`fastpath.p4.runtime`), driven over gRPC with the P4Runtime protos (PyPI `p4runtime`),
packets executed by a backend with a table store `tables` and `send(port, bytes)`: the reference
interpreter (`fastpath.p4.stf.InterpreterBackend`) or the RTL pipeline in simulation
(`fastpath.p4.pipeline_cocotb`, `fastpath p4 serve --backend rtl`). A backend may also have
`fits(table)`: None, or why the hardware cannot hold the table's entries after an INSERT (the
write is then RESOURCE_EXHAUSTED), and `commit()`: put the table store into the hardware now (called
at the end of every Write that changed the live pipeline, lock held, so an entry is live in the
hardware when its Write returns); what it returns is the device's `stats["last_commit"]`.

`P4RuntimeServer(device_id, cpu_port).start("127.0.0.1:9559")` serves the P4Runtime service
(p4.v1.P4Runtime) on that address:

- **StreamChannel**: client arbitration per (device_id, role) as the P4Runtime specification
  (section "Client Arbitration and Controller Replication") says: the highest election id ever
  seen is primary (status OK), the others are backups (ALREADY_EXISTS while there is a primary,
  NOT_FOUND when there is none); a wrong device id ends the stream with NOT_FOUND, an election id
  used by another live controller with INVALID_ARGUMENT, a changed device id or role with
  FAILED_PRECONDITION, a `role.config` with INVALID_ARGUMENT (no role scheme: every role has the
  full pipeline). `PacketOut` from the primary is run through the live pipeline with ingress port
  `cpu_port` (the program's `packet_out` controller header, when the P4Info declares one, is built
  from the metadata and put in front of the payload, as bmv2 does); every packet the pipeline sends
  to `cpu_port` goes to the primary of each role as a `PacketIn` (the `packet_in` header, when
  declared, is taken off the front into metadata). Refused packet-outs come back as `StreamError`s
  (PERMISSION_DENIED from a backup, INVALID_ARGUMENT for bad metadata, FAILED_PRECONDITION with no
  pipeline).
- **SetForwardingPipelineConfig**: `p4_device_config` is the BMv2 JSON (as simple_switch_grpc
  takes it), compiled by `fastpath.p4.compiler` (a refusal is INVALID_ARGUMENT carrying the
  compiler's one-line message) and checked against the P4Info (every P4Info table, match field
  and action found in the JSON with the same widths and match kinds). VERIFY, VERIFY_AND_SAVE
  (reads and writes then go to the saved config while packets still run the old one), COMMIT
  (the saved config and the writes made since go live; NOT_FOUND if nothing is saved),
  VERIFY_AND_COMMIT, RECONCILE_AND_COMMIT (entries, default actions and multicast groups carried
  over by table and action name; INVALID_ARGUMENT when the new program cannot hold them).
  **GetForwardingPipelineConfig** (all four response types) and **Capabilities**.
- **Write**: `TableEntry` INSERT/MODIFY/DELETE with exact, LPM, ternary, range and optional
  fields, priorities (higher wins, as P4Runtime says; stored as the table store's smaller-wins
  number), the default entry (MODIFY only; no action resets it to the program's), controller
  metadata; `MulticastGroupEntry`. Batches as the specification says: CONTINUE_ON_ERROR,
  ROLLBACK_ON_ERROR and DATAPLANE_ATOMIC (a batch holds the device lock, so packets see it
  whole), errors as gRPC UNKNOWN with one `p4.v1.Error` per update in `google.rpc.Status.details`.
- **Read**: table entries (all tables, one table, the default entry, filters on match, action,
  priority and metadata), multicast groups, counters (none exist: the compiler refuses counters).

What is refused and with which code is in p4/README.md ("P4Runtime"). `measure_update_latency()`
measures how long a Write takes to be live for packets (Write round trip, then a PacketOut that
must come back as a PacketIn through the new entry).

The protos are imported from the PyPI package `p4`; this tree's own `p4/` folder has the same
name, so `_load_protos` imports them with the tree's top taken off `sys.path` for the moment.
"""
from __future__ import annotations

import importlib
import queue
import statistics
import struct
import sys
import threading
import time
from collections import deque
from concurrent import futures
from pathlib import Path
from typing import Callable

from . import compiler
from .runtime import CommandError, Entry, TableStore

DEFAULT_CPU_PORT = 255  # the port PacketOut enters on and PacketIn leaves by (simple_switch_grpc's --cpu-port)
PRIORITY_MAX = 2**31 - 1  # P4Runtime priorities are int32 > 0, higher wins; the store's are smaller-wins
EGRESS_KEEP = 10000  # data-plane packets kept in P4RuntimeServer.egress
# A failed batch carries one p4.v1.Error per update in the trailing metadata (about 35 bytes each):
# past ~230 updates that exceeds gRPC's default 8 KiB metadata limit, which makes the receiver
# drop the call (RESOURCE_EXHAUSTED) at random between the soft and the hard limit. Our server and
# Client raise both limits; other clients need the same channel options for large batches.
GRPC_OPTIONS = [("grpc.max_metadata_size", 4 << 20), ("grpc.absolute_max_metadata_size", 4 << 20)]
API_VERSION_FALLBACK = "1.4.1"


def _load_protos():
    """Import p4.v1 / p4.config.v1 from site-packages although this tree has a `p4/` folder that
    shadows them whenever the tree's top is on sys.path (pytest's conftest, `python -m` from it)."""
    here = Path(__file__).resolve().parent
    top = here.parent
    mod = sys.modules.get("p4")
    if mod is not None and getattr(mod, "__file__", None) and Path(mod.__file__).resolve().parent == here:
        for k in [k for k in sys.modules if k == "p4" or k.startswith("p4.")]:
            del sys.modules[k]

    def is_top(p: str) -> bool:
        try:
            return Path(p or ".").resolve() == top
        except OSError:
            return False

    saved = list(sys.path)
    sys.path[:] = [p for p in saved if not is_top(p)]
    try:
        mods = [importlib.import_module(n) for n in (
            "p4.v1.p4runtime_pb2", "p4.v1.p4runtime_pb2_grpc", "p4.config.v1.p4info_pb2",
            "google.rpc.status_pb2", "google.rpc.code_pb2")]
    finally:
        sys.path[:] = saved
    return mods


pb, pb_grpc, p4info_pb2, status_pb2, code_pb2 = _load_protos()
import grpc  # noqa: E402  (after the protos: grpc does not care, but keep the imports together)
from google.protobuf import json_format, text_format  # noqa: E402

SC = grpc.StatusCode
INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE
_FPC = pb.SetForwardingPipelineConfigRequest
_MT = p4info_pb2.MatchField
_P4_KINDS = {_MT.EXACT: "exact", _MT.LPM: "lpm", _MT.TERNARY: "ternary", _MT.RANGE: "range", _MT.OPTIONAL: "optional"}
_JSON_KINDS = {"exact": ("exact", "valid"), "lpm": ("lpm",), "ternary": ("ternary",), "range": ("range",),
               "optional": ("ternary", "optional")}
# Entities of P4Runtime the pipeline has nothing for, and why (UNIMPLEMENTED).
_NOT_HERE = {
    "extern_entry": "externs are not in the hardware",
    "action_profile_member": "action profiles are not in the hardware (one action per entry)",
    "action_profile_group": "action profiles are not in the hardware (one action per entry)",
    "meter_entry": "meters are not in the hardware",
    "direct_meter_entry": "meters are not in the hardware",
    "counter_entry": "counters are not in the hardware (no counter memory)",
    "direct_counter_entry": "counters are not in the hardware (no counter memory)",
    "value_set_entry": "parse value sets are not in the parser",
    "register_entry": "registers are not in the hardware (no stateful memory)",
    "digest_entry": "digests are counted by the interpreter but not streamed (no learning path)",
}
# P4Info objects the compiler refuses in the JSON: the P4Info may not declare them either.
_P4INFO_REFUSED = {
    "counters": "counters are not in the hardware (no counter memory)",
    "direct_counters": "counters are not in the hardware (no counter memory)",
    "meters": "meters are not in the hardware",
    "direct_meters": "meters are not in the hardware",
    "registers": "registers are not in the hardware (no stateful memory)",
    "action_profiles": "action profiles are not in the hardware (one action per entry)",
    "value_sets": "parse value sets are not in the parser",
    "externs": "externs are not in the hardware",
}


class P4RTError(Exception):
    """A P4Runtime error: a gRPC status code and a one-line message."""

    def __init__(self, code: grpc.StatusCode, msg: str):
        super().__init__(msg)
        self.code = code
        self.msg = msg


def _canon(v: int) -> bytes:
    """The shortest bytestring of v (P4Runtime's canonical form, for read-write symmetry)."""
    return v.to_bytes(max(1, (v.bit_length() + 7) // 8), "big")


def _uint(b: bytes, width: int, what: str) -> int:
    """A P4Runtime bytestring as an integer of `width` bits (any length, leading zeros allowed)."""
    if not b:
        raise P4RTError(SC.OUT_OF_RANGE, f"{what}: empty bytestring")
    v = int.from_bytes(b, "big")
    if v >> width:
        raise P4RTError(SC.OUT_OF_RANGE, f"{what}: value 0x{v:x} does not fit in {width} bits")
    return v


def _eid(m) -> tuple[int, int]:
    return (m.high, m.low)


def _fmt_eid(e) -> str:
    return "unset" if e is None else f"({e[0]}, {e[1]})"


def _names_match(p4name: str, alias: str, names: list[str]) -> list[int]:
    """Indexes of `names` that are the P4Info object `p4name` (fully qualified; BMv2 JSON names are
    the same or differ by the control's prefix), by name, then dotted suffix, then alias."""
    exact = [i for i, n in enumerate(names) if n == p4name]
    if exact:
        return exact
    suffix = [i for i, n in enumerate(names) if n.endswith("." + p4name) or p4name.endswith("." + n)]
    if suffix:
        return suffix
    return [i for i, n in enumerate(names) if alias and (n == alias or n.endswith("." + alias))]


class _Action:
    """A P4Info action as one table uses it: its JSON action id and its parameters."""

    def __init__(self, p4id: int, name: str, json_id: int, scope: str, params: list):
        self.p4id = p4id
        self.name = name
        self.json_id = json_id
        self.scope = scope  # "both", "table_only", "default_only"
        self.params = params  # [(param id, name, width)] in JSON order
        self.by_id = {p[0]: (i, p[1], p[2]) for i, p in enumerate(params)}


class _TableMap:
    """A P4Info table mapped onto a compiled table: match field ids -> key positions, P4Info
    action ids -> JSON action ids (several JSON actions may share a name across tables)."""

    def __init__(self, t, table: compiler.Table, actions: dict, cfg: compiler.Config):
        self.p4id = t.preamble.id
        self.name = t.preamble.name
        self.json = table.name
        self.table = table
        where = f'P4Info table "{self.name}"'
        if len(t.match_fields) != len(table.key):
            raise P4RTError(SC.INVALID_ARGUMENT, f"{where} has {len(t.match_fields)} match fields, the JSON table "
                                                 f"{table.name!r} {len(table.key)}")
        self.fields = []  # (id, name, width, p4 kind, json kind)
        for mf, kf in zip(t.match_fields, table.key):
            kind = _P4_KINDS.get(mf.match_type)
            if kind is None:
                raise P4RTError(SC.INVALID_ARGUMENT, f'{where} field "{mf.name}": match type '
                                                     f"{_MT.MatchType.Name(mf.match_type)} is not supported")
            if kf.kind not in _JSON_KINDS[kind]:
                raise P4RTError(SC.INVALID_ARGUMENT, f'{where} field "{mf.name}" is {kind}, the JSON key field '
                                                     f"{kf.name!r} is {kf.kind}")
            if mf.bitwidth != kf.width:
                raise P4RTError(SC.INVALID_ARGUMENT, f'{where} field "{mf.name}" is {mf.bitwidth} bits, the JSON key '
                                                     f"field {kf.name!r} {kf.width} (translated types are not "
                                                     "supported)")
            self.fields.append((mf.id, mf.name, mf.bitwidth, kind, kf.kind))
        self.by_field = {f[0]: f for f in self.fields}
        if len(self.by_field) != len(self.fields):
            raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: two match fields share an id")
        self.needs_priority = any(f[3] in ("ternary", "range", "optional") for f in self.fields)
        self.actions: dict[int, _Action] = {}
        for ref in t.action_refs:
            a = actions.get(ref.id)
            if a is None:
                raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: action id {ref.id} is not in the P4Info")
            idx = _names_match(a.preamble.name, a.preamble.alias, table.action_names)
            if len(idx) != 1:
                raise P4RTError(SC.INVALID_ARGUMENT, f'{where}: action "{a.preamble.name}" is '
                                                     f"{'ambiguous' if idx else 'not an action'} of the JSON table "
                                                     f"{table.name!r} (actions: {', '.join(table.action_names)})")
            jid = table.actions[idx[0]]
            ja = cfg.action(jid)
            if len(a.params) != len(ja.params):
                raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info action "{a.preamble.name}" has {len(a.params)} '
                                                     f"parameters, the JSON action {len(ja.params)}")
            for p, (jn, jw) in zip(a.params, ja.params):
                if p.bitwidth != jw:
                    raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info action "{a.preamble.name}" parameter "{p.name}" '
                                                         f"is {p.bitwidth} bits, the JSON parameter {jn!r} {jw}")
            scope = "both"
            annos = [s.split("(")[0] for s in ref.annotations]
            if ref.scope == p4info_pb2.ActionRef.DEFAULT_ONLY or "@defaultonly" in annos:
                scope = "default_only"
            elif ref.scope == p4info_pb2.ActionRef.TABLE_ONLY or "@tableonly" in annos:
                scope = "table_only"
            self.actions[ref.id] = _Action(ref.id, a.preamble.name, jid, scope,
                                           [(p.id, p.name, p.bitwidth) for p in a.params])
        self.by_json = {a.json_id: a for a in self.actions.values()}
        self.const_default = bool(t.const_default_action_id) or bool(table.default and table.default.const)

    # --- P4Runtime -> table store ---------------------------------------------------------------
    def match_key(self, matches) -> list:
        """The store's key (["exact", v], ["lpm", v, len], ["ternary", v, m], ["range", lo, hi])."""
        given = {}
        for fm in matches:
            f = self.by_field.get(fm.field_id)
            if f is None:
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{self.name}" has no match field id {fm.field_id}')
            if fm.field_id in given:
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{self.name}": match field "{f[1]}" given twice')
            given[fm.field_id] = fm
        key = []
        for fid, name, w, kind, jkind in self.fields:
            fm = given.get(fid)
            what = f'match field "{name}"'
            if fm is None:  # don't care
                if kind == "exact":
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what} is exact: it cannot be left out (no don't-care)")
                key.append({"lpm": ["lpm", 0, 0], "range": ["range", 0, (1 << w) - 1]}.get(kind, ["ternary", 0, 0]))
                continue
            which = fm.WhichOneof("field_match_type")
            if which != kind:
                raise P4RTError(SC.INVALID_ARGUMENT, f"{what} is {kind}, got a {which or 'unset'} match")
            if kind == "exact":
                key.append([jkind, _uint(fm.exact.value, w, what)])
            elif kind == "lpm":
                v, plen = _uint(fm.lpm.value, w, what), fm.lpm.prefix_len
                if not 0 < plen <= w:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: prefix length {plen} out of 1..{w} (a don't-care "
                                                         "match is left out)")
                if v & ((1 << (w - plen)) - 1):
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: 0x{v:x}/{plen} has bits set past the prefix")
                key.append(["lpm", v, plen])
            elif kind == "ternary":
                v, m = _uint(fm.ternary.value, w, what), _uint(fm.ternary.mask, w, what + " mask")
                if m == 0:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: mask 0 (a don't-care match is left out)")
                if v & ~m:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: value 0x{v:x} has bits outside the mask 0x{m:x}")
                key.append(["ternary", v, m])
            elif kind == "optional":
                key.append(["ternary", _uint(fm.optional.value, w, what), (1 << w) - 1])
            else:
                lo, hi = _uint(fm.range.low, w, what + " low"), _uint(fm.range.high, w, what + " high")
                if lo > hi:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: low 0x{lo:x} > high 0x{hi:x}")
                if lo == 0 and hi == (1 << w) - 1:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{what}: the full range (a don't-care match is left out)")
                key.append(["range", lo, hi])
        return key

    def priority(self, p: int) -> int:
        """The store's priority (smaller wins) of a P4Runtime priority (larger wins)."""
        if self.needs_priority:
            if p <= 0:
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{self.name}" has ternary/range/optional fields: the '
                                                     f"entry needs a priority > 0, got {p}")
            return PRIORITY_MAX - p
        if p != 0:
            raise P4RTError(SC.INVALID_ARGUMENT, f'table "{self.name}" has no ternary/range/optional field: the '
                                                 f"priority must be 0, got {p}")
        return 0

    def action(self, ta, default: bool) -> tuple[int, list[int]]:
        which = ta.WhichOneof("type")
        if which != "action":
            raise P4RTError(SC.INVALID_ARGUMENT, f'table "{self.name}" is a direct table: {which or "no action"} '
                                                 "given, an action expected")
        a = ta.action
        ref = self.actions.get(a.action_id)
        if ref is None:
            raise P4RTError(SC.INVALID_ARGUMENT, f'action id {a.action_id} is not an action of table "{self.name}"')
        if default and ref.scope == "table_only":
            raise P4RTError(SC.PERMISSION_DENIED, f'action "{ref.name}" is @tableonly: not a default action')
        if not default and ref.scope == "default_only":
            raise P4RTError(SC.PERMISSION_DENIED, f'action "{ref.name}" is @defaultonly: not for entries')
        data: list[int | None] = [None] * len(ref.params)
        for p in a.params:
            pos = ref.by_id.get(p.param_id)
            if pos is None:
                raise P4RTError(SC.INVALID_ARGUMENT, f'action "{ref.name}" has no parameter id {p.param_id}')
            if data[pos[0]] is not None:
                raise P4RTError(SC.INVALID_ARGUMENT, f'action "{ref.name}": parameter "{pos[1]}" given twice')
            data[pos[0]] = _uint(p.value, pos[2], f'action "{ref.name}" parameter "{pos[1]}"')
        missing = [ref.params[i][1] for i, v in enumerate(data) if v is None]
        if missing:
            raise P4RTError(SC.INVALID_ARGUMENT, f'action "{ref.name}": missing parameter(s) {", ".join(missing)}')
        return ref.json_id, data

    # --- table store -> P4Runtime -----------------------------------------------------------------
    def field_matches(self, key: list) -> list:
        out = []
        for (fid, _, w, kind, _), k in zip(self.fields, key):
            fm = pb.FieldMatch(field_id=fid)
            if kind == "exact":
                fm.exact.value = _canon(k[1])
            elif kind == "lpm":
                if k[2] == 0:
                    continue
                fm.lpm.value, fm.lpm.prefix_len = _canon(k[1]), k[2]
            elif kind == "ternary":
                if k[2] == 0:
                    continue
                fm.ternary.value, fm.ternary.mask = _canon(k[1]), _canon(k[2])
            elif kind == "optional":
                if k[2] == 0:
                    continue
                fm.optional.value = _canon(k[1])
            else:
                if k[1] == 0 and k[2] == (1 << w) - 1:
                    continue
                fm.range.low, fm.range.high = _canon(k[1]), _canon(k[2])
            out.append(fm)
        return out

    def action_msg(self, aid: int, data: list[int], msg) -> bool:
        ref = self.by_json.get(aid)
        if ref is None:
            return False
        msg.action_id = ref.p4id
        for (pid, _, _), v in zip(ref.params, data):
            msg.params.add(param_id=pid, value=_canon(v))
        return True


def _ikey(key: list, prio: int) -> tuple:
    return tuple(tuple(k) for k in key) + (prio,)


class _Pipeline:
    """One forwarding pipeline config: the P4Info, the BMv2 JSON and its compiled Config, the
    P4Info -> JSON map, and (once realized) the backend with its table store, plus what P4Runtime
    keeps per entry that the store does not (controller metadata, an index by key)."""

    def __init__(self, config, cpu_port: int):
        self.p4info = p4info_pb2.P4Info()
        self.p4info.CopyFrom(config.p4info)
        self.device_config = bytes(config.p4_device_config)
        self.cookie = config.cookie.cookie if config.HasField("cookie") else None
        if not self.device_config:
            raise P4RTError(SC.INVALID_ARGUMENT, "config.p4_device_config is empty: it carries the BMv2 JSON")
        name = self.p4info.pkg_info.name or "p4runtime"
        try:
            self.cfg = compiler.compile_program(self.device_config, name=name)
        except compiler.P4CompileError as e:
            raise P4RTError(SC.INVALID_ARGUMENT, f"p4_device_config refused: {e}") from None
        for what, why in _P4INFO_REFUSED.items():
            items = getattr(self.p4info, what)
            if len(items):
                raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info {what}[0] "{items[0].preamble.name}": {why}')
        actions = {a.preamble.id: a for a in self.p4info.actions}
        jnames = [t.name for t in self.cfg.tables]
        self.tables: list[_TableMap] = []
        for t in self.p4info.tables:
            idx = _names_match(t.preamble.name, t.preamble.alias, jnames)
            if len(idx) != 1:
                raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info table "{t.preamble.name}" is '
                                                     f"{'ambiguous' if idx else 'not'} in the BMv2 JSON "
                                                     f"(tables: {', '.join(jnames) or 'none'})")
            if t.implementation_id:
                raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info table "{t.preamble.name}": action profiles are not in '
                                                     "the hardware (one action per entry)")
            self.tables.append(_TableMap(t, self.cfg.tables[idx[0]], actions, self.cfg))
        self.by_id = {tm.p4id: tm for tm in self.tables}
        if len(self.by_id) != len(self.tables):
            raise P4RTError(SC.INVALID_ARGUMENT, "P4Info: two tables share an id")
        self.pkt_out = self._controller_header("packet_out")
        self.pkt_in = self._controller_header("packet_in")
        self.cpu_port = cpu_port
        self.backend = None
        self.store: TableStore | None = None
        self.index: dict[str, dict[tuple, int]] = {}
        self.meta: dict[tuple[str, int], tuple[int, bytes]] = {}  # (table, handle) -> (controller_metadata, metadata)
        self.default_meta: dict[str, tuple[int, bytes]] = {}
        self.mc_ports_kind: dict[int, str] = {}  # group -> "egress_port" / "port": how the client wrote replicas

    def _controller_header(self, name: str):
        for c in self.p4info.controller_packet_metadata:
            if c.preamble.name == name:
                fields = [(m.id, m.name, m.bitwidth) for m in c.metadata]
                bits = sum(f[2] for f in fields)
                if any(f[2] <= 0 for f in fields) or bits % 8:
                    raise P4RTError(SC.INVALID_ARGUMENT, f'P4Info controller header "{name}": {bits} bits; whole bytes '
                                                         "of fixed-width fields expected")
                return fields
        return None

    def realize(self, factory: Callable) -> "_Pipeline":
        self.backend = factory(self.cfg)
        self.store = self.backend.tables
        for tm in self.tables:
            ts = self.store.tables[tm.json]
            self.index[tm.json] = {_ikey(e.key, e.priority): h for h, e in ts.entries.items()}
        return self

    def table(self, tid: int) -> _TableMap:
        tm = self.by_id.get(tid)
        if tm is None:
            raise P4RTError(SC.INVALID_ARGUMENT, f"invalid P4 id: no table with id {tid}" if tid else
                                                 "table_id 0 (a wildcard) is only for reads")
        return tm

    # --- packet I/O -------------------------------------------------------------------------------
    def packet_out_bytes(self, po) -> bytes:
        if self.pkt_out is None:
            if len(po.metadata):
                raise P4RTError(SC.INVALID_ARGUMENT, "the P4Info declares no packet_out metadata")
            return bytes(po.payload)
        given = {}
        for m in po.metadata:
            if m.metadata_id in given:
                raise P4RTError(SC.INVALID_ARGUMENT, f"packet_out metadata id {m.metadata_id} given twice")
            given[m.metadata_id] = m.value
        known = {f[0] for f in self.pkt_out}
        extra = sorted(set(given) - known)
        if extra:
            raise P4RTError(SC.INVALID_ARGUMENT, f"unknown packet_out metadata id {extra[0]}")
        v, bits = 0, 0
        for fid, name, w in self.pkt_out:
            if fid not in given:
                raise P4RTError(SC.INVALID_ARGUMENT, f'packet_out metadata "{name}" (id {fid}) missing')
            try:
                x = _uint(given[fid], w, f'packet_out metadata "{name}"')
            except P4RTError as e:
                raise P4RTError(SC.INVALID_ARGUMENT, e.msg) from None
            v, bits = (v << w) | x, bits + w
        return v.to_bytes(bits // 8, "big") + bytes(po.payload)

    def packet_in_msg(self, data: bytes):
        msg = pb.StreamMessageResponse()
        if self.pkt_in is None:
            msg.packet.payload = data
            return msg
        n = sum(f[2] for f in self.pkt_in) // 8
        if len(data) < n:
            return None  # shorter than the packet_in header: not a controller packet
        v, left = int.from_bytes(data[:n], "big"), n * 8
        for fid, _, w in self.pkt_in:
            left -= w
            msg.packet.metadata.add(metadata_id=fid, value=_canon((v >> left) & ((1 << w) - 1)))
        msg.packet.payload = data[n:]
        return msg

    # --- RECONCILE_AND_COMMIT ---------------------------------------------------------------------
    def carry_over(self, old: "_Pipeline"):
        """Put the old pipeline's entries, default actions and multicast groups into this one, by
        table and action name; INVALID_ARGUMENT if the new program cannot hold them."""
        for name, ots in old.store.tables.items():
            changed_default = ots.default != (None if ots.table.default is None else
                                              (ots.table.default.action, list(ots.table.default.data)))
            entries = [] if ots.immutable else sorted(ots.entries.values(), key=lambda e: e.handle)
            if not entries and not changed_default:
                continue
            nts = self.store.tables.get(name)
            where = f"RECONCILE_AND_COMMIT: table {name!r}"
            if nts is None:
                raise P4RTError(SC.INVALID_ARGUMENT, f"{where} has state but is not in the new program")
            if [(k.kind, k.width) for k in ots.table.key] != [(k.kind, k.width) for k in nts.table.key]:
                raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: the key changed")
            if nts.immutable and entries:
                raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: the new table has const entries")

            def new_action(aid: int) -> int:
                a = old.cfg.action(aid)
                for n, nid in zip(nts.table.action_names, nts.table.actions):
                    if n == a.name and [w for _, w in self.cfg.action(nid).params] == [w for _, w in a.params]:
                        return nid
                raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: action {a.name!r} is not in the new table with the "
                                                     "same parameters")

            for e in entries:
                try:
                    h = nts.add(e.key, new_action(e.action), e.data, e.priority if nts.is_prio else None)
                except CommandError as x:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: {x.msg}") from None
                self.index.setdefault(name, {})[_ikey(nts.entries[h].key, nts.entries[h].priority)] = h
                if (name, e.handle) in old.meta:
                    self.meta[(name, h)] = old.meta[(name, e.handle)]
            if changed_default:
                if ots.default is None:
                    nts.default = None
                else:
                    try:
                        nts.set_default(new_action(ots.default[0]), ots.default[1])
                    except CommandError as x:
                        raise P4RTError(SC.INVALID_ARGUMENT, f"{where}: {x.msg}") from None
                if name in old.default_meta:
                    self.default_meta[name] = old.default_meta[name]
        self.store.mc_groups = {g: list(n) for g, n in old.store.mc_groups.items()}
        self.store.mc_nodes = dict(old.store.mc_nodes)
        self.mc_ports_kind = dict(old.mc_ports_kind)


class _Stream:
    """One StreamChannel: its outgoing queue and, once arbitrated, its device, role and election id."""

    def __init__(self):
        self.out: queue.Queue = queue.Queue()
        self.live = False
        self.device_id = 0
        self.role = ""
        self.eid: tuple[int, int] | None = None


class _Role:
    def __init__(self, name: str):
        self.name = name
        self.streams: list[_Stream] = []
        self.highest: tuple[int, int] | None = None  # the highest election id ever seen for the role

    def primary(self) -> _Stream | None:
        if self.highest is None:
            return None
        return next((s for s in self.streams if s.eid == self.highest), None)


_CLOSE = object()


class Device:
    """The device behind the service: arbitration, the live (and saved) pipeline, packet I/O.
    Every method is thread-safe (one lock: a Write batch, a Read and a packet never interleave)."""

    def __init__(self, device_id: int = 1, cpu_port: int = DEFAULT_CPU_PORT, backend_factory: Callable | None = None):
        if backend_factory is None:
            from .stf import InterpreterBackend
            backend_factory = InterpreterBackend
        self.device_id = device_id
        self.cpu_port = cpu_port
        self.factory = backend_factory
        self.lock = threading.RLock()
        self.live: _Pipeline | None = None
        self.saved: _Pipeline | None = None
        self.roles: dict[str, _Role] = {"": _Role("")}
        self.egress: deque = deque(maxlen=EGRESS_KEEP)  # (port, bytes) the data plane sent to ports other than the CPU
        self.on_egress: Callable[[int, bytes], None] | None = None
        self.stats = {"packet_out": 0, "packet_in": 0, "egress": 0, "dropped_packet_in": 0, "writes": 0,
                      "updates": 0, "last_write_us": 0.0}

    # --- arbitration ------------------------------------------------------------------------------
    def arbitrate(self, s: _Stream, m) -> None:
        with self.lock:
            if m.HasField("role") and m.role.HasField("config"):
                raise P4RTError(SC.INVALID_ARGUMENT, "role.config: no role configuration scheme is agreed with this "
                                                     "server (leave it unset: full pipeline access)")
            rname = m.role.name if m.HasField("role") else ""
            eid = _eid(m.election_id) if m.HasField("election_id") else None
            if not s.live:
                if m.device_id != self.device_id:
                    raise P4RTError(SC.NOT_FOUND, f"device_id {m.device_id}: this server has device {self.device_id}")
                role = self.roles.setdefault(rname, _Role(rname))
                if eid is not None and any(o.eid == eid for o in role.streams):
                    raise P4RTError(SC.INVALID_ARGUMENT, f"election_id {_fmt_eid(eid)} is used by another live "
                                                         f"controller of role {rname!r}")
                s.live, s.device_id, s.role = True, m.device_id, rname
                role.streams.append(s)
                was_primary = False
            else:
                if m.device_id != s.device_id:
                    raise P4RTError(SC.FAILED_PRECONDITION, f"device_id changed from {s.device_id} to {m.device_id} "
                                                            "on a live stream")
                if rname != s.role:
                    raise P4RTError(SC.FAILED_PRECONDITION, f"role changed from {s.role!r} to {rname!r} on a live "
                                                            "stream (open a new stream)")
                role = self.roles[rname]
                if eid is not None and any(o is not s and o.eid == eid for o in role.streams):
                    raise P4RTError(SC.INVALID_ARGUMENT, f"election_id {_fmt_eid(eid)} is used by another live "
                                                         f"controller of role {rname!r}")
                was_primary = role.primary() is s
            s.eid = eid
            if eid is not None and (role.highest is None or eid >= role.highest):
                role.highest = eid
                self._notify(role, role.streams)
            elif was_primary:
                self._notify(role, role.streams)
            else:
                self._notify(role, [s])

    def _notify(self, role: _Role, streams: list[_Stream]):
        p = role.primary()
        for t in streams:
            msg = pb.StreamMessageResponse()
            a = msg.arbitration
            a.device_id = self.device_id
            if role.name:
                a.role.name = role.name
            if role.highest is not None:
                a.election_id.high, a.election_id.low = role.highest
            if t is p:
                a.status.code, a.status.message = code_pb2.OK, "primary"
            elif p is not None:
                a.status.code, a.status.message = code_pb2.ALREADY_EXISTS, "backup: there is a primary"
            else:
                a.status.code, a.status.message = code_pb2.NOT_FOUND, "backup: there is no primary"
            t.out.put(msg)

    def disconnect(self, s: _Stream) -> None:
        with self.lock:
            if s.live:
                role = self.roles[s.role]
                was_primary = role.primary() is s
                role.streams.remove(s)
                s.live = False
                if was_primary:
                    self._notify(role, role.streams)
        s.out.put(_CLOSE)

    def _check_primary(self, device_id: int, role: str, has_eid: bool, eid) -> None:
        if device_id != self.device_id:
            raise P4RTError(SC.NOT_FOUND, f"device_id {device_id}: this server has device {self.device_id}")
        r = self.roles.get(role)
        if r is None:
            raise P4RTError(SC.NOT_FOUND, f"role {role!r}: no controller has arbitrated for it")
        p = r.primary()
        e = _eid(eid) if has_eid else None
        if p is None or e != p.eid:
            now = "no primary" if p is None else _fmt_eid(p.eid)
            raise P4RTError(SC.PERMISSION_DENIED, f"election_id {_fmt_eid(e)} is not the primary's ({now}) for role "
                                                  f"{role!r}")

    def primary_of(self, role: str = "") -> tuple[int, int] | None:
        with self.lock:
            r = self.roles.get(role)
            p = r.primary() if r else None
            return p.eid if p else None

    # --- pipeline config --------------------------------------------------------------------------
    def set_pipeline(self, req) -> None:
        with self.lock:
            self._check_primary(req.device_id, req.role, req.HasField("election_id"), req.election_id)
            self._set_pipeline(req.action, req.config if req.HasField("config") else None)

    def _set_pipeline(self, action: int, config) -> None:
        if action == _FPC.COMMIT:
            if config is not None:
                raise P4RTError(SC.INVALID_ARGUMENT, "COMMIT takes no config: it commits the saved one")
            if self.saved is None:
                raise P4RTError(SC.NOT_FOUND, "COMMIT: no saved config (VERIFY_AND_SAVE first)")
            self.live, self.saved = self.saved, None
            return
        if action not in (_FPC.VERIFY, _FPC.VERIFY_AND_SAVE, _FPC.VERIFY_AND_COMMIT, _FPC.RECONCILE_AND_COMMIT):
            raise P4RTError(SC.INVALID_ARGUMENT, f"action {_FPC.Action.Name(action)}: VERIFY, VERIFY_AND_SAVE, "
                                                 "VERIFY_AND_COMMIT, COMMIT or RECONCILE_AND_COMMIT expected")
        if config is None:
            raise P4RTError(SC.INVALID_ARGUMENT, f"{_FPC.Action.Name(action)}: no config given")
        pipe = _Pipeline(config, self.cpu_port)
        if action == _FPC.VERIFY:
            return
        pipe.realize(self.factory)
        if action == _FPC.VERIFY_AND_SAVE:
            self.saved = pipe
            return
        if action == _FPC.RECONCILE_AND_COMMIT and self.live is not None:
            pipe.carry_over(self.live)
        self.live, self.saved = pipe, None

    def install(self, p4info, device_config: bytes, cookie: int | None = None) -> None:
        """Load a pipeline locally (no arbitration), as VERIFY_AND_COMMIT would."""
        cfg = pb.ForwardingPipelineConfig(p4info=p4info, p4_device_config=device_config)
        if cookie is not None:
            cfg.cookie.cookie = cookie
        with self.lock:
            self._set_pipeline(_FPC.VERIFY_AND_COMMIT, cfg)

    def get_pipeline(self, req):
        if req.device_id != self.device_id:
            raise P4RTError(SC.NOT_FOUND, f"device_id {req.device_id}: this server has device {self.device_id}")
        resp = pb.GetForwardingPipelineConfigResponse()
        with self.lock:
            pipe = self.saved or self.live
            if pipe is None:
                return resp
            R = pb.GetForwardingPipelineConfigRequest
            c = resp.config
            c.SetInParent()
            if req.response_type in (R.ALL, R.P4INFO_AND_COOKIE):
                c.p4info.CopyFrom(pipe.p4info)
            if req.response_type in (R.ALL, R.DEVICE_CONFIG_AND_COOKIE):
                c.p4_device_config = pipe.device_config
            if pipe.cookie is not None:
                c.cookie.cookie = pipe.cookie
        return resp

    @property
    def pipeline(self) -> _Pipeline | None:
        """The pipeline packets run through."""
        return self.live

    # --- Write ------------------------------------------------------------------------------------
    def write(self, req) -> list[P4RTError | None]:
        """One entry per update: None (done) or its error. Raises P4RTError for errors of the whole
        request (device, primary, no pipeline, atomicity)."""
        with self.lock:
            t0 = time.perf_counter()
            self._check_primary(req.device_id, req.role, req.HasField("election_id"), req.election_id)
            pipe = self.saved or self.live
            if pipe is None:
                raise P4RTError(SC.FAILED_PRECONDITION, "no forwarding pipeline config has been set")
            A = pb.WriteRequest
            if req.atomicity not in (A.CONTINUE_ON_ERROR, A.ROLLBACK_ON_ERROR, A.DATAPLANE_ATOMIC):
                raise P4RTError(SC.INVALID_ARGUMENT, f"atomicity {req.atomicity}")
            undo: list[Callable] = []
            errors: list[P4RTError | None] = []
            for u in req.updates:
                try:
                    self._update(pipe, u, undo)
                    errors.append(None)
                except P4RTError as e:
                    errors.append(e)
                    if req.atomicity != A.CONTINUE_ON_ERROR:
                        break
            if req.atomicity != A.CONTINUE_ON_ERROR and any(errors):
                for fn in reversed(undo):
                    fn()
                bad = len(errors) - 1
                errors = [errors[bad] if i == bad else
                          P4RTError(SC.ABORTED, f"rolled back: update {bad} failed") for i in range(len(req.updates))]
            commit = getattr(pipe.backend, "commit", None)
            if pipe is self.live and commit is not None and not all(errors):
                self.stats["last_commit"] = commit()
            self.stats["writes"] += 1
            self.stats["updates"] += len(req.updates)
            self.stats["last_write_us"] = (time.perf_counter() - t0) * 1e6
            return errors

    def _update(self, pipe: _Pipeline, u, undo: list) -> None:
        which = u.entity.WhichOneof("entity")
        if u.type not in (INSERT, MODIFY, DELETE):
            raise P4RTError(SC.INVALID_ARGUMENT, "update type UNSPECIFIED")
        if which is None:
            raise P4RTError(SC.INVALID_ARGUMENT, "entity not set")
        if which == "table_entry":
            self._write_table(pipe, u.type, u.entity.table_entry, undo)
        elif which == "packet_replication_engine_entry":
            pre = u.entity.packet_replication_engine_entry
            if pre.WhichOneof("type") != "multicast_group_entry":
                raise P4RTError(SC.UNIMPLEMENTED, "clone sessions are not in the hardware (no packet replication "
                                                  "for clones)")
            self._write_mcast(pipe, u.type, pre.multicast_group_entry, undo)
        else:
            raise P4RTError(SC.UNIMPLEMENTED, f"{which}: {_NOT_HERE.get(which, 'not supported')}")

    def _write_table(self, pipe: _Pipeline, kind: int, te, undo: list) -> None:
        tm = pipe.table(te.table_id)
        if te.is_const:
            raise P4RTError(SC.INVALID_ARGUMENT, "is_const must be false in a write")
        if kind != DELETE:
            if te.idle_timeout_ns:
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{tm.name}" has no idle timeout (idle_timeout_ns 0)')
            if te.HasField("counter_data") or te.HasField("meter_config") or te.HasField("meter_counter_data"):
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{tm.name}" has no direct counter or meter (the '
                                                     "pipeline has neither)")
        ts = pipe.store.tables[tm.json]
        if te.is_default_action:
            if kind != MODIFY:
                raise P4RTError(SC.INVALID_ARGUMENT, "the default entry can only be modified (MODIFY), not "
                                                     f"{pb.Update.Type.Name(kind)}")
            if len(te.match) or te.priority:
                raise P4RTError(SC.INVALID_ARGUMENT, "the default entry has no match and priority 0")
            if tm.const_default:
                raise P4RTError(SC.PERMISSION_DENIED, f'table "{tm.name}" has a const default action')
            old, old_meta = ts.default, pipe.default_meta.get(tm.json)
            if te.HasField("action"):
                aid, data = tm.action(te.action, default=True)
                try:
                    ts.set_default(aid, data)
                except CommandError as e:
                    raise P4RTError(SC.PERMISSION_DENIED, e.msg) from None
            else:  # reset to the program's default
                d = ts.table.default
                ts.default = None if d is None else (d.action, list(d.data))
            pipe.default_meta[tm.json] = (te.controller_metadata, bytes(te.metadata))

            def restore_default():
                ts.default = old
                if old_meta is None:
                    pipe.default_meta.pop(tm.json, None)
                else:
                    pipe.default_meta[tm.json] = old_meta
            undo.append(restore_default)
            return
        if not tm.fields and kind == INSERT:
            raise P4RTError(SC.INVALID_ARGUMENT, f'table "{tm.name}" has no key: only its default entry can be set')
        key = tm.match_key(te.match)
        prio = tm.priority(te.priority)
        if ts.immutable:
            raise P4RTError(SC.PERMISSION_DENIED, f'table "{tm.name}" has const entries: it cannot be changed')
        idx = pipe.index[tm.json]
        ik = _ikey(key, prio)
        if kind == INSERT:
            if ik in idx:
                raise P4RTError(SC.ALREADY_EXISTS, f'table "{tm.name}": the entry exists (same match and priority)')
            if not te.HasField("action"):
                raise P4RTError(SC.INVALID_ARGUMENT, "INSERT: the entry has no action")
            aid, data = tm.action(te.action, default=False)
            if len(ts.entries) >= ts.table.size:
                raise P4RTError(SC.RESOURCE_EXHAUSTED, f'table "{tm.name}" is full ({ts.table.size} entries)')
            try:
                h = ts.add(key, aid, data, prio if tm.needs_priority else None)
            except CommandError as e:
                raise P4RTError(SC.INVALID_ARGUMENT, e.msg) from None
            # a backend whose hardware holds fewer entries than the P4Info's size says so here
            full = getattr(pipe.backend, "fits", lambda table: None)(tm.json)
            if full is not None:
                ts.delete(h)
                raise P4RTError(SC.RESOURCE_EXHAUSTED, f'table "{tm.name}": {full}')
            idx[ik] = h
            pipe.meta[(tm.json, h)] = (te.controller_metadata, bytes(te.metadata))

            def undo_insert():
                ts.delete(h)
                idx.pop(ik, None)
                pipe.meta.pop((tm.json, h), None)
            undo.append(undo_insert)
            return
        h = idx.get(ik)
        if h is None:
            raise P4RTError(SC.NOT_FOUND, f'table "{tm.name}": no such entry (match and priority)')
        e = ts.entries[h]
        old_meta = pipe.meta.get((tm.json, h))
        if kind == MODIFY:
            old = (e.action, list(e.data))
            if te.HasField("action"):
                aid, data = tm.action(te.action, default=False)
                try:
                    ts.modify(h, aid, data)
                except CommandError as x:
                    raise P4RTError(SC.INVALID_ARGUMENT, x.msg) from None
            pipe.meta[(tm.json, h)] = (te.controller_metadata, bytes(te.metadata))

            def undo_modify():
                ts.modify(h, *old)
                pipe.meta[(tm.json, h)] = old_meta
            undo.append(undo_modify)
            return
        ts.delete(h)
        del idx[ik]
        pipe.meta.pop((tm.json, h), None)

        def undo_delete(e: Entry = e):
            ts.restore(e)
            idx[ik] = h
            if old_meta is not None:
                pipe.meta[(tm.json, h)] = old_meta
        undo.append(undo_delete)

    def _write_mcast(self, pipe: _Pipeline, kind: int, mg, undo: list) -> None:
        store = pipe.store
        g = mg.multicast_group_id
        if g == 0:
            raise P4RTError(SC.INVALID_ARGUMENT, "multicast_group_id 0 is not a group")
        exists = g in store.mc_groups
        if kind == INSERT and exists:
            raise P4RTError(SC.ALREADY_EXISTS, f"multicast group {g} exists")
        if kind != INSERT and not exists:
            raise P4RTError(SC.NOT_FOUND, f"no multicast group {g}")
        replicas, form = [], "egress_port"
        if kind != DELETE:
            seen = set()
            for r in mg.replicas:
                which = r.WhichOneof("port_kind")
                form = which or form
                port = _uint(r.port, 9, "replica port") if which == "port" else r.egress_port
                if port > 510:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"replica port {port}: ports are 0..510")
                if (port, r.instance) in seen:
                    raise P4RTError(SC.INVALID_ARGUMENT, f"replica (port {port}, instance {r.instance}) given twice")
                seen.add((port, r.instance))
                replicas.append((r.instance, port))
        old_group = store.mc_groups.get(g)
        old_nodes = {n: store.mc_nodes[n] for n in old_group or []}
        old_form = pipe.mc_ports_kind.get(g)
        for n in old_group or []:
            del store.mc_nodes[n]
        store.mc_groups.pop(g, None)
        pipe.mc_ports_kind.pop(g, None)
        if kind != DELETE:
            nodes = []
            for rid, port in replicas:
                h = max(store.mc_nodes, default=-1) + 1
                store.mc_nodes[h] = (rid, [port])
                nodes.append(h)
            store.mc_groups[g] = nodes
            pipe.mc_ports_kind[g] = form

        def undo_mcast():
            for n in store.mc_groups.pop(g, []):
                store.mc_nodes.pop(n, None)
            if old_group is not None:
                store.mc_groups[g] = old_group
                store.mc_nodes.update(old_nodes)
                pipe.mc_ports_kind[g] = old_form
        undo.append(undo_mcast)

    # --- Read -------------------------------------------------------------------------------------
    def read(self, req) -> tuple[list, list[P4RTError | None]]:
        if req.device_id != self.device_id:
            raise P4RTError(SC.NOT_FOUND, f"device_id {req.device_id}: this server has device {self.device_id}")
        out, errors = [], []
        with self.lock:
            pipe = self.saved or self.live
            if pipe is None:
                raise P4RTError(SC.FAILED_PRECONDITION, "no forwarding pipeline config has been set")
            for ent in req.entities:
                try:
                    got = self._read_one(pipe, ent)
                    out += got
                    errors.append(None)
                except P4RTError as e:
                    errors.append(e)
        return out, errors

    def _read_one(self, pipe: _Pipeline, ent) -> list:
        which = ent.WhichOneof("entity")
        if which is None:
            raise P4RTError(SC.INVALID_ARGUMENT, "entity not set (no wildcard over all entity types)")
        if which == "table_entry":
            return self._read_tables(pipe, ent.table_entry)
        if which == "packet_replication_engine_entry":
            pre = ent.packet_replication_engine_entry
            if pre.WhichOneof("type") != "multicast_group_entry":
                raise P4RTError(SC.UNIMPLEMENTED, "clone sessions are not in the hardware")
            return self._read_mcast(pipe, pre.multicast_group_entry.multicast_group_id)
        if which == "counter_entry":
            cid = ent.counter_entry.counter_id
            if cid:
                raise P4RTError(SC.INVALID_ARGUMENT, f"invalid P4 id: no counter with id {cid} (the pipeline has no "
                                                     "counters)")
            return []
        if which == "direct_counter_entry":
            tid = ent.direct_counter_entry.table_entry.table_id
            if tid:
                tm = pipe.table(tid)
                raise P4RTError(SC.INVALID_ARGUMENT, f'table "{tm.name}" has no direct counter (the pipeline has no '
                                                     "counters)")
            return []
        raise P4RTError(SC.UNIMPLEMENTED, f"{which}: {_NOT_HERE.get(which, 'not supported')}")

    def _read_tables(self, pipe: _Pipeline, te) -> list:
        tables = [pipe.table(te.table_id)] if te.table_id else pipe.tables
        key = tables[0].match_key(te.match) if te.table_id and len(te.match) else None  # a filter: exact key
        out = []
        for tm in tables:
            ts = pipe.store.tables[tm.json]
            if te.is_default_action:
                if ts.default is None:
                    continue
                ent = pb.Entity()
                t = ent.table_entry
                t.table_id, t.is_default_action = tm.p4id, True
                if not tm.action_msg(ts.default[0], ts.default[1], t.action.action):
                    t.ClearField("action")
                t.controller_metadata, t.metadata = pipe.default_meta.get(tm.json, (0, b""))
                out.append(ent)
                continue
            want_action = te.action.action.action_id if te.HasField("action") else 0
            for e in sorted(ts.entries.values(), key=lambda e: e.handle):
                if key is not None and e.key != key:
                    continue
                p = PRIORITY_MAX - e.priority if tm.needs_priority else 0
                if te.priority and p != te.priority:
                    continue
                ref = tm.by_json.get(e.action)
                if want_action and (ref is None or ref.p4id != want_action):
                    continue
                cm, md = pipe.meta.get((tm.json, e.handle), (0, b""))
                if (te.controller_metadata and cm != te.controller_metadata) or (te.metadata and md != te.metadata):
                    continue
                ent = pb.Entity()
                t = ent.table_entry
                t.table_id = tm.p4id
                t.match.extend(tm.field_matches(e.key))
                tm.action_msg(e.action, e.data, t.action.action)
                t.priority = p
                t.controller_metadata, t.metadata = cm, md
                t.is_const = ts.immutable
                out.append(ent)
        return out

    def _read_mcast(self, pipe: _Pipeline, gid: int) -> list:
        out = []
        for g in sorted(pipe.store.mc_groups):
            if gid and g != gid:
                continue
            ent = pb.Entity()
            mg = ent.packet_replication_engine_entry.multicast_group_entry
            mg.multicast_group_id = g
            for n in pipe.store.mc_groups[g]:
                rid, ports = pipe.store.mc_nodes[n]
                for port in ports:
                    r = mg.replicas.add(instance=rid)
                    if pipe.mc_ports_kind.get(g) == "port":
                        r.port = _canon(port)
                    else:
                        r.egress_port = port
            out.append(ent)
        return out

    # --- packets ----------------------------------------------------------------------------------
    def packet_out(self, s: _Stream, po) -> None:
        err = None
        with self.lock:
            role = self.roles.get(s.role)
            pipe = self.live
            if not s.live or role is None or role.primary() is not s:
                err = P4RTError(SC.PERMISSION_DENIED, "PacketOut from a controller that is not the primary")
            elif pipe is None:
                err = P4RTError(SC.FAILED_PRECONDITION, "PacketOut: no forwarding pipeline is live")
            else:
                try:
                    data = pipe.packet_out_bytes(po)
                except P4RTError as e:
                    err = e
            if err is None:
                outs = pipe.backend.send(self.cpu_port, data)
                self.stats["packet_out"] += 1
        if err is not None:
            msg = pb.StreamMessageResponse()
            msg.error.canonical_code, msg.error.message = err.code.value[0], err.msg
            msg.error.packet_out.packet_out.CopyFrom(po)
            s.out.put(msg)
            return
        self._route(pipe, outs)

    def inject(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        """A data-plane packet in on `port`: returns its outputs; those to the CPU port also go to
        the primaries as PacketIn, the others to `egress`."""
        with self.lock:
            pipe = self.live
            if pipe is None:
                raise RuntimeError("no forwarding pipeline is live")
            outs = pipe.backend.send(port, data)
        self._route(pipe, outs)
        return outs

    def _route(self, pipe: _Pipeline, outs) -> None:
        for port, data in outs:
            if port == self.cpu_port:
                msg = pipe.packet_in_msg(data)
                with self.lock:
                    primaries = [p for p in (r.primary() for r in self.roles.values()) if p is not None]
                    if msg is None or not primaries:
                        self.stats["dropped_packet_in"] += 1
                        continue
                    self.stats["packet_in"] += 1
                for p in primaries:
                    p.out.put(msg)
            else:
                with self.lock:
                    self.stats["egress"] += 1
                    self.egress.append((port, data))
                if self.on_egress is not None:
                    self.on_egress(port, data)

    def stream_message(self, s: _Stream, msg) -> None:
        which = msg.WhichOneof("update")
        if which == "arbitration":
            self.arbitrate(s, msg.arbitration)
        elif which == "packet":
            self.packet_out(s, msg.packet)
        elif which == "digest_ack":
            pass  # no digest lists are sent
        else:
            r = pb.StreamMessageResponse()
            r.error.canonical_code = SC.UNIMPLEMENTED.value[0]
            r.error.message = f"stream message {which or 'unset'} is not supported"
            if which == "other":
                r.error.other.other.CopyFrom(msg.other)
            s.out.put(r)


def _batch_abort(context, errors: list, what: str):
    st = status_pb2.Status(code=code_pb2.UNKNOWN)
    n = sum(e is not None for e in errors)
    first = next(e for e in errors if e is not None)
    st.message = f"{what}: {n} of {len(errors)} failed; first: {first.code.name}: {first.msg}"
    for e in errors:
        d = pb.Error(canonical_code=code_pb2.OK) if e is None else pb.Error(canonical_code=e.code.value[0],
                                                                            message=e.msg)
        st.details.add().Pack(d)
    context.set_trailing_metadata((("grpc-status-details-bin", st.SerializeToString()),))
    context.abort(SC.UNKNOWN, st.message)


def api_version() -> str:
    try:
        from importlib.metadata import version
        return version("p4runtime")
    except Exception:  # noqa: BLE001 (metadata missing: the protos' version we were written against)
        return API_VERSION_FALLBACK


class _Servicer(pb_grpc.P4RuntimeServicer):
    def __init__(self, device: Device):
        self.dev = device

    def Write(self, request, context):
        try:
            errors = self.dev.write(request)
        except P4RTError as e:
            context.abort(e.code, e.msg)
        if any(errors):
            _batch_abort(context, errors, "Write")
        return pb.WriteResponse()

    def Read(self, request, context):
        try:
            entities, errors = self.dev.read(request)
        except P4RTError as e:
            context.abort(e.code, e.msg)
        for i in range(0, len(entities), 500):
            yield pb.ReadResponse(entities=entities[i:i + 500])
        if not entities:
            yield pb.ReadResponse()
        if any(errors):
            _batch_abort(context, errors, "Read")

    def SetForwardingPipelineConfig(self, request, context):
        try:
            self.dev.set_pipeline(request)
        except P4RTError as e:
            context.abort(e.code, e.msg)
        return pb.SetForwardingPipelineConfigResponse()

    def GetForwardingPipelineConfig(self, request, context):
        try:
            return self.dev.get_pipeline(request)
        except P4RTError as e:
            context.abort(e.code, e.msg)

    def Capabilities(self, request, context):
        return pb.CapabilitiesResponse(p4runtime_api_version=api_version())

    def StreamChannel(self, request_iterator, context):
        s = _Stream()
        context.add_callback(lambda: s.out.put(_CLOSE))
        threading.Thread(target=self._reader, args=(s, request_iterator), daemon=True, name="p4rt-stream").start()
        try:
            while True:
                item = s.out.get()
                if item is _CLOSE:
                    return
                if isinstance(item, P4RTError):
                    context.abort(item.code, item.msg)
                yield item
        finally:
            self.dev.disconnect(s)

    def _reader(self, s: _Stream, it):
        try:
            for msg in it:
                try:
                    self.dev.stream_message(s, msg)
                except P4RTError as e:
                    s.out.put(e)  # ends the stream with this status
                    return
        except Exception:  # noqa: BLE001 (the client went away: grpc raises on the iterator)
            pass
        s.out.put(_CLOSE)


class P4RuntimeServer:
    """The P4Runtime gRPC service around a `Device`. `start(addr)` returns the bound port
    ("127.0.0.1:0" picks a free one); `install()` loads a pipeline locally; `inject()` sends a
    data-plane packet; `egress` holds what the data plane sent to ports other than the CPU's."""

    def __init__(self, device_id: int = 1, cpu_port: int = DEFAULT_CPU_PORT, backend_factory: Callable | None = None,
                 max_workers: int = 32):
        self.device = Device(device_id, cpu_port, backend_factory)
        self.max_workers = max_workers
        self._server = None
        self.port = 0
        self.addr = ""

    def start(self, addr: str = "127.0.0.1:0") -> int:
        self._server = grpc.server(futures.ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="p4rt"),
                                   options=GRPC_OPTIONS)
        pb_grpc.add_P4RuntimeServicer_to_server(_Servicer(self.device), self._server)
        try:
            self.port = self._server.add_insecure_port(addr)
        except RuntimeError as e:
            raise OSError(f"cannot listen on {addr}: {e}") from None
        if not self.port:
            raise OSError(f"cannot listen on {addr}")
        self._server.start()
        self.addr = f"{addr.rsplit(':', 1)[0]}:{self.port}"
        return self.port

    def stop(self, grace: float | None = 0.5) -> None:
        if self._server is not None:
            self._server.stop(grace).wait()
            self._server = None

    def wait(self) -> None:
        if self._server is not None:
            self._server.wait_for_termination()

    def install(self, p4info, device_config: bytes, cookie: int | None = None) -> None:
        self.device.install(p4info, device_config, cookie)

    def inject(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return self.device.inject(port, data)

    @property
    def egress(self) -> deque:
        return self.device.egress

    def __enter__(self):
        if self._server is None:
            self.start()
        return self

    def __exit__(self, *exc):
        self.stop()


def load_p4info(path: str | Path):
    """A P4Info file: text protobuf (what p4c writes as .p4info.txt), binary or JSON."""
    p = Path(path)
    raw = p.read_bytes()
    info = p4info_pb2.P4Info()
    if p.suffix == ".json":
        json_format.Parse(raw.decode(), info)
        return info
    try:
        text_format.Parse(raw.decode(), info, allow_unknown_field=True)
        return info
    except (UnicodeDecodeError, text_format.ParseError):
        info.ParseFromString(raw)
        return info


# ---------------------------------------------------------------------------------------------
# A small client (raw gRPC), for tests and the update-latency measurement


def batch_errors(err: grpc.RpcError) -> list[tuple[str, str]]:
    """The per-update (code name, message) list of a batch error (gRPC UNKNOWN with details)."""
    for k, v in err.trailing_metadata() or ():
        if k == "grpc-status-details-bin":
            st = status_pb2.Status()
            st.ParseFromString(v)
            out = []
            for d in st.details:
                e = pb.Error()
                d.Unpack(e)
                out.append((code_pb2.Code.Name(e.canonical_code), e.message))
            return out
    return []


class Client:
    """A P4Runtime client: one stream (arbitration, packet I/O), Write, Read, pipeline config."""

    def __init__(self, addr: str, device_id: int = 1, election_id: tuple[int, int] | None = (0, 1), role: str = "",
                 arbitrate: bool = True):
        self.device_id = device_id
        self.election_id = election_id
        self.role = role
        self.channel = grpc.insecure_channel(addr, options=GRPC_OPTIONS)
        self.rpc = pb_grpc.P4RuntimeStub(self.channel)   # the generated client
        self._out: queue.Queue = queue.Queue()
        self.arbitrations: queue.Queue = queue.Queue()
        self.packets: queue.Queue = queue.Queue()
        self.errors: queue.Queue = queue.Queue()
        self.stream_error: grpc.RpcError | None = None
        self._stream = self.rpc.StreamChannel(iter(self._out.get, None))
        self._thread = threading.Thread(target=self._recv, daemon=True, name="p4rt-client")
        self._thread.start()
        if arbitrate:
            self.arbitrate()

    def _recv(self):
        try:
            for msg in self._stream:
                which = msg.WhichOneof("update")
                {"arbitration": self.arbitrations, "packet": self.packets}.get(which, self.errors).put(
                    getattr(msg, which) if which in ("arbitration", "packet", "error") else msg)
        except grpc.RpcError as e:
            self.stream_error = e
        finally:
            self.arbitrations.put(None)

    def arbitrate(self, election_id: tuple[int, int] | None | str = "same", device_id: int | None = None,
                  timeout: float = 5.0):
        """Send a MasterArbitrationUpdate; returns the server's answer (None if the stream ended)."""
        if election_id != "same":
            self.election_id = election_id
        msg = pb.StreamMessageRequest()
        msg.arbitration.device_id = self.device_id if device_id is None else device_id
        if self.role:
            msg.arbitration.role.name = self.role
        if self.election_id is not None:
            msg.arbitration.election_id.high, msg.arbitration.election_id.low = self.election_id
        self._out.put(msg)
        return self.next_arbitration(timeout)

    def next_arbitration(self, timeout: float = 5.0):
        try:
            return self.arbitrations.get(timeout=timeout)
        except queue.Empty:
            return None

    def _ids(self, req):
        req.device_id = self.device_id
        req.role = self.role
        if self.election_id is not None:
            req.election_id.high, req.election_id.low = self.election_id
        return req

    def set_pipeline(self, p4info, device_config: bytes | None, action: int = _FPC.VERIFY_AND_COMMIT,
                     cookie: int | None = None):
        req = self._ids(pb.SetForwardingPipelineConfigRequest(action=action))
        if p4info is not None or device_config is not None:
            if p4info is not None:
                req.config.p4info.CopyFrom(p4info)
            req.config.p4_device_config = device_config or b""
            if cookie is not None:
                req.config.cookie.cookie = cookie
        return self.rpc.SetForwardingPipelineConfig(req)

    def get_pipeline(self, response_type: int = 0):
        return self.rpc.GetForwardingPipelineConfig(pb.GetForwardingPipelineConfigRequest(
            device_id=self.device_id, response_type=response_type)).config

    def write(self, *updates, atomicity: int = 0):
        req = self._ids(pb.WriteRequest(atomicity=atomicity))
        req.updates.extend(updates)
        return self.rpc.Write(req)

    def read(self, *entities) -> list:
        req = pb.ReadRequest(device_id=self.device_id, role=self.role)
        req.entities.extend(entities)
        return [e for r in self.rpc.Read(req) for e in r.entities]

    def packet_out(self, payload: bytes, metadata: dict[int, bytes] | None = None):
        msg = pb.StreamMessageRequest()
        msg.packet.payload = payload
        for k, v in (metadata or {}).items():
            msg.packet.metadata.add(metadata_id=k, value=v)
        self._out.put(msg)

    def packet_in(self, timeout: float = 2.0):
        try:
            return self.packets.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self):
        self._out.put(None)
        self._thread.join(timeout=5)
        self.channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def update(kind: int, entity) -> "pb.Update":
    u = pb.Update(type=kind)
    if isinstance(entity, pb.TableEntry):
        u.entity.table_entry.CopyFrom(entity)
    else:
        u.entity.CopyFrom(entity)
    return u


# ---------------------------------------------------------------------------------------------
# The update-latency measurement


def ipv4_frame(dst: str, src: str = "10.9.9.9", ttl: int = 64, payload: bytes = b"fastpath p4runtime",
               eth_dst: bytes = b"\x00\x00\x00\x00\x00\xaa", eth_src: bytes = b"\x00\x00\x00\x00\x00\xbb") -> bytes:
    """An Ethernet/IPv4 frame with a correct header checksum (protocol 253, experimental)."""
    def addr(a: str) -> bytes:
        return bytes(int(x) for x in a.split("."))
    hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0, 0, ttl, 253, 0, addr(src), addr(dst)))
    s = sum(struct.unpack("!10H", hdr))
    s = (s & 0xFFFF) + (s >> 16)
    s = (s & 0xFFFF) + (s >> 16)
    hdr[10:12] = struct.pack("!H", ~s & 0xFFFF)
    return eth_dst + eth_src + b"\x08\x00" + bytes(hdr) + payload


def _stats_us(xs: list[float]) -> dict:
    s = sorted(xs)
    return {"median": round(statistics.median(s), 1), "p99": round(s[min(len(s) - 1, int(0.99 * len(s)))], 1),
            "min": round(s[0], 1), "max": round(s[-1], 1), "mean": round(statistics.fmean(s), 1)}


def measure_update_latency(n: int = 1000, program: str | Path | None = None, p4info: str | Path | None = None,
                           warmup: int = 20, cpu_port: int = DEFAULT_CPU_PORT, addr: str | None = None,
                           capacity: int | None = None, backend: str = "reference interpreter") -> dict:
    """How long a table update takes to be live: an in-process server on a free loopback port (or
    the server at `addr`, e.g. `fastpath p4 serve --backend rtl`'s, whose table then holds
    `capacity` routes; `server_apply_us` is then not measured), a
    gRPC client (primary), simple_router with its P4Info (shared/vectors/bmv2 by default). Each of
    `n` rounds INSERTs an `ipv4_lpm` route (a new /24 to the CPU port; the table holds its
    previous routes, the oldest deleted, untimed, when it is full), times the Write round trip,
    then sends a PacketOut to that /24 at once and times until it comes back as a PacketIn through
    the new route (a packet that misses is dropped by the default action: a miss is counted).
    Returns microsecond statistics (median, p99, min, max, mean) of `write_rtt_us` (Write call to
    return), `server_apply_us` (inside the server, lock held), `packet_rtt_us` (PacketOut to
    PacketIn) and `write_to_live_us` (Write call to PacketIn), plus counts."""
    from fastpath.paths import VECTORS
    program = Path(program) if program else VECTORS / "bmv2" / "simple_router.json"
    p4info = Path(p4info) if p4info else VECTORS / "bmv2" / "simple_router.p4info.txt"
    info = load_p4info(p4info)
    ids = {t.preamble.name: t for t in info.tables}
    acts = {a.preamble.name: a for a in info.actions}
    lpm, fwd = ids["ipv4_lpm"], ids["forward"]
    server = None
    if addr is None:
        server = P4RuntimeServer(cpu_port=cpu_port)
        server.start("127.0.0.1:0")
        addr = server.addr
    c = Client(addr, election_id=(0, 1))
    try:
        c.set_pipeline(info, program.read_bytes())
        nhop = bytes([10, 0, 0, 1])

        def entry(table, action: str, params: list[bytes], match=None, default=False):
            te = pb.TableEntry(table_id=table.preamble.id, is_default_action=default)
            a = acts[action]
            te.action.action.action_id = a.preamble.id
            for p, v in zip(a.params, params):
                te.action.action.params.add(param_id=p.id, value=v)
            if match is not None:
                te.match.append(match)
            return te

        def route(i: int):
            net = bytes([10, 1 + i // 256 % 200, i % 256, 0])
            return pb.FieldMatch(field_id=lpm.match_fields[0].id, lpm=pb.FieldMatch.LPM(value=net, prefix_len=24)), net

        c.write(update(MODIFY, entry(lpm, "_drop", [], default=True)))
        c.write(update(INSERT, entry(fwd, "set_dmac", [b"\x00\x00\x00\x00\x00\x01"], pb.FieldMatch(
            field_id=fwd.match_fields[0].id, exact=pb.FieldMatch.Exact(value=nhop)))))
        if capacity is None:
            capacity = server.device.pipeline.store.tables[lpm.preamble.name].table.size
        installed: deque = deque()
        rtt, apply, pkt, live = [], [], [], []
        misses = 0
        for i in range(warmup + n):
            m, net = route(i)
            if len(installed) >= capacity - 1:
                c.write(update(DELETE, pb.TableEntry(table_id=lpm.preamble.id, match=[installed.popleft()])))
            te = entry(lpm, "set_nhop", [nhop, _canon(cpu_port)], m)
            frame = ipv4_frame(f"{net[0]}.{net[1]}.{net[2]}.7")
            t0 = time.perf_counter()
            c.write(update(INSERT, te))
            t1 = time.perf_counter()
            c.packet_out(frame)
            got = c.packet_in(timeout=2.0)
            t2 = time.perf_counter()
            installed.append(m)
            if got is None or got.payload[30:34] != bytes([net[0], net[1], net[2], 7]):
                misses += 1
                continue
            if i >= warmup:
                rtt.append((t1 - t0) * 1e6)
                if server is not None:
                    apply.append(server.device.stats["last_write_us"])
                pkt.append((t2 - t1) * 1e6)
                live.append((t2 - t0) * 1e6)
    finally:
        c.close()
        if server is not None:
            server.stop()
    return {"program": program.name, "table": "ipv4_lpm", "writes": n, "warmup": warmup, "misses": misses,
            "transport": "gRPC over loopback, server in the same process" if server else f"gRPC to {addr}",
            "backend": backend, "capacity": capacity,
            "write_rtt_us": _stats_us(rtt), "server_apply_us": _stats_us(apply) if apply else None,
            "packet_rtt_us": _stats_us(pkt),
            "write_to_live_us": _stats_us(live), "python": sys.version.split()[0]}
