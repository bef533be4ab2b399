"""What the message channel agents do with a message they cannot deliver, as IBM's do
("What happens when a message cannot be delivered?"; MQMD Report: MQRO_EXCEPTION*,
MQRO_DISCARD_MSG; MQRC_MSG_TOO_BIG_FOR_CHANNEL): dead-letter it, or discard it when it
asks for that, and send the exception report it asks for, Feedback the reason."""

from __future__ import annotations

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

PERSISTENT = CMQC.MQPER_PERSISTENT


def _pair(b_maxmsgl: int = 0):
    qa, qb = unique("QA"), unique("QB")
    a = start(qa)
    b = start(qb)
    if b_maxmsgl:
        ok(b, f"ZMQSC ALT MQP-{qb} MAXMSGL-{b_maxmsgl}")
    port_b = receiving(b, ("A.TO.B",))
    port_a = receiving(a, ("B.TO.A",))
    ok(b, "ZMQSC DEF QL-LOCAL.Q")
    ok(a, "ZMQSC DEF QL-REPLY.Q")
    sending(a, "A.TO.B", port_b, qb)
    sending(b, "B.TO.A", port_a, qa)
    ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{qb} XMITQ-{qb}")
    ok(a, "ZMQSC START CHL-A.TO.B")
    ok(b, "ZMQSC START CHL-B.TO.A")
    wait_for(lambda: status(a, "A.TO.B") == "RUNNING" and status(b, "B.TO.A") == "RUNNING",
             what="both senders RUNNING")
    return a, b


@pytest.fixture
def pair():
    a, b = _pair()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_exception_report_with_full_data_comes_back_and_the_message_is_dead_lettered(pair):
    """MQRO_EXCEPTION_WITH_FULL_DATA: B's receiver dead-letters the message for a queue B
    does not have and sends an exception report (Feedback 2085, the whole message, CorrelId
    the original MsgId) back to the ReplyToQ at A."""
    a, b = pair
    md = put(a.name, "NO.SUCH.Q", b"where to?", b.name, ReplyToQ=b"REPLY.Q",
             Report=CMQC.MQRO_EXCEPTION_WITH_FULL_DATA, Persistence=PERSISTENT)
    data, report = get(a.name, "REPLY.Q")
    assert report.MsgType == CMQC.MQMT_REPORT
    assert report.Feedback == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert report.CorrelId == md.MsgId and report.MsgId != md.MsgId
    assert report.ReplyToQMgr.decode().strip() == b.name
    assert data == b"where to?"
    dead, _ = get(b.name, "DEAD.LETTER.QUEUE")
    assert dead[172:] == b"where to?"
    assert status(a, "A.TO.B") == "RUNNING"


def test_exception_report_without_data_and_with_the_first_100_bytes(pair):
    """MQRO_EXCEPTION carries no data; MQRO_EXCEPTION_WITH_DATA the first 100 bytes."""
    a, b = pair
    body = bytes(range(200))
    put(a.name, "NO.SUCH.Q", body, b.name, ReplyToQ=b"REPLY.Q", Report=CMQC.MQRO_EXCEPTION)
    data, report = get(a.name, "REPLY.Q")
    assert report.Feedback == CMQC.MQRC_UNKNOWN_OBJECT_NAME and data == b""
    put(a.name, "NO.SUCH.Q", body, b.name, ReplyToQ=b"REPLY.Q",
        Report=CMQC.MQRO_EXCEPTION_WITH_DATA)
    data, report = get(a.name, "REPLY.Q")
    assert data == body[:100]
    assert len(drain(b.name, "DEAD.LETTER.QUEUE", wait=1.0)) == 2


def test_discard_msg_returns_the_message_instead_of_dead_lettering_it(pair):
    """MQRO_DISCARD_MSG with MQRO_EXCEPTION_WITH_FULL_DATA (IBM's return-to-sender): the
    message comes back in the exception report and nothing is dead-lettered; a put-
    inhibited queue gives its reason (2051)."""
    a, b = pair
    ok(b, "ZMQSC ALT QL-LOCAL.Q PUT-DISABLED")
    put(a.name, "REMOTE.Q", b"return me", ReplyToQ=b"REPLY.Q", Persistence=PERSISTENT,
        Report=CMQC.MQRO_EXCEPTION_WITH_FULL_DATA | CMQC.MQRO_DISCARD_MSG)
    data, report = get(a.name, "REPLY.Q")
    assert report.Feedback == CMQC.MQRC_PUT_INHIBITED and data == b"return me"
    put(a.name, "REMOTE.Q", b"just drop me", Report=CMQC.MQRO_DISCARD_MSG)
    put(a.name, "NO.SUCH.Q", b"marker", b.name)
    assert get(b.name, "DEAD.LETTER.QUEUE")[0][172:] == b"marker"  # (the one before: gone)
    assert depth(b, "DEAD.LETTER.QUEUE") == 0 and depth(b, "LOCAL.Q") == 0
    assert status(a, "A.TO.B") == "RUNNING"


