"""LmdbEnv: map growth and its ceiling, other processes' resizes, stale readers, errors."""

from __future__ import annotations

import errno
import subprocess
import sys

import lmdb
import pytest
from store_helpers import ROOT

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.store.lmdbenv import LmdbEnv, translate

KiB = 1024


def _fill(env: LmdbEnv, count: int, start: int = 0, size: int = 1000) -> None:
    for i in range(start, start + count):
        env.write(lambda txn, i=i: txn.put(i.to_bytes(8, "big"), b"v" * size, db=env.db(b"a")))


def _keys(env: LmdbEnv) -> list[int]:
    with env.read() as txn:
        keys = txn.cursor(db=env.db(b"a")).iternext(values=False)
        return [int.from_bytes(k, "big") for k in keys]


def _child(code: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )


def test_map_grows_by_doubling_up_to_the_ceiling(tmp_path):
    """A write that does not fit doubles the map and is retried: nothing is lost."""
    with LmdbEnv(tmp_path / "e", map_size=64 * KiB, max_map_size=1024 * KiB, dbs=(b"a",)) as env:
        _fill(env, 300)
        assert env.growths >= 2
        assert env.map_size in (256 * KiB, 512 * KiB, 1024 * KiB)
        assert _keys(env) == list(range(300))


def test_full_map_at_the_ceiling_is_storage_full_and_committed_data_intact(tmp_path):
    """At the ceiling a write raises StorageFull (2192), and every earlier write is intact."""
    with LmdbEnv(tmp_path / "e", map_size=64 * KiB, max_map_size=256 * KiB, dbs=(b"a",)) as env:
        written = 0
        with pytest.raises(errors.StorageFull) as info:
            while True:
                _fill(env, 1, written)
                written += 1
        assert info.value.reason == cmqc.MQRC_STORAGE_MEDIUM_FULL
        assert isinstance(info.value.__cause__, lmdb.MapFullError)
        assert env.map_size == 256 * KiB
        assert _keys(env) == list(range(written))

        def delete_half(txn) -> None:
            cur = txn.cursor(db=env.db(b"a"))
            cur.first()
            for _ in range(written // 2):
                cur.delete()

        env.write(delete_half, reclaim=True)  # even a delete needs pages: the reserve
        assert env.map_size == 256 * KiB
        _fill(env, 10, written)  # room again in the freed pages
    with LmdbEnv(tmp_path / "e", dbs=(b"a",)) as env:
        assert _keys(env) == list(range(written // 2, written + 10))


def test_a_map_grown_by_another_process_is_adopted(tmp_path):
    """After another process grew the map, reads and writes here go on (MapResized)."""
    path = tmp_path / "e"
    with LmdbEnv(path, map_size=64 * KiB, max_map_size=4096 * KiB, dbs=(b"a",)) as env:
        _fill(env, 10)
        code = (
            "import sys; from tpfemu.store.lmdbenv import LmdbEnv\n"
            "env = LmdbEnv(sys.argv[1], map_size=64 * 1024, max_map_size=4 << 20, dbs=(b'a',))\n"
            "for i in range(10, 1500):\n"
            "    env.write(lambda t, i=i: t.put(i.to_bytes(8, 'big'), b'v' * 1000,"
            " db=env.db(b'a')))\n"
            "print(env.map_size)\n"
        )
        child = _child(code, str(path))
        grown = int(child.communicate(timeout=30)[0])
        assert child.returncode == 0 and grown > 64 * KiB
        assert _keys(env) == list(range(1500))
        _fill(env, 10, 1500)
        assert env.map_size >= grown
        assert _keys(env)[-1] == 1509


def test_stale_readers_of_a_killed_process_are_cleared_at_open(tmp_path):
    """Opening an environment frees the reader slots of a process killed mid-read."""
    path = tmp_path / "e"
    with LmdbEnv(path, dbs=(b"a",)):  # held open here, so LMDB keeps its reader table
        reader = _child(
            "import sys, time; from tpfemu.store.lmdbenv import LmdbEnv\n"
            "env = LmdbEnv(sys.argv[1], dbs=(b'a',))\n"
            "with env.read():\n"
            "    print('reading', flush=True); time.sleep(60)\n",
            str(path),
        )
        assert reader.stdout.readline().strip() == "reading"
        reader.kill()
        reader.wait()
        opener = _child(
            "import sys; from tpfemu.store.lmdbenv import LmdbEnv\n"
            "print(LmdbEnv(sys.argv[1], dbs=(b'a',)).stale_readers_cleared)\n",
            str(path),
        )
        assert int(opener.communicate(timeout=30)[0]) >= 1


def test_a_full_reader_table_is_freed_of_dead_readers(tmp_path):
    """With every reader slot held by a dead process, a read clears them and succeeds."""
    path = tmp_path / "e"
    with LmdbEnv(path, max_readers=1, dbs=(b"a",)) as env:
        _fill(env, 3)  # writes take no reader slot
        code = (
            "import sys, time; from tpfemu.store.lmdbenv import LmdbEnv\n"
            "env = LmdbEnv(sys.argv[1], max_readers=1, dbs=(b'a',))\n"
            "with env.read():\n"
            "    print('reading', flush=True); time.sleep(60)\n"
        )
        child = _child(code, str(path))
        assert child.stdout.readline().strip() == "reading"
        child.kill()
        child.wait()
        assert _keys(env) == [0, 1, 2]
        assert env.stale_readers_cleared >= 1


def _lmdb_error(cls: type[lmdb.Error], code: int = 0) -> lmdb.Error:
    exc = cls("mdb_txn_commit")
    if code:
        exc.code = code
    return exc


@pytest.mark.parametrize(
    ("exc", "expected"),
    [
        (_lmdb_error(lmdb.MapFullError), errors.StorageFull),
        (_lmdb_error(lmdb.DiskError), errors.StorageFull),
        (_lmdb_error(lmdb.Error, errno.ENOSPC), errors.StorageFull),
        (_lmdb_error(lmdb.Error, errno.EFBIG), errors.StorageFull),
        (_lmdb_error(lmdb.ReadersFullError), errors.ResourceProblem),
        (_lmdb_error(lmdb.TxnFullError), errors.ResourceProblem),
        (_lmdb_error(lmdb.CorruptedError), errors.ObjectDamaged),
        (_lmdb_error(lmdb.InvalidError), errors.ObjectDamaged),
        (_lmdb_error(lmdb.BadTxnError), errors.InternalError),
        (_lmdb_error(lmdb.Error, errno.EIO), errors.FileSystemError),
        (_lmdb_error(lmdb.ReadonlyError), errors.FileSystemError),
    ],
)
def test_every_lmdb_error_becomes_a_tpfemu_error(exc, expected):
    """translate() maps each lmdb error family to its MQ reason (or InternalError)."""
    error = translate(exc, call="MQCMIT", obj="Q")
    assert type(error) is expected
    assert not isinstance(error, lmdb.Error)


def test_storage_full_names_its_reason_and_call():
    """StorageFull prints IBM's mnemonic, the call and the object."""
    error = translate(_lmdb_error(lmdb.MapFullError), call="MQCMIT", obj="APP.Q")
    assert "MQRC_STORAGE_MEDIUM_FULL" in str(error) and "MQCMIT" in str(error)
    assert error.comp == errors.MQCC_FAILED


def test_a_file_that_is_not_lmdb_is_object_damaged(tmp_path):
    """Opening a directory whose data file is garbage raises ObjectDamaged, not lmdb.Error."""
    path = tmp_path / "e"
    path.mkdir()
    (path / "data.mdb").write_bytes(b"not an lmdb file" * 1000)
    with pytest.raises(errors.ObjectDamaged):
        LmdbEnv(path, dbs=(b"a",))
