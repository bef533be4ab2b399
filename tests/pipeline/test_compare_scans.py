"""How compare reads its sides: the backout lookup that spares a side without backouts the
direction rule's anti-join, and the kept stage 1 freed once compare is done."""

from __future__ import annotations

import pytest
from journaldata import T0, ident, row, write

from tpfemu.pipeline import compare
from tpfemu.pipeline.capture import OUTBOUND, messages
from tpfemu.pipeline.sources import Inputs, read_journal

pytestmark = pytest.mark.spark


def _put(i: int, uow: int = 0) -> dict:
    return row("put", "OUT.A", T0 + i * 1000, ecb=1 + i, correl_id=ident(f"c{i}"),
               msg_id=ident(f"m{i}"), data=b"reply %d" % i, uow=uow)


def _frame(spark, tmp_path, rows, name):
    inputs = Inputs([write(rows, tmp_path / f"{name}.parquet")])
    return read_journal(spark, inputs.__enter__())


def test_the_side_facts_see_only_a_backout_of_a_unit_of_work_and_an_unhashed_payload(
        spark, tmp_path):
    """A side's facts (backs out a unit of work, every payload hashed): no backout for
    puts alone and for a backout of unit of work 0 (none), one once a row backs out a
    real unit of work; every payload hashed until one payload has no hash, whatever the
    other fact."""
    puts = [_put(i) for i in range(3)]
    unhashed = {**_put(5), "payload_hash": None}
    backout = row("backout", "", T0, uow=9)
    cases = {"puts": (puts, (False, True)),
             "uow0": ([*puts, row("backout", "", T0, uow=0)], (False, True)),
             "uow9": ([*puts, backout], (True, True)),
             "unhashed": ([*puts, unhashed], (False, False)),
             "both": ([*puts, unhashed, backout], (True, False))}
    for name, (rows, facts) in cases.items():
        assert compare._facts(_frame(spark, tmp_path, rows, name)) == facts, name


def test_without_backouts_the_messages_are_the_same_without_the_anti_join(spark, tmp_path):
    """On a side without backouts, messages(backouts=False) gives the same rows as the
    rule with its anti-join, and plans no join."""
    frame = _frame(spark, tmp_path, [_put(i, uow=i % 2) for i in range(6)], "side")
    full = messages(frame, OUTBOUND)
    bare = messages(frame, OUTBOUND, backouts=False)
    got = sorted((r.asDict() for r in bare.collect()), key=lambda r: r["seq"])
    assert got == sorted((r.asDict() for r in full.collect()), key=lambda r: r["seq"])
    assert len(got) == 6
    plan = bare._jdf.queryExecution().executedPlan().toString()
    assert "Join" not in plan


def test_a_backed_out_put_is_still_left_out(spark, tmp_path):
    """A put whose unit of work a later row backs out is not compared (the side with the
    backout takes the anti-join), so comparing it with the side without it is identical."""
    expected = [_put(i) for i in range(3)]
    actual = [*[_put(i) for i in range(3)], _put(9, uow=77), row("backout", "", T0, uow=77)]
    summary = compare.run(spark, Inputs([write(expected, tmp_path / "e.parquet")]),
                          Inputs([write(actual, tmp_path / "a.parquet")]), tmp_path / "out")
    assert summary["identical"] is True
    assert summary["counts"]["actual"] == 3


def test_compare_keeps_nothing_once_done(spark, tmp_path):
    """After a compare, the session holds no more persisted RDDs and no more cached data
    than before it: stage 1's kept match is freed."""
    expected = [_put(i) for i in range(5)]
    actual = [_put(i) for i in range(1, 6)]
    sc = spark.sparkContext
    before = set(sc._jsc.getPersistentRDDs().keySet())
    summary = compare.run(spark, Inputs([write(expected, tmp_path / "e.parquet")]),
                          Inputs([write(actual, tmp_path / "a.parquet")]), tmp_path / "out")
    assert (summary["counts"]["missing"], summary["counts"]["extra"]) == (1, 1)
    after = set(sc._jsc.getPersistentRDDs().keySet())
    assert after <= before, f"left persisted: {sorted(after - before)}"


def test_leftovers_come_from_one_pass_with_their_own_sides_columns(spark):
    """Stage 1's left-overs are the kept rows with one side only, each once, carrying its
    own side's CorrelId, fingerprint, time, seq and row id and a side flag; pairs stay
    out, and it is one scan of the kept rows for both sides."""
    cols = ["queue", *[f"{p}_{c}" for p in "ea" for c in compare._LEFT_1], "differs"]
    kept = spark.createDataFrame([
        ("Q", None, None, 1, 1, 0, None, None, 2, 2, 0, False),       # a pair
        ("Q", b"ce", 11, 3, 3, 1, None, None, None, None, None, None),  # expected only
        ("R", None, None, None, None, None, b"ca", 22, 4, 4, 1, None),  # actual only
    ], "queue string, e_correl_id binary, e_fp long, e_t long, e_seq long, e_rid long, "
       "a_correl_id binary, a_fp long, a_t long, a_seq long, a_rid long, differs boolean")
    assert kept.columns == cols
    rest = compare._leftovers(kept)
    got = sorted(tuple(r) for r in rest.collect())
    assert got == [("Q", True, b"ce", 11, 3, 3, 1), ("R", False, b"ca", 22, 4, 4, 1)]
    plan = rest._jdf.queryExecution().executedPlan().toString()
    assert "Union" not in plan and "Join" not in plan
