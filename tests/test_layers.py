"""The layer rule of DESIGN.md §1: imports go downwards only, checked on the source."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# package -> packages it must never import (directly or by a module inside it)
FORBIDDEN = {
    "ecb": ("tpfemu",),
    "tpfemu/_lowlevel.py": ("tpfemu.qmgr", "tpfemu.mqi", "tpfemu.console", "tpfemu.system",
                            "tpfemu.cli", "tpfemu.channels", "tpfemu.store"),
    "tpfemu/mq": ("tpfemu.qmgr", "tpfemu.mqi", "tpfemu.console", "tpfemu.system",
                  "tpfemu.cli", "tpfemu.channels"),
    "tpfemu/store": ("tpfemu.qmgr", "tpfemu.mqi", "tpfemu.console", "tpfemu.system",
                     "tpfemu.cli", "tpfemu.channels"),
    "tpfemu/qmgr": ("tpfemu.mqi", "tpfemu.console", "tpfemu.system", "tpfemu.cli",
                    "tpfemu.channels"),
    "tpfemu/mqi": ("tpfemu.console", "tpfemu.system", "tpfemu.cli", "tpfemu.channels"),
    "tpfemu/console": ("tpfemu.cli",),
    "tpfemu/inetd": ("tpfemu.cli",),
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _files(target: str) -> list[Path]:
    path = ROOT / target
    return [path] if path.is_file() else sorted(path.rglob("*.py"))


@pytest.mark.parametrize("target", sorted(FORBIDDEN))
def test_imports_go_downwards_only(target):
    """No module of a layer imports a layer above it (DESIGN.md's layer rule)."""
    files = _files(target)
    assert files, f"nothing found at {target}"
    bad = []
    for path in files:
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in FORBIDDEN[target]):
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not bad, "\n".join(bad)


def test_only_lowlevel_imports_the_compiled_modules():
    """tpfemu._native and tpfemu._fastpath are imported by tpfemu/_lowlevel.py only."""
    compiled = ("tpfemu._native", "tpfemu._fastpath")
    offenders = []
    for path in sorted((ROOT / "tpfemu").rglob("*.py")) + sorted((ROOT / "ecb").rglob("*.py")):
        if path.name == "_lowlevel.py":
            continue
        names = _imports(path)
        if any(n in compiled or n.startswith(tuple(c + "." for c in compiled)) for n in names) \
                or "tpfemu._native" in names or any(n.endswith("._fastpath") for n in names):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
