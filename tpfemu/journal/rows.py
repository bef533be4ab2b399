"""The fast paths' recorded events as journal rows, and the journal's payload hash.

:meth:`EventLog.take` hands over the events the MQI's fast paths recorded in C as fixed
records (:data:`RECORD`, read from ``EventLog.LAYOUT``), a table of the queue and program
names they point into, and, where the log kept it, their data back to back. This module
turns a run of those records into one :class:`pyarrow.RecordBatch` of
:data:`~tpfemu.journal.schema.SCHEMA`, column by column with whole-array operations (no
Python work per event). The journal's writer encodes these runs in C instead
(``EventLog.write_ipc``, native/src/journal_ipc.c), which pays 1.7x on the journal's
cost (docs/journal.md, "Cost"); this module is what it was measured against
(bench/bench_journal.py) and the reference its rows are tested against.

The schema is defined once, in :mod:`tpfemu.journal.schema`: importing this module
checks that the C encoder writes exactly its columns (:func:`check_encoder`), and fails
the import, naming the column, when it does not.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from tpfemu._lowlevel import NEVER, EventLog, journal_columns
from tpfemu.journal.schema import SCHEMA, SEGMENT_SCHEMA

__all__ = ["RECORD", "check_encoder", "encoder_columns", "fixed_binary", "record_batch",
           "runs", "xxhash_hashes"]


def encoder_columns() -> list[tuple[str, str, bool]]:
    """(name, Arrow type, nullable) of each column the C encoder writes, in order."""
    return journal_columns()


def check_encoder(columns: list[tuple[str, str, bool]],
                  schema: pa.Schema = SEGMENT_SCHEMA) -> None:
    """Raise ImportError unless ``columns`` (see :func:`encoder_columns`) are ``schema``'s
    (by default the segment schema's) fields, in order, with their types and nullability:
    the C encoder and schema.py would write different journals."""
    want = [(f.name, str(f.type), f.nullable) for f in schema]
    for i, (got, exp) in enumerate(zip(columns, want, strict=False)):
        if got != exp:
            raise ImportError(
                f"the journal's C encoder (native/src/journal_ipc.c) disagrees with "
                f"tpfemu/journal/schema.py at column {i}: C writes {got}, the schema says "
                f"{exp}; change them together")
    if len(columns) != len(want):
        raise ImportError(
            f"the journal's C encoder (native/src/journal_ipc.c) writes {len(columns)} "
            f"columns, tpfemu/journal/schema.py has {len(want)}; change them together")


check_encoder(encoder_columns())


#: The numpy layout of an EventLog record (EventLog.LAYOUT, from the C struct).
RECORD = np.dtype({
    "names": list(EventLog.LAYOUT[1]),
    "formats": [fmt for _, fmt in EventLog.LAYOUT[1].values()],
    "offsets": [offset for offset, _ in EventLog.LAYOUT[1].values()],
    "itemsize": EventLog.LAYOUT[0],
})
_KINDS = pa.array(["", "put", "get"], pa.string())  # by record kind (0: emitted in Python)
_INT32_MAX = np.iinfo(np.int32).max


def fixed_binary(buffer, width: int, n: int, valid: np.ndarray | None = None) -> pa.Array:
    """``n`` values of ``width`` bytes back to back in ``buffer`` as a binary column (no
    copy of the values); with ``valid``, a bool per row, the rows it marks False are null
    and ``buffer`` holds only the others."""
    if valid is None:
        offsets = np.arange(0, width * n + 1, width, dtype=np.int32)
        return pa.BinaryArray.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets),
                                                            pa.py_buffer(buffer)])
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(valid * width, out=offsets[1:])
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.BinaryArray.from_buffers(pa.binary(), n, [bitmap, pa.py_buffer(offsets),
                                                        pa.py_buffer(buffer)],
                                       null_count=int(n - np.count_nonzero(valid)))


def _ids(recs: np.ndarray, field: str, null_if_zero: bool = False) -> pa.Array:
    """A 24-byte id column (MsgId, CorrelId, GroupId); GroupId's all-zero ids as null."""
    values = np.ascontiguousarray(recs[field]).view(np.uint8).reshape(len(recs), 24)
    if not null_if_zero:
        return fixed_binary(values, 24, len(recs))
    words = values.view(np.uint64)
    valid = (words[:, 0] | words[:, 1] | words[:, 2]) != 0
    if valid.all():
        return fixed_binary(values, 24, len(recs))
    return fixed_binary(np.ascontiguousarray(values[valid]), 24, len(recs), valid)


def _expiries(deadline: np.ndarray, time_us: np.ndarray) -> np.ndarray:
    """Time left until each deadline at its event, in tenths of a second rounded up: -1
    for none (NEVER), 0 once passed, at most INT32_MAX."""
    never = deadline == NEVER
    left = np.where(never | (deadline <= time_us), 0, deadline - time_us)
    tenths = np.minimum((left + 99_999) // 100_000, _INT32_MAX)
    return np.where(never, -1, tenths).astype(np.int32)


def xxhash_hashes(recs: np.ndarray, data: bytes) -> bytes:
    """The payload hash of each record's data (its ``length`` bytes at ``data_off`` in
    ``data``), 8 bytes each, with the xxhash package (XXH64, seed 42)."""
    import xxhash

    xxh64 = xxhash.xxh64_digest
    view = memoryview(data)
    return b"".join([xxh64(view[o:o + n], 42)
                     for o, n in zip(recs["data_off"].tolist(), recs["length"].tolist(),
                                     strict=True)])


def record_batch(recs: np.ndarray, names: list[str], seq0: int, cpu: str, qmgr: str,
                 data: bytes | None, hashes=None) -> pa.RecordBatch:
    """The rows of a run of recorded events (none of kind 0), rows ``seq0`` on.

    :param data: the log's data (``take()``'s last item) for the ``payload`` column, or
        None for a null column (level ``events``).
    :param hashes: the payload hashes, 8 bytes a row, or None to take the records' own.
    """
    n = len(recs)
    time_us = np.ascontiguousarray(recs["time_us"])
    table = pa.array([*names, None], pa.string())
    program = np.where(recs["program"] < 0, len(names), recs["program"])
    if hashes is None:
        hashes = np.ascontiguousarray(recs["hash"])
    if data is not None:
        offs = recs["data_off"]
        start = int(offs[0]) if n else 0
        offsets = np.empty(n + 1, np.int32)
        offsets[0] = 0
        np.cumsum(recs["length"], out=offsets[1:])
        payload = pa.BinaryArray.from_buffers(
            pa.binary(), n, [None, pa.py_buffer(offsets),
                             pa.py_buffer(memoryview(data)[start:start + int(offsets[-1])])])
    else:
        payload = pa.nulls(n, pa.binary())
    ecb = recs["ecb"]
    return pa.RecordBatch.from_arrays([
        pa.array(time_us),
        pa.array(np.arange(seq0, seq0 + n, dtype=np.int64)),
        pa.repeat(pa.scalar(cpu, pa.string()), n),
        pa.repeat(pa.scalar(qmgr, pa.string()), n),
        table.take(pa.array(recs["queue"])),
        _KINDS.take(pa.array(recs["kind"])),
        _ids(recs, "msg_id"),
        _ids(recs, "correl_id"),
        _ids(recs, "group_id", null_if_zero=True),
        pa.array(recs["priority"].astype(np.int32)),
        pa.array(recs["persistent"].astype(bool)),
        pa.array(_expiries(recs["deadline"], time_us)),
        pa.array(np.ascontiguousarray(recs["length"])),
        fixed_binary(hashes, 8, n),
        payload,
        pa.array(np.ascontiguousarray(recs["uow"])),
        pa.array(ecb, mask=ecb < 0),
        table.take(pa.array(program)),
        pa.nulls(n, pa.string()),
        pa.array(recs["msg_type"], mask=recs["msg_type"] < 0),
        *[table.take(pa.array(np.where(recs[field] < 0, len(names), recs[field])))
          for field in ("format", "reply_q", "reply_qmgr")],
    ], schema=SCHEMA)


def runs(kinds: np.ndarray) -> list[tuple[int, int, bool]]:
    """(start, end, recorded) of each run of records of one sort, in order: recorded
    (kind != 0, the fast paths') or emitted in Python (kind 0)."""
    recorded = kinds != 0
    edges = np.flatnonzero(recorded[1:] != recorded[:-1]) + 1
    bounds = [0, *edges.tolist(), len(kinds)]
    return [(a, b, bool(recorded[a])) for a, b in zip(bounds, bounds[1:], strict=False)
            if b > a]

