"""ibmmq's ``CMQSTRC`` module: from a constant's value back to its name, one dictionary per
family of constants, named ``<FAMILY>_DICT``::

    from tpfemu.mqi import CMQSTRC
    CMQSTRC.MQRC_DICT[2033]          # 'MQRC_NO_MSG_AVAILABLE'
    CMQSTRC.MQOT_DICT[1]             # 'MQOT_Q'
    CMQSTRC.MQCHT_DICT[6]            # 'MQCHT_CLNTCONN'

The dictionaries are made at import from :mod:`tpfemu.mq.cmqc` and :mod:`tpfemu.mq.cmqxc`
(each constant is defined once, there). The family is the name up to its first ``_``
(``MQCNO_HANDLE_SHARE_BLOCK`` is in ``MQCNO_DICT``); structure identifiers, versions and
lengths are left out, as IBM's module leaves them out. Where several names share a value,
the dictionary gives the current name (``MQAT_ZOS``, not ``MQAT_MVS``); range markers
(``*_FIRST``, ``*_LAST``), masks and ``*_DEFAULT`` never hide a real name. ``MQRC_DICT`` gives the
mnemonic errors print (:func:`tpfemu.errors.reason_name`). ``MQRCCF_DICT`` (PCF reasons)
is empty: tpfemu defines no PCF reason codes.
"""

from __future__ import annotations

import re
from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc, cmqxc

_STRUCTURAL = re.compile(r"_STRUC_ID$|_VERSION_\d+$|_LENGTH_\d+$|_CURRENT_(VERSION|LENGTH)$")
_WEAK = ("_FIRST", "_LAST", "_MASK", "_DEFAULT")


def _family(name: str) -> str | None:
    if not name.startswith("MQ") or name.startswith("MQ_") or "_" not in name:
        return None
    if _STRUCTURAL.search(name):
        return None
    return name[: name.index("_")]


def _build() -> dict[str, dict[Any, str]]:
    tables: dict[str, dict[Any, str]] = {}
    for module in (cmqc, cmqxc):
        for name, value in vars(module).items():
            family = _family(name)
            if family is None or isinstance(value, bool) or not isinstance(value, int | bytes):
                continue
            table = tables.setdefault(family, {})
            if name.endswith(_WEAK) and value in table:
                continue
            table[value] = name
    tables["MQRC"] = {number: errors.reason_name(number) for number in cmqc.REASONS.values()}
    return tables


_TABLES = _build()
globals().update({f"{family}_DICT": table for family, table in _TABLES.items()})

MQRCCF_DICT: dict[int, str] = {}
MQRC_DICT: dict[int, str] = _TABLES["MQRC"]

#: Every dictionary's name (``"MQRC_DICT"``, ...).
DICTS: tuple[str, ...] = tuple(sorted(f"{family}_DICT" for family in _TABLES)) + ("MQRCCF_DICT",)


def __getattr__(name: str) -> dict[Any, str]:
    """A family this module has no constants of: say so clearly."""
    raise AttributeError(f"CMQSTRC has no {name}; it has {', '.join(DICTS)}")
