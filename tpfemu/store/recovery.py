"""Restart: rebuild the memory queues' persistent messages from checkpoint + log tail.

:func:`recover` loads each queue's checkpoint, then replays the recovery log from that
checkpoint's replay point, applying units of work as they finished before the stop or
crash:

- a PUT takes effect when its unit of work committed (at once with ``uow=0``); a message
  put by a unit of work that never committed, or was backed out, is dropped;
- a GET removes its message when its unit of work committed; a GET whose unit of work
  was backed out, or was still in flight at the crash, leaves the message with a backout
  count one higher than when it was got (as IBM's MQ does on backout);
- messages come back in put order (by message key), with MsgId, CorrelId, priority,
  expiry deadline (absolute, so the remaining expiry is right after the restart),
  put time, context length and backout count;
- non-persistent messages were never logged: they do not come back.

Replay is idempotent (see :mod:`tpfemu.store.checkpoint`): a PUT of a message already
present, a GET of one already gone and a backout count already raised change nothing, so
recovering twice, or from an older checkpoint, gives the same messages.

Recovery only reads: the log is not trimmed and nothing is written (a later checkpoint
covers what was recovered). It turns the garbage collector off while it builds the
lists (millions of small tuples, no cycles).

**For restart**, :func:`recovered` gives each queue's messages as segments: the
checkpoint's chunks that the log tail does not name stay packed, as views of the
checkpoint's map, and the core takes them unparsed (after a clean stop, the whole
restart is such chunks). A chunk holding a message the tail gets, backs out or puts
again is decoded, alone, into Python tuples.

The log tail is replayed in C (:func:`log_replay`: ``tpf_log_replay``,
native/include/tpf/logrec.h, one pass over the log's batches in its map, without the
GIL). The messages it leaves above a queue's checkpoint come back as a :class:`LogTail`
(their descriptors, and where their data lie in the log's map), so the core copies each
message once, from the map into the queue; no Python object is made per message. Only
the records naming a checkpoint's messages come back to Python.
"""

from __future__ import annotations

import gc
from bisect import bisect_left, bisect_right
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from operator import itemgetter
from pathlib import Path

from tpfemu import errors
from tpfemu._lowlevel import log_pack, log_replay
from tpfemu.mq import cmqc
from tpfemu.store.checkpoint import CHUNKS_DB, POINTERS_DB, CheckpointStore, decode
from tpfemu.store.lmdbenv import LmdbEnv
from tpfemu.store.log_records import (
    GET,
    LOG_DB,
    META_DB,
    PUT,
    QUEUES_DB,
    batch_views,
    put_message,
    read_queue_names,
)
from tpfemu.store.message import StoredMessage, chunk_keys
from tpfemu.store.recovery_log import RecoveryLog

RecoveredMessage = StoredMessage
"""A message that restart puts back on its queue (see :class:`StoredMessage`)."""

_key = itemgetter(0)


class LogTail:
    """A queue's messages from the log tail above its checkpoint, in put order, as
    :func:`log_replay` leaves them: ``descriptors``, a packed chunk's
    count and descriptors (see :mod:`tpfemu.store.message`), and ``addresses``, where each
    message's data lie in the log's map, for ``CoreQueue.put_packed_gather``. Valid inside
    :func:`recovered`'s ``with`` block only, as the map's views are."""

    __slots__ = ("descriptors", "_addresses", "_batches")

    def __init__(self, descriptors: bytearray, addresses: bytearray, batches: list) -> None:
        self.descriptors = descriptors
        self._addresses: bytearray | None = addresses
        self._batches = batches  # the buffers the addresses point into, kept referenced

    @property
    def addresses(self) -> bytearray:
        """The data's addresses. :raises ValueError: the ``with`` block has ended."""
        if self._addresses is None:
            raise ValueError("a LogTail is valid only inside the with block of recovered()")
        return self._addresses

    def close(self) -> None:
        """The map's read transaction ends: the addresses may no longer be used."""
        self._addresses = None
        self._batches = []

    def __len__(self) -> int:
        return len(chunk_keys(self.descriptors))

    def packed(self) -> bytearray:
        """The messages as one packed chunk (their data copied out of the map).

        :raises ValueError: the ``with`` block of :func:`recovered` has ended.
        """
        return log_pack(self.descriptors, self.addresses)


Segment = memoryview | LogTail | list[StoredMessage]
"""A run of a queue's recovered messages, in put order: a checkpoint chunk as stored (the
core's packed batch, see :mod:`tpfemu.store.message`), the log tail's messages above the
checkpoint (:class:`LogTail`), or a list of messages."""


