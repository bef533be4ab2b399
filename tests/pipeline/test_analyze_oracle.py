"""analyze's queue_minute, uow and programs tables against a plain-Python oracle, on a
random journal with equal timestamps, records out of order across two files, several
queues whose names share a long prefix, two queue managers and commits with and
without a program."""

from __future__ import annotations

import random
from collections import defaultdict

import pandas as pd
import pytest
from journaldata import MINUTE, T0, ident, row, write

from tpfemu.pipeline import analyze
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark

QUEUES = ("APP.OUT.LONGNAME.1", "APP.OUT.LONGNAME.2", "B.Q")
COUNTED = {"put": "puts", "get": "gets", "browse": "browses", "expire": "expiries",
           "trigger": "triggers", "report": "reports"}
EVENTS = ["put"] * 5 + ["get"] * 4 + ["browse", "expire", "trigger", "report", "commit",
                                      "backout", "program-failed"]


def _rows(n: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        event = rng.choice(EVENTS)
        queue = "" if event in ("commit", "backout", "program-failed") else rng.choice(QUEUES)
        # coarse clocks on some rows: many events share a timestamp, seq orders them
        t = T0 + rng.randrange(0, 3 * MINUTE) // rng.choice([1, 1000, 100_000])
        rows.append(row(event, queue, t, seq=rng.randrange(1, 2**62),
                        msg_id=ident(f"m{rng.randrange(n // 3)}"),
                        ecb=rng.choice([None, 0, -1, 7, 32768, 2**40, rng.randrange(-999, 999)]),
                        program=rng.choice([None, "P1", "P2"]),
                        qmgr=rng.choice(["TPF1", "TPF2"])))
    rng.shuffle(rows)
    return rows


def _minute(t: int) -> pd.Timestamp:
    return pd.Timestamp(t // MINUTE * MINUTE, unit="us")


def _queue_minute(rows: list[dict]) -> dict:
    """(queue, minute) -> counts, depth and peak depth, event by event in (time, seq)
    order."""
    out: dict = {}
    depth: dict = defaultdict(int)
    for r in sorted(rows, key=lambda r: (r["event_time_us"], r["seq"])):
        if not r["queue"] or r["event"] not in COUNTED:
            continue
        key = (r["queue"], _minute(r["event_time_us"]))
        cell = out.setdefault(key, dict.fromkeys(COUNTED.values(), 0)
                              | {"peak_depth": depth[r["queue"]]})
        cell[COUNTED[r["event"]]] += 1
        depth[r["queue"]] += {"put": 1, "get": -1, "expire": -1}.get(r["event"], 0)
        cell["depth"] = depth[r["queue"]]
        cell["peak_depth"] = max(cell["peak_depth"], depth[r["queue"]])
    return out


@pytest.fixture(scope="module")
def result(spark, tmp_path_factory):
    rows = _rows(3000, seed=29)
    where = tmp_path_factory.mktemp("oracle")
    write(rows[:1500], where / "journal" / "part-1.parquet")
    write(rows[1500:], where / "journal" / "part-2.parquet")
    analyze.run(spark, Inputs([where / "journal"]), where / "out")
    return rows, where / "out"


def test_queue_minute_equals_the_oracle(result):
    """Every (queue, minute) row's counts, end-of-minute depth and true peak depth equal a
    plain-Python replay of the events in (time, seq) order, ties and all."""
    rows, out = result
    expected = _queue_minute(rows)
    got = pd.read_parquet(out / "queue_minute")
    assert len(got) == len(expected)
    for r in got.itertuples(index=False):
        cell = expected[(r.queue, r.minute)]
        assert {k: getattr(r, k) for k in cell} == cell, (r.queue, r.minute)
    assert any(c["peak_depth"] > c["depth"] for c in expected.values())


def test_uow_and_programs_equal_the_oracle(result):
    """Commits and backouts per (qmgr, minute), and per program and minute its calls,
    failed runs and distinct ECBs (and over the whole journal), equal a plain-Python
    count, whether the commit carries a program or not."""
    rows, out = result
    units: dict = defaultdict(lambda: [0, 0])
    calls: dict = defaultdict(int)
    failed: dict = defaultdict(int)
    ecbs: dict = defaultdict(set)
    for r in rows:
        minute = _minute(r["event_time_us"])
        if r["event"] in ("commit", "backout"):
            units[(r["qmgr"], minute)][r["event"] == "backout"] += 1
        if r["program"] is None:
            continue
        for key in ((r["program"], minute), (r["program"], None)):
            calls[key] += r["event"] != "program-failed"
            failed[key] += r["event"] == "program-failed"
            if r["ecb"] is not None:
                ecbs[key].add(r["ecb"])
    uow = pd.read_parquet(out / "uow")
    assert {(r.qmgr, r.minute): [r.commits, r.backouts]
            for r in uow.itertuples(index=False)} == dict(units)
    progs = pd.read_parquet(out / "programs")
    got = {(r.program, None if pd.isna(r.minute) else r.minute): (r.calls, r.failed, r.entries)
           for r in progs.itertuples(index=False)}
    assert got == {k: (calls[k], failed[k], len(ecbs[k])) for k in calls}
