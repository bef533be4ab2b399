"""FAST channels (seed 004): nonpersistent messages go outside the batch, and a fast
receiver hands them to the system's ROUTC bridge entry point (FastDelivery), or to the
dead-letter queue naming the missing bridge; persistent ones take the normal path."""

from __future__ import annotations

import threading

import pytest
from mca_helpers import depth, get, ok, put, receiving, sending, start, status, unique, wait_for

from tpfemu import mqi
from tpfemu.channels.destination import BRIDGE_DEST, REASON_NO_BRIDGE
from tpfemu.channels.ports import FastDelivery
from tpfemu.mqi import CMQC


class Recorder:
    """A bridge that keeps what it is given (or refuses everything)."""

    def __init__(self, refuse: bool = False) -> None:
        self.got: list[tuple[str, bytes, bytes]] = []
        self.refuse = refuse
        self.arrived = threading.Event()

    def deliver(self, channel: str, md: mqi.MD, data: bytes) -> None:
        if self.refuse:
            raise RuntimeError("no terminal for it")
        self.got.append((channel, bytes(md.MsgId), data))
        self.arrived.set()


@pytest.fixture
def fast():
    """A to B over FAST channel F.TO.B (both ends FAST), running."""
    a, b = start(unique("FA")), start(unique("FB"))
    try:
        port = receiving(b, ("F.TO.B",), speed="FAST")
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        sending(a, "F.TO.B", port, "XQ", speed="FAST")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        ok(a, "ZMQSC START CHL-F.TO.B")
        wait_for(lambda: status(a, "F.TO.B") == "RUNNING", what="RUNNING")
        assert any("SPEED-FAST" in line for line in a.log)
        yield a, b
    finally:
        a.stop()
        b.stop()


def test_the_bridge_port_signature():
    """FastDelivery is deliver(channel, md, data) -> None; a Recorder satisfies it."""
    assert isinstance(Recorder(), FastDelivery)


def test_a_system_hands_fast_messages_to_its_own_bridge(fast):
    """By default a system's fast receivers hand nonpersistent messages to its ROUTC
    bridge."""
    a, b = fast
    assert b.fast_delivery is b.bridge is not None


def test_nonpersistent_without_a_bridge_goes_to_the_dlq_naming_it(fast):
    """With no bridge installed a fast nonpersistent message is dead-lettered, its MQDLH
    naming the ROUTC bridge; it never reaches a queue."""
    a, b = fast
    b.fast_delivery = None
    put(a.name, "REMOTE.Q", b"for a terminal", Persistence=CMQC.MQPER_NOT_PERSISTENT)
    data, md = get(b.name, "DEAD.LETTER.QUEUE")
    dlh = mqi.DLH().unpack(data[:172])
    assert dlh.Reason == REASON_NO_BRIDGE and dlh.DestQName.rstrip() == BRIDGE_DEST.encode()
    assert data[172:] == b"for a terminal"
    assert depth(b, "LOCAL.Q") == 0


def test_nonpersistent_goes_to_the_installed_bridge(fast):
    """With a bridge installed, a fast nonpersistent message is handed to it."""
    a, b = fast
    bridge = Recorder()
    b.fast_delivery = bridge
    md = put(a.name, "REMOTE.Q", b"to COA4", Persistence=CMQC.MQPER_NOT_PERSISTENT)
    assert bridge.arrived.wait(10)
    assert bridge.got == [("F.TO.B", md.MsgId, b"to COA4")]
    assert depth(b, "LOCAL.Q") == 0 and depth(b, "DEAD.LETTER.QUEUE") == 0


def test_a_bridge_that_raises_means_dead_letter(fast):
    """A bridge that raises could not deliver: the message goes to the dead-letter queue."""
    a, b = fast
    b.fast_delivery = Recorder(refuse=True)
    put(a.name, "REMOTE.Q", b"refused", Persistence=CMQC.MQPER_NOT_PERSISTENT)
    data, _ = get(b.name, "DEAD.LETTER.QUEUE")
    assert mqi.DLH().unpack(data[:172]).Reason == REASON_NO_BRIDGE


def test_persistent_message_takes_the_normal_path(fast):
    """A persistent message on a fast channel is batched and put on its queue."""
    a, b = fast
    b.fast_delivery = Recorder()
    put(a.name, "REMOTE.Q", b"filed", Persistence=CMQC.MQPER_PERSISTENT)
    data, md = get(b.name, "LOCAL.Q")
    assert data == b"filed" and md.Persistence == CMQC.MQPER_PERSISTENT
    wait_for(lambda: a.channels.status("F.TO.B").seq == 1, what="one sequenced message")


def test_fast_nonpersistent_messages_leave_the_xmitq_unconfirmed(fast):
    """A fast sender's nonpersistent messages take no sequence number and no batch."""
    a, b = fast
    bridge = Recorder()
    b.fast_delivery = bridge
    for i in range(20):
        put(a.name, "REMOTE.Q", b"np%d" % i, Persistence=CMQC.MQPER_NOT_PERSISTENT)
    wait_for(lambda: len(bridge.got) == 20, what="20 delivered")
    assert [d for _, _, d in bridge.got] == [b"np%d" % i for i in range(20)]
    sender = a.channels.status("F.TO.B")
    assert sender.seq == 0 and sender.batches == 0 and depth(a, "XQ") == 0


def test_nonpersistent_that_cannot_be_dead_lettered_is_lost_and_the_channel_runs_on(fast):
    """IBM ("What happens when a message cannot be delivered?"): on a fast channel a
    nonpersistent message that cannot be written to a dead-letter queue is lost; the
    channel does not stop. The console says so (CHNL0116W)."""
    a, b = fast
    b.fast_delivery = None
    ok(b, "ZMQSC ALT QL-DEAD.LETTER.QUEUE PUT-DISABLED")
    put(a.name, "REMOTE.Q", b"gone", Persistence=CMQC.MQPER_NOT_PERSISTENT)
    put(a.name, "REMOTE.Q", b"kept", Persistence=CMQC.MQPER_PERSISTENT)
    assert get(b.name, "LOCAL.Q")[0] == b"kept"
    assert status(a, "F.TO.B") == "RUNNING" and status(b, "F.TO.B") == "RUNNING"
    assert any("CHNL0116W" in line and "LOST" in line for line in b.log)
    assert depth(b, "DEAD.LETTER.QUEUE") == 0
