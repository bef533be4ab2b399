"""Block types, fixed-size core blocks and the work area."""

from __future__ import annotations

import pytest

from ecb import BLOCK_SIZES, BlockType, CoreBlock, ErrorCode, Level, TpfSystemError, WorkArea


def test_sixteen_levels_named_d0_to_df():
    """There are exactly 16 data levels, D0-DF, numbered 0-15."""
    assert [level.name for level in Level] == [f"D{i:X}" for i in range(16)]
    assert [int(level) for level in Level] == list(range(16))


@pytest.mark.parametrize(
    ("block_type", "code", "size"),
    [
        (BlockType.NONE, 0x0001, 0),
        (BlockType.L0, 0x0011, 127),
        (BlockType.L1, 0x0021, 381),
        (BlockType.L2, 0x0031, 1055),
        (BlockType.L4, 0x0051, 4095),
    ],
)
def test_block_type_codes_and_sizes(block_type, code, size):
    """Each block type carries its CBRW code and byte count as documented for z/TPF."""
    assert block_type.value == code
    assert block_type.size == size == BLOCK_SIZES[block_type]


@pytest.mark.parametrize(
    ("nbytes", "expected"),
    [
        (0, BlockType.L0),
        (127, BlockType.L0),
        (128, BlockType.L1),
        (381, BlockType.L1),
        (382, BlockType.L2),
        (1055, BlockType.L2),
        (1056, BlockType.L4),
        (4095, BlockType.L4),
        (4096, None),
    ],
)
def test_for_size_picks_smallest_block(nbytes, expected):
    """for_size returns the smallest block type that holds the byte count, or None."""
    assert BlockType.for_size(nbytes) is expected


def test_core_block_is_a_bytearray_of_its_size():
    """A core block is a zero-filled bytearray exactly as long as its type's size."""
    block = CoreBlock(BlockType.L2)
    assert isinstance(block, bytearray)
    assert len(block) == 1055
    assert bytes(block) == bytes(1055)


def test_writes_inside_a_block_work():
    """Index and same-length slice writes inside the block change its bytes."""
    block = CoreBlock(BlockType.L0)
    block[0:5] = b"hello"
    block[-1] = 0xFF
    block[5:7] = bytearray(b"!!")
    assert bytes(block[:7]) == b"hello!!"
    assert block[126] == 0xFF


@pytest.mark.parametrize(
    "write",
    [
        lambda b: b.__setitem__(127, 1),
        lambda b: b.__setitem__(-128, 1),
        lambda b: b.__setitem__(slice(120, 130), b"x" * 10),
        lambda b: b.__setitem__(slice(0, 2), b"abc"),
        lambda b: b.__setitem__(slice(0, 3), b""),
        lambda b: b.append(1),
        lambda b: b.extend(b"ab"),
        lambda b: b.insert(0, 1),
        lambda b: b.pop(),
        lambda b: b.remove(0),
        lambda b: b.clear(),
        lambda b: b.__delitem__(0),
        lambda b: b.__iadd__(b"x"),
        lambda b: b.__imul__(2),
    ],
    ids=[
        "index-past-end",
        "negative-past-start",
        "slice-past-end",
        "slice-grows",
        "slice-shrinks",
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "del",
        "iadd",
        "imul",
    ],
)
def test_write_past_or_resize_is_system_error(write):
    """A write past the block's end or any resize is system error E0103 and changes nothing."""
    block = CoreBlock(BlockType.L0)
    with pytest.raises(TpfSystemError) as info:
        write(block)
    assert info.value.code is ErrorCode.BLOCK_OVERRUN
    assert "127-byte L0 block" in str(info.value)
    assert len(block) == 127
    assert bytes(block) == bytes(127)


def test_augmented_assignment_cannot_grow_a_block():
    """``block += data`` raises E0103 and leaves the block as it was."""
    block = CoreBlock(BlockType.L1)
    with pytest.raises(TpfSystemError) as info:
        block += b"more"
    assert info.value.code is ErrorCode.BLOCK_OVERRUN
    assert len(block) == 381


def test_write_after_release_is_system_error():
    """Writing through a stale reference to a released block is E0107."""
    block = CoreBlock(BlockType.L0)
    block.released = True
    with pytest.raises(TpfSystemError) as info:
        block[0] = 1
    assert info.value.code is ErrorCode.RELEASED_BLOCK


def test_work_area_holds_initial_bytes_and_is_fixed():
    """The work area is 104 bytes, starts with the given bytes and cannot be overrun."""
    area = WorkArea(104, b"PARM")
    assert len(area) == 104
    assert bytes(area[:6]) == b"PARM\0\0"
    with pytest.raises(TpfSystemError) as info:
        area[100:108] = b"12345678"
    assert info.value.code is ErrorCode.BLOCK_OVERRUN
    assert "EBW000-EBW103" in str(info.value)
