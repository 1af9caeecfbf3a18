"""`fastpath ptrain frames|analyze` on written captures: nanosecond pcap and pcapng from the
software model analysed back to the model's truth (delays exact, capacity within 0.1 %, losses
exact), the annotated pcapng, the plot, calibration through --fit/--calibration, and bad input
(non-Ethernet capture, no tester frames, truncated tester frames counted as malformed, files
that are not captures, bad options): one line on stderr and exit status 2."""
from __future__ import annotations

import json
import random
import struct

import pytest

from fastpath import cli
from fastpath.frames import udp_frame, write_pcap
from fastpath.ptrain import analyze as an
from fastpath.ptrain import capture as cap
from fastpath.ptrain import frame as fr


def fastpath(*argv) -> int:
    try:
        return cli.main([str(a) for a in argv])
    except SystemExit as e:  # argparse usage errors
        return e.code


def one_error_line(capsys, *words) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    for w in words:
        assert w in err, err
    return err


@pytest.mark.parametrize("ext", ["pcap", "pcapng"])
def test_frames_then_analyze(tmp_path, ext, capsys):
    """2000 frames of 1000 bytes, trains of 100 at 1000 Mb/s (8192 ns slots, exact), delay
    2500 ns, every 400th frame lost: delays exact, capacity and offered rate 1 Gb/s, 5 lost."""
    path = tmp_path / f"run.{ext}"
    assert fastpath("ptrain", "frames", "--count", 2000, "--size", 1000, "--rate-mbps", 1000,
                    "--train-length", 100, "--delay-ns", 2500, "--loss-every", 400, "--pcap", path) == 0
    assert "software model" in capsys.readouterr().out
    c = cap.read(path)
    assert c.kind == ext and c.resolution_ns == 1 and len(c.frames) == 1995
    out = tmp_path / "r.json"
    annotated = tmp_path / "a.pcapng"
    assert fastpath("ptrain", "analyze", path, "--json", out, "--pcapng", annotated) == 0
    text = capsys.readouterr().out
    assert "lost 5" in text and "1.000000 Gb/s" in text
    r = json.loads(out.read_text())
    assert r["input"]["tester_frames"] == 1995 and r["input"]["malformed_total"] == 0
    m = r["streams"][0]["summary"]
    assert (m["frames_expected"], m["lost"], m["reordered"], m["duplicates"], m["trains"]) == (2000, 5, 0, 0, 20)
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == m["owd"]["p99.9_ns"] == 2500
    assert m["capacity_bps"] == pytest.approx(1e9, rel=1e-12) and m["input_rate_median_bps"] == 1e9
    assert len(r["streams"][0]["trains"]) == 20
    # The annotated pcapng: nanosecond interface, same frames and times, one comment each.
    raw = annotated.read_bytes()
    assert struct.pack("<HHB", 9, 1, 9) in raw, "if_tsresol = 9"
    again = cap.read(annotated)
    assert [(f.data, f.time) for f in again.frames] == [(f.data, f.time) for f in c.frames]
    assert b"owd 2500.000 ns" in raw
    assert fastpath("ptrain", "analyze", annotated, "--json", tmp_path / "r2.json") == 0
    r2 = json.loads((tmp_path / "r2.json").read_text())
    assert r2["streams"] == r["streams"]


def test_jitter_vlan_ipv6_and_plot(tmp_path, capsys):
    """IPv6 with a tag, 2 Gb/s trains, up to 80 ns of uniform jitter (frames may reorder): the
    dispersion capacity within 0.1 %, delays within the model's range, the plot written."""
    path = tmp_path / "j.pcapng"
    assert fastpath("ptrain", "frames", "--count", 3000, "--size", 1500, "--rate-mbps", 2000, "--train-length",
                    500, "--jitter-ns", 80, "--delay-ns", 10_000, "--vlan", 12, "--ipv6", "--stream", 4,
                    "--pcap", path) == 0
    out = tmp_path / "j.json"
    args = ["ptrain", "analyze", path, "--json", out]
    try:
        import matplotlib  # noqa: F401
        args += ["--plot", tmp_path / "j.png"]
    except ImportError:
        pass
    assert fastpath(*args) == 0
    capsys.readouterr()
    s = json.loads(out.read_text())["streams"][0]
    m = s["summary"]
    assert s["stream"] == 4 and m["received"] == 3000 and m["lost"] == 0
    assert abs(m["capacity_bps"] / 2e9 - 1) < 1e-3
    for t in s["trains"]:
        assert abs(t["capacity_bps"] / 2e9 - 1) < 1e-3
    assert 10_000 - 1 <= m["owd"]["min_ns"] and m["owd"]["max_ns"] <= 10_080 + 1
    assert m["rfc3550_jitter_ns"] > 0 and m["ipdv"]["count"] == 2999
    if len(args) > 5:
        assert (tmp_path / "j.png").stat().st_size > 10_000


