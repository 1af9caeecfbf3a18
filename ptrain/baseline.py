"""The packet-train tester's software baseline: ptrain-send and ptrain-recv (ptrain/host/) across a
veth pair between two network namespaces, analysed by `fastpath.ptrain.analyze`, beside the truth.

    result = run(count=2000, size=1000, train_len=100, gap_ns=5000, loss_pct=5)
    result["analysis"]        # fastpath.ptrain.analyze.run() of the receiver's capture
    result["truth"]           # what was offered and what nftables dropped
    result["figures"]         # the measured figures (below)

The topology, created here and deleted whatever happens:

    ns <tag>-tx  pt0 --veth--> pr0  ns <tag>-rx
    build/host/ptrain-send -i pt0        build/host/ptrain-recv -i pr0 -w rx.pcap

The sender stamps each frame with CLOCK_REALTIME just before the send system call and records
the kernel's software TX timestamp per sequence number (--tx-stamps); the receiver writes a
nanosecond pcap whose times are the kernel's software RX timestamps. Both ends share the host's
clock, so one-way delays need no synchronisation. Loss (`loss_pct` > 0) is an nftables netdev
ingress rule on pr0 (`fastpath.netns`: numgen random, with a counter); the receiver then binds to
the IP Ethertype (`--proto ipv4|ipv6`), which puts its socket after that hook (ETH_P_ALL would see
frames before the rule drops them). A VLAN tag is lost on that path (the kernel removes it before
protocol handlers): with loss and a tag, received sizes are 4 bytes short.

Figures (`figures`):
  * owd_frame: one-way delay from the frame's own TX time (user space, before send) to the kernel
    RX timestamp: what `fastpath ptrain analyze` reports from the capture;
  * owd_kernel: from the kernel TX timestamp to the kernel RX timestamp (the veth path alone);
  * tx_syscall: frame stamp to kernel TX timestamp (the send system call's path to veth_xmit);
  * capacity_error, capacity_median_error, input_rate_error: the capacity from the trains'
    dispersion at the receiver (run value, median of the trains) and the offered rate seen in the
    frames' TX times (median of the trains), against the configured rate (gap_ns): the sender's
    pacing and the path together; capacity_vs_input_error: the run capacity against the same
    figure from the TX times (`input_rate_run`), i.e. what the path and RX stamping add alone;
  * frames_per_s: the sender's rate (first to last stamp); timestamp: clock_getres, the cost of
    a clock read, the smallest step between two reads, and the gcd of the RX timestamps'
    differences (1 ns when every nanosecond digit is real);
  * loss: what the analyser counted beside the nftables counter, veth and ring drops.

`measure(quick)` runs the set of configurations the datasheet reports (ptrain/README.md,
"Software baseline"); `python -m fastpath.ptrain.baseline [--quick] [--json FILE]` prints them.
Needs root, `ip`, network namespaces (and `nft` for loss): `unavailable()` says why not.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import select
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from fastpath import host, netns
from fastpath.paths import progress

from . import analyze as an
from . import frame as fr

SEND = host.BUILD / "ptrain-send"
RECV = host.BUILD / "ptrain-recv"
NS = 1 << 16


@dataclass
class Params:
    count: int = 2000
    size: int = 1000                 # bytes without FCS
    train_len: int = 100
    gap_ns: int = 0                  # send-to-send within a train; 0: as fast as possible
    rate_mbps: float | None = None   # instead of gap_ns: the layer-1 rate to offer
    train_gap_ns: int | None = None  # None: the sender's default (one train, at least 100 us)
    ipv6: bool = False
    vlan: int | None = None
    loss_pct: float = 0.0            # nftables drop at pr0's ingress
    stream: int = 0
    tx_stamps: bool = True           # record kernel TX timestamps (a system call per frame)
    rt_prio: int | None = None       # run the sender SCHED_FIFO at this priority
    cpu: int | None = None           # pin the sender to this CPU
    idle_ms: int = 300
    timeout_s: float = 30.0

    @property
    def gap(self) -> int:
        if self.rate_mbps:
            return round(fr.wire_bytes(self.size) * 8 * 1000 / self.rate_mbps)
        return self.gap_ns

    @property
    def offered_bps(self) -> float | None:
        """The layer-1 rate the configuration offers within a train (None: as fast as possible)."""
        return fr.wire_bytes(self.size) * 8 * 1e9 / self.gap if self.gap else None


def ring_mb(count: int, size: int, duration_s: float) -> int:
    """A receive ring (1 MiB blocks) that holds the whole run even if the receiver never gets the
    CPU: a frame takes its size plus 96 bytes of ring headers (16-byte aligned), and the ring's
    2 ms timer hands over a block every 2 ms however full it is, over up to twice the planned
    duration (16..2048 MB)."""
    data = count * ((size + 96 + 15) // 16 * 16) / (1 << 20)
    return max(16, min(2048, math.ceil(data + 2 * duration_s * 1000 / 2) + 4))   # 2x: late runs


def unavailable(loss: bool = False) -> str | None:
    """Why the baseline cannot run here (no root, namespaces, nft or C compiler), or None."""
    if not host.available():
        return "no make / C compiler"
    return netns.unavailable(need_nft=loss)


def build() -> None:
    """Build ptrain-send and ptrain-recv (make -f scripts/host.mk ptrain-host)."""
    proc = host.make("ptrain-host")
    if proc.returncode != 0:
        raise RuntimeError("building ptrain-send/ptrain-recv failed:\n" + (proc.stdout + proc.stderr)[-3000:])


def _send_args(p: Params, ifname: str, stamps: Path | None) -> list[str]:
    a = [str(SEND), "-i", ifname, "--count", str(p.count), "--size", str(p.size),
         "--train-len", str(p.train_len), "--gap-ns", str(p.gap), "--stream", str(p.stream)]
    if p.train_gap_ns is not None:
        a += ["--train-gap-ns", str(p.train_gap_ns)]
    if p.ipv6:
        a.append("--ipv6")
    if p.vlan is not None:
        a += ["--vlan", str(p.vlan)]
    if stamps is not None:
        a += ["--tx-stamps", str(stamps)]
    if p.rt_prio:
        a += ["--rt", str(p.rt_prio)]
    if p.cpu is not None:
        a += ["--cpu", str(p.cpu)]
    return a


def _out(cmd: list[str]) -> str:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def _nft_drops(n: netns.Netns, role: str, ifname: str) -> int:
    """The packets counted by the drop rules netns.loss() installed on ifname."""
    out = _out(n.exec(role) + ["nft", "-j", "list", "table", "netdev", f"fploss_{ifname}"])
    drops = 0
    for item in json.loads(out)["nftables"]:
        for e in item.get("rule", {}).get("expr", []):
            if "counter" in e:
                drops += e["counter"]["packets"]
    return drops


def _link_drops(n: netns.Netns, role: str, ifname: str) -> dict:
    out = _out(["ip", "-n", n.ns[role], "-s", "-j", "link", "show", "dev", ifname])
    s = json.loads(out)[0].get("stats64", {})
    return {"rx_dropped": s.get("rx", {}).get("dropped", 0), "tx_dropped": s.get("tx", {}).get("dropped", 0),
            "rx_packets": s.get("rx", {}).get("packets", 0), "tx_packets": s.get("tx", {}).get("packets", 0)}


def read_tx_stamps(path: str | Path) -> dict[int, tuple[int, int]]:
    """seq -> (frame TX ns, kernel TX ns or 0) from a ptrain-send --tx-stamps file."""
    out = {}
    for line in Path(path).read_text().splitlines():
        if line and not line.startswith("#"):
            seq, _train, _index, frame_ns, kernel_ns = (int(x) for x in line.split())
            out[seq] = (frame_ns, kernel_ns)
    return out


def _gcd_of_steps(times_ns: list[int]) -> int:
    g = 0
    for a, b in zip(times_ns, times_ns[1:]):
        g = math.gcd(g, b - a)
        if g == 1:
            break
    return g


def _delays(records: list[an.Record], stamps: dict[int, tuple[int, int]]) -> dict:
    """owd_kernel and tx_syscall from the kernel TX timestamps (records' seq are 32-bit)."""
    owd_k, tx_path = [], []
    for r in records:
        frame_ns, kernel_ns = stamps.get(r.seq, (0, 0))
        if kernel_ns:  # rx_time: the Unix time as fp_time, 64 bits: compare the same way
            owd_k.append(an.diff(r.rx_time, (kernel_ns << 16) & an.MASK64))
            tx_path.append((kernel_ns - frame_ns) * NS)
    return {"owd_kernel": an.delay_stats(owd_k), "tx_syscall": an.delay_stats(tx_path),
            "kernel_tx_stamps": len(owd_k)}


def run(params: Params | None = None, workdir: str | Path | None = None, **kw) -> dict:
    """One baseline run; kw are Params fields. Raises RuntimeError when unavailable() says so."""
    p = params or Params(**kw)
    why = unavailable(loss=p.loss_pct > 0)
    if why:
        raise RuntimeError(f"the ptrain baseline cannot run here: {why}")
    build()  # incremental: nothing to do when the programs are current
    tmp = None
    if workdir is None:
        tmp = tempfile.TemporaryDirectory(prefix="ptrain-baseline-")
        workdir = tmp.name
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    pcap, stamps = work / "rx.pcap", (work / "tx_stamps.txt" if p.tx_stamps else None)
    proto = ("ipv6" if p.ipv6 else "ipv4") if p.loss_pct > 0 else "all"
    try:
        with netns.Netns(["tx", "rx"], tag="fppt") as n:
            n.veth("tx", "pt0", "rx", "pr0", mtu=max(1500, p.size))
            if p.loss_pct > 0:
                n.loss("rx", "pr0", p.loss_pct, direction="in")
            send_s = p.count * max(p.gap, 1000) / 1e9 + math.ceil(p.count / p.train_len) * \
                (p.train_gap_ns if p.train_gap_ns is not None else max(100_000, p.gap * p.train_len)) / 1e9
            recv_cmd = n.exec("rx") + [str(RECV), "-i", "pr0", "-w", str(pcap), "--count", str(p.count),
                                       "--idle-ms", str(p.idle_ms), "--proto", proto,
                                       "--ring-mb", str(ring_mb(p.count, p.size, send_s)),
                                       "--timeout", str(min(p.timeout_s, send_s + 10))]
            rx = subprocess.Popen(recv_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                ready, _, _ = select.select([rx.stdout], [], [], 10)
                line = rx.stdout.readline() if ready else ""
                if line.strip() != "ready":
                    rx.kill()
                    raise RuntimeError(f"ptrain-recv did not start: {line.strip()} {rx.stderr.read().strip()}")
                tx = subprocess.run(n.exec("tx") + _send_args(p, "pt0", stamps), capture_output=True,
                                    text=True, timeout=p.timeout_s)
                if tx.returncode != 0:
                    raise RuntimeError(f"ptrain-send failed: {tx.stderr.strip()}")
                out, err = rx.communicate(timeout=p.timeout_s)
            finally:
                if rx.poll() is None:
                    rx.kill()
                    rx.wait()
            if rx.returncode != 0:
                raise RuntimeError(f"ptrain-recv failed: {err.strip()}")
            sender = json.loads(tx.stdout.strip().splitlines()[-1])
            receiver = json.loads(out.strip().splitlines()[-1])
            drops = _nft_drops(n, "rx", "pr0") if p.loss_pct > 0 else 0
            links = {"pt0": _link_drops(n, "tx", "pt0"), "pr0": _link_drops(n, "rx", "pr0")}
        result, records, _frames = an.run(pcap)
        summary = result["streams"][0]["summary"] if result["streams"] else {}
        truth = {"sent": sender["sent"], "offered_bps": p.offered_bps, "nft_drops": drops,
                 "veth_drops": links["pt0"]["tx_dropped"] + links["pr0"]["rx_dropped"],
                 "ring_drops": receiver["ring_drops"],
                 "expected_received": sender["sent"] - drops, "links": links}
        figures = _figures(p, sender, receiver, summary, records, stamps, truth)
        return {"params": {**asdict(p), "gap_ns": p.gap, "proto": proto}, "sender": sender,
                "receiver": receiver, "truth": truth, "figures": figures, "analysis": result,
                "workdir": None if tmp else str(work)}
    finally:
        if tmp is not None:
            tmp.cleanup()


def input_rate_run(records: list[an.Record]) -> float | None:
    """The offered rate over the whole run from the frames' TX times, as the analyser's run
    capacity is from RX times: every train's wire bits (a lost frame's slot taken as the size of
    the frame before it) over the sum of the trains' TX spans."""
    trains: dict[tuple[int, int], list[an.Record]] = {}
    for r in records:
        trains.setdefault((r.stream, r.train), []).append(r)
    bits = span = 0
    for rs in trains.values():
        rs = sorted({r.index: r for r in rs}.values(), key=lambda r: r.index)
        if len(rs) > 1:
            bits += sum((b.index - a.index) * an.wire_bits(a.size) for a, b in zip(rs, rs[1:]))
            span += an.diff(rs[-1].tx_time, rs[0].tx_time)
    return bits * 1e9 * NS / span if span > 0 else None


def _rel(x: float | None, ref: float | None) -> float | None:
    return (x - ref) / ref if x is not None and ref else None


def _figures(p: Params, sender: dict, receiver: dict, s: dict, records: list[an.Record],
             stamps: Path | None, truth: dict) -> dict:
    f: dict = {
        "timestamp": {"clock_res_ns": sender["clock_res_ns"], "clock_read_ns": sender["clock_read_ns"],
                      "clock_step_min_ns": sender["clock_step_min_ns"],
                      "rx_steps_gcd_ns": _gcd_of_steps(sorted(r.rx_time >> 16 for r in records)),
                      "rx_kernel_stamps": receiver["ts_software"], "rx_other_stamps": receiver["ts_other"]},
        "frames_per_s": sender["frames_per_s"], "late": sender["late"],
        "late_train_starts": sender["late_train_starts"],
        "owd_frame": s.get("owd", {"count": 0}),
        "offered_bps": p.offered_bps,
        "capacity_bps": s.get("capacity_bps"), "capacity_median_bps": s.get("capacity_median_bps"),
        "input_rate_bps": s.get("input_rate_median_bps"), "input_rate_run_bps": input_rate_run(records),
        "capacity_error": _rel(s.get("capacity_bps"), p.offered_bps),
        "capacity_median_error": _rel(s.get("capacity_median_bps"), p.offered_bps),
        "input_rate_error": _rel(s.get("input_rate_median_bps"), p.offered_bps),
        "capacity_vs_input_error": _rel(s.get("capacity_bps"), input_rate_run(records)),
        "loss": {"lost": s.get("lost"), "received": s.get("received"), "nft_drops": truth["nft_drops"],
                 "veth_drops": truth["veth_drops"], "ring_drops": truth["ring_drops"],
                 "exact": s.get("lost") == truth["nft_drops"] + truth["veth_drops"] + truth["ring_drops"]},
    }
    if stamps is not None and stamps.exists():
        f.update(_delays(records, read_tx_stamps(stamps)))
    return f


# ------------------------------------------------------------------------------------------------
# The datasheet's figures


def measure(quick: bool = False, rt_prio: int | None = 50) -> dict:
    """The configurations ptrain/README.md reports: delay and resolution at a modest rate,
    capacity error at three offered rates, loss against nftables, the fastest sender. The sender
    runs SCHED_FIFO at rt_prio (None: an ordinary task), each run lasting under a second."""
    why = unavailable(loss=True)
    if why:
        return {"skipped": why}
    build()
    n = 2000 if quick else 10000
    out: dict = {"runs": [], "rt_prio": rt_prio, "cpus": os.cpu_count(), "load_before": os.getloadavg()}

    def one(label: str, **kw) -> dict:
        progress(f"ptrain baseline: {label}")
        r = run(rt_prio=rt_prio, **kw)
        row = {"label": label, "params": r["params"], "figures": r["figures"], "sender": r["sender"],
               "receiver": r["receiver"], "truth": {k: v for k, v in r["truth"].items() if k != "links"}}
        out["runs"].append(row)
        return row

    one("delay, 1000 B every 10 us", count=n, size=1000, gap_ns=10_000, train_len=100)
    for mbps in (100, 1000, 4000):
        one(f"capacity, 1000 B offered at {mbps} Mb/s", count=n, size=1000, rate_mbps=mbps, train_len=100)
    one("loss 5 %, 1000 B every 5 us", count=n, size=1000, gap_ns=5000, train_len=100, loss_pct=5)
    one("fastest, 60 B (compact header), no TX stamps", count=10 * n, size=60, gap_ns=0, train_len=1000,
        tx_stamps=False, train_gap_ns=0)
    one("fastest, 1000 B, with TX stamps", count=n, size=1000, gap_ns=0, train_len=100)
    return out


def _fmt_ns(d: dict, key: str) -> str:
    return f"{d[key]:.0f}" if d.get("count") else "-"


def table(result: dict) -> str:
    if "skipped" in result:
        return f"ptrain baseline skipped: {result['skipped']}"
    lines = [f"{'run':38} {'frames/s':>9} {'late':>5} {'owd min/mean/p99 ns':>20} "
             f"{'kernel owd':>13} {'capacity err run/median':>24} {'input err':>10} {'vs input':>9} {'lost/nft':>9}"]
    for r in result["runs"]:
        f = r["figures"]
        o, k = f["owd_frame"], f.get("owd_kernel", {"count": 0})
        owd = f"{_fmt_ns(o, 'min_ns')}/{_fmt_ns(o, 'mean_ns')}/{_fmt_ns(o, 'p99_ns')}"
        kow = f"{_fmt_ns(k, 'min_ns')}/{_fmt_ns(k, 'mean_ns')}/{_fmt_ns(k, 'p99_ns')}"
        pct = lambda x: f"{100 * x:+.2f} %" if x is not None else "-"  # noqa: E731
        ce = f"{pct(f['capacity_error'])} / {pct(f['capacity_median_error'])}"
        lo = f"{f['loss']['lost']}/{f['loss']['nft_drops']}"
        lines.append(f"{r['label']:38} {f['frames_per_s']:>9.0f} {f['late']:>5} {owd:>20} {kow:>13} "
                     f"{ce:>24} {pct(f['input_rate_error']):>10} {pct(f['capacity_vs_input_error']):>9} {lo:>9}")
    t = result["runs"][0]["figures"]["timestamp"]
    lines.append(f"sender: {'SCHED_FIFO ' + str(result['rt_prio']) if result.get('rt_prio') else 'ordinary task'}; "
                 f"{result.get('cpus')} CPUs, load average before {result.get('load_before', [0])[0]:.2f}; "
                 "owd: frame stamp to kernel RX; kernel owd: kernel TX to kernel RX (min/mean/p99 ns); "
                 "errors against the configured rate, 'vs input' against the frames' own TX times")
    lines.append(f"timestamps: clock_getres {t['clock_res_ns']} ns, a clock read {t['clock_read_ns']:.1f} ns, "
                 f"smallest step seen {t['clock_step_min_ns']} ns, gcd of RX steps {t['rx_steps_gcd_ns']} ns, "
                 f"{t['rx_kernel_stamps']} kernel RX stamps ({t['rx_other_stamps']} other)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fastpath.ptrain.baseline", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2,000 frames per run instead of 10,000")
    ap.add_argument("--json", help="write the result here")
    ap.add_argument("--no-rt", action="store_true", help="run the sender as an ordinary task, not SCHED_FIFO")
    a = ap.parse_args(argv)
    os.environ.setdefault("FASTPATH_PROGRESS", "1")
    res = measure(quick=a.quick, rt_prio=None if a.no_rt else 50)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(res, indent=1) + "\n")
    print(table(res))
    return 0 if "skipped" not in res else 1


if __name__ == "__main__":
    sys.exit(main())
