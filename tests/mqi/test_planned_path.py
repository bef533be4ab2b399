"""A handle's plan carried out in C (tpfemu.qmgr.plans: planned_put / planned_get).

The everyday MQPUT and MQGET are served by the plan an earlier call made on the handle,
in one C call. These tests show that the plan serves what it should, and declines
(returning False or None, having changed nothing) whatever it must leave to the full
path: a call with options beyond the everyday ones, a listener, a retired generation, a
closed handle, an open TPF commit scope, a browse cursor.
"""

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from ecb import Ecb
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput, plans
from tpfemu.qmgr.plans import planned_get, planned_put

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_BROWSE


@pytest.fixture
def q(qm, local_queue):
    """A queue opened for output, input and browse, with its put and get plans made."""
    queue = pymqi.Queue(qm, local_queue, IO)
    queue.put(b"warm", pymqi.MD())
    queue.get(None, pymqi.MD())
    yield queue
    if queue.get_handle() is not None and not queue.get_handle().closed:
        queue.close()


def _depth(q):
    return q.get_handle().queue.core.depth


def test_the_plan_serves_an_everyday_put_and_get(q):
    h = q.get_handle()
    md = pymqi.MD(MsgType=CMQC.MQMT_REQUEST, ReplyToQ=b"REPLY.Q", Priority=4)
    assert planned_put(h.put_plan, b"request", md, None) is True
    assert md.MsgId != bytes(24) and md.PutDate.strip()  # the MD's outputs are written
    out = pymqi.MD(MsgId=md.MsgId)
    gmo = pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
    assert planned_get(h.get_plan, None, out, gmo) == b"request"
    assert (out.MsgType, out.ReplyToQ.rstrip(), out.Priority) == (
        CMQC.MQMT_REQUEST, b"REPLY.Q", 4)
    assert _depth(q) == 0


def test_the_pymqi_layer_uses_the_plan(q, monkeypatch):
    """Queue.put/get with an MD reach no Python path of the queue manager's."""
    def python_path(*args, **kw):
        raise AssertionError("the Python path ran")

    for module, name in ((mqput, "put"), (mqget, "get"), (mqput, "put_full"),
                         (mqget, "get_full")):
        monkeypatch.setattr(module, name, python_path)
    md = pymqi.MD()
    q.put(b"one", md)
    assert q.get(None, pymqi.MD(MsgId=md.MsgId)) == b"one"


@pytest.mark.parametrize("case", ["pmo new correl id", "pmo options not int", "pmo both",
                                  "not bytes", "too long", "priority 12",
                                  "closed", "scope", "listener", "new generation"])
def test_a_put_the_plan_does_not_serve_is_declined(q, qmgr, case):
    h = q.get_handle()
    data, md, pmo = b"x", pymqi.MD(), None
    if case == "pmo both":  # the full path says what is wrong
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT)
    elif case == "pmo new correl id":
        pmo = pymqi.PMO(Options=CMQC.MQPMO_NEW_CORREL_ID)
    elif case == "pmo options not int":
        pmo = pymqi.PMO()
        object.__setattr__(pmo, "Options", 0.0)  # the full path says what is wrong
    elif case == "not bytes":
        data = bytearray(b"x")
    elif case == "too long":
        data = b"x" * (h.put_plan.limit + 1)
    elif case == "priority 12":
        md = pymqi.MD(Priority=12)  # a 2049 warning: the full path says so
    elif case == "closed":
        q.close()
    elif case == "scope":  # a commit scope opened on some ECB (rolled back below)
        scoped = Ecb()
        scoped.tx_begin()
    elif case == "listener":
        qmgr.events.subscribe(lambda event: None)
    elif case == "new generation":
        qmgr.catalog.define("QL", "ANOTHER.Q")
    before = md.get() if md is not None else None
    try:
        assert planned_put(h.put_plan, data, md, pmo) is False
    finally:
        if case == "scope":
            scoped.tx_rollback()
    assert (md.get() if md is not None else None) == before  # nothing written
    if pmo is not None:
        assert pmo.ResolvedQName == pymqi.PMO().ResolvedQName
    if case != "closed":
        assert _depth(q) == 0


