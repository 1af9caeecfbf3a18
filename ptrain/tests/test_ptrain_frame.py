"""Tester frames (fastpath.ptrain.frame): the description's layout, build/parse round trips with
scapy's view of the outer headers, the UDP checksum kept valid by csum_adj, Wireshark's pktgen
dissector recognising the frames (when tshark is installed), foreign frames ignored and broken
tester frames raising Malformed with the right reason."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from fastpath import formats
from fastpath.ptrain import capture as cap
from fastpath.ptrain import frame as fr

T0 = (1_700_000_000_123_456_789 << 16) | 0x4321   # a Unix-time fp_time (full width) with a fraction
VARIANTS = [fr.Headers(), fr.Headers(vlan=100, pcp=5), fr.Headers(ipv6=True), fr.Headers(ipv6=True, vlan=7)]


def _scapy(data: bytes):
    from scapy.layers.l2 import Ether
    return Ether(data)


def test_the_description_matches_linux_pktgen_and_the_docs():
    f = formats.load("ptrain")
    pg = f.layout("pktgen")
    assert [(x.name, x.offset, x.nbytes) for x in pg.fields] == \
        [("magic", 0, 4), ("seq", 4, 4), ("tv_sec", 8, 4), ("tv_usec", 12, 4)]   # struct pktgen_hdr
    t = f.layout("tester")
    assert t.length == fr.HEADER_LEN == 42
    assert t.field("tx_time").offset % 2 == 0 and t.field("csum_adj").offset % 2 == 0
    assert f.const["magic"] == 0xBE9BE955 and f.const["udp_port"] == 9
    assert f.const["min_frame_ipv4"] == fr.Headers().min_frame == 84
    assert f.const["min_frame_ipv6"] == fr.Headers(ipv6=True).min_frame == 104
    assert f.const["wire_overhead"] == 24 and fr.wire_bytes(1514) == 1538


@pytest.mark.parametrize("headers", VARIANTS, ids=["ipv4", "ipv4-vlan", "ipv6", "ipv6-vlan"])
@pytest.mark.parametrize("size", [None, 300, 1514])
def test_build_parse_round_trip(headers, size):
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Dot1Q

    size = size or headers.min_frame
    data = fr.build(size, 0xFFFFFFFE, 77, 5, 9, T0, stream=3, flags=fr.FLAG_LAST | fr.FLAG_TX_HW, headers=headers)
    assert len(data) == size
    p = _scapy(data)
    assert p.dst == headers.dst_mac and p.src == headers.src_mac
    if headers.vlan is not None:
        assert p[Dot1Q].vlan == headers.vlan and p[Dot1Q].prio == headers.pcp
    ip = p[IPv6] if headers.ipv6 else p[IP]
    assert (ip.src, ip.dst) == (("2001:db8::1", "2001:db8::2") if headers.ipv6 else ("192.0.2.1", "198.51.100.1"))
    u = p[UDP]
    assert (u.sport, u.dport, u.len) == (9, 9, size - headers.length + 8)
    sent = u.chksum
    del u.chksum
    assert _scapy(bytes(p))[UDP].chksum == sent != 0, "the UDP checksum is valid as sent"
    got = fr.parse(data)
    assert got == fr.TesterFrame(seq=0xFFFFFFFE, stream=3, train=77, index=5, train_len=9,
                                 tx_time=T0 & (2**64 - 1), tv_sec=1_700_000_000, tv_usec=123_456,
                                 flags=fr.FLAG_LAST | fr.FLAG_TX_HW, frame_len=size, size=size,
                                 ipv6=headers.ipv6, vlan=headers.vlan)
    assert bytes(u.payload)[:4] == b"\xbe\x9b\xe9\x55"


@pytest.mark.parametrize("headers", VARIANTS[1:3], ids=["ipv4-vlan", "ipv6"])
def test_csum_adj_keeps_the_generators_checksum(headers):
    """The checksum computed with the time fields at zero (the generator) stays valid after the
    TX MAC writes them with csum_adj: zeroing them again leaves a frame with the same checksum."""
    from scapy.layers.inet import UDP

    for tx in (0, T0, 2**64 - 1, (2**48 - 1) << 16, 0x0123_4567_89AB_CDEF << 3):
        data = bytearray(fr.build(500, 1, 2, 3, 4, tx, headers=headers))
        p = headers.length
        for name in ("tv_sec", "tv_usec", "tx_time", "csum_adj"):
            f = fr.TESTER.field(name)
            data[p + f.offset:p + f.offset + f.nbytes] = bytes(f.nbytes)
        q = _scapy(bytes(data))
        sent = q[UDP].chksum
        del q[UDP].chksum
        assert _scapy(bytes(q))[UDP].chksum == sent


def test_pktgen_time_is_the_tx_time_truncated_to_the_microsecond():
    ns = 1_234_567_890_123_456_789
    for frac in (0, 1, 0xFFFF):
        t = (ns << 16) | frac
        assert fr.pktgen_time(t) == ((ns // 10**9) & 0xFFFFFFFF, 123_456)
        sec, usec = fr.pktgen_time(t)
        assert fr.time_consistent(t & (2**64 - 1), sec, usec)       # against the 64-bit field
        assert not fr.time_consistent(t & (2**64 - 1), sec, (usec + 1) % 10**6)
        assert not fr.time_consistent(t, sec, 10**6)
    data = fr.build(100, 0, 0, 0, 1, (ns << 16))
    got = fr.parse(data)
    assert got.tx_time == (ns << 16) & (2**64 - 1) and got.tv_sec == (ns // 10**9) & 0xFFFFFFFF


def _foreign() -> list[bytes]:
    from scapy.layers.inet import IP, TCP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import ARP, Ether
    from scapy.packet import Raw

    e = Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    magic = bytes.fromhex("be9be955")
    linux = magic + bytes(range(12))  # a Linux pktgen header: seq, sec, usec; zero padding after
    return [bytes(x) for x in [
        e / ARP(),
        e / IP() / TCP() / Raw(magic + bytes(60)),
        e / IP() / UDP() / Raw(bytes(80)),
        e / IP() / UDP(dport=9) / Raw(linux + bytes(60)),          # Linux pktgen: version 0
        e / IP() / UDP(dport=9) / Raw(linux[:16] + bytes(2)),      # Linux pktgen, 60-byte frame
        e / IPv6() / UDP() / Raw(linux + bytes([0x20]) + bytes(60)),  # another tester version
        e / IP(frag=10) / Raw(magic + bytes(60)),                  # a later fragment
    ]] + [b"", b"\x02" * 13]


def test_foreign_frames_are_none():
    for data in _foreign():
        assert fr.parse(data) is None, data.hex()


def _patch(data: bytes, headers: fr.Headers, **fields) -> bytes:
    """Rewrite tester fields and clear the UDP checksum (0: not checked), to craft bad frames."""
    out = bytearray(data)
    p = headers.length
    for name, v in fields.items():
        f = fr.TESTER.field(name)
        out[p + f.offset:p + f.offset + f.nbytes] = v.to_bytes(f.nbytes, "big")
    out[p - 2:p] = bytes(2)
    return bytes(out)


@pytest.mark.parametrize("headers", VARIANTS, ids=["ipv4", "ipv4-vlan", "ipv6", "ipv6-vlan"])
def test_broken_tester_frames_are_malformed(headers):
    size = 400
    good = fr.build(size, 10, 1, 2, 5, T0, headers=headers)
    p = headers.length
    # Cut anywhere from the version byte to one byte short of the frame: truncated.
    for n in list(range(p + 17, p + fr.HEADER_LEN + 2)) + [size - 1]:
        with pytest.raises(fr.Malformed) as e:
            fr.parse(good[:n])
        assert e.value.reason == "truncated", n
    # Cut before the version byte, while the UDP length announces a tester header: truncated.
    for n in range(p + 4, p + 17):
        with pytest.raises(fr.Malformed, match="truncated"):
            fr.parse(good[:n])
    # A capture cut by its snap length after the tester header keeps the frame (wire length known).
    snap = fr.parse(good[:p + fr.HEADER_LEN], wire_len=size)
    assert snap is not None and snap.seq == 10 and snap.size == size
    with pytest.raises(fr.Malformed, match="truncated"):
        fr.parse(good[:p + fr.HEADER_LEN], wire_len=size - 1)
    flipped = bytearray(good)
    flipped[-1] ^= 0x01
    with pytest.raises(fr.Malformed, match="bad_checksum"):
        fr.parse(bytes(flipped))
    with pytest.raises(fr.Malformed, match="bad_fields"):
        fr.parse(_patch(good, headers, index=5))
    with pytest.raises(fr.Malformed, match="bad_fields"):
        fr.parse(_patch(good, headers, train_len=0, index=0))
    with pytest.raises(fr.Malformed, match="time_mismatch"):
        fr.parse(_patch(good, headers, tv_usec=(fr.pktgen_time(T0)[1] + 2) % 10**6))
    with pytest.raises(fr.Malformed, match="time_mismatch"):
        fr.parse(_patch(good, headers, tv_usec=10**6))
    longer = bytearray(_patch(good, headers))
    longer[p - 4:p - 2] = (size - p + 8 + 2).to_bytes(2, "big")      # UDP length != IP's
    with pytest.raises(fr.Malformed, match="bad_length"):
        fr.parse(bytes(longer))
    assert fr.parse(_patch(good, headers)).seq == 10, "checksum 0: not checked, otherwise fine"
    if not headers.ipv6:
        mf = bytearray(good)
        l3 = p - 8 - 20
        mf[l3 + 6] |= 0x20
        with pytest.raises(fr.Malformed, match="fragment"):
            fr.parse(bytes(mf))


def test_build_refuses_what_the_format_cannot_carry():
    with pytest.raises(ValueError, match="60..65535"):
        fr.build(59, 0, 0, 0, 1, 0)
    with pytest.raises(ValueError, match="64..65535"):
        fr.build(63, 0, 0, 0, 1, 0, headers=fr.Headers(vlan=1))
    with pytest.raises(ValueError, match="104..65535"):
        fr.build(103, 0, 0, 0, 1, 0, headers=fr.Headers(ipv6=True))
    with pytest.raises(ValueError, match="below 65536"):
        fr.build(60, 0, 0, 65536, 65537, 0)
    with pytest.raises(ValueError, match="108..65535"):
        fr.build(104, 0, 0, 0, 1, 0, headers=fr.Headers(ipv6=True, vlan=1))
    with pytest.raises(ValueError, match="not in a train"):
        fr.build(100, 0, 0, 3, 3, 0)


needs_tshark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")


def _tshark_fields(tmp_path, frames: list, fields: list[str], *options: str) -> list[list[str]]:
    """The frames in a pcapng, read back by tshark with the pktgen heuristic on: one row of the
    fields per frame."""
    path = tmp_path / "t.pcapng"
    cap.write_pcapng(path, frames)
    out = subprocess.run(["tshark", "-n", "-r", str(path), "--enable-heuristic", "pktgen_udp", *options,
                          "-T", "fields", *[x for f in fields for x in ("-e", f)]],
                         capture_output=True, text=True, timeout=60, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return [line.split("\t") for line in out.stdout.splitlines()]


@needs_tshark
def test_wireshark_recognises_the_pktgen_header(tmp_path):
    """Wireshark's pktgen dissector is a heuristic UDP dissector (pktgen_udp, on by default; no
    port registration, so `-d udp.port==9,pktgen` does not apply): it takes the frames by their
    magic and shows the same sequence number and seconds/microseconds; it also finds the UDP
    checksum good (status 1)."""
    frames = [cap.Captured(fr.build(200 + 10 * i, 1000 + i, 0, i, 4, T0 + i * (1000 << 16), headers=h), T0, 0)
              for i, h in enumerate(VARIANTS)]
    rows = _tshark_fields(tmp_path, frames, ["pktgen.magic", "pktgen.seqnum", "pktgen.tvsec", "pktgen.tvusec",
                                             "udp.checksum.status"], "-o", "udp.check_checksum:TRUE")
    assert len(rows) == 4
    for i, row in enumerate(rows):
        sec, usec = fr.pktgen_time(T0 + i * (1000 << 16))
        assert row == ["0xbe9be955", str(1000 + i), str(sec), str(usec), "1"], row


@needs_tshark
def test_wireshark_recognises_compact_frames(tmp_path):
    """A compact frame (64 bytes with FCS) is still a pktgen frame for Wireshark, with its
    sequence number; the seconds/microseconds it shows are tx_time's two 32-bit halves
    (meaningless); the IPv4 identification is the index."""
    frames = [cap.Captured(fr.build(60 + 4 * (h.vlan is not None), 77 + i, 0, i, 2, T0, headers=h), T0, 0)
              for i, h in enumerate(VARIANTS[:2])]
    rows = _tshark_fields(tmp_path, frames, ["pktgen.magic", "pktgen.seqnum", "pktgen.tvsec", "pktgen.tvusec",
                                             "ip.id"])
    tx = T0 & (2**64 - 1)
    assert [r[:4] for r in rows] == [["0xbe9be955", str(77 + i), str(tx >> 32), str(tx & 0xFFFFFFFF)]
                                     for i in range(2)], rows
    assert [int(r[4], 16) for r in rows] == [0, 1]


COMPACT = [fr.Headers(), fr.Headers(vlan=100, pcp=5)]


def test_compact_layout_and_thresholds():
    f = formats.load("ptrain")
    c = f.layout("compact")
    assert [(x.name, x.offset, x.nbytes) for x in c.fields] == \
        [("magic", 0, 4), ("seq", 4, 4), ("tx_time", 8, 8), ("ver_flags", 16, 1), ("stream", 17, 1)]
    t = f.layout("tester")
    # version and stream where the full header has them: one version check for both
    assert (c.field("ver_flags").offset, c.field("stream").offset) == \
        (t.field("ver_flags").offset, t.field("stream").offset)
    assert fr.COMPACT_LEN == 18 and fr.MIN_FRAME_COMPACT == fr.Headers().min_size == 60
    assert fr.Headers(vlan=1).min_size == 64 and fr.Headers(ipv6=True).min_size == 104
    h = fr.Headers()
    assert [h.compact(n) for n in (60, 83, 84)] == [True, True, False]
    assert not fr.Headers(ipv6=True).compact(104) and fr.Headers(vlan=2).compact(87)
    assert f.const["version_compact"] == 2 and fr.COMPACT_TRAIN_MAX == 65536


@pytest.mark.parametrize("headers", COMPACT, ids=["ipv4", "ipv4-vlan"])
@pytest.mark.parametrize("extra", [0, 1, 23])
def test_compact_build_parse_round_trip(headers, extra):
    from scapy.layers.inet import IP, UDP

    size = headers.min_size + extra
    for seq, index in ((0xFFFFFFFE, 5), (3, 7), (70000, 65535)):
        data = fr.build(size, seq, 12345, index, index + 2, T0, stream=9, flags=fr.FLAG_TX_HW | fr.FLAG_SYNCED,
                        headers=headers)
        assert len(data) == size
        p = _scapy(data)
        ip = p[IP]
        assert ip.id == index and ip.flags == 0 and ip.len == size - headers.length + 28
        sent = ip.chksum
        del ip.chksum
        assert _scapy(bytes(p))[IP].chksum == sent, "the IPv4 header checksum follows the identification"
        assert p[UDP].chksum == 0 and p[UDP].len == size - headers.length + 8
        pay = bytes(p[UDP].payload)
        assert pay[:4] == b"\xbe\x9b\xe9\x55" and pay[16] == 0x20 | fr.FLAG_TX_HW | fr.FLAG_SYNCED
        assert pay[8:16] == (T0 & (2**64 - 1)).to_bytes(8, "big") and pay[18:] == bytes(extra)
        got = fr.parse(data)
        assert got == fr.TesterFrame(seq=seq, stream=9, train=(seq - index) & 0xFFFFFFFF, index=index,
                                     train_len=0, tx_time=T0 & (2**64 - 1), tv_sec=0, tv_usec=0,
                                     flags=fr.FLAG_TX_HW | fr.FLAG_SYNCED, frame_len=size, size=size,
                                     ipv6=False, vlan=headers.vlan, compact=True)
        # before the stamp: tx_time zero, nothing else differs (the MAC's plain 8-byte stamp)
        raw = fr.unstamped(size, seq, 12345, index, index + 2, stream=9, flags=fr.FLAG_TX_HW | fr.FLAG_SYNCED,
                           headers=headers)
        o = headers.length + fr.COMPACT.field("tx_time").offset
        assert raw == data[:o] + bytes(8) + data[o + 8:]


@pytest.mark.parametrize("headers", COMPACT, ids=["ipv4", "ipv4-vlan"])
def test_broken_compact_frames(headers):
    size = headers.min_size + 6
    good = fr.build(size, 10, 0, 2, 5, T0, headers=headers)
    p = headers.length
    l4, l3 = p - 8, p - 28
    for n in list(range(p + 17, p + fr.COMPACT_LEN)) + [size - 1]:
        with pytest.raises(fr.Malformed, match="truncated"):
            fr.parse(good[:n])
    for n in range(p + 4, p + 17):   # cut before the version, UDP length below a full header
        assert fr.parse(good[:n]) is None
    assert fr.parse(good[:p + fr.COMPACT_LEN], wire_len=size).size == size
    # a valid UDP checksum is checked and accepted, a wrong one is bad_checksum
    d = bytearray(good)
    pseudo = d[l3 + 12:l3 + 20] + bytes([0, 17]) + (size - l4).to_bytes(2, "big")
    d[l4 + 6:l4 + 8] = ((~fr.ones_sum(bytes(pseudo + d[l4:size]))) & 0xFFFF or 0xFFFF).to_bytes(2, "big")
    assert fr.parse(bytes(d)) == fr.parse(good)
    d[-1] ^= 1
    with pytest.raises(fr.Malformed, match="bad_checksum"):
        fr.parse(bytes(d))
    # UDP length below a compact header (IP length consistent), or unlike the IP length
    short = bytearray(good)
    short[l4 + 4:l4 + 6] = (25).to_bytes(2, "big")
    short[l3 + 2:l3 + 4] = (45).to_bytes(2, "big")
    with pytest.raises(fr.Malformed, match="bad_length"):
        fr.parse(bytes(short))
    off = bytearray(good)
    off[l4 + 4:l4 + 6] = (size - l4 + 1).to_bytes(2, "big")
    with pytest.raises(fr.Malformed, match="bad_length"):
        fr.parse(bytes(off))
    mf = bytearray(good)
    mf[l3 + 6] |= 0x20
    with pytest.raises(fr.Malformed, match="fragment"):
        fr.parse(bytes(mf))
    # the full header's version in a short frame: its header does not fit
    v1 = bytearray(good)
    v1[p + 16] = (fr.VERSION << 4) | 1
    with pytest.raises(fr.Malformed, match="truncated" if size < p + fr.HEADER_LEN else "bad_length"):
        fr.parse(bytes(v1))


def test_compact_version_over_ipv6_is_foreign():
    h = fr.Headers(ipv6=True)
    d = bytearray(fr.build(120, 1, 0, 0, 1, T0, headers=h))
    d[h.length + 16] = fr.VERSION_COMPACT << 4
    d[h.length - 2:h.length] = bytes(2)
    assert fr.parse(bytes(d)) is None
