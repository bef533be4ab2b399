"""pymqi's client names and connect forms (issue 26), and the one place that chooses
in-process or client (tpfemu.mqi.binding).

Facts: pymqi/ibmmq ``connect(queue_manager, channel, conn_info, user, password)``,
``QueueManager.connect_tcp_client(name, cd, channel, conn_name, user, password)`` (sets
MQCHT_CLNTCONN, MQXPT_TCP), ``connect_with_options(name, cd=, sco=, csp=, opts=)`` and the
old ``connect_with_options(name, cd, sco)``; ``MQSERVER=CHANNEL/TCP/host(port)``; IBM's
connection name ``host(port)`` (port 1414 by default, comma lists); MQCD lengths of the
4-byte-pointer layout 984..1944 (CMQXC), MQSCO 532..624, MQCSP 48, MQCNO 12..188;
MQCNO_HANDLE_SHARE_BLOCK 0x40, MQCNO_CLIENT_BINDING 0x800.

``import tpfemu.mqi`` installs the TCP client (tests/channels/test_svrconn*.py run it);
with no transport installed a client connection fails 2538 saying so. The transport port
is exercised here with a recording transport that only records the target it is given.
"""

from __future__ import annotations

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, CMQXC, binding


class RecordingTransport:
    """A client transport that records what it was asked to connect to, then refuses
    with 2059 (it reaches nothing)."""

    def __init__(self):
        self.calls = []

    def connect(self, target, qmgr_name, options):
        self.calls.append((target, qmgr_name, options))
        raise pymqi.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_MGR_NOT_AVAILABLE)


@pytest.fixture
def transport():
    """A RecordingTransport installed for the test, the previous one put back after."""
    recorder = RecordingTransport()
    previous = binding.install_transport(recorder)
    yield recorder
    binding.install_transport(previous)


@pytest.fixture
def no_mqserver(monkeypatch):
    """An environment without MQSERVER or MQ_CONNECT_TYPE."""
    monkeypatch.delenv("MQSERVER", raising=False)
    monkeypatch.delenv("MQ_CONNECT_TYPE", raising=False)


def _cd(channel="APP.SVRCONN", conn="127.0.0.1(1414)"):
    return pymqi.CD(ChannelName=channel, ConnectionName=conn,
                    ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP)


# -- the connect forms: each reaches the transport with the same target ---------------------

CONNECT_FORMS = {
    "connect": lambda: pymqi.connect("TPF9", "APP.SVRCONN", "127.0.0.1(1414)", "app", "pw"),
    "connect_tcp_client": lambda: pymqi.QueueManager(None).connect_tcp_client(
        "TPF9", pymqi.CD(), "APP.SVRCONN", "127.0.0.1(1414)", "app", "pw"),
    "connect_with_options": lambda: pymqi.QueueManager(None).connect_with_options(
        "TPF9", cd=_cd(), user="app", password="pw"),
    "connect_with_options(cd, sco)": lambda: pymqi.QueueManager(None).connect_with_options(
        "TPF9", _cd(), pymqi.SCO(), csp=pymqi.CSP(CSPUserId="app", CSPPassword="pw")),
    "connectWithOptions": lambda: pymqi.QueueManager(None).connectWithOptions(
        "TPF9", cd=_cd(), user="app", password="pw"),
}


@pytest.fixture
def no_transport():
    """No client transport installed for the test (the TCP one put back after)."""
    previous = binding.install_transport(None)
    yield
    binding.install_transport(previous)


@pytest.mark.parametrize("form", sorted(CONNECT_FORMS))
def test_every_client_form_fails_2538_without_a_transport(form, no_mqserver, no_transport):
    """With no client transport installed, each of pymqi's client forms fails 2538
    MQRC_HOST_NOT_AVAILABLE, saying no transport is installed (no fake success)."""
    with raises_mq(CMQC.MQRC_HOST_NOT_AVAILABLE) as info:
        CONNECT_FORMS[form]()
    assert "no client transport is installed" in str(info.value)
    assert "APP.SVRCONN" in str(info.value)


def test_the_tcp_transport_is_installed_by_importing_the_mqi():
    """``import tpfemu.mqi`` installs the TCP client as the client transport."""
    from tpfemu.mqi.client import TcpTransport

    assert isinstance(binding.current_transport(), TcpTransport)


@pytest.mark.parametrize("form", sorted(CONNECT_FORMS))
def test_every_client_form_gives_the_transport_one_target(form, transport, no_mqserver):
    """Each client form reaches the installed transport with channel APP.SVRCONN at
    127.0.0.1 port 1414 and user app/pw; the transport's refusal reaches the caller."""
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        CONNECT_FORMS[form]()
    [(target, qmgr_name, _options)] = transport.calls
    assert qmgr_name == "TPF9"
    assert (target.channel, target.host, target.port) == ("APP.SVRCONN", "127.0.0.1", 1414)
    assert (target.user, target.password) == ("app", "pw")
    assert "pw" not in repr(target)


