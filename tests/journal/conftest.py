"""Fixtures of the journal tests: systems with a home in a temporary directory."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator

import pytest

import tpfemu

_ids = itertools.count(1)


@pytest.fixture
def start_system(tmp_path) -> Iterator[Callable[..., tpfemu.System]]:
    """Start Systems (unique names, home ``tmp_path/"home"`` unless given, MQP and the
    queues named in ``queues`` defined unless the home restored them); every one is
    stopped after the test."""
    started: list[tpfemu.System] = []

    def start(*, journal: str = "events", home=None, queues=("APP.Q",), name=None,
              **kwargs) -> tpfemu.System:
        system = tpfemu.System.start(name=name or f"JRN{next(_ids)}",
                                     home=home if home is not None else tmp_path / "home",
                                     journal=journal, **kwargs)
        started.append(system)
        catalog = system.qmgr.catalog
        if catalog.profile is None:  # not restored from the home
            catalog.define("MQP")
        for queue in queues:
            if catalog.find_queue(queue) is None:
                catalog.define("QL", queue)
        return system

    yield start
    for system in started:
        system.stop()


@pytest.fixture
def batch_journal(tmp_path) -> Callable:
    """A function ``(system, queue) -> (journal, handle)``: the system's journal replaced
    by one of its own under ``tmp_path/"j"`` with batches of 16 events and a 10-minute
    interval (so a batch's worth, or a flush, is what writes), and ``queue`` opened on a
    new connection for output and input."""

    def make(system: tpfemu.System, queue: str):
        import tpfemu.mqi as pymqi
        from tpfemu.journal.writer import Journal
        from tpfemu.mqi import CMQC

        system.journal.stop()
        jr = Journal(system.qmgr, tmp_path / "j", interval=600, batch_events=16,
                     cpu=system.cpu).start()  # fmt: skip
        qm = pymqi.connect(system.name)
        return jr, pymqi.Queue(qm, queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)

    return make
