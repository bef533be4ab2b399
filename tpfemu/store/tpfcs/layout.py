"""The vocabulary and on-disk layout of the TPFCS-like collection store.

Public names (re-exported by :mod:`tpfemu.store.tpfcs`): :class:`Pid`, :class:`Kind`,
:class:`Lifetime`, :class:`Element`, :class:`CollectionInfo` and the ``TO2_ERROR_*`` codes.
The rest (key escaping, the collection header, name checks) is private to the store.

**Layout in LMDB** (one environment in ``<home>/tpfcs/``, five named databases):

========  ============================================  ====================================
database  key                                           value
========  ============================================  ====================================
meta      ``b"format"``, ``b"next_pid"``                 format version, PID counter (8 B)
ds        data store name (1-8 bytes)                   creation time (8-byte double)
coll      PID (8 bytes)                                 the collection header (``_HEADER``)
elem      PID + locator (see below)                     the element's data, as given
names     data store name padded to 8 + ``\\0`` + name   PID (8 bytes)
sessions  session id (8 bytes)                          OS pid, its start time, open time
========  ============================================  ====================================

The element locator is what orders a collection: for keyed kinds it is the escaped key
(order-preserving: ``\\0`` becomes ``\\0\\xff``, then ``\\0\\0`` ends the key) followed by the
element's 8-byte big-endian insertion serial, so equal keys keep insertion order; for
sequences and logs it is the 8-byte big-endian index. No LMDB ``DUPSORT`` is used, so element
data is not limited to LMDB's 511-byte duplicate size.
"""

from __future__ import annotations

import enum
import re
import struct
from dataclasses import dataclass

from tpfemu.errors import TpfcsError

__all__ = [
    "Pid", "Kind", "Lifetime", "Element", "CollectionInfo", "ERROR_CODES", "fail",
    "TO2_ERROR_ENV", "TO2_ERROR_PID", "TO2_ERROR_ZERO_PID", "TO2_ERROR_METHOD",
    "TO2_ERROR_LOCATOR_NOT_FOUND", "TO2_ERROR_LOCATOR_NOT_UNIQUE", "TO2_ERROR_LOCATOR_LGH",
    "TO2_ERROR_DATA_LGH", "TO2_ERROR_EMPTY", "TO2_ERROR_EODAD", "TO2_ERROR_INDEX",
    "TO2_ERROR_DS_NAME", "TO2_ERROR_DS_NOT_FOUND", "TO2_ERROR_DS_EXISTS",
    "TO2_ERROR_DS_NOT_EMPTY", "TO2_ERROR_NAME", "TO2_ERROR_RETRY", "TO2_ERROR_DB",
    "TO2_ERROR_PARAMETER",
]  # fmt: skip

# --- error codes ---------------------------------------------------------------------------
# The names marked IBM are z/TPF's (TPFCS "Error Handling" and the per-call pages); the
# numbers are tpfemu's own. The names marked ours have no IBM counterpart that we found.

TO2_ERROR_ENV = 1  # IBM: the environment (store, transaction, cursor) is not usable
TO2_ERROR_PID = 2  # IBM: no collection has this PID (or it was deleted)
TO2_ERROR_ZERO_PID = 3  # IBM: the PID is zero
TO2_ERROR_METHOD = 4  # IBM: the call is not supported by this kind of collection
TO2_ERROR_LOCATOR_NOT_FOUND = 5  # IBM: no element has this key / index
TO2_ERROR_LOCATOR_NOT_UNIQUE = 6  # IBM: the key (or dictionary name) already exists
TO2_ERROR_LOCATOR_LGH = 7  # IBM: the key's length is not valid for this collection
TO2_ERROR_DATA_LGH = 8  # IBM: the data is longer than the collection's entry length
TO2_ERROR_EMPTY = 9  # IBM: the collection is empty
TO2_ERROR_EODAD = 10  # IBM: end of data - the cursor is not on an element
TO2_ERROR_INDEX = 11  # ours: the index is not a positive integer
TO2_ERROR_DS_NAME = 12  # ours: the data store name is not 1-8 of A-Z 0-9
TO2_ERROR_DS_NOT_FOUND = 13  # ours: no data store has this name
TO2_ERROR_DS_EXISTS = 14  # ours: a data store of this name exists
TO2_ERROR_DS_NOT_EMPTY = 15  # ours: the data store still holds collections
TO2_ERROR_NAME = 16  # ours: the dictionary name is empty or longer than 64 bytes
TO2_ERROR_RETRY = 17  # ours: the transaction was rolled back so the store can grow
TO2_ERROR_DB = 18  # ours: LMDB reported a failure (I/O, corruption, reader table full)
TO2_ERROR_PARAMETER = 19  # ours: an argument is not valid (kind, lifetime, limits)

