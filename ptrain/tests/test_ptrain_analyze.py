"""The analyser (fastpath.ptrain.analyze) against known truth: synthetic records with a known
constant delay, a known jitter pattern and a known rate-limited spacing; IPDV and RFC 3550
jitter against hand-computed values; loss, reordering and duplicates of crafted sequences counted
exactly; the calibration fit recovering a known line."""
from __future__ import annotations

import random
from fractions import Fraction

import pytest

from fastpath.ptrain import analyze as an
from fastpath.ptrain import model

NS = 1 << 16
T0 = 1_700_000_000 * 10**9 * NS


def records(delays_ns, seqs=None, size=1000, spacing_ns=8192, train_len=None, train=0, tx0=T0, stream=0):
    """One record per arrival: seq from `seqs` (default 0..n-1), TX at seq * spacing, RX = TX +
    delay; delays in ns (numbers or Fractions)."""
    seqs = list(range(len(delays_ns))) if seqs is None else seqs
    n = train_len or (max(seqs) + 1)
    out = []
    for s, d in zip(seqs, delays_ns):
        tx = tx0 + s * spacing_ns * NS
        out.append(an.Record(seq=s, train=train, index=s, size=size, tx_time=tx & an.MASK64,
                             rx_time=(tx + round(Fraction(d) * NS)) & an.MASK64, stream=stream, train_len=n))
    return out


def summary(recs, **kw):
    (s,) = an.analyze(recs, **kw)["streams"]
    return s["summary"], s["trains"]


def test_known_rate_delay_and_jitter():
    """1000 frames of 1000 bytes every 8192 ns (1 Gb/s at layer 1, 1024 wire bytes), delay 5 us
    plus a known jitter pattern: capacity within 0.1 %, every delay figure exact."""
    n = 1000
    jitter = [(i * 37) % 11 * 3 for i in range(n)]           # 0..30 ns
    delays = [5000 + j for j in jitter]
    m, (t,) = summary(records(delays))
    disp = (n - 1) * 8192 + jitter[-1] - jitter[0]
    assert m["capacity_bps"] == float(Fraction((n - 1) * 1024 * 8 * 10**9, disp))
    assert abs(m["capacity_bps"] / 1e9 - 1) < 1e-3
    assert t["capacity_l2_bps"] == pytest.approx(m["capacity_bps"] * 1004 / 1024, rel=1e-12)
    assert m["input_rate_median_bps"] == 1e9
    o = m["owd"]
    assert o["count"] == n and o["min_ns"] == 5000 and o["max_ns"] == 5030
    assert o["mean_ns"] == float(Fraction(sum(delays), n))
    srt = sorted(delays)
    for p, rank in (("50", 500), ("90", 900), ("99", 990), ("99.9", 999)):
        assert o[f"p{p}_ns"] == srt[rank - 1], p
    ipdv = [b - a for a, b in zip(delays, delays[1:])]
    assert m["ipdv"]["count"] == n - 1 and m["ipdv"]["min_ns"] == min(ipdv) and m["ipdv"]["max_ns"] == max(ipdv)
    assert m["ipdv"]["mean_ns"] == float(Fraction(sum(ipdv), n - 1))
    assert m["pdv"]["max_ns"] == 30
    assert (m["lost"], m["duplicates"], m["reordered"], m["frames_expected"]) == (0, 0, 0, n)


def test_back_to_back_trains_give_the_line_rate():
    """The software model's schedule: 10 trains of 100 back-to-back 84-byte frames at 10 Gb/s
    (86.4 ns slots, TX rounded to fp_time units) and a constant delay: 10 Gb/s within 1e-6,
    packet pairs too, and the delay exact."""
    sent = model.schedule(model.Traffic(count=1000, sizes=(84,), rate_mbps=10_000, train_length=100))
    recs = [an.Record(s.seq, s.train, s.index, s.size, s.tx_time & an.MASK64,
                      (s.tx_time + 700 * NS) & an.MASK64, train_len=s.train_len) for s in sent]
    m, trains = summary(recs)
    assert len(trains) == 10 and m["trains_measured"] == 10
    assert abs(m["capacity_bps"] / 1e10 - 1) < 1e-6
    assert abs(m["pair_capacity"]["median_bps"] / 1e10 - 1) < 1e-5
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == 700
    assert m["ipdv"]["max_ns"] == 0 and m["rfc3550_jitter_ns"] == 0


