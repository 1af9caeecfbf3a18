"""The P4 system's software baseline: SR-MPLS label push in C over veth ("without offload").

The seed paper (seeds/004) pushes one SR-MPLS label in its FPGA pipeline at 78.97 Gb/s with
1518-byte frames and 84.82 Gb/s with jumbo frames, and says the same push done in software on
the host ("without offload") reaches up to 30 % less. This module measures that software column
on this machine: `build/host/mpls_push` (p4/host/mpls_push.c: AF_PACKET, TPACKET_V3 RX ring,
sendmmsg TX, the edit of p4/host/mpls_edit.c) between two veth pairs.

Three network namespaces, created here and deleted again whatever happens (fastpath.netns),
every veth at MTU 9000 (jumbo frames, and room for the labels on 1518-byte frames):

    sender ns  s0 <--veth--> f0  forwarder ns  f1 <--veth--> k0  sink ns
               s1 <------------------veth------------------> k1        (veth alone)

`build/host/mpls_bench` is the sender (on s0, or s1) and the sink (k0, or k1) in one process
pinned to CPU 0; the forwarder runs pinned to CPU 1. Both run SCHED_FIFO (FASTPATH_P4_RT=0: not),
so that the rest of the machine's work does not take their CPUs mid-trial; trials are short and
separated by idle gaps, so the kernel's RT throttling (95 % of a CPU per second) never stalls
them. In each trial the sender sends as fast as it can for a fixed time; the result is the rate
of frames delivered at the sink, each checked (length, headers with the label stack, sequence
number, last bytes), in the steady state (from 20 % of the trial to its end).

Paths, at 64, 1518 and 9000-byte frames (with FCS; 60, 1514 and 8996 bytes sent):
  * veth     s1 -> k1, no forwarder: what the kernel's veth and the harness carry, the ceiling;
  * plain    through mpls_push --labels none: the same forwarder forwarding unchanged, the
             reference for the cost of the push itself;
  * push1    through mpls_push with 1 label (the paper's case), push3 with 3 labels.
Each row: Mpps, Gb/s (L2: frame bytes with FCS, no preamble or gap; `gbps_l2` at the input frame
size, `gbps_l2_out` at the output size, labels included), loss, whether the sender or the
forwarder was the limit, the forwarder's CPU time per frame and in cores, and each CPU's busy
share (user, system, softirq, steal) during the trial.

`run(quick)` returns the dict the P4 bench (p4/bench.py, written separately) is to include under
"software_baseline", or {"skipped": reason} without root / namespaces. `python -m fastpath.p4.bench_sw [--quick]` prints
the table (and writes the JSON with --json FILE).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import select
import signal
import subprocess
import sys
import time

from fastpath import host, netns

FWD = host.BUILD / "mpls_push"
SENDER = host.BUILD / "mpls_bench"

SIZES = {64: 60, 1518: 1514, 9000: 8996}      # frame size with FCS -> bytes sent (no FCS)
LABELS = {"plain": "none", "push1": "16001", "push3": "16001,16002/5,16003"}
PATHS = ["veth", "plain", "push1", "push3"]
MTU = 9000
RT_PRIO = 10
SEED = {"offload_gbps_1518": 78.97, "offload_gbps_jumbo": 84.82,
        "without_offload": "up to 30 % less (seeds/004, one SR-MPLS label, 1 CPU core)"}


def unavailable() -> str | None:
    """Why this machine cannot run the veth benchmark, or None if it can."""
    if sys.platform != "linux":
        return "not Linux"
    if not host.available():
        return "no C compiler / make"
    return netns.unavailable()


def build() -> None:
    """The forwarder and the sender/sink (only these: other systems' host code is not needed)."""
    proc = host.make(str(FWD), str(SENDER))
    if proc.returncode != 0:
        raise RuntimeError(f"building mpls_push / mpls_bench failed: "
                           f"{(proc.stdout + proc.stderr)[-2000:]}")


def topology(tag: str = "fpm") -> netns.Netns:
    """The three namespaces (roles s, f, k); call inside `with`, then `links(n)`."""
    return netns.Netns(["s", "f", "k"], tag=tag)


def links(n: netns.Netns, mtu: int = MTU) -> None:
    n.veth("s", "s0", "f", "f0", mtu=mtu)
    n.veth("f", "f1", "k", "k0", mtu=mtu)
    n.veth("s", "s1", "k", "k1", mtu=mtu)


def _pin(cpu: int) -> list[str]:
    return ["--cpu", str(cpu)] if (os.cpu_count() or 1) > cpu else []


class Forwarder:
    """mpls_push in the forwarder namespace; snapshot() / stop() return its counters."""

    def __init__(self, n: netns.Netns, labels: str, *, rt: bool = True, cpu: int | None = 1,
                 extra: list[str] | None = None, timeout: float = 300):
        cmd = n.exec("f") + [str(FWD), "-i", "f0", "-o", "f1", "--labels", labels,
                             "--timeout", str(timeout)]
        if cpu is not None:
            cmd += _pin(cpu)
        if rt:
            cmd += ["--rt", str(RT_PRIO)]
        cmd += extra or []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.ready = self._line(lambda l: l.startswith("ready"), 10.0, "did not start")

    def _line(self, want, timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                line = self.proc.stdout.readline()
                if not line:
                    break
                if want(line):
                    return line.strip()
        if self.proc.poll() is None:
            self.proc.kill()
        err = self.proc.stderr.read() if self.proc.stderr else ""
        raise RuntimeError(f"mpls_push {what}: {err.strip()}")

    def snapshot(self) -> dict:
        self.proc.send_signal(signal.SIGUSR1)
        return json.loads(self._line(lambda l: l.startswith("{"), 5.0, "gave no counters"))

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            out, err = self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=5)
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"mpls_push gave no counters: {err.strip()}")

    def __enter__(self) -> "Forwarder":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()


