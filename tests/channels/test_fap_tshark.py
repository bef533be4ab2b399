"""tshark's MQ dissector decodes every segment type the FAP codec encodes: each test sends
the encoded bytes over a real loopback TCP connection, writes what arrived as a pcap, and
asserts the fields tshark reads and that it shows no malformed or unknown marker."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from fap_tshark import C2S, S2C, STATUS_OK_LABEL, bad_markers, decode, through_tcp, write_pcap

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.structs import MD
from tpfemu.wire.fap import (
    ControlFlags,
    InitialData,
    Segment,
    SegmentType,
    StatusCode,
    build_transmission,
    close_segment,
    encode_id,
    encode_message,
    encode_ping,
    encode_segment,
    heartbeat_segment,
    reset_segment,
    resync_segment,
    split_message,
    status_segment,
)


def _run(tmp_path: Path, runs: list[tuple[str, bytes]], fields: list[str],
         allowed: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """The runs through real TCP, into a pcap, through tshark: one dict per PDU. Fails on
    any malformed/unknown marker not in ``allowed``."""
    received, client_port, server_port = through_tcp(runs)
    assert [r[1] for r in received] == [r[1] for r in runs]
    pcap = write_pcap(tmp_path / "fap.pcap", received, client_port, server_port)
    pdus, verbose = decode(pcap, server_port, fields)
    assert bad_markers(verbose, allowed) == []
    return pdus


def _seg(seg: Segment) -> bytes:
    return encode_segment(seg, form=seg.form)


ID_FIELDS = ["mq.id.faplevel", "mq.id.maxmsgbatch", "mq.id.maxtrsize", "mq.id.maxmsgsize",
             "mq.id.seqwrap", "mq.id.hbint", "mq.id.channelname", "mq.id.qm",
             "mq.id.convbyskt", "mq.id.icf2.fastmsgrqrd", "mq.id.ief1.seqwrap",
             "mq.tsh.byteorder"]


@pytest.mark.parametrize("level", [3, 8, 10, 12])
def test_initial_data_decodes_at_each_fap_level(tmp_path: Path, level: int) -> None:
    """An ID exchange at FAP level 3, 8, 10 and 12 shows its level, batch size, sizes,
    SEQWRAP, heartbeat, channel and queue manager (where that level's ID holds them)."""
    mine = InitialData("A.TO.B", "QMA", fap_level=level, batch_size=50, max_trans_size=32768,
                       max_msg_len=100_000, seq_wrap=999_999_999, heartbeat_interval=300,
                       conv_per_socket=10).with_fast(True)
    theirs = replace(mine, qmgr_name="QMB", batch_size=20, ini_err_flags1=0x20)
    pdus = _run(tmp_path, [
        (C2S, _seg(Segment(SegmentType.INITIAL_DATA, payload=encode_id(mine)))),
        (S2C, _seg(Segment(SegmentType.INITIAL_DATA, payload=encode_id(theirs)))),
    ], ID_FIELDS)
    assert [p["mq.tsh.type"] for p in pdus] == ["0x01", "0x01"]
    first, second = pdus
    assert first["mq.id.faplevel"] == str(level)
    assert (first["mq.id.maxmsgbatch"], second["mq.id.maxmsgbatch"]) == ("50", "20")
    assert first["mq.id.maxtrsize"] == "32768" and first["mq.id.maxmsgsize"] == "100000"
    assert first["mq.id.seqwrap"] == "999999999"
    assert first["mq.id.channelname"].rstrip() == "A.TO.B"
    assert second["mq.id.ief1.seqwrap"] == "0"
    if level >= 4:
        assert first["mq.id.hbint"] == "300" and second["mq.id.qm"].rstrip() == "QMB"
        assert first["mq.id.icf2.fastmsgrqrd"] == "1"
    if level >= 9:
        assert first["mq.id.convbyskt"] == "10"


def test_big_endian_ebcdic_id_decodes(tmp_path: Path) -> None:
    """A TPF peer's ID (big-endian TSH, CCSID 500, EBCDIC names) decodes with the right
    numbers and names."""
    mine = InitialData("TPF.TO.LINUX", "TPFQM", ccsid=500, batch_size=7)
    seg = Segment(SegmentType.INITIAL_DATA, payload=encode_id(mine, big_endian=True,
                  ebcdic=True), big_endian=True, ccsid=500)
    (pdu,) = _run(tmp_path, [(C2S, _seg(seg))], ID_FIELDS)
    assert pdu["mq.tsh.byteorder"] == "0x01"
    assert pdu["mq.id.maxmsgbatch"] == "7"
    assert pdu["mq.id.channelname"].rstrip() == "TPF.TO.LINUX"
    assert pdu["mq.id.qm"].rstrip() == "TPFQM"


MSG_FIELDS = ["mq.tsh.tcf.confirmreq", "mq.tsh.tcf.first", "mq.tsh.tcf.last", "mq.tsh.luwid",
              "mq.msh.seqnum", "mq.msh.msglength", "mq.xqh.remoteq", "mq.xqh.remoteqmgr",
              "mq.md.persistence", "mq.md.priority", "mq.md.format", "mq.md.replytoq",
              "mq.md.msgseqnumber", "mq.head.structid"]


def _xmit(data: bytes, **md: object) -> bytes:
    base = MD(Persistence=CMQC.MQPER_PERSISTENT, Priority=4, Format=CMQC.MQFMT_STRING,
              ReplyToQ=b"REPLY.Q", ReplyToQMgr=b"QMA")
    base.set(**md)
    return build_transmission("LOCAL.Q", "QMB", base, data)


@pytest.mark.parametrize("big", [False, True])
def test_a_batch_of_messages_decodes(tmp_path: Path, big: bool) -> None:
    """A batch of three messages (the last with CONFIRM_REQ, 0x31) shows each sequence
    number, the batch's LUWID, the XQH's remote queue and manager, and each MD's
    persistence, priority, format and reply-to queue, in either byte order."""
    luwid = b"\x00\x01\x02\x03\x04\x05\x06\x07"
    runs = []
    for seq, pers in ((11, 1), (12, 0), (13, 1)):
        body = encode_message(seq, _xmit(b"payload %d" % seq, Persistence=pers),
                              big_endian=big)
        (seg,) = split_message(body, 32768, big_endian=big, luwid=luwid, confirm=seq == 13)
        runs.append((C2S, _seg(seg)))
    pdus = _run(tmp_path, runs, MSG_FIELDS)
    assert [p["mq.tsh.type"] for p in pdus] == ["0x04"] * 3
    assert [p["mq.msh.seqnum"] for p in pdus] == ["11", "12", "13"]
    assert [p["mq.tsh.tcf.confirmreq"] for p in pdus] == ["0", "0", "1"]
    assert all(p["mq.tsh.tcf.first"] == p["mq.tsh.tcf.last"] == "1" for p in pdus)
    assert all(p["mq.tsh.luwid"] == luwid.hex() for p in pdus)
    assert all(p["mq.xqh.remoteq"].rstrip() == "LOCAL.Q" for p in pdus)
    assert all(p["mq.xqh.remoteqmgr"].rstrip() == "QMB" for p in pdus)
    assert [p["mq.md.persistence"] for p in pdus] == ["1", "0", "1"]
    assert all(p["mq.md.priority"] == "4" and p["mq.md.format"] == "MQSTR   " for p in pdus)
    assert all(p["mq.md.replytoq"].rstrip() == "REPLY.Q" for p in pdus)


@pytest.mark.parametrize("big", [False, True])
def test_message_with_mde_decodes(tmp_path: Path, big: bool) -> None:
    """A message whose MD has version-2 fields carries an MQMDE after the XQH, which
    tshark decodes (StrucId MDE), in either byte order."""
    body = encode_message(1, _xmit(b"grouped", Version=2, GroupId=b"G" * 24,
                                   MsgSeqNumber=3), big_endian=big)
    (seg,) = split_message(body, 32768, big_endian=big, confirm=True)
    (pdu,) = _run(tmp_path, [(C2S, _seg(seg))], MSG_FIELDS)
    assert pdu["mq.md.format"] == "MQHMDE  "
    assert pdu["mq.head.structid"] == "MDE "


def test_split_message_decodes_segment_by_segment(tmp_path: Path) -> None:
    """A message cut at the transmission size: every segment is MESSAGE_DATA with an MSH
    carrying the same sequence number, FIRST on the first and LAST on the last."""
    body = encode_message(21, _xmit(bytes(range(256)) * 20))
    segs = split_message(body, 2048, confirm=True)
    pdus = _run(tmp_path, [(C2S, b"".join(_seg(s) for s in segs))], MSG_FIELDS)
    assert len(pdus) == len(segs) > 2
    assert all(p["mq.tsh.type"] == "0x04" and p["mq.msh.seqnum"] == "21" for p in pdus)
    assert pdus[0]["mq.tsh.tcf.first"] == "1" and pdus[0]["mq.xqh.remoteq"].rstrip() == "LOCAL.Q"
    assert pdus[-1]["mq.tsh.tcf.last"] == "1" and pdus[-1]["mq.tsh.tcf.confirmreq"] == "1"
    assert [int(p["mq.msh.msglength"]) for p in pdus] == [len(s.payload) - 20 for s in segs]


STATUS_FIELDS = ["mq.status.code", "mq.status.value", "mq.tsh.tcf.error",
                 "mq.tsh.tcf.reqclose", "mq.tsh.tcf.closechann", "mq.tsh.tcf.confirmreq"]


def test_status_confirmation_decodes(tmp_path: Path) -> None:
    """STATUS OK (the batch confirmation) shows code 0 and no flags; tshark 4.0 has no
    label for code 0, the one allowance made."""
    (pdu,) = _run(tmp_path, [(S2C, _seg(status_segment(StatusCode.OK)))], STATUS_FIELDS,
                  allowed=(STATUS_OK_LABEL,))
    assert (pdu["mq.tsh.type"], pdu["mq.status.code"], pdu["mq.tsh.tcf.error"]) == \
        ("0x05", "0", "0")


def test_status_errors_and_close_decode(tmp_path: Path) -> None:
    """Error STATUS codes (sequence error with the expected number, no channel, wrong
    type, SEQWRAP mismatch) carry ERROR; a close carries REQUEST_CLOSE and CLOSE_CHANNEL
    with USER_CLOSED; a close request carries REQUEST_CLOSE alone."""
    refuse = ControlFlags.ERROR | ControlFlags.CLOSE_CHANNEL
    runs = [
        (S2C, _seg(status_segment(StatusCode.MSG_SEQUENCE_ERROR, 7))),
        (S2C, _seg(status_segment(StatusCode.NO_CHANNEL, flags=refuse))),
        (S2C, _seg(status_segment(StatusCode.CHANNEL_WRONG_TYPE, flags=refuse))),
        (S2C, _seg(status_segment(StatusCode.WRAP_VALUE_ERROR, flags=refuse))),
        (C2S, _seg(close_segment())),
        (C2S, _seg(close_segment(request_only=True))),
    ]
    pdus = _run(tmp_path, runs, STATUS_FIELDS)
    assert [p["mq.status.code"] for p in pdus] == ["4", "1", "2", "21", "7", "7"]
    assert pdus[0]["mq.status.value"] == "7"
    assert [p["mq.tsh.tcf.error"] for p in pdus] == ["1", "1", "1", "1", "0", "0"]
    assert [p["mq.tsh.tcf.closechann"] for p in pdus] == ["0", "1", "1", "1", "1", "0"]
    assert [p["mq.tsh.tcf.reqclose"] for p in pdus] == ["0", "0", "0", "0", "1", "1"]


def test_heartbeat_reset_resync_and_ping_decode(tmp_path: Path) -> None:
    """A heartbeat request (CONFIRM_REQ) and its answer, RESET with its sequence number,
    RESYNC with the in-doubt sequence number and LUWID, and PING with its buffer."""
    runs = [
        (C2S, _seg(heartbeat_segment())),
        (S2C, _seg(heartbeat_segment(request=False))),
        (C2S, _seg(reset_segment(500))),
        (C2S, _seg(resync_segment(42, b"LUW00042"))),
        (C2S, _seg(Segment(SegmentType.PING_DATA, payload=encode_ping(b"are you there")))),
    ]
    pdus = _run(tmp_path, runs, ["mq.tsh.tcf.confirmreq", "mq.reset.seqnum", "mq.msh.seqnum",
                                 "mq.tsh.luwid", "mq.ping.buffer"])
    assert [p["mq.tsh.type"] for p in pdus] == ["0x09", "0x09", "0x03", "0x02", "0x07"]
    assert [p["mq.tsh.tcf.confirmreq"] for p in pdus][:2] == ["1", "0"]
    assert pdus[2]["mq.reset.seqnum"] == "500"
    assert pdus[3]["mq.msh.seqnum"] == "42" and pdus[3]["mq.tsh.luwid"] == b"LUW00042".hex()
    assert bytes.fromhex(pdus[4]["mq.ping.buffer"].replace(":", "")) == b"are you there"


def test_tshm_segment_decodes(tmp_path: Path) -> None:
    """A TSHM (SVRCONN conversation) shows its conversation and request ids."""
    seg = Segment(SegmentType.HEARTBEAT, ControlFlags.CONFIRM_REQ, conversation_id=1,
                  request_id=3, form="TSHM")
    (pdu,) = _run(tmp_path, [(C2S, _seg(seg))], ["mq.tsh.convid", "mq.tsh.requestid"])
    assert (pdu["mq.tsh.convid"], pdu["mq.tsh.requestid"]) == ("1", "3")


def test_the_oracle_flags_bytes_it_does_not_understand(tmp_path: Path) -> None:
    """The marker check is not blind: an ID cut short, a MESSAGE_DATA whose XQH is cut
    and our old RESYNC body (Length, sequence, LUWID) are each flagged."""
    xmit = encode_message(1, _xmit(b"x"))
    cases = {
        "cut ID": Segment(SegmentType.INITIAL_DATA, payload=encode_id(InitialData("A"))[:60]),
        "cut XQH": Segment(SegmentType.MESSAGE_DATA, ControlFlags(0x30), xmit[:200]),
        "old RESYNC": Segment(SegmentType.RESYNC_DATA, payload=bytes([16, 0, 0, 0, 5, 0, 0, 0])
                              + b"LUWLUW01"),
    }
    for name, seg in cases.items():
        received, client_port, server_port = through_tcp([(C2S, _seg(seg))])
        pcap = write_pcap(tmp_path / "bad.pcap", received, client_port, server_port)
        _, verbose = decode(pcap, server_port, [])
        assert bad_markers(verbose), name
