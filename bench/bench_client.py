"""Benchmarks of the TCP client (issue 26): MQPUT+MQGET round trips over a SVRCONN
channel on loopback, each figure beside a raw TCP request/response loop of the same byte
sizes measured in the same run.

Run with ``.venv/bin/python -m pytest bench/bench_client.py -p no:randomly -s`` (about a
minute). The server is another process (a System with the MQS listener and
APP.SVRCONN). Each connection is its own client process, as each of 8 client programs
would be (``WORKER``; the raw loop's connections too); a round tells the first N of them
to run their pairs and times until all have answered. ``test_interleaved_medians``
alternates the client and the raw loop round by round (the machine is shared: both see
the same load) and prints the median of each and their ratio; the single-round tests
feed the summary.

Eight threads of one Python process instead of eight processes share that process's
GIL: the Python MQI's 20-30 us a pair then runs one thread at a time, and the rate in
one run (load 8) was 9,406 pairs/s against 14,437 for eight processes (0.65x). A program that
needs more than one connection's rate from one process runs one connection per process.

Goals (issue 26), pairs/s (an MQPUT and an MQGET of a 1 KB nonpersistent message):

- one connection: >= 25 000; floor: a raw TCP loop sending a request of the MQPUT
  request's size and reading a reply of the MQPUT reply's size, then the same for MQGET,
  against a Python server process that answers each at once;
- 8 connections at once (8 client processes, one conversation thread each at the server):
  the total, beside the raw loop with 8 connections.
"""

from __future__ import annotations

import os
import socket
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC
from tpfemu.wire.fap import ApiHeader, SegmentType, Verb, encode_verb

PAIRS = 2_000
CLIENTS = 8
ROUNDS, ROUND_PAIRS = 5, 1_000  #: test_interleaved_medians: rounds of each, pairs a round
AB_ROUNDS, AB_PAIRS = 7, 3_000  #: test_exchange_on_and_off: rounds of each, pairs a round
GOAL = 25_000  #: pairs/s a connection (issue 26)
PAYLOAD = b"x" * 1024
GROUP1, GROUP8 = "client round trip, 1 connection", "client round trip, 8 connections"
ROOT = Path(__file__).resolve().parents[1]
PIDS: dict[str, int] = {}  #: the server processes ("server", "raw"), for their CPU time

SERVER = """\
import sys, tpfemu
system = tpfemu.System.start(name="QMC", journal="off")
for c in ("ZMQSC DEF MQP", "ZMQSC DEF QL-BENCH.Q MAXDEPTH-999999999",
          "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
          "ZINET START S-MQS", "ZMQSC DEF CHL-APP.SVRCONN CHLTYPE-SVRCONN"):
    system.console(c)
print(system.inetd.servers["MQS"].port, flush=True)
sys.stdin.readline()
system.stop()
"""

#: Answers each request (a TSH-framed block: length at bytes 4-8) with a reply of the
#: size the request's first byte after the header says (sizes table below).
RAW = """\
import socket, struct, sys, threading
sizes = [int(v) for v in sys.argv[1:]]
server = socket.create_server(("127.0.0.1", 0)); print(server.getsockname()[1], flush=True)
def serve(conn):
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    replies = [b"r" * n for n in sizes]
    buf = b""
    while True:
        while len(buf) < 8:
            got = conn.recv(65536)
            if not got:
                return
            buf += got
        need = struct.unpack(">I", buf[4:8])[0]
        while len(buf) < need:
            buf += conn.recv(65536)
        kind, buf = buf[8], buf[need:]
        conn.sendall(replies[kind])
while True:
    c, _ = server.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
"""


def _sizes() -> tuple[int, int, int, int]:
    """Bytes on the wire of MQPUT, its reply, MQGET and its reply (TSHM 36 + body)."""
    api = ApiHeader(hobj=1)
    md, pmo, gmo = pymqi.MD(), pymqi.PMO(), pymqi.GMO()
    t = SegmentType
    return tuple(36 + len(encode_verb(kind, verb)) for kind, verb in (  # type: ignore[return-value]
        (t.MQPUT, Verb(api, md=md, pmo=pmo, data=PAYLOAD)),
        (t.MQPUT_REPLY, Verb(api, md=md, pmo=pmo)),
        (t.MQGET, Verb(api, md=md, gmo=gmo, buffer_length=0xFFFFFFFF)),
        (t.MQGET_REPLY, Verb(api, md=md, gmo=gmo, data=PAYLOAD))))


