"""Fixtures of the ROUTC bridge tests: a running system, and one way to deliver.

Every test hands bridged messages to the system through the ``deliver`` fixture, as the
fast receiver channel does (``system.bridge.deliver(channel, md, data)``). Once the fast
channel exists, the over-the-wire tests replace this fixture with one that sends through
a real sender/fast-receiver pair; the tests themselves stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from bridge_helpers import FAST_CHANNEL, WAIT

import tpfemu
from tpfemu import mqi
from tpfemu.mqi import CMQC


@pytest.fixture(scope="session", autouse=True)
def _running_ecb_watcher() -> None:
    """Install the journal's running-ECB watcher before any bridge test runs an entry, as
    a journal started first in the process does. (tests/journal/test_capture.py's
    test_an_event_that_cannot_be_recorded_is_counted_not_raised needs the watcher to have
    been installed before the first entry of the process; these tests run entries early.)"""
    from ecb import linkage
    from tpfemu._lowlevel import follow_running_ecbs

    follow_running_ecbs(linkage.watch_running)


@pytest.fixture
def system() -> Iterator[tpfemu.System]:
    """A running in-memory system with the profile and a reply queue REPLY.Q."""
    with tpfemu.System.start(name="TPF1") as system:
        system.console("ZMQSC DEF MQP")
        system.console("ZMQSC DEF QL-REPLY.Q")
        yield system


@pytest.fixture
def deliver(system: tpfemu.System) -> Callable[..., None]:
    """Deliver one nonpersistent request as the fast receiver does; wait for its entries.

    ``deliver(data, **md_fields)``: ReplyToQ defaults to REPLY.Q; ``wait=False`` returns at
    once (the entries run on the dispatcher).
    """

    def send(data: bytes, *, wait: bool = True, channel: str = FAST_CHANNEL,
             **fields: object) -> None:
        fields.setdefault("ReplyToQ", b"REPLY.Q")
        fields.setdefault("Persistence", CMQC.MQPER_NOT_PERSISTENT)
        fields.setdefault("Format", CMQC.MQFMT_STRING)
        fields.setdefault("CodedCharSetId", 37)
        assert system.bridge is not None
        system.bridge.deliver(channel, mqi.MD(**fields), data)
        if wait:
            assert system.dispatcher.wait_idle(WAIT)

    return send


@pytest.fixture
def qm(system: tpfemu.System) -> Iterator[mqi.QueueManager]:
    """An MQI connection to the system's queue manager (the requester's side)."""
    qm = mqi.connect("TPF1")
    yield qm
    qm.disconnect()
