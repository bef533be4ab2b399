"""The server-connection agent (SVRCONN): one client conversation on one connection.

The listener (the Internet daemon's MQS server, program CMQL) hands every connection to a
:class:`~tpfemu.channels.receiver.Receiver`; when the client's ID names a SVRCONN channel
the receiver hands the connection here (:func:`serve`), and the conversation runs on the
receiver's thread, so a client's MQGET with a wait blocks no other conversation.

A conversation (docs/clients.md):

1. Admission. The channel must be a defined SVRCONN channel (else STATUS NO_CHANNEL or
   CHANNEL_WRONG_TYPE); a channel with SSLCIPH takes only TLS connections and one
   without takes only plain ones (CIPHER_SPEC); fewer than MAXINST conversations may run
   on it, and fewer than MAXINSTC from the client's address (CHANNEL_UNAVAILABLE). Our
   ID answers (SHARECNV 1: one conversation a socket).
2. Authentication. The client may send a CAUT (user and password). A CHCKCLNT(REQUIRED)
   channel needs one the operator's user table accepts
   (:mod:`tpfemu.channels.svrconn_users`), else STATUS SECURITY_FAILURE.
3. MQCONN: the queue manager name must be this one (or blank), else the reply fails 2059.
   The conversation gets one queue manager Connection, made as an in-process
   application's is, with its handles and unit of work.
4. Verbs (MQOPEN, MQCLOSE, MQPUT, MQPUT1, MQGET, MQINQ, MQSET, MQCMIT, MQBACK, MQDISC),
   each behind a TSHM, answered with the same conversation and request ids. Every put
   and get goes through the queue manager's one put and get path (:mod:`tpfemu.qmgr.mqput`,
   :mod:`tpfemu.qmgr.mqget`). A HEARTBEAT request is answered. While an MQGET waits the
   connection is watched (:mod:`tpfemu.channels.svrconn_wait`): heartbeats every HBINT,
   and a client that closed, broke or stopped answering ends the get and the
   conversation. An idle conversation is watched by TCP keepalive (IBM's KAINT(AUTO):
   idle for the agreed HBINT plus 60 seconds, then probes; none with HBINT 0), so a
   client whose host or network vanished ends with its unit of work backed out.
5. The end: MQDISC commits (IBM's normal end); a connection that closes or breaks, or a
   protocol error, backs the unit of work out and closes every handle.

STOP CHL of the channel (:func:`stop_conversations`) ends its conversations, as IBM's
does: MODE(QUIESCE) after the call each is serving (its reply is sent; an MQGET waiting
with MQGMO_FAIL_IF_QUIESCING ends 2202 MQRC_CONNECTION_QUIESCING, one without it ends
with the conversation), MODE(FORCE) at once. Their units of work are backed out, and
the clients' next calls fail 2009. Until START CHL the channel refuses new conversations
(CHANNEL_UNAVAILABLE: the client's MQCONN fails 2537).

Every refusal is a console message (CHNL0121E) and a ``client-refused`` journal event.
"""

from __future__ import annotations

import contextlib
import mmap
import socket
import struct
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu.channels.svrconn_tls import TlsSocket, cipher_problem
from tpfemu.channels.svrconn_users import UserTable, table_path
from tpfemu.channels.svrconn_wait import Watch, waiting_get
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, OD, PMO
from tpfemu.qmgr import mqput
from tpfemu.qmgr.objects import ChannelDef
from tpfemu.qmgr.plans import planned_get_raw, planned_put_raw
from tpfemu.wire.fap import (
    ApiHeader,
    ConnBody,
    ControlFlags,
    FapError,
    InitialData,
    InqBody,
    NegotiationError,
    Segment,
    SegmentType,
    StatusCode,
    Verb,
    decode_caut,
    decode_verb,
    encode_id,
    encode_segment,
    heartbeat_segment,
    negotiate,
    status_segment,
)
from tpfemu.wire.fap.tsh import MAX_HEADER, our_tshm_type
from tpfemu.wire.fap.verbs import (
    API_HEADER_SIZE,
    CHAR_VALUE_LENGTH,
    TRANS_OVERHEAD,
    WHOLE_MESSAGE,
    MessageParts,
    encode_verb_segment,
    message_segment,
    our_parts,
    serve_frames,
    serve_verb,
)
from tpfemu.wire.link import Link, LinkDown

