"""`fastpath bench gre_sw`: the GRE software baseline, measured over veth on this machine.

Three network namespaces joined by veth pairs (MTU 1500), all created here and deleted again
whatever happens:

    sender ns  s0 <--veth--> f0  forwarder ns  f1 <--veth--> k0  sink ns
               s1 <------------------veth------------------> k1        (calibration path)

`build/host/gre_fwd` runs in the forwarder namespace (AF_XDP when it can be set up, else
AF_PACKET). `build/host/gre_bench_sender` runs in the sender namespace and also opens the sink
socket in the sink namespace, so one process on one clock (CLOCK_MONOTONIC) writes the TX
timestamp into each frame and measures receive time - TX timestamp for each frame that comes
back decapsulated. Frames are 88 bytes (92 on a wire with the FCS, the seed paper's size):
IPv4 / GRE / 0x6558 / a 50-byte inner Ethernet frame.

Measured:
  * latency at a low rate (10,000 frames/s): median, p99, p99.9, max in microseconds;
  * the same through the calibration path without the forwarder (what the measuring harness,
    veth and AF_PACKET cost by themselves);
  * the highest rate forwarded without losing a frame (binary search over the offered rate, each
    trial a fraction of a second, bounded in count), and the rate forwarded under overload.

The pollers run pinned (sender+sink on CPU 0, forwarder on CPU 1) with SCHED_FIFO, and give
ordinary tasks 200 us of every millisecond (--yield-us), resting in the gaps between frames, so
other work on the machine neither slows them down nor gets starved (gre/docs/software.md).
FASTPATH_GRE_RT=0 turns that off, FASTPATH_GRE_YIELD_US sets the share.

`run()` returns {"median_us", "p99_us", "p999_us", "max_us", "max_mpps", "mode", "frames", ...}
or {"skipped": reason} when not root or network namespaces are unavailable.
`python -m fastpath.gre.bench_sw [--quick] [--mode xdp|packet]` runs it alone.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from fastpath.paths import ROOT
from fastpath import host, netns
from fastpath.netns import _run

BUILD = host.BUILD
FWD = BUILD / "gre_fwd"
SENDER = BUILD / "gre_bench_sender"
PARSE_BENCH = BUILD / "bench_gre_parse"

SEED_DPDK_US = 9.52   # seed 001, Table 1: DPDK GRE, end to end
SEED_FPGA_US = 3.18   # seed 001, Table 1: FPGA GRE
SEED_MPPS = 11.19     # seed 001, Table 2: FPGA, 92-byte frames, zero loss
FRAME_SIZE = 88       # 92 bytes on the wire with the FCS

# Scheduling of the measuring processes (see the module docstring).
RT_PRIO = 10
YIELD_US = int(os.environ.get("FASTPATH_GRE_YIELD_US", "200"))
IDLE_US = 2000


# ---- namespaces -------------------------------------------------------------------------------

def unavailable() -> str | None:
    """Why this machine cannot run the veth benchmark, or None if it can."""
    if sys.platform != "linux":
        return "not Linux"
    if not host.available():
        return "no C compiler / make"
    return netns.unavailable()


class Topology:
    """sender / forwarder / sink namespaces and their veth pairs; deleted on exit, always."""

    LINKS = [("s", "s0", "f", "f0"), ("f", "f1", "k", "k0"), ("s", "s1", "k", "k1")]

    def __init__(self, tag: str = "fpg"):
        unique = f"{tag}{os.getpid() % 100000}x{random.randrange(16**4):04x}"
        self.ns = {role: f"{unique}{role}" for role in "sfk"}
        self.created: list[str] = []

    def __enter__(self) -> "Topology":
        try:
            for role in "sfk":
                _run(["ip", "netns", "add", self.ns[role]])
                self.created.append(self.ns[role])
            for a, ia, b, ib in self.LINKS:
                _run(["ip", "-n", self.ns[a], "link", "add", ia, "mtu", "1500", "type", "veth",
                      "peer", "name", ib, "mtu", "1500", "netns", self.ns[b]])
            for role in "sfk":
                # no IPv6 autoconfiguration chatter on the test links
                _run(["ip", "netns", "exec", self.ns[role], "sysctl", "-qw",
                      "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"],
                     check=False)
            for a, ia, b, ib in self.LINKS:
                _run(["ip", "-n", self.ns[a], "link", "set", ia, "up"])
                _run(["ip", "-n", self.ns[b], "link", "set", ib, "up"])
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        for name in reversed(self.created):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)
        self.created = []

    def __exit__(self, *exc) -> None:
        self.close()

    def exec(self, role: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns[role]]



# ---- the C programs ---------------------------------------------------------------------------

def build() -> None:
    """make host (the forwarder, the sender and the parser library)."""
    _run(["make", "-s", "-f", str(host.MAKEFILE), "all"], timeout=300)


class Forwarder:
    """gre_fwd in the forwarder namespace; stop() returns its counters."""

    def __init__(self, topo: Topology, mode: str, timeout: float, cpu: int | None = 1,
                 rt: bool = True, extra: list[str] | None = None):
        cmd = topo.exec("f") + [str(FWD), "-i", "f0", "-o", "f1", "--mode", mode,
                                "--timeout", str(timeout)]
        if cpu is not None and (os.cpu_count() or 1) > cpu:
            cmd += ["--cpu", str(cpu)]
        if rt:
            cmd += ["--rt", str(RT_PRIO), "--yield-us", str(YIELD_US), "--idle-us", str(IDLE_US)]
        cmd += extra or []
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.mode = None
        self.ready_line = self._wait_ready(10.0)

    def _wait_ready(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                line = self.proc.stdout.readline()
                if line.startswith("ready"):
                    fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
                    self.mode = fields.get("mode")
                    return line.strip()
                if not line:
                    break
        self.proc.kill()
        out, err = self.proc.communicate(timeout=5)
        raise RuntimeError(f"gre_fwd did not start: {err.strip() or out.strip()}")

    def snapshot(self, timeout: float = 5.0) -> dict:
        """The forwarder's counters now (SIGUSR1), without stopping it."""
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                line = self.proc.stdout.readline()
                if line.startswith("{"):
                    return json.loads(line)
                if not line:
                    break
        raise RuntimeError("gre_fwd gave no counter snapshot")

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
        raise RuntimeError(f"gre_fwd gave no counters: {err.strip()}")

    def __enter__(self) -> "Forwarder":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.stop()