def send(n: netns.Netns, *, size: int, labels: str, duration: float, direct: bool = False,
         rt: bool = True, extra: list[str] | None = None) -> dict:
    """One mpls_bench run: all-out from s0 (s1 with direct) for `duration` s, sink on k0 (k1)."""
    tx, rx = ("s1", "k1") if direct else ("s0", "k0")
    cmd = n.exec("s") + [str(SENDER), "-t", tx, "-r", rx, "--rx-netns", n.ns["k"],
                         "--size", str(size), "--labels", labels, "--duration", str(duration)]
    cmd += _pin(0) + (["--rt", str(RT_PRIO)] if rt else []) + (extra or [])
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60 + duration)
    if proc.returncode != 0:
        raise RuntimeError(f"mpls_bench failed: {proc.stderr.strip()}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cpu_times() -> dict[str, list[int]]:
    """/proc/stat per CPU: user nice system idle iowait irq softirq steal (ticks)."""
    out = {}
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("cpu") and line[3].isdigit():
                parts = line.split()
                out[parts[0]] = [int(x) for x in parts[1:9]]
    return out


def cpu_share(before: dict, after: dict) -> dict:
    """Each CPU's time during a trial: shares of user (+nice), system (+irq), softirq, steal,
    idle (+iowait), and busy = 1 - idle."""
    out = {}
    for cpu in sorted(after):
        d = [a - b for a, b in zip(after[cpu], before.get(cpu, after[cpu]))]
        total = sum(d) or 1
        user, nice, system, idle, iowait, irq, softirq, steal = d
        out[cpu] = {"user": round((user + nice) / total, 3),
                    "system": round((system + irq) / total, 3),
                    "softirq": round(softirq / total, 3), "steal": round(steal / total, 3),
                    "idle": round((idle + iowait) / total, 3),
                    "busy": round(1 - (idle + iowait) / total, 3)}
    return out


def trial(n: netns.Netns, path: str, wire: int, duration: float, rt: bool,
          fwd: Forwarder | None) -> dict:
    size = SIZES[wire]
    time.sleep(0.15)  # idle gap: the rest of the machine runs, RT throttling never bites
    before_fwd = fwd.snapshot() if fwd else None
    before_cpu = cpu_times()
    r = send(n, size=size, labels=LABELS.get(path, "none"), duration=duration,
             direct=path == "veth", rt=rt)
    after_cpu = cpu_times()
    after_fwd = fwd.snapshot() if fwd else None
    pps = r["rx_pps_steady"]
    row = {"path": path, "labels": {"veth": 0, "plain": 0, "push1": 1, "push3": 3}[path],
           "frame_bytes": wire, "sent_bytes": size, "out_bytes": r["out_size"],
           "mpps": round(pps / 1e6, 4),
           "gbps_l2": round(pps * (size + 4) * 8 / 1e9, 3),
           "gbps_l2_out": round(pps * (r["out_size"] + 4) * 8 / 1e9, 3),
           "offered_mpps": round(r["tx_pps"] / 1e6, 4),
           "loss_pct": round(100.0 * r["lost"] / r["sent"], 2) if r["sent"] else 0.0,
           "bad": r["bad"], "reordered": r["reordered"],
           "sink_kernel_drop": r["sink_kernel_drop"],
           "sender_cpu_s": round(r["utime_s"] + r["stime_s"], 3),
           "duration_s": duration, "cpu": cpu_share(before_cpu, after_cpu)}
    # no loss: the forwarder (or veth) kept up with all the sender could offer; else where the
    # frames were lost: the forwarder's RX ring overflowing (it was too slow), or the sink's
    row["limited_by"] = "sender" if r["lost"] == 0 else "sink" if r["sink_kernel_drop"] else \
        "forwarder" if fwd and after_fwd["rx_kernel_drop"] > before_fwd["rx_kernel_drop"] else "?"
    if fwd:
        frames = after_fwd["rx"] - before_fwd["rx"]
        cpu_s = (after_fwd["utime_s"] + after_fwd["stime_s"]
                 - before_fwd["utime_s"] - before_fwd["stime_s"])
        ns = cpu_s / frames * 1e9 if frames else None
        row.update({
            "fwd_frames": frames,
            "fwd_kernel_drop": after_fwd["rx_kernel_drop"] - before_fwd["rx_kernel_drop"],
            "fwd_tx_drop": after_fwd["tx_drop"] - before_fwd["tx_drop"],
            "fwd_cpu_ns_per_frame": round(ns, 1) if frames else None,
            "fwd_user_ns_per_frame": round((after_fwd["utime_s"] - before_fwd["utime_s"])
                                           / frames * 1e9, 1) if frames else None,
            # the forwarder's CPU at the delivered rate, in cores (ns per frame x frames/s)
            "fwd_cpu_cores": round(ns * pps / 1e9, 3) if frames else None,
        })
    return row


def edit_ns(wire: int, labels: str, seconds: float = 0.2) -> dict:
    """The push alone, no I/O (mpls_bench --edit-only): ns per frame of the header edit the
    forwarder does and of a copying edit."""
    proc = subprocess.run([str(SENDER), "--edit-only", "--size", str(SIZES[wire]), "--labels",
                           labels, "--duration", str(seconds)], capture_output=True, text=True,
                          timeout=30)
    if proc.returncode != 0:
        raise RuntimeError(f"mpls_bench --edit-only failed: {proc.stderr.strip()}")
    r = json.loads(proc.stdout)
    return {"edit_ns": r["edit_ns"], "edit_copy_ns": r["edit_copy_ns"]}


def _median_row(rows: list[dict]) -> dict:
    """The repeat with the median rate, with every repeat's rate kept."""
    rows = sorted(rows, key=lambda r: r["mpps"])
    mid = dict(rows[len(rows) // 2])
    if len(rows) > 1:
        mid["repeats_mpps"] = [r["mpps"] for r in rows]
    return mid


def run(quick: bool = False, sizes: list[int] | None = None, paths: list[str] | None = None,
        duration: float | None = None, repeats: int | None = None) -> dict:
    reason = unavailable()
    if reason:
        return {"skipped": reason}
    build()
    sizes = sizes or list(SIZES)
    paths = paths or PATHS
    duration = duration or (0.25 if quick else 0.5)
    repeats = repeats or (1 if quick else 3)
    rt = os.environ.get("FASTPATH_P4_RT", "1") != "0"
    load = os.getloadavg()[0]
    t0 = time.monotonic()
    collected: dict[tuple[int, str], list[dict]] = {}
    fwd_info = None
    with topology() as n:
        links(n)
        for _ in range(repeats):
            for path in paths:
                if path == "veth":
                    for wire in sizes:
                        collected.setdefault((wire, path), []).append(
                            trial(n, path, wire, duration, rt, None))
                    continue
                with Forwarder(n, LABELS[path], rt=rt) as fwd:
                    fwd_info = fwd.ready
                    for wire in sizes:
                        collected.setdefault((wire, path), []).append(
                            trial(n, path, wire, duration, rt, fwd))
                    counters = fwd.stop()
                if counters["tx_drop"] or counters["rx_snap_trunc"]:
                    raise RuntimeError(f"mpls_push dropped frames it should send: {counters}")
    results = {str(w): {p: _median_row(collected[(w, p)]) for p in paths} for w in sizes}
    edit = {str(w): {p: edit_ns(w, LABELS[p], 0.1 if quick else 0.3)
                     for p in ("push1", "push3") if p in paths} for w in sizes}
    out = {
        "unit": "Mpps and Gb/s at the sink; Gb/s counts frame bytes with FCS (no preamble/gap)",
        "io": "AF_PACKET: TPACKET_V3 RX ring, sendmmsg TX (header + payload from the ring), "
              "poll() when idle; sender+sink on CPU 0, forwarder on CPU 1",
        "labels": {p: LABELS[p] for p in paths if p in LABELS}, "mtu": MTU,
        "frame_sizes": sizes, "paths": paths, "results": results, "edit": edit,
        "duration_s": duration, "repeats": repeats, "quick": quick, "realtime": rt,
        "cpus": os.cpu_count(), "kernel": platform.release(), "loadavg_before": round(load, 2),
        "forwarder": fwd_info, "seconds": round(time.monotonic() - t0, 1), "seed": SEED,
    }
    for w in sizes:
        r = results[str(w)]
        if "push1" in r:
            out[f"push1_gbps_{w}"] = r["push1"]["gbps_l2"]
            out[f"push1_mpps_{w}"] = r["push1"]["mpps"]
        for ref in ("plain", "veth"):
            if "push1" in r and ref in r and r[ref]["mpps"]:
                out.setdefault(f"push1_vs_{ref}", {})[str(w)] = \
                    round(r["push1"]["mpps"] / r[ref]["mpps"], 3)
    return out


def table(result: dict) -> str:
    if "skipped" in result:
        return f"p4 software baseline (SR-MPLS push over veth) skipped: {result['skipped']}"
    lines = [f"SR-MPLS push in software over veth (MTU {result['mtu']}), "
             f"{result['repeats']} x {result['duration_s']} s per cell, load average "
             f"{result['loadavg_before']} before",
             f"{'frame':>6} {'path':7} {'Mpps':>7} {'Gb/s L2':>8} {'Gb/s out':>8} {'offered':>8}"
             f" {'loss':>6} {'limit':>9} {'fwd ns/fr':>9} {'fwd cores':>9} {'CPU0':>5} {'CPU1':>5}"]
    for w in result["frame_sizes"]:
        for p in result["paths"]:
            r = result["results"][str(w)][p]
            ns = r.get("fwd_cpu_ns_per_frame")
            cores = r.get("fwd_cpu_cores")
            busy = [r["cpu"].get(c, {}).get("busy", 0.0) for c in ("cpu0", "cpu1")]
            lines.append(
                f"{w:>6} {p:7} {r['mpps']:>7.3f} {r['gbps_l2']:>8.2f} {r['gbps_l2_out']:>8.2f}"
                f" {r['offered_mpps']:>8.3f} {r['loss_pct']:>5.1f}% {r['limited_by']:>9}"
                f" {'' if ns is None else f'{ns:.0f}':>9} {'' if cores is None else f'{cores:.2f}':>9}"
                f" {busy[0]:>5.2f} {busy[1]:>5.2f}")
    for w in result["frame_sizes"]:
        e = result.get("edit", {}).get(str(w), {})
        if e:
            lines.append(f"the edit alone, {w}-byte frames: " + ", ".join(
                f"{p} {v['edit_ns']:.0f} ns (copying {v['edit_copy_ns']:.0f} ns)"
                for p, v in e.items()))
    lines.append(f"seed (FPGA offload, 1 label): {SEED['offload_gbps_1518']} Gb/s at 1518 B, "
                 f"{SEED['offload_gbps_jumbo']} Gb/s jumbo; software: {SEED['without_offload']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fastpath.p4.bench_sw", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one short trial per cell (~10 s)")
    ap.add_argument("--json", help="write the result here too")
    args = ap.parse_args(argv)
    result = run(quick=args.quick)
    print(table(result))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
