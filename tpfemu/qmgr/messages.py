"""MQPUT, MQPUT1 and MQGET on a connection's handles.

Descriptors and options are *duck-typed*: ``md``, ``pmo`` and ``gmo`` are any objects with
IBM's field names as attributes (the MQI's ``MD``, ``PMO``, ``GMO``), read with defaults
when a field is missing and written back where IBM's calls write output fields (MsgId,
CorrelId and the put context after MQPUT; the whole MD after MQGET).

Semantics follow IBM's MQI reference (mq-semantics.md §1-§7, seed 001):

- Priority: MQPRI_PRIORITY_AS_Q_DEF takes DEFPRTY of the first definition in the
  resolution path; above 9 is put as 9 and warns MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049);
  below -1 fails 2050. Persistence AS_Q_DEF takes DEFPSIST likewise.
- Expiry: tenths of a second; 0 or below -1 fails 2013; MQEI_UNLIMITED never expires. A
  get returns the time left (never 0, since an expired message is never returned).
- Syncpoint: MQPMO/MQGMO_SYNCPOINT or NO_SYNCPOINT as asked (both: 2046); with neither,
  the work joins the open TPF commit scope if there is one, else it is outside syncpoint.
  MAXUMSGS messages in one unit of work: 2024.
- Warnings raise :class:`MQMIError` with comp MQCC_WARNING, as pymqi does; a truncated
  get (2079) carries ``.message`` and ``.original_length``.
"""

from __future__ import annotations

import math
import time
from typing import Any

from ecb.resources import OPEN_SCOPES
from tpfemu import errors
from tpfemu._lowlevel import EXPIRED_PENDING as _EXPIRED_PENDING
from tpfemu._lowlevel import MQGMO as _CORE_GMO
from tpfemu._lowlevel import NEVER, set_plan_layout
from tpfemu._lowlevel import planned_get as planned_get
from tpfemu._lowlevel import planned_put as planned_put
from tpfemu.mq import cmqc
from tpfemu.mq.headers import XQH
from tpfemu.mq.structs import GMO, MD, PMO
from tpfemu.qmgr import context
from tpfemu.qmgr.catalog import Generation
from tpfemu.qmgr.connection import Connection, Handle
from tpfemu.qmgr.manager import now_us
from tpfemu.qmgr.units import UnitOfWork

__all__ = ["put", "put1", "get"]

_ZERO_ID = bytes(24)
_GROUP_ID_AT = context._NAMES.index("GroupId")  # in a context record's values
_BLANK = {n: b" " * w for n, w in (("UserIdentifier", 12), ("ApplIdentityData", 32),
                                     ("PutApplName", 28), ("ApplOriginData", 4))}
_CONTEXT_OPTIONS = (cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_SET_IDENTITY_CONTEXT
                    | cmqc.MQPMO_NO_CONTEXT | cmqc.MQPMO_PASS_ALL_CONTEXT
                    | cmqc.MQPMO_PASS_IDENTITY_CONTEXT | cmqc.MQPMO_DEFAULT_CONTEXT)
# A context put option needs one of these open options (IBM: SET_ALL implies the other
# three, SET_IDENTITY implies PASS_IDENTITY, PASS_ALL implies PASS_IDENTITY).
_CONTEXT_NEEDS = (
    (cmqc.MQPMO_SET_ALL_CONTEXT, cmqc.MQOO_SET_ALL_CONTEXT, cmqc.MQRC_NOT_OPEN_FOR_SET_ALL),
    (cmqc.MQPMO_SET_IDENTITY_CONTEXT, cmqc.MQOO_SET_IDENTITY_CONTEXT | cmqc.MQOO_SET_ALL_CONTEXT,
     cmqc.MQRC_NOT_OPEN_FOR_SET_IDENT),
    (cmqc.MQPMO_PASS_ALL_CONTEXT, cmqc.MQOO_PASS_ALL_CONTEXT | cmqc.MQOO_SET_ALL_CONTEXT,
     cmqc.MQRC_NOT_OPEN_FOR_PASS_ALL),
    (cmqc.MQPMO_PASS_IDENTITY_CONTEXT, cmqc.MQOO_PASS_IDENTITY_CONTEXT
     | cmqc.MQOO_PASS_ALL_CONTEXT | cmqc.MQOO_SET_IDENTITY_CONTEXT | cmqc.MQOO_SET_ALL_CONTEXT,
     cmqc.MQRC_NOT_OPEN_FOR_PASS_IDENT),
)
# MQPMO options a put plan serves in C (with an MD, MQPMO_NEW_MSG_ID clears its MsgId
# first), and in Python, where a put in syncpoint joins its unit of work.
_FAST_PUT = (cmqc.MQPMO_NO_SYNCPOINT | cmqc.MQPMO_NEW_MSG_ID | cmqc.MQPMO_DEFAULT_CONTEXT
             | cmqc.MQPMO_FAIL_IF_QUIESCING)
