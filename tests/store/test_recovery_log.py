"""The recovery log: records and LSNs, group commit and durability, trimming, storage full."""

from __future__ import annotations

import threading
import time

import pytest
from store_helpers import cid, mid, payload, run_python

from tpfemu import errors
from tpfemu.store import Backout, Commit, Get, Put, RecoveryLog
from tpfemu.store.log_records import (
    BACKOUT,
    BATCH,
    COMMIT,
    GET,
    LOG_DB,
    LSN,
    PUT,
    read_batches,
)

KiB = 1024


def _last_written_lsn(log: RecoveryLog) -> int:
    """The LSN of the last record in the log environment (written, maybe not synced)."""
    with log._env.read() as txn:
        cur = txn.cursor(db=log._env.db(LOG_DB))
        if not cur.last():
            return 0
        return LSN.unpack(cur.key())[0] + BATCH.unpack_from(cur.value())[2] - 1


@pytest.mark.parametrize("sync_mode", ["envsync", "commit"])
def test_records_replay_in_order_with_their_fields(home, sync_mode):
    """Put/Get/Commit/Backout come back from replay in LSN order with every field."""
    with RecoveryLog(home, sync_mode=sync_mode) as log:
        put = Put("APP.Q", payload(1), mid(1), cid(1), priority=7, expiry=123_456,
                  put_time=99, ctx_len=3, backout_count=2, uow=5)
        t1 = log.commit([put, Commit(5)])
        t2 = log.commit([Get("APP.Q", t1.lsn, uow=6, backout_count=2), Backout(6)])
        assert list(t1.lsns) == [1, 2] and list(t2.lsns) == [3, 4]
        records = list(log.replay())
    assert [r.kind for r in records] == [PUT, COMMIT, GET, BACKOUT]
    assert [r.lsn for r in records] == [1, 2, 3, 4]
    m = records[0].message
    assert (m.key, m.msg_id, m.correl_id, m.priority, m.expiry, m.put_time, m.ctx_len,
            m.backout_count, bytes(m.data)) == (1, mid(1), cid(1), 7, 123_456, 99, 3, 2,
                                                payload(1))  # fmt: skip
    assert records[0].queue == "APP.Q" and records[0].uow == 5
    assert (records[2].queue, records[2].key, records[2].uow, records[2].backout_count) == (
        "APP.Q", 1, 6, 2)
    assert records[3].uow == 6 and records[1].uow == 5


def test_replay_from_an_lsn_inside_a_batch(log):
    """replay(from_lsn) starts at that record even when it is in the middle of a batch."""
    log.commit([Put("Q", payload(i), mid(i)) for i in range(5)])
    log.commit([Put("Q", payload(i), mid(i)) for i in range(5, 8)])
    assert [r.lsn for r in log.replay(3)] == [3, 4, 5, 6, 7, 8]
    assert [r.lsn for r in log.replay(7)] == [7, 8]
    assert list(log.replay(9)) == []


def _held_sync(log: RecoveryLog, monkeypatch) -> tuple[threading.Event, threading.Event]:
    """Make the log's syncs wait for ``release`` (set) before syncing; ``syncing`` is set
    once a sync has begun (so its batch's transaction is written)."""
    syncing, release = threading.Event(), threading.Event()
    real_sync = log._env.sync

    def held_sync() -> None:
        syncing.set()
        release.wait(10)
        real_sync()

    monkeypatch.setattr(log._env, "sync", held_sync)
    return syncing, release


def test_append_returns_at_once_and_wait_returns_when_synced(log, monkeypatch):
    """append() does no I/O; wait() returns only after the batch's sync has returned."""
    _, release = _held_sync(log, monkeypatch)
    ticket = log.append([Put("Q", payload(1), mid(1))])
    assert not ticket.durable
    with pytest.raises(TimeoutError):
        ticket.wait(0.05)
    release.set()
    assert ticket.wait(10) is ticket and ticket.durable
    assert log.durable_lsn >= ticket.lsn


