"""One connection accepted by the Internet daemon, as its entry sees it.

The entry the daemon creates for a connection finds it in ``ecb.origin`` (a
:class:`Connection`) and a :class:`Descriptor` of it in EBW000::

    from tpfemu.inetd.connection import Descriptor

    def echo(ecb):
        connection = ecb.origin                  # .socket .peer .server .recv .send .close
        about = Descriptor.unpack(ecb.ebw)       # server, program, ports, peer, D0 length
        connection.send(connection.recv(100))

On TPF the Internet daemon passes the socket descriptor to the server program (in EBW000
for activate-on-receipt); here the socket is a Python socket object, reached through the
origin, and the descriptor's first word is its file descriptor number for information.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import struct
import threading
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from tpfemu.inetd.daemon import Server

__all__ = ["DESCRIPTOR", "Connection", "Descriptor", "close_socket"]

DESCRIPTOR = struct.Struct(">iIHH16sH10s4s")
"""EBW000 layout: socket descriptor (4), connection number (4), local port (2), peer port (2),
peer address (16, IPv6 or IPv4-mapped), length of the D0 data (2, AOR only, else 0),
server name (10, blank-padded), program (4); 44 bytes, big-endian."""


class Descriptor(NamedTuple):
    """The connection descriptor the daemon puts in EBW000 of the entry it creates."""

    fd: int
    number: int
    local_port: int
    peer_port: int
    peer_address: ipaddress.IPv4Address | ipaddress.IPv6Address
    length: int
    server: str
    program: str

    @classmethod
    def unpack(cls, ebw: bytes | bytearray | memoryview) -> Descriptor:
        """Read the descriptor from the start of ``ebw`` (e.g. ``ecb.ebw``)."""
        fd, number, lport, pport, addr, length, server, pgm = DESCRIPTOR.unpack_from(ebw)
        address: Any = ipaddress.IPv6Address(addr)
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return cls(fd, number, lport, pport, address, length, server.decode().rstrip(),
                   pgm.decode())


def close_socket(sock: socket.socket) -> None:
    """Close ``sock`` cleanly: drain unread input (so no RST is sent), FIN, close."""
    with contextlib.suppress(OSError):
        sock.setblocking(False)
        for _ in range(16):
            if not sock.recv(65536):
                break
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


class Connection:
    """One accepted TCP connection: the origin of the entry that serves it.

    :ivar socket: the connected socket (blocking, with the server's TIMEOUT).
    :ivar peer: the client's address, ``(host, port)``.
    :ivar server: the :class:`Server` that accepted it.
    :ivar number: the connection's number within its server (1, 2, ...).
    :ivar program: the program that serves it.
    :ivar data: the bytes passed on D0 (MODEL-AOR), else ``b""``.
    """

    def __init__(self, server: Server, sock: socket.socket, peer: tuple, number: int,
                 program: str) -> None:
        self.server = server
        self.socket = sock
        self.peer: tuple[str, int] = (peer[0], peer[1])
        self.number = number
        self.program = program
        self.data = b""
        self._lock = threading.Lock()
        self._closed = False
        self._counted = False  # counted in the server's active entries

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    def recv(self, size: int = 4096) -> bytes:
        """Receive up to ``size`` bytes; ``b""`` when the peer has closed.

        :raises TimeoutError: nothing arrived within the server's TIMEOUT.
        """
        return self.socket.recv(size)

    def recv_exactly(self, size: int) -> bytes:
        """Receive exactly ``size`` bytes, or fewer if the peer closes first."""
        parts, left = [], size
        while left:
            part = self.socket.recv(left)
            if not part:
                break
            parts.append(part)
            left -= len(part)
        return b"".join(parts)

    def send(self, data: bytes | bytearray | memoryview) -> None:
        """Send all of ``data``."""
        self.socket.sendall(data)

    def close(self) -> None:
        """Close the connection cleanly (idempotent)."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        close_socket(self.socket)

    def shutdown(self) -> None:
        """End the conversation without closing the socket: the program sees end of file."""
        if not self._closed:
            with contextlib.suppress(OSError):
                self.socket.shutdown(socket.SHUT_RDWR)

    def descriptor(self) -> bytes:
        """The EBW000 descriptor of this connection (:data:`DESCRIPTOR`)."""
        try:
            fd, lport = self.socket.fileno(), self.socket.getsockname()[1]
        except OSError:
            fd, lport = -1, 0
        address = ipaddress.ip_address(self.peer[0].split("%")[0])
        if isinstance(address, ipaddress.IPv4Address):
            address = ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + address.packed)
        return DESCRIPTOR.pack(fd, self.number, lport, self.peer[1], address.packed,
                               len(self.data), self.server.name.ljust(10).encode(),
                               self.program.encode())

    def _entry_ended(self) -> None:
        """The at_exit hook of the entry: free the server's entry slot, and close."""
        self.server._release(self)
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._closed else "open"
        return (f"<Connection {self.server.name}#{self.number} {self.peer[0]}:{self.peer[1]}"
                f" -> {self.program} {state}>")
