"""MQINQ and MQSET: object attributes by IBM selector (MQIA_* integers, MQCA_* strings).

The selectors come from the object catalog's attribute specs (each attribute names its
selector), plus the live attributes of a local queue: CURDEPTH, IPPROCS, OPPROCS, and the
queue type. Enumerated values are returned as IBM's numbers (TRIGTYPE EVERY is MQTT_EVERY);
character attributes as blank-padded bytes of IBM's length, as pymqi returns them.

The other selectors IBM documents for MQINQ on queues and on the queue manager are
answered too: where TPF's definitions have no such attribute (backout queue and
threshold, shareability, events, clustering), with the value an IBM object of that type
has by default (listed in ``docs/deviations.md``); ``MQCA_VERSION`` is tpfemu's version as
IBM's eight digits VVRRMMFF, ``MQIA_COMMAND_LEVEL`` MQCMDL_LEVEL_530 and ``MQIA_PLATFORM``
MQPL_TPF.

MQSET changes only what IBM lets it change on a queue: INHIBIT_PUT, INHIBIT_GET,
TRIGGER_CONTROL, TRIGGER_TYPE, TRIGGER_DEPTH, TRIGGER_MSG_PRIORITY, TRIGGER_DATA. It goes
through the catalog like an ALTER, so the change is validated and everyone is told;
several attributes set in one call change together or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import metadata
from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.qmgr.context import QMGR_CCSID
from tpfemu.qmgr.objects import (
    AliasQueueDef,
    LocalQueueDef,
    ObjectDef,
    ProcessDef,
    ProfileDef,
    RemoteQueueDef,
)

__all__ = ["inquire", "set_attribute", "set_attributes", "version_string"]

_CHAR_LENGTHS = {  # IBM's lengths of the character attributes we expose
    "MQCA_Q_NAME": 48, "MQCA_Q_DESC": 64, "MQCA_BASE_Q_NAME": 48,
    "MQCA_INITIATION_Q_NAME": 48, "MQCA_PROCESS_NAME": 48, "MQCA_TRIGGER_DATA": 64,
    "MQCA_REMOTE_Q_NAME": 48, "MQCA_REMOTE_Q_MGR_NAME": 48, "MQCA_XMIT_Q_NAME": 48,
    "MQCA_APPL_ID": 256, "MQCA_ENV_DATA": 128, "MQCA_USER_DATA": 128,
    "MQCA_PROCESS_DESC": 64, "MQCA_Q_MGR_NAME": 48, "MQCA_Q_MGR_DESC": 64,
    "MQCA_DEAD_LETTER_Q_NAME": 48, "MQCA_BACKOUT_REQ_Q_NAME": 48, "MQCA_VERSION": 8,
    "MQCA_COMMAND_INPUT_Q_NAME": 48, "MQCA_DEF_XMIT_Q_NAME": 48,
    "MQCA_Q_MGR_IDENTIFIER": 48, "MQCA_CHANNEL_AUTO_DEF_EXIT": 128,
    "MQCA_CLUSTER_WORKLOAD_EXIT": 128, "MQCA_CLUSTER_WORKLOAD_DATA": 32,
    "MQCA_REPOSITORY_NAME": 48, "MQCA_REPOSITORY_NAMELIST": 48, "MQCA_CLUSTER_NAME": 48,
    "MQCA_CLUSTER_NAMELIST": 48, "MQCA_TCP_NAME": 8, "MQCA_PARENT": 48,
}
_LOCAL: tuple[type, ...] = (LocalQueueDef,)
_LOCAL_ALIAS: tuple[type, ...] = (LocalQueueDef, AliasQueueDef)
_ANY_QUEUE: tuple[type, ...] = (LocalQueueDef, AliasQueueDef, RemoteQueueDef)
# Queue selectors IBM documents for MQINQ whose attribute TPF's definitions do not have:
# the value an IBM queue of the type has by default, and the types that have it.
_QUEUE_FIXED: dict[str, tuple[int | str, tuple[type, ...]]] = {
    "MQCA_BACKOUT_REQ_Q_NAME": ("", _LOCAL),
    "MQIA_BACKOUT_THRESHOLD": (0, _LOCAL),
    "MQIA_HARDEN_GET_BACKOUT": (cmqc.MQQA_BACKOUT_NOT_HARDENED, _LOCAL),
    "MQIA_SHAREABILITY": (cmqc.MQQA_SHAREABLE, _LOCAL),
    "MQIA_DEF_INPUT_OPEN_OPTION": (cmqc.MQOO_INPUT_SHARED, _LOCAL),
    "MQIA_DEFINITION_TYPE": (cmqc.MQQDT_PREDEFINED, _LOCAL),
    "MQIA_RETENTION_INTERVAL": (999_999_999, _LOCAL),
    "MQIA_DIST_LISTS": (cmqc.MQDL_NOT_SUPPORTED, _LOCAL),
    "MQIA_NPM_CLASS": (cmqc.MQNPM_CLASS_NORMAL, _LOCAL),
    "MQIA_Q_DEPTH_LOW_LIMIT": (20, _LOCAL),
    "MQIA_Q_DEPTH_HIGH_EVENT": (cmqc.MQEVR_DISABLED, _LOCAL),
    "MQIA_Q_DEPTH_LOW_EVENT": (cmqc.MQEVR_DISABLED, _LOCAL),
    "MQIA_Q_DEPTH_MAX_EVENT": (cmqc.MQEVR_DISABLED, _LOCAL),
    "MQIA_Q_SERVICE_INTERVAL": (999_999_999, _LOCAL),
    "MQIA_Q_SERVICE_INTERVAL_EVENT": (cmqc.MQQSIE_NONE, _LOCAL),
    "MQIA_PROPERTY_CONTROL": (cmqc.MQPROP_COMPATIBILITY, _LOCAL_ALIAS),
    "MQIA_DEF_BIND": (cmqc.MQBND_BIND_ON_OPEN, _ANY_QUEUE),
    "MQIA_SCOPE": (cmqc.MQSCO_Q_MGR, _ANY_QUEUE),
    "MQIA_DEF_PUT_RESPONSE_TYPE": (cmqc.MQPRT_SYNC_RESPONSE, _ANY_QUEUE),
    "MQIA_DEF_READ_AHEAD": (cmqc.MQREADA_NO, _ANY_QUEUE),
    "MQCA_CLUSTER_NAME": ("", _ANY_QUEUE),
    "MQCA_CLUSTER_NAMELIST": ("", _ANY_QUEUE),
    "MQIA_CLWL_Q_PRIORITY": (0, _ANY_QUEUE),
    "MQIA_CLWL_Q_RANK": (0, _ANY_QUEUE),
}
_QMGR_EVENTS = ("AUTHORITY", "INHIBIT", "LOCAL", "REMOTE", "START_STOP", "PERFORMANCE",
                "CHANNEL", "COMMAND", "CONFIGURATION", "LOGGER", "SSL", "BRIDGE",
                "CHANNEL_AUTO_DEF")
# Queue-manager selectors answered with a fixed value (the rest are live or the profile's).
_QMGR_FIXED: dict[str, int | str] = {
    "MQIA_MAX_PRIORITY": 9, "MQIA_SYNCPOINT": cmqc.MQSP_AVAILABLE,
    "MQCA_DEAD_LETTER_Q_NAME": "DEAD.LETTER.QUEUE",
    "MQIA_COMMAND_LEVEL": cmqc.MQCMDL_LEVEL_530, "MQIA_PLATFORM": cmqc.MQPL_TPF,
    "MQIA_CODED_CHAR_SET_ID": QMGR_CCSID, "MQIA_MAX_HANDLES": 999_999_999,
    "MQIA_DIST_LISTS": cmqc.MQDL_NOT_SUPPORTED, "MQIA_CHANNEL_AUTO_DEF": cmqc.MQCHAD_DISABLED,
    "MQIA_CLUSTER_WORKLOAD_LENGTH": 100, "MQIA_CLWL_MRU_CHANNELS": 999_999_999,
    "MQCA_COMMAND_INPUT_Q_NAME": "", "MQCA_DEF_XMIT_Q_NAME": "",
    "MQCA_CHANNEL_AUTO_DEF_EXIT": "", "MQCA_CLUSTER_WORKLOAD_EXIT": "",
    "MQCA_CLUSTER_WORKLOAD_DATA": "", "MQCA_REPOSITORY_NAME": "",
    "MQCA_REPOSITORY_NAMELIST": "", "MQCA_TCP_NAME": "", "MQCA_PARENT": "",
    **{f"MQIA_{event}_EVENT": cmqc.MQEVR_DISABLED for event in _QMGR_EVENTS},
}


def version_string() -> str:
    """tpfemu's version as IBM writes MQCA_VERSION: eight digits VVRRMMFF
    (0.1.0 is ``"00010000"``)."""
    try:
        text = metadata.version("tpfemu")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare tree
        text = "0"
    parts = [int("".join(c for c in p if c.isdigit()) or 0) for p in text.split(".")[:4]]
    parts += [0] * (4 - len(parts))
    return "".join(f"{min(p, 99):02d}" for p in parts)
_Q_TYPES = {LocalQueueDef: "MQQT_LOCAL", AliasQueueDef: "MQQT_ALIAS",
            RemoteQueueDef: "MQQT_REMOTE"}
_SETTABLE = {"MQIA_INHIBIT_PUT": "put", "MQIA_INHIBIT_GET": "get",
             "MQIA_TRIGGER_CONTROL": "trigger", "MQIA_TRIGGER_TYPE": "trigtype",
             "MQIA_TRIGGER_DEPTH": "trigdpth", "MQIA_TRIGGER_MSG_PRIORITY": "trigmpri",
             "MQCA_TRIGGER_DATA": "trigdata"}
_SET_ERRORS = {"put": "MQRC_INHIBIT_VALUE_ERROR", "get": "MQRC_INHIBIT_VALUE_ERROR",
               "trigger": "MQRC_TRIGGER_CONTROL_ERROR", "trigtype": "MQRC_TRIGGER_TYPE_ERROR",
               "trigdpth": "MQRC_TRIGGER_DEPTH_ERROR",
               "trigmpri": "MQRC_TRIGGER_MSG_PRIORITY_ERR"}


def _selector_names() -> dict[int, str]:
    return {v: k for k, v in vars(cmqc).items()
            if k.startswith(("MQIA_", "MQCA_")) and isinstance(v, int)}


_BY_NUMBER = _selector_names()

_QUEUE_LIVE = {"MQCA_Q_NAME", "MQIA_Q_TYPE", "MQIA_CURRENT_Q_DEPTH", "MQIA_OPEN_INPUT_COUNT",
               "MQIA_OPEN_OUTPUT_COUNT"}
_QMGR_LIVE = {"MQCA_Q_MGR_NAME", "MQCA_VERSION", "MQCA_Q_MGR_IDENTIFIER"} | set(_QMGR_FIXED)


def _family(*classes: type[ObjectDef]) -> set[str]:
    return {spec.selector for cls in classes for spec in cls.ATTRS.values() if spec.selector}


# IBM: a selector of no attribute of this kind of object fails MQRC_SELECTOR_ERROR (2067);
# one that belongs to the family (queues) but not to this queue type warns
# MQRC_SELECTOR_NOT_FOR_TYPE (2068).
_FAMILIES = {
    "queue": _family(LocalQueueDef, AliasQueueDef, RemoteQueueDef) | _QUEUE_LIVE
    | set(_QUEUE_FIXED),
    "process": _family(ProcessDef) | {"MQCA_PROCESS_NAME"},
    "qmgr": _family(ProfileDef) | _QMGR_LIVE,
}


def _check_family(handle: Any, obj: Any, name: str, call: str) -> None:
    if isinstance(obj, (LocalQueueDef, AliasQueueDef, RemoteQueueDef)):
        family = "queue"
    elif isinstance(obj, ProcessDef):
        family = "process"
    else:
        family = "qmgr"
    if name not in _FAMILIES[family]:
        raise _fail("MQRC_SELECTOR_ERROR", call, handle.name)


def _fail(reason: str, call: str, obj: str) -> errors.MQMIError:
    comp = errors.MQCC_WARNING if reason == "MQRC_SELECTOR_NOT_FOR_TYPE" else None
    return errors.error_for(getattr(cmqc, reason), call=call, obj=obj, comp=comp)


def _spec_for(obj: ObjectDef, selector_name: str) -> tuple[str, Any] | None:
    for attr, spec in type(obj).ATTRS.items():
        if spec.selector == selector_name:
            return attr, spec
    return None


def _value(spec: Any, value: Any, selector_name: str) -> int | bytes:
    if selector_name.startswith("MQCA_"):
        width = _CHAR_LENGTHS.get(selector_name, 48)
        return str(value).encode("ascii").ljust(width)[:width]
    if spec is not None and spec.mq_values and isinstance(value, str):
        return getattr(cmqc, spec.mq_values[value])
    if isinstance(value, str) and value in ("YES", "NO"):  # e.g. DEFPSIST
        return 1 if value == "YES" else 0
    return int(value)


def _queue_value(handle: Any, obj: ObjectDef, name: str) -> int | bytes | None:
    """A queue's live or fixed attribute; None if its definition holds it."""
    queue = handle.queue
    live = {
        "MQIA_CURRENT_Q_DEPTH": lambda: queue.core.depth,
        "MQIA_OPEN_INPUT_COUNT": lambda: queue.input_count,
        "MQIA_OPEN_OUTPUT_COUNT": lambda: queue.output_count,
    }
    if name == "MQCA_Q_NAME":
        return _value(None, obj.name, name)
    if name == "MQIA_Q_TYPE":
        return int(getattr(cmqc, _Q_TYPES[type(obj)]))
    if name in live and isinstance(obj, LocalQueueDef) and queue is not None:
        return int(live[name]())
    if name in _QUEUE_FIXED:
        value, types = _QUEUE_FIXED[name]
        if not isinstance(obj, types):
            raise _fail("MQRC_SELECTOR_NOT_FOR_TYPE", "MQINQ", handle.name)
        return _value(None, value, name)
    return None


