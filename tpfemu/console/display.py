"""ZMQSC DISPLAY output: one aligned block of attribute rows per object.

An operator reads a display at a console, so every object is shown as a heading line and
rows of ``KEYWORD value`` pairs in two aligned columns; a value too long for a column
(a description, an APPLID) gets a row of its own after them. Every line carries a
message identifier and the processor ID like any console response::

    MQSC0020I B QL APP.IN
    MQSC0021I B   CURDEPTH  3                   IPPROCS   1
    MQSC0021I B   OPPROCS   2                   TRIGFIRED 5
    MQSC0021I B   USAGE     NORMAL              COMMON    NO
    ...
    MQSC0021I B   DESCR     'Payroll input queue for the night batch'

Values are shown so that they can be typed back: text with lower-case letters, blanks or
quotes is quoted (``'Mixed case'``, quotes doubled), an empty text is ``''``.

This module formats; :mod:`tpfemu.console.zmqsc` decides what to show. The rows of
live state (CURDEPTH, IPPROCS, OPPROCS, trigger counters, the swing of a transmission
queue, a channel's recorded request) are built here from the objects that hold them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tpfemu.console import messages as m
from tpfemu.qmgr.objects import ObjectDef

__all__ = [
    "Row",
    "channel_rows",
    "definition_rows",
    "layout",
    "queue_rows",
    "render",
    "text_value",
]

Row = tuple[str, str]  # (KEYWORD, value as shown)

SHORT = 20  # values up to this long share a line with another row
_PLAIN = re.compile(r"[A-Z0-9./_%()@:+*#$-]+")


def text_value(value: str) -> str:
    """A string as the operator would type it: bare if plain upper-case, else quoted."""
    if _PLAIN.fullmatch(value):
        return value
    return "'" + value.replace("'", "''") + "'"


def _shown(value: Any) -> str:
    if isinstance(value, bool):
        return "YES" if value else "NO"
    if isinstance(value, str):
        return text_value(value)
    return str(value)


def timestamp(time_us: int | float | None) -> str:
    """Microseconds since the epoch as ``YYYY-MM-DD HH:MM:SS`` (UTC); ``NONE`` for none
    (a display never shows a blank value: it would read as the next column)."""
    if not time_us:
        return "NONE"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(time_us / 1_000_000))


def definition_rows(definition: ObjectDef) -> list[Row]:
    """Every attribute of a definition, in the order of its specs."""
    return [(spec.keyword, _shown(getattr(definition, attr)))
            for attr, spec in type(definition).ATTRS.items()]


def queue_rows(queue: Any, routes: Mapping[str, str]) -> list[Row]:
    """The live state of a local queue: CURDEPTH, IPPROCS, OPPROCS, trigger counters, swing.

    :param queue: the :class:`~tpfemu.qmgr.localq.LocalQueue` (None if it has none yet).
    :param routes: the catalog's transmission-queue swings (original -> new).
    """
    if queue is None:
        rows: list[Row] = [("CURDEPTH", "0"), ("IPPROCS", "0"), ("OPPROCS", "0")]
        state: Mapping[str, Any] = {}
        name = ""
    else:
        try:
            depth = queue.core.depth
        except Exception:  # noqa: BLE001 - a queue deleted while we look: show nothing
            depth = 0
        rows = [("CURDEPTH", str(depth)), ("IPPROCS", str(queue.input_count)),
                ("OPPROCS", str(queue.output_count))]
        state = getattr(queue, "trigger_state", None) or {}
        name = queue.name
    rows.append(("TRIGFIRED", str(state.get("fired", 0))))
    rows.append(("TRIGLAST", timestamp(state.get("last"))))
    if "armed" in state:
        rows.append(("TRIGARMED", _shown(bool(state["armed"]))))
    for key, value in sorted(state.items()):  # anything else the triggering layer counts
        if key not in ("fired", "last", "armed") and isinstance(value, (int, str)):
            rows.append((("TRIG" + str(key).upper())[:12], _shown(value)))
    if name in routes:
        rows.append(("SWUNGTO", routes[name]))
    sources = sorted(src for src, dst in routes.items() if dst == name)
    if sources:
        rows.append(("SWUNGFROM", " ".join(sources)))
    return rows


def channel_rows(request: Any, live: list[Row] | None = None) -> list[Row]:
    """A channel's status and what operators last asked of it (START/STOP/RESET/RESOLVE).

    ``live``: the channel agent's rows (STATUS, SEQNUM, LUWID, INDOUBT, MSGS, ...); without
    them (a channel type no agent serves) STATUS is INACTIVE.
    """
    rows: list[Row] = list(live) if live else [("STATUS", "INACTIVE")]
    if request is None:
        rows.append(("REQSTATE", "NONE"))
        return rows
    rows.append(("REQSTATE", request.state or "NONE"))
    if request.mode:
        rows.append(("STOPMODE", request.mode))
    if request.seqnum is not None:
        rows.append(("RESETSEQ", str(request.seqnum)))
    if request.resolve:
        rows.append(("RESOLVE", request.resolve))
    rows.append(("REQTIME", timestamp(request.time_us)))
    return rows


def layout(rows: Sequence[Row]) -> list[str]:
    """Rows laid out in two aligned columns; long values each on a line of their own."""
    if not rows:
        return []
    width = max(len(key) for key, _ in rows)
    short = [row for row in rows if len(row[1]) <= SHORT]
    long = [row for row in rows if len(row[1]) > SHORT]
    left, right = short[0::2], short[1::2]
    value_width = max((len(value) for _, value in left), default=0)
    lines = []
    for i, (key, value) in enumerate(left):
        line = f"{key:<{width}} {value:<{value_width}}"
        if i < len(right):
            key2, value2 = right[i]
            line += f"   {key2:<{width}} {value2}"
        lines.append(line.rstrip())
    lines.extend(f"{key:<{width}} {value}" for key, value in long)
    return lines


def render(cpu: str, obj: str, name: str, rows: Iterable[Row]) -> list[str]:
    """One object's display: a heading line and its aligned rows, as console lines."""
    lines = [m.DISPLAY_HEAD.line(cpu, obj=obj, name=name)]
    lines.extend(m.DISPLAY_ROW.line(cpu, row=row) for row in layout(list(rows)))
    return lines
