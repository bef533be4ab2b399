"""SVRCONN heartbeats while an MQGET waits, and ends that stop answering.

IBM's HBINT for client connections: the larger of the client's (the MQCD's
HeartbeatInterval) and the server's value is used; while a client's MQGET waits, the
server sends heartbeats and the client answers them; an end that hears nothing for the
receive timeout (twice HBINT under 60 seconds) takes the connection as broken: the
server backs the client's unit of work out and ends its waiting get, the client's call
fails MQRC_CONNECTION_BROKEN (2009). Real processes are stopped with SIGSTOP (their
sockets stay open but silent) and killed afterwards.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

from mca_helpers import wait_for
from svrconn_helpers import (
    QUEUE,
    heartbeat_client,
    later_message_stays,
    python,
    raises_mq,
    serving,
)

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, CMQXC
from tpfemu.wire.fap.initial import receive_timeout


def _cd(port: int, channel: str = "HB.SVRCONN", hbint: int = 1) -> pymqi.CD:
    return pymqi.CD(ChannelName=channel.encode(), ConnectionName=f"127.0.0.1({port})".encode(),
                    ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
                    HeartbeatInterval=hbint)


def _stop(proc) -> None:
    """SIGSTOP ``proc`` and wait until it is stopped (kill returns before)."""
    os.kill(proc.pid, signal.SIGSTOP)
    wait_for(lambda: "T" in open(f"/proc/{proc.pid}/stat").read().split(")")[1][:3],
             timeout=5, what="the process to stop")


def test_receive_timeout_is_ibms_default():
    """Twice HBINT under 60 seconds, HBINT plus 60 from 60 on; none without heartbeats."""
    assert (receive_timeout(1), receive_timeout(59), receive_timeout(60),
            receive_timeout(300), receive_timeout(0)) == (2.0, 118.0, 120.0, 360.0, None)


def test_heartbeats_flow_while_a_get_waits_and_the_client_answers():
    """HBINT 1 at both ends: a get waiting 1.5 s hears a heartbeat, answers it, and ends
    2033 on time; the connection then serves on. A client offering a larger
    HeartbeatInterval (300) is held to it: no heartbeat in the same wait."""
    system, port = serving(channels="CHL-HB.SVRCONN CHLTYPE-SVRCONN HBINT-1")
    try:
        qm = pymqi.QueueManager(None)
        qm.connect_with_options(system.qmgr.name, cd=_cd(port))
        q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
        start = time.monotonic()
        with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
            q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=1500))
        assert 1.45 < time.monotonic() - start < 3.0
        assert qm.connection.heartbeats >= 1
        q.put(b"still here")
        assert q.get() == b"still here"
        qm.disconnect()
        slow = pymqi.QueueManager(None)
        slow.connect_with_options(system.qmgr.name, cd=_cd(port, hbint=300))
        with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
            pymqi.Queue(slow, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF).get(
                None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=1100))
        assert slow.connection.heartbeats == 0
        slow.disconnect()
    finally:
        system.stop()


WAITER = heartbeat_client("HB.SVRCONN", """
    print("waiting", flush=True)
    q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=-1))
""")


def test_a_client_that_stops_answering_is_detected_and_its_get_ended():
    """A client process stopped (SIGSTOP) while its get waits without a limit: it
    answers no heartbeat, so after the receive timeout (2 s for HBINT 1) the server ends
    the conversation: the handle is closed, and a message put afterwards stays for
    others."""
    system, port = serving(channels="CHL-HB.SVRCONN CHLTYPE-SVRCONN HBINT-1")
    proc = python(WAITER, system.qmgr.name, f"127.0.0.1({port})")
    try:
        assert proc.stdout.readline().strip() == "waiting"
        wait_for(lambda: system.qmgr.queues[QUEUE].waiters, timeout=20,
                 what="the client's get to wait on the queue")
        _stop(proc)
        stopped = time.monotonic()
        later_message_stays(system, timeout=8)
        assert 1.5 < time.monotonic() - stopped < 6.0  # (2 s, and a loaded machine)
    finally:
        proc.kill()
        proc.wait(10)
        system.stop()


SERVER = """
    import sys
    sys.path.insert(0, "tests/channels")
    from svrconn_helpers import serving
    system, port = serving(sys.argv[1], channels="CHL-HB.SVRCONN CHLTYPE-SVRCONN HBINT-1")
    print(port, flush=True)
    sys.stdin.readline()
"""


@contextlib.contextmanager
def _stopped_server(name: str, options: int, before: bytes | None = None):
    """A server process (SERVER) with a client connected and QUEUE open (``before``
    put first); the server is stopped (SIGSTOP) and the queue handed over. The call made
    with it must fail 2009 after the 2 s receive timeout, and the next call at once."""
    proc = python(SERVER, name)
    try:
        port = int(proc.stdout.readline())
        qm = pymqi.QueueManager(None)
        qm.connect_with_options(name, cd=_cd(port))
        q = pymqi.Queue(qm, QUEUE, options)
        if before is not None:
            q.put(before)
        _stop(proc)
        start = time.monotonic()
        yield q
        assert 1.5 < time.monotonic() - start < 6.0  # (2 s, and a loaded machine)
        with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
            q.get()
    finally:
        proc.kill()
        proc.wait(10)


def test_a_server_that_stops_answering_gives_the_waiting_client_2009():
    """The server process is stopped (SIGSTOP) while a client's get waits without a
    limit: no heartbeat comes, so after the receive timeout the client's MQGET fails
    2009 MQRC_CONNECTION_BROKEN instead of hanging, and so does its next call."""
    with _stopped_server("HBSTOP", CMQC.MQOO_INPUT_AS_Q_DEF) as q:
        with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
            q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=-1))


def test_a_bad_heartbeat_interval_in_the_mqcd_fails_2277():
    """An MQCD HeartbeatInterval outside 0-999999 seconds is refused before any
    connection is tried, MQRC_CD_ERROR naming it."""
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.QueueManager(None).connect_with_options("QM", cd=_cd(1414, hbint=-1))
    assert "HeartbeatInterval" in info.value.hint


def test_a_bad_max_msg_length_in_the_mqcd_fails_2277():
    """An MQCD MaxMsgLength outside 0-104857600 bytes is refused before any connection
    is tried, MQRC_CD_ERROR naming it."""
    cd = _cd(1414)
    cd.MaxMsgLength = 104_857_601
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.QueueManager(None).connect_with_options("QM", cd=cd)
    assert "MaxMsgLength" in info.value.hint


def test_a_server_that_stops_answering_gives_any_call_2009():
    """The server process is stopped (SIGSTOP) under a connected client: its next MQPUT
    (the one-call C exchange) and MQGET without a wait fail 2009 after the receive
    timeout instead of waiting for ever."""
    with _stopped_server("HBPUT", CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT,
                         before=b"before") as q:
        with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
            q.put(b"after")


def test_readable_sees_data_the_end_and_high_descriptors():
    """The watch's look at a socket: nothing, then bytes, then the end of the stream,
    each seen without waiting, on a descriptor above select's 1024 too."""
    import socket

    from tpfemu.channels.svrconn_wait import readable

    ours, theirs = socket.socketpair()
    high = None
    try:
        assert not readable(ours)
        theirs.sendall(b"x")
        assert readable(ours)
        high = socket.socket(fileno=os.dup2(ours.fileno(), 1500))
        assert readable(high)
        ours.recv(1)
        assert not readable(high)
        theirs.close()
        assert readable(high)
    finally:
        ours.close()
        theirs.close()
        if high is not None:
            high.close()
