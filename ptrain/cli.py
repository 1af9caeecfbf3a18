"""`fastpath ptrain analyze|frames|gen`: the packet-train analyser over a capture (or over the RTL
receiver's records received over FADE, `analyze --records`), the software model that writes
captures of tester frames, and the RTL generator in simulation."""
from __future__ import annotations

import argparse
import sys

from fastpath.cli import UsageError, arg_type


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(s, 0) for s in text.split(","))
    except ValueError:
        raise ValueError(f"expected BYTES or BYTES,BYTES,..., got {text!r}") from None
    if not sizes:
        raise ValueError("no size")
    return sizes


def _positive(text: str) -> int:
    v = int(text, 0)
    if v < 1:
        raise ValueError(f"expected a positive integer, got {text}")
    return v


def _nonneg_float(text: str) -> float:
    v = float(text)
    if not v >= 0:
        raise ValueError(f"expected a number >= 0, got {text}")
    return v


def _records_input(path: str):
    """The records of a FADE record stream file (fp_ptrain_fade_1g, written by fade-recv -o)."""
    from fastpath.ptrain import fade_records as fr

    try:
        d = fr.read(path)
    except OSError as e:
        raise UsageError(f"{path}: {e.strerror or e}") from None
    records = d.records()
    if not records:
        raise UsageError(f"{path}: no records ({d.cut_bytes} bytes, less than one {fr.NBYTES}-byte record)"
                         if not d.rx else f"{path}: no records of good frames ({d.bad} of bad FCS)")
    info = {"path": str(path), "kind": "fade_records", **d.to_dict()}
    line = (f"{path}: {len(d.rx)} records over FADE (numbers {d.numbers[0]}..{d.numbers[-1]}), "
            f"{d.bad} of frames with a bad FCS left out")
    if d.gaps:
        pos, want, got = d.gaps[0]
        line += (f"; WARNING: {len(d.gaps)} break{'s' if len(d.gaps) > 1 else ''} in the record numbers (first at record {pos}: "
                 f"{got}, expected {want}): records missing, or a stream not starting on a record")
    if d.cut_bytes:
        line += f"; the stream ends inside a record ({d.cut_bytes} bytes of it: STOP without DRAIN)"
    return records, info, line


def _analyze(args) -> int:
    from fastpath.ptrain import analyze as an
    from fastpath.ptrain import capture as cap

    if (args.capture is None) == (args.records is None):
        raise UsageError("give a capture, or --records FILE (a FADE record stream), not both")
    if args.records is not None and args.pcapng:
        raise UsageError("--pcapng needs a capture: a record stream holds no frames")
    calibration = None
    if args.calibration:
        try:
            calibration = an.Calibration.load(args.calibration)
        except an.CalibrationError as e:
            raise UsageError(str(e)) from None
    source = args.capture if args.capture is not None else args.records
    if args.records is not None:
        records, info, line = _records_input(args.records)
        result = {"records_input": info, **an.analyze(records, calibration)}
        print(line)
    else:
        try:
            c = cap.read(args.capture)
        except cap.CaptureError as e:
            raise UsageError(str(e)) from None
        records, info, frames = an.records_from_capture(c, args.capture)
        if not records:
            raise UsageError(f"{args.capture}: no tester frames ({info.frames} frames: {info.foreign} foreign, "
                             f"{info.malformed_total} malformed tester frames)")
        result = {"input": info.to_dict(), **an.analyze(records, calibration)}
    print(an.table(result))
    if args.json:
        an.write_json(result, args.json)
        print(f"wrote {args.json}")
    if args.fit:
        try:
            f = an.fit(((r.size, an.diff(r.rx_time, r.tx_time)) for r in records), source=str(source))
        except an.CalibrationError as e:
            raise UsageError(f"{source}: {e}") from None
        f.save(args.fit)
        print(f"wrote {args.fit}: delay = {f.slope_ns_per_byte:.6f} ns/byte * size + {f.intercept_ns:.3f} ns "
              f"(rms residual {f.residual_rms_ns:.3f} ns, {f.points} frames)")
    if args.pcapng:
        cap.write_pcapng(args.pcapng, frames, an.comments(records, calibration))
        print(f"wrote {args.pcapng}")
    if args.plot:
        if an.plot(result, records, args.plot, calibration):
            print(f"wrote {args.plot}")
        else:
            print("matplotlib is not installed: no plot written", file=sys.stderr)
    return 0


