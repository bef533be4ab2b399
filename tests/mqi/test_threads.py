"""Connections on many threads at once: no message lost or duplicated, counts stay exact.

IBM's model (connection.py, mq-semantics.md §1/§6): an hconn is used by one thread at a
time, different connections run in parallel; an MQGET with MQGMO_WAIT returns as soon as a
suitable message is available; a message got under syncpoint is hidden from others until
MQCMIT (gone) or MQBACK (restored); IPPROCS/OPPROCS count the open handles exactly.
Every test here is bounded: threads are joined with a deadline and the whole test must
finish within TIME_LIMIT seconds.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from mq_helpers import depth

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

TIME_LIMIT = 10.0  # seconds, for each test


class Workers:
    """Threads that record their exceptions, joined against one deadline."""

    def __init__(self) -> None:
        self.threads: list[threading.Thread] = []
        self.errors: list[BaseException] = []
        self.start_time = time.monotonic()

    def spawn(self, fn, *args) -> None:
        """Start ``fn(*args)`` on a daemon thread."""

        def run() -> None:
            try:
                fn(*args)
            except BaseException as exc:  # reported by join()
                self.errors.append(exc)

        t = threading.Thread(target=run, daemon=True)
        self.threads.append(t)
        t.start()

    def join(self, limit: float = TIME_LIMIT) -> float:
        """Wait for every thread until ``limit`` seconds after creation; fail on errors."""
        deadline = self.start_time + limit
        for t in self.threads:
            t.join(max(0.0, deadline - time.monotonic()))
        alive = [t for t in self.threads if t.is_alive()]
        assert not alive, f"{len(alive)} thread(s) still running after {limit} s"
        if self.errors:
            raise self.errors[0]
        return time.monotonic() - self.start_time



def test_four_putters_two_waiting_getters_lose_and_duplicate_nothing(qmgr, qm, local_queue):
    """4 putter threads x 5 000 messages and 2 WAIT getters: each message is got exactly once."""
    putters, per_putter, total = 4, 5000, 4 * 5000
    got: list[list[bytes]] = [[], []]
    putters_done = threading.Event()
    workers = Workers()

    def putter(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_OUTPUT)
        for i in range(per_putter):
            q.put(b"%d:%d" % (n, i))
        q.close()
        conn.disconnect()

    def getter(slot: int) -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=200)
        mine = got[slot]
        while True:
            try:
                mine.append(q.get(None, None, gmo))
            except pymqi.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                if putters_done.is_set():
                    break  # nothing came within the wait after every put was made
        q.close()
        conn.disconnect()

    for slot in range(2):
        workers.spawn(getter, slot)
    put_threads = Workers()
    for n in range(putters):
        put_threads.spawn(putter, n)
    put_threads.join()
    putters_done.set()
    elapsed = workers.join()

    everything = got[0] + got[1]
    counts = Counter(everything)
    duplicated = [m for m, c in counts.items() if c > 1]
    expected = {b"%d:%d" % (n, i) for n in range(putters) for i in range(per_putter)}
    assert not duplicated, f"{len(duplicated)} messages got twice, e.g. {duplicated[:3]}"
    assert len(everything) == total
    assert set(everything) == expected
    assert depth(qm, local_queue) == 0
    assert elapsed < TIME_LIMIT


def test_each_putter_order_is_kept_per_getter_stream(qmgr, qm, local_queue):
    """With one getter, each putter's messages arrive in the order that putter put them."""
    per_putter = 2000
    got: list[bytes] = []
    done = threading.Event()
    workers = Workers()

    def putter(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_OUTPUT)
        for i in range(per_putter):
            q.put(b"%d:%06d" % (n, i))
        conn.disconnect()

    def getter() -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=200)
        while True:
            try:
                got.append(q.get(None, None, gmo))
            except pymqi.MQMIError as e:
                if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                    raise
                if done.is_set():
                    break
        conn.disconnect()

    workers.spawn(getter)
    puts = Workers()
    for n in range(3):
        puts.spawn(putter, n)
    puts.join()
    done.set()
    workers.join()
    assert len(got) == 3 * per_putter
    for n in range(3):
        stream = [m for m in got if m.startswith(b"%d:" % n)]
        assert stream == sorted(stream)


