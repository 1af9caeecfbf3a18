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


def _arg(parse):
    """An argparse type= from a parser raising ValueError: the message becomes the usage error."""
    def wrapped(text):
        try:
            return parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    wrapped.__name__ = parse.__name__
    return wrapped


def _gre(args) -> int:
    from . import gre_pcap
    try:
        if args.grecmd == "decap":
            if args.drop_unknown and not args.accept:
                print("note: --drop-unknown has no effect without --accept (every endpoint is accepted)",
                      file=sys.stderr)
            r = gre_pcap.run_decap(args.input, args.output, args.width, args.accept, args.drop_unknown)
        else:
            r = gre_pcap.run_encap(args.input, args.output, args.tunnel, args.width, args.src_mac, args.dst_mac,
                                   args.tunnel_by)
    except (gre_pcap.GreError, gre_pcap.SimulationError) as e:
        print(f"fastpath gre {args.grecmd}: {e}", file=sys.stderr)
        return 1
    print(r.table())
    if args.json:
        import json
        from pathlib import Path
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(r.as_dict(), indent=1) + "\n")
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

    s = sub.add_parser("gre", help="run the GRE cores (RTL, simulated) over a pcap capture")
    gresub = s.add_subparsers(dest="grecmd", required=True)
    from . import gre_pcap
    for name in ("decap", "encap"):
        what = (f"gre_{name} (the RTL, simulated) over a capture: "
                + ("remove GRE tunnel headers" if name == "decap" else "put every frame into a GRE tunnel"))
        t = gresub.add_parser(name, help=what, description=what + "; writes the output capture (frames dropped or marked bad are left out) and "
                              "prints the counters")
        t.add_argument("input", help="input pcap/pcapng (Ethernet)")
        t.add_argument("output", help="output pcap")
        t.add_argument("--width", type=int, choices=gre_pcap.WIDTHS, default=64, help="data width (default 64)")
        t.add_argument("--json", metavar="FILE", help="also write the counters as JSON")
        if name == "decap":
            t.add_argument("--accept", action="append", type=_arg(gre_pcap.parse_accept), metavar="ADDR[,key=K]",
                           help="accept GRE from this outer source address (IPv4 or IPv6), with this key if "
                                "given; repeatable (default: every endpoint)")
            t.add_argument("--drop-unknown", action="store_true",
                           help="drop GRE from endpoints not accepted (default: pass it unchanged)")
        else:
            t.add_argument("--tunnel", action="append", type=_arg(gre_pcap.parse_tunnel), required=True,
                           metavar="SRC,DST[,key=K][,seq][,l3][,ttl=N]",
                           help="a tunnel (outer IPv4 or IPv6 addresses; GRE key; sequence numbers; l3: carry "
                                "the IP packet after the Ethernet header instead of the whole frame); repeatable")
            macs = gre_pcap.gre.Tunnel()
            t.add_argument("--src-mac", type=_arg(gre_pcap.parse_mac), metavar="MAC",
                           help=f"outer source MAC (default {macs.mac_src})")
            t.add_argument("--dst-mac", type=_arg(gre_pcap.parse_mac), metavar="MAC",
                           help=f"outer destination MAC (default {macs.mac_dst})")
            t.add_argument("--tunnel-by", choices=("first", "round-robin"), default="first",
                           help="first: every frame into the first --tunnel (default); round-robin: frame i "
                                "into tunnel i mod the number of tunnels")
        t.set_defaults(fn=_gre)

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
