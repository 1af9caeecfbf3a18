"""A p4c STF ("simple test framework") runner: table entries, packets in, packets expected out.

The grammar is that of p4c's tools/stf (with the BMv2 runner's reading of it), one statement a
line, `#` starting a comment:

    add TABLE [PRIORITY] KEY:VALUE... ACTION(ARG:VALUE, ...) [= ID]
    setdefault TABLE ACTION(ARG:VALUE, ...)
    packet PORT HEX...
    expect PORT [HEX... [$]]
    no_packet
    remove all
    wait

Keys and values as in p4c's BMv2 runner: a key field is named by its name in the JSON or its
`header.field`, or any unique dotted suffix (`hdr$0.f` is `hdr[0].f`); `0x` values may hold `*`
nibbles (`0b` values `*` bits), which make a ternary mask (or, for an LPM field, a prefix of the
digits before the first `*`); `v/len` is an LPM prefix, `v&&&m` a ternary value and mask, `lo->hi`
a range; key fields left out match anything (exact ones match 0). The `add` priority follows p4c's
STF convention, the larger wins (it becomes bmv2 priority 10000 - PRIORITY); ternary entries
without one all get the same priority, so the first added wins. Action names may be given
without their control prefix (`send_1` for `ingress.send_1`).

`packet` sends a packet at once; its outputs queue per port. `expect PORT HEX` is matched against
the next packet out of PORT: `*` nibbles match anything, the packet may be longer than the
expectation unless it ends in `$`. `expect PORT` alone accepts any packets on that port. At the
end every expectation is reported, and every packet that came out with no expectation for it is
a failure too. `no_packet` (our reading of the grammar's statement) checks that the packet sent
just before produced no output. `wait` is a no-op (the interpreter is synchronous).
`check_counter` and the register statements are refused: the compiler refuses counters and
registers.

The runner drives a backend object with `tables` (a `fastpath.p4.runtime.TableStore`) and
`send(port, bytes) -> [(port, bytes)]`; `InterpreterBackend` is the reference interpreter (the
RTL backend is not built yet).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from .compiler import Config
from .interp import Interpreter
from .runtime import CommandError, TableState, TableStore

STF_PRIORITY_BASE = 10000


class StfError(Exception):
    """A bad STF statement: `FILE:LINE: what is wrong`."""


class InterpreterBackend:
    """The reference interpreter as an STF / CLI backend."""

    name = "reference interpreter"

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.tables = TableStore(cfg)
        self.interp = Interpreter(cfg, self.tables)

    def send(self, port: int, data: bytes) -> list[tuple[int, bytes]]:
        return self.interp.process(data, port).outputs


@dataclass
class Check:
    line: int
    text: str
    ok: bool
    detail: str = ""

    def __str__(self):
        text = self.text if len(self.text) <= 72 else self.text[:69] + "..."
        verdict = "PASS" if self.ok else "FAIL"
        return f"{verdict} line {self.line}: {text}" + (f" -- {self.detail}" if self.detail else "")


@dataclass
class StfReport:
    checks: list[Check] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(c.ok for c in self.checks)

    @property
    def failed(self) -> int:
        return sum(not c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        return self.failed == 0


@dataclass
class _Expect:
    line: int
    text: str
    port: int
    pattern: str | None  # hex nibbles with '*', None: any packets
    exact: bool


def _tokens_hex(words: list[str], where: str, allow_wild: bool) -> tuple[str, bool]:
    text = "".join(words)
    exact = text.endswith("$")
    if exact:
        text = text[:-1]
    if "$" in text:
        raise StfError(f"{where}: '$' only at the end of an expectation")
    ok = r"[0-9a-fA-F*]*" if allow_wild else r"[0-9a-fA-F]*"
    if not re.fullmatch(ok, text):
        raise StfError(f"{where}: packet data must be hex digits{' and *' if allow_wild else ''}, got {text[:40]!r}")
    if not allow_wild and len(text) % 2:
        raise StfError(f"{where}: odd number of hex digits ({len(text)})")
    return text.upper(), exact


def _stf_int(v: str, where: str) -> int:
    try:
        return int(v, 0) if not re.fullmatch(r"0\d+", v) else int(v, 10)
    except ValueError:
        raise StfError(f"{where}: {v!r} is not a number") from None


def _wild(v: str, width: int, where: str) -> tuple[int, int, int]:
    """'0x**01' -> (value, mask, digits*bits) ; '*' are don't-care nibbles (bits for 0b)."""
    base = 16 if v[:2].lower() == "0x" else 2
    digits = v[2:]
    bpd = 4 if base == 16 else 1
    if not digits or not re.fullmatch(r"[0-9a-fA-F*]+" if base == 16 else r"[01*]+", digits):
        raise StfError(f"{where}: bad value {v!r}")
    val = int(digits.replace("*", "0"), base)
    mask = int("".join(("0" if c == "*" else ("F" if base == 16 else "1")) for c in digits), base)
    return val, mask, len(digits) * bpd


