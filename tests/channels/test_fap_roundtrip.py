"""Hypothesis round trips: every FAP structure decodes to what was encoded, in both byte
orders."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.structs import MD
from tpfemu.wire.fap import (
    ControlFlags,
    FrameReader,
    InitialData,
    Reassembler,
    Segment,
    SegmentType,
    build_transmission,
    decode_id,
    decode_message,
    decode_ping,
    decode_reset,
    decode_resync,
    decode_segment,
    decode_status,
    encode_id,
    encode_message,
    encode_ping,
    encode_reset,
    encode_resync,
    encode_segment,
    encode_status,
    split_message,
)

u32 = st.integers(0, 0xFFFFFFFF)
u16 = st.integers(0, 0xFFFF)
u8 = st.integers(0, 0xFF)
orders = st.booleans()
names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._%/", max_size=20)
FAST = settings(max_examples=60, deadline=None)


@st.composite
def segments(draw: st.DrawFn) -> tuple[Segment, str]:
    form = draw(st.sampled_from(["TSH", "TSHC", "TSHM"]))
    tshm = form == "TSHM"
    seg = Segment(
        draw(st.sampled_from(list(SegmentType))), ControlFlags(draw(u8)),
        draw(st.binary(max_size=300)), draw(orders), draw(u32), draw(u16),
        draw(u32) if tshm else None, draw(u32) if tshm else None,
        draw(st.binary(min_size=8, max_size=8)), draw(u8), form)
    return seg, form


@FAST
@given(segments())
def test_segment_round_trip(case: tuple[Segment, str]) -> None:
    """Any segment, any form, either byte order: decode(encode(s)) == s, through the
    FrameReader too."""
    seg, form = case
    raw = encode_segment(seg, form=form)
    assert decode_segment(raw) == seg
    assert FrameReader(max(len(raw), 36)).feed(raw) == [seg]


@st.composite
def initial_data(draw: st.DrawFn) -> InitialData:
    level = draw(st.sampled_from([3, 8, 10, 11, 12, 14]))
    base = InitialData(draw(names), fap_level=level, cap_flags1=draw(u8),
                       ecap_flags1=draw(u8), ini_err_flags1=draw(u8), batch_size=draw(u16),
                       max_trans_size=draw(u32), max_msg_len=draw(u32), seq_wrap=draw(u32))
    if level < 4:
        return replace(base, cap_flags1=base.cap_flags1)
    base = replace(base, qmgr_name=draw(names), cap_flags2=draw(u8), ecap_flags2=draw(u8),
                   ccsid=draw(st.sampled_from([819, 437, 1208, 500, 37])),
                   heartbeat_interval=draw(u32))
    if level < 9:
        return base
    return replace(base, ini_err_flags2=draw(u8), conv_per_socket=draw(u32), cap_flags3=draw(u8),
                   ecap_flags3=draw(u8), process_id=draw(u32), thread_id=draw(u32),
                   trace_id=draw(u32), ssl_key_reset=draw(u32),
                   product_id=draw(names.map(lambda s: s[:12])),
                   qmgr_id=draw(names), hdr_comp_list=draw(st.binary(min_size=2, max_size=2)),
                   msg_comp_list=draw(st.binary(min_size=16, max_size=16)))


@FAST
@given(initial_data(), orders, st.booleans())
def test_id_round_trip(data: InitialData, big: bool, ebcdic: bool) -> None:
    """Any ID at any FAP level, either byte order, ASCII or EBCDIC, decodes to itself."""
    got = decode_id(encode_id(data, big_endian=big, ebcdic=ebcdic), big)
    assert got == replace(data, encoding=0x311 if big else 0x222)


@FAST
@given(u32, u32, st.binary(min_size=8, max_size=8), st.binary(max_size=100), orders)
def test_control_bodies_round_trip(a: int, b: int, luwid: bytes, data: bytes, big: bool
                                   ) -> None:
    """STATUS, RESET, RESYNC and PING bodies decode to what was encoded."""
    assert decode_status(encode_status(a, b, big_endian=big), big) == (a, b)
    assert decode_reset(encode_reset(a, big_endian=big), big) == a
    assert decode_resync(encode_resync(a, luwid, big_endian=big), big) == (a, luwid)
    assert decode_ping(encode_ping(data, big_endian=big), big) == data


text48 = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ.", max_size=48).map(str.encode)


@st.composite
def mds(draw: st.DrawFn) -> MD:
    md = MD(Report=draw(u32), MsgType=draw(u32), Expiry=draw(st.integers(-1, 99999)),
            Feedback=draw(u32), Encoding=draw(u32), CodedCharSetId=draw(u32),
            Format=draw(st.sampled_from([CMQC.MQFMT_STRING, CMQC.MQFMT_NONE])),
            Priority=draw(st.integers(0, 9)), Persistence=draw(st.integers(0, 1)),
            MsgId=draw(st.binary(max_size=24)), CorrelId=draw(st.binary(max_size=24)),
            BackoutCount=draw(u16), ReplyToQ=draw(text48), ReplyToQMgr=draw(text48),
            PutApplName=draw(text48.map(lambda b: b[:28])))
    if draw(st.booleans()):
        md.set(Version=2, GroupId=draw(st.binary(max_size=24)), MsgSeqNumber=draw(u16),
               Offset=draw(u16), MsgFlags=draw(st.sampled_from([0, 8, 16])),
               OriginalLength=draw(st.integers(-1, 9999)))
    return md


@FAST
@given(mds(), st.binary(max_size=5000), u32, orders, st.sampled_from([1024, 2048, 65536]))
def test_message_round_trip(md: MD, data: bytes, seq: int, big: bool, max_trans: int) -> None:
    """Any MQMD (v1, or v2 through an MQMDE) and data survive encode, split, reassemble
    and decode, in either byte order."""
    xmit = build_transmission(b"LOCAL.Q", b"QMB", md, data)
    body = encode_message(seq, xmit, big_endian=big)
    ra = Reassembler(len(data))
    outs = [ra.feed(s) for s in split_message(body, max_trans, big_endian=big)]
    assert outs[-1] == body
    got = decode_message(outs[-1], big)
    assert got.seq == seq and got.data == data
    expected = md.copy()
    if md.Version == 2 and not got.has_mde:
        expected.Version = 1  # its version-2 fields were all defaults
    assert got.md == expected
