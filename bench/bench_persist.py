"""Benchmarks of the persistence of processor-unique queues (issue 7), beside baselines
from the same run, on the same disk (pytest's tmp_path).

Run with ``.venv/bin/python -m pytest bench/bench_persist.py`` (about two minutes; it
writes about 3 GB under tmp_path). Figures are medians per message.

Goals (issue 7):

- durable put+commit of 1 KB, 16 threads committing concurrently (group commit):
  >= 100 000 messages/s, >= 20x ``diskcache.Deque`` and >= 30x persist-queue's
  ``SQLiteQueue(auto_commit=True)`` doing the same durable work (on 16 threads, and on
  one thread, their best case);
- one thread committing every message: >= 0.6x the rate of ``os.write`` + ``os.fdatasync``
  of 1 KB appended to a file on the same disk;
- restart recovery of 1 000 000 persistent 1 KB messages: >= 1 000 000 messages/s,
  beside a plain LMDB cursor scan of the same messages stored one per key.

Goals (issue 24), 16 threads, same run: the bare log >= 0.8x the C-handoff floor
(``test_c_group_commit_floor_16_threads``: what committers that are Python threads can do
at most, whatever the log is written in), and MQPUT persistent + MQCMIT through the MQI
(``test_mqi_16_committers``) >= 0.6x the bare log (compare the two subjects' rates).
``test_interleaved_16_threads`` measures them in turn, beside the LMDB floor
(native/bench/lmdb_floor.c: it needs Debian's ``liblmdb-dev``).

Durability of the baselines, as configured by default: persist-queue's SQLite runs with a
rollback journal and ``synchronous=FULL`` (fsyncs every commit); diskcache runs SQLite in
WAL mode with ``synchronous=NORMAL``, which does not fsync at commit (it survives a killed
process, not an OS crash), so its "durable" is weaker than the log's.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import struct
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import diskcache
import lmdb
import persistqueue
import pytest

from tpfemu.store import CheckpointStore, Commit, Put, RecoveryLog, StoredMessage, recover
from tpfemu.store.log_records import encode_records
from tpfemu.store.message import NEVER
from tpfemu.store.recovery import recovered

PAYLOAD = b"x" * 1024
MSG_ID = bytes(24)
THREADS = 16
PER_THREAD = 400  # commits per thread per round: 6 400 messages a round
SINGLE = 2_000  # commits per round for one thread
RECOVER_N = 1_000_000
ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 5


def _pedantic(benchmark, fn, setup=None, rounds=ROUNDS, warmup=1):
    if setup is None:
        return benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=warmup)
    return benchmark.pedantic(fn, setup=setup, rounds=rounds, warmup_rounds=warmup)


def _threads(work: Callable[[int], None], count: int = THREADS) -> None:
    """Run work(t) on ``count`` threads that start together; return when all finished."""
    start = threading.Barrier(count)

    def run(t: int) -> None:
        start.wait()
        work(t)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()


@pytest.fixture(autouse=True)
def quiet_disk() -> None:
    """Flush what earlier benchmarks left in the page cache, so that their writeback does
    not land on this one's syncs."""
    os.sync()


# -- durable put+commit, 16 committing threads ---------------------------------------------

GROUP16 = "durable put+commit 1KB, 16 threads, per message"


@pytest.fixture
def log(tmp_path: Path):
    """A recovery log with room for the benchmark's rounds, closed after the test."""
    with RecoveryLog(tmp_path / "home", map_size=1 << 30, preformat=256 << 20) as log:
        yield log


def _log_committers(log: RecoveryLog, per_commit: int, commits: int):
    # Unit-of-work ids as the queue manager takes them (qmgr.units.new_uow_id): next() of
    # an itertools.count, one C call that needs no lock of its own under the GIL.
    uows = itertools.count(1)

    def work(t: int) -> None:
        commit = log.commit
        queue = f"BENCH.Q{t % 4}"
        for _ in range(commits):
            uow = next(uows)
            commit([*(Put(queue, PAYLOAD, MSG_ID, uow=uow) for _ in range(per_commit)),
                    Commit(uow)])  # fmt: skip

    def run() -> None:
        _threads(work)
        log.trim(log.replay_point)  # as the checkpoint would: keep the log short

    return run


