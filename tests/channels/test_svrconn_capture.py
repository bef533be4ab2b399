"""A real client conversation, captured off the sockets by a recording proxy and decoded
by Debian's tshark (its MQ dissector is the oracle): the ID exchange, CAUT, and every
client verb with its reply, with the expected types, request ids, API headers and
structure fields, and no malformed or unknown marker (issue 26)."""

from __future__ import annotations

import time

from fap_tshark import bad_markers, decode, require_tshark, write_pcap
from mca_helpers import ok
from mca_proxy import CuttingProxy
from svrconn_helpers import QUEUE, serving

import tpfemu.mqi as pymqi
from tpfemu.channels.svrconn_users import UserTable
from tpfemu.mqi import CMQC

FIELDS = ["mq.tsh.convid", "mq.tsh.requestid", "mq.api.completioncode", "mq.api.reasoncode",
          "mq.api.hobj", "mq.conn.qm", "mq.od.objname", "mq.md.persistence", "mq.put.length",
          "mq.inq.sel", "mq.caut.usrlength", "mq.id.channelname", "mq.id.convbyskt"]


def test_a_client_conversation_decodes(tmp_path, monkeypatch):
    """ID both ways, CAUT, MQCONN, MQOPEN, MQPUT, MQPUT1, MQGET (a message, then 2033),
    MQINQ, MQSET, MQCMIT, MQBACK, MQCLOSE and MQDISC, each request and its reply, decode
    cleanly from what went over the real sockets."""
    require_tshark()
    users = tmp_path / "users"
    UserTable(users).set("alice", "pw")
    monkeypatch.setenv("TPFEMU_CLIENT_USERS", str(users))
    system, port = serving(channels="CHL-CAP.SVRCONN CHLTYPE-SVRCONN CHCKCLNT-REQUIRED")
    record: list = []
    try:
        ok(system, f"ZMQSC ALT QL-{QUEUE} TRIGDATA-X")
        proxy = CuttingProxy(("127.0.0.1", port), cuts=0, record=record)
        qm = pymqi.connect(system.qmgr.name, "CAP.SVRCONN", f"127.0.0.1({proxy.port})",
                           "alice", "pw")
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF
                        | CMQC.MQOO_INQUIRE | CMQC.MQOO_SET)
        q.put(b"order 1", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        qm.put1(QUEUE, b"order 2")
        assert q.get() == b"order 1"
        q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
        q.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_OFF)
        qm.commit()
        qm.backout()
        assert q.get() == b"order 2"
        try:
            q.get()
        except pymqi.MQMIError as exc:
            assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
        q.close()
        qm.disconnect()
        time.sleep(0.2)
        proxy.close()
    finally:
        system.stop()
    pcap = write_pcap(tmp_path / "client.pcap", record, 40000, port)
    pdus, verbose = decode(pcap, port, FIELDS)
    assert bad_markers(verbose) == []
    types = [int(p["mq.tsh.type"], 16) for p in pdus]
    # The proxy's two directions are recorded by two threads, so the order across them is
    # not the wire's: the ID both ways and the CAUT are counted wherever they stand, and
    # each verb and its reply share a request id.
    assert sorted(t for t in types if t in (0x01, 0x0A)) == [0x01, 0x01, 0x0A]
    pairs: dict[int, list[int]] = {}
    for p, kind in zip(pdus, types, strict=True):
        if kind not in (0x01, 0x0A):
            pairs.setdefault(int(p["mq.tsh.requestid"]), []).append(kind)
    assert [sorted(pairs[r]) for r in sorted(pairs)] == [
        [req, req + 0x10] for req in (0x81, 0x83, 0x86, 0x87, 0x85, 0x89, 0x88, 0x8A, 0x8B,
                                      0x85, 0x85, 0x84, 0x82)]
    by: dict[int, list] = {}
    for p in pdus:
        by.setdefault(int(p["mq.tsh.type"], 16), []).append(p)
    assert [p["mq.id.channelname"].rstrip() for p in by[0x01]] == ["CAP.SVRCONN"] * 2
    assert {p["mq.id.convbyskt"] for p in by[0x01]} == {"1"}
    assert by[0x0A][0]["mq.caut.usrlength"] in ("5", "0x00000005")
    # (tshark 4.0 shows the reply's names as EBCDIC after a client ID exchange: the
    # request's are checked; the reply's bytes are the same ASCII, see the report.)
    assert by[0x81][0]["mq.conn.qm"].rstrip() == system.qmgr.name
    assert by[0x83][0]["mq.od.objname"].rstrip() == QUEUE
    hobj = by[0x93][0]["mq.api.hobj"]
    assert int(hobj, 16) != 0 and by[0x86][0]["mq.api.hobj"] == hobj
    assert (by[0x86][0]["mq.md.persistence"], by[0x86][0]["mq.put.length"]) == ("1", "7")
    assert by[0x95][0]["mq.put.length"] == "7"
    assert by[0x95][2]["mq.api.reasoncode"] == str(CMQC.MQRC_NO_MSG_AVAILABLE)
    assert by[0x95][2]["mq.api.completioncode"] == "2"
