"""The MQI's structures as Python objects: pymqi's shapes, IBM's defaults, IBM's bytes.

Each structure is declared once as a tuple of fields (name, C type, IBM initial value, first
version that has it) and gets pymqi's interface from :class:`MQStruct`::

    md = MD(Priority=5, Format=CMQC.MQFMT_STRING)   # keywords, IBM's defaults for the rest
    md.ReplyToQ = "APP.REPLY"                         # str (ASCII) or bytes
    md["Persistence"] = CMQC.MQPER_PERSISTENT         # item access, as pymqi
    raw = md.pack()                                   # 324 bytes: an MQMD version 1
    assert MD().unpack(raw) == md

Layout rules (IBM's, for MQENC_NATIVE 0x222 on x86-64):

* integers (MQLONG) are 4 bytes, little-endian; MQINT64/MQHMSG are 8 bytes;
* character fields (MQCHARn) are fixed length and padded with blanks, IBM's initial value
  outside C; binary fields (MQBYTEn: MsgId, CorrelId, AccountingToken, ...) are padded with
  NULs (MQMI_NONE and friends);
* a structure packs only the fields of its ``Version`` (MQMD 1 = 324 bytes, 2 = 364); fields
  of later versions keep their values but are not sent, as IBM ignores them;
* pointers (MQPTR) take 4 bytes, the wire layout: MQOD is 168/200/336/400 bytes and MQPMO
  128/152/176 (a 64-bit C program pads these two differently).

Values are checked when assigned, so a bad value fails where it is written: a string longer
than its field raises ValueError naming the structure, the field and its length. Character
fields read back as ``bytes``; after :meth:`MQStruct.unpack` they hold the full padded field,
as pymqi returns them. Two structures are equal when they would pack to the same bytes.
"""

from __future__ import annotations

import difflib
import operator
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Self

if TYPE_CHECKING:

    class StructBase:
        """What type checkers see of the compiled base (``tpfemu._fastpath`` has no stub):
        its ``__init__``, and the fields, which each structure makes from its ``FIELDS``
        (so a checker cannot list them: they read and write as ``Any``)."""

        def __init__(self, **fields: Any) -> None: ...

        def __getattr__(self, name: str) -> Any: ...

else:
    from tpfemu._lowlevel import StructBase
from tpfemu.mq import cmqc as CMQC
from tpfemu.mq.fields import Buffer, Byte, Char, Code, Digits, Field, Int64, Long, Nested

__all__ = ["GMO", "MD", "OD", "PMO", "MQStruct", "UnknownFieldError"]



class UnknownFieldError(AttributeError, KeyError):
    """A name that is not a field of the structure (usually a typo); pymqi raises AttributeError."""

    def __init__(self, struc: str, name: str, known: list[str]) -> None:
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        super().__init__(f"{struc} has no field {name!r}{hint}")

    def __str__(self) -> str:
        return str(self.args[0])


# -- the structure machinery --------------------------------------------------------------


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple]:
    """A function giving the values of ``names`` of an object, as a tuple, in one call."""
    get = operator.attrgetter(*names)
    if len(names) > 1:
        return get

    def one(obj: Any) -> tuple:
        return (get(obj),)

    return one


class _Level(NamedTuple):
    """What pack() and unpack() use of one version of a structure."""

    layout: struct.Struct  #: the version's bytes
    names: tuple[str, ...]  #: its fields' names, in C order
    fixups: tuple[tuple[int, Field], ...] | None  #: the values pack() pads or checks
    #: (place, field); None: pack() takes every field through its packable
    getter: Callable[[Any], tuple]  #: every value of the version at once
    plain: bool  #: unpack() stores the values as struct unpacks them
    #: the character values among all the values (None: fewer than two; pack() then
    #: looks at each), and their fields' lengths
    texts: Callable[[tuple], tuple] | None
    lengths: tuple[int, ...]


