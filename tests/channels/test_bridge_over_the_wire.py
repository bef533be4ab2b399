"""The ROUTC bridge over real channels (issues 25 and 27): a partner system's
nonpersistent request crosses a FAST channel, the receiving system's bridge hands it to
a traditional application as an AM0SG, and the application's ROUTC comes back to the
requester as an MQ reply over a channel in the other direction."""

from __future__ import annotations

import pytest
from mca_helpers import depth, get, ok, put, receiving, sending, start, status, unique, wait_for

from ecb import Ecb, Level
from tpfemu import mqi
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mqi import CMQC


def _echo(ecb: Ecb) -> None:
    """An old-style terminal application: answer the AM0SG on D0 with ROUTC."""
    block = ecb.block(Level.D0)
    assert block is not None
    message = Am0sg.unpack(block)
    rcpl = Rcpl.unpack(ecb.ebw[0:16])
    block[:] = Am0sg(b"OK " + message.text, program=ecb.program).pack()
    ecb.routc(rcpl.reply(), Level.D0)


@pytest.fixture
def pair():
    """A (the requester) sends to B over FAST channel A.TO.B; B answers over B.TO.A,
    whose transmission queue is named after A; B's terminal 0A0101 runs BAL1."""
    a, b = start(unique("BRA")), start(unique("BRB"))
    try:
        port_b = receiving(b, ("A.TO.B",), speed="FAST")
        port_a = receiving(a, ("B.TO.A",))
        ok(a, "ZMQSC DEF QL-REPLY.Q")
        sending(a, "A.TO.B", port_b, "XQ.B", speed="FAST")
        ok(a, f"ZMQSC DEF QR-BAL.INQUIRY RNAME-BAL.INQUIRY RQMNAME-{b.name} XMITQ-XQ.B")
        sending(b, "B.TO.A", port_a, a.name)
        b.programs.load("BAL1", _echo)
        ok(b, f"ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-* RQM-{a.name}")
        for system, channel in ((a, "A.TO.B"), (b, "B.TO.A")):
            ok(system, f"ZMQSC START CHL-{channel}")
            wait_for(lambda s=system, c=channel: status(s, c) == "RUNNING", what="RUNNING")
        yield a, b
    finally:
        a.stop()
        b.stop()


def _request(a, text: bytes):
    return put(a.name, "BAL.INQUIRY", text, Persistence=CMQC.MQPER_NOT_PERSISTENT,
               ReplyToQ=b"REPLY.Q", MsgType=CMQC.MQMT_REQUEST)


def test_a_bridged_request_is_answered_over_the_channels(pair):
    """Each nonpersistent request reaches BAL1 through the bridge, on no queue of B, and
    its ROUTC answer arrives at the requester's ReplyToQ as a REPLY whose CorrelId is the
    request's MsgId."""
    a, b = pair
    requests = [_request(a, f"ACCT {n}".encode()) for n in range(5)]
    replies = {}
    for _ in requests:
        data, md = get(a.name, "REPLY.Q")
        assert md.MsgType == CMQC.MQMT_REPLY
        replies[bytes(md.CorrelId)] = data
    assert replies == {bytes(md.MsgId): f"OK ACCT {n}".encode() for n, md in enumerate(requests)}
    assert b.qmgr.catalog.find_queue("BAL.INQUIRY") is None  # B has no such queue at all
    assert depth(b, "DEAD.LETTER.QUEUE") == 0


def test_a_reply_waits_on_the_transmission_queue_while_the_channel_is_cut(pair):
    """With the return channel stopped, the ROUTC reply waits on B's transmission queue
    and arrives once the channel runs again: nothing is lost."""
    a, b = pair
    ok(b, "ZMQSC STOP CHL-B.TO.A")
    wait_for(lambda: status(b, "B.TO.A") in ("STOPPED", "INACTIVE"), what="stopped")
    request = _request(a, b"ACCT 9")
    wait_for(lambda: depth(b, a.name) == 1, what="the reply on the transmission queue")
    ok(b, "ZMQSC START CHL-B.TO.A")
    data, md = get(a.name, "REPLY.Q")
    assert (data, bytes(md.CorrelId)) == (b"OK ACCT 9", bytes(request.MsgId))
    wait_for(lambda: depth(b, a.name) == 0, what="the sender's commit of the batch")


def test_a_persistent_request_on_the_fast_channel_is_put_to_its_queue(pair):
    """Seed 004: a persistent message on a fast receiver takes the normal path: it is put
    to its queue, and the bridge does not see it."""
    a, b = pair
    ok(b, "ZMQSC DEF QL-BAL.INQUIRY")
    put(a.name, "BAL.INQUIRY", b"KEEP ME", Persistence=CMQC.MQPER_PERSISTENT,
        ReplyToQ=b"REPLY.Q")
    data, _ = get(b.name, "BAL.INQUIRY")
    assert data == b"KEEP ME"
    assert depth(a, "REPLY.Q") == 0


def test_a_request_too_long_for_an_am0sg_is_dead_lettered_with_the_bridges_reason(pair):
    """A nonpersistent request longer than one AM0SG block is refused by the bridge; the
    fast receiver dead-letters it with the bridge's reason (2030), not a generic one."""
    a, b = pair
    _request(a, b"X" * 400)
    data, _ = get(b.name, "DEAD.LETTER.QUEUE")
    dlh = mqi.DLH().unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    assert data[CMQC.MQDLH_LENGTH_1:] == b"X" * 400
    assert depth(a, "REPLY.Q") == 0