_PLAN_PUT = _FAST_PUT | cmqc.MQPMO_SYNCPOINT
_BOTH_PUT = cmqc.MQPMO_SYNCPOINT | cmqc.MQPMO_NO_SYNCPOINT  # (2046: the full path says so)
#: MQGMO options that keep a get with an MD on the fast path in C (see get), and in
#: Python, where a get in syncpoint joins its unit of work
_FAST_GET = cmqc.MQGMO_NO_SYNCPOINT | cmqc.MQGMO_FAIL_IF_QUIESCING
_PLAN_GET = _FAST_GET | cmqc.MQGMO_SYNCPOINT
_BOTH_GET = cmqc.MQGMO_SYNCPOINT | cmqc.MQGMO_NO_SYNCPOINT
_MATCH_BOTH = cmqc.MQMO_MATCH_MSG_ID | cmqc.MQMO_MATCH_CORREL_ID
# The base record that stores no context (every field the default): a put with no MD
# stores none (docs/deviations.md, "Put context of messages put with no MD").
_NO_CONTEXT = context.base_record({f: context.DEFAULTS[f] for f in context.PUT_CONTEXT})
# planned_put/planned_get carry out the plans made below (_put_plan, _get_plan) in C for
# the everyday call: put and get try them first (so does the pymqi layer, tpfemu.mqi).
set_plan_layout(Handle, Generation, MD, GMO, PMO, OPEN_SCOPES, _FAST_GET, _FAST_PUT)
_CURSOR_BITS = sum(_CORE_GMO.values())
_BROWSE = cmqc.MQGMO_BROWSE_FIRST | cmqc.MQGMO_BROWSE_NEXT | cmqc.MQGMO_BROWSE_MSG_UNDER_CURSOR


def _fail(reason: int, call: str, obj: str, comp: int = errors.MQCC_FAILED) -> errors.MQMIError:
    return errors.error_for(reason, call=call, obj=obj, comp=comp)


def _syncpoint(options: int, yes: int, no: int, call: str, obj: str) -> bool | None:
    if options & yes and options & no:
        raise _fail(cmqc.MQRC_OPTIONS_ERROR, call, obj)
    if options & yes:
        return True
    if options & no:
        return False
    return None


_last_tick: tuple[int, bytes, bytes] = (-1, b"", b"")  # (1/100 s, date, time), swapped whole


