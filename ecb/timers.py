"""The timer behind CRETC: create an entry once a given time has passed.

One daemon thread sleeps until the earliest deadline in a heap, then hands the due requests
to a callback (the dispatcher's create). Requests due at the same moment fire in the order
they were made. Accuracy is that of ``threading.Condition.wait``: typically well under a
millisecond late on an idle machine, never early.

The thread starts with the first request and ends with :meth:`Timers.shutdown`.
"""

from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["Timers"]


class Timers:
    """A heap of (deadline, request) served by one thread.

    :param fire: called on the timer thread with each due request; exceptions it raises
        are passed to ``on_error`` and the timer keeps running.
    :param on_error: called with an exception raised by ``fire``.
    """

    def __init__(
        self,
        fire: Callable[[Any], None],
        on_error: Callable[[BaseException], None] | None = None,
        *,
        name: str = "CRETC timer",
    ) -> None:
        self._fire = fire
        self._on_error = on_error
        self._name = name
        self._heap: list[tuple[float, int, Any]] = []
        self._seq = itertools.count()
        self._cv = threading.Condition(threading.Lock())
        self._thread: threading.Thread | None = None
        self._closed = False
        self._firing = 0

    @property
    def pending(self) -> int:
        """Requests not yet handed to ``fire`` (including one being handed over now)."""
        return len(self._heap) + self._firing

    def add(self, seconds: float, request: Any) -> None:
        """Fire ``request`` after ``seconds`` (>= 0).

        :raises RuntimeError: after :meth:`shutdown`.
        """
        deadline = time.monotonic() + seconds
        with self._cv:
            if self._closed:
                raise RuntimeError("timers are shut down")
            heapq.heappush(self._heap, (deadline, next(self._seq), request))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cv.notify()

    def cancel_all(self) -> list[Any]:
        """Drop every pending request and return them, earliest first."""
        with self._cv:
            dropped = [request for _, _, request in sorted(self._heap)]
            self._heap.clear()
            self._cv.notify()
        return dropped

    def shutdown(self, timeout: float | None = 1.0) -> list[Any]:
        """Cancel pending requests, stop the thread and return what was cancelled."""
        with self._cv:
            self._closed = True
        dropped = self.cancel_all()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        return dropped

    def _run(self) -> None:
        cv, heap = self._cv, self._heap
        while True:
            with cv:
                while True:
                    if self._closed:
                        return
                    if heap:
                        delay = heap[0][0] - time.monotonic()
                        if delay <= 0:
                            _, _, request = heapq.heappop(heap)
                            self._firing += 1
                            break
                        cv.wait(delay)
                    else:
                        cv.wait()
            try:
                self._fire(request)
            except BaseException as exc:  # a failed create must not stop the timer
                if self._on_error is not None:
                    self._on_error(exc)
            finally:
                with cv:
                    self._firing -= 1
