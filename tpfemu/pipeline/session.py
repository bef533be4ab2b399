"""Build or get the pipeline's SparkSession.

Local mode (``local[*]``) by default, with no setup beyond installing tpfemu; any Spark
master (``spark://host:7077``, ``yarn``, ``k8s://...``) with ``master=``. The session is
tuned for small-to-medium journals: few shuffle partitions, no UI, no console progress.
``test=True`` adds JVM options that make startup and tiny jobs faster (C1 JIT only, serial
GC) and runs queries interpreted, without generated code (``spark.sql.codegen.wholeStage``
off, ``factoryMode`` NO_CODEGEN, as Spark's own test suites run them; the results are
the same, and a tiny job skips compiling some 200 classes): good for test suites, bad for
long jobs. The CLI's sessions and the benchmarks generate code as usual.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_MASTER", "get_session", "jvm_output_to", "scoped_conf", "stop_session"]

DEFAULT_MASTER = "local[*]"

_TEST_JAVA_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def _local_cores(master: str) -> int:
    """Worker threads of a ``local[N]`` master (``local[*]``: this machine's CPUs)."""
    if not master.startswith("local"):
        return 0
    inside = master[master.find("[") + 1: master.find("]")] if "[" in master else "1"
    inside = inside.split(",")[0]
    if inside == "*":
        return os.cpu_count() or 1
    try:
        return max(1, int(inside))
    except ValueError:
        return 1


def _local_memory() -> str:
    """The JVM heap of a local session: a third of this machine's memory, from 3 GiB to
    8 GiB. Local mode sorts and joins in that one JVM: with 3 GiB, compare's 10M-row
    match spilled about 3 GB (1 GB of it to disk); with 7 or 8 GiB, nothing. (The heap is
    only taken as it is used.)"""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return "3g"
    return f"{min(8, max(3, total // 3 >> 30))}g"


@contextlib.contextmanager
def jvm_output_to(log: str | os.PathLike | None) -> Iterator[None]:
    """While inside, this process's stdout and stderr (file descriptors 1 and 2) are
    appended to ``log``; a JVM started meanwhile keeps them, so everything Spark, log4j and
    the JVM print goes to that file for the JVM's life, and Python's own output is back
    on the terminal afterwards. ``None``: nothing is redirected."""
    if log is None:
        yield
        return
    path = Path(log)
    path.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, target):
            os.close(fd)


def get_session(master: str | None = None, *, test: bool = False,
                shuffle_partitions: int | None = None,
                conf: dict[str, Any] | None = None, app_name: str = "tpfemu-pipeline",
                log: str | os.PathLike | None = None, java_options: str = ""):
    """Return the active SparkSession, or build one.

    :param master: Spark master URL; default ``local[*]`` (or ``$TPFEMU_SPARK_MASTER``).
        Ignored when a session is already active (Spark keeps one per process).
    :param test: tune for test suites (one core's worth of partitions, C1-only JIT).
    :param shuffle_partitions: ``spark.sql.shuffle.partitions``; default 2 per local
        core (adaptive execution coalesces them further), or Spark's 200 on a cluster.
    :param conf: further Spark settings, applied last. A local session's driver memory
        is a third of the machine's, from 3 to 8 GiB, unless given here.
    :param log: a file that gets the JVM's output (Spark's and log4j's messages, the
        JVM's warnings) instead of the terminal; None leaves them on the terminal.
        Only a session started here is affected.
    :param java_options: more options of the driver JVM (:mod:`.jvm`), after those of
        ``test``.
    """
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    master = master or os.environ.get("TPFEMU_SPARK_MASTER") or DEFAULT_MASTER
    builder = SparkSession.builder.master(master).appName(app_name)
    cores = _local_cores(master)
    if shuffle_partitions is None:
        if test:
            shuffle_partitions = 1
        elif cores:
            shuffle_partitions = 2 * cores
    settings: dict[str, Any] = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.parquet.compression.codec": "snappy",
        "spark.sql.execution.arrow.pyspark.enabled": "true",
    }
    if shuffle_partitions is not None:
        settings["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
        if cores:
            settings["spark.default.parallelism"] = str(shuffle_partitions)
    if cores and "spark.driver.memory" not in (conf or {}):
        settings["spark.driver.memory"] = "1g" if test else _local_memory()
    if test:
        settings.update({
            "spark.driver.extraJavaOptions": _TEST_JAVA_OPTIONS,
            "spark.rdd.compress": "false",
            "spark.shuffle.compress": "false",
            "spark.sql.codegen.wholeStage": "false",
            "spark.sql.codegen.factoryMode": "NO_CODEGEN",
        })
    settings.update(conf or {})
    if java_options:
        extra = settings.get("spark.driver.extraJavaOptions", "")
        settings["spark.driver.extraJavaOptions"] = f"{extra} {java_options}".strip()
    for key, value in settings.items():
        builder = builder.config(key, value)
    with jvm_output_to(log):
        spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN" if log is not None else "ERROR")
    return spark


def stop_session() -> None:
    """Stop the active session, if any (its JVM ends with the Python process anyway)."""
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None:
        active.stop()


@contextlib.contextmanager
def scoped_conf(spark, settings: dict[str, str]) -> Iterator[None]:
    """Run with ``settings`` in the session's SQL configuration, then put back what the
    caller had (a key the caller had not set is unset again): a job sets what its own
    plans need without changing the caller's session."""
    before = {key: spark.conf.get(key, None) for key in settings}
    try:
        for key, value in settings.items():
            spark.conf.set(key, value)
        yield
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
