"""The SVRCONN hot path: a verb segment is built in one piece, the server's MQPUT and
MQGET take the handle's plan after the first call, and the client hands the reply's
MD/PMO/GMO back in the caller's objects."""

import socket
import threading

import pytest
from mca_helpers import ok
from svrconn_helpers import QUEUE, serving

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput
from tpfemu.wire.fap import (
    ApiHeader,
    ControlFlags,
    FapError,
    FrameReader,
    Segment,
    SegmentType,
    Verb,
    decode_id,
    decode_verb,
    encode_id,
    encode_segment,
    encode_verb,
    heartbeat_segment,
)
from tpfemu.wire.fap.tsh import our_tshm_type, tshm_header
from tpfemu.wire.fap.verbs import encode_verb_segment
from tpfemu.wire.link import Link, LinkDown

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


def _counting(monkeypatch, module, name: str) -> list[int]:
    """Count the calls of ``module.name`` (a list, one entry a call)."""
    calls: list[int] = []
    real = getattr(module, name)

    def counted(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def _raw_entry_calls(monkeypatch) -> tuple[list[int], list[int]]:
    """Count the MQPUTs and MQGETs the server hands to the plans' raw entry, either way:
    its one C call (serve_verb, counted when it answers) or the Python path's
    planned_put_raw/planned_get_raw."""
    from tpfemu.channels import svrconn

    puts = _counting(monkeypatch, svrconn, "planned_put_raw")
    gets = _counting(monkeypatch, svrconn, "planned_get_raw")
    real = svrconn.serve_verb

    def serve(frame, *rest):
        reply = real(frame, *rest)
        if reply is not None:
            (puts if frame[17] == SegmentType.MQPUT else gets).append(1)
        return reply

    monkeypatch.setattr(svrconn, "serve_verb", serve)
    return puts, gets


def _context(md) -> tuple:
    return (md.Priority, md.Persistence, md.Format, md.PutApplName, md.PutApplType,
            md.UserIdentifier, md.ReplyToQMgr, md.Expiry, md.CodedCharSetId)


def test_raw_entry_serves_the_plans_structures_and_answers_as_the_general_way(monkeypatch):
    """The server hands a request's MQMD and MQPMO (version 1) or MQGMO (1, 2) to the
    plan's raw entry where they lie; other versions take the general way; both ways give
    the client the same MD values."""
    puts, gets = _raw_entry_calls(monkeypatch)
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"first")  # (the full path: it makes the handle's plan)
        assert q.get() == b"first"
        outcomes = []
        for pmo, gmo in ((pymqi.PMO(), pymqi.GMO(Version=2)),
                         (pymqi.PMO(Version=2), pymqi.GMO(Version=4))):
            put_md = pymqi.MD(Priority=6, Format=CMQC.MQFMT_STRING)
            q.put(b"same", put_md, pmo)
            get_md = pymqi.MD()
            assert q.get(None, get_md, gmo) == b"same"
            assert get_md.MsgId == put_md.MsgId != CMQC.MQMI_NONE
            assert pmo.ResolvedQName.rstrip() == QUEUE.encode()
            outcomes.append((_context(put_md), _context(get_md)))
        assert (len(puts), len(gets)) == (1, 1)  # the version-1 PMO, the version-2 GMO
        assert outcomes[0] == outcomes[1]
        q.close()
        qm.disconnect()
    finally:
        system.stop()


def test_raw_entrys_refusal_reaches_the_client_and_the_conversation_goes_on(monkeypatch):
    """A planned MQGET on an empty queue fails 2033 at the client, and the same
    conversation serves the next put and get."""
    _, gets = _raw_entry_calls(monkeypatch)
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        q.put(b"a")
        assert q.get() == b"a"
        with pytest.raises(pymqi.MQMIError) as info:
            q.get()
        assert info.value.reason == CMQC.MQRC_NO_MSG_AVAILABLE and len(gets) == 1
        q.put(b"b")
        assert q.get() == b"b" and len(gets) == 2
        q.close()
        qm.disconnect()
    finally:
        system.stop()


def test_callers_structures_read_back_as_unpack_gives_them():
    """A caller's GMO comes back with its input values kept and its outputs filled: a
    ResolvedQName the caller left short or stale reads back as the queue's name,
    blank-padded to its field, as pymqi's unpack gives it."""
    system, port = serving()
    try:
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        for i in range(3):
            q.put(b"m%d" % i)
        plain = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
        for _ in range(2):
            q.get(None, pymqi.MD(), plain)
        assert plain.Options == CMQC.MQGMO_NO_SYNCPOINT and plain.WaitInterval == 0
        assert plain.ResolvedQName == QUEUE.encode().ljust(48)
        short = pymqi.GMO()
        short.ResolvedQName = b"X"
        assert q.get(None, pymqi.MD(), short) == b"m2"
        assert short.ResolvedQName == QUEUE.encode().ljust(48)
        q.close()
        qm.disconnect()
    finally:
        system.stop()


