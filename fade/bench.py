"""`fastpath bench fade`: the FADE-10G host side (fade/host/, libfade) against TCP, over veth.

Two network namespaces joined by one veth pair, MTU 9000, created here and deleted whatever
happens:

    board ns  e0 (02:00:00:00:fa:02, 198.18.250.2) <--veth--> h0 (02:00:00:00:fa:01, 198.18.250.1)  host ns

`build/host/fade-emu` (the software front-end board) runs in the board namespace and streams the
test pattern at full speed; `build/host/fade-recv` (libfade; by default in poll mode, reading
in-order packets in place from the RX ring) receives it in the host namespace, verifies every
word and reports goodput and its own CPU time (user + sys from getrusage, all its threads: the
reader, the command thread, and the receive thread in the threaded mode), from START to the end
of the stream
(fade_open() apart, as cpu_setup_s). Loss is injected with nftables in both directions: a netdev ingress
rule `ether type 0xfade numgen random mod 1000 < 10 * LOSS_PCT drop` on each end. The same number
of bytes then goes over TCP on the same veth (`build/host/fade-tcp`, receiver in the host
namespace, CPU time of the receiver from the accepted connection to EOF). At 0 % loss FADE
(windows 2^4, 2^6 - the largest the RTL core takes, N <= 6 - and 2^8; libfade in poll mode,
and at 2^4 and 2^8 with its receive thread: "threaded_runs", and
with one ACK record per frame, the paper's format: "paper_ack_runs"; by default the host packs
up to 8 ACK records into a frame, as the board's START response allows, fade/README.md) and
TCP run interleaved, 3 times each (1 with --quick); the run with the median CPU per GB is
reported, all values kept. With 2 CPUs or more the board side (fade-emu, the TCP sender) is
pinned to one CPU and the receiver (fade-recv, the TCP receiver) to another, for every
transport alike ("pinning"): the board is hardware on a real system and must not compete with
the host for a CPU. Commands per second: user commands sent back to back from a
second thread of fade-recv while the stream runs at full rate (each checked: arg * 2 + 1), and
the emulator's execution counter checked against them (exactly once).

"Host path" rows (veth = "napi", appended after the six above): on veth a frame's receive
processing runs in the sender's context, so the figures above charge the FADE receiver for the
board's receive of every ACK and the TCP sender for TCP's receive path. In a second pair of
namespaces each veth end gets TSO off, GRO on (veth then receives through NAPI) and threaded
NAPI, so each end's receive work runs in its own kernel thread ("napi/<dev>-<id>", found by
name, CPU from /proc/PID/schedstat). FADE (2^4, 2^8) and TCP ("tcp_wire": with TSO off it
crosses the veth in MTU-sized frames, as on a wire) run there at 0 % loss; their
cpu_s_per_gb_host_path = (receiving process + the host end's NAPI kthread) per GB, the board
end's kthread (napi_board_cpu_s) left out for both.

Writes {"runs": [{"transport", "loss_pct", "bytes", "goodput_gbps", "cpu_s_per_gb", "verified",
"receive" ("poll" / "threaded"), "buf_bytes",
"lost_words", "dup_words", "corrupt_words", "veth", ... (veth = "napi": "napi_host_cpu_s",
"napi_host_cpu_s_per_gb", "napi_board_cpu_s", "cpu_s_per_gb_host_path")}], "commands_per_s",
"fade_cpu_vs_tcp", "fade_cpu_vs_tcp_host_path", "threaded_runs", "fade_threaded_cpu_vs_tcp",
"pinning", ...} or {"skipped": reason}.
`python -m fastpath.fade.bench [--quick]` runs it alone.
"""
from __future__ import annotations

import argparse
import ctypes
import fcntl
import glob
import json
import os
import random
import select
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from fastpath.paths import ROOT
from fastpath import host
from fastpath.netns import in_netns
from fastpath.gre.bench_sw import unavailable as _ns_unavailable
from fastpath.netns import _run

BUILD = host.BUILD
EMU = BUILD / "fade-emu"
RECV = BUILD / "fade-recv"
TCP = BUILD / "fade-tcp"

HOST_MAC, BOARD_MAC = "02:00:00:00:fa:01", "02:00:00:00:fa:02"
HOST_IP, BOARD_IP = "198.18.250.1", "198.18.250.2"
TCP_PORT = 5201

