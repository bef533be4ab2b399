"""docs/deviations.md states what is, and each of its entries names a test that pins it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "deviations.md"
REFERENCE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
FUTURE = re.compile(r"\b(will|later|future|yet to|not yet|until the \w+ issue)\b", re.I)


def _entries() -> list[str]:
    """Each bulleted entry of the document, its continuation lines joined."""
    entries: list[str] = []
    for line in DOC.read_text().splitlines():
        if line.startswith("- "):
            entries.append(line)
        elif line.startswith("  ") and entries:
            entries[-1] += " " + line.strip()
    return entries


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_entry_names_a_test():
    """Every entry names at least one test as ``tests/<file>.py::test_<name>``."""
    entries = _entries()
    assert len(entries) > 20
    missing = [e[:80] for e in entries if not REFERENCE.search(e)]
    assert not missing, missing


def test_every_named_test_exists():
    """Each test the document names is a test function of the file it names."""
    found: dict[str, set[str]] = {}
    for path, name in REFERENCE.findall(DOC.read_text()):
        assert (ROOT / path).is_file(), path
        tests = found.setdefault(path, _tests_in(ROOT / path))
        assert name in tests, f"{path}::{name}"


def test_no_future_tense():
    """No entry speaks of what will be: the document describes the tree as it is."""
    hits = [m.group(0) + ": " + e[:60] for e in _entries() for m in FUTURE.finditer(e)]
    assert not hits, hits