@pytest.mark.parametrize("options", [CMQC.MQPMO_NONE, CMQC.MQPMO_NO_SYNCPOINT
                                     | CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_DEFAULT_CONTEXT])
def test_the_plan_serves_a_put_with_everyday_pmo_options(q, qmgr, options):
    """A PMO with no options but the everyday ones is served, and gets the outputs the
    full path gives it."""
    h = q.get_handle()
    full = pymqi.PMO(Options=CMQC.MQPMO_NEW_CORREL_ID)  # (served by the full path)
    q.put(b"full", pymqi.MD(), full)
    pmo = pymqi.PMO(Options=options)
    assert planned_put(h.put_plan, b"planned", pymqi.MD(), pmo) is True
    assert pmo.ResolvedQName == full.ResolvedQName == b"APP.Q".ljust(48)
    assert pmo.ResolvedQMgrName == full.ResolvedQMgrName == qmgr.name.encode().ljust(48)
    assert _depth(q) == 2


def test_a_planned_put_with_new_msg_id_makes_a_new_one(q):
    """MQPMO_NEW_MSG_ID with an MD reused from an earlier put: the core makes a new
    MsgId, as the full path does (without the option the MD's MsgId is used again)."""
    h = q.get_handle()
    md, pmo = pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID)
    assert planned_put(h.put_plan, b"first", md, pmo) is True
    first = md.MsgId
    assert planned_put(h.put_plan, b"second", md, pmo) is True
    assert md.MsgId not in (first, bytes(24))
    got = pymqi.MD(MsgId=first)
    gmo = pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_MSG_ID)
    assert q.get(None, got, gmo) == b"first"
    assert q.get(None, pymqi.MD(MsgId=md.MsgId), gmo) == b"second"


@pytest.mark.parametrize("case", ["declined", "queue full"])
def test_a_new_msg_id_put_not_made_leaves_the_md_as_it_was(q, qmgr, case):
    """The MsgId MQPMO_NEW_MSG_ID clears is put back when the plan declines the MD or
    the put fails."""
    h = q.get_handle()
    md = pymqi.MD(MsgId=b"KEEP ME", Priority=12 if case == "declined" else 0)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID)
    if case == "queue full":
        qmgr.catalog.alter("QL", "APP.Q", maxdepth=1)
        assert planned_put(h.put_plan, b"x", pymqi.MD(), None) is False  # the generation moved on
        q.put(b"fill", pymqi.MD())  # the full path: the queue is full, the plan new
    before = md.get()
    if case == "declined":
        assert planned_put(h.put_plan, b"x", md, pmo) is False
    else:
        with raises_mq(CMQC.MQRC_Q_FULL):
            planned_put(h.put_plan, b"x", md, pmo)
    assert md.get() == before
    assert pmo.ResolvedQName == pymqi.PMO().ResolvedQName


@pytest.mark.parametrize("case", ["max length", "browse", "wait", "cursor", "listener",
                                  "closed", "gmo both"])
def test_a_get_the_plan_does_not_serve_is_declined(q, qmgr, case):
    h = q.get_handle()
    q.put(b"waiting", pymqi.MD())
    max_length, md, gmo = None, pymqi.MD(), None
    if case == "max length":
        max_length = 100
    elif case == "gmo both":
        gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT)
    elif case == "browse":
        gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    elif case == "wait":
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=10)
    elif case == "cursor":
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    elif case == "listener":
        qmgr.events.subscribe(lambda event: None)
    elif case == "closed":
        depth = _depth(q)
        q.close()
    before = _depth(q) if case != "closed" else depth
    assert planned_get(h.get_plan, max_length, md, gmo) is None
    assert md is None or md.get() == pymqi.MD().get()  # nothing written
    assert (_depth(q) if case != "closed" else h.queue.core.depth) == before