def _serving(script: str, name: str):
    """Run server ``script`` in another process (its pid kept as ``name``), yield its
    port, and stop it when the fixture ends."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, cwd=ROOT)
    port = int(proc.stdout.readline())
    PIDS[name] = proc.pid
    yield port
    proc.stdin.write("\n")
    proc.stdin.close()
    proc.wait(30)


@pytest.fixture(scope="module")
def server():
    """The port of a System serving APP.SVRCONN in another process."""
    yield from _serving(SERVER, "server")


@pytest.fixture(scope="module")
def python_path_server():
    """The port of the same server with its one-call MQPUT/MQGET off."""
    yield from _serving(SERVER_PYTHON_PATH, "python path")


@pytest.fixture(scope="module")
def raw_server():
    """The port of the raw request/response server (another process)."""
    put_req, put_rep, get_req, get_rep = _sizes()
    proc = subprocess.Popen([sys.executable, "-c", RAW, str(put_rep), str(get_rep)],
                            stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline())
    PIDS["raw"] = proc.pid
    yield port, put_req, get_req
    proc.kill()
    proc.wait(10)


#: The same server with its one-call MQPUT/MQGET and its C read-and-answer loop off
#: (every verb read and served by the Python path), for test_exchange_on_and_off.
SERVER_PYTHON_PATH = SERVER.replace(
    "import sys, tpfemu\n", "import sys, tpfemu\nimport tpfemu.channels.svrconn as s\n"
    "s.serve_verb = lambda *args: None\ns.Link.descriptor = lambda self: -1\n")


def _client_pairs(port: int, pairs: int, exchange: bool = True) -> None:
    qm = pymqi.connect("QMC", "APP.SVRCONN", f"127.0.0.1({port})")
    if not exchange:
        qm._conn._fd = -1  # (the client's one-call exchange off: the Python codec)
    q = pymqi.Queue(qm, "BENCH.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    for _ in range(pairs):
        q.put(PAYLOAD)
        q.get(None, pymqi.MD(), pymqi.GMO())
    q.close()
    qm.disconnect()


def _raw_pairs(port: int, put_req: int, get_req: int, pairs: int) -> None:
    put = b"TSHM" + struct.pack(">I", put_req) + b"\x00" + b"p" * (put_req - 9)
    get = b"TSHM" + struct.pack(">I", get_req) + b"\x01" + b"g" * (get_req - 9)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for _ in range(pairs):
            for request in (put, get):
                sock.sendall(request)
                sock.recv(65536)  # each reply fits one read on loopback


def _cpu(pid: int) -> float:
    """CPU seconds (user and system) process ``pid`` has used (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: A client process: it runs each command line it reads ("client PORT PAIRS EXCHANGE" or
#: "raw PORT PUT_REQ GET_REQ PAIRS") and answers "done" (or the error) when its pairs are done.
WORKER = """\
import sys
sys.path.insert(0, sys.argv[1])
import bench_client as b
for line in sys.stdin:
    kind, *args = line.split()
    try:
        if kind == "client":
            b._client_pairs(int(args[0]), int(args[1]), args[2] == "1")
        else:
            b._raw_pairs(*map(int, args))
        print("done", flush=True)
    except Exception as exc:
        print(f"failed: {exc!r}", flush=True)
"""


@pytest.fixture(scope="module")
def workers():
    """CLIENTS client processes (WORKER), started once; their stdin closed at the end."""
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, str(ROOT / "bench")],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                              cwd=ROOT) for _ in range(CLIENTS)]
    yield procs
    for proc in procs:
        proc.stdin.close()
    for proc in procs:
        proc.wait(30)


def client_command(port: int, pairs: int, exchange: bool = True) -> str:
    return f"client {port} {pairs} {int(exchange)}\n"


def raw_command(port: int, put_req: int, get_req: int, pairs: int) -> str:
    return f"raw {port} {put_req} {get_req} {pairs}\n"


def _round(workers, command: str, clients: int, pid: int, per_client: int = ROUND_PAIRS
           ) -> tuple[float, float, float]:
    """One timed round: (pairs/s, client CPU us a pair, server CPU us a pair)."""
    mine, theirs = _cpu_of(workers[:clients]), _cpu(pid)
    elapsed = _timed(workers, command, clients)
    pairs = clients * per_client
    return (pairs / elapsed, (_cpu_of(workers[:clients]) - mine) / pairs * 1e6,
            (_cpu(pid) - theirs) / pairs * 1e6)


def _cpu_of(procs) -> float:
    return sum(_cpu(proc.pid) for proc in procs)


def _timed(workers, command: str, clients: int) -> float:
    """Seconds from telling ``clients`` client processes to run ``command`` until the
    last has answered. :raises AssertionError: a client's pairs failed."""
    start = time.perf_counter()
    for proc in workers[:clients]:
        proc.stdin.write(command)
        proc.stdin.flush()
    answers = [proc.stdout.readline().strip() for proc in workers[:clients]]
    elapsed = time.perf_counter() - start
    assert answers == ["done"] * clients, answers
    return elapsed


def _report(benchmark, clients: int, elapsed: float, label: str) -> None:
    rate = clients * PAIRS / elapsed
    benchmark.extra_info["pairs_per_s"] = round(rate)
    print(f"\n{label}: {clients} x {PAIRS} pairs in {elapsed:.3f} s = {rate:,.0f} pairs/s")