@pytest.mark.parametrize(("goal", "goal_vs"),
                         [(20, "diskcache"), (30, "persistqueue"), (0.8, "c_group_commit")],
                         ids=["vs-diskcache", "vs-persistqueue", "vs-c-floor"])  # fmt: skip
def test_log_16_committers(benchmark, tag, log, goal, goal_vs):
    """tpfemu: 16 threads, each committing one persistent put per unit of work."""
    benchmark.group = GROUP16
    tag("subject", ops=THREADS * PER_THREAD, goal=goal, goal_vs=goal_vs)
    _pedantic(benchmark, _log_committers(log, 1, PER_THREAD))
    assert log.stats["largest_batch"] > 2


def test_log_16_committers_uow16(benchmark, tag, log):
    """tpfemu: 16 threads, each committing units of work of 16 persistent puts."""
    benchmark.group = GROUP16
    tag("subject", ops=THREADS * PER_THREAD)
    _pedantic(benchmark, _log_committers(log, 16, PER_THREAD // 16))


@pytest.fixture
def mqi_system(tmp_path: Path):
    """A System with a home (recovery log, checkpoints every 5 s) and queue BENCH.Q."""
    import tpfemu

    system = tpfemu.System.start("BENCHP", tmp_path / "mqhome", "B", journal="off")
    system.console("ZMQSC DEF MQP")
    system.console("ZMQSC DEF QL-BENCH.Q")
    yield system
    system.stop()


def _mqi_committers(system) -> Callable[[], None]:
    """A round of test_mqi_16_committers on ``system``."""
    import tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC

    md = {"Persistence": CMQC.MQPER_PERSISTENT}

    def work(t: int) -> None:
        conn = pymqi.connect("BENCHP")
        q = pymqi.Queue(conn, "BENCH.Q", CMQC.MQOO_OUTPUT)
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for _ in range(PER_THREAD):
            q.put(PAYLOAD, pymqi.MD(**md), pmo)
            conn.commit()
        q.close()
        conn.disconnect()

    def run() -> None:
        _threads(work)
        assert "MQSC0030I" in system.console("ZMQSC CLEAR QL-BENCH.Q")

    return run


def test_mqi_16_committers(benchmark, tag, mqi_system):
    """tpfemu through the MQI: 16 threads, each MQPUT (persistent, syncpoint) + MQCMIT of
    1 KB, on one memory queue; a round's messages are then cleared (CLEAR QL, logged)."""
    benchmark.group = GROUP16
    tag("subject", ops=THREADS * PER_THREAD)
    _pedantic(benchmark, _mqi_committers(mqi_system))


def test_python_group_commit_floor_16_threads(benchmark, tag, tmp_path):
    """What any group commit written in Python can do here: the log's thread handoffs and
    one sync a batch, with nothing else.

    16 threads each hand a held lock to a writer thread and block on it, as a committer
    waits on its ticket; the writer takes every lock handed in while it was busy, writes
    1 KB with ``os.pwrite`` and ``os.fdatasync``s a preallocated file on the same disk,
    and releases them. There is no record encoding, no LMDB transaction and no payload
    beyond that 1 KB, so this is a ceiling for the log's rate with one message per commit
    in CPython, not a competitor.
    """
    from _thread import allocate_lock

    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD)
    fd = os.open(tmp_path / "floor.log", os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(fd, bytes(1 << 20), 0)
    os.fsync(fd)
    waiting: list = []
    cond = threading.Condition()
    stop = False

    def writer() -> None:
        offset = 0
        while True:
            with cond:
                while not waiting and not stop:
                    cond.wait()
                if stop and not waiting:
                    return
                batch = waiting[:]
                waiting.clear()
            os.pwrite(fd, PAYLOAD, offset)
            offset = (offset + len(PAYLOAD)) % (1 << 20)
            os.fdatasync(fd)
            for latch in batch:
                latch.release()

    def work(t: int) -> None:
        for _ in range(PER_THREAD):
            latch = allocate_lock()
            latch.acquire()
            with cond:
                waiting.append(latch)
                cond.notify()
            latch.acquire()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    try:
        _pedantic(benchmark, lambda: _threads(work))
    finally:
        with cond:
            stop = True
            cond.notify()
        thread.join()
        os.close(fd)


@pytest.fixture(scope="module")
def commit_floor(tmp_path_factory) -> ctypes.CDLL:
    """native/bench/commit_floor.c, compiled with the core's warnings as errors."""
    lib = tmp_path_factory.mktemp("floor") / "libcommit_floor.so"
    subprocess.run(
        [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
         "-shared", "-fPIC", "-pthread", str(ROOT / "native/bench/commit_floor.c"),
         "-o", str(lib)],
        check=True,
    )
    floor = ctypes.CDLL(str(lib))
    floor.floor_commits.restype = floor.floor_syncs.restype = ctypes.c_uint64
    return floor


def test_c_group_commit_floor_16_threads(benchmark, tag, tmp_path, commit_floor):
    """The ceiling for committers that are Python threads, whatever the log is written in.

    16 Python threads each call ``floor_commit`` (native/bench/commit_floor.c) through
    ctypes: a ticket is taken and the thread waits, the GIL released, for a writer thread
    in C that ``pwrite``s 1 KB and ``fdatasync``s once for every ticket handed in while it
    was busy. No Python runs in the writer and none in the wait; what remains is the sync
    and each woken thread winning the GIL back before it can commit again.
    """
    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD)
    fd = _floor_file(tmp_path)
    assert commit_floor.floor_start(fd) == 0
    try:
        _pedantic(benchmark, _floor_committers(commit_floor))
    finally:
        stopped = commit_floor.floor_stop()
        os.close(fd)
    assert stopped == 0
    benchmark.extra_info["commits_per_sync"] = (commit_floor.floor_commits()
                                                / commit_floor.floor_syncs())


@pytest.fixture(scope="module")
def lmdb_floor(tmp_path_factory) -> ctypes.CDLL:
    """native/bench/lmdb_floor.c, compiled against Debian's liblmdb (package liblmdb-dev;
    tpfemu itself uses the LMDB that py-lmdb bundles, whose functions it does not export)."""
    if not Path("/usr/include/lmdb.h").exists():
        raise RuntimeError("bench_persist's LMDB floor needs LMDB's C library and header: "
                           "apt-get install liblmdb-dev")  # fmt: skip
    lib = tmp_path_factory.mktemp("lmdb-floor") / "liblmdb_floor.so"
    subprocess.run(
        [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
         "-shared", "-fPIC", "-pthread", str(ROOT / "native/bench/lmdb_floor.c"),
         "-llmdb", "-o", str(lib)],
        check=True,
    )
    floor = ctypes.CDLL(str(lib))
    floor.lfloor_start.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_size_t,
                                   ctypes.c_size_t]  # fmt: skip
    floor.lfloor_syncs.restype = ctypes.c_uint64
    return floor


