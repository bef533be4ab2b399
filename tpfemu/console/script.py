"""Console scripts: the command lines of a script file (``tpfemu run``, ``tpfemu replay``).

One command per line; a line starting with ``*`` or ``#`` is a comment; a line ending in
``+`` continues on the next (the ``+`` and the blanks before it become one blank).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["script_commands"]


def script_commands(lines: Iterable[str]) -> list[str]:
    """Commands of a script: one per line; ``*`` or ``#`` starts a comment line; a line
    ending in ``+`` continues on the next."""
    commands: list[str] = []
    pending = ""
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith(("*", "#")):
            continue
        if line.endswith("+"):
            pending += line[:-1].rstrip() + " "
            continue
        commands.append(pending + line)
        pending = ""
    if pending.strip():
        commands.append(pending.strip())
    return commands
