"""Held resources and commit scopes, and what EXITC does with those left open."""

from __future__ import annotations

import pytest
from ecb_helpers import WAIT

from ecb import Ecb, ErrorCode, Level, TpfSystemError, run_entry


class Work:
    """A commit participant that records what happened to it."""

    def __init__(self, name: str, log: list) -> None:
        self.name = name
        self.log = log

    def commit(self) -> None:
        self.log.append(("commit", self.name))

    def rollback(self) -> None:
        self.log.append(("rollback", self.name))


def test_hold_and_unhold(make_ecb):
    """A held resource is listed until it is unheld."""
    ecb = make_ecb()
    ecb.hold("REC1")
    ecb.hold(("file", 0x1234))
    assert ecb.held_resources == ("REC1", ("file", 0x1234))
    ecb.unhold("REC1")
    assert ecb.held_resources == (("file", 0x1234),)


def test_hold_twice_is_system_error(make_ecb):
    """Holding a resource this ECB already holds is E0403."""
    ecb = make_ecb()
    ecb.hold("REC1")
    with pytest.raises(TpfSystemError) as info:
        ecb.hold("REC1")
    assert info.value.code is ErrorCode.RESOURCE_ALREADY_HELD


def test_unhold_not_held_is_system_error(make_ecb):
    """Unholding a resource this ECB does not hold is E0404."""
    with pytest.raises(TpfSystemError) as info:
        make_ecb().unhold("REC1")
    assert info.value.code is ErrorCode.RESOURCE_NOT_HELD


def test_outermost_commit_commits_in_order(make_ecb):
    """Committing the only scope commits its participants in enlistment order."""
    log: list = []
    ecb = make_ecb()
    ecb.tx_begin()
    ecb.tx_enlist(Work("a", log))
    ecb.tx_enlist(Work("b", log))
    ecb.tx_commit()
    assert log == [("commit", "a"), ("commit", "b")]
    assert ecb.tx_depth == 0


def test_inner_commit_waits_for_outer(make_ecb):
    """An inner scope's commit defers its work to the outer scope, which decides its fate."""
    log: list = []
    ecb = make_ecb()
    ecb.tx_begin()
    ecb.tx_enlist(Work("outer", log))
    ecb.tx_begin()
    ecb.tx_enlist(Work("inner", log))
    assert ecb.tx_depth == 2
    ecb.tx_commit()
    assert log == []
    ecb.tx_rollback()
    assert log == [("rollback", "inner"), ("rollback", "outer")]


def test_inner_rollback_keeps_outer_work(make_ecb):
    """Rolling back an inner scope undoes only its work; the outer scope can still commit."""
    log: list = []
    ecb = make_ecb()
    ecb.tx_begin()
    ecb.tx_enlist(Work("outer", log))
    ecb.tx_begin()
    ecb.tx_enlist(Work("inner", log))
    ecb.tx_rollback()
    ecb.tx_commit()
    assert log == [("rollback", "inner"), ("commit", "outer")]


def test_failed_commit_rolls_back_the_rest(make_ecb):
    """If a participant's commit fails, the ones after it are rolled back and the error raised."""
    log: list = []

    class Broken(Work):
        def commit(self) -> None:
            raise OSError("disk gone")

    ecb = make_ecb()
    ecb.tx_begin()
    ecb.tx_enlist(Work("a", log))
    ecb.tx_enlist(Broken("b", log))
    ecb.tx_enlist(Work("c", log))
    with pytest.raises(OSError):
        ecb.tx_commit()
    assert log == [("commit", "a"), ("rollback", "c")]


@pytest.mark.parametrize("call", ["tx_commit", "tx_rollback", "tx_enlist"])
def test_scope_calls_without_scope_are_system_errors(make_ecb, call):
    """TXCMC, TXRBC and enlisting with no scope open are E0405."""
    ecb = make_ecb()
    args = (Work("x", []),) if call == "tx_enlist" else ()
    with pytest.raises(TpfSystemError) as info:
        getattr(ecb, call)(*args)
    assert info.value.code is ErrorCode.NO_COMMIT_SCOPE


