"""A checkpoint's snapshot of a memory queue browses its messages without the queue's log
lock: the queue's puts and gets go on meanwhile, and what the snapshot holds is still
what restart needs (every committed message whose key is below the replay point, a
message got and backed out behind the browse included)."""

from __future__ import annotations

import threading
from contextlib import contextmanager

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE
PERSISTENT = CMQC.MQPER_PERSISTENT
DEPTH = 200


@pytest.fixture
def deep(tmp_path):
    """A system (no timed checkpoints) with DEPTH committed persistent messages on APP.Q."""
    system = tpfemu.System.start("SNAPQM", tmp_path, "B", journal="off", checkpoint_interval=3600)
    system.console("ZMQSC DEF MQP")
    system.console("ZMQSC DEF QL-APP.Q")
    q = pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", IN_OUT)
    for i in range(DEPTH):
        name = b"m%03d" % i
        md = pymqi.MD(Persistence=PERSISTENT, CorrelId=name)
        q.put(name, md, pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    q._qmgr.commit()
    yield system, q
    system.stop()


def snapshot_with(system, monkeypatch, steps: dict):
    """Take APP.Q's snapshot; once the browse has passed ``n`` messages, run
    ``steps[n]()`` on another thread and wait for it there (at most 10 s). Returns the
    snapshot, its point, and whether every step finished while the browse waited."""
    queue = system.qmgr.local_queue("APP.Q")
    real = queue.core.cursor
    finished: list[bool] = []
    failures: list[BaseException] = []

    def run(step) -> None:
        try:
            step()
        except BaseException as exc:  # (raised below, in the test's thread)
            failures.append(exc)

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
                        finished.append(not worker.is_alive())

            yield browse()

    monkeypatch.setattr(queue.core, "cursor", cursor)
    messages, point = system.qmgr.persistence.snapshot_queue(queue)
    monkeypatch.undo()
    if failures:
        raise failures[0]
    return messages, point, len(finished) == len(steps) and all(finished)


def get_by_correl_id(q, name: bytes) -> bytes:
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    return q.get(None, pymqi.MD(CorrelId=name), gmo)


def test_puts_and_gets_go_on_while_a_snapshot_browses(deep, monkeypatch):
    """A persistent MQPUT and an MQGET of the queue return while its snapshot is being
    taken (they waited for the whole browse while it held the queue's log lock)."""
    system, _ = deep

    def work():
        q = pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", IN_OUT)
        q.put(b"new", pymqi.MD(Persistence=PERSISTENT), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"m000"
        q._qmgr.backout()

    messages, _, finished = snapshot_with(system, monkeypatch, {5: work})
    assert finished, "the put and get waited for the snapshot"
    assert [m.data[m.ctx_len :] for m in messages] == [b"m%03d" % i for i in range(DEPTH)]


@pytest.mark.parametrize("end", ["backout", "commit"])
def test_a_message_got_ahead_of_the_browse_and_ended_behind_it_is_in_the_snapshot(
    deep, monkeypatch, end
):
    """m150, got before the browse reaches it and backed out (or committed) after the
    browse has passed its place, is in the snapshot, from its get's copy: the browse
    never saw it, and replay needs it (backed out, its Get and Backout records after the
    replay point give it back; committed, they remove it again)."""
    system, q = deep
    steps = {5: lambda: get_by_correl_id(q, b"m150"),
             190: lambda: q._qmgr.backout() if end == "backout" else q._qmgr.commit()}  # fmt: skip
    messages, point, finished = snapshot_with(system, monkeypatch, steps)
    assert finished
    assert [m.data[m.ctx_len :] for m in messages] == [b"m%03d" % i for i in range(DEPTH)]
    assert all(m.key < point for m in messages)


_CRASH = """
import os, signal, sys, threading
from contextlib import contextmanager
import tpfemu, tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
home, end = sys.argv[1], sys.argv[2]
system = tpfemu.System.start("SNAPQM", home, "B", journal="off", checkpoint_interval=3600)
system.console("ZMQSC DEF MQP")
system.console("ZMQSC DEF QL-APP.Q")
q = pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
for i in range(200):
    q.put(b"m%03d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT, CorrelId=b"m%03d" % i),
          pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
q._qmgr.commit()
queue = system.qmgr.local_queue("APP.Q")
real = queue.core.cursor

def step(n):
    if n == 5:
        gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
        q.get(None, pymqi.MD(CorrelId=b"m150"), gmo)
    elif n == 190:
        q._qmgr.backout() if end == "backout" else q._qmgr.commit()

@contextmanager
def cursor():
    with real() as inner:
        def browse():
            for n, msg in enumerate(inner, 1):
                yield msg
                if n in (5, 190):
                    worker = threading.Thread(target=step, args=(n,))
                    worker.start()
                    worker.join(10)
        yield browse()

queue.core.cursor = cursor
system.qmgr.persistence.checkpointer.checkpoint()
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("end", ["backout", "commit"])
def test_a_restart_from_a_snapshot_taken_during_gets_has_the_live_state(tmp_path, end):
    """A process takes a checkpoint while m150 is got ahead of its browse and backed out
    (or committed) behind it, and is killed right after: the restarted queue holds what
    the live one held, m150 with its backout count raised when the get was backed out,
    and without m150 when it was committed."""
    import os
    import subprocess
    import sys

    killed = subprocess.run([sys.executable, "-c", _CRASH, str(tmp_path), end],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, timeout=120)  # fmt: skip
    assert killed.returncode == -9
    system = tpfemu.System.start("SNAPQM", tmp_path, "B", journal="off")
    try:
        q = pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", IN_OUT)
        got = []
        while True:
            md = pymqi.MD()
            try:
                got.append(
                    (q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT)), md.BackoutCount)
                )
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
    finally:
        system.stop()
    names = [b"m%03d" % i for i in range(DEPTH) if end == "backout" or i != 150]
    assert [data for data, _ in got] == names
    assert {data: count for data, count in got if count} == (
        {b"m150": 1} if end == "backout" else {}
    )
