"""The registry of a complex's processor-shared queues: processors and the queue directory.

:class:`SharedQueueStore` is one processor's view of the complex. Opening it registers the
CPU ID in ``MQ.SHARED.CPUS`` (refusing one that a live process holds) and starts a new
*incarnation* of that processor, so that the claims of its units of work and its browse
locks are told apart from those of its earlier starts. It opens, creates, lists and
deletes queues in the directory ``MQ.SHARED.QUEUES``, and at restart finds the *in-doubt*
work of the processor's previous incarnation (claims and puts of units of work that never
ended; see :mod:`tpfemu.store.shared.indoubt`) so that the queue manager can move it to
SPECIAL.RECOVERY.QUEUE.
"""

from __future__ import annotations

import itertools
import os
import threading
import time
from collections.abc import Callable

from tpfemu import errors
from tpfemu._lowlevel import check_settings
from tpfemu.errors import TpfcsError
from tpfemu.mq import cmqc
from tpfemu.store.shared import indoubt
from tpfemu.store.shared.codecs import (
    COUNTER_BITS,
    CPU_REC,
    DATA_STORE,
    DIRECTORY,
    GEN_KEY,
    MISSING,
    PROCESSORS,
    Head,
    check_cpu,
    queue_key,
    u64,
)
from tpfemu.store.shared.indoubt import Finished, InDoubt
from tpfemu.store.shared.queue import SharedQueue
from tpfemu.store.tpfcs import Lifetime, Tpfcs, Transaction
from tpfemu.store.tpfcs.env import alive, process_stat

__all__ = ["SharedQueueStore"]

_active: set[tuple[str, bytes]] = set()  # (store path, CPU ID) open in this process
_active_lock = threading.Lock()


def _keyed_set(t: Transaction, data_store: str, name: str) -> bytes:
    """The PID of long-term key sorted set ``name``, created if it is not there."""
    try:
        return t.lookup(data_store, name)
    except TpfcsError as exc:
        if exc.code not in MISSING:
            raise
    return t.create_keyed_set(data_store, Lifetime.LONG_TERM, name=name)


def _get_or_none(t: Transaction | Tpfcs, pid: bytes, key: bytes) -> bytes | None:
    try:
        return t.at_key(pid, key)
    except TpfcsError as exc:
        if exc.code in MISSING:
            return None
        raise