def _date_time(put_time_us: int) -> tuple[bytes, bytes]:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH) in GMT."""
    global _last_tick
    tick = put_time_us // 10_000
    cached = _last_tick
    if cached[0] != tick:
        seconds, hundredths = divmod(tick, 100)
        t = time.gmtime(seconds)
        cached = (tick, time.strftime("%Y%m%d", t).encode(),
                  time.strftime("%H%M%S", t).encode() + b"%02d" % hundredths)
        _last_tick = cached
    return cached[1], cached[2]


def _time_from(date: bytes, clock: bytes) -> int:
    """Microseconds from a PutDate and PutTime (SET_ALL_CONTEXT); 0 (= now) if blank."""
    date, clock = bytes(date).strip(), bytes(clock).strip()
    if not date:
        return 0
    try:
        base = time.strptime(date.decode() + (clock[:6] or b"000000").decode(), "%Y%m%d%H%M%S")
    except ValueError:
        return 0
    import calendar

    hundredths = int(clock[6:8] or b"0")
    return calendar.timegm(base) * 1_000_000 + hundredths * 10_000


def _live_put_inhibited(conn: Connection, handle: Handle) -> bool:
    """PUT(DISABLED) on any definition in the path, or on the transmission queue."""
    resolved = handle.resolved
    if len(resolved.path) == 1 and not resolved.remote:
        return handle.queue.put_inhibited
    catalog = conn.qmgr.catalog
    names = [d.name for d in resolved.path]
    if resolved.remote:
        names.append(resolved.local.name)
    return any(getattr(catalog.find_queue(n), "put", "ENABLED") == "DISABLED" for n in names)


def _live_get_inhibited(conn: Connection, handle: Handle) -> bool:
    path = handle.resolved.path
    if len(path) == 1:
        return handle.queue.get_inhibited
    catalog = conn.qmgr.catalog
    return any(getattr(catalog.find_queue(d.name) or d, "get", "ENABLED") == "DISABLED"
               for d in path)


def _first_def(conn: Connection, handle: Handle) -> Any:
    first = handle.resolved.first
    return conn.qmgr.catalog.find_queue(first.name) or first


def _queue_usable(conn: Connection, handle: Handle, call: str) -> None:
    queue = handle.queue
    if queue.deleted:
        raise _fail(cmqc.MQRC_Q_DELETED, call, handle.name)
    if queue.stopping or not conn.qmgr.running:
        raise _fail(cmqc.MQRC_Q_MGR_STOPPING, call, conn.qmgr.name)


# -- MQPUT ------------------------------------------------------------------------------------


def put(conn: Connection, h: Handle | int, data: bytes, md: Any = None, pmo: Any = None) -> None:
    """MQPUT ``data`` on an open handle.

    The fast path: a put with no PMO, or a PMO with no options but the everyday ones
    (:data:`_FAST_PUT`, and MQPMO_SYNCPOINT with an MD), on a handle whose put plan (the
    queue, DEFPRTY, length limit and DEFPSIST, decided by an earlier put) is still valid
    for the catalog's generation, outside any commit scope, is one call into the core:
    with no MD, or with an everyday MD (see CoreQueue.put_md), which the call reads and
    writes back; in syncpoint the message joins the connection's unit of work
    (MAXUMSGS counted); the PMO gets its outputs (ResolvedQName, ResolvedQMgrName) as on
    the full path, and its put event (when someone listens) carries what the full
    path's does. The everyday case of these (an MD, no syncpoint, nobody listening) is
    carried out in C first (:func:`planned_put`). Anything else takes the full path.

    :raises MQMIError: 2039 not open for output, 2051 put inhibited, 2030/2031 too long,
        2053 queue full, 2050/2047/2013/2046/2027 bad descriptor or options, 2024 MAXUMSGS;
        a 2049 warning after the message was put.
    """
    if not planned_put(h, data, md, pmo):  # the everyday call, by the plan in C
        put_unplanned(conn, h, data, md, pmo)


def _plan_options(pmo: Any) -> int | None:
    """The MQPMO options of a put with ``pmo`` when a put plan serves them (those of
    :data:`_FAST_PUT`, or MQPMO_SYNCPOINT with them), else None."""
    if pmo is None:
        return 0
    if type(pmo) is PMO:
        options = pmo.Options
        if (type(options) is int and not options & ~_PLAN_PUT
                and options & _BOTH_PUT != _BOTH_PUT):
            return options
    return None


def _plan_uow(conn: Connection, syncpoint: int) -> UnitOfWork | None | bool:
    """The unit of work a planned put or get in syncpoint joins (``syncpoint``: its
    option bit; 0: none, then None); False when it holds MAXUMSGS messages already (the
    full path then fails the call with 2024)."""
    if not syncpoint:
        return None
    uow = conn.uow_for(True)
    profile = conn.qmgr.catalog.profile
    if profile is not None and uow.count >= profile.maxumsgs:
        return False
    return uow


def _planned_outputs(pmo: Any, plan: tuple) -> None:
    """A planned put's PMO outputs, the full path's values (plan[9]); no PMO: nothing.
    (``pmo`` is None or a PMO, whose fields are instance attributes: the values are
    valid, so no check is run.)"""
    if pmo is not None:
        object.__setattr__(pmo, "ResolvedQName", plan[9][0])
        object.__setattr__(pmo, "ResolvedQMgrName", plan[9][1])


def put_unplanned(conn: Connection, h: Handle | int, data: bytes, md: Any = None,
                  pmo: Any = None) -> None:
    """:func:`put` for a call :func:`planned_put` declined (the pymqi layer, which tries
    the plan itself, calls this so that no call is tried twice)."""
    options = _plan_options(pmo)
    if options is not None and type(data) is bytes and type(h) is Handle:
        plan = h.put_plan
        # (Closing a handle, which ending its connection does, drops its plans; the
        # closed check covers a plan set by a call that raced with the close.)
        if (plan is not None and plan[0].current and not h.closed and len(data) <= plan[3]
                and not OPEN_SCOPES[0]):
            queue = plan[1]
            syncpoint = options & cmqc.MQPMO_SYNCPOINT
            if md is None and not plan[4] and not syncpoint:  # (DEFPSIST(YES): full path)
                events = plan[6]
                if not events.active:
                    queue.core.put(data, plan[2])
                    _planned_outputs(pmo, plan)
                    if queue.waiters:
                        queue.wake()
                    return
                capture = events.capture
                if capture is not None:  # only the journal listens: its EventLog records
                    queue.core.put(data, plan[2], 0, capture)
                    _planned_outputs(pmo, plan)
                    if queue.waiters:
                        queue.wake()
                    return
                # The event names the MsgId: put with an MD left as made, storing no
                # context record, as the put above does (plan[8]; a fresh MD is served).
                scratch = MD()
                if plan[7](scratch, data, plan[8]):
                    _planned_outputs(pmo, plan)
                    if queue.waiters:
                        queue.wake()
                    _emit_put(conn.qmgr, queue, plan, scratch, data)
                    return
            elif type(md) is MD and (uow := _plan_uow(conn, syncpoint)) is not False:
                # An everyday MD: read, put and written back in one C call, which returns
                # 0 (having changed nothing) for anything the full path must judge: a
                # priority or persistence out of range, Expiry 0, a request without
                # ReplyToQ, a persistent message the log must record; 2 for a message
                # that can expire. The journal's EventLog (capture), if it is the only
                # listener, records the event in the same call. MQPMO_NEW_MSG_ID: the
                # core makes the MsgId, as for MQMI_NONE (the MD's is back if not put).
                # In syncpoint the message joins the unit of work, unseen until MQCMIT.
                capture = plan[6].capture
                old_id = md.MsgId if options & cmqc.MQPMO_NEW_MSG_ID else None
                if old_id is not None:
                    object.__setattr__(md, "MsgId", _ZERO_ID)
                uow_id = uow.id if uow is not None else 0
                done = 0
                try:
                    done = plan[7](md, data, plan[5], capture, uow_id)  # queue.core.put_md
                finally:
                    if not done and old_id is not None:
                        object.__setattr__(md, "MsgId", old_id)
                if done:
                    if done == 2:
                        queue.expiring = True  # gets then collect what expires
                    _planned_outputs(pmo, plan)
                    if uow is not None:
                        uow.touch(queue)
                        uow.count += 1
                    elif queue.waiters:
                        queue.wake()
                    if capture is None and plan[6].active:
                        _emit_put(conn.qmgr, queue, plan, md, data, uow_id)
                    return
    _put_checked(conn, h, data, md, pmo)


def _put_checked(conn: Connection, h: Handle | int, data: bytes, md: Any, pmo: Any) -> None:
    """MQPUT without the fast path (kept apart so that put stays a small function,
    quick to call)."""
    handle = conn.handle(h, "MQPUT")
    if not handle.output:
        raise _fail(cmqc.MQRC_NOT_OPEN_FOR_OUTPUT, "MQPUT", handle.name)
    _queue_usable(conn, handle, "MQPUT")
    if _live_put_inhibited(conn, handle):
        raise _fail(cmqc.MQRC_PUT_INHIBITED, "MQPUT", handle.name)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"message data must be bytes-like, not {type(data).__name__}"
                        + (" (encode it first)" if isinstance(data, str) else ""))
    options = getattr(pmo, "Options", 0) if pmo is not None else 0
    queue = handle.queue
    qm = conn.qmgr
    first = _first_def(conn, handle)
    if len(data) > queue.definition.maxmsgl:
        raise _fail(cmqc.MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT", handle.name)
    profile = qm.catalog.profile
    if profile is not None and len(data) > profile.maxmsgl:
        raise _fail(cmqc.MQRC_MSG_TOO_BIG_FOR_Q_MGR, "MQPUT", handle.name)
    if (md is None and not options & ~_FAST_PUT and not handle.resolved.remote
            and first.defpsist == "NO" and not qm.events.active
            and queue.definition.trigger != "YES" and not queue.shared):
        uow = conn.uow_for(None)
        if uow is None:  # a datagram with default context, no unit of work
            generation = qm.catalog.generation
            queue.core.put(data, first.defprty)
            queue.wake()
            limit = min(queue.definition.maxmsgl,
                        profile.maxmsgl if profile is not None else queue.definition.maxmsgl)
            handle.put_plan = plan = _put_plan(conn, generation, queue, first, limit, False)
            if pmo is not None:  # (the plan's names are the full path's)
                _set(pmo, "ResolvedQName", plan[9][0])
                _set(pmo, "ResolvedQMgrName", plan[9][1])
            return
    generation = qm.catalog.generation
    _put_full(conn, handle, first, data, md, options, pmo)
    if (not options & ~_PLAN_PUT and not handle.resolved.remote
            and queue.definition.trigger != "YES" and not queue.shared
            and conn.uow_for(None) is None):
        limit = min(queue.definition.maxmsgl,
                    profile.maxmsgl if profile is not None else queue.definition.maxmsgl)
        handle.put_plan = _put_plan(conn, generation, queue, first, limit,
                                    first.defpsist == "YES")


def _emit_put(qm: Any, queue: Any, plan: tuple, md: MD, data: bytes, uow: int = 0) -> None:
    """The put event of a message the fast path put with ``md`` (now holding its
    outputs): the fields the full path gives, the queue's defaults resolved by ``plan``."""
    priority = md.Priority
    persistence = md.Persistence
    qm._emit("put", queue.name, msg_id=md.MsgId, correl_id=_id(md.CorrelId),
             priority=plan[2] if priority == cmqc.MQPRI_PRIORITY_AS_Q_DEF else priority,
             persistent=(plan[4] if persistence == cmqc.MQPER_PERSISTENCE_AS_Q_DEF
                         else persistence == cmqc.MQPER_PERSISTENT),
             expiry=md.Expiry, length=len(data), uow=uow, remote="",
             group_id=_id(md.GroupId), data=data)


