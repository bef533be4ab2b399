"""The SVRCONN hot path: a verb segment is built in one piece, the server's MQPUT and
MQGET take the handle's plan after the first call, and the client hands the reply's
MD/PMO/GMO back in the caller's objects."""

import pytest
from svrconn_helpers import QUEUE, serving

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput
from tpfemu.wire.fap import (
    ApiHeader,
    ControlFlags,
    Segment,
    SegmentType,
    Verb,
    encode_segment,
    encode_verb,
)
from tpfemu.wire.fap.tsh import tshm_header
from tpfemu.wire.fap.verbs import encode_verb_segment

WHOLE = ControlFlags.FIRST | ControlFlags.LAST


@pytest.mark.parametrize("big", [False, True])
def test_tshm_header_is_encode_segments_header(big):
    """tshm_header gives the 36 bytes encode_segment writes in front of the same body."""
    body = b"body" * 10
    seg = Segment(SegmentType.MQGET_REPLY, WHOLE, body, big, conversation_id=1,
                  request_id=0xFFFFFFFF)
    assert (tshm_header(SegmentType.MQGET_REPLY, WHOLE, len(body), big_endian=big,
                        conversation_id=1, request_id=0xFFFFFFFF) + body
            == encode_segment(seg, form="TSHM"))
    with pytest.raises(ValueError, match="out of range"):
        tshm_header(SegmentType.MQGET, WHOLE, 1, request_id=2**32)


@pytest.mark.parametrize("big", [False, True])
def test_encode_verb_segment_is_the_verb_behind_a_tshm(big):
    """A verb segment in one piece equals encode_verb's body behind encode_segment's TSHM."""
    verb = Verb(ApiHeader(hobj=7), md=pymqi.MD(Priority=2), pmo=pymqi.PMO(), data=b"m")
    body = encode_verb(SegmentType.MQPUT, verb, big_endian=big)
    expected = encode_segment(Segment(SegmentType.MQPUT, WHOLE, body, big, conversation_id=1,
                                      request_id=5), form="TSHM")
    assert encode_verb_segment(SegmentType.MQPUT, verb, flags=WHOLE, request_id=5,
                               big_endian=big) == expected


def test_server_puts_and_gets_take_the_handles_plan(monkeypatch):
    """Over SVRCONN only the first MQPUT and MQGET on a handle take the queue manager's
    full path; the later ones are served by the plan it made (the one put and get path)."""
    system, port = serving()
    full = {"put": 0, "get": 0}
    put_full, get_full = mqput.put_full, mqget.get_full

    def counting_put(*args, **kw):
        full["put"] += 1
        return put_full(*args, **kw)

    def counting_get(*args, **kw):
        full["get"] += 1
        return get_full(*args, **kw)

    monkeypatch.setattr(mqput, "put_full", counting_put)
    monkeypatch.setattr(mqget, "get_full", counting_get)
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(5):
            q.put(b"m%d" % i)
            assert q.get(None, pymqi.MD(), pymqi.GMO()) == b"m%d" % i
        assert full == {"put": 1, "get": 1}
        q.close()
        qm.disconnect()
    finally:
        system.stop()


def test_reply_structures_come_back_in_the_callers_objects():
    """The caller's MD, PMO and GMO hold what the server's MQPUT and MQGET wrote (the
    MsgId made at put, the PMO's resolved queue name, the message's priority), with
    every field of their version."""
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        put_md, pmo = pymqi.MD(Priority=7), pymqi.PMO()
        q.put(b"back", put_md, pmo)
        assert put_md.MsgId != CMQC.MQMI_NONE
        assert pmo.ResolvedQName.rstrip() == QUEUE.encode()
        get_md, gmo = pymqi.MD(), pymqi.GMO(Version=2)
        assert q.get(None, get_md, gmo) == b"back"
        assert (get_md.MsgId, get_md.Priority) == (put_md.MsgId, 7)
        assert gmo.Version == 2 and len(gmo.ResolvedQName) == 48
        assert len(put_md.PutApplName) == 28 and len(get_md.ReplyToQ) == 48
        q.close()
        qm.disconnect()
    finally:
        system.stop()


def test_a_message_of_many_reads_travels_whole():
    """A 1 MB message (a verb segment spanning many 64 KiB reads at each end) is put and
    got over SVRCONN byte for byte."""
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        big = bytes(range(256)) * 4096
        q.put(big)
        assert q.get() == big
        q.close()
        qm.disconnect()
    finally:
        system.stop()
