"""ECB runtime benchmarks: entries per second and ENTRC/BACKC pairs per second.

Goal (absolute, not a ratio): **at least 100 000 entries created and completed per second on
one I-stream** for a trivial program (``ecb.exitc()``). The figure is the ops/s printed for
``test_entries_1_istream`` in the summary at the end of the run.

Every subject is measured beside baselines from the same run:

- ``ecb-entries-1is`` / ``ecb-entries-2is``: CREMC of a trivial program and waiting until
  all entries have completed, against a plain Python function call and a
  ``concurrent.futures.ThreadPoolExecutor`` (same number of worker threads) submit + result.
- ``ecb-entrc-backc``: ENTRC to a program that issues BACKC (and one that simply returns),
  against a plain Python call and return.

Run: ``python3 -m pytest bench/bench_ecb.py --benchmark-only -q``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from ecb import Dispatcher, Ecb, Programs

ENTRIES = 20_000
"""Entries per round in the entry benchmarks."""

PAIRS = 50_000
"""ENTRC/BACKC pairs per round."""

ROUNDS = 10


def _trivial(ecb: Ecb) -> None:
    ecb.exitc()


def _plain(arg: object) -> None:
    return None


def _dispatcher(istreams: int) -> Dispatcher:
    programs = Programs()
    programs.load("TRIV", _trivial)
    return Dispatcher(programs, istreams=istreams, console=lambda text: None).start()


def _run_entries(benchmark, istreams: int) -> None:
    disp = _dispatcher(istreams)
    cremc = disp.cremc

    def one_round() -> None:
        for _ in range(ENTRIES):
            cremc("TRIV")
        assert disp.wait_idle(60)

    try:
        benchmark.pedantic(one_round, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    finally:
        disp.stop(5)
    stats = disp.stats()
    assert stats.completed == ENTRIES * (ROUNDS + 1) and stats.failed == 0


def _run_plain_calls(benchmark, count: int) -> None:
    fn = _plain

    def one_round() -> None:
        for _ in range(count):
            fn(None)

    benchmark.pedantic(one_round, rounds=ROUNDS, iterations=1, warmup_rounds=1)


def _run_executor(benchmark, workers: int) -> None:
    with ThreadPoolExecutor(max_workers=workers) as executor:
        submit = executor.submit
        fn = _plain

        def one_round() -> None:
            futures = [submit(fn, None) for _ in range(ENTRIES)]
            for future in futures:
                future.result()

        benchmark.pedantic(one_round, rounds=ROUNDS, iterations=1, warmup_rounds=1)


# -- entries created and completed per second, on one and on two I-streams ---------------------

ISTREAMS = pytest.mark.parametrize("istreams", [1, 2], ids=["1is", "2is"])


@ISTREAMS
def test_entries(benchmark, tag, istreams):
    """CREMC + run + EXITC of a trivial program (goal on one I-stream >= 100 000/s)."""
    benchmark.group = f"ecb-entries-{istreams}is"
    tag("subject", ops=ENTRIES)
    _run_entries(benchmark, istreams)


@ISTREAMS
def test_plain_call(benchmark, tag, istreams):
    """Baseline: a plain Python function call."""
    benchmark.group = f"ecb-entries-{istreams}is"
    tag("baseline", ops=ENTRIES)
    _run_plain_calls(benchmark, ENTRIES)


@ISTREAMS
def test_thread_pool(benchmark, tag, istreams):
    """Baseline: ThreadPoolExecutor(n workers) submit + result of a trivial function."""
    benchmark.group = f"ecb-entries-{istreams}is"
    tag("baseline", ops=ENTRIES)
    _run_executor(benchmark, istreams)


# -- ENTRC/BACKC pairs per second --------------------------------------------------------------


def _run_pairs(benchmark, callee) -> None:
    programs = Programs()

    def caller(ecb: Ecb) -> None:
        entrc = ecb.entrc
        for _ in range(PAIRS):
            entrc("BACK")

    programs.load("LOOP", caller)
    programs.load("BACK", callee)
    disp = Dispatcher(programs, istreams=1, console=lambda text: None).start()

    def one_round() -> None:
        disp.cremc("LOOP")
        assert disp.wait_idle(60)

    try:
        benchmark.pedantic(one_round, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    finally:
        disp.stop(5)
    stats = disp.stats()
    assert stats.failed == 0 and stats.calls["BACK"] == PAIRS * (ROUNDS + 1)


@pytest.mark.benchmark(group="ecb-entrc-backc")
def test_entrc_backc(benchmark, tag):
    """ENTRC to a program that issues BACKC."""
    tag("subject", ops=PAIRS)
    _run_pairs(benchmark, lambda ecb: ecb.backc())


@pytest.mark.benchmark(group="ecb-entrc-backc")
def test_entrc_return(benchmark, tag):
    """ENTRC to a program that simply returns (treated as BACKC)."""
    tag("subject", ops=PAIRS)
    _run_pairs(benchmark, lambda ecb: None)


@pytest.mark.benchmark(group="ecb-entrc-backc")
def test_plain_call_return(benchmark, tag):
    """Baseline: a plain Python call and return."""
    tag("baseline", ops=PAIRS)
    _run_plain_calls(benchmark, PAIRS)
