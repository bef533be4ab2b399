"""The event journal's schema, version 1: one row per queue-manager event.

This is the contract between the emulator (which writes journals), the capture format
(a journal with payloads) and the Spark pipeline (which reads them). Every column is
documented in ``docs/journal.md``; change it only by adding nullable columns and raising
:data:`SCHEMA_VERSION`, so that older journals stay readable.

Columns (Arrow types; Spark reads them as the types in brackets):

=============  ===========  ============================================================
column         type         meaning
=============  ===========  ============================================================
event_time_us  int64        when it happened, microseconds since the Unix epoch (UTC)
seq            int64        the writer's sequence number: orders events of one journal
                            (and breaks ties between equal times)
cpu            string       processor ID (one letter) of the system that wrote it
qmgr           string       queue manager name
queue          string       the queue the event concerns ("" for none)
event          string       one of :data:`EVENT_TYPES`
msg_id         binary       MsgId, 24 bytes (null when the event has no message)
correl_id      binary       CorrelId, 24 bytes
group_id       binary       GroupId, 24 bytes
priority       int32        0-9
persistent     bool         the message is persistent
expiry         int32        remaining expiry in tenths of a second, -1 unlimited
length         int32        message data length in bytes (without the MQMD)
payload_hash   binary       BLAKE2b digest (8 bytes) of the message data
payload        binary       the message data, when the journal level is ``payload``
uow            int64        unit-of-work id, 0 outside a unit of work
ecb            int64        id of the ECB (entry) that made the call, null outside one
program        string       4-character program of that ECB, null outside one
detail         string       anything else the event carries, as JSON text (reason,
                            count, trigger type, feedback, depth ...), or null
=============  ===========  ============================================================
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

__all__ = [
    "COLUMNS",
    "EVENT_TYPES",
    "LEVELS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "SchemaMismatch",
    "check_schema",
    "payload_hash",
]

SCHEMA_VERSION = 1

#: Journal levels: ``off`` writes nothing, ``events`` every event without message data,
#: ``payload`` every event with the message data (the capture format).
LEVELS = ("off", "events", "payload")

#: Event types a journal may hold. Message events: put, get, browse, expire (the
#: discarded message), report (a report message the queue manager made), trigger.
#: Unit-of-work events: commit, backout. Monitoring: depth-high, depth-ok. Object
#: changes: define, alter, delete. Later layers add channel-* and bridge-* events.
EVENT_TYPES = (
    "put", "get", "browse", "expire", "report", "trigger",
    "commit", "backout", "depth-high", "depth-ok",
    "define", "alter", "delete",
)

SCHEMA = pa.schema(
    [
        pa.field("event_time_us", pa.int64(), nullable=False),
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("cpu", pa.string(), nullable=False),
        pa.field("qmgr", pa.string(), nullable=False),
        pa.field("queue", pa.string(), nullable=False),
        pa.field("event", pa.string(), nullable=False),
        pa.field("msg_id", pa.binary()),
        pa.field("correl_id", pa.binary()),
        pa.field("group_id", pa.binary()),
        pa.field("priority", pa.int32()),
        pa.field("persistent", pa.bool_()),
        pa.field("expiry", pa.int32()),
        pa.field("length", pa.int32()),
        pa.field("payload_hash", pa.binary()),
        pa.field("payload", pa.binary()),
        pa.field("uow", pa.int64()),
        pa.field("ecb", pa.int64()),
        pa.field("program", pa.string()),
        pa.field("detail", pa.string()),
    ],
    metadata={"tpfemu.journal.version": str(SCHEMA_VERSION)},
)

COLUMNS = tuple(SCHEMA.names)


class SchemaMismatch(ValueError):
    """A file's columns are not the journal schema. The message names the file and field."""


def check_schema(found: pa.Schema, source: str) -> None:
    """Raise :class:`SchemaMismatch` unless ``found`` holds every journal column with a
    compatible type (extra columns are allowed; missing nullable ones too, except the
    required identity columns).

    :param source: the file or path, named in the error.
    """
    version = (found.metadata or {}).get(b"tpfemu.journal.version")
    if version is not None and int(version) > SCHEMA_VERSION:
        raise SchemaMismatch(
            f"{source}: journal schema version {int(version)} is newer than this "
            f"tpfemu reads ({SCHEMA_VERSION})"
        )
    names = set(found.names)
    for want in SCHEMA:
        if want.name not in names:
            if not want.nullable:
                raise SchemaMismatch(f"{source}: required field {want.name!r} is missing")
            continue
        got = found.field(want.name).type
        if got != want.type and not _compatible(got, want.type):
            raise SchemaMismatch(
                f"{source}: field {want.name!r} has type {got}, expected {want.type}"
            )


def _compatible(got: pa.DataType, want: pa.DataType) -> bool:
    """Types Parquet/Spark round trips may change without changing meaning."""
    if pa.types.is_integer(want):
        return pa.types.is_integer(got)
    if pa.types.is_string(want):
        return pa.types.is_string(got) or pa.types.is_large_string(got)
    if pa.types.is_binary(want):
        return pa.types.is_binary(got) or pa.types.is_large_binary(got) or (
            pa.types.is_fixed_size_binary(got)
        )
    return False


def payload_hash(data: bytes) -> bytes:
    """The journal's payload hash: an 8-byte BLAKE2b digest of the message data, i.e.
    ``hashlib.blake2b(data, digest_size=8).digest()``. (The writer computes the same in
    C, many at a time: ``tpfemu._lowlevel.payload_hashes``.)"""
    return hashlib.blake2b(data, digest_size=8).digest()
