"""The TCP client: pymqi's client connections, over a SVRCONN channel.

:class:`TcpTransport` is the :class:`~tpfemu.mqi.binding.ClientTransport` that
``tpfemu.mqi`` installs: ``connect(target, qmgr_name, options)`` opens a TCP (or TLS)
connection to the first address of the target that answers, exchanges IDs naming the
channel, sends the user and password (CAUT) when given, and MQCONN. It returns a
:class:`ClientConnection`, which has the queue manager Connection API the MQI layer uses
(``open``, ``close``, ``inquire``, ``set``, ``set_many``, ``commit``, ``backout``,
``disconnect``, ``end``) plus ``put``, ``put1`` and ``get`` (the calls
:mod:`tpfemu.qmgr.mqput`/:mod:`tpfemu.qmgr.mqget` make in process). Each call is one
request and its reply behind a TSHM; none holds any MQ rule: the server runs the call
through the queue manager's one path and the reply's completion code and reason become
the :class:`~tpfemu.errors.MQMIError` pymqi raises.

The reasons a client sees (as IBM's client does):

- 2538 MQRC_HOST_NOT_AVAILABLE: no address of the connection name accepts a connection;
- 2540 MQRC_UNKNOWN_CHANNEL_NAME: the server defines no channel of that name;
- 2539 MQRC_CHANNEL_CONFIG_ERROR: the channel of that name is not a server-connection
  channel (client and server cannot agree on it);
- 2059 MQRC_Q_MGR_NOT_AVAILABLE: the channel's TLS setting does not match the
  connection's, or the queue manager is stopping;
- 2035 MQRC_NOT_AUTHORIZED: the user and password were refused;
- 2537 MQRC_CHANNEL_NOT_AVAILABLE: the channel already runs MAXINST conversations (or
  MAXINSTC from this client's address);
- 2010 MQRC_DATA_LENGTH_ERROR: an MQPUT's or MQPUT1's data, or an MQGET's BufferLength,
  is longer than the MAXMSGL the two ends agreed;
- 2009 MQRC_CONNECTION_BROKEN: the connection broke after it was made (the server was
  killed or closed it, or sent nothing for the receive timeout of the agreed HBINT);
  every later call fails 2009 too.

A ClientConnection is used by one thread at a time (MQCNO_HANDLE_SHARE_NONE).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import socket
import ssl
import threading
from collections.abc import Callable
from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.mqi.binding import ClientTarget, TlsSettings
from tpfemu.wire.fap import (
    ApiHeader,
    ConnAuth,
    ConnBody,
    ControlFlags,
    FapError,
    InitialData,
    InqBody,
    Segment,
    SegmentType,
    StatusCode,
    Verb,
    decode_id,
    decode_status,
    decode_verb,
    encode_caut,
    encode_id,
    encode_segment,
    heartbeat_segment,
)
from tpfemu.wire.fap.byteorder import from_wire
from tpfemu.wire.fap.initial import receive_timeout
from tpfemu.wire.fap.tsh import MAX_HEADER, our_tshm_type
from tpfemu.wire.fap.verbs import (
    API_HEADER_SIZE,
    CHAR_VALUE_LENGTH,
    TRANS_OVERHEAD,
    WHOLE_MESSAGE,
    api_result,
    encode_verb_segment,
    exchange_message,
    message_parts,
    message_segment,
    our_parts,
    reply_parts,
)
from tpfemu.wire.link import Link, LinkDown
from tpfemu.wire.tls import TLS12_ONLY, TLS13_ONLY

__all__ = ["ClientConnection", "ClientHandle", "TcpTransport"]

T = SegmentType
CONNECT_TIMEOUT = 10.0  #: seconds to wait for a TCP connection and for the ID answer
_MAX_TRANS = 100 * 1024 * 1024 + TRANS_OVERHEAD  #: what the client offers (IBM's MAXMSGL)
_hconns = itertools.count(1_000_001)
_WHOLE = ControlFlags.FIRST | ControlFlags.LAST  #: a verb in one segment
#: A message verb's bytes before its structures and after them (TSHM, API header; tail).
_BEFORE_STRUCTURES = MAX_HEADER + API_HEADER_SIZE + 4
#: The structures with every field at its initial value.
_MD_INITIAL, _PMO_INITIAL, _GMO_INITIAL = MD().pack(), PMO().pack(), GMO().pack()
#: The reasons of a truncated MQGET, whose reply carries data and the whole length.
_TRUNCATED = frozenset({cmqc.MQRC_TRUNCATED_MSG_ACCEPTED, cmqc.MQRC_TRUNCATED_MSG_FAILED})
#: STATUS codes refusing a start -> the reason the client sees.
_REFUSALS: dict[int, int] = {
    StatusCode.NO_CHANNEL: cmqc.MQRC_UNKNOWN_CHANNEL_NAME,
    StatusCode.CHANNEL_WRONG_TYPE: cmqc.MQRC_CHANNEL_CONFIG_ERROR,
    StatusCode.SECURITY_FAILURE: cmqc.MQRC_NOT_AUTHORIZED,
    StatusCode.CHANNEL_UNAVAILABLE: cmqc.MQRC_CHANNEL_NOT_AVAILABLE,
    StatusCode.SSL_CLIENT_CERTIFICATE: cmqc.MQRC_NOT_AUTHORIZED,
}


def _error(reason: int, call: str, hint: str = "", obj: str = "") -> errors.MQMIError:
    err = errors.error_for(reason, call=call, obj=obj)
    err.hint = hint
    return err


def _tls_context(tls: TlsSettings) -> ssl.SSLContext:
    """The client's TLS context: trust the key repository's CA certificates (a PEM file
    or a directory of them); present ``certificate_label`` (a PEM holding the client's
    certificate and key, relative to the key repository's directory) when given."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    spec = tls.cipher_spec.upper()
    if spec in TLS13_ONLY:
        context.minimum_version = ssl.TLSVersion.TLSv1_3
    elif spec in TLS12_ONLY:
        context.maximum_version = ssl.TLSVersion.TLSv1_2
    repo = tls.key_repository
    if repo and os.path.isdir(repo):
        context.load_verify_locations(capath=repo)
    elif repo:
        context.load_verify_locations(cafile=repo if os.path.exists(repo) else repo + ".pem")
    else:
        context.load_default_certs()
    if tls.certificate_label:
        label = tls.certificate_label
        base = repo if os.path.isdir(repo) else os.path.dirname(repo)
        path = label if os.path.isabs(label) else os.path.join(base, label)
        context.load_cert_chain(path if path.endswith(".pem") else path + ".pem")
    context.check_hostname = bool(tls.peer_name)
    return context


class TcpTransport:
    """The client transport over TCP (see the module docstring)."""

    def connect(self, target: ClientTarget, qmgr_name: str, options: int) -> ClientConnection:
        """MQCONNX over ``target``.
        :raises MQMIError: 2538, 2540, 2539, 2059, 2035, 2537, 2009."""
        sock = self._socket(target, qmgr_name)
        conn = ClientConnection(Link(sock, max_segment=_MAX_TRANS), target, qmgr_name)
        try:
            conn.start(options)
        except BaseException:
            conn.link.close()
            raise
        return conn

    def _socket(self, target: ClientTarget, qmgr_name: str) -> socket.socket:
        failures = []
        for host, port in target.addresses:
            try:
                sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
            except OSError as exc:
                failures.append(f"{host}({port}): {exc.strerror or exc}")
                continue
            if target.tls is None:
                return sock
            try:
                return _tls_context(target.tls).wrap_socket(
                    sock, server_hostname=target.tls.peer_name or host)
            except (OSError, ssl.SSLError) as exc:
                sock.close()
                raise _error(cmqc.MQRC_Q_MGR_NOT_AVAILABLE, "MQCONNX",
                             f"TLS with channel {target.channel} at {host}({port}) "
                             f"failed: {exc}", qmgr_name) from exc
        raise _error(cmqc.MQRC_HOST_NOT_AVAILABLE, "MQCONNX",
                     f"the client finds no listener for channel {target.channel} at "
                     + ", ".join(failures), qmgr_name)


class ClientHandle:
    """An object opened by a client connection (the MQI layer's Handle, remotely)."""

    __slots__ = ("hobj", "conn", "options", "name", "kind", "closed", "put_plan", "get_plan")

    def __init__(self, hobj: int, conn: ClientConnection, options: int, name: str,
                 kind: int) -> None:
        self.hobj = hobj
        self.conn = conn
        self.options = options
        self.name = name
        self.kind = kind
        self.closed = False
        self.put_plan: Any = None  # no C plans: every call goes to the server
        self.get_plan: Any = None


class ClientConnection:
    """A client's connection to a queue manager through a SVRCONN channel."""

    remote = True  #: the MQI layer sends MQPUT/MQPUT1/MQGET here (tpfemu.mqi.api)

    def __init__(self, link: Link, target: ClientTarget, qmgr_name: str) -> None:
        self.link = link
        self.target = target
        self.qmgr_name = qmgr_name
        self.hconn = next(_hconns)
        self.handles: dict[int, ClientHandle] = {}
        self.connected = False
        self.broken = False
        self._requests = itertools.count(1)
        self._lock = threading.Lock()
        self.big = False
        self.max_trans = _MAX_TRANS  #: the agreed largest segment (from the ID exchange)
        #: The agreed MAXMSGL (the smaller end's): longer data or buffers fail 2010.
        self.max_msg = _MAX_TRANS - TRANS_OVERHEAD
        #: Seconds a reply may keep the server silent (no reply, no heartbeat) before the
        #: connection counts as broken: the agreed HBINT's receive timeout (None: none).
        self.silence: float | None = None
        self._silence_ms = -1  #: the same in milliseconds for exchange_message (-1: none)
        self.heartbeats = 0  #: heartbeat requests the server sent (each answered)
        #: The socket's descriptor for exchange_message: a plain TCP socket only (a TLS
        #: connection's bytes go through its SSL object: the Python codec), -1 otherwise.
        self._fd = link.sock.fileno() if type(link.sock) is socket.socket else -1

    # -- start: ID, CAUT, MQCONN ----------------------------------------------------------

    def start(self, options: int) -> None:
        target = self.target
        offer = min(target.max_msg_length, _MAX_TRANS - TRANS_OVERHEAD)
        mine = InitialData(channel_name=target.channel, qmgr_name="",
                           conv_per_socket=1, max_trans_size=offer + TRANS_OVERHEAD,
                           max_msg_len=offer, heartbeat_interval=target.heartbeat_interval)
        try:
            self.link.send_bytes(encode_segment(
                Segment(T.INITIAL_DATA, payload=encode_id(mine)), form="TSHC"))
            answer = self.link.receive(CONNECT_TIMEOUT)
            if answer.seg_type == T.STATUS_DATA:
                self._refused(answer)
            if answer.seg_type != T.INITIAL_DATA:
                raise FapError(f"the server answered the ID with segment type "
                               f"{int(answer.seg_type):#x}", StatusCode.PROTOCOL_ID_ERROR)
            agreed = decode_id(answer.payload, answer.big_endian)
            self.link.limit(max(agreed.max_trans_size, 64 * 1024))
            self.max_trans = agreed.max_trans_size
            self.max_msg = agreed.max_msg_len
            self.silence = receive_timeout(agreed.heartbeat_interval)
            self._silence_ms = -1 if self.silence is None else int(self.silence * 1000)
            if target.user is not None:
                self.link.send_bytes(encode_segment(Segment(T.CONAUTH_INFO, payload=encode_caut(
                    ConnAuth(target.user, target.password or ""))), form="TSHC"))
            conn = ConnBody(self.qmgr_name, _appl_name(), cmqc.MQAT_DEFAULT, options=3,
                            xoptions=options)
            reply = self._call(T.MQCONN, Verb(conn=conn), "MQCONNX", starting=True)
        except (LinkDown, FapError) as exc:
            raise _error(cmqc.MQRC_Q_MGR_NOT_AVAILABLE, "MQCONNX",
                         f"channel {target.channel} at {target.host}({target.port}): "
                         f"{exc}", self.qmgr_name) from exc
        if reply.conn is not None and reply.conn.qmgr_name:
            self.qmgr_name = reply.conn.qmgr_name
        self.connected = True

    def _refused(self, seg: Segment) -> None:
        code, _ = decode_status(seg.payload, seg.big_endian)
        reason = _REFUSALS.get(int(code), cmqc.MQRC_Q_MGR_NOT_AVAILABLE)
        try:
            name = StatusCode(code).name
        except ValueError:
            name = f"{int(code):#x}"
        raise _error(reason, "MQCONNX", f"channel {self.target.channel} refused the "
                     f"connection with STATUS {name}", self.qmgr_name)

    # -- one request and its reply ----------------------------------------------------------

    def _call(self, seg_type: SegmentType, verb: Verb, call: str, *,
              starting: bool = False, obj: str = "", warned: frozenset[int] = frozenset()
              ) -> Verb:
        """One request and its reply. :raises MQMIError: the reply's CompCode is not OK
        (unless its reason is one of ``warned``: the caller's to raise), or as
        _exchange."""
        if not starting:
            self.check(call)
        verb.api.reply_length = _MAX_TRANS
        request = next(self._requests) * 2 + 1
        segment = encode_verb_segment(seg_type, verb, flags=_WHOLE, request_id=request)
        seg = self._exchange(seg_type, segment, call, starting, obj)
        try:
            reply = decode_verb(seg.seg_type, seg.payload, seg.big_endian, ebcdic=seg.ebcdic)
        except FapError as exc:
            raise self._bad_reply(exc, call, obj) from exc
        if reply.api.comp_code != cmqc.MQCC_OK and reply.api.reason not in warned:
            raise errors.error_for(reply.api.reason, call=call, obj=obj,
                                   comp=reply.api.comp_code)
        return reply

    def _exchange(self, seg_type: SegmentType, segment: bytes, call: str, starting: bool,
                  obj: str, read: Callable[[SegmentType, str, bool], Any] | None = None
                  ) -> Any:
        """Send a request segment and return its reply, as ``read`` gives it (default
        _reply: its Segment, the reply type checked).
        :raises MQMIError: 2030 too long for the agreed segment size; 2009 the connection
            broke or the server sent bad data (every later call fails 2009 too)."""
        with self._lock:
            try:
                if len(segment) > self.max_trans:
                    raise _error(cmqc.MQRC_MSG_TOO_BIG_FOR_Q_MGR, call,
                                 f"the request is {len(segment) - 36} bytes", obj)
                self.link.send_bytes(segment)
                return (read or self._reply)(seg_type, call, starting)
            except LinkDown as exc:
                if starting:
                    raise
                self._broken()
                raise _error(cmqc.MQRC_CONNECTION_BROKEN, call,
                             f"the connection to channel {self.target.channel} broke: {exc}",
                             obj) from exc
            except FapError as exc:
                raise self._bad_reply(exc, call, obj) from exc

    def _bad_reply(self, exc: FapError, call: str, obj: str) -> errors.MQMIError:
        self._broken()
        return _error(cmqc.MQRC_CONNECTION_BROKEN, call, f"the server sent bad data: {exc}",
                      obj)

    def _message(self, seg_type: SegmentType, handle: ClientHandle, md: Any, opts: Any,
                 opts_initial: bytes, tail: int, data: bytes, call: str) -> bytes:
        """MQPUT or MQGET (``opts`` its PMO or GMO, None: one at its initial values,
        ``opts_initial``; ``tail`` DataLength or BufferLength):
        the request laid out as encode_verb lays it out, from the structures' own bytes
        (pack() gives an untouched structure's initial bytes without packing it); the
        reply's data. ``md`` and ``opts`` are given the values the server's call gave them
        (_load_ours leaves one that came back as sent). (The caller has checked the
        handle.)
        :raises MQMIError: as _call."""
        md_bytes = _MD_INITIAL if md is None else md.pack()
        opts_bytes = opts_initial if opts is None else opts.pack()
        if self._fd >= 0 and self.link.idle() and not (
                opts is not None and seg_type == T.MQGET and opts.Options & cmqc.MQGMO_WAIT):
            # (a waiting MQGET reads in Python: heartbeats answered, silence timed)
            payload, big, ebcdic = self._message_exchange(seg_type, handle,
                                                          md_bytes + opts_bytes, tail, data,
                                                          call)
        else:
            segment = message_segment(seg_type, next(self._requests) * 2 + 1, 1,
                                      (_MAX_TRANS, 0, 0, handle.hobj), md_bytes + opts_bytes,
                                      tail, data)
            payload, big, ebcdic = self._exchange(seg_type, segment, call, False, handle.name,
                                                  self._message_reply)
        parts = None if big or ebcdic else reply_parts(payload, md_bytes, opts_bytes)
        if parts is None or parts[1] in _TRUNCATED:
            payload, tail_at = self._message_parts(seg_type, handle, md, opts, md_bytes,
                                                   opts_bytes, payload, big, ebcdic, call)
            return payload[tail_at + 4:]
        comp, reason, md_back, opts_back, got = parts
        if comp != cmqc.MQCC_OK:
            raise errors.error_for(reason, call=call, obj=handle.name, comp=comp)
        if md is not None:
            _load_ours(md, md_bytes if md_back is None else md_back, md_bytes)
        if opts is not None:
            _load_ours(opts, opts_bytes if opts_back is None else opts_back, opts_bytes)
        return got

    def _message_parts(self, seg_type: SegmentType, handle: ClientHandle, md: Any, opts: Any,
                       md_bytes: bytes, opts_bytes: bytes, payload: bytes, big: bool,
                       ebcdic: bool, call: str) -> tuple[bytes, int]:
        """_message's reply whose structures are not laid out as they were sent (another
        byte order or characters, other versions, a bad body): read by message_parts."""
        reply_type = seg_type + 0x10
        parts = None if big or ebcdic else our_parts(reply_type, payload)
        if parts is None:
            try:
                parts = message_parts(T(reply_type), payload, big, ebcdic)
            except FapError as exc:
                raise self._bad_reply(exc, call, handle.name) from exc
        comp, reason = api_result(payload, big)
        if comp != cmqc.MQCC_OK and reason not in _TRUNCATED:
            raise errors.error_for(reason, call=call, obj=handle.name, comp=comp)
        if md is not None:
            _load(md, memoryview(payload)[parts.md:parts.opts], big, ebcdic, md_bytes)
        if opts is not None:
            _load(opts, memoryview(payload)[parts.opts:parts.tail], big, ebcdic, opts_bytes)
        if comp != cmqc.MQCC_OK:  # (a truncated get: its data and the whole length)
            raise _truncated(reason, comp, call, handle.name, payload[parts.tail + 4:],
                             int.from_bytes(payload[parts.tail:parts.tail + 4],
                                            "big" if big else "little"))
        return payload, parts.tail

    def _message_exchange(self, seg_type: SegmentType, handle: ClientHandle,
                          structures: bytes, tail: int, data: bytes, call: str
                          ) -> tuple[bytes, bool, bool]:
        """MQPUT or MQGET on a plain socket with nothing read waiting: the request laid
        out, sent and its reply read in one C call (verbs.exchange_message, the GIL
        released while it waits); a reply it does not take whole (a heartbeat first,
        another byte order, a reply in many reads) goes to the link and the general
        read. As _exchange: 2030, 2009."""
        size = _BEFORE_STRUCTURES + len(structures) + len(data)
        link = self.link
        with self._lock:
            try:
                if size > self.max_trans:
                    raise _error(cmqc.MQRC_MSG_TOO_BIG_FOR_Q_MGR, call,
                                 f"the request is {size - MAX_HEADER} bytes", handle.name)
                got = exchange_message(self._fd, seg_type, next(self._requests) * 2 + 1,
                                       handle.hobj, _MAX_TRANS, structures, tail, data,
                                       link.reader.max_segment, self._silence_ms)
                if type(got) is bytes:
                    link.bytes_out += size
                    link.bytes_in += MAX_HEADER + len(got)
                    return got, False, False
                link.took(got, size)
                return self._message_reply(seg_type, call, False)
            except (LinkDown, OSError) as exc:
                self._broken()
                raise _error(cmqc.MQRC_CONNECTION_BROKEN, call,
                             f"the connection to channel {self.target.channel} broke: {exc}",
                             handle.name) from exc
            except FapError as exc:
                raise self._bad_reply(exc, call, handle.name) from exc

    def _reply(self, seg_type: SegmentType, call: str, starting: bool) -> Segment:
        while True:
            seg = self._replied(self.link.receive(self.silence), seg_type, call, starting)
            if seg is not None:
                return seg

    def _message_reply(self, seg_type: SegmentType, call: str, starting: bool
                       ) -> tuple[bytes, bool, bool]:
        """The reply to a message verb: its body, big-endian, EBCDIC. One in our byte
        order and characters (what our server sends) is taken from its frame's bytes
        without making a Segment."""
        reply_type = seg_type + 0x10
        while True:
            frame = self.link.receive_frame(self.silence)
            if our_tshm_type(frame) == reply_type:
                return bytes(frame[MAX_HEADER:]), False, False
            seg = self._replied(self.link.decode(frame), seg_type, call, starting)
            if seg is not None:
                return seg.payload, seg.big_endian, seg.ebcdic

    def _replied(self, seg: Segment, seg_type: SegmentType, call: str, starting: bool
                 ) -> Segment | None:
        """``seg`` if it is the reply to ``seg_type``; None for a heartbeat (answered when
        the server asks: it sends them while an MQGET waits; read on).
        :raises LinkDown: the server ended the conversation. :raises FapError: another
            segment type."""
        if seg.seg_type == seg_type + 0x10:
            return seg
        if seg.seg_type == T.HEARTBEAT:
            if seg.confirm_requested:
                self.heartbeats += 1
                self.link.send_bytes(encode_segment(
                    heartbeat_segment(request=False, big_endian=seg.big_endian),
                    form="TSHM"))
            return None
        if seg.seg_type == T.STATUS_DATA:
            if starting:
                self._refused(seg)
            raise LinkDown("the server ended the conversation")
        raise FapError(f"{call}: the reply is segment type {int(seg.seg_type):#x}",
                       StatusCode.PROTOCOL_SEGMENT_TYPE)

    def _broken(self) -> None:
        # The connection and its handles stay "open" to the MQI layer: every later call
        # reaches check() and fails 2009, as IBM's client does.
        self.broken = True
        self.link.close()

    # -- the Connection API -----------------------------------------------------------------

    def _fits(self, length: int, call: str, obj: str) -> None:
        """:raises MQMIError: 2010 MQRC_DATA_LENGTH_ERROR ``length`` (an MQPUT's data, an
            MQGET's BufferLength) is over the channel's agreed MAXMSGL (IBM's reason for
            a client)."""
        if length > self.max_msg:
            raise _error(cmqc.MQRC_DATA_LENGTH_ERROR, call,
                         f"{length} bytes are more than the {self.max_msg} the channel "
                         f"{self.target.channel} agreed (the smaller of the MQCD's "
                         "MaxMsgLength and the server's MAXMSGL)", obj)

    def check(self, call: str) -> None:
        """:raises MQMIError: 2009 the connection broke, 2018 it was disconnected."""
        if self.broken:
            raise _error(cmqc.MQRC_CONNECTION_BROKEN, call, "the connection broke earlier")
        if not self.connected:
            raise _error(cmqc.MQRC_HCONN_ERROR, call)

    def handle(self, h: ClientHandle | int, call: str) -> ClientHandle:
        """The open handle ``h``. :raises MQMIError: 2009, 2018, 2019."""
        if self.broken or not self.connected:
            self.check(call)
        hobj = h.hobj if isinstance(h, ClientHandle) else h
        handle = self.handles.get(hobj)
        if handle is None or handle.closed:
            raise _error(cmqc.MQRC_HOBJ_ERROR, call)
        return handle

    def open(self, name: str, options: int, qmgr_name: str = "",
             object_type: int = cmqc.MQOT_Q, od: Any = None) -> ClientHandle:
        """MQOPEN. ``od``: the caller's MQOD; at Version 3 or later it gets the
        ResolvedQName and ResolvedQMgrName the server's MQOPEN gave it."""
        wants = od is not None and type(od.Version) is int \
            and od.Version >= cmqc.MQOD_VERSION_3
        request = OD(ObjectName=name.encode("ascii"),
                     ObjectQMgrName=qmgr_name.encode("ascii"), ObjectType=object_type,
                     Version=cmqc.MQOD_VERSION_3 if wants else cmqc.MQOD_VERSION_1)
        reply = self._call(T.MQOPEN, Verb(od=request, options=options), "MQOPEN", obj=name)
        if wants and reply.od is not None and reply.od.Version >= cmqc.MQOD_VERSION_3:
            od.ResolvedQName = reply.od.ResolvedQName
            od.ResolvedQMgrName = reply.od.ResolvedQMgrName
        handle = ClientHandle(reply.api.hobj, self, options, name, object_type)
        self.handles[handle.hobj] = handle
        return handle

    def close(self, h: ClientHandle | int, options: int = cmqc.MQCO_NONE) -> None:
        """MQCLOSE."""
        handle = self.handle(h, "MQCLOSE")
        self._call(T.MQCLOSE, Verb(ApiHeader(hobj=handle.hobj), options=options), "MQCLOSE",
                   obj=handle.name)
        handle.closed = True
        self.handles.pop(handle.hobj, None)

    def put(self, h: ClientHandle | int, data: bytes, md: Any = None, pmo: Any = None) -> None:
        """MQPUT; ``md`` and ``pmo`` get the values the server's MQPUT gave them."""
        handle = self.handles.get(h.hobj if type(h) is ClientHandle else h)  # type: ignore
        if handle is None or handle.closed or self.broken or not self.connected:
            handle = self.handle(h, "MQPUT")  # (the open handle, else the reason)
        self._fits(len(data), "MQPUT", handle.name)
        if (md is None or type(md) is MD) and (pmo is None or type(pmo) is PMO) \
                and type(data) is bytes:  # (structures whose pack() the wire takes)
            self._message(T.MQPUT, handle, md, pmo, _PMO_INITIAL, len(data), data, "MQPUT")
            return
        md_in, pmo_in = md if md is not None else MD(), pmo if pmo is not None else PMO()
        reply = self._call(T.MQPUT, Verb(ApiHeader(hobj=handle.hobj), md=md_in, pmo=pmo_in,
                                         data=data), "MQPUT", obj=handle.name)
        _copy_back(md, reply.md)
        _copy_back(pmo, reply.pmo)

    def put1(self, name: str, data: bytes, md: Any = None, pmo: Any = None,
             qmgr_name: str = "") -> None:
        """MQPUT1."""
        self.check("MQPUT1")
        self._fits(len(data), "MQPUT1", name)
        od = OD(ObjectName=name.encode("ascii"), ObjectQMgrName=qmgr_name.encode("ascii"))
        md_in, pmo_in = md if md is not None else MD(), pmo if pmo is not None else PMO()
        reply = self._call(T.MQPUT1, Verb(od=od, md=md_in, pmo=pmo_in, data=data), "MQPUT1",
                           obj=name)
        _copy_back(md, reply.md)
        _copy_back(pmo, reply.pmo)

    def get(self, h: ClientHandle | int, max_length: int | None = None, md: Any = None,
            gmo: Any = None) -> bytes:
        """MQGET (``max_length`` None: the whole message); ``md`` and ``gmo`` get the
        values the server's MQGET gave them."""
        handle = self.handles.get(h.hobj if type(h) is ClientHandle else h)  # type: ignore
        if handle is None or handle.closed or self.broken or not self.connected:
            handle = self.handle(h, "MQGET")  # (the open handle, else the reason)
        if max_length is not None:
            self._fits(max_length, "MQGET", handle.name)
        size = WHOLE_MESSAGE if max_length is None else max_length
        if (md is None or type(md) is MD) and (gmo is None or type(gmo) is GMO):
            return self._message(T.MQGET, handle, md, gmo, _GMO_INITIAL, size, b"", "MQGET")
        md_in, gmo_in = md if md is not None else MD(), gmo if gmo is not None else GMO()
        reply = self._call(T.MQGET, Verb(ApiHeader(hobj=handle.hobj), md=md_in, gmo=gmo_in,
                                         buffer_length=size), "MQGET", obj=handle.name,
                           warned=_TRUNCATED)
        _copy_back(md, reply.md)
        _copy_back(gmo, reply.gmo)
        if reply.api.comp_code != cmqc.MQCC_OK:
            data = reply.data or b""
            raise _truncated(reply.api.reason, reply.api.comp_code, "MQGET", handle.name,
                             data, len(data) if reply.data_length is None
                             else reply.data_length)
        return reply.data or b""

    def inquire(self, h: ClientHandle | int, selector: int) -> int | bytes:
        """MQINQ of one attribute: an int, or blank-padded bytes."""
        handle = self.handle(h, "MQINQ")
        char = selector >= cmqc.MQCA_FIRST
        inq = InqBody([selector], 0 if char else 1, 1024 if char else 0)
        reply = self._call(T.MQINQ, Verb(ApiHeader(hobj=handle.hobj), inq=inq), "MQINQ",
                           obj=handle.name)
        values = reply.inq
        assert values is not None
        return values.chars if char else values.ints[0]

    def set(self, h: ClientHandle | int, selector: int, value: int | bytes | str) -> None:
        """MQSET of one attribute."""
        self.set_many(h, {selector: value})

    def set_many(self, h: ClientHandle | int, values: Any) -> None:
        """MQSET of several attributes: all change, or none (the server decides)."""
        handle = self.handle(h, "MQSET")
        ints, chars = [], b""
        for selector, value in values.items():
            if selector >= cmqc.MQCA_FIRST:
                raw = value.encode("latin-1") if isinstance(value, str) else bytes(value)
                if len(raw) > CHAR_VALUE_LENGTH:
                    raise errors.error_for(cmqc.MQRC_CHAR_ATTRS_TOO_SHORT, call="MQSET",
                                           obj=handle.name)
                chars += raw.ljust(CHAR_VALUE_LENGTH)
            else:
                ints.append(int(value))
        inq = InqBody(list(values), len(ints), len(chars), ints, chars)
        self._call(T.MQSET, Verb(ApiHeader(hobj=handle.hobj), inq=inq), "MQSET",
                   obj=handle.name)

    def commit(self) -> None:
        """MQCMIT."""
        self._call(T.MQCMIT, Verb(), "MQCMIT")

    def backout(self) -> None:
        """MQBACK."""
        self._call(T.MQBACK, Verb(), "MQBACK")

    def disconnect(self) -> None:
        """MQDISC: the server commits open work and closes every handle."""
        if self.broken:
            self._ended()
            raise _error(cmqc.MQRC_CONNECTION_BROKEN, "MQDISC", "the connection broke earlier")
        if not self.connected:
            raise _error(cmqc.MQRC_HCONN_ERROR, "MQDISC")
        try:
            self._call(T.MQDISC, Verb(), "MQDISC")
        finally:
            self._ended()

    def end(self, commit: bool) -> None:
        """End the connection: MQDISC if ``commit``, else close it (the server backs the
        unit of work out, as for a client that dies)."""
        if not self.connected:
            return
        if commit:
            self.disconnect()
        else:
            self._ended()

    def _ended(self) -> None:
        self.connected = False
        for handle in self.handles.values():
            handle.closed = True
        self.handles.clear()
        self.link.close()

    def __repr__(self) -> str:
        return (f"<ClientConnection {self.qmgr_name} via {self.target.channel} at "
                f"{self.target.host}({self.target.port}) "
                f"{'connected' if self.connected else 'ended'}>")


def _truncated(reason: int, comp: int, call: str, obj: str, data: bytes,
               length: int) -> errors.MQMIError:
    """A truncated MQGET's warning (2079, 2080) as the in-process MQI raises it: the data
    the buffer took (``.message``) and the message's whole length (``.original_length``,
    the reply's DataLength)."""
    exc = errors.error_for(reason, call=call, obj=obj, comp=comp)
    exc.message = bytes(data)
    exc.original_length = length
    return exc


def _load_ours(into: Any, raw: bytes | memoryview, sent: bytes) -> None:
    """_load of a structure in our byte order and characters (its bytes checked by
    reply_parts or message_parts). A structure that came back as it was sent, from an
    object holding only in-range MQLONGs (which unpack gives back as they are), is left
    as it is: unpacking would change nothing."""
    if raw == sent:
        values = vars(into)
        if not values or all(type(v) is int and -0x80000000 <= v <= 0x7FFFFFFF
                             for v in values.values()):
            return
    into.unpack(raw)


def _load(into: Any, raw: memoryview, big: bool, ebcdic: bool, sent: bytes) -> None:
    """A reply's structure (its bytes ``raw``, checked by message_parts) into the
    caller's ``into`` (:func:`_load_ours` in our byte order and characters)."""
    if big or ebcdic:
        _copy_back(into, from_wire(type(into), raw, big_endian=big, ebcdic=ebcdic))
        return
    _load_ours(into, raw, sent)


def _copy_back(into: Any, source: Any) -> None:
    """Write the reply's structure into the caller's (same class) in place."""
    if into is None or source is None:
        return
    if type(into) is type(source) and not source._nested:
        # The reply's structure is ours alone and was checked when it was decoded: its
        # values become the caller's as they are (what unpack(pack()) would give).
        into._reset()
        into._load_trusted(vars(source))
        return
    with contextlib.suppress(AttributeError, TypeError, ValueError):
        into.unpack(source.pack())


def _appl_name() -> str:
    import sys

    name = os.path.basename(sys.argv[0] or "python") if sys.argv else "python"
    return (name or "python")[:28]
