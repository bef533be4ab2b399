"""Processor-shared queues on the TPFCS-like store (tpfemu.store.shared).

The first half is a contract: every scenario runs on the memory queue of the C core
(:class:`CoreQueue`) and on :class:`SharedQueue`, and must give the same results. The
second half is about the complex: several OS processes on one home, crashes, restarts and
a full store.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tpfemu import errors
from tpfemu._lowlevel import MQGMO, NEVER, CoreQueue
from tpfemu.mq import cmqc
from tpfemu.store.shared import SharedQueueStore

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("shared_worker.py")
PREFIX = b"AMQ TPF1".ljust(16)
KiB, MiB = 1024, 1024 * 1024


def mid(i: int) -> bytes:
    return b"MSG" + i.to_bytes(21, "big")


def cid(i: int) -> bytes:
    return b"COR" + i.to_bytes(21, "big")


def drain(q) -> list[bytes]:
    out = []
    while True:
        try:
            out.append(q.get())
        except errors.NoMessageAvailable:
            return out


@pytest.fixture(params=["core", "shared"])
def make(request, tmp_path):
    """A factory of empty queues of the kind under test, closed after the test."""
    made = []
    space = None
    if request.param == "core":
        def factory(**settings):
            q = CoreQueue("T.Q", msgid_prefix=PREFIX, **settings)
            made.append(q)
            return q
    else:
        space = SharedQueueStore.open(tmp_path / "home", "B", durable=False)
        names = itertools.count(1)

        def factory(**settings):
            q = space.queue(f"T.Q{next(names)}", msgid_prefix=PREFIX, **settings)
            made.append(q)
            return q
    factory.kind = request.param
    yield factory
    for q in made:
        q.close()
    if space is not None:
        space.close()


# --- the contract: the same behaviour on CoreQueue and SharedQueue ----------------------------


def test_priority_order_then_fifo(make):
    q = make()
    for i, p in enumerate([0, 5, 9, 5, 0, 9]):
        q.put(f"{p}-{i}".encode(), p)
    assert drain(q) == [b"9-2", b"9-5", b"5-1", b"5-3", b"0-0", b"0-4"]
    with pytest.raises(errors.NoMessageAvailable) as exc:
        q.get()
    assert exc.value.reason == cmqc.MQRC_NO_MSG_AVAILABLE


def test_fifo_delivery_keeps_priority_in_descriptor_and_no_reorder_on_configure(make):
    q = make(fifo=True, default_priority=4)
    q.put_message(b"a", priority=1)
    q.put_message(b"b", priority=9)
    q.configure(fifo=False, msgid_prefix=PREFIX)
    q.put_message(b"c", priority=5)  # placed at 5: ahead of the two placed at 4
    q.put_message(b"d", priority=2)
    got = [q.get_message() for _ in range(4)]
    assert [m.data for m in got] == [b"c", b"a", b"b", b"d"]
    assert [m.descriptor.priority for m in got] == [5, 1, 9, 2]


def test_put_message_descriptor_and_generated_ids(make):
    q = make()
    m1, s1 = q.put_message(b"x" * 10, priority=3, persistent=True, correl_id=cid(1),
                           ctx_len=4, put_time=1234)
    m2, s2 = q.put_message(b"y", msg_id=mid(2))
    assert m1[:16] == PREFIX and m1 != bytes(24) and m2 == mid(2)
    assert s2 == s1 + 1
    d = q.get_message().descriptor
    assert (d.msg_id, d.correl_id, d.priority, d.persistent, d.expiry, d.put_time,
            d.ctx_len, d.seq, d.uow, d.backout_count, d.length) == \
        (m1, cid(1), 3, True, NEVER, 1234, 4, s1, 0, 0, 10)
    now = time.time_ns() // 1000
    assert abs(q.get_message().descriptor.put_time - now) < 5_000_000  # 0 = now
    ids = {q.put_message(b"z")[0] for _ in range(50)}
    assert len(ids) == 50


def test_get_body_leaves_out_the_context_record(make):
    q = make()
    q.put_message(b"CTXhello", ctx_len=3)
    q.put_message(b"CTXworld", ctx_len=3)
    assert q.get_body() == b"hello"
    assert q.get() == b"CTXworld"


def test_matching_on_msgid_and_correlid(make):
    q = make()
    for i in range(1, 5):
        q.put_message(f"m{i}".encode(), msg_id=mid(i), correl_id=cid(i % 2))
    assert q.get_message(msg_id=mid(3)).data == b"m3"
    assert q.get_message(correl_id=cid(1)).data == b"m1"
    assert q.get_message(msg_id=mid(4), correl_id=cid(0)).data == b"m4"
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(2), correl_id=cid(1))
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(9))
    assert q.get_message(msg_id=bytes(24)).data == b"m2"  # MQMI_NONE matches any
    assert q.depth == 0
    with pytest.raises(ValueError):
        q.get_message(msg_id=b"short")


def test_matching_through_units_of_work_cursors_and_purge(make):
    q = make()
    for i in range(30):
        q.put_message(f"m{i}".encode(), msg_id=mid(i), correl_id=cid(i % 3))
    assert q.get_message(correl_id=cid(1), uow=1).data == b"m1"
    assert q.get_message(correl_id=cid(1)).data == b"m4"  # m1 is hidden
    assert q.backout(1) == 1
    again = q.get_message(correl_id=cid(1))
    assert again.data == b"m1" and again.descriptor.backout_count == 1
    c = q.cursor()
    assert c.first(correl_id=cid(2)).data == b"m2"
    assert c.next(correl_id=cid(2)).data == b"m5"
    assert c.take().data == b"m5"
    assert c.next(correl_id=cid(2)).data == b"m8"
    with pytest.raises(errors.NoMessageAvailable):
        c.next(msg_id=mid(3))  # m3 is behind the cursor
    assert q.get_message(msg_id=mid(8), correl_id=cid(2)).data == b"m8"
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(8))
    q.put_message(b"late", msg_id=mid(8), correl_id=cid(7), uow=2)
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(msg_id=mid(8))
    assert q.purge() == 26
    with pytest.raises(errors.NoMessageAvailable):
        q.get_message(correl_id=cid(0))
    q.commit(2)
    q.put_message(b"new", msg_id=mid(0), correl_id=cid(0))
    assert q.get_message(correl_id=cid(7)).data == b"late"
    assert q.get_message(msg_id=mid(0), correl_id=cid(0)).data == b"new"
    assert q.depth == 0
    c.close()


def test_put_in_a_unit_of_work_is_invisible_until_commit(make):
    q = make()
    q.put(b"a", 0, 7)
    q.put_message(b"b", priority=5, uow=7)
    q.put(b"c", 1)
    assert q.depth == 3  # CURDEPTH counts uncommitted puts
    assert q.depth_at_least(0) == 3
    assert q.depth_at_least(0, committed_only=True) == 1
    assert q.depth_at_least(2, committed_only=True) == 0
    assert q.get_message(uow=7).data == b"c"  # not even the same unit of work sees them
    with pytest.raises(errors.NoMessageAvailable):
        q.get()
    assert q.commit(7) == 3  # two puts and the get
    assert drain(q) == [b"b", b"a"]
    assert q.commit(7) == 0


def test_backout_of_a_put_removes_it(make):
    q = make()
    q.put(b"keep", 0)
    q.put(b"drop", 9, 3)
    assert q.backout(3) == 1
    assert q.depth == 1 and drain(q) == [b"keep"]
    with pytest.raises(ValueError):
        q.commit(0)


def test_get_in_a_unit_of_work_hides_then_commit_or_backout(make):
    q = make()
    for x in (b"a", b"b", b"c"):
        q.put(x, 0)
    assert q.get_message(uow=5).data == b"a"
    assert q.depth == 3 and q.depth_at_least(0, without_gets=True) == 2
    assert q.get() == b"b"  # a is hidden
    assert q.backout(5) == 1
    back = q.get_message(uow=6)
    assert back.data == b"a" and back.descriptor.backout_count == 1  # in its old place
    assert q.commit(6) == 1
    assert q.depth == 1 and drain(q) == [b"c"]
    assert q.stats()["gets"] >= 4


def test_two_units_of_work_are_independent(make):
    q = make()
    q.put(b"a", 0)
    q.put(b"b", 0)
    assert q.get_message(uow=1).data == b"a"
    assert q.get_message(uow=2).data == b"b"
    q.put(b"c", 0, 2)
    assert q.backout(1) == 1
    assert q.commit(2) == 2
    assert drain(q) == [b"a", b"c"]


def test_browse_cursor(make):
    q = make()
    for i in range(3):
        q.put(f"m{i}".encode(), 0)
    c = q.cursor()
    assert [m.data for m in c] == [b"m0", b"m1", b"m2"]
    assert q.depth == 3
    with pytest.raises(errors.NoMessageAvailable):
        c.next()  # stays after the last ...
    q.put(b"m3", 0)
    q.put(b"hi", 9)  # ... so a later put is found; one of higher priority behind it is not
    assert c.next().data == b"m3"
    assert c.current().data == b"m3"
    assert c.first().data == b"hi"
    assert c.next().data == b"m0"
    assert q.get() == b"hi"
    assert q.get() == b"m0"  # the message under the cursor is got by someone else
    with pytest.raises(errors.NoMessageUnderCursor):
        c.current()
    assert c.next().data == b"m1"  # BROWSE_NEXT continues after its place
    assert c.take().data == b"m1"  # MSG_UNDER_CURSOR
    with pytest.raises(errors.NoMessageUnderCursor):
        c.take()
    assert c.next(msg_id=None).data == b"m2"
    c.close()
    assert drain(q) == [b"m2", b"m3"]


def test_browse_with_matching_and_under_cursor_in_a_unit_of_work(make):
    q = make()
    for i in range(4):
        q.put_message(f"m{i}".encode(), correl_id=cid(i % 2))
    c = q.cursor()
    assert c.first(correl_id=cid(1)).data == b"m1"
    assert c.next(correl_id=cid(1)).data == b"m3"
    with pytest.raises(errors.NoMessageAvailable):
        c.next(correl_id=cid(1))
    got = q.get_message(cursor=c, options=MQGMO["MQGMO_MSG_UNDER_CURSOR"], uow=4)
    assert got.data == b"m3"
    assert q.backout(4) == 1
    assert c.current().descriptor.backout_count == 1
    c.close()


def test_browse_locks(make):
    q = make()
    for i in range(4):
        q.put(f"m{i}".encode(), 0)
    c1, c2 = q.cursor(), q.cursor()
    assert c1.first(lock=True).data == b"m0"
    assert q.get() == b"m1"  # the locked message is hidden from other gets ...
    assert c2.first().data == b"m2"  # ... and from other cursors
    assert c1.current().data == b"m0"  # not from its own cursor
    c1.unlock()
    with pytest.raises(errors.NoMessageLocked):
        c1.unlock()
    assert c2.first().data == b"m0"
    assert c1.first(lock=True).data == b"m0"
    assert c1.next(lock=True).data == b"m2"  # a new lock releases the old one
    assert c2.first().data == b"m0"
    # a get through the handle whose cursor holds the lock may take the locked message
    assert q.get_message(cursor=c1, msg_id=None).data == b"m0"
    assert q.get_message(cursor=c1).data == b"m2"
    with pytest.raises(errors.NoMessageLocked):
        c1.unlock()  # got: no longer locked
    assert c2.first(lock=True).data == b"m3"
    c2.close()  # closing a cursor releases its lock
    assert q.get() == b"m3"
    c1.close()


def test_cursor_option_errors(make):
    q = make()
    q.put(b"x", 0)
    for opts in (MQGMO["MQGMO_BROWSE_FIRST"], MQGMO["MQGMO_LOCK"],
                 MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_BROWSE_NEXT"]):
        with pytest.raises(errors.OptionsError):
            q.get_message(options=opts, cursor=None if opts != MQGMO["MQGMO_LOCK"]
                          else q.cursor())
    c = q.cursor()
    with pytest.raises(errors.OptionsError):
        q.get_message(cursor=c, options=MQGMO["MQGMO_BROWSE_FIRST"] | MQGMO["MQGMO_UNLOCK"])
    assert q.depth == 1


def test_truncation(make):
    q = make()
    q.put_message(b"0123456789")
    with pytest.raises(errors.TruncatedMessage) as exc:
        q.get_message(max_length=4)
    assert exc.value.reason == cmqc.MQRC_TRUNCATED_MSG_FAILED
    assert exc.value.original_length == 10 and exc.value.descriptor.length == 10
    assert q.depth == 1  # the message stays
    msg = q.get_message(max_length=4, accept_truncated=True)
    assert msg.data == b"0123" and msg.reason == cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
    assert msg.descriptor.length == 10 and q.depth == 0
    q.put_message(b"CTXbody!", ctx_len=3)
    with pytest.raises(errors.TruncatedMessage) as exc:
        q.get_message(max_length=2, cap_body=True)
    assert exc.value.original_length == 5 and exc.value.context_record == b"CTX"
    c = q.cursor()
    with pytest.raises(errors.TruncatedMessage):
        c.first(max_length=1)
    assert c.current().data == b"CTXbody!"  # a failed browse still moves the cursor
    msg = q.get_message(max_length=2, cap_body=True, accept_truncated=True)
    assert msg.data == b"CTXbo" and msg.reason == cmqc.MQRC_TRUNCATED_MSG_ACCEPTED
    q.put_message(b"fits")
    assert q.get_message(max_length=4).data == b"fits"
    c.close()


def test_expiry(make):
    q = make()
    now = time.time_ns() // 1000
    q.put_message(b"old-9", priority=9, expiry=now - 1)
    q.put_message(b"live-5", priority=5, expiry=now + 3600 * 10**6)
    q.put_message(b"old-0", priority=0, expiry=now - 1)
    assert q.depth == 3
    assert q.get_message(now=now).data == b"live-5"  # discards the expired one before it
    assert q.depth == 1  # old-0 is behind: not discarded yet
    expired = q.take_expired()
    assert expired.data == b"old-9" and expired.descriptor.priority == 9
    assert q.take_expired() is None
    assert q.discard_expired(now) == 1
    assert q.depth == 0 and q.take_expired().data == b"old-0"
    with pytest.raises(errors.ExpiryError):
        q.put_message(b"x", expiry=0)


def test_expiry_with_matching_cursors_and_units_of_work(make):
    q = make()
    now = time.time_ns() // 1000
    q.put_message(b"a", msg_id=mid(1), expiry=now + 10)
    q.put_message(b"b", msg_id=mid(1))
    q.put_message(b"c", msg_id=mid(2), expiry=now + 10)
    q.put_message(b"d", msg_id=mid(3), expiry=now + 10, uow=4)
    assert q.get_message(msg_id=mid(1), now=now + 20).data == b"b"
    assert q.depth == 2 and q.take_expired().data == b"a"
    c = q.cursor()
    assert c.first(now=now).data == b"c"
    with pytest.raises(errors.NoMessageUnderCursor):
        c.current(now=now + 20)  # expired under the cursor (seed 001, note 6)
    assert q.take_expired().data == b"c"
    assert q.discard_expired(now + 20) == 0  # held by a unit of work
    assert q.commit(4) == 1
    assert q.discard_expired(now + 20) == 1
    assert q.depth == 0
    c.close()


def test_purge_leaves_units_of_work(make):
    q = make()
    q.put(b"a", 0)
    q.put(b"b", 0)
    q.put(b"c", 0, 1)
    assert q.get_message(uow=2).data == b"a"
    c = q.cursor()
    assert c.first(lock=True).data == b"b"
    assert q.purge() == 1  # b (locked, but committed); not a (got) nor c (uncommitted)
    assert q.depth == 2
    with pytest.raises(errors.NoMessageLocked):
        c.unlock()
    assert q.backout(2) == 1 and q.commit(1) == 1
    assert drain(q) == [b"a", b"c"]
    c.close()


def test_limits(make):
    q = make(max_depth=2, max_msg_length=5)
    with pytest.raises(errors.MessageTooBig) as exc:
        q.put(b"123456", 0)
    assert exc.value.reason == cmqc.MQRC_MSG_TOO_BIG_FOR_Q
    q.put(b"1", 0)
    q.put(b"2", 0, 9)
    with pytest.raises(errors.QueueFull) as exc:
        q.put_message(b"3")
    assert exc.value.reason == cmqc.MQRC_Q_FULL
    with pytest.raises(errors.PriorityError):
        q.put_message(b"x", priority=10)
    q.backout(9)
    q.configure(max_depth=0, max_msg_length=100, msgid_prefix=PREFIX)
    q.put(b"123456", 0)
    assert q.depth == 2
    with pytest.raises(TypeError):
        q.put_message("text")


def test_depth_at_least_by_priority(make):
    q = make()
    for p in (0, 3, 3, 7, 9):
        q.put(b"x", p)
    q.put(b"y", 8, 1)
    assert [q.depth_at_least(p) for p in (0, 3, 4, 8, 9, 12, -1)] == [6, 5, 3, 2, 1, 1, 6]
    assert q.depth_at_least(8, committed_only=True) == 1
    q.get_message(uow=2)  # takes the 9
    assert q.depth_at_least(9, without_gets=True) == 0
    assert q.depth_at_least(9) == 1
    stats = q.stats()
    assert stats["depth"] == 6 and stats["uncommitted_puts"] == 1
    assert stats["uncommitted_gets"] == 1 and stats["depth_by_priority"][3] == 2


def test_closed_queue_refuses_calls(make):
    q = make()
    q.put(b"x", 0)
    q.close()
    with pytest.raises(errors.TpfEmuError):
        q.put_message(b"y")
    q.close()  # idempotent


# --- processor-shared only --------------------------------------------------------------------


def open_space(home: Path, cpu: str = "B", **kw) -> SharedQueueStore:
    return SharedQueueStore.open(home, cpu, durable=False, **kw)


def start(mode: str, home: Path, cpu: str, *args: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), mode, str(home), cpu, *args], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    return proc


def read_line(proc: subprocess.Popen, timeout: float = 30) -> str:
    """The worker's next output line (fails the test if it dies first)."""
    deadline = time.monotonic() + timeout
    line = proc.stdout.readline()
    if not line:
        proc.wait(max(0.0, deadline - time.monotonic()))
        raise AssertionError(f"worker ended: {proc.stderr.read()}")
    return line.strip()


