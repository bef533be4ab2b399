"""MQGET (and browse) on a connection's handles.

An MQGET tries its handle's get plan (:mod:`tpfemu.qmgr.plans`, carried out in C), else
it takes the one full path here, :func:`get_full`, which makes the plan for the handle's
later calls when they may take it.

Semantics follow IBM's MQI reference (mq-semantics.md §1-§7, seed 001):

- Options: a bit cmqc.h does not define fails 2046, an undefined MatchOptions bit 2247;
  a browse or MQGMO_MSG_UNDER_CURSOR needs MQOO_BROWSE (2036).
- A get returns the time left as Expiry (never 0: an expired message is never returned).
- Syncpoint: MQGMO_SYNCPOINT or NO_SYNCPOINT as asked (both: 2046); with neither, the
  work joins the open TPF commit scope if there is one, else it is outside syncpoint;
  SYNCPOINT_IF_PERSISTENT takes a persistent message under syncpoint. MAXUMSGS: 2024.
- A truncated get warns: 2080 (the message stays) or 2079 with ACCEPT_TRUNCATED_MSG
  (the message is gone; the warning carries ``.message`` and ``.original_length``).
- A get or browse that returns a message fills the GMO's ResolvedQName with the local
  queue it came from (the base queue of an alias) and, in a GMO of version 3 or later,
  ReturnedLength with the bytes of data returned.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

from tpfemu import errors
from tpfemu._lowlevel import MQGMO as CORE_GMO
from tpfemu._lowlevel import NEVER
from tpfemu.mq import cmqc
from tpfemu.qmgr import context, plans, reports
from tpfemu.qmgr.connection import Connection, Handle
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
)
from tpfemu.qmgr.units import limit_reached

__all__ = ["get", "get_full"]

_BROWSE = cmqc.MQGMO_BROWSE_FIRST | cmqc.MQGMO_BROWSE_NEXT | cmqc.MQGMO_BROWSE_MSG_UNDER_CURSOR
#: The MQGMO options the core acts on (a get with any of them gets a browse cursor)
_CURSOR_BITS = sum(CORE_GMO.values())
_MATCH_BOTH = cmqc.MQMO_MATCH_MSG_ID | cmqc.MQMO_MATCH_CORREL_ID
#: Every MQGMO option and MQMO match option cmqc.h defines.
_GMO_DEFINED = functools.reduce(operator.or_, (v for k, v in vars(cmqc).items()
                   if k.startswith("MQGMO_") and not k.startswith(("MQGMO_VERSION",
                   "MQGMO_CURRENT", "MQGMO_LENGTH", "MQGMO_STRUC"))), 0)
_MO_DEFINED = functools.reduce(
    operator.or_, (v for k, v in vars(cmqc).items() if k.startswith("MQMO_")), 0)


def get(conn: Connection, h: Handle | int, max_length: int | None = None, md: Any = None,
        gmo: Any = None) -> bytes:
    """MQGET (or browse) one message from an open handle and return its data: by the
    handle's plan, else by :func:`get_full`.

    :param max_length: the buffer length; None returns the whole message.
    :raises MQMIError: 2037/2036 not open for input/browse, 2016 get inhibited, 2033 no
        message (after WaitInterval with MQGMO_WAIT), 2080 (comp 1) too long, 2079 (comp 1,
        with .message) truncated and removed, 2046 bad options, 2090 bad WaitInterval.
    """
    plan = h.get_plan if type(h) is Handle else None
    data = plans.planned_get(plan, max_length, md, gmo)
    return data if data is not None else get_full(conn, h, max_length, md, gmo)


def _live_get_inhibited(conn: Connection, handle: Handle) -> bool:
    queue, resolved = queue_of(handle)
    path = resolved.path
    if len(path) == 1:
        return queue.get_inhibited
    catalog = conn.qmgr.catalog
    return any(getattr(catalog.find_queue(d.name) or d, "get", "ENABLED") == "DISABLED"
               for d in path)


def _timeout(options: int, gmo: Any, name: str) -> float | None:
    """How long the get waits: 0.0 without MQGMO_WAIT, None for MQWI_UNLIMITED."""
    if not options & cmqc.MQGMO_WAIT:
        return 0.0
    interval = getattr(gmo, "WaitInterval", 0)
    if interval == cmqc.MQWI_UNLIMITED:
        return None
    if interval < 0:
        raise fail(cmqc.MQRC_WAIT_INTERVAL_ERROR, "MQGET", name)
    return interval / 1000


def _unit_of_work(conn: Connection, options: int, name: str) -> Any:
    """The unit of work a get with ``options`` joins (None: none)."""
    joins = syncpoint(options, cmqc.MQGMO_SYNCPOINT, cmqc.MQGMO_NO_SYNCPOINT, "MQGET", name)
    if options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT and joins is not None:
        raise fail(cmqc.MQRC_OPTIONS_ERROR, "MQGET", name)
    if options & _BROWSE or options & cmqc.MQGMO_UNLOCK:
        return None
    if options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT:
        # The get takes a unit of work of its own (a TPF scope open or not); a persistent
        # message then joins the one a syncpoint get joins (_got), whose limit judges the
        # get whatever it finds (docs/deviations.md).
        uow, judged = None, conn.uow_for(True)
    else:
        uow = judged = conn.uow_for(joins)
    if limit_reached(judged, conn.qmgr.catalog.profile):
        raise fail(cmqc.MQRC_SYNCPOINT_LIMIT_REACHED, "MQGET", name)
    return uow


def get_full(conn: Connection, h: Handle | int, max_length: int | None, md: Any,
             gmo: Any) -> bytes:
    """MQGET by the full path: every check and rule, waiting, browse cursors, the
    recovery log, expiry reports, triggers and events; then, when the handle's later gets
    may take a plan, its plan."""
    handle = conn.handle(h, "MQGET")
    options = getattr(gmo, "Options", 0) if gmo is not None else 0
    _check_options(gmo, options, handle.name)
    if options & (_BROWSE | cmqc.MQGMO_MSG_UNDER_CURSOR) and not handle.browse:
        raise fail(cmqc.MQRC_NOT_OPEN_FOR_BROWSE, "MQGET", handle.name)
    if (not options & _BROWSE and not handle.input
            and not (options & cmqc.MQGMO_UNLOCK and handle.browse)):
        raise fail(cmqc.MQRC_NOT_OPEN_FOR_INPUT, "MQGET", handle.name)
    queue, _ = queue_of(handle)
    timeout = _timeout(options, gmo, handle.name)
    uow = _unit_of_work(conn, options, handle.name)
    generation = conn.qmgr.catalog.generation
    data = _get_checked(conn, handle, max_length, md, gmo, options, uow, timeout)
    if ((uow is None or options & cmqc.MQGMO_SYNCPOINT) and timeout == 0.0
            and not options & ~plans.PLAN_GET and handle.cursor is None
            and not handle.options & cmqc.MQOO_SAVE_ALL_CONTEXT
            and queue.definition.trigger != "YES" and not queue.shared
            and not queue.reports_on_get and plans.may_plan(conn)):
        handle.get_plan = plans.get_plan(conn, generation, queue, handle.name)
        if handle.closed or handle.cursor is not None:  # (dropped meanwhile)
            handle.get_plan = None
    return data


#: IBM's "Rules for validating MQI options" for MQGET, beside the syncpoint pairs
#: (:func:`_unit_of_work`) and the browse options (the core): (options, the options that
#: may not come with any of them, the options that must come with them). MQGMO_SYNCPOINT
#: with a browse option is accepted (docs/deviations.md, "Browse with a unit of work").
_GMO_RULES = (
    (cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT, _BROWSE | cmqc.MQGMO_COMPLETE_MSG, 0),
    (cmqc.MQGMO_MARK_SKIP_BACKOUT, 0, cmqc.MQGMO_SYNCPOINT),
    (cmqc.MQGMO_WAIT, cmqc.MQGMO_SET_SIGNAL, 0),
    (cmqc.MQGMO_UNLOCK, ~(cmqc.MQGMO_UNLOCK | cmqc.MQGMO_NO_SYNCPOINT | cmqc.MQGMO_NO_WAIT), 0),
)


def _check_options(gmo: Any, options: int, name: str) -> None:
    """Options cmqc.h does not define, or a combination IBM refuses (:data:`_GMO_RULES`),
    fail MQRC_OPTIONS_ERROR (2046), and MatchOptions it does not define (a GMO of version
    2 or later) MQRC_MATCH_OPTIONS_ERROR (2247), as IBM's MQGET does ("Rules for
    validating MQI options"; MQRC_MATCH_OPTIONS_ERROR)."""
    if options & ~_GMO_DEFINED or any(
            options & option and (options & refused or options & needed != needed)
            for option, refused, needed in _GMO_RULES):
        raise fail(cmqc.MQRC_OPTIONS_ERROR, "MQGET", name)
    if gmo is not None and getattr(gmo, "Version", 1) >= 2:
        if getattr(gmo, "MatchOptions", _MATCH_BOTH) & ~_MO_DEFINED:
            raise fail(cmqc.MQRC_MATCH_OPTIONS_ERROR, "MQGET", name)