def _key_value(v: str, kind: str, width: int, where: str) -> list:
    full = (1 << width) - 1
    if kind == "ternary":
        if "&&&" in v:
            a, b = v.split("&&&", 1)
            return ["ternary", _stf_int(a, where), _stf_int(b, where)]
        if v[:2].lower() in ("0x", "0b"):
            val, mask, _ = _wild(v, width, where)
            return ["ternary", val, mask & full]
        return ["ternary", _stf_int(v, where), full]
    if kind == "lpm":
        if "/" in v:
            a, b = v.split("/", 1)
            return ["lpm", _stf_int(a, where), _stf_int(b, where)]
        if v[:2].lower() in ("0x", "0b") and "*" in v:  # p4c's makeLpm: '*' -> 0, prefix = the other digits
            val, _, _ = _wild(v, width, where)
            body = v[2:]
            return ["lpm", val, min((len(body) - body.count("*")) * (4 if v[1] in "xX" else 1), width)]
        return ["lpm", _stf_int(v, where), width]
    if kind == "range":
        if "->" in v:
            a, b = v.split("->", 1)
            return ["range", _stf_int(a, where), _stf_int(b, where)]
        x = _stf_int(v, where)
        return ["range", x, x]
    if "*" in v:
        raise StfError(f"{where}: don't-care digits in an exact key field")
    return [kind, _stf_int(v, where)]


def _default_key(kind: str, width: int) -> list:
    return {"ternary": ["ternary", 0, 0], "lpm": ["lpm", 0, 0], "range": ["range", 0, (1 << width) - 1]}.get(
        kind, [kind, 0])


def _find_key(ts: TableState, name: str, where: str) -> int:
    name = re.sub(r"\$(\d+)", r"[\1]", name)
    if name.endswith(".valid"):
        name = name[:-len("valid")] + "$valid$"
    names = []
    for k in ts.table.key:
        target = f"{k.ref[1]}.$valid$" if k.ref[0] == "valid" else f"{k.ref[1]}.{k.ref[2]}"
        names.append({k.name, target})
    exact = [i for i, ns in enumerate(names) if name in ns]
    if len(exact) == 1:
        return exact[0]
    suffix = [i for i, ns in enumerate(names) if any(n.endswith("." + name) for n in ns)]
    if len(suffix) == 1:
        return suffix[0]
    have = ", ".join(k.name for k in ts.table.key) or "none"
    raise StfError(f"{where}: table {ts.table.name!r} has {'several' if suffix else 'no'} key fields "
                   f"named {name!r} (key: {have})")


