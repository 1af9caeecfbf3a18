"""fp_ptrain_rx: tester frames built by fastpath.ptrain.frame.build, foreign and malformed frames,
bad FCS, loss, reordering and duplicates, against a Python reference model: records field for
field and every counter exactly, and the per-stream counters also against fastpath.ptrain.analyze.

The input is a MAC's RX stream: cocotbext-axi's AxiStreamSource with no tready, s_axis_ts (the SFD
time, constant in a frame) driven as the frame's tdest (`TsBus`), gaps between and inside frames
random or none at all (back to back). The record sink has random backpressure. The model
(`Model`): the rules of the module header (field presence included), frame.parse() with the
receiver's two differences (IPv4 options are foreign, no time_mismatch), and the per-stream window
(`Window`, bit-exact with the RTL). The latency, the tlast beat of a frame to its record valid on
m_axis, is asserted exactly whenever the sink is always ready (>= otherwise).

Compact frames (IPv4 below 84 bytes, 88 tagged: version 2, train = seq - index, index = IPv4
identification, train_len 0 in the record, the window's train end seq + 1) are a third of the
IPv4 tester frames of the mixes, malformed in their own ways too, and 60-byte frames run back to
back (a record every 8 cycles at 64 bits, every 60 at 8) with every record checked.
"""
from __future__ import annotations

import random

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge, SimTimeoutError, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from fastpath.ptrain import analyze
from fastpath.ptrain import frame as fr
from fastpath.ptrain import record as rec
from fastpath.sim import runner
from fastpath.sim.tb import BeatMonitor, params, pauses, rng, start, uint

LATENCY = 15          # tlast beat -> record valid on m_axis (module header)
COUNT_FRAME = 9       # tlast beat -> the per-frame counters show the frame
COUNT_STREAM = 13     # tlast beat -> the per-stream counters and stat_records show it
MASK32 = 0xFFFFFFFF
TPIDS = (0x8100, 0x88A8)
GLOBAL = ("frames", "not_selected", "foreign", "truncated", "bad_length", "fragment", "bad_checksum",
          "bad_fields", "records", "record_drops", "bad_fcs", "untracked")
PER_STREAM = ("received", "unique", "duplicates", "reordered", "late", "seq_first", "seq_highest",
              "train_first", "train_end")
OUTCOMES = ("not_selected", "foreign", "truncated", "bad_length", "fragment", "bad_checksum", "bad_fields")
# rule fields: width and what the frame must have for a term with a non-zero mask to hold
RULE_FIELDS = {"dst_mac": (48, "mac"), "src_mac": (48, "mac"), "tagged": (1, "mac"), "vid": (12, "vid"),
               "ipv6": (1, "ip"), "proto": (8, "ip"), "ip_src": (32, "ip"), "ip_dst": (32, "ip"),
               "sport": (16, "port"), "dport": (16, "port")}


class TsBus(AxiStreamBus):
    """The RX MAC's stream: no tready; s_axis_ts driven as cocotbext-axi's per-frame tdest."""
    _optional_signals = {"tvalid": "tvalid", "tlast": "tlast", "tkeep": "tkeep", "tuser": "tuser",
                         "tdest": "ts"}


def u16(d: bytes, o: int) -> int:
    return (d[o] << 8) | d[o + 1]


def mac_int(s: str) -> int:
    return int(s.replace(":", ""), 16)


# ---------------------------------------------------------------------------------------------
# Reference model
# ---------------------------------------------------------------------------------------------

def frame_fields(d: bytes) -> tuple[set, dict]:
    """The rule fields a frame has (presence as in the module header) and their values."""
    n = len(d)
    have, v = set(), {}
    if n < 14:
        return have, v
    have.add("mac")
    v["dst_mac"], v["src_mac"] = int.from_bytes(d[0:6], "big"), int.from_bytes(d[6:12], "big")
    tag0 = u16(d, 12) in TPIDS
    v["tagged"] = int(tag0)
    if tag0 and n >= 18:
        have.add("vid")
        v["vid"] = u16(d, 14) & 0xFFF
    tag1 = tag0 and n >= 18 and u16(d, 16) in TPIDS
    if tag0 and (n < 18 or (tag1 and n < 22)):
        return have, v
    l3 = 14 + 4 * tag0 + 4 * tag1
    et = u16(d, l3 - 2)
    if et == 0x0800 and n >= l3 + 20 and d[l3] == 0x45:
        v.update(ipv6=0, proto=d[l3 + 9], ip_src=int.from_bytes(d[l3 + 12:l3 + 16], "big"),
                 ip_dst=int.from_bytes(d[l3 + 16:l3 + 20], "big"))
        frag0 = u16(d, l3 + 6) & 0x1FFF == 0
        l4 = l3 + 20
    elif et == 0x86DD and n >= l3 + 40 and d[l3] >> 4 == 6:
        v.update(ipv6=1, proto=d[l3 + 6], ip_src=int.from_bytes(d[l3 + 20:l3 + 24], "big"),
                 ip_dst=int.from_bytes(d[l3 + 36:l3 + 40], "big"))
        frag0 = True
        l4 = l3 + 40
    else:
        return have, v
    have.add("ip")
    if frag0 and n >= l4 + 4:
        have.add("port")
        v["sport"], v["dport"] = u16(d, l4), u16(d, l4 + 2)
    return have, v


