"""CUIW, the user exit that assigns an LNIATA to a bridged message (``MQ_assign_lniata``).

CUIW is a program like any other: the bridge's input program CMQB enters it (ENTRC) with
ReplyToQ at EBW000 and ReplyToQMgr at EBW048, and reads back the LNIATA at EBW096 and,
optionally, an application name at EBW099 (the layout is
:class:`tpfemu.bridge.layouts.CuiwParams`). An LNIATA of X'000000' means "none": the
message goes to the dead-letter queue, as it does when CUIW raises.

The system loads :func:`default_cuiw` under the name CUIW when it starts, unless a program
of that name is already loaded; loading one later replaces it (a new version, as on TPF).
Most users write the exit as a plain function and wrap it::

    def my_cuiw(reply_to_q: str, reply_to_qmgr: str) -> str | None:
        return "0A0101" if reply_to_qmgr == "PARTNER" else None

    system.programs.load("CUIW", assign_lniata(my_cuiw))

The function may return an LNIATA (``Lniata``, 6 hex digits, or 3 bytes), a pair
(LNIATA, application program name) to route the terminal to that application, or None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tpfemu.bridge.layouts import (
    CUIW_OUT,
    CUIW_PARAMS,
    NO_LNIATA,
    CuiwParams,
    LayoutError,
    Lniata,
)

if TYPE_CHECKING:
    from ecb import Ecb
    from tpfemu.bridge.terminals import Terminals

__all__ = ["AssignFunction", "assign_lniata", "default_cuiw"]

Answer = Lniata | str | bytes | tuple[Lniata | str | bytes, str | None] | None
#: ``fn(reply_to_q, reply_to_qmgr)`` -> an LNIATA, (LNIATA, application), or None.
AssignFunction = Callable[[str, str], Answer]


def _lniata(value: Lniata | str | bytes) -> Lniata:
    if isinstance(value, Lniata):
        return value
    if isinstance(value, str):
        return Lniata.parse(value)
    if isinstance(value, (bytes, bytearray)):
        return Lniata(bytes(value))
    raise LayoutError(f"CUIW returned {value!r}, not an LNIATA")


def assign_lniata(fn: AssignFunction) -> Callable[[Ecb], None]:
    """Make the ECB program CUIW from ``fn(reply_to_q, reply_to_qmgr)``.

    What ``fn`` raises escapes the program (the bridge dead-letters the message); an
    answer that is not an LNIATA raises :class:`LayoutError`.
    """

    def cuiw(ecb: Ecb) -> None:
        params = CuiwParams.unpack(ecb.ebw[0:CUIW_PARAMS])
        answer = fn(params.reply_to_q, params.reply_to_qmgr)
        application = None
        if isinstance(answer, tuple):
            answer, application = answer
        lniata = NO_LNIATA if answer is None else _lniata(answer)
        results = CuiwParams("", "", lniata, application).results()
        memoryview(ecb.ebw)[CUIW_OUT:CUIW_PARAMS] = results  # 7 + 1 bytes: always fits

    cuiw.__qualname__ = f"CUIW({getattr(fn, '__qualname__', fn)!s})"
    return cuiw


def default_cuiw(terminals: Terminals) -> Callable[[Ecb], None]:
    """The CUIW tpfemu provides: the operator's LNIATA table, then the default pool
    (:meth:`tpfemu.bridge.terminals.Terminals.assign`)."""
    return assign_lniata(terminals.assign)
