"""The SVRCONN agent's one C call for a planned MQPUT or MQGET (verbs.serve_verb,
native/python/exchange.c): what it serves, what it leaves to the Python path, and the
replies it lays out, held to the Python codec's bytes."""

import struct

import pytest
from svrconn_helpers import QUEUE, serving

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.wire.fap import ApiHeader, ControlFlags, SegmentType, Verb, heartbeat_segment
from tpfemu.wire.fap.tsh import encode_segment
from tpfemu.wire.fap.verbs import encode_verb_segment, message_segment, our_parts, serve_verb

WHOLE = ControlFlags.FIRST | ControlFlags.LAST
T = SegmentType


def _as_message_segment(reply: bytes) -> bytes:
    """The reply rebuilt by the Python codec from the parts read out of it."""
    kind = reply[17]
    payload = reply[36:]
    parts = our_parts(kind, payload)
    assert parts is not None
    conv, req = struct.unpack_from(">II", reply, 8)
    api = (struct.unpack_from(">I", payload, 0)[0], *struct.unpack_from("<iiI", payload, 4))
    tail = struct.unpack_from("<I", payload, parts.tail)[0]
    return message_segment(kind, req, conv, api, payload[parts.md:parts.tail], tail,
                           payload[parts.tail + 4:])


@pytest.fixture
def counted(monkeypatch):
    """Counts of the server's ways: the one C call's replies by kind (each checked against
    message_segment's bytes), and the Python path's raw-entry calls."""
    from tpfemu.channels import svrconn

    seen = {"c_put": 0, "c_get": 0, "py_put": 0, "py_get": 0}
    real_serve = svrconn.serve_verb
    real_put, real_get = svrconn.planned_put_raw, svrconn.planned_get_raw

    def serve(frame, *rest):
        reply = real_serve(frame, *rest)
        if reply is not None:
            assert reply == _as_message_segment(reply)
            assert reply[8:16] == bytes(frame[8:16])  # the request's ids
            seen["c_put" if frame[17] == T.MQPUT else "c_get"] += 1
        return reply

    def put_raw(*args):
        seen["py_put"] += 1
        return real_put(*args)

    def get_raw(*args):
        seen["py_get"] += 1
        return real_get(*args)

    monkeypatch.setattr(svrconn, "serve_verb", serve)
    monkeypatch.setattr(svrconn, "planned_put_raw", put_raw)
    monkeypatch.setattr(svrconn, "planned_get_raw", get_raw)
    return seen


def test_one_c_call_serves_planned_puts_and_gets(counted):
    """After the first put (full path) and the first two gets (full path, then the Python
    path that makes the get's room), every MQPUT and MQGET is served by the one C call,
    with the messages, MDs and a 2033 as the client expects."""
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(5):
            put_md = pymqi.MD(Priority=i, Format=CMQC.MQFMT_STRING)
            q.put(b"m%d" % i, put_md)
            get_md, gmo = pymqi.MD(), pymqi.GMO()
            assert q.get(None, get_md, gmo) == b"m%d" % i
            assert get_md.MsgId == put_md.MsgId != CMQC.MQMI_NONE
            assert get_md.Priority == i and gmo.ResolvedQName.rstrip() == QUEUE.encode()
        with pytest.raises(pymqi.MQMIError) as info:
            q.get()
        assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        assert counted == {"c_put": 4, "c_get": 4, "py_put": 0, "py_get": 1}
        q.close()
        qm.disconnect()
    finally:
        system.stop()


class _Handle:
    put_plan = None
    get_plan = None


def _put_frame(hobj: int = 1, *, big: bool = False, data: bytes = b"x") -> bytes:
    verb = Verb(ApiHeader(hobj=hobj), md=pymqi.MD(), pmo=pymqi.PMO(), data=data)
    return encode_verb_segment(T.MQPUT, verb, flags=WHOLE, request_id=3, big_endian=big)


def _get_frame(buffer_length: int) -> bytes:
    verb = Verb(ApiHeader(hobj=1), md=pymqi.MD(), gmo=pymqi.GMO(),
                buffer_length=buffer_length)
    return encode_verb_segment(T.MQGET, verb, flags=WHOLE, request_id=3)


def test_serve_verb_declines_what_it_does_not_serve():
    """serve_verb returns None (the Python path takes the frame) for a heartbeat, a
    big-endian MQPUT, an unknown handle, a handle with no plan, a body cut short or with
    a wrong DataLength, an MQPMO of version 2, and an MQGET with a buffer length or no
    room known for its plan."""
    handles = {1: _Handle()}
    frame = _put_frame()
    heartbeat = encode_segment(heartbeat_segment(request=True), form="TSHM")
    pmo2 = encode_verb_segment(T.MQPUT, Verb(ApiHeader(hobj=1), md=pymqi.MD(),
                                             pmo=pymqi.PMO(Version=2), data=b"x"),
                               flags=WHOLE, request_id=3)
    wrong_length = bytearray(frame)
    wrong_length[-5] = 9
    for bad in (heartbeat, _put_frame(big=True), _put_frame(hobj=2), frame, frame[:-3],
                bytes(wrong_length), pmo2, _get_frame(100), _get_frame(0xFFFFFFFF)):
        assert serve_verb(bad, handles, {}, None) is None
    with pytest.raises(TypeError):
        serve_verb(frame, [], {}, None)
