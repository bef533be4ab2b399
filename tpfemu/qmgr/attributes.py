"""MQINQ and MQSET: object attributes by IBM selector (MQIA_* integers, MQCA_* strings).

The selectors come from the object catalog's attribute specs (each attribute names its
selector), plus the live attributes of a local queue: CURDEPTH, IPPROCS, OPPROCS, and the
queue type. Enumerated values are returned as IBM's numbers (TRIGTYPE EVERY is MQTT_EVERY);
character attributes as blank-padded bytes of IBM's length, as pymqi returns them.

MQSET changes only what IBM lets it change on a queue: INHIBIT_PUT, INHIBIT_GET,
TRIGGER_CONTROL, TRIGGER_TYPE, TRIGGER_DEPTH, TRIGGER_MSG_PRIORITY, TRIGGER_DATA. It goes
through the catalog like an ALTER, so the change is validated and everyone is told.
"""

from __future__ import annotations

from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.qmgr.objects import (
    AliasQueueDef,
    LocalQueueDef,
    ObjectDef,
    ProcessDef,
    ProfileDef,
    RemoteQueueDef,
)

__all__ = ["inquire", "set_attribute"]

_CHAR_LENGTHS = {  # IBM's lengths of the character attributes we expose
    "MQCA_Q_NAME": 48, "MQCA_Q_DESC": 64, "MQCA_BASE_Q_NAME": 48,
    "MQCA_INITIATION_Q_NAME": 48, "MQCA_PROCESS_NAME": 48, "MQCA_TRIGGER_DATA": 64,
    "MQCA_REMOTE_Q_NAME": 48, "MQCA_REMOTE_Q_MGR_NAME": 48, "MQCA_XMIT_Q_NAME": 48,
    "MQCA_APPL_ID": 256, "MQCA_ENV_DATA": 128, "MQCA_USER_DATA": 128,
    "MQCA_PROCESS_DESC": 64, "MQCA_Q_MGR_NAME": 48, "MQCA_Q_MGR_DESC": 64,
    "MQCA_DEAD_LETTER_Q_NAME": 48,
}
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
_QMGR_LIVE = {"MQCA_Q_MGR_NAME", "MQIA_MAX_PRIORITY", "MQIA_SYNCPOINT",
              "MQCA_DEAD_LETTER_Q_NAME"}


def _family(*classes: type) -> set[str]:
    return {spec.selector for cls in classes for spec in cls.ATTRS.values() if spec.selector}


# IBM: a selector of no attribute of this kind of object fails MQRC_SELECTOR_ERROR (2067);
# one that belongs to the family (queues) but not to this queue type warns
# MQRC_SELECTOR_NOT_FOR_TYPE (2068).
_FAMILIES = {
    "queue": _family(LocalQueueDef, AliasQueueDef, RemoteQueueDef) | _QUEUE_LIVE,
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


def inquire(qmgr: Any, handle: Any, obj: ObjectDef | None, selector: int) -> int | bytes:
    """The value of one attribute of ``handle``'s object."""
    name = _BY_NUMBER.get(selector)
    if name is None:
        raise _fail("MQRC_SELECTOR_ERROR", "MQINQ", handle.name)
    _check_family(handle, obj, name, "MQINQ")
    queue = handle.queue
    live = {
        "MQIA_CURRENT_Q_DEPTH": lambda: queue.core.depth,
        "MQIA_OPEN_INPUT_COUNT": lambda: queue.input_count,
        "MQIA_OPEN_OUTPUT_COUNT": lambda: queue.output_count,
    }
    if isinstance(obj, (LocalQueueDef, AliasQueueDef, RemoteQueueDef)):
        if name == "MQCA_Q_NAME":
            return _value(None, obj.name, name)
        if name == "MQIA_Q_TYPE":
            return getattr(cmqc, _Q_TYPES[type(obj)])
        if name in live and isinstance(obj, LocalQueueDef) and queue is not None:
            return live[name]()
    if isinstance(obj, ProfileDef) or (obj is None and handle.kind == cmqc.MQOT_Q_MGR):
        qm_values = {"MQCA_Q_MGR_NAME": qmgr.name, "MQIA_MAX_PRIORITY": 9,
                     "MQIA_SYNCPOINT": cmqc.MQSP_AVAILABLE,
                     "MQCA_DEAD_LETTER_Q_NAME": "DEAD.LETTER.QUEUE"}
        if name in qm_values:
            return _value(None, qm_values[name], name)
        if obj is None:
            raise _fail("MQRC_SELECTOR_NOT_FOR_TYPE", "MQINQ", handle.name)
    if isinstance(obj, ProcessDef) and name == "MQCA_PROCESS_NAME":
        return _value(None, obj.name, name)
    found = _spec_for(obj, name) if obj is not None else None
    if found is None:
        raise _fail("MQRC_SELECTOR_NOT_FOR_TYPE", "MQINQ", handle.name)
    attr, spec = found
    return _value(spec, getattr(obj, attr), name)


def set_attribute(qmgr: Any, handle: Any, obj: ObjectDef | None, selector: int,
                  value: int | bytes | str) -> None:
    """MQSET one trigger or inhibit attribute of the queue ``handle`` names."""
    name = _BY_NUMBER.get(selector)
    attr = _SETTABLE.get(name) if name is not None else None
    if attr is None or obj is None or _spec_for(obj, name) is None:
        # IBM: an attribute that cannot be set, or not on this type: MQRC_SELECTOR_ERROR
        raise _fail("MQRC_SELECTOR_ERROR", "MQSET", handle.name)
    spec = type(obj).ATTRS[attr]
    if isinstance(value, (bytes, bytearray)):
        new: Any = bytes(value).decode("ascii").rstrip()
    elif spec.mq_values:
        reverse = {getattr(cmqc, mq): word for word, mq in spec.mq_values.items()}
        if value not in reverse:
            raise _fail(_SET_ERRORS.get(attr, "MQRC_OPTIONS_ERROR"), "MQSET", handle.name)
        new = reverse[value]
    else:
        new = value
    try:
        qmgr.catalog.alter(obj.type_name, obj.name, **{attr: new})
    except errors.DefinitionError:
        raise _fail(_SET_ERRORS.get(attr, "MQRC_OPTIONS_ERROR"), "MQSET", handle.name) from None