def test_ipdv_and_rfc3550_jitter_hand_computed():
    """Delays 100, 103, 101, 101, 110 ns: IPDV 3, -2, 0, 9; J after each arrival:
    3/16 = 0.1875; + (2 - 0.1875)/16 = 0.30078125; + (0 - 0.30078125)/16 = 0.281982421875;
    + (9 - 0.281982421875)/16 = 0.8268585205078125."""
    m, (t,) = summary(records([100, 103, 101, 101, 110]))
    assert an.rfc3550_jitter([d * NS for d in (100, 103)]) == 0.1875
    assert an.rfc3550_jitter([d * NS for d in (100, 103, 101)]) == 0.30078125
    assert an.rfc3550_jitter([d * NS for d in (100, 103, 101, 101)]) == 0.281982421875
    assert m["rfc3550_jitter_ns"] == t["rfc3550_jitter_ns"] == 0.8268585205078125
    i = m["ipdv"]
    assert (i["count"], i["min_ns"], i["max_ns"], i["mean_ns"], i["mean_abs_ns"]) == (4, -2, 9, 2.5, 3.5)
    assert (i["p50_abs_ns"], i["p90_abs_ns"]) == (2, 9)           # nearest rank of |IPDV| 0, 2, 3, 9
    assert m["pdv"]["p50_ns"] == 1 and m["pdv"]["max_ns"] == 10   # delays - 100: 0, 3, 1, 1, 10


def test_jitter_orders_differ_when_frames_are_reordered():
    """RFC 3550 follows arrival order, IPDV follows sequence numbers: seq 0, 2, 1, 3 arriving
    with delays 10, 30, 25, 12 (sequence order: 10, 25, 30, 12)."""
    m, _ = summary(records([10, 30, 25, 12], seqs=[0, 2, 1, 3]))
    assert m["ipdv"]["min_ns"] == -18 and m["ipdv"]["max_ns"] == 15          # 15, 5, -18
    assert m["ipdv"]["mean_abs_ns"] == pytest.approx(38 / 3, abs=1e-12)
    j = 0.0
    for d in (20, 5, 13):   # |D| in arrival order: 30-10, 25-30, 12-25
        j += (d - j) / 16
    assert m["rfc3550_jitter_ns"] == j
    assert m["reordered"] == 1 and m["reorder_extent_max"] == 1


def test_loss_reordering_duplicates_counted_exactly():
    seqs = [0, 1, 3, 2, 2, 5, 4, 9, 6, 6, 6]
    m, (t,) = summary(records([100] * len(seqs), seqs=seqs, train_len=10))
    assert (m["frames_expected"], m["received"], m["lost"]) == (10, 8, 2)    # 7 and 8
    assert m["loss_rate"] == 0.2
    assert (m["duplicates"], m["reordered"], m["reorder_extent_max"]) == (3, 3, 1)
    assert (t["received"], t["lost"], t["duplicates"], t["reordered"]) == (8, 2, 3, 3)
    m, _ = summary(records([100] * 6, seqs=[3, 4, 5, 0, 1, 2]))
    assert (m["reordered"], m["reorder_extent_max"], m["lost"]) == (3, 5, 0)


def test_whole_trains_and_train_tails_lost():
    """3 trains of 5 (seq 0..14): train 1 lost entirely, train 2's last frame lost, train 0's
    frame 3 duplicated: 15 expected, 9 received, 6 lost."""
    recs = []
    for train, idx in ((0, [0, 1, 2, 3, 3, 4]), (2, [0, 1, 2, 3])):
        for i in idx:
            s = train * 5 + i
            tx = T0 + s * 1000 * NS
            recs.append(an.Record(s, train, i, 200, tx & an.MASK64, (tx + 50 * NS) & an.MASK64, train_len=5))
    m, trains = summary(recs)
    assert (m["frames_expected"], m["received"], m["lost"], m["duplicates"]) == (15, 9, 6, 1)
    assert [(t["train"], t["received"], t["lost"], t["duplicates"]) for t in trains] == [(0, 5, 0, 1), (2, 4, 1, 0)]


