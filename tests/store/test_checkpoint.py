"""The checkpoint store: round trips, atomic replacement by generation, storage full."""

from __future__ import annotations

import threading

import pytest
from store_helpers import stored

from tpfemu import errors
from tpfemu.store import Checkpointer, CheckpointStore, Put, RecoveryLog
from tpfemu.store import checkpoint as checkpoint_module
from tpfemu.store.message import NEVER, decode_chunk, encode_chunk
from tpfemu.store.recovery import recover, recovered

KiB = 1024


def _chunk_keys(store: CheckpointStore) -> list[bytes]:
    with store.env.read() as txn:
        return list(txn.cursor(db=store.env.db(b"chunks")).iternext(values=False))


def test_a_chunk_round_trips_every_field():
    """encode_chunk/decode_chunk keep every descriptor field, the data and the order."""
    messages = [stored(10 + i, i, priority=i % 10, expiry=NEVER - i, backouts=i, size=i * 7)
                for i in range(50)]  # fmt: skip
    decoded = decode_chunk(encode_chunk(messages))
    assert [m[:-1] for m in decoded] == [m[:-1] for m in messages]
    assert [bytes(m.data) for m in decoded] == [m.data for m in messages]


def test_write_then_load_gives_the_messages_and_the_replay_lsn(ckpt):
    """load() and load_all() return the replay LSN and the messages in the order written."""
    messages = [stored(i + 1, i, priority=i % 10, size=300) for i in range(10_000)]
    assert ckpt.write("APP.Q", messages, lsn=12_345) == 10_000
    lsn, it = ckpt.load("APP.Q")
    assert lsn == 12_345
    loaded = list(it)
    assert [m[:-1] for m in loaded] == [m[:-1] for m in messages]
    assert [bytes(m.data) for m in loaded] == [m.data for m in messages]
    lsn, listed = ckpt.load_all("APP.Q")
    assert lsn == 12_345 and [m.key for m in listed] == [m.key for m in messages]
    assert ckpt.info("APP.Q") == (1, 12_345, 10_000)
    assert ckpt.queues() == ["APP.Q"]


def test_a_queue_without_a_checkpoint_replays_the_whole_log(ckpt):
    """load() of an unknown queue is (0, nothing): restart replays its log from the start."""
    lsn, it = ckpt.load("NONE")
    assert lsn == 0 and list(it) == []
    assert ckpt.info("NONE") is None


def test_a_new_checkpoint_replaces_the_old_generation(ckpt):
    """Writing again flips to a new generation and deletes the old one's chunks."""
    ckpt.write("Q", [stored(i, i, size=100_000) for i in range(1, 11)], lsn=11)
    before = len(_chunk_keys(ckpt))
    ckpt.write("Q", [stored(i, i, size=100_000) for i in range(5, 8)], lsn=20)
    assert ckpt.info("Q") == (2, 20, 3)
    assert [m.key for m in ckpt.load_all("Q")[1]] == [5, 6, 7]
    assert 0 < len(_chunk_keys(ckpt)) < before
    ckpt.write("Q", [], lsn=30)  # an empty queue still records its replay point
    assert ckpt.load_all("Q") == (30, [])


def test_queues_are_independent_and_can_be_deleted(ckpt):
    """Each queue has its own checkpoint; delete() removes one and its chunks."""
    ckpt.write("A", [stored(1, 1)], lsn=2)
    ckpt.write("B", [stored(2, 2)], lsn=3)
    assert sorted(ckpt.queues()) == ["A", "B"]
    assert ckpt.delete("A") and not ckpt.delete("A")
    assert ckpt.queues() == ["B"] and ckpt.load_all("B")[1][0].key == 2
    assert len(_chunk_keys(ckpt)) == 1


def test_a_write_interrupted_before_the_flip_leaves_the_old_checkpoint(home, monkeypatch):
    """A checkpoint spanning several transactions that fails midway leaves the previous one
    in force, and the next write removes the stray chunks."""
    monkeypatch.setattr(checkpoint_module, "CHUNK_BYTES", 4 * KiB)
    with CheckpointStore.open(home, txn_bytes=8 * KiB) as store:
        store.write("Q", [stored(i, i, size=1000) for i in range(1, 21)], lsn=21)

        def failing():
            for i in range(100, 200):
                if i == 150:
                    raise RuntimeError("snapshot failed")
                yield stored(i, i, size=1000)

        with pytest.raises(RuntimeError):
            store.write("Q", failing(), lsn=300)
        assert store.info("Q") == (1, 21, 20)
        assert [m.key for m in store.load_all("Q")[1]] == list(range(1, 21))
        strays = len(_chunk_keys(store))
        store.write("Q", [stored(7, 7)], lsn=400)
        assert len(_chunk_keys(store)) == 1 < strays
        assert store.load_all("Q") == (400, [store.load_all("Q")[1][0]])


