"""ZMQSC SWQ: swinging a transmission queue, with messages in flight."""

from __future__ import annotations

import threading
import time

import pytest
from console_helpers import ids, ok, refused

import tpfemu.mqi as pymqi
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC
from tpfemu.qmgr import swq
from tpfemu.qmgr.resolve import resolve


@pytest.fixture
def swing(mqp):
    """Two transmission queues XQ.OLD and XQ.NEW, and QR-REMOTE sending through XQ.OLD."""
    ok(mqp, "ZMQSC DEF QL-XQ.OLD USAGE-XMITQ")
    ok(mqp, "ZMQSC DEF QL-XQ.NEW USAGE-XMITQ")
    ok(mqp, "ZMQSC DEF QR-REMOTE RNAME-APP.IN RQMNAME-QM2 XMITQ-XQ.OLD")
    return mqp


def depth(system, name: str) -> int:
    """CURDEPTH of a local queue."""
    return system.qmgr.queues[name].core.depth


def drain(system, name: str) -> list[tuple[bytes, pymqi.MD]]:
    """Get every message of a queue, with its MD."""
    qm = pymqi.connect(system.qmgr.name)
    queue = pymqi.Queue(qm, name, CMQC.MQOO_INPUT_SHARED)
    got = []
    while True:
        md = pymqi.MD()
        try:
            data = queue.get(None, md)
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
        got.append((data, md))
    queue.close()
    qm.disconnect()
    return got


