"""The console's host interface: commands run on anything that offers it, not only a System."""

from __future__ import annotations

import itertools

import pytest

from tpfemu.console import execute
from tpfemu.console.host import ConsoleHost
from tpfemu.qmgr.manager import QueueManager

_ids = itertools.count(1)


class Host:
    """A host built from a bare queue manager: no dispatcher, no Internet daemon."""

    def __init__(self, qmgr: QueueManager) -> None:
        self.cpu = "C"
        self.running = True
        self.stop_requested = False
        self.qmgr = qmgr
        self.services: list = []
        self.lines: list[str] = []
        self.daemon_asked = 0

    def say(self, line: str) -> None:
        self.lines.append(line)

    def start_trigger_monitor(self, initq: str) -> object:
        raise AssertionError("not used here")

    def internet_daemon(self):
        self.daemon_asked += 1
        raise AssertionError("not used here")


@pytest.fixture
def host():
    qmgr = QueueManager(f"HST{next(_ids)}", cpu="C").start()
    yield Host(qmgr)
    qmgr.stop()


def test_zmqsc_runs_on_a_host_that_is_not_a_system(host):
    """ZMQSC defines and displays through the host's queue manager and CPU ID alone."""
    assert execute(host, "ZMQSC DEF MQP").startswith("MQSC0017I C")
    assert "MQSC" in execute(host, "ZMQSC DEF QL-HOST.Q")
    assert "HOST.Q" in host.qmgr.queues
    assert "HOST.Q" in execute(host, "ZMQSC DISP QL-HOST.Q")


def test_stop_and_start_qmgr_go_through_the_host_flag(host):
    """STOP QMGR sets the host's stop_requested, START clears it, DISP QMGR shows it."""
    execute(host, "ZMQSC DEF MQP")
    execute(host, "ZMQSC STOP QMGR")
    assert host.stop_requested is True
    assert "STOP REQUESTED" in execute(host, "ZMQSC DISP QMGR")
    assert "CANCELLED" in execute(host, "ZMQSC START QMGR")
    assert host.stop_requested is False


def test_a_bad_zinet_verb_is_rejected_before_the_daemon_is_asked(host):
    """An unknown ZINET verb is refused without reaching the host's Internet daemon."""
    assert execute(host, "ZINET FROB").startswith("INET0010E C")
    assert host.daemon_asked == 0


def test_channel_requests_on_a_host_without_channel_agents_are_recorded(host):
    """A host that runs no channel agents records START/STOP CHL and says so (MQSC0060I),
    rather than pretend to have started or stopped anything."""
    from tpfemu.console import messages as m

    execute(host, "ZMQSC DEF MQP")
    execute(host, "ZMQSC DEF CHL-CLIENTS CHLTYPE-SVRCONN")
    response = execute(host, "ZMQSC STOP CHL-CLIENTS MODE-FORCE")
    assert response.startswith(m.CHL_RECORDED.id) and "NO CHANNEL AGENTS" in response
    request = host.qmgr.catalog.channel_requests["CLIENTS"]
    assert (request.state, request.mode) == ("STOPPED", "FORCE")


def test_the_system_offers_every_member_of_the_host_interface(system):
    """A System has each attribute and method the ConsoleHost protocol names."""
    members = set(ConsoleHost.__annotations__) | {
        name for name, value in vars(ConsoleHost).items()
        if callable(value) and not name.startswith("_")}
    assert {"cpu", "qmgr", "say", "internet_daemon"} <= members
    missing = [name for name in sorted(members) if not hasattr(system, name)]
    assert not missing, missing
    assert system.internet_daemon() is system.internet_daemon()
