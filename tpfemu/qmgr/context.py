"""The context record: the MQMD fields the C core does not act on, stored with the message.

The core keeps what it needs to order, match and expire a message (MsgId, CorrelId,
Priority, Persistence, expiry deadline, put time, BackoutCount). Everything else in the
MQMD — Report, MsgType, Feedback, Format, ReplyToQ, the identity and origin context, the
group fields, the original Expiry — travels as a *context record* at the head of the
message data (the core's ``ctx_len`` bytes), so it is checkpointed, logged and recovered
with the message without a second store.

A message whose fields are all the defaults below carries no record at all (``ctx_len``
0): that is the fast path of ``Queue.put(msg)`` with no MD. Such a message reads back
with the queue manager's default put context (see docs/deviations.md).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Any

from tpfemu.mq import cmqc

__all__ = ["FIELDS", "DEFAULTS", "QMGR_CCSID", "XMIT_MD_FIELDS", "encode", "decode",
           "journal_fields"]

_VERSION = 1

#: (MQMD field, struct format) in record order; the original Expiry is kept for reports.
FIELDS: tuple[tuple[str, str], ...] = (
    ("Report", "i"),
    ("MsgType", "i"),
    ("Feedback", "i"),
    ("Encoding", "i"),
    ("CodedCharSetId", "i"),
    ("Format", "8s"),
    ("ReplyToQ", "48s"),
    ("ReplyToQMgr", "48s"),
    ("UserIdentifier", "12s"),
    ("AccountingToken", "32s"),
    ("ApplIdentityData", "32s"),
    ("PutApplType", "i"),
    ("PutApplName", "28s"),
    ("ApplOriginData", "4s"),
    ("GroupId", "24s"),
    ("MsgSeqNumber", "i"),
    ("Offset", "i"),
    ("MsgFlags", "i"),
    ("OriginalLength", "i"),
    ("Expiry", "i"),
)
_STRUCT = struct.Struct("<B" + "".join(fmt for _, fmt in FIELDS))
_NAMES = tuple(name for name, _ in FIELDS)
_WIDTH = {name: int(fmt[:-1]) for name, fmt in FIELDS if fmt.endswith("s")}
_BLANK_PADDED = {"Format", "ReplyToQ", "ReplyToQMgr", "UserIdentifier", "ApplIdentityData",
                 "PutApplName", "ApplOriginData"}

#: The queue manager's CodedCharSetId (MQIA_CODED_CHAR_SET_ID): UTF-8.
QMGR_CCSID = 1208
#: A transmission-queue message's own MQMD fields (IBM, MQXQH: Format MQXMIT, and the
#: Encoding and CCSID of the MQXQH before the data: native and the queue manager's).
XMIT_MD_FIELDS = {"Format": cmqc.MQFMT_XMIT_Q_HEADER, "Encoding": cmqc.MQENC_NATIVE,
                  "CodedCharSetId": QMGR_CCSID}

#: The value of each field in a message that carries no context record. A field an MD
#: leaves at its initial value is stored as this default (see :func:`values_of`): so
#: CodedCharSetId MQCCSI_Q_MGR becomes the queue manager's own CCSID, as IBM's MQPUT
#: changes it (MQMD CodedCharSetId: MQGET never returns MQCCSI_Q_MGR).
DEFAULTS: dict[str, Any] = {
    "Report": cmqc.MQRO_NONE,
    "MsgType": cmqc.MQMT_DATAGRAM,
    "Feedback": cmqc.MQFB_NONE,
    "Encoding": cmqc.MQENC_NATIVE,
    "CodedCharSetId": QMGR_CCSID,
    "Format": cmqc.MQFMT_NONE,
    "ReplyToQ": b" " * 48,
    "ReplyToQMgr": b" " * 48,
    "UserIdentifier": b" " * 12,
    "AccountingToken": bytes(32),
    "ApplIdentityData": b" " * 32,
    "PutApplType": cmqc.MQAT_TPF,
    "PutApplName": b"TPFEMU".ljust(28),
    "ApplOriginData": b" " * 4,
    "GroupId": bytes(24),
    "MsgSeqNumber": 1,
    "Offset": 0,
    "MsgFlags": 0,
    "OriginalLength": -1,  # MQOL_UNDEFINED
    "Expiry": cmqc.MQEI_UNLIMITED,
}
_DEFAULT_VALUES = tuple(DEFAULTS[n] for n in _NAMES)


def _norm(name: str, value: Any) -> Any:
    """A field value in its stored form: bytes padded to width, or an int."""
    width = _WIDTH.get(name)
    if width is None:
        return int(value)
    if isinstance(value, str):
        value = value.encode("ascii")
    value = bytes(value)
    if len(value) > width:
        raise ValueError(f"MQMD.{name} is at most {width} bytes, not {len(value)}")
    pad = b" " if name in _BLANK_PADDED else b"\0"
    return value.ljust(width, pad)


def _md_initial_values() -> dict[str, Any]:
    from tpfemu.mq.structs import MD

    initial = MD().get()
    return {name: initial.get(name, DEFAULTS[name]) for name in _NAMES}


_MD_INITIAL = _md_initial_values()
# (field, the MD's initial value, our stored default) for the hot loop below
_TABLE = tuple((name, _MD_INITIAL[name], DEFAULTS[name]) for name in _NAMES)
_DEFAULTS_NORM = {name: _norm(name, value) for name, value in DEFAULTS.items()}


def normalized(overrides: dict[str, Any]) -> dict[str, Any]:
    """Overrides in stored form, to pass to :func:`values_of` many times (e.g. a
    connection's put context, normalized once)."""
    return {name: _norm(name, value) for name, value in overrides.items()}


def values_of(md: Any, overrides: dict[str, Any] | None = None,
              ready: dict[str, Any] | None = None) -> tuple[Any, ...]:
    """The record's field values taken from an MD-like object (missing fields: defaults).

    ``overrides`` replace fields; ``ready`` too, already in stored form (see
    :func:`normalized`). A field still at the MD's initial value stands for our default
    (only fields the application set are normalized: this runs on every MQPUT with an MD).
    """
    overrides = overrides or {}
    ready = ready or {}
    if md is None:
        return tuple(
            ready[name] if name in ready
            else _norm(name, overrides[name]) if name in overrides else _DEFAULTS_NORM[name]
            for name in _NAMES
        )
    values = getattr(md, "__dict__", None)
    out = []
    for name, initial, _default in _TABLE:
        if name in ready:
            out.append(ready[name])
            continue
        if name in overrides:
            out.append(_norm(name, overrides[name]))
            continue
        value = values.get(name, initial) if values is not None else getattr(md, name, initial)
        out.append(_DEFAULTS_NORM[name] if value == initial else _norm(name, value))
    return tuple(out)


def encode(values: tuple[Any, ...]) -> bytes:
    """The record for these field values, or b"" when they are all the defaults."""
    if values == _DEFAULT_VALUES:
        return b""
    return _STRUCT.pack(_VERSION, *values)


def decode(record: bytes) -> dict[str, Any]:
    """The fields of a record (b"": the defaults)."""
    if not record:
        return dict(DEFAULTS)
    if len(record) != _STRUCT.size or record[0] != _VERSION:
        raise ValueError(
            f"context record of {len(record)} bytes, version {record[:1]!r}: not one this "
            f"queue manager wrote ({_STRUCT.size} bytes, version {_VERSION})"
        )
    return dict(zip(_NAMES, _STRUCT.unpack(record)[1:], strict=True))


RECORD_SIZE = _STRUCT.size

# -- MQPUT and MQGET with an MD, on the fast path (CoreQueue.put_md / get_md) -----------

#: The put context fields (MQPMO_DEFAULT_CONTEXT fills them from the connection).
PUT_CONTEXT = ("UserIdentifier", "AccountingToken", "ApplIdentityData", "PutApplType",
               "PutApplName", "ApplOriginData")
#: Its identity part (MQPMO_SET_IDENTITY_CONTEXT takes these from the MD, and the origin
#: part, the others, from the connection; MQPMO_SET_ALL_CONTEXT takes all from the MD).
IDENTITY_CONTEXT = ("UserIdentifier", "AccountingToken", "ApplIdentityData")
_EXPIRY_AT = _NAMES.index("Expiry")


def put_outputs(values: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The put context fields an MQPUT writes back into an MD, split for the fast path:
    {name: value} of those whose value (in ``values``, stored form) is not the MD's
    initial value, and the names of those whose value is."""
    from tpfemu.mq.structs import MD

    differ = {f: values[f] for f in PUT_CONTEXT if values[f] != getattr(MD, f)}
    return differ, tuple(f for f in PUT_CONTEXT if f not in differ)


def base_record(ready: dict[str, Any]) -> bytes:
    """The record of a put with the put context ``ready`` (every PUT_CONTEXT field, in
    stored form) and an MD left at its initial values, packed even when it is all
    defaults: the C path of MQPUT copies it and writes in what the MD changed."""
    missing = set(PUT_CONTEXT) - set(ready)
    if missing:
        raise ValueError(f"a put context needs every one of {PUT_CONTEXT}; "
                         f"missing {sorted(missing)}")
    return _STRUCT.pack(_VERSION, *values_of(None, None, ready))


def origin_record(origin: dict[str, Any]) -> bytes:
    """The record of a put with MQPMO_SET_IDENTITY_CONTEXT whose MD is left at its
    initial values: the origin context ``origin`` (stored form, the connection's) and
    the identity fields at their defaults, packed even when it is all defaults."""
    return _STRUCT.pack(_VERSION, *values_of(None, None, origin))


def put_context_as_given(md_get: Callable[[str, Any], Any]) -> dict[str, Any]:
    """MQPMO_SET_ALL_CONTEXT's put context: every PUT_CONTEXT field as the MD holds it
    (``md_get(name, initial)``), its initial value included. IBM takes them all from the
    MD: no default of ours (PutApplName TPFEMU, PutApplType MQAT_TPF) stands in."""
    return {f: md_get(f, _MD_INITIAL[f]) for f in PUT_CONTEXT}


def set_all_record() -> bytes:
    """The record of a put with MQPMO_SET_ALL_CONTEXT whose MD is left at its initial
    values, packed: the defaults, but the put context at the MD's initial values."""
    given = {f: _norm(f, _MD_INITIAL[f]) for f in PUT_CONTEXT}
    return _STRUCT.pack(_VERSION, *(given.get(n, d) for n, d in zip(_NAMES, _DEFAULT_VALUES,
                                                                      strict=True)))


# Where a put with an MD takes each record field from (the C path reads it): never from
# the MD (Expiry: the put's own); always; with SET_IDENTITY or SET_ALL; with SET_ALL only.
_FROM_NEVER, _FROM_MD, _FROM_IDENTITY, _FROM_ALL = 0, 1, 2, 3


def _source(name: str) -> int:
    if name == "Expiry":
        return _FROM_NEVER
    if name in IDENTITY_CONTEXT:
        return _FROM_IDENTITY
    return _FROM_ALL if name in PUT_CONTEXT else _FROM_MD


def _register_layout() -> None:
    """Hand the record's layout to the C path of MQPUT/MQGET with an MD, so the record
    is defined here only (tpfemu._lowlevel.set_md_layout)."""
    from tpfemu._lowlevel import set_md_layout
    from tpfemu.mq.structs import MD

    spec, offset = [], 1  # the version byte comes first
    for name, fmt in FIELDS:
        if fmt == "i":
            kind, width = 0, 4
        else:
            kind, width = (1 if name in _BLANK_PADDED else 2), _WIDTH[name]
        spec.append((name, kind, width, offset, _MD_INITIAL[name], DEFAULTS[name],
                      _source(name)))
        offset += width
    if offset != _STRUCT.size:  # pragma: no cover - the formats above are all i or Ns
        raise AssertionError("context record layout: offsets do not add up")
    initials = {n: getattr(MD, n) for n in ("Priority", "Persistence", "Expiry", "MsgType",
                                            "ReplyToQ", "MsgId", "CorrelId", "PutDate",
                                            "PutTime")}
    set_md_layout(_VERSION, _STRUCT.size, tuple(spec), spec[_EXPIRY_AT][3],
                  _STRUCT.pack(_VERSION, *_DEFAULT_VALUES), initials)


_register_layout()


_JOURNALED = (("msg_type", _NAMES.index("MsgType")), ("format", _NAMES.index("Format")),
              ("reply_to_q", _NAMES.index("ReplyToQ")),
              ("reply_to_qmgr", _NAMES.index("ReplyToQMgr")))


def journal_fields(values: tuple[Any, ...]) -> dict[str, Any]:
    """The fields of a record's values (see :func:`values_of`) the event journal records
    of each message, by their event field names (docs/journal.md)."""
    return {key: values[at] for key, at in _JOURNALED}
