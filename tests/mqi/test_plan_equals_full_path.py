"""The plan and the full path are one MQPUT and one MQGET (issue 24).

Hypothesis drives the same sequence of calls (puts and gets with and without MDs, PMOs
and GMOs, valid and invalid values, in and out of syncpoint, commits and backouts,
through handles with and without the authority to set context) on three queues in the
same state: on PLAN.Q each call first tries its handle's plan (``mqput.put`` /
``mqget.get``), on FULL.Q each call takes the full path alone (``mqput.put_full`` /
``mqget.get_full``), and on RAW.Q each call first tries the plan's raw entry, as a C
program's MQPUT and MQGET do (``plans.planned_put_raw`` / ``planned_get_raw`` on the
structures in C layout), then the other paths. Every call must give the same outcome:
the same data or the same reason code and completion code, and the same MD and PMO
outputs (the raw entry's as C structures: compared packed), the made MsgIds and put
times aside (they differ by nature).

The same runs on a queue manager with a home, whose persistent messages go to the
recovery log: there the plan's put logs a persistent message in C (by the raw entry
too), and so does its get with an MD (through the queue's log port: in the caller's unit
of work, or outside syncpoint under a private one finished once the GET record is
durable); the queues' PUT and GET records in the log (in syncpoint or not), and the
persistent messages a checkpoint would hold, must be the same on the three queues too.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput, plans
from tpfemu.qmgr.manager import QueueManager
from tpfemu.store.message import NEVER

IO = CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
_names = itertools.count(1)

# -- the calls -----------------------------------------------------------------------------

def _mostly(valid: list, invalid: list) -> st.SearchStrategy:
    """Valid values four times as often as invalid ones (so that most calls succeed and
    later calls meet their messages)."""
    return st.sampled_from(valid * 4 + invalid)


_MD_FIELDS = st.fixed_dictionaries({}, optional={
    "Priority": _mostly([-1, 0, 4, 9], [-2, 10, 12]),
    "Persistence": _mostly([0, 1, 2], [-1, 3]),
    "Expiry": _mostly([-1, 3000, 9000], [-2, 0]),
    "MsgType": _mostly([CMQC.MQMT_DATAGRAM, CMQC.MQMT_REPLY], [CMQC.MQMT_REQUEST]),
    "ReplyToQ": st.sampled_from([b"", b"REPLY.Q"]),
    "CorrelId": st.sampled_from([b"", b"C1", b"C2"]),
    "MsgId": st.sampled_from([b"", b"M1", b"M2"]),
    "Report": st.sampled_from([0, CMQC.MQRO_EXPIRATION]),
    "GroupId": st.sampled_from([b"", b"G1"]),
    "Format": st.sampled_from([b"", CMQC.MQFMT_STRING]),
    # the context fields (taken from the MD with SET_IDENTITY_CONTEXT or SET_ALL_CONTEXT)
    "UserIdentifier": st.sampled_from([b"", b"alice"]),
    "ApplIdentityData": st.sampled_from([b"", b"ident"]),
    "AccountingToken": st.sampled_from([b"", b"\x16acct"]),
    "PutApplType": st.sampled_from([CMQC.MQAT_NO_CONTEXT, CMQC.MQAT_UNIX]),
    "PutApplName": st.sampled_from([b"", b"SENDER"]),
    "ApplOriginData": st.sampled_from([b"", b"OR"]),
    # SET_ALL_CONTEXT's put time: plain ones, blank, and ones only the full path reads
    "PutDate": _mostly([b"", b"20010203", b"20040229"], [b"2001023", b"20010229", b"2001 2 3"]),
    "PutTime": _mostly([b"", b"04050607", b"040506"], [b"126000", b"0405", b"04a50607"]),
})
_PMO_OPTIONS = st.sampled_from([
    None, CMQC.MQPMO_NONE, CMQC.MQPMO_NO_SYNCPOINT, CMQC.MQPMO_SYNCPOINT,
    CMQC.MQPMO_NEW_MSG_ID, CMQC.MQPMO_NEW_MSG_ID | CMQC.MQPMO_SYNCPOINT,
    CMQC.MQPMO_NEW_CORREL_ID, CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT,
    CMQC.MQPMO_FAIL_IF_QUIESCING | CMQC.MQPMO_DEFAULT_CONTEXT,
    CMQC.MQPMO_SET_ALL_CONTEXT, CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_SYNCPOINT,
    CMQC.MQPMO_SET_IDENTITY_CONTEXT, CMQC.MQPMO_SET_IDENTITY_CONTEXT | CMQC.MQPMO_NEW_MSG_ID,
    CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_SET_IDENTITY_CONTEXT,
    CMQC.MQPMO_SET_ALL_CONTEXT | CMQC.MQPMO_DEFAULT_CONTEXT,
])
# The handle a call uses, by its open options beside MQOO_OUTPUT and MQOO_INPUT_AS_Q_DEF:
# the context options it may put with differ (IBM's authority check on the open options).
HANDLES = {"io": 0, "ident": CMQC.MQOO_SET_IDENTITY_CONTEXT, "all": CMQC.MQOO_SET_ALL_CONTEXT}
_HANDLE = st.sampled_from(list(HANDLES))
_GMO = st.one_of(st.none(), st.fixed_dictionaries({
    "Options": st.sampled_from([
        CMQC.MQGMO_NONE, CMQC.MQGMO_NO_SYNCPOINT, CMQC.MQGMO_SYNCPOINT,
        CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT, CMQC.MQGMO_FAIL_IF_QUIESCING,
        CMQC.MQGMO_ACCEPT_TRUNCATED_MSG]),
    "Version": st.sampled_from([1, 2]),
    "MatchOptions": st.sampled_from([
        CMQC.MQMO_NONE, CMQC.MQMO_MATCH_MSG_ID, CMQC.MQMO_MATCH_CORREL_ID,
        CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID]),
}))
_PUT = st.tuples(st.just("put"), st.binary(max_size=40), st.one_of(st.none(), _MD_FIELDS),
                 _PMO_OPTIONS, _HANDLE)
_GET = st.tuples(st.just("get"), st.sampled_from([None, None, 0, 10]),
                 st.one_of(st.none(), _MD_FIELDS.map(
                     lambda f: {k: v for k, v in f.items() if k in ("MsgId", "CorrelId")})),
                 _GMO)
_END = st.tuples(st.sampled_from(["commit", "backout"]))
CALLS = st.lists(st.one_of(_PUT, _PUT, _GET, _GET, _END), min_size=1, max_size=14)


# -- three sides in the same state -----------------------------------------------------------

@dataclass
class Side:
    """One queue and its connection, taking one kind of path."""

    conn: Any
    queue: Any
    planned: bool
    raw: bool = False  # the plan's raw entry first (C structures), as C programs call it
    handles: dict[str, Any] = field(default_factory=dict)  # the queue open by HANDLES
    made_ids: list[bytes] = field(default_factory=list)  # MsgIds the queue manager made
    planned_persistent: int = 0  # persistent messages the plan got (with an MD)
    raw_persistent: int = 0  # persistent messages the raw entry put

    def put(self, data: bytes, md: Any, pmo: Any, handle: str | None = None) -> None:
        h = (self.handles[handle] if handle else self.queue).get_handle()
        persistent = md is not None and md.Persistence == 1
        if self.raw and md is not None and _raw_put(h, data, md, pmo):
            self.raw_persistent += persistent
            return
        call = mqput.put if self.planned else mqput.put_full
        call(self.conn.connection, h, data, md, pmo)

    def get(self, max_length: int | None, md: Any, gmo: Any) -> bytes:
        h = self.queue.get_handle()
        if self.raw and md is not None and max_length is None:
            data = _raw_get(h, md, gmo)
            if data is not None:
                return data
        if self.planned:  # (mqget.get, the plan counted when it got a persistent one)
            data = plans.planned_get(h.get_plan, max_length, md, gmo)
            if data is not None:
                self.planned_persistent += md is not None and md.Persistence == 1
                return data
        return mqget.get_full(self.conn.connection, h, max_length, md, gmo)


MAXMSGL = 64  # every queue's: the raw side's get buffer holds it (as mqi.c asks)


def _raw_put(h: Any, data: bytes, md: Any, pmo: Any) -> bool:
    """The raw entry on the MD (as version 2) and PMO in C layout, their outputs loaded
    back into the objects when the plan served the call."""
    md.Version = 2  # (a version-1 MQMD has no GroupId: C programs' rule, not Python's)
    md_buf, pmo_buf = bytearray(md.pack()), bytearray((pmo or pymqi.PMO()).pack())
    if not plans.planned_put_raw(h.put_plan, data, md_buf, pmo_buf):
        return False
    md.unpack(md_buf)
    if pmo is not None:
        pmo.unpack(pmo_buf)
    return True


def _raw_get(h: Any, md: Any, gmo: Any) -> bytes | None:
    """The raw entry on the MD (as version 2) and GMO in C layout with a buffer as long
    as the queue's MAXMSGL: the data, the MD loaded back, or None when declined."""
    md.Version = 2
    md_buf, gmo_buf = bytearray(md.pack()), bytearray((gmo or pymqi.GMO()).pack())
    buffer = bytearray(MAXMSGL)
    length = plans.planned_get_raw(h.get_plan, md_buf, gmo_buf, buffer)
    if length is None:
        return None
    md.unpack(md_buf)
    if gmo is not None:
        gmo.unpack(gmo_buf)
    return bytes(buffer[:length])