def test_sequence_numbers_and_fp_time_wrap():
    """seq wraps at 2^32 and fp_time at 2^64 in the middle of a train: nothing lost or reordered,
    delays exact."""
    base = 2**32 - 3
    seqs = [(base + i) & 0xFFFFFFFF for i in range(6)]
    tx0 = 2**64 - 3 * 1000 * NS
    recs = [an.Record(s, 0, i, 300, (tx0 + i * 1000 * NS) & an.MASK64, (tx0 + (i * 1000 + 400) * NS) & an.MASK64,
                      train_len=6) for i, s in enumerate(seqs)]
    m, _ = summary(recs)
    assert (m["frames_expected"], m["lost"], m["reordered"], m["duplicates"]) == (6, 0, 0, 0)
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == 400
    assert m["input_rate_median_bps"] == pytest.approx(324 * 8 / 1000 * 1e9)


def test_streams_are_separate_sequence_spaces():
    a = records([100, 100, 100], stream=0)
    b = records([200, 200], seqs=[0, 2], stream=5, train_len=3)
    res = an.analyze(a + b)
    s0, s5 = res["streams"]
    assert (s0["stream"], s0["summary"]["lost"], s0["summary"]["owd"]["max_ns"]) == (0, 0, 100)
    assert (s5["stream"], s5["summary"]["lost"], s5["summary"]["owd"]["min_ns"]) == (5, 1, 200)


def test_percentile_is_nearest_rank():
    v = list(range(1, 1001))
    assert [an.percentile(v, p) for p in ("50", "90", "99", "99.9", "100")] == [500, 900, 990, 999, 1000]
    assert an.percentile([7], "99.9") == 7
    assert an.percentile([1, 2, 3], "0") == 1


def _loopback(rng, slope_q16, icpt_q16, noise_q16=0, sizes=range(84, 1515, 26), per_size=20):
    pts = []
    for s in sizes:
        for _ in range(per_size):
            pts.append((s, slope_q16 * s + icpt_q16 + (rng.randint(-noise_q16, noise_q16) if noise_q16 else 0)))
    return pts


