"""Several OS processes on one home form a complex: they share the TPFCS-like store."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tpfemu.errors import StorageFull, TpfcsError
from tpfemu.store.tpfcs import Lifetime, Pid, Tpfcs

REPO = Path(__file__).resolve().parents[2]
BLOB = bytes(range(256)) * 40  # 10 KiB

# One small program, run as `python -c WORKER <mode> <home> [args]`, plays the other processor.
WORKER = textwrap.dedent("""
    import json, os, sys, time
    from tpfemu.store.tpfcs import Lifetime, Pid, Tpfcs

    mode, home, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    BLOB = bytes(range(256)) * 40

    def ready(text="ready"):
        print(text, flush=True)

    with Tpfcs.open(home, durable=False) as store:
        if mode == "take":                       # take until empty, after the go file appears
            pid, go = Pid.parse(args[0]), args[1]
            ready()
            while not os.path.exists(go):
                time.sleep(0.001)
            taken = []
            while (element := store.take_first(pid)) is not None:
                taken.append(element.index)
            print(json.dumps(taken), flush=True)
        elif mode == "consume":                  # take n elements as they arrive
            pid, n = Pid.parse(args[0]), int(args[1])
            ready()
            got = []
            while len(got) < n:
                element = store.take_first(pid)
                if element is None:
                    time.sleep(0.0005)
                else:
                    got.append(element.key.hex())
            print(json.dumps(got), flush=True)
        elif mode == "hold-read":                # crash while holding a read transaction
            cursor = store.cursor(Pid.parse(args[0]), snapshot=True)
            cursor.first()
            ready()
            time.sleep(600)
        elif mode == "hold-write":               # crash in the middle of a unit of work
            with store.transaction() as t:
                t.add(Pid.parse(args[0]), b"uncommitted")
                ready()
                time.sleep(600)
        elif mode == "temp":                     # own a temporary collection
            pid = store.create_sequence("MQS", Lifetime.TEMPORARY)
            ready(str(pid))
            sys.stdin.readline()
        elif mode == "define":                   # define a named queue and put to it
            store.create_data_store("MQS")
            pid = store.create_keyed_bag("MQS", name="APP.SHARED.Q")
            for n in range(3):
                store.at_new_key_put(pid, b"%d" % n, b"from child")
            ready(str(pid))
        elif mode == "count":
            print(store.count(Pid.parse(args[0])), flush=True)
        elif mode == "grow":                     # write enough to grow the map
            pid = Pid.parse(args[0])
            for _ in range(int(args[1])):
                store.add(pid, BLOB)
            print(store.map_size, flush=True)
""")


def start(mode: str, home: Path, *args: str) -> subprocess.Popen:
    """Start the worker in ``mode``; it inherits the environment (PYTHONPATH included)."""
    return subprocess.Popen([sys.executable, "-c", WORKER, mode, str(home), *args], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def run(mode: str, home: Path, *args: str, timeout: float = 60) -> str:
    """Run the worker to completion and return its output."""
    done = subprocess.run([sys.executable, "-c", WORKER, mode, str(home), *args], cwd=REPO,
                          capture_output=True, text=True, timeout=timeout, check=True)
    return done.stdout.strip()


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL a worker - no cleanup of any kind runs - and reap it."""
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.fixture
def home(tmp_path):
    return tmp_path


def test_pids_and_contents_are_the_same_in_every_process(home):
    """A collection defined by one process is found by name, with the same PID and elements,
    by another - and again after a restart."""
    pid = Pid.parse(run("define", home))
    with Tpfcs.open(home, durable=False) as store:
        assert store.lookup("MQS", "APP.SHARED.Q") == pid
        assert [e.key for e in store.cursor(pid)] == [b"0", b"1", b"2"]
        store.at_new_key_put(pid, b"3", b"from parent")
    assert run("count", home, str(pid)) == "4"
    with Tpfcs.open(home, durable=False) as store:
        assert store.lookup("MQS", "APP.SHARED.Q") == pid and store.count(pid) == 4


def test_two_processes_taking_concurrently_take_each_element_once(home):
    """Two processes racing take_first on 10 000 elements take every one exactly once."""
    total = 10_000
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
        pid = store.create_keyed_bag("MQS", name="SHARED")
        with store.transaction() as t:
            for n in range(total):
                t.at_new_key_put(pid, n.to_bytes(4, "big"), b"m")
    go = home / "go"
    workers = [start("take", home, str(pid), str(go)) for _ in range(2)]
    for worker in workers:
        assert worker.stdout.readline().strip() == "ready"
    go.touch()
    results = []
    for worker in workers:
        out, _ = worker.communicate(timeout=120)
        results.append(json.loads(out))
    first, second = (set(r) for r in results)
    assert len(first) == len(results[0]) and len(second) == len(results[1])
    assert not first & second, "an element was taken twice"
    assert first | second == set(range(1, total + 1)), "an element was lost"
    assert first and second, "both processes should have taken some"
    with Tpfcs.open(home, durable=False) as store:
        assert store.count(pid) == 0


def test_a_process_gets_what_another_puts_in_order(home):
    """Elements put by one process are taken by another as they arrive, once, in key order."""
    n = 2_000
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
        pid = store.create_keyed_bag("MQS")
        consumer = start("consume", home, str(pid), str(n))
        assert consumer.stdout.readline().strip() == "ready"
        for i in range(n):
            store.at_new_key_put(pid, i.to_bytes(4, "big"), b"m")
        out, _ = consumer.communicate(timeout=120)
        assert json.loads(out) == [i.to_bytes(4, "big").hex() for i in range(n)]
        assert store.count(pid) == 0