def _qmgr_value(qmgr: Any, name: str) -> int | bytes | None:
    """A queue-manager attribute that is not the profile's; None if it is."""
    if name == "MQCA_Q_MGR_NAME" or name == "MQCA_Q_MGR_IDENTIFIER":
        return _value(None, qmgr.name, name)
    if name == "MQCA_VERSION":
        return _value(None, version_string(), name)
    if name in _QMGR_FIXED:
        return _value(None, _QMGR_FIXED[name], name)
    return None


def inquire(qmgr: Any, handle: Any, obj: ObjectDef | None, selector: int) -> int | bytes:
    """The value of one attribute of ``handle``'s object."""
    name = _BY_NUMBER.get(selector)
    if name is None:
        raise _fail("MQRC_SELECTOR_ERROR", "MQINQ", handle.name)
    _check_family(handle, obj, name, "MQINQ")
    found_value: int | bytes | None = None
    if isinstance(obj, (LocalQueueDef, AliasQueueDef, RemoteQueueDef)):
        found_value = _queue_value(handle, obj, name)
    elif isinstance(obj, ProfileDef) or (obj is None and handle.kind == cmqc.MQOT_Q_MGR):
        found_value = _qmgr_value(qmgr, name)
        if found_value is None and obj is None:
            raise _fail("MQRC_SELECTOR_NOT_FOR_TYPE", "MQINQ", handle.name)
    if found_value is not None:
        return found_value
    if isinstance(obj, ProcessDef) and name == "MQCA_PROCESS_NAME":
        return _value(None, obj.name, name)
    found = _spec_for(obj, name) if obj is not None else None
    if found is None:
        raise _fail("MQRC_SELECTOR_NOT_FOR_TYPE", "MQINQ", handle.name)
    attr, spec = found
    return _value(spec, getattr(obj, attr), name)


