"""The parser loader: a compiled program's parse graph -> the table image of `fp_p4_parser`.

`load(cfg, geometry)` turns a `fastpath.p4.compiler.Config` into an `Image`: the hardware states
(one per extraction: a P4 state with two extracts becomes two rows), the global registers, and
`Image.writes()`, the (address, data) writes of the parser's configuration port. What the hardware
cannot do is refused with `ParserLoadError`, one line naming the construct (JSON state and op).

`full_mode_program()` is the BMv2 JSON of the built-in "full mode" graph (Ethernet, up to 3 VLAN
tags, up to 3 MPLS labels, IPv4 with options, IPv6, UDP, TCP, VXLAN and the inner Ethernet),
compiled and loaded through the same path as any program: `full_mode()` returns its Image.

`Image.model(packet)` runs the image exactly as the RTL does (PHV, validity, error code, payload
offset, and the cycles: the latency the RTL must show), and `reference(cfg, packet)` is the same
result taken from the reference interpreter (`fastpath.p4.interp`), for tests to compare.

The hardware shape, in short (p4/docs/parser.md has the details):
- a state extracts at most one header (fixed length; a stack's next element), then may verify
  (conditions on one field of at most 12 bits, turned into the failing values' ternary entries),
  then advance (a constant, or `(field << s) - c` of one field inside a byte: IPv4's IHL);
- the transition key is up to KEY_BYTES window bytes, each at a fixed signed offset from the
  state's start (fields of headers extracted at a fixed distance before) or from after the
  advance (lookahead); TRANS value/mask entries (verify errors first), then the default;
- every path reads inside the HDR_BYTES window, visits at most 255 states, and a loop either
  goes through a header stack (bounded by its size) or consumes nothing (ParserTimeout).
"""
from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field

from . import samples
from .compiler import Config, compile_program
from .interp import Interpreter, _alu
from .runtime import range_to_prefixes

VARIES = "varies"  # a header's distance that differs between paths


class ParserLoadError(Exception):
    """The parser hardware cannot run this graph; the message is one line naming the construct."""


@dataclass
class Geometry:
    """The RTL parameters of fp_p4_parser that the image depends on."""
    hdr_bytes: int = 128
    phv_bits: int = 1344
    valid_bits: int = 32
    states: int = 32
    key_bytes: int = 4
    trans: int = 8
    stacks: int = 2
    ext_bytes: int = 8
    err_width: int = 8

    def params(self) -> dict:
        return {"HDR_BYTES": self.hdr_bytes, "PHV_BITS": self.phv_bits, "VALID_BITS": self.valid_bits,
                "STATES": self.states, "KEY_BYTES": self.key_bytes, "TRANS": self.trans,
                "STACKS": self.stacks, "EXT_BYTES": self.ext_bytes, "ERR_WIDTH": self.err_width}

    @classmethod
    def from_params(cls, p: dict) -> "Geometry":
        g = cls()
        for k, v in g.params().items():
            setattr(g, k.lower(), int(p.get(k, v)))
        return g

    def layout(self) -> dict:
        """Bit offsets of the row fields (LSB first), as fp_p4_parser's localparams."""
        sw = max(1, (self.states - 1).bit_length())
        skw = max(1, (self.stacks - 1).bit_length())
        pw = self.phv_bits.bit_length()
        vw = max(1, (self.valid_bits - 1).bit_length())
        aw = max(sw, self.err_width)
        kw = 8 * self.key_bytes
        L = {"SW": sw, "SKW": skw, "PW": pw, "VW": vw, "AW": aw, "KW": kw}
        o = 0
        for name, w in (("EXT_EN", 1), ("EXT_STK", 1), ("EXT_SID", skw), ("EXT_LEN", 8), ("EXT_PHV", pw),
                        ("EXT_VB", vw), ("POST", 12), ("VAR_EN", 1), ("VAR_OFF", 9), ("VAR_SHR", 3),
                        ("VAR_MSK", 8), ("VAR_SHL", 3)):
            L[name] = o
            o += w
        L["KB"] = o
        L["KBW"] = 14
        o += L["KBW"] * self.key_bytes
        L["TR"] = o
        L["TRW"] = 2 + aw + 2 * kw
        o += self.trans * L["TRW"]
        L["DEF"] = o
        L["ROW_BITS"] = o + 2 + aw
        L["ROW_WORDS"] = (L["ROW_BITS"] + 31) // 32
        return L


@dataclass
class KeyByte:
    off: int     # signed byte offset from the state's start (post: from after the advance)
    post: bool
    la: bool     # a lookahead byte: past the packet's end is PacketTooShort


@dataclass
class Entry:
    kind: str    # goto, accept, verify
    value: int   # over the KEY_BYTES key, key byte 0 in the most significant byte
    mask: int
    arg: int     # next state index, or the verify's error code


@dataclass
class HwState:
    name: str
    ext: str | None = None          # instance extracted
    stack: str | None = None        # ... or the stack whose next element is extracted
    ext_len: int = 0
    ext_phv: int = 0
    ext_vbit: int = 0
    adv: int = 0
    var: tuple | None = None        # (offset, shr, mask, shl, sub)
    var_max: int = 0
    keybytes: list = field(default_factory=list)
    entries: list = field(default_factory=list)
    default: tuple = ("nomatch", 0)  # (nomatch | goto | accept, next state)


