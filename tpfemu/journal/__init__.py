"""The event journal: every queue-manager event, in size-rotated segments under the
system's home (schema: :mod:`tpfemu.journal.schema`, documented in docs/journal.md).

::

    with tpfemu.System.start(home="/tmp/tpf", journal="events") as system:
        ...
        system.journal.flush()
    for event in tpfemu.journal.read_events("/tmp/tpf"):
        print(event.seq, event.event, event.queue, event.msg_id)

The names below are loaded on first use, so that importing this package (the CLI does)
does not import pyarrow.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "DEFAULT_SEGMENT_BYTES": "tpfemu.journal.writer",
    "Journal": "tpfemu.journal.writer",
    "JournalError": "tpfemu.journal.reader",
    "JournalEvent": "tpfemu.journal.reader",
    "read_events": "tpfemu.journal.reader",
    "read_table": "tpfemu.journal.reader",
    "segments": "tpfemu.journal.reader",
    "to_parquet": "tpfemu.journal.reader",
    "LEVELS": "tpfemu.journal.schema",
    "SCHEMA": "tpfemu.journal.schema",
    "SCHEMA_VERSION": "tpfemu.journal.schema",
    "SchemaMismatch": "tpfemu.journal.schema",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'tpfemu.journal' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
