"""Building host/ from the tests: one `make` wrapper and the libFuzzer probe, shared by
test_host_gre.py and test_host_fade.py."""
from __future__ import annotations

import fcntl
import shutil
import subprocess

import pytest

from fastpath.paths import ROOT

HOST = ROOT / "host"
BUILD = HOST / "build"


def make(*targets: str, timeout: float = 300, **variables) -> subprocess.CompletedProcess:
    """make -C host TARGETS, serialized across pytest-xdist workers by a file lock."""
    if not shutil.which("make") or not (shutil.which("cc") or shutil.which("gcc")):
        pytest.skip("no make / C compiler")
    BUILD.mkdir(exist_ok=True)
    cmd = ["make", "-C", str(HOST), *targets] + [f"{k}={v}" for k, v in variables.items()]
    with open(BUILD / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def require_libfuzzer() -> None:
    """Skip unless clang can link a libFuzzer target under ASan + UBSan: clang alone is not
    enough, the compiler-rt runtime (Debian: libclang-rt-NN-dev) must be installed too."""
    if not shutil.which("clang"):
        pytest.skip("clang is not installed (apt-get install clang): libFuzzer not run")
    proc = make("libfuzzer-check")
    if proc.returncode != 0:
        pytest.skip("clang cannot link libFuzzer + ASan/UBSan (install libclang-rt-dev for "
                    "this clang): libFuzzer not run; the fallback fuzz driver still runs. "
                    + (proc.stdout + proc.stderr).strip()[-300:])
