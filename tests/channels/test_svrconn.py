"""SVRCONN channels (issue 26): pymqi's client over TCP to a System's listener.

Facts: reference/channels-bridge-clusters.md §1.9 (ID, CAUT, MQCONN, verbs behind a TSHM);
IBM's client reasons 2540 (channel not defined), 2059 (refused), 2035 (not authorized), 2537
(channel not available: MAXINST), 2009 (connection broken), 2058 (queue manager name).
Real parts: the System's Internet daemon listens on a loopback port, clients connect
with real sockets.
"""

from __future__ import annotations

import threading
import time

import pytest
from mca_helpers import ok, wait_for
from svrconn_helpers import QUEUE, depth, raises_mq, serving, visible

import tpfemu.mqi as pymqi
from tpfemu.channels import svrconn
from tpfemu.channels.svrconn_users import UserTable
from tpfemu.mqi import CMQC, CMQXC


@pytest.fixture
def served():
    """A System serving APP.SVRCONN (and APP.Q), with its events collected."""
    system, port = serving()
    events = []
    system.qmgr.events.subscribe_raw(lambda kind, queue, t, fields: events.append(
        (kind, queue, dict(fields))))
    yield system, port, events
    system.stop()


def client(system, port, channel="APP.SVRCONN", **kw):
    """A pymqi client connection to ``system`` through ``channel``."""
    return pymqi.connect(system.qmgr.name, channel, f"127.0.0.1({port})", **kw)


def test_put_over_tcp_is_an_ordinary_put(served):
    """A client's MQPUT fills the MD as IBM's does and the message is on the queue for an
    in-process reader, with the client's data and priority."""
    system, port, _ = served
    qm = client(system, port)
    md = pymqi.MD(Priority=6)
    pymqi.Queue(qm, QUEUE).put(b"over tcp", md)
    assert md.MsgId[:4] == b"AMQ " and md.PutApplType != 0
    local = pymqi.connect(system.qmgr.name)
    got_md = pymqi.MD()
    assert pymqi.Queue(local, QUEUE).get(None, got_md) == b"over tcp"
    assert (got_md.MsgId, got_md.Priority) == (md.MsgId, 6)
    local.disconnect()
    qm.disconnect()


def test_get_wait_blocks_no_other_conversation(served):
    """While one client waits in MQGET, another client's calls are served at once, and
    the waiting client gets the message put later."""
    system, port, _ = served
    ok(system, "ZMQSC DEF QL-OTHER.Q")
    waiter, worker = client(system, port), client(system, port)
    got = []

    def wait():
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=5000)
        got.append(pymqi.Queue(waiter, QUEUE).get(None, pymqi.MD(), gmo))

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.2)
    start = time.monotonic()
    other = pymqi.Queue(worker, "OTHER.Q")
    other.put(b"x")
    assert pymqi.Queue(worker, "OTHER.Q").get() == b"x"
    assert time.monotonic() - start < 1.0
    assert thread.is_alive()
    pymqi.Queue(worker, QUEUE).put(b"for the waiter")
    thread.join(5)
    assert got == [b"for the waiter"]
    waiter.disconnect()
    worker.disconnect()


