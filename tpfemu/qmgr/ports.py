"""What the queue manager needs from the processor it runs on, as small ports.

The queue manager sits below the System (DESIGN.md §1) and never reaches up to it. What it
needs from above is handed to :class:`~tpfemu.qmgr.manager.QueueManager` when it is built:

- :class:`EntryPort` starts programs as new entries (triggering: the process's program
  or CUIR). Without one the queue manager has no dispatcher, and a trigger that would
  start an entry says so on the console instead.
- :class:`ServiceRegistry` takes background services (the SWQ forwarder) that must stop
  when the processor stops. Without one a caller runs such work itself.

Console messages need no port: the queue manager takes a plain callable (``console=``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

__all__ = ["EntryPort", "Service", "ServiceRegistry"]


class Service(Protocol):
    """A background service the processor stops when it stops."""

    def stop(self) -> None:
        """Stop the service and wait for it."""


class EntryPort(Protocol):
    """Starts ECB programs as new entries (the dispatcher and program table of a System)."""

    def is_loaded(self, program: str) -> bool:
        """True when ``program`` (a 4-character name) is bound to code."""

    def create_entry(self, program: str, data: bytes, *, origin: tuple[str, str]) -> None:
        """Create a new entry running ``program`` with ``data`` on data level 0 (CREEC).

        :param origin: what created the entry, e.g. ``("TRIGGER", queue name)``.
        """


class ServiceRegistry(Protocol):
    """The services of a processor: they run until the processor stops."""

    def running(self) -> Iterable[object]:
        """The services registered so far (and not yet stopped by the processor)."""

    def register(self, service: Service) -> None:
        """Add ``service``; the processor stops it when it stops."""
