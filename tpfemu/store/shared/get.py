"""MQGET on a processor-shared queue: one write transaction finds and takes a message.

The search and the claim are one LMDB write transaction, so no two processors ever take
one message. :func:`run` decides what a get (or a browse, a lock, an unlock) does with the
queue's header ``head`` in transaction ``t`` and returns an :class:`Outcome`; the queue
applies that to its cursor and raises its reason code once the transaction committed.

A get discards the expired messages it meets on its way (lazy expiry, seed 001): they go
to the queue's ``expired`` collection, for the expiration reports of
:meth:`~tpfemu.store.shared.queue.SharedQueue.take_expired`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tpfemu._lowlevel import MQGMO
from tpfemu.mq import cmqc
from tpfemu.store.shared.codecs import (
    AVAILABLE,
    GOT,
    LOCKED,
    NO_OWNER,
    OP_GET,
    OP_LOCK,
    REC,
    Head,
    Rec,
    change,
    read,
    remove_owner,
    rkey,
    u64,
    unindex,
)
from tpfemu.store.tpfcs import Transaction

if TYPE_CHECKING:
    from tpfemu.store.shared.cursor import SharedCursor

BROWSE_FIRST = MQGMO["MQGMO_BROWSE_FIRST"]
BROWSE_NEXT = MQGMO["MQGMO_BROWSE_NEXT"]
BROWSE_UNDER = MQGMO["MQGMO_BROWSE_MSG_UNDER_CURSOR"]
UNDER = MQGMO["MQGMO_MSG_UNDER_CURSOR"]
LOCK = MQGMO["MQGMO_LOCK"]
UNLOCK = MQGMO["MQGMO_UNLOCK"]
ACCEPT = MQGMO["MQGMO_ACCEPT_TRUNCATED_MSG"]
BROWSE_BITS = BROWSE_FIRST | BROWSE_NEXT | BROWSE_UNDER

RC_NONE = 0
RC_NO_MSG = cmqc.MQRC_NO_MSG_AVAILABLE
RC_NO_UNDER = cmqc.MQRC_NO_MSG_UNDER_CURSOR
RC_TRUNC_FAILED = cmqc.MQRC_TRUNCATED_MSG_FAILED
RC_TRUNC_ACCEPTED = cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
RC_NO_LOCKED = cmqc.MQRC_NO_MSG_LOCKED


@dataclass(slots=True)
class Request:
    """One get's parameters, checked (see ``SharedQueue.get_message``)."""

    options: int
    cursor: SharedCursor | None
    msg_id: bytes | None  # None: any
    correl_id: bytes | None  # None: any
    now: int
    max_length: int | None
    capped: bool  # max_length limits the data after the context record only
    uow: int
    owner: bytes  # the unit of work's owner key (NO_OWNER outside one, or to browse)

    @property
    def browse(self) -> int:
        return self.options & BROWSE_BITS

    @property
    def given_cursor(self) -> SharedCursor:
        """The cursor of a browse or of a get under the cursor (the caller checked that
        such options come with one)."""
        assert self.cursor is not None, "a browse or a get under the cursor needs a cursor"
        return self.cursor


@dataclass(slots=True)
class Outcome:
    """What a get transaction decided; applied to Python state after it committed."""

    rc: int = RC_NONE
    rec: Rec | None = None
    data: bytes = b""
    pos: bytes | None = None  # the cursor's new position, if it moved
    locked: bytes | None = None  # the cursor's new locked message
    unlocked: bool = False  # the cursor no longer holds a lock
    pending: int = 0  # expired messages waiting for take_expired
    dirty: bool = False  # the header changed: save it


def run(t: Transaction, head: Head, req: Request) -> Outcome:
    """Do get ``req`` on the queue of ``head`` in ``t`` (not an unlock: :func:`unlock`)."""
    out = Outcome()
    if req.options & (UNDER | BROWSE_UNDER):
        found = _under_cursor(t, head, req, out)
        if found is None:
            out.rc = RC_NO_UNDER
    else:
        after = req.given_cursor.pos if req.options & BROWSE_NEXT else None
        found = _scan(t, head, after, req, out)
        if found is None:
            out.rc = RC_NO_MSG
    if found is not None:
        _deliver(t, head, req, found[0], found[1], out)
    out.pending = head.expired_pending
    return out


def _under_cursor(t: Transaction, head: Head, req: Request,
                  out: Outcome) -> tuple[bytes, Rec] | None:
    """The message under the cursor if it is still there for it (an expired one is
    discarded: seed 001, note 6)."""
    cursor = req.given_cursor
    pos = cursor.pos
    if pos is None:
        return None
    rec = read(t, head.msgs, AVAILABLE, pos)
    if rec is None and cursor.locked == pos:
        rec = read(t, head.msgs, LOCKED, pos)
        if rec is not None and rec.owner != cursor.owner:
            rec = None
    if rec is None:
        return None
    if rec.expired(req.now):
        discard(t, head, pos, rec)
        out.dirty = True
        return None
    return pos, rec


def _deliver(t: Transaction, head: Head, req: Request, key: bytes, rec: Rec,
             out: Outcome) -> None:
    """Hand out message ``key``: check its length against the buffer, then browse (and
    maybe lock) it or take it."""
    length = rec.length
    cap = length if req.max_length is None else req.max_length
    if req.capped:
        cap += rec.ctx_len
    out.rec = rec
    if length > cap and not req.options & ACCEPT:
        out.rc = RC_TRUNC_FAILED
        if req.browse:
            out.pos = key  # a failed browse still moves the cursor
        if req.capped and rec.ctx_len:
            out.data = t.at_key(head.data, key)[:rec.ctx_len]
        return
    data = t.at_key(head.data, key)
    out.data = data if length <= cap else data[:cap]
    out.rc = RC_TRUNC_ACCEPTED if length > cap else RC_NONE
    if req.browse:
        out.pos = key
        if req.options & LOCK:
            _lock(t, head, req.given_cursor, key, rec, out)
            out.dirty = True
        return
    take(t, head, key, rec, req.owner, req.uow)
    if req.cursor is not None and req.cursor.locked == key:
        out.unlocked = True
    out.dirty = True