PAPER = {"goodput_gbps": 9.815, "cpu_pct": 2.15, "commands_per_s": 40000}


def unavailable() -> str | None:
    """Why this machine cannot run the veth tests / bench, or None."""
    reason = _ns_unavailable()
    if reason:
        return reason
    if not Path("/usr/sbin/nft").exists() and not _which("nft"):
        return "no `nft` (nftables) for loss injection"
    return None


def _which(name: str) -> str | None:
    import shutil
    return shutil.which(name)


def build() -> None:
    _run(["make", "-s", "-f", str(host.MAKEFILE), "all"], timeout=300)


_SIOCETHTOOL, _ETHTOOL_STSO, _ETHTOOL_SGRO = 0x8946, 0x1F, 0x2C


def _ethtool(ns: str, dev: str, cmd: int, value: int) -> None:
    """An ethtool "set" (struct ethtool_value) on dev in namespace ns, without ethtool(8)."""
    with in_netns(ns):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ev = ctypes.create_string_buffer(struct.pack("II", cmd, value), 8)
        ifr = struct.pack("16sP", dev.encode(), ctypes.addressof(ev)).ljust(40, b"\0")
        fcntl.ioctl(s.fileno(), _SIOCETHTOOL, ifr)
    finally:
        s.close()


def _napi_kthreads() -> dict:
    """pid -> name of the threaded-NAPI kernel threads ("napi/<dev>-<id>")."""
    out = {}
    for path in glob.glob("/proc/[0-9]*/comm"):
        try:
            comm = Path(path).read_text().strip()
        except OSError:
            continue
        if comm.startswith("napi/"):
            out[path.split("/")[2]] = comm
    return out


def _task_cpu_s(pid: str) -> float:
    """CPU time of a task so far (schedstat: nanoseconds on a CPU), 0 if it is gone."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


class Topology:
    """Two namespaces (board "e", host "h") joined by a veth pair with MTU 9000."""

    def __init__(self, tag: str = "fpf"):
        unique = f"{tag}{os.getpid() % 100000}x{random.randrange(16**4):04x}"
        self.ns = {"e": unique + "e", "h": unique + "h"}
        self.created: list[str] = []

    def __enter__(self) -> "Topology":
        try:
            for role in "eh":
                _run(["ip", "netns", "add", self.ns[role]])
                self.created.append(self.ns[role])
            _run(["ip", "-n", self.ns["h"], "link", "add", "h0", "mtu", "9000", "type", "veth",
                  "peer", "name", "e0", "mtu", "9000", "netns", self.ns["e"]])
            for role, dev, mac, ip in (("h", "h0", HOST_MAC, HOST_IP),
                                       ("e", "e0", BOARD_MAC, BOARD_IP)):
                _run(["ip", "netns", "exec", self.ns[role], "sysctl", "-qw",
                      "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"],
                     check=False)
                _run(["ip", "-n", self.ns[role], "link", "set", dev, "address", mac])
                _run(["ip", "-n", self.ns[role], "addr", "add", f"{ip}/24", "dev", dev])
                _run(["ip", "-n", self.ns[role], "link", "set", dev, "up"])
                _run(["ip", "-n", self.ns[role], "link", "set", "lo", "up"])
        except BaseException:
            self.close()
            raise
        return self

    def napi_mode(self) -> None:
        """Each end's receive processing in its own kernel thread ("host path" accounting): TSO
        off (frames cross the veth at most MTU-sized, as on a wire), GRO on (veth then receives
        through NAPI instead of in the sender's context) and threaded NAPI; the NAPI kthreads this
        creates are remembered per end (self.napi_threads["h"] / ["e"])."""
        self.napi_threads = {}
        for role, dev in (("h", "h0"), ("e", "e0")):
            before = _napi_kthreads()
            _ethtool(self.ns[role], dev, _ETHTOOL_STSO, 0)
            _ethtool(self.ns[role], dev, _ETHTOOL_SGRO, 1)
            _run(self.exec(role) + ["sh", "-c", f"echo 1 > /sys/class/net/{dev}/threaded"])
            new = [pid for pid, comm in _napi_kthreads().items()
                   if pid not in before and comm.startswith(f"napi/{dev}-")]
            if not new:
                raise RuntimeError(f"no NAPI kthread appeared for {dev}")
            self.napi_threads[role] = new

    def napi_cpu(self) -> dict:
        """CPU seconds used so far by each end's NAPI kthreads (napi_mode())."""
        return {role: sum(_task_cpu_s(pid) for pid in pids)
                for role, pids in getattr(self, "napi_threads", {}).items()}

    def set_loss(self, pct: float) -> None:
        """Drop pct % of FADE frames arriving at each end (both directions), or none."""
        per_mille = int(round(pct * 10))
        for role, dev in (("h", "h0"), ("e", "e0")):
            _run(["ip", "netns", "exec", self.ns[role], "nft", "delete", "table", "netdev",
                  "fadeloss"], check=False)
            if per_mille:
                rules = (f'table netdev fadeloss {{\n chain in {{\n'
                         f'  type filter hook ingress device "{dev}" priority 0;\n'
                         f'  ether type 0xfade numgen random mod 1000 < {per_mille} counter drop\n'
                         f' }}\n}}\n')
                proc = subprocess.run(["ip", "netns", "exec", self.ns[role], "nft", "-f", "-"],
                                      input=rules, capture_output=True, text=True, timeout=20)
                if proc.returncode:
                    raise RuntimeError(f"nft: {proc.stderr.strip()}")

    def dropped(self) -> dict:
        """Frames the loss rules dropped so far, per end."""
        out = {}
        for role in "he":
            proc = _run(["ip", "netns", "exec", self.ns[role], "nft", "list", "table", "netdev",
                         "fadeloss"], check=False)
            words = proc.stdout.split()
            out[role] = int(words[words.index("packets") + 1]) if "packets" in words else 0
        return out

    def close(self) -> None:
        for name in reversed(self.created):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)
        self.created = []

    def __exit__(self, *exc) -> None:
        self.close()

    def exec(self, role: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns[role]]


