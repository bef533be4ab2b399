"""The exceptions tpfemu raises, mirroring MQ completion and reason codes.

Every error is a :class:`TpfEmuError`. MQ failures are :class:`MQMIError` (pymqi's name)
carrying ``comp`` (the completion code) and ``reason`` (the MQRC number); the common
reasons have readable subclasses that also inherit from the built-in a Python user would
reach for (``LookupError`` for "not there")::

    try:
        q.get()
    except NoMessageAvailable:        # also caught by `except MQMIError` and `except LookupError`
        ...

``str(error)`` names the call, the object and the mnemonic:
``"MQGET on 'APP.IN': MQRC_NO_MSG_AVAILABLE (2033)"``.

Reason numbers are never typed here: they come from the compiled core's header (through
:mod:`tpfemu._lowlevel`, which registers the names it knows) and, later, from the MQI's
constants. Subclasses are registered by mnemonic.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

MQCC_OK, MQCC_WARNING, MQCC_FAILED = 0, 1, 2  # IBM's completion codes (cmqc.h)

_names: dict[int, str] = {}  # reason number -> mnemonic, registered by the layers that know them
_by_name: dict[str, type[MQMIError]] = {}  # mnemonic -> subclass


class TpfEmuError(Exception):
    """Root of every error raised by tpfemu. Never raised directly."""


class InternalError(TpfEmuError, SystemError):
    """The core reported a condition that is a bug in tpfemu, not in the caller."""


class DefinitionError(TpfEmuError, ValueError):
    """An object definition (DEFINE/ALTER/DELETE) was refused; nothing was changed.

    :param message: what is wrong, naming the object.
    :param keyword: the attribute at fault (MQSC keyword, e.g. ``"MAXDEPTH"``), if any.
    :param accepted: what the attribute accepts, e.g. ``"0 to 999999999"``.
    """

    def __init__(self, message: str, *, keyword: str = "", accepted: str = "") -> None:
        self.keyword = keyword
        self.accepted = accepted
        text = message
        if keyword and accepted:
            text += f" ({keyword} accepts {accepted})"
        super().__init__(text)


class TpfcsError(TpfEmuError):
    """A TPFCS collection call failed: the ``TO2_ERROR_*`` code that z/TPF's
    ``TO2_getErrorCode`` would report, with its name (see :mod:`tpfemu.store.tpfcs`).

    Nothing was changed by the failed call (its LMDB transaction was aborted).

    :param code: the error number (tpfemu's numbering; IBM's values are not published here).
    :param code_name: the mnemonic, e.g. ``"TO2_ERROR_LOCATOR_NOT_FOUND"``.
    :param message: what is wrong, naming the collection or data store.
    :param call: the TO2 call, e.g. ``"TO2_removeKey"`` (optional, for the message).
    :param pid: the collection's PID in hex, if one is concerned.
    """

    def __init__(
        self, code: int, code_name: str, message: str, *, call: str = "", pid: str = ""
    ) -> None:
        self.code = code
        self.code_name = code_name
        self.call = call
        self.pid = pid
        self.message = message
        super().__init__(code, code_name, message)

    def __str__(self) -> str:
        """``TO2_removeKey on PID 0000000000000007: TO2_ERROR_LOCATOR_NOT_FOUND (3): ...``."""
        where = self.call or "TO2 call"
        if self.pid:
            where += f" on PID {self.pid}"
        return f"{where}: {self.code_name} ({self.code}): {self.message}"


def register_reason_names(names: Mapping[str, int]) -> None:
    """Record the mnemonics of reason codes (``{"MQRC_Q_FULL": 2053, ...}``)."""
    for name, number in names.items():
        _names.setdefault(number, name)


def reason_name(reason: int) -> str:
    """Return the MQRC mnemonic of a reason code, or ``"MQRC <number>"`` if unknown."""
    return _names.get(reason, f"MQRC {reason}")


class MQMIError(TpfEmuError):
    """An MQ call failed (or warned): carries ``comp`` and ``reason`` as pymqi's does.

    :param comp: completion code, MQCC_WARNING (1) or MQCC_FAILED (2).
    :param reason: the MQRC reason code.
    :param call: the MQI call, e.g. ``"MQGET"`` (optional, for the message).
    :param obj: the object it was made on, e.g. a queue name (optional).
    """

    hint: str = ""
    # pymqi's extras, set where a call gives them (a truncated get's data and length)
    message: bytes | None
    original_length: int | None
    # ours: what a store found wrong, where a store's error gives it (damage, I/O)
    detail: str

    def __init__(self, comp: int, reason: int, *, call: str = "", obj: str = "", **kw) -> None:
        self.comp = comp
        self.reason = reason
        self.call = call
        self.obj = obj
        for key, value in kw.items():  # pymqi's extras, e.g. message=, original_length=
            setattr(self, key, value)
        super().__init__(comp, reason)

    @property
    def reason_name(self) -> str:
        """The MQRC mnemonic, e.g. ``"MQRC_Q_FULL"``."""
        return reason_name(self.reason)

    def errorAsString(self) -> str:  # noqa: N802 - pymqi's spelling
        """pymqi's text: ``FAILED: MQRC_NO_MSG_AVAILABLE`` (``WARNING: ...`` for warnings;
        ``FAILED: Error code 9999 not defined`` for a reason with no mnemonic, as pymqi)."""
        if self.comp == 0:
            return "OK"
        level = "WARNING" if self.comp == MQCC_WARNING else "FAILED"
        name = _names.get(self.reason)
        if name is None:
            return f"{level}: Error code {self.reason} not defined"
        return f"{level}: {name}"

    def error_as_string(self) -> str:
        """ibmmq's name for :meth:`errorAsString` (the same text)."""
        return self.errorAsString()

    def get(self, key: str) -> Any:
        """ibmmq's accessor: an attribute of the error by name (``e.get("reason")``, or an
        extra such as ``"original_length"``). :raises AttributeError: no such attribute."""
        return getattr(self, key)

    @property
    def completion_code(self) -> int:
        """The completion code (``comp``) under a descriptive name."""
        return self.comp

    @property
    def reason_code(self) -> int:
        """The reason code (``reason``) under a descriptive name."""
        return self.reason

    def __str__(self) -> str:
        """pymqi's text, then the call and the object:
        ``MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE (MQGET on 'APP.IN')``.
        """
        text = f"MQI Error. Comp: {self.comp}, Reason {self.reason}: {self.errorAsString()}"
        if self.call or self.obj:
            where = self.call or "MQ call"
            if self.obj:
                where += f" on {self.obj!r}"
            text += f" ({where})"
        return f"{text}; {self.hint}" if self.hint else text


