"""Benchmarks of the message channels (issue 25): two processes, each figure beside its
floor measured in the same run.

Run with ``.venv/bin/python -m pytest bench/bench_channels.py -p no:randomly`` (about a
minute). The receiving end is a ``tpfemu run --home ...`` process (queue manager QMB)
with receiver channels; the sending end is this process. Each round preloads the
transmission queue, starts the sender and stops the clock when the receiver has
confirmed the last batch (the sender's committed sequence number reaches the count).

Goals (issue 25), messages/s:

- nonpersistent 1 KB over one channel: >= 100 000; floor: a raw TCP loop sending the
  same FAP frames (TSH + MSH + MQXQH + MQMD + 1 KB) to a reader process, same run;
- persistent 1 KB, BATCHSZ 50: >= 30 000; floor: ``os.write`` of 50 KB + one
  ``os.fdatasync`` per batch of 50 on the same disk, same run.
- Anchor: IBM MQ 9.3's published distributed-queuing rate, about 22 000 round trips a
  second per core.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tpfemu
from tpfemu import mqi
from tpfemu.channels.fap import encode_message, encode_segment, split_message
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC

N_NP = 20_000
N_P = 5_000
BATCH = 50
PAYLOAD = b"x" * 1024
GROUP = "channels"
READER = """\
import socket, sys
s = socket.create_server(("127.0.0.1", 0)); print(s.getsockname()[1], flush=True)
c, _ = s.accept(); left = int(sys.argv[1])
while left > 0:
    left -= len(c.recv(1 << 20))
c.sendall(b"k")
"""


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def ends(tmp_path_factory):
    """(sender System, receiver port): QMB in a `tpfemu run` process, QMA here."""
    root = tmp_path_factory.mktemp("chl")
    port = _free_port()
    script = root / "b.mqsc"
    script.write_text(
        "ZMQSC DEF MQP\nZMQSC DEF QL-LOCAL.Q MAXDEPTH-999999999\n"
        f"ZINET ADD S-MQS P-TCP MODEL-AOR PORT-{port} PGM-CMQL AORL-8 IP-127.0.0.1\n"
        "ZINET START S-MQS\nZMQSC DEF CHL-NP CHLTYPE-RCVR\nZMQSC DEF CHL-P CHLTYPE-RCVR\n")
    exe = Path(sys.executable).with_name("tpfemu")
    proc = subprocess.Popen([str(exe), "run", "--home", str(root / "b"), "--name", "QMB",
                             "--journal", "off", str(script)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    system = tpfemu.System.start(name="QMA", home=root / "a", journal="off")
    try:
        for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-XQ USAGE-XMITQ MAXDEPTH-999999999",
                        "ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-QMB XMITQ-XQ"):
            system.console(command)
        for name in ("NP", "P"):
            system.console(f"ZMQSC DEF CHL-{name} CHLTYPE-SDR CONNAME-'127.0.0.1({port})' "
                           f"XMITQ-XQ BATCHSZ-{BATCH} SHORTRTY-100 SHORTTMR-1")
        time.sleep(2.0)  # the receiving process boots
        yield system, port
    finally:
        system.stop()
        proc.stdin.close()
        proc.wait(30)


def _preload(count: int, persistence: int) -> None:
    qm = mqi.connect("QMA")
    q = mqi.Queue(qm, "REMOTE.Q", CMQC.MQOO_OUTPUT)
    pmo = mqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    for i in range(count):
        q.put(PAYLOAD, mqi.MD(Persistence=persistence), pmo)
        if i % 500 == 499:
            qm.commit()
    qm.commit()
    qm.disconnect()


def _through_channel(system, name: str, count: int) -> float:
    status = system.channels.status(name)
    base = status.seq
    start = time.perf_counter()
    system.console(f"ZMQSC START CHL-{name}")
    while status.seq < base + count:
        time.sleep(0.001)
    elapsed = time.perf_counter() - start
    system.console(f"ZMQSC STOP CHL-{name}")
    while system.channels.is_running(name):
        time.sleep(0.01)
    return elapsed


def _report(benchmark, count: int, elapsed: float, label: str) -> float:
    rate = count / elapsed
    benchmark.extra_info["msgs_per_s"] = round(rate)
    print(f"\n{label}: {count} x 1 KB in {elapsed:.3f} s = {rate:,.0f} msgs/s")
    return rate


def test_nonpersistent_1kb_one_channel(benchmark, ends):
    """Nonpersistent 1 KB messages over one normal channel (batches of 50, confirmed)."""
    system, _ = ends
    benchmark.group = GROUP
    _preload(N_NP, CMQC.MQPER_NOT_PERSISTENT)
    elapsed = benchmark.pedantic(lambda: _through_channel(system, "NP", N_NP), rounds=1,
                                 iterations=1)
    _report(benchmark, N_NP, elapsed, "nonpersistent over the channel")


def test_raw_tcp_floor_same_frames(benchmark):
    """Floor: the same FAP frames written to a raw TCP socket read by another process."""
    benchmark.group = GROUP
    body = XQH(RemoteQName=b"LOCAL.Q", RemoteQMgrName=b"QMB").pack() + PAYLOAD
    frames = b"".join(encode_segment(seg) for seq in range(1, N_NP + 1)
                      for seg in split_message(encode_message(seq, body), 32768,
                                               confirm=seq % BATCH == 0))
    reader = subprocess.Popen([sys.executable, "-c", READER, str(len(frames))],
                              stdout=subprocess.PIPE)
    port = int(reader.stdout.readline())

    def send() -> float:
        start = time.perf_counter()
        with socket.create_connection(("127.0.0.1", port)) as sock:
            view = memoryview(frames)
            for at in range(0, len(frames), 1 << 16):
                sock.sendall(view[at:at + (1 << 16)])
            sock.recv(1)
        return time.perf_counter() - start

    elapsed = benchmark.pedantic(send, rounds=1, iterations=1)
    reader.wait(10)
    _report(benchmark, N_NP, elapsed, "raw TCP, the same frames")


def test_persistent_1kb_batch_50(benchmark, ends):
    """Persistent 1 KB messages, BATCHSZ 50, logged and synced at both ends."""
    system, _ = ends
    benchmark.group = GROUP
    _preload(N_P, CMQC.MQPER_PERSISTENT)
    elapsed = benchmark.pedantic(lambda: _through_channel(system, "P", N_P), rounds=1,
                                 iterations=1)
    _report(benchmark, N_P, elapsed, "persistent over the channel")


def test_fdatasync_floor_batch_50(benchmark, tmp_path):
    """Floor: 50 KB written and one fdatasync per batch of 50, on the same disk."""
    benchmark.group = GROUP
    fd = os.open(tmp_path / "floor", os.O_WRONLY | os.O_CREAT, 0o644)
    block = PAYLOAD * BATCH

    def run() -> float:
        start = time.perf_counter()
        for _ in range(N_P // BATCH):
            os.write(fd, block)
            os.fdatasync(fd)
        return time.perf_counter() - start

    try:
        elapsed = benchmark.pedantic(run, rounds=1, iterations=1)
    finally:
        os.close(fd)
    _report(benchmark, N_P, elapsed, "fdatasync floor")
