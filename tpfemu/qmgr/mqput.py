"""MQPUT and MQPUT1 on a connection's handles.

An MQPUT tries its handle's put plan (:mod:`tpfemu.qmgr.plans`, carried out in C), else it
takes the one full path here, :func:`put_full`, which makes the plan for the handle's
later calls when they may take it.

Semantics follow IBM's MQI reference (mq-semantics.md §1-§7, seed 001):

- Priority: MQPRI_PRIORITY_AS_Q_DEF takes DEFPRTY of the first definition in the
  resolution path; above 9 is put as 9 and warns MQRC_PRIORITY_EXCEEDS_MAXIMUM (2049);
  below -1 fails 2050. Persistence AS_Q_DEF takes DEFPSIST likewise.
- Expiry: tenths of a second; 0 or below -1 fails 2013; MQEI_UNLIMITED never expires.
- Options: a bit cmqc.h does not define, or two context options, fail 2046.
- Syncpoint: MQPMO_SYNCPOINT or NO_SYNCPOINT as asked (both: 2046); with neither, the
  work joins the open TPF commit scope if there is one, else it is outside syncpoint.
  MAXUMSGS messages in one unit of work: 2024.
- Warnings raise :class:`MQMIError` with comp MQCC_WARNING, as pymqi does.

The MQMD rules (Priority, Persistence, Expiry, MsgType, Feedback, Report, a request's
ReplyToQ) are written once, in C (native/include/tpf/putrules.h): this path calls them
through ``put_rules``, and a plan's put with an MD calls them in C, declining to this
path whatever they refuse or warn about.
"""

from __future__ import annotations

import functools
import operator
import struct
from typing import Any

from tpfemu import errors
from tpfemu._lowlevel import NEVER, put_rules
from tpfemu.mq import cmqc
from tpfemu.mq.headers import XQH
from tpfemu.mq.structs import MD, PMO
from tpfemu.qmgr import context, plans, reports
from tpfemu.qmgr.connection import Connection, Handle
from tpfemu.qmgr.localq import LocalQueue
from tpfemu.qmgr.manager import now_us
from tpfemu.qmgr.mqmd import (
    ZERO_ID,
    date_time,
    fail,
    id24,
    queue_of,
    queue_usable,
    set_field,
    syncpoint,
    time_from,
)
from tpfemu.qmgr.objects import RemoteQueueDef
from tpfemu.qmgr.resolve import Resolved
from tpfemu.qmgr.units import limit_reached

__all__ = ["context_allowed", "put", "put1", "put_full"]

_GROUP_ID_AT = context._NAMES.index("GroupId")  # in a context record's values
_REPLY_Q_AT = context._NAMES.index("ReplyToQ")
#: Where a transmission-queue message's own MQMD fields go in its stored values, and what.
_XMIT_FIELDS = tuple((context._NAMES.index(name), value) for name, value
                     in context.normalized(context.XMIT_MD_FIELDS).items())
_REPORT_AT = context._NAMES.index("Report")
_FORMAT_AT = context._NAMES.index("Format")
_REPLY_QMGR_AT = context._NAMES.index("ReplyToQMgr")
_BLANK = {n: b" " * w for n, w in (("UserIdentifier", 12), ("ApplIdentityData", 32),
                                     ("PutApplName", 28), ("ApplOriginData", 4))}
_CONTEXT_OPTIONS = (cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_SET_IDENTITY_CONTEXT
                    | cmqc.MQPMO_NO_CONTEXT | cmqc.MQPMO_PASS_ALL_CONTEXT
                    | cmqc.MQPMO_PASS_IDENTITY_CONTEXT | cmqc.MQPMO_DEFAULT_CONTEXT)
#: The put response options, of which one at most may be given (RESPONSE_AS_Q_DEF is 0).
_RESPONSES = cmqc.MQPMO_ASYNC_RESPONSE | cmqc.MQPMO_SYNC_RESPONSE
#: Every MQPMO option cmqc.h defines (MQPMO_WARN_IF_NO_SUBS_MATCHED is not in ours).
_PMO_DEFINED = functools.reduce(operator.or_, (
    v for k, v in vars(cmqc).items() if k.startswith("MQPMO_")
    and not k.startswith(("MQPMO_VERSION", "MQPMO_CURRENT", "MQPMO_LENGTH", "MQPMO_STRUC"))),
    0x00080000)