if TYPE_CHECKING:
    from tpfemu.channels.manager import ChannelManager

__all__ = ["serve"]

T = SegmentType
FIRST_TIMEOUT = 30.0  # seconds for the client's CAUT or MQCONN after the ID
#: KAINT(AUTO), IBM's: an idle conversation's TCP keepalive starts this many seconds after
#: the agreed heartbeat interval (Link.keep_alive; none when HBINT is 0).
KAINT_AUTO_EXTRA = 60
_REFUSE = ControlFlags.ERROR | ControlFlags.CLOSE_CHANNEL
_WHOLE = ControlFlags.FIRST | ControlFlags.LAST  #: a verb in one segment
_REPLY = {T.MQCONN: T.MQCONN_REPLY, T.MQDISC: T.MQDISC_REPLY, T.MQOPEN: T.MQOPEN_REPLY,
          T.MQCLOSE: T.MQCLOSE_REPLY, T.MQGET: T.MQGET_REPLY, T.MQPUT: T.MQPUT_REPLY,
          T.MQPUT1: T.MQPUT1_REPLY, T.MQSET: T.MQSET_REPLY, T.MQINQ: T.MQINQ_REPLY,
          T.MQCMIT: T.MQCMIT_REPLY, T.MQBACK: T.MQBACK_REPLY}

_HOBJ = struct.Struct("<I")  #: the Hobj of a verb's API header (at 12), our byte order
_IDS = struct.Struct(">II")  #: a TSHM's ConversationId and RequestId (at 8)
_PUT, _GET = int(T.MQPUT), int(T.MQGET)
_U32 = struct.Struct("<I")
#: MQPMO and MQGMO lengths the plans' raw entries take (PMO version 1, GMO 1 and 2).
_RAW_PMO = frozenset({PMO._layouts[1][0].size})
_RAW_GMO = frozenset({GMO._layouts[1][0].size, GMO._layouts[2][0].size})

#: The conversations running, by manager and channel name (MAXINST, MAXINSTC, STOP CHL,
#: DISP CHL), under _live_lock.
_live: weakref.WeakKeyDictionary[Any, dict[str, set[Conversation]]] = \
    weakref.WeakKeyDictionary()
_live_lock = threading.Lock()


class _Refused(Exception):
    """Refuse the conversation with STATUS ``status``; the text says why."""

    def __init__(self, text: str, status: StatusCode) -> None:
        super().__init__(text)
        self.status = status


class _Ended(Exception):
    """The conversation ended normally (MQDISC or the client's closing STATUS)."""


def serve(manager: ChannelManager, link: Link, peer: str, first: Segment,
          theirs: InitialData, definition: ChannelDef) -> None:
    """Run the client conversation whose ID (``first``, decoded ``theirs``) named SVRCONN
    channel ``definition``, on this thread, until it ends. Never raises."""
    Conversation(manager, link, peer, definition, first).run(theirs)


def _admit(manager: Any, conversation: Conversation, definition: ChannelDef) -> str:
    """Count one more conversation on its channel from its client's address: "" when
    admitted, else why not (the channel is stopped, or the conversation would pass
    MAXINST or MAXINSTC). Under the lock that :func:`stop_conversations` takes, so a
    conversation is either refused or ended by a STOP CHL, never missed by it."""
    name, address = conversation.name, conversation.address
    with _live_lock:
        if name in manager.stopped_channels:
            return "THE CHANNEL IS STOPPED: IT TAKES CLIENTS AGAIN AFTER START CHL"
        running = _live.setdefault(manager, {}).setdefault(name, set())
        if len(running) >= definition.maxinst:
            return f"MAXINST {definition.maxinst} CONVERSATIONS ALREADY RUN"
        if sum(c.address == address for c in running) >= definition.maxinstc:
            return (f"MAXINSTC {definition.maxinstc} CONVERSATIONS ALREADY RUN FROM "
                    f"{address}")
        running.add(conversation)
        return ""


def _leave(manager: Any, conversation: Conversation) -> None:
    with _live_lock:
        _live.get(manager, {}).get(conversation.name, set()).discard(conversation)


