"""ptrain/host: the tester's software baseline (ptrain-send, ptrain-recv, the C frame library)
against the Python frame code and against nftables' own count of what it dropped.

* the C parser gives frame.parse()'s verdict and fields on thousands of frames made by
  frame.build() and broken at random, and the C builder makes frame.build()'s bytes (vectors
  written here, checked by the C unit test under ASan + UBSan); the vectors embedded in the C test
  are still what Python says;
* the fuzz driver runs a bounded number of frames under ASan + UBSan (and libFuzzer, briefly,
  when clang can link it);
* ptrain-send's frames (dry run into a pcap) are byte for byte frame.build()'s with the stamp as
  tx_time, over IPv4 / IPv6, with and without a tag, with chosen addresses and ports;
* as root with network namespaces: 2000 frames across a veth pair all arrive and the analyser
  counts no loss; ptrain-recv sorts crafted foreign / malformed frames by reason as frame.parse()
  does; IPv6 with a VLAN tag arrives at its sent size; with loss injected by an nftables
  `numgen random` rule at the receiver's ingress, the loss the analyser counts equals the drops
  nftables counted, exactly.
"""
from __future__ import annotations

import random
import re
import socket
import subprocess
import time
from pathlib import Path

import pytest

from fastpath.host import BUILD, make_or_skip as make, require_libfuzzer
from fastpath.ptrain import analyze as an
from fastpath.ptrain import baseline
from fastpath.ptrain import capture as cap
from fastpath.ptrain import frame as fr

HERE = Path(__file__).resolve().parent.parent / "host"
T0_NS = 1_700_000_000_123_456_789

HEADERS = [
    fr.Headers(), fr.Headers(vlan=100, pcp=5), fr.Headers(ipv6=True), fr.Headers(ipv6=True, vlan=4095, pcp=7),
    fr.Headers(src_mac="0a:1b:2c:3d:4e:5f", dst_mac="ff:ff:ff:ff:ff:ff", src_ip="10.1.2.3",
               dst_ip="172.16.254.1", sport=40000, dport=5001, ttl=1),
    fr.Headers(ipv6=True, src_ip="fe80::1:2:3:4", dst_ip="2001:db8:ffff::9", sport=65535, dport=0,
               ttl=255, vlan=0),
]


@pytest.fixture(scope="module")
def built():
    proc = make("ptrain-host")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("ptrain-send", "ptrain-recv"):
        assert (BUILD / name).exists(), name
    return BUILD


# ---- vectors from the Python side --------------------------------------------------------------

def _parse_line(data: bytes, wire_len: int) -> str:
    try:
        t = fr.parse(data, wire_len)
    except fr.Malformed as e:
        return f"parse {e.reason} {wire_len} " + "0 " * 12 + "-1 " + data.hex()
    if t is None:
        return f"parse foreign {wire_len} " + "0 " * 12 + "-1 " + data.hex()
    vlan = -1 if t.vlan is None else t.vlan
    return (f"parse ok {wire_len} {t.seq} {t.stream} {t.train} {t.index} {t.train_len} {t.tx_time} "
            f"{t.tv_sec} {t.tv_usec} {t.flags} {t.frame_len} {t.size} {int(t.ipv6)} {vlan} {data.hex()}")


def _zero_udp_csum(b: bytearray, h: fr.Headers) -> None:
    l4 = h.length - fr.UDP.length
    b[l4 + 6:l4 + 8] = b"\0\0"


def _random_frame(rng: random.Random) -> tuple[bytes, fr.Headers]:
    h = rng.choice(HEADERS)
    size = rng.choice([h.min_size, h.min_size + 7, max(h.min_size, h.min_frame - 1), h.min_frame, h.min_frame + 1,
                       129, 300, 1514])
    tl = rng.choice([1, 2, 10, 1000, 0xFFFFFFFF] if not h.compact(size) else [1, 2, 10, 1000, 65536])
    ns = rng.choice([T0_NS + rng.randrange(10**12), rng.randrange(1 << 64)])
    return fr.build(size, rng.randrange(1 << 32), rng.randrange(1 << 32), rng.randrange(tl), tl, ns << 16,
                    stream=rng.randrange(256), flags=rng.randrange(16), headers=h), h


