"""The generated files of every description, and `fastpath regs` (write them, or check them)."""
from __future__ import annotations

from pathlib import Path

from ..paths import ROOT
from ._text import rel, system
from .c import render_c
from .markdown import render_markdown
from .model import RegMap, descriptions, load_file
from .verilog import render_verilog


def outputs(rm: RegMap) -> dict:
    """Generated file path -> text, for a description under rtl/."""
    return {
        rm.source.parent / f"{rm.module}.v": render_verilog(rm),
        ROOT / system(rm) / "host" / "include" / "fastpath" / "regs" / f"{rm.name}.h": render_c(rm),
        ROOT / system(rm) / "docs" / "regs" / f"{rm.name}.md": render_markdown(rm),
    }


def stale() -> list[Path]:
    """Generated files that differ from a fresh render (or are missing)."""
    out = []
    for src in descriptions():
        for path, text in outputs(load_file(src)).items():
            if not path.exists() or path.read_text() != text:
                out.append(path)
    return out


def write_all() -> list[Path]:
    """Render every description under rtl/; rewrite only files whose text changed. Returns all
    generated paths."""
    out = []
    for src in descriptions():
        for path, text in outputs(load_file(src)).items():
            if not path.exists() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            out.append(path)
    return out


def run(check: bool = False) -> int:
    """`fastpath regs [--check]`: regenerate every register map (or, with check, list stale ones)."""
    if check:
        bad = stale()
        for p in bad:
            print(f"stale: {rel(p)} (run `fastpath regs`)")
        return 1 if bad else 0
    for p in write_all():
        print(rel(p))
    return 0
