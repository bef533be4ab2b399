"""Property tests of compare on small generated captures, against an independent oracle
written in plain Python from the rules in docs/pipeline.md ("compare").

Spark costs seconds a job, so each Hypothesis example packs many generated cases into one
compare: every case has queues of its own (matching is per queue), and the per-queue
table is checked case by case. Each case appears twice: against a generated actual side
(``D<n>.`` queues: counts equal the oracle's) and against itself (``S<n>.`` queues:
identical).
"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from journaldata import T0, row, write

from tpfemu.pipeline import compare
from tpfemu.pipeline.sources import Inputs

pytestmark = pytest.mark.spark

NONE = bytes(24)
KINDS = ("missing", "extra", "payload_changed", "descriptor_changed", "reordered")


def _id(label: str) -> bytes:
    return label.encode().ljust(24, b".")


messages = st.fixed_dictionaries({
    "queue": st.sampled_from(["A", "B"]),
    "correl_id": st.sampled_from([None, NONE, _id("c1"), _id("c2")]),
    "msg_id": st.sampled_from([None, _id("m1"), _id("m2"), _id("m3")]),
    "data": st.sampled_from([b"x", b"y", "é".encode()]),
    "priority": st.integers(0, 1),
    "hashed": st.booleans(),
})
cases = st.lists(st.tuples(st.lists(messages, max_size=6), st.lists(messages, max_size=6)),
                 min_size=1, max_size=12)


def _none(value) -> bool:
    return value is None or value == NONE


def _norm(value):
    """An id with null and 24 zero bytes both as None (no id)."""
    return None if _none(value) else value


def _pair_by_key(e, a, key):
    """Pair the messages of e and a (lists of dicts, in recorded order) that share a
    (queue, key) by occurrence; returns pairs and the left-overs of each side."""
    groups: dict = {}
    for side, items in (("e", e), ("a", a)):
        for m in items:
            if not _none(m[key]):
                groups.setdefault((m["queue"], m[key]), {"e": [], "a": []})[side].append(m)
    pairs = []
    for group in groups.values():
        pairs += [(x, y, key) for x, y in zip(group["e"], group["a"], strict=False)]
    paired = {id(m) for x, y, _ in pairs for m in (x, y)}
    return pairs, [m for m in e if id(m) not in paired], [m for m in a if id(m) not in paired]


def oracle(e: list[dict], a: list[dict]) -> dict[str, dict[str, int]]:
    """Per-queue counts of the compare rules, in plain Python. e and a are in recorded
    order (each message has t)."""
    pairs1, e1, a1 = _pair_by_key(e, a, "correl_id")
    pairs2, e2, a2 = _pair_by_key(e1, a1, "msg_id")
    pairs3 = []
    rest_e = [m for m in e2 if not _none(m["correl_id"])]
    rest_a = [m for m in a2 if not _none(m["correl_id"])]
    for queue in {m["queue"] for m in e2 + a2}:
        xs = [m for m in e2 if m["queue"] == queue and _none(m["correl_id"])]
        ys = [m for m in a2 if m["queue"] == queue and _none(m["correl_id"])]
        pairs3 += [(x, y, "sequence") for x, y in zip(xs, ys, strict=False)]
        rest_e += xs[len(ys):]
        rest_a += ys[len(xs):]
    out: dict[str, dict[str, int]] = {}

    def bump(queue, kind):
        counts = out.setdefault(queue, dict.fromkeys(("expected", "actual", "matched",
                                                     *KINDS), 0))
        counts[kind] += 1

    for m in e:
        bump(m["queue"], "expected")
    for m in a:
        bump(m["queue"], "actual")
    for m in rest_e:
        bump(m["queue"], "missing")
    for m in rest_a:
        bump(m["queue"], "extra")
    pairs = pairs1 + pairs2 + pairs3
    for x, y, by in pairs:
        bump(x["queue"], "matched")
        if x["data"] != y["data"]:
            bump(x["queue"], "payload_changed")
        changed = x["priority"] != y["priority"] or len(x["data"]) != len(y["data"])
        changed |= by != "msg_id" and _norm(x["msg_id"]) != _norm(y["msg_id"])
        changed |= by != "correl_id" and _norm(x["correl_id"]) != _norm(y["correl_id"])
        if changed:
            bump(x["queue"], "descriptor_changed")
    for queue in out:
        mine = sorted((p for p in pairs if p[0]["queue"] == queue), key=lambda p: p[0]["t"])
        for before, now in zip(mine, mine[1:], strict=False):
            if now[1]["t"] < before[1]["t"]:
                bump(queue, "reordered")
    return out


def _rows(messages_: list[dict], prefix: str) -> tuple[list[dict], list[dict]]:
    """Journal rows of a side (recorded in list order) with queues under ``prefix``, and
    the oracle's view of the same messages."""
    rows, seen = [], []
    for i, m in enumerate(messages_):
        queue = f"{prefix}{m['queue']}"
        r = row("put", queue, T0 + i * 10, seq=i + 1, ecb=1, program="APP1",
                correl_id=m["correl_id"], msg_id=m["msg_id"], data=m["data"],
                priority=m["priority"])
        if not m["hashed"]:
            r["payload_hash"] = None  # compare hashes the payload itself
        rows.append(r)
        seen.append({**m, "queue": queue, "t": i})
    return rows, seen


# (no shrinking: each step would be a Spark job; a failure prints the whole example)
@settings(max_examples=3, deadline=None,
          phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture,
                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(cases)
def test_counts_equal_the_oracle_and_x_equals_itself(spark, tmp_path_factory, generated):
    """For every generated case, compare's per-queue counts equal the plain-Python
    oracle's, and the case compared with itself is identical in every queue."""
    where = tmp_path_factory.mktemp("oracle")
    e_rows, a_rows, want = [], [], {}
    for n, (e, a) in enumerate(generated):
        er, eo = _rows(e, f"D{n}.")
        ar, ao = _rows(a, f"D{n}.")
        sr, so = _rows(e, f"S{n}.")
        e_rows += er + sr
        a_rows += ar + sr
        want.update(oracle(eo, ao))
        want.update(oracle(so, so))
    write(e_rows, where / "e.parquet")
    write(a_rows, where / "a.parquet")
    summary = compare.run(spark, Inputs([where / "e.parquet"]), Inputs([where / "a.parquet"]),
                          where / "out")
    per_queue = pd.read_parquet(where / "out" / "per_queue").set_index("queue")
    got = {q: {k: int(per_queue.loc[q, k]) for k in ("expected", "actual", "matched", *KINDS)}
           for q in per_queue.index}
    wrong = {q: (got.get(q), want.get(q), generated[int(q[1:q.index(".")])])
             for q in set(got) | set(want) if got.get(q) != want.get(q)}
    assert not wrong, wrong
    for queue, counts in got.items():
        if queue.startswith("S"):
            assert counts["matched"] == counts["expected"] == counts["actual"]
            assert not any(counts[k] for k in KINDS), queue
    assert summary["identical"] == (not any(c[k] for c in want.values() for k in KINDS))
