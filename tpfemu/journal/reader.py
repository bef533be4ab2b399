"""Reading journals: segments, events, Arrow tables and the Parquet export.

A *source* is a system home (its ``journal/`` directory is used), a journal directory, or
one ``.arrows`` segment file. Segments are read in order: by processor ID, then segment
number, so each processor's events come in ``seq`` order. A torn last batch (a crash
while writing) ends that segment's events without an error; a file that is not an Arrow
stream raises :class:`JournalError`, one whose columns are not the journal's raises
:class:`~tpfemu.journal.schema.SchemaMismatch`; both name the file.

Every segment is read as the current schema: the ``payload_hash`` of a segment whose
metadata names version 1 (BLAKE2b hashes, not comparable with today's XXH64) is read as
null, here and in the Parquet export (see docs/journal.md, "Versions").
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from tpfemu.errors import TpfEmuError
from tpfemu.journal.schema import (
    FROM_METADATA,
    SCHEMA,
    SchemaMismatch,
    cast_column,
    check_schema,
    from_segment,
    stale_hashes,
)

__all__ = [
    "JournalError",
    "JournalEvent",
    "read_events",
    "read_table",
    "segments",
    "to_parquet",
]

_SEGMENT = re.compile(r"^([A-Z])-(\d+)\.arrows$")


class JournalError(TpfEmuError, ValueError):
    """A journal source cannot be read (missing, or not an Arrow stream). Names the file."""


@dataclass(frozen=True, slots=True)
class JournalEvent:
    """One journal row; the attributes are the schema's columns (see docs/journal.md)."""

    event_time_us: int
    seq: int
    cpu: str
    qmgr: str
    queue: str
    event: str
    msg_id: bytes | None = None
    correl_id: bytes | None = None
    group_id: bytes | None = None
    priority: int | None = None
    persistent: bool | None = None
    expiry: int | None = None
    length: int | None = None
    payload_hash: bytes | None = None
    payload: bytes | None = None
    uow: int | None = None
    ecb: int | None = None
    program: str | None = None
    detail: str | None = None
    msg_type: int | None = None
    format: str | None = None
    reply_to_q: str | None = None
    reply_to_qmgr: str | None = None

    @property
    def fields(self) -> dict[str, Any]:
        """The ``detail`` column parsed ({} when there is none)."""
        return json.loads(self.detail) if self.detail else {}


def segment_key(path: Path) -> tuple[str, int, str]:
    """Sort key of a segment file: (processor, number, name); other names sort last."""
    m = _SEGMENT.match(path.name)
    if m is None:
        return ("~", 0, path.name)
    return (m.group(1), int(m.group(2)), path.name)


def segments(source: str | Path) -> list[Path]:
    """The segment files of a home, a journal directory or one segment file, in order.

    :raises JournalError: ``source`` does not exist.
    """
    path = Path(source)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise JournalError(f"{source}: no such journal, journal directory or segment file")
    if (path / "journal").is_dir():
        path = path / "journal"
    return sorted((p for p in path.glob("*.arrows") if p.is_file()), key=segment_key)


