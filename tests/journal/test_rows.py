"""tpfemu.journal.rows, the pyarrow alternative to the C encoder and hash that
bench_journal.py measures them against, writes the same rows: the comparison is fair."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tpfemu._lowlevel import CoreQueue, EventLog
from tpfemu.journal import rows
from tpfemu.journal.reader import read_table
from tpfemu.journal.schema import SEGMENT_SCHEMA

#: Differs between two recordings of the same calls by nature.
_RUN_COLUMNS = ("event_time_us", "msg_id")


def _record(log: EventLog, q: CoreQueue) -> None:
    for i in range(5):
        q.put(b"m%d" % i * 30, i, 0, log)
    for _ in range(5):
        q.get_body(0, False, log)


def _by_c(log: EventLog, path) -> list[dict]:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        os.write(fd, SEGMENT_SCHEMA.with_metadata({
            "tpfemu.journal.cpu": "B", "tpfemu.journal.qmgr": "QM",
            "tpfemu.journal.first_seq": "7"}).serialize().to_pybytes())
        log.write_ipc(fd, 7, "B", "QM", 4, lambda items, seq0: None)
        os.write(fd, b"\xff\xff\xff\xff\x00\x00\x00\x00")
    finally:
        os.close(fd)
    return read_table(path).to_pylist()


@pytest.mark.parametrize("payload", [False, True], ids=["events", "payload"])
@pytest.mark.parametrize("hashes", [True, False], ids=["C hash", "xxhash"])
def test_record_batch_writes_the_rows_the_c_encoder_writes(tmp_path, payload, hashes):
    """The same calls recorded twice: rows.record_batch (with the records' hashes, or
    xxhash's of the kept data) gives the rows write_ipc writes, column for column."""
    q = CoreQueue("W.Q")
    try:
        c_log = EventLog(lambda: None, payload=payload)
        py_log = EventLog(lambda: None, payload=payload, hashes=hashes)
        _record(c_log, q)
        _record(py_log, q)
        expected = _by_c(c_log, tmp_path / "c.arrows")
        _, records, names, _, data = py_log.take()
    finally:
        q.close()
    recs = np.frombuffer(records, dtype=rows.RECORD)
    batch = rows.record_batch(recs, names, 7, "B", "QM", data if payload else None,
                              None if hashes else rows.xxhash_hashes(recs, data))
    batch.validate(full=True)
    got = batch.to_pylist()
    assert len(got) == len(expected) == 10
    strip = [{k: v for k, v in r.items() if k not in _RUN_COLUMNS} for r in (*got, *expected)]
    assert strip[:10] == strip[10:]
    assert [r["payload_hash"] for r in got] != [bytes(8)] * 10


def test_runs_splits_recorded_from_emitted():
    """runs() gives each run of recorded (kind != 0) and emitted (kind 0) records."""
    kinds = np.array([1, 2, 0, 0, 1, 0], np.uint8)
    assert rows.runs(kinds) == [(0, 2, True), (2, 4, False), (4, 5, True), (5, 6, False)]
    assert rows.runs(np.array([], np.uint8)) == []


def test_a_log_that_does_not_hash_refuses_write_ipc(tmp_path):
    """An EventLog made with hashes=False (its records carry no hash) cannot be written by
    the C encoder."""
    log = EventLog(lambda: None, hashes=False)
    with open(tmp_path / "f", "wb") as f, pytest.raises(ValueError, match="does not hash"):
        log.write_ipc(f.fileno(), 0, "B", "QM", 8, lambda items, seq0: None)