def test_units_of_work_of_two_processors_do_not_collide(tmp_path):
    """Processors B and C each use unit of work 7: committing B's leaves C's alone."""
    home = tmp_path / "home"
    with open_space(home, "B") as b, open_space(home, "C") as c:
        qb, qc = b.queue("SHARED.Q"), c.queue("SHARED.Q")
        qb.put(b"from B", 0, 7)
        qc.put(b"from C", 0, 7)
        qb.put(b"plain", 0)
        assert qc.get_message(uow=7).data == b"plain"
        assert qb.depth == 3 and qc.depth_at_least(0, committed_only=True) == 1
        assert qb.commit(7) == 1  # B's put only
        assert qc.get() == b"from B"
        assert qc.backout(7) == 2  # C's put is gone, C's get restored
        assert qb.get_message().descriptor.backout_count == 1
        assert qb.depth == 0
        assert b.incarnation >= 1 and c.incarnation >= 1


def test_threads_of_one_processor_share_a_queue(tmp_path):
    """Four threads get under units of work from one queue: each message once."""
    n = 200
    with open_space(tmp_path / "home") as space:
        q = space.queue("SHARED.Q")
        for i in range(n):
            q.put(f"m{i}".encode(), 0)
        got: list[list[str]] = [[] for _ in range(4)]

        def work(t: int) -> None:
            uows = itertools.count(t * 10_000 + 1)
            while True:
                uow = next(uows)
                try:
                    msg = q.get_message(uow=uow)
                except errors.NoMessageAvailable:
                    return
                q.commit(uow)
                got[t].append(msg.data.decode())

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        taken = [x for g in got for x in g]
        assert sorted(taken) == sorted(f"m{i}" for i in range(n))
        assert q.depth == 0


