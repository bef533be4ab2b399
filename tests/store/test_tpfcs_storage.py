"""Space in the TPFCS-like store: map growth, the ceiling, StorageFull, nothing lost."""

from __future__ import annotations

import pytest

import tpfemu.store.tpfcs.ops as tpfcs_ops
import tpfemu.store.tpfcs.store as tpfcs_store
from tpfemu.errors import MQMIError, StorageFull, TpfcsError
from tpfemu.mq.cmqc import MQRC_STORAGE_MEDIUM_FULL
from tpfemu.store.tpfcs import Tpfcs

KiB, MiB = 1024, 1024 * 1024
BLOB = bytes(range(256)) * 40  # 10 KiB


def fill(store: Tpfcs, pid, limit: int = 10_000) -> int:
    """Add BLOBs until StorageFull; return how many were committed."""
    for n in range(limit):
        try:
            store.at_new_key_put(pid, n.to_bytes(4, "big"), BLOB)
        except StorageFull:
            return n
    raise AssertionError("the store never filled")


def test_the_map_grows_on_demand(tmp_path):
    """Writing past the first map doubles it as needed, and every element stays readable."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=64 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_keyed_bag("MQS")
        first = s.map_size
        for n in range(200):  # ~2 MiB
            s.at_new_key_put(pid, n.to_bytes(4, "big"), BLOB)
        assert s.map_size > first and s.map_size <= s.max_size
        assert s.count(pid) == 200
        assert all(e.data == BLOB for e in s.cursor(pid))


def test_full_map_at_the_ceiling_is_storage_full_and_nothing_is_lost(tmp_path):
    """At the ceiling a put raises StorageFull (MQRC 2192) naming the data store; the
    elements committed before stay intact and the failed one is absent."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=1 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_keyed_bag("MQS")
        committed = fill(s, pid)
        assert committed > 10
        with pytest.raises(MQMIError) as excinfo:
            s.at_new_key_put(pid, b"\xff\xff\xff\xff", BLOB)
        error = excinfo.value
        assert isinstance(error, StorageFull)
        assert error.reason == MQRC_STORAGE_MEDIUM_FULL and error.obj == "MQS"
        assert error.call == "TO2_atNewKeyPut" and "MQRC_STORAGE_MEDIUM_FULL" in str(error)
        assert s.map_size == 1 * MiB
        assert s.count(pid) == committed
        assert [e.key for e in s.cursor(pid)] == [n.to_bytes(4, "big") for n in range(committed)]
        assert all(e.data == BLOB for e in s.cursor(pid))
        assert s.take_first(pid).data == BLOB  # reads and removals still work
    with Tpfcs.open(tmp_path, durable=False, max_size=8 * MiB) as s:  # a higher ceiling
        assert s.count(pid) == committed - 1
        s.at_new_key_put(pid, b"\xff\xff\xff\xff", BLOB)
        assert s.count(pid) == committed


def test_a_transaction_that_outgrows_the_map_is_retried_by_transact(tmp_path):
    """A transaction hitting a full map below the ceiling raises TO2_ERROR_RETRY, is rolled
    back whole, and transact() runs it again after growth."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=64 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        with pytest.raises(TpfcsError, match="TO2_ERROR_RETRY"):
            with s.transaction() as t:
                for _ in range(100):
                    t.add(pid, BLOB)
        assert s.count(pid) == 0
        runs = []

        def unit_of_work(t) -> int:
            runs.append(1)
            for _ in range(300):
                t.add(pid, BLOB)
            return t.count(pid)

        assert s.transact(unit_of_work) == 300
        assert len(runs) >= 2 and s.count(pid) == 300


def test_a_transaction_at_the_ceiling_is_storage_full(tmp_path):
    """A transaction that cannot fit below the ceiling raises StorageFull and commits nothing."""
    with Tpfcs.open(tmp_path, durable=False, map_size=1 * MiB, max_size=1 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        s.add(pid, b"kept")
        with pytest.raises(StorageFull):
            s.transact(lambda t: [t.add(pid, BLOB) for _ in range(200)])
        assert [e.data for e in s.cursor(pid)] == [b"kept"]


def test_a_full_disk_is_storage_full(tmp_path, monkeypatch):
    """LMDB's ENOSPC (DiskError) becomes StorageFull on the call, and nothing is written."""
    with Tpfcs.open(tmp_path, durable=False) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        real_add = tpfcs_ops.Ops.add

        def add_then_disk_full(self, p, data):
            real_add(self, p, data)
            raise tpfcs_store.lmdb.DiskError("No space left on device")
        monkeypatch.setattr(tpfcs_ops.Ops, "add", add_then_disk_full)
        with pytest.raises(StorageFull) as excinfo:
            s.add(pid, b"x")
        assert excinfo.value.obj == "MQS"
        monkeypatch.undo()
        assert s.count(pid) == 0


def test_other_lmdb_errors_become_tpfcs_errors(tmp_path, monkeypatch):
    """Any other LMDB failure is a TpfcsError TO2_ERROR_DB naming the LMDB error."""
    with Tpfcs.open(tmp_path, durable=False) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")

        def corrupted(self, p):
            raise tpfcs_store.lmdb.CorruptedError("page checksum")
        monkeypatch.setattr(tpfcs_ops.Ops, "count", corrupted)
        with pytest.raises(TpfcsError, match="TO2_ERROR_DB.*CorruptedError"):
            s.count(pid)


def test_growth_waits_for_no_snapshot_in_its_own_thread(tmp_path):
    """A thread holding a snapshot cursor cannot grow the map: its write says TO2_ERROR_RETRY."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=64 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        with s.cursor(pid, snapshot=True):
            with pytest.raises(TpfcsError, match="TO2_ERROR_RETRY"):
                for _ in range(100):
                    s.add(pid, BLOB)
        for _ in range(100):
            s.add(pid, BLOB)  # with the snapshot closed, the map grows


def test_nested_transact_leaves_the_retry_to_the_outermost(tmp_path):
    """transact() inside a transaction runs once; a growth retry reruns the outermost work."""
    with Tpfcs.open(tmp_path, durable=False, map_size=256 * KiB, max_size=64 * MiB) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        outer_runs = []

        def outer(t) -> int:
            outer_runs.append(1)
            t.add(pid, b"outer")
            return len(s.transact(lambda inner: [inner.add(pid, BLOB) for _ in range(200)]))

        assert s.transact(outer) == 200
        assert len(outer_runs) >= 2 and s.count(pid) == 201


def test_a_full_reader_table_is_a_clear_error(tmp_path):
    """When every reader slot is held by a live reader, a read is TO2_ERROR_DB, not a hang."""
    with Tpfcs.open(tmp_path, durable=False, max_readers=2) as s:
        s.create_data_store("MQS")
        pid = s.create_sequence("MQS")
        with s.cursor(pid, snapshot=True), s.cursor(pid, snapshot=True):
            with pytest.raises(TpfcsError, match="TO2_ERROR_DB.*max_readers"):
                s.count(pid)
            with pytest.raises(TpfcsError, match="TO2_ERROR_DB"):
                s.cursor(pid, snapshot=True)
        assert s.count(pid) == 0
