"""The layer rule of DESIGN.md §1, checked on the source of every module.

``cli`` -> ``system`` -> ``console``, ``inetd``, ``channels``, ``bridge``, ``pipeline`` ->
``mqi`` -> ``qmgr`` -> ``store``, ``journal`` -> ``mq``, ``_lowlevel``, ``ecb``: imports go
downwards only, and packages on one level do not import each other. ``ecb`` imports
nothing of tpfemu; the pipeline depends only on the journal schema (it runs in Spark
workers). Two places DESIGN.md leaves out are settled here: ``tpfemu.errors`` (the
exception hierarchy every layer raises) is the foundation below all and imports nothing
of tpfemu; the package facade (``tpfemu/__init__.py``, ``System`` and ``mqi`` on first use)
and ``python -m tpfemu`` sit above the CLI.

Every import statement counts: module level, inside functions, under ``TYPE_CHECKING``,
relative, and ``importlib.import_module("...")`` with a literal name.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Component -> level (higher imports lower). A component is a subpackage or top-level
#: module of tpfemu, or ecb.
LEVELS: dict[str, float] = {
    "tpfemu": 7, "__main__": 7,
    "cli": 6,
    "cli_validation": 5.5,  # the CLI's option checks, used by cli only
    "shelltools": 5.5,  # tpfemu put/get/browse: start a System or connect as a client
    "cli_errors": 5.4,  # how a command ends on an error: used by cli and shelltools
    "system": 5,
    "console": 4, "inetd": 4, "channels": 4, "bridge": 4, "pipeline": 4,
    # C programs' runtime and loader: an application of the MQI (below the console,
    # whose ZOLDR command loads them, and the system, whose program table does).
    "cprog": 3.5,
    "mqi": 3,
    "wire": 2.5,  # MQ's wire format and socket framing: the channels and the MQI's client
    "qmgr": 2,
    "store": 1, "journal": 1,
    "mq": 0,
    # mq reads the MQ numbers the compiled code knows from its header, through _lowlevel
    # (each number defined once): so _lowlevel sits just below mq, beside ecb.
    "_lowlevel": -0.5, "ecb": -0.5,
    "errors": -1,
}

#: The compiled modules belong to the _lowlevel component (only it imports them).
_COMPILED = ("tpfemu._native", "tpfemu._fastpath", "tpfemu._cprog", "tpfemu._exchange")

#: (file, imported module) pairs that break a rule in files this change does not own,
#: each reported to its owner; an entry covers the module and its submodules.
KNOWN_EXCEPTIONS = {
    # pipeline/replay.py boots a System and puts through the MQI: the pipeline reaches up
    # to the system layer and depends on more than the journal schema.
    ("tpfemu/pipeline/replay.py", "tpfemu.system"),
    ("tpfemu/pipeline/replay.py", "tpfemu.mqi"),
    # pipeline/sources.py converts journal inputs with the journal package's to_parquet
    # (the reader), more than the schema.
    ("tpfemu/pipeline/sources.py", "tpfemu.journal"),
    # journal/schema.py's payload_hash calls the compiled core (_lowlevel.payload_hashes),
    # so the schema the pipeline depends on is not free of tpfemu.
    ("tpfemu/journal/schema.py", "tpfemu._lowlevel"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    if name.startswith(_COMPILED):
        return True  # built from native/, maybe not yet
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def component(module: str) -> str | None:
    """The component a module name belongs to (None: not tpfemu's nor ecb's)."""
    parts = module.split(".")
    if parts[0] == "ecb":
        return "ecb"
    if parts[0] != "tpfemu":
        return None
    if len(parts) == 1:
        return "tpfemu"
    if module.startswith(_COMPILED):
        return "_lowlevel"
    return parts[1]


def _literal_import(node: ast.Call) -> str | None:
    """The module of ``importlib.import_module("x")`` / ``__import__("x")``, if literal."""
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if called in ("import_module", "__import__") and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    return None


@cache
def imports(path: Path) -> frozenset[str]:
    """Every module ``path`` imports, anywhere in it (``from pkg import mod`` is pkg.mod)."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full == "tpfemu.__version__":
                    continue  # the version string: metadata, not a dependency
                names.add(full if _is_module(full) else base)
        elif isinstance(node, ast.Call):
            literal = _literal_import(node)
            if literal is not None:
                names.add(literal)
    return frozenset(names)


def _all_files() -> list[Path]:
    return sorted((ROOT / "tpfemu").rglob("*.py")) + sorted((ROOT / "ecb").rglob("*.py"))


def _components() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path in _all_files():
        found.setdefault(component(_module_name(path)) or "?", []).append(path)
    return found


def _known(path: Path, name: str) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == file and (name == mod or name.startswith(mod + "."))
               for file, mod in KNOWN_EXCEPTIONS)


def _edges(of: str) -> list[tuple[Path, str, str]]:
    """(file, imported module, its component) for imports of other components."""
    edges = []
    for path in _components().get(of, []):
        for name in sorted(imports(path)):
            target = component(name)
            if target is not None and target != of and not _known(path, name):
                edges.append((path, name, target))
    return edges


def _report(edges: list[tuple[Path, str, str]]) -> str:
    return "\n".join(f"{path.relative_to(ROOT)} imports {name}" for path, name, _ in edges)


COMPONENTS = sorted(_components())