class MQStruct(StructBase):
    """Base of the MQ structures: pymqi's interface over a declared, versioned layout.

    Subclasses set ``STRUC_NAME`` (IBM's name, for messages), ``FIELDS`` (in C order, later
    versions last) and ``LENGTHS`` (IBM's length of each version, checked when the class is
    built). The first field is the StrucId, and one field is named ``Version``.
    """

    STRUC_NAME: ClassVar[str] = ""
    #: False for a structure whose first field is no StrucId (the MQCD starts with its
    #: ChannelName): unpack then does not check the first bytes.
    HAS_STRUC_ID: ClassVar[bool] = True
    FIELDS: ClassVar[tuple[Field, ...]] = ()
    LENGTHS: ClassVar[dict[int, int]] = {}
    _by_name: ClassVar[dict[str, Field]]
    _layouts: ClassVar[dict[int, tuple[struct.Struct, tuple[Field, ...]]]]
    _plain: ClassVar[dict[str, Any]]  # initial values that can be shared (immutable)
    _nested: ClassVar[tuple[Field, ...]]  # fields whose initial value is a fresh object
    _ints: ClassVar[frozenset[str]]  # MQLONG fields (32-bit)
    _bytes: ClassVar[dict[str, int]]  # MQCHARn / MQBYTEn fields and their lengths
    # For pack() and unpack(), made by _build_codec from the fields: how to check the
    # head of the data (fewest bytes of any version, StrucId, the Version's layout and
    # place); by level, a _Level; a Version value -> its level, for the usual ones.
    _head: ClassVar[tuple[int, bytes | None, struct.Struct | None, int]]
    _by_level: ClassVar[dict[int, _Level]]
    _levels: ClassVar[dict[Any, int]]
    _packed_initial: ClassVar[bytes | None]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "FIELDS" not in cls.__dict__:  # a subclass of a structure keeps its layout
            return
        offset, since = 0, 1
        for field in cls.FIELDS:
            if field.since < since or field.offset != -1:
                raise TypeError(f"{cls.STRUC_NAME}.{field.name}: fields out of version order")
            field.offset, since = offset, field.since
            offset += field.size
        cls._by_name = {f.name: f for f in cls.FIELDS}
        cls._layouts = {}
        for level, length in cls.LENGTHS.items():
            fields = tuple(f for f in cls.FIELDS if f.since <= level)
            layout = struct.Struct("<" + "".join(f.fmt for f in fields))
            if layout.size != length:
                raise TypeError(
                    f"{cls.STRUC_NAME} version {level} packs to {layout.size} bytes, "
                    f"not IBM's {length}"
                )
            cls._layouts[level] = (layout, fields)
        cls._nested = tuple(f for f in cls.FIELDS if isinstance(f, Nested))
        cls._plain = {f.name: f.default for f in cls.FIELDS if f not in cls._nested}
        # Immutable initial values live on the class: an instance's __dict__ holds only
        # the fields set on it, so making a structure costs no per-field work.
        for name, value in cls._plain.items():
            type.__setattr__(cls, name, value)
        # For __init__'s shortcut: the fields whose check passes an exact int in range,
        # or exact bytes up to a length, through unchanged.
        cls._ints = frozenset(f.name for f in cls.FIELDS if type(f) is Long)
        cls._bytes = {f.name: f.length for f in cls.FIELDS
                      if isinstance(f, Char) and type(f) in (Char, Byte)}
        cls._build_codec()

    @classmethod
    def _build_codec(cls) -> None:
        """Precompute what pack() and unpack() need, from the declared fields: they then
        do per call only what a field's packable/unpacked would change."""
        cls._by_level = {}
        for level, (layout, fields) in cls._layouts.items():
            names = tuple(f.name for f in fields)
            fixups: list[tuple[int, Field]] | None = []
            for i, f in enumerate(fields):
                if isinstance(f, Char):  # Char, Byte, Digits: pad (or check a str)
                    if type(f) is not Byte:  # (struct pads a Byte's NULs itself)
                        fixups.append((i, f))  # type: ignore[union-attr]
                elif type(f) not in (Long, Int64, Code):  # Nested, Longs: the full way
                    fixups = None
                    break
            plain = not cls._nested and all(type(f).unpacked is Field.unpacked
                                            for f in fields)
            places = tuple(i for i, _ in fixups or ())
            cls._by_level[level] = _Level(
                layout, names, None if fixups is None else tuple(fixups), _getter(names),
                plain, operator.itemgetter(*places) if len(places) > 1 else None,
                tuple(f.length for _, f in fixups or ()))  # type: ignore[attr-defined]
        version = cls._by_name.get("Version")
        struc_id = cls.FIELDS[0].default if cls.HAS_STRUC_ID and cls.FIELDS else None
        if struc_id is not None and len(struc_id) != 4:
            raise TypeError(f"{cls.STRUC_NAME}: a StrucId is 4 characters, not {struc_id!r}")
        cls._head = (min((layout.size for layout, _ in cls._layouts.values()), default=0),
                     struc_id, None if version is None else struct.Struct("<" + version.fmt),
                     -1 if version is None else version.offset)
        cls._levels = {level: level for level in cls._layouts}
        cls._packed_initial = None  # made by the first pack() of an untouched structure

    def _py_init(self, **kw: Any) -> None:
        """What ``__init__`` does, in Python. ``__init__`` is
        :class:`tpfemu._lowlevel.StructBase`'s, which does the same in C for a structure
        without nested ones and comes here for one with them."""
        if self._nested:
            values = self.__dict__
            for field in self._nested:
                values[field.name] = field.initial()
        if not kw:
            return
        # The usual keywords (MQLONGs as ints, MQCHARs and MQBYTEs as bytes) are stored
        # as given, exactly as their checks would store them; anything else goes
        # through set(), which checks and reports.
        ints, lengths = self._ints, self._bytes
        for name, value in kw.items():
            if type(value) is int:
                if name in ints and -0x80000000 <= value <= 0xFFFFFFFF:
                    continue
            elif type(value) is bytes:
                if len(value) <= lengths.get(name, -1):
                    continue
            self.set(**kw)
            return
        self.__dict__.update(kw)

    def _reset(self) -> None:
        """Every field back to its IBM initial value (the class's, or a fresh nested
        structure)."""
        values = self.__dict__
        values.clear()
        for field in self._nested:
            values[field.name] = field.initial()

    # -- pymqi's accessors --------------------------------------------------------------

    @classmethod
    def _field(cls, name: str) -> Field:
        try:
            return cls._by_name[name]
        except KeyError:
            raise UnknownFieldError(cls.STRUC_NAME, name, list(cls._by_name)) from None

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(getattr(type(self), name, None), property):  # an alias, e.g. XQH.md
            object.__setattr__(self, name, value)
            return
        object.__setattr__(self, name, self._field(name).check(self.STRUC_NAME, value))

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{self.STRUC_NAME} fields cannot be deleted: {name!r}")

    def __getitem__(self, name: str) -> Any:
        return getattr(self, self._field(name).name)

    def __setitem__(self, name: str, value: Any) -> None:
        setattr(self, name, value)

    def set(self, **kw: Any) -> None:
        """Set fields by keyword; nothing changes if any name or value is refused."""
        checked = {name: self._field(name).check(self.STRUC_NAME, v) for name, v in kw.items()}
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def _load_trusted(self, values: dict[str, Any]) -> None:
        """Set fields from values already valid (the queue manager filling an MQGET's MD
        from a message it stored): no checks, one dict update."""
        self.__dict__.update(values)

    def get(self) -> dict[str, Any]:
        """Every field (of every version) by name, in C order."""
        return {f.name: getattr(self, f.name) for f in self.FIELDS}

    # -- bytes ---------------------------------------------------------------------------

    @classmethod
    def _level_of(cls, version: Any) -> int:
        level = version
        if isinstance(version, bytes):
            text = version.strip()
            level = int(text) if text.isdigit() else None
        if level not in cls._layouts:
            known = ", ".join(str(v) for v in cls._layouts)
            raise ValueError(f"{cls.STRUC_NAME} has no Version {version!r} (it has {known})")
        return level

    def _level(self) -> int:
        version = self.Version
        level = self._levels.get(version) if type(version) is int else None
        return self._level_of(version) if level is None else level

    def get_length(self) -> int:
        """Bytes :meth:`pack` produces for the current ``Version`` (pymqi's name)."""
        return self._layouts[self._level()][0].size

    def pack(self) -> bytes:
        """The structure as IBM lays it out, for its ``Version``."""
        values = self.__dict__
        cls = type(self)
        if not values:  # every field at its initial value (a structure just made)
            packed = cls.__dict__.get("_packed_initial")  # (this class's own, not a base's)
            if packed is None:
                packed = self._pack_fields()
                cls._packed_initial = packed
            return packed
        return self._pack_fields()

    def _pack_fields(self) -> bytes:
        level = self._level()
        layout, _, fixups, getter, _, texts, lengths = self._by_level[level]
        if fixups is not None:
            # Each value as stored, but for the character fields shorter than their
            # field (padded here as packable pads them). A str (to_string()) or an
            # MQLONG stored as an unsigned mask (>= 2**31) makes struct refuse, and the
            # field-by-field way below converts it.
            values = getter(self)
            if fixups and (texts is None or tuple(map(len, texts(values))) != lengths):
                padded = list(values)
                owner = self.STRUC_NAME
                for i, f in fixups:
                    value = padded[i]
                    if type(value) is not bytes or len(value) != f.length:  # type: ignore[attr-defined]
                        padded[i] = f.packable(owner, value)
                values = tuple(padded)
            try:
                return layout.pack(*values)
            except struct.error:
                pass
        return layout.pack(*(f.packable(self.STRUC_NAME, getattr(self, f.name))
                             for f in self._layouts[level][1]))

    def unpack(self, data: Buffer) -> Self:
        """Fill every field from IBM's bytes (extra bytes after the structure are ignored).

        The ``Version`` in the data decides how many bytes are read; fields of later versions
        return to their initial values. Returns ``self``; a refused unpack changes nothing.

        :raises ValueError: the data is too short, is not this structure (StrucId) or has a
            Version this structure does not have.
        """
        view = data if type(data) is bytes else memoryview(data).cast("B")
        shortest, struc_id, version, at = self._head
        if len(view) < shortest:
            raise ValueError(f"{self.STRUC_NAME} needs at least {shortest} bytes, got "
                             f"{len(view)}")
        if struc_id is not None and view[:4] != struc_id:  # (every StrucId is 4 long)
            raise ValueError(f"not an {self.STRUC_NAME}: StrucId is "
                             f"{bytes(view[:4])!r}, expected {struc_id!r}")
        if version is None:
            raise UnknownFieldError(self.STRUC_NAME, "Version", list(self._by_name))
        found = version.unpack_from(view, at)[0]
        level = self._levels.get(found) if type(found) is int else None
        if level is None:
            level = self._level_of(found)  # (a Digits version, or a refusal)
        layout, names, _, _, plain, _, _ = self._by_level[level]
        if len(view) < layout.size:
            raise ValueError(f"{self.STRUC_NAME} version {level} is {layout.size} bytes, "
                             f"got {len(view)}")
        raw_values = layout.unpack_from(view)
        # (only once every value is read: a refused unpack changes nothing)
        if plain:  # every field keeps what struct unpacked (and none is nested)
            values = self.__dict__
            values.clear()
            values.update(zip(names, raw_values, strict=True))
            return self
        fields = self._layouts[level][1]
        unpacked = {f.name: f.unpacked(raw) for f, raw in zip(fields, raw_values, strict=True)}
        self._reset()
        self.__dict__.update(unpacked)
        return self

    def get_header(self, data: Buffer) -> Self:
        """ibmmq's name for unpacking a header from the start of a whole message: fill
        every field from ``data`` (the bytes after the structure are ignored); ``self``."""
        return self.unpack(data)

    def to_string(self, encoding: str = "utf-8") -> Self:
        """ibmmq's readable form: every character field becomes ``str``, decoded and
        stripped of its padding (binary fields such as MsgId stay ``bytes``). Changes the
        structure in place and returns it; :meth:`pack` still packs it. A field that does
        not decode stays ``bytes``."""
        for field in self.FIELDS:
            value = getattr(self, field.name)
            if type(field) in (Char, Digits) and isinstance(value, bytes):
                try:
                    self.__dict__[field.name] = value.decode(encoding).strip()
                except UnicodeDecodeError:
                    pass
            elif isinstance(field, Nested):
                value.to_string(encoding)
        return self

    @classmethod
    def from_bytes(cls, data: Buffer) -> Self:
        """A new structure unpacked from IBM's bytes (see :meth:`unpack`)."""
        return cls.__new__(cls).unpack(data)  # (no __init__: unpack sets every field)

    # -- comparison, copies, text --------------------------------------------------------

    def _key(self) -> tuple:
        try:
            level = self._level()
            fields = self._layouts[level][1]
        except ValueError:
            level, fields = self.Version, self.FIELDS
        return (level, tuple(f.key(getattr(self, f.name)) for f in fields))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]  # mutable, like pymqi's

    def copy(self) -> Self:
        """An independent copy (nested structures are copied too)."""
        new = type(self).__new__(type(self))
        for f in self.FIELDS:
            object.__setattr__(new, f.name, f.copy_value(getattr(self, f.name)))
        return new

    __copy__ = copy

    def __repr__(self) -> str:
        """The constructor call that rebuilds an equal structure (fields off their default)."""
        initial = type(self)()
        parts = [
            f"{f.name}={f.show(getattr(self, f.name))!r}"
            for f in self.FIELDS
            if f.key(getattr(self, f.name)) != f.key(getattr(initial, f.name))
        ]
        return f"{type(self).__name__}({', '.join(parts)})"

    def __str__(self) -> str:
        """One ``Field: value`` line per field of the current version, as pymqi prints."""
        try:
            fields = self._layouts[self._level()][1]
        except ValueError:
            fields = self.FIELDS
        lines = []
        for f in fields:
            value = getattr(self, f.name)
            if isinstance(f, Nested):
                lines.append(f"{f.name}:\n    " + str(value).replace("\n", "\n    "))
            else:
                lines.append(f"{f.name}: {value!r}")
        return "\n".join(lines)


