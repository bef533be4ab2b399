"""The client verbs and the user id bodies (tpfemu.wire.fap.verbs, .auth)."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.wire.fap import (
    CONN_SIZES,
    VERB_TYPES,
    ApiHeader,
    ConnAuth,
    ConnBody,
    FapError,
    InqBody,
    SegmentType,
    StatusCode,
    UserIdData,
    Verb,
    decode_caut,
    decode_uid,
    decode_verb,
    encode_caut,
    encode_uid,
    encode_verb,
)
from tpfemu.wire.fap.verbs import message_parts

T = SegmentType
FAST = settings(max_examples=40, deadline=None)


def _verbs() -> dict[SegmentType, Verb]:
    """One filled-in Verb for every verb type."""
    api = ApiHeader(4096, CMQC.MQCC_OK, CMQC.MQRC_NONE, 7)
    od = OD(Version=2, ObjectName=b"APP.Q", ObjectQMgrName=b"QM1")
    md = MD(Version=2, Persistence=1, Format=CMQC.MQFMT_STRING, MsgId=b"M" * 24,
            MsgSeqNumber=3)
    conn = ConnBody("QM1", "orders.py", options=3, xoptions=CMQC.MQCNO_NONE, fcno_version=2,
                    conn_tag=b"T" * 128, qmgr_id="QM1_2026")
    inq = InqBody([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_DESC], 1, 64)
    values = InqBody([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_DESC], 1, 64, [12],
                     b"orders".ljust(64))
    verbs = {t: Verb(api) for t in VERB_TYPES}
    verbs[T.MQCONN] = verbs[T.MQCONN_REPLY] = Verb(api, conn=conn)
    verbs[T.MQOPEN] = verbs[T.MQOPEN_REPLY] = Verb(api, od=od, options=CMQC.MQOO_OUTPUT)
    verbs[T.MQCLOSE] = verbs[T.MQCLOSE_REPLY] = Verb(api, options=CMQC.MQCO_NONE)
    for t in (T.MQPUT, T.MQPUT_REPLY):
        verbs[t] = Verb(api, md=md, pmo=PMO(Version=2), data=b"hello" if t == T.MQPUT else b"")
    for t in (T.MQPUT1, T.MQPUT1_REPLY):
        verbs[t] = Verb(api, od=od, md=md, pmo=PMO(), data=b"one" if t == T.MQPUT1 else b"")
    verbs[T.MQGET] = Verb(api, md=md, gmo=GMO(Version=4), buffer_length=65536)
    verbs[T.MQGET_REPLY] = Verb(api, md=md, gmo=GMO(Version=3), data=b"got it",
                                 data_length=6)
    verbs[T.MQINQ] = Verb(api, inq=inq)
    verbs[T.MQINQ_REPLY] = verbs[T.MQSET] = Verb(api, inq=values)
    return verbs


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("seg_type", sorted(VERB_TYPES))
def test_every_verb_round_trips(seg_type: SegmentType, big: bool) -> None:
    """Every verb's request and reply decode to what was encoded, in both byte orders."""
    verb = _verbs()[seg_type]
    body = encode_verb(seg_type, verb, big_endian=big)
    assert decode_verb(seg_type, body, big) == verb


def test_api_header_layout() -> None:
    """The API header: ReplyLength big-endian, then CompCode, Reason, Hobj in the TSH's
    order."""
    body = encode_verb(T.MQCMIT_REPLY, Verb(ApiHeader(16, 2, 2009, 0xFFFFFFFF)))
    assert body == struct.pack(">I", 16) + struct.pack("<iiI", 2, 2009, 0xFFFFFFFF)


def test_put_layout() -> None:
    """MQPUT is API header + MQMD + MQPMO + DataLength + data."""
    md, pmo = MD(), PMO()
    body = encode_verb(T.MQPUT, Verb(md=md, pmo=pmo, data=b"xyz"))
    assert body[16:20] == b"MD  " and body[16 + 324:16 + 324 + 4] == b"PMO "
    assert body[16 + 324 + 128:] == struct.pack("<I", 3) + b"xyz"