class Rule:
    def __init__(self, en=True, **terms):
        self.en = en
        self.terms = {f: terms.get(f, (0, 0)) for f in RULE_FIELDS}  # name -> (value, mask)

    def match(self, have, values) -> bool:
        if not self.en:
            return False
        for f, (val, mask) in self.terms.items():
            if mask == 0:
                continue
            if RULE_FIELDS[f][1] not in have or (values[f] ^ val) & mask:
                return False
        return True


def apply_rules(dut, rules: list[Rule]):
    dut.cfg_rule_en.value = sum(int(r.en) << i for i, r in enumerate(rules))
    for f, (w, _) in RULE_FIELDS.items():
        getattr(dut, f"cfg_rule_{f}").value = sum(r.terms[f][0] << (w * i) for i, r in enumerate(rules))
        getattr(dut, f"cfg_rule_{f}_mask").value = sum(r.terms[f][1] << (w * i) for i, r in enumerate(rules))


def classify(rules: list[Rule], d: bytes):
    """(outcome, TesterFrame or None): outcome is one of OUTCOMES or "record"."""
    have, values = frame_fields(d)
    if not any(r.match(have, values) for r in rules):
        return "not_selected", None
    # The receiver's first difference: IPv4 with options is foreign.
    n = len(d)
    off = 12
    for _ in range(2):
        if n >= off + 2 and u16(d, off) in TPIDS and n >= off + 6:
            off += 4
    if n >= off + 2 + 20 and u16(d, off) == 0x0800 and d[off + 2] >> 4 == 4 and d[off + 2] & 15 != 5:
        return "foreign", None
    try:
        t = fr.parse(d)
    except fr.Malformed as e:
        if e.reason != "time_mismatch":
            return e.reason, None
        t = _unchecked_time(d)  # the second: the pktgen time is not compared with tx_time
    if t is None:
        return "foreign", None
    return "record", t


def _unchecked_time(d: bytes) -> fr.TesterFrame:
    """parse() without the time comparison (called for time_mismatch frames only)."""
    have, _ = frame_fields(d)
    assert "port" in have
    off = 12
    tags = 0
    while tags < 2 and u16(d, off) in TPIDS:
        off, tags = off + 4, tags + 1
    l3 = off + 2
    ipv6 = u16(d, off) == 0x86DD
    l4 = l3 + (40 if ipv6 else 20)
    f = fr.TESTER.unpack(d[l4 + 8:l4 + 8 + fr.HEADER_LEN])
    return fr.TesterFrame(seq=f["seq"], stream=f["stream"], train=f["train"], index=f["index"],
                          train_len=f["train_len"], tx_time=f["tx_time"], tv_sec=f["tv_sec"],
                          tv_usec=f["tv_usec"], flags=f["ver_flags"] & 15, frame_len=f["frame_len"],
                          size=l4 + u16(d, l4 + 4), ipv6=ipv6, vlan=None)


class Window:
    """The receiver's per-stream window, bit for bit (module header, T1..T4)."""

    def __init__(self, size: int):
        self.size = size
        self.s: dict[int, dict] = {}

    def add(self, stream: int, seq: int, index: int, train_len: int) -> tuple[int, int, int]:
        start = (seq - index) & MASK32
        end = (start + train_len) & MASK32
        st = self.s.get(stream)
        if st is None:
            self.s[stream] = dict(first=seq, hi=seq, bm=1, tf=start, te=end, received=1, unique=1,
                                  duplicates=0, reordered=0, late=0)
            return 0, 0, 0
        dup = reord = late = 0
        d, b = (seq - st["hi"]) & MASK32, (st["hi"] - seq) & MASK32
        full = (1 << self.size) - 1
        if d != 0 and d < 1 << 31:
            st["bm"] = ((st["bm"] << d) & full | 1) if d < self.size else 1
            st["hi"] = seq
        elif b < self.size:
            if st["bm"] >> b & 1:
                dup = 1
            else:
                st["bm"] |= 1 << b
                reord = 1
        else:
            late = reord = 1
        if (seq - st["first"]) & MASK32 >= 1 << 31:
            st["first"] = seq
        if (start - st["tf"]) & MASK32 >= 1 << 31:
            st["tf"] = start
        x = (end - st["te"]) & MASK32
        if x and x < 1 << 31:
            st["te"] = end
        st["received"] += 1
        st["unique"] += 1 - dup
        st["duplicates"] += dup
        st["reordered"] += reord
        st["late"] += late
        return dup, reord, late

    def counters(self, stream: int) -> rec.Counters:
        st = self.s.get(stream)
        if st is None:
            return rec.Counters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return rec.Counters(seen=1, received=st["received"], unique=st["unique"],
                            duplicates=st["duplicates"], reordered=st["reordered"], late=st["late"],
                            seq_first=st["first"], seq_highest=st["hi"], train_first=st["tf"],
                            train_end=st["te"])