def test_mqserver_names_the_channel_when_no_queue_manager_runs_here(transport, monkeypatch):
    """connect(name) with MQSERVER set and no such queue manager in this process is a
    client connection to the MQSERVER channel."""
    monkeypatch.setenv("MQSERVER", "SYSTEM.DEF.SVRCONN/TCP/localhost(1515)")
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.connect("ELSEWHERE")
    [(target, _, _)] = transport.calls
    assert (target.channel, target.host, target.port, target.source) == (
        "SYSTEM.DEF.SVRCONN", "localhost", 1515, "MQSERVER")


def test_a_queue_manager_running_here_wins_over_mqserver(qmgr, transport, monkeypatch):
    """connect(name) for a queue manager running in this process stays in-process even with
    MQSERVER set (in-process connections stay as they are)."""
    monkeypatch.setenv("MQSERVER", "APP.SVRCONN/TCP/localhost(1414)")
    qm = pymqi.connect(qmgr.name)
    assert qm.is_connected and transport.calls == []
    qm.disconnect()


def test_client_binding_option_uses_mqserver_even_for_a_local_name(qmgr, transport,
                                                                    monkeypatch):
    """MQCNO_CLIENT_BINDING asks for a client connection: MQSERVER is used although a queue
    manager of that name runs here."""
    monkeypatch.setenv("MQSERVER", "APP.SVRCONN/TCP/10.0.0.1")
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.QueueManager(None).connect_with_options(qmgr.name,
                                                      opts=CMQC.MQCNO_CLIENT_BINDING)
    [(target, _, options)] = transport.calls
    assert (target.host, target.port) == ("10.0.0.1", 1414)
    assert options & CMQC.MQCNO_CLIENT_BINDING


def test_client_binding_without_mqserver_fails_2058(qmgr, no_mqserver):
    """A client connection asked for with no channel anywhere fails 2058, saying to set
    MQSERVER."""
    with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR) as info:
        pymqi.QueueManager(None).connect_with_options(qmgr.name,
                                                      opts=CMQC.MQCNO_CLIENT_BINDING)
    assert "MQSERVER" in str(info.value)


def test_handle_sharing_options_reach_the_transport(transport, no_mqserver):
    """MQCNO options given as opts= and in a CNO are both passed on (handle sharing)."""
    cno = pymqi.CNO(Options=CMQC.MQCNO_HANDLE_SHARE_BLOCK)
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.QueueManager(None).connect_with_options(
            "TPF9", cd=_cd(), cno=cno, opts=CMQC.MQCNO_RECONNECT_DISABLED)
    [(_, _, options)] = transport.calls
    assert options == CMQC.MQCNO_HANDLE_SHARE_BLOCK | CMQC.MQCNO_RECONNECT_DISABLED


def test_connect_takes_ibmmqs_structure_keywords(transport, no_mqserver):
    """ibmmq's connect(queue_manager, channel, conn_info, user, password, ..., cd=, cno=,
    csp=, sco=, bno=): with a channel the CD gives the channel's other fields and the CNO
    its options; without one a CD alone makes the client connection."""
    cno = pymqi.CNO(Options=CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK)
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.connect("TPF9", "APP.SVRCONN", "127.0.0.1(1415)", cno=cno,
                      cd=pymqi.CD(SSLCipherSpec=b"TLS_AES_128_GCM_SHA256"),
                      csp=pymqi.CSP(CSPUserId="app", CSPPassword="pw"))
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.connect("TPF9", cd=_cd(conn="10.0.0.2(1416)"), bno=None)
    [(first, _, options), (second, _, _)] = transport.calls
    assert (first.channel, first.port, first.user, first.password) == (
        "APP.SVRCONN", 1415, "app", "pw")
    assert first.tls is not None and options & CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK
    assert (second.channel, second.host, second.port) == ("APP.SVRCONN", "10.0.0.2", 1416)


def test_tls_settings_come_from_the_cd_and_sco(transport, no_mqserver):
    """A CD with an SSLCipherSpec and an SCO give the target its TLS settings."""
    cd = _cd()
    cd.SSLCipherSpec = "TLS_AES_128_GCM_SHA256"
    sco = pymqi.SCO(KeyRepository="/var/keys/client", CertificateLabel="mycert")
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.QueueManager(None).connect_with_options("TPF9", cd, sco)
    [(target, _, _)] = transport.calls
    assert target.tls == binding.TlsSettings("TLS_AES_128_GCM_SHA256", "/var/keys/client",
                                             "mycert")


