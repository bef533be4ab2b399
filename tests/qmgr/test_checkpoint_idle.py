"""A checkpoint round does not browse a memory queue again when its last checkpoint holds
it whole and nothing has changed it since: only that checkpoint's replay point moves. Any
change (a put, a get, the end of a unit of work, an expiry, a clear, work in flight, a
failed write) has the next round take the queue whole again, and restart gives back what
was there."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from snapshot_steps import boot

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

PERSISTENT = CMQC.MQPER_PERSISTENT
SYNC = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)


@pytest.fixture
def two(tmp_path):
    """A system with IDLE.Q (50 persistent messages) and BUSY.Q, checkpointed once."""
    system, _ = boot(tmp_path, define=True)
    system.console("ZMQSC DEF QL-IDLE.Q")
    system.console("ZMQSC DEF QL-BUSY.Q")
    idle = pymqi.Queue(pymqi.connect("SNAPQM"), "IDLE.Q", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    for i in range(50):
        idle.put(b"i%02d" % i, pymqi.MD(Persistence=PERSISTENT), SYNC)
    idle._qmgr.commit()
    system.qmgr.persistence.checkpointer.checkpoint()
    yield system, idle
    system.stop()


def browsed(system, monkeypatch) -> list[str]:
    """Run one checkpoint round; the names of the queues it browsed."""
    seen: list[str] = []
    plog = system.qmgr.persistence
    real = plog._snapshot_queue

    def spy(queue):
        seen.append(queue.name)
        return real(queue)

    monkeypatch.setattr(plog, "_snapshot_queue", spy)
    plog.checkpointer.checkpoint()
    monkeypatch.undo()
    return seen


def point_of(system, name: str) -> int:
    return system.qmgr.persistence.checkpoints.info(name)[1]


def test_an_unchanged_queue_is_not_browsed_and_its_point_moves(two, monkeypatch):
    """After activity elsewhere, a round browses BUSY.Q, not IDLE.Q, whose checkpoint
    keeps its 50 messages with its replay point moved up to the round's."""
    system, _ = two
    busy = pymqi.Queue(pymqi.connect("SNAPQM"), "BUSY.Q", CMQC.MQOO_OUTPUT)
    before = point_of(system, "IDLE.Q")
    busy.put(b"b", pymqi.MD(Persistence=PERSISTENT))
    assert "IDLE.Q" not in browsed(system, monkeypatch)
    info = system.qmgr.persistence.checkpoints.info("IDLE.Q")
    assert info[2] == 50 and info[1] > before
    assert info[1] == point_of(system, "BUSY.Q")


@pytest.mark.parametrize("change", ["put", "get", "backout", "clear", "expiry", "in flight"])
def test_a_change_has_the_next_round_browse_the_queue(two, monkeypatch, change):
    """Each kind of change to IDLE.Q has the next round browse it again."""
    system, idle = two
    conn = idle._qmgr
    if change == "put":
        idle.put(b"new", pymqi.MD(Persistence=PERSISTENT))
    elif change == "get":
        idle.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT))
    elif change == "backout":
        idle.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        browsed(system, monkeypatch)  # (in flight: browsed)
        conn.backout()
    elif change == "clear":
        idle.close()
        assert "MQSC0030I" in system.console("ZMQSC CLEAR QL-IDLE.Q")
    elif change == "expiry":
        brief = b"brief".ljust(24)
        idle.put(b"brief", pymqi.MD(Persistence=PERSISTENT, Expiry=1, CorrelId=brief))
        browsed(system, monkeypatch)
        time.sleep(0.2)
        with pytest.raises(pymqi.MQMIError) as none:  # (the get finds it expired: discarded)
            idle.get(None, pymqi.MD(CorrelId=brief),
                     pymqi.GMO(MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))  # fmt: skip
        assert none.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    else:
        idle.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    assert "IDLE.Q" in browsed(system, monkeypatch)
    if change == "in flight":
        assert "IDLE.Q" in browsed(system, monkeypatch)
        conn.backout()


def test_a_failed_round_leaves_the_queue_to_be_browsed_again(two, monkeypatch):
    """A round whose write of IDLE.Q's checkpoint fails does not count as holding it:
    the next round browses IDLE.Q again."""
    system, idle = two
    idle.put(b"new", pymqi.MD(Persistence=PERSISTENT))
    store = system.qmgr.persistence.checkpoints
    real = store.write

    def failing(queue, messages, lsn):
        if queue == "IDLE.Q":
            raise OSError("injected")
        return real(queue, messages, lsn)

    monkeypatch.setattr(store, "write", failing)
    with pytest.raises(OSError):
        system.qmgr.persistence.checkpointer.checkpoint()
    monkeypatch.undo()
    assert "IDLE.Q" in browsed(system, monkeypatch)
    assert "IDLE.Q" not in browsed(system, monkeypatch)
    assert store.info("IDLE.Q")[2] == 51


_WORK = """
import os, signal, sys
sys.path.insert(0, sys.argv[2])
from snapshot_steps import boot
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
system, _ = boot(sys.argv[1])
plog = system.qmgr.persistence
busy = pymqi.Queue(pymqi.connect("SNAPQM"), "BUSY.Q", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
for i in range(30):
    busy.put(b"b%02d" % i, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    if i % 3 == 0:
        busy.get(None, pymqi.MD())
    plog.checkpointer.checkpoint()
assert plog.log.stats["batches"] > 0
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_restart_after_rounds_that_skipped_the_queue_has_every_message(two, tmp_path):
    """Rounds that only move IDLE.Q's point while BUSY.Q works and the log is trimmed,
    then a SIGKILL: the restarted IDLE.Q has its 50 messages, BUSY.Q the 20 left."""
    system, _ = two
    system.stop()
    here = os.path.dirname(__file__)
    killed = subprocess.run([sys.executable, "-c", _WORK, str(tmp_path), here], timeout=120)
    assert killed.returncode == -signal.SIGKILL
    again, _ = boot(tmp_path)
    try:
        idle = pymqi.Queue(pymqi.connect("SNAPQM"), "IDLE.Q", CMQC.MQOO_INPUT_SHARED)
        busy = pymqi.Queue(pymqi.connect("SNAPQM"), "BUSY.Q", CMQC.MQOO_INPUT_SHARED)
        assert drain(idle) == [b"i%02d" % i for i in range(50)]
        left: list[bytes] = []
        for i in range(30):  # (what the worker did: a put, and every third time a get)
            left.append(b"b%02d" % i)
            if i % 3 == 0:
                left.pop(0)
        assert drain(busy) == left
    finally:
        again.stop()


def drain(q) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_NO_WAIT)))
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            return out
