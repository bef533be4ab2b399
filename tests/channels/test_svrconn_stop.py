"""STOP CHL and START CHL of a server-connection channel, as an operator uses them to end
client connections: the conversations end (QUIESCE after the call in progress, FORCE at
once), their units of work are backed out, the clients' calls fail, and the channel
refuses clients until START.

Facts (IBM, "Stopping MQI channels"): a client receives MQRC_CONNECTION_QUIESCING (2202)
or MQRC_CONNECTION_BROKEN (2009), according to the call and the mode; a stopped
server-connection channel takes no client (2537 MQRC_CHANNEL_NOT_AVAILABLE). Real parts:
the System's Internet daemon on a loopback port, clients over real sockets, one of them
in another process.
"""

from __future__ import annotations

import threading

import pytest
from mca_helpers import ok, wait_for
from svrconn_helpers import QUEUE, WaitingGets, depth, python, raises_mq, serving, visible

import tpfemu.mqi as pymqi
from tpfemu.channels import svrconn
from tpfemu.console import messages as m
from tpfemu.mqi import CMQC

CHANNEL = "APP.SVRCONN"


@pytest.fixture
def served():
    system, port = serving()
    yield system, port
    system.stop()


def client(system, port):
    return pymqi.connect(system.qmgr.name, CHANNEL, f"127.0.0.1({port})")


def _conversations(system) -> int:
    return svrconn.instances(system.channels, CHANNEL)