@pytest.mark.parametrize("seg_type", [SegmentType.MQPUT, SegmentType.MQPUT_REPLY,
                                      SegmentType.MQGET, SegmentType.MQGET_REPLY])
def test_message_segment_is_encode_verb_segment(seg_type):
    """message_segment lays out the bytes encode_verb_segment makes of the same verb, and
    refuses a field out of range."""
    from tpfemu.wire.fap.verbs import message_segment

    md, gmo = pymqi.MD(Version=2, Priority=3), pymqi.GMO(Version=2)
    is_get = seg_type in (SegmentType.MQGET, SegmentType.MQGET_REPLY)
    opts = gmo if is_get else pymqi.PMO()
    data = b"" if seg_type == SegmentType.MQGET else b"payload"
    verb = Verb(ApiHeader(4096, CMQC.MQCC_WARNING, 2079, 0xFFFFFFF0), md=md, data=data,
                buffer_length=0xFFFFFFFF if seg_type == SegmentType.MQGET else None)
    if is_get:
        verb.gmo = opts
    else:
        verb.pmo = opts
    tail = 0xFFFFFFFF if seg_type == SegmentType.MQGET else len(data)
    assert message_segment(seg_type, 9, 1, (4096, CMQC.MQCC_WARNING, 2079, 0xFFFFFFF0),
                           md.pack() + opts.pack(), tail, data) == encode_verb_segment(
        seg_type, verb, flags=WHOLE, request_id=9)
    with pytest.raises(ValueError, match="out of range"):
        message_segment(seg_type, 2**32, 1, (0, 0, 0, 1), md.pack() + opts.pack(), 0)
    with pytest.raises(ValueError, match="out of range"):
        message_segment(seg_type, 1, 1, (0, 2**31, 0, 1), md.pack() + opts.pack(), 0)


def test_planned_get_of_a_message_longer_than_the_agreed_segment_is_cut_with_2079():
    """Deviation: a message put while MAXMSGL was higher than the client's agreed segment
    size, got whole by the handle's plan, comes back cut to what the reply may carry with
    MQRC_TRUNCATED_MSG_ACCEPTED (2079), its DataLength the whole length, and is gone, as
    a C program's planned MQGET; a message the queue takes now is got whole, and the
    conversation goes on."""
    system, port = serving()
    try:
        ok(system, "ZMQSC ALT MQP MAXMSGL-200000")
        ok(system, f"ZMQSC ALT QL-{QUEUE} MAXMSGL-200000")
        inproc = pymqi.connect(system.qmgr.name)
        local = pymqi.Queue(inproc, QUEUE, CMQC.MQOO_OUTPUT)
        local.put(b"s" * 10)
        local.put(b"L" * 150_000)
        ok(system, "ZMQSC ALT MQP MAXMSGL-50000")
        ok(system, f"ZMQSC ALT QL-{QUEUE} MAXMSGL-50000")
        qm = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
        assert q.get() == b"s" * 10  # (the full path: it makes the handle's plan)
        with pytest.raises(pymqi.MQMIError) as info:
            q.get()
        assert (info.value.comp, info.value.reason) == (CMQC.MQCC_WARNING,
                                                        CMQC.MQRC_TRUNCATED_MSG_ACCEPTED)
        # (the reply's DataLength is the whole message's; its data what the reply holds)
        assert info.value.original_length == 150_000
        assert 40_000 < len(info.value.message) < 150_000
        assert set(info.value.message) == {ord("L")}
        assert system.qmgr.queues[QUEUE].core.depth == 0
        q.put(b"m" * 40_000)
        assert q.get() == b"m" * 40_000
        q.close()
        qm.disconnect()
        inproc.disconnect()
    finally:
        system.stop()


@pytest.mark.parametrize("big", [False, True])
def test_our_tshm_type_reads_only_our_form_of_segment(big):
    """our_tshm_type gives the SegmType of an ASCII little-endian TSHM read from its bytes
    and -1 for a big-endian TSHM, an EBCDIC one or a TSHC (decode_frame reads those)."""
    seg = Segment(SegmentType.MQGET_REPLY, WHOLE, b"body", big, conversation_id=1,
                  request_id=3)
    raw = encode_segment(seg, form="TSHM")
    assert our_tshm_type(raw) == (-1 if big else int(SegmentType.MQGET_REPLY))
    assert our_tshm_type(memoryview(raw)) == our_tshm_type(raw)
    assert our_tshm_type(b"\xe3\xe2\xc8\xd4" + raw[4:]) == -1
    assert our_tshm_type(encode_segment(seg, form="TSHC")) == -1