# A context put option needs one of these open options (IBM: SET_ALL implies the other
# three, SET_IDENTITY implies PASS_IDENTITY, PASS_ALL implies PASS_IDENTITY).
#: MQPUT1's implicit open: the open option each context put option brings.
_PUT1_OPENS = (
    (cmqc.MQPMO_SET_ALL_CONTEXT, cmqc.MQOO_SET_ALL_CONTEXT),
    (cmqc.MQPMO_SET_IDENTITY_CONTEXT, cmqc.MQOO_SET_IDENTITY_CONTEXT),
    (cmqc.MQPMO_PASS_ALL_CONTEXT, cmqc.MQOO_PASS_ALL_CONTEXT),
    (cmqc.MQPMO_PASS_IDENTITY_CONTEXT, cmqc.MQOO_PASS_IDENTITY_CONTEXT),
)
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


def put(conn: Connection, h: Handle | int, data: bytes, md: Any = None, pmo: Any = None) -> None:
    """MQPUT ``data`` on an open handle: by the handle's plan, else by :func:`put_full`.

    :raises MQMIError: 2039 not open for output, 2051 put inhibited, 2030/2031 too long,
        2053 queue full, 2050/2047/2013/2046/2027 bad descriptor or options, 2024 MAXUMSGS;
        a 2049 warning after the message was put.
    """
    plan = h.put_plan if type(h) is Handle else None
    if not plans.planned_put(plan, data, md, pmo):
        put_full(conn, h, data, md, pmo)


def put1(conn: Connection, name: str, data: bytes, md: Any = None, pmo: Any = None,
         qmgr_name: str = "", *, generated: bool = False) -> None:
    """MQPUT1: open ``name`` for output, put one message, close it. As IBM's, the
    implicit open carries the context open option that the PMO's context option needs
    (MQPMO_SET_ALL_CONTEXT opens with MQOO_SET_ALL_CONTEXT, and so on). Its options are
    MQPUT's but for MQPMO_ALTERNATE_USER_AUTHORITY, allowed here only, and
    MQPMO_LOGICAL_ORDER, refused here only (2046, before anything is opened).
    ``generated``: a report the queue manager makes (:func:`tpfemu.qmgr.reports.send`),
    which MAXUMSGS does not refuse."""
    options = getattr(pmo, "Options", 0) if pmo is not None else 0
    if options & cmqc.MQPMO_LOGICAL_ORDER:
        raise fail(cmqc.MQRC_OPTIONS_ERROR, "MQPUT1", name)
    open_options = cmqc.MQOO_OUTPUT
    for put_option, open_option in _PUT1_OPENS:
        if options & put_option:
            open_options |= open_option
    handle = conn.open(name, open_options, qmgr_name)
    try:  # (no plan: the handle has no later call to serve)
        put_full(conn, handle, data, md, pmo, leave_plan=False, put1=True,
                 generated=generated)
    finally:
        if not handle.closed:
            conn.close(handle)


def _live_put_inhibited(conn: Connection, queue: LocalQueue, resolved: Resolved) -> bool:
    """PUT(DISABLED) on any definition in the path, or on the transmission queue."""
    if len(resolved.path) == 1 and not resolved.remote:
        return queue.put_inhibited
    catalog = conn.qmgr.catalog
    names = [d.name for d in resolved.path]
    if resolved.remote:
        names.append(resolved.local.name)
    return any(getattr(catalog.find_queue(n), "put", "ENABLED") == "DISABLED" for n in names)


def _first_def(conn: Connection, resolved: Resolved) -> Any:
    first = resolved.first
    return conn.qmgr.catalog.find_queue(first.name) or first


