"""Helpers of test_checkpoint_snapshot.py: a queue of DEPTH persistent messages, and a
checkpoint's browse of it that stops at given messages to run work on another thread.

Run as ``python snapshot_steps.py HOME END``, it boots a system on HOME, fills APP.Q,
takes one checkpoint during which m150 is got ahead of the browse and ended (``END``:
backout or commit) behind it, and kills itself with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

DEPTH = 200
IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE


def boot(home, *, define: bool = False) -> tuple[tpfemu.System, pymqi.Queue]:
    """A system on ``home`` (no timed checkpoints; with ``define``, MQP and APP.Q
    defined) and APP.Q open on it."""
    system = tpfemu.System.start("SNAPQM", home, "B", journal="off", checkpoint_interval=3600)
    if define:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-APP.Q")
    return system, pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", IN_OUT)


def fill(q: pymqi.Queue) -> None:
    """Put m000..m199 (persistent, CorrelId the data) in one unit of work."""
    for i in range(DEPTH):
        name = b"m%03d" % i
        md = pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=name)
        q.put(name, md, pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    q._qmgr.commit()


def race(q: pymqi.Queue, end: str) -> dict[int, Callable[[], object]]:
    """The steps that get m150 ahead of the browse (at its 5th message) and end that
    unit of work behind it (at its 190th)."""
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    return {5: lambda: q.get(None, pymqi.MD(CorrelId=b"m150"), gmo),
            190: lambda: q._qmgr.backout() if end == "backout" else q._qmgr.commit()}  # fmt: skip


class Steps:
    """What the steps did: whether each finished while the browse waited, their errors."""

    def __init__(self) -> None:
        self.finished: list[bool] = []
        self.failures: list[BaseException] = []


@contextmanager
def stepped_browse(queue, steps: dict[int, Callable[[], object]]) -> Iterator[Steps]:
    """While the block runs, a browse of ``queue`` (a LocalQueue) runs ``steps[n]()`` on
    another thread once it has passed ``n`` messages, and waits for it (at most 10 s)."""
    real = queue.core.cursor
    done = Steps()

    def run(step) -> None:
        try:
            step()
        except BaseException as exc:  # (the test raises it, in its own thread)
            done.failures.append(exc)

    @contextmanager
    def cursor():
        with real() as inner:

            def browse():
                for n, msg in enumerate(inner, 1):
                    yield msg
                    if n in steps:
                        worker = threading.Thread(target=run, args=(steps[n],))
                        worker.start()
                        worker.join(10)
                        done.finished.append(not worker.is_alive())

            yield browse()

    queue.core.cursor = cursor
    try:
        yield done
    finally:
        del queue.core.cursor


def main(home: str, end: str) -> None:
    system, q = boot(home, define=True)
    fill(q)
    with stepped_browse(system.qmgr.local_queue("APP.Q"), race(q, end)):
        system.qmgr.persistence.checkpointer.checkpoint()
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
