"""The program table: 4-character TPF program names bound to Python callables.

On TPF, an ENTxC names a program (a "segment") that the program allocation table (PAT)
resolves to the loaded version of its code. Here a :class:`Programs` table maps a name to a
:class:`Program`: a callable ``fn(ecb)`` plus a version number.

**Names.** Exactly 4 characters: an upper-case letter A-Z, then three upper-case letters or
digits (``QZZ1``, ``CUIR``, ``COA4``). Lower-case input is refused rather than folded, so a
typo is not silently accepted.

**Loading twice** replaces the program with a new version (as loading a new version of a
segment does on TPF). Entries that have already entered the old version keep running it;
every later ENTRC/ENTNC/ENTDC or new entry gets the new one.

**Unknown names** are not checked when an entry is created (on TPF, CREMC only queues the
request); they are a system error (E0201) when the entry or the linkage macro tries to
enter the program.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ecb.ecb import Ecb

__all__ = ["PROGRAM_NAME_RULE", "Program", "ProgramFunction", "Programs", "check_name"]

ProgramFunction = Callable[["Ecb"], Any]
"""An ECB program: called with the ECB; its return value is ignored."""

PROGRAM_NAME_RULE = (
    "a TPF program name is 4 characters: an upper-case letter A-Z followed by"
    " three upper-case letters or digits"
)
"""The naming rule, as quoted in error messages."""

_NAME = re.compile(r"[A-Z][A-Z0-9]{3}")
_valid: set[str] = set()  # names already checked; a cache for the create hot path


def check_name(name: object) -> str:
    """Return ``name`` if it is a valid TPF program name.

    :raises ValueError: naming the bad name and the rule.
    """
    if name in _valid:
        return name
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise ValueError(f"bad program name {name!r}: {PROGRAM_NAME_RULE}")
    if len(_valid) < 65536:
        _valid.add(name)
    return name


class Program:
    """One loaded program: its name, its callable and its version (1 for the first load)."""

    __slots__ = ("fn", "name", "version")

    def __init__(self, name: str, fn: ProgramFunction, version: int) -> None:
        self.name = name
        self.fn = fn
        self.version = version

    def __repr__(self) -> str:
        fn_name = getattr(self.fn, "__qualname__", repr(self.fn))
        return f"<Program {self.name} v{self.version} {fn_name}>"


class Programs:
    """The program table: ``load(name, fn)`` binds a program name to a callable.

    Thread-safe: programs may be loaded while entries run.
    """

    def __init__(self) -> None:
        self._table: dict[str, Program] = {}
        self._lock = threading.Lock()

    def load(self, name: str, fn: ProgramFunction) -> Program:
        """Bind ``name`` to ``fn``; loading a name again replaces it with a new version.

        :raises ValueError: for a bad name.
        :raises TypeError: if ``fn`` is not callable.
        :returns: the loaded :class:`Program`.
        """
        check_name(name)
        if not callable(fn):
            raise TypeError(f"program {name}: {fn!r} is not callable")
        with self._lock:
            old = self._table.get(name)
            program = Program(name, fn, 1 if old is None else old.version + 1)
            self._table[name] = program
        return program

    def unload(self, name: str) -> None:
        """Remove ``name``; later entries to it are system errors.

        :raises KeyError: if ``name`` is not loaded.
        """
        with self._lock:
            del self._table[name]

    def get(self, name: str) -> Program | None:
        """The loaded program called ``name``, or None."""
        return self._table.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._table

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._table))

    def __len__(self) -> int:
        return len(self._table)

    def __repr__(self) -> str:
        return f"<Programs {', '.join(self)}>"
