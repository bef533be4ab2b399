"""What any ``compare`` or ``analyze`` must at least do, timed alone on Spark.

``bench_pipeline.py`` times the whole commands against their goals (compare of two 10M-row
captures in 15 s; analyze at 5M rows/s). This script times the bare steps that a job
matching messages cannot skip, on the same generated data and the same session
(``local[2]`` by default), three rounds each, medians:

- compare: scanning the two sides' keys; a full outer join of the sides on (CorrelId,
  queue), counted; the same on a 64-bit hash of (queue, CorrelId); a union of the
  sides grouped by (queue, CorrelId), and by that hash, counting each side;
- analyze: counts per queue, minute and event; the put->get match by (queue, MsgId); the
  true peak depth: a running sum of +1 a put, -1 a get or expiry per (queue, minute) in
  recorded order (time, seq), and its highest value per (queue, minute), on Spark's plain
  window (what ``analyze``'s ``peak_depth`` must at least do: an ordered pass over every
  event, which no hash aggregate gives).

    .venv/bin/python bench/spark_floors.py [--rows 10000000] [--dir DIR] [--master local[2]]

The data (about 2 GB at 10M rows) is written under ``--dir`` (default a temporary
directory, removed at the end) by bench_pipeline.py's generators.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_pipeline as bp  # noqa: E402


def floors(spark, expected: Path, actual: Path, journal: Path):
    """(name, function) of each bare step; each function returns a count."""
    from pyspark.sql import functions as F

    def sides(*extra):
        e = spark.read.parquet(str(expected)).select("queue", "correl_id", *extra)
        a = spark.read.parquet(str(actual)).select("queue", "correl_id", *extra)
        return e, a

    def scan():
        e, a = sides()
        return sum(side.agg(F.count("correl_id")).collect()[0][0] for side in (e, a))

    def join_keys():  # CorrelId first, as compare sorts: (queue first is twice as slow)
        e, a = sides()
        return e.join(a, ["correl_id", "queue"], "full_outer").count()

    def join_hash():
        e, a = (s.select(F.xxhash64("queue", "correl_id").alias("k")) for s in sides())
        return e.join(a, "k", "full_outer").count()

    def group_keys():
        e, a = sides()
        both = e.withColumn("s", F.lit(1)).unionByName(a.withColumn("s", F.lit(-1)))
        return (both.groupBy("queue", "correl_id").agg(F.sum("s").alias("d"))
                .where("d != 0").count())

    def group_hash():
        e, a = sides()
        both = e.withColumn("s", F.lit(1)).unionByName(a.withColumn("s", F.lit(-1)))
        return (both.groupBy(F.xxhash64("queue", "correl_id").alias("k"))
                .agg(F.sum("s").alias("d")).where("d != 0").count())

    def journal_columns(*names):
        return spark.read.parquet(str(journal)).select(*names)

    def minute_counts():
        j = journal_columns("queue", "event", "event_time_us")
        minute = (F.col("event_time_us") / 60_000_000).cast("long")
        return j.groupBy("queue", minute, "event").count().count()

    def put_get_match():
        j = journal_columns("queue", "event", "msg_id", "event_time_us")
        first = {e: F.min(F.when(F.col("event") == e, F.col("event_time_us"))) for e in
                 ("put", "get")}
        return (j.groupBy("queue", "msg_id")
                .agg(first["put"].alias("p"), first["get"].alias("g"))
                .where("p is not null and g is not null").count())

    def peak_depth():
        from pyspark.sql import Window

        j = journal_columns("queue", "event", "event_time_us", "seq")
        delta = (F.when(F.col("event") == "put", 1)
                 .when(F.col("event").isin("get", "expire"), -1).otherwise(0))
        minute = (F.col("event_time_us") / 60_000_000).cast("long")
        w = (Window.partitionBy("queue", "m").orderBy("event_time_us", "seq")
             .rowsBetween(Window.unboundedPreceding, Window.currentRow))
        # summed at the end, so that no column of the window is pruned away
        return (j.withColumn("m", minute).withColumn("run", F.sum(delta).over(w))
                .groupBy("queue", "m").agg(F.max("run").alias("peak"))
                .agg(F.sum("peak")).collect()[0][0])

    return [
        ("compare: scan both sides' (queue, correl_id)", scan),
        ("compare: full outer join on (correl_id, queue), count", join_keys),
        ("compare: full outer join on xxhash64(queue, correl_id), count", join_hash),
        ("compare: union, group by (queue, correl_id), count per side", group_keys),
        ("compare: union, group by xxhash64(queue, correl_id)", group_hash),
        ("analyze: counts per queue, minute, event", minute_counts),
        ("analyze: put->get match by (queue, msg_id)", put_get_match),
        ("analyze: peak depth per (queue, minute), plain window", peak_depth),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    work = args.dir or Path(tempfile.mkdtemp(prefix="tpfemu-spark-floors-"))
    try:
        started = time.perf_counter()
        expected, actual, _ = bp._captures(work, args.rows)
        journal = bp._journal(work, args.rows)
        print(f"data: {args.rows:,} rows a side, ready in {time.perf_counter() - started:.1f} s",
              flush=True)
        from tpfemu.pipeline.session import get_session

        spark = get_session(args.master)
        for name, fn in floors(spark, expected, actual, journal):
            times, value = [], None
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                value = fn()
                times.append(time.perf_counter() - t0)
            median = statistics.median(times)
            print(f"{name}: {', '.join(f'{t:.1f}' for t in times)} s; median {median:.1f} s, "
                  f"{args.rows / median / 1e6:.2f}M rows/s (count {value:,})", flush=True)
    finally:
        if args.dir is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
