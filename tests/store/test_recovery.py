"""Restart recovery: checkpoint + log tail, units of work, backout counts, order, expiry."""

from __future__ import annotations

import random

import pytest
from store_helpers import cid, mid, payload

from tpfemu.store import Backout, CheckpointStore, Commit, Get, Put, RecoveryLog, recover
from tpfemu.store import checkpoint as checkpoint_module
from tpfemu.store.lmdbenv import LmdbEnv
from tpfemu.store.message import NEVER
from tpfemu.store.recovery import LogTail, messages_of, recovered


def _summary(messages) -> list[tuple[bytes, int]]:
    return [(bytes(m.data), m.backout_count) for m in messages]


def test_an_empty_home_recovers_nothing(home):
    """A home with no log and no checkpoint gives no queues."""
    assert recover(home) == {}


def test_committed_puts_come_back_with_their_descriptors(home):
    """A committed persistent put comes back with MsgId, CorrelId, priority, expiry (an
    absolute deadline), put time, context length and key."""
    with RecoveryLog(home) as log:
        t = log.commit([
            Put("Q", payload(1), mid(1), cid(1), priority=9, expiry=1_700_000_000_000_000,
                put_time=42, ctx_len=5, uow=3),
            Put("Q", payload(2), mid(2), priority=0, uow=3),
            Commit(3),
        ])  # fmt: skip
    (m1, m2) = recover(home)["Q"]
    assert (m1.key, m1.msg_id, m1.correl_id, m1.priority, m1.expiry, m1.put_time, m1.ctx_len,
            bytes(m1.data)) == (t.lsn, mid(1), cid(1), 9, 1_700_000_000_000_000, 42, 5,
                                payload(1))  # fmt: skip
    assert m2.key == t.lsn + 1 and m2.expiry == NEVER and m2.backout_count == 0


def test_uncommitted_and_backed_out_puts_are_dropped(home):
    """Puts of a unit of work backed out, or still in flight at the stop, do not return."""
    with RecoveryLog(home) as log:
        log.commit([Put("Q", b"backed out", mid(1), uow=1), Backout(1)])
        log.append([Put("Q", b"in flight", mid(2), uow=2)])
        log.commit([Put("Q", b"kept", mid(3))])
    assert _summary(recover(home)["Q"]) == [(b"kept", 0)]


def test_committed_gets_remove_and_backed_out_gets_count_a_backout(home):
    """A committed get removes its message; a backed-out or in-flight get leaves it with
    one more backout."""
    with RecoveryLog(home) as log:
        keys = log.commit([Put("Q", f"m{i}".encode(), mid(i)) for i in range(4)]).lsns
        log.commit([Get("Q", keys[0], uow=1), Commit(1)])
        log.commit([Get("Q", keys[1], uow=2), Backout(2)])
        log.commit([Get("Q", keys[1], uow=3, backout_count=1), Backout(3)])
        log.commit([Get("Q", keys[2], uow=4)])  # never finished: the crash backs it out
        log.commit([Get("Q", keys[3])])  # outside syncpoint: final at once
    assert _summary(recover(home)["Q"]) == [(b"m1", 2), (b"m2", 1)]


def test_messages_come_back_in_put_order_across_commit_order(home):
    """Messages return in put order (message key), not in the order their units of work
    committed."""
    with RecoveryLog(home) as log:
        a = log.append([Put("Q", b"first", mid(1), uow=1)])
        log.append([Put("Q", b"second", mid(2), uow=2)])
        log.commit([Commit(2)])
        log.commit([Commit(1)])
        log.commit([Put("Q", b"third", mid(3), priority=5)])
    messages = recover(home)["Q"]
    assert [bytes(m.data) for m in messages] == [b"first", b"second", b"third"]
    assert messages[0].key == a.lsn


def test_a_unit_of_work_number_reused_after_a_restart_is_another_unit(home):
    """An in-flight unit of work of a crashed incarnation is not committed by a Commit of
    the same number after the restart."""
    with RecoveryLog(home) as log:
        log.append([Put("Q", b"orphan", mid(1), uow=7)])
    with RecoveryLog(home) as log:
        log.commit([Put("Q", b"new", mid(2), uow=7), Commit(7)])
    assert _summary(recover(home)["Q"]) == [(b"new", 0)]


def test_checkpoint_plus_log_tail(home):
    """Restart loads the checkpoint and replays only the log after its replay point."""
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        keys = log.commit([Put("Q", f"m{i}".encode(), mid(i)) for i in range(5)]).lsns
        log.commit([Get("Q", keys[0], uow=1), Commit(1)])
        snapshot = recover(home, log=log, checkpoints=ckpt)["Q"]
        ckpt.write("Q", snapshot, lsn=log.replay_point)
        log.trim(log.replay_point)
        log.commit([Get("Q", keys[1], uow=2), Commit(2), Put("Q", b"m5", mid(5))])
        log.commit([Get("Q", keys[2], uow=3), Backout(3)])
    assert _summary(recover(home)["Q"]) == [(b"m2", 1), (b"m3", 0), (b"m4", 0), (b"m5", 0)]


