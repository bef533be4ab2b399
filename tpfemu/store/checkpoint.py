"""Checkpoints of memory queues: each queue's committed persistent messages, as of an LSN.

TPF writes the memory queues to fixed records every 5 seconds and rebuilds them at restart
from that checkpoint plus the recovery log. :class:`CheckpointStore` is that checkpoint,
in its own LMDB environment (``<home>/checkpoint``) so a large checkpoint never holds up the
log's writer.

**What a checkpoint holds.** ``write(queue, messages, lsn)`` stores ``messages`` (the
queue's committed persistent messages, as :class:`~tpfemu.store.message.StoredMessage`,
in put order) and ``lsn``, the *replay point*: restart replays the log's records of that
queue from ``lsn`` on, on top of these messages. Replay is idempotent (a PUT of a message
already present, or a GET of one already gone, changes nothing; a backout count only
rises to the logged value + 1), so the replay point may be earlier than the snapshot. It
must not be later than any record the snapshot does not reflect. The queue manager takes
the snapshot under the queue lock and passes the smallest of: the log's ``replay_point``
read at the snapshot (the LSN after the last durable record: LSNs beyond it may be given
again after a crash), and the first LSN of every unit of work then in flight (appended
records whose commit or backout the memory queue has not applied yet). The log may then
be trimmed below the smallest replay point of all queues.

**Periodically.** :class:`Checkpointer` runs the rounds: every few seconds and at stop,
a checkpoint of every queue, then a trim of the log. A queue its last checkpoint holds
whole and that nothing has changed since is not written again: only that checkpoint's
replay point moves (:meth:`CheckpointStore.advance`, one small transaction), so an idle
queue of 100 000 messages costs a round a few milliseconds, not the 1.5-2 s of CPU and
the 100 MB of writing of its whole checkpoint.

**Atomic replacement.** A checkpoint is written under a new *generation*: its chunks go to
a new key range, then the queue's pointer record flips to it, then the old generation's
chunks are deleted. The chunks go in transactions of at most ``txn_bytes`` (one
transaction for most queues); the flip and the delete are the last transaction. A crash
before the flip leaves the previous checkpoint in force (the stray chunks are removed by
the next write); after the flip, the new one. The environment syncs at every commit
(LMDB's default: pages, then meta page), so a checkpoint is durable when ``write``
returns, even across an OS crash: checkpoints are large and rare, so two fsyncs each cost
nothing that matters.

Layout: sub-database ``pointers`` maps a queue name to (generation, lsn, message count,
chunk count); ``chunks`` maps (name length, name, generation, chunk number) to a chunk of
messages (:func:`~tpfemu.store.message.encode_chunk`).
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Callable, Iterable, Iterator
from operator import itemgetter
from pathlib import Path

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.store.lmdbenv import DEFAULT_MAX_MAP_SIZE, LmdbEnv, MiB
from tpfemu.store.message import COUNT, DESC, StoredMessage, decode_chunk

POINTERS_DB, CHUNKS_DB = b"pointers", b"chunks"
POINTER = struct.Struct("<QQQII")  # generation, lsn, message count, chunk count, flags
IN_KEY_ORDER = 1  # flag: the messages were written in ascending key (put) order
_GEN_CHUNK = struct.Struct(">QI")  # generation, chunk number (big-endian: key order)
CHUNK_BYTES = 256 * 1024  # a chunk closes at this much data ...
CHUNK_MESSAGES = 4096  # ... or this many messages
TXN_BYTES = 256 * MiB


class CheckpointStore:
    """The checkpoints of a system's memory queues, in ``env``.

    ``env`` must have the sub-databases :data:`POINTERS_DB` and :data:`CHUNKS_DB`;
    :meth:`open` makes such an environment under a home.
    """

    def __init__(self, env: LmdbEnv, *, txn_bytes: int = TXN_BYTES) -> None:
        self.env = env
        self.txn_bytes = txn_bytes
        self._pointers = env.db(POINTERS_DB)
        self._chunks = env.db(CHUNKS_DB)

    @classmethod
    def open(
        cls,
        home: str | Path,
        *,
        map_size: int = 64 * MiB,
        max_map_size: int = DEFAULT_MAX_MAP_SIZE,
        readonly: bool = False,
        txn_bytes: int = TXN_BYTES,
    ) -> CheckpointStore:
        """The checkpoint store of ``home`` (``<home>/checkpoint``, created if missing)."""
        env = LmdbEnv(
            Path(home) / "checkpoint", map_size=map_size, max_map_size=max_map_size,
            dbs=(POINTERS_DB, CHUNKS_DB), readonly=readonly,
        )  # fmt: skip
        return cls(env, txn_bytes=txn_bytes)

    def close(self) -> None:
        """Close the environment."""
        self.env.close()

    def __enter__(self) -> CheckpointStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing --------------------------------------------------------------------------

    def write(self, queue: str, messages: Iterable[StoredMessage], lsn: int) -> int:
        """Replace the checkpoint of ``queue`` by ``messages`` with replay point ``lsn``.

        Returns the number of messages written. Messages written in key (put) order spare
        restart a sort; any order is accepted. Atomic: until it returns, a crash or a
        failure leaves the previous checkpoint in force.

        :raises StorageFull: the map (at its ceiling) or the disk is full; the previous
            checkpoint is intact.
        """
        name = _name(queue)
        old = self._pointer(name)
        gen = (old[0] if old else 0) + 1
        self._delete_strays(name, old[0] if old else None)
        chunk_no = 0
        count = 0
        pending: list[tuple[bytes, bytes]] = []  # (key, chunk) of the open transaction
        pending_bytes = 0
        order = _Order()
        for chunk, n in _encode_chunks(messages, order):
            pending.append((_chunk_key(name, gen, chunk_no), chunk))
            pending_bytes += len(chunk)
            chunk_no += 1
            count += n
            if pending_bytes >= self.txn_bytes:
                self._write_chunks(queue, pending)
                pending, pending_bytes = [], 0
        pointer = POINTER.pack(gen, lsn, count, chunk_no, IN_KEY_ORDER if order.ascending else 0)

        def flip(txn) -> None:
            _put_chunks(txn, self._chunks, pending)
            txn.put(name, pointer, db=self._pointers)
            if old:
                _delete_generation(txn, self._chunks, name, old[0])

        self.env.write(flip, call="checkpoint", obj=queue)
        return count

    def _write_chunks(self, queue: str, chunks: list[tuple[bytes, bytes]]) -> None:
        self.env.write(lambda txn: _put_chunks(txn, self._chunks, chunks), call="checkpoint",
                       obj=queue)  # fmt: skip

    def _delete_strays(self, name: bytes, keep: int | None) -> None:
        """Delete chunks of generations other than ``keep`` (left by an interrupted write)."""

        def delete(txn) -> None:
            cur = txn.cursor(db=self._chunks)
            prefix = _prefix(name)
            if not cur.set_range(prefix):
                return
            while cur.key().startswith(prefix):
                gen = _GEN_CHUNK.unpack_from(cur.key(), len(prefix))[0]
                if gen == keep:
                    if not cur.set_range(prefix + _GEN_CHUNK.pack(gen + 1, 0)):
                        return
                elif not cur.delete() or not cur.key():
                    return

        self.env.write(delete, call="checkpoint", obj=name.decode(), reclaim=True)

    def delete(self, queue: str) -> bool:
        """Remove the checkpoint of ``queue``; False if it had none."""
        name = _name(queue)

        def delete(txn) -> bool:
            raw = txn.get(name, db=self._pointers)
            if raw is None:
                return False
            _delete_generation(txn, self._chunks, name, POINTER.unpack(raw)[0])
            txn.delete(name, db=self._pointers)
            return True

        found = self.env.write(delete, call="checkpoint", obj=queue, reclaim=True)
        self._delete_strays(name, None)
        return found

    # -- reading --------------------------------------------------------------------------

    def advance(self, queue: str, lsn: int) -> bool:
        """Move the replay point of ``queue``'s checkpoint up to ``lsn``, its messages
        unchanged (for a queue the log has no record of since that checkpoint: replay
        from ``lsn`` gives the same messages). False, and nothing written, if ``queue``
        has no checkpoint or its point is already at or above ``lsn``."""
        name = _name(queue)

        def move(txn) -> bool:
            raw = txn.get(name, db=self._pointers)
            if raw is None:
                return False
            gen, old, count, chunks, flags = POINTER.unpack(raw)
            if old >= lsn:
                return False
            txn.put(name, POINTER.pack(gen, lsn, count, chunks, flags), db=self._pointers)
            return True

        return self.env.write(move, call="checkpoint", obj=queue)

    def _pointer(self, name: bytes) -> tuple[int, int, int, int, int] | None:
        with self.env.read() as txn:
            raw = txn.get(name, db=self._pointers)
        return POINTER.unpack(raw) if raw is not None else None

    def info(self, queue: str) -> tuple[int, int, int] | None:
        """(generation, replay lsn, message count) of the checkpoint of ``queue``, or None."""
        pointer = self._pointer(_name(queue))
        return pointer[:3] if pointer else None

    def queues(self) -> list[str]:
        """The names of the queues with a checkpoint."""
        with self.env.read() as txn:
            keys = txn.cursor(db=self._pointers).iternext(values=False)
            return [bytes(key).decode() for key in keys]

    def load(self, queue: str) -> tuple[int, Iterator[StoredMessage]]:
        """(replay lsn, the messages in the order written) of ``queue``'s checkpoint.

        A queue without a checkpoint gives ``(0, empty)``: replay the whole log. The
        iterator reads one consistent snapshot, a chunk at a time; message data are views
        of a copy of their chunk.
        """
        pointer = self._pointer(_name(queue))
        if pointer is None:
            return 0, iter(())
        return pointer[1], self._iter(queue, pointer[0])

    def load_all(self, queue: str) -> tuple[int, list[StoredMessage]]:
        """As :meth:`load`, but read the whole checkpoint into a list at once (faster), in
        key (put) order whatever the order written."""
        with self.read() as txn:
            lsn, chunks, in_key_order = self.load_chunks(txn, queue)
            out = [m for chunk in chunks for m in decode(bytes(chunk), queue)]
        if not in_key_order:
            out.sort(key=itemgetter(0))
        return lsn, out

    def read(self):
        """A read transaction of one consistent snapshot, for :meth:`load_chunks`; its
        values are views of the map, valid until the transaction ends."""
        return self.env.read(buffers=True)

    def load_chunks(self, txn, queue: str) -> tuple[int, list[memoryview], bool]:
        """(replay lsn, the chunks of ``queue``'s checkpoint as stored, whether they hold
        the messages in key (put) order), for restart to hand to the core unparsed
        (``CoreQueue.put_packed`` reads the chunk format).

        ``txn`` is from :meth:`read`; the chunks are views of the map, valid while it
        lasts (``bytes(chunk)`` keeps one). A queue without a checkpoint gives
        ``(0, [], True)``. Each chunk's count is checked against its size and the total
        against the pointer; :func:`decode`, or the core, checks the rest.

        :raises ObjectDamaged: a count that does not fit.
        """
        name = _name(queue)
        raw = txn.get(name, db=self._pointers)
        if raw is None:
            return 0, [], True
        gen, lsn, count, _chunks, flags = POINTER.unpack(raw)
        chunks: list[memoryview] = []
        found = 0
        for chunk in self._chunk_values(txn, name, gen):
            n = COUNT.unpack_from(chunk)[0] if len(chunk) >= COUNT.size else -1
            if n < 0 or len(chunk) < COUNT.size + n * DESC.size:
                raise _damaged(queue, f"a chunk of {len(chunk)} bytes says {n} messages")
            found += n
            chunks.append(chunk)
        if found != count:
            raise _damaged(queue, f"holds {found} messages, its pointer says {count}")
        return lsn, chunks, bool(flags & IN_KEY_ORDER)

    def _iter(self, queue: str, gen: int) -> Iterator[StoredMessage]:
        name = _name(queue)
        with self.env.read(buffers=True) as txn:
            raw = txn.get(name, db=self._pointers)
            if raw is None or POINTER.unpack(raw)[0] != gen:
                raise errors.TpfEmuError(f"the checkpoint of {queue!r} was replaced while loaded")
            for value in self._chunk_values(txn, name, gen):
                yield from decode(bytes(value), queue)

    def _chunk_values(self, txn, name: bytes, gen: int) -> Iterator[memoryview]:
        start = _chunk_key(name, gen, 0)
        stop = _chunk_key(name, gen + 1, 0)
        cur = txn.cursor(db=self._chunks)
        if not cur.set_range(start):
            return
        for key, value in cur:
            if bytes(key) >= stop:
                return
            yield value


# -- the periodic checkpoint ---------------------------------------------------------------

Snapshot = Callable[[], Iterable[tuple[str, Iterable[StoredMessage] | None, int]]]
"""Returns (queue name, its committed persistent messages, its replay point) for every memory
queue (see the module docstring for the replay point). The messages are None for a queue
that is as its last checkpoint holds it: only its replay point moves
(:meth:`CheckpointStore.advance`)."""


class Checkpointer:
    """Checkpoints every memory queue every ``interval`` seconds (TPF: 5) and at stop.

    A round calls ``snapshot()``, writes each queue's checkpoint, deletes the checkpoints of
    queues not in the round (deleted queues), then trims ``log`` below the smallest replay
    point. A failed round (e.g. StorageFull) trims nothing: the previous checkpoints and
    the whole log tail stay in force; the thread keeps the error in :attr:`last_error`
    and tries again at the next interval.

    :param log: anything with ``trim(upto_lsn)`` (a :class:`RecoveryLog`).
    """

    def __init__(self, store: CheckpointStore, log, snapshot: Snapshot, *,
                 interval: float = 5.0) -> None:  # fmt: skip
        if interval <= 0:
            raise ValueError(f"interval must be positive, not {interval}")
        self.store = store
        self.log = log
        self.snapshot = snapshot
        self.interval = interval
        self.rounds = 0
        self.last_error: Exception | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def checkpoint(self) -> int | None:
        """Run one round now, in this thread; return the LSN the log was trimmed below
        (None when there was no queue). Raises what the round raised."""
        points = []
        names = set()
        for name, messages, replay_point in self.snapshot():
            if messages is None:
                self.store.advance(name, replay_point)
            else:
                self.store.write(name, messages, replay_point)
            names.add(name)
            points.append(replay_point)
        for stale in set(self.store.queues()) - names:
            self.store.delete(stale)
        self.rounds += 1
        if not points:
            return None
        upto = min(points)
        self.log.trim(upto)
        return upto

    def start(self) -> Checkpointer:
        """Start the checkpoint thread (self, for chaining)."""
        self._thread = threading.Thread(target=self._run, name="tpfemu-checkpointer",
                                        daemon=True)  # fmt: skip
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.checkpoint()
                self.last_error = None
            except Exception as exc:  # kept for the caller; the next round retries
                self.last_error = exc

    def stop(self, *, final: bool = True) -> None:
        """Stop the thread; with ``final``, then run a last round (the checkpoint at stop)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if final:
            self.checkpoint()


