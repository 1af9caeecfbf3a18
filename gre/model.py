"""GRE decapsulation and encapsulation: the reference for gre/rtl/fp_gre_decap.v and gre_encap.v.

Frames are `bytes` from the destination MAC to the end of the payload, without FCS (what the MACs'
client streams carry). Every function here decides exactly as the RTL does, including which bytes
a decision needs (the RTL's latency follows from that); gre/README.md is the prose version.

Decapsulation (`decap`): returns `(output, reason)`. `output` is None when the frame is dropped,
the input unchanged when it is passed, the decapsulated frame otherwise; reason `drop_length`
means the decapsulated frame leaves marked bad (tuser[0] = 1 on its last beat).
The frame length: `tlen` is what fp_gre_decap gets on `s_axis_tlen` with the first beat (LEN_IN = 1,
the RTL's default: pass `tlen=len(frame)` for an honest source); the length verdict is then one of
the header checks and a frame whose IP length disagrees with `tlen` passes unchanged
(`pass_length`). `tlen=None` is LEN_IN = 0 (the length known only at the frame's end: `drop_length`).

Encapsulation (`Encap.encap`): returns `(output, reason)`; reason `bad_length` means the output
leaves marked bad because `tlen` disagreed with the frame.
"""
from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from fastpath import formats

# The verdict codes, described once in gre/rtl/gre_verdict.fmt.toml (the RTL includes
# fp_gre_verdict.vh, the C parser fastpath/fmt/gre_verdict.h).
VERDICT_FORMAT = "gre_verdict"


def verdict_names(group: str) -> tuple[str, ...]:
    """The names of one group of gre_verdict.fmt.toml (`decap`, `encap`, `parse`), indexed by code:
    the constants named `<group>_<name>`, whose values must be 0..n-1."""
    fmt = formats.load(VERDICT_FORMAT)
    codes = {c.name[len(group) + 1:]: c.value for c in fmt.consts if c.name.startswith(group + "_")}
    names = tuple(sorted(codes, key=codes.__getitem__))
    if not names or [codes[n] for n in names] != list(range(len(names))):
        raise formats.FormatError(f"{fmt.source}: the {group}_* codes must be 0..n-1, not "
                                  f"{sorted(codes.values())}")
    return names


# Decap verdicts, indexed by fp_gre_decap's stat_reason code.
DECAP_REASONS = verdict_names("decap")
# Encap verdicts, indexed by fp_gre_encap's stat_reason code.
ENCAP_REASONS = verdict_names("encap")
# The C parser's verdicts (gre/host/gre_parse.h: enum gre_verdict, gre_verdict_name()).
PARSE_VERDICTS = verdict_names("parse")

TAGS = (0x8100, 0x88A8)
PROTOS = (0x6558, 0x0800, 0x86DD)
MIN_FRAME = 60  # Ethernet minimum without FCS: shorter IP packets arrive padded to this


def _u16(b: bytes, i: int) -> int:
    return (b[i] << 8) | b[i + 1]


def _u32(b: bytes, i: int) -> int:
    return int.from_bytes(b[i:i + 4], "big")


def ones_sum(data: bytes) -> int:
    """One's complement sum of big-endian 16-bit words, folded to 16 bits."""
    s = sum(_u16(data, i) for i in range(0, len(data) - 1, 2))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def _addr(a) -> int:
    if isinstance(a, int):
        return a
    if isinstance(a, (bytes, bytearray)):
        return int.from_bytes(a, "big")
    return int(ipaddress.ip_address(a))


def _mac(m) -> bytes:
    if isinstance(m, (bytes, bytearray)):
        return bytes(m)
    if isinstance(m, int):
        return m.to_bytes(6, "big")
    return bytes(int(x, 16) for x in m.split(":"))


# ---------------------------------------------------------------------------------------------
# Decapsulation
# ---------------------------------------------------------------------------------------------

@dataclass
class Accept:
    """One entry of the tunnel filter: remote endpoint (outer source address) and optional key.
    IPv4 addresses are compared with addr[31:0]. key None: any key or none."""
    addr: object  # int, bytes or address string
    ipv6: bool = False
    key: int | None = None
    valid: bool = True


@dataclass
class DecapConfig:
    entries: list = field(default_factory=list)
    accept_all: bool = False
    drop_unknown: bool = False

    def matches(self, ipv6: bool, src: int, key: int | None) -> bool:
        if self.accept_all:
            return True
        for e in self.entries:
            if not e.valid or e.ipv6 != ipv6:
                continue
            a = _addr(e.addr)
            if (a & 0xFFFFFFFF if not ipv6 else a) != src:
                continue
            if e.key is not None and key != e.key:
                continue
            return True
        return False


