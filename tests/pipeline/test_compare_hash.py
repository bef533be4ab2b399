"""compare's CorrelId stage carries a MsgId as a 64-bit hash: collisions are forced here
with stand-in hashes, and what the hash decides is checked against the real values."""

from __future__ import annotations

import pytest
from journaldata import T0, ident, row, write

from tpfemu.pipeline import compare, presort
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark


def _msg(queue, i, label, **fields):
    fields.setdefault("correl_id", ident(f"c-{label}"))
    fields.setdefault("msg_id", ident(f"m-{label}"))
    fields.setdefault("data", b"reply " + label.encode())
    return row("put", queue, T0 + i * 1000, ecb=1 + i, program="APP1", **fields)


def _sides():
    """Expected and actual: CorrelId pairs on OUT.A (one with another MsgId), and
    messages without a CorrelId on OUT.B, matched by MsgId (one with another priority),
    the actual ones recorded in another order."""
    expected = [_msg("OUT.A", i, f"a{i}") for i in range(4)]
    expected += [_msg("OUT.B", 10 + i, f"b{i}", correl_id=None) for i in range(4)]
    actual = [dict(r) for r in expected]
    actual[1]["msg_id"] = ident("m-other")
    b = actual[4:]
    for r, t in zip(b, (13, 10, 11, 12), strict=True):  # b0 is now recorded last
        r["event_time_us"] = T0 + t * 1000
    b[2]["priority"] = 7
    return expected, actual


def _run(spark, tmp_path, expected, actual, name):
    write(expected, tmp_path / f"{name}-e.parquet")
    write(actual, tmp_path / f"{name}-a.parquet")
    return compare.run(spark, Inputs([tmp_path / f"{name}-e.parquet"]),
                       Inputs([tmp_path / f"{name}-a.parquet"]), tmp_path / f"{name}-out")


def test_one_hash_for_every_msg_id_leaves_the_msg_id_stage_exact(spark, tmp_path,
                                                                  monkeypatch):
    """With every MsgId hashing alike, the messages left over by the CorrelId stage are
    still matched on their real MsgIds: b0..b3 each with its own, whatever their order."""
    from pyspark.sql import functions as F

    monkeypatch.setattr(compare, "_id_hash",
                        lambda col: F.when(~compare._none_id(col), F.lit(1).cast("long")))
    expected, actual = _sides()
    actual[1]["msg_id"] = expected[1]["msg_id"]  # (a collision may hide this one: see below)
    summary = _run(spark, tmp_path, expected, actual, "one")
    counts = summary["counts"]
    assert counts["matched"] == 8 and counts["missing"] == counts["extra"] == 0
    assert summary["descriptor_fields"] == {"priority": 1}
    # b0, recorded last, is the one reordered pair (by its real MsgId, not a position)
    assert counts["reordered"] == 1


def test_hashes_that_differ_for_equal_ids_invent_no_difference(spark, tmp_path,
                                                               monkeypatch):
    """A pair whose MsgId hashes differ is only a candidate: its real MsgIds decide. A
    hash that differs on every row (equal ids included) flags every pair, and compare
    still reports the one MsgId that differs, and nothing for a capture against itself."""
    from pyspark.sql import functions as F

    monkeypatch.setattr(compare, "_id_hash",
                        lambda col: F.when(~compare._none_id(col),
                                           F.xxhash64(col, F.rand())))
    expected, actual = _sides()
    summary = _run(spark, tmp_path, expected, actual, "differ")
    assert summary["descriptor_fields"] == {"msg_id": 1, "priority": 1}
    assert summary["counts"]["descriptor_changed"] == 2
    same = _run(spark, tmp_path, expected, [dict(r) for r in expected], "same")
    assert same["identical"], same["counts"]


def test_real_hash_finds_a_changed_msg_id_of_a_correl_id_pair(spark, tmp_path):
    """With the real hash, a CorrelId pair whose MsgIds differ (and nothing else) is
    reported as descriptor-changed in msg_id, with both real MsgIds."""
    import pandas as pd

    expected, actual = _sides()
    summary = _run(spark, tmp_path, expected, actual, "real")
    assert summary["descriptor_fields"] == {"msg_id": 1, "priority": 1}
    changed = pd.read_parquet(tmp_path / "real-out" / "descriptor_changed")
    row_ = changed[changed["queue"] == "OUT.A"].iloc[0]
    assert (row_["expected_msg_id"], row_["actual_msg_id"]) == (ident("m-a1"),
                                                                ident("m-other"))


def test_queues_whose_hashes_collide_are_checked_for_order_apart(spark, tmp_path,
                                                                  monkeypatch):
    """The reorder check is shuffled and sorted on a hash of the queue name. With every
    queue hashing alike, two queues whose messages interleave in time are still each
    checked against their own: OUT.A and OUT.B are both in order (no pair reordered,
    where a check of the two as one queue finds OUT.B's first pair recorded before
    OUT.A's), and the one pair swapped inside OUT.C is found."""
    from pyspark.sql import functions as F

    monkeypatch.setattr(presort, "queue_hash", lambda col: F.lit(7).cast("long"))
    expected = [_msg(q, i, f"{q}{i}") for i, q in enumerate(
        ["OUT.A", "OUT.B", "OUT.A", "OUT.B", "OUT.C", "OUT.C", "OUT.C"])]
    actual = [dict(r) for r in expected]
    # OUT.B's actual messages recorded long before OUT.A's, each queue still in order
    for r in actual:
        if r["queue"] == "OUT.B":
            r["event_time_us"] -= 10_000_000
    c = [r for r in actual if r["queue"] == "OUT.C"]
    c[1]["event_time_us"], c[2]["event_time_us"] = c[2]["event_time_us"], c[1]["event_time_us"]
    summary = _run(spark, tmp_path, expected, actual, "qh")
    counts = summary["counts"]
    assert counts["matched"] == 7 and counts["missing"] == counts["extra"] == 0
    assert counts["reordered"] == 1, counts
    import pandas as pd

    reordered = pd.read_parquet(tmp_path / "qh-out" / "reordered")
    assert list(reordered["queue"]) == ["OUT.C"]
    assert reordered["expected_correl_id"].iloc[0] == ident("c-OUT.C6")
