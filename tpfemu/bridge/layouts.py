"""The ROUTC bridge's byte layouts: LNIATA, AM0SG, RCPL, WGTA entry, CUIW parameters.

IBM has not published the field layouts of AM0SG, RC0PL or the WGTA (reference
channels-bridge-clusters.md §3). These are **ours**, kept here and nowhere else, and
documented in ``docs/bridge.md``; what we took from IBM is the shape: an LNIATA is 3 bytes
(line number, interchange address, terminal address), the RCPL is 12 bytes basic or 16
extended (destination 4, origin 4, control 4 or 8) and sits at EBW000, terminal messages
travel in 381-byte (L1) blocks, program names are 4 EBCDIC characters. All integers are
big-endian (as on z/Architecture); text is whatever bytes the MQ message held (no data
conversion).

AM0SG (one L1 block, 381 bytes)::

    +0  2  AM0BID  record id, X'C1D4' ("AM" in EBCDIC)
    +2  1  AM0CHK  record code check, X'00'
    +3  1  AM0CTL  control byte, X'00'
    +4  4  AM0PGM  program stamp: the program that built it, EBCDIC ("CMQB" inbound)
    +8  4  AM0FCH  forward chain: file address of an overflow block; always 0 (see below)
    +12 4  AM0BCH  backward chain: always 0
    +16 2  AM0CCT  text byte count
    +18 3  AM0LNI  LNIATA of the terminal (the bridge fills it after CUIW)
    +21 1  AM0FLG  X'80' the message came through the MQ bridge
    +22 n  AM0TXT  the text, n = AM0CCT, at most 359 bytes; the rest of the block is X'00'

Longer messages are refused, not chained: TPF chains a terminal message's overflow into
file blocks of the same size, and tpfemu has no file records to chain into (a deviation).

RCPL (16 bytes, the extended form; ROUTC also accepts the 12-byte basic form)::

    +0  4  destination: a terminal is X'00' + LNIATA; a program its 4-character EBCDIC name
    +4  4  origin: the same two forms
    +8  1  control flags: X'80' destination is a program, X'40' origin is a program,
           X'20' the message is an AM0SG, X'10' the input came through the MQ bridge
    +9  3  control, reserved: X'000000'
    +12 4  extended control, reserved: X'00000000'

WGTA entry (16 bytes, one per terminal)::

    +0  3  LNIATA
    +3  1  flags: X'80' MQ terminal (replies go back through MQ), X'40' defined by the
           operator, X'20' allocated by the default pool
    +4  4  application the terminal is routed to (COA4), EBCDIC; blanks for none
    +8  4  input messages bridged to this terminal
    +12 4  output messages (ROUTC) sent to it

CUIW parameters (EBW000-EBW103 of the bridge entry while CUIW runs)::

    EBW000 48  ReplyToQ, blank-padded, as in the MQMD          (input)
    EBW048 48  ReplyToQMgr, blank-padded                        (input)
    EBW096  3  LNIATA assigned; X'000000' for none              (output)
    EBW099  4  application name, EBCDIC; X'00' or blanks: none  (output, optional)
    EBW103  1  reserved, X'00'
"""

from __future__ import annotations

import functools
import re
import struct
from dataclasses import dataclass
from typing import NamedTuple

__all__ = [
    "AM0LNI",
    "AM0SG_ID",
    "AM0SG_HEADER_SIZE",
    "AM0SG_MAX_TEXT",
    "BLOCK_SIZE",
    "CUIW_OUT",
    "CUIW_PARAMS",
    "LayoutError",
    "Lniata",
    "Am0sg",
    "Rcpl",
    "WgtaEntry",
    "CuiwParams",
    "NO_LNIATA",
    "program_name",
]

EBCDIC = "cp037"
BLOCK_SIZE = 381  # an L1 block: the only size terminal messages use
AM0SG_ID = "AM".encode(EBCDIC)  # X'C1D4'
_AM0SG = struct.Struct(">2sBB4sIIH3sB")
AM0SG_HEADER_SIZE = _AM0SG.size  # 22
AM0SG_MAX_TEXT = BLOCK_SIZE - AM0SG_HEADER_SIZE  # 359
AM0SG_FROM_MQ = 0x80
AM0LNI = 18  # offset of the LNIATA in an AM0SG

