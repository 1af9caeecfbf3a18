"""The run-time side of the pipeline: table entries, default actions, multicast groups, and the
`simple_switch_CLI` commands that fill them.

`TableStore(config)` holds, per table of a compiled program (`fastpath.p4.compiler.Config`), its
entries (handle, match key, action, action data, priority) and its default action; the
interpreter looks keys up in it (and the RTL pipeline's loader will read it). Matching follows
bmv2: exact tables by equality; LPM tables by the longest matching prefix; ternary and range
tables by the smallest priority number (bmv2's convention: a smaller number is a higher
priority; equal priorities: the entry added first). A program's `const entries` are installed
at creation and make the table immutable, as in bmv2.

`Runtime.run(text)` executes `simple_switch_CLI` commands, one per line (`#` comments):

    table_add T A KEY... => PARAM... [PRIORITY]     exact `v`, LPM `v/len`, ternary `v&&&m`,
                                                    range `lo->hi`; PRIORITY for ternary/range
    table_set_default T A [PARAM...]
    table_modify T A HANDLE [=>] [PARAM...]
    table_delete T HANDLE
    table_clear T
    table_dump T
    table_num_entries T
    mc_mgrp_create GROUP / mc_node_create RID PORT... / mc_node_associate GROUP NODE

Values are hexadecimal (`0x0a000001`), decimal, MAC (`00:11:22:33:44:55`) or IPv4
(`10.0.0.1`). A bad line raises `CommandError`, whose text is one line: `line N: what is wrong`.
There are no `counter_read` / `register_*` / `meter_*` commands: the compiler refuses programs
with counters, registers and meters.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from .compiler import Config, Table


class CommandError(Exception):
    """A bad run-time command: one line, `line N: what is wrong`."""

    def __init__(self, msg: str, line: int | None = None):
        super().__init__(f"line {line}: {msg}" if line is not None else msg)
        self.msg = msg
        self.line = line


@dataclass
class Entry:
    handle: int
    key: list  # per key field: ["exact", v] / ["lpm", v, plen] / ["ternary", v, m] / ["range", lo, hi] / ["valid", b]
    action: int
    data: list[int]
    priority: int  # bmv2 convention: smaller wins (0 for exact / LPM tables)

    def prefix_len(self) -> int:
        return next((k[2] for k in self.key if k[0] == "lpm"), 0)


def parse_value(text: str, width: int, what: str = "value") -> int:
    """A run-time value: hex (0x..), decimal, MAC or IPv4; it must fit in `width` bits."""
    t = text.strip()
    try:
        if re.fullmatch(r"([0-9a-fA-F]{1,2}:){5}[0-9a-fA-F]{1,2}", t):
            v = int("".join(f"{int(x, 16):02x}" for x in t.split(":")), 16)
        elif re.fullmatch(r"\d+\.\d+\.\d+\.\d+", t):
            v = int(ipaddress.IPv4Address(t))
        elif ":" in t:
            v = int(ipaddress.IPv6Address(t))
        else:
            v = int(t, 0) if not re.fullmatch(r"0\d+", t) else int(t, 10)
    except ValueError:
        raise CommandError(f"{what} {text!r} is not a number, MAC or IPv4 address") from None
    if v < 0:
        raise CommandError(f"{what} {text!r} is negative")
    if v >> width:
        raise CommandError(f"{what} {text!r} does not fit in {width} bits")
    return v


def _ones(w: int) -> int:
    return (1 << w) - 1


def _lpm_mask(plen: int, w: int) -> int:
    return _ones(plen) << (w - plen)


def range_to_prefixes(lo: int, hi: int, width: int) -> list[tuple[int, int]]:
    """The (value, mask) TCAM rows that cover lo..hi exactly (range match by prefix expansion)."""
    out = []
    while lo <= hi:
        size = lo & -lo if lo else 1 << width
        while size > hi - lo + 1:
            size >>= 1
        out.append((lo, _ones(width) ^ (size - 1)))
        lo += size
    return out


class TableState:
    """The entries and default action of one table."""

    def __init__(self, table: Table, cfg: Config):
        self.table = table
        self.cfg = cfg
        self.entries: dict[int, Entry] = {}
        self.next_handle = 0
        self.exact: dict[tuple, Entry] = {}
        self.kinds = [k.kind for k in table.key]
        self.widths = [k.width for k in table.key]
        self.is_exact = all(k in ("exact", "valid") for k in self.kinds)
        self.is_prio = any(k in ("ternary", "range") for k in self.kinds)
        self.default: tuple[int, list[int]] | None = None
        self.default_const = False
        if table.default is not None:
            self.default = (table.default.action, list(table.default.data))
            self.default_const = table.default.const
        self.immutable = False
        self._sorted: list[Entry] | None = None
        for e in table.const_entries:
            self.add(e["key"], e["action"], e["data"], e["priority"] if self.is_prio else None, const=True)
        self.immutable = bool(table.const_entries)

    def action_named(self, name: str) -> int:
        for n, aid in zip(self.table.action_names, self.table.actions):
            if n == name:
                return aid
        cands = [aid for n, aid in zip(self.table.action_names, self.table.actions) if n.split(".")[-1] == name]
        if len(cands) == 1:
            return cands[0]
        raise CommandError(f"table {self.table.name!r} has no action {name!r} "
                           f"(actions: {', '.join(self.table.action_names) or 'none'})")

    def _canon(self, key: list) -> list:
        out = []
        for k, kind, w, kf in zip(key, self.kinds, self.widths, self.table.key):
            if k[0] != kind:
                raise CommandError(f"a {k[0]} match for the {kind} key field {kf.name}")
            nums = k[1:] if kind != "lpm" else k[1:2]
            if any(not isinstance(x, int) or x < 0 or x >> w for x in nums):
                raise CommandError(f"key field {kf.name}: {', '.join(hex(x) for x in nums)} does not fit in {w} bits")
            if kind == "lpm":
                if not 0 <= k[2] <= w:
                    raise CommandError(f"prefix length {k[2]} out of 0..{w}")
                out.append(["lpm", k[1] & _lpm_mask(k[2], w), k[2]])
            elif kind == "ternary":
                out.append(["ternary", k[1] & k[2], k[2]])
            elif kind == "range":
                if k[1] > k[2]:
                    raise CommandError(f"empty range {k[1]}->{k[2]}")
                out.append(list(k))
            else:
                out.append(list(k))
        return out

    def add(self, key: list, action: int, data: list[int], priority: int | None, const: bool = False) -> int:
        if self.immutable and not const:
            raise CommandError(f"table {self.table.name!r} has const entries: it cannot be changed")
        if len(key) != len(self.kinds):
            raise CommandError(f"table {self.table.name!r} has {len(self.kinds)} key fields, got {len(key)}")
        if action not in self.table.actions:
            raise CommandError(f"action id {action} is not an action of {self.table.name!r}")
        self._check_data(action, data)
        if self.is_prio and priority is None:
            raise CommandError(f"table {self.table.name!r} is {self.table.match_type}: the entry needs a priority")
        if len(self.entries) >= self.table.size:
            raise CommandError(f"table {self.table.name!r} is full ({self.table.size} entries)")
        key = self._canon(key)
        prio = priority if self.is_prio else 0
        for e in self.entries.values():
            if e.key == key and e.priority == prio:
                raise CommandError(f"duplicate entry (same key as handle {e.handle})")
        h = self.next_handle
        self.next_handle += 1
        e = Entry(h, key, action, list(data), prio)
        self.entries[h] = e
        if self.is_exact:
            self.exact[tuple(k[1] for k in key)] = e
        self._sorted = None
        return h

    def _check_data(self, action: int, data: list[int]):
        a = self.cfg.action(action)
        if len(data) != len(a.params):
            raise CommandError(f"action {a.name!r} takes {len(a.params)} parameters, got {len(data)}")
        for v, (pname, w) in zip(data, a.params):
            if v >> w:
                raise CommandError(f"parameter {pname} = {v:#x} does not fit in {w} bits")

    def delete(self, handle: int):
        if self.immutable:
            raise CommandError(f"table {self.table.name!r} has const entries: it cannot be changed")
        e = self.entries.pop(handle, None)
        if e is None:
            raise CommandError(f"table {self.table.name!r} has no entry with handle {handle}")
        if self.is_exact:
            self.exact.pop(tuple(k[1] for k in e.key), None)
        self._sorted = None

    def restore(self, e: Entry):
        """Put back an entry removed by `delete` with its handle (a rolled-back batch: the entry
        keeps its place among equal priorities)."""
        if e.handle in self.entries:
            raise CommandError(f"table {self.table.name!r} already has an entry with handle {e.handle}")
        self.entries[e.handle] = e
        if self.is_exact:
            self.exact[tuple(k[1] for k in e.key)] = e
        self._sorted = None

    def modify(self, handle: int, action: int, data: list[int]):
        if self.immutable:
            raise CommandError(f"table {self.table.name!r} has const entries: it cannot be changed")
        if handle not in self.entries:
            raise CommandError(f"table {self.table.name!r} has no entry with handle {handle}")
        self._check_data(action, data)
        self.entries[handle].action, self.entries[handle].data = action, list(data)

    def clear(self):
        if self.immutable:
            raise CommandError(f"table {self.table.name!r} has const entries: it cannot be changed")
        self.entries.clear()
        self.exact.clear()
        self._sorted = None

    def set_default(self, action: int, data: list[int]):
        if self.default_const and self.default is not None and action != self.default[0]:
            raise CommandError(f"table {self.table.name!r} has a const default action")
        if self.table.default is not None and self.table.default.entry_const:
            raise CommandError(f"table {self.table.name!r} has a const default entry")
        if action not in self.table.actions:
            raise CommandError(f"action id {action} is not an action of {self.table.name!r}")
        self._check_data(action, data)
        self.default = (action, list(data))

    @staticmethod
    def _match(k: list, v: int, w: int) -> bool:
        kind = k[0]
        if kind in ("exact", "valid"):
            return v == k[1]
        if kind == "lpm":
            return v & _lpm_mask(k[2], w) == k[1]
        if kind == "ternary":
            return v & k[2] == k[1]
        return k[1] <= v <= k[2]

    def lookup(self, values: list[int]) -> Entry | None:
        """The matching entry, or None (a miss)."""
        if self.is_exact:
            return self.exact.get(tuple(values))
        if self._sorted is None:
            if self.is_prio:
                self._sorted = sorted(self.entries.values(), key=lambda e: (e.priority, e.handle))
            else:  # LPM: longest prefix first
                self._sorted = sorted(self.entries.values(), key=lambda e: (-e.prefix_len(), e.handle))
        for e in self._sorted:
            if all(self._match(k, v, w) for k, v, w in zip(e.key, values, self.widths)):
                return e
        return None

    def dump(self) -> str:
        lines = [f"table {self.table.name} ({self.table.match_type}, {len(self.entries)}/{self.table.size} entries)"]
        for e in sorted(self.entries.values(), key=lambda e: e.handle):
            a = self.cfg.action(e.action)
            key = " ".join(_fmt_key(k) for k in e.key)
            prio = f" priority {e.priority}" if self.is_prio else ""
            lines.append(f"  {e.handle}: {key} => {a.name}({', '.join(hex(d) for d in e.data)}){prio}")
        if self.default is not None:
            a = self.cfg.action(self.default[0])
            lines.append(f"  default: {a.name}({', '.join(hex(d) for d in self.default[1])})")
        else:
            lines.append("  default: none")
        return "\n".join(lines)


def _fmt_key(k: list) -> str:
    if k[0] == "lpm":
        return f"{k[1]:#x}/{k[2]}"
    if k[0] == "ternary":
        return f"{k[1]:#x}&&&{k[2]:#x}"
    if k[0] == "range":
        return f"{k[1]:#x}->{k[2]:#x}"
    return f"{k[1]:#x}"


class TableStore:
    """Every table's state, and the multicast groups (group -> ports), for one program."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.tables = {t.name: TableState(t, cfg) for t in cfg.tables}
        self.mc_groups: dict[int, list[int]] = {}  # group -> node handles
        self.mc_nodes: dict[int, tuple[int, list[int]]] = {}  # node handle -> (rid, ports)

    def __getitem__(self, name: str) -> TableState:
        try:
            return self.tables[name]
        except KeyError:
            raise CommandError(f"no table {name!r} (tables: {', '.join(self.tables) or 'none'})") from None

    def find(self, name: str) -> TableState:
        """A table by its full name or a unique suffix after a dot (as the STF runner names them)."""
        if name in self.tables:
            return self.tables[name]
        cands = [t for n, t in self.tables.items() if n.endswith("." + name)]
        if len(cands) == 1:
            return cands[0]
        if len(cands) > 1:
            raise CommandError(f"table name {name!r} is ambiguous: {', '.join(t.table.name for t in cands)}")
        return self[name]

    def mcast_ports(self, group: int) -> list[tuple[int, int]]:
        """(rid, port) copies for a multicast group, in node order."""
        out = []
        for node in self.mc_groups.get(group, []):
            rid, ports = self.mc_nodes[node]
            out += [(rid, p) for p in ports]
        return out


