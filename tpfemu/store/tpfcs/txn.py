"""Commit scopes over the TPFCS-like store: :class:`Transaction` (see :mod:`tpfcs`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import lmdb

from tpfemu.errors import StorageFull, TpfcsError
from tpfemu.store.tpfcs.api import Calls
from tpfemu.store.tpfcs.env import ATTEMPTS, db_error
from tpfemu.store.tpfcs.layout import TO2_ERROR_DB, TO2_ERROR_ENV, TO2_ERROR_RETRY, fail
from tpfemu.store.tpfcs.ops import Ops

if TYPE_CHECKING:
    from tpfemu.store.tpfcs.store import Tpfcs

T = TypeVar("T")


class Transaction(Calls):
    """One commit scope over the store: every call in it commits together or not at all.

    Use it as ``with store.transaction() as t:``; leaving the block commits, an exception
    rolls back (:meth:`commit` and :meth:`rollback` end it early). Calls made through the
    store itself from the same thread while it is open join it, as TO2 calls join a z/TPF
    commit scope, and a ``transaction()`` begun inside it is nested: it commits into this
    one. A transaction belongs to the thread that began it (LMDB's rule).

    A refused call (a :class:`TpfcsError` such as TO2_ERROR_LOCATOR_NOT_FOUND) changes
    nothing and the transaction stays usable. If LMDB runs out of map, the call raises
    :class:`StorageFull` at the ceiling, or else TO2_ERROR_RETRY: the whole transaction
    is then rolled back when it ends, the map is grown, and the work must be run again -
    :meth:`Tpfcs.transact` does that for you.
    """

    def __init__(self, store: Tpfcs) -> None:
        self._owner = store
        self._entry = store._entry
        self._txn: lmdb.Transaction | None = None
        self._parent: Transaction | None = None
        self._thread = 0
        self._state = "new"  # new -> open -> ended
        self._poison: TpfcsError | StorageFull | None = None  # root only
        self._ds: str | None = None

    def __enter__(self) -> Transaction:
        store = self._owner
        store._check_open("tx_begin")
        if self._state != "new":
            raise fail(TO2_ERROR_ENV, "a transaction can be begun once", call="tx_begin")
        stack = self._entry.stack()
        parent = stack[-1] if stack else None
        for _ in range(ATTEMPTS):
            if parent is None:
                self._entry.gate.acquire_shared()
            try:
                self._txn = store._env.begin(write=True,
                                             parent=parent._txn if parent else None)
                break
            except lmdb.MapResizedError:
                if parent is not None:
                    raise fail(TO2_ERROR_DB, "map resized under a nested transaction",
                               call="tx_begin") from None
                self._entry.gate.release_shared()
                store._adopt("tx_begin")
            except lmdb.Error as exc:
                if parent is None:
                    self._entry.gate.release_shared()
                raise db_error(exc, "tx_begin") from exc
        else:
            raise fail(TO2_ERROR_DB, f"gave up after {ATTEMPTS} attempts", call="tx_begin")
        self._parent, self._thread, self._state = parent, threading.get_ident(), "open"
        stack.append(self)
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if self._state == "open":
            if exc_type is None:
                self.commit()
            else:
                self._end(commit=False)

    def commit(self) -> None:
        """Commit now (into the parent, if nested).

        :raises StorageFull: or TpfcsError TO2_ERROR_RETRY if the map filled (rolled back).
        """
        self._check_usable("tx_commit")
        self._end(commit=True)

    def rollback(self) -> None:
        """Roll back now: nothing done in this transaction (or its children) remains."""
        self._check_usable("tx_rollback")
        self._end(commit=False)

    @property
    def active(self) -> bool:
        """True between begin and commit/rollback."""
        return self._state == "open"

    def _store(self) -> Tpfcs:
        return self._owner

    def _root(self) -> Transaction:
        node = self
        while node._parent is not None:
            node = node._parent
        return node

    def _check_usable(self, call: str) -> None:
        if self._state != "open":
            raise fail(TO2_ERROR_ENV, "the transaction is not open", call=call)
        if threading.get_ident() != self._thread:
            raise fail(TO2_ERROR_ENV, "a transaction belongs to the thread that began it",
                       call=call)
        if self._entry.stack()[-1] is not self:
            raise fail(TO2_ERROR_ENV, "a nested transaction is open: use it, or end it",
                       call=call)

    def _run(self, call: str, fn: Callable[[Ops], T], *, write: bool) -> T:
        self._check_usable(call)
        root = self._root()
        if root._poison is not None:
            raise root._poison
        assert self._txn is not None
        ops = Ops(self._txn, self._entry.dbs, call)
        try:
            return fn(ops)
        except lmdb.MapFullError as exc:
            root._ds = ops.ds or root._ds
            root._poison = self._full(call, root._ds)
            raise root._poison from exc
        except lmdb.DiskError as exc:
            root._poison = self._owner._storage_full(call, ops.ds)
            raise root._poison from exc
        except lmdb.Error as exc:
            root._poison = db_error(exc, call)
            raise root._poison from exc
        finally:
            root._ds = ops.ds or root._ds

    def _full(self, call: str, ds: str | None) -> TpfcsError | StorageFull:
        """The error for MDB_MAP_FULL inside a transaction: StorageFull at the ceiling
        (unless clearing stale readers freed pages), else TO2_ERROR_RETRY."""
        store = self._owner
        if store.map_size >= store.max_size and not store.reader_check():
            return store._storage_full(call, ds)
        return fail(TO2_ERROR_RETRY, "the store must grow: this transaction is rolled back; "
                    "run it again (Tpfcs.transact does)", call=call)

    def _end(self, *, commit: bool) -> None:
        """Commit or abort, pop this transaction, release the gate if outermost, and grow
        the map if a call ran out of it."""
        root = self._root()
        error: BaseException | None = None
        assert self._txn is not None
        try:
            if commit and root._poison is None:
                try:
                    self._txn.commit()
                except lmdb.MapFullError as exc:
                    root._poison = self._full("tx_commit", root._ds)
                    error = root._poison
                    error.__cause__ = exc
                except lmdb.DiskError as exc:
                    error = self._owner._storage_full("tx_commit", root._ds)
                    error.__cause__ = exc
                except lmdb.Error as exc:
                    error = db_error(exc, "tx_commit")
                    error.__cause__ = exc
            else:
                if commit:
                    error = root._poison
                self._txn.abort()
        finally:
            self._state = "ended"
            stack = self._entry.stack()
            if stack and stack[-1] is self:
                stack.pop()
            if self._parent is None:
                self._entry.gate.release_shared()
        if self._parent is None and isinstance(root._poison, TpfcsError) \
                and root._poison.code == TO2_ERROR_RETRY:
            self._owner._grow("tx_commit", root._ds, strict=False)
        if error is not None:
            raise error


