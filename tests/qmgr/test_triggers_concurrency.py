"""Triggering under concurrent puts: the previous count must be exact however many threads put.

Seed 000 condition 3 ("The number of messages on the queue ... was previously ...") and
point 11 (TRIGINT "to reduce the number of duplicate trigger messages"). The trigger
monitor is an input handle on INIT.Q that never gets, so trigger messages accumulate.
All threads start together at a barrier and are joined with a timeout.
"""

from __future__ import annotations

import sys
import threading
from collections import Counter

import pytest
from trigger_helpers import Env, Recorder

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

JOIN_TIMEOUT = 10.0
ROUNDS = 5  # fresh queues per test: a race that loses one time in a few is seen


@pytest.fixture(autouse=True)
def eager_thread_switches():
    """Switch threads far more often than Python's default 5 ms, so that races show."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def triggers_per_queue(env: Env) -> Counter:
    return Counter(env.trigger_qnames())


def put_concurrently(system: tpfemu.System, qname: str, threads: int, each: int, *,
                     syncpoint: bool = False) -> None:
    """``threads`` threads, each on its own connection, put ``each`` messages to ``qname`` at
    once (committing at the end when ``syncpoint``); fail on any error or a hang."""
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []
    options = CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT

    def worker() -> None:
        try:
            qm = pymqi.connect(system.name)
            q = pymqi.Queue(qm, qname, CMQC.MQOO_OUTPUT)
            barrier.wait(5)
            for _ in range(each):
                q.put(b"concurrent", pymqi.MD(), pymqi.PMO(Options=options))
            if syncpoint:
                qm.commit()
            q.close()
            qm.disconnect()
        except BaseException as exc:  # reported to the test
            errors.append(exc)

    workers = [threading.Thread(target=worker, daemon=True) for _ in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(JOIN_TIMEOUT)
    assert not any(w.is_alive() for w in workers), "a putting thread hung"
    assert errors == []
    assert system.qmgr.queues[qname].core.depth == threads * each


@pytest.mark.parametrize("threads", [2, 4])
def test_first_concurrent_puts_give_exactly_one_trigger(env, threads):
    """Condition 3, FIRST "Zero": of messages put at once by several threads only the one that found
    the queue empty triggers -- exactly one trigger message."""
    env.open_monitor()
    names = [env.app(f"APP.Q{r}", trigtype="FIRST") for r in range(ROUNDS)]
    for name in names:
        put_concurrently(env.s, name, threads, 25)
    env.quiet()
    assert triggers_per_queue(env) == Counter(names)
    assert all(env.s.qmgr.queues[n].trigger_state["fired"] == 1 for n in names)


@pytest.mark.parametrize("threads", [2, 4])
def test_every_concurrent_puts_give_one_trigger_per_message(env, threads):
    """Condition 3, EVERY "Any number": messages put at once by several threads give exactly one
    trigger message each."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    put_concurrently(env.s, "APP.Q", threads, 25)
    env.quiet()
    found = env.triggers()
    assert len(found) == threads * 25
    assert {bytes(tm.QName).strip() for _md, tm, _n in found} == {b"APP.Q"}
    assert len({bytes(md.MsgId) for md, _tm, _n in found}) == threads * 25


def test_depth_concurrent_puts_give_exactly_one_trigger(env):
    """Condition 3, DEPTH "TriggerDepth minus 1": 4 threads putting 25 messages each at once to a
    TRIGDPTH 10 queue give exactly one trigger, and TRIGGER is then off."""
    env.open_monitor()
    names = [env.app(f"APP.Q{r}", trigtype="DEPTH", trigdpth=10) for r in range(ROUNDS)]
    for name in names:
        put_concurrently(env.s, name, 4, 25)
    env.quiet()
    assert triggers_per_queue(env) == Counter(names)
    assert all(env.cat.get("QL", n).trigger == "NO" for n in names)


def test_first_no_duplicates_within_trigint(env):
    """Point 11, "The purpose of the trigger interval is to reduce the number of duplicate trigger
    messages": within a TRIGINT of 60 s, 4 threads putting 25 messages each to a FIRST queue give
    exactly one trigger."""
    env.cat.alter("MQP", trigint=60_000)
    env.open_monitor()
    names = [env.app(f"APP.Q{r}", trigtype="FIRST") for r in range(ROUNDS)]
    for name in names:
        put_concurrently(env.s, name, 4, 25)
    env.quiet()
    assert triggers_per_queue(env) == Counter(names)


def test_first_concurrent_units_of_work_give_exactly_one_trigger(env):
    """Note 3a, uncommitted messages count: 4 threads each putting in its own unit of work to an
    empty FIRST queue give exactly one trigger message, available after the commits."""
    env.open_monitor()
    names = [env.app(f"APP.Q{r}", trigtype="FIRST") for r in range(ROUNDS)]
    for name in names:
        put_concurrently(env.s, name, 4, 10, syncpoint=True)
    env.quiet()
    assert triggers_per_queue(env) == Counter(names)


def test_tpf_first_concurrent_puts_start_one_entry(system):
    """Seed 004 FIRST (no INITQ), "the first time a message arrives on a queue": 4 threads putting
    at once to a newly defined queue start the process program exactly once."""
    recorder = Recorder()
    system.programs.load("PRG1", recorder)
    system.qmgr.catalog.define("PROC", "APP.PROC", applid="PRG1")
    system.qmgr.catalog.define("QL", "TPF.Q", trigger="YES", trigtype="FIRST",
                               process="APP.PROC")
    put_concurrently(system, "TPF.Q", 4, 25)
    assert recorder.wait_for(1)
    assert system.dispatcher.wait_idle(2)
    assert recorder.wait_for(2, timeout=0.15) is False
    assert len(recorder.blocks) == 1


def test_tpf_every_concurrent_puts_start_one_entry_per_message(system):
    """Seed 004 EVERY, "Every time a message arrives on the queue, the TPF system creates a new
    ECB": 4 threads putting 25 messages each at once start CUIR 100 times."""
    recorder = Recorder()
    system.programs.load("CUIR", recorder)
    system.qmgr.catalog.define("QL", "TPF.Q", trigger="YES", trigtype="EVERY")
    put_concurrently(system, "TPF.Q", 4, 25)
    assert recorder.wait_for(100)
    assert system.dispatcher.wait_idle(2)
    assert len(recorder.blocks) == 100
    assert len({b[48:72] for b in recorder.blocks}) == 100, "one entry per distinct MsgId"
