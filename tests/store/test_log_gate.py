"""The recovery log's wait for durability: the C gate committers wait on, and what 16
committing threads get from it (every acknowledged commit durable, even after SIGKILL)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

from store_helpers import ROOT, mid

from tpfemu._lowlevel import LogGate
from tpfemu.store import Commit, Put, RecoveryLog


def test_gate_wait_returns_false_until_the_batch_is_finished():
    """A wait on an unfinished batch times out (False); once finished it returns True."""
    gate = LogGate()
    assert gate.finished == 0
    assert gate.wait(1, 0.01) is False
    gate.finish(1)
    assert gate.finished == 1
    assert gate.wait(1, 0) is True
    assert gate.wait(2, 0.01) is False
    gate.finish(1)  # at or below the last finished: no change
    assert gate.finished == 1


def test_gate_finish_wakes_the_waiters_of_the_batches_it_finishes_only():
    """Finishing batch 1 wakes its waiter and leaves the waiter of batch 2 waiting;
    finishing 3 then wakes it (batches up to 3 are finished)."""
    gate = LogGate()
    woke: dict[int, float] = {}

    def waiter(seq: int) -> None:
        gate.wait(seq)  # no limit
        woke[seq] = time.monotonic()

    threads = [threading.Thread(target=waiter, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    time.sleep(0.05)
    assert woke == {}
    gate.finish(1)
    threads[0].join(5)
    assert 1 in woke
    time.sleep(0.05)
    assert 2 not in woke
    gate.finish(3)
    threads[1].join(5)
    assert set(woke) == {1, 2}


def test_sixteen_committers_are_durable_and_share_syncs(home):
    """16 threads committing at once: every commit returns durable (its records replay,
    durable_lsn covers them), and the log wrote fewer batches than there were commits."""
    per_thread = 25
    lsns: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(16)
    with RecoveryLog(home, map_size=8 << 20) as log:

        def work(t: int) -> None:
            start.wait()
            for i in range(per_thread):
                uow = t * 1000 + i + 1
                ticket = log.commit([Put(f"Q{t % 4}", b"x" * 100, mid(uow), uow=uow),
                                     Commit(uow)])  # fmt: skip
                assert ticket.durable
                with lock:
                    lsns.append(ticket.lsn)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(lsns) == 16 * per_thread
        assert log.durable_lsn >= max(lsns) + 1
        puts = {r.lsn for r in log.replay() if r.kind == 1}
        assert puts == set(lsns)
        assert log.stats["batches"] < 16 * per_thread


_KILLED_WORKER = """
import sys, threading
from tpfemu.store import Commit, Put, RecoveryLog
log = RecoveryLog(sys.argv[1], map_size=8 << 20)
out = threading.Lock()
def work(t):
    for i in range(1, 1 << 30):
        uow = t * (1 << 32) + i
        ticket = log.commit([Put("Q", b"%d" % uow, uow.to_bytes(24, "big"), uow=uow),
                             Commit(uow)])
        with out:
            sys.stdout.write(f"{ticket.lsn}\\n")
            sys.stdout.flush()
for t in range(16):
    threading.Thread(target=work, args=(t,), daemon=True).start()
threading.Event().wait()
"""


def test_sigkill_of_sixteen_committers_loses_no_acknowledged_commit(home):
    """A process with 16 committing threads is killed (SIGKILL) mid-flight: every commit
    it acknowledged (printed after ``commit`` returned) is in the log afterwards."""
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_KILLED_WORKER), str(home)], cwd=ROOT,
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    acked: list[int] = []
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            acked.append(int(line))
            if len(acked) == 400:
                proc.send_signal(signal.SIGKILL)
                break
    finally:
        proc.kill()
        rest = proc.communicate(timeout=30)[0]
    acked += [int(line) for line in rest.split("\n") if line.strip().isdigit()]
    assert len(acked) >= 400
    with RecoveryLog(home, map_size=8 << 20) as log:
        puts = {r.lsn for r in log.replay() if r.kind == 1}
    assert set(acked) <= puts
