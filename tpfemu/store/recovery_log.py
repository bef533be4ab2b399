"""The recovery log of persistent messages, written with group commit.

Every PUT of a persistent message, every GET of one, and the COMMIT or BACKOUT of each unit
of work that did either, go to the log in ``<home>/recovery-log`` (an LMDB environment).
Restart (:mod:`tpfemu.store.recovery`) replays the log after the last checkpoint.

**Appending and waiting.** :meth:`RecoveryLog.append` takes records and returns at once
with a :class:`Ticket`: the records have their log sequence numbers (LSNs, consecutive, in
the order given) and will be written in that order after everything appended before
them. :meth:`Ticket.wait` returns when they are durable; :meth:`RecoveryLog.commit` is
append + wait. So a queue manager appends under its queue lock (cheap: no I/O) and waits
after releasing it; the queue lock is never held across a sync.

**Deferred records.** ``append(records, defer=True)`` queues records that nobody waits for
yet, such as the Put of a message put in syncpoint: they do not start a batch of their
own, but go with the next batch that something waits on (a later ``commit`` or plain
``append``, a ``wait`` on their own ticket, or ``close``), still in LSN order. A unit of
work's records and its Commit thus usually share one batch and one sync, where each
record would otherwise have had its own.

**Group commit.** One logger thread takes *every* record appended while it was writing and
syncing the previous batch, writes them as one LMDB value in one write transaction, syncs
once, then wakes every waiter of that batch. A record is durable when its batch's sync
has returned, and not before: :attr:`RecoveryLog.durable_lsn` says how far that is.
Batches are numbered in the order they are written; a committer waits on its batch's
number in C (:class:`~tpfemu._lowlevel.LogGate`, without the GIL), and every waiter of a
synced batch is woken with one call that holds neither the GIL nor a lock of the
log, so the woken committers run (and gather the next batch) while nothing else needs the
GIL. The logger writes the transaction of the batch that gathered during a sync, has a
second thread (the waker) wake the synced batch's waiters, and syncs the new batch at
once: the woken committers run while the sync runs (see ``_run``). A committer
that finds the log idle writes and syncs its own batch instead of handing it to the
logger (two thread switches less for a lone committer).

**Sync mode.** ``"envsync"`` (default) opens the environment with ``sync=False,
metasync=False`` and calls ``env.sync()`` after each batch: one fdatasync per batch.
``"commit"`` leaves LMDB's own sync on: two fsyncs per batch (data pages, then meta page).
Measured on the dev box (2 vCPU, ext4 on virtio, 1 KB messages, medians of 3 runs),
messages/s for envsync / commit: one committer 2 880 / 1 870; 16 threads committing one
message each 14 900 / 9 200; 16 threads committing 16 messages each 136 000 / 105 000.
What ``"commit"`` buys: a power failure *during* a sync can never leave the newest meta
page pointing at pages that did not reach the disk; with ``"envsync"`` the OS may write
them in any order, so an OS crash mid-sync can damage the newest transaction (as LMDB
documents for MDB_NOSYNC). A killed *process* loses nothing acknowledged in either mode:
committed pages are in the page cache.

**Records.** Only for persistent messages. ``Put(queue, data, msg_id, ...)`` (the
message key of the put message is its record's LSN), ``Get(queue, key, ...)`` naming the
message by that key, ``Commit(uow)`` and ``Backout(uow)``. A Put or Get with ``uow=0``
is outside syncpoint: it is committed by itself. Units of work are scoped to one
*incarnation* of the log (one open), so a unit-of-work number reused after a restart is a
different unit of work.

**Storage full.** A batch that does not fit (map at its ceiling, or disk full) is not
written; each of its tickets raises :class:`~tpfemu.errors.StorageFull` from ``wait``.
Every unit of work with a record in it is *doomed*: its later Commit is written as a
Backout and its ticket raises StorageFull too, so a commit never finds some of its records
missing. Nothing written before is touched. A failed *sync* breaks the log: what it
covered may or may not be on disk, so nothing more is written: every later append
returns a ticket whose ``wait`` raises the error that broke the log (an append does not
raise, so that a queue manager that appended under its queue lock after changing the
queue in memory undoes the change as for any failed wait).

**Trimming.** :meth:`RecoveryLog.trim` deletes records before an LSN once a checkpoint
covers them (see :mod:`tpfemu.store.checkpoint` for which LSN that is).

The records and their layout on disk are in :mod:`tpfemu.store.log_records`.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

from tpfemu import errors
from tpfemu._lowlevel import LogGate
from tpfemu.mq import cmqc
from tpfemu.store.lmdbenv import DEFAULT_MAX_MAP_SIZE, LmdbEnv, MiB, claim_writer
from tpfemu.store.log_records import (
    BACKOUT,
    BATCH,
    LOG_DB,
    LSN,
    MAGIC,
    META_DB,
    QUEUES_DB,
    REC,
    U32,
    U64,
    Backout,
    Commit,
    Get,
    LogRecord,
    Put,
    Record,
    decode_batch,
    encode_records,
    read_batches,
)

__all__ = ["Backout", "Commit", "Get", "LogRecord", "Put", "Record", "RecoveryLog", "Ticket"]

_INCARNATION, _FLOOR = b"incarnation", b"floor"
_TRIM_STEP = 2048  # batches deleted per write transaction by trim
_LINGER_MAX = 0.002  # seconds the logger may wait for a batch's usual callers
_LINGER_SHARE = 0.5  # ... and at most this share of the last sync's time


# -- tickets and batches ------------------------------------------------------------------


class _Batch:
    """Records appended while the logger was busy: written and synced together.

    Batches are numbered (``seq``) in the order they are written, and finish in that
    order: the waiters of batch n wait on the log's :class:`LogGate` for n. Whether a
    batch is finished is the gate's to say (:attr:`finished`): finishing a number
    finishes every batch below it too. A batch numbered 0 (appended to a broken log,
    never written) is finished from the start.
    """

    __slots__ = ("first_lsn", "parts", "count", "uows", "closing", "committers", "seq",
                 "gate", "error", "urgent", "waiting")  # fmt: skip

    def __init__(self, first_lsn: int, seq: int, gate: LogGate) -> None:
        self.first_lsn = first_lsn
        self.parts: list[bytes] = []
        self.count = 0
        self.uows: set[int] = set()  # units of work with a record here
        self.closing: set[int] = set()  # units of work committed or backed out here
        # (ticket, index in parts, its Commits' (byte offset, uow)), for _refuse_doomed
        self.committers: list[tuple[Ticket, int, list[tuple[int, int]]]] = []
        self.seq = seq
        self.gate = gate
        self.error: errors.TpfEmuError | None = None
        self.urgent = False  # something waits on it: the logger must write it
        self.waiting = 0  # appends not deferred (their callers wait, or will)

    @property
    def finished(self) -> bool:
        """Whether the batch is written (or failed), and its waiters woken or waking."""
        return self.gate.finished >= self.seq

    def finish(self) -> None:
        """Mark the batch written (or failed) and wake every waiter, with one call into C
        that holds neither the GIL nor a lock of the log (nothing if already finished)."""
        self.gate.finish(self.seq)


class Ticket:
    """The receipt of an append: the records' LSNs, and a way to wait until durable."""

    __slots__ = ("lsn", "count", "_batch", "error", "_log")

    def __init__(self, log: RecoveryLog, batch: _Batch, lsn: int, count: int) -> None:
        self.lsn = lsn  # LSN of the first record; record i has lsn + i
        self.count = count
        self._log = log
        self._batch = batch
        self.error: errors.TpfEmuError | None = None  # this ticket's own failure

    @property
    def lsns(self) -> range:
        """The LSNs of the records, in the order they were given."""
        return range(self.lsn, self.lsn + self.count)

    @property
    def durable(self) -> bool:
        """True once the records are on disk (and did not fail). (A batch's error, if
        any, is set before it or a later batch finishes.)"""
        b = self._batch
        return b.finished and b.error is None and self.error is None

    def wait(self, timeout: float | None = None) -> Ticket:
        """Return when the records are durable (self, for chaining).

        :raises StorageFull: the batch did not fit, or the ticket commits a unit of work
            that lost records to an earlier full batch; nothing of it is in the log.
        :raises FileSystemError: a sync failed (this batch's, or an earlier one's that
            broke the log): the records' durability is unknown, or they were not written.
        :raises TimeoutError: not durable after ``timeout`` seconds (still pending).
        """
        b = self._batch
        if not b.urgent:  # deferred: have it written now (nothing, once it is written)
            self._log._urge(b)
        # (the gate's wait returns at once for a finished batch: no check of it first)
        if not b.gate.wait(b.seq, timeout):
            raise TimeoutError(f"log records {self.lsn}.. not durable after {timeout} s")
        error = self.error or b.error
        if error is not None:
            raise error
        return self


