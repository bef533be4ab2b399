"""MQCMIT of logged work runs the core commit before it takes the queue's log lock
(QueuePersistence.apply_end): a checkpoint taken between the two must neither lose nor
double a message. Each test takes a real checkpoint (and trims the log) right after the
core commit, then recovers the home as a restart would and compares."""

from __future__ import annotations

from typing import Any

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.store.recovery import messages_of, recovered

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
PERSISTENT = {"Persistence": CMQC.MQPER_PERSISTENT}
SYNC_PUT = CMQC.MQPMO_SYNCPOINT
SYNC_GET = CMQC.MQGMO_SYNCPOINT


@pytest.fixture
def system(tmp_path):
    system = tpfemu.System.start("ORDERQM", tmp_path, "B", journal="off",
                                 checkpoint_interval=3600)  # fmt: skip
    system.console("ZMQSC DEF MQP")
    system.console("ZMQSC DEF QL-APP.Q")
    yield system
    system.stop()


def _checkpoint_after_core_commits(system: Any, queue: Any, monkeypatch) -> list[int]:
    """Have every core commit of ``queue`` followed at once by a checkpoint round; the
    returned list counts the rounds."""
    plog = system.qmgr.persistence
    commit, rounds = queue.core.commit, []

    def commit_then_checkpoint(uow: int) -> int:
        n = commit(uow)
        plog.checkpointer.checkpoint()
        rounds.append(n)
        return n

    monkeypatch.setattr(queue.core, "commit", commit_then_checkpoint)
    return rounds


def _recovered_data(system: Any) -> list[bytes]:
    """The persistent messages of APP.Q that a restart now would bring back."""
    plog = system.qmgr.persistence
    with recovered(plog.path, log=plog.log, checkpoints=plog.checkpoints) as segments:
        return sorted(bytes(m.data[m.ctx_len:]) for m in
                      messages_of("APP.Q", segments.get("APP.Q", [])))


def test_a_checkpoint_amid_a_commit_of_puts_keeps_them_once(system, monkeypatch):
    """Puts committed with a checkpoint between the core commit and the bookkeeping are
    recovered, each once, beside a message committed before."""
    conn = pymqi.connect("ORDERQM")
    q = pymqi.Queue(conn, "APP.Q", IO)
    q.put(b"before", pymqi.MD(**PERSISTENT))
    queue = q.get_handle().queue
    rounds = _checkpoint_after_core_commits(system, queue, monkeypatch)
    for data in (b"a", b"b", b"c"):
        q.put(data, pymqi.MD(**PERSISTENT), pymqi.PMO(Options=SYNC_PUT))
    conn.commit()
    assert rounds == [3]
    assert _recovered_data(system) == [b"a", b"b", b"before", b"c"]
    conn.disconnect()


def test_a_checkpoint_amid_a_commit_of_gets_does_not_bring_them_back(system, monkeypatch):
    """Gets committed with a checkpoint between the core commit and the bookkeeping stay
    got: a restart brings back only the message nobody got."""
    conn = pymqi.connect("ORDERQM")
    q = pymqi.Queue(conn, "APP.Q", IO)
    for data in (b"x", b"y", b"z"):
        q.put(data, pymqi.MD(**PERSISTENT))
    queue = q.get_handle().queue
    rounds = _checkpoint_after_core_commits(system, queue, monkeypatch)
    got = [q.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET)) for _ in range(2)]
    conn.commit()
    assert got == [b"x", b"y"] and rounds == [2]
    assert _recovered_data(system) == [b"z"]
    conn.disconnect()
