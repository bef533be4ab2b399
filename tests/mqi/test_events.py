"""The queue manager's event bus as MQI calls drive it (tpfemu/qmgr/events.py).

The contract (events.py module doc): every action others may record or react to is an
Event — put, get, browse, expire, commit, backout, define/alter/delete of objects — with
the queue it concerns and fields such as MsgId, CorrelId, priority, persistence, length
and unit of work; subscribers run after the change, on the caller's thread; a subscriber
that raises is reported once to the console and removed, and the MQI call still succeeds.
The journal subscribes to all of them, so every put and get must identify its message.
"""

from __future__ import annotations

import time

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager, now_us


@pytest.fixture
def events(qmgr):
    """Every event of ``qmgr`` from now on, in order."""
    seen: list = []

    def record(event):
        seen.append(event)

    qmgr.events.subscribe(record)
    yield seen
    qmgr.events.unsubscribe(record)


def of_kind(events: list, kind: str) -> list:
    """The events of one kind."""
    return [e for e in events if e.kind == kind]


# -- put and get ------------------------------------------------------------------------------


def test_put_with_md_event_fields(qmgr, qm, local_queue, events):
    """A put emits 'put' on the queue with the message's MsgId, priority, length and no UOW."""
    md = pymqi.MD(Priority=5, CorrelId=b"C".ljust(24, b"\0"))
    before = now_us()
    pymqi.Queue(qm, local_queue).put(b"hello", md)
    (event,) = of_kind(events, "put")
    assert event.queue == local_queue
    assert event.qmgr == qmgr.name
    assert event.fields["msg_id"] == bytes(md.MsgId)
    assert event.fields["correl_id"] == b"C".ljust(24, b"\0")
    assert event.fields["priority"] == 5
    assert event.fields["length"] == 5
    assert event.fields["uow"] == 0
    assert before <= event.time_us <= now_us()


def test_plain_put_event_identifies_message(qm, local_queue, events):
    """A plain put (no MD) also emits 'put' carrying the MsgId the message got and uow 0."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    q.put(b"one")
    q.put(b"two")  # a second plain put on the same handle
    q.close()
    puts = of_kind(events, "put")
    assert [e.fields["length"] for e in puts] == [3, 3]
    assert all(e.fields.get("priority") == 0 for e in puts)
    ids = [e.fields.get("msg_id") for e in puts]
    assert all(isinstance(i, bytes) and len(i) == 24 and i != bytes(24) for i in ids)
    assert ids[0] != ids[1]
    assert all(e.fields.get("uow") == 0 for e in puts)


def test_get_event_fields_match_the_message(qm, local_queue, events):
    """A get emits 'get' with the MsgId, priority and length of the message it took."""
    put_md = pymqi.MD(Priority=3)
    pymqi.Queue(qm, local_queue).put(b"abcdef", put_md)
    got_md = pymqi.MD()
    pymqi.Queue(qm, local_queue).get(None, got_md)
    (event,) = of_kind(events, "get")
    assert event.queue == local_queue
    assert event.fields["msg_id"] == bytes(put_md.MsgId)
    assert event.fields["priority"] == 3
    assert event.fields["length"] == 6
    assert event.fields["uow"] == 0


def test_plain_get_event_identifies_message(qm, local_queue, events):
    """A plain get (no MD) emits 'get' carrying the MsgId of the message it removed."""
    md = pymqi.MD()
    pymqi.Queue(qm, local_queue).put(b"abc", md)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INPUT_SHARED)
    assert q.get() == b"abc"
    q.close()
    (event,) = of_kind(events, "get")
    assert event.fields["length"] == 3
    assert event.fields.get("msg_id") == bytes(md.MsgId)


def test_browse_emits_browse_not_get(qm, local_queue, events):
    """A browse emits 'browse' (the message stays), not 'get'."""
    qm.put1(local_queue, b"look")
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_BROWSE)
    q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    q.close()
    assert len(of_kind(events, "browse")) == 1
    assert of_kind(events, "get") == []


def test_failed_put_emits_no_event(qmgr, qm, local_queue, events):
    """A put refused (PUT DISABLED) emits no 'put' event."""
    qmgr.catalog.alter("QL", local_queue, put="DISABLED")
    with pytest.raises(pymqi.MQMIError):
        qm.put1(local_queue, b"x")
    assert of_kind(events, "put") == []


# -- units of work ------------------------------------------------------------------------------


def test_syncpoint_put_and_commit_events_share_uow(qm, local_queue, events):
    """Syncpoint puts carry a nonzero uow; commit emits 'commit' with that uow and the count."""
    q = pymqi.Queue(qm, local_queue)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q.put(b"a", pymqi.MD(), pmo)
    q.put(b"b", pymqi.MD(), pmo)
    qm.commit()
    puts = of_kind(events, "put")
    uows = {e.fields["uow"] for e in puts}
    assert len(uows) == 1 and 0 not in uows
    (commit,) = of_kind(events, "commit")
    assert commit.queue == local_queue
    assert commit.fields["uow"] == uows.pop()
    assert commit.fields["count"] == 2
    assert events.index(commit) > events.index(puts[-1])


def test_backout_event_for_syncpoint_put(qm, local_queue, events):
    """Backing out a syncpoint put emits 'backout' with its uow and count."""
    pymqi.Queue(qm, local_queue).put(b"a", pymqi.MD(),
                                     pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.backout()
    (put,) = of_kind(events, "put")
    (backout,) = of_kind(events, "backout")
    assert backout.queue == local_queue
    assert backout.fields["uow"] == put.fields["uow"] != 0
    assert backout.fields["count"] == 1
    assert of_kind(events, "commit") == []


def test_syncpoint_get_event_and_backout(qm, local_queue, events):
    """A syncpoint get carries its uow; backing it out emits 'backout' for that uow."""
    qm.put1(local_queue, b"a")
    pymqi.Queue(qm, local_queue).get(None, pymqi.MD(),
                                     pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    qm.backout()
    (get,) = of_kind(events, "get")
    (backout,) = of_kind(events, "backout")
    assert get.fields["uow"] != 0
    assert backout.fields["uow"] == get.fields["uow"]


def test_empty_commit_emits_nothing(qm, local_queue, events):
    """A commit with no work in the unit of work emits no 'commit' event."""
    qm.commit()
    assert of_kind(events, "commit") == []


# -- expiry -------------------------------------------------------------------------------------


def test_expired_message_emits_expire_event(qm, local_queue, events):
    """A message discarded as expired emits 'expire' with its MsgId, priority and length."""
    md = pymqi.MD(Expiry=1, Priority=2)  # a tenth of a second
    pymqi.Queue(qm, local_queue).put(b"short-lived", md)
    time.sleep(0.25)
    with pytest.raises(pymqi.MQMIError) as info:
        pymqi.Queue(qm, local_queue).get(None, pymqi.MD())
    assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    (expire,) = of_kind(events, "expire")
    assert expire.queue == local_queue
    assert expire.fields["msg_id"] == bytes(md.MsgId)
    assert expire.fields["priority"] == 2
    assert expire.fields["length"] == len(b"short-lived")
    assert of_kind(events, "get") == []


# -- definitions --------------------------------------------------------------------------------


@pytest.mark.parametrize(("type_name", "attrs", "change"), [
    ("QL", {}, {"maxdepth": 10}),
    ("QA", {"targq": "APP.Q"}, {"put": "DISABLED"}),
    ("QR", {"rname": "T", "rqmname": "OTHERQM"}, {"xmitq": "XQ"}),
    ("PROC", {"applid": "QZZ1"}, {"envdata": "E"}),
])
def test_define_alter_delete_events(qmgr, local_queue, events, type_name, attrs, change):
    """DEFINE, ALTER and DELETE of each object type emit define/alter/delete naming the object."""
    qmgr.catalog.define(type_name, "OBJ.X", **attrs)
    qmgr.catalog.alter(type_name, "OBJ.X", **change)
    qmgr.catalog.delete(type_name, "OBJ.X")
    mine = [(e.kind, e.queue) for e in events if e.queue == "OBJ.X"]
    assert mine == [("define", "OBJ.X"), ("alter", "OBJ.X"), ("delete", "OBJ.X")]
    assert all(e.fields.get("type") == type_name for e in events if e.queue == "OBJ.X")


def test_mqset_emits_alter_event(qm, local_queue, events):
    """An MQSET that changes a queue emits 'alter' for that queue."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    q.close()
    assert [(e.kind, e.queue) for e in events] == [("alter", local_queue)]


