"""analyze on a generated journal whose answers the test computes on its own."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict

import numpy as np
import pandas as pd
import pytest
from journaldata import MINUTE, T0, ident, row, write

from tpfemu.pipeline import analyze, presort
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark

BASE = (T0 // MINUTE) * MINUTE


def _journal():
    """Rows, plus the facts the test expects, computed here without Spark."""
    rng = random.Random(42)
    rows = []
    lat = defaultdict(list)  # queue -> latencies
    lat_minute = defaultdict(list)  # (queue, get minute) -> latencies
    counts = Counter()  # (queue, minute index, event)
    ecbs = {"BNK1": set(), "AUD1": set()}
    for queue, n, prog in (("A.Q", 36, "BNK1"), ("B.Q", 12, "AUD1")):
        for i in range(n):
            put_t = BASE + i * 5_000_000 + rng.randrange(0, 1000)
            msg = ident(f"{queue}{i}")
            rows.append(row("put", queue, put_t, msg_id=msg, data=b"m%d" % i))
            counts[(queue, (put_t - BASE) // MINUTE, "put")] += 1
            if i % 12 == 11:  # never got
                continue
            latency = rng.randrange(1_000, 3_000_000)
            get_t = put_t + latency
            ecb = (1 if prog == "BNK1" else 10) + i % 4
            ecbs[prog].add(ecb)
            rows.append(row("get", queue, get_t, msg_id=msg, data=b"m%d" % i, ecb=ecb,
                            program=prog))
            counts[(queue, (get_t - BASE) // MINUTE, "get")] += 1
            lat[queue].append(latency)
            lat_minute[(queue, (get_t - BASE) // MINUTE)].append(latency)
    for k in range(2):  # expiries and triggers on A.Q in minute 1
        rows.append(row("expire", "A.Q", BASE + MINUTE + k, msg_id=ident(f"x{k}")))
        counts[("A.Q", 1, "expire")] += 1
    for k in range(3):
        rows.append(row("trigger", "A.Q", BASE + 10 + k, detail='{"process": "P"}'))
        counts[("A.Q", 0, "trigger")] += 1
    for k, event in enumerate(("commit", "commit", "commit", "backout")):
        rows.append(row(event, "", BASE + (MINUTE if event == "backout" else 0) + 99 + k,
                        uow=k + 1))
    rows.append(row("browse", "B.Q", BASE + 7, msg_id=ident("B.Q0"), ecb=10,
                    program="AUD1"))
    counts[("B.Q", 0, "browse")] += 1
    rows.sort(key=lambda r: r["event_time_us"])
    return rows, counts, lat, lat_minute, ecbs


def _pct(values, p):
    return float(np.percentile(np.array(values), p * 100, method="inverted_cdf"))


@pytest.fixture(scope="module")
def result(spark, tmp_path_factory):
    rows, *facts = _journal()
    where = tmp_path_factory.mktemp("analyze")
    write(rows[: len(rows) // 2], where / "journal" / "part-1.parquet")
    write(rows[len(rows) // 2:], where / "journal" / "part-2.parquet")
    out = where / "out"
    summary = analyze.run(spark, Inputs([where / "journal"]), out)
    return out, summary, facts


def test_counts_per_queue_and_minute(result):
    out, summary, (counts, *_rest) = result
    qm = pd.read_parquet(out / "queue_minute")
    names = {"put": "puts", "get": "gets", "expire": "expiries", "trigger": "triggers",
             "browse": "browses"}
    got = Counter()
    for r in qm.itertuples():
        minute = (int(pd.Timestamp(r.minute).value // 1000) - BASE) // MINUTE
        for event, col in names.items():
            if getattr(r, col):
                got[(r.queue, minute, event)] = getattr(r, col)
    assert got == counts
    assert summary["queues"] == 2


def test_depth_is_the_running_net_flow(result):
    out, _, (counts, *_rest) = result
    qm = pd.read_parquet(out / "queue_minute").sort_values(["queue", "minute"])
    for queue in ("A.Q", "B.Q"):
        depth = 0
        expected = []
        for minute in range(4):
            depth += (counts[(queue, minute, "put")] - counts[(queue, minute, "get")]
                      - counts[(queue, minute, "expire")])
            if any(counts[(queue, minute, e)] for e in ("put", "get", "expire", "trigger",
                                                        "browse")):
                expected.append(depth)
        assert list(qm[qm["queue"] == queue]["depth"]) == expected
    queues = pd.read_parquet(out / "queues").set_index("queue")
    assert queues.loc["A.Q", "final_depth"] == 36 - 33 - 2
    assert queues.loc["B.Q", "puts"] == 12 and queues.loc["B.Q", "gets"] == 11


def test_latency_percentiles(result):
    out, _, (_counts, lat, lat_minute, _ecbs) = result
    table = pd.read_parquet(out / "latency")
    whole = table[table["minute"].isna()].set_index("queue")
    for queue, values in lat.items():
        assert whole.loc[queue, "messages"] == len(values)
        for p in (0.5, 0.95, 0.99):
            assert whole.loc[queue, f"p{int(p * 100)}_us"] == _pct(values, p), (queue, p)
        assert whole.loc[queue, "max_us"] == max(values)
    per_minute = table[table["minute"].notna()]
    assert len(per_minute) == len(lat_minute)
    for r in per_minute.itertuples():
        minute = (int(pd.Timestamp(r.minute).value // 1000) - BASE) // MINUTE
        values = lat_minute[(r.queue, minute)]
        assert r.messages == len(values)
        assert r.p95_us == _pct(values, 0.95)


def test_units_of_work_and_programs(result):
    out, _, (_c, _l, _lm, ecbs) = result
    uow = pd.read_parquet(out / "uow").sort_values("minute")
    assert list(uow["commits"]) == [3, 0] and list(uow["backouts"]) == [0, 1]
    progs = pd.read_parquet(out / "programs")
    totals = progs[progs["minute"].isna()].set_index("program")
    assert totals.loc["BNK1", "entries"] == len(ecbs["BNK1"]) == 4
    assert totals.loc["AUD1", "entries"] == len(ecbs["AUD1"])
    assert totals.loc["BNK1", "gets"] == 33 and totals.loc["AUD1", "calls"] == 12


def test_report_is_complete(result):
    out, summary, _ = result
    html = (out / "report.html").read_text()
    charts = sorted(p.name for p in (out / "charts").iterdir())
    assert {"throughput.png", "depth.png", "latency_A_Q.png", "programs.png"} <= set(charts)
    for name in charts:
        assert (out / "charts" / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"charts/{name}" in html
    assert "A.Q" in html and "<table>" in html
    assert "![Queue depth over time](charts/depth.png)" in (out / "report.md").read_text()
    assert json.loads((out / "summary.json").read_text())["queues"] == 2
    assert not [p for p in out.parent.iterdir() if p.name.startswith(".")]


def test_peak_depth_and_pairing_whatever_the_record_order(spark, tmp_path):
    """Five puts then five gets inside one minute: the end-of-minute depth is 0 but the
    peak is 5, and max_depth says 5. A get recorded before its put (by 1 ms) still pairs,
    with latency 0, so every got message counts in the latency table."""
    rows = []
    for i in range(5):
        rows.append(row("put", "P.Q", BASE + 1_000 + i, msg_id=ident(f"p{i}"), data=b"x"))
        rows.append(row("get", "P.Q", BASE + 2_000_000 + i, msg_id=ident(f"p{i}"),
                        data=b"x", ecb=1, program="PRG1"))
    rows.append(row("get", "P.Q", BASE + MINUTE + 5_000, msg_id=ident("late"), data=b"x",
                    ecb=1, program="PRG1"))
    rows.append(row("put", "P.Q", BASE + MINUTE + 6_000, msg_id=ident("late"), data=b"x"))
    write(rows, tmp_path / "j.parquet")
    analyze.run(spark, Inputs([tmp_path / "j.parquet"]), tmp_path / "out")
    qm = pd.read_parquet(tmp_path / "out" / "queue_minute").sort_values("minute")
    assert list(qm["depth"]) == [0, 0] and list(qm["peak_depth"]) == [5, 0]
    queues = pd.read_parquet(tmp_path / "out" / "queues").set_index("queue")
    assert queues.loc["P.Q", "max_depth"] == 5 and queues.loc["P.Q", "messages"] == 6
    latency = pd.read_parquet(tmp_path / "out" / "latency")
    late = latency[latency["minute"].notna()].sort_values("minute").iloc[-1]
    assert late["messages"] == 1 and late["max_us"] == 0


def test_peak_depth_does_not_trust_its_presort(spark, tmp_path, monkeypatch):
    """The peak-depth window's rows are pre-sorted on the top bits of the queue's hash
    above the low 48 bits of the time (a speed hint); the window's own sort decides.
    Here every queue hashes alike, and one minute holds times on both sides of a
    multiple of 2^48 us, so the hint puts W.A's last two puts first (its peak would
    read 3) and mixes W.B's puts in (the two queues as one would peak at 4). Each queue
    still gets its own true peak, 2."""
    from pyspark.sql import functions as F

    monkeypatch.setattr(presort, "queue_hash", lambda col: F.lit(7).cast("long"))
    wrap = 1 << presort.TIME_BITS
    assert wrap // MINUTE == (wrap - 2_000) // MINUTE == (wrap + 1_500) // MINUTE
    events = [("put", "W.A", -2_000), ("put", "W.B", -1_500), ("get", "W.A", -1_000),
              ("put", "W.B", -500), ("put", "W.A", 1_000), ("put", "W.A", 1_500)]
    rows = [row(event, queue, wrap + dt, msg_id=ident(f"w{i}"), data=b"x")
            for i, (event, queue, dt) in enumerate(events)]
    write(rows, tmp_path / "j.parquet")
    analyze.run(spark, Inputs([tmp_path / "j.parquet"]), tmp_path / "out")
    qm = pd.read_parquet(tmp_path / "out" / "queue_minute").set_index("queue")
    assert qm.loc["W.A", "peak_depth"] == 2 and qm.loc["W.A", "depth"] == 2
    assert qm.loc["W.B", "peak_depth"] == 2 and qm.loc["W.B", "depth"] == 2


def test_failed_runs_are_counted_per_program(spark, tmp_path):
    """program-failed events count as failed runs of their program (and as its entries,
    not its calls), in the programs table, the summary and both reports."""
    rows = [row("get", "F.Q", BASE + 1_000, msg_id=ident("f1"), data=b"x", ecb=1,
                program="PRG1"),
            row("program-failed", "", BASE + 2_000, ecb=2, program="PRG1",
                detail='{"code": "SE-E0301 PARAMETER_ERROR"}'),
            row("program-failed", "", BASE + 3_000, ecb=3, program="PRG2"),
            row("program-failed", "", BASE + MINUTE + 3_000, ecb=4, program="PRG2")]
    write(rows, tmp_path / "j.parquet")
    summary = analyze.run(spark, Inputs([tmp_path / "j.parquet"]), tmp_path / "out")
    progs = pd.read_parquet(tmp_path / "out" / "programs")
    totals = progs[progs["minute"].isna()].set_index("program")
    assert totals.loc["PRG1", "failed"] == 1 and totals.loc["PRG1", "entries"] == 2
    assert totals.loc["PRG1", "calls"] == 1 and totals.loc["PRG1", "gets"] == 1
    assert totals.loc["PRG2", "failed"] == 2 and totals.loc["PRG2", "calls"] == 0
    assert len(progs[progs["minute"].notna() & (progs["program"] == "PRG2")]) == 2
    assert summary["failed_runs"] == 3
    html = (tmp_path / "out" / "report.html").read_text()
    assert "<b>3</b>failed runs" in html and ">failed</th>" in html
    assert "3 failed program runs" in (tmp_path / "out" / "report.md").read_text()


def test_entries_count_every_ecb_id_exactly(spark, tmp_path):
    """Distinct ECBs per program and minute, and per program over the whole journal, are
    exact for any 64-bit id: zero, negatives, ids on both sides of a 32 768-bit bucket's
    edge and far apart; a null ECB is not an entry; an ECB in two minutes counts once in
    the total."""
    ids = [0, -1, -32768, -32769, 1, 32768, 32769, 2**40, -2**40, 2**62, None, 1, 32768]
    rows = [row("get", "E.Q", BASE + 1_000 + i, msg_id=ident(f"e{i}"), data=b"x", ecb=e,
                program="PRG1") for i, e in enumerate(ids)]
    rows += [row("get", "E.Q", BASE + MINUTE + 1_000 + i, msg_id=ident(f"n{i}"), data=b"x",
                 ecb=e, program="PRG1") for i, e in enumerate([1, 7, -7, 2**40 + 1])]
    write(rows, tmp_path / "j.parquet")
    analyze.run(spark, Inputs([tmp_path / "j.parquet"]), tmp_path / "out")
    progs = pd.read_parquet(tmp_path / "out" / "programs").sort_values(
        "minute", na_position="last")
    assert list(progs["entries"]) == [10, 4, 13]
    assert list(progs["calls"]) == [13, 4, 17]
    assert progs["entries"].dtype == "int64"


def test_distinct_ecbs_are_hashed_and_leave_nothing_behind(spark, tmp_path):
    """The programs job groups its rows in a hash aggregate (a sort-based aggregate sorts
    every program row of the journal: twice the time at 10M rows), and the words it
    writes on the way are gone from the output directory."""
    rows = [row("put", "W.Q", BASE + i, msg_id=ident(f"w{i}"), data=b"x", ecb=i,
                program="PRG1") for i in range(3)]
    write(rows, tmp_path / "j.parquet")
    journal = spark.read.parquet(str(tmp_path / "j.parquet"))
    words = analyze.analyze(journal)["program_words"]
    plan = words._jdf.queryExecution().executedPlan().toString()
    assert "HashAggregate" in plan and "SortAggregate" not in plan, plan
    analyze.run(spark, Inputs([tmp_path / "j.parquet"]), tmp_path / "out")
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith("_")]
    progs = pd.read_parquet(tmp_path / "out" / "programs")
    assert list(progs["entries"]) == [3, 3] and progs["minute"].isna().tolist() == [False, True]
