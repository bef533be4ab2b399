"""A checkpoint's snapshot of a memory queue browses its messages without the queue's log
lock: the queue's puts and gets go on meanwhile, and what the snapshot holds is still
what restart needs (every committed message whose key is below the replay point, a
message got ahead of the browse and backed out behind it included)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from snapshot_steps import DEPTH, boot, fill, race, stepped_browse

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

NAMES = [b"m%03d" % i for i in range(DEPTH)]


@pytest.fixture
def deep(tmp_path):
    """A system with m000..m199 committed and persistent on APP.Q."""
    system, q = boot(tmp_path, define=True)
    fill(q)
    yield system, q
    system.stop()


def snapshot_with(system, steps: dict):
    """APP.Q's snapshot, taken while ``steps`` run at their places in its browse: the
    messages' data, the replay point, and whether every step finished meanwhile."""
    with stepped_browse(system.qmgr.local_queue("APP.Q"), steps) as done:
        messages, point = system.qmgr.persistence.snapshot_queue(system.qmgr.local_queue("APP.Q"))
    if done.failures:
        raise done.failures[0]
    assert all(m.key < point for m in messages)
    finished = len(done.finished) == len(steps) and all(done.finished)
    return [m.data[m.ctx_len :] for m in messages], finished


def test_puts_and_gets_go_on_while_a_snapshot_browses(deep):
    """A persistent MQPUT and an MQGET of the queue return while its snapshot is being
    taken (they waited for the whole browse while it held the queue's log lock)."""
    system, _ = deep

    def work():
        q = pymqi.Queue(pymqi.connect("SNAPQM"), "APP.Q", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
        q.put(
            b"new",
            pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT),
            pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT),
        )
        assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"m000"
        q._qmgr.backout()

    data, finished = snapshot_with(system, {5: work})
    assert finished, "the put and get waited for the snapshot"
    assert data == NAMES


@pytest.mark.parametrize("end", ["backout", "commit"])
def test_a_message_got_ahead_of_the_browse_and_ended_behind_it_is_in_the_snapshot(deep, end):
    """m150, got before the browse reaches it and backed out (or committed) after the
    browse has passed its place, is in the snapshot, from its get's copy: the browse
    never saw it, and replay needs it (backed out, its Get and Backout records after the
    replay point give it back; committed, they remove it again)."""
    system, q = deep
    data, finished = snapshot_with(system, race(q, end))
    assert finished
    assert data == NAMES


@pytest.mark.parametrize("end", ["backout", "commit"])
def test_a_restart_from_a_snapshot_taken_during_gets_has_the_live_state(tmp_path, end):
    """A process takes a checkpoint while m150 is got ahead of its browse and backed out
    (or committed) behind it, and is killed right after: the restarted queue holds what
    the live one held, m150 with its backout count raised when the get was backed out,
    and without m150 when it was committed."""
    worker = Path(__file__).with_name("snapshot_steps.py")
    killed = subprocess.run([sys.executable, str(worker), str(tmp_path), end],
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, timeout=120)  # fmt: skip
    assert killed.returncode == -9
    system, q = boot(tmp_path)
    try:
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
    assert [data for data, _ in got] == [n for n in NAMES if end == "backout" or n != b"m150"]
    raised = {data: count for data, count in got if count}
    assert raised == ({b"m150": 1} if end == "backout" else {})
