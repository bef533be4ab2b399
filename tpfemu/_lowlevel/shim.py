"""What the MQI's hot paths need of the compiled shim beyond the queue: the MQ
structures' C base, the journal's EventLog and payload hash, the context record's and
the plans' layouts, the plans themselves and MQPUT's MD rules (written once in C).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeAlias

from tpfemu._lowlevel.compiled import _OK, EXPIRED_PENDING, _fastpath, ffi, lib

__all__ = ["EventLog", "StructBase", "follow_running_ecbs", "journal_columns", "payload_hashes",
           "plan_raw", "planned_get", "planned_get_raw", "planned_put", "planned_put_raw",
           "put_rules", "set_md_layout", "set_plan_layout", "SegmentFile"]


#: The C base of the MQ structures: its ``__init__(**fields)`` stores fields given as
#: plain ints and bytes without a Python frame (see native/python/mdpath.h).
StructBase = _fastpath.StructBase

#: The event journal's capture buffer (native/python/eventlog.h): ``EventLog(current,
#: payload=False)``, ``current()`` returning the running ECB or None. ``log.add(kind,
#: queue, time_us, fields)`` is an event-bus raw subscriber; the queue fast paths given
#: the log as ``log=`` record their put and get events in it, in C; ``log.take()``
#: returns everything recorded, in order, with the payload hashes computed:
#: ``(count, records, names, items, data)``, the fixed records laid out as
#: ``EventLog.LAYOUT`` says.
EventLog: TypeAlias = _fastpath.EventLog
#: The end of the journal segment being written (native/python/segfile.c):
#: ``SegmentFile(fd, size=0)`` stages appends and writes them at their offsets, with
#: O_DIRECT on ``fd`` in whole blocks; ``EventLog.write_ipc`` encodes into it.
SegmentFile: TypeAlias = _fastpath.SegmentFile



def follow_running_ecbs(watch_running: Callable[[Callable[[Any], object]], bool]) -> None:
    """Have the ECB runtime tell :class:`EventLog` which ECB runs on each thread, at every
    switch, so that recording an event reads a thread-local slot instead of calling
    ``current()``. ``watch_running`` is ``ecb.linkage.watch_running``; the journal calls
    this before it records anything. If entries ran before, EventLog keeps calling
    ``current()`` (the watcher would not know what they left running)."""
    if watch_running(_fastpath.set_running_ecb):
        _fastpath.trust_running_slots()

#: ``payload_hashes(datas) -> bytes``: the journal's payload hash (XXH64 with seed 42,
#: big-endian: ``xxhash.xxh64(d, seed=42).digest()``, Spark's ``xxhash64``) of each bytes
#: in a list, 8 bytes each (zeros for None), computed with the GIL released.
payload_hashes = _fastpath.payload_hashes


def set_md_layout(version: int, size: int, fields: tuple, expiry_offset: int,
                  default_record: bytes, md_initials: dict[str, Any]) -> None:
    """Give the C shim the context record's layout, for :meth:`CoreQueue.put_md` and
    :meth:`CoreQueue.get_md` (tpfemu.qmgr.context calls this once).

    :param fields: ``(name, kind, width, offset, initial, default, app)`` per record
        field in order: kind 0 an MQLONG, 1 blank-padded bytes, 2 NUL-padded bytes; the
        MD's initial value; the value of a message stored without a record; app true
        when MQPUT takes the field from the MD.
    :param md_initials: the MD's initial Priority, Persistence, Expiry, MsgType,
        ReplyToQ, MsgId and CorrelId.
    """
    _fastpath.md_layout_set(version, size, fields, expiry_offset, default_record, md_initials)


def set_plan_layout(put_plan: type, get_plan: type, generation_type: type, md_type: type,
                    gmo_type: type, pmo_type: type, get_options: int,
                    put_options: int) -> None:
    """Tell the C shim what :func:`planned_put` and :func:`planned_get` read: the plan
    types (named tuples, whose fields it checks against the positions it reads), the
    catalog's Generation, the MD, GMO and PMO classes they serve, and the MQGMO and
    MQPMO options a plan serves (tpfemu.qmgr.plans calls this once)."""
    _fastpath.plan_setup(put_plan, get_plan, generation_type, md_type, gmo_type, pmo_type,
                         get_options, put_options, EXPIRED_PENDING)


_MQLONG = (-(2**31), 2**31 - 1)


def _mqlong(value: int, low: int, high: int) -> int:
    """An MD field for a C MQLONG: a value outside the MQLONG range stands in as ``low``
    or ``high`` (each outside the field's valid values, so the rule fails it alike)."""
    if value < _MQLONG[0]:
        return low
    return high if value > _MQLONG[1] else value


def put_rules(priority: int, persistence: int, expiry: int, msg_type: int, report: int,
              reply_to_blank: bool, defprty: int, defpsist: bool, now: int,
              feedback: int = 0) -> tuple[int, int, bool, int]:
    """MQPUT's rules for an MQMD's Priority, Persistence, Expiry, MsgType, Report and
    Feedback (one place for them: native/include/tpf/putrules.h, which the plans' C put
    calls too).

    :returns: ``(reason, priority, persistent, expiry deadline)``: reason MQRC_NONE, or
        MQRC_PRIORITY_EXCEEDS_MAXIMUM (a warning) with the values the message is put with;
        else the failure's reason (2050, 2047, 2013, 2029, 2014, 2061 or 2027) and the
        other items 0.
    """
    out = ffi.new("tpf_mq_put_desc_t *")
    rc = lib.tpf_mq_put_rules(_mqlong(priority, -2, 10), _mqlong(persistence, 3, 3),
                              _mqlong(expiry, -2, -2), _mqlong(msg_type, 0, 0),
                              _mqlong(report, 0, 0), _mqlong(feedback, -1, -1),
                              bool(reply_to_blank), defprty, bool(defpsist), now, out)
    if rc not in (_OK, lib.MQRC_PRIORITY_EXCEEDS_MAXIMUM):
        return rc, 0, False, 0
    return rc, out.priority, bool(out.persistent), out.expiry


#: ``planned_put(plan, data, md, pmo) -> bool`` and ``planned_get(plan, max_length, md,
#: gmo) -> bytes | None``: see tpfemu.qmgr.plans and native/python/planpath.h.
planned_put = _fastpath.planned_put
planned_get = _fastpath.planned_get
#: The same plans for C programs' structures in C layout: ``plan_raw``, a capsule of the
#: entries (native/include/tpf/plan_raw.h) for tpfemu._cprog, and the entries callable
#: from Python with writable buffers, ``planned_put_raw(plan, data, md, pmo) -> bool``
#: and ``planned_get_raw(plan, md, gmo, buffer) -> int | None`` (the length got).
plan_raw = _fastpath.plan_raw
planned_put_raw = _fastpath.planned_put_raw
planned_get_raw = _fastpath.planned_get_raw


def journal_columns() -> list[tuple[str, str, bool]]:
    """(name, Arrow type, nullable) of each column the journal's C encoder writes, in
    order (``tpf_journal_columns``, native/include/tpf/journal.h)."""
    return [(ffi.string(c.name).decode(), ffi.string(c.type).decode(), bool(c.nullable))
            for c in lib.tpf_journal_columns[0:lib.TPF_JOURNAL_NCOLS]]
