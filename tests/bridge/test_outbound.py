"""Outbound: ROUTC to an MQ terminal is an MQ reply; to an ordinary one, its terminal log."""

from __future__ import annotations

import threading
import time

import pytest
from bridge_helpers import WAIT, dead_letters, depth, echo_app, get_all

from ecb import Ecb, ErrorCode, Level
from tpfemu.bridge import Am0sg, Lniata, Rcpl
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC


@pytest.fixture
def bal1(system):
    """BAL1 answers with ROUTC; terminal 0A0101 is routed to it for replies to TPF1."""
    system.programs.load("BAL1", echo_app())
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-* RQM-TPF1")
    return system


def test_reply_has_msgtype_reply_and_the_msgid_as_correlid(bal1, deliver, qm):
    """By default the reply's CorrelId is the request's MsgId, its MsgId is new, its
    MsgType is REPLY, and it keeps the request's format, CCSID and priority."""
    deliver(b"Q1", ReplyToQMgr=b"TPF1", MsgId=b"A" * 24, CorrelId=b"C" * 24, Priority=7)
    [(data, md)] = get_all(qm, "REPLY.Q")
    assert data == b"OK Q1"
    assert md.MsgType == CMQC.MQMT_REPLY and md.CorrelId == b"A" * 24
    assert md.MsgId not in (b"A" * 24, bytes(24))
    assert (md.Format, md.CodedCharSetId, md.Priority) == (CMQC.MQFMT_STRING, 37, 7)
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT


def test_report_options_pass_correlid_and_msgid(bal1, deliver, qm):
    """MQRO_PASS_CORREL_ID makes the reply's CorrelId the request's CorrelId, and
    MQRO_PASS_MSG_ID keeps the request's MsgId."""
    deliver(b"Q", ReplyToQMgr=b"TPF1", MsgId=b"A" * 24, CorrelId=b"C" * 24,
            Report=CMQC.MQRO_PASS_CORREL_ID | CMQC.MQRO_PASS_MSG_ID)
    [(_, md)] = get_all(qm, "REPLY.Q")
    assert md.CorrelId == b"C" * 24 and md.MsgId == b"A" * 24


def test_reply_for_a_remote_qmgr_waits_on_its_transmission_queue(bal1, deliver, qm):
    """A reply to ReplyToQ at a remote ReplyToQMgr goes to that queue manager's
    transmission queue, with the destination in its MQXQH, and stays there while no
    channel serves it (a cut fast channel loses no reply)."""
    bal1.console("ZMQSC DEF QL-PARTNER USAGE-XMITQ")
    bal1.console("ZBRDG ALT LN-0A0101 RQ-* RQM-PARTNER")
    deliver(b"Q", ReplyToQ=b"ANSWERS", ReplyToQMgr=b"PARTNER", MsgId=b"A" * 24)
    assert depth(qm, "PARTNER") == 1
    [(data, _)] = get_all(qm, "PARTNER")
    xqh = XQH().unpack(data[:CMQC.MQXQH_LENGTH_1])
    assert xqh.RemoteQName.rstrip() == b"ANSWERS" and xqh.RemoteQMgrName.rstrip() == b"PARTNER"
    assert xqh.MsgDesc.MsgType == CMQC.MQMT_REPLY and xqh.MsgDesc.CorrelId == b"A" * 24
    assert data[CMQC.MQXQH_LENGTH_1:] == b"OK Q"


def test_reply_that_cannot_be_put_goes_to_the_dead_letter_queue(bal1, deliver, qm):
    """A reply whose ReplyToQ does not resolve is dead-lettered with the MQI's reason and
    its destination, and the console says so."""
    deliver(b"Q", ReplyToQ=b"NO.SUCH.Q", ReplyToQMgr=b"TPF1")
    [(dlh, data, md)] = dead_letters(qm)
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip() == b"NO.SUCH.Q" and data == b"OK Q"
    assert md.MsgType == CMQC.MQMT_REPLY
    assert any(line.startswith("MQSC0944E") for line in bal1.log)