def test_a_full_store_is_storage_full_and_keeps_the_previous_checkpoint(home):
    """A checkpoint that does not fit raises StorageFull; the previous one loads intact."""
    with CheckpointStore.open(home, map_size=64 * KiB, max_map_size=512 * KiB) as store:
        small = [stored(i, i, size=1000) for i in range(1, 101)]
        store.write("Q", small, lsn=101)
        with pytest.raises(errors.StorageFull):
            store.write("Q", [stored(i, i, size=10_000) for i in range(1, 101)], lsn=500)
        lsn, loaded = store.load_all("Q")
        assert lsn == 101 and [bytes(m.data) for m in loaded] == [m.data for m in small]
    with CheckpointStore.open(home, readonly=True) as store:
        assert store.info("Q") == (1, 101, 100)


@pytest.mark.parametrize("damage", [b"\x05\x00\x00\x00garbage", b"\x05",
                                    encode_chunk([stored(1, 1), stored(2, 2)])])
def test_a_damaged_chunk_is_object_damaged(home, ckpt, damage):
    """A chunk that does not decode, or whose count does not fit (in its own size, in the
    queue's pointer), raises ObjectDamaged naming the queue, not a struct or lmdb error:
    loaded as a list, and at restart."""
    ckpt.write("Q", [stored(1, 1)], lsn=2)
    key = _chunk_keys(ckpt)[0]
    ckpt.env.write(lambda txn: txn.put(key, damage, db=ckpt.env.db(b"chunks")))
    for load in (lambda: ckpt.load_all("Q"), lambda: recover(home, checkpoints=ckpt)):
        with pytest.raises(errors.ObjectDamaged) as damaged:
            load()
        assert damaged.value.obj == "Q"


def test_a_checkpoint_written_out_of_key_order_loads_sorted(home, ckpt):
    """Messages written in any order come back in key (put) order, also at restart,
    where such a checkpoint is decoded instead of handed to the core packed."""
    ckpt.write("Q", [stored(k, k) for k in (5, 3, 9, 4)], lsn=10)
    assert [m.key for m in ckpt.load_all("Q")[1]] == [3, 4, 5, 9]
    with recovered(home, checkpoints=ckpt) as segments:
        assert [[m.key for m in segment] for segment in segments["Q"]] == [[3, 4, 5, 9]]


def test_a_checkpointer_round_writes_every_queue_drops_deleted_ones_and_trims(home, ckpt):
    """A round checkpoints every queue of the snapshot, deletes checkpoints of queues gone
    from it, and trims the log below the smallest replay point."""
    with RecoveryLog(home) as log:
        for _ in range(10):
            log.commit([Put("A", b"a", bytes(24))])
        ckpt.write("GONE", [stored(1, 1)], lsn=1)
        rounds = iter([
            [("A", [stored(3, 3)], 6), ("B", [], 9)],
            [("A", [], 11)],
        ])  # fmt: skip
        checkpointer = Checkpointer(ckpt, log, lambda: next(rounds), interval=60)
        assert checkpointer.checkpoint() == 6
        assert sorted(ckpt.queues()) == ["A", "B"]
        assert [r.lsn for r in log.replay()][0] == 6
        checkpointer.stop()  # the final round at stop
        assert ckpt.queues() == ["A"] and ckpt.info("A") == (2, 11, 0)
        assert list(log.replay()) == []


def test_a_failed_round_trims_nothing_and_the_thread_keeps_going(home, ckpt):
    """When a round fails the log is not trimmed, the error is kept, and the next round
    runs at the next interval."""
    with RecoveryLog(home) as log:
        log.commit([Put("A", b"a", bytes(24))])
        calls = []
        second = threading.Event()

        def snapshot():
            calls.append(1)
            if len(calls) == 1:
                raise errors.StorageFull(2, 2192)
            second.set()
            return [("A", [], log.replay_point)]

        checkpointer = Checkpointer(ckpt, log, snapshot, interval=0.01).start()
        assert second.wait(10)
        checkpointer.stop(final=False)
        assert checkpointer.rounds >= 1 and ckpt.info("A")[1] == 2
