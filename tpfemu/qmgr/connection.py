"""A connection to the queue manager (an hconn) and its object handles (hobjs).

MQOPEN, MQCLOSE, MQINQ, MQSET, MQCMIT, MQBACK and MQDISC live here; MQPUT and MQPUT1 are
in :mod:`tpfemu.qmgr.mqput`, MQGET in :mod:`tpfemu.qmgr.mqget`. A connection is used by one
thread at a time, as IBM's hconn is without MQCNO_HANDLE_SHARE_*; connections on different
threads run in parallel.

Ending a connection with work not yet committed (docs/semantics.md):

- MQDISC commits it, as IBM MQ does on its distributed platforms for a normal disconnect;
- an entry that ends (EXITC, return or failure) with the connection open, a thread that
  dies with it open, and a stopping queue manager back it out, as IBM does when an
  application ends abnormally.
"""

from __future__ import annotations

import functools
import itertools
import operator
import threading
from collections.abc import Mapping
from typing import Any

import ecb as ecb_pkg
from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.qmgr.localq import LocalQueue
from tpfemu.qmgr.resolve import Resolved, resolve
from tpfemu.qmgr.units import UnitOfWork, limit_reached, scope_work, scopes

__all__ = ["Connection", "Handle"]

_hconns = itertools.count(1)
_INPUT = cmqc.MQOO_INPUT_AS_Q_DEF | cmqc.MQOO_INPUT_SHARED | cmqc.MQOO_INPUT_EXCLUSIVE
_BIND = cmqc.MQOO_BIND_ON_OPEN | cmqc.MQOO_BIND_NOT_FIXED | cmqc.MQOO_BIND_ON_GROUP
#: The options of which MQOPEN needs at least one (IBM counts the bind options too).
_ANY_ACCESS = (_INPUT | cmqc.MQOO_BROWSE | cmqc.MQOO_OUTPUT | cmqc.MQOO_INQUIRE
               | cmqc.MQOO_SET | _BIND)
#: Every option MQOPEN defines (cmqc.h's MQOO_* values).
_DEFINED = functools.reduce(
    operator.or_, (v for k, v in vars(cmqc).items() if k.startswith("MQOO_")), 0)
_CONTEXT = (cmqc.MQOO_PASS_IDENTITY_CONTEXT | cmqc.MQOO_PASS_ALL_CONTEXT
            | cmqc.MQOO_SET_IDENTITY_CONTEXT | cmqc.MQOO_SET_ALL_CONTEXT)
_READ_AHEAD = cmqc.MQOO_READ_AHEAD | cmqc.MQOO_NO_READ_AHEAD
#: Every option MQCLOSE defines, and the pairs of which one at most may be given.
_CLOSE_DEFINED = functools.reduce(
    operator.or_, (v for k, v in vars(cmqc).items() if k.startswith("MQCO_")), 0)
_CLOSE_PAIRS = (cmqc.MQCO_DELETE | cmqc.MQCO_DELETE_PURGE,
                cmqc.MQCO_KEEP_SUB | cmqc.MQCO_REMOVE_SUB)


def _fail(reason: int, call: str, obj: str = "") -> errors.MQMIError:
    return errors.error_for(reason, call=call, obj=obj)


def _held(resolved: Resolved) -> list[tuple[str, str]]:
    """The objects an open handle holds: every definition in its path and its queue."""
    keys = [(d.type_name, d.name) for d in resolved.path]
    local = ("QL", resolved.local.name)
    if local not in keys:
        keys.append(local)
    return keys


def _options_valid(options: int) -> bool:
    """Whether MQOPEN's ``options`` pass IBM's "Rules for validating MQI options" (else
    MQRC_OPTIONS_ERROR, 2046): only defined options; at least one access or bind
    option; at most one MQOO_INPUT_*, one MQOO_BIND_*, one read-ahead option; the
    context options (SET_*/PASS_*) only with MQOO_OUTPUT, MQOO_SAVE_ALL_CONTEXT only
    with an input option, MQOO_CO_OP only with MQOO_BROWSE, MQOO_NO_MULTICAST only with
    MQOO_OUTPUT."""
    one_of = (_INPUT, _BIND, _READ_AHEAD)
    needs = ((_CONTEXT | cmqc.MQOO_NO_MULTICAST, cmqc.MQOO_OUTPUT),
             (cmqc.MQOO_SAVE_ALL_CONTEXT, _INPUT), (cmqc.MQOO_CO_OP, cmqc.MQOO_BROWSE))
    return (not options & ~_DEFINED and bool(options & _ANY_ACCESS)
            and all(bin(options & group).count("1") <= 1 for group in one_of)
            and all(options & required for option, required in needs if options & option))


