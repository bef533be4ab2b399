"""MESSAGE_DATA: MSH + MQXQH + MQMD (+ MQMDE) + data, segmentation, reassembly
(tpfemu.wire.fap.message)."""

from __future__ import annotations

import struct

import pytest

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.headers import XQH
from tpfemu.mq.structs import MD
from tpfemu.wire.fap import (
    MDE,
    XMIT_OVERHEAD,
    ControlFlags,
    FapError,
    Reassembler,
    Segment,
    SegmentType,
    StatusCode,
    build_transmission,
    decode_message,
    encode_message,
    split_message,
)


def _md(**kw: object) -> MD:
    return MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING, MsgId=b"M" * 24,
              ReplyToQ=b"REPLY.Q", Priority=3, **kw)


def test_msh_layout() -> None:
    """The MSH is 'MSH ', sequence number, DataLength, 0, MsgLength, then the XQH."""
    xmit = build_transmission("LOCAL.Q", "QMB", _md(), b"hi")
    body = encode_message(5, xmit)
    assert struct.unpack_from("<4sIIII", body) == (b"MSH ", 5, len(xmit), 0, len(xmit))
    assert body[20:24] == b"XQH " and body[20:] == xmit


def test_message_without_v2_fields_has_no_mde() -> None:
    """An MQMD whose version-2 fields are defaults travels as XQH + MD v1 + data."""
    xmit = build_transmission("LOCAL.Q", "QMB", _md(), b"data")
    assert len(xmit) == CMQC.MQXQH_LENGTH_1 + 4
    got = decode_message(encode_message(1, xmit), False)
    assert not got.has_mde and got.data == b"data"
    assert got.md.Version == 1 and got.md.Persistence == 1 and got.md.MsgId == b"M" * 24
    assert got.xqh.RemoteQName.rstrip() == b"LOCAL.Q"


def test_v2_fields_travel_in_an_mde_and_are_merged_back() -> None:
    """GroupId etc. go in an MQMDE after the XQH (XQH's MD Format MQHMDE) and come back
    merged into a version-2 MQMD with the data's real Format."""
    md = _md(Version=2, GroupId=b"G" * 24, MsgSeqNumber=4, Offset=10,
             MsgFlags=CMQC.MQMF_LAST_MSG_IN_GROUP)
    xmit = build_transmission("LOCAL.Q", "QMB", md, b"data")
    assert xmit[CMQC.MQXQH_LENGTH_1:CMQC.MQXQH_LENGTH_1 + 4] == b"MDE "
    got = decode_message(encode_message(1, xmit), False)
    assert got.has_mde and got.xqh.MsgDesc.Format == CMQC.MQFMT_MD_EXTENSION
    assert got.md.Version == 2 and got.md.Format == CMQC.MQFMT_STRING
    assert (got.md.GroupId, got.md.MsgSeqNumber, got.md.Offset) == (b"G" * 24, 4, 10)
    assert got.data == b"data"


def test_big_endian_message_converts_headers() -> None:
    """In big-endian the MSH, XQH, MD and MDE integers are big-endian; data is untouched."""
    md = _md(Version=2, MsgSeqNumber=2)
    xmit = build_transmission("LOCAL.Q", "QMB", md, b"\x01\x02")
    body = encode_message(9, xmit, big_endian=True)
    assert struct.unpack_from(">I", body, 4)[0] == 9
    assert struct.unpack_from(">I", body, 20 + 4)[0] == 1  # XQH Version
    assert struct.unpack_from(">I", body, 20 + 104 + 40)[0] == 3  # MD Priority
    got = decode_message(body, True)
    assert got.md.Priority == 3 and got.md.MsgSeqNumber == 2 and got.data == b"\x01\x02"


def test_ebcdic_headers_decode() -> None:
    """An XQH and MD in EBCDIC (a TPF peer's) decode to our character set."""
    from tpfemu.wire.fap.byteorder import pack_wire

    xqh = XQH(RemoteQName=b"LOCAL.Q", RemoteQMgrName=b"QMB", MsgDesc=_md())
    wire = pack_wire(xqh, big_endian=True, ebcdic=True)
    assert wire[:4] == "XQH ".encode("cp500")
    body = struct.pack(">4sIIII", b"MSH ", 1, len(wire) + 1, 0, len(wire) + 1) + wire + b"z"
    got = decode_message(body, True, ebcdic=True)
    assert got.xqh.RemoteQName.rstrip() == b"LOCAL.Q" and got.md.ReplyToQ.rstrip() == b"REPLY.Q"


