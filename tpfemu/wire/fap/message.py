"""MESSAGE_DATA on a message channel: MSH + MQXQH + MQMD v1 (+ MQMDE) + data, its
segmentation at the transmission size, and its reassembly.

Layout of a MESSAGE_DATA body (``reference/channels-bridge-clusters.md`` §1.5)::

    MSH   20 bytes: 'MSH ', SequenceNumber, DataLength, 0, MsgLength (TSH byte order)
    XQH   428 bytes: the MQXQH with the message's MQMD version 1
    MDE   72 bytes, when the MQMD's version-2 fields are not their defaults
    data

The MSH lengths are ours where IBM publishes nothing: DataLength is the length of the whole
message after its MSH (all segments together), MsgLength the bytes after the MSH in this
segment; for a message in one segment the two are equal, which is what tshark decodes.
A message longer than one segment is cut into segments that each start with an MSH (same
sequence number); the first has FIRST, the last LAST.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.fields import Byte, Char, Field, Long
from tpfemu.mq.headers import XQH
from tpfemu.mq.structs import MD, MQStruct
from tpfemu.wire.fap.byteorder import from_wire, pack_wire, text_of, text_to
from tpfemu.wire.fap.constants import (
    ASCII_CCSID,
    ENC_NATIVE,
    ENC_S390,
    ControlFlags,
    SegmentType,
    StatusCode,
)
from tpfemu.wire.fap.errors import FapError
from tpfemu.wire.fap.tsh import FORMS, Segment

__all__ = [
    "MDE", "MSH_SIZE", "PLAIN_DATA_AT", "PLAIN_MD_AT", "SEGMENT_HEAD", "XMIT_OVERHEAD",
    "MessageHeader", "Reassembler", "TransmittedMessage", "build_transmission",
    "decode_message", "decode_msh", "encode_message", "encode_message_segment",
    "message_segment_head", "read_plain", "split_message", "with_flags",
]  # fmt: skip

MSH_SIZE = 20
_MSH_ID = b"MSH "
_MSH = {False: struct.Struct("<4sIIII"), True: struct.Struct(">4sIIII")}
#: Bytes a transmitted message may carry beyond its data: an MQXQH and an MQMDE.
XMIT_OVERHEAD = CMQC.MQXQH_LENGTH_1 + CMQC.MQMDE_LENGTH_2
_XQH_SIZE = CMQC.MQXQH_LENGTH_1
_MDE_ID = b"MDE "
_V2_FIELDS = ("GroupId", "MsgSeqNumber", "Offset", "MsgFlags", "OriginalLength")
_XQH_HEAD = struct.Struct("<4si48s48s")
_MD1_LAYOUT, _MD1_FIELDS = MD._layouts[CMQC.MQMD_VERSION_1]
_MD1_NAMES = tuple(f.name for f in _MD1_FIELDS)
#: The fast read below stores what struct unpacks, as MQStruct.unpack would: true when no
#: field of an MQMD v1 converts its raw value.
_MD1_PLAIN = all(type(f).unpacked is Field.unpacked for f in _MD1_FIELDS)
_HEAD_PREFIX = {False: struct.Struct(">4sI")}
#: A whole one-segment message's headers, little-endian, in one unpack: the MSH, the
#: MQXQH's head and its MQMD version 1 (the common case; anything else takes the general
#: reader).
_WHOLE_LE = struct.Struct("<4sIIII4si48s48s" + _MD1_LAYOUT.format.lstrip("<=@"))
_WHOLE_HEADERS = MSH_SIZE + CMQC.MQXQH_LENGTH_1
_MD1_FORMAT_AT = _MD1_NAMES.index("Format")
_TSH_MSH = {False: struct.Struct("<BBBB8sIH2x4sIIII")}
_TSH = 28  # a message channel's segment header (form TSH)
#: A whole one-segment message as a frame (TSH + MSH + MQXQH + data), little-endian, in
#: one unpack: the TSH (its SegmLength skipped: the framing checked it), the MSH, the
#: MQXQH's head and, of its MQMD version 1, StrucId, Version, Format and Persistence.
_PLAIN = struct.Struct("<4s4xBBBB8sIH2x" "4sIIII" "4si48s48s" "4si24x8s4xi")
#: Where a frame :func:`read_plain` reads has its MQMD (version 1, native layout) ...
PLAIN_MD_AT = _TSH + MSH_SIZE + 104
#: ... and its data.
PLAIN_DATA_AT = _TSH + MSH_SIZE + _XQH_SIZE
_FIRST_LAST = int(ControlFlags.FIRST | ControlFlags.LAST)
_MESSAGE_DATA = int(SegmentType.MESSAGE_DATA)


class MDE(MQStruct):
    """MQMDE, the message-descriptor extension: 72 bytes. It carries an MQMD's version-2
    fields where only a version-1 MQMD fits (after an MQXQH); Encoding, CodedCharSetId
    and Format describe the data after it."""

    STRUC_NAME = "MQMDE"
    LENGTHS = {2: CMQC.MQMDE_LENGTH_2}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQMDE_STRUC_ID),
        Long("Version", CMQC.MQMDE_VERSION_2),
        Long("StrucLength", CMQC.MQMDE_LENGTH_2),
        Long("Encoding", CMQC.MQENC_NATIVE),
        Long("CodedCharSetId", CMQC.MQCCSI_UNDEFINED),
        Char("Format", 8, CMQC.MQFMT_NONE),
        Long("Flags", 0),
        Byte("GroupId", 24, CMQC.MQGI_NONE),
        Long("MsgSeqNumber", 1),
        Long("Offset", 0),
        Long("MsgFlags", CMQC.MQMF_NONE),
        Long("OriginalLength", CMQC.MQOL_UNDEFINED),
    )


@dataclass(frozen=True, slots=True)
class MessageHeader:
    """The MSH: the message's sequence number on the channel, DataLength (the whole
    message after the MSH) and MsgLength (the bytes after the MSH in this segment)."""

    seq: int
    data_length: int
    msg_length: int


@dataclass(slots=True)
class TransmittedMessage:
    """A message as a MESSAGE_DATA body carries it. ``md`` is the message's own MQMD: the
    XQH's version-1 MQMD itself (the same object as ``xqh.MsgDesc``), or, when an MQMDE
    is present, a version-2 copy with the MQMDE merged in (then Format, Encoding and
    CodedCharSetId are the MQMDE's). ``xqh`` is the MQXQH as sent. ``data`` is what
    follows the headers."""

    seq: int
    xqh: XQH
    md: MD
    data: bytes
    has_mde: bool = False


def _msh(seq: int, data_length: int, msg_length: int, big_endian: bool) -> bytes:
    return _MSH[big_endian].pack(_MSH_ID, seq, data_length, 0, msg_length)


def decode_msh(payload: bytes | memoryview, big_endian: bool, *, ebcdic: bool = False
               ) -> MessageHeader:
    """The MSH at the start of a MESSAGE_DATA body (its StrucId in ASCII or EBCDIC;
    ``ebcdic`` is accepted for symmetry and changes nothing).

    :raises FapError: too short, not an MSH, or a MsgLength that is not the rest of the
        body (status PROTOCOL_MSH_ERROR).
    """
    if len(payload) < MSH_SIZE:
        raise FapError(f"MESSAGE_DATA body is {len(payload)} bytes, shorter than an MSH",
                       StatusCode.PROTOCOL_MSH_ERROR)
    sid, seq, data_length, _, msg_length = _MSH[big_endian].unpack_from(payload)
    if sid != _MSH_ID and text_of(sid, True) != _MSH_ID:
        raise FapError(f"not an MSH: StrucId is {sid!r}", StatusCode.PROTOCOL_MSH_ERROR)
    if msg_length != len(payload) - MSH_SIZE or data_length < msg_length:
        raise FapError(f"MSH lengths (DataLength {data_length}, MsgLength {msg_length}) do "
                       f"not fit a body of {len(payload) - MSH_SIZE} bytes after the MSH",
                       StatusCode.PROTOCOL_MSH_ERROR)
    return MessageHeader(seq, data_length, msg_length)


def _has_mde(xqh: XQH, rest: bytes | memoryview, ebcdic: bool) -> bool:
    return (bytes(xqh.MsgDesc.Format) == CMQC.MQFMT_MD_EXTENSION
            and text_of(bytes(rest[:4]), ebcdic) == _MDE_ID)


def _to_big(body: bytes) -> bytes:
    """An MQXQH(+MQMDE)+data from our byte order to big-endian. With an MQMDE, the MQMD's
    Encoding (which describes the structure after it) becomes big-endian too; the
    MQMDE's own Encoding, describing the data, is kept."""
    xqh = from_wire(XQH, body, big_endian=False)
    rest = memoryview(body)[_XQH_SIZE:]
    mde = b""
    if _has_mde(xqh, rest, False):
        mde = pack_wire(from_wire(MDE, rest, big_endian=False), big_endian=True)
        rest = rest[CMQC.MQMDE_LENGTH_2:]
        xqh.MsgDesc.Encoding = ENC_S390
    return pack_wire(xqh, big_endian=True) + mde + bytes(rest)


def _mde_big_endian(md: MD, tsh_big_endian: bool) -> bool:
    """The byte order of an MQMDE: what the MQMD's Encoding says of the structure after
    it (integers normal = big-endian, reversed = little-endian), else the TSH's."""
    integers = md.Encoding & 0xF
    if integers == CMQC.MQENC_INTEGER_NORMAL:
        return True
    if integers == CMQC.MQENC_INTEGER_REVERSED:
        return False
    return tsh_big_endian


def encode_message(seq: int, xqh_and_md_and_data: bytes, *, big_endian: bool = False) -> bytes:
    """A MESSAGE_DATA body: the MSH for sequence number ``seq`` and the transmission-queue
    message (MQXQH with its MQMD, an MQMDE if any, and the data, as our queue manager
    stores them). For ``big_endian`` the MQXQH and MQMDE are converted to that byte order.

    :raises FapError: ``big_endian`` and the bytes do not start with an MQXQH.
    """
    body = _to_big(xqh_and_md_and_data) if big_endian else xqh_and_md_and_data
    n = len(body)
    return _msh(seq, n, n, big_endian) + body


def build_transmission(remote_q: str | bytes, remote_qmgr: str | bytes, md: MD, data: bytes
                       ) -> bytes:
    """A transmission-queue message: MQXQH (with ``md`` as version 1) + MQMDE when the
    MQMD's version-2 fields differ from their defaults (IBM's MQMDE rule) + ``data``."""
    inner = md.copy()
    inner.Version = CMQC.MQMD_VERSION_1
    parts = []
    v2 = {name: getattr(md, name) for name in _V2_FIELDS}
    if v2 != {name: getattr(MD, name) for name in _V2_FIELDS}:
        parts.append(MDE(Encoding=md.Encoding, CodedCharSetId=md.CodedCharSetId,
                         Format=md.Format, **v2).pack())
        inner.Format = CMQC.MQFMT_MD_EXTENSION
        inner.Encoding = CMQC.MQENC_NATIVE  # the MQMD's Encoding describes the MQMDE
    xqh = XQH(RemoteQName=remote_q, RemoteQMgrName=remote_qmgr, MsgDesc=inner)
    return xqh.pack() + b"".join(parts) + data


def _xqh_fast(view: memoryview) -> XQH | None:
    """An MQXQH (little-endian, ASCII, MQMD version 1) read in one unpack, or None when
    the bytes are anything else (the general reader then reports what is wrong)."""
    if (not _MD1_PLAIN or len(view) < _XQH_SIZE or view[:4] != b"XQH "
            or view[104:108] != b"MD  "):
        return None
    sid, version, remote_q, remote_qmgr = _XQH_HEAD.unpack_from(view)
    values = _MD1_LAYOUT.unpack_from(view, 104)
    if version != CMQC.MQXQH_VERSION_1 or values[1] != CMQC.MQMD_VERSION_1:
        return None
    return _xqh_of(sid, version, remote_q, remote_qmgr, values)


def _xqh_of(sid: bytes, version: int, remote_q: bytes, remote_qmgr: bytes,
            md_values: tuple) -> XQH:
    """The MQXQH (with its version-1 MQMD, ``md_values`` in field order) read by one
    unpack, made without field checks: the callers have checked what they read."""
    md = MD.__new__(MD)
    md._load_trusted(dict(zip(_MD1_NAMES, md_values, strict=True)))
    xqh = XQH.__new__(XQH)
    xqh._load_trusted({"StrucId": sid, "Version": version, "RemoteQName": remote_q,
                       "RemoteQMgrName": remote_qmgr, "MsgDesc": md})
    return xqh


def encode_message_segment(seq: int, xqh_and_md_and_data: bytes, *,
                           flags: int = ControlFlags.FIRST | ControlFlags.LAST,
                           luwid: bytes = bytes(8), ccsid: int = ASCII_CCSID) -> bytes:
    """The whole TSH + MSH + message bytes of a one-segment MESSAGE_DATA, little-endian,
    in one step: what ``encode_segment(Segment(MESSAGE_DATA, flags,
    encode_message(seq, ...), luwid=luwid))`` gives, without the intermediate objects.
    ``flags`` defaults to FIRST | LAST; add CONFIRM_REQ at the end of a batch.

    :raises ValueError: a LUWID that is not 8 bytes, or a number out of range.
    """
    return message_segment_head(seq, len(xqh_and_md_and_data), flags=flags, luwid=luwid,
                                ccsid=ccsid) + xqh_and_md_and_data


#: Bytes of the head :func:`message_segment_head` makes (a TSH and an MSH).
SEGMENT_HEAD = _TSH + MSH_SIZE
#: Where in that head its TSH's ControlFlags1 is (see :func:`with_flags`).
_FLAGS_AT = 10


def message_segment_head(seq: int, length: int, *,
                         flags: int = ControlFlags.FIRST | ControlFlags.LAST,
                         luwid: bytes = bytes(8), ccsid: int = ASCII_CCSID) -> bytes:
    """The :data:`SEGMENT_HEAD` bytes (TSH + MSH, little-endian) in front of the
    ``length`` bytes of a transmission-queue message sent whole in one segment (the
    sender's hot path: the message's bytes follow as they are, unchanged).

    :raises ValueError: a LUWID that is not 8 bytes, or a number out of range.
    """
    if len(luwid) != 8:
        raise ValueError(f"a LUWID is 8 bytes, got {len(luwid)}")
    try:
        return _HEAD_PREFIX[False].pack(b"TSH ", SEGMENT_HEAD + length) + _TSH_MSH[False].pack(
            2, SegmentType.MESSAGE_DATA, flags, 0, luwid, ENC_NATIVE, ccsid, _MSH_ID, seq,
            length, 0, length)
    except struct.error as exc:
        raise ValueError(f"MESSAGE_DATA field out of range: {exc}") from None


def with_flags(segment: bytes, flags: int) -> bytes:
    """A segment in form TSH (whole, or the head :func:`message_segment_head` makes) with
    ``flags`` added to its TSH's ControlFlags1 (CONFIRM_REQ, once the batch is known to
    end with this message)."""
    return segment[:_FLAGS_AT] + bytes((segment[_FLAGS_AT] | flags,)) + segment[_FLAGS_AT + 1:]


def _decode_plain(payload: bytes) -> TransmittedMessage | None:
    """A whole little-endian ASCII message without MQMDE, its headers read in one unpack;
    None when the bytes are anything else or wrong (the general reader then decodes them
    or says what is wrong)."""
    if not _MD1_PLAIN or len(payload) < _WHOLE_HEADERS:
        return None
    values = _WHOLE_LE.unpack_from(payload)
    sid, seq, data_length, _, msg_length, xqh_id, version, remote_q, remote_qmgr = values[:9]
    md_values = values[9:]
    if (sid != _MSH_ID or msg_length != len(payload) - MSH_SIZE or data_length != msg_length
            or xqh_id != b"XQH " or version != CMQC.MQXQH_VERSION_1
            or md_values[0] != b"MD  " or md_values[1] != CMQC.MQMD_VERSION_1
            or md_values[_MD1_FORMAT_AT] == CMQC.MQFMT_MD_EXTENSION):
        return None
    xqh = _xqh_of(xqh_id, version, remote_q, remote_qmgr, md_values)
    return TransmittedMessage(seq, xqh, xqh.MsgDesc, bytes(payload[_WHOLE_HEADERS:]))


def read_plain(frame: bytes | memoryview, max_msg_len: int
               ) -> tuple[int, bytes, int, bytes, bytes, int] | None:
    """The common message frame read in one step, with no objects made: a whole segment
    (form TSH, little-endian) of MESSAGE_DATA holding a whole message (FIRST and LAST, its
    MSH lengths those of the frame, no longer than ``max_msg_len`` plus
    :data:`XMIT_OVERHEAD`) behind an MQXQH version 1 with an MQMD version 1 and no MQMDE.
    Returns (control flags, LUWID, sequence number, RemoteQName, RemoteQMgrName (both
    blank-padded bytes), Persistence); the MQMD itself is ``frame[PLAIN_MD_AT:
    PLAIN_DATA_AT]`` (native layout, as the channel's encoding is ours) and the data
    ``frame[PLAIN_DATA_AT:]``. These are the values :func:`~tpfemu.wire.fap.decode_frame`,
    :class:`Reassembler` and :func:`decode_message` give for such a frame. None for any
    other frame: those decode it (and say what is wrong with it)."""
    if len(frame) < PLAIN_DATA_AT or not _MD1_PLAIN:
        return None
    (sid, order, kind, flags, _, luwid, _, _, msh_id, seq, data_length, _, msg_length,
     xqh_id, version, remote_q, remote_qmgr, md_id, md_version, fmt, persistence
     ) = _PLAIN.unpack_from(frame)
    if (sid != b"TSH " or order != 2 or kind != _MESSAGE_DATA
            or flags & _FIRST_LAST != _FIRST_LAST or msh_id != _MSH_ID
            or msg_length != len(frame) - _TSH - MSH_SIZE or data_length != msg_length
            or data_length > max_msg_len + XMIT_OVERHEAD
            or xqh_id != b"XQH " or version != CMQC.MQXQH_VERSION_1 or md_id != b"MD  "
            or md_version != CMQC.MQMD_VERSION_1 or fmt == CMQC.MQFMT_MD_EXTENSION):
        return None
    return flags, luwid, seq, remote_q, remote_qmgr, persistence


def decode_message(payload: bytes, big_endian: bool, *, ebcdic: bool = False
                   ) -> TransmittedMessage:
    """The message in a whole MESSAGE_DATA body (one segment's, or :class:`Reassembler`'s).

    :raises FapError: a bad MSH (PROTOCOL_MSH_ERROR), or a bad MQXQH or MQMDE
        (PROTOCOL_INVALID_DATA).
    """
    if not big_endian and not ebcdic:
        plain = _decode_plain(payload)
        if plain is not None:
            return plain
    msh = decode_msh(payload, big_endian, ebcdic=ebcdic)
    if msh.data_length != msh.msg_length:
        raise FapError(f"MESSAGE_DATA holds {msh.msg_length} of the message's "
                       f"{msh.data_length} bytes: reassemble its segments first",
                       StatusCode.PROTOCOL_MSH_ERROR)
    view = memoryview(payload)[MSH_SIZE:]
    xqh = None if big_endian or ebcdic else _xqh_fast(view)
    if xqh is None:
        xqh = from_wire(XQH, view, big_endian=big_endian, ebcdic=ebcdic)
    md = xqh.MsgDesc
    rest = view[_XQH_SIZE:]
    has_mde = _has_mde(xqh, rest, ebcdic)
    if has_mde:
        md = md.copy()
        mde = from_wire(MDE, rest, big_endian=_mde_big_endian(md, big_endian), ebcdic=ebcdic)
        if not CMQC.MQMDE_LENGTH_2 <= mde.StrucLength <= len(rest):
            raise FapError(f"MQMDE StrucLength {mde.StrucLength} does not fit",
                           StatusCode.PROTOCOL_INVALID_DATA)
        md.Version = CMQC.MQMD_VERSION_2
        md.set(Format=mde.Format, Encoding=mde.Encoding, CodedCharSetId=mde.CodedCharSetId,
               **{name: getattr(mde, name) for name in _V2_FIELDS})
        rest = rest[mde.StrucLength:]
    return TransmittedMessage(msh.seq, xqh, md, bytes(rest), has_mde)


def split_message(payload: bytes, max_trans: int, *, big_endian: bool = False,
                  luwid: bytes = bytes(8), confirm: bool = False, form: str = "TSH",
                  ebcdic: bool = False) -> list[Segment]:
    """``payload`` (a whole MESSAGE_DATA body from :func:`encode_message`) as segments of
    at most ``max_trans`` bytes each, TSH included. One segment (FIRST | LAST) when it
    fits; otherwise each segment repeats the MSH with its own MsgLength. ``confirm`` sets
    CONFIRM_REQ on the last segment (the end of a batch).

    :raises ValueError: ``max_trans`` leaves no room for data after the TSH and MSH.
    :raises FapError: ``payload`` does not start with a whole message's MSH.
    """
    header = FORMS[form]
    room = max_trans - header - MSH_SIZE
    if room < 1:
        raise ValueError(f"max_trans {max_trans} leaves no room after a {header}-byte TSH "
                         f"and the {MSH_SIZE}-byte MSH")
    end = ControlFlags.LAST | (ControlFlags.CONFIRM_REQ if confirm else ControlFlags.NONE)
    if header + len(payload) <= max_trans:
        return [Segment(SegmentType.MESSAGE_DATA, ControlFlags.FIRST | end, payload,
                        big_endian, luwid=luwid, form=form)]
    msh = decode_msh(payload, big_endian, ebcdic=ebcdic)
    body = memoryview(payload)[MSH_SIZE:]
    sid = text_to(_MSH_ID, ebcdic)
    out = []
    for start in range(0, len(body), room):
        piece = body[start:start + room]
        flags = ControlFlags.FIRST if start == 0 else ControlFlags.NONE
        if start + room >= len(body):
            flags |= end
        head = _MSH[big_endian].pack(sid, msh.seq, msh.data_length, 0, len(piece))
        out.append(Segment(SegmentType.MESSAGE_DATA, flags, head + bytes(piece), big_endian,
                           luwid=luwid, form=form))
    return out


class Reassembler:
    """Puts a message's segments back together.

    ``feed`` returns the whole MESSAGE_DATA body (one MSH, then the message) when the
    segment with LAST arrives, else ``None``. A message longer than ``max_msg_len`` plus
    :data:`XMIT_OVERHEAD` (its MQXQH and MQMDE) is refused when its first segment
    announces it, before anything is kept; the reassembler never holds more than that.
    """

    __slots__ = ("max_msg_len", "_parts", "_have", "_seq", "_total", "_big")

    def __init__(self, max_msg_len: int) -> None:
        self.max_msg_len = max_msg_len
        self._parts: list[bytes] = []
        self._have = 0
        self._seq = 0
        self._total = -1
        self._big = False

    @property
    def in_progress(self) -> bool:
        """A message has started and not yet ended."""
        return self._total >= 0

    def reset(self) -> None:
        """Forget a message in progress (the channel is closing)."""
        self._parts, self._have, self._total = [], 0, -1

    def feed(self, seg: Segment) -> bytes | None:
        """The whole body once ``seg`` completes a message, else None.

        :raises FapError: not MESSAGE_DATA (PROTOCOL_SEGMENT_TYPE); a segment out of
            order (SEGMENT_NUMBER_ERROR); an MSH that disagrees with the message's
            (PROTOCOL_MSH_ERROR); a message too long (MESSAGE_LENGTH_ERROR).
        """
        if seg.seg_type != SegmentType.MESSAGE_DATA:
            raise FapError(f"{seg.seg_type.name} is not a message segment",
                           StatusCode.PROTOCOL_SEGMENT_TYPE)
        msh = decode_msh(seg.payload, seg.big_endian, ebcdic=seg.ebcdic)
        if seg.first == self.in_progress:
            self.reset()
            why = "a FIRST segment inside a message" if seg.first else "a segment without FIRST"
            raise FapError(f"{why} (sequence number {msh.seq})", StatusCode.SEGMENT_NUMBER_ERROR)
        if seg.first:
            limit = self.max_msg_len + XMIT_OVERHEAD
            if msh.data_length > limit:
                raise FapError(f"message of {msh.data_length} bytes is longer than the "
                               f"{limit} accepted", StatusCode.MESSAGE_LENGTH_ERROR)
            if seg.last:
                return self._whole(seg.payload, msh)
            self._seq, self._total, self._big = msh.seq, msh.data_length, seg.big_endian
        return self._add(seg, msh)

    def _whole(self, payload: bytes, msh: MessageHeader) -> bytes:
        if msh.data_length != msh.msg_length:
            raise FapError(f"one-segment message has DataLength {msh.data_length} but "
                           f"MsgLength {msh.msg_length}", StatusCode.PROTOCOL_MSH_ERROR)
        return payload

    def _add(self, seg: Segment, msh: MessageHeader) -> bytes | None:
        if msh.seq != self._seq or msh.data_length != self._total:
            self.reset()
            raise FapError(f"segment's MSH (sequence {msh.seq}, DataLength "
                           f"{msh.data_length}) differs from its message's",
                           StatusCode.PROTOCOL_MSH_ERROR)
        if self._have + msh.msg_length > self._total:
            self.reset()
            raise FapError("segments carry more than the message's DataLength",
                           StatusCode.PROTOCOL_MSH_ERROR)
        self._parts.append(bytes(memoryview(seg.payload)[MSH_SIZE:]))
        self._have += msh.msg_length
        if not seg.last:
            return None
        if self._have != self._total:
            have, total = self._have, self._total
            self.reset()
            raise FapError(f"last segment ends the message at {have} of {total} bytes",
                           StatusCode.PROTOCOL_MSH_ERROR)
        body = b"".join(self._parts)
        seq, big = self._seq, self._big
        self.reset()
        return _msh(seq, len(body), len(body), big) + body
