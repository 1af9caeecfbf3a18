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
    syn.run(args.cores or None, jobs=args.jobs, ecp5=not args.no_ecp5)
    return 0


def _bench(args) -> int:
    from . import bench
    return bench.run(args.what, quick=args.quick)


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
    s.set_defaults(fn=_syn)

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
