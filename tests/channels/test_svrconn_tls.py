"""TLS on SVRCONN channels (issue 26): Python's ssl at both ends, certificates made by
the test with the openssl command (never committed).

Facts: IBM's SSLCIPH (a CipherSpec name selects the TLS version), SSLCAUTH(REQUIRED)
(the client must show a certificate), a plain connection to a TLS channel is refused.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from mca_helpers import ok
from svrconn_helpers import QUEUE, raises_mq, serving

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, CMQXC

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")


def _openssl(*args: str, cwd) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by
    the CA: (key repository directory, CA file, client PEM)."""
    d = tmp_path_factory.mktemp("keyr")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
             "ca.pem", "-days", "2", "-subj", "/CN=tpfemu test CA", cwd=d)
    for name, extra in (("server", "subjectAltName=IP:127.0.0.1"),
                        ("client", "extendedKeyUsage=clientAuth")):
        _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out",
                 f"{name}.csr", "-subj", f"/CN=tpfemu {name}", cwd=d)
        (d / f"{name}.ext").write_text(extra + "\n")
        _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", f"{name}.crt", "-days", "2", "-extfile",
                 f"{name}.ext", cwd=d)
        (d / f"{name}.pem").write_bytes((d / f"{name}.crt").read_bytes()
                                        + (d / f"{name}.key").read_bytes())
    return d, d / "ca.pem", d / "client.pem"


@pytest.fixture
def tls_served(certs, monkeypatch):
    """A System whose key repository (TPFEMU_SSL_KEYR) holds server.pem and ca.pem, with
    TLS.SVRCONN (SSLCIPH ANY_TLS12_OR_HIGHER) and CERT.SVRCONN (SSLCAUTH REQUIRED)."""
    monkeypatch.setenv("TPFEMU_SSL_KEYR", str(certs[0]))
    system, port = serving(channels="CHL-TLS.SVRCONN CHLTYPE-SVRCONN "
                                    "SSLCIPH-ANY_TLS12_OR_HIGHER")
    ok(system, "ZMQSC DEF CHL-CERT.SVRCONN CHLTYPE-SVRCONN SSLCIPH-ANY_TLS13 "
               "SSLCAUTH-REQUIRED")
    events = []
    system.qmgr.events.subscribe_raw(lambda k, q, t, f: events.append((k, q, dict(f))))
    yield system, port, events
    system.stop()


def _tls_connect(system, port, channel, ca, spec="ANY_TLS12_OR_HIGHER", label=""):
    cd = pymqi.CD(ChannelName=channel.encode(), ConnectionName=f"127.0.0.1({port})".encode(),
                  ChannelType=CMQXC.MQCHT_CLNTCONN, TransportType=CMQXC.MQXPT_TCP,
                  SSLCipherSpec=spec.encode())
    sco = pymqi.SCO(KeyRepository=str(ca).encode(), CertificateLabel=label.encode())
    qm = pymqi.QueueManager(None)
    qm.connect_with_options(system.qmgr.name, cd=cd, sco=sco)
    return qm


def test_tls_channel_carries_puts_and_gets(tls_served, certs):
    """A client with the channel's CipherSpec and the CA connects over TLS and its put
    and get work as over plain TCP."""
    system, port, _ = tls_served
    qm = _tls_connect(system, port, "TLS.SVRCONN", certs[1])
    pymqi.Queue(qm, QUEUE).put(b"secret")
    assert pymqi.Queue(qm, QUEUE).get() == b"secret"
    qm.disconnect()


def test_plain_connection_to_a_tls_channel_is_refused(tls_served):
    """A client without TLS naming a TLS channel gets 2059; the console and the journal
    record the refusal (CIPHER_SPEC)."""
    system, port, events = tls_served
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        pymqi.connect(system.qmgr.name, "TLS.SVRCONN", f"127.0.0.1({port})")
    assert any("TLS.SVRCONN" in line and "PLAIN CONNECTION IS REFUSED" in line
               for line in system.log)
    assert ("client-refused", "TLS.SVRCONN") in [(k, q) for k, q, _ in events]


def test_client_certificate_required(tls_served, certs):
    """SSLCAUTH(REQUIRED): without a client certificate the client gets 2035; with one
    the CA signed it connects (TLS 1.3, as SSLCIPH ANY_TLS13 asks)."""
    system, port, _ = tls_served
    with raises_mq(CMQC.MQRC_NOT_AUTHORIZED):
        _tls_connect(system, port, "CERT.SVRCONN", certs[1], "ANY_TLS13")
    qm = _tls_connect(system, port, "CERT.SVRCONN", certs[1], "ANY_TLS13", str(certs[2]))
    qm.disconnect()


def test_a_tls_version_the_channel_does_not_take_is_refused(tls_served, certs):
    """A client that agrees TLS 1.2 on a channel whose SSLCIPH needs TLS 1.3 gets 2059."""
    system, port, _ = tls_served
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        _tls_connect(system, port, "CERT.SVRCONN", certs[1], "ANY_TLS12", str(certs[2]))


def test_an_unknown_cipher_spec_is_accepted_by_define_and_refused_at_connect(tls_served,
                                                                            certs):
    """DEF CHL takes any SSLCIPH text; a TLS client on a channel whose SSLCIPH names no
    CipherSpec we know is refused (2059) with a console line naming it."""
    system, port, _ = tls_served
    ok(system, "ZMQSC DEF CHL-ODD.SVRCONN CHLTYPE-SVRCONN SSLCIPH-NO_SUCH_SPEC")
    with raises_mq(CMQC.MQRC_Q_MGR_NOT_AVAILABLE):
        _tls_connect(system, port, "ODD.SVRCONN", certs[1])
    assert any("NO_SUCH_SPEC IS NOT A CIPHER SPEC" in line for line in system.log)


def test_stop_chl_ends_a_tls_conversation(tls_served, certs, monkeypatch):
    """STOP CHL reaches a conversation over TLS as over plain TCP: its MQGET waiting with
    MQGMO_FAIL_IF_QUIESCING ends 2202 (the reply still goes out over TLS), its next call
    fails 2009, and the channel refuses a new TLS client with 2537 until START."""
    from svrconn_helpers import WaitingGets, raises_mq

    system, port, _ = tls_served
    qm = _tls_connect(system, port, "TLS.SVRCONN", certs[1])
    queue = pymqi.Queue(qm, QUEUE)
    outcome: list = []

    def wait() -> None:
        gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING,
                        WaitInterval=30_000)
        try:
            queue.get(None, pymqi.MD(), gmo)
        except pymqi.MQMIError as exc:
            outcome.append(exc.reason)

    import threading

    waiting = WaitingGets(monkeypatch)
    thread = threading.Thread(target=wait, daemon=True)
    thread.start()
    waiting.wait(1)
    ok(system, "ZMQSC STOP CHL-TLS.SVRCONN")
    thread.join(10)
    assert outcome == [CMQC.MQRC_CONNECTION_QUIESCING]
    with raises_mq(CMQC.MQRC_CONNECTION_BROKEN):
        queue.put(b"too late")
    with raises_mq(CMQC.MQRC_CHANNEL_NOT_AVAILABLE):
        _tls_connect(system, port, "TLS.SVRCONN", certs[1])
    ok(system, "ZMQSC START CHL-TLS.SVRCONN")
    again = _tls_connect(system, port, "TLS.SVRCONN", certs[1])
    pymqi.Queue(again, QUEUE).put(b"back")
    again.disconnect()
