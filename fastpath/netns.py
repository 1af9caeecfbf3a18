"""Network namespaces, veth pairs and loss injection for tests and benchmarks that meet Linux.

    with Netns(["a", "b"], tag="fpx") as n:          # namespaces fpx-a, fpx-b; deleted on exit
        n.veth("a", "a0", "b", "b0", mtu=9000)       # a veth pair, both ends up
        n.loss("b", "b0", pct=5)                      # drop 5 % of b0's input and output (nftables)
        subprocess.run(n.exec("b") + ["prog", ...])   # run a program inside b
        with in_netns(n.ns["a"]):                     # open sockets inside a from this thread
            s = socket.socket(socket.AF_PACKET, ...)

`unavailable()` says why this machine cannot (no root, no `ip`, no netns); tests skip with it.
The kernel here has no netem, so loss is an nftables `numgen random` rule (iptables `statistic`
would do the same; nftables also sees non-IP Ethertypes such as FADE's 0xFADE on the netdev
ingress/egress hooks).
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import subprocess
import uuid

CLONE_NEWNET = 0x40000000


def _run(cmd: list[str], timeout: float = 20, check: bool = True, input: str | None = None):
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, input=input)
    if check and proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc


def unavailable(need_nft: bool = False) -> str | None:
    """Why namespaces with veth pairs (and nftables, if asked) cannot be used here, or None."""
    if os.geteuid() != 0:
        return "needs root (network namespaces)"
    if not shutil.which("ip"):
        return "no `ip` command (iproute2)"
    if need_nft and not shutil.which("nft"):
        return "no `nft` command (nftables)"
    name = f"fpchk-{uuid.uuid4().hex[:6]}"
    try:
        proc = _run(["ip", "netns", "add", name], check=False)
        if proc.returncode:
            return f"`ip netns add` fails: {proc.stderr.strip()}"
        proc = _run(["ip", "-n", name, "link", "add", "p0", "type", "veth", "peer", "name", "p1"],
                    check=False)
        if proc.returncode:
            return f"cannot create veth pairs: {proc.stderr.strip()}"
        if need_nft:
            proc = _run(["ip", "netns", "exec", name, "nft", "-f", "-"], check=False,
                        input=_loss_rules("p0", 1))
            if proc.returncode:
                return f"nftables netdev rules fail: {proc.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)
    return None


@contextlib.contextmanager
def in_netns(name: str):
    """Run the body with this thread in network namespace `name` (sockets created inside stay
    there). The thread returns to its own namespace afterwards, even on error."""
    libc = ctypes.CDLL(None, use_errno=True)
    here = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    there = os.open(f"/var/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(there, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {name}")
        try:
            yield
        finally:
            if libc.setns(here, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns back")
    finally:
        os.close(here)
        os.close(there)


def _loss_rules(ifname: str, pct: float, direction: str = "both") -> str:
    """nftables rules dropping pct % of the frames of ifname at random (netdev family: every
    Ethertype, before and after the stack)."""
    thresh = int(round(pct * 100))          # numgen random mod 10000 < pct * 100
    hooks = {"in": ["ingress"], "out": ["egress"], "both": ["ingress", "egress"]}[direction]
    lines = [f"table netdev fploss_{ifname} {{"]
    for h in hooks:
        lines += [f"  chain {h} {{",
                  f"    type filter hook {h} device \"{ifname}\" priority 0; policy accept;",
                  f"    numgen random mod 10000 < {thresh} counter drop",
                  "  }"]
    lines.append("}")
    return "\n".join(lines) + "\n"


class Netns:
    """Namespaces named `<tag>-<role>`, veth pairs between them; everything deleted on exit."""

    def __init__(self, roles: list[str], tag: str = "fp"):
        suffix = uuid.uuid4().hex[:4]
        self.ns = {r: f"{tag}{suffix}-{r}" for r in roles}

    def __enter__(self) -> "Netns":
        try:
            for name in self.ns.values():
                _run(["ip", "netns", "add", name])
                _run(["ip", "-n", name, "link", "set", "lo", "up"])
        except Exception:
            self.close()
            raise
        return self

    def veth(self, a: str, ia: str, b: str, ib: str, mtu: int = 1500) -> None:
        _run(["ip", "-n", self.ns[a], "link", "add", ia, "mtu", str(mtu), "type", "veth",
              "peer", "name", ib, "netns", self.ns[b], "mtu", str(mtu)])
        for role, ifname in ((a, ia), (b, ib)):
            # no IPv6 autoconfiguration chatter on links that carry raw frames
            _run(["ip", "netns", "exec", self.ns[role], "sysctl", "-qw",
                  f"net.ipv6.conf.{ifname}.disable_ipv6=1"], check=False)
            _run(["ip", "-n", self.ns[role], "link", "set", ifname, "up"])

    def addr(self, role: str, ifname: str, cidr: str) -> None:
        _run(["ip", "-n", self.ns[role], "addr", "add", cidr, "dev", ifname])

    def loss(self, role: str, ifname: str, pct: float, direction: str = "both") -> None:
        """Drop pct % of ifname's frames at random in `direction` ("in", "out" or "both")."""
        _run(["ip", "netns", "exec", self.ns[role], "nft", "-f", "-"],
             input=_loss_rules(ifname, pct, direction))

    def exec(self, role: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns[role]]

    def close(self) -> None:
        for name in self.ns.values():
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)

    def __exit__(self, *exc) -> None:
        self.close()
