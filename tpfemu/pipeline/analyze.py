"""``analyze``: per-queue, per-minute traffic of a journal, as Spark DataFrames.

Tables (all times UTC; ``minute`` is the start of the minute, a timestamp):

``queue_minute``
    queue, minute: ``puts``, ``gets`` (destructive), ``browses``, ``expiries``,
    ``triggers``, ``reports``, ``net`` (puts - gets - expiries) and ``depth``: the running
    sum of ``net`` at the end of the minute, counted from the start of the journal (a
    journal that starts with messages already queued shows depth relative to them), and
    ``peak_depth``: the highest depth reached inside the minute, event by event in
    recorded order (event_time_us, seq).
``latency``
    queue, minute (of the get; null on the per-queue total row): ``messages``,
    ``p50_us``, ``p95_us``, ``p99_us``, ``mean_us``, ``max_us`` of put->get latency. A
    message is matched by (queue, MsgId): its first put and its first get, whatever
    the order of their records (a get recorded before its put counts with latency 0);
    messages never got, or whose put the journal does not hold (put before it began),
    are left out. Percentile p is the smallest latency L with at least p of the latencies <= L
    (nearest rank), exact up to 10 000 messages per row and within 1/10 000 of the rank
    above that (Spark's ``percentile_approx``).
``uow``
    qmgr, minute: ``commits``, ``backouts``.
``programs``
    program, minute: ``entries`` (distinct ECBs that made a call or failed), ``calls``
    (events with that program), ``puts``, ``gets``, ``failed`` (runs that ended with a
    system error: ``program-failed`` events). Plus a per-program total row (minute null).
``queues``
    one row per queue: totals of ``queue_minute``, ``max_depth`` (the highest
    ``peak_depth``), ``final_depth`` and the latency percentiles over the whole journal.
"""

from __future__ import annotations

from tpfemu.pipeline import presort

__all__ = ["TABLES", "analyze"]

TABLES = ("queue_minute", "latency", "uow", "programs", "queues")

_MINUTE_US = 60_000_000
_ACCURACY = 10_000

#: The session settings analyze runs with, restored afterwards (:func:`.session.scoped_conf`).
_SETTINGS = {
    # percentile_approx is an object aggregate: past 128 groups in a task (ten queues
    # over a quarter of an hour make 150 (queue, minute) groups) Spark stops hashing and
    # sorts every row by (queue, minute) first, comparing the queue names row by row. A
    # group's buffer holds at most some 50 000 values: hash up to a million groups. With
    # the jobs side by side, the whole command at 1M: 13.3 s of CPU against 19.0 s
    # (docs/pipeline.md, "analyze: hashed percentiles and side-by-side table jobs").
    "spark.sql.objectHashAggregate.sortBased.fallbackThreshold": "1000000",
}


def _minute(col):
    from pyspark.sql import functions as F

    return F.timestamp_micros((col / _MINUTE_US).cast("long") * _MINUTE_US)


def _count(event: str):
    from pyspark.sql import functions as F

    return F.sum((F.col("event") == event).cast("long"))


def _program_words(j):
    """Per (program, minute, ECB word, unit-of-work queue manager): the ECBs of the word
    seen, and the counts of the ``programs`` and ``uow`` tables, for
    :func:`programs_tables` to finish.

    Distinct ECBs are counted exactly from 64-bit words: an ECB id ``e`` (any 64-bit
    value, zero and negatives too) is bit ``e & 63`` of word ``e >> 6`` (an arithmetic
    shift), so the OR of a group's words holds each of its ECBs once, and the set bits
    count them. ``bit_or`` and the sums have fixed-size buffers, so Spark hashes the
    groups; Spark's bitmap aggregate (``bitmap_construct_agg``), whose buffer is binary,
    made it sort every program row instead (10M rows: 8.3 s against 4.3 s alone,
    docs/pipeline.md, "analyze: distinct ECBs from words, finished in Spark"). The
    dispatcher numbers entries in order, so the ECBs of one minute are close ids and share
    few words. A null ECB sets no bit, as ``countDistinct`` ignores nulls.

    The units of work ride along in the same job: ``uow_qmgr`` is the queue manager of a
    commit or backout event and null for every other event, so a program's other events
    make exactly the groups they made alone, and a commit or backout (of a program or of
    none) adds a group of its own. One scan and one small shuffle serve both tables.
    """
    from pyspark.sql import functions as F

    unit = F.col("event").isin("commit", "backout")
    return (
        j.where(F.col("program").isNotNull() | unit)
        .groupBy("program", "minute", F.shiftright("ecb", 6).alias("word"),
                 F.when(unit, F.col("qmgr")).alias("uow_qmgr"))
        .agg(F.bit_or(F.expr("shiftleft(1L, cast(ecb & 63 as int))")).alias("bits"),
             F.sum((F.col("event") != "program-failed").cast("long")).alias("calls"),
             _count("put").alias("puts"), _count("get").alias("gets"),
             _count("program-failed").alias("failed"),
             _count("commit").alias("commits"), _count("backout").alias("backouts"))
    )


