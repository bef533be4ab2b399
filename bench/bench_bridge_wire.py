"""The ROUTC bridge over real channels between two processes (issue 27's speed goal),
beside its baseline and its floor measured in the same run, interleaved.

Run with ``.venv/bin/python -m pytest bench/bench_bridge_wire.py -p no:randomly -s``
(about a minute). System TPFB (the TPF side) runs in a child process started from this
file (``python bench/bench_bridge_wire.py serve``); system TPFA (the requester) runs in
the test's process. A round: TPFA puts ``REQUESTS`` nonpersistent 40-byte requests (one
MQPUT each, ReplyToQ REPLY.Q) to a remote queue and gets every reply off REPLY.Q; the
clock runs from the first put to the last reply. The variants differ only in the channel
that carries the requests and in what TPFB does with each:

- **subject, bridged** (channel BR.TO.B, FAST): TPFB's fast receiver hands each request
  to the ROUTC bridge: an entry runs CMQB, CUIW, COA4 and the application AVL1, which
  answers with ROUTC; the bridge MQPUTs the reply (a reply queue kept open).
- **baseline, MQ application** (channel MQ.TO.B, normal): the requests are put to local
  queue BENCH.REQ on TPFB; an MQ application (a server loop in TPFB's process) MQGETs
  each and MQPUTs its reply to ReplyToQ at ReplyToQMgr (kept open).
- **floor, the channel pair alone** (channel FL.TO.B, FAST): TPFB's fast receiver hands
  each request to a port that only MQPUTs the reply (kept open), on the receiver's
  thread: no entry, no bridge. It is the least any bridge must do here: the two channels
  and one MQPUT of the reply on TPFB.

Every reply comes back over channel B.TO.A (normal speed: TPFA is a TPF system too, and
a fast receiver of a TPF system hands nonpersistent messages to its own ROUTC bridge, not
to a queue, seed 004). Goal: bridged >= 20 000 request/replies a second, or, where the
floor of the same run is below that, >= 0.8x the floor.
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import tpfemu
from ecb import Level
from tpfemu import mqi
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mqi import CMQC

REQUESTS = 2_000
ROUNDS = 7
TEXT = "AVL 0815 12DEC".encode("cp037").ljust(40, b"\x40")
GROUP = "bridge over the wire (two processes)"
VARIANTS = {  # name: (remote queue on TPFA, channel, role)
    "floor, the channel pair alone": ("FLOOR.REQ", "FL.TO.B", "floor"),
    "subject, bridged (ROUTC)": ("BAL.INQUIRY", "BR.TO.B", "subject"),
    "baseline, MQ application (MQGET+MQPUT)": ("BENCH.REQ", "MQ.TO.B", "baseline"),
}


# -- TPFB, the child process -----------------------------------------------------------------

def avl1(ecb) -> None:
    """The bridged application: answer the AM0SG on D0 by ROUTC."""
    block = ecb.block(Level.D0)
    message = Am0sg.unpack(block)
    rcpl = Rcpl.unpack(ecb.ebw[0:16])
    block[:] = Am0sg(b"SEATS 042 " + message.text[:20]).pack()
    ecb.routc(rcpl.reply(), Level.D0)


class _Floor:
    """The floor's fast delivery: MQPUT the reply on a queue kept open, nothing else;
    the bridged channel's messages go to the bridge as usual."""

    def __init__(self, system) -> None:
        self.bridge = system.bridge
        self.qm = mqi.connect(system.name)
        self.queue = None
        self.lock = threading.Lock()

    def deliver(self, channel: str, md, data: bytes) -> None:
        if channel != "FL.TO.B":
            self.bridge.deliver(channel, md, data)
            return
        with self.lock:
            if self.queue is None:
                od = mqi.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr)
                self.queue = mqi.Queue(self.qm, od, CMQC.MQOO_OUTPUT)
            self.queue.put(b"SEATS 042 " + data[:20],
                           mqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId),
                           mqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID))


def _mq_server(name: str, stop: threading.Event) -> None:
    """The baseline's MQ application: MQGET each request, MQPUT its reply (kept open)."""
    qm = mqi.connect(name)
    requests = mqi.Queue(qm, "BENCH.REQ", CMQC.MQOO_INPUT_SHARED)
    gmo = mqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=200)
    pmo = mqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
    out = None
    while not stop.is_set():
        md = mqi.MD()
        try:
            data = requests.get(None, md, gmo)
        except mqi.MQMIError as exc:
            if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                continue
            raise
        if out is None:
            out = mqi.Queue(qm, mqi.OD(ObjectName=md.ReplyToQ, ObjectQMgrName=md.ReplyToQMgr),
                            CMQC.MQOO_OUTPUT)
        out.put(b"SEATS 042 " + data[:20], mqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId),
                pmo)