@pytest.mark.parametrize(("body", "status"), [
    (b"MSH " + bytes(10), StatusCode.PROTOCOL_MSH_ERROR),
    (struct.pack("<4sIIII", b"MSX ", 1, 0, 0, 0), StatusCode.PROTOCOL_MSH_ERROR),
    (struct.pack("<4sIIII", b"MSH ", 1, 9, 0, 9) + b"x" * 8, StatusCode.PROTOCOL_MSH_ERROR),
    (struct.pack("<4sIIII", b"MSH ", 1, 4, 0, 4) + b"XQH ", StatusCode.PROTOCOL_INVALID_DATA),
    (struct.pack("<4sIIII", b"MSH ", 1, 500, 0, 500) + bytes(500),
     StatusCode.PROTOCOL_INVALID_DATA),
])  # fmt: skip
def test_bad_message_bodies_are_refused(body: bytes, status: StatusCode) -> None:
    """A short or wrong MSH, lengths that do not fit, or no XQH: FapError with a status."""
    with pytest.raises(FapError) as info:
        decode_message(body, False)
    assert info.value.status == status


def test_one_segment_when_it_fits() -> None:
    """A message within the transmission size is one FIRST|LAST segment; confirm adds
    CONFIRM_REQ (0x31, the end of a batch)."""
    body = encode_message(1, build_transmission("Q", "QM", _md(), b"x" * 100))
    (seg,) = split_message(body, 32768, confirm=True, luwid=b"L" * 8)
    assert seg.control_flags == 0x31 and seg.payload == body and seg.luwid == b"L" * 8


def test_split_and_reassemble() -> None:
    """A long message is cut into segments no longer than max_trans, each with an MSH,
    FIRST on the first and LAST on the last, and reassembles to the same body."""
    body = encode_message(3, build_transmission("Q", "QM", _md(), bytes(range(256)) * 40))
    segs = split_message(body, 2048, confirm=True)
    assert len(segs) > 4
    assert all(28 + len(s.payload) <= 2048 for s in segs)
    assert all(s.payload[:4] == b"MSH " for s in segs)
    assert segs[0].first and not segs[0].last and segs[-1].last and segs[-1].confirm_requested
    assert not any(s.first or s.last for s in segs[1:-1])
    ra = Reassembler(20000)
    outs = [ra.feed(s) for s in segs]
    assert outs[:-1] == [None] * (len(segs) - 1) and outs[-1] == body
    assert decode_message(outs[-1], False).data == bytes(range(256)) * 40


def test_reassembler_refuses_a_message_too_long_at_its_first_segment() -> None:
    """A first segment announcing more than max_msg_len + headers is refused at once."""
    body = encode_message(1, build_transmission("Q", "QM", _md(), bytes(5000)))
    segs = split_message(body, 1024)
    ra = Reassembler(5000 - XMIT_OVERHEAD)
    with pytest.raises(FapError, match="longer") as info:
        ra.feed(segs[0])
    assert info.value.status == StatusCode.MESSAGE_LENGTH_ERROR
    assert not ra.in_progress


def test_reassembler_refuses_out_of_order_segments() -> None:
    """A segment without FIRST first, a FIRST inside a message, or a different sequence
    number are each refused."""
    body = encode_message(1, build_transmission("Q", "QM", _md(), bytes(3000)))
    segs = split_message(body, 1024)
    with pytest.raises(FapError, match="without FIRST"):
        Reassembler(10000).feed(segs[1])
    ra = Reassembler(10000)
    ra.feed(segs[0])
    with pytest.raises(FapError, match="FIRST segment inside"):
        ra.feed(segs[0])
    other = split_message(encode_message(2, build_transmission("Q", "QM", _md(), bytes(3000))),
                          1024)
    ra = Reassembler(10000)
    ra.feed(segs[0])
    with pytest.raises(FapError, match="differs"):
        ra.feed(other[1])