_RCPL = struct.Struct(">4s4sB3s4s")
RCPL_BASIC_SIZE = 12
RCPL_SIZE = _RCPL.size  # 16
RCPL_DEST_PROGRAM = 0x80
RCPL_ORIGIN_PROGRAM = 0x40
RCPL_AM0SG = 0x20
RCPL_FROM_MQ = 0x10

_WGTA = struct.Struct(">3sB4sII")
WGTA_ENTRY_SIZE = _WGTA.size  # 16
WGTA_MQ = 0x80
WGTA_OPERATOR = 0x40
WGTA_POOL = 0x20

_CUIW = struct.Struct(">48s48s3s4sB")
CUIW_PARAMS = _CUIW.size  # 104
CUIW_OUT = 96  # where CUIW's results start (EBW096)

_NAME = re.compile(r"[A-Z][A-Z0-9]{3}")
_BLANK_NAME = b"\x40" * 4


class LayoutError(ValueError):
    """Bytes that are not the layout they should be; the message names the field."""


def program_name(name: str) -> str:
    """``name`` if it is a 4-character TPF program name, else LayoutError."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise LayoutError(f"program name {name!r} is not 4 characters: a letter A-Z, then "
                          "three letters or digits")
    return name


@functools.lru_cache(maxsize=1024)
def _padded(name: str) -> bytes:
    """An MQ name as the MQMD holds it: ASCII, blank-padded to 48 bytes."""
    return name.encode("ascii").ljust(48)[:48]


_ENCODED: dict[str, bytes] = {}  # program name -> its 4 EBCDIC bytes (checked once)
_DECODED: dict[bytes, str] = {}


def _name_bytes(name: str | None) -> bytes:
    if name is None:
        return _BLANK_NAME
    raw = _ENCODED.get(name)
    if raw is None:
        raw = program_name(name).encode(EBCDIC)
        if len(_ENCODED) < 4096:
            _ENCODED[name] = raw
    return raw


def _name_of(raw: bytes, field: str) -> str | None:
    name = _DECODED.get(raw)
    if name is not None:
        return name
    if raw in (_BLANK_NAME, b"\0\0\0\0"):
        return None
    try:
        name = program_name(raw.decode(EBCDIC))
    except LayoutError:
        raise LayoutError(f"{field} X'{raw.hex().upper()}' is not a program name") from None
    if len(_DECODED) < 4096:
        _DECODED[raw] = name
    return name


class Lniata(bytes):
    """A terminal address: line number, interchange address, terminal address (3 bytes).

    Written and shown as 6 hexadecimal digits (``Lniata.parse("0A0102")``, ``str()``).
    """

    def __new__(cls, raw: bytes | bytearray) -> Lniata:
        if len(raw) != 3:
            raise LayoutError(f"an LNIATA is 3 bytes, not {len(raw)}")
        return super().__new__(cls, raw)

    @classmethod
    def parse(cls, text: str) -> Lniata:
        """``"0A0102"`` -> Lniata; LayoutError unless exactly 6 hexadecimal digits."""
        if not isinstance(text, str) or not re.fullmatch(r"[0-9A-Fa-f]{6}", text):
            raise LayoutError(f"LNIATA {text!r} is not 6 hexadecimal digits")
        return cls(bytes.fromhex(text))

    @property
    def line(self) -> int:
        """The line number (LN)."""
        return self[0]

    @property
    def interchange(self) -> int:
        """The interchange address (IA)."""
        return self[1]

    @property
    def terminal(self) -> int:
        """The terminal address (TA)."""
        return self[2]

    def __str__(self) -> str:
        return self.hex().upper()

    def __repr__(self) -> str:
        return f"Lniata({str(self)!r})"


NO_LNIATA = Lniata(b"\0\0\0")
_LNIATAS: dict[bytes, Lniata] = {}  # 3 raw bytes -> the Lniata (read once)
_CACHE_LIMIT = 4096  # entries per read-once cache below (past it: read every time)


def _lniata_of(raw: bytes) -> Lniata:
    """The Lniata of 3 raw bytes (each distinct value is built once)."""
    found = _LNIATAS.get(raw)
    if found is None:
        found = Lniata(raw)
        if len(_LNIATAS) < _CACHE_LIMIT:
            _LNIATAS[bytes(raw)] = found
    return found


class Am0sg(NamedTuple):
    """An AM0SG: the text of one message and the terminal it belongs to."""

    text: bytes
    lniata: Lniata = NO_LNIATA
    from_mq: bool = False
    program: str | None = None  # the program stamp

    def pack(self) -> bytes:
        """The whole 381-byte block. :raises LayoutError: text longer than 359 bytes."""
        text, lniata = self.text, self.lniata
        size = len(text)
        if size > AM0SG_MAX_TEXT:
            raise LayoutError(f"AM0SG text of {size} bytes does not fit one "
                              f"{BLOCK_SIZE}-byte block (at most {AM0SG_MAX_TEXT})")
        key = (self.program, lniata, self.from_mq, size)
        cacheable = type(lniata) is Lniata
        head = _AM0SG_PACKED.get(key) if cacheable else None
        if head is None:
            head = _AM0SG.pack(AM0SG_ID, 0, 0, _name_bytes(self.program), 0, 0, size,
                               lniata, AM0SG_FROM_MQ if self.from_mq else 0)
            if cacheable and len(_AM0SG_PACKED) < _CACHE_LIMIT:
                _AM0SG_PACKED[key] = head
        return head + text + _FILL[size]

    @classmethod
    def unpack(cls, block: bytes | bytearray | memoryview) -> Am0sg:
        """Read an AM0SG from a block. :raises LayoutError: naming the bad field."""
        data = memoryview(block)
        size = len(data)
        if size < AM0SG_HEADER_SIZE:
            raise LayoutError(f"a block of {size} bytes is shorter than an AM0SG header")
        count, rest = _am0sg_head(data, size)
        return _new_tuple(cls, (bytes(data[AM0SG_HEADER_SIZE:AM0SG_HEADER_SIZE + count]),)
                          + rest)

    @staticmethod
    def text_of(block: bytes | bytearray | memoryview) -> bytes:
        """The text of the AM0SG in ``block``, read and checked as :meth:`unpack` reads it.

        :raises LayoutError: naming the bad field."""
        data = memoryview(block)
        size = len(data)
        if size < AM0SG_HEADER_SIZE:
            raise LayoutError(f"a block of {size} bytes is shorter than an AM0SG header")
        count = _am0sg_head(data, size)[0]
        return bytes(data[AM0SG_HEADER_SIZE:AM0SG_HEADER_SIZE + count])


_new_tuple = tuple.__new__  # a named tuple made without its generated __new__ (a call less)


def _am0sg_head(data: memoryview, size: int) -> tuple[int, tuple[Lniata, bool, str | None]]:
    """The text count of the AM0SG header at the start of ``data`` (a ``size``-byte
    block, at least a header long) and its other fields: LNIATA, MQ flag, program stamp.

    :raises LayoutError: naming the bad field."""
    head = bytes(data[:AM0SG_HEADER_SIZE])
    found = _AM0SG_READ.get(head)
    if found is None:
        bid, _chk, _ctl, pgm, fch, _bch, count, lni, flags = _AM0SG.unpack(head)
        if bid != AM0SG_ID:
            raise LayoutError(f"AM0BID is X'{bid.hex().upper()}', not X'C1D4' (AM)")
        if fch:
            raise LayoutError("AM0FCH names an overflow block: chained messages are not "
                              "supported")
        found = (count, (_lniata_of(lni), bool(flags & AM0SG_FROM_MQ),
                         _name_of(pgm, "AM0PGM")))
        if len(_AM0SG_READ) < _CACHE_LIMIT:
            _AM0SG_READ[head] = found
    if found[0] > size - AM0SG_HEADER_SIZE:
        raise LayoutError(f"AM0CCT {found[0]} is more than the {size}-byte block holds")
    return found


#: Read-once caches of AM0SG headers: (program, LNIATA, MQ flag, count) -> the 22 bytes,
#: and the 22 bytes -> what they say; the X'00' fill after a text of each length.
_AM0SG_PACKED: dict[tuple[str | None, Lniata, bool, int], bytes] = {}
_AM0SG_READ: dict[bytes, tuple[int, tuple[Lniata, bool, str | None]]] = {}
_FILL = tuple(bytes(AM0SG_MAX_TEXT - n) for n in range(AM0SG_MAX_TEXT + 1))


Address = Lniata | str  # a terminal or a program


def _address(value: Address, field: str) -> tuple[bytes, bool]:
    if isinstance(value, Lniata):
        return b"\0" + value, False
    return _name_bytes(value), True


_ADDRESSES: dict[bytes, Address] = {}  # RCPL address bytes + flag -> address (read once)


def _address_of(raw: bytes, is_program: bool, field: str) -> Address:
    key = raw + (b"P" if is_program else b"T")
    found = _ADDRESSES.get(key)
    if found is None:
        found = _read_address(raw, is_program, field)
        if len(_ADDRESSES) < 65536:
            _ADDRESSES[key] = found
    return found


def _read_address(raw: bytes, is_program: bool, field: str) -> Address:
    if is_program:
        name = _name_of(raw, field)
        if name is None:
            raise LayoutError(f"RCPL {field} is flagged a program but holds no name")
        return name
    if raw[0] != 0:
        raise LayoutError(f"RCPL {field} X'{raw.hex().upper()}' is flagged a terminal but "
                          "does not start X'00'")
    return _lniata_of(raw[1:])


@functools.lru_cache(maxsize=4096)
def _rcpl_bytes(destination: Address, origin: Address, am0sg: bool, from_mq: bool) -> bytes:
    """An RCPL's 16 bytes (the same few routes recur: each is packed once)."""
    des, des_pgm = _address(destination, "destination")
    org, org_pgm = _address(origin, "origin")
    flags = ((RCPL_DEST_PROGRAM if des_pgm else 0) | (RCPL_ORIGIN_PROGRAM if org_pgm else 0)
             | (RCPL_AM0SG if am0sg else 0) | (RCPL_FROM_MQ if from_mq else 0))
    return _RCPL.pack(des, org, flags, bytes(3), bytes(4))