def test_routc_to_an_ordinary_terminal_reaches_its_log_not_mq(system, qm):
    """ROUTC to an LNIATA without the MQ mark appends the text to that terminal's log,
    readable by tests and by ZBRDG LOG, and puts nothing."""
    system.console("ZBRDG DEF LN-0B0001")

    def app(ecb: Ecb) -> None:
        ecb.getcc(Level.D3, 381)[:] = Am0sg("SEAT 12A".encode("cp037")).pack()
        ecb.routc(Rcpl(Lniata.parse("0B0001"), "APP2"), Level.D3)
        assert not ecb.levta(Level.D3)  # ROUTC released the level

    system.programs.load("APP2", app)
    system.dispatcher.cremc("APP2")
    assert system.dispatcher.wait_idle(WAIT)
    assert system.bridge.terminal_log("0B0001") == ["SEAT 12A".encode("cp037")]
    assert "SEAT 12A" in system.console("ZBRDG LOG LN-0B0001")
    assert depth(qm, "REPLY.Q") == 0 and system.dispatcher.stats().failed == 0
    assert system.bridge.operator.terminal("0B0001")["outputs"] == 1


def test_routc_to_an_unknown_lniata_is_a_system_error_with_a_dump(system):
    """ROUTC to an LNIATA no terminal has is system error E0602 for that entry: a dump on
    the console naming the LNIATA; the level still held the message."""

    def app(ecb: Ecb) -> None:
        ecb.getcc(Level.D1, 381)[:] = Am0sg(b"X").pack()
        ecb.routc(Rcpl(Lniata.parse("0C0C0C"), "APP3"), Level.D1)

    system.programs.load("APP3", app)
    system.dispatcher.cremc("APP3")
    assert system.dispatcher.wait_idle(WAIT)
    [dump] = system.dispatcher.dumps
    assert dump.error.code == ErrorCode.ROUTC_UNKNOWN_DESTINATION
    assert "0C0C0C" in dump.text and dump.text in "\n".join(system.log)


@pytest.mark.parametrize(("size", "problem"), [(127, "381-byte block"), (1055, "381-byte")])
def test_routc_needs_an_l1_block(system, size, problem):
    """Terminal messages travel only in 381-byte blocks: another size is E0603."""

    def app(ecb: Ecb) -> None:
        ecb.getcc(Level.D1, size)[:22] = Am0sg(b"").pack()[:22]
        ecb.routc(Rcpl(Lniata.parse("0B0001"), "APP4"), Level.D1)

    system.console("ZBRDG DEF LN-0B0001")
    system.programs.load("APP4", app)
    system.dispatcher.cremc("APP4")
    assert system.dispatcher.wait_idle(WAIT)
    [dump] = system.dispatcher.dumps
    assert dump.error.code == ErrorCode.ROUTC_BAD_MESSAGE and problem in str(dump.error)


def test_failing_application_sends_no_reply_and_the_console_shows_the_dump(
        system, deliver, qm):
    """An application that takes a system error answers nothing: no reply, nothing on
    the dead-letter queue, and its dump is on the console."""
    system.programs.load("BAL1", lambda ecb: ecb.serrc("balance file unreadable"))
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-* RQM-TPF1")
    deliver(b"Q", ReplyToQMgr=b"TPF1")
    assert depth(qm, "REPLY.Q") == 0 and depth(qm, "DEAD.LETTER.QUEUE") == 0
    [dump] = system.dispatcher.dumps
    assert "balance file unreadable" in dump.text and "BAL1" in dump.text
    assert any("balance file unreadable" in line for line in system.log)


def test_child_entry_answers_through_the_terminals_saved_request(bal1, deliver, qm):
    """An entry the application created inherits the origin and may answer: the reply
    still carries the request's MsgId as CorrelId."""

    def parent(ecb: Ecb) -> None:
        ecb.creec("KID1", Level.D0, bytes(ecb.ebw[0:16]))

    bal1.programs.load("BAL1", parent)
    bal1.programs.load("KID1", echo_app(b"KID "))
    deliver(b"Q", ReplyToQMgr=b"TPF1", MsgId=b"P" * 24)
    [(data, md)] = get_all(qm, "REPLY.Q")
    assert data == b"KID Q" and md.CorrelId == b"P" * 24


