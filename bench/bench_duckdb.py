"""The one-machine reference for ``compare``: the same matching rules in DuckDB SQL, on
the same generated captures as ``bench_pipeline.py``.

What a user with one machine would pick instead of Spark. It implements the rules of
docs/pipeline.md ("compare") as three SQL stages (CorrelId with occurrence, MsgId with
occurrence, then position among the left-overs without a CorrelId), the payload and
descriptor checks and the adjacent-inversion reorder count, and returns the counts. It
takes outbound messages as the generated data has them (every put made inside an entry,
``ecb`` set; no backed-out units of work), and a row's digest as its ``payload_hash``
(the bench's rows all carry one; a row with a payload alone is not hashed here).

    .venv/bin/python bench/bench_duckdb.py EXPECTED ACTUAL [--threads 2]
    .venv/bin/python -m pytest bench/bench_duckdb.py [-m slow]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_pipeline as bp  # noqa: E402

_FIELDS = ("priority", "persistent", "expiry", "length", "group_id")
_ZERO = "\\x00" * 24  # MQCI_NONE as a DuckDB blob literal


def _side(name: str, path: Path) -> str:
    return f"""
CREATE OR REPLACE TEMP TABLE {name} AS
SELECT row_number() OVER () AS rid, queue,
       CASE WHEN correl_id IS NULL OR correl_id = '{_ZERO}'::BLOB THEN NULL
            ELSE correl_id END AS correl_id, correl_id AS correl_raw, msg_id,
       {", ".join(_FIELDS)}, payload_hash AS digest, event_time_us AS t, seq
FROM read_parquet('{path}/**/*.parquet')
WHERE event = 'put' AND ecb IS NOT NULL;
"""


def _stage(key: str, left_e: str, left_a: str, out: str) -> str:
    """Pairs of (queue, key, occurrence) between two tables of left-overs."""
    return f"""
CREATE OR REPLACE TEMP TABLE {out} AS
WITH e AS (SELECT rid, queue, {key} AS k, row_number() OVER (PARTITION BY queue, {key}
                                                   ORDER BY t, seq, rid) AS occ
           FROM {left_e} WHERE {key} IS NOT NULL),
     a AS (SELECT rid, queue, {key} AS k, row_number() OVER (PARTITION BY queue, {key}
                                                   ORDER BY t, seq, rid) AS occ
           FROM {left_a} WHERE {key} IS NOT NULL)
SELECT e.rid AS e_rid, a.rid AS a_rid, '{key}' AS matched_by
FROM e JOIN a ON e.queue = a.queue AND e.k = a.k AND e.occ = a.occ;
"""


def compare_counts(con, expected: Path, actual: Path) -> dict[str, int]:
    """The five counts of compare for two capture directories, computed by DuckDB."""
    con.execute(_side("es", expected))
    con.execute(_side("as_", actual))
    con.execute(_stage("correl_id", "es", "as_", "p1"))
    con.execute("""
CREATE OR REPLACE TEMP TABLE e1 AS SELECT * FROM es WHERE rid NOT IN (SELECT e_rid FROM p1);
CREATE OR REPLACE TEMP TABLE a1 AS SELECT * FROM as_ WHERE rid NOT IN (SELECT a_rid FROM p1);
""")
    con.execute(_stage("msg_id", "e1", "a1", "p2"))
    con.execute("""
CREATE OR REPLACE TEMP TABLE e2 AS SELECT * FROM e1 WHERE rid NOT IN (SELECT e_rid FROM p2);
CREATE OR REPLACE TEMP TABLE a2 AS SELECT * FROM a1 WHERE rid NOT IN (SELECT a_rid FROM p2);
CREATE OR REPLACE TEMP TABLE p3 AS
WITH e AS (SELECT rid, queue, row_number() OVER (PARTITION BY queue ORDER BY t, seq, rid) pos
           FROM e2 WHERE correl_id IS NULL),
     a AS (SELECT rid, queue, row_number() OVER (PARTITION BY queue ORDER BY t, seq, rid) pos
           FROM a2 WHERE correl_id IS NULL)
