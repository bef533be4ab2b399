"""Benchmarks of C programs' MQI (issue 28), each beside its baseline from the same run.

Run with ``.venv/bin/python -m pytest bench/bench_cprog.py -p no:randomly``.

Goal (issue 28): a C program's MQPUT + MQGET pair of 1 KB (fresh MQMD_DEFAULT each,
non-persistent, outside syncpoint) at least 2x faster than the same pair made from Python
through ``tpfemu.mqi`` (``Queue.put(data, MD())`` + ``Queue.get(None, MD(), GMO())``).

Two C subjects: a get buffer as long as the queue's MAXMSGL (the get takes the handle's
plan, as Python's ``get(None, ...)`` does), and a 4 KB buffer on a queue whose MAXMSGL is
larger (the get takes the full path, which truncates as IBM's MQGET does).
The C program (bench/cprog/qben.c) runs as the root program of an entry on the test's
thread (``run_entry``), so the figure holds no dispatcher hop.
"""

from __future__ import annotations

import struct

import pytest

import tpfemu.mqi as pymqi
from ecb import Ecb, Programs
from ecb.linkage import run_entry
from tpfemu.cprog.build import compile_program
from tpfemu.cprog.loader import load_program
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager

PAIRS = 2_000
ROUNDS = 10
PAYLOAD = b"x" * 1024


@pytest.fixture(scope="module")
def qmgr():
    manager = QueueManager("CBENCHQM").start()
    manager.catalog.define("MQP")
    manager.catalog.define("QL", "CBENCH.PLAN", maxmsgl=4096)   # buffer 4096 holds MAXMSGL
    manager.catalog.define("QL", "CBENCH.FULL")                 # MAXMSGL 4 MB > buffer
    manager.catalog.define("QL", "CBENCH.PY")
    yield manager
    manager.stop()


@pytest.fixture(scope="module")
def qben(tmp_path_factory):
    """The C program QBEN (bench/cprog/qben.c), built and loaded."""
    from pathlib import Path

    out = tmp_path_factory.mktemp("qben") / "qben.so"
    compile_program([Path(__file__).parent / "cprog" / "qben.c"], out)
    programs = Programs()
    programs.load("QBEN", load_program("QBEN", out))
    return programs


def _c_round(programs, queue: str):
    def run():
        ecb = Ecb(programs, params=queue.encode().ljust(48) + struct.pack("<i", PAIRS))
        run_entry(ecb, "QBEN")
        reason = struct.unpack_from("<i", ecb.ebw, 52)[0]
        assert reason == 0, f"QBEN ended with reason {reason}"

    return run


@pytest.mark.parametrize("queue", ["CBENCH.PLAN", "CBENCH.FULL"])
def test_c_put_get_pair(benchmark, tag, qmgr, qben, queue):
    """C MQPUT + MQGET of 1 KB with fresh MQMD/MQPMO/MQGMO defaults, per pair."""
    benchmark.group = "C MQPUT+MQGET 1KB"
    tag("subject", ops=PAIRS, goal=2.0, goal_vs="python")
    benchmark.pedantic(_c_round(qben, queue), rounds=ROUNDS, iterations=1, warmup_rounds=1)


def test_python_put_get_pair(benchmark, tag, qmgr):
    """Baseline, the same pair from Python through tpfemu.mqi (fresh MD and GMO)."""
    benchmark.group = "C MQPUT+MQGET 1KB"
    benchmark.name = "python"
    tag("baseline", ops=PAIRS)
    qm = pymqi.connect(qmgr.name)
    q = pymqi.Queue(qm, "CBENCH.PY", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    md_type, gmo_type = pymqi.MD, pymqi.GMO

    def run():
        for _ in range(PAIRS):
            q.put(PAYLOAD, md_type())
            q.get(None, md_type(), gmo_type())

    benchmark.pedantic(run, rounds=ROUNDS, iterations=1, warmup_rounds=1)
    q.close()
    qm.disconnect()
