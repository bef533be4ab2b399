"""Working-storage accounting: counts per size, limits, shortage, and exactness."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecb import BlockType, Ecb, ErrorCode, Level, Storage, TpfSystemError

SIZES = (BlockType.L0, BlockType.L1, BlockType.L2, BlockType.L4)


def test_allocate_counts_and_release_uncounts():
    """Each allocated block is counted in use for its size until it is released."""
    storage = Storage()
    a = storage.allocate(BlockType.L1)
    b = storage.allocate(BlockType.L1)
    c = storage.allocate(BlockType.L4)
    assert storage.usage() == {BlockType.L0: 0, BlockType.L1: 2, BlockType.L2: 0, BlockType.L4: 1}
    storage.release(a)
    storage.release_many([b, c])
    assert set(storage.usage().values()) == {0}
    assert storage.high_water(BlockType.L1) == 2


def test_limit_per_size_is_a_system_error():
    """Allocating beyond a size's limit is E0105 naming the size; other sizes are unaffected."""
    storage = Storage({BlockType.L0: 2})
    storage.allocate(BlockType.L0)
    storage.allocate(BlockType.L0)
    with pytest.raises(TpfSystemError) as info:
        storage.allocate(BlockType.L0)
    assert info.value.code is ErrorCode.STORAGE_LIMIT
    assert "2 L0 blocks" in str(info.value)
    assert storage.in_use(BlockType.L0) == 2
    storage.allocate(BlockType.L1)


def test_double_release_is_refused():
    """Releasing a block twice is E0107 and does not corrupt the count."""
    storage = Storage()
    block = storage.allocate(BlockType.L2)
    storage.release(block)
    with pytest.raises(TpfSystemError) as info:
        storage.release(block)
    assert info.value.code is ErrorCode.RELEASED_BLOCK
    assert storage.in_use(BlockType.L2) == 0


def test_none_is_not_allocatable():
    """X'0001' (no block) cannot be allocated: E0104."""
    with pytest.raises(TpfSystemError) as info:
        Storage().allocate(BlockType.NONE)
    assert info.value.code is ErrorCode.BAD_BLOCK_SIZE


def test_short_above_threshold_of_any_size():
    """Storage is short once any size is above short_fraction of its limit, and not before."""
    storage = Storage({BlockType.L4: 4}, short_fraction=0.5)
    blocks = [storage.allocate(BlockType.L4) for _ in range(2)]
    assert not storage.is_short()
    blocks.append(storage.allocate(BlockType.L4))
    assert storage.is_short()
    assert storage.short_types() == [BlockType.L4]
    storage.release(blocks.pop())
    assert not storage.is_short()


@pytest.mark.parametrize(
    ("limits", "fraction"),
    [({BlockType.L1: -1}, 0.75), ({BlockType.NONE: 3}, 0.75), ({}, 0.0), ({}, 1.5)],
)
def test_bad_configuration_is_refused(limits, fraction):
    """Negative limits, a limit for X'0001' and a fraction outside (0, 1] are ValueErrors."""
    with pytest.raises(ValueError):
        Storage(limits, short_fraction=fraction)


def test_counts_exact_under_concurrency():
    """Threads allocating and releasing concurrently leave every count at exactly zero."""
    storage = Storage()
    errors: list[BaseException] = []

    def churn(block_type: BlockType) -> None:
        try:
            for _ in range(2000):
                storage.release(storage.allocate(block_type))
        except BaseException as exc:  # noqa: B036 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=churn, args=(t,)) for t in SIZES for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert set(storage.usage().values()) == {0}


_levels = st.sampled_from(list(Level))
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("getcc"), _levels, st.sampled_from(SIZES)),
        st.tuples(st.just("getcc_bytes"), _levels, st.integers(0, 4095)),
        st.tuples(st.just("relcc"), _levels),
        st.tuples(st.just("detac"), _levels),
        st.tuples(st.just("attac"), _levels),
        st.tuples(st.just("crusa"), st.lists(_levels, min_size=1, max_size=4)),
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(_ops)
def test_level_macro_sequences_keep_accounting_exact(ops):
    """Any sequence of GETCC/RELCC/DETAC/ATTAC/CRUSA keeps storage equal to a simple model.

    Misuse raises the documented system error and changes nothing; at exit every block,
    held or detached, is released.
    """
    storage = Storage()
    ecb = Ecb(None, storage)
    held: dict[int, BlockType] = {}
    detached: dict[int, list[BlockType]] = {}
    for op in ops:
        kind = op[0]
        if kind in ("getcc", "getcc_bytes"):
            level = op[1]
            size = op[2] if kind == "getcc" else BlockType.for_size(op[2])
            if level in held:
                with pytest.raises(TpfSystemError) as info:
                    ecb.getcc(level, op[2])
                assert info.value.code is ErrorCode.LEVEL_IN_USE
            else:
                block = ecb.getcc(level, op[2])
                assert len(block) == size.size
                held[level] = size
        elif kind in ("relcc", "detac"):
            level = op[1]
            if level not in held:
                with pytest.raises(TpfSystemError) as info:
                    getattr(ecb, kind)(level)
                assert info.value.code is ErrorCode.LEVEL_EMPTY
            else:
                getattr(ecb, kind)(level)
                size = held.pop(level)
                if kind == "detac":
                    detached.setdefault(level, []).append(size)
        elif kind == "attac":
            level = op[1]
            if level in held:
                with pytest.raises(TpfSystemError) as info:
                    ecb.attac(level)
                assert info.value.code is ErrorCode.LEVEL_IN_USE
            elif not detached.get(level):
                with pytest.raises(TpfSystemError) as info:
                    ecb.attac(level)
                assert info.value.code is ErrorCode.NO_DETACHED_BLOCK
            else:
                block = ecb.attac(level)
                held[level] = detached[level].pop()
                assert block.block_type is held[level]
        else:
            released = ecb.crusa(*op[1])
            expected = {level for level in op[1] if level in held}
            assert released == len(expected)
            for level in expected:
                del held[level]
        model = {t: 0 for t in SIZES}
        for size in list(held.values()) + [s for stack in detached.values() for s in stack]:
            model[size] += 1
        assert storage.usage() == model
        for level in Level:
            assert ecb.levta(level) == (level in held)
            assert ecb.cbrw(level).block_type is held.get(level, BlockType.NONE)
    ecb._release_storage()
    assert set(storage.usage().values()) == {0}
