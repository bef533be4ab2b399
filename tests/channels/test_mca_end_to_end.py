"""Sender and receiver channels between two Systems in one process, over real TCP sockets
(the receiver reached through the Internet daemon's MQS server and CMQL)."""

from __future__ import annotations

import time

import pytest
from mca_helpers import (
    depth,
    drain,
    get,
    ok,
    put,
    receiving,
    sending,
    start,
    status,
    unique,
    wait_for,
)

from tpfemu import mqi
from tpfemu.mqi import CMQC

PERSISTENT, NONPERSISTENT = CMQC.MQPER_PERSISTENT, CMQC.MQPER_NOT_PERSISTENT


@pytest.fixture
def pair():
    """Systems A and B, channel A.TO.B from A to B and B.TO.A back, both running; REMOTE.Q
    on A is LOCAL.Q on B, REPLY.Q on A is reached from B through the reply-to rule."""
    qa, qb = unique("QA"), unique("QB")
    a, b = start(qa), start(qb)
    try:
        port_b = receiving(b, ("A.TO.B",))
        port_a = receiving(a, ("B.TO.A",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        ok(a, "ZMQSC DEF QL-REPLY.Q")
        sending(a, "A.TO.B", port_b, qb)  # the xmitq named like the qmgr it leads to
        sending(b, "B.TO.A", port_a, qa)
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{qb} XMITQ-{qb}")
        ok(a, "ZMQSC START CHL-A.TO.B")
        ok(b, "ZMQSC START CHL-B.TO.A")
        wait_for(lambda: status(a, "A.TO.B") == "RUNNING" and status(b, "B.TO.A") == "RUNNING",
                 what="both senders RUNNING")
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_put_to_remote_queue_arrives_on_local_queue(pair):
    """An MQPUT to REMOTE.Q on A can be taken with MQGET from LOCAL.Q on B."""
    a, b = pair
    put(a.name, "REMOTE.Q", b"hello B")
    data, _ = get(b.name, "LOCAL.Q")
    assert data == b"hello B"
    # gone from the transmission queue once the receiver's STATUS confirmed it
    wait_for(lambda: depth(a, b.name) == 0, what="the xmitq emptied")


def test_mqmd_fields_arrive_as_sent(pair):
    """MsgId, CorrelId, Priority, Persistence, ReplyToQ/QMgr and context arrive as sent."""
    a, b = pair
    for persistence in (PERSISTENT, NONPERSISTENT):
        md = put(a.name, "REMOTE.Q", b"fields", MsgId=b"M" * 24, CorrelId=b"C" * 24,
                 Priority=7, Persistence=persistence, MsgType=CMQC.MQMT_REQUEST,
                 ReplyToQ=b"REPLY.Q", Format=CMQC.MQFMT_STRING, Report=CMQC.MQRO_PASS_MSG_ID)
        data, out = get(b.name, "LOCAL.Q")
        assert data == b"fields"
        assert (out.MsgId, out.CorrelId, out.Priority, out.Persistence) == (
            b"M" * 24, b"C" * 24, 7, persistence)
        assert out.MsgType == CMQC.MQMT_REQUEST and out.Format == CMQC.MQFMT_STRING
        assert out.ReplyToQ.rstrip() == b"REPLY.Q"
        assert out.ReplyToQMgr.rstrip() == a.name.encode()  # the reply-to rule
        assert out.PutApplName == md.PutApplName and out.PutDate == md.PutDate
        assert out.PutTime == md.PutTime and out.Report == CMQC.MQRO_PASS_MSG_ID


def test_expiry_is_reduced_by_the_time_on_the_way(pair):
    """A message's Expiry arrives reduced by the time it spent before the channel sent it."""
    a, b = pair
    ok(a, "ZMQSC STOP CHL-A.TO.B")
    wait_for(lambda: status(a, "A.TO.B") == "STOPPED", what="A.TO.B stopped")
    put(a.name, "REMOTE.Q", b"ages", Expiry=600)  # 60 seconds

    time.sleep(1.2)
    ok(a, "ZMQSC START CHL-A.TO.B")
    _, out = get(b.name, "LOCAL.Q")
    assert 400 < out.Expiry <= 589  # at least 1.1 s of the 60 spent on A's xmitq


def test_request_and_reply_both_directions(pair):
    """A request from A is answered by B to its ReplyToQ at its ReplyToQMgr, over B.TO.A."""
    a, b = pair
    request = put(a.name, "REMOTE.Q", b"ping", MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q",
                  Persistence=PERSISTENT)
    data, md = get(b.name, "LOCAL.Q")
    put(b.name, md.ReplyToQ.decode().strip(), b"pong:" + data,
        md.ReplyToQMgr.decode().strip(), MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId)
    reply, out = get(a.name, "REPLY.Q")
    assert reply == b"pong:ping"
    assert out.CorrelId == request.MsgId and out.MsgType == CMQC.MQMT_REPLY


def test_batches_and_display(pair):
    """DISP CHL shows RUNNING, the sequence number, messages, batches and bytes."""
    a, b = pair
    for i in range(120):
        put(a.name, "REMOTE.Q", b"%03d" % i, Persistence=PERSISTENT if i % 2 else NONPERSISTENT)
    got = drain(b.name, "LOCAL.Q", wait=5.0)
    deadline = time.monotonic() + 120
    while len(got) < 120 and time.monotonic() < deadline:  # (a lost message: fail, not hang)
        got += drain(b.name, "LOCAL.Q", wait=5.0)
    assert [d for d, _ in got] == [b"%03d" % i for i in range(120)]  # in order, once each
    sender, receiver = a.channels.status("A.TO.B"), b.channels.status("A.TO.B")
    wait_for(lambda: sender.seq == 120 and not sender.indoubt, what="the last batch confirmed")
    shown = a.console("ZMQSC DISP CHL-A.TO.B").split()
    assert shown[shown.index("STATUS") + 1] == "RUNNING"
    assert shown[shown.index("INDOUBT") + 1] == "NO" and shown[shown.index("SEQNUM") + 1] == "120"
    assert sender.msgs == receiver.msgs == 120 and sender.seq == receiver.seq == 120
    assert sender.batches >= 3 and sender.luwid == receiver.luwid
    assert receiver.nbytes == 360


def test_stop_quiesce_then_start_again(pair):
    """STOP CHL ends the sender and the receiver's session; START resumes where it was."""
    a, b = pair
    put(a.name, "REMOTE.Q", b"one")
    assert get(b.name, "LOCAL.Q")[0] == b"one"
    ok(a, "ZMQSC STOP CHL-A.TO.B MODE-QUIESCE")
    wait_for(lambda: status(a, "A.TO.B") == "STOPPED" and status(b, "A.TO.B") == "INACTIVE",
             what="stopped at both ends")
    put(a.name, "REMOTE.Q", b"two")
    assert depth(a, b.name) == 1  # waits on the transmission queue
    ok(a, "ZMQSC START CHL-A.TO.B")
    assert get(b.name, "LOCAL.Q")[0] == b"two"
    wait_for(lambda: a.channels.status("A.TO.B").seq == 2, what="the batch confirmed")
    assert b.channels.status("A.TO.B").seq == 2


def test_delete_of_a_running_channel_is_refused(pair):
    """DEL CHL of a running channel is refused; once stopped it can be deleted."""
    a, _ = pair
    response = a.console("ZMQSC DEL CHL-A.TO.B")
    assert "MQSC0062E" in response and "RUNNING" in response
    ok(a, "ZMQSC STOP CHL-A.TO.B MODE-FORCE")
    wait_for(lambda: not a.channels.is_running("A.TO.B"), what="the sender's end")
    ok(a, "ZMQSC DEL CHL-A.TO.B")


def test_unknown_destination_goes_to_the_dlq_with_a_dlh(pair):
    """A message for a queue B does not have is dead-lettered with an MQDLH (2085)."""
    a, b = pair
    put(a.name, "NO.SUCH.Q", b"lost?", b.name, Persistence=PERSISTENT)
    data, md = get(b.name, "DEAD.LETTER.QUEUE")
    dlh = mqi.DLH().unpack(data[:172])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip() == b"NO.SUCH.Q" and dlh.DestQMgrName.rstrip() == b.name.encode()
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER and data[172:] == b"lost?"
    assert status(a, "A.TO.B") == "RUNNING"


def test_no_dead_letter_queue_stops_the_channel(pair):
    """With no dead-letter queue an undeliverable message stops the channel, as IBM's does;
    the message stays on the sender's transmission queue."""
    a, b = pair
    ok(b, "ZMQSC ALT QL-DEAD.LETTER.QUEUE PUT-DISABLED")
    put(a.name, "NO.SUCH.Q", b"stuck", b.name, Persistence=PERSISTENT)
    wait_for(lambda: status(b, "A.TO.B") == "STOPPED", what="the receiver STOPPED")
    assert "DEAD-LETTER" in b.channels.status("A.TO.B").reason
    wait_for(lambda: status(a, "A.TO.B") in ("STOPPED", "RETRYING"), what="sender stops")
    assert depth(a, b.name) == 1
    assert any("CHNL0111E" in line and "CAN_NOT_STORE" in line for line in b.log)


def test_middle_hop_to_another_transmission_queue(pair):
    """A message for a third queue manager is put on B's transmission queue named like it,
    with a new MQXQH naming the final destination."""
    a, b = pair
    ok(b, "ZMQSC DEF QL-QMC USAGE-XMITQ")
    ok(a, f"ZMQSC DEF QR-QMC RQMNAME-QMC XMITQ-{b.name}")  # A routes QMC through B
    put(a.name, "FAR.Q", b"onwards", "QMC", Persistence=PERSISTENT)
    data, _ = get(b.name, "QMC")
    xqh = mqi.XQH().unpack(data[:428])
    assert (xqh.RemoteQName.rstrip(), xqh.RemoteQMgrName.rstrip()) == (b"FAR.Q", b"QMC")
    assert data[428:] == b"onwards"


def test_queue_manager_alias_on_the_receiver(pair):
    """A queue-manager alias on B sends messages for its name to a local queue there."""
    a, b = pair
    ok(b, f"ZMQSC DEF QR-ALIAS.QM RQMNAME-{b.name}")
    ok(a, f"ZMQSC DEF QR-ALIAS.QM RQMNAME-ALIAS.QM XMITQ-{b.name}")
    put(a.name, "LOCAL.Q", b"via alias", "ALIAS.QM")
    assert get(b.name, "LOCAL.Q")[0] == b"via alias"


def test_swung_transmission_queue_sends_on_the_targets_channel(pair):
    """After SWQ, messages for the swung queue go on the target's channel."""
    a, b = pair
    ok(a, "ZMQSC DEF QL-XQ.OTHER USAGE-XMITQ")
    ok(a, f"ZMQSC DEF QR-OTHER.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ.OTHER")
    ok(a, f"ZMQSC SWQ QL-XQ.OTHER QL-{b.name}")
    put(a.name, "OTHER.Q", b"swung")
    assert get(b.name, "LOCAL.Q")[0] == b"swung"


def test_expiration_report_travels_back_through_reply_to_qmgr(pair):
    """A message that expires on B is reported to its ReplyToQ at its ReplyToQMgr (A),
    over the channel back; the report carries Feedback MQFB_EXPIRATION."""
    a, b = pair
    md = put(a.name, "REMOTE.Q", b"short-lived", Expiry=3, ReplyToQ=b"REPLY.Q",
             Report=CMQC.MQRO_EXPIRATION)
    wait_for(lambda: depth(b, "LOCAL.Q") == 1, what="arrived on B")
    time.sleep(0.4)
    assert b.qmgr.scan_expired("LOCAL.Q") == 1
    _, report = get(a.name, "REPLY.Q")
    assert report.MsgType == CMQC.MQMT_REPORT and report.Feedback == CMQC.MQFB_EXPIRATION
    assert report.CorrelId == md.MsgId


def test_coa_and_cod_reports_travel_back_through_reply_to_qmgr(pair):
    """A message asking for COA and COD gets both from B, its destination's queue manager,
    over the channel back to its ReplyToQ on A: the COA when the receiver puts it on its
    queue (with the batch), the COD when B's application gets it; none while it waits on
    A's transmission queue."""
    a, b = pair
    md = put(a.name, "REMOTE.Q", b"confirm me", ReplyToQ=b"REPLY.Q",
             Report=CMQC.MQRO_COA | CMQC.MQRO_COD_WITH_DATA, Persistence=PERSISTENT)
    _, coa = get(a.name, "REPLY.Q")
    assert coa.MsgType == CMQC.MQMT_REPORT and coa.Feedback == CMQC.MQFB_COA
    assert coa.CorrelId == md.MsgId and coa.Persistence == PERSISTENT
    assert coa.ReplyToQMgr.decode().strip() == b.name
    assert get(b.name, "LOCAL.Q")[0] == b"confirm me"
    data, cod = get(a.name, "REPLY.Q")
    assert cod.Feedback == CMQC.MQFB_COD and cod.CorrelId == md.MsgId
    assert data == b"confirm me"
    assert drain(a.name, "REPLY.Q") == []


def test_a_message_without_mqxqh_is_dead_lettered_by_the_sender(pair):
    """A message put straight on the transmission queue without an MQXQH does not block
    the channel: the sender dead-letters it (MQFB_XMIT_Q_MSG_ERROR) and carries on."""
    a, b = pair
    put(a.name, b.name, b"no header")
    put(a.name, "REMOTE.Q", b"after it")
    assert get(b.name, "LOCAL.Q")[0] == b"after it"
    data, _ = get(a.name, "DEAD.LETTER.QUEUE")
    assert mqi.DLH().unpack(data[:172]).Reason == CMQC.MQFB_XMIT_Q_MSG_ERROR
