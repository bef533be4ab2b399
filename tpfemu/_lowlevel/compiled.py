"""The compiled modules (``tpfemu._native`` through cffi, ``tpfemu._fastpath``), the
numbers their headers define, and the translation of the core's return codes into
:mod:`tpfemu.errors`. Only the modules of this package import the compiled ones.
"""

from __future__ import annotations

from array import array
from types import MappingProxyType

from tpfemu import errors

try:
    from tpfemu import _fastpath
    from tpfemu._native import ffi, lib
except ImportError as exc:  # pragma: no cover - only without a build
    raise ImportError(
        "tpfemu's compiled modules (tpfemu._native, tpfemu._fastpath) are not built: run "
        "`make test` (or `pip install -e .`, or `python setup.py build_ext --inplace`) first"
    ) from exc

__all__ = ["EXPIRED_PENDING", "ID_LEN", "MQGMO", "MQMO", "MQRC", "MQ_OTHER", "NEVER",
           "PRIORITIES", "TPF_RC", "ffi", "header_constants", "lib"]


def _constants(*prefixes: str) -> MappingProxyType[str, int]:
    return MappingProxyType(
        {name: getattr(lib, name) for name in dir(lib) if name.startswith(prefixes)}
    )


#: Every reason code the core can return, by IBM's mnemonic (read from the C header).
MQRC = _constants("MQRC_")
#: The MQGMO_* and MQMO_* bits the core acts on, with IBM's values.
_PLAN_GMO = ("MQGMO_SYNCPOINT", "MQGMO_NO_SYNCPOINT")  # read by a plan, not the core
MQGMO = MappingProxyType({k: v for k, v in _constants("MQGMO_").items() if k not in _PLAN_GMO})
MQMO = _constants("MQMO_")
#: The core's own codes (9000 and up: never IBM's).
TPF_RC = _constants("TPF_RC_")
#: The other MQ numbers the compiled code knows (MQMD values; MQPMO and MQGMO bits a
#: handle's plan reads).
MQ_OTHER = MappingProxyType({**_constants("MQMT_", "MQPER_", "MQPRI_", "MQEI_", "MQPMO_",
                                         "MQRO_"),
                             **{k: getattr(lib, k) for k in _PLAN_GMO}})

errors.register_reason_names(MQRC)
errors.register_reason_names(TPF_RC)

NEVER: int = lib.TPF_MQ_NEVER
"""Expiry deadline of a message that never expires."""
ID_LEN: int = lib.TPF_MQ_ID_LEN
PRIORITIES: int = lib.TPF_MQ_PRIORITIES
_PREFIX_LEN: int = lib.TPF_MQ_MSGID_PREFIX_LEN
_ZERO_ID = bytes(ID_LEN)
_NOW = lib.TPF_MQ_NOW
_OK = lib.MQRC_NONE
_TRUNC_FAILED = lib.MQRC_TRUNCATED_MSG_FAILED
_TRUNC_ACCEPTED = lib.MQRC_TRUNCATED_MSG_ACCEPTED
_NO_MSG = lib.MQRC_NO_MSG_AVAILABLE
#: get_md's flags: the get discarded expired messages, now waiting for take_expired
EXPIRED_PENDING: int = lib.TPF_MQ_F_EXPIRED_PENDING
_INITIAL_BUFFER = 64 * 1024
_CLOSED = ffi.NULL  # what a closed queue or cursor holds instead of its C object
if array("I").itemsize != 4:  # pragma: no cover - every platform we build on
    raise ImportError("tpfemu needs array('I') to hold 32-bit lengths")


def _error(rc: int, call: str, obj: str) -> errors.TpfEmuError:
    """The exception for a core return code; -1 means the queue was closed."""
    if rc == -1:
        return errors.TpfEmuError(f"queue {obj!r} is closed")
    if rc >= lib.TPF_RC_BASE:
        return errors.InternalError(f"{call} on {obj!r}: core code {errors.reason_name(rc)}")
    return errors.error_for(rc, call=call, obj=obj)


def _raise(rc: int, call: str, obj: str) -> None:
    raise _error(rc, call, obj)


def _address(cdata) -> int:
    return int(ffi.cast("uintptr_t", cdata))


# The METH_FASTCALL shim calls the functions of this one compiled core (tpfemu._native).
_fastpath.bind(
    _address(ffi.addressof(lib, "tpf_mq_put_simple")),
    _address(ffi.addressof(lib, "tpf_mq_get_alloc")),
    _address(ffi.addressof(lib, "tpf_mq_put")),
    _address(ffi.addressof(lib, "tpf_mq_get")),
    _address(ffi.addressof(lib, "tpf_mq_put_many_gather")),
    _address(ffi.addressof(lib, "tpf_mq_get_many")),
    _address(ffi.addressof(lib, "tpf_mq_commit")),
    _error,
)


def header_constants(names: list[str]) -> dict[str, int]:
    """The values the compiled headers give ``names`` (for a Python layout to check
    itself against its C twin at import)."""
    return {name: getattr(lib, name) for name in names}
