"""The journal's writer wakes when a batch's worth of events is recorded, not only at its
interval (EventLog.wake_on, Journal._wait)."""

from __future__ import annotations

import os
import time

import pytest

from tpfemu import journal
from tpfemu._lowlevel import EventLog
from tpfemu.journal.writer import Journal
from tpfemu.qmgr.manager import QueueManager


def _rows(directory) -> int:
    """Rows readable in the journal directory now (no flush asked)."""
    return sum(1 for _ in journal.read_events(directory))


def _wait_for_rows(directory, want: int, seconds: float = 10.0) -> int:
    deadline = time.monotonic() + seconds
    while True:
        n = _rows(directory)
        if n >= want or time.monotonic() > deadline:
            return n
        time.sleep(0.02)


def test_a_batch_of_emitted_events_is_written_long_before_the_interval(tmp_path):
    """With a 10-minute interval and batches of 4 events, 8 emitted events are in the
    segment within seconds, without a flush: the log woke the writer."""
    qmgr = QueueManager("WAKEQM").start()
    jr = Journal(qmgr, tmp_path / "j", interval=600, batch_events=4).start()
    try:
        for i in range(8):
            qmgr.events.emit("commit", "Q", 1_700_000_000_000_000 + i, uow=i + 1, count=1)
        assert _wait_for_rows(tmp_path / "j", 8) == 8
    finally:
        jr.stop()
        qmgr.stop()


def test_fewer_events_than_a_batch_wait_for_the_interval_or_a_flush(tmp_path):
    """Fewer events than a batch do not wake the writer (they are written at the interval
    or by flush): with a 10-minute interval, 3 events of a batch of 4 are not in the
    segment after half a second, and a flush writes them."""
    qmgr = QueueManager("WAKEQM2").start()
    jr = Journal(qmgr, tmp_path / "j", interval=600, batch_events=4).start()
    try:
        for i in range(3):
            qmgr.events.emit("commit", "Q", 1_700_000_000_000_000 + i, uow=i + 1, count=1)
        time.sleep(0.5)
        assert _rows(tmp_path / "j") == 0
        assert jr.flush()
        assert _rows(tmp_path / "j") == 3
    finally:
        jr.stop()
        qmgr.stop()


def test_mqi_puts_and_gets_recorded_in_c_wake_the_writer(start_system, tmp_path,
                                                         batch_journal):
    """The fast paths' records wake the writer as emitted events do: 50 put+get pairs
    through the MQI, batches of 16, a 10-minute interval: at least the first 96 events
    (six whole batches) are written without a flush."""
    system = start_system(journal="events", queues=("WAKE.Q",))
    jr, q = batch_journal(system, "WAKE.Q")
    try:
        for i in range(50):
            q.put(b"wake %d" % i)
            q.get()
        assert _wait_for_rows(tmp_path / "j", 96) >= 96
    finally:
        q.close()
        q._qmgr.disconnect()
        jr.stop()


def test_wake_on_writes_one_byte_per_buffer_and_can_be_turned_off():
    """EventLog.wake_on(fd, every) writes one byte when the records not taken reach
    `every` (once until they are taken), none after wake_on(-1, 0); bad arguments are
    refused with a message naming them."""
    log = EventLog(lambda: None)
    r, w = os.pipe()
    os.set_blocking(r, False)
    try:
        log.wake_on(w, 3)
        for i in range(7):
            log.add("commit", "Q", i, {})
        assert os.read(r, 100) == b"\1"  # at the 3rd; the 6th is past it, not at it
        log.take()
        for i in range(3):
            log.add("commit", "Q", i, {})
        assert os.read(r, 100) == b"\1"
        log.take()
        log.wake_on(-1, 0)
        for i in range(5):
            log.add("commit", "Q", i, {})
        with pytest.raises(BlockingIOError):
            os.read(r, 100)
        with pytest.raises(ValueError, match="every"):
            log.wake_on(w, -1)
        with pytest.raises(TypeError, match="wake_on"):
            log.wake_on("fd", 1)
    finally:
        os.close(r)
        os.close(w)


def _recorded_log(n: int) -> tuple[EventLog, object]:
    from tpfemu._lowlevel import CoreQueue

    log = EventLog(lambda: None)
    q = CoreQueue("WAIT.Q")
    for i in range(n):
        q.put(b"w%d" % i, 0, 0, log)
    return log, q


def test_write_ipc_waits_for_the_next_wake_up_after_writing(tmp_path):
    """write_ipc(..., wake_fd, wait) writes the cycle, then waits up to `wait` seconds
    for a byte on wake_fd (here none: it takes the whole 0.3 s), or returns as soon as
    one is there (taking it), and at once when there was nothing to write."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    fd = os.open(tmp_path / "rows", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    queues = []
    try:
        log, q = _recorded_log(5)
        queues.append(q)
        start = time.monotonic()
        assert log.write_ipc(fd, 0, "B", "QM", 8, _no_emitted, r, 0.3)[0] == 5
        assert time.monotonic() - start >= 0.25
        log, q = _recorded_log(5)
        queues.append(q)
        os.write(w, b"\1")
        start = time.monotonic()
        assert log.write_ipc(fd, 5, "B", "QM", 8, _no_emitted, r, 30.0)[0] == 5
        assert time.monotonic() - start < 10
        with pytest.raises(BlockingIOError):  # (the byte was taken)
            os.read(r, 10)
        start = time.monotonic()
        assert log.write_ipc(fd, 10, "B", "QM", 8, _no_emitted, r, 30.0)[0] == 0
        assert time.monotonic() - start < 10
        with pytest.raises(TypeError, match="wake_fd"):
            log.write_ipc(fd, 10, "B", "QM", 8, _no_emitted, r, 1)
    finally:
        os.close(fd)
        os.close(r)
        os.close(w)
        for q in queues:
            q.close()


def _no_emitted(items, seq0):
    raise AssertionError("no event is emitted in Python here")
