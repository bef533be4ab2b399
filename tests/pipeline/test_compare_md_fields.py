"""The journal's MD columns (schema version 3) in the pipeline: an older capture without
them is read by Spark with them null, and compare shows them beside a difference."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from journaldata import T0, ident, row, table

from tpfemu.pipeline import compare
from tpfemu.pipeline.sources import Inputs, read_journal

pytestmark = pytest.mark.spark

MD_COLUMNS = ("msg_type", "format", "reply_to_q", "reply_to_qmgr")


def _requests(priority: int, **md) -> list[dict]:
    return [row("put", "REQ.Q", T0 + i, msg_id=ident(f"m{i}"), data=b"req %d" % i, ecb=1,
                program="PRG1", priority=priority if i == 1 else 0, **md)
            for i in range(3)]


def test_an_old_capture_reads_null_and_compare_shows_the_md_fields(spark, tmp_path):
    """A version-2 capture (no MD columns) is read with them null beside a current one;
    compare does not count their absence as a difference, and shows them next to a
    descriptor difference (here the priority of one message)."""
    old = table(_requests(0)).drop_columns(list(MD_COLUMNS)).replace_schema_metadata(
        {"tpfemu.journal.version": "2"})
    (tmp_path / "old").mkdir()
    pq.write_table(old, tmp_path / "old" / "j.parquet")
    (tmp_path / "new").mkdir()
    pq.write_table(table(_requests(5, msg_type=1, format="MQSTR", reply_to_q="R.Q")),
                   tmp_path / "new" / "j.parquet")
    inputs = Inputs([tmp_path / "old", tmp_path / "new"])
    with inputs:
        rows = read_journal(spark, inputs).orderBy("priority", "reply_to_q").collect()
    assert [(r.msg_type, r.reply_to_q) for r in rows] == [
        (None, None)] * 3 + [(1, "R.Q")] * 2 + [(1, "R.Q")]

    summary = compare.run(spark, Inputs([tmp_path / "old"]), Inputs([tmp_path / "new"]),
                          tmp_path / "out")
    assert summary["counts"]["matched"] == 3 and summary["counts"]["descriptor_changed"] == 1
    (changed,) = pq.read_table(tmp_path / "out" / "descriptor_changed").to_pylist()
    assert changed["changed_fields"] == ["priority"]
    assert (changed["expected_msg_type"], changed["expected_reply_to_q"]) == (None, None)
    assert (changed["actual_msg_type"], changed["actual_format"],
            changed["actual_reply_to_q"]) == (1, "MQSTR", "R.Q")
    report = (tmp_path / "out" / "report.html").read_text()
    assert "<th>ReplyToQ</th><td></td><td>R.Q</td>" in report