def test_routc_to_a_program_is_refused(system):
    """ROUTC whose RCPL destination is a program (not a terminal) is E0602: only
    terminal destinations are routed."""

    def app(ecb: Ecb) -> None:
        ecb.getcc(Level.D1, 381)[:] = Am0sg(b"X").pack()
        ecb.routc(Rcpl("BAL9", "APP5"), Level.D1)

    system.programs.load("APP5", app)
    system.dispatcher.cremc("APP5")
    assert system.dispatcher.wait_idle(WAIT)
    [dump] = system.dispatcher.dumps
    assert dump.error.code == ErrorCode.ROUTC_UNKNOWN_DESTINATION
    assert "BAL9 is a program" in str(dump.error)


def test_reply_queue_stays_open_between_replies_then_is_closed(bal1, deliver, qm,
                                                               monkeypatch):
    """Replies to one queue share one open handle (OPPROCS 1); once it is unused for the
    idle time the bridge closes it, so the operator may delete the queue."""
    from tpfemu.bridge import bridge as bridge_module

    for n in range(3):
        deliver(b"Q%d" % n, ReplyToQMgr=b"TPF1")
    q = bal1.qmgr.local_queue("REPLY.Q")
    assert q.output_count == 1
    monkeypatch.setattr(bridge_module, "REPLY_HANDLE_IDLE", 0.2)
    deadline = time.monotonic() + WAIT
    while q.output_count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert q.output_count == 0
    assert [d for d, _ in get_all(qm, "REPLY.Q")] == [b"OK Q0", b"OK Q1", b"OK Q2"]
    assert bal1.console("ZMQSC DEL QL-REPLY.Q").startswith("MQSC0013I")


def test_replies_made_at_once_on_two_i_streams_put_in_parallel(system, deliver, qm,
                                                                monkeypatch):
    """Two entries replying at the same time each take a reply line of their own (an MQI
    connection used by one thread at a time), so neither waits for the other's MQPUT:
    both are inside MQPUT together, and both replies arrive."""
    from tpfemu.bridge import bridge as bridge_module

    inside = threading.Barrier(2, timeout=WAIT)
    real_put = bridge_module._ReplyLine.put

    def meeting_put(line, *args):
        inside.wait()  # (broken, and the entry dumped, if the other could not get in)
        real_put(line, *args)

    monkeypatch.setattr(bridge_module._ReplyLine, "put", meeting_put)
    system.programs.load("BAL1", echo_app())
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-* RQM-TPF1")
    assert system.dispatcher.istreams == 2
    deliver(b"A", ReplyToQMgr=b"TPF1", wait=False)
    deliver(b"B", ReplyToQMgr=b"TPF1", wait=False)
    assert system.dispatcher.wait_idle(WAIT)
    assert not system.dispatcher.dumps
    assert sorted(d for d, _ in get_all(qm, "REPLY.Q")) == [b"OK A", b"OK B"]
    assert system.qmgr.local_queue("REPLY.Q").output_count == 2  # a handle on each line


def test_pass_discard_and_expiry_gives_the_reply_the_remaining_expiry(bal1, deliver, qm):
    """MQRO_PASS_DISCARD_AND_EXPIRY: the reply inherits the request's remaining expiry and
    its MQRO_DISCARD_MSG option (IBM MQ, MQMD Report options); without it the reply's
    Expiry is unlimited and its Report is MQRO_NONE."""
    deliver(b"Q", ReplyToQMgr=b"TPF1", MsgId=b"A" * 24, Expiry=600,
            Report=CMQC.MQRO_PASS_DISCARD_AND_EXPIRY | CMQC.MQRO_DISCARD_MSG)
    deliver(b"R", ReplyToQMgr=b"TPF1", MsgId=b"B" * 24, Expiry=600,
            Report=CMQC.MQRO_DISCARD_MSG)
    [(_, passed), (_, kept)] = get_all(qm, "REPLY.Q")
    assert passed.CorrelId == b"A" * 24 and 500 <= passed.Expiry <= 600
    assert passed.Report == CMQC.MQRO_DISCARD_MSG
    assert kept.Expiry == CMQC.MQEI_UNLIMITED and kept.Report == CMQC.MQRO_NONE
