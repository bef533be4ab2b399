"""The interactive console driven through a pseudo-terminal with keystrokes (pexpect):
`tpfemu run` as an operator types at it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parents[2]
UP = "\x1b[A"
TAB = "\t"
CTRL_D = "\x04"


def _env() -> dict[str, str]:
    return {**os.environ, "TERM": "xterm", "INPUTRC": "/dev/null", "PYTHONPATH": str(ROOT)}


def _console(home: Path, name: str) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "tpfemu", "run", "--home", str(home), "--create", "--name", name,
         "--journal", "off"],
        env=_env(), cwd=str(ROOT), encoding="utf-8", timeout=30, dimensions=(50, 200))
    child.expect_exact(f"{name}/B> ")
    return child


def _type(child: pexpect.spawn, keys: str, prompt: str) -> str:
    """Send keystrokes ending in Enter; return what the terminal showed up to the next prompt."""
    child.send(keys + "\r")
    child.expect_exact(prompt)
    return child.before.replace("\r", "")


def _leave(child: pexpect.spawn) -> None:
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before


def test_arrow_up_recalls_the_last_command_and_history_lives_in_the_home(tmp_path):
    """Arrow-up brings back the previous command for editing; a later session on the same
    home recalls commands of the earlier one."""
    home = tmp_path / "home"
    child = _console(home, "PTYA")
    assert "MQSC0017I" in _type(child, "ZMQSC DEF MQP", "PTYA/B> ")
    shown = _type(child, UP + " REPLACE", "PTYA/B> ")  # recalled, then edited
    assert "ZMQSC DEF MQP REPLACE" in shown and "MQSC0014I B MQP PTYA REPLACED" in shown
    child.send("end\r")
    _leave(child)
    assert "ZMQSC DEF MQP REPLACE" in (home / "console_history").read_text()
    again = _console(home, "PTYA")
    shown = _type(again, UP + UP, "PTYA/B> ")  # end, then DEF MQP REPLACE of the last run
    assert "MQSC0014I B MQP PTYA REPLACED" in shown
    again.send(CTRL_D)
    again.expect_exact("MQSC0041I B STOP QMGR ACCEPTED")  # Ctrl-D is STOP QMGR
    _leave(again)


def test_tab_completes_keywords_and_names_help_shows_keywords_and_end_leaves(tmp_path):
    """Tab completes a keyword (MAXD -> MAXDEPTH-, no blank after the dash) and a queue
    name; HELP DEF lists DEF's keywords; END answers as STOP QMGR and the process exits 0."""
    child = _console(tmp_path / "home", "PTYB")
    _type(child, "ZMQSC DEF MQP", "PTYB/B> ")
    shown = _type(child, "ZMQSC DEF QL-APP.IN MAXD" + TAB + "7", "PTYB/B> ")
    assert "ZMQSC DEF QL-APP.IN MAXDEPTH-7" in shown
    assert "MQSC0010I B QL APP.IN DEFINED" in shown
    shown = _type(child, "ZMQSC DISP QL-APP.I" + TAB, "PTYB/B> ")
    assert "MQSC0020I B QL APP.IN" in shown and "MAXDEPTH  7" in shown
    shown = _type(child, "help DEF", "PTYB/B> ")
    for keyword in ("MAXDEPTH", "TRIGTYPE", "APPLID", "CHLTYPE", "REPLACE"):
        assert keyword in shown, keyword
    assert "Traceback" not in shown
    child.send("end\r")
    child.expect_exact("MQSC0041I B STOP QMGR ACCEPTED")
    _leave(child)


def test_a_script_shows_what_the_same_commands_typed_show(tmp_path):
    """`tpfemu run SCRIPT` prints, line for line, what typing the script's commands at the
    terminal shows: the same prompt, the same commands, the same responses."""
    commands = ["ZMQSC DEF MQP", "ZMQSC DEF QL-APP.IN MAXDEPTH-5 DESCR-'Typed or not'",
                "ZMQSC DISP QL-APP.IN", "DIS QLOCAL(APP.IN)", "ZMQSC ALT QL-APP.IN MAXDEPTH-X",
                "help ALT PROC", "end"]
    script = tmp_path / "session.mqsc"
    script.write_text("* the same commands as a script\n" + "\n".join(commands) + "\n")
    scripted = subprocess.run(
        [sys.executable, "-m", "tpfemu", "run", str(script), "--name", "PTYC"],
        env=_env(), cwd=str(ROOT), capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, check=True).stdout
    child = pexpect.spawn(sys.executable, ["-m", "tpfemu", "run", "--name", "PTYC"],
                          env=_env(), cwd=str(ROOT), encoding="utf-8", timeout=30,
                          dimensions=(50, 250))
    child.expect_exact("PTYC/B> ")
    typed = ["PTYC/B> "]
    for command in commands[:-1]:
        typed.append(_type(child, command, "PTYC/B> ") + "PTYC/B> ")
    child.send("end\r")
    child.expect(pexpect.EOF)
    typed.append(child.before.replace("\r", ""))
    child.close()
    # the terminal's control sequences (bracketed paste) are not text
    shown = "".join(typed).replace("\x1b[?2004h", "").replace("\x1b[?2004l", "")
    assert shown.split("\n") == scripted.split("\n")
