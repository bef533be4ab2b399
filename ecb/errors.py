"""Errors of the ECB runtime, and the system error codes it reports.

Two kinds of failure exist, as on TPF:

- A **system error** (:class:`TpfSystemError`) is a program's misuse of the control program:
  getting a block on a level that already holds one, releasing an empty level, writing past
  the end of a block, ENTDC between ENTRC and BACKC, and so on. On TPF the control program
  takes a system-error dump (SERRC) and exits the entry. Here the macro raises
  :class:`TpfSystemError`; when it escapes the program, the dispatcher writes the dump to the
  console sink and ends that entry only.
- A **refused create** (:class:`CreateRefused`) is not a program bug: the dispatcher is
  quiescing (:class:`DispatcherStopped`) or, for CREXC, working storage is short
  (:class:`StorageShort`). Callers outside an entry (the listener, the trigger monitor) catch
  it; inside an entry it ends the entry with a dump like any other uncaught exception.

System error codes
------------------

Each code is printed as ``E`` plus four hex digits, followed by its mnemonic. The first two
digits name the area.

====== ============================ =====================================================
Code   Mnemonic                     Raised when
====== ============================ =====================================================
E0101  LEVEL_IN_USE                 GETCC or ATTAC on a level that already holds a block
E0102  LEVEL_EMPTY                  RELCC, DETAC or CREEC on a level that holds no block
E0103  BLOCK_OVERRUN                a write past the end of a core block or the work area,
                                    or an operation that would resize it
E0104  BAD_BLOCK_SIZE               GETCC (or a CREEC block) larger than 4095 bytes, or an
                                    unknown block type
E0105  STORAGE_LIMIT                the configured limit of blocks of that size is reached
E0106  NO_DETACHED_BLOCK            ATTAC on a level with no detached block
E0107  RELEASED_BLOCK               a write to a block after it was released
E0108  INVALID_LEVEL                a data level outside D0-DF
E0201  PROGRAM_NOT_FOUND            ENTRC/ENTNC/ENTDC or an entry names an unloaded program
E0202  NESTING_LIMIT                ENTRC beyond the maximum program nesting depth
E0203  ENTDC_RETURN_PENDING         ENTDC between ENTRC and BACKC
E0204  BACKC_NO_RETURN              BACKC with no ENTRC outstanding
E0205  ECB_NOT_ACTIVE               a macro on an ECB whose entry has already exited
E0301  PARAMETERS_TOO_LONG          more than 104 bytes of create parameters
E0401  EXIT_RESOURCES_HELD          EXITC while resources (records) are still held
E0402  EXIT_SCOPE_OPEN              EXITC while a commit scope is open (it is rolled back)
E0403  RESOURCE_ALREADY_HELD        HOLD of a resource this ECB already holds
E0404  RESOURCE_NOT_HELD            UNHOLD of a resource this ECB does not hold
E0405  NO_COMMIT_SCOPE              TXCMC/TXRBC with no commit scope open
E0501  PROGRAM_EXCEPTION            a Python exception escaped a program
E0502  APPLICATION_SERRC            a program issued SERRC itself
E0601  ROUTC_NO_ROUTER              ROUTC with no message router installed (ecb.routc)
E0602  ROUTC_UNKNOWN_DESTINATION    ROUTC to a destination the router does not know
E0603  ROUTC_BAD_MESSAGE            ROUTC of a message or RCPL the router cannot read
====== ============================ =====================================================
"""

from __future__ import annotations

import enum

__all__ = [
    "CreateRefused",
    "DispatcherStopped",
    "EcbError",
    "ErrorCode",
    "StorageShort",
    "TpfSystemError",
]


class ErrorCode(enum.IntEnum):
    """System error codes of the ECB runtime (see the module docstring for the table)."""

    LEVEL_IN_USE = 0x0101
    LEVEL_EMPTY = 0x0102
    BLOCK_OVERRUN = 0x0103
    BAD_BLOCK_SIZE = 0x0104
    STORAGE_LIMIT = 0x0105
    NO_DETACHED_BLOCK = 0x0106
    RELEASED_BLOCK = 0x0107
    INVALID_LEVEL = 0x0108
    PROGRAM_NOT_FOUND = 0x0201
    NESTING_LIMIT = 0x0202
    ENTDC_RETURN_PENDING = 0x0203
    BACKC_NO_RETURN = 0x0204
    ECB_NOT_ACTIVE = 0x0205
    PARAMETERS_TOO_LONG = 0x0301
    EXIT_RESOURCES_HELD = 0x0401
    EXIT_SCOPE_OPEN = 0x0402
    RESOURCE_ALREADY_HELD = 0x0403
    RESOURCE_NOT_HELD = 0x0404
    NO_COMMIT_SCOPE = 0x0405
    PROGRAM_EXCEPTION = 0x0501
    APPLICATION_SERRC = 0x0502
    ROUTC_NO_ROUTER = 0x0601
    ROUTC_UNKNOWN_DESTINATION = 0x0602
    ROUTC_BAD_MESSAGE = 0x0603

    @property
    def label(self) -> str:
        """The printed form, e.g. ``"E0101 LEVEL_IN_USE"``."""
        return f"E{self.value:04X} {self.name}"


class EcbError(Exception):
    """Superclass of every error raised by the ECB runtime. Never raised directly."""


class TpfSystemError(EcbError):
    """A system error: a program misused a control-program service.

    Equivalent to the control program's SERRC with exit. The message names the macro, the
    data level or program involved, and (once known) the issuing program and ECB.

    :ivar code: the :class:`ErrorCode`.
    :ivar macro: the macro that detected the error (``"GETCC"``, ``"ENTDC"``, ...).
    :ivar detail: what was wrong, in words.
    :ivar level: the data level involved, if any.
    :ivar program: the program that issued the macro, if known.
    :ivar ecb_id: the ECB's id, if known.

    Deviation from TPF: a program can catch this exception (TPF's SERRC with exit cannot be
    intercepted). A program that catches it takes responsibility for the entry; the
    dispatcher only dumps what escapes.
    """

    def __init__(
        self,
        code: ErrorCode,
        macro: str,
        detail: str,
        *,
        level: int | None = None,
        program: str | None = None,
        ecb_id: int | None = None,
    ) -> None:
        self.code = code
        self.macro = macro
        self.detail = detail
        self.level = level
        self.program = program
        self.ecb_id = ecb_id
        super().__init__(code, macro, detail)

    def __str__(self) -> str:
        where = []
        if self.program is not None:
            where.append(f"program {self.program}")
        if self.ecb_id is not None:
            where.append(f"ECB {self.ecb_id}")
        suffix = f" ({', '.join(where)})" if where else ""
        return f"{self.code.label}: {self.macro}: {self.detail}{suffix}"


class CreateRefused(EcbError):
    """A create macro (CREMC, CREDC, CREEC, CREXC, CRETC) did not create an entry.

    :ivar macro: the create macro.
    :ivar program: the program the entry would have run.
    """

    def __init__(self, macro: str, program: str, reason: str) -> None:
        self.macro = macro
        self.program = program
        self.reason = reason
        super().__init__(f"{macro} {program} refused: {reason}")


class DispatcherStopped(CreateRefused):
    """The dispatcher is quiescing or stopped, so it accepts no new entries."""


class StorageShort(CreateRefused):
    """CREXC refused: blocks of some size are in use above the shortage threshold."""
