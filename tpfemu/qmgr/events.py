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
  all. For subscribers on the hot path: an event costs the caller one call;
- :meth:`EventBus.subscribe_capture`: an :class:`~tpfemu._lowlevel.EventLog` (the
  journal's), whose ``add`` becomes a raw subscriber. While it is the *only* subscriber,
  :attr:`EventBus.capture` names it, and the MQI's fast paths hand it to the core's C
  calls, which record their put and get events in it with no Python work at all
  (see native/python/eventlog.h); events from anywhere else reach it through ``add``,
  in the same buffer, in order.

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
        #: The EventLog that records the fast paths' events in C, while it is the only
        #: subscriber (else None: those paths then emit in Python, for everybody).
        self.capture: Any = None
        self._log: Any = None  # the subscribed EventLog, if any
        self._lock = threading.Lock()
        self._console = console

    def subscribe(self, fn: Subscriber) -> None:
        """Call ``fn(event)`` for every event from now on."""
        with self._lock:
            self._subscribers = (*self._subscribers, fn)
            self._changed()

    def subscribe_raw(self, fn: RawSubscriber) -> None:
        """Call ``fn(kind, queue, time_us, fields)`` for every event from now on (no
        :class:`Event` is built for it). ``fields`` is shared: ``fn`` must not change it."""
        with self._lock:
            self._raw = (*self._raw, fn)
            self._changed()

    def subscribe_capture(self, log: Any) -> None:
        """Record every event from now on in ``log`` (an EventLog): in C on the MQI's
        fast paths while it is the only subscriber, through ``log.add`` otherwise. At
        most one EventLog at a time (ValueError for a second)."""
        with self._lock:
            if self._log is not None:
                raise ValueError("an EventLog is subscribed already")
            self._log = log
            self._raw = (*self._raw, log.add)
            self._changed()

    def unsubscribe(self, fn: Callable[..., None]) -> None:
        """Stop calling ``fn``, ordinary or raw, or an EventLog's ``add`` (no error if it
        was not subscribed)."""
        with self._lock:
            self._subscribers = tuple(s for s in self._subscribers if s != fn)
            self._raw = tuple(s for s in self._raw if s != fn)
            if self._log is not None and self._log.add not in self._raw:
                self._log = None
            self._changed()

    unsubscribe_raw = unsubscribe

    def unsubscribe_capture(self, log: Any) -> None:
        """Stop recording in ``log`` (no error if it was not subscribed)."""
        self.unsubscribe(log.add)

    def _changed(self) -> None:
        """After a (un)subscription, under the lock: who listens, and how."""
        self.capture = (self._log if self._log is not None and len(self._raw) == 1
                        and not self._subscribers else None)
        self.active = bool(self._subscribers or self._raw)

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
            for subscriber in subscribers:
                try:
                    subscriber(event)
                except Exception as exc:
                    self._failed(subscriber, exc)

    def _failed(self, fn: Callable[..., None], exc: Exception) -> None:
        self.unsubscribe(fn)
        if self._console is not None:
            self._console(f"event subscriber {fn!r} failed and was removed: {exc!r}")
