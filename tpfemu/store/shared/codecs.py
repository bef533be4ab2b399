"""The stored form of the processor-shared queues: records, keys and their key ranges.

Everything here is bytes in, bytes out (or one record read or written in a transaction the
caller holds); the registry, the queue and the get path build on it. The layout is
described in docs/tpfcs.md, "Processor-shared queues".

- A *message key* is one byte ``9 - placement priority`` then the 8-byte put sequence, so
  key order is delivery order.
- A message's *state record* (:class:`Rec`) lies in collection ``msgs`` under its message
  key prefixed by its range: ``A`` available, ``L`` locked by a browse cursor, ``H``
  hidden by a unit of work (put or got) - so a get finds the first available message
  without stepping over claimed ones.
- An *owner* (17 bytes) is the CPU ID, that processor's incarnation, a kind (``U`` unit of
  work, ``L`` cursor lock) and an id; ``owners`` holds owner + message key -> what the
  owner did (:data:`OP_PUT`, :data:`OP_GET`, :data:`OP_LOCK`).
- A queue's header (:class:`Head`) is its directory entry: the PIDs of its collections,
  its settings and its counters.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field

from tpfemu._lowlevel import NEVER, PRIORITIES, Descriptor
from tpfemu.errors import TpfcsError
from tpfemu.store.tpfcs import Transaction
from tpfemu.store.tpfcs.layout import TO2_ERROR_EMPTY, TO2_ERROR_LOCATOR_NOT_FOUND

DATA_STORE = "MQS"
DIRECTORY = "MQ.SHARED.QUEUES"
PROCESSORS = "MQ.SHARED.CPUS"
ID_LEN = 24
PREFIX_LEN = 16
MAX_CTX = 4096
ZERO_ID = bytes(ID_LEN)
GEN_KEY = b"#GEN"
COUNTER_BITS = 39  # low bits of a generated MsgId counted in the process; the rest: open no.

# message states (the first byte of a state record)
AVAILABLE, PUT, GOT, LOCKED = 0, 1, 2, 3
# what an owner did to a message (the data of an `owners` element)
OP_PUT, OP_GET, OP_LOCK = b"P", b"G", b"L"
OPS = {OP_PUT: "put", OP_GET: "get", OP_LOCK: "lock"}

#: The TPFCS error codes of a key or collection that is not there.
MISSING = (TO2_ERROR_LOCATOR_NOT_FOUND, TO2_ERROR_EMPTY)


def now_us() -> int:
    """The time now in microseconds since the epoch (the core's clock)."""
    return time.time_ns() // 1000


def u64(n: int) -> bytes:
    """``n`` as 8 big-endian bytes (so byte order is number order)."""
    return n.to_bytes(8, "big")


def check_cpu(cpu: object) -> bytes:
    """The 4-byte key of CPU ID ``cpu`` (1-4 of A-Z 0-9, blank padded).

    :raises ValueError: not a CPU ID.
    """
    if not isinstance(cpu, str) or not 1 <= len(cpu) <= 4 or not cpu.isascii() \
            or not cpu.isalnum() or cpu != cpu.upper():
        raise ValueError(f"a CPU ID is 1-4 characters of A-Z 0-9, not {cpu!r}")
    return cpu.encode().ljust(4, b" ")


def queue_key(name: str) -> bytes:
    """The directory key of queue ``name``.

    :raises ValueError: not 1-48 bytes.
    """
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 48:
        raise ValueError(f"a queue name is 1-48 characters, not {name!r}")
    return name.encode()


# --- owners ---------------------------------------------------------------------------------

# owner: CPU ID (4) + incarnation (4) + kind (1: U unit of work, L cursor lock) + id (8)
OWNER_LEN = 17
NO_OWNER = bytes(OWNER_LEN)


def owner_key(cpu4: bytes, incarnation: int, kind: bytes, ident: int) -> bytes:
    """The 17-byte owner of a claim: CPU ID, incarnation, kind and id."""
    return cpu4 + incarnation.to_bytes(4, "big") + kind + u64(ident)


def split_owner(owner: bytes) -> tuple[str, int, bytes, int]:
    """An owner's CPU ID, incarnation, kind and id."""
    return (owner[:4].decode().rstrip(), int.from_bytes(owner[4:8], "big"), owner[8:9],
            int.from_bytes(owner[9:17], "big"))


# --- state records --------------------------------------------------------------------------

REC = struct.Struct("<B17sBBiIIqqQQ24s24s")


@dataclass(slots=True)
class Rec:
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
        return REC.pack(self.state, self.owner, self.priority, self.persistent,
                        self.backout_count, self.ctx_len, self.length, self.expiry,
                        self.put_time, self.seq, self.uow, self.msg_id, self.correl_id)

    @classmethod
    def unpack(cls, raw: bytes) -> Rec:
        return cls(*REC.unpack_from(raw))

    def descriptor(self) -> Descriptor:
        """The descriptor the core would return for this message."""
        return Descriptor(self.msg_id, self.correl_id, self.priority, bool(self.persistent),
                          self.expiry, self.put_time, self.ctx_len, self.seq, self.uow,
                          self.backout_count, self.length)

    def expired(self, now: int) -> bool:
        """True if the message has an expiry and ``now`` (microseconds) has reached it."""
        return self.expiry != NEVER and now >= self.expiry


RANGE = {AVAILABLE: b"A", LOCKED: b"L", PUT: b"H", GOT: b"H"}


def rkey(state: int, key: bytes) -> bytes:
    """The ``msgs`` key of message ``key`` in the range of ``state``."""
    return RANGE[state] + key


def read(t: Transaction, pid: bytes, state: int, key: bytes) -> Rec | None:
    """The state record of message ``key`` if it is in the range of ``state``."""
    try:
        return Rec.unpack(t.at_key(pid, rkey(state, key)))
    except TpfcsError as exc:
        if exc.code in MISSING:
            return None
        raise


def change(t: Transaction, pid: bytes, key: bytes, rec: Rec, old_state: int) -> None:
    """Store ``rec`` (its new state set) for ``key``, moving it between ranges if needed."""
    if RANGE[old_state] == RANGE[rec.state]:
        t.at_key_put(pid, rkey(rec.state, key), rec.pack())
    else:
        t.remove_key(pid, rkey(old_state, key))
        t.at_new_key_put(pid, rkey(rec.state, key), rec.pack())


def index(t: Transaction, ids: bytes, key: bytes, rec: Rec) -> None:
    """Enter a new message in the MsgId/CorrelId index (all-zero ids are not indexed)."""
    if rec.msg_id != ZERO_ID:
        t.at_new_key_put(ids, b"M" + rec.msg_id + key, b"")
    if rec.correl_id != ZERO_ID:
        t.at_new_key_put(ids, b"C" + rec.correl_id + key, b"")


def unindex(t: Transaction, ids: bytes, key: bytes, rec: Rec) -> None:
    """Take a message that leaves the queue out of the index."""
    if rec.msg_id != ZERO_ID:
        t.remove_key(ids, b"M" + rec.msg_id + key)
    if rec.correl_id != ZERO_ID:
        t.remove_key(ids, b"C" + rec.correl_id + key)


def remove_owner(t: Transaction, owners: bytes, owner_and_key: bytes) -> None:
    """Remove an ``owners`` element if it is still there."""
    try:
        t.remove_key(owners, owner_and_key)
    except TpfcsError as exc:
        if exc.code not in MISSING:
            raise


# --- queue headers --------------------------------------------------------------------------

HEAD = struct.Struct("<8s8s8s8s8sIIBB8QI30I")


@dataclass(slots=True)
class Head:
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
        return HEAD.pack(self.msgs, self.data, self.owners, self.expired_pid, self.ids,
                         self.max_depth, self.max_msg_length, self.fifo,
                         self.default_priority, self.next_seq, self.version,
                         self.next_expired, self.puts, self.gets, self.expired, self.commits,
                         self.backouts, self.expired_pending, *self.depth,
                         *self.uncommitted, *self.got)

    @classmethod
    def unpack(cls, raw: bytes) -> Head:
        v = HEAD.unpack(raw)
        return cls(*v[:18], list(v[18:28]), list(v[28:38]), list(v[38:48]))  # type: ignore[call-arg]  # (18 scalars)

    def remove(self, t: Transaction, key: bytes, rec: Rec) -> None:
        """Remove message ``key`` (state record ``rec``) from the queue for good: its
        state record, data and index entries, and its count in the depth."""
        t.remove_key(self.msgs, rkey(rec.state, key))
        t.remove_key(self.data, key)
        unindex(t, self.ids, key, rec)
        self.depth[rec.priority] -= 1


# --- processors -----------------------------------------------------------------------------

#: A processor's record in ``MQ.SHARED.CPUS``: incarnation, OS pid (0 = stopped), process
#: start, opened at.
CPU_REC = struct.Struct("<QQQd")
