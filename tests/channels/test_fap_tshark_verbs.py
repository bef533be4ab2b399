"""tshark's MQ dissector decodes a whole client conversation as the FAP codec encodes it
(issue 26): the ID, UID and CAUT, then MQCONN to MQDISC with every verb between, each
request and reply behind a TSHM, sent over real loopback TCP and captured as a pcap."""

from __future__ import annotations

from pathlib import Path

import pytest
from fap_tshark import C2S, S2C, bad_markers, decode, through_tcp, write_pcap

from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.wire.fap import (
    ApiHeader,
    ConnAuth,
    ConnBody,
    ControlFlags,
    InitialData,
    InqBody,
    Segment,
    SegmentType,
    UserIdData,
    Verb,
    encode_caut,
    encode_id,
    encode_segment,
    encode_uid,
    encode_verb,
)

T = SegmentType
FIELDS = ["mq.tsh.convid", "mq.tsh.requestid", "mq.api.completioncode", "mq.api.reasoncode",
          "mq.api.hobj", "mq.conn.qm", "mq.conn.appname", "mq.conn.options", "mq.fcno.structid",
          "mq.od.objname", "mq.open.options", "mq.md.persistence", "mq.md.format",
          "mq.put.length", "mq.pmo.version", "mq.gmo.version", "mq.inq.nbsel", "mq.inq.sel",
          "mq.inq.charvalues", "mq.uid.userid", "mq.caut.usrlength", "mq.id.convbyskt"]


def _tshm(seg_type: SegmentType, body: bytes, request_id: int, big: bool) -> bytes:
    seg = Segment(seg_type, ControlFlags.FIRST | ControlFlags.LAST, body, big,
                  conversation_id=1, request_id=request_id, form="TSHM")
    return encode_segment(seg, form="TSHM")


