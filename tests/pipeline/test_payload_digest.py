"""The payload hash on Spark: the journal's payload_hash (XXH64, seed 42) is Spark's
xxhash64(payload), so compare pairs a side with hashes only and a side with payloads
only; a version-1 journal's (BLAKE2b) hashes are read as null."""

from __future__ import annotations

import os

import pyarrow.parquet as pq
import pytest
from journaldata import T0, ident, row, table, write

from tpfemu.journal.schema import SCHEMA, payload_hash
from tpfemu.pipeline import compare
from tpfemu.pipeline.session import scoped_conf
from tpfemu.pipeline.sources import Inputs, read_journal

pytestmark = pytest.mark.spark

#: A payload whose hash starts with a zero byte (its long's hex has fewer than 16 digits).
_SMALL = next(d for d in (b"%d" % i for i in range(100_000)) if payload_hash(d)[0] == 0)
PAYLOADS = [b"", b"x", b"hello journal", bytes(range(256)) * 4, os.urandom(1024), _SMALL]


def test_spark_xxhash64_is_the_payload_hash(spark):
    """Spark's built-in xxhash64(payload) is payload_hash read as a signed big-endian long."""
    frame = spark.createDataFrame([(d,) for d in PAYLOADS], "payload binary")
    got = [r[0] for r in frame.selectExpr("xxhash64(payload)").collect()]
    assert got == [int.from_bytes(payload_hash(d), "big", signed=True) for d in PAYLOADS]


def test_the_digest_of_a_hash_equals_the_digest_of_its_payload(spark):
    """compare's row digest: payload_hash when present, else xxhash64(payload) as its 8
    bytes big-endian; the two are the same for the same data (and none without either)."""
    rows = [(payload_hash(d), None) for d in PAYLOADS] + [(None, d) for d in PAYLOADS]
    frame = spark.createDataFrame(rows + [(None, None)], "payload_hash binary, payload binary")
    digests = [r[0] for r in frame.select(compare._digest()).collect()]
    n = len(PAYLOADS)
    assert digests[:n] == digests[n:2 * n] == [payload_hash(d) for d in PAYLOADS]
    assert digests[-1] is None


def _puts(datas: list[bytes], *, hashes: bool, payloads: bool) -> list[dict]:
    """Outbound puts (made in an entry) of ``datas``, keeping only hashes or payloads."""
    out = []
    for i, data in enumerate(datas):
        r = row("put", "OUT.Q", T0 + i, ecb=1, program="APP1", data=data,
                correl_id=ident(f"c{i}"), msg_id=ident(f"m{i}"))
        if not hashes:
            r["payload_hash"] = None
        if not payloads:
            r["payload"] = None
        out.append(r)
    return out


@pytest.mark.parametrize("expected_has", ["hashes", "payloads"])
def test_hashes_only_against_payloads_only(spark, tmp_path, expected_has):
    """One side with payload_hash only, the other with payloads only: equal data are
    equal pairs, a changed byte is payload-changed."""
    datas = [b"reply %d " % i + bytes(1000) for i in range(4)]
    changed = list(datas)
    changed[2] = changed[2][:-1] + b"\x01"
    by_hash = expected_has == "hashes"
    write(_puts(datas, hashes=by_hash, payloads=not by_hash), tmp_path / "e" / "e.parquet")
    for name, actual in (("same", datas), ("changed", changed)):
        write(_puts(actual, hashes=not by_hash, payloads=by_hash),
              tmp_path / name / "a.parquet")
        summary = compare.run(spark, Inputs([tmp_path / "e"]), Inputs([tmp_path / name]),
                              tmp_path / f"out-{name}")
        counts = summary["counts"]
        assert counts["matched"] == 4 and counts["descriptor_changed"] == 0
        assert counts["payload_changed"] == (0 if name == "same" else 1), name
    pairs = pq.read_table(tmp_path / "out-changed" / "payload_changed").to_pylist()
    assert [p["expected_correl_id"] for p in pairs] == [ident("c2")]


