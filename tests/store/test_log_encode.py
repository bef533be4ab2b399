"""The recovery log's records encoded in C (``log_encode``, native/python/logencode.c):
byte for byte the layout tpfemu/store/log_records.py states, and bad records refused."""

from __future__ import annotations

import pytest
from store_helpers import cid, mid

from tpfemu.store import Backout, Commit, Get, Put, RecoveryLog
from tpfemu.store.log_records import (
    BACKOUT,
    COMMIT,
    GET,
    PUT,
    PUT_HEAD,
    REC,
    encode_records,
)

QIDS = {"APP.Q": 3, "OTHER.Q": 9}


def _refuse(name: str) -> int:
    raise AssertionError(f"qid_of called for a known queue {name!r}")


def test_each_kind_is_encoded_as_the_python_layout_states():
    """Put, Get, Commit and Backout come out as PUT_HEAD + data and REC, in order, with
    every field where the struct formats put it, and the notes name the units of work."""
    put = Put("APP.Q", b"ctx!body", mid(1), cid(2), priority=7, expiry=-5,
              put_time=1_700_000_000_000_000, ctx_len=4, backout_count=3, uow=11)
    records = [put, Get("OTHER.Q", 42, uow=12, backout_count=2), Commit(11), Backout(12)]
    data, uows, commits, closing = encode_records(records, QIDS, _refuse)
    want = b"".join([
        PUT_HEAD.pack(PUT, 3, 0, 11, 0, 0, mid(1), cid(2), 7, -5, 1_700_000_000_000_000, 4,
                      3, 8) + b"ctx!body",
        REC.pack(GET, 9, 2, 12, 42), REC.pack(COMMIT, 0, 0, 11, 0),
        REC.pack(BACKOUT, 0, 0, 12, 0),
    ])
    assert data == want
    assert uows == {11, 12}
    assert commits == [(PUT_HEAD.size + 8 + REC.size, 11)]
    assert closing == [11, 12]


def test_records_outside_syncpoint_name_no_unit_of_work():
    """A Put with uow 0 and a memoryview as data is encoded whole; nothing is noted."""
    data, uows, commits, closing = encode_records(
        [Put("APP.Q", memoryview(b"abc"), mid(1))], QIDS, _refuse)
    assert data[PUT_HEAD.size:] == b"abc" and len(data) == PUT_HEAD.size + 3
    assert (uows, commits, closing) == (None, None, None)


def test_a_new_queue_gets_its_id_from_qid_of():
    """A queue not in qids is named by qid_of, whose id goes into the record."""
    asked = []

    def qid_of(name: str) -> int:
        asked.append(name)
        return 77

    data, *_ = encode_records([Get("NEW.Q", 5)], QIDS, qid_of)
    assert asked == ["NEW.Q"] and REC.unpack(data)[1] == 77


@pytest.mark.parametrize(("record", "error"), [
    (Put("APP.Q", b"x", b"short"), ValueError),
    (Put("APP.Q", b"x", mid(1), priority=256), ValueError),
    (Put("APP.Q", b"x", mid(1), priority="9"), TypeError),  # type: ignore[arg-type]
    (Put("APP.Q", b"x", mid(1), ctx_len=2), ValueError),
    (Put("APP.Q", "text", mid(1)), TypeError),  # type: ignore[arg-type]
    (Get("APP.Q", -1), ValueError),
    (Commit(1 << 64), ValueError),
    (("APP.Q", 1), TypeError),
], ids=["short-id", "priority", "priority-type", "ctx-len", "str-data", "key", "uow", "tuple"])
def test_bad_records_are_refused_naming_what_is_wrong(record, error):
    """A record that does not fit its layout raises, and nothing is encoded."""
    with pytest.raises(error):
        encode_records([Commit(1), record], QIDS, _refuse)


def test_a_doomed_commit_after_other_records_is_written_as_a_backout(home):
    """When a unit of work lost a record to a full batch, its later Commit, appended
    behind a Put in the same call, is written as a Backout in place; the Put before it
    is intact."""
    from tpfemu import errors

    with RecoveryLog(home, map_size=64 * 1024, max_map_size=256 * 1024) as log:
        big = log.append([Put("Q", bytes(512 * 1024), mid(2), uow=7)])
        with pytest.raises(errors.StorageFull):
            big.wait(10)
        with pytest.raises(errors.StorageFull):
            log.commit([Put("Q", b"late", mid(3), uow=7), Commit(7)])
        records = [(r.kind, r.uow, r.message and bytes(r.message.data))
                   for r in log.replay()]
    assert records[-2:] == [(PUT, 7, b"late"), (BACKOUT, 7, None)]
