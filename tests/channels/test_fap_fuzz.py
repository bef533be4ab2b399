"""The codec under 10,000 bad inputs: random bytes, truncated headers, wrong lengths, a
declared 2 GB, unknown segment types and mutated good segments. Only FapError may come
out, and memory stays bounded (the socket-level fuzzer is the channel agents')."""

from __future__ import annotations

import random
import struct
import tracemalloc
from collections import Counter
from collections.abc import Callable

from tpfemu.mq.structs import MD, OD, PMO
from tpfemu.wire.fap import (
    VERB_TYPES,
    ConnAuth,
    ConnBody,
    FapError,
    FrameReader,
    InitialData,
    InqBody,
    Reassembler,
    Segment,
    SegmentType,
    StatusCode,
    UserIdData,
    Verb,
    build_transmission,
    close_segment,
    decode_caut,
    decode_id,
    decode_message,
    decode_ping,
    decode_reset,
    decode_resync,
    decode_segment,
    decode_status,
    decode_uid,
    decode_verb,
    encode_caut,
    encode_id,
    encode_message,
    encode_ping,
    encode_segment,
    encode_uid,
    encode_verb,
    heartbeat_segment,
    reset_segment,
    resync_segment,
    split_message,
    status_segment,
)

CASES = 10_000
MAX_SEGMENT = 65_536
_KNOWN = {int(t) for t in SegmentType}


def _good_segments() -> list[bytes]:
    body = encode_message(1, build_transmission("Q", "QM", MD(Version=2, MsgSeqNumber=2),
                                                b"data" * 50))
    segs = [
        Segment(SegmentType.INITIAL_DATA, payload=encode_id(InitialData("A.TO.B", "QMA"))),
        Segment(SegmentType.INITIAL_DATA, payload=encode_id(InitialData("X"), big_endian=True),
                big_endian=True),
        status_segment(StatusCode.MSG_SEQUENCE_ERROR, 3), close_segment(), heartbeat_segment(),
        reset_segment(9), resync_segment(4, b"LUWLUW01"),
        Segment(SegmentType.PING_DATA, payload=encode_ping(b"ping")),
        *split_message(body, 32768), *split_message(body, 1100),
    ]
    return [encode_segment(s) for s in segs]


def _bad_input(rng: random.Random, good: list[bytes]) -> bytes:
    """One bad input of a randomly chosen kind."""
    kind = rng.randrange(7)
    if kind == 0:  # random bytes
        return rng.randbytes(rng.randrange(1, 400))
    if kind == 1:  # a truncated good segment
        raw = rng.choice(good)
        return raw[:rng.randrange(1, len(raw))]
    if kind == 2:  # a good segment with a wrong SegmLength
        raw = bytearray(rng.choice(good))
        struct.pack_into(">I", raw, 4, rng.choice([0, 1, 27, len(raw) - 1, len(raw) + 1,
                                                   rng.randrange(1 << 32)]))
        return bytes(raw)
    if kind == 3:  # a declared 2 GB (or 4 GB) segment, with some bytes after
        return b"TSH " + struct.pack(">I", rng.choice([0x7FFFFFFF, 0xFFFFFFFF, 0x80000000])) \
            + rng.randbytes(rng.randrange(0, 100))
    if kind == 4:  # an unknown segment type
        raw = bytearray(rng.choice(good))
        raw[9] = rng.choice([t for t in range(256) if t not in _KNOWN])
        return bytes(raw)
    if kind == 5:  # bit flips in a good segment, or in its body only
        raw = bytearray(rng.choice(good))
        start = 0 if rng.random() < 0.3 else 28
        for _ in range(rng.randrange(1, 8)):
            if len(raw) > start:
                raw[rng.randrange(start, len(raw))] ^= 1 << rng.randrange(8)
        return bytes(raw)
    # good segments with garbage between or after them
    return rng.choice(good) + rng.randbytes(rng.randrange(1, 50)) + rng.choice(good)


_DECODERS: dict[SegmentType, Callable[[bytes, bool], object]] = {
    SegmentType.INITIAL_DATA: decode_id,
    SegmentType.STATUS_DATA: decode_status,
    SegmentType.RESET_DATA: decode_reset,
    SegmentType.RESYNC_DATA: decode_resync,
    SegmentType.PING_DATA: decode_ping,
}


