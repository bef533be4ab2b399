"""Report messages the queue manager makes (IBM's MQMD Report and Feedback fields).

A message asks for reports with its Report options; each report goes to the message's
ReplyToQ at its ReplyToQMgr, so a report for a message that came over a channel travels
back to the sending queue manager over a channel (docs/channels.md):

- **COA** (confirm on arrival, Feedback MQFB_COA): made by the queue manager that owns
  the destination queue when the message is placed on it, by an application's MQPUT or
  by a receiving channel. A message put to a transmission queue is not yet arrived: it
  gets none there. A put inside a unit of work has its report inside the same unit.
- **COD** (confirm on delivery, MQFB_COD): made when an application removes the message
  from its destination queue with MQGET (a browse removes nothing, and a channel taking
  it from a transmission queue delivers nothing). A get inside a unit of work has its
  report inside the same unit.
- Neither is made for a dead letter (a message behind an MQDLH, Format MQDEAD): it has not
  reached its destination.
- **Expiration** (MQFB_EXPIRATION): made when an expired message is discarded, outside
  any unit of work.
- **Exception** (Feedback: the reason the message could not be delivered): made by a
  message channel agent that cannot put a message where it was going (IBM, MQMD Report,
  MQRO_EXCEPTION); it goes with the message's dead letter, or replaces it when the
  message asks for MQRO_DISCARD_MSG, in the same unit of work.

Each kind comes in three strengths: no data, the first 100 bytes of the message data
(``_WITH_DATA``), or all of it (``_WITH_FULL_DATA``). The report's MsgId is new unless
MQRO_PASS_MSG_ID; its CorrelId is the original's MsgId unless MQRO_PASS_CORREL_ID (then
the original's CorrelId). It has the original's Priority and Persistence, its Format,
Encoding and CodedCharSetId; its Expiry is unlimited and its Report none, unless
MQRO_PASS_DISCARD_AND_EXPIRY gives a COA, COD or exception report the original's
remaining expiry and MQRO_DISCARD_MSG (when the original has it). Its PutApplType is MQAT_QMGR,
its PutApplName and ReplyToQMgr the queue manager's name. A report that cannot be put is
dead-lettered.
"""

from __future__ import annotations

import math
import time
from typing import Any, NamedTuple

from tpfemu.mq import cmqc
from tpfemu.store.message import NEVER

#: How a report made in a unit of work is dead-lettered: in it, with the context the
#: queue manager gives a dead letter (see :func:`send`).
_IN_UOW_DEAD_LETTER = (cmqc.MQPMO_SYNCPOINT | cmqc.MQPMO_SET_ALL_CONTEXT
                       | cmqc.MQPMO_NEW_MSG_ID)

__all__ = ["COA", "COD", "EXCEPTION", "EXPIRATION", "Kind", "Report", "deadline_of", "make",
           "passed_on", "wanted"]

#: IBM: a report "with data" carries the first 100 bytes of the message data.
WITH_DATA_BYTES = 100


class Kind(NamedTuple):
    """One kind of report: its Feedback and its three Report option masks."""

    name: str
    feedback: int
    plain: int
    with_data: int
    with_full_data: int


COA = Kind("COA", cmqc.MQFB_COA, cmqc.MQRO_COA, cmqc.MQRO_COA_WITH_DATA,
           cmqc.MQRO_COA_WITH_FULL_DATA)
COD = Kind("COD", cmqc.MQFB_COD, cmqc.MQRO_COD, cmqc.MQRO_COD_WITH_DATA,
           cmqc.MQRO_COD_WITH_FULL_DATA)
EXPIRATION = Kind("EXPIRATION", cmqc.MQFB_EXPIRATION, cmqc.MQRO_EXPIRATION,
                  cmqc.MQRO_EXPIRATION_WITH_DATA, cmqc.MQRO_EXPIRATION_WITH_FULL_DATA)
#: Its Feedback is the reason the message was not delivered (``make``'s ``feedback``).
EXCEPTION = Kind("EXCEPTION", cmqc.MQFB_NONE, cmqc.MQRO_EXCEPTION,
                 cmqc.MQRO_EXCEPTION_WITH_DATA, cmqc.MQRO_EXCEPTION_WITH_FULL_DATA)


class Report(NamedTuple):
    """A report to put: where to, its data, its MQMD fields and core values."""

    reply_q: str
    reply_qmgr: str
    data: bytes
    fields: dict[str, Any]
    msg_id: bytes  # b"": a new one
    correl_id: bytes
    priority: int
    persistent: bool
    expiry_tenths: int  # the report's Expiry (MQEI_UNLIMITED unless passed on)


def wanted(report: int, kind: Kind) -> bool:
    """Whether Report options ``report`` ask for a report of ``kind``."""
    return bool(report & kind.plain)


def _body(report: int, kind: Kind, data: bytes) -> bytes:
    if report & kind.with_full_data == kind.with_full_data:
        return bytes(data)
    if report & kind.with_data == kind.with_data:
        return bytes(data[:WITH_DATA_BYTES])
    return b""


def _text(value: bytes | str) -> str:
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("ascii", "replace").strip(" \0")
    return value.strip()


def deadline_of(expiry_tenths: int) -> int:
    """The expiry deadline (microseconds of the wall clock; NEVER: unlimited) of a message
    whose MQMD Expiry is ``expiry_tenths`` now."""
    if expiry_tenths == cmqc.MQEI_UNLIMITED or expiry_tenths < 0:
        return NEVER
    return time.time_ns() // 1000 + expiry_tenths * 100_000