# -- refusals ------------------------------------------------------------------------------------


@pytest.mark.parametrize("conn_info", ["localhost(abc)", "localhost(1414", "(1414)",
                                       "localhost(70000)", "", "host one(1414)"])
def test_bad_connection_names_fail_cd_error(conn_info, transport, no_mqserver):
    """A connection name that is not host(port) fails 2277 MQRC_CD_ERROR naming it; the
    transport is never asked."""
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.connect("TPF9", "APP.SVRCONN", conn_info)
    assert "connection name" in str(info.value)
    assert transport.calls == []


@pytest.mark.parametrize(("channel", "conn_info", "words"), [
    ("A.CHANNEL.NAME.OVER.20", "host(1414)", "ChannelName"),
    ("APP.SVRCONN", "h" * 260 + "(1414)", "ConnectionName"),
])
def test_connect_with_a_too_long_channel_or_connection_name_fails_cd_error(
        channel, conn_info, words, transport, no_mqserver):
    """pymqi.connect with a channel name over 20 characters, or a connection name over
    264, fails 2277 MQRC_CD_ERROR naming the MQCD field (not a ValueError); the transport
    is never asked."""
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.connect("TPF9", channel, conn_info)
    assert words in str(info.value)
    assert transport.calls == []


def test_a_client_mqconn_with_a_queue_manager_name_over_48_fails_2058(no_mqserver):
    """A queue manager name longer than MQ_Q_MGR_NAME_LENGTH (48) fails 2058
    MQRC_Q_MGR_NAME_ERROR over a client as in process, before any connection is tried
    (nothing listens at the address: else 2538)."""
    with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR):
        pymqi.connect("Q" * 49, "APP.SVRCONN", "127.0.0.1(1)")


@pytest.mark.parametrize(("cd_fields", "words"), [
    ({"ChannelType": CMQXC.MQCHT_SENDER}, "MQCHT_CLNTCONN"),
    ({"TransportType": CMQXC.MQXPT_LU62}, "MQXPT_TCP"),
    ({"ChannelName": ""}, "channel name is empty"),
])
def test_a_cd_that_is_not_a_tcp_client_channel_fails_cd_error(cd_fields, words, no_mqserver):
    """An MQCD that is no TCP client-connection channel fails 2277, saying which field."""
    cd = _cd()
    cd.set(**cd_fields)
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.QueueManager(None).connect_with_options("TPF9", cd=cd)
    assert words in str(info.value)


@pytest.mark.parametrize("value", ["APP.SVRCONN/TCP", "APP.SVRCONN/LU62/host(1414)",
                                   "A.CHANNEL.NAME.OVER.20.CHARS/TCP/host(1414)"])
def test_bad_mqserver_fails_cd_error(value, monkeypatch):
    """An MQSERVER that is not CHANNEL/TCP/host(port) fails 2277 naming what is wrong."""
    monkeypatch.setenv("MQSERVER", value)
    with raises_mq(CMQC.MQRC_CD_ERROR):
        pymqi.connect("NOT.RUNNING.HERE")


def test_user_without_password_is_refused(no_mqserver):
    """A user without a password is a ValueError, as ibmmq's connect_with_options."""
    with pytest.raises(ValueError, match="password"):
        pymqi.QueueManager(None).connect_with_options("TPF9", cd=_cd(), user="app")


def test_wrong_structure_classes_are_refused(no_mqserver):
    """cd=, sco=, csp= of the wrong class are TypeErrors naming the keyword."""
    for kwargs, word in (({"cd": pymqi.MD()}, "cd"), ({"cd": _cd(), "sco": pymqi.CSP()}, "sco"),
                         ({"cd": _cd(), "csp": pymqi.SCO()}, "csp")):
        with pytest.raises(TypeError, match=word):
            pymqi.QueueManager(None).connect_with_options("TPF9", **kwargs)


def test_connect_with_options_refuses_unknown_keywords():
    """A misspelt keyword is a TypeError naming it, not a silent default."""
    with pytest.raises(TypeError, match="chanel"):
        pymqi.QueueManager(None).connect_with_options("TPF9", chanel="X")


# -- parsing ---------------------------------------------------------------------------------


def test_connection_name_forms():
    """host(port), host alone (1414) and a comma list parse to (host, port) pairs."""
    assert binding.parse_conn_name("127.0.0.1(1415)") == (("127.0.0.1", 1415),)
    assert binding.parse_conn_name(b"mqhost ") == (("mqhost", 1414),)
    assert binding.parse_conn_name("a(1),b( 2 )") == (("a", 1), ("b", 2))


