"""The ROUTC bridge: fast-channel messages to traditional TPF applications, and back.

Inbound, :meth:`Bridge.deliver` (the fast receiver's port, ``FastDelivery``) takes one
nonpersistent message and starts one entry, as TPF's queue manager does:

1. ``deliver`` converts the message to an AM0SG in a 381-byte block (a longer one is
   refused: :class:`Am0sgTooLong`, and the channel dead-letters it) and creates an entry
   for **CMQB** (ours: the bridge's input program) with the AM0SG on D0;
2. CMQB puts ReplyToQ and ReplyToQMgr at EBW000 and enters **CUIW** (ENTRC), which leaves
   an LNIATA (and optionally an application) at EBW096 (``layouts.CuiwParams``); CMQB
   stores the LNIATA in the AM0SG, marks the terminal's WGTA entry as an MQ terminal
   owing the reply, puts the RCPL (origin = the LNIATA) at EBW000, and transfers to
3. **COA4**, the router, which sets the RCPL's destination to the application the WGTA
   entry names and transfers to it (ENTNC): the application runs with the AM0SG on D0
   and the RCPL at EBW000. The message never appears on a queue.

Outbound, the bridge is the dispatcher's ROUTC router (:mod:`ecb.routc`): ROUTC to an
MQ terminal becomes an MQ reply through the MQI (MQPUT, on a handle kept open, to the
saved ReplyToQ at ReplyToQMgr, which the queue manager resolves, e.g. to a transmission
queue; for a request that named no ReplyToQ, the user exit **CUIV** names the queue).
The replies go out on the bridge's reply lines, one MQI connection for each
I-stream and one more, each used by one thread at a time as IBM's hconn is: entries
replying at once on two I-streams put in parallel instead of queueing on one
connection; replies made one after the other reuse one line, and so one open handle.
ROUTC to an ordinary terminal goes to its terminal log. What cannot be delivered goes to
the dead-letter queue with a reason (:data:`REASONS`) and a console message; nothing is
lost silently. Journal events: ``bridge-in``, ``bridge-route``, ``bridge-out``, each with its
LNIATA.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from ecb import ControlTransfer, Dispatcher, Ecb, ErrorCode, Level, Programs, TpfSystemError
from ecb.blocks import CoreBlock
from tpfemu import errors
from tpfemu.bridge import cuiw
from tpfemu.bridge.layouts import (
    AM0LNI,
    AM0SG_MAX_TEXT,
    BLOCK_SIZE,
    CUIW_PARAMS,
    NO_LNIATA,
    RCPL_SIZE,
    Am0sg,
    CuiwParams,
    LayoutError,
    Lniata,
    Rcpl,
)
from tpfemu.bridge.operator import BridgeOperator
from tpfemu.bridge.terminals import ReplyContext, Terminals
from tpfemu.mq import cmqc
from tpfemu.mq.structs import MD, OD, PMO
from tpfemu.mqi import api as mqi
from tpfemu.qmgr.mqmd import dead_letter_fields, dead_letter_header
from tpfemu.qmgr.reports import passed_on

__all__ = ["Am0sgTooLong", "Bridge", "BridgeOrigin", "BridgeRequest", "REASONS"]

INPUT_PROGRAM = "CMQB"
ROUTER_PROGRAM = "COA4"
EXIT_PROGRAM = "CUIW"
CONVERT_PROGRAM = "CUIV"
DLQ_NAME = "DEAD.LETTER.QUEUE"
#: The reply queues a reply line keeps open (least recently used closed first), and how
#: long one may stay open unused (closed by the sweeper after that).
REPLY_HANDLES = 64
REPLY_HANDLE_IDLE = 2.0
_CLEAR = bytes(CUIW_PARAMS - RCPL_SIZE)

#: DLH reasons of messages the bridge dead-letters (ours, in the application feedback range).
CUIW_FAILED = cmqc.MQFB_APPL_FIRST + 1
NO_LNIATA_ASSIGNED = cmqc.MQFB_APPL_FIRST + 2
NO_APPLICATION = cmqc.MQFB_APPL_FIRST + 3
CUIV_FAILED = cmqc.MQFB_APPL_FIRST + 4
REASONS = {
    CUIW_FAILED: "CUIW raised an error",
    NO_LNIATA_ASSIGNED: "CUIW assigned no LNIATA",
    NO_APPLICATION: "COA4 found no application for the LNIATA",
    CUIV_FAILED: "CUIV raised an error",
}
#: Console messages the bridge writes (listed in docs/console.md and docs/bridge.md).
MESSAGES = {
    "MQSC0940E": "a message too long for one AM0SG block was refused",
    "MQSC0941E": "CUIW failed; the message went to the dead-letter queue",
    "MQSC0942E": "CUIW assigned no LNIATA; the message went to the dead-letter queue",
    "MQSC0943E": "COA4 found no application; the message went to the dead-letter queue",
    "MQSC0944E": "a ROUTC reply could not be put; it went to the dead-letter queue",
    "MQSC0945E": "a message could not be dead-lettered either and is lost (named)",
    "MQSC0946E": "the bridge refused a persistent message (only nonpersistent ones bridge)",
    "MQSC0947E": "the bridge's table (with its counts) could not be saved at stop",
}


class Events(Protocol):
    """The queue manager's event bus, as the bridge emits its journal events on it."""

    active: bool

    def emit(self, kind: str, queue: str, time_us: int, **fields: Any) -> None: ...