def send(topo: Topology, *, rate: float, count: int | None = None, duration: float | None = None,
         plain: bool = False, warmup: int = 0, batch: int = 32, rt: bool = True,
         size: int = FRAME_SIZE) -> dict:
    """One gre_bench_sender run: frames out of s0 (or s1 with plain), back at k0 (k1)."""
    tx, rx = ("s1", "k1") if plain else ("s0", "k0")
    cmd = topo.exec("s") + [str(SENDER), "-t", tx, "-r", rx, "--rx-netns", topo.ns["k"],
                            "--rate", str(rate), "--size", str(size), "--batch", str(batch),
                            "--warmup", str(warmup), "--max-seconds", "30"]
    cmd += ["--count", str(count)] if count else ["--duration", str(duration)]
    if plain:
        cmd.append("--plain")
    if (os.cpu_count() or 1) > 1:
        cmd += ["--cpu", "0"]
    if rt:
        cmd += ["--rt", str(RT_PRIO)]
        if rate > 0:
            cmd += ["--yield-us", str(YIELD_US)]
    proc = _run(cmd, timeout=60)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _latency_row(r: dict) -> dict:
    lat = r["latency_ns"]
    return {"median_us": round(lat["median"] / 1000, 2), "p99_us": round(lat["p99"] / 1000, 2),
            "p999_us": round(lat["p999"] / 1000, 2), "max_us": round(lat["max"] / 1000, 2),
            "min_us": round(lat["min"] / 1000, 2), "mean_us": round(lat["mean"] / 1000, 2),
            "frames": lat["count"], "sent": r["sent"], "lost": r["lost"], "bad": r["bad"]}