def _consume(data: bytes, rng: random.Random, outcomes: Counter[str]) -> None:
    """Feeds ``data`` to a FrameReader in random chunks and decodes every segment it gives,
    as a channel agent would; only FapError may escape."""
    reader = FrameReader(MAX_SEGMENT)
    reassembler = Reassembler(100_000)
    pos = 0
    while pos < len(data):
        step = rng.randrange(1, 64)
        for seg in reader.feed(data[pos:pos + step]):
            if seg.seg_type == SegmentType.MESSAGE_DATA:
                whole = reassembler.feed(seg)
                if whole is not None:
                    decode_message(whole, seg.big_endian, ebcdic=seg.ebcdic)
            elif seg.seg_type in _DECODERS:
                _DECODERS[seg.seg_type](seg.payload, seg.big_endian)
            outcomes["segment"] += 1
        assert reader.buffered <= MAX_SEGMENT
        pos += step


def test_ten_thousand_bad_inputs_raise_only_fap_error() -> None:
    """10,000 bad inputs through the FrameReader, the reassembler and every decoder raise
    FapError (with a status) or decode; nothing else escapes, and the peak memory of the
    whole run stays under 4 MB although inputs declare lengths up to 4 GB."""
    rng = random.Random(25)
    good = _good_segments()
    outcomes: Counter[str] = Counter()
    tracemalloc.start()
    try:
        for _ in range(CASES):
            data = _bad_input(rng, good)
            try:
                _consume(data, rng, outcomes)
                outcomes["accepted"] += 1
            except FapError as exc:
                assert exc.status is not None and str(exc)
                outcomes[exc.status.name] += 1
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 1024 * 1024
    refused = CASES - outcomes["accepted"]
    assert refused > CASES // 2  # most bad inputs are refused, not silently taken
    for status in ("PROTOCOL_SEGMENT_ERROR", "PROTOCOL_LENGTH_ERROR", "PROTOCOL_SEGMENT_TYPE"):
        assert outcomes[status] > 100, outcomes


def test_decoders_on_random_bodies_raise_only_fap_error() -> None:
    """Every body decoder, given random bytes in either byte order, decodes or raises
    FapError."""
    rng = random.Random(26)
    decoders = [*_DECODERS.values(), decode_message]
    for _ in range(2_000):
        body = rng.randbytes(rng.randrange(0, 700))
        if rng.random() < 0.5:  # sometimes a plausible start
            body = rng.choice([b"ID  ", b"MSH ", b"XQH "]) + body
        for decoder in decoders:
            try:
                decoder(body, rng.random() < 0.5)
            except FapError:
                pass


def test_verb_decoders_on_bad_bodies_raise_only_fap_error() -> None:
    """decode_verb for every verb type, decode_uid and decode_caut, given random bodies
    and mutated good ones in either byte order, decode or raise FapError."""
    rng = random.Random(28)
    good = [encode_verb(SegmentType.MQPUT, Verb(md=MD(), pmo=PMO(), data=b"x" * 40)),
            encode_verb(SegmentType.MQOPEN, Verb(od=OD(Version=2), options=16)),
            encode_verb(SegmentType.MQCONN, Verb(conn=ConnBody("QM", fcno_version=2))),
            encode_verb(SegmentType.MQINQ_REPLY, Verb(inq=InqBody([1, 2], 1, 4, [5], b"abcd"))),
            encode_uid(UserIdData("u", "p")), encode_caut(ConnAuth("u", "p"))]
    types = sorted(VERB_TYPES)
    for _ in range(3_000):
        if rng.random() < 0.5:
            body = rng.randbytes(rng.randrange(0, 600))
        else:
            raw = bytearray(rng.choice(good))
            for _ in range(rng.randrange(1, 6)):
                raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
            body = bytes(raw[:rng.randrange(len(raw) + 1)]) if rng.random() < 0.3 else bytes(raw)
        big = rng.random() < 0.5
        seg_type = rng.choice(types)
        for call, args in ((decode_verb, (seg_type, body, big)), (decode_uid, (body,)),
                           (decode_caut, (body, big))):
            try:
                call(*args)  # type: ignore[operator]
            except FapError:
                pass


def test_decode_segment_on_random_bytes_raises_only_fap_error() -> None:
    """decode_segment on random bytes that start like a TSH decodes or raises FapError."""
    rng = random.Random(27)
    for _ in range(2_000):
        tail = rng.randbytes(rng.randrange(0, 60))
        raw = rng.choice([b"TSH ", b"TSHM", b"TSHC", b"\xe3\xe2\xc8\x40"]) + struct.pack(
            ">I", rng.choice([len(tail) + 8, rng.randrange(0, 100)])) + tail
        try:
            decode_segment(raw)
        except FapError:
            pass
