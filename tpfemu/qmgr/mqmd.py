"""What MQPUT and MQGET share: their errors, their syncpoint options, the queue checks
both make, and the MQMD's ids and put date and time.

Descriptors and options are *duck-typed*: ``md``, ``pmo`` and ``gmo`` are any objects with
IBM's field names as attributes (the MQI's ``MD``, ``PMO``, ``GMO``), read with defaults
when a field is missing and written back where IBM's calls write output fields.
"""

from __future__ import annotations

import calendar
import functools
import time
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu.mq import cmqc

if TYPE_CHECKING:
    from tpfemu.qmgr.connection import Handle
    from tpfemu.qmgr.localq import LocalQueue
    from tpfemu.qmgr.resolve import Resolved

__all__ = ["ZERO_ID", "date_time", "dead_letter_fields", "dead_letter_header", "fail", "id24",
           "queue_of", "queue_usable", "set_field", "syncpoint", "time_from"]

#: MQMI_NONE / MQCI_NONE
ZERO_ID = bytes(24)


def fail(reason: int, call: str, obj: str, comp: int = errors.MQCC_FAILED) -> errors.MQMIError:
    """The MQMIError of ``call`` on ``obj`` for ``reason``."""
    return errors.error_for(reason, call=call, obj=obj, comp=comp)


def syncpoint(options: int, yes: int, no: int, call: str, obj: str) -> bool | None:
    """True or False as ``options`` ask for syncpoint (``yes``) or not (``no``); None when
    they say neither. Both: MQRC_OPTIONS_ERROR (2046)."""
    if options & yes and options & no:
        raise fail(cmqc.MQRC_OPTIONS_ERROR, call, obj)
    if options & yes:
        return True
    if options & no:
        return False
    return None


def queue_usable(conn: Any, handle: Any, call: str) -> None:
    """MQRC_Q_DELETED (2052) for a deleted queue; MQRC_Q_MGR_STOPPING (2162) while the
    queue or its queue manager stops."""
    queue = handle.queue
    if queue.deleted:
        raise fail(cmqc.MQRC_Q_DELETED, call, handle.name)
    if queue.stopping or not conn.qmgr.running:
        raise fail(cmqc.MQRC_Q_MGR_STOPPING, call, conn.qmgr.name)


def queue_of(handle: Handle) -> tuple[LocalQueue, Resolved]:
    """The queue an MQPUT or MQGET handle reaches, and how its name resolved (only a
    queue handle is open for output, input or browse)."""
    queue, resolved = handle.queue, handle.resolved
    if queue is None or resolved is None:  # pragma: no cover - refused before
        raise TypeError(f"handle {handle.hobj} is not a queue's")
    return queue, resolved


def id24(value: Any) -> bytes:
    """A MsgId/CorrelId as 24 bytes: shorter ones are NUL-padded, as pymqi packs them."""
    value = bytes(value)
    return value.ljust(24, b"\0") if len(value) < 24 else value


def set_field(obj: Any, field: str, value: Any) -> None:
    """Set an output field, if ``obj`` (a shorter structure version) has it."""
    try:
        setattr(obj, field, value)
    except (AttributeError, KeyError, ValueError):
        pass


_last_tick: tuple[int, bytes, bytes] = (-1, b"", b"")  # (1/100 s, date, time), swapped whole


def date_time(put_time_us: int) -> tuple[bytes, bytes]:
    """MQMD PutDate (YYYYMMDD) and PutTime (HHMMSSTH) in GMT."""
    global _last_tick
    tick = put_time_us // 10_000
    cached = _last_tick
    if cached[0] != tick:
        seconds, hundredths = divmod(tick, 100)
        t = time.gmtime(seconds)
        cached = (tick, time.strftime("%Y%m%d", t).encode(),
                  time.strftime("%H%M%S", t).encode() + b"%02d" % hundredths)
        _last_tick = cached
    return cached[1], cached[2]


def dead_letter_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """The MQMD fields of a dead letter whose message had ``fields``: the same, but for
    Format MQDEAD and the Encoding and CodedCharSetId of the MQDLH before the data (this
    queue manager's: native, its CCSID), as IBM's MQDLH says of putting a message on the
    dead-letter queue; the MQDLH itself keeps the data's (:func:`dead_letter_header`)."""
    from tpfemu.qmgr.context import QMGR_CCSID

    return dict(fields, Format=cmqc.MQFMT_DEAD_LETTER_HEADER, Encoding=cmqc.MQENC_NATIVE,
                CodedCharSetId=QMGR_CCSID)


def dead_letter_header(reason: int, dest_q: str, dest_qmgr: str, *, fmt: bytes,
                       encoding: int, ccsid: int, appl_type: int, appl_name: str) -> Any:
    """The MQDLH put before a message on the dead-letter queue, the one statement of its
    rule: why (``reason``), where the message was going, who put it there (the queue
    manager, a channel agent, the bridge) and when (now), and the Format, Encoding and
    CCSID of the data after it (a CCSID of 0, "the queue manager's", becomes
    MQCCSI_INHERIT: the same as the header's, given in the dead letter's MQMD by
    :func:`dead_letter_fields`)."""
    from tpfemu.mq.headers import DLH

    date, clock = date_time(time.time_ns() // 1000)
    return DLH(Reason=reason, DestQName=dest_q.encode()[:48],
               DestQMgrName=dest_qmgr.encode()[:48], Format=fmt, Encoding=encoding,
               CodedCharSetId=ccsid or cmqc.MQCCSI_INHERIT, PutApplType=appl_type,
               PutApplName=appl_name.encode()[:28], PutDate=date, PutTime=clock)


def time_from(date: bytes, clock: bytes) -> int:
    """Microseconds from a PutDate and PutTime (SET_ALL_CONTEXT); 0 (= now) if blank."""
    date, clock = bytes(date).strip(), bytes(clock).strip()
    if not date:
        return 0
    seconds = _seconds(date, clock[:6] or b"000000")
    if seconds is None:
        return 0
    hundredths = int(clock[6:8] or b"0")
    return seconds * 1_000_000 + hundredths * 10_000


@functools.lru_cache(maxsize=256)
def _seconds(date: bytes, clock: bytes) -> int | None:
    """Seconds since the epoch of a PutDate and the first six characters of a PutTime
    (None if they are not a date and time). Cached: a channel's receiver passes the same
    second's context on for many messages (issue 25)."""
    try:
        base = time.strptime(date.decode() + clock.decode(), "%Y%m%d%H%M%S")
    except (ValueError, UnicodeDecodeError):
        return None
    return calendar.timegm(base)
