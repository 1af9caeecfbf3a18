"""The docs name only what exists: every relative link, repository path, `fp_*` module, Python
module, `fastpath` CLI verb, bench, synthesis entry and `make` target a Markdown file names in
code spans is checked against the tree. Docs are datasheets of what is built today."""
from __future__ import annotations

import importlib.util
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from fastpath import bench, cli, rtl, syn
from fastpath.paths import ROOT, systems

TOPS = set(systems()) | {"fastpath", "tests", "docs", "scripts", ".ci"}


def markdown_files() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    found = {ROOT / f for f in tracked} | set(ROOT.glob("*.md")) | set(ROOT.glob("docs/**/*.md")) | \
        {p for s in systems().values() for p in s.rglob("*.md")}
    return sorted(p for p in found if p.exists() and ".venv" not in p.parts and "build" not in p.parts)


@lru_cache(maxsize=None)
def _tracked_stems() -> set[str]:
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    return {Path(f).name.split(".")[0] for f in files}


@lru_cache(maxsize=None)
def _verbs() -> dict:
    return dict(cli.parser()._subparsers._group_actions[0].choices)


@lru_cache(maxsize=None)
def _make_targets() -> set[str]:
    return set(re.findall(r"^([\w-]+)\s*:", (ROOT / "Makefile").read_text(), re.M))


_CODE_BLOCK = re.compile(r"^```.*?^```", re.M | re.S)
_SPAN = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_PATH = re.compile(r"^\.?/?([\w.-]+)(/[\w.-]+)+/?$")
_PLACEHOLDER = re.compile(r"[<>*{}$[]|\.\.\.|\bNAME\b|\bN\b|\bX\b|demo")  # demo: the example system of docs/adding-a-core.md


def problems(md: Path, text: str | None = None) -> list[str]:
    """What `md` names that does not exist, one line each."""
    text = md.read_text() if text is None else text
    out: list[str] = []
    where = md.relative_to(ROOT) if md.is_relative_to(ROOT) else md
    for m in _LINK.finditer(_CODE_BLOCK.sub("", text)):
        target = m.group(1).split("#")[0]
        if not target or re.match(r"^[a-z]+:", target):
            continue
        if not (md.parent / target).exists():
            out.append(f"{where}: link to {target}: no such file")
    for m in _SPAN.finditer(_CODE_BLOCK.sub("", text)):
        span = m.group(1).strip()
        out += [f"{where}: `{span}`: {p}" for p in _check_span(span)]
    return out


def _check_span(span: str) -> list[str]:
    if _PLACEHOLDER.search(span):
        return []
    words = span.split()
    if not words:
        return []
    if words[0] == "fastpath" and len(words) > 1 and not words[1].startswith("-"):
        return _check_cli(words[1:])
    if words[0] == "make" and len(words) > 1:
        return [f"no make target {w}" for w in words[1:2] if "=" not in w and not w.startswith("-")
                and w not in _make_targets()]
    if len(words) != 1:
        return []
    w = words[0].rstrip(".,;:")
    if w.startswith("fastpath.") and re.fullmatch(r"[\w.]+", w):
        return _check_python(w)
    m = _PATH.match(w)
    if m and m.group(1) in TOPS and not w.startswith("build/"):
        return [] if (ROOT / w.lstrip("./")).exists() else ["no such path in the tree"]
    name = re.fullmatch(r"(fp_\w+)(\.v|\.vh)?(\(\))?", w)
    if name and name.group(1) not in rtl.modules() and name.group(1) not in _tracked_stems():
        return ["no such module or file"]
    return []


def _check_python(dotted: str) -> list[str]:
    parts = dotted.split(".")
    for n in range(len(parts), 1, -1):
        try:
            if importlib.util.find_spec(".".join(parts[:n])) is not None:
                return []
        except (ImportError, ValueError):
            continue
    return ["no such Python module"]


def _check_cli(words: list[str]) -> list[str]:
    verb = words[0]
    if verb not in _verbs():
        return [f"no CLI verb {verb}"]
    # only concrete names: no options, placeholders (ENTRY, [..]), paths or files
    args = [w.replace("\\|", "|") for w in words[1:]]
    args = [w for w in args if re.fullmatch(r"[a-z][\w|-]*", w)]
    if verb == "bench":
        return [f"no bench {a}" for a in args if a not in bench.available() and a != "all"]
    if verb == "syn":
        known = set(syn.entries()) | {e.area for e in syn.entries().values()}
        return [f"no synthesis entry or area {a}" for a in args if a not in known]
    subs = [a for a in _verbs()[verb]._actions if a.__class__.__name__ == "_SubParsersAction"]
    if args and subs:
        missing = [a for a in args[0].split("|") if a not in subs[0].choices]
        if missing:
            return [f"no CLI verb {verb} {' '.join(missing)}"]
    return []


@pytest.mark.parametrize("md", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_name_only_what_exists(md):
    bad = problems(md)
    assert not bad, "\n".join(bad)


def test_the_checker_catches_each_kind(tmp_path):
    """Broken on purpose: each kind of wrong name is reported (so the test above can fail)."""
    md = ROOT / "docs" / "x.md"
    text = ("[a](nowhere.md) `fp_no_such_module` `node/rtl/fp_nothing.v` `fastpath frobnicate` "
            "`fastpath bench nosuch` `fastpath syn nosuch_entry` `make nosuchtarget` "
            "`fastpath.nosuch.model`\n"
            "fine: [arch](architecture.md) `fp_axis_fifo` `node/README.md` `fastpath bench node` "
            "`make test` `fastpath.gre.model` `fastpath gre decap` `build/bench/node.json`\n")
    bad = problems(md, text)
    assert len(bad) == 8, "\n".join(bad)


def test_readme_lists_every_system_with_a_status():
    """The README's system table has a row per system folder with a status, and what it calls
    planned has no folder (a planned system is never described as built)."""
    text = (ROOT / "README.md").read_text()
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|") and line.count("|") == 4]
    status = {}
    for first, _what, state in rows:
        for name in re.findall(r"`(\w+)/`", first):
            status[name] = state
        if state.lower().startswith("planned"):
            assert not re.findall(r"`(\w+)/`", first), f"README.md: a planned system with a folder: {first}"
    for name in systems():
        assert status.get(name), f"README.md: no row with a status for the system {name}/"
