"""Working-storage accounting: blocks of each size in use, against a limit per size.

On TPF, working storage is a fixed pool of frames carved into L0-L4 blocks, and a program
that gets blocks in a loop drains it. Here every core block an ECB holds (on a data level,
detached, or travelling to a new entry with CREEC) is counted against a configurable limit
for its size, so a runaway program gets a clear system error (E0105 STORAGE_LIMIT) instead
of exhausting the process's memory.

**Shortage.** Storage is *short* while the blocks in use of any size exceed
``short_fraction`` of that size's limit (default 0.75, i.e. 75 %). CREXC (low-priority
create) is refused while storage is short, as TPF holds back low-priority work when blocks
run low.

The counters are exact under concurrency: every change is made under one lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

from ecb.blocks import CoreBlock
from ecb.errors import ErrorCode, TpfSystemError
from ecb.levels import BlockType

__all__ = ["DEFAULT_LIMITS", "DEFAULT_SHORT_FRACTION", "Storage"]

DEFAULT_LIMITS: Mapping[BlockType, int] = {
    BlockType.L0: 16384,
    BlockType.L1: 16384,
    BlockType.L2: 8192,
    BlockType.L4: 4096,
}
"""Default limit of blocks in use per size (about 32 MB of storage if all are used)."""

DEFAULT_SHORT_FRACTION = 0.75
"""Fraction of a size's limit above which storage counts as short (CREXC is refused)."""

_TYPES = (BlockType.L0, BlockType.L1, BlockType.L2, BlockType.L4)


class Storage:
    """Counts core blocks in use per size and enforces a limit per size.

    :param limits: the most blocks of each size that may be in use at once; sizes left out
        keep :data:`DEFAULT_LIMITS`.
    :param short_fraction: storage is short while any size has more than this fraction of
        its limit in use (0 < fraction <= 1).

    Thread-safe: any thread may allocate and release.
    """

    def __init__(
        self,
        limits: Mapping[BlockType, int] | None = None,
        *,
        short_fraction: float = DEFAULT_SHORT_FRACTION,
    ) -> None:
        merged = dict(DEFAULT_LIMITS)
        for block_type, limit in (limits or {}).items():
            block_type = BlockType(block_type)
            if block_type is BlockType.NONE:
                raise ValueError("limits: X'0001' (no block) is not a block size")
            if limit < 0:
                raise ValueError(f"limits: {block_type.name} limit must be >= 0, not {limit}")
            merged[block_type] = int(limit)
        if not 0.0 < short_fraction <= 1.0:
            raise ValueError(f"short_fraction must be in (0, 1], not {short_fraction}")
        self._limits = merged
        self._short_at = {t: int(merged[t] * short_fraction) for t in _TYPES}
        self.short_fraction = short_fraction
        self._in_use = dict.fromkeys(_TYPES, 0)
        self._high_water = dict.fromkeys(_TYPES, 0)
        self._lock = threading.Lock()

    # -- allocation -------------------------------------------------------------------------

    def allocate(self, block_type: BlockType, *, macro: str = "GETCC") -> CoreBlock:
        """Return a new zero-filled block of ``block_type`` and count it in use.

        :raises TpfSystemError: E0104 for ``NONE`` or an unknown type; E0105 if the limit for
            that size is reached.
        """
        if block_type not in self._in_use:
            raise TpfSystemError(
                ErrorCode.BAD_BLOCK_SIZE, macro, f"{block_type!r} is not a block type"
            )
        with self._lock:
            used = self._in_use[block_type]
            if used >= self._limits[block_type]:
                raise TpfSystemError(
                    ErrorCode.STORAGE_LIMIT,
                    macro,
                    f"all {self._limits[block_type]} {block_type.name} blocks are in use",
                )
            used += 1
            self._in_use[block_type] = used
            if used > self._high_water[block_type]:
                self._high_water[block_type] = used
        return CoreBlock(block_type)

    def release(self, block: CoreBlock) -> None:
        """Return ``block`` to the pool; later writes through it raise E0107."""
        self.release_many((block,))

    def release_many(self, blocks: Iterable[CoreBlock]) -> None:
        """Return several blocks to the pool under one lock acquisition."""
        with self._lock:
            for block in blocks:
                if block.released:
                    raise TpfSystemError(
                        ErrorCode.RELEASED_BLOCK, "RELCC", f"double release of {block!r}"
                    )
                block.released = True
                self._in_use[block.block_type] -= 1

    # -- inquiry ----------------------------------------------------------------------------

    def in_use(self, block_type: BlockType) -> int:
        """Blocks of ``block_type`` in use now."""
        return self._in_use[block_type]

    def limit(self, block_type: BlockType) -> int:
        """The limit of blocks of ``block_type`` in use at once."""
        return self._limits[block_type]

    def high_water(self, block_type: BlockType) -> int:
        """The most blocks of ``block_type`` ever in use at once."""
        return self._high_water[block_type]

    def usage(self) -> dict[BlockType, int]:
        """A consistent snapshot of blocks in use per size."""
        with self._lock:
            return dict(self._in_use)

    def short_types(self) -> list[BlockType]:
        """The sizes whose use is above the shortage threshold."""
        with self._lock:
            return [t for t in _TYPES if self._in_use[t] > self._short_at[t]]

    def is_short(self) -> bool:
        """True while any size is above ``short_fraction`` of its limit (CREXC refused)."""
        in_use, short_at = self._in_use, self._short_at
        return any(in_use[t] > short_at[t] for t in _TYPES)

    def __repr__(self) -> str:
        parts = ", ".join(f"{t.name} {self._in_use[t]}/{self._limits[t]}" for t in _TYPES)
        return f"<Storage {parts}>"