def max_rate(topo: Topology, fwd: Forwarder, trial_s: float, steps: int, rt: bool = True) -> dict:
    """Highest offered rate forwarded with zero loss: first an all-out trial, then a binary
    search below it. A trial passes when every frame arrives and the sender kept up.
    During the all-out trial the forwarder's own time per frame is measured too (its
    counters before and after): the busy time of its polling thread, which includes the
    kernel work of its sends but not the receive work the kernel does on the sender's CPU."""
    trials = []

    def trial(rate: float) -> dict:
        # a gap: the pollers go idle and ordinary tasks get their share of both CPUs, so the
        # kernel has no reason to stall the SCHED_FIFO pollers during the next trial
        time.sleep(max(0.2, 0.6 * trial_s))
        r = send(topo, rate=rate, duration=trial_s, rt=rt)
        # passed: nothing lost, and the sender offered at least 90 % of the asked rate (the
        # result is the rate it did offer)
        ok = r["lost"] == 0 and r["bad"] == 0 and (rate == 0 or r["tx_pps"] >= 0.9 * rate)
        trials.append({"rate_pps": round(rate), "tx_pps": round(r["tx_pps"]),
                       "rx_pps": round(r["rx_pps"]), "lost": r["lost"], "ok": ok})
        return r

    before = fwd.snapshot()
    flat_out = trial(0)
    after = fwd.snapshot()
    frames = after["rx"] - before["rx"]
    busy = after["busy_s"] - before["busy_s"]
    ns_per_frame = busy / frames * 1e9 if frames else 0.0
    best = flat_out["tx_pps"] if flat_out["lost"] == 0 else 0.0
    sender_limited = best > 0
    lo, hi = 0.0, flat_out["tx_pps"]
    if not sender_limited:
        guess = min(flat_out["rx_pps"] * 0.9, hi)
        for _ in range(steps):
            rate = guess if guess else (lo + hi) / 2
            guess = 0
            r = trial(rate)
            if trials[-1]["ok"]:
                best = max(best, r["tx_pps"])
                lo = rate
            else:
                hi = rate
            if hi - lo < 0.02 * hi:
                break
    return {"max_mpps": round(best / 1e6, 4), "saturation_mpps": round(flat_out["rx_pps"] / 1e6, 4),
            "offered_max_mpps": round(flat_out["tx_pps"] / 1e6, 4),
            "sender_limited": sender_limited, "trials": trials,
            "forwarder_ns_per_frame": round(ns_per_frame, 1),
            "forwarder_busy_fraction": round(busy / max(flat_out["send_seconds"], 1e-9), 3),
            "forwarder_capacity_mpps": round(1e3 / ns_per_frame, 3) if ns_per_frame else 0.0}


def measure_mode(topo: Topology, mode: str, quick: bool, rt: bool = True) -> dict:
    rate = 10_000
    count = 20_000 if quick else 100_000
    with Forwarder(topo, mode, timeout=120, rt=rt) as fwd:
        lat = send(topo, rate=rate, count=count, warmup=100, batch=1, rt=rt)
        rates = max_rate(topo, fwd, trial_s=0.25 if quick else 0.5, steps=5 if quick else 10,
                         rt=rt)
        counters = fwd.stop()
    row = _latency_row(lat)
    row.update(rates)
    row.update({"mode": fwd.mode, "forwarder": fwd.ready_line, "latency_rate_pps": rate,
                "counters": {k: counters[k] for k in ("rx", "tx", "tx_drop", "rx_kernel_drop")}})
    return row