def _reason(name: str) -> Callable[[type[MQMIError]], type[MQMIError]]:
    def register(cls: type[MQMIError]) -> type[MQMIError]:
        _by_name[name] = cls
        return cls

    return register


@_reason("MQRC_NO_MSG_AVAILABLE")
class NoMessageAvailable(MQMIError, LookupError):
    """MQRC_NO_MSG_AVAILABLE: no message (matching the request) is available."""


@_reason("MQRC_NO_MSG_UNDER_CURSOR")
class NoMessageUnderCursor(MQMIError, LookupError):
    """MQRC_NO_MSG_UNDER_CURSOR: the browse cursor is not on an available message."""


@_reason("MQRC_Q_FULL")
class QueueFull(MQMIError):
    """MQRC_Q_FULL: the queue holds MAXDEPTH messages."""

    hint = "get messages or raise the queue's MAXDEPTH"


@_reason("MQRC_MSG_TOO_BIG_FOR_Q")
class MessageTooBig(MQMIError, ValueError):
    """MQRC_MSG_TOO_BIG_FOR_Q: the message is longer than the queue's MAXMSGL."""

    hint = "raise the queue's MAXMSGL or send a shorter message"


@_reason("MQRC_TRUNCATED_MSG_FAILED")
class TruncatedMessage(MQMIError):
    """MQRC_TRUNCATED_MSG_FAILED: the buffer was too small; the message stays on the queue."""

    # set by the core's get (the descriptor and context record of the message that stays)
    descriptor: Any
    context_record: bytes


@_reason("MQRC_PRIORITY_ERROR")
class PriorityError(MQMIError, ValueError):
    """MQRC_PRIORITY_ERROR: the priority is not valid (0-9, or MQPRI_PRIORITY_AS_Q_DEF)."""


@_reason("MQRC_EXPIRY_ERROR")
class ExpiryError(MQMIError, ValueError):
    """MQRC_EXPIRY_ERROR: the expiry is zero or negative (and not MQEI_UNLIMITED)."""