#: number -> mnemonic, for messages and for ``TpfcsError.code_name``.
ERROR_CODES: dict[int, str] = {
    value: name for name, value in globals().items() if name.startswith("TO2_ERROR_")
}


def fail(code: int, message: str, *, call: str = "", pid: bytes | None = None) -> TpfcsError:
    """Build the :class:`TpfcsError` for ``code`` (the caller raises it)."""
    return TpfcsError(code, ERROR_CODES[code], message, call=call,
                      pid=pid.hex() if pid else "")


# --- identifiers ---------------------------------------------------------------------------

PID_LENGTH = 8
ZERO_PID = bytes(PID_LENGTH)


class Pid(bytes):
    """A persistent identifier: 8 bytes naming one collection for its whole life.

    PIDs are handed out from a counter in the store, so they are unique in a home, never
    reused, and the same in every process and after every restart. ``str(pid)`` is 16 hex
    digits (``"0000000000000007"``); :meth:`parse` accepts that form, bytes or a ``Pid``.
    z/TPF's ``TO2_PID`` is an opaque structure; ours is only the number.
    """

    __slots__ = ()

    def __new__(cls, value: bytes) -> Pid:
        if len(value) != PID_LENGTH:
            raise fail(TO2_ERROR_PID, f"a PID is {PID_LENGTH} bytes, not {len(value)}")
        return super().__new__(cls, value)

    @classmethod
    def parse(cls, value: Pid | bytes | str, *, call: str = "") -> Pid:
        """Return ``value`` as a ``Pid`` (from a Pid, 8 bytes or 16 hex digits).

        :raises TpfcsError: TO2_ERROR_PID if it is malformed, TO2_ERROR_ZERO_PID if zero.
        """
        if isinstance(value, Pid):
            pid = value
        elif isinstance(value, bytes | bytearray | memoryview):
            pid = cls(bytes(value))
        elif isinstance(value, str):
            try:
                raw = bytes.fromhex(value)
            except ValueError:
                raise fail(TO2_ERROR_PID, f"{value!r} is not a PID (16 hex digits)",
                           call=call) from None
            pid = cls(raw)
        else:
            raise fail(TO2_ERROR_PID, f"{type(value).__name__} is not a PID", call=call)
        if pid == ZERO_PID:
            raise fail(TO2_ERROR_ZERO_PID, "the PID is zero", call=call)
        return pid

    @classmethod
    def from_int(cls, number: int) -> Pid:
        """The PID with this counter value (1, 2, ...)."""
        return cls(number.to_bytes(PID_LENGTH, "big"))

    def __str__(self) -> str:
        return self.hex()

    def __repr__(self) -> str:
        return f"Pid('{self.hex()}')"


