"""Cursors over one collection of the TPFCS-like store (z/TPF: ``TO2_createCursor``).

A cursor is a position in a collection's order (key order, then insertion order, for keyed
kinds; index order for sequences and logs). It is *on* an element, or in the gap *before*
or *after* one, or before the first / after the last. Moving returns the element arrived
at, or ``None`` at either end (z/TPF's TO2_ERROR_EODAD), and :meth:`Cursor.current`
re-reads the element the cursor is on.

**Isolation.** A *live* cursor (the default) reads each step in a short read transaction of
its own, and continues from its position, not from a frozen copy: it sees what other
threads and processes commit between steps, never returns an element twice in one
direction, and does not skip an element that stays in the collection. An element added
behind it (before it, going forwards) is not seen; one added ahead of it is, so
``next()`` after ``None`` returns elements appended since - a live cursor can poll. A
*snapshot* cursor (``snapshot=True``) holds one LMDB read transaction until
:meth:`Cursor.close`: it sees the collection as it was when it was created, and it keeps
LMDB from reusing pages and this process from growing the map while open, so close it
promptly (``with store.cursor(pid, snapshot=True) as c:``). Snapshot cursors are
read-only. z/TPF's locking read-write cursor is not modelled; :meth:`Cursor.remove` on a
live cursor removes the element it is on in one write transaction, and if another process
took it first, raises TO2_ERROR_EODAD.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TypeVar

import lmdb

from tpfemu.store.tpfcs.layout import (
    PID_LENGTH,
    TO2_ERROR_DB,
    TO2_ERROR_ENV,
    TO2_ERROR_EODAD,
    TO2_ERROR_METHOD,
    Element,
    Kind,
    Pid,
    escape_key,
    fail,
    u64,
)
from tpfemu.store.tpfcs.ops import Ops, check_index, check_key, decode

if TYPE_CHECKING:
    from tpfemu.store.tpfcs.store import Tpfcs

T = TypeVar("T")

# where the cursor is, relative to _pos (an element key, or a bound that need not exist)
_ON, _BEFORE, _AFTER = "on", "before", "after"


def _forward(ops: Ops, pid: Pid, pos: bytes | None, inclusive: bool) -> tuple[bytes, bytes] | None:
    """The first element at or after (``inclusive``) or strictly after ``pos``."""
    with ops.txn.cursor(db=ops.dbs.elem) as cur:
        if not cur.set_range(pos or pid):
            return None
        if not inclusive and pos is not None and cur.key() == pos and not cur.next():
            return None
        key = bytes(cur.key())
        return (key, bytes(cur.value())) if key[:PID_LENGTH] == pid else None


def _backward(ops: Ops, pid: Pid, pos: bytes | None,
              inclusive: bool) -> tuple[bytes, bytes] | None:
    """The last element at or before (``inclusive``) or strictly before ``pos``."""
    bound = pos if pos is not None else u64(int.from_bytes(pid, "big") + 1)
    with ops.txn.cursor(db=ops.dbs.elem) as cur:
        if cur.set_range(bound):
            if not (inclusive and pos is not None and cur.key() == pos) and not cur.prev():
                return None
        elif not cur.last():
            return None
        key = bytes(cur.key())
        return (key, bytes(cur.value())) if key[:PID_LENGTH] == pid else None


class Cursor:
    """A cursor on one collection; create it with :meth:`Tpfcs.cursor`.

    ``for element in cursor:`` iterates forwards from the cursor's position. Use it as a
    context manager (required for snapshot cursors, harmless for live ones).
    """

    def __init__(self, store: Tpfcs, pid: Pid, *, snapshot: bool = False) -> None:
        self._store = store
        self._pid = pid
        self._snapshot = snapshot
        self._txn: lmdb.Transaction | None = None
        self._pos: bytes | None = None
        self._where = _BEFORE  # with _pos None: before the first element
        self._closed = False
        if snapshot:
            self._txn = store._begin_snapshot("TO2_createCursor")
        try:
            self._kind: Kind = self._step("TO2_createCursor",
                                          lambda ops: ops.header(pid).kind)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> Cursor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Element]:
        while (element := self.next()) is not None:
            yield element

    def __repr__(self) -> str:
        mode = "snapshot" if self._snapshot else "live"
        return f"<Cursor {mode} on PID {self._pid} {self._where} {self._pos!r}>"

    @property
    def pid(self) -> Pid:
        """The collection this cursor is on."""
        return self._pid

    @property
    def snapshot(self) -> bool:
        """True for a snapshot cursor."""
        return self._snapshot

    def close(self) -> None:
        """End the cursor (a snapshot's read transaction ends here). Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._txn is not None:
            try:
                self._txn.abort()
            finally:
                self._txn = None
                self._store._gate.release_shared()

    # --- moving --------------------------------------------------------------------------

    def first(self) -> Element | None:
        """Move to the first element and return it (``None`` if the collection is empty)."""
        self._pos, self._where = None, _BEFORE
        return self.next()

    def last(self) -> Element | None:
        """Move to the last element and return it (``None`` if the collection is empty)."""
        self._pos, self._where = None, _AFTER
        return self.previous()

    def next(self) -> Element | None:
        """Move forwards one element (TO2_cursorPlus) and return it; at the end return
        ``None`` and stay after the last element seen (a later ``next()`` finds elements
        added after it)."""
        pos, where = self._pos, self._where
        if pos is None and where == _AFTER:
            return None
        found = self._step("TO2_cursorPlus",
                           lambda ops: _forward(ops, self._pid, pos, where == _BEFORE))
        return self._arrive(found, _AFTER)

    def previous(self) -> Element | None:
        """Move backwards one element (TO2_cursorMinus) and return it; at the start return
        ``None`` and stay before the first element seen."""
        pos, where = self._pos, self._where
        if pos is None and where == _BEFORE:
            return None
        found = self._step("TO2_cursorMinus",
                           lambda ops: _backward(ops, self._pid, pos, where == _AFTER))
        return self._arrive(found, _BEFORE)

    def seek(self, key: bytes) -> Element | None:
        """Move to the first element whose key is ``key`` or greater (TO2_locate) and
        return it; ``None`` if there is none. Keyed kinds only."""
        if not self._kind.keyed:
            raise fail(TO2_ERROR_METHOD, f"seek needs a keyed collection, not {self._kind.name}",
                       call="TO2_locate", pid=self._pid)
        raw = self._step("TO2_locate", lambda ops: check_key(
            ops.header(self._pid), key, call="TO2_locate", pid=self._pid))
        self._pos, self._where = self._pid + escape_key(raw), _BEFORE
        return self.next()

    def seek_index(self, index: int) -> Element | None:
        """Move to the first element whose index is ``index`` or greater and return it;
        ``None`` if there is none. Sequences and logs only."""
        if self._kind.keyed:
            raise fail(TO2_ERROR_METHOD, f"seek_index needs a sequence or log, not "
                       f"{self._kind.name}", call="TO2_locate", pid=self._pid)
        check_index(index, call="TO2_locate", pid=self._pid)
        self._pos, self._where = self._pid + u64(index), _BEFORE
        return self.next()

    # --- the element under the cursor ----------------------------------------------------

    def current(self) -> Element:
        """Re-read the element the cursor is on (TO2_atCursor).

        :raises TpfcsError: TO2_ERROR_EODAD if the cursor is not on an element, or that
            element has been removed since.
        """
        key = self._on("TO2_atCursor")
        element = self._step("TO2_atCursor", lambda ops: ops.element(self._pid, key))
        if element is None:
            raise fail(TO2_ERROR_EODAD, "the element under the cursor is gone",
                       call="TO2_atCursor", pid=self._pid)
        return element

    def remove(self) -> Element:
        """Remove the element the cursor is on and return it (TO2_removeAtCursor); the
        cursor is left in its place, so :meth:`next` gives the element after it.

        :raises TpfcsError: TO2_ERROR_EODAD (not on one, or it is gone), TO2_ERROR_METHOD
            (snapshot cursor, or a log).
        """
        if self._snapshot:
            raise fail(TO2_ERROR_METHOD, "a snapshot cursor is read-only",
                       call="TO2_removeAtCursor", pid=self._pid)
        key = self._on("TO2_removeAtCursor")
        element = self._store._run("TO2_removeAtCursor",
                                   lambda ops: ops.remove_element(self._pid, key), write=True)
        self._where = _AFTER
        return element

    # --- machinery -----------------------------------------------------------------------

    def _on(self, call: str) -> bytes:
        if self._closed:
            raise fail(TO2_ERROR_ENV, "the cursor is closed", call=call, pid=self._pid)
        if self._where != _ON or self._pos is None:
            raise fail(TO2_ERROR_EODAD, "the cursor is not on an element", call=call,
                       pid=self._pid)
        return self._pos

    def _arrive(self, found: tuple[bytes, bytes] | None, off: str) -> Element | None:
        """Move onto ``found``; if there is none, step off the element the cursor was on
        (to the gap ``off`` it) and otherwise stay where it is."""
        if found is None:
            if self._where == _ON:
                self._where = off
            return None
        self._pos, self._where = found[0], _ON
        return decode(self._kind, found[0], found[1])

    def _step(self, call: str, fn: Callable[[Ops], T]) -> T:
        """Run one read step: in the snapshot, or in a fresh read transaction."""
        if self._closed:
            raise fail(TO2_ERROR_ENV, "the cursor is closed", call=call, pid=self._pid)
        def step(ops: Ops) -> T:
            ops.header(self._pid)  # the collection is still there (and not deleted)
            return fn(ops)
        if self._txn is None:
            return self._store._run(call, step, write=False)
        try:
            return step(Ops(self._txn, self._store._dbs, call))
        except lmdb.Error as exc:
            raise fail(TO2_ERROR_DB, f"LMDB {type(exc).__name__}: {exc}", call=call,
                       pid=self._pid) from exc
