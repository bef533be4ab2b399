"""The TPFCS operations as steps inside one LMDB transaction (private to the store).

:class:`Ops` wraps an open ``lmdb.Transaction``; each method reads or edits the collection
header and the elements in that transaction and raises :class:`~tpfemu.errors.TpfcsError`
for a refused request. It never commits, aborts, retries or translates LMDB errors: that
is :mod:`tpfemu.store.tpfcs`'s job, so that every operation is all-or-nothing and a refused
request leaves nothing behind (the caller aborts the transaction).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import lmdb

from tpfemu.store.tpfcs.layout import (
    DELETED,
    LIVE,
    MAX_DATA,
    MAX_KEY,
    PID_LENGTH,
    TO2_ERROR_DS_EXISTS,
    TO2_ERROR_DS_NOT_EMPTY,
    TO2_ERROR_DS_NOT_FOUND,
    TO2_ERROR_EMPTY,
    TO2_ERROR_EODAD,
    TO2_ERROR_INDEX,
    TO2_ERROR_LOCATOR_LGH,
    TO2_ERROR_LOCATOR_NOT_FOUND,
    TO2_ERROR_LOCATOR_NOT_UNIQUE,
    TO2_ERROR_METHOD,
    TO2_ERROR_PARAMETER,
    TO2_ERROR_PID,
    CollectionInfo,
    Element,
    Header,
    Kind,
    Lifetime,
    Pid,
    check_dict_name,
    check_ds_name,
    escape_key,
    fail,
    name_key,
    u64,
    unescape_key,
)
from tpfemu.store.tpfcs.layout import TO2_ERROR_DATA_LGH as _DATA_LGH

NO_OWNER = bytes(8)
_TIME = struct.Struct("<d")


@dataclass(frozen=True, slots=True)
class Dbs:
    """The named databases of one open environment."""

    meta: Any
    ds: Any
    coll: Any
    elem: Any
    names: Any
    sessions: Any


def decode(kind: Kind, key: bytes, value: bytes | memoryview) -> Element:
    """The :class:`Element` stored under element key ``key`` (PID + locator)."""
    locator = key[PID_LENGTH:]
    if kind.keyed:
        raw_key, serial = unescape_key(locator)
        return Element(raw_key, serial, bytes(value))
    return Element(None, int.from_bytes(locator, "big"), bytes(value))


def check_key(header: Header, key: object, *, call: str, pid: bytes) -> bytes:
    """Return ``key`` as bytes if it suits the collection, else raise LOCATOR_LGH."""
    if not isinstance(key, bytes | bytearray | memoryview):
        raise fail(TO2_ERROR_LOCATOR_LGH, f"a key is bytes, not {type(key).__name__}",
                   call=call, pid=pid)
    raw = bytes(key)
    if header.key_length and len(raw) != header.key_length:
        raise fail(TO2_ERROR_LOCATOR_LGH,
                   f"keys of this collection are {header.key_length} bytes, not {len(raw)}",
                   call=call, pid=pid)
    if not 1 <= len(raw) <= MAX_KEY:
        raise fail(TO2_ERROR_LOCATOR_LGH, f"a key is 1-{MAX_KEY} bytes, not {len(raw)}",
                   call=call, pid=pid)
    return raw


def check_index(index: object, *, call: str, pid: bytes) -> int:
    """Return ``index`` if it is a positive int, else raise TO2_ERROR_INDEX."""
    if isinstance(index, bool) or not isinstance(index, int) or index < 1:
        raise fail(TO2_ERROR_INDEX, f"an index is an integer from 1, not {index!r}",
                   call=call, pid=pid)
    return index


class Ops:
    """The operations of the store, run inside the write or read transaction ``txn``.

    :param call: the TO2 name of the public call, for error messages.
    """

    def __init__(self, txn: lmdb.Transaction, dbs: Dbs, call: str) -> None:
        self.txn = txn
        self.dbs = dbs
        self.call = call
        self.ds: str | None = None  # the data store last touched, to name in StorageFull

    def _fail(self, code: int, message: str, pid: bytes | None = None) -> Exception:
        return fail(code, message, call=self.call, pid=pid)

    # --- meta, data stores ---------------------------------------------------------------

    def next_pid(self) -> Pid:
        """Take the next PID from the counter (never reused)."""
        raw = self.txn.get(b"next_pid", db=self.dbs.meta)
        number = int.from_bytes(raw, "big") if raw else 1
        self.txn.put(b"next_pid", u64(number + 1), db=self.dbs.meta)
        return Pid.from_int(number)

    def create_data_store(self, name: str, now: float) -> None:
        """Create data store ``name``; refuse a bad or existing name."""
        name = check_ds_name(name, call=self.call)
        self.ds = name
        if not self.txn.put(name.encode(), _TIME.pack(now), db=self.dbs.ds, overwrite=False):
            raise self._fail(TO2_ERROR_DS_EXISTS, f"data store {name} already exists")

    def require_data_store(self, name: str) -> str:
        """Return ``name`` if that data store exists, else raise."""
        name = check_ds_name(name, call=self.call)
        if self.txn.get(name.encode(), db=self.dbs.ds) is None:
            raise self._fail(TO2_ERROR_DS_NOT_FOUND, f"no data store is named {name}")
        self.ds = name
        return name

    def data_stores(self) -> list[str]:
        """The names of every data store, sorted."""
        with self.txn.cursor(db=self.dbs.ds) as cur:
            return [bytes(key).decode() for key in cur.iternext(values=False)]

    def delete_data_store(self, name: str) -> None:
        """Delete an empty data store (reclaimable deleted collections are purged with it)."""
        name = self.require_data_store(name)
        doomed = []
        for pid, header in self.headers():
            if header.ds == name:
                if header.state != DELETED:
                    raise self._fail(TO2_ERROR_DS_NOT_EMPTY,
                                     f"data store {name} still holds collection {pid}")
                doomed.append((pid, header))
        for pid, header in doomed:
            self.purge(pid, header)
        prefix = name_key(name, b"")
        with self.txn.cursor(db=self.dbs.names) as cur:
            if cur.set_range(prefix):
                while cur.key()[:len(prefix)] == prefix and cur.delete():
                    pass
        self.txn.delete(name.encode(), db=self.dbs.ds)

    # --- collections -----------------------------------------------------------------------

    def header(self, pid: Pid, *, deleted_ok: bool = False) -> Header:
        """The header of collection ``pid``; raise TO2_ERROR_PID if there is none (or it
        is deleted, unless ``deleted_ok``)."""
        raw = self.txn.get(pid, db=self.dbs.coll)
        if raw is None:
            raise self._fail(TO2_ERROR_PID, "no collection has this PID", pid)
        header = Header.unpack(raw)
        self.ds = header.ds
        if header.state == DELETED and not deleted_ok:
            raise self._fail(TO2_ERROR_PID, "the collection is deleted (reclaim_pid restores "
                             "it until the deletion delay has passed)", pid)
        return header

    def save(self, pid: Pid, header: Header) -> None:
        """Store ``header`` for ``pid``."""
        self.txn.put(pid, header.pack(), db=self.dbs.coll)

    def headers(self) -> Iterator[tuple[Pid, Header]]:
        """Every collection, live or deleted, in PID order."""
        with self.txn.cursor(db=self.dbs.coll) as cur:
            rows = [(Pid(bytes(k)), Header.unpack(v)) for k, v in cur.iternext()]
        yield from rows

    def create(self, ds: str, kind: Kind, lifetime: Lifetime, *, name: str | None,
               entry_length: int | None, key_length: int | None, max_entries: int | None,
               owner: bytes, now: float) -> Pid:
        """Create an empty collection and return its new PID."""
        ds = self.require_data_store(ds)
        try:
            kind, lifetime = Kind(kind), Lifetime(lifetime)
        except ValueError as exc:
            raise self._fail(TO2_ERROR_PARAMETER, str(exc)) from None
        limits = ((entry_length, MAX_DATA, "entry_length", True),
                  (key_length, MAX_KEY, "key_length", kind.keyed),
                  (max_entries, 2**63 - 1, "max_entries", kind is Kind.LOG))
        for value, top, what, allowed in limits:
            if value is None:
                continue
            if not allowed:
                raise self._fail(TO2_ERROR_PARAMETER, f"{what} does not apply to {kind.name}")
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise self._fail(TO2_ERROR_PARAMETER, f"{what} is 1-{top}, not {value!r}")
        raw_name = check_dict_name(name, call=self.call) if name is not None else b""
        if raw_name and self.txn.get(name_key(ds, raw_name), db=self.dbs.names) is not None:
            raise self._fail(TO2_ERROR_LOCATOR_NOT_UNIQUE,
                             f"data store {ds} already has a collection named {name!r}")
        pid = self.next_pid()
        header = Header(kind, lifetime, LIVE, ds, entry_length or 0, key_length or 0,
                        max_entries or 0, 1, 0, now, 0.0,
                        owner if lifetime is Lifetime.TEMPORARY else NO_OWNER,
                        raw_name.decode())
        self.save(pid, header)
        if raw_name:
            self.txn.put(name_key(ds, raw_name), pid, db=self.dbs.names)
        return pid

    def delete(self, pid: Pid, now: float, *, immediate: bool) -> None:
        """Delete a collection: long-term ones are only marked (unless ``immediate``)."""
        header = self.header(pid)
        if header.lifetime is Lifetime.LONG_TERM and not immediate:
            header.state, header.deleted_at = DELETED, now
            self.save(pid, header)
            self._drop_name(pid, header)
        else:
            self.purge(pid, header)

    def purge(self, pid: Pid, header: Header) -> None:
        """Remove a collection, its elements and its name for good."""
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if cur.set_range(pid):
                while cur.key()[:PID_LENGTH] == pid and cur.delete():
                    pass
        self.txn.delete(pid, db=self.dbs.coll)
        self._drop_name(pid, header)

    def _drop_name(self, pid: Pid, header: Header) -> None:
        if header.name:
            key = name_key(header.ds, header.name.encode())
            if self.txn.get(key, db=self.dbs.names) == pid:
                self.txn.delete(key, db=self.dbs.names)

    def reclaim(self, pid: Pid) -> None:
        """Bring a deleted long-term collection back (TO2_reclaimPID)."""
        header = self.header(pid, deleted_ok=True)
        if header.state != DELETED:
            raise self._fail(TO2_ERROR_PARAMETER, "the collection is not deleted", pid)
        if header.name:
            key = name_key(header.ds, header.name.encode())
            if self.txn.get(key, db=self.dbs.names) is not None:
                raise self._fail(TO2_ERROR_LOCATOR_NOT_UNIQUE,
                                 f"its name {header.name!r} now names another collection", pid)
            self.txn.put(key, pid, db=self.dbs.names)
        header.state, header.deleted_at = LIVE, 0.0
        self.save(pid, header)

    def info(self, pid: Pid) -> CollectionInfo:
        """The public description of a collection (deleted ones included)."""
        return self.header(pid, deleted_ok=True).info(pid)

    # --- dictionary ------------------------------------------------------------------------

    def lookup(self, ds: str, name: str) -> Pid:
        """The PID associated with ``name`` in data store ``ds``."""
        ds = self.require_data_store(ds)
        raw = self.txn.get(name_key(ds, check_dict_name(name, call=self.call)),
                           db=self.dbs.names)
        if raw is None:
            raise self._fail(TO2_ERROR_LOCATOR_NOT_FOUND,
                             f"data store {ds} has no collection named {name!r}")
        return Pid(bytes(raw))

    def names(self, ds: str) -> dict[str, Pid]:
        """Every name of data store ``ds`` with its PID."""
        prefix = name_key(self.require_data_store(ds), b"")
        out: dict[str, Pid] = {}
        with self.txn.cursor(db=self.dbs.names) as cur:
            if cur.set_range(prefix):
                for key, value in cur.iternext():
                    if key[:len(prefix)] != prefix:
                        break
                    out[bytes(key[len(prefix):]).decode()] = Pid(bytes(value))
        return out

    # --- elements: shared helpers ----------------------------------------------------------

    def _live(self, pid: Pid, *kinds: Kind) -> Header:
        header = self.header(pid)
        if kinds and header.kind not in kinds:
            raise self._fail(TO2_ERROR_METHOD,
                             f"{self.call} is not supported by a {header.kind.name} collection",
                             pid)
        return header

    def _data(self, header: Header, data: object, pid: Pid) -> bytes:
        if not isinstance(data, bytes | bytearray | memoryview):
            raise self._fail(TO2_ERROR_PARAMETER, f"data is bytes, not {type(data).__name__}",
                             pid)
        raw = bytes(data)
        limit = header.entry_length or MAX_DATA
        if len(raw) > limit:
            raise self._fail(_DATA_LGH, f"{len(raw)} bytes of data exceed the entry length "
                             f"{limit}", pid)
        return raw

    def _missing(self, header: Header, pid: Pid, what: str) -> Exception:
        if header.count == 0:
            return self._fail(TO2_ERROR_EMPTY, "the collection is empty", pid)
        return self._fail(TO2_ERROR_LOCATOR_NOT_FOUND, f"no element has {what}", pid)

    def _first_at(self, prefix: bytes) -> tuple[bytes, bytes] | None:
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if cur.set_range(prefix) and cur.key()[:len(prefix)] == prefix:
                return bytes(cur.key()), bytes(cur.value())
        return None

    def _insert(self, pid: Pid, header: Header, locator: bytes, data: bytes) -> int:
        serial = header.next_serial
        header.next_serial += 1
        header.count += 1
        self.txn.put(pid + locator + u64(serial), data, db=self.dbs.elem)
        return serial

    # --- keyed collections -----------------------------------------------------------------

    def at_new_key_put(self, pid: Pid, key: bytes, data: bytes) -> int:
        """Add an element under ``key`` (a set refuses a key it holds); return its serial."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET)
        prefix = escape_key(check_key(header, key, call=self.call, pid=pid))
        raw = self._data(header, data, pid)
        if header.kind is Kind.KEYED_SET and self._first_at(pid + prefix) is not None:
            raise self._fail(TO2_ERROR_LOCATOR_NOT_UNIQUE, f"key {bytes(key)!r} is present",
                             pid)
        serial = self._insert(pid, header, prefix, raw)
        self.save(pid, header)
        return serial

    def at_key_put(self, pid: Pid, key: bytes, data: bytes) -> int:
        """Replace the data of the first element with ``key``, or add one; return its serial."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET)
        prefix = escape_key(check_key(header, key, call=self.call, pid=pid))
        raw = self._data(header, data, pid)
        found = self._first_at(pid + prefix)
        if found is not None:
            self.txn.put(found[0], raw, db=self.dbs.elem)
            return int.from_bytes(found[0][-8:], "big")
        serial = self._insert(pid, header, prefix, raw)
        self.save(pid, header)
        return serial

    def _keyed_first(self, pid: Pid, key: bytes) -> tuple[Header, tuple[bytes, bytes]]:
        """The keyed collection's header and its first element (locator, data) with
        ``key``; raises the store's not-found error when there is none."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET)
        prefix = escape_key(check_key(header, key, call=self.call, pid=pid))
        found = self._first_at(pid + prefix)
        if found is None:
            raise self._missing(header, pid, f"key {bytes(key)!r}")
        return header, found

    def at_key(self, pid: Pid, key: bytes) -> bytes:
        """The data of the first element with ``key``."""
        return self._keyed_first(pid, key)[1][1]

    def elements_at_key(self, pid: Pid, key: bytes) -> list[Element]:
        """Every element with ``key``, in insertion order (empty list if none)."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET)
        prefix = pid + escape_key(check_key(header, key, call=self.call, pid=pid))
        out = []
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if cur.set_range(prefix):
                for k, v in cur.iternext():
                    if k[:len(prefix)] != prefix:
                        break
                    out.append(decode(header.kind, bytes(k), v))
        return out

    def remove_key(self, pid: Pid, key: bytes) -> bytes:
        """Remove the first element with ``key`` and return its data."""
        header, found = self._keyed_first(pid, key)
        self.txn.delete(found[0], db=self.dbs.elem)
        header.count -= 1
        self.save(pid, header)
        return found[1]

    # --- sequences and logs ----------------------------------------------------------------

    def add(self, pid: Pid, data: bytes) -> int:
        """Append to a sequence or log; return the new element's 1-based index."""
        header = self._live(pid, Kind.SEQUENCE, Kind.LOG)
        raw = self._data(header, data, pid)
        index = self._insert(pid, header, b"", raw)
        if header.max_entries and header.count > header.max_entries:
            with self.txn.cursor(db=self.dbs.elem) as cur:  # drop the oldest
                cur.set_range(pid)
                cur.delete()
            header.count -= 1
        self.save(pid, header)
        return index

    def at_index(self, pid: Pid, index: int) -> bytes:
        """The data of the element with ``index``."""
        header = self._live(pid, Kind.SEQUENCE, Kind.LOG)
        raw = self.txn.get(pid + u64(check_index(index, call=self.call, pid=pid)),
                           db=self.dbs.elem)
        if raw is None:
            raise self._missing(header, pid, f"index {index}")
        return bytes(raw)

    def put_at_index(self, pid: Pid, index: int, data: bytes) -> None:
        """Replace the data of the sequence element with ``index`` (TO2_atPut)."""
        header = self._live(pid, Kind.SEQUENCE)
        key = pid + u64(check_index(index, call=self.call, pid=pid))
        raw = self._data(header, data, pid)
        if self.txn.get(key, db=self.dbs.elem) is None:
            raise self._missing(header, pid, f"index {index}")
        self.txn.put(key, raw, db=self.dbs.elem)

    def remove_index(self, pid: Pid, index: int) -> bytes:
        """Remove the sequence element with ``index`` and return its data."""
        header = self._live(pid, Kind.SEQUENCE)
        key = pid + u64(check_index(index, call=self.call, pid=pid))
        raw = self.txn.pop(key, db=self.dbs.elem)
        if raw is None:
            raise self._missing(header, pid, f"index {index}")
        header.count -= 1
        self.save(pid, header)
        return bytes(raw)

    # --- any kind --------------------------------------------------------------------------

    def take_first(self, pid: Pid,
                   predicate: Callable[[Element], bool] | None = None) -> Element | None:
        """Remove and return the first element (in collection order) that ``predicate``
        accepts, or ``None`` if there is none. Not for logs."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET, Kind.SEQUENCE)
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if not cur.set_range(pid):
                return None
            for key, value in cur.iternext():
                if key[:PID_LENGTH] != pid:
                    return None
                element = decode(header.kind, bytes(key), value)
                if predicate is None or predicate(element):
                    cur.delete()
                    header.count -= 1
                    self.save(pid, header)
                    return element
        return None

    def end(self, pid: Pid, *, last: bool) -> Element | None:
        """The first (or last) element, without removing it."""
        header = self._live(pid)
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if not last:
                found = cur.set_range(pid)
            elif cur.set_range(u64(int.from_bytes(pid, "big") + 1)):  # the next PID's first
                found = cur.prev()
            else:
                found = cur.last()
            if found and cur.key()[:PID_LENGTH] == pid:
                return decode(header.kind, bytes(cur.key()), cur.value())
        return None

    def element(self, pid: Pid, key: bytes) -> Element | None:
        """The element stored under element key ``key`` (PID + locator), if still there."""
        header = self._live(pid)
        raw = self.txn.get(key, db=self.dbs.elem)
        return None if raw is None else decode(header.kind, key, raw)

    def remove_element(self, pid: Pid, key: bytes) -> Element:
        """Remove the element stored under element key ``key`` (a cursor's element)."""
        header = self._live(pid, Kind.KEYED_BAG, Kind.KEYED_SET, Kind.SEQUENCE)
        raw = self.txn.pop(key, db=self.dbs.elem)
        if raw is None:
            raise self._fail(TO2_ERROR_EODAD, "the element under the cursor is gone", pid)
        header.count -= 1
        self.save(pid, header)
        return decode(header.kind, key, raw)

    def count(self, pid: Pid) -> int:
        """The number of elements."""
        return self._live(pid).count

    def remove_all(self, pid: Pid) -> int:
        """Remove every element (the collection stays); return how many there were."""
        header = self._live(pid)
        removed = header.count
        with self.txn.cursor(db=self.dbs.elem) as cur:
            if cur.set_range(pid):
                while cur.key()[:PID_LENGTH] == pid and cur.delete():
                    pass
        header.count = 0
        self.save(pid, header)
        return removed