# -- MQMD, MQGMO, MQPMO, MQOD -------------------------------------------------------------


class MD(MQStruct):
    """MQMD, the message descriptor (pymqi ``MD``): 324 bytes at Version 1, 364 at Version 2.

    Initial values are IBM's MQMD_DEFAULT: a datagram that never expires, with priority and
    persistence taken from the queue (MQPRI_PRIORITY_AS_Q_DEF, MQPER_PERSISTENCE_AS_Q_DEF)
    and no MsgId/CorrelId (the queue manager generates a MsgId on put). MQGET writes MsgId
    and CorrelId back: reset them to MQMI_NONE/MQCI_NONE before reusing an MD for a get.
    """

    STRUC_NAME = "MQMD"
    LENGTHS = {1: CMQC.MQMD_LENGTH_1, 2: CMQC.MQMD_LENGTH_2}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQMD_STRUC_ID),
        Long("Version", CMQC.MQMD_VERSION_1),
        Long("Report", CMQC.MQRO_NONE),
        Long("MsgType", CMQC.MQMT_DATAGRAM),
        Long("Expiry", CMQC.MQEI_UNLIMITED),
        Long("Feedback", CMQC.MQFB_NONE),
        Long("Encoding", CMQC.MQENC_NATIVE),
        Long("CodedCharSetId", CMQC.MQCCSI_Q_MGR),
        Char("Format", 8, CMQC.MQFMT_NONE),
        Long("Priority", CMQC.MQPRI_PRIORITY_AS_Q_DEF),
        Long("Persistence", CMQC.MQPER_PERSISTENCE_AS_Q_DEF),
        Byte("MsgId", 24, CMQC.MQMI_NONE),
        Byte("CorrelId", 24, CMQC.MQCI_NONE),
        Long("BackoutCount", 0),
        Char("ReplyToQ", 48),
        Char("ReplyToQMgr", 48),
        Char("UserIdentifier", 12),
        Byte("AccountingToken", 32, CMQC.MQACT_NONE),
        Char("ApplIdentityData", 32),
        Long("PutApplType", CMQC.MQAT_NO_CONTEXT),
        Char("PutApplName", 28),
        Char("PutDate", 8),
        Char("PutTime", 8),
        Char("ApplOriginData", 4),
        Byte("GroupId", 24, CMQC.MQGI_NONE, since=2),
        Long("MsgSeqNumber", 1, since=2),
        Long("Offset", 0, since=2),
        Long("MsgFlags", CMQC.MQMF_NONE, since=2),
        Long("OriginalLength", CMQC.MQOL_UNDEFINED, since=2),
    )