class Kind(enum.IntEnum):
    """The kinds of collection the store offers (TPFCS has eleven; these four serve MQ).

    - ``KEYED_BAG``: TPFCS *key sorted bag* - elements in key order, duplicate keys allowed,
      equal keys in insertion (FIFO) order.
    - ``KEYED_SET``: TPFCS *key sorted set* - as the bag, but each key at most once.
    - ``SEQUENCE``: elements in the order added, each with a 1-based index that never
      changes (TPFCS renumbers a sequence after a removal; we do not, see docs/tpfcs.md).
    - ``LOG``: append-only; with ``max_entries`` the oldest element is dropped when a new
      one would exceed it (TPFCS wraps and overlays the oldest). No element removal.
    """

    KEYED_BAG = 1
    KEYED_SET = 2
    SEQUENCE = 3
    LOG = 4

    @property
    def keyed(self) -> bool:
        """True for the kinds whose elements are reached by key."""
        return self in (Kind.KEYED_BAG, Kind.KEYED_SET)


class Lifetime(enum.IntEnum):
    """How long a collection lives (TPFCS's three lifetimes).

    - ``LONG_TERM``: persistent; :meth:`Tpfcs.delete_collection` only marks it deleted and
      :meth:`Tpfcs.reclaim_pid` can bring it back until the deletion delay (48 hours by
      default, as on z/TPF) has passed; the next open after that removes it.
    - ``SHORT_TERM``: persistent; deletion is immediate.
    - ``TEMPORARY``: belongs to the :class:`Tpfcs` that created it (TPFCS: to the ECB). It is
      deleted when that store is closed, or, if its process died, when the store is next
      opened by any process.
    """

    LONG_TERM = 1
    SHORT_TERM = 2
    TEMPORARY = 3


@dataclass(frozen=True, slots=True)
class Element:
    """One element as returned by a read: a copy, owned by the caller.

    z/TPF returns a heap buffer (``TO2_BUF_HDR``) the caller must ``free()``; here it is an
    ordinary immutable object.

    :ivar key: the element's key (keyed kinds) or ``None`` (sequences and logs).
    :ivar index: for sequences and logs the 1-based index; for keyed kinds the element's
        insertion serial (unique in the collection, increasing), which orders equal keys.
    :ivar data: the element's data.
    """

    key: bytes | None
    index: int
    data: bytes

    @property
    def key_bytes(self) -> bytes:
        """The key of an element of a keyed collection.

        :raises TypeError: the element is a sequence's or a log's, which has no key.
        """
        if self.key is None:
            raise TypeError(f"element {self.index} has no key (not a keyed collection)")
        return self.key


@dataclass(frozen=True, slots=True)
class CollectionInfo:
    """What the store knows about one collection (``Tpfcs.info``).

    :ivar count: the number of elements now.
    :ivar deleted: true for a long-term collection that is deleted but still reclaimable.
    :ivar deleted_at: when it was deleted (seconds since the epoch), else ``None``.
    """

    pid: Pid
    data_store: str
    kind: Kind
    lifetime: Lifetime
    count: int
    name: str | None
    entry_length: int | None
    key_length: int | None
    max_entries: int | None
    created_at: float
    deleted: bool
    deleted_at: float | None


# --- names ---------------------------------------------------------------------------------

_DS_NAME = re.compile(r"[A-Z0-9]{1,8}")
MAX_NAME_BYTES = 64  # TPFCS's data store dictionary has 64-byte keys


def check_ds_name(name: object, *, call: str = "") -> str:
    """Return ``name`` if it is a valid data store name (1-8 of A-Z 0-9), else raise."""
    if not isinstance(name, str) or not _DS_NAME.fullmatch(name):
        raise fail(TO2_ERROR_DS_NAME,
                   f"data store name {name!r} is not 1-8 characters of A-Z 0-9", call=call)
    return name


def check_dict_name(name: object, *, call: str = "") -> bytes:
    """Return the UTF-8 of a dictionary name (1-64 bytes, no NUL), else raise."""
    raw = name.encode() if isinstance(name, str) else b""
    if not raw or len(raw) > MAX_NAME_BYTES or b"\0" in raw:
        raise fail(TO2_ERROR_NAME,
                   f"name {name!r} is not 1-{MAX_NAME_BYTES} bytes of UTF-8 without NUL",
                   call=call)
    return raw


