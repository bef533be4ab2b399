"""Channels between processes: a ``tpfemu run --home ...`` process with its own script
relays what this process sends it back over a second channel (a middle hop through a
queue-manager alias), and is killed with SIGKILL and restarted while messages flow. Its
home's recovery log and synchronisation records bring it back: no persistent message is
lost or delivered twice, no nonpersistent one twice."""

from __future__ import annotations

import collections
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mca_helpers import depth, drain, ok, put, start, status, wait_for

from tpfemu.mqi import CMQC

B_SETUP = """\
ZMQSC DEF MQP
ZMQSC DEF QL-{qa} USAGE-XMITQ
ZMQSC DEF QR-LOOP RQMNAME-{qa} XMITQ-{qa}
ZINET ADD S-MQS P-TCP MODEL-AOR PORT-{pb} PGM-CMQL AORL-8 IP-127.0.0.1
ZINET START S-MQS
ZMQSC DEF CHL-A.TO.B CHLTYPE-RCVR
ZMQSC DEF CHL-B.TO.A CHLTYPE-SDR CONNAME-'127.0.0.1({pa})' XMITQ-{qa} SHORTRTY-100000 +
  SHORTTMR-1
ZMQSC START CHL-B.TO.A
"""
B_RESTART = """\
ZINET START S-MQS
ZMQSC START CHL-B.TO.A
"""


def _free_ports(count: int) -> list[int]:
    """``count`` different free ports: the probes stay bound until all are chosen (one
    probe closed before the next is bound may be given the same port again)."""
    probes = [socket.socket() for _ in range(count)]
    try:
        for probe in probes:
            probe.bind(("127.0.0.1", 0))
        return [probe.getsockname()[1] for probe in probes]
    finally:
        for probe in probes:
            probe.close()


class Relay:
    """Process B: ``tpfemu run --home HOME --name QMB`` with a script, fed by a pipe."""

    def __init__(self, home: Path, script: Path) -> None:
        self.home = home
        self.script = script
        self.proc: subprocess.Popen | None = None
        self.out = home.parent / "relay.out"

    def start(self, script: Path | None = None) -> None:
        exe = Path(sys.executable).with_name("tpfemu")
        with open(self.out, "ab") as out:
            self.proc = subprocess.Popen(
                [str(exe), "run", "--home", str(self.home), "--name", "QMB",
                 "--journal", "off", str(script or self.script)],
                stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()  # end of input: the CLI stops the system
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()


def _run(tmp_path: Path, kills: int) -> None:
    pa, pb = _free_ports(2)
    a = start("QMA", home=tmp_path / "a")
    (tmp_path / "b").mkdir()
    script = tmp_path / "b.mqsc"
    script.write_text(B_SETUP.format(qa="QMA", pa=pa, pb=pb))
    restart = tmp_path / "b-restart.mqsc"
    restart.write_text(B_RESTART)
    relay = Relay(tmp_path / "b", script)
    try:
        ok(a, f"ZINET ADD S-MQS P-TCP MODEL-AOR PORT-{pa} PGM-CMQL AORL-8 IP-127.0.0.1")
        ok(a, "ZINET START S-MQS")
        ok(a, "ZMQSC DEF CHL-B.TO.A CHLTYPE-RCVR")
        ok(a, "ZMQSC DEF QL-BACK.Q MAXDEPTH-999999")
        ok(a, "ZMQSC DEF QL-QMB USAGE-XMITQ MAXDEPTH-999999")
        ok(a, "ZMQSC DEF QR-VIA.B RNAME-BACK.Q RQMNAME-LOOP XMITQ-QMB")
        ok(a, f"ZMQSC DEF CHL-A.TO.B CHLTYPE-SDR CONNAME-'127.0.0.1({pb})' XMITQ-QMB "
              "SHORTRTY-100000 SHORTTMR-1 BATCHSZ-20")  # B restarts take a second or two
        relay.start()
        # (a definition just made in a home can be missing from the catalog for a moment
        # when the definitions follower adopts a stored set read before it was stored:
        # seen in tests/qmgr too; reported. Adopting the stored set now settles it.)
        a.qmgr.sync_definitions()
        wait_for(lambda: a.qmgr.catalog.find_queue("QMB") is not None, what="QMB defined")
        ok(a, "ZMQSC START CHL-A.TO.B")
        wait_for(lambda: status(a, "A.TO.B") == "RUNNING", timeout=30, what="A.TO.B RUNNING")
        sent: list[tuple[bytes, int]] = []
        for round_ in range(kills + 1):
            for i in range(300):
                n = round_ * 300 + i
                persistence = CMQC.MQPER_PERSISTENT if n % 2 else CMQC.MQPER_NOT_PERSISTENT
                put("QMA", "VIA.B", b"%06d" % n, Persistence=persistence)
                sent.append((b"%06d" % n, persistence))
                if i == 150 and round_ < kills:
                    relay.kill()  # mid-stream
                    relay.start(restart)
        wait_for(lambda: depth(a, "QMB") == 0 and not a.channels.status("A.TO.B").indoubt,
                 timeout=60, what="A's transmission queue emptied")
        persistent = {d for d, p in sent if p == CMQC.MQPER_PERSISTENT}
        got: collections.Counter[bytes] = collections.Counter()
        deadline = time.monotonic() + 60
        while not persistent <= got.keys() and time.monotonic() < deadline:
            got.update(d for d, _ in drain("QMA", "BACK.Q", wait=1.0))
        got.update(d for d, _ in drain("QMA", "BACK.Q", wait=1.0))
        missing = sorted(persistent - got.keys())
        assert not missing, f"persistent messages lost: {missing[:10]}"
        assert all(n == 1 for n in got.values()), "a message delivered twice"
    finally:
        relay.stop()
        a.stop()


def test_two_processes_exchange_and_survive_a_sigkill(tmp_path):
    """A `tpfemu run` relay process killed with SIGKILL mid-stream and restarted loses no
    persistent message and doubles nothing."""
    _run(tmp_path, kills=1)


@pytest.mark.slow
def test_ten_sigkills(tmp_path):
    """Ten SIGKILLs of the relay process while messages flow: the same guarantees."""
    _run(tmp_path, kills=10)
