"""The TSH and the framing of a byte stream (tpfemu.wire.fap.tsh)."""

from __future__ import annotations

import struct
import tracemalloc

import pytest

from tpfemu.wire.fap import (
    ControlFlags,
    FapError,
    FrameReader,
    Segment,
    SegmentType,
    StatusCode,
    decode_segment,
    encode_segment,
)


def _hb(**kw: object) -> Segment:
    return Segment(SegmentType.HEARTBEAT, ControlFlags.CONFIRM_REQ, **kw)  # type: ignore[arg-type]


def test_tsh_layout_is_byte_exact() -> None:
    """A TSH is 28 bytes: StrucId, big-endian length, byte order, type, flags, LUWID,
    encoding and CCSID in the segment's byte order."""
    seg = Segment(SegmentType.MESSAGE_DATA, ControlFlags.FIRST | ControlFlags.LAST, b"xyz",
                  luwid=b"ABCDEFGH", ccsid=437)
    raw = encode_segment(seg)
    assert raw[:4] == b"TSH "
    assert struct.unpack(">I", raw[4:8])[0] == 31
    assert raw[8:12] == bytes([2, 4, 0x30, 0])
    assert raw[12:20] == b"ABCDEFGH"
    assert struct.unpack("<IH", raw[20:26]) == (0x222, 437)
    assert raw[26:28] == b"\0\0" and raw[28:] == b"xyz"


def test_big_endian_tsh_announces_its_order() -> None:
    """A big-endian segment says ByteOrder 1, encoding 0x311, with big-endian integers."""
    raw = encode_segment(_hb(big_endian=True, ccsid=500))
    assert raw[8] == 1
    assert struct.unpack(">IH", raw[20:26]) == (0x311, 500)
    assert decode_segment(raw) == _hb(big_endian=True, ccsid=500, encoding=0x311)


def test_tshm_carries_conversation_and_request_ids() -> None:
    """A TSHM is 36 bytes with ConversationId and RequestId big-endian at 8 and 12."""
    seg = Segment(SegmentType.MQCONN, payload=b"p", encoding=0x222, conversation_id=1,
                  request_id=5, form="TSHM")
    raw = encode_segment(seg, form="TSHM")
    assert raw[:4] == b"TSHM" and len(raw) == 37
    assert struct.unpack(">II", raw[8:16]) == (1, 5)
    assert decode_segment(raw) == seg


def test_default_encoding_follows_the_byte_order() -> None:
    """A segment without an encoding is sent with 0x222 little-endian or 0x311 big-endian,
    and decodes with the encoding it came with."""
    assert decode_segment(encode_segment(_hb())).encoding == 0x222
    assert decode_segment(encode_segment(_hb(big_endian=True))).encoding == 0x311
    assert decode_segment(encode_segment(_hb(encoding=0x111, big_endian=True))).encoding == 0x111


def test_luwid_must_be_8_bytes() -> None:
    """A LUWID of another length is refused when the segment is encoded."""
    with pytest.raises(ValueError, match="8 bytes"):
        encode_segment(_hb(luwid=b"short"))


def test_ebcdic_strucid_is_accepted() -> None:
    """A TSH whose StrucId is EBCDIC decodes, and says it was EBCDIC."""
    raw = b"\xe3\xe2\xc8\x40" + encode_segment(_hb())[4:]
    seg = decode_segment(raw)
    assert seg.seg_type == SegmentType.HEARTBEAT and seg.ebcdic and seg.ebcdic_text
    assert _hb(ccsid=500).ebcdic_text and not _hb(ccsid=819).ebcdic_text


def test_frame_reader_splits_a_stream_fed_byte_by_byte() -> None:
    """Segments fed one byte at a time come out whole and in order."""
    segs = [_hb(encoding=0x222), Segment(SegmentType.STATUS_DATA, payload=bytes(12),
                                         encoding=0x222), _hb(big_endian=True, encoding=0x311)]
    stream = b"".join(encode_segment(s) for s in segs)
    reader, out = FrameReader(1000), []
    for i in range(len(stream)):
        out += reader.feed(stream[i:i + 1])
    assert out == segs and reader.buffered == 0


def test_frame_reader_gives_several_segments_from_one_feed() -> None:
    """One feed holding three segments and half of a fourth gives three."""
    stream = encode_segment(_hb()) * 3 + encode_segment(_hb())[:10]
    reader = FrameReader(100)
    assert len(reader.feed(stream)) == 3
    assert reader.buffered == 10