def cpu_pair() -> tuple[int, int] | None:
    """(board CPU, host CPU): the first two CPUs this process may run on; None with fewer.
    The board is hardware on a real system and must not compete with the host for a CPU, so
    the bench runs the software board (fade-emu, the TCP sender) on one and the receiver
    (fade-recv, the TCP receiver) on the other, for every transport alike."""
    cpus = sorted(os.sched_getaffinity(0))
    return (cpus[0], cpus[1]) if len(cpus) >= 2 else None


def _on_cpu(cpu: int | None):
    """preexec_fn pinning the child (and what it execs) to one CPU, or None."""
    if cpu is None:
        return None
    return lambda: os.sched_setaffinity(0, {cpu})


class Emulator:
    """fade-emu in the board namespace; counters() snapshots (SIGUSR1), stop() the final ones.
    cpu: pin it to that CPU."""

    def __init__(self, topo: Topology, extra: list[str] | None = None, cpu: int | None = None):
        cmd = topo.exec("e") + [str(EMU), "-i", "e0"] + (extra or [])
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=_on_cpu(cpu))
        line = self._line(10.0)
        if not line.startswith("ready"):
            self.proc.kill()
            raise RuntimeError(f"fade-emu did not start: {line} {self.proc.stderr.read()}")

    def _line(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.1)
            if r:
                return self.proc.stdout.readline()
            if self.proc.poll() is not None:
                break
        return ""

    def counters(self) -> dict:
        self.proc.send_signal(signal.SIGUSR1)
        line = self._line(5.0)
        return json.loads(line)

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        out, err = self.proc.communicate(timeout=10)
        for line in reversed(out.splitlines()):
            if line.startswith("{"):
                return json.loads(line)
        raise RuntimeError(f"fade-emu gave no counters: {err.strip()}")

    def __enter__(self) -> "Emulator":
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate(timeout=5)


def receive(topo: Topology, nbytes: int, *, commands: bool = False, extra: list[str] | None = None,
            timeout: float = 120, cpu: int | None = None) -> dict:
    """One fade-recv run (verifying) in the host namespace (pinned to `cpu`); its JSON line
    (exit code in "rc"). fade-recv runs libfade in poll mode unless extra has --threaded."""
    cmd = topo.exec("h") + [str(RECV), "-i", "h0", "-m", BOARD_MAC, "--verify",
                            "--bytes", str(nbytes)]
    if commands:
        cmd.append("--commands")
    proc = subprocess.run(cmd + (extra or []), capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_on_cpu(cpu))
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise RuntimeError(f"fade-recv failed ({proc.returncode}): {proc.stderr.strip()}")
    result = json.loads(lines[-1])
    result["rc"] = proc.returncode
    result["stderr"] = proc.stderr.strip()
    return result


