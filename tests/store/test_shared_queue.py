"""Processor-shared queues on the TPFCS-like store (tpfemu.store.shared): the complex.

Several OS processes on one home, crashes, restarts and a full store. What a shared queue
does as the storage of one queue, the same as the memory queue, is the contract of
test_queue_storage.py.
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
from store_helpers import drain

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.store.shared import SharedQueueStore

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("shared_worker.py")
KiB, MiB = 1024, 1024 * 1024


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
