"""`fastpath bench node` (`make bench`): the node's latency, jitter and throughput, RFC 2544 style.

In simulation at the GMII pins (the Verilator harness, node/harness.py), 1G ports:

* latency as RFC 1242 defines it for cut-through devices (SFD in at the RX pins -> SFD out at the
  TX pins, both at the clock edge that samples them), min / avg / max per frame size, for
  (a) one flow at low rate (port 0 -> port 6, 10 % load) and (b) every port at 100 % load with a
  non-oversubscribed mapping (port p -> port (p + PORTS/2) mod PORTS: every flow crosses from
  one datapath to the other); jitter = max - min;
* zero-loss throughput per size with every port loaded (percent of line rate);
* the same in store-and-forward mode;
* at the datapath clock of 200 MHz and at the paper's 125 MHz;
* and (full run only) cut-through with 32-byte segments (SEG_BYTES = 32), the variant the paper
  names as the next latency step, at 200 MHz and at the paper's 125 MHz (the clock TrustNode ran
  at on the paper's part: the configuration that meets 1,000 ns at that clock).

Before measuring, every port sends one broadcast so that the node has learned every address;
the measured traffic is known unicast. Every frame carries an id in its last 4 bytes (input port,
sequence number), so each output frame is matched to its input frame; every frame is also
checked against the reference model (fastpath.node.model): exact bytes, per-flow order.

Silicon is the truth: a nanosecond figure is given only at a clock the routed design meets. The
bench reads the routed Fmax of every clock of the synthesis entry `node_4p` (the 4-port node on
LFE5U-85F-6, worst of its nextpnr seeds) from build/syn/report.json (`fastpath syn node_4p`).
When that figure exists and the port clocks reach the 125 MHz GMII needs, the datapath is simulated
at the routed clock (capped at its 200 MHz target) and latencies are given in ns at it; otherwise
the bench says why and gives latencies in cycles only (cycles of the 125 MHz port clock, with the
datapath simulated at its target clock), and every `*_ns` figure is null.

Writes build/bench/node.json: {"config", "results": [{"mode", "size", "load", "clock_mhz",
"latency_cycles": {"min", "avg", "max"}, "latency_ns": {...} or null, "throughput_pct", "lost",
"frames"}, ...], "clock_mhz" (the clock the ns figures are at, null without them),
"routed_fmax_mhz" ({clock: MHz} of node_4p, null when not routed), "routed": {entry, part, seed,
reason}, "worst_latency_cycles", "worst_latency_ns", "jitter_cycles", "jitter_ns",
"capacity_mpps"} (the top-level figures: cut-through, full load, at the first datapath clock) and
build/bench/node.png (latency against frame size, with the paper's measured band).
"""
from __future__ import annotations

import statistics

from fastpath import regs
from fastpath.node.model import NodeCfg, NodeModel, Scoreboard
from fastpath.paths import BUILD, progress
from fastpath.node.harness import InFrame, NodeHarness

SIZES = [64, 128, 256, 512, 1024, 1280, 1518]     # bytes on the wire incl. FCS (RFC 2544)
PORTS = 12
SEG_BYTES = 64                    # the default; the full run adds SEG_BYTES_ALT rows
SEG_BYTES_ALT = 32
PAPER_BAND_NS = (1096, 2088)      # TrustNode, Fig. 7: MAC to MAC, 125 MHz datapath
PAPER_JITTER_NS = 504
ETHERTYPE = 0x88B5                # IEEE local experimental
PORT_NS = 8.0                     # latency cycles are cycles of the 125 MHz GMII port clock
DATAPATH_TARGET_MHZ = 200.0
ROUTED_ENTRY = "node_4p"          # node/syn.toml: the routed 4-port node the ns figures rest on
PORT_CLOCKS = ("port_clk", "gmii_rx_clk")
LEARN_GAP_PS = 40_000_000         # after the learning broadcasts


def mac(port: int) -> bytes:
    return bytes([0x02, 0, 0, 0, 0x10, port])


