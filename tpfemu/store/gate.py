"""The resize gate: a shared/exclusive lock over one process's use of an LMDB environment.

LMDB lets a process change its map size only while that process has no transaction open,
so every transaction holds the gate shared and a resize holds it exclusive. Shared holds
are re-entrant per thread (a thread inside a transaction may open a nested read); a
waiting exclusive request blocks new shared holders so a resize is not starved.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Gate:
    """Shared/exclusive lock over this process's use of one environment.

    LMDB may only resize the map while the process has no transaction; every transaction
    holds the gate shared (re-entrant per thread) and a resize holds it exclusive.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._waiting = 0
        self._exclusive = False
        self._local = threading.local()

    def held(self) -> bool:
        """True if this thread holds the gate shared."""
        return getattr(self._local, "depth", 0) > 0

    def acquire_shared(self) -> None:
        depth = getattr(self._local, "depth", 0)
        if depth == 0:
            with self._cond:
                while self._exclusive or self._waiting:
                    self._cond.wait()
                self._shared += 1
        self._local.depth = depth + 1

    def release_shared(self) -> None:
        self._local.depth -= 1
        if self._local.depth == 0:
            with self._cond:
                self._shared -= 1
                self._cond.notify_all()

    @contextmanager
    def shared(self) -> Iterator[None]:
        self.acquire_shared()
        try:
            yield
        finally:
            self.release_shared()

    @contextmanager
    def exclusive(self, timeout: float | None = None) -> Iterator[bool]:
        """Hold the gate alone; yields False if other holders stayed past ``timeout``
        (``None``: wait as long as it takes, and yield True)."""
        with self._cond:
            self._waiting += 1
            try:
                got = self._cond.wait_for(lambda: not self._exclusive and not self._shared,
                                          timeout)
            finally:
                self._waiting -= 1
            if got:
                self._exclusive = True
            else:
                self._cond.notify_all()
        try:
            yield got
        finally:
            if got:
                with self._cond:
                    self._exclusive = False
                    self._cond.notify_all()