def _put_plan(conn: Connection, generation: Generation, queue: Any, first: Any, limit: int,
              defpsist: bool) -> tuple:
    """A handle's put plan: (catalog generation, queue, DEFPRTY, length limit, DEFPSIST
    is YES, the settings of CoreQueue.put_md, the event bus, the queue's put_md, the
    settings of a put with no MD: no context record, the PMO's ResolvedQName and
    ResolvedQMgrName), valid while the generation is current. Never made for a
    processor-shared queue: its storage (the TPFCS store) has no C fast path.
    (native/python/planpath.c reads this layout too.)"""
    qm = conn.qmgr
    logged = qm.persistence is not None
    return (generation, queue, first.defprty, limit, defpsist,
            (first.defprty, defpsist, logged, conn.put_record, conn.put_outputs,
             conn.put_initial_names), qm.events,
            queue.core.put_md, (first.defprty, defpsist, logged, _NO_CONTEXT, {}, ()),
            (queue.name.encode(), qm.name.encode()))


def _put_full(conn: Connection, handle: Handle, first: Any, data: bytes, md: Any,
              options: int, pmo: Any) -> None:
    qm = conn.qmgr
    queue = handle.queue
    name = handle.name
    if bin(options & _CONTEXT_OPTIONS).count("1") > 1:
        raise _fail(cmqc.MQRC_OPTIONS_ERROR, "MQPUT", name)
    for put_option, open_options, reason in _CONTEXT_NEEDS:
        if options & put_option and not handle.options & open_options:
            raise _fail(reason, "MQPUT", name)
    syncpoint = _syncpoint(options, cmqc.MQPMO_SYNCPOINT, cmqc.MQPMO_NO_SYNCPOINT, "MQPUT", name)
    uow = conn.uow_for(syncpoint)
    profile = qm.catalog.profile
    if uow is not None and profile is not None and uow.count >= profile.maxumsgs:
        raise _fail(cmqc.MQRC_SYNCPOINT_LIMIT_REACHED, "MQPUT", name)

    get = (lambda f, d: getattr(md, f, d)) if md is not None else (lambda f, d: d)
    warning = 0
    priority = get("Priority", cmqc.MQPRI_PRIORITY_AS_Q_DEF)
    if priority == cmqc.MQPRI_PRIORITY_AS_Q_DEF:
        priority = first.defprty
    elif priority > 9:
        priority, warning = 9, cmqc.MQRC_PRIORITY_EXCEEDS_MAXIMUM
    elif priority < 0:
        raise _fail(cmqc.MQRC_PRIORITY_ERROR, "MQPUT", name)
    persistence = get("Persistence", cmqc.MQPER_PERSISTENCE_AS_Q_DEF)
    if persistence == cmqc.MQPER_PERSISTENCE_AS_Q_DEF:
        persistent = first.defpsist == "YES"
    elif persistence in (cmqc.MQPER_PERSISTENT, cmqc.MQPER_NOT_PERSISTENT):
        persistent = persistence == cmqc.MQPER_PERSISTENT
    else:
        raise _fail(cmqc.MQRC_PERSISTENCE_ERROR, "MQPUT", name)
    expiry_tenths = get("Expiry", cmqc.MQEI_UNLIMITED)
    now = now_us()
    if expiry_tenths == cmqc.MQEI_UNLIMITED:
        deadline = NEVER
    elif expiry_tenths > 0:
        deadline = now + expiry_tenths * 100_000
        queue.expiring = True
    else:
        raise _fail(cmqc.MQRC_EXPIRY_ERROR, "MQPUT", name)
    msg_type = get("MsgType", cmqc.MQMT_DATAGRAM)
    if msg_type == cmqc.MQMT_REQUEST and not bytes(get("ReplyToQ", b"")).strip():
        raise _fail(cmqc.MQRC_MISSING_REPLY_TO_Q, "MQPUT", name)

    msg_id = None if options & cmqc.MQPMO_NEW_MSG_ID else _id(get("MsgId", _ZERO_ID))
    if options & cmqc.MQPMO_NEW_CORREL_ID:
        correl_id = qm.new_correl_id()
    else:
        correl_id = _id(get("CorrelId", _ZERO_ID))

    overrides: dict[str, Any] = {"Expiry": expiry_tenths}
    put_time = 0
    ready = None
    if options & cmqc.MQPMO_SET_ALL_CONTEXT:
        put_time = _time_from(get("PutDate", b""), get("PutTime", b""))
    elif options & cmqc.MQPMO_NO_CONTEXT:
        overrides.update(_BLANK, AccountingToken=bytes(32), PutApplType=cmqc.MQAT_NO_CONTEXT)
    elif options & cmqc.MQPMO_SET_IDENTITY_CONTEXT:
        ready = conn.origin_context
    else:
        ready = conn.default_context
    values = context.values_of(md, overrides, ready)
    body = bytes(data)
    if handle.resolved.remote:
        # The MQXQH carries the putter's own MQMD: its MsgId and put time are made now.
        if not msg_id or msg_id == _ZERO_ID:
            msg_id = qm.new_msg_id()
        if not put_time:
            put_time = now
        inner = MD()
        inner._load_trusted({f: v for f, v in zip(context._NAMES, values, strict=True)
                             if f != "Expiry" and f in MD._by_name})
        date, clock = _date_time(put_time)
        inner.set(Expiry=expiry_tenths, Priority=priority, Persistence=int(persistent),
                  MsgId=msg_id, CorrelId=correl_id, PutDate=date, PutTime=clock)
        xqh = XQH(RemoteQName=handle.resolved.remote_q.encode(),
                  RemoteQMgrName=handle.resolved.remote_qmgr.encode(), MsgDesc=inner)
        body = xqh.pack() + body
        values = context.values_of(None, dict(zip(context._NAMES, values, strict=True),
                                              Format=cmqc.MQFMT_XMIT_Q_HEADER))
    record = context.encode(values)
    put_args = dict(
        priority=priority, persistent=persistent, expiry=deadline,
        msg_id=msg_id if msg_id and msg_id != _ZERO_ID else None,
        correl_id=correl_id if correl_id != _ZERO_ID else None,
        uow=uow.id if uow is not None else 0, ctx_len=len(record), put_time=put_time,
    )
    plog = qm.persistence if persistent and not queue.shared else None
    if plog is not None and not put_time:
        put_time = put_args["put_time"] = now  # the log records the put time
    if queue.definition.trigger == "YES":
        # The put and its trigger evaluation are one step: "the previous count" is exact.
        with queue.trigger_lock:
            new_id, ticket = _core_put(queue, plog, record + body, put_args)
            trigger_md = _md_of(new_id, correl_id, priority, persistent, expiry_tenths,
                                values, put_time or now)
            qm.triggers.after_put(queue, priority, trigger_md, uow)
        qm.triggers.retry_pending(queue)
    else:
        new_id, ticket = _core_put(queue, plog, record + body, put_args)
    if ticket is not None and uow is None:  # outside syncpoint: durable before MQPUT returns
        try:
            ticket.wait()
        except errors.MQMIError as exc:  # StorageFull: the put is undone
            plog.undo_put(queue, new_id)
            exc.call, exc.obj = "MQPUT", name
            raise
    if uow is not None:
        uow.touch(queue)
        uow.count += 1
    else:
        queue.wake()
    if md is not None:
        _write_put_outputs(md, new_id, correl_id, values, put_time or now, options)
    if pmo is not None:
        _set(pmo, "ResolvedQName", (handle.resolved.remote_q or queue.name).encode())
        _set(pmo, "ResolvedQMgrName", (handle.resolved.remote_qmgr or qm.name).encode())
    if qm.events.active:
        qm._emit("put", queue.name, msg_id=new_id, correl_id=correl_id, priority=priority,
                 persistent=persistent, expiry=expiry_tenths, length=len(data),
                 uow=uow.id if uow else 0, remote=handle.resolved.remote_qmgr,
                 group_id=values[_GROUP_ID_AT],
                 data=data if type(data) is bytes else bytes(data))
    if warning:
        raise _fail(warning, "MQPUT", name, comp=errors.MQCC_WARNING)


