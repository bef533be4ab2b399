"""Object definitions of the TPF MQSeries local queue manager: profile, queues, processes.

A definition is a frozen dataclass whose fields are the object's attributes, named by the
MQSC keyword in lower case (``ZMQSC DEF QL-APP.IN MAXDEPTH-100`` becomes
``LocalQueueDef(name="APP.IN", maxdepth=100)``). Every attribute field carries an
:class:`AttrSpec` (type, accepted values or range, default, whether ALTER may change it, the
MQ selector that MQINQ/MQSET will use) and every instance is validated when it is built, so an
invalid definition cannot exist::

    LocalQueueDef(name="APP.IN", maxdepth=10**9)   # DefinitionError naming MAXDEPTH

Types (``type_name``): ``MQP`` the profile (one per queue manager, named like it), ``QL``
local queue, ``QA`` alias queue, ``QR`` local definition of a remote queue, ``PROC`` process,
``CHL`` message channel (sender, receiver or server-connection; names 1-20 characters).

Where we differ from, or go beyond, IBM (for ``docs/deviations.md``):

- Enumerated values are accepted in any case and stored upper-case; integer attributes also
  accept a string of decimal digits (what a console hands over) and are stored as ``int``.
- ``QDT`` (profile) is the interval in seconds between repeated QDEPTHHI console warnings;
  IBM names it (seed 004) but its range and default were not found: 1..86400, default 60
  is our choice.
- ``MAXDEPTH`` defaults to 999 999 999 (effectively unlimited, like TPF's memory queues);
  IBM's default differs by platform (5000 on distributed MQ).
- ``TRIGGER`` (MQSC TRIGGER/NOTRIGGER) is kept for MQ compatibility; TPF's ZMQSC documents
  only TRIGTYPE.
- A process whose APPLTYPE is TPF or DEFAULT must name a TPF program (4 characters) as
  APPLID; for other application types APPLID is MQ's free 0..256 characters.
- Channels (``CHL``): CONNAME and XMITQ belong to sender channels only (TPF lets ALT CHL
  change CONNAME of senders only; IBM ignores CONNAME on a receiver, we refuse it), and a
  sender needs both. SPEED (TPF's fast/normal channels) stands for MQ's NPMSPEED.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, TypeVar

from tpfemu.errors import DefinitionError

NAME_MAX = 48
NAME_RULE = "1 to 48 characters A-Z a-z 0-9 . / _ % (not ALL)"
CHANNEL_NAME_MAX = 20  # TPF: channel names are 1-20 characters
CHANNEL_NAME_RULE = "1 to 20 characters A-Z a-z 0-9 . / _ % (not ALL)"
DEFAULT_PORT = 1414  # CONNAME without (port): MQ's standard port
RESERVED_NAMES = frozenset({"ALL"})  # reserved exactly as written: DISPLAY QL-ALL means all
DEAD_LETTER_QUEUE = "DEAD.LETTER.QUEUE"
SPECIAL_RECOVERY_QUEUE = "SPECIAL.RECOVERY.QUEUE"
AUTO_QUEUES = (DEAD_LETTER_QUEUE, SPECIAL_RECOVERY_QUEUE)  # created by DEFINE MQP
_NAME_CHARS = re.compile(r"[A-Za-z0-9./_%]+")
_TPF_PROGRAM = re.compile(r"[A-Z][A-Z0-9]{3}")
_TPF_APPLTYPES = ("TPF", "DEFAULT")  # DEFAULT on a TPF queue manager is TPF
_CONNAME = re.compile(r"([A-Za-z0-9][A-Za-z0-9.:_-]*)(?:\((\d{1,5})\))?")
CPU_IDS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")  # TPF processor IDs

T = TypeVar("T", bound="ObjectDef")


def name_problem(name: object, max_len: int = NAME_MAX) -> str | None:
    """What is wrong with ``name`` as an MQ object name, or None if it is valid.

    :param max_len: the longest name allowed (48; channels 20).
    """
    if not isinstance(name, str):
        return "is not a string"
    if not name:
        return "is empty"
    if len(name) > max_len:
        return f"is {len(name)} characters long"
    if not _NAME_CHARS.fullmatch(name):
        bad = sorted({c for c in name if not _NAME_CHARS.fullmatch(c)})
        return "contains " + " ".join(repr(c) for c in bad)
    if name in RESERVED_NAMES:
        return "is reserved"
    return None


def check_name(name: object, keyword: str, max_len: int = NAME_MAX) -> str:
    """Return ``name`` if it is a valid MQ object name, else raise DefinitionError.

    :param keyword: the keyword that carried the name (``"QL"``, ``"TARGQ"``...).
    :param max_len: the longest name allowed (48; channels 20).
    """
    problem = name_problem(name, max_len)
    if problem is not None:
        rule = NAME_RULE if max_len == NAME_MAX else NAME_RULE.replace("48", str(max_len))
        raise DefinitionError(f"{keyword} name {name!r} {problem}", keyword=keyword, accepted=rule)
    return name  # type: ignore[return-value]


@dataclass(frozen=True)
class AttrSpec:
    """How one attribute is checked, defaulted and exposed to MQINQ/MQSET.

    ``kind`` is ``int`` (``low``..``high``), ``enum`` (one of ``values``), ``text`` (at most
    ``max_len`` characters), ``name`` (an MQ object name, or empty unless ``required``) or
    ``appltype`` (one of ``values`` or an integer ``low``..``high``). ``selector`` is the
    MQIA_/MQCA_ name (a string; the numbers live in CMQC), ``None`` where TPF has no MQ
    selector. ``mq_values`` maps each enumerated value to its CMQC constant name.
    """

    keyword: str
    kind: str
    default: Any = None
    selector: str | None = None
    low: int = 0
    high: int = 0
    values: tuple[str, ...] = ()
    mq_values: Mapping[str, str] = field(default_factory=dict, compare=False)
    max_len: int = 0
    required: bool = False
    alterable: bool = True

    @property
    def accepted(self) -> str:
        """What the attribute accepts, as a phrase for error messages and help."""
        if self.kind == "int":
            return f"{self.low} to {self.high}"
        if self.kind == "text":
            return f"0 to {self.max_len} characters"
        if self.kind == "name":
            return NAME_RULE if self.required else f"empty, or {NAME_RULE}"
        words = list(self.values)
        if self.kind == "appltype":
            words.append(f"an integer {self.low} to {self.high}")
        return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]

    def check(self, value: Any, owner: str) -> Any:
        """Return ``value`` normalised (ints, upper-case enums) or raise DefinitionError.

        :param owner: the object, for the message (``"QL 'APP.IN'"``).
        """
        if self.required and value == "" and self.kind != "name":
            raise self.error(owner, f"{self.keyword} is required")
        if self.kind == "int" or (self.kind == "appltype" and _is_integer(value)):
            if _is_integer(value):
                number = int(value)
                if self.low <= number <= self.high:
                    return number
        elif self.kind == "enum" or self.kind == "appltype":
            if isinstance(value, str) and value.upper() in self.values:
                return value.upper()
        elif self.kind == "text":
            if isinstance(value, str) and len(value) <= self.max_len:
                return value
        elif self.kind == "name":
            if value == "" and self.required:
                raise self.error(owner, f"{self.keyword} is required")
            problem = None if value == "" else name_problem(value)
            if problem is None:
                return value
            raise self.error(owner, f"{self.keyword} {value!r} {problem}")
        raise self.error(owner, f"{self.keyword} {value!r} is not valid")

    def error(self, owner: str, problem: str, accepted: str = "") -> DefinitionError:
        """A DefinitionError about this attribute of ``owner`` (``accepted`` overrides)."""
        return DefinitionError(
            f"{owner}: {problem}", keyword=self.keyword, accepted=accepted or self.accepted
        )


def _is_integer(value: Any) -> bool:
    if isinstance(value, str):
        return value.isascii() and value.isdigit()
    return isinstance(value, int) and not isinstance(value, bool)


def _attr(kind: str, default: Any, selector: str | None, **spec: Any) -> Any:
    """A dataclass field carrying its AttrSpec (keyword and default are filled in later)."""
    return field(default=default, metadata={"spec": AttrSpec("", kind, selector=selector, **spec)})


def _int(default: int, low: int, high: int, selector: str | None, **spec: Any) -> Any:
    return _attr("int", default, selector, low=low, high=high, **spec)


def _enum(
    default: str, values: tuple[str, ...], mq: Mapping[str, str], sel: str | None, **spec: Any
) -> Any:
    return _attr("enum", default, sel, values=values, mq_values=mq, **spec)


def _mq(**constants: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """Enumerated values and their CMQC constant names, for ``_enum(d, *_mq(...), sel)``."""
    return tuple(constants), constants


def _text(max_len: int, selector: str | None) -> Any:
    return _attr("text", "", selector, max_len=max_len)


def _name(selector: str | None, *, required: bool = False) -> Any:
    return _attr("name", "", selector, required=required)


def _put() -> Any:
    mq = _mq(ENABLED="MQQA_PUT_ALLOWED", DISABLED="MQQA_PUT_INHIBITED")
    return _enum("ENABLED", *mq, "MQIA_INHIBIT_PUT")


def _get() -> Any:
    mq = _mq(ENABLED="MQQA_GET_ALLOWED", DISABLED="MQQA_GET_INHIBITED")
    return _enum("ENABLED", *mq, "MQIA_INHIBIT_GET")


def _defpsist() -> Any:
    return _enum(
        "NO", *_mq(YES="MQPER_PERSISTENT", NO="MQPER_NOT_PERSISTENT"), "MQIA_DEF_PERSISTENCE"
    )


def _defprty() -> Any:
    return _int(0, 0, 9, "MQIA_DEF_PRIORITY")


def _definition(cls: type[T]) -> type[T]:
    """Collect the AttrSpecs of a definition dataclass and register its type name."""
    specs = {}
    for f in dataclasses.fields(cls):
        if "spec" in f.metadata:
            specs[f.name] = dataclasses.replace(
                f.metadata["spec"], keyword=f.name.upper(), default=f.default
            )
    cls.ATTRS = MappingProxyType(specs)
    DEFINITION_TYPES[cls.type_name] = cls
    return cls


DEFINITION_TYPES: dict[str, type[ObjectDef]] = {}  # "QL" -> LocalQueueDef, ...


@dataclass(frozen=True, kw_only=True)
class ObjectDef:
    """Base of every definition: a validated, immutable set of attributes with a name."""

    type_name: ClassVar[str] = ""
    name_max: ClassVar[int] = NAME_MAX
    ATTRS: ClassVar[Mapping[str, AttrSpec]] = MappingProxyType({})
    name: str

    def __post_init__(self) -> None:
        check_name(self.name, self.type_name, self.name_max)
        label = self.label
        for attr, spec in self.ATTRS.items():
            object.__setattr__(self, attr, spec.check(getattr(self, attr), label))
        self._check_rules()

    @property
    def label(self) -> str:
        """The object as messages name it: ``QL 'APP.IN'``."""
        return f"{self.type_name} {self.name!r}"

    def _check_rules(self) -> None:
        """Raise DefinitionError where attributes contradict each other (per type)."""

    def attributes(self) -> dict[str, Any]:
        """The attributes (lower-case keyword -> value), without type and name."""
        return {attr: getattr(self, attr) for attr in self.ATTRS}

    def to_dict(self) -> dict[str, Any]:
        """A plain dict (str/int values only) that :meth:`from_dict` turns back into ``self``."""
        return {"type": self.type_name, "name": self.name, **self.attributes()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ObjectDef:
        """Rebuild a definition from :meth:`to_dict` output, validating it again.

        Called on :class:`ObjectDef` it dispatches on ``data["type"]``; attributes missing
        from ``data`` (stored by an older tpfemu) take their defaults.
        """
        values = dict(data)
        type_name = values.pop("type", cls.type_name)
        if "name" not in values:
            raise DefinitionError(f"stored {type_name} definition has no name")
        target = DEFINITION_TYPES.get(type_name)
        if target is None or (cls is not ObjectDef and target is not cls):
            expected = cls.type_name or ", ".join(DEFINITION_TYPES)
            raise DefinitionError(f"stored definition has type {type_name!r}, expected {expected}")
        unknown = sorted(set(values) - set(target.ATTRS) - {"name"})
        if unknown:
            raise DefinitionError(
                f"stored {type_name} definition has unknown attributes: {', '.join(unknown)}",
                keyword=unknown[0].upper(),
            )
        return target(**values)

    @classmethod
    def build(
        cls: type[T],
        name: str,
        given: Mapping[str, Any],
        *,
        base: ObjectDef | None = None,
        defaults: Mapping[str, Any] | None = None,
        previous: ObjectDef | None = None,
    ) -> T:
        """Build a definition from command attributes, checking everything first.

        :param given: the attributes of the command (keywords in any case).
        :param base: the definition being altered: attributes not given keep its values.
        :param defaults: defaults overriding the specs' (e.g. MAXMSGL from the profile).
        :param previous: the existing definition (ALTER or DEFINE REPLACE): attributes that
            cannot be altered must keep its values.
        """
        label = f"{cls.type_name} {name!r}"
        values = {key.lower(): value for key, value in given.items()}
        for key in values:
            if key not in cls.ATTRS:
                valid = ", ".join(sorted(spec.keyword for spec in cls.ATTRS.values()))
                raise DefinitionError(
                    f"{label}: {key.upper()} is not a {cls.type_name} attribute; "
                    f"valid attributes are {valid}",
                    keyword=key.upper(),
                )
        checked = {key: cls.ATTRS[key].check(value, label) for key, value in values.items()}
        merged = base.attributes() if base is not None else {**(defaults or {})}
        merged.update(checked)
        if previous is not None:
            for attr, spec in cls.ATTRS.items():
                old = getattr(previous, attr)
                if not spec.alterable and merged.get(attr, spec.default) != old:
                    raise DefinitionError(
                        f"{label}: {spec.keyword} cannot be changed (it is {old}); "
                        "delete and define the object to change it",
                        keyword=spec.keyword,
                        accepted=f"{old} only",
                    )
        return cls(name=name, **merged)


@dataclass(frozen=True, kw_only=True)
class ProfileDef(ObjectDef):
    """The MQ profile (``ZMQSC DEF MQP``): the queue manager's own attributes.

    Named like the queue manager. Defining it auto-creates ``DEAD.LETTER.QUEUE`` and
    ``SPECIAL.RECOVERY.QUEUE``; no other object can be defined before it exists.
    """

    type_name: ClassVar[str] = "MQP"
    # The largest message: default and upper bound of a QL's MAXMSGL.
    maxmsgl: int = _int(4_194_304, 1, 104_857_600, "MQIA_MAX_MSG_LENGTH")
    batchsz: int = _int(50, 1, 9999, None)  # default channel batch size (CHL BATCHSZ)
    trigint: int = _int(999_999_999, 0, 999_999_999, "MQIA_TRIGGER_INTERVAL")  # ms, for FIRST
    expryint: int = _int(0, 0, 99_999_999, "MQIA_EXPIRY_INTERVAL")  # seconds; 0 = off
    qdt: int = _int(60, 1, 86_400, None)  # seconds between QDEPTHHI warnings (our range)
    maxumsgs: int = _int(10_000, 1, 999_999_999, "MQIA_MAX_UNCOMMITTED_MSGS")
    descr: str = _text(64, "MQCA_Q_MGR_DESC")

    @property
    def label(self) -> str:
        return "MQP"


@dataclass(frozen=True, kw_only=True)
class QueueDef(ObjectDef):
    """Base of the queue definitions QL, QA and QR, which share one namespace."""


@dataclass(frozen=True, kw_only=True)
class LocalQueueDef(QueueDef):
    """A local queue (``ZMQSC DEF QL``): normal, or a transmission queue (USAGE XMITQ).

    COMMON YES is a processor-shared queue (TPFCS), NO a processor-unique memory queue; it
    cannot be altered. Transmission queues are always processor-unique, and QDEPTHHI
    warnings exist only for processor-unique queues.
    """

    type_name: ClassVar[str] = "QL"
    usage: str = _enum(
        "NORMAL", *_mq(NORMAL="MQUS_NORMAL", XMITQ="MQUS_TRANSMISSION"), "MQIA_USAGE"
    )
    common: str = _enum("NO", ("YES", "NO"), {}, None, alterable=False)  # TPF only: no selector
    put: str = _put()
    get: str = _get()
    defpsist: str = _defpsist()
    defprty: int = _defprty()
    msgdlvsq: str = _enum(
        "PRIORITY", *_mq(PRIORITY="MQMDS_PRIORITY", FIFO="MQMDS_FIFO"), "MQIA_MSG_DELIVERY_SEQUENCE"
    )
    # 0 = no maximum (TPF). IBM's default differs by platform (5000 on distributed MQ).
    maxdepth: int = _int(999_999_999, 0, 999_999_999, "MQIA_MAX_Q_DEPTH")
    # Upper bound is the profile's MAXMSGL, checked by the catalog (which knows the profile).
    maxmsgl: int = _int(4_194_304, 0, 104_857_600, "MQIA_MAX_MSG_LENGTH")
    qdepthhi: int = _int(0, 0, 100, "MQIA_Q_DEPTH_HIGH_LIMIT")  # % of MAXDEPTH; 0 = no warning
    trigger: str = _enum("NO", *_mq(YES="MQTC_ON", NO="MQTC_OFF"), "MQIA_TRIGGER_CONTROL")
    trigtype: str = _enum(
        "FIRST",
        *_mq(NONE="MQTT_NONE", FIRST="MQTT_FIRST", EVERY="MQTT_EVERY", DEPTH="MQTT_DEPTH"),
        "MQIA_TRIGGER_TYPE",
    )
    trigdpth: int = _int(1, 1, 999_999_999, "MQIA_TRIGGER_DEPTH")
    trigmpri: int = _int(0, 0, 9, "MQIA_TRIGGER_MSG_PRIORITY")
    trigdata: str = _text(64, "MQCA_TRIGGER_DATA")
    initq: str = _name("MQCA_INITIATION_Q_NAME")
    process: str = _name("MQCA_PROCESS_NAME")
    descr: str = _text(64, "MQCA_Q_DESC")

    def _check_rules(self) -> None:
        if self.common == "YES" and self.qdepthhi != 0:
            raise self.ATTRS["qdepthhi"].error(
                self.label,
                "QDEPTHHI is not valid with COMMON YES (processor-shared queue)",
                "0 when COMMON is YES",
            )
        if self.common == "YES" and self.usage == "XMITQ":
            raise self.ATTRS["usage"].error(
                self.label,
                "a transmission queue cannot be COMMON YES (processor-shared)",
                "NORMAL when COMMON is YES",
            )


@dataclass(frozen=True, kw_only=True)
class AliasQueueDef(QueueDef):
    """An alias queue (``ZMQSC DEF QA``): opens resolve to TARGQ (a QL or QR).

    PUT and GET take effect only where the target also allows them. TARGQ need not exist
    when the alias is defined (it is resolved at MQOPEN, as in IBM MQ).
    """

    type_name: ClassVar[str] = "QA"
    targq: str = _name("MQCA_BASE_Q_NAME", required=True)
    put: str = _put()
    get: str = _get()
    defpsist: str = _defpsist()
    defprty: int = _defprty()
    descr: str = _text(64, "MQCA_Q_DESC")

    def _check_rules(self) -> None:
        if self.targq == self.name:
            raise self.ATTRS["targq"].error(self.label, "an alias cannot target itself")


@dataclass(frozen=True, kw_only=True)
class RemoteQueueDef(QueueDef):
    """A local definition of a remote queue (``ZMQSC DEF QR``).

    An empty RNAME makes it a queue-manager alias (seed 004); an empty XMITQ means the
    transmission queue named like RQMNAME.
    """

    type_name: ClassVar[str] = "QR"
    rname: str = _name("MQCA_REMOTE_Q_NAME")
    rqmname: str = _name("MQCA_REMOTE_Q_MGR_NAME", required=True)
    xmitq: str = _name("MQCA_XMIT_Q_NAME")
    put: str = _put()
    defpsist: str = _defpsist()
    defprty: int = _defprty()
    descr: str = _text(64, "MQCA_Q_DESC")

    @property
    def is_qmgr_alias(self) -> bool:
        """True when RNAME is empty: the definition renames a queue manager."""
        return not self.rname

    @property
    def transmission_queue(self) -> str:
        """The transmission queue messages go to: XMITQ, or else the one named RQMNAME."""
        return self.xmitq or self.rqmname


@dataclass(frozen=True, kw_only=True)
class ProcessDef(ObjectDef):
    """A process (``ZMQSC DEF PROC``): what a trigger activates.

    For APPLTYPE TPF (the default) or DEFAULT, APPLID is the 4-character TPF program that
    the queue manager enters; other application types are left to a trigger monitor.
    """

    type_name: ClassVar[str] = "PROC"
    applid: str = _attr("text", "", "MQCA_APPL_ID", max_len=256)
    appltype: str | int = _attr(
        "appltype",
        "TPF",
        "MQIA_APPL_TYPE",
        low=0,
        high=65_535,
        values=("TPF", "CICS", "UNIX", "DEFAULT"),
        mq_values={
            "TPF": "MQAT_TPF",
            "CICS": "MQAT_CICS",
            "UNIX": "MQAT_UNIX",
            "DEFAULT": "MQAT_DEFAULT",
        },
    )
    envdata: str = _text(128, "MQCA_ENV_DATA")
    userdata: str = _text(128, "MQCA_USER_DATA")
    descr: str = _text(64, "MQCA_PROCESS_DESC")

    @property
    def is_tpf_program(self) -> bool:
        """True when APPLID names a TPF program to enter (APPLTYPE TPF or DEFAULT)."""
        return self.appltype in _TPF_APPLTYPES

    def _check_rules(self) -> None:
        if self.is_tpf_program and not _TPF_PROGRAM.fullmatch(self.applid):
            problem = f"APPLID {self.applid!r} is not a TPF program name"
            if not self.applid:
                problem = "APPLID is required"
            raise self.ATTRS["applid"].error(
                self.label,
                problem,
                "a TPF program name: 4 characters, upper-case, a letter then letters or digits"
                f" (when APPLTYPE is {' or '.join(_TPF_APPLTYPES)})",
            )


#: SSLCIPH values a SVRCONN channel takes (issue 26): IBM's TLS 1.2/1.3 CipherSpec names
#: (each selects the TLS version; Python's ssl picks the cipher within it) and ANY_TLS12,
#: ANY_TLS13 and ANY (TLS 1.2 or later).
SSL_CIPHERS = frozenset({
    "ANY", "ANY_TLS12", "ANY_TLS12_OR_HIGHER", "ANY_TLS13", "ANY_TLS13_OR_HIGHER",
    "TLS_RSA_WITH_AES_128_CBC_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384",
    "ECDHE_RSA_AES_128_GCM_SHA256", "ECDHE_RSA_AES_256_GCM_SHA384",
    "TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256",
})


@dataclass(frozen=True, kw_only=True)
class ChannelDef(ObjectDef):
    """A message channel (``ZMQSC DEF CHL``): sender (SDR), receiver (RCVR) or
    server-connection (SVRCONN), over TCP/IP only (tpf-facts §2.2).

    CHLTYPE is required and cannot be altered. A sender needs CONNAME (host name or dotted
    address, ``host(port)`` for a port other than 1414) and XMITQ (the transmission queue
    it serves); other types take neither. BATCHSZ defaults to the profile's (the catalog
    fills it in); the lower of the two ends' values is used when the channel runs. CPU is
    the processor that runs the channel (``ALL``: every processor); the catalog defaults
    it to the local one. The channel must be restarted after ALT CHL to use new values.
    """

    type_name: ClassVar[str] = "CHL"
    name_max: ClassVar[int] = CHANNEL_NAME_MAX
    chltype: str = _enum(
        "",
        *_mq(SDR="MQCHT_SENDER", RCVR="MQCHT_RECEIVER", SVRCONN="MQCHT_SVRCONN"),
        None,
        required=True,
        alterable=False,
    )
    conname: str = _text(256, None)
    xmitq: str = _name(None)
    batchsz: int = _int(50, 1, 9999, None)
    speed: str = _enum("NORMAL", ("FAST", "NORMAL"), {}, None)  # MQ: NPMSPEED FAST/NORMAL
    cpu: str = _enum("B", (*CPU_IDS, "ALL"), {}, None)
    descr: str = _text(64, None)
    # Issue 25: the message channel agents' retry, heartbeat and sequence-wrap values,
    # with IBM's defaults (SHORTTMR/LONGTMR in seconds, HBINT in seconds).
    shortrty: int = _int(10, 0, 999_999_999, None)
    shorttmr: int = _int(60, 0, 999_999_999, None)
    longrty: int = _int(999_999_999, 0, 999_999_999, None)
    longtmr: int = _int(1200, 0, 999_999_999, None)
    hbint: int = _int(300, 0, 999_999, None)
    seqwrap: int = _int(999_999_999, 100, 999_999_999, None)
    # MAXMSGL: the longest message the channel carries, IBM's default (0: the queue
    # manager's); see offered_maxmsgl.
    maxmsgl: int = _int(4_194_304, 0, 104_857_600, None)
    # Issue 26: server-connection (SVRCONN) channels (other types keep but do not use
    # them). MAXINST: the most client conversations at once (MAXINSTC: from one client
    # address); CHCKCLNT REQUIRED: a client must give a user and password the
    # operator's user table accepts (docs/clients.md);
    # SSLCIPH: TLS with this CipherSpec (SSL_CIPHERS); SSLCAUTH REQUIRED: the client must
    # show a certificate the server trusts.
    maxinst: int = _int(999_999_999, 0, 999_999_999, None)
    maxinstc: int = _int(999_999_999, 0, 999_999_999, None)  # per client address
    chckclnt: str = _enum("NONE", ("NONE", "REQUIRED"), {}, None)
    sslciph: str = _text(32, None)  # "": no TLS; checked against SSL_CIPHERS at connect
    sslcauth: str = _enum("OPTIONAL", ("OPTIONAL", "REQUIRED"), {}, None)

    def offered_maxmsgl(self, qmgr_maxmsgl: int) -> int:
        """The maximum message length this end offers when the channel starts: the lower
        of the channel's MAXMSGL (0: none of its own) and the queue manager's
        ``qmgr_maxmsgl``. The two ends then agree on the lower of their offers (IBM)."""
        return qmgr_maxmsgl if self.maxmsgl == 0 else min(self.maxmsgl, qmgr_maxmsgl)

    @property
    def address(self) -> tuple[str, int] | None:
        """(host, port) of CONNAME, the port 1414 when not given; None without CONNAME."""
        found = _CONNAME.fullmatch(self.conname)
        if not self.conname or found is None:
            return None
        return found.group(1), int(found.group(2) or DEFAULT_PORT)

    def _check_rules(self) -> None:
        specs = self.ATTRS
        if self.chltype == "SDR":
            if not self.conname:
                raise specs["conname"].error(self.label, "a sender channel needs CONNAME")
            if not self.xmitq:
                raise specs["xmitq"].error(self.label, "a sender channel needs XMITQ", NAME_RULE)
        else:
            for attr in ("conname", "xmitq"):
                if getattr(self, attr):
                    raise specs[attr].error(
                        self.label,
                        f"{attr.upper()} is for sender (SDR) channels only",
                        f"nothing when CHLTYPE is {self.chltype}",
                    )
        if self.conname:
            found = _CONNAME.fullmatch(self.conname)
            if found is None or not 1 <= int(found.group(2) or DEFAULT_PORT) <= 65535:
                raise specs["conname"].error(
                    self.label,
                    f"CONNAME {self.conname!r} is not a host name or address",
                    "1 to 256 characters: a host name or dotted IP address, optionally "
                    f"followed by (port) 1 to 65535; port {DEFAULT_PORT} when omitted",
                )


for _cls in (ProfileDef, LocalQueueDef, AliasQueueDef, RemoteQueueDef, ProcessDef, ChannelDef):
    _definition(_cls)
del _cls
