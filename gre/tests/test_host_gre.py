"""host/gre: the GRE software baseline (parser, forwarder) against a Python reference decap.

* the C code builds warning-free; its unit tests pass under ASan + UBSan;
* the fuzz driver runs a bounded number of frames under ASan + UBSan (and libFuzzer, briefly,
  when clang is installed);
* the C parser (build/host/libgre_parse.so, through ctypes) gives the same verdict and the same
  output bytes as `ref_decap` below on structured, mutated and random frames and on a real GRE
  capture;
* end to end, as root with network namespaces: frames sent into the forwarder over veth come out
  of the other veth byte for byte as `ref_decap` says, in every forwarder mode.
"""
from __future__ import annotations

import contextlib
import ctypes
import random
import socket
import struct
import subprocess
import time

import pytest

from fastpath.gre.model import verdict_names
from fastpath.host import BUILD, make_or_skip as make, require_libfuzzer
from fastpath.paths import VECTORS


# ---- the Python reference decap (written from the spec in gre/host/gre_parse.h) ----------------

# The C parser's verdicts, indexed by code: the parse_* codes of gre/rtl/gre_verdict.fmt.toml.
VERDICTS = list(verdict_names("parse"))


def inet_csum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ref_decap(f: bytes) -> tuple[str, bytes]:
    """(verdict, output frame) for one Ethernet frame without FCS."""
    n = len(f)

    def be16(i: int) -> int:
        return (f[i] << 8) | f[i + 1]

    def ip_fits(l3: int, size: int) -> bool:  # the IP packet ends at the frame's end, or in padding
        return l3 + size == n or (l3 + size < n <= 60 + 4 * tags)

    if n < 14:
        return "pass_short", f
    off, tags = 12, 0
    etype = be16(12)
    while etype in (0x8100, 0x88A8) and tags < 2:
        off, tags = off + 4, tags + 1
        if n < off + 2:
            return "pass_short", f
        etype = be16(off)
    l3 = off + 2
    if etype == 0x0800:
        if n < l3 + 20:
            return "pass_short", f
        ihl = (f[l3] & 0xF) * 4
        if f[l3] >> 4 != 4 or ihl < 20:
            return "pass_bad_ip", f
        if n < l3 + ihl:
            return "pass_short", f
        if inet_csum(f[l3:l3 + ihl]) != 0:
            return "pass_csum", f
        total = be16(l3 + 2)
        if total < ihl or not ip_fits(l3, total):
            return "pass_length", f
        if be16(l3 + 6) & 0x3FFF:
            return "pass_fragment", f
        if f[l3 + 9] != 47:
            return "pass_not_gre", f
        gre, end = l3 + ihl, l3 + total
    elif etype == 0x86DD:
        if n < l3 + 40:
            return "pass_short", f
        if f[l3] >> 4 != 6:
            return "pass_bad_ip", f
        if not ip_fits(l3, 40 + be16(l3 + 4)):
            return "pass_length", f
        if f[l3 + 6] != 47:
            return "pass_not_gre", f
        gre, end = l3 + 40, l3 + 40 + be16(l3 + 4)
    else:
        return "pass_not_ip", f
    if end < gre + 4:
        return "pass_short", f
    flags, proto = be16(gre), be16(gre + 2)
    if flags & 0x0007:
        return "pass_gre_version", f
    if flags & 0x4FF8:
        return "pass_gre_flags", f
    hlen = 4 + 4 * bin(flags & 0xB000).count("1")
    if end < gre + hlen:
        return "pass_short", f
    inner = f[gre + hlen:end]
    if proto == 0x6558:
        return ("decap_eth", inner) if len(inner) >= 14 else ("pass_short", f)
    if proto in (0x0800, 0x86DD):
        if not inner:
            return "pass_short", f
        return ("decap_ipv4" if proto == 0x0800 else "decap_ipv6"), \
            f[:l3 - 2] + proto.to_bytes(2, "big") + inner
    return "pass_gre_proto", f


# ---- building --------------------------------------------------------------------------------



