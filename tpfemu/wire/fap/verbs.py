"""The client verbs of a SVRCONN conversation (issue 26): request and reply bodies.

Every verb segment (types 0x81-0x9F, sent behind a TSHM) starts with the 16-byte API
header, then the verb's structures (``reference/channels-bridge-clusters.md`` §1.9, and
the layouts tshark's dissector reads)::

    API header   ReplyLength (u32 big-endian), CompCode, Reason, Hobj (TSH byte order)
    MQCONN(X)    QMgrName 48, ApplName 28, ApplType, AccountingToken 32, Options,
                 XOptions [+ FCNO]                          (112/120/260/332/460 bytes)
    MQDISC, MQCMIT, MQBACK, MQSET reply                     the API header alone
    MQOPEN       MQOD + Options                             (Hobj in the reply's header)
    MQCLOSE      Options                                    (Hobj in the header)
    MQPUT        MQMD + MQPMO + DataLength + data           (the reply: DataLength 0)
    MQPUT1       MQOD + MQMD + MQPMO + DataLength + data
    MQGET        MQMD + MQGMO + BufferLength                (the reply: + DataLength, data)
    MQINQ        SelectorCount, IntAttrCount, CharAttrLength, selectors
    MQINQ reply, MQSET   ... then the integer values and the character values

An MQGET reply's DataLength is the message's whole length, as MQGET's DataLength output
is (a truncated get's 2079 or 2080 tells the application how long the message is); its
data is what the buffer took, no longer than DataLength, and runs to the body's end.

The structures are :mod:`tpfemu.mq`'s MQOD, MQMD, MQPMO and MQGMO at whatever Version
they carry, in either byte order. :func:`encode_verb` and :func:`decode_verb` turn a
:class:`Verb` into a body and back for any verb type.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from tpfemu._lowlevel.exchange import client_exchange, exchange_setup
from tpfemu._lowlevel.exchange import reply_parts as _reply_parts
from tpfemu._lowlevel.exchange import serve_frames as _serve_frames
from tpfemu._lowlevel.exchange import serve_verb as _serve_verb
from tpfemu.errors import MQMIError
from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.structs import GMO, MD, OD, PMO, MQStruct
from tpfemu.wire.fap.byteorder import from_wire, pack_wire, text_of, text_to
from tpfemu.wire.fap.constants import ControlFlags, SegmentType, StatusCode
from tpfemu.wire.fap.errors import FapError
from tpfemu.wire.fap.tsh import MAX_HEADER, TSHM_START, tshm_header

__all__ = [
    "CHAR_VALUE_LENGTH", "TRANS_OVERHEAD", "WHOLE_MESSAGE",
    "API_HEADER_SIZE", "CONN_SIZES", "VERB_TYPES", "ApiHeader", "ConnBody", "InqBody", "Verb",
    "MessageParts", "api_result", "decode_api_header", "decode_verb", "encode_api_header",
    "encode_verb", "encode_verb_segment", "message_parts", "message_segment", "our_parts",
    "exchange_message", "reply_parts", "serve_frames", "serve_verb",
]

#: MQGET BufferLength meaning "the whole message, however long" (ours: pymqi's
#: ``get(None)``).
WHOLE_MESSAGE = 0xFFFFFFFF
#: Room a verb segment needs beyond its message data (TSHM, API header, MQOD, MQMD, PMO).
TRANS_OVERHEAD = 8192
#: MQSET's character values travel each blank-padded to this length (ours; the only
#: character attribute MQSET changes, TriggerData, is 64 long).
CHAR_VALUE_LENGTH = CMQC.MQ_TRIGGER_DATA_LENGTH

API_HEADER_SIZE = 16
_U32 = {False: struct.Struct("<I"), True: struct.Struct(">I")}
_CONN = {False: struct.Struct("<48s28si32sii"), True: struct.Struct(">48s28si32sii")}
_FCNO = {False: struct.Struct("<4sii"), True: struct.Struct(">4sii")}
#: Sizes of an MQCONN body (after the API header) by FCNO version (0 = no FCNO).
CONN_SIZES = {0: 120, 1: 260, 2: 332, 3: 460}
_CONN_BY_SIZE = {size: version for version, size in CONN_SIZES.items()}
_INQ = {False: struct.Struct("<iii"), True: struct.Struct(">iii")}
#: The API header: ReplyLength (always big-endian), then CompCode, Reason, Hobj.
_REPLY_LENGTH = struct.Struct(">I")
_API_REST = {False: struct.Struct("<iiI"), True: struct.Struct(">iiI")}
_BAD = StatusCode.PROTOCOL_INVALID_DATA
#: StrucId and Version at the start of a structure in our byte order and characters.
_STRUC_HEAD = struct.Struct("<4si")
#: (StrucId, Version) -> size of each structure a verb carries, in our byte order and
#: characters (from the structures' own layouts: the bytes from_wire would accept).
_LE_SIZES: dict[type[MQStruct], dict[tuple[bytes, int], int]] = {
    cls: {(cls.FIELDS[0].default, version): layout.size
          for version, (layout, _) in cls._layouts.items()}
    for cls in (OD, MD, PMO, GMO)}
S = TypeVar("S", bound=MQStruct)
V = TypeVar("V")


@dataclass(slots=True)
class ApiHeader:
    """The API header of a verb: ReplyLength (for a request, the longest reply the client
    takes; for a reply, its own length: ours, the dissector only shows it), the MQI's
    CompCode and Reason (0 in requests) and the object handle (MQOPEN's reply carries
    the new one; MQCLOSE, MQPUT, MQGET, MQINQ and MQSET name theirs)."""

    reply_length: int = 0
    comp_code: int = CMQC.MQCC_OK
    reason: int = CMQC.MQRC_NONE
    hobj: int = 0


@dataclass(slots=True)
class ConnBody:
    """MQCONN/MQCONNX and its reply. ``options`` is 1 for MQCONN and 3 for MQCONNX (the
    reference's reading of the field); ``xoptions`` carries the MQCNO options.
    ``fcno_version`` picks the size: 0 (120 bytes), 1 (FCNO with a 128-byte connection
    tag, 260), 2 (+ product id and MQMID, 332), 3 (+ returned tag, 460)."""

    qmgr_name: str = ""
    appl_name: str = ""
    appl_type: int = CMQC.MQAT_DEFAULT
    accounting_token: bytes = bytes(32)
    options: int = 1
    xoptions: int = 0
    fcno_version: int = 0
    fcno_capflag: int = 0
    conn_tag: bytes = bytes(128)
    ret_conn_tag: bytes = bytes(128)
    product_id: str = "TPFEMU"
    qmgr_id: str = ""


@dataclass(slots=True)
class InqBody:
    """MQINQ's selectors, and (in its reply and in MQSET) the integer and character
    values. ``int_count``/``char_length`` are what the request asks room for; in a reply
    or MQSET they are ``len(ints)``/``len(chars)``."""

    selectors: list[int] = field(default_factory=list)
    int_count: int = 0
    char_length: int = 0
    ints: list[int] = field(default_factory=list)
    chars: bytes = b""


@dataclass(slots=True)
class Verb:
    """One verb's body: the API header and whichever parts the verb carries (see the
    module docstring); the others stay None. ``options`` are MQOPEN's or MQCLOSE's,
    ``buffer_length`` is MQGET's buffer size, ``data`` the message of MQPUT, MQPUT1 and
    MQGET's reply, ``data_length`` an MQGET reply's DataLength (the message's whole
    length; None: ``len(data)``)."""

    api: ApiHeader = field(default_factory=ApiHeader)
    conn: ConnBody | None = None
    od: OD | None = None
    md: MD | None = None
    pmo: PMO | None = None
    gmo: GMO | None = None
    options: int | None = None
    buffer_length: int | None = None
    data: bytes | None = None
    inq: InqBody | None = None
    data_length: int | None = None


# -- the API header ------------------------------------------------------------------------


def encode_api_header(api: ApiHeader, *, big_endian: bool = False) -> bytes:
    """The 16-byte API header (ReplyLength always big-endian)."""
    return _REPLY_LENGTH.pack(api.reply_length) + _API_REST[big_endian].pack(
        api.comp_code, api.reason, api.hobj & 0xFFFFFFFF)


def decode_api_header(payload: bytes | memoryview, big_endian: bool) -> ApiHeader:
    """The API header at the start of a verb body.

    :raises FapError: fewer than 16 bytes (status PROTOCOL_LENGTH_ERROR).
    """
    if len(payload) < API_HEADER_SIZE:
        raise FapError(f"verb body is {len(payload)} bytes, shorter than the 16-byte API "
                       "header", StatusCode.PROTOCOL_LENGTH_ERROR)
    comp, reason, hobj = _API_REST[big_endian].unpack_from(payload, 4)
    return ApiHeader(_REPLY_LENGTH.unpack_from(payload)[0], comp, reason, hobj)


def api_result(payload: bytes, big_endian: bool) -> tuple[int, int]:
    """The CompCode and Reason of a verb body whose length is already checked (as
    :func:`message_parts` checks it)."""
    comp, reason, _ = _API_REST[big_endian].unpack_from(payload, 4)
    return comp, reason


# -- pieces ---------------------------------------------------------------------------------


class _Reader:
    """Reads the parts of one verb body in order, each checked."""

    __slots__ = ("view", "size", "pos", "big", "ebcdic", "seg_type")

    def __init__(self, payload: bytes, big_endian: bool, ebcdic: bool, seg_type: int) -> None:
        self.view = memoryview(payload)
        self.size = len(self.view)
        self.pos = API_HEADER_SIZE
        self.big = big_endian
        self.ebcdic = ebcdic
        self.seg_type = seg_type

    @property
    def verb(self) -> str:
        """The verb's name, for error messages."""
        return SegmentType(self.seg_type).name

    def need(self, size: int, what: str) -> memoryview:
        pos = self.pos
        if size < 0 or pos + size > self.size:
            raise FapError(f"{self.verb}: {what} needs {size} bytes at offset {pos}, "
                           f"the body has {self.size}", StatusCode.PROTOCOL_LENGTH_ERROR)
        self.pos = pos + size
        return self.view[pos:pos + size]

    def struc(self, cls: type[S]) -> S:
        obj = from_wire(cls, self.view[self.pos:], big_endian=self.big, ebcdic=self.ebcdic)
        self.pos += obj.get_length()
        return obj

    def span(self, cls: type[MQStruct]) -> int:
        """Step over the ``cls`` structure here (checked as :func:`from_wire` checks it);
        where it starts."""
        pos = self.pos
        size = -1
        if not (self.big or self.ebcdic) and self.size - pos >= 8:
            size = _LE_SIZES[cls].get(_STRUC_HEAD.unpack_from(self.view, pos), -1)
        if size < 0 or pos + size > self.size:  # (not ours, or bad: from_wire says why)
            size = self.struc(cls).get_length()
        self.pos = pos + size
        return pos

    def u32(self, what: str) -> int:
        return int(_U32[self.big].unpack(self.need(4, what))[0])

    def end(self) -> None:
        if self.pos != self.size:
            raise FapError(f"{self.verb}: {self.size - self.pos} bytes after the body",
                           StatusCode.PROTOCOL_LENGTH_ERROR)


