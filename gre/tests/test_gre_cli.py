"""`fastpath gre decap|encap`: the GRE cores (RTL, simulated) over captures, against the model.

* decap of a scapy-built capture (GRE variants, non-GRE frames, an unknown endpoint, a wrong key,
  a bad checksum, a padded runt) with --accept, passing and then dropping unknown endpoints: the
  output capture equals fastpath.gre.model.decap frame for frame, and the counters match;
* encap (two tunnels, IPv4 with key and sequence numbers and IPv6, round robin) equals the model,
  then decap of that gives the original capture back (at 256 bits);
* the zeek capture (skipped when ../shared/vectors is absent): every frame decapsulated as the
  model says;
* bad arguments and inputs: a clear message and a non-zero exit, before any simulation.
"""
from __future__ import annotations

import json
import random
import re

import pytest

from fastpath import cli
from fastpath.gre import pcap as gre_pcap
from fastpath.frames import read_pcap, write_pcap
from fastpath.gre import model as gre
from fastpath.paths import VECTORS

ZEEK = VECTORS / "pcap" / "zeek-gre-sample.pcap"
A4, B4, U4 = "192.0.2.1", "198.51.100.7", "203.0.113.9"  # accepted, local, unknown
A6, B6 = "2001:db8::1", "2001:db8::7"


def fastpath(*argv) -> int:
    try:
        return cli.main([str(a) for a in argv])
    except SystemExit as e:  # argparse usage errors
        return e.code


def _tlen(f: bytes):
    """What the CLI drives on fp_gre_decap's s_axis_tlen, as the model takes it (None: LEN_IN = 0)."""
    return len(f) if getattr(gre, "DEFAULT_LEN_IN", 0) else None


def capture_frames() -> list[bytes]:
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import ARP, GRE, Dot1Q, Ether
    from scapy.packet import Raw

    r = random.Random(5)
    e = Ether(dst="02:00:00:00:00:0b", src="02:00:00:00:00:0a")
    inner = bytes(Ether(dst="02:00:00:00:01:01", src="02:00:00:00:01:02") / IP(src="10.1.0.1", dst="10.1.0.2")
                  / UDP() / Raw(bytes(r.getrandbits(8) for _ in range(100))))
    inner_ip = bytes(IP(src="10.1.0.1", dst="10.1.0.2") / UDP() / Raw(b"x" * 300))
    inner_ip6 = bytes(IPv6(src="2001:db8:1::1", dst="2001:db8:1::2") / UDP() / Raw(b"y" * 50))
    bad_cks = bytearray(bytes(e / IP(src=A4, dst=B4) / GRE(proto=0x6558) / Raw(inner)))
    bad_cks[14 + 10] ^= 0x40
    frames = [
        e / IP(src=A4, dst=B4) / GRE(proto=0x6558) / Raw(inner),
        e / IP(src=A4, dst=B4) / GRE(key_present=1, key=77, proto=0x0800) / Raw(inner_ip),
        Ether(dst="02:00:00:00:00:0b", src="02:00:00:00:00:0a") / Dot1Q(vlan=9) / IP(src=A4, dst=B4)
        / GRE(chksum_present=1, key_present=1, key=3, seqnum_present=1, sequence_number=9, proto=0x6558) / Raw(inner),
        e / IPv6(src=A6, dst=B6, nh=47) / GRE(key_present=1, key=5, proto=0x86DD) / Raw(inner_ip6),
        e / IPv6(src=A6, dst=B6, nh=47) / GRE(key_present=1, key=6, proto=0x86DD) / Raw(inner_ip6),  # wrong key
        e / IP(src=U4, dst=B4) / GRE(proto=0x6558) / Raw(inner),  # unknown endpoint
        e / IP(src=A4, dst=B4) / GRE(proto=0x0800) / Raw(bytes(IP(src="10.1.0.1", dst="10.1.0.2"))),  # padded runt
        Ether(dst="ff:ff:ff:ff:ff:ff", src="02:00:00:00:00:0a") / ARP(),
        e / IP(src=A4, dst=B4) / UDP() / Raw(b"z" * 80),
        bytes(bad_cks),
        e / IP(src=A4, dst=B4, flags="MF") / GRE(proto=0x6558) / Raw(inner),  # fragment
    ]
    out = [bytes(f) for f in frames]
    return [f + bytes(max(0, 60 - len(f))) for f in out]  # as a MAC delivers them: padded to 60


