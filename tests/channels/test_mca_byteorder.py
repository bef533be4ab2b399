"""A sender that speaks big-endian (as a z/OS queue manager does) is understood, and the
receiver answers it in its own byte order."""

from __future__ import annotations

import socket

from mca_helpers import get, ok, receiving, start, unique

from tpfemu.mq.headers import XQH
from tpfemu.mq.structs import MD
from tpfemu.mqi import CMQC
from tpfemu.wire.fap import (
    FrameReader,
    InitialData,
    Segment,
    SegmentType,
    StatusCode,
    decode_id,
    decode_status,
    encode_id,
    encode_message,
    encode_segment,
    reset_segment,
    resync_segment,
    split_message,
)


def _next(sock: socket.socket, reader: FrameReader) -> Segment:
    while True:
        segments = reader.feed(sock.recv(65536))
        if segments:
            assert len(segments) == 1
            return segments[0]


def test_big_endian_sender():
    """ID, RESYNC, RESET and a one-message batch sent big-endian: the receiver answers each
    big-endian, commits the batch and the message arrives intact."""
    b = start(unique("BE"))
    try:
        port = receiving(b, ("Z.TO.B",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            reader = FrameReader(1 << 20)
            mine = InitialData("Z.TO.B", qmgr_name="ZOSQM")
            sock.sendall(encode_segment(Segment(SegmentType.INITIAL_DATA,
                                                payload=encode_id(mine, big_endian=True),
                                                big_endian=True)))
            answer = _next(sock, reader)
            assert answer.seg_type == SegmentType.INITIAL_DATA and answer.big_endian
            assert decode_id(answer.payload, True).qmgr_name == b.name
            for request in (resync_segment(0, bytes(8), big_endian=True),
                            reset_segment(0, big_endian=True)):
                sock.sendall(encode_segment(request))
                status = _next(sock, reader)
                assert status.big_endian
                assert decode_status(status.payload, True)[0] == StatusCode.OK
            body = XQH(RemoteQName=b"LOCAL.Q", RemoteQMgrName=b.name.encode(),
                       MsgDesc=MD(Persistence=CMQC.MQPER_PERSISTENT, MsgId=b"Z" * 24)).pack()
            payload = encode_message(1, body + b"from z/OS", big_endian=True)
            for seg in split_message(payload, 32768, big_endian=True, luwid=b"ZOSLUWID",
                                     confirm=True):
                sock.sendall(encode_segment(seg))
            status = _next(sock, reader)
            assert status.big_endian and decode_status(status.payload, True)[0] == StatusCode.OK
        data, md = get(b.name, "LOCAL.Q")
        assert data == b"from z/OS" and md.MsgId == b"Z" * 24
        assert md.Persistence == CMQC.MQPER_PERSISTENT
    finally:
        b.stop()
