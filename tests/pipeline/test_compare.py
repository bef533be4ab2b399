"""compare: every kind of difference planted and found; identical captures exit 0."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from journaldata import T0, ident, row, table, write

from tpfemu.cli import main
from tpfemu.pipeline import compare, presort
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark


def out_msg(queue, i, label, **fields):
    """An outbound put (made by a program) at position i."""
    fields.setdefault("correl_id", ident(f"c-{label}"))
    fields.setdefault("msg_id", ident(f"m-{label}"))
    fields.setdefault("data", b"reply " + label.encode())
    fields.setdefault("expiry", 100)
    return row("put", queue, T0 + i * 1000, ecb=1 + i, program="APP1", **fields)


def in_msg(i, label):
    return row("put", "IN.Q", T0 + i * 1000 + 1, msg_id=ident(f"in-{label}"), data=b"req")


def captures():
    """Expected and actual captures, and what was planted."""
    expected, actual = [], []
    for i in range(10):
        expected.append(out_msg("OUT.A", i, f"a{i}"))
    for n, label in enumerate(("dup", "dup")):
        expected.append(out_msg("OUT.A", 20 + n, label, data=b"dup %d" % n))
    for i in range(4):  # OUT.B: no CorrelId; matched by MsgId
        expected.append(out_msg("OUT.B", 30 + i, f"b{i}", correl_id=None))
    for i in range(3):  # OUT.C: no ids at all; matched by sequence
        expected.append(out_msg("OUT.C", 40 + i, f"c{i}", correl_id=None, msg_id=None))
    expected += [in_msg(i, f"x{i}") for i in range(3)]

    by_label = {}
    for r in expected:
        by_label.setdefault((r["queue"], r["correl_id"], r["msg_id"]), []).append(r)
    actual = [dict(r) for r in expected if r["queue"] != "IN.Q"]
    actual += [in_msg(i, f"other{i}") for i in range(5)]  # inbound differs: ignored

    def find(queue, label, n=0):
        hits = [r for r in actual if r["queue"] == queue and r["payload"] is not None
                and r["payload"].startswith((b"reply " + label.encode(), b"dup"))]
        if label == "dup":
            hits = [r for r in actual if r["correl_id"] == ident("c-dup")]
        return hits[n]

    actual.remove(find("OUT.A", "a3"))                                       # missing
    actual.append(out_msg("OUT.A", 15, "new"))                               # extra
    a4 = find("OUT.A", "a4")
    a4.update(payload=b"changed", payload_hash=b"\x00" * 8)                  # payload
    find("OUT.A", "a5")["priority"] = 4                                      # descriptor
    find("OUT.A", "a6")["persistent"] = True
    find("OUT.A", "a7")["expiry"] = 50
    a1, a2 = find("OUT.A", "a1"), find("OUT.A", "a2")                        # reordered
    a1["event_time_us"], a2["event_time_us"] = a2["event_time_us"], a1["event_time_us"]
    dup = find("OUT.A", "dup", 1)
    dup.update(payload=b"dup X", payload_hash=b"\x01" * 8)                   # 2nd occurrence
    find("OUT.B", "b2")["correl_id"] = ident("now-set")                      # by MsgId
    c1 = find("OUT.C", "c1")
    c1.update(payload=b"reply cX", payload_hash=b"\x02" * 8)                 # by sequence
    actual.append(out_msg("OUT.A", 50, "undone", uow=77))                    # backed out
    actual.append(row("backout", "", T0 + 51_000, uow=77))
    for r in actual:
        r["seq"] = 0
    return expected, actual


@pytest.fixture(scope="module")
def planted(spark, tmp_path_factory):
    where = tmp_path_factory.mktemp("compare")
    expected, actual = captures()
    write(expected, where / "expected" / "legacy.parquet")
    write(actual[:20], where / "actual" / "run-1.parquet")
    write(actual[20:], where / "actual" / "run-2.parquet")
    summary = compare.run(spark, Inputs([where / "expected"]), Inputs([where / "actual"]),
                          where / "out")
    return where, summary


def test_every_kind_is_found(planted):
    where, summary = planted
    assert summary["identical"] is False
    counts = summary["counts"]
    assert counts == {
        "expected": 19, "actual": 19, "matched": 18, "identical_pairs": 10,
        "missing": 1, "extra": 1, "payload_changed": 3, "descriptor_changed": 4,
        "reordered": 1,
    }
    assert summary["descriptor_fields"] == {"correl_id": 1, "expiry": 1, "persistent": 1,
                                            "priority": 1}


def test_difference_tables_name_the_messages(planted):
    where, _ = planted
    out = where / "out"
    missing = pd.read_parquet(out / "missing")
    assert list(missing["expected_correl_id"]) == [ident("c-a3")]
    assert missing["actual_correl_id"].isna().all()
    extra = pd.read_parquet(out / "extra")
    assert list(extra["actual_msg_id"]) == [ident("m-new")]
    payload = pd.read_parquet(out / "payload_changed").sort_values("queue")
    assert list(payload["queue"]) == ["OUT.A", "OUT.A", "OUT.C"]
    assert set(payload["matched_by"]) == {"correl_id", "sequence"}
    assert ident("c-dup") in list(payload["expected_correl_id"])
    dup = payload[payload["expected_correl_id"] == ident("c-dup")]
    assert list(dup["expected_preview"]) == [b"dup 1"] and list(dup["actual_preview"]) == [
        b"dup X"]
    desc = pd.read_parquet(out / "descriptor_changed")
    fields = {bytes(r.expected_msg_id): list(r.changed_fields) for r in desc.itertuples()}
    assert fields == {ident("m-a5"): ["priority"], ident("m-a6"): ["persistent"],
                      ident("m-a7"): ["expiry"], ident("m-b2"): ["correl_id"]}
    b2 = desc[desc["queue"] == "OUT.B"]
    assert list(b2["matched_by"]) == ["msg_id"]
    reordered = pd.read_parquet(out / "reordered")
    assert list(reordered["expected_correl_id"]) == [ident("c-a2")]


def test_per_queue_summary_and_report(planted):
    where, _ = planted
    out = where / "out"
    per_queue = pd.read_parquet(out / "per_queue").set_index("queue")
    assert sorted(per_queue.index) == ["OUT.A", "OUT.B", "OUT.C"]
    a = per_queue.loc["OUT.A"]
    assert (a.expected, a.actual, a.missing, a.extra, a.payload_changed,
            a.descriptor_changed, a.reordered) == (12, 12, 1, 1, 2, 3, 1)
    assert per_queue.loc["OUT.C", "payload_changed"] == 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["missing"] == 1
    html = (out / "report.html").read_text()
    assert "DIFFERENT" in html and "charts/differences.png" in html
    assert ident("c-a3").hex().upper() in html  # an example of the missing message
    assert "Examples: descriptor changed" in (out / "report.md").read_text()
    assert not (out / "_stage1").exists() and not (out / "_differences").exists()


def test_ignored_fields_and_identical_pair_exit_0(planted, spark):
    where, _ = planted
    shutil.copytree(where / "expected", where / "copy")
    runner = CliRunner()
    result = runner.invoke(main, ["compare", str(where / "expected"), str(where / "copy"),
                                  "--out", str(where / "same")])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("identical: expected 19, actual 19, matched 19")
    assert json.loads((where / "same" / "summary.json").read_text())["identical"] is True
    result = runner.invoke(main, ["compare", str(where / "expected"), str(where / "actual"),
                                  "--out", str(where / "ign"), "--ignore", "priority",
                                  "--ignore", "persistent", "--ignore", "expiry",
                                  "--ignore", "correl_id"])
    assert result.exit_code == 1
    assert "descriptor changed 0" in result.output and "missing 1" in result.output


def test_outbound_queue_list_decides_direction(planted, spark):
    where, _ = planted
    t = pq.read_table(where / "expected" / "legacy.parquet")
    # The same capture with no ecb column values: only the queue list says what's out.
    blank = t.set_column(t.schema.get_field_index("ecb"), "ecb",
                         pa.nulls(t.num_rows, pa.int64()))
    pq.write_table(blank, where / "blank.parquet")
    result = CliRunner().invoke(main, [
        "compare", str(where / "blank.parquet"), str(where / "expected"), "--out",
        str(where / "dir2"), "--outbound-queue", "OUT.A"])
    assert result.exit_code == 0 and "expected 12, actual 12" in result.output
    result = CliRunner().invoke(main, [  # without a list, no ecb means inbound: all extra
        "compare", str(where / "blank.parquet"), str(where / "expected"), "--out",
        str(where / "dir3")])
    assert result.exit_code == 1 and "expected 0, actual 19" in result.output
    assert "extra 19" in result.output


def test_bad_input_exit_2_names_file_and_field(tmp_path):
    good = table([row("put", "Q", data=b"x", ecb=1)])
    bad = good.set_column(good.schema.get_field_index("length"), "length",
                          pa.array([b"1"], pa.binary()))
    write(good, tmp_path / "good.parquet")
    pq.write_table(bad, tmp_path / "bad.parquet")
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "good.parquet"),
                                       str(tmp_path / "bad.parquet"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "bad.parquet" in result.output and "'length'" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()
    result = CliRunner().invoke(main, ["analyze", str(tmp_path / "nope"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and "nope: no such file" in result.output
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "good.parquet"),
                                       str(tmp_path / "good.parquet"), "--out",
                                       str(tmp_path / "o"), "--ignore", "colour"])
    assert result.exit_code == 2 and "colour" in result.output


def test_real_process_exit_codes(planted, tmp_path):
    where, _ = planted
    env = {**os.environ, "TPFEMU_SPARK_MASTER": "local[1]"}
    tpfemu = [sys.executable, "-m", "tpfemu"]
    bad = subprocess.run([*tpfemu, "compare", str(tmp_path / "nope"), str(where / "actual"),
                          "--out", str(tmp_path / "o")], capture_output=True, text=True,
                         env=env, timeout=120)
    assert bad.returncode == 2 and "nope: no such file or directory" in bad.stderr
    assert "Traceback" not in bad.stderr
    # (exit 1 for sides that differ, in a fresh process: test_quiet.py's compare)


def test_reordered_pairs_of_every_stage(spark, tmp_path):
    """A swap is found whichever stage matched the pair (the reorder check runs on ids
    and is joined back to the pairs' rows)."""
    expected = [out_msg("OUT.A", i, f"a{i}") for i in range(4)]
    expected += [out_msg("OUT.B", 10 + i, f"b{i}", correl_id=None) for i in range(4)]
    expected += [out_msg("OUT.C", 20 + i, f"c{i}", correl_id=None, msg_id=None,
                         data=b"same") for i in range(3)]
    actual = [dict(r) for r in expected]
    for first, second in ((1, 2), (5, 6)):  # a CorrelId pair and a MsgId pair
        t1, t2 = actual[first]["event_time_us"], actual[second]["event_time_us"]
        actual[first]["event_time_us"], actual[second]["event_time_us"] = t2, t1
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                          Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
    assert summary["counts"]["reordered"] == 2 and summary["counts"]["matched"] == 11
    reordered = pd.read_parquet(tmp_path / "out" / "reordered").sort_values("queue")
    assert list(reordered["matched_by"]) == ["correl_id", "msg_id"]
    assert list(reordered["expected_msg_id"]) == [ident("m-a2"), ident("m-b2")]
    assert list(reordered["actual_msg_id"]) == [ident("m-a2"), ident("m-b2")]
    assert not reordered.columns.str.endswith("rid").any()


def test_reorder_check_does_not_trust_its_presort(spark, tmp_path):
    """The reorder check pre-sorts on the low 48 bits of the time (a speed hint); the
    window's own sort decides. Here the expected times cross a multiple of 2^48 us, so
    the hint puts the later messages first, and two messages share a time (their seq
    orders them): only the one planted swap is reported."""
    wrap = 1 << presort.TIME_BITS
    times = [wrap - 2_000, wrap - 1_000, wrap + 1_000, wrap + 1_000, wrap + 2_000]
    expected = [row("put", "OUT.W", t, ecb=1, program="APP1", correl_id=ident(f"c-w{i}"),
                    msg_id=ident(f"m-w{i}"), data=b"w") for i, t in enumerate(times)]
    for i, r in enumerate(expected):
        r["seq"] = 100 + i
    actual = [dict(r) for r in expected]
    actual[1]["event_time_us"], actual[2]["event_time_us"] = times[2], times[1]
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                          Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
    assert summary["counts"]["matched"] == 5
    assert summary["counts"]["reordered"] == 1
    reordered = pd.read_parquet(tmp_path / "out" / "reordered")
    assert list(reordered["expected_correl_id"]) == [ident("c-w2")]


def test_all_zero_correl_ids_match_nothing(spark, tmp_path):
    """A CorrelId of 24 zero bytes (MQCI_NONE) is no CorrelId: such messages are matched by
    MsgId, not with each other in recorded order (which would pair m-z0 with m-z1 here)."""
    none = bytes(24)
    expected = [out_msg("OUT.Z", i, f"z{i}", correl_id=none) for i in range(3)]
    actual = [dict(r) for r in expected]
    actual[0]["event_time_us"], actual[1]["event_time_us"] = (
        actual[1]["event_time_us"], actual[0]["event_time_us"])
    actual[2]["priority"] = 7
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                          Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
    counts = summary["counts"]
    assert (counts["matched"], counts["reordered"], counts["descriptor_changed"]) == (3, 1, 1)
    assert summary["descriptor_fields"] == {"priority": 1}
    changed = pd.read_parquet(tmp_path / "out" / "descriptor_changed")
    assert list(changed["matched_by"]) == ["msg_id"]
    assert list(changed["expected_correl_id"]) == [none]


def test_rows_read_back_out_of_step_fail_the_job(spark, tmp_path, monkeypatch):
    """The candidates' whole rows are read again, by row id. Should that second reading
    number the rows differently (an input changed meanwhile), compare must not report
    another message's fields: the job fails saying so, and writes no output."""
    from pyspark.sql import functions as F

    expected = [out_msg("OUT.A", i, f"a{i}") for i in range(4)]
    actual = [dict(r) for r in expected]
    actual[2]["priority"] = 7  # a candidate, so that rows are read back
    write(expected, tmp_path / "e.parquet")
    write(actual, tmp_path / "a.parquet")
    read_back = compare._wide

    def shifted(base, prefix, ids):  # as if a row had been inserted before the others
        if prefix == "e":
            base = base.withColumn("rid", F.col("rid") + 1)
        return read_back(base, prefix, ids)

    monkeypatch.setattr(compare, "_wide", shifted)
    with pytest.raises(Exception, match="read back in a different order"):
        compare.run(spark, Inputs([tmp_path / "e.parquet"]), Inputs([tmp_path / "a.parquet"]),
                    tmp_path / "out")
    assert not (tmp_path / "out").exists()
    monkeypatch.undo()  # and unshifted, the same inputs compare as planted
    summary = compare.run(spark, Inputs([tmp_path / "e.parquet"]),
                          Inputs([tmp_path / "a.parquet"]), tmp_path / "out")
    assert summary["descriptor_fields"] == {"priority": 1}
