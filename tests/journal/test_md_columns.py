"""Schema version 3's message-descriptor columns (msg_type, format, reply_to_q,
reply_to_qmgr): older journals, which lack them, are read with them null."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tpfemu import journal
from tpfemu.journal.schema import SCHEMA, SCHEMA_VERSION

MD_COLUMNS = ("msg_type", "format", "reply_to_q", "reply_to_qmgr")


def _version_2_schema() -> pa.Schema:
    """The journal schema as version 2 wrote it: without the MD columns."""
    fields = [f for f in SCHEMA if f.name not in MD_COLUMNS]
    return pa.schema(fields, metadata={"tpfemu.journal.version": "2"})


def _version_2_rows(n: int = 3) -> pa.Table:
    rows = [{f.name: None for f in _version_2_schema()} | {
        "event_time_us": 1_700_000_000_000_000 + i, "seq": i, "cpu": "B", "qmgr": "OLDQM",
        "queue": "Q", "event": "put", "msg_id": bytes([i]) * 24, "length": 3,
        "payload": b"old"} for i in range(n)]
    return pa.Table.from_pylist(rows, schema=_version_2_schema())


def test_a_version_2_segment_reads_with_null_md_columns(tmp_path):
    """A version-2 segment is read by every reader with the four MD columns null and its
    other columns as written; its Parquet export is a current-version file."""
    old = tmp_path / "old" / "B-00000001.arrows"
    old.parent.mkdir()
    with pa.OSFile(str(old), "wb") as f, pa.ipc.new_stream(f, _version_2_schema()) as w:
        w.write_table(_version_2_rows())
    table = journal.read_table(old)
    assert table.schema.equals(SCHEMA) and table.num_rows == 3
    for name in MD_COLUMNS:
        assert table.column(name).null_count == 3, name
    assert table.column("payload").to_pylist() == [b"old"] * 3
    events = list(journal.read_events(old))
    assert [(e.msg_type, e.format, e.reply_to_q, e.reply_to_qmgr) for e in events] == [
        (None, None, None, None)] * 3
    (exported,) = journal.to_parquet([old.parent], tmp_path / "out")
    written = pq.read_table(exported)
    assert written.schema.names == SCHEMA.names
    assert written.column("reply_to_q").null_count == 3
    assert written.schema.metadata[b"tpfemu.journal.version"] == str(SCHEMA_VERSION).encode()


def test_a_version_2_segment_beside_a_current_one(tmp_path):
    """A directory holding a version-2 segment and a current one reads as one table: the
    old rows null in the MD columns, the new rows with their values."""
    home = tmp_path / "j"
    home.mkdir()
    with pa.OSFile(str(home / "B-00000001.arrows"), "wb") as f, \
            pa.ipc.new_stream(f, _version_2_schema()) as w:
        w.write_table(_version_2_rows(2))
    new = [{name: None for name in SCHEMA.names} | {
        "event_time_us": 1_700_000_000_000_100, "seq": 2, "cpu": "B", "qmgr": "OLDQM",
        "queue": "Q", "event": "put", "msg_type": 1, "format": "MQSTR",
        "reply_to_q": "REPLY.Q", "reply_to_qmgr": "QM2"}]
    with pa.OSFile(str(home / "B-00000002.arrows"), "wb") as f, \
            pa.ipc.new_stream(f, SCHEMA) as w:
        w.write_table(pa.Table.from_pylist(new, schema=SCHEMA))
    rows = journal.read_table(home).to_pylist()
    assert [r["seq"] for r in rows] == [0, 1, 2]
    assert [(r["msg_type"], r["format"], r["reply_to_q"], r["reply_to_qmgr"])
            for r in rows] == [(None,) * 4, (None,) * 4, (1, "MQSTR", "REPLY.Q", "QM2")]
