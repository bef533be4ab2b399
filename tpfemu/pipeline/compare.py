"""``compare``: expected against actual outbound messages, at scale, on Spark.

Only outbound messages take part (:mod:`.capture` decides the direction). Matching, per
queue, in three stages; each stage sees only what the ones before left unmatched:

1. **CorrelId**: messages with a CorrelId (not null, not 24 zero bytes) are matched on
   (queue, CorrelId, occurrence), where occurrence numbers the messages sharing a
   (queue, CorrelId) in recorded order (event_time_us, seq): the first expected with the
   first actual, the second with the second, ...
2. **MsgId**: then on (queue, MsgId, occurrence), the same way.
3. **Sequence**: left-over messages without a CorrelId on both sides are matched by their
   position, in recorded order, among the left-over ones of their queue.

What is still unmatched is **missing** (expected only) or **extra** (actual only). A
matched pair is:

- **payload-changed** when the payload digests differ: a row's digest is its
  ``payload_hash`` (XXH64 with seed 42, 8 bytes big-endian), or, without one, Spark's
  ``xxhash64(payload)`` as those 8 bytes, the same value; so a side with hashes only and
  a side with payloads only compare. A message with neither (an ``events`` journal of schema version
  1, whose hashes are read as null) has no digest: its pair is not compared on payload;
- **descriptor-changed** per field when any of ``priority``, ``persistent``, ``expiry``,
  ``length``, ``group_id`` differs, or ``msg_id`` (when matched by CorrelId or sequence),
  or ``correl_id`` (when matched by MsgId or sequence); fields can be ignored. The
  message type, format and reply-to names (schema version 3) are not compared (older
  captures and other tools' lack them) but shown beside each difference
  (``expected_msg_type``, ``actual_reply_to_q`` ...);
- **reordered** when, taking the matched pairs of a queue in expected order, its actual
  message was recorded before the actual message of the pair just before it (each
  adjacent inversion counts once: two swapped neighbours make one reordered pair).

How it runs: the matching and the reorder check move narrow rows only (queue, ids, time,
seq, a row id, and one 64-bit fingerprint of the digest and the other compared fields; in
the CorrelId stage, which sees every message, the MsgId as its 64-bit hash, the left-overs
fetching their real MsgId for the next stages). The pairs whose fingerprints, MsgId
hashes or compared ids differ, the reordered pairs and the unmatched messages are the
candidates; only their whole rows are read again (by row id) and compared field by field,
so a fingerprint or hash collision can hide a difference (odds about 2^-64 a pair) but
never invent one.

Output directory (appears atomically): ``missing/``, ``extra/``, ``payload_changed/``,
``descriptor_changed/``, ``reordered/`` (Parquet, one row per message or pair, columns
``expected_*``/``actual_*``), ``per_queue/`` (Parquet), ``summary.json``, ``report.html``,
``report.md`` and ``charts/``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path

from tpfemu.pipeline import presort

__all__ = ["DESCRIPTOR_FIELDS", "KINDS", "compare", "run"]

KINDS = ("missing", "extra", "payload_changed", "descriptor_changed", "reordered")
DESCRIPTOR_FIELDS = ("priority", "persistent", "expiry", "length", "group_id", "msg_id",
                     "correl_id")
#: The columns every matching stage carries per message: narrow, so that the shuffles
#: and sorts of the matching move few bytes. ``fp`` stands for every other field compared.
_CARRIED = ("msg_id", "correl_id", "fp", "t", "seq", "rid")
#: The columns fetched, for the messages that differ, to tell how they differ.
_WIDE = ("msg_id", "correl_id", "group_id", "priority", "persistent", "expiry", "length",
         "payload_hash", "digest", "preview", "t", "seq", *("msg_type", "format",
                                                            "reply_to_q", "reply_to_qmgr"))
#: What stage 1 (the CorrelId match, over every message) carries: the MsgId only as its
#: 64-bit hash, inside the fingerprint ``fp`` (unless the MsgId is ignored; see
#: :func:`_narrow`); the left-overs fetch their real MsgId by row id for stages 2 and 3
#: (:func:`_with_msg_ids`).
_CARRIED_1 = ("correl_id", "fp", "t", "seq", "rid")
#: What a stored left-over of stage 1 keeps, per side.
_LEFT_1 = ("correl_id", "fp", "t", "seq", "rid")
#: What a matched pair keeps, per side, for the reorder check and the candidates.
_PAIR = ("t", "seq", "rid")
#: ``matched_by`` as a small number in the reorder check's rows (a string costs 24 bytes).
_MATCHED_BY = ("correl_id", "msg_id", "sequence")
#: Fields of ``fp``, besides the digest.
_FP_FIELDS = ("priority", "persistent", "expiry", "length", "group_id")
#: Wide columns that are not part of the output.
_INTERNAL = ("digest",)
#: At most this many row ids are broadcast to fetch or flag their rows; more are joined.
_BROADCAST_IDS = 4_000_000
_NONE_ID = bytes(24)


def _none_id(col):
    from pyspark.sql import functions as F

    return col.isNull() | (col == F.lit(_NONE_ID))


def _payload_hash(col):
    """The journal's ``payload_hash`` of a binary column, computed by Spark: its
    ``xxhash64`` (a signed long) as 8 bytes big-endian (``hex`` gives a negative long's
    two's complement)."""
    from pyspark.sql import functions as F

    return F.unhex(F.lpad(F.hex(F.xxhash64(col)), 16, "0"))


def _digest(hashed: bool = False):
    """A row's payload digest (see the module's doc): null without hash and payload. The
    hash is kept as bytes, so the usual row, which has one, costs no conversion; only a
    row with a payload alone has its hash computed. ``hashed``: the side has no payload
    without its hash (:func:`_facts`), so the digest is the hash and the payload
    column is not read at all (a capture's payloads are most of its bytes)."""
    from pyspark.sql import functions as F

    if hashed:
        return F.col("payload_hash")
    return F.coalesce(F.col("payload_hash"),
                      F.when(F.col("payload").isNotNull(), _payload_hash(F.col("payload"))))


def _facts(frame) -> tuple[bool, bool]:
    """Two facts about a side, from one Spark job: whether it backs out any unit of work
    (:func:`.capture.backout_rows`), and whether every payload it holds has its
    ``payload_hash`` (then :func:`_digest` need not read its payloads). Each probe stops
    at its first row, and a Parquet row group whose statistics rule it out (no
    ``backout``; hashes without a null) is skipped unread."""
    from pyspark.sql import functions as F

    from tpfemu.pipeline.capture import backout_rows

    unhashed = frame.where(F.col("payload_hash").isNull() & F.col("payload").isNotNull())
    probes = (backout_rows(frame).limit(1).select(F.lit(0).alias("probe"))
              .unionByName(unhashed.limit(1).select(F.lit(1).alias("probe"))))
    found = {r.probe for r in probes.collect()}
    return 0 in found, 1 not in found


def _fingerprint(*more, hashed: bool = False):
    """One long standing for the digest (:func:`_digest`, with ``hashed``),
    :data:`_FP_FIELDS` and the columns ``more``:
    two messages whose fingerprints are equal do not differ in them (but for a 64-bit
    hash collision), and pairs whose fingerprints differ are looked at field by field.
    Each field is hashed with its null flag, so that a null moved from one field to the
    next changes it."""
    from pyspark.sql import functions as F

    parts = []
    for col in (_digest(hashed), *[F.col(c) for c in _FP_FIELDS], *more):
        parts += [col.isNull(), col]
    return F.xxhash64(*parts)


def _based(frame, rule, backouts: bool):
    """Outbound messages of one side, each with a row id ``rid``: the position of its
    row in the scan, the same every time the side is read (see :func:`compare`). A side
    without backouts (``backouts`` False, from :func:`_facts`) is read without the
    direction rule's anti-join of backed-out units of work: every scan of it (stage 1,
    the left-overs' MsgIds, the candidates' rows) then skips a broadcast and a lookup per
    row."""
    from pyspark.sql import functions as F

    from tpfemu.pipeline.capture import OUTBOUND, messages

    return messages(frame, OUTBOUND, rule, backouts=backouts).withColumn(
        "rid", F.monotonically_increasing_id())


def _id_hash(col):
    """Stage 1's stand-in for an id (the MsgId of a pair matched by CorrelId): its 64-bit
    ``xxhash64``, null for no id (null or 24 zero bytes, alike as :func:`_ids_differ`
    has them). Differing hashes prove differing ids; equal hashes are taken as equal ids,
    with the fingerprint's odds (a collision, about 2^-64 a pair, can hide a difference
    but never invent one: a pair flagged is compared again on its real values)."""
    from pyspark.sql import functions as F

    return F.when(~_none_id(col), F.xxhash64(col))


def _narrow(base, ignore: set[str], hashed: bool = False):
    """Stage 1's rows (:data:`_CARRIED_1`): the MsgId's hash (:func:`_id_hash`) is one
    more part of the fingerprint, unless the MsgId is ignored. A pair matched by CorrelId
    then differs in its MsgIds only where its fingerprints differ, and the rows that the
    sorts of stage 1 move are 8 bytes narrower than with the hash beside the fingerprint.
    The left-overs carry that fingerprint on: a pair of stage 2 has equal MsgIds, and one
    of stage 3 whose MsgIds differ is a candidate in any case (:func:`_differs`).
    ``hashed``: the side's digests are its hashes (:func:`_digest`)."""
    from pyspark.sql import functions as F

    more = () if "msg_id" in ignore else (_id_hash(F.col("msg_id")),)
    return base.select("queue", "correl_id", _fingerprint(*more, hashed=hashed).alias("fp"),
                       F.col("event_time_us").alias("t"), "seq", "rid")


def _wide(base, prefix: str, ids):
    """The wide columns (prefixed) of the rows of ``base`` whose rid is in ``ids``."""
    from pyspark.sql import functions as F

    cols = {"digest": _digest(), "preview": F.substring("payload", 1, 32),
            "t": F.col("event_time_us")}
    rows = base.join(ids, on="rid", how="left_semi")
    return rows.select(F.col("rid").alias(f"{prefix}_rid"),
                       *[cols.get(c, F.col(c)).alias(f"{prefix}_{c}") for c in _WIDE])


def _prefixed(frame, prefix: str, key: str | None, carried=_CARRIED):
    """``queue``, the key as ``k`` (null for a null or all-zero id, which matches
    nothing), and the carried columns but the key, prefixed."""
    from pyspark.sql import functions as F

    cols = [F.col("queue")]
    if key is not None:
        cols.append(F.when(~_none_id(F.col(key)), F.col(key)).alias("k"))
    cols += [F.col(c).alias(f"{prefix}_{c}") for c in carried if c != key]
    return frame.select(*cols)


def _occurrences(frame, prefix: str):
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    # The key first: the sort's 8-byte prefix then comes from the (random) id, so nearly
    # every comparison is decided by the prefix (queue names often share their first bytes).
    # (the row id last: it orders alike messages recorded at the same time with one seq)
    w = Window.partitionBy("k", "queue").orderBy(f"{prefix}_t", f"{prefix}_seq",
                                                 f"{prefix}_rid")
    return frame.withColumn(f"{prefix}_occ", F.row_number().over(w))


def _match_on(e, a, key: str, carried=_CARRIED):
    """Full outer join of two sides on (queue, key, occurrence). The join's keys are
    (queue, key) with the occurrence as a condition, so the sort that numbers the
    occurrences is also the join's sort (no second shuffle or sort)."""
    from pyspark.sql import functions as F

    left = _occurrences(_prefixed(e, "e", key, carried), "e").alias("l")
    right = _occurrences(_prefixed(a, "a", key, carried), "a").alias("r")
    # (e_occ - a_occ) = 0, not e_occ = a_occ: Spark would make an equality a join key and
    # shuffle both sides again on (queue, key, occurrence).
    joined = left.join(right, (F.col("l.k") == F.col("r.k"))
                       & (F.col("l.queue") == F.col("r.queue"))
                       & ((F.col("l.e_occ") - F.col("r.a_occ")) == 0), "full_outer")
    both = F.col("e_t").isNotNull() & F.col("a_t").isNotNull()

    def side_cols(p, side):
        return [F.col(f"{side}.k").alias(f"{p}_{c}") if c == key else F.col(f"{p}_{c}")
                for c in carried]

    return joined.select(
        F.coalesce(F.col("l.queue"), F.col("r.queue")).alias("queue"),
        F.when(both, F.lit(key)).alias("matched_by"), *side_cols("e", "l"),
        *side_cols("a", "r"))


def _one_sided(frame, prefix: str):
    """Rows of one side in the joined layout, the other side's columns null."""
    from pyspark.sql import functions as F

    other = "a" if prefix == "e" else "e"
    types = dict(frame.dtypes)
    return _prefixed(frame, prefix, None).select(
        "queue", F.lit(None).cast("string").alias("matched_by"),
        *[F.col(f"{prefix}_{c}") if p == prefix else
          F.lit(None).cast(types[c]).alias(f"{other}_{c}")
          for p in ("e", "a") for c in _CARRIED])


def _back(frame, prefix: str, carried=_CARRIED):
    """The unmatched rows of one side of a joined frame, back in unprefixed form."""
    from pyspark.sql import functions as F

    other = "a" if prefix == "e" else "e"
    rows = frame.where(F.col(f"{prefix}_t").isNotNull() & F.col(f"{other}_t").isNull())
    return rows.select("queue", *[F.col(f"{prefix}_{c}").alias(c) for c in carried])


def _by_position(e, a):
    """Stage 3: left-over messages matched by position in their queue."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    left = _prefixed(e, "e", None).withColumn("pos", F.row_number().over(
        Window.partitionBy("queue").orderBy("e_t", "e_seq", "e_rid")))
    right = _prefixed(a, "a", None).withColumn("pos", F.row_number().over(
        Window.partitionBy("queue").orderBy("a_t", "a_seq", "a_rid")))
    joined = left.join(right, on=["queue", "pos"], how="full_outer").drop("pos")
    both = F.col("e_t").isNotNull() & F.col("a_t").isNotNull()
    return joined.select("queue", F.when(both, F.lit("sequence")).alias("matched_by"),
                         *[F.col(f"{p}_{c}") for p in "ea" for c in _CARRIED])


def _differs(ignore: set[str]):
    """Whether a pair (in the joined layout) may differ: its fingerprints differ, or an id
    not matched on does. Null for a message without a pair."""
    from pyspark.sql import functions as F

    out = F.col("e_fp") != F.col("a_fp")
    for name in ("msg_id", "correl_id"):
        if name not in ignore:
            out = out | ((F.col("matched_by") != name) & _ids_differ(name))
    return F.when(F.col("matched_by").isNotNull(), out)


def _ids_differ(name: str):
    """Whether the two sides' ``name`` (MsgId or CorrelId) differ, null and 24 zero bytes
    being the same: no id (MQMI_NONE, MQCI_NONE). (Stage 1 hands its left-overs on with
    an all-zero CorrelId as null, so only this comparison sees them alike everywhere.)"""
    from pyspark.sql import functions as F

    def some(col):
        return F.when(~_none_id(col), col)

    return ~some(F.col(f"e_{name}")).eqNullSafe(some(F.col(f"a_{name}")))


def _flags(rows, ignore: set[str]):
    """Add missing, extra, payload_changed, changed_fields and descriptor_changed."""
    from pyspark.sql import functions as F

    present_e, present_a = F.col("e_t").isNotNull(), F.col("a_t").isNotNull()
    paired = present_e & present_a
    # (a side without a digest has nothing to compare: never payload-changed)
    payload_changed = paired & F.coalesce(F.col("e_digest") != F.col("a_digest"),
                                          F.lit(False))
    changed = []
    for name in DESCRIPTOR_FIELDS:
        if name in ignore:
            continue
        differs = ~F.col(f"e_{name}").eqNullSafe(F.col(f"a_{name}"))
        if name in ("msg_id", "correl_id"):
            differs = _ids_differ(name) & (F.col("matched_by") != name)
        changed.append(F.when(paired & differs, F.lit(name)))
    fields = (F.array_compact(F.array(*changed)) if changed
              else F.array().cast("array<string>"))
    return (rows
            .withColumn("missing", present_e & ~present_a)
            .withColumn("extra", present_a & ~present_e)
            .withColumn("payload_changed", payload_changed)
            .withColumn("changed_fields", fields)
            .withColumn("descriptor_changed", F.size("changed_fields") > 0))


def _stored(spark, frame, where):
    """``frame`` written under ``where`` once, and read back (so that what uses it
    several times does not compute it again)."""
    frame.write.parquet(str(where))
    return spark.read.schema(frame.schema).parquet(str(where))


def _small(frame, rows: int):
    """``frame`` (of ``rows`` rows, counted beforehand) marked for broadcast when that is
    few enough."""
    from pyspark.sql import functions as F

    return F.broadcast(frame) if rows <= _BROADCAST_IDS else frame


def _kept(spark, frame):
    """``frame`` kept (in memory, spilling to disk if need be) once computed, for the jobs
    that read it again; returns it and a function that frees it. The first query that
    reads it computes it (every column of every row).

    On a local master it is kept as Spark's own rows (a local checkpoint, serialized):
    building the columnar copy of a cache (:meth:`DataFrame.persist`) cost more than the
    match it keeps (10M rows: about 20 s of the JVM's CPU, docs/pipeline.md). A local
    checkpoint cannot be recomputed if an executor is lost, so on a cluster the frame is
    cached as before."""
    from pyspark import StorageLevel

    if not spark.sparkContext.master.startswith("local"):
        cached = frame.persist(StorageLevel.MEMORY_AND_DISK)
        return cached, cached.unpersist
    jsc = spark.sparkContext._jsc
    before = set(jsc.getPersistentRDDs().keySet())
    kept = frame.localCheckpoint(eager=False, storageLevel=StorageLevel.MEMORY_AND_DISK)
    ours = set(jsc.getPersistentRDDs().keySet()) - before

    def release() -> None:
        rdds = jsc.getPersistentRDDs()
        for rdd_id in ours:
            rdd = rdds.get(rdd_id)
            if rdd is not None:
                rdd.unpersist(False)

    return kept, release


def _with_msg_ids(base, rows, count: int):
    """``rows`` (stage 1's left-overs of one side, unprefixed; ``count`` of them) with the
    real MsgId of each, fetched from ``base`` by row id. The fetched row's time and seq
    must be the left-over's, else the job fails (as :func:`_wide`'s read-back does)."""
    from pyspark.sql import functions as F

    ids = _small(rows.select("rid"), count)
    got = base.join(ids, on="rid", how="left_semi").select(
        "rid", "msg_id", F.col("event_time_us").alias("t_f"), F.col("seq").alias("seq_f"))
    joined = rows.join(got, on="rid", how="left")
    fetched = F.col("t").eqNullSafe(F.col("t_f")) & F.col("seq").eqNullSafe(F.col("seq_f"))
    checked = F.coalesce(F.when(~fetched, F.raise_error(F.lit(
        "compare: a side's rows were read back in a different order (was an input "
        "changed while compare ran?)")).cast("boolean")), F.lit(True))
    return joined.where(checked).select("queue", *_CARRIED)


def _pair_rows(frame, differs, stage: str | None = None):
    """Matched pairs in the layout of the reorder check: queue, ``mb`` (the index of
    ``matched_by`` in :data:`_MATCHED_BY`: ``stage``'s when given, else from the
    ``matched_by`` column), each side's :data:`_PAIR` and ``differs``."""
    from pyspark.sql import functions as F

    if stage is not None:
        mb = F.lit(_MATCHED_BY.index(stage)).cast("tinyint")
    else:
        mb = F.lit(None).cast("tinyint")
        for i, name in enumerate(_MATCHED_BY):
            mb = F.when(F.col("matched_by") == name, F.lit(i).cast("tinyint")).otherwise(mb)
    return frame.select("queue", mb.alias("mb"),
                        *[F.col(f"{p}_{c}") for p in "ea" for c in _PAIR],
                        differs.alias("differs"))


def compare(spark, expected, actual, scratch, *, rule=None, ignore: Iterable[str] = ()):
    """The differing rows (matched pairs as one row) of two journal frames, with flags
    missing, extra, payload_changed, changed_fields, descriptor_changed, reordered; and
    the per-queue totals (queue, expected, actual). Returns ``(rows, totals, release)``:
    a lazy DataFrame, a pandas frame (every outbound message is in stage 1's output once,
    as a pair or left over: counted there), and a function to call once the rows have
    been read (it frees what compare keeps in memory).

    The matching runs on narrow rows: queue, CorrelId, time, seq, a row id, a 64-bit
    fingerprint of every other compared field (the MsgId as its 64-bit hash among them). One Spark
    job matches by CorrelId and keeps its output in memory: each pair as its times, seqs,
    row ids and whether it may differ; each left-over with what stages 2 and 3 need, its
    real MsgId then fetched by row id. One job then sorts the pairs of all stages by queue
    and expected order, finds the reordered ones, and writes the candidates (pairs that
    may differ or are reordered, unmatched messages: normally few) under ``scratch``. Only
    the candidates have their whole rows read again, by row id, and compared field by
    field; the returned frame reads from there, lazily.

    A row id is the position of the row in its side's scan (Spark's
    ``monotonically_increasing_id`` over the same reading of the same files), so reading a
    side again gives every row the same id; the fetched rows are checked against the
    matched ones (time and seq), and a mismatch fails the job rather than the report.
    """
    from pyspark.sql import functions as F

    ignore = set(ignore)
    unknown = ignore - set(DESCRIPTOR_FIELDS)
    if unknown:
        raise ValueError(f"cannot ignore {sorted(unknown)}: fields are {DESCRIPTOR_FIELDS}")
    # (settings it needs are made by :func:`run`, through :func:`.session.scoped_conf`)
    (e_backouts, e_hashed), (a_backouts, a_hashed) = _facts(expected), _facts(actual)
    e_base, a_base = _based(expected, rule, e_backouts), _based(actual, rule, a_backouts)
    e, a = _narrow(e_base, ignore, e_hashed), _narrow(a_base, ignore, a_hashed)

    # Stage 1. Messages without a CorrelId take part with a null key, which matches
    # nothing: they come out of the join unmatched (one scan of each side, not two).
    stage1 = _match_on(e, a, "correl_id", _CARRIED_1)
    pair = F.col("matched_by").isNotNull()
    # (a pair is matched on its CorrelId: its MsgIds are compared by their hashes, in fp)
    differs1 = F.col("e_fp") != F.col("a_fp")
    # (kept without matched_by: a kept row is a pair exactly when it has both sides)
    kept, release = _kept(spark, stage1.select(
        "queue",
        *[F.col(f"{p}_{c}") if c in _PAIR else F.when(~pair, F.col(f"{p}_{c}")).alias(
            f"{p}_{c}") for p in "ea" for c in _LEFT_1],
        F.when(pair, differs1).alias("differs")))
    found = scratch.parent / f"{scratch.name}-ids"
    try:
        # The query that computes and keeps stage 1 writes its left-overs (few, both
        # sides, in one read of the kept rows); the next one counts the per-queue totals
        # and how many left-overs each side has (which decides how their MsgIds are
        # fetched). The later stages read the left-overs from there, not from the kept
        # rows (each read of those is a pass over every message).
        rest = _stored(spark, _leftovers(kept), found / "rest")
        paired = _paired()
        totals = kept.groupBy("queue").agg(
            F.count("e_t").alias("expected"), F.count("a_t").alias("actual"),
            F.count(F.when(~paired, F.col("e_t"))).alias("e_left"),
            F.count(F.when(~paired, F.col("a_t"))).alias("a_left")).toPandas()
        left = {p: int(totals[f"{p}_left"].sum()) for p in "ea"}
        totals = totals[["queue", "expected", "actual"]].astype(
            {"expected": "int64", "actual": "int64"})
        rows = _after_stage1(spark, (kept, rest), (e_base, a_base), left, found, ignore)
    except BaseException:
        release()
        raise
    return rows, totals, release


def _paired():
    """Whether a row of stage 1's kept output is a pair (it has both sides)."""
    from pyspark.sql import functions as F

    return F.col("e_t").isNotNull() & F.col("a_t").isNotNull()


def _leftovers(kept):
    """Stage 1's left-overs (kept rows with one side), unprefixed (:data:`_LEFT_1`), with
    ``side`` true for expected: one pass over the kept rows for both sides."""
    from pyspark.sql import functions as F

    expected = F.col("e_t").isNotNull()
    return kept.where(~_paired()).select(
        "queue", expected.alias("side"),
        *[F.when(expected, F.col(f"e_{c}")).otherwise(F.col(f"a_{c}")).alias(c)
          for c in _LEFT_1])


def _after_stage1(spark, stage1, bases, left: dict[str, int], found, ignore: set[str]):
    """What :func:`compare` does after stage 1 (``stage1``: its kept output, and its
    left-overs as :func:`_leftovers` has them; ``left[p]`` left-overs on side ``p``): the
    MsgId and sequence stages, the reorder check and the candidates (written under
    ``found``), then their whole rows, flagged. ``bases`` are the two sides' messages
    with row ids."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    kept, rest = stage1
    e_base, a_base = bases
    # (both sides' left-overs, with their MsgIds, written by one query)
    both_left = _stored(spark, _with_msg_ids(e_base, rest.where(F.col("side")).drop("side"),
                                             left["e"])
                        .withColumn("side", F.lit(True))
                        .unionByName(_with_msg_ids(a_base, rest.where(~F.col("side"))
                                                   .drop("side"), left["a"])
                                     .withColumn("side", F.lit(False))), found / "left")
    e_left = both_left.where(F.col("side")).drop("side")
    a_left = both_left.where(~F.col("side")).drop("side")
    # (as in stage 1, a message without a MsgId has a null key and comes out unmatched)
    s2 = _match_on(e_left, a_left, "msg_id")
    e_left2, a_left2 = _back(s2, "e"), _back(s2, "a")
    no_correl = _none_id(F.col("correl_id"))
    s3 = _by_position(e_left2.where(no_correl), a_left2.where(no_correl))
    both = F.col("matched_by").isNotNull()
    matched = (_pair_rows(kept.where(_paired()), F.col("differs"), "correl_id")
               .unionByName(_pair_rows(s2.where(both), _differs(ignore)))
               .unionByName(_pair_rows(s3.where(both), _differs(ignore))))
    unmatched = (s3.where(~both)
                 .unionByName(_one_sided(e_left2.where(~no_correl), "e"))
                 .unionByName(_one_sided(a_left2.where(~no_correl), "a")))

    # One pass over the pairs: reordered ones found on the narrow rows (the window is
    # partitioned by a hash of the queue name, then the name: its sort compares a long
    # before the name and the times, and a pair is only ever checked against one of its
    # own queue, even where two queues' hashes collide; scalar lags: a struct costs a
    # row each), and the candidates written at once.
    order = Window.partitionBy("qh", "queue").orderBy("e_t", "e_seq", "e_rid")
    prev_t, prev_seq = F.lag("a_t").over(order), F.lag("a_seq").over(order)
    later = (F.col("a_t") < prev_t) | ((F.col("a_t") == prev_t) & (F.col("a_seq") < prev_seq))
    # (rows in random order, as stage 1 leaves the pairs: the pre-sort spares the window's
    # sort most of its comparisons, see presort)
    checked = (presort.nearly_in_order(matched, "e_t")
               .withColumn("reordered", F.coalesce(later, F.lit(False))))
    names = F.element_at(F.array(*[F.lit(n) for n in _MATCHED_BY]),
                         F.col("mb").cast("int") + 1)
    candidates = (checked.where(F.col("differs") | F.col("reordered"))
                  .select("queue", names.alias("matched_by"), "reordered",
                          *[F.col(f"{p}_{c}").alias(f"{p}_{c}_m") for p in "ea"
                            for c in ("rid", "t", "seq")])
                  .unionByName(unmatched.select(
                      "queue", "matched_by", F.lit(False).alias("reordered"),
                      *[F.col(f"{p}_{c}").alias(f"{p}_{c}_m") for p in "ea"
                        for c in ("rid", "t", "seq")])))
    candidates = _stored(spark, candidates, found / "candidates")
    fetched_rows = candidates.agg(*[F.count(f"{p}_rid_m").alias(p) for p in "ea"]).first()

    def ids(p):
        return _small(candidates.where(F.col(f"{p}_rid_m").isNotNull())
                      .select(F.col(f"{p}_rid_m").alias("rid")), fetched_rows[p])

    e_rows, a_rows = _wide(e_base, "e", ids("e")), _wide(a_base, "a", ids("a"))
    rows = (candidates
            .join(e_rows, F.col("e_rid_m") == F.col("e_rid"), "left")
            .join(a_rows, F.col("a_rid_m") == F.col("a_rid"), "left"))
    lost = F.lit(False)
    for p in "ea":
        fetched = F.col(f"{p}_t").eqNullSafe(F.col(f"{p}_t_m")) & F.col(
            f"{p}_seq").eqNullSafe(F.col(f"{p}_seq_m"))
        lost = lost | ~fetched
    rows = rows.where(F.coalesce(F.when(lost, F.raise_error(F.lit(
        "compare: a side's rows were read back in a different order (was an input "
        "changed while compare ran?)")).cast("boolean")), F.lit(True)))
    rows = rows.select("queue", "matched_by", *[F.col(f"{p}_{c}") for p in "ea"
                                                for c in _WIDE],
                       # (not null, as before it was stored: Parquet reads nullable)
                       F.coalesce(F.col("reordered"), F.lit(False)).alias("reordered"))
    rows = _flags(rows, ignore)
    rows = rows.where(F.col("missing") | F.col("extra") | F.col("payload_changed")
                      | F.col("descriptor_changed") | F.col("reordered"))
    return rows


#: The session settings compare runs with, restored afterwards (:func:`.session.scoped_conf`).
_SETTINGS = {
    # Lets the CorrelId join use the occurrence window's partitioning (queue, key).
    "spark.sql.requireAllClusterKeysForCoPartition": "false",
    # Stage 1's kept output is read a few times and freed: encoding its columns costs
    # more than the memory it would save.
    "spark.sql.inMemoryColumnarStorage.compressed": "false",
}
#: Added on a local master: with adaptive execution each shuffle of a query is a job of
#: its own (about 50 a compare, most on the few left-over rows), each planned and its code
#: generated; its gains (fewer partitions, broadcasts decided late) are small with the
#: few shuffle partitions of a local session, and compare hints its broadcasts itself.
_LOCAL_SETTINGS = {"spark.sql.adaptive.enabled": "false"}


def _settings(spark) -> dict[str, str]:
    """The settings compare runs with on ``spark``'s master."""
    local = spark.sparkContext.master.startswith("local")
    return {**_SETTINGS, **(_LOCAL_SETTINGS if local else {})}


def _arrow_schema(frame):
    """A Spark DataFrame's schema as a pyarrow schema."""
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(frame.schema)


def _dataset(path: Path, schema, **options):
    """The Parquet files under ``path`` as a pyarrow dataset; when Spark wrote none (an
    empty result), an empty dataset of ``schema``."""
    import pyarrow as pa
    import pyarrow.dataset as ds

    if any(path.rglob("*.parquet")):
        return ds.dataset(str(path), format="parquet", **options)
    return ds.dataset(pa.Table.from_batches([], schema=schema))


def _puts_of(spark, frame) -> int:
    """How many put rows a side has, whatever their direction."""
    from pyspark.sql import functions as F

    return frame.where(F.col("event") == "put").count()


def _check_some_outbound(spark, expected, actual, totals) -> None:
    """Neither side has an outbound message, yet one has puts: every put was taken as
    inbound. Raise an :class:`~.sources.InputError` that says so and names the option
    that decides it. (Two sides without any put compare as identical.)"""
    from tpfemu.pipeline.sources import InputError

    if len(totals) and (totals["expected"].sum() or totals["actual"].sum()):
        return
    puts = _puts_of(spark, expected) + _puts_of(spark, actual)
    if puts:
        raise InputError(
            f"no outbound messages on either side: all {puts:,} puts were taken as "
            "inbound (a put made outside a TPF entry counts as inbound). Name the queues "
            "the system wrote to with --outbound-queue QUEUE (repeatable, a trailing * is "
            "a prefix), or give the rows a 'direction' column")


def _renamed_names(names: list[str]) -> list[str]:
    """e_/a_ column names as expected_/actual_ (``t`` as ``event_time_us``)."""
    out = []
    for name in names:
        for prefix, word in (("e_", "expected_"), ("a_", "actual_")):
            if name.startswith(prefix):
                rest = name[len(prefix):]
                name = word + {"t": "event_time_us"}.get(rest, rest)
                break
        out.append(name)
    return out


_KEEP = ["queue", "matched_by",
         *[f"{p}_{c}" for p in "ea" for c in _WIDE if c not in _INTERNAL],
         "changed_fields", *KINDS]


def run(spark, expected_inputs, actual_inputs, out, *, rule=None,
        ignore: Iterable[str] = ()) -> dict:
    """Compare two captures into directory ``out``; returns the summary (also written as
    ``summary.json``), whose ``identical`` says whether they match.

    Spark does the matching and writes every differing row once; the per-kind tables,
    counts and examples are then cut from that (small) result with pyarrow, streaming.
    """
    import shutil

    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.dataset as ds
    import pyarrow.parquet as pq

    from tpfemu.pipeline import report
    from tpfemu.pipeline.compare_examples import EXAMPLES, examples_of
    from tpfemu.pipeline.output import AtomicDir
    from tpfemu.pipeline.session import scoped_conf
    from tpfemu.pipeline.sources import read_journal

    started = time.perf_counter()
    ignore = tuple(ignore)
    settings = _settings(spark)
    with expected_inputs, actual_inputs, AtomicDir(out) as tmp, scoped_conf(spark, settings):
        expected = read_journal(spark, expected_inputs)
        actual = read_journal(spark, actual_inputs)
        flagged, totals, release = compare(spark, expected, actual, tmp / "_stage1",
                                           rule=rule, ignore=ignore)
        scratch = tmp / "_differences"
        try:
            flagged = flagged.select(*_KEEP)
            flagged.write.parquet(str(scratch))
        finally:
            release()
        _check_some_outbound(spark, expected, actual, totals)

        diffs = _dataset(scratch, _arrow_schema(flagged))
        names = _renamed_names(diffs.schema.names)
        examples = {}
        for kind in KINDS:
            chosen = diffs.filter(pc.field(kind))
            batches = (batch.rename_columns(names) for batch in chosen.to_batches())
            schema = pa.schema([f.with_name(n) for f, n in zip(diffs.schema, names,
                                                                 strict=True)])
            ds.write_dataset(batches, tmp / kind, format="parquet", schema=schema,
                             basename_template="part-{i}.parquet")
            if not any((tmp / kind).glob("*.parquet")):  # none of this kind: an empty table
                (tmp / kind).mkdir(exist_ok=True)
                pq.write_table(schema.empty_table(), tmp / kind / "part-0.parquet")
            examples[kind] = examples_of(
                chosen.sort_by([("queue", "ascending"), ("e_t", "ascending"),
                                ("a_t", "ascending")]).head(EXAMPLES), kind)
        flags = diffs.to_table(columns=["queue", "e_t", "a_t", *KINDS]).to_pandas()
        flags["differing_pairs"] = flags["e_t"].notna() & flags["a_t"].notna()
        counts = flags.groupby("queue", as_index=False)[[*KINDS, "differing_pairs"]].sum()
        changed = diffs.to_table(columns=["changed_fields"], filter=pc.field(
            "descriptor_changed")).column("changed_fields")
        fields = (pc.value_counts(pc.list_flatten(changed)).to_pylist()
                  if len(changed) else [])

        per_queue = totals.merge(counts, on="queue", how="left").fillna(0)
        for col in ("expected", "actual", *KINDS, "differing_pairs"):
            per_queue[col] = per_queue[col].astype("int64")
        per_queue["matched"] = per_queue["expected"] - per_queue["missing"]
        per_queue["identical_pairs"] = per_queue["matched"] - per_queue["differing_pairs"]
        per_queue = per_queue[["queue", "expected", "actual", "matched", "identical_pairs",
                               *KINDS]].sort_values("queue").reset_index(drop=True)
        (tmp / "per_queue").mkdir()
        per_queue.to_parquet(tmp / "per_queue" / "part-0.parquet", index=False)

        summed = {k: int(per_queue[k].sum()) for k in
                  ("expected", "actual", "matched", "identical_pairs", *KINDS)}
        summary = {
            "identical": sum(summed[k] for k in KINDS) == 0,
            "counts": summed,
            "descriptor_fields": {f["values"]: int(f["counts"])
                                  for f in sorted(fields, key=lambda f: f["values"])},
            "ignored_fields": list(ignore),
            "queues": len(per_queue),
            "expected_sources": _names(expected_inputs),
            "actual_sources": _names(actual_inputs),
            "warnings": [*expected_inputs.warnings, *actual_inputs.warnings],
            "seconds": 0.0,
        }
        report.compare_report(tmp, summary, per_queue, examples)
        shutil.rmtree(scratch)
        shutil.rmtree(tmp / "_stage1-ids")
        summary["seconds"] = round(time.perf_counter() - started, 3)
        (tmp / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def _names(inputs) -> list[str]:
    names = inputs.given
    return names if len(names) <= 5 else [*names[:5], f"... ({len(names)} inputs)"]