class _Queue:
    """One queue's messages during replay.

    The checkpoint's chunks stay packed (``packed``: (first key, last key, chunk), in key
    order) until the log tail names a key inside one: then that chunk alone is decoded
    into the rest. The rest (a checkpoint that had to be decoded whole) is a list in key
    order until the tail names a key, then a dict by message key. So a decoded message
    never lies inside a packed chunk's key range, and the result is the packed chunks with
    the rest sorted between them. The tail only names keys up to ``top``, the highest the
    checkpoint holds: the messages it puts above that are replayed in C
    (:class:`LogTail`).
    """

    __slots__ = ("name", "packed", "firsts", "messages", "by_key", "replay_from", "top")

    def __init__(self, name: str, replay_from: int, messages: list[StoredMessage] | None = None,
                 chunks: Sequence[memoryview] = ()) -> None:  # fmt: skip
        self.name = name
        self.packed: list[tuple[int, int, memoryview]] = []
        for chunk in chunks:
            keys = chunk_keys(chunk)
            if len(keys):
                self.packed.append((keys[0], keys[-1], chunk))
        self.firsts = [first for first, _, _ in self.packed]
        self.messages = messages if messages is not None else []  # in key order
        self.by_key: dict[int, StoredMessage] | None = None
        self.replay_from = replay_from
        # the highest key the checkpoint holds (a put above it cannot be there already)
        self.top = max(self.messages[-1].key if self.messages else 0,
                       self.packed[-1][1] if self.packed else 0)  # fmt: skip

    def index(self) -> dict[int, StoredMessage]:
        if self.by_key is None:
            self.by_key = dict(zip(map(_key, self.messages), self.messages, strict=True))
            self.messages = []
        return self.by_key

    def _held(self, key: int) -> dict[int, StoredMessage]:
        """The dict, with the chunk that may hold ``key`` (if any) decoded into it."""
        index = self.index()
        i = bisect_right(self.firsts, key) - 1
        if i >= 0 and key <= self.packed[i][1]:
            chunk = self.packed.pop(i)[2]
            del self.firsts[i]
            for m in decode(bytes(chunk), self.name):
                index[m.key] = m
        return index

    def put(self, m: StoredMessage) -> None:
        """A put of a key up to ``top``: nothing if the message is there already."""
        self._held(m.key).setdefault(m.key, m)

    def get(self, key: int) -> None:
        self._held(key).pop(key, None)

    def back_out(self, key: int, backouts: int) -> None:
        """A get of ``key`` at backout count ``backouts`` was backed out."""
        index = self._held(key)
        m = index.get(key)
        if m is not None and m.backout_count <= backouts:
            index[key] = m._replace(backout_count=backouts + 1)

    def result(self) -> list[Segment]:
        """The messages in key order: packed chunks, and lists of the others between."""
        rest = self.messages if self.by_key is None else sorted(self.by_key.values(), key=_key)
        out: list[Segment] = []
        at = 0
        for first, _, chunk in self.packed:
            upto = bisect_left(rest, first, lo=at, key=_key)
            if upto > at:
                out.append(rest[at:upto])
            out.append(chunk)
            at = upto
        if at < len(rest):
            out.append(rest[at:] if at else rest)
        return out


def segments_count(segments: Sequence[Segment]) -> int:
    """How many messages ``segments`` hold."""
    return sum(len(s) if isinstance(s, list | LogTail) else len(chunk_keys(s)) for s in segments)


def messages_of(queue: str, segments: Sequence[Segment]) -> list[StoredMessage]:
    """The messages of ``queue``'s ``segments``, in order (packed chunks decoded).

    :raises ObjectDamaged: a chunk is not readable.
    """
    out: list[StoredMessage] = []
    for segment in segments:
        if isinstance(segment, list):
            out += segment
        elif isinstance(segment, LogTail):
            out += decode(segment.packed(), queue)
        else:
            out += decode(bytes(segment), queue)
    return out


def recover(
    home: str | Path,
    *,
    log: RecoveryLog | None = None,
    checkpoints: CheckpointStore | None = None,
) -> dict[str, list[RecoveredMessage]]:
    """The persistent messages of every queue of ``home``, as of the last durable commit.

    Returns queue name -> messages in put order, for every queue with a checkpoint or
    log records (possibly empty). A message's data is a bytes-like view of a buffer
    shared with the messages read with it (``bytes(m.data)`` copies it out). Pass the
    system's open ``log`` and ``checkpoints`` if it has them (an environment must not be
    opened twice in a process); otherwise they are opened read-only and closed again.

    :raises ObjectDamaged: a checkpoint or a log batch is not readable.
    """
    with recovered(home, log=log, checkpoints=checkpoints) as segments, _no_gc():
        return {name: messages_of(name, segs) for name, segs in segments.items()}


