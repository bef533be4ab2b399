"""The wire format's errors: what is wrong with the bytes, and the MQ status to send back."""

from __future__ import annotations

from tpfemu.wire.fap.constants import StatusCode

__all__ = ["FapError", "NegotiationError"]


class FapError(ValueError):
    """Bytes that break the FAP: a bad StrucId, a length out of range, an unknown segment
    type, a body too short for its structure, ...

    ``status`` is the :class:`StatusCode` the receiving end sends back in a STATUS segment
    (with the ERROR flag) before it closes the channel, or ``None`` where no status
    applies. The message names the field and the value that is wrong.
    """

    def __init__(self, message: str, status: StatusCode | None = StatusCode.PROTOCOL_GENERAL
                 ) -> None:
        super().__init__(message)
        self.status = status


class NegotiationError(FapError):
    """The two ends' INITIAL_DATA cannot be reconciled (for example unequal SEQWRAP
    values): the channel does not start. ``ini_err_flags1`` holds the IniErrFlags1 bits
    naming the values at fault, as the refusing end sets them in its ID."""

    def __init__(self, message: str, status: StatusCode, ini_err_flags1: int = 0) -> None:
        super().__init__(message, status)
        self.ini_err_flags1 = ini_err_flags1
