"""Network parameters from received packet trains: capacity, one-way delay, jitter, loss, order.

Input: `Record`s, one per received tester frame in arrival order (from a capture:
`records_from_capture`; later from the RTL receiver). Times are fp_time (Q48.16 ns, 64 bits);
a one-way delay is rx_time - tx_time as a 64-bit difference read as signed, so delays are exact
and need no epoch (docs/architecture.md, "Time"). Output: a JSON-ready dict per stream, with a
summary of the run and one entry per train.

Definitions (ptrain/README.md repeats them):

* Wire size: a frame of `size` bytes (without FCS) occupies size + 24 bytes on an Ethernet wire
  (FCS 4, preamble + SFD 8, minimum inter-frame gap 12): `capacity_bps` is the layer-1 rate, so
  back-to-back frames on 10GBASE-R give 10 Gb/s at every size. `capacity_l2_bps` counts frame +
  FCS only.
* Capacity from a train's dispersion: the wire bits of the first n-1 frames to arrive over
  (arrival of the last - arrival of the first); RX timestamps mark the start of each frame.
  Run value: the bits of every train over the sum of their dispersions (`capacity_bps`) and the
  median of the trains' values. Packet pairs: two frames of a train with consecutive indices
  arriving one after the other: the first's wire bits over their arrival gap.
  `input_rate_bps`: the same from the TX times (what the generator offered).
* One-way delay (OWD): min, mean, max and nearest-rank percentiles (p50, p90, p99, p99.9: the
  smallest delay with at least that share of delays at or below it, so always a measured value).
  `pdv`: delay minus the minimum delay (RFC 5481 PDV).
* IPDV (RFC 3393, RFC 5481 selection): delay(seq+1) - delay(seq) for every two consecutive
  sequence numbers both received (per train: consecutive indices).
* RFC 3550 interarrival jitter: in arrival order, D = delay(i) - delay(i-1) and
  J += (|D| - J) / 16, starting from 0; the value after the last frame (per train: restarted).
* Loss, reordering, duplicates, counted exactly per stream: a copy of a sequence number already
  received is a duplicate (and is left out of everything else); a frame whose sequence number is
  lower than the highest received before it is reordered (RFC 4737), its extent the arrivals since
  the first frame with a higher number. Frames expected: from the first sequence number of the
  first train received to the last of the last train received (seq counts frames across trains),
  so whole trains lost in between, and frames lost at a train's end, count.
* Trains of compact frames (ptrain/README.md "Frame format": 60..83-byte IPv4 frames carry no
  train length; their train is seq - index): a train's length is its highest index received + 1
  (`train_len_from`: "header" when the frames carry it, "last_frame" when the train's FLAG_LAST
  frame arrived, "lower_bound" otherwise: then the train's figures miss a lost tail, which the
  stream's loss still counts by seq unless the train is the last). Packet pairs and the
  offered rate count frames between two records by their sequence numbers.
* Calibration (seeds/003, section 6.3): `fit()` is the least-squares line delay = slope * size +
  intercept over a loopback run's frames; `analyze(..., calibration=fit)` subtracts it from every
  delay, so calibrated delays exclude the tester's own TX and RX paths (the loopback cable counts
  as zero).
"""
from __future__ import annotations

import json
import math
from bisect import bisect_right
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from statistics import median
from typing import Iterable

from . import capture as cap
from . import frame as fr

NS = 1 << 16
MASK64 = (1 << 64) - 1
PERCENTILES = ("50", "90", "99", "99.9")
FCS = 4


@dataclass(frozen=True)
class Record:
    """One received tester frame."""
    seq: int
    train: int
    index: int
    size: int          # bytes, without FCS
    tx_time: int       # fp_time
    rx_time: int       # fp_time
    flags: int = 0
    stream: int = 0
    train_len: int = 0  # 0: unknown (a compact frame; taken as the highest index received + 1)


def diff(a: int, b: int) -> int:
    """a - b for fp_time values: the 64-bit difference, read as signed."""
    d = (a - b) & MASK64
    return d - (1 << 64) if d >> 63 else d


def wire_bits(size: int) -> int:
    return fr.wire_bytes(size) * 8


def _ns(q16: int | Fraction) -> float:
    return float(Fraction(q16) / NS)


