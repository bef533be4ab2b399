"""Benchmarks of the event journal (issue 8): the MQI put+get round trip with the journal
off, at ``events`` and at ``payload``, all measured in the same run.

Run with ``.venv/bin/python -m pytest bench/bench_journal.py -p no:randomly``.

Each level runs on its own System with a home in a temporary directory (so everything but
the journal is the same). A round is PAIRS put+get pairs of 1 KB, non-persistent, then
``journal.flush()``: the time includes writing every event of the round. The writer thread
runs beside the application as it does in service (a write cycle every 50 ms, the encoding
and writing done with the GIL released), so what it costs the application (the GIL it
takes, the second core it uses, the events still to write when the round ends) is in the
figure. A round is long (PAIRS = 50 000, about 50-100 ms) so that it holds several write
cycles, as a running system does: a short round ending in ``flush()`` would measure the
writer's latency, not its cost.

Goal (issue 8): at most 15 % loss with the journal on, i.e. ``off / on >= 0.87``. The
summary prints each level beside ``off``; the "measured outside" section prints the loss
in %. Two shapes are measured:

- with an MD on each call (the full MQI path every application with descriptors takes);
- with no MD (the fast path of bench_mqi.py).

While the journal is the only subscriber, the fast paths of both shapes record their
events in C, in the journal's EventLog (docs/journal.md). A fourth configuration,
``listener``, has the journal off and one raw event subscriber that does nothing: the
MQI then emits its events in Python (printed too, no goal): what any other subscriber
costs the MQI.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

ROOT = Path(__file__).resolve().parents[1]
PAYLOAD = b"x" * 1024
PAIRS = 50_000
ROUNDS = 7
LEVELS = ("off", "events", "payload")
#: The journal at level events with one of its C accelerators replaced by the library
#: that could do its work (Journal's encoder and hasher): the same figure, in the same
#: run. A C accelerator stays only while it pays >= 1.5x on the journal's cost (on - off)
#: beside its alternative: the encoder against "events+pyarrow", the payload hash
#: against "events+pyarrow+xxhash" (whose cost is compared with "events+pyarrow").
ALTERNATIVES = {
    "events+pyarrow": {"encoder": "pyarrow"},
    "events+pyarrow+xxhash": {"encoder": "pyarrow", "hasher": "xxhash"},
}
# listener: journal off, one raw subscriber doing nothing
CONFIGS = (*LEVELS, "listener", *ALTERNATIVES)
_names = itertools.count(1)
_medians: dict[tuple[str, str], float] = {}  # (shape, level) -> seconds per round
_reported: set[tuple[str, str]] = set()


@pytest.fixture(scope="module")
def systems():
    """One running System per configuration, each with its own home and queue."""
    made = {}
    dirs = []
    for config in CONFIGS:
        level = "off" if config == "listener" else config.split("+")[0]
        home = tempfile.TemporaryDirectory(prefix=f"bench-journal-{config}-")
        dirs.append(home)
        system = tpfemu.System.start(name=f"BJ{next(_names)}", home=home.name, journal=level)
        if config in ALTERNATIVES:
            from tpfemu.journal.writer import Journal

            system.journal.stop()
            system.journal = Journal(system.qmgr, os.path.join(home.name, "alt"),
                                     level=level, cpu=system.cpu,
                                     **ALTERNATIVES[config]).start()
        if system.qmgr.catalog.profile is None:
            system.qmgr.catalog.define("MQP")
        system.qmgr.catalog.define("QL", "BENCH.Q")
        if config == "listener":
            system.qmgr.events.subscribe_raw(_ignore)
        made[config] = system
    yield made
    for system in made.values():
        system.stop()
    for home in dirs:
        home.cleanup()


def _ignore(kind, queue, time_us, fields):
    """The ``listener`` configuration's raw event subscriber: does nothing."""


def _round(system, with_md: bool):
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "BENCH.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    put, get = q.put, q.get
    journal = system.journal

    if with_md:
        def run():
            for i in range(PAIRS):
                put(PAYLOAD, pymqi.MD(Priority=i % 10))
                get(None, pymqi.MD())
            if journal is not None:
                assert journal.flush(60)
    else:
        def run():
            for _ in range(PAIRS):
                put(PAYLOAD)
                get()
            if journal is not None:
                assert journal.flush(60)
    return run, q, qm