def _lmdb_floor_committers(lmdb_floor: ctypes.CDLL) -> Callable[[], None]:
    """A round of the LMDB floor (its writer started): 16 threads committing through it,
    then every value it wrote deleted, as the bare log's round trims its log."""

    def work(t: int) -> None:
        commit = lmdb_floor.lfloor_commit
        for _ in range(PER_THREAD):
            if commit():
                raise OSError("lmdb_floor: the writer's transaction or sync failed")

    def run() -> None:
        _threads(work)
        if lmdb_floor.lfloor_trim():
            raise OSError("lmdb_floor: the trim failed")

    return run


def _floor_file(tmp_path: Path) -> int:
    """The C floor's file: 1 MiB preallocated and synced (an open descriptor)."""
    fd = os.open(tmp_path / "floor.log", os.O_RDWR | os.O_CREAT, 0o644)
    os.pwrite(fd, bytes(1 << 20), 0)
    os.fsync(fd)
    return fd


def _floor_committers(commit_floor: ctypes.CDLL) -> Callable[[], None]:
    """A round of test_c_group_commit_floor_16_threads (its writer started)."""

    def work(t: int) -> None:
        commit = commit_floor.floor_commit
        for _ in range(PER_THREAD):
            if commit():
                raise OSError("commit_floor: the writer's write or sync failed")

    return lambda: _threads(work)


