"""The journal's writer wakes when a batch's worth of events is recorded, not only at its
interval (EventLog.wake_on, Journal._wait)."""

from __future__ import annotations

import os
import time

import pytest

import tpfemu.mqi as pymqi
from tpfemu import journal
from tpfemu._lowlevel import EventLog
from tpfemu.journal.writer import Journal
from tpfemu.mqi import CMQC
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


def test_mqi_puts_and_gets_recorded_in_c_wake_the_writer(start_system, tmp_path):
    """The fast paths' records wake the writer as emitted events do: 50 put+get pairs
    through the MQI, batches of 16, a 10-minute interval: at least the first 96 events
    (six whole batches) are written without a flush."""
    system = start_system(journal="events", queues=("WAKE.Q",))
    system.journal.stop()
    jr = Journal(system.qmgr, tmp_path / "j", interval=600, batch_events=16,
                 cpu=system.cpu).start()
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "WAKE.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    try:
        for i in range(50):
            q.put(b"wake %d" % i)
            q.get()
        assert _wait_for_rows(tmp_path / "j", 96) >= 96
    finally:
        q.close()
        qm.disconnect()
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