@pytest.mark.parametrize("clients", [1, CLIENTS])
def test_client_put_get_round_trips(benchmark, tag, server, workers, clients):
    """MQPUT + MQGET of 1 KB through the TCP client and the SVRCONN server."""
    benchmark.group = GROUP1 if clients == 1 else GROUP8
    tag("subject", ops=clients * PAIRS)
    elapsed = benchmark.pedantic(lambda: _timed(workers, client_command(server, PAIRS), clients),
                                 rounds=1, iterations=1)
    _report(benchmark, clients, elapsed, "client over SVRCONN")


@pytest.mark.parametrize("clients", [1, CLIENTS])
def test_raw_tcp_request_response_floor(benchmark, tag, raw_server, workers, clients):
    """Floor: request/response frames of the same sizes on raw TCP, same run."""
    port, put_req, get_req = raw_server
    benchmark.group = GROUP1 if clients == 1 else GROUP8
    tag("baseline", ops=clients * PAIRS)
    elapsed = benchmark.pedantic(
        lambda: _timed(workers, raw_command(port, put_req, get_req, PAIRS), clients),
        rounds=1, iterations=1)
    _report(benchmark, clients, elapsed, "raw TCP, same sizes")


@pytest.mark.parametrize("clients", [1, CLIENTS])
def test_interleaved_medians(external, server, raw_server, workers, clients):
    """Client and raw loop alternating round by round: medians and their ratio."""
    port, put_req, get_req = raw_server
    ours, raw = [], []  # (pairs/s, client CPU us a pair, server CPU us a pair) a round
    for _ in range(ROUNDS):
        raw.append(_round(workers, raw_command(port, put_req, get_req, ROUND_PAIRS), clients,
                          PIDS["raw"]))
        ours.append(_round(workers, client_command(server, ROUND_PAIRS), clients,
                           PIDS["server"]))
    cpu = {name: tuple(statistics.median(r[i] for r in rounds) for i in (1, 2))
           for name, rounds in (("client", ours), ("raw", raw))}
    ours, raw = [r[0] for r in ours], [r[0] for r in raw]
    mine, floor = statistics.median(ours), statistics.median(raw)
    print(f"\n{clients} connection(s), {ROUNDS} interleaved rounds of {ROUND_PAIRS} pairs each:"
          f"\n  client over SVRCONN {', '.join(f'{r:,.0f}' for r in ours)} pairs/s, "
          f"median {mine:,.0f}\n  raw TCP, same sizes {', '.join(f'{r:,.0f}' for r in raw)} "
          f"pairs/s, median {floor:,.0f}\n  ratio {mine / floor:.3f}; goal {GOAL:,} "
          f"pairs/s a connection, or 0.8 x the floor where the floor is below "
          f"{GOAL / 0.8:,.0f}\n  CPU a pair (medians, us, client process / server process): "
          f"client over SVRCONN {cpu['client'][0]:.1f} / {cpu['client'][1]:.1f}, raw TCP "
          f"{cpu['raw'][0]:.1f} / {cpu['raw'][1]:.1f}")
    group = GROUP1 if clients == 1 else GROUP8
    external(group, "client pair (median, interleaved)", 1e9 / mine,
             "raw TCP pair, same sizes (median)", 1e9 / floor)
    assert mine > 0 and floor > 0


@pytest.mark.parametrize("clients", [1, CLIENTS])
def test_exchange_on_and_off(external, server, python_path_server, workers, clients):
    """A/B in one run: the one-call exchange at both ends (client and server in C) against
    the Python path at both ends (the codec, the link, the server's _planned), alternating
    round by round: medians and their ratio."""
    on, off = [], []
    for _ in range(AB_ROUNDS):
        off.append(_round(workers, client_command(python_path_server, AB_PAIRS, False),
                          clients, PIDS["python path"], AB_PAIRS))
        on.append(_round(workers, client_command(server, AB_PAIRS), clients, PIDS["server"],
                         AB_PAIRS))
    mine, before = (statistics.median(r[0] for r in rounds) for rounds in (on, off))
    cpu = {name: tuple(statistics.median(r[i] for r in rounds) for i in (1, 2))
           for name, rounds in (("on", on), ("off", off))}
    print(f"\n{clients} connection(s), {AB_ROUNDS} interleaved rounds of {AB_PAIRS} pairs:"
          f"\n  one-call exchange {', '.join(f'{r[0]:,.0f}' for r in on)} pairs/s, median "
          f"{mine:,.0f}\n  Python path       {', '.join(f'{r[0]:,.0f}' for r in off)} "
          f"pairs/s, median {before:,.0f}\n  ratio {mine / before:.2f}; CPU a pair (us, "
          f"client / server): on {cpu['on'][0]:.1f} / {cpu['on'][1]:.1f}, off "
          f"{cpu['off'][0]:.1f} / {cpu['off'][1]:.1f}")
    external(GROUP1 if clients == 1 else GROUP8, "client pair, one-call exchange (median)",
             1e9 / mine, "client pair, Python path (median)", 1e9 / before)
    assert mine > 0 and before > 0