class Model:
    def __init__(self, rules, streams: int, window: int):
        self.rules, self.streams = rules, streams
        self.win = Window(window)
        self.counts = {k: 0 for k in GLOBAL}
        self.records: list[rec.RxRecord] = []
        self.record_frames: list[int] = []   # index of the frame of each record
        self.n = 0

    def add(self, data: bytes, bad: bool, ts: int):
        i, self.n = self.n, self.n + 1
        self.counts["frames"] += 1
        outcome, t = classify(self.rules, data)
        if outcome != "record":
            self.counts[outcome] += 1
            return
        dup = reord = late = 0
        if bad:
            self.counts["bad_fcs"] += 1
        elif t.stream >= self.streams:
            self.counts["untracked"] += 1
        else:
            # a compact frame's train length is unknown: the window takes its train's end as
            # seq + 1 (index + 1 frames)
            dup, reord, late = self.win.add(t.stream, t.seq, t.index, t.train_len or t.index + 1)
        self.counts["records"] += 1
        self.record_frames.append(i)
        self.records.append(rec.RxRecord(bad=int(bad), dup=dup, reordered=reord, late=late,
                                         tx_flags=t.flags, stream=t.stream, size=t.size & 0xFFFF,
                                         seq=t.seq, train=t.train, index=t.index, train_len=t.train_len,
                                         tx_time=t.tx_time, rx_time=ts))


# ---------------------------------------------------------------------------------------------
# Frames
# ---------------------------------------------------------------------------------------------

SEL = {  # header variants the test's rules select
    "v4": fr.Headers(),
    "v4_tag": fr.Headers(vlan=100, pcp=3),
    "v6": fr.Headers(ipv6=True),
    "v6_tag": fr.Headers(ipv6=True, vlan=100),
    "v4_qinq": fr.Headers(vlan=7),     # an 802.1ad tag is added in front (two tags)
    "v6_qinq": fr.Headers(ipv6=True, vlan=8),
}
UNSEL = {  # tester frames no rule selects
    "v4_port": fr.Headers(dport=10),
    "v4_dst": fr.Headers(dst_ip="10.0.0.1"),
    "v6_dst": fr.Headers(ipv6=True, dst_ip="2001:db8::3"),
    "v6_mac": fr.Headers(ipv6=True, dst_mac="02:00:00:00:00:03"),
    "v4_tag200": fr.Headers(vlan=200, dport=10),
}


def std_rules() -> list[Rule]:
    """rule 0: IPv4 UDP to 198.51.100.0/24 port 9; rule 1: IPv6 to MAC ..:02, address ...::2 (low
    32 bits), port 9; rule 2: VLAN 100; rule 3: matches everything but is disabled."""
    return [
        Rule(ipv6=(0, 1), proto=(17, 0xFF), ip_dst=(0xC6336400, 0xFFFFFF00), dport=(9, 0xFFFF)),
        Rule(ipv6=(1, 1), dst_mac=(mac_int("02:00:00:00:00:02"), (1 << 48) - 1), ip_dst=(2, MASK32),
             dport=(9, 0xFFFF)),
        Rule(tagged=(1, 1), vid=(100, 0xFFF)),
        Rule(en=False),
    ]


def outer_tag(d: bytes, vid: int = 300) -> bytes:
    return d[:12] + b"\x88\xa8" + vid.to_bytes(2, "big") + d[12:]


def offsets(d: bytes):
    """(l3, l4, ipv6) of a frame built here (tags skipped as parse() does)."""
    off, tags = 12, 0
    while tags < 2 and u16(d, off) in TPIDS:
        off, tags = off + 4, tags + 1
    l3 = off + 2
    ipv6 = u16(d, off) == 0x86DD
    return l3, l3 + (40 if ipv6 else (d[l3] & 15) * 4), ipv6


def refresh_udp_checksum(d: bytes) -> bytes:
    d = bytearray(d)
    l3, l4, ipv6 = offsets(d)
    ulen = u16(d, l4 + 4)
    d[l4 + 6:l4 + 8] = b"\0\0"
    if ipv6:
        pseudo = d[l3 + 8:l3 + 40] + ulen.to_bytes(4, "big") + bytes([0, 0, 0, 17])
    else:
        pseudo = d[l3 + 12:l3 + 20] + bytes([0, 17]) + ulen.to_bytes(2, "big")
    c = (~fr.ones_sum(bytes(pseudo + d[l4:l4 + ulen]))) & 0xFFFF
    d[l4 + 6:l4 + 8] = (c or 0xFFFF).to_bytes(2, "big")
    return bytes(d)


def put(d: bytes, off: int, value: int, n: int) -> bytes:
    return d[:off] + (value & ((1 << 8 * n) - 1)).to_bytes(n, "big") + d[off + n:]