def test_calibration_through_the_cli(tmp_path, capsys):
    """A loopback run over five sizes (0.5 ns/byte + 200 ns) gives the fit; a DUT run (the same
    tester path + 1200 ns) analysed with it shows 1200 ns at every size."""
    loop, dut, fit = tmp_path / "loop.pcap", tmp_path / "dut.pcap", tmp_path / "fit.json"
    sizes = "84,300,600,1000,1514"
    assert fastpath("ptrain", "frames", "--count", 500, "--size", sizes, "--train-length", 20,
                    "--delay-ns", 200, "--per-byte-ns", 0.5, "--pcap", loop) == 0
    assert fastpath("ptrain", "analyze", loop, "--fit", fit) == 0
    f = json.loads(fit.read_text())
    assert abs(f["slope_ns_per_byte"] - 0.5) < 1e-3 and abs(f["intercept_ns"] - 200) < 1
    assert fastpath("ptrain", "frames", "--count", 500, "--size", sizes, "--train-length", 20,
                    "--delay-ns", 1400, "--per-byte-ns", 0.5, "--pcap", dut) == 0
    out = tmp_path / "dut.json"
    assert fastpath("ptrain", "analyze", dut, "--calibration", fit, "--json", out) == 0
    assert "calibrated" in capsys.readouterr().out
    m = json.loads(out.read_text())["streams"][0]["summary"]
    assert abs(m["owd"]["min_ns"] - 1200) < 1 and abs(m["owd"]["max_ns"] - 1200) < 1
    assert m["owd_uncalibrated"]["max_ns"] == pytest.approx(1400 + 0.5 * 1514, abs=1)
    # A fit needs several sizes.
    assert fastpath("ptrain", "analyze", dut, "--fit", tmp_path / "x.json") == 0
    single = tmp_path / "one.pcap"
    assert fastpath("ptrain", "frames", "--count", 10, "--size", 100, "--pcap", single) == 0
    capsys.readouterr()
    assert fastpath("ptrain", "analyze", single, "--fit", tmp_path / "y.json") == 2
    one_error_line(capsys, "two sizes")
    (tmp_path / "bad.json").write_text("[]")
    assert fastpath("ptrain", "analyze", single, "--calibration", tmp_path / "bad.json") == 2
    one_error_line(capsys, "not a calibration")


def _write_raw_pcap(path, linktype: int, frames: list[bytes]) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, linktype))
        for i, d in enumerate(frames):
            f.write(struct.pack("<IIII", 1_700_000_000, i, len(d), len(d)) + d)


def test_bad_input(tmp_path, capsys):
    good = [fr.build(200, i, 0, i, 10, (1_700_000_000 * 10**9 + i * 1000) << 16) for i in range(10)]
    # Not Ethernet (link type 101, raw IP).
    _write_raw_pcap(tmp_path / "raw.pcap", 101, [g[14:] for g in good])
    assert fastpath("ptrain", "analyze", tmp_path / "raw.pcap") == 2
    one_error_line(capsys, "not Ethernet")
    # Ethernet, but no tester frame.
    rng = random.Random(3)
    write_pcap(tmp_path / "plain.pcap", [udp_frame(200, rng) for _ in range(5)])
    assert fastpath("ptrain", "analyze", tmp_path / "plain.pcap") == 2
    one_error_line(capsys, "no tester frames", "5 foreign")
    # Truncated tester frames: counted as malformed, never a record.
    cut = [g[:150] for g in good[:3]] + [g[:60] for g in good[3:5]] + good[5:]
    _write_raw_pcap(tmp_path / "cut.pcap", 1, cut)
    out = tmp_path / "cut.json"
    assert fastpath("ptrain", "analyze", tmp_path / "cut.pcap", "--json", out) == 0
    assert "5 malformed (truncated 5)" in capsys.readouterr().out
    r = json.loads(out.read_text())
    assert r["input"]["malformed"]["truncated"] == 5 and r["input"]["tester_frames"] == 5
    m = r["streams"][0]["summary"]
    assert (m["received"], m["lost"], m["frames_expected"]) == (5, 5, 10)
    _write_raw_pcap(tmp_path / "allcut.pcap", 1, [g[:100] for g in good])
    assert fastpath("ptrain", "analyze", tmp_path / "allcut.pcap") == 2
    one_error_line(capsys, "no tester frames", "10 malformed")
    # A capture cut by its snap length after the tester header is fine (wire length recorded).
    with open(tmp_path / "snap.pcap", "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 96, 1))
        for i, g in enumerate(good):
            f.write(struct.pack("<IIII", 1_700_000_000, 500 + i * 1000, 96, len(g)) + g[:96])
    assert fastpath("ptrain", "analyze", tmp_path / "snap.pcap", "--json", out) == 0
    capsys.readouterr()
    m = json.loads(out.read_text())["streams"][0]["summary"]
    assert m["received"] == 10 and m["owd"]["min_ns"] == m["owd"]["max_ns"] == 500
    # Not a capture; no such file.
    (tmp_path / "text.pcap").write_text("hello, this is not a capture\n")
    assert fastpath("ptrain", "analyze", tmp_path / "text.pcap") == 2
    one_error_line(capsys, "not a pcap or pcapng")
    assert fastpath("ptrain", "analyze", tmp_path / "none.pcap") == 2
    one_error_line(capsys, "no such capture")


def test_frames_options_are_checked(tmp_path, capsys):
    p = tmp_path / "x.pcap"
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 59, "--pcap", p) == 2
    one_error_line(capsys, "60..65535")
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 60, "--train-length", 70000, "--pcap", p) == 2
    one_error_line(capsys, "65536")
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 100, "--ipv6", "--pcap", p) == 2
    one_error_line(capsys, "104..65535")
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 100, "--pcap", tmp_path / "x.txt") == 2
    one_error_line(capsys, ".pcapng")
    assert fastpath("ptrain", "frames", "--count", 0, "--size", 100, "--pcap", p) == 2
    assert "positive" in capsys.readouterr().err
    assert fastpath("ptrain", "frames", "--count", 5, "--size", "1x", "--pcap", p) == 2
    assert "BYTES" in capsys.readouterr().err
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 100, "--rate-mbps", 0, "--pcap", p) == 2
    one_error_line(capsys, "positive")
    assert fastpath("ptrain", "frames", "--count", 5, "--size", 100, "--vlan", 5000, "--pcap", p) == 2
    one_error_line(capsys, "VLAN")
    assert not p.exists()