@pytest.fixture(scope="module")
def built():
    proc = make("all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return BUILD


def test_builds_without_warnings(built):
    for name in ("gre_fwd", "gre_bench_sender", "test_gre_parse", "libgre_parse.so",
                 "bench_gre_parse"):
        assert (built / name).exists(), name


def test_unit_tests_under_sanitizers():
    proc = make("test-gre")
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    last = [ln for ln in proc.stdout.splitlines() if " passed, " in ln][-1]
    passed, failed = (int(w) for w in last.replace(",", "").split()[::2][:2])
    assert failed == 0 and passed > 1000, last


def test_fuzz_driver_under_sanitizers():
    proc = make("fuzz-gre-fallback", FUZZ_MILLIONS="0.3", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "300000 frames, 0 invariant violations" in out, out


def test_libfuzzer_briefly():
    require_libfuzzer()
    proc = make("fuzz-gre-libfuzzer", FUZZ_SECONDS="5", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "Done" in out and "ERROR" not in out, out[-3000:]


# ---- the C parser against the reference --------------------------------------------------------

class CParser:
    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.gre_decap.restype = ctypes.c_size_t
        self.lib.gre_decap.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                       ctypes.c_size_t, ctypes.c_void_p]
        self.lib.gre_verdict_name.restype = ctypes.c_char_p
        self.lib.gre_verdict_name.argtypes = [ctypes.c_int]
        self.out = ctypes.create_string_buffer(4096)
        self.info = ctypes.create_string_buffer(256)  # struct gre_info; the verdict comes first

    def names(self) -> list[str]:
        return [self.lib.gre_verdict_name(i).decode() for i in range(len(VERDICTS))]

    def decap(self, frame: bytes) -> tuple[str, bytes]:
        n = self.lib.gre_decap(frame, len(frame), self.out, len(self.out), self.info)
        verdict = int.from_bytes(self.info.raw[:4], "little")
        return VERDICTS[verdict], self.out.raw[:n]


def gre_frame(rng: random.Random) -> bytes:
    """A random, mostly well-formed GRE frame: tags, IPv4 with options or IPv6, C/K/S flags."""
    mac = bytes([2]) + rng.randbytes(5) + bytes([2]) + rng.randbytes(5)
    l2 = mac
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        l2 += struct.pack("!HH", rng.choice([0x8100, 0x88A8]), rng.randrange(4096))
    flags = rng.choice([0, 0x8000]) | rng.choice([0, 0x2000]) | rng.choice([0, 0x1000])
    if rng.random() < 0.1:
        flags |= 1 << rng.randrange(15)
    proto = rng.choice([0x6558, 0x6558, 0x0800, 0x86DD, 0x88BE, rng.randrange(65536)])
    gre = struct.pack("!HH", flags, proto) + rng.randbytes(4 * bin(flags & 0xB000).count("1"))
    inner = rng.randbytes(rng.choice([rng.randrange(20), rng.randrange(400)]))
    if rng.random() < 0.3:
        ip6 = struct.pack("!IHBB", 0x60000000, len(gre) + len(inner),
                          47 if rng.random() < 0.9 else rng.randrange(256), 64) + rng.randbytes(32)
        frame = l2 + b"\x86\xdd" + ip6 + gre + inner
    else:
        ihl = rng.choice([5, 5, 5, rng.randrange(5, 16)])
        frag = rng.choice([0, 0x4000, 0x4000, 0x2000, rng.randrange(65536)])
        hdr = bytearray(struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, 0, ihl * 4 + len(gre) + len(inner),
                                    rng.randrange(65536), frag, 64,
                                    47 if rng.random() < 0.9 else rng.randrange(256), 0,
                                    rng.randbytes(4), rng.randbytes(4))
                        + rng.randbytes(ihl * 4 - 20))
        hdr[10:12] = inet_csum(bytes(hdr)).to_bytes(2, "big")
        frame = l2 + b"\x08\x00" + bytes(hdr) + gre + inner
    limit = 60 + 4 * ((len(l2) - 12) // 4)
    if len(frame) < limit + 2 and rng.random() < 0.5:  # Ethernet padding, sometimes too much
        frame += bytes(max(0, limit - len(frame) + rng.randrange(-2, 3)))
    return frame


def mutate(rng: random.Random, f: bytes) -> bytes:
    b = bytearray(f)
    for _ in range(rng.randrange(1, 4)):
        op = rng.randrange(4)
        if op == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1 and b:
            b[rng.randrange(min(len(b), 80))] = rng.randrange(256)
        elif op == 2:
            del b[rng.randrange(len(b) + 1):]
        else:
            b += rng.randbytes(rng.randrange(1, 16))
    return bytes(b)


def test_c_parser_matches_reference(built):
    c = CParser(built / "libgre_parse.so")
    assert c.names() == VERDICTS
    rng = random.Random(2024)
    seen = set()
    for i in range(30000):
        kind = i % 10
        if kind == 0:
            frame = rng.randbytes(rng.randrange(120))
        else:
            frame = gre_frame(rng)
            if kind >= 6:
                frame = mutate(rng, frame)
        want = ref_decap(frame)
        got = c.decap(frame)
        assert got == want, f"frame {frame.hex()}: C {got[0]}, reference {want[0]}"
        seen.add(want[0])
    assert seen == set(VERDICTS), f"verdicts never exercised: {set(VERDICTS) - seen}"


def test_c_parser_agrees_with_the_rtl_model(built):
    """Same output as fastpath.gre.model (the RTL's reference) with every tunnel accepted and
    the frame length given up front (fp_gre_decap LEN_IN = 1, its default): a GRE frame whose length
    disagrees with its IP length passes unchanged in both (pass_length)."""
    from fastpath.gre import model as gre  # the RTL's reference model: a hard dependency, never skipped

    cfg = gre.DecapConfig(accept_all=True)
    c = CParser(built / "libgre_parse.so")
    rng = random.Random(77)
    reasons = set()
    for i in range(20000):
        frame = gre_frame(rng)
        if i % 3 == 0:
            frame = mutate(rng, frame)
        rtl_out, reason = gre.decap(frame, cfg, tlen=len(frame))
        verdict, out = c.decap(frame)
        reasons.add(reason)
        assert out == rtl_out, f"{frame.hex()}: RTL model {reason}, C {verdict}"
        assert (reason == "decap") == verdict.startswith("decap"), frame.hex()
        if reason == "pass_length":  # (the C parser checks the length before some other rules)
            assert verdict == "pass_length", frame.hex()
    assert {"decap", "pass_length", "too_short", "unsupported", "bad_checksum"} <= reasons


def test_real_gre_capture(built):
    pcap = VECTORS / "pcap" / "zeek-gre-sample.pcap"
    if not pcap.exists():
        pytest.skip(f"{pcap} not present (../shared/vectors)")
    from fastpath.frames import read_pcap
    c = CParser(built / "libgre_parse.so")
    frames = [f.data for f in read_pcap(pcap)]
    verdicts = []
    for f in frames:
        want = ref_decap(f)
        assert c.decap(f) == want
        verdicts.append(want[0])
        if want[0] == "decap_ipv4":  # outer MACs, Ethertype 0x0800, then the inner IPv4 packet
            assert want[1][:12] == f[:12] and want[1][12:14] == b"\x08\x00"
            assert want[1][14] >> 4 == 4 and len(want[1]) == len(f) - 24
    assert verdicts.count("decap_ipv4") >= 30, verdicts


# ---- end to end over veth ---------------------------------------------------------------------

def test_bench_skips_cleanly_without_root(monkeypatch):
    from fastpath.gre import bench_sw as gre_sw
    monkeypatch.setattr(gre_sw.os, "geteuid", lambda: 1000)
    result = gre_sw.run(quick=True)
    assert set(result) == {"skipped"} and "root" in result["skipped"]
    assert "skipped" in gre_sw.table(result)


def scapy_frames() -> list[bytes]:
    """GRE in its variants and things that must pass unchanged, built with scapy."""
    from scapy.layers.inet import ICMP, IP, UDP, IPOption_NOP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import GRE, Dot1AD, Dot1Q, Ether

    outer = Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02")
    ip = IP(src="198.18.1.1", dst="198.18.1.2")
    inner_eth = Ether(src="02:00:00:00:02:01", dst="02:00:00:00:02:02") / \
        IP(src="10.1.0.1", dst="10.1.0.2") / UDP(sport=1000, dport=2000)
    frames = []
    for size in (8, 100, 900):
        frames.append(outer / ip / GRE(proto=0x6558) / inner_eth / (b"x" * size))
    frames.append(outer / ip / GRE(proto=0x6558, key_present=1, key=0x1234) / inner_eth / b"k")
    frames.append(outer / ip / GRE(proto=0x6558, seqnum_present=1, sequence_number=7) / inner_eth)
    frames.append(outer / ip / GRE(proto=0x6558, chksum_present=1, key_present=1, key=5,
                                   seqnum_present=1, sequence_number=9) / inner_eth / b"ckS")
    frames.append(outer / IP(src="198.18.1.1", dst="198.18.1.2", options=[IPOption_NOP()] * 12) /
                  GRE(proto=0x6558) / inner_eth / b"options")
    frames.append(outer / Dot1Q(vlan=10) / ip / GRE(proto=0x6558) / inner_eth / b"one tag")
    frames.append(Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02", type=0x88A8) /
                  Dot1AD(vlan=20) / Dot1Q(vlan=30) / ip / GRE(proto=0x6558) / inner_eth / b"QinQ")
    frames.append(outer / ip / GRE(proto=0x0800) / IP(src="10.2.0.1", dst="10.2.0.2") / ICMP())
    frames.append(outer / Dot1Q(vlan=11) / ip / GRE(proto=0x86DD) / IPv6() / UDP() / b"v6 in v4")
    frames.append(outer / IPv6(src="2001:db8::1", dst="2001:db8::2") / GRE(proto=0x6558) /
                  inner_eth / b"over IPv6")
    small = bytes(outer / ip / GRE(proto=0x0800) / IP(dst="10.3.0.1", proto=253))
    assert len(small) == 58
    frames.append(small)
    # things that pass unchanged
    frames.append(outer / ip / UDP(sport=1, dport=2) / b"not GRE")
    frames.append(outer / ip / GRE(proto=0x880B, version=1, key_present=1) / b"pptp-ish")
    frames.append(outer / ip / GRE(proto=0x6558, routing_present=1) / inner_eth)
    frames.append(outer / IP(src="198.18.1.1", dst="198.18.1.2", flags="MF") /
                  GRE(proto=0x6558) / inner_eth)
    frames.append(outer / ip / GRE(proto=0x88BE) / b"erspan")
    frames.append(outer / Dot1Q(vlan=1) / Dot1Q(vlan=2) / Dot1Q(vlan=3) / ip / GRE() / inner_eth)
    frames.append(Ether(src="02:00:00:00:01:01", dst="02:00:00:00:01:02", type=0x0806) /
                  (b"a" * 46))
    out = [bytes(f) for f in frames]
    bad = bytearray(bytes(outer / ip / GRE(proto=0x6558) / inner_eth / b"bad csum"))
    bad[24] ^= 0xFF  # IPv4 header checksum
    out.append(bytes(bad))
    out.append(out[0] + b"\0\0")  # trailing bytes the IP length does not cover
    out.append(small + b"\0\0")  # padded to the Ethernet minimum: decapsulated, padding dropped
    return out


def e2e_unavailable() -> str | None:
    from fastpath.gre import bench_sw as gre_sw
    return gre_sw.unavailable()


@contextlib.contextmanager
def packet_socket(ns: str, ifname: str, proto: int):
    from fastpath.netns import in_netns
    with in_netns(ns):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(proto))
    try:
        s.bind((ifname, proto))
        yield s
    finally:
        s.close()


SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID, TP_STATUS_VLAN_TPID_VALID = 1 << 4, 1 << 6


def receive(sock: socket.socket, count: int, timeout: float) -> list[bytes]:
    """Frames as they were on the wire: the kernel strips the outer VLAN tag into auxdata."""
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data, anc, _, _ = sock.recvmsg(4096, socket.CMSG_SPACE(20))
        except socket.timeout:
            break
        for level, kind, aux in anc:
            if level == SOL_PACKET and kind == PACKET_AUXDATA:
                status, _, _, _, _, tci, tpid = struct.unpack("IIIHHHH", aux[:20])
                if status & TP_STATUS_VLAN_VALID:
                    tpid = tpid if status & TP_STATUS_VLAN_TPID_VALID else 0x8100
                    data = data[:12] + struct.pack("!HH", tpid, tci) + data[12:]
        got.append(data)
    return got


@pytest.mark.parametrize("mode,ring", [("xdp", None), ("packet", "v2"), ("packet", "v3"),
                                       ("packet", "none"), ("auto", None)])
def test_forwarder_end_to_end(built, mode, ring):
    reason = e2e_unavailable()
    if reason:
        pytest.skip(reason)
    from fastpath.gre import bench_sw as gre_sw

    frames = scapy_frames()
    pcap = VECTORS / "pcap" / "zeek-gre-sample.pcap"
    if pcap.exists():
        from fastpath.frames import read_pcap
        frames += [f.data for f in read_pcap(pcap)]
    expected = [ref_decap(f) for f in frames]

    extra = ["--rx-ring", ring] if ring else []
    with gre_sw.Topology("fpt") as topo:
        try:
            fwd = gre_sw.Forwarder(topo, mode, timeout=30, cpu=None, rt=False,
                                   extra=extra + ["--idle-us", "1000"])
        except RuntimeError as e:
            if mode == "xdp":
                pytest.skip(f"AF_XDP unavailable here: {e}")
            raise
        with fwd:
            assert fwd.mode == mode or (mode == "auto" and fwd.mode in ("xdp", "packet"))
            with packet_socket(topo.ns["k"], "k0", 0x0003) as rx, \
                    packet_socket(topo.ns["s"], "s0", 0) as tx:
                rx.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
                for f in frames:
                    tx.send(f)
                    time.sleep(0.0005)
                got = receive(rx, len(frames), timeout=5.0)
            counters = fwd.stop()

    assert len(got) == len(frames), f"{len(got)} of {len(frames)} frames came out"
    for i, (f, (verdict, want), out) in enumerate(zip(frames, expected, got)):
        assert out == want, \
            f"frame {i} ({verdict}): sent {f.hex()}\n got {out.hex()}\nwant {want.hex()}"
    assert counters["rx"] == counters["tx"] == len(frames)
    assert counters["tx_drop"] == 0 and counters["rx_kernel_drop"] == 0
    for v in VERDICTS:
        assert counters["verdicts"][v] == sum(1 for e in expected if e[0] == v), v
    assert {e[0] for e in expected} >= {"decap_eth", "decap_ipv4", "decap_ipv6", "pass_csum",
                                        "pass_not_gre", "pass_gre_version", "pass_length"}