_RCPLS: dict[bytes, Rcpl] = {}  # the first 16 (or 12) bytes -> the Rcpl (read once)


class Rcpl(NamedTuple):
    """A routing control parameter list: where a message goes, where it came from."""

    destination: Address
    origin: Address
    am0sg: bool = True
    from_mq: bool = False

    def pack(self) -> bytes:
        """The 16-byte extended form."""
        return _rcpl_bytes(*self)

    def __bytes__(self) -> bytes:
        """The 16-byte extended form (so ``bytes(rcpl)`` and ``ecb.routc(rcpl, ...)`` work)."""
        return self.pack()

    @classmethod
    def unpack(cls, raw: bytes | bytearray | memoryview) -> Rcpl:
        """Read the basic (12-byte) or extended (16-byte or longer) form.

        :raises LayoutError: too short, or an address that contradicts its flag.
        """
        data = bytes(raw[:RCPL_SIZE])
        found = _RCPLS.get(data)
        if found is not None:
            return found
        if len(data) < RCPL_BASIC_SIZE:
            raise LayoutError(f"an RCPL is at least {RCPL_BASIC_SIZE} bytes, not {len(data)}")
        des, org, flags, _ctl, _ext = _RCPL.unpack(data.ljust(RCPL_SIZE, b"\0"))
        found = cls(_address_of(des, bool(flags & RCPL_DEST_PROGRAM), "destination"),
                    _address_of(org, bool(flags & RCPL_ORIGIN_PROGRAM), "origin"),
                    bool(flags & RCPL_AM0SG), bool(flags & RCPL_FROM_MQ))
        if len(_RCPLS) < _CACHE_LIMIT:
            _RCPLS[data] = found
        return found

    def reply(self) -> Rcpl:
        """The RCPL of an answer: back to the origin (an AM0SG, from this destination)."""
        return _new_tuple(Rcpl, (self.origin, self.destination, True, False))

    @staticmethod
    def packed(destination: Address, origin: Address, am0sg: bool = True,
               from_mq: bool = False) -> bytes:
        """``Rcpl(destination, origin, am0sg, from_mq).pack()``, without the tuple."""
        return _rcpl_bytes(destination, origin, am0sg, from_mq)


