"""COA and COD report messages (IBM's MQMD Report field; Feedback MQFB_COA/MQFB_COD).

Sources: mq-semantics.md §3 (Report options and Feedback values, report MsgId/CorrelId),
§2 (reports of syncpoint puts and gets are part of the unit of work and count in
MAXUMSGS). Each check is made on the first call of a handle (the full path) and on later
calls of the same handle (where a plan serves plain puts and gets).
"""

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

OUT = CMQC.MQOO_OUTPUT
IN = CMQC.MQOO_INPUT_AS_Q_DEF


@pytest.fixture
def queues(qmgr):
    """APP.Q (where messages go) and REPLY.Q (where their reports go)."""
    qmgr.catalog.define("QL", "APP.Q")
    qmgr.catalog.define("QL", "REPLY.Q")
    return "APP.Q", "REPLY.Q"


def _drain(qm, name):
    q = pymqi.Queue(qm, name, IN)
    out = []
    while True:
        md = pymqi.MD()
        try:
            data = q.get(None, md)
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            q.close()
            return out
        out.append((data, md))


def _put_many(qm, name, count, data=b"payload", pmo=None, **fields):
    """Put ``count`` messages on one handle (the first by the full path, the others where a
    plan may serve them); their MDs."""
    q = pymqi.Queue(qm, name, OUT)
    mds = []
    for _ in range(count):
        md = pymqi.MD(ReplyToQ=b"REPLY.Q", **fields)
        if pmo is None:
            q.put(data, md)
        else:
            q.put(data, md, pmo)
        mds.append(md)
    q.close()
    return mds


@pytest.mark.parametrize("option, body", [
    (CMQC.MQRO_COA, b""),
    (CMQC.MQRO_COA_WITH_DATA, b"x" * 100),
    (CMQC.MQRO_COA_WITH_FULL_DATA, b"x" * 300),
])
def test_coa_report_on_arrival(qm, queues, option, body):
    """A message asking for COA is reported to its ReplyToQ when it is put on its queue:
    MsgType REPORT, Feedback COA, CorrelId the original MsgId, a new MsgId, the original's
    priority and persistence, and no data, 100 bytes or all of it."""
    mds = _put_many(qm, "APP.Q", 3, b"x" * 300, Report=option, Priority=6)
    reports = _drain(qm, "REPLY.Q")
    assert [md.CorrelId for _, md in reports] == [md.MsgId for md in mds]
    for data, md in reports:
        assert data == body
        assert md.MsgType == CMQC.MQMT_REPORT and md.Feedback == CMQC.MQFB_COA
        assert md.Priority == 6 and md.Persistence == CMQC.MQPER_NOT_PERSISTENT
        assert md.MsgId not in {m.MsgId for m in mds}
        assert md.PutApplType == CMQC.MQAT_QMGR and md.Report == CMQC.MQRO_NONE
    assert len(_drain(qm, "APP.Q")) == 3


def test_pass_msg_id_and_pass_correl_id(qm, queues):
    """MQRO_PASS_MSG_ID gives the report the original's MsgId; MQRO_PASS_CORREL_ID its
    CorrelId."""
    report = CMQC.MQRO_COA | CMQC.MQRO_PASS_MSG_ID | CMQC.MQRO_PASS_CORREL_ID
    mds = _put_many(qm, "APP.Q", 2, Report=report, CorrelId=b"C" * 24)
    reports = _drain(qm, "REPLY.Q")
    assert [(md.MsgId, md.CorrelId) for _, md in reports] == [
        (md.MsgId, b"C" * 24) for md in mds]


def test_coa_inside_a_unit_of_work_follows_it(qm, queues):
    """The COA of a put under syncpoint is part of the unit of work: nothing before the
    commit, nothing after a backout, the reports after a commit."""
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    _put_many(qm, "APP.Q", 2, pmo=pmo, Report=CMQC.MQRO_COA)
    assert _drain(qm, "REPLY.Q") == []
    qm.backout()
    assert _drain(qm, "REPLY.Q") == [] and _drain(qm, "APP.Q") == []
    mds = _put_many(qm, "APP.Q", 2, pmo=pmo, Report=CMQC.MQRO_COA)
    qm.commit()
    assert [md.CorrelId for _, md in _drain(qm, "REPLY.Q")] == [md.MsgId for md in mds]


def test_cod_report_on_delivery_not_on_browse(qm, queues):
    """A message asking for COD is reported when an application gets it, with the first 100
    bytes for COD_WITH_DATA; a browse reports nothing."""
    mds = _put_many(qm, "APP.Q", 3, b"y" * 150, Report=CMQC.MQRO_COD_WITH_DATA)
    browse = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_BROWSE)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    for _ in range(3):
        browse.get(None, pymqi.MD(), gmo)
    browse.close()
    assert _drain(qm, "REPLY.Q") == []
    assert len(_drain(qm, "APP.Q")) == 3
    reports = _drain(qm, "REPLY.Q")
    assert [md.CorrelId for _, md in reports] == [md.MsgId for md in mds]
    assert all(md.Feedback == CMQC.MQFB_COD and data == b"y" * 100 for data, md in reports)