def put_full(conn: Connection, h: Handle | int, data: Any, md: Any, pmo: Any, *,
             leave_plan: bool = True, put1: bool = False, generated: bool = False) -> None:
    """MQPUT by the full path: every check and rule, the recovery log, triggering and
    events; then, when the handle's later puts may take a plan (and ``leave_plan``), its
    plan. (``put1``, ``generated``: the put of an MQPUT1, see :func:`put1`.)"""
    handle = conn.handle(h, "MQPUT")
    if not handle.output:
        raise fail(cmqc.MQRC_NOT_OPEN_FOR_OUTPUT, "MQPUT", handle.name)
    queue_usable(conn, handle, "MQPUT")
    queue, resolved = queue_of(handle)
    if _live_put_inhibited(conn, queue, resolved):
        raise fail(cmqc.MQRC_PUT_INHIBITED, "MQPUT", handle.name)
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"message data must be bytes-like, not {type(data).__name__}"
                        + (" (encode it first)" if isinstance(data, str) else ""))
    options = getattr(pmo, "Options", 0) if pmo is not None else 0
    qm = conn.qmgr
    first = _first_def(conn, resolved)
    limit = queue.definition.maxmsgl
    if len(data) > limit:
        raise fail(cmqc.MQRC_MSG_TOO_BIG_FOR_Q, "MQPUT", handle.name)
    profile = qm.catalog.profile
    if profile is not None:
        if len(data) > profile.maxmsgl:
            raise fail(cmqc.MQRC_MSG_TOO_BIG_FOR_Q_MGR, "MQPUT", handle.name)
        limit = min(limit, profile.maxmsgl)
    generation = qm.catalog.generation
    _put_checked(conn, handle, first, data, md, options, pmo, put1, generated)
    if (leave_plan and not options & ~plans.PLAN_PUT and not resolved.remote
            and queue.definition.trigger != "YES" and not queue.shared
            and plans.may_plan(conn)):
        handle.put_plan = plans.put_plan(conn, generation, queue, first, limit,
                                         context_allowed(handle.options), handle.name)
        if handle.closed:  # (closed meanwhile: closing dropped its plans before this)
            handle.put_plan = None


def context_allowed(open_options: int) -> int:
    """The MQPMO_SET_IDENTITY_CONTEXT and MQPMO_SET_ALL_CONTEXT options a handle opened
    with ``open_options`` may put with (the check of :func:`_check_options`, for a put
    plan: it declines the others, and this path fails them)."""
    settable = cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_SET_IDENTITY_CONTEXT
    return sum(put_option for put_option, needs, _ in _CONTEXT_NEEDS
               if put_option & settable and open_options & needs)


def _check_options(conn: Connection, handle: Handle, options: int, put1: bool = False) -> Any:
    """The put options' checks; returns the unit of work the put joins (None: none).
    Options cmqc.h does not define, two context options, both put response options,
    SYNCPOINT with NO_SYNCPOINT, or ALTERNATE_USER_AUTHORITY on an MQPUT (not ``put1``)
    fail MQRC_OPTIONS_ERROR (2046)."""
    name = handle.name
    if (options & ~_PMO_DEFINED or bin(options & _CONTEXT_OPTIONS).count("1") > 1
            or options & _RESPONSES == _RESPONSES
            or (options & cmqc.MQPMO_ALTERNATE_USER_AUTHORITY and not put1)):
        raise fail(cmqc.MQRC_OPTIONS_ERROR, "MQPUT", name)
    for put_option, open_options, reason in _CONTEXT_NEEDS:
        if options & put_option and not handle.options & open_options:
            raise fail(reason, "MQPUT", name)
    return conn.uow_for(syncpoint(options, cmqc.MQPMO_SYNCPOINT, cmqc.MQPMO_NO_SYNCPOINT,
                                  "MQPUT", name))


def _passed_context(conn: Connection, options: int, pmo: Any,
                    name: str) -> tuple[dict[str, Any], int] | None:
    """The context an MQPMO_PASS_IDENTITY_CONTEXT or MQPMO_PASS_ALL_CONTEXT put passes:
    the one saved by the input handle the PMO's Context names (None: the put passes
    none). IBM's rules: MQRC_CONTEXT_HANDLE_ERROR (2097) when Context is no queue handle
    open on the connection or one not opened with MQOO_SAVE_ALL_CONTEXT;
    MQRC_CONTEXT_NOT_AVAILABLE (2098) when it has got no message yet, or its last
    successful MQGET was a browse."""
    if not options & (cmqc.MQPMO_PASS_ALL_CONTEXT | cmqc.MQPMO_PASS_IDENTITY_CONTEXT):
        return None
    hobj = getattr(pmo, "Context", cmqc.MQHO_NONE)
    source = conn.handles.get(hobj.hobj if isinstance(hobj, Handle) else hobj)
    if (source is None or source.closed or source.queue is None
            or not source.options & cmqc.MQOO_SAVE_ALL_CONTEXT):
        raise fail(cmqc.MQRC_CONTEXT_HANDLE_ERROR, "MQPUT", name)
    if source.saved_context is None:
        raise fail(cmqc.MQRC_CONTEXT_NOT_AVAILABLE, "MQPUT", name)
    return source.saved_context


