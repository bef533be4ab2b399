"""The queue manager's one event interface: what happened, for the journal and triggering.

Every queue-manager action that others may record or react to is an :class:`Event`:
``put``, ``get``, ``browse``, ``expire`` (a discarded message), ``report``, ``commit``,
``backout``, ``define``/``alter``/``delete`` of objects, ``depth-high``/``depth-ok``, and
later channel and bridge events. The journal (issue 8) subscribes to all of them.

Emitting costs one attribute test when nobody listens; an event object is built only when
there is a subscriber. Subscribers run on the thread of the call that caused the event,
after the change is made, and must be quick and must not raise (a subscriber that raises
is reported once to the console sink and removed, so it cannot break the MQI call).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "EventBus"]


@dataclass(frozen=True, slots=True)
class Event:
    """One queue-manager event.

    ``kind`` names it; ``queue`` is the queue it concerns (or ""); ``fields`` holds the rest
    (MsgId, CorrelId, priority, persistence, length, unit of work, reason, ...).
    """

    kind: str
    qmgr: str
    queue: str = ""
    time_us: int = 0
    fields: dict[str, Any] = field(default_factory=dict)


Subscriber = Callable[[Event], None]


class EventBus:
    """Subscribers to a queue manager's events."""

    def __init__(self, qmgr: str, console: Callable[[str], None] | None = None) -> None:
        self.qmgr = qmgr
        self._subscribers: tuple[Subscriber, ...] = ()
        #: True when someone listens (callers skip building event fields otherwise). A
        #: plain attribute, kept by subscribe/unsubscribe: every MQI call reads it.
        self.active = False
        self._lock = threading.Lock()
        self._console = console

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(event)`` for every event from now on."""
        with self._lock:
            self._subscribers = (*self._subscribers, fn)
            self.active = True

    def unsubscribe(self, fn: Subscriber) -> None:
        """Stop calling ``fn`` (no error if it was not subscribed)."""
        with self._lock:
            self._subscribers = tuple(s for s in self._subscribers if s != fn)
            self.active = bool(self._subscribers)

    def emit(self, kind: str, queue: str, time_us: int, **fields: Any) -> None:
        """Deliver one event to every subscriber."""
        subscribers = self._subscribers
        if not subscribers:
            return
        event = Event(kind, self.qmgr, queue, time_us, fields)
        for fn in subscribers:
            try:
                fn(event)
            except Exception as exc:  # a broken subscriber must not break the MQI call
                self.unsubscribe(fn)
                if self._console is not None:
                    self._console(f"event subscriber {fn!r} failed and was removed: {exc!r}")