@dataclass
class Decision:
    """What the decapsulator decides from a frame's headers.

    need: bytes the decision needs (the RTL decides in the beat holding byte need-1, or at the
    frame's end when the frame is shorter). For decap: H = outer header length (L2 + IP + GRE),
    S = bytes removed before the output's shifted part, prefix = the output bytes before it
    (the outer MACs/tags and the GRE protocol as Ethertype, for 0x0800/0x86DD), E = where the IP
    packet ends by its length field, limit = the longest frame allowed to carry padding."""
    reason: str
    need: int
    tags: int = 0
    H: int = 0
    S: int = 0
    prefix: bytes = b""
    E: int = 0
    limit: int = 0


def decide(frame: bytes, cfg: DecapConfig, tlen: int | None = None) -> Decision:
    """The decision from the headers (and, with LEN_IN = 1, the frame length `tlen` given up
    front; None: LEN_IN = 0, no length verdict here)."""
    f = bytes(frame)
    n = len(f)

    def short():
        return Decision("too_short", n)

    if n < 14:
        return short()
    et, l2 = _u16(f, 12), 14
    if et in TAGS:
        if n < 18:
            return short()
        et, l2 = _u16(f, 16), 18
        if et in TAGS:
            if n < 22:
                return short()
            et, l2 = _u16(f, 20), 22
    tags = (l2 - 14) // 4
    if et == 0x0800:
        if n < l2 + 20:
            return short()
        ver, ihl = f[l2] >> 4, f[l2] & 15
        if ver != 4 or ihl < 5 or f[l2 + 9] != 47:
            return Decision("not_gre", l2 + 20, tags)
        if n < l2 + 4 * ihl:
            return short()
        if ones_sum(f[l2:l2 + 4 * ihl]) != 0xFFFF:
            return Decision("bad_checksum", l2 + 4 * ihl, tags)
        if _u16(f, l2 + 6) & 0x3FFF:
            return Decision("fragment", l2 + 4 * ihl, tags)
        ipv6, g, E, src = False, l2 + 4 * ihl, l2 + _u16(f, l2 + 2), _u32(f, l2 + 12)
    elif et == 0x86DD:
        if n < l2 + 40:
            return short()
        if f[l2] >> 4 != 6 or f[l2 + 6] != 47:
            return Decision("not_gre", l2 + 40, tags)
        ipv6, g, E = True, l2 + 40, l2 + 40 + _u16(f, l2 + 4)
        src = int.from_bytes(f[l2 + 8:l2 + 24], "big")
    else:
        return Decision("not_gre", l2, tags)
    if n < g + 4:
        return short()
    if (f[g + 1] & 0xFF) or (f[g] & 0x4F):  # version, reserved0, routing, strict route, recursion
        return Decision("unsupported", g + 4, tags)
    proto = _u16(f, g + 2)
    if proto not in PROTOS:
        return Decision("unsupported", g + 4, tags)
    c, k, s = (f[g] >> 7) & 1, (f[g] >> 5) & 1, (f[g] >> 4) & 1
    H = g + 4 * (1 + c + k + s)
    if n < H + 1:  # at least one byte of the inner frame
        return short()
    need = H + 1
    if E < H + (14 if proto == 0x6558 else 1):  # the IP length leaves no room for the inner frame
        return Decision("too_short", need, tags)
    key = _u32(f, g + 4 + 4 * c) if k else None
    if not cfg.matches(ipv6, src, key):
        return Decision("unknown_drop" if cfg.drop_unknown else "unknown_pass", need, tags)
    if tlen is not None and not length_ok(tlen, E, MIN_FRAME + 4 * tags):
        return Decision("pass_length", need, tags)
    if proto == 0x6558:
        prefix, S = b"", H
    else:
        prefix, S = f[:l2 - 2] + proto.to_bytes(2, "big"), H - l2
    return Decision("decap", need, tags, H, S, prefix, E, MIN_FRAME + 4 * tags)


def length_ok(n: int, E: int, limit: int) -> bool:
    """The frame length agrees with the IP length: equal, or longer only by Ethernet padding
    (frames up to 60 bytes plus 4 per VLAN tag may carry padding)."""
    return n == E or E < n <= limit


def decap(frame: bytes, cfg: DecapConfig, tlen: int | None = None) -> tuple[bytes | None, str]:
    """(output frame or None, reason) exactly as fp_gre_decap decides. tlen: s_axis_tlen (LEN_IN = 1;
    the length verdict before the output starts, `pass_length` frames pass unchanged), or None
    (LEN_IN = 0: the verdict at the frame's end, `drop_length` frames leave marked bad). With
    LEN_IN = 1 a decapsulated frame whose actual length then disagrees (tlen was wrong) is still
    `drop_length`."""
    f = bytes(frame)
    d = decide(f, cfg, tlen)
    if d.reason in ("unknown_drop",):
        return None, d.reason
    if d.reason != "decap":
        return f, d.reason
    out = d.prefix + f[d.H:min(len(f), d.E)]  # the outer frame's padding is not output
    return out, ("decap" if length_ok(len(f), d.E, d.limit) else "drop_length")


