"""Processor-shared (COMMON-YES) queues on the TPFCS-like store.

On z/TPF a queue defined ``COMMON-YES`` is not memory resident: it is one TPF collection
support (TPFCS) collection that every processor of the loosely coupled complex reaches by
its PID (TPF 4.1 "Processor Unique Queues versus Processor Shared Queues", seed 004). Here
every OS process that opens the same home is a processor of the complex, and a shared
queue lives in the LMDB environment of :mod:`tpfemu.store.tpfcs`.

:class:`SharedQueue` offers what the queue manager uses of
:class:`tpfemu._lowlevel.CoreQueue` - ``put``, ``put_message``, ``get``, ``get_body``,
``get_message`` (matching, truncation, browse cursors and locks), ``commit``, ``backout``,
``depth``, ``depth_at_least``, ``take_expired``, ``discard_expired``, ``purge``,
``configure``, ``cursor``, ``stats``, ``close`` - with the same results and exceptions,
and returns the same :class:`~tpfemu._lowlevel.Message` and
:class:`~tpfemu._lowlevel.Descriptor` objects. What differs is that every call is one
LMDB write (or read) transaction, so it is atomic across every process of the complex:

- a put in a unit of work is invisible to every getter until its commit;
- a get in a unit of work hides the message from every getter at once (the claim and the
  search are one write transaction, so no two processors ever take one message);
- units of work are qualified by processor: the owner of a claim is the CPU ID, that
  processor's *incarnation* (a number bumped by each :meth:`SharedQueueStore.open`) and the
  queue manager's unit-of-work id, so two processors' "uow 7" never meet;
- :meth:`SharedQueue.version` is a change counter in the store that a getter waiting in
  another process can poll (a condition variable cannot cross processes);
- a full map or disk raises :class:`~tpfemu.errors.StorageFull` on the call that hit it,
  and that call's transaction is aborted whole.

:class:`SharedQueueStore` is one processor's view of the complex: it registers the CPU ID
(refusing one that a live process holds), opens and creates queues, and at restart finds
the *in-doubt* work of the processor's previous incarnation (claims and puts of units of
work that never ended) so that the queue manager can move it to SPECIAL.RECOVERY.QUEUE.

Layout, in data store ``MQS`` (see docs/tpfcs.md, "Processor-shared queues"):

- ``MQ.SHARED.QUEUES`` (key sorted set, long-term): queue name -> the queue's header:
  the PIDs of its four collections, its settings and its counters.
- ``MQ.SHARED.CPUS`` (key sorted set, long-term): CPU ID -> incarnation, OS pid and start
  time of the process that holds it; key ``#GEN`` numbers every open (MsgId generation).
- per queue, five short-term key sorted sets keyed by the message key (one byte
  ``9 - placement priority``, then the 8-byte put sequence, so key order is delivery
  order): ``msgs`` (the state record: state, owner, descriptor; in three key ranges,
  ``A`` available, ``L`` locked by a browse cursor, ``H`` hidden by a unit of work),
  ``data`` (the message bytes), ``owners`` (owner + message key -> what the owner did:
  put, get, lock), ``expired`` (discarded expired messages waiting for
  :meth:`SharedQueue.take_expired`) and ``ids`` (the MsgId and CorrelId index).
"""

from __future__ import annotations

import itertools
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from tpfemu import errors
from tpfemu._lowlevel import (
    MQGMO,
    NEVER,
    PRIORITIES,
    CursorMoves,
    Descriptor,
    Message,
    check_id,
    check_settings,
)
from tpfemu.errors import TpfcsError
from tpfemu.mq import cmqc
from tpfemu.store.tpfcs import Lifetime, Tpfcs, Transaction
from tpfemu.store.tpfcs_env import alive, process_stat
from tpfemu.store.tpfcs_layout import TO2_ERROR_EMPTY, TO2_ERROR_LOCATOR_NOT_FOUND

__all__ = ["SharedQueueStore", "SharedQueue", "SharedCursor", "InDoubt", "DATA_STORE"]

T = TypeVar("T")

DATA_STORE = "MQS"
DIRECTORY = "MQ.SHARED.QUEUES"
PROCESSORS = "MQ.SHARED.CPUS"
ID_LEN = 24
PREFIX_LEN = 16
MAX_CTX = 4096
_ZERO_ID = bytes(ID_LEN)
_GEN_KEY = b"#GEN"
_COUNTER_BITS = 39  # low bits of a generated MsgId counted in the process; the rest: open no.

# message states (the first byte of a state record)
AVAILABLE, PUT, GOT, LOCKED = 0, 1, 2, 3
# what an owner did to a message (the data of an `owners` element)
_OP_PUT, _OP_GET, _OP_LOCK = b"P", b"G", b"L"
_OPS = {_OP_PUT: "put", _OP_GET: "get", _OP_LOCK: "lock"}

_BROWSE_FIRST = MQGMO["MQGMO_BROWSE_FIRST"]
_BROWSE_NEXT = MQGMO["MQGMO_BROWSE_NEXT"]
_BROWSE_UNDER = MQGMO["MQGMO_BROWSE_MSG_UNDER_CURSOR"]
_UNDER = MQGMO["MQGMO_MSG_UNDER_CURSOR"]
_LOCK = MQGMO["MQGMO_LOCK"]
_UNLOCK = MQGMO["MQGMO_UNLOCK"]
_ACCEPT = MQGMO["MQGMO_ACCEPT_TRUNCATED_MSG"]
_BROWSE_BITS = _BROWSE_FIRST | _BROWSE_NEXT | _BROWSE_UNDER
_CURSOR_BITS = _BROWSE_BITS | _UNDER | _LOCK | _UNLOCK

_RC_NONE = 0
_RC_NO_MSG = cmqc.MQRC_NO_MSG_AVAILABLE
_RC_NO_UNDER = cmqc.MQRC_NO_MSG_UNDER_CURSOR
_RC_TRUNC_FAILED = cmqc.MQRC_TRUNCATED_MSG_FAILED
_RC_TRUNC_ACCEPTED = cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
_RC_NO_LOCKED = cmqc.MQRC_NO_MSG_LOCKED
_RC_Q_FULL = cmqc.MQRC_Q_FULL
_RC_TOO_BIG = cmqc.MQRC_MSG_TOO_BIG_FOR_Q