def field_off(d: bytes, name: str) -> int:
    return offsets(d)[1] + 8 + fr.TESTER.field(name).offset


def tframe(r: random.Random, hdr: str, seq: int, train: int, index: int, train_len: int,
           stream: int, size: int | None = None, flags: int | None = None) -> bytes:
    heads = SEL.get(hdr) or UNSEL[hdr]
    if size is None:
        if heads.min_size < heads.min_frame and r.random() < 0.35:   # compact (IPv4)
            size = r.randint(heads.min_size, heads.min_frame - 1)
        else:
            size = r.randint(heads.min_frame, 1514 if r.random() < 0.03 else 220)
    if flags is None:
        flags = fr.FLAG_TX_HW | fr.FLAG_SYNCED * r.getrandbits(1) | (fr.FLAG_LAST if index == train_len - 1 else 0)
    d = fr.build(size, seq, train, index, train_len, r.getrandbits(63), stream=stream, flags=flags,
                 headers=heads)
    if hdr.endswith("qinq"):
        d = outer_tag(d)
    return d


def malformed(r: random.Random, d: bytes, kind: str) -> bytes:
    """A valid tester frame made into one of the kinds below (the model says what it becomes)."""
    l3, l4, ipv6 = offsets(d)
    p = l4 + 8
    ulen = u16(d, l4 + 4)
    size = l4 + ulen
    compact = d[p + 16] >> 4 == fr.VERSION_COMPACT
    hlen = fr.COMPACT_LEN if compact else fr.HEADER_LEN
    if kind == "csum_valid":                       # compact: a UDP checksum is checked when present,
        d = refresh_udp_checksum(d)                # over the datagram only (padding after it)
        return d + bytes(r.getrandbits(8) for _ in range(r.randint(0, 12)))
    if compact and kind == "checksum":
        d = refresh_udp_checksum(d)
        o = r.randrange(p, size)
        return d[:o] + bytes([d[o] ^ (1 << r.randrange(8))]) + d[o + 1:]
    if compact and kind == "short_udp":           # consistent lengths below a compact header
        n = r.randint(20, 8 + fr.COMPACT_LEN - 1)
        return put(put(d, l4 + 4, n, 2), l3 + 2, n + 20, 2)
    if kind == "truncated":
        return d[:r.randint(p + 4, size - 1)]
    if kind == "cut_short":                       # before the magic: foreign
        return d[:r.randint(1, p + 3)]
    if kind == "udp_len":
        return put(d, l4 + 4, ulen + r.choice([-2, -1, 1, 6]), 2)
    if kind == "ip_len":
        return put(d, l3 + (4 if ipv6 else 2), u16(d, l3 + (4 if ipv6 else 2)) + r.choice([-1, 2]), 2)
    if kind == "short_udp":                        # consistent lengths below a tester header
        n = r.randint(20, 49)
        d = put(d, l4 + 4, n, 2)
        return put(d, l3 + 4, n, 2) if ipv6 else put(d, l3 + 2, n + 20, 2)
    if kind == "index":
        tl = u16(d, field_off(d, "train_len") + 2)
        return refresh_udp_checksum(put(d, field_off(d, "index"), tl + r.randint(0, 3), 4))
    if kind == "train_len0":
        return refresh_udp_checksum(put(put(d, field_off(d, "train_len"), 0, 4), field_off(d, "index"), 0, 4))
    if kind == "checksum":
        o = r.randrange(p + 20, size)
        return d[:o] + bytes([d[o] ^ (1 << r.randrange(8))]) + d[o + 1:]
    if kind == "csum_zero":                        # not checked: valid, whatever the payload
        o = r.randrange(p + hlen, size) if size > p + hlen else None
        d = put(d, l4 + 6, 0, 2)
        return d if o is None else d[:o] + bytes([d[o] ^ 0x5A]) + d[o + 1:]
    if kind == "mf":
        return put(d, l3 + 6, 0x2000, 2)
    if kind == "later_fragment":
        return put(d, l3 + 6, 0x0010, 2)
    if kind == "time":                             # parse: time_mismatch; the receiver: valid
        o = field_off(d, "tv_usec")
        return refresh_udp_checksum(put(d, o, (int.from_bytes(d[o:o + 4], "big") + 7) % 1_000_000, 4))
    if kind == "options":                          # IPv4 IHL 6: valid for parse(), foreign here
        d = d[:l3] + bytes([0x46]) + d[l3 + 1:l3 + 20] + b"\x01\x01\x01\x00" + d[l3 + 20:]
        return put(d, l3 + 2, u16(d, l3 + 2) + 4, 2)
    if kind == "version0":                         # a Linux pktgen frame: foreign
        return refresh_udp_checksum(put(d, field_off(d, "ver_flags"), 0, 1))
    if kind == "padding":
        return d + bytes(r.getrandbits(8) for _ in range(r.randint(1, 20)))
    raise ValueError(kind)