def _truncate(msg: Any, max_length: int) -> Any:
    """``msg`` as a get with a buffer of ``max_length`` bytes and ACCEPT_TRUNCATED_MSG
    returns it: the context record whole, the data cut, reason 2079 if it was cut. (The
    whole message stays with the log layer while the get is in flight.)"""
    d = msg.descriptor
    if len(msg.data) - d.ctx_len <= max_length:
        return msg
    return type(msg)(msg.data[: d.ctx_len + max_length], d, cmqc.MQRC_TRUNCATED_MSG_ACCEPTED)


def _core_put(queue: Any, plog: Any, message: bytes, put_args: dict) -> tuple[bytes, Any]:
    """Put on the core; with ``plog`` (a persistent message of a logged queue) append its
    Put record under the queue's log lock too. Returns the MsgId and the log ticket."""
    if plog is None:
        return queue.core.put_message(message, **put_args)[0], None
    with queue.log_lock:
        new_id, seq = queue.core.put_message(message, **put_args)
        a = put_args
        return new_id, plog.log_put(queue, seq, message, new_id, a["correl_id"], a["priority"],
                                    a["expiry"], a["put_time"], a["ctx_len"], a["uow"])


def _id(value: Any) -> bytes:
    """A MsgId/CorrelId as 24 bytes: shorter ones are NUL-padded, as pymqi packs them."""
    value = bytes(value)
    return value.ljust(24, b"\0") if len(value) < 24 else value


