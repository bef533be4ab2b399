"""A complex of two processors: this process runs CPU B, an OS process started with
``tpfemu run --home HOME --cpu C`` runs CPU C on the same home. Object definitions are
common to the complex; the contents of processor-unique queues are not (seed 004)."""

from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

ROOT = Path(__file__).resolve().parents[2]
QMGR = "CPLX"


class Processor:
    """``tpfemu run`` as an operator would use it, on a pipe."""

    def __init__(self, home: Path, cpu: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tpfemu", "run", "--home", str(home), "--cpu", cpu,
             "--name", QMGR, "--journal", "off"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def send(self, command: str) -> None:
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def expect(self, pattern: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line matching {pattern!r} within {timeout} s") from None
            if re.search(pattern, line):
                return line

    def until(self, command: str, pattern: str, timeout: float = 10.0) -> str:
        """Repeat ``command`` until a line of its answer matches (another processor's
        change arrives within the follower's poll interval)."""
        deadline = time.monotonic() + timeout
        while True:
            self.send(command)
            try:
                return self.expect(pattern, timeout=1.0)
            except AssertionError:
                if time.monotonic() > deadline:
                    raise

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.send("ZMQSC STOP QMGR")
            self.proc.stdin.close()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def complex_(tmp_path):
    b = tpfemu.System.start(QMGR, tmp_path, "B", journal="off")
    b.console("ZMQSC DEF MQP")
    c = Processor(tmp_path, "C")
    c.expect(r"^C> |INET0009I C")  # booted
    yield b, c
    c.stop()
    b.stop()


def _eventually(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the other processor's change did not arrive"
        time.sleep(0.05)


def test_definitions_are_common_to_the_complex(complex_):
    b, c = complex_
    assert "DEFINED" in b.console("ZMQSC DEF QL-APP.X MAXDEPTH-100")
    c.until("ZMQSC DISP QL-APP.X", r"MAXDEPTH\s+100\b")
    c.send("ZMQSC ALT QL-APP.X MAXDEPTH-250")
    c.expect(r"MQSC0011I C QL APP.X ALTERED")
    _eventually(lambda: b.qmgr.catalog.find_queue("APP.X").maxdepth == 250)
    c.send("ZMQSC DEF PROC-APP.P APPLID-QZZ1")
    _eventually(lambda: b.qmgr.catalog.find_process("APP.P") is not None)
    c.send("ZMQSC DEL QL-APP.X")
    _eventually(lambda: b.qmgr.catalog.find_queue("APP.X") is None)
    assert "APP.X" not in b.qmgr.queues  # the live queue went with it


def test_processor_unique_queue_contents_are_not_shared(complex_):
    b, c = complex_
    b.console("ZMQSC DEF QL-UNIQUE.Q")
    c.until("ZMQSC DISP QL-UNIQUE.Q", r"CURDEPTH\s+0\b")
    q = pymqi.Queue(pymqi.connect(QMGR), "UNIQUE.Q", CMQC.MQOO_OUTPUT)
    for _ in range(3):
        q.put(b"only on B", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert b.qmgr.local_queue("UNIQUE.Q").core.depth == 3
    c.send("ZMQSC DISP QL-UNIQUE.Q")
    c.expect(r"CURDEPTH\s+0\b")  # C's memory queue of the same name is its own
    # a processor that still has messages keeps its queue when another deletes it
    c.send("ZMQSC DEL QL-UNIQUE.Q")
    c.expect(r"MQSC0013I C QL UNIQUE.Q DELETED")
    try:
        _eventually(lambda: any("UNIQUE.Q' kept" in line for line in b.log))
    except AssertionError:
        raise AssertionError(list(b.log)[-5:]) from None
    assert b.qmgr.local_queue("UNIQUE.Q").core.depth == 3


WORKER = Path(__file__).with_name("complex_worker.py")


def _worker(home: Path, cpu: str, mode: str, queue_name: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(WORKER), str(home), cpu, mode, queue_name], cwd=ROOT,
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


def test_a_shared_queue_is_one_queue_for_the_complex(tmp_path):
    """COMMON YES: both processors get from the same messages, none twice, none lost."""
    b = tpfemu.System.start(QMGR, tmp_path, "B", journal="off")
    try:
        b.console("ZMQSC DEF MQP")
        b.console("ZMQSC DEF QL-SHARED.Q COMMON-YES")
        q = pymqi.Queue(pymqi.connect(QMGR), "SHARED.Q",
                        CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)  # fmt: skip
        sent = {f"m{i}" for i in range(150)}
        for data in sorted(sent):
            q.put(data.encode(), pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        assert re.search(r"CURDEPTH\s+150\b", b.console("ZMQSC DISP QL-SHARED.Q"))
        c = _worker(tmp_path, "C", "get", "SHARED.Q")
        assert c.stdout.readline().strip() == "READY"  # both get from here on
        got_b = []
        gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT, WaitInterval=1000)
        while True:
            try:
                got_b.append(q.get(None, pymqi.MD(), gmo).decode())
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                break
            q._qmgr.commit()
        out, _ = c.communicate(timeout=60)
        assert c.returncode == 0 and out.rstrip().endswith("DONE")
        got_c = [line[2:] for line in out.splitlines() if line.startswith("G ")]
        assert not set(got_b) & set(got_c), "a message was delivered to both processors"
        assert sorted(got_b + got_c) == sorted(sent)
        assert got_c, "the other processor should have taken some"
    finally:
        b.stop()


def test_in_doubt_shared_work_goes_to_the_special_recovery_queue(tmp_path):
    b = tpfemu.System.start(QMGR, tmp_path, "B", journal="off")
    b.console("ZMQSC DEF MQP")
    b.console("ZMQSC DEF QL-SHARED.Q COMMON-YES")
    q = pymqi.Queue(pymqi.connect(QMGR), "SHARED.Q", CMQC.MQOO_OUTPUT)
    q.put(b"committed", pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    b.stop()
    c = _worker(tmp_path, "C", "hang", "SHARED.Q")
    assert c.stdout.readline().strip() == "READY committed"
    c.kill()
    c.wait()
    restarted = tpfemu.System.start(QMGR, tmp_path, "C", journal="off")
    try:
        assert any("3 in-doubt messages" in line for line in restarted.log)
        srq = pymqi.Queue(pymqi.connect(QMGR), "SPECIAL.RECOVERY.QUEUE",
                          CMQC.MQOO_INPUT_SHARED)  # fmt: skip
        moved = []
        while True:
            try:
                moved.append(srq.get())
            except pymqi.MQMIError:
                break
        assert sorted(moved) == [b"committed", b"in-doubt-1", b"in-doubt-2"]
        assert restarted.qmgr.local_queue("SHARED.Q").core.depth == 0
    finally:
        restarted.stop()


@pytest.mark.parametrize("common", ["YES", "NO"])
def test_a_shared_queue_triggers_on_committed_messages_only(tmp_path, common):
    """Seed 000 note 3b: on a processor-shared queue only committed messages count toward
    TRIGDPTH, so a unit of work that is backed out fires nothing there; on a memory queue
    its uncommitted put counted, and the backout fires the DEPTH trigger."""
    b = tpfemu.System.start(QMGR, tmp_path, "B", journal="off")
    try:
        cat = b.qmgr.catalog
        cat.define("MQP")
        cat.define("PROC", "P.PROC", applid="QZZ1")
        cat.define("QL", "INIT.Q")
        cat.define("QL", "APP.T", common=common, trigger="YES", trigtype="DEPTH",
                   trigdpth=2, initq="INIT.Q", process="P.PROC")  # fmt: skip
        assert b.qmgr.local_queue("APP.T").shared == (common == "YES")
        conn = pymqi.connect(QMGR)
        monitor = pymqi.Queue(conn, "INIT.Q", CMQC.MQOO_INPUT_SHARED)  # noqa: F841 (held open)
        q = pymqi.Queue(conn, "APP.T", CMQC.MQOO_OUTPUT)
        q.put(b"committed")
        q.put(b"backed out", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
        conn.backout()
        time.sleep(0.2)
        assert b.qmgr.local_queue("INIT.Q").core.depth == (0 if common == "YES" else 1)
    finally:
        b.stop()


def test_clear_of_a_shared_queue_sees_the_handles_of_its_own_processor_only(complex_):
    """CLEAR of a COMMON-YES queue is refused on the processor that has it open, but
    another processor does not see that handle and clears the queue (docs/deviations.md)."""
    b, c = complex_
    b.console("ZMQSC DEF QL-SHR.CLR COMMON-YES")
    c.until("ZMQSC DISP QL-SHR.CLR", r"CURDEPTH\s+0\b")
    q = pymqi.Queue(pymqi.connect(QMGR), "SHR.CLR", CMQC.MQOO_OUTPUT)
    q.put(b"one")
    q.put(b"two")
    assert "MQSC0032E" in b.console("ZMQSC CLEAR QL-SHR.CLR")
    assert b.qmgr.local_queue("SHR.CLR").core.depth == 2
    c.send("ZMQSC CLEAR QL-SHR.CLR")
    c.expect(r"MQSC0030I C QL SHR.CLR CLEARED - 2 MESSAGE")
    assert b.qmgr.local_queue("SHR.CLR").core.depth == 0
    q.close()


def test_a_definition_made_while_the_stored_set_is_read_is_not_undone(tmp_path):
    """The follower of the stored definitions does not adopt a set read before a local
    DEFINE reached the store: the new queue stays (with its messages), and the next
    poll adopts the set that holds it."""
    b = tpfemu.System.start(QMGR, tmp_path, "B", journal="off")
    try:
        b.console("ZMQSC DEF MQP")
        qm = b.qmgr
        qm._defs_stop.set()  # this test drives sync_definitions itself
        qm._defs_thread.join(5)
        store = qm.definitions
        read = store.load

        def load_then_define_here():
            stored = read()  # another processor's change is in it, QL-NEW is not
            assert "DEFINED" in b.console("ZMQSC DEF QL-NEW")
            return stored

        # Another processor of the complex defines a process: the set has changed.
        store.save({"type": "PROC", "name": "OTHER.P", "applid": "QZZ1"}, "C")
        store.load = load_then_define_here
        try:
            assert qm.sync_definitions() is False  # read before DEF QL-NEW was stored
        finally:
            store.load = read
        assert qm.catalog.find_queue("NEW") is not None
        assert qm.sync_definitions() is True
        assert qm.catalog.find_queue("NEW") is not None
        assert qm.catalog.find_process("OTHER.P") is not None
    finally:
        b.stop()