def percentile(values: list, p: str | float) -> int | float:
    """Nearest-rank percentile of sorted values: the smallest value with at least p % of the
    values at or below it."""
    k = math.ceil(Fraction(str(p)) * len(values) / 100)
    return values[max(k, 1) - 1]


def delay_stats(q16: list[int]) -> dict:
    """count, min, mean, max and percentiles of delays given in fp_time units, in ns."""
    if not q16:
        return {"count": 0}
    v = sorted(q16)
    out = {"count": len(v), "min_ns": _ns(v[0]), "mean_ns": _ns(Fraction(sum(v), len(v))), "max_ns": _ns(v[-1])}
    for p in PERCENTILES:
        out[f"p{p}_ns"] = _ns(percentile(v, p))
    return out


def ipdv_stats(q16: list[int]) -> dict:
    """IPDV values: count, min, max, mean, mean of |IPDV|, and percentiles of |IPDV|, in ns."""
    if not q16:
        return {"count": 0}
    a = sorted(abs(x) for x in q16)
    out = {"count": len(q16), "min_ns": _ns(min(q16)), "max_ns": _ns(max(q16)),
           "mean_ns": _ns(Fraction(sum(q16), len(q16))), "mean_abs_ns": _ns(Fraction(sum(a), len(a)))}
    for p in PERCENTILES:
        out[f"p{p}_abs_ns"] = _ns(percentile(a, p))
    return out


def rfc3550_jitter(delays_q16: Iterable[int]) -> float:
    """RFC 3550 interarrival jitter (section 6.4.1) over delays in arrival order, in ns."""
    j = 0.0
    prev = None
    for d in delays_q16:
        if prev is not None:
            j += (abs(d - prev) / NS - j) / 16
        prev = d
    return j


# --------------------------------------------------------------------------------------------
# Calibration


class CalibrationError(ValueError):
    pass