def _ids(side: Side, value: bytes) -> bytes:
    """A MsgId or CorrelId as the order in which its side made it (the sides' differ)."""
    if value in side.made_ids:
        return b"made-%d" % side.made_ids.index(value)
    return value


def _outcome(side: Side, fn, *args) -> tuple:
    try:
        return ("ok", fn(*args))
    except pymqi.MQMIError as exc:
        return ("error", exc.comp, exc.reason, getattr(exc, "message", None))


def _md_out(side: Side, md: Any, packed: bool = False) -> dict | None:
    """The MD's fields to compare (``packed``: as its C structure holds them)."""
    if md is None:
        return None
    fields = md.get()
    if packed:  # (every field, as an MQMD of version 2 holds it)
        fields = pymqi.MD().unpack(pymqi.MD(**dict(fields, Version=2)).pack()).get()
    for name in ("MsgId", "CorrelId"):
        if fields[name].startswith(b"AMQ ") and fields[name] not in side.made_ids:
            side.made_ids.append(fields[name])  # made by the queue manager
        fields[name] = _ids(side, fields[name])
    if not fields["PutDate"].startswith((b"2001", b"2004")):  # (else: SET_ALL_CONTEXT's)
        for name in ("PutDate", "PutTime"):
            fields[name] = bool(fields[name].strip())
    if fields["Expiry"] > 0:  # (the time left: the two gets are a few tenths apart)
        fields["Expiry"] = round(fields["Expiry"] / 1000)
    return fields


