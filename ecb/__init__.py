"""The ECB runtime: TPF's control-program layer for tpfemu.

Entries run on entry control blocks (:class:`Ecb`); programs are 4-character names bound to
Python callables ``fn(ecb)`` in a :class:`Programs` table; a :class:`Dispatcher` runs entries
on I-stream threads. This package imports nothing from ``tpfemu``.

::

    from ecb import Dispatcher, Ecb, Level, Programs

    def qzz1(ecb: Ecb) -> None:
        block = ecb.block(Level.D0)          # the CREEC block, or None
        ecb.exitc()

    programs = Programs()
    programs.load("QZZ1", qzz1)
    with Dispatcher(programs, istreams=2, console=print) as disp:
        disp.creec("QZZ1", b"hello", b"params")
        disp.wait_idle(5)

TPF macros and their methods
----------------------------

================  ============================================  ==========================
TPF               Here                                          Notes
================  ============================================  ==========================
GETCC             ``ecb.getcc(level, size)``                    size: BlockType or bytes
RELCC             ``ecb.relcc(level)``
CRUSA             ``ecb.crusa(*levels)``                        empty levels skipped
LEVTA / levtest   ``ecb.levta(level)``, ``ecb.levtest(level)``  ``levtb`` is an alias
DETAC / ATTAC     ``ecb.detac(level)``, ``ecb.attac(level)``    LIFO per level
CBRW, FARW        ``ecb.block/cbrw/farw/set_farw(level)``
EBW000-EBW103     ``ecb.ebw``                                   104-byte bytearray
ENTRC / BACKC     ``ecb.entrc(name)``, ``ecb.backc()``          or the callee returns
ENTNC             ``ecb.entnc(name)``
ENTDC             ``ecb.entdc(name)``
EXITC             ``ecb.exitc()``                               or the root returns
CREMC             ``disp.cremc`` / ``ecb.cremc``                ready list
CREDC             ``disp.credc`` / ``ecb.credc``                deferred list
CREEC             ``disp.creec(name, data)`` /                  block arrives on D0
                  ``ecb.creec(name, level)``
CREXC             ``disp.crexc`` / ``ecb.crexc``                refused while storage short
CRETC             ``disp.cretc`` / ``ecb.cretc``                after ``seconds``; 4 bytes
TXBGC/TXCMC/      ``ecb.tx_begin/tx_commit/tx_rollback``,       nested scopes
TXRBC             ``ecb.tx_enlist(participant)``
record hold       ``ecb.hold(resource)``, ``ecb.unhold``        checked by EXITC
SERRC / SNAPC     ``ecb.serrc(text)``, ``ecb.snapc(text)``      ``exit=False``: return
WTOPC / DEFRC     ``ecb.wtopc(text)``, ``ecb.defrc()``          console; yield
ROUTC             ``ecb.routc(rcpl, level)``                    via ``disp.router``
================  ============================================  ==========================

Misuse raises :class:`TpfSystemError` (codes in :mod:`ecb.errors`); an error escaping an
entry produces a dump on the console and ends that entry only. See ``docs/ecb.md``.
"""

from ecb.blocks import CoreBlock, WorkArea
from ecb.dispatcher import Dispatcher, Stats
from ecb.dumps import Dump, LevelDump
from ecb.ecb import Ecb
from ecb.errors import (
    CreateRefused,
    DispatcherStopped,
    EcbError,
    ErrorCode,
    StorageShort,
    TpfSystemError,
)
from ecb.levels import (
    BLOCK_SIZES,
    CRETC_PARAMS,
    MAX_BLOCK_SIZE,
    MAX_PARAMS,
    NUM_LEVELS,
    WORK_AREA_SIZE,
    BlockType,
    Cbrw,
    Farw,
    Level,
)
from ecb.linkage import DEFAULT_MAX_NESTING, ControlTransfer, current, run_entry
from ecb.programs import PROGRAM_NAME_RULE, Program, Programs, check_name
from ecb.resources import CommitParticipant
from ecb.routc import MessageRouter
from ecb.storage import DEFAULT_LIMITS, DEFAULT_SHORT_FRACTION, Storage

__all__ = [
    "BLOCK_SIZES",
    "CRETC_PARAMS",
    "DEFAULT_LIMITS",
    "DEFAULT_MAX_NESTING",
    "DEFAULT_SHORT_FRACTION",
    "MAX_BLOCK_SIZE",
    "MAX_PARAMS",
    "NUM_LEVELS",
    "PROGRAM_NAME_RULE",
    "WORK_AREA_SIZE",
    "BlockType",
    "Cbrw",
    "CommitParticipant",
    "ControlTransfer",
    "CoreBlock",
    "CreateRefused",
    "Dispatcher",
    "DispatcherStopped",
    "Dump",
    "Ecb",
    "EcbError",
    "ErrorCode",
    "Farw",
    "Level",
    "LevelDump",
    "MessageRouter",
    "Program",
    "Programs",
    "Stats",
    "Storage",
    "StorageShort",
    "TpfSystemError",
    "WorkArea",
    "check_name",
    "current",
    "run_entry",
]
