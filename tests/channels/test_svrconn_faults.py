"""SVRCONN faults (issue 26): clients and servers that die, and connections that are not
clients at all. Real processes are killed with SIGKILL; real sockets carry the garbage."""

from __future__ import annotations

import os
import random
import signal
import socket
import threading
import time

from mca_helpers import wait_for
from svrconn_helpers import (
    QUEUE,
    later_message_stays,
    python,
    raises_mq,
    serving,
    visible,
)

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

CLIENT_MID_UOW = """
    import sys, time
    import tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC
    qm = pymqi.connect(sys.argv[1], "APP.SVRCONN", f"127.0.0.1({sys.argv[2]})")
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    got = q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    for n in range(5):
        q.put(b"uncommitted %d" % n, pymqi.MD(), sync)
    print("ready", got.decode(), flush=True)
    time.sleep(60)
"""

SERVER = """
    import sys, time
    sys.path.insert(0, "tests/channels")
    from svrconn_helpers import serving
    system, port = serving(sys.argv[1])
    print(port, flush=True)
    sys.stdin.readline()
"""


def test_a_killed_client_has_its_unit_of_work_backed_out():
    """A client process killed (SIGKILL) after a syncpoint get and five syncpoint puts:
    the server backs its unit of work out, so the got message is back and none of the
    puts is seen."""
    system, port = serving()
    try:
        local = pymqi.connect(system.qmgr.name)
        pymqi.Queue(local, QUEUE).put(b"committed")
        local.disconnect()
        proc = python(CLIENT_MID_UOW, system.qmgr.name, str(port))
        assert proc.stdout.readline().split() == ["ready", "committed"]
        assert visible(system) == 0  # the get is in the unit of work
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        wait_for(lambda: visible(system) == 1, what="the backout")
        local = pymqi.connect(system.qmgr.name)
        md = pymqi.MD()
        assert pymqi.Queue(local, QUEUE).get(None, md) == b"committed"
        assert md.BackoutCount == 1
        local.disconnect()
        assert any("CONNECTION LOST" in line for line in system.log)
    finally:
        system.stop()


def test_a_killed_server_gives_the_client_2009():
    """The server process is killed (SIGKILL) under a connected client: the client's
    next call fails 2009 MQRC_CONNECTION_BROKEN."""
    proc = python(SERVER, "SVKILL")
    try:
        port = int(proc.stdout.readline())
        qm = pymqi.connect("SVKILL", "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(qm, QUEUE)
        q.put(b"before")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
            q.put(b"after")
        with raises_mq(CMQC.MQRC_HOST_NOT_AVAILABLE):  # and nothing listens any more
            pymqi.connect("SVKILL", "APP.SVRCONN", f"127.0.0.1({port})")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def _rss_kb() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0  # pragma: no cover


def _garbage(port: int, rng: random.Random) -> None:
    kind = rng.randrange(3)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        if kind == 0:  # random bytes
            sock.sendall(rng.randbytes(rng.randrange(1, 600)))
        elif kind == 1:  # a TSH declaring 2 GB
            sock.sendall(b"TSHM\x7f\xff\xff\xff" + bytes(28))
        else:  # an ID cut short
            sock.sendall(b"TSHC\x00\x00\x01\x00\x02\x01")


def test_a_thousand_bad_connections_leave_the_server_serving():
    """1,000 connections that are not clients (garbage, absurd lengths, cut-short IDs,
    and 100 half-open ones held open) while a good client works: the good client is
    served throughout, and the server's threads and memory come back down."""
    system, port = serving()
    try:
        good = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        q = pymqi.Queue(good, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
        threads_before, rss_before = threading.active_count(), _rss_kb()
        half_open = [socket.create_connection(("127.0.0.1", port)) for _ in range(100)]
        rng = random.Random(26)
        served = 0
        for n in range(900):
            _garbage(port, rng)
            if n % 50 == 0:
                q.put(b"ping %d" % n)
                assert q.get() == b"ping %d" % n
                served += 1
        fresh = pymqi.connect(system.qmgr.name, "APP.SVRCONN", f"127.0.0.1({port})")
        fresh.disconnect()
        for sock in half_open:
            sock.close()
        wait_for(lambda: threading.active_count() <= threads_before + 2, timeout=30,
                 what="the server's threads to end")
        assert served == 18
        assert _rss_kb() - rss_before < 64 * 1024, "memory grew by more than 64 MB"
        good.disconnect()
    finally:
        system.stop()


CLIENT_WAITING = """
    import sys
    import tpfemu.mqi as pymqi
    from tpfemu.mqi import CMQC
    qm = pymqi.connect(sys.argv[1], "APP.SVRCONN", f"127.0.0.1({sys.argv[2]})")
    q = pymqi.Queue(qm, "APP.Q", CMQC.MQOO_INPUT_AS_Q_DEF)
    print("waiting", flush=True)
    q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_NO_SYNCPOINT,
                                      WaitInterval=CMQC.MQWI_UNLIMITED))
    print("got", flush=True)
"""


def test_a_client_killed_while_its_get_waits_takes_no_later_message():
    """A client process killed (SIGKILL) while its MQGET waits without a limit, outside
    syncpoint: the server ends the waiting get (IBM ends a broken client connection's
    calls), so a message put afterwards stays on the queue for others instead of going
    to the dead conversation and being lost; the queue's input count drops to 0."""
    system, port = serving()
    try:
        proc = python(CLIENT_WAITING, system.qmgr.name, str(port))
        assert proc.stdout.readline().strip() == "waiting"
        wait_for(lambda: system.qmgr.queues[QUEUE].waiters, timeout=20,
                 what="the client's get to wait on the queue")
        time.sleep(0.1)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        later_message_stays(system)
    finally:
        system.stop()