@dataclass
class Calibration:
    """delay = slope_ns_per_byte * size + intercept_ns, from a loopback run."""
    slope_ns_per_byte: float
    intercept_ns: float
    points: int = 0
    size_min: int = 0
    size_max: int = 0
    residual_rms_ns: float = 0.0
    source: str = ""
    kind: str = field(default="fastpath.ptrain calibration")

    def delay_q16(self, size: int) -> int:
        return round((self.slope_ns_per_byte * size + self.intercept_ns) * NS)

    def to_dict(self) -> dict:
        return asdict(self)

    def save(self, path: str | Path) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        try:
            d = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise CalibrationError(f"no such calibration file: {path}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CalibrationError(f"{path}: not JSON ({e})") from None
        if not isinstance(d, dict) or d.get("kind") != "fastpath.ptrain calibration" or \
                not all(isinstance(d.get(k), (int, float)) for k in ("slope_ns_per_byte", "intercept_ns")):
            raise CalibrationError(f"{path}: not a calibration written by `fastpath ptrain analyze --fit`")
        known = {k: d[k] for k in cls.__dataclass_fields__ if k in d}
        return cls(**known)


def fit(points: Iterable[tuple[int, int]], source: str = "") -> Calibration:
    """Least-squares line through (size in bytes, delay in fp_time units), computed exactly."""
    pts = list(points)
    n = len(pts)
    if n < 2 or len({x for x, _ in pts}) < 2:
        raise CalibrationError("a fit needs frames of at least two sizes (a loopback run over several sizes)")
    sx = sum(x for x, _ in pts)
    sy = sum(y for _, y in pts)
    sxx = sum(x * x for x, _ in pts)
    sxy = sum(x * y for x, y in pts)
    slope = Fraction(n * sxy - sx * sy, n * sxx - sx * sx)          # fp_time units per byte
    icpt = Fraction(sy - slope * sx, n)
    rss = sum((y - slope * x - icpt) ** 2 for x, y in pts)
    return Calibration(slope_ns_per_byte=_ns(slope), intercept_ns=_ns(icpt), points=n,
                       size_min=min(x for x, _ in pts), size_max=max(x for x, _ in pts),
                       residual_rms_ns=math.sqrt(float(rss / n)) / NS, source=source)


# --------------------------------------------------------------------------------------------
# Analysis


def _unwrap(seqs: Iterable[int]) -> list[int]:
    """32-bit sequence numbers, in arrival order, extended past their wraps (each taken nearest to
    the one before it)."""
    out = []
    prev = None
    for s in seqs:
        if prev is None:
            e = s
        else:
            d = (s - prev) & 0xFFFFFFFF
            e = prev + (d - (1 << 32) if d >> 31 else d)
        out.append(e)
        prev = e
    return out


def _order(keys: list[int]) -> tuple[list[int], int, int, int]:
    """Arrival-order keys -> (positions of first copies, duplicates, reordered, max reordering
    extent). RFC 4737: a first copy is reordered when its key is lower than the highest before it;
    its extent counts the first copies since the earliest one with a higher key."""
    seen: set[int] = set()
    firsts: list[int] = []
    dups = 0
    for i, k in enumerate(keys):
        if k in seen:
            dups += 1
        else:
            seen.add(k)
            firsts.append(i)
    reordered = 0
    extent = 0
    prefix_max: list[int] = []
    for pos, i in enumerate(firsts):
        k = keys[i]
        if prefix_max and k < prefix_max[-1]:
            reordered += 1
            j = bisect_right(prefix_max, k)   # the first earlier arrival with a higher number
            extent = max(extent, pos - j)
        prefix_max.append(max(k, prefix_max[-1]) if prefix_max else k)
    return firsts, dups, reordered, extent


def _capacity(arrivals: list[Record]) -> dict:
    """Dispersion capacity of one train's first copies in arrival order."""
    out: dict = {"dispersion_ns": None, "capacity_bps": None, "capacity_l2_bps": None}
    if len(arrivals) < 2:
        return out
    disp = diff(arrivals[-1].rx_time, arrivals[0].rx_time)
    bits = sum(wire_bits(r.size) for r in arrivals[:-1])
    bits2 = sum((r.size + FCS) * 8 for r in arrivals[:-1])
    out["dispersion_ns"] = _ns(disp)
    out["_bits"], out["_disp"] = bits, disp
    if disp > 0:
        out["capacity_bps"] = float(Fraction(bits * 10**9 * NS, disp))
        out["capacity_l2_bps"] = float(Fraction(bits2 * 10**9 * NS, disp))
    return out


def _step(a: Record, b: Record) -> int:
    """Frames from a to b in their train, by sequence number (seq counts the frames of a stream,
    so this holds for both header formats; a compact frame's index is only its position mod 2^16)."""
    return (b.seq - a.seq) & 0xFFFFFFFF


def _input_rate(by_index: list[Record]) -> float | None:
    """The offered rate from TX times of a train's frames sorted by index (a lost frame's slot is
    taken as the size of the frame before it)."""
    if len(by_index) < 2:
        return None
    span = diff(by_index[-1].tx_time, by_index[0].tx_time)
    bits = sum(_step(a, b) * wire_bits(a.size) for a, b in zip(by_index, by_index[1:]))
    return float(Fraction(bits * 10**9 * NS, span)) if span > 0 else None


def _pairs(arrivals: list[Record]) -> list[float]:
    out = []
    for a, b in zip(arrivals, arrivals[1:]):
        gap = diff(b.rx_time, a.rx_time)
        if _step(a, b) == 1 and gap > 0:
            out.append(float(Fraction(wire_bits(a.size) * 10**9 * NS, gap)))
    return out


def _ipdv(delay_by_key: dict[int, int]) -> list[int]:
    return [delay_by_key[k + 1] - d for k, d in sorted(delay_by_key.items()) if k + 1 in delay_by_key]


def _rate_stats(values: list[float]) -> dict:
    if not values:
        return {"count": 0}
    return {"count": len(values), "median_bps": median(values), "mean_bps": sum(values) / len(values),
            "min_bps": min(values), "max_bps": max(values)}


def _delays(records: list[Record], calibration: Calibration | None) -> list[int]:
    out = [diff(r.rx_time, r.tx_time) for r in records]
    if calibration is not None:
        out = [d - calibration.delay_q16(r.size) for d, r in zip(out, records)]
    return out


def _train(key: tuple[int, int], arrivals: list[Record], calibration: Calibration | None, t0: int) -> dict:
    """One train: `arrivals` are its frames in arrival order, duplicates included; t0: the
    stream's first arrival."""
    firsts, dups, reordered, extent = _order([r.index for r in arrivals])
    uniq = [arrivals[i] for i in firsts]
    # train_len 0: not carried (compact frames); the highest index + 1, which is the train's
    # length when its last frame (FLAG_LAST) arrived, and a lower bound otherwise
    carried = max(r.train_len for r in uniq)
    train_len = carried or (max(r.index for r in uniq) + 1)
    if carried:
        known = "header"
    elif any(r.flags & fr.FLAG_LAST for r in uniq):
        known = "last_frame"
    else:
        known = "lower_bound"
    delays = _delays(uniq, calibration)
    by_index = dict(zip((r.index for r in uniq), delays))
    sizes = sorted({r.size for r in uniq})
    cap_ = _capacity(uniq)
    pairs = _pairs(uniq)
    t = {"stream": key[0], "train": key[1], "train_len": train_len, "train_len_from": known,
         "received": len(uniq),
         "lost": max(train_len - len(uniq), 0), "duplicates": dups, "reordered": reordered,
         "reorder_extent_max": extent, "size_min": sizes[0], "size_max": sizes[-1],
         "start_ns": _ns(diff(uniq[0].rx_time, t0)), **cap_,
         "input_rate_bps": _input_rate(sorted(uniq, key=lambda r: r.index)),
         "pair_capacity_median_bps": median(pairs) if pairs else None,
         "owd": delay_stats(delays), "ipdv": ipdv_stats(_ipdv(by_index)),
         "rfc3550_jitter_ns": rfc3550_jitter(delays)}
    t["_pairs"] = pairs
    return t


def _stream(stream: int, arrivals: list[Record], calibration: Calibration | None) -> dict:
    ext = _unwrap(r.seq for r in arrivals)
    firsts, dups, reordered, extent = _order(ext)
    uniq = [arrivals[i] for i in firsts]
    useq = [ext[i] for i in firsts]
    # Frames expected: the sequence-number span of the trains received.
    starts: dict[int, tuple[int, int]] = {}
    by_train: dict[int, list[Record]] = {}
    for r, s in zip(arrivals, ext):
        by_train.setdefault(r.train, []).append(r)
        if r.train not in starts:
            starts[r.train] = (s - r.index, 0)
    for k, rs in by_train.items():
        n = max(r.train_len for r in rs) or (max(r.index for r in rs) + 1)
        starts[k] = (starts[k][0], starts[k][0] + n)
    first = min(min(s for s, _ in starts.values()), min(useq))
    last = max(max(e for _, e in starts.values()), max(useq) + 1)
    expected = last - first
    lost = expected - len(uniq)
    delays = _delays(uniq, calibration)
    trains = [_train((stream, k), rs, calibration, arrivals[0].rx_time) for k, rs in sorted(by_train.items())]
    pairs = [p for t in trains for p in t.pop("_pairs")]
    measured = [t for t in trains if t.get("_disp", 0) > 0]
    bits = sum(t.pop("_bits") for t in measured)
    disp = sum(t.pop("_disp") for t in measured)
    for t in trains:
        t.pop("_bits", None), t.pop("_disp", None)
    caps = [t["capacity_bps"] for t in measured]
    inputs = [t["input_rate_bps"] for t in trains if t["input_rate_bps"]]
    summary = {
        "frames_expected": expected, "received": len(uniq), "lost": lost,
        "loss_rate": lost / expected if expected else 0.0, "duplicates": dups,
        "reordered": reordered, "reorder_rate": reordered / len(uniq) if uniq else 0.0,
        "reorder_extent_max": extent, "trains": len(trains),
        "trains_measured": len(measured),
        "capacity_bps": float(Fraction(bits * 10**9 * NS, disp)) if disp > 0 else None,
        "capacity_median_bps": median(caps) if caps else None,
        "capacity_min_bps": min(caps) if caps else None,
        "capacity_max_bps": max(caps) if caps else None,
        "pair_capacity": _rate_stats(pairs),
        "input_rate_median_bps": median(inputs) if inputs else None,
        "owd": delay_stats(delays),
        "pdv": _pdv(delays),
        "ipdv": ipdv_stats(_ipdv(dict(zip(useq, delays)))),
        "rfc3550_jitter_ns": rfc3550_jitter(delays),
        "size_min": min(r.size for r in uniq), "size_max": max(r.size for r in uniq),
    }
    if calibration is not None:
        summary["owd_uncalibrated"] = delay_stats(_delays(uniq, None))
    if summary["size_min"] != summary["size_max"]:
        summary["delay_vs_size"] = fit(zip((r.size for r in uniq), _delays(uniq, None))).to_dict()
        summary["delay_vs_size"].pop("kind")
    return {"stream": stream, "summary": summary, "trains": trains}


def _pdv(delays: list[int]) -> dict:
    if not delays:
        return {"count": 0}
    lo = min(delays)
    v = sorted(d - lo for d in delays)
    out = {"count": len(v), "max_ns": _ns(v[-1])}
    for p in PERCENTILES:
        out[f"p{p}_ns"] = _ns(percentile(v, p))
    return out


def analyze(records: Iterable[Record], calibration: Calibration | None = None) -> dict:
    """The network parameters of records given in arrival order, per stream."""
    streams: dict[int, list[Record]] = {}
    for r in records:
        streams.setdefault(r.stream, []).append(r)
    return {
        "wire_overhead_bytes": fr.WIRE_OVERHEAD,
        "capacity_counts": "frame + FCS + preamble/SFD + minimum IFG (layer 1); capacity_l2_bps: frame + FCS",
        "calibration": calibration.to_dict() if calibration else None,
        "streams": [_stream(s, rs, calibration) for s, rs in sorted(streams.items())],
    }


# --------------------------------------------------------------------------------------------
# Captures


@dataclass
class Input:
    path: str
    kind: str
    frames: int = 0
    tester_frames: int = 0
    foreign: int = 0
    malformed: dict = field(default_factory=lambda: {r: 0 for r in fr.REASONS})
    rx_resolution_ns: float = 1.0

    @property
    def malformed_total(self) -> int:
        return sum(self.malformed.values())

    def to_dict(self) -> dict:
        d = asdict(self)
        d["malformed_total"] = self.malformed_total
        return d


def records_from_capture(c: cap.Capture, path: str = "") -> tuple[list[Record], Input, list[cap.Captured]]:
    """Records of the tester frames of a capture (RX time: the capture's timestamp; TX time: the
    frame's own field), in timestamp order; the counts; and the tester frames themselves."""
    info = Input(path=str(path), kind=c.kind, frames=len(c.frames), rx_resolution_ns=c.resolution_ns)
    out: list[tuple[int, int, Record, cap.Captured]] = []
    for i, f in enumerate(c.frames):
        try:
            t = fr.parse(f.data, f.wire_len)
        except fr.Malformed as e:
            info.malformed[e.reason] += 1
            continue
        if t is None:
            info.foreign += 1
            continue
        rec = Record(seq=t.seq, train=t.train, index=t.index, size=t.size, tx_time=t.tx_time,
                     rx_time=f.time & MASK64, flags=t.flags, stream=t.stream, train_len=t.train_len)
        out.append((f.time, i, rec, f))
    out.sort(key=lambda x: (x[0], x[1]))
    info.tester_frames = len(out)
    return [r for _, _, r, _ in out], info, [f for _, _, _, f in out]


def run(path: str | Path, calibration: Calibration | None = None) -> tuple[dict, list[Record], list[cap.Captured]]:
    """Read a capture and analyse its tester frames: (result, records, tester frames)."""
    c = cap.read(path)
    records, info, frames = records_from_capture(c, str(path))
    result = {"input": info.to_dict(), **analyze(records, calibration)}
    return result, records, frames


def comments(records: list[Record], calibration: Calibration | None = None) -> list[str]:
    """One line per record for an annotated pcapng."""
    return [f"ptrain stream {r.stream} train {r.train} index {r.index}/{r.train_len or '?'} seq {r.seq} "
            f"owd {_ns(d):.3f} ns" for r, d in zip(records, _delays(records, calibration))]


def write_json(result: dict, path: str | Path) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=1) + "\n")


