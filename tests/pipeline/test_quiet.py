"""The pipeline commands are quiet: Spark's, log4j's and the JVM's messages go to a log
file next to the output, and the terminal shows tpfemu's lines, progress and a summary."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time

import pytest
from journaldata import T0, ident, row, write

from tpfemu.pipeline.cli import _log_of
from tpfemu.pipeline.progress import StageProgress, progress_line

NOISE = ("log4j", "WARN", "incubator", "NativeCodeLoader", "loopback")


@pytest.mark.spark
def test_a_real_process_is_quiet_and_logs_the_jvm_beside_the_output(tmp_path):
    """A compare in a fresh process (as users run it) exits 1 for sides that differ,
    prints no JVM noise on stdout or stderr, ends with the summary table, writes its
    report, shows progress lines when asked, and OUT.log holds Spark's notices."""
    rows = [row("put", "OUT.Q", T0 + i, ecb=1, program="P1", correl_id=ident(f"c{i}"),
                msg_id=ident(f"m{i}"), data=b"d%d" % i) for i in range(20)]
    write(rows, tmp_path / "e.parquet")
    write(rows[:-1], tmp_path / "a.parquet")
    env = {**os.environ, "TPFEMU_SPARK_MASTER": "local[1]"}
    done = subprocess.run([sys.executable, "-m", "tpfemu", "compare", str(tmp_path / "e.parquet"),
                           str(tmp_path / "a.parquet"), "--out", str(tmp_path / "out"),
                           "--progress"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 1, done.stderr[-2000:]
    for word in NOISE:
        assert word not in done.stdout and word not in done.stderr, word
    assert "DIFFERENT: expected 20, actual 19" in done.stdout
    assert "missing                 1" in done.stdout
    assert (tmp_path / "out" / "report.html").is_file()
    assert "tasks" in done.stderr  # the progress lines (stderr is not a terminal)
    log = (tmp_path / "out.log").read_text()
    assert "log4j" in log and "WARN" in log


def test_verbose_keeps_the_jvm_on_the_terminal(tmp_path):
    """--verbose: no log file; by default the log is OUT.log beside the output."""
    assert _log_of(str(tmp_path / "d"), True) is None
    assert _log_of(str(tmp_path / "d"), False) == tmp_path / "d.log"


def test_progress_line_and_display():
    """The progress text names stages and their tasks; a non-terminal stream gets a line
    only when what it shows changes."""
    assert progress_line([(3, "x", 4, 8)], 12.2) == "[12 s] stage 3: 4/8 tasks"
    assert progress_line([], 1) == "[1 s] working"

    class Tracker:
        def __init__(self):
            self.calls = 0

        def getActiveStageIds(self):
            self.calls += 1
            return [7] if self.calls < 6 else []

        def getStageInfo(self, stage):
            return type("I", (), {"name": "s", "numCompletedTasks": min(self.calls, 3),
                                  "numTasks": 3})()

    tracker = Tracker()
    fake = type("S", (), {"sparkContext": type("C", (), {
        "statusTracker": staticmethod(lambda: tracker)})()})()
    stream = io.StringIO()
    with StageProgress(fake, stream, interval=0.01) as shown:
        while tracker.calls < 8:
            time.sleep(0.01)
    lines = stream.getvalue().splitlines()
    assert [line.split("] ")[1] for line in lines] == [
        "stage 7: 1/3 tasks", "stage 7: 2/3 tasks", "stage 7: 3/3 tasks"]
    assert shown.lines == 3