def serve(a_port: int) -> None:
    """TPFB: print its MQS port, serve until stdin closes."""
    system = tpfemu.System.start(name="TPFB", journal="off",
                                 istreams=int(os.environ.get("BENCH_ISTREAMS", "2")))
    for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-BENCH.REQ MAXDEPTH-999999",
                    "ZMQSC DEF QL-TPFA USAGE-XMITQ MAXDEPTH-999999",
                    "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
                    "ZINET START S-MQS", "ZMQSC DEF CHL-BR.TO.B CHLTYPE-RCVR SPEED-FAST",
                    "ZMQSC DEF CHL-FL.TO.B CHLTYPE-RCVR SPEED-FAST",
                    "ZMQSC DEF CHL-MQ.TO.B CHLTYPE-RCVR",
                    f"ZMQSC DEF CHL-B.TO.A CHLTYPE-SDR CONNAME-'127.0.0.1({a_port})' "
                    "XMITQ-TPFA BATCHSZ-50 SHORTTMR-1",
                    "ZBRDG DEF LN-0A0101 APPL-AVL1 RQ-* RQM-TPFA",
                    "ZMQSC START CHL-B.TO.A"):
        response = system.console(command)
        assert "E " not in response.split("\n")[0][:10], (command, response)
    system.programs.load("AVL1", avl1)
    system.fast_delivery = _Floor(system)
    stop = threading.Event()
    server = threading.Thread(target=_mq_server, args=("TPFB", stop), daemon=True)
    server.start()
    print(system.inetd.servers["MQS"].port, flush=True)
    sys.stdin.read()
    stop.set()
    server.join(5)
    dumps = len(system.dispatcher.dumps)
    system.console("ZMQSC STOP CHL-B.TO.A")
    system.stop()
    print(f"dumps {dumps}", flush=True)


# -- TPFA, the requester (the test's process) --------------------------------------------------

def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def pair():
    """(TPFA System, TPFB process): the channels running both ways."""
    system = tpfemu.System.start(name="TPFA", journal="off")
    for command in ("ZMQSC DEF MQP", "ZMQSC DEF QL-REPLY.Q MAXDEPTH-999999",
                    "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
                    "ZINET START S-MQS", "ZMQSC DEF CHL-B.TO.A CHLTYPE-RCVR"):
        system.console(command)
    a_port = system.inetd.servers["MQS"].port
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    child = subprocess.Popen([sys.executable, __file__, "serve", str(a_port)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                             env=env)
    try:
        b_port = int(child.stdout.readline())
        for queue, channel, _ in VARIANTS.values():
            xmitq = f"XQ.{channel}"
            speed = "NORMAL" if channel == "MQ.TO.B" else "FAST"
            rname = "BENCH.REQ" if queue == "BENCH.REQ" else queue
            for command in (
                    f"ZMQSC DEF QL-{xmitq} USAGE-XMITQ MAXDEPTH-999999",
                    f"ZMQSC DEF QR-{queue} RNAME-{rname} RQMNAME-TPFB XMITQ-{xmitq}",
                    f"ZMQSC DEF CHL-{channel} CHLTYPE-SDR CONNAME-'127.0.0.1({b_port})' "
                    f"XMITQ-{xmitq} SPEED-{speed} BATCHSZ-50 SHORTTMR-1",
                    f"ZMQSC START CHL-{channel}"):
                system.console(command)
        deadline = time.monotonic() + 30
        names = [c for _, c, _ in VARIANTS.values()]
        while not all(system.channels.status(n).state == "RUNNING" for n in names) or \
                system.channels.status("B.TO.A").state != "RUNNING":
            assert time.monotonic() < deadline, "the channels did not start"
            time.sleep(0.05)
        yield system, child
    finally:
        for _, channel, _ in VARIANTS.values():
            system.console(f"ZMQSC STOP CHL-{channel}")
        child.stdin.close()
        tail = child.stdout.read()
        child.wait(30)
        system.stop()
    assert "dumps 0" in tail, tail


_TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _round(queue: str, count: int) -> float:
    """Seconds for ``count`` requests to ``queue`` and their replies (all matched)."""
    qm = mqi.connect("TPFA")
    out = mqi.Queue(qm, queue, CMQC.MQOO_OUTPUT)
    replies = mqi.Queue(qm, "REPLY.Q", CMQC.MQOO_INPUT_SHARED)
    gmo = mqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT, WaitInterval=20_000)
    pmo = mqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT | CMQC.MQPMO_NEW_MSG_ID)
    sent: list[bytes] = []

    def send() -> None:
        for _ in range(count):
            md = mqi.MD(MsgType=CMQC.MQMT_REQUEST, Persistence=CMQC.MQPER_NOT_PERSISTENT,
                        ReplyToQ=b"REPLY.Q")
            out.put(TEXT, md, pmo)
            sent.append(bytes(md.MsgId))

    start = time.perf_counter()
    sender = threading.Thread(target=send)
    sender.start()
    got = []
    for _ in range(count):
        md = mqi.MD()
        replies.get(None, md, gmo)
        got.append(bytes(md.CorrelId))
    elapsed = time.perf_counter() - start
    sender.join()
    out.close()
    replies.close()
    qm.disconnect()
    assert sorted(got) == sorted(sent), "a reply does not match its request"
    return elapsed