def _mutations(rng: random.Random, f: bytes, h: fr.Headers) -> list[tuple[bytes, int]]:
    p = h.length
    l3 = p - fr.UDP.length - (fr.IPV6.length if h.ipv6 else fr.IPV4.length)
    out = [(f, len(f))]
    k = rng.randrange(len(f))
    out += [(f[:k], k), (f[:k], len(f)), (f[:p + fr.HEADER_LEN], len(f))]   # cuts: frame, snap
    b = bytearray(f)
    b[rng.randrange(min(len(b), p + fr.HEADER_LEN))] ^= 1 << rng.randrange(8)
    out.append((bytes(b), len(b)))
    b = bytearray(f)
    _zero_udp_csum(b, h)
    field = rng.choice(["index", "train_len", "tv_usec", "tv_sec", "ver_flags", "magic"])
    off, n = fr._OFF[field]
    b[p + off:p + off + n] = rng.randrange(1 << (8 * n)).to_bytes(n, "big") if rng.random() < 0.7 else bytes(n)
    out.append((bytes(b), len(b)))
    b = bytearray(f)
    if h.ipv6:
        b[l3 + 4:l3 + 6] = rng.randrange(1 << 16).to_bytes(2, "big")
    else:
        b[l3 + 2:l3 + 4] = rng.randrange(1 << 16).to_bytes(2, "big")
        if rng.random() < 0.5:
            b[l3 + 6:l3 + 8] = rng.choice([0x2000, 0x4000, 0x0001, 0x3FFF]).to_bytes(2, "big")
        if rng.random() < 0.3:
            b[l3] = rng.choice([0x44, 0x46, 0x55])
    out.append((bytes(b), len(b)))
    b = bytearray(f)
    b[p - 4:p - 2] = rng.randrange(1 << 16).to_bytes(2, "big")  # UDP length
    out.append((bytes(b), len(b)))
    b = bytearray(f) + bytes(rng.randrange(1, 20))                 # padding after the datagram
    out.append((bytes(b), len(b)))
    r = bytes(rng.randrange(256) for _ in range(rng.randrange(80)))
    out.append((r, len(r)))
    return out


def _build_line(rng: random.Random) -> str:
    h = rng.choice(HEADERS)
    size = rng.choice([h.min_size, h.min_size + 3, h.min_frame, h.min_frame + 3, 200, 1514, 9000])
    tl = rng.randrange(1, 1 << 32) if not h.compact(size) else rng.randrange(1, 65537)
    seq, train, index, stream, flags = (rng.randrange(1 << 32), rng.randrange(1 << 32), rng.randrange(tl),
                                        rng.randrange(256), rng.randrange(16))
    ns = rng.choice([T0_NS + rng.randrange(10**15), rng.randrange(1 << 64), (1 << 64) - 1, 0])
    data = fr.build(size, seq, train, index, tl, ns << 16, stream=stream, flags=flags, headers=h)
    fam = socket.AF_INET6 if h.ipv6 else socket.AF_INET
    sip = socket.inet_pton(fam, h.src_ip or ("2001:db8::1" if h.ipv6 else "192.0.2.1")).hex()
    dip = socket.inet_pton(fam, h.dst_ip or ("2001:db8::2" if h.ipv6 else "198.51.100.1")).hex()
    mac = lambda m: m.replace(":", "")  # noqa: E731
    vlan = -1 if h.vlan is None else h.vlan
    return (f"build {size} {seq} {train} {index} {tl} {ns} {stream} {flags} {vlan} {h.pcp} {int(h.ipv6)} "
            f"{h.ttl} {h.sport} {h.dport} {mac(h.src_mac)} {mac(h.dst_mac)} {sip} {dip} {data.hex()}")


def test_c_parser_and_builder_agree_with_python(tmp_path):
    rng = random.Random(3)
    lines, verdicts = ["# parse / build vectors from fastpath.ptrain.frame"], {}
    for _ in range(300):
        f, h = _random_frame(rng)
        for data, wl in _mutations(rng, f, h):
            line = _parse_line(data, wl)
            verdicts[line.split()[1]] = verdicts.get(line.split()[1], 0) + 1
            lines.append(line)
    lines += [_build_line(rng) for _ in range(200)]
    path = tmp_path / "ptrain_vectors.txt"
    path.write_text("\n".join(lines) + "\n")
    assert set(verdicts) == {"ok", "foreign", *fr.REASONS}, verdicts   # every verdict is exercised
    proc = make("test-ptrain", PTRAIN_VECTORS=str(path))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    assert f"{len(lines) - 1} vector lines" in out, out[-2000:]
    last = [ln for ln in proc.stdout.splitlines() if " passed, " in ln][-1]
    passed, failed = (int(w) for w in last.split(":")[1].replace(",", "").split()[::2][:2])
    assert failed == 0 and passed > 5000, last


