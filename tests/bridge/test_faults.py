"""Bad input: nothing is lost silently; each fault has a console message and a reason."""

from __future__ import annotations

from bridge_helpers import dead_letters, echo_app

from ecb import Ecb
from tpfemu.bridge import assign_lniata
from tpfemu.bridge.bridge import CUIW_FAILED, NO_APPLICATION, NO_LNIATA_ASSIGNED
from tpfemu.mqi import CMQC


def test_cuiw_that_raises_sends_the_message_to_the_dlq_with_a_reason(system, deliver, qm):
    """A CUIW that raises: the request goes to the dead-letter queue whole, with an MQDLH
    naming our reason CUIW_FAILED, its ids and ReplyToQ kept; the console says why."""

    def broken(reply_to_q: str, reply_to_qmgr: str) -> str:
        raise RuntimeError("table offline")

    system.programs.load("CUIW", assign_lniata(broken))
    deliver(b"REQ", MsgId=b"M" * 24, ReplyToQMgr=b"QM2")
    [(dlh, data, md)] = dead_letters(qm)
    assert dlh.Reason == CUIW_FAILED == CMQC.MQFB_APPL_FIRST + 1
    assert data == b"REQ" and md.MsgId == b"M" * 24
    assert md.ReplyToQ.rstrip() == b"REPLY.Q" and md.ReplyToQMgr.rstrip() == b"QM2"
    assert dlh.Format == CMQC.MQFMT_STRING and dlh.CodedCharSetId == 37
    line = next(line for line in system.log if line.startswith("MQSC0941E"))
    assert "table offline" in line and "DEAD.LETTER.QUEUE" in line


def test_cuiw_that_exits_instead_of_returning_is_a_failure_too(system, deliver, qm):
    """A CUIW that issues EXITC never returns an LNIATA: the message is dead-lettered."""
    system.programs.load("CUIW", lambda ecb: ecb.exitc())
    deliver(b"REQ")
    [(dlh, _, _)] = dead_letters(qm)
    assert dlh.Reason == CUIW_FAILED


def test_cuiw_with_no_lniata_sends_the_message_to_the_dlq(system, deliver, qm):
    """A CUIW that assigns no LNIATA (None, X'000000'): dead-lettered, reason
    NO_LNIATA_ASSIGNED; the default CUIW does so when its pool is used up."""
    system.console("ZBRDG POOL COUNT-1")
    deliver(b"FIRST", ReplyToQMgr=b"QMA")  # takes the only pool terminal (no app: DLQ)
    deliver(b"SECOND", ReplyToQMgr=b"QMB")
    reasons = [(dlh.Reason, data) for dlh, data, _ in dead_letters(qm)]
    assert reasons == [(NO_APPLICATION, b"FIRST"), (NO_LNIATA_ASSIGNED, b"SECOND")]
    assert any(line.startswith("MQSC0942E") and "QMB" in line for line in system.log)


def test_coa4_with_no_application_sends_the_message_to_the_dlq(system, deliver, qm):
    """A terminal routed to no application, or to one not loaded: dead-lettered with
    NO_APPLICATION and a console message naming the LNIATA."""
    system.console("ZBRDG DEF LN-0A0101 RQ-A RQM-QM2")
    system.console("ZBRDG DEF LN-0A0102 APPL-NONE RQ-B RQM-QM2")
    system.console("ZBRDG ALT LN-0A0102 APPL-GONE")
    deliver(b"ONE", ReplyToQ=b"A", ReplyToQMgr=b"QM2")
    deliver(b"TWO", ReplyToQ=b"B", ReplyToQMgr=b"QM2")
    assert [(d.Reason, data) for d, data, _ in dead_letters(qm)] == [
        (NO_APPLICATION, b"ONE"), (NO_APPLICATION, b"TWO")]
    lines = [line for line in system.log if line.startswith("MQSC0943E")]
    assert "NO APPLICATION FOR LNIATA 0A0101" in lines[0]
    assert "APPLICATION GONE NOT LOADED FOR LNIATA 0A0102" in lines[1]


def test_message_that_cannot_be_dead_lettered_is_reported_lost(system, deliver):
    """When the dead-letter queue refuses it too (put-inhibited), the console says the
    message is lost, naming its MsgId: never silently."""
    system.console("ZMQSC ALT QL-DEAD.LETTER.QUEUE PUT-DISABLED")
    system.programs.load("CUIW", lambda ecb: None)  # assigns nothing
    deliver(b"REQ", MsgId=b"L" * 24)
    assert any(line.startswith("MQSC0945E") and (b"L" * 24).hex().upper() in line
               for line in system.log)


def test_bridge_keeps_serving_after_faults(system, deliver, qm):
    """After a CUIW failure, the next request with a working CUIW is answered."""
    calls = []

    def flaky(reply_to_q: str, reply_to_qmgr: str):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("first call fails")
        return "0A0101", "BAL1"

    def app(ecb: Ecb) -> None:
        echo_app()(ecb)

    system.programs.load("CUIW", assign_lniata(flaky))
    system.programs.load("BAL1", app)
    deliver(b"A", ReplyToQMgr=b"TPF1")
    deliver(b"B", ReplyToQMgr=b"TPF1")
    from bridge_helpers import get_all

    assert [data for data, _ in get_all(qm, "REPLY.Q")] == [b"OK B"]
    assert [data for _, data, _ in dead_letters(qm)] == [b"A"]


def test_dead_lettered_request_keeps_its_message_descriptor(system, deliver, qm):
    """A request the bridge dead-letters keeps its MQMD, as a message on the dead-letter
    queue does (IBM MQ, "Using the dead-letter queue"): its MsgType, Feedback and its
    identity and origin context; only Format becomes MQDEAD (the MQDLH keeps the old)."""
    system.programs.load("CUIW", lambda ecb: None)  # assigns nothing
    deliver(b"REQ", MsgType=CMQC.MQMT_REQUEST, ReplyToQMgr=b"QM2", UserIdentifier=b"USERX",
            PutApplName=b"SENDER", PutApplType=CMQC.MQAT_UNIX, ApplIdentityData=b"IDENT",
            PutDate=b"20261128", PutTime=b"12345678", AccountingToken=b"\x01" * 32,
            Encoding=785, CodedCharSetId=500)
    [(dlh, _, md)] = dead_letters(qm)
    assert dlh.Reason == NO_LNIATA_ASSIGNED and dlh.Format == CMQC.MQFMT_STRING
    # the MQMD describes the MQDLH (native, the queue manager's CCSID); the MQDLH the data
    assert (dlh.Encoding, dlh.CodedCharSetId) == (785, 500)
    assert (md.Encoding, md.CodedCharSetId) == (CMQC.MQENC_NATIVE, 1208)
    assert md.MsgType == CMQC.MQMT_REQUEST and md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert md.UserIdentifier.rstrip() == b"USERX" and md.PutApplName.rstrip() == b"SENDER"
    assert md.PutApplType == CMQC.MQAT_UNIX and md.ApplIdentityData.rstrip() == b"IDENT"
    assert (md.PutDate, md.PutTime) == (b"20261128", b"12345678")
    assert md.AccountingToken == b"\x01" * 32
