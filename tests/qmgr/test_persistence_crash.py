"""Crash safety through the MQI: a system killed with SIGKILL at random moments of a
put/get/commit/backout workload (with checkpoints every 0.1 s), then restarted on the same
home. After every restart: no committed persistent message is lost, no uncommitted one is
visible, no committed get is delivered again, and nothing is there twice.

The state is what the restarted system itself shows (the worker browses APP.Q before it
works), so this checks restart as users see it, not only the store underneath.
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

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("mq_crash_worker.py")


class Run:
    """What one run of the worker printed before it was killed."""

    def __init__(self, lines: list[str]) -> None:
        self.present: list[str] | None = [] if "WORK" in lines else None
        self.put_issued: set[str] = set()
        self.put_acked: set[str] = set()
        self.get_issued: set[str] = set()
        self.get_acked: set[str] = set()
        table = {"c": self.put_issued, "C": self.put_acked, "g": self.get_issued,
                 "G": self.get_acked}  # fmt: skip
        for line in lines:
            kind, _, name = line.partition(" ")
            if kind == "Q" and self.present is not None:
                self.present.append(name)
            elif kind in table:
                table[kind].add(name)


def _run_until_killed(home: Path, run: int, seed: int, rng: random.Random) -> Run:
    proc = subprocess.Popen(
        [sys.executable, str(WORKER), str(home), str(run), str(seed)], cwd=ROOT,
        stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    chunks: list[bytes] = []
    working = threading.Event()

    def read() -> None:
        while chunk := proc.stdout.read1(65536):
            chunks.append(chunk)
            if b"WORK\n" in b"".join(chunks[-2:]):
                working.set()

    reader = threading.Thread(target=read)
    reader.start()
    if rng.random() < 0.15:
        time.sleep(rng.uniform(0.2, 0.8))  # often during boot and restart recovery
    else:
        assert working.wait(60), "the worker did not start"
        time.sleep(rng.uniform(0.05, 0.5))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    reader.join()
    text = b"".join(chunks).decode()
    return Run(text[: text.rfind("\n") + 1].splitlines())  # the torn last line is lost


def _crash_loop(home: Path, kills: int, seed: int) -> None:
    rng = random.Random(seed)
    expected: set[str] = set()  # committed persistent messages on the queue
    pending = Run([])  # the work since the last state we saw
    checked = 0
    for run in range(kills + 1):
        result = _run_until_killed(home, run, seed * 1000 + run, rng)
        if result.present is not None:
            present = set(result.present)
            assert len(present) == len(result.present), "a message is on the queue twice"
            known = (expected | pending.put_acked) - pending.get_acked
            lost = known - pending.get_issued - present
            assert not lost, f"run {run}: committed messages lost: {sorted(lost)[:5]}"
            allowed = known | pending.put_issued
            extra = present - allowed
            assert not extra, f"run {run}: never committed, yet present: {sorted(extra)[:5]}"
            again = present & pending.get_acked
            assert not again, f"run {run}: committed gets delivered again: {sorted(again)[:5]}"
            expected, pending = present, Run([])
            checked += 1
        for name in ("put_issued", "put_acked", "get_issued", "get_acked"):
            getattr(pending, name).update(getattr(result, name))
    assert checked >= kills // 2, "most restarts should get to work before the kill"
    assert expected or pending.put_acked, "the workload should leave messages"


def test_sigkill_20_times_through_the_mqi(tmp_path):
    _crash_loop(tmp_path, kills=20, seed=7)


@pytest.mark.slow
def test_sigkill_200_times_through_the_mqi(tmp_path):
    _crash_loop(tmp_path, kills=200, seed=11)