COMMANDS = ("table_add", "table_set_default", "table_modify", "table_delete", "table_clear", "table_dump",
            "table_num_entries", "mc_mgrp_create", "mc_node_create", "mc_node_associate")


class Runtime:
    """Runs `simple_switch_CLI` commands against a `TableStore`."""

    def __init__(self, store: TableStore):
        self.store = store
        self.cfg = store.cfg

    def run(self, text: str, first_line: int = 1) -> list[str]:
        """Every command of `text`; returns what each printed. Stops at the first bad line."""
        out = []
        for n, line in enumerate(text.splitlines(), first_line):
            r = self.command(line, n)
            if r:
                out.append(r)
        return out

    def command(self, line: str, lineno: int | None = None) -> str:
        line = line.split("#", 1)[0].strip()
        if not line:
            return ""
        words = line.split()
        verb, args = words[0], words[1:]
        fn = getattr(self, "_" + verb, None) if verb in COMMANDS else None
        if fn is None:
            known = "counter_read: the program has no counters (the compiler refuses them)" \
                if verb.startswith(("counter_", "register_", "meter_")) else f"unknown command {verb!r}"
            raise CommandError(known, lineno)
        try:
            return fn(args)
        except CommandError as e:
            raise CommandError(f"{verb}: {e.msg}", lineno) from None

    # --- commands -----------------------------------------------------------------------------
    def _params(self, aid: int, words: list[str]) -> list[int]:
        a = self.cfg.action(aid)
        if len(words) != len(a.params):
            raise CommandError(f"action {a.name!r} takes {len(a.params)} parameters "
                               f"({', '.join(p[0] for p in a.params) or 'none'}), got {len(words)}")
        return [parse_value(w, width, f"parameter {name}") for w, (name, width) in zip(words, a.params)]

    def parse_key(self, ts: TableState, words: list[str]) -> list:
        if len(words) != len(ts.kinds):
            names = ", ".join(f"{k.name} ({k.kind})" for k in ts.table.key) or "none"
            raise CommandError(f"table {ts.table.name!r} takes {len(ts.kinds)} key fields ({names}), got {len(words)}")
        key = []
        for w, kf in zip(words, ts.table.key):
            what = f"key field {kf.name}"
            if kf.kind == "lpm":
                if "/" not in w:
                    raise CommandError(f"{what} is lpm: expected VALUE/PREFIX_LENGTH, got {w!r}")
                v, plen = w.rsplit("/", 1)
                if not plen.isdigit() or int(plen) > kf.width:
                    raise CommandError(f"{what}: prefix length {plen!r} out of 0..{kf.width}")
                key.append(["lpm", parse_value(v, kf.width, what), int(plen)])
            elif kf.kind == "ternary":
                if "&&&" not in w:
                    raise CommandError(f"{what} is ternary: expected VALUE&&&MASK, got {w!r}")
                v, m = w.split("&&&", 1)
                key.append(["ternary", parse_value(v, kf.width, what), parse_value(m, kf.width, what + " mask")])
            elif kf.kind == "range":
                if "->" not in w:
                    raise CommandError(f"{what} is range: expected LOW->HIGH, got {w!r}")
                lo, hi = w.split("->", 1)
                key.append(["range", parse_value(lo, kf.width, what), parse_value(hi, kf.width, what)])
            else:
                if any(s in w for s in ("/", "&&&", "->")):
                    raise CommandError(f"{what} is {kf.kind}: expected a plain value, got {w!r}")
                key.append([kf.kind, parse_value(w, kf.width, what)])
        return key

    def _table_add(self, args):
        if len(args) < 2:
            raise CommandError("usage: table_add TABLE ACTION KEY... => PARAM... [PRIORITY]")
        ts = self.store[args[0]]
        aid = ts.action_named(args[1])
        rest = args[2:]
        if "=>" in rest:
            i = rest.index("=>")
            keyw, paramw = rest[:i], rest[i + 1:]
        else:
            keyw, paramw = rest, []
        key = self.parse_key(ts, keyw)
        prio = None
        if ts.is_prio:
            n = len(self.cfg.action(aid).params)
            if len(paramw) == n + 1:
                if not paramw[-1].isdigit():
                    raise CommandError(f"priority {paramw[-1]!r} is not a number")
                prio = int(paramw[-1])
                paramw = paramw[:-1]
            elif len(paramw) == n:
                raise CommandError(f"table {ts.table.name!r} is {ts.table.match_type}: give a priority after "
                                   "the action parameters")
        data = self._params(aid, paramw)
        h = ts.add(key, aid, data, prio)
        return f"Entry has been added with handle {h}"

    def _table_set_default(self, args):
        if len(args) < 2:
            raise CommandError("usage: table_set_default TABLE ACTION [PARAM...]")
        ts = self.store[args[0]]
        aid = ts.action_named(args[1])
        words = [w for w in args[2:] if w != "=>"]
        ts.set_default(aid, self._params(aid, words))
        return f"Default action of {ts.table.name} set to {self.cfg.action(aid).name}"

    def _table_modify(self, args):
        if len(args) < 3 or not args[2].isdigit():
            raise CommandError("usage: table_modify TABLE ACTION HANDLE [PARAM...]")
        ts = self.store[args[0]]
        aid = ts.action_named(args[1])
        words = [w for w in args[3:] if w != "=>"]
        ts.modify(int(args[2]), aid, self._params(aid, words))
        return f"Entry {args[2]} of {ts.table.name} modified"

    def _table_delete(self, args):
        if len(args) != 2 or not args[1].isdigit():
            raise CommandError("usage: table_delete TABLE HANDLE")
        ts = self.store[args[0]]
        ts.delete(int(args[1]))
        return f"Entry {args[1]} of {ts.table.name} deleted"

    def _table_clear(self, args):
        if len(args) != 1:
            raise CommandError("usage: table_clear TABLE")
        self.store[args[0]].clear()
        return f"Table {args[0]} cleared"

    def _table_dump(self, args):
        if len(args) != 1:
            raise CommandError("usage: table_dump TABLE")
        return self.store[args[0]].dump()

    def _table_num_entries(self, args):
        if len(args) != 1:
            raise CommandError("usage: table_num_entries TABLE")
        return str(len(self.store[args[0]].entries))

    def _mc_mgrp_create(self, args):
        if len(args) != 1 or not args[0].isdigit():
            raise CommandError("usage: mc_mgrp_create GROUP")
        g = int(args[0])
        if g in self.store.mc_groups:
            raise CommandError(f"multicast group {g} exists")
        self.store.mc_groups[g] = []
        return f"Creating multicast group {g}"

    def _mc_node_create(self, args):
        if len(args) < 1 or not all(a.isdigit() for a in args):
            raise CommandError("usage: mc_node_create RID PORT...")
        h = len(self.store.mc_nodes)
        ports = [int(p) for p in args[1:]]
        if any(p >= 511 for p in ports):
            raise CommandError("ports are 0..510")
        self.store.mc_nodes[h] = (int(args[0]), ports)
        return f"node was created with handle {h}"

    def _mc_node_associate(self, args):
        if len(args) != 2 or not all(a.isdigit() for a in args):
            raise CommandError("usage: mc_node_associate GROUP NODE_HANDLE")
        g, n = int(args[0]), int(args[1])
        if g not in self.store.mc_groups:
            raise CommandError(f"no multicast group {g}")
        if n not in self.store.mc_nodes:
            raise CommandError(f"no multicast node {n}")
        self.store.mc_groups[g].append(n)
        return f"Associating node {n} to multicast group {g}"
