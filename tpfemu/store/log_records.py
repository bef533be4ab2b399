"""The records of the recovery log and their layout on disk.

Records are appended to the log as :class:`Put`, :class:`Get`, :class:`Commit` and
:class:`Backout` (see :mod:`tpfemu.store.recovery_log` for their meaning), and come back
from replay as :class:`LogRecord`. This module also reads the log's environment without a
:class:`~tpfemu.store.recovery_log.RecoveryLog` (recovery, other processes, tools).

Layout: sub-database ``log`` maps an 8-byte big-endian LSN (the first of its batch,
written with ``append=True``) to a batch: a 16-byte header (magic, incarnation, record
count) and the records. A record is a 32-byte header (kind, queue id, backout count,
unit of work, message key); a PUT record adds a descriptor and the data
(:mod:`tpfemu.store.message`). ``queues`` maps queue names to 4-byte ids; ``meta`` holds
the incarnation and the LSN floor left by trimming.

Little-endian throughout, except the keys (big-endian, so LMDB's byte order is LSN order).

The C side that reads these records at restart, and writes the PUT record of a message
a put plan puts (native/include/tpf/logrec.h, ``tpf_log_put_record``), states the same
layout as constants; importing this module checks them against the struct formats below
(:func:`check_layout`) and fails, naming the constant, where they differ.
"""

from __future__ import annotations

import itertools
import re
import struct
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import NamedTuple

from tpfemu import errors
from tpfemu._lowlevel import header_constants, log_encode, log_encode_setup
from tpfemu.mq import cmqc
from tpfemu.store.lmdbenv import LmdbEnv
from tpfemu.store.message import DESC, NEVER, ZERO_ID, StoredMessage

PUT, GET, COMMIT, BACKOUT = 1, 2, 3, 4
KIND_NAMES = {PUT: "PUT", GET: "GET", COMMIT: "COMMIT", BACKOUT: "BACKOUT"}

MAGIC = b"TPFL"
BATCH = struct.Struct("<4sIII")  # magic, incarnation, record count, reserved
REC = struct.Struct("<BxxxIIxxxxQQ")  # kind, queue id, backout count, uow, message key
PUT_HEAD = struct.Struct(REC.format + DESC.format[1:])  # a PUT record up to its data
LSN = struct.Struct(">Q")
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")

LOG_DB, QUEUES_DB, META_DB = b"log", b"queues", b"meta"


def field_offsets(layout: struct.Struct) -> list[int]:
    """The offset of each field (pad bytes skipped) of a struct format, in order."""
    order, body = layout.format[0], layout.format[1:]
    offsets = []
    for m in re.finditer(r"(\d*)([a-zA-Z?])", body):
        if m.group(2) != "x":
            offsets.append(struct.calcsize(order + body[: m.start()]))
    return offsets


def layout() -> dict[str, int]:
    """The record layout as this module writes it, named as logrec.h names it."""
    kind, qid, backouts, uow, key = field_offsets(REC)
    desc = field_offsets(DESC)
    return {
        "TPF_LOG_BATCH_HEAD": BATCH.size, "TPF_LOG_REC": REC.size, "TPF_LOG_REC_KIND": kind,
        "TPF_LOG_REC_QID": qid, "TPF_LOG_REC_BACKOUTS": backouts, "TPF_LOG_REC_UOW": uow,
        "TPF_LOG_REC_KEY": key, "TPF_MQ_PACKED_DESC": DESC.size,
        "TPF_LOG_DESC_MSGID": desc[1], "TPF_LOG_DESC_CORRELID": desc[2],
        "TPF_LOG_DESC_PRIORITY": desc[3], "TPF_LOG_DESC_EXPIRY": desc[4],
        "TPF_LOG_DESC_PUT_TIME": desc[5], "TPF_LOG_DESC_CTX_LEN": desc[6],
        "TPF_LOG_DESC_BACKOUTS": desc[-2], "TPF_LOG_DESC_LENGTH": desc[-1],
        "TPF_LOG_PUT_HEAD": PUT_HEAD.size,
        "TPF_LOG_PUT": PUT, "TPF_LOG_GET": GET, "TPF_LOG_COMMIT": COMMIT,
        "TPF_LOG_BACKOUT": BACKOUT,
    }  # fmt: skip


def check_layout(c_side: Mapping[str, int]) -> None:
    """Raise ImportError unless ``c_side`` (logrec.h's constants) agrees with
    :func:`layout`: C would replay records other than the ones written here."""
    wrong = [f"{name} is {c_side.get(name)} in C, {value} here"
             for name, value in layout().items() if c_side.get(name) != value]
    if wrong:
        raise ImportError(
            "the recovery log's record layout in tpfemu/store/log_records.py disagrees with "
            "native/include/tpf/logrec.h: " + "; ".join(wrong) + " (change them together)")


check_layout(header_constants(list(layout())))


# -- records ------------------------------------------------------------------------------


class Put(NamedTuple):
    """The put of a persistent message; its message key will be this record's LSN.

    :param expiry: absolute deadline in microseconds, or NEVER.
    :param uow: the unit of work, or 0 outside syncpoint (committed by itself).
    """

    queue: str
    data: bytes
    msg_id: bytes
    correl_id: bytes = ZERO_ID
    priority: int = 0
    expiry: int = NEVER
    put_time: int = 0
    ctx_len: int = 0
    backout_count: int = 0
    uow: int = 0


