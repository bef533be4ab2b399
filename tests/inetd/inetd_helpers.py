"""Helpers for the Internet daemon tests: polling, loopback clients, starting servers."""

import socket
import time
from collections.abc import Callable


def wait_for(predicate: Callable[[], object], timeout: float = 3.0) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass; return its truth."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.01)
    return bool(predicate())


def connect(port: int, host: str = "127.0.0.1") -> socket.socket:
    """A client socket connected to ``host:port`` with a 3-second timeout."""
    client = socket.create_connection((host, port), timeout=3.0)
    client.settimeout(3.0)
    return client


def recv_all(client: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    parts = []
    while True:
        part = client.recv(4096)
        if not part:
            return b"".join(parts)
        parts.append(part)


def started(system, command: str) -> int:
    """Run ``ZINET ADD <command>`` then START it; return the bound port."""
    name = command.split()[0].partition("-")[2]
    assert "INET0001I" in system.console(f"ZINET ADD {command}")
    response = system.console(f"ZINET START S-{name}")
    assert response.startswith("INET0004I"), response
    return system.inetd.servers[name].port


def console_has(system, text: str) -> bool:
    """True if a console line written by the system contains ``text``."""
    return any(text in line for line in list(system.log))