def _conversation(big: bool, fcno: int) -> list[tuple[str, bytes]]:
    od = OD(Version=2, ObjectName=b"APP.ORDERS")
    md = MD(Persistence=CMQC.MQPER_PERSISTENT, Format=CMQC.MQFMT_STRING)
    hobj = ApiHeader(hobj=5)
    verbs: list[tuple[str, SegmentType, Verb]] = [
        (C2S, T.MQCONN, Verb(conn=ConnBody("TPF1", "orders.py", options=3,
                                            fcno_version=fcno))),
        (S2C, T.MQCONN_REPLY, Verb(conn=ConnBody("TPF1", "orders.py", fcno_version=fcno))),
        (C2S, T.MQOPEN, Verb(od=od, options=CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)),
        (S2C, T.MQOPEN_REPLY, Verb(hobj, od=od, options=CMQC.MQOO_OUTPUT)),
        (C2S, T.MQPUT, Verb(hobj, md=md, pmo=PMO(Version=2), data=b"order 1")),
        (S2C, T.MQPUT_REPLY, Verb(hobj, md=md, pmo=PMO(Version=2))),
        (C2S, T.MQPUT1, Verb(od=od, md=md, pmo=PMO(), data=b"order 2")),
        (S2C, T.MQPUT1_REPLY, Verb(od=od, md=md, pmo=PMO())),
        (C2S, T.MQGET, Verb(hobj, md=MD(Version=2), gmo=GMO(Version=4), buffer_length=4096)),
        (S2C, T.MQGET_REPLY, Verb(hobj, md=md, gmo=GMO(Version=4), data=b"order 1")),
        (C2S, T.MQGET, Verb(hobj, md=MD(), gmo=GMO(), buffer_length=4096)),
        (S2C, T.MQGET_REPLY, Verb(ApiHeader(0, CMQC.MQCC_FAILED, CMQC.MQRC_NO_MSG_AVAILABLE, 5),
                                  md=MD(), gmo=GMO(), data=b"")),
        (C2S, T.MQINQ, Verb(hobj, inq=InqBody([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_NAME],
                                              1, 48))),
        (S2C, T.MQINQ_REPLY, Verb(hobj, inq=InqBody([CMQC.MQIA_CURRENT_Q_DEPTH,
                                                     CMQC.MQCA_Q_NAME], 1, 48, [1],
                                                    b"APP.ORDERS".ljust(48)))),
        (C2S, T.MQSET, Verb(hobj, inq=InqBody([CMQC.MQIA_TRIGGER_CONTROL], 1, 0, [1]))),
        (S2C, T.MQSET_REPLY, Verb(hobj)),
        (C2S, T.MQCMIT, Verb()), (S2C, T.MQCMIT_REPLY, Verb()),
        (C2S, T.MQBACK, Verb()), (S2C, T.MQBACK_REPLY, Verb()),
        (C2S, T.MQCLOSE, Verb(hobj, options=CMQC.MQCO_NONE)),
        (S2C, T.MQCLOSE_REPLY, Verb(hobj, options=CMQC.MQCO_NONE)),
        (C2S, T.MQDISC, Verb()), (S2C, T.MQDISC_REPLY, Verb()),
    ]
    ident = InitialData("APP.SVRCONN", "TPF1", conv_per_socket=1)
    runs = [
        (C2S, _tshm(T.INITIAL_DATA, encode_id(ident, big_endian=big), 0, big)),
        (S2C, _tshm(T.INITIAL_DATA, encode_id(ident, big_endian=big), 0, big)),
        (C2S, _tshm(T.USERID_DATA, encode_uid(UserIdData("alice", "secret")), 0, big)),
        (C2S, _tshm(T.CONAUTH_INFO, encode_caut(ConnAuth("alice", "secret"),
                                                big_endian=big), 0, big)),
    ]
    for i, (direction, seg_type, verb) in enumerate(verbs):
        runs.append((direction, _tshm(seg_type, encode_verb(seg_type, verb, big_endian=big),
                                      1 + i // 2, big)))
    return runs


@pytest.mark.parametrize("big", [False, True])
def test_client_conversation_decodes(tmp_path: Path, big: bool) -> None:
    """Every verb request and reply of a conversation is decoded with its type, request
    id, API header, and the fields of its structures, with no unknown or malformed
    marker, in either byte order."""
    received, client_port, server_port = through_tcp(_conversation(big, 0))
    pcap = write_pcap(tmp_path / "client.pcap", received, client_port, server_port)
    pdus, verbose = decode(pcap, server_port, FIELDS)
    assert bad_markers(verbose) == []
    types = [int(p["mq.tsh.type"], 16) for p in pdus]
    assert types == [0x01, 0x01, 0x08, 0x0A, 0x81, 0x91, 0x83, 0x93, 0x86, 0x96, 0x87, 0x97,
                     0x85, 0x95, 0x85, 0x95, 0x89, 0x99, 0x88, 0x98, 0x8A, 0x9A, 0x8B, 0x9B,
                     0x84, 0x94, 0x82, 0x92]
    by = {}
    for p in pdus:
        by.setdefault(int(p["mq.tsh.type"], 16), []).append(p)
    assert by[0x01][0]["mq.id.convbyskt"] == "1"
    assert by[0x08][0]["mq.uid.userid"].rstrip() == "alice"
    assert by[0x0A][0]["mq.caut.usrlength"] in ("5", "0x00000005")
    conn = by[0x81][0]
    assert (conn["mq.conn.qm"].rstrip(), conn["mq.conn.appname"].rstrip()) == \
        ("TPF1", "orders.py")
    assert conn["mq.conn.options"] == "3" and conn["mq.tsh.convid"] == "1"
    assert by[0x83][0]["mq.od.objname"].rstrip() == "APP.ORDERS"
    assert int(by[0x83][0]["mq.open.options"], 16) == CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
    assert int(by[0x93][0]["mq.api.hobj"], 16) == 5
    put = by[0x86][0]
    assert (put["mq.md.persistence"], put["mq.put.length"], put["mq.pmo.version"]) == \
        ("1", "7", "2")
    assert by[0x87][0]["mq.od.objname"].rstrip() == "APP.ORDERS"
    assert by[0x85][0]["mq.gmo.version"] == "4" and by[0x85][0]["mq.put.length"] == "4096"
    assert by[0x95][0]["mq.put.length"] == "7"
    assert by[0x95][1]["mq.api.reasoncode"] == str(CMQC.MQRC_NO_MSG_AVAILABLE)
    assert by[0x95][1]["mq.api.completioncode"] == "2"
    assert by[0x99][0]["mq.inq.charvalues"].rstrip() == "APP.ORDERS"
    assert "Integer value...: MQTC_ON (1)" in verbose  # MQSET's value
    assert [p["mq.tsh.requestid"] for p in pdus[4:8]] == ["1", "1", "2", "2"]


@pytest.mark.parametrize("fcno", [1, 2, 3])
def test_mqconn_with_fcno_decodes(tmp_path: Path, fcno: int) -> None:
    """MQCONN with an FCNO (260, 332 and 460 bytes) decodes with its FCNO."""
    runs = _conversation(False, fcno)[4:6]
    received, client_port, server_port = through_tcp(runs)
    pcap = write_pcap(tmp_path / "conn.pcap", received, client_port, server_port)
    pdus, verbose = decode(pcap, server_port, FIELDS)
    assert bad_markers(verbose) == []
    assert [p["mq.fcno.structid"] for p in pdus] == ["FCNO", "FCNO"]
    assert all(p["mq.conn.qm"].rstrip() == "TPF1" for p in pdus)