@pytest.mark.parametrize("version", sorted(CONN_SIZES))
def test_conn_sizes_follow_the_fcno_version(version: int) -> None:
    """MQCONN is 120, 260, 332 or 460 bytes after the API header by FCNO version."""
    conn = ConnBody("QM1", "app", fcno_version=version, ret_conn_tag=b"R" * 128)
    body = encode_verb(T.MQCONN, Verb(conn=conn))
    assert len(body) - 16 == CONN_SIZES[version]
    got = decode_verb(T.MQCONN, body, False).conn
    assert got == (conn if version >= 3 else ConnBody("QM1", "app", fcno_version=version))


def test_oldest_conn_form_decodes() -> None:
    """A 112-byte MQCONN (no Options) decodes with Options 0."""
    body = encode_verb(T.MQCONN, Verb(conn=ConnBody("QM9", "old")))[:16 + 112]
    conn = decode_verb(T.MQCONN, body, False).conn
    assert conn is not None and (conn.qmgr_name, conn.appl_name, conn.options) == ("QM9", "old", 0)


@pytest.mark.parametrize(("seg_type", "body", "status"), [
    (T.MQCMIT, b"short", StatusCode.PROTOCOL_LENGTH_ERROR),
    (T.MQCMIT, bytes(17), StatusCode.PROTOCOL_LENGTH_ERROR),
    (T.MQCONN, bytes(16 + 100), StatusCode.PROTOCOL_LENGTH_ERROR),
    (T.MQOPEN, bytes(16) + b"XX  " + bytes(200), StatusCode.PROTOCOL_INVALID_DATA),
    (T.MQPUT, bytes(16) + MD().pack() + PMO().pack() + struct.pack("<I", 99) + b"x",
     StatusCode.PROTOCOL_LENGTH_ERROR),
    (T.MQINQ, bytes(16) + struct.pack("<iii", 1000, 0, 0), StatusCode.PROTOCOL_LENGTH_ERROR),
    (T.MQINQ, bytes(16) + struct.pack("<iii", -1, 0, 0), StatusCode.PROTOCOL_INVALID_DATA),
    (T.HEARTBEAT, bytes(16), StatusCode.PROTOCOL_SEGMENT_TYPE),
])  # fmt: skip
def test_bad_verb_bodies_are_refused(seg_type: SegmentType, body: bytes,
                                     status: StatusCode) -> None:
    """Short bodies, trailing bytes, wrong structures, a DataLength beyond the body and
    impossible counts are each refused with a status."""
    with pytest.raises(FapError) as info:
        decode_verb(seg_type, body, False)
    assert info.value.status == status


def test_missing_parts_are_named() -> None:
    """Encoding a verb without a part it needs names the part."""
    with pytest.raises(ValueError, match="MQPUT needs an md"):
        encode_verb(T.MQPUT, Verb(pmo=PMO()))
    with pytest.raises(ValueError, match="MQGET needs a buffer_length"):
        encode_verb(T.MQGET, Verb(md=MD(), gmo=GMO()))
    with pytest.raises(ValueError, match="not a client verb"):
        encode_verb(T.HEARTBEAT, Verb())


names = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ.0123456789", max_size=48)
i32 = st.integers(-(2**31), 2**31 - 1)


@FAST
@given(names, names.map(lambda s: s[:28]), i32, i32, st.sampled_from(sorted(CONN_SIZES)),
       st.booleans(), st.booleans())