def run(quick: bool = False, modes: list[str] | None = None) -> dict:
    reason = unavailable()
    if reason:
        return {"skipped": reason}
    build()
    load = os.getloadavg()[0]  # other work on the machine shows in the tails: keep it on record
    rt = os.environ.get("FASTPATH_GRE_RT", "1") != "0"
    with Topology() as topo:
        direct = _latency_row(send(topo, rate=10_000, count=20_000 if quick else 100_000,
                                   warmup=100, batch=1, plain=True, rt=rt))
        results = {}
        for mode in modes or ["xdp", "packet"]:
            try:
                results[mode] = measure_mode(topo, mode, quick, rt=rt)
            except RuntimeError as e:  # AF_XDP missing: say so, keep the other mode
                results[mode] = {"error": str(e)}
    parse = json.loads(_run([str(PARSE_BENCH), "--seconds", "0.2" if quick else "0.5"]).stdout)
    good = [m for m in results if "error" not in results[m] and results[m]["mode"] == m]
    if not good:
        return {"skipped": "no forwarding mode worked: " + "; ".join(
            f"{m}: {r.get('error', r.get('mode'))}" for m, r in results.items())}
    main = results[good[0]]
    out = {k: main[k] for k in ("median_us", "p99_us", "p999_us", "max_us", "min_us", "mean_us",
                                "max_mpps", "saturation_mpps", "sender_limited",
                                "forwarder_capacity_mpps", "mode", "frames")}
    out.update({
        "frame_bytes": FRAME_SIZE, "wire_bytes": FRAME_SIZE + 4, "latency_rate_pps": 10_000,
        "realtime": rt, "yield_us": YIELD_US, "quick": quick, "cpus": os.cpu_count(),
        "loadavg_before": round(load, 2),
        "calibration": direct,
        "forwarder_added_median_us": round(main["median_us"] - direct["median_us"], 2),
        "decap_ns_per_frame": parse["decap_ns_88"],
        "decap_ns_per_1514_frame": parse["decap_ns_1514"],
        "modes": results,
        "seed": {"dpdk_us": SEED_DPDK_US, "fpga_us": SEED_FPGA_US, "fpga_mpps": SEED_MPPS},
    })
    return out


def table(result: dict) -> str:
    if "skipped" in result:
        return f"gre_sw skipped: {result['skipped']}"
    lines = [f"{'path':28} {'median':>8} {'p99':>8} {'p99.9':>8} {'max':>9} {'Mpps 0-loss':>12}"
             f" {'Mpps overload':>14} {'fwd ns/frame':>13}"]
    c = result["calibration"]
    lines.append(f"{'veth only (calibration)':28} {c['median_us']:>8.2f} {c['p99_us']:>8.2f} "
                 f"{c['p999_us']:>8.2f} {c['max_us']:>9.2f} {'':>12} {'':>14}")
    for mode, r in result["modes"].items():
        if "error" in r:
            lines.append(f"{'gre_fwd ' + mode:28} unavailable: {r['error']}")
            continue
        lines.append(f"{'gre_fwd ' + r['mode']:28} {r['median_us']:>8.2f} {r['p99_us']:>8.2f} "
                     f"{r['p999_us']:>8.2f} {r['max_us']:>9.2f} "
                     f"{r['max_mpps']:>11.3f}{'*' if r['sender_limited'] else ' '} "
                     f"{r['saturation_mpps']:>14.3f} {r['forwarder_ns_per_frame']:>13.0f}")
    s = result["seed"]
    lines.append(f"(us; {result['frame_bytes']}-byte frames at {result['latency_rate_pps']} "
                 f"frames/s; * = the sender's limit, no loss at the highest rate it could offer;")
    lines.append(f" gre_decap() alone: {result['decap_ns_per_frame']} ns per frame; "
                 f"load average before: {result['loadavg_before']};")
    lines.append(f" seed paper: DPDK {s['dpdk_us']} us, FPGA {s['fpga_us']} us end to end, "
                 f"FPGA {s['fpga_mpps']} Mpps)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="shorter runs (under a minute)")
    p.add_argument("--mode", action="append", choices=["xdp", "packet"],
                   help="forwarder mode(s) to measure (default: both, xdp first)")
    p.add_argument("--json", help="also write the result to this file")
    args = p.parse_args(argv)
    result = run(quick=args.quick, modes=args.mode)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
