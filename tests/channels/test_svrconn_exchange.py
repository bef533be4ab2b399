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


def _peer(script):
    """A loopback TCP peer: accepts one connection, reads one request segment, hands it
    to ``script(conn, request)`` (which answers); the client's socket and the requests
    read (a list filled by the peer's thread)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    seen: list[bytes] = []

    def run():
        conn, _ = server.accept()
        with conn:
            head = b""
            while len(head) < 8:
                head += conn.recv(8 - len(head))
            size = struct.unpack(">I", head[4:8])[0]
            body = b""
            while len(head) + len(body) < size:
                body += conn.recv(size - len(head) - len(body))
            seen.append(head + body)
            script(conn, head + body)
        server.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    sock = socket.create_connection(server.getsockname())
    return sock, seen, thread


def _reply_to(request: bytes, data: bytes = b"answer") -> bytes:
    parts = our_parts(T.MQGET, request[36:])
    assert parts is not None
    return message_segment(T.MQGET_REPLY, struct.unpack_from(">I", request, 12)[0], 1,
                           (0, 0, 0, 5), request[36 + parts.md:36 + parts.tail], len(data),
                           data)


STRUCTURES = pymqi.MD().pack() + pymqi.GMO().pack()


@pytest.mark.parametrize("timeout", [None, 5.0])
def test_exchange_message_sends_message_segments_bytes_and_reads_a_whole_reply(timeout):
    """exchange_message sends the request message_segment lays out of the same values and
    gives back the body of a whole reply in our form, read in one piece or in several
    (a blocking socket, or one with a timeout, whose descriptor does not block)."""
    from tpfemu.wire.fap.verbs import exchange_message

    replies: list[bytes] = []

    def answer(conn, request):
        import time

        reply = _reply_to(request, b"r" * 40_000)
        replies.append(reply)
        conn.sendall(reply[:100])
        time.sleep(0.05)
        conn.sendall(reply[100:])

    sock, seen, thread = _peer(answer)
    sock.settimeout(timeout)
    with sock:
        got = exchange_message(sock.fileno(), T.MQGET, 7, 5, 4096, STRUCTURES, 0xFFFFFFFF, b"",
                               1 << 20)
    thread.join(10)
    assert seen == [message_segment(T.MQGET, 7, 1, (4096, 0, 0, 5), STRUCTURES, 0xFFFFFFFF)]
    assert type(got) is bytes and got == replies[0][36:]


def test_exchange_message_hands_back_what_it_does_not_take():
    """A heartbeat before the reply, a reply above the size allowed and the end of the
    stream come back as every byte read (a bytearray), for the general read."""
    from tpfemu.wire.fap.verbs import exchange_message

    heartbeat = encode_segment(heartbeat_segment(request=True), form="TSHM")
    cases = [
        (lambda conn, request: conn.sendall(heartbeat + _reply_to(request)), 1 << 20,
         lambda request: heartbeat + _reply_to(request)),
        (lambda conn, request: conn.sendall(_reply_to(request)), 100, _reply_to),
        (lambda conn, request: None, 1 << 20, lambda request: b""),
    ]
    for script, most, expected in cases:
        sock, seen, thread = _peer(script)
        with sock:
            got = exchange_message(sock.fileno(), T.MQGET, 3, 5, 0, STRUCTURES, 0xFFFFFFFF,
                                   b"", most)
            if len(got) < len(expected(seen[0])):  # (the peer's bytes in two reads)
                got += sock.recv(65536)
        thread.join(10)
        assert type(got) is bytearray and bytes(got) == expected(seen[0])


def test_exchange_message_refuses_bad_arguments_and_a_broken_socket():
    """exchange_message refuses a verb other than MQPUT/MQGET and a field out of range
    (ValueError), and raises OSError when the socket fails."""
    import socket

    from tpfemu.wire.fap.verbs import exchange_message

    with pytest.raises(ValueError):
        exchange_message(0, T.MQOPEN, 1, 1, 0, STRUCTURES, 0, b"", 100)
    with pytest.raises(ValueError):
        exchange_message(0, T.MQGET, 2**32, 1, 0, STRUCTURES, 0, b"", 100)
    sock = socket.socket()
    fd = sock.detach()
    with pytest.raises(OSError):  # (not connected)
        exchange_message(fd, T.MQGET, 1, 1, 0, STRUCTURES, 0, b"", 100)
    socket.close(fd)


def test_exchange_message_times_out_when_no_reply_comes():
    """With ``timeout_ms`` the reply's read waits that long at most: a peer that sends
    nothing gives OSError ETIMEDOUT (the client's 2009); -2 is refused."""
    import errno
    import socket
    import time

    from tpfemu.wire.fap.verbs import exchange_message

    ours, theirs = socket.socketpair()
    try:
        with pytest.raises(ValueError, match="timeout_ms"):
            exchange_message(ours.fileno(), T.MQGET, 1, 1, 0, STRUCTURES, 0, b"", 100, -2)
        start = time.monotonic()
        with pytest.raises(OSError) as info:
            exchange_message(ours.fileno(), T.MQGET, 1, 1, 0, STRUCTURES, 0, b"", 100, 200)
        assert info.value.errno == errno.ETIMEDOUT
        assert 0.15 < time.monotonic() - start < 2.0
        assert theirs.recv(4096)[:4] == b"TSHM"  # (the request was sent)
    finally:
        ours.close()
        theirs.close()


def test_client_takes_the_one_call_exchange_on_a_plain_socket(monkeypatch):
    """A client's MQPUT and MQGET on a plain socket each go through exchange_message
    once, with the messages and MDs as the Python codec gives them."""
    from tpfemu.mqi import client

    calls = []
    real = client.exchange_message

    def counted(*args):
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(client, "exchange_message", counted)
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(3):
            md = pymqi.MD(Priority=i)
            q.put(b"c%d" % i, md)
            got = pymqi.MD()
            assert q.get(None, got) == b"c%d" % i and got.MsgId == md.MsgId
            assert got.Priority == i
        assert calls == [T.MQPUT, T.MQGET] * 3
        q.close()
        qm.disconnect()
    finally:
        system.stop()


def test_a_signal_while_exchange_message_waits_runs_its_handler():
    """A signal arriving while exchange_message waits for a reply that has not begun runs
    its Python handler, whose exception ends the wait (as in a socket's recv)."""
    import signal
    import threading
    import time

    from tpfemu.wire.fap.verbs import exchange_message

    class Woken(Exception):
        pass

    def handler(signum, frame):
        raise Woken()

    release = threading.Event()
    sock, _, thread = _peer(lambda conn, request: release.wait(10))
    previous = signal.signal(signal.SIGALRM, handler)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        start = time.monotonic()
        with sock, pytest.raises(Woken):
            exchange_message(sock.fileno(), T.MQGET, 3, 5, 0, STRUCTURES, 0xFFFFFFFF, b"",
                             1 << 20)
        assert time.monotonic() - start < 5
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        release.set()
        thread.join(10)