def test_a_read_of_one_whole_segment_is_its_frame_and_bad_framing_still_fails():
    """A read holding exactly one segment is given back as its frame (the same bytes);
    a read whose SegmLength is not its size, or is above the limit, is framed (or
    refused) as before."""
    raw = encode_segment(Segment(SegmentType.MQPUT, WHOLE, b"p" * 40, conversation_id=1,
                                 request_id=3), form="TSHM")
    (frame,) = FrameReader(1000).feed_frames(raw)
    assert frame is raw
    reader = FrameReader(1000)
    assert [bytes(f) for f in reader.feed_frames(raw + raw[:10])] == [raw]
    assert [bytes(f) for f in reader.feed_frames(raw[10:])] == [raw]
    with pytest.raises(FapError, match="above the largest"):
        FrameReader(50).feed_frames(raw)


def _scripted_server(replies):
    """A listener answering one client: the ID echoed, MQCONN and MQOPEN (Hobj 5) as
    the server does, then for each later request the segments ``replies(seg_type, verb,
    request_id)`` gives; the client's heartbeat answers go to ``replies.answered`` (their
    confirm-requested flags). Returns (port, thread)."""
    listener = socket.create_server(("127.0.0.1", 0))
    answered = replies.answered = []

    def run():
        conn, _ = listener.accept()
        link = Link(conn, max_segment=1 << 20)
        try:
            first = link.receive(10)
            link.send_bytes(encode_segment(Segment(
                SegmentType.INITIAL_DATA, payload=encode_id(decode_id(first.payload, False))),
                form="TSHC"))
            while True:
                seg = link.receive(10)
                if seg.seg_type == SegmentType.HEARTBEAT:  # (the client's answer)
                    answered.append(seg.confirm_requested)
                    continue
                verb = decode_verb(seg.seg_type, seg.payload, seg.big_endian)
                if seg.seg_type == SegmentType.MQCONN:
                    out = [(SegmentType.MQCONN_REPLY, Verb(ApiHeader(), verb.conn), False)]
                elif seg.seg_type == SegmentType.MQOPEN:
                    out = [(SegmentType.MQOPEN_REPLY,
                            Verb(ApiHeader(hobj=5), od=verb.od, options=verb.options), False)]
                else:
                    out = replies(seg.seg_type, verb)
                link.send_bytes(b"".join(
                    encode_segment(v, form="TSHM") if isinstance(v, Segment) else
                    encode_verb_segment(t, v, flags=WHOLE, request_id=seg.request_id or 0,
                                        big_endian=big)
                    for t, v, big in out))
        except (LinkDown, OSError):
            pass
        finally:
            link.close()
            listener.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return listener.getsockname()[1], thread


def test_message_replies_after_a_heartbeat_or_in_big_endian_take_the_general_read():
    """The client's MQPUT reads on past a HEARTBEAT the server sends before its reply
    (answering it, as IBM's client answers the server's heartbeats),
    and an MQGET reply in big-endian byte order is decoded by the general reader: each
    call gives the values the server's reply carries."""
    msg_id = b"M" * 24

    def replies(seg_type, verb):
        if seg_type == SegmentType.MQPUT:
            verb.md.MsgId = msg_id
            return [(None, heartbeat_segment(request=True), False),
                    (SegmentType.MQPUT_REPLY, Verb(ApiHeader(hobj=5), md=verb.md,
                                                   pmo=verb.pmo), False)]
        md = pymqi.MD(Priority=7, Format=CMQC.MQFMT_STRING)
        return [(SegmentType.MQGET_REPLY, Verb(ApiHeader(hobj=5), md=md, gmo=verb.gmo,
                                               data=b"hello"), True)]

    port, thread = _scripted_server(replies)
    qm = pymqi.connect("QMX", "APP.SVRCONN", f"127.0.0.1({port})")
    q = pymqi.Queue(qm, "Q1", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    q.put(b"data", md)
    assert md.MsgId == msg_id
    got = pymqi.MD()
    assert q.get(None, got, pymqi.GMO()) == b"hello"
    assert (got.Priority, got.Format) == (7, CMQC.MQFMT_STRING)
    assert replies.answered == [False]  # the server's heartbeat request was answered
    qm.connection.end(commit=False)
    thread.join(10)