MALFORMED_V4 = ("truncated", "cut_short", "udp_len", "ip_len", "short_udp", "index", "train_len0", "checksum",
                "csum_zero", "mf", "later_fragment", "time", "options", "version0", "padding")
MALFORMED_C = ("truncated", "cut_short", "udp_len", "ip_len", "short_udp", "checksum", "csum_zero", "csum_valid",
               "mf", "later_fragment", "options", "version0", "padding")
MALFORMED_V6 = ("truncated", "cut_short", "udp_len", "ip_len", "short_udp", "index", "train_len0", "checksum",
                "time", "version0", "padding")


def foreign(r: random.Random) -> bytes:
    from scapy.layers.inet import IP, TCP, UDP
    from scapy.layers.l2 import ARP, Dot1Q, Ether
    from scapy.packet import Raw
    e = Ether(src="02:00:00:00:00:09", dst="02:00:00:00:00:02")
    pay = Raw(bytes(r.getrandbits(8) for _ in range(r.randint(0, 80))))
    kind = r.randrange(8)
    if kind == 0:      # TCP on VLAN 100: selected (rule 2), foreign
        return bytes(e / Dot1Q(vlan=100) / IP(dst="198.51.100.1") / TCP(dport=9) / pay)
    if kind == 1:      # TCP untagged: not selected
        return bytes(e / IP(dst="198.51.100.1") / TCP(dport=9) / pay)
    if kind == 2:      # ARP on VLAN 100
        return bytes(e / Dot1Q(vlan=100) / ARP())
    if kind == 3:      # UDP port 9 without the magic
        return bytes(e / IP(dst="198.51.100.1") / UDP(sport=9, dport=9) / Raw(bytes(60)) / pay)
    if kind == 4:      # a short Linux pktgen frame: magic, seq, time only
        hdr = fr.PKTGEN.pack(magic=fr.MAGIC, seq=r.getrandbits(32))
        return bytes(e / IP(dst="198.51.100.1") / UDP(sport=9, dport=9) / Raw(hdr)) + bytes(2)
    if kind == 5:      # a runt
        return bytes(r.getrandbits(8) for _ in range(r.randint(1, 30)))
    if kind == 6:      # a runt with a VLAN 100 tag: selected from 18 bytes on
        return bytes(e)[:12] + b"\x81\x00\x00\x64" + bytes(r.getrandbits(8) for _ in range(r.randint(0, 10)))
    return bytes(e / Dot1Q(vlan=100) / Dot1Q(vlan=5) / Dot1Q(vlan=6) / IP() / UDP() / pay)  # 3 tags


