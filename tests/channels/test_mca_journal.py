"""The channel agents' events on the queue manager's event bus (which the journal
records): channel-send and channel-commit at the sender, channel-receive and
channel-commit at the receiver (channel-backout for a batch a break left unconfirmed)."""

from __future__ import annotations

from mca_helpers import get, ok, put, receiving, sending, start, status, unique, wait_for

from tpfemu.journal.schema import EVENT_TYPES
from tpfemu.mqi import CMQC


def test_batches_are_journalled_at_both_ends():
    """One batch gives channel-send and channel-commit on A, channel-receive and
    channel-commit on B, with the channel, sequence number and LUWID; the kinds are
    journal event types."""
    a, b = start(unique("JA")), start(unique("JB"))
    seen: dict[str, list] = {"a": [], "b": []}
    try:
        a.qmgr.events.subscribe(lambda e: seen["a"].append(e))
        b.qmgr.events.subscribe(lambda e: seen["b"].append(e))
        port = receiving(b, ("J.TO.B",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        sending(a, "J.TO.B", port, "XQ")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        put(a.name, "REMOTE.Q", b"journalled", Persistence=CMQC.MQPER_PERSISTENT)
        ok(a, "ZMQSC START CHL-J.TO.B")
        assert get(b.name, "LOCAL.Q")[0] == b"journalled"
        wait_for(lambda: a.channels.status("J.TO.B").seq == 1, what="confirmed")
        wait_for(lambda: status(a, "J.TO.B") == "RUNNING", what="running")
    finally:
        a.stop()
        b.stop()
    sender = [e for e in seen["a"] if e.kind.startswith("channel-")]
    receiver = [e for e in seen["b"] if e.kind.startswith("channel-")]
    assert [e.kind for e in sender] == ["channel-send", "channel-commit"]
    assert [e.kind for e in receiver] == ["channel-receive", "channel-commit"]
    assert sender[0].queue == "XQ" and receiver[0].queue == "J.TO.B"
    assert sender[0].fields["luwid"] == receiver[0].fields["luwid"]
    assert sender[0].fields["seq"] == receiver[0].fields["seq"] == 1
    assert {e.kind for e in sender + receiver} <= set(EVENT_TYPES)
