"""``tpfemu exec``: a ``main()`` C program run inside an entry of a System.

``tpfemu exec [--home H] [--script S] PROGRAM.so ARGS...`` starts a System (its home,
its operator command scripts), loads the shared object, and runs ``main(argc, argv)`` as
the root program of one entry, with ``argv[0]`` the file's path. The program uses the
process's standard input and output (the System's console lines and the scripts'
responses go to standard error); ``tpfemu exec`` exits with main's return value, or
``exit()``'s argument. A program that crashes ends its entry with a system-error dump
on the console and exits with 128 + the signal number; another system error ends it
with exit code 1.

The entry's program name is ``--program`` or made from the file's name: its first four
letters and digits, upper-cased (``sput.so`` runs as program SPUT); the MQ put context
(PutApplName) carries it, as for any program.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from ecb import Ecb, check_name
from tpfemu.cprog.calls import ProgramCrash
from tpfemu.cprog.loader import load_program

__all__ = ["exec_program", "program_name"]


def program_name(path: str | Path) -> str:
    """The 4-character program name ``tpfemu exec`` gives a ``main()`` program."""
    letters = re.sub(r"[^A-Z0-9]", "", Path(path).stem.upper())
    letters = letters.lstrip("0123456789")
    name = (letters + "XXXX")[:4] if letters else "MAIN"
    return check_name(name)


def exec_program(system: object, path: str | Path, args: Iterable[str], *,
                 program: str | None = None,
                 say: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
                 ) -> int:
    """Run ``main()`` of the shared object ``path`` in a new entry of the running
    ``system``; return the exit code (see the module's docstring).

    :raises ProgramLoadError: the file cannot be loaded or has no ``main``.
    """
    name = program or program_name(path)
    loaded = load_program(name, path, symbol="main")
    outcome: dict[str, int] = {}
    argv = [str(path), *args]

    def root(ecb: Ecb) -> None:
        outcome["code"] = 1  # until main returns (a system error leaves it)
        try:
            outcome["code"] = loaded.main(ecb, argv)
        except ProgramCrash as crash:
            outcome["code"] = 128 + crash.signum
            raise

    system.programs.load(name, root)  # type: ignore[attr-defined]
    system.dispatcher.cremc(name)  # type: ignore[attr-defined]
    system.dispatcher.wait_idle(None)  # type: ignore[attr-defined]
    code = outcome.get("code")
    if code is None:
        say(f"tpfemu exec: program {name} did not run")
        return 1
    return code