def _report(external, shape: str) -> None:
    """Record each level's loss against ``off`` once both were measured (any order)."""
    base = _medians.get((shape, "off"))
    if base is None:
        return
    for level in ("events", "payload"):
        on = _medians.get((shape, level))
        if on is None or (shape, level) in _reported:
            continue
        _reported.add((shape, level))
        loss = (on / base - 1) * 100
        external(f"journal, MQI put+get 1KB {shape}",
                 f"journal={level}: loss {loss:+.1f}% (goal <= 15%)", on * 1e9 / PAIRS,
                 "journal=off, same run", base * 1e9 / PAIRS, goal_ns=base * 1.15e9 / PAIRS)
    # (accelerator, the configuration with it, the one with its alternative instead)
    for what, with_c, alt in (("C encoder", "events", "events+pyarrow"),
                              ("C payload hash", "events+pyarrow", "events+pyarrow+xxhash")):
        c_on, on = _medians.get((shape, with_c)), _medians.get((shape, alt))
        if on is None or c_on is None or (shape, alt) in _reported:
            continue
        _reported.add((shape, alt))
        cost_c, cost_alt = c_on - base, on - base
        external(f"journal, MQI put+get 1KB {shape}: the journal's cost (on - off)",
                 f"{what} ({with_c}): {cost_c * 1e9 / PAIRS:.0f} ns/pair, pays "
                 f"{cost_alt / cost_c if cost_c > 0 else float('inf'):.2f}x (keep at >= 1.5x)",
                 cost_c * 1e9 / PAIRS, f"{alt}, same run", cost_alt * 1e9 / PAIRS)
    listener = _medians.get((shape, "listener"))
    on = _medians.get((shape, "events"))
    if listener is not None and on is not None and (shape, "listener") not in _reported:
        _reported.add((shape, "listener"))
        external(f"journal, MQI put+get 1KB {shape}",
                 f"journal=events: its own cost {(on / listener - 1) * 100:+.1f}%",
                 on * 1e9 / PAIRS, "journal=off + do-nothing raw subscriber, same run",
                 listener * 1e9 / PAIRS)
        external(f"journal, MQI put+get 1KB {shape}",
                 f"do-nothing raw subscriber: {(listener / base - 1) * 100:+.1f}%",
                 listener * 1e9 / PAIRS, "journal=off, same run", base * 1e9 / PAIRS)


@pytest.mark.parametrize("shape", ["with MD", "no MD"])
@pytest.mark.parametrize("level", CONFIGS)
def test_put_get(benchmark, tag, external, systems, level, shape):
    """Queue.put + Queue.get of 1 KB, non-persistent, at one journal level."""
    benchmark.group = f"journal: MQI put+get 1KB, {shape}"
    if level in ("off", "listener", *ALTERNATIVES):
        tag("baseline", ops=PAIRS)
    else:
        tag("subject", ops=PAIRS, goal=1 / 1.15, goal_vs="off")
    run, q, qm = _round(systems[level], shape == "with MD")
    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    _medians[(shape, level)] = benchmark.stats.stats.median
    _report(external, shape)
    q.close()
    qm.disconnect()


# -- each C accelerator beside its library, rounds interleaved ---------------------------------

INTERLEAVED = ("off", "events", "events+pyarrow", "events+pyarrow+xxhash")
PASSES = 11


