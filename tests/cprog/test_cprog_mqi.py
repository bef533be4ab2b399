"""The MQI from C (cmqc.h, native/runtime): programs compiled with -Wall -Wextra -Werror
against the shipped headers, run as entries of a System; they report on RESULT.Q."""

from __future__ import annotations

import pytest
from cprog_helpers import blank, long_at

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

MD2 = 364


@pytest.fixture
def mqcalls(system, build):
    path = build("mqcalls")
    for name in ("QPUT", "QGET", "QBRW", "QUOW", "QBAD", "QSML", "QINQ", "QRAW", "QINC",
                 "QSTB", "QDSC", "QRES", "QCSP"):
        system.programs.load_shared(name, path)
    system.console("ZMQSC DEF QL-C.IN")
    system.console("ZMQSC DEF QL-C.UOW")
    return system


def test_c_put_sets_every_mqmd_field_as_python_reads_it(mqcalls, results):
    """A C MQPUT with every settable MQMD field is read back by a Python MQGET with those
    values, the put context is the queue manager's (PutApplName = the program), and the MD
    MQPUT returned to C holds the message's PutDate/PutTime."""
    mqcalls.dispatcher.cremc("QPUT")
    assert results.rc() == ("MQPUT", CMQC.MQCC_OK, 0)
    returned = results.next()
    pmo = results.next()
    assert len(returned) == MD2 and len(pmo) == 184
    assert pmo[32:80] == blank("C.IN", 48), "ResolvedQName written back"
    assert pmo[80:128] == blank(mqcalls.name, 48), "ResolvedQMgrName written back"
    md = pymqi.MD(Version=2)
    data = pymqi.Queue(results.qm, "C.IN").get(None, md)
    assert data == b"from C QPUT"
    assert md.Report == CMQC.MQRO_COA
    assert md.MsgType == CMQC.MQMT_REQUEST
    assert 0 < md.Expiry <= 600000
    assert md.Feedback == 7
    assert md.Encoding == CMQC.MQENC_NATIVE
    assert md.CodedCharSetId == 1208
    assert md.Format == CMQC.MQFMT_STRING
    assert md.Priority == 6
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert md.MsgId == b"C-MSGID-0000000000000001"
    assert md.CorrelId == b"C-CORRELID-0000000000001"
    assert md.BackoutCount == 0
    assert md.ReplyToQ == blank("REPLY.Q", 48)
    assert md.ReplyToQMgr == blank("OTHER.QM", 48)
    assert md.PutApplType == CMQC.MQAT_TPF
    assert md.PutApplName == blank("QPUT", 28)
    assert md.GroupId == b"GROUP-ID-FROM-C-PROGRAM!"
    assert md.MsgSeqNumber == 1 and md.Offset == 0 and md.MsgFlags == 0
    assert md.OriginalLength == CMQC.MQOL_UNDEFINED
    assert returned[48:72] == md.MsgId
    assert returned[304:312] == md.PutDate and md.PutDate.isdigit()
    assert returned[312:320] == md.PutTime and md.PutTime.isdigit()
    assert returned[276:304] == md.PutApplName
    assert long_at(returned, 272) == CMQC.MQAT_TPF


