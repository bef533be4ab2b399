"""MQPUT and MQGET with an MD by a handle's plan (tpfemu.qmgr.plans; CoreQueue.put_md/get_md).

Once a handle has a plan (an earlier call checked the queue and the options), a put or
get with an MD and no options is one C call. These tests hold it to the full path: the
same MD in gives the same message and the same MD out, and whatever the fast path does
not serve (warnings, errors, logging, waits, browses) still behaves as the full path.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE | CMQC.MQOO_INQUIRE
# Fields that depend on when and in what order a message was put.
TIMELY = {"MsgId", "PutDate", "PutTime", "Expiry"}


def _open(qm, name):
    q = pymqi.Queue(qm, name, IO)
    q.put(b"warm", pymqi.MD())  # the first put and get make the handle's plans
    q.get(None, pymqi.MD())
    return q


def _md_fields(md):
    return {k: v for k, v in md.get().items() if k not in TIMELY}


ids = st.one_of(st.just(b""), st.binary(min_size=1, max_size=24))
mds = st.fixed_dictionaries({}, optional={
    "Priority": st.integers(-1, 9),
    "Persistence": st.sampled_from([CMQC.MQPER_NOT_PERSISTENT, CMQC.MQPER_PERSISTENT,
                                    CMQC.MQPER_PERSISTENCE_AS_Q_DEF]),
    "Expiry": st.one_of(st.just(CMQC.MQEI_UNLIMITED), st.integers(1, 1_000_000)),
    "MsgType": st.sampled_from([CMQC.MQMT_DATAGRAM, CMQC.MQMT_REPLY, CMQC.MQMT_REPORT]),
    "ReplyToQ": st.sampled_from([b"", b"REPLY.Q", "TEXT.Q"]),
    "ReplyToQMgr": st.sampled_from([b"", b"OTHERQM"]),
    "Format": st.sampled_from([CMQC.MQFMT_NONE, CMQC.MQFMT_STRING, b"MYFMT"]),
    "Report": st.sampled_from([CMQC.MQRO_NONE, CMQC.MQRO_EXCEPTION, CMQC.MQRO_COA]),
    "Feedback": st.integers(0, 1000),
    "Encoding": st.integers(0, 0x7FFFFFFF),
    "CodedCharSetId": st.sampled_from([0, 437, 1208]),
    "MsgId": ids,
    "CorrelId": ids,
    "GroupId": ids,
    "MsgSeqNumber": st.integers(1, 1000),
    "Offset": st.integers(0, 1000),
    "OriginalLength": st.integers(-1, 1000),
    # Put-context fields: MQPMO_DEFAULT_CONTEXT replaces them on both paths.
    "UserIdentifier": st.sampled_from([b"", b"someone"]),
    "ApplIdentityData": st.sampled_from([b"", b"identity"]),
})


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fields=mds, data=st.binary(max_size=300))
def test_fast_put_and_get_match_the_full_path(qm, local_queue, fields, data):
    q = _open(qm, local_queue)
    reply_to = fields.get("ReplyToQ", b"")
    if fields.get("Report", CMQC.MQRO_NONE) and not (
            reply_to.encode() if isinstance(reply_to, str) else reply_to).strip():
        for pmo in (None, pymqi.PMO()):  # a report with nowhere to go: refused both ways
            with pytest.raises(pymqi.MQMIError) as info:
                q.put(data, pymqi.MD(**fields), *([pmo] if pmo else []))
            assert info.value.reason == CMQC.MQRC_MISSING_REPLY_TO_Q
        q.close()
        return
    try:
        fast_in, full_in = pymqi.MD(**fields), pymqi.MD(**fields)
        q.put(data, fast_in)  # fast: the plan holds and there is no PMO
        q.put(data, full_in, pymqi.PMO())  # a PMO takes the full path
        assert _md_fields(fast_in) == _md_fields(full_in)
        assert fast_in.MsgId != full_in.MsgId or fields.get("MsgId")

        # Get each back both ways, matched by its own MsgId: fast (no buffer length)
        # and full (a buffer length takes the full path).
        fast_out, full_out = pymqi.MD(MsgId=fast_in.MsgId), pymqi.MD(MsgId=full_in.MsgId)
        gmo = pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
        assert q.get(None, fast_out, gmo) == data
        assert q.get(1_000_000, full_out, gmo) == data
        assert _md_fields(fast_out) == _md_fields(full_out)
        assert (fast_out.MsgId, fast_out.PutDate) == (fast_in.MsgId, fast_in.PutDate)
        if fields.get("Expiry", -1) == CMQC.MQEI_UNLIMITED:
            assert fast_out.Expiry == full_out.Expiry == CMQC.MQEI_UNLIMITED
        else:  # the time left, in tenths, counted down by the same clock
            assert abs(fast_out.Expiry - full_out.Expiry) <= 1
    finally:
        while True:  # messages left by a same-MsgId example
            try:
                q.get()
            except pymqi.MQMIError:
                break
        q.close()


def test_the_fast_paths_are_taken_once_a_plan_holds(qm, local_queue, monkeypatch):
    """With the full paths disabled, MQPUT and MQGET with MDs still work: they are
    served by the plans the first calls made."""
    q = _open(qm, local_queue)

    def full(*args, **kw):
        raise AssertionError("the full path ran")

    monkeypatch.setattr(mqput, "put_full", full)
    monkeypatch.setattr(mqget, "get_full", full)
    request = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q", Priority=7)
    q.put(b"request", request)
    md = pymqi.MD()
    assert q.get(None, md) == b"request"
    assert (md.MsgType, md.ReplyToQ.rstrip(), md.Priority) == (
        CMQC.MQMT_REQUEST, b"REPLY.Q", 7)
    assert md.MsgId == request.MsgId
    assert md.PutApplName == request.PutApplName and md.PutApplName.strip()


def test_request_reply_matched_by_correl_id(qm, local_queue):
    """The RR-BB shape: a reply put with CorrelId = the request's MsgId is found by it
    among other replies."""
    q = _open(qm, local_queue)
    requests = []
    for i in range(5):
        md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"R")
        q.put(b"req%d" % i, md)
        requests.append(md.MsgId)
    for i, msg_id in enumerate(requests):
        q.put(b"reply%d" % i, pymqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=msg_id))
    gmo = pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID)
    for i in (3, 0, 4):
        md = pymqi.MD(CorrelId=requests[i])
        assert q.get(None, md, gmo) == b"reply%d" % i
        assert md.CorrelId == requests[i] and md.MsgType == CMQC.MQMT_REPLY
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, pymqi.MD(CorrelId=b"NOBODY"), gmo)


def test_no_message_leaves_the_md_as_it_was(qm, local_queue):
    q = _open(qm, local_queue)
    md = pymqi.MD(CorrelId=b"WANTED")
    before = md.get()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, md)
    assert md.get() == before


@pytest.mark.parametrize("fields, reason, comp", [
    ({"Priority": 12}, CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM, CMQC.MQCC_WARNING),
    ({"Priority": -3}, CMQC.MQRC_PRIORITY_ERROR, CMQC.MQCC_FAILED),
    ({"Persistence": 7}, CMQC.MQRC_PERSISTENCE_ERROR, CMQC.MQCC_FAILED),
    ({"Expiry": 0}, CMQC.MQRC_EXPIRY_ERROR, CMQC.MQCC_FAILED),
    ({"MsgType": CMQC.MQMT_REQUEST}, CMQC.MQRC_MISSING_REPLY_TO_Q, CMQC.MQCC_FAILED),
])
def test_what_the_fast_put_does_not_serve_still_fails_or_warns(qm, local_queue, fields,
                                                                reason, comp):
    q = _open(qm, local_queue)
    with raises_mq(reason, comp):
        q.put(b"x", pymqi.MD(**fields))
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == (1 if comp == CMQC.MQCC_WARNING else 0)


def test_defpsist_yes_queue_keeps_no_md_puts_persistent(qm, qmgr):
    """A plan made by a put with an MD on a DEFPSIST(YES) queue must not let a later put
    without an MD take the non-persistent shortcut."""
    qmgr.catalog.define("QL", "PSIST.Q", defpsist="YES")
    q = _open(qm, "PSIST.Q")
    q.put(b"with md", pymqi.MD())
    q.put(b"without")
    for body in (b"with md", b"without"):
        md = pymqi.MD()
        assert q.get(None, md) == body
        assert md.Persistence == CMQC.MQPER_PERSISTENT


def test_a_changed_definition_ends_the_plan(qm, qmgr, local_queue):
    q = _open(qm, local_queue)
    qmgr.catalog.alter("QL", local_queue, put="DISABLED")
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        q.put(b"x", pymqi.MD())
    qmgr.catalog.alter("QL", local_queue, put="ENABLED", get="DISABLED")
    q.put(b"x", pymqi.MD())
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        q.get(None, pymqi.MD())


def test_gets_the_fast_path_does_not_serve(qm, local_queue):
    """Browse, wait and syncpoint options take the full path and keep their meaning."""
    q = _open(qm, local_queue)
    q.put(b"one", pymqi.MD(Priority=5))
    browse = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    md = pymqi.MD()
    assert q.get(None, md, browse) == b"one" and md.Priority == 5
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"one"
    qm.backout()
    assert q.get(None, md := pymqi.MD()) == b"one" and md.BackoutCount == 1
    wait = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=50)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, pymqi.MD(), wait)


def test_expiry_counts_down_on_the_fast_path(qm, local_queue):
    q = _open(qm, local_queue)
    q.put(b"short", pymqi.MD(Expiry=600))  # 60 s
    md = pymqi.MD()
    assert q.get(None, md) == b"short"
    assert 590 <= md.Expiry <= 600


def _events_of(qmgr):
    seen = []
    qmgr.events.subscribe(seen.append)
    return seen


@pytest.mark.parametrize("fields", [
    {},
    {"Priority": 4, "Persistence": CMQC.MQPER_PERSISTENT, "Expiry": 300,
     "CorrelId": b"CID", "GroupId": b"GRP", "MsgType": CMQC.MQMT_REPLY},
])
def test_fast_put_events_match_the_full_path(qm, qmgr, local_queue, fields):
    """With someone listening, the fast path still serves puts, and each put event
    carries what the full path's carries (with or without an MD)."""
    seen = _events_of(qmgr)
    q = _open(qm, local_queue)
    for with_md in (True, False):
        if not with_md and fields:
            continue
        del seen[:]
        args = (pymqi.MD(**fields),) if with_md else ()
        q.put(b"data", *args)  # fast (the plan holds)
        q.put(b"data", *(args or (pymqi.MD(),)), pymqi.PMO())  # full
        fast, full = [e for e in seen if e.kind == "put"]
        assert fast.queue == full.queue == local_queue
        assert {k: v for k, v in fast.fields.items() if k != "msg_id"} == {
            k: v for k, v in full.fields.items() if k != "msg_id"}
        assert len(fast.fields["msg_id"]) == 24 and fast.fields["msg_id"] != bytes(24)