def test_interleaved_16_threads(tmp_path, log, mqi_system, commit_floor, lmdb_floor, capsys):
    """Issue 24's ratios, measured interleaved: rounds of the C floor, the bare log and
    the MQI (the rounds of the three benchmarks above) in turn, so that the disk and the
    machine's load are the same for all three; prints the median rate of each and the
    median of the per-round ratios (bare log / C floor, goal 0.8; MQI / bare log, goal
    0.6). On a shared machine those ratios are the figures to quote.

    A fourth subject, for information: the C floor writing 1 KB for each commit a sync
    covers (``floor_each_commit``), the bytes any log must write, where the issue's
    floor writes 1 KB a sync whatever it covers.

    A fifth, for information too: the LMDB floor (native/bench/lmdb_floor.c), the same
    handoff whose C writer puts each batch's bytes (as many as the bare log's records, one
    value) in one LMDB write transaction and syncs the environment once: what a log kept
    in LMDB must do at the least, beside what any log must do."""
    import statistics
    import time

    fd = _floor_file(tmp_path)
    assert commit_floor.floor_start(fd) == 0
    floor = _floor_committers(commit_floor)
    (tmp_path / "lmdb-floor").mkdir()
    record = len(encode_records([Put("BENCH.Q0", PAYLOAD, MSG_ID, uow=1), Commit(1)],
                                {"BENCH.Q0": 1}, lambda q: 1)[0])  # fmt: skip
    assert lmdb_floor.lfloor_start(str(tmp_path / "lmdb-floor").encode(), 1 << 30,
                                   256 << 20, record) == 0  # fmt: skip

    def floor_each(each: int) -> Callable[[], None]:
        def run() -> None:
            commit_floor.floor_each_commit(each)
            floor()

        return run

    def _syncs() -> int:
        return commit_floor.floor_syncs() + lmdb_floor.lfloor_syncs() + log.stats["batches"]

    subjects = {"C floor": floor_each(0), "bare log": _log_committers(log, 1, PER_THREAD),
                "MQI": _mqi_committers(mqi_system),
                "C floor, 1 KB a commit": floor_each(1),
                "LMDB floor": _lmdb_floor_committers(lmdb_floor)}  # fmt: skip
    rates: dict[str, list[float]] = {name: [] for name in subjects}
    syncs: dict[str, int] = dict.fromkeys(subjects, 0)
    try:
        for round_ in range(ROUNDS + 2):  # (the first is a warm-up)
            for name, run in subjects.items():
                os.sync()
                before = _syncs()
                started = time.perf_counter()
                run()
                if round_:
                    rates[name].append(THREADS * PER_THREAD / (time.perf_counter() - started))
                    syncs[name] += _syncs() - before
    finally:
        stopped = commit_floor.floor_stop()
        os.close(fd)
        lmdb_stopped = lmdb_floor.lfloor_stop()
    assert stopped == 0
    assert lmdb_stopped == 0
    med = {name: statistics.median(r) for name, r in rates.items()}

    def ratio(over: str, under: str) -> float:
        return statistics.median(a / b for a, b in zip(rates[over], rates[under], strict=True))

    with capsys.disabled():
        print(f"\n[interleaved, 16 threads, {ROUNDS + 1} rounds] " + ", ".join(
            f"{name} {rate / 1000:.1f}k msgs/s" for name, rate in med.items()))
        print(f"  bare log / C floor {ratio('bare log', 'C floor'):.2f} (goal >= 0.8), MQI / "
              f"bare log {ratio('MQI', 'bare log'):.2f} (goal >= 0.6); bare log / C floor "
              f"writing 1 KB a commit {ratio('bare log', 'C floor, 1 KB a commit'):.2f}; "
              f"bare log / LMDB floor {ratio('bare log', 'LMDB floor'):.2f}, LMDB floor / "
              f"C floor {ratio('LMDB floor', 'C floor'):.2f}")
        print("  commits per sync: " + ", ".join(
            f"{name} {THREADS * PER_THREAD * len(rates[name]) / syncs[name]:.1f}"
            for name in ("C floor", "bare log", "C floor, 1 KB a commit", "LMDB floor")))
    assert all(r > 0 for r in med.values())


