"""`fastpath p4 compile|stf|run|serve`: the P4 agent (compiler), STF tests and captures through a
program.

`stf` and `run` run on the RTL pipeline in simulation by default (`--backend rtl`:
fp_p4_pipeline in Verilator, `fastpath.p4.rtl_backend`; the first run builds it) or on the
reference interpreter (`--backend interp`, `fastpath.p4.interp`); the first line of their output
names the backend. `serve` too: with `--backend rtl` the P4Runtime server runs inside the
pipeline's simulation (`fastpath.p4.pipeline_cocotb`), so a controller's writes go into the
simulated pipeline's stages and its PacketOuts through the RTL.

`run` writes a pcapng capture with one interface per egress port, named `port N` (interface ids
in order of first use), and each packet's comment says its egress port and which input packet
it came from: Wireshark's "Interface name" column (or `frame.interface_name`) shows the port.

`serve` runs the P4Runtime server (`fastpath.p4.p4runtime`) until SIGINT/SIGTERM (or
`--duration`); `--pcap-out` writes what left the data-plane ports, in the same pcapng shape.
"""
from __future__ import annotations

import argparse
import json
import struct
from collections import Counter
from pathlib import Path

from fastpath.cli import UsageError

BACKEND_LINE = "backend: reference interpreter"


def _compile(path: str):
    from fastpath.p4 import compiler
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"no such program: {path}")
    try:
        return compiler.compile_file(p)
    except compiler.P4CompileError as e:
        raise UsageError(f"{p.name}: refused: {e}") from None


def _cmd_compile(args) -> int:
    from fastpath.p4 import compiler
    cfg = _compile(args.program)
    print(compiler.summary(cfg))
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text(cfg.to_json())
        print(f"configuration -> {args.output}")
    if args.json:
        stats = {"program": cfg.program, "json": str(args.program), "compile_ms": round(cfg.compile_ms, 3),
                 "target": cfg.target, "tables": len(cfg.tables), "actions": len(cfg.actions),
                 "parse_states": len(cfg.parser.states), "phv_bits": cfg.phv_width,
                 "tcam_blocks": sum(t.tcam_blocks for t in cfg.tables),
                 "hash_tables": sum(t.memory == "hash" for t in cfg.tables), "notes": cfg.notes}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(stats, indent=1) + "\n")
    return 0


def _rtl_or_refuse(cfg, program: str):
    from fastpath.p4 import rtl_backend
    why = rtl_backend.check(cfg)
    if why is not None:
        raise UsageError(f"{Path(program).name}: does not fit the simulated pipeline: {why} "
                         "(--backend interp runs it on the reference interpreter)")
    return rtl_backend


def _cmd_stf(args) -> int:
    from fastpath.p4 import stf
    cfg = _compile(args.program)
    if not Path(args.test).is_file():
        raise UsageError(f"no such STF file: {args.test}")
    text = Path(args.test).read_text()
    if args.backend == "rtl":
        rb = _rtl_or_refuse(cfg, args.program)
        print(rb.BACKEND_LINE, flush=True)
        r = rb.run_job({"kind": "stf", "program": args.program, "text": text, "name": Path(args.test).name})
        if "error" in r:
            raise UsageError(r["error"])
        checks = [stf.Check(line, t, ok, detail) for line, t, ok, detail in r["checks"]]
        report = stf.StfReport(checks)
    else:
        try:
            report = stf.run(text, stf.InterpreterBackend(cfg), name=Path(args.test).name)
        except stf.StfError as e:
            raise UsageError(str(e)) from None
        print(BACKEND_LINE)
    for c in report.checks:
        print(c)
    print(f"stf: {report.passed} expectations passed, {report.failed} failed")
    return 0 if report.ok else 1