def test_bridged_request_reply_over_fast_channels(pair, external):
    """Bridged request/replies between two processes beside the MQ application baseline
    and the channel pair's floor, interleaved round by round; medians per request."""
    times: dict[str, list[float]] = {name: [] for name in VARIANTS}
    cpu: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    child = pair[1].pid
    only = os.environ.get("BENCH_ONLY", "")  # e.g. "subject": one variant (profiling)
    variants = {n: v for n, v in VARIANTS.items() if only in v[2]}
    for queue, _, _ in variants.values():
        _round(queue, REQUESTS // 4)  # warm-up: handles open, programs loaded
    for _ in range(ROUNDS):
        for name, (queue, _, _) in variants.items():
            a_cpu, b_cpu = time.process_time(), _cpu(child)
            times[name].append(_round(queue, REQUESTS) / REQUESTS)
            cpu[name].append(((time.process_time() - a_cpu) / REQUESTS,
                              (_cpu(child) - b_cpu) / REQUESTS))
    median = {name: statistics.median(values) for name, values in times.items() if values}
    for name, values in times.items():
        if not values:
            continue
        rates = ", ".join(f"{1 / v:,.0f}" for v in values)
        a_cpu = statistics.median(a for a, _ in cpu[name]) * 1e6
        b_cpu = statistics.median(b for _, b in cpu[name]) * 1e6
        print(f"\n{name}: median {median[name] * 1e6:.1f} us = {1 / median[name]:,.0f}/s "
              f"(rounds: {rates} /s); CPU a request: TPFA {a_cpu:.0f} us, TPFB {b_cpu:.0f} us")
    if len(median) < len(VARIANTS):
        return
    subject = median["subject, bridged (ROUTC)"]
    floor = median["floor, the channel pair alone"]
    goal_rate = min(20_000.0, 0.8 / floor)
    print(f"goal: >= {goal_rate:,.0f}/s (20 000/s or 0.8x the floor's "
          f"{1 / floor:,.0f}/s); bridged {1 / subject:,.0f}/s: "
          f"{'met' if 1 / subject >= goal_rate else 'NOT met'}")
    both = {name: statistics.median(a + b for a, b in cpu[name]) for name in VARIANTS}
    print(f"CPU a request, both processes (the machine's load moves it less than the wall "
          f"time): bridged {both['subject, bridged (ROUTC)'] * 1e6:.0f} us, floor "
          f"{both['floor, the channel pair alone'] * 1e6:.0f} us: the bridged variant at "
          f"{both['floor, the channel pair alone'] / both['subject, bridged (ROUTC)']:.2f}x "
          "the floor's rate by CPU")
    for name in ("floor, the channel pair alone", "baseline, MQ application (MQGET+MQPUT)"):
        external(GROUP, "bridged request/reply", subject * 1e9, name, median[name] * 1e9,
                 1e9 / goal_rate if name.startswith("floor") else None)


if __name__ == "__main__" and sys.argv[1:2] == ["serve"]:
    serve(int(sys.argv[2]))
