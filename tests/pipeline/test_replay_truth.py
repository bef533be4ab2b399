"""replay tells the truth: it waits on a full queue (and says so), folds repeated
identical dumps, and hints at a missing --reply-to."""

from __future__ import annotations

from click.testing import CliRunner
from journaldata import T0, ident, row, write

from tpfemu.cli import main

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
    by the system (SYST0011W: 6 in all), exit 1, and a hint that the capture names no
    ReplyToQ."""
    capture = _files(tmp_path, "BROKEN.Q", 6)
    result = CliRunner().invoke(main, [
        "replay", str(capture), "--home", str(tmp_path / "home"), "--script",
        str(tmp_path / "setup.mqsc"), "--programs", str(tmp_path / "progs.py"),
        "--istreams", "1", "--name", "RPLD"])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert sum(line.startswith("CPSE0001E") for line in lines) == 1, result.output
    assert any(line.startswith("SYST0011W") and "OCCURRED 6 TIMES IN ALL" in line
               for line in lines), result.output
    assert "6 failed" in result.output
    assert "hint: 6 of 6 inbound messages name no ReplyToQ" in result.output
