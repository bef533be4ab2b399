"""The capture format: what a legacy system received and what it produced.

A capture is a journal (schema :mod:`tpfemu.journal.schema`) written at level ``payload``:
one ``put`` row per message, with its descriptor fields, ``payload`` and ``payload_hash``
(XXH64 of the payload with seed 42, 8 bytes big-endian: Spark's ``xxhash64(payload)``).
A capture made by another tool may carry either: compare needs one of them per row.
Rows of other event types may be present and are ignored, except ``backout``: a put
inside a unit of work that was backed out (same ``qmgr`` and ``uow``) did not happen.

Which messages are inbound (the system received them) and which are outbound (it produced
them) is decided per row, first rule that applies:

1. the optional string column ``direction``: ``in``/``inbound`` or ``out``/``outbound``;
2. the queue lists given to the job: ``inbound`` queues (every other queue is outbound),
   or ``outbound`` queues (every other queue is inbound); a name ending in ``*`` is a
   prefix;
3. otherwise the ``ecb`` column: a put made outside any TPF entry (``ecb`` null: an
   application, a channel, a capture tool) is inbound, one made by a program running in
   an entry is outbound. A journal of an emulator run therefore needs no lists.

The message type, format and reply-to names ``replay`` puts a message with: the columns
``msg_type``, ``format``, ``reply_to_q``, ``reply_to_qmgr`` (schema version 3), else the
keys of the same names in a put row's ``detail`` JSON (a capture made by another tool).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Direction", "INBOUND", "OUTBOUND", "backout_rows", "with_direction", "messages"]

INBOUND = "in"
OUTBOUND = "out"
_IN_WORDS = ("in", "inbound")
_OUT_WORDS = ("out", "outbound")


@dataclass(frozen=True)
class Direction:
    """The queue lists of rule 2 (at most one of them)."""

    inbound: tuple[str, ...] = field(default=())
    outbound: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.inbound and self.outbound:
            raise ValueError("give inbound queues or outbound queues, not both")

    def queue_rule(self) -> tuple[tuple[str, ...], str] | None:
        if self.inbound:
            return self.inbound, INBOUND
        if self.outbound:
            return self.outbound, OUTBOUND
        return None


def _matches(names: Sequence[str], queue: str) -> bool:
    return any(queue.startswith(n[:-1]) if n.endswith("*") else queue == n for n in names)


def _queue_condition(col, names: Sequence[str]):
    from pyspark.sql import functions as F

    cond = F.lit(False)
    for n in names:
        cond = cond | (col.startswith(n[:-1]) if n.endswith("*") else col == F.lit(n))
    return cond


def backout_rows(frame):
    """The rows of ``frame`` that back out a unit of work (uow 0 is none)."""
    from pyspark.sql import functions as F

    return frame.where((F.col("event") == "backout") & (F.col("uow") != 0))


def with_direction(frame, rule: Direction | None = None, *, backouts: bool = True):
    """Put events of ``frame`` (a journal DataFrame) that took effect, with a
    ``direction`` column holding ``in`` or ``out`` by the rules above. ``backouts=False``
    says that ``frame`` has no backout rows (:func:`backout_rows`): every put took effect,
    and no anti-join against the backed-out units of work is planned."""
    from pyspark.sql import functions as F

    rule = rule or Direction()
    puts = frame.where(F.col("event") == "put")
    if backouts:
        backed_out = backout_rows(frame).select("qmgr", "uow").distinct()
        puts = puts.join(F.broadcast(backed_out), on=["qmgr", "uow"], how="left_anti")
    given = F.lower(F.col("direction"))
    by_queue = rule.queue_rule()
    if by_queue is not None:
        names, inside = by_queue
        other = OUTBOUND if inside == INBOUND else INBOUND
        fallback = F.when(_queue_condition(F.col("queue"), names), inside).otherwise(other)
    else:
        fallback = F.when(F.col("ecb").isNull(), INBOUND).otherwise(OUTBOUND)
    decided = (F.when(given.isin(*_IN_WORDS), INBOUND)
               .when(given.isin(*_OUT_WORDS), OUTBOUND)
               .otherwise(fallback))
    return puts.withColumn("direction", decided)


def messages(frame, which: str, rule: Direction | None = None, *, backouts: bool = True):
    """The inbound (``which="in"``) or outbound (``"out"``) messages of a journal frame
    (``backouts`` as :func:`with_direction` has it)."""
    from pyspark.sql import functions as F

    return with_direction(frame, rule, backouts=backouts).where(F.col("direction") == which)


# -- the same rules on Arrow tables (replay reads local captures without a JVM) -----------

def arrow_inbound(table, rule: Direction | None = None):
    """Inbound put rows of a pyarrow Table, in recorded order (event_time_us, seq)."""
    import pyarrow as pa

    rule = rule or Direction()
    n = table.num_rows
    cols = table.column_names
    events = table.column("event").to_pylist()
    qmgrs = table.column("qmgr").to_pylist()
    uows = table.column("uow").to_pylist() if "uow" in cols else [0] * n
    backed_out = {(q, u) for e, q, u in zip(events, qmgrs, uows, strict=True)
                  if e == "backout" and u}
    queues = table.column("queue").to_pylist()
    ecbs = table.column("ecb").to_pylist() if "ecb" in cols else [None] * n
    given = table.column("direction").to_pylist() if "direction" in cols else [None] * n
    by_queue = rule.queue_rule()
    keep = []
    for i in range(n):
        if events[i] != "put" or (uows[i] and (qmgrs[i], uows[i]) in backed_out):
            keep.append(False)
            continue
        word = (given[i] or "").lower()
        if word in _IN_WORDS:
            keep.append(True)
        elif word in _OUT_WORDS:
            keep.append(False)
        elif by_queue is not None:
            names, inside = by_queue
            keep.append(_matches(names, queues[i]) == (inside == INBOUND))
        else:
            keep.append(ecbs[i] is None)
    chosen = table.filter(pa.array(keep, type=pa.bool_()))
    return chosen.sort_by([("event_time_us", "ascending"), ("seq", "ascending")])


def detail_of(text: str | None) -> dict:
    """A row's ``detail`` JSON as a dict ({} when null or not an object)."""
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