def frame(src: int, dst: int, size: int, seq: int) -> bytes:
    """A test frame of `size` bytes on the wire (FCS included), id in the last 4 bytes."""
    body = size - 4
    head = mac(dst) + mac(src) + ETHERTYPE.to_bytes(2, "big")
    fill = bytes((seq + i) & 0xFF for i in range(body - len(head) - 4))
    return head + fill + ((src << 24) | (seq & 0xFFFFFF)).to_bytes(4, "big")


def ident(f: bytes) -> tuple[int, int]:
    v = int.from_bytes(f[-4:], "big")
    return v >> 24, v & 0xFFFFFF


def routed_clocks(report_path=None) -> dict:
    """What the last routed synthesis of ROUTED_ENTRY allows: {"fmax": {clock: MHz} or None,
    "clock_mhz": the datapath clock to simulate and report ns at, or None, "reason": why not,
    "seed": the worst seed, "part": the ECP5 part}."""
    from fastpath import syn
    core = syn.report_entry(ROUTED_ENTRY, report_path)
    part = f"{syn.ECP5['device']}-{syn.ECP5['speed']}"
    fmax = syn.routed_fmax(ROUTED_ENTRY, report_path)
    out = {"entry": ROUTED_ENTRY, "part": part, "fmax": fmax or None, "clock_mhz": None, "reason": None,
           "seed": None}
    if not fmax:
        out["reason"] = (f"no routed figure for {ROUTED_ENTRY} in build/syn/report.json "
                         f"(run `fastpath syn {ROUTED_ENTRY}`)")
        return out
    seeds = {v.get("seed") for v in core["ecp5"]["fmax"].values()}
    out["seed"] = sorted(s for s in seeds if s is not None) or None
    slow = [f"{c} {fmax[c]:g} MHz" for c in PORT_CLOCKS if c in fmax and fmax[c] < 125.0]
    if slow:
        out["reason"] = (f"{ROUTED_ENTRY} routed on {part} reaches {', '.join(slow)}, below the 125 MHz "
                         f"GMII needs: no nanosecond figure holds on silicon")
        return out
    if "clk" not in fmax:
        out["reason"] = f"{ROUTED_ENTRY}'s report has no figure for the datapath clock clk"
        return out
    out["clock_mhz"] = min(DATAPATH_TARGET_MHZ, float(int(fmax["clk"] * 10) / 10))
    return out


def release_ns(seg_bytes: int, clk_mhz: float) -> int:
    """The cut-through release time this bench configures (node/README.md, "Latency budget")."""
    from fastpath.node import budget as node_budget
    return node_budget.release_ns(seg_bytes, clk_mhz)


def _writes(rm, mode: str, rel: int) -> list[tuple[int, int]]:
    w = [(rm.offset("release_ns"), rel)]
    if mode == "saf":
        w.append((rm.offset("store_forward"), (1 << PORTS) - 1))
    return w