def test_cod_inside_a_unit_of_work_follows_it(qm, queues):
    """The COD of a get under syncpoint is part of the unit of work: a backout puts the
    message back and sends no report; a commit sends it."""
    mds = _put_many(qm, "APP.Q", 2, Report=CMQC.MQRO_COD)
    q = pymqi.Queue(qm, "APP.Q", IN)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    for _ in range(2):
        q.get(None, pymqi.MD(), gmo)
    assert _drain(qm, "REPLY.Q") == []
    qm.backout()
    assert _drain(qm, "REPLY.Q") == []
    for _ in range(2):
        q.get(None, pymqi.MD(), gmo)
    qm.commit()
    q.close()
    assert [md.CorrelId for _, md in _drain(qm, "REPLY.Q")] == [md.MsgId for md in mds]


def test_no_coa_on_a_transmission_queue(qm, qmgr, queues):
    """A message put to a remote queue waits on a transmission queue: it has not arrived,
    so no COA is made (the destination's queue manager makes it)."""
    qmgr.catalog.define("QL", "XQ.B", usage="XMITQ")
    qmgr.catalog.define("QR", "FAR.Q", rname="APP.Q", rqmname="QMB", xmitq="XQ.B")
    _put_many(qm, "FAR.Q", 2, Report=CMQC.MQRO_COA | CMQC.MQRO_COD)
    assert _drain(qm, "REPLY.Q") == []


def test_report_without_reply_to_queue_is_refused(qm, queues):
    """A message asking for a report with a blank ReplyToQ fails MQRC_MISSING_REPLY_TO_Q
    and puts nothing (on every put of the handle)."""
    q = pymqi.Queue(qm, "APP.Q", OUT)
    for _ in range(2):
        with pytest.raises(pymqi.MQMIError) as info:
            q.put(b"x", pymqi.MD(Report=CMQC.MQRO_COA))
        assert info.value.reason == CMQC.MQRC_MISSING_REPLY_TO_Q
    q.close()
    assert _drain(qm, "APP.Q") == []


def test_put1_with_set_all_context_opens_for_it(qm, queues):
    """MQPUT1 with MQPMO_SET_ALL_CONTEXT opens its queue with MQOO_SET_ALL_CONTEXT, as
    IBM's: the context given in the MD is put."""
    md = pymqi.MD(PutApplName=b"ORIGIN".ljust(28), UserIdentifier=b"SOMEONE".ljust(12))
    qm.put1("APP.Q", b"ctx", md, pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    [(data, got)] = _drain(qm, "APP.Q")
    assert got.PutApplName.rstrip() == b"ORIGIN" and got.UserIdentifier.rstrip() == b"SOMEONE"


def test_no_coa_or_cod_for_a_dead_letter(qm, queues):
    """A message behind an MQDLH (Format MQDEAD, as a receiving channel dead-letters one)
    has not reached its destination: putting or getting it makes no COA or COD."""
    _put_many(qm, "APP.Q", 2, Report=CMQC.MQRO_COA | CMQC.MQRO_COD,
              Format=CMQC.MQFMT_DEAD_LETTER_HEADER)
    assert len(_drain(qm, "APP.Q")) == 2
    assert _drain(qm, "REPLY.Q") == []


@pytest.mark.parametrize("kind", ["coa", "cod"])
def test_a_report_dead_lettered_in_a_unit_of_work_follows_it(qm, queues, kind):
    """A COA or COD made in a unit of work whose ReplyToQ cannot take it is dead-lettered
    in that unit of work: a backout leaves no dead letter (the message it reports on was
    never put, or is back on its queue); a commit makes it, behind an MQDLH naming the
    reason and the reply queue."""
    sync_put = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    sync_get = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)

    def work():
        if kind == "coa":
            q = pymqi.Queue(qm, "APP.Q", OUT)
            q.put(b"x", pymqi.MD(Report=CMQC.MQRO_COA, ReplyToQ=b"NO.SUCH.Q"), sync_put)
        else:
            q = pymqi.Queue(qm, "APP.Q", IN)
            q.get(None, pymqi.MD(), sync_get)
        q.close()

    if kind == "cod":
        for _ in range(2):
            qm.put1("APP.Q", b"x", pymqi.MD(Report=CMQC.MQRO_COD, ReplyToQ=b"NO.SUCH.Q"))
    work()
    qm.backout()
    assert _drain(qm, "DEAD.LETTER.QUEUE") == []
    work()
    qm.commit()
    [(data, md)] = _drain(qm, "DEAD.LETTER.QUEUE")
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    dlh = pymqi.DLH()
    dlh.unpack(data[:172])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip(b" \0") == b"NO.SUCH.Q"
