"""Control segments: STATUS, RESET, RESYNC, PING and HEARTBEAT bodies, and the segments
that confirm, refuse and close (``reference/channels-bridge-clusters.md`` §1.6, §1.8).

Integers follow the TSH's byte order. Bodies IBM does not publish and the dissector does
not decode are ours and say so (RESYNC).
"""

from __future__ import annotations

import struct

from tpfemu.wire.fap.constants import ControlFlags, SegmentType, StatusCode
from tpfemu.wire.fap.errors import FapError
from tpfemu.wire.fap.tsh import Segment

__all__ = [
    "close_segment", "decode_ping", "decode_reset", "decode_resync", "decode_status",
    "encode_ping", "encode_reset", "encode_resync", "encode_status", "heartbeat_segment",
    "reset_segment", "resync_segment", "status_segment",
]  # fmt: skip

_U32 = {False: struct.Struct("<II"), True: struct.Struct(">II")}
_STATUS = {False: struct.Struct("<III"), True: struct.Struct(">III")}
_RESYNC = {False: struct.Struct("<4sIIII8s"), True: struct.Struct(">4sIIII8s")}
_KNOWN_STATUS = frozenset(int(c) for c in StatusCode)


def _length_checked(payload: bytes, big_endian: bool, what: str, least: int) -> int:
    """The body's own Length field, checked against ``least`` and the body's size."""
    if len(payload) < least:
        raise FapError(f"{what} body is {len(payload)} bytes, needs {least}",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    length = struct.unpack_from(">I" if big_endian else "<I", payload)[0]
    if length < least or length > len(payload):
        raise FapError(f"{what} Length {length} is not within {least}..{len(payload)}",
                       StatusCode.PROTOCOL_LENGTH_ERROR)
    return int(length)


# -- STATUS -------------------------------------------------------------------------------


def encode_status(code: int, data: int = 0, *, big_endian: bool = False) -> bytes:
    """A STATUS body: Length 12, the code, and ``data`` (detail such as the expected
    sequence number after MSG_SEQUENCE_ERROR, or 1 = "committed" after a RESYNC)."""
    return _STATUS[big_endian].pack(12, code, data)


def decode_status(payload: bytes, big_endian: bool) -> tuple[StatusCode | int, int]:
    """(code, data) of a STATUS body; data is 0 when the body's Length is 8. A code we
    do not know is returned as a plain int.

    :raises FapError: a body too short or a Length that does not fit it.
    """
    length = _length_checked(payload, big_endian, "STATUS", 8)
    if length >= 12:
        _, code, data = _STATUS[big_endian].unpack_from(payload)
    else:
        _, code = _U32[big_endian].unpack_from(payload)
        data = 0
    return (StatusCode(code) if code in _KNOWN_STATUS else code), data


def status_segment(code: int, data: int = 0, *, big_endian: bool = False,
                   flags: ControlFlags | None = None, luwid: bytes = bytes(8)) -> Segment:
    """A STATUS segment. By default the flags are none for OK and ERROR for any other
    code; pass ``flags`` to choose (for example ERROR | CLOSE_CHANNEL to refuse a start)."""
    if flags is None:
        flags = ControlFlags.NONE if code == StatusCode.OK else ControlFlags.ERROR
    return Segment(SegmentType.STATUS_DATA, flags, encode_status(code, data,
                   big_endian=big_endian), big_endian, luwid=luwid)


def close_segment(code: int = StatusCode.USER_CLOSED, *, big_endian: bool = False,
                  request_only: bool = False) -> Segment:
    """The STATUS that ends a channel: REQUEST_CLOSE | CLOSE_CHANNEL (the default: close
    now), or REQUEST_CLOSE alone (``request_only``: ask the other end to close after the
    current batch). ``code`` says why (USER_CLOSED for STOP CHL)."""
    flags = ControlFlags.REQUEST_CLOSE
    if not request_only:
        flags |= ControlFlags.CLOSE_CHANNEL
    if code != StatusCode.USER_CLOSED and code != StatusCode.OK:
        flags |= ControlFlags.ERROR
    return status_segment(code, big_endian=big_endian, flags=flags)


# -- RESET, RESYNC ------------------------------------------------------------------------


def encode_reset(seq: int, *, big_endian: bool = False) -> bytes:
    """A RESET body: Length 8 and the new sequence number (the last one used; the next
    message carries ``seq % SEQWRAP + 1``)."""
    return _U32[big_endian].pack(8, seq)


def decode_reset(payload: bytes, big_endian: bool) -> int:
    """The sequence number of a RESET body.

    :raises FapError: a body too short or a Length that does not fit it.
    """
    _length_checked(payload, big_endian, "RESET", 8)
    return int(_U32[big_endian].unpack_from(payload)[1])


def reset_segment(seq: int, *, big_endian: bool = False) -> Segment:
    """A RESET_DATA segment for ``seq``."""
    return Segment(SegmentType.RESET_DATA, ControlFlags.NONE,
                   encode_reset(seq, big_endian=big_endian), big_endian)


def encode_resync(seq: int, luwid: bytes, *, big_endian: bool = False) -> bytes:
    """A RESYNC body (ours; IBM's is not public, and the dissector decodes no layout of
    its own for it): an MSH whose SequenceNumber is the in-doubt batch's last sequence
    number and whose 8 bytes of data are the batch's LUWID. An MSH is what tshark shows
    cleanly (sequence number included) after a RESYNC_DATA TSH; :func:`resync_segment`
    also puts the LUWID in the TSH."""
    if len(luwid) != 8:
        raise ValueError(f"a LUWID is 8 bytes, got {len(luwid)}")
    return _RESYNC[big_endian].pack(b"MSH ", seq, 8, 0, 8, luwid)


def decode_resync(payload: bytes, big_endian: bool) -> tuple[int, bytes]:
    """(sequence number, LUWID) of a RESYNC body.

    :raises FapError: a body that is not an MSH with 8 bytes of LUWID
        (status PROTOCOL_INVALID_DATA).
    """
    if len(payload) != _RESYNC[big_endian].size:
        raise FapError(f"RESYNC body is {len(payload)} bytes, expected "
                       f"{_RESYNC[big_endian].size}", StatusCode.PROTOCOL_LENGTH_ERROR)
    sid, seq, buf_len, _, msg_len, luwid = _RESYNC[big_endian].unpack(payload)
    if sid != b"MSH " or buf_len != 8 or msg_len != 8:
        raise FapError(f"RESYNC body is not an MSH carrying a LUWID ({sid!r}, lengths "
                       f"{buf_len}/{msg_len})", StatusCode.PROTOCOL_INVALID_DATA)
    return int(seq), bytes(luwid)


def resync_segment(seq: int, luwid: bytes, *, big_endian: bool = False) -> Segment:
    """A RESYNC_DATA segment for the in-doubt batch (``seq``, ``luwid``)."""
    return Segment(SegmentType.RESYNC_DATA, ControlFlags.NONE,
                   encode_resync(seq, luwid, big_endian=big_endian), big_endian, luwid=luwid)


# -- PING, HEARTBEAT ----------------------------------------------------------------------


def encode_ping(data: bytes, *, big_endian: bool = False) -> bytes:
    """A PING body: Length (4 + the data) and the data the other end echoes."""
    return struct.pack(">I" if big_endian else "<I", 4 + len(data)) + data


def decode_ping(payload: bytes, big_endian: bool) -> bytes:
    """The data of a PING body.

    :raises FapError: a body too short or a Length that does not fit it.
    """
    length = _length_checked(payload, big_endian, "PING", 4)
    return bytes(payload[4:length])


def heartbeat_segment(*, request: bool = True, big_endian: bool = False) -> Segment:
    """A HEARTBEAT: the TSH alone. A request (``request``) has CONFIRM_REQ; the answer
    has no flags."""
    return Segment(SegmentType.HEARTBEAT,
                   ControlFlags.CONFIRM_REQ if request else ControlFlags.NONE, b"", big_endian)
