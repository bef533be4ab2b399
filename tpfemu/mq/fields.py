"""The kinds of field an MQ structure is made of (:mod:`tpfemu.mq.structs` declares each
structure as a tuple of them): how each kind checks a value when it is assigned, packs it
into IBM's bytes and reads it back. Integers are MQLONG (4 bytes) or MQINT64; character
fields are blank-padded, byte fields NUL-padded; a nested structure packs at a fixed
version.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from tpfemu.mq.structs import MQStruct

__all__ = ["Buffer", "Byte", "Char", "Code", "Digits", "Field", "Int64", "Long", "Longs",
           "Nested"]

Buffer: TypeAlias = bytes | bytearray | memoryview  # collections.abc.Buffer from Python 3.12


# -- field kinds --------------------------------------------------------------------------


class Field:
    """One member of an MQ structure: its name, struct format, initial value, first version."""

    __slots__ = ("name", "fmt", "default", "since", "offset")

    def __init__(self, name: str, fmt: str, default: Any, since: int) -> None:
        self.name = name
        self.fmt = fmt
        self.default = default
        self.since = since
        self.offset = -1  # set when the structure class is built

    @property
    def size(self) -> int:
        """Bytes the field takes."""
        return struct.calcsize("<" + self.fmt)

    def initial(self) -> Any:
        """The IBM initial value (a fresh object for nested structures)."""
        return self.default

    def check(self, owner: str, value: Any) -> Any:
        """Validate a value being assigned; return what the structure stores."""
        raise NotImplementedError

    def packable(self, owner: str, value: Any) -> Any:
        """The stored value as :mod:`struct` packs it."""
        return value

    def unpacked(self, raw: Any) -> Any:
        """The stored value for what :mod:`struct` unpacked."""
        return raw

    def key(self, value: Any) -> Any:
        """The value as it would be packed, for equality."""
        return self.packable("", value)

    def show(self, value: Any) -> Any:
        """The shortest value equal to this one, for repr."""
        return value

    def copy_value(self, value: Any) -> Any:
        """A copy of a stored value that shares nothing mutable."""
        return value


class Long(Field):
    """MQLONG: a 32-bit integer. Unsigned spellings of masks (0x80000000 ...) are accepted."""

    __slots__ = ()
    bits = 32

    def __init__(self, name: str, default: int = 0, since: int = 1) -> None:
        super().__init__(name, "q" if self.bits == 64 else "i", default, since)

    def check(self, owner: str, value: Any) -> int:
        if not isinstance(value, int):
            index = getattr(type(value), "__index__", None)  # an int-like (an object handle)
            if index is None:
                raise TypeError(
                    f"{owner}.{self.name} must be an int, not {type(value).__name__}")
            value = index(value)
        if not -(1 << (self.bits - 1)) <= value < (1 << self.bits):
            raise ValueError(f"{owner}.{self.name} = {value} does not fit in {self.bits} bits")
        return int(value)

    def packable(self, owner: str, value: int) -> int:
        return value - (1 << self.bits) if value >= 1 << (self.bits - 1) else value


class Int64(Long):
    """MQINT64 / MQHMSG: a 64-bit integer (message handles)."""

    __slots__ = ()
    bits = 64


class Char(Field):
    """MQCHARn: fixed-length characters, blank-padded; accepts bytes or ASCII str."""

    __slots__ = ("length",)
    pad = b" "

    def __init__(self, name: str, length: int, default: bytes = b"", since: int = 1) -> None:
        self.length = length
        super().__init__(name, f"{length}s", b"", since)
        self.default = self.packable("", self.check("(initial value)", default))

    def check(self, owner: str, value: Any) -> bytes:
        if isinstance(value, str):
            try:
                data = value.encode("ascii")
            except UnicodeEncodeError:
                raise ValueError(
                    f"{owner}.{self.name} takes ASCII text (pass bytes for any other "
                    f"encoding): {value!r}"
                ) from None
        elif isinstance(value, bytes | bytearray | memoryview):
            data = bytes(value)
        else:
            raise TypeError(
                f"{owner}.{self.name} must be bytes or str, not {type(value).__name__}"
            )
        if len(data) > self.length:
            raise ValueError(
                f"{owner}.{self.name} is {len(data)} bytes long; the field holds {self.length}"
            )
        return data

    def packable(self, owner: str, value: bytes) -> bytes:
        if type(value) is str:  # after to_string()
            value = self.check(owner, value)
        return value.ljust(self.length, self.pad)

    def show(self, value: bytes) -> bytes:
        return value.rstrip(self.pad)


class Byte(Char):
    """MQBYTEn: fixed-length binary (identifiers, tokens), NUL-padded."""

    __slots__ = ()
    pad = b"\0"


class Digits(Char):
    """MQCHARn holding a number as right-justified digits (MQTMC2's Version ``b"   2"``)."""

    __slots__ = ()

    def check(self, owner: str, value: Any) -> bytes:
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value).rjust(self.length)
        return super().check(owner, value)