def _version_1(rows: list[dict], path) -> None:
    """Rows written as a version-1 journal's Parquet (its hashes made up: BLAKE2b's)."""
    for r in rows:
        if r["payload_hash"] is not None:
            r["payload_hash"] = b"\xb2" * 8
    old = table(rows).replace_schema_metadata({"tpfemu.journal.version": "1"})
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(old, path)


def test_a_version_1_source_has_null_hashes(spark, tmp_path):
    """A version-1 Parquet input is read with payload_hash null (its other columns as
    they are), beside a current one read as it is; compare then falls back to the
    payloads, and a version-1 side without payloads is not compared on payload."""
    datas = [b"same %d" % i for i in range(3)]
    _version_1(_puts(datas, hashes=True, payloads=True), tmp_path / "old" / "j.parquet")
    write(_puts(datas, hashes=True, payloads=False), tmp_path / "new" / "j.parquet")
    inputs = Inputs([tmp_path / "old", tmp_path / "new"])
    assert inputs.stale == {str(tmp_path / "old" / "j.parquet")}
    with inputs:
        frame = read_journal(spark, inputs).orderBy("payload").collect()
    assert [(r.payload, r.payload_hash) for r in frame] == [
        (None, payload_hash(d)) for d in datas] + [(d, None) for d in datas]
    assert frame[-1].length == len(datas[-1]) and set(frame[0].asDict()) >= set(SCHEMA.names)

    summary = compare.run(spark, Inputs([tmp_path / "old"]), Inputs([tmp_path / "new"]),
                          tmp_path / "out")
    assert summary["identical"] is True and summary["counts"]["matched"] == 3
    _version_1(_puts(datas, hashes=True, payloads=False), tmp_path / "old-events" / "j.parquet")
    summary = compare.run(spark, Inputs([tmp_path / "old-events"]),
                          Inputs([tmp_path / "new"]), tmp_path / "out2")
    assert summary["counts"]["matched"] == 3 and summary["counts"]["payload_changed"] == 0


def test_a_hashed_side_is_matched_without_reading_its_payloads(spark, tmp_path):
    """A side whose every payload has its hash is matched on the hashes alone: the
    CorrelId stage's scan does not read the payload column (a capture's payloads are most
    of its bytes). One payload without its hash makes the side read them all, and that
    payload is still compared: a changed one is payload-changed."""
    datas = [b"reply %d " % i + bytes(1000) for i in range(4)]
    write(_puts(datas, hashes=True, payloads=True), tmp_path / "e" / "e.parquet")
    mixed = _puts(datas[:3] + [datas[3][:-1] + b"\x01"], hashes=True, payloads=True)
    mixed[3]["payload_hash"] = None  # the changed payload, without its hash
    write(mixed, tmp_path / "a" / "a.parquet")

    def reads_payload(path) -> bool:
        inputs = Inputs([path])
        # (the plan's ReadSchema whole, not cut at Spark's 100 characters)
        with inputs, scoped_conf(spark, {"spark.sql.maxMetadataStringLength": "10000"}):
            frame = read_journal(spark, inputs)
            backouts, hashed = compare._facts(frame)
            side = compare._narrow(compare._based(frame, None, backouts), set(), hashed)
            scans = [line for line in side._jdf.queryExecution().executedPlan().toString()
                     .splitlines() if "ReadSchema" in line]
        assert scans
        return any("payload:" in line for line in scans)

    assert reads_payload(tmp_path / "e") is False
    assert reads_payload(tmp_path / "a") is True
    summary = compare.run(spark, Inputs([tmp_path / "e"]), Inputs([tmp_path / "a"]),
                          tmp_path / "out")
    assert summary["counts"]["matched"] == 4 and summary["counts"]["payload_changed"] == 1