def test_version_moves_with_every_committed_change_only(tmp_path):
    with open_space(tmp_path / "home") as space:
        q = space.queue("SHARED.Q")
        v0 = q.version()
        q.put(b"a", 0, 1)
        v1 = q.version()
        assert v1 > v0
        with pytest.raises(errors.NoMessageAvailable):
            q.get()
        c = q.cursor()
        with pytest.raises(errors.NoMessageAvailable):
            c.first()
        assert q.version() == v1  # failed gets and browses change nothing
        q.commit(1)
        assert q.version() > v1
        assert q.wait_for_change(v1, 0) == q.version()
        start = time.monotonic()
        assert q.wait_for_change(q.version(), 0.05) == q.version()
        assert time.monotonic() - start >= 0.05
        c.close()


def test_one_cpu_id_once_per_process(tmp_path):
    home = tmp_path / "home"
    with open_space(home, "B"):
        with pytest.raises(errors.TpfEmuError, match="already active"):
            open_space(home, "B")
        with pytest.raises(ValueError):
            open_space(home, "b")
    with open_space(home, "B") as again:  # after close: a new incarnation
        assert again.incarnation == 2


def test_messages_survive_a_restart_persistent_or_not(tmp_path):
    home = tmp_path / "home"
    with open_space(home) as space:
        q = space.queue("SHARED.Q", max_depth=50)
        q.put_message(b"persistent", persistent=True, priority=4)
        q.put_message(b"non-persistent", persistent=False)
        first = space.incarnation
    with open_space(home) as space:
        assert space.incarnation == first + 1
        assert space.queues() == ["SHARED.Q"]
        q = space.queue("SHARED.Q")
        assert q.depth == 2
        assert [q.get_message().descriptor.persistent for _ in range(2)] == [True, False]
        q.put(b"x", 0)
        q.configure(max_depth=1)
        with pytest.raises(errors.QueueFull):  # the settings are the complex's
            space.queue("SHARED.Q").put(b"y", 0)
        space.delete_queue("SHARED.Q")
        assert not space.exists("SHARED.Q")
        with pytest.raises(errors.UnknownObjectName):
            space.queue("SHARED.Q", create=False)