def fade_run(topo: Topology, loss_pct: float, nbytes: int, commands: bool = False,
             window_log2: int = 4, pin: tuple[int, int] | None = None,
             threaded: bool = False, ack_records: int | None = None) -> dict:
    """pin: (board CPU, host CPU); threaded: libfade's receive thread instead of poll mode;
    ack_records: fade-recv --ack-records (None: as many as the board allows, 8)."""
    topo.set_loss(loss_pct)
    win = ["--window-log2", str(window_log2)]
    with Emulator(topo, win, cpu=pin[0] if pin else None) as emu:
        napi0 = topo.napi_cpu()
        r = receive(topo, nbytes, commands=commands, cpu=pin[1] if pin else None,
                    extra=win + (["--threaded"] if threaded else []) +
                    (["--ack-records", str(ack_records)] if ack_records else []))
        napi1 = topo.napi_cpu()
        e = emu.stop()
    dropped = topo.dropped()
    topo.set_loss(0)
    cpu = r["cpu_user_s"] + r["cpu_sys_s"]
    return {"transport": "fade", "loss_pct": loss_pct, "window_log2": window_log2,
            "receive": "threaded" if threaded else "poll", "buf_bytes": r.get("buf_bytes"),
            "ack_records_max": r["counters"]["ack_records"],
            "ack_records_per_frame": round(r["counters"]["acks_sent"] / r["counters"]["ack_frames"], 2)
            if r["counters"]["ack_frames"] else None,
            **_host_path(cpu, r["bytes"], napi0, napi1),
            "cpu_s": round(cpu, 4), "cpu_setup_s": r["cpu_setup_s"],
            "ctx_switches_per_mb": round((r["vol_ctxsw"] + r["invol_ctxsw"]) / (r["bytes"] / 1e6), 2)
            if r["bytes"] else None,
            "bytes": r["bytes"],
            "goodput_gbps": round(r["goodput_gbps"], 3),
            "cpu_s_per_gb": round(cpu / (r["bytes"] / 1e9), 4) if r["bytes"] else None,
            "cpu_pct": round(100 * cpu / r["seconds"], 1) if r["seconds"] else None,
            "verified": bool(r["verified"]) and r["eos"] == 1,
            "lost_words": r["lost_words"], "dup_words": r["dup_words"],
            "corrupt_words": r["corrupt_words"], "seconds": r["seconds"],
            "commands": r["commands"], "commands_per_s": r["commands_per_s"],
            "commands_failed": r["commands_failed"] + r["commands_wrong"],
            "commands_executed_by_board": e["cmd_exec"],
            "retransmissions": e["retx"], "retx_early": e["retx_early"],
            "retx_timeout": e["retx_timeout"], "final_delay_cycles": e["delay"],
            "frames_dropped_by_rules": dropped, "host_counters": r["counters"]}