_PROGRAM_SUMS = ["calls", "puts", "gets", "failed"]


def programs_tables(words) -> dict:
    """The ``programs`` and ``uow`` tables (Spark) from :func:`_program_words`'s rows,
    read back: per (program, minute), and one total row per program with ``minute``
    null (its ECBs counted over the whole journal, not added up over minutes); commits
    and backouts per (qmgr, minute) that had either. Their words are ORed per key before
    their bits are counted, so an ECB in two minutes, or in a commit and a put, counts
    once."""
    from pyspark.sql import functions as F

    programs = words.where(F.col("program").isNotNull())

    def per(keys: list[str]):
        return (programs.groupBy(*keys, "word")
                .agg(F.bit_or("bits").alias("bits"),
                     *[F.sum(c).alias(c) for c in _PROGRAM_SUMS])
                .groupBy(*keys)
                .agg(F.coalesce(F.sum(F.bit_count("bits")), F.lit(0)).cast("long")
                     .alias("entries"),
                     *[F.sum(c).alias(c) for c in _PROGRAM_SUMS]))

    columns = ["program", "minute", "entries", *_PROGRAM_SUMS]
    totals = per(["program"]).withColumn("minute", F.lit(None).cast("timestamp"))
    table = per(["program", "minute"]).select(*columns).unionByName(totals.select(*columns))
    uow = (words.where(F.col("commits") + F.col("backouts") > 0)
           .groupBy(F.col("uow_qmgr").alias("qmgr"), "minute")
           .agg(F.sum("commits").alias("commits"), F.sum("backouts").alias("backouts")))
    return {"programs": table, "uow": uow}


def _local_table(name: str, frame):
    """A small table (``programs``, ``uow``) collected: sorted by its keys (a program's
    total row after its minutes), with the column types of the written table."""
    out = frame.toPandas()
    keys = ["program", "minute"] if name == "programs" else ["minute", "qmgr"]
    out = out.sort_values(keys, na_position="last", ignore_index=True)
    out["minute"] = out["minute"].astype("datetime64[ns]")
    counts = [c for c in out.columns if c not in ("program", "minute", "qmgr")]
    return out.astype({c: "int64" for c in counts})