def measure(h: NodeHarness, mode: str, size: int, load: str, clk_mhz: float, frames_per_port: int,
            rel: int) -> dict:
    rm = regs.load("node")
    wire_ps = (size + 20) * 8 * 1000                 # frame + preamble + IFG at 1G
    inputs: list[InFrame] = []
    seg = h.params["SEG_BYTES"]
    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=seg))
    sb = Scoreboard(model)
    bcast = b"\xff" * 6
    for p in range(PORTS):                           # learning: one broadcast per port
        f = bcast + mac(p) + ETHERTYPE.to_bytes(2, "big") + bytes(46)
        inputs.append(InFrame(p, p * 1_000_000, f))
        sb.send(p, f)
    if load == "full":
        flows = [(p, (p + PORTS // 2) % PORTS) for p in range(PORTS)]
        period = wire_ps
    else:
        flows = [(0, PORTS // 2)]
        period = wire_ps * 10
    sent = []
    for k in range(frames_per_port):
        for src, dst in flows:
            f = frame(src, dst, size, k)
            inputs.append(InFrame(src, LEARN_GAP_PS + k * period, f))
            sent.append((src, k))
    # the model sees frames in SFD order: learning first, then round by round
    for k in range(frames_per_port):
        for src, dst in flows:
            sb.send(src, frame(src, dst, size, k))
    res = h.run(inputs, writes=_writes(rm, mode, rel), clk_ps=round(1e6 / clk_mhz))
    got = {p: [o.data for o in res.tx[p] if o.ok and not o.er] for p in res.tx}
    bad = sum(1 for p in res.tx for o in res.tx[p] if not o.ok or o.er)
    check = sb.check(got, allow_missing=True)
    # latency of the measured frames: rx SFD of the idx-th frame of port src
    rx_index = {}
    per_port_idx = {p: 0 for p in range(PORTS)}
    for f in inputs:
        i = per_port_idx[f.port]
        per_port_idx[f.port] += 1
        if int.from_bytes(f.data[12:14], "big") == ETHERTYPE and f.data[0] != 0xFF:
            rx_index[ident(f.data)] = res.rx.get((f.port, i))
    lat = []
    for p in res.tx:
        for o in res.tx[p]:
            if not o.ok or o.data[0] == 0xFF:
                continue
            t_in = rx_index.get(ident(o.data))
            if t_in is not None:
                lat.append((o.sfd_ps - t_in) / 1000.0)
    measured = len(sent)
    delivered = len(lat)
    lost = measured - delivered
    return {"mode": mode, "size": size, "load": load, "clock_mhz": clk_mhz, "seg_bytes": seg,
            "latency_ns": {"min": round(min(lat), 1) if lat else None,
                           "avg": round(statistics.fmean(lat), 1) if lat else None,
                           "max": round(max(lat), 1) if lat else None},
            "latency_cycles": {"min": round(min(lat) / PORT_NS, 2) if lat else None,
                               "avg": round(statistics.fmean(lat) / PORT_NS, 2) if lat else None,
                               "max": round(max(lat) / PORT_NS, 2) if lat else None},
            "throughput_pct": round(100.0 * delivered / measured, 2) if load == "full" else None,
            "lost": lost, "frames": measured, "bad_out": bad, "model_missing": check["missing"]}


def frames_per_port(size: int, load: str, quick: bool) -> int:
    """Full load: long enough for the steady state (500 us of traffic, 100 us with --quick);
    low rate: 20 frames (8)."""
    if load == "low":
        return 8 if quick else 20
    span_ns = 100_000 if quick else 500_000
    return max(4, span_ns // ((size + 20) * 8))


def capacity_mpps(clk_mhz: float) -> float:
    """Frames per second the datapaths can take, for frames of one segment (<= SEG_BYTES):
    the buffer writes one segment per cycle for both datapaths together, and the L2 table takes
    one lookup per datapath every 3 cycles (fp_node_l2_table, CLIENTS = 2); the smaller bounds."""
    from fastpath.node import budget as node_budget
    return round(clk_mhz * min(1.0, 2 / node_budget.TABLE_ROUND), 1)


def _worst(results: list[dict], seg: int, clk_mhz: float, unit: str = "ns") -> tuple[float | None, float | None]:
    """Worst latency and jitter of cut-through at full load, at one clock, for one segment size,
    in "ns" or port-clock "cycles"."""
    key = f"latency_{unit}"
    rows = [r for r in results if r["mode"] == "ct" and r["load"] == "full" and r["clock_mhz"] == clk_mhz
            and r["seg_bytes"] == seg and r[key] is not None]
    lo = [r[key]["min"] for r in rows if r[key]["min"] is not None]
    hi = [r[key]["max"] for r in rows if r[key]["max"] is not None]
    return (max(hi), round(max(hi) - min(lo), 2)) if hi else (None, None)


def run(quick: bool = False, report_path=None) -> dict:
    sizes = [64, 512, 1518] if quick else SIZES
    routed = routed_clocks(report_path)
    if routed["clock_mhz"] is not None:
        clocks = [routed["clock_mhz"]]
        progress(f"ns figures at {routed['clock_mhz']:g} MHz: {ROUTED_ENTRY} routed on {routed['part']}, "
                 f"seed {routed['seed']}")
    else:
        clocks = [DATAPATH_TARGET_MHZ] if quick else [DATAPATH_TARGET_MHZ, 125.0]
        progress(f"cycles only: {routed['reason']}")
    # (segment size, datapath clocks, modes)
    configs = [(SEG_BYTES, clocks, ("ct", "saf"))]
    if not quick:
        configs.append((SEG_BYTES_ALT, clocks, ("ct",)))
    results = []
    for seg, clks, modes in configs:
        h = NodeHarness(ports=PORTS, seg_bytes=seg)
        for clk in clks:
            rel = release_ns(seg, clk)
            progress(f"{seg}-byte segments at {clk:g} MHz: {', '.join(modes)} x {len(sizes)} sizes x 2 loads")
            for mode in modes:
                for size in sizes:
                    for load in ("low", "full"):
                        n = frames_per_port(size, load, quick)
                        r = measure(h, mode, size, load, clk, n, rel)
                        r["release_ns"] = rel if mode == "ct" else None
                        if routed["clock_mhz"] is None:
                            r["latency_ns"] = None
                        results.append(r)
    clk0 = clocks[0]
    worst, jitter = _worst(results, SEG_BYTES, clk0)
    worst_c, jitter_c = _worst(results, SEG_BYTES, clk0, "cycles")
    out = {"config": {"ports": PORTS, "seg_bytes": SEG_BYTES, "port_clock_mhz": 125.0,
                      "datapath_clock_mhz": clocks, "quick": quick,
                      "also_seg_bytes": [c[0] for c in configs[1:]]},
           "results": results,
           "clock_mhz": routed["clock_mhz"],
           "routed_fmax_mhz": routed["fmax"],
           "routed": {k: routed[k] for k in ("entry", "part", "seed", "reason")},
           "worst_latency_ns": worst,
           "jitter_ns": jitter,
           "worst_latency_cycles": worst_c,
           "jitter_cycles": jitter_c,
           "capacity_mpps": capacity_mpps(clk0),
           "capacity_clock_mhz": clk0,
           "offered_mpps_64B_full": round(PORTS * 1e3 / ((64 + 20) * 8), 2),
           "paper": {"latency_band_ns": PAPER_BAND_NS, "jitter_ns": PAPER_JITTER_NS}}
    for seg, clks, _ in configs[1:]:
        out[f"seg{seg}"] = {}
        for clk in clks:
            w, j = _worst(results, seg, clk)
            wc, jc = _worst(results, seg, clk, "cycles")
            out[f"seg{seg}"][f"at_{clk:g}_mhz"] = {"worst_latency_ns": w, "jitter_ns": j,
                                                   "worst_latency_cycles": wc, "jitter_cycles": jc}
    _plot(out)
    return out


def _unit(out: dict) -> str:
    return "ns" if out.get("clock_mhz") else "cycles"


def _plot(out: dict) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    unit = _unit(out)
    key = f"latency_{unit}"
    scale = 1.0 if unit == "ns" else 1.0 / PORT_NS
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.axhspan(PAPER_BAND_NS[0] * scale, PAPER_BAND_NS[1] * scale, color="0.85",
               label="TrustNode measured (125 MHz, low rate)")
    cases = sorted({(r["seg_bytes"], r["clock_mhz"]) for r in out["results"]}, key=lambda c: (-c[0], -c[1]))
    for seg, clk in cases:
        for mode, load, style in (("ct", "full", "-o"), ("ct", "low", "--o"), ("saf", "full", ":s")):
            rows = [r for r in out["results"] if r["mode"] == mode and r["load"] == load
                    and r["clock_mhz"] == clk and r["seg_bytes"] == seg and r[key] and r[key]["max"] is not None]
            if not rows:
                continue
            xs = [r["size"] for r in rows]
            ax.errorbar(xs, [r[key]["avg"] for r in rows],
                        yerr=[[r[key]["avg"] - r[key]["min"] for r in rows],
                              [r[key]["max"] - r[key]["avg"] for r in rows]],
                        fmt=style, capsize=3, label=f"fastpath {mode} {load} load, datapath {clk:.0f} MHz, {seg} B segments")
    ax.set_xlabel("frame size (bytes)")
    if unit == "ns":
        ax.set_ylabel(f"latency SFD in -> SFD out (ns, routed {out['routed']['entry']} clock)")
    else:
        ax.set_ylabel("latency SFD in -> SFD out (125 MHz port cycles)")
        ax.set_title("cycles only: " + (out["routed"]["reason"] or ""), fontsize=7)
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    (BUILD / "bench").mkdir(parents=True, exist_ok=True)
    fig.savefig(BUILD / "bench" / "node.png", dpi=120)
    plt.close(fig)


def table(r: dict) -> str:
    unit = _unit(r)
    key = f"latency_{unit}"
    u = "ns" if unit == "ns" else "cyc"

    def f(v):
        return "-" if v is None else f"{v:g}"

    lines = [f"{'mode':4} {'seg':>3} {'clk':>5} {'size':>5} {'load':5} {'min ' + u:>9} {'avg ' + u:>9} "
             f"{'max ' + u:>9} {'jitter':>7} {'thr %':>6} {'lost':>5}"]
    for x in r["results"]:
        L = x[key] or {"min": None, "avg": None, "max": None}
        jit = round(L["max"] - L["min"], 2) if L["max"] is not None else None
        lines.append(f"{x['mode']:4} {x['seg_bytes']:3} {x['clock_mhz']:5.0f} {x['size']:5} {x['load']:5} "
                     f"{f(L['min']):>9} {f(L['avg']):>9} {f(L['max']):>9} {f(jit):>7} "
                     f"{f(x['throughput_pct']):>6} {x['lost']:5}")
    rt = r["routed"]
    if unit == "ns":
        lines.append(f"ns at {r['clock_mhz']:g} MHz: the routed Fmax of {rt['entry']} on {rt['part']} "
                     f"(worst of seeds {rt['seed']}): " + ", ".join(f"{c} {v:g}" for c, v in r["routed_fmax_mhz"].items()))
        lines.append(f"cut-through, full load: worst {r['worst_latency_ns']} ns, jitter {r['jitter_ns']} ns "
                     f"(TrustNode: {PAPER_BAND_NS[0]}-{PAPER_BAND_NS[1]} ns, jitter {PAPER_JITTER_NS} ns)")
    else:
        lines.append(f"cycles only (125 MHz port-clock cycles, datapath simulated at its target clock): {rt['reason']}")
        lines.append(f"cut-through, full load, datapath {r['config']['datapath_clock_mhz'][0]:g} MHz: worst "
                     f"{r['worst_latency_cycles']} cycles, jitter {r['jitter_cycles']} cycles "
                     f"(TrustNode: {PAPER_BAND_NS[0] / PORT_NS:g}-{PAPER_BAND_NS[1] / PORT_NS:g} cycles of 8 ns)")
    for k in (k for k in r if k.startswith("seg")):
        for a in r[k]:
            w = r[k][a][f"worst_latency_{unit}"]
            j = r[k][a][f"jitter_{unit}"]
            lines.append(f"  {k[3:]}-byte segments, datapath {a[3:-4]} MHz: worst {w} {u}, jitter {j} {u}")
    lines.append(f"datapath capacity {r['capacity_mpps']} Mpps at {r['capacity_clock_mhz']:g} MHz "
                 f"(TrustNode: 40 Mpps); 12 x 1G of 64-byte frames offer {r['offered_mpps_64B_full']} Mpps")
    return "\n".join(lines)