class QueueManagerPort(Protocol):
    """What the bridge needs of its queue manager: its name, processor and events."""

    name: str
    cpu: str

    @property
    def events(self) -> Events: ...


class Am0sgTooLong(errors.MQMIError):
    """A message longer than one AM0SG block holds: refused (MQRC_MSG_TOO_BIG_FOR_Q)."""


_NAMES: dict[bytes | str, str] = {}  # an MQMD name field -> its text (read once)


def _text(value: bytes | str) -> str:
    """An MQMD name field (ReplyToQ, ReplyToQMgr) as text, blanks and nulls stripped."""
    cacheable = type(value) in (bytes, str)
    found = _NAMES.get(value) if cacheable else None
    if found is None:
        if isinstance(value, (bytes, bytearray)):
            found = bytes(value).decode("ascii", "replace").strip(" \0")
        else:
            found = str(value).strip()
        if cacheable and len(_NAMES) < 4096:
            _NAMES[value] = found
    return found


class BridgeRequest(NamedTuple):
    """The origin of a CMQB entry: the message as it arrived (``md`` is the descriptor
    the channel delivered, kept, not copied: a dead-lettered request keeps it)."""

    channel: str
    reply: ReplyContext
    text: bytes
    md: MD

    def __repr__(self) -> str:
        return f"MQ BRIDGE {self.channel}"


class BridgeOrigin(NamedTuple):
    """The origin of a bridged entry once CUIW gave it a terminal (children inherit it)."""

    lniata: Lniata
    request: BridgeRequest

    def __repr__(self) -> str:
        return f"LNIATA {self.lniata} (MQ)"


@functools.lru_cache(maxsize=4096)
def _to_router(lniata: Lniata) -> bytes:
    """CMQB's EBW000-EBW103 for COA4: the RCPL (destination COA4, origin the terminal,
    AM0SG, from MQ), the rest of the CUIW area cleared."""
    return Rcpl(ROUTER_PROGRAM, lniata, from_mq=True).pack() + _CLEAR


def _close(queue: Any) -> None:
    try:
        queue.close()
    except errors.TpfEmuError:
        pass  # already closed, or the connection is gone: nothing left to release


