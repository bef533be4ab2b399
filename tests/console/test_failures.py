"""Failures visible when tpfemu is embedded: System.errors, the tpfemu.console logger, and
a repeating dump shown once, then counted."""

from __future__ import annotations

import itertools
import logging
import subprocess
import sys
import textwrap
from pathlib import Path

from tpfemu.system import LOGGER_NAME, System

ROOT = Path(__file__).resolve().parents[2]
_names = itertools.count(1)


def _failing(ecb) -> None:
    raise RuntimeError("account file missing")


def _fail(system: System, times: int) -> None:
    system.programs.load("BAD1", _failing)
    for _ in range(times):
        system.dispatcher.creec("BAD1", b"", b"")
    assert system.dispatcher.wait_idle(10)


def test_a_failed_entry_is_listed_in_errors_and_logged_without_a_console(caplog):
    """Without console=, a program failure's dump goes to the tpfemu.console logger at
    ERROR, and System.errors lists it once with its count."""
    caplog.set_level(logging.INFO, logger=LOGGER_NAME)
    with System.start(name=f"FLR{next(_names)}") as system:
        _fail(system, 3)
        failures = system.errors
    assert [(f.message_id, f.count) for f in failures] == [("CPSE0001E", 3)]
    assert "PGM-BAD1" in failures[0].text
    dumps = [r for r in caplog.records if r.name == LOGGER_NAME and "CPSE0001E" in r.message
             and r.message.startswith("CPSE0001E")]
    assert len(dumps) == 1 and dumps[0].levelno == logging.ERROR
    assert "RuntimeError: account file missing" in dumps[0].message


def test_a_repeating_dump_is_shown_once_then_counted():
    """Five identical failures: one full dump on the console, notes at the 2nd and 4th,
    and at stop the total; every entry still counts as failed."""
    lines: list[str] = []
    with System.start(name=f"FLR{next(_names)}", console=lines.append) as system:
        _fail(system, 5)
        assert system.dispatcher.stats().failed == 5
    full = [line for line in lines if line.startswith("CPSE0001E")]
    assert len(full) == 1
    notes = [line for line in lines if line.startswith("SYST0010W")]
    assert [n.split("REPEATED ")[1].split()[0] for n in notes] == ["2", "4"]
    assert any(line.startswith("SYST0011W") and "5 TIMES IN ALL" in line and "PGM-BAD1" in line
               for line in lines)


def test_different_failures_are_listed_apart_and_warnings_are_not_failures():
    """Two programs failing differently are two entries of System.errors; an I or W line
    (a depth warning, a snapshot) is not a failure."""
    def other(ecb) -> None:
        raise KeyError("no such account")

    with System.start(name=f"FLR{next(_names)}", console=lambda line: None) as system:
        system.programs.load("BAD2", other)
        _fail(system, 2)
        system.dispatcher.creec("BAD2", b"", b"")
        assert system.dispatcher.wait_idle(10)
        system.say("MQSC0070W B QL X DEPTH 9 IS ABOVE QDEPTHHI")
        programs = sorted(f.text.rsplit("PGM-", 1)[1] for f in system.errors)
    assert programs == ["BAD1", "BAD2"]


def test_a_program_using_system_sees_failures_on_stderr_with_no_logging_set_up():
    """A plain Python program (no logging configuration, no console=) gets the dump of a
    failed entry on standard error."""
    program = textwrap.dedent("""
        import tpfemu

        def bad(ecb):
            raise ValueError("embedded failure")

        with tpfemu.System.start(name="EMBD") as system:
            system.programs.load("BAD1", bad)
            system.dispatcher.creec("BAD1", b"", b"")
            system.dispatcher.wait_idle(10)
            print("errors:", [f.message_id for f in system.errors])
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=str(ROOT), timeout=60, check=True)
    assert "errors: ['CPSE0001E']" in done.stdout
    assert "CPSE0001E" in done.stderr and "ValueError: embedded failure" in done.stderr
