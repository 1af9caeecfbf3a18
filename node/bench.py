"""`fastpath bench node` (`make bench`): the node's latency, jitter and throughput, RFC 2544 style.

The subject is the word-serial node fp_node_w (node/rtl/fp_node_w.v) with 12 ports (the issue's
"full 12-port load"), in simulation at its GMII pins (the Verilator harness, node/harness.py,
top "fp_node_w"): one clock, clk = the 125 MHz GMII clock, for the datapath and every TX MAC, so
there is no clock to sweep. The release time is the budget's worst case for 12 ports
(fastpath.node.budget.w_release_ns(12)), so every forwarded frame should leave exactly
w_release_ns + W_TAIL_CYCLES clk cycles after its SFD; the bench checks that for every frame.

* latency as RFC 1242 defines it for cut-through devices (SFD in at the RX pins -> SFD out at the
  TX pins, both at the clock edge that samples them), min / avg / max per frame size, for
  (a) one flow at low rate (port 0 -> port 6, 10 % load) and (b) every port at 100 % load with a
  non-oversubscribed mapping (port p -> port (p + PORTS/2) mod PORTS), the frames of all ports
  starting in the same cycle; jitter = max - min;
* zero-loss throughput per size with every port loaded (percent of line rate);
* not measured: store-and-forward (fp_node_w's store_forward register has no effect yet).

For comparison (full run only: its harness takes minutes to build), the segment-per-beat node
fp_node (12 ports, 64-byte segments, its datapath simulated at its 200 MHz target), cut-through
only, in 125 MHz port cycles only: no routed figure of it reaches the GMII's 125 MHz.

Before measuring, every port sends one broadcast so that the node has learned every address;
the measured traffic is known unicast. Every frame carries an id in its last 4 bytes (input port,
sequence number), so each output frame is matched to its input frame; every frame is also
checked against the reference model (fastpath.node.model): exact bytes, per-flow order.

Silicon is the truth: a nanosecond figure is given only at a clock the routed design meets. The
bench reads the routed Fmax of every clock of the synthesis entry `node_4p` (fp_node_w with 4
ports on LFE5U-85F-6, the worst of its nextpnr seeds) from build/syn/report.json
(`fastpath syn node_4p`). fp_node_w's clock can only be the GMII's 125 MHz, so when `clk` and
`gmii_rx_clk` both reach 125 MHz the figures are in ns at 125 MHz; otherwise (or with no routed
figure) the bench says why and gives latencies in 8 ns cycles only, and every `*_ns` figure is null.

Writes build/bench/node.json: {"config", "results": [{"subject", "mode", "size", "load",
"datapath_mhz" (simulated), "latency_cycles": {"min", "avg", "max"}, "latency_ns": {...} or null,
"throughput_pct", "lost", "frames", "at_budget"}, ...], "clock_mhz" (the clock the ns figures are
at, null without them), "routed_fmax_mhz" ({clock: MHz} of node_4p, null when not routed),
"routed": {entry, part, seed ({clock: the worst seed}), seeds, reason}, "worst_latency_cycles",
"worst_latency_ns", "jitter_cycles", "jitter_ns" (fp_node_w, full load, every size), "budget"
(the release and latency of fastpath.node.budget for 12 ports, and whether every measured latency
equals it), "not_measured", "fp_node" (the comparison's worst latency and jitter, cycles),
"paper" (TrustNode)} and build/bench/node.png (latency against frame size, with the paper's
measured band).
"""
from __future__ import annotations

import statistics

from fastpath import regs
from fastpath.node.model import NodeCfg, NodeModel, Scoreboard
from fastpath.paths import BUILD, progress
from fastpath.node.harness import InFrame, NodeHarness