def _action_call(text: str, ts: TableState, cfg: Config, where: str) -> tuple[int, list[int]]:
    m = re.fullmatch(r"\s*([\w.$\[\]]+)\s*\((.*)\)\s*", text)
    if not m:
        raise StfError(f"{where}: expected ACTION(ARG:VALUE, ...), got {text.strip()!r}")
    try:
        aid = ts.action_named(m.group(1))
    except CommandError as e:
        raise StfError(f"{where}: {e.msg}") from None
    a = cfg.action(aid)
    given = {}
    for part in [p for p in m.group(2).split(",") if p.strip()]:
        if ":" not in part:
            raise StfError(f"{where}: action argument {part.strip()!r} is not NAME:VALUE")
        k, v = (x.strip() for x in part.split(":", 1))
        given[k] = _stf_int(v, where)
    names = [p[0] for p in a.params]
    for k in given:
        if k not in names:
            raise StfError(f"{where}: action {a.name!r} has no parameter {k!r} "
                           f"(parameters: {', '.join(names) or 'none'})")
    missing = [n for n in names if n not in given]
    if missing:
        raise StfError(f"{where}: action {a.name!r} needs {', '.join(missing)}")
    return aid, [given[n] for n in names]


def compare(pattern: str, exact: bool, got: bytes) -> str:
    """'' when the packet matches the expectation, else why not."""
    h = got.hex().upper()
    if len(h) < len(pattern):
        return f"packet of {len(got)} bytes is shorter than the expected {len(pattern) // 2}"
    for i, c in enumerate(pattern):
        if c != "*" and c != h[i]:
            b = i & ~1
            return (f"nibble {i} (byte {i // 2}) differs: expected {pattern[b:b + 2]}, got {h[b:b + 2]}; "
                    f"got {h[:len(pattern) + 8]}")
    if exact and len(h) != len(pattern):
        return f"packet of {len(got)} bytes, expected exactly {len(pattern) // 2}"
    return ""


def run(text: str, backend, name: str = "test.stf") -> StfReport:
    """Run an STF test against `backend`; every expectation becomes a `Check`."""
    cfg = backend.tables.cfg
    report = StfReport()
    expects: list[_Expect] = []
    received: dict[int, list[tuple[int, bytes]]] = {}  # port -> [(packet line, bytes)]
    last_out: list | None = None
    last_line = 0
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{n}"
        words = line.split()
        verb = words[0].lower()
        try:
            if verb == "packet":
                if len(words) < 3 or not words[1].isdigit():
                    raise StfError(f"{where}: expected 'packet PORT HEX...'")
                hexs, _ = _tokens_hex(words[2:], where, allow_wild=False)
                outs = backend.send(int(words[1]), bytes.fromhex(hexs))
                for port, data in outs:
                    received.setdefault(port, []).append((n, data))
                last_out, last_line = outs, n
            elif verb == "expect":
                if len(words) < 2 or not words[1].isdigit():
                    raise StfError(f"{where}: expected 'expect PORT [HEX...]'")
                if len(words) == 2:
                    expects.append(_Expect(n, line, int(words[1]), None, False))
                else:
                    pat, exact = _tokens_hex(words[2:], where, allow_wild=True)
                    expects.append(_Expect(n, line, int(words[1]), pat, exact))
            elif verb == "no_packet":
                if last_out is None:
                    raise StfError(f"{where}: no_packet before any packet")
                report.checks.append(Check(n, line, not last_out,
                                           "" if not last_out else f"the packet of line {last_line} came out on "
                                           f"port(s) {', '.join(str(p) for p, _ in last_out)}"))
                for p, _ in last_out:  # accounted for by this check
                    received[p] = [x for x in received[p] if x[0] != last_line]
            elif verb == "add":
                _add(words[1:], line, backend.tables, cfg, where)
            elif verb == "setdefault":
                if len(words) < 3:
                    raise StfError(f"{where}: expected 'setdefault TABLE ACTION(...)'")
                ts = _table(backend.tables, words[1], where)
                aid, data = _action_call(line.split(None, 2)[2], ts, cfg, where)
                ts.set_default(aid, data)
            elif verb == "remove":
                if words[1:] != ["all"]:
                    raise StfError(f"{where}: only 'remove all' is supported")
                for ts in backend.tables.tables.values():
                    if not ts.immutable:
                        ts.clear()
            elif verb == "wait":
                pass
            elif verb in ("check_counter", "register_read", "register_write", "register_reset"):
                raise StfError(f"{where}: {verb}: the compiler refuses counters and registers, so no program has them")
            else:
                raise StfError(f"{where}: unknown statement {words[0]!r}")
        except CommandError as e:
            raise StfError(f"{where}: {e.msg}") from None
    # match expectations with what came out, port by port, in order
    any_ports = {e.port for e in expects if e.pattern is None}
    queues = {p: list(v) for p, v in received.items()}
    for e in expects:
        if e.pattern is None:
            got = len(queues.get(e.port, []))
            report.checks.append(Check(e.line, e.text, True, f"{got} packet(s) on port {e.port}"))
            continue
        q = queues.get(e.port, [])
        if not q:
            report.checks.append(Check(e.line, e.text, False, f"no packet came out of port {e.port}"))
            continue
        pline, data = q.pop(0)
        why = compare(e.pattern, e.exact, data)
        report.checks.append(Check(e.line, e.text, not why, why or f"packet of line {pline}"))
    for port, q in sorted(queues.items()):
        if port in any_ports:
            continue
        for pline, data in q:
            report.checks.append(Check(pline, f"packet of line {pline}", False,
                                       f"unexpected packet on port {port}: {data.hex().upper()[:64]}"))
    report.checks.sort(key=lambda c: c.line)
    return report