def test_mqserver_parse():
    """MQSERVER CHANNEL/TCP/host(port) gives the channel and its addresses; tcp is any case."""
    assert binding.parse_mqserver("DEV.APP.SVRCONN/tcp/localhost(1414)") == (
        "DEV.APP.SVRCONN", (("localhost", 1414),))


# -- the structures -----------------------------------------------------------------------------


def test_client_structure_sizes():
    """CD, SCO, CSP and CNO pack to IBM's lengths of each version (4-byte pointers)."""
    for cls, lengths in ((pymqi.CD, {1: 984, 2: 1312, 6: 1648, 7: 1748, 11: 1940, 12: 1944}),
                         (pymqi.SCO, {1: 532, 5: 624}), (pymqi.CSP, {1: 48}),
                         (pymqi.CNO, {1: 12, 2: 20, 5: 188})):
        for version, length in lengths.items():
            assert len(cls(Version=version).pack()) == length, (cls, version)
    assert CMQXC.MQCD_LENGTH_11 == 1940 and CMQC.MQSCO_LENGTH_5 == 624


def test_cd_defaults_and_round_trip():
    """CD() has IBM's MQCD_DEFAULT values; a packed CD unpacks equal, lists included."""
    cd = pymqi.CD()
    assert (cd.ChannelType, cd.TransportType, cd.MaxMsgLength) == (
        CMQXC.MQCHT_SENDER, CMQXC.MQXPT_LU62, 4194304)
    cd = _cd()
    cd.Version = CMQXC.MQCD_VERSION_11
    cd.MsgCompList = [CMQXC.MQCOMPRESS_ZLIBHIGH] + [CMQXC.MQCOMPRESS_NONE] * 15
    again = pymqi.CD().unpack(cd.pack())
    assert again == cd and again.MsgCompList[0] == CMQXC.MQCOMPRESS_ZLIBHIGH
    assert again.ConnectionName.rstrip() == b"127.0.0.1(1414)"


def test_cd_field_checks():
    """A channel name over 20 bytes, an unknown field or a short list is refused."""
    with pytest.raises(ValueError, match="ChannelName"):
        pymqi.CD(ChannelName="X" * 21)
    with pytest.raises(AttributeError, match="ChanelName"):
        pymqi.CD().ChanelName = "X"
    with pytest.raises(ValueError, match="MsgCompList"):
        pymqi.CD(MsgCompList=[0])


def test_csp_user_and_password():
    """CSPUserId/CSPPassword set the authentication type and lengths; the password stays
    out of repr."""
    csp = pymqi.CSP()
    csp.CSPUserId = "app"
    csp.CSPPassword = "s3cret"
    assert csp.AuthenticationType == CMQC.MQCSP_AUTH_USER_ID_AND_PWD
    assert (csp.CSPUserIdLength, csp.CSPPasswordLength) == (3, 6)
    assert (csp.CSPUserId, csp.CSPPassword) == (b"app", b"s3cret")
    assert "s3cret" not in repr(csp) and "s3cret" not in str(csp)


def test_client_constants():
    """CMQXC and CMQC carry the channel and connect-option values of IBM's headers."""
    assert (CMQXC.MQCHT_CLNTCONN, CMQXC.MQCHT_SVRCONN, CMQXC.MQXPT_TCP) == (6, 7, 2)
    assert (CMQC.MQCHT_CLNTCONN, CMQC.MQXPT_TCP) == (6, 2)  # pymqi's CMQC has them too
    assert (CMQC.MQCNO_HANDLE_SHARE_NONE, CMQC.MQCNO_HANDLE_SHARE_BLOCK,
            CMQC.MQCNO_HANDLE_SHARE_NO_BLOCK) == (0x20, 0x40, 0x80)
    assert (CMQC.MQCNO_CLIENT_BINDING, CMQC.MQCNO_LOCAL_BINDING) == (0x800, 0x400)
    assert pymqi.cd is pymqi.CD and pymqi.sco is pymqi.SCO
    assert issubclass(pymqi.MQMIError, pymqi.Error) and issubclass(pymqi.PYIFError, pymqi.Error)


def test_in_process_connect_options_change_nothing(qmgr, local_queue):
    """In process MQCNO_HANDLE_SHARE_NONE is accepted and the connection still serves
    another thread (IBM ties such an hconn to its thread)."""
    import threading

    qm = pymqi.QueueManager(None)
    qm.connect_with_options(qmgr.name, opts=CMQC.MQCNO_HANDLE_SHARE_NONE)
    done = []
    worker = threading.Thread(target=lambda: done.append(qm.put1(local_queue, b"from a thread")))
    worker.start()
    worker.join()
    assert done == [None]
    assert pymqi.Queue(qm, local_queue).get() == b"from a thread"
    qm.disconnect()
