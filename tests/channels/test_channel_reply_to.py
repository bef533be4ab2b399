"""The MQPUT rule for a blank ReplyToQMgr with a ReplyToQ set (issue 25), which replies
over channels depend on: a reply-to alias (a local definition of a remote queue) gives its
RNAME and RQMNAME, otherwise the connected queue manager's name is carried. The put plan
(C) and the full path (Python) apply it alike."""

import itertools

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager
from tpfemu.qmgr.plans import planned_put

_names = itertools.count(1)


@pytest.fixture
def qmgr():
    """A started queue manager with a profile, a local queue and a transmission queue."""
    manager = QueueManager(f"RQM{next(_names)}").start()
    manager.catalog.define("MQP")
    manager.catalog.define("QL", "APP.Q")
    manager.catalog.define("QL", "QMB", usage="XMITQ")
    yield manager
    manager.stop()


@pytest.fixture
def qm(qmgr):
    conn = pymqi.connect(qmgr.name)
    yield conn
    conn.disconnect()


def _put_get(qm, md, queue="APP.Q"):
    q = pymqi.Queue(qm, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"request", md)
    out = pymqi.MD()
    q.get(None, out)
    q.close()
    return out


def test_blank_reply_to_qmgr_becomes_the_connected_qmgr(qmgr, qm):
    """A request with ReplyToQ set and ReplyToQMgr blank arrives with the qmgr's name."""
    md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q")
    out = _put_get(qm, md)
    assert out.ReplyToQ.rstrip() == b"REPLY.Q"
    assert out.ReplyToQMgr.rstrip() == qmgr.name.encode()


def test_reply_to_alias_gives_rname_and_rqmname(qmgr, qm):
    """A ReplyToQ naming a remote queue definition carries its RNAME and RQMNAME."""
    qmgr.catalog.define("QR", "MY.REPLY", rname="REPLY.AT.B", rqmname="QMB", xmitq="QMB")
    md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"MY.REPLY")
    out = _put_get(qm, md)
    assert (out.ReplyToQ.rstrip(), out.ReplyToQMgr.rstrip()) == (b"REPLY.AT.B", b"QMB")


def test_explicit_reply_to_qmgr_is_kept(qmgr, qm):
    """A ReplyToQMgr the application gives is left as it is."""
    md = pymqi.MD(ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"ELSEWHERE")
    out = _put_get(qm, md)
    assert out.ReplyToQMgr.rstrip() == b"ELSEWHERE"


def test_no_reply_to_q_leaves_reply_to_qmgr_blank(qmgr, qm):
    """Without a ReplyToQ the ReplyToQMgr stays blank, with an MD and with none."""
    assert _put_get(qm, pymqi.MD()).ReplyToQMgr.strip() == b""
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"no md")
    out = pymqi.MD()
    assert q.get(None, out) == b"no md"
    assert out.ReplyToQMgr.strip() == b""


def test_the_put_plan_applies_the_rule(qmgr, qm):
    """A put served by the handle's plan in C fills in the qmgr name as the full path does."""
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"warm", pymqi.MD())
    q.get(None, pymqi.MD())
    handle = q.get_handle()
    assert handle.put_plan is not None
    md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q")
    assert planned_put(handle.put_plan, b"planned", md, None) is True
    out = pymqi.MD()
    assert q.get(None, out) == b"planned"
    assert out.ReplyToQMgr.rstrip() == qmgr.name.encode()


def test_the_put_plan_declines_a_reply_to_alias(qmgr, qm):
    """The plan leaves a reply-to alias to the full path, which gives RNAME and RQMNAME."""
    qmgr.catalog.define("QR", "MY.REPLY", rname="REPLY.AT.B", rqmname="QMB", xmitq="QMB")
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    q.put(b"warm", pymqi.MD())
    q.get(None, pymqi.MD())
    handle = q.get_handle()
    md = pymqi.MD(ReplyToQ=b"MY.REPLY")
    assert planned_put(handle.put_plan, b"x", md, None) is False
    q.put(b"aliased", md)
    out = pymqi.MD()
    assert q.get(None, out) == b"aliased"
    assert (out.ReplyToQ.rstrip(), out.ReplyToQMgr.rstrip()) == (b"REPLY.AT.B", b"QMB")


def test_remote_put_carries_the_rule_in_the_xqh(qmgr, qm):
    """A put to a remote queue carries the filled-in ReplyToQMgr in its MQXQH's MQMD."""
    from tpfemu.mq.headers import XQH

    qmgr.catalog.define("QR", "REMOTE.Q", rname="LOCAL.Q", rqmname="QMB", xmitq="QMB")
    q = pymqi.Queue(qm, "REMOTE.Q", CMQC.MQOO_OUTPUT)
    q.put(b"over there", pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q"))
    xq = pymqi.Queue(qm, "QMB", CMQC.MQOO_INPUT_AS_Q_DEF)
    raw = xq.get()
    xqh = XQH().unpack(raw[:428])
    assert xqh.RemoteQName.rstrip() == b"LOCAL.Q"
    assert xqh.MsgDesc.ReplyToQMgr.rstrip() == qmgr.name.encode()
