"""The operator's console session (``tpfemu run``): scripts, then the terminal.

A :class:`Session` reads commands from scripts and from the terminal by the same rules
(:class:`tpfemu.console.script.CommandReader`: comments, ``+`` and ``-`` continuation
lines) and runs each with ``system.console``. At a terminal it offers:

- line editing and history (readline); with a home, the history is kept in
  ``HOME/console_history`` and recalled by the next session on that home;
- Tab completion of verbs, object types, keywords, values and object names
  (:mod:`tpfemu.console.completion`);
- one prompt, ``QMGR/CPU>`` (``TPF1/B>``); a typed command is not echoed again;
- ``HELP`` / ``HELP <verb>`` (:mod:`tpfemu.console.help`, also ``system.console("HELP")``);
- ``END``, ``EXIT`` and Ctrl-D leave: the same as ``ZMQSC STOP QMGR`` (its response is
  shown; the caller then stops the system, which quiesces its entries); Ctrl-C drops the
  line being typed.

Commands read from a script or from a pipe are echoed after the same prompt, so a script's
transcript is what the same commands typed show; ``echo=False`` (``tpfemu run -e``)
leaves the echo out. ``verify=True`` (``tpfemu run -v``, runmqsc's ``-v``) checks each
ZMQSC command's syntax and runs nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Any

from tpfemu.console.script import CommandReader

__all__ = ["HISTORY_FILE", "Session"]

#: The history file's name in the home.
HISTORY_FILE = "console_history"
_HISTORY_LENGTH = 1000
_LEAVE = ("END", "EXIT")


class Session:
    """One console session on a running system.

    :param out: where responses (and echoed commands) go, one text at a time.
    :param echo: echo commands read from scripts and pipes after the prompt.
    :param verify: check the syntax of ZMQSC commands, run nothing (runmqsc ``-v``).
    """

    def __init__(self, system: Any, out: Callable[[str], None], *, echo: bool = True,
                 verify: bool = False) -> None:
        self.system = system
        self.out = out
        self.echo = echo
        self.verify = verify
        self.ended = False

    @property
    def prompt(self) -> str:
        """``QMGR/CPU> ``: the queue manager and the processor the commands go to."""
        return f"{self.system.qmgr.name}/{self.system.cpu}> "

    # -- commands ------------------------------------------------------------------------

    def run_command(self, command: str, *, typed: bool = False) -> bool:
        """Run one command (echoed unless typed); False once the session ends."""
        if self.echo and not typed:
            self.out(self.prompt + command)
        if command.strip().upper() in _LEAVE:
            return self.end()
        if self.verify:
            self.out(verify_line(self.system.cpu, command))
            return True
        self.out(self.system.console(command))
        if getattr(self.system, "stop_requested", False):
            self.ended = True
        return not self.ended

    def end(self) -> bool:
        """Leave the session as ZMQSC STOP QMGR does (nothing is run when verifying)."""
        if not self.ended and not self.verify:
            self.out(self.system.console("ZMQSC STOP QMGR"))
        self.ended = True
        return False

    def run_lines(self, lines: Iterable[str]) -> bool:
        """Run a script's lines; False once the session ended (STOP QMGR, END)."""
        reader = CommandReader()
        for line in lines:
            command = reader.feed(line)
            if command is not None and not self.run_command(command):
                return False
        last = reader.finish()
        return self.run_command(last) if last is not None else True

    # -- the terminal ----------------------------------------------------------------------

    def run_terminal(self, stdin: IO[str] | None = None, home: Path | None = None) -> None:
        """Read commands until the session ends: with line editing when ``stdin`` is a
        terminal, else line by line from the pipe (then its end is Ctrl-D)."""
        stdin = sys.stdin if stdin is None else stdin
        if stdin is None or stdin.closed:
            self.end()
            return
        if stdin.isatty():
            self._interact(home)
        elif self.run_lines(iter(stdin.readline, "")):
            self.end()

    def _interact(self, home: Path | None) -> None:
        history = LineEditor(self.system, home)
        reader = CommandReader()
        try:
            while not self.ended:
                prompt = self.prompt if not reader.continuing else \
                    " " * (len(self.prompt) - 2) + "+ "
                try:
                    line = input(prompt)
                except EOFError:  # Ctrl-D
                    self.out("")
                    self.end()
                    break
                except KeyboardInterrupt:  # Ctrl-C: drop the line being typed
                    self.out("")
                    reader = CommandReader()
                    continue
                command = reader.feed(line)
                if command is not None:
                    self.run_command(command, typed=True)
                    history.save()
        finally:
            history.save()


def verify_line(cpu: str, command: str) -> str:
    """The ``-v`` answer for one command: its syntax checked, nothing run."""
    from tpfemu.console.help import command_names
    from tpfemu.console.mqsc import hint_line
    from tpfemu.console.parser import ParseError, parse

    words = command.split(None, 1)
    head = words[0].upper() if words else ""
    if head == "ZMQSC":
        try:
            parse(words[1] if len(words) > 1 else "")
        except ParseError as exc:
            return exc.line(cpu)
        return f"CONS0005I {cpu} SYNTAX OK - NOT RUN"
    if head == "HELP" or head in command_names():
        return f"CONS0006I {cpu} {head} COMMAND NOT RUN - ONLY ZMQSC SYNTAX IS VERIFIED"
    return hint_line(cpu, command) or \
        f"CONS0002E {cpu} UNKNOWN COMMAND {words[0] if words else ''!r}"


class LineEditor:
    """readline for one session: Tab completion, and the history kept in the home."""

    def __init__(self, system: Any, home: Path | None) -> None:
        self.path = home / HISTORY_FILE if home is not None else None
        self._matches: list[str] = []
        self._system = system
        try:
            import readline
        except ImportError:  # no line editing on this Python: plain input()
            self.readline = None
            return
        self.readline = readline
        readline.clear_history()
        readline.set_history_length(_HISTORY_LENGTH)
        if self.path is not None and self.path.exists():
            try:
                readline.read_history_file(str(self.path))
            except OSError:
                pass
        readline.set_completer_delims(" \t")
        readline.set_completer(self._complete)
        if "libedit" in (readline.__doc__ or ""):
            readline.parse_and_bind("bind ^I rl_complete")
        else:
            readline.parse_and_bind("tab: complete")
        self._suppress = _append_switch(readline)

    def _complete(self, text: str, state: int) -> str | None:
        from tpfemu.console.completion import candidates

        rl = self.readline
        if rl is None:
            return None
        if state == 0:
            self._matches = candidates(self._system, rl.get_line_buffer()[: rl.get_endidx()])
            if self._suppress is not None and any(m.endswith("-") for m in self._matches):
                self._suppress.value = 1  # "QL-" waits for the name: no blank after it
        return self._matches[state] if state < len(self._matches) else None

    def save(self) -> None:
        """Write the history to the home (nothing without a home)."""
        if self.readline is None or self.path is None:
            return
        try:
            self.readline.write_history_file(str(self.path))
        except OSError:
            pass  # a read-only home keeps the history for this session only


def _append_switch(readline: Any) -> Any:
    """GNU readline's ``rl_completion_suppress_append`` (None when not reachable)."""
    import ctypes

    try:
        return ctypes.c_int.in_dll(ctypes.CDLL(readline.__file__), "rl_completion_suppress_append")
    except (OSError, ValueError, AttributeError):
        return None
