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

from tpfemu.pipeline import jvm
from tpfemu.pipeline.cli import _log_of
from tpfemu.pipeline.progress import StageProgress, progress_line

NOISE = ("log4j", "WARN", "incubator", "NativeCodeLoader", "loopback")


def _compare(tmp_path, out: str, env: dict, *extra: str) -> subprocess.CompletedProcess:
    """``tpfemu compare`` of e.parquet and a.parquet in a fresh process (as users run
    it), from a working directory of its own (tmp_path/work)."""
    (tmp_path / "work").mkdir(exist_ok=True)
    return subprocess.run([sys.executable, "-m", "tpfemu", "compare",
                           str(tmp_path / "e.parquet"), str(tmp_path / "a.parquet"),
                           "--out", str(tmp_path / out), *extra],
                          capture_output=True, text=True, env=env, timeout=600,
                          cwd=tmp_path / "work")


def _quiet_and_different(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 1, done.stderr[-2000:]
    for word in NOISE:
        assert word not in done.stdout and word not in done.stderr, word
    assert "DIFFERENT: expected 20, actual 19" in done.stdout
    assert "missing                 1" in done.stdout


def _archive_appears(final, seconds: float = 300.0) -> bytes:
    """The archive, once the JVM that writes it has exited and it was moved into place
    (tpfemu.pipeline.jvm.finish)."""
    deadline = time.monotonic() + seconds
    while not final.exists():
        assert time.monotonic() < deadline, f"no archive {final} after {seconds} s"
        time.sleep(1)
    return final.read_bytes()


@pytest.mark.spark
def test_a_real_process_is_quiet_and_logs_the_jvm_beside_the_output(tmp_path):
    """A compare in a fresh process (as users run it) exits 1 for sides that differ,
    prints no JVM noise on stdout or stderr, ends with the summary table, writes its
    report, shows progress lines when asked, and OUT.log holds Spark's notices.

    Its JVM starts with the options of :mod:`tpfemu.pipeline.jvm`: with no class-data
    archive yet, it writes one when it exits, moved into place once complete. Then the
    archive is cut short, as a disk that filled or a JVM killed while writing would
    leave it: the next JVM crashes on it, and the command removes it, starts again
    without it (same result, still quiet, no crash report left in the working
    directory) and writes a new one."""
    rows = [row("put", "OUT.Q", T0 + i, ecb=1, program="P1", correl_id=ident(f"c{i}"),
                msg_id=ident(f"m{i}"), data=b"d%d" % i) for i in range(20)]
    write(rows, tmp_path / "e.parquet")
    write(rows[:-1], tmp_path / "a.parquet")
    cache = tmp_path / "cache"
    env = {**os.environ, "TPFEMU_SPARK_MASTER": "local[1]", "TPFEMU_JVM_CACHE": str(cache)}
    done = _compare(tmp_path, "out", env, "--progress")
    _quiet_and_different(done)
    assert (tmp_path / "out" / "report.html").is_file()
    assert "tasks" in done.stderr  # the progress lines (stderr is not a terminal)
    log = (tmp_path / "out.log").read_text()
    assert "log4j" in log and "WARN" in log

    final = jvm.archive_path(cache)
    archive = _archive_appears(final)
    assert len(archive) > 1 << 20 and not list(cache.glob("*.tmp"))
    final.chmod(0o644)
    final.write_bytes(archive[:100_000])
    again = _compare(tmp_path, "out2", env)
    _quiet_and_different(again)
    assert not list((tmp_path / "work").iterdir())  # (no hs_err_pid*.log)
    assert not list(cache.glob("hs_err*"))
    rewritten = _archive_appears(final)
    assert len(rewritten) > 1 << 20  # (not the archive cut short: that was removed)


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