def _context_values(conn: Connection, md: Any, md_get: Any, options: int,
                    expiry_tenths: int, bare: bool,
                    passed: tuple[dict[str, Any], int] | None = None) -> tuple[tuple, int]:
    """The context record's values of a put, and its put time when the PMO sets or
    passes it (SET_ALL_CONTEXT, PASS_ALL_CONTEXT; 0: now). ``bare``: a put with no MD
    that stores no record (see :func:`_put_checked`); ``passed``: the context a PASS_*
    option passes (:func:`_passed_context`): all of it, or its identity part with this
    connection's origin context."""
    overrides: dict[str, Any] = {"Expiry": expiry_tenths}
    put_time = 0
    ready = None
    if bare:
        pass
    elif options & cmqc.MQPMO_SET_ALL_CONTEXT:
        put_time = time_from(md_get("PutDate", b""), md_get("PutTime", b""))
        overrides.update(context.put_context_as_given(md_get))
    elif options & cmqc.MQPMO_NO_CONTEXT:
        overrides.update(_BLANK, AccountingToken=bytes(32), PutApplType=cmqc.MQAT_NO_CONTEXT)
    elif options & cmqc.MQPMO_SET_IDENTITY_CONTEXT:
        ready = conn.origin_context
    elif passed is not None:
        fields, when = passed
        if options & cmqc.MQPMO_PASS_ALL_CONTEXT:
            ready, put_time = {f: fields[f] for f in context.PUT_CONTEXT}, when
        else:
            ready = dict(conn.origin_context,
                         **{f: fields[f] for f in context.IDENTITY_CONTEXT})
    else:
        ready = conn.default_context
    return context.values_of(md, overrides, ready), put_time


def _reply_to_qmgr(conn: Connection, values: tuple) -> tuple:
    """IBM's MQPUT rule for a blank ReplyToQMgr with a ReplyToQ set: a ReplyToQ naming a
    local definition of a remote queue (a reply-to alias) is replaced by its RNAME (when
    it has one) and the ReplyToQMgr by its RQMNAME; otherwise the ReplyToQMgr becomes this
    queue manager's name. (A put plan declines such a put, native/python/mdpath.c.)"""
    reply_q = values[_REPLY_Q_AT]
    if not reply_q.strip() or values[_REPLY_QMGR_AT].strip():
        return values
    qm = conn.qmgr
    alias = qm.catalog.find_queue(reply_q.rstrip(b" ").decode("ascii", "replace"))
    new = list(values)
    if isinstance(alias, RemoteQueueDef) and alias.rqmname:
        if alias.rname:
            new[_REPLY_Q_AT] = alias.rname.encode().ljust(48)
        new[_REPLY_QMGR_AT] = alias.rqmname.encode().ljust(48)
    else:
        new[_REPLY_QMGR_AT] = qm.name.encode().ljust(48)
    return tuple(new)


#: What a put to a remote queue makes now, beside its context values (see :func:`_xmit`),
#: in the order :func:`_xmit` passes them.
_XMIT_MADE = ("XQH.RemoteQName", "XQH.RemoteQMgrName", "MD.Expiry", "MD.Priority",
              "MD.Persistence", "MD.MsgId", "MD.CorrelId", "MD.PutDate", "MD.PutTime")


