"""The `fastpath` command line."""
from __future__ import annotations

import argparse
import sys


def _doctor(args) -> int:
    from . import doctor
    return doctor.run()


def _lint(args) -> int:
    from . import lint
    return lint.run(args.modules or None)


def _syn(args) -> int:
    from . import syn
    syn.run(args.cores or None, jobs=args.jobs, ecp5=not args.no_ecp5, depth=args.depth)
    return 0


def _bench(args) -> int:
    from . import bench
    return bench.run(args.what, quick=args.quick)


def _kv(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        if not key or not value:
            raise SystemExit(f"expected NAME=VALUE, got {item!r}")
        try:
            out[key] = int(value, 0)
        except ValueError:
            out[key] = value
    return out


def _sim_stream(args) -> int:
    from .sim import stream
    s = stream.run_pcap(args.top, args.input, args.output, _kv(args.param), _kv(args.set),
                        args.report or (), period_ns=1000.0 / args.clock_mhz, keep_bad=args.keep_bad)
    print(f"{s['frames_in']} frames in, {s['frames_out']} out, {s['bad_out']} marked bad -> {args.output}")
    for k, v in s["signals"].items():
        print(f"  {k} = {v}")
    return 0


def _regs(args) -> int:
    from . import regs
    return regs.run(check=args.check)


def _formats(args) -> int:
    from . import formats
    return formats.run(check=args.check)


def _fusesoc(args) -> int:
    from . import fusesoc
    for path in fusesoc.write():
        print(path)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="fastpath", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("doctor", help="list the toolchain, its versions, and what is missing")
    s.set_defaults(fn=_doctor)

    s = sub.add_parser("lint", help="verilator --lint-only -Wall on every RTL module")
    s.add_argument("modules", nargs="*", help="module names (default: all)")
    s.set_defaults(fn=_lint)

    s = sub.add_parser("syn", help="synthesize cores (Xilinx 7 resources, ECP5 Fmax)")
    s.add_argument("cores", nargs="*", help="entries or areas of syn/cores.toml (default: all)")
    s.add_argument("-j", "--jobs", type=int, default=2)
    s.add_argument("--no-ecp5", action="store_true", help="skip place and route")
    s.add_argument("--depth", action="store_true",
                   help="also the longest register-to-register path in LUT4 levels, and its nets")
    s.set_defaults(fn=_syn)

    s = sub.add_parser("sim", help="run RTL in simulation")
    simsub = s.add_subparsers(dest="simcmd", required=True)
    t = simsub.add_parser("stream", help="run any AXI-Stream core over a pcap capture")
    t.add_argument("top", help="module name")
    t.add_argument("input", help="input pcap/pcapng (Ethernet)")
    t.add_argument("output", help="output pcap")
    t.add_argument("--param", "-p", action="append", help="HDL parameter NAME=VALUE")
    t.add_argument("--set", "-s", action="append", help="drive input signal NAME=VALUE during the run")
    t.add_argument("--report", "-r", action="append", help="print this signal's value at the end")
    t.add_argument("--clock-mhz", type=float, default=200.0)
    t.add_argument("--keep-bad", action="store_true", help="also write frames marked bad")
    t.set_defaults(fn=_sim_stream)

    s = sub.add_parser("regs", help="regenerate register maps (RTL, C header, docs) from rtl/**/*.regs.toml")
    s.add_argument("--check", action="store_true", help="only list stale generated files")
    s.set_defaults(fn=_regs)

    s = sub.add_parser("formats", help="regenerate header/frame formats (.vh, C header, docs) from rtl/**/*.fmt.toml")
    s.add_argument("--check", action="store_true", help="only list generated files that are stale")
    s.set_defaults(fn=_formats)

    s = sub.add_parser("fusesoc", help="regenerate the FuseSoC .core files from the RTL tree")
    s.set_defaults(fn=_fusesoc)

    s = sub.add_parser("bench", help="run benchmarks: JSON in build/bench/ and a table")
    s.add_argument("what", nargs="*", help="benchmarks to run (default: all)")
    s.add_argument("--quick", action="store_true", help="shorter runs")
    s.set_defaults(fn=_bench)

    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
