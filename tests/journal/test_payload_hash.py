"""The journal's payload hash: XXH64 with seed 42, 8 bytes big-endian (the C hash against
the xxhash package as an independent oracle), and version-1 journals, whose BLAKE2b
hashes are read as null."""

from __future__ import annotations

import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import xxhash

from tpfemu import journal
from tpfemu._lowlevel import payload_hashes
from tpfemu.journal.schema import SCHEMA, SCHEMA_VERSION, payload_hash, stale_hashes

#: Every boundary of XXH64's 32-byte stripes and of its 8-, 4- and 1-byte tail steps.
BOUNDARIES = (0, 1, 3, 4, 7, 8, 31, 32, 33, 63, 64, 65, 1024, 1 << 20)


def _oracle(data: bytes) -> bytes:
    return xxhash.xxh64(data, seed=42).digest()


def _split(out: bytes) -> list[bytes]:
    return [out[i:i + 8] for i in range(0, len(out), 8)]


def test_every_length_up_to_100():
    """Lengths 0-100: every tail (8-, 4-, 1-byte steps) after zero to three stripes."""
    rng = random.Random(1)
    datas = [rng.randbytes(n) for n in range(101)]
    assert _split(payload_hashes(datas)) == [_oracle(d) for d in datas]


@pytest.mark.parametrize("n", BOUNDARIES)
def test_stripe_and_tail_boundaries(n):
    rng = random.Random(n)
    for data in (bytes(n), b"\xff" * n, rng.randbytes(n)):
        assert payload_hashes([data]) == _oracle(data)


def test_random_data():
    rng = random.Random(42)
    datas = [rng.randbytes(rng.randrange(0, 5000)) for _ in range(300)]
    assert _split(payload_hashes(datas)) == [_oracle(d) for d in datas]


def test_known_values_and_the_python_function():
    """schema.payload_hash is the same hash, big-endian; the empty input's value is
    pinned, so a change of seed or byte order shows even if the oracle changed too."""
    assert payload_hash(b"") == bytes.fromhex("98b1582b0977e704") == _oracle(b"")
    for data in (b"a", b"hello journal", bytes(range(256)) * 4):
        assert payload_hash(data) == _oracle(data)
    assert SCHEMA_VERSION == 4  # (3 added columns, 4 the segment layout; the hash is 2's)


# -- version-1 journals: their BLAKE2b hashes are read as null -----------------------------


def _rows(n: int = 3) -> pa.Table:
    rows = [{name: None for name in SCHEMA.names} | {
        "event_time_us": 1_700_000_000_000_000 + i, "seq": i, "cpu": "B", "qmgr": "OLDQM",
        "queue": "Q", "event": "put", "msg_id": bytes([i]) * 24, "length": 3,
        "payload_hash": b"\x11" * 8, "payload": b"old"} for i in range(n)]
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def _segment(path, version: str | None) -> None:
    table = _rows()
    meta = {} if version is None else {"tpfemu.journal.version": version}
    schema = SCHEMA.with_metadata(meta) if meta else SCHEMA.remove_metadata()
    with pa.OSFile(str(path), "wb") as f, pa.ipc.new_stream(f, schema) as w:
        w.write_table(table.cast(schema))


def test_a_version_1_segment_reads_with_null_hashes(tmp_path):
    """A segment of schema version 1 (BLAKE2b hashes) is read with payload_hash null, by
    every reader and in the Parquet export (which is then a current-version file); the
    other columns, the payload among them, are read as written."""
    old = tmp_path / "old" / "B-00000001.arrows"
    old.parent.mkdir()
    _segment(old, "1")
    assert stale_hashes(pa.ipc.open_stream(pa.memory_map(str(old))).schema)
    table = journal.read_table(old)
    assert table.num_rows == 3 and table.column("payload_hash").null_count == 3
    assert table.column("payload").to_pylist() == [b"old"] * 3
    assert [e.payload_hash for e in journal.read_events(old)] == [None] * 3
    (exported,) = journal.to_parquet([old.parent], tmp_path / "out")
    written = pq.read_table(exported)
    assert written.column("payload_hash").null_count == 3
    assert written.schema.metadata[b"tpfemu.journal.version"] == str(SCHEMA_VERSION).encode()


@pytest.mark.parametrize("version", ["2", None])
def test_current_and_unversioned_segments_keep_their_hashes(tmp_path, version):
    """Version 2, and a segment without the version (taken as current), keep payload_hash."""
    path = tmp_path / "B-00000001.arrows"
    _segment(path, version)
    assert journal.read_table(path).column("payload_hash").to_pylist() == [b"\x11" * 8] * 3
