"""The operator's channel commands act for real: RESOLVE CHL settles a stopped sender's
in-doubt batch (COMMIT removes it, BACKOUT sends it again), RESET CHL sets the next
sequence number at both ends."""

from __future__ import annotations

import pytest
from mca_helpers import (
    depth,
    drain,
    get,
    ok,
    put,
    receiving,
    sending,
    start,
    status,
    unique,
    wait_for,
)
from mca_proxy import CuttingProxy

from tpfemu.mqi import CMQC


@pytest.fixture
def indoubt():
    """A to B through a proxy that drops the first batch's STATUS and cuts: the sender,
    allowed no retry, stops in doubt; B committed the batch (3 persistent messages)."""
    a, b = start(unique("OA")), start(unique("OB"))
    try:
        port = receiving(b, ("O.TO.B",))
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        proxy = CuttingProxy(("127.0.0.1", port), cuts=1, modes=("before_status",), after=12)
        sending(a, "O.TO.B", proxy.port, "XQ", extra="SHORTRTY-0 LONGRTY-0")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        for i in range(3):
            put(a.name, "REMOTE.Q", b"m%d" % i, Persistence=CMQC.MQPER_PERSISTENT)
        ok(a, "ZMQSC START CHL-O.TO.B")
        wait_for(lambda: status(a, "O.TO.B") == "STOPPED"
                 and not a.channels.is_running("O.TO.B"), what="the sender's end")
        assert proxy.made == ["before_status"]
        assert a.channels.status("O.TO.B").indoubt and depth(a, "XQ") == 3
        assert len(drain(b.name, "LOCAL.Q")) == 3  # the receiver committed them
        yield a, b
        proxy.close()
    finally:
        a.stop()
        b.stop()


def _shown(system, name: str) -> dict[str, str]:
    words = system.console(f"ZMQSC DISP CHL-{name}").split()
    return {k: words[words.index(k) + 1] for k in ("STATUS", "INDOUBT", "SEQNUM")}


def test_display_shows_in_doubt(indoubt):
    """DISP CHL of the stopped sender shows INDOUBT YES."""
    a, _ = indoubt
    assert _shown(a, "O.TO.B")["INDOUBT"] == "YES"


def test_resolve_commit_removes_the_batch(indoubt):
    """RESOLVE CHL ACTION-COMMIT removes the in-doubt messages from the transmission queue."""
    a, _ = indoubt
    response = ok(a, "ZMQSC RESOLVE CHL-O.TO.B ACTION-COMMIT")
    assert "3 MESSAGE(S) REMOVED" in response
    assert depth(a, "XQ") == 0
    assert _shown(a, "O.TO.B") == {"STATUS": "STOPPED", "INDOUBT": "NO", "SEQNUM": "3"}


def test_resolve_backout_sends_the_batch_again(indoubt):
    """RESOLVE CHL ACTION-BACKOUT keeps the messages to be sent again (IBM: a resolution
    that differs from the receiver's outcome duplicates them)."""
    a, b = indoubt
    ok(a, "ZMQSC RESOLVE CHL-O.TO.B ACTION-BACKOUT")
    assert _shown(a, "O.TO.B")["INDOUBT"] == "NO" and depth(a, "XQ") == 3
    ok(a, "ZMQSC ALT CHL-O.TO.B SHORTRTY-10")
    ok(a, "ZMQSC START CHL-O.TO.B")
    assert [get(b.name, "LOCAL.Q")[0] for _ in range(3)] == [b"m0", b"m1", b"m2"]


def test_resolve_of_a_running_channel_is_refused(indoubt):
    """RESOLVE and RESET are refused while the channel runs."""
    a, _ = indoubt
    ok(a, "ZMQSC ALT CHL-O.TO.B SHORTRTY-10")
    ok(a, "ZMQSC START CHL-O.TO.B")
    wait_for(lambda: status(a, "O.TO.B") == "RUNNING", what="running")
    for command in ("RESOLVE CHL-O.TO.B ACTION-COMMIT", "RESET CHL-O.TO.B SEQNUM-5"):
        response = a.console(f"ZMQSC {command}")
        assert "MQSC0062E" in response and "RUNNING" in response


def test_reset_sets_the_next_sequence_number(indoubt):
    """After RESOLVE, RESET CHL SEQNUM-100 makes the next message number 100 at both ends."""
    a, b = indoubt
    ok(a, "ZMQSC RESOLVE CHL-O.TO.B ACTION-COMMIT")
    ok(a, "ZMQSC RESET CHL-O.TO.B SEQNUM-100")
    ok(a, "ZMQSC ALT CHL-O.TO.B SHORTRTY-10")
    ok(a, "ZMQSC START CHL-O.TO.B")
    put(a.name, "REMOTE.Q", b"after reset")
    assert get(b.name, "LOCAL.Q")[0] == b"after reset"
    wait_for(lambda: a.channels.status("O.TO.B").seq == 100, what="sequence 100")
    assert b.channels.status("O.TO.B").seq == 100