_MISSING = (TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_EMPTY)
_PUT_SLACK = 16 * 1024  # a put's own pages (B-tree copies) beyond its data
_active: set[tuple[str, bytes]] = set()  # (store path, CPU ID) open in this process
_active_lock = threading.Lock()


def _now_us() -> int:
    return time.time_ns() // 1000


def _u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def _check_cpu(cpu: object) -> bytes:
    if not isinstance(cpu, str) or not 1 <= len(cpu) <= 4 or not cpu.isascii() \
            or not cpu.isalnum() or cpu != cpu.upper():
        raise ValueError(f"a CPU ID is 1-4 characters of A-Z 0-9, not {cpu!r}")
    return cpu.encode().ljust(4, b" ")


# --- records ------------------------------------------------------------------------------

# owner: CPU ID (4) + incarnation (4) + kind (1: U unit of work, L cursor lock) + id (8)
OWNER_LEN = 17
_NO_OWNER = bytes(OWNER_LEN)


def owner_key(cpu4: bytes, incarnation: int, kind: bytes, ident: int) -> bytes:
    """The 17-byte owner of a claim: CPU ID, incarnation, kind and id."""
    return cpu4 + incarnation.to_bytes(4, "big") + kind + _u64(ident)


def _split_owner(owner: bytes) -> tuple[str, int, bytes, int]:
    return (owner[:4].decode().rstrip(), int.from_bytes(owner[4:8], "big"), owner[8:9],
            int.from_bytes(owner[9:17], "big"))


_REC = struct.Struct("<B17sBBiIIqqQQ24s24s")


@dataclass(slots=True)
class _Rec:
    """A message's state record (``msgs``): where it stands and its descriptor."""

    state: int
    owner: bytes
    priority: int
    persistent: int
    backout_count: int
    ctx_len: int
    length: int
    expiry: int
    put_time: int
    seq: int
    uow: int
    msg_id: bytes
    correl_id: bytes

    def pack(self) -> bytes:
        return _REC.pack(self.state, self.owner, self.priority, self.persistent,
                         self.backout_count, self.ctx_len, self.length, self.expiry,
                         self.put_time, self.seq, self.uow, self.msg_id, self.correl_id)

    @classmethod
    def unpack(cls, raw: bytes) -> _Rec:
        return cls(*_REC.unpack_from(raw))

    def descriptor(self) -> Descriptor:
        return Descriptor(self.msg_id, self.correl_id, self.priority, bool(self.persistent),
                          self.expiry, self.put_time, self.ctx_len, self.seq, self.uow,
                          self.backout_count, self.length)

    def expired(self, now: int) -> bool:
        return self.expiry != NEVER and now >= self.expiry


# The state records of one queue are in three key ranges of ``msgs``, so that a get finds
# the first available message without stepping over claimed ones.
_RANGE = {AVAILABLE: b"A", LOCKED: b"L", PUT: b"H", GOT: b"H"}


def _rkey(state: int, key: bytes) -> bytes:
    return _RANGE[state] + key


def _read(t: Transaction, pid: bytes, state: int, key: bytes) -> _Rec | None:
    """The state record of message ``key`` if it is in the range of ``state``."""
    try:
        return _Rec.unpack(t.at_key(pid, _rkey(state, key)))
    except TpfcsError as exc:
        if exc.code in _MISSING:
            return None
        raise


def _change(t: Transaction, pid: bytes, key: bytes, rec: _Rec, old_state: int) -> None:
    """Store ``rec`` (its new state set) for ``key``, moving it between ranges if needed."""
    if _RANGE[old_state] == _RANGE[rec.state]:
        t.at_key_put(pid, _rkey(rec.state, key), rec.pack())
    else:
        t.remove_key(pid, _rkey(old_state, key))
        t.at_new_key_put(pid, _rkey(rec.state, key), rec.pack())


def _index(t: Transaction, ids: bytes, key: bytes, rec: _Rec) -> None:
    """Enter a new message in the MsgId/CorrelId index (all-zero ids are not indexed)."""
    if rec.msg_id != _ZERO_ID:
        t.at_new_key_put(ids, b"M" + rec.msg_id + key, b"")
    if rec.correl_id != _ZERO_ID:
        t.at_new_key_put(ids, b"C" + rec.correl_id + key, b"")


def _unindex(t: Transaction, ids: bytes, key: bytes, rec: _Rec) -> None:
    """Take a message that leaves the queue out of the index."""
    if rec.msg_id != _ZERO_ID:
        t.remove_key(ids, b"M" + rec.msg_id + key)
    if rec.correl_id != _ZERO_ID:
        t.remove_key(ids, b"C" + rec.correl_id + key)


_HEAD = struct.Struct("<8s8s8s8s8sIIBB8QI30I")


@dataclass(slots=True)
class _Head:
    """A shared queue's header (its directory entry): PIDs, settings, counters."""

    msgs: bytes
    data: bytes
    owners: bytes
    expired_pid: bytes
    ids: bytes
    max_depth: int = 0
    max_msg_length: int = 4 * 1024 * 1024
    fifo: int = 0
    default_priority: int = 0
    next_seq: int = 1
    version: int = 0
    next_expired: int = 1
    puts: int = 0
    gets: int = 0
    expired: int = 0
    commits: int = 0
    backouts: int = 0
    expired_pending: int = 0
    depth: list[int] = field(default_factory=lambda: [0] * PRIORITIES)
    uncommitted: list[int] = field(default_factory=lambda: [0] * PRIORITIES)
    got: list[int] = field(default_factory=lambda: [0] * PRIORITIES)

    def pack(self) -> bytes:
        return _HEAD.pack(self.msgs, self.data, self.owners, self.expired_pid, self.ids,
                          self.max_depth, self.max_msg_length, self.fifo,
                          self.default_priority, self.next_seq, self.version,
                          self.next_expired, self.puts, self.gets, self.expired, self.commits,
                          self.backouts, self.expired_pending, *self.depth,
                          *self.uncommitted, *self.got)

    @classmethod
    def unpack(cls, raw: bytes) -> _Head:
        v = _HEAD.unpack(raw)
        return cls(*v[:18], list(v[18:28]), list(v[28:38]), list(v[38:48]))


