"""compare and analyze on every kind of input: a clear result (exit 0 same, 1 different)
or a clear error (exit 2) naming what is wrong, and never a traceback."""

from __future__ import annotations

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from journaldata import T0, ident, row, table, write

from tpfemu.cli import main
from tpfemu.journal.schema import SCHEMA
from tpfemu.pipeline import compare
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark


def out_msg(i, queue="OUT.A", label=None, **fields):
    """An outbound put (made by a program) at position i."""
    label = label or f"{queue}-{i}"
    fields.setdefault("correl_id", ident(f"c-{label}"))
    fields.setdefault("msg_id", ident(f"m-{label}"))
    fields.setdefault("data", b"reply " + label.encode())
    return row("put", queue, T0 + i * 1000, ecb=1 + i, program="APP1", **fields)


def cli(*args):
    """Run a tpfemu command in this process; its result (output holds stdout+stderr)."""
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception)
    return result


def segment(rows, path):
    """Rows written as a journal segment (an Arrow IPC stream); its bytes."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, SCHEMA) as writer:
        writer.write_table(table(rows))
    data = sink.getvalue().to_pybytes()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return data


def test_both_sides_empty_are_identical(spark, tmp_path):
    """Two journals without a row compare as identical, exit 0, with zero counts."""
    write([], tmp_path / "e.parquet")
    write([], tmp_path / "a.parquet")
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert result.output.startswith("identical: expected 0, actual 0, matched 0")
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["identical"] is True
    for kind in compare.KINDS:  # every table is there, empty, with its columns
        frame = pd.read_parquet(tmp_path / "out" / kind)
        assert frame.empty and "expected_msg_id" in frame.columns, kind


def test_one_side_empty_is_all_missing(spark, tmp_path):
    """An empty actual side makes every expected message missing: exit 1."""
    write([out_msg(i) for i in range(3)], tmp_path / "e.parquet")
    write([], tmp_path / "a.parquet")
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert "expected 3, actual 0, matched 0; missing 3, extra 0" in result.output


def test_a_journal_export_compared_with_itself_is_identical(spark, tmp_path):
    """The same journal segments given as both sides: identical, exit 0 (this crashed
    with an Arrow error when no difference was written)."""
    segment([out_msg(i) for i in range(4)], tmp_path / "home" / "journal" / "j-1.arrows")
    result = cli("compare", tmp_path / "home", tmp_path / "home", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "identical: expected 4, actual 4, matched 4" in result.output
    per_queue = pd.read_parquet(tmp_path / "out" / "per_queue")
    assert list(per_queue["identical_pairs"]) == [4]


def test_no_outbound_messages_names_the_option(spark, tmp_path):
    """A capture whose puts were all made by clients has no outbound messages: exit 2
    with a message that says so and names --outbound-queue, and no output."""
    rows = [row("put", "IN.A", T0 + i, msg_id=ident(f"m{i}"), data=b"x") for i in range(3)]
    write(rows, tmp_path / "e.parquet")
    write(rows, tmp_path / "a.parquet")
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert "no outbound messages" in result.output and "--outbound-queue" in result.output
    assert not (tmp_path / "out").exists()
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out", "--outbound-queue", "IN.A")
    assert result.exit_code == 0 and "matched 3" in result.output


def test_a_queue_on_one_side_only(spark, tmp_path):
    """A queue only the actual side wrote to: its messages are extra, and per_queue has
    it with 0 expected; the shared queue stays identical."""
    write([out_msg(i) for i in range(2)], tmp_path / "e.parquet")
    write([out_msg(i) for i in range(2)] + [out_msg(5, "OUT.NEW")], tmp_path / "a.parquet")
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out")
    assert result.exit_code == 1
    per_queue = pd.read_parquet(tmp_path / "out" / "per_queue").set_index("queue")
    assert per_queue.loc["OUT.NEW", ["expected", "actual", "extra"]].tolist() == [0, 1, 1]
    assert per_queue.loc["OUT.A", "identical_pairs"] == 2


def test_duplicate_correl_ids_pair_by_occurrence(spark, tmp_path):
    """Three expected and four actual messages share one CorrelId: they pair in recorded
    order, the fourth is extra, and the second's changed data is found."""
    same = ident("c-shared")
    expected = [out_msg(i, label=f"d{i}", correl_id=same, data=b"d%d" % i) for i in range(3)]
    actual = [dict(r) for r in expected] + [out_msg(9, label="d9", correl_id=same)]
    actual[1].update(payload=b"changed", payload_hash=b"\x07" * 8)
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                          Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
    counts = summary["counts"]
    assert (counts["matched"], counts["extra"], counts["payload_changed"]) == (3, 1, 1)
    changed = pd.read_parquet(tmp_path / "out" / "payload_changed")
    assert list(changed["expected_msg_id"]) == [ident("m-d1")]