def _match_ids(md: Any, gmo: Any, options: int) -> tuple[bytes | None, bytes | None]:
    """The MsgId and CorrelId a get matches (None: any)."""
    if md is None or options & cmqc.MQGMO_MSG_UNDER_CURSOR:
        return None, None
    match = _MATCH_BOTH
    if gmo is not None and getattr(gmo, "Version", 1) >= 2:
        match = getattr(gmo, "MatchOptions", _MATCH_BOTH)
    msg_id = id24(getattr(md, "MsgId", ZERO_ID)) if match & cmqc.MQMO_MATCH_MSG_ID else None
    correl_id = (id24(getattr(md, "CorrelId", ZERO_ID)) if match & cmqc.MQMO_MATCH_CORREL_ID
                 else None)
    return msg_id, correl_id


def _cursor_options(handle: Handle, options: int) -> int:
    """The options the core acts on; with any, the handle gets its browse cursor (and
    takes the full path from then on: only the core's full get knows the cursor)."""
    cursor_bits = options & _CURSOR_BITS
    if cursor_bits and handle.cursor is None:
        handle.get_plan = None
        handle.cursor = queue_of(handle)[0].core.cursor()
    return cursor_bits


def _logging(qm: Any, queue: Any, options: int, uow: Any) -> tuple[Any, bool, int]:
    """How a get is logged: the recovery log (None: not logged), whether the get takes
    a private unit of work, and the unit of work it is made under (0: none).

    On a logged queue a destructive get logs the Get of a persistent message with the
    core get (under the queue's log lock); outside syncpoint it is made under a private
    unit of work, committed once its record is durable (tpfemu.qmgr.persistence).
    MQGMO_SYNCPOINT_IF_PERSISTENT takes a unit of work of its own too."""
    if_persistent = bool(options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT)
    plog = qm.persistence if not queue.shared else None
    if plog is not None and options & (_BROWSE | cmqc.MQGMO_UNLOCK):
        plog = None
    private = plog is not None and uow is None and not if_persistent
    uow_id = uow.id if uow is not None else (
        qm.private_uow() if if_persistent or private else 0)
    return plog, private, uow_id


