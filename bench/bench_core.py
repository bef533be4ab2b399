"""Benchmarks of the C message core (issue 2), each beside baselines from the same run.

Run with ``make bench`` (or ``.venv/bin/python -m pytest bench/bench_core.py --benchmark-only``).
Figures are medians per message pair; the summary at the end prints each subject beside
``queue.PriorityQueue``, ``heapq`` (priority, seq, payload) and ``collections.deque``.

Goals (issue 2): put+get of 1 KB >= 8x queue.PriorityQueue at depth 0 and 100 000;
put_many/get_many in batches of 64 >= 40x queue.PriorityQueue per message; a get matched
by CorrelId at depth 100 000 >= 100x a Python linear scan; the C-only loop <= 50 ns per
10-priority put+get pair at depth 1 000 000.
"""

from __future__ import annotations

import heapq
import itertools
import os
import queue
import statistics
import subprocess
import time
from collections import deque
from pathlib import Path

import pytest

from tpfemu._lowlevel import CoreQueue

PAYLOAD = b"x" * 1024
PAIRS = 5_000  # message pairs per round
ROUNDS = 15
PRIOS = [i * 7 % 10 for i in range(PAIRS)]  # every priority, mixed
ROOT = Path(__file__).resolve().parents[1]


def _pedantic(benchmark, fn, setup=None, rounds=ROUNDS):
    if setup is None:
        return benchmark.pedantic(fn, rounds=rounds, iterations=1, warmup_rounds=1)
    return benchmark.pedantic(fn, setup=setup, rounds=rounds, warmup_rounds=1)


# -- subjects and baselines for one put + one get ---------------------------------------


def _core_loop(q: CoreQueue):
    put, get = q.put, q.get

    def run():
        for p in PRIOS:
            put(PAYLOAD, p)
            get()

    return run


def _pq_loop(pq: queue.PriorityQueue, counter):
    put, get = pq.put, pq.get

    def run():
        for p in PRIOS:
            put((-p, next(counter), PAYLOAD))
            get()

    return run


def _heapq_loop(h: list, counter):
    push, pop = heapq.heappush, heapq.heappop

    def run():
        for p in PRIOS:
            push(h, (-p, next(counter), PAYLOAD))
            pop(h)

    return run


def _deque_loop(d: deque):
    append, popleft = d.append, d.popleft

    def run():
        for _ in PRIOS:
            append(PAYLOAD)
            popleft()

    return run


def _fill_core(depth: int) -> CoreQueue:
    q = CoreQueue("BENCH")
    if depth:
        q.put_many([PAYLOAD] * depth, priority=0)
    return q


@pytest.mark.parametrize("depth", [0, 100_000], ids=["depth0", "depth100k"])
class TestPutGet:
    """put + get of 1 KB, one call each, at an empty queue and at depth 100 000."""

    def test_core(self, benchmark, tag, depth):
        benchmark.group = f"put+get 1KB {depth=}"
        tag("subject", ops=PAIRS, goal=8, goal_vs="priorityqueue")
        q = _fill_core(depth)
        _pedantic(benchmark, _core_loop(q))
        assert q.depth == depth
        q.close()

    def test_priorityqueue(self, benchmark, tag, depth):
        benchmark.group = f"put+get 1KB {depth=}"
        tag("baseline", ops=PAIRS)
        pq, counter = queue.PriorityQueue(), itertools.count()
        for _ in range(depth):
            pq.put((0, next(counter), PAYLOAD))
        _pedantic(benchmark, _pq_loop(pq, counter))

    def test_heapq(self, benchmark, tag, depth):
        benchmark.group = f"put+get 1KB {depth=}"
        tag("baseline", ops=PAIRS)
        h, counter = [], itertools.count()
        for _ in range(depth):
            heapq.heappush(h, (0, next(counter), PAYLOAD))
        _pedantic(benchmark, _heapq_loop(h, counter))

    def test_deque_no_priority(self, benchmark, tag, depth):
        benchmark.group = f"put+get 1KB {depth=}"
        tag("baseline", ops=PAIRS)
        _pedantic(benchmark, _deque_loop(deque([PAYLOAD] * depth)))


# -- batches of 64 ------------------------------------------------------------------------

BATCH = 64
BATCHES = 100


def test_batch_core(benchmark, tag):
    """put_many + get_many of 64 x 1 KB per call: time per message pair."""
    benchmark.group = "batch of 64, per message"
    tag("subject", ops=BATCH * BATCHES, goal=40, goal_vs="priorityqueue")
    q = CoreQueue("BATCH")
    batch = [PAYLOAD] * BATCH

    def run():
        for _ in range(BATCHES):
            q.put_many(batch, 5)
            q.get_many(BATCH, max_bytes=BATCH * len(PAYLOAD))

    _pedantic(benchmark, run)
    assert q.depth == 0


def test_batch_core_contiguous(benchmark, tag):
    """put_batch of one contiguous buffer (what a channel receives) + get_many."""
    benchmark.group = "batch of 64, per message"
    tag("subject", ops=BATCH * BATCHES, goal=40, goal_vs="priorityqueue")
    q = CoreQueue("BATCH")
    data = PAYLOAD * BATCH
    lengths = [len(PAYLOAD)] * BATCH

    def run():
        for _ in range(BATCHES):
            q.put_batch(data, lengths, 5)
            q.get_many(BATCH, max_bytes=len(data))

    _pedantic(benchmark, run)
    assert q.depth == 0