def passed_on(report: int, expiry_left: int) -> tuple[int, int]:
    """(Expiry, Report) of a reply or report to a message with Report options ``report``
    and ``expiry_left`` tenths of a second of its Expiry left (MQEI_UNLIMITED: none): with
    MQRO_PASS_DISCARD_AND_EXPIRY, what is left and the message's MQRO_DISCARD_MSG, as
    IBM's MQMD Report says; else unlimited and MQRO_NONE. The one statement of the rule,
    for the queue manager's reports and the ROUTC bridge's replies."""
    if report & cmqc.MQRO_PASS_DISCARD_AND_EXPIRY:
        return expiry_left, report & cmqc.MQRO_DISCARD_MSG
    return cmqc.MQEI_UNLIMITED, cmqc.MQRO_NONE


def makes(kind: Kind, report: int, fmt: bytes, reply_q: bytes | str) -> bool:
    """Whether a message with Report options ``report``, Format ``fmt`` and ReplyToQ
    ``reply_q`` gets a report of ``kind`` (:func:`make` makes it): it asks for one, has
    a ReplyToQ to send it to (MQPUT refuses such a message with
    MQRC_MISSING_REPLY_TO_Q), and for COA and COD is no dead letter (behind its MQDLH it
    has not reached its destination)."""
    if not wanted(report, kind) or not _text(reply_q):
        return False
    return kind not in (COA, COD) or bytes(fmt) != cmqc.MQFMT_DEAD_LETTER_HEADER


def make(kind: Kind, record: dict[str, Any], data: bytes, *, msg_id: bytes,
         correl_id: bytes, priority: int, persistent: bool, deadline: int,
         qmgr_name: str, feedback: int | None = None) -> Report | None:
    """The report of ``kind`` that a message asks for, or None (it asks for none, or it
    has no ReplyToQ to send one to).

    :param record: the message's context fields (Report, Format, ReplyToQ, ...).
    :param data: the message data (after its context record).
    :param deadline: the message's expiry deadline (microseconds; NEVER: unlimited).
    :param qmgr_name: the queue manager making the report (the report's ReplyToQMgr).
    :param feedback: the report's Feedback when not the kind's (an exception report's
        reason).
    """
    report = record["Report"]
    if not makes(kind, report, record["Format"], record["ReplyToQ"]):
        return None
    reply_q = _text(record["ReplyToQ"])
    left = cmqc.MQEI_UNLIMITED
    if deadline != NEVER and kind is not EXPIRATION:  # (an expired one has none left)
        left = max(1, math.ceil((deadline - time.time_ns() // 1000) / 100_000))
    expiry, passed = passed_on(report, left)
    fields = {
        "MsgType": cmqc.MQMT_REPORT,
        "Feedback": kind.feedback if feedback is None else feedback,
        "Format": record["Format"],
        "Encoding": record["Encoding"],
        "CodedCharSetId": record["CodedCharSetId"],
        "PutApplType": cmqc.MQAT_QMGR,
        "PutApplName": qmgr_name.encode("ascii", "replace")[:28].ljust(28),
        "ReplyToQMgr": qmgr_name.encode("ascii", "replace")[:48].ljust(48),
        "Report": passed,
    }
    return Report(
        reply_q, _text(record["ReplyToQMgr"]), _body(report, kind, data), fields,
        msg_id if report & cmqc.MQRO_PASS_MSG_ID else b"",
        correl_id if report & cmqc.MQRO_PASS_CORREL_ID else msg_id,
        priority, persistent, expiry)


def send(conn: Any, report: Report, kind: Kind, original: bytes, syncpoint: bool) -> None:
    """Put a COA, COD or exception ``report`` (of the message whose MsgId is ``original``) as the
    queue manager: by MQPUT1 through the one put path on ``conn``, with its context set
    (MQPMO_SET_ALL_CONTEXT), inside ``conn``'s unit of work when ``syncpoint``, where it
    counts toward MAXUMSGS. A COA or COD is not refused by the limit (the call that made
    it was judged with it, see :func:`tpfemu.qmgr.units.limit_reached`); an exception
    report, made by a channel agent, is an ordinary put to IBM's MaxUncommittedMsgs. A report
    that cannot be put is dead-lettered with the reason; if that fails too, it is lost
    (and the console says so, as for any dead letter)."""
    from tpfemu.mq.structs import MD, PMO
    from tpfemu.qmgr import mqput

    md = MD(Version=cmqc.MQMD_VERSION_2, CorrelId=report.correl_id, Priority=report.priority,
            Persistence=int(report.persistent), Expiry=report.expiry_tenths, **report.fields)
    options = cmqc.MQPMO_SET_ALL_CONTEXT | (
        cmqc.MQPMO_SYNCPOINT if syncpoint else cmqc.MQPMO_NO_SYNCPOINT)
    if report.msg_id:
        md.MsgId = report.msg_id
    else:
        options |= cmqc.MQPMO_NEW_MSG_ID
    generated = kind in (COA, COD)

    def put_dead_letter(data: bytes, fields: dict[str, Any]) -> None:
        """The report's dead letter, in the unit of work the report was made in (as
        QueueManager.put_internal puts one outside it: the report's CorrelId and
        Priority, not persistent)."""
        from tpfemu.qmgr.manager import DLQ_NAME

        dl_md = MD(Version=cmqc.MQMD_VERSION_2, CorrelId=report.correl_id,
                   Priority=report.priority, Persistence=cmqc.MQPER_NOT_PERSISTENT, **fields)
        mqput.put1(conn, DLQ_NAME, data, dl_md, PMO(Options=_IN_UOW_DEAD_LETTER),
                   generated=generated)

    conn.qmgr.send_report(report, kind, original, put=lambda: mqput.put1(
        conn, report.reply_q, report.data, md, PMO(Options=options), report.reply_qmgr,
        generated=generated), put_dead_letter=put_dead_letter if syncpoint else None)
