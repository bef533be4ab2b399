"""The dispatcher: entry lists served by I-stream threads, CRETC timers, quiesce, dumps.

Model
-----
TPF's CPU loop serves its lists in priority order; a lower list is served only while every
higher one is empty. The dispatcher keeps three lists:

===========  =========================  ==============================================
List         Filled by                  Served
===========  =========================  ==============================================
ready        CREMC, CREEC (immediate),  first, in creation order
             CRETC when its time is up
deferred     CREDC, CREEC (deferred)    when the ready list is empty
low          CREXC                      when ready and deferred are both empty
===========  =========================  ==============================================

``istreams`` threads (default 2, like a small multi-I-stream processor) take entries from
the lists and run each to completion: build the ECB (parameters in EBW000, a CREEC block on
D0), enter the program (OPZERO's ENTNC), and finish at EXITC. Entries are not pinned to an
I-stream. Python's GIL lets only one I-stream run Python code at a time; several I-streams
still matter when programs block (waiting on I/O, a lock, a queue).

Failure
-------
An exception (a :class:`~ecb.errors.TpfSystemError` or any other) that escapes an entry ends
that entry only: the dispatcher writes a system-error dump (:mod:`ecb.dumps`) to the console
sink, keeps the last ``dump_history`` dumps in :attr:`Dispatcher.dumps`, rolls back open
commit scopes, releases held resources and blocks, counts the entry as failed, and the
I-stream carries on with the next entry.

Quiesce
-------
:meth:`Dispatcher.stop` refuses new entries at once (:class:`~ecb.errors.DispatcherStopped`,
also for programs that try to create entries while it drains), cancels pending CRETC
timers, lets queued and running entries finish, and after ``timeout`` reports on the console
every entry still running (its id, program stack and running time) and every queued entry
it discards. Python cannot kill a thread: an entry still running after the timeout goes on
in its (daemon) thread, but nothing new is dispatched.

Hot path
--------
Creating an entry takes one lock acquisition, appends a tuple to a deque and wakes an
I-stream only if one is asleep (one wake per idle I-stream, not one per entry). I-streams
pop the ready list without the lock and keep their counters (completed, failed, calls per
program) per thread, so finishing an entry takes no lock; :meth:`Dispatcher.stats` sums
them.
"""

from __future__ import annotations

import collections
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ecb.blocks import CoreBlock
from ecb.dumps import Dump, build_dump
from ecb.ecb import Ecb, EntryContext, new_entry_ecb
from ecb.errors import (
    DispatcherStopped,
    EcbError,
    ErrorCode,
    StorageShort,
    TpfSystemError,
)
from ecb.levels import CRETC_PARAMS, MAX_BLOCK_SIZE, MAX_PARAMS, BlockType
from ecb.linkage import DEFAULT_MAX_NESTING, run_entry
from ecb.programs import Programs, check_name
from ecb.programs import _valid as _known_names
from ecb.routc import MessageRouter
from ecb.storage import Storage
from ecb.timers import Timers

__all__ = ["Dispatcher", "Stats"]

_READY, _DEFERRED, _LOW = 0, 1, 2
#: An entry waiting on a list: (entry id, program name, parameters, block for D0, origin).
_Item = tuple[int, str, bytes, CoreBlock | None, Any]
_NEW, _RUNNING, _QUIESCING, _STOPPED = "new", "running", "quiescing", "stopped"

Console = Callable[[str], object]


@dataclass(frozen=True)
class Stats:
    """A snapshot of the dispatcher's counters.

    ``completed + failed <= created`` always holds; the difference is queued or running.
    CRETC entries count as created when their time is up.
    """

    created: int
    completed: int
    failed: int
    calls: dict[str, int]
    ready: int
    deferred: int
    low: int
    running: int
    timers: int
    discarded: int


