"""Reading inputs: the schema check names the file and the field, before Spark runs."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from journaldata import row, table, write

from tpfemu.journal.schema import SchemaMismatch
from tpfemu.pipeline.capture import Direction, arrow_inbound
from tpfemu.pipeline.output import AtomicDir
from tpfemu.pipeline.sources import InputError, Inputs


def test_wrong_type_names_file_and_field(tmp_path):
    good = table([row("put", "Q", data=b"x")])
    bad = good.set_column(good.schema.get_field_index("priority"), "priority",
                          pa.array(["high"], pa.string()))
    path = tmp_path / "bad.parquet"
    pq.write_table(bad, path)
    with pytest.raises(SchemaMismatch, match=r"bad\.parquet.*'priority'.*string"):
        Inputs([path])


def test_missing_required_field_in_a_directory(tmp_path):
    write([row("put", "Q", data=b"x")], tmp_path / "dir" / "a.parquet")
    (tmp_path / "dir" / "sub").mkdir()
    pq.write_table(table([row("put", "Q", data=b"x")]).drop(["queue"]),
                   tmp_path / "dir" / "sub" / "b.parquet")
    with pytest.raises(SchemaMismatch, match=r"b\.parquet: required field 'queue'"):
        Inputs([tmp_path / "dir"])


def test_unreadable_and_missing_inputs(tmp_path):
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match=r"junk\.parquet: not a readable Parquet file"):
        Inputs([junk])
    with pytest.raises(InputError, match=r"nowhere: no such file"):
        Inputs([tmp_path / "nowhere"])
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"empty: holds no Parquet files and no journal"):
        Inputs([tmp_path / "empty"])


def test_compatible_types_and_extra_columns_are_accepted(tmp_path):
    t = table([row("put", "Q", data=b"x", priority=3)], extra={"direction": ["in"]})
    narrow = t.set_column(t.schema.get_field_index("seq"), "seq",
                          pa.array([1], pa.int32()))
    pq.write_table(narrow, tmp_path / "ok.parquet")
    inputs = Inputs([tmp_path / "ok.parquet"])
    assert inputs.local_files() == [str(tmp_path / "ok.parquet")]


def test_journal_segments_go_through_to_parquet(tmp_path):
    from tpfemu.journal import SchemaMismatch as JournalSchemaMismatch

    assert JournalSchemaMismatch is SchemaMismatch
    segment = tmp_path / "home" / "journal" / "B-00000001.arrows"
    segment.parent.mkdir(parents=True)
    t = table([row("put", "Q", data=b"x")])
    with pa.ipc.new_stream(segment, t.schema) as writer:
        writer.write_table(t)
    with Inputs([tmp_path / "home"]) as inputs:
        files = inputs.local_files()
        assert len(files) == 1 and files[0].endswith(".parquet")
        assert pq.read_table(files[0]).num_rows == 1
    assert not any(p.exists() for p in map(__import__("pathlib").Path, files))


def test_atomic_dir_leaves_nothing_on_failure_and_replaces_on_success(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError), AtomicDir(out) as tmp:
        (tmp / "half.parquet").write_text("half")
        raise RuntimeError("boom")
    assert not out.exists() and list(tmp_path.iterdir()) == []
    out.mkdir()
    (out / "old").write_text("old")
    with AtomicDir(out) as tmp:
        (tmp / "new").write_text("new")
        assert not (out / "new").exists()
    assert sorted(p.name for p in out.iterdir()) == ["new"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_direction_rules_on_arrow():
    rows = [
        row("put", "APP.IN", t=3, data=b"a"),                      # no ecb: inbound
        row("put", "APP.OUT", t=2, data=b"b", ecb=5),              # by a program: out
        row("put", "APP.OUT", t=1, data=b"c", ecb=5, uow=9),       # backed out below
        row("backout", "", t=4, uow=9),
        row("get", "APP.IN", t=5, data=b"a"),                      # not a put
        row("put", "APP.X", t=0, data=b"d", ecb=5),                # direction says in
    ]
    t = table(rows, extra={"direction": [None, None, None, None, None, "inbound"]})
    got = arrow_inbound(t)
    assert got.column("payload").to_pylist() == [b"d", b"a"]  # recorded order
    by_queue = arrow_inbound(t, Direction(inbound=("APP.O*",)))
    assert by_queue.column("payload").to_pylist() == [b"d", b"b"]  # APP.OUT is inbound now
    by_out = arrow_inbound(t, Direction(outbound=("APP.OUT",)))
    assert by_out.column("payload").to_pylist() == [b"d", b"a"]
    with pytest.raises(ValueError):
        Direction(inbound=("A",), outbound=("B",))
