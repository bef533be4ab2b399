"""TLS for SVRCONN channels: the server's end, through Python's ssl.

The listener (CMQL) reads a connection's first bytes before it knows what the connection
is. When they start a TLS handshake (a TLS record of type 22), CMQL calls :func:`accept`,
which runs the handshake over an :class:`ssl.SSLObject` fed with those bytes and then the
socket's, and returns a :class:`TlsSocket`: the socket calls a :class:`Link` makes, with
TLS underneath. The client's ID then names the channel, and svrconn checks that channel's
SSLCIPH against the TLS version agreed (:func:`cipher_problem`) and its SSLCAUTH against
the certificate the client showed.

The key repository (IBM's SSLKEYR) is a directory: ``$TPFEMU_SSL_KEYR`` when set, else
``ssl`` in the System's home. It holds ``server.pem`` (the server's certificate chain and
private key, PEM) and, to accept client certificates, ``ca.pem`` (the CA certificates the
server trusts for them). docs/clients.md says how an operator makes them.
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import threading
from pathlib import Path
from typing import Any

from tpfemu.qmgr.objects import SSL_CIPHERS
from tpfemu.wire.tls import TLS12_ONLY, TLS13_ONLY

__all__ = ["HANDSHAKE", "TLS12_ONLY", "TLS13_ONLY", "TlsSocket", "accept", "cipher_problem",
           "key_repository", "start_session"]

HANDSHAKE = 0x16  #: the first byte of a TLS handshake record
HANDSHAKE_TIMEOUT = 30.0
_READ = 64 * 1024


def key_repository(home: Path | None) -> Path | None:
    """The key repository directory (see the module docstring), or None."""
    env = os.environ.get("TPFEMU_SSL_KEYR", "").strip()
    if env:
        return Path(env)
    return home / "ssl" if home is not None else None


def cipher_problem(sslciph: str, version: str | None) -> str:
    """Why a connection that agreed TLS ``version`` may not use a channel with SSLCIPH
    ``sslciph`` ("" when it may)."""
    spec = sslciph.upper()
    if spec not in SSL_CIPHERS:
        return f"SSLCIPH {sslciph} IS NOT A CIPHER SPEC TPFEMU KNOWS"
    if spec in TLS13_ONLY and version != "TLSv1.3":
        return f"SSLCIPH {spec} NEEDS TLS 1.3, THE CLIENT AGREED {version}"
    if spec in TLS12_ONLY and version != "TLSv1.2":
        return f"SSLCIPH {spec} NEEDS TLS 1.2, THE CLIENT AGREED {version}"
    return ""


def _server_context(repository: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(repository / "server.pem")
    ca = repository / "ca.pem"
    if ca.exists():
        context.load_verify_locations(cafile=ca)
        context.verify_mode = ssl.CERT_OPTIONAL
    return context


class TlsSocket:
    """A connected socket with TLS over it (the calls :class:`Link` makes)."""

    def __init__(self, sock: socket.socket, tls: ssl.SSLObject, incoming: ssl.MemoryBIO,
                 outgoing: ssl.MemoryBIO) -> None:
        self.sock = sock
        self.tls = tls
        self._in = incoming
        self._out = outgoing

    def _flush(self) -> None:
        data = self._out.read()
        if data:
            self.sock.sendall(data)

    def _fill(self) -> bool:
        chunk = self.sock.recv(_READ)
        if not chunk:
            self._in.write_eof()
            return False
        self._in.write(chunk)
        return True

    def handshake(self) -> None:
        while True:
            try:
                self.tls.do_handshake()
                self._flush()
                return
            except ssl.SSLWantReadError:
                self._flush()
                if not self._fill():
                    raise ConnectionResetError("closed during the TLS handshake") from None

    def recv(self, size: int) -> bytes:
        while True:
            try:
                return self.tls.read(size)
            except ssl.SSLWantReadError:
                self._flush()
                if not self._fill():
                    return b""
            except ssl.SSLZeroReturnError:
                return b""
            except ssl.SSLError as exc:
                raise ConnectionResetError(f"TLS: {exc}") from exc

    def sendall(self, data: bytes) -> None:
        self.tls.write(data)
        self._flush()

    def buffered(self) -> bool:
        """Bytes are held here, read from the socket but not yet taken by :meth:`recv`."""
        return bool(self.tls.pending() or self._in.pending)

    def version(self) -> str | None:
        """The TLS version agreed (``TLSv1.2``, ``TLSv1.3``)."""
        return self.tls.version()

    def peer_certificate(self) -> dict | None:
        """The certificate the client showed and the server verified, if any."""
        return self.tls.getpeercert() or None

    def settimeout(self, timeout: float | None) -> None:
        self.sock.settimeout(timeout)

    def setsockopt(self, *args: int) -> None:
        self.sock.setsockopt(*args)

    def shutdown(self, how: int) -> None:
        self.sock.shutdown(how)

    def close(self) -> None:
        self.sock.close()


def accept(sock: socket.socket, first: bytes, home: Path | None) -> TlsSocket:
    """The server's end of TLS on ``sock``, whose first bytes ``first`` were read already.

    :raises OSError: no key repository or no ``server.pem`` in it, the handshake failed,
        or the connection closed during it.
    """
    repository = key_repository(home)
    if repository is None or not (repository / "server.pem").exists():
        raise FileNotFoundError(f"no server certificate: {repository}/server.pem "
                                "(set TPFEMU_SSL_KEYR or the home's ssl directory)")
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    tls = _server_context(repository).wrap_bio(incoming, outgoing, server_side=True)
    incoming.write(first)
    wrapped = TlsSocket(sock, tls, incoming, outgoing)
    sock.settimeout(HANDSHAKE_TIMEOUT)
    try:
        wrapped.handshake()
    except ssl.SSLError as exc:
        raise ConnectionResetError(f"TLS handshake failed: {exc}") from exc
    finally:
        sock.settimeout(None)
    return wrapped


def start_session(manager: Any, sock: socket.socket, first: bytes, peer: str) -> None:
    """CMQL's TLS branch: on a thread of its own, the handshake, then a receiver session
    over the TLS socket (which hands a client's ID to svrconn). A failed handshake is a
    console message (CHNL0124E) and a ``client-refused`` journal event."""
    from tpfemu.channels.receiver import Receiver
    from tpfemu.wire.link import Link

    def run() -> None:
        try:
            wrapped = accept(sock, first, getattr(manager.host, "home", None))
        except OSError as exc:
            manager.say(f"CHNL0124E {manager.cpu} CONNECTION FROM {peer} REFUSED: {exc}")
            manager.event("client-refused", "", peer=peer, status="TLS",
                          reason=str(exc))
            with contextlib.suppress(OSError):
                sock.close()
            return
        receiver = Receiver(manager, Link(wrapped), peer)  # type: ignore[arg-type]
        with manager.lock:
            manager.sessions.add(receiver)
        receiver.start()

    threading.Thread(target=run, name=f"TLS {peer}", daemon=True).start()