def test_embedded_vectors_are_what_python_says():
    text = (HERE / "test_ptrain_parse.c").read_text()
    body = text[text.index("static const struct vector vectors[]"):text.index("static void test_embedded")]
    found = re.findall(r'\{"(\w+)",\s*((?:"[0-9a-f]+"\s*)+),', body)
    assert len(found) >= 4
    for verdict, hexes in found:
        data = bytes.fromhex("".join(re.findall(r'"([0-9a-f]+)"', hexes)))
        assert _parse_line(data, len(data)).split()[1] == verdict


def test_fuzz_driver_under_sanitizers():
    proc = make("fuzz-ptrain-fallback", FUZZ_MILLIONS="0.2", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "200000 frames, 0 invariant violations" in out, out[-3000:]


def test_libfuzzer_briefly():
    require_libfuzzer()
    proc = make("fuzz-ptrain-libfuzzer", FUZZ_SECONDS="3", timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    assert "Done" in out and "ERROR" not in out, out[-3000:]


# ---- the sender's bytes ------------------------------------------------------------------------

@pytest.mark.parametrize("args,headers", [
    ([], fr.Headers()),
    (["--ipv6", "--vlan", "7", "--pcp", "2"], fr.Headers(ipv6=True, vlan=7, pcp=2)),
    (["--src-mac", "0a:1b:2c:3d:4e:5f", "--dst-mac", "02:00:00:00:00:99", "--src-ip", "10.0.0.1",
      "--dst-ip", "10.0.0.2", "--sport", "1234", "--dport", "5678", "--ttl", "3", "--vlan", "0"],
     fr.Headers(src_mac="0a:1b:2c:3d:4e:5f", dst_mac="02:00:00:00:00:99", src_ip="10.0.0.1",
                dst_ip="10.0.0.2", sport=1234, dport=5678, ttl=3, vlan=0)),
], ids=["ipv4", "ipv6-vlan", "addresses"])
def test_sender_frames_are_frame_build_s(built, tmp_path, args, headers):
    pcap = tmp_path / "dry.pcap"
    size, count, tl, seq0 = 301, 25, 7, 0xFFFFFFF0
    proc = subprocess.run([str(built / "ptrain-send"), "--pcap", str(pcap), "--count", str(count),
                           "--train-len", str(tl), "--size", str(size), "--stream", "9", "--seq", str(seq0),
                           "--train0", "40", "--gap-ns", "100", *args], capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    frames = cap.read(pcap).frames
    assert len(frames) == count
    for k, f in enumerate(frames):
        t_len = tl if k < count - count % tl else count % tl
        want = fr.build(size, (seq0 + k) & 0xFFFFFFFF, 40 + k // tl, k % tl, t_len, f.time, stream=9,
                        flags=fr.FLAG_LAST if k % tl == t_len - 1 else 0, headers=headers)
        assert f.data == want, f"frame {k} differs"


@pytest.mark.parametrize("size,vlan", [(60, None), (87, 5)], ids=["60", "87-vlan"])
def test_sender_compact_frames_are_frame_build_s(built, tmp_path, size, vlan):
    """IPv4 frames below the full header's minimum: the compact header, byte for byte."""
    pcap = tmp_path / "c.pcap"
    count, tl = 20, 6
    args = ["--vlan", str(vlan)] if vlan is not None else []
    proc = subprocess.run([str(built / "ptrain-send"), "--pcap", str(pcap), "--count", str(count),
                           "--train-len", str(tl), "--size", str(size), "--seq", "4294967290", *args],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    frames = cap.read(pcap).frames
    assert len(frames) == count
    for k, f in enumerate(frames):
        t_len = tl if k < count - count % tl else count % tl
        want = fr.build(size, (4294967290 + k) & 0xFFFFFFFF, k // tl, k % tl, t_len, f.time,
                        flags=fr.FLAG_LAST if k % tl == t_len - 1 else 0, headers=fr.Headers(vlan=vlan))
        assert f.data == want, f"frame {k} differs"
        assert fr.parse(f.data).compact


def test_sender_refuses_bad_arguments(built):
    send = str(built / "ptrain-send")
    for args in (["--pcap", "/dev/null", "--size", "59"],
                 ["--pcap", "/dev/null", "--size", "60", "--train-len", "65537"], ["--pcap", "/dev/null", "--ipv6", "--size", "103"],
                 ["--pcap", "/dev/null", "--count", "5", "--trains", "2"], ["--count", "5"],
                 ["--pcap", "/dev/null", "--src-ip", "2001:db8::1"], ["--pcap", "/dev/null", "--vlan", "4096"]):
        proc = subprocess.run([send, *args], capture_output=True, text=True, timeout=10)
        assert proc.returncode == 2 and proc.stderr.startswith("ptrain-send: "), (args, proc.stderr)


# ---- over veth, as root --------------------------------------------------------------------------

def _need(loss: bool = False) -> None:
    why = baseline.unavailable(loss=loss)
    if why:
        pytest.skip(why)


def test_veth_2000_frames_no_loss(built):
    _need()
    r = baseline.run(count=2000, size=1000, train_len=100, gap_ns=5000)
    s, rx, f = r["analysis"]["streams"][0]["summary"], r["receiver"], r["figures"]
    assert r["sender"]["sent"] == 2000 and r["sender"]["send_retries"] == 0
    assert rx["tester"] == 2000 and rx["foreign"] == 0 and rx["malformed_total"] == 0 and rx["ring_drops"] == 0
    assert rx["ts_software"] == 2000 and rx["stopped"] == "count"          # every RX time is the kernel's
    assert r["analysis"]["input"]["tester_frames"] == 2000 and r["analysis"]["input"]["malformed_total"] == 0
    assert (s["received"], s["lost"], s["frames_expected"], s["trains"]) == (2000, 0, 2000, 20)
    assert s["duplicates"] == 0 and s["size_min"] == s["size_max"] == 1000
    # causality: the kernel stamps a frame after the sender did, and receives it after that
    assert f["kernel_tx_stamps"] == 2000 and f["tx_syscall"]["min_ns"] > 0
    assert 0 < f["owd_kernel"]["min_ns"] and f["owd_kernel"]["mean_ns"] < s["owd"]["mean_ns"]
    assert f["timestamp"]["rx_steps_gcd_ns"] == 1 and f["loss"]["exact"]


def test_veth_loss_counted_exactly_as_nftables_dropped(built):
    _need(loss=True)
    r = baseline.run(count=2000, size=600, train_len=100, gap_ns=5000, loss_pct=5)
    s, t = r["analysis"]["streams"][0]["summary"], r["truth"]
    assert t["nft_drops"] > 20 and t["veth_drops"] == 0 and t["ring_drops"] == 0, t
    assert s["lost"] == t["nft_drops"], (s["lost"], t["nft_drops"])
    assert s["received"] == 2000 - t["nft_drops"] == r["receiver"]["tester"]
    assert s["frames_expected"] == 2000 and s["duplicates"] == 0 and s["reordered"] == 0


def test_veth_ipv6_vlan_arrives_at_its_size(built):
    _need()
    r = baseline.run(count=500, size=300, train_len=50, gap_ns=2000, ipv6=True, vlan=12, tx_stamps=False)
    s, rx = r["analysis"]["streams"][0]["summary"], r["receiver"]
    assert rx["vlan_restored"] == 500 and rx["tester"] == 500
    assert (s["received"], s["lost"], s["size_min"], s["size_max"]) == (500, 0, 300, 300)


def test_receiver_sorts_frames_as_frame_parse_does(built, tmp_path):
    """Crafted frames sent over veth: ptrain-recv's counts by verdict equal frame.parse()'s, and
    its capture holds every frame as sent."""
    _need()
    from fastpath import netns
    rng = random.Random(11)
    sent = []
    for _ in range(60):
        f, h = _random_frame(rng)
        if h.vlan is not None or len(f) > 1514:
            continue
        sent += [d for d, wl in _mutations(rng, f, h) if wl == len(d) and 60 <= len(d) <= 1514]
    want: dict[str, int] = {}
    for d in sent:
        v = _parse_line(d, len(d)).split()[1]
        want[v] = want.get(v, 0) + 1
    pcap = tmp_path / "rx.pcap"
    with netns.Netns(["tx", "rx"], tag="fppr") as n:
        n.veth("tx", "pt0", "rx", "pr0")
        rx = subprocess.Popen(n.exec("rx") + [str(built / "ptrain-recv"), "-i", "pr0", "-w", str(pcap),
                                             "--idle-ms", "300", "--timeout", "20"],
                              stdout=subprocess.PIPE, text=True)
        assert rx.stdout.readline().strip() == "ready"
        with netns.in_netns(n.ns["tx"]):
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        with s:
            s.bind(("pt0", 0))
            for d in sent:
                s.send(d)
                time.sleep(0.0002)
        out, _ = rx.communicate(timeout=30)
    import json
    got = json.loads(out.strip().splitlines()[-1])
    assert got["frames"] == len(sent) and got["ring_drops"] == 0
    counts = {"ok": got["tester"], "foreign": got["foreign"], **got["malformed"]}
    assert {k: v for k, v in counts.items() if v} == want
    frames = cap.read(pcap).frames
    assert [f.data for f in frames] == sent
    recs, info, _ = an.records_from_capture(cap.read(pcap))
    assert info.tester_frames == got["tester"] and info.malformed == got["malformed"]