def test_reassembler_refuses_other_segment_types() -> None:
    """Only MESSAGE_DATA is reassembled."""
    with pytest.raises(FapError) as info:
        Reassembler(100).feed(Segment(SegmentType.STATUS_DATA, ControlFlags.NONE, bytes(12)))
    assert info.value.status == StatusCode.PROTOCOL_SEGMENT_TYPE


def test_one_step_encoder_matches_the_general_one() -> None:
    """encode_message_segment gives the same bytes as encode_segment of encode_message's
    body, and its MESSAGE_DATA decodes back to the message."""
    from tpfemu.wire.fap import encode_message_segment, encode_segment

    xmit = build_transmission("LOCAL.Q", "QMB", _md(), b"payload")
    flags = ControlFlags.FIRST | ControlFlags.LAST | ControlFlags.CONFIRM_REQ
    fast = encode_message_segment(42, xmit, flags=flags, luwid=b"LUW12345")
    slow = encode_segment(Segment(SegmentType.MESSAGE_DATA, flags, encode_message(42, xmit),
                                  luwid=b"LUW12345"))
    assert fast == slow
    assert decode_message(fast[28:], False).data == b"payload"


def test_fast_and_general_xqh_readers_agree() -> None:
    """The one-unpack MQXQH reader and tpfemu.mq's general one give equal structures, and
    md is the XQH's own MQMD when there is no MQMDE."""
    from tpfemu.wire.fap.byteorder import from_wire
    from tpfemu.wire.fap.message import _xqh_fast

    xmit = build_transmission("LOCAL.Q", "QMB", _md(Expiry=77, CorrelId=b"C" * 24), b"d")
    fast = _xqh_fast(memoryview(xmit))
    assert fast is not None and fast == from_wire(XQH, xmit, big_endian=False)
    assert fast.MsgDesc == XQH.from_bytes(xmit).MsgDesc
    got = decode_message(encode_message(1, xmit), False)
    assert got.md is got.xqh.MsgDesc and got.md.Expiry == 77


def test_mde_structure_is_72_bytes() -> None:
    """MQMDE packs to IBM's 72 bytes with StrucId 'MDE ' and Version 2."""
    raw = MDE().pack()
    assert len(raw) == 72 and raw[:4] == b"MDE " and struct.unpack_from("<ii", raw, 4) == (2, 72)


def test_one_unpack_message_reader_agrees_with_the_general_one() -> None:
    """A plain little-endian message read in one unpack gives the same sequence number,
    MQXQH, MQMD and data as the general reader; a message with an MQMDE is left to it."""
    from tpfemu.wire.fap.byteorder import from_wire
    from tpfemu.wire.fap.message import _decode_plain

    xmit = build_transmission("LOCAL.Q", "QMB", _md(Expiry=77, CorrelId=b"C" * 24,
                                                    ReplyToQMgr=b"QMA"), b"data")
    got = _decode_plain(encode_message(9, xmit))
    assert got is not None and got.seq == 9 and got.data == b"data" and not got.has_mde
    assert got.xqh == from_wire(XQH, xmit, big_endian=False)
    assert got.md is got.xqh.MsgDesc and got.md.get() == XQH.from_bytes(xmit).MsgDesc.get()
    with_mde = build_transmission("LOCAL.Q", "QMB", _md(MsgSeqNumber=2), b"data")
    assert _decode_plain(encode_message(9, with_mde)) is None
    assert decode_message(encode_message(9, with_mde), False).md.MsgSeqNumber == 2
    short = encode_message(9, xmit)[:-1]  # MsgLength now one more than the body holds
    assert _decode_plain(short) is None
    with pytest.raises(FapError) as refused:
        decode_message(short, False)
    assert refused.value.status == StatusCode.PROTOCOL_MSH_ERROR


def _frame(xmit: bytes, seq: int = 9, flags: int = ControlFlags.FIRST | ControlFlags.LAST,
           luwid: bytes = b"LUW12345", big_endian: bool = False) -> bytes:
    from tpfemu.wire.fap import encode_segment

    return encode_segment(Segment(SegmentType.MESSAGE_DATA, ControlFlags(flags),
                                  encode_message(seq, xmit, big_endian=big_endian),
                                  big_endian, luwid=luwid))