def test_16_committers_return_only_after_their_records_are_synced(log, monkeypatch, home):
    """Under 16 concurrent committers every commit returns after a sync covering it, and
    syncs are shared (group commit)."""
    synced = [0]
    real_sync = log._env.sync

    def counting_sync() -> None:
        upto = _last_written_lsn(log)
        real_sync()
        synced[0] = max(synced[0], upto)

    monkeypatch.setattr(log._env, "sync", counting_sync)
    late: list[tuple[int, int]] = []
    start = threading.Barrier(16)

    def committer(t: int) -> None:
        start.wait()
        for i in range(40):
            uow = t * 1000 + i + 1
            ticket = log.commit([Put(f"Q{t % 4}", payload(i), mid(i), uow=uow), Commit(uow)])
            if ticket.lsns[-1] > synced[0]:
                late.append((ticket.lsns[-1], synced[0]))

    threads = [threading.Thread(target=committer, args=(t,)) for t in range(16)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert late == []
    assert log.stats["records"] == 16 * 40 * 2
    assert log.stats["syncs"] < 16 * 40  # commits shared syncs
    assert log.stats["largest_batch"] > 2
    # Another process sees every committed record while this one still has the log open.
    out = run_python(
        """
        import sys
        from tpfemu.store.lmdbenv import LmdbEnv
        from tpfemu.store.log_records import LOG_DB, META_DB, QUEUES_DB, read_batches
        env = LmdbEnv(sys.argv[1], dbs=(LOG_DB, QUEUES_DB, META_DB), readonly=True)
        print(sum(len(records) for _, _, records in read_batches(env)))
        """,
        str(home / "recovery-log"),
    )
    assert int(out.stdout) == sum(len(r) for _, _, r in read_batches(log._env))


def test_a_lone_committer_writes_and_syncs_itself(log, monkeypatch):
    """With the log idle, commit() writes in the calling thread: no hand-off to the logger."""
    writers: set[str] = set()
    real_write = log._env.write

    def recording_write(fn, **kw):
        writers.add(threading.current_thread().name)
        return real_write(fn, **kw)

    monkeypatch.setattr(log._env, "write", recording_write)
    for i in range(20):
        log.commit([Put("Q", payload(i), mid(i))])
    assert writers == {threading.current_thread().name}
    assert log.stats["syncs"] == 20 and log.durable_lsn == 20


@pytest.mark.parametrize("defer", [False, True])
def test_close_writes_what_was_appended(home, defer):
    """Records appended without waiting, deferred or not, are written and synced by
    close()."""
    log = RecoveryLog(home)
    ticket = log.append([Put("Q", payload(i), mid(i)) for i in range(100)], defer=defer)
    log.close()
    assert ticket.durable
    with pytest.raises(errors.TpfEmuError):
        log.append([Put("Q", b"x", mid(0))])
    with RecoveryLog(home) as log:
        assert [r.lsn for r in log.replay()] == list(range(1, 101))


def test_deferred_records_go_with_the_next_commit_in_one_batch(log):
    """A deferred append starts no batch; the next commit writes it with its own records,
    in LSN order, in one batch and one sync."""
    deferred = log.append([Put("Q", payload(1), mid(1), uow=7)], defer=True)
    time.sleep(0.2)  # time enough for a logger that was woken to write it
    assert log.stats["batches"] == 0 and not deferred.durable
    assert _last_written_lsn(log) == 0
    log.commit([Commit(7)])
    assert deferred.durable and log.stats["batches"] == log.stats["syncs"] == 1
    assert [(r.lsn, r.kind) for r in log.replay()] == [(1, PUT), (2, COMMIT)]


def test_waiting_on_a_deferred_ticket_has_it_written(log):
    """Nothing else needs to come along: waiting on a deferred ticket writes it."""
    ticket = log.append([Put("Q", payload(1), mid(1), uow=3)], defer=True)
    assert ticket.wait(timeout=10) is ticket and ticket.durable
    assert log.durable_lsn == 1 and log.stats["batches"] == 1


def test_trim_deletes_covered_batches_and_lsns_keep_growing(home):
    """trim() drops whole batches below the LSN; LSNs continue after a reopen, even when
    everything was trimmed."""
    with RecoveryLog(home) as log:
        for i in range(10):
            log.commit([Put("Q", payload(i), mid(i)), Put("Q", payload(i), mid(i))])
        assert log.trim(6) == 2  # batches 1-2 and 3-4; 5-6 holds LSN 6
        assert [r.lsn for r in log.replay()][:2] == [5, 6]
        assert log.trim(100) == 10 - 2
        assert list(log.replay()) == []
    with RecoveryLog(home) as log:
        assert log.next_lsn == 21
        assert log.commit([Put("Q", b"x", mid(0))]).lsn == 21


def test_each_open_is_a_new_incarnation_and_queue_names_persist(home):
    """Reopening numbers a new incarnation (unit-of-work scope); queue ids keep their names."""
    with RecoveryLog(home) as log:
        first = log.incarnation
        log.commit([Put("A", b"1", mid(1), uow=1), Put("B", b"2", mid(2), uow=1), Commit(1)])
    with RecoveryLog(home) as log:
        assert log.incarnation == first + 1
        log.commit([Put("B", b"3", mid(3), uow=1), Commit(1)])
        records = list(log.replay())
    assert [(r.queue, r.incarnation) for r in records if r.kind == PUT] == [
        ("A", first), ("B", first), ("B", first + 1)]


def test_full_map_is_storage_full_and_acknowledged_records_are_intact(home):
    """A commit that does not fit raises StorageFull; every acknowledged record replays
    intact, and once trimmed the log takes commits again."""
    with RecoveryLog(home, map_size=64 * KiB, max_map_size=512 * KiB) as log:
        acked = []
        with pytest.raises(errors.StorageFull):
            for i in range(10_000):
                acked.append(log.commit([Put("Q", payload(i, 1000), mid(i))]).lsn)
        assert len(acked) > 100
        replayed = {r.lsn: bytes(r.message.data) for r in log.replay()}
        assert replayed == {lsn: payload(i, 1000) for i, lsn in enumerate(acked)}
        log.trim(acked[len(acked) // 2])
        for i in range(20):
            log.commit([Put("Q", payload(i, 1000), mid(i))])


def test_a_unit_of_work_that_lost_records_to_a_full_batch_cannot_commit(home):
    """After a batch with a unit of work's Put failed, its Commit raises StorageFull and is
    logged as a Backout; other units of work commit normally."""
    with RecoveryLog(home, map_size=64 * KiB, max_map_size=256 * KiB) as log:
        log.commit([Put("Q", payload(1), mid(1), uow=1), Commit(1)])
        big = log.append([Put("Q", bytes(512 * KiB), mid(2), uow=7)])
        with pytest.raises(errors.StorageFull):
            big.wait(10)
        with pytest.raises(errors.StorageFull):
            log.commit([Commit(7)])
        log.commit([Put("Q", payload(3), mid(3), uow=8), Commit(8)])
        kinds = [(r.kind, r.uow) for r in log.replay() if r.kind in (COMMIT, BACKOUT)]
    assert kinds == [(COMMIT, 1), (BACKOUT, 7), (COMMIT, 8)]


def test_a_failed_sync_breaks_the_log(log, monkeypatch):
    """When a sync fails, its waiters raise (durability unknown), and so does the ticket
    of every later append, deferred or not; nothing more is written."""
    syncs = []

    def failing_sync() -> None:
        syncs.append(1)
        raise errors.error_for(2208, call="sync", obj="recovery log")

    monkeypatch.setattr(log._env, "sync", failing_sync)
    with pytest.raises(errors.FileSystemError):
        log.commit([Put("Q", b"x", mid(1))])
    written = log.stats["batches"], len(syncs)
    later = [log.append([Put("Q", b"y", mid(2))]),
             log.append([Put("Q", b"z", mid(3), uow=5)], defer=True)]  # fmt: skip
    assert later[1].lsn == later[0].lsn + 1 and not any(t.durable for t in later)
    for ticket in later:
        with pytest.raises(errors.FileSystemError):
            ticket.wait(5)
    with pytest.raises(errors.FileSystemError):
        log.commit([Commit(5)])
    assert (log.stats["batches"], len(syncs)) == written


def test_bad_records_are_refused_before_anything_is_queued(log):
    """A record of the wrong type or with a bad MsgId raises at append; nothing is queued."""
    with pytest.raises(TypeError):
        log.append([Put("Q", b"x", mid(1)), "not a record"])
    with pytest.raises(ValueError):
        log.append([Put("Q", b"x", b"short")])
    assert log.next_lsn == 1


def test_a_full_disk_is_storage_full_and_acknowledged_records_survive(home):
    """With the file size capped (as a full disk), commits fail with StorageFull on the call
    that hit it, later ones too, and every acknowledged record recovers intact."""
    out = run_python(
        """
        import resource, signal, sys
        from tpfemu import errors
        from tpfemu.store import Put, RecoveryLog
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        log = RecoveryLog(sys.argv[1], map_size=64 << 20)
        limit = 1 << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        acked = []
        try:
            for i in range(100_000):
                msg_id = i.to_bytes(24, "big")
                acked.append(log.commit([Put("Q", b"%d;" % i * 100, msg_id)]).lsn)
        except errors.StorageFull as exc:
            print(exc.reason_name, len(acked))
        try:
            log.commit([Put("Q", b"more", bytes(24))])
        except errors.StorageFull as exc:
            print(exc.reason_name)
        """,
        str(home),
    )
    first, count, second = out.stdout.split()
    assert first == second == "MQRC_STORAGE_MEDIUM_FULL"
    assert int(count) > 100
    with RecoveryLog(home) as log:
        records = list(log.replay())
    assert len(records) == int(count)
    assert all(bytes(r.message.data) == b"%d;" % i * 100 for i, r in enumerate(records))


def test_only_one_writer_per_home(home):
    """A second RecoveryLog on the same home raises ObjectInUse until the first closes."""
    with RecoveryLog(home):
        with pytest.raises(errors.ObjectInUse):
            RecoveryLog(home)
    with RecoveryLog(home) as log:
        log.commit([Put("Q", b"x", mid(1))])


def test_an_unexpected_writer_error_fails_the_waiters_instead_of_hanging(log, monkeypatch):
    """A bug in the writer breaks the log: waiters get InternalError, they never hang."""
    syncing, release = _held_sync(log, monkeypatch)

    def broken_write(fn, **kw):
        raise RuntimeError("bug")

    first = log.append([Put("Q", b"x", mid(1))])
    assert syncing.wait(10)  # the logger wrote the first batch and waits in its sync
    queued = log.append([Put("Q", b"y", mid(2))])  # the logger's next batch
    monkeypatch.setattr(log._env, "write", broken_write)
    release.set()
    first.wait(10)
    with pytest.raises(errors.InternalError):
        queued.wait(10)
    with pytest.raises(errors.InternalError):
        log.commit([Put("Q", b"z", mid(3))])


def test_the_next_batch_is_written_before_the_synced_ones_waiters_wake(log, monkeypatch):
    """Pipelined writer: the batch that gathered during a sync has its transaction written
    before the synced batch's waiters are woken (by the waker thread, while the logger
    goes on to sync the new batch), and its own sync after; every batch's waiters wake
    only after its sync."""
    events: list[tuple[str, int]] = []  # (what, batch): batches are numbered 1, 2...
    syncing, release, first_woken = threading.Event(), threading.Event(), threading.Event()
    real_sync, real_write, gate = log._env.sync, log._env.write, log._gate

    def sync() -> None:  # (the batch synced is the last one written)
        syncing.set()
        release.wait(10)
        real_sync()
        synced = sum(e[0] == "txn" for e in events)
        if synced == 2:  # (batch 1's waiters are woken while batch 2 syncs, or before)
            assert first_woken.wait(10)
        events.append(("sync", synced))

    def write(fn, **kw):
        events.append(("txn", sum(e[0] == "txn" for e in events) + 1))
        return real_write(fn, **kw)

    class Recording:  # the gate, with its finishes recorded
        def finish(self, seq: int) -> None:
            events.append(("wake", seq))
            if seq == 1:
                first_woken.set()
            gate.finish(seq)

        def wait(self, seq: int, timeout: float | None = None) -> bool:
            return gate.wait(seq, timeout)

        @property
        def finished(self) -> int:
            return gate.finished

    monkeypatch.setattr(log, "_gate", Recording())
    monkeypatch.setattr(log._env, "sync", sync)
    monkeypatch.setattr(log._env, "write", write)
    first = log.append([Put("Q", b"x", mid(1))])
    assert syncing.wait(10)  # batch 1 written, its sync running
    second = log.append([Put("Q", b"y", mid(2))])  # gathers during that sync
    release.set()
    first.wait(10)
    second.wait(10)
    assert events == [("txn", 1), ("sync", 1), ("txn", 2), ("wake", 1), ("sync", 2),
                      ("wake", 2)]  # fmt: skip


def test_a_batch_woken_by_a_later_ones_finish_is_durable(log, monkeypatch):
    """A synced batch handed to the waker can have its waiters woken first by the logger
    finishing the next batch itself (a gate's finish wakes every batch up to it). Its
    tickets are durable then, though the waker has not reached the batch yet."""
    syncing, release = _held_sync(log, monkeypatch)

    class Held:  # the waker's queue, holding back every batch handed to it
        def __init__(self, real) -> None:
            self.real, self.held = real, []

        def put(self, item) -> None:
            if item is None:  # (close: stop the waker)
                self.real.put(None)
            else:
                self.held.append(item)

    held = Held(log._woken)
    monkeypatch.setattr(log, "_woken", held)
    first = log.append([Put("Q", b"x", mid(1))])
    assert syncing.wait(10)  # batch 1 written, its sync running
    second = log.append([Put("Q", b"y", mid(2))])  # batch 2 gathers meanwhile
    release.set()
    second.wait(10)  # batch 1 went to the (held) waker, the logger finished batch 2
    assert [b.seq for b in held.held] == [first._batch.seq]
    assert first.wait(10).durable and second.durable


def test_an_empty_append_is_refused(home):
    """Appending no records is an error naming it, and changes nothing: an empty batch
    would take the key (its first LSN) of the next batch, whose records LMDB's append
    would then drop while their committer was told they were durable."""
    with RecoveryLog(home) as log:
        for call in (log.commit, log.append):
            with pytest.raises(ValueError, match="no records"):
                call([])
        t = log.commit([Put("Q", b"kept", mid(1))])
        assert [r.lsn for r in log.replay()] == [t.lsn]


def test_a_log_ending_in_an_empty_batch_keeps_what_follows(home):
    """A log whose last batch is empty (written by a version before 2026-11-22) restarts
    with the next LSN after it, so the next commit is stored, not dropped."""
    import lmdb

    with RecoveryLog(home) as log:
        first = log.commit([Put("Q", b"one", mid(1))])
        empty_at = first.lsn + 1
    env = lmdb.open(str(home / "recovery-log"), max_dbs=4)
    with env.begin(write=True) as txn:
        txn.put(LSN.pack(empty_at), BATCH.pack(b"TPFL", 1, 0, 0),
                db=env.open_db(LOG_DB, txn=txn))  # fmt: skip
    env.close()
    with RecoveryLog(home) as log:
        second = log.commit([Put("Q", b"two", mid(2))])
        assert second.lsn > empty_at
        assert [bytes(r.message.data) for r in log.replay()] == [b"one", b"two"]


def test_a_batch_lmdb_refuses_to_append_fails_its_committer(home):
    """A batch whose key is not after the last one written (LMDB's append would refuse
    it silently) fails its committer with InternalError and is not reported durable;
    what was committed before stays."""
    with RecoveryLog(home) as log:
        first = log.commit([Put("Q", b"one", mid(1))])
        log._next_lsn = first.lsn  # as the empty batch of older versions left it
        with pytest.raises(errors.InternalError, match="not after the last batch"):
            log.commit([Put("Q", b"two", mid(2))])
        assert [bytes(r.message.data) for r in log.replay()] == [b"one"]


def test_a_written_batch_is_freed_without_the_garbage_collector(log):
    """With the cyclic garbage collector off, 200 commits leave no batch of theirs alive
    (a batch and its committers' tickets referred to each other until it was collected,
    keeping every record's bytes), and what was committed replays."""
    import gc

    from tpfemu.store.recovery_log import _Batch

    gc.collect()
    gc.disable()
    try:
        for uow in range(1, 201):
            log.commit([Put("Q", payload(uow), mid(uow), uow=uow), Commit(uow)])
        alive = sum(type(o) is _Batch for o in gc.get_objects())
    finally:
        gc.enable()
    assert alive <= 2  # (the log's open batch, and the last one a ticket still names)
    assert sum(r.kind == PUT for r in log.replay()) == 200