def _sources(sources: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    found: list[Path] = []
    for source in sources:
        found.extend(segments(source))
    return found


def _open(path: Path) -> pa.ipc.RecordBatchStreamReader | None:
    """A stream reader on a segment after checking its schema; None for an empty file."""
    try:
        if path.stat().st_size == 0:
            return None  # created, then the process died before the schema was written
        reader = pa.ipc.open_stream(pa.memory_map(str(path)))
    except (pa.ArrowInvalid, OSError) as exc:
        raise JournalError(f"{path}: not a readable journal segment (Arrow IPC stream): "
                           f"{exc}") from None
    check_schema(reader.schema, str(path))
    return reader


def _batches(path: Path, torn: list[str] | None = None) -> Iterator[pa.RecordBatch]:
    """The complete record batches of one segment, conformed to SCHEMA (a version-1
    segment's payload_hash null); stops at a torn last batch, quietly, or, with a
    ``torn`` list, appending a line that names the file and what was left out."""
    reader = _open(path)
    if reader is None:
        return
    stale = stale_hashes(reader.schema)
    # a segment of version 4 on states seq, cpu and qmgr once, in its metadata
    stated = not set(FROM_METADATA).issubset(reader.schema.names)
    metadata = reader.schema.metadata or {}
    rows = 0
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            return
        except (pa.ArrowInvalid, OSError, EOFError) as exc:
            # torn: the writer died in the middle of this batch (or the file was cut)
            if torn is not None:
                torn.append(f"{path}: truncated or damaged after its first {rows:,} rows; "
                            f"the rest is left out ({exc})")
            return
        if stated:
            batch = from_segment(batch, metadata, rows, str(path))
        rows += batch.num_rows
        batch = _conform(batch, str(path))
        yield _without_hashes(batch) if stale else batch


def _without_hashes(batch: pa.RecordBatch) -> pa.RecordBatch:
    """``batch`` (in SCHEMA) with its ``payload_hash`` null."""
    at = SCHEMA.get_field_index("payload_hash")
    return batch.set_column(at, SCHEMA.field(at), pa.nulls(batch.num_rows, pa.binary()))


def _conform(batch: pa.RecordBatch, source: str) -> pa.RecordBatch:
    """``batch`` with exactly the journal's columns and types (a newer journal's extra
    columns dropped, missing nullable ones null)."""
    if batch.schema.equals(SCHEMA):
        return batch
    columns = []
    names = set(batch.schema.names)
    for field in SCHEMA:
        if field.name in names:
            columns.append(cast_column(batch.column(field.name), field, f"{source}: field",
                                       "read"))
        else:
            columns.append(pa.nulls(batch.num_rows, field.type))
    return pa.RecordBatch.from_arrays(columns, schema=SCHEMA)


def last_seq(path: Path) -> int | None:
    """The last ``seq`` written to a segment, or None if it holds no complete batch."""
    last = None
    try:
        for batch in _batches(path):
            if batch.num_rows:
                last = batch.column("seq")[-1].as_py()
    except (JournalError, SchemaMismatch):
        return None
    return last


def read_table(sources: str | Path | Iterable[str | Path]) -> pa.Table:
    """Every event of the given homes, journal directories or segments, as one table with
    :data:`~tpfemu.journal.schema.SCHEMA`."""
    batches = [b for path in _sources(sources) for b in _batches(path)]
    return pa.Table.from_batches(batches, schema=SCHEMA)


def read_events(source: str | Path | Iterable[str | Path], *, queue: str | None = None,
                events: Iterable[str] | None = None) -> Iterator[JournalEvent]:
    """Iterate the events of a journal, each processor's in ``seq`` order.

    :param source: a home, a journal directory, a segment file, or several of them.
    :param queue: only events concerning this queue.
    :param events: only these event types (e.g. ``{"put", "get"}``).
    """
    wanted = set(events) if events is not None else None
    for path in _sources(source):
        for batch in _batches(path):
            for row in batch.to_pylist():
                if queue is not None and row["queue"] != queue:
                    continue
                if wanted is not None and row["event"] not in wanted:
                    continue
                yield JournalEvent(**row)


def to_parquet(sources: Sequence[str | Path], out_dir: str | Path, *,
               torn: list[str] | None = None) -> list[Path]:
    """Convert journals to Parquet: one file per segment, named after it, in ``out_dir``.

    Every segment's schema is checked before anything is written. Each file appears
    atomically (written under a temporary name, then renamed); an existing file of the
    same name is replaced. Returns the files written, in segment order. A segment that
    ends in a torn batch is converted up to it; with a ``torn`` list, a line naming it is
    appended.

    :raises SchemaMismatch: a segment's columns are not the journal's (names file, field).
    :raises JournalError: a source is missing, holds no segments, or a file is not an
        Arrow stream (names the file).
    """
    import pyarrow.parquet as pq

    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    paths: list[Path] = []
    for source in sources:
        found = segments(source)
        if not found:
            raise JournalError(f"{source}: no journal segments (*.arrows) found")
        paths.extend(found)
    for path in paths:  # fail before writing anything
        _open(path)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    used: set[str] = set()
    for path in paths:
        name = path.stem
        n = 1
        while name in used:  # the same segment name from two homes
            n += 1
            name = f"{path.stem}.{n}"
        used.add(name)
        target = out / f"{name}.parquet"
        temp = out / f".{name}.parquet.{os.getpid()}.tmp"
        try:
            with pq.ParquetWriter(temp, SCHEMA) as writer:
                for batch in _batches(path, torn):
                    writer.write_batch(batch)
            os.replace(temp, target)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise
        written.append(target)
    return written