def stop_conversations(manager: Any, name: str, mode: str, *, stop: bool = True,
                       client: str = "") -> int | None:
    """STOP CHL ``name`` MODE(``mode``) of a server-connection channel: end each of its
    conversations (see the module docstring), or with ``client`` only those from that
    address (``host``, or ``host(port)`` for one connection); with ``stop`` (IBM's
    STATUS(STOPPED)) mark the channel stopped too, so that new conversations are refused
    until START CHL takes it off ``manager``'s ``stopped_channels``. Returns the number
    told to end, or None (nothing done) when the channel is stopped already."""
    with _live_lock:
        if name in manager.stopped_channels:
            return None
        if stop:
            manager.stopped_channels.add(name)
        ending = [c for c in _live.get(manager, {}).get(name, ()) if _from(c, client)]
    for conversation in ending:
        conversation.stop(mode)
    return len(ending)


def _from(conversation: Conversation, client: str) -> bool:
    """Whether ``conversation`` comes from ``client`` ("": any; ``host`` or ``host(port)``,
    compared without regard to case, as the console may have upper-cased it)."""
    if not client:
        return True
    host, _, port = client.rstrip(")").partition("(")
    address, _, own_port = conversation.peer.rpartition(":")
    return address.lower() == host.lower() and (not port or own_port == port)


def conversations(manager: Any, name: str) -> list[tuple[str, str, str, int]]:
    """The conversations running on channel ``name`` of ``manager``, oldest first: each
    one's client address and port, user ("" when it gave none), application name (""
    before its MQCONN) and the time its connection came (microseconds since the epoch)."""
    with _live_lock:
        running = list(_live.get(manager, {}).get(name, ()))
    return sorted(((c.peer, c.user, c.appl, c.since_us) for c in running),
                  key=lambda row: (row[3], row[0]))


def instances(manager: Any, name: str) -> int:
    """The conversations running on channel ``name`` of ``manager``."""
    with _live_lock:
        return len(_live.get(manager, {}).get(name, ()))