def _flat_xqh() -> tuple[struct.Struct, Any, tuple]:
    """MQXQH version 1 with its MQMD version 1 as one flat layout, made from the two
    structures' declared fields (:class:`XQH`, :class:`MD`: the layout is written there
    alone); the getter that picks its values, in order, out of a put's context values
    followed by the :data:`_XMIT_MADE` values and the constants; the constants (the
    StrucIds and Versions, BackoutCount 0)."""
    xqh_layout, xqh_fields = XQH._layouts[cmqc.MQXQH_VERSION_1]
    nested = XQH._by_name["MsgDesc"]
    version = nested.version  # type: ignore[attr-defined]
    md_layout, md_fields = MD._layouts[version]
    if xqh_fields[-1] is not nested:
        raise TypeError("the MQXQH no longer ends with its MQMD: rebuild _flat_xqh")
    flat = struct.Struct("<" + "".join(f.fmt for f in xqh_fields[:-1]) + md_layout.format[1:])
    assert flat.size == xqh_layout.size
    fixed = {"XQH.StrucId": XQH._by_name["StrucId"].default,
             "XQH.Version": cmqc.MQXQH_VERSION_1,
             "MD.StrucId": MD._by_name["StrucId"].default, "MD.Version": version,
             "MD.BackoutCount": 0}
    source = list(context._NAMES) + list(_XMIT_MADE) + list(fixed)
    picks = [source.index(f"XQH.{f.name}") for f in xqh_fields[:-1]]
    picks += [source.index(f"MD.{f.name}" if f"MD.{f.name}" in source else f.name)
              for f in md_fields]
    return flat, operator.itemgetter(*picks), tuple(fixed.values())


_XQH_FLAT, _XQH_PICK, _XQH_CONSTANTS = _flat_xqh()
_NAME48: dict[str, bytes] = {}  # a remote queue (manager) name -> its MQCHAR48 (read once)


def _name48(name: str) -> bytes:
    found = _NAME48.get(name)
    if found is None:
        found = name.encode("ascii")
        if len(found) > 48:
            raise ValueError(f"MQXQH name {name!r} is longer than 48 characters")
        found = found.ljust(48)
        if len(_NAME48) < 4096:
            _NAME48[name] = found
    return found


def _xmit(conn: Connection, handle: Handle, values: tuple, body: bytes, msg_id: bytes | None,
          correl_id: bytes, put_time: int, priority: int, persistent: bool,
          expiry_tenths: int) -> tuple[tuple, bytes, bytes]:
    """A put to a remote queue: the body behind an MQXQH carrying the putter's own MQMD
    (version 1: the context values as stored, with the MsgId and put time made now),
    packed in one call. Returns the values, body and MsgId put."""
    qm = conn.qmgr
    _, resolved = queue_of(handle)
    if not msg_id or msg_id == ZERO_ID:
        msg_id = qm.new_msg_id()
    date, clock = date_time(put_time)
    header = _XQH_FLAT.pack(*_XQH_PICK(values + (
        _name48(resolved.remote_q), _name48(resolved.remote_qmgr), expiry_tenths, priority,
        int(persistent), msg_id, correl_id, date, clock) + _XQH_CONSTANTS))
    outer = list(values)  # (already in stored form: Format, Encoding and CCSID change)
    for at, value in _XMIT_FIELDS:
        outer[at] = value
    return tuple(outer), header + body, msg_id