def test_errors_of_the_queue_come_through_the_plan(q):
    h = q.get_handle()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        planned_get(h.get_plan, None, pymqi.MD(CorrelId=b"NOBODY"),
                    pymqi.GMO(Version=2, MatchOptions=CMQC.MQMO_MATCH_CORREL_ID))


def test_a_waiting_getter_is_woken_by_a_planned_put(q, qm):
    """A put by the plan wakes an MQGET waiting on the queue (in another thread)."""
    import threading

    reader = pymqi.Queue(qm, q.get_handle().name, CMQC.MQOO_INPUT_SHARED)
    got = []
    wait = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
    t = threading.Thread(target=lambda: got.append(reader.get(None, pymqi.MD(), wait)))
    t.start()
    queue = q.get_handle().queue
    for _ in range(500):  # until the reader waits
        if queue.waiters:
            break
        threading.Event().wait(0.01)
    assert queue.waiters
    assert planned_put(q.get_handle().put_plan, b"wake up", pymqi.MD(), None) is True
    t.join(5)
    assert got == [b"wake up"]
    reader.close()


def test_a_declined_call_tries_the_plan_once(q, qmgr, monkeypatch):
    """The pymqi layer tries the plan and, when it declines (here: someone listens),
    goes on without trying it again."""
    calls = []
    for name, real in (("planned_put", planned_put), ("planned_get", planned_get)):
        monkeypatch.setattr(plans, name,
                            lambda *a, _real=real, _name=name: calls.append(_name) or _real(*a))
    qmgr.events.subscribe(lambda event: None)
    md = pymqi.MD()
    q.put(b"heard", md)
    assert q.get(None, pymqi.MD(MsgId=md.MsgId)) == b"heard"
    assert calls == ["planned_put", "planned_get"]


# -- puts and gets in syncpoint: the plan joins the unit of work ---------------------------

SYNC_PUT = CMQC.MQPMO_SYNCPOINT
SYNC_GET = CMQC.MQGMO_SYNCPOINT


def _full_paths_fail(monkeypatch):
    def full_path(*args, **kw):
        raise AssertionError("the full path ran")

    monkeypatch.setattr(mqput, "_put_checked", full_path)
    monkeypatch.setattr(mqget, "_get_checked", full_path)


