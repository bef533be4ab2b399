"""The plans of MQPUT and MQGET: what an earlier call through the full path decided for a
handle's later calls, carried out in C.

An MQPUT tries its handle's :class:`PutPlan` (:func:`planned_put`), else it takes the one
full path (:mod:`tpfemu.qmgr.mqput`); an MQGET likewise with its :class:`GetPlan`
(:func:`planned_get`, else :mod:`tpfemu.qmgr.mqget`). A plan holds no rule of its own:
the full path makes it only for a handle whose calls it may serve (a local queue of this
processor with no trigger, DEFPRTY and DEFPSIST resolved, no TPF commit scope open
anywhere: :func:`may_plan`), and it is good while the catalog generation it was made in
is current and the handle open (closing the handle drops its plans; a commit scope
opening anywhere retires the generation, see QueueManager.start). The C side
(native/python/planpath.c) checks that, reads the call's options, and calls the queue's
put or get in C (:meth:`CoreQueue.put`/:meth:`CoreQueue.get_body` with no MD,
:meth:`CoreQueue.put_md`/:meth:`CoreQueue.get_md` with one), which decline, having
changed nothing, whatever the full path must judge (a value out of range or warned
about, a persistent message to get without an MD from a logged queue, ...). A persistent
message put with an MD on a queue manager with a recovery log is logged by the put in C,
through the queue's log port (:meth:`QueuePersistence.put_port`,
native/python/logput.h): the same PUT record, under the same lock, with the same wait
outside syncpoint as the full path's (the raw entry's put too). A persistent message got
with an MD there is got and logged by the get in C likewise
(:meth:`QueuePersistence.get_port`): the same GET record under the same lock, joining
the caller's unit of work in syncpoint, and outside it a private unit of work finished
once the record is durable, as the full path does. What a plan serves:

- MQPUT: exact bytes no longer than the plan's limit; no MD (then DEFPSIST(NO) and no
  context option) or our MD; no PMO or our PMO with options among :data:`PLAN_PUT`, at
  most one context option, and MQPMO_SET_IDENTITY_CONTEXT or MQPMO_SET_ALL_CONTEXT only
  when the handle's open options allow it (the plan's ``contexts``, from the full
  path's own check, :func:`tpfemu.qmgr.mqput.context_allowed`); no event listener but
  the journal's EventLog. With SET_ALL_CONTEXT the MD's PutDate and PutTime are read in
  C only when plain (digits, in range); anything else goes to the full path.
- MQGET: no buffer length; no MD or our MD; no GMO or our GMO of version 1 or 2 (a
  version 3 GMO's ReturnedLength is the full path's) with options among
  :data:`PLAN_GET`, whose ResolvedQName it fills from ``resolved``; no browse cursor
  on the handle, nor MQOO_SAVE_ALL_CONTEXT (the full path saves the context); no
  event listener but the journal's EventLog. On a queue where
  messages can expire (``queue.expiring``), the plan's ``collect`` reports what the get
  found expired, as the full path does.

A call in syncpoint joins the connection's unit of work through the plan's ``join``
(the unit of work's id; 0 when it holds MAXUMSGS messages, and the full path fails the
call with 2024) and ``joined`` (counted once the message is put or got).

The plans are named tuples: C reads their fields by position, and
:func:`set_plan_layout` hands it the field names, which it checks against its own at
import, so the layout is written in this module alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ecb.resources import open_scopes
from tpfemu import _lowlevel
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, MD, PMO
from tpfemu.qmgr import context
from tpfemu.qmgr.catalog import Generation

__all__ = ["GetPlan", "PLAN_GET", "PLAN_PUT", "PutPlan", "get_plan", "plan_raw",
           "planned_get", "planned_get_raw", "planned_put", "planned_put_raw", "put_plan"]

#: MQPMO options a put plan serves (MQPMO_NEW_MSG_ID: the core makes the MsgId, as for
#: MQMI_NONE; MQPMO_SYNCPOINT: the message joins the unit of work, unseen until MQCMIT).
#: MQPMO_SET_IDENTITY_CONTEXT / SET_ALL_CONTEXT: the context from the MD, see ``contexts``.)
PLAN_PUT = (cmqc.MQPMO_NO_SYNCPOINT | cmqc.MQPMO_NEW_MSG_ID | cmqc.MQPMO_DEFAULT_CONTEXT
            | cmqc.MQPMO_FAIL_IF_QUIESCING | cmqc.MQPMO_SYNCPOINT
            | cmqc.MQPMO_SET_IDENTITY_CONTEXT | cmqc.MQPMO_SET_ALL_CONTEXT)
#: MQGMO options a get plan serves (matching, by the GMO's MatchOptions, is served too).
PLAN_GET = cmqc.MQGMO_NO_SYNCPOINT | cmqc.MQGMO_FAIL_IF_QUIESCING | cmqc.MQGMO_SYNCPOINT


class PutPlan(NamedTuple):
    """A handle's put plan (see the module's docstring)."""

    generation: Generation       #: the catalog generation it was made in
    queue: Any                   #: the LocalQueue: ``waiters``/``wake()``, ``expiring``
    priority: int                #: DEFPRTY: the priority of a put with no MD
    limit: int                   #: the longest message (MAXMSGL of the queue and profile)
    defpsist: bool               #: DEFPSIST(YES): a put with no MD is left to the full path
    put: Callable[..., None]     #: ``queue.core.put``, for a put with no MD
    put_md: Callable[..., int]   #: ``queue.core.put_md``, for a put with an MD
    settings: tuple              #: put_md's settings (the default context)
    set_identity: tuple          #: ... for MQPMO_SET_IDENTITY_CONTEXT
    set_all: tuple               #: ... for MQPMO_SET_ALL_CONTEXT
    contexts: int                #: the MQPMO_SET_*_CONTEXT options the handle may use
    events: Any                  #: the event bus: ``active``, ``capture``
    resolved: tuple[bytes, bytes]  #: the PMO's ResolvedQName, ResolvedQMgrName (padded to 48)
    join: Callable[[], int]      #: the unit of work a put in syncpoint joins (0: full)
    joined: Callable[[Any], None]  #: counts a put made in it (given the queue)


class GetPlan(NamedTuple):
    """A handle's get plan (see the module's docstring)."""

    generation: Generation
    queue: Any
    logged: Any                  #: False, or the log port: a persistent get is logged
    get_body: Callable[..., Any]  #: ``queue.core.get_body``, for a get with no MD
    get_md: Callable[..., Any]   #: ``queue.core.get_md``, for a get with an MD
    events: Any
    join: Callable[[], int]
    joined: Callable[[Any], None]
    collect: Callable[[Any], int]  #: reports what expired (given the queue), after a get
    resolved: bytes              #: the GMO's ResolvedQName: the local queue (padded to 48)


# The context a put takes from its MD, as put_md's settings name it (mdpath.h).
CONTEXT_DEFAULT, CONTEXT_IDENTITY, CONTEXT_ALL = 0, 1, 2


def may_plan(conn: Any) -> bool:
    """Whether a call of ``conn`` just made by the full path may leave a plan: no TPF
    commit scope open on any ECB (a call in one joins it, which a plan does not do)."""
    return not open_scopes() and conn.uow_for(None) is None


def put_plan(conn: Any, generation: Generation, queue: Any, first: Any, limit: int,
             contexts: int = 0, name: str | None = None) -> PutPlan:
    """The put plan of a handle of ``conn`` on ``queue``, ``first`` the first definition
    of its resolution path (DEFPRTY, DEFPSIST), made by a put through the full path in
    ``generation``; ``contexts``: the MQPMO_SET_*_CONTEXT options the handle's open
    options allow; ``name``: the name the handle opened (default: the queue's). Never
    made for a processor-shared queue: its storage (the TPFCS store) has no C fast path.

    On a queue manager with a recovery log, the settings' ``logged`` entry is the
    queue's log port (:meth:`QueuePersistence.put_port`): a persistent message put with
    an MD is logged by the plan's put in C."""
    qm = conn.qmgr
    plog = qm.persistence
    logged = plog.put_port(queue, name or queue.name) if plog is not None else False
    defpsist = first.defpsist == "YES"
    # For the ReplyToQMgr rule (mqput._reply_to_qmgr): this queue manager's name, and the
    # remote queue definitions of this generation (a ReplyToQ naming one: the full path).
    aliases = generation.memo.get("reply_aliases")
    if aliases is None:  # (listed once a generation, not at every MQOPEN)
        aliases = frozenset(d.name.encode().ljust(48) for d in qm.catalog.list("QR"))
        generation.memo["reply_aliases"] = aliases
    rules = (first.defprty, defpsist, logged)
    reply = (qm.name.encode().ljust(48), aliases)
    return PutPlan(
        generation, queue, first.defprty, limit, defpsist, queue.core.put, queue.core.put_md,
        (*rules, conn.put_record, conn.put_outputs, conn.put_initial_names, *reply,
         CONTEXT_DEFAULT),
        (*rules, context.origin_record(conn.origin_context), {}, (), *reply,
         CONTEXT_IDENTITY),
        (*rules, context.set_all_record(), {}, (), *reply, CONTEXT_ALL),
        contexts, qm.events, (queue.name.encode().ljust(48), qm.name.encode().ljust(48)),
        conn.plan_uow, conn.plan_joined)


def get_plan(conn: Any, generation: Generation, queue: Any, name: str | None = None
             ) -> GetPlan:  # fmt: skip
    """The get plan of a handle of ``conn`` on ``queue`` (opened as ``name``, default:
    the queue's), made by a get through the full path in ``generation``.

    On a queue manager with a recovery log, ``logged`` is the queue's log port
    (:meth:`QueuePersistence.get_port`): a persistent message got with an MD is got
    and logged by the plan's get in C; one got without an MD, or by a C program's raw
    entry, is left to the full path."""
    qm = conn.qmgr
    plog = qm.persistence
    logged = plog.get_port(queue, name or queue.name) if plog is not None else False
    return GetPlan(generation, queue, logged, queue.core.get_body, queue.core.get_md,
                   qm.events, conn.plan_uow, conn.plan_joined, qm.collect_expired,
                   queue.name.encode().ljust(48))


_lowlevel.set_plan_layout(PutPlan, GetPlan, Generation, MD, GMO, PMO, PLAN_GET, PLAN_PUT)

#: ``planned_put(plan, data, md, pmo) -> bool``: MQPUT by a put plan (a handle's
#: ``put_plan``, None: no plan) in one C call; False, having changed nothing, when the
#: plan does not serve the call.
planned_put = _lowlevel.planned_put
#: ``planned_get(plan, max_length, md, gmo) -> bytes | None``: MQGET by a get plan;
#: None, having changed nothing, when it does not serve the call.
planned_get = _lowlevel.planned_get
#: The same plans for a C program's MQMD, MQPMO and MQGMO as they lie in memory: the
#: entries for tpfemu._cprog (a capsule, native/include/tpf/plan_raw.h), and, for tests,
#: ``planned_put_raw(plan, data, md, pmo) -> bool`` and ``planned_get_raw(plan, md, gmo,
#: buffer) -> int | None`` with writable buffers in C layout.
plan_raw = _lowlevel.plan_raw
planned_put_raw = _lowlevel.planned_put_raw
planned_get_raw = _lowlevel.planned_get_raw
