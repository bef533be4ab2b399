"""STATUS, RESET, RESYNC, PING and HEARTBEAT bodies (tpfemu.wire.fap.control)."""

from __future__ import annotations

import struct

import pytest

from tpfemu.wire.fap import (
    ControlFlags,
    FapError,
    SegmentType,
    StatusCode,
    close_segment,
    decode_ping,
    decode_reset,
    decode_resync,
    decode_status,
    encode_ping,
    encode_reset,
    encode_resync,
    encode_status,
    heartbeat_segment,
    resync_segment,
    status_segment,
)


def test_status_body_layout() -> None:
    """A STATUS body is Length 12, code, value, in the chosen byte order."""
    assert encode_status(StatusCode.MSG_SEQUENCE_ERROR, 7) == struct.pack("<III", 12, 4, 7)
    assert encode_status(4, 7, big_endian=True) == struct.pack(">III", 12, 4, 7)


def test_status_of_length_8_has_no_value() -> None:
    """An 8-byte STATUS (code only) decodes with value 0."""
    assert decode_status(struct.pack(">II", 8, 1), True) == (StatusCode.NO_CHANNEL, 0)


def test_unknown_status_code_is_kept_as_int() -> None:
    """A code we do not know comes back as a plain int, not an error."""
    code, _ = decode_status(encode_status(0x77), False)
    assert code == 0x77 and not isinstance(code, StatusCode)


@pytest.mark.parametrize("raw", [b"", struct.pack("<II", 4, 0), struct.pack("<II", 40, 0)])
def test_bad_status_length_is_refused(raw: bytes) -> None:
    """A STATUS body too short, or whose Length does not fit it, is refused."""
    with pytest.raises(FapError) as info:
        decode_status(raw, False)
    assert info.value.status == StatusCode.PROTOCOL_LENGTH_ERROR


def test_status_segment_flags() -> None:
    """OK carries no flags; an error code carries ERROR; a close has REQUEST_CLOSE and
    CLOSE_CHANNEL; a close request alone has REQUEST_CLOSE."""
    assert status_segment(StatusCode.OK).control_flags == ControlFlags.NONE
    assert status_segment(StatusCode.NO_CHANNEL).control_flags == ControlFlags.ERROR
    close = close_segment()
    assert close.control_flags == ControlFlags.REQUEST_CLOSE | ControlFlags.CLOSE_CHANNEL
    assert decode_status(close.payload, False)[0] == StatusCode.USER_CLOSED
    assert close_segment(request_only=True).control_flags == ControlFlags.REQUEST_CLOSE
    assert close_segment(StatusCode.QM_TERMINATING).control_flags & ControlFlags.ERROR


def test_reset_and_resync_round_trip() -> None:
    """RESET carries a sequence number; RESYNC a sequence number and a LUWID."""
    assert decode_reset(encode_reset(42, big_endian=True), True) == 42
    assert decode_resync(encode_resync(9, b"LUW00001"), False) == (9, b"LUW00001")
    with pytest.raises(ValueError, match="8 bytes"):
        encode_resync(1, b"short")
    with pytest.raises(FapError):
        decode_resync(encode_reset(1), False)
    with pytest.raises(FapError, match="not an MSH"):
        decode_resync(b"XSH " + encode_resync(9, b"LUW00001")[4:], False)


def test_resync_body_is_an_msh_with_the_luwid() -> None:
    """Our RESYNC body is an MSH (sequence number, lengths 8) and the 8-byte LUWID, and
    resync_segment puts the LUWID in the TSH as well."""
    body = encode_resync(9, b"LUW00001", big_endian=True)
    assert body == struct.pack(">4sIIII", b"MSH ", 9, 8, 0, 8) + b"LUW00001"
    assert resync_segment(9, b"LUW00001").luwid == b"LUW00001"


def test_ping_echoes_data() -> None:
    """A PING body carries its data behind a Length."""
    assert decode_ping(encode_ping(b"abc"), False) == b"abc"


def test_heartbeat_request_and_answer() -> None:
    """A heartbeat request has CONFIRM_REQ and no body; the answer has no flags."""
    req = heartbeat_segment()
    assert req.seg_type == SegmentType.HEARTBEAT and req.confirm_requested and not req.payload
    assert heartbeat_segment(request=False).control_flags == ControlFlags.NONE