@pytest.mark.parametrize("shape", ["with MD", "no MD"])
def test_accelerators_interleaved(benchmark, tag, external, systems, shape):
    """The journal's cost (a round at a level minus the ``off`` round of the same pass)
    with its C encoder and C payload hash, and with each replaced by the library that
    could do its work, the four configurations' rounds interleaved pass by pass (each
    pass starts at the next one), so that the host's drifting load falls on all of them:
    the encoder against pyarrow ("events" against "events+pyarrow"), the hash against
    the xxhash package ("events+pyarrow" against "events+pyarrow+xxhash"). A C
    accelerator stays while its median paired cost is >= 1.5x smaller."""
    benchmark.group = f"journal: accelerators, interleaved, MQI put+get 1KB, {shape}"
    tag("subject", ops=PAIRS * len(INTERLEAVED))
    runs = {c: _round(systems[c], shape == "with MD") for c in INTERLEAVED}
    times: dict[str, list[float]] = {c: [] for c in INTERLEAVED}
    passes = itertools.count()

    def one_pass():
        k = next(passes)
        for c in INTERLEAVED[k % 4:] + INTERLEAVED[:k % 4]:
            start = time.perf_counter()
            runs[c][0]()
            times[c].append(time.perf_counter() - start)

    benchmark.pedantic(one_pass, rounds=PASSES, iterations=1, warmup_rounds=1)
    for _, q, qm in runs.values():
        q.close()
        qm.disconnect()

    def cost(config: str, base: str = "off") -> float:
        """Median over the passes (the warm-up left out) of the paired difference, ns a
        pair."""
        pairs = zip(times[config][1:], times[base][1:], strict=True)
        return statistics.median(a - b for a, b in pairs) * 1e9 / PAIRS

    off = statistics.median(times["off"][1:]) * 1e9 / PAIRS
    group = f"journal, MQI put+get 1KB {shape}: accelerators, {PASSES} interleaved passes"
    c_cost, pa_cost, xx_cost = (cost(c) for c in INTERLEAVED[1:])
    external(group, f"journal=off: {off:.0f} ns/pair; the journal's cost with its C encoder",
             c_cost, "the same with pyarrow writing the rows", pa_cost)
    external(group, "the journal's cost with the C payload hash (rows by pyarrow)", pa_cost,
             "the same with the xxhash package hashing", xx_cost)


# -- the journal beside its floor, rounds interleaved ------------------------------------------

FLOOR_PASSES = 9


@pytest.fixture(scope="module")
def journal_floor(tmp_path_factory) -> ctypes.CDLL:
    """native/bench/journal_floor.c with the journal's XXH64, compiled with the core's
    warnings as errors."""
    lib = tmp_path_factory.mktemp("jfloor") / "libjournal_floor.so"
    subprocess.run(
        [os.environ.get("CC", "cc"), "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
         "-shared", "-fPIC", f"-I{ROOT / 'native' / 'include'}",
         str(ROOT / "native/bench/journal_floor.c"), str(ROOT / "native/src/payload_hash.c"),
         "-o", str(lib)],
        check=True,
    )
    floor = ctypes.CDLL(str(lib))
    floor.floor_journal.argtypes = [ctypes.c_int, ctypes.c_uint64, ctypes.c_char_p,
                                    ctypes.c_size_t, ctypes.POINTER(ctypes.c_int64)]
    return floor