def test_a_cpu_id_held_by_a_live_process_is_refused(tmp_path):
    home = tmp_path / "home"
    with open_space(home, "B"):
        pass  # create the store
    proc = start("put-then-commit", home, "C", str(tmp_path / "go"))
    try:
        assert read_line(proc) == "ready"
        with pytest.raises(errors.TpfEmuError, match="already active"):
            open_space(home, "C")
        with open_space(home, "B") as b:
            with pytest.raises(errors.TpfEmuError, match="active"):
                b.in_doubt("C")
            q = b.queue("SHARED.Q")
            assert q.depth == 1
            with pytest.raises(errors.NoMessageAvailable):
                q.get()  # C's put is not committed
            seen = q.version()
            (tmp_path / "go").touch()
            assert json.loads(read_line(proc)) == "committed"
            assert q.wait_for_change(seen, 10) != seen
            assert q.get() == b"from C"
        assert proc.wait(30) == 0
    finally:
        proc.kill()
        proc.wait()


def test_a_getter_in_another_process_sees_a_put_by_polling(tmp_path):
    home = tmp_path / "home"
    with open_space(home, "B") as b:
        q = b.queue("SHARED.Q")
        proc = start("wait-get", home, "C", "20")
        try:
            assert read_line(proc) == "ready"
            time.sleep(0.2)
            q.put(b"wake up", 0)
            assert json.loads(read_line(proc)) == "wake up"
            assert proc.wait(30) == 0
        finally:
            proc.kill()
            proc.wait()
        assert q.depth == 0


