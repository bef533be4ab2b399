"""Inbound: CUIW, the AM0SG on D0, the WGTA mark, COA4's routing, the RCPL at EBW000."""

from __future__ import annotations

import threading

import pytest
from bridge_helpers import EBCDIC, FAST_CHANNEL, WAIT, depth, echo_app, get_all

import tpfemu
from ecb import Ecb, Level
from tpfemu import journal, mqi
from tpfemu.bridge import Am0sg, Am0sgTooLong, Lniata, Rcpl, assign_lniata
from tpfemu.mqi import CMQC

LNI = Lniata.parse("0A0101")


def _capture(system: tpfemu.System, name: str = "BAL1") -> list[tuple[bytes, bytes, object]]:
    """Load an application that records (D0 block, EBW000-015, origin) and answers."""
    seen: list[tuple[bytes, bytes, object]] = []
    answer = echo_app()

    def app(ecb: Ecb) -> None:
        block = ecb.block(Level.D0)
        assert block is not None
        seen.append((bytes(block), bytes(ecb.ebw[0:16]), ecb.origin))
        answer(ecb)

    system.programs.load(name, app)
    return seen


def test_nonpersistent_message_is_bridged_and_appears_on_no_queue(system, deliver, qm):
    """A bridged request reaches the application as an AM0SG; no queue ever holds it (the
    only message put anywhere is the application's reply)."""
    seen = _capture(system)
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-TPF1")
    puts: list[str] = []
    system.qmgr.events.subscribe(lambda e: puts.append(e.queue) if e.kind == "put" else None)
    deliver("BALANCE 42".encode(EBCDIC), ReplyToQMgr=b"TPF1")
    assert len(seen) == 1
    assert Am0sg.unpack(seen[0][0]).text == "BALANCE 42".encode(EBCDIC)
    assert puts == ["REPLY.Q"]
    assert depth(qm, "DEAD.LETTER.QUEUE") == 0


def test_am0sg_on_d0_and_rcpl_at_ebw000_are_byte_exact(system, deliver):
    """The application's D0 holds our AM0SG (stamp CMQB, the LNIATA, the MQ flag) and
    EBW000 our RCPL: destination the application, origin the terminal's LNIATA."""
    seen = _capture(system)
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-* RQM-TPF1")
    deliver(b"\xc2\xc1\xd3", ReplyToQMgr=b"TPF1")
    block, rcpl, origin = seen[0]
    assert block[:25] == bytes.fromhex(
        "C1D4" "0000" "C3D4D8C2" "00000000" "00000000" "0003" "0A0101" "80" "C2C1D3")
    assert block[25:] == bytes(381 - 25)
    assert rcpl == bytes.fromhex("C2C1D3F1" "000A0101" "B0000000" "00000000")
    assert Rcpl.unpack(rcpl).origin == LNI
    assert repr(origin) == "LNIATA 0A0101 (MQ)"


def test_cuiw_is_called_with_reply_to_q_and_reply_to_qmgr(system, deliver):
    """A user's CUIW replaces the default one and is called with the request's ReplyToQ
    and ReplyToQMgr; the LNIATA and application it returns are used."""
    calls: list[tuple[str, str]] = []

    def my_cuiw(reply_to_q: str, reply_to_qmgr: str):
        calls.append((reply_to_q, reply_to_qmgr))
        return "0A0177", "BAL2"

    system.programs.load("CUIW", assign_lniata(my_cuiw))
    seen = _capture(system, "BAL2")
    deliver(b"X", ReplyToQ=b"ANSWERS", ReplyToQMgr=b"PARTNER")
    assert calls == [("ANSWERS", "PARTNER")]
    assert Rcpl.unpack(seen[0][1]) == Rcpl("BAL2", Lniata.parse("0A0177"), True, True)
    row = system.bridge.operator.terminal("0A0177")
    assert row["mq"] and row["application"] == "BAL2" and row["kind"] == "CUIW"


def test_cuiw_as_an_ecb_program_reads_and_writes_ebw(system, deliver):
    """CUIW is entered as a program: ReplyToQ at EBW000, ReplyToQMgr at EBW048; the
    LNIATA it leaves at EBW096 routes the message."""
    seen_ebw: list[bytes] = []

    def raw_cuiw(ecb: Ecb) -> None:
        seen_ebw.append(bytes(ecb.ebw))
        ecb.ebw[96:99] = b"\x0a\x01\x01"

    system.programs.load("CUIW", raw_cuiw)
    seen = _capture(system)
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1")
    deliver(b"X", ReplyToQ=b"RQ", ReplyToQMgr=b"RQM")
    assert seen_ebw[0][:96] == b"RQ".ljust(48) + b"RQM".ljust(48)
    assert seen_ebw[0][96:] == bytes(8)
    assert len(seen) == 1