@pytest.mark.parametrize(("raw", "status", "words"), [
    (b"XSH " + bytes(24), StatusCode.PROTOCOL_SEGMENT_ERROR, "StrucId"),
    (b"TSH " + struct.pack(">I", 27) + bytes(20), StatusCode.PROTOCOL_LENGTH_ERROR, "below"),
    (b"TSH " + struct.pack(">I", 0x7FFFFFFF), StatusCode.PROTOCOL_LENGTH_ERROR, "above"),
    (b"TSH " + struct.pack(">I", 28) + bytes([2, 0x42]) + bytes(18),
     StatusCode.PROTOCOL_SEGMENT_TYPE, "0x42"),
    (b"TSH " + struct.pack(">I", 28) + bytes([3, 9]) + bytes(18),
     StatusCode.ENCODING_INVALID, "ByteOrder"),
])  # fmt: skip
def test_frame_reader_refuses_bad_framing(raw: bytes, status: StatusCode, words: str) -> None:
    """Bad StrucId, short or huge length, unknown type and bad byte order are each refused
    with the status to send back and a message naming the fault."""
    with pytest.raises(FapError, match=words) as info:
        FrameReader(4096).feed(raw)
    assert info.value.status == status


def test_declared_2gb_is_refused_from_the_header_alone() -> None:
    """A header declaring 2 GB is refused after its 8 bytes, and nothing is kept."""
    reader = FrameReader(65536)
    tracemalloc.start()
    try:
        with pytest.raises(FapError, match="2147483647"):
            reader.feed(b"TSH " + struct.pack(">I", 0x7FFFFFFF))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 65536
    assert reader.buffered == 0


def test_reader_stays_refused_after_an_error() -> None:
    """After a framing error every later feed raises: the stream has lost its framing."""
    reader = FrameReader(4096)
    with pytest.raises(FapError):
        reader.feed(b"GARBAGE!")
    with pytest.raises(FapError, match="already refused"):
        reader.feed(encode_segment(_hb()))


def test_reader_holds_no_more_than_max_segment() -> None:
    """A segment at exactly max_segment is accepted; one byte more is refused at once."""
    payload = bytes(100 - 28)
    ok = encode_segment(Segment(SegmentType.STATUS_DATA, payload=payload))
    assert FrameReader(100).feed(ok)[0].payload == payload
    big = encode_segment(Segment(SegmentType.STATUS_DATA, payload=payload + b"x"))
    reader = FrameReader(100)
    with pytest.raises(FapError):
        reader.feed(big[:8])
    assert reader.buffered == 0


def test_decode_segment_checks_the_length_against_the_data() -> None:
    """decode_segment refuses bytes whose SegmLength is not their length."""
    raw = encode_segment(_hb())
    with pytest.raises(FapError, match="SegmLength 28 but"):
        decode_segment(raw + b"x")


def test_segment_flag_helpers() -> None:
    """first/last/confirm_requested read the control flags."""
    seg = Segment(SegmentType.MESSAGE_DATA,
                  ControlFlags.FIRST | ControlFlags.LAST | ControlFlags.CONFIRM_REQ)
    assert seg.first and seg.last and seg.confirm_requested
    assert not Segment(SegmentType.MESSAGE_DATA).first


def test_client_request_types_have_reply_types() -> None:
    """A client verb's reply type is the request + 0x10; a channel type has none."""
    assert SegmentType.MQCONN.reply == SegmentType.MQCONN_REPLY
    assert SegmentType.XA_COMMIT.reply == SegmentType.XA_COMMIT_REPLY
    with pytest.raises(ValueError, match="HEARTBEAT"):
        _ = SegmentType.HEARTBEAT.reply


def test_unknown_form_is_refused() -> None:
    """encode_segment names an unknown header form."""
    with pytest.raises(ValueError, match="TSHX"):
        encode_segment(_hb(), form="TSHX")


def test_frames_are_the_segments_bytes_and_decode_to_the_same_segments() -> None:
    """feed_frames gives each whole segment's bytes (fed whole or byte by byte), and
    decode_frame makes of them the segments feed gives."""
    from tpfemu.wire.fap.tsh import decode_frame

    segs = [_hb(encoding=0x222), Segment(SegmentType.STATUS_DATA, payload=bytes(12),
                                         encoding=0x222), _hb(big_endian=True, encoding=0x311)]
    encoded = [encode_segment(s) for s in segs]
    stream = b"".join(encoded)
    frames = FrameReader(1000).feed_frames(stream)
    assert [bytes(f) for f in frames] == encoded
    assert [decode_frame(f) for f in frames] == segs
    reader, pieces = FrameReader(1000), []
    for i in range(len(stream)):
        pieces += reader.feed_frames(stream[i:i + 1])
    assert [bytes(f) for f in pieces] == encoded


def test_a_frame_of_unknown_type_is_refused_when_decoded() -> None:
    """feed_frames checks the framing only; decode_frame refuses an unknown segment type
    with PROTOCOL_SEGMENT_TYPE, and feed refuses it, and the stream, at once."""
    from tpfemu.wire.fap.tsh import decode_frame

    raw = b"TSH " + struct.pack(">I", 28) + bytes([2, 0x42]) + bytes(18)
    (frame,) = FrameReader(4096).feed_frames(raw)
    with pytest.raises(FapError, match="0x42") as info:
        decode_frame(frame)
    assert info.value.status == StatusCode.PROTOCOL_SEGMENT_TYPE
    reader = FrameReader(4096)
    with pytest.raises(FapError):
        reader.feed(raw + encode_segment(_hb()))
    with pytest.raises(FapError, match="already refused"):
        reader.feed_frames(encode_segment(_hb()))