def _name(text: str, size: int, what: str, ebcdic: bool) -> bytes:
    raw = text.encode("latin-1", "replace")
    if len(raw) > size:
        raise ValueError(f"{what} {text!r} is longer than {size} characters")
    return text_to(raw.ljust(size, b" "), ebcdic)


def _text(raw: bytes | memoryview, ebcdic: bool) -> str:
    return text_of(bytes(raw), ebcdic).rstrip(b" \0").decode("latin-1")


def _encode_conn(conn: ConnBody, big: bool, ebcdic: bool) -> bytes:
    if conn.fcno_version not in CONN_SIZES:
        raise ValueError(f"FCNO version {conn.fcno_version} is not one of 0, 1, 2, 3")
    if len(conn.accounting_token) > 32:
        raise ValueError("accounting token is longer than 32 bytes")
    out = _CONN[big].pack(_name(conn.qmgr_name, 48, "queue manager name", ebcdic),
                          _name(conn.appl_name, 28, "application name", ebcdic),
                          conn.appl_type, conn.accounting_token.ljust(32, b"\0"),
                          conn.options, conn.xoptions)
    if conn.fcno_version:
        out += _FCNO[big].pack(text_to(b"FCNO", ebcdic), conn.fcno_version, conn.fcno_capflag)
        out += conn.conn_tag[:128].ljust(128, b"\0")
        if conn.fcno_version >= 3:
            out += conn.ret_conn_tag[:128].ljust(128, b"\0")
        if conn.fcno_version >= 2:
            out += _name(conn.product_id, 24, "product id", ebcdic)
            out += _name(conn.qmgr_id, 48, "MQMID", ebcdic)
    return out


