"""MQ structures in either byte order and either character set.

:mod:`tpfemu.mq` packs IBM's structures for MQENC_NATIVE (little-endian) and ASCII. A peer
may send them big-endian (ByteOrder 1 in its TSH, a TPF or z/OS queue manager) and with
EBCDIC characters (an EBCDIC CCSID). These two functions turn such bytes into ours and
back, field by field, from the same declared layouts: no second definition of any
structure.
"""

from __future__ import annotations

import struct
from typing import TypeVar

from tpfemu.mq.fields import Byte, Char, Digits, Nested
from tpfemu.mq.structs import MQStruct
from tpfemu.wire.fap.constants import StatusCode
from tpfemu.wire.fap.errors import FapError

__all__ = ["EBCDIC_CODEC", "from_wire", "pack_wire", "text_of", "text_to"]

S = TypeVar("S", bound=MQStruct)
#: The EBCDIC code page we read and write (CCSID 500, international).
EBCDIC_CODEC = "cp500"
_VERSION_BE = struct.Struct(">i")
_VERSION_LE = struct.Struct("<i")


def text_of(raw: bytes, ebcdic: bool) -> bytes:
    """Character bytes as ours (ASCII/Latin-1) from the wire's character set."""
    return raw.decode(EBCDIC_CODEC).encode("latin-1", "replace") if ebcdic else raw


def text_to(raw: bytes, ebcdic: bool) -> bytes:
    """Our character bytes in the wire's character set."""
    return raw.decode("latin-1").encode(EBCDIC_CODEC, "replace") if ebcdic else raw


_PLANS: dict[tuple[type[MQStruct], int], tuple[struct.Struct, struct.Struct, tuple]] = {}
_LONGEST: dict[type[MQStruct], int] = {}  #: a structure's longest version, in bytes


def _plan(cls: type[MQStruct], level: int) -> tuple[struct.Struct, struct.Struct, tuple]:
    """(little-endian layout, big-endian layout, fields) of ``cls`` at ``level``."""
    plan = _PLANS.get((cls, level))
    if plan is None:
        layout, fields = cls._layouts[level]
        plan = _PLANS[(cls, level)] = (layout, struct.Struct(">" + layout.format[1:]), fields)
    return plan


def _is_text(f: object) -> bool:
    return type(f) in (Char, Digits)


def _convert(cls: type[MQStruct], data: bytes, level: int, to_ours: bool, big: bool,
             ebcdic: bool) -> bytes:
    """``data`` (one structure at ``level``) converted between wire and ours."""
    little, bigs, fields = _plan(cls, level)
    src, dst = (bigs if big else little, little) if to_ours else (little, bigs if big else little)
    values = list(src.unpack_from(data))
    for i, f in enumerate(fields):
        if isinstance(f, Nested):
            inner = f.cls
            values[i] = _convert(inner, values[i], f.version, to_ours, big, ebcdic)
        elif ebcdic and _is_text(f) and not isinstance(f, Byte):
            values[i] = text_of(values[i], True) if to_ours else text_to(values[i], True)
    return dst.pack(*values)


def from_wire(cls: type[S], data: bytes | memoryview, *, big_endian: bool,
              ebcdic: bool = False) -> S:
    """A ``cls`` structure from wire bytes in the given byte order and character set.

    :raises FapError: the bytes are too short, not this structure, or a Version it lacks
        (status PROTOCOL_INVALID_DATA).
    """
    try:
        if not (big_endian or ebcdic):  # ours already: unpack reads the structure only
            return cls.__new__(cls).unpack(data)  # (from_bytes, one call less)
        longest = _LONGEST.get(cls)
        if longest is None:
            longest = _LONGEST[cls] = max(layout.size for layout, _ in cls._layouts.values())
        raw = bytes(memoryview(data)[:longest])  # the structure only, not what follows it
        struc_id = cls.FIELDS[0]
        found = text_of(raw[:struc_id.size], ebcdic)
        if found != struc_id.default:
            raise ValueError(f"not an {cls.STRUC_NAME}: StrucId is {found!r}")
        version_field = cls._by_name["Version"]
        if len(raw) < version_field.offset + 4:
            raise ValueError(f"{cls.STRUC_NAME} is cut short ({len(raw)} bytes)")
        order = _VERSION_BE if big_endian else _VERSION_LE
        level = cls._level_of(order.unpack_from(raw, version_field.offset)[0])
        size = cls._layouts[level][0].size
        if len(raw) < size:
            raise ValueError(f"{cls.STRUC_NAME} version {level} is {size} bytes, "
                             f"got {len(raw)}")
        raw = _convert(cls, raw[:size], level, True, big_endian, ebcdic)
        return cls.from_bytes(raw)
    except (ValueError, struct.error) as exc:
        raise FapError(f"bad {cls.STRUC_NAME}: {exc}", StatusCode.PROTOCOL_INVALID_DATA
                       ) from None


def pack_wire(obj: MQStruct, *, big_endian: bool, ebcdic: bool = False) -> bytes:
    """``obj`` packed for the wire in the given byte order and character set."""
    raw = obj.pack()
    if not (big_endian or ebcdic):
        return raw
    return _convert(type(obj), raw, obj._level(), False, big_endian, ebcdic)