class Conversation:
    """One client conversation (see the module docstring)."""

    def __init__(self, manager: ChannelManager, link: Link, peer: str,
                 definition: ChannelDef, first: Segment) -> None:
        self.manager = manager
        self.link = link
        self.peer = peer
        self.address = peer.rsplit(":", 1)[0]  #: the client's address (MAXINSTC)
        self.definition = definition
        self.name = definition.name
        self.big = first.big_endian
        self.ebcdic = first.ebcdic
        self.user = ""
        self.conn: Any = None
        self.admitted = False
        self.hbint = 0  #: the agreed heartbeat interval (seconds; 0: none)
        self._mapping: mmap.mmap | None = None  #: for planned MQGETs (see _room)
        self._rooms: dict[int, memoryview] = {}
        self._longest_of: tuple[Any, int] | None = None  #: (a get plan, its queue's limit)
        self.stopping = ""  #: the MODE of a STOP CHL that ends this conversation
        self.appl = ""  #: the client's application name (its MQCONN's), once connected
        self.since_us = time.time_ns() // 1000  #: when the client's connection came

    def stop(self, mode: str) -> None:
        """End the conversation for STOP CHL MODE(``mode``), from another thread. QUIESCE
        shuts the connection's reading side: the call being served finishes and its reply
        goes out, and the next read (or a waiting MQGET's look) finds the end. FORCE shuts
        both sides: the conversation ends at its next read or send."""
        self.stopping = mode
        self.link.shutdown(socket.SHUT_RD if mode == "QUIESCE" else socket.SHUT_RDWR)

    def quiescing(self) -> bool:
        """A STOP CHL MODE(QUIESCE) ends this conversation."""
        return self.stopping == "QUIESCE"

    # -- messages ----------------------------------------------------------------------

    def _say(self, severity_id: str, text: str) -> None:
        self.manager.say(f"CHNL{severity_id} {self.manager.cpu} CHL {self.name} CLIENT "
                         f"{self.peer} {text}")

    def _refuse(self, status: StatusCode, text: str) -> None:
        self._say("0121E", f"REFUSED WITH STATUS {status.name}: {text}")
        self.manager.event("client-refused", self.name, channel=self.name, peer=self.peer,
                           user=self.user, status=status.name, reason=text)
        with contextlib.suppress(LinkDown):
            self.link.send_bytes(encode_segment(
                status_segment(status, flags=_REFUSE, big_endian=self.big), form="TSHC"))

    # -- the conversation ----------------------------------------------------------------

    def run(self, theirs: InitialData) -> None:
        try:
            self._admission(theirs)
            self._authenticate_and_connect()
            self._verbs()
        except _Refused as exc:
            self._refuse(exc.status, str(exc))
        except _Ended:
            pass
        except LinkDown as exc:
            if self.stopping:
                self._say("0125I", f"ENDED BY STOP CHL (MODE-{self.stopping})"
                          + ("; ITS UNIT OF WORK IS BACKED OUT" if self.conn is not None
                             and self.conn.connected else ""))
            elif self.conn is not None and self.conn.connected:
                self._say("0122W", f"CONNECTION LOST: {exc}; ITS UNIT OF WORK IS BACKED OUT")
        except FapError as exc:
            self._refuse(exc.status or StatusCode.PROTOCOL_GENERAL, f"BAD DATA: {exc}")
        except Exception as exc:  # noqa: BLE001 - the conversation must end with a reason
            self._say("0129E", f"ENDED ABNORMALLY: {exc!r}")
        finally:
            self._end()

    def _end(self) -> None:
        conn = self.conn
        if conn is not None and conn.connected:
            with contextlib.suppress(Exception):
                conn.end(commit=False)
        if self.admitted:
            _leave(self.manager, self)
        self.link.close()

    def _admission(self, theirs: InitialData) -> None:
        definition = self.definition
        if definition.chltype != "SVRCONN":
            raise _Refused(f"IT IS A {definition.chltype} CHANNEL, NOT A SVRCONN",
                           StatusCode.CHANNEL_WRONG_TYPE)
        self._check_tls(definition)
        if self.manager.closing:
            raise _Refused("THE SYSTEM IS STOPPING", StatusCode.QM_TERMINATING)
        over = _admit(self.manager, self, definition)
        if over:
            raise _Refused(over, StatusCode.CHANNEL_UNAVAILABLE)
        self.admitted = True
        maxmsgl = self.manager.offered_maxmsgl(definition)
        mine = InitialData(channel_name=self.name, qmgr_name=self.manager.qmgr_name,
                           heartbeat_interval=definition.hbint, conv_per_socket=1,
                           max_msg_len=maxmsgl, max_trans_size=maxmsgl + TRANS_OVERHEAD,
                           seq_wrap=theirs.seq_wrap)
        try:
            agreed = negotiate(mine, theirs)
        except NegotiationError as exc:
            raise _Refused(f"NEGOTIATION FAILED: {exc}",
                           exc.status or StatusCode.NEGOTIATION_FAILED) from exc
        self.link.send_bytes(encode_segment(
            Segment(T.INITIAL_DATA, payload=encode_id(agreed, big_endian=self.big),
                    big_endian=self.big), form="TSHC"))
        self.link.limit(agreed.max_trans_size)
        self.hbint = agreed.heartbeat_interval
        if self.hbint > 0:  # IBM's KAINT(AUTO): the agreed HBINT plus 60 seconds
            self.link.keep_alive(self.hbint + KAINT_AUTO_EXTRA)

    def _check_tls(self, definition: ChannelDef) -> None:
        sock = self.link.sock
        tls = sock if isinstance(sock, TlsSocket) else None
        if definition.sslciph and tls is None:
            raise _Refused("THE CHANNEL NEEDS TLS (SSLCIPH "
                           f"{definition.sslciph}); A PLAIN CONNECTION IS REFUSED",
                           StatusCode.CIPHER_SPEC)
        if tls is None:
            return
        if not definition.sslciph:
            raise _Refused("A TLS CONNECTION TO A CHANNEL WITHOUT SSLCIPH",
                           StatusCode.CIPHER_SPEC)
        problem = cipher_problem(definition.sslciph, tls.version())
        if problem:
            raise _Refused(problem, StatusCode.CIPHER_SPEC)
        if definition.sslcauth == "REQUIRED" and tls.peer_certificate() is None:
            raise _Refused("SSLCAUTH(REQUIRED): THE CLIENT SHOWED NO TRUSTED CERTIFICATE",
                           StatusCode.SSL_CLIENT_CERTIFICATE)

    def _authenticate_and_connect(self) -> None:
        seg = self.link.receive(FIRST_TIMEOUT)
        password = None
        if seg.seg_type in (T.CONAUTH_INFO, T.USERID_DATA):
            if seg.seg_type != T.CONAUTH_INFO:
                raise _Refused("ONLY CAUT USER/PASSWORD DATA IS SUPPORTED",
                               StatusCode.SECURITY_FAILURE)
            auth = decode_caut(seg.payload, seg.big_endian, ebcdic=seg.ebcdic)
            self.user, password = auth.user, auth.password
            seg = self.link.receive(FIRST_TIMEOUT)
        if self.definition.chckclnt == "REQUIRED":
            self._check_user(password)
        if seg.seg_type != T.MQCONN:
            raise FapError(f"expected MQCONN, got {_type_name(seg)}",
                           StatusCode.PROTOCOL_SEGMENT_TYPE)
        self._mqconn(seg)

    def _check_user(self, password: str | None) -> None:
        host = self.manager.host
        path = table_path(getattr(host, "home", None))
        if password is None or not self.user:
            raise _Refused("CHCKCLNT(REQUIRED): THE CLIENT GAVE NO USER AND PASSWORD",
                           StatusCode.SECURITY_FAILURE)
        if path is None or not UserTable(path).check(self.user, password):
            raise _Refused(f"USER {self.user!r} OR ITS PASSWORD IS NOT IN THE USER TABLE",
                           StatusCode.SECURITY_FAILURE)

    def _send(self, request: Segment, seg_type: SegmentType, verb: Verb) -> None:
        self.link.send_bytes(encode_verb_segment(
            seg_type, verb, flags=_WHOLE, request_id=request.request_id or 0,
            conversation_id=request.conversation_id or 0, big_endian=self.big,
            ebcdic=self.ebcdic))

    def _mqconn(self, seg: Segment) -> None:
        verb = decode_verb(seg.seg_type, seg.payload, seg.big_endian, ebcdic=seg.ebcdic)
        body = verb.conn
        assert body is not None
        qm = self.manager.host.qmgr
        wanted = body.qmgr_name.strip()
        reply = Verb(ApiHeader(), ConnBody(qm.name, body.appl_name, body.appl_type,
                                           body.accounting_token, body.options,
                                           body.xoptions, body.fcno_version,
                                           qmgr_id=qm.name))
        if wanted not in ("", "*", qm.name):
            reply.api = ApiHeader(0, cmqc.MQCC_FAILED, cmqc.MQRC_Q_MGR_NAME_ERROR)
            self._send(seg, T.MQCONN_REPLY, reply)
            raise _Refused(f"QUEUE MANAGER {wanted!r} IS NOT THIS ONE ({qm.name})",
                           StatusCode.QM_UNAVAILABLE)
        try:
            self.conn = qm.connect(appl_name=body.appl_name or "CLIENT", user=self.user)
        except errors.MQMIError as exc:
            reply.api = ApiHeader(0, exc.comp, exc.reason)
            self._send(seg, T.MQCONN_REPLY, reply)
            raise _Ended() from exc
        self._send(seg, T.MQCONN_REPLY, reply)
        self.appl = _text(body.appl_name)
        self._say("0120I", f"CONNECTED{' AS USER ' + self.user if self.user else ''}")

    # -- the verbs --------------------------------------------------------------------------

    def _verbs(self) -> None:
        """Serve verbs until the conversation ends: an MQPUT or MQGET in our byte order and
        characters by its handle's plan in one C call (verbs.serve_verb: the plan's raw
        entry, the reply laid out there), on a plain socket inside the C read-and-answer
        loop (_served) while the reads are such verbs; else straight from its frame's
        bytes (see _planned: the first call of a plan, a get's room not yet made), any
        other segment decoded first (_handle)."""
        link = self.link
        receive, decode, send = link.receive_frame, link.decode, link.send_bytes
        fd = link.descriptor()
        while True:
            if self.stopping:  # (a STOP CHL: no call after the one it let finish)
                raise LinkDown(f"stopped by STOP CHL (MODE-{self.stopping})")
            if fd >= 0 and link.idle():
                self._served(fd)
            frame = receive(None)
            reply = serve_verb(frame, self.conn.handles, self._rooms, self._longest_of)
            if reply is not None:
                send(reply)
                continue
            kind = our_tshm_type(frame)
            if (kind == _PUT or kind == _GET) and self._planned(frame, kind):
                continue
            self._handle(decode(frame))

    def _served(self, fd: int) -> None:
        """Serve requests on the socket itself (``fd``; nothing read waits in the link)
        while each read is one whole segment serve_verb answers: the C loop
        (verbs.serve_frames) sends each answer and reads the next request with the GIL
        released once a verb; the first read it does not answer goes to the link, whose
        next receive gives it (b"": the peer closed, and that receive says so).
        :raises LinkDown: the socket failed."""
        link = self.link
        try:
            rest, got, sent = serve_frames(fd, serve_verb, self.conn.handles, self._rooms,
                                           self._longest_of, link.reader.max_segment)
        except OSError as exc:
            raise LinkDown(f"receive failed: {exc}") from exc
        link.bytes_in += got
        link.took(rest, sent)

    def _handle(self, seg: Segment) -> None:
        kind = seg.seg_type
        if kind == T.HEARTBEAT:
            if seg.confirm_requested:
                self.link.send_bytes(encode_segment(
                    heartbeat_segment(request=False, big_endian=self.big), form="TSHM"))
            return
        if kind == T.STATUS_DATA:
            raise _Ended()
        reply_type = _REPLY.get(kind)
        if reply_type is None or kind == T.MQCONN:
            raise FapError(f"{_type_name(seg)} is not a verb of a connected client",
                           StatusCode.PROTOCOL_SEGMENT_TYPE)
        verb = decode_verb(kind, seg.payload, seg.big_endian, ebcdic=seg.ebcdic)
        reply = Verb(ApiHeader(0, cmqc.MQCC_OK, cmqc.MQRC_NONE, verb.api.hobj))
        try:
            _VERBS[kind](self, verb, reply)
        except errors.MQMIError as exc:
            reply.api.comp_code, reply.api.reason = exc.comp, exc.reason
            if kind == T.MQGET:
                reply.data, reply.data_length = _got(exc)
        _fill_reply(kind, verb, reply)
        self._send(seg, reply_type, reply)
        if kind == T.MQDISC:
            raise _Ended()

    # -- MQPUT and MQGET by the handle's plan, on the request's own structures ------------

    def _planned(self, frame: bytes | memoryview, kind: int) -> bool:
        """MQPUT or MQGET (``frame``: a TSHM in our byte order and characters) by its
        handle's plan through the plan's raw entry, which reads and writes the request's
        MQMD, MQPMO and MQGMO where they lie (the same plan, checks and rules as
        mqput.put/mqget.get take): True once answered; False, nothing changed, when the
        plan does not serve the call (then the general way takes it: the full path, or
        the refusal of a bad body)."""
        payload = frame[MAX_HEADER:] if type(frame) is bytes else bytes(frame[MAX_HEADER:])
        parts = our_parts(kind, payload)
        if parts is None:
            return False
        handle = self.conn.handles.get(_HOBJ.unpack_from(payload, 12)[0])
        if handle is None:
            return False
        ids = _IDS.unpack_from(frame, 8)
        if kind == _PUT:
            return self._planned_put(payload, ids, handle, parts)
        return self._planned_get(payload, ids, handle, parts)

    def _planned_put(self, payload: Any, ids: tuple[int, int], handle: Any,
                     parts: MessageParts) -> bool:
        plan = handle.put_plan
        if plan is None or parts.tail - parts.opts not in _RAW_PMO:
            return False
        structures = bytearray(payload[parts.md:parts.tail])
        view, md_length = memoryview(structures), parts.opts - parts.md
        comp, reason = cmqc.MQCC_OK, cmqc.MQRC_NONE
        try:
            if not planned_put_raw(plan, payload[parts.tail + 4:], view[:md_length],
                                   view[md_length:]):
                return False
        except errors.MQMIError as exc:  # (the structures are as they came)
            comp, reason = exc.comp, exc.reason
        self._answer(ids, T.MQPUT_REPLY, comp, reason, handle.hobj, structures, b"")
        return True

    def _planned_get(self, payload: Any, ids: tuple[int, int], handle: Any,
                     parts: MessageParts) -> bool:
        plan = handle.get_plan
        if (plan is None or parts.tail - parts.opts not in _RAW_GMO
                or _U32.unpack_from(payload, parts.tail)[0] != WHOLE_MESSAGE):
            return False
        structures = bytearray(payload[parts.md:parts.tail])
        view, md_length = memoryview(structures), parts.opts - parts.md
        room = self._rooms.get(len(structures)) or self._room(len(structures))
        if self._longest(handle, plan) > len(room):
            return False  # (a message the queue takes now might not fit: the general way)
        comp, reason = cmqc.MQCC_OK, cmqc.MQRC_NONE
        try:
            length = planned_get_raw(plan, view[:md_length], view[md_length:], room)
            if length is None:
                return False
            if length > len(room):
                comp, reason = cmqc.MQCC_WARNING, cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
            data: Any = room[:length]
        except errors.MQMIError as exc:
            comp, reason = exc.comp, exc.reason
            data, length = _got(exc)
        self._answer(ids, T.MQGET_REPLY, comp, reason, handle.hobj, structures, data,
                     length)
        return True

    def _room(self, structures: int) -> memoryview:
        """Where a planned MQGET whose MQMD and MQGMO take ``structures`` bytes puts its
        message: as much as its reply may carry in the agreed segment size (what the
        general way could send; a longer message, put before MAXMSGL was lowered, comes
        back cut with 2079). One anonymous mapping a conversation: its pages are made
        only as messages reach them."""
        limit = self.link.reader.max_segment
        if self._mapping is None:
            self._mapping = mmap.mmap(-1, limit)
        room = memoryview(self._mapping)[:limit - MAX_HEADER - API_HEADER_SIZE - structures
                                         - 4]
        self._rooms[structures] = room
        return room

    def _longest(self, handle: Any, plan: Any) -> int:
        """The longest message ``handle``'s queue takes now (its MAXMSGL and the
        profile's, as a C program's planned MQGET asks its buffer to hold), read once a
        plan (a changed definition makes a new plan)."""
        known = self._longest_of
        if known is not None and known[0] is plan:
            return known[1]
        queue = handle.queue
        longest = int(queue.definition.maxmsgl) if queue is not None else 1 << 62
        profile = self.conn.qmgr.catalog.profile
        if profile is not None:
            longest = min(longest, int(profile.maxmsgl))
        self._longest_of = (plan, longest)
        return longest

    def _answer(self, ids: tuple[int, int], reply_type: SegmentType, comp: int, reason: int,
                hobj: int, structures: bytearray, data: Any, length: int | None = None
                ) -> None:
        """Send a planned MQPUT's or MQGET's reply (``ids``: the request's ConversationId
        and RequestId): the request's structures as the call left them, the data and
        DataLength (``length``, an MQGET's whole message; None: the data's) as
        encode_verb lays out a reply in our byte order."""
        tail = len(data) if length is None else max(length, len(data))
        self.link.send_bytes(message_segment(
            reply_type, ids[1], ids[0], (0, comp, reason, hobj), structures, tail, data))

    def _open(self, verb: Verb, reply: Verb) -> None:
        od = verb.od
        assert od is not None
        handle = self.conn.open(_text(od.ObjectName), verb.options or 0,
                                _text(od.ObjectQMgrName), od.ObjectType)
        handle.write_resolved(od)  # (the reply carries the MQOD back: _fill_reply)
        reply.api.hobj = handle.hobj

    def _close(self, verb: Verb, reply: Verb) -> None:
        self.conn.close(verb.api.hobj, verb.options or cmqc.MQCO_NONE)

    def _handle_of(self, hobj: int) -> Any:
        """The open Handle ``hobj`` names (so that MQPUT and MQGET take its plan), else
        ``hobj`` itself: the call then fails as the queue manager says (2019)."""
        handle = self.conn.handles.get(hobj)
        return hobj if handle is None else handle

    def _put(self, verb: Verb, reply: Verb) -> None:
        mqput.put(self.conn, self._handle_of(verb.api.hobj), verb.data or b"", verb.md,
                  verb.pmo)

    def _put1(self, verb: Verb, reply: Verb) -> None:
        od = verb.od
        assert od is not None
        mqput.put1(self.conn, _text(od.ObjectName), verb.data or b"", verb.md, verb.pmo,
                   _text(od.ObjectQMgrName))

    def _get(self, verb: Verb, reply: Verb) -> None:
        size = verb.buffer_length
        max_length = None if size == WHOLE_MESSAGE else size
        reply.data = waiting_get(self.conn, self._handle_of(verb.api.hobj), max_length,
                                 verb.md, verb.gmo,
                                 Watch(self.link, self.hbint, self.big, self.quiescing))

    def _inq(self, verb: Verb, reply: Verb) -> None:
        inq = verb.inq
        assert inq is not None
        ints: list[int] = []
        chars = b""
        for selector in inq.selectors:
            value = self.conn.inquire(verb.api.hobj, selector)
            if isinstance(value, int):
                ints.append(value)
            else:
                chars += bytes(value)
        reply.inq = InqBody(list(inq.selectors), len(ints), len(chars), ints, chars)

    def _set(self, verb: Verb, reply: Verb) -> None:
        inq = verb.inq
        assert inq is not None
        values: dict[int, Any] = {}
        ints, chars = iter(inq.ints), inq.chars
        for selector in inq.selectors:
            if selector >= cmqc.MQCA_FIRST:
                values[selector] = chars[:CHAR_VALUE_LENGTH].rstrip(b" \0")
                chars = chars[CHAR_VALUE_LENGTH:]
            else:
                values[selector] = next(ints, 0)
        if len(values) == 1:
            (selector, value), = values.items()
            self.conn.set(verb.api.hobj, selector, value)
        else:
            self.conn.set_many(verb.api.hobj, values)

    def _commit(self, verb: Verb, reply: Verb) -> None:
        self.conn.commit()

    def _backout(self, verb: Verb, reply: Verb) -> None:
        self.conn.backout()

    def _disc(self, verb: Verb, reply: Verb) -> None:
        conn, self.conn = self.conn, None
        conn.disconnect()
        self._say("0123I", "DISCONNECTED")