_CPU = struct.Struct("<QQQd")  # incarnation, OS pid (0 = stopped), process start, opened at


@dataclass(frozen=True, slots=True)
class InDoubt:
    """A put or get of a unit of work that never ended, found at a processor's restart.

    :ivar queue: the shared queue it is on.
    :ivar operation: ``"put"`` (the message was put and never committed) or ``"get"``
        (the message was got and the get never committed or backed out).
    :ivar cpu: the processor that did it; ``incarnation`` which start of it; ``uow`` the
        queue manager's unit-of-work id in that incarnation.
    :ivar message: the message (its whole data and descriptor; ``backout_count`` as
        stored, i.e. not incremented).
    """

    queue: str
    operation: str
    cpu: str
    incarnation: int
    uow: int
    message: Message
    key: bytes = field(repr=False, default=b"")
    owner: bytes = field(repr=False, default=b"")


class SharedQueueStore:
    """One processor's view of the shared queues of a complex (one per process and home).

    Open it with :meth:`open` (or wrap an open :class:`Tpfcs`), then get queues with
    :meth:`queue`. Opening registers ``cpu`` in the store and starts a new *incarnation*
    of it; a CPU ID held by another live process is refused.
    """

    def __init__(self, store: Tpfcs, cpu: str, *, data_store: str = DATA_STORE,
                 owns_store: bool = False, reserve: int | None = None) -> None:
        self._cpu4 = _check_cpu(cpu)
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
        pids = []
        for name in (DIRECTORY, PROCESSORS):
            try:
                pids.append(t.lookup(self._ds, name))
            except TpfcsError as exc:
                if exc.code not in _MISSING:
                    raise
                pids.append(t.create_keyed_set(self._ds, Lifetime.LONG_TERM, name=name))
        directory, cpus = pids
        incarnation = 0
        try:
            incarnation, os_pid, start, _ = _CPU.unpack(t.at_key(cpus, self._cpu4))
        except TpfcsError as exc:
            if exc.code not in _MISSING:
                raise
        else:
            if os_pid and os_pid != self._me[0] and alive(os_pid, start):
                return ("busy", os_pid)
        incarnation += 1
        t.at_key_put(cpus, self._cpu4, _CPU.pack(incarnation, *self._me, time.time()))
        gen = 1
        try:
            gen = int.from_bytes(t.at_key(cpus, _GEN_KEY), "big") + 1
        except TpfcsError as exc:
            if exc.code not in _MISSING:
                raise
        t.at_key_put(cpus, _GEN_KEY, _u64(gen))
        return ("ok", directory, cpus, incarnation, gen)

    # --- life cycle ---------------------------------------------------------------------------

    @property
    def store(self) -> Tpfcs:
        """The TPFCS-like store underneath."""
        return self._tpfcs

    @property
    def closed(self) -> bool:
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
            inc, os_pid, start, opened = _CPU.unpack(t.at_key(self._cpus, self._cpu4))
            if inc == self.incarnation:
                t.at_key_put(self._cpus, self._cpu4, _CPU.pack(inc, 0, start, opened))
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
        qkey = _queue_key(name)

        def make(t: Transaction) -> bool:
            try:
                t.at_key(self._dir, qkey)
                return False
            except TpfcsError as exc:
                if exc.code not in _MISSING:
                    raise
            if not create:
                raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, call="MQOPEN", obj=name)
            pids = [t.create_keyed_set(self._ds, Lifetime.SHORT_TERM) for _ in range(5)]
            head = _Head(*pids, max_depth=max_depth, max_msg_length=max_msg_length,
                         fifo=1 if fifo else 0, default_priority=default_priority)
            t.at_new_key_put(self._dir, qkey, head.pack())
            return True
        self._tpfcs.transact(make)
        q = SharedQueue(self, name, msgid_prefix)
        with self._lock:
            self._queues.append(q)
        return q

    def queues(self) -> list[str]:
        """The names of every shared queue of the complex, sorted."""
        self._check()
        return [e.key.decode() for e in self._tpfcs.cursor(self._dir)]

    def exists(self, name: str) -> bool:
        self._check()
        try:
            self._tpfcs.at_key(self._dir, _queue_key(name))
            return True
        except TpfcsError as exc:
            if exc.code in _MISSING:
                return False
            raise

    def delete_queue(self, name: str) -> None:
        """Delete shared queue ``name`` and every message on it, for every processor.

        :raises UnknownObjectName: no such queue.
        """
        self._check()
        qkey = _queue_key(name)

        def drop(t: Transaction) -> None:
            try:
                head = _Head.unpack(t.at_key(self._dir, qkey))
            except TpfcsError as exc:
                if exc.code in _MISSING:
                    raise errors.error_for(cmqc.MQRC_UNKNOWN_OBJECT_NAME, call="DELETE",
                                           obj=name) from None
                raise
            for pid in (head.msgs, head.data, head.owners, head.expired_pid, head.ids):
                t.delete_collection(pid)
            t.remove_key(self._dir, qkey)
        self._tpfcs.transact(drop)
        for q in list(self._queues):
            if q.name == name:
                q.close()

    def _forget(self, q: SharedQueue) -> None:
        with self._lock:
            if q in self._queues:
                self._queues.remove(q)

    # --- in-doubt work at restart -------------------------------------------------------------

    def _doubtful(self, cpu: str | None) -> tuple[bytes, Callable[[int], bool]]:
        """The CPU ID (4 bytes) whose work is examined and which incarnations of it are
        finished (their open units of work in doubt)."""
        if cpu is None or cpu == self.cpu:
            mine = self.incarnation
            return self._cpu4, lambda inc: inc < mine
        cpu4 = _check_cpu(cpu)
        try:
            inc, os_pid, start, _ = _CPU.unpack(self._tpfcs.at_key(self._cpus, cpu4))
        except TpfcsError as exc:
            if exc.code in _MISSING:
                return cpu4, lambda inc: True
            raise
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
            found.extend(self._in_doubt_on(name, cpu4, finished))
        return found

    def _in_doubt_on(self, name: str, cpu4: bytes,
                     finished: Callable[[int], bool]) -> list[InDoubt]:
        qkey = _queue_key(name)

        def scan(t: Transaction) -> list[InDoubt]:
            head = _Head.unpack(t.at_key(self._dir, qkey))
            out = []
            cur = self._tpfcs.cursor(head.owners)
            element = cur.seek(cpu4)
            while element is not None and element.key.startswith(cpu4):
                owner, key = element.key[:OWNER_LEN], element.key[OWNER_LEN:]
                _, inc, kind, ident = _split_owner(owner)
                rec = None
                if finished(inc) and element.data in (_OP_PUT, _OP_GET) and kind == b"U":
                    rec = _read(t, head.msgs, PUT, key)
                if rec is not None:
                    data = t.at_key(head.data, key)
                    out.append(InDoubt(name, _OPS[element.data], cpu4.decode().rstrip(), inc,
                                       ident, Message(data, rec.descriptor()), key, owner))
                element = cur.next()
            return out
        try:
            return self._tpfcs.transact(scan)
        except TpfcsError as exc:
            if exc.code in _MISSING:  # the queue went meanwhile
                return []
            raise

    def settle_in_doubt(self, items: list[InDoubt]) -> int:
        """Remove in-doubt entries (from :meth:`in_doubt`) from their queues, and release
        the browse locks the same incarnations held. Returns how many were removed; an
        entry already settled (by another processor, say) is skipped."""
        self._check()
        by_queue: dict[str, list[InDoubt]] = {}
        for item in items:
            by_queue.setdefault(item.queue, []).append(item)
        removed = 0
        for name, group in by_queue.items():
            qkey = _queue_key(name)

            def settle(t: Transaction, group=group, qkey=qkey) -> int:
                head = _Head.unpack(t.at_key(self._dir, qkey))
                n = 0
                for item in group:
                    try:
                        op = t.at_key(head.owners, item.owner + item.key)
                    except TpfcsError as exc:
                        if exc.code in _MISSING:
                            continue
                        raise
                    t.remove_key(head.owners, item.owner + item.key)
                    rec = _read(t, head.msgs, PUT, item.key)
                    if rec is None:
                        continue
                    t.remove_key(head.msgs, _rkey(PUT, item.key))
                    t.remove_key(head.data, item.key)
                    _unindex(t, head.ids, item.key, rec)
                    head.depth[rec.priority] -= 1
                    if op == _OP_PUT:
                        head.uncommitted[rec.priority] -= 1
                    else:
                        head.got[rec.priority] -= 1
                    n += 1
                if n:
                    head.version += 1
                    t.at_key_put(self._dir, qkey, head.pack())
                return n
            try:
                removed += self._tpfcs.transact(settle)
            except TpfcsError as exc:
                if exc.code not in _MISSING:
                    raise
        return removed

    def release_stale_locks(self, cpu: str | None = None) -> int:
        """Release the browse locks (MQGMO_LOCK) held by finished incarnations of ``cpu``
        (this processor by default); return how many."""
        self._check()
        cpu4, finished = self._doubtful(cpu)
        released = 0
        for name in self.queues():
            qkey = _queue_key(name)

            def release(t: Transaction, qkey=qkey) -> int:
                head = _Head.unpack(t.at_key(self._dir, qkey))
                cur = self._tpfcs.cursor(head.owners)
                element = cur.seek(cpu4)
                doomed = []
                while element is not None and element.key.startswith(cpu4):
                    if element.data == _OP_LOCK and finished(
                            _split_owner(element.key[:OWNER_LEN])[1]):
                        doomed.append(element.key)
                    element = cur.next()
                for k in doomed:
                    key = k[OWNER_LEN:]
                    t.remove_key(head.owners, k)
                    rec = _read(t, head.msgs, LOCKED, key)
                    if rec is not None and rec.owner == k[:OWNER_LEN]:
                        rec.state, rec.owner = AVAILABLE, _NO_OWNER
                        _change(t, head.msgs, key, rec, LOCKED)
                if doomed:
                    head.version += 1
                    t.at_key_put(self._dir, qkey, head.pack())
                return len(doomed)
            try:
                released += self._tpfcs.transact(release)
            except TpfcsError as exc:
                if exc.code not in _MISSING:
                    raise
        return released

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

    def owner(self, uow: int) -> bytes:
        """The owner key of this incarnation's unit of work ``uow`` (as stored)."""
        return self._owner_base + b"U" + _u64(uow)

    def _msg_counter(self) -> int:
        low = next(self._ids) & ((1 << _COUNTER_BITS) - 1)
        return ((self._gen & 0xFFFFFF) << _COUNTER_BITS) | low