def test_a_crashed_reader_does_not_block_and_its_slot_is_reclaimed(home):
    """A process SIGKILLed inside a read transaction blocks no one; its stale reader slot,
    which kept LMDB from reusing pages, is cleared so the store need not grow."""
    with Tpfcs.open(home, durable=False, map_size=2 * 1024**2, max_size=2 * 1024**2) as store:
        store.create_data_store("MQS")
        pid = store.create_sequence("MQS")
        store.add(pid, b"pinned")

        def churn(rounds: int) -> None:  # each round adds and removes 10 KiB, atomically
            for _ in range(rounds):
                store.transact(lambda t: t.remove_index(pid, t.add(pid, BLOB)))

        reader = start("hold-read", home, str(pid))
        assert reader.stdout.readline().strip() == "ready"
        with pytest.raises(StorageFull):  # a live reader pins every page freed after it
            churn(400)
        kill(reader)
        churn(400)  # 4 MB through a 2 MB map: pages are reused once the slot is cleared
        assert store.map_size == 2 * 1024**2
        assert [e.data for e in store.cursor(pid)] == [b"pinned"]


def test_a_crashed_writer_loses_its_uncommitted_work_and_blocks_no_one(home):
    """A process SIGKILLed inside a unit of work releases the writer lock; its work is gone."""
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
        pid = store.create_sequence("MQS")
        store.add(pid, b"committed")
    writer = start("hold-write", home, str(pid))
    assert writer.stdout.readline().strip() == "ready"
    kill(writer)
    run("grow", home, str(pid), "1", timeout=30)  # another process can write at once
    with Tpfcs.open(home, durable=False) as store:
        assert [e.data for e in store.cursor(pid)][0] == b"committed"
        assert b"uncommitted" not in [e.data for e in store.cursor(pid)]
        assert store.count(pid) == 2


def test_temporary_collections_of_a_crashed_process_are_reaped(home):
    """A live process's temporary collection is left alone; once it dies, the next open drops it."""
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
    owner = start("temp", home)
    pid = Pid.parse(owner.stdout.readline().strip())
    with Tpfcs.open(home, durable=False) as store:
        assert store.info(pid).lifetime is Lifetime.TEMPORARY
        kill(owner)
        assert store.info(pid)  # reaping happens at open, not behind a running store's back
    with Tpfcs.open(home, durable=False) as store:
        with pytest.raises(TpfcsError, match="TO2_ERROR_PID"):
            store.info(pid)


def test_temporary_collection_of_a_process_that_closes_is_gone(home):
    """A process that closes its store normally takes its temporary collections with it."""
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
    owner = start("temp", home)
    pid = Pid.parse(owner.stdout.readline().strip())
    owner.communicate("close\n", timeout=30)
    with Tpfcs.open(home, durable=False) as store:
        with pytest.raises(TpfcsError, match="TO2_ERROR_PID"):
            store.info(pid)


def test_a_process_adopts_the_map_another_process_grew(home):
    """When another process grows the map, this one reads the new data after adopting it."""
    with Tpfcs.open(home, durable=False, map_size=256 * 1024) as store:
        store.create_data_store("MQS")
        pid = store.create_sequence("MQS")
        before = store.map_size
        grown = int(run("grow", home, str(pid), "400"))
        assert grown > before
        time.sleep(0)  # nothing to wait for: the child has committed and exited
        assert store.count(pid) == 400
        assert sum(1 for _ in store.cursor(pid)) == 400
        assert store.map_size >= grown


def test_reader_slots_of_a_crashed_process_are_reused_when_the_table_is_full(home):
    """With every reader slot taken, one left by a SIGKILLed process is cleared and reused."""
    with Tpfcs.open(home, durable=False, max_readers=2) as store:
        store.create_data_store("MQS")
        pid = store.create_sequence("MQS")
        store.add(pid, b"x")
        reader = start("hold-read", home, str(pid))
        assert reader.stdout.readline().strip() == "ready"
        with store.cursor(pid, snapshot=True):  # the second and last slot
            with pytest.raises(TpfcsError, match="TO2_ERROR_DB.*reader slot"):
                store.count(pid)
            kill(reader)
            assert store.count(pid) == 1  # the dead reader's slot is cleared on demand


def test_a_live_cursor_sees_what_another_process_commits(home):
    """A live cursor continues into elements another process added after it started."""
    with Tpfcs.open(home, durable=False) as store:
        store.create_data_store("MQS")
        pid = store.create_sequence("MQS")
        store.add(pid, b"mine")
        cursor = store.cursor(pid)
        assert cursor.next().data == b"mine"
        assert cursor.next() is None
        run("grow", home, str(pid), "3")
        assert [e.index for e in cursor] == [2, 3, 4]


def test_open_clears_the_reader_slots_of_dead_processes(home):
    """Opening the store clears, and reports, the reader slots of processes that died."""
    with Tpfcs.open(home, durable=False) as first:
        first.create_data_store("MQS")
        pid = first.create_sequence("MQS")
        reader = start("hold-read", home, str(pid))
        assert reader.stdout.readline().strip() == "ready"
        kill(reader)
        with Tpfcs.open(home, durable=False) as second:
            assert second.stale_readers_cleared == 1
            assert second.reader_check() == 0