# --------------------------------------------------------------------------------------------
# Text and plot


def _rate(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e9:.6f} Gb/s"


def table(result: dict) -> str:
    lines = []
    i = result.get("input")
    if i:
        m = ", ".join(f"{k} {v}" for k, v in i["malformed"].items() if v)
        lines.append(f"{i['path']}: {i['frames']} frames, {i['tester_frames']} tester frames, "
                     f"{i['foreign']} foreign, {i['malformed_total']} malformed" + (f" ({m})" if m else ""))
        if i["rx_resolution_ns"] > 1:
            lines.append(f"  note: RX timestamps in steps of {i['rx_resolution_ns']:g} ns; delays and "
                         "capacities are no finer than that")
    if result.get("calibration"):
        c = result["calibration"]
        lines.append(f"calibrated: delay - ({c['slope_ns_per_byte']:.6f} ns/byte * size + {c['intercept_ns']:.3f} ns)")
    for s in result["streams"]:
        m = s["summary"]
        o, j = m["owd"], m["ipdv"]
        lines += [
            f"stream {s['stream']}: {m['trains']} trains, {m['received']} of {m['frames_expected']} frames "
            f"received, lost {m['lost']} ({m['loss_rate']:.4%}), duplicates {m['duplicates']}, "
            f"reordered {m['reordered']} (max extent {m['reorder_extent_max']})",
            f"  capacity (train dispersion, layer 1): {_rate(m['capacity_bps'])}; median of trains "
            f"{_rate(m['capacity_median_bps'])}; packet pairs median {_rate(m['pair_capacity'].get('median_bps'))}; "
            f"offered {_rate(m['input_rate_median_bps'])}",
            f"  one-way delay: min {o['min_ns']:.3f} mean {o['mean_ns']:.3f} p50 {o['p50_ns']:.3f} "
            f"p99 {o['p99_ns']:.3f} p99.9 {o['p99.9_ns']:.3f} max {o['max_ns']:.3f} ns",
            f"  jitter: IPDV mean |{j.get('mean_abs_ns', 0):.3f}| ns, p99 |{j.get('p99_abs_ns', 0):.3f}| ns; "
            f"RFC 3550 {m['rfc3550_jitter_ns']:.3f} ns",
        ]
        if "delay_vs_size" in m:
            d = m["delay_vs_size"]
            lines.append(f"  delay vs size: {d['slope_ns_per_byte']:.6f} ns/byte * size + {d['intercept_ns']:.3f} ns "
                         f"(rms residual {d['residual_rms_ns']:.3f} ns over {d['points']} frames)")
    return "\n".join(lines)


