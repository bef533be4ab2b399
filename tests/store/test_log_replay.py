"""The log tail's replay in C (tpfemu.store.recovery.log_replay, through recover/recovered):
units of work interleaved and open in their thousands, the split with the checkpoint,
damaged records, and the restart that puts the tail back from the log's map."""

from __future__ import annotations

import random
import struct

import lmdb
import pytest
from store_helpers import mid

from tpfemu import errors
from tpfemu._lowlevel import CoreQueue
from tpfemu.store import Backout, CheckpointStore, Commit, Get, Put, RecoveryLog, recover
from tpfemu.store.log_records import BATCH, LOG_DB
from tpfemu.store.recovery import LogTail, messages_of, recovered


def _state(home, **stores) -> dict[str, list[tuple[int, bytes, int]]]:
    return {q: [(m.key, bytes(m.data), m.backout_count) for m in ms]
            for q, ms in recover(home, **stores).items()}  # fmt: skip


def _end_in_model(model: dict[str, dict[int, list]], taken: set[int], ops: list[tuple],
                  commit: bool) -> None:
    """What the end of a unit of work does to the model: a committed put adds its
    message; a get frees its key and removes the message (commit) or counts a backout."""
    for op in ops:
        if op[0] == "put" and commit:
            model[op[1]][op[2]] = [op[3], 0]
        elif op[0] == "get":
            taken.discard(op[2])
            if commit:
                del model[op[1]][op[2]]
            else:
                model[op[1]][op[2]][1] += 1


def test_interleaved_units_of_work_match_a_model(home):
    """Many units of work open at once, their records spread over many batches, finishing
    in any order, getting messages of the checkpoint and of the tail, with checkpoints
    taken while some are open and a crash at the end: recovery equals a model."""
    rng = random.Random(7)
    model: dict[str, dict[int, list]] = {"A": {}, "B": {}, "C": {}}  # key -> [data, backouts]
    # uow -> its ops: ("put", q, key, data, lsn) or ("get", q, key, lsn)
    open_uows: dict[int, list[tuple]] = {}
    taken: set[int] = set()  # keys a unit of work in flight has got
    next_uow, last = 1, None
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        for step in range(900):
            action = rng.random()
            if action < 0.3 or not open_uows:  # begin a unit of work
                open_uows[next_uow] = []
                next_uow += 1
            elif action < 0.55:  # a put in an open unit of work
                uow = rng.choice(list(open_uows))
                q = rng.choice("ABC")
                data = f"{q}{step}".encode()
                t = last = log.append([Put(q, data, mid(step), uow=uow)])
                open_uows[uow].append(("put", q, t.lsn, data, t.lsn))
            elif action < 0.75:  # a get, in a unit of work, of a committed message
                q = rng.choice("ABC")
                free = sorted(set(model[q]) - taken)
                if free:
                    key = rng.choice(free)
                    uow = rng.choice(list(open_uows))
                    t = last = log.append([Get(q, key, uow=uow,
                                                  backout_count=model[q][key][1])])
                    open_uows[uow].append(("get", q, key, t.lsn))
                    taken.add(key)
            elif action < 0.95:  # a unit of work ends
                uow = rng.choice(list(open_uows))
                ops = open_uows.pop(uow)
                commit = rng.random() < 0.65
                last = log.commit([Commit(uow) if commit else Backout(uow)])
                _end_in_model(model, taken, ops, commit)
            elif last is not None:  # a checkpoint, with units of work in flight
                last.wait()  # (what was appended before is durable)
                state = recover(home, log=log, checkpoints=ckpt)
                # the replay point: before the first record of any unit of work in flight
                point = min([log.replay_point, *(ops[0][-1] for ops in open_uows.values() if ops)])
                for name, messages in state.items():
                    ckpt.write(name, messages, lsn=point)
        last.wait()  # everything appended is durable; the open units of work are not
    for ops in open_uows.values():  # in flight at the stop: their gets count a backout
        for op in ops:
            if op[0] == "get":
                model[op[1]][op[2]][1] += 1
    expected = {q: [(k, d, b) for k, (d, b) in sorted(ms.items())] for q, ms in model.items()}
    assert _state(home) == expected
    assert _state(home) == expected  # recovering again changes nothing


