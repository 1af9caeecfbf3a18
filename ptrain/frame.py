"""Tester frames: build them and parse them, by the one description in ptrain/rtl/ptrain.fmt.toml.

A tester frame is Ethernet [/ 802.1Q] / IPv4 or IPv6 / UDP, and at the start of the UDP payload
the tester header: the Linux pktgen header (magic 0xbe9be955, sequence number, seconds,
microseconds: Wireshark's pktgen dissector recognises it) followed by fastpath's fields (version
and flags, stream, sent length, train, index in train, train length, the full fp_time TX time and
a checksum adjustment). The generated table: ptrain/docs/formats/ptrain.md.

IPv4 frames shorter than the full header's minimum (84 bytes, 88 tagged) carry the 18-byte
compact header instead (`compact()`; from 60 bytes, 64 tagged: minimum Ethernet frames): magic,
sequence number, tx_time (the TX MAC's plain 8-byte stamp), version 2 and flags, stream; the UDP
checksum is 0; the index in the train is the IPv4 identification (so a compact train has at most
65,536 frames) and the train is identified by seq - index. `parse()` gives such a frame's train as
(seq - index) mod 2^32 and train_len 0 (unknown).

`build()` makes a frame as the planned RTL generator will: the UDP checksum is computed with the
time fields at zero, then the time fields are written (as the TX MAC will at the SFD) together
with `csum_adj`, which keeps the checksum valid. `parse()` returns a `TesterFrame`, None for a
foreign frame, or raises `Malformed` for a frame that is a tester frame but cannot be used
(truncated, inconsistent lengths, bad checksum, bad fields, TX times that disagree).

Sizes are frame lengths without FCS (what the MACs' client streams and most captures carry).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from fastpath import formats

FMT = formats.load("ptrain")
C = FMT.const
ETH = FMT.layout("eth")
ETH_VLAN = FMT.layout("eth_vlan")
IPV4 = FMT.layout("ipv4")
IPV6 = FMT.layout("ipv6")
UDP = FMT.layout("udp")
PKTGEN = FMT.layout("pktgen")
TESTER = FMT.layout("tester")
COMPACT = FMT.layout("compact")

MAGIC = C["magic"]
VERSION = C["version"]
VERSION_COMPACT = C["version_compact"]
FLAG_TX_HW = C["flag_tx_hw"]
FLAG_LAST = C["flag_last"]
FLAG_SYNCED = C["flag_synced"]
UDP_PORT = C["udp_port"]
WIRE_OVERHEAD = C["wire_overhead"]  # FCS 4 + preamble/SFD 8 + minimum IFG 12
HEADER_LEN = TESTER.length           # 42
COMPACT_LEN = COMPACT.length         # 18
MIN_FRAME_COMPACT = C["min_frame_compact"]   # 60
COMPACT_TRAIN_MAX = C["compact_train_max"]   # 65536
NS = 1 << 16                         # fp_time units per nanosecond (Q48.16)
SPAN_NS = 1 << 48                    # fp_time wraps every 2^48 ns

_TPIDS = (C["ethertype_vlan"], 0x88A8)  # 802.1Q, 802.1ad (a receiver skips up to two tags)
_OFF = {f.name: (f.offset, f.nbytes) for f in TESTER.fields}
_COFF = {f.name: (f.offset, f.nbytes) for f in COMPACT.fields}
MASK32 = 0xFFFFFFFF


class Malformed(ValueError):
    """A tester frame that cannot be used; `reason` is one of REASONS."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


REASONS = ("truncated", "bad_length", "bad_checksum", "bad_fields", "time_mismatch", "fragment")


@dataclass(frozen=True)
class Headers:
    """The outer headers of the frames of one stream."""
    src_mac: str = "02:00:00:00:00:01"
    dst_mac: str = "02:00:00:00:00:02"
    vlan: int | None = None          # VLAN ID of one 802.1Q tag, or None for no tag
    pcp: int = 0
    ipv6: bool = False
    src_ip: str | None = None        # default 192.0.2.1 / 2001:db8::1
    dst_ip: str | None = None        # default 198.51.100.1 / 2001:db8::2
    sport: int = UDP_PORT
    dport: int = UDP_PORT
    ttl: int = 64

    @property
    def length(self) -> int:
        """Bytes before the tester header: Ethernet [+ tag] + IP + UDP."""
        return (ETH_VLAN.length if self.vlan is not None else ETH.length) + \
            (IPV6.length if self.ipv6 else IPV4.length) + UDP.length

    @property
    def min_frame(self) -> int:
        """The shortest frame with the full tester header."""
        return self.length + HEADER_LEN

    @property
    def min_size(self) -> int:
        """The shortest tester frame: with the compact header over IPv4, the full one over IPv6."""
        return self.min_frame if self.ipv6 else self.length + COMPACT_LEN

    def compact(self, size: int) -> bool:
        """True when a frame of `size` bytes carries the compact header (IPv4, below min_frame)."""
        return not self.ipv6 and size < self.min_frame