def _committed(qmgr):
    """What another connection can get from APP.Q now (its data, in order)."""
    conn = pymqi.connect(qmgr.name)
    reader = pymqi.Queue(conn, "APP.Q", CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    seen = []
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    try:
        while True:
            seen.append(reader.get(None, pymqi.MD(), gmo))
    except pymqi.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    conn.disconnect()
    return seen


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_the_plan_serves_puts_in_syncpoint(q, qm, qmgr, monkeypatch, end):
    """MQPUT with MQPMO_SYNCPOINT by the handle's plan: the message joins the
    connection's unit of work, unseen by others until MQCMIT; MQBACK takes it away."""
    _full_paths_fail(monkeypatch)
    md, pmo = pymqi.MD(Priority=3), pymqi.PMO(Options=SYNC_PUT)
    q.put(b"in the unit", md, pmo)
    q.put(b"also", md, pymqi.PMO(Options=SYNC_PUT | CMQC.MQPMO_NEW_MSG_ID))
    monkeypatch.undo()
    assert md.MsgId != bytes(24) and pmo.ResolvedQName == b"APP.Q".ljust(48)
    assert _committed(qmgr) == []
    qm.commit() if end == "commit" else qm.backout()
    assert _committed(qmgr) == ([b"in the unit", b"also"] if end == "commit" else [])


@pytest.mark.parametrize("end", ["commit", "backout"])
def test_the_plan_serves_gets_in_syncpoint(q, qm, qmgr, monkeypatch, end):
    """MQGET with MQGMO_SYNCPOINT by the handle's plan: the message is hidden until
    the unit of work ends; MQCMIT removes it, MQBACK puts it back in its place with its
    BackoutCount raised."""
    for data in (b"first", b"second"):
        q.put(data, pymqi.MD())
    _full_paths_fail(monkeypatch)
    md = pymqi.MD()
    assert q.get(None, md, pymqi.GMO(Options=SYNC_GET)) == b"first"
    monkeypatch.undo()
    assert _committed(qmgr) == [b"second"]
    qm.commit() if end == "commit" else qm.backout()
    if end == "commit":
        assert _committed(qmgr) == [b"second"]
    else:
        assert _committed(qmgr) == [b"first", b"second"]
        again = pymqi.MD()
        assert q.get(None, again) == b"first" and again.BackoutCount == 1


def test_the_syncpoint_limit_is_kept_on_the_plan(q, qm, qmgr, monkeypatch):
    """MAXUMSGS counts the planned puts and gets of a unit of work: the next one fails
    with 2024 (from the full path, to which the plan leaves it) and changes nothing."""
    qmgr.catalog.alter("MQP", maxumsgs=3)
    q.put(b"outside", pymqi.MD())  # (the plans, for the new generation)
    q.get(None, pymqi.MD())
    q.put(b"got in the unit", pymqi.MD())
    _full_paths_fail(monkeypatch)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET)) == b"got in the unit"
    q.put(b"put 1", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
    q.put(b"put 2", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
    monkeypatch.undo()
    md = pymqi.MD()
    with raises_mq(CMQC.MQRC_SYNCPOINT_LIMIT_REACHED):
        q.put(b"one too many", md, pymqi.PMO(Options=SYNC_PUT))
    assert md.get() == pymqi.MD().get()
    qm.commit()
    assert _committed(qmgr) == [b"put 1", b"put 2"]


def test_syncpoint_and_no_syncpoint_together_are_refused(q):
    """Both options: 2046 (MQRC_OPTIONS_ERROR) from the full path, on put and get."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        q.put(b"x", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT | CMQC.MQPMO_NO_SYNCPOINT))
    q.put(b"x", pymqi.MD())
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        q.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET | CMQC.MQGMO_NO_SYNCPOINT))


def test_events_in_syncpoint_name_the_unit_of_work(q, qm, qmgr):
    """With a listener in Python (the plans then leave the calls to the full paths), the
    put and get events of calls in syncpoint carry the unit of work's id, and the commit
    event the same id."""
    events = []
    qmgr.events.subscribe(events.append)
    q.put(b"x", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
    qm.commit()
    q.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET))
    qm.commit()
    kinds = [(e.kind, e.fields.get("uow")) for e in events]
    put_uow, get_uow = kinds[0][1], kinds[2][1]
    assert put_uow and get_uow  # (a connection's units of work may share an id)
    assert kinds == [("put", put_uow), ("commit", put_uow), ("get", get_uow),
                     ("commit", get_uow)]


def test_the_plan_serves_puts_and_gets_with_no_md(q, monkeypatch):
    """MQPUT and MQGET with no MD (the everyday datagram) are served by the plans too,
    in syncpoint as well, with the full paths disabled."""
    _full_paths_fail(monkeypatch)
    q.put(b"plain")
    q.put(b"in the unit", None, pymqi.PMO(Options=SYNC_PUT))
    assert q.get() == b"plain"
    monkeypatch.undo()
    q.get_handle().conn.commit()
    _full_paths_fail(monkeypatch)
    assert q.get(None, None, pymqi.GMO(Options=SYNC_GET)) == b"in the unit"
    monkeypatch.undo()
    q.get_handle().conn.backout()
    assert q.get() == b"in the unit"  # backed out: back on the queue


def test_a_put_with_no_md_to_a_defpsist_queue_is_left_to_the_full_path(q, qmgr):
    """DEFPSIST(YES): a put with no MD is persistent, which the plan leaves to the full
    path (its recovery log); with an MD asking for a non-persistent message it serves."""
    qmgr.catalog.alter("QL", "APP.Q", defpsist="YES")
    q.put(b"made the plan")  # the full path, in the new generation
    h = q.get_handle()
    assert h.put_plan is not None and h.put_plan.defpsist
    assert planned_put(h.put_plan, b"x", None, None) is False
    md = pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT)
    assert planned_put(h.put_plan, b"y", md, None) is True
    assert [q.get(None, m) for m in (pymqi.MD(), pymqi.MD())] == [b"made the plan", b"y"]


def test_the_plan_layout_is_checked_at_setup(q):
    """The C side refuses plan types whose fields are not the ones it reads, and keeps
    the layout in force."""
    from typing import NamedTuple

    from tpfemu import _lowlevel
    from tpfemu.mq.structs import GMO, MD, PMO
    from tpfemu.qmgr.catalog import Generation

    class Swapped(NamedTuple):
        queue: object
        generation: object

    with pytest.raises(TypeError, match="fields"):
        _lowlevel.set_plan_layout(Swapped, plans.GetPlan, Generation, MD, GMO, PMO,
                                  plans.PLAN_GET, plans.PLAN_PUT)
    assert planned_put(q.get_handle().put_plan, b"still served", MD(), None) is True


def test_a_planned_get_reports_what_expired(q, qmgr, monkeypatch):
    """On a queue where messages can expire, the plan serves gets and reports the
    messages a get found expired (here: an expiration report to the ReplyToQ), as the
    full path does."""
    import time

    qmgr.catalog.define("QL", "REPORTS.Q")
    q.put(b"warm", pymqi.MD())  # the plans, in the new generation
    q.get(None, pymqi.MD())
    q.put(b"short-lived", pymqi.MD(Expiry=1, Report=CMQC.MQRO_EXPIRATION,
                                   ReplyToQ=b"REPORTS.Q"))
    q.put(b"lasting", pymqi.MD())
    time.sleep(0.15)
    _full_paths_fail(monkeypatch)
    assert q.get(None, pymqi.MD()) == b"lasting"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get(None, pymqi.MD())
    monkeypatch.undo()
    report = pymqi.MD()
    reports = pymqi.Queue(q.get_handle().conn and pymqi.connect(qmgr.name), "REPORTS.Q")
    reports.get(None, report)
    assert report.MsgType == CMQC.MQMT_REPORT
    assert report.Feedback == CMQC.MQFB_EXPIRATION


def test_no_plan_is_made_while_a_commit_scope_is_open(q, qmgr):
    """While a commit scope is open on any ECB, the full path leaves no plan: a call
    from inside the scope must join it, which a plan does not do."""
    scoped = Ecb()
    scoped.tx_begin()
    try:
        q.put(b"outside the scope", pymqi.MD())
        q.get(None, pymqi.MD())
        h = q.get_handle()
        assert h.put_plan is None or not h.put_plan.generation.current
        assert h.get_plan is None or not h.get_plan.generation.current
    finally:
        scoped.tx_rollback()
    q.put(b"after", pymqi.MD())
    assert q.get_handle().put_plan.generation.current


@pytest.fixture
def receiver(qm, local_queue):
    """A queue opened for output and input with MQOO_SET_ALL_CONTEXT (as a channel's
    receiver opens its destinations), its plans made."""
    queue = pymqi.Queue(qm, local_queue, IO | CMQC.MQOO_SET_ALL_CONTEXT)
    queue.put(b"warm", pymqi.MD())
    queue.get(None, pymqi.MD())
    yield queue
    queue.close()


def test_the_plan_serves_a_put_with_set_all_context(receiver):
    """MQPMO_SET_ALL_CONTEXT on a handle open for it is served by the plan: the message
    keeps the MD's context and put time, and the MD gets only its MsgId back."""
    h = receiver.get_handle()
    md = pymqi.MD(UserIdentifier=b"alice", PutApplName=b"REMOTE.APP", PutApplType=6,
                  ApplOriginData=b"OR", PutDate=b"20010203", PutTime=b"04050607")
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT)
    assert planned_put(h.put_plan, b"passed on", md, pmo) is True
    assert md.MsgId != bytes(24) and (md.PutDate, md.PutTime) == (b"20010203", b"04050607")
    got = pymqi.MD()
    assert receiver.get(None, got) == b"passed on"
    assert (got.UserIdentifier, got.PutApplName.rstrip(), got.PutApplType,
            got.ApplOriginData, got.PutDate, got.PutTime) == (
        b"alice".ljust(12), b"REMOTE.APP", 6, b"OR  ", b"20010203", b"04050607")


def test_the_plan_serves_a_put_with_set_identity_context(receiver):
    """MQPMO_SET_IDENTITY_CONTEXT: the identity from the MD, the origin from the
    connection, both written back into the MD with the put time."""
    h = receiver.get_handle()
    md = pymqi.MD(UserIdentifier=b"bob", ApplIdentityData=b"id", PutApplName=b"IGNORED")
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SET_IDENTITY_CONTEXT)
    assert planned_put(h.put_plan, b"ident", md, pmo) is True
    assert md.PutApplName.rstrip() != b"IGNORED" and md.PutDate.strip()
    got = pymqi.MD()
    assert receiver.get(None, got) == b"ident"
    assert (got.UserIdentifier, got.ApplIdentityData.rstrip(), got.PutApplName) == (
        b"bob".ljust(12), b"id", md.PutApplName)


