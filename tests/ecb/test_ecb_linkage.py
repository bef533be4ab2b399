"""Program linkage: ENTRC/BACKC, ENTNC, ENTDC, EXITC and the nesting limit."""

from __future__ import annotations

import pytest
from ecb_helpers import WAIT

from ecb import ControlTransfer, Ecb, ErrorCode, Level, TpfSystemError, run_entry


@pytest.fixture
def trace() -> list:
    return []


def _run(programs, storage, name: str, **kwargs) -> Ecb:
    """Run ``name`` as an entry on a standalone ECB, synchronously; return the ECB."""
    ecb = Ecb(programs, storage, **kwargs)
    run_entry(ecb, name)
    return ecb


def test_entrc_returns_after_backc(programs, storage, trace):
    """ENTRC runs the callee and continues after it once the callee issues BACKC."""

    def caller(ecb):
        trace.append(("A", ecb.programs))
        ecb.entrc("BBBB")
        trace.append(("A", ecb.programs))

    def callee(ecb):
        trace.append(("B", ecb.programs))
        ecb.backc()
        trace.append("not reached")

    programs.load("AAAA", caller)
    programs.load("BBBB", callee)
    _run(programs, storage, "AAAA")
    assert trace == [("A", ("AAAA",)), ("B", ("AAAA", "BBBB")), ("A", ("AAAA",))]


def test_callee_returning_is_backc(programs, storage, trace):
    """A program entered with ENTRC that simply returns goes back to its caller."""
    programs.load("AAAA", lambda ecb: (ecb.entrc("BBBB"), trace.append("after")))
    programs.load("BBBB", lambda ecb: trace.append("callee"))
    _run(programs, storage, "AAAA")
    assert trace == ["callee", "after"]


def test_root_returning_is_exitc(programs, storage):
    """A root program that returns ends the entry like EXITC: its blocks are released."""
    programs.load("AAAA", lambda ecb: ecb.getcc(Level.D0, 10))
    ecb = _run(programs, storage, "AAAA")
    ecb._release_storage()
    assert not ecb.active
    assert sum(storage.usage().values()) == 0


def test_exitc_from_nested_program_ends_entry(programs, storage, trace):
    """EXITC in a program entered with ENTRC ends the whole entry; the caller never resumes."""

    def caller(ecb):
        ecb.entrc("BBBB")
        trace.append("caller resumed")

    programs.load("AAAA", caller)
    programs.load("BBBB", lambda ecb: (trace.append("exit"), ecb.exitc()))
    _run(programs, storage, "AAAA")
    assert trace == ["exit"]


def test_entnc_transfers_without_return(programs, storage, trace):
    """ENTNC runs the named program in place of the issuer, which never continues."""

    def first(ecb):
        ecb.entnc("BBBB")
        trace.append("not reached")

    programs.load("AAAA", first)
    programs.load("BBBB", lambda ecb: trace.append(ecb.programs))
    _run(programs, storage, "AAAA")
    assert trace == [("BBBB",)]


def test_entnc_from_callee_returns_to_original_caller(programs, storage, trace):
    """ENTNC from an ENTRC'd program replaces it; the later BACKC returns to the ENTRC issuer."""

    def a(ecb):
        ecb.entrc("BBBB")
        trace.append(("A", ecb.programs))

    programs.load("AAAA", a)
    programs.load("BBBB", lambda ecb: ecb.entnc("CCCC"))
    programs.load("CCCC", lambda ecb: (trace.append(("C", ecb.programs)), ecb.backc()))
    _run(programs, storage, "AAAA")
    assert trace == [("C", ("AAAA", "CCCC")), ("A", ("AAAA",))]


def test_entdc_at_root_transfers(programs, storage, trace):
    """ENTDC with no ENTRC outstanding drops the issuer and makes the named program the root."""
    programs.load("AAAA", lambda ecb: ecb.entdc("BBBB"))
    programs.load("BBBB", lambda ecb: trace.append(ecb.programs))
    _run(programs, storage, "AAAA")
    assert trace == [("BBBB",)]


def test_entdc_between_entrc_and_backc_is_system_error(programs, storage):
    """ENTDC issued by a program entered with ENTRC is E0203 naming ENTDC and the issuer."""
    programs.load("AAAA", lambda ecb: ecb.entrc("BBBB"))
    programs.load("BBBB", lambda ecb: ecb.entdc("CCCC"))
    programs.load("CCCC", lambda ecb: None)
    with pytest.raises(TpfSystemError) as info:
        _run(programs, storage, "AAAA")
    assert info.value.code is ErrorCode.ENTDC_RETURN_PENDING
    assert info.value.macro == "ENTDC" and info.value.program == "BBBB"


def test_backc_at_root_is_system_error(programs, storage):
    """BACKC with no ENTRC outstanding is E0204."""
    programs.load("AAAA", lambda ecb: ecb.backc())
    with pytest.raises(TpfSystemError) as info:
        _run(programs, storage, "AAAA")
    assert info.value.code is ErrorCode.BACKC_NO_RETURN