def check_decap(in_pcap, out_pcap, json_path, cfg: gre.DecapConfig):
    frames = [c.data for c in read_pcap(in_pcap)]
    model = [gre.decap(f, cfg, _tlen(f)) for f in frames]
    expect = [o for o, reason in model if o is not None and reason != "drop_length"]
    got = [c.data for c in read_pcap(out_pcap)]
    assert len(got) == len(expect)
    for i, (g, x) in enumerate(zip(got, expect)):
        assert g == x, f"output frame {i}: {g.hex()} != model {x.hex()}"
    s = json.loads(open(json_path).read())
    reasons = [reason for _, reason in model]
    for name in gre.DECAP_REASONS:
        assert s["reasons"][name] == reasons.count(name), name
    assert s["frames_in"] == len(frames) and s["frames_out"] == len(expect)
    assert s["decapsulated"] == reasons.count("decap")
    dropped = {r: reasons.count(r) for r in ("unknown_drop", "drop_length") if r in reasons}
    assert s["dropped"] == dropped
    assert s["passed"] == {r: reasons.count(r) for r in gre.DECAP_REASONS
                           if r in reasons and r != "decap" and r not in dropped}
    return s


def test_decap_capture(tmp_path, capsys):
    frames = capture_frames()
    write_pcap(tmp_path / "in.pcap", frames)
    accept = ["--accept", A4, "--accept", f"{A6},key=5"]
    cfg = gre.DecapConfig(entries=[gre.Accept(A4), gre.Accept(A6, ipv6=True, key=5)])
    assert fastpath("gre", "decap", tmp_path / "in.pcap", tmp_path / "out.pcap", *accept,
                    "--json", tmp_path / "c.json") == 0
    s = check_decap(tmp_path / "in.pcap", tmp_path / "out.pcap", tmp_path / "c.json", cfg)
    assert s["decapsulated"] == 5 and s["passed"]["unknown_pass"] == 2 and s["dropped"] == {}
    table = capsys.readouterr().out
    assert re.search(r"^  decapsulated +5$", table, re.M) and re.search(r"^    unknown_pass +2$", table, re.M)

    cfg.drop_unknown = True
    assert fastpath("gre", "decap", tmp_path / "in.pcap", tmp_path / "out2.pcap", *accept, "--drop-unknown",
                    "--json", tmp_path / "c2.json") == 0
    s = check_decap(tmp_path / "in.pcap", tmp_path / "out2.pcap", tmp_path / "c2.json", cfg)
    assert s["dropped"] == {"unknown_drop": 2} and s["frames_out"] == len(frames) - 2


def test_encap_decap_round_trip(tmp_path):
    r = random.Random(7)
    from fastpath.frames import random_frame, udp_frame
    frames = [udp_frame(n, r) for n in (60, 61, 99, 300, 1514)] + [random_frame(r, 14, 200) for _ in range(6)]
    write_pcap(tmp_path / "in.pcap", frames)
    t4, t6 = f"{A4},{B4},key=0x1234,seq,ttl=9", f"{A6},{B6}"
    assert fastpath("gre", "encap", tmp_path / "in.pcap", tmp_path / "enc.pcap", "--width", 256, "--tunnel", t4,
                    "--tunnel", t6, "--tunnel-by", "round-robin", "--src-mac", "02:aa:00:00:00:01",
                    "--dst-mac", "02:bb:00:00:00:02", "--json", tmp_path / "e.json") == 0
    tunnels = [gre.Tunnel(mac_src="02:aa:00:00:00:01", mac_dst="02:bb:00:00:00:02", src=A4, dst=B4,
                          key=0x1234, seq=True, ttl=9),
               gre.Tunnel(mac_src="02:aa:00:00:00:01", mac_dst="02:bb:00:00:00:02", ipv6=True, src=A6, dst=B6)]
    model = gre.Encap(tunnels)
    expect = [model.encap(f, i % 2)[0] for i, f in enumerate(frames)]
    assert [c.data for c in read_pcap(tmp_path / "enc.pcap")] == expect
    s = json.loads((tmp_path / "e.json").read_text())
    assert s["encapsulated"] == len(frames) and s["frames_out"] == len(frames) and not s["passed"]

    assert fastpath("gre", "decap", tmp_path / "enc.pcap", tmp_path / "dec.pcap", "--width", 256,
                    "--accept", f"{A4},key=0x1234", "--accept", A6, "--drop-unknown") == 0
    back = read_pcap(tmp_path / "dec.pcap")
    assert [c.data for c in back] == frames
    assert [c.time for c in back] == [c.time for c in read_pcap(tmp_path / "in.pcap")]


