"""A receiver refuses what it cannot run, with the FAP status and a console message at both
ends; the refused sender retries as after any channel error (IBM, "Channel errors": a
sender goes to RETRY because the problem might clear itself), and so does a sender whose
receiver is away; DISP CHL shows RETRYING."""

from __future__ import annotations

import socket

import pytest
from mca_helpers import ok, receiving, sending, start, status, unique, wait_for


@pytest.fixture
def two():
    """Two systems, B listening for channels (no channel defined yet)."""
    a, b = start(unique("RA")), start(unique("RB"))
    try:
        port = receiving(b)
        yield a, b, port
    finally:
        a.stop()
        b.stop()


def _refused(a, b, status_name: str, words: str) -> None:
    wait_for(lambda: status(a, "X.TO.B") == "RETRYING"
             and status_name in a.channels.status("X.TO.B").reason, what="the sender RETRYING")
    assert any("CHNL0111E" in line and status_name in line and words in line
               for line in b.log), list(b.log)
    assert any("CHNL0104E" in line and status_name in line for line in a.log), list(a.log)
    assert any("CHNL0103W" in line and "RETRYING" in line for line in a.log), list(a.log)


def test_undefined_channel_is_refused(two):
    """A sender naming a channel the receiver does not have gets STATUS NO_CHANNEL."""
    a, b, port = two
    sending(a, "X.TO.B", port, "XQ")
    ok(a, "ZMQSC START CHL-X.TO.B")
    _refused(a, b, "NO_CHANNEL", "NOT DEFINED")


def test_channel_of_the_wrong_type_is_refused(two):
    """A sender whose channel is not a receiver at the other end gets CHANNEL_WRONG_TYPE."""
    a, b, port = two
    ok(b, "ZMQSC DEF QL-XQ2 USAGE-XMITQ")
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-SDR CONNAME-'127.0.0.1(1)' XMITQ-XQ2")
    sending(a, "X.TO.B", port, "XQ")
    ok(a, "ZMQSC START CHL-X.TO.B")
    _refused(a, b, "CHANNEL_WRONG_TYPE", "NOT A RECEIVER")


def test_unequal_seqwrap_is_refused(two):
    """SEQWRAP must be equal at both ends: WRAP_VALUE_ERROR, said at both ends."""
    a, b, port = two
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-RCVR SEQWRAP-1000")
    sending(a, "X.TO.B", port, "XQ")
    ok(a, "ZMQSC START CHL-X.TO.B")
    _refused(a, b, "WRAP_VALUE_ERROR", "NEGOTIATION FAILED")


def test_stopped_receiver_is_refused_until_started(two):
    """A receiver stopped by STOP CHL refuses its sender (CHANNEL_UNAVAILABLE) until START."""
    a, b, port = two
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-RCVR")
    ok(b, "ZMQSC STOP CHL-X.TO.B")
    sending(a, "X.TO.B", port, "XQ")
    ok(a, "ZMQSC START CHL-X.TO.B")
    _refused(a, b, "CHANNEL_UNAVAILABLE", "STOPPED")
    ok(b, "ZMQSC START CHL-X.TO.B")
    ok(a, "ZMQSC STOP CHL-X.TO.B")  # (its short retries are spent: restart it now)
    wait_for(lambda: status(a, "X.TO.B") == "STOPPED", what="STOPPED")
    ok(a, "ZMQSC START CHL-X.TO.B")
    wait_for(lambda: status(a, "X.TO.B") == "RUNNING", what="RUNNING after START")


def test_a_refused_sender_runs_once_the_receiver_is_defined(two):
    """A sender refused with NO_CHANNEL retries (SHORTTMR apart) and runs by itself once
    the receiver channel is defined."""
    a, b, port = two
    sending(a, "X.TO.B", port, "XQ", extra="SHORTRTY-100 SHORTTMR-1")
    ok(a, "ZMQSC START CHL-X.TO.B")
    _refused(a, b, "NO_CHANNEL", "NOT DEFINED")
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-RCVR")
    wait_for(lambda: status(a, "X.TO.B") == "RUNNING", timeout=15, what="RUNNING on retry")


def test_negotiation_takes_the_lower_batch_size(two):
    """The batch size both ends run with is the lower of their BATCHSZ."""
    a, b, port = two
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-RCVR BATCHSZ-7")
    sending(a, "X.TO.B", port, "XQ", batchsz=40)
    ok(a, "ZMQSC START CHL-X.TO.B")
    wait_for(lambda: status(a, "X.TO.B") == "RUNNING", what="RUNNING")
    assert any("CHNL0101I" in line and "BATCHSZ-7" in line for line in a.log)


def test_sender_retries_while_the_receiver_is_away(two):
    """A sender that cannot connect shows RETRYING, then runs once the listener is back."""
    a, b, _ = two
    with socket.socket() as probe:  # a free port nobody listens on
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    ok(b, "ZMQSC DEF CHL-X.TO.B CHLTYPE-RCVR")
    sending(a, "X.TO.B", free, "XQ", extra="SHORTRTY-100 SHORTTMR-1")
    ok(a, "ZMQSC START CHL-X.TO.B")
    wait_for(lambda: status(a, "X.TO.B") == "RETRYING", what="RETRYING")
    shown = a.console("ZMQSC DISP CHL-X.TO.B").split()
    assert shown[shown.index("STATUS") + 1] == "RETRYING"
    assert any("CHNL0103W" in line for line in a.log)
    ok(b, f"ZINET ADD S-MQS2 P-TCP MODEL-AOR PORT-{free} PGM-CMQL AORL-8 IP-127.0.0.1")
    ok(b, "ZINET START S-MQS2")
    wait_for(lambda: status(a, "X.TO.B") == "RUNNING", timeout=15, what="RUNNING after retry")


def test_retries_exhausted_stop_the_sender(two):
    """With SHORTRTY and LONGRTY used up, the sender stops and says why."""
    a, _, _ = two
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    sending(a, "X.TO.B", free, "XQ", extra="SHORTRTY-2 SHORTTMR-0 LONGRTY-0")
    ok(a, "ZMQSC START CHL-X.TO.B")
    wait_for(lambda: status(a, "X.TO.B") == "STOPPED", what="STOPPED")
    assert "RETRIES EXHAUSTED" in a.channels.status("X.TO.B").reason