@pytest.mark.parametrize("macro", ["entrc", "entnc", "entdc"])
def test_unknown_program_in_linkage_is_system_error(programs, storage, macro):
    """ENTRC/ENTNC/ENTDC to an unloaded program is E0201 naming the program and the issuer."""
    programs.load("AAAA", lambda ecb: getattr(ecb, macro)("GONE"))
    with pytest.raises(TpfSystemError) as info:
        _run(programs, storage, "AAAA")
    assert info.value.code is ErrorCode.PROGRAM_NOT_FOUND
    assert info.value.macro == macro.upper()
    assert "GONE" in str(info.value) and info.value.program == "AAAA"


def test_nesting_limit(programs, storage):
    """ENTRC may nest up to max_nesting program levels; one more is E0202."""
    depths = []

    def recurse(ecb):
        depths.append(ecb.nesting)
        ecb.entrc("RECU")

    programs.load("RECU", recurse)
    with pytest.raises(TpfSystemError) as info:
        _run(programs, storage, "RECU", max_nesting=5)
    assert info.value.code is ErrorCode.NESTING_LIMIT
    assert depths == [1, 2, 3, 4, 5]
    assert "5 program levels" in str(info.value)


def test_nesting_counts_only_outstanding_entrc(programs, storage):
    """Levels are freed by BACKC and not used by ENTNC, so long chains stay within the limit."""
    count = {"n": 0}

    def root(ecb):
        for _ in range(20):
            ecb.entrc("LEAF")
        ecb.entnc("HOP1")

    def hop(ecb):
        count["n"] += 1
        if count["n"] < 20:
            ecb.entnc("HOP1")

    programs.load("ROOT", root)
    programs.load("LEAF", lambda ecb: ecb.entrc("LEAG"))
    programs.load("LEAG", lambda ecb: ecb.backc())
    programs.load("HOP1", hop)
    _run(programs, storage, "ROOT", max_nesting=3)
    assert count["n"] == 20


def test_except_exception_does_not_swallow_control_transfer(programs, storage, trace):
    """A program's ``except Exception`` lets EXITC, BACKC and ENTNC through."""

    def guarded(ecb):
        try:
            ecb.entrc("BBBB")
            trace.append("back")
            ecb.entnc("CCCC")
        except Exception:  # noqa: BLE001 - the point of the test
            trace.append("swallowed")

    def callee(ecb):
        try:
            ecb.backc()
        except Exception:
            trace.append("swallowed")

    def last(ecb):
        try:
            ecb.exitc()
        except Exception:
            trace.append("swallowed")
        trace.append("after exitc")

    programs.load("AAAA", guarded)
    programs.load("BBBB", callee)
    programs.load("CCCC", last)
    _run(programs, storage, "AAAA")
    assert trace == ["back"]
    assert issubclass(ControlTransfer, BaseException)
    assert not issubclass(ControlTransfer, Exception)


def test_caught_error_in_callee_restores_program_stack(programs, storage, trace):
    """If a caller catches an error raised in its callee, its program stack is its own again."""

    def caller(ecb):
        try:
            ecb.entrc("BBBB")
        except TpfSystemError as exc:
            trace.append((exc.code, ecb.programs))
        ecb.entrc("CCCC")

    programs.load("AAAA", caller)
    programs.load("BBBB", lambda ecb: ecb.relcc(Level.D0))
    programs.load("CCCC", lambda ecb: trace.append(ecb.programs))
    _run(programs, storage, "AAAA")
    assert trace == [(ErrorCode.LEVEL_EMPTY, ("AAAA",)), ("AAAA", "CCCC")]


def test_calls_are_counted_per_program(programs, storage):
    """Every entry into a program (root, ENTRC, ENTNC, ENTDC) counts one call."""
    calls: dict[str, int] = {}

    def root(ecb):
        ecb.entrc("BBBB")
        ecb.entrc("BBBB")
        ecb.entdc("CCCC")

    programs.load("AAAA", root)
    programs.load("BBBB", lambda ecb: ecb.entnc("DDDD"))
    programs.load("CCCC", lambda ecb: None)
    programs.load("DDDD", lambda ecb: None)
    _run(programs, storage, "AAAA", calls=calls)
    assert calls == {"AAAA": 1, "BBBB": 2, "DDDD": 2, "CCCC": 1}


def test_dump_shows_program_stack_at_the_error(programs, disp):
    """The dump of an error raised three levels deep lists all three programs, root first."""
    programs.load("AAAA", lambda ecb: ecb.entrc("BBBB"))
    programs.load("BBBB", lambda ecb: ecb.entrc("CCCC"))
    programs.load("CCCC", lambda ecb: 1 / 0)
    disp.cremc("AAAA")
    assert disp.wait_idle(WAIT)
    (dump,) = disp.dumps
    assert dump.programs == ("AAAA", "BBBB", "CCCC")
    assert dump.code is ErrorCode.PROGRAM_EXCEPTION
    assert "ZeroDivisionError" in dump.text and "AAAA > BBBB > CCCC" in dump.text
