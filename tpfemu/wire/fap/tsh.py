"""The transmission segment header (TSH, TSHC, TSHM) and the framing of a byte stream.

Every FAP unit on a socket is one *segment*: a TSH and a body. Layout (M = 8 for TSHM,
else 0; ``reference/channels-bridge-clusters.md`` §1.1)::

    0    StrucId      'TSH ' / 'TSHC' / 'TSHM', ASCII or EBCDIC
    4    SegmLength   u32 big-endian, the whole segment including this header
    8    (TSHM) ConversationId, RequestId: u32 big-endian each
    8+M  ByteOrder    1 = big-endian, 2 = little-endian: every later integer
    9+M  SegmType     (:class:`SegmentType`)
    10+M ControlFlags1, ControlFlags2
    12+M LUWID        8 bytes, the batch's logical unit of work id
    20+M Encoding     u32, MQENC of the sending end
    24+M CCSID        u16
    26+M reserved     2 bytes (zero)

TSHC has TSH's layout (the dissector treats the two alike); only TSHM carries the
conversation fields. Message channels use ``TSH``, SVRCONN conversations ``TSHM``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from tpfemu.wire.fap.constants import (
    ASCII_CCSID,
    EBCDIC_CCSIDS,
    ENC_NATIVE,
    ENC_S390,
    ControlFlags,
    SegmentType,
    StatusCode,
)
from tpfemu.wire.fap.errors import FapError

__all__ = [
    "FORMS", "HEADER_SIZE", "MAX_HEADER", "TSHM_START", "FrameReader", "Segment", "decode_frame",
    "decode_segment", "encode_segment", "header_size", "our_tshm_type", "tshm_header",
]  # fmt: skip

_EBCDIC_TO_FORM = {b"\xe3\xe2\xc8\x40": "TSH", b"\xe3\xe2\xc8\xc3": "TSHC",
                   b"\xe3\xe2\xc8\xd4": "TSHM"}
_ASCII_TO_FORM = {b"TSH ": "TSH", b"TSHC": "TSHC", b"TSHM": "TSHM"}
_FORM_TO_ID = {form: sid for sid, form in _ASCII_TO_FORM.items()}
#: The header forms: StrucId text -> header size.
FORMS = {"TSH": 28, "TSHC": 28, "TSHM": 36}
#: Size of a TSH or TSHC; a TSHM is :data:`MAX_HEADER`.
HEADER_SIZE = 28
MAX_HEADER = 36
_ZERO_LUWID = bytes(8)

# The part after StrucId/length/(conversation): byte order, type, flags, LUWID, encoding,
# CCSID, reserved.
_TAIL = {False: struct.Struct("<BBBB8sIH2x"), True: struct.Struct(">BBBB8sIH2x")}
_LEN = struct.Struct(">I")
_CONV = struct.Struct(">II")
_LEN_HEAD = struct.Struct(">4sI")
_TSHM_HEAD = struct.Struct(">4sIII")
#: The first 16 bytes of a TSHM: StrucId, SegmLength, ConversationId, RequestId (the rest,
#: from ByteOrder on, is the same for every segment of a type in one byte order).
TSHM_START = _TSHM_HEAD
#: Enum members by value, so decoding a segment costs no enum construction.
_TYPE_OF = {int(t): t for t in SegmentType}
_FLAGS_OF = [ControlFlags(i) for i in range(256)]
_FIRST, _LAST, _CONFIRM = (int(ControlFlags.FIRST), int(ControlFlags.LAST),
                           int(ControlFlags.CONFIRM_REQ))


def header_size(form: str) -> int:
    """The header size of ``form`` ("TSH", "TSHC" or "TSHM").

    :raises ValueError: an unknown form.
    """
    try:
        return FORMS[form]
    except KeyError:
        raise ValueError(f"unknown TSH form {form!r} (known: TSH, TSHC, TSHM)") from None


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment: its header's fields and its body (``payload``, without the header).

    ``big_endian`` is the byte order the segment came in or goes out in (TSH ByteOrder;
    it governs every integer after the TSH's length). ``encoding`` is the MQENC the TSH
    carries; ``None`` (the default) sends the one matching the byte order (0x222
    little-endian, 0x311 big-endian), and a decoded segment has the one it came with.
    ``luwid`` must be 8 bytes (checked when encoded). ``conversation_id`` and
    ``request_id`` are set only for a TSHM (``None`` otherwise). ``form`` is the header the
    segment came in; ``ebcdic`` whether its StrucId was EBCDIC.
    """

    seg_type: SegmentType
    control_flags: ControlFlags = ControlFlags.NONE
    payload: bytes = b""
    big_endian: bool = False
    encoding: int | None = None
    ccsid: int = ASCII_CCSID
    conversation_id: int | None = None
    request_id: int | None = None
    luwid: bytes = _ZERO_LUWID
    control_flags2: int = 0
    form: str = "TSH"
    ebcdic: bool = field(default=False, compare=False)

    # (int.__and__: IntFlag's own & builds a new flag object, ~20 times slower)

    @property
    def first(self) -> bool:
        """The FIRST flag: this segment starts a message."""
        return int.__and__(self.control_flags, _FIRST) != 0

    @property
    def last(self) -> bool:
        """The LAST flag: this segment ends a message."""
        return int.__and__(self.control_flags, _LAST) != 0

    @property
    def confirm_requested(self) -> bool:
        """The CONFIRM_REQ flag: end of a batch (or a heartbeat that wants its answer)."""
        return int.__and__(self.control_flags, _CONFIRM) != 0

    @property
    def ebcdic_text(self) -> bool:
        """Strings after this TSH are EBCDIC: its StrucId was EBCDIC or its CCSID is an
        EBCDIC one (the dissector's rule). Pass it as ``ebcdic=`` to the body decoders."""
        return self.ebcdic or self.ccsid in EBCDIC_CCSIDS

    @property
    def length(self) -> int:
        """The SegmLength this segment has in its own form."""
        return FORMS.get(self.form, HEADER_SIZE) + len(self.payload)


