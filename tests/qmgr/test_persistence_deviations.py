"""Pins of docs/deviations.md, "Persistence and the complex": a system with a home, its
files, and the two moments where the recovery log and the queue disagree for a while."""

from __future__ import annotations

import itertools
import threading

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mqi import CMQC
from tpfemu.store import recovery_log

_names = itertools.count(1)
IN_OUT = CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT


@pytest.fixture
def system(tmp_path):
    """A system with a home, its profile and a local queue APP.Q."""
    name = f"PDV{next(_names)}"
    started = tpfemu.System.start(name, tmp_path, "B", journal="off")
    started.console("ZMQSC DEF MQP")
    started.console("ZMQSC DEF QL-APP.Q")
    yield started
    started.stop()


def test_where_things_live(system, tmp_path):
    """A home holds the processor's directory ``cpu-B`` (recovery log and checkpoints)
    and ``definitions`` (common to the complex)."""
    assert (tmp_path / "cpu-B").is_dir()
    assert (tmp_path / "definitions").is_dir()
    assert any((tmp_path / "cpu-B").iterdir())


def test_a_persistent_put_is_visible_before_it_is_durable(system, monkeypatch):
    """A persistent MQPUT outside syncpoint is on the queue, for a getter of the same
    processor, while the MQPUT itself still waits for its log record."""
    release, waiting = threading.Event(), threading.Event()
    real_wait = recovery_log.Ticket.wait

    def slow_wait(self, timeout=None):
        if threading.current_thread().name == "putter":  # not the checkpointer's waits
            waiting.set()
            assert release.wait(10)
        return real_wait(self, timeout)

    monkeypatch.setattr(recovery_log.Ticket, "wait", slow_wait)
    putter = pymqi.Queue(pymqi.connect(system.qmgr.name), "APP.Q", IN_OUT)
    returned = threading.Event()

    def put() -> None:
        putter.put(b"early", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        returned.set()

    thread = threading.Thread(target=put, name="putter")
    thread.start()
    try:
        assert waiting.wait(10)
        assert system.qmgr.local_queue("APP.Q").core.depth == 1
        assert not returned.is_set()  # the MQPUT has not returned yet
    finally:
        release.set()
        thread.join(10)
    assert returned.is_set()


def test_a_get_the_log_cannot_record_leaves_the_message_with_backout_count(system,
                                                                          monkeypatch):
    """An MQGET outside syncpoint whose Get record cannot be written fails 2192 and leaves
    the message on the queue, its backout count raised by one."""
    q = pymqi.Queue(pymqi.connect(system.qmgr.name), "APP.Q", IN_OUT)
    q.put(b"kept", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    real_wait = recovery_log.Ticket.wait
    me = threading.current_thread()

    def full(self, timeout=None):
        if threading.current_thread() is not me:  # the checkpointer's waits go on
            return real_wait(self, timeout)
        raise errors.error_for(cmqc.MQRC_STORAGE_MEDIUM_FULL, call="log")

    monkeypatch.setattr(recovery_log.Ticket, "wait", full)
    with pytest.raises(pymqi.MQMIError) as failed:
        q.get(None, pymqi.MD())
    assert failed.value.reason == CMQC.MQRC_STORAGE_MEDIUM_FULL
    monkeypatch.setattr(recovery_log.Ticket, "wait", real_wait)
    md = pymqi.MD()
    assert q.get(None, md) == b"kept" and md.BackoutCount == 1


def test_a_common_yes_queue_without_a_home_is_a_memory_queue():
    """Without a home, a COMMON YES queue is a memory queue of the one processor."""
    system = tpfemu.System.start(name=f"PDV{next(_names)}")
    try:
        system.console("ZMQSC DEF MQP")
        assert "MQSC0010I" in system.console("ZMQSC DEF QL-S.Q COMMON-YES")
        queue = system.qmgr.local_queue("S.Q")
        assert queue.definition.common == "YES" and not queue.shared
    finally:
        system.stop()
