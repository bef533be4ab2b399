"""Console scripts: the command lines of a script file (``tpfemu run``, ``tpfemu replay``).

The rules are runmqsc's for MQSC scripts:

- one command per line; blank lines are skipped;
- a line whose first non-blank character is ``*`` or ``#`` is a comment (also between
  the lines of a continued command);
- a line ending in ``+`` continues on the next: the ``+`` and the blanks before it become
  one blank, and the next line's leading blanks are dropped;
- a line ending in ``-`` continues on the next from its first column: the ``-`` is
  removed and nothing else (``DESCR-'Payroll -`` then ``input'`` is ``DESCR-'Payroll
  input'``). A dash at the end of a line therefore never ends a ``KEYWORD-``.

The interactive console (:mod:`tpfemu.console.interactive`) reads typed lines with the same
:class:`CommandReader`, so a script and the same lines typed give the same commands.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CommandReader", "script_commands"]


class CommandReader:
    """Assembles commands from lines: :meth:`feed` one line at a time."""

    def __init__(self) -> None:
        self._pending = ""
        self._raw = False  # the pending text ended in "-": keep the next line's blanks

    @property
    def continuing(self) -> bool:
        """True while a command is continued on the next line."""
        return bool(self._pending)

    def feed(self, raw: str) -> str | None:
        """Take one line; return the command it completes, or None (comment, blank,
        or continued on the next line)."""
        text = raw.rstrip("\r\n")
        if not text.strip() or text.strip().startswith(("*", "#")):
            return None  # blank and comment lines are skipped, even inside a command
        line = text.rstrip() if self._raw else text.strip()
        self._raw = False
        if line.endswith("+"):
            self._pending += line[:-1].rstrip() + " "
            return None
        if line.endswith("-"):
            self._pending += line[:-1]
            self._raw = True
            return None
        command = (self._pending + line).strip()
        self._pending = ""
        return command or None

    def finish(self) -> str | None:
        """The command left open by a last continued line, if any."""
        command, self._pending, self._raw = self._pending.strip(), "", False
        return command or None


def script_commands(lines: Iterable[str]) -> list[str]:
    """Commands of a script: one per line; ``*`` or ``#`` starts a comment line; a line
    ending in ``+`` or ``-`` continues on the next."""
    reader = CommandReader()
    commands = [c for c in (reader.feed(line) for line in lines) if c is not None]
    last = reader.finish()
    if last is not None:
        commands.append(last)
    return commands