def _new_value(handle: Any, obj: ObjectDef, selector: int, value: Any) -> tuple[str, Any]:
    """The catalog attribute an MQSET selector changes, and its new value (checked)."""
    name = _BY_NUMBER.get(selector)
    attr = _SETTABLE.get(name) if name is not None else None
    if attr is None or name is None or _spec_for(obj, name) is None:
        # IBM: an attribute that cannot be set, or not on this type: MQRC_SELECTOR_ERROR
        raise _fail("MQRC_SELECTOR_ERROR", "MQSET", handle.name)
    spec = type(obj).ATTRS[attr]
    if name.startswith("MQCA_"):
        data = value.encode("ascii") if isinstance(value, str) else value
        if not isinstance(data, (bytes, bytearray)) or len(data) > _CHAR_LENGTHS[name]:
            raise _fail("MQRC_CHAR_ATTR_LENGTH_ERROR", "MQSET", handle.name)
        return attr, bytes(data).decode("ascii").rstrip(" \0")
    if spec.mq_values:
        reverse = {getattr(cmqc, mq): word for word, mq in spec.mq_values.items()}
        if value not in reverse:
            raise _fail(_SET_ERRORS.get(attr, "MQRC_OPTIONS_ERROR"), "MQSET", handle.name)
        return attr, reverse[value]
    return attr, value


def set_attributes(qmgr: Any, handle: Any, obj: ObjectDef | None,
                   values: Mapping[int, int | bytes | str]) -> None:
    """MQSET trigger or inhibit attributes of the queue ``handle`` names: all of them, in
    one change of the definition, or (on any refused selector or value) none."""
    if obj is None:
        raise _fail("MQRC_SELECTOR_ERROR", "MQSET", handle.name)
    if not values:
        raise _fail("MQRC_SELECTOR_COUNT_ERROR", "MQSET", handle.name)
    changes = dict(_new_value(handle, obj, selector, value) for selector, value in values.items())
    try:
        qmgr.catalog.alter(obj.type_name, obj.name, **changes)
    except errors.DefinitionError as exc:
        attr = exc.keyword.lower() if exc.keyword.lower() in changes else next(iter(changes))
        raise _fail(_SET_ERRORS.get(attr, "MQRC_OPTIONS_ERROR"), "MQSET", handle.name) from None


def set_attribute(qmgr: Any, handle: Any, obj: ObjectDef | None, selector: int,
                  value: int | bytes | str) -> None:
    """MQSET one trigger or inhibit attribute of the queue ``handle`` names."""
    set_attributes(qmgr, handle, obj, {selector: value})