def _put_checked(conn: Connection, handle: Handle, first: Any, data: Any, md: Any,
                 options: int, pmo: Any, put1: bool = False, generated: bool = False) -> None:
    qm = conn.qmgr
    queue, resolved = queue_of(handle)
    name = handle.name
    uow = _check_options(conn, handle, options, put1)
    passed = _passed_context(conn, options, pmo, name)
    md_get = (lambda f, d: getattr(md, f, d)) if md is not None else (lambda f, d: d)
    expiry_tenths = md_get("Expiry", cmqc.MQEI_UNLIMITED)
    now = now_us()
    warning, priority, persistent, deadline = put_rules(
        md_get("Priority", cmqc.MQPRI_PRIORITY_AS_Q_DEF),
        md_get("Persistence", cmqc.MQPER_PERSISTENCE_AS_Q_DEF), expiry_tenths,
        md_get("MsgType", cmqc.MQMT_DATAGRAM), md_get("Report", cmqc.MQRO_NONE),
        not bytes(md_get("ReplyToQ", b"")).strip(),
        first.defprty, first.defpsist == "YES", now,
        md_get("Feedback", cmqc.MQFB_NONE))
    if warning not in (cmqc.MQRC_NONE, cmqc.MQRC_PRIORITY_EXCEEDS_MAXIMUM):
        raise fail(warning, "MQPUT", name)
    if deadline != NEVER:
        queue.expiring = True  # gets then collect what expires

    msg_id = None if options & cmqc.MQPMO_NEW_MSG_ID else id24(md_get("MsgId", ZERO_ID))
    if options & cmqc.MQPMO_NEW_CORREL_ID:
        correl_id = qm.new_correl_id()
    else:
        correl_id = id24(md_get("CorrelId", ZERO_ID))
    # A non-persistent put with no MD and no context option to a plain local queue (as
    # the put plan serves it) stores no context record (docs/deviations.md, "Put context
    # of messages put with no MD"): its put context reads back as the defaults.
    bare = (md is None and not options & _CONTEXT_OPTIONS & ~cmqc.MQPMO_DEFAULT_CONTEXT
            and not persistent and not resolved.remote and not queue.shared
            and queue.definition.trigger != "YES")
    values, put_time = _context_values(conn, md, md_get, options, expiry_tenths, bare,
                                       passed)
    values = _reply_to_qmgr(conn, values)
    body = bytes(data)
    # The time stored is the time written back into the MD (the core's own clock, read a
    # moment later, could fall in the next hundredth of a second).
    put_time = put_time or now
    if resolved.remote:
        values, body, msg_id = _xmit(conn, handle, values, body, msg_id, correl_id,
                                     put_time, priority, persistent, expiry_tenths)
    record = context.encode(values)
    put_args = dict(
        priority=priority, persistent=persistent, expiry=deadline,
        msg_id=msg_id if msg_id and msg_id != ZERO_ID else None,
        correl_id=correl_id if correl_id != ZERO_ID else None,
        uow=uow.id if uow is not None else 0, ctx_len=len(record), put_time=put_time,
    )
    coa = _arrival_wanted(queue, resolved, values)
    if not generated and limit_reached(uow, qm.catalog.profile, 1 + coa):  # (its COA too)
        raise fail(cmqc.MQRC_SYNCPOINT_LIMIT_REACHED, "MQPUT", name)
    plog = qm.persistence if persistent and not queue.shared else None
    if values[_REPORT_AT] & cmqc.MQRO_COD and not queue.reports_on_get and not resolved.remote:
        queue.reports_on_get = True  # before the put: no plan may get it without its report
        qm.catalog.new_generation()  # (get plans already made on the queue are stale)
    new_id = _put_and_trigger(conn, queue, plog, record + body, put_args, uow,
                              (correl_id, expiry_tenths, values, put_time), name)
    if md is not None:
        _write_put_outputs(md, new_id, correl_id, values, put_time, options)
    if pmo is not None:
        # blank-padded to 48, as pymqi returns the fields of the C structure
        _write_resolved(pmo, _name48(resolved.remote_q or queue.name),
                        _name48(resolved.remote_qmgr or qm.name))
    if qm.events.active:
        qm._emit("put", queue.name, msg_id=new_id, correl_id=correl_id, priority=priority,
                 persistent=persistent, expiry=expiry_tenths, length=len(data),
                 uow=uow.id if uow else 0, remote=resolved.remote_qmgr,
                 group_id=values[_GROUP_ID_AT], **context.journal_fields(values),
                 data=data if type(data) is bytes else bytes(data))
    if coa:
        _arrival_report(conn, queue, values, body, new_id, correl_id, priority, persistent,
                        deadline, uow)
    if warning:
        raise fail(warning, "MQPUT", name, comp=errors.MQCC_WARNING)


def _write_resolved(pmo: Any, q_name: bytes, qmgr_name: bytes) -> None:
    """The PMO's ResolvedQName and ResolvedQMgrName (MQCHAR48s, made by the queue
    manager: our PMO takes them as they are)."""
    if type(pmo) is PMO:
        pmo._load_trusted({"ResolvedQName": q_name, "ResolvedQMgrName": qmgr_name})
        return
    set_field(pmo, "ResolvedQName", q_name)
    set_field(pmo, "ResolvedQMgrName", qmgr_name)