def test_zeek_capture(tmp_path):
    if not ZEEK.exists():
        pytest.skip(f"{ZEEK} absent (shared vectors not beside the repo)")
    assert fastpath("gre", "decap", ZEEK, tmp_path / "out.pcap", "--json", tmp_path / "c.json") == 0
    s = check_decap(ZEEK, tmp_path / "out.pcap", tmp_path / "c.json", gre.DecapConfig(accept_all=True))
    assert s["decapsulated"] == s["frames_in"] == 40


@pytest.mark.parametrize("argv,rc,message", [
    (["decap", "{missing}", "{out}"], 1, "no such file"),
    (["decap", "{raw}", "{out}"], 1, "not Ethernet"),
    (["decap", "{junk}", "{out}"], 1, "not a readable pcap"),
    (["decap", "{ok}", "{out}", "--accept", "1.2.3"], 2, "'1.2.3' is not an IPv4 or IPv6 address"),
    (["decap", "{ok}", "{out}", "--accept", "10.0.0.1,kee=1"], 2, "expected ADDR[,key=K]"),
    (["decap", "{ok}", "{out}", "--accept", "10.0.0.1,key=0x1ffffffff"], 2, "not a 32-bit value"),
    (["decap", "{ok}", "{out}", "--width", "128"], 2, "invalid choice"),
    (["encap", "{ok}", "{out}"], 2, "--tunnel"),
    (["encap", "{ok}", "{out}", "--tunnel", "10.0.0.1,2001:db8::1"], 2, "must both be IPv4 or both IPv6"),
    (["encap", "{ok}", "{out}", "--tunnel", "10.0.0.1,10.0.0.2,mtu=5"], 2, "unknown option"),
    (["encap", "{ok}", "{out}", "--tunnel", "10.0.0.1,10.0.0.2", "--src-mac", "02:00"], 2, "not a MAC address"),
])
def test_bad_arguments(tmp_path, capsys, argv, rc, message):
    from scapy.utils import RawPcapWriter
    w = RawPcapWriter(str(tmp_path / "raw.pcap"), linktype=101)  # LINKTYPE_RAW: IP, no Ethernet
    w.write(b"\x45" + bytes(19))
    w.close()
    (tmp_path / "junk.pcap").write_bytes(b"this is not a capture" * 10)
    write_pcap(tmp_path / "ok.pcap", [bytes(60)])
    paths = {k: tmp_path / f"{k}.pcap" for k in ("missing", "raw", "junk", "ok", "out")}
    argv = [a.format(**paths) for a in argv]
    assert fastpath("gre", *argv) == rc
    err = capsys.readouterr().err
    assert message in err, err
    assert not (tmp_path / "out.pcap").exists()


def test_parsers():
    a = gre_pcap.parse_accept("2001:db8::1,key=7")
    assert a.ipv6 and a.key == 7 and a.addr == int(gre.ipaddress.ip_address("2001:db8::1"))
    t = gre_pcap.parse_tunnel("10.0.0.1,10.0.0.2,l3,seq,ttl=3")
    assert (t.l3, t.seq, t.ttl, t.key, t.ipv6) == (True, True, 3, None, False)
    assert gre_pcap.parse_mac("2:0:0:0:0:a") == bytes.fromhex("02000000000a")