def test_the_log_tail_unpacks_only_the_checkpoint_chunks_it_names(home, monkeypatch):
    """Restart gets the checkpoint's chunks as stored, for the core to take unparsed; a
    chunk holding a message the log tail names (a get, a backout) is decoded and changed,
    the others stay packed, the tail's own messages come after them (a LogTail), and
    the whole is in put order."""
    monkeypatch.setattr(checkpoint_module, "CHUNK_MESSAGES", 3)
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        keys = log.commit([Put("Q", f"m{i}".encode(), mid(i)) for i in range(10)]).lsns
        ckpt.write("Q", recover(home, log=log, checkpoints=ckpt)["Q"], lsn=log.replay_point)
        log.trim(log.replay_point)
        log.commit([Get("Q", keys[4], uow=1), Commit(1)])
        log.commit([Get("Q", keys[9], uow=2), Backout(2)])
        log.commit([Put("Q", b"m10", mid(10))])
    expected = [(b"m%d" % i, int(i == 9)) for i in (0, 1, 2, 3, 5, 6, 7, 8, 9, 10)]
    with recovered(home) as segments:
        # chunks m0-m2, m3-m5, m6-m8 and m9: the second and the last were named; then m10
        assert [type(s) for s in segments["Q"]] == [memoryview, list, memoryview, list, LogTail]
        assert _summary(messages_of("Q", segments["Q"])) == expected
    assert _summary(recover(home)["Q"]) == expected


@pytest.mark.parametrize("chunk_messages", [4096, 2])
def test_replay_from_before_the_snapshot_is_idempotent(home, monkeypatch, chunk_messages):
    """A checkpoint whose replay point is earlier than its snapshot (a unit of work was in
    flight) recovers the same messages: re-applied records change nothing (also where
    they name messages of several checkpoint chunks)."""
    monkeypatch.setattr(checkpoint_module, "CHUNK_MESSAGES", chunk_messages)
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        open_uow = log.append([Put("Q", b"late", mid(9), uow=50)])
        keys = log.commit([Put("Q", f"m{i}".encode(), mid(i)) for i in range(4)]).lsns
        log.commit([Get("Q", keys[0], uow=1), Commit(1)])
        log.commit([Get("Q", keys[1], uow=2), Backout(2)])
        snapshot = recover(home, log=log, checkpoints=ckpt)["Q"]  # uow 50 still open
        ckpt.write("Q", snapshot, lsn=open_uow.lsn)
        log.commit([Commit(50)])
    expected = [(b"late", 0), (b"m1", 1), (b"m2", 0), (b"m3", 0)]
    assert _summary(recover(home)["Q"]) == expected
    assert _summary(recover(home)["Q"]) == expected  # recovering again changes nothing


def test_queues_only_in_the_checkpoint_or_only_in_the_log(home):
    """Every queue with a checkpoint or log records is returned, possibly empty."""
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        ckpt.write("CKPT.ONLY", [], lsn=log.replay_point)
        t = log.commit([Put("LOG.ONLY", b"x", mid(1))])
        log.commit([Get("LOG.ONLY", t.lsn)])
    assert recover(home) == {"CKPT.ONLY": [], "LOG.ONLY": []}


def test_random_histories_match_a_model(home):
    """Random puts/gets/commits/backouts/checkpoints/trims/restarts recover what a simple
    model of committed state predicts."""
    rng = random.Random(20261122)
    model: dict[str, dict[int, list]] = {"A": {}, "B": {}}  # queue -> key -> [data, backouts]
    counter = 0
    for _restart in range(4):
        with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
            recovered = recover(home, log=log, checkpoints=ckpt)
            for q in model:
                assert [(m.key, bytes(m.data), m.backout_count) for m in recovered.get(q, [])] == [
                    (k, d, b) for k, (d, b) in sorted(model[q].items())], q
            for _step in range(60):
                q = rng.choice("AB")
                uow = rng.randrange(1, 10**6)
                action = rng.random()
                if action < 0.45:
                    n = rng.randint(1, 4)
                    counter += n
                    data = [f"{q}{counter - j}".encode() for j in range(n)]
                    t = log.append([Put(q, d, mid(counter), uow=uow) for d in data])
                    if rng.random() < 0.7:
                        log.commit([Commit(uow)])
                        model[q].update({k: [d, 0] for k, d in zip(t.lsns, data, strict=True)})
                    else:
                        log.commit([Backout(uow)])
                elif action < 0.8 and model[q]:
                    key = rng.choice(sorted(model[q]))
                    log.append([Get(q, key, uow=uow, backout_count=model[q][key][1])])
                    if rng.random() < 0.6:
                        log.commit([Commit(uow)])
                        del model[q][key]
                    else:
                        log.commit([Backout(uow)])
                        model[q][key][1] += 1
                elif action < 0.9:
                    state = recover(home, log=log, checkpoints=ckpt)
                    for name, messages in state.items():
                        ckpt.write(name, messages, lsn=log.replay_point)
                    log.trim(log.replay_point)
            if rng.random() < 0.5:  # crash with a unit of work in flight: a get backs out
                q = rng.choice("AB")
                if model[q]:
                    key = rng.choice(sorted(model[q]))
                    log.commit([Get(q, key, uow=99, backout_count=model[q][key][1])])
                    model[q][key][1] += 1


def test_environments_killed_while_being_created_recover_as_empty(home):
    """A log or checkpoint environment whose sub-databases were never created (its writer
    was killed while opening it) recovers as nothing logged, not as an error."""
    LmdbEnv(home / "recovery-log").close()
    LmdbEnv(home / "checkpoint").close()
    assert recover(home) == {}