def test_commit_backout_and_disconnect_over_tcp(served):
    """Syncpoint puts are invisible until MQCMIT, MQBACK removes them, and MQDISC commits
    what is open (IBM's normal end)."""
    system, port, _ = served
    qm = client(system, port)
    q = pymqi.Queue(qm, QUEUE)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q.put(b"a", pymqi.MD(), pmo)
    assert visible(system) == 0
    qm.commit()
    assert visible(system) == 1
    q.put(b"b", pymqi.MD(), pmo)
    qm.backout()
    assert visible(system) == 1
    q.put(b"c", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    qm.disconnect()
    assert wait_for(lambda: visible(system) == 2, what="MQDISC's commit")


def test_a_connection_closed_mid_unit_of_work_is_backed_out(served):
    """A client whose connection closes without MQDISC has its puts and gets backed out
    and its handles closed (the queue's open counts drop to 0)."""
    system, port, _ = served
    first = client(system, port)
    pymqi.Queue(first, QUEUE).put(b"kept")
    first.disconnect()
    qm = client(system, port)
    q_in = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    assert q_in.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)) == b"kept"
    pymqi.Queue(qm, QUEUE).put(b"lost", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert depth(system, selector=CMQC.MQIA_OPEN_INPUT_COUNT) == 1
    qm.connection.end(commit=False)  # the socket closes: no MQDISC
    wait_for(lambda: depth(system, selector=CMQC.MQIA_OPEN_INPUT_COUNT) == 0 and
             depth(system, selector=CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0, what="handles closed")
    assert wait_for(lambda: visible(system) == 1, what="the backout")
    local = pymqi.connect(system.qmgr.name)
    assert pymqi.Queue(local, QUEUE).get() == b"kept"
    local.disconnect()


def test_client_calls_after_the_server_stops_fail_2009(served):
    """When the server ends the conversation (the System stops), the client's next call
    fails 2009 MQRC_CONNECTION_BROKEN, and so does every later one."""
    system, port, _ = served
    qm = client(system, port)
    q = pymqi.Queue(qm, QUEUE)
    q.put(b"x")
    system.stop()
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        q.put(b"y")
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        qm.commit()


# -- security: each refusal with the client's reason, a console line, a journal event -------


def _refused(system, events, channel, status):
    assert any("CHNL0" in line and "REFUSED" in line and channel in line
               for line in system.log), "no console message"
    assert any(kind == "client-refused" and queue == channel and fields["status"] == status
               for kind, queue, fields in events), events


def test_undefined_channel_is_refused_2540(served):
    """A client naming a channel that is not defined gets 2540 MQRC_UNKNOWN_CHANNEL_NAME
    (IBM's reason for a channel name the server does not know); the console and the
    journal say so."""
    system, port, events = served
    with raises_mq(CMQC.MQRC_UNKNOWN_CHANNEL_NAME):
        client(system, port, "NO.SUCH.CHL")
    _refused(system, events, "NO.SUCH.CHL", "NO_CHANNEL")


def test_a_channel_of_another_type_is_refused_2539(served):
    """A client naming a receiver channel gets 2539 MQRC_CHANNEL_CONFIG_ERROR (IBM's reason
    when client and server cannot agree on the channel: what IBM's client reports for a
    sender or receiver channel's name); only SVRCONN channels take clients."""
    system, port, events = served
    ok(system, "ZMQSC DEF CHL-A.RCVR CHLTYPE-RCVR")
    with raises_mq(CMQC.MQRC_CHANNEL_CONFIG_ERROR):
        client(system, port, "A.RCVR")
    _refused(system, events, "A.RCVR", "CHANNEL_WRONG_TYPE")


def test_wrong_queue_manager_name_fails_2058(served):
    """MQCONN naming another queue manager fails 2058 MQRC_Q_MGR_NAME_ERROR."""
    system, port, _ = served
    with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR):
        pymqi.connect("OTHERQM", "APP.SVRCONN", f"127.0.0.1({port})")


@pytest.fixture
def users(tmp_path, monkeypatch):
    """The operator's user table (TPFEMU_CLIENT_USERS) with user app, password s3cret."""
    path = tmp_path / "clientusers"
    monkeypatch.setenv("TPFEMU_CLIENT_USERS", str(path))
    UserTable(path).set("app", "s3cret")
    return path


def test_password_checked_against_the_user_table(served, users):
    """On a CHCKCLNT(REQUIRED) channel the right password connects; a wrong one, an
    unknown user and no user at all get 2035, each a console line and journal event."""
    system, port, events = served
    ok(system, "ZMQSC DEF CHL-SEC.SVRCONN CHLTYPE-SVRCONN CHCKCLNT-REQUIRED")
    qm = client(system, port, "SEC.SVRCONN", user="app", password="s3cret")
    pymqi.Queue(qm, QUEUE).put(b"authorised")
    qm.disconnect()
    for user, password in (("app", "wrong"), ("nobody", "s3cret"), (None, None)):
        with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):
            client(system, port, "SEC.SVRCONN", user=user, password=password)
    _refused(system, events, "SEC.SVRCONN", "SECURITY_FAILURE")
    assert "s3cret" not in users.read_text()


def test_maxinst_plus_one_is_refused_2537(served):
    """MAXINST-2: two clients connect, the third gets 2537 MQRC_CHANNEL_NOT_AVAILABLE;
    when one leaves another may connect."""
    system, port, events = served
    ok(system, "ZMQSC DEF CHL-TWO.SVRCONN CHLTYPE-SVRCONN MAXINST-2")
    first, second = client(system, port, "TWO.SVRCONN"), client(system, port, "TWO.SVRCONN")
    with raises_mq(CMQC.MQRC_CHANNEL_NOT_AVAILABLE):
        client(system, port, "TWO.SVRCONN")
    _refused(system, events, "TWO.SVRCONN", "CHANNEL_UNAVAILABLE")
    first.disconnect()
    wait_for(lambda: svrconn.instances(system.channels, "TWO.SVRCONN") == 1,
             what="the first conversation to end")
    client(system, port, "TWO.SVRCONN").disconnect()
    second.disconnect()


def test_maxinstc_limits_the_conversations_from_one_client_address(served):
    """MAXINSTC-2 (IBM: the most instances of the channel one client address may start):
    two clients from 127.0.0.1 connect, the third gets 2537 MQRC_CHANNEL_NOT_AVAILABLE
    though MAXINST is not reached; the same address may still use another channel, and
    when one leaves another may connect."""
    system, port, events = served
    ok(system, "ZMQSC DEF CHL-PER.SVRCONN CHLTYPE-SVRCONN MAXINST-10 MAXINSTC-2")
    first, second = client(system, port, "PER.SVRCONN"), client(system, port, "PER.SVRCONN")
    with raises_mq(CMQC.MQRC_CHANNEL_NOT_AVAILABLE):
        client(system, port, "PER.SVRCONN")
    _refused(system, events, "PER.SVRCONN", "CHANNEL_UNAVAILABLE")
    assert any("MAXINSTC 2" in line for line in system.log)
    client(system, port).disconnect()
    first.disconnect()
    wait_for(lambda: svrconn.instances(system.channels, "PER.SVRCONN") == 1,
             what="the first conversation to end")
    client(system, port, "PER.SVRCONN").disconnect()
    second.disconnect()