def test_default_cuiw_uses_routes_then_the_pool(system, deliver):
    """With no matching route, the default CUIW allocates a pool terminal per
    (ReplyToQ, ReplyToQMgr), the same one each time; an operator route wins."""
    seen = _capture(system)
    system.console("ZBRDG POOL FIRST-FE0000 COUNT-4 APPL-BAL1")
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-QMX")
    for qmgr in (b"QMA", b"QMB", b"QMA", b"QMX"):
        deliver(b"X", ReplyToQMgr=qmgr)
    origins = [Rcpl.unpack(rcpl).origin for _, rcpl, _ in seen]
    assert [str(o) for o in origins] == ["FE0000", "FE0001", "FE0000", "0A0101"]


def test_wgta_entry_is_marked_mq_with_what_the_reply_needs(system, deliver):
    """After bridging, the LNIATA's WGTA entry carries the MQ mark and the saved request:
    ReplyToQ, ReplyToQMgr and MsgId."""
    system.programs.load("BAL1", lambda ecb: None)  # answers nothing
    system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-TPF1")
    deliver(b"X", ReplyToQMgr=b"TPF1", MsgId=b"M" * 24)
    row = system.bridge.operator.terminal("0A0101")
    assert row["mq"] and row["inputs"] == 1
    assert row["reply"] == "REPLY.Q@TPF1 MSGID " + (b"M" * 24).hex().upper()
    assert row["wgta"].startswith("0A0101C0C2C1D3F1")


def test_too_long_message_is_refused_as_tpf_refuses_it(system, deliver):
    """A message longer than one AM0SG block holds (359 bytes) is refused with
    MQRC_MSG_TOO_BIG_FOR_Q and a console message; no entry starts."""
    seen = _capture(system)
    with pytest.raises(Am0sgTooLong) as info:
        deliver(b"x" * 360)
    assert info.value.reason == CMQC.MQRC_MSG_TOO_BIG_FOR_Q
    assert any(line.startswith("MQSC0940E") and "360-BYTE" in line for line in system.log)
    assert seen == [] and system.dispatcher.stats().created == 0
    deliver(b"x" * 359)  # the largest that fits goes through (to the pool: no app)


def test_persistent_message_is_not_bridged(system, deliver):
    """The bridge refuses a persistent message (MQRC_PERSISTENCE_ERROR): those go to their
    queue as on a normal receiver, never to the bridge."""
    with pytest.raises(mqi.MQMIError) as info:
        deliver(b"X", Persistence=CMQC.MQPER_PERSISTENT)
    assert info.value.reason == CMQC.MQRC_PERSISTENCE_ERROR
    assert any(line.startswith("MQSC0946E") for line in system.log)


def test_journal_records_bridge_in_route_and_out_with_the_lniata(tmp_path):
    """With a journal, one bridged request and its ROUTC reply write bridge-in,
    bridge-route and bridge-out events, each naming the LNIATA."""
    with tpfemu.System.start(name="TPF1", home=tmp_path) as system:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-REPLY.Q")
        system.programs.load("BAL1", echo_app())
        system.console("ZBRDG DEF LN-0A0101 APPL-BAL1 RQ-REPLY.Q RQM-TPF1")
        # The home's definition follower may be adopting a snapshot taken before DEF
        # QL-REPLY.Q (the queue then vanishes for a moment: reported); adopt the latest.
        system.qmgr.sync_definitions()
        system.bridge.deliver(FAST_CHANNEL, mqi.MD(ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"TPF1",
                                                   MsgId=b"R" * 24), b"X")
        assert system.dispatcher.wait_idle(WAIT)
        log = list(system.log)
    events = list(journal.read_events(  # after the stop: everything is written
        tmp_path, events={"bridge-in", "bridge-route", "bridge-out"}))
    assert [e.event for e in events] == ["bridge-in", "bridge-route", "bridge-out"], log
    assert all(e.fields["lniata"] == "0A0101" for e in events)
    assert events[0].msg_id == b"R" * 24 and events[0].fields["channel"] == FAST_CHANNEL
    assert events[1].fields["application"] == "BAL1" and events[1].program == "COA4"
    assert events[2].queue == "REPLY.Q" and events[2].correl_id == b"R" * 24


def test_concurrent_requests_each_reach_the_application_once(system, deliver, qm):
    """Requests delivered from several threads each start one entry and get one reply."""
    system.programs.load("BAL1", echo_app())
    system.console("ZBRDG POOL APPL-BAL1")
    threads = [threading.Thread(target=lambda i=i: [
        deliver(f"{i}-{n}".encode(), wait=False, ReplyToQMgr=b"TPF1") for n in range(50)])
        for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert system.dispatcher.wait_idle(WAIT)
    texts = sorted(data for data, _ in get_all(qm, "REPLY.Q"))
    assert texts == sorted(f"OK {i}-{n}".encode() for i in range(4) for n in range(50))