def test_exit_with_open_scope_rolls_back_and_is_system_error(programs, storage):
    """EXITC with a commit scope open is E0402, after rolling the scope back."""
    log: list = []

    def prog(ecb):
        ecb.tx_begin()
        ecb.tx_enlist(Work("uow", log))
        ecb.exitc()

    programs.load("AAAA", prog)
    ecb = Ecb(programs, storage)
    with pytest.raises(TpfSystemError) as info:
        run_entry(ecb, "AAAA")
    assert info.value.code is ErrorCode.EXIT_SCOPE_OPEN
    assert info.value.macro == "EXITC"
    assert log == [("rollback", "uow")]
    assert ecb.tx_depth == 0


def test_exit_with_held_resource_releases_and_is_system_error(programs, storage):
    """EXITC with a resource held is E0401 naming it, after calling its release callback."""
    released: list = []

    def prog(ecb):
        ecb.hold("REC9", lambda: released.append("REC9"))

    programs.load("AAAA", prog)
    ecb = Ecb(programs, storage)
    with pytest.raises(TpfSystemError) as info:
        run_entry(ecb, "AAAA")
    assert info.value.code is ErrorCode.EXIT_RESOURCES_HELD
    assert "'REC9'" in str(info.value)
    assert released == ["REC9"]
    assert ecb.held_resources == ()


def test_exit_violation_in_dispatcher_dumps_and_counts_failed(programs, disp, storage):
    """An entry exiting with a scope open is dumped (blocks still shown) and counted failed."""
    log: list = []

    def prog(ecb):
        ecb.getcc(Level.D2, 300)
        ecb.tx_begin()
        ecb.tx_enlist(Work("uow", log))

    programs.load("AAAA", prog)
    disp.cremc("AAAA")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.EXIT_SCOPE_OPEN
    assert dump.level(Level.D2).count == 381
    assert log == [("rollback", "uow")]
    assert disp.stats().failed == 1 and disp.stats().completed == 0
    assert sum(storage.usage().values()) == 0


def test_error_with_open_scope_rolls_back_and_notes_it(programs, disp):
    """When an entry fails with a scope open, the scope is rolled back and the dump notes it."""
    log: list = []

    def prog(ecb):
        ecb.tx_begin()
        ecb.tx_enlist(Work("uow", log))
        raise RuntimeError("boom")

    programs.load("AAAA", prog)
    disp.cremc("AAAA")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.code is ErrorCode.PROGRAM_EXCEPTION
    assert log == [("rollback", "uow")]
    assert any("rolled back" in note for note in dump.notes)


def test_at_exit_hooks_run_when_the_entry_ends_however_it_ends():
    """at_exit hooks run, last in first out, after a normal EXITC and after a failure."""
    import threading

    from ecb import Dispatcher, Programs

    ran: list[str] = []
    done = threading.Event()

    def good(ecb):
        ecb.at_exit(lambda: ran.append("good-1"))
        ecb.at_exit(lambda: ran.append("good-2"))
        ecb.exitc()

    def bad(ecb):
        ecb.at_exit(lambda: (ran.append("bad"), done.set()))
        raise RuntimeError("boom")

    programs = Programs()
    programs.load("GOOD", good)
    programs.load("BADP", bad)
    with Dispatcher(programs, istreams=1, console=lambda text: None) as disp:
        disp.cremc("GOOD")
        disp.cremc("BADP")
        assert done.wait(5)
        disp.wait_idle(5)
    assert ran == ["good-2", "good-1", "bad"]


def test_current_names_the_running_entry_only():
    """ecb.current() is the ECB of the entry running on this thread, None elsewhere."""
    import threading

    import ecb as ecb_pkg
    from ecb import Dispatcher, Programs

    seen: list[object] = []
    done = threading.Event()

    def prog(e):
        seen.append(ecb_pkg.current() is e)
        done.set()

    programs = Programs()
    programs.load("CURR", prog)
    assert ecb_pkg.current() is None
    with Dispatcher(programs, istreams=1, console=lambda text: None) as disp:
        disp.cremc("CURR")
        assert done.wait(5)
    assert seen == [True] and ecb_pkg.current() is None


def test_tx_participants_shows_the_innermost_scope():
    """tx_participants lists the innermost scope's participants; a new inner scope starts empty."""
    from ecb import Ecb

    class P:
        def commit(self):
            pass

        def rollback(self):
            pass

    e = Ecb()
    assert e.tx_participants() == ()
    e.tx_begin()
    p1 = P()
    e.tx_enlist(p1)
    e.tx_begin()
    assert e.tx_participants() == ()
    e.tx_commit()
    assert e.tx_participants() == (p1,)
    e.tx_commit()