def test_a_listener_hears_puts_with_and_without_an_md(qm, qmgr, local_queue):
    """With someone listening in Python (the plans then leave the calls to the full
    path), each put's event carries its data and its priority, DEFPRTY's without an MD."""
    seen = _events_of(qmgr)
    q = _open(qm, local_queue)
    q.put(b"md", pymqi.MD(Priority=2))
    q.put(b"plain")
    puts = [e for e in seen if e.kind == "put"]
    assert [(e.fields["data"], e.fields["priority"]) for e in puts[-2:]] == [
        (b"md", 2), (b"plain", 0)]


@pytest.mark.parametrize("with_md", [True, False])
def test_get_events_with_and_without_a_buffer_length_agree(qm, qmgr, local_queue, with_md):
    """With someone listening, a get with no buffer length (with or without an MD) and
    one with a buffer length carry the same event fields."""
    seen = _events_of(qmgr)
    q = _open(qm, local_queue)
    md_fields = {"Priority": 6, "Expiry": 900, "CorrelId": b"CID", "GroupId": b"G",
                 "Persistence": CMQC.MQPER_PERSISTENT}
    q.put(b"body-1", pymqi.MD(**md_fields))
    q.put(b"body-2", pymqi.MD(**md_fields))
    del seen[:]
    args = (pymqi.MD(),) if with_md else ()
    assert q.get(None, *args) == b"body-1"
    assert q.get(1_000_000, pymqi.MD()) == b"body-2"
    fast, full = [e for e in seen if e.kind == "get"]
    differ = {"msg_id", "data", "expires_us"}
    assert {k: v for k, v in fast.fields.items() if k not in differ} == {
        k: v for k, v in full.fields.items() if k not in differ}
    assert (fast.fields["data"], full.fields["data"]) == (b"body-1", b"body-2")
    assert abs(fast.fields["expires_us"] - full.fields["expires_us"]) < 5_000_000
    assert fast.fields["persistent"] is True and fast.fields["uow"] == 0