class GMO(MQStruct):
    """MQGMO, get-message options (pymqi ``GMO``): 72/80/100/112 bytes at Versions 1-4.

    Initial values: MQGMO_NO_WAIT, WaitInterval 0 (milliseconds; MQWI_UNLIMITED waits
    forever) and, from Version 2, MatchOptions MQMO_MATCH_MSG_ID | MQMO_MATCH_CORREL_ID.
    At Version 1 there is no MatchOptions field and IBM matches on both ids.
    """

    STRUC_NAME = "MQGMO"
    LENGTHS = {
        1: CMQC.MQGMO_LENGTH_1, 2: CMQC.MQGMO_LENGTH_2,
        3: CMQC.MQGMO_LENGTH_3, 4: CMQC.MQGMO_LENGTH_4,
    }  # fmt: skip
    FIELDS = (
        Char("StrucId", 4, CMQC.MQGMO_STRUC_ID),
        Long("Version", CMQC.MQGMO_VERSION_1),
        Long("Options", CMQC.MQGMO_NO_WAIT),
        Long("WaitInterval", 0),
        Long("Signal1", 0),
        Long("Signal2", 0),
        Char("ResolvedQName", 48),
        Long("MatchOptions", CMQC.MQMO_MATCH_MSG_ID | CMQC.MQMO_MATCH_CORREL_ID, since=2),
        Code("GroupStatus", CMQC.MQGS_NOT_IN_GROUP, since=2),
        Code("SegmentStatus", CMQC.MQSS_NOT_A_SEGMENT, since=2),
        Code("Segmentation", CMQC.MQSEG_INHIBITED, since=2),
        Char("Reserved1", 1, b" ", since=2),
        Byte("MsgToken", 16, CMQC.MQMTOK_NONE, since=3),
        Long("ReturnedLength", CMQC.MQRL_UNDEFINED, since=3),
        Long("Reserved2", 0, since=4),
        Int64("MsgHandle", CMQC.MQHM_NONE, since=4),
    )


