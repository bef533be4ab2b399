"""MQGMO_WAIT: waiting gets, their wake-ups and time-outs.

Sources: mq-semantics.md §1 (MQGMO_WAIT semantics: no delay when a message is there, 2016
when the queue becomes get-inhibited, WaitInterval in milliseconds, MQWI_UNLIMITED), §2
(2033, 2090), §6 (a syncpoint put becomes available at commit).
"""

import threading
import time

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

OUT = CMQC.MQOO_OUTPUT
IN = CMQC.MQOO_INPUT_AS_Q_DEF


# -- helpers ---------------------------------------------------------------------------


def _wait_gmo(interval_ms, options=0):
    return pymqi.GMO(Options=CMQC.MQGMO_WAIT | options, WaitInterval=interval_ms)


def _check(info, reason, comp=CMQC.MQCC_FAILED):
    """The MQMIError caught by pytest.raises has this completion and reason code."""
    assert (info.value.comp, info.value.reason) == (comp, reason), str(info.value)


class _Getter(threading.Thread):
    """A thread that makes one waiting get on its own connection and records the outcome."""

    def __init__(self, qmgr_name, queue, gmo, md=None):
        super().__init__(daemon=True)
        self.qmgr_name, self.queue, self.gmo = qmgr_name, queue, gmo
        self.md = md if md is not None else pymqi.MD()
        self.result = self.error = None
        self.elapsed = None
        self.started = threading.Event()
        self.conn = pymqi.connect(qmgr_name)
        self.q = pymqi.Queue(self.conn, queue, IN)

    def run(self):
        self.started.set()
        start = time.monotonic()
        try:
            self.result = self.q.get(None, self.md, self.gmo)
        except pymqi.MQMIError as exc:
            self.error = exc
        finally:
            self.elapsed = time.monotonic() - start

    def finish(self, timeout=2.0):
        """Join within ``timeout`` seconds; the get must have ended."""
        self.join(timeout)
        assert not self.is_alive(), "the waiting get did not end"
        self.conn.disconnect()


def _put_later(qm, queue, data, delay, options=0):
    """Put ``data`` on ``queue`` from another thread after ``delay`` seconds (its own
    connection); returns the thread."""
    conn = pymqi.connect(qm)
    q = pymqi.Queue(conn, queue, OUT)

    def run():
        time.sleep(delay)
        q.put(data, pymqi.MD(), pymqi.PMO(Options=options))

    t = threading.Thread(target=run, daemon=True)
    t.conn = conn
    t.start()
    return t


# -- tests -------------------------------------------------------------------------------


def test_wait_returns_at_once_when_a_message_is_there(qm, local_queue):
    """A waiting get returns without delay when a suitable message is already on the queue."""
    q = pymqi.Queue(qm, local_queue, OUT | IN)
    q.put(b"ready", pymqi.MD())
    start = time.monotonic()
    assert q.get(None, pymqi.MD(), _wait_gmo(5000)) == b"ready"
    assert time.monotonic() - start < 0.2


def test_wait_returns_as_soon_as_another_thread_puts(qmgr, qm, local_queue):
    """A get waiting up to 3 s returns as soon as another thread puts a message, well before the
    interval ends."""
    q = pymqi.Queue(qm, local_queue, IN)
    putter = _put_later(qmgr.name, local_queue, b"arrived", 0.1)
    start = time.monotonic()
    assert q.get(None, pymqi.MD(), _wait_gmo(3000)) == b"arrived"
    elapsed = time.monotonic() - start
    putter.join(2)
    putter.conn.disconnect()
    assert 0.05 <= elapsed < 0.8


def test_wait_without_md_returns_when_put(qmgr, qm, local_queue):
    """A waiting get without an MD (the fast path) also wakes on a put from another thread."""
    q = pymqi.Queue(qm, local_queue, IN)
    putter = _put_later(qmgr.name, local_queue, b"arrived", 0.1)
    start = time.monotonic()
    assert q.get(None, None, _wait_gmo(3000)) == b"arrived"
    putter.join(2)
    putter.conn.disconnect()
    assert time.monotonic() - start < 0.8


