"""Every keyword of every object type through the console: a good value, a bad value, a
value out of range, and the keyword on an object type that does not have it.

The cases are generated from the catalog's attribute specs, so a keyword added to a
definition is tested here without anyone listing it.
"""

from __future__ import annotations

from typing import Any

import pytest
from console_helpers import ids, ok, refused

from tpfemu.console import messages as m
from tpfemu.qmgr.objects import DEFINITION_TYPES, AttrSpec

TYPES = ["MQP", "QL", "QA", "QR", "PROC", "CHL"]

# Operands every DEFINE of the type needs; a keyword under test replaces its own.
BASE = {
    "MQP": {},
    "QL": {},
    "QA": {"TARGQ": "OTHER.Q"},
    "QR": {"RQMNAME": "QM2"},
    "PROC": {"APPLID": "QZZ1"},
    "CHL": {"CHLTYPE": "SDR", "CONNAME": "HOST.EXAMPLE.COM", "XMITQ": "XMIT.Q"},
}
# Good values where the spec alone does not give one that fits every rule.
GOOD = {
    ("PROC", "APPLID"): ["ABCD", "Z999"],
    ("CHL", "CONNAME"): ["'10.1.2.3(1415)'", "ny.example.com"],
    ("CHL", "CHLTYPE"): ["SDR", "rcvr", "SVRCONN"],
    ("CHL", "XMITQ"): ["XQ.NEW", "'Mixed.Case'"],  # a sender needs one
}
NAME = {"MQP": None, "QL": "KW.Q", "QA": "KW.A", "QR": "KW.R", "PROC": "KW.P", "CHL": "KW.C"}


def _specs() -> list[tuple[str, AttrSpec]]:
    return [(t, spec) for t in TYPES for spec in DEFINITION_TYPES[t].ATTRS.values()]


def _id(case: tuple[str, AttrSpec]) -> str:
    return f"{case[0]}-{case[1].keyword}"


SPECS = _specs()


def _good_values(type_name: str, spec: AttrSpec) -> list[str]:
    if (type_name, spec.keyword) in GOOD:
        return GOOD[type_name, spec.keyword]
    if spec.kind == "int":
        return [str(spec.low), str(spec.high)]
    if spec.kind in ("enum", "appltype"):
        return [v.lower() for v in spec.values]
    if spec.kind == "text":
        return ["'Mixed case, with blanks'", "'" + "x" * spec.max_len + "'", "''"]
    assert spec.kind == "name"
    return ["SOME.NAME", "'Mixed.Case'"] + ([] if spec.required else ["''"])


def _stored(value: str, spec: AttrSpec) -> Any:
    """What the catalog stores for a value typed at the console."""
    if value.startswith("'"):
        text = value[1:-1]
    else:
        text = value.upper()
    if spec.kind == "int" or (spec.kind == "appltype" and text.isdigit()):
        return int(text)
    if spec.kind in ("enum", "appltype"):
        return text.upper()
    return text


def _define(type_name: str, keyword: str, value: str) -> str:
    operands = dict(BASE[type_name])
    if (type_name, keyword, value.upper()) in (("CHL", "CHLTYPE", "RCVR"),
                                                ("CHL", "CHLTYPE", "SVRCONN")):
        operands = {}  # only senders take CONNAME and XMITQ
    operands[keyword] = value
    name = NAME[type_name]
    target = type_name if name is None else f"{type_name}-{name}"
    return f"ZMQSC DEF {target} " + " ".join(f"{k}-{v}" for k, v in operands.items())


@pytest.fixture
def big_mqp(system):
    """A profile whose MAXMSGL lets a QL take its full MAXMSGL range."""
    ok(system, "ZMQSC DEF MQP MAXMSGL-104857600")
    return system