def test_truncated_get_over_tcp(served):
    """A get with a buffer too small fails 2080 over TCP as in process, the message stays
    on the queue; the client's error has ``message`` b"" and ``original_length`` the
    message's length (the reply's DataLength)."""
    system, port, _ = served
    qm = client(system, port)
    pymqi.Queue(qm, QUEUE).put(b"0123456789")
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF)
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, comp=CMQC.MQCC_WARNING) as info:
        q.get(4)
    assert (info.value.message, info.value.original_length) == (b"", 10)
    assert q.get() == b"0123456789"
    qm.disconnect()


def test_accepted_truncation_over_tcp_gives_the_first_bytes_and_the_full_length(served):
    """MQGMO_ACCEPT_TRUNCATED_MSG with a buffer too small: warning 2079, the buffer holds
    the message's first bytes, DataLength (pymqi's ``original_length``) is the message's
    full length, the MQMD is filled, and the message is gone: as in process (IBM's MQGET:
    the reply's DataLength is the real length, not what fits)."""
    system, port, _ = served
    qm = client(system, port)
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    q.put(b"0123456789", pymqi.MD(Priority=7))
    md = pymqi.MD()
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, comp=CMQC.MQCC_WARNING) as info:
        q.get(4, md, pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert (info.value.message, info.value.original_length) == (b"0123", 10)
    assert md.Priority == 7
    assert depth(system) == 0
    qm.disconnect()


def test_failed_truncation_over_tcp_gives_the_full_length_and_leaves_the_message(served):
    """A buffer too small without ACCEPT_TRUNCATED_MSG: warning 2080, DataLength is the
    message's full length (pymqi's ``get`` retries with it), the MQMD is filled and the
    message stays; a get with that length then takes it whole."""
    system, port, _ = served
    qm = client(system, port)
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    q.put(b"x" * 5000, pymqi.MD(Priority=3))
    md = pymqi.MD()
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, comp=CMQC.MQCC_WARNING) as info:
        q.get(100, md)
    assert (info.value.message, info.value.original_length) == (b"", 5000)
    assert md.Priority == 3
    assert depth(system) == 1
    assert q.get(info.value.original_length) == b"x" * 5000
    qm.disconnect()


def _cd(port, max_msg_length):
    return pymqi.CD(ChannelName=b"APP.SVRCONN", ConnectionName=f"127.0.0.1({port})".encode(),
                    ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
                    MaxMsgLength=max_msg_length)


def test_a_message_longer_than_the_negotiated_maxmsgl_fails_2010(served):
    """The client's MQCD MaxMsgLength and the server's MAXMSGL are negotiated to the
    smaller; an MQPUT or MQPUT1 of more data, or an MQGET with a longer BufferLength,
    fails 2010 MQRC_DATA_LENGTH_ERROR (IBM's reason for a client call beyond the channel's
    negotiated maximum message size) and nothing is put; up to the limit is served."""
    system, port, _ = served
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(system.qmgr.name, cd=_cd(port, 1000))
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        q.put(b"x" * 1001)
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        q.put(b"x" * 1001, pymqi.MD(), pymqi.PMO(Version=CMQC.MQPMO_VERSION_2))
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        qm.put1(QUEUE, b"x" * 1001)
    assert depth(system) == 0
    q.put(b"y" * 1000)
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        q.get(1001)
    assert q.get(1000) == b"y" * 1000
    qm.disconnect()


def test_the_servers_maxmsgl_bounds_a_client_put_with_2010(served):
    """pymqi.connect's MQCD offers IBM's default MaxMsgLength (4 MB): the server's
    smaller MAXMSGL (the queue manager's) is agreed, and a longer put fails 2010; with
    the server's raised above 4 MB, the MQCD's 4 MB is agreed and bounds the put."""
    system, port, _ = served
    ok(system, "ZMQSC ALT MQP MAXMSGL-50000")
    ok(system, f"ZMQSC ALT QL-{QUEUE} MAXMSGL-50000")
    qm = client(system, port)
    q = pymqi.Queue(qm, QUEUE, CMQC.MQOO_INPUT_AS_Q_DEF | CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        q.put(b"x" * 50001)
    q.put(b"x" * 50000)
    assert q.get() == b"x" * 50000
    qm.disconnect()
    ok(system, "ZMQSC ALT MQP MAXMSGL-10000000")
    ok(system, f"ZMQSC ALT QL-{QUEUE} MAXMSGL-10000000")
    qm = client(system, port)
    with raises_mq(CMQC.MQRC_DATA_LENGTH_ERROR):
        pymqi.Queue(qm, QUEUE).put(bytes(4_194_305))
    qm.disconnect()