class _IStream:
    """One I-stream thread and the counters only it writes."""

    __slots__ = ("calls", "completed", "ctx", "current", "failed", "number", "started", "thread")

    def __init__(self, number: int, ctx: EntryContext) -> None:
        self.number = number
        self.ctx = ctx
        self.thread: threading.Thread | None = None
        self.current: Ecb | None = None
        self.started = 0.0
        self.completed = 0
        self.failed = 0
        self.calls = ctx.calls


def _stderr_console(text: str) -> None:
    sys.stderr.write(text + "\n")


class Dispatcher:
    """Runs entries on I-stream threads; the create macros are its entry points.

    :param programs: the program table entries resolve program names in.
    :param istreams: how many I-stream threads serve the lists (>= 1).
    :param console: the console sink, a callable taking one line or block of text; dumps
        and quiesce reports go there (standard error if omitted).
    :param storage: working-storage accounting shared by every entry (default limits if
        omitted).
    :param max_nesting: most program levels an entry may use (root plus outstanding ENTRCs).
    :param dump_history: how many recent dumps :attr:`dumps` keeps.

    Entries created before :meth:`start` wait on their lists and run once it is called.
    Use as a context manager to start and stop.
    """

    def __init__(
        self,
        programs: Programs,
        istreams: int = 2,
        console: Console | None = None,
        *,
        storage: Storage | None = None,
        max_nesting: int = DEFAULT_MAX_NESTING,
        dump_history: int = 32,
    ) -> None:
        if istreams < 1:
            raise ValueError(f"istreams must be at least 1, not {istreams}")
        if max_nesting < 1:
            raise ValueError(f"max_nesting must be at least 1, not {max_nesting}")
        self.programs = programs
        self.storage = storage if storage is not None else Storage()
        self.console: Console = console if console is not None else _stderr_console
        self.max_nesting = max_nesting
        self._nstreams_wanted = istreams
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)  # I-streams sleep here
        self._quiet = threading.Condition(self._lock)  # wait_idle/stop sleep here
        self._lists: tuple[collections.deque[_Item], ...] = (
            collections.deque(),
            collections.deque(),
            collections.deque(),
        )
        self._state = _NEW
        self._accepting = True  # False from the moment stop() begins
        self._next_id = 0
        self._waiting = 0  # I-streams asleep and not yet claimed by a notify
        self._idle = 0  # I-streams in the idle section
        self._streams: list[_IStream] = []
        self._discarded = 0
        self._dumps: collections.deque[Dump] = collections.deque(maxlen=dump_history)
        self._timers = Timers(self._timer_fired, self._timer_failed)
        #: ROUTC's message router (:class:`ecb.routc.MessageRouter`), installed by the
        #: layer above; None until then (ROUTC is then a system error, E0601).
        self.router: MessageRouter | None = None

    # -- life cycle -------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"new"``, ``"running"``, ``"quiescing"`` or ``"stopped"``."""
        return self._state

    @property
    def istreams(self) -> int:
        """How many I-stream threads serve the lists."""
        return self._nstreams_wanted

    def start(self) -> Dispatcher:
        """Start the I-stream threads; entries already queued begin to run.

        :raises EcbError: if the dispatcher was already started or stopped.
        """
        with self._lock:
            if self._state != _NEW:
                raise EcbError(f"dispatcher is {self._state}; it can be started only once")
            self._state = _RUNNING
            for number in range(1, self._nstreams_wanted + 1):
                ctx = EntryContext(self.programs, self.storage, self.max_nesting, {}, self, number)
                stream = _IStream(number, ctx)
                stream.thread = threading.Thread(
                    target=self._serve, args=(stream,), name=f"I-stream {number}", daemon=True
                )
                self._streams.append(stream)
        for stream in self._streams:
            assert stream.thread is not None
            stream.thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> bool:
        """Quiesce: refuse new entries, let queued and running ones finish, stop the threads.

        Pending CRETC requests are cancelled and reported. Entries still running after
        ``timeout`` seconds are reported on the console (and keep their thread); entries
        still queued then are discarded and reported. Call it from outside any entry (an
        entry that calls it counts as still running).

        :returns: True if everything finished within ``timeout``.
        """
        with self._lock:
            if self._state == _STOPPED:
                return True
            started = self._state != _NEW
            self._state = _QUIESCING
            self._accepting = False
        cancelled = self._timers.shutdown()
        if cancelled:
            names = ", ".join(sorted({request[0] for request in cancelled}))
            self._say(f"ECBQ0001W {len(cancelled)} CRETC request(s) cancelled by quiesce: {names}")
        clean = self.wait_idle(timeout) if started else not any(self._lists)
        with self._lock:
            self._state = _STOPPED
            leftover = []
            for entries in self._lists:
                while entries:
                    leftover.append(entries.popleft())
            self._discarded += len(leftover)
            running = [
                (s.number, s.current, time.monotonic() - s.started)
                for s in self._streams
                if s.current is not None
            ]
            self._waiting = 0
            self._work.notify_all()
            self._quiet.notify_all()
        blocks = [item[3] for item in leftover if item[3] is not None]
        if blocks:
            self.storage.release_many(blocks)
        if leftover:
            self._say(f"ECBQ0002W {len(leftover)} queued entr(ies) discarded by quiesce")
        for number, ecb, seconds in running:
            self._say(
                f"ECBQ0003W ECB-{ecb.ecb_id} IS-{number:02d} still running after quiesce"
                f" timeout: programs {' > '.join(ecb.programs) or '(none)'},"
                f" running {seconds:.3f} s"
            )
        for stream in self._streams:
            if stream.thread is not None and stream.current is None:
                stream.thread.join(0.5)
        self._say(
            f"ECBQ0000I dispatcher stopped: {'clean' if clean and not running else 'timed out'}"
        )
        return clean and not running

    def __enter__(self) -> Dispatcher:
        if self._state == _NEW:
            self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def wait_idle(self, timeout: float | None = None, *, timers: bool = False) -> bool:
        """Wait until no entry is queued or running (and, with ``timers``, none is pending).

        Do not call it from inside an entry: the calling entry counts as running.

        :returns: False if ``timeout`` seconds passed first.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            while not self._is_quiet(timers):
                wait = None
                if deadline is not None:
                    wait = deadline - time.monotonic()
                    if wait <= 0:
                        return False
                if timers:  # a timer firing is not signalled here: poll for it
                    wait = 0.05 if wait is None else min(wait, 0.05)
                self._quiet.wait(wait)
            return True

    def _is_quiet(self, timers: bool) -> bool:
        ready, deferred, low = self._lists
        return (
            self._idle == len(self._streams)
            and not ready
            and not deferred
            and not low
            and not (timers and self._timers.pending)
        )

    # -- create macros ----------------------------------------------------------------------

    def cremc(self, name: str, params: bytes = b"", *, origin: Any = None) -> None:
        """Create an entry for program ``name`` on the ready list. Equivalent to CREMC.

        Up to 104 bytes of ``params`` are copied to EBW000 of the new ECB.

        :raises ValueError: bad program name.
        :raises TpfSystemError: E0301 parameters longer than 104 bytes.
        :raises DispatcherStopped: while quiescing or stopped.
        """
        self._create("CREMC", name, params, None, origin, _READY)

    def credc(self, name: str, params: bytes = b"", *, origin: Any = None) -> None:
        """Create an entry on the deferred list (run when the ready list is empty). CREDC."""
        self._create("CREDC", name, params, None, origin, _DEFERRED)

    def crexc(self, name: str, params: bytes = b"", *, origin: Any = None) -> None:
        """Create a low-priority entry (run when ready and deferred are empty). CREXC.

        :raises StorageShort: while working storage is short (see :mod:`ecb.storage`).
        """
        self._create("CREXC", name, params, None, origin, _LOW)

    def creec(
        self,
        name: str,
        block: bytes | bytearray | memoryview,
        params: bytes = b"",
        *,
        deferred: bool = False,
        origin: Any = None,
    ) -> None:
        """Create an entry whose D0 holds a copy of ``block``. Equivalent to CREEC.

        The data goes into the smallest core block that holds it (counted in storage from
        now until the entry releases it). ``deferred`` selects CREEC_DEFERRED.

        :raises TpfSystemError: E0104 if ``block`` is longer than 4095 bytes, E0105 if no
            block of that size is free, E0301 parameters too long.
        """
        data = memoryview(block).cast("B")
        block_type = BlockType.for_size(data.nbytes)
        if block_type is None:
            raise TpfSystemError(
                ErrorCode.BAD_BLOCK_SIZE,
                "CREEC",
                f"{data.nbytes} bytes do not fit a core block (the largest, L4, holds"
                f" {MAX_BLOCK_SIZE})",
                program=name,
            )
        core = self.storage.allocate(block_type, macro="CREEC")
        bytearray.__setitem__(core, slice(0, data.nbytes), data)
        try:
            self._create("CREEC", name, params, core, origin, _DEFERRED if deferred else _READY)
        except BaseException:
            self.storage.release(core)
            raise

    def cretc(self, name: str, seconds: float, params: bytes = b"", *, origin: Any = None) -> None:
        """Create an entry for ``name`` on the ready list after ``seconds``. CRETC.

        ``params`` is CRETC's action word: at most 4 bytes, given to EBW000-EBW003. The
        entry counts as created when the time is up. Requests still pending at
        :meth:`stop` are cancelled and reported.

        :raises ValueError: bad name or negative ``seconds``.
        :raises TpfSystemError: E0301 for more than 4 bytes of ``params``.
        """
        check_name(name)
        params = self._check_params("CRETC", name, params, CRETC_PARAMS)
        if not seconds >= 0:
            raise ValueError(f"CRETC {name}: seconds must be >= 0, not {seconds!r}")
        if not self._accepting:
            raise DispatcherStopped("CRETC", name, f"the dispatcher is {self._state}")
        try:
            self._timers.add(seconds, (name, params, origin))
        except RuntimeError:
            raise DispatcherStopped("CRETC", name, f"the dispatcher is {self._state}") from None

    @staticmethod
    def _check_params(macro: str, name: str, params: bytes, limit: int = MAX_PARAMS) -> bytes:
        if type(params) is not bytes:
            params = bytes(params)
        if len(params) > limit:
            what = "the action word" if limit == CRETC_PARAMS else "EBW000"
            raise TpfSystemError(
                ErrorCode.PARAMETERS_TOO_LONG,
                macro,
                f"{len(params)} bytes of parameters for {name}; at most {limit} fit in {what}",
            )
        return params

    def _create(
        self,
        macro: str,
        name: str,
        params: bytes,
        block: CoreBlock | None,
        origin: Any,
        which: int,
    ) -> None:
        """Queue one entry on list ``which``; the hot path of every create macro."""
        if name not in _known_names:
            check_name(name)
        if type(params) is not bytes or len(params) > MAX_PARAMS:
            params = self._check_params(macro, name, params)
        if which == _LOW and self.storage.is_short():
            short = ", ".join(t.name for t in self.storage.short_types()) or "blocks"
            raise StorageShort(macro, name, f"working storage is short ({short})")
        with self._lock:
            if not self._accepting:
                raise DispatcherStopped(macro, name, f"the dispatcher is {self._state}")
            self._next_id = entry_id = self._next_id + 1
            self._lists[which].append((entry_id, name, params, block, origin))
            if self._waiting:
                self._waiting -= 1
                self._work.notify()

    def _timer_fired(self, request: tuple[str, bytes, Any]) -> None:
        name, params, origin = request
        try:
            self._create("CRETC", name, params, None, origin, _READY)
        except DispatcherStopped:  # quiesce began while this request was being fired
            self._say(f"ECBQ0001W 1 CRETC request(s) cancelled by quiesce: {name}")

    def _timer_failed(self, exc: BaseException) -> None:
        self._say(f"ECBQ0004E CRETC timer could not create an entry: {exc}")

    # -- I-streams --------------------------------------------------------------------------

    def _serve(self, stream: _IStream) -> None:
        """The I-stream loop: pop the ready list lock-free; fall back to the slow path."""
        ready = self._lists[_READY]
        run_one = self._run_one
        next_item = self._next_item
        while True:
            item: _Item | None
            try:
                item = ready.popleft()
            except IndexError:
                item = next_item()
                if item is None:
                    return
            run_one(stream, item)

    def _next_item(self) -> _Item | None:
        """Take the next entry in list order, sleeping while there is none; None = stop."""
        with self._lock:
            while True:
                for entries in self._lists:
                    try:
                        return entries.popleft()
                    except IndexError:
                        pass
                if self._state == _STOPPED:
                    return None
                self._idle += 1
                if self._idle == len(self._streams):
                    self._quiet.notify_all()
                self._waiting += 1
                self._work.wait()
                self._idle -= 1

    def _run_one(self, stream: _IStream, item: _Item) -> None:
        """Run one entry to completion on ``stream``."""
        entry_id, name, params, block, origin = item
        ecb = new_entry_ecb(stream.ctx, entry_id, params, origin)
        if block is not None:
            ecb._give_block(block)
        stream.started = time.monotonic()
        stream.current = ecb
        try:
            run_entry(ecb, name)
        except BaseException as exc:  # noqa: B036 - any escape ends this entry only
            self._entry_failed(stream, ecb, exc)
        else:
            if ecb._held or ecb._detached:
                ecb._release_storage()
            else:
                ecb._done = True
            stream.completed += 1
        stream.current = None

    def _entry_failed(self, stream: _IStream, ecb: Ecb, exc: BaseException) -> None:
        notes: tuple[str, ...] = ()
        try:
            violation = ecb._exit_violations()
            if violation is not None:
                notes = (f"EXITC cleanup: {violation.detail}",)
            dump = build_dump(ecb, error=exc, notes=notes)
        except BaseException as dump_exc:  # noqa: B036 - never lose the I-stream
            dump = None
            self._say(f"ECBQ0005E dump of ECB-{ecb.ecb_id} failed: {dump_exc!r} (error: {exc!r})")
        finally:
            try:
                ecb._release_storage()
            except BaseException as rel_exc:  # noqa: B036
                self._say(f"ECBQ0006E ECB-{ecb.ecb_id} storage release failed: {rel_exc!r}")
            stream.failed += 1
        if dump is not None:
            self._dumps.append(dump)
            self._say(dump.text)

    def _snap(self, ecb: Ecb, detail: str, kind: str = "SNAPC") -> None:
        """SNAPC (or SERRC with return): dump ``ecb`` to the console and keep going."""
        dump = build_dump(ecb, kind=kind, message=detail)
        self._dumps.append(dump)
        self._say(dump.text)

    def _say(self, text: str) -> None:
        try:
            self.console(text)
        except Exception:  # a broken console sink must not stop the system
            _stderr_console(text)

    # -- inquiry ----------------------------------------------------------------------------

    @property
    def dumps(self) -> list[Dump]:
        """The most recent dumps (system errors and snapshots), oldest first."""
        return list(self._dumps)

    def stats(self) -> Stats:
        """A snapshot of the counters: entries created, completed, failed; calls per program."""
        streams = list(self._streams)
        completed = sum(s.completed for s in streams)
        failed = sum(s.failed for s in streams)
        calls: dict[str, int] = {}
        for stream in streams:
            for name, count in stream.calls.copy().items():
                calls[name] = calls.get(name, 0) + count
        ready, deferred, low = self._lists
        return Stats(
            created=self._next_id,
            completed=completed,
            failed=failed,
            calls=calls,
            ready=len(ready),
            deferred=len(deferred),
            low=len(low),
            running=sum(1 for s in streams if s.current is not None),
            timers=self._timers.pending,
            discarded=self._discarded,
        )

    def __repr__(self) -> str:
        return f"<Dispatcher {self._state} {self._nstreams_wanted} I-stream(s)>"