class PMO(MQStruct):
    """MQPMO, put-message options (pymqi ``PMO``): 128/152/176 bytes at Versions 1-3.

    Initial values: Options MQPMO_NONE, Timeout -1; the queue manager fills ResolvedQName
    and ResolvedQMgrName on put. Version 2 adds the distribution-list record fields
    (pointers in 4-byte slots), Version 3 the message handles, Action and PubLevel (9).
    """

    STRUC_NAME = "MQPMO"
    LENGTHS = {1: CMQC.MQPMO_LENGTH_1, 2: CMQC.MQPMO_LENGTH_2, 3: CMQC.MQPMO_LENGTH_3}
    FIELDS = (
        Char("StrucId", 4, CMQC.MQPMO_STRUC_ID),
        Long("Version", CMQC.MQPMO_VERSION_1),
        Long("Options", CMQC.MQPMO_NONE),
        Long("Timeout", -1),
        Long("Context", CMQC.MQHO_NONE),
        Long("KnownDestCount", 0),
        Long("UnknownDestCount", 0),
        Long("InvalidDestCount", 0),
        Char("ResolvedQName", 48),
        Char("ResolvedQMgrName", 48),
        Long("RecsPresent", 0, since=2),
        Long("PutMsgRecFields", 0, since=2),
        Long("PutMsgRecOffset", 0, since=2),
        Long("ResponseRecOffset", 0, since=2),
        Long("PutMsgRecPtr", 0, since=2),
        Long("ResponseRecPtr", 0, since=2),
        Int64("OriginalMsgHandle", CMQC.MQHM_NONE, since=3),
        Int64("NewMsgHandle", CMQC.MQHM_NONE, since=3),
        Long("Action", CMQC.MQACTP_NEW, since=3),
        Long("PubLevel", 9, since=3),
    )