@pytest.mark.parametrize("options", [CMQC.MQPMO_SET_ALL_CONTEXT,
                                     CMQC.MQPMO_SET_IDENTITY_CONTEXT])
def test_a_context_put_on_a_handle_not_open_for_it_is_left_to_the_full_path(q, options):
    """The plan declines a SET_*_CONTEXT put its handle's open options do not allow, and
    the full path refuses it with IBM's reason, putting nothing."""
    h = q.get_handle()
    md = pymqi.MD(UserIdentifier=b"mallory")
    assert planned_put(h.put_plan, b"x", md, pymqi.PMO(Options=options)) is False
    reason = (CMQC.MQRC_NOT_OPEN_FOR_SET_ALL if options == CMQC.MQPMO_SET_ALL_CONTEXT
              else CMQC.MQRC_NOT_OPEN_FOR_SET_IDENT)
    with raises_mq(reason):
        q.put(b"x", md, pymqi.PMO(Options=options))
    assert _depth(q) == 0


@pytest.mark.parametrize("date,clock", [(b"20010229", b"04050607"), (b"2001023", b""),
                                        (b"20010203", b"126000")])
def test_a_set_all_context_put_time_the_plan_does_not_read_is_left_to_the_full_path(
        receiver, date, clock):
    """A PutDate or PutTime that is not a plain date and time is left to the full path,
    the MD unchanged."""
    h = receiver.get_handle()
    md = pymqi.MD(PutDate=date, PutTime=clock)
    before = md.get()
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SET_ALL_CONTEXT)
    assert planned_put(h.put_plan, b"x", md, pmo) is False
    assert md.get() == before


def test_the_raw_entry_fills_the_gmo_resolved_qname(q, local_queue):
    """The raw entry writes the GMO's ResolvedQName into the caller's MQGMO, as the full
    path fills a GMO object."""
    h = q.get_handle()
    q.put(b"raw")
    md, gmo = bytearray(pymqi.MD(Version=2).pack()), bytearray(pymqi.GMO().pack())
    buffer = bytearray(16)
    assert plans.planned_get_raw(h.get_plan, md, gmo, buffer) == 3
    assert pymqi.GMO().unpack(bytes(gmo)).ResolvedQName.rstrip() == local_queue.encode()