def test_conn_round_trip(qm: str, app: str, options: int, xoptions: int, version: int,
                         big: bool, ebcdic: bool) -> None:
    """Any MQCONN, any FCNO version, either byte order, ASCII or EBCDIC, round-trips."""
    conn = ConnBody(qm, app, options=options, xoptions=xoptions, fcno_version=version)
    body = encode_verb(T.MQCONN, Verb(conn=conn), big_endian=big, ebcdic=ebcdic)
    assert decode_verb(T.MQCONN, body, big, ebcdic=ebcdic).conn == conn


@FAST
@given(st.lists(i32, max_size=20), st.lists(i32, max_size=20), st.binary(max_size=200),
       st.booleans(), st.booleans())
def test_inq_round_trip(selectors: list[int], ints: list[int], chars: bytes, big: bool,
                        reply: bool) -> None:
    """Any MQINQ request, or MQINQ reply/MQSET with values, round-trips."""
    seg_type = T.MQINQ_REPLY if reply else T.MQINQ
    inq = (InqBody(selectors, len(ints), len(chars), ints, chars) if reply
           else InqBody(selectors, len(ints), len(chars)))
    body = encode_verb(seg_type, Verb(inq=inq), big_endian=big)
    assert decode_verb(seg_type, body, big).inq == inq


@FAST
@given(st.binary(max_size=3000), st.integers(0, 9), st.booleans(), st.booleans())
def test_put_and_get_reply_round_trip(data: bytes, priority: int, big: bool,
                                      ebcdic: bool) -> None:
    """MQPUT and MQGET's reply carry any data and MQMD, either byte order and charset."""
    md = MD(Priority=priority, ReplyToQ=b"R.Q", Format=CMQC.MQFMT_STRING)
    for seg_type, verb in ((T.MQPUT, Verb(md=md, pmo=PMO(), data=data)),
                           (T.MQGET_REPLY, Verb(md=md, gmo=GMO(), data=data,
                                                data_length=len(data)))):
        body = encode_verb(seg_type, verb, big_endian=big, ebcdic=ebcdic)
        assert decode_verb(seg_type, body, big, ebcdic=ebcdic) == verb


def test_uid_forms() -> None:
    """UID is 28 bytes (user, password) or 132 (plus the long user id and security id)."""
    short = encode_uid(UserIdData("alice", "secret"))
    assert len(short) == 28 and short[:16] == b"UID alice       "
    assert decode_uid(short) == UserIdData("alice", "secret")
    long = encode_uid(UserIdData("alice", "pw", "alice.with.a.long.name", b"S" * 40))
    assert len(long) == 132
    assert decode_uid(long) == UserIdData("alice", "pw", "alice.with.a.long.name", b"S" * 40)
    ebcdic = encode_uid(UserIdData("BOB", "PW"), ebcdic=True)
    assert decode_uid(ebcdic) == UserIdData("BOB", "PW")


def test_caut_round_trip_and_refusals() -> None:
    """CAUT carries the user id and password unpadded behind their lengths; lengths that
    do not fit are refused."""
    body = encode_caut(ConnAuth("alice", "s3cret!"), big_endian=True)
    assert body[:4] == b"CAUT" and struct.unpack_from(">ii", body, 16) == (5, 7)
    assert decode_caut(body, True) == ConnAuth("alice", "s3cret!")
    with pytest.raises(FapError, match="do not fit"):
        decode_caut(body + b"x", True)
    with pytest.raises(FapError, match="not a CAUT"):
        decode_caut(b"XXXX" + body[4:], True)
    with pytest.raises(FapError):
        decode_uid(b"UID " + bytes(20))


MESSAGE_TYPES = (T.MQPUT, T.MQPUT_REPLY, T.MQPUT1, T.MQPUT1_REPLY, T.MQGET, T.MQGET_REPLY)


@FAST
@given(st.sampled_from(MESSAGE_TYPES), st.sampled_from(sorted(OD._layouts)),
       st.sampled_from(sorted(MD._layouts)), st.integers(1, 4), st.binary(max_size=300),
       st.booleans(), st.booleans())