def _table(store: TableStore, name: str, where: str) -> TableState:
    try:
        return store.find(re.sub(r"\$(\d+)", r"[\1]", name))
    except CommandError as e:
        raise StfError(f"{where}: {e.msg}") from None


def _add(words: list[str], line: str, store: TableStore, cfg: Config, where: str):
    if not words:
        raise StfError(f"{where}: expected 'add TABLE [PRIORITY] KEY:VALUE... ACTION(...)'")
    ts = _table(store, words[0], where)
    rest = line.split(None, 2)[2] if len(line.split(None, 2)) > 2 else ""
    rest = re.sub(r"\)\s*=\s*\w+\s*$", ")", rest)  # "= ID" handles are not used
    prio = None
    m = re.match(r"(\d+)\s+(.*)$", rest)
    if m:
        prio, rest = int(m.group(1)), m.group(2)
    i = rest.find("(")
    if i < 0:
        raise StfError(f"{where}: no action call ACTION(...)")
    head, call = rest[:i], rest[i:]
    parts = head.split()
    aname = parts.pop() if parts and ":" not in parts[-1] else None
    if aname is None:
        raise StfError(f"{where}: no action name before '('")
    aid, data = _action_call(aname + call, ts, cfg, where)
    key = [_default_key(k.kind, k.width) for k in ts.table.key]
    for p in parts:
        if ":" not in p:
            raise StfError(f"{where}: key match {p!r} is not FIELD:VALUE")
        kname, v = p.split(":", 1)
        idx = _find_key(ts, kname, where)
        kf = ts.table.key[idx]
        key[idx] = _key_value(v, kf.kind, kf.width, where)
    bmv2_prio = None
    if ts.is_prio:
        bmv2_prio = STF_PRIORITY_BASE - prio if prio is not None else STF_PRIORITY_BASE
    try:
        ts.add(key, aid, data, bmv2_prio)
    except CommandError as e:
        raise StfError(f"{where}: {e.msg}") from None


def run_file(program: str | Path, test: str | Path, backend=None) -> StfReport:
    from .compiler import compile_file
    if backend is None:
        backend = InterpreterBackend(compile_file(program))
    return run(Path(test).read_text(), backend, name=Path(test).name)