def test_two_processes_getting_concurrently_take_each_message_once(tmp_path):
    """Two processors get (committing, or backing out every fifth unit of work) from one
    queue of 600 messages: every message is delivered exactly once, none is lost."""
    home = tmp_path / "home"
    n = 600
    with open_space(home, "B") as b:
        q = b.queue("SHARED.Q")
        for i in range(n):
            q.put(f"m{i}".encode(), i % 10)
        go = tmp_path / "go"
        procs = [start("consume", home, cpu, str(go)) for cpu in ("C", "D")]
        try:
            for p in procs:
                assert read_line(p) == "ready"
            go.touch()
            results = [json.loads(read_line(p, timeout=120)) for p in procs]
            for p in procs:
                assert p.wait(30) == 0
        finally:
            for p in procs:
                p.kill()
                p.wait()
        taken = results[0] + results[1]
        assert sorted(taken) == sorted(f"m{i}" for i in range(n))
        assert len(set(taken)) == n
        assert all(results), "each process should have taken some"
        assert q.depth == 0 and q.depth_at_least(0, without_gets=True) == 0
        assert q.stats()["backouts"] > 0


def test_in_doubt_work_of_a_killed_processor_is_found_at_its_restart(tmp_path):
    home = tmp_path / "home"
    with open_space(home, "B") as b:
        q = b.queue("SHARED.Q")
        for i in range(4):
            q.put(f"m{i}".encode(), 0)
    proc = start("hold", home, "C")
    try:
        taken, locked = json.loads(read_line(proc))
        assert read_line(proc) == "ready"
        assert (taken, locked) == ("m0", "m1")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    with open_space(home, "B") as b:
        q = b.queue("SHARED.Q")
        assert q.depth == 5  # m0 claimed, m1 locked, the put uncommitted: all still there
        assert q.get() == b"m2"  # m0 and m1 stay hidden while C is down
        # B may examine C's work now that no process holds C
        assert {(i.operation, i.cpu) for i in b.in_doubt("C")} == {("put", "C"), ("get", "C")}
    with open_space(home, "C") as c:  # C restarts: its earlier incarnation's work is in doubt
        sink = []
        found = c.recover_in_doubt(sink=sink.append)
        assert sink == found
        by_op = {i.operation: i for i in found}
        assert set(by_op) == {"put", "get"}
        assert by_op["put"].message.data == b"in-flight put"
        assert by_op["put"].message.descriptor.priority == 3 and by_op["put"].uow == 7
        assert by_op["get"].message.data == b"m0" and by_op["get"].uow == 8
        assert all(i.queue == "SHARED.Q" and i.incarnation == c.incarnation - 1
                   for i in found)
        q = c.queue("SHARED.Q")
        assert q.depth == 2  # m1 (its lock released) and m3
        assert q.depth_at_least(0, committed_only=True, without_gets=True) == 2
        assert drain(q) == [b"m1", b"m3"]
        assert c.in_doubt() == [] and c.recover_in_doubt() == []