# -- subscribers --------------------------------------------------------------------------------


def test_raising_subscriber_is_removed_and_reported_call_succeeds():
    """A subscriber that raises is removed and reported to the console; the put succeeds."""
    console: list[str] = []
    qmgr = QueueManager("QMEVT", console=console.append).start()
    try:
        qmgr.catalog.define("MQP")
        qmgr.catalog.define("QL", "APP.Q")
        good: list = []
        calls = []

        def broken(event):
            calls.append(event)
            raise RuntimeError("subscriber bug")

        qmgr.events.subscribe(broken)
        qmgr.events.subscribe(good.append)
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"first", pymqi.MD())
        q.put(b"second", pymqi.MD())
        assert q.get() == b"first"
        assert len(calls) == 1  # removed after its first failure
        assert [e.kind for e in good] == ["put", "put", "get"]
        assert len(console) == 1
        assert "subscriber bug" in console[0] and "removed" in console[0]
        conn.disconnect()
    finally:
        qmgr.stop()


def test_raising_subscriber_does_not_break_commit(qmgr, qm, local_queue):
    """A subscriber raising on 'commit' does not stop the commit from taking effect."""
    def broken(event):
        if event.kind == "commit":
            raise ValueError("no")

    qmgr.events.subscribe(broken)
    pymqi.Queue(qm, local_queue).put(b"a", pymqi.MD(),
                                     pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.commit()
    other = pymqi.connect(qmgr.name)
    assert pymqi.Queue(other, local_queue).get() == b"a"
    other.disconnect()


def test_unsubscribed_function_receives_nothing(qmgr, qm, local_queue):
    """After unsubscribe(fn) a plain function receives no more events."""
    seen: list = []

    def record(event):
        seen.append(event)

    qmgr.events.subscribe(record)
    qm.put1(local_queue, b"a")
    qmgr.events.unsubscribe(record)
    qm.put1(local_queue, b"b")
    assert [e.kind for e in seen] == ["put"]


def test_unsubscribe_bound_method(qmgr, qm, local_queue):
    """A bound method (list.append) subscribed can be unsubscribed by the same expression."""
    seen: list = []
    qmgr.events.subscribe(seen.append)
    qm.put1(local_queue, b"a")
    qmgr.events.unsubscribe(seen.append)  # a new but equal bound-method object
    qm.put1(local_queue, b"b")
    assert [e.kind for e in seen] == ["put"]


def test_subscriber_runs_after_the_change(qmgr, qm, local_queue):
    """When a 'put' subscriber runs the message is already on the queue (change made first)."""
    depths: list[int] = []

    def on_event(event):
        if event.kind == "put":
            depths.append(qmgr.queues[local_queue].core.depth)

    qmgr.events.subscribe(on_event)
    qm.put1(local_queue, b"a", pymqi.MD())
    pymqi.Queue(qm, local_queue).put(b"b")
    assert depths == [1, 2]
