"""The ECB's data levels, work area and file address words, used directly on an ECB."""

from __future__ import annotations

import pytest

from ecb import BlockType, Cbrw, ErrorCode, Farw, Level, Storage, TpfSystemError


def _code(info) -> ErrorCode:
    return info.value.code


def test_new_ecb_holds_no_blocks(make_ecb):
    """A fresh ECB has no block on any level and every CBRW says X'0001'."""
    ecb = make_ecb()
    for level in Level:
        assert ecb.block(level) is None
        assert ecb.cbrw(level) == Cbrw(BlockType.NONE, 0)
        assert not ecb.levta(level)
        assert ecb.levtest(level) is None


def test_getcc_puts_a_block_on_the_level(make_ecb, storage):
    """GETCC returns the new block, which block(level) then returns, counted in storage."""
    ecb = make_ecb()
    block = ecb.getcc(Level.D3, BlockType.L2)
    assert ecb.block(Level.D3) is block
    assert ecb.block(3) is block
    assert isinstance(block, bytearray) and len(block) == 1055
    assert ecb.cbrw(Level.D3) == Cbrw(BlockType.L2, 1055)
    assert ecb.levta(Level.D3) and ecb.levtb(Level.D3)
    assert ecb.levtest(Level.D3) is BlockType.L2
    assert storage.in_use(BlockType.L2) == 1


def test_getcc_by_byte_count_takes_smallest_block(make_ecb):
    """GETCC with a byte count gets the smallest block that holds it."""
    ecb = make_ecb()
    assert ecb.getcc(Level.D0, 100).block_type is BlockType.L0
    assert ecb.getcc(Level.D1, 200).block_type is BlockType.L1
    assert ecb.getcc(Level.D2, 1000).block_type is BlockType.L2
    assert ecb.getcc(Level.D4, 4095).block_type is BlockType.L4


def test_getcc_fill(make_ecb):
    """GETCC with fill sets every byte of the new block."""
    block = make_ecb().getcc(Level.D0, BlockType.L0, fill=0x40)
    assert bytes(block) == b"\x40" * 127


@pytest.mark.parametrize("fill", [256, -1, "x"])
def test_getcc_bad_fill_byte_is_refused_and_gets_nothing(make_ecb, storage, fill):
    """A fill that is not a byte (0-255) is a ValueError naming it; no block is taken
    from storage and the level stays free."""
    ecb = make_ecb()
    with pytest.raises(ValueError, match="fill byte"):
        ecb.getcc(Level.D0, BlockType.L0, fill=fill)
    assert ecb.block(Level.D0) is None
    assert storage.in_use(BlockType.L0) == 0


def test_getcc_on_occupied_level_is_system_error(make_ecb, storage):
    """GETCC on a level that holds a block is E0101 naming GETCC and the level."""
    ecb = make_ecb(ecb_id=42)
    first = ecb.getcc(Level.D1, BlockType.L1)
    with pytest.raises(TpfSystemError) as info:
        ecb.getcc(Level.D1, BlockType.L0)
    assert _code(info) is ErrorCode.LEVEL_IN_USE
    assert info.value.macro == "GETCC" and info.value.level == Level.D1
    assert "D1" in str(info.value) and "ECB 42" in str(info.value)
    assert ecb.block(Level.D1) is first
    assert storage.in_use(BlockType.L0) == 0


@pytest.mark.parametrize("size", [4096, -1, BlockType.NONE, "L1", 1.5])
def test_getcc_bad_size_is_system_error(make_ecb, size):
    """GETCC of a size no block holds (or not a size at all) is E0104."""
    with pytest.raises(TpfSystemError) as info:
        make_ecb().getcc(Level.D0, size)
    assert _code(info) is ErrorCode.BAD_BLOCK_SIZE
    assert "<BlockType" not in str(info.value)


