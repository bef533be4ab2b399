"""The pipeline on a Spark cluster with several executors in separate JVMs
(``local-cluster[2,1,1024]``: a master, two workers and two executor JVMs, all on this
machine) gives the same outputs as local mode."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from journaldata import MINUTE, T0, ident, row, write

from tpfemu.cli import main

pytestmark = [pytest.mark.spark, pytest.mark.slow]

CLUSTER = "local-cluster[2,1,1024]"


def _inputs(where: Path) -> None:
    """Two captures with differences of every kind, spread over several files (so that
    both executors get work), and a journal to analyze."""
    expected, actual = [], []
    for f in range(4):
        rows_e, rows_a = [], []
        for i in range(50):
            n = f * 50 + i
            r = row("put", f"OUT.{n % 3}", T0 + n * 1_000, seq=n + 1, ecb=1, program="APP1",
                    correl_id=ident(f"c{n}"), msg_id=ident(f"m{n}"), data=b"r%d" % n)
            rows_e.append(r)
            if n % 17 == 0:
                continue  # missing
            b = dict(r)
            if n % 13 == 0:
                b.update(payload=b"other", payload_hash=b"\x01" * 8)
            if n % 11 == 0:
                b["priority"] = 5
            rows_a.append(b)
        expected.append(rows_e)
        actual.append(rows_a)
    actual[0][3]["event_time_us"], actual[0][6]["event_time_us"] = (
        actual[0][6]["event_time_us"], actual[0][3]["event_time_us"])
    for f in range(4):
        write(expected[f], where / "expected" / f"part-{f}.parquet")
        write(actual[f], where / "actual" / f"part-{f}.parquet")
    journal = []
    for i in range(300):
        t = T0 + i * 400_000
        journal.append(row("put", f"Q.{i % 2}", t, msg_id=ident(f"j{i}"), data=b"x"))
        journal.append(row("get", f"Q.{i % 2}", t + (i % 7) * 900_000 + MINUTE // 50,
                           msg_id=ident(f"j{i}"), data=b"x", ecb=i % 5, program="PRG1"))
    for f in range(3):
        write(journal[f::3], where / "journal" / f"part-{f}.parquet")


def _tables(out: Path, names) -> dict[str, pd.DataFrame]:
    tables = {}
    for name in names:
        frame = pd.read_parquet(out / name)
        for col in frame.columns:  # arrays (changed_fields) as tuples, comparable
            if frame[col].map(lambda v: hasattr(v, "tolist")).any():
                frame[col] = frame[col].map(tuple)
        tables[name] = frame.sort_values(list(frame.columns[:4])).reset_index(drop=True)
    return tables


def test_cluster_outputs_equal_local_outputs(spark, tmp_path):
    """compare and analyze on local-cluster[2,1,1024] (separate executor JVMs, run as a
    separate process) write the same tables and summary counts as in local mode."""
    _inputs(tmp_path)
    runner = CliRunner()
    local = runner.invoke(main, ["compare", str(tmp_path / "expected"),
                                 str(tmp_path / "actual"), "--out", str(tmp_path / "lc")])
    assert local.exit_code == 1, local.output
    local = runner.invoke(main, ["analyze", str(tmp_path / "journal"), "--out",
                                 str(tmp_path / "la")])
    assert local.exit_code == 0, local.output

    env = {**os.environ, "TPFEMU_SPARK_MASTER": CLUSTER}
    script = (
        "import sys\n"
        "from tpfemu.cli import main\n"
        "from click.testing import CliRunner\n"
        "r = CliRunner()\n"
        f"a = r.invoke(main, ['compare', {str(tmp_path / 'expected')!r}, "
        f"{str(tmp_path / 'actual')!r}, '--out', {str(tmp_path / 'cc')!r}])\n"
        f"b = r.invoke(main, ['analyze', {str(tmp_path / 'journal')!r}, '--out', "
        f"{str(tmp_path / 'ca')!r}])\n"
        "from pyspark.sql import SparkSession\n"
        "s = SparkSession.getActiveSession()\n"
        "ids = s.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1\n"
        "print('EXECUTORS', ids, 'MASTER', s.sparkContext.master)\n"
        "print(a.output, b.output)\n"
        "sys.exit(0 if (a.exit_code, b.exit_code) == (1, 0) else 3)\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=900, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"EXECUTORS 2 MASTER {CLUSTER}" in done.stdout

    kinds = ["missing", "extra", "payload_changed", "descriptor_changed", "reordered",
             "per_queue"]
    got, want = _tables(tmp_path / "cc", kinds), _tables(tmp_path / "lc", kinds)
    for name in kinds:
        pd.testing.assert_frame_equal(got[name], want[name], obj=name)
    summaries = [json.loads((tmp_path / d / "summary.json").read_text()) for d in ("cc", "lc")]
    assert summaries[0]["counts"] == summaries[1]["counts"]
    assert summaries[0]["counts"]["missing"] > 0 and summaries[0]["counts"]["reordered"] == 1
    names = ["queue_minute", "latency", "programs", "queues"]
    got, want = _tables(tmp_path / "ca", names), _tables(tmp_path / "la", names)
    for name in names:
        pd.testing.assert_frame_equal(got[name], want[name], obj=name)