@dataclass
class HwResult:
    phv: int
    valid: int
    error: int
    offset: int
    path: list
    cycles: int  # the engine's cycles over the path: sum of T(s)

    @property
    def latency(self) -> int:
        return LATENCY_BASE + self.cycles


LATENCY_BASE = 10  # window complete -> m_phv_tvalid, beyond the states' cycles (fp_p4_parser's header)


def state_cycles(s: HwState, pbit: int, ext_bytes: int) -> int:
    """T(s): the cycles the engine spends in a state: 7 (row read, 2 row registers, offsets,
    key, match, outcome), 10 with a variable length (its byte: read, field, addition), or the
    PHV words the extraction touches (one per cycle) when more; pbit is the extraction's PHV bit
    offset."""
    base = 10 if s.var is not None else 7
    if s.ext is None and s.stack is None:
        return base
    xw = 8 * ext_bytes
    return max(base, -(-(pbit % xw + 8 * s.ext_len) // xw))


@dataclass
class Image:
    geometry: Geometry
    program: str
    states: list
    init: int
    limit: int
    codes: dict          # pts, nomatch, stack, timeout, none
    stacks: list         # (name, phv base, stride, valid base, size)
    init_valid: int
    phv_width: int
    reach: int           # the furthest byte any path reads
    longest: int         # the most states a path visits (ParserTimeout loops aside)

    # --- the configuration writes ------------------------------------------------------------
    def row_bits(self, s: HwState) -> int:
        g, L = self.geometry, self.geometry.layout()
        v = 0

        def put(off, width, x):
            nonlocal v
            assert 0 <= x < (1 << width), (s.name, off, width, x)
            v |= x << off

        if s.ext is not None or s.stack is not None:
            put(L["EXT_EN"], 1, 1)
            put(L["EXT_LEN"], 8, s.ext_len)
            if s.stack is not None:
                put(L["EXT_STK"], 1, 1)
                put(L["EXT_SID"], L["SKW"], [x[0] for x in self.stacks].index(s.stack))
            else:
                put(L["EXT_PHV"], L["PW"], s.ext_phv)
                put(L["EXT_VB"], L["VW"], s.ext_vbit)
        var = s.var is not None
        post = s.ext_len + s.adv - (s.var[4] if var else 0)  # after the advance, less the variable part
        put(L["POST"], 12, post & 0xFFF)
        if var:
            voff, shr, msk, shl, _ = s.var
            put(L["VAR_EN"], 1, 1)
            put(L["VAR_OFF"], 9, voff & 0x1FF)
            put(L["VAR_SHR"], 3, shr)
            put(L["VAR_MSK"], 8, msk)
            put(L["VAR_SHL"], 3, shl)
        for i, kb in enumerate(s.keybytes):
            o = (kb.off + (post if kb.post else 0)) & 0xFFF  # from the state's start
            put(L["KB"] + L["KBW"] * i, L["KBW"], o | (int(kb.post and var) << 12) | (int(kb.la) << 13))
        kinds = {"goto": 1, "accept": 2, "verify": 3, "nomatch": 0}
        for i, e in enumerate(s.entries):
            base = L["TR"] + L["TRW"] * i
            put(base, 2, kinds[e.kind])
            put(base + 2, L["AW"], e.arg)
            put(base + 2 + L["AW"], L["KW"], e.value & e.mask)
            put(base + 2 + L["AW"] + L["KW"], L["KW"], e.mask)
        put(L["DEF"], 2, kinds[s.default[0]])
        put(L["DEF"] + 2, L["AW"], s.default[1])
        return v

    def writes(self) -> list[tuple[int, int]]:
        """(address, data) writes for cfg_wr_addr / cfg_wr_data, in order."""
        L = self.geometry.layout()
        out = []
        for idx, s in enumerate(self.states):
            v = self.row_bits(s)
            for w in range(L["ROW_WORDS"]):
                out.append(((idx << 6) | w, (v >> (32 * w)) & 0xFFFFFFFF))
            out.append(((idx << 6) | 63, 0))
        g = [(0, self.init), (1, self.limit), (2, self.codes["pts"]), (3, self.codes["nomatch"]),
             (4, self.codes["stack"]), (5, self.codes["timeout"]), (6, self.codes["none"])]
        for k, (_, base, stride, vbase, size) in enumerate(self.stacks):
            g += [(8 + 4 * k, base), (9 + 4 * k, stride), (10 + 4 * k, vbase), (11 + 4 * k, size)]
        for w in range((self.geometry.valid_bits + 31) // 32):
            g.append((32 + w, (self.init_valid >> (32 * w)) & 0xFFFFFFFF))
        out += [(0x8000 | r, d) for r, d in g]
        return out

    # --- the hardware model -------------------------------------------------------------------
    def model(self, data: bytes) -> HwResult:
        """What fp_p4_parser outputs for this packet (bit-exact), with the path's cycles."""
        g = self.geometry
        hb = g.hdr_bytes
        n = min(len(data), hb)
        win = bytes(data[:hb])
        byte = lambda o: win[o] if 0 <= o < n else 0  # noqa: E731
        phv = 0
        valid = self.init_valid
        stk = {name: [0, base, vbase] for name, base, _, vbase, _ in self.stacks}
        info = {name: (stride, size) for name, _, stride, _, size in self.stacks}
        st, off, vis, cycles, path = self.init, 0, 0, 0, []
        while True:
            s = self.states[st]
            path.append(s.name)
            cycles += state_cycles(s, stk[s.stack][1] if s.stack is not None else s.ext_phv, g.ext_bytes)
            timeout = vis >= self.limit
            ext_en = s.ext is not None or s.stack is not None
            full = s.stack is not None and stk[s.stack][0] >= info[s.stack][1]
            ext_ok = ext_en and not timeout and not full and off + s.ext_len <= n
            if ext_ok:
                if s.stack is not None:
                    cnt, pbit, vb = stk[s.stack]
                    stk[s.stack] = [cnt + 1, pbit + info[s.stack][0], vb + 1]
                else:
                    pbit, vb = s.ext_phv, s.ext_vbit
                v = int.from_bytes(win[off:off + s.ext_len], "big")
                w = 8 * s.ext_len
                sh = g.phv_bits - pbit - w
                phv = (phv & ~(((1 << w) - 1) << sh)) | (v << sh)
                valid |= 1 << vb
            pre = off + s.ext_len if ext_ok else off
            varlen = 0
            if s.var is not None:
                voff, shr, msk, shl, sub = s.var
                varlen = ((((byte((off + voff) & 0xFFF) >> shr) & msk) << shl) - sub) & 0xFFF
            post = (pre + s.adv + varlen) & 0xFFF
            key, la_short = 0, False
            for i, kb in enumerate(s.keybytes):
                o = ((post if kb.post else off) + kb.off) & 0xFFF
                key |= (win[o] if o < len(win) else 0) << (8 * (g.key_bytes - 1 - i))
                la_short |= kb.la and o >= n
            hit = next((e for e in s.entries if (key ^ e.value) & e.mask == 0), None)
            vis += 1
            if timeout:
                return HwResult(phv, valid, self.codes["timeout"], off, path, cycles)
            if ext_en and not ext_ok:
                return HwResult(phv, valid, self.codes["stack" if full else "pts"], off, path, cycles)
            if hit is not None and hit.kind == "verify":
                return HwResult(phv, valid, hit.arg, pre, path, cycles)
            if post > n:
                return HwResult(phv, valid, self.codes["pts"], pre, path, cycles)
            if la_short:
                return HwResult(phv, valid, self.codes["pts"], post, path, cycles)
            kind, arg = (hit.kind, hit.arg) if hit is not None else s.default
            if kind == "goto":
                st, off = arg, post
                continue
            err = self.codes["none"] if kind == "accept" else self.codes["nomatch"]
            return HwResult(phv, valid, err, post, path, cycles)


# ---------------------------------------------------------------------------------------------
# The interpreter's parser result, in the hardware's terms


def reference(cfg: Config, data: bytes, phv_bits: int | None = None) -> tuple[int, int, int, int]:
    """(PHV of the packet headers, validity vector, error code, payload offset) after the
    reference interpreter's parser. Metadata stay out of the PHV (the parser does not write
    them); their validity bits are set, as in the interpreter."""
    it = Interpreter(cfg)
    s = it._new_state()
    err = it.parse(s, bytes(data))
    pb = phv_bits or cfg.phv_width
    phv = valid = 0
    for inst in cfg.instances:
        if s.valid[inst.name]:
            valid |= 1 << inst.valid_bit
        if inst.metadata:
            continue
        v = 0
        for f, w in it.fields[inst.name]:
            v = (v << w) | s.vals[inst.name][f]
        phv |= v << (pb - inst.phv_offset - inst.width)
    return phv, valid, cfg.errors.get(err, -1), len(data) - len(s.payload)


# ---------------------------------------------------------------------------------------------
# The loader


def _leaves(e, out):
    if isinstance(e, list) and e:
        if e[0] == "op":
            for a in e[2:]:
                _leaves(a, out)
        elif e[0] in ("field", "stack_field", "lookahead", "valid"):
            out.append(e)
    return out


def _eval(e, leaf, v: int) -> int:
    """An expression of constants and one leaf (given the value v), with the interpreter's ALU."""
    k = e[0]
    if k == "const":
        return e[1]
    if k == "op":
        return _alu(e[1], [_eval(a, leaf, v) for a in e[2:]], None, None)
    if e == leaf:
        return v
    raise ParserLoadError(f"cannot evaluate {e!r}")


def _ranges(values: list[int]) -> list[tuple[int, int]]:
    out = []
    for v in sorted(values):
        if out and out[-1][1] == v - 1:
            out[-1] = (out[-1][0], v)
        else:
            out.append((v, v))
    return out


class _Loader:
    def __init__(self, cfg: Config, g: Geometry, max_visits: int):
        self.cfg, self.g, self.max_visits = cfg, g, max_visits
        self.types = {t.name: t for t in cfg.header_types}
        self.cstates = {s.name: s for s in cfg.parser.states}

    def fail(self, where: str, why: str):
        raise ParserLoadError(f"{where}: {why}")

    def field_info(self, ref, where):
        """(header type, field) of a field / stack_field reference."""
        if ref[0] == "field":
            t = self.types[self.cfg.instance(ref[1]).type]
        else:
            t = self.types[self.cfg.stack(ref[1]).type]
        f = next((f for f in t.fields if f.name == ref[2]), None)
        if f is None:
            self.fail(where, f"no field {ref[2]!r}")
        return f

    # --- 1. segments: one hardware state per extraction -----------------------------------------
    def split(self):
        self.drafts = {}   # name -> dict
        self.first = {}    # Config state -> its first hardware state's name
        for cs in self.cfg.parser.states:
            segs = [{"ext": None, "verify": [], "adv": None, "where": []}]
            for k, op in enumerate(cs.ops):
                where = f'parser state "{cs.name}" op {k} ({op.op})'
                cur = segs[-1]
                if op.op in ("extract", "extract_next"):
                    if cur["ext"] is not None or cur["verify"] or cur["adv"] is not None:
                        cur = {"ext": None, "verify": [], "adv": None, "where": []}
                        segs.append(cur)
                    cur["ext"] = (op.op, op.args[0], where)
                elif op.op == "verify":
                    if cur["adv"] is not None:
                        self.fail(where, "verify after advance in one extraction step: the parser verifies "
                                         "before it advances")
                    cur["verify"].append((op.args, where))
                elif op.op == "advance":
                    if cur["adv"] is not None:
                        self.fail(where, "a second advance after the same extraction: the parser advances once "
                                         "per state")
                    cur["adv"] = (op.args[0], where)
                elif op.op == "primitive":
                    self.fail(where, "assignments in the parser: the parser hardware writes only extracted "
                                     "headers (no set/primitive ops)")
                else:
                    self.fail(where, "unknown parser operation")
            names = [cs.name if i == 0 else f"{cs.name}#{i}" for i in range(len(segs))]
            self.first[cs.name] = names[0]
            for i, (nm, sg) in enumerate(zip(names, segs)):
                sg["cstate"] = cs
                sg["last"] = i == len(segs) - 1
                sg["next"] = None if sg["last"] else names[i + 1]
                self.drafts[nm] = sg

    def succ_names(self, d) -> list:
        """Hardware-state names this draft can go to (before alias resolution)."""
        if not d["last"]:
            return [d["next"]]
        out = []
        for t in d["cstate"].transitions:
            if t.next is not None:
                out.append(self.first[t.next])
            if t.value is None:
                break
        return out

    # --- 2. aliases: states with nothing to do and one way out --------------------------------
    def aliases(self):
        self.alias = {}
        for nm, d in self.drafts.items():
            cs = d["cstate"]
            if d["ext"] or d["verify"] or d["adv"] or not d["last"] or cs.key:
                continue
            if cs.transitions and cs.transitions[0].value is None and cs.transitions[0].next is not None:
                self.alias[nm] = self.first[cs.transitions[0].next]

        def resolve(nm, seen=()):
            if nm not in self.alias:
                return nm
            if nm in seen:
                return None  # a cycle of empty states: kept (it ends in ParserTimeout)
            return resolve(self.alias[nm], seen + (nm,))

        cyc = {nm for nm in self.alias if resolve(nm) is None}
        for nm in cyc:
            del self.alias[nm]
        self.resolve = resolve
        order = [nm for nm in self.drafts if nm not in self.alias]
        start = resolve(self.first[self.cfg.parser.init])
        # the init state first, then the others reachable from it, in JSON order
        reach, frontier = set(), [start]
        while frontier:
            nm = frontier.pop()
            if nm in reach:
                continue
            reach.add(nm)
            frontier += [resolve(x) for x in self.succ_names(self.drafts[nm])]
        self.order = [start] + [nm for nm in order if nm in reach and nm != start]
        self.index = {nm: i for i, nm in enumerate(self.order)}
        if len(self.order) > self.g.states:
            self.fail(f'parser "{self.cfg.parser.name}"',
                      f"{len(self.order)} hardware states (one per extraction): the parser holds {self.g.states}")

    # --- 3. extractions, advances ------------------------------------------------------------
    def extraction(self, d, hs: HwState):
        if d["ext"] is None:
            return
        kind, target, where = d["ext"]
        if kind == "extract":
            inst = self.cfg.instance(target)
            hs.ext, width, hs.ext_phv, hs.ext_vbit = target, inst.width, inst.phv_offset, inst.valid_bit
        else:
            stack = self.cfg.stack(target)
            hs.stack = target
            width = self.cfg.instance(stack.instances[0]).width
            if target not in self.stacks:
                self.stacks[target] = self.check_stack(stack, where)
            _, base, stride, vbase, size = self.stacks[target]
            hs.ext_phv, hs.ext_vbit = base, vbase
        if width == 0 or width > 255 * 8:
            self.fail(where, f"a header of {width // 8} bytes: the parser extracts 1 to 255 bytes")
        hs.ext_len = width // 8

    def check_stack(self, stack, where):
        insts = [self.cfg.instance(n) for n in stack.instances]
        w = insts[0].width
        for k, inst in enumerate(insts):
            if inst.phv_offset != insts[0].phv_offset + k * w or inst.valid_bit != insts[0].valid_bit + k:
                self.fail(where, f"stack {stack.name!r}: elements not consecutive in the PHV and validity vector")
        if len(insts) > 15:
            self.fail(where, f"stack {stack.name!r} of {len(insts)} elements: the parser counts up to 15")
        if len(self.stacks) >= self.g.stacks:
            self.fail(where, f"stack {stack.name!r}: the parser has {self.g.stacks} stack counters")
        return (stack.name, insts[0].phv_offset, w, insts[0].valid_bit, len(insts))

    # --- 4. distances: where each header lies relative to each state's start ------------------
    def consumed(self, nm):
        d = self.drafts[nm]
        n = 0
        if d["ext"] is not None:
            kind, target, _ = d["ext"]
            inst = self.cfg.instance(target if kind == "extract" else self.cfg.stack(target).instances[0])
            n = inst.width // 8
        if d["adv"] is not None:
            e = d["adv"][0]
            if e[0] != "const":
                return VARIES
            n += e[1] // 8
        return n

    def after_ext(self, nm, facts):
        d = self.drafts[nm]
        f = dict(facts)
        if d["ext"] is not None:
            kind, target, _ = d["ext"]
            if kind == "extract":
                f[target] = 0
            else:
                f["stack:" + target] = 0
                for m in self.cfg.stack(target).instances:
                    f[m] = VARIES
        return f

    def distances(self):
        fin = {self.order[0]: {}}
        work = [self.order[0]]
        while work:
            nm = work.pop()
            post = self.after_ext(nm, fin[nm])
            c = self.consumed(nm)
            out = {k: (VARIES if c == VARIES or v == VARIES else v + c) for k, v in post.items()}
            for t in {self.resolve(x) for x in self.succ_names(self.drafts[nm])}:
                if t not in fin:
                    fin[t] = out
                    work.append(t)
                    continue
                old = fin[t]
                new = {k: (old.get(k) if old.get(k) == out.get(k) else VARIES) for k in set(old) | set(out)}
                if new != old:
                    fin[t] = new
                    work.append(t)
        self.facts = {nm: self.after_ext(nm, fin[nm]) for nm in self.order}

    def locate(self, nm, ref, where):
        """(byte offset from the state's start, first bit in that byte, width) of a field."""
        f = self.field_info(ref, where)
        key = ref[1] if ref[0] == "field" else "stack:" + ref[1]
        dist = self.facts[nm].get(key)
        what = f"{ref[1]}.{ref[2]}" if ref[0] == "field" else f"{ref[1]}.last.{ref[2]}"
        if dist is None:
            self.fail(where, f"{what} is read before its header is extracted on some path (the parser reads "
                             "fields from the packet bytes)")
        if dist == VARIES:
            self.fail(where, f"{what}: its header lies at different distances from this state on different "
                             "paths (the parser reads key bytes at fixed offsets from the state's start)")
        return -dist + f.offset // 8, f.offset % 8, f.width

    # --- 5. key bytes and entries --------------------------------------------------------------
    def place(self, hs, kbs, pos, value, mask, post, la, where):
        """Put a field (value/mask over its own width) at window position pos = (byte, bit, width)
        into the key; returns (value, mask) over the hardware key."""
        rb, b0, w = pos
        n = (b0 + w - 1) // 8 + 1
        sh = 8 * n - b0 - w
        V, M = (value & ((1 << w) - 1)) << sh, (mask & ((1 << w) - 1)) << sh
        hv = hm = 0
        for j in range(n):
            off = rb + j
            if not -256 <= off <= 255:
                self.fail(where, f"key byte at offset {off} from the state: the parser reaches -256..255")
            i = next((i for i, kb in enumerate(kbs) if kb.off == off and kb.post == post), None)
            if i is None:
                kbs.append(KeyByte(off, post, la))
                i = len(kbs) - 1
                if len(kbs) > self.g.key_bytes:
                    self.fail(where, f"the transition key and verify conditions need more than {self.g.key_bytes} "
                                     "key bytes (KEY_BYTES)")
            kbs[i].la |= la
            s = 8 * (self.g.key_bytes - 1 - i)
            hv |= ((V >> (8 * (n - 1 - j))) & 0xFF) << s
            hm |= ((M >> (8 * (n - 1 - j))) & 0xFF) << s
        return hv, hm

    def verify_values(self, nm, args, where):
        """(leaf position or None, failing values of the leaf (or [None]: always fails), code)."""
        cond, code = args
        if _leaves(code, []):
            self.fail(where, "a verify error computed from packet fields: the error must be a constant")
        code = _eval(code, None, 0)
        if code >= 1 << self.g.err_width:
            self.fail(where, f"error code {code} wider than ERR_WIDTH {self.g.err_width}")
        leaves = []
        for lf in _leaves(cond, []):
            if lf not in leaves:
                leaves.append(lf)
        if not leaves:
            return None, ([] if _eval(cond, None, 0) else [None]), code
        if len(leaves) > 1 or leaves[0][0] not in ("field", "stack_field"):
            self.fail(where, "a verify condition on more than one field, or on lookahead/validity: the parser "
                             "checks one field per condition")
        leaf = leaves[0]
        w = self.field_info(leaf, where).width
        if w > 12:
            self.fail(where, f"a verify condition on a {w}-bit field: the parser checks fields of up to 12 bits")
        failing = [v for v in range(1 << w) if not _eval(cond, leaf, v)]
        return leaf, failing, code

    def build(self, nm) -> HwState:
        d = self.drafts[nm]
        cs = d["cstate"]
        hs = HwState(nm)
        self.extraction(d, hs)
        kbs: list[KeyByte] = []
        entries: list[Entry] = []
        bad = {}  # leaf -> values failing this state's verifies
        for args, where in d["verify"]:
            leaf, failing, code = self.verify_values(nm, args, where)
            if failing == [None]:
                entries.append(Entry("verify", 0, 0, code))
                continue
            if not failing:
                continue
            pos = self.locate(nm, leaf, where)
            bad.setdefault(repr(leaf), set()).update(failing)
            for lo, hi in _ranges(failing):
                for v, m in range_to_prefixes(lo, hi, pos[2]):
                    hv, hm = self.place(hs, kbs, pos, v, m, False, False, where)
                    entries.append(Entry("verify", hv, hm, code))
        if d["adv"] is not None:
            e, where = d["adv"]
            if e[0] == "const":
                if e[1] < 0 or e[1] % 8 or e[1] // 8 > 255:
                    self.fail(where, f"advance by {e[1]} bits: the parser advances 0..255 whole bytes")
                hs.adv = e[1] // 8
            else:
                self.variable_advance(nm, hs, e, bad, where)
        if d["last"]:
            self.transitions(nm, cs, hs, kbs, entries)
        else:
            hs.default = ("goto", self.index[self.resolve(d["next"])])
        if len(entries) > self.g.trans:
            self.fail(f'parser state "{cs.name}"', f"{len(entries)} match entries (verify failures and value "
                                                  f"transitions): the parser holds {self.g.trans} per state (TRANS)")
        hs.keybytes, hs.entries = kbs, entries
        return hs

    def variable_advance(self, nm, hs, e, bad, where):
        leaves = []
        for lf in _leaves(e, []):
            if lf not in leaves:
                leaves.append(lf)
        if len(leaves) != 1 or leaves[0][0] not in ("field", "stack_field"):
            self.fail(where, "an advance length from other than one header field: the parser computes "
                             "(field << s) - c")
        leaf = leaves[0]
        rb, b0, w = self.locate(nm, leaf, where)
        if b0 + w > 8:
            self.fail(where, "an advance length from a field that spans bytes: the parser reads it from one byte")
        allowed = [v for v in range(1 << w) if v not in bad.get(repr(leaf), set())]
        nb = {}
        for v in allowed:
            n = _eval(e, leaf, v)
            if n < 0 or n % 8:
                self.fail(where, f"advance by {n} bits when the field is {v}: not whole bytes (add a verify "
                                 "that rejects such values)")
            nb[v] = n // 8
        fit = None
        for shl in range(8):
            sub = (allowed[0] << shl) - nb[allowed[0]] if allowed else 0
            if 0 <= sub < 512 and all((v << shl) - sub == nb[v] for v in allowed):
                fit = (shl, sub)
                break
        if fit is None:
            self.fail(where, "an advance length not of the form (field << s) - c over the values that pass the "
                             "state's verify")
        if not -256 <= rb <= 255:
            self.fail(where, f"length field at offset {rb} from the state: the parser reaches -256..255")
        hs.var = (rb, 8 - b0 - w, (1 << w) - 1, fit[0], fit[1])
        hs.var_max = max(nb.values(), default=0)

    def transitions(self, nm, cs, hs, kbs, entries):
        where = f'parser state "{cs.name}" transition key'
        srcs = []
        for k, ks in enumerate(cs.key):
            w = f"{where}[{k}] ({ks.kind})"
            if ks.kind in ("field", "stack_field"):
                ref = [ks.kind, *ks.ref]
                srcs.append((self.locate(nm, ref, w), False, False, ks.padded))
            elif ks.kind == "lookahead":
                bit, width = ks.ref
                if width == 0:
                    self.fail(w, "a lookahead of 0 bits")
                srcs.append(((bit // 8, bit % 8, width), True, True, ks.padded))
            else:
                self.fail(w, "a transition on header validity: the parser's key is packet bytes")
        for ti, t in enumerate(cs.transitions):
            if t.value is None:
                hs.default = ("goto", self.index[self.resolve(self.first[t.next])]) if t.next else ("accept", 0)
                return
            mask = t.mask if t.mask is not None else (1 << cs.key_width) - 1
            hv = hm = 0
            pos, ok = cs.key_width, True
            for (p, post, la, padded) in srcs:
                pos -= padded
                sv, sm = (t.value >> pos) & ((1 << padded) - 1), (mask >> pos) & ((1 << padded) - 1)
                if (sv & sm) >> p[2]:
                    ok = False  # a value in the padding: never matches
                v, m = self.place(hs, kbs, p, sv, sm, post, la, f'{where} (state "{cs.name}" transition {ti})')
                if (hv ^ v) & hm & m:
                    ok = False
                hv, hm = hv | (v & m), hm | m
            if not ok:
                continue
            if t.next is None:
                entries.append(Entry("accept", hv, hm, 0))
            else:
                entries.append(Entry("goto", hv, hm, self.index[self.resolve(self.first[t.next])]))
        hs.default = ("nomatch", 0)

    # --- 6. bounds: the window, the visit limit ------------------------------------------------
    def bounds(self, hw: list[HwState]):
        sizes = {name: size for name, _, _, _, size in self.stacks.values()}
        snames = list(sizes)
        memo, onpath = {}, []

        def local_reach(s: HwState):
            r = s.ext_len + s.adv + s.var_max
            if s.var is not None:
                r = max(r, s.var[0] + 1)
            for kb in s.keybytes:
                r = max(r, (s.ext_len + s.adv + s.var_max if kb.post else 0) + kb.off + 1)
            return r

        def consumes(s: HwState):
            return s.ext_len + s.adv + s.var_max > 0 or s.var is not None

        def visit(i, counts):
            key = (i, counts)
            if key in memo:
                return memo[key]
            if key in onpath:
                loop = onpath[onpath.index(key):]
                if any(consumes(hw[j]) for j, _ in loop):
                    names = " -> ".join(hw[j].name for j, _ in loop)
                    self.fail(f'parser loop {names}', "consumes bytes without a header stack: the number of "
                                                      "states is not bounded")
                return (0, 0)
            s = hw[i]
            if s.stack is not None and counts[snames.index(s.stack)] >= sizes[s.stack]:
                return (0, 1)  # StackOutOfBounds ends the path
            onpath.append(key)
            nxt = counts
            if s.stack is not None:
                k = snames.index(s.stack)
                nxt = counts[:k] + (counts[k] + 1,) + counts[k + 1:]
            reach, states = local_reach(s), 1
            step = s.ext_len + s.adv + s.var_max
            targets = {e.arg for e in s.entries if e.kind == "goto"}
            if s.default[0] == "goto":
                targets.add(s.default[1])
            for t in targets:
                r, n = visit(t, nxt)
                reach, states = max(reach, step + r), max(states, 1 + n)
            onpath.pop()
            memo[key] = (reach, states)
            return memo[key]

        return visit(0, tuple(0 for _ in snames))

    def run(self) -> Image:
        cfg, g = self.cfg, self.g
        if cfg.phv_width > g.phv_bits:
            self.fail("headers", f"a PHV of {cfg.phv_width} bits: the parser holds {g.phv_bits} (PHV_BITS)")
        if len(cfg.instances) > g.valid_bits:
            self.fail("headers", f"{len(cfg.instances)} header instances: the parser has {g.valid_bits} validity "
                                 "bits (VALID_BITS)")
        self.stacks = {}
        self.split()
        self.aliases()
        self.distances()
        hw = [self.build(nm) for nm in self.order]
        reach, longest = self.bounds(hw)
        if reach > g.hdr_bytes:
            self.fail(f'parser "{cfg.parser.name}"', f"a path reads up to byte {reach}: the parser's window holds "
                                                     f"{g.hdr_bytes} bytes (HDR_BYTES)")
        if longest > self.max_visits:
            self.fail(f'parser "{cfg.parser.name}"', f"a path visits {longest} states: the parser stops at "
                                                     f"{self.max_visits}")
        codes = {}
        for k, name in (("pts", "PacketTooShort"), ("nomatch", "NoMatch"), ("stack", "StackOutOfBounds"),
                        ("timeout", "ParserTimeout"), ("none", "NoError")):
            codes[k] = cfg.errors.get(name, {"NoError": 0, "PacketTooShort": 1, "NoMatch": 2,
                                             "StackOutOfBounds": 3, "ParserTimeout": 5}[name])
            if not 0 <= codes[k] < 1 << g.err_width:
                self.fail("errors", f"{name} = {codes[k]}: wider than ERR_WIDTH {g.err_width}")
        init_valid = sum(1 << i.valid_bit for i in cfg.instances if i.metadata)
        return Image(g, cfg.program, hw, 0, max(1, longest), codes, list(self.stacks.values()), init_valid,
                     cfg.phv_width, reach, longest)


def load(cfg: Config, geometry: Geometry | None = None, max_visits: int = 255) -> Image:
    """A compiled program's parse graph -> the parser's Image, or ParserLoadError."""
    return _Loader(cfg, geometry or Geometry(), max_visits).run()


# ---------------------------------------------------------------------------------------------
# Full mode: the built-in graph, as a BMv2 JSON program


def _stack_key(stack: str, f: str) -> dict:
    return {"type": "stack_field", "value": [stack, f]}


def _extract_next(stack: str) -> dict:
    return {"op": "extract", "parameters": [{"type": "stack", "value": stack}]}


def full_mode_program() -> dict:
    """The full-mode parser (seeds/004): Ethernet, up to 3 VLAN tags (802.1Q/802.1ad), up to 3
    MPLS labels, IPv4 (IHL checked, options skipped), IPv6, UDP, TCP, VXLAN (UDP port 4789) and
    the inner Ethernet. A 4th tag or label is StackOutOfBounds, an IHL below 5 HeaderTooShort."""
    p = samples.minimal()
    p["program"] = "full_mode.p4"
    H = samples.add_header
    eth = [("dstAddr", 48), ("srcAddr", 48), ("etherType", 16)]
    p["header_types"] = [t for t in p["header_types"] if t["name"] != "ethernet_t"]
    p["headers"] = [h for h in p["headers"] if h["name"] != "ethernet"]
    H(p, "ethernet", "ethernet_t", eth)
    for k in range(3):
        H(p, f"vlan[{k}]", "vlan_t", [("pcp", 3), ("dei", 1), ("vid", 12), ("etherType", 16)])
    for k in range(3):
        H(p, f"mpls[{k}]", "mpls_t", [("label", 20), ("tc", 3), ("bos", 1), ("ttl", 8)])
    H(p, "ipv4", "ipv4_t", [("version", 4), ("ihl", 4), ("diffserv", 8), ("totalLen", 16), ("identification", 16),
                            ("flags", 3), ("fragOffset", 13), ("ttl", 8), ("protocol", 8), ("hdrChecksum", 16),
                            ("srcAddr", 32), ("dstAddr", 32)])
    H(p, "ipv6", "ipv6_t", [("version", 4), ("trafficClass", 8), ("flowLabel", 20), ("payloadLen", 16),
                            ("nextHdr", 8), ("hopLimit", 8), ("srcAddr", 128), ("dstAddr", 128)])
    H(p, "tcp", "tcp_t", [("srcPort", 16), ("dstPort", 16), ("seqNo", 32), ("ackNo", 32), ("dataOffset", 4),
                          ("res", 4), ("flags", 8), ("window", 16), ("checksum", 16), ("urgentPtr", 16)])
    H(p, "udp", "udp_t", [("srcPort", 16), ("dstPort", 16), ("length", 16), ("checksum", 16)])
    H(p, "vxlan", "vxlan_t", [("flags", 8), ("reserved", 24), ("vni", 24), ("reserved2", 8)])
    H(p, "inner_ethernet", "ethernet_t", eth)
    ids = {h["name"]: h["id"] for h in p["headers"]}
    p["header_stacks"] = [
        {"name": "vlan", "id": 0, "header_type": "vlan_t", "size": 3, "header_ids": [ids[f"vlan[{k}]"] for k in range(3)]},
        {"name": "mpls", "id": 1, "header_type": "mpls_t", "size": 3, "header_ids": [ids[f"mpls[{k}]"] for k in range(3)]},
    ]
    ether = [("0x8100", None, "parse_vlan"), ("0x88a8", None, "parse_vlan"), ("0x8847", None, "parse_mpls"),
             ("0x0800", None, "parse_ipv4"), ("0x86dd", None, "parse_ipv6"), (None, None, None)]
    l4 = [("0x06", None, "parse_tcp"), ("0x11", None, "parse_udp"), (None, None, None)]
    F, C, X = samples.field, samples.const, samples.expr
    S = samples.state
    ihl = F("ipv4", "ihl")
    verify = {"op": "verify", "parameters": [X(">=", ihl, C(5, 4)), C(p_errors(p)["HeaderTooShort"], 8)]}
    advance = {"op": "advance", "parameters": [X("<<", X("-", ihl, C(5, 4)), C(5, 8))]}
    mpls = S("parse_mpls", key=[_stack_key("mpls", "bos"), {"type": "lookahead", "value": [0, 4]}],
             transitions=[("0x0000", "0xff00", "parse_mpls"), ("0x0104", None, "parse_ipv4"),
                          ("0x0106", None, "parse_ipv6"), (None, None, None)])
    mpls["parser_ops"] = [_extract_next("mpls")]
    vlan = S("parse_vlan", key=[_stack_key("vlan", "etherType")], transitions=ether)
    vlan["parser_ops"] = [_extract_next("vlan")]
    p["parsers"][0]["init_state"] = "start"
    p["parsers"][0]["parse_states"] = [
        S("start", transitions=[(None, None, "parse_ethernet")]),
        S("parse_ethernet", ["ethernet"], key=[F("ethernet", "etherType")], transitions=ether),
        vlan,
        mpls,
        S("parse_ipv4", ["ipv4"], key=[F("ipv4", "protocol")], transitions=l4, ops=[verify, advance]),
        S("parse_ipv6", ["ipv6"], key=[F("ipv6", "nextHdr")], transitions=l4),
        S("parse_tcp", ["tcp"]),
        S("parse_udp", ["udp"], key=[F("udp", "dstPort")], transitions=[("0x12b5", None, "parse_vxlan"),
                                                                        (None, None, None)]),
        S("parse_vxlan", ["vxlan"], transitions=[(None, None, "parse_inner_ethernet")]),
        S("parse_inner_ethernet", ["inner_ethernet"]),
    ]
    p["deparsers"][0]["order"] = ["ethernet", "vlan[0]", "vlan[1]", "vlan[2]", "mpls[0]", "mpls[1]", "mpls[2]",
                                  "ipv4", "ipv6", "tcp", "udp", "vxlan", "inner_ethernet"]
    return copy.deepcopy(p)


def p_errors(p: dict) -> dict:
    return {name: v for name, v in p["errors"]}


def full_mode_config() -> Config:
    return compile_program(json.dumps(full_mode_program()), name="full_mode")


def full_mode(geometry: Geometry | None = None) -> Image:
    """The full-mode Image: the built-in graph through the same loader as any program."""
    return load(full_mode_config(), geometry)