# fp_gre_decap's default PARSE_STAGES per beat width in bytes (the parser pipeline's extra cycles).
DEFAULT_PARSE_STAGES = {8: 0, 32: 0, 64: 0}
# fp_gre_decap's default OUT_STAGES per beat width in bytes (1: the output beat is formed in the cycle
# its input beats reach the header buffer; 2: from the buffer a cycle later, then a second cycle).
DEFAULT_OUT_STAGES = {8: 1, 32: 1, 64: 1}
# fp_gre_decap's default LEN_IN (1: the frame length on s_axis_tlen with the first beat).
DEFAULT_LEN_IN = 1


def decap_latency(frame: bytes, cfg: DecapConfig, width_bytes: int, parse_stages: int = 0,
                  out_stages: int = 1, tlen: int | None = None) -> int | None:
    """Cycles from the first input beat accepted to the first output beat offered (input back to
    back, output ready, nothing ahead). Every beat reaches the decision logic's last stage and the
    header buffer `parse_stages` cycles after it is accepted (fp_gre_decap's PARSE_STAGES). The
    decision is made in the cycle its last beat (beat k_dec) gets there and registered; the output
    stage uses it from the next cycle and needs, for a decapsulation, the beat(s) holding the first
    output beat's shifted bytes (beat k_data): with out_stages = 1 (OUT_STAGES) read in the cycle
    it gets there and the output register loaded at the end of that cycle; with out_stages = 2 read
    from the buffer one cycle later (no bypass) and the output formed in a second cycle.
    Latency = 1 + parse_stages + max(k_dec + 1, k_data + x) + x with x = out_stages - 1, except
    for a decapsulation whose output is one beat while the input continues past the beat that
    completes it (padding, or bytes past the IP length): that beat is also the last and carries
    the input's last tuser, so it waits for the input's last beat (beat `last`): then
    max(that + last - S // w, 1 + parse_stages + last + 2x).
    tlen as in `decap` (LEN_IN changes no figure: a `pass_length` frame is a passed frame decided
    at the same byte). None when nothing comes out."""
    d = decide(frame, cfg, tlen)
    if d.reason == "unknown_drop":
        return None
    w, n = width_bytes, len(frame)
    k_dec = (min(d.need, n) - 1) // w
    x = out_stages - 1
    if d.reason != "decap":
        return 1 + parse_stages + k_dec + 1 + x
    b0, r = divmod(d.S, w)
    last = (n - 1) // w
    k_data = b0 + (1 if r and b0 < last else 0)
    lat = 1 + parse_stages + max(k_dec + 1, k_data + x) + x
    out_len = len(d.prefix) + max(0, min(n, d.E) - d.H)   # len(decap(frame)[0]), as in decap
    if out_len <= w and not (last == b0 or (r and last == b0 + 1)):
        # The first output beat is also the last, and input beats (padding, or bytes past the
        # IP length) follow the one that completes it: it carries the input's last tuser, so it
        # waits for the input's last beat, the output stage reading one input beat per cycle.
        lat = max(lat + last - b0, 1 + parse_stages + last + 2 * x)
    return lat


# ---------------------------------------------------------------------------------------------
# Encapsulation
# ---------------------------------------------------------------------------------------------

@dataclass
class Tunnel:
    """One tunnel of fp_gre_encap's table. l3: carry the input's payload after its Ethernet header
    with the input's Ethertype as GRE protocol (else 0x6558 around the whole frame)."""
    mac_dst: object = "02:00:00:00:00:02"
    mac_src: object = "02:00:00:00:00:01"
    ipv6: bool = False
    src: object = "192.0.2.1"
    dst: object = "198.51.100.1"
    ttl: int = 64
    key: int | None = None
    seq: bool = False
    l3: bool = False
    enable: bool = True


def decap_ports(cfg: DecapConfig, entries: int | None = None) -> dict:
    """fp_gre_decap's cfg_* port values for a DecapConfig: accept entry i in bit / slice i, the first
    `entries` of them (the RTL's ACCEPT_ENTRIES; default all)."""
    v = {"cfg_accept_all": int(cfg.accept_all), "cfg_drop_unknown": int(cfg.drop_unknown),
         "cfg_acc_valid": 0, "cfg_acc_ipv6": 0, "cfg_acc_addr": 0, "cfg_acc_key_valid": 0,
         "cfg_acc_key": 0}
    for i, e in enumerate(cfg.entries[:entries]):
        v["cfg_acc_valid"] |= int(e.valid) << i
        v["cfg_acc_ipv6"] |= int(e.ipv6) << i
        v["cfg_acc_addr"] |= _addr(e.addr) << (128 * i)
        if e.key is not None:
            v["cfg_acc_key_valid"] |= 1 << i
            v["cfg_acc_key"] |= e.key << (32 * i)
    return v


