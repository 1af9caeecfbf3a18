"""The `fastpath` command line.

Generic verbs live here; a system adds its own verbs in `<system>/cli.py` with a function
`register(subparsers)`, found by discovery (gre/cli.py adds `fastpath gre ...`). Every error is
one line on stderr naming what is wrong and what to do, and a non-zero exit; set FASTPATH_DEBUG=1
for the Python traceback behind an unexpected one.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .paths import systems


class UsageError(Exception):
    """A mistake in what the user asked for: printed as one line, exit status 2."""


def _doctor(args) -> int:
    from . import doctor
    return doctor.run()


def _lint(args) -> int:
    from . import lint
    return lint.run(args.modules or None, listing=args.list)


def _syn(args) -> int:
    from . import syn
    syn.run(args.cores or None, jobs=args.jobs, ecp5=not args.no_ecp5, depth=args.depth, placed=args.placed)
    return 0


def _bench(args) -> int:
    from . import bench
    return bench.run(args.what, quick=args.quick)


def _kv(items: list[str]) -> dict:
    out = {}
    for item in items or []:
        key, _, value = item.partition("=")
        if not key or not value:
            raise UsageError(f"expected NAME=VALUE, got {item!r}")
        try:
            out[key] = int(value, 0)
        except ValueError:
            out[key] = value
    return out


def _sim_stream(args) -> int:
    from . import rtl
    from .sim import stream
    if args.top not in rtl.modules():
        near = sorted(m for m in rtl.modules() if args.top.replace("fp_", "") in m)[:5]
        raise UsageError(f"no RTL module {args.top!r}" + (f" (did you mean {', '.join(near)}?)" if near else
                                                           "; `fastpath lint --list` names every module"))
    if not os.path.isfile(args.input):
        raise UsageError(f"no such capture: {args.input}")
    try:
        s = stream.run_pcap(args.top, args.input, args.output, _kv(args.param), _kv(args.set),
                            args.report or (), period_ns=1000.0 / args.clock_mhz, keep_bad=args.keep_bad)
    except stream.InputError as e:
        raise UsageError(str(e)) from None
    print(f"{s['frames_in']} frames in, {s['frames_out']} out, {s['bad_out']} marked bad -> {args.output}")
    for k, v in s["signals"].items():
        print(f"  {k} = {v}")
    return 0


def arg_type(parse):
    """An argparse type= from a parser raising ValueError: the message becomes the usage error."""
    def wrapped(text):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    wrapped.__name__ = parse.__name__
    return wrapped


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


def system_clis() -> dict[str, str]:
    """System name -> module of its CLI verbs, for every system with a cli.py."""
    return {name: f"fastpath.{name}.cli" for name, folder in systems().items() if (folder / "cli.py").exists()}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fastpath", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    s = sub.add_parser("doctor", help="list the toolchain, its versions, and what is missing")
    s.set_defaults(fn=_doctor)

    s = sub.add_parser("lint", help="verilator --lint-only -Wall on every RTL module")
    s.add_argument("modules", nargs="*", help="module names (default: all)")
    s.add_argument("--list", action="store_true", help="only list the modules and their systems")
    s.set_defaults(fn=_lint)

    s = sub.add_parser("syn", help="synthesize cores (Xilinx 7 resources, ECP5 Fmax)")
    s.add_argument("cores", nargs="*", help="entries or areas of the systems' syn.toml (default: all)")
    s.add_argument("-j", "--jobs", type=int, default=2)
    s.add_argument("--no-ecp5", action="store_true", help="skip place and route")
    s.add_argument("--depth", action="store_true",
                   help="also the longest register-to-register path in LUT4 levels, and its nets")
    s.add_argument("--placed", action="store_true",
                   help="ECP5 placement only: Fmax estimate and worst paths with their wire share")
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

    s = sub.add_parser("regs", help="regenerate register maps (RTL, C header, docs) from */rtl/*.regs.toml")
    s.add_argument("--check", action="store_true", help="only list stale generated files")
    s.set_defaults(fn=_regs)

    s = sub.add_parser("formats", help="regenerate header/frame formats (.vh, C header, docs) from */rtl/*.fmt.toml")
    s.add_argument("--check", action="store_true", help="only list generated files that are stale")
    s.set_defaults(fn=_formats)

    s = sub.add_parser("fusesoc", help="regenerate the FuseSoC .core files from the RTL tree")
    s.set_defaults(fn=_fusesoc)

    s = sub.add_parser("bench", help="run benchmarks: JSON in build/bench/ and a table")
    s.add_argument("what", nargs="*", help="benchmarks to run (default: all)")
    s.add_argument("--quick", action="store_true", help="shorter runs")
    s.set_defaults(fn=_bench)

    for module in system_clis().values():
        importlib.import_module(module).register(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # the verb and its sub-verb (a system names its sub-verb's dest "<verb>cmd": grecmd, p4cmd, ...)
    verb = " ".join(str(getattr(args, k)) for k in ("cmd", "simcmd", f"{args.cmd}cmd") if getattr(args, k, None))
    try:
        return args.fn(args)
    except UsageError as e:
        print(f"fastpath {verb}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"fastpath {verb}: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line, never a traceback (FASTPATH_DEBUG=1 shows it)
        if os.environ.get("FASTPATH_DEBUG"):
            raise
        text = str(e).strip().splitlines()
        first = text[0] if text else type(e).__name__
        if isinstance(e, FileNotFoundError) and e.filename:
            first = f"no such file: {e.filename}"
        print(f"fastpath {verb}: {first} ({type(e).__name__}; FASTPATH_DEBUG=1 for the traceback)",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    # `python -m fastpath.cli` runs this file as __main__, a second copy beside fastpath.cli: run
    # the real module's main, so the systems' verbs raise the same UsageError it catches.
    from fastpath.cli import main as _main
    sys.exit(_main())
