"""The bridge's user exits: CUIW, which assigns an LNIATA to a bridged message
(``MQ_assign_lniata``), and CUIV, which names where ROUTC output goes for a request that
had no reply-to queue.

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

CUIV ("TPF MQSeries Convert to Object Handle") is entered (ENTRC) by ROUTC to an MQ
terminal whose request named no ReplyToQ, on the ECB that issued ROUTC (its EBW000-EBW103
are restored afterwards), with the same area: the LNIATA at EBW096 in, the queue and
queue manager to send to at EBW000 and EBW048 out (blanks: none; the output is then
dead-lettered with MQRC_MISSING_REPLY_TO_Q). TPF's CUIV returns an object handle; ours
returns the names, which the bridge opens. :func:`convert_lniata` wraps a function of the
LNIATA; the default CUIV names nothing.
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

__all__ = ["AssignFunction", "ConvertFunction", "assign_lniata", "convert_lniata",
           "default_cuiv", "default_cuiw"]

Answer = Lniata | str | bytes | tuple[Lniata | str | bytes, str | None] | None
#: ``fn(reply_to_q, reply_to_qmgr)`` -> an LNIATA, (LNIATA, application), or None.
AssignFunction = Callable[[str, str], Answer]
#: ``fn(lniata)`` (6 hex digits) -> a queue name, (queue, queue manager), or None.
ConvertFunction = Callable[[str], str | tuple[str, str] | None]
_MAX_NAME = 48


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


def _mq_name(value: object, what: str, blank_ok: bool) -> str:
    text = "" if value is None and blank_ok else value
    if not isinstance(text, str) or len(text) > _MAX_NAME or not text.isascii() \
            or " " in text or not (text or blank_ok):
        raise LayoutError(f"CUIV returned {what} {value!r}, not an MQ name of 1 to "
                          f"{_MAX_NAME} characters")
    return text


def convert_lniata(fn: ConvertFunction) -> Callable[[Ecb], None]:
    """Make the ECB program CUIV from ``fn(lniata)``.

    What ``fn`` raises escapes the program (the bridge dead-letters the output); an
    answer that is not a queue name (and optionally a queue manager name) raises
    :class:`LayoutError`.
    """

    def cuiv(ecb: Ecb) -> None:
        params = CuiwParams.unpack(ecb.ebw[0:CUIW_PARAMS])
        answer = fn(str(params.lniata))
        queue, qmgr = answer if isinstance(answer, tuple) else (answer, None)
        queue = "" if answer is None else _mq_name(queue, "queue", False)
        qmgr = _mq_name(qmgr, "queue manager", True)
        memoryview(ecb.ebw)[0:CUIW_OUT] = CuiwParams(queue, qmgr).pack()[0:CUIW_OUT]

    cuiv.__qualname__ = f"CUIV({getattr(fn, '__qualname__', fn)!s})"
    return cuiv


def default_cuiv() -> Callable[[Ecb], None]:
    """The CUIV tpfemu provides: it names no destination."""
    return convert_lniata(lambda lniata: None)