def test_waiting_getters_all_wake_for_messages_put_later(qmgr, qm, local_queue):
    """Getters already waiting (WAIT, unlimited-ish) each receive one of messages put later."""
    got: list[bytes] = []
    lock = threading.Lock()
    ready = threading.Barrier(5)
    workers = Workers()

    def getter() -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
        ready.wait(5)
        data = q.get(None, None, gmo)
        with lock:
            got.append(data)
        conn.disconnect()

    for _ in range(4):
        workers.spawn(getter)
    ready.wait(5)
    time.sleep(0.1)  # the getters are (very likely) waiting now
    for i in range(4):
        qm.put1(local_queue, b"late-%d" % i)
    workers.join()
    assert sorted(got) == [b"late-%d" % i for i in range(4)]


def _take_up_to(q: pymqi.Queue, gmo: pymqi.GMO, n: int) -> list[bytes]:
    """Get up to ``n`` messages with ``gmo``, stopping at the first 2033."""
    taken: list[bytes] = []
    for _ in range(n):
        try:
            taken.append(q.get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as e:
            if e.reason != CMQC.MQRC_NO_MSG_AVAILABLE:
                raise
            break
    return taken


def test_syncpoint_puts_and_commits_across_threads_keep_counts_exact(qmgr, qm, local_queue):
    """Threads putting under syncpoint, committing or backing out batches, leave exactly the
    committed messages; getters under syncpoint committing or backing out lose none."""
    threads, batches, batch = 4, 60, 10
    committed_puts: set[bytes] = set()
    committed_gets: list[bytes] = []
    lock = threading.Lock()
    putters_done = threading.Event()
    workers = Workers()

    def putter(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_OUTPUT)
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for b in range(batches):
            sent = [b"%d:%d:%d" % (n, b, i) for i in range(batch)]
            for data in sent:
                q.put(data, pymqi.MD(), pmo)
            if b % 3 == 2:
                conn.backout()
            else:
                conn.commit()
                with lock:
                    committed_puts.update(sent)
        conn.disconnect()

    def getter(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_SYNCPOINT, WaitInterval=100)
        rounds = 0
        while True:
            taken = _take_up_to(q, gmo, 7)
            rounds += 1
            if rounds % 4 == 0 and taken:
                conn.backout()  # restored to the queue for someone to get again
            else:
                conn.commit()
                with lock:
                    committed_gets.extend(taken)
            if not taken and putters_done.is_set():
                break
        conn.disconnect()

    for n in range(2):
        workers.spawn(getter, n)
    puts = Workers()
    for n in range(threads):
        puts.spawn(putter, n)
    puts.join()
    putters_done.set()
    workers.join()

    expected = threads * sum(batch for b in range(batches) if b % 3 != 2)
    assert len(committed_puts) == expected
    assert len(committed_gets) == len(set(committed_gets)), "a message was got (committed) twice"
    leftover: list[bytes] = []
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INPUT_SHARED)
    while True:
        try:
            leftover.append(q.get())
        except pymqi.MQMIError as e:
            assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
            break
    q.close()
    assert sorted(committed_gets + leftover) == sorted(committed_puts)


def test_concurrent_opens_and_closes_keep_open_counts_exact(qmgr, qm, local_queue):
    """Many connections opening and closing one queue concurrently leave IPPROCS/OPPROCS at 0."""
    workers = Workers()
    seen: list[tuple[int, int]] = []
    lock = threading.Lock()

    def churn(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        for i in range(300):
            options = [CMQC.MQOO_INPUT_SHARED, CMQC.MQOO_OUTPUT,
                       CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE][i % 3]
            q = pymqi.Queue(conn, local_queue, options)
            if options & CMQC.MQOO_INQUIRE:
                counts = (q.inquire(CMQC.MQIA_OPEN_INPUT_COUNT),
                          q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT))
                with lock:
                    seen.append(counts)
            q.close()
        conn.disconnect()

    for n in range(8):
        workers.spawn(churn, n)
    workers.join()
    assert seen and all(1 <= ip <= 8 and 1 <= op <= 8 for ip, op in seen)
    probe = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert probe.inquire(CMQC.MQIA_OPEN_INPUT_COUNT) == 0
    assert probe.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0
    probe.close()
    pymqi.Queue(qm, local_queue, CMQC.MQOO_INPUT_EXCLUSIVE).close()  # nothing left holding it


