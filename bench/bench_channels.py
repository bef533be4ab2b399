"""Benchmarks of the message channels (issue 25): two processes, each figure beside its
floor measured in the same run.

Run with ``.venv/bin/python -m pytest bench/bench_channels.py -p no:randomly -s`` (about
a minute). The receiving end is a ``tpfemu run --home ...`` process (queue manager QMB)
with receiver channels; the sending end is this process. Each round preloads the
transmission queue, starts the sender and stops the clock when the receiver has
confirmed the last batch (the sender's committed sequence number reaches the count).
Each figure is the median of ROUNDS rounds, each round followed by a round of its floor;
the CPU each end used per message is printed beside it (the receiving process's from
/proc, the sending process's own).

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
import statistics
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tpfemu
from tpfemu import mqi
from tpfemu.mq.headers import XQH
from tpfemu.mqi import CMQC
from tpfemu.wire.fap import encode_message, encode_segment, split_message

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


receivers: dict[int, tuple[subprocess.Popen, Path]] = {}  # pid: (process, its output)


def _clear_receiver(pid: int) -> None:
    """Empty the receiving process's LOCAL.Q through its console (standard input), so
    that every round starts alike; wait for its answer."""
    proc, out = receivers[pid]
    done = out.read_text(errors="replace").count("LOCAL.Q CLEARED")
    assert proc.stdin is not None  # (piped)
    proc.stdin.write(b"ZMQSC CLEAR QL-LOCAL.Q\n")
    proc.stdin.flush()
    deadline = time.monotonic() + 120
    while out.read_text(errors="replace").count("LOCAL.Q CLEARED") == done:
        if time.monotonic() > deadline:
            raise TimeoutError("the receiving process did not clear LOCAL.Q")
        time.sleep(0.05)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def ends(tmp_path_factory):
    """(sender System, receiver port, receiver pid): QMB in a `tpfemu run` process,
    QMA here."""
    root = tmp_path_factory.mktemp("chl")
    port = _free_port()
    script = root / "b.mqsc"
    script.write_text(
        "ZMQSC DEF MQP\nZMQSC DEF QL-LOCAL.Q MAXDEPTH-999999999\n"
        f"ZINET ADD S-MQS P-TCP MODEL-AOR PORT-{port} PGM-CMQL AORL-8 IP-127.0.0.1\n"
        "ZINET START S-MQS\nZMQSC DEF CHL-NP CHLTYPE-RCVR\nZMQSC DEF CHL-P CHLTYPE-RCVR\n")
    exe = Path(sys.executable).with_name("tpfemu")
    out = (root / "b.out").open("wb")
    proc = subprocess.Popen([str(exe), "run", "--home", str(root / "b"), "--name", "QMB",
                             "--journal", "off", str(script)], stdin=subprocess.PIPE,
                            stdout=out, stderr=subprocess.STDOUT)
    receivers[proc.pid] = (proc, root / "b.out")
    system = tpfemu.System.start(name="QMA", home=root / "a", journal="off")
    try:
        for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-XQ USAGE-XMITQ MAXDEPTH-999999999",
                        "ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-QMB XMITQ-XQ"):
            system.console(command)
        for name in ("NP", "P"):
            system.console(f"ZMQSC DEF CHL-{name} CHLTYPE-SDR CONNAME-'127.0.0.1({port})' "
                           f"XMITQ-XQ BATCHSZ-{BATCH} SHORTRTY-100 SHORTTMR-1")
        time.sleep(2.0)  # the receiving process boots
        yield system, port, proc.pid
    finally:
        system.stop()
        proc.stdin.close()
        proc.wait(30)
        out.close()


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


ROUNDS = 5  # rounds of the subject and of its floor, interleaved


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _interleaved(benchmark, subject, floor, count: int, label: str, floor_label: str
                 ) -> None:
    """Run ``subject`` and ``floor`` (each returning its elapsed seconds for ``count``
    messages) ROUNDS times in turn; print and record each median, their ratio, and the
    CPU each end of the channel used per message."""
    rates: dict[str, list[float]] = {label: [], floor_label: []}
    cpu: dict[str, list[float]] = {"sender": [], "receiver": []}

    def rounds() -> float:
        for _ in range(ROUNDS):
            subject.prepare()
            sender, receiver = time.process_time(), _cpu_of(subject.pid)
            rates[label].append(count / subject())
            cpu["sender"].append((time.process_time() - sender) / count * 1e6)
            cpu["receiver"].append((_cpu_of(subject.pid) - receiver) / count * 1e6)
            rates[floor_label].append(count / floor())
        return count / statistics.median(rates[label])

    benchmark.pedantic(rounds, rounds=1, iterations=1)
    medians = {name: statistics.median(values) for name, values in rates.items()}
    ratio = medians[label] / medians[floor_label]
    benchmark.extra_info.update(
        msgs_per_s=round(medians[label]), floor_msgs_per_s=round(medians[floor_label]),
        ratio_to_floor=round(ratio, 3),
        sender_cpu_us_per_msg=round(statistics.median(cpu["sender"]), 1),
        receiver_cpu_us_per_msg=round(statistics.median(cpu["receiver"]), 1))
    for name, values in rates.items():
        print(f"\n{name}: median {medians[name]:,.0f} msgs/s over {ROUNDS} rounds "
              f"({', '.join(f'{v:,.0f}' for v in values)})")
    print(f"ratio to the floor: {ratio:.3f}; CPU per message: sender "
          f"{statistics.median(cpu['sender']):.1f} us, receiver "
          f"{statistics.median(cpu['receiver']):.1f} us")


class _Channel:
    """One round over a channel: :meth:`prepare` preloads the transmission queue (outside
    the clock and the CPU counts), calling times the channel."""

    def __init__(self, system, pid: int, name: str, count: int, persistence: int) -> None:
        self.system, self.pid, self.name = system, pid, name
        self.count, self.persistence = count, persistence

    def prepare(self) -> None:
        _clear_receiver(self.pid)
        _preload(self.count, self.persistence)

    def __call__(self) -> float:
        return _through_channel(self.system, self.name, self.count)


def _raw_tcp_floor() -> float:
    """Floor: the same FAP frames written to a raw TCP socket read by another process."""
    body = XQH(RemoteQName=b"LOCAL.Q", RemoteQMgrName=b"QMB").pack() + PAYLOAD
    frames = b"".join(encode_segment(seg) for seq in range(1, N_NP + 1)
                      for seg in split_message(encode_message(seq, body), 32768,
                                               confirm=seq % BATCH == 0))
    reader = subprocess.Popen([sys.executable, "-c", READER, str(len(frames))],
                              stdout=subprocess.PIPE)
    assert reader.stdout is not None  # (piped)
    port = int(reader.stdout.readline())
    start = time.perf_counter()
    with socket.create_connection(("127.0.0.1", port)) as sock:
        view = memoryview(frames)
        for at in range(0, len(frames), 1 << 16):
            sock.sendall(view[at:at + (1 << 16)])
        sock.recv(1)
    elapsed = time.perf_counter() - start
    reader.wait(10)
    return elapsed


def _fdatasync_floor(path: Path) -> float:
    """Floor: 50 KB written and one fdatasync per batch of 50, on the same disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    block = PAYLOAD * BATCH
    try:
        start = time.perf_counter()
        for _ in range(N_P // BATCH):
            os.write(fd, block)
            os.fdatasync(fd)
        return time.perf_counter() - start
    finally:
        os.close(fd)


def test_nonpersistent_1kb_one_channel(benchmark, ends):
    """Nonpersistent 1 KB messages over one normal channel (batches of 50, confirmed),
    rounds interleaved with the raw TCP loop of the same frames."""
    system, _, pid = ends
    benchmark.group = GROUP
    channel = _Channel(system, pid, "NP", N_NP, CMQC.MQPER_NOT_PERSISTENT)
    _interleaved(benchmark, channel, _raw_tcp_floor, N_NP, "nonpersistent over the channel",
                 "raw TCP, the same frames")


def test_persistent_1kb_batch_50(benchmark, ends, tmp_path):
    """Persistent 1 KB messages, BATCHSZ 50, logged and synced at both ends, rounds
    interleaved with the fdatasync floor."""
    system, _, pid = ends
    benchmark.group = GROUP
    channel = _Channel(system, pid, "P", N_P, CMQC.MQPER_PERSISTENT)
    _interleaved(benchmark, channel, lambda: _fdatasync_floor(tmp_path / "floor"), N_P,
                 "persistent over the channel", "fdatasync floor")