@pytest.mark.parametrize("case", SPECS, ids=_id)
def test_good_values(big_mqp, case):
    """Each keyword takes every good value (ends of ranges, each enumerated value in any
    case, quoted and empty text) and the catalog stores it."""
    type_name, spec = case
    catalog = big_mqp.qmgr.catalog
    for value in _good_values(type_name, spec):
        if type_name == "MQP":
            command = f"ZMQSC DEF MQP REPLACE {spec.keyword}-{value}"
        else:
            command = _define(type_name, spec.keyword, value)
            big_mqp.console(f"ZMQSC DEL {type_name}-{NAME[type_name]}")  # from the last value
        response = ok(big_mqp, command)
        assert ids(response)[0] in (m.DEFINED.id, m.REPLACED.id, m.PROFILE_DEFINED.id)
        stored = catalog.get(type_name, NAME[type_name])
        attr = spec.keyword.lower()
        assert getattr(stored, attr) == _stored(value, spec), (command, getattr(stored, attr))


def _bad_value(type_name: str, spec: AttrSpec) -> str | None:
    if spec.kind in ("int", "appltype"):
        return "TEN"
    if spec.kind == "enum":
        return "BOGUS"
    if spec.kind == "name":
        return "A#B"
    if (type_name, spec.keyword) == ("CHL", "CONNAME"):
        return "'host name(1414)'"
    if (type_name, spec.keyword) == ("PROC", "APPLID"):
        return "'qzz1'"
    return None  # free text: every string is good (length is the range)


BAD = [case for case in SPECS if _bad_value(*case) is not None]


@pytest.mark.parametrize("case", BAD, ids=_id)
def test_bad_values(big_mqp, case):
    """A bad value is refused naming the keyword and what it accepts; nothing changes."""
    type_name, spec = case
    value = _bad_value(type_name, spec)
    if type_name == "MQP":
        command = f"ZMQSC ALT MQP {spec.keyword}-{value}"
    else:
        command = _define(type_name, spec.keyword, value)
    response = refused(big_mqp, command, spec.keyword, "ACCEPTS")
    assert ids(response) == [m.REFUSED.id]
    if (type_name, spec.keyword) not in GOOD and spec.keyword != "APPLID":
        assert spec.accepted.upper() in response.upper()


def _out_of_range(type_name: str, spec: AttrSpec) -> list[str]:
    if spec.kind in ("int", "appltype"):
        values = [str(spec.high + 1)]
        if spec.low > 0:
            values.append(str(spec.low - 1))
        return values
    if spec.kind == "text":
        return ["'" + "x" * (spec.max_len + 1) + "'"]
    if spec.kind == "name":
        return ["A" * 49] + (["''"] if spec.required else [])
    return []  # enumerations have no range: every other word is a bad value


RANGED = [case for case in SPECS if _out_of_range(*case)]


@pytest.mark.parametrize("case", RANGED, ids=_id)
def test_out_of_range(big_mqp, case):
    """A value beyond the keyword's range (or length) is refused naming the keyword."""
    type_name, spec = case
    for value in _out_of_range(type_name, spec):
        if type_name == "MQP":
            command = f"ZMQSC ALT MQP {spec.keyword}-{value}"
        else:
            command = _define(type_name, spec.keyword, value)
        refused(big_mqp, command, spec.keyword)


def _other_type(type_name: str, keyword: str) -> str | None:
    for other in TYPES:
        if other != type_name and keyword.lower() not in DEFINITION_TYPES[other].ATTRS:
            return other
    return None  # every definition has it (DESCR): use a verb whose operands lack it


@pytest.mark.parametrize("case", SPECS, ids=_id)
def test_wrong_object_type(big_mqp, case):
    """A keyword on an object type that lacks it is refused, listing that type's keywords."""
    type_name, spec = case
    other = _other_type(type_name, spec.keyword)
    good = _good_values(type_name, spec)[0]
    if other is None:
        command, valid = f"ZMQSC RESET CHL-KW.C {spec.keyword}-{good}", ["SEQNUM"]
    else:
        valid = [keyword.upper() for keyword in DEFINITION_TYPES[other].ATTRS]
        command = _define(other, spec.keyword, good) if other != "MQP" else (
            f"ZMQSC ALT MQP {spec.keyword}-{good}")
    response = refused(big_mqp, command, spec.keyword, "VALID KEYWORDS", *valid)
    assert ids(response) == [m.UNKNOWN_KEYWORD.id]