def test_batch_core_split(benchmark, tag):
    """The same, also splitting every batch into a list of bytes objects."""
    benchmark.group = "batch of 64, per message"
    tag("subject", ops=BATCH * BATCHES, goal=40, goal_vs="priorityqueue")
    q = CoreQueue("BATCH")
    batch = [PAYLOAD] * BATCH

    def run():
        for _ in range(BATCHES):
            q.put_many(batch, 5)
            assert len(q.get_many(BATCH, max_bytes=BATCH * len(PAYLOAD)).messages()) == BATCH

    _pedantic(benchmark, run)


def test_batch_priorityqueue(benchmark, tag):
    """queue.PriorityQueue: 64 puts then 64 gets, per message pair."""
    benchmark.group = "batch of 64, per message"
    tag("baseline", ops=BATCH * BATCHES)
    pq, counter = queue.PriorityQueue(), itertools.count()

    def run():
        put, get = pq.put, pq.get
        for _ in range(BATCHES):
            for _ in range(BATCH):
                put((-5, next(counter), PAYLOAD))
            for _ in range(BATCH):
                get()

    _pedantic(benchmark, run)


def test_batch_copy_floor(tmp_path, external):
    """What the copies alone cost: 64 x 1 KB copied into slots and back out, in C.

    A queue that owns its messages copies each one in on put and out on get; this is that
    and nothing else (native/bench/copy_floor.c), beside ``queue.PriorityQueue``'s batch
    loop timed in the same test, so the summary shows how much of the 40x goal's budget
    per message the two copies take by themselves.
    """
    exe = tmp_path / "copy_floor"
    subprocess.run(
        [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
         str(ROOT / "native/bench/copy_floor.c"), "-o", str(exe)],
        check=True,
    )
    out = subprocess.run([str(exe), str(len(PAYLOAD)), str(BATCH)], check=True,
                         capture_output=True, text=True).stdout
    copy_ns = float(out.split()[1])
    pq, counter = queue.PriorityQueue(), itertools.count()
    put, get = pq.put, pq.get
    rounds = []
    for _ in range(12):  # the first rounds warm up: the median of the last 9 is taken
        t0 = time.perf_counter()
        for _ in range(BATCHES):
            for _ in range(BATCH):
                put((-5, next(counter), PAYLOAD))
            for _ in range(BATCH):
                get()
        rounds.append((time.perf_counter() - t0) * 1e9 / (BATCH * BATCHES))
    pq_ns = statistics.median(rounds[3:])
    external("batch of 64, per message", "copy in + copy out alone, C (no queue)", copy_ns,
             "queue.PriorityQueue batch loop, same test", pq_ns, goal_ns=pq_ns / 40)


# -- matched get by CorrelId at depth 100 000 ----------------------------------------------

DEPTH = 100_000
LOOKUPS = 200


def _correl(i: int) -> bytes:
    return b"%023d!" % i


def test_matched_core(benchmark, tag):
    """Get by CorrelId among 100 000 messages (then put it back)."""
    benchmark.group = "get by CorrelId at depth 100k"
    tag("subject", ops=LOOKUPS, goal=100)
    q = CoreQueue("MATCH")
    for i in range(DEPTH):
        q.put_message(PAYLOAD, correl_id=_correl(i))
    targets = [_correl(i * 7919 % DEPTH) for i in range(LOOKUPS)]

    def run():
        for c in targets:
            q.get_message(correl_id=c)
            q.put_message(PAYLOAD, correl_id=c)

    _pedantic(benchmark, run)
    assert q.depth == DEPTH


def test_matched_linear_scan(benchmark, tag):
    """Python baseline: scan a list of (correl_id, payload) for the first match."""
    benchmark.group = "get by CorrelId at depth 100k"
    tag("baseline", ops=LOOKUPS)
    items = [(_correl(i), PAYLOAD) for i in range(DEPTH)]
    targets = [_correl(i * 7919 % DEPTH) for i in range(LOOKUPS)]

    def run():
        for c in targets:
            for j, (cid, _) in enumerate(items):
                if cid == c:
                    item = items.pop(j)
                    break
            items.append(item)

    _pedantic(benchmark, run, rounds=3)


# -- the C-only loop -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def c_bench(tmp_path_factory) -> Path:
    """native/bench/bench_core.c compiled with the core's flags."""
    exe = tmp_path_factory.mktemp("cbench") / "bench_core"
    cc = os.environ.get("CC", "cc")
    src = sorted(str(p) for p in (ROOT / "native" / "src").glob("*.c"))
    subprocess.run(
        [cc, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-pthread",
         f"-I{ROOT / 'native' / 'include'}", *src, str(ROOT / "native/bench/bench_core.c"),
         "-o", str(exe)],
        check=True,
    )
    return exe


@pytest.mark.parametrize(
    "depth, pairs, size",
    [(1_000_000, 3_000_000, 16), (1_000_000, 2_000_000, 1024), (0, 5_000_000, 16),
     (0, 5_000_000, 1024)],
    ids=["depth1M-16B", "depth1M-1KB", "depth0-16B", "depth0-1KB"],
)
def test_c_only_loop(c_bench, external, depth, pairs, size):
    """10-priority put+get pairs in C, no Python: median of 3 runs beside a C binary heap."""
    core, heap = [], []
    for _ in range(3):
        out = subprocess.run(
            [str(c_bench), str(depth), str(pairs), str(size)],
            check=True, capture_output=True, text=True,
        ).stdout
        fig = dict(line.split() for line in out.splitlines() if line.endswith("_ns") is False
                   and line.split()[0].endswith("_ns"))
        core.append(float(fig["core_put_get_ns"]))
        heap.append(float(fig["heap_push_pop_ns"]))
    external(
        "C-only put+get pair", f"core {depth=} {size}B", statistics.median(core),
        "C binary heap (prio, seq), malloc'd payload", statistics.median(heap),
        goal_ns=50 if depth == 1_000_000 else None,
    )