@_reason("MQRC_PERSISTENCE_ERROR")
class PersistenceError(MQMIError, ValueError):
    """MQRC_PERSISTENCE_ERROR: the persistence is not one of the MQPER_* values."""


@_reason("MQRC_OPTIONS_ERROR")
class OptionsError(MQMIError, ValueError):
    """MQRC_OPTIONS_ERROR: the options contradict each other or are not valid here."""


@_reason("MQRC_NO_MSG_LOCKED")
class NoMessageLocked(MQMIError):
    """MQRC_NO_MSG_LOCKED: MQGMO_UNLOCK with no message locked."""


@_reason("MQRC_STORAGE_NOT_AVAILABLE")
class StorageNotAvailable(MQMIError, MemoryError):
    """MQRC_STORAGE_NOT_AVAILABLE: not enough memory to complete the call."""


@_reason("MQRC_UNKNOWN_OBJECT_NAME")
class UnknownObjectName(MQMIError, LookupError):
    """MQRC_UNKNOWN_OBJECT_NAME: no object of that name is defined."""


@_reason("MQRC_OBJECT_IN_USE")
class ObjectInUse(MQMIError):
    """MQRC_OBJECT_IN_USE: the object is open in a way that conflicts with this request."""


@_reason("MQRC_PUT_INHIBITED")
class PutInhibited(MQMIError):
    """MQRC_PUT_INHIBITED: puts to the queue are inhibited (PUT DISABLED)."""


@_reason("MQRC_GET_INHIBITED")
class GetInhibited(MQMIError):
    """MQRC_GET_INHIBITED: gets from the queue are inhibited (GET DISABLED)."""


@_reason("MQRC_HCONN_ERROR")
class HconnError(MQMIError):
    """MQRC_HCONN_ERROR: the connection handle is not valid (disconnected?)."""


@_reason("MQRC_HOBJ_ERROR")
class HobjError(MQMIError):
    """MQRC_HOBJ_ERROR: the object handle is not valid (closed?)."""


@_reason("MQRC_NOT_OPEN_FOR_INPUT")
class NotOpenForInput(MQMIError):
    """MQRC_NOT_OPEN_FOR_INPUT: MQGET on a handle not opened for input."""


@_reason("MQRC_NOT_OPEN_FOR_OUTPUT")
class NotOpenForOutput(MQMIError):
    """MQRC_NOT_OPEN_FOR_OUTPUT: MQPUT on a handle not opened for output."""


@_reason("MQRC_Q_MGR_NAME_ERROR")
class QueueManagerNameError(MQMIError, LookupError):
    """MQRC_Q_MGR_NAME_ERROR: no queue manager of that name runs in this process."""


@_reason("MQRC_SYNCPOINT_LIMIT_REACHED")
class SyncpointLimitReached(MQMIError):
    """MQRC_SYNCPOINT_LIMIT_REACHED: the unit of work holds MAXUMSGS messages."""


@_reason("MQRC_STORAGE_MEDIUM_FULL")
class StorageFull(MQMIError):
    """MQRC_STORAGE_MEDIUM_FULL: the disk, or a store's map at its size ceiling, is full.

    Nothing of the failed call was written; everything committed before it is intact.
    """

    hint = "free disk space or raise the store's map size ceiling"

    # set by a store whose ceiling was reached: its path and its size limit in bytes
    store: str
    limit: int


@_reason("MQRC_RESOURCE_PROBLEM")
class ResourceProblem(MQMIError):
    """MQRC_RESOURCE_PROBLEM: a store ran out of a system resource (reader slots, memory)."""


@_reason("MQRC_OBJECT_DAMAGED")
class ObjectDamaged(MQMIError):
    """MQRC_OBJECT_DAMAGED: a store's files are damaged or not a store of this version."""


@_reason("MQRC_FILE_SYSTEM_ERROR")
class FileSystemError(MQMIError):
    """MQRC_FILE_SYSTEM_ERROR: the file system refused a store's read, write or sync."""


def error_for(reason: int, *, call: str = "", obj: str = "", comp: int | None = None) -> MQMIError:
    """Build the exception for a reason code (the registered subclass where there is one).

    :param comp: completion code; by default MQCC_FAILED.
    """
    cls = _by_name.get(reason_name(reason), MQMIError)
    return cls(MQCC_FAILED if comp is None else comp, reason, call=call, obj=obj)
