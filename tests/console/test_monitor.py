"""The queue depth monitor: QDEPTHHI warnings, repeated every QDT seconds, and the all-clear."""

from __future__ import annotations

import time

import pytest
from console_helpers import LINE, ok

from tpfemu.console import messages as m
from tpfemu.console.monitor import DepthMonitor


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    """A hand-driven clock."""
    return Clock()


@pytest.fixture
def monitor(mqp, clock):
    """A depth monitor on a profile with QDT 30 and queue Q (MAXDEPTH 10, QDEPTHHI 50)."""
    ok(mqp, "ZMQSC ALT MQP QDT-30")
    ok(mqp, "ZMQSC DEF QL-Q MAXDEPTH-10 QDEPTHHI-50")
    return DepthMonitor(mqp, clock=clock)


def fill(system, name: str, count: int) -> None:
    """Put ``count`` messages on a queue."""
    for _ in range(count):
        system.qmgr.queues[name].core.put(b"x")


def take(system, name: str, count: int) -> None:
    """Get ``count`` messages from a queue."""
    for _ in range(count):
        system.qmgr.queues[name].core.get()


def test_no_warning_at_or_below_the_limit(mqp, monitor):
    """Depth equal to QDEPTHHI% of MAXDEPTH is not above it: no warning."""
    fill(mqp, "Q", 5)
    assert monitor.check() == []


def test_warning_when_depth_passes_the_limit(mqp, monitor):
    """Depth above the limit writes one W line on the console naming queue, depth, limit."""
    fill(mqp, "Q", 6)
    [line] = monitor.check()
    assert line.startswith(m.DEPTH_HIGH.id) and LINE.match(line)
    assert "QL Q DEPTH 6" in line and "50%" in line and "MAXDEPTH 10" in line
    assert line in mqp.log


def test_warning_repeats_every_qdt_seconds(mqp, monitor, clock):
    """While above, the warning is repeated once QDT seconds have passed, not before."""
    fill(mqp, "Q", 8)
    assert len(monitor.check()) == 1
    clock.now += 29.9
    assert monitor.check() == []
    clock.now += 0.1
    assert [line[:9] for line in monitor.check()] == [m.DEPTH_HIGH.id]
    clock.now += 10
    assert monitor.check() == []
    clock.now += 20
    assert len(monitor.check()) == 1


def test_message_when_depth_drops_back(mqp, monitor, clock):
    """Dropping back to the limit writes one I line, and the warnings stop."""
    fill(mqp, "Q", 7)
    monitor.check()
    take(mqp, "Q", 2)
    [line] = monitor.check()
    assert line.startswith(m.DEPTH_OK.id) and "QL Q DEPTH 5" in line
    clock.now += 100
    assert monitor.check() == []
    fill(mqp, "Q", 1)
    assert [line[:9] for line in monitor.check()] == [m.DEPTH_HIGH.id]


@pytest.mark.parametrize(
    "define",
    ["QL-Z MAXDEPTH-10", "QL-Z MAXDEPTH-10 QDEPTHHI-0", "QL-Z MAXDEPTH-0 QDEPTHHI-50",
     "QL-Z MAXDEPTH-10 COMMON-YES"],
)
def test_unwatched_queues(mqp, clock, define):
    """QDEPTHHI 0, MAXDEPTH 0 (unlimited) and processor-shared queues give no warnings."""
    ok(mqp, f"ZMQSC DEF {define}")
    fill(mqp, "Z", 10)
    assert DepthMonitor(mqp, clock=clock).check() == []


def test_transmission_queues_are_watched(mqp, clock):
    """A transmission queue (processor-unique) is watched like any other."""
    ok(mqp, "ZMQSC DEF QL-XQ USAGE-XMITQ MAXDEPTH-4 QDEPTHHI-25")
    fill(mqp, "XQ", 2)
    assert len(DepthMonitor(mqp, clock=clock).check()) == 1


def test_alter_judges_the_queue_afresh(mqp, monitor, clock):
    """Raising QDEPTHHI above the depth brings the all-clear; lowering it warns at once."""
    fill(mqp, "Q", 7)
    monitor.check()
    ok(mqp, "ZMQSC ALT QL-Q QDEPTHHI-80")
    assert monitor.check() == []  # judged afresh: below the new limit, and never warned
    ok(mqp, "ZMQSC ALT QL-Q QDEPTHHI-10")
    assert [line[:9] for line in monitor.check()] == [m.DEPTH_HIGH.id]


def test_deleted_queue_is_forgotten(mqp, monitor):
    """A queue deleted while above its limit is dropped without a message."""
    fill(mqp, "Q", 7)
    monitor.check()
    ok(mqp, "ZMQSC CLEAR QL-Q")
    ok(mqp, "ZMQSC DEL QL-Q")
    assert monitor.check() == []


def test_several_queues_are_judged_separately(mqp, monitor):
    """Each queue has its own state."""
    ok(mqp, "ZMQSC DEF QL-R MAXDEPTH-100 QDEPTHHI-1")
    fill(mqp, "Q", 6)
    fill(mqp, "R", 2)
    lines = monitor.check()
    assert sorted(line.split()[3] for line in lines) == ["Q", "R"]


def test_events_for_the_journal(mqp, monitor):
    """depth-high and depth-ok events go to the queue manager's event bus."""
    seen = []
    mqp.qmgr.events.subscribe(seen.append)
    fill(mqp, "Q", 6)
    monitor.check()
    take(mqp, "Q", 6)
    monitor.check()
    kinds = [(e.kind, e.queue, e.fields["depth"]) for e in seen if e.kind.startswith("depth")]
    assert kinds == [("depth-high", "Q", 6), ("depth-ok", "Q", 0)]


def test_failures_are_reported_not_raised(mqp, monitor, monkeypatch):
    """An error inside a check is written to the console as MQSC0072E."""
    monkeypatch.setattr(mqp.qmgr, "queues", None)
    [line] = monitor.check()
    assert line.startswith(m.MONITOR_FAILED.id)


def test_thread_warns_on_its_own(mqp):
    """Started, the monitor checks by itself every interval; stop() ends it."""
    ok(mqp, "ZMQSC DEF QL-T MAXDEPTH-2 QDEPTHHI-50")
    fill(mqp, "T", 2)
    monitor = DepthMonitor(mqp, interval=0.01).start()
    try:
        deadline = time.monotonic() + 5
        while not any(line.startswith(m.DEPTH_HIGH.id) for line in mqp.log):
            assert time.monotonic() < deadline
            time.sleep(0.01)
    finally:
        monitor.stop()
    assert monitor._thread is None
