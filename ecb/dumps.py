"""System-error and snapshot dumps of an ECB, as text for the console.

When an exception escapes an entry, the dispatcher takes a **system-error dump** (what SERRC
does on TPF), writes it to the console sink and ends that entry only. A program can also ask
for a **snapshot dump** and continue (SNAPC). A dump shows:

- a header line in the style of a TPF console message: message id, time, I-stream, system
  error code and mnemonic, ECB id and program (the message ids ``CPSE0001E`` for a system
  error and ``CPSE0002I`` for a snapshot are ours, not IBM's);
- the error text (macro, level, program), the entry origin and the program stack;
- the first bytes of EBW000 and, for each of the 16 data levels, the CBRW (block type and
  byte count, ``0001 0000`` for a free level) and the first bytes of the block;
- the number of detached blocks, anything EXITC had to clean up, and for Python exceptions
  the traceback.
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ecb.errors import ErrorCode, TpfSystemError
from ecb.levels import NUM_LEVELS, BlockType, Level

if TYPE_CHECKING:
    from ecb.ecb import Ecb

__all__ = ["DUMP_BYTES", "Dump", "LevelDump", "build_dump"]

DUMP_BYTES = 16
"""How many leading bytes of each block and of EBW000 a dump shows."""


@dataclass(frozen=True)
class LevelDump:
    """One data level as a dump shows it."""

    level: Level
    block_type: BlockType
    count: int
    head: bytes


@dataclass(frozen=True)
class Dump:
    """One dump: the structured fields and the console text.

    :ivar kind: ``"SERRC"`` (system error, entry ended) or ``"SNAPC"`` (snapshot, entry
        continued).
    :ivar code: the system error code (``APPLICATION_SERRC`` for a snapshot).
    :ivar error: the exception that caused it (None for a snapshot).
    :ivar programs: the program stack when the error was raised, root first.
    """

    kind: str
    code: ErrorCode
    message: str
    ecb_id: int
    istream: int
    origin: object
    programs: tuple[str, ...]
    levels: tuple[LevelDump, ...]
    work_area: bytes
    detached: int
    notes: tuple[str, ...]
    error: BaseException | None
    time: float
    text: str = field(repr=False)

    def level(self, level: Level | int) -> LevelDump:
        """The dump of one data level."""
        return self.levels[int(level)]

    def __str__(self) -> str:
        return self.text


def _hex(data: bytes) -> str:
    shown = data.hex(" ").upper()
    text = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
    return f"{shown:<{3 * DUMP_BYTES}} |{text}|"


def _code_of(exc: BaseException | None) -> ErrorCode:
    if isinstance(exc, TpfSystemError):
        return exc.code
    return ErrorCode.PROGRAM_EXCEPTION


def build_dump(
    ecb: Ecb,
    *,
    kind: str = "SERRC",
    error: BaseException | None = None,
    message: str | None = None,
    notes: tuple[str, ...] = (),
) -> Dump:
    """Take a dump of ``ecb`` now (before its blocks are released).

    :param error: the exception that ended the entry, if any.
    :param message: the text for a snapshot or an error without an exception.
    :param notes: extra lines (e.g. what EXITC rolled back).
    """
    now = time.time()
    if error is not None:
        code = _code_of(error)
        if isinstance(error, TpfSystemError):
            if error.ecb_id is None:
                error.ecb_id = ecb.ecb_id
            text = str(error)
        else:
            text = f"{code.label}: {type(error).__qualname__}: {error}"
        fault = ecb._fault
        programs = fault[1] if fault is not None and fault[0] is error else ecb.programs
    else:
        code = ErrorCode.APPLICATION_SERRC
        text = message or ""
        programs = ecb.programs

    levels = []
    for index in range(NUM_LEVELS):
        block = ecb._blocks[index]
        if block is None:
            levels.append(LevelDump(Level(index), BlockType.NONE, 0, b""))
        else:
            levels.append(
                LevelDump(Level(index), block.block_type, len(block), bytes(block[:DUMP_BYTES]))
            )
    ebw = ecb._ebw
    source = ecb.params if ebw is None else bytes(ebw)
    work_area = source[:DUMP_BYTES].ljust(DUMP_BYTES, b"\0")
    detached = ecb.detached_count()

    stamp = time.strftime("%H.%M.%S", time.localtime(now))
    program = programs[-1] if programs else "----"
    msg_id = "CPSE0001E" if kind == "SERRC" else "CPSE0002I"
    title = "SYSTEM ERROR" if kind == "SERRC" else "SNAPSHOT DUMP"
    lines = [
        f"{msg_id} {stamp} IS-{ecb.istream:02d} {title} SE-E{code.value:04X} {code.name}"
        f" ECB-{ecb.ecb_id} PGM-{program}",
        f"  ERROR    {text}",
        f"  ORIGIN   {ecb.origin!r}",
        f"  PROGRAMS {' > '.join(programs) if programs else '(none)'}  ({len(programs)} level(s))",
        f"  EBW000   {_hex(work_area)}",
    ]
    for lv in levels:
        name = "--" if lv.block_type is BlockType.NONE else lv.block_type.name
        line = f"  CR{lv.level.name[1]} {name:<3} {lv.block_type.value:04X} {lv.count:04X}"
        if lv.head:
            line += f"  {_hex(lv.head)}"
        lines.append(line)
    lines.append(f"  DETACHED {detached} block(s)")
    lines.extend(f"  NOTE     {note}" for note in notes)
    if error is not None and not isinstance(error, TpfSystemError):
        tb = traceback.format_exception(type(error), error, error.__traceback__)
        lines.append("  TRACEBACK")
        lines.extend("    " + line for chunk in tb for line in chunk.rstrip("\n").split("\n"))
    return Dump(
        kind=kind,
        code=code,
        message=text,
        ecb_id=ecb.ecb_id,
        istream=ecb.istream,
        origin=ecb.origin,
        programs=tuple(programs),
        levels=tuple(levels),
        work_area=work_area,
        detached=detached,
        notes=tuple(notes),
        error=error,
        time=now,
        text="\n".join(lines),
    )