def test_plain_frame_reader_agrees_with_the_general_readers() -> None:
    """read_plain gives a plain message frame's flags, LUWID, sequence number, remote names
    and persistence as the TSH decoder, the reassembler and the message decoder do, with
    the MQMD (native layout) and data where PLAIN_MD_AT and PLAIN_DATA_AT say."""
    from tpfemu.wire.fap import decode_segment
    from tpfemu.wire.fap.message import PLAIN_DATA_AT, PLAIN_MD_AT, read_plain

    md = _md(Expiry=77, CorrelId=b"C" * 24, ReplyToQMgr=b"QMA")
    frame = _frame(build_transmission("LOCAL.Q", "QMB", md, b"data"),
                   flags=ControlFlags.FIRST | ControlFlags.LAST | ControlFlags.CONFIRM_REQ)
    got = read_plain(memoryview(frame), 100)
    seg = decode_segment(frame)
    msg = decode_message(Reassembler(100).feed(seg), False)
    assert got == (int(seg.control_flags), seg.luwid, msg.seq, msg.xqh.RemoteQName,
                   msg.xqh.RemoteQMgrName, msg.md.Persistence)
    assert got[1] == b"LUW12345" and got[2] == 9 and got[3].rstrip() == b"LOCAL.Q"
    assert frame[PLAIN_MD_AT:PLAIN_DATA_AT] == msg.md.pack()
    assert frame[PLAIN_DATA_AT:] == msg.data == b"data"


def test_plain_frame_reader_leaves_every_other_frame_to_the_general_readers() -> None:
    """read_plain returns None for a big-endian frame, an MQMDE, a segment of a longer
    message, wrong MSH lengths, a message over the length limit and another segment type;
    the general readers decode the first three and refuse the others."""
    from tpfemu.wire.fap import decode_segment, encode_segment
    from tpfemu.wire.fap.message import read_plain

    xmit = build_transmission("LOCAL.Q", "QMB", _md(), b"d" * 100)  # 528 > 10 + 500
    first = _frame(xmit, flags=ControlFlags.FIRST)
    bad_length = bytearray(_frame(xmit))
    struct.pack_into("<I", bad_length, 28 + 8, 1)  # MSH DataLength
    others = {
        "big-endian": _frame(xmit, big_endian=True),
        "MQMDE": _frame(build_transmission("LOCAL.Q", "QMB", _md(MsgSeqNumber=2), b"d")),
        "first segment": first,
        "MSH lengths": bytes(bad_length),
        "too long": _frame(xmit),
        "status": encode_segment(Segment(SegmentType.STATUS_DATA, payload=bytes(12))),
    }
    for name, frame in others.items():
        assert read_plain(frame, 10 if name == "too long" else 4096) is None, name
    for name in ("big-endian", "MQMDE"):
        seg = decode_segment(others[name])
        assert decode_message(Reassembler(4096).feed(seg), seg.big_endian).data.startswith(b"d")
    assert Reassembler(4096).feed(decode_segment(first)) is None  # waits for the rest
    for name, status in (("MSH lengths", StatusCode.PROTOCOL_MSH_ERROR),
                         ("too long", StatusCode.MESSAGE_LENGTH_ERROR)):
        with pytest.raises(FapError) as refused:
            Reassembler(10).feed(decode_segment(others[name]))
        assert refused.value.status == status, name


def test_segment_head_is_the_one_step_encoders_and_takes_flags_later() -> None:
    """message_segment_head followed by the message is encode_message_segment's segment;
    with_flags adds CONFIRM_REQ to it as if it had been encoded with it."""
    from tpfemu.wire.fap import encode_message_segment
    from tpfemu.wire.fap.message import SEGMENT_HEAD, message_segment_head, with_flags

    xmit = build_transmission("LOCAL.Q", "QMB", _md(), b"payload")
    one = ControlFlags.FIRST | ControlFlags.LAST
    head = message_segment_head(5, len(xmit), flags=one, luwid=b"LUW12345")
    assert len(head) == SEGMENT_HEAD
    assert head + xmit == encode_message_segment(5, xmit, flags=one, luwid=b"LUW12345")
    assert with_flags(head, ControlFlags.CONFIRM_REQ) + xmit == encode_message_segment(
        5, xmit, flags=one | ControlFlags.CONFIRM_REQ, luwid=b"LUW12345")
    with pytest.raises(ValueError, match="8 bytes"):
        message_segment_head(5, 10, luwid=b"short")