SELECT e.rid AS e_rid, a.rid AS a_rid, 'sequence' AS matched_by
FROM e JOIN a USING (queue, pos);
CREATE OR REPLACE TEMP TABLE pairs AS
SELECT * FROM p1 UNION ALL SELECT * FROM p2 UNION ALL SELECT * FROM p3;
""")
    differs = " OR ".join(f"e.{f} IS DISTINCT FROM a.{f}" for f in _FIELDS)
    row = con.execute(f"""
WITH j AS (
  SELECT e.queue, e.t AS e_t, e.seq AS e_seq, a.t AS a_t, a.seq AS a_seq,
         e.digest IS DISTINCT FROM a.digest AND e.digest IS NOT NULL
             AND a.digest IS NOT NULL AS payload,
         ({differs}
          OR (p.matched_by <> 'msg_id' AND e.msg_id IS DISTINCT FROM a.msg_id)
          OR (p.matched_by <> 'correl_id' AND e.correl_raw IS DISTINCT FROM a.correl_raw))
             AS descriptor
  FROM pairs p JOIN es e ON e.rid = p.e_rid JOIN as_ a ON a.rid = p.a_rid),
o AS (
  SELECT *, lag(a_t) OVER w AS p_t, lag(a_seq) OVER w AS p_seq FROM j
  WINDOW w AS (PARTITION BY queue ORDER BY e_t, e_seq))
SELECT count(*) AS matched, count(*) FILTER (payload), count(*) FILTER (descriptor),
       count(*) FILTER (a_t < p_t OR (a_t = p_t AND a_seq < p_seq))
FROM o
""").fetchone()
    matched, payload, descriptor, reordered = row
    n_e = con.execute("SELECT count(*) FROM es").fetchone()[0]
    n_a = con.execute("SELECT count(*) FROM as_").fetchone()[0]
    return {"missing": n_e - matched, "extra": n_a - matched, "payload_changed": payload,
            "descriptor_changed": descriptor, "reordered": reordered}


def timed_compare(expected: Path, actual: Path, threads: int = 2) -> tuple[float, dict]:
    """Seconds and counts of one DuckDB compare, on ``threads`` threads (the same two
    cores as Spark's local[2])."""
    import duckdb

    started = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"SET threads = {threads}")
    try:
        counts = compare_counts(con, expected, actual)
    finally:
        con.close()
    return time.perf_counter() - started, counts


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    return tmp_path_factory.mktemp("duckdb-bench")


def _case(workdir, external, n: int) -> None:
    pytest.importorskip("duckdb")
    expected, actual, planted = bp._captures(workdir, n)
    seconds, counts = timed_compare(expected, actual)
    assert counts == planted, counts
    base, b_counts = bp._timed(bp.dict_diff, expected, actual) if n <= 1_000_000 else (
        None, None)
    label = f"{n / 1e6:g}M"
    external(f"compare reference {label}", f"DuckDB compare, 2 threads: {seconds:.1f} s",
             seconds * 1e9 / n,
             f"pure-Python dict diff: {base:.1f} s" if base else "(no baseline at 10M)",
             base * 1e9 / n if base else None)


def test_duckdb_compare_1m(workdir, external):
    """DuckDB finds the planted differences of the 1M-row captures; timed."""
    _case(workdir, external, 1_000_000)


@pytest.mark.slow
def test_duckdb_compare_10m(workdir, external):
    """The same at 10M rows a side."""
    _case(workdir, external, 10_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("expected", type=Path)
    parser.add_argument("actual", type=Path)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    seconds, counts = timed_compare(args.expected, args.actual, args.threads)
    print(f"DuckDB compare: {seconds:.1f} s; {counts}")


if __name__ == "__main__":
    main()
