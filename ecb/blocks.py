"""Fixed-size byte areas: core blocks and the ECB work area.

A :class:`CoreBlock` is a ``bytearray`` of exactly the size of its block type. Programs read
and write it like any bytearray, but it can never change size: a write that reaches past its
end, or any operation that would grow or shrink it (``append``, ``extend``, ``+=``, slice
assignment of a different length, ``del``), raises a :class:`~ecb.errors.TpfSystemError`
(E0103 BLOCK_OVERRUN), as a storage overrun would on TPF. After the block is released
(RELCC, CRUSA, EXITC), writes through a stale reference raise E0107 RELEASED_BLOCK.

Writes through a ``memoryview`` of the block bypass these checks; they still cannot resize
it (Python raises ``ValueError``/``IndexError`` instead of a system error).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, Self, SupportsIndex

from ecb.errors import ErrorCode, TpfSystemError
from ecb.levels import BlockType

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

__all__ = ["CoreBlock", "WorkArea"]


class _FixedArea(bytearray):
    """A bytearray whose size is fixed; the base of CoreBlock and WorkArea."""

    __slots__ = ("released",)

    released: bool  # set by the storage that owns the block

    def _what(self) -> str:  # pragma: no cover - overridden
        return f"{len(self)}-byte area"

    def _overrun(self, detail: str) -> TpfSystemError:
        return TpfSystemError(ErrorCode.BLOCK_OVERRUN, "STORE", f"{detail} of the {self._what()}")

    def _check_live(self) -> None:
        if self.released:
            raise TpfSystemError(
                ErrorCode.RELEASED_BLOCK, "STORE", f"write to the {self._what()} after release"
            )

    def __setitem__(self, key: SupportsIndex | slice, value: Any) -> None:
        if self.released:
            self._check_live()
        size = len(self)
        if isinstance(key, slice):
            start, stop, step = key.indices(size)
            span = len(range(start, stop, step))
            if isinstance(value, int):
                raise TypeError("can assign only bytes, buffers, or iterables of ints")
            try:
                nbytes = memoryview(value).nbytes
            except TypeError:
                value = bytes(value)
                nbytes = len(value)
            if nbytes != span:
                raise self._overrun(
                    f"write of {nbytes} bytes at offset {start} into a {span}-byte slice"
                    " would resize or run past the end"
                )
        else:
            index = key.__index__()
            if not -size <= index < size:
                raise self._overrun(f"write at offset {index} past the end")
        super().__setitem__(key, value)

    def _resize(self, op: str) -> TpfSystemError:
        return self._overrun(f"{op} would change the size")

    def __delitem__(self, key: SupportsIndex | slice) -> NoReturn:
        raise self._resize("del")

    def __iadd__(self, other: ReadableBuffer) -> Self:  # type: ignore[override]  # as bytearray
        raise self._resize("+=")

    def __imul__(self, other: SupportsIndex) -> Self:
        raise self._resize("*=")

    def append(self, item: SupportsIndex) -> None:
        """Refused: a fixed-size area cannot grow (E0103)."""
        raise self._resize("append")

    def extend(self, iterable: Any) -> NoReturn:
        """Refused: a fixed-size area cannot grow (E0103)."""
        raise self._resize("extend")

    def insert(self, index: SupportsIndex, item: SupportsIndex) -> None:
        """Refused: a fixed-size area cannot grow (E0103)."""
        raise self._resize("insert")

    def pop(self, index: SupportsIndex = -1) -> int:
        """Refused: a fixed-size area cannot shrink (E0103)."""
        raise self._resize("pop")

    def remove(self, value: int) -> None:
        """Refused: a fixed-size area cannot shrink (E0103)."""
        raise self._resize("remove")

    def clear(self) -> None:
        """Refused: a fixed-size area cannot shrink (E0103)."""
        raise self._resize("clear")


class CoreBlock(_FixedArea):
    """A working-storage core block of one of the sizes L0, L1, L2 or L4.

    Blocks are created by :class:`~ecb.storage.Storage` (GETCC, CREEC); programs never
    construct them. ``block_type`` is the CBRW type (X'0011' ...) and ``len(block)`` the byte
    count.
    """

    __slots__ = ("block_type",)

    def __init__(self, block_type: BlockType) -> None:
        super().__init__(block_type.size)
        self.block_type = block_type
        self.released = False

    def _what(self) -> str:
        return f"{len(self)}-byte {self.block_type.name} block"

    def __repr__(self) -> str:
        state = " released" if self.released else ""
        return f"<CoreBlock {self.block_type.name} {len(self)} bytes{state}>"


class WorkArea(_FixedArea):
    """The ECB application work area EBW000-EBW103 (104 bytes)."""

    __slots__ = ()

    def __init__(self, size: int, initial: bytes = b"") -> None:
        super().__init__(size)
        self.released = False
        if initial:
            bytearray.__setitem__(self, slice(0, len(initial)), initial)

    def _what(self) -> str:
        return f"{len(self)}-byte work area EBW000-EBW{len(self) - 1:03d}"

    def __repr__(self) -> str:
        return f"<WorkArea {len(self)} bytes>"