def test_message_too_big_for_the_channel_is_dead_lettered_by_the_sender():
    """A message longer than the channel's negotiated maximum (B's MAXMSGL, the lower)
    does not stop the channel: A's sender dead-letters it with MQRC_MSG_TOO_BIG_FOR_CHANNEL
    (the DLH naming its destination, the data without the MQXQH), sends the exception
    report it asks for, and carries on with the next message."""
    a, b = _pair(b_maxmsgl=1000)
    try:
        big = b"x" * 1500
        md = put(a.name, "REMOTE.Q", big, ReplyToQ=b"REPLY.Q", Persistence=PERSISTENT,
                 Report=CMQC.MQRO_EXCEPTION)
        put(a.name, "REMOTE.Q", b"small")
        assert get(b.name, "LOCAL.Q")[0] == b"small"
        data, dl_md = get(a.name, "DEAD.LETTER.QUEUE")
        dlh = mqi.DLH().unpack(data[:172])
        assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL
        assert dlh.DestQName.rstrip() == b"LOCAL.Q"
        assert dlh.DestQMgrName.rstrip() == b.name.encode()
        assert data[172:] == big and dl_md.MsgId == md.MsgId
        assert dl_md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
        _, report = get(a.name, "REPLY.Q")
        assert report.Feedback == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL
        assert report.CorrelId == md.MsgId
        wait_for(lambda: depth(a, b.name) == 0, what="the xmitq emptied")
        assert status(a, "A.TO.B") == "RUNNING"
    finally:
        a.stop()
        b.stop()


def test_message_too_big_without_a_dead_letter_queue_stops_the_sender():
    """Without a dead-letter queue to take it, a message too big for the channel stops the
    sender and stays on its transmission queue (IBM: the sending MCA leaves it there)."""
    a, b = _pair(b_maxmsgl=1000)
    try:
        ok(a, "ZMQSC ALT QL-DEAD.LETTER.QUEUE PUT-DISABLED")
        put(a.name, "REMOTE.Q", b"y" * 1500, Persistence=PERSISTENT)
        wait_for(lambda: status(a, "A.TO.B") == "STOPPED", what="the sender STOPPED")
        assert "TOO BIG" in a.channels.status("A.TO.B").reason
        assert depth(a, b.name) == 1 and depth(b, "LOCAL.Q") == 0
    finally:
        a.stop()
        b.stop()


def test_a_full_queue_dead_letters_the_message_and_the_channel_runs_on(pair):
    """A destination queue that is full (MAXDEPTH reached) makes the receiver dead-letter
    the message with MQRC_Q_FULL, as IBM's does; the channel runs on. Both kinds of
    message, the two in one batch (the second put by the destination's plan)."""
    a, b = pair
    ok(b, "ZMQSC ALT QL-LOCAL.Q MAXDEPTH-1")
    for persistence in (CMQC.MQPER_NOT_PERSISTENT, PERSISTENT):
        ok(a, "ZMQSC STOP CHL-A.TO.B")  # both in one batch
        wait_for(lambda: status(a, "A.TO.B") == "STOPPED", what="A.TO.B stopped")
        put(a.name, "REMOTE.Q", b"fits", Persistence=persistence)
        put(a.name, "REMOTE.Q", b"overflows", Persistence=persistence)
        ok(a, "ZMQSC START CHL-A.TO.B")
        data, _ = get(b.name, "DEAD.LETTER.QUEUE")
        dlh = mqi.DLH().unpack(data[:172])
        assert dlh.Reason == CMQC.MQRC_Q_FULL and data[172:] == b"overflows"
        assert dlh.DestQName.rstrip() == b"LOCAL.Q"
        assert get(b.name, "LOCAL.Q")[0] == b"fits"
    assert status(a, "A.TO.B") == "RUNNING"


def test_a_dead_letters_mqmd_describes_its_mqdlh_and_the_mqdlh_the_data(pair):
    """IBM, MQDLH ("Putting messages on the dead-letter queue"): the dead letter's MQMD is
    the message's but for Format MQDEAD and the Encoding and CodedCharSetId of the MQDLH
    itself (here native and the queue manager's, 1208); the MQDLH keeps the data's."""
    a, b = pair
    put(a.name, "NO.SUCH.Q", b"\xc8\xc5\xd3\xd3\xd6", b.name, CodedCharSetId=500,
        Encoding=CMQC.MQENC_S390, Format=CMQC.MQFMT_STRING, Priority=6)
    data, md = get(b.name, "DEAD.LETTER.QUEUE")
    dlh = mqi.DLH().unpack(data[:172])
    assert (md.Format, md.Encoding, md.CodedCharSetId) == (
        CMQC.MQFMT_DEAD_LETTER_HEADER, CMQC.MQENC_NATIVE, 1208)
    assert (dlh.Format, dlh.Encoding, dlh.CodedCharSetId) == (
        CMQC.MQFMT_STRING, CMQC.MQENC_S390, 500)
    assert md.Priority == 6 and data[172:] == b"\xc8\xc5\xd3\xd3\xd6"


def test_pass_discard_and_expiry_gives_the_report_discard_msg_and_the_expiry_left(pair):
    """MQRO_PASS_DISCARD_AND_EXPIRY (IBM, MQMD Report): the exception report inherits
    MQRO_DISCARD_MSG and the message's remaining expiry; without it, neither."""
    a, b = pair
    options = CMQC.MQRO_EXCEPTION | CMQC.MQRO_DISCARD_MSG
    put(a.name, "NO.SUCH.Q", b"short-lived", b.name, ReplyToQ=b"REPLY.Q", Expiry=3000,
        Report=options | CMQC.MQRO_PASS_DISCARD_AND_EXPIRY)
    _, report = get(a.name, "REPLY.Q")
    assert report.Report == CMQC.MQRO_DISCARD_MSG
    assert 0 < report.Expiry <= 3000
    put(a.name, "NO.SUCH.Q", b"plain", b.name, ReplyToQ=b"REPLY.Q", Expiry=3000,
        Report=options)
    _, report = get(a.name, "REPLY.Q")
    assert report.Report == CMQC.MQRO_NONE and report.Expiry == CMQC.MQEI_UNLIMITED
