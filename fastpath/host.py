"""The host C software of every system (`<system>/host/`), built by scripts/host.mk.

`make(*targets)` runs that makefile (serialized across pytest-xdist workers by a file lock);
`BUILD` is where its outputs go. Tests use `make_or_skip` and `require_libfuzzer`, which skip
cleanly where a compiler, make or libFuzzer's runtime is missing.
"""
from __future__ import annotations

import fcntl
import shutil
import subprocess

from .paths import BUILD as _BUILD, ROOT

MAKEFILE = ROOT / "scripts" / "host.mk"
BUILD = _BUILD / "host"


def available() -> bool:
    return bool(shutil.which("make") and (shutil.which("cc") or shutil.which("gcc")))


def make(*targets: str, timeout: float = 300, **variables) -> subprocess.CompletedProcess:
    """make -f scripts/host.mk TARGETS VAR=VALUE..., one at a time across processes."""
    BUILD.mkdir(parents=True, exist_ok=True)
    cmd = ["make", "-s", "-f", str(MAKEFILE), *targets] + [f"{k}={v}" for k, v in variables.items()]
    with open(BUILD / ".make.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def make_or_skip(*targets: str, timeout: float = 300, **variables) -> subprocess.CompletedProcess:
    """`make` for tests: skips the test when there is no make or C compiler."""
    import pytest
    if not available():
        pytest.skip("no make / C compiler")
    return make(*targets, timeout=timeout, **variables)


def require_libfuzzer() -> None:
    """Skip unless clang can link a libFuzzer target under ASan + UBSan: clang alone is not
    enough, the compiler-rt runtime (Debian: libclang-rt-NN-dev) must be installed too."""
    import pytest
    if not shutil.which("clang"):
        pytest.skip("clang is not installed (apt-get install clang): libFuzzer not run")
    proc = make_or_skip("libfuzzer-check")
    if proc.returncode != 0:
        pytest.skip("clang cannot link libFuzzer + ASan/UBSan (install libclang-rt-dev for "
                    "this clang): libFuzzer not run; the fallback fuzz driver still runs. "
                    + (proc.stdout + proc.stderr).strip()[-300:])