def test_wait_times_out_with_2033_after_the_interval(qm, local_queue):
    """With nothing put, a waiting get fails MQRC_NO_MSG_AVAILABLE after about WaitInterval."""
    q = pymqi.Queue(qm, local_queue, IN)
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), _wait_gmo(300))
    elapsed = time.monotonic() - start
    _check(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert 0.28 <= elapsed < 0.8


def test_wait_zero_interval_does_not_wait(qm, local_queue):
    """MQGMO_WAIT with WaitInterval 0 fails 2033 at once."""
    q = pymqi.Queue(qm, local_queue, IN)
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), _wait_gmo(0))
    _check(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert time.monotonic() - start < 0.2


def test_wait_wakes_on_commit_not_on_syncpoint_put(qmgr, qm, local_queue):
    """A waiting get is not satisfied by an uncommitted put; it returns only once the putter
    commits."""
    getter = _Getter(qmgr.name, local_queue, _wait_gmo(1500))
    conn = pymqi.connect(qmgr.name)
    q = pymqi.Queue(conn, local_queue, OUT)
    getter.start()
    getter.started.wait(1)
    time.sleep(0.05)
    q.put(b"pending", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    time.sleep(0.3)
    assert getter.is_alive() and getter.result is None  # not woken by the put
    committed_at = time.monotonic()
    conn.commit()
    getter.finish()
    conn.disconnect()
    assert getter.error is None and getter.result == b"pending"
    assert time.monotonic() - committed_at < 0.8
    assert getter.elapsed >= 0.3


def test_wait_unlimited_waits_until_a_put(qmgr, qm, local_queue):
    """MQWI_UNLIMITED waits past any short interval and returns when a message is put."""
    getter = _Getter(qmgr.name, local_queue, _wait_gmo(CMQC.MQWI_UNLIMITED))
    getter.start()
    getter.started.wait(1)
    time.sleep(0.4)
    assert getter.is_alive()
    q = pymqi.Queue(qm, local_queue, OUT)
    q.put(b"finally", pymqi.MD())
    getter.finish()
    assert getter.error is None and getter.result == b"finally"
    assert getter.elapsed >= 0.4


def test_waiting_get_ends_2016_when_queue_becomes_get_inhibited(qmgr, qm, local_queue):
    """A waiting get ends with MQRC_GET_INHIBITED as soon as the queue is altered to GET
    DISABLED."""
    getter = _Getter(qmgr.name, local_queue, _wait_gmo(CMQC.MQWI_UNLIMITED))
    getter.start()
    getter.started.wait(1)
    time.sleep(0.1)
    altered_at = time.monotonic()
    qmgr.catalog.alter("QL", local_queue, get="DISABLED")
    getter.finish()
    assert getter.result is None and getter.error is not None
    assert (getter.error.comp, getter.error.reason) == (CMQC.MQCC_FAILED,
                                                        CMQC.MQRC_GET_INHIBITED)
    assert time.monotonic() - altered_at < 0.8


@pytest.mark.parametrize("altered", [("QL", "T.Q"), ("QA", "A.Q")], ids=["target", "alias"])
def test_waiting_get_via_alias_ends_2016_when_get_inhibited(qmgr, qm, altered):
    """A get waiting through an alias ends with 2016 when the target queue, or the alias
    itself, is altered to GET DISABLED."""
    qmgr.catalog.define("QL", "T.Q")
    qmgr.catalog.define("QA", "A.Q", targq="T.Q")
    getter = _Getter(qmgr.name, "A.Q", _wait_gmo(1500))
    getter.start()
    getter.started.wait(1)
    time.sleep(0.1)
    qmgr.catalog.alter(*altered, get="DISABLED")
    getter.finish()
    assert getter.error is not None and getter.error.reason == CMQC.MQRC_GET_INHIBITED
    assert getter.elapsed < 1.0


def test_waiting_matched_get_ignores_other_messages(qmgr, qm, local_queue):
    """A get waiting for a CorrelId is not satisfied by a message with another CorrelId, and
    returns when a matching one arrives."""
    wanted = b"WANTED".ljust(24, b"\0")
    getter = _Getter(qmgr.name, local_queue, _wait_gmo(1500), md=pymqi.MD(CorrelId=wanted))
    getter.start()
    getter.started.wait(1)
    q = pymqi.Queue(qm, local_queue, OUT)
    time.sleep(0.05)
    q.put(b"other", pymqi.MD(CorrelId=b"OTHER".ljust(24, b"\0")))
    time.sleep(0.2)
    assert getter.is_alive()
    q.put(b"match", pymqi.MD(CorrelId=wanted))
    getter.finish()
    assert getter.result == b"match"
    assert getter.elapsed < 1.0


@pytest.mark.parametrize("interval", [-5, -2, -1000])
def test_negative_wait_interval_fails_2090(qm, local_queue, interval):
    """A WaitInterval below zero other than MQWI_UNLIMITED fails MQRC_WAIT_INTERVAL_ERROR."""
    q = pymqi.Queue(qm, local_queue, IN)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), _wait_gmo(interval))
    _check(info, CMQC.MQRC_WAIT_INTERVAL_ERROR)


def test_wait_interval_ignored_without_wait(qm, local_queue):
    """Without MQGMO_WAIT the WaitInterval is not used: no error for -5 and no waiting."""
    q = pymqi.Queue(qm, local_queue, IN)
    start = time.monotonic()
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(WaitInterval=-5))
    _check(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert time.monotonic() - start < 0.2