@dataclass(frozen=True, slots=True)
class WgtaEntry:
    """One terminal's entry in the terminal address table (WGTA)."""

    lniata: Lniata
    application: str | None = None
    mq: bool = False
    operator: bool = False
    pool: bool = False
    inputs: int = 0
    outputs: int = 0

    def pack(self) -> bytes:
        """The 16-byte entry."""
        flags = ((WGTA_MQ if self.mq else 0) | (WGTA_OPERATOR if self.operator else 0)
                 | (WGTA_POOL if self.pool else 0))
        return _WGTA.pack(self.lniata, flags, _name_bytes(self.application),
                          self.inputs & 0xFFFFFFFF, self.outputs & 0xFFFFFFFF)

    @classmethod
    def unpack(cls, raw: bytes) -> WgtaEntry:
        """Read a 16-byte entry. :raises LayoutError: wrong size or a bad name."""
        if len(raw) != WGTA_ENTRY_SIZE:
            raise LayoutError(f"a WGTA entry is {WGTA_ENTRY_SIZE} bytes, not {len(raw)}")
        lni, flags, app, inputs, outputs = _WGTA.unpack(raw)
        return cls(Lniata(lni), _name_of(app, "WGTA application"), bool(flags & WGTA_MQ),
                   bool(flags & WGTA_OPERATOR), bool(flags & WGTA_POOL), inputs, outputs)


