"""Data levels, core block types and sizes, and the fixed sizes of an ECB.

An ECB has 16 data levels, D0-DF. Each level pairs a core block reference word (CBRW: the
held block, its type and its byte count) with a file address reference word (FARW). The
block type in the CBRW is the only thing that says whether a level is in use: X'0001' means
no block is held; the other types are the four working-storage sizes (z/TPF):

======  ========  =====
Type    Name      Bytes
======  ========  =====
X'0011' L0          127
X'0021' L1          381
X'0031' L2         1055
X'0051' L4         4095
======  ========  =====

(TPF 4.1 documents L0 as 128 bytes in places; we follow the z/TPF CBRW page: 127.)
"""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = [
    "BLOCK_SIZES",
    "MAX_BLOCK_SIZE",
    "MAX_PARAMS",
    "CRETC_PARAMS",
    "NUM_LEVELS",
    "WORK_AREA_SIZE",
    "BlockType",
    "Cbrw",
    "Farw",
    "Level",
]

NUM_LEVELS = 16
"""Number of ECB data levels (D0-DF)."""

WORK_AREA_SIZE = 104
"""Size of the application work area EBW000-EBW103."""

MAX_PARAMS = 104
"""Most bytes of create-macro parameters copied to EBW000 of a new ECB."""

CRETC_PARAMS = 4
"""CRETC passes one 4-byte action word (to EBW000-EBW003), not a parameter area."""


class Level(enum.IntEnum):
    """An ECB data level, D0-DF (the C ``enum t_lvl``)."""

    D0 = 0x0
    D1 = 0x1
    D2 = 0x2
    D3 = 0x3
    D4 = 0x4
    D5 = 0x5
    D6 = 0x6
    D7 = 0x7
    D8 = 0x8
    D9 = 0x9
    DA = 0xA
    DB = 0xB
    DC = 0xC
    DD = 0xD
    DE = 0xE
    DF = 0xF

    def __str__(self) -> str:
        return self.name


class BlockType(enum.IntEnum):
    """A CBRW block type (CE1CTx). ``NONE`` (X'0001') means the level holds no block."""

    NONE = 0x0001
    L0 = 0x0011
    L1 = 0x0021
    L2 = 0x0031
    L4 = 0x0051

    @property
    def size(self) -> int:
        """Bytes in a block of this type (0 for ``NONE``)."""
        return BLOCK_SIZES[self]

    @classmethod
    def for_size(cls, nbytes: int) -> BlockType | None:
        """Return the smallest block type holding ``nbytes`` bytes, or None if none does."""
        for block_type in _BY_SIZE:
            if nbytes <= BLOCK_SIZES[block_type]:
                return block_type
        return None

    def __str__(self) -> str:
        return self.name


BLOCK_SIZES: dict[BlockType, int] = {
    BlockType.NONE: 0,
    BlockType.L0: 127,
    BlockType.L1: 381,
    BlockType.L2: 1055,
    BlockType.L4: 4095,
}
"""Bytes per block type."""

_BY_SIZE = (BlockType.L0, BlockType.L1, BlockType.L2, BlockType.L4)

MAX_BLOCK_SIZE = BLOCK_SIZES[BlockType.L4]
"""The largest core block: 4095 bytes (L4)."""


class Cbrw(NamedTuple):
    """A snapshot of one core block reference word: block type and byte count.

    For a level with no block, ``block_type`` is ``BlockType.NONE`` and ``count`` is 0
    (TPF leaves the count stale; we clear it).
    """

    block_type: BlockType
    count: int  # type: ignore[assignment]  # the field shadows tuple.count, as TPF names it


class Farw(NamedTuple):
    """A snapshot of one file address reference word.

    :ivar record_id: the 2-byte record ID the program expects (RID).
    :ivar rcc: the record code check byte.
    :ivar file_address: the file address (FARF3-6 or 4x4; an 8-byte value here).
    """

    record_id: int = 0
    rcc: int = 0
    file_address: int = 0
