"""A channel's own MAXMSGL (IBM's channel attribute, 4 MB by default, 0 for the queue
manager's): each end offers the lower of its channel's and its queue manager's MAXMSGL,
and the two ends agree on the lower offer. Sender and receiver channels between two
Systems, and a SVRCONN channel with a client, over real loopback sockets."""

from __future__ import annotations

import pytest
from mca_helpers import get, ok, put, receiving, sending, start, status, unique, wait_for
from svrconn_helpers import QUEUE, raises_mq, serving

import tpfemu.mqi as pymqi
from tpfemu import mqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr.objects import ChannelDef


def _linked(sender_extra: str, receiver_extra: str, a_maxmsgl: int, b_maxmsgl: int):
    """A's sender A.TO.B (with ``sender_extra``) to B's receiver (``receiver_extra``),
    RUNNING, and A's QR REMOTE.Q for B's LOCAL.Q; the queue managers' MAXMSGL (0: left
    at 4 MB), their queues and A's dead-letter queue defined to match."""
    qa, qb = unique("MA"), unique("MB")
    a, b = start(qa), start(qb)
    for system, most in ((a, a_maxmsgl), (b, b_maxmsgl)):
        if most:
            ok(system, f"ZMQSC ALT MQP-{system.name} MAXMSGL-{most}")
            ok(system, f"ZMQSC ALT QL-DEAD.LETTER.QUEUE MAXMSGL-{most}")
    port = receiving(b)
    ok(b, f"ZMQSC DEF CHL-A.TO.B CHLTYPE-RCVR {receiver_extra}")
    ok(b, "ZMQSC DEF QL-LOCAL.Q")
    sending(a, "A.TO.B", port, qb, extra=f"SHORTTMR-0 {sender_extra}")
    ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{qb} XMITQ-{qb}")
    ok(a, "ZMQSC START CHL-A.TO.B")
    wait_for(lambda: status(a, "A.TO.B") == "RUNNING", what="A.TO.B RUNNING")
    return a, b


@pytest.mark.parametrize(("sender_extra", "receiver_extra", "a_maxmsgl", "b_maxmsgl",
                          "limit"), [
    ("MAXMSGL-1000", "", 0, 0, 1000),  # the sender's channel
    ("", "MAXMSGL-1000", 0, 0, 1000),  # the receiver's channel
    ("", "", 10_000_000, 10_000_000, 4_194_304),  # IBM's default: 4 MB
    ("MAXMSGL-0", "MAXMSGL-0", 10_000_000, 5_000_000, 5_000_000),  # 0: the qmgrs'
], ids=["sender-channel", "receiver-channel", "default-4mb", "zero-is-the-qmgrs"])
def test_the_lowest_maxmsgl_bounds_what_the_channel_carries(
        sender_extra, receiver_extra, a_maxmsgl, b_maxmsgl, limit):
    """A message of ``limit`` bytes of data goes over, one byte more is dead-lettered by
    A's sender with MQRC_MSG_TOO_BIG_FOR_CHANNEL, and the channel keeps running, whichever
    end's offer is the lower: a channel's MAXMSGL, IBM's default 4 MB above queue managers
    that take more, or with MAXMSGL 0 the lower of the queue managers'."""
    a, b = _linked(sender_extra, receiver_extra, a_maxmsgl, b_maxmsgl)
    try:
        put(a.name, "REMOTE.Q", b"x" * (limit + 1))
        put(a.name, "REMOTE.Q", b"y" * limit)
        assert get(b.name, "LOCAL.Q")[0] == b"y" * limit
        data, _ = get(a.name, "DEAD.LETTER.QUEUE")
        assert mqi.DLH().unpack(data[:172]).Reason == CMQC.MQRC_MSG_TOO_BIG_FOR_CHANNEL
        assert data[172:] == b"x" * (limit + 1)
        assert status(a, "A.TO.B") == "RUNNING"
    finally:
        a.stop()
        b.stop()


def test_a_svrconn_channels_maxmsgl_bounds_its_clients_calls():
    """A SVRCONN channel's MAXMSGL (below the queue manager's) bounds a client's MQPUT
    with 2010; MAXMSGL 0 gives the queue manager's."""
    system, port = serving(channels="CHL-SMALL.SVRCONN CHLTYPE-SVRCONN MAXMSGL-2000")
    try:
        ok(system, "ZMQSC DEF CHL-QMGRS.SVRCONN CHLTYPE-SVRCONN MAXMSGL-0")
        ok(system, "ZMQSC ALT MQP MAXMSGL-3000")
        ok(system, f"ZMQSC ALT QL-{QUEUE} MAXMSGL-3000")
        for channel, most in (("SMALL.SVRCONN", 2000), ("QMGRS.SVRCONN", 3000)):
            qm = pymqi.connect(system.qmgr.name, channel, f"127.0.0.1({port})")
            q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
            with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
                q.put(b"z" * (most + 1))
            q.put(b"z" * most)
            assert q.get() == b"z" * most
            qm.disconnect()
    finally:
        system.stop()


def test_maxmsgl_is_a_channel_keyword():
    """DEF CHL takes MAXMSGL from 0 to 104857600 (IBM's default 4194304), ALT CHL changes
    it, DISP CHL shows it, and a value out of range is refused naming the keyword."""
    system = start(unique("MK"))
    try:
        ok(system, "ZMQSC DEF CHL-C1 CHLTYPE-SVRCONN")
        definition: ChannelDef = system.qmgr.catalog.get("CHL", "C1")
        assert definition.maxmsgl == 4_194_304
        ok(system, "ZMQSC ALT CHL-C1 MAXMSGL-0")
        assert system.qmgr.catalog.get("CHL", "C1").maxmsgl == 0
        assert "MAXMSGL" in system.console("ZMQSC DISP CHL-C1")
        response = system.console("ZMQSC ALT CHL-C1 MAXMSGL-104857601")
        assert "E " in response and "MAXMSGL" in response
        assert system.qmgr.catalog.get("CHL", "C1").maxmsgl == 0
    finally:
        system.stop()