def test_getcc_beyond_storage_limit_is_system_error(make_ecb, programs):
    """GETCC when every block of that size is in use is E0105 naming the level."""
    from ecb import Ecb

    ecb = Ecb(programs, Storage({BlockType.L4: 1}))
    ecb.getcc(Level.D0, BlockType.L4)
    with pytest.raises(TpfSystemError) as info:
        ecb.getcc(Level.D1, BlockType.L4)
    assert _code(info) is ErrorCode.STORAGE_LIMIT
    assert info.value.level == Level.D1 and "D1" in str(info.value)
    assert ecb.block(Level.D1) is None


@pytest.mark.parametrize("level", [16, -1, "D1", None])
def test_invalid_level_is_system_error(make_ecb, level):
    """A level outside D0-DF is E0108 for every data-level macro."""
    ecb = make_ecb()
    for call in (
        lambda: ecb.getcc(level, 10),
        lambda: ecb.relcc(level),
        lambda: ecb.block(level),
        lambda: ecb.detac(level),
        lambda: ecb.attac(level),
        lambda: ecb.levta(level),
    ):
        with pytest.raises(TpfSystemError) as info:
            call()
        assert _code(info) is ErrorCode.INVALID_LEVEL


def test_relcc_frees_the_level(make_ecb, storage):
    """RELCC frees the level and uncounts the block; the stale reference cannot be written."""
    ecb = make_ecb()
    block = ecb.getcc(Level.D5, BlockType.L1)
    ecb.relcc(Level.D5)
    assert ecb.block(Level.D5) is None
    assert storage.in_use(BlockType.L1) == 0
    with pytest.raises(TpfSystemError) as info:
        block[0] = 1
    assert _code(info) is ErrorCode.RELEASED_BLOCK


def test_relcc_empty_level_is_system_error(make_ecb):
    """RELCC on a level with no block is E0102 naming RELCC and the level."""
    with pytest.raises(TpfSystemError) as info:
        make_ecb().relcc(Level.DF)
    assert _code(info) is ErrorCode.LEVEL_EMPTY
    assert info.value.macro == "RELCC" and "DF" in str(info.value)


def test_crusa_releases_held_levels_and_skips_empty(make_ecb, storage):
    """CRUSA releases the blocks on the levels named, skipping empty ones, and leaves others."""
    ecb = make_ecb()
    ecb.getcc(Level.D0, BlockType.L0)
    ecb.getcc(Level.D2, BlockType.L1)
    keep = ecb.getcc(Level.D3, BlockType.L2)
    assert ecb.crusa(Level.D0, Level.D1, Level.D2) == 2
    assert ecb.block(Level.D0) is None and ecb.block(Level.D2) is None
    assert ecb.block(Level.D3) is keep
    assert sum(storage.usage().values()) == 1


def test_crusa_needs_a_level(make_ecb):
    """CRUSA with no level is a usage error."""
    with pytest.raises(ValueError):
        make_ecb().crusa()


def test_detac_attac_is_lifo_per_level(make_ecb, storage):
    """ATTAC returns the block most recently detached from that level; counts stay exact."""
    ecb = make_ecb()
    first = ecb.getcc(Level.D6, BlockType.L0)
    ecb.detac(Level.D6)
    assert ecb.block(Level.D6) is None
    second = ecb.getcc(Level.D6, BlockType.L1)
    ecb.detac(Level.D6)
    other = ecb.getcc(Level.D7, BlockType.L2)
    ecb.detac(Level.D7)
    assert ecb.detached_count() == 3 and ecb.detached_count(Level.D6) == 2
    assert sum(storage.usage().values()) == 3
    assert ecb.attac(Level.D6) is second
    ecb.relcc(Level.D6)
    assert ecb.attac(Level.D6) is first
    assert ecb.attac(Level.D7) is other
    assert ecb.detached_count() == 0


def test_detac_empty_level_is_system_error(make_ecb):
    """DETAC on a level with no block is E0102."""
    with pytest.raises(TpfSystemError) as info:
        make_ecb().detac(Level.D2)
    assert _code(info) is ErrorCode.LEVEL_EMPTY and info.value.macro == "DETAC"