def write_pcapng(path: str | Path, packets: list[tuple[int, bytes, float, str]], backend: str = "interp") -> None:
    """Packets (egress port, bytes, time, comment) as pcapng, one Ethernet interface per port."""
    def block(btype: int, body: bytes) -> bytes:
        body += b"\0" * (-len(body) % 4)
        n = len(body) + 12
        return struct.pack("<II", btype, n) + body + struct.pack("<I", n)

    def option(code: int, value: bytes) -> bytes:
        return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)

    end = struct.pack("<HH", 0, 0)
    out = bytearray(block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1)
                          + option(4, b"fastpath p4 run (" + (b"RTL pipeline" if backend == "rtl" else
                                                               b"reference interpreter") + b")") + end))
    ifids: dict[int, int] = {}
    for port, data, t, comment in packets:
        if port not in ifids:
            ifids[port] = len(ifids)
            out += block(1, struct.pack("<HHI", 1, 0, 65535) + option(2, f"port {port}".encode()) + end)
        us = int(round(t * 1e6))
        body = struct.pack("<IIIII", ifids[port], us >> 32, us & 0xFFFFFFFF, len(data), len(data))
        body += data + b"\0" * (-len(data) % 4)
        out += block(6, body + option(1, comment.encode()) + end)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_bytes(bytes(out))


def _cmd_run(args) -> int:
    from fastpath.frames import read_pcap
    from fastpath.p4 import runtime, stf
    if not 0 <= args.port <= 510:
        raise UsageError(f"--port {args.port}: ports are 0..510")
    cfg = _compile(args.program)
    backend = stf.InterpreterBackend(cfg)
    if args.commands:
        if not Path(args.commands).is_file():
            raise UsageError(f"no such commands file: {args.commands}")
        try:
            runtime.Runtime(backend.tables).run(Path(args.commands).read_text())
        except runtime.CommandError as e:
            raise UsageError(f"{args.commands}: {e}") from None
    if not Path(args.input).is_file():
        raise UsageError(f"no such capture: {args.input}")
    try:
        frames = read_pcap(args.input)
    except ValueError as e:
        raise UsageError(str(e)) from None
    out, errors, per_port, digests, dropped = [], Counter(), Counter(), 0, 0
    rtl_outs = None
    if args.backend == "rtl":
        rb = _rtl_or_refuse(cfg, args.program)
        print(rb.BACKEND_LINE, flush=True)
        cmds = Path(args.commands).read_text() if args.commands else ""
        r = rb.run_job({"kind": "run", "program": args.program, "commands": cmds,
                        "frames": [f.data.hex() for f in frames], "port": args.port})
        if "error" in r:
            raise UsageError(f"{Path(args.program).name}: {r['error']}")
        rtl_outs = [[(p, bytes.fromhex(h)) for p, h in o] for o in r["outputs"]]
    else:
        print(BACKEND_LINE)
    for i, f in enumerate(frames):
        r = backend.interp.process(f.data, args.port)   # parser errors and digests: the reference's count
        errors[r.parser_error] += 1
        digests += len(r.digests)
        outputs = r.outputs if rtl_outs is None else rtl_outs[i]
        dropped += not outputs
        for port, data in outputs:
            per_port[port] += 1
            out.append((port, data, f.time, f"egress port {port}; input packet {i + 1} on port {args.port}"))
    write_pcapng(args.output, out, args.backend)
    print(f"{len(frames)} packets in on port {args.port}, {len(out)} out, {dropped} dropped -> {args.output}")
    print("out per port: " + (", ".join(f"port {p}: {n}" for p, n in sorted(per_port.items())) or "none"))
    print("parser errors: " + ", ".join(f"{k}: {v}" for k, v in sorted(errors.items())))
    if digests:
        print(f"digests: {digests}")
    if args.json:
        stats = {"backend": "rtl" if args.backend == "rtl" else "reference interpreter",
                 "packets_in": len(frames), "packets_out": len(out),
                 "dropped": dropped, "per_port": {str(p): n for p, n in sorted(per_port.items())},
                 "parser_errors": dict(errors), "digests": digests}
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(stats, indent=1) + "\n")
    return 0


