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
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from operator import itemgetter
from pathlib import Path

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.store.checkpoint import CHUNKS_DB, POINTERS_DB, CheckpointStore
from tpfemu.store.lmdbenv import LmdbEnv
from tpfemu.store.log_records import (
    BACKOUT,
    COMMIT,
    GET,
    LOG_DB,
    META_DB,
    PUT,
    PUT_HEAD,
    QUEUES_DB,
    REC,
    read_batches,
    read_queue_names,
)
from tpfemu.store.message import StoredMessage
from tpfemu.store.recovery_log import RecoveryLog

RecoveredMessage = StoredMessage
"""A message that restart puts back on its queue (see :class:`StoredMessage`)."""

_key = itemgetter(0)
_new = tuple.__new__


class _Queue:
    """One queue's messages during replay: a list in key order while the tail only
    appends to it, then a dict by message key."""

    __slots__ = ("messages", "by_key", "replay_from")

    def __init__(self, messages: list[StoredMessage], replay_from: int) -> None:
        self.messages = messages  # in key order
        self.by_key: dict[int, StoredMessage] | None = None
        self.replay_from = replay_from

    def index(self) -> dict[int, StoredMessage]:
        if self.by_key is None:
            self.by_key = dict(zip(map(_key, self.messages), self.messages, strict=True))
            self.messages = []
        return self.by_key

    def put(self, m: StoredMessage) -> None:
        index = self.by_key
        if index is None:
            messages = self.messages
            if not messages or messages[-1].key < m.key:  # after all: cannot be there
                messages.append(m)
                return
            index = self.index()
        if m.key not in index:
            index[m.key] = m

    def put_many(self, ms: list[StoredMessage]) -> None:
        """Put messages whose keys ascend (one unit of work's puts, in LSN order)."""
        messages = self.messages
        if self.by_key is None and (not messages or messages[-1][0] < ms[0][0]):
            messages += ms  # the usual case: after everything there
        else:
            for m in ms:
                self.put(m)

    def get(self, key: int) -> None:
        index = self.by_key if self.by_key is not None else self.index()
        index.pop(key, None)

    def back_out(self, key: int, backouts: int) -> None:
        """A get of ``key`` at backout count ``backouts`` was backed out."""
        index = self.by_key if self.by_key is not None else self.index()
        m = index.get(key)
        if m is not None and m.backout_count <= backouts:
            index[key] = m._replace(backout_count=backouts + 1)

    def result(self) -> list[StoredMessage]:
        if self.by_key is None:
            return self.messages
        return sorted(self.by_key.values(), key=_key)


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
    enabled = gc.isenabled()
    gc.disable()
    try:
        with _stores(Path(home), log, checkpoints) as (log_env, ckpt):
            return _recover(log_env, ckpt)
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


def _recover(log_env: LmdbEnv | None, ckpt: CheckpointStore | None) -> dict[str, list]:
    queues: dict[str, _Queue] = {}
    if ckpt is not None:
        for name in ckpt.queues():
            lsn, messages = ckpt.load_all(name)
            queues[name] = _Queue(messages, lsn)
    if log_env is not None:
        names = read_queue_names(log_env)
        for name in names.values():
            if name not in queues:
                queues[name] = _Queue([], 0)
        _replay(log_env, {qid: queues[name] for qid, name in names.items()})
    return {name: q.result() for name, q in queues.items()}


def _replay(env: LmdbEnv, by_qid: dict[int, _Queue]) -> None:
    """Apply the log tail to the queues (one pass, in LSN order).

    Units of work wait in ``puts``/``gets`` (keyed by incarnation and number) until their
    Commit or Backout; what is left at the end was in flight at the crash.
    """
    if not by_qid:
        return
    start = min(q.replay_from for q in by_qid.values())
    floor = max(q.replay_from for q in by_qid.values())  # from here on, no record skipped
    queues: list[_Queue | None] = [None] * (max(by_qid) + 1)
    for qid, q in by_qid.items():
        queues[qid] = q
    # (incarnation, uow) -> queue id -> the unit of work's put messages, in LSN order
    puts: dict[tuple[int, int], dict[int, list[StoredMessage]]] = {}
    gets: dict[tuple[int, int], list[tuple[_Queue, int, int]]] = {}
    last = (0, 0, 0)  # (incarnation, uow, queue id) of the list below: consecutive puts
    last_puts: list[StoredMessage] = []
    rec_unpack, put_unpack = REC.unpack_from, PUT_HEAD.unpack_from
    rec_size, put_size = REC.size, PUT_HEAD.size
    for lsn, incarnation, records in read_batches(env, start):
        view = memoryview(records)
        off, end = 0, len(records)
        while off < end:
            kind = records[off]
            if kind == PUT:
                (_, qid, _, uow, _, _, mid, cid, prio, expiry, put_time, ctx_len, backouts,
                 length) = put_unpack(records, off)  # fmt: skip
                data_at = off + put_size
                off = data_at + length
                if lsn >= floor or lsn >= queues[qid].replay_from:
                    m = _new(StoredMessage, (lsn, mid, cid, prio, expiry, put_time, ctx_len,
                                             backouts, view[data_at:off]))  # fmt: skip
                    if not uow:
                        queues[qid].put(m)
                    elif last == (incarnation, uow, qid):
                        last_puts.append(m)
                    else:
                        by_queue = puts.setdefault((incarnation, uow), {})
                        last_puts = by_queue.setdefault(qid, [])
                        last_puts.append(m)
                        last = (incarnation, uow, qid)
            elif kind == COMMIT:
                _, _, _, uow, _ = rec_unpack(records, off)
                off += rec_size
                by_queue = puts.pop((incarnation, uow), None)
                if by_queue is not None:
                    for qid, ms in by_queue.items():
                        queues[qid].put_many(ms)
                for q, key, _ in gets.pop((incarnation, uow), ()):
                    q.get(key)
                last = (0, 0, 0)
            elif kind == GET:
                _, qid, backouts, uow, key = rec_unpack(records, off)
                off += rec_size
                q = queues[qid]
                if lsn >= q.replay_from:
                    if uow:
                        gets.setdefault((incarnation, uow), []).append((q, key, backouts))
                    else:
                        q.get(key)
            elif kind == BACKOUT:
                _, _, _, uow, _ = rec_unpack(records, off)
                off += rec_size
                puts.pop((incarnation, uow), None)
                _back_out(gets.pop((incarnation, uow), ()))
                last = (0, 0, 0)
            else:
                raise _damaged(lsn, f"record kind {kind}")
            lsn += 1
    for ops in gets.values():  # units of work in flight at the crash
        _back_out(ops)


def _back_out(ops: list[tuple[_Queue, int, int]]) -> None:
    for q, key, backouts in ops:
        q.back_out(key, backouts)


def _damaged(lsn: int, detail: str) -> errors.MQMIError:
    error = errors.error_for(cmqc.MQRC_OBJECT_DAMAGED, call="recover", obj=f"log record {lsn}")
    error.detail = detail
    return error

