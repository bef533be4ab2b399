"""An idle sender channel: it runs on, sending heartbeats every HBINT seconds (the larger
of the two ends' values); there is no DISCINT (z/TPF's DEF CHL has none), so it never
ends for being idle, and no channel triggering starts it."""

from __future__ import annotations

import time

from mca_helpers import get, ok, put, receiving, sending, start, status, unique, wait_for


def test_an_idle_sender_heartbeats_and_runs_on_and_discint_is_no_keyword():
    """With HBINT 1 at the sender and 2 at the receiver the channel runs on through five
    idle seconds (heartbeats every 2 s, answered) and then carries a message at once;
    DISCINT and BATCHINT are refused as DEF CHL keywords."""
    a, b = start(unique("IA")), start(unique("IB"))
    try:
        port = receiving(b)
        ok(b, "ZMQSC DEF CHL-I.TO.B CHLTYPE-RCVR HBINT-2")
        ok(b, "ZMQSC DEF QL-LOCAL.Q")
        sending(a, "I.TO.B", port, "XQ", extra="SHORTTMR-0 HBINT-1")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        for keyword in ("DISCINT-10", "BATCHINT-10"):
            response = a.console(f"ZMQSC ALT CHL-I.TO.B {keyword}")
            assert "MQSC0005E" in response and "IS NOT" in response
        ok(a, "ZMQSC START CHL-I.TO.B")
        wait_for(lambda: status(a, "I.TO.B") == "RUNNING", what="RUNNING")
        time.sleep(5)
        assert status(a, "I.TO.B") == "RUNNING" and status(b, "I.TO.B") == "RUNNING"
        assert not any("CHNL0103W" in line for line in a.log)  # no break, no retry
        put(a.name, "REMOTE.Q", b"after the quiet")
        assert get(b.name, "LOCAL.Q", wait=3.0)[0] == b"after the quiet"
    finally:
        a.stop()
        b.stop()
