"""Benchmarks of C programs' MQI (issue 28), each beside its baseline from the same run.

Run with ``.venv/bin/python -m pytest bench/bench_cprog.py -p no:randomly``.

Goal (issue 28): a C program's MQPUT + MQGET pair of 1 KB (fresh MQMD_DEFAULT each,
non-persistent, outside syncpoint) at least 2x faster than the same pair made from Python
through ``tpfemu.mqi`` (``Queue.put(data, MD())`` + ``Queue.get(None, MD(), GMO())``).

Two C subjects: a get buffer as long as the queue's MAXMSGL (the put and the get take
the handle's plans through their raw entry, tpf/plan_raw.h, on the C structures in
place), and a 4 KB buffer on a queue whose MAXMSGL is larger (the get takes the full
path, which truncates as IBM's MQGET does). The C program (bench/cprog/qben.c) runs as
the root program of an entry on the test's thread (``run_entry``), so the figure holds
no dispatcher hop.

``test_c_pair_cpu_time_and_floor`` measures the planned C pair and the Python pair
interleaved, in CPU time of the thread (robust on a loaded machine, where wall-clock
rounds of the two differ by more than the ratio) and in wall time, beside the floor: the
core's put+get pair of 1 KB in C with no Python at all (native/bench/bench_core.c, depth
0), which a C program's pair must do as well as take the GIL twice. The pair is timed
the same way on both sides: the loop of pairs alone (QBEN times its own loop, after one
untimed pair that makes the handle's plans; the Python loop runs on a handle whose plans
earlier rounds made). The C round as a whole (the entry, MQCONN, MQOPEN, the first pair
by the full path, MQDISC: some 150 us) is reported too, per pair.
"""

from __future__ import annotations

import os
import statistics
import struct
import subprocess
import time
from pathlib import Path

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
    out = tmp_path_factory.mktemp("qben") / "qben.so"
    compile_program([Path(__file__).parent / "cprog" / "qben.c"], out)
    programs = Programs()
    programs.load("QBEN", load_program("QBEN", out))
    return programs


def _c_round(programs, queue: str):
    """A round of PAIRS pairs by QBEN: returns its timed loop's (CPU ns, wall ns) and the
    number of pairs timed."""
    def run():
        ecb = Ecb(programs, params=queue.encode().ljust(48) + struct.pack("<i", PAIRS))
        run_entry(ecb, "QBEN")
        reason, cpu, wall = struct.unpack_from("<iqq", ecb.ebw, 52)
        assert reason == 0, f"QBEN ended with reason {reason}"
        return cpu, wall, PAIRS - 1

    return run


@pytest.mark.parametrize("queue", ["CBENCH.PLAN", "CBENCH.FULL"])
def test_c_put_get_pair(benchmark, tag, qmgr, qben, queue):
    """C MQPUT + MQGET of 1 KB with fresh MQMD/MQPMO/MQGMO defaults, per pair (the goal
    is the planned pair's; CBENCH.FULL, a buffer shorter than MAXMSGL, shows the full
    path's cost beside it)."""
    benchmark.group = "C MQPUT+MQGET 1KB"
    if queue == "CBENCH.PLAN":
        tag("subject", ops=PAIRS, goal=2.0, goal_vs="python")
    else:
        tag("subject", ops=PAIRS)
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


ROOT = Path(__file__).resolve().parent.parent


def _core_floor_ns(tmp_path: Path) -> float:
    """The core's put+get pair of 1 KB at depth 0 in C, no Python (median of 3 runs)."""
    exe = tmp_path / "bench_core"
    src = sorted(str(p) for p in (ROOT / "native" / "src").glob("*.c"))
    subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O2", "-pthread",
                    f"-I{ROOT / 'native' / 'include'}", *src,
                    str(ROOT / "native/bench/bench_core.c"), "-o", str(exe)], check=True)
    runs = []
    for _ in range(3):
        out = subprocess.run([str(exe), "0", "2000000", "1024"], check=True,
                             capture_output=True, text=True).stdout
        runs.append(float(dict(line.split() for line in out.splitlines()
                               if line.split()[0].endswith("_ns"))["core_put_get_ns"]))
    return statistics.median(runs)


def test_c_pair_cpu_time_and_floor(tmp_path, qmgr, qben, external):
    """The planned C pair and the Python pair, interleaved rounds in thread CPU time
    (goal: the C pair in half Python's), beside the core-only floor."""
    qm = pymqi.connect(qmgr.name)
    q = pymqi.Queue(qm, "CBENCH.PY", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    md_type, gmo_type = pymqi.MD, pymqi.GMO

    def python_round():
        for _ in range(PAIRS):
            q.put(PAYLOAD, md_type())
            q.get(None, md_type(), gmo_type())

    c_round = _c_round(qben, "CBENCH.PLAN")
    c_cpu, c_wall, c_entry, py_cpu, py_wall = [], [], [], [], []
    for _ in range(3 * ROUNDS):
        start = time.thread_time()
        cpu, wall, timed = c_round()
        c_entry.append((time.thread_time() - start) / PAIRS * 1e9)
        c_cpu.append(cpu / timed)
        c_wall.append(wall / timed)
        start, start_wall = time.thread_time(), time.perf_counter()
        python_round()
        py_cpu.append((time.thread_time() - start) / PAIRS * 1e9)
        py_wall.append((time.perf_counter() - start_wall) / PAIRS * 1e9)
    q.close()
    qm.disconnect()
    py, pyw, subject = statistics.median(py_cpu), statistics.median(py_wall), "C pair"
    external("C MQPUT+MQGET 1KB, CPU time", subject, statistics.median(c_cpu),
             "Python pair through tpfemu.mqi", py, goal_ns=py / 2)
    external("C MQPUT+MQGET 1KB, wall time", subject, statistics.median(c_wall),
             "Python pair through tpfemu.mqi", pyw, goal_ns=pyw / 2)
    external("C MQPUT+MQGET 1KB, CPU time", "C round with its entry, per pair",
             statistics.median(c_entry), "Python pair through tpfemu.mqi", py)
    external("C MQPUT+MQGET 1KB, CPU time", subject, statistics.median(c_cpu),
             "floor: core put+get 1KB in C, no Python", _core_floor_ns(tmp_path))