def _get_checked(conn: Connection, handle: Handle, max_length: int | None, md: Any, gmo: Any,
                 options: int, uow: Any, timeout: float | None) -> bytes:
    qm = conn.qmgr
    queue, _ = queue_of(handle)
    name = handle.name
    msg_id, correl_id = _match_ids(md, gmo, options)
    cursor_bits = _cursor_options(handle, options)
    plog, private, uow_id = _logging(qm, queue, options, uow)
    tickets: list = []
    accept_truncated = bool(options & cmqc.MQGMO_ACCEPT_TRUNCATED_MSG)

    def core_get(length: int | None = max_length) -> Any:
        return queue.core.get_message(
            msg_id=msg_id, correl_id=correl_id, uow=uow_id, max_length=length,
            accept_truncated=accept_truncated, cursor=handle.cursor, options=cursor_bits,
            cap_body=True,
        )

    def logged_get() -> Any:
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

    def attempt() -> Any:
        queue_usable(conn, handle, "MQGET")
        if _live_get_inhibited(conn, handle):  # browses too (IBM's InhibitGet)
            raise fail(cmqc.MQRC_GET_INHIBITED, "MQGET", name)
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
    _save_context(handle, msg, options)
    _fill_gmo(gmo, queue, msg)
    return _got(conn, queue, msg, md, options, uow, uow_id, name, private)


def _save_context(handle: Handle, msg: Any, options: int) -> None:
    """What a handle opened with MQOO_SAVE_ALL_CONTEXT keeps of a message it got, for
    MQPMO_PASS_*_CONTEXT to pass (tpfemu.qmgr.mqput): its context (a browse: none, as
    IBM's MQRC_CONTEXT_NOT_AVAILABLE says of a last successful MQGET that browsed)."""
    if not handle.options & cmqc.MQOO_SAVE_ALL_CONTEXT:
        return
    d = msg.descriptor
    handle.saved_context = None if options & _BROWSE else (
        context.decode(msg.data[: d.ctx_len]), d.put_time)