class SharedQueueStore:
    """One processor's view of the shared queues of a complex (one per process and home).

    Open it with :meth:`open` (or wrap an open :class:`Tpfcs`), then get queues with
    :meth:`queue`. Opening registers ``cpu`` in the store and starts a new *incarnation*
    of it; a CPU ID held by another live process is refused.
    """

    def __init__(self, store: Tpfcs, cpu: str, *, data_store: str = DATA_STORE,
                 owns_store: bool = False, reserve: int | None = None) -> None:
        self._cpu4 = check_cpu(cpu)
        #: bytes below the store's ceiling that puts leave free, so that commits, backouts
        #: and gets (which need a few pages too: LMDB copies on write) still work when
        #: puts are refused with StorageFull.
        self.reserve = reserve if reserve is not None else \
            min(max(store.max_size // 8, 256 * 1024), 64 * 1024 * 1024)
        self.cpu = cpu
        self._tpfcs = store
        self._ds = data_store
        self._owns_store = owns_store
        self._closed = False
        self._queues: list[SharedQueue] = []
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        me = process_stat(os.getpid())
        self._me = (os.getpid(), me[1] if me else 0)
        self._slot = (os.path.realpath(store.path), self._cpu4)
        with _active_lock:
            if self._slot in _active:
                raise errors.TpfEmuError(
                    f"processor {cpu} is already active in this complex (this process)")
            _active.add(self._slot)
        try:
            result = store.transact(self._register)
        except BaseException:
            self._release_slot()
            raise
        if result[0] == "busy":
            self._release_slot()
            raise errors.TpfEmuError(
                f"processor {cpu} is already active in this complex (OS pid {result[1]})")
        _, self._dir, self._cpus, self.incarnation, self._gen = result
        self._owner_base = self._cpu4 + self.incarnation.to_bytes(4, "big")

    @classmethod
    def open(cls, home: str | os.PathLike[str], cpu: str, *, data_store: str = DATA_STORE,
             reserve: int | None = None, **tpfcs_options) -> SharedQueueStore:
        """Open the store of ``home`` (``Tpfcs.open(home, **tpfcs_options)``) as ``cpu``.

        :param reserve: bytes below the map's ceiling kept for commits and gets: a put
            that would leave less raises StorageFull (default: 1/8 of the ceiling, at
            least 256 KiB, at most 64 MiB).
        """
        store = Tpfcs.open(home, **tpfcs_options)
        try:
            return cls(store, cpu, data_store=data_store, owns_store=True, reserve=reserve)
        except BaseException:
            store.close()
            raise

    def _register(self, t: Transaction):
        if self._ds not in t.data_stores():
            t.create_data_store(self._ds)
        directory = _keyed_set(t, self._ds, DIRECTORY)
        cpus = _keyed_set(t, self._ds, PROCESSORS)
        incarnation = 0
        raw = _get_or_none(t, cpus, self._cpu4)
        if raw is not None:
            incarnation, os_pid, start, _ = CPU_REC.unpack(raw)
            if os_pid and os_pid != self._me[0] and alive(os_pid, start):
                return ("busy", os_pid)
        incarnation += 1
        t.at_key_put(cpus, self._cpu4, CPU_REC.pack(incarnation, *self._me, time.time()))
        raw = _get_or_none(t, cpus, GEN_KEY)
        gen = 1 if raw is None else int.from_bytes(raw, "big") + 1
        t.at_key_put(cpus, GEN_KEY, u64(gen))
        return ("ok", directory, cpus, incarnation, gen)

    # --- life cycle ---------------------------------------------------------------------------

    @property
    def store(self) -> Tpfcs:
        """The TPFCS-like store underneath."""
        return self._tpfcs

    @property
    def directory(self) -> bytes:
        """The PID of the queue directory (queue name -> header)."""
        return self._dir

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed

    def __enter__(self) -> SharedQueueStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close every queue opened here (their cursors release their locks), mark the
        processor stopped, and close the store if :meth:`open` opened it. Units of work
        still open stay claimed: the next incarnation finds them in doubt."""
        if self._closed:
            return
        for q in list(self._queues):
            q.close()

        def stop(t: Transaction) -> None:
            inc, os_pid, start, opened = CPU_REC.unpack(t.at_key(self._cpus, self._cpu4))
            if inc == self.incarnation:
                t.at_key_put(self._cpus, self._cpu4, CPU_REC.pack(inc, 0, start, opened))
        try:
            self._tpfcs.transact(stop)
        except (TpfcsError, errors.StorageFull):
            pass
        finally:
            self._closed = True
            self._release_slot()
            if self._owns_store:
                self._tpfcs.close()

    def _release_slot(self) -> None:
        with _active_lock:
            _active.discard(self._slot)

    def _check(self) -> None:
        if self._closed:
            raise errors.TpfEmuError(f"the shared queue store of processor {self.cpu} is closed")

    # --- queues -------------------------------------------------------------------------------

    def queue(self, name: str, *, create: bool = True, max_depth: int = 0,
              max_msg_length: int = 4 * 1024 * 1024, fifo: bool = False,
              default_priority: int = 0, msgid_prefix: bytes = b"") -> SharedQueue:
        """Open shared queue ``name``, creating it (with these settings) if it does not
        exist and ``create`` is true. The settings of an existing queue are kept (use
        :meth:`SharedQueue.configure` for ALTER); ``msgid_prefix`` is this processor's.

        :raises UnknownObjectName: it does not exist and ``create`` is false.
        """
        self._check()
        check_settings(max_depth, max_msg_length, default_priority, msgid_prefix)
        qkey = queue_key(name)

        def make(t: Transaction) -> None:
            if _get_or_none(t, self._dir, qkey) is not None:
                return
            if not create:
                raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, call="MQOPEN", obj=name)
            msgs, data, owners, expired, ids = (
                t.create_keyed_set(self._ds, Lifetime.SHORT_TERM) for _ in range(5))
            head = Head(msgs, data, owners, expired, ids, max_depth=max_depth,
                        max_msg_length=max_msg_length, fifo=1 if fifo else 0,
                        default_priority=default_priority)
            t.at_new_key_put(self._dir, qkey, head.pack())
        self._tpfcs.transact(make)
        q = SharedQueue(self, name, msgid_prefix)
        with self._lock:
            self._queues.append(q)
        return q

    def queues(self) -> list[str]:
        """The names of every shared queue of the complex, sorted."""
        self._check()
        return [e.key_bytes.decode() for e in self._tpfcs.cursor(self._dir)]

    def exists(self, name: str) -> bool:
        """True if shared queue ``name`` is defined in the complex."""
        self._check()
        return _get_or_none(self._tpfcs, self._dir, queue_key(name)) is not None

    def delete_queue(self, name: str) -> None:
        """Delete shared queue ``name`` and every message on it, for every processor.

        :raises UnknownObjectName: no such queue.
        """
        self._check()
        qkey = queue_key(name)

        def drop(t: Transaction) -> None:
            raw = _get_or_none(t, self._dir, qkey)
            if raw is None:
                raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, call="DELETE", obj=name)
            head = Head.unpack(raw)
            for pid in (head.msgs, head.data, head.owners, head.expired_pid, head.ids):
                t.delete_collection(pid)
            t.remove_key(self._dir, qkey)
        self._tpfcs.transact(drop)
        for q in list(self._queues):
            if q.name == name:
                q.close()

    def forget(self, q: SharedQueue) -> None:
        """Drop a closed queue from the queues this processor has open."""
        with self._lock:
            if q in self._queues:
                self._queues.remove(q)

    # --- in-doubt work at restart -------------------------------------------------------------

    def _doubtful(self, cpu: str | None) -> tuple[bytes, Finished]:
        """The CPU ID (4 bytes) whose work is examined and which incarnations of it are
        finished (their open units of work in doubt)."""
        if cpu is None or cpu == self.cpu:
            mine = self.incarnation
            return self._cpu4, lambda inc: inc < mine
        cpu4 = check_cpu(cpu)
        raw = _get_or_none(self._tpfcs, self._cpus, cpu4)
        if raw is None:
            return cpu4, lambda inc: True
        inc, os_pid, start, _ = CPU_REC.unpack(raw)
        if os_pid and alive(os_pid, start):
            raise errors.TpfEmuError(f"processor {cpu} is active (OS pid {os_pid}): its units "
                                     "of work are not in doubt")
        return cpu4, lambda i: i <= inc

    def in_doubt(self, cpu: str | None = None) -> list[InDoubt]:
        """The puts and gets of units of work of ``cpu`` (this processor by default) that
        were still open when an earlier incarnation of it ended, on every shared queue.

        Nothing is changed; :meth:`settle_in_doubt` removes them once they are safe
        elsewhere. Another processor's work can be examined only while no live process
        holds that CPU ID.
        """
        self._check()
        cpu4, finished = self._doubtful(cpu)
        found: list[InDoubt] = []
        for name in self.queues():
            found.extend(indoubt.find(self._tpfcs, self._dir, name, cpu4, finished))
        return found

    def settle_in_doubt(self, items: list[InDoubt]) -> int:
        """Remove in-doubt entries (from :meth:`in_doubt`) from their queues. Returns how
        many were removed; an entry already settled (by another processor, say) is
        skipped."""
        self._check()
        by_queue: dict[str, list[InDoubt]] = {}
        for item in items:
            by_queue.setdefault(item.queue, []).append(item)
        return sum(indoubt.settle(self._tpfcs, self._dir, name, group)
                   for name, group in by_queue.items())

    def release_stale_locks(self, cpu: str | None = None) -> int:
        """Release the browse locks (MQGMO_LOCK) held by finished incarnations of ``cpu``
        (this processor by default); return how many."""
        self._check()
        cpu4, finished = self._doubtful(cpu)
        return sum(indoubt.release_locks(self._tpfcs, self._dir, name, cpu4, finished)
                   for name in self.queues())

    def recover_in_doubt(self, cpu: str | None = None,
                         sink: Callable[[InDoubt], object] | None = None) -> list[InDoubt]:
        """At a processor's restart: find its in-doubt work (:meth:`in_doubt`), hand each
        entry to ``sink`` (the queue manager puts it on SPECIAL.RECOVERY.QUEUE), then remove
        them from the shared queues (:meth:`settle_in_doubt`) and release its stale browse
        locks. Returns the entries.

        If the process dies after ``sink`` and before the removal, the next restart finds
        the same entries again: delivery to the sink is at least once. If ``sink`` raises,
        nothing is removed.
        """
        items = self.in_doubt(cpu)
        if sink is not None:
            for item in items:
                sink(item)
        self.settle_in_doubt(items)
        self.release_stale_locks(cpu)
        return items

    # --- owners and MsgIds --------------------------------------------------------------------

    def owner(self, uow: int) -> bytes:
        """The owner key of this incarnation's unit of work ``uow`` (as stored)."""
        return self._owner_base + b"U" + u64(uow)

    def lock_owner(self, serial: int) -> bytes:
        """The owner key of this incarnation's browse cursor number ``serial``."""
        return self._owner_base + b"L" + u64(serial)

    def msg_counter(self) -> int:
        """The next number for a MsgId generated here: unique in the complex, as the
        open's generation number is in its high bits."""
        low = next(self._ids) & ((1 << COUNTER_BITS) - 1)
        return ((self._gen & 0xFFFFFF) << COUNTER_BITS) | low