def test_calibration_fit_recovers_a_known_line():
    cal = an.fit(_loopback(random.Random(1), 49152, 312 * NS + NS // 2))   # 0.75 ns/byte, 312.5 ns
    assert (cal.slope_ns_per_byte, cal.intercept_ns, cal.residual_rms_ns) == (0.75, 312.5, 0.0)
    noisy = an.fit(_loopback(random.Random(2), 49152, 312 * NS + NS // 2, noise_q16=2 * NS))  # +-2 ns
    assert abs(noisy.slope_ns_per_byte - 0.75) < 0.001 and abs(noisy.intercept_ns - 312.5) < 0.5
    with pytest.raises(an.CalibrationError, match="two sizes"):
        an.fit([(100, 5), (100, 6)])


def test_calibrated_delays_subtract_the_loopback_line(tmp_path):
    """A DUT adding 750 ns behind a tester whose own path is 0.75 ns/byte + 312.5 ns: the
    calibrated delay is 750 ns at every size; the uncalibrated one is kept beside it."""
    cal = an.fit(_loopback(random.Random(1), 49152, 312 * NS + NS // 2))
    cal.save(tmp_path / "fit.json")
    cal = an.Calibration.load(tmp_path / "fit.json")
    recs = []
    for i, size in enumerate([84, 500, 1514] * 10):
        tx = T0 + i * 20_000 * NS
        d = 49152 * size + 312 * NS + NS // 2 + 750 * NS
        recs.append(an.Record(i, 0, i, size, tx & an.MASK64, (tx + d) & an.MASK64, train_len=30))
    res = an.analyze(recs, calibration=cal)
    m = res["streams"][0]["summary"]
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == 750
    assert m["owd_uncalibrated"]["min_ns"] == 0.75 * 84 + 312.5 + 750
    assert res["calibration"]["slope_ns_per_byte"] == 0.75
    assert m["delay_vs_size"]["slope_ns_per_byte"] == 0.75
    (tmp_path / "bad.json").write_text('{"slope": 1}')
    with pytest.raises(an.CalibrationError, match="not a calibration"):
        an.Calibration.load(tmp_path / "bad.json")
    with pytest.raises(an.CalibrationError, match="no such"):
        an.Calibration.load(tmp_path / "none.json")


def test_longer_trains_resist_jitter():
    """The packet-train argument (seeds/003, section 3), measured on the software model: 5000
    back-to-back 84-byte frames at 10 Gb/s (86.4 ns slots) with up to 20 ns of uniform jitter on
    every delay. Trains of 1000: the run within 0.01 %, every train within 0.05 %; trains of 10:
    some train off by more than 1 %; single packet pairs: off by more than 10 % both ways."""
    from fastpath.ptrain import capture as cap

    def run(length):
        rx, _ = model.frames(model.Traffic(count=5000, sizes=(84,), rate_mbps=10_000, train_length=length),
                             model.Delay(base_ns=1000, jitter_ns=20))
        recs, _, _ = an.records_from_capture(cap.Capture(rx, "pcap", 1))
        (s,) = an.analyze(recs)["streams"]
        return s["summary"], [abs(t["capacity_bps"] / 1e10 - 1) for t in s["trains"]]

    m, errs = run(1000)
    assert abs(m["capacity_bps"] / 1e10 - 1) < 1e-4 and max(errs) < 5e-4
    assert m["owd"]["min_ns"] >= 1000 and m["owd"]["max_ns"] <= 1020
    m, errs = run(10)
    assert max(errs) > 1e-2
    pc = m["pair_capacity"]
    assert pc["min_bps"] < 0.9e10 and pc["max_bps"] > 1.1e10 and abs(pc["median_bps"] / 1e10 - 1) < 5e-3


def test_compact_trains_from_frames():
    """60-byte frames (the compact header: train = seq - index, train_len unknown) back to back at
    10G (67.2 ns per frame), three trains of 20 across the 2^32 wrap of seq, the tail of the
    second (with its FLAG_LAST frame) and a middle frame of the third lost: each train's figures
    from its frames (the second's tail unseen there), the stream's loss exact, the line rate
    from the dispersion."""
    from fastpath.ptrain import capture as cap
    from fastpath.ptrain import frame as fr

    per_ns = Fraction(672, 10)                      # (60 + 24) bytes at 10 Gb/s
    seq0 = 0xFFFFFFFF - 25
    frames = []
    for k in range(60):
        train, index = divmod(k, 20)
        if (train == 1 and index >= 17) or (train == 2 and index == 9):
            continue
        tx = T0 + round(k * per_ns * NS)
        d = fr.build(60, (seq0 + k) & 0xFFFFFFFF, train, index, 20, tx,
                     flags=fr.FLAG_TX_HW | (fr.FLAG_LAST if index == 19 else 0))
        frames.append(cap.Captured(d, tx + 700 * NS, len(d)))
    recs, info, _ = an.records_from_capture(cap.Capture(kind="pcapng", frames=frames, resolution_ns=1.0))
    assert info.tester_frames == 56 and info.malformed_total == 0 and info.foreign == 0
    assert all(r.train_len == 0 for r in recs)
    assert [r.train for r in recs[::20]] == [(seq0 + 20 * t) & 0xFFFFFFFF for t in range(3)]
    res = an.analyze(recs)
    (st,) = res["streams"]
    m, trains = st["summary"], st["trains"]
    assert [(t["train_len"], t["train_len_from"], t["received"], t["lost"]) for t in
            sorted(trains, key=lambda t: (t["train"] - seq0) & 0xFFFFFFFF)] == \
        [(20, "last_frame", 20, 0), (17, "lower_bound", 17, 0), (20, "last_frame", 19, 1)]
    # the stream's loss counts by seq across trains: the second train's tail too
    assert (m["received"], m["lost"], m["frames_expected"]) == (56, 4, 60)
    assert m["owd"]["min_ns"] == m["owd"]["max_ns"] == 700
    # every train's dispersion (a lost frame's slot counted by seq) gives the line rate
    for t in trains:
        assert t["capacity_bps"] == pytest.approx(10e9 * 1 if t["lost"] == 0 else 10e9 * 18 / 19, rel=1e-6)
        assert t["input_rate_bps"] == pytest.approx(10e9, rel=1e-6)
    assert m["pair_capacity"]["median_bps"] == pytest.approx(10e9, rel=1e-6)