def _queue_key(name: str) -> bytes:
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 48:
        raise ValueError(f"a queue name is 1-48 characters, not {name!r}")
    return name.encode()


@dataclass(slots=True)
class _Outcome:
    """What a get transaction decided; applied to Python state after it committed."""

    rc: int = _RC_NONE
    rec: _Rec | None = None
    data: bytes = b""
    pos: bytes | None = None  # the cursor's new position, if it moved
    locked: bytes | None = None  # the cursor's new locked message
    unlocked: bool = False  # the cursor no longer holds a lock
    pending: int = 0  # expired messages waiting for take_expired


class SharedQueue:
    """The messages of one processor-shared queue, as :class:`CoreQueue` holds a memory
    queue's; make it with :meth:`SharedQueueStore.queue`.

    Thread-safe like CoreQueue (each call is one transaction); a :class:`SharedCursor` is
    used by one thread at a time.
    """

    def __init__(self, space: SharedQueueStore, name: str, msgid_prefix: bytes = b"") -> None:
        self.name = name
        self._space = space
        self._tpfcs = space.store
        self._dir = space._dir
        self._qkey = _queue_key(name)
        self._prefix = bytes(msgid_prefix).ljust(PREFIX_LEN, b"\0")
        self._cursors: list[SharedCursor] = []
        self._closed = False
        self._browses = 0

    # --- life cycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close this processor's handle on the queue (its cursors first); the messages
        stay in the store."""
        if self._closed:
            return
        for c in list(self._cursors):
            c.close()
        self._closed = True
        self._space._forget(self)

    def __enter__(self) -> SharedQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _check(self) -> None:
        if self._closed or self._space.closed:
            raise errors.TpfEmuError(f"queue {self.name!r} is closed")

    def _head(self, t: Transaction | Tpfcs) -> _Head:
        try:
            return _Head.unpack(t.at_key(self._dir, self._qkey))
        except TpfcsError as exc:
            if exc.code in _MISSING:
                raise errors.TpfEmuError(f"shared queue {self.name!r} was deleted") from None
            raise

    def _save(self, t: Transaction, head: _Head) -> None:
        head.version += 1
        t.at_key_put(self._dir, self._qkey, head.pack())

    def _run(self, fn: Callable[[Transaction], T]) -> T:
        self._check()
        return self._tpfcs.transact(fn)

    def configure(self, *, max_depth: int = 0, max_msg_length: int = 4 * 1024 * 1024,
                  fifo: bool = False, default_priority: int = 0,
                  msgid_prefix: bytes = b"") -> None:
        """Change the settings (for every processor; ``msgid_prefix`` is this one's);
        messages already on the queue keep their places."""
        check_settings(max_depth, max_msg_length, default_priority, msgid_prefix)

        def change(t: Transaction) -> None:
            head = self._head(t)
            head.max_depth, head.max_msg_length = max_depth, max_msg_length
            head.fifo, head.default_priority = (1 if fifo else 0), default_priority
            self._save(t, head)
        self._run(change)
        self._prefix = bytes(msgid_prefix).ljust(PREFIX_LEN, b"\0")

    # --- put ----------------------------------------------------------------------------------

    def put(self, data: bytes, priority: int = 0, uow: int = 0) -> None:
        """Put a non-persistent, never-expiring message with a generated MsgId."""
        self.put_message(data, priority=priority, uow=uow)

    def put_message(self, data: bytes, *, priority: int = 0, persistent: bool = False,
                    expiry: int = NEVER, msg_id: bytes | None = None,
                    correl_id: bytes | None = None, uow: int = 0, ctx_len: int = 0,
                    put_time: int = 0) -> tuple[bytes, int]:
        """Put a message with a full descriptor; return its MsgId and put sequence (as
        :meth:`CoreQueue.put_message`).

        :raises QueueFull, MessageTooBig, PriorityError, ExpiryError, StorageFull.
        """
        if isinstance(data, str):
            raise TypeError("message data must be bytes-like, not str (encode it first)")
        try:
            body = bytes(memoryview(data))
        except TypeError:
            raise TypeError(f"message data must be bytes-like, not {type(data).__name__}") \
                from None
        if not 0 <= ctx_len <= len(body):
            raise ValueError(f"ctx_len must be 0 to the data length {len(body)}, not {ctx_len}")
        if ctx_len > MAX_CTX:
            raise errors.InternalError(f"MQPUT on {self.name!r}: context record over {MAX_CTX}")
        if not isinstance(priority, int) or not 0 <= priority < PRIORITIES:
            raise errors.error_for(cmqc.MQRC_PRIORITY_ERROR, call="MQPUT", obj=self.name)
        if expiry <= 0:
            raise errors.error_for(cmqc.MQRC_EXPIRY_ERROR, call="MQPUT", obj=self.name)
        if uow < 0:
            raise ValueError(f"a unit of work id is 0 or positive, not {uow}")
        mid = check_id(msg_id, "msg_id")
        cid = check_id(correl_id, "correl_id")
        if mid == _ZERO_ID:
            mid = self._prefix + _u64(self._space._msg_counter())
        stamp = put_time or _now_us()
        owner = self._space.owner(uow) if uow else _NO_OWNER
        limit = self._tpfcs.max_size - self._space.reserve

        def put(t: Transaction) -> tuple[int, int]:
            head = self._head(t)
            if len(body) > head.max_msg_length:
                return _RC_TOO_BIG, 0
            if head.max_depth and sum(head.depth) >= head.max_depth:
                return _RC_Q_FULL, 0
            if self._tpfcs.usage() + len(body) + _PUT_SLACK > limit:
                return cmqc.MQRC_STORAGE_MEDIUM_FULL, 0
            seq = head.next_seq
            head.next_seq += 1
            eprio = head.default_priority if head.fifo else priority
            key = bytes((9 - eprio,)) + _u64(seq)
            rec = _Rec(PUT if uow else AVAILABLE, owner, priority, 1 if persistent else 0, 0,
                       ctx_len, len(body), expiry, stamp, seq, uow, mid, cid)
            t.at_new_key_put(head.msgs, _rkey(rec.state, key), rec.pack())
            t.at_new_key_put(head.data, key, body)
            _index(t, head.ids, key, rec)
            head.depth[priority] += 1
            head.puts += 1
            if uow:
                t.at_new_key_put(head.owners, owner + key, _OP_PUT)
                head.uncommitted[priority] += 1
            self._save(t, head)
            return _RC_NONE, seq
        rc, seq = self._run(put)
        if rc:
            exc = errors.error_for(rc, call="MQPUT", obj=self.name)
            if rc == cmqc.MQRC_STORAGE_MEDIUM_FULL:
                exc.store, exc.limit = str(self._tpfcs.path), self._tpfcs.max_size
            raise exc
        return mid, seq

    # --- get ----------------------------------------------------------------------------------

    def get(self, uow: int = 0) -> bytes:
        """Get the first message in delivery order, whole: its bytes."""
        return self.get_message(uow=uow).data

    def get_body(self, uow: int = 0) -> bytes:
        """As :meth:`get`, without the context record at the head of the data."""
        msg = self.get_message(uow=uow)
        return msg.data[msg.descriptor.ctx_len:]

    def _on_expired_pending(self) -> None:
        """Hook for the layer above (expiration reports), as on CoreQueue."""

    def get_message(self, *, msg_id: bytes | None = None, correl_id: bytes | None = None,
                    uow: int = 0, max_length: int | None = None,
                    accept_truncated: bool = False, now: int | None = None,
                    cursor: SharedCursor | None = None, options: int = 0,
                    cap_body: bool = False) -> Message:
        """Get (or, with a cursor and browse options, browse) one message, exactly as
        :meth:`CoreQueue.get_message` does.

        :raises NoMessageAvailable, NoMessageUnderCursor, TruncatedMessage, OptionsError,
            NoMessageLocked, StorageFull.
        """
        o = options | (_ACCEPT if accept_truncated else 0)
        browse = o & _BROWSE_BITS
        if (browse & (browse - 1)) or (o & _UNDER and browse) \
                or (o & _LOCK and (not browse or o & _UNLOCK)) \
                or (o & _UNLOCK and o & (_BROWSE_BITS | _UNDER)) \
                or (o & _CURSOR_BITS and cursor is None):
            raise errors.error_for(cmqc.MQRC_OPTIONS_ERROR, call="MQGET", obj=self.name)
        if cursor is not None and cursor.queue is not self:
            raise errors.InternalError(f"MQGET on {self.name!r}: the cursor is another queue's")
        if cursor is not None:
            cursor._check()
        if uow < 0:
            raise ValueError(f"a unit of work id is 0 or positive, not {uow}")
        mid = check_id(msg_id, "msg_id")
        cid = check_id(correl_id, "correl_id")
        match_mid = mid if msg_id is not None and mid != _ZERO_ID else None
        match_cid = cid if correl_id is not None and cid != _ZERO_ID else None
        when = _now_us() if now is None else now
        capped = cap_body and max_length is not None
        uow_owner = self._space.owner(uow) if uow and not browse else _NO_OWNER

        if o & _UNLOCK:
            out = self._run(lambda t: self._unlock(t, cursor))
            if out.unlocked:
                cursor._locked = None
            if out.rc:
                raise errors.error_for(out.rc, call="MQGET", obj=self.name)
            return Message(b"", Descriptor(_ZERO_ID, _ZERO_ID, 0, False, NEVER, 0, 0, 0, 0, 0,
                                           0))

        def work(t: Transaction) -> _Outcome:
            head = self._head(t)
            out = _Outcome()
            dirty = [False]
            if o & (_UNDER | _BROWSE_UNDER):
                pos = cursor._pos
                found = None
                if pos is not None:
                    rec = _read(t, head.msgs, AVAILABLE, pos)
                    if rec is None and cursor._locked == pos:
                        rec = _read(t, head.msgs, LOCKED, pos)
                        if rec is not None and rec.owner != cursor._owner:
                            rec = None
                    if rec is not None and rec.expired(when):  # seed 001, note 6
                        self._discard(t, head, pos, rec)
                        dirty[0] = True
                    elif rec is not None:
                        found = (pos, rec)
                if found is None:
                    out.rc = _RC_NO_UNDER
            else:
                after = cursor._pos if o & _BROWSE_NEXT else None
                found = self._scan(t, head, after, cursor, match_mid, match_cid, when, dirty)
                if found is None:
                    out.rc = _RC_NO_MSG
            if found is not None:
                key, rec = found
                length = rec.length
                cap = length if max_length is None else max_length
                if capped:
                    cap += rec.ctx_len
                out.rec = rec
                if length > cap and not o & _ACCEPT:
                    out.rc = _RC_TRUNC_FAILED
                    if browse:
                        out.pos = key
                    if capped and rec.ctx_len:
                        out.data = t.at_key(head.data, key)[:rec.ctx_len]
                else:
                    data = t.at_key(head.data, key)
                    out.data = data if length <= cap else data[:cap]
                    out.rc = _RC_TRUNC_ACCEPTED if length > cap else _RC_NONE
                    if browse:
                        out.pos = key
                        if o & _LOCK:
                            self._lock(t, head, cursor, key, rec, out)
                            dirty[0] = True
                    else:
                        self._take(t, head, key, rec, uow_owner, uow)
                        if cursor is not None and cursor._locked == key:
                            out.unlocked = True
                        dirty[0] = True
            out.pending = head.expired_pending
            if dirty[0]:
                self._save(t, head)
            return out

        out = self._run(work)
        if cursor is not None:
            if out.pos is not None:
                cursor._pos = out.pos
            if out.unlocked:
                cursor._locked = None
            if out.locked is not None:
                cursor._locked = out.locked
        if out.rc not in (_RC_NONE, _RC_TRUNC_ACCEPTED):
            exc = errors.error_for(out.rc, call="MQGET", obj=self.name)
            if out.rc == _RC_TRUNC_FAILED:
                d = out.rec.descriptor()
                exc.original_length = d.length - (d.ctx_len if capped else 0)
                exc.descriptor = d
                exc.context_record = out.data
            raise exc
        if browse:
            self._browses += 1
        if out.pending:
            self._on_expired_pending()
        return Message(out.data, out.rec.descriptor(), out.rc)

    def _scan(self, t: Transaction, head: _Head, after: bytes | None,
              cursor: SharedCursor | None, mid: bytes | None, cid: bytes | None, now: int,
              dirty: list[bool]) -> tuple[bytes, _Rec] | None:
        """The first eligible, matching, unexpired message after ``after`` (or from the
        start), discarding the eligible matching expired ones met on the way. Eligible:
        available, or locked by ``cursor``."""
        def matches(rec: _Rec) -> bool:
            return (mid is None or rec.msg_id == mid) and (cid is None or rec.correl_id == cid)

        mine = None  # the message this cursor has locked, if it qualifies
        if cursor is not None and cursor._locked is not None \
                and (after is None or cursor._locked > after):
            rec = _read(t, head.msgs, LOCKED, cursor._locked)
            if rec is not None and rec.owner == cursor._owner and matches(rec):
                mine = (cursor._locked, rec)
        for key, rec in self._candidates(t, head, after, mid, cid):
            if mine is not None and mine[0] < key:
                break
            if matches(rec):
                if not rec.expired(now):
                    return key, rec
                self._discard(t, head, key, rec)
                dirty[0] = True
        if mine is not None:
            if not mine[1].expired(now):
                return mine
            self._discard(t, head, mine[0], mine[1])
            dirty[0] = True
            return self._scan(t, head, after, cursor, mid, cid, now, dirty)
        return None

    def _candidates(self, t: Transaction, head: _Head, after: bytes | None,
                    mid: bytes | None, cid: bytes | None) -> Iterator[tuple[bytes, _Rec]]:
        """The available messages after ``after`` in delivery order: every one, or with
        an id to match, those the MsgId (else CorrelId) index lists under it. Removing
        the one just yielded, between steps, is allowed."""
        if mid is None and cid is None:
            pid, prefix = head.msgs, b"A"
        else:
            pid, prefix = head.ids, (b"M" + mid) if mid is not None else (b"C" + cid)
        cur = self._tpfcs.cursor(pid)
        start = prefix + (after or b"")
        element = cur.seek(start)
        if element is not None and after is not None and element.key == start:
            element = cur.next()
        while element is not None and element.key.startswith(prefix):
            key = element.key[len(prefix):]
            if pid == head.msgs:
                yield key, _Rec.unpack(element.data)
            else:
                rec = _read(t, head.msgs, AVAILABLE, key)
                if rec is not None:
                    yield key, rec
            element = cur.next()

    def _discard(self, t: Transaction, head: _Head, key: bytes, rec: _Rec) -> None:
        """Move an expired message off the queue to the expired list (never part of a
        unit of work); a lock on it goes with it."""
        if rec.state == LOCKED:
            self._drop_owner(t, head, rec.owner + key)
        t.remove_key(head.msgs, _rkey(rec.state, key))
        data = t.remove_key(head.data, key)
        _unindex(t, head.ids, key, rec)
        rec.state, rec.owner = AVAILABLE, _NO_OWNER
        t.at_new_key_put(head.expired_pid, _u64(head.next_expired), rec.pack() + data)
        head.next_expired += 1
        head.depth[rec.priority] -= 1
        head.expired += 1
        head.expired_pending += 1

    def _drop_owner(self, t: Transaction, head: _Head, owner_and_key: bytes) -> None:
        try:
            t.remove_key(head.owners, owner_and_key)
        except TpfcsError as exc:
            if exc.code not in _MISSING:
                raise

    def _take(self, t: Transaction, head: _Head, key: bytes, rec: _Rec, owner: bytes,
              uow: int) -> None:
        """A destructive get: remove the message, or claim it for unit of work ``uow``."""
        head.gets += 1
        old = rec.state
        if old == LOCKED:
            self._drop_owner(t, head, rec.owner + key)
        if not uow:
            t.remove_key(head.msgs, _rkey(old, key))
            t.remove_key(head.data, key)
            _unindex(t, head.ids, key, rec)
            head.depth[rec.priority] -= 1
            return
        rec.state, rec.owner = GOT, owner
        _change(t, head.msgs, key, rec, old)
        t.at_new_key_put(head.owners, owner + key, _OP_GET)
        head.got[rec.priority] += 1

    def _lock(self, t: Transaction, head: _Head, cursor: SharedCursor, key: bytes, rec: _Rec,
              out: _Outcome) -> None:
        owner = cursor._owner
        old = cursor._locked
        if old is not None and old != key:
            self._release(t, head, old, owner)
        if rec.state != LOCKED:
            rec.state, rec.owner = LOCKED, owner
            _change(t, head.msgs, key, rec, AVAILABLE)
            t.at_new_key_put(head.owners, owner + key, _OP_LOCK)
        out.locked = key

    def _release(self, t: Transaction, head: _Head, key: bytes, owner: bytes) -> bool:
        """Unlock ``key`` if ``owner`` still holds its lock; True if it did."""
        rec = _read(t, head.msgs, LOCKED, key)
        if rec is None or rec.owner != owner:
            return False
        rec.state, rec.owner = AVAILABLE, _NO_OWNER
        _change(t, head.msgs, key, rec, LOCKED)
        self._drop_owner(t, head, owner + key)
        return True

    def _unlock(self, t: Transaction, cursor: SharedCursor) -> _Outcome:
        out = _Outcome(unlocked=True)
        head = self._head(t)
        if cursor._locked is None or not self._release(t, head, cursor._locked,
                                                        cursor._owner):
            out.rc = _RC_NO_LOCKED
            return out
        self._save(t, head)
        return out

    # --- units of work ------------------------------------------------------------------------

    def commit(self, uow: int) -> int:
        """Make a unit of work's puts visible and its gets final here; return how many."""
        return self._finish(uow, commit=True)

    def backout(self, uow: int) -> int:
        """Undo a unit of work here (puts deleted, gets restored in their place with
        backout count + 1); return how many messages it touched."""
        return self._finish(uow, commit=False)

    def _finish(self, uow: int, *, commit: bool) -> int:
        call = "MQCMIT" if commit else "MQBACK"
        if uow <= 0:
            raise ValueError(f"{call}: a unit of work id is a positive integer, not {uow}")
        owner = self._space.owner(uow)

        def finish(t: Transaction) -> int:
            head = self._head(t)
            cur = self._tpfcs.cursor(head.owners)
            element = cur.seek(owner)
            work = []
            while element is not None and element.key.startswith(owner):
                work.append((element.key, element.data))
                element = cur.next()
            for okey, op in work:
                key = okey[OWNER_LEN:]
                t.remove_key(head.owners, okey)
                rec = _Rec.unpack(t.at_key(head.msgs, _rkey(GOT, key)))
                old = rec.state
                if op == _OP_GET:
                    head.got[rec.priority] -= 1
                    if commit:
                        t.remove_key(head.msgs, _rkey(old, key))
                        t.remove_key(head.data, key)
                        _unindex(t, head.ids, key, rec)
                        head.depth[rec.priority] -= 1
                    else:
                        rec.state, rec.owner = AVAILABLE, _NO_OWNER
                        rec.backout_count += 1
                        _change(t, head.msgs, key, rec, old)
                else:
                    head.uncommitted[rec.priority] -= 1
                    if commit:
                        rec.state, rec.owner = AVAILABLE, _NO_OWNER
                        _change(t, head.msgs, key, rec, old)
                    else:
                        t.remove_key(head.msgs, _rkey(old, key))
                        t.remove_key(head.data, key)
                        _unindex(t, head.ids, key, rec)
                        head.depth[rec.priority] -= 1
            if work:
                if commit:
                    head.commits += 1
                else:
                    head.backouts += 1
                self._save(t, head)
            return len(work)
        return self._run(finish)

    # --- expiry, purge ------------------------------------------------------------------------

    def take_expired(self) -> Message | None:
        """Take the oldest message discarded because it expired (for reports), or None."""
        def take(t: Transaction) -> Message | None:
            head = self._head(t)
            element = t.take_first(head.expired_pid)
            if element is None:
                return None
            head.expired_pending -= 1
            self._save(t, head)
            rec = _Rec.unpack(element.data)
            return Message(element.data[_REC.size:], rec.descriptor())
        return self._run(take)

    def discard_expired(self, now: int | None = None) -> int:
        """Discard every expired message not held by a unit of work or a lock (the
        periodic expiry scan); they wait in :meth:`take_expired`. Returns how many."""
        when = _now_us() if now is None else now

        def scan(t: Transaction) -> int:
            head = self._head(t)
            doomed = []
            cur = self._tpfcs.cursor(head.msgs)
            element = cur.seek(b"A")
            while element is not None and element.key[:1] == b"A":
                rec = _Rec.unpack(element.data)
                if rec.expired(when):
                    doomed.append((element.key[1:], rec))
                element = cur.next()
            for key, rec in doomed:
                self._discard(t, head, key, rec)
            if doomed:
                self._save(t, head)
            return len(doomed)
        return self._run(scan)

    def purge(self) -> int:
        """Remove every committed message not held by a unit of work (CLEAR QL); locks on
        them are released."""
        def purge(t: Transaction) -> int:
            head = self._head(t)
            doomed = [(e.key[1:], _Rec.unpack(e.data)) for e in self._tpfcs.cursor(head.msgs)
                      if e.data[0] in (AVAILABLE, LOCKED)]
            for key, rec in doomed:
                if rec.state == LOCKED:
                    self._drop_owner(t, head, rec.owner + key)
                t.remove_key(head.msgs, _rkey(rec.state, key))
                t.remove_key(head.data, key)
                _unindex(t, head.ids, key, rec)
                head.depth[rec.priority] -= 1
            if doomed:
                self._save(t, head)
            return len(doomed)
        return self._run(purge)

    # --- counters -----------------------------------------------------------------------------

    def _read_head(self) -> _Head:
        self._check()
        return self._head(self._tpfcs)

    @property
    def depth(self) -> int:
        """CURDEPTH: every message on the queue, committed or not (uncommitted puts and
        gets of every processor included), as CoreQueue counts it."""
        return sum(self._read_head().depth)

    def depth_at_least(self, priority: int, committed_only: bool = False,
                       without_gets: bool = False) -> int:
        """Messages whose priority is >= priority. Triggering on a shared queue counts
        committed messages only: pass ``committed_only=True`` (seed 000, note 3b).

        :param committed_only: leave out puts not yet committed.
        :param without_gets: leave out messages got in a unit of work not yet ended.
        """
        p = min(max(priority, 0), PRIORITIES - 1)
        head = self._read_head()
        total = sum(head.depth[p:])
        if committed_only:
            total -= sum(head.uncommitted[p:])
        if without_gets:
            total -= sum(head.got[p:])
        return total

    def version(self) -> int:
        """The queue's change counter: it grows with every committed change by any
        processor. A getter waiting in another process polls it and retries its get when
        it moves (one short LMDB read)."""
        return self._read_head().version

    def wait_for_change(self, since: int, timeout: float | None,
                        interval: float = 0.002, max_interval: float = 0.05) -> int:
        """Poll :meth:`version` until it differs from ``since`` or ``timeout`` seconds pass
        (None: for ever); return the version last read. The poll interval starts at
        ``interval`` and doubles up to ``max_interval``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = interval
        while True:
            current = self.version()
            if current != since:
                return current
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return current
                delay = min(delay, remaining)
            time.sleep(delay)
            delay = min(delay * 2, max_interval)

    def stats(self) -> dict[str, int | list[int]]:
        """Counters as CoreQueue's ``stats()`` names them (``browses`` counts this
        processor's only; the slab fields are 0: there is no slab)."""
        head = self._read_head()
        return {
            "puts": head.puts, "gets": head.gets, "browses": self._browses,
            "expired": head.expired, "commits": head.commits, "backouts": head.backouts,
            "depth": sum(head.depth), "uncommitted_puts": sum(head.uncommitted),
            "uncommitted_gets": sum(head.got), "expired_pending": head.expired_pending,
            "ghosts": 0, "depth_by_priority": list(head.depth), "slab_bytes": 0,
            "slots_free": 0, "large_bytes": 0, "index_buckets": 0, "version": head.version,
        }

    def cursor(self) -> SharedCursor:
        """A new browse cursor, positioned before the first message."""
        self._check()
        return SharedCursor(self)


class SharedCursor(CursorMoves):
    """A browse cursor on a :class:`SharedQueue` (one object handle's browse position),
    with the methods of :class:`tpfemu._lowlevel.Cursor`.

    The position is the key of the message last browsed, so if another processor gets
    that message, BROWSE_NEXT continues with the one after it. A lock (MQGMO_LOCK) is
    held in the store under an owner of this processor's incarnation, so it hides the
    message from every processor; :meth:`close` releases it, and so does the next
    incarnation's :meth:`SharedQueueStore.release_stale_locks` if the process died.
    """

    _serial = itertools.count(1)

    def __init__(self, queue: SharedQueue) -> None:
        self.queue = queue
        self._owner = queue._space._owner_base + b"L" + _u64(next(self._serial))
        self._pos: bytes | None = None
        self._locked: bytes | None = None
        self._closed = False
        queue._cursors.append(self)

    def _check(self) -> None:
        if self._closed:
            raise errors.TpfEmuError("cursor is closed")

    def close(self) -> None:
        """Release the cursor, its lock and its position."""
        if self._closed:
            return
        self._closed = True
        q = self.queue
        if self._locked is not None and not q._closed and not q._space.closed:
            key = self._locked

            def release(t: Transaction) -> None:
                head = q._head(t)
                if q._release(t, head, key, self._owner):
                    q._save(t, head)
            try:
                q._tpfcs.transact(release)
            except (TpfcsError, errors.TpfEmuError):
                pass  # the queue is gone; a dead lock is released at the next restart
        self._locked = None
        if self in q._cursors:
            q._cursors.remove(self)

    def __enter__(self) -> SharedCursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def unlock(self) -> None:
        """Release the message this cursor locked: MQGMO_UNLOCK."""
        self.queue.get_message(cursor=self, options=_UNLOCK)


