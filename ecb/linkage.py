"""Program linkage: ENTRC/BACKC, ENTNC, ENTDC and EXITC, and running an entry.

How "never returns" works in Python
-----------------------------------
ENTNC, ENTDC, BACKC and EXITC never return to the issuing program. Each raises an internal
control-flow exception derived from :class:`ControlTransfer`, a ``BaseException`` subclass,
so a program's ``except Exception:`` cannot swallow it. The frame that entered the program
catches it:

- :meth:`Linkage.entrc` calls the callee directly and catches the callee's BACKC (and its
  ENTNC, which replaces the callee's program level while the return stays pending).
- :func:`run_entry` (the dispatcher's root, like OPZERO's ENTNC to the first program) catches
  ENTNC/ENTDC at the root and EXITC anywhere.

Returning normally from a program is allowed and means: **BACKC** if the program was
entered with ENTRC, **EXITC** if it is the entry's root program. (On TPF, falling off the end
of a segment is an error; here a plain ``return`` is the idiomatic way out.)

Rules (each a system error, see :mod:`ecb.errors`):

- ENTRC beyond ``max_nesting`` program levels (TPF's keypoint CK1PLV) is E0202.
- ENTDC while an ENTRC is outstanding (between ENTRC and BACKC) is E0203.
- BACKC with no ENTRC outstanding is E0204.
- A name no program is loaded under is E0201, raised in the issuing program.

Program levels are counted as TPF does: the root program is level 1, each outstanding ENTRC
adds one, ENTNC and BACKC do not add. ENTDC drops every program level; since it is only legal
with no ENTRC outstanding, that is the root's level, and the named program becomes the root.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from ecb.errors import ErrorCode
from ecb.programs import Program, check_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from ecb.ecb import Ecb, EntryContext

__all__ = ["DEFAULT_MAX_NESTING", "ControlTransfer", "Linkage", "run_entry", "watch_running"]

DEFAULT_MAX_NESTING = 16
"""Default most program levels an entry may have outstanding (root plus ENTRCs)."""


class ControlTransfer(BaseException):
    """Base of the internal exceptions that implement macros which never return.

    Never catch these in a program. They derive from ``BaseException`` so that
    ``except Exception`` lets them through.
    """


class _Exit(ControlTransfer):
    """EXITC: end the entry."""


class _Back(ControlTransfer):
    """BACKC: return to the program that issued the last ENTRC."""


class _Enter(ControlTransfer):
    """ENTNC or ENTDC: replace the current program level (ENTDC: all of them)."""

    def __init__(self, program: Program, macro: str) -> None:
        self.program = program
        self.macro = macro


class Linkage:
    """The linkage macros of an ECB (mixed into :class:`~ecb.ecb.Ecb`).

    Expects the ECB to define ``_stack`` (program names, root first), ``_ctx`` (an
    :class:`~ecb.ecb.EntryContext`: program table, nesting limit, call counters),
    ``_fault`` and ``_done``.
    """

    __slots__ = ()

    _stack: list[str]
    _ctx: EntryContext
    _fault: tuple[BaseException, tuple[str, ...]] | None
    _done: bool

    def _error(
        self, code: ErrorCode, macro: str, detail: str, level: int | None = None
    ) -> Exception:
        raise NotImplementedError  # pragma: no cover - provided by Ecb

    def _lookup(self, name: str, macro: str) -> Program:
        """Resolve ``name`` in the program table, or raise the system error for ``macro``."""
        if self._done:
            raise self._error(ErrorCode.ECB_NOT_ACTIVE, macro, "the entry has already exited")
        programs = self._ctx.programs
        program = programs.get(name) if programs is not None else None
        if program is None:
            check_name(name)
            raise self._error(ErrorCode.PROGRAM_NOT_FOUND, macro, f"no program {name} is loaded")
        return program

    def _note_fault(self, exc: BaseException) -> None:
        """Remember the program stack at the point ``exc`` was first seen, for the dump."""
        fault = self._fault
        if fault is None or fault[0] is not exc:
            self._fault = (exc, tuple(self._stack))  # type: ignore[misc]  # a slot of Ecb

    def entrc(self, name: str) -> None:
        """Enter program ``name`` and return here when it issues BACKC (or returns).

        Equivalent to ENTRC: the issuing program stays held and its program level counts
        towards the nesting limit until the callee returns. An ENTNC issued by the callee
        replaces the callee; the return to this program stays pending.

        :raises TpfSystemError: E0201 unknown program, E0202 nesting limit reached.
        """
        ctx = self._ctx
        program = ctx.programs.get(name) if ctx.programs is not None else None
        if program is None or self._done:
            program = self._lookup(name, "ENTRC")
        stack = self._stack
        depth = len(stack)
        if depth >= ctx.max_nesting:
            raise self._error(
                ErrorCode.NESTING_LIMIT,
                "ENTRC",
                f"entering {name} would exceed the maximum of {ctx.max_nesting} program levels",
            )
        stack.append(name)
        calls = ctx.calls
        calls[name] = calls.get(name, 0) + 1
        fn = program.fn
        try:
            while True:
                try:
                    fn(self)  # type: ignore[arg-type]  # the mixin is always an Ecb
                except _Back:
                    pass
                except _Enter as transfer:  # ENTNC from the callee: reuse its program level
                    program = transfer.program
                    name = program.name
                    stack[depth] = name
                    calls[name] = calls.get(name, 0) + 1
                    fn = program.fn
                    continue
                break
        except Exception as exc:
            self._note_fault(exc)
            del stack[depth:]
            raise
        del stack[depth:]

    def backc(self) -> None:
        """Return to the program that issued the last ENTRC. Never returns.

        Equivalent to BACKC. A program entered with ENTRC may also simply return.

        :raises TpfSystemError: E0204 if no ENTRC is outstanding.
        """
        if len(self._stack) <= 1:
            raise self._error(ErrorCode.BACKC_NO_RETURN, "BACKC", "no ENTRC is outstanding")
        raise _Back

    def entnc(self, name: str) -> None:
        """Transfer to program ``name``, releasing the issuing program. Never returns.

        Equivalent to ENTNC: the new program takes over the issuing program's level, so a
        pending return (from an earlier ENTRC) goes to the program that issued that ENTRC.

        :raises TpfSystemError: E0201 unknown program.
        """
        raise _Enter(self._lookup(name, "ENTNC"), "ENTNC")

    def entdc(self, name: str) -> None:
        """Drop every program level and transfer to program ``name``. Never returns.

        Equivalent to ENTDC. Issuing it between ENTRC and BACKC is a system error, as on TPF.

        :raises TpfSystemError: E0203 if an ENTRC is outstanding, E0201 unknown program.
        """
        if len(self._stack) > 1:
            raise self._error(
                ErrorCode.ENTDC_RETURN_PENDING,
                "ENTDC",
                f"issued between ENTRC and BACKC ({len(self._stack) - 1} return(s) pending)",
            )
        raise _Enter(self._lookup(name, "ENTDC"), "ENTDC")

    def exitc(self) -> None:
        """End the entry. Never returns.

        Equivalent to EXITC: every core block (on data levels and detached) is released.
        Resources still held or a commit scope still open are a system error (E0401/E0402);
        open scopes are rolled back as if TXRBC had been issued. A root program may also
        simply return.
        """
        raise _Exit


class _Running(threading.local):
    """This thread's running ECB; the class attribute is the default, so reading it on a
    thread outside any entry is a plain lookup, not a missed attribute (which raises
    inside ``getattr``: ten times slower, and the MQI asks on every call)."""

    ecb: Ecb | None = None


_running = _Running()
#: Called on the thread, with the ECB (or None), whenever the ECB running on it changes.
_watcher: Callable[[Ecb | None], object] | None = None
#: True once any entry has started in this process.
_entries_started = False


def current() -> Ecb | None:
    """The ECB whose entry runs on this thread, or None outside any entry."""
    return _running.ecb


def watch_running(watcher: Callable[[Ecb | None], object]) -> bool:
    """Have ``watcher(ecb)`` called, on the entry's own thread, whenever the ECB running on
    a thread changes: with the ECB when its entry starts, with the previous one (None
    outside any) when it ends. One watcher at a time; it must not raise.

    This lets a compiled reader keep the running ECB in a thread-local slot of its own
    (the event journal does) instead of calling :func:`current` on every event.

    :returns: True when no entry has started yet, so the watcher sees every change;
        False when some entry started before (the watcher then misses what ran before).
    :raises ValueError: if another watcher is installed.
    """
    global _watcher
    if _watcher is not None and _watcher is not watcher:
        raise ValueError(f"a running-ECB watcher is already installed: {_watcher!r}")
    _watcher = watcher
    return not _entries_started


def run_entry(ecb: Ecb, name: str) -> None:
    """Run program ``name`` as the root of ``ecb``'s entry, until it exits.

    This is what the dispatcher does for each entry (OPZERO's ENTNC to the created program):
    it follows ENTNC/ENTDC at the root, stops at EXITC or a normal return, then applies the
    EXITC checks. Blocks are not released here (the dispatcher dumps first, then releases).

    :raises TpfSystemError: E0201 if ``name`` is not loaded; E0401/E0402 if the entry exits
        with resources held or a commit scope open (after releasing and rolling them back).
    :raises Exception: whatever escapes the programs.
    """
    global _entries_started
    previous = _running.ecb
    _running.ecb = ecb
    _entries_started = True
    watcher = _watcher
    if watcher is not None:
        watcher(ecb)
    try:
        _run_programs(ecb, name)
    finally:
        _running.ecb = previous
        if watcher is not None:
            watcher(previous)
        if ecb._exit_hooks:
            failures = ecb._run_exit_hooks()
            dispatcher = ecb._ctx.dispatcher
            for exc in failures:
                if dispatcher is not None:
                    dispatcher._say(f"ECBQ0007E ECB-{ecb.ecb_id} exit hook failed: {exc!r}")


def _run_programs(ecb: Ecb, name: str) -> None:
    ctx = ecb._ctx
    program = ctx.programs.get(name) if ctx.programs is not None else None
    if program is None:
        program = ecb._lookup(name, "ENTRY")  # raises the system error
    stack = ecb._stack
    calls = ctx.calls
    stack.append(name)
    while True:
        calls[name] = calls.get(name, 0) + 1
        try:
            program.fn(ecb)
        except _Exit:
            pass
        except _Enter as transfer:
            program = transfer.program
            name = program.name
            del stack[1:]
            stack[0] = name
            continue
        break
    if ecb._holds or ecb._scopes:
        error = ecb._exit_violations()
        if error is not None:
            raise error