def encap_ports(tunnels: list) -> dict:
    """fp_gre_encap's cfg_tun_* port values: tunnel i in bit / slice i (the rest disabled)."""
    v = {k: 0 for k in ("enable", "ipv6", "l3", "key_en", "seq_en", "mac_dst", "mac_src", "src",
                        "dst", "ttl", "key")}
    for i, t in enumerate(tunnels):
        v["enable"] |= int(t.enable) << i
        v["ipv6"] |= int(t.ipv6) << i
        v["l3"] |= int(t.l3) << i
        v["key_en"] |= int(t.key is not None) << i
        v["seq_en"] |= int(t.seq) << i
        v["mac_dst"] |= int.from_bytes(_mac(t.mac_dst), "big") << (48 * i)
        v["mac_src"] |= int.from_bytes(_mac(t.mac_src), "big") << (48 * i)
        v["src"] |= _addr(t.src) << (128 * i)
        v["dst"] |= _addr(t.dst) << (128 * i)
        v["ttl"] |= t.ttl << (8 * i)
        v["key"] |= (t.key or 0) << (32 * i)
    return {f"cfg_tun_{k}": x for k, x in v.items()}


def encap_header(t: Tunnel, proto: int, payload_len: int, seq: int) -> bytes:
    """Outer Ethernet / IPv4 (DF, ID 0, no options) or IPv6 / GRE header, built with scapy."""
    from scapy.layers.inet import IP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import GRE, Ether

    k, s = t.key is not None, t.seq
    glen = 4 + 4 * k + 4 * s
    gre = GRE(key_present=int(k), seqnum_present=int(s), proto=proto)
    if k:
        gre.key = t.key
    if s:
        gre.sequence_number = seq
    eth = Ether(dst=_mac(t.mac_dst).hex(":"), src=_mac(t.mac_src).hex(":"))
    if t.ipv6:
        ip = IPv6(src=str(ipaddress.IPv6Address(_addr(t.src))), dst=str(ipaddress.IPv6Address(_addr(t.dst))),
                  nh=47, hlim=t.ttl, plen=(glen + payload_len) & 0xFFFF)
        eth.type = 0x86DD
    else:
        ip = IP(src=str(ipaddress.IPv4Address(_addr(t.src) & 0xFFFFFFFF)),
                dst=str(ipaddress.IPv4Address(_addr(t.dst) & 0xFFFFFFFF)),
                proto=47, ttl=t.ttl, id=0, flags="DF", len=(20 + glen + payload_len) & 0xFFFF)
        eth.type = 0x0800
    hdr = bytes(eth / ip / gre)
    assert len(hdr) == 14 + (40 if t.ipv6 else 20) + glen
    return hdr


class Encap:
    """fp_gre_encap with its per-tunnel sequence counters (0 after reset, +1 per frame sent with S)."""

    def __init__(self, tunnels: list[Tunnel]):
        self.tunnels = tunnels
        self.seq = [0] * len(tunnels)

    def encap(self, frame: bytes, tdest: int, tlen: int | None = None) -> tuple[bytes | None, str]:
        f = bytes(frame)
        tlen = len(f) if tlen is None else tlen
        if tdest >= len(self.tunnels) or not self.tunnels[tdest].enable:
            return f, "pass"
        t = self.tunnels[tdest]
        if t.l3:
            if len(f) < 14 or _u16(f, 12) not in (0x0800, 0x86DD):
                return None, "drop"
            proto, skip = _u16(f, 12), 14
        else:
            proto, skip = 0x6558, 0
        seq = self.seq[tdest]
        if t.seq:
            self.seq[tdest] = (seq + 1) & 0xFFFFFFFF
        out = encap_header(t, proto, tlen - skip, seq) + f[skip:]
        return out, ("encap" if tlen == len(f) else "bad_length")


def encap_latency(frame: bytes, t: Tunnel | None, width_bytes: int) -> int | None:
    """fp_gre_encap's latency: 2 cycles (an input register with the registered tunnel lookup and IP
    length, then the header); 3 at 64 bits for an L3 tunnel (its Ethertype is in beat 1)."""
    if t is None or not t.enable:
        return 2
    if t.l3 and (len(frame) < 14 or _u16(frame, 12) not in (0x0800, 0x86DD)):
        return None
    return 3 if (t.l3 and width_bytes < 14) else 2
