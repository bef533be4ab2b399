"""A progress display for the pipeline's long jobs, from Spark's status tracker.

While a job runs, a background thread polls the SparkContext's status tracker every
``interval`` seconds and shows one line on a stream (stderr): the running stages, their
finished and total tasks, and the time so far. On a terminal the line is redrawn in place;
elsewhere (a log, a pipe) a line is written only when what it shows changes, at most once
per ``interval``. The thread only reads the tracker: it never changes the job.
"""

from __future__ import annotations

import threading
import time
from typing import TextIO

__all__ = ["StageProgress", "progress_line"]


def progress_line(stages: list[tuple[int, str, int, int]], seconds: float) -> str:
    """The text shown for ``stages`` (stage id, name, finished tasks, total tasks) after
    ``seconds``: e.g. ``[12 s] stage 3: 4/8 tasks``."""
    if not stages:
        return f"[{seconds:.0f} s] working"
    parts = [f"stage {stage_id}: {done}/{total} tasks"
             for stage_id, _name, done, total in stages[:3]]
    more = f" (+{len(stages) - 3} more)" if len(stages) > 3 else ""
    return f"[{seconds:.0f} s] " + ", ".join(parts) + more


class StageProgress:
    """``with StageProgress(spark, stream):`` shows Spark's progress on ``stream`` while
    the body runs. ``enabled=False`` shows nothing (the body runs the same)."""

    def __init__(self, spark, stream: TextIO, *, enabled: bool = True,
                 interval: float = 0.5) -> None:
        self.spark = spark
        self.stream = stream
        self.enabled = enabled
        self.interval = interval
        self.lines = 0  #: lines shown (for tests)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tty = bool(getattr(stream, "isatty", lambda: False)())
        self._width = 0

    def __enter__(self) -> StageProgress:
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="tpfemu-progress",
                                            daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            if self._tty and self._width:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()

    def _stages(self) -> list[tuple[int, str, int, int]]:
        tracker = self.spark.sparkContext.statusTracker()
        out = []
        for stage_id in sorted(tracker.getActiveStageIds()):
            info = tracker.getStageInfo(stage_id)
            if info is not None:
                out.append((stage_id, info.name, info.numCompletedTasks, info.numTasks))
        return out

    def _run(self) -> None:
        started = time.monotonic()
        last = None
        while not self._stop.wait(self.interval):
            try:
                stages = self._stages()
            except Exception:  # the session is stopping: nothing more to show
                return
            if not stages:
                continue
            line = progress_line(stages, time.monotonic() - started)
            shown = line.split("] ", 1)[1]
            if self._tty:
                self.stream.write("\r" + line.ljust(self._width))
                self._width = max(self._width, len(line))
            elif shown != last:
                self.stream.write(line + "\n")
            else:
                continue
            last = shown
            self.lines += 1
            self.stream.flush()
