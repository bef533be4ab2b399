"""Schema version 4's segment layout (journal/schema.py SEGMENT_SCHEMA): seq, cpu and qmgr
stated once in the segment's metadata, fixed-width ids, hash and priority; read back as
the journal's SCHEMA rows, with older segments read as before and newer ones refused."""

from __future__ import annotations

import pyarrow as pa
import pytest

from tpfemu import journal
from tpfemu.journal import SCHEMA, SchemaMismatch
from tpfemu.journal.schema import SCHEMA_VERSION, SEGMENT_SCHEMA, from_segment, to_segment
from tpfemu.journal.writer import Journal
from tpfemu.qmgr.manager import QueueManager


def _rows(n: int, seq0: int = 0) -> list[dict]:
    return [{name: None for name in SCHEMA.names} | {
        "event_time_us": 1_700_000_000_000_000 + i, "seq": seq0 + i, "cpu": "D",
        "qmgr": "LAYQM", "queue": f"Q.{i % 2}", "event": "put",
        "msg_id": bytes([i]) * 24, "correl_id": bytes(24), "priority": i % 10,
        "payload_hash": bytes([i]) * 8, "length": i} for i in range(n)]


def _write(path, schema: pa.Schema, batches: list[pa.RecordBatch]) -> None:
    with pa.OSFile(str(path), "wb") as f, pa.ipc.new_stream(f, schema) as w:
        for batch in batches:
            w.write_batch(batch)


def _meta(**extra: str) -> dict[str, str]:
    return {"tpfemu.journal.version": str(SCHEMA_VERSION), "tpfemu.journal.cpu": "D",
            "tpfemu.journal.qmgr": "LAYQM", **extra}


def test_a_segment_reads_back_the_rows_it_was_given(tmp_path):
    """Rows stored as a version-4 segment in two batches (to_segment) are read back
    equal, seq numbered from the metadata's first seq across both batches, cpu and qmgr
    from the metadata, the fixed-width columns as SCHEMA's types."""
    rows = _rows(7, seq0=40)
    first = to_segment(pa.RecordBatch.from_pylist(rows[:3], schema=SCHEMA))
    second = to_segment(pa.RecordBatch.from_pylist(rows[3:], schema=SCHEMA))
    assert first.schema.names == SEGMENT_SCHEMA.names  # (no seq, cpu, qmgr)
    path = tmp_path / "D-00000001.arrows"
    _write(path, SEGMENT_SCHEMA.with_metadata(_meta(**{"tpfemu.journal.first_seq": "40"})),
           [first, second])
    table = journal.read_table(path)
    assert table.schema.equals(SCHEMA)
    assert table.to_pylist() == rows


def test_a_version_3_segment_is_read_as_before(tmp_path):
    """A version-3 segment (every column a row, no first seq) is read with its own seq,
    cpu and qmgr."""
    rows = _rows(4, seq0=9)
    path = tmp_path / "D-00000001.arrows"
    _write(path, SCHEMA.with_metadata(_meta() | {"tpfemu.journal.version": "3"}),
           [pa.RecordBatch.from_pylist(rows, schema=SCHEMA)])
    assert journal.read_table(path).to_pylist() == rows


def test_a_segment_without_its_first_seq_is_a_mismatch_naming_it(tmp_path):
    """A segment that lacks the seq column and the metadata that states it is refused,
    naming the file, the column and the metadata key."""
    path = tmp_path / "D-00000001.arrows"
    _write(path, SEGMENT_SCHEMA.with_metadata(_meta()),
           [to_segment(pa.RecordBatch.from_pylist(_rows(2), schema=SCHEMA))])
    with pytest.raises(SchemaMismatch, match=r"D-00000001\.arrows.*'seq' is missing"):
        journal.read_table(path)
    with pytest.raises(SchemaMismatch, match="first_seq"):
        from_segment(to_segment(pa.RecordBatch.from_pylist(_rows(1), schema=SCHEMA)),
                     {b"tpfemu.journal.cpu": b"D", b"tpfemu.journal.qmgr": b"Q"}, 0, "x")


def test_a_newer_version_is_refused_naming_it(tmp_path):
    """A segment of a version after this tpfemu's is refused with the version named."""
    path = tmp_path / "D-00000001.arrows"
    meta = _meta(**{"tpfemu.journal.first_seq": "0"}) | {
        "tpfemu.journal.version": str(SCHEMA_VERSION + 1)}
    _write(path, SEGMENT_SCHEMA.with_metadata(meta),
           [to_segment(pa.RecordBatch.from_pylist(_rows(1), schema=SCHEMA))])
    with pytest.raises(SchemaMismatch, match=f"version {SCHEMA_VERSION + 1} is newer"):
        journal.read_table(path)


def test_an_id_that_is_not_24_bytes_is_refused_by_name():
    """to_segment refuses a MsgId that is not 24 bytes, naming the field (the journal
    then reports the write failure; nothing is stored cut or padded)."""
    rows = _rows(1)
    rows[0]["msg_id"] = b"short"
    with pytest.raises(SchemaMismatch, match="'msg_id' cannot be stored"):
        to_segment(pa.RecordBatch.from_pylist(rows, schema=SCHEMA))


def test_seq_runs_on_across_segments_written_by_a_journal(tmp_path):
    """A journal that rotates its segment every few events numbers the rows of all its
    segments 0, 1, 2 ... without a gap: each segment's first seq is where the last one
    ended."""
    qmgr = QueueManager("SEQQM", cpu="D").start()
    jr = Journal(qmgr, tmp_path / "j", segment_bytes=1, interval=600).start()
    try:
        for _ in range(3):
            for i in range(4):
                qmgr.events.emit("commit", "Q", 1_700_000_000_000_000 + i, uow=i + 1)
            assert jr.flush()
    finally:
        jr.stop()
        qmgr.stop()
    assert len(journal.segments(tmp_path / "j")) >= 3
    table = journal.read_table(tmp_path / "j")
    assert table.column("seq").to_pylist() == list(range(12))
    assert set(table.column("cpu").to_pylist()) == {"D"}
    assert set(table.column("qmgr").to_pylist()) == {"SEQQM"}
