"""Helpers shared by the ECB runtime tests (a module name unique across tests/)."""

from __future__ import annotations

import threading

WAIT = 5.0
"""Seconds to wait for anything that should happen promptly (generous for a loaded CI box)."""


class Console:
    """A console sink that records every message and lets a test wait for one."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._cv = threading.Condition()

    def __call__(self, text: str) -> None:
        with self._cv:
            self.lines.append(text)
            self._cv.notify_all()

    def wait_for(self, needle: str, timeout: float = WAIT) -> str:
        """Return the first message containing ``needle``, waiting up to ``timeout``."""
        with self._cv:
            found = self._cv.wait_for(
                lambda: next((t for t in self.lines if needle in t), None), timeout
            )
        assert found, f"no console message containing {needle!r}; got {self.lines!r}"
        return found

    @property
    def text(self) -> str:
        return "\n".join(self.lines)
