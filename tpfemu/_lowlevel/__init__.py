"""The one seam between Python and the compiled code (``tpfemu._native`` through cffi,
``tpfemu._fastpath``): only the modules of this package import them.

- :mod:`~tpfemu._lowlevel.compiled`: the compiled modules, the numbers their headers
  define (reason codes, option bits, MQMD values: each defined once, in C) and the
  translation of the core's return codes into :mod:`tpfemu.errors`;
- :mod:`~tpfemu._lowlevel.queue`: the queue binding, :class:`CoreQueue` and its cursors;
- :mod:`~tpfemu._lowlevel.shim`: what the MQI's hot paths need beyond the queue (the MQ
  structures' C base, the journal's EventLog and columns, the plans, MQPUT's MD rules);
- :mod:`~tpfemu._lowlevel.logreplay`: the recovery log's replay at restart;
- :mod:`~tpfemu._lowlevel.loggate`: the recovery log's wait for durability.

Above this package nothing sees cffi objects: ``ffi`` and ``lib`` stay inside it.

Everything is importable from here, as ``from tpfemu._lowlevel import CoreQueue``.
"""

from tpfemu._lowlevel.compiled import (
    EXPIRED_PENDING,
    ID_LEN,
    MQ_OTHER,
    MQGMO,
    MQMO,
    MQRC,
    NEVER,
    PRIORITIES,
    TPF_RC,
    header_constants,
)
from tpfemu._lowlevel.loggate import LogGate, log_encode, log_encode_setup
from tpfemu._lowlevel.logreplay import log_pack, log_replay
from tpfemu._lowlevel.queue import (
    Batch,
    CoreQueue,
    Cursor,
    CursorMoves,
    Descriptor,
    Message,
    check_get_options,
    check_id,
    check_settings,
)
from tpfemu._lowlevel.shim import (
    EventLog,
    SegmentFile,
    StructBase,
    follow_running_ecbs,
    journal_columns,
    payload_hashes,
    plan_raw,
    planned_get,
    planned_get_raw,
    planned_put,
    planned_put_raw,
    put_rules,
    set_md_layout,
    set_plan_layout,
)

__all__ = [
    "EXPIRED_PENDING", "ID_LEN", "MQGMO", "MQMO", "MQRC", "MQ_OTHER", "NEVER", "PRIORITIES",
    "TPF_RC", "Batch", "CoreQueue", "Cursor", "CursorMoves", "Descriptor", "EventLog",
    "Message", "StructBase", "check_get_options", "check_id", "check_settings",
    "follow_running_ecbs", "header_constants", "journal_columns", "log_pack", "log_replay",
    "payload_hashes", "plan_raw", "planned_get", "planned_get_raw", "planned_put",
    "planned_put_raw",
    "put_rules", "set_md_layout", "set_plan_layout",
    "LogGate", "SegmentFile", "log_encode", "log_encode_setup",
]