@pytest.mark.parametrize("with_md", [True, False])
def test_a_handles_own_locked_message_is_its_to_get(qm, local_queue, with_md):
    """After a browse with MQGMO_LOCK, the handle that locked the message still gets it
    first: its cursor goes with the get, so the fast path must not serve it."""
    q = _open(qm, local_queue)
    q.put(b"A")
    q.put(b"B")
    lock = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST | CMQC.MQGMO_LOCK)
    assert q.get(None, pymqi.MD(), lock) == b"A"
    def args():  # a fresh MD each time: a used one would match its MsgId
        return (pymqi.MD(),) if with_md else ()

    assert q.get(None, *args()) == b"A"
    assert q.get(None, *args()) == b"B"


def test_gets_of_many_different_records_keep_each_ones_fields(qm, local_queue):
    """The fast get keeps templates of the last few context records it wrote: messages
    whose records differ (more of them than it keeps, interleaved, repeated) each come
    back with their own fields."""
    q = _open(qm, local_queue)
    sent = []
    for round_ in range(3):
        for i in range(7):
            md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.%d" % i,
                          Feedback=round_, Format=CMQC.MQFMT_STRING if i % 2 else b"")
            q.put(b"%d.%d" % (round_, i), md)
            sent.append((b"REPLY.%d" % i, round_, bytes(md.Format).rstrip()))
    for reply_to, feedback, fmt in sent:
        md = pymqi.MD()
        q.get(None, md)
        assert (md.ReplyToQ.rstrip(), md.Feedback, md.Format.rstrip()) == (
            reply_to, feedback, fmt)


def test_a_put_with_no_md_stores_the_same_with_a_listener(qm, qmgr, local_queue):
    """A put with no MD stores no context record (docs/deviations.md), by the plan and
    by the full path alike (with someone listening, the full path serves it)."""
    q = _open(qm, local_queue)
    q.put(b"quiet")
    _events_of(qmgr)
    q.put(b"heard")
    quiet, heard = pymqi.MD(), pymqi.MD()
    assert q.get(None, quiet) == b"quiet" and q.get(None, heard) == b"heard"
    assert _md_fields(quiet) == _md_fields(heard)
    assert heard.PutApplName.strip() == b"TPFEMU"