def test_c_get_returns_every_mqmd_field_python_put(mqcalls, results):
    """A C MQGET (MQMD version 2) returns the descriptor of a message Python put, byte for
    byte as Python's own MQGET of an identical message returns it, and the data; a second
    get finds the queue empty (2033)."""
    q = pymqi.Queue(results.qm, "C.IN")
    fields = dict(Version=2, Report=CMQC.MQRO_PAN, MsgType=CMQC.MQMT_DATAGRAM,
                  Feedback=3, CodedCharSetId=850, Format=CMQC.MQFMT_STRING, Priority=8,
                  Persistence=CMQC.MQPER_NOT_PERSISTENT, CorrelId=b"PY-CORREL".ljust(24, b"\0"),
                  ReplyToQ=b"PY.REPLY", ReplyToQMgr=b"PYQM", GroupId=b"G" * 24,
                  MsgSeqNumber=3, Offset=0)
    sent = pymqi.MD(MsgId=b"FIRST".ljust(24, b"\0"), **fields)
    q.put(b"python data", sent)
    mqcalls.dispatcher.cremc("QGET")
    assert results.rc() == ("MQGET", CMQC.MQCC_OK, 0)
    c_md = results.next()
    assert results.next() == b"python data"
    gmo = results.next()
    assert results.rc() == ("MQGET again", CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert len(gmo) == 112 and gmo[:8] == b"GMO \x03\x00\x00\x00", "the GMO left valid"
    q.put(b"python data", pymqi.MD(MsgId=b"SECOND".ljust(24, b"\0"), **fields))
    py_md = pymqi.MD(Version=2)
    pymqi.Queue(results.qm, "C.IN").get(None, py_md)
    expected = bytearray(py_md.pack())
    expected[48:72] = sent.MsgId
    expected[304:320] = sent.PutDate + sent.PutTime
    assert c_md == bytes(expected)
    assert c_md[40:44] == (8).to_bytes(4, "little") and c_md[100:148] == blank("PY.REPLY", 48)


def test_c_browse_and_truncated_gets(mqcalls, results):
    """BROWSE_FIRST/BROWSE_NEXT return the messages in order and leave them; a buffer too
    short fails 2080 with DataLength the full length and the message kept; with
    ACCEPT_TRUNCATED_MSG it warns 2079 and returns the first bytes, the message gone."""
    q = pymqi.Queue(results.qm, "C.IN")
    q.put(b"first message")
    q.put(b"second")
    mqcalls.dispatcher.cremc("QBRW")
    assert results.rc() == ("BROWSE", CMQC.MQCC_OK, 0)
    assert results.next() == b"first message"
    assert results.rc() == ("BROWSE", CMQC.MQCC_OK, 0)
    assert results.next() == b"second"
    assert results.rc() == ("SHORT", CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_FAILED)
    assert long_at(results.next(), 0) == len(b"first message")
    assert results.rc() == ("TRUNCATED", CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert results.next() == b"firs"
    assert pymqi.Queue(results.qm, "C.IN").get() == b"second", "the truncated one is gone"


@pytest.mark.parametrize(("how", "kept"), [("T", 2), ("R", 0), ("C", 2), ("B", 0)])
def test_c_units_of_work(mqcalls, results, how, kept):
    """Puts in a TPF commit scope (tx_begin, then tx_commit or tx_rollback) or under
    MQPMO_SYNCPOINT (then MQCMIT or MQBACK) count in the depth but stay invisible until the
    end, which keeps them all or none."""
    mqcalls.dispatcher.cremc("QUOW", how.encode())
    assert long_at(results.next(), 0) == 2, "uncommitted puts count in CURDEPTH"
    if how in "CB":
        assert results.rc() == ("END", CMQC.MQCC_OK, 0)
    assert mqcalls.dispatcher.wait_idle(5)
    assert mqcalls.qmgr.queues["C.UOW"].core.depth == kept
    assert not mqcalls.dispatcher.dumps


def test_c_program_leaving_a_commit_scope_open_gets_the_system_error(mqcalls, results):
    """A C program that ends with its commit scope open gets TPF's system error (the scope
    is rolled back), as a Python program does."""
    mqcalls.dispatcher.cremc("QUOW", b"O")
    results.next()
    assert mqcalls.dispatcher.wait_idle(5)
    dumps = mqcalls.dispatcher.dumps
    assert len(dumps) == 1 and dumps[0].code.name == "EXIT_SCOPE_OPEN"
    assert mqcalls.qmgr.queues["C.UOW"].core.depth == 0


def test_c_mqi_argument_errors(mqcalls, results):
    """A bad hconn is 2018, a bad hobj 2019, an MD whose StrucId is wrong 2026; a second
    MQCONN in the entry warns 2002."""
    mqcalls.dispatcher.cremc("QBAD")
    assert results.rc() == ("BADHCONN", CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
    assert results.rc() == ("BADHOBJ", CMQC.MQCC_FAILED, CMQC.MQRC_HOBJ_ERROR)
    assert results.rc() == ("BADMD", CMQC.MQCC_FAILED, CMQC.MQRC_MD_ERROR)
    assert results.rc() == ("CONNAGAIN", CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)


def test_message_longer_than_a_lowered_maxmsgl_is_truncated_with_a_warning(mqcalls, results):
    """Deviation: a C MQGET whose buffer holds MAXMSGL takes the handle's plan, which gets
    whole messages; a message put before MAXMSGL was lowered below its length comes back
    truncated to the buffer with MQRC_TRUNCATED_MSG_ACCEPTED (2079) and its full length,
    and is gone (IBM: 2080 and the message kept, without ACCEPT_TRUNCATED_MSG)."""
    q = pymqi.Queue(results.qm, "C.IN")
    q.put(b"s" * 50)  # a get with a short buffer makes the handle's plan first
    q.put(b"L" * 300)
    mqcalls.console("ZMQSC ALT QL-C.IN MAXMSGL-100")
    mqcalls.dispatcher.cremc("QSML")
    assert results.rc() == ("SMALL", CMQC.MQCC_OK, 0)
    assert long_at(results.next(), 0) == 50
    assert results.rc() == ("SMALL", CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
    assert long_at(results.next(), 0) == 300
    assert mqcalls.qmgr.queues["C.IN"].core.depth == 0


def test_c_mqconnx_mqset_and_mqinq(mqcalls, results):
    """MQCONNX with MQCNO_DEFAULT connects; MQSET changes TriggerControl and TriggerData;
    MQINQ returns integer and character attributes in selector order (character ones
    concatenated, blank-padded), and warns 2022 when IntAttrs are too few."""
    mqcalls.console("ZMQSC ALT QL-C.IN MAXDEPTH-777")
    mqcalls.dispatcher.cremc("QINQ")
    assert results.rc() == ("MQCONNX", CMQC.MQCC_OK, 0)
    assert results.rc() == ("MQSET", CMQC.MQCC_OK, 0)
    assert results.rc() == ("MQINQ", CMQC.MQCC_OK, 0)
    ints = results.next()
    assert (long_at(ints, 0), long_at(ints, 4)) == (CMQC.MQTC_ON, 777)
    assert results.next() == blank("C.IN", 48) + blank("SET FROM C", 64)
    assert results.rc() == ("MQINQ short", CMQC.MQCC_WARNING,
                            CMQC.MQRC_INT_ATTR_COUNT_TOO_SMALL)
    assert mqcalls.qmgr.catalog.find_queue("C.IN").trigger == "YES"


def test_c_calls_by_the_plans_raw_entry_equal_the_full_paths(mqcalls, results, monkeypatch):
    """A C program's second MQPUT and MQGET, served by the handle's plans on the C
    structures in place (tpf/plan_raw.h), return the same MD, PMO, GMO and data as the
    first, which took the full path: only the made MsgId and the put time differ."""
    from tpfemu.cprog import calls

    full = {"put": 0, "get": 0}

    def counting(name):
        call = getattr(calls, name)

        def counted(*args):
            full[name] += 1
            return call(*args)
        return counted

    for name in full:
        monkeypatch.setattr(calls, name, counting(name))
    mqcalls.console("ZMQSC ALT QL-C.IN MAXMSGL-256")
    mqcalls.dispatcher.cremc("QRAW")
    puts = [(results.rc(), results.next(), results.next()) for _ in range(2)]
    gets, gmos = [], []
    for _ in range(2):
        gets.append((results.rc(), results.next(), results.next()))
        gmos.append(results.next()[:72])  # (a version-1 MQGMO)
    assert full == {"put": 1, "get": 1}, "the second calls took the plans"
    for rc, _, _ in puts + gets:
        assert rc[1:] == (CMQC.MQCC_OK, 0)
    (_, md1, pmo1), (_, md2, pmo2) = puts
    assert pmo1 == pmo2 and pmo1[32:80] == blank("C.IN", 48)
    assert md1[48:72] != md2[48:72] and md1[304:312].isdigit() and md2[304:312].isdigit()
    assert md1[:48] + md1[72:304] + md1[320:] == md2[:48] + md2[72:304] + md2[320:]
    assert md1[32:40] == CMQC.MQFMT_STRING, "the Format read up to its null, padded"
    (_, got1, data1), (_, got2, data2) = gets
    assert data1 == data2 == b"everyday"
    assert got1[:48] + got1[72:304] + got1[320:] == got2[:48] + got2[72:304] + got2[320:]
    assert got1[48:72] == md1[48:72] and got2[48:72] == md2[48:72]
    assert long_at(got2, 12) == CMQC.MQMT_DATAGRAM and got2[272:276] != bytes(4)
    assert gmos[0] == gmos[1], "the GMO left as the full path leaves it"
    assert gmos[0][24:72] == blank("C.IN", 48), "its ResolvedQName: the queue, padded"


def test_c_mqinq_returns_only_whole_character_attributes(mqcalls, results):
    """IBM (2008 MQRC_CHAR_ATTRS_TOO_SHORT): with CharAttrs too short, only whole
    attributes are returned, the one that does not fit and those after it are left out,
    and the space not used is unchanged: Q_NAME (48) fits in 60 bytes, TriggerData (64)
    does not, and bytes 48..99 keep what the program put there."""
    mqcalls.dispatcher.cremc("QINC")
    assert results.rc() == ("MQINQ", CMQC.MQCC_WARNING, CMQC.MQRC_CHAR_ATTRS_TOO_SHORT)
    assert results.next() == blank("C.IN", 48) + b"#" * 52


def test_c_mqset_checks_its_counts_first_and_changes_all_or_nothing(mqcalls, results):
    """IBM: MQSET fails 2006 MQRC_CHAR_ATTR_LENGTH_ERROR when CharAttrLength cannot hold
    the character attributes selected, 2021 MQRC_INT_ATTR_COUNT_ERROR when there are
    fewer IntAttrs than integer selectors; a refused value (2077) changes nothing,
    including the attributes selected before it."""
    before = mqcalls.qmgr.catalog.find_queue("C.IN")
    mqcalls.dispatcher.cremc("QSTB")
    assert results.rc() == ("MQSET chars", CMQC.MQCC_FAILED, CMQC.MQRC_CHAR_ATTR_LENGTH_ERROR)
    assert results.rc() == ("MQSET ints", CMQC.MQCC_FAILED, CMQC.MQRC_INT_ATTR_COUNT_ERROR)
    assert results.rc() == ("MQSET bad value", CMQC.MQCC_FAILED,
                            CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR)
    after = mqcalls.qmgr.catalog.find_queue("C.IN")
    assert (after.trigger, after.trigdata, after.trigdpth, after.trigmpri) == \
        (before.trigger, before.trigdata, before.trigdpth, before.trigmpri)


def test_c_handles_around_mqconn_and_mqdisc(mqcalls, results):
    """MQCONN to a queue manager not running fails 2058 with MQHC_UNUSABLE_HCONN; a second
    MQCONN warns 2002 and returns the same hconn; MQDISC sets the hconn unusable, and the
    old value then fails 2018 on MQPUT1 and MQDISC; a failed MQOPEN (2085) returns
    MQHO_UNUSABLE_HOBJ."""
    mqcalls.dispatcher.cremc("QDSC")
    assert results.rc() == ("CONN OTHER", CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NAME_ERROR)
    assert long_at(results.next(), 0) == CMQC.MQHC_UNUSABLE_HCONN
    assert results.rc() == ("CONN AGAIN", CMQC.MQCC_WARNING, CMQC.MQRC_ALREADY_CONNECTED)
    assert long_at(results.next(), 0) == 1, "the same hconn"
    assert results.rc() == ("DISC", CMQC.MQCC_OK, 0)
    assert long_at(results.next(), 0) == CMQC.MQHC_UNUSABLE_HCONN
    assert results.rc() == ("PUT1 OLD", CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
    assert results.rc() == ("DISC OLD", CMQC.MQCC_FAILED, CMQC.MQRC_HCONN_ERROR)
    assert results.rc() == ("OPEN", CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME)
    assert long_at(results.next(), 0) == CMQC.MQHO_UNUSABLE_HOBJ


def test_c_mqopen_resolved_names_only_for_a_queue_opened_to_browse_get_or_put(mqcalls,
                                                                               results):
    """IBM (MQOD ResolvedQName, ResolvedQMgrName, version 3): a nonblank value only for a
    queue opened for browse, input or output: the queue's name after resolution (the
    alias's base queue; a remote queue's queue and queue manager there, not the
    transmission queue); blanks for a queue opened only to inquire and for a queue
    manager."""
    mqcalls.console("ZMQSC DEF QA-C.ALIAS TARGQ-C.IN")
    mqcalls.console("ZMQSC DEF QL-C.XMIT USAGE-XMITQ")
    mqcalls.console("ZMQSC DEF QR-C.REMOTE RNAME-THERE.Q RQMNAME-THERE.QM XMITQ-C.XMIT")
    mqcalls.dispatcher.cremc("QRES")
    here = mqcalls.name
    expected = [("C.IN", here), ("", ""), ("C.IN", here), ("THERE.Q", "THERE.QM"), ("", "")]
    for q, qm in expected:
        assert results.rc() == ("MQOPEN", CMQC.MQCC_OK, 0)
        assert results.next() == blank(q, 48) + blank(qm, 48), (q, qm)


def test_c_mqconnx_with_a_version_5_mqcno_and_mqcsp(mqcalls, results):
    """A program written as IBM's newer samples (an MQCSP with a user id and password on a
    version-5 MQCNO, MQCNO_DEFAULT and MQCSP_DEFAULT) compiles and connects: MQCONNX
    reads the version-1 fields; the structures have IBM's 64-bit sizes."""
    mqcalls.dispatcher.cremc("QCSP")
    assert results.rc() == ("MQCONNX", CMQC.MQCC_OK, 0)
    sizes = results.next()
    assert (long_at(sizes, 0), long_at(sizes, 4)) == (200, 56)