class _ReplyLine:
    """One of the bridge's MQI connections for replies and the reply queues it keeps
    open: (ReplyToQ, ReplyToQMgr) -> (open mqi.Queue, last use). Used by one thread at a
    time (checked out of the bridge's free lines)."""

    __slots__ = ("handles", "mq")

    def __init__(self, mq: Any) -> None:
        self.mq = mq
        self.handles: OrderedDict[tuple[str, str], tuple[Any, float]] = OrderedDict()

    def put(self, key: tuple[str, str], text: bytes, md: MD, options: int) -> None:
        """MQPUT on the open handle of queue ``key`` (opened on first use, kept for the
        next replies to it). :raises MQMIError: from MQOPEN or MQPUT."""
        cached = self.handles.pop(key, None)
        if cached is not None:
            queue = cached[0]
        elif self.mq is None:
            raise errors.error_for(cmqc.MQRC_CONNECTION_BROKEN, call="ROUTC BRIDGE",
                                   obj=key[0])
        else:
            od = OD(ObjectName=key[0].encode("ascii"), ObjectQMgrName=key[1].encode("ascii"))
            queue = mqi.Queue(self.mq, od, cmqc.MQOO_OUTPUT)
        try:
            queue.put(text, md, PMO(Options=options))
        except errors.MQMIError:
            _close(queue)
            raise
        self.handles[key] = (queue, time.monotonic())
        if len(self.handles) > REPLY_HANDLES:
            _close(self.handles.popitem(last=False)[1][0])

    def close(self, idle: float) -> None:
        """Close the reply queues unused for ``idle`` seconds."""
        now = time.monotonic()
        for key, (queue, used) in list(self.handles.items()):
            if now - used >= idle:
                del self.handles[key]
                _close(queue)

    def disconnect(self) -> None:
        """End the line's connection (its queues closed first); later puts fail 2009."""
        mq, self.mq = self.mq, None
        if mq is not None and mq.is_connected:
            try:
                mq.disconnect()
            except errors.MQMIError:
                pass


_new_tuple = tuple.__new__  # a named tuple made without its generated __new__ (a call less)


def _reply_context(channel: str, md: MD) -> ReplyContext:
    fmt = md.Format
    return _new_tuple(ReplyContext, (
        _text(md.ReplyToQ), _text(md.ReplyToQMgr), bytes(md.MsgId), bytes(md.CorrelId),
        md.Report, md.Persistence, md.Priority,
        fmt if type(fmt) is bytes else fmt.encode("ascii") if isinstance(fmt, str)
        else bytes(fmt), md.CodedCharSetId, md.Encoding, channel, md.Expiry,
        time.monotonic()))


