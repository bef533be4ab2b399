"""The event journal's schema, version 4: one row per queue-manager event.

This is the contract between the emulator (which writes journals), the capture format
(a journal with payloads) and the Spark pipeline (which reads them). Every column is
documented in ``docs/journal.md``; change it only by adding nullable columns and raising
:data:`SCHEMA_VERSION`, so that older journals stay readable.

Versions: 2 changed what ``payload_hash`` holds (XXH64, was BLAKE2b in version 1); the
readers read a version-1 journal's ``payload_hash`` as null (:func:`stale_hashes`). 3 added
``msg_type``, ``format``, ``reply_to_q`` and ``reply_to_qmgr``; the readers read them as
null in older journals. 4 changed how a segment stores the rows, not the rows
(:data:`SEGMENT_SCHEMA`): ``seq``, ``cpu`` and ``qmgr`` are stated once, in the segment's
metadata (:data:`FROM_METADATA`), and MsgId, CorrelId, the payload hash and the priority
are stored at their fixed widths; the readers give the same rows as from a version-3
segment (:func:`from_segment`). A Parquet export has every column, as :data:`SCHEMA`.

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
payload_hash   binary       XXH64 of the message data, seed 42, 8 bytes big-endian:
                            Spark's ``xxhash64(payload)`` as a big-endian long
payload        binary       the message data, when the journal level is ``payload``
uow            int64        unit-of-work id, 0 outside a unit of work
ecb            int64        id of the ECB (entry) that made the call, null outside one
program        string       4-character program of that ECB, null outside one
detail         string       anything else the event carries, as JSON text (reason,
                            count, trigger type, feedback, depth ...), or null
msg_type       int32        MsgType of the message (put, get, browse events)
format         string       its Format, without trailing blanks; null when blank
reply_to_q     string       its ReplyToQ, without trailing blanks; null when blank
reply_to_qmgr  string       its ReplyToQMgr, without trailing blanks; null when blank
=============  ===========  ============================================================
"""

from __future__ import annotations

import pyarrow as pa

__all__ = [
    "COLUMNS",
    "EVENT_TYPES",
    "LEVELS",
    "SCHEMA",
    "SCHEMA_VERSION",
    "FROM_METADATA",
    "SEGMENT_SCHEMA",
    "SchemaMismatch",
    "cast_column",
    "check_schema",
    "from_segment",
    "to_segment",
    "payload_hash",
    "schema_version",
    "stale_hashes",
]

SCHEMA_VERSION = 4
#: The last version whose ``payload_hash`` is not today's hash (it was BLAKE2b-64).
LAST_BLAKE2B_VERSION = 1

#: Journal levels: ``off`` writes nothing, ``events`` every event without message data,
#: ``payload`` every event with the message data (the capture format).
LEVELS = ("off", "events", "payload")

#: Event types a journal may hold. Message events: put, get, browse, expire (the
#: discarded message), report (a report message the queue manager made), trigger.
#: Unit-of-work events: commit, backout. Monitoring: depth-high, depth-ok. Object
#: changes: define, alter, delete. The ROUTC bridge: bridge-in (a message bridged to
#: an LNIATA), bridge-route (COA4 routed it), bridge-out (ROUTC output). Channels, one
#: event a batch, its queue the transmission queue (sender) or the channel's name
#: (receiver): channel-send, channel-receive, channel-commit, channel-backout.
#: A refused client (issue 26): client-refused, its queue the channel's name.
#: Programs: program-failed (an entry ended with a system error and its dump; ``ecb`` and
#: ``program`` name it, ``detail`` holds the error code and text).
EVENT_TYPES = (
    "put", "get", "browse", "expire", "report", "trigger",
    "commit", "backout", "depth-high", "depth-ok",
    "define", "alter", "delete",
    "bridge-in", "bridge-route", "bridge-out",
    "channel-send", "channel-receive", "channel-commit", "channel-backout",
    "client-refused",
    "program-failed",
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
        pa.field("msg_type", pa.int32()),
        pa.field("format", pa.string()),
        pa.field("reply_to_q", pa.string()),
        pa.field("reply_to_qmgr", pa.string()),
    ],
    metadata={"tpfemu.journal.version": str(SCHEMA_VERSION)},
)

COLUMNS = tuple(SCHEMA.names)

#: Columns a segment (version 4 on) does not store per row, with the key of its schema
#: metadata that holds them: ``cpu`` and ``qmgr`` (the same on every row of a segment)
#: and ``seq``, whose value is the segment's first seq plus the row's place in it (a
#: writer numbers every event it writes, in order, without a gap).
FROM_METADATA = {
    "seq": b"tpfemu.journal.first_seq",
    "cpu": b"tpfemu.journal.cpu",
    "qmgr": b"tpfemu.journal.qmgr",
}
#: The types a segment stores at their fixed widths (readers cast them to SCHEMA's).
_SEGMENT_TYPES = {
    "msg_id": pa.binary(24),
    "correl_id": pa.binary(24),
    "payload_hash": pa.binary(8),
    "priority": pa.int8(),
}
#: How a journal segment stores its rows (the journal writer's; its C encoder writes
#: exactly these columns, checked at import by :mod:`tpfemu.journal.rows`): SCHEMA without
#: the :data:`FROM_METADATA` columns, the ids and the hash as fixed-size binary, the
#: priority as int8. About a fifth fewer bytes an event than SCHEMA's layout.
SEGMENT_SCHEMA = pa.schema(
    [f.with_type(_SEGMENT_TYPES.get(f.name, f.type)) for f in SCHEMA
     if f.name not in FROM_METADATA],
    metadata={"tpfemu.journal.version": str(SCHEMA_VERSION)},
)


