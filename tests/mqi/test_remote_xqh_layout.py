"""The MQXQH of a put to a remote queue, packed in one call from the flat layout that
tpfemu.qmgr.mqput derives from the XQH and MD structures, is byte for byte what those
structures pack for the same fields."""

from __future__ import annotations

import tpfemu.mqi as pymqi
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC

XQH_LEN = CMQC.MQXQH_LENGTH_1


def test_remote_put_xqh_is_the_structures_packing(qmgr, qm):
    """Every field of the MQXQH and its embedded MQMD v1 (context set by the putter)
    equals what XQH(...).pack() makes of the putter's MD after the put."""
    qmgr.catalog.define("QL", "OTHERQM", usage="XMITQ")
    qmgr.catalog.define("QR", "RQ", rname="TARGET.Q", rqmname="OTHERQM")
    md = pymqi.MD(Report=CMQC.MQRO_COA, MsgType=CMQC.MQMT_REQUEST, Expiry=12345,
                  Feedback=7, Encoding=785, CodedCharSetId=500, Format=CMQC.MQFMT_STRING,
                  Priority=3, Persistence=CMQC.MQPER_NOT_PERSISTENT,
                  CorrelId=b"C" * 24, ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"HOME",
                  UserIdentifier=b"USER1", AccountingToken=b"\x01" * 32,
                  ApplIdentityData=b"IDENTITY", PutApplType=CMQC.MQAT_UNIX,
                  PutApplName=b"APPNAME", PutDate=b"20260102", PutTime=b"03040506",
                  ApplOriginData=b"ORIG")
    queue = pymqi.Queue(qm, "RQ", CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT)
    queue.put(b"payload", md, pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT))
    queue.close()
    data = pymqi.Queue(qm, "OTHERQM", CMQC.MQOO_INPUT_SHARED).get(None, pymqi.MD())
    inner = pymqi.MD(**{f: getattr(md, f) for f in (
        "Report", "MsgType", "Expiry", "Feedback", "Encoding", "CodedCharSetId", "Format",
        "Priority", "Persistence", "MsgId", "CorrelId", "ReplyToQ", "ReplyToQMgr",
        "UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType",
        "PutApplName", "PutDate", "PutTime", "ApplOriginData")})
    expected = XQH(RemoteQName=b"TARGET.Q", RemoteQMgrName=b"OTHERQM", MsgDesc=inner).pack()
    assert bytes(md.MsgId) != bytes(24)
    assert data[:XQH_LEN] == expected
    assert data[XQH_LEN:] == b"payload"