def encode_segment(seg: Segment, *, form: str = "TSH") -> bytes:
    """The bytes of ``seg`` behind a ``form`` header ("TSH", "TSHC" or "TSHM").

    A TSHM carries ``seg.conversation_id``/``request_id`` (0 where ``None``); the other
    forms carry neither. The StrucId is always written in ASCII.

    :raises ValueError: an unknown form, or a field out of range.
    """
    size = header_size(form)
    big = seg.big_endian
    if len(seg.luwid) != 8:
        raise ValueError(f"a LUWID is 8 bytes, got {len(seg.luwid)}")
    encoding = seg.encoding
    if encoding is None:
        encoding = ENC_S390 if big else ENC_NATIVE
    try:
        if size == MAX_HEADER:
            head = _TSHM_HEAD.pack(b"TSHM", size + len(seg.payload), seg.conversation_id or 0,
                                   seg.request_id or 0)
        else:
            head = _LEN_HEAD.pack(_FORM_TO_ID[form], size + len(seg.payload))
        tail = _TAIL[big].pack(1 if big else 2, seg.seg_type, seg.control_flags,
                               seg.control_flags2, seg.luwid, encoding, seg.ccsid)
    except struct.error as exc:
        raise ValueError(f"TSH field out of range: {exc}") from None
    return head + tail + seg.payload


def tshm_header(seg_type: int, flags: int, payload_length: int, *, big_endian: bool = False,
                conversation_id: int = 0, request_id: int = 0) -> bytes:
    """The 36-byte TSHM in front of a ``payload_length``-byte body: the bytes
    :func:`encode_segment` writes for ``Segment(seg_type, flags, payload, big_endian,
    conversation_id=..., request_id=...)`` in form "TSHM" (LUWID zero, the Encoding of the
    byte order, CCSID 819), without building the Segment (a SVRCONN verb's hot path).

    :raises ValueError: a field out of range.
    """
    try:
        return _TSHM_HEAD.pack(b"TSHM", MAX_HEADER + payload_length, conversation_id,
                               request_id) + _TAIL[big_endian].pack(
            1 if big_endian else 2, seg_type, flags, 0, _ZERO_LUWID,
            ENC_S390 if big_endian else ENC_NATIVE, ASCII_CCSID)
    except struct.error as exc:
        raise ValueError(f"TSH field out of range: {exc}") from None


