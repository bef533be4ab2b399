"""CUIV: the reply to a request that named no ReplyToQ goes where the exit says.

TPF's "TPF MQSeries Convert to Object Handle" user exit (CUIV) is called for ROUTC output
to an MQ terminal whose request had no reply-to queue and queue manager; it turns the
LNIATA into the destination of the outbound message.
"""

from __future__ import annotations

import pytest
from bridge_helpers import dead_letters, echo_app, get_all

from ecb import Ecb, Level
from tpfemu.bridge import Am0sg, Rcpl, assign_lniata, convert_lniata
from tpfemu.bridge.bridge import CUIV_FAILED
from tpfemu.mqi import CMQC


@pytest.fixture
def bal1(system):
    """BAL1 answers with ROUTC; CUIW gives every request terminal 0A0101."""
    system.programs.load("BAL1", echo_app())
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1")
    system.programs.load("CUIW", assign_lniata(lambda q, qmgr: "0A0101"))
    return system


def datagram(deliver, data: bytes, msg_id: bytes) -> None:
    deliver(data, ReplyToQ=b"", ReplyToQMgr=b"", MsgType=CMQC.MQMT_DATAGRAM, MsgId=msg_id)


def test_cuiv_names_the_destination_of_an_answer_to_a_datagram(bal1, deliver, qm):
    """A request without ReplyToQ: ROUTC enters CUIV with the LNIATA; the answer goes to
    the queue CUIV names, a reply with the request's MsgId as CorrelId; the
    application's EBW is as it was before ROUTC."""
    seen = []

    def where(lniata: str) -> tuple[str, str]:
        seen.append(lniata)
        return "REPLY.Q", "TPF1"

    ebw_kept = []

    def app(ecb: Ecb) -> None:
        block = ecb.block(Level.D0)
        assert block is not None
        rcpl = Rcpl.unpack(ecb.ebw[0:16])
        block[:] = Am0sg(b"OK " + Am0sg.unpack(block).text).pack()
        memoryview(ecb.ebw)[16:104] = b"\x5a" * 88
        before = bytes(ecb.ebw)
        ecb.routc(rcpl.reply(), Level.D0)
        ebw_kept.append(bytes(ecb.ebw) == before)

    bal1.programs.load("BAL1", app)
    bal1.programs.load("CUIV", convert_lniata(where))
    datagram(deliver, b"D1", b"A" * 24)
    assert seen == ["0A0101"] and ebw_kept == [True]
    [(data, md)] = get_all(qm, "REPLY.Q")
    assert data == b"OK D1"
    assert md.MsgType == CMQC.MQMT_REPLY and md.CorrelId == b"A" * 24
    assert dead_letters(qm) == []


def test_cuiv_is_not_called_when_the_request_named_its_reply_to_queue(bal1, deliver, qm):
    """With a ReplyToQ in the request, the saved destination is used: no CUIV."""
    seen = []
    bal1.programs.load("CUIV", convert_lniata(lambda lniata: seen.append(lniata)))
    deliver(b"Q", ReplyToQMgr=b"TPF1")
    assert seen == [] and [d for d, _ in get_all(qm, "REPLY.Q")] == [b"OK Q"]


def test_default_cuiv_names_nothing_and_the_answer_is_dead_lettered(bal1, deliver, qm):
    """The default CUIV names no queue: the answer is dead-lettered with
    MQRC_MISSING_REPLY_TO_Q and the console says so."""
    datagram(deliver, b"D2", b"B" * 24)
    [(dlh, data, md)] = dead_letters(qm)
    assert dlh.Reason == CMQC.MQRC_MISSING_REPLY_TO_Q and data == b"OK D2"
    assert md.MsgType == CMQC.MQMT_REPLY and md.CorrelId == b"B" * 24
    assert any(line.startswith("MQSC0944E") for line in bal1.log)


def test_cuiv_that_raises_dead_letters_the_answer_with_a_reason(bal1, deliver, qm):
    """CUIV raising: the answer is dead-lettered with our reason CUIV_FAILED."""

    def broken(lniata: str) -> None:
        raise RuntimeError("no table")

    bal1.programs.load("CUIV", convert_lniata(broken))
    datagram(deliver, b"D3", b"C" * 24)
    [(dlh, data, _)] = dead_letters(qm)
    assert dlh.Reason == CUIV_FAILED and data == b"OK D3"
    assert CUIV_FAILED == CMQC.MQFB_APPL_FIRST + 4


def test_zbrdg_disp_shows_that_cuiv_names_the_destination(bal1, deliver):
    """ZBRDG DISP of a terminal owing the answer to a request without ReplyToQ says CUIV
    names its destination (not an empty queue name)."""
    datagram(deliver, b"D4", b"D" * 24)
    shown = bal1.console("ZBRDG DISP LN-0A0101")
    assert "(CUIV)" in shown and "MSGID " + (b"D" * 24).hex().upper() in shown