def _cmd_serve(args) -> int:
    import signal
    import threading
    import time
    try:
        from fastpath.p4 import p4runtime
    except ImportError as e:
        raise UsageError(f"the P4Runtime server needs the packages of requirements.txt (p4runtime, grpcio): {e}") \
            from None
    if not 0 <= args.cpu_port <= 510:
        raise UsageError(f"--cpu-port {args.cpu_port}: ports are 0..510")
    info = None
    if args.program:
        if not args.p4info:
            raise UsageError("--p4info FILE is needed with a PROGRAM (the P4Info p4c wrote for it)")
        for f in (args.program, args.p4info):
            if not Path(f).is_file():
                raise UsageError(f"no such file: {f}")
        try:
            info = p4runtime.load_p4info(args.p4info)
        except Exception as e:  # noqa: BLE001 (protobuf parse errors have no common base)
            raise UsageError(f"{args.p4info}: not a P4Info (text, binary or JSON): {e}") from None
    elif args.p4info:
        raise UsageError("--p4info without a PROGRAM: give both, or neither (a controller sets the pipeline)")
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    what = f"program {Path(args.program).name}" if args.program else "no pipeline (a controller sets it)"

    def listening(addr: str) -> None:
        print(f"P4Runtime server on {addr}: device {args.device_id}, CPU port {args.cpu_port}, {what}", flush=True)

    def running(alive=lambda: True) -> None:
        """Until SIGINT/SIGTERM, `alive()` turns false, or --duration from now (the server listens)."""
        t_end = time.monotonic() + args.duration if args.duration else None
        while alive() and not stop.wait(0.2):
            if t_end is not None and time.monotonic() >= t_end:
                break
    try:
        if args.backend == "rtl":
            addr, st, out = _serve_rtl(args, listening, running)
        else:
            server = p4runtime.P4RuntimeServer(device_id=args.device_id, cpu_port=args.cpu_port)
            if info is not None:
                try:
                    server.install(info, Path(args.program).read_bytes())
                except p4runtime.P4RTError as e:
                    raise UsageError(f"{Path(args.program).name}: {e.msg}") from None
            out = []
            if args.pcap_out:
                server.device.on_egress = lambda port, data: out.append((port, data, time.time()))
            try:
                server.start(args.grpc_addr)
            except OSError as e:
                raise UsageError(str(e)) from None
            try:
                print(BACKEND_LINE)
                listening(server.addr)
                running()
            finally:
                server.stop()
            addr, st = server.addr, server.device.stats
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print(f"stopped: {st['writes']} writes ({st['updates']} updates), {st['packet_out']} packet-outs, "
          f"{st['packet_in']} packet-ins, {st['egress']} packets out of data-plane ports")
    if args.pcap_out:
        write_pcapng(args.pcap_out, [(port, data, t, f"egress port {port}; packet {k + 1} out of the data plane")
                                     for k, (port, data, t) in enumerate(out)], args.backend)
        print(f"data-plane packets -> {args.pcap_out}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"addr": addr, **st}, indent=1) + "\n")
    return 0


def _serve_rtl(args, listening, running):
    """The server inside the pipeline's simulation (`rtl_backend.serving`) until `running`
    returns. Returns (address, counts, [(port, bytes, time)] out of data-plane ports)."""
    import time
    from fastpath.p4 import rtl_backend
    if args.program:
        _rtl_or_refuse(_compile(args.program), args.program)
    print(rtl_backend.BACKEND_LINE, flush=True)
    with rtl_backend.serving(args.program, args.p4info, args.grpc_addr, args.device_id, args.cpu_port) as s:
        if s["addr"]:
            listening(s["addr"])
            running(s["alive"])
    if "error" in s:
        raise UsageError(f"the simulation failed: {s['error']}")
    r = s["result"]
    if "error" in r:
        raise UsageError(r["error"])
    t = time.time()
    return s["addr"] or args.grpc_addr, r["stats"], [(port, bytes.fromhex(hx), t) for port, hx in r["egress"]]


def register(sub: argparse._SubParsersAction) -> None:
    s = sub.add_parser("p4", help="the P4 agent: compile BMv2 JSON, run STF tests and captures (RTL pipeline in "
                                  "simulation, or the reference interpreter), serve P4Runtime")
    p4sub = s.add_subparsers(dest="p4cmd", required=True)
    t = p4sub.add_parser("compile", help="compile p4c's BMv2 JSON into the pipeline configuration",
                         description="compile p4c's BMv2 JSON (p4c-bm2-ss output) into the pipeline configuration; "
                                     "prints a summary, refuses what the hardware cannot do")
    t.add_argument("program", help="BMv2 JSON (PROGRAM.json)")
    t.add_argument("-o", "--output", metavar="CONFIG.json", help="write the configuration as JSON")
    t.add_argument("--json", metavar="STATS.json", help="write statistics (compile_ms, tables, ...) as JSON")
    t.set_defaults(fn=_cmd_compile)
    t = p4sub.add_parser("stf", help="run a p4c STF test on the RTL pipeline (or the reference interpreter)",
                         description="run a p4c STF test on the RTL pipeline in simulation (default) or the "
                                     "reference interpreter; prints every expectation, exit status 1 if any fails")
    t.add_argument("program", help="BMv2 JSON")
    t.add_argument("test", help="STF file")
    t.add_argument("--backend", choices=("rtl", "interp"), default="rtl",
                   help="rtl: fp_p4_pipeline in Verilator (default); interp: the reference interpreter")
    t.set_defaults(fn=_cmd_stf)
    t = p4sub.add_parser("run", help="run a capture through a program (RTL pipeline or reference interpreter)",
                         description="run a capture through a program on the RTL pipeline in simulation (default) "
                                     "or the reference interpreter; writes a pcapng with one interface per egress "
                                     "port (named 'port N')")
    t.add_argument("--backend", choices=("rtl", "interp"), default="rtl",
                   help="rtl: fp_p4_pipeline in Verilator (default); interp: the reference interpreter")
    t.add_argument("program", help="BMv2 JSON")
    t.add_argument("input", help="input pcap/pcapng (Ethernet)")
    t.add_argument("output", help="output pcapng")
    t.add_argument("--commands", metavar="CMDS.txt", help="simple_switch_CLI table commands to run first")
    t.add_argument("--port", type=int, default=0, help="ingress port of every packet (default 0)")
    t.add_argument("--json", metavar="STATS.json", help="also write the counts as JSON")
    t.set_defaults(fn=_cmd_run)
    t = p4sub.add_parser("serve", help="serve P4Runtime (gRPC) for one device running a program (RTL pipeline in "
                                       "simulation, or the reference interpreter)",
                         description="serve the P4Runtime API for one device: a controller (e.g. p4runtime-shell) "
                                     "sets the pipeline, writes and reads table entries, sends PacketOut and gets "
                                     "PacketIn for packets to the CPU port; runs until SIGINT/SIGTERM")
    t.add_argument("program", nargs="?", help="BMv2 JSON to start with (else the controller sets the pipeline)")
    t.add_argument("--p4info", metavar="FILE", help="the program's P4Info (text as p4c writes it, binary or JSON)")
    t.add_argument("--grpc-addr", default="127.0.0.1:9559", help="address to listen on (default 127.0.0.1:9559)")
    t.add_argument("--device-id", type=int, default=1, help="P4Runtime device id (default 1)")
    t.add_argument("--cpu-port", type=int, default=255,
                   help="port PacketOut enters on and PacketIn leaves by (default 255)")
    t.add_argument("--pcap-out", metavar="OUT.pcapng", help="write the packets sent out of data-plane ports at exit "
                                                            "(one interface per port)")
    t.add_argument("--duration", type=float, metavar="SECONDS", help="stop after this long (default: run until "
                                                                     "SIGINT/SIGTERM)")
    t.add_argument("--json", metavar="STATS.json", help="write the counts at exit as JSON")
    t.add_argument("--backend", choices=("rtl", "interp"), default="rtl",
                   help="rtl: fp_p4_pipeline in Verilator, the server inside the simulation (default); interp: "
                        "the reference interpreter")
    t.set_defaults(fn=_cmd_serve)