class Bridge:
    """The ROUTC bridge of one system; build it, then :meth:`start` it.

    :param qmgr: the queue manager (its name, processor and event bus).
    :param programs: the program table (CMQB, COA4 and a default CUIW are loaded where no
        program has that name yet).
    :param dispatcher: the dispatcher that runs the entries; the bridge becomes its ROUTC
        router.
    :param say: the console sink.
    :param home: where the LNIATA table is kept (``bridge.json``); None: in memory.
    """

    def __init__(self, qmgr: QueueManagerPort, programs: Programs, dispatcher: Dispatcher,
                 say: Any, home: Path | None = None) -> None:
        self.qmgr = qmgr
        self.programs = programs
        self.dispatcher = dispatcher
        self.say = say
        self.terminals = Terminals(home)
        #: What the ZBRDG console command drives (:class:`BridgeOperator`).
        self.operator = BridgeOperator(self.terminals)
        self._mq: Any = None  # the bridge's MQI connection (tpfemu.mqi.QueueManager)
        self._mq_lock = threading.Lock()  # (for _mq: dead letters)
        #: The reply lines not in use, the one used last at the end; all of them.
        self._free: list[_ReplyLine] = []
        self._lines: list[_ReplyLine] = []
        self._lines_changed = threading.Condition(threading.Lock())
        self._stopping = threading.Event()
        self._sweeper: threading.Thread | None = None
        self.delivered = self.replies = self.outputs = self.dead_letters = 0

    def start(self) -> Bridge:
        """Load the default programs, become the ROUTC router, connect to the MQI."""
        defaults = {INPUT_PROGRAM: self._cmqb, ROUTER_PROGRAM: self._coa4,
                    EXIT_PROGRAM: cuiw.default_cuiw(self.terminals),
                    CONVERT_PROGRAM: cuiw.default_cuiv()}
        for name, fn in defaults.items():
            if self.programs.get(name) is None:
                self.programs.load(name, fn)
        self._mq = mqi.connect(self.qmgr.name)  # outside any entry: it lasts
        self._lines = [_ReplyLine(mqi.connect(self.qmgr.name))
                       for _ in range(self.dispatcher.istreams + 1)]
        self._free = list(self._lines)
        self.dispatcher.router = self
        self._sweeper = threading.Thread(target=self._sweep_loop, daemon=True,
                                         name=f"bridge {self.qmgr.name} reply handles")
        self._sweeper.start()
        return self

    def stop(self) -> None:
        """Stop routing ROUTC and disconnect (after the entries have finished)."""
        if self.dispatcher.router is self:
            self.dispatcher.router = None
        try:
            self.terminals.save()
        except OSError as exc:
            self._say("MQSC0947E", f"BRIDGE TABLE NOT SAVED AT STOP: {exc}")
        self._stopping.set()
        if self._sweeper is not None:
            self._sweeper.join(5)
        with self._all_lines():
            for line in self._lines:
                line.close(float("inf"))
                line.disconnect()
        mq, self._mq = self._mq, None
        if mq is not None and mq.is_connected:
            try:
                mq.disconnect()
            except errors.MQMIError:
                pass  # the queue manager stopped first: its connections are gone

    # -- inbound ----------------------------------------------------------------------------

    def deliver(self, channel: str, md: MD, data: bytes) -> None:
        """Bridge one nonpersistent message from fast receiver ``channel`` (the fast
        receiver's ``FastDelivery`` port): an entry for CMQB with the AM0SG on D0.
        ``md`` is kept, not copied (a dead-lettered request keeps it): pass a descriptor
        of this message's own, as the channel does.

        :raises Am0sgTooLong: the data does not fit one AM0SG block (MQRC 2030).
        :raises MQMIError: a persistent message (MQRC_PERSISTENCE_ERROR): not for the bridge.
        :raises CreateRefused: the dispatcher is stopping.
        """
        if md.Persistence == cmqc.MQPER_PERSISTENT:
            self._say("MQSC0946E", f"BRIDGE REFUSED A PERSISTENT MESSAGE FROM CHL {channel}")
            raise errors.error_for(cmqc.MQRC_PERSISTENCE_ERROR, call="ROUTC BRIDGE",
                                   obj=channel)
        if len(data) > AM0SG_MAX_TEXT:
            self._say("MQSC0940E", f"BRIDGE REFUSED A {len(data)}-BYTE MESSAGE FROM CHL "
                      f"{channel} MSGID {bytes(md.MsgId).hex().upper()}: AN AM0SG BLOCK "
                      f"HOLDS {AM0SG_MAX_TEXT} BYTES OF TEXT")
            exc = Am0sgTooLong(errors.MQCC_FAILED, cmqc.MQRC_MSG_TOO_BIG_FOR_Q,
                               call="ROUTC BRIDGE", obj=channel)
            exc.hint = f"an AM0SG block holds {AM0SG_MAX_TEXT} bytes of text"
            raise exc
        text = bytes(data)
        request = _new_tuple(BridgeRequest, (channel, _reply_context(channel, md), text, md))
        block = _new_tuple(Am0sg, (text, NO_LNIATA, True, INPUT_PROGRAM)).pack()
        self.dispatcher.creec(INPUT_PROGRAM, block, b"", origin=request)
        self.delivered += 1

    def _cmqb(self, ecb: Ecb) -> None:
        """CMQB: CUIW, the WGTA mark, the RCPL; then COA4."""
        request = ecb.origin
        if not isinstance(request, BridgeRequest):
            ecb.serrc("CMQB runs only as the entry the ROUTC bridge creates")
            return
        reply = request.reply
        ebw = ecb.ebw
        area = memoryview(ebw)  # our own writes: the work area's checks are not needed
        area[0:CUIW_PARAMS] = CuiwParams(reply.reply_to_q, reply.reply_to_qmgr).pack()
        try:
            ecb.entrc(EXIT_PROGRAM)
            lniata, application = CuiwParams.results_of(ebw)
        except (Exception, ControlTransfer) as exc:
            self._dead_letter(request, CUIW_FAILED, "MQSC0941E",
                              f"CUIW FAILED FOR REPLYTOQ {reply.reply_to_q} REPLYTOQMGR "
                              f"{reply.reply_to_qmgr}: {exc!r}")
            return
        if lniata == NO_LNIATA:
            self._dead_letter(request, NO_LNIATA_ASSIGNED, "MQSC0942E",
                              f"CUIW ASSIGNED NO LNIATA TO REPLYTOQ {reply.reply_to_q} "
                              f"REPLYTOQMGR {reply.reply_to_qmgr}")
            return
        block = ecb.block(Level.D0)
        assert block is not None  # CREEC put the AM0SG there
        memoryview(block)[AM0LNI:AM0LNI + 3] = lniata
        self.terminals.mark_mq(lniata, reply, application)
        ecb.origin = _new_tuple(BridgeOrigin, (lniata, request))
        area[0:CUIW_PARAMS] = _to_router(lniata)
        if self.qmgr.events.active:
            self._journal("bridge-in", "", lniata, request, channel=request.channel)
        ecb.entnc(ROUTER_PROGRAM)

    def _coa4(self, ecb: Ecb) -> None:
        """COA4: route the input message to the application the terminal's WGTA entry
        names (RCPL destination := that program), or dead-letter it."""
        try:
            rcpl = Rcpl.unpack(ecb.ebw[0:16])
        except LayoutError as exc:
            ecb.serrc(f"COA4: the RCPL at EBW000 is not readable: {exc}")
            return
        lniata = rcpl.origin
        if not isinstance(lniata, Lniata):
            ecb.serrc(f"COA4: the RCPL origin {lniata} is not a terminal")
            return
        entry = self.terminals.wgta.get(lniata)
        application = entry.application if entry is not None else None
        origin = ecb.origin
        if application is None or self.programs.get(application) is None:
            if not isinstance(origin, BridgeOrigin):
                ecb.serrc(f"COA4: no application for LNIATA {lniata}")
                return
            what = "NO APPLICATION" if application is None else \
                f"APPLICATION {application} NOT LOADED"
            self._dead_letter(origin.request, NO_APPLICATION, "MQSC0943E",
                              f"COA4 FOUND {what} FOR LNIATA {lniata}")
            return
        memoryview(ecb.ebw)[0:RCPL_SIZE] = Rcpl.packed(application, lniata, True, rcpl.from_mq)
        if isinstance(origin, BridgeOrigin) and self.qmgr.events.active:
            self._journal("bridge-route", "", lniata, origin.request, application=application)
        ecb.entnc(application)

    # -- outbound (ROUTC) --------------------------------------------------------------------

    def routc(self, ecb: Ecb, rcpl: bytes, block: CoreBlock) -> None:
        """ROUTC's router (:class:`ecb.routc.MessageRouter`): an MQ reply for an MQ
        terminal, the terminal log for an ordinary one.

        :raises TpfSystemError: E0603 an unreadable RCPL or AM0SG, or not an L1 block;
            E0602 a destination that is not a terminal of this system.
        """
        try:
            route = Rcpl.unpack(rcpl)
            if len(block) != BLOCK_SIZE:
                raise LayoutError(f"a terminal message travels in a {BLOCK_SIZE}-byte block, "
                                  f"not {len(block)}")
            if not route.am0sg:
                raise LayoutError("only AM0SG messages are routed (the RCPL's X'20' flag)")
            text = Am0sg.text_of(block)
        except LayoutError as exc:
            raise TpfSystemError(ErrorCode.ROUTC_BAD_MESSAGE, "ROUTC", str(exc)) from None
        lniata = route.destination
        if not isinstance(lniata, Lniata):
            raise TpfSystemError(ErrorCode.ROUTC_UNKNOWN_DESTINATION, "ROUTC",
                                 f"destination {lniata} is a program: ROUTC to programs is "
                                 "not supported")
        entry = self.terminals.wgta.get(lniata)
        if entry is None:
            raise TpfSystemError(ErrorCode.ROUTC_UNKNOWN_DESTINATION, "ROUTC",
                                 f"LNIATA {lniata} is not a terminal of this system")
        if entry.mq:
            self._reply(ecb, lniata, text)
        else:
            self.terminals.log_output(lniata, text, ecb.ecb_id, ecb.program)
            self.outputs += 1
            self._journal("bridge-out", "", lniata, None, length=len(text), terminal=True)

    def _reply(self, ecb: Ecb, lniata: Lniata, text: bytes) -> None:
        """The MQ reply to the request this MQ terminal owes."""
        origin = ecb.origin
        if isinstance(origin, BridgeOrigin) and origin.lniata == lniata:
            reply: ReplyContext | None = origin.request.reply
        else:
            reply = self.terminals.replies.get(lniata)
        if reply is None:
            raise TpfSystemError(ErrorCode.ROUTC_UNKNOWN_DESTINATION, "ROUTC",
                                 f"MQ terminal {lniata} has no request to answer (requests "
                                 "do not survive a restart)")
        report = reply.report
        md = MD(MsgType=cmqc.MQMT_REPLY, Format=reply.format, CodedCharSetId=reply.ccsid,
                Encoding=reply.encoding, Priority=reply.priority,
                Persistence=reply.persistence,
                CorrelId=reply.correl_id if report & cmqc.MQRO_PASS_CORREL_ID
                else reply.msg_id)
        md.Expiry, md.Report = passed_on(report, reply.remaining_expiry())
        options = cmqc.MQPMO_NO_SYNCPOINT
        if report & cmqc.MQRO_PASS_MSG_ID:
            md.MsgId = reply.msg_id
        else:
            options |= cmqc.MQPMO_NEW_MSG_ID
        target = (reply.reply_to_q, reply.reply_to_qmgr)
        try:
            if not target[0]:
                target = self._cuiv(ecb, lniata)
            self._put_reply(target, text, md, options)
        except errors.MQMIError as exc:
            self._dead_letter_reply(lniata, target, reply, text, md, exc)
            return
        self.terminals.count_output(lniata)
        self.replies += 1
        if self.qmgr.events.active:
            self._journal("bridge-out", target[0], lniata, None, length=len(text),
                          msg_id=bytes(md.MsgId), correl_id=bytes(md.CorrelId),
                          reply_to_qmgr=target[1])

    def _cuiv(self, ecb: Ecb, lniata: Lniata) -> tuple[str, str]:
        """CUIV: where ROUTC output to MQ terminal ``lniata`` goes when its request named
        no ReplyToQ (queue, queue manager). Entered (ENTRC) on the issuing ECB with the
        LNIATA at EBW096; the ECB's EBW000-EBW103 are restored afterwards.

        :raises MQMIError: CUIV failed (reason CUIV_FAILED) or named no queue
            (MQRC_MISSING_REPLY_TO_Q).
        """
        area = memoryview(ecb.ebw)
        saved = bytes(area[0:CUIW_PARAMS])
        area[0:CUIW_PARAMS] = CuiwParams("", "", lniata).pack()
        try:
            ecb.entrc(CONVERT_PROGRAM)
            named = CuiwParams.unpack(ecb.ebw)
        except (Exception, ControlTransfer) as exc:
            error = errors.MQMIError(errors.MQCC_FAILED, CUIV_FAILED, call="ROUTC BRIDGE",
                                     obj=str(lniata))
            error.hint = f"CUIV failed: {exc!r}"
            raise error from None
        finally:
            area[0:CUIW_PARAMS] = saved
        if not named.reply_to_q:
            raise errors.error_for(cmqc.MQRC_MISSING_REPLY_TO_Q, call="ROUTC BRIDGE",
                                   obj=str(lniata))
        return named.reply_to_q, named.reply_to_qmgr

    def _put_reply(self, target: tuple[str, str], text: bytes, md: MD,
                   options: int) -> None:
        """MQPUT the reply on a reply line (the one used last that is free; waits while
        every line is busy). :raises MQMIError: from MQOPEN or MQPUT, 2009 once the
        bridge has stopped."""
        with self._lines_changed:
            while not self._free:
                self._lines_changed.wait()
            line = self._free.pop()
        try:
            line.put(target, text, md, options)
        finally:
            with self._lines_changed:
                self._free.append(line)
                self._lines_changed.notify()

    @contextlib.contextmanager
    def _all_lines(self) -> Iterator[None]:
        """Hold every reply line (waiting for those in use) for the block's time."""
        with self._lines_changed:
            while len(self._free) < len(self._lines):
                self._lines_changed.wait()
            yield

    def _sweep_loop(self) -> None:
        """Close reply queues left unused, so that they do not stay open (and in use for
        the operator's DELETE) longer than :data:`REPLY_HANDLE_IDLE` seconds or so."""
        while not self._stopping.wait(REPLY_HANDLE_IDLE / 2):
            with self._all_lines():
                for line in self._lines:
                    line.close(REPLY_HANDLE_IDLE)

    # -- dead letters, journal, console ------------------------------------------------------

    def _connection(self) -> Any:
        mq = self._mq
        if mq is None:
            raise errors.error_for(cmqc.MQRC_CONNECTION_BROKEN, call="ROUTC BRIDGE",
                                   obj=self.qmgr.name)
        return mq

    def _dead_letter(self, request: BridgeRequest, reason: int, message_id: str,
                     text: str) -> None:
        """Put a bridged request on the dead-letter queue behind an MQDLH (``reason``),
        its MQMD kept (context included: MQPMO_SET_ALL_CONTEXT), Format MQDEAD, Expiry
        what is left of it."""
        reply = request.reply
        md = MD(**dead_letter_fields(request.md.get()))
        md.Expiry = reply.remaining_expiry()
        dlh = dead_letter_header(reason, "", self.qmgr.name, fmt=reply.format,
                                 encoding=reply.encoding, ccsid=reply.ccsid,
                                 appl_type=cmqc.MQAT_TPF, appl_name=INPUT_PROGRAM)
        self._put_dead_letter(dlh.pack() + request.text, md, message_id, text,
                              cmqc.MQPMO_SET_ALL_CONTEXT)

    def _dead_letter_reply(self, lniata: Lniata, target: tuple[str, str], reply: ReplyContext,
                           text: bytes, md: MD, exc: errors.MQMIError) -> None:
        """A reply the MQI (or CUIV) refused goes to the dead-letter queue with the
        reason; DestQName and DestQMgrName are its destination (``target``)."""
        queue, qmgr = target
        dlh = dead_letter_header(exc.reason, queue, qmgr,
                                 fmt=reply.format, encoding=reply.encoding, ccsid=reply.ccsid,
                                 appl_type=cmqc.MQAT_TPF, appl_name="ROUTC")
        self._put_dead_letter(
            dlh.pack() + text, MD(**dead_letter_fields(md.get())), "MQSC0944E",
            f"ROUTC REPLY FROM LNIATA {lniata} TO {queue or '(NO REPLYTOQ)'} AT "
            f"{qmgr or self.qmgr.name} NOT PUT: {REASONS.get(exc.reason, exc.reason_name)}")

    def _put_dead_letter(self, data: bytes, md: MD, message_id: str, text: str,
                         options: int = 0) -> None:
        try:
            with self._mq_lock:
                self._connection().put1(DLQ_NAME, data, md,
                                        PMO(Options=cmqc.MQPMO_NO_SYNCPOINT | options))
        except errors.MQMIError as exc:
            self._say(message_id, f"{text} - MESSAGE MSGID {bytes(md.MsgId).hex().upper()} "
                      f"LOST: DEAD-LETTER QUEUE REFUSED IT ({exc.reason_name})")
            self._say("MQSC0945E", f"MESSAGE MSGID {bytes(md.MsgId).hex().upper()} "
                      "COULD NOT BE DEAD-LETTERED AND IS LOST")
            return
        self.dead_letters += 1
        self._say(message_id, f"{text} - MESSAGE PUT TO {DLQ_NAME}")

    def _journal(self, kind: str, queue: str, lniata: Lniata, request: BridgeRequest | None,
                 **fields: Any) -> None:
        events = self.qmgr.events
        if not events.active:
            return
        if request is not None:
            fields.setdefault("msg_id", request.reply.msg_id)
            fields.setdefault("correl_id", request.reply.correl_id)
            fields.setdefault("length", len(request.text))
            fields.setdefault("priority", request.reply.priority)
            fields.setdefault("persistent", False)
        events.emit(kind, queue, time.time_ns() // 1000, lniata=str(lniata), **fields)

    def _say(self, message_id: str, text: str) -> None:
        self.say(f"{message_id} {self.qmgr.cpu} {text}")

    # -- for tests, the console and the demo -------------------------------------------------

    def terminal_log(self, lniata: Lniata | str) -> list[bytes]:
        """The texts ROUTC sent to ordinary terminal ``lniata``, oldest first."""
        key = lniata if isinstance(lniata, Lniata) else Lniata.parse(lniata)
        return [out.text for out in self.terminals.output(key)]

