"""Helpers for the store's tests: numbered messages that name themselves, subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tpfemu import errors
from tpfemu.store import StoredMessage
from tpfemu.store.message import NEVER

ROOT = Path(__file__).resolve().parents[2]


def mid(i: int) -> bytes:
    """A 24-byte MsgId numbered ``i``."""
    return b"MSG" + i.to_bytes(21, "big")


def cid(i: int) -> bytes:
    """A 24-byte CorrelId numbered ``i``."""
    return b"COR" + i.to_bytes(21, "big")


def payload(i: int, size: int = 100) -> bytes:
    """Message data that names its message: checkable after a crash."""
    head = f"message {i};".encode()
    return (head * (size // len(head) + 1))[:size]


def stored(key: int, i: int, *, priority: int = 0, expiry: int = NEVER, backouts: int = 0,
           size: int = 100) -> StoredMessage:
    """A StoredMessage with key ``key`` for message number ``i``."""
    return StoredMessage(key, mid(i), cid(i), priority, expiry, 1_000 + i, 0, backouts,
                         payload(i, size))


def run_python(code: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (cwd = the repository), checking it succeeds."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args], cwd=ROOT, capture_output=True,
        text=True, timeout=timeout, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def drain(q) -> list[bytes]:
    """Get (``q.get()``) every available message of queue ``q``, in delivery order."""
    out = []
    while True:
        try:
            out.append(q.get())
        except errors.NoMessageAvailable:
            return out