def _md_of(msg_id: bytes, correl_id: bytes, priority: int, persistent: bool, expiry: int,
           values: tuple, put_time: int) -> MD:
    """The MQMD of a message just put (CUIR receives it on data level 0)."""
    md = MD(Version=cmqc.MQMD_VERSION_2)
    md._load_trusted({f: v for f, v in zip(context._NAMES, values, strict=True)
                      if f != "Expiry"})
    date, clock = _date_time(put_time)
    md._load_trusted({"MsgId": msg_id, "CorrelId": correl_id, "Priority": priority,
                      "Persistence": int(persistent), "Expiry": expiry, "PutDate": date,
                      "PutTime": clock})
    return md


def _set(obj: Any, field: str, value: Any) -> None:
    try:
        setattr(obj, field, value)
    except (AttributeError, KeyError, ValueError):
        pass  # a shorter structure version without that field


def _write_put_outputs(md: Any, msg_id: bytes, correl_id: bytes, values: tuple,
                       put_time: int, options: int) -> None:
    out: dict[str, Any] = {"MsgId": msg_id}
    if options & cmqc.MQPMO_NEW_CORREL_ID:
        out["CorrelId"] = correl_id
    if not options & (cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_NO_CONTEXT):
        out["PutDate"], out["PutTime"] = _date_time(put_time)
        fields = dict(zip(context._NAMES, values, strict=True))
        for f in ("PutApplType", "PutApplName", "UserIdentifier", "AccountingToken",
                  "ApplIdentityData", "ApplOriginData"):
            out[f] = fields[f]
    load = getattr(md, "_load_trusted", None)
    if load is not None:  # our MD: values made or checked by the queue manager
        load(out)
        return
    for field, value in out.items():
        _set(md, field, value)


def put1(conn: Connection, name: str, data: bytes, md: Any = None, pmo: Any = None,
         qmgr_name: str = "") -> None:
    """MQPUT1: open ``name`` for output, put one message, close it."""
    handle = conn.open(name, cmqc.MQOO_OUTPUT, qmgr_name)
    try:
        put(conn, handle, data, md, pmo)
    finally:
        if not handle.closed:
            conn.close(handle)


# -- MQGET ------------------------------------------------------------------------------------


def get(conn: Connection, h: Handle | int, max_length: int | None = None, md: Any = None,
        gmo: Any = None) -> bytes:
    """MQGET (or browse) one message from an open handle; return its data.

    The fast path: on a handle whose get plan (decided by an earlier get) still holds,
    outside any commit scope, a get with no buffer length and no options other than
    matching (and MQGMO_SYNCPOINT: the message then joins the connection's unit of work,
    MAXUMSGS counted), with no MD or our MD, is one call into the core (see
    CoreQueue.get_md), unless the recovery log must record it (a persistent message, on
    a system with a home); its get event (when someone listens) carries what the full
    path's does. The everyday case of these (an MD, no syncpoint, nobody listening,
    nothing expiring) is carried out in C first (:func:`planned_get`). Anything else
    takes the full path.

    :param max_length: the buffer length; None returns the whole message.
    :raises MQMIError: 2037/2036 not open for input/browse, 2016 get inhibited, 2033 no
        message (after WaitInterval with MQGMO_WAIT), 2080 (comp 1) too long, 2079 (comp 1,
        with .message) truncated and removed, 2046 bad options, 2090 bad WaitInterval.
    """
    data = planned_get(h, max_length, md, gmo)  # the everyday call, by the plan in C
    return data if data is not None else get_unplanned(conn, h, max_length, md, gmo)


def get_unplanned(conn: Connection, h: Handle | int, max_length: int | None = None,
                  md: Any = None, gmo: Any = None) -> bytes:
    """:func:`get` for a call :func:`planned_get` declined (the pymqi layer, which tries
    the plan itself, calls this so that no call is tried twice)."""
    if max_length is None and type(h) is Handle:
        plan = h.get_plan
        # (A handle with a browse cursor takes the full path: a message its cursor
        # locked is the handle's to get, and only the core's full get knows the cursor.)
        if (plan is not None and plan[0].current and not h.closed and h.cursor is None
                and not OPEN_SCOPES[0]):
            queue = plan[1]
            events = plan[3]
            capture = events.capture  # the journal's EventLog, when only it listens
            if md is None and gmo is None and (capture is not None or not events.active):
                try:
                    data = queue.core.get_body(0, plan[2], capture)
                finally:
                    if queue.expiring:
                        conn.qmgr.collect_expired(queue)
                if data is not None:  # None: a persistent message, for the logged path
                    return data
            elif (md is None or type(md) is MD) and (gmo is None or type(gmo) is GMO):
                if md is None:  # with a listener: the event needs the descriptor
                    md = MD()
                # Matched by the MD's ids only (no wait, browse or buffer length): one C
                # call gets the message and writes the MD; None from it means ids the
                # full path must judge, nothing changed. In syncpoint the message joins
                # the unit of work: hidden, not yet gone.
                planned = _plan_get(conn, gmo)
                if planned is not None:
                    match, uow = planned
                    emit = capture is None and events.active
                    uow_id = uow.id if uow is not None else 0
                    try:  # (the data alone when there is no event to emit nor flag)
                        got = plan[4](md, match, plan[2], emit, capture, uow_id)  # get_md
                    finally:
                        if queue.expiring:
                            conn.qmgr.collect_expired(queue)
                    if got is not None and uow is not None:
                        uow.touch(queue)
                        uow.count += 1
                    if type(got) is bytes:
                        return got
                    if got is not None:
                        if got[1] & _EXPIRED_PENDING:
                            queue.core._on_expired_pending()
                        if emit:
                            _emit_get(conn.qmgr, queue, md, got, uow_id)
                        return got[0]
    return _get_checked(conn, h, max_length, md, gmo)