def test_non_ascii_queue_names_and_payloads(spark, tmp_path):
    """Queue names and payloads outside ASCII compare like any other; a changed payload
    is shown, decoded, in the report."""
    expected = [out_msg(i, "AUSGANG.ÄÖÜ", data="Grüße €%d".encode() % i) for i in range(3)]
    actual = [dict(r) for r in expected]
    actual[2].update(payload="Grüße ¥".encode(), payload_hash=b"\x05" * 8)
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    same = cli("compare", tmp_path / "e.parquet", tmp_path / "e.parquet", "--out",
               tmp_path / "same")
    assert same.exit_code == 0 and "matched 3" in same.output
    result = cli("compare", tmp_path / "e.parquet", tmp_path / "a.parquet", "--out",
                 tmp_path / "out")
    assert result.exit_code == 1 and "payload changed 1" in result.output
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "AUSGANG.ÄÖÜ" in html and "Grüße ¥" in html and "Grüße €2" in html


def test_truncated_or_damaged_parquet_names_the_file(spark, tmp_path):
    """A Parquet file cut short, or with a damaged footer, or with damaged data pages
    (which only Spark finds, while reading): exit 2 naming the file, no output."""
    good = write([out_msg(i) for i in range(3)], tmp_path / "good.parquet")
    data = good.read_bytes()
    (tmp_path / "cut.parquet").write_bytes(data[: len(data) // 2])
    footer = bytearray(data)
    footer[-40:-8] = b"\xab" * 32
    (tmp_path / "footer.parquet").write_bytes(bytes(footer))
    pages = bytearray(data)
    pages[4:200] = b"\xff" * 196
    (tmp_path / "pages.parquet").write_bytes(bytes(pages))
    for name in ("cut", "footer", "pages"):
        result = cli("compare", tmp_path / f"{name}.parquet", good, "--out",
                     tmp_path / "out")
        assert result.exit_code == 2, (name, result.output)
        assert f"{name}.parquet: not a readable Parquet file" in result.output
        assert not (tmp_path / "out").exists()


def test_damaged_or_truncated_journal_segment(spark, tmp_path):
    """A segment that is not an Arrow stream: exit 2 naming it. A segment cut in its last
    batch (a writer that died) is read up to that batch, with a warning naming it."""
    rows = [out_msg(i) for i in range(4)]
    data = segment(rows, tmp_path / "good" / "j-1.arrows")
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "j-1.arrows").write_bytes(bytes(b ^ 0x5A for b in data[:64])
                                                      + data[64:])
    result = cli("compare", tmp_path / "garbage", tmp_path / "good", "--out",
                 tmp_path / "out")
    assert result.exit_code == 2
    assert "j-1.arrows: not a readable journal segment" in result.output
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "j-1.arrows").write_bytes(data[:-40])
    result = cli("compare", tmp_path / "cut", tmp_path / "good", "--out", tmp_path / "out")
    assert result.exit_code == 1, result.output
    assert "warning: " in result.output and "cut/j-1.arrows: truncated" in result.output
    assert "expected 0, actual 4" in result.output