def plot(result: dict, records: list[Record], path: str | Path,
         calibration: Calibration | None = None) -> bool:
    """A PNG/SVG/PDF of delay over time, per-train capacity, IPDV and delay vs size; False (and
    nothing written) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    delays = [_ns(d) for d in _delays(records, calibration)]
    t0 = records[0].rx_time if records else 0
    when = [_ns(diff(r.rx_time, t0)) / 1e6 for r in records]
    fig, ax = plt.subplots(2, 2, figsize=(11, 7))
    ax[0][0].plot(when, delays, ".", ms=2)
    ax[0][0].set(xlabel="arrival (ms)", ylabel="one-way delay (ns)", title="One-way delay")
    for s in result["streams"]:
        caps = [(t["train"], t["capacity_bps"] / 1e9) for t in s["trains"] if t["capacity_bps"]]
        if caps:
            ax[0][1].plot(*zip(*caps), ".-", ms=3, label=f"stream {s['stream']}")
    ax[0][1].set(xlabel="train", ylabel="Gb/s (layer 1)", title="Capacity from train dispersion")
    by_key = {(r.stream, r.seq): d for r, d in zip(records, delays)}
    ipdv = [by_key[(s, q + 1)] - d for (s, q), d in by_key.items() if (s, q + 1) in by_key]
    ax[1][0].hist(ipdv, bins=60)
    ax[1][0].set(xlabel="IPDV (ns)", ylabel="pairs", title="IPDV (RFC 3393)")
    ax[1][1].plot([r.size for r in records], delays, ".", ms=2)
    ax[1][1].set(xlabel="frame size (bytes, without FCS)", ylabel="one-way delay (ns)", title="Delay vs size")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(str(path))
    plt.close(fig)
    return True
