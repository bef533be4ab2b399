"""INITIAL_DATA and its negotiation (tpfemu.wire.fap.initial)."""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest

from tpfemu.wire.fap import (
    FapError,
    IniErrFlags1,
    InitialData,
    NegotiationError,
    StatusCode,
    decode_id,
    encode_id,
    id_size,
    negotiate,
)

A = InitialData("A.TO.B", "QMA", batch_size=50, max_msg_len=4_194_304, heartbeat_interval=300)
B = InitialData("A.TO.B", "QMB", batch_size=20, max_msg_len=100_000, heartbeat_interval=600,
                max_trans_size=16384)


def test_id_layout_offsets() -> None:
    """The ID's fields sit where the dissector reads them (batch at 10, SEQWRAP at 20,
    channel at 24, CCSID at 46, queue manager at 48, HBINT at 96, SHARECNV at 128)."""
    raw = encode_id(replace(A, conv_per_socket=10, ccsid=437))
    assert raw[:4] == b"ID  " and raw[4] == 10
    assert struct.unpack_from("<H", raw, 10)[0] == 50
    assert struct.unpack_from("<I", raw, 20)[0] == 999_999_999
    assert raw[24:44] == b"A.TO.B".ljust(20)
    assert struct.unpack_from("<H", raw, 46)[0] == 437
    assert raw[48:96] == b"QMA".ljust(48)
    assert struct.unpack_from("<I", raw, 96)[0] == 300
    assert struct.unpack_from("<I", raw, 128)[0] == 10


@pytest.mark.parametrize(("level", "size"), [(3, 44), (8, 102), (10, 208), (11, 240), (14, 240)])
def test_id_size_follows_fap_level(level: int, size: int) -> None:
    """The ID is 44, 102, 208 or 240 bytes as the FAP level goes up."""
    assert id_size(level) == size
    assert len(encode_id(replace(A, fap_level=level))) == size


def test_short_id_keeps_defaults_for_missing_fields() -> None:
    """A 44-byte ID (FAP 3) decodes its fields and leaves the later ones at defaults."""
    got = decode_id(encode_id(replace(A, fap_level=3)), False)
    assert got.channel_name == "A.TO.B" and got.batch_size == 50 and got.qmgr_name == ""


def test_ebcdic_id_round_trips() -> None:
    """An EBCDIC, big-endian ID (a TPF peer's) decodes to the same names and numbers."""
    raw = encode_id(replace(A, ccsid=500), big_endian=True, ebcdic=True)
    assert raw[:4] == b"\xc9\xc4\x40\x40" and raw[24:30] == "A.TO.B".encode("cp500")
    got = decode_id(raw, True)
    assert got == replace(A, ccsid=500, encoding=0x311)


def test_bad_id_is_refused() -> None:
    """Too short, or without the ID StrucId: refused with PROTOCOL_ID_ERROR."""
    for raw in (b"ID  " + bytes(10), b"XX  " + bytes(100)):
        with pytest.raises(FapError) as info:
            decode_id(raw, False)
        assert info.value.status == StatusCode.PROTOCOL_ID_ERROR


def test_long_name_is_refused() -> None:
    """A channel name over 20 characters is refused, naming the field."""
    with pytest.raises(ValueError, match="channel name"):
        encode_id(replace(A, channel_name="X" * 21))


def test_negotiation_takes_lower_sizes_and_larger_heartbeat() -> None:
    """Batch size, message length and transmission size are the lower; HBINT the larger."""
    got = negotiate(A, B)
    assert (got.batch_size, got.max_msg_len, got.max_trans_size) == (20, 100_000, 16384)
    assert got.heartbeat_interval == 600
    assert got.qmgr_name == "QMA"
    assert negotiate(B, A).batch_size == 20 and negotiate(B, A).heartbeat_interval == 600


def test_negotiation_flags_what_changed_for_the_other_end() -> None:
    """IniErrFlags1 names each value the other end offered that was changed."""
    assert negotiate(A, B).ini_err_flags1 == 0
    flags = IniErrFlags1(negotiate(B, A).ini_err_flags1)
    assert flags == (IniErrFlags1.MAX_MSG_PER_BATCH | IniErrFlags1.MAX_MSG_SIZE
                     | IniErrFlags1.MAX_TRANSMISSION_SIZE | IniErrFlags1.HEARTBEAT_INTERVAL)


def test_seqwrap_mismatch_is_refused() -> None:
    """Unequal SEQWRAP fails with WRAP_VALUE_ERROR and the SEQ_WRAP_VALUE flag."""
    with pytest.raises(NegotiationError, match="SEQWRAP") as info:
        negotiate(A, replace(B, seq_wrap=9999))
    assert info.value.status == StatusCode.WRAP_VALUE_ERROR
    assert info.value.ini_err_flags1 == IniErrFlags1.SEQ_WRAP_VALUE
    assert isinstance(info.value, FapError)


def test_too_small_transmission_size_is_refused() -> None:
    """A transmission size too small for a message's headers fails the negotiation."""
    with pytest.raises(NegotiationError, match="max_trans_size") as info:
        negotiate(A, replace(B, max_trans_size=100))
    assert info.value.status == StatusCode.NEGOTIATION_FAILED


def test_fast_needs_both_ends() -> None:
    """NPMSPEED(FAST) holds only when both ends offer it."""
    fast_a, fast_b = A.with_fast(True), B.with_fast(True)
    assert negotiate(fast_a, fast_b).fast
    assert not negotiate(fast_a, B).fast
    assert not negotiate(A, fast_b).fast


def test_sharecnv_is_the_lower() -> None:
    """Conversations per socket negotiate to the lower of the two."""
    assert negotiate(replace(A, conv_per_socket=10), replace(B, conv_per_socket=1)
                     ).conv_per_socket == 1