def _fill_gmo(gmo: Any, queue: Any, msg: Any) -> None:
    """The GMO's outputs of a message got or browsed: ResolvedQName, the local queue's
    name; from version 3, ReturnedLength, the bytes of data returned (after truncation).
    (No GMO: nothing.)"""
    if gmo is None:
        return
    set_field(gmo, "ResolvedQName", queue.name.encode().ljust(48))
    if getattr(gmo, "Version", 1) >= 3:
        set_field(gmo, "ReturnedLength", len(msg.data) - msg.descriptor.ctx_len)


def _got(conn: Connection, queue: Any, msg: Any, md: Any, options: int, uow: Any,
         uow_id: int, name: str, private: bool) -> bytes:
    """What a get does with the message it got: its unit of work, the MD, the event,
    the truncation warning; returns its data. (``private``: ``uow_id`` is the log's own
    unit of work for a get outside syncpoint, which its event does not name.)"""
    qm = conn.qmgr
    d = msg.descriptor
    record = context.decode(msg.data[: d.ctx_len])
    data = msg.data[d.ctx_len :]
    if uow_id and not options & _BROWSE:
        if options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT and uow is None:
            if d.persistent:
                joined = conn.uow_for(True)
                assert joined is not None  # (True: the connection's own, made if need be)
                joined.extra.append((queue, uow_id))
                joined.count += 1
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
                 length=d.length - d.ctx_len, uow=0 if private else uow_id,
                 group_id=record["GroupId"], msg_type=record["MsgType"],
                 format=record["Format"], reply_to_q=record["ReplyToQ"],
                 reply_to_qmgr=record["ReplyToQMgr"],
                 expires_us=d.expiry, data=None if msg.reason else data)
    if record["Report"] & cmqc.MQRO_COD and not options & _BROWSE:
        _delivery_report(conn, queue, record, data, d, options, uow)
    if msg.reason:  # MQRC_TRUNCATED_MSG_ACCEPTED
        exc = fail(msg.reason, "MQGET", name, comp=errors.MQCC_WARNING)
        exc.message = data
        exc.original_length = d.length - d.ctx_len
        raise exc
    return data


def _delivery_report(conn: Connection, queue: Any, record: dict[str, Any], data: bytes,
                     d: Any, options: int, uow: Any) -> None:
    """The COD report of a message an application removed from its destination queue
    (none from a transmission queue: a channel's get delivers nothing), inside the get's
    unit of work."""
    if queue.definition.usage == "XMITQ":
        return
    made = reports.make(reports.COD, record, data, msg_id=d.msg_id, correl_id=d.correl_id,
                        priority=d.priority, persistent=d.persistent, deadline=d.expiry,
                        qmgr_name=conn.qmgr.name)
    if made is not None:
        in_uow = uow is not None or bool(
            options & cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT and d.persistent)
        reports.send(conn, made, reports.COD, d.msg_id, syncpoint=in_uow)


def _truncate(msg: Any, max_length: int) -> Any:
    """``msg`` as a get with a buffer of ``max_length`` bytes and ACCEPT_TRUNCATED_MSG
    returns it: the context record whole, the data cut, reason 2079 if it was cut. (The
    whole message stays with the log layer while the get is in flight.)"""
    d = msg.descriptor
    if len(msg.data) - d.ctx_len <= max_length:
        return msg
    return type(msg)(msg.data[: d.ctx_len + max_length], d, cmqc.MQRC_TRUNCATED_MSG_ACCEPTED)


def _truncated(exc: errors.TruncatedMessage, name: str) -> errors.MQMIError:
    warning = fail(cmqc.MQRC_TRUNCATED_MSG_FAILED, "MQGET", name, comp=errors.MQCC_WARNING)
    warning.original_length = getattr(exc, "original_length", None)
    warning.message = b""
    return warning


def _fill_md(md: Any, d: Any, record: dict[str, Any]) -> None:
    """Write every MQMD output field of a got message into ``md``."""
    values = dict(record)
    date, clock = date_time(d.put_time)
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
        set_field(md, field, value)
