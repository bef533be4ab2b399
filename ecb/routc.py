"""ROUTC's port: the message router that the layer above the ECB runtime installs.

On TPF, ROUTC (C ``routc(struct rc0pl *rcpl, enum t_lvl level)``) hands the message held on
a data level to the message router, which sends it where the routing control parameter
list (RCPL) names: a terminal (an LNIATA) or a program. The ECB runtime knows neither
terminals nor the RCPL's layout, so it asks a :class:`MessageRouter` that tpfemu installs
on the dispatcher (:attr:`ecb.Dispatcher.router`); ``ecb`` imports nothing of tpfemu.

:meth:`ecb.Ecb.routc` does what the control program does around the router:

1. checks the level (a level outside D0-DF is E0108; an empty level is E0102);
2. calls ``router.routc(ecb, rcpl, block)`` with the RCPL as bytes and the block still on
   the level (the router copies what it needs; it raises
   :class:`~ecb.errors.TpfSystemError` for a destination it does not know (E0602) or a
   message it cannot read (E0603): a system error for the entry, whose dump then shows
   the block);
3. releases the level, as TPF's ROUTC does, once the router has taken the message.

With no router installed, ROUTC is a system error (E0601).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ecb.blocks import CoreBlock
    from ecb.ecb import Ecb

__all__ = ["MessageRouter"]


class MessageRouter(Protocol):
    """Where ROUTC sends messages: installed by the system on its dispatcher."""

    def routc(self, ecb: Ecb, rcpl: bytes, block: CoreBlock) -> None:
        """Route the message in ``block`` as ``rcpl`` says, on behalf of ``ecb``.

        Called on the entry's own I-stream. ``block`` stays on the ECB's level until this
        returns (then ROUTC releases it): copy what must outlive the call.

        :raises TpfSystemError: E0602 unknown destination, E0603 unreadable message or RCPL.
        """
