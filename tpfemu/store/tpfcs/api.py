"""The TPFCS calls as one mixin, shared by a store and its transactions (private).

:class:`Calls` turns each public call into an :class:`~tpfemu.store.tpfcs.ops.Ops` step
and hands it to ``_run``: :class:`~tpfemu.store.tpfcs.Tpfcs` runs it in a transaction of
its own (or the thread's open one), :class:`~tpfemu.store.tpfcs.txn.Transaction` in itself.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tpfemu.store.tpfcs.cursor import Cursor
from tpfemu.store.tpfcs.layout import (
    DELETED,
    CollectionInfo,
    Element,
    Kind,
    Lifetime,
    Pid,
)
from tpfemu.store.tpfcs.ops import Ops

if TYPE_CHECKING:
    from tpfemu.store.tpfcs.store import Tpfcs

T = TypeVar("T")
PidLike = Pid | bytes | str


class Calls:
    """The TPFCS calls, shared by :class:`Tpfcs` (each call its own transaction) and
    :class:`Transaction` (every call in one). ``to2_*`` names are aliases named after the
    z/TPF function (``TO2_atKeyPut`` -> ``to2_at_key_put``)."""

    def _run(self, call: str, fn: Callable[[Ops], T], *, write: bool) -> T:
        raise NotImplementedError

    def _store(self) -> Tpfcs:
        raise NotImplementedError

    # --- data stores (z/TPF: the ZOODB operator command) --------------------------------

    def create_data_store(self, name: str) -> None:
        """Create data store ``name`` (1-8 characters of A-Z 0-9).

        :raises TpfcsError: TO2_ERROR_DS_NAME (bad name), TO2_ERROR_DS_EXISTS.
        """
        now = time.time()
        self._run("ZOODB DEFINE", lambda ops: ops.create_data_store(name, now), write=True)

    def delete_data_store(self, name: str) -> None:
        """Delete an empty data store (deleted, reclaimable collections go with it).

        :raises TpfcsError: TO2_ERROR_DS_NOT_FOUND, TO2_ERROR_DS_NOT_EMPTY.
        """
        self._run("ZOODB DELETE", lambda ops: ops.delete_data_store(name), write=True)

    def data_stores(self) -> list[str]:
        """The names of every data store, sorted."""
        return self._run("ZOODB DISPLAY", lambda ops: ops.data_stores(), write=False)

    # --- collections ---------------------------------------------------------------------

    def create_collection(self, data_store: str, kind: Kind,
                          lifetime: Lifetime = Lifetime.LONG_TERM, *, name: str | None = None,
                          entry_length: int | None = None, key_length: int | None = None,
                          max_entries: int | None = None) -> Pid:
        """Create an empty collection in ``data_store`` and return its new PID.

        :param name: also enter the PID under this name (1-64 bytes) in the data store's
            dictionary (z/TPF's DS_USER_DICT), atomically; a name in use is refused.
        :param entry_length: the longest element data allowed (z/TPF: ``entryLength``);
            by default 100 MB.
        :param key_length: keyed kinds only: every key must be exactly this long (z/TPF:
            ``keyLength``); by default any length from 1 to 240 bytes.
        :param max_entries: logs only: keep at most this many (z/TPF: ``numberEntries``).
        :raises TpfcsError: TO2_ERROR_DS_NOT_FOUND, TO2_ERROR_PARAMETER,
            TO2_ERROR_LOCATOR_NOT_UNIQUE (name in use), TO2_ERROR_NAME.
        """
        call = f"TO2_create{_CREATE_NAMES.get(kind, '')}"
        owner, now = self._store()._session, time.time()
        return self._run(call, lambda ops: ops.create(
            data_store, kind, lifetime, name=name, entry_length=entry_length,
            key_length=key_length, max_entries=max_entries, owner=owner, now=now), write=True)

    def create_keyed_bag(self, data_store: str, lifetime: Lifetime = Lifetime.LONG_TERM, *,
                         name: str | None = None, entry_length: int | None = None,
                         key_length: int | None = None) -> Pid:
        """Create a key sorted bag (duplicate keys kept in insertion order); see
        :meth:`create_collection`."""
        return self.create_collection(data_store, Kind.KEYED_BAG, lifetime, name=name,
                                      entry_length=entry_length, key_length=key_length)

    def create_keyed_set(self, data_store: str, lifetime: Lifetime = Lifetime.LONG_TERM, *,
                         name: str | None = None, entry_length: int | None = None,
                         key_length: int | None = None) -> Pid:
        """Create a key sorted set (each key at most once); see :meth:`create_collection`."""
        return self.create_collection(data_store, Kind.KEYED_SET, lifetime, name=name,
                                      entry_length=entry_length, key_length=key_length)

    def create_sequence(self, data_store: str, lifetime: Lifetime = Lifetime.LONG_TERM, *,
                        name: str | None = None, entry_length: int | None = None) -> Pid:
        """Create a sequence (indexes 1, 2, ... in the order added); see
        :meth:`create_collection`."""
        return self.create_collection(data_store, Kind.SEQUENCE, lifetime, name=name,
                                      entry_length=entry_length)

    def create_log(self, data_store: str, lifetime: Lifetime = Lifetime.LONG_TERM, *,
                   name: str | None = None, entry_length: int | None = None,
                   max_entries: int | None = None) -> Pid:
        """Create a log (append-only; the oldest dropped past ``max_entries``); see
        :meth:`create_collection`."""
        return self.create_collection(data_store, Kind.LOG, lifetime, name=name,
                                      entry_length=entry_length, max_entries=max_entries)

    def delete_collection(self, pid: PidLike) -> None:
        """Delete a collection. A long-term one is only marked deleted: it keeps its
        elements, refuses every call but :meth:`reclaim_pid`, and is removed by the first
        open after the store's deletion delay (immediately if the delay is 0). Short-term
        and temporary collections go at once. Its dictionary name is freed either way.

        :raises TpfcsError: TO2_ERROR_PID.
        """
        p = Pid.parse(pid, call="TO2_deleteCollection")
        immediate, now = self._store()._deletion_delay <= 0, time.time()
        self._run("TO2_deleteCollection",
                  lambda ops: ops.delete(p, now, immediate=immediate), write=True)

    def reclaim_pid(self, pid: PidLike) -> None:
        """Bring back a deleted long-term collection before it is removed (TO2_reclaimPID).

        :raises TpfcsError: TO2_ERROR_PID (gone), TO2_ERROR_PARAMETER (not deleted),
            TO2_ERROR_LOCATOR_NOT_UNIQUE (its name now names another collection).
        """
        p = Pid.parse(pid, call="TO2_reclaimPID")
        self._run("TO2_reclaimPID", lambda ops: ops.reclaim(p), write=True)

    def info(self, pid: PidLike) -> CollectionInfo:
        """Kind, lifetime, count and limits of a collection (deleted ones too).

        :raises TpfcsError: TO2_ERROR_PID.
        """
        p = Pid.parse(pid, call="TO2_getCollectionType")
        return self._run("TO2_getCollectionType", lambda ops: ops.info(p), write=False)

    def collections(self, data_store: str | None = None, *,
                    deleted: bool = False) -> list[CollectionInfo]:
        """Every live collection (of one data store if given; deleted ones too if asked),
        in PID order."""
        def scan(ops: Ops) -> list[CollectionInfo]:
            if data_store is not None:
                ops.require_data_store(data_store)
            return [h.info(p) for p, h in ops.headers()
                    if (data_store is None or h.ds == data_store)
                    and (deleted or h.state != DELETED)]
        return self._run("TO2_collections", scan, write=False)

    def lookup(self, data_store: str, name: str) -> Pid:
        """The PID entered under ``name`` in the data store's dictionary.

        :raises TpfcsError: TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_DS_NOT_FOUND.
        """
        return self._run("TO2_atDSdictKey", lambda ops: ops.lookup(data_store, name),
                         write=False)

    def names(self, data_store: str) -> dict[str, Pid]:
        """The data store's dictionary: every name with its PID."""
        return self._run("TO2_DSdict", lambda ops: ops.names(data_store), write=False)

    # --- keyed collections ---------------------------------------------------------------

    def at_new_key_put(self, pid: PidLike, key: bytes, data: bytes) -> int:
        """Add an element under ``key``; a bag keeps duplicates (after the ones there), a
        set refuses a key it holds. Returns the element's serial (:attr:`Element.index`).

        :raises TpfcsError: TO2_ERROR_LOCATOR_NOT_UNIQUE (set), TO2_ERROR_LOCATOR_LGH,
            TO2_ERROR_DATA_LGH, TO2_ERROR_METHOD (not keyed), TO2_ERROR_PID.
        """
        p = Pid.parse(pid, call="TO2_atNewKeyPut")
        return self._run("TO2_atNewKeyPut", lambda ops: ops.at_new_key_put(p, key, data),
                         write=True)

    def at_key_put(self, pid: PidLike, key: bytes, data: bytes) -> int:
        """Replace the data of the first element with ``key``, or add one if there is none
        (z/TPF's update-sequence check is not modelled). Returns its serial."""
        p = Pid.parse(pid, call="TO2_atKeyPut")
        return self._run("TO2_atKeyPut", lambda ops: ops.at_key_put(p, key, data), write=True)

    def at_key(self, pid: PidLike, key: bytes) -> bytes:
        """The data of the first element with ``key`` (a copy).

        :raises TpfcsError: TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_EMPTY.
        """
        p = Pid.parse(pid, call="TO2_atKey")
        return self._run("TO2_atKey", lambda ops: ops.at_key(p, key), write=False)

    def elements_at_key(self, pid: PidLike, key: bytes) -> list[Element]:
        """Every element with ``key``, in insertion order ([] if none)."""
        p = Pid.parse(pid, call="TO2_atKey")
        return self._run("TO2_atKey", lambda ops: ops.elements_at_key(p, key), write=False)

    def remove_key(self, pid: PidLike, key: bytes) -> bytes:
        """Remove the first element with ``key`` (the oldest of duplicates); return its data.

        :raises TpfcsError: TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_EMPTY.
        """
        p = Pid.parse(pid, call="TO2_removeKey")
        return self._run("TO2_removeKey", lambda ops: ops.remove_key(p, key), write=True)

    # --- sequences and logs --------------------------------------------------------------

    def add(self, pid: PidLike, data: bytes) -> int:
        """Append to a sequence or log and return the new element's index (1, 2, ...).
        A log past ``max_entries`` drops its oldest element in the same transaction.

        :raises TpfcsError: TO2_ERROR_METHOD (keyed), TO2_ERROR_DATA_LGH, TO2_ERROR_PID.
        """
        p = Pid.parse(pid, call="TO2_add")
        return self._run("TO2_add", lambda ops: ops.add(p, data), write=True)

    def at_index(self, pid: PidLike, index: int) -> bytes:
        """The data of the sequence or log element with ``index``.

        :raises TpfcsError: TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_EMPTY, TO2_ERROR_INDEX.
        """
        p = Pid.parse(pid, call="TO2_at")
        return self._run("TO2_at", lambda ops: ops.at_index(p, index), write=False)

    def put_at_index(self, pid: PidLike, index: int, data: bytes) -> None:
        """Replace the data of the sequence element with ``index`` (logs refuse)."""
        p = Pid.parse(pid, call="TO2_atPut")
        self._run("TO2_atPut", lambda ops: ops.put_at_index(p, index, data), write=True)

    def remove_index(self, pid: PidLike, index: int) -> bytes:
        """Remove the sequence element with ``index`` and return its data; the other
        elements keep their indexes (logs refuse: TO2_ERROR_METHOD)."""
        p = Pid.parse(pid, call="TO2_removeIndex")
        return self._run("TO2_removeIndex", lambda ops: ops.remove_index(p, index),
                         write=True)

    # --- any kind ------------------------------------------------------------------------

    def take_first(self, pid: PidLike,
                   predicate: Callable[[Element], bool] | None = None) -> Element | None:
        """Find the first element (in key or index order) that ``predicate`` accepts and
        remove it, in one write transaction; return it, or ``None`` if none matched.

        This is the shared-queue get: across every thread and process of the complex an
        element is taken once. ``predicate`` runs while the store's writer lock is held:
        keep it quick and do not call the store from it. Not for logs (TO2_ERROR_METHOD).
        """
        p = Pid.parse(pid, call="TO2_removeFirst")
        return self._run("TO2_removeFirst", lambda ops: ops.take_first(p, predicate),
                         write=True)

    def first(self, pid: PidLike) -> Element | None:
        """The first element (not removed), or ``None`` if the collection is empty."""
        p = Pid.parse(pid, call="TO2_first")
        return self._run("TO2_first", lambda ops: ops.end(p, last=False), write=False)

    def last(self, pid: PidLike) -> Element | None:
        """The last element (not removed), or ``None`` if the collection is empty."""
        p = Pid.parse(pid, call="TO2_last")
        return self._run("TO2_last", lambda ops: ops.end(p, last=True), write=False)

    def count(self, pid: PidLike) -> int:
        """The number of elements (kept in the header: no scan)."""
        p = Pid.parse(pid, call="TO2_numberOfElements")
        return self._run("TO2_numberOfElements", lambda ops: ops.count(p), write=False)

    def is_empty(self, pid: PidLike) -> bool:
        """True if the collection holds no element (TO2_isEmpty)."""
        return self.count(pid) == 0

    def remove_all(self, pid: PidLike) -> int:
        """Remove every element (the collection stays); return how many there were."""
        p = Pid.parse(pid, call="TO2_removeAll")
        return self._run("TO2_removeAll", lambda ops: ops.remove_all(p), write=True)

    def cursor(self, pid: PidLike, *, snapshot: bool = False) -> Cursor:
        """A cursor on collection ``pid`` (TO2_createCursor); see :class:`Cursor`."""
        return Cursor(self._store(), Pid.parse(pid, call="TO2_createCursor"),
                      snapshot=snapshot)

    # --- z/TPF spellings: to2_ + the TO2 function name in snake case ----------------------
    to2_create_key_sorted_bag = create_keyed_bag
    to2_create_key_sorted_set = create_keyed_set
    to2_create_sequence = create_sequence
    to2_create_log = create_log
    to2_delete_collection = delete_collection
    to2_reclaim_pid = reclaim_pid
    to2_at_new_key_put = at_new_key_put
    to2_at_key_put = at_key_put
    to2_at_key = at_key
    to2_remove_key = remove_key
    to2_add = add
    to2_at = at_index
    to2_at_put = put_at_index
    to2_is_empty = is_empty
    to2_create_cursor = cursor


_CREATE_NAMES = {Kind.KEYED_BAG: "KeySortedBag", Kind.KEYED_SET: "KeySortedSet",
                 Kind.SEQUENCE: "Sequence", Kind.LOG: "Log"}