def test_frames_help_says_it_is_the_software_model(capsys):
    assert fastpath("ptrain", "frames", "--help") == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "SOFTWARE MODEL" in text and "not the RTL generator" in text


def test_a_microsecond_capture_is_flagged(tmp_path, capsys):
    """fastpath.frames.write_pcap writes microseconds: the analysis says its figures are coarse."""
    frames = [cap.Captured(fr.build(200, i, 0, i, 4, (1_700_000_000 * 10**9 + i * 10_000) << 16), 0, 0)
              for i in range(4)]
    from fastpath.frames import Captured as Fc
    write_pcap(tmp_path / "us.pcap", [Fc(f.data, 1_700_000_000 + i * 1e-5 + 2e-6) for i, f in enumerate(frames)])
    assert fastpath("ptrain", "analyze", tmp_path / "us.pcap") == 0
    assert "steps of 1000 ns" in capsys.readouterr().out
    c = an.records_from_capture(cap.read(tmp_path / "us.pcap"))[1]
    assert c.rx_resolution_ns == 1000


def test_gen_runs_the_rtl_generator(tmp_path, capsys):
    """`fastpath ptrain gen`: the RTL generator and MAC in simulation; the capture analyses to the
    configured rate exactly, and a size the generator cannot make is refused in one line."""
    out = tmp_path / "gen.pcapng"
    assert cli.main(["ptrain", "gen", "--count", "30", "--size", "300", "--train-length", "10",
                     "--rate-mbps", "400", "--pcap", str(out)]) == 0
    records, info, _ = an.records_from_capture(cap.read(out), str(out))
    assert info.frames == 30 and len(records) == 30
    s = an.analyze(records)["streams"][0]["summary"]
    # 324 wire bytes every round(324 * 8 / 0.4 / 8) = 810 cycles of 8 ns: 400.0 Mb/s
    assert s["lost"] == 0 and abs(s["capacity_bps"] - 324 * 8 / (810 * 8e-9)) < 1
    capsys.readouterr()
    assert cli.main(["ptrain", "gen", "--count", "3", "--size", "59", "--pcap", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "60..9000" in err[0]


@pytest.mark.parametrize("ten_g", [False, True], ids=["1g", "10g"])
def test_gen_60_byte_frames_at_line_rate(tmp_path, capsys, ten_g):
    """`fastpath ptrain gen --size 60`: minimum Ethernet frames (64 with FCS) with the compact
    header, back to back: every frame parses, one train, the line rate from its dispersion."""
    out = tmp_path / "g60.pcapng"
    assert cli.main(["ptrain", "gen", "--count", "40", "--size", "60", "--pcap", str(out)]
                    + (["--10g"] if ten_g else [])) == 0
    records, info, _ = an.records_from_capture(cap.read(out), str(out))
    assert info.frames == 40 and len(records) == 40 and info.malformed_total == 0
    assert all(r.train_len == 0 and r.size == 60 for r in records)
    s = an.analyze(records)["streams"][0]
    assert s["summary"]["lost"] == 0 and len(s["trains"]) == 1
    assert s["trains"][0]["train_len_from"] == "last_frame"
    # 1G exact; 10G: the deficit idle count moves each start by up to half a word (3.2 ns)
    assert abs(s["summary"]["capacity_bps"] / (10e9 if ten_g else 1e9) - 1) < (2e-4 if ten_g else 1e-9)


def _fade_stream(lost=(), first_number=0, bad=()) -> tuple[bytes, list]:
    """The FADE record stream of fp_ptrain_fade_1g for 3 trains of 20 1000-byte frames at 1 Gb/s
    (8192 ns apart), one-way delay 2500 ns: the receiver's records, 40 bytes each."""
    from fastpath.ptrain import record as rec
    q = 1 << 16
    recs = []
    for seq in range(60):
        if seq in lost:
            continue
        train, index = divmod(seq, 20)
        tx = (1_000_000 + train * 400_000 + index * 8192) * q
        recs.append(rec.RxRecord(bad=int(seq in bad), dup=0, reordered=0, late=0, tx_flags=1, stream=2,
                                 size=1000, seq=seq, train=train, index=index, train_len=20,
                                 tx_time=tx, rx_time=tx + 2500 * q))
    from fastpath.ptrain import fade_records as fr
    return fr.encode(recs, first_number), recs


def test_analyze_records_from_fade(tmp_path, capsys):
    """`fastpath ptrain analyze --records FILE`: the byte stream fade-recv writes from
    fp_ptrain_fade_1g (fastpath.ptrain.fade_records) analysed as a capture would be: delays
    exact, 1 Gb/s from the trains without loss, lost frames and bad-FCS records left out; a stream cut inside a
    record or with a break in the record numbers is analysed with a warning."""
    from fastpath.ptrain import fade_records as fr
    data, recs = _fade_stream(lost={7, 12}, first_number=1000, bad={3})   # all in train 0
    path = tmp_path / "records.bin"
    path.write_bytes(data)
    out = tmp_path / "r.json"
    assert fastpath("ptrain", "analyze", "--records", path, "--json", out) == 0
    text = capsys.readouterr().out
    assert "58 records over FADE (numbers 1000..1057), 1 of frames with a bad FCS left out" in text
    assert "WARNING" not in text and "1.000000 Gb/s" in text
    r = json.loads(out.read_text())
    assert r["records_input"]["records"] == 58 and r["records_input"]["number_gaps"] == 0
    m = r["streams"][0]["summary"]
    assert r["streams"][0]["stream"] == 2
    assert (m["frames_expected"], m["received"], m["lost"], m["trains"]) == (60, 57, 3, 3)
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == 2500
    assert m["capacity_median_bps"] == pytest.approx(1e9, rel=1e-12)   # trains 1 and 2: no loss
    # the decoder alone: the records back, byte for byte
    d = fr.decode(data)
    assert d.rx == recs and d.numbers == list(range(1000, 1058)) and d.cut_bytes == 0
    # a stream ending inside a record (STOP without DRAIN), and one with a record missing
    path.write_bytes(data[:10 * fr.NBYTES] + data[11 * fr.NBYTES:] + data[:16])
    assert fastpath("ptrain", "analyze", "--records", path) == 0
    text = capsys.readouterr().out
    assert "WARNING: 1 break in the record numbers (first at record 10: 1011, expected 1010)" in text
    assert "ends inside a record (16 bytes" in text
    # fed in pieces of any size, the decoder gives the same
    dec = fr.Decoder()
    for i in range(0, len(data), 13):
        dec.feed(data[i:i + 13])
    assert dec.finish().rx == recs


def test_analyze_records_bad_input(tmp_path, capsys):
    capture = tmp_path / "c.pcap"
    assert fastpath("ptrain", "frames", "--count", 10, "--size", 100, "--pcap", capture) == 0
    capsys.readouterr()
    path = tmp_path / "r.bin"
    path.write_bytes(_fade_stream()[0])
    assert fastpath("ptrain", "analyze", capture, "--records", path) == 2
    one_error_line(capsys, "not both")
    assert fastpath("ptrain", "analyze") == 2
    one_error_line(capsys, "--records")
    assert fastpath("ptrain", "analyze", "--records", path, "--pcapng", tmp_path / "x.pcapng") == 2
    one_error_line(capsys, "--pcapng needs a capture")
    assert fastpath("ptrain", "analyze", "--records", tmp_path / "none.bin") == 2
    one_error_line(capsys, "none.bin")
    path.write_bytes(bytes(39))
    assert fastpath("ptrain", "analyze", "--records", path) == 2
    one_error_line(capsys, "no records", "39 bytes")