def _arrival_wanted(queue: LocalQueue, resolved: Resolved, values: tuple) -> bool:
    """Whether a put with context ``values`` makes a COA report: its message asks for one
    (:func:`tpfemu.qmgr.reports.makes`) and arrives on its destination queue here (not on
    a transmission queue, where it has not arrived)."""
    return (bool(values[_REPORT_AT] & cmqc.MQRO_COA) and not resolved.remote
            and queue.definition.usage != "XMITQ"
            and reports.makes(reports.COA, values[_REPORT_AT], values[_FORMAT_AT],
                              values[_REPLY_Q_AT]))


def _arrival_report(conn: Connection, queue: LocalQueue, values: tuple, body: bytes,
                    msg_id: bytes, correl_id: bytes, priority: int, persistent: bool,
                    deadline: int, uow: Any) -> None:
    """The COA report of a message just placed on its destination queue (when
    :func:`_arrival_wanted`), inside the put's unit of work."""
    record = dict(zip(context._NAMES, values, strict=True))
    made = reports.make(reports.COA, record, body, msg_id=msg_id, correl_id=correl_id,
                        priority=priority, persistent=persistent, deadline=deadline,
                        qmgr_name=conn.qmgr.name)
    if made is not None:
        reports.send(conn, made, reports.COA, msg_id, syncpoint=uow is not None)


def _put_and_trigger(conn: Connection, queue: Any, plog: Any, message: bytes,
                     put_args: dict, uow: Any, trigger: tuple, name: str) -> bytes:
    """Put ``message`` on the queue's core (and log it), evaluating the queue's trigger
    conditions with it (``trigger``: its CorrelId, Expiry, context values and put time,
    for the MQMD of a trigger); wait for the log outside syncpoint; returns the MsgId."""
    qm = conn.qmgr
    if queue.definition.trigger == "YES":
        # The put and its trigger evaluation are one step: "the previous count" is exact.
        with queue.trigger_lock:
            new_id, ticket = _core_put(queue, plog, message, put_args)
            correl_id, expiry_tenths, values, put_time = trigger
            trigger_md = _md_of(new_id, correl_id, put_args["priority"],
                                put_args["persistent"], expiry_tenths, values, put_time)
            qm.triggers.after_put(queue, put_args["priority"], trigger_md, uow)
        qm.triggers.retry_pending(queue)
    else:
        new_id, ticket = _core_put(queue, plog, message, put_args)
    if ticket is not None and uow is None:  # outside syncpoint: durable before MQPUT returns
        plog.wait_put(queue, name, ticket, new_id)
    if uow is not None:
        uow.touch(queue)
        uow.count += 1
    else:
        queue.wake()
    return new_id


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


def _md_of(msg_id: bytes, correl_id: bytes, priority: int, persistent: bool, expiry: int,
           values: tuple, put_time: int) -> MD:
    """The MQMD of a message just put (CUIR receives it on data level 0)."""
    md = MD(Version=cmqc.MQMD_VERSION_2)
    md._load_trusted({f: v for f, v in zip(context._NAMES, values, strict=True)
                      if f != "Expiry"})
    date, clock = date_time(put_time)
    md._load_trusted({"MsgId": msg_id, "CorrelId": correl_id, "Priority": priority,
                      "Persistence": int(persistent), "Expiry": expiry, "PutDate": date,
                      "PutTime": clock})
    return md


#: The put context fields MQPUT writes back into the MD, and their getter from a put's
#: context values.
_PUT_CONTEXT = ("PutApplType", "PutApplName", "UserIdentifier", "AccountingToken",
                "ApplIdentityData", "ApplOriginData")
_PUT_CONTEXT_OF = operator.itemgetter(*(context._NAMES.index(f) for f in _PUT_CONTEXT))


def _write_put_outputs(md: Any, msg_id: bytes, correl_id: bytes, values: tuple,
                       put_time: int, options: int) -> None:
    out: dict[str, Any] = {"MsgId": msg_id}
    if options & cmqc.MQPMO_NEW_CORREL_ID:
        out["CorrelId"] = correl_id
    if not options & (cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_NO_CONTEXT):
        out["PutDate"], out["PutTime"] = date_time(put_time)
        out.update(zip(_PUT_CONTEXT, _PUT_CONTEXT_OF(values), strict=True))
    load = getattr(md, "_load_trusted", None)
    if load is not None:  # our MD: values made or checked by the queue manager
        load(out)
        return
    for field, value in out.items():
        set_field(md, field, value)
