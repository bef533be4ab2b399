"""What the channels need from the system they run in, as ports (Protocols).

:class:`FastDelivery` is the ROUTC bridge entry point of seed 004: a FAST receiver hands
it every nonpersistent message it receives, instead of putting the message on a queue.
A System has none until one is installed (``System.fast_delivery``); the bridge package
provides one. Raising any exception means "could not deliver": the receiver then puts the
message on the dead-letter queue (:mod:`tpfemu.channels.destination`).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tpfemu.mq.structs import MD

__all__ = ["FastDelivery"]


@runtime_checkable
class FastDelivery(Protocol):
    """The system's ROUTC bridge entry point for fast nonpersistent messages."""

    def deliver(self, channel: str, md: MD, data: bytes) -> None:
        """Deliver one message received on fast receiver channel ``channel`` (its MQMD
        and its data) to a traditional TPF application; raise if it cannot."""