def name_key(ds: str, raw_name: bytes) -> bytes:
    """The key of a dictionary entry: the data store name padded to 8, NUL, the name."""
    return ds.encode().ljust(8) + b"\0" + raw_name


# --- keys ----------------------------------------------------------------------------------

MAX_KEY = 240  # raw key bytes; escaped, plus PID and serial, stays under LMDB's 511
MAX_DATA = 100 * 1024 * 1024  # MQ's largest message; an entry_length may lower it


def escape_key(key: bytes) -> bytes:
    """Order-preserving, self-delimiting form of ``key`` (NUL -> NUL 0xFF, end NUL NUL)."""
    return key.replace(b"\0", b"\0\xff") + b"\0\0"


def unescape_key(locator: bytes) -> tuple[bytes, int]:
    """Split an element locator into (key, serial)."""
    escaped, serial = locator[:-8], int.from_bytes(locator[-8:], "big")
    return escaped[:-2].replace(b"\0\xff", b"\0"), serial


def u64(number: int) -> bytes:
    """8-byte big-endian (so that byte order is numeric order)."""
    return number.to_bytes(8, "big")


# --- collection header ---------------------------------------------------------------------

_HEADER = struct.Struct("<BBBB8sQHQQQdd8s")  # followed by the dictionary name (UTF-8)
_FORMAT = 1
LIVE, DELETED = 0, 1


@dataclass(slots=True)
class Header:
    """The stored description of one collection (mutable while a transaction edits it)."""

    kind: Kind
    lifetime: Lifetime
    state: int
    ds: str
    entry_length: int  # 0 = no limit beyond MAX_DATA
    key_length: int  # 0 = any length 1..MAX_KEY
    max_entries: int  # 0 = unlimited (logs only)
    next_serial: int  # the serial/index the next added element gets
    count: int
    created_at: float
    deleted_at: float  # 0.0 while live
    owner: bytes  # the session that owns a temporary collection, else 8 NULs
    name: str  # dictionary name or ""

    def pack(self) -> bytes:
        """The stored form."""
        return _HEADER.pack(
            _FORMAT, self.kind, self.lifetime, self.state, self.ds.encode().ljust(8),
            self.entry_length, self.key_length, self.max_entries, self.next_serial,
            self.count, self.created_at, self.deleted_at, self.owner,
        ) + self.name.encode()

    @classmethod
    def unpack(cls, raw: bytes | memoryview) -> Header:
        """Read a stored header."""
        (_fmt, kind, lifetime, state, ds, entry_length, key_length, max_entries, next_serial,
         count, created_at, deleted_at, owner) = _HEADER.unpack_from(raw)
        return cls(Kind(kind), Lifetime(lifetime), state, ds.decode().rstrip(), entry_length,
                   key_length, max_entries, next_serial, count, created_at, deleted_at,
                   owner, bytes(raw[_HEADER.size:]).decode())

    def info(self, pid: Pid) -> CollectionInfo:
        """The public view of this header."""
        return CollectionInfo(
            pid=pid, data_store=self.ds, kind=self.kind, lifetime=self.lifetime,
            count=self.count, name=self.name or None,
            entry_length=self.entry_length or None, key_length=self.key_length or None,
            max_entries=self.max_entries or None, created_at=self.created_at,
            deleted=self.state == DELETED,
            deleted_at=self.deleted_at if self.state == DELETED else None,
        )


_SESSION = struct.Struct("<QQd")  # OS pid, process start time (clock ticks), opened at


def pack_session(os_pid: int, start_time: int, opened_at: float) -> bytes:
    """The stored form of a session record."""
    return _SESSION.pack(os_pid, start_time, opened_at)


def unpack_session(raw: bytes | memoryview) -> tuple[int, int, float]:
    """(OS pid, process start time, opened at) of a stored session record."""
    return _SESSION.unpack_from(raw)
