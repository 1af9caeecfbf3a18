"""Every CLI error is one line on stderr saying what is wrong (and what to do), with a non-zero
exit status: never a Python traceback."""
import subprocess
import sys

import pytest

from fastpath.paths import ROOT

CASES = [
    (["sim", "stream", "nosuchtop", "in.pcap", "out.pcap"], "no RTL module 'nosuchtop'"),
    (["sim", "stream", "fp_axis_register", "missing.pcap", "out.pcap"], "missing.pcap"),
    (["sim", "stream", "fp_axis_register", "in.pcap", "out.pcap", "-p", "DATA_WIDTH"], "NAME=VALUE"),
    (["bench", "nosuch"], "no bench nosuch"),
    (["syn", "nosuch_entry"], "no entry or area nosuch_entry"),
    (["lint", "nosuch_module"], "no module nosuch_module"),
    (["gre", "decap", "missing.pcap", "out.pcap"], "missing.pcap"),
]


@pytest.mark.parametrize("argv,message", CASES, ids=[" ".join(c[0][:3]) for c in CASES])
def test_errors_are_one_line(tmp_path, argv, message):
    from fastpath import frames
    frames.write_pcap(tmp_path / "in.pcap", [bytes(60)])
    proc = subprocess.run([sys.executable, "-m", "fastpath.cli", *argv], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    out = (proc.stderr + proc.stdout).strip()
    assert proc.returncode != 0, out
    assert "Traceback" not in out, out
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln]
    assert len(lines) <= 2 and message in out, out   # one line (a usage line may precede argparse's)


def test_help_lists_the_systems_verbs():
    proc = subprocess.run([sys.executable, "-m", "fastpath.cli", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0 and "gre" in proc.stdout and "bench" in proc.stdout