def stream_plan(r: random.Random, stream: int, n: int, seq0: int, impair: bool = True):
    """(seq, train, index, train_len) of a stream's frames in send order: trains of 1..6 frames,
    with loss, duplicates and reordering (displacements far below the window) when `impair`."""
    out = []
    seq, train = seq0, r.getrandbits(32)
    while len(out) < n:
        tl = r.randint(1, 6)
        out += [((seq + i) & MASK32, train, i, tl) for i in range(tl)]
        seq, train = seq + tl, (train + 1) & MASK32
    if impair:
        kept = [f for j, f in enumerate(out) if j in (0, len(out) - 1) or r.random() > 0.08]
        for _ in range(len(kept) // 12):                       # duplicates
            j = r.randrange(len(kept))
            kept.insert(min(len(kept), j + r.randint(0, 6)), kept[j])
        for _ in range(len(kept) // 10):                       # reordering
            j = r.randrange(len(kept) - 1)
            kept.insert(min(len(kept), j + r.randint(1, 8)), kept.pop(j))
        out = kept
    return out


def interleave(r: random.Random, lists: list[list]) -> list:
    out, lists = [], [list(x) for x in lists if x]
    while lists:
        k = r.randrange(len(lists))
        out.append(lists[k].pop(0))
        if not lists[k]:
            lists.pop(k)
    return out


def traffic(r: random.Random, per_stream: int, extra: int, bad_p: float = 0.04):
    """(data, bad) of a mixed run: streams 0..3 (tracked), 9 (untracked), 2 near the seq wrap;
    foreign and malformed frames (stream 12: those that stay valid are untracked records);
    frames marked bad."""
    items = []
    for s, seq0 in ((0, r.getrandbits(32)), (1, r.getrandbits(32)), (2, MASK32 - 10), (3, 0), (9, 5)):
        hdrs = r.sample(sorted(SEL), 3)
        items.append([("t", s, f, r.choice(hdrs)) for f in stream_plan(r, s, per_stream, seq0)])
    # Every malformed kind at least once (IPv4 and IPv6 headers), then foreign and unselected.
    v4 = [h for h in sorted(SEL) if h.startswith("v4")]
    v6 = [h for h in sorted(SEL) if h.startswith("v6")]
    kinds = [("m", r.choice(v4), k) for k in MALFORMED_V4] + [("m", r.choice(v6), k) for k in MALFORMED_V6] + \
        [("c", r.choice(v4), k) for k in MALFORMED_C]
    others = (kinds * (1 + extra // (2 * len(kinds))))[:max(len(kinds), extra // 2)]
    while len(others) < extra:
        others.append(("f",) if r.random() < 0.7 else ("u", r.choice(sorted(UNSEL))))
    r.shuffle(others)
    items.append(others)
    out = []
    tracked = []      # indices of tester frames: a bad FCS on one of them is the "bad_fcs" outcome
    for it in interleave(r, items):
        if it[0] == "t":
            tracked.append(len(out))
            _, s, (seq, train, index, tl), hdr = it
            d = tframe(r, hdr, seq, train, index, tl, s)
        elif it[0] == "f":
            d = foreign(r)
        elif it[0] == "u":
            d = tframe(r, it[1], r.getrandbits(32), 0, 0, 1, 12)
        elif it[0] == "c":   # a compact frame made malformed
            h = SEL[it[1]]
            d = malformed(r, tframe(r, it[1], r.getrandbits(32), 1, 0, 2, 12,
                                    size=r.randint(h.min_size, h.min_frame - 1)), it[2])
        else:
            d = malformed(r, tframe(r, it[1], r.getrandbits(32), 1, 0, 2, 12,
                                    size=r.randint(SEL[it[1]].min_frame, 220)), it[2])
        out.append((d, r.random() < bad_p))
    if bad_p and tracked and not any(out[i][1] for i in tracked):
        i = r.choice(tracked)        # at least one, whatever the draws (the runs check coverage)
        out[i] = (out[i][0], True)
    return out


# ---------------------------------------------------------------------------------------------
# Testbench
# ---------------------------------------------------------------------------------------------

class Env:
    def __init__(self, dut, rules: list[Rule]):
        p = params()
        self.dut = dut
        self.streams = p.get("STREAMS", 4)
        self.window = p.get("WINDOW", 64)
        self.depth = p.get("RECORD_DEPTH", 512)
        self.rules = rules
        self.model = Model(rules, self.streams, self.window)
        self.source = AxiStreamSource(TsBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.mon_in = BeatMonitor(dut, "s_axis", dut.clk, dut.rst, fields=("tlast",))
        self.mon_out = BeatMonitor(dut, "m_axis", dut.clk, dut.rst, fields=("tlast",))
        self.sink_paused = False
        apply_rules(dut, rules)

    async def reset(self):
        await start(self.dut)

    def gaps(self, r: random.Random, p: float):
        self.source.set_pause_generator(pauses(r, p) if p else None)
        if not p:
            self.source.pause = False

    def backpressure(self, r: random.Random, p: float):
        self.sink.set_pause_generator(pauses(r, p) if p else None)
        if not p:
            self.sink.pause = False
        self.sink_paused |= bool(p)

    async def send(self, r: random.Random, frames):
        for data, bad in frames:
            ts = r.getrandbits(64)
            self.model.add(data, bad, ts)
            f = AxiStreamFrame(data, tuser=[0] * (len(data) - 1) + [int(bad)], tdest=ts)
            await self.source.send(f)

    async def drain(self, records: int | None = None):
        await self.source.wait()
        want = len(self.model.records) if records is None else records

        async def wait_records():
            while len(self.mon_out.frames) < want:
                await RisingEdge(self.dut.clk)

        try:
            await with_timeout(wait_records(), 40_000, "ns")
        except SimTimeoutError:
            pass   # check() reports the missing records
        await ClockCycles(self.dut.clk, 40)

    def stats(self):
        dut = self.dut
        g = {k: int(getattr(dut, f"stat_{k}").value) for k in GLOBAL}
        seen = int(dut.stat_seen.value)
        per = {}
        for s in range(self.streams):
            v = {k: (int(getattr(dut, f"stat_{k}").value) >> (32 * s)) & MASK32 for k in PER_STREAM}
            per[s] = rec.Counters(seen=seen >> s & 1, **v)
        return g, per

    def received(self) -> list[rec.RxRecord]:
        out = []
        while not self.sink.empty():
            f = self.sink.recv_nowait()
            out.append(rec.decode(bytes(f.tdata)))
        return out

    def check(self, got: list[rec.RxRecord] | None = None, analyzer: bool = True):
        m = self.model
        got = self.received() if got is None else got
        assert len(got) == len(m.records), f"{len(got)} records, model {len(m.records)}"
        for k, (g, e) in enumerate(zip(got, m.records)):
            assert g == e, f"record {k} (frame {m.record_frames[k]}):\n got {g}\nwant {e}"
        g, per = self.stats()
        assert g == m.counts, f"counters {g}\nmodel {m.counts}"
        assert g["frames"] == sum(g[k] for k in OUTCOMES) + g["records"] + g["record_drops"]
        for s in range(self.streams):
            assert per[s] == m.win.counters(s), f"stream {s}: {per[s]}\nmodel {m.win.counters(s)}"
        # Latency: tlast beat -> record valid.
        lat = [self.mon_out.frames[k].first_valid - self.mon_in.frames[i].last_beat
               for k, i in enumerate(m.record_frames)]
        if self.sink_paused:
            assert min(lat) >= LATENCY, min(lat)
        else:
            assert set(lat) == {LATENCY}, sorted(set(lat))
        if analyzer:
            self.check_analyzer(got, per)
        return got, per

    def check_analyzer(self, got, per):
        """The per-stream counters equal fastpath.ptrain.analyze's figures on the same records
        (for streams where no frame fell behind the window)."""
        res = analyze.analyze(rec.records(got))
        checked = 0
        for st in res["streams"]:
            s = st["stream"]
            if s >= self.streams or per[s].late:
                continue
            m, c = st["summary"], per[s]
            assert (m["received"], m["duplicates"], m["reordered"], m["frames_expected"], m["lost"]) == \
                (c.unique, c.duplicates, c.reordered, c.frames_expected, c.lost_trains), (s, m, c)
            seqs = analyze._unwrap(r.seq for r in rec.records(got) if r.stream == s)
            assert (min(seqs) & MASK32, max(seqs) & MASK32) == (c.seq_first, c.seq_highest)
            assert c.lost == max(seqs) - min(seqs) + 1 - c.unique
            checked += 1
        assert checked


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

def scale() -> int:
    """Frames per stream: fewer at 8 bits (8 times the cycles per frame)."""
    return 24 if params().get("DATA_WIDTH", 8) == 8 else 60


@cocotb.test()
async def mixed_gaps_backpressure(dut):
    """Everything at once: random gaps between and inside input frames, random sink backpressure."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    env.gaps(r, 0.2)
    env.backpressure(r, 0.4)
    await env.send(r, traffic(r, scale(), 3 * scale()))
    await env.drain()
    covered(env, *env.check())


def covered(env, got, per):
    """Every outcome, flag and per-stream figure of the mixed runs happened at least once."""
    g, _ = env.stats()
    dut_log = env.dut._log
    dut_log.info("counters %s", g)
    dut_log.info("streams %s", {s: (c.received, c.unique, c.duplicates, c.reordered, c.lost_trains)
                                for s, c in per.items()})
    assert all(g[k] for k in OUTCOMES + ("records", "bad_fcs", "untracked")), g
    for k in ("duplicates", "reordered", "lost_trains"):
        assert sum(getattr(c, k) for c in per.values()), (k, per)
    assert any(x.dup for x in got) and any(x.reordered for x in got) and any(x.bad for x in got)
    assert any(x.train_len == 0 for x in got) and any(x.train_len for x in got), "compact and full records"


@cocotb.test()
async def mixed_back_to_back(dut):
    """The same mix back to back (no gap at all between frames: tighter than the minimum IFG),
    sink always ready: every record at the stated latency."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    await env.send(r, traffic(r, scale(), 3 * scale()))
    await env.drain()
    covered(env, *env.check())


@cocotb.test()
async def line_rate_minimum_frames(dut):
    """84-byte IPv4 tester frames back to back, each followed (every 3rd) by a 1..8-byte runt: a
    record per frame time (11 cycles at 64 bits), none lost, every record at the stated latency."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    frames = []
    n = 40 if params().get("DATA_WIDTH", 8) == 8 else 150
    for i in range(n):
        frames.append((tframe(r, "v4", i, 0, i, n, 0, size=84), False))
        if i % 3 == 2:
            frames.append((bytes(r.getrandbits(8) for _ in range(r.randint(1, 8))), False))
    await env.send(r, frames)
    await env.drain()
    got, per = env.check()
    assert per[0].unique == n and per[0].lost == 0 and env.stats()[0]["record_drops"] == 0
    gaps = [b.first_valid - a.first_valid for a, b in zip(env.mon_out.frames, env.mon_out.frames[1:])]
    assert min(gaps) >= (11 if params().get("DATA_WIDTH", 8) == 64 else 84)


@cocotb.test()
async def line_rate_60_byte_frames(dut):
    """60-byte IPv4 tester frames (compact header; 64 bytes with FCS) back to back, no gap at all:
    8 beats each at 64 bits (the 10G line rate sends one every 10.5 cycles), 60 at 8 bits; three
    trains in stream 1 and one in stream 2 interleaved, every fifth tagged (64 bytes): a record
    per frame, none dropped, each at the stated latency, the counters exact."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    n = 40 if params().get("DATA_WIDTH", 8) == 8 else 200
    frames = []
    for i in range(n):
        s, k = (2, i // 4) if i % 4 == 3 else (1, i - i // 4)
        tl = n if s == 2 else -(-(n - n // 4) // 3)
        hdr = "v4_tag" if i % 5 == 4 else "v4"
        size = SEL[hdr].min_size
        frames.append((tframe(r, hdr, 1000 * s + k, 0, k % tl, tl, s, size=size), False))
    await env.send(r, frames)
    await env.drain()
    got, per = env.check()
    assert len(got) == n and all(x.train_len == 0 for x in got)
    assert env.stats()[0]["record_drops"] == 0 and per[1].lost == per[2].lost == 0
    gaps = [b.first_valid - a.first_valid for a, b in zip(env.mon_out.frames, env.mon_out.frames[1:])]
    assert min(gaps) == (8 if params().get("DATA_WIDTH", 8) == 64 else 60), sorted(set(gaps))


@cocotb.test()
async def counter_timing(dut):
    """The counters change the stated number of cycles after the frame's tlast beat."""
    r = rng()
    env = Env(dut, std_rules())
    seen = {}

    def sample(cycle):
        for name, sig in (("frames", dut.stat_frames), ("records", dut.stat_records),
                          ("received", dut.stat_received)):
            if name not in seen and uint(sig) & MASK32:
                seen[name] = cycle
    env.mon_in.every_cycle(sample)
    await env.reset()
    await env.send(r, [(tframe(r, "v4", 7, 0, 0, 1, 0), False)])
    await env.drain()
    env.check()
    end = env.mon_in.frames[0].last_beat
    assert {k: c - end for k, c in seen.items()} == \
        {"frames": COUNT_FRAME, "records": COUNT_STREAM, "received": COUNT_STREAM}, seen


@cocotb.test()
async def window_late_and_wrap(dut):
    """Frames WINDOW or more behind the highest (late: unique and reordered, not checked for
    duplication, a late copy of a received frame included), a stream across the 2^32 wrap, and
    a jump ahead of more than the window."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    w = env.window
    plan0 = stream_plan(r, 0, 2 * w + 20, MASK32 - w, impair=False)   # across the wrap
    late = plan0.pop(5)
    plan0.insert(w + 10, late)                                          # w + 4 behind: late
    plan0.insert(w + 30, plan0[3])                                      # a late copy
    plan0.insert(w + 31, plan0[w + 25])                                 # an in-window copy
    plan1 = stream_plan(r, 1, 30, 1000, impair=False)
    plan1 += [((1000 + 30 + 3 * w + k) & MASK32, 77, k, 4) for k in range(4)]   # far ahead
    frames = []
    for s, plan in ((0, plan0), (1, plan1)):
        frames.append([(tframe(r, "v4", seq, tr, i, tl, s, size=84 + r.randrange(16)), False)
                       for seq, tr, i, tl in plan])
    await env.send(r, interleave(r, frames))
    await env.drain()
    got, per = env.check(analyzer=False)
    assert per[0].late == 2 and per[0].duplicates == 1 and per[1].late == 0
    # Stream 1 (nothing late): the analyser agrees.
    res = {s["stream"]: s["summary"] for s in analyze.analyze(rec.records(got))["streams"]}
    assert (res[1]["received"], res[1]["lost"], res[1]["duplicates"], res[1]["reordered"]) == \
        (per[1].unique, per[1].lost_trains, per[1].duplicates, per[1].reordered)


@cocotb.test()
async def random_rules(dut):
    """Random rules (masked values taken from the frames' own fields, random masks, some rules
    disabled) over every kind of frame: the filter against the model."""
    r = rng()
    pool = traffic(r, 6, 30, bad_p=0.0)
    nrules = len(std_rules())
    rules = []
    for _ in range(nrules):
        have, vals = frame_fields(r.choice(pool)[0])
        terms = {}
        for f, (w, need) in RULE_FIELDS.items():
            if need in have and r.random() < 0.3:
                mask = r.choice([(1 << w) - 1, r.getrandbits(w)])
                terms[f] = (vals[f], mask)
        rules.append(Rule(en=r.random() < 0.8, **terms))
    env = Env(dut, rules)
    await env.reset()
    env.gaps(r, 0.1)
    await env.send(r, pool)
    await env.drain()
    env.check(analyzer=False)


@cocotb.test()
async def record_fifo_full(dut):
    """The sink stalls: the FIFO takes RECORD_DEPTH records, every further one is dropped and
    counted; the records kept are the first ones, in order."""
    r = rng()
    env = Env(dut, std_rules())
    await env.reset()
    env.sink.pause = True
    keep = env.depth
    n = keep + 12
    await env.send(r, [(tframe(r, "v6", i, 0, i, n, 1, size=104 + r.randrange(40)), False) for i in range(n)])
    await env.source.wait()
    await ClockCycles(dut.clk, 40)
    g, _ = env.stats()
    assert (g["records"], g["record_drops"]) == (keep, n - keep), g
    env.sink.pause = False
    await ClockCycles(dut.clk, 4 * keep + 20)
    got = env.received()
    assert got == env.model.records[:keep]


PARAMS = [
    dict(DATA_WIDTH=8, RULES=4, STREAMS=4, WINDOW=64, RECORD_DEPTH=32),
    dict(DATA_WIDTH=64, RULES=4, STREAMS=4, WINDOW=64, RECORD_DEPTH=32),
]


@pytest.mark.parametrize("parameters", PARAMS, ids=lambda p: f"w{p['DATA_WIDTH']}")
def test_ptrain_rx(parameters):
    runner.run("fp_ptrain_rx", __name__, parameters)