class Get(NamedTuple):
    """The get of the persistent message with message ``key`` from ``queue``.

    :param backout_count: the message's backout count when it was got; if the unit of
        work is backed out (or never finishes) the message stays with one more.
    """

    queue: str
    key: int
    uow: int = 0
    backout_count: int = 0


class Commit(NamedTuple):
    """The commit of a unit of work: its Puts and Gets take effect."""

    uow: int


class Backout(NamedTuple):
    """The backout of a unit of work: its Puts and Gets are undone."""

    uow: int


Record = Put | Get | Commit | Backout


class LogRecord(NamedTuple):
    """A record as replayed: ``message`` is the put message (key = lsn) for PUT records."""

    lsn: int
    kind: int  # PUT, GET, COMMIT or BACKOUT
    queue: str | None
    uow: int
    incarnation: int
    key: int  # the message key (PUT: its own lsn; GET: the message got)
    backout_count: int
    message: StoredMessage | None


log_encode_setup(Put, Get, Commit, Backout)


def encode_records(
    records: Sequence[Record], qids: dict[str, int], qid_of: Callable[[str], int]
) -> tuple[bytes, set[int] | None, list[tuple[int, int]] | None, list[int] | None]:
    """Encode records for a batch, in C (``log_encode``, with the layout :func:`layout`
    states and logrec.h agrees with): (the records' bytes, the units of work with a
    record, (byte offset, uow) of each Commit, the units of work committed or backed
    out), None for an empty collection. A queue's id is ``qids[name]``, else
    ``qid_of(name)``.

    :raises TypeError, ValueError: a record it cannot encode (not a record, a field of
        the wrong type or out of range, ids not 24 bytes); nothing was encoded.
    """
    return log_encode(records, qids, qid_of)


# -- reading (also used by recovery without a RecoveryLog) ---------------------------------


def read_batches(env: LmdbEnv, from_lsn: int = 0) -> Iterator[tuple[int, int, bytes]]:
    """(first LSN, incarnation, records as bytes) of each batch holding LSNs >= from_lsn."""
    with env.read(buffers=True) as txn:
        for lsn, incarnation, records in batch_views(env, txn, from_lsn):
            yield lsn, incarnation, bytes(records)


def batch_views(env: LmdbEnv, txn, from_lsn: int = 0) -> Iterator[tuple[int, int, memoryview]]:
    """As :func:`read_batches`, in read transaction ``txn`` (opened with ``buffers=True``):
    the records are views into the map, valid until the transaction ends.

    :raises ObjectDamaged: a batch does not start with the log's magic.
    """
    cur = txn.cursor(db=env.db(LOG_DB))
    if cur.set_range(LSN.pack(from_lsn)):
        if LSN.unpack(cur.key())[0] > from_lsn:
            cur.prev()  # the batch before may hold from_lsn (none: iteration starts at first)
    elif not cur.last():  # every batch starts before from_lsn: the last may hold it
        return
    for key, value in cur:
        magic, incarnation, _count, _ = BATCH.unpack_from(value)
        if magic != MAGIC:
            raise errors.error_for(cmqc.MQRC_OBJECT_DAMAGED, call="replay",
                                   obj=f"log batch {LSN.unpack(key)[0]}")  # fmt: skip
        yield LSN.unpack(key)[0], incarnation, value[BATCH.size :]


def read_queue_names(env: LmdbEnv) -> dict[int, str]:
    """Queue id -> name, as stored in the log environment."""
    with env.read() as txn:
        return {U32.unpack(qid)[0]: bytes(name).decode()
                for name, qid in txn.cursor(db=env.db(QUEUES_DB))}  # fmt: skip


def put_message(records: memoryview, off: int, key: int) -> tuple[StoredMessage, int]:
    """The message of the PUT record at ``off`` (its data a view of ``records``), with key
    ``key`` (the record's LSN), and the offset after the record."""
    (_, _, _, _, _, _, mid, cid, prio, expiry, put_time, ctx_len, backouts,
     length) = PUT_HEAD.unpack_from(records, off)  # fmt: skip
    data_at = off + PUT_HEAD.size
    end = data_at + length
    return StoredMessage(key, mid, cid, prio, expiry, put_time, ctx_len, backouts,
                         records[data_at:end]), end  # fmt: skip


def decode_batch(
    first_lsn: int, incarnation: int, records: bytes, names: dict[int, str], from_lsn: int = 0
) -> Iterator[LogRecord]:
    """The records of one batch (those with LSN >= from_lsn); PUT data are views of it."""
    view = memoryview(records)
    off = 0
    end = len(records)
    for lsn in itertools.count(first_lsn):
        if off >= end:
            return
        kind, qid, backouts, uow, key = REC.unpack_from(records, off)
        if kind == PUT:
            message, off = put_message(view, off, lsn)
            if lsn >= from_lsn:
                yield LogRecord(lsn, kind, names.get(qid), uow, incarnation, lsn,
                                message.backout_count, message)  # fmt: skip
            continue
        off += REC.size
        if lsn >= from_lsn:
            queue = names.get(qid) if kind == GET else None
            yield LogRecord(lsn, kind, queue, uow, incarnation, key, backouts, None)
