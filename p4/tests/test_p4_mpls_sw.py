"""p4/host: the SR-MPLS label push in software (the P4 system's "without offload" baseline).

* the C unit test of the edit passes under ASan + UBSan; the fuzz driver runs a bounded number of
  inputs under them (and libFuzzer, briefly, where clang can link it);
* the forwarder's pcap mode (`mpls_push --pcap-in/--pcap-out`) gives, for random frames (IPv4 and
  IPv6, 0-3 VLAN tags, Ethernet padding, jumbo sizes) and frames it must drop (truncated, not IP,
  bad IP, too big for the MTU), exactly the frames scapy builds with its MPLS layer, and the
  right verdict for each frame, under four label configurations;
* as root with network namespaces: frames sent into the forwarder over veth come out of the other
  veth pushed as scapy says, VLAN tags restored, and its counters agree; the bench runs and
  returns its keys (one short trial). Without root these skip cleanly.
"""
from __future__ import annotations

import contextlib
import json
import random
import socket
import struct
import subprocess
import time

import pytest

from fastpath.host import BUILD, make_or_skip as make, require_libfuzzer

VERDICTS = ["pushed", "forwarded", "truncated", "not_ip", "bad_ip", "too_big"]
TPIDS = (0x8100, 0x88A8, 0x9100)