def analyze(journal) -> dict:
    """Spark's part of the tables of a journal DataFrame (lazy: nothing runs until
    written): ``queue_minute`` and ``latency`` whole, and ``program_words``, which
    :func:`programs_tables` finishes into ``programs`` and ``uow`` (``queues`` comes from
    :func:`queues_table`)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    j = journal.withColumn("minute", _minute(F.col("event_time_us")))

    counted = ("put", "get", "browse", "expire", "trigger", "report")
    names = ("puts", "gets", "browses", "expiries", "triggers", "reports")
    # The depth after each event, relative to the start of its minute: a running sum, in
    # recorded order, of +1 a put and -1 a get or expiry. The window is partitioned by the
    # queue's hash, the queue and the minute, and the group-by that follows by the same:
    # Spark shuffles once (presort.nearly_in_order), and the window's sort runs over rows
    # pre-sorted on one long. The queue and minute after the hash keep two queues whose
    # hashes collide apart, so the result is exact.
    delta = (F.when(F.col("event") == "put", 1)
             .when(F.col("event").isin("get", "expire"), -1).otherwise(0))
    keys = ("qh", "queue", "minute")
    within = (Window.partitionBy(*keys).orderBy("event_time_us", "seq")
              .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    events = j.where((F.col("queue") != "") & F.col("event").isin(*counted))
    per_minute = (
        presort.nearly_in_order(events, "event_time_us", "queue", "minute")
        .withColumn("rel", F.sum(delta).over(within))
        .groupBy(*keys)
        .agg(*[_count(e).alias(n) for e, n in zip(counted, names, strict=True)],
             F.max("rel").alias("peak_rel"))
        .drop("qh")
        .withColumn("net", F.col("puts") - F.col("gets") - F.col("expiries"))
    )
    running = (Window.partitionBy("queue").orderBy("minute")
               .rowsBetween(Window.unboundedPreceding, Window.currentRow))
    depth = F.sum("net").over(running)
    queue_minute = (per_minute.withColumn("depth", depth)
                    # the highest depth in the minute: the depth it began with, or that
                    # plus the highest running sum inside it
                    .withColumn("peak_depth", F.greatest(
                        F.col("depth") - F.col("net"),
                        F.col("depth") - F.col("net") + F.col("peak_rel")))
                    .drop("peak_rel"))

    firsts = (
        j.where(F.col("event").isin("put", "get") & F.col("msg_id").isNotNull())
        .groupBy("queue", "msg_id")
        .agg(F.min(F.when(F.col("event") == "put", F.col("event_time_us"))).alias("put_us"),
             F.min(F.when(F.col("event") == "get", F.col("event_time_us"))).alias("get_us"))
        # A put and its get pair whatever the order of their records: a get recorded
        # before its put (two threads' records, a clock step) counts with latency 0.
        .where(F.col("get_us").isNotNull() & F.col("put_us").isNotNull())
        .select("queue", _minute(F.col("get_us")).alias("minute"),
                F.greatest(F.col("get_us") - F.col("put_us"), F.lit(0)).alias("latency_us"))
    )
    pct = F.percentile_approx("latency_us", [0.5, 0.95, 0.99], _ACCURACY)
    latency_all = (
        # Grouping sets, not a rollup: the rollup's grand total would be computed (in one
        # task) only to be dropped.
        firsts.groupingSets([["queue", "minute"], ["queue"]], "queue", "minute")
        .agg(F.count("*").alias("messages"), pct.alias("p"),
             F.avg("latency_us").alias("mean_us"), F.max("latency_us").alias("max_us"))
        .where(F.col("queue").isNotNull())
        .select("queue", "minute", "messages",
                F.col("p")[0].alias("p50_us"), F.col("p")[1].alias("p95_us"),
                F.col("p")[2].alias("p99_us"), "mean_us", "max_us")
    )

    return {"queue_minute": queue_minute, "latency": latency_all,
            "program_words": _program_words(j)}


def queues_table(queue_minute, latency):
    """The per-queue ``queues`` table, from the two others (pandas DataFrames)."""
    import pandas as pd

    sums = ["puts", "gets", "browses", "expiries", "triggers", "reports"]
    if queue_minute.empty:
        return pd.DataFrame(columns=["queue", *sums, "max_depth", "final_depth",
                                     "messages", "p50_us", "p95_us", "p99_us"])
    ordered = queue_minute.sort_values(["queue", "minute"])
    totals = ordered.groupby("queue", as_index=False)[sums].sum()
    depth = ordered.groupby("queue").agg(max_depth=("peak_depth", "max"),
                                         final_depth=("depth", "last")).reset_index()
    whole = latency[latency["minute"].isna()][
        ["queue", "messages", "p50_us", "p95_us", "p99_us"]]
    out = totals.merge(depth, on="queue").merge(whole, on="queue", how="left")
    out["messages"] = out["messages"].fillna(0).astype("int64")
    return out.sort_values("queue").reset_index(drop=True)


def _busiest(queues, n: int = 10) -> list[dict]:
    """The ``n`` queues with the most puts and gets, for the terminal's summary."""
    if queues.empty:
        return []
    ranked = queues.assign(volume=queues["puts"] + queues["gets"]).sort_values(
        ["volume", "queue"], ascending=[False, True]).head(n)
    return [{"queue": r.queue, "puts": int(r.puts), "gets": int(r.gets),
             "max_depth": int(r.max_depth),
             "p95_ms": None if r.p95_us is None or r.p95_us != r.p95_us
             else round(float(r.p95_us) / 1000.0, 3)}
            for r in ranked.itertuples(index=False)]


