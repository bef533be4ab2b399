"""replay tells the truth: it waits on a full queue (and says so), folds repeated
identical dumps, and hints at a missing --reply-to."""

from __future__ import annotations

from click.testing import CliRunner
from journaldata import T0, ident, row, write

from tpfemu.cli import main
from tpfemu.pipeline.replay import DumpFolder

SLOW = '''
import time
import tpfemu.mqi as mqi
from tpfemu.mq.headers import TMC2
from tpfemu.mqi import CMQC
from ecb import Level

def slow(ecb):
    tmc2 = TMC2().unpack(bytes(ecb.block(Level.D0)[:732]))
    qm = mqi.connect(bytes(tmc2.QMgrName).strip().decode())
    q = mqi.Queue(qm, bytes(tmc2.QName).strip().decode(), CMQC.MQOO_INPUT_SHARED)
    try:
        while True:
            try:
                q.get(None, mqi.MD())
            except mqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            time.sleep(0.01)
    finally:
        q.close()
        qm.disconnect()
    ecb.exitc()

def broken(ecb):
    raise RuntimeError("no reply queue")

def load(system):
    system.programs.load("SLOW", slow)
    system.programs.load("BRKN", broken)
'''

SETUP = """ZMQSC DEF MQP
ZMQSC DEF PROC-SLOW.PROC APPLID-SLOW
ZMQSC DEF QL-SMALL.Q TRIGTYPE-EVERY PROCESS-SLOW.PROC MAXDEPTH-3
ZMQSC DEF PROC-BRKN.PROC APPLID-BRKN
ZMQSC DEF QL-BROKEN.Q TRIGTYPE-EVERY PROCESS-BRKN.PROC
"""


def _files(tmp_path, queue, n):
    (tmp_path / "progs.py").write_text(SLOW)
    (tmp_path / "setup.mqsc").write_text(SETUP)
    rows = [row("put", queue, T0 + i, msg_id=ident(f"r{i}"), data=b"req %d" % i)
            for i in range(n)]
    return write(rows, tmp_path / "capture.parquet")


def test_a_full_queue_is_waited_on_and_shown(tmp_path):
    """Twenty messages put back to back on a queue of MAXDEPTH 3 that a slow program
    drains: every put succeeds after waiting, and the output says it waited."""
    capture = _files(tmp_path, "SMALL.Q", 20)
    result = CliRunner().invoke(main, [
        "replay", str(capture), "--home", str(tmp_path / "home"), "--script",
        str(tmp_path / "setup.mqsc"), "--programs", str(tmp_path / "progs.py"),
        "--istreams", "1", "--name", "RPLF"])
    assert result.exit_code == 0, result.output
    assert "replayed 20 inbound messages" in result.output
    assert "SMALL.Q is full; waiting for the programs to drain it" in result.output
    assert "puts found their queue full" in result.output


def test_repeated_dumps_folded_and_reply_to_hinted(tmp_path):
    """A program that fails on every message: one dump shown whole, the repeats counted
    on one line, exit 1, and a hint that the capture names no ReplyToQ."""
    capture = _files(tmp_path, "BROKEN.Q", 6)
    result = CliRunner().invoke(main, [
        "replay", str(capture), "--home", str(tmp_path / "home"), "--script",
        str(tmp_path / "setup.mqsc"), "--programs", str(tmp_path / "progs.py"),
        "--istreams", "1", "--name", "RPLD"])
    assert result.exit_code == 1
    assert result.output.count("SYSTEM ERROR") == 1, result.output
    assert "the same dump 5 more times" in result.output
    assert "6 failed" in result.output
    assert "hint: 6 of 6 inbound messages name no ReplyToQ" in result.output


def test_dump_folder_keeps_different_dumps_and_other_lines():
    """Dumps that differ only in time, I-stream and ECB fold; a different error, or any
    other line, ends the run of repeats and shows its count first."""
    shown: list[str] = []
    fold = DumpFolder(shown.append)

    def dump(ecb, error="ValueError: x"):
        return (f"CPSE0001E 10:00:0{ecb}.123 IS-0{ecb} SYSTEM ERROR SE-E0001 PROG ECB-{ecb} "
                f"PGM-ABCD\n  ERROR    {error}\n  ORIGIN   None")

    for text in (dump(1), dump(2), dump(3), "a console line", dump(4), dump(5, "KeyError")):
        fold(text)
    fold.close()
    assert shown == [dump(1), "... the same dump 2 more times", "a console line", dump(4),
                     dump(5, "KeyError")]
    assert fold.dumps == 5


def test_dump_folder_takes_the_systems_repeat_notes_as_counts():
    """The system's own SYST0010W/SYST0011W notes of a repeating dump are not echoed (they
    repeat the dump's header): they count as repeats, or, after other lines, give the
    total in one short line."""
    shown: list[str] = []
    fold = DumpFolder(shown.append)
    dump = ("CPSE0001E 10:00:01.123 IS-01 SYSTEM ERROR SE-E0001 PROG ECB-1 PGM-ABCD\n"
            "  ERROR    ValueError: x")
    for text in (dump, "SYST0010W B DUMP REPEATED 2 TIMES (SHOWN ONCE): CPSE0001E SYSTEM "
                 "ERROR", "a console line", "SYST0011W B DUMP OCCURRED 6 TIMES IN ALL: "
                 "CPSE0001E SYSTEM ERROR"):
        fold(text)
    fold.close()
    assert shown == [dump, "... the same dump 1 more time", "a console line",
                     "... the same dump 5 more times in all (a dump shown above)"]
    assert fold.dumps == 2
