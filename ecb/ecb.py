"""The entry control block: data levels, core blocks, the work area and create macros.

An :class:`Ecb` is what a program receives: ``fn(ecb)``. It carries

- 16 data levels D0-DF, each a core block reference (the held :class:`CoreBlock` or none,
  its block type and byte count) and a file address reference word;
- the 104-byte application work area EBW000-EBW103 (:attr:`Ecb.ebw`), where the create
  macros put the new entry's parameters;
- the entry origin (:attr:`Ecb.origin`: who started the entry, e.g. ``"CUIR"`` or a
  terminal address) and a small id shown in dumps (:attr:`Ecb.ecb_id`);
- the program stack (root first), held resources and commit scopes
  (:mod:`ecb.resources`), and the linkage macros (:mod:`ecb.linkage`).

Misuse is a system error (:class:`~ecb.errors.TpfSystemError`), as on TPF: GETCC on a
level that holds a block (E0101), RELCC/DETAC on an empty level (E0102), a write past a
block's end (E0103), a size no block holds (E0104), the storage limit (E0105), ATTAC with
nothing detached (E0106), a level outside D0-DF (E0108).

An ECB belongs to one entry and one thread (the I-stream running it); it is not
thread-safe, exactly as an ECB is only ever dispatched on one I-stream at a time.

An ``Ecb`` can be built directly (``Ecb(programs, storage)``) to exercise data levels and
linkage without a dispatcher; the create macros then raise :class:`~ecb.errors.EcbError`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from ecb.blocks import CoreBlock, WorkArea
from ecb.errors import EcbError, ErrorCode, TpfSystemError
from ecb.levels import MAX_BLOCK_SIZE, NUM_LEVELS, WORK_AREA_SIZE, BlockType, Cbrw, Farw, Level
from ecb.linkage import DEFAULT_MAX_NESTING, Linkage
from ecb.programs import Programs
from ecb.resources import ResourceMixin
from ecb.storage import Storage

if TYPE_CHECKING:
    from ecb.dispatcher import Dispatcher

__all__ = ["Ecb"]

_NO_BLOCK = Cbrw(BlockType.NONE, 0)
# Shared by every ECB until it first uses a level. A tuple, never written: each writer
# swaps in a list first (``is _NO_BLOCKS``); typed as the list it stands for.
_NO_BLOCKS = cast("list[CoreBlock | None]", (None,) * NUM_LEVELS)
_EMPTY_FARW = Farw()


class EntryContext:
    """What the ECBs run by one I-stream share: program table, storage, limits, counters.

    One context per I-stream (the dispatcher builds them) keeps the per-program call
    counters single-writer, and keeps building an ECB cheap.
    """

    __slots__ = ("calls", "dispatcher", "istream", "max_nesting", "programs", "storage")

    def __init__(
        self,
        programs: Programs | None,
        storage: Storage,
        max_nesting: int = DEFAULT_MAX_NESTING,
        calls: dict[str, int] | None = None,
        dispatcher: Dispatcher | None = None,
        istream: int = 0,
    ) -> None:
        self.programs = programs
        self.storage = storage
        self.max_nesting = max_nesting
        self.calls = calls if calls is not None else {}
        self.dispatcher = dispatcher
        self.istream = istream


class Ecb(Linkage, ResourceMixin):
    """One entry control block.

    :param programs: the program table the linkage macros resolve names in.
    :param storage: the working-storage accounting blocks are counted in (a private
        :class:`~ecb.storage.Storage` with default limits if omitted).
    :param params: create-macro parameters, copied to EBW000 (at most 104 bytes).
    :param origin: the entry origin.
    :param ecb_id: the id shown in dumps.
    :param max_nesting: most program levels (root plus outstanding ENTRCs).
    :param calls: a dict to count program calls in (one of its own if omitted).

    The dispatcher builds its ECBs through a faster internal path; this constructor is for
    standalone use (tests, tools).
    """

    __slots__ = (
        "_blocks",
        "_ctx",
        "_detached",
        "_done",
        "_ebw",
        "_exit_hooks",
        "_farws",
        "_fault",
        "_held",
        "_holds",
        "_params",
        "_scopes",
        "_stack",
        "ecb_id",
        "origin",
    )

    ecb_id: int
    origin: Any
    _params: bytes
    _ctx: EntryContext
    _stack: list[str]
    _blocks: list[CoreBlock | None]  # or the shared _NO_BLOCKS until a level is used
    _held: int  # how many data levels hold a block
    _done: bool
    _ebw: WorkArea | None
    _farws: list[Farw] | None
    _detached: dict[int, list[CoreBlock]] | None
    _exit_hooks: list[Callable[[], object]] | None

    def __init__(
        self,
        programs: Programs | None = None,
        storage: Storage | None = None,
        *,
        params: bytes = b"",
        origin: Any = None,
        ecb_id: int = 0,
        max_nesting: int = DEFAULT_MAX_NESTING,
        calls: dict[str, int] | None = None,
    ) -> None:
        if len(params) > WORK_AREA_SIZE:
            raise TpfSystemError(
                ErrorCode.PARAMETERS_TOO_LONG,
                "CREATE",
                f"{len(params)} bytes of parameters; at most {WORK_AREA_SIZE} fit in EBW000",
            )
        ctx = EntryContext(
            programs, storage if storage is not None else Storage(), max_nesting, calls
        )
        _setup(self, ctx, ecb_id, bytes(params), origin)

    # -- errors -----------------------------------------------------------------------------

    def _error(
        self, code: ErrorCode, macro: str, detail: str, level: int | None = None
    ) -> TpfSystemError:
        """Build a system error naming this ECB and its current program."""
        if level is not None:
            detail = f"{Level(level).name}: {detail}"
        return TpfSystemError(
            code, macro, detail, level=level, program=self.program, ecb_id=self.ecb_id
        )

    def _enrich(self, exc: TpfSystemError, level: int | None = None) -> TpfSystemError:
        """Fill in the program, ECB and level of an error raised by a lower layer."""
        if exc.program is None:
            exc.program = self.program
        if exc.ecb_id is None:
            exc.ecb_id = self.ecb_id
        if exc.level is None and level is not None:
            exc.level = level
            exc.detail = f"{Level(level).name}: {exc.detail}"
        return exc

    def _require_free_level(self, index: int, macro: str) -> None:
        """Raise E0101 (LEVEL_IN_USE) if data level ``index`` holds a block."""
        held = self._blocks[index]
        if held is not None:
            raise self._error(
                ErrorCode.LEVEL_IN_USE,
                macro,
                f"level already holds an {held.block_type.name} block",
                index,
            )

    def _level(self, level: int, macro: str) -> int:
        try:
            index = level.__index__()
        except AttributeError:
            index = -1
        if not 0 <= index < NUM_LEVELS:
            raise self._error(ErrorCode.INVALID_LEVEL, macro, f"{level!r} is not a level D0-DF")
        return index

    # -- identity and state -----------------------------------------------------------------

    @property
    def istream(self) -> int:
        """The number of the I-stream running this ECB (0 outside a dispatcher)."""
        return self._ctx.istream

    @property
    def program(self) -> str | None:
        """The program now running (top of the program stack), or None."""
        stack = self._stack
        return stack[-1] if stack else None

    @property
    def programs(self) -> tuple[str, ...]:
        """The program stack, root first: one name per program level."""
        return tuple(self._stack)

    @property
    def nesting(self) -> int:
        """How many program levels are in use (1 in the root, +1 per outstanding ENTRC)."""
        return len(self._stack)

    @property
    def active(self) -> bool:
        """False once the entry has exited."""
        return not self._done

    @property
    def params(self) -> bytes:
        """The create-macro parameters exactly as passed (an emulator convenience)."""
        return self._params

    @property
    def ebw(self) -> WorkArea:
        """The application work area EBW000-EBW103; the parameters start at EBW000."""
        ebw = self._ebw
        if ebw is None:
            ebw = self._ebw = WorkArea(WORK_AREA_SIZE, self._params)
        return ebw

    def __repr__(self) -> str:
        prog = "/".join(self._stack) or "-"
        return f"<Ecb {self.ecb_id} {prog} {self._held} block(s)>"

    # -- data levels ------------------------------------------------------------------------

    def block(self, level: Level | int) -> CoreBlock | None:
        """The core block held on ``level`` (a fixed-size bytearray), or None."""
        if level.__class__ is Level:
            return self._blocks[level]
        return self._blocks[self._level(level, "BLOCK")]

    def cbrw(self, level: Level | int) -> Cbrw:
        """A snapshot of ``level``'s core block reference word: block type and byte count."""
        block = self._blocks[self._level(level, "CBRW")]
        return _NO_BLOCK if block is None else Cbrw(block.block_type, len(block))

    def levtest(self, level: Level | int) -> BlockType | None:
        """The type of the block held on ``level``, or None. Equivalent to C ``levtest``."""
        block = self._blocks[self._level(level, "LEVTA")]
        return None if block is None else block.block_type

    def levta(self, level: Level | int) -> bool:
        """True if ``level`` holds a core block. Equivalent to LEVTA (level test)."""
        return self._blocks[self._level(level, "LEVTA")] is not None

    levtb = levta  # the spelling of the level test

    def getcc(
        self, level: Level | int, size: BlockType | int, *, fill: int | None = None
    ) -> CoreBlock:
        """Get a core block on ``level`` and return it. Equivalent to GETCC.

        :param size: a :class:`BlockType` (``BlockType.L1``) or a byte count, for which the
            smallest block that holds it is taken.
        :param fill: fill the block with this byte (0-255); blocks are zero-filled otherwise
            (TPF does not clear blocks; we do, for reproducible tests).
        :raises TpfSystemError: E0101 level in use, E0104 no such size, E0105 storage limit.
        """
        index = self._level(level, "GETCC")
        if isinstance(size, BlockType):
            block_type: BlockType | None = None if size is BlockType.NONE else size
        elif isinstance(size, int) and size >= 0:
            block_type = BlockType.for_size(size)
        else:
            block_type = None
        if block_type is None:
            what = (f"{size.name} (X'{size.value:04X}') is not a block to get"
                    if isinstance(size, BlockType)
                    else f"no block type holds {size!r}")
            raise self._error(
                ErrorCode.BAD_BLOCK_SIZE,
                "GETCC",
                f"{what} (L0, L1, L2 or L4; the largest is {MAX_BLOCK_SIZE} bytes)",
                index,
            )
        if fill is not None and not (isinstance(fill, int) and 0 <= fill <= 255):
            raise ValueError(f"GETCC: fill byte {fill!r} is not 0-255")
        self._require_free_level(index, "GETCC")
        try:
            block = self._ctx.storage.allocate(block_type, macro="GETCC")
        except TpfSystemError as exc:
            raise self._enrich(exc, index) from None
        if fill:
            bytearray.__setitem__(block, slice(None), bytes((fill,)) * len(block))
        blocks = self._blocks
        if blocks is _NO_BLOCKS:
            blocks = self._blocks = [None] * NUM_LEVELS
        blocks[index] = block
        self._held += 1
        return block

    def relcc(self, level: Level | int) -> None:
        """Release the core block on ``level``. Equivalent to RELCC.

        :raises TpfSystemError: E0102 if the level holds no block.
        """
        index = self._level(level, "RELCC")
        block = self._blocks[index]
        if block is None:
            raise self._error(ErrorCode.LEVEL_EMPTY, "RELCC", "level holds no block", index)
        self._blocks[index] = None
        self._held -= 1
        self._ctx.storage.release(block)

    def crusa(self, *levels: Level | int) -> int:
        """Release the blocks held on each of ``levels``; empty levels are skipped.

        Equivalent to CRUSA (conditionally release storage areas). Returns how many blocks
        were released.
        """
        if not levels:
            raise ValueError("CRUSA needs at least one data level")
        indexes = [self._level(level, "CRUSA") for level in levels]
        released = []
        for index in dict.fromkeys(indexes):
            block = self._blocks[index]
            if block is not None:
                self._blocks[index] = None
                released.append(block)
        self._held -= len(released)
        self._ctx.storage.release_many(released)
        return len(released)

    def detac(self, level: Level | int) -> None:
        """Detach the block on ``level``, keeping it for ATTAC; the level becomes free.

        Equivalent to DETAC (CHECK=YES). Detached blocks stay counted in storage and are
        released by EXITC if never reattached.

        :raises TpfSystemError: E0102 if the level holds no block.
        """
        index = self._level(level, "DETAC")
        block = self._blocks[index]
        if block is None:
            raise self._error(ErrorCode.LEVEL_EMPTY, "DETAC", "level holds no block", index)
        if self._detached is None:
            self._detached = {}
        self._detached.setdefault(index, []).append(block)
        self._blocks[index] = None
        self._held -= 1

    def attac(self, level: Level | int) -> CoreBlock:
        """Reattach the block most recently detached from ``level`` and return it.

        Equivalent to ATTAC.

        :raises TpfSystemError: E0101 if the level holds a block, E0106 if none is detached.
        """
        index = self._level(level, "ATTAC")
        self._require_free_level(index, "ATTAC")
        stack = self._detached.get(index) if self._detached else None
        if not stack:
            raise self._error(
                ErrorCode.NO_DETACHED_BLOCK, "ATTAC", "no block is detached from this level", index
            )
        block = stack.pop()
        blocks = self._blocks
        if blocks is _NO_BLOCKS:
            blocks = self._blocks = [None] * NUM_LEVELS
        blocks[index] = block
        self._held += 1
        return block

    def detached_count(self, level: Level | int | None = None) -> int:
        """How many blocks are detached (from ``level``, or from every level)."""
        if not self._detached:
            return 0
        if level is None:
            return sum(len(blocks) for blocks in self._detached.values())
        return len(self._detached.get(self._level(level, "DETAC"), ()))

    def farw(self, level: Level | int) -> Farw:
        """A snapshot of ``level``'s file address reference word."""
        index = self._level(level, "FARW")
        return _EMPTY_FARW if self._farws is None else self._farws[index]

    def set_farw(
        self, level: Level | int, file_address: int, *, record_id: int = 0, rcc: int = 0
    ) -> None:
        """Set ``level``'s FARW, as a program does before a find or file macro."""
        index = self._level(level, "FARW")
        if not 0 <= record_id <= 0xFFFF or not 0 <= rcc <= 0xFF:
            raise ValueError(f"record_id must fit 2 bytes and rcc 1 byte: {record_id:#x}, {rcc:#x}")
        if not 0 <= file_address < 1 << 64:
            raise ValueError(f"file address {file_address:#x} does not fit 8 bytes")
        if self._farws is None:
            self._farws = [_EMPTY_FARW] * NUM_LEVELS
        self._farws[index] = Farw(record_id, rcc, file_address)

    def _give_block(self, block: CoreBlock) -> None:
        """Put ``block`` (already counted in storage) on D0 of this new ECB (CREEC)."""
        if self._blocks is _NO_BLOCKS:
            self._blocks = [None] * NUM_LEVELS
        self._blocks[0] = block
        self._held += 1

    def _take_block(self, index: int, macro: str) -> CoreBlock:
        """Remove and return the block on level ``index`` (it stays counted in storage)."""
        block = self._blocks[index]
        if block is None:
            raise self._error(ErrorCode.LEVEL_EMPTY, macro, "level holds no block", index)
        self._blocks[index] = None
        self._held -= 1
        return block

    # -- end of entry -----------------------------------------------------------------------

    def at_exit(self, fn: Callable[[], object]) -> None:
        """Call ``fn()`` when this entry ends, however it ends (EXITC, return, or failure).

        For the layers that own resources on behalf of an entry: the MQ layer backs out
        and closes an entry's connection this way. Hooks run last in, first out, after the
        EXITC checks; an exception from one is reported on the console and the others
        still run.
        """
        if self._exit_hooks is None:
            self._exit_hooks = []
        self._exit_hooks.append(fn)

    def _run_exit_hooks(self) -> list[BaseException]:
        """Run the at_exit hooks (LIFO); return what they raised."""
        hooks, self._exit_hooks = self._exit_hooks, None
        failures: list[BaseException] = []
        for fn in reversed(hooks or ()):
            try:
                fn()
            except Exception as exc:
                failures.append(exc)
        return failures

    def _exit_violations(self) -> TpfSystemError | None:
        """EXITC's checks: roll back open scopes and release holds; report them as an error."""
        scopes = self._rollback_scopes()
        held = self._release_holds()
        if not scopes and not held:
            return None
        parts = []
        if scopes:
            parts.append(f"{scopes} commit scope(s) open, rolled back")
        if held:
            parts.append(f"resources still held, released: {', '.join(map(repr, held))}")
        code = ErrorCode.EXIT_SCOPE_OPEN if scopes else ErrorCode.EXIT_RESOURCES_HELD
        return self._error(code, "EXITC", "; ".join(parts))

    def _release_storage(self) -> None:
        """Release every block (data levels and detached) and mark the ECB exited."""
        self._done = True
        blocks = [b for b in self._blocks if b is not None] if self._held else []
        if self._detached:
            for stack in self._detached.values():
                blocks.extend(stack)
            self._detached = None
        if blocks:
            self._blocks = _NO_BLOCKS
            self._held = 0
            self._ctx.storage.release_many(blocks)

    # -- create macros ----------------------------------------------------------------------

    def _disp(self, macro: str) -> Dispatcher:
        dispatcher = self._ctx.dispatcher
        if dispatcher is None:
            raise EcbError(f"{macro}: ECB {self.ecb_id} is not attached to a dispatcher")
        if self._done:
            raise self._error(ErrorCode.ECB_NOT_ACTIVE, macro, "the entry has already exited")
        return dispatcher

    def cremc(self, name: str, params: bytes = b"") -> None:
        """Create an entry for ``name`` on the ready list. Equivalent to CREMC.

        The new entry inherits this entry's origin. See :meth:`Dispatcher.cremc`.
        """
        try:
            self._disp("CREMC")._create("CREMC", name, params, None, self.origin, 0)
        except TpfSystemError as exc:
            raise self._enrich(exc) from None

    def credc(self, name: str, params: bytes = b"") -> None:
        """Create an entry for ``name`` on the deferred list. Equivalent to CREDC."""
        try:
            self._disp("CREDC")._create("CREDC", name, params, None, self.origin, 1)
        except TpfSystemError as exc:
            raise self._enrich(exc) from None

    def crexc(self, name: str, params: bytes = b"") -> None:
        """Create a low-priority entry for ``name``. Equivalent to CREXC.

        :raises StorageShort: while working storage is short (nothing is created).
        """
        try:
            self._disp("CREXC")._create("CREXC", name, params, None, self.origin, 2)
        except TpfSystemError as exc:
            raise self._enrich(exc) from None

    def creec(
        self, name: str, level: Level | int, params: bytes = b"", *, deferred: bool = False
    ) -> None:
        """Create an entry for ``name`` that receives the block on ``level`` on its D0.

        Equivalent to CREEC: the block leaves this ECB (``level`` becomes free) and arrives
        on D0 of the new ECB; it stays counted in storage throughout. ``deferred`` selects
        CREEC_DEFERRED (deferred list) instead of CREEC_IMMEDIATE (ready list). If the
        create is refused, the block stays on ``level``.

        :raises TpfSystemError: E0102 if ``level`` holds no block.
        """
        index = self._level(level, "CREEC")
        dispatcher = self._disp("CREEC")
        block = self._take_block(index, "CREEC")
        try:
            dispatcher._create("CREEC", name, params, block, self.origin, 1 if deferred else 0)
        except BaseException as exc:
            self._blocks[index] = block
            self._held += 1
            if isinstance(exc, TpfSystemError):
                raise self._enrich(exc, index) from None
            raise

    def cretc(self, name: str, seconds: float, params: bytes = b"") -> None:
        """Create an entry for ``name`` after ``seconds``. Equivalent to CRETC.

        ``params`` is the action word: at most 4 bytes, given to EBW000-EBW003 (E0301
        for more)."""
        try:
            self._disp("CRETC").cretc(name, seconds, params, origin=self.origin)
        except TpfSystemError as exc:
            raise self._enrich(exc) from None

    # -- output -------------------------------------------------------------------------------

    def routc(self, rcpl: bytes | bytearray | memoryview | object, level: Level | int) -> None:
        """Send the message on ``level`` where ``rcpl`` routes it; release the level.

        Equivalent to ROUTC (C ``routc(rcpl, level)``). ``rcpl`` is the routing control
        parameter list as bytes (or any object ``bytes()`` accepts, such as tpfemu's
        ``Rcpl``); its layout belongs to the installed router (:mod:`ecb.routc`), which
        the dispatcher holds as :attr:`~ecb.Dispatcher.router`. On return the level is
        free, as after TPF's ROUTC; on a system error it still holds the block (the dump
        shows it).

        :raises TpfSystemError: E0108 bad level, E0102 empty level, E0601 no router, and
            what the router raises: E0602 unknown destination, E0603 unreadable message.
        """
        index = self._level(level, "ROUTC")
        block = self._blocks[index]
        if block is None:
            raise self._error(ErrorCode.LEVEL_EMPTY, "ROUTC", "level holds no message", index)
        dispatcher = self._ctx.dispatcher
        router = dispatcher.router if dispatcher is not None else None
        if router is None:
            raise self._error(ErrorCode.ROUTC_NO_ROUTER, "ROUTC",
                              "no message router is installed", index)
        try:
            data = rcpl if isinstance(rcpl, bytes) else bytes(rcpl)  # type: ignore[call-overload]
            router.routc(self, data, block)
        except TpfSystemError as exc:
            raise self._enrich(exc, index) from None
        self._blocks[index] = None
        self._held -= 1
        self._ctx.storage.release(block)

    # -- dumps --------------------------------------------------------------------------------

    def serrc(self, detail: str, *, exit: bool = True) -> None:  # noqa: A002 - SERRC's option
        """Take a system error. Equivalent to SERRC (C ``serrc_op``).

        With ``exit`` (SERRC_EXIT) the entry ends with the dump. Without (SERRC_RETURN)
        the system-error dump (E0502, ``detail``) goes to the console and
        :attr:`Dispatcher.dumps`, and the program goes on.

        :raises TpfSystemError: with ``exit``, always (E0502), carrying ``detail``.
        """
        if exit:
            raise self._error(ErrorCode.APPLICATION_SERRC, "SERRC", detail)
        self._disp("SERRC")._snap(self, detail, kind="SERRC")

    def defrc(self) -> None:
        """Defer the entry: give the I-stream to other work, then go on. Equivalent to
        DEFRC (C ``defrc``); the entry keeps its blocks and resources. TPF moves the
        entry to the deferred list; here its thread yields (other I-streams run)."""
        self._disp("DEFRC")
        time.sleep(0)

    def wtopc(self, text: str) -> None:
        """Send ``text`` to the operator's console (the dispatcher's console sink).
        Equivalent to WTOPC; the text is sent as given."""
        self._disp("WTOPC")._say(text)

    def snapc(self, detail: str) -> None:
        """Write a snapshot dump of this ECB to the console and continue. Equivalent to SNAPC."""
        self._disp("SNAPC")._snap(self, detail)


def _setup(ecb: Ecb, ctx: EntryContext, ecb_id: int, params: bytes, origin: Any) -> Ecb:
    """Initialise every slot of ``ecb`` (shared by ``Ecb()`` and :func:`new_entry_ecb`)."""
    ecb.ecb_id = ecb_id
    ecb.origin = origin
    ecb._params = params
    ecb._ctx = ctx
    ecb._stack = []
    ecb._blocks = _NO_BLOCKS
    ecb._held = 0
    ecb._done = False
    ecb._ebw = ecb._farws = ecb._detached = ecb._holds = ecb._scopes = ecb._fault = None
    ecb._exit_hooks = None
    return ecb


def new_entry_ecb(
    ctx: EntryContext, ecb_id: int, params: bytes, origin: Any,
    _new: Callable[[type[Ecb]], Ecb] = object.__new__,
) -> Ecb:
    """Build the ECB of a new entry (the dispatcher's fast path; ``params`` already checked)."""
    return _setup(_new(Ecb), ctx, ecb_id, params, origin)