def test_diskcache_deque_16_threads(benchmark, tag, tmp_path):
    """diskcache.Deque.append of 1 KB on 16 threads (its default durability)."""
    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD // 4)
    deque = diskcache.Deque(directory=str(tmp_path / "diskcache"))

    def work(t: int) -> None:
        for _ in range(PER_THREAD // 4):
            deque.append(PAYLOAD)

    _pedantic(benchmark, lambda: _threads(work), rounds=3)


def test_diskcache_deque_one_thread(benchmark, tag, tmp_path):
    """diskcache.Deque.append of 1 KB on one thread (its best case: no lock contention)."""
    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD // 4)
    deque = diskcache.Deque(directory=str(tmp_path / "diskcache"))

    def run() -> None:
        for _ in range(THREADS * PER_THREAD // 4):
            deque.append(PAYLOAD)

    _pedantic(benchmark, run, rounds=3)


def test_persistqueue_one_thread(benchmark, tag, tmp_path):
    """persist-queue SQLiteQueue(auto_commit=True).put of 1 KB on one thread."""
    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD // 8)
    q = persistqueue.SQLiteQueue(str(tmp_path / "pq"), auto_commit=True)

    def run() -> None:
        for _ in range(THREADS * PER_THREAD // 8):
            q.put(PAYLOAD)

    _pedantic(benchmark, run, rounds=3)


def test_persistqueue_16_threads(benchmark, tag, tmp_path):
    """persist-queue SQLiteQueue(auto_commit=True).put of 1 KB on 16 threads."""
    benchmark.group = GROUP16
    tag("baseline", ops=THREADS * PER_THREAD // 8)
    q = persistqueue.SQLiteQueue(str(tmp_path / "pq"), auto_commit=True, multithreading=True)

    def work(t: int) -> None:
        for _ in range(PER_THREAD // 8):
            q.put(PAYLOAD)

    _pedantic(benchmark, lambda: _threads(work), rounds=3)


# -- one thread committing every message ---------------------------------------------------

GROUP1 = "durable put+commit 1KB, one thread, per message"


def test_log_one_committer(benchmark, tag, log):
    """tpfemu: one thread committing every persistent put (its own unit of work)."""
    benchmark.group = GROUP1
    tag("subject", ops=SINGLE, goal=0.6, goal_vs="fdatasync")
    commit = log.commit

    def run() -> None:
        for uow in range(1, SINGLE + 1):
            commit([Put("BENCH.Q", PAYLOAD, MSG_ID, uow=uow), Commit(uow)])
        log.trim(log.replay_point)

    _pedantic(benchmark, run)


def test_mqi_one_committer(benchmark, tag, mqi_system):
    """tpfemu through the MQI: one thread, MQPUT (persistent, syncpoint) + MQCMIT of 1 KB
    each, on one memory queue; a round's messages are then cleared (CLEAR QL, logged)."""
    import tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC

    benchmark.group = GROUP1
    tag("subject", ops=SINGLE // 4)
    conn = pymqi.connect("BENCHP")
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)

    def run() -> None:
        q = pymqi.Queue(conn, "BENCH.Q", CMQC.MQOO_OUTPUT)
        for _ in range(SINGLE // 4):
            q.put(PAYLOAD, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
            conn.commit()
        q.close()  # CLEAR is refused while the queue is open
        assert "MQSC0030I" in mqi_system.console("ZMQSC CLEAR QL-BENCH.Q")

    try:
        _pedantic(benchmark, run)
    finally:
        conn.disconnect()


def test_raw_write_fdatasync(benchmark, tag, tmp_path):
    """os.write of 1 KB appended to a file + os.fdatasync, in a loop (same disk)."""
    benchmark.group = GROUP1
    tag("baseline", ops=SINGLE)
    fd = os.open(tmp_path / "raw.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    write, sync = os.write, os.fdatasync

    def run() -> None:
        for _ in range(SINGLE):
            write(fd, PAYLOAD)
            sync(fd)

    try:
        _pedantic(benchmark, run)
    finally:
        os.close(fd)


# -- restart recovery of 1 000 000 messages ------------------------------------------------

GROUP_RECOVER = "restart recovery of 1M x 1KB persistent messages, per message"


def _messages(n: int) -> Iterator[StoredMessage]:
    for i in range(n):
        yield StoredMessage(i + 1, i.to_bytes(24, "big"), MSG_ID, i % 10, NEVER, i, 0, 0,
                            PAYLOAD)  # fmt: skip


@pytest.fixture(scope="module")
def homes(tmp_path_factory) -> dict[str, Path]:
    """Three copies of the same 1 000 000 messages: all in the recovery log (units of work
    of 100, 4 queues), all in checkpoints, and one LMDB record each (the plain baseline)."""
    root = tmp_path_factory.mktemp("recover")
    from_log = root / "from-log"
    with RecoveryLog(from_log, map_size=2 << 30) as log:
        for uow in range(1, RECOVER_N // 100 + 1):
            queue = f"BENCH.Q{uow % 4}"
            ticket = log.append([*(Put(queue, PAYLOAD, (uow * 100 + j).to_bytes(24, "big"),
                                       priority=j % 10, uow=uow) for j in range(100)),
                                 Commit(uow)])  # fmt: skip
            if uow % 50 == 0:
                ticket.wait()  # batches of about 50 units of work, as under load
    from_ckpt = root / "from-checkpoint"
    with CheckpointStore.open(from_ckpt, map_size=2 << 30) as ckpt:
        quarter = RECOVER_N // 4
        for q in range(4):
            messages = _messages(RECOVER_N)
            ckpt.write(f"BENCH.Q{q}", (m for i, m in enumerate(messages)
                                       if quarter * q <= i < quarter * (q + 1)), lsn=1)
    plain = root / "plain"
    env = lmdb.open(str(plain), map_size=2 << 30, sync=False)
    key = struct.Struct(">Q").pack
    with env.begin(write=True) as txn:
        cur = txn.cursor()
        cur.putmulti(((key(i), PAYLOAD) for i in range(RECOVER_N)), append=True)
    env.sync(True)
    env.close()
    return {"log": from_log, "checkpoint": from_ckpt, "plain": plain}


def _check_recovered(recovered: dict) -> None:
    assert sum(map(len, recovered.values())) == RECOVER_N


def test_recover_from_log(benchmark, tag, homes):
    """tpfemu: recover 1M messages from the recovery log alone (no checkpoint)."""
    benchmark.group = GROUP_RECOVER
    tag("subject", ops=RECOVER_N)
    _check_recovered(_pedantic(benchmark, lambda: recover(homes["log"]), rounds=3))


def test_recover_from_checkpoint(benchmark, tag, homes):
    """tpfemu: recover 1M messages from checkpoints (an empty log tail)."""
    benchmark.group = GROUP_RECOVER
    tag("subject", ops=RECOVER_N)
    _check_recovered(_pedantic(benchmark, lambda: recover(homes["checkpoint"]), rounds=3))


def _restart(home: Path) -> tuple[Callable[[], int], Callable[[], tuple[tuple, dict]]]:
    """Restart as the queue manager does it (QueuePersistence.restore): recover, then put
    every message back on a fresh memory queue of its name. Returns the round and its
    setup (which frees the previous round's queues, outside the timing)."""
    from tpfemu.qmgr.localq import LocalQueue
    from tpfemu.qmgr.objects import LocalQueueDef
    from tpfemu.qmgr.persistence import QueuePersistence

    queues: dict[str, LocalQueue] = {}

    def setup() -> tuple[tuple, dict]:
        for queue in queues.values():
            queue.core.close()
        queues.clear()
        for q in range(4):
            name = f"BENCH.Q{q}"
            queues[name] = LocalQueue(LocalQueueDef(name=name, maxdepth=0), b"BENCHP")
        return (), {}

    def run() -> int:
        restored = 0
        with recovered(home) as segments:
            for name, segs in segments.items():
                restored += QueuePersistence._restore_queue(queues[name], segs)
        return restored

    return run, setup


@pytest.mark.parametrize("source", ["checkpoint", "log"])
def test_restart_into_memory_queues(benchmark, tag, homes, source):
    """tpfemu: the whole restart of 1M messages, recovery and the puts back on the memory
    queues (what QueuePersistence.restore does), from checkpoints or the log alone."""
    benchmark.group = GROUP_RECOVER
    tag("subject", ops=RECOVER_N)
    run, setup = _restart(homes[source])
    assert _pedantic(benchmark, run, setup=setup, rounds=3) == RECOVER_N
    setup()


def test_log_replay_alone(benchmark, tag, homes):
    """tpfemu: the log tail's replay alone (``tpf_log_replay`` through cffi,
    native/include/tpf/logrec.h) over the 1M messages' batches in the log's map, no
    checkpoint: units of work settled, the survivors' descriptors and data addresses
    gathered; no message copied."""
    from tpfemu.store.lmdbenv import LmdbEnv
    from tpfemu.store.log_records import (
        LOG_DB,
        META_DB,
        QUEUES_DB,
        batch_views,
        read_queue_names,
    )
    from tpfemu.store.recovery import log_replay

    benchmark.group = GROUP_RECOVER
    tag("subject", ops=RECOVER_N)
    env = LmdbEnv(homes["log"] / "recovery-log", readonly=True,
                  dbs=(LOG_DB, QUEUES_DB, META_DB))

    def run() -> int:
        nq = max(read_queue_names(env)) + 1
        with env.read(buffers=True) as txn:
            tails, _ = log_replay(list(batch_views(env, txn)), [0] * nq, [0] * nq, 0)
            return sum(len(t[1]) // 8 for t in tails if t is not None)

    try:
        assert _pedantic(benchmark, run, rounds=3) == RECOVER_N
    finally:
        env.close()


def test_lmdb_cursor_scan(benchmark, tag, homes):
    """A plain LMDB cursor scan (buffers=True) of 1M records of 1 KB, one per message."""
    benchmark.group = GROUP_RECOVER
    tag("baseline", ops=RECOVER_N)
    env = lmdb.open(str(homes["plain"]), readonly=True, lock=False)

    def scan() -> int:
        n = 0
        with env.begin(buffers=True) as txn:
            for _key, value in txn.cursor():
                n += len(value)
        return n

    assert _pedantic(benchmark, scan, rounds=3) == RECOVER_N * len(PAYLOAD)
    env.close()


# -- processor-shared (COMMON-YES) queues on the TPFCS-like store ----------------------------

GROUP_SHARED = "shared queue (TPFCS, durable) vs CoreQueue: 1KB in a unit of work, per message"
SHARED_N = 100  # messages per round: each put, get and commit is one synced LMDB commit
SHARED_ROUNDS = 3  # keeps the four cases to about ten seconds


@pytest.fixture
def shared_q(tmp_path: Path):
    """A shared queue in a durable store (every commit synced), closed after the test."""
    from tpfemu.store.shared import SharedQueueStore

    with SharedQueueStore.open(tmp_path / "home", "B", durable=True) as space:
        yield space.queue("BENCH.SHARED")


def _put_commit(q) -> Callable[[], None]:
    def run() -> None:
        for uow in range(1, SHARED_N + 1):
            q.put(PAYLOAD, 0, uow)
            q.commit(uow)
        q.purge()

    return run


def _get_commit(q) -> tuple[Callable[[], None], Callable[[], None]]:
    def setup() -> None:
        for _ in range(SHARED_N):
            q.put(PAYLOAD, 0)

    def run() -> None:
        for uow in range(1, SHARED_N + 1):
            q.get(uow)
            q.commit(uow)

    return run, setup


def test_shared_queue_put_commit(benchmark, tag, shared_q):
    """tpfemu: put + commit of 1 KB on a processor-shared queue (two synced commits)."""
    benchmark.group = GROUP_SHARED + ", put+commit"
    tag("subject", ops=SHARED_N)
    _pedantic(benchmark, _put_commit(shared_q), rounds=SHARED_ROUNDS, warmup=0)


def test_core_queue_put_commit(benchmark, tag):
    """The same on a processor-unique memory queue (the C core, nothing on disk)."""
    from tpfemu._lowlevel import CoreQueue

    benchmark.group = GROUP_SHARED + ", put+commit"
    tag("baseline", ops=SHARED_N)
    with CoreQueue("BENCH.CORE") as q:
        _pedantic(benchmark, _put_commit(q), rounds=SHARED_ROUNDS)


def test_shared_queue_get_commit(benchmark, tag, shared_q):
    """tpfemu: get + commit of 1 KB on a processor-shared queue (two synced commits)."""
    benchmark.group = GROUP_SHARED + ", get+commit"
    tag("subject", ops=SHARED_N)
    run, setup = _get_commit(shared_q)
    _pedantic(benchmark, run, setup=setup, rounds=SHARED_ROUNDS, warmup=0)


def test_core_queue_get_commit(benchmark, tag):
    """The same on a processor-unique memory queue (the C core, nothing on disk)."""
    from tpfemu._lowlevel import CoreQueue

    benchmark.group = GROUP_SHARED + ", get+commit"
    tag("baseline", ops=SHARED_N)
    with CoreQueue("BENCH.CORE") as q:
        run, setup = _get_commit(q)
        _pedantic(benchmark, run, setup=setup, rounds=SHARED_ROUNDS)
