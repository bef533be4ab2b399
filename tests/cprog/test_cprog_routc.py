"""routc() from C programs: a C terminal application loaded as the ROUTC bridge's
application reads its AM0SG on D0 and RCPL at EBW000 (tpf/c_am0sg.h, tpf/c_rc0pl.h) and
answers with routc(): an MQ reply for an MQ terminal, the terminal log for an ordinary
one, a system-error dump for an unknown LNIATA or no RCPL."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from ecb import ErrorCode
from tpfemu.bridge import Lniata, Rcpl
from tpfemu.mqi import CMQC

WAIT = 5.0
C_PROGRAMS = ("CBAL", "CTRM", "CNUL")


@pytest.fixture
def apps(system: tpfemu.System, build) -> tpfemu.System:
    """The system with bridgeapp.c's programs loaded and REPLY.Q defined."""
    path = build("bridgeapp")
    for name in C_PROGRAMS:
        system.programs.load_shared(name, path)
    system.console("ZMQSC DEF QL-REPLY.Q")
    return system


@pytest.fixture
def deliver(apps: tpfemu.System) -> Callable[..., None]:
    """Deliver one nonpersistent request as the fast receiver does (tests/bridge's
    conftest does the same), then wait for the entries it starts."""

    def send(data: bytes, **fields: object) -> None:
        fields.setdefault("ReplyToQ", b"REPLY.Q")
        fields.setdefault("ReplyToQMgr", apps.name.encode())
        fields.setdefault("Persistence", CMQC.MQPER_NOT_PERSISTENT)
        fields.setdefault("Format", CMQC.MQFMT_STRING)
        assert apps.bridge is not None
        apps.bridge.deliver("PARTNER.TO.TPF", pymqi.MD(**fields), data)
        assert apps.dispatcher.wait_idle(WAIT)

    return send


def _replies(system: tpfemu.System) -> list[tuple[bytes, pymqi.MD]]:
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "REPLY.Q", CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = pymqi.MD()
            out.append((q.get(None, md), md))
    except pymqi.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        q.close()
        qm.disconnect()
    return out


def test_c_application_answers_a_bridged_request_with_routc(apps, deliver):
    """The C application reads the AM0SG on D0 (text, LNIATA, MQ flag) and the RCPL at
    EBW000 byte for byte as tpfemu.bridge lays them out; its routc() answer to the
    origin arrives as an MQ reply with MsgType REPLY and the request's MsgId as
    CorrelId, and routc() released D0 (else the program aborts: a dump)."""
    apps.console(f"ZBRDG DEF LN-0A0101 APPL-CBAL RQ-* RQM-{apps.name}")
    deliver(b"BALANCE 42", MsgId=b"M" * 24, CorrelId=b"C" * 24)
    assert not apps.dispatcher.dumps
    [(data, md)] = _replies(apps)
    rcpl = Rcpl("CBAL", Lniata.parse("0A0101"), from_mq=True).pack()
    assert data == (b"OK BALANCE 42 LNI=0A0101 FLG=80 DES=" + rcpl[0:4].hex().upper().encode()
                    + b" ORG=" + rcpl[4:8].hex().upper().encode()
                    + b" CTL=" + rcpl[8:9].hex().upper().encode())
    assert rcpl[4:8] == b"\x00\x0a\x01\x01" and rcpl[8] == 0xB0
    assert md.MsgType == CMQC.MQMT_REPLY and md.CorrelId == b"M" * 24
    assert md.MsgId not in (b"M" * 24, bytes(24))


def test_c_application_answers_every_request_in_turn(apps, deliver):
    """Three requests to the C application get three replies, each correlated with its
    own request's MsgId."""
    apps.console(f"ZBRDG DEF LN-0A0101 APPL-CBAL RQ-* RQM-{apps.name}")
    for n in range(3):
        deliver(b"Q%d" % n, MsgId=bytes([65 + n]) * 24)
    replies = _replies(apps)
    assert [md.CorrelId for _, md in replies] == [bytes([65 + n]) * 24 for n in range(3)]
    assert [data.split(b" ")[1] for data, _ in replies] == [b"Q0", b"Q1", b"Q2"]


def test_c_routc_to_an_ordinary_lniata_reaches_the_terminal_log(apps):
    """routc() to an LNIATA without the MQ mark appends each AM0SG's text to that
    terminal's log and puts nothing; the level is free again after each routc()."""
    apps.console("ZBRDG DEF LN-0B0001")
    apps.dispatcher.cremc("CTRM", bytes.fromhex("0B0001"))
    assert apps.dispatcher.wait_idle(WAIT) and not apps.dispatcher.dumps
    assert apps.bridge.terminal_log("0B0001") == [b"SEAT 12A", b"SEAT 12B"]
    assert apps.bridge.operator.terminal("0B0001")["outputs"] == 2
    assert _replies(apps) == []


def test_c_routc_to_an_unknown_lniata_ends_the_entry_with_a_dump(apps):
    """routc() to an LNIATA no terminal has is system error E0602: the entry ends there
    (its second message is never sent) with a dump naming the LNIATA and the program,
    and the emulator goes on: the next entry's routc() works."""
    apps.console("ZBRDG DEF LN-0B0001")
    apps.dispatcher.cremc("CTRM", bytes.fromhex("0C0C0C"))
    assert apps.dispatcher.wait_idle(WAIT)
    [dump] = apps.dispatcher.dumps
    assert dump.error.code == ErrorCode.ROUTC_UNKNOWN_DESTINATION
    assert "0C0C0C" in dump.text and "CTRM" in dump.text
    assert dump.text in "\n".join(apps.log)
    apps.dispatcher.cremc("CTRM", bytes.fromhex("0B0001"))
    assert apps.dispatcher.wait_idle(WAIT) and len(apps.dispatcher.dumps) == 1
    assert apps.bridge.terminal_log("0B0001") == [b"SEAT 12A", b"SEAT 12B"]


def test_c_routc_with_no_rcpl_is_a_system_error(apps):
    """routc(NULL, level) routes nothing: system error E0603 (an RCPL too short to
    read), with a dump, as an unreadable RCPL is from Python."""
    apps.dispatcher.cremc("CNUL")
    assert apps.dispatcher.wait_idle(WAIT)
    [dump] = apps.dispatcher.dumps
    assert dump.error.code == ErrorCode.ROUTC_BAD_MESSAGE
    assert "RCPL is at least 12 bytes" in str(dump.error) and "CNUL" in dump.text