def _plan_get(conn: Connection, gmo: Any) -> tuple[int, UnitOfWork | None] | None:
    """The MQMO match bits of a get with ``gmo`` and the unit of work it joins, when a
    get plan serves its options (those of :data:`_FAST_GET`, or MQGMO_SYNCPOINT with
    them); None when it does not, or when the unit of work is at MAXUMSGS."""
    if gmo is None:
        return _MATCH_BOTH, None
    options = gmo.Options
    if type(options) is not int or options & ~_PLAN_GET or options & _BOTH_GET == _BOTH_GET:
        return None
    uow = _plan_uow(conn, options & cmqc.MQGMO_SYNCPOINT)
    if uow is False:
        return None
    return (gmo.MatchOptions if gmo.Version >= 2 else _MATCH_BOTH), uow


def _get_checked(conn: Connection, h: Handle | int, max_length: int | None, md: Any,
                 gmo: Any) -> bytes:
    """MQGET without the fast path (kept apart so that get stays a small function,
    quick to call)."""
    handle = conn.handle(h, "MQGET")
    options = getattr(gmo, "Options", 0) if gmo is not None else 0
    if options & _BROWSE:
        if not handle.browse:
            raise _fail(cmqc.MQRC_NOT_OPEN_FOR_BROWSE, "MQGET", handle.name)
    elif not handle.input and not (options & cmqc.MQGMO_UNLOCK and handle.browse):
        raise _fail(cmqc.MQRC_NOT_OPEN_FOR_INPUT, "MQGET", handle.name)
    queue = handle.queue
    qm = conn.qmgr
    timeout: float | None = 0.0
    if options & cmqc.MQGMO_WAIT:
        interval = getattr(gmo, "WaitInterval", 0)
        if interval == cmqc.MQWI_UNLIMITED:
            timeout = None
        elif interval < 0:
            raise _fail(cmqc.MQRC_WAIT_INTERVAL_ERROR, "MQGET", handle.name)
        else:
            timeout = interval / 1000
    syncpoint = _syncpoint(options, cmqc.MQGMO_SYNCPOINT, cmqc.MQGMO_NO_SYNCPOINT, "MQGET",
                           handle.name)
    if options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT:
        if syncpoint is not None:
            raise _fail(cmqc.MQRC_OPTIONS_ERROR, "MQGET", handle.name)
    uow = None if options & _BROWSE or options & cmqc.MQGMO_UNLOCK else conn.uow_for(syncpoint)
    if uow is not None:
        profile = qm.catalog.profile
        if profile is not None and uow.count >= profile.maxumsgs:
            raise _fail(cmqc.MQRC_SYNCPOINT_LIMIT_REACHED, "MQGET", handle.name)

    if md is None and not options & ~(cmqc.MQGMO_WAIT | cmqc.MQGMO_NO_SYNCPOINT
                                       | cmqc.MQGMO_FAIL_IF_QUIESCING) and max_length is None \
            and handle.cursor is None and not qm.events.active and qm.persistence is None:
        uow_id = uow.id if uow is not None else 0
        generation = qm.catalog.generation

        def attempt() -> bytes:
            _queue_usable(conn, handle, "MQGET")
            if _live_get_inhibited(conn, handle):
                raise _fail(cmqc.MQRC_GET_INHIBITED, "MQGET", handle.name)
            try:
                return queue.core.get_body(uow_id)
            except errors.NoMessageAvailable:
                if queue.definition.trigger == "YES":
                    qm.triggers.on_empty_get(queue)  # TPF FIRST: the next message triggers
                raise

        try:
            data = attempt() if timeout == 0.0 else queue.wait_for(attempt, timeout)
        finally:
            if queue.expiring:
                qm.collect_expired(queue)
        if uow is not None:
            uow.touch(queue)
            uow.count += 1
        elif (timeout == 0.0 and not options and queue.definition.trigger != "YES"
              and not queue.shared):
            # checks passed for this generation
            handle.get_plan = _get_plan(generation, queue, False, qm)
        return data
    generation = qm.catalog.generation
    data = _get_full(conn, handle, max_length, md, gmo, options, uow, timeout)
    if ((uow is None or options & cmqc.MQGMO_SYNCPOINT) and timeout == 0.0
            and not options & ~_PLAN_GET and handle.cursor is None
            and queue.definition.trigger != "YES" and not queue.shared):
        handle.get_plan = _get_plan(generation, queue, qm.persistence is not None, qm)
    return data


def _get_plan(generation: Generation, queue: Any, logged: bool, qm: Any) -> tuple:
    """A handle's get plan: (catalog generation, queue, whether a persistent message's
    get is logged (the fast path then leaves such a message to the full path), the event
    bus, the queue's get_md), valid while the generation is current."""
    return (generation, queue, logged, qm.events, queue.core.get_md)


def _emit_get(qm: Any, queue: Any, md: MD, got: tuple[bytes, int, int], uow: int = 0
              ) -> None:  # fmt: skip
    """The get event of a message the fast path got into ``md`` (under unit of work
    ``uow``, 0: none): the fields the full path gives."""
    data, _, expiry = got
    qm._emit("get", queue.name, msg_id=md.MsgId, correl_id=md.CorrelId,
             priority=md.Priority, persistent=bool(md.Persistence), length=len(data),
             uow=uow, group_id=md.GroupId, expires_us=expiry, data=data)