def _charv(name: str, since: int) -> tuple[Field, ...]:
    """An MQCHARV (variable-length string descriptor) as pymqi spells its five fields."""
    return (
        Long(f"{name}VSPtr", 0, since),
        Long(f"{name}VSOffset", 0, since),
        Long(f"{name}VSBufSize", 0, since),
        Long(f"{name}VSLength", 0, since),
        Long(f"{name}VSCCSID", CMQC.MQCCSI_APPL, since),
    )


class OD(MQStruct):
    """MQOD, the object descriptor (pymqi ``OD``): 168/200/336/400 bytes at Versions 1-4.

    Initial values: ObjectType MQOT_Q, blank names and DynamicQName ``AMQ.*`` (the pattern
    for queues created from a model queue). Version 3 adds ResolvedQName/ResolvedQMgrName,
    which the queue manager fills on open.
    """

    STRUC_NAME = "MQOD"
    LENGTHS = {
        1: CMQC.MQOD_LENGTH_1, 2: CMQC.MQOD_LENGTH_2,
        3: CMQC.MQOD_LENGTH_3, 4: CMQC.MQOD_LENGTH_4,
    }  # fmt: skip
    FIELDS = (
        Char("StrucId", 4, CMQC.MQOD_STRUC_ID),
        Long("Version", CMQC.MQOD_VERSION_1),
        Long("ObjectType", CMQC.MQOT_Q),
        Char("ObjectName", 48),
        Char("ObjectQMgrName", 48),
        Char("DynamicQName", 48, b"AMQ.*"),
        Char("AlternateUserId", 12),
        Long("RecsPresent", 0, since=2),
        Long("KnownDestCount", 0, since=2),
        Long("UnknownDestCount", 0, since=2),
        Long("InvalidDestCount", 0, since=2),
        Long("ObjectRecOffset", 0, since=2),
        Long("ResponseRecOffset", 0, since=2),
        Long("ObjectRecPtr", 0, since=2),
        Long("ResponseRecPtr", 0, since=2),
        Byte("AlternateSecurityId", 40, CMQC.MQSID_NONE, since=3),
        Char("ResolvedQName", 48, since=3),
        Char("ResolvedQMgrName", 48, since=3),
        *_charv("ObjectString", 4),
        *_charv("SelectionString", 4),
        *_charv("ResObjectString", 4),
        Long("ResolvedType", CMQC.MQOT_NONE, since=4),
    )