@pytest.fixture(scope="module")
def built():
    proc = make(str(BUILD / "mpls_push"), str(BUILD / "mpls_bench"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return BUILD


def test_unit_tests_under_sanitizers():
    proc = make("test-mpls")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    last = [ln for ln in proc.stdout.splitlines() if " passed, " in ln][-1]
    passed, failed = (int(w) for w in last.replace(",", "").split()[::2][:2])
    assert failed == 0 and passed > 1500, last


def test_fuzz_driver_under_sanitizers():
    proc = make("fuzz-mpls-fallback", FUZZ_MILLIONS="0.1", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert "100000 inputs, invariants held" in out, out
    counts = dict(zip(out.split(";")[1].split()[::2], map(int, out.split(";")[1].split()[1::2])))
    assert all(counts[v] > 0 for v in VERDICTS), counts  # every verdict exercised


def test_libfuzzer_briefly():
    require_libfuzzer()
    proc = make("fuzz-mpls-libfuzzer", FUZZ_SECONDS="3", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "Done" in out and "ERROR" not in out, out[-3000:]


# ---- the edit against scapy ---------------------------------------------------------------------

def l2(dst: str, src: str, tags: list[tuple[int, int, int]], etype: int):
    """Ether / tags (TPID, VLAN id, PCP) with `etype` after the last one, built with scapy."""
    from scapy.layers.l2 import Dot1AD, Dot1Q, Ether
    types = [t[0] for t in tags] + [etype]
    pkt = Ether(dst=dst, src=src, type=types[0])
    for (tpid, vid, pcp), nxt in zip(tags, types[1:]):
        pkt = pkt / (Dot1AD if tpid == 0x88A8 else Dot1Q)(prio=pcp, vlan=vid, type=nxt)
    return pkt


class Case:
    """One input frame and what it is: "ip" (with the parts to rebuild it pushed), or a frame
    that must be dropped with a given verdict."""

    def __init__(self, frame: bytes, kind: str, macs=None, tags=None, ip=b"", pad=b"", ttl=0):
        self.frame, self.kind = frame, kind
        self.macs, self.tags, self.ip, self.pad, self.ttl = macs, tags or [], ip, pad, ttl

    def expect(self, labels: list[tuple[int, int]], ttl: int | None, mtu: int):
        """(verdict, output frame or None) for a configuration: labels [(label, tc)], TTL
        (None: the IP's), MTU (0: none)."""
        from scapy.contrib.mpls import MPLS
        from scapy.packet import Raw
        if not labels:
            return "forwarded", self.frame
        if self.kind != "ip":
            return self.kind, None
        if mtu and len(self.ip) + len(self.pad) + 4 * len(labels) > mtu:
            return "too_big", None
        pkt = l2(*self.macs, self.tags, 0x8847)
        for i, (label, tc) in enumerate(labels):
            pkt = pkt / MPLS(label=label, cos=tc, s=int(i == len(labels) - 1),
                             ttl=self.ttl if ttl is None else ttl)
        return "pushed", bytes(pkt / Raw(self.ip + self.pad))


def random_case(rng: random.Random, jumbo: bool = True) -> Case:
    from scapy.layers.inet import IP, UDP, IPOption_NOP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import ARP
    from scapy.contrib.mpls import MPLS
    macs = ("02:00:00:00:%02x:02" % rng.randrange(256), "02:00:00:00:%02x:01" % rng.randrange(256))
    tags = [(rng.choice(TPIDS), rng.randrange(4096), rng.randrange(8))
            for _ in range(rng.choice([0, 0, 0, 1, 1, 2, 3]))]
    kind = rng.choices(["ip", "truncated", "not_ip", "bad_ip"], [70, 12, 10, 8])[0]
    sizes = [rng.randrange(0, 60), rng.randrange(0, 1480)] + ([rng.randrange(8000, 8950)] if jumbo else [])
    payload = rng.randbytes(rng.choice(sizes))
    v6 = rng.random() < 0.4
    ttl = rng.randrange(256)
    if v6:
        ip = bytes(IPv6(src="2001:db8::1", dst="2001:db8::2", hlim=ttl, nh=17) /
                   UDP(sport=rng.randrange(65536), dport=4791) / payload)
    else:
        opts = [IPOption_NOP()] * rng.choice([0, 0, 4, 8])
        ip = bytes(IP(src="198.18.0.1", dst="198.18.0.2", ttl=ttl, options=opts,
                      flags=rng.choice([0, 2])) / UDP(sport=1, dport=2) / payload)
    etype = 0x86DD if v6 else 0x0800
    head = bytes(l2(*macs, tags, etype))
    pad = b""
    if len(head) + len(ip) < 60 and rng.random() < 0.7:  # Ethernet padding, carried along
        pad = bytes(60 - len(head) - len(ip))
    frame = head + ip + pad
    if kind == "ip":
        return Case(frame, "ip", macs, tags, ip, pad, ttl)
    if kind == "truncated":  # cut inside the L2 header, the IP header or the IP packet
        return Case(frame[:rng.randrange(len(head) + len(ip))], "truncated")
    if kind == "not_ip":
        choice = rng.randrange(4)
        if choice == 0:
            return Case(bytes(l2(*macs, tags, 0x0806) / ARP()), "not_ip")
        if choice == 1:  # already labelled
            return Case(bytes(l2(*macs, tags, 0x8847) / MPLS(label=99, ttl=5) / ip), "not_ip")
        if choice == 2:  # a fourth tag
            four = [(0x8100, i, 0) for i in range(4)]
            return Case(bytes(l2(*macs, four, etype)) + ip, "not_ip")
        other = rng.choice([0x0806, 0x88CC, 0x88F7, 0x22F0, rng.randrange(0x600, 0x8000)])
        return Case(bytes(l2(*macs, tags, other)) + ip, "not_ip")
    # bad IP: the other version behind the Ethertype, IHL < 5, total length < header
    b = bytearray(ip)
    which = rng.randrange(3) if not v6 else 0
    if which == 0:
        b[0] = (b[0] & 0x0F) | (0x40 if v6 else 0x60)
    elif which == 1:
        b[0] = 0x40 | rng.randrange(5)
    else:
        b[2:4] = struct.pack("!H", rng.randrange((b[0] & 0x0F) * 4))
    return Case(head + bytes(b) + pad, "bad_ip")


CONFIGS = [  # --labels, --ttl, --mtu; and the same as [(label, tc)], ttl, mtu
    ("16001", "ip", "1500", [(16001, 0)], None, 1500),
    ("16001/5,16002,1048575/7", "200", "9000", [(16001, 5), (16002, 0), (1048575, 7)], 200, 9000),
    (",".join(str(100 + i) + ("/%d" % (i % 8)) for i in range(16)), "ip", "0",
     [(100 + i, i % 8) for i in range(16)], None, 0),
    ("none", "ip", "64", [], None, 64),
]


def test_pcap_edit_matches_scapy(built, tmp_path):
    from scapy.packet import Raw
    from scapy.utils import RawPcapReader, wrpcap

    rng = random.Random(4004)
    cases = [random_case(rng) for _ in range(400)]
    # the MTU boundaries of the first two configurations, exactly
    for n, mtu in ((1, 1500), (3, 9000)):
        for extra in (0, 1):
            from scapy.layers.inet import IP
            ip = bytes(IP(src="198.18.0.1", dst="198.18.0.2", ttl=9, proto=253) /
                       bytes(mtu - 4 * n + extra - 20))
            macs = ("02:00:00:00:00:02", "02:00:00:00:00:01")
            cases.append(Case(bytes(l2(*macs, [], 0x0800)) + ip, "ip", macs, [], ip, b"", 9))
    pin = tmp_path / "in.pcap"
    wrpcap(str(pin), [Raw(c.frame) for c in cases], linktype=1)
    seen = set()
    for spec, ttl_arg, mtu_arg, labels, ttl, mtu in CONFIGS:
        pout, log = tmp_path / "out.pcap", tmp_path / "verdicts.txt"
        proc = subprocess.run([str(built / "mpls_push"), "--pcap-in", str(pin), "--pcap-out",
                               str(pout), "--labels", spec, "--ttl", ttl_arg, "--mtu", mtu_arg,
                               "--verdict-log", str(log)], capture_output=True, text=True,
                              timeout=30)
        assert proc.returncode == 0, proc.stderr
        counters = json.loads(proc.stdout)
        want = [c.expect(labels, ttl, mtu) for c in cases]
        got_verdicts = log.read_text().split()
        for i, (c, (v, _), g) in enumerate(zip(cases, want, got_verdicts)):
            assert g == v, f"{spec}: frame {i} ({c.kind}) {c.frame[:80].hex()}: C {g}, want {v}"
        assert len(got_verdicts) == len(cases)
        outs = [data for data, _ in RawPcapReader(str(pout))]
        wanted = [f for v, f in want if f is not None]
        assert len(outs) == len(wanted), spec
        for i, (o, w) in enumerate(zip(outs, wanted)):
            assert o == w, f"{spec}: output {i}\n got {o[:96].hex()}\nwant {w[:96].hex()}"
        for v in VERDICTS:
            assert counters["verdicts"][v] == sum(1 for x, _ in want if x == v), (spec, v)
        assert counters["rx"] == len(cases) and counters["tx"] == len(wanted)
        seen |= {v for v, _ in want}
    assert seen == set(VERDICTS), f"never exercised: {set(VERDICTS) - seen}"


def test_bad_arguments_are_refused(built, tmp_path):
    exe = str(built / "mpls_push")
    for labels, why in (("3", "implicit null"), ("1048576", "out of"), ("5/9", "TC"),
                        (",".join(["16"] * 17), "more than 16")):
        proc = subprocess.run([exe, "--pcap-in", "x", "--pcap-out", "y", "--labels", labels],
                              capture_output=True, text=True, timeout=10)
        assert proc.returncode == 1 and why in proc.stderr, (labels, proc.stderr)
    (tmp_path / "ng").write_bytes(b"\x0a\x0d\x0d\x0a" + bytes(40))
    proc = subprocess.run([exe, "--pcap-in", str(tmp_path / "ng"), "--pcap-out",
                           str(tmp_path / "o"), "--labels", "16"], capture_output=True, text=True)
    assert proc.returncode == 1 and "pcapng" in proc.stderr
    proc = subprocess.run([exe, "--labels", "16"], capture_output=True, text=True)
    assert proc.returncode == 2 and "usage" in proc.stderr


# ---- end to end over veth (root + namespaces) ---------------------------------------------------

SOL_PACKET, PACKET_AUXDATA = 263, 8
TP_STATUS_VLAN_VALID, TP_STATUS_VLAN_TPID_VALID = 1 << 4, 1 << 6


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


def receive(sock: socket.socket, count: int, timeout: float) -> list[bytes]:
    """Frames as they were on the wire: the kernel strips the outer VLAN tag into auxdata."""
    got = []
    deadline = time.monotonic() + timeout
    while len(got) < count and time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data, anc, _, _ = sock.recvmsg(16384, socket.CMSG_SPACE(20))
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


def sendable(frame: bytes) -> bool:
    """Whether the kernel sends this frame on a veth of MTU 9000 and passes it on to AF_PACKET:
    not shorter than an Ethernet header plus the VLAN header it may pull (shorter tagged frames
    are dropped before any packet socket sees them), and not longer than MTU + 14 bytes, 4 more
    for an 802.1Q / 802.1ad frame. (A frame pushed within the MTU but past that, which only
    frames with two or more tags can be, is counted by mpls_push as a TX drop.)"""
    tagged = frame[12:14] in (b"\x81\x00", b"\x88\xa8")
    return 22 <= len(frame) <= 9014 + 4 * tagged


def e2e_unavailable() -> str | None:
    from fastpath.p4 import bench_sw
    return bench_sw.unavailable()


def test_forwarder_end_to_end(built):
    reason = e2e_unavailable()
    if reason:
        pytest.skip(reason)
    from fastpath.p4 import bench_sw
    from scapy.layers.inet import IP

    rng = random.Random(77)
    cases = [random_case(rng) for _ in range(150)]
    # too big for the output MTU (9000) once pushed, though it fits the input veth
    ip = bytes(IP(src="198.18.0.1", dst="198.18.0.2", ttl=3, proto=253) / bytes(9000 - 20))
    macs = ("02:00:00:00:00:02", "02:00:00:00:00:01")
    cases.append(Case(bytes(l2(*macs, [], 0x0800)) + ip, "ip", macs, [], ip, b"", 3))
    labels = [(16001, 3), (16002, 0), (16003, 0)]
    cases = [c for c in cases if sendable(c.frame) and
             (c.expect(labels, None, 9000)[0] != "pushed" or sendable(c.frame + bytes(12)))]
    want = [c.expect(labels, None, 9000) for c in cases]
    arriving = [f for _, f in want if f is not None]

    with bench_sw.topology("fpt") as n:
        bench_sw.links(n)
        with bench_sw.Forwarder(n, "16001/3,16002,16003", rt=False, cpu=None, timeout=30) as fwd:
            with packet_socket(n.ns["k"], "k0", 0x0003) as rx, \
                    packet_socket(n.ns["s"], "s0", 0) as tx:
                rx.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
                # read after everything was sent: room for all of it (SO_RCVBUFFORCE, as root)
                rx.setsockopt(socket.SOL_SOCKET, 33, 64 << 20)
                for c in cases:
                    tx.send(c.frame)
                    time.sleep(0.0002)
                got = receive(rx, len(arriving), timeout=5.0)
            counters = fwd.stop()

    assert len(got) == len(arriving), f"{len(got)} of {len(arriving)} frames came out: {counters}"
    for i, (o, w) in enumerate(zip(got, arriving)):
        assert o == w, f"frame {i}\n got {o[:96].hex()}\nwant {w[:96].hex()}"
    assert counters["rx"] == len(cases) and counters["tx"] == len(arriving)
    assert counters["tx_drop"] == 0 and counters["rx_kernel_drop"] == 0
    for v in VERDICTS:
        assert counters["verdicts"][v] == sum(1 for x, _ in want if x == v), v
    assert {x for x, _ in want} == {"pushed", "truncated", "not_ip", "bad_ip", "too_big"}
    assert any(c.tags and c.kind == "ip" for c in cases)  # VLAN tags restored and kept


def test_bench_runs_briefly(built):
    reason = e2e_unavailable()
    if reason:
        pytest.skip(reason)
    from fastpath.p4 import bench_sw
    r = bench_sw.run(quick=True, sizes=[64, 9000], paths=["veth", "push1"], duration=0.1)
    for w in ("64", "9000"):
        for p in ("veth", "push1"):
            row = r["results"][w][p]
            assert row["mpps"] > 0 and row["bad"] == 0, row
        assert r["results"][w]["push1"]["fwd_cpu_ns_per_frame"] > 0
        assert r["edit"][w]["push1"]["edit_ns"] > 0
    assert r["results"]["9000"]["push1"]["out_bytes"] == 9000 - 4 + 4
    assert r["push1_gbps_9000"] > 0 and "push1_vs_veth" in r
    assert "push1" in bench_sw.table(r)


def test_bench_skips_cleanly_without_root(monkeypatch):
    from fastpath.p4 import bench_sw
    monkeypatch.setattr(bench_sw.os, "geteuid", lambda: 1000)
    result = bench_sw.run(quick=True)
    assert set(result) == {"skipped"} and "root" in result["skipped"]
    assert "skipped" in bench_sw.table(result)