def _form_of(struc_id: bytes) -> tuple[str, bool]:
    """(form, ebcdic) of a StrucId, or FapError."""
    form = _ASCII_TO_FORM.get(struc_id)
    if form is not None:
        return form, False
    form = _EBCDIC_TO_FORM.get(struc_id)
    if form is not None:
        return form, True
    raise FapError(f"not a TSH: StrucId is {struc_id!r}", StatusCode.PROTOCOL_SEGMENT_ERROR)


def _check_length(length: int, size: int, max_segment: int) -> None:
    if length < size:
        raise FapError(f"TSH SegmLength {length} is below the {size}-byte header",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    if length > max_segment:
        raise FapError(f"TSH SegmLength {length} is above the largest segment accepted "
                       f"({max_segment})", StatusCode.PROTOCOL_LENGTH_ERROR)


def _decode(data: bytes | bytearray | memoryview, form: str, ebcdic: bool) -> Segment:
    """A whole segment (header and body, exactly SegmLength bytes) to a Segment."""
    m = FORMS[form] - HEADER_SIZE
    conv = req = None
    if m:
        conv, req = _CONV.unpack_from(data, 8)
    order = data[8 + m]
    if order not in (1, 2):
        raise FapError(f"TSH ByteOrder is {order}, expected 1 (big) or 2 (little)",
                       StatusCode.ENCODING_INVALID)
    big = order == 1
    _, seg_type, flags1, flags2, luwid, encoding, ccsid = _TAIL[big].unpack_from(data, 8 + m)
    kind = _TYPE_OF.get(seg_type)
    if kind is None:
        raise FapError(f"unknown TSH segment type 0x{seg_type:02X}",
                       StatusCode.PROTOCOL_SEGMENT_TYPE)
    return Segment(kind, _FLAGS_OF[flags1], bytes(data[HEADER_SIZE + m:]), big, encoding,
                   ccsid, conv, req, luwid, flags2, form, ebcdic)


def decode_segment(data: bytes | bytearray | memoryview, *, max_segment: int = 0x7FFFFFFF
                   ) -> Segment:
    """One whole segment (``data`` is exactly one TSH and its body) to a :class:`Segment`.

    :raises FapError: a bad StrucId or ByteOrder, a SegmLength that is not ``len(data)``
        or is out of range, or an unknown segment type.
    """
    if len(data) < 8:
        raise FapError(f"a segment needs at least 8 bytes, got {len(data)}",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    form, ebcdic = _form_of(bytes(data[:4]))
    length = _LEN.unpack_from(data, 4)[0]
    _check_length(length, FORMS[form], max_segment)
    if length != len(data):
        raise FapError(f"TSH SegmLength {length} but the segment has {len(data)} bytes",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    return _decode(data, form, ebcdic)


class FrameReader:
    """Cuts a byte stream into segments, refusing bad framing as soon as it is seen.

    ``feed`` takes whatever the socket returned and gives back every segment it completes.
    The reader holds at most one segment in progress and never more than ``max_segment``
    bytes (a segment's declared length is checked against ``max_segment`` as soon as its
    first 8 bytes are in, before any of its body is kept). After a :class:`FapError` the
    stream is mis-framed for good: every later ``feed`` raises again.
    """

    __slots__ = ("max_segment", "_buf", "_need", "_form", "_broken")

    def __init__(self, max_segment: int) -> None:
        if max_segment < MAX_HEADER:
            raise ValueError(f"max_segment {max_segment} is below the {MAX_HEADER}-byte TSHM")
        self.max_segment = max_segment
        self._buf = bytearray()
        self._need = 8  # bytes the current segment has, once known (8 = StrucId + length)
        self._form = "TSH"
        self._broken: FapError | None = None

    @property
    def buffered(self) -> int:
        """Bytes held of the segment in progress."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Segment]:
        """The segments ``data`` completes, in order.

        :raises FapError: a bad StrucId, a length below the header or above
            ``max_segment``, a bad ByteOrder or an unknown segment type.
        """
        frames = self.feed_frames(data)
        try:
            return [decode_frame(frame) for frame in frames]
        except FapError as exc:
            self.refuse(exc)
            raise

    def feed_frames(self, data: bytes | bytearray | memoryview
                    ) -> list[bytes | memoryview]:
        """The whole segments ``data`` completes, in order, as their bytes (each one TSH
        and its body, its StrucId and SegmLength checked): :func:`decode_frame` makes a
        :class:`Segment` of one. A frame may be a view of ``data``.

        :raises FapError: a bad StrucId, or a length below the header or above
            ``max_segment``.
        """
        if self._broken is not None:
            raise FapError(f"stream already refused: {self._broken}", self._broken.status)
        if not self._buf and type(data) is bytes and len(data) >= 8:
            # The usual read on a request/response conversation: one whole segment.
            form = _ASCII_TO_FORM.get(data[:4])
            if (form is not None and _LEN.unpack_from(data, 4)[0] == len(data)
                    and FORMS[form] <= len(data) <= self.max_segment):
                return [data]
        try:
            return self._feed(memoryview(data).cast("B"))
        except FapError as exc:
            self.refuse(exc)
            raise

    def refuse(self, exc: FapError) -> None:
        """Mark the stream mis-framed for good by ``exc`` (a frame it gave did not
        decode): every later feed raises again."""
        self._broken = exc
        self._buf = bytearray()

    def _feed(self, view: memoryview) -> list[bytes | memoryview]:
        out: list[bytes | memoryview] = []
        pos, end = 0, len(view)
        buf = self._buf
        while pos < end:
            if not buf and end - pos >= 8:  # whole segments straight from the input
                form = _form_of(bytes(view[pos:pos + 4]))[0]
                length = _LEN.unpack_from(view, pos + 4)[0]
                _check_length(length, FORMS[form], self.max_segment)
                if end - pos >= length:
                    out.append(view[pos:pos + length])
                    pos += length
                    continue
            take = min(self._need - len(buf), end - pos)
            buf += view[pos:pos + take]
            pos += take
            if len(buf) >= 4 and len(buf) - take < 4:
                self._form = _form_of(bytes(buf[:4]))[0]
            if len(buf) < self._need:
                continue
            if self._need == 8:
                length = _LEN.unpack_from(buf, 4)[0]
                _check_length(length, FORMS[self._form], self.max_segment)
                self._need = length
                if len(buf) < length:
                    continue
            out.append(bytes(buf))
            buf.clear()
            self._need = 8
        return out


def our_tshm_type(frame: bytes | bytearray | memoryview) -> int:
    """The SegmType of a whole segment (one :class:`FrameReader` gave) that is a TSHM in
    ASCII and little-endian byte order, as our ends send them, read from its bytes
    without making a :class:`Segment`; -1 for any other segment (:func:`decode_frame`
    reads those). The body starts at :data:`MAX_HEADER`; ConversationId and RequestId
    are the two big-endian u32 at 8."""
    if frame[16] == 2 and frame[:4] == b"TSHM":
        return frame[17]
    return -1


def decode_frame(frame: bytes | bytearray | memoryview) -> Segment:
    """A whole segment whose framing :class:`FrameReader` checked (its StrucId, and its
    SegmLength: ``len(frame)``) to a :class:`Segment`.

    :raises FapError: a bad ByteOrder or an unknown segment type.
    """
    form, ebcdic = _form_of(bytes(frame[:4]))
    return _decode(frame, form, ebcdic)