def test_message_parts_are_where_decode_verb_reads(seg_type: SegmentType, odv: int, mdv: int,
                                                   optv: int, data: bytes, big: bool,
                                                   ebcdic: bool) -> None:
    """message_parts gives the offsets of the very structures decode_verb reads, for every
    version of each structure, in both byte orders and character sets."""
    is_get = seg_type in (T.MQGET, T.MQGET_REPLY)
    opts = GMO(Version=optv) if is_get else PMO(Version=min(optv, 3))
    verb = Verb(ApiHeader(hobj=3), od=OD(Version=odv, ObjectName=b"Q"),
                md=MD(Version=mdv, Priority=4), data=data, buffer_length=77)
    if is_get:
        verb.gmo = opts
    else:
        verb.pmo = opts
    body = encode_verb(seg_type, verb, big_endian=big, ebcdic=ebcdic)
    parts = message_parts(seg_type, body, big, ebcdic)
    decoded = decode_verb(seg_type, body, big, ebcdic=ebcdic)
    assert decoded.md is not None
    assert parts.opts - parts.md == decoded.md.get_length()
    assert parts.tail - parts.opts == opts.get_length()
    if seg_type in (T.MQPUT1, T.MQPUT1_REPLY):
        assert decoded.od is not None and parts.md - parts.od == decoded.od.get_length()
    else:
        assert parts.od == parts.md == 16
    assert parts.end == len(body)
    assert body[parts.tail + 4:] == (b"" if seg_type == T.MQGET else decoded.data)


@pytest.mark.parametrize("big", [False, True])
@pytest.mark.parametrize("body", [
    bytes(16) + MD().pack() + PMO().pack() + struct.pack("<I", 99) + b"x",  # DataLength
    bytes(16) + MD().pack() + PMO().pack() + struct.pack("<I", 1) + b"xy",  # trailing
    bytes(16) + MD().pack()[:300],                                           # cut short
    bytes(16) + b"XX  " + MD().pack()[4:] + PMO().pack() + bytes(4),         # StrucId
    bytes(16) + MD().pack() + GMO().pack() + bytes(4),                       # not a PMO
    bytes(10),                                                               # no header
])  # fmt: skip
def test_message_parts_refuse_what_decode_verb_refuses(body: bytes, big: bool) -> None:
    """A body decode_verb refuses is refused by message_parts with the same status."""
    with pytest.raises(FapError) as decoded:
        decode_verb(T.MQPUT, body, big)
    with pytest.raises(FapError) as parts:
        message_parts(T.MQPUT, body, big)
    assert parts.value.status == decoded.value.status


@pytest.mark.parametrize("big", [False, True])
def test_a_truncated_get_reply_carries_the_whole_length_and_the_data_taken(big: bool) -> None:
    """An MQGET reply's DataLength is the message's whole length (MQGET's DataLength
    output); its data, what the buffer took, runs to the end of the body and may be
    shorter. Data longer than DataLength is refused, and so is encoding it."""
    verb = Verb(ApiHeader(0, CMQC.MQCC_WARNING, CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, 5),
                md=MD(), gmo=GMO(), data=b"0123", data_length=10)
    body = encode_verb(T.MQGET_REPLY, verb, big_endian=big)
    got = decode_verb(T.MQGET_REPLY, body, big)
    assert (got.data, got.data_length) == (b"0123", 10)
    parts = message_parts(T.MQGET_REPLY, body, big)
    assert body[parts.tail + 4:] == b"0123"
    longer = body[:parts.tail] + struct.pack(">I" if big else "<I", 3) + b"0123"
    with pytest.raises(FapError, match="after DataLength 3"):
        decode_verb(T.MQGET_REPLY, longer, big)
    with pytest.raises(ValueError, match="DataLength 2"):
        encode_verb(T.MQGET_REPLY, Verb(md=MD(), gmo=GMO(), data=b"0123", data_length=2))
