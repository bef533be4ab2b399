"""compare's Spark jobs on a local master: few, with adaptive execution off for its own
queries only (each shuffle of an adaptive query is a job of its own, planned apart)."""

from __future__ import annotations

import pytest
from journaldata import T0, ident, row, write

from tpfemu.pipeline import compare
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark

_ADAPTIVE = "spark.sql.adaptive.enabled"


def _msg(i: int, label: str, **fields) -> dict:
    fields.setdefault("correl_id", ident(f"c-{label}"))
    fields.setdefault("msg_id", ident(f"m-{label}"))
    return row("put", "OUT.A", T0 + i * 1000, ecb=1 + i, program="APP1",
               data=b"reply " + label.encode(), **fields)


def test_a_local_compare_runs_in_few_jobs_and_keeps_the_adaptive_setting(spark, tmp_path):
    """A compare with every stage at work (CorrelId, MsgId and sequence pairs, a missing
    and an extra message) runs in at most 25 Spark jobs on a local master (56 with
    adaptive execution), and the caller's adaptive setting is as it was afterwards."""
    expected = [_msg(i, f"c{i}") for i in range(4)]
    expected += [_msg(10 + i, f"m{i}", correl_id=None) for i in range(3)]
    expected += [_msg(20 + i, f"s{i}", correl_id=None, msg_id=None) for i in range(2)]
    actual = [dict(r) for r in expected[1:]]
    actual.append(_msg(30, "extra"))
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    before = spark.conf.get(_ADAPTIVE, None)
    sc = spark.sparkContext
    sc.setJobGroup("compare-jobs", "compare-jobs")
    try:
        summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                              Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
        jobs = sc.statusTracker().getJobIdsForGroup("compare-jobs")
    finally:
        sc.setLocalProperty("spark.jobGroup.id", None)
        sc.setLocalProperty("spark.job.description", None)
    counts = summary["counts"]
    assert (counts["matched"], counts["missing"], counts["extra"]) == (8, 1, 1)
    assert 0 < len(jobs) <= 25, f"{len(jobs)} jobs"
    assert spark.conf.get(_ADAPTIVE, None) == before
