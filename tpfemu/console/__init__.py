"""The operator console: ZMQSC (MQ), ZINET (Internet daemon) and ZBRDG (ROUTC bridge)
commands.

:func:`execute` runs one command line against a host (a
:class:`~tpfemu.console.host.ConsoleHost`, which a :class:`~tpfemu.system.System` is) and
returns the response text. Every response line starts with a message identifier — four
letters, four digits and a severity letter (I, W or E) — followed by the processor ID.
A rejected command changes nothing and says why. ``HELP`` (or ``ZMQSC HELP``) answers
from the command tables (:mod:`tpfemu.console.help`); a runmqsc-style command is answered
with its ZMQSC form (:mod:`tpfemu.console.mqsc`). The command reference is
``docs/console.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tpfemu.console.host import ConsoleHost

__all__ = ["execute"]


def execute(system: ConsoleHost, text: str) -> str:
    """Run one console command line; never raises for a bad command."""
    words = text.strip().split(None, 1)
    if not words:
        return f"CONS0001E {system.cpu} EMPTY COMMAND"
    verb = words[0].upper()
    rest = words[1] if len(words) > 1 else ""
    if verb == "HELP" or (verb == "ZMQSC" and rest.upper().split()[:1] == ["HELP"]):
        from tpfemu.console.help import help_lines

        topic = rest if verb == "HELP" else " ".join(rest.split()[1:])
        return "\n".join(help_lines(system.cpu, topic))
    if verb == "ZMQSC":
        from tpfemu.console.zmqsc import zmqsc

        return zmqsc(system, rest)
    if verb == "ZINET":
        from tpfemu.console.zinet import zinet

        return zinet(system, rest)
    if verb == "ZBRDG":
        from tpfemu.console.zbrdg import zbrdg

        return zbrdg(system, rest)
    if verb == "ZOLDR":  # C programs' loader (ours: docs/console.md)
        from tpfemu.console.zoldr import zoldr

        return zoldr(system, rest)
    from tpfemu.console.mqsc import hint_line

    hint = hint_line(system.cpu, text)
    if hint is not None:  # runmqsc's form: answered with the ZMQSC form
        return hint
    return (f"CONS0002E {system.cpu} UNKNOWN COMMAND {words[0]!r} - ZMQSC, ZINET, ZBRDG AND "
            "ZOLDR ARE KNOWN")