@dataclass(frozen=True)
class TesterFrame:
    """What a received tester frame says (parse())."""
    seq: int
    stream: int
    train: int
    index: int
    train_len: int
    tx_time: int       # fp_time, 64 bits
    tv_sec: int        # 0 in a compact frame
    tv_usec: int       # 0 in a compact frame
    flags: int         # ver_flags[3:0]
    frame_len: int     # length as sent (field frame_len; a compact frame: size)
    size: int          # length as received, from the IP/UDP lengths, without FCS
    ipv6: bool
    vlan: int | None
    compact: bool = False   # the compact header: train = seq - index, index = IPv4 identification,
    #                         train_len 0 (unknown)


def wire_bytes(size: int) -> int:
    """Bytes a frame of `size` (without FCS) occupies on an Ethernet wire: + FCS, preamble, SFD, IFG."""
    return size + WIRE_OVERHEAD


def pktgen_time(tx_time: int) -> tuple[int, int]:
    """(tv_sec mod 2^32, tv_usec) of a TX time in fp_time units (any width: a full count since the
    epoch gives full seconds; a 64-bit fp_time gives its seconds modulo 2^48 ns)."""
    ns = tx_time >> 16
    return (ns // 1_000_000_000) & 0xFFFFFFFF, (ns % 1_000_000_000) // 1000


def time_consistent(tx_time: int, tv_sec: int, tv_usec: int) -> bool:
    """True when the pktgen seconds/microseconds are tx_time truncated to the microsecond (modulo
    the 2^48 ns span of fp_time)."""
    if tv_usec >= 1_000_000:
        return False
    coarse = tv_sec * 1_000_000_000 + tv_usec * 1000
    return ((tx_time >> 16) - coarse) % SPAN_NS < 1000


def ones_sum(data: bytes) -> int:
    """The ones'-complement sum of data as big-endian 16-bit words, modulo 0xFFFF (2^16 = 1 mod
    0xFFFF, so the number's remainder is the end-around-carry sum; 0xFFFF and 0 are both 0)."""
    if len(data) % 2:
        data += b"\0"
    return int.from_bytes(data, "big") % 0xFFFF


def csum_adj(tv_sec: int, tv_usec: int, tx_time: int) -> int:
    """The csum_adj that cancels the written time fields in the UDP checksum."""
    words = tv_sec.to_bytes(4, "big") + tv_usec.to_bytes(4, "big") + tx_time.to_bytes(8, "big")
    return (~ones_sum(words)) & 0xFFFF


def build(size: int, seq: int, train: int, index: int, train_len: int, tx_time: int, *,
          stream: int = 0, flags: int = 0, headers: Headers = Headers()) -> bytes:
    """A tester frame of `size` bytes (without FCS), made as the generator and TX MAC will: the
    UDP checksum over the frame with the time fields at zero, then, at the SFD, the time fields
    and csum_adj written.

    tx_time: the SFD's time in fp_time units (1/65536 ns); the frame carries its low 64 bits in
    tx_time and the same instant, in whole microseconds, in the pktgen seconds/microseconds.

    IPv4 frames below headers.min_frame carry the compact header (`compact()`): `train` and
    `train_len` are not in the frame (a receiver sees train seq - index), the index is the IPv4
    identification (below COMPACT_TRAIN_MAX), the UDP checksum 0, and the TX MAC writes tx_time
    alone (its plain 8-byte stamp).
    """
    if size < headers.min_size or size > 0xFFFF:
        raise ValueError(f"a tester frame with these headers is {headers.min_size}..65535 bytes "
                         f"(without FCS), asked {size}")
    if not 1 <= train_len <= 0xFFFFFFFF or not 0 <= index < train_len:
        raise ValueError(f"index {index} is not in a train of {train_len}")
    if not 0 <= flags <= 0xF or tx_time < 0:
        raise ValueError("flags are 4 bits; tx_time is non-negative")
    if headers.compact(size):
        return _build_compact(size, seq, index, tx_time, stream=stream, flags=flags, headers=headers)
    frame = bytearray(_template(headers, size))
    p = headers.length
    frame[p:p + HEADER_LEN] = TESTER.pack(
        magic=MAGIC, seq=seq, ver_flags=(VERSION << 4) | flags, stream=stream, frame_len=size,
        train=train, index=index, train_len=train_len)
    # The generator: the UDP checksum with the time fields and csum_adj at zero.
    l4 = p - UDP.length
    if headers.ipv6:
        l3 = l4 - IPV6.length
        pseudo = frame[l3 + 8:l3 + 40] + (size - l4).to_bytes(4, "big") + bytes([0, 0, 0, C["ip_proto_udp"]])
    else:
        l3 = l4 - IPV4.length
        pseudo = frame[l3 + 12:l3 + 20] + bytes([0, C["ip_proto_udp"]]) + (size - l4).to_bytes(2, "big")
    frame[l4 + 6:l4 + 8] = bytes(2)
    cks = (~ones_sum(bytes(pseudo + frame[l4:]))) & 0xFFFF
    frame[l4 + 6:l4 + 8] = (cks or 0xFFFF).to_bytes(2, "big")
    # The TX MAC at the SFD: the time fields and the checksum adjustment.
    tx64 = tx_time & ((1 << 64) - 1)
    tv_sec, tv_usec = pktgen_time(tx_time)
    for name, value in (("tv_sec", tv_sec), ("tv_usec", tv_usec), ("tx_time", tx64),
                        ("csum_adj", csum_adj(tv_sec, tv_usec, tx64))):
        off, n = _OFF[name]
        frame[p + off:p + off + n] = value.to_bytes(n, "big")
    return bytes(frame)


def _build_compact(size: int, seq: int, index: int, tx_time: int, *, stream: int, flags: int,
                   headers: Headers) -> bytes:
    """A frame with the compact header (build())."""
    from scapy.utils import checksum     # the IPv4 header checksum as Linux folds it
    if index >= COMPACT_TRAIN_MAX:
        raise ValueError(f"a compact frame's index is below {COMPACT_TRAIN_MAX} (the IPv4 "
                         f"identification), asked {index}")
    frame = bytearray(_template(headers, size))
    p = headers.length
    l3 = p - UDP.length - IPV4.length
    # The IPv4 identification is the index; the header checksum follows it.
    frame[l3 + 4:l3 + 6] = index.to_bytes(2, "big")
    frame[l3 + 10:l3 + 12] = bytes(2)
    frame[l3 + 10:l3 + 12] = checksum(bytes(frame[l3:l3 + IPV4.length])).to_bytes(2, "big")
    # UDP checksum 0 (none); the TX MAC writes tx_time at the SFD.
    frame[p:p + COMPACT_LEN] = COMPACT.pack(
        magic=MAGIC, seq=seq, tx_time=tx_time & ((1 << 64) - 1),
        ver_flags=(VERSION_COMPACT << 4) | flags, stream=stream)
    return bytes(frame)


def unstamped(size: int, seq: int, train: int, index: int, train_len: int, *, stream: int = 0,
              flags: int = 0, headers: Headers = Headers()) -> bytes:
    """The frame as the generator sends it, before the TX MAC's stamp: the time fields and
    csum_adj at zero (build() at time 0 writes the adjustment of four zero fields, 0xFFFF); a
    compact frame's tx_time at zero."""
    if headers.compact(size):
        return build(size, seq, train, index, train_len, 0, stream=stream, flags=flags, headers=headers)
    frame = bytearray(build(size, seq, train, index, train_len, 0, stream=stream, flags=flags, headers=headers))
    off, n = _OFF["csum_adj"]
    frame[headers.length + off:headers.length + off + n] = bytes(n)
    return bytes(frame)


@lru_cache(maxsize=64)
def _template(headers: Headers, size: int) -> bytes:
    """The outer headers of a frame of `size` (scapy), with a zero payload and UDP checksum."""
    from scapy.layers.inet import IP, UDP as ScapyUDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Dot1Q, Ether
    from scapy.packet import Raw

    l2 = Ether(src=headers.src_mac, dst=headers.dst_mac)
    if headers.vlan is not None:
        l2 = l2 / Dot1Q(vlan=headers.vlan, prio=headers.pcp)
    if headers.ipv6:
        l3 = IPv6(src=headers.src_ip or "2001:db8::1", dst=headers.dst_ip or "2001:db8::2", hlim=headers.ttl)
    else:
        l3 = IP(src=headers.src_ip or "192.0.2.1", dst=headers.dst_ip or "198.51.100.1", ttl=headers.ttl)
    out = bytes(l2 / l3 / ScapyUDP(sport=headers.sport, dport=headers.dport, chksum=0)
                / Raw(bytes(size - headers.length)))
    assert len(out) == size
    return out


def _u16(d: bytes, o: int) -> int:
    return (d[o] << 8) | d[o + 1]


def parse(data: bytes, wire_len: int | None = None) -> TesterFrame | None:
    """The tester fields of a received frame; None when it is not a tester frame (not Ethernet /
    IP / UDP with the pktgen magic, or a pktgen frame of another version, e.g. from Linux pktgen;
    version VERSION_COMPACT is a compact frame over IPv4, foreign over IPv6).

    wire_len: the frame's length on the wire as the capture records it (default len(data)); a
    capture cut by its snap length keeps a usable frame as long as the tester header was captured.
    Raises Malformed for a tester frame that cannot be used.
    """
    data = bytes(data)
    wl = len(data) if wire_len is None else wire_len
    n = len(data)
    if n < ETH.length:
        return None
    off = 12
    etype = _u16(data, off)
    vlan = None
    for _ in range(2):
        if etype not in _TPIDS:
            break
        if n < off + 6:
            return None
        if vlan is None:
            vlan = _u16(data, off + 2) & 0xFFF
        off += 4
        etype = _u16(data, off)
    l3 = off + 2
    fragment = False
    if etype == C["ethertype_ipv4"]:
        if n < l3 + IPV4.length or data[l3] >> 4 != 4 or data[l3] & 0xF < 5 or data[l3 + 9] != C["ip_proto_udp"]:
            return None
        if _u16(data, l3 + 6) & 0x1FFF:  # a later fragment: no UDP header
            return None
        fragment = bool(_u16(data, l3 + 6) & 0x2000)
        l4 = l3 + (data[l3] & 0xF) * 4
        ip_len = _u16(data, l3 + 2) - (l4 - l3)   # UDP header + payload, from the IP header
        ipv6 = False
    elif etype == C["ethertype_ipv6"]:
        if n < l3 + IPV6.length or data[l3] >> 4 != 6 or data[l3 + 6] != C["ip_proto_udp"]:
            return None
        l4 = l3 + IPV6.length
        ip_len = _u16(data, l3 + 4)
        ipv6 = True
    else:
        return None
    p = l4 + UDP.length
    if n < p + 4 or int.from_bytes(data[p:p + 4], "big") != MAGIC:
        return None
    udp_len = _u16(data, l4 + 4)
    if n < p + 17:  # the version byte is not in the capture
        if udp_len - UDP.length >= HEADER_LEN:
            raise Malformed("truncated", f"{n} bytes captured, the tester header ends at {p + HEADER_LEN}")
        return None  # a short Linux pktgen frame
    version = data[p + _OFF["ver_flags"][0]] >> 4
    compact = version == VERSION_COMPACT and not ipv6
    if version != VERSION and not compact:
        return None
    if fragment:
        raise Malformed("fragment", "an IPv4 fragment (the tester never fragments)")
    hlen = COMPACT_LEN if compact else HEADER_LEN
    if n < p + hlen:
        raise Malformed("truncated", f"{n} bytes captured, the tester header ends at {p + hlen}")
    if udp_len != ip_len or udp_len < UDP.length + hlen:
        raise Malformed("bad_length", f"UDP length {udp_len}, IP says {ip_len}")
    size = l4 + udp_len
    if wl < size:
        raise Malformed("truncated", f"{wl} bytes on the wire, the IP/UDP lengths say {size}")
    if n >= size and _u16(data, l4 + 6):
        if ipv6:
            pseudo = data[l3 + 8:l3 + 40] + udp_len.to_bytes(4, "big") + bytes(3) + bytes([C["ip_proto_udp"]])
        else:
            pseudo = data[l3 + 12:l3 + 20] + bytes([0, C["ip_proto_udp"]]) + udp_len.to_bytes(2, "big")
        if ones_sum(pseudo + data[l4:size]) != 0:
            raise Malformed("bad_checksum", "UDP checksum")
    if compact:
        c = COMPACT.unpack(data[p:p + COMPACT_LEN])
        index = _u16(data, l3 + 4)
        return TesterFrame(seq=c["seq"], stream=c["stream"], train=(c["seq"] - index) & MASK32,
                           index=index, train_len=0, tx_time=c["tx_time"], tv_sec=0, tv_usec=0,
                           flags=c["ver_flags"] & 0xF, frame_len=size, size=size, ipv6=False,
                           vlan=vlan, compact=True)
    f = TESTER.unpack(data[p:p + HEADER_LEN])
    if f["train_len"] < 1 or f["index"] >= f["train_len"]:
        raise Malformed("bad_fields", f"index {f['index']} in a train of {f['train_len']}")
    if not time_consistent(f["tx_time"], f["tv_sec"], f["tv_usec"]):
        raise Malformed("time_mismatch", "the pktgen seconds/microseconds disagree with tx_time")
    return TesterFrame(seq=f["seq"], stream=f["stream"], train=f["train"], index=f["index"],
                       train_len=f["train_len"], tx_time=f["tx_time"], tv_sec=f["tv_sec"],
                       tv_usec=f["tv_usec"], flags=f["ver_flags"] & 0xF, frame_len=f["frame_len"],
                       size=size, ipv6=ipv6, vlan=vlan)
