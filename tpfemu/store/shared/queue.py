"""One processor-shared (COMMON-YES) queue: its messages in the TPFCS-like store.

:class:`SharedQueue` offers what the queue manager uses of a queue's storage
(:class:`tpfemu.store.storage.QueueStorage`, which the memory queue
:class:`tpfemu._lowlevel.CoreQueue` also satisfies) with the same results and exceptions,
and returns the same :class:`~tpfemu._lowlevel.Message` and
:class:`~tpfemu._lowlevel.Descriptor` objects. What differs is that every call is one LMDB
write (or read) transaction, so it is atomic across every process of the complex:

- a put in a unit of work is invisible to every getter until its commit;
- a get in a unit of work hides the message from every getter at once (the claim and the
  search are one write transaction: :mod:`tpfemu.store.shared.get`);
- units of work are qualified by processor: the owner of a claim is the CPU ID, that
  processor's incarnation and the queue manager's unit-of-work id, so two processors'
  "uow 7" never meet;
- :meth:`SharedQueue.version` is a change counter in the store that a getter waiting in
  another process can poll (a condition variable cannot cross processes);
- a full map or disk raises :class:`~tpfemu.errors.StorageFull` on the call that hit it,
  and that call's transaction is aborted whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tpfemu import errors
from tpfemu._lowlevel import (
    NEVER,
    PRIORITIES,
    Descriptor,
    Message,
    check_get_options,
    check_id,
    check_settings,
)
from tpfemu.errors import TpfcsError
from tpfemu.mq import cmqc
from tpfemu.store.shared import get as getop
from tpfemu.store.shared.codecs import (
    AVAILABLE,
    LOCKED,
    MAX_CTX,
    MISSING,
    NO_OWNER,
    OP_GET,
    OP_PUT,
    OWNER_LEN,
    PREFIX_LEN,
    PUT,
    ZERO_ID,
    Head,
    Rec,
    change,
    index,
    now_us,
    queue_key,
    remove_owner,
    rkey,
    u64,
)
from tpfemu.store.shared.cursor import SharedCursor
from tpfemu.store.tpfcs import Tpfcs, Transaction

if TYPE_CHECKING:
    from tpfemu.store.shared.registry import SharedQueueStore

__all__ = ["SharedQueue"]

T = TypeVar("T")

_PUT_SLACK = 16 * 1024  # a put's own pages (B-tree copies) beyond its data


def _body(data: object, ctx_len: int, name: str) -> bytes:
    """The bytes of a message to put, its context record length checked."""
    if isinstance(data, str):
        raise TypeError("message data must be bytes-like, not str (encode it first)")
    try:
        body = bytes(memoryview(data))  # type: ignore[arg-type]  # (checked here)
    except TypeError:
        raise TypeError(f"message data must be bytes-like, not {type(data).__name__}") \
            from None
    if not 0 <= ctx_len <= len(body):
        raise ValueError(f"ctx_len must be 0 to the data length {len(body)}, not {ctx_len}")
    if ctx_len > MAX_CTX:
        raise errors.InternalError(f"MQPUT on {name!r}: context record over {MAX_CTX}")
    return body


def _check_uow(uow: int) -> None:
    if uow < 0:
        raise ValueError(f"a unit of work id is 0 or positive, not {uow}")


class SharedQueue:
    """The messages of one processor-shared queue, as :class:`CoreQueue` holds a memory
    queue's; make it with :meth:`SharedQueueStore.queue`.

    Thread-safe like CoreQueue (each call is one transaction); a :class:`SharedCursor` is
    used by one thread at a time.

    :ivar space: the processor's :class:`SharedQueueStore` this queue was opened in.
    :ivar cursors: the cursors open on it here.
    """

    def __init__(self, space: SharedQueueStore, name: str, msgid_prefix: bytes = b"") -> None:
        self.name = name
        self.space = space
        self._tpfcs = space.store
        self._dir = space.directory
        self._qkey = queue_key(name)
        self._prefix = bytes(msgid_prefix).ljust(PREFIX_LEN, b"\0")
        self.cursors: list[SharedCursor] = []
        self._closed = False
        self._browses = 0

    # --- life cycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Close this processor's handle on the queue (its cursors first); the messages
        stay in the store."""
        if self._closed:
            return
        for c in list(self.cursors):
            c.close()
        self._closed = True
        self.space.forget(self)

    def __enter__(self) -> SharedQueue:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        """True once this handle, or the processor's store, is closed."""
        return self._closed or self.space.closed

    def _check(self) -> None:
        if self.closed:
            raise errors.TpfEmuError(f"queue {self.name!r} is closed")

    def _head(self, t: Transaction | Tpfcs) -> Head:
        try:
            return Head.unpack(t.at_key(self._dir, self._qkey))
        except TpfcsError as exc:
            if exc.code in MISSING:
                raise errors.TpfEmuError(f"shared queue {self.name!r} was deleted") from None
            raise

    def _save(self, t: Transaction, head: Head) -> None:
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

        def change_settings(t: Transaction) -> None:
            head = self._head(t)
            head.max_depth, head.max_msg_length = max_depth, max_msg_length
            head.fifo, head.default_priority = (1 if fifo else 0), default_priority
            self._save(t, head)
        self._run(change_settings)
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
        body = _body(data, ctx_len, self.name)
        if not isinstance(priority, int) or not 0 <= priority < PRIORITIES:
            raise errors.error_for(cmqc.MQRC_PRIORITY_ERROR, call="MQPUT", obj=self.name)
        if expiry <= 0:
            raise errors.error_for(cmqc.MQRC_EXPIRY_ERROR, call="MQPUT", obj=self.name)
        _check_uow(uow)
        mid = check_id(msg_id, "msg_id")
        cid = check_id(correl_id, "correl_id")
        if mid == ZERO_ID:
            mid = self._prefix + u64(self.space.msg_counter())
        owner = self.space.owner(uow) if uow else NO_OWNER
        rec = Rec(PUT if uow else AVAILABLE, owner, priority, 1 if persistent else 0, 0,
                  ctx_len, len(body), expiry, put_time or now_us(), 0, uow, mid, cid)
        rc, seq = self._run(lambda t: self._put(t, rec, body))
        if rc:
            exc = errors.error_for(rc, call="MQPUT", obj=self.name)
            if isinstance(exc, errors.StorageFull):
                exc.store, exc.limit = str(self._tpfcs.path), self._tpfcs.max_size
            raise exc
        return mid, seq

    def _put(self, t: Transaction, rec: Rec, body: bytes) -> tuple[int, int]:
        """Place message ``rec`` (``body``) on the queue in ``t``: (reason, sequence)."""
        head = self._head(t)
        if len(body) > head.max_msg_length:
            return cmqc.MQRC_MSG_TOO_BIG_FOR_Q, 0
        if head.max_depth and sum(head.depth) >= head.max_depth:
            return cmqc.MQRC_Q_FULL, 0
        limit = self._tpfcs.max_size - self.space.reserve
        if self._tpfcs.usage() + len(body) + _PUT_SLACK > limit:
            return cmqc.MQRC_STORAGE_MEDIUM_FULL, 0
        rec.seq = head.next_seq
        head.next_seq += 1
        eprio = head.default_priority if head.fifo else rec.priority
        key = bytes((9 - eprio,)) + u64(rec.seq)
        t.at_new_key_put(head.msgs, rkey(rec.state, key), rec.pack())
        t.at_new_key_put(head.data, key, body)
        index(t, head.ids, key, rec)
        head.depth[rec.priority] += 1
        head.puts += 1
        if rec.uow:
            t.at_new_key_put(head.owners, rec.owner + key, OP_PUT)
            head.uncommitted[rec.priority] += 1
        self._save(t, head)
        return 0, rec.seq

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
        o = options | (getop.ACCEPT if accept_truncated else 0)
        rc = check_get_options(o, cursor is not None)  # the core's rule, stated once
        if rc:
            raise errors.error_for(rc, call="MQGET", obj=self.name)
        if cursor is not None:
            if cursor.queue is not self:
                raise errors.InternalError(
                    f"MQGET on {self.name!r}: the cursor is another queue's")
            cursor.check()
        _check_uow(uow)
        mid = check_id(msg_id, "msg_id")
        cid = check_id(correl_id, "correl_id")
        if o & getop.UNLOCK:
            assert cursor is not None  # (check_get_options refused UNLOCK without one)
            return self._unlock(cursor)
        browse = o & getop.BROWSE_BITS
        req = getop.Request(
            o, cursor,
            mid if msg_id is not None and mid != ZERO_ID else None,
            cid if correl_id is not None and cid != ZERO_ID else None,
            now_us() if now is None else now, max_length,
            cap_body and max_length is not None, uow,
            self.space.owner(uow) if uow and not browse else NO_OWNER)
        out = self._run(lambda t: self._get(t, req))
        if cursor is not None:
            if out.pos is not None:
                cursor.pos = out.pos
            if out.unlocked:
                cursor.locked = None
            if out.locked is not None:
                cursor.locked = out.locked
        if out.rc not in (getop.RC_NONE, getop.RC_TRUNC_ACCEPTED):
            raise self._get_error(out, req.capped)
        if browse:
            self._browses += 1
        if out.pending:
            self._on_expired_pending()
        assert out.rec is not None  # (a get that succeeded found a message)
        return Message(out.data, out.rec.descriptor(), out.rc)

    def _get(self, t: Transaction, req: getop.Request) -> getop.Outcome:
        head = self._head(t)
        out = getop.run(t, head, req)
        if out.dirty:
            self._save(t, head)
        return out

    def _get_error(self, out: getop.Outcome, capped: bool) -> errors.TpfEmuError:
        exc = errors.error_for(out.rc, call="MQGET", obj=self.name)
        if (out.rc == getop.RC_TRUNC_FAILED and isinstance(exc, errors.TruncatedMessage)
                and out.rec is not None):
            d = out.rec.descriptor()
            exc.original_length = d.length - (d.ctx_len if capped else 0)
            exc.descriptor = d
            exc.context_record = out.data
        return exc

    def _unlock(self, cursor: SharedCursor) -> Message:
        """MQGMO_UNLOCK through ``cursor``: an empty message, or NoMessageLocked."""
        def work(t: Transaction) -> getop.Outcome:
            head = self._head(t)
            out = getop.unlock(t, head, cursor)
            if out.dirty:
                self._save(t, head)
            return out
        out = self._run(work)
        if out.unlocked:
            cursor.locked = None
        if out.rc:
            raise errors.error_for(out.rc, call="MQGET", obj=self.name)
        return Message(b"", Descriptor(ZERO_ID, ZERO_ID, 0, False, NEVER, 0, 0, 0, 0, 0, 0))

    def release_lock(self, key: bytes, owner: bytes) -> None:
        """Release the lock ``owner`` holds on message ``key``, if it still holds it (a
        cursor's close)."""
        def release(t: Transaction) -> None:
            head = self._head(t)
            if getop.release(t, head, key, owner):
                self._save(t, head)
        self._tpfcs.transact(release)

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
        owner = self.space.owner(uow)

        def finish(t: Transaction) -> int:
            head = self._head(t)
            cur = t.cursor(head.owners)
            element = cur.seek(owner)
            work = []
            while element is not None and element.key_bytes.startswith(owner):
                work.append((element.key_bytes, element.data))
                element = cur.next()
            for okey, op in work:
                t.remove_key(head.owners, okey)
                _end(t, head, okey[OWNER_LEN:], op, commit)
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
            rec, data = getop.expired_message(element.data)
            return Message(data, rec.descriptor())
        return self._run(take)

    def discard_expired(self, now: int | None = None) -> int:
        """Discard every expired message not held by a unit of work or a lock (the
        periodic expiry scan); they wait in :meth:`take_expired`. Returns how many."""
        when = now_us() if now is None else now

        def scan(t: Transaction) -> int:
            head = self._head(t)
            doomed = []
            cur = t.cursor(head.msgs)
            element = cur.seek(b"A")
            while element is not None and element.key_bytes[:1] == b"A":
                rec = Rec.unpack(element.data)
                if rec.expired(when):
                    doomed.append((element.key_bytes[1:], rec))
                element = cur.next()
            for key, rec in doomed:
                getop.discard(t, head, key, rec)
            if doomed:
                self._save(t, head)
            return len(doomed)
        return self._run(scan)

    def purge(self) -> int:
        """Remove every committed message not held by a unit of work (CLEAR QL); locks on
        them are released."""
        def purge(t: Transaction) -> int:
            head = self._head(t)
            doomed = [(e.key_bytes[1:], Rec.unpack(e.data)) for e in t.cursor(head.msgs)
                      if e.data[0] in (AVAILABLE, LOCKED)]
            for key, rec in doomed:
                if rec.state == LOCKED:
                    remove_owner(t, head.owners, rec.owner + key)
                head.remove(t, key, rec)
            if doomed:
                self._save(t, head)
            return len(doomed)
        return self._run(purge)

    # --- counters -----------------------------------------------------------------------------

    def _read_head(self) -> Head:
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


def _end(t: Transaction, head: Head, key: bytes, op: bytes, commit: bool) -> None:
    """End one put or get (``op``) of a unit of work on message ``key``: a committed get
    or a backed-out put leaves the queue; a committed put or a backed-out get becomes
    available (the get with its backout count raised)."""
    rec = Rec.unpack(t.at_key(head.msgs, rkey(PUT, key)))
    old = rec.state
    if op == OP_GET:
        head.got[rec.priority] -= 1
    else:
        head.uncommitted[rec.priority] -= 1
    if commit == (op == OP_GET):
        head.remove(t, key, rec)
        return
    if op == OP_GET:
        rec.backout_count += 1
    rec.state, rec.owner = AVAILABLE, NO_OWNER
    change(t, head.msgs, key, rec, old)
