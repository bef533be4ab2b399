"""The SVRCONN agent's read-and-answer loop in C (verbs.serve_frames): each read that is
one whole TSHM its serve function answers is answered from C, the next request read with
the GIL released once a verb; any other read comes back to the Link untouched."""

import socket
import struct
import threading
import time

import pytest
from svrconn_system import connect_client, serving

import tpfemu.mqi as pymqi
from tpfemu.channels import svrconn
from tpfemu.mqi import CMQC
from tpfemu.wire.fap.verbs import serve_frames

QUEUE = "FRAMES.Q"


def _tshm(body: bytes) -> bytes:
    """A whole TSHM-framed segment: 36 bytes of header (length at 4-8) and ``body``."""
    return b"TSHM" + struct.pack(">I", 36 + len(body)) + b"\0" * 28 + body


def _loop(sock: socket.socket, serve, most: int = 65536):
    """serve_frames on ``sock``'s descriptor, handles/rooms/longest standing in."""
    return serve_frames(sock.fileno(), serve, {1: "h"}, {2: "r"}, ("plan", 9), most)


def _peer(sock: socket.socket, requests: list[bytes], after: bytes, replies: list[bytes]):
    """Send each request and read its reply (kept), then send ``after`` and close."""
    for request in requests:
        sock.sendall(request)
        replies.append(sock.recv(65536))
    if after:
        sock.sendall(after)
    sock.close()


def test_answered_frames_are_sent_and_the_first_unanswered_read_comes_back():
    """Frames that serve answers with bytes get those bytes as their reply, serve sees the
    frame and the loop's handles, rooms and longest; the first frame serve declines
    (None) comes back as rest, with the bytes of the frames answered and sent."""
    mine, theirs = socket.socketpair()
    requests = [_tshm(b"req%d" % i) for i in range(3)]
    declined = _tshm(b"not mine")
    seen, replies = [], []

    def serve(frame, handles, rooms, longest):
        seen.append((frame, handles, rooms, longest))
        return None if frame == declined else b"answer to " + frame[36:]

    peer = threading.Thread(target=_peer, args=(theirs, requests, declined, replies))
    peer.start()
    rest, got, sent = _loop(mine, serve)
    peer.join(10)
    assert rest == declined
    assert replies == [b"answer to req%d" % i for i in range(3)]
    assert [s[0] for s in seen] == [*requests, declined]
    assert all(s[1:] == ({1: "h"}, {2: "r"}, ("plan", 9)) for s in seen)
    assert got == sum(map(len, requests)) and sent == sum(map(len, replies))
    mine.close()


@pytest.mark.parametrize("case", ["part", "two", "not tshm", "too long", "end"])
def test_a_read_that_is_not_one_whole_tshm_is_handed_back_unserved(case):
    """A read holding part of a segment, two segments, a TSH of another form, a segment
    longer than the agreed most, or the end of the stream (b"") comes back as it was
    read, and serve is never called."""
    mine, theirs = socket.socketpair()
    frame = _tshm(b"x" * 100)
    data = {"part": frame[:50], "two": frame + frame, "not tshm": b"TSHC" + frame[4:],
            "too long": frame, "end": b""}[case]
    if data:
        theirs.sendall(data)
    theirs.shutdown(socket.SHUT_WR) if case == "end" else None
    calls = []
    rest, got, sent = _loop(mine, lambda *a: calls.append(a), 100 if case == "too long"
                            else 65536)
    assert (rest, got, sent, calls) == (data, 0, 0, [])
    mine.close()
    theirs.close()


def test_a_bad_serve_answer_or_socket_raises():
    """serve answering something other than bytes or None raises TypeError; a descriptor
    that is not a socket raises OSError; a bad call raises TypeError or ValueError."""
    mine, theirs = socket.socketpair()
    theirs.sendall(_tshm(b"q"))
    with pytest.raises(TypeError):
        _loop(mine, lambda *a: 42)
    with pytest.raises(ZeroDivisionError):  # (serve's own error passes through)
        theirs.sendall(_tshm(b"q"))
        _loop(mine, lambda *a: 1 / 0)
    mine.close()
    theirs.close()
    r, w = socket.socketpair()
    fd = r.detach()
    socket.close(fd)
    with pytest.raises(OSError):
        serve_frames(fd, lambda *a: None, {}, {}, None, 100)
    with pytest.raises(ValueError):
        serve_frames(-1, lambda *a: None, {}, {}, None, 100)
    with pytest.raises(TypeError):
        serve_frames(0, None, {}, {}, None, 100)
    w.close()


def test_a_conversations_planned_verbs_are_answered_by_the_c_loop(monkeypatch):
    """A client's planned MQPUTs and MQGETs are answered inside serve_frames (a few calls
    of it for 200 verbs: it returns only for reads serve_verb declines), with the
    messages and MDs as before, and the conversation's byte counts are kept."""
    calls, links = [], []
    real = svrconn.serve_frames

    def counted(*args):
        calls.append(args[0])
        return real(*args)

    real_served = svrconn.Conversation._served

    def served(self, fd):
        links.append(self.link)
        return real_served(self, fd)

    monkeypatch.setattr(svrconn, "serve_frames", counted)
    monkeypatch.setattr(svrconn.Conversation, "_served", served)
    with serving("SF", QUEUE) as system:
        qm = connect_client(system)
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(100):
            md = pymqi.MD(Priority=i % 10)
            q.put(b"m%d" % i, md)
            got = pymqi.MD()
            assert q.get(None, got) == b"m%d" % i
            assert got.MsgId == md.MsgId and got.Priority == i % 10
        assert 0 < len(calls) < 10
        link = links[0]
        client_link = qm._conn.link
        q.close()
        qm.disconnect()
        deadline = time.monotonic() + 10
        while not link.closed and time.monotonic() < deadline:  # (the conversation ends)
            time.sleep(0.01)
        assert (link.bytes_in, link.bytes_out) == (client_link.bytes_out,
                                                   client_link.bytes_in)