class Code(Field):
    """MQCHAR holding a one-character code, kept as an int as pymqi does (MQGS_*, MQSS_*)."""

    __slots__ = ()

    def __init__(self, name: str, default: int, since: int = 1) -> None:
        super().__init__(name, "B", default, since)

    def check(self, owner: str, value: Any) -> int:
        if isinstance(value, str | bytes) and len(value) == 1:
            value = ord(value)
        if not isinstance(value, int) or not 0 <= value <= 255:
            raise ValueError(f"{owner}.{self.name} must be one character or 0..255: {value!r}")
        return int(value)


class Longs(Field):
    """MQLONG[n]: a fixed array of 32-bit integers (the MQCD's compression lists), kept as a
    tuple; a list or tuple of exactly ``count`` ints is accepted."""

    __slots__ = ("count",)

    def __init__(self, name: str, count: int, default: tuple[int, ...], since: int = 1) -> None:
        super().__init__(name, f"{4 * count}s", tuple(default), since)
        self.count = count

    def check(self, owner: str, value: Any) -> tuple[int, ...]:
        if not isinstance(value, list | tuple) or len(value) != self.count or not all(
                isinstance(v, int) and -(1 << 31) <= v < (1 << 32) for v in value):
            raise ValueError(f"{owner}.{self.name} takes {self.count} MQLONG ints: {value!r}")
        return tuple(value)

    def packable(self, owner: str, value: tuple[int, ...]) -> bytes:
        return struct.pack(f"<{self.count}i", *(v - (1 << 32) if v >= 1 << 31 else v
                                                 for v in value))

    def unpacked(self, raw: bytes) -> tuple[int, ...]:
        return struct.unpack(f"<{self.count}i", raw)


class Nested(Field):
    """A structure embedded at a fixed version (MQXQH's MsgDesc is an MQMD version 1)."""

    __slots__ = ("cls", "version")

    def __init__(self, name: str, cls: type[MQStruct], version: int, since: int = 1) -> None:
        super().__init__(name, f"{cls._layouts[version][0].size}s", None, since)
        self.cls = cls
        self.version = version

    def initial(self) -> MQStruct:
        return self.cls()

    def check(self, owner: str, value: Any) -> MQStruct:
        if not isinstance(value, self.cls):
            raise TypeError(
                f"{owner}.{self.name} must be a {self.cls.__name__}, not {type(value).__name__}"
            )
        return value

    def packable(self, owner: str, value: MQStruct) -> bytes:
        if value._level() != self.version:
            raise ValueError(
                f"{owner}.{self.name} must be a version-{self.version} {value.STRUC_NAME}, "
                f"not version {value._level()}"
            )
        return value.pack()

    def unpacked(self, raw: bytes) -> MQStruct:
        return self.cls().unpack(raw)

    def key(self, value: MQStruct) -> tuple:
        return value._key()

    def copy_value(self, value: MQStruct) -> MQStruct:
        return value.copy()