def wait_for(condition, timeout: float = 5.0) -> None:
    """Wait until ``condition()`` is true."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_swing_moves_messages_in_order_with_descriptors(swing):
    """Every message moves to the new queue in order, keeping MsgId, CorrelId, priority,
    persistence, expiry and context."""
    qm = pymqi.connect(swing.qmgr.name)
    remote = pymqi.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    sent = []
    for i in range(6):
        md = pymqi.MD(Priority=i % 3, Persistence=i % 2, CorrelId=b"C%023d" % i,
                      ReplyToQ=b"REPLY.Q", Expiry=600_000 if i == 2 else CMQC.MQEI_UNLIMITED)
        remote.put(b"msg %d" % i, md)
        sent.append(md)
    remote.close()
    qm.disconnect()
    response = ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    assert ids(response) == [m.SWUNG.id] and "6 MESSAGE(S) MOVED" in response
    assert depth(swing, "XQ.OLD") == 0 and depth(swing, "XQ.NEW") == 6
    got = drain(swing, "XQ.NEW")
    order = sorted(range(6), key=lambda i: (-(i % 3), i))  # priority order, FIFO within
    assert [bytes(md.MsgId) for _, md in got] == [bytes(sent[i].MsgId) for i in order]
    for (data, md), i in zip(got, order, strict=True):
        assert data.endswith(b"msg %d" % i)
        assert md.Priority == i % 3 and md.Persistence == i % 2
        assert bytes(md.CorrelId) == b"C%023d" % i
        assert md.ReplyToQ.rstrip(b" \0") == b"REPLY.Q"
        assert (md.Expiry == CMQC.MQEI_UNLIMITED) == (i != 2)


def test_new_opens_put_to_the_new_queue(swing):
    """After the swing, opening the remote queue resolves to the new transmission queue,
    also through a queue-manager name or a chain of swings; ending it restores the old."""
    ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    catalog, name = swing.qmgr.catalog, swing.qmgr.name
    assert resolve(catalog, name, "REMOTE").local.name == "XQ.NEW"
    ok(swing, "ZMQSC DEF QL-QM3 USAGE-XMITQ")
    ok(swing, "ZMQSC DEF QL-XQ.THIRD USAGE-XMITQ")
    ok(swing, "ZMQSC SWQ QL-QM3 QL-XQ.OLD")
    assert resolve(catalog, name, "ANY.Q", "QM3").local.name == "XQ.NEW"  # QM3 -> OLD -> NEW
    ok(swing, "ZMQSC SWQ QL-XQ.NEW QL-XQ.THIRD")
    assert resolve(catalog, name, "REMOTE").local.name == "XQ.THIRD"
    assert ids(ok(swing, "ZMQSC SWQ QL-XQ.OLD")) == [m.SWQ_ENDED.id]
    assert resolve(catalog, name, "REMOTE").local.name == "XQ.OLD"
    qm = pymqi.connect(name)
    pymqi.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT).put(b"after")
    qm.disconnect()
    assert depth(swing, "XQ.OLD") == 1


def test_swinging_back_makes_no_loop(swing):
    """Swinging back (NEW to OLD after OLD to NEW) ends the first swing; puts reach OLD."""
    ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    ok(swing, "ZMQSC SWQ QL-XQ.NEW QL-XQ.OLD")
    assert swing.qmgr.catalog.xmitq_routes == {"XQ.NEW": "XQ.OLD"}
    assert resolve(swing.qmgr.catalog, swing.qmgr.name, "REMOTE").local.name == "XQ.OLD"


def test_messages_put_during_the_move_are_neither_lost_nor_duplicated(swing):
    """Producers putting while the swing runs — through a handle opened before it, and
    through new opens — lose and duplicate nothing: every message ends on the new queue."""
    qm = pymqi.connect(swing.qmgr.name)
    remote = pymqi.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    for i in range(2000):
        remote.put(b"before %d" % i)
    started = threading.Event()
    sent: list[bytes] = []

    def produce() -> None:
        own = pymqi.connect(swing.qmgr.name)
        held = pymqi.Queue(own, "REMOTE", CMQC.MQOO_OUTPUT)  # opened before the swing
        started.set()
        for i in range(1500):
            md = pymqi.MD()
            if i % 2:
                held.put(b"held %d" % i, md)
            else:
                fresh = pymqi.Queue(own, "REMOTE", CMQC.MQOO_OUTPUT)
                fresh.put(b"fresh %d" % i, md)
                fresh.close()
            sent.append(bytes(md.MsgId))
        held.close()
        own.disconnect()

    producer = threading.Thread(target=produce)
    producer.start()
    started.wait()
    response = ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    assert ids(response)[0] in (m.SWUNG.id, m.SWUNG_PART.id)
    producer.join()
    wait_for(lambda: depth(swing, "XQ.OLD") == 0)  # the forwarder moves late arrivals
    remote.close()
    qm.disconnect()
    got = drain(swing, "XQ.NEW")
    msg_ids = [bytes(md.MsgId) for _, md in got]
    assert len(msg_ids) == len(set(msg_ids)) == 3500
    assert set(sent) <= set(msg_ids)
    befores = [int(data.split()[-1]) for data, _ in got if b"before" in data]
    assert befores == sorted(befores)  # the moved ones keep their order


def test_uncommitted_messages_move_when_committed(swing):
    """A message put in an open unit of work stays (a W says so) and moves on commit."""
    qm = pymqi.connect(swing.qmgr.name)
    remote = pymqi.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    remote.put(b"committed")
    remote.put(b"pending", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    response = ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    assert ids(response) == [m.SWUNG_PART.id] and "1 LEFT" in response
    assert depth(swing, "XQ.NEW") == 1
    qm.commit()
    # (the mover's put to XQ.NEW can be seen before its get from XQ.OLD: wait for both)
    wait_for(lambda: depth(swing, "XQ.NEW") == 2 and depth(swing, "XQ.OLD") == 0)
    remote.close()
    qm.disconnect()


def test_forward_without_a_system_thread(mqp):
    """forward() moves what reached a swung queue; it is what the forwarder runs."""
    ok(mqp, "ZMQSC DEF QL-A USAGE-XMITQ")
    ok(mqp, "ZMQSC DEF QL-B USAGE-XMITQ")
    qmgr = mqp.qmgr
    result = swq.swing(qmgr, "A", "B")
    assert (result.moved, result.left) == (0, 0)
    for service in list(mqp.services):  # stop the thread: this test moves by hand
        if isinstance(service, swq.Forwarder):
            service.stop()
    qmgr.queues["A"].core.put(b"late")
    assert swq.forward(qmgr) == 1
    assert depth(mqp, "B") == 1


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("SWQ QL-NONE QL-XQ.NEW", ("NONE", "NOT DEFINED")),
        ("SWQ QL-XQ.OLD QL-NONE", ("NONE", "NOT DEFINED")),
        ("SWQ QL-XQ.OLD QL-XQ.OLD", ("BOTH",)),
        ("SWQ QL-XQ.OLD QL-NORMAL.Q", ("NORMAL.Q", "USAGE")),
        ("SWQ QL-XQ.OLD QL-REMOTE", ("REMOTE", "QR")),
        ("SWQ QL-XQ.OLD QL-XQ.NEW QL-XQ.X", ("QL-XQ.X",)),
        ("SWQ QL-XQ.OLD XMITQ-XQ.NEW", ("XMITQ",)),
        ("SWQ QL-XQ.OLD", ("NOT SWUNG",)),
    ],
)
def test_refused_swings_change_nothing(swing, command, words):
    """A refused swing names what is wrong and moves or routes nothing."""
    ok(swing, "ZMQSC DEF QL-NORMAL.Q")
    swing.qmgr.queues["XQ.OLD"].core.put(b"stays")
    refused(swing, f"ZMQSC {command}", *words)
    assert depth(swing, "XQ.OLD") == 1 and depth(swing, "XQ.NEW") == 0


def test_target_put_disabled_or_full_is_refused(swing):
    """The target must accept puts and have room for the source's messages."""
    for _ in range(3):
        swing.qmgr.queues["XQ.OLD"].core.put(b"x")
    ok(swing, "ZMQSC ALT QL-XQ.NEW PUT-DISABLED")
    refused(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW", "PUT-DISABLED")
    ok(swing, "ZMQSC ALT QL-XQ.NEW PUT-ENABLED MAXDEPTH-2")
    refused(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW", "MAXDEPTH", "ROOM FOR 2")
    assert depth(swing, "XQ.OLD") == 3


def test_swung_queues_cannot_be_deleted_or_change_usage(swing):
    """Queues in a swing cannot be deleted or stop being transmission queues."""
    ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    refused(swing, "ZMQSC DEL QL-XQ.OLD", "SWUNG")
    refused(swing, "ZMQSC DEL QL-XQ.NEW", "SWUNG")
    refused(swing, "ZMQSC ALT QL-XQ.NEW USAGE-NORMAL", "USAGE")
    refused(swing, "ZMQSC DEF QL-XQ.NEW REPLACE", "USAGE")
    ok(swing, "ZMQSC ALT QL-XQ.NEW USAGE-XMITQ DESCR-'still a transmission queue'")
    ok(swing, "ZMQSC SWQ QL-XQ.OLD")
    ok(swing, "ZMQSC DEL QL-XQ.OLD")


def test_display_shows_the_swing(swing):
    """DISPLAY QL shows where a queue is swung to and which queues are swung to it."""
    ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    assert "SWUNGTO   XQ.NEW" in ok(swing, "ZMQSC DISP QL-XQ.OLD")
    assert "SWUNGFROM XQ.OLD" in ok(swing, "ZMQSC DISP QL-XQ.NEW")
    assert "SWQ" in ok(swing, "ZMQSC DISP QMGR")


def test_messages_moved_by_swq_fire_no_trigger_on_the_target(swing):
    """SWQ moves messages onto a triggered target without a trigger message; a message
    put there afterwards does trigger (docs/deviations.md)."""
    ok(swing, "ZMQSC DEF QL-INIT.Q")
    ok(swing, "ZMQSC ALT QL-XQ.NEW TRIGGER TRIGTYPE-EVERY INITQ-INIT.Q")
    qm = pymqi.connect(swing.qmgr.name)
    monitor = pymqi.Queue(qm, "INIT.Q", CMQC.MQOO_INPUT_SHARED)  # a trigger monitor's open
    remote = pymqi.Queue(qm, "REMOTE", CMQC.MQOO_OUTPUT)
    for i in range(3):
        remote.put(b"msg %d" % i)
    remote.close()
    assert "3 MESSAGE(S) MOVED" in ok(swing, "ZMQSC SWQ QL-XQ.OLD QL-XQ.NEW")
    assert depth(swing, "XQ.NEW") == 3 and depth(swing, "INIT.Q") == 0
    pymqi.Queue(qm, "XQ.NEW", CMQC.MQOO_OUTPUT).put(b"direct")
    wait_for(lambda: depth(swing, "INIT.Q") == 1)
    monitor.close()
    qm.disconnect()
