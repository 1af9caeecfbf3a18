"""The RTL source tree: one module per file, `<system>/rtl/<module>.v`, every name prefixed `fp_`.

Because every module lives in a file of its own name, the sources a module needs are found by
scanning for instantiations of other known modules. Simulation, lint, synthesis and the FuseSoC
core files all use this one mechanism, so nobody maintains file lists by hand.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from .paths import ROOT, systems

PREFIX = "fp_"  # every module and include file: fastpath cores elaborate beside any other library

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
# `name #(` or `name instance (` at the start of a statement.
_INST = re.compile(r"(?:^|;|\bend\b|\bbegin\b|\))\s*([A-Za-z_]\w*)\s*(?:#\s*\(|[A-Za-z_]\w*\s*(?:\[[^\]]*\]\s*)?\()", re.M)
_MODULE = re.compile(r"^\s*module\s+([A-Za-z_]\w*)", re.M)
_INCLUDE = re.compile(r'^\s*`include\s+"([^"]+)"', re.M)


@lru_cache(maxsize=None)
def modules() -> dict[str, Path]:
    """Every module of every system (`<system>/rtl/*.v`), by name. Enforces one module per file,
    named as the file."""
    found: dict[str, Path] = {}
    for path in sources("*.v"):
        names = _MODULE.findall(_COMMENT.sub("", path.read_text()))
        if names != [path.stem]:
            raise ValueError(f"{path}: must hold exactly one module named {path.stem}, has {names}")
        if path.stem in found:
            raise ValueError(f"module {path.stem} defined twice: {found[path.stem]} and {path}")
        found[path.stem] = path
    return found


def sources(pattern: str) -> list[Path]:
    """Files matching `pattern` in every system's rtl/ folder (and below it)."""
    return sorted(p for s in systems().values() for p in (s / "rtl").rglob(pattern))


def include_dirs() -> list[Path]:
    """Folders holding `include files (*.vh)."""
    return sorted({p.parent for p in sources("*.vh")})


def area(module: str) -> str:
    """The system a module belongs to."""
    return modules()[module].relative_to(ROOT).parts[0]


@lru_cache(maxsize=None)
def children(module: str) -> tuple[str, ...]:
    text = _COMMENT.sub("", modules()[module].read_text())
    known = modules()
    return tuple(sorted({m for m in _INST.findall(text) if m in known and m != module}))


def closure(top: str) -> list[Path]:
    """Source files for `top` and everything it instantiates, leaves first, top last."""
    if top not in modules():
        raise KeyError(f"no module {top!r} in any <system>/rtl/ folder")
    order: list[str] = []
    seen: set[str] = set()

    def visit(m: str) -> None:
        if m in seen:
            return
        seen.add(m)
        for c in children(m):
            visit(c)
        order.append(m)

    visit(top)
    return [modules()[m] for m in order]
