"""Crash safety: a workload process killed with SIGKILL at random moments, then recovered.

After every kill: no acknowledged persistent message is lost, no message whose commit was
never issued is present, no acknowledged get comes back, and every message's descriptor
and data are undamaged. The next run continues on the same home (recovering, with a new
incarnation), so kills also land during recovery, checkpoints and trims.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from store_helpers import ROOT

from tpfemu.store import recover

WORKER = Path(__file__).with_name("crash_worker.py")


class Events:
    """What one run of the worker printed before it was killed."""

    def __init__(self, lines: list[str]) -> None:
        self.ready = "READY" in lines
        self.put_issued: dict[str, set[int]] = {}
        self.put_acked: dict[str, set[int]] = {}
        self.get_issued: dict[str, set[int]] = {}
        self.get_acked: dict[str, set[int]] = {}
        table = {"C": self.put_issued, "P": self.put_acked, "g": self.get_issued,
                 "G": self.get_acked}  # fmt: skip
        for line in lines:
            kind, _, rest = line.partition(" ")
            if kind in table:
                queue, keys = rest.split(" ")
                table[kind].setdefault(queue, set()).update(map(int, keys.split(",")))

    def of(self, table: dict[str, set[int]], queue: str) -> set[int]:
        return table.get(queue, set())


def _run_until_killed(home: Path, seed: int, rng: random.Random) -> Events:
    """Start the worker, SIGKILL it at a random moment, return its complete lines."""
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(home), str(seed)], cwd=ROOT,
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    chunks: list[bytes] = []
    ready = threading.Event()

    def read() -> None:
        while chunk := proc.stdout.read1(65536):
            chunks.append(chunk)
            if b"READY\n" in chunks[0] or (len(chunks) > 1 and b"READY\n" in b"".join(chunks)):
                ready.set()

    reader = threading.Thread(target=read)
    reader.start()
    if rng.random() < 0.2:
        time.sleep(rng.uniform(0.0, 0.3))  # anywhere: during open, recovery or work
    else:
        assert ready.wait(30), "the worker did not start"
        time.sleep(rng.uniform(0.02, 0.3))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reader.join()
    text = b"".join(chunks).decode()
    complete = text[: text.rfind("\n") + 1]  # the line being written when killed is lost
    return Events(complete.splitlines())


def _check_recovery(home: Path, expected: dict[str, set[int]], events: Events) -> None:
    """Recover ``home`` and check it against what was acknowledged; update ``expected``."""
    recovered = recover(home)
    for queue in set(expected) | set(recovered) | set(events.put_issued):
        known = expected.setdefault(queue, set())
        known |= events.of(events.put_acked, queue)
        known -= events.of(events.get_acked, queue)
        messages = recovered.get(queue, [])
        keys = [m.key for m in messages]
        present = set(keys)
        assert keys == sorted(keys), f"{queue}: not in put order"
        lost = known - events.of(events.get_issued, queue) - present
        assert not lost, f"{queue}: acknowledged messages lost: {sorted(lost)}"
        allowed = known | events.of(events.put_issued, queue)
        assert present <= allowed, f"{queue}: never committed: {sorted(present - allowed)}"
        again = present & events.of(events.get_acked, queue)
        assert not again, f"{queue}: acknowledged gets came back: {sorted(again)}"
        for m in messages:
            assert bytes(m.data) == b"data-" + m.msg_id, f"{queue}: data damaged at {m.key}"
            assert m.priority == int.from_bytes(m.msg_id, "big") % 10
        expected[queue] = present


def _crash_loop(home: Path, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    expected: dict[str, set[int]] = {}
    ran = 0
    for run in range(kills):
        events = _run_until_killed(home, seed * 1000 + run + 1, rng)
        ran += events.ready
        _check_recovery(home, expected, events)
    assert ran >= kills // 2, "most runs should get past recovery before the kill"
    assert sum(map(len, expected.values())) > 0, "the workload should leave messages"


def test_sigkill_at_random_moments_loses_nothing_acknowledged(tmp_path):
    """20 SIGKILLs of a 4-thread put/get/commit/checkpoint workload: every recovery holds
    exactly the committed state (modulo commits in flight at the kill)."""
    _crash_loop(tmp_path / "home", kills=20, seed=1)


@pytest.mark.slow
def test_sigkill_200_times_loses_nothing_acknowledged(tmp_path):
    """200 SIGKILLs of the same workload on one home: the same guarantees every time."""
    _crash_loop(tmp_path / "home", kills=200, seed=2)