def tcp_run(topo: Topology, nbytes: int, pin: tuple[int, int] | None = None) -> dict:
    """pin: (sender CPU, receiver CPU), as the board and fade-recv in fade_run()."""
    napi0 = topo.napi_cpu()
    recv = subprocess.Popen(topo.exec("h") + [str(TCP), "--listen", str(TCP_PORT), "--verify"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_on_cpu(pin[1] if pin else None))
    try:
        ready = recv.stdout.readline()
        if not ready.startswith("ready"):
            raise RuntimeError(f"fade-tcp did not listen: {recv.stderr.read()}")
        send = subprocess.run(topo.exec("e") + [str(TCP), "--connect", f"{HOST_IP}:{TCP_PORT}",
                                                "--bytes", str(nbytes)],
                              capture_output=True, text=True, timeout=120,
                              preexec_fn=_on_cpu(pin[0] if pin else None))
        if send.returncode:
            raise RuntimeError(f"fade-tcp sender: exit {send.returncode}: {send.stderr.strip()}")
        out, err = recv.communicate(timeout=60)
    finally:
        if recv.poll() is None:
            recv.kill()
    r = json.loads(out.strip().splitlines()[-1])
    napi1 = topo.napi_cpu()
    cpu = r["cpu_user_s"] + r["cpu_sys_s"]
    return {"transport": "tcp_wire" if napi1 else "tcp", "loss_pct": 0, "bytes": r["bytes"],
            **_host_path(cpu, r["bytes"], napi0, napi1), "cpu_s": round(cpu, 4),
            "ctx_switches_per_mb": round((r["vol_ctxsw"] + r["invol_ctxsw"]) / (r["bytes"] / 1e6), 2)
            if r["bytes"] else None,
            "goodput_gbps": round(r["goodput_gbps"], 3),
            "cpu_s_per_gb": round(cpu / (r["bytes"] / 1e9), 4) if r["bytes"] else None,
            "cpu_pct": round(100 * cpu / r["seconds"], 1) if r["seconds"] else None,
            "verified": bool(r["verified"]), "lost_words": r["lost_words"],
            "dup_words": r["dup_words"], "corrupt_words": r["corrupt_words"],
            "seconds": r["seconds"]}


def _host_path(cpu: float, nbytes: int, napi0: dict, napi1: dict) -> dict:
    """With napi_mode(): the receive processing of each end ran in that end's NAPI kthread
    (measured over the run), so "host path" CPU = the receiving process + the host end's
    kthread; the board end's (the emulator's receive of ACKs / TCP's sender side) is left out."""
    if not napi1:
        return {"veth": "default"}
    host = napi1.get("h", 0) - napi0.get("h", 0)
    board = napi1.get("e", 0) - napi0.get("e", 0)
    gb = nbytes / 1e9 if nbytes else None
    return {"veth": "napi", "napi_host_cpu_s": round(host, 4), "napi_board_cpu_s": round(board, 4),
            "napi_host_cpu_s_per_gb": round(host / gb, 4) if gb else None,
            "cpu_s_per_gb_host_path": round((cpu + host) / gb, 4) if gb else None}


def _median_run(runs: list[dict], key: str = "cpu_s_per_gb") -> dict:
    """The run with the median CPU per GB (the machine is shared: single runs scatter)."""
    ordered = sorted(runs, key=lambda r: r[key])
    best = dict(ordered[len(ordered) // 2])
    best["reps"] = len(runs)
    best["cpu_s_per_gb_all"] = [r["cpu_s_per_gb"] for r in runs]
    if key != "cpu_s_per_gb":
        best[f"{key}_all"] = [r[key] for r in runs]
    best["goodput_gbps_all"] = [r["goodput_gbps"] for r in runs]
    best["verified"] = all(r["verified"] for r in runs)
    return best


def run(quick: bool = False) -> dict:
    reason = unavailable()
    if reason:
        return {"skipped": reason}
    build()
    nbytes = 256 << 20 if quick else 1 << 30
    reps = 1 if quick else 3
    load = os.getloadavg()[0]
    pin = cpu_pair()
    with Topology() as topo:
        # 0 % loss: FADE at the core's default window (2^4), at 2^6 (the RTL's largest) and at
        # 2^8 (libfade in poll mode; at 2^4 and 2^8 also with its receive thread: "threaded", and
        # with one ACK record per frame: "paper_ack"), and TCP, interleaved, each `reps` times
        # (the median run is reported, all values kept)
        same = {"fade4": [], "fade4t": [], "tcp": [], "fade8": [], "fade8t": [], "fade4p": [],
                "fade8p": [], "fade6": []}
        for _ in range(reps):
            same["fade4"].append(fade_run(topo, 0, nbytes, pin=pin))
            same["fade6"].append(fade_run(topo, 0, nbytes, window_log2=6, pin=pin))
            same["fade4p"].append(fade_run(topo, 0, nbytes, pin=pin, ack_records=1))
            same["fade8p"].append(fade_run(topo, 0, nbytes, window_log2=8, pin=pin, ack_records=1))
            same["fade4t"].append(fade_run(topo, 0, nbytes, pin=pin, threaded=True))
            same["tcp"].append(tcp_run(topo, nbytes, pin=pin))
            same["fade8"].append(fade_run(topo, 0, nbytes, window_log2=8, pin=pin))
            same["fade8t"].append(fade_run(topo, 0, nbytes, window_log2=8, pin=pin,
                                           threaded=True))
        runs = [_median_run(same["fade4"]),
                fade_run(topo, 5, nbytes // 4, pin=pin),
                _median_run(same["tcp"]),
                _median_run(same["fade8"]),
                fade_run(topo, 5, nbytes // 4, window_log2=8, pin=pin),
                _median_run(same["fade6"])]
        threaded = [_median_run(same["fade4t"]), _median_run(same["fade8t"])]
        paper_acks = [_median_run(same["fade4p"]), _median_run(same["fade8p"])]
        cmd = fade_run(topo, 0, nbytes // 2, commands=True, pin=pin)
        cmd8 = fade_run(topo, 0, nbytes // 2, commands=True, window_log2=8, pin=pin)
    # The same at 0 % loss with each end's receive work in its own NAPI kthread (TSO off, GRO
    # on, threaded NAPI; TCP therefore crosses the veth in MTU-sized frames: "tcp_wire"), so
    # the host's receive path can be counted for both transports and the board's is not:
    # cpu_s_per_gb_host_path = (receiving process + the host end's NAPI kthread) per GB.
    host_path, host_path_skipped = [], None
    with Topology() as topo:
        try:
            topo.napi_mode()
        except (RuntimeError, OSError) as e:  # no threaded NAPI / GRO on veth in this kernel
            host_path_skipped = str(e)
        if not host_path_skipped:
            napi = {"fade4": [], "tcp": [], "fade8": []}
            for _ in range(reps):
                napi["fade4"].append(fade_run(topo, 0, nbytes, pin=pin))
                napi["tcp"].append(tcp_run(topo, nbytes, pin=pin))
                napi["fade8"].append(fade_run(topo, 0, nbytes, window_log2=8, pin=pin))
            host_path = [_median_run(napi[k], "cpu_s_per_gb_host_path")
                         for k in ("fade4", "tcp", "fade8")]
    runs += host_path
    tcp = runs[2]["cpu_s_per_gb"]
    tcp_hp = host_path[1]["cpu_s_per_gb_host_path"] if host_path else None
    return {"runs": runs, "commands_per_s": cmd["commands_per_s"],
            "commands": {"sent": cmd["commands"], "failed": cmd["commands_failed"],
                         "executed_by_board": cmd["commands_executed_by_board"],
                         "goodput_gbps_meanwhile": cmd["goodput_gbps"]},
            "commands_window_2_8": {"per_s": cmd8["commands_per_s"], "sent": cmd8["commands"],
                                    "failed": cmd8["commands_failed"],
                                    "executed_by_board": cmd8["commands_executed_by_board"],
                                    "goodput_gbps_meanwhile": cmd8["goodput_gbps"]},
            "fade_cpu_vs_tcp": {f"window_2_{r['window_log2']}": round(r["cpu_s_per_gb"] / tcp, 3)
                                for r in (runs[0], runs[5], runs[3])} if tcp else None,
            "threaded_runs": threaded,
            "paper_ack_runs": paper_acks,
            "fade_paper_ack_cpu_vs_tcp": {
                f"window_2_{r['window_log2']}": round(r["cpu_s_per_gb"] / tcp, 3)
                for r in paper_acks} if tcp else None,
            "fade_threaded_cpu_vs_tcp": {
                f"window_2_{r['window_log2']}": round(r["cpu_s_per_gb"] / tcp, 3)
                for r in threaded} if tcp else None,
            "pinning": {"board_cpu": pin[0], "host_cpu": pin[1]} if pin else
                       f"not pinned: fewer than 2 CPUs ({len(os.sched_getaffinity(0))})",
            "fade_cpu_vs_tcp_host_path": {
                f"window_2_{r['window_log2']}": round(r["cpu_s_per_gb_host_path"] / tcp_hp, 3)
                for r in (host_path[0], host_path[2])} if tcp_hp else None,
            "cpu_counted": "the receiving process's user + system time (getrusage RUSAGE_SELF, all "
                           "its threads): FADE from START to the end of the stream (fade_open() "
                           "apart: cpu_setup_s), TCP from the accepted connection to EOF",
            "host_path_skipped": host_path_skipped,
            "cpu_counted_host_path": "rows with veth = napi: each end's receive processing runs in "
                                     "its own threaded-NAPI kthread (TSO off, GRO on); "
                                     "cpu_s_per_gb_host_path = (the receiving process + the host "
                                     "end's NAPI kthread, schedstat) per GB; the board end's "
                                     "kthread (napi_board_cpu_s) is not counted",
            "quick": quick, "cpus": os.cpu_count(), "loadavg_before": round(load, 2),
            "paper": PAPER}


def table(result: dict) -> str:
    if "skipped" in result:
        return f"fade skipped: {result['skipped']}"
    lines = [f"{'transport':10} {'veth':>7} {'win':>4} {'loss':>5} {'MB':>7} {'Gb/s':>7} "
             f"{'CPU s/GB':>9} {'+NAPI(h)':>9} {'host path':>9} {'CPU %':>6} "
             f"{'verified':>8} {'lost':>5} {'dup':>5} {'bad':>5} {'retx':>6}"]
    for r in result["runs"]:
        win = f"2^{r['window_log2']}" if "window_log2" in r else ""
        napi = r.get("napi_host_cpu_s_per_gb")
        hp = r.get("cpu_s_per_gb_host_path")
        lines.append(f"{r['transport']:10} {r.get('veth', 'default'):>7} {win:>4} {r['loss_pct']:>4}% "
                     f"{r['bytes'] / 1e6:>7.0f} "
                     f"{r['goodput_gbps']:>7.3f} {r['cpu_s_per_gb']:>9.3f} "
                     f"{'' if napi is None else f'{napi:.3f}':>9} {'' if hp is None else f'{hp:.3f}':>9} "
                     f"{r['cpu_pct']:>6.1f} "
                     f"{str(r['verified']):>8} {r['lost_words']:>5} {r['dup_words']:>5} "
                     f"{r['corrupt_words']:>5} {r.get('retransmissions', ''):>6}")
    for key, win in (("commands", "2^4"), ("commands_window_2_8", "2^8")):
        c = result[key]
        rate = result["commands_per_s"] if key == "commands" else c["per_s"]
        lines.append(f"commands while streaming (window {win}): {rate:.0f}/s ({c['sent']} sent, "
                     f"{c['failed']} failed, {c['executed_by_board']} executed by the board; "
                     f"stream meanwhile {c['goodput_gbps_meanwhile']:.2f} Gb/s)")
    if result.get("fade_cpu_vs_tcp"):
        lines.append("FADE CPU per GB / TCP's: " + ", ".join(
            f"window {k[7:].replace('_', '^')}: {v:.2f}" for k, v in result["fade_cpu_vs_tcp"].items()))
    if result.get("fade_threaded_cpu_vs_tcp"):
        lines.append("with libfade's receive thread (--threaded) instead of poll mode: " + ", ".join(
            f"window 2^{r['window_log2']}: {r['cpu_s_per_gb']:.3f} s/GB ({r['goodput_gbps']:.2f} Gb/s)"
            for r in result["threaded_runs"]) + "; / TCP's: " + ", ".join(
            f"{v:.2f}" for v in result["fade_threaded_cpu_vs_tcp"].values()))
    if result.get("fade_paper_ack_cpu_vs_tcp"):
        lines.append("with one ACK per frame (--ack-records 1, the paper's format): " + ", ".join(
            f"window 2^{r['window_log2']}: {r['cpu_s_per_gb']:.3f} s/GB ({r['goodput_gbps']:.2f} Gb/s)"
            for r in result["paper_ack_runs"]) + "; / TCP's: " + ", ".join(
            f"{v:.2f}" for v in result["fade_paper_ack_cpu_vs_tcp"].values()))
        lines.append("ACK records per ACK frame (default runs): " + ", ".join(
            f"window 2^{r['window_log2']}: {r['ack_records_per_frame']}"
            for r in result["runs"] if r["transport"] == "fade" and r["loss_pct"] == 0
            and r.get("veth", "default") == "default"))
    if result.get("host_path_skipped"):
        lines.append(f"host path rows skipped: {result['host_path_skipped']}")
    if result.get("fade_cpu_vs_tcp_host_path"):
        lines.append("host path (process + host NAPI kthread), FADE / tcp_wire: " + ", ".join(
            f"window {k[7:].replace('_', '^')}: {v:.2f}"
            for k, v in result["fade_cpu_vs_tcp_host_path"].items()))
    p = result["paper"]
    pin = result.get("pinning")
    lines.append("board (fade-emu, TCP sender) on CPU {board_cpu}, receiver on CPU {host_cpu}".format(**pin)
                 if isinstance(pin, dict) else str(pin))
    lines.append(f"(veth in namespaces, {result['cpus']} CPUs shared, load average "
                 f"{result['loadavg_before']}; paper at 10G: {p['goodput_gbps']} Gb/s, "
                 f"{p['cpu_pct']} % CPU, ~{p['commands_per_s']} commands/s)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json", help="also write the result to this file")
    args = p.parse_args(argv)
    result = run(quick=args.quick)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