def test_in_doubt_recovery_is_all_or_nothing_per_sink_failure(tmp_path):
    home = tmp_path / "home"
    with open_space(home, "B") as b:
        q = b.queue("SHARED.Q")
        q.put(b"a", 0)
        q.get_message(uow=1)
        q.put(b"b", 0, 2)
        # B stops with both units of work open (as if its commit never came)
    with open_space(home, "B") as b:
        def failing(item):
            raise RuntimeError("SPECIAL.RECOVERY.QUEUE is full")
        with pytest.raises(RuntimeError):
            b.recover_in_doubt(sink=failing)
        assert len(b.in_doubt()) == 2  # nothing removed: found again next time
        q = b.queue("SHARED.Q")
        assert q.commit(1) == 0  # uow 1 of this incarnation is another unit of work
        assert len(b.recover_in_doubt()) == 2 and q.depth == 0


def test_storage_full_leaves_the_queue_intact(tmp_path):
    home = tmp_path / "home"
    blob = bytes(range(256)) * 40  # 10 KiB
    with open_space(home, map_size=256 * KiB, max_size=1 * MiB, reserve=256 * KiB) as space:
        q = space.queue("SHARED.Q")
        q.put(b"first", 9, 0)
        q.put(b"claimed", 8)
        assert q.get_message(uow=5).data == b"first"
        stored = 0
        with pytest.raises(errors.StorageFull) as exc:
            for _ in range(1000):
                q.put_message(blob, uow=6 if stored % 2 else 0)
                stored += 1
        assert exc.value.reason == cmqc.MQRC_STORAGE_MEDIUM_FULL == 2192
        assert stored > 10
        before = (q.depth, q.stats()["puts"], q.version())
        with pytest.raises(errors.StorageFull):
            q.put_message(blob)
        assert (q.depth, q.stats()["puts"], q.version()) == before  # nothing half-done
        assert q.depth == stored + 2
        assert q.commit(6) == stored // 2
        assert q.backout(5) == 1
        assert q.get() == b"first"
        got = drain(q)
        assert got[0] == b"claimed" and got[1:] == [blob] * stored
    with open_space(home, max_size=8 * MiB) as space:  # a higher ceiling: writes again
        q = space.queue("SHARED.Q")
        q.put_message(blob)
        assert q.depth == 1