def _scan(t: Transaction, head: Head, after: bytes | None, req: Request,
          out: Outcome) -> tuple[bytes, Rec] | None:
    """The first eligible, matching, unexpired message after ``after`` (or from the
    start), discarding the eligible matching expired ones met on the way. Eligible:
    available, or locked by the request's cursor."""
    mid, cid, cursor = req.msg_id, req.correl_id, req.cursor

    def matches(rec: Rec) -> bool:
        return (mid is None or rec.msg_id == mid) and (cid is None or rec.correl_id == cid)

    mine = None  # the message this cursor has locked, if it qualifies
    if cursor is not None and cursor.locked is not None \
            and (after is None or cursor.locked > after):
        rec = read(t, head.msgs, LOCKED, cursor.locked)
        if rec is not None and rec.owner == cursor.owner and matches(rec):
            mine = (cursor.locked, rec)
    for key, rec in _candidates(t, head, after, mid, cid):
        if mine is not None and mine[0] < key:
            break
        if matches(rec):
            if not rec.expired(req.now):
                return key, rec
            discard(t, head, key, rec)
            out.dirty = True
    if mine is None:
        return None
    if not mine[1].expired(req.now):
        return mine
    discard(t, head, mine[0], mine[1])
    out.dirty = True
    return _scan(t, head, after, req, out)


def _candidates(t: Transaction, head: Head, after: bytes | None, mid: bytes | None,
                cid: bytes | None) -> Iterator[tuple[bytes, Rec]]:
    """The available messages after ``after`` in delivery order: every one, or with
    an id to match, those the MsgId (else CorrelId) index lists under it. Removing
    the one just yielded, between steps, is allowed."""
    if mid is not None:
        pid, prefix = head.ids, b"M" + mid
    elif cid is not None:
        pid, prefix = head.ids, b"C" + cid
    else:
        pid, prefix = head.msgs, b"A"
    cur = t.cursor(pid)
    start = prefix + (after or b"")
    element = cur.seek(start)
    if element is not None and after is not None and element.key_bytes == start:
        element = cur.next()
    while element is not None and element.key_bytes.startswith(prefix):
        key = element.key_bytes[len(prefix):]
        if pid == head.msgs:
            yield key, Rec.unpack(element.data)
        else:
            rec = read(t, head.msgs, AVAILABLE, key)
            if rec is not None:
                yield key, rec
        element = cur.next()


def discard(t: Transaction, head: Head, key: bytes, rec: Rec) -> None:
    """Move an expired message off the queue to the expired list (never part of a
    unit of work); a lock on it goes with it."""
    if rec.state == LOCKED:
        remove_owner(t, head.owners, rec.owner + key)
    t.remove_key(head.msgs, rkey(rec.state, key))
    data = t.remove_key(head.data, key)
    unindex(t, head.ids, key, rec)
    rec.state, rec.owner = AVAILABLE, NO_OWNER
    t.at_new_key_put(head.expired_pid, u64(head.next_expired), rec.pack() + data)
    head.next_expired += 1
    head.depth[rec.priority] -= 1
    head.expired += 1
    head.expired_pending += 1


def expired_message(raw: bytes) -> tuple[Rec, bytes]:
    """The state record and data of an element of the ``expired`` collection."""
    return Rec.unpack(raw), raw[REC.size:]


def take(t: Transaction, head: Head, key: bytes, rec: Rec, owner: bytes, uow: int) -> None:
    """A destructive get: remove the message, or claim it for unit of work ``uow``."""
    head.gets += 1
    old = rec.state
    if old == LOCKED:
        remove_owner(t, head.owners, rec.owner + key)
    if not uow:
        head.remove(t, key, rec)
        return
    rec.state, rec.owner = GOT, owner
    change(t, head.msgs, key, rec, old)
    t.at_new_key_put(head.owners, owner + key, OP_GET)
    head.got[rec.priority] += 1


def _lock(t: Transaction, head: Head, cursor: SharedCursor, key: bytes, rec: Rec,
          out: Outcome) -> None:
    owner = cursor.owner
    old = cursor.locked
    if old is not None and old != key:
        release(t, head, old, owner)
    if rec.state != LOCKED:
        rec.state, rec.owner = LOCKED, owner
        change(t, head.msgs, key, rec, AVAILABLE)
        t.at_new_key_put(head.owners, owner + key, OP_LOCK)
    out.locked = key


def release(t: Transaction, head: Head, key: bytes, owner: bytes) -> bool:
    """Unlock ``key`` if ``owner`` still holds its lock; True if it did."""
    rec = read(t, head.msgs, LOCKED, key)
    if rec is None or rec.owner != owner:
        return False
    rec.state, rec.owner = AVAILABLE, NO_OWNER
    change(t, head.msgs, key, rec, LOCKED)
    remove_owner(t, head.owners, owner + key)
    return True


def unlock(t: Transaction, head: Head, cursor: SharedCursor) -> Outcome:
    """MQGMO_UNLOCK: release the message ``cursor`` locked."""
    out = Outcome(unlocked=True)
    if cursor.locked is None or not release(t, head, cursor.locked, cursor.owner):
        out.rc = RC_NO_LOCKED
        return out
    out.dirty = True
    return out