def _written(spark, frames: dict, where) -> dict:
    """Write the tables of ``frames`` (Spark, from :func:`analyze`) under ``where`` and
    read them back (pandas): ``queue_minute`` and ``latency``; and ``programs`` and
    ``uow``, collected, from ``program_words`` (written under ``where/_program_words``
    first, finished by :func:`programs_tables`, and removed).

    The jobs are submitted at once, from one thread each: Spark's scheduler then runs one
    job's tasks on cores that another leaves idle (its last tasks, the driver planning the
    next), where one job after the other would wait. The first error of a job is raised,
    after every job has ended."""
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    import pandas as pd

    def table(name: str, frame) -> dict:
        # (one file, by a shuffle of the table's few rows: coalesce(1) would run the
        # table's last stage, the percentiles' merge among it, as one task on one core)
        frame.repartition(1).write.parquet(str(where / name))
        return {name: pd.read_parquet(where / name)}

    def programs() -> dict:
        words = where / "_program_words"
        frames["program_words"].write.parquet(str(words))
        finished = programs_tables(spark.read.parquet(str(words)))
        out = {name: _local_table(name, frame) for name, frame in finished.items()}
        shutil.rmtree(words)
        return out

    with ThreadPoolExecutor(max_workers=3, thread_name_prefix="tpfemu-analyze") as pool:
        futures = [pool.submit(table, name, frames[name])
                   for name in ("queue_minute", "latency")] + [pool.submit(programs)]
    local: dict = {}
    for future in futures:
        local.update(future.result())
    return local


def run(spark, inputs, out) -> dict:
    """Analyze ``inputs`` (a :class:`~.sources.Inputs`) into the directory ``out``:
    one Parquet directory per table, ``report.html``/``report.md`` with PNG charts, and
    ``summary.json``. The directory appears only once complete.

    :returns: the summary (rows read, queues, programs, seconds).
    """
    import json
    import time

    from tpfemu.pipeline import report
    from tpfemu.pipeline.output import AtomicDir
    from tpfemu.pipeline.session import scoped_conf
    from tpfemu.pipeline.sources import read_journal

    started = time.perf_counter()
    with inputs, AtomicDir(out) as tmp, scoped_conf(spark, _SETTINGS):
        journal = read_journal(spark, inputs)
        frames = analyze(journal)
        local = _written(spark, frames, tmp)
        local["queues"] = queues_table(local["queue_minute"], local["latency"])
        for name in ("uow", "programs", "queues"):
            (tmp / name).mkdir()
            local[name].to_parquet(tmp / name / "part-0.parquet", index=False)
        sources = inputs.given
        if len(sources) > 5:
            sources = [*sources[:5], f"... ({len(sources)} inputs)"]
        report.analyze_report(tmp, local, sources)
        summary = {
            "events": int(local["queue_minute"][["puts", "gets", "browses", "expiries",
                                                 "triggers", "reports"]].to_numpy().sum())
            if not local["queue_minute"].empty else 0,
            "queues": len(local["queues"]),
            "programs": int(local["programs"]["minute"].isna().sum()),
            "failed_runs": int(local["programs"].loc[local["programs"]["minute"].isna(),
                                                     "failed"].sum()),
            "busiest_queues": _busiest(local["queues"]),
            "tables": [*TABLES],
            "warnings": list(inputs.warnings),
            "seconds": round(time.perf_counter() - started, 3),
        }
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