def _frames(args) -> int:
    from fastpath.ptrain import capture as cap
    from fastpath.ptrain import frame as fr
    from fastpath.ptrain import model

    if not str(args.pcap).endswith((".pcap", ".pcapng")):
        raise UsageError(f"--pcap {args.pcap}: name the file .pcap (nanosecond pcap) or .pcapng")
    if args.vlan is not None and not 0 <= args.vlan <= 4095:
        raise UsageError(f"--vlan {args.vlan}: a VLAN ID is 0..4095")
    if not 0 <= args.stream <= 255:
        raise UsageError(f"--stream {args.stream}: a stream id is 0..255")
    traffic = model.Traffic(count=args.count, sizes=args.size, rate_mbps=args.rate_mbps,
                            train_length=args.train_length, train_gap_ns=args.train_gap_ns,
                            stream=args.stream, headers=fr.Headers(vlan=args.vlan, ipv6=args.ipv6))
    delay = model.Delay(base_ns=args.delay_ns, per_byte_ns=args.per_byte_ns, jitter_ns=args.jitter_ns,
                        loss_every=args.loss_every, seed=args.seed)
    try:
        rx, sent = model.frames(traffic, delay)
    except ValueError as e:
        raise UsageError(str(e)) from None
    n = cap.write(args.pcap, rx)
    trains = sent[-1].train + 1
    print(f"wrote {args.pcap}: {n} of {len(sent)} frames ({trains} trains), software model "
          f"(not the RTL generator)")
    return 0