# -- the log ------------------------------------------------------------------------------


class RecoveryLog:
    """The recovery log under ``home`` (``<home>/recovery-log``), with its logger thread.

    :param map_size, max_map_size: the environment's initial map and growth ceiling.
    :param sync_mode: ``"envsync"`` or ``"commit"`` (see the module docstring).
    :param preformat: bytes of log to format (fill with zeros) on creation, so that
        appends overwrite allocated blocks and a sync flushes no file size change (about
        15% more commits per second for a lone committer here); default the initial map
        size, 0 for none.

    One RecoveryLog writes a home's log at a time, in any process (a second one raises
    ObjectInUse; a killed writer's claim goes with it); other processes may read the log
    meanwhile (e.g. :func:`tpfemu.store.recovery.recover`).
    """

    def __init__(
        self,
        home: str | Path,
        *,
        map_size: int = 64 * MiB,
        max_map_size: int = DEFAULT_MAX_MAP_SIZE,
        sync_mode: Literal["envsync", "commit"] = "envsync",
        preformat: int | None = None,
    ) -> None:
        if sync_mode not in ("envsync", "commit"):
            raise ValueError(f"sync_mode must be 'envsync' or 'commit', not {sync_mode!r}")
        self.home = Path(home)
        self.sync_mode = sync_mode
        envsync = sync_mode == "envsync"
        path = self.home / "recovery-log"
        self._owner = claim_writer(path)
        try:
            self._env = LmdbEnv(
                path, map_size=map_size, max_map_size=max_map_size,
                dbs=(LOG_DB, QUEUES_DB, META_DB), sync=not envsync, metasync=not envsync,
                preformat=map_size if preformat is None else preformat,
            )  # fmt: skip
        except BaseException:
            os.close(self._owner)
            raise
        self._log = self._env.db(LOG_DB)
        self._queues_db = self._env.db(QUEUES_DB)
        self._meta = self._env.db(META_DB)
        self._qids: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._unwritten: dict[str, int] = {}  # queue ids not yet in a written batch
        try:
            next_lsn = self._load()
            self.incarnation = self._env.write(self._new_incarnation, call="open",
                                               obj=str(home))  # fmt: skip
            self._env.sync()
        except BaseException:
            self._env.close()
            os.close(self._owner)
            raise
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._next_lsn = next_lsn
        self.durable_lsn = next_lsn - 1
        self._open: _Batch | None = None
        self._gate = LogGate()
        self._batches = 0  # the number of the last batch made
        self._doomed: set[int] = set()  # (logger thread only)
        self._broken: errors.TpfEmuError | None = None
        self._closing = False
        self._busy = False  # a batch is being written (by the logger or a committer)
        self._siblings = 0  # appends not deferred in the last batch the logger wrote
        self._linger_for = 0.0  # at most this long (s) the logger waits for them again
        self.stats = {"batches": 0, "records": 0, "syncs": 0, "largest_batch": 0}
        self._logger = threading.Thread(target=self._run, name="tpfemu-logger", daemon=True)
        # synced batches whose waiters the waker is to wake; None stops it
        self._woken: queue.SimpleQueue[_Batch | None] = queue.SimpleQueue()
        self._waker = threading.Thread(target=self._wake_waiters, name="tpfemu-log-waker",
                                       daemon=True)
        self._waker.start()
        self._logger.start()

    def _load(self) -> int:
        """Read the queue ids and return the next LSN to assign."""
        with self._env.read() as txn:
            for name, qid in txn.cursor(db=self._queues_db):
                self._qids[bytes(name).decode()] = U32.unpack(qid)[0]
            self._names = {qid: name for name, qid in self._qids.items()}
            floor = txn.get(_FLOOR, db=self._meta)
            next_lsn = max(U64.unpack(floor)[0] if floor else 1, 1)
            cur = txn.cursor(db=self._log)
            if cur.last():
                first = LSN.unpack(cur.key())[0]
                # (an empty last batch, which versions before 2026-11-22 could write,
                # still holds its key: the next batch must come after it)
                next_lsn = max(next_lsn, first + max(BATCH.unpack_from(cur.value())[2], 1))
        return next_lsn

    def _new_incarnation(self, txn) -> int:
        old = txn.get(_INCARNATION, db=self._meta)
        incarnation = (U32.unpack(old)[0] if old else 0) + 1
        txn.put(_INCARNATION, U32.pack(incarnation), db=self._meta)
        return incarnation

    # -- appending ----------------------------------------------------------------------

    @property
    def next_lsn(self) -> int:
        """The LSN the next appended record will get (every LSN below it is assigned).

        Not a replay point: LSNs of records not yet durable are assigned again after a
        crash. Use :attr:`replay_point`.
        """
        return self._next_lsn

    @property
    def replay_point(self) -> int:
        """The LSN after the last durable record: the replay point of a checkpoint whose
        snapshot is taken now, unless a unit of work is in flight (then the first LSN of
        its records, if lower). See :mod:`tpfemu.store.checkpoint`."""
        return self.durable_lsn + 1

    def _qid(self, queue: str) -> int:
        qid = self._qids.get(queue)
        if qid is None:
            with self._lock:
                qid = self._qids.get(queue)
                if qid is None:
                    if not queue or len(queue.encode()) > 255:
                        raise ValueError(f"queue name must be 1-255 bytes: {queue!r}")
                    qid = len(self._qids) + 1
                    self._qids[queue] = qid
                    self._names[qid] = queue
                    self._unwritten[queue] = qid
        return qid

    def queue_id(self, queue: str) -> int:
        """The id the records of ``queue`` carry (given on first use; the name is written
        with the next batch)."""
        return self._qid(queue)

    def append_encoded(self, record: bytes, uow: int) -> Ticket:
        """Queue one Put or Get record already encoded (by a put or get plan in C,
        ``tpf_log_put_record`` or ``tpf_log_record``, with a :meth:`queue_id`) and
        return its ticket: the same as ``append([record], defer=bool(uow))`` for the
        record it encodes (``uow`` 0: outside syncpoint, not deferred)."""
        return self._enqueue(record, 1, {uow} if uow else None, None, None, False,
                             bool(uow))[0]  # fmt: skip

    def append(self, records: Sequence[Record], *, defer: bool = False) -> Ticket:
        """Queue ``records`` for the log and return at once with their ticket.

        Thread-safe and cheap (no I/O): call it under a queue lock, then ``wait`` on the
        ticket outside it. The records get consecutive LSNs and are written after every
        record appended before them.

        :param defer: nobody waits for these records yet: write them with the next batch
            that something waits on, not in a batch of their own (see the module
            docstring). Waiting on the ticket has them written.
        :raises ValueError: ``records`` is empty.
        :raises TpfEmuError: the log is closed. (On a log broken by a failed sync the
            ticket's ``wait`` raises that sync's error.)
        """
        return self._append(records, False, defer)[0]

    def commit(self, records: Sequence[Record], timeout: float | None = None) -> Ticket:
        """Append ``records`` and return when they are durable (see :meth:`Ticket.wait`).

        When the log is idle (no batch being written, nothing queued) the calling thread
        writes and syncs its records itself instead of handing them to the logger thread:
        the same single write + single sync, without two thread switches. A lone
        committer thus pays about one fdatasync per commit.
        """
        ticket, batch, names = self._append(records, True, False)
        if batch is not None:
            done = False
            try:
                self._write(batch, names)
                done = True
            finally:
                if not done:  # interrupted (KeyboardInterrupt): durability unknown
                    batch.error = batch.error or errors.InternalError("commit interrupted")
                batch.finish()
                with self._lock:
                    self._busy = False
                    if self._ready():  # the logger takes over
                        self._wake.notify()
        return ticket.wait(timeout)

    def _ready(self) -> bool:
        """Whether the open batch is to be written now (under ``_lock``)."""
        batch = self._open
        return batch is not None and (batch.urgent or self._closing)

    def _urge(self, batch: _Batch) -> None:
        """Someone waits on deferred ``batch``: have the logger write it."""
        with self._lock:
            if not batch.urgent:
                batch.urgent = True
                if self._open is batch:
                    self._wake.notify()

    def _append(self, records: Sequence[Record], inline: bool, defer: bool):
        """Queue records; with ``inline``, claim the open batch for the caller if the log
        is idle; with ``defer``, leave it for a later batch (see :meth:`append`).

        Returns (ticket, batch to write or None, queue names to write with it).
        """
        count = len(records)
        if not count:  # (a batch of none would share its key with the next batch)
            raise ValueError("recovery log: nothing to append (no records)")
        data, uows, commits, closing = encode_records(records, self._qids, self._qid)
        return self._enqueue(data, count, uows, commits, closing, inline, defer)

    def _enqueue(self, data: bytes, count: int, uows: set[int] | None,
                 commits: list[tuple[int, int]] | None, closing: list[int] | None,
                 inline: bool, defer: bool) -> tuple[Ticket, _Batch | None, list]:  # fmt: skip
        """:meth:`_append` for records encoded: ``count`` records in ``data``, with the
        units of work they name, their Commits (byte offset, uow) and the units of work
        they end."""
        claimed = None
        names: list[tuple[str, int]] = []
        with self._lock:
            if self._broken is not None:
                return self._unwritable(count), None, names
            if self._closing:
                raise errors.TpfEmuError(f"recovery log {str(self.home)!r} is closed")
            batch = self._open
            if batch is None:
                self._batches += 1
                batch = self._open = _Batch(self._next_lsn, self._batches, self._gate)
            if not defer:
                batch.waiting += 1
                # (an urgent batch is the logger's already: it was woken to write it)
                if inline and not self._busy and not batch.urgent:
                    self._busy = True
                    self._open = None
                    claimed = batch
                    names = list(self._unwritten.items())
                elif not batch.urgent:
                    batch.urgent = True
                    self._wake.notify()
                elif batch.waiting == self._siblings:  # the logger may linger for this one
                    self._wake.notify()
            ticket = Ticket(self, batch, self._next_lsn, count)
            self._next_lsn += count
            if commits:
                batch.committers.append((ticket, len(batch.parts), commits))
            batch.parts.append(data)
            batch.count += count
            if uows:
                batch.uows |= uows
            if closing:
                batch.closing.update(closing)
        return ticket, claimed, names

    def _unwritable(self, count: int) -> Ticket:
        """(under ``_lock``) The ticket of ``count`` records appended to a broken log: they
        get LSNs but are never written, and waiting on the ticket raises the error that
        broke the log. The caller tracks them as any others, so what it undoes when a
        wait fails (a put outside syncpoint taken back, a get's message given back, a
        unit of work backed out) is undone here too."""
        batch = _Batch(self._next_lsn, 0, self._gate)  # (number 0: finished already)
        batch.error = self._broken
        ticket = Ticket(self, batch, self._next_lsn, count)
        self._next_lsn += count
        return ticket

    # -- the writer: the logger thread, or a committer that found the log idle ---------

    def _run(self) -> None:
        """The logger: write the batch that gathered while the previous one synced, sync
        it, and wake its waiters (one call into C, without the GIL).

        Pipelined: once a batch is synced, the logger first writes (the LMDB transaction,
        no sync) the batch that gathered meanwhile, if one is ready, then hands the synced
        batch to the waker thread (:meth:`_wake_waiters`) and syncs the new batch. The
        woken committers run their Python while that sync runs, instead of the logger's
        LMDB calls, each of which lets the GIL go, waiting for the GIL behind them; and
        their next commits gather for the batch after. The waiters of a synced batch are
        handed over after the next batch's transaction, and woken while its sync runs.

        The waker, not the logger, wakes them: the call that wakes them lets the GIL go,
        and the logger, taking it back, queued behind the committers it had just woken
        before it could start the sync (36-74 us of a 211-269 us cycle). Handing the
        batch over costs the logger a queue's put instead: 16 threads committing 1 KB,
        1.13-1.15x the commits a second (bench_persist.py, bench/README.md).
        """
        synced: _Batch | None = None  # synced; its waiters not woken yet
        while True:
            with self._lock:
                if synced is None:
                    self._busy = False
                    while not self._ready() or self._busy:
                        if self._closing and self._open is None and not self._busy:
                            return
                        self._wake.wait()
                    self._linger()
                batch, names = self._take() if self._ready() else (None, [])
            written = batch is not None and self._write_txn(batch, names)
            if synced is not None:
                if written:  # (a sync follows at once: the waker wakes them meanwhile)
                    self._woken.put(synced)
                else:
                    synced.finish()
                synced = None
            if batch is not None:
                if written and self._sync_batch(batch):
                    synced = batch
                else:
                    batch.finish()

    def _wake_waiters(self) -> None:
        """The waker: finish each synced batch the logger hands over, in order, until it
        hands None. Batches finish in order however the two threads interleave: a batch
        the logger finishes itself comes after every batch it handed over, and finishing
        a batch's number on the gate also finishes those before it (the waker's finish of
        such a batch, when it reaches it, does nothing more)."""
        get = self._woken.get
        while (batch := get()) is not None:
            batch.finish()

    def _take(self) -> tuple[_Batch, list[tuple[str, int]]]:
        """(under ``_lock``) The open batch, for the logger to write, with the queue names
        not written yet."""
        batch, self._open = self._open, None
        assert batch is not None  # (_ready: a batch is open)
        self._busy = True
        self._siblings = batch.waiting
        return batch, list(self._unwritten.items())

    def _linger(self) -> None:
        """Let the open batch gather as many callers as the last one had (under
        ``_lock``), for at most half the last sync's time (and 2 ms).

        The committers woken by the last batch append their next commits one after the
        other (each needs the GIL); the first makes the batch urgent. Taking it then
        would sync one or two commits and leave the rest to the sync after, so the
        logger waits, briefly, for the others: one sync for them all. A caller that does
        not come back costs that wait once (the next batch expects only those that did).
        """
        batch = self._open
        if batch is None or batch.waiting >= self._siblings or self._closing:
            return
        deadline = time.monotonic() + self._linger_for
        while batch.waiting < self._siblings and not self._closing:
            left = deadline - time.monotonic()
            if left <= 0 or not self._wake.wait(left):
                return

    def _write(self, batch: _Batch, names: list[tuple[str, int]]) -> None:
        """Write one batch in one transaction and sync once (the one busy writer)."""
        if self._write_txn(batch, names):
            self._sync_batch(batch)

    def _write_txn(self, batch: _Batch, names: list[tuple[str, int]]) -> bool:
        """:meth:`_commit`, failing the batch on an unexpected error; True if written."""
        try:
            return self._commit(batch, names)
        except Exception as exc:  # a bug: fail the waiters rather than hang them
            self._fail(exc, batch)
            return False
        finally:
            # What only the write needed goes now: the records' bytes, and the committers'
            # tickets, which refer to the batch (a cycle that only the garbage collector
            # would break, keeping every batch, its tickets and records until it ran).
            batch.parts.clear()
            batch.committers.clear()

    def _sync_batch(self, batch: _Batch) -> bool:
        """:meth:`_sync`, failing the batch on an unexpected error; True if durable."""
        try:
            return self._sync(batch)
        except Exception as exc:  # a bug: fail the waiters rather than hang them
            self._fail(exc, batch)
            return False

    def _fail(self, exc: Exception, batch: _Batch) -> None:
        """An unexpected error while writing: break the log and fail the batch's waiters."""
        error = errors.InternalError(f"recovery log writer failed: {exc!r}")
        error.__cause__ = exc
        with self._lock:
            self._broken = self._broken or error
        if not batch.finished:
            batch.error = batch.error or error
            batch.finish()

    def _commit(self, batch: _Batch, names: list[tuple[str, int]]) -> bool:
        """Write one batch in one transaction; False (batch.error set) if it failed."""
        if self._doomed:
            self._refuse_doomed(batch)
        value = b"".join([BATCH.pack(MAGIC, self.incarnation, batch.count, 0), *batch.parts])
        key = LSN.pack(batch.first_lsn)

        def put(txn) -> None:
            for name, qid in names:
                txn.put(name.encode(), U32.pack(qid), db=self._queues_db)
            if not txn.put(key, value, append=True, db=self._log):  # (LMDB's KEYEXIST)
                raise errors.InternalError(f"recovery log: batch {batch.first_lsn} is not "
                                           "after the last batch written; not written")  # fmt: skip

        try:
            self._env.write(put, call="MQCMIT", obj="recovery log")
        except errors.TpfEmuError as exc:
            batch.error = exc
            self._doomed |= batch.uows - batch.closing
            return False
        if names:
            with self._lock:
                for name, _ in names:
                    self._unwritten.pop(name, None)
        return True

    def _sync(self, batch: _Batch) -> bool:
        """Make a written batch durable (one fdatasync); False if the sync failed, which
        breaks the log."""
        try:
            if self.sync_mode == "envsync":
                started = time.monotonic()
                self._env.sync()
                self._linger_for = min((time.monotonic() - started) * _LINGER_SHARE, _LINGER_MAX)
        except errors.TpfEmuError as exc:
            batch.error = exc
            with self._lock:
                self._broken = exc
            return False
        self.durable_lsn = batch.first_lsn + batch.count - 1
        stats = self.stats
        stats["batches"] += 1
        stats["syncs"] += 1
        stats["records"] += batch.count
        stats["largest_batch"] = max(stats["largest_batch"], batch.count)
        return True

    def _refuse_doomed(self, batch: _Batch) -> None:
        """Write the Commit of a doomed unit of work as a Backout, and fail its ticket."""
        for ticket, index, commits in batch.committers:
            for offset, uow in commits:
                if uow in self._doomed:
                    part = batch.parts[index]
                    batch.parts[index] = b"".join((part[:offset], REC.pack(BACKOUT, 0, 0, uow, 0),
                                                   part[offset + REC.size :]))  # fmt: skip
                    ticket.error = errors.error_for(
                        cmqc.MQRC_STORAGE_MEDIUM_FULL, call="MQCMIT", obj="recovery log"
                    )
        self._doomed -= batch.closing

    # -- trimming, replay, closing ------------------------------------------------------

    def trim(self, upto_lsn: int) -> int:
        """Delete the batches whose records all have LSNs below ``upto_lsn``; return how many.

        Call it once a checkpoint of every queue covers everything below ``upto_lsn``.
        Not synced by itself (a trim lost in a crash only means more replay); runs in
        short transactions so commits keep flowing.
        """
        upto_lsn = min(upto_lsn, self.replay_point)  # never past what is durable
        deleted = 0
        while True:
            n = self._env.write(lambda txn: self._trim_some(txn, upto_lsn), call="trim",
                                reclaim=True)  # fmt: skip
            deleted += n
            if n < _TRIM_STEP:
                return deleted

    def _trim_some(self, txn, upto_lsn: int) -> int:
        floor = txn.get(_FLOOR, db=self._meta)
        if not floor or U64.unpack(floor)[0] < upto_lsn:
            txn.put(_FLOOR, U64.pack(upto_lsn), db=self._meta)
        cur = txn.cursor(db=self._log)
        n = 0
        if not cur.first():
            return 0
        while n < _TRIM_STEP:
            key = cur.key()
            if not key:  # deleted the last batch
                break
            if LSN.unpack(key)[0] + BATCH.unpack_from(cur.value())[2] > upto_lsn:
                break
            cur.delete()
            n += 1
        return n

    def replay(self, from_lsn: int = 0) -> Iterator[LogRecord]:
        """Every record with an LSN at or above ``from_lsn``, in LSN order.

        Reads one snapshot (records appended meanwhile are not seen). Do not wait for a
        commit of this log while iterating (see :meth:`LmdbEnv.read`).
        """
        names = dict(self._names)
        for first, incarnation, value in self.batches(from_lsn):
            yield from decode_batch(first, incarnation, value, names, from_lsn)

    def batches(self, from_lsn: int = 0) -> Iterator[tuple[int, int, bytes]]:
        """(first LSN, incarnation, records) of each batch holding LSNs >= ``from_lsn``."""
        yield from read_batches(self._env, from_lsn)

    @property
    def env(self) -> LmdbEnv:
        """The log's environment (for readers in this process, e.g. recovery)."""
        return self._env

    @property
    def queue_names(self) -> dict[int, str]:
        """Queue id -> name, for :func:`decode_batch`."""
        return dict(self._names)

    def close(self) -> None:
        """Write and sync everything appended, stop the logger, close the environment."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._wake.notify()
        self._logger.join()
        self._woken.put(None)
        self._waker.join()
        self._env.close()
        os.close(self._owner)  # releases the writer lock

    def __enter__(self) -> RecoveryLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
