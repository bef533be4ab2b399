"""LogKeys: the log key of each logged message on a memory queue, by put sequence."""

from __future__ import annotations

import struct

import pytest

from tpfemu.qmgr.logkeys import LogKeys
from tpfemu.store.message import StoredMessage as M
from tpfemu.store.message import chunk_keys, encode_chunk


def _keys(*keys: int) -> bytes:
    return struct.pack(f"<{len(keys)}Q", *keys)


def test_runs_and_single_entries_behave_as_one_dict():
    """A run maps consecutive sequences to its keys; single entries, pops, gets,
    iteration, len and values agree with a dict given the same operations."""
    keys, model = LogKeys(), {}
    keys.add_run(10, _keys(100, 101, 102, 103))
    model.update({10: 100, 11: 101, 12: 102, 13: 103})
    keys[20] = 200
    model[20] = 200
    keys[11] = 111  # a sequence of a run, mapped again
    model[11] = 111
    assert keys.pop(12) == model.pop(12) == 102
    assert keys.pop(12, None) is None and keys.get(12) is None and 12 not in keys
    with pytest.raises(KeyError):
        keys.pop(12)
    with pytest.raises(KeyError):
        keys[99]
    assert sorted(keys) == sorted(model) and len(keys) == len(model)
    assert sorted(keys.values()) == sorted(model.values())
    assert all(keys[s] == k for s, k in model.items())
    for seq in list(keys):  # popping while iterating: iteration is a snapshot
        assert keys.pop(seq) == model.pop(seq)
    assert not keys and len(keys) == 0


def test_a_run_from_a_chunk_and_its_overlap_refused():
    """A run takes a chunk's keys as they lie in it (strided); a run may not start
    inside an earlier one; a run whose keys are all popped is dropped."""
    chunk = encode_chunk([M(k, bytes(24), bytes(24), 0, 0, 0, 0, 0, b"x") for k in (7, 9, 30)])
    keys = LogKeys()
    keys.add_run(1, chunk_keys(chunk))
    assert [keys.get(s) for s in (0, 1, 2, 3, 4)] == [None, 7, 9, 30, None]
    with pytest.raises(ValueError, match="overlaps"):
        keys.add_run(3, _keys(1))
    keys.add_run(4, _keys(40))
    for seq in (1, 2, 3):
        keys.pop(seq)
    assert list(keys) == [4] and keys._firsts == [4]
    keys.add_run(5, b"")  # an empty run changes nothing
    assert len(keys) == 1