def _open_direct(path: Path) -> int:
    """A new file open for writing, with O_DIRECT where the file system takes it."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    try:
        return os.open(path, flags | getattr(os, "O_DIRECT", 0), 0o644)
    except OSError:
        return os.open(path, flags, 0o644)


@pytest.mark.parametrize("shape", ["with MD", "no MD"])
def test_events_beside_floor(benchmark, tag, external, systems, journal_floor, tmp_path,
                             shape):
    """The issue-29 figure: MQI put+get at journal level ``events`` beside ``off`` and
    beside the floor (the ``off`` round plus native/bench/journal_floor.c recording the
    same pairs: two clock reads, the put's XXH64, two 64-byte records in a 1 MiB buffer
    written in bulk, with O_DIRECT where the journal uses it), the three interleaved pass
    by pass on the same host; medians of
    FLOOR_PASSES paired passes. Goal: events <= +20 % against off, or, where the floor
    itself is above that, events at >= 0.8x the floor's speed."""
    benchmark.group = f"journal: events beside off and the floor, MQI put+get 1KB, {shape}"
    tag("subject", ops=PAIRS * 2)
    runs = {c: _round(systems[c], shape == "with MD") for c in ("off", "events")}
    fd = _open_direct(tmp_path / "floor.journal")  # (as the journal's segments)
    offset = ctypes.c_int64(0)
    times: dict[str, list[float]] = {"off": [], "events": [], "floor work": []}

    def floor_work():
        assert journal_floor.floor_journal(fd, PAIRS, PAYLOAD, len(PAYLOAD),
                                           ctypes.byref(offset)) == 0

    work = {"off": runs["off"][0], "events": runs["events"][0], "floor work": floor_work}
    passes = itertools.count()

    def one_pass():
        k = next(passes)
        order = list(work)
        for c in order[k % 3:] + order[:k % 3]:
            start = time.perf_counter()
            work[c]()
            times[c].append(time.perf_counter() - start)

    try:
        benchmark.pedantic(one_pass, rounds=FLOOR_PASSES, iterations=1, warmup_rounds=1)
    finally:
        os.close(fd)
    for _, q, qm in runs.values():
        q.close()
        qm.disconnect()
    per = {c: [t * 1e9 / PAIRS for t in v[1:]] for c, v in times.items()}
    off = statistics.median(per["off"])
    events = statistics.median(per["events"])
    floor = statistics.median(o + w for o, w in zip(per["off"], per["floor work"],
                                                     strict=True))
    loss = statistics.median(e / o - 1 for e, o in zip(per["events"], per["off"],
                                                       strict=True)) * 100
    floor_loss = statistics.median((o + w) / o - 1 for o, w in zip(
        per["off"], per["floor work"], strict=True)) * 100
    group = f"journal, MQI put+get 1KB {shape}: {FLOOR_PASSES} interleaved passes"
    external(group, f"journal=events: {loss:+.1f}% against off (goal <= +20%)", events,
             "journal=off, same passes", off,
             goal_ns=events * 1.2 / (1 + loss / 100))  # (met iff the paired loss <= 20 %)
    external(group, f"floor (off + journal_floor.c): {floor_loss:+.1f}% against off; "
             f"events at {floor / events:.2f}x the floor's speed", events,
             "floor, same passes", floor, goal_ns=max(off * 1.2, floor / 0.8))


# -- the capture's parts, beside what they replace --------------------------------------------


@pytest.mark.parametrize("with_log", [False, True], ids=["no log", "EventLog"])
def test_core_put_get_capture(benchmark, tag, with_log):
    """CoreQueue.put + get_body of 1 KB: what recording both events in an EventLog (in
    C, from the core's descriptor, the put's payload hash included) adds to the core's
    own calls. Each round ends with take(), which empties the log (not timed apart)."""
    from ecb import current
    from tpfemu._lowlevel import CoreQueue, EventLog

    benchmark.group = "journal: core put+get 1KB, events recorded in C"
    tag("subject" if with_log else "baseline", ops=PAIRS)
    q = CoreQueue("BENCH.CAPTURE")
    log = EventLog(current) if with_log else None

    def run():
        put, get = q.put, q.get_body
        for _ in range(PAIRS):
            put(PAYLOAD, 0, 0, log)
            get(0, False, log)
        if log is not None:
            log.take()

    benchmark.pedantic(run, rounds=ROUNDS * 4, iterations=1, warmup_rounds=1)
    q.close()


@pytest.mark.parametrize("impl", ["xxhash", "payload_hashes"])
def test_payload_hash(benchmark, tag, impl):
    """The journal's payload hash (XXH64, seed 42) of PAIRS distinct 1 KB messages: the C
    hash (the one EventLog computes per event; here through payload_hashes, one call)
    beside the xxhash package's (the dev extra's; skipped without it), one call each."""
    from tpfemu._lowlevel import payload_hashes

    benchmark.group = "journal: payload hash (XXH64 seed 42) of 1KB"
    datas = [i.to_bytes(4, "big") + PAYLOAD[4:] for i in range(PAIRS)]
    if impl == "xxhash":
        xxh64 = pytest.importorskip("xxhash").xxh64
        tag("baseline", ops=PAIRS)

        def run():
            for d in datas:
                xxh64(d, seed=42).digest()
    else:
        tag("subject", ops=PAIRS)

        def run():
            payload_hashes(datas)

    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)


