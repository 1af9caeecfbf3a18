"""Small helpers shared by the renderers: paths and wrapping for generated text."""
from __future__ import annotations

import textwrap
from pathlib import Path

from ..paths import ROOT, system_of


def hexdigits(rm) -> int:
    """Hex digits of a byte offset in generated tables and RTL (at least 3)."""
    return max(3, (rm.address_width + 3) // 4)


def wrap(text: str, width: int) -> list[str]:
    """Paragraphs of `text` wrapped to `width` columns, a blank line between paragraphs."""
    out = []
    for para in text.strip().split("\n\n") if text.strip() else []:
        out += textwrap.wrap(" ".join(para.split()), width) + [""]
    return out[:-1]


def rel(p: Path | None) -> str:
    """A path as the generated files name it: relative to the repository."""
    if p is None:
        return "<string>"
    try:
        return Path(p).resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return Path(p).name


def system(rm) -> str:
    """The system folder a map's generated files go to (its description's; lib without one)."""
    return system_of(rm.source) if rm.source else "lib"
