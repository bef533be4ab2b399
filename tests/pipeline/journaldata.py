"""Journal rows for the pipeline tests, written with pyarrow in the journal schema."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from tpfemu.journal.schema import SCHEMA, payload_hash

T0 = 1_790_000_000_000_000  # 2026-09-21T13:33:20Z, in microseconds; a minute boundary + 20 s
MINUTE = 60_000_000


def ident(text: str) -> bytes:
    """A 24-byte MsgId/CorrelId made from a label."""
    return hashlib.sha256(text.encode()).digest()[:24]


def row(event: str, queue: str = "", t: int = T0, seq: int = 0, **fields) -> dict:
    """One journal row with defaults for every column; ``data`` sets payload and hash."""
    data = fields.pop("data", None)
    out = {name: None for name in SCHEMA.names}
    out.update(event_time_us=t, seq=seq, cpu="B", qmgr="TPF1", queue=queue, event=event)
    if data is not None:
        out.update(payload=data, payload_hash=payload_hash(data), length=len(data))
    if event in ("put", "get", "browse", "expire"):
        out.update(priority=0, persistent=False, expiry=-1, uow=0)
    out.update(fields)
    return out


def table(rows: list[dict], extra: dict[str, list] | None = None) -> pa.Table:
    """Rows (dicts) as an Arrow table in the journal schema, numbering ``seq`` if 0."""
    for i, r in enumerate(rows):
        if not r["seq"]:
            r["seq"] = i + 1
    arrays = [pa.array([r[f.name] for r in rows], type=f.type) for f in SCHEMA]
    result = pa.Table.from_arrays(arrays, schema=SCHEMA)
    for name, values in (extra or {}).items():
        result = result.append_column(name, pa.array(values, type=pa.string()))
    return result


def write(rows: list[dict] | pa.Table, path: Path, extra=None) -> Path:
    """Write rows as one Parquet file (parents made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = rows if isinstance(rows, pa.Table) else table(rows, extra)
    pq.write_table(data, path)
    return path