def _run(side: Side, call: tuple) -> tuple:
    """Make the call on the side: what it gave, and the MD and PMO it was given."""
    kind = call[0]
    if kind == "put":
        _, data, md_fields, pmo_options, handle = call
        md = pymqi.MD(**md_fields) if md_fields is not None else None
        pmo = pymqi.PMO(Options=pmo_options) if pmo_options is not None else None
        return _outcome(side, side.put, data, md, pmo, handle), md, pmo
    if kind == "get":
        _, max_length, md_fields, gmo_fields = call
        md = None
        if md_fields is not None:
            md = pymqi.MD(**{k: (side.made_ids[int(v[1:]) % len(side.made_ids)]
                                 if k == "MsgId" and v and side.made_ids else v)
                             for k, v in md_fields.items()})
        gmo = pymqi.GMO(**gmo_fields) if gmo_fields is not None else None
        return _outcome(side, side.get, max_length, md, gmo), md, gmo
    getattr(side.conn, kind)()
    return (kind,)


def _view(side: Side, ran: tuple, packed: bool = False) -> tuple:
    """What a call gave and wrote, to compare across the sides (a put's PMO, a get's
    GMO: their resolved names)."""
    if len(ran) == 1:
        return ran
    result, md, pmo = ran
    pmo_out = None if pmo is None else (  # (the queue's name: the sides' differ)
        pmo.ResolvedQName.strip() == side.queue.get_handle().name.encode(),
        getattr(pmo, "ResolvedQMgrName", None))
    return result, _md_out(side, md, packed), pmo_out


