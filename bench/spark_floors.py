"""What any ``compare`` or ``analyze`` must at least do, timed alone on Spark.

``bench_pipeline.py`` times the whole commands against their goals (compare of two 10M-row
captures in 15 s; analyze at 5M rows/s). This script times the bare steps that a job
matching messages cannot skip, on the same generated data and the same session
(``local[2]`` by default), three rounds each, medians:

- compare: scanning the two sides' keys; a full outer join of the sides on (CorrelId,
  queue), counted; the same on a 64-bit hash of (queue, CorrelId); a union of the
  sides grouped by (queue, CorrelId), and by that hash, counting each side; the steps
  any compare must take, each on Spark's plain operators: the join carrying what it
  compares (a hash of the compared fields, the time and seq), then the reorder check
  over its pairs (a window per queue in expected order), and both sides' rows read
  back whole;
- analyze: counts per queue, minute and event; the put->get match by (queue, MsgId); the
  true peak depth: a running sum of +1 a put, -1 a get or expiry per (queue, minute) in
  recorded order (time, seq), and its highest value per (queue, minute), on Spark's plain
  window (what ``analyze``'s ``peak_depth`` must at least do: an ordered pass over every
  event, which no hash aggregate gives); the match, then the latency percentiles per
  (queue, minute) and per queue (Spark's ``percentile_approx``, as ``latency`` has them).

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
    return [*_compare_floors(spark, expected, actual),
            *_compare_steps(spark, expected, actual), *_analyze_floors(spark, journal)]


def _compare_floors(spark, expected: Path, actual: Path):
    """compare's floors: the sides' keys scanned, joined and grouped."""
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

    return [
        ("compare: scan both sides' (queue, correl_id)", scan),
        ("compare: full outer join on (correl_id, queue), count", join_keys),
        ("compare: full outer join on xxhash64(queue, correl_id), count", join_hash),
        ("compare: union, group by (queue, correl_id), count per side", group_keys),
        ("compare: union, group by xxhash64(queue, correl_id)", group_hash),
    ]


def _compare_steps(spark, expected: Path, actual: Path):
    """The steps any compare must take, each on Spark's plain operators: the match
    carrying what it compares, the reorder check over its pairs, the rows read back."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    fields = ("msg_id", "payload_hash", "priority", "persistent", "expiry", "length",
              "group_id")

    def carried():
        # the compared fields as one hash, the time and seq: what a pair is compared on
        def side(p, path):
            return spark.read.parquet(str(path)).select(
                "queue", "correl_id", F.xxhash64(*fields).alias(f"{p}_fp"),
                F.col("event_time_us").alias(f"{p}_t"), F.col("seq").alias(f"{p}_seq"))

        return side("e", expected).join(side("a", actual), ["correl_id", "queue"],
                                        "full_outer")

    def mixed():
        # every carried column in one value, so that none is pruned away before it
        each = [F.coalesce(F.col(f"{p}_{c}"), F.lit(0)) for p in "ea" for c in ("fp", "t", "seq")]
        out = each[0]
        for col in each[1:]:
            out = out.bitwiseXOR(col)
        return F.bit_xor(out)

    def join_carried():
        return carried().agg(F.count("*"), mixed()).collect()[0][0]

    def reorder_check():
        pairs = carried().where("e_t is not null and a_t is not null")
        w = Window.partitionBy("queue").orderBy("e_t", "e_seq")
        reordered = pairs.withColumn("prev", F.lag("a_t").over(w)).where("a_t < prev")
        return reordered.agg(F.count("*"), mixed()).collect()[0][0]

    def read_back():
        total = 0
        for path in (expected, actual):
            side = spark.read.parquet(str(path))
            present = sum((F.col(c).isNotNull().cast("long") for c in side.columns), F.lit(0))
            total += side.agg(F.sum(present)).collect()[0][0]
        return total

    return [
        ("compare: the join carrying a hash of the compared fields, time, seq", join_carried),
        ("compare: that join, then the reorder check on a plain window per queue",
         reorder_check),
        ("compare: both sides' rows read back whole, every column", read_back),
    ]


def _analyze_floors(spark, journal: Path):
    """analyze's floors: counts, the put->get match, the peak depth, the percentiles."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    def journal_columns(*names):
        return spark.read.parquet(str(journal)).select(*names)

    def minute_of(name: str):
        return (F.col(name) / 60_000_000).cast("long")

    def minute_counts():
        j = journal_columns("queue", "event", "event_time_us")
        return j.groupBy("queue", minute_of("event_time_us"), "event").count().count()

    def matched():
        j = journal_columns("queue", "event", "msg_id", "event_time_us")
        first = {e: F.min(F.when(F.col("event") == e, F.col("event_time_us"))) for e in
                 ("put", "get")}
        return (j.groupBy("queue", "msg_id")
                .agg(first["put"].alias("p"), first["get"].alias("g"))
                .where("p is not null and g is not null"))

    def put_get_match():
        return matched().count()

    def latency_percentiles():
        from tpfemu.pipeline.analyze import _SETTINGS  # (hashed, not sorted, as analyze has them)
        from tpfemu.pipeline.session import scoped_conf

        pct = F.percentile_approx(F.col("g") - F.col("p"), [0.5, 0.95, 0.99], 10_000)
        with scoped_conf(spark, _SETTINGS):
            return (matched().withColumn("m", minute_of("g"))
                    .groupingSets([["queue", "m"], ["queue"]], "queue", "m")
                    .agg(pct.alias("pct"))
                    .agg(F.sum(F.col("pct")[0] + F.col("pct")[2])).collect()[0][0])

    def peak_depth():
        j = journal_columns("queue", "event", "event_time_us", "seq")
        delta = (F.when(F.col("event") == "put", 1)
                 .when(F.col("event").isin("get", "expire"), -1).otherwise(0))
        w = (Window.partitionBy("queue", "m").orderBy("event_time_us", "seq")
             .rowsBetween(Window.unboundedPreceding, Window.currentRow))
        # summed at the end, so that no column of the window is pruned away
        return (j.withColumn("m", minute_of("event_time_us"))
                .withColumn("run", F.sum(delta).over(w))
                .groupBy("queue", "m").agg(F.max("run").alias("peak"))
                .agg(F.sum("peak")).collect()[0][0])

    return [
        ("analyze: counts per queue, minute, event", minute_counts),
        ("analyze: put->get match by (queue, msg_id)", put_get_match),
        ("analyze: peak depth per (queue, minute), plain window", peak_depth),
        ("analyze: the match, then latency percentiles per (queue, minute) and queue",
         latency_percentiles),
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
