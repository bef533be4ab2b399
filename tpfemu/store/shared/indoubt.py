"""In-doubt work of a processor-shared queue: what a processor's earlier incarnation left.

A unit of work that a processor never ended (it was killed, say) still holds its claims
in the store: its puts hidden, its gets hidden, its browse locks held. At the processor's
restart the queue manager finds them (:func:`find`), puts each message on
SPECIAL.RECOVERY.QUEUE, then removes them from the shared queues (:func:`settle`) and
releases the stale browse locks (:func:`release_locks`). Each function works on one queue
in one transaction; :class:`~tpfemu.store.shared.registry.SharedQueueStore` runs them over
every queue of the complex.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from tpfemu._lowlevel import Message
from tpfemu.errors import TpfcsError
from tpfemu.store.shared.codecs import (
    AVAILABLE,
    LOCKED,
    MISSING,
    NO_OWNER,
    OP_GET,
    OP_LOCK,
    OP_PUT,
    OPS,
    OWNER_LEN,
    PUT,
    Head,
    change,
    queue_key,
    read,
    split_owner,
)
from tpfemu.store.tpfcs import Tpfcs, Transaction

T = TypeVar("T")

#: Which incarnations of a processor are finished (their open units of work in doubt).
Finished = Callable[[int], bool]


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


def _on_queue(store: Tpfcs, directory: bytes, name: str, fn: Callable[[Transaction, Head], T],
              missing: T) -> T:
    """Run ``fn(t, head)`` on queue ``name`` in one transaction; a true integer result
    means it changed the queue, and its header is saved with a new version. A queue
    deleted meanwhile gives ``missing``."""
    qkey = queue_key(name)

    def work(t: Transaction) -> T:
        head = Head.unpack(t.at_key(directory, qkey))
        result = fn(t, head)
        if isinstance(result, int) and result:
            head.version += 1
            t.at_key_put(directory, qkey, head.pack())
        return result
    try:
        return store.transact(work)
    except TpfcsError as exc:
        if exc.code in MISSING:
            return missing
        raise


def find(store: Tpfcs, directory: bytes, name: str, cpu4: bytes,
         finished: Finished) -> list[InDoubt]:
    """The in-doubt puts and gets on queue ``name`` of the finished incarnations of the
    processor ``cpu4``; nothing is changed."""
    def scan(t: Transaction, head: Head) -> list[InDoubt]:
        out = []
        cur = t.cursor(head.owners)
        element = cur.seek(cpu4)
        while element is not None and element.key_bytes.startswith(cpu4):
            owner, key = element.key_bytes[:OWNER_LEN], element.key_bytes[OWNER_LEN:]
            _, inc, kind, ident = split_owner(owner)
            rec = None
            if finished(inc) and element.data in (OP_PUT, OP_GET) and kind == b"U":
                rec = read(t, head.msgs, PUT, key)
            if rec is not None:
                data = t.at_key(head.data, key)
                out.append(InDoubt(name, OPS[element.data], cpu4.decode().rstrip(), inc,
                                   ident, Message(data, rec.descriptor()), key, owner))
            element = cur.next()
        return out
    return _on_queue(store, directory, name, scan, [])


def settle(store: Tpfcs, directory: bytes, name: str, items: list[InDoubt]) -> int:
    """Remove in-doubt entries of queue ``name`` (from :func:`find`); return how many. An
    entry already settled (by another processor, say) is skipped."""
    def remove(t: Transaction, head: Head) -> int:
        n = 0
        for item in items:
            try:
                op = t.at_key(head.owners, item.owner + item.key)
            except TpfcsError as exc:
                if exc.code in MISSING:
                    continue
                raise
            t.remove_key(head.owners, item.owner + item.key)
            rec = read(t, head.msgs, PUT, item.key)
            if rec is None:
                continue
            head.remove(t, item.key, rec)
            if op == OP_PUT:
                head.uncommitted[rec.priority] -= 1
            else:
                head.got[rec.priority] -= 1
            n += 1
        return n
    return _on_queue(store, directory, name, remove, 0)


def release_locks(store: Tpfcs, directory: bytes, name: str, cpu4: bytes,
                  finished: Finished) -> int:
    """Release the browse locks (MQGMO_LOCK) on queue ``name`` held by finished
    incarnations of processor ``cpu4``; return how many."""
    def release(t: Transaction, head: Head) -> int:
        cur = t.cursor(head.owners)
        element = cur.seek(cpu4)
        doomed = []
        while element is not None and element.key_bytes.startswith(cpu4):
            if element.data == OP_LOCK and finished(split_owner(element.key_bytes[:OWNER_LEN])[1]):
                doomed.append(element.key_bytes)
            element = cur.next()
        for k in doomed:
            key = k[OWNER_LEN:]
            t.remove_key(head.owners, k)
            rec = read(t, head.msgs, LOCKED, key)
            if rec is not None and rec.owner == k[:OWNER_LEN]:
                rec.state, rec.owner = AVAILABLE, NO_OWNER
                change(t, head.msgs, key, rec, LOCKED)
        return len(doomed)
    return _on_queue(store, directory, name, release, 0)
