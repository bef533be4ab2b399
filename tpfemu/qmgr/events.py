"""The queue manager's one event interface: what happened, for the journal and triggering.

Every queue-manager action that others may record or react to is an :class:`Event`:
``put``, ``get``, ``browse``, ``expire`` (a discarded message), ``report``, ``commit``,
``backout``, ``define``/``alter``/``delete`` of objects, ``depth-high``/``depth-ok``, and
later channel and bridge events. The journal (issue 8) subscribes to all of them.

Emitting costs one attribute test when nobody listens. Subscribers run on the thread of
the call that caused the event, after the change is made, and must be quick and must not
raise (a subscriber that raises is reported once to the console sink and removed, so it
cannot break the MQI call). There are two kinds:

- :meth:`EventBus.subscribe`: ``fn(event)`` with an :class:`Event` (built once per event,
  only when there is such a subscriber);
- :meth:`EventBus.subscribe_raw`: ``fn(kind, queue, time_us, fields)``, no object built at
  all. For subscribers on the hot path (the journal): an event costs the caller one call.

Raw subscribers are called first. Every subscriber of one event sees the same ``fields``
dict, which none may change.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Event", "EventBus", "RawSubscriber", "Subscriber"]


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
#: ``fn(kind, queue, time_us, fields)``: the event's parts, without an Event object.
RawSubscriber = Callable[[str, str, int, dict[str, Any]], None]


class EventBus:
    """Subscribers to a queue manager's events."""

    def __init__(self, qmgr: str, console: Callable[[str], None] | None = None) -> None:
        self.qmgr = qmgr
        self._subscribers: tuple[Subscriber, ...] = ()
        self._raw: tuple[RawSubscriber, ...] = ()
        #: True when someone listens (callers skip building event fields otherwise). A
        #: plain attribute, kept by (un)subscribe and (un)subscribe_raw: every MQI call
        #: reads it.
        self.active = False
        self._lock = threading.Lock()
        self._console = console

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(event)`` for every event from now on."""
        with self._lock:
            self._subscribers = (*self._subscribers, fn)
            self.active = True

    def subscribe_raw(self, fn: RawSubscriber) -> None:
        """Call ``fn(kind, queue, time_us, fields)`` for every event from now on (no
        :class:`Event` is built for it). ``fields`` is shared: ``fn`` must not change it."""
        with self._lock:
            self._raw = (*self._raw, fn)
            self.active = True

    def unsubscribe(self, fn: Callable[..., None]) -> None:
        """Stop calling ``fn``, ordinary or raw (no error if it was not subscribed)."""
        with self._lock:
            self._subscribers = tuple(s for s in self._subscribers if s != fn)
            self._raw = tuple(s for s in self._raw if s != fn)
            self.active = bool(self._subscribers or self._raw)

    unsubscribe_raw = unsubscribe

    def emit(self, kind: str, queue: str, time_us: int, **fields: Any) -> None:
        """Deliver one event to every subscriber."""
        if self.active:
            self.deliver(kind, queue, time_us, fields)

    def deliver(self, kind: str, queue: str, time_us: int, fields: dict[str, Any]) -> None:
        """Deliver one event whose fields are already a dict (which the subscribers share:
        the caller must not change it afterwards). :meth:`emit` without the repacking."""
        for fn in self._raw:
            try:
                fn(kind, queue, time_us, fields)
            except Exception as exc:  # a broken subscriber must not break the MQI call
                self._failed(fn, exc)
        subscribers = self._subscribers
        if subscribers:
            event = Event(kind, self.qmgr, queue, time_us, fields)
            for fn in subscribers:
                try:
                    fn(event)
                except Exception as exc:
                    self._failed(fn, exc)

    def _failed(self, fn: Callable[..., None], exc: Exception) -> None:
        self.unsubscribe(fn)
        if self._console is not None:
            self._console(f"event subscriber {fn!r} failed and was removed: {exc!r}")