# -- helpers ------------------------------------------------------------------------------


def _name(queue: str) -> bytes:
    name = queue.encode()
    if not 0 < len(name) < 256:
        raise ValueError(f"queue name must be 1-255 bytes: {queue!r}")
    return name


def _prefix(name: bytes) -> bytes:
    return bytes([len(name)]) + name


def _chunk_key(name: bytes, gen: int, chunk_no: int) -> bytes:
    return _prefix(name) + _GEN_CHUNK.pack(gen, chunk_no)


def _put_chunks(txn, db, chunks: list[tuple[bytes, bytes]]) -> None:
    for key, chunk in chunks:
        txn.put(key, chunk, db=db)


def _delete_generation(txn, db, name: bytes, gen: int) -> None:
    cur = txn.cursor(db=db)
    stop = _chunk_key(name, gen + 1, 0)
    if not cur.set_range(_chunk_key(name, gen, 0)):
        return
    while cur.key() and cur.key() < stop:
        if not cur.delete():
            return


class _Order:
    """Whether the keys seen so far ascend."""

    __slots__ = ("last", "ascending")

    def __init__(self) -> None:
        self.last = -1
        self.ascending = True


def _encode_chunks(
    messages: Iterable[StoredMessage], order: _Order
) -> Iterator[tuple[bytes, int]]:
    """(chunk, message count) for ``messages``, each chunk about CHUNK_BYTES of data."""
    pack = DESC.pack
    descs: list[bytes] = []
    datas: list[bytes | memoryview] = []
    size = 0
    last = order.last
    for m in messages:
        key, mid, cid, prio, expiry, put_time, ctx_len, backouts, data = m
        if key <= last:
            order.ascending = False
        last = key
        descs.append(pack(key, mid, cid, prio, expiry, put_time, ctx_len, backouts, len(data)))
        datas.append(data)
        size += len(data)
        if size >= CHUNK_BYTES or len(descs) >= CHUNK_MESSAGES:
            yield b"".join([COUNT.pack(len(descs)), *descs, *datas]), len(descs)
            descs, datas, size = [], [], 0
    if descs:
        yield b"".join([COUNT.pack(len(descs)), *descs, *datas]), len(descs)


def decode(chunk: bytes | bytearray, queue: str) -> list[StoredMessage]:
    """The messages of a chunk of ``queue``'s checkpoint.

    :raises ObjectDamaged: the chunk is not readable (naming the queue).
    """
    try:
        return decode_chunk(chunk)
    except (ValueError, struct.error) as exc:
        raise _damaged(queue, str(exc)) from exc


def _damaged(queue: str, detail: str) -> errors.MQMIError:
    error = errors.error_for(cmqc.MQRC_OBJECT_DAMAGED, call="checkpoint load", obj=queue)
    error.detail = detail
    return error
