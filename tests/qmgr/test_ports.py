"""The queue manager's ports (tpfemu.qmgr.ports): it starts entries and registers services
only through what it was handed, and works without them (no System)."""

from __future__ import annotations

import itertools

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.qmgr import swq
from tpfemu.qmgr.manager import QueueManager

_ids = itertools.count(1)


class Entries:
    """An EntryPort that records the entries it is asked to create."""

    def __init__(self, loaded: set[str]) -> None:
        self.loaded = loaded
        self.created: list[tuple[str, bytes, tuple[str, str]]] = []

    def is_loaded(self, program: str) -> bool:
        return program in self.loaded

    def create_entry(self, program: str, data: bytes, *, origin: tuple[str, str]) -> None:
        self.created.append((program, data, origin))


class Services:
    """A ServiceRegistry that keeps what it is given."""

    def __init__(self) -> None:
        self.services: list = []

    def running(self) -> list:
        return list(self.services)

    def register(self, service) -> None:
        self.services.append(service)


@pytest.fixture
def make_qmgr():
    started: list[QueueManager] = []
    lines: list[str] = []

    def make(**ports) -> tuple[QueueManager, list[str]]:
        qmgr = QueueManager(f"PRT{next(_ids)}", console=lines.append, **ports).start()
        started.append(qmgr)
        qmgr.catalog.define("MQP")
        qmgr.catalog.define("PROC", "APP.PROC", applid="PRG1")
        qmgr.catalog.define("QL", "APP.IN", trigger="YES", trigtype="EVERY",
                            process="APP.PROC")
        return qmgr, lines

    yield make
    for qmgr in started:
        for service in (qmgr.services.running() if qmgr.services else ()):
            service.stop()
        qmgr.stop()


def _put(qmgr: QueueManager) -> None:
    qm = pymqi.connect(qmgr.name)
    q = pymqi.Queue(qm, "APP.IN", CMQC.MQOO_OUTPUT)
    q.put(b"hello")
    q.close()
    qm.disconnect()


def test_a_queue_manager_without_ports_says_it_cannot_start_entries(make_qmgr):
    """Without an entry port a trigger says MQSC0911E (no dispatcher) and the put succeeds."""
    qmgr, lines = make_qmgr()
    _put(qmgr)
    assert qmgr.queues["APP.IN"].core.depth == 1
    assert any(line.startswith("MQSC0911E") and "APP.IN" in line for line in lines), lines


def test_a_trigger_starts_its_program_through_the_entry_port(make_qmgr):
    """A trigger creates the process's program as an entry through the port it was given."""
    entries = Entries({"PRG1"})
    qmgr, lines = make_qmgr(entries=entries)
    _put(qmgr)
    assert [(p, origin) for p, _, origin in entries.created] == [("PRG1", ("TRIGGER", "APP.IN"))]
    assert entries.created[0][1][:4] == CMQC.MQTMC_STRUC_ID  # the MQTMC2 on D0
    assert not [line for line in lines if line.startswith("MQSC091")]


def test_a_program_not_loaded_is_kept_and_started_once_loaded(make_qmgr):
    """The port says the program is not loaded: MQSC0912E, then the next trigger point
    starts the kept trigger once it is."""
    entries = Entries(set())
    qmgr, lines = make_qmgr(entries=entries)
    _put(qmgr)
    assert entries.created == []
    assert any(line.startswith("MQSC0912E") and "PRG1" in line for line in lines), lines
    entries.loaded.add("PRG1")
    _put(qmgr)
    assert [p for p, _, _ in entries.created] == ["PRG1", "PRG1"]


def test_swing_registers_one_forwarder_with_the_service_registry(make_qmgr):
    """A swing starts the forwarder once and registers it; a bare queue manager has none."""
    services = Services()
    qmgr, _ = make_qmgr(services=services)
    for name in ("XA", "XB", "XC"):
        qmgr.catalog.define("QL", name, usage="XMITQ")
    swq.swing(qmgr, "XA", "XB")
    swq.swing(qmgr, "XC", "XB")
    forwarders = [s for s in services.services if isinstance(s, swq.Forwarder)]
    assert len(forwarders) == 1 and forwarders[0].qmgr is qmgr
    bare, _ = make_qmgr()
    assert swq.ensure_forwarder(bare) is None
