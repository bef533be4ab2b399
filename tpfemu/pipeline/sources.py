"""Read pipeline inputs: Parquet files or directories, journal homes and segment files.

Every input is checked against the journal schema (:func:`tpfemu.journal.schema.check_schema`)
before Spark reads it, so a wrong file fails with its name and the offending field instead of
a Spark stack trace:

- a local ``.parquet`` file, or a directory holding ``.parquet`` files (searched
  recursively, as Spark reads them): each file's footer is read with pyarrow and checked;
- a journal home (a directory with ``journal/``), a journal directory, or ``.arrows``
  segment files: converted to Parquet in a temporary directory by
  :func:`tpfemu.journal.to_parquet` (which checks them), then read;
- any other URI Spark can read (``hdfs://``, ``s3a://``, ``file://`` ...): read by Spark,
  and its schema (as Spark sees it) is checked.

Spark reads everything with the journal schema itself, so files written with compatible
types (int32 for int64, large strings, fixed-size binary) are read as the journal's types.
An optional string column ``direction`` (the capture format's, see :mod:`.capture`) is
kept when present and null otherwise.

Payload hashes of older journals: a version-1 journal's ``payload_hash`` (BLAKE2b) is read
as null, so that compare falls back to the payload (see docs/journal.md, "Versions"). The
version is the ``tpfemu.journal.version`` of the file's schema metadata, read from the
Parquet footer of a local file and from a segment's stream (:mod:`tpfemu.journal.reader`
nulls them while converting). A file without that metadata (written by Spark or another
tool that drops it), and every URI input (Spark does not show the metadata), is taken as
current: its ``payload_hash`` is read as it is.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

import pyarrow as pa

from tpfemu.journal.schema import SCHEMA, SchemaMismatch, check_schema, stale_hashes

__all__ = ["InputError", "SchemaMismatch", "Inputs", "spark_schema", "read_journal"]

#: Columns beyond the journal's that the pipeline reads when a file has them.
EXTRA_COLUMNS = (pa.field("direction", pa.string()),)


class InputError(ValueError):
    """An input cannot be read (missing, unreadable, not Parquet, not a journal)."""


def spark_schema():
    """The journal schema (plus :data:`EXTRA_COLUMNS`) as a Spark ``StructType``."""
    from pyspark.sql import types as T

    mapping = {
        pa.int64(): T.LongType(), pa.int32(): T.IntegerType(), pa.string(): T.StringType(),
        pa.binary(): T.BinaryType(), pa.bool_(): T.BooleanType(),
    }
    fields = [T.StructField(f.name, mapping[f.type], f.nullable) for f in SCHEMA]
    fields += [T.StructField(f.name, mapping[f.type], True) for f in EXTRA_COLUMNS]
    return T.StructType(fields)


def _arrow_of_spark(schema) -> pa.Schema:
    """A Spark schema as Arrow types, for :func:`check_schema` (unknown types: null)."""
    from pyspark.sql import types as T

    mapping = [
        (T.LongType, pa.int64()), (T.IntegerType, pa.int32()), (T.ShortType, pa.int16()),
        (T.ByteType, pa.int8()), (T.StringType, pa.string()), (T.BinaryType, pa.binary()),
        (T.BooleanType, pa.bool_()), (T.DoubleType, pa.float64()), (T.FloatType, pa.float32()),
    ]
    fields = []
    for f in schema.fields:
        arrow = next((a for cls, a in mapping if isinstance(f.dataType, cls)), pa.null())
        fields.append(pa.field(f.name, arrow))
    return pa.schema(fields)


def _is_uri(path: str) -> bool:
    return "://" in path and not path.startswith("file://")


def _is_journal(path: Path) -> bool:
    if path.is_file():
        return path.suffix == ".arrows"
    if (path / "journal").is_dir():
        return True
    return any(path.glob("*.arrows"))


def _parquet_files(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*.parquet") if p.is_file()
                  and not any(part.startswith(("_", ".")) for part in p.relative_to(path).parts))


def _check_parquet(file: Path) -> bool:
    """Check a Parquet file's schema; True when its ``payload_hash`` must be read as null
    (a version-1 journal's, see :func:`~tpfemu.journal.schema.stale_hashes`)."""
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(file)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{file}: not a readable Parquet file ({exc})") from None
    check_schema(schema, str(file))
    return stale_hashes(schema)


class Inputs:
    """The inputs of one job, resolved to what Spark reads. A context manager: the
    temporary Parquet made from journal segments is removed on exit."""

    def __init__(self, paths: Sequence[str | os.PathLike], *, scratch: str | None = None) -> None:
        if not paths:
            raise InputError("no input given")
        #: The paths as given, for messages and reports.
        self.given = [os.fspath(p) for p in paths]
        self.parquet: list[str] = []
        #: The local Parquet files (of :attr:`parquet`) whose ``payload_hash`` is read as
        #: null: version-1 journals.
        self.stale: set[str] = set()
        self.uris: list[str] = []
        self.journals: list[Path] = []
        #: Warnings about inputs read in part (a journal segment cut short), one line each.
        self.warnings: list[str] = []
        self._tmp: tempfile.TemporaryDirectory | None = None
        self._scratch = scratch
        for raw in paths:
            text = os.fspath(raw)
            if _is_uri(text):
                self.uris.append(text)
                continue
            path = Path(text.removeprefix("file://"))
            if not path.exists():
                raise InputError(f"{path}: no such file or directory")
            if _is_journal(path):
                self.journals.append(path)
            elif path.is_file():
                self._add(path)
            else:
                files = _parquet_files(path)
                if not files:
                    raise InputError(f"{path}: holds no Parquet files and no journal")
                for file in files:
                    self._add(file)

    def __enter__(self) -> Inputs:
        if self.journals:
            from tpfemu.journal import to_parquet  # lazily: the journal may be absent

            self._tmp = tempfile.TemporaryDirectory(prefix="tpfemu-journal-",
                                                    dir=self._scratch)
            try:
                made = to_parquet(self.journals, self._tmp.name, torn=self.warnings)
            except (OSError, pa.ArrowException) as exc:
                self._tmp.cleanup()
                raise InputError(f"{', '.join(map(str, self.journals))}: {exc}") from None
            for file in made:  # (the conversion nulled a version-1 journal's hashes)
                self._add(Path(file))
        return self

    def _add(self, file: Path) -> None:
        if _check_parquet(file):
            self.stale.add(str(file))
        self.parquet.append(str(file))

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def local_bytes(self) -> int | None:
        """The bytes of the inputs as given, before any conversion (the Parquet files
        found, and each journal's files); None when one is a URI (its size is unknown
        here). What the driver's JVM options are chosen by (:mod:`.jvm`)."""
        if self.uris:
            return None
        total = sum(os.stat(f).st_size for f in self.parquet)
        for journal in self.journals:
            files = [journal] if journal.is_file() else journal.rglob("*")
            total += sum(f.stat().st_size for f in files if f.is_file())
        return total

    def local_files(self) -> list[str]:
        """The local Parquet files (after :meth:`__enter__` converted journals)."""
        return list(self.parquet)


def read_journal(spark, inputs: Inputs):
    """One DataFrame of every input's rows, with the journal's columns and types (plus
    ``direction``); ``payload_hash`` null in the rows of version-1 journals. Call inside
    ``with inputs:``.

    :raises SchemaMismatch: a URI input's schema, as Spark sees it, is not the journal's.
    """
    schema = spark_schema()
    frames = []
    current = [f for f in inputs.parquet if f not in inputs.stale]
    stale = [f for f in inputs.parquet if f in inputs.stale]
    if current:
        frames.append(spark.read.schema(schema).parquet(*current))
    if stale:
        from pyspark.sql import functions as F

        frames.append(spark.read.schema(schema).parquet(*stale).withColumn(
            "payload_hash", F.lit(None).cast("binary")))
    for uri in inputs.uris:
        try:
            found = spark.read.parquet(uri).schema
        except Exception as exc:  # Spark's AnalysisException and friends
            raise InputError(f"{uri}: cannot be read by Spark ({_first_line(exc)})") from None
        check_schema(_arrow_of_spark(found), uri)
        frames.append(spark.read.schema(schema).parquet(uri))
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return frame


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def paths_of(values: Iterable[str]) -> list[str]:
    """Command-line paths as given (kept for symmetry with click's tuples)."""
    return [str(v) for v in values]