_VERBS = {T.MQOPEN: Conversation._open, T.MQCLOSE: Conversation._close,
          T.MQPUT: Conversation._put, T.MQPUT1: Conversation._put1,
          T.MQGET: Conversation._get, T.MQINQ: Conversation._inq, T.MQSET: Conversation._set,
          T.MQCMIT: Conversation._commit, T.MQBACK: Conversation._backout,
          T.MQDISC: Conversation._disc}


def _fill_reply(kind: SegmentType, verb: Verb, reply: Verb) -> None:
    """The parts a reply carries back: the request's structures as the call left them."""
    if kind == T.MQOPEN:
        reply.od, reply.options = verb.od or OD(), verb.options or 0
    elif kind == T.MQCLOSE:
        reply.options = verb.options or 0
    elif kind in (T.MQPUT, T.MQPUT1):
        reply.od, reply.md, reply.pmo, reply.data = verb.od, verb.md, verb.pmo, b""
    elif kind == T.MQGET:
        reply.md, reply.gmo = verb.md, verb.gmo
        reply.data = reply.data or b""
    elif kind == T.MQINQ and reply.inq is None:
        inq = verb.inq
        reply.inq = InqBody(list(inq.selectors) if inq else [])


def _got(exc: errors.MQMIError) -> tuple[bytes, int | None]:
    """The data and DataLength an MQGET that raised ``exc`` gives back: a truncated get's
    first bytes (2079; none for 2080) and the message's whole length; else none."""
    data = getattr(exc, "message", None) or b""
    length = getattr(exc, "original_length", None)
    if not isinstance(data, bytes | bytearray | memoryview):
        data = b""
    if not isinstance(length, int) or length < len(data):
        length = None
    return bytes(data), length


def _text(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("latin-1").strip(" \0")
    return str(value).strip()


def _type_name(seg: Segment) -> str:
    try:
        return SegmentType(seg.seg_type).name
    except ValueError:
        return f"type {int(seg.seg_type):#x}"