def _decode_conn(r: _Reader) -> ConnBody:
    size = len(r.view) - r.pos
    version = _CONN_BY_SIZE.get(size, 0 if size == 112 else -1)
    if version < 0:
        raise FapError(f"MQCONN body is {size} bytes, not one of 112, 120, 260, 332, 460",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    if size == 112:  # the oldest form: no Options/XOptions
        qm, app, atype, token = struct.unpack((">" if r.big else "<") + "48s28si32s",
                                              r.need(112, "MQCONN"))
        return ConnBody(_text(qm, r.ebcdic), _text(app, r.ebcdic), atype, bytes(token), 0)
    qm, app, atype, token, options, xoptions = _CONN[r.big].unpack(r.need(120, "MQCONN"))
    conn = ConnBody(_text(qm, r.ebcdic), _text(app, r.ebcdic), atype, bytes(token), options,
                    xoptions, version)
    if version:
        sid, conn.fcno_version, conn.fcno_capflag = _FCNO[r.big].unpack(r.need(12, "FCNO"))
        if text_of(bytes(sid), r.ebcdic) != b"FCNO":
            raise FapError(f"MQCONN: expected an FCNO, found {bytes(sid)!r}", _BAD)
        conn.fcno_version = version  # the size decides what follows
        conn.conn_tag = bytes(r.need(128, "ConnTag"))
        if version >= 3:
            conn.ret_conn_tag = bytes(r.need(128, "RetConnTag"))
        if version >= 2:
            conn.product_id = _text(r.need(24, "ProductId"), r.ebcdic)
            conn.qmgr_id = _text(r.need(48, "MQMID"), r.ebcdic)
    return conn


def _encode_inq(inq: InqBody, values: bool, big: bool) -> bytes:
    o = ">" if big else "<"
    ints, chars = (inq.ints, inq.chars) if values else ([], b"")
    counts = (len(inq.ints), len(inq.chars)) if values else (inq.int_count, inq.char_length)
    return (_INQ[big].pack(len(inq.selectors), *counts)
            + struct.pack(f"{o}{len(inq.selectors)}i", *inq.selectors)
            + struct.pack(f"{o}{len(ints)}i", *ints) + chars)


def _decode_inq(r: _Reader, values: bool) -> InqBody:
    nsel, nint, nchar = _INQ[r.big].unpack(r.need(12, "MQINQ counts"))
    if min(nsel, nint, nchar) < 0:
        raise FapError(f"MQINQ counts are negative ({nsel}, {nint}, {nchar})", _BAD)
    o = ">" if r.big else "<"
    selectors = list(struct.unpack(f"{o}{nsel}i", r.need(4 * nsel, "selectors")))
    if not values:
        return InqBody(selectors, nint, nchar)
    ints = list(struct.unpack(f"{o}{nint}i", r.need(4 * nint, "integer values")))
    chars = bytes(r.need(nchar, "character values"))
    return InqBody(selectors, nint, nchar, ints, chars)


# -- every verb -----------------------------------------------------------------------------

T = SegmentType
_API_ONLY = frozenset({T.MQDISC, T.MQDISC_REPLY, T.MQCMIT, T.MQCMIT_REPLY, T.MQBACK,
                       T.MQBACK_REPLY, T.MQSET_REPLY})
_OPEN = frozenset({T.MQOPEN, T.MQOPEN_REPLY})
_CLOSE = frozenset({T.MQCLOSE, T.MQCLOSE_REPLY})
_PUT = frozenset({T.MQPUT, T.MQPUT_REPLY, T.MQPUT1, T.MQPUT1_REPLY})
_INQ_VALUES = frozenset({T.MQINQ_REPLY, T.MQSET})
#: Every verb type encode_verb and decode_verb handle.
VERB_TYPES = frozenset({T.MQCONN, T.MQCONN_REPLY, T.MQGET, T.MQGET_REPLY, T.MQINQ}
                       | _API_ONLY | _OPEN | _CLOSE | _PUT | _INQ_VALUES)


def _required(value: V | None, what: str, seg_type: SegmentType) -> V:
    if value is None:
        raise ValueError(f"{seg_type.name} needs {what}")
    return value


def _encode_put(seg_type: SegmentType, verb: Verb, big: bool, ebcdic: bool) -> bytes:
    od = b""
    if seg_type in (T.MQPUT1, T.MQPUT1_REPLY):
        od = pack_wire(_required(verb.od, "an od", seg_type), big_endian=big, ebcdic=ebcdic)
    md = _required(verb.md, "an md", seg_type)
    pmo = _required(verb.pmo, "a pmo", seg_type)
    data = verb.data or b""
    return b"".join((od, pack_wire(md, big_endian=big, ebcdic=ebcdic),
                     pack_wire(pmo, big_endian=big, ebcdic=ebcdic), _U32[big].pack(len(data)),
                     data))


def _encode_get(seg_type: SegmentType, verb: Verb, big: bool, ebcdic: bool) -> bytes:
    md = pack_wire(_required(verb.md, "an md", seg_type), big_endian=big, ebcdic=ebcdic)
    gmo = pack_wire(_required(verb.gmo, "a gmo", seg_type), big_endian=big, ebcdic=ebcdic)
    if seg_type == T.MQGET:
        return md + gmo + _U32[big].pack(_required(verb.buffer_length, "a buffer_length",
                                                    seg_type))
    data = verb.data or b""
    length = len(data) if verb.data_length is None else verb.data_length
    if length < len(data):
        raise ValueError(f"MQGET reply DataLength {length} is less than its {len(data)} "
                         "bytes of data")
    return b"".join((md, gmo, _U32[big].pack(length), data))


def encode_verb(seg_type: SegmentType, verb: Verb, *, big_endian: bool = False,
                ebcdic: bool = False) -> bytes:
    """The body of a ``seg_type`` verb segment (request or reply) from ``verb``.

    :raises ValueError: ``seg_type`` is not a verb we encode, or a part it needs is
        missing or out of range.
    """
    big = big_endian
    head = encode_api_header(verb.api, big_endian=big)
    if seg_type in _API_ONLY:
        return head
    if seg_type in (T.MQCONN, T.MQCONN_REPLY):
        return head + _encode_conn(_required(verb.conn, "a conn", seg_type), big, ebcdic)
    if seg_type in _OPEN:
        od = pack_wire(_required(verb.od, "an od", seg_type), big_endian=big, ebcdic=ebcdic)
        return head + od + _U32[big].pack(_required(verb.options, "options", seg_type))
    if seg_type in _CLOSE:
        return head + _U32[big].pack(_required(verb.options, "options", seg_type))
    if seg_type in _PUT:
        return head + _encode_put(seg_type, verb, big, ebcdic)
    if seg_type in (T.MQGET, T.MQGET_REPLY):
        return head + _encode_get(seg_type, verb, big, ebcdic)
    if seg_type == T.MQINQ or seg_type in _INQ_VALUES:
        inq = _required(verb.inq, "an inq", seg_type)
        return head + _encode_inq(inq, seg_type in _INQ_VALUES, big)
    raise ValueError(f"{SegmentType(seg_type).name} is not a client verb we encode")


def encode_verb_segment(seg_type: SegmentType, verb: Verb, *, flags: int, request_id: int,
                        conversation_id: int = 1, big_endian: bool = False,
                        ebcdic: bool = False) -> bytes:
    """A whole verb segment: a TSHM (``flags``, ``conversation_id``, ``request_id``) and
    the body :func:`encode_verb` makes of ``verb``, in one piece.

    :raises ValueError: as :func:`encode_verb`, or a TSHM field out of range.
    """
    body = encode_verb(seg_type, verb, big_endian=big_endian, ebcdic=ebcdic)
    return tshm_header(seg_type, flags, len(body), big_endian=big_endian,
                       conversation_id=conversation_id, request_id=request_id) + body


class MessageParts(NamedTuple):
    """Where the parts of an MQPUT, MQPUT1 or MQGET body (request or reply) lie, as
    offsets into it: the MQOD (MQPUT1's; else ``od == md``), the MQMD, the MQPMO or MQGMO
    (``opts``), the DataLength or BufferLength (``tail``, 4 bytes) and the message data
    (from ``tail + 4`` to the end; none in an MQGET request)."""

    od: int
    md: int
    opts: int
    tail: int
    end: int


_MESSAGE_VERBS = _PUT | {T.MQGET, T.MQGET_REPLY}


def _parts(seg_type: SegmentType, r: _Reader) -> MessageParts:
    od = r.span(OD) if seg_type in (T.MQPUT1, T.MQPUT1_REPLY) else r.pos
    md = r.span(MD)
    opts = r.span(GMO if seg_type in (T.MQGET, T.MQGET_REPLY) else PMO)
    tail = r.pos
    if seg_type == T.MQGET:
        r.need(4, "BufferLength")
    elif seg_type == T.MQGET_REPLY:  # (the data: what the buffer took, to the end)
        length = r.u32("DataLength")
        if r.size - r.pos > length:
            raise FapError(f"MQGET_REPLY: {r.size - r.pos} bytes of data after DataLength "
                           f"{length}", StatusCode.PROTOCOL_LENGTH_ERROR)
        r.pos = r.size
    else:
        r.need(r.u32("DataLength"), "the message data")
    r.end()
    return MessageParts(od, md, opts, tail, r.size)


def message_parts(seg_type: SegmentType, payload: bytes, big_endian: bool = False,
                  ebcdic: bool = False) -> MessageParts:
    """The :class:`MessageParts` of a ``seg_type`` body (MQPUT, MQPUT1, MQGET or a reply
    of one): each structure checked as :func:`decode_verb` checks it, without making it
    an object (:func:`decode_verb` makes its objects from the same parts).

    :raises FapError: as :func:`decode_verb`.
    """
    if seg_type not in _MESSAGE_KINDS:
        raise FapError(f"{SegmentType(seg_type).name} carries no message",
                       StatusCode.PROTOCOL_SEGMENT_TYPE)
    if not (big_endian or ebcdic):
        parts = our_parts(seg_type, payload)
        if parts is not None:
            return parts
    decode_api_header(payload, big_endian)
    return _parts(seg_type, _Reader(payload, big_endian, ebcdic, seg_type))


def message_segment(seg_type: SegmentType, request_id: int, conversation_id: int,
                    api: tuple[int, int, int, int], structures: bytes | bytearray,
                    tail: int, data: bytes | bytearray | memoryview = b"") -> bytes:
    """A whole MQPUT, MQGET (or reply) segment in our byte order and characters, from the
    structures already packed: a TSHM (FIRST and LAST), the API header (``api``:
    ReplyLength, CompCode, Reason, Hobj), ``structures`` (the MQMD and the MQPMO or
    MQGMO, one after the other), ``tail`` (DataLength or BufferLength) and ``data``; the
    bytes :func:`encode_verb_segment` makes of the same verb.

    :raises ValueError: a field out of range.
    """
    reply_length, comp, reason, hobj = api
    try:
        return b"".join((
            _TSHM_START(b"TSHM", _BEFORE_STRUCTURES + len(structures) + len(data),
                        conversation_id, request_id), _TSHM_REST[seg_type],
            _REPLY_LENGTH.pack(reply_length), _API_LE.pack(comp, reason, hobj & 0xFFFFFFFF),
            structures, _LE32_PACK(tail), data))
    except KeyError:
        raise ValueError(f"{SegmentType(seg_type).name} is not a message verb") from None
    except struct.error as exc:
        raise ValueError(f"verb field out of range: {exc}") from None


#: The message verbs: (with an MQOD, the sizes of the options structure, data follows).
_MESSAGE_KINDS: dict[int, tuple[bool, dict[tuple[bytes, int], int], bool]] = {
    t: (t in (T.MQPUT1, T.MQPUT1_REPLY),
        _LE_SIZES[GMO if t in (T.MQGET, T.MQGET_REPLY) else PMO], t != T.MQGET)
    for t in _MESSAGE_VERBS}
_MD_SIZES, _OD_SIZES = _LE_SIZES[MD], _LE_SIZES[OD]
_HEAD = _STRUC_HEAD.unpack_from
_LE32 = _U32[False].unpack_from
_LE32_PACK = _U32[False].pack
_API_LE = _API_REST[False]
_WHOLE = int(ControlFlags.FIRST | ControlFlags.LAST)
#: MessageParts made as its __new__ makes it, without that Python frame.
_new_parts = tuple.__new__
#: A message verb's TSHM in our byte order from ByteOrder on (tshm_header's bytes after
#: the RequestId, the same for every segment of the type), and what comes before its
#: structures (TSHM, API header) and after them (DataLength or BufferLength).
_TSHM_REST = {t: tshm_header(t, _WHOLE, 0)[TSHM_START.size:] for t in _MESSAGE_VERBS}
_TSHM_START = TSHM_START.pack
_BEFORE_STRUCTURES = MAX_HEADER + API_HEADER_SIZE + 4
# The SVRCONN agent's one-call MQPUT/MQGET (native/python/exchange.c) lays out its
# replies from this module's layout: the structure sizes (checked there against cmqc.h's)
# and the reply TSHMs; tests hold its replies to message_segment's bytes.
exchange_setup(
    tuple(_MD_SIZES[(b"MD  ", v)] for v in (1, 2)), (_LE_SIZES[PMO][(b"PMO ", 1)],),
    tuple(_LE_SIZES[GMO][(b"GMO ", v)] for v in (1, 2)),
    (int(T.MQPUT), int(T.MQGET), int(T.MQPUT_REPLY), int(T.MQGET_REPLY)),
    {int(t): rest for t, rest in _TSHM_REST.items()}, MQMIError)
#: ``serve_verb(frame, handles, rooms, longest) -> bytes | None``: the reply segment of an
#: MQPUT or MQGET in our form (``frame``: a whole segment) served by its handle's plan
#: (``handles``: the connection's, by hobj) through the plan's raw entry, as the SVRCONN
#: agent's Python path would answer it; an MQGET only when ``rooms`` (by the structures'
#: length) has its room and ``longest`` is (its plan, the queue's longest message) and
#: that fits. None, having done nothing, for anything else.
serve_verb = _serve_verb
#: ``exchange_message(fd, seg_type, request_id, hobj, reply_length, structures, tail,
#: data, most[, timeout_ms]) -> bytes | bytearray``: send on socket ``fd`` the MQPUT or
#: MQGET request message_segment lays out of the same values (ConversationId 1, CompCode
#: and Reason 0) and read its reply, the GIL released while it waits: the reply's body
#: (bytes) when a whole reply of the request's type in our form, at most ``most`` bytes,
#: came in the read; else every byte read (a bytearray, possibly empty at the end of the
#: stream), for the caller's general read. :raises OSError: the socket failed, or
#: (ETIMEDOUT) no byte of the reply came for ``timeout_ms`` milliseconds (-1, the
#: default: no limit).
exchange_message = client_exchange
#: ``serve_frames(fd, serve, handles, rooms, longest, most) -> (rest, bytes_in,
#: bytes_out)``: a SVRCONN conversation's reads on socket ``fd`` (blocking) answered in C
#: while each is one whole TSHM of at most ``most`` bytes that ``serve(frame, handles,
#: rooms, longest)`` (serve_verb) answers with bytes: the answer is sent and the next
#: request read with the GIL released once. The first read not answered so comes back
#: as ``rest`` (b"" at the end of the stream) for the Link, with the bytes of the frames
#: answered and the bytes sent. Framing only: what is answered is serve's to say.
#: :raises OSError: the socket failed.
serve_frames = _serve_frames
#: ``reply_parts(body, md, opts) -> (comp, reason, md_back, opts_back, data) | None``: an
#: MQPUT or MQGET reply body in our byte order and characters (the TSHM cut off) read at
#: its request's offsets: None unless its MQMD and MQPMO/MQGMO come back at the StrucIds
#: and Versions of the request's ``md`` and ``opts`` bytes and its data is as long as its
#: DataLength (then :func:`message_parts` reads it); else CompCode, Reason, each
#: structure's bytes (None: it came back as sent) and the data.
reply_parts = _reply_parts


def our_parts(seg_type: SegmentType | int, payload: bytes) -> MessageParts | None:
    """The :class:`MessageParts` of a well-formed message verb body in our byte order and
    characters, found with one lookup a structure; None for anything else (then
    :func:`message_parts` or :func:`decode_verb` reads it, or says what is wrong)."""
    kind = _MESSAGE_KINDS.get(seg_type)
    if kind is None:
        return None
    with_od, opts_sizes, with_data = kind
    end = len(payload)
    od = md = API_HEADER_SIZE
    if end < md + 8:
        return None
    if with_od:
        md += _OD_SIZES.get(_HEAD(payload, od), end)
        if end < md + 8:
            return None
    opts = md + _MD_SIZES.get(_HEAD(payload, md), end)
    if end < opts + 8:
        return None
    tail = opts + opts_sizes.get(_HEAD(payload, opts), end)
    if end < tail + 4 or end != tail + 4 + (_LE32(payload, tail)[0] if with_data else 0):
        return None
    return _new_parts(MessageParts, (od, md, opts, tail, end))


def _decode_message(seg_type: SegmentType, r: _Reader, verb: Verb) -> None:
    parts = _parts(seg_type, r)
    view, big, ebcdic = r.view, r.big, r.ebcdic
    if parts.od != parts.md:
        verb.od = from_wire(OD, view[parts.od:parts.md], big_endian=big, ebcdic=ebcdic)
    verb.md = from_wire(MD, view[parts.md:parts.opts], big_endian=big, ebcdic=ebcdic)
    opts = view[parts.opts:parts.tail]
    if seg_type in (T.MQGET, T.MQGET_REPLY):
        verb.gmo = from_wire(GMO, opts, big_endian=big, ebcdic=ebcdic)
    else:
        verb.pmo = from_wire(PMO, opts, big_endian=big, ebcdic=ebcdic)
    length = _U32[big].unpack_from(view, parts.tail)[0]
    if seg_type == T.MQGET:
        verb.buffer_length = length
    else:
        verb.data = bytes(view[parts.tail + 4:parts.end])
        if seg_type == T.MQGET_REPLY:
            verb.data_length = length


def decode_verb(seg_type: SegmentType, payload: bytes, big_endian: bool, *,
                ebcdic: bool = False) -> Verb:
    """The :class:`Verb` in the body of a ``seg_type`` segment.

    :raises FapError: a type that is not a client verb (PROTOCOL_SEGMENT_TYPE), a body
        too short or too long for its parts (PROTOCOL_LENGTH_ERROR), or a structure that
        is not what the verb carries (PROTOCOL_INVALID_DATA).
    """
    if seg_type not in VERB_TYPES:
        raise FapError(f"{SegmentType(seg_type).name} is not a client verb we decode",
                       StatusCode.PROTOCOL_SEGMENT_TYPE)
    r = _Reader(payload, big_endian, ebcdic, seg_type)
    verb = Verb(decode_api_header(payload, big_endian))
    if seg_type in (T.MQCONN, T.MQCONN_REPLY):
        verb.conn = _decode_conn(r)
    elif seg_type in _OPEN:
        verb.od = r.struc(OD)
        verb.options = r.u32("Options")
    elif seg_type in _CLOSE:
        verb.options = r.u32("Options")
    elif seg_type in _MESSAGE_VERBS:
        _decode_message(seg_type, r, verb)
    elif seg_type == T.MQINQ or seg_type in _INQ_VALUES:
        verb.inq = _decode_inq(r, seg_type in _INQ_VALUES)
    r.end()
    return verb