class Handle:
    """An open object: a queue (local, alias or remote), a process or the queue manager."""

    __slots__ = ("hobj", "conn", "options", "name", "kind", "resolved", "queue", "cursor",
                 "closed", "put_plan", "get_plan", "saved_context")

    def __init__(self, hobj: int, conn: Connection, options: int, name: str, kind: int,
                 resolved: Resolved | None, queue: LocalQueue | None) -> None:
        self.hobj = hobj
        self.conn = conn
        self.options = options
        self.name = name
        self.kind = kind  # MQOT_Q, MQOT_PROCESS, MQOT_Q_MGR
        self.resolved = resolved
        self.queue = queue
        self.cursor = None  # the browse cursor, made on first browse
        self.closed = False
        # The plans of its later puts and gets (tpfemu.qmgr.plans), made by the full
        # paths; closing the handle drops them.
        self.put_plan: Any = None
        self.get_plan: Any = None
        #: With MQOO_SAVE_ALL_CONTEXT: the context of the message its last successful
        #: MQGET got (its context fields, stored form, and put time), None before one or
        #: after a browse (tpfemu.qmgr.mqget saves it, tpfemu.qmgr.mqput passes it).
        self.saved_context: tuple[dict[str, Any], int] | None = None

    def __index__(self) -> int:
        """The handle as an MQHOBJ where a structure wants one (pymqi's get_handle() is
        the number: ``PMO(Context=queue.get_handle())``)."""
        return self.hobj

    @property
    def input(self) -> bool:
        return bool(self.options & _INPUT)

    @property
    def output(self) -> bool:
        return bool(self.options & cmqc.MQOO_OUTPUT)

    @property
    def browse(self) -> bool:
        return bool(self.options & cmqc.MQOO_BROWSE)

    def resolved_names(self) -> tuple[str, str]:
        """MQOPEN's ResolvedQName and ResolvedQMgrName (IBM's MQOD): the queue and queue
        manager the name resolved to (an alias's local queue; a remote queue's queue there
        and its queue manager), and blank ("", "") unless a queue was opened for browse,
        input or output. The one rule for the MQI's MQOD and C programs' MQOPEN."""
        resolved = self.resolved
        if resolved is None or not self.options & (_INPUT | cmqc.MQOO_BROWSE
                                                   | cmqc.MQOO_OUTPUT):
            return "", ""
        return (resolved.remote_q or resolved.local.name,
                resolved.remote_qmgr or self.conn.qmgr.name)

    def write_resolved(self, od: Any) -> None:
        """:meth:`resolved_names` in the MQOD ``od``, blank-padded to 48 (Version 3 or
        later; IBM ignores the fields below it)."""
        version = getattr(od, "Version", 1)
        if type(version) is not int or version < cmqc.MQOD_VERSION_3:
            return
        q_name, qmgr_name = self.resolved_names()
        od.ResolvedQName = q_name.encode("ascii").ljust(48)
        od.ResolvedQMgrName = qmgr_name.encode("ascii").ljust(48)


class _ThreadGuard:
    """Backs out the connections of a thread that dies with them open."""

    def __init__(self) -> None:
        self.connections: set[Connection] = set()

    def __del__(self) -> None:  # runs when the thread's locals are freed
        for conn in list(self.connections):
            if conn.connected:
                try:
                    conn.end(commit=False)
                except Exception:  # a finalizer must not raise
                    pass


_guards = threading.local()


