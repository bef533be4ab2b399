"""Quiesce: stop refuses new entries, drains the lists, reports what it could not finish."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from ecb_helpers import WAIT

from ecb import BlockType, DispatcherStopped, Level


def wait_until(predicate: Callable[[], bool], timeout: float = WAIT) -> bool:
    """Poll ``predicate`` until it holds or ``timeout`` passes (for states with no event)."""
    deadline = time.monotonic() + timeout
    pause = threading.Event()
    while not predicate():
        if time.monotonic() > deadline:
            return False
        pause.wait(0.002)
    return True


@pytest.fixture
def gate() -> threading.Event:
    return threading.Event()


def _blocking_program(gate: threading.Event, started: threading.Event):
    def prog(ecb):
        started.set()
        assert gate.wait(WAIT)

    return prog


@pytest.mark.parametrize("macro", ["cremc", "credc", "crexc", "creec", "cretc"])
def test_stopped_dispatcher_refuses_new_entries(programs, disp, macro):
    """After stop, every create macro raises DispatcherStopped naming the macro."""
    disp.stop(1.0)
    args = {"creec": (b"data",), "cretc": (0.1,)}.get(macro, ())
    with pytest.raises(DispatcherStopped) as info:
        getattr(disp, macro)("QZZ1", *args)
    assert macro.upper() in str(info.value)
    assert disp.stats().created == 0


def test_queued_entries_finish_before_stop_returns(programs, disp, gate):
    """Stop waits for the running entry and every queued one, and refuses creates meanwhile."""
    started = threading.Event()
    ran = []
    programs.load("SLOW", _blocking_program(gate, started))
    programs.load("FAST", lambda ecb: ran.append(ecb.params))
    disp.cremc("SLOW")
    assert started.wait(WAIT)
    for n in range(10):
        disp.credc("FAST", bytes([n]))
    result = {}
    stopper = threading.Thread(target=lambda: result.setdefault("clean", disp.stop(WAIT)))
    stopper.start()
    assert wait_until(lambda: disp.state == "quiescing")
    with pytest.raises(DispatcherStopped):
        disp.cremc("FAST")
    gate.set()
    stopper.join(WAIT)
    assert result == {"clean": True}
    assert ran == [bytes([n]) for n in range(10)]
    assert disp.stats().completed == 11


def test_program_creating_during_quiesce_is_refused(programs, disp, gate):
    """A running entry creating an entry while the dispatcher quiesces gets DispatcherStopped."""
    started = threading.Event()
    seen = []

    def prog(ecb):
        started.set()
        assert gate.wait(WAIT)
        try:
            ecb.cremc("MORE")
        except DispatcherStopped as exc:
            seen.append(exc.macro)

    programs.load("SLOW", prog)
    disp.cremc("SLOW")
    assert started.wait(WAIT)
    stopper = threading.Thread(target=disp.stop, args=(WAIT,))
    stopper.start()
    assert wait_until(lambda: disp.state == "quiescing")
    gate.set()
    stopper.join(WAIT)
    assert seen == ["CREMC"]
    assert disp.stats().created == 1


def test_timeout_reports_running_and_discards_queued(programs, disp, console, storage, gate):
    """After the timeout, stop reports the stuck entry and discards (and frees) queued ones."""
    started = threading.Event()

    def stuck(ecb):
        ecb.getcc(Level.D5, BlockType.L1)
        ecb.entrc("WAIT")

    programs.load("STCK", stuck)
    programs.load("WAIT", _blocking_program(gate, started))
    programs.load("FAST", lambda ecb: None)
    disp.cremc("STCK")
    assert started.wait(WAIT)
    disp.creec("FAST", b"x" * 500)
    disp.cremc("FAST")
    assert storage.in_use(BlockType.L2) == 1
    t0 = time.monotonic()
    assert disp.stop(timeout=0.2) is False
    assert time.monotonic() - t0 < WAIT
    report = console.wait_for("ECBQ0003W")
    assert "ECB-1" in report and "STCK > WAIT" in report
    assert "2 queued" in console.wait_for("ECBQ0002W")
    assert storage.in_use(BlockType.L2) == 0
    assert disp.stats().discarded == 2
    assert disp.state == "stopped"
    gate.set()
    assert wait_until(lambda: disp.stats().completed == 1)
    assert storage.in_use(BlockType.L1) == 0


def test_stop_cancels_pending_cretc(programs, disp, console):
    """Pending CRETC requests are cancelled by stop and reported with their program names."""
    ran = []
    programs.load("TIMD", lambda ecb: ran.append(1))
    disp.cretc("TIMD", 30.0)
    disp.cretc("TIMD", 30.0)
    assert disp.stats().timers == 2
    assert disp.stop(1.0) is True
    assert "2 CRETC request(s) cancelled by quiesce: TIMD" in console.wait_for("ECBQ0001W")
    assert disp.stats().timers == 0 and ran == []


def test_stop_of_never_started_dispatcher_discards_queue(programs, make_dispatcher, console):
    """Stopping a dispatcher that never started discards its queued entries and says so."""
    disp = make_dispatcher(1, start=False)
    disp.cremc("QZZ1")
    assert disp.stop(1.0) is False
    assert "1 queued" in console.wait_for("ECBQ0002W")


def test_stop_is_idempotent(disp):
    """A second stop returns True at once."""
    assert disp.stop(1.0) is True
    assert disp.stop(1.0) is True


def test_idle_istreams_exit_on_stop(programs, make_dispatcher):
    """After a clean stop, the I-stream threads have ended."""
    disp = make_dispatcher(2)
    programs.load("QZZ1", lambda ecb: None)
    disp.cremc("QZZ1")
    assert disp.stop(WAIT)
    threads = [s.thread for s in disp._streams]
    for thread in threads:
        thread.join(WAIT)
    assert all(not t.is_alive() for t in threads)


def test_wait_idle_times_out_while_an_entry_runs(programs, disp, gate):
    """wait_idle returns False after its timeout while an entry is still running."""
    started = threading.Event()
    programs.load("SLOW", _blocking_program(gate, started))
    disp.cremc("SLOW")
    assert started.wait(WAIT)
    assert disp.wait_idle(0.05) is False
    assert disp.stats().running == 1
    gate.set()
    assert disp.wait_idle(WAIT) is True