def test_attac_on_occupied_level_is_system_error(make_ecb):
    """ATTAC on a level that holds a block is E0101 and the detached block stays detached."""
    ecb = make_ecb()
    ecb.getcc(Level.D2, BlockType.L0)
    ecb.detac(Level.D2)
    ecb.getcc(Level.D2, BlockType.L0)
    with pytest.raises(TpfSystemError) as info:
        ecb.attac(Level.D2)
    assert _code(info) is ErrorCode.LEVEL_IN_USE and info.value.macro == "ATTAC"
    assert ecb.detached_count(Level.D2) == 1


def test_attac_with_nothing_detached_is_system_error(make_ecb):
    """ATTAC with no block detached from that level is E0106, even if another level has one."""
    ecb = make_ecb()
    ecb.getcc(Level.D1, BlockType.L0)
    ecb.detac(Level.D1)
    with pytest.raises(TpfSystemError) as info:
        ecb.attac(Level.D2)
    assert _code(info) is ErrorCode.NO_DETACHED_BLOCK


def test_exit_releases_levels_and_detached_blocks(make_ecb, storage):
    """Ending the entry releases blocks on levels and detached blocks alike."""
    ecb = make_ecb()
    ecb.getcc(Level.D0, BlockType.L4)
    ecb.getcc(Level.D1, BlockType.L1)
    ecb.detac(Level.D1)
    ecb._release_storage()
    assert set(storage.usage().values()) == {0}
    assert not ecb.active


def test_work_area_holds_parameters(make_ecb):
    """EBW000-EBW103 is 104 bytes with the create parameters at EBW000, zero-padded."""
    ecb = make_ecb(params=b"\x01\x02PARM")
    assert len(ecb.ebw) == 104
    assert bytes(ecb.ebw[:6]) == b"\x01\x02PARM"
    assert bytes(ecb.ebw[6:]) == bytes(98)
    assert ecb.params == b"\x01\x02PARM"
    ecb.ebw[103] = 7
    assert ecb.ebw[103] == 7


def test_work_area_overrun_is_system_error(make_ecb):
    """Writing past EBW103 is E0103."""
    ecb = make_ecb()
    with pytest.raises(TpfSystemError) as info:
        ecb.ebw[104] = 1
    assert _code(info) is ErrorCode.BLOCK_OVERRUN


def test_parameters_longer_than_work_area_are_refused(make_ecb):
    """More than 104 bytes of parameters is E0301; exactly 104 fit."""
    assert len(make_ecb(params=bytes(range(104))).ebw) == 104
    with pytest.raises(TpfSystemError) as info:
        make_ecb(params=bytes(105))
    assert _code(info) is ErrorCode.PARAMETERS_TOO_LONG


def test_farw_set_and_read(make_ecb):
    """Each level has its own FARW; unset ones read as zero."""
    ecb = make_ecb()
    ecb.set_farw(Level.D4, 0x1234_5678_9ABC, record_id=0xC1C2, rcc=3)
    assert ecb.farw(Level.D4) == Farw(record_id=0xC1C2, rcc=3, file_address=0x1234_5678_9ABC)
    assert ecb.farw(Level.D5) == Farw(0, 0, 0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"file_address": -1},
        {"file_address": 1 << 64},
        {"file_address": 0, "record_id": 0x10000},
        {"file_address": 0, "rcc": 256},
    ],
)
def test_farw_values_must_fit(make_ecb, kwargs):
    """FARW fields that do not fit their bytes are ValueErrors."""
    with pytest.raises(ValueError):
        make_ecb().set_farw(Level.D0, **kwargs)


def test_macros_after_exit_are_system_errors(make_ecb):
    """Linkage on an ECB whose entry has exited is E0205."""
    ecb = make_ecb()
    ecb._release_storage()
    with pytest.raises(TpfSystemError) as info:
        ecb.entrc("ABCD")
    assert _code(info) is ErrorCode.ECB_NOT_ACTIVE