def test_wrong_schema_version(tmp_path):
    """A capture from a newer schema version, or with a version that is no number: exit 2
    naming the file and the version."""
    good = write([out_msg(0)], tmp_path / "good.parquet")
    t = pq.read_table(good)
    pq.write_table(t.replace_schema_metadata({"tpfemu.journal.version": "9"}),
                   tmp_path / "v9.parquet")
    pq.write_table(t.replace_schema_metadata({"tpfemu.journal.version": "x1"}),
                   tmp_path / "vx.parquet")
    result = cli("compare", tmp_path / "v9.parquet", good, "--out", tmp_path / "out")
    assert result.exit_code == 2 and "v9.parquet: journal schema version 9 is newer" in (
        result.output)
    result = cli("analyze", tmp_path / "vx.parquet", "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert "vx.parquet: journal schema version 'x1' is not a version number" in result.output


def test_output_directory_cases(spark, tmp_path):
    """An existing output directory is replaced whole; an output that is a file, lies
    under a file, or would replace an input is refused with exit 2 naming it."""
    good = write([out_msg(i) for i in range(2)], tmp_path / "in" / "good.parquet")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "stale.txt").write_text("old")
    result = cli("compare", good, good, "--out", tmp_path / "out")
    assert result.exit_code == 0
    assert not (tmp_path / "out" / "stale.txt").exists()
    assert (tmp_path / "out" / "summary.json").is_file()
    (tmp_path / "file").write_text("x")
    result = cli("compare", good, good, "--out", tmp_path / "file" / "sub")
    assert result.exit_code == 2 and "file exists and is not a directory" in result.output
    result = cli("compare", good, good, "--out", tmp_path / "file")
    assert result.exit_code == 2 and "is a file" in result.output
    result = cli("compare", good, good, "--out", tmp_path / "in")
    assert result.exit_code == 2 and "would replace the input" in result.output
    assert good.is_file()


def test_run_leaves_the_session_configuration_as_it_was(spark, tmp_path):
    """compare.run sets what it needs for its own jobs and puts the caller's settings
    back: a key set by the caller keeps its value, one the caller never set is unset."""
    write([out_msg(i) for i in range(2)], tmp_path / "e.parquet")
    key, other = ("spark.sql.maxConcurrentOutputFileWriters",
                  "spark.sql.requireAllClusterKeysForCoPartition")
    spark.conf.set(key, "7")
    spark.conf.unset(other)
    before = spark.conf.get(other, None)
    try:
        compare.run(spark, Inputs([tmp_path / "e.parquet"]), Inputs([tmp_path / "e.parquet"]),
                    tmp_path / "out")
        assert spark.conf.get(key) == "7"
        assert spark.conf.get(other, None) == before
    finally:
        spark.conf.unset(key)


def test_analyze_of_an_empty_journal(spark, tmp_path):
    """analyze of a journal without rows: exit 0, zero events, an empty queues table."""
    write([], tmp_path / "e.parquet")
    result = cli("analyze", tmp_path / "e.parquet", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    assert "analyzed 0 message events on 0 queues" in result.output
    assert pd.read_parquet(tmp_path / "out" / "queues").empty


def test_analyze_of_damaged_data_pages_names_the_file(spark, tmp_path):
    """A Parquet file whose data pages only Spark finds damaged, while analyze's table jobs
    run side by side: exit 2 naming the file, and no output."""
    good = write([out_msg(i) for i in range(3)], tmp_path / "good.parquet")
    pages = bytearray(good.read_bytes())
    pages[4:200] = b"\xff" * 196
    (tmp_path / "pages.parquet").write_bytes(bytes(pages))
    result = cli("analyze", tmp_path / "pages.parquet", "--out", tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert "pages.parquet: not a readable Parquet file" in result.output
    assert not (tmp_path / "out").exists()


def test_analyze_leaves_the_session_configuration_as_it_was(spark, tmp_path):
    """analyze.run sets what its plans need for its own jobs and puts the caller's
    settings back: a key set by the caller keeps its value, then, unset, stays unset."""
    from tpfemu.pipeline import analyze

    write([out_msg(i) for i in range(2)], tmp_path / "e.parquet")
    (key,) = analyze._SETTINGS
    spark.conf.set(key, "7")
    try:
        analyze.run(spark, Inputs([tmp_path / "e.parquet"]), tmp_path / "out")
        assert spark.conf.get(key) == "7"
        spark.conf.unset(key)
        before = spark.conf.get(key, None)
        analyze.run(spark, Inputs([tmp_path / "e.parquet"]), tmp_path / "out2")
        assert spark.conf.get(key, None) == before
    finally:
        spark.conf.unset(key)