def to_segment(batch: pa.RecordBatch) -> pa.RecordBatch:
    """A batch of SCHEMA as a segment stores it (:data:`SEGMENT_SCHEMA`).

    :raises SchemaMismatch: a MsgId or CorrelId is not 24 bytes, or a hash not 8.
    """
    columns = [cast_column(batch.column(field.name), field, "journal field", "stored")
               for field in SEGMENT_SCHEMA]
    return pa.RecordBatch.from_arrays(columns, schema=SEGMENT_SCHEMA)


def cast_column(column: pa.Array, field: pa.Field, what: str, how: str) -> pa.Array:
    """``column`` as ``field``'s type (itself when it has it already).

    :raises SchemaMismatch: "{what} 'name' cannot be {how} as TYPE: why".
    """
    if column.type == field.type:
        return column
    try:
        return column.cast(field.type)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise SchemaMismatch(f"{what} {field.name!r} cannot be {how} as {field.type}: "
                             f"{exc}") from None


def from_segment(batch: pa.RecordBatch, metadata: dict[bytes, bytes], row: int,
                 source: str) -> pa.RecordBatch:
    """``batch`` of a segment (version 4 on) with the :data:`FROM_METADATA` columns it
    lacks made from the segment's schema ``metadata``: ``cpu`` and ``qmgr`` on every row,
    ``seq`` the first seq plus ``row`` (the batch's first row's place in the segment) on.
    Columns the batch has are kept (the caller conforms the types to SCHEMA).

    :raises SchemaMismatch: the metadata lacks a key it needs (names ``source``).
    """
    n = batch.num_rows
    for name, key in FROM_METADATA.items():
        if name in batch.schema.names:
            continue
        raw = metadata.get(key)
        if raw is None:
            raise SchemaMismatch(f"{source}: required field {name!r} is missing (neither a "
                                 f"column nor {key.decode()!r} in the schema metadata)")
        if name == "seq":
            try:
                first = int(raw)
            except ValueError:
                raise SchemaMismatch(f"{source}: {key.decode()!r} is not a number: "
                                     f"{raw!r}") from None
            column = pa.array(range(first + row, first + row + n), pa.int64())
        else:
            column = pa.repeat(pa.scalar(raw.decode("utf-8"), pa.string()), n)
        batch = batch.append_column(SCHEMA.field(name), column)
    return batch


class SchemaMismatch(ValueError):
    """A file's columns are not the journal schema. The message names the file and field."""


def check_schema(found: pa.Schema, source: str) -> None:
    """Raise :class:`SchemaMismatch` unless ``found`` holds every journal column with a
    compatible type (extra columns are allowed; missing nullable ones too, and the
    required ones its metadata states, :data:`FROM_METADATA`).

    :param source: the file or path, named in the error.
    """
    version = _version(found, source)
    if version is not None and version > SCHEMA_VERSION:
        raise SchemaMismatch(
            f"{source}: journal schema version {version} is newer than this "
            f"tpfemu reads ({SCHEMA_VERSION})"
        )
    names = set(found.names)
    stated = found.metadata or {}
    for want in SCHEMA:
        if want.name not in names:
            if not want.nullable and FROM_METADATA.get(want.name) not in stated:
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


def _version(found: pa.Schema, source: str) -> int | None:
    """The version in ``found``'s metadata (None: none); a value that is not a positive
    whole number raises :class:`SchemaMismatch` naming ``source``."""
    raw = (found.metadata or {}).get(b"tpfemu.journal.version")
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace")
    if not text.strip().isdigit() or int(text) < 1:
        raise SchemaMismatch(f"{source}: journal schema version {text!r} is not a version "
                             f"number (this tpfemu reads 1 to {SCHEMA_VERSION})")
    return int(text)


def schema_version(found: pa.Schema) -> int | None:
    """The journal schema version in a file's schema metadata, or None when it has none
    (a file not written by tpfemu, or rewritten by a tool that drops the metadata).

    :raises SchemaMismatch: the metadata holds something that is not a version number.
    """
    return _version(found, "journal")


def stale_hashes(found: pa.Schema) -> bool:
    """Whether a file's ``payload_hash`` is not today's hash and must be read as null:
    its metadata names version 1 (BLAKE2b-64 hashes, which compare with nothing of
    version 2). A file without the version is taken as current (its hashes are kept)."""
    version = schema_version(found)
    return version is not None and version <= LAST_BLAKE2B_VERSION


def payload_hash(data: bytes) -> bytes:
    """The journal's payload hash of the message data: XXH64 with seed 42, as 8 bytes
    big-endian, i.e. ``xxhash.xxh64(data, seed=42).digest()``. Read as a signed
    big-endian integer (``int.from_bytes(h, "big", signed=True)``) it is what Spark's
    built-in ``xxhash64(payload)`` returns. Not a cryptographic hash: it tells changed
    payloads apart. (The writer computes the same in C, many at a time:
    ``tpfemu._lowlevel.payload_hashes``, which this calls.)"""
    from tpfemu._lowlevel import payload_hashes  # the compiled core: only when hashing

    return payload_hashes([data])