class Connection:
    """One application's connection (MQCONN) to a queue manager."""

    def __init__(self, qmgr: Any, appl_name: str = "", user: str = "") -> None:
        self.qmgr = qmgr
        self.hconn = next(_hconns)
        self.appl_name = (appl_name or "TPFEMU")[:28]
        self.user = user[:12]
        from tpfemu.qmgr import context

        # The put context of MQPMO_DEFAULT_CONTEXT, in stored form once for all puts.
        origin = {"PutApplType": cmqc.MQAT_TPF, "PutApplName": self.appl_name.encode(),
                  "ApplOriginData": b"    "}
        self.origin_context = context.normalized(origin)
        self.default_context = context.normalized(dict(
            origin, UserIdentifier=self.user.encode(), AccountingToken=bytes(32),
            ApplIdentityData=b" " * 32))
        # The same prepared for MQPUT with an MD on the fast path: the record of an MD
        # left at its initial values, and the context fields MQPUT writes back: those
        # whose value is not the MD's initial one, and the names of those whose value is
        # (an MD then reads its initial value, so it need not hold them).
        self.put_record = context.base_record(self.default_context)
        self.put_outputs, self.put_initial_names = context.put_outputs(self.default_context)
        self.handles: dict[int, Handle] = {}
        self._hobjs = itertools.count(1)
        self.uow: UnitOfWork | None = None
        self.connected = True
        running = ecb_pkg.current()
        if running is not None:
            # The entry's connection ends with the entry; its open work is backed out.
            running.at_exit(lambda: self.end(commit=False) if self.connected else None)
        else:
            guard = getattr(_guards, "guard", None)
            if guard is None:
                guard = _guards.guard = _ThreadGuard()
            guard.connections.add(self)

    # -- checks ---------------------------------------------------------------------------

    def check(self, call: str) -> None:
        if not self.connected:
            raise _fail(cmqc.MQRC_HCONN_ERROR, call)
        if not self.qmgr.running:
            raise _fail(cmqc.MQRC_Q_MGR_STOPPING, call, self.qmgr.name)

    def handle(self, h: Handle | int, call: str) -> Handle:
        """The open handle ``h``. :raises MQMIError: 2018, 2019."""
        self.check(call)
        hobj = h.hobj if isinstance(h, Handle) else h
        handle = self.handles.get(hobj)
        if handle is None or handle.closed or (isinstance(h, Handle) and handle is not h):
            raise _fail(cmqc.MQRC_HOBJ_ERROR, call)
        return handle

    # -- MQOPEN / MQCLOSE -------------------------------------------------------------------

    def open(self, name: str, options: int, qmgr_name: str = "",
             object_type: int = cmqc.MQOT_Q) -> Handle:
        """MQOPEN: open a queue, a process or the queue manager.

        :raises MQMIError: 2046 bad options, 2085/2082/2087/2196/2091/2092 resolution,
            2045 input or browse on a remote queue, 2042 exclusive conflicts.
        """
        self.check("MQOPEN")
        if not _options_valid(options):
            raise _fail(cmqc.MQRC_OPTIONS_ERROR, "MQOPEN", name)
        qm = self.qmgr
        remote_qmgr = bool(qmgr_name.strip()) and qmgr_name.strip() != qm.name
        if object_type == cmqc.MQOT_Q_MGR:
            if remote_qmgr or options & (_INPUT | cmqc.MQOO_OUTPUT | cmqc.MQOO_BROWSE
                                         | cmqc.MQOO_SET):
                raise _fail(cmqc.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQOPEN", qm.name)
            return self._new_handle(options, qm.name, object_type, None, None)
        if object_type == cmqc.MQOT_PROCESS:
            if remote_qmgr or options & ~(cmqc.MQOO_INQUIRE | cmqc.MQOO_FAIL_IF_QUIESCING):
                raise _fail(cmqc.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQOPEN", name)
            if qm.catalog.find_process(name.strip()) is None:
                raise _fail(cmqc.MQRC_UNKNOWN_OBJECT_NAME, "MQOPEN", name)
            return self._new_handle(options, name.strip(), object_type, None, None)
        if object_type != cmqc.MQOT_Q:
            raise _fail(cmqc.MQRC_OBJECT_TYPE_ERROR, "MQOPEN", name)
        with qm.lock:
            resolved = resolve(qm.catalog, qm.name, name, qmgr_name)
            if resolved.remote and options & (_INPUT | cmqc.MQOO_BROWSE):
                raise _fail(cmqc.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQOPEN", name)
            if resolved.via_qmgr_name and options & (_INPUT | cmqc.MQOO_BROWSE
                                                     | cmqc.MQOO_INQUIRE | cmqc.MQOO_SET):
                # IBM: a name resolved through ObjectQMgrName can be opened for output only
                raise _fail(cmqc.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQOPEN", name)
            queue = qm.local_queue(resolved.local.name)
            first_input = False
            if options & _INPUT:
                exclusive = bool(options & cmqc.MQOO_INPUT_EXCLUSIVE)
                if queue.exclusive or (exclusive and queue.input_count):
                    raise _fail(cmqc.MQRC_OBJECT_IN_USE, "MQOPEN", name)
                first_input = queue.input_count == 0
                queue.input_count += 1
                queue.exclusive = exclusive
            if options & cmqc.MQOO_OUTPUT:
                queue.output_count += 1
            if not options & (_INPUT | cmqc.MQOO_OUTPUT):
                queue.other_count += 1
            qm.ref(_held(resolved), +1)
            handle = self._new_handle(options, name.strip(), object_type, resolved, queue)
        if first_input:  # a trigger monitor opening an initiation queue is a trigger point
            qm.triggers.on_initq_opened(queue)
        return handle

    def _new_handle(self, options, name, kind, resolved, queue) -> Handle:
        handle = Handle(next(self._hobjs), self, options, name, kind, resolved, queue)
        self.handles[handle.hobj] = handle
        return handle

    def close(self, h: Handle | int, options: int = cmqc.MQCO_NONE) -> None:
        """MQCLOSE: release the handle (and its browse cursor and lock).

        An option cmqc.h does not define, or two of the same kind (MQCO_DELETE with
        MQCO_DELETE_PURGE, MQCO_KEEP_SUB with MQCO_REMOVE_SUB), fails MQRC_OPTIONS_ERROR
        (2046) and the handle stays open. MQCO_DELETE / MQCO_DELETE_PURGE apply to dynamic
        queues, which TPF does not have: they are refused with
        MQRC_OPTION_NOT_VALID_FOR_TYPE (2045).
        """
        handle = self.handle(h, "MQCLOSE")
        if options & ~_CLOSE_DEFINED or any(options & pair == pair for pair in _CLOSE_PAIRS):
            raise _fail(cmqc.MQRC_OPTIONS_ERROR, "MQCLOSE", handle.name)
        if options & (cmqc.MQCO_DELETE | cmqc.MQCO_DELETE_PURGE):
            raise _fail(cmqc.MQRC_OPTION_NOT_VALID_FOR_TYPE, "MQCLOSE", handle.name)
        self._release(handle)

    def _release(self, handle: Handle) -> None:
        handle.closed = True
        handle.put_plan = handle.get_plan = None
        self.handles.pop(handle.hobj, None)
        if handle.cursor is not None and not (handle.queue and handle.queue.deleted):
            handle.cursor.close()
        handle.cursor = None
        queue = handle.queue
        last_input = False
        if queue is not None:
            with self.qmgr.lock:
                if handle.input:
                    queue.input_count -= 1
                    last_input = queue.input_count == 0
                    if handle.options & cmqc.MQOO_INPUT_EXCLUSIVE:
                        queue.exclusive = False
                if handle.output:
                    queue.output_count -= 1
                if not handle.options & (_INPUT | cmqc.MQOO_OUTPUT):
                    queue.other_count -= 1
                if handle.resolved is not None:
                    self.qmgr.ref(_held(handle.resolved), -1)
        if last_input and queue is not None and not queue.deleted and self.qmgr.running:
            self.qmgr.triggers.on_last_input_close(queue)  # seed 000, point 12

    # -- units of work -------------------------------------------------------------------------

    def uow_for(self, syncpoint: bool | None) -> UnitOfWork | None:
        """The unit of work a put or get joins: ``syncpoint`` True/False as the options
        say, None when they say neither (then: yes inside a TPF commit scope, else no)."""
        if syncpoint is False:
            return None
        work = scope_work(self.qmgr, self)
        if work is not None:
            return work
        if syncpoint is None:
            return None
        if self.uow is None:
            self.uow = UnitOfWork(owner=self)
        return self.uow

    def plan_uow(self) -> int:
        """The id of the unit of work a planned put or get in syncpoint joins
        (tpfemu.qmgr.plans); 0 when it holds MAXUMSGS messages already (the full path
        then fails the call with 2024)."""
        uow = self.uow_for(True)  # (no scope is open: a plan serves no call in one)
        assert uow is not None  # (True: the connection's own, made if need be)
        return 0 if limit_reached(uow, self.qmgr.catalog.profile) else uow.id

    def plan_joined(self, queue: Any) -> None:
        """Count a message a planned call in syncpoint put on or got from ``queue``, in
        the unit of work :meth:`plan_uow` named (the connection's own)."""
        uow = self.uow
        if uow is not None:
            uow.touch(queue)
            uow.count += 1

    def _own_uow_call(self, call: str) -> None:
        self.check(call)
        if scopes().tx_depth:
            # The TPF commit scope decides; MQCMIT/MQBACK may not end it early.
            raise _fail(cmqc.MQRC_ENVIRONMENT_ERROR, call, self.qmgr.name)

    def commit(self) -> None:
        """MQCMIT: make this connection's puts visible and its gets final."""
        self._own_uow_call("MQCMIT")
        if self.uow is not None:
            self.qmgr.finish(self.uow, commit=True)

    def backout(self) -> None:
        """MQBACK: undo this connection's uncommitted puts and gets."""
        self._own_uow_call("MQBACK")
        if self.uow is not None:
            self.qmgr.finish(self.uow, commit=False)

    def disconnect(self) -> None:
        """MQDISC: commit open work (IBM's rule for a normal end), close every handle."""
        if not self.connected:
            raise _fail(cmqc.MQRC_HCONN_ERROR, "MQDISC")
        self.end(commit=True)

    def end(self, commit: bool) -> None:
        """End the connection, committing or backing out its open unit of work."""
        if not self.connected:
            return
        self.connected = False
        try:
            if self.uow is not None and self.uow.holds_work:
                self.qmgr.finish(self.uow, commit=commit)
        except errors.MQMIError as exc:  # the commit failed and backed out: 2003 warning
            exc.call = "MQDISC"
            raise
        finally:  # the connection ends either way
            for handle in list(self.handles.values()):
                self._release(handle)
            with self.qmgr.lock:
                self.qmgr.connections.discard(self)

    # -- MQINQ / MQSET --------------------------------------------------------------------------

    def _object_of(self, handle: Handle) -> Any:
        qm = self.qmgr
        if handle.kind == cmqc.MQOT_Q_MGR:
            return qm.catalog.profile
        if handle.kind == cmqc.MQOT_PROCESS:
            return qm.catalog.find_process(handle.name)
        return qm.catalog.find_queue(handle.name) or (
            handle.resolved.first if handle.resolved else None
        )

    def inquire(self, h: Handle | int, selector: int) -> int | bytes:
        """MQINQ of one attribute: an int for MQIA_* selectors, blank-padded bytes for MQCA_*.

        :raises MQMIError: 2038 not open for inquire, 2067 unknown selector, 2068 not for
            this object type.
        """
        handle = self.handle(h, "MQINQ")
        if not handle.options & cmqc.MQOO_INQUIRE:
            raise _fail(cmqc.MQRC_NOT_OPEN_FOR_INQUIRE, "MQINQ", handle.name)
        from tpfemu.qmgr.attributes import inquire

        return inquire(self.qmgr, handle, self._object_of(handle), selector)

    def set(self, h: Handle | int, selector: int, value: int | bytes | str) -> None:
        """MQSET of one trigger or inhibit attribute of a queue (IBM allows only those).

        :raises MQMIError: 2040 not open for set, 2067/2068 selectors, 2075-2078 values.
        """
        handle = self.handle(h, "MQSET")
        if not handle.options & cmqc.MQOO_SET:
            raise _fail(cmqc.MQRC_NOT_OPEN_FOR_SET, "MQSET", handle.name)
        from tpfemu.qmgr.attributes import set_attribute

        set_attribute(self.qmgr, handle, self._object_of(handle), selector, value)

    def set_many(self, h: Handle | int, values: Mapping[int, int | bytes | str]) -> None:
        """MQSET of several attributes (selector -> value): all change, or none.

        :raises MQMIError: as :meth:`set`; 2065 MQRC_SELECTOR_COUNT_ERROR for none.
        """
        handle = self.handle(h, "MQSET")
        if not handle.options & cmqc.MQOO_SET:
            raise _fail(cmqc.MQRC_NOT_OPEN_FOR_SET, "MQSET", handle.name)
        from tpfemu.qmgr.attributes import set_attributes

        set_attributes(self.qmgr, handle, self._object_of(handle), values)