def _waiting_get(qm, options: int, outcome: list) -> threading.Thread:
    """A thread whose client waits (up to 30 s) in MQGET on APP.Q with ``options``;
    what the get gave (its reason, or the message) goes to ``outcome``."""
    def run() -> None:
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | options, WaitInterval=30_000)
        try:
            outcome.append(pymqi.Queue(qm, QUEUE).get(None, pymqi.MD(), gmo))
        except pymqi.MQMIError as exc:
            outcome.append(exc.reason)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_stop_quiesce_ends_every_conversation_and_backs_their_work_out(served, monkeypatch):
    """STOP CHL (MODE QUIESCE, the default) of a channel with three clients: one idle
    with an uncommitted put, one waiting in MQGET with MQGMO_FAIL_IF_QUIESCING (2202),
    one waiting without it (2009). The put is backed out, every later call fails 2009,
    and the console says what ended."""
    system, port = served
    idle, fiq, plain = client(system, port), client(system, port), client(system, port)
    pymqi.Queue(idle, QUEUE).put(b"never committed", pymqi.MD(),
                                 pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    outcomes: dict[str, list] = {"fiq": [], "plain": []}
    waiting = WaitingGets(monkeypatch)
    threads = [_waiting_get(fiq, CMQC.MQGMO_FAIL_IF_QUIESCING, outcomes["fiq"]),
               _waiting_get(plain, 0, outcomes["plain"])]
    waiting.wait(2)

    response = ok(system, f"ZMQSC STOP CHL-{CHANNEL}")
    assert m.CHL_DONE.id in response and "3 CONVERSATION(S) ENDING" in response
    for thread in threads:
        thread.join(10)
    assert outcomes == {"fiq": [CMQC.MQRC_CONNECTION_QUIESCING],
                        "plain": [CMQC.MQRC_CONNECTION_BROKEN]}
    wait_for(lambda: _conversations(system) == 0, what="the conversations to end")
    assert depth(system) == 0  # the uncommitted put was backed out
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        idle.commit()
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        pymqi.Queue(fiq, QUEUE).put(b"after the stop")
    ended = [line for line in system.log if "ENDED BY STOP CHL (MODE-QUIESCE)" in line]
    assert len(ended) == 3
    assert sum("UNIT OF WORK IS BACKED OUT" in line for line in ended) == 3


def test_a_stopped_channel_refuses_clients_until_start(served):
    """After STOP CHL the channel refuses new clients with 2537, and a second STOP is
    refused (already stopped); START CHL takes clients again. DISP CHL shows the stop."""
    system, port = served
    ok(system, f"ZMQSC STOP CHL-{CHANNEL}")
    with raises_mq(CMQC.MQRC_CHANNEL_NOT_AVAILABLE):
        client(system, port)
    assert any("REFUSED" in line and "IS STOPPED" in line for line in system.log)
    assert "ALREADY STOPPED" in system.console(f"ZMQSC STOP CHL-{CHANNEL} MODE-FORCE")
    assert "STOPPED" in system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    response = ok(system, f"ZMQSC START CHL-{CHANNEL}")
    assert "IT TAKES CLIENTS" in response
    qm = client(system, port)
    pymqi.Queue(qm, QUEUE).put(b"welcome back")
    qm.disconnect()
    assert visible(system) == 1


def test_stop_force_ends_a_waiting_get_at_once_as_broken(served, monkeypatch):
    """MODE FORCE does not quiesce: a get waiting with MQGMO_FAIL_IF_QUIESCING ends 2009,
    within a second of the command, and a message put afterwards stays on the queue."""
    import time

    system, port = served
    qm = client(system, port)
    outcome: list = []
    waiting = WaitingGets(monkeypatch)
    thread = _waiting_get(qm, CMQC.MQGMO_FAIL_IF_QUIESCING, outcome)
    waiting.wait(1)
    started = time.monotonic()
    ok(system, f"ZMQSC STOP CHL-{CHANNEL} MODE-FORCE")
    thread.join(10)
    assert outcome == [CMQC.MQRC_CONNECTION_BROKEN]
    assert time.monotonic() - started < 1.0
    wait_for(lambda: depth(system, selector=CMQC.MQIA_OPEN_INPUT_COUNT) == 0,
             what="the handle to close")
    local = pymqi.connect(system.qmgr.name)
    pymqi.Queue(local, QUEUE).put(b"stays")
    local.disconnect()
    assert visible(system) == 1
    assert any("ENDED BY STOP CHL (MODE-FORCE)" in line for line in system.log)


def test_stop_reaches_a_client_in_another_process(served, monkeypatch):
    """A client program in another process, waiting in MQGET, learns of the stop (2009)
    and its handle is closed; a channel of another name keeps its conversation."""
    system, port = served
    ok(system, "ZMQSC DEF CHL-OTHER.SVRCONN CHLTYPE-SVRCONN")
    other = pymqi.connect(system.qmgr.name, "OTHER.SVRCONN", f"127.0.0.1({port})")
    proc = python(f"""
        import tpfemu.mqi as pymqi
        from tpfemu.mqi import CMQC
        qm = pymqi.connect({system.qmgr.name!r}, {CHANNEL!r}, "127.0.0.1({port})")
        print("connected", flush=True)
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=30000)
        try:
            pymqi.Queue(qm, {QUEUE!r}).get(None, pymqi.MD(), gmo)
            print("got a message")
        except pymqi.MQMIError as exc:
            print("reason", exc.reason)
    """)
    try:
        assert proc.stdout is not None
        waiting = WaitingGets(monkeypatch)
        assert proc.stdout.readline().strip() == "connected"
        waiting.wait(1)
        ok(system, f"ZMQSC STOP CHL-{CHANNEL}")
        out, _ = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert out.strip() == f"reason {CMQC.MQRC_CONNECTION_BROKEN}"
    wait_for(lambda: depth(system, selector=CMQC.MQIA_OPEN_INPUT_COUNT) == 0,
             what="its handle to close")
    pymqi.Queue(other, QUEUE).put(b"still served")
    other.disconnect()
    assert visible(system) == 1


def test_disp_chl_shows_the_clients_a_stop_would_end(served):
    """DISP CHL of a SVRCONN channel shows its conversations as an operator needs them
    before a STOP: STATUS RUNNING, CONVS and a CLIENT row each (address, user,
    application); INACTIVE with none; STOPPED, with the stop's reason, after STOP CHL."""
    system, port = served
    shown = system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    assert "STATUS   INACTIVE" in shown and "CONVS    0" in shown
    first = pymqi.connect(system.qmgr.name, CHANNEL, f"127.0.0.1({port})", "alice", "secret")
    second = client(system, port)
    shown = system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    assert "STATUS   RUNNING" in shown and "CONVS    2" in shown
    clients = [line for line in shown.splitlines() if " CLIENT " in line]
    assert len(clients) == 2
    assert all("127.0.0.1:" in line and " APPL " in line and " SINCE " in line
               for line in clients)
    assert sum(" USER alice " in line for line in clients) == 1
    first.disconnect()
    wait_for(lambda: "CONVS    1" in system.console(f"ZMQSC DISP CHL-{CHANNEL}"),
             what="one conversation left")
    ok(system, f"ZMQSC STOP CHL-{CHANNEL} MODE-FORCE")
    wait_for(lambda: _conversations(system) == 0, what="the conversation to end")
    shown = system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    assert "STATUS   STOPPED" in shown and "CONVS    0" in shown
    assert "STOPPED BY OPERATOR (MODE-FORCE)" in shown
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        second.commit()


def test_a_svrconn_channel_with_clients_cannot_be_deleted(served):
    """DEL CHL of a SVRCONN channel a client is connected on is refused, as IBM refuses
    deleting an active channel; once STOP CHL ended the conversation it is deleted, and
    defined again it takes clients (the stopped state went with the deletion)."""
    system, port = served
    qm = client(system, port)
    refused = system.console(f"ZMQSC DEL CHL-{CHANNEL}")
    assert "IT IS RUNNING" in refused
    assert system.qmgr.catalog.find_channel(CHANNEL) is not None
    pymqi.Queue(qm, QUEUE).put(b"still connected")
    ok(system, f"ZMQSC STOP CHL-{CHANNEL} MODE-FORCE")
    wait_for(lambda: _conversations(system) == 0, what="the conversation to end")
    ok(system, f"ZMQSC DEL CHL-{CHANNEL}")
    ok(system, f"ZMQSC DEF CHL-{CHANNEL} CHLTYPE-SVRCONN")
    assert "STATUS   INACTIVE" in system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    again = client(system, port)
    again.disconnect()


def test_stop_status_inactive_and_conname_end_conversations_and_keep_the_channel(served):
    """STOP CHL CONNAME-address ends only the conversations from that client address
    (with its port, only that connection) and the channel goes on taking clients, as
    STATUS-INACTIVE does for all of them; CONNAME with STATUS-STOPPED is refused, and so
    is a CONNAME no conversation comes from."""
    system, port = served
    first, second = client(system, port), client(system, port)
    peers = [row[0] for row in svrconn.conversations(system.channels, CHANNEL)]
    host, one_port = peers[0].rsplit(":", 1)
    response = ok(system, f"ZMQSC STOP CHL-{CHANNEL} MODE-FORCE CONNAME-'{host}({one_port})'")
    assert "1 CONVERSATION(S) ENDING; IT TAKES CLIENTS" in response
    assert f"CONNAME-{host}({one_port})" in response
    wait_for(lambda: _conversations(system) == 1, what="that one conversation to end")
    survivors = [row[0] for row in svrconn.conversations(system.channels, CHANNEL)]
    assert survivors == peers[1:]
    refused = system.console(f"ZMQSC STOP CHL-{CHANNEL} CONNAME-{host} STATUS-STOPPED")
    assert "STATUS MUST BE INACTIVE" in refused
    assert "NO CONVERSATION FROM 10.9.9.9" in system.console(
        f"ZMQSC STOP CHL-{CHANNEL} CONNAME-10.9.9.9")
    third = client(system, port)  # (the channel takes clients)
    response = ok(system, f"ZMQSC STOP CHL-{CHANNEL} STATUS-INACTIVE MODE-FORCE")
    assert "2 CONVERSATION(S) ENDING; IT TAKES CLIENTS" in response
    wait_for(lambda: _conversations(system) == 0, what="the conversations to end")
    for qm in (first, second, third):
        with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
            qm.commit()
    assert "STATUS   INACTIVE" in system.console(f"ZMQSC DISP CHL-{CHANNEL}")
    client(system, port).disconnect()
    ok(system, "ZMQSC DEF CHL-R1 CHLTYPE-RCVR")
    assert "STATUS AND CONNAME ARE TAKEN FOR SVRCONN CHANNELS ONLY" in system.console(
        "ZMQSC STOP CHL-R1 STATUS-INACTIVE")
    ok(system, f"ZMQSC STOP CHL-{CHANNEL}")
    assert "ALREADY STOPPED" in system.console(f"ZMQSC STOP CHL-{CHANNEL} STATUS-INACTIVE")