@pytest.fixture(scope="module", params=["memory", "logged"])
def sides(request, tmp_path_factory):
    """The three sides, on a queue manager in memory or with a home (a recovery log)."""
    home = tmp_path_factory.mktemp("eq") if request.param == "logged" else None
    # (no checkpoint during the test: its trim could cut one side's records from the log)
    manager = QueueManager(f"EQ{next(_names)}", home=home, checkpoint_interval=86400).start()
    manager.catalog.define("MQP", maxumsgs=4)
    pair = []
    for name, planned in (("PLAN.Q", True), ("FULL.Q", False), ("RAW.Q", True)):
        manager.catalog.define("QL", name, maxdepth=6, maxmsgl=MAXMSGL)
        conn = pymqi.connect(manager.name)
        side = Side(conn, pymqi.Queue(conn, name, IO), planned, raw=name == "RAW.Q")
        side.handles = {key: pymqi.Queue(conn, name, IO | extra) for key, extra in HANDLES.items()}
        pair.append(side)
    yield pair
    manager.stop()


def _reset(side: Side) -> None:
    side.conn.backout()
    h = side.queue.get_handle()
    side.queue.get_handle().queue.core.purge()
    h.put_plan = h.get_plan = None
    if h.cursor is not None:  # (a get with a cursor option made one: plans no more)
        h.cursor.close()
        h.cursor = None
    side.made_ids.clear()
    # the plan side's plans, made by a first everyday put and get
    side.put(b"warm", pymqi.MD(), None)
    side.get(None, pymqi.MD(), None)
    for key in HANDLES:
        side.handles[key].get_handle().put_plan = None
        side.put(b"warm", pymqi.MD(), None, key)
        side.get(None, pymqi.MD(), None)
    side.made_ids.clear()


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(calls=CALLS)
def test_the_plan_and_the_full_path_give_the_same_outcomes(sides, calls):
    """Each call gives the same data, reason code, MD and PMO by the plan, and by its raw
    entry with C structures, as by the full path alone, and the queues hold the same
    messages after the sequence."""
    plan, full, raw = sides
    for side in sides:
        _reset(side)
    plog = plan.conn.connection.qmgr.persistence  # (None: a queue manager in memory)
    start = plog.log.next_lsn if plog is not None else 0
    for side in (plan, raw):
        assert side.queue.get_handle().put_plan is not None
        assert all(q.get_handle().put_plan is not None for q in side.handles.values())
    for call in calls:
        by_plan, by_full, by_raw = (_run(side, call) for side in sides)
        assert _view(plan, by_plan) == _view(full, by_full), call
        assert _view(raw, by_raw, packed=True) == _view(full, by_full, packed=True), call
    for side in sides:
        side.conn.commit()
    depths = {side.queue.get_handle().queue.core.depth for side in sides}
    assert len(depths) == 1
    if plog is not None:
        _wait_durable(plog.log)
        logged = [_logged(side, plog, start) for side in sides]
        assert logged[0] == logged[1] == logged[2]


def _wait_durable(log: Any, seconds: float = 10.0) -> None:
    """Wait until every record appended to ``log`` is durable: a backout's records are
    not waited for by the MQBACK (nor by the empty MQCMIT after it), so they may still
    be on their way to the disk when the sequence ends."""
    deadline = time.monotonic() + seconds
    while log.durable_lsn < log.next_lsn - 1:
        assert time.monotonic() < deadline, "the log's records did not become durable"
        time.sleep(0.001)


