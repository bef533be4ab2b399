"""Persistent messages of processor-unique (memory) queues: the recovery log, checkpoints
and restart.

TPF keeps a processor-unique queue in memory while the system runs; its persistent
messages survive a restart through a recovery log and a checkpoint of each memory queue
taken every few seconds (seed 004). :class:`QueuePersistence` is that layer for one queue
manager. It owns a :class:`~tpfemu.store.recovery_log.RecoveryLog` and a
:class:`~tpfemu.store.checkpoint.CheckpointStore` under ``<home>/cpu-<ID>/`` (a processor's
own: another processor of the complex has its own memory queues) and a
:class:`~tpfemu.store.checkpoint.Checkpointer`.

**What is logged.** Only persistent messages: the MQPUT of one (a ``Put`` record, whose
LSN becomes the message's *key*), the MQGET of one (a ``Get`` naming the key), and the
MQCMIT/MQBACK of each unit of work that logged either. Non-persistent messages never
touch the disk and are gone after a restart, as IBM documents.

**Locking and waiting.** Each queue has a ``log_lock``. A logged put or get does its core
operation and appends its record under that lock (no I/O), so the log holds a queue's
puts and gets in the order the core did them; the caller then waits for durability
*outside* the lock (group commit: one sync serves every caller waiting meanwhile). An
MQPUT outside syncpoint returns when its record is durable. An MQGET outside syncpoint of
a persistent message gets it under a private unit of work, waits for the ``Get`` record,
then commits it in the core: until then the message stays hidden but restorable, so a
crash can never lose a message that was not yet handed to the application. The records
of puts and gets in syncpoint are *deferred* (nobody waits for them yet): they are
written with the unit's ``Commit`` records, which MQCMIT appends and waits for, in one
batch and one sync; only then does it make the unit's puts visible and its gets final.

**Checkpoints and the replay point.** A checkpoint of a queue (its replay point fixed
under the queue's lock, its messages browsed while the queue's puts and gets go on: see
:meth:`QueuePersistence.snapshot_queue`)
holds its committed persistent messages whose Put record is durable, in put order, and
the LSN replay starts from:
the smallest of the log's replay point and the first LSN of every unit of work with
records not yet applied to memory (replay is idempotent). A persistent message a unit of
work has got but not finished is hidden in the core, so the checkpoint takes it from the
copy kept with the get (its ``Put`` record may be trimmed already). The log before the
smallest replay point of all queues is trimmed.

**Restart.** :meth:`restore` loads each queue's checkpoint, replays the log after it
(:func:`~tpfemu.store.recovery.recovered`) and puts the messages back on their queues in
put order with their MsgId, CorrelId, priority, context, put time, absolute expiry
deadline (so the remaining expiry keeps counting across the outage, and a message that
expired meanwhile is discarded as usual) and backout count. The checkpoint's chunks go
to the core as they lie in the checkpoint's map, one call each (``put_packed``); the
messages that came from the log, and chunks the log tail changed, are packed
:data:`RESTORE_BATCH` at a time. Work that was not committed is backed out. Messages of
a queue that is no longer defined are reported on the console and dropped.

**Storage full.** A ``Put``/``Get`` outside syncpoint that the log cannot write fails the
call with reason 2192 (StorageFull) and is undone in the
core; a unit of work with a record that could not be written is backed out at MQCMIT,
which fails with 2192.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu._lowlevel import CoreQueue
from tpfemu.qmgr.units import new_uow_id
from tpfemu.store.checkpoint import Checkpointer, CheckpointStore, decode
from tpfemu.store.log_records import Backout, Commit, Get, Put
from tpfemu.store.message import NEVER, StoredMessage, chunk_keys, encode_chunk
from tpfemu.store.recovery import LogTail, Segment, messages_of, recovered, segments_count
from tpfemu.store.recovery_log import RecoveryLog, Ticket

if TYPE_CHECKING:
    from tpfemu.qmgr.localq import LocalQueue

__all__ = ["QueuePersistence"]

_KEY = attrgetter("key")


def _stored(key: int, msg: Any) -> StoredMessage:
    """A core message (whole) as the checkpoint stores it, under log key ``key``."""
    d = msg.descriptor
    return StoredMessage(key, d.msg_id, d.correl_id, d.priority, d.expiry, d.put_time,
                         d.ctx_len, d.backout_count, msg.data)  # fmt: skip


# -- restart: putting the recovered messages back ------------------------------------------

#: Messages put back per call into the core from a list of recovered messages (the
#: checkpoint's chunks go as they are): about 1 MB of 1 KB messages, so the data
#: joined for one call is still in the cache when the core copies it.
RESTORE_BATCH = 1024


def _restore_each(queue: LocalQueue, messages: list[StoredMessage]) -> None:
    """Put ``messages`` back on ``queue`` one at a time (raising as the first that fails)."""
    core = queue.core
    keys = queue.log_keys
    for m in messages:
        _, seq = core.put_message(
            bytes(m.data), priority=m.priority, persistent=True, expiry=m.expiry,
            msg_id=m.msg_id, correl_id=m.correl_id, ctx_len=m.ctx_len,
            put_time=m.put_time, backout_count=m.backout_count,
        )  # fmt: skip
        keys[seq] = m.key
        if m.expiry != NEVER:
            queue.expiring = True


def _restore_segments(queue: LocalQueue, core: CoreQueue, segments: list[Segment]) -> None:
    """Put the recovered messages back on memory queue ``queue`` in order, one call into
    the core per chunk (``CoreQueue.put_packed``): a checkpoint chunk as it was read, a
    list of messages packed :data:`RESTORE_BATCH` at a time. The same result as
    :func:`_restore_each`: a chunk the core refuses is put again one message at a time,
    so the messages before the one at fault are on the queue and its error is raised."""
    for segment in segments:
        if isinstance(segment, list):
            for start in range(0, len(segment), RESTORE_BATCH):
                _put_chunk(queue, core, encode_chunk(segment[start : start + RESTORE_BATCH]))
        elif isinstance(segment, LogTail):
            _put_tail(queue, core, segment)
        else:
            _put_chunk(queue, core, segment)


def _put_tail(queue: LocalQueue, core: CoreQueue, tail: LogTail) -> None:
    """Put back the log tail's messages, their data read from the log's map."""
    try:
        placed = core.put_packed_gather(tail.descriptors, tail.addresses)
    except (ValueError, errors.TpfEmuError):
        _put_chunk(queue, core, tail.packed())  # the same, with its fallback
        return
    _placed(queue, placed, tail.descriptors)


def _put_chunk(queue: LocalQueue, core: CoreQueue, chunk: bytes | bytearray | memoryview) -> None:
    try:
        placed = core.put_packed(chunk)
    except (ValueError, errors.TpfEmuError):
        # Nothing was put: one at a time, the messages before the one at fault go back
        # and its error is raised (ObjectDamaged if the chunk is not readable).
        _restore_each(queue, decode(bytes(chunk), queue.name))
        return
    _placed(queue, placed, chunk)


def _placed(queue: LocalQueue, placed: tuple[int, int, bool], descriptors) -> None:
    """After a packed put (``placed``: its first sequence, count, and whether a message
    can expire): the messages' log keys as one run, read from the chunk's descriptors."""
    first, _, expiring = placed
    queue.log_keys.add_run(first, chunk_keys(descriptors))
    if expiring:
        queue.expiring = True


class QueuePersistence:
    """The recovery log and checkpoints of one queue manager's memory queues.

    :param home: the system's home; files go to ``<home>/cpu-<cpu>/``.
    :param checkpoint_interval: seconds between checkpoints (TPF: 5).
    :param console: where restart reports go.
    """

    def __init__(self, home: str | Path, cpu: str, *, checkpoint_interval: float = 5.0,
                 console: Callable[[str], None] | None = None) -> None:  # fmt: skip
        self.cpu = cpu
        self.path = Path(home) / f"cpu-{cpu}"
        self.path.mkdir(parents=True, exist_ok=True)
        self.console = console or (lambda line: None)
        self.log = RecoveryLog(self.path)
        try:
            self.checkpoints = CheckpointStore.open(self.path)
        except BaseException:
            self.log.close()
            raise
        self._queues: Callable[[], dict[str, LocalQueue]] = dict
        self.checkpointer = Checkpointer(self.checkpoints, self.log, self._snapshot,
                                         interval=checkpoint_interval)  # fmt: skip
        # Units of work with records appended whose end the memory queues have not
        # applied yet: core uow id -> first LSN (the replay point may not pass it).
        self._first_lsn: dict[int, int] = {}
        # Their logged puts and gets: core uow id -> [(queue, seq, is_get)].
        self._work: dict[int, list[tuple[LocalQueue, int, bool]]] = {}
        self._lock = threading.Lock()

    # -- life cycle ----------------------------------------------------------------------

    def restore(self, queues: dict[str, LocalQueue]) -> int:
        """Put every recovered persistent message back on its queue; return how many.

        Call once, before any application runs, with the live queues (after the object
        definitions were restored). Then :meth:`start` the checkpoints.
        """
        total = 0
        with recovered(self.path, log=self.log, checkpoints=self.checkpoints) as segments:
            for name, segs in segments.items():
                if not segs:
                    continue
                queue = queues.get(name)
                if queue is None:
                    self.console(f"MQSC0090W {self.cpu} {segments_count(segs)} persistent "
                                 f"message(s) of queue {name} not restored: the queue is no "
                                 "longer defined")  # fmt: skip
                    continue
                total += self._restore_queue(queue, segs)
        return total

    @staticmethod
    def _restore_queue(queue: LocalQueue, segments: list[Segment]) -> int:
        core = queue.core
        limit = queue.definition.maxdepth
        if limit:  # a queue altered below its depth keeps its messages, as on IBM MQ
            core.configure(**{**queue.core_settings(), "max_depth": 0})
        try:
            if type(core) is CoreQueue:
                _restore_segments(queue, core, segments)
            else:  # not a memory queue (any other storage with the core's interface)
                _restore_each(queue, messages_of(queue.name, segments))
        finally:
            if limit:
                core.configure(**queue.core_settings())
        return segments_count(segments)

    def put_restored(self, queue: LocalQueue, data: bytes, d: Any) -> None:
        """Put a whole message (context record and data, descriptor ``d``) on memory queue
        ``queue`` outside syncpoint, as restart does (logged and durable if persistent)."""
        args = dict(priority=d.priority, persistent=d.persistent, expiry=d.expiry,
                    msg_id=d.msg_id, correl_id=d.correl_id, ctx_len=d.ctx_len,
                    put_time=d.put_time, backout_count=d.backout_count)  # fmt: skip
        if not d.persistent:
            queue.core.put_message(data, **args)
            return
        self.put_logged(queue, data, args)

    def put_logged(self, queue: LocalQueue, message: bytes, args: dict[str, Any]) -> bytes:
        """Put a persistent message outside syncpoint (``args`` as ``put_message`` takes
        them, the context record at the head of ``message``), log it and wait until it is
        durable; return its MsgId. :raises StorageFull: it is not on the queue."""
        args = {**args, "put_time": args.get("put_time") or time.time_ns() // 1000}
        with queue.log_lock:
            new_id, seq = queue.core.put_message(message, **args)
            ticket = self.log_put(queue, seq, message, new_id, args.get("correl_id"),
                                  args.get("priority", 0), args.get("expiry", NEVER),
                                  args["put_time"], args.get("ctx_len", 0), 0,
                                  args.get("backout_count", 0))  # fmt: skip
        try:
            ticket.wait()
        except errors.MQMIError:
            self.undo_put(queue, new_id)
            raise
        return new_id

    def start(self, queues: Callable[[], dict[str, LocalQueue]]) -> None:
        """Start checkpointing ``queues()`` every interval (and trimming the log)."""
        self._queues = queues
        self.checkpointer.checkpoint()  # the restored state is the new base
        self.checkpointer.start()

    def stop(self) -> None:
        """The checkpoint at stop, then close the log and the checkpoint store."""
        try:
            self.checkpointer.stop(final=True)
        finally:
            self.log.close()
            self.checkpoints.close()

    # -- logging -------------------------------------------------------------------------

    def log_put(self, queue: LocalQueue, seq: int, data: bytes, msg_id: bytes,
                correl_id: bytes | None, priority: int, expiry: int, put_time: int,
                ctx_len: int, uow: int, backout_count: int = 0) -> Ticket:  # fmt: skip
        """Append the Put of a persistent message the core just took (under queue.log_lock).
        In syncpoint (``uow``) the record is deferred: it goes to disk with its unit of
        work's Commit (or anything else waited on before that)."""
        ticket = self.log.append([Put(
            queue.name, data, msg_id, correl_id or bytes(24), priority, expiry, put_time,
            ctx_len, backout_count, uow,
        )], defer=bool(uow))  # fmt: skip
        self._track_put(queue, seq, ticket.lsn, uow)
        return ticket

    def _track_put(self, queue: LocalQueue, seq: int, key: int, uow: int) -> None:
        """The message the core put as ``seq`` has log key ``key``; in syncpoint, it is
        in flight in ``uow`` (under queue.log_lock)."""
        queue.log_version += 1
        queue.log_keys[seq] = key
        if uow:
            queue.log_pending[seq] = uow
            with self._lock:
                self._first_lsn.setdefault(uow, key)
                self._work.setdefault(uow, []).append((queue, seq, False))

    def put_port(self, queue: LocalQueue, name: str) -> tuple:
        """The *log port* of a put plan on memory queue ``queue`` (opened as ``name``):
        what its put in C needs to log a persistent message as :meth:`log_put` does
        (native/python/logput.h): the queue's log lock, the queue's id in the log, the
        call appending the PUT record C built (``(seq, record, uow) -> Ticket``, under
        the lock), and the wait of a put outside syncpoint (``(ticket, msg_id)``: the
        put is undone if the record cannot be written)."""
        return (queue.log_lock, self.log.queue_id(queue.name),
                partial(self._planned_put, queue), partial(self.wait_put, queue, name))

    def _planned_put(self, queue: LocalQueue, seq: int, record: bytes, uow: int) -> Ticket:
        ticket = self.log.append_encoded(record, uow)
        self._track_put(queue, seq, ticket.lsn, uow)
        return ticket

    def wait_put(self, queue: LocalQueue, name: str, ticket: Ticket, msg_id: bytes) -> None:
        """Wait until the record of a put outside syncpoint (``msg_id`` on ``queue``,
        opened as ``name``) is durable; if it cannot be written (StorageFull), undo the
        put and raise its MQMIError as MQPUT's."""
        try:
            ticket.wait()
        except errors.MQMIError as exc:  # StorageFull: the put is undone
            self.undo_put(queue, msg_id)
            exc.call, exc.obj = "MQPUT", name
            raise

    def undo_put(self, queue: LocalQueue, msg_id: bytes) -> None:
        """Take back a put outside syncpoint whose record could not be written (if no one
        got it meanwhile)."""
        with queue.log_lock:
            try:
                msg = queue.core.get_message(msg_id=msg_id)
            except errors.NoMessageAvailable:
                return
            queue.log_version += 1
            queue.log_keys.pop(msg.descriptor.seq, None)

    def log_get(self, queue: LocalQueue, msg: Any, uow: int, *, in_syncpoint: bool
                ) -> Ticket | None:  # fmt: skip
        """Append the Get of a persistent message the core just handed out under ``uow``
        (under queue.log_lock); ``msg`` is the core's message, whole. ``in_syncpoint``
        False: the get is final once the record is durable (it was made under a private
        unit of work, committed after the wait).

        Until the unit of work ends, the message is *in flight*: checkpoints still hold it
        (from the copy kept here) and the replay point stays at or below this record.
        """
        d = msg.descriptor
        key = queue.log_keys.get(d.seq)
        if key is None:  # not a logged message
            return None
        ticket = self.log.append([Get(queue.name, key, uow if in_syncpoint else 0,
                                      d.backout_count)], defer=in_syncpoint)  # fmt: skip
        self._track_get(queue, d.seq, uow, ticket.lsn, _stored(key, msg))
        return ticket

    def _track_get(self, queue: LocalQueue, seq: int, uow: int, lsn: int,
                   stored: StoredMessage) -> None:  # fmt: skip
        """The message the core got as ``seq`` under ``uow`` is in flight, its Get record
        at ``lsn`` (under queue.log_lock): checkpoints keep it from ``stored``, and so
        does every snapshot of the queue being taken (:meth:`snapshot_queue`)."""
        queue.log_version += 1
        queue.log_inflight[seq] = (uow, stored)
        for got in queue.log_snapshots:
            got.append(stored)
        with self._lock:
            self._first_lsn.setdefault(uow, lsn)
            self._work.setdefault(uow, []).append((queue, seq, True))

    def get_port(self, queue: LocalQueue, name: str) -> tuple:
        """The *log port* of a get plan on memory queue ``queue`` (opened as ``name``):
        what its get in C needs to get a persistent message as the full path does with
        :meth:`log_get` and :meth:`finish_private` (native/python/logput.h): the queue's
        log lock, the queue's id in the log, the log key of a core seq (None: not
        logged), the call that
        appends the GET record C built and tracks the message in flight (``(seq,
        record, uow, private, stored) -> Ticket``, under the lock), the in-flight copy's
        type, a private unit of work for a get outside syncpoint, and the end of that
        unit (``(uow, ticket or None)``: the get is final once the record is durable,
        else the message is given back and MQGET fails)."""
        return (queue.log_lock, self.log.queue_id(queue.name), queue.log_keys.get,
                partial(self._planned_get, queue), StoredMessage, new_uow_id,
                partial(self.finish_private, queue, name=name))

    def _planned_get(self, queue: LocalQueue, seq: int, record: bytes, uow: int,
                     private: bool, stored: StoredMessage) -> Ticket:  # fmt: skip
        # (one record already encoded: in syncpoint deferred to the unit's Commit, as
        # log_get's)
        ticket = self.log.append_encoded(record, 0 if private else uow)
        self._track_get(queue, seq, uow, ticket.lsn, stored)
        return ticket

    def finish_private(self, queue: LocalQueue, uow: int, ticket: Ticket | None,
                       name: str) -> None:  # fmt: skip
        """End the private unit of work of an MQGET outside syncpoint: once the Get record
        (if the message was persistent) is durable, the get is final.

        :raises StorageFull: the record could not be written; the message is back on the
            queue (its backout count raised, as after any backed-out get).
        """
        if ticket is None:
            queue.core.commit(uow)
            return
        try:
            ticket.wait()
        except errors.MQMIError as exc:
            self.apply_end(queue, uow, False)
            self.applied(uow)
            queue.wake()
            exc.call, exc.obj = "MQGET", name
            raise
        self.apply_end(queue, uow, True)
        self.applied(uow)

    def apply_end(self, queue: LocalQueue, uow: int, commit: bool) -> int:
        """Commit or back out logged unit of work ``uow`` on ``queue`` in the core, with
        its bookkeeping; returns how many messages the core committed or backed out.

        A backout is done whole under the queue's log lock: the messages its gets give
        back must not be in a checkpoint twice (browsed, and from their in-flight copy).
        A commit (its Commit record durable) runs in the core *before* taking the lock,
        so that the core call does not hold the lock every committer of the queue needs:
        until :meth:`applied`, the replay point stays at or
        below the unit's first record, so a checkpoint taken in between leaves its puts
        to the log (their keys are above the point) and keeps its gets' messages from
        their in-flight copies, and replay re-applies both. The bookkeeping is then
        dropped under the lock (checkpoints iterate it). A CLEAR QL in between is
        refused while the bookkeeping remains (LocalQueue.clear_refusal): it would
        remove the committed puts without logging their Gets."""
        if commit:
            n = queue.core.commit(uow)
            with queue.log_lock:
                self.finish_queue(queue, uow, True)
            return n
        with queue.log_lock:
            n = queue.core.backout(uow)
            self.finish_queue(queue, uow, False)
        return n

    def logged(self, uow: int) -> bool:
        """Whether unit of work ``uow`` has records in the log."""
        return uow in self._first_lsn

    def log_discard(self, queue: LocalQueue, seq: int) -> None:
        """An expired persistent message was discarded: log its removal (not waited for:
        if the record is lost in a crash, the message comes back and expires again)."""
        with queue.log_lock:
            key = queue.log_keys.pop(seq, None)
            if key is not None:
                queue.log_version += 1
                self.log.append([Get(queue.name, key, 0, 0)], defer=True)

    @staticmethod
    def end_record(uow: int, commit: bool) -> Commit | Backout:
        """The record that ends ``uow``; append it, and wait for a commit to be durable
        before applying it to memory."""
        return Commit(uow) if commit else Backout(uow)

    def applied(self, uow: int) -> None:
        """The memory queues applied the end of ``uow``: it no longer holds the replay point."""
        with self._lock:
            self._first_lsn.pop(uow, None)
            self._work.pop(uow, None)

    def finish_queue(self, queue: LocalQueue, uow: int, commit: bool) -> None:
        """Forget ``uow``'s in-flight puts and gets of ``queue`` (under queue.log_lock,
        right after the core commit or backout): committed gets and backed-out puts drop
        their keys."""
        with self._lock:
            work = self._work.get(uow, ())
            mine = [(seq, is_get) for q, seq, is_get in work if q is queue]
        queue.log_version += 1
        for seq, is_get in mine:
            if is_get:
                if queue.log_inflight.pop(seq, None) is not None and commit:
                    queue.log_keys.pop(seq, None)
            elif queue.log_pending.pop(seq, None) is not None and not commit:
                queue.log_keys.pop(seq, None)

    # -- checkpoints ---------------------------------------------------------------------

    def _snapshot(self) -> Iterator[tuple[str, list[StoredMessage] | None, int]]:
        """Each memory queue's snapshot for a checkpoint round (:class:`Checkpointer`).

        A queue whose last checkpoint holds it whole, and that has not changed since (no
        logged put, get, end of a unit of work, expiry or clear), is not browsed again:
        its messages come as None and only its replay point moves, which replay from the
        new point cannot contradict (the log has no record of the queue after it).
        """
        for queue in list(self._queues().values()):
            if queue.deleted or queue.shared:
                continue
            with queue.log_lock:  # (the point with the version: a later change is above it)
                same = queue.log_checkpointed == queue.log_version and not (
                    queue.log_inflight or queue.log_pending)
                point = self._point() if same else 0
            if same and self.checkpoints.info(queue.name) is not None:
                yield queue.name, None, point
                continue
            messages, point, whole = self._snapshot_queue(queue)
            yield queue.name, messages, point
            # (resumed: the round wrote the checkpoint, which holds the queue as of
            # version ``whole``; None: not whole, browse it again next round)
            queue.log_checkpointed = whole

    def _point(self) -> int:
        """The replay point of a snapshot taken now: the log's, or the first LSN of a unit
        of work not applied yet, if lower."""
        point = self.log.replay_point
        with self._lock:
            if self._first_lsn:
                point = min(point, min(self._first_lsn.values()))
        return point

    def snapshot_queue(self, queue: LocalQueue) -> tuple[list[StoredMessage], int]:
        """The committed persistent messages of ``queue`` in put order, and the replay
        point, for a checkpoint.

        The queue's log lock is held only to fix the replay point and to begin and end
        the snapshot, not while its messages are browsed (which takes about a second for
        100 000 messages, while every logged put and get of the queue would wait), so
        the browse races the queue's puts and gets. What it holds is still what replay
        from the point needs: every message with a key below the point that is on the
        queue when the snapshot begins, or comes back to it while the snapshot is taken.
        - A message put meanwhile has a key at or above the point: left out (replay puts
          it back if its record is durable).
        - A message got meanwhile (its Get record at or above the point) is kept from the
          copy its get keeps, whether or not the browse saw it. So a get backed out
          after the browse passed the message leaves nothing missing, and a committed
          one is removed again by replay (replay is idempotent).
        - A message in flight when the snapshot begins comes from its in-flight copy.
        """
        return self._snapshot_queue(queue)[:2]

    def _snapshot_queue(self, queue: LocalQueue) -> tuple[list[StoredMessage], int, int | None]:
        """:meth:`snapshot_queue`, and the queue's version if the snapshot holds it whole:
        nothing in flight or got meanwhile, nothing changed, and no persistent message left
        out for a key at or above the point (else None)."""
        got: list[StoredMessage] = []
        with queue.log_lock:
            point = self._point()
            version = queue.log_version
            busy = bool(queue.log_inflight or queue.log_pending)
            # messages got by units of work still in flight: hidden from the browse
            out: list[StoredMessage] = [m for _, m in queue.log_inflight.values()]
            keys = queue.log_keys
            queue.log_snapshots.append(got)
        later = 0  # persistent messages browsed whose key is at or above the point
        try:
            if keys:
                with queue.core.cursor() as cursor:
                    for msg in cursor:  # the committed messages, browsed
                        key = keys.get(msg.descriptor.seq) if msg.descriptor.persistent else None
                        if key is None:
                            continue
                        if key < point:
                            out.append(_stored(key, msg))
                        else:
                            later += 1
        finally:
            with queue.log_lock:
                queue.log_snapshots.remove(got)
                changed = queue.log_version != version
        # A message whose Put is not durable yet stays out: its key may be given again
        # after a crash; the log (replayed from ``point``) brings it back if durable.
        # (One copy a key: a message browsed may also have been got meanwhile.)
        kept = {m.key: m for m in (*out, *got) if m.key < point}
        whole = None if busy or got or later or changed else version
        return sorted(kept.values(), key=_KEY), point, whole

    # -- clear ---------------------------------------------------------------------------

    def log_purge(self, queue: LocalQueue) -> int:
        """CLEAR QL: remove the queue's committed messages that no unit of work holds (as
        the core's purge does) and log a Get of each persistent one; wait until that is
        durable. Returns how many messages were removed."""
        with queue.log_lock:
            queue.log_version += 1
            removed = queue.core.purge()
            held = queue.log_inflight.keys() | queue.log_pending.keys()
            gone = [seq for seq in queue.log_keys if seq not in held]
            ticket = None
            if gone:
                ticket = self.log.append([Get(queue.name, queue.log_keys.pop(seq), 0, 0)
                                          for seq in gone])  # fmt: skip
        if ticket is not None:
            ticket.wait()
        return removed