SIZES = [64, 128, 256, 512, 1024, 1280, 1518]     # bytes on the wire incl. FCS (RFC 2544)
QUICK_SIZES = [64, 512, 1518]
PORTS = 12
SUBJECT = "fp_node_w"             # the word-serial node: the bench's subject
SEGMENTS = 1024                   # its buffer (fp_node_w's default: 64 KiB)
COMPARE = "fp_node"               # the segment-per-beat node: cycles only, full run only
COMPARE_SEG_BYTES = 64
COMPARE_DATAPATH_MHZ = 200.0      # fp_node's datapath target (simulated; not a routed clock)
PAPER_BAND_NS = (1096, 2088)      # TrustNode, Fig. 7: MAC to MAC, 125 MHz datapath
PAPER_JITTER_NS = 504
ETHERTYPE = 0x88B5                # IEEE local experimental
PORT_NS = 8.0                     # latency cycles are cycles of the 125 MHz GMII clock
GMII_MHZ = 125.0                  # fp_node_w's one clock: the only one its figures can be at
ROUTED_ENTRY = "node_4p"          # node/syn.toml: the routed 4-port fp_node_w the ns figures rest on
ROUTED_CLOCKS = ("clk", "gmii_rx_clk")
LEARN_GAP_PS = 40_000_000         # after the learning broadcasts
NOT_MEASURED = {
    "store_forward": "fp_node_w has no store-and-forward yet: its store_forward register has no "
                     "effect (node/rtl/fp_node_w.v, 'Not yet'), so there are no store-and-forward rows",
}


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
    "clock_mhz": 125.0 (the GMII clock, fp_node_w's only one) when every clock of ROUTED_CLOCKS
    reaches it, else None, "reason": why not, "seed": {clock: the worst seed}, "seeds": the seeds
    routed, "part": the ECP5 part}."""
    from fastpath import syn
    core = syn.report_entry(ROUTED_ENTRY, report_path)
    part = f"{syn.ECP5['device']}-{syn.ECP5['speed']}"
    fmax = syn.routed_fmax(ROUTED_ENTRY, report_path)
    out = {"entry": ROUTED_ENTRY, "part": part, "fmax": fmax or None, "clock_mhz": None, "reason": None,
           "seed": None, "seeds": None}
    if not fmax:
        out["reason"] = (f"no routed figure for {ROUTED_ENTRY} in build/syn/report.json "
                         f"(run `fastpath syn {ROUTED_ENTRY}`)")
        return out
    ecp5 = core["ecp5"]
    out["seed"] = {c: v.get("seed") for c, v in ecp5["fmax"].items()}
    seeds = sorted(int(s) for s in ecp5.get("fmax_per_seed", {})) or sorted(
        {s for s in out["seed"].values() if s is not None})
    out["seeds"] = seeds or None
    missing = [c for c in ROUTED_CLOCKS if c not in fmax]
    if missing:
        out["reason"] = f"{ROUTED_ENTRY}'s report has no figure for {', '.join(missing)}"
        return out
    slow = [f"{c} {fmax[c]:g} MHz" for c in ROUTED_CLOCKS if fmax[c] < GMII_MHZ]
    if slow:
        out["reason"] = (f"{ROUTED_ENTRY} routed on {part} reaches {', '.join(slow)}, below the "
                         f"{GMII_MHZ:g} MHz of GMII, the word-serial node's only clock: no nanosecond "
                         f"figure holds on silicon")
        return out
    out["clock_mhz"] = GMII_MHZ
    return out


def w_budget(ports: int = PORTS) -> dict:
    """The budget (fastpath.node.budget) the bench configures and checks against."""
    from fastpath.node import budget as node_budget
    rel = node_budget.w_release_ns(ports)
    return {"ports": ports, "release_ns": rel, "release_cycles": rel / PORT_NS,
            "tail_cycles": node_budget.W_TAIL_CYCLES,
            "latency_cycles": node_budget.w_latency_ns(ports) / PORT_NS,
            "fixed_cycles": node_budget.w_fixed_cycles(ports)}


def _writes(rm, rel: int) -> list[tuple[int, int]]:
    return [(rm.offset("release_ns"), rel)]


def measure(h: NodeHarness, size: int, load: str, frames_per_port: int, rel: int,
            clk_ps: int | None = None) -> dict:
    """One row: cut-through, `size` bytes, low or full load, on harness `h` (either top)."""
    rm = regs.load("node")
    wire_ps = (size + 20) * 8 * 1000                 # frame + preamble + IFG at 1G
    inputs: list[InFrame] = []
    model = NodeModel(NodeCfg(ports=PORTS, seg_bytes=h.seg_bytes))
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
    res = h.run(inputs, writes=_writes(rm, rel), clk_ps=clk_ps)
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
    lat = []                                         # ps
    for p in res.tx:
        for o in res.tx[p]:
            if not o.ok or o.data[0] == 0xFF:
                continue
            t_in = rx_index.get(ident(o.data))
            if t_in is not None:
                lat.append(o.sfd_ps - t_in)
    measured = len(sent)
    delivered = len(lat)

    def stats(scale: float) -> dict:
        if not lat:
            return {"min": None, "avg": None, "max": None}
        return {"min": round(min(lat) / scale, 2), "avg": round(statistics.fmean(lat) / scale, 2),
                "max": round(max(lat) / scale, 2)}

    return {"subject": h.top, "mode": "ct", "size": size, "load": load,
            "datapath_mhz": round(1e6 / (clk_ps or h.default_clk_ps), 1),
            "latency_ns": stats(1000.0), "latency_cycles": stats(PORT_NS * 1000),
            "latencies_ps": sorted(set(lat)),
            "throughput_pct": round(100.0 * delivered / measured, 2) if load == "full" else None,
            "lost": measured - delivered, "frames": measured, "bad_out": bad,
            "model_missing": check["missing"], "release_ns": rel}


def frames_per_port(size: int, load: str, quick: bool) -> int:
    """Full load: long enough for the steady state (500 us of traffic, 100 us with --quick);
    low rate: 20 frames (8)."""
    if load == "low":
        return 8 if quick else 20
    span_ns = 100_000 if quick else 500_000
    return max(4, span_ns // ((size + 20) * 8))


def _worst(results: list[dict], subject: str, unit: str = "ns") -> tuple[float | None, float | None]:
    """Worst latency and jitter (max - min over every size) at full load, in "ns" or 8 ns
    "cycles", for one subject."""
    key = f"latency_{unit}"
    rows = [r for r in results if r["subject"] == subject and r["load"] == "full" and r[key] is not None]
    lo = [r[key]["min"] for r in rows if r[key]["min"] is not None]
    hi = [r[key]["max"] for r in rows if r[key]["max"] is not None]
    return (max(hi), round(max(hi) - min(lo), 2)) if hi else (None, None)


def _rows(h: NodeHarness, sizes, quick: bool, rel: int, clk_ps: int | None) -> list[dict]:
    out = []
    for size in sizes:
        for load in ("low", "full"):
            out.append(measure(h, size, load, frames_per_port(size, load, quick), rel, clk_ps))
    return out


def run(quick: bool = False, report_path=None) -> dict:
    from fastpath.node import budget as node_budget
    sizes = QUICK_SIZES if quick else SIZES
    routed = routed_clocks(report_path)
    if routed["clock_mhz"] is not None:
        progress(f"ns figures at {routed['clock_mhz']:g} MHz: {ROUTED_ENTRY} routed on {routed['part']}, "
                 f"worst seeds {routed['seed']}")
    else:
        progress(f"cycles only: {routed['reason']}")
    bud = w_budget(PORTS)
    rel = bud["release_ns"]
    h = NodeHarness(ports=PORTS, segments=SEGMENTS, top=SUBJECT)
    progress(f"{SUBJECT}, {PORTS} ports, release {rel} ns: cut-through x {len(sizes)} sizes x 2 loads")
    results = _rows(h, sizes, quick, rel, None)
    if not quick:
        hc = NodeHarness(ports=PORTS, seg_bytes=COMPARE_SEG_BYTES)
        crel = node_budget.release_ns(COMPARE_SEG_BYTES, COMPARE_DATAPATH_MHZ)
        progress(f"for comparison, {COMPARE} ({COMPARE_SEG_BYTES}-byte segments, datapath "
                 f"{COMPARE_DATAPATH_MHZ:g} MHz, cycles only): cut-through x {len(sizes)} sizes x 2 loads")
        results += _rows(hc, sizes, quick, crel, round(1e6 / COMPARE_DATAPATH_MHZ))
    for r in results:
        if r["subject"] == SUBJECT:
            r["at_budget"] = r["latencies_ps"] == [bud["latency_cycles"] * PORT_NS * 1000]
        else:
            r["at_budget"] = None
        if routed["clock_mhz"] is None or r["subject"] != SUBJECT:
            r["latency_ns"] = None
    mine = [r for r in results if r["subject"] == SUBJECT]
    worst, jitter = _worst(results, SUBJECT)
    worst_c, jitter_c = _worst(results, SUBJECT, "cycles")
    cworst_c, cjitter_c = _worst(results, COMPARE, "cycles")
    at_budget = all(r["at_budget"] for r in mine)
    ns = routed["clock_mhz"] is not None
    out = {"config": {"subject": SUBJECT, "ports": PORTS, "clock_mhz_simulated": GMII_MHZ,
                      "segments": SEGMENTS, "seg_bytes": h.seg_bytes,
                      "sizes": sizes, "quick": quick, "compare": None if quick else COMPARE},
           "results": results,
           "clock_mhz": routed["clock_mhz"],
           "routed_fmax_mhz": routed["fmax"],
           "routed": {k: routed[k] for k in ("entry", "part", "seed", "seeds", "reason")},
           "worst_latency_ns": worst if ns else None,
           "jitter_ns": jitter if ns else None,
           "worst_latency_cycles": worst_c,
           "jitter_cycles": jitter_c,
           "budget": {**bud, "release_ns": rel,
                      "latency_ns": bud["latency_cycles"] * PORT_NS if ns else None,
                      "every_frame_at_budget": at_budget},
           "not_measured": dict(NOT_MEASURED),
           "fp_node": None if quick else {
               "what": f"the segment-per-beat node ({COMPARE_SEG_BYTES}-byte segments), datapath "
                       f"simulated at {COMPARE_DATAPATH_MHZ:g} MHz, cut-through only; cycles only (no "
                       f"routed figure of it reaches 125 MHz)",
               "worst_latency_cycles": cworst_c, "jitter_cycles": cjitter_c},
           "offered_mpps_64B_full": round(PORTS * 1e3 / ((64 + 20) * 8), 2),
           "paper": {"latency_band_ns": PAPER_BAND_NS, "jitter_ns": PAPER_JITTER_NS}}
    if quick:
        out["not_measured"]["fp_node"] = "the segment-per-beat comparison runs in the full bench only"
    for r in results:                    # the distinct latencies stay in the table's source only
        r.pop("latencies_ps")
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
    scale = 1.0 if unit == "ns" else 1.0 / PORT_NS
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.axhspan(PAPER_BAND_NS[0] * scale, PAPER_BAND_NS[1] * scale, color="0.85",
               label="TrustNode measured (125 MHz, low rate)")
    for subject in (SUBJECT, COMPARE):
        key = f"latency_{unit}"
        for load, style in (("full", "-o"), ("low", "--o")):
            rows = [r for r in out["results"] if r["subject"] == subject and r["load"] == load
                    and r[key] and r[key]["max"] is not None]
            if not rows:
                continue
            xs = [r["size"] for r in rows]
            name = (f"{subject} (word-serial, 125 MHz)" if subject == SUBJECT else
                    f"{subject} (segment per beat, datapath {COMPARE_DATAPATH_MHZ:g} MHz simulated)")
            ax.errorbar(xs, [r[key]["avg"] for r in rows],
                        yerr=[[r[key]["avg"] - r[key]["min"] for r in rows],
                              [r[key]["max"] - r[key]["avg"] for r in rows]],
                        fmt=style, capsize=3, label=f"{name}, {load} load")
    ax.set_xlabel("frame size (bytes)")
    if unit == "ns":
        ax.set_ylabel(f"latency SFD in -> SFD out (ns, routed {out['routed']['entry']} clock)")
    else:
        ax.set_ylabel("latency SFD in -> SFD out (8 ns cycles)")
        ax.set_title("cycles only: " + (out["routed"]["reason"] or ""), fontsize=7, wrap=True)
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    (BUILD / "bench").mkdir(parents=True, exist_ok=True)
    fig.savefig(BUILD / "bench" / "node.png", dpi=120)
    plt.close(fig)


def table(r: dict) -> str:
    unit = _unit(r)
    u = "ns" if unit == "ns" else "cyc"

    def f(v):
        return "-" if v is None else f"{v:g}"

    lines = [f"{'node':9} {'size':>5} {'load':5} {'min ' + u:>9} {'avg ' + u:>9} "
             f"{'max ' + u:>9} {'jitter':>7} {'thr %':>6} {'lost':>5} {'budget':>6}"]
    for x in r["results"]:
        # fp_node's rows are in cycles whatever the unit (it has no routed clock)
        key, uu = (f"latency_{unit}", "") if x["subject"] == SUBJECT else ("latency_cycles", " cyc")
        L = x[key] or {"min": None, "avg": None, "max": None}
        jit = round(L["max"] - L["min"], 2) if L["max"] is not None else None
        b = "-" if x.get("at_budget") is None else ("=" if x["at_budget"] else "NO")
        lines.append(f"{x['subject']:9} {x['size']:5} {x['load']:5} "
                     f"{f(L['min']) + uu:>9} {f(L['avg']) + uu:>9} {f(L['max']) + uu:>9} {f(jit):>7} "
                     f"{f(x['throughput_pct']):>6} {x['lost']:5} {b:>6}")
    rt, bud = r["routed"], r["budget"]
    if unit == "ns":
        lines.append(f"ns at {r['clock_mhz']:g} MHz (GMII; fp_node_w's one clock): {rt['entry']} routed on "
                     f"{rt['part']}, seeds {rt['seeds']}, worst: "
                     + ", ".join(f"{c} {v:g} MHz (seed {rt['seed'].get(c)})" for c, v in r["routed_fmax_mhz"].items()))
        lines.append(f"{SUBJECT}, {r['config']['ports']} ports, full load: worst {r['worst_latency_ns']} ns, "
                     f"jitter {r['jitter_ns']} ns (TrustNode: {PAPER_BAND_NS[0]}-{PAPER_BAND_NS[1]} ns, "
                     f"jitter {PAPER_JITTER_NS} ns)")
        lines.append(f"budget ({bud['ports']} ports): release {bud['release_ns']} ns, latency {bud['latency_ns']} ns; "
                     f"every frame at it: {bud['every_frame_at_budget']}")
    else:
        lines.append(f"cycles only (8 ns cycles of the 125 MHz clock): {rt['reason']}")
        lines.append(f"{SUBJECT}, {r['config']['ports']} ports, full load: worst {r['worst_latency_cycles']} "
                     f"cycles, jitter {r['jitter_cycles']} cycles (TrustNode: {PAPER_BAND_NS[0] / PORT_NS:g}-"
                     f"{PAPER_BAND_NS[1] / PORT_NS:g} cycles of 8 ns, jitter {PAPER_JITTER_NS / PORT_NS:g})")
        lines.append(f"budget ({bud['ports']} ports): release register {bud['release_ns']} "
                     f"({bud['release_cycles']:g} cycles), latency {bud['latency_cycles']:g} cycles; "
                     f"every frame at it: {bud['every_frame_at_budget']}")
    if r.get("fp_node"):
        c = r["fp_node"]
        lines.append(f"{COMPARE} for comparison: worst {c['worst_latency_cycles']} cycles, jitter "
                     f"{c['jitter_cycles']} cycles ({c['what']})")
    for k, why in r["not_measured"].items():
        lines.append(f"not measured, {k}: {why}")
    lines.append(f"12 x 1G of 64-byte frames offer {r['offered_mpps_64B_full']} Mpps")
    return "\n".join(lines)