def _get_full(conn: Connection, handle: Handle, max_length: int | None, md: Any, gmo: Any,
              options: int, uow: Any, timeout: float | None) -> bytes:
    qm = conn.qmgr
    queue = handle.queue
    name = handle.name
    version = getattr(gmo, "Version", 1) if gmo is not None else 1
    if gmo is not None and version >= 2:
        match = getattr(gmo, "MatchOptions", cmqc.MQMO_MATCH_MSG_ID | cmqc.MQMO_MATCH_CORREL_ID)
    else:
        match = cmqc.MQMO_MATCH_MSG_ID | cmqc.MQMO_MATCH_CORREL_ID
    msg_id = correl_id = None
    if md is not None and not options & cmqc.MQGMO_MSG_UNDER_CURSOR:
        if match & cmqc.MQMO_MATCH_MSG_ID:
            msg_id = _id(getattr(md, "MsgId", _ZERO_ID))
        if match & cmqc.MQMO_MATCH_CORREL_ID:
            correl_id = _id(getattr(md, "CorrelId", _ZERO_ID))
    cursor_bits = options & _CURSOR_BITS
    if cursor_bits and handle.cursor is None:
        handle.cursor = queue.core.cursor()
    if_persistent = bool(options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT)
    # A logged queue: a destructive get logs the Get of a persistent message with the
    # core get (under the queue's log lock); outside syncpoint it is made under a private
    # unit of work, committed once its record is durable (tpfemu.qmgr.persistence).
    plog = qm.persistence if not queue.shared else None
    if plog is not None and options & (_BROWSE | cmqc.MQGMO_UNLOCK):
        plog = None
    private = plog is not None and uow is None and not if_persistent
    uow_id = uow.id if uow is not None else (
        qm.private_uow() if if_persistent or private else 0)
    tickets: list = []

    accept_truncated = bool(options & cmqc.MQGMO_ACCEPT_TRUNCATED_MSG)

    def core_get(length: int | None = max_length):
        return queue.core.get_message(
            msg_id=msg_id, correl_id=correl_id, uow=uow_id, max_length=length,
            accept_truncated=accept_truncated, cursor=handle.cursor, options=cursor_bits,
            cap_body=True,
        )

    def logged_get():
        with queue.log_lock:
            if max_length is not None and accept_truncated:
                # the log layer keeps the whole message while the get is in flight
                got = _truncate(core_get(None), max_length)
            else:
                got = core_get()
            if got.descriptor.persistent:
                ticket = plog.log_get(queue, got, uow_id, in_syncpoint=not private)
                if ticket is not None:
                    tickets.append(ticket)
            return got

    def attempt():
        _queue_usable(conn, handle, "MQGET")
        if _live_get_inhibited(conn, handle):  # browses too (IBM's InhibitGet)
            raise _fail(cmqc.MQRC_GET_INHIBITED, "MQGET", name)
        try:
            return core_get() if plog is None else logged_get()
        except errors.NoMessageAvailable:
            if not options & _BROWSE and queue.definition.trigger == "YES":
                qm.triggers.on_empty_get(queue)  # TPF FIRST: the next message triggers
            raise
        except errors.TruncatedMessage as exc:  # IBM: a warning, the message stays
            if md is not None and getattr(exc, "descriptor", None) is not None:
                d = exc.descriptor  # IBM fills MsgDesc whether or not the data fits
                _fill_md(md, d, context.decode(exc.context_record))
            raise _truncated(exc, name) from None

    try:
        msg = attempt() if timeout == 0.0 else queue.wait_for(attempt, timeout)
    finally:
        if queue.expiring:
            qm.collect_expired(queue)
    if options & cmqc.MQGMO_UNLOCK:
        return b""
    if private:
        plog.finish_private(queue, uow_id, tickets[0] if tickets else None, name)
    d = msg.descriptor
    record = context.decode(msg.data[: d.ctx_len])
    data = msg.data[d.ctx_len :]
    if uow_id and not options & _BROWSE:
        if if_persistent and uow is None:
            if d.persistent:
                conn.uow_for(True).extra.append((queue, uow_id))
            else:
                queue.core.commit(uow_id)  # a non-persistent message is got outright
        if uow is not None:
            uow.touch(queue)
            uow.count += 1
    if md is not None:
        _fill_md(md, d, record)
    if qm.events.active:
        qm._emit("browse" if options & _BROWSE else "get", queue.name, msg_id=d.msg_id,
                 correl_id=d.correl_id, priority=d.priority, persistent=d.persistent,
                 length=d.length - d.ctx_len, uow=uow_id, group_id=record["GroupId"],
                 expires_us=d.expiry, data=None if msg.reason else data)
    if msg.reason:  # MQRC_TRUNCATED_MSG_ACCEPTED
        exc = _fail(msg.reason, "MQGET", name, comp=errors.MQCC_WARNING)
        exc.message = data
        exc.original_length = d.length - d.ctx_len
        raise exc
    return data


def _truncated(exc: errors.TruncatedMessage, name: str) -> errors.MQMIError:
    warning = _fail(cmqc.MQRC_TRUNCATED_MSG_FAILED, "MQGET", name, comp=errors.MQCC_WARNING)
    warning.original_length = getattr(exc, "original_length", None)
    warning.message = b""
    return warning


def _fill_md(md: Any, d: Any, record: dict[str, Any]) -> None:
    """Write every MQMD output field of a got message into ``md``."""
    values = dict(record)
    date, clock = _date_time(d.put_time)
    values.update(
        MsgId=d.msg_id, CorrelId=d.correl_id, Priority=d.priority,
        Persistence=int(d.persistent), BackoutCount=d.backout_count, PutDate=date,
        PutTime=clock,
        Expiry=cmqc.MQEI_UNLIMITED if d.expiry == NEVER
        else max(1, math.ceil((d.expiry - now_us()) / 100_000)),
    )
    load = getattr(md, "_load_trusted", None)
    if load is not None:  # our MD: the values come from a stored message, already valid
        load(values)
        return
    for field, value in values.items():
        _set(md, field, value)