@contextmanager
def recovered(
    home: str | Path,
    *,
    log: RecoveryLog | None = None,
    checkpoints: CheckpointStore | None = None,
) -> Iterator[dict[str, list[Segment]]]:
    """As :func:`recover`, with each queue's messages as :data:`Segment` s, for restart:
    the checkpoint chunks the log tail left alone stay packed, as views of the
    checkpoint's map, and the tail's messages above the checkpoint stay in the log's map
    (:class:`LogTail`): no copy, valid inside the ``with`` block only. Do not wait for a
    commit to the log inside it (it holds a read transaction of each map)."""
    with _stores(Path(home), log, checkpoints) as (log_env, ckpt), ExitStack() as txns:
        ckpt_txn = txns.enter_context(ckpt.read()) if ckpt is not None else None
        log_txn = txns.enter_context(log_env.read(buffers=True)) if log_env is not None else None
        with _no_gc():
            segments = _recover(log_env, log_txn, ckpt, ckpt_txn)
        try:
            yield segments
        finally:  # (before the transactions end)
            for segs in segments.values():
                for segment in segs:
                    if isinstance(segment, LogTail):
                        segment.close()


@contextmanager
def _no_gc() -> Iterator[None]:
    """The garbage collector off (millions of new tuples, no cycles), then as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@contextmanager
def _stores(
    home: Path, log: RecoveryLog | None, checkpoints: CheckpointStore | None
) -> Iterator[tuple[LmdbEnv | None, CheckpointStore | None]]:
    with ExitStack() as stack:
        log_env = log.env if log is not None else None
        if log_env is None and (home / "recovery-log" / "data.mdb").exists():
            env = stack.enter_context(LmdbEnv(home / "recovery-log", readonly=True,
                                              dbs=(LOG_DB, QUEUES_DB, META_DB)))  # fmt: skip
            if all(map(env.has_db, (LOG_DB, QUEUES_DB, META_DB))):
                log_env = env  # else: a writer was killed while creating it: nothing logged
        if checkpoints is None and (home / "checkpoint" / "data.mdb").exists():
            env = stack.enter_context(LmdbEnv(home / "checkpoint", readonly=True,
                                              dbs=(POINTERS_DB, CHUNKS_DB)))  # fmt: skip
            if env.has_db(POINTERS_DB) and env.has_db(CHUNKS_DB):
                checkpoints = CheckpointStore(env)
        yield log_env, checkpoints


def _recover(log_env: LmdbEnv | None, log_txn, ckpt: CheckpointStore | None, ckpt_txn
             ) -> dict[str, list[Segment]]:  # fmt: skip
    queues: dict[str, _Queue] = {}
    if ckpt is not None:
        for name in ckpt.queues():
            lsn, chunks, in_key_order = ckpt.load_chunks(ckpt_txn, name)
            if in_key_order:
                queues[name] = _Queue(name, lsn, chunks=chunks)
            else:  # decoded and sorted
                queues[name] = _Queue(name, lsn, sorted(messages_of(name, chunks), key=_key))
    tails: dict[str, LogTail] = {}  # the tail's messages above the checkpoints
    if log_env is not None:
        names = read_queue_names(log_env)
        for name in names.values():
            if name not in queues:
                queues[name] = _Queue(name, 0)
        replayed = _replay(log_env, log_txn, {qid: queues[name] for qid, name in names.items()})
        tails = {names[qid]: tail for qid, tail in replayed.items()}
    return {name: q.result() + ([tails[name]] if name in tails else [])
            for name, q in queues.items()}  # fmt: skip


def _replay(env: LmdbEnv, txn, by_qid: dict[int, _Queue]) -> dict[int, LogTail]:
    """Apply the log tail, read in ``txn`` (a read transaction with buffers), to the
    queues: in C, in one pass in LSN order (:func:`log_replay`).

    The messages the tail leaves above a queue's checkpoint (its ``top``) come back as
    that queue id's :class:`LogTail`. The records naming checkpoint messages come back as
    effects, applied here in order to the queue's checkpoint part.

    :raises ObjectDamaged: a record is not readable.
    """
    if not by_qid:
        return {}
    start = min(q.replay_from for q in by_qid.values())
    floor = max(q.replay_from for q in by_qid.values())  # from here on, no record skipped
    tops: list[int | None] = [None] * (max(by_qid) + 1)
    froms = [0] * len(tops)
    for qid, q in by_qid.items():
        tops[qid], froms[qid] = q.top, q.replay_from
    batches = list(batch_views(env, txn, start))
    try:
        tails, effects = log_replay(batches, tops, froms, floor)
    except ValueError as exc:
        lsn, detail = exc.args
        raise _damaged(lsn, detail) from None
    for kind, qid, key, backouts, batch, offset in effects:
        q = by_qid[qid]
        if kind == PUT:  # (its data copied out of the map, which the block outlives)
            m = put_message(batches[batch][2], offset, key)[0]
            q.put(m._replace(data=bytes(m.data)))
        elif kind == GET:
            q.get(key)
        else:
            q.back_out(key, backouts)
    return {qid: LogTail(*tail, batches) for qid, tail in enumerate(tails) if tail is not None}


def _damaged(lsn: int, detail: str) -> errors.MQMIError:
    error = errors.error_for(cmqc.MQRC_OBJECT_DAMAGED, call="recover", obj=f"log record {lsn}")
    error.detail = detail
    return error

