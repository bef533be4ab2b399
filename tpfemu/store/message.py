"""The stored image of a persistent message: its descriptor, its data and its message key.

One format serves the recovery log (a PUT record carries one image) and the checkpoint
store (a chunk carries many), so recovery moves images between the two without
re-encoding. A :class:`StoredMessage` is what restart hands back to the queue manager:
the fields the core needs to put the message back (``CoreQueue.put_message``) plus the
backout count and the message key.

**Message key.** A 64-bit number naming the message for as long as it is on its queue:
the log sequence number (LSN) of its PUT record. It orders a queue's messages in put
order, lets a GET record name the message it removed, and never repeats (LSNs only grow,
across restarts too).

**Expiry** is an absolute deadline in microseconds of the wall clock (``NEVER`` =
unlimited), so the remaining expiry after a restart is the deadline minus the new "now":
time spent stopped counts, as for IBM's MQ.

Layout (little-endian): a descriptor is :data:`DESC` (88 bytes: key, MsgId, CorrelId,
priority, expiry, put time, context length, backout count, data length); a chunk is a
4-byte count, then that many descriptors, then the messages' data back to back. This is
the core's *packed batch* (``tpf_mq_put_packed`` in ``native/include/tpf/queue.h``), so
restart hands a checkpoint's chunks to the memory queues without parsing them in Python.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterable, Sequence
from typing import NamedTuple

NEVER = (1 << 63) - 1
"""Expiry deadline of a message that never expires (the core's ``TPF_MQ_NEVER``)."""
ID_LEN = 24
ZERO_ID = bytes(ID_LEN)

DESC = struct.Struct("<Q24s24sBxxxqqIII")
"""key, msg_id, correl_id, priority, expiry, put_time, ctx_len, backout_count, length."""
COUNT = struct.Struct("<I")


class StoredMessage(NamedTuple):
    """A persistent message as stored: restart puts it back with these fields.

    ``data`` is bytes-like (a ``memoryview`` slice of a buffer shared with the other
    messages read with it, when it comes from the store); ``bytes(m.data)`` copies it out.
    """

    key: int
    msg_id: bytes
    correl_id: bytes
    priority: int
    expiry: int  # absolute deadline, microseconds of the wall clock; NEVER = unlimited
    put_time: int  # microseconds since the epoch
    ctx_len: int  # bytes of context record at the head of data
    backout_count: int
    data: bytes | memoryview


def pack_descriptor(m: StoredMessage, key: int | None = None) -> bytes:
    """The 88-byte descriptor of ``m`` (with ``key`` instead of ``m.key`` if given)."""
    if len(m.msg_id) != ID_LEN or len(m.correl_id) != ID_LEN:
        raise ValueError(f"msg_id and correl_id must be {ID_LEN} bytes")
    return DESC.pack(
        m.key if key is None else key, m.msg_id, m.correl_id, m.priority, m.expiry,
        m.put_time, m.ctx_len, m.backout_count, len(m.data),
    )  # fmt: skip


def encode_chunk(messages: Iterable[StoredMessage]) -> bytes:
    """One chunk holding ``messages`` in the order given."""
    messages = list(messages)
    descriptors = b"".join(map(pack_descriptor, messages))
    return b"".join([COUNT.pack(len(messages)), descriptors, *(m.data for m in messages)])


def decode_chunk(chunk: bytes | bytearray) -> list[StoredMessage]:
    """The messages of a chunk, in order; their data are views of ``chunk`` (kept alive).

    Pass ``bytes`` (not a view into an LMDB map, which is gone when its transaction ends).
    """
    (count,) = COUNT.unpack_from(chunk)
    end_desc = COUNT.size + count * DESC.size
    view = memoryview(chunk)
    out: list[StoredMessage] = []
    append = out.append
    new = tuple.__new__
    off = end_desc
    for key, mid, cid, prio, expiry, put_time, ctx_len, backouts, length in DESC.iter_unpack(
        view[COUNT.size : end_desc]
    ):
        end = off + length
        append(new(StoredMessage, (key, mid, cid, prio, expiry, put_time, ctx_len, backouts,
                                   view[off:end])))  # fmt: skip
        off = end
    if off != len(chunk):
        raise ValueError(f"chunk of {len(chunk)} bytes holds {off} bytes of messages")
    return out


def chunk_keys(chunk: bytes | bytearray | memoryview) -> Sequence[int]:
    """The message keys of a chunk, in order (read in place: no parse of the rest)."""
    (count,) = COUNT.unpack_from(chunk)
    end = COUNT.size + count * DESC.size
    if sys.byteorder == "little":  # each key is the first 8-byte word of its descriptor
        return memoryview(chunk)[COUNT.size : end].cast("Q")[:: DESC.size // 8]
    return [k for (k,) in struct.iter_unpack("<Q80x", memoryview(chunk)[COUNT.size : end])]