def test_a_full_map_without_reserve_is_storage_full_with_nothing_half_written(tmp_path):
    """With no reserve the put meets LMDB's own MDB_MAP_FULL: StorageFull, and the failed
    put's transaction (state record, data, header) is rolled back whole."""
    blob = bytes(range(256)) * 40
    with open_space(tmp_path / "home", map_size=256 * KiB, max_size=1 * MiB,
                    reserve=0) as space:
        q = space.queue("SHARED.Q")
        stored = 0
        with pytest.raises(errors.StorageFull) as exc:
            for _ in range(1000):
                q.put_message(blob, priority=stored % 10)
                stored += 1
        assert exc.value.reason == cmqc.MQRC_STORAGE_MEDIUM_FULL
        assert q.depth == stored == q.stats()["puts"]
        c = q.cursor()  # browsing writes nothing: it works on a full map
        assert sum(1 for m in c if m.data == blob) == stored
        c.close()


def test_tpfcs_usage_counts_pages_in_use(tmp_path):
    """The primitive the reserve uses: it grows with what is stored, shrinks (past half the
    ceiling) when it is removed, and never exceeds the map."""
    from tpfemu.store.tpfcs import Tpfcs

    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=1 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_keyed_bag("MQS")
        empty = s.usage()
        for n in range(70):
            s.at_new_key_put(pid, n.to_bytes(4, "big"), bytes(10 * KiB))
        full = s.usage()
        assert empty < 100 * KiB < 700 * KiB < full <= s.map_size
        s.remove_all(pid)
        s.at_new_key_put(pid, b"x", b"y")  # a later transaction: the freed pages are free
        assert s.usage() < full - 500 * KiB
        with s.transaction() as t:
            t.at_new_key_put(pid, b"z", bytes(100 * KiB))
            assert s.usage() > 100 * KiB  # inside a transaction: its own pages count