def test_every_package_is_placed_on_a_level():
    """Each subpackage and top-level module of tpfemu (and ecb) has a level in the rule."""
    assert {"journal", "pipeline", "inetd", "console", "qmgr", "store", "ecb"} <= set(COMPONENTS)
    unplaced = [name for name in COMPONENTS if name not in LEVELS]
    assert not unplaced, f"not placed on a layer: {unplaced}"


@pytest.mark.parametrize("name", COMPONENTS)
def test_imports_go_downwards_only(name):
    """No module imports a component on a higher level than its own."""
    up = [e for e in _edges(name) if LEVELS.get(e[2], 99) > LEVELS[name]]
    assert not up, _report(up)


@pytest.mark.parametrize("name", COMPONENTS)
def test_no_sideways_imports(name):
    """No module imports another component on its own level (console and inetd, store and
    journal, mq and _lowlevel and ecb, ...)."""
    sideways = [e for e in _edges(name) if LEVELS.get(e[2]) == LEVELS[name]]
    assert not sideways, _report(sideways)


def test_ecb_imports_nothing_of_tpfemu():
    """ecb is a layer of its own beneath tpfemu: none of its modules imports tpfemu."""
    bad = [e for e in _edges("ecb") if e[1].split(".")[0] == "tpfemu"]
    assert _components()["ecb"] and not bad, _report(bad)


def test_errors_imports_nothing_of_tpfemu():
    """tpfemu.errors, which every layer imports, imports no other part of tpfemu or ecb."""
    bad = _edges("errors")
    assert not bad, _report(bad)


def test_the_pipeline_depends_only_on_the_journal_schema():
    """Pipeline modules import of tpfemu only the pipeline itself, the journal schema and
    the errors (which import nothing), so a Spark worker needs nothing else."""
    allowed = ("tpfemu.journal.schema", "tpfemu.errors")
    bad = [e for e in _edges("pipeline") if e[1] not in allowed]
    assert not bad, _report(bad)


def test_the_journal_schema_imports_nothing_else_of_tpfemu():
    """The journal schema, all the pipeline may take from the journal, imports nothing of
    tpfemu but the errors."""
    path = ROOT / "tpfemu" / "journal" / "schema.py"
    bad = [(path, n, component(n)) for n in sorted(imports(path))
           if component(n) not in (None, "journal", "errors") and not _known(path, n)]
    assert not bad, _report(bad)


def test_nothing_sets_a_back_reference_to_the_system():
    """No module hands a lower layer the System after the fact (``x.system = ...`` on an
    object other than self, or setattr(x, "system", ...)): lower layers get ports."""
    offenders = []
    for path in _all_files():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and target.attr == "system" and not (
                        isinstance(target.value, ast.Name) and target.value.id == "self"):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "setattr" \
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value == "system":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def test_the_queue_manager_does_not_reach_for_a_system():
    """The queue manager's modules never name a ``system`` attribute (they use ports)."""
    offenders = []
    for path in sorted((ROOT / "tpfemu" / "qmgr").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Attribute) and node.attr == "system":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" \
                    and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value == "system":
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders, offenders


def _cffi_names_taken(source: str, where: str) -> list[str]:
    """Where ``source`` imports cffi's ``ffi`` or ``lib`` from tpfemu._lowlevel (or its
    modules)."""
    return [f"{where}:{node.lineno}" for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "tpfemu._lowlevel") and {a.name for a in node.names} & {"ffi", "lib"}]


def test_no_cffi_object_leaves_lowlevel():
    """Outside the _lowlevel package nothing takes cffi's ``ffi`` or ``lib``: the layers
    above see Python types only."""
    assert _cffi_names_taken("from tpfemu._lowlevel.compiled import NEVER, lib", "x") == [
        "x:1"]  # (the check sees such an import)
    offenders = [hit for path in _all_files() if path.parent != ROOT / "tpfemu" / "_lowlevel"
                 for hit in _cffi_names_taken(path.read_text(), str(path.relative_to(ROOT)))]
    assert not offenders, offenders


def test_cli_and_pipeline_cli_do_not_import_each_other():
    """tpfemu.cli may use the pipeline's commands; the pipeline's CLI never imports it."""
    assert "tpfemu.pipeline.cli" in imports(ROOT / "tpfemu" / "cli.py")
    assert not {n for n in imports(ROOT / "tpfemu" / "pipeline" / "cli.py")
                if n == "tpfemu.cli" or n.startswith("tpfemu.cli.")}


def test_only_lowlevel_imports_the_compiled_modules():
    """tpfemu._native and tpfemu._fastpath are imported by the tpfemu/_lowlevel package
    only."""
    offenders = []
    for path in _all_files():
        if path.parent == ROOT / "tpfemu" / "_lowlevel":
            continue
        if any(n.startswith(_COMPILED) for n in imports(path)):
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from tpfemu import errors", {"tpfemu.errors"}),
        ("from tpfemu.journal import to_parquet", {"tpfemu.journal"}),
        ("def f():\n    from ..system import System", {"tpfemu.system"}),
        ("if TYPE_CHECKING:\n    import tpfemu.cli", {"tpfemu.cli"}),
        ("importlib.import_module('tpfemu.console.zmqsc')", {"tpfemu.console.zmqsc"}),
    ],
)
def test_the_checker_sees_every_kind_of_import(source, expected, monkeypatch):
    """The import scanner finds function-level, relative, TYPE_CHECKING and literal
    importlib imports, and resolves ``from pkg import name`` to the module or package."""
    fake = ROOT / "tpfemu" / "qmgr" / "_layers_probe.py"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert imports.__wrapped__(fake) == expected