def _gen(args) -> int:
    from pathlib import Path

    from fastpath.ptrain import frame as fr
    from fastpath.sim import runner

    if not str(args.pcap).endswith((".pcap", ".pcapng")):
        raise UsageError(f"--pcap {args.pcap}: name the file .pcap (nanosecond pcap) or .pcapng")
    if args.vlan is not None and not 0 <= args.vlan <= 4095:
        raise UsageError(f"--vlan {args.vlan}: a VLAN ID is 0..4095")
    hdr = fr.Headers(vlan=args.vlan, ipv6=args.ipv6)
    if not hdr.min_size <= args.size <= 9000:
        raise UsageError(f"--size {args.size}: the generator makes {hdr.min_size}..9000-byte frames "
                         f"(without FCS) with these headers")
    if hdr.compact(args.size) and (args.train_length or args.count) > fr.COMPACT_TRAIN_MAX:
        raise UsageError(f"--size {args.size} carries the compact header (below {hdr.min_frame} bytes): "
                         f"trains of at most {fr.COMPACT_TRAIN_MAX} frames (give --train-length)")
    period = 0
    if args.rate_mbps is not None:
        if args.rate_mbps <= 0:
            raise UsageError(f"--rate-mbps {args.rate_mbps}: give a positive rate")
        clk_ns = 8.0 if not args.ten_g else 6.4
        period = round((args.size + 24) * 8 * 1000 / args.rate_mbps / clk_ns)
    cfg = {"size": args.size, "count": args.count, "train_len": args.train_length or args.count,
           "period": period, "ipv6": args.ipv6, "vlan": args.vlan, "stream": args.stream,
           "pcap": str(Path(args.pcap).resolve()), "speed": "10g" if args.ten_g else "1g"}
    try:
        r = runner.run_json("fp_ptrain_10g" if args.ten_g else "fp_ptrain_1g", "fastpath.ptrain.gen_cocotb",
                            {"PPS_INTERVAL_NS": 100000}, cfg)
    except runner.SimulationFailed as e:
        raise UsageError(str(e)) from None
    if r["bad"]:
        raise UsageError(f"{r['bad']} of {r['sent']} frames off the TX pins had a bad FCS or did not parse")
    print(f"wrote {args.pcap}: {r['written']} frames from the RTL generator and "
          f"{'fp_eth_mac_10g' if args.ten_g else 'fp_eth_mac_1g'} ({r['trains']} trains), timestamps = "
          f"the TX stamps the MAC wrote at the SFD (the tester's clock from reset)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("ptrain", help="packet-train tester: analyse captures of tester frames, write synthetic ones")
    ps = s.add_subparsers(dest="ptraincmd", required=True)

    what = ("network parameters from a pcap/pcapng of tester frames: capacity (train dispersion, "
            "packet pairs), one-way delay, IPDV and RFC 3550 jitter, loss, reordering, duplicates")
    t = ps.add_parser("analyze", help=what, description=what + ". RX time = the capture's timestamp (use a "
                      "nanosecond capture), TX time = the frame's own field, so a capture taken anywhere "
                      "can be analysed. With --records, the RTL receiver's records as they came over FADE "
                      "from fp_ptrain_fade_1g (RX time = the receiver's stamp). Definitions: ptrain/README.md.")
    t.add_argument("capture", nargs="?", help="pcap or pcapng, Ethernet")
    t.add_argument("--records", metavar="FILE",
                   help="instead of a capture: the byte stream fade-recv -o wrote from fp_ptrain_fade_1g "
                        "(40 bytes per record: fastpath.ptrain.fade_records)")
    t.add_argument("--json", metavar="FILE", help="write every figure, per stream and per train, as JSON")
    t.add_argument("--plot", metavar="FILE", help="write a plot (PNG, SVG or PDF by the name; needs matplotlib)")
    t.add_argument("--calibration", metavar="FIT.json",
                   help="subtract this loopback fit (from --fit) from every delay")
    t.add_argument("--fit", metavar="FILE",
                   help="this capture is a loopback run over several frame sizes: write the least-squares "
                        "fit of delay against size (the calibration) to FILE")
    t.add_argument("--pcapng", metavar="FILE",
                   help="write the tester frames to a pcapng with nanosecond timestamps, each with a comment "
                        "(train, index, sequence number, delay)")
    t.set_defaults(fn=_analyze)

    what = ("write a capture of tester frames from the SOFTWARE MODEL of a generator and a delay model "
            "(fastpath.ptrain.model): not the RTL generator, and nothing is sent on a network")
    t = ps.add_parser("frames", help=what, description=what + ". RX time = TX time + delay + "
                      "per-byte delay * size + uniform jitter; frames come out in RX order.")
    t.add_argument("--count", type=arg_type(_positive), required=True, metavar="N", help="frames in the run")
    t.add_argument("--size", type=arg_type(_sizes), required=True, metavar="BYTES[,BYTES...]",
                   help="frame length without FCS (at least 60 over IPv4, 104 over IPv6, +4 with --vlan; below 84 (88) IPv4 frames carry the compact header); "
                        "several sizes: train k uses the k-th, cyclically")
    t.add_argument("--rate-mbps", type=float, default=10_000.0, metavar="R",
                   help="layer-1 rate inside a train, in Mb/s (default 10000: back-to-back at 10 Gb/s)")
    t.add_argument("--train-length", type=arg_type(_positive), default=100, metavar="L",
                   help="frames per train (default 100)")
    t.add_argument("--train-gap-ns", type=int, default=None, metavar="NS",
                   help="idle time between trains (default: one train's duration)")
    t.add_argument("--delay-ns", type=arg_type(_nonneg_float), default=1000.0, metavar="NS",
                   help="constant one-way delay (default 1000)")
    t.add_argument("--per-byte-ns", type=arg_type(_nonneg_float), default=0.0, metavar="NS",
                   help="delay per byte of frame (default 0)")
    t.add_argument("--jitter-ns", type=arg_type(_nonneg_float), default=0.0, metavar="NS",
                   help="extra delay, uniform in [0, NS] (default 0)")
    t.add_argument("--loss-every", type=int, default=0, metavar="K", help="drop every K-th frame (default 0: none)")
    t.add_argument("--seed", type=int, default=1, help="seed of the jitter (default 1)")
    t.add_argument("--vlan", type=int, default=None, metavar="ID", help="add an 802.1Q tag with this VLAN ID")
    t.add_argument("--ipv6", action="store_true", help="IPv6 instead of IPv4")
    t.add_argument("--stream", type=int, default=0, help="stream id (default 0)")
    t.add_argument("--pcap", required=True, metavar="FILE",
                   help="output: FILE.pcap (nanosecond pcap) or FILE.pcapng (if_tsresol = 9)")
    t.set_defaults(fn=_frames)

    what = ("run the RTL generator and TX MAC (fp_ptrain_1g, or fp_ptrain_10g) in simulation and write "
            "the frames it sends to a capture")
    t = ps.add_parser("gen", help=what, description=what + ", each with the time of its SFD in ns (the "
                      "stamp the MAC wrote into the frame). Every frame's FCS is checked.")
    t.add_argument("--count", type=arg_type(_positive), required=True, metavar="N", help="frames")
    t.add_argument("--size", type=arg_type(_positive), required=True, metavar="BYTES",
                   help="frame length without FCS (at least 60 over IPv4, 104 over IPv6, +4 with --vlan; below 84 (88) IPv4 frames carry the compact header; "
                        "at most 9000)")
    t.add_argument("--train-length", type=arg_type(_positive), default=None, metavar="L",
                   help="frames per train (default: one train of N)")
    t.add_argument("--rate-mbps", type=float, default=None, metavar="R",
                   help="layer-1 rate inside a train (default: back to back at line rate)")
    t.add_argument("--vlan", type=int, default=None, metavar="ID", help="add an 802.1Q tag with this VLAN ID")
    t.add_argument("--ipv6", action="store_true", help="IPv6 instead of IPv4")
    t.add_argument("--stream", type=int, default=0, help="stream id (default 0)")
    t.add_argument("--10g", dest="ten_g", action="store_true", help="the 10G tester (XGMII, 156.25 MHz)")
    t.add_argument("--pcap", required=True, metavar="FILE",
                   help="output: FILE.pcap (nanosecond pcap) or FILE.pcapng (if_tsresol = 9)")
    t.set_defaults(fn=_gen)
