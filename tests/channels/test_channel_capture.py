"""What the channel agents send, captured off the real sockets by a recording proxy and
decoded by Debian's tshark (its MQ dissector is the oracle): every segment type a sender
and a receiver exchange, with the expected flags, sequence numbers, MQXQH remote queue,
MQMD persistence and status codes, and no malformed or unknown marker."""

from __future__ import annotations

import time

from fap_tshark import STATUS_OK_LABEL, bad_markers, decode, require_tshark, write_pcap
from mca_helpers import get, ok, put, receiving, sending, start, status, unique, wait_for
from mca_proxy import CuttingProxy

from tpfemu.mqi import CMQC

FIELDS = ["mq.tsh.tcf.confirmreq", "mq.tsh.tcf.closechann", "mq.msh.seqnum",
          "mq.xqh.remoteq", "mq.md.persistence", "mq.status.code", "mq.id.channelname"]


def test_every_segment_the_agents_send_decodes(tmp_path):
    """ID both ways, RESYNC, RESET, MESSAGE_DATA (CONFIRM_REQUEST on the batch's last),
    STATUS, HEARTBEAT both ways and the closing STATUS all decode cleanly."""
    require_tshark()
    a, b = start(unique("TA")), start(unique("TB"))
    record: list = []
    try:
        port = receiving(b, ("T.TO.B",))
        ok(b, "ZMQSC ALT CHL-T.TO.B HBINT-1")
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        proxy = CuttingProxy(("127.0.0.1", port), cuts=0, record=record)
        sending(a, "T.TO.B", proxy.port, "XQ", extra="HBINT-1")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        put(a.name, "REMOTE.Q", b"p", Persistence=CMQC.MQPER_PERSISTENT)
        put(a.name, "REMOTE.Q", b"n", Persistence=CMQC.MQPER_NOT_PERSISTENT)
        ok(a, "ZMQSC START CHL-T.TO.B")
        assert get(b.name, "LOCAL.Q")[0] == b"p" and get(b.name, "LOCAL.Q")[0] == b"n"
        time.sleep(1.6)  # idle past HBINT: a heartbeat and its answer
        ok(a, "ZMQSC STOP CHL-T.TO.B")
        wait_for(lambda: status(a, "T.TO.B") == "STOPPED", what="stopped")
        time.sleep(0.2)
        proxy.close()
    finally:
        a.stop()
        b.stop()
    pcap = write_pcap(tmp_path / "agents.pcap", record, 40000, port)
    pdus, verbose = decode(pcap, port, FIELDS)
    kinds = [p["mq.tsh.type"] for p in pdus]
    for kind in ("0x01", "0x02", "0x03", "0x04", "0x05", "0x09"):
        assert kind in kinds, f"segment type {kind} not captured: {kinds}"
    assert [p["mq.id.channelname"].rstrip() for p in pdus[:2]] == ["T.TO.B", "T.TO.B"]
    messages = [p for p in pdus if p["mq.tsh.type"] == "0x04"]
    assert [m["mq.msh.seqnum"] for m in messages] == ["1", "2"]
    assert [m["mq.tsh.tcf.confirmreq"] for m in messages] == ["0", "1"]
    assert [m["mq.md.persistence"] for m in messages] == ["1", "0"]
    assert all(m["mq.xqh.remoteq"].rstrip() == "LOCAL.Q" for m in messages)
    statuses = [p for p in pdus if p["mq.tsh.type"] == "0x05"]
    assert statuses[-1]["mq.status.code"] == "7"  # USER_CLOSED at STOP CHL
    assert {s["mq.status.code"] for s in statuses[:-1]} == {"0"}  # RESYNC, RESET, batch
    assert statuses[-1]["mq.tsh.tcf.closechann"] == "1"
    assert not bad_markers(verbose, (STATUS_OK_LABEL,))