@pytest.mark.parametrize("impl", ["os.write", "write_ipc", "pyarrow"])
def test_write_ipc(benchmark, tag, tmp_path, impl):
    """The writer's work on the fast paths' events: EventLog.write_ipc encoding the
    2 * PAIRS events of PAIRS put+get pairs as Arrow record batches and writing them to a
    file, beside os.write of the same bytes (the I/O alone). Recording is not timed."""
    import numpy as np

    from tpfemu._lowlevel import CoreQueue, EventLog
    from tpfemu.journal import rows
    from tpfemu.journal.schema import to_segment

    benchmark.group = "journal: writer, per event (Arrow IPC encoded in C + write)"
    tag("subject" if impl == "write_ipc" else "baseline", ops=2 * PAIRS)
    q = CoreQueue("BENCH.WRITE")
    log = EventLog(lambda: None)
    path = tmp_path / "segment.arrows"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)

    def record():
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        for _ in range(PAIRS):
            q.put(PAYLOAD, 0, 0, log)
            q.get_body(0, False, log)

    def ignore(items, seq0):
        raise AssertionError("no event is emitted in Python here")

    record()
    log.write_ipc(fd, 0, "B", "BENCHQM", 8192, ignore)
    blob = path.read_bytes()  # what write_ipc writes for one round

    if impl == "write_ipc":
        def run():
            log.write_ipc(fd, 0, "B", "BENCHQM", 8192, ignore)

        setup = record
    elif impl == "pyarrow":  # the same rows by tpfemu.journal.rows, serialized by pyarrow
        def run():
            _, records, names, _, _ = log.take()
            recs = np.frombuffer(records, dtype=rows.RECORD)
            for a in range(0, len(recs), 8192):
                os.write(fd, to_segment(rows.record_batch(  # (as write_ipc lays them out)
                    recs[a:a + 8192], names, a, "B", "BENCHQM", None)).serialize())

        setup = record
    else:
        def run():
            os.write(fd, blob)

        def setup():
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)

    try:
        benchmark.pedantic(run, setup=setup, rounds=ROUNDS, warmup_rounds=1)
    finally:
        os.close(fd)
        q.close()


SEGMENT_MIB = 64


@pytest.mark.benchmark(timer=time.thread_time)
@pytest.mark.parametrize("impl", ["os.write", "os.write + advise_behind"])
def test_segment_appends(benchmark, tag, tmp_path, impl):
    """The writer's CPU time (thread_time, so not the waits for the disk) per MiB appended
    to new segments in 1 MiB writes: as it wrote before write-behind (the bytes stay in
    the page cache, so, as segments pile up, each write fills pages the kernel takes
    fresh), beside what it does now (advise_behind after each write: the write-back of
    the new MiB started, and the MiB written two writes before dropped, without waiting;
    at the end, everything waited for and dropped). A round
    writes a segment of SEGMENT_MIB MiB; the segments are kept, as a journal keeps them,
    until the test ends."""
    from tpfemu.journal.writer import advise_behind as write_behind

    benchmark.group = "journal: segment appends, writer CPU per MiB"
    behind = impl != "os.write"
    tag("subject" if behind else "baseline", ops=SEGMENT_MIB)
    chunk = os.urandom(1 << 20)
    fds: list[int] = []

    def setup():
        path = tmp_path / f"segment-{len(fds)}.arrows"
        fds.append(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND))

    def run():
        fd = fds[-1]
        for i in range(SEGMENT_MIB):
            os.write(fd, chunk)
            if behind:
                write_behind(fd, i << 20, (i + 1) << 20, max(i - 2, 0) << 20,
                             max(i - 1, 0) << 20)
        if behind:
            write_behind(fd, SEGMENT_MIB << 20, SEGMENT_MIB << 20,
                         max(SEGMENT_MIB - 2, 0) << 20, SEGMENT_MIB << 20, wait=True)
        os.close(fd)

    benchmark.pedantic(run, setup=setup, rounds=ROUNDS, warmup_rounds=1)