def _logged(side: Side, plog: Any, start: int) -> tuple:
    """The side's queue as the recovery log knows it from LSN ``start`` on: its PUT
    records (data, priority, context length) and GET records (the message, its backout
    count), each with whether it names a unit of work, in log order, and the
    persistent messages a checkpoint would hold now (the caller waits until every
    record is durable)."""
    name = side.queue.get_handle().queue.name
    keys: dict[int, int] = {}  # message key -> the order of its PUT record on the side
    records = []
    for r in plog.log.replay(start):
        if r.queue != name:
            continue
        if r.message is not None:
            keys[r.key] = len(keys)
            m = r.message
            records.append(("PUT", bytes(m.data), m.priority, m.ctx_len, m.expiry == NEVER,
                            bool(r.uow)))
        else:
            records.append(("GET", keys.get(r.key), r.backout_count, bool(r.uow)))
    held, _ = plog.snapshot_queue(side.queue.get_handle().queue)
    return records, [(keys.get(m.key), bytes(m.data)) for m in held]


#: Persistent puts and gets with an MD, in and out of syncpoint, committed and backed out.
_PERSISTENT_CALLS = [
    ("put", b"p1", {"Persistence": 1, "CorrelId": b"C1"}, CMQC.MQPMO_NO_SYNCPOINT, "io"),
    ("put", b"p2", {"Persistence": 1, "Priority": 4}, CMQC.MQPMO_NO_SYNCPOINT, "io"),
    ("put", b"p3", {"Persistence": 1}, CMQC.MQPMO_SYNCPOINT, "io"),
    ("commit",),
    ("put", b"p4", {"Persistence": 1}, CMQC.MQPMO_NO_SYNCPOINT, "io"),
    ("get", None, {}, {"Options": CMQC.MQGMO_SYNCPOINT, "Version": 1, "MatchOptions": 0}),
    ("backout",),
    ("get", None, {}, {"Options": CMQC.MQGMO_SYNCPOINT, "Version": 1, "MatchOptions": 0}),
    ("get", None, {"CorrelId": b"C1"},
     {"Options": CMQC.MQGMO_NO_SYNCPOINT, "Version": 2,
      "MatchOptions": CMQC.MQMO_MATCH_CORREL_ID}),
    ("commit",),
    ("get", None, {}, None),
    ("get", None, {}, {"Options": CMQC.MQGMO_SYNCPOINT, "Version": 1, "MatchOptions": 0}),
    ("commit",),
]


def test_the_plan_gets_persistent_messages_as_the_full_path(sides):
    """On a queue manager with a recovery log, the plan serves persistent gets with an
    MD, in and out of syncpoint, and its raw entry persistent puts, and they give what
    the full path's give: the same
    data, MD, reason codes, GET records (in syncpoint or not, backout counts) and
    checkpoint contents; in memory the plan serves them too (nothing to log)."""
    plan, full, raw = sides
    for side in sides:
        _reset(side)
    plog = plan.conn.connection.qmgr.persistence
    start = plog.log.next_lsn if plog is not None else 0
    plan.planned_persistent = raw.raw_persistent = 0
    for call in _PERSISTENT_CALLS:
        by_plan, by_full, by_raw = (_run(side, call) for side in sides)
        assert _view(plan, by_plan) == _view(full, by_full), call
        assert _view(raw, by_raw, packed=True) == _view(full, by_full, packed=True), call
        if call[0] == "get":
            assert by_full[0][0] == "ok", (call, by_full[0])
    assert plan.planned_persistent == 5  # every get (the first was backed out)
    assert raw.raw_persistent == 4  # every put, logged in C on a logged queue manager
    if plog is not None:
        _wait_durable(plog.log)
        logged = [_logged(side, plog, start) for side in sides]
        assert logged[0] == logged[1] == logged[2]
        records = logged[0][0]
        assert [r[-1] for r in records if r[0] == "GET"] == [True, True, False, False, True]
        assert ("GET", 1, 1, True) in records  # p2, got again after its backout