def test_exclusive_open_races_admit_one_holder_at_a_time(qmgr, qm, local_queue):
    """Threads racing for INPUT_EXCLUSIVE: never two holders at once; the rest get 2042."""
    workers = Workers()
    holders = 0
    max_holders = 0
    refused = Counter()
    lock = threading.Lock()

    def contend(n: int) -> None:
        nonlocal holders, max_holders
        conn = pymqi.connect(qmgr.name)
        for _ in range(200):
            try:
                q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_EXCLUSIVE)
            except pymqi.MQMIError as e:
                assert e.reason == CMQC.MQRC_OBJECT_IN_USE
                refused[n] += 1
                continue
            with lock:
                holders += 1
                max_holders = max(max_holders, holders)
            time.sleep(0)  # let the others try while this one holds the queue
            with lock:
                holders -= 1
            q.close()
        conn.disconnect()

    for n in range(6):
        workers.spawn(contend, n)
    workers.join()
    assert max_holders == 1
    probe = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert probe.inquire(CMQC.MQIA_OPEN_INPUT_COUNT) == 0
    probe.close()


def test_threads_disconnecting_with_open_handles_release_counts(qmgr, qm, local_queue):
    """Threads that disconnect without closing their handles leave IPPROCS/OPPROCS at 0."""
    workers = Workers()

    def leave_open(n: int) -> None:
        for _ in range(50):
            conn = pymqi.connect(qmgr.name)
            kept = [pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED),
                    pymqi.Queue(conn, local_queue, CMQC.MQOO_OUTPUT)]
            kept[1].put(b"m")
            conn.disconnect()
            assert all(q.get_handle().closed for q in kept)

    for n in range(6):
        workers.spawn(leave_open, n)
    workers.join()
    probe = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert probe.inquire(CMQC.MQIA_OPEN_INPUT_COUNT) == 0
    assert probe.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0
    assert probe.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 6 * 50
    probe.close()


@pytest.mark.parametrize("n_threads", [8])
def test_put1_from_many_threads_counts_exact(qmgr, qm, local_queue, n_threads):
    """MQPUT1 from many threads on their own connections puts exactly one message per call."""
    workers = Workers()

    def put_many(n: int) -> None:
        conn = pymqi.connect(qmgr.name)
        for i in range(500):
            conn.put1(local_queue, b"%d-%d" % (n, i))
        conn.disconnect()

    for n in range(n_threads):
        workers.spawn(put_many, n)
    workers.join()
    assert depth(qm, local_queue) == n_threads * 500
    probe = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert probe.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0
    probe.close()


def test_waiting_getter_ends_get_inhibited_when_queue_is_inhibited(qmgr, qm, local_queue):
    """A get waiting on a queue ends at once with 2016 when the queue becomes GET DISABLED."""
    workers = Workers()
    outcome: list[tuple[int, float]] = []
    started = threading.Event()

    def wait_for_message() -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=8000)
        started.set()
        t0 = time.monotonic()
        try:
            q.get(None, pymqi.MD(), gmo)
        except pymqi.MQMIError as e:
            outcome.append((e.reason, time.monotonic() - t0))
        conn.disconnect()

    workers.spawn(wait_for_message)
    started.wait(5)
    time.sleep(0.2)
    qmgr.catalog.alter("QL", local_queue, get="DISABLED")
    workers.join()
    assert outcome and outcome[0][0] == CMQC.MQRC_GET_INHIBITED
    assert outcome[0][1] < 4.0


def test_waiting_getter_ends_when_queue_manager_stops(qmgr, local_queue):
    """A get waiting when the queue manager stops ends with an error (2162), not a hang."""
    workers = Workers()
    outcome: list[int] = []
    started = threading.Event()

    def wait_for_message() -> None:
        conn = pymqi.connect(qmgr.name)
        q = pymqi.Queue(conn, local_queue, CMQC.MQOO_INPUT_SHARED)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=CMQC.MQWI_UNLIMITED)
        started.set()
        try:
            q.get(None, pymqi.MD(), gmo)
        except pymqi.MQMIError as e:
            outcome.append(e.reason)

    workers.spawn(wait_for_message)
    started.wait(5)
    time.sleep(0.2)
    qmgr.stop()
    workers.join()
    assert outcome == [CMQC.MQRC_Q_MGR_STOPPING]
