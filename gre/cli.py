"""`fastpath gre decap|encap`: the GRE cores (RTL, simulated) over a capture."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from fastpath.cli import arg_type


def _gre(args) -> int:
    from fastpath.gre import pcap as gre_pcap
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
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(r.as_dict(), indent=1) + "\n")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    from fastpath.gre import pcap as gre_pcap
    s = sub.add_parser("gre", help="run the GRE cores (RTL, simulated) over a pcap capture")
    gresub = s.add_subparsers(dest="grecmd", required=True)
    for name in ("decap", "encap"):
        what = (f"fp_gre_{name} (the RTL, simulated) over a capture: "
                + ("remove GRE tunnel headers" if name == "decap" else "put every frame into a GRE tunnel"))
        t = gresub.add_parser(name, help=what, description=what + "; writes the output capture (frames dropped or "
                              "marked bad are left out) and prints the counters")
        t.add_argument("input", help="input pcap/pcapng (Ethernet)")
        t.add_argument("output", help="output pcap")
        t.add_argument("--width", type=int, choices=gre_pcap.WIDTHS, default=64, help="data width (default 64)")
        t.add_argument("--json", metavar="FILE", help="also write the counters as JSON")
        if name == "decap":
            t.add_argument("--accept", action="append", type=arg_type(gre_pcap.parse_accept), metavar="ADDR[,key=K]",
                           help="accept GRE from this outer source address (IPv4 or IPv6), with this key if "
                                "given; repeatable (default: every endpoint)")
            t.add_argument("--drop-unknown", action="store_true",
                           help="drop GRE from endpoints not accepted (default: pass it unchanged)")
        else:
            t.add_argument("--tunnel", action="append", type=arg_type(gre_pcap.parse_tunnel), required=True,
                           metavar="SRC,DST[,key=K][,seq][,l3][,ttl=N]",
                           help="a tunnel (outer IPv4 or IPv6 addresses; GRE key; sequence numbers; l3: carry "
                                "the IP packet after the Ethernet header instead of the whole frame); repeatable")
            macs = gre_pcap.gre.Tunnel()
            t.add_argument("--src-mac", type=arg_type(gre_pcap.parse_mac), metavar="MAC",
                           help=f"outer source MAC (default {macs.mac_src})")
            t.add_argument("--dst-mac", type=arg_type(gre_pcap.parse_mac), metavar="MAC",
                           help=f"outer destination MAC (default {macs.mac_dst})")
            t.add_argument("--tunnel-by", choices=("first", "round-robin"), default="first",
                           help="first: every frame into the first --tunnel (default); round-robin: frame i "
                                "into tunnel i mod the number of tunnels")
        t.set_defaults(fn=_gre)
