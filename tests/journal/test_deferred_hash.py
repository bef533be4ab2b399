"""At level events a put's payload hash is left to the journal's writer: the EventLog
holds the put's data (a bytes object, no copy) and hashes it when the records are
written or taken; a get of that message names the put's record and takes its hash then.
These tests check every record's hash against the xxhash package (an independent
oracle) across those cases, and that the held data is let go."""

from __future__ import annotations

import gc
import os
import sys

import numpy as np
import pyarrow as pa
import xxhash

import tpfemu.journal.writer  # noqa: F401  (the context layout and the ECB slots)
from tpfemu._lowlevel import CoreQueue, EventLog
from tpfemu.journal.rows import RECORD

#: How many records back a get may name its put (TPF_JOURNAL_PUT_RING in tpf/journal.h).
PUT_RING = 1 << 16


def _oracle(data: bytes) -> bytes:
    return xxhash.xxh64(data, seed=42).digest()


def _taken(log: EventLog) -> np.ndarray:
    _, records, _, _, _ = log.take()
    return np.frombuffer(records, dtype=RECORD)


def _hashes(recs: np.ndarray) -> list[bytes]:
    return [bytes(h) for h in recs["hash"]]


def _ignore(items, seq0):
    raise AssertionError("no event is emitted in Python here")


def test_puts_and_gets_in_one_cycle_carry_their_datas_hash():
    """Distinct payloads, a run of puts of one object and the gets of them: every
    record's hash is its data's, whether the writer hashed it once for the run or once
    each."""
    log = EventLog(lambda: None)
    q = CoreQueue("DEFER.Q")
    same = b"the same object" * 10
    datas = [os.urandom(n) for n in (0, 1, 31, 32, 1024, 5000)] + [same] * 5 + [b"x" * 64]
    for d in datas:
        q.put(d, 0, 0, log)
    got = [q.get_body(0, False, log) for _ in datas]
    assert got == datas
    recs = _taken(log)
    assert list(recs["kind"]) == [1] * len(datas) + [2] * len(datas)
    assert _hashes(recs) == [_oracle(d) for d in datas + datas]
    q.close()


def test_a_get_in_a_later_cycle_takes_its_puts_hash(tmp_path):
    """Puts written in one cycle (write_ipc), their gets recorded in the next: each get's
    hash is the put's, resolved from the writer's ring, and the Arrow rows say so."""
    log = EventLog(lambda: None)
    q = CoreQueue("LATER.Q")
    datas = [os.urandom(100 + i) for i in range(50)]
    for d in datas:
        q.put(d, 0, 0, log)
    path = tmp_path / "s.arrows"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        assert log.write_ipc(fd, 0, "B", "QM", 8192, _ignore)[0] == len(datas)
        for _ in datas:
            q.get_body(0, False, log)
        assert log.write_ipc(fd, len(datas), "B", "QM", 8192, _ignore)[0] == len(datas)
    finally:
        os.close(fd)
    from tpfemu.journal.schema import SEGMENT_SCHEMA

    with pa.OSFile(str(path)) as f:
        body = pa.BufferOutputStream()
        body.write(SEGMENT_SCHEMA.serialize())
        body.write(f.read())
        body.write(b"\xff\xff\xff\xff\x00\x00\x00\x00")
    table = pa.ipc.open_stream(body.getvalue()).read_all()
    assert table.column("event").to_pylist() == ["put"] * 50 + ["get"] * 50
    assert table.column("payload_hash").to_pylist() == [_oracle(d) for d in datas * 2]
    q.close()


def test_a_get_further_back_than_the_ring_is_hashed_as_it_is_recorded():
    """A get whose put is more than PUT_RING records back (a deep queue) hashes its own
    data; the gets nearer their puts take the puts' hashes: all are right."""
    log = EventLog(lambda: None)
    q = CoreQueue("DEEP.Q")
    n = PUT_RING + 100
    for i in range(n):
        q.put(i.to_bytes(4, "big"), 0, 0, log)
    for _ in range(n):
        q.get_body(0, False, log)
    recs = _taken(log)
    want = [_oracle(i.to_bytes(4, "big")) for i in range(n)]
    assert _hashes(recs) == want + want
    q.close()


def test_the_held_data_is_let_go_by_take_write_ipc_and_the_log_going(tmp_path):
    """The log holds a reference to each put's data only until its hash is made: after
    take(), after write_ipc(), and when the log itself goes, the data's reference count
    is what it was."""
    data = b"held" * 300
    before = sys.getrefcount(data)
    q = CoreQueue("HELD.Q")
    log = EventLog(lambda: None)
    for _ in range(10):
        q.put(data, 0, 0, log)
    assert sys.getrefcount(data) > before  # held by the log
    log.take()
    assert sys.getrefcount(data) == before
    fd = os.open(tmp_path / "s.arrows", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for _ in range(10):
            q.put(data, 0, 0, log)
        log.write_ipc(fd, 0, "B", "QM", 8192, _ignore)
    finally:
        os.close(fd)
    assert sys.getrefcount(data) == before
    for _ in range(10):
        q.put(data, 0, 0, log)
    del log
    gc.collect()
    assert sys.getrefcount(data) == before
    q.close()


def test_at_level_payload_the_put_is_hashed_as_it_is_recorded():
    """A log that keeps the data (level payload) hashes each put from its copy, holds no
    reference, and its hashes are right too."""
    data = b"copied" * 100
    before = sys.getrefcount(data)
    log = EventLog(lambda: None, payload=True)
    q = CoreQueue("COPY.Q")
    q.put(data, 0, 0, log)
    assert sys.getrefcount(data) == before
    q.get_body(0, False, log)
    assert _hashes(_taken(log)) == [_oracle(data)] * 2
    q.close()


def test_mqi_puts_with_changing_texts_across_cycles(start_system):
    """MQI puts with an MD whose Format and ReplyToQ change from put to put, and across
    write cycles (the names table restarts each cycle): each event holds its own texts,
    read as Latin-1 (a byte above 127 in the Format too; a Format padded with NULs where
    the one before had blanks is the same text), and its data's hash."""
    import tpfemu.mqi as pymqi
    from tpfemu import journal
    from tpfemu.mqi import CMQC

    system = start_system(queues=("TXT.Q",))
    qm = pymqi.connect(system.name)
    q = pymqi.Queue(qm, "TXT.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    formats = [b"MQSTR   ", b"MQSTR   ", b"\xe9TEXT   ", b"        ", b"MQSTR   ",
               b"MQSTR\0\0\0", b"        "]
    replies = ["R.ONE", "R.ONE", "R.TWO", "", "R.ONE", "R.ONE", "R.ONE"]
    datas = [os.urandom(64 + i) for i in range(len(formats))]
    for i, (fmt, reply, data) in enumerate(zip(formats, replies, datas, strict=True)):
        q.put(data, pymqi.MD(Format=fmt, ReplyToQ=reply.encode()))
        assert q.get(None, pymqi.MD()) == data
        if i % 2:
            assert system.journal.flush()  # a new cycle, a new table of names
    assert system.journal.flush()
    events = [e for e in journal.read_events(system.home, queue="TXT.Q")
              if e.event in ("put", "get")]
    assert [e.event for e in events] == ["put", "get"] * len(formats)
    want_formats = [f.decode("latin-1").rstrip(" \0") or None for f in formats]
    assert [e.format for e in events] == [f for f in want_formats for _ in "pg"]
    assert [e.reply_to_q for e in events] == [r or None for r in replies for _ in "pg"]
    assert [e.payload_hash for e in events] == [_oracle(d) for d in datas for _ in "pg"]
    q.close()
    qm.disconnect()