@pytest.mark.parametrize("case", SPECS, ids=_id)
def test_alter_each_keyword(big_mqp, case):
    """ALTER changes each alterable keyword and refuses to change COMMON and CHLTYPE."""
    type_name, spec = case
    if type_name != "MQP":
        ok(big_mqp, _define(type_name, "DESCR", "'x'"))
    target = "MQP" if type_name == "MQP" else f"{type_name}-{NAME[type_name]}"
    catalog = big_mqp.qmgr.catalog
    current = getattr(catalog.get(type_name, NAME[type_name]), spec.keyword.lower())
    values = [v for v in _good_values(type_name, spec) if _stored(v, spec) != current]
    value = values[0] if values else current
    if spec.alterable:
        ok(big_mqp, f"ZMQSC ALT {target} {spec.keyword}-{value}")
        assert getattr(catalog.get(type_name, NAME[type_name]), spec.keyword.lower()) == \
            _stored(value, spec)
    else:
        changed = {"QL": "YES", "CHL": "RCVR"}[type_name]
        refused(big_mqp, f"ZMQSC ALT {target} {spec.keyword}-{changed}", spec.keyword,
                "CANNOT BE CHANGED")
        ok(big_mqp, f"ZMQSC ALT {target} {spec.keyword}-{current}")  # no change: allowed


def test_every_keyword_is_covered():
    """The generated cases reach every keyword of every definable type."""
    assert {(t, s.keyword) for t, s in SPECS} == {
        (t, s.keyword) for t in TYPES for s in DEFINITION_TYPES[t].ATTRS.values()}
    assert set(TYPES) == set(DEFINITION_TYPES)


# -- rules between keywords -----------------------------------------------------------------


def test_qdepthhi_invalid_with_common_yes(big_mqp):
    """QDEPTHHI other than 0 is refused on a COMMON-YES queue, naming QDEPTHHI."""
    refused(big_mqp, "ZMQSC DEF QL-S COMMON-YES QDEPTHHI-10", "QDEPTHHI", "COMMON")
    ok(big_mqp, "ZMQSC DEF QL-S COMMON-YES QDEPTHHI-0")
    refused(big_mqp, "ZMQSC ALT QL-S QDEPTHHI-5", "QDEPTHHI")


def test_maxmsgl_bounded_by_profile(mqp):
    """A QL's MAXMSGL cannot exceed the profile's MAXMSGL."""
    limit = mqp.qmgr.catalog.profile.maxmsgl
    refused(mqp, f"ZMQSC DEF QL-M MAXMSGL-{limit + 1}", "MAXMSGL", str(limit))
    ok(mqp, f"ZMQSC DEF QL-M MAXMSGL-{limit}")


def test_transmission_queue_cannot_be_shared(mqp):
    """USAGE-XMITQ with COMMON-YES is refused naming USAGE."""
    refused(mqp, "ZMQSC DEF QL-X USAGE-XMITQ COMMON-YES", "USAGE")


def test_tpf_process_needs_program_name(mqp):
    """A TPF process's APPLID must be a 4-character program name."""
    refused(mqp, "ZMQSC DEF PROC-P", "APPLID", "REQUIRED")
    refused(mqp, "ZMQSC DEF PROC-P APPLID-TOOLONG", "APPLID", "4 CHARACTERS")
    ok(mqp, "ZMQSC DEF PROC-P APPLID-'/usr/bin/app arg' APPLTYPE-UNIX")


def test_an_unknown_keyword_lists_each_valid_keyword_once(mqp):
    """DEF QL with an unknown keyword names it and lists the valid keywords, each once
    (TRIGGER is both TRIGGER-YES/NO and the TRIGGER switch)."""
    out = mqp.console("ZMQSC DEF QL-K MAXD-5")
    assert "MAXD IS NOT A DEFINE QL KEYWORD" in out
    valid = [k.strip() for k in out.split("VALID KEYWORDS ARE ", 1)[1].split(",")]
    assert "MAXDEPTH" in valid and "NOTRIGGER" in valid and "TRIGGER" in valid
    assert len(valid) == len(set(valid)), valid