def test_thousands_of_units_of_work_open_at_once(home):
    """5 000 units of work each put a message before any finishes, then finish in a
    random order, two in three committed: exactly the committed ones come back, in put
    order (the tail's table of open units of work grows and shrinks through this)."""
    rng = random.Random(11)
    uows = list(range(1, 5001))
    with RecoveryLog(home, map_size=64 << 20) as log:
        keys = {}
        for start in range(0, len(uows), 500):
            t = log.append([Put("Q", b"%d" % u, mid(u), uow=u) for u in uows[start:start + 500]])
            keys.update(zip(uows[start : start + 500], t.lsns, strict=True))
        rng.shuffle(uows)
        committed = set(uows[: len(uows) * 2 // 3])
        for start in range(0, len(uows), 250):
            last = log.append([Commit(u) if u in committed else Backout(u)
                               for u in uows[start : start + 250]])  # fmt: skip
        last.wait()
    got = recover(home)["Q"]
    assert [m.key for m in got] == sorted(keys[u] for u in committed)
    assert {bytes(m.data) for m in got} == {b"%d" % u for u in committed}


def test_the_tail_above_the_checkpoint_stays_in_the_logs_map(home):
    """Restart gets the tail's messages as a LogTail (descriptors and the addresses of
    their data in the log's map), and the records naming checkpoint messages applied to
    the checkpoint's part; both give the same messages as recover()."""
    with RecoveryLog(home) as log, CheckpointStore.open(home) as ckpt:
        keys = log.commit([Put("Q", b"old%d" % i, mid(i)) for i in range(3)]).lsns
        ckpt.write("Q", recover(home, log=log, checkpoints=ckpt)["Q"], lsn=log.replay_point)
        new = log.commit([Put("Q", b"new%d" % i, mid(10 + i), uow=5) for i in range(3)]
                         + [Commit(5)]).lsns  # fmt: skip
        log.commit([Get("Q", keys[0], uow=6), Get("Q", new[1], uow=6), Commit(6)])
        log.commit([Get("Q", new[2], uow=7, backout_count=0), Backout(7)])
    with recovered(home) as segments:
        tail = segments["Q"][-1]
        assert isinstance(tail, LogTail) and len(tail) == 2
        assert [(bytes(m.data), m.backout_count) for m in messages_of("Q", segments["Q"])] == [
            (b"old1", 0), (b"old2", 0), (b"new0", 0), (b"new2", 1)]
    assert _state(home)["Q"] == [(keys[1], b"old1", 0), (keys[2], b"old2", 0),
                                 (new[0], b"new0", 0), (new[2], b"new2", 1)]  # fmt: skip
    # the map's views end with the block: a LogTail kept past it refuses, not crashes
    with pytest.raises(ValueError, match="only inside the with block"):
        tail.packed()
    with pytest.raises(ValueError, match="only inside the with block"):
        CoreQueue("Q").put_packed_gather(tail.descriptors, tail.addresses)


def _rewrite_first_batch(home, change) -> int:
    """Apply ``change`` to the records of the log's first batch; return its first LSN."""
    env = lmdb.open(str(home / "recovery-log"), max_dbs=4)
    with env.begin(write=True) as txn:
        db = env.open_db(LOG_DB, txn=txn)
        key, value = next(iter(txn.cursor(db)))
        txn.put(key, value[: BATCH.size] + change(value[BATCH.size :]), db=db)
    env.close()
    return struct.unpack(">Q", key)[0]


@pytest.mark.parametrize(
    ("change", "record", "detail"),
    [
        (lambda r: r[:140] + b"\x09" + r[141:], 1, "record kind 9"),
        (lambda r: r[:140] + b"\x00" + r[141:], 1, "record kind 0"),  # zeroed: named too
        (lambda r: r[:-5], 1, "message data cut short"),
        (lambda r: r[: 140 + 100], 1, "record cut short"),
        (lambda r: r[:4] + struct.pack("<I", 77) + r[8:], 0, "unknown queue id"),
    ],
    ids=["kind", "kind-zero", "data", "header", "queue"],
)
def test_a_damaged_record_is_object_damaged_naming_it(home, change, record, detail):
    """A record that is not readable stops recovery with ObjectDamaged naming the log
    record (its LSN) and what is wrong, not a crash or a silent skip."""
    with RecoveryLog(home) as log:  # two records of 120 + 20 bytes
        log.commit([Put("Q", b"a" * 20, mid(1)), Put("Q", b"b" * 20, mid(2))])
    first = _rewrite_first_batch(home, change)
    with pytest.raises(errors.ObjectDamaged) as damaged:
        recover(home)
    assert damaged.value.obj == f"log record {first + record}"
    assert damaged.value.detail == detail