class CuiwParams(NamedTuple):
    """CUIW's parameter area at EBW000: ReplyToQ and ReplyToQMgr in, LNIATA (and
    optionally an application) out."""

    reply_to_q: str
    reply_to_qmgr: str
    lniata: Lniata = NO_LNIATA
    application: str | None = None

    def results(self) -> bytes:
        """EBW096-EBW103 alone: what CUIW writes back."""
        key = (self.lniata, self.application)
        cacheable = type(self.lniata) is not bytearray  # (a bytearray does not hash)
        found = _CUIW_RESULTS.get(key) if cacheable else None
        if found is None:
            app = b"\0\0\0\0" if self.application is None else _name_bytes(self.application)
            found = bytes(self.lniata) + app + b"\0"
            if cacheable and len(_CUIW_RESULTS) < _CACHE_LIMIT:
                _CUIW_RESULTS[key] = found
        return found

    def pack(self) -> bytes:
        """The 104 bytes (names blank-padded ASCII, as the MQMD holds them)."""
        cacheable = type(self.lniata) is not bytearray  # (a bytearray does not hash)
        found = _CUIW_PACKED.get(self) if cacheable else None
        if found is None:
            app = b"\0\0\0\0" if self.application is None else _name_bytes(self.application)
            found = _CUIW.pack(_padded(self.reply_to_q), _padded(self.reply_to_qmgr),
                               self.lniata, app, 0)
            if cacheable and len(_CUIW_PACKED) < _CACHE_LIMIT:
                _CUIW_PACKED[self] = found
        return found

    @staticmethod
    def results_of(raw: bytes | bytearray | memoryview) -> tuple[Lniata, str | None]:
        """Only what CUIW wrote back (EBW096-EBW102): the LNIATA and the application.

        :raises LayoutError: a bad application name.
        """
        out = bytes(raw[CUIW_OUT:CUIW_PARAMS - 1])
        found = _CUIW_RESULTS_READ.get(out)
        if found is None:
            found = _lniata_of(out[0:3]), _name_of(out[3:7], "CUIW application (EBW099)")
            if len(_CUIW_RESULTS_READ) < _CACHE_LIMIT:
                _CUIW_RESULTS_READ[out] = found
        return found

    @classmethod
    def unpack(cls, raw: bytes | bytearray | memoryview) -> CuiwParams:
        """Read the area back. :raises LayoutError: a bad application name."""
        data = bytes(raw[:CUIW_PARAMS])
        found = _CUIW_READ.get(data)
        if found is not None:
            return found
        q, qmgr, lni, app, _ = _CUIW.unpack(data)
        found = cls(q.decode("ascii", "replace").rstrip(" \0"),
                    qmgr.decode("ascii", "replace").rstrip(" \0"), _lniata_of(lni),
                    _name_of(app, "CUIW application (EBW099)"))
        if len(_CUIW_READ) < _CACHE_LIMIT:
            _CUIW_READ[data] = found
        return found


#: Read-once caches of the CUIW area: its values -> the 104 bytes, and back; CUIW's
#: results (LNIATA, application) -> EBW096-EBW103, and EBW096-EBW102 -> them.
_CUIW_PACKED: dict[CuiwParams, bytes] = {}
_CUIW_READ: dict[bytes, CuiwParams] = {}
_CUIW_RESULTS: dict[tuple[Lniata, str | None], bytes] = {}
_CUIW_RESULTS_READ: dict[bytes, tuple[Lniata, str | None]] = {}
