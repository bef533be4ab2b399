"""The transmission-queue message a sender channel takes (IBM, MQXQH - Transmission-queue
header): its separate MQMD says Format MQXMIT and the Encoding and CodedCharSetId of the
MQXQH (native, the queue manager's 1208); the MQXQH names the destination and carries the
message's own MQMD, whose Encoding, CCSID and Format describe the data."""

from __future__ import annotations

import struct

import pytest
from mca_helpers import get, ok, start, unique

from tpfemu import mqi
from tpfemu.mqi import CMQC

_MD_AT = 104  # the MQXQH's MsgDesc


@pytest.fixture
def system():
    a = start(unique("XA"))
    try:
        ok(a, "ZMQSC DEF QL-XQ USAGE-XMITQ")
        ok(a, "ZMQSC DEF QR-R.Q RNAME-L.Q RQMNAME-QB XMITQ-XQ")
        yield a
    finally:
        a.stop()


@pytest.mark.parametrize("how", ["put1", "put"])
def test_xmitq_message_mqmd_describes_the_mqxqh(system, how):
    """By MQPUT1 and by MQPUT on an open handle (twice: the second may take a plan) alike."""
    qm = mqi.connect(system.name)
    try:
        fields = dict(CodedCharSetId=500, Encoding=CMQC.MQENC_S390, Format=CMQC.MQFMT_STRING,
                      Priority=3)
        if how == "put1":
            qm.put1(mqi.OD(ObjectName=b"R.Q"), b"\xc1\xc2", mqi.MD(**fields))
        else:
            queue = mqi.Queue(qm, "R.Q", CMQC.MQOO_OUTPUT)
            for _ in range(2):
                queue.put(b"\xc1\xc2", mqi.MD(**fields))
            queue.close()
    finally:
        qm.disconnect()
    for _ in range(1 if how == "put1" else 2):
        data, md = get(system.name, "XQ")
        assert (md.Format, md.Encoding, md.CodedCharSetId) == (
            CMQC.MQFMT_XMIT_Q_HEADER, CMQC.MQENC_NATIVE, 1208)
        assert md.Priority == 3
        assert data[:4] == b"XQH " and data[8:56].rstrip() == b"L.Q"
        assert data[56:104].rstrip() == b"QB"
        inner = mqi.MD().unpack(data[_MD_AT:_MD_AT + 324])
        assert (inner.Format, inner.Encoding, inner.CodedCharSetId) == (
            CMQC.MQFMT_STRING, CMQC.MQENC_S390, 500)
        assert struct.unpack_from("=i", data, 4)[0] == 1 and data[428:] == b"\xc1\xc2"
