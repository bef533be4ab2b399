"""ZMQSC CLEAR QL refused while the queue is in use, as IBM refuses CLEAR QLOCAL.

The queue is in use while a handle has it open (with any options, directly or through an
alias; a browse lock belongs to such a handle) or while a unit of work holds a put or a
get of it. A refused CLEAR changes nothing: the same messages stay, in the same order.
Each case runs on a memory queue, on a queue of a system with a home (its CLEAR is
logged) and on a processor-shared (COMMON-YES) queue, whose messages are in the store.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from console_helpers import ids, ok, refused

import tpfemu.mqi as pymqi
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC
from tpfemu.system import System

_names = itertools.count(1)
SYNC_PUT = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
SYNC_GET = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_WAIT


@dataclass
class Target:
    """A running system, the local queue under test, and an MQI connection to it."""

    system: System
    name: str
    qm: pymqi.QueueManager

    def open(self, options: int, name: str | None = None) -> pymqi.Queue:
        return pymqi.Queue(self.qm, name or self.name, options)

    def put(self, *bodies: bytes) -> None:
        queue = self.open(CMQC.MQOO_OUTPUT)
        for body in bodies:
            queue.put(body)
        queue.close()

    def contents(self) -> list[bytes]:
        """Every message the queue offers a browse, in delivery order (changes nothing)."""
        queue = self.open(CMQC.MQOO_BROWSE)
        out = []
        options = CMQC.MQGMO_BROWSE_FIRST
        while True:
            try:
                out.append(queue.get(None, pymqi.MD(), pymqi.GMO(Options=options)))
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
            options = CMQC.MQGMO_BROWSE_NEXT
        queue.close()
        return out

    @property
    def depth(self) -> int:
        return self.system.qmgr.local_queue(self.name).core.depth


@pytest.fixture(params=["memory", "home", "shared"])
def target(request, tmp_path) -> Iterator[Target]:
    """A local queue Q with an alias QA-AL to it: in memory, logged, or processor-shared."""
    name = f"CLR{next(_names)}"
    if request.param == "memory":
        system = System.start(name=name)
    else:
        system = System.start(name, tmp_path, "B", journal="off")
    try:
        ok(system, "ZMQSC DEF MQP")
        ok(system, "ZMQSC DEF QL-Q" + (" COMMON-YES" if request.param == "shared" else ""))
        ok(system, "ZMQSC DEF QA-AL TARGQ-Q")
        assert system.qmgr.local_queue("Q").shared == (request.param == "shared")
        qm = pymqi.connect(name)
        yield Target(system, "Q", qm)
        qm.disconnect()
    finally:
        system.stop()


def refused_clear(t: Target, *words: str) -> str:
    """CLEAR QL-Q must be refused with MQSC0032E and leave every message where it was."""
    before, depth = t.contents(), t.depth
    response = refused(t.system, "ZMQSC CLEAR QL-Q", *words)
    assert ids(response) == [m.CLEAR_REFUSED.id]
    assert t.depth == depth and t.contents() == before
    return response


@pytest.mark.parametrize("options", [
    CMQC.MQOO_OUTPUT, CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_INPUT_EXCLUSIVE, CMQC.MQOO_BROWSE,
    CMQC.MQOO_INQUIRE,
])
def test_clear_refused_while_a_handle_has_the_queue_open(target, options):
    """CLEAR is refused while any handle has the queue open, whatever its open options."""
    target.put(b"a", b"b")
    queue = target.open(options)
    refused_clear(target, "OPEN BY 1 HANDLE", "MQRC_OBJECT_IN_USE")
    queue.close()
    assert "2 MESSAGE" in ok(target.system, "ZMQSC CLEAR QL-Q")
    assert target.depth == 0


def test_clear_refused_while_open_through_an_alias(target):
    """A handle open on an alias that resolves to the queue keeps CLEAR out too."""
    target.put(b"a")
    queue = target.open(CMQC.MQOO_OUTPUT, "AL")
    refused_clear(target, "OPEN BY 1 HANDLE")
    queue.close()
    ok(target.system, "ZMQSC CLEAR QL-Q")
    assert target.depth == 0


def test_clear_refused_while_a_put_is_uncommitted(target):
    """A put in a unit of work not yet ended refuses CLEAR even after its handle closed;
    once committed, CLEAR removes it with the rest."""
    target.put(b"committed")
    queue = target.open(CMQC.MQOO_OUTPUT)
    queue.put(b"in flight", pymqi.MD(), SYNC_PUT)
    queue.close()
    response = refused_clear(target, "1 UNCOMMITTED PUT", "MQRC_Q_NOT_EMPTY")
    assert "OPEN BY" not in response
    assert target.depth == 2
    target.qm.commit()
    assert "2 MESSAGE" in ok(target.system, "ZMQSC CLEAR QL-Q")
    assert target.depth == 0 and target.contents() == []


def test_clear_refused_while_a_get_is_uncommitted(target):
    """A get in a unit of work not yet ended refuses CLEAR; after a backout the message
    is back and CLEAR removes both."""
    target.put(b"first", b"second")
    queue = target.open(CMQC.MQOO_INPUT_SHARED)
    assert queue.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET)) == b"first"
    queue.close()
    refused_clear(target, "1 UNCOMMITTED GET", "MQRC_Q_NOT_EMPTY")
    target.qm.backout()
    assert target.contents() == [b"first", b"second"]
    assert "2 MESSAGE" in ok(target.system, "ZMQSC CLEAR QL-Q")
    assert target.depth == 0


def test_clear_refused_while_a_browse_cursor_holds_a_lock(target):
    """A message locked by a browse (MQGMO_LOCK) refuses CLEAR, naming the handle; the
    lock goes with the handle's close, and then CLEAR works."""
    target.put(b"locked", b"free")
    queue = target.open(CMQC.MQOO_BROWSE | CMQC.MQOO_INPUT_SHARED)
    lock = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_LOCK)
    assert queue.get(None, pymqi.MD(), lock) == b"locked"
    refused_clear(target, "OPEN BY 1 HANDLE", "BROWSE")
    queue.close()
    assert "2 MESSAGE" in ok(target.system, "ZMQSC CLEAR QL-Q")
    assert target.depth == 0


def test_clear_names_every_reason_at_once(target):
    """With a handle open and a put uncommitted, the refusal names both."""
    queue = target.open(CMQC.MQOO_OUTPUT)
    queue.put(b"in flight", pymqi.MD(), SYNC_PUT)
    refused_clear(target, "OPEN BY 1 HANDLE", "1 UNCOMMITTED PUT", "MQRC_OBJECT_IN_USE")
    queue.close()
    target.qm.backout()
    assert ids(ok(target.system, "ZMQSC CLEAR QL-Q")) == [m.CLEARED.id]


def test_a_refused_clear_logs_nothing(tmp_path):
    """A CLEAR refused on a logged queue removes no persistent message for good: after a
    restart the queue still holds it."""
    name = f"CLR{next(_names)}"
    system = System.start(name, tmp_path, "B", journal="off")
    try:
        ok(system, "ZMQSC DEF MQP")
        ok(system, "ZMQSC DEF QL-Q")
        qm = pymqi.connect(name)
        queue = pymqi.Queue(qm, "Q", CMQC.MQOO_OUTPUT)
        queue.put(b"kept", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        refused(system, "ZMQSC CLEAR QL-Q", "OPEN BY 1 HANDLE")
        queue.close()
        qm.disconnect()
    finally:
        system.stop()
    system = System.start(name, tmp_path, "B", journal="off")
    try:
        assert system.qmgr.local_queue("Q").core.depth == 1
    finally:
        system.stop()
