"""Object definitions: attribute specs, validation, name rules and dict round trips."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.errors import DefinitionError
from tpfemu.qmgr.objects import (
    DEFINITION_TYPES,
    NAME_RULE,
    AliasQueueDef,
    LocalQueueDef,
    ObjectDef,
    ProcessDef,
    ProfileDef,
    RemoteQueueDef,
    check_name,
)

REQUIRED: dict[str, dict[str, Any]] = {
    "MQP": {},
    "QL": {},
    "QA": {"targq": "TARGET.Q"},
    "QR": {"rqmname": "QM2"},
    "PROC": {"applid": "QZZ1"},
    "CHL": {"chltype": "SDR", "conname": "HOST.EXAMPLE", "xmitq": "XMIT.Q"},
}


def make(type_name: str, name: str = "OBJ.X", **attrs: Any) -> ObjectDef:
    """Build a definition of a type with its required attributes filled in."""
    return DEFINITION_TYPES[type_name](name=name, **{**REQUIRED[type_name], **attrs})


def refused(type_name: str, keyword: str, **attrs: Any) -> DefinitionError:
    """Assert that building is refused naming ``keyword``; return the error."""
    with pytest.raises(DefinitionError) as info:
        make(type_name, **attrs)
    assert info.value.keyword == keyword
    assert keyword in str(info.value)
    return info.value


# (type, attribute, low, high, default) -- written out, not read from the specs.
INT_RANGES = [
    ("MQP", "maxmsgl", 1, 104_857_600, 4_194_304),
    ("MQP", "batchsz", 1, 9999, 50),
    ("MQP", "trigint", 0, 999_999_999, 999_999_999),
    ("MQP", "expryint", 0, 99_999_999, 0),
    ("MQP", "qdt", 1, 86_400, 60),
    ("MQP", "maxumsgs", 1, 999_999_999, 10_000),
    ("QL", "defprty", 0, 9, 0),
    ("QL", "maxdepth", 0, 999_999_999, 999_999_999),
    ("QL", "maxmsgl", 0, 104_857_600, 4_194_304),
    ("QL", "qdepthhi", 0, 100, 0),
    ("QL", "trigdpth", 1, 999_999_999, 1),
    ("QL", "trigmpri", 0, 9, 0),
    ("QA", "defprty", 0, 9, 0),
    ("QR", "defprty", 0, 9, 0),
]

# (type, attribute, values, default)
ENUMS = [
    ("QL", "usage", ("NORMAL", "XMITQ"), "NORMAL"),
    ("QL", "common", ("YES", "NO"), "NO"),
    ("QL", "put", ("ENABLED", "DISABLED"), "ENABLED"),
    ("QL", "get", ("ENABLED", "DISABLED"), "ENABLED"),
    ("QL", "defpsist", ("YES", "NO"), "NO"),
    ("QL", "msgdlvsq", ("PRIORITY", "FIFO"), "PRIORITY"),
    ("QL", "trigger", ("YES", "NO"), "NO"),
    ("QL", "trigtype", ("NONE", "FIRST", "EVERY", "DEPTH"), "FIRST"),
    ("QA", "put", ("ENABLED", "DISABLED"), "ENABLED"),
    ("QA", "get", ("ENABLED", "DISABLED"), "ENABLED"),
    ("QA", "defpsist", ("YES", "NO"), "NO"),
    ("QR", "put", ("ENABLED", "DISABLED"), "ENABLED"),
    ("QR", "defpsist", ("YES", "NO"), "NO"),
    ("PROC", "appltype", ("TPF", "CICS", "UNIX", "DEFAULT"), "TPF"),
]

# (type, attribute, maximum length); all default to "".
TEXTS = [
    ("MQP", "descr", 64),
    ("QL", "descr", 64),
    ("QL", "trigdata", 64),
    ("QA", "descr", 64),
    ("QR", "descr", 64),
    ("PROC", "envdata", 128),
    ("PROC", "userdata", 128),
    ("PROC", "descr", 64),
]

# (type, attribute, required) for attributes holding an object name.
NAMES = [
    ("QL", "initq", False),
    ("QL", "process", False),
    ("QA", "targq", True),
    ("QR", "rname", False),
    ("QR", "rqmname", True),
    ("QR", "xmitq", False),
]

SELECTORS = {
    "MQP": {"maxmsgl": "MQIA_MAX_MSG_LENGTH", "trigint": "MQIA_TRIGGER_INTERVAL",
            "expryint": "MQIA_EXPIRY_INTERVAL", "maxumsgs": "MQIA_MAX_UNCOMMITTED_MSGS",
            "descr": "MQCA_Q_MGR_DESC", "batchsz": None, "qdt": None},
    "QL": {"usage": "MQIA_USAGE", "common": None, "put": "MQIA_INHIBIT_PUT",
           "get": "MQIA_INHIBIT_GET", "defpsist": "MQIA_DEF_PERSISTENCE",
           "defprty": "MQIA_DEF_PRIORITY", "msgdlvsq": "MQIA_MSG_DELIVERY_SEQUENCE",
           "maxdepth": "MQIA_MAX_Q_DEPTH", "maxmsgl": "MQIA_MAX_MSG_LENGTH",
           "qdepthhi": "MQIA_Q_DEPTH_HIGH_LIMIT", "trigger": "MQIA_TRIGGER_CONTROL",
           "trigtype": "MQIA_TRIGGER_TYPE", "trigdpth": "MQIA_TRIGGER_DEPTH",
           "trigmpri": "MQIA_TRIGGER_MSG_PRIORITY", "trigdata": "MQCA_TRIGGER_DATA",
           "initq": "MQCA_INITIATION_Q_NAME", "process": "MQCA_PROCESS_NAME",
           "descr": "MQCA_Q_DESC"},
    "QA": {"targq": "MQCA_BASE_Q_NAME", "put": "MQIA_INHIBIT_PUT", "get": "MQIA_INHIBIT_GET",
           "defpsist": "MQIA_DEF_PERSISTENCE", "defprty": "MQIA_DEF_PRIORITY",
           "descr": "MQCA_Q_DESC"},
    "QR": {"rname": "MQCA_REMOTE_Q_NAME", "rqmname": "MQCA_REMOTE_Q_MGR_NAME",
           "xmitq": "MQCA_XMIT_Q_NAME", "put": "MQIA_INHIBIT_PUT",
           "defpsist": "MQIA_DEF_PERSISTENCE", "defprty": "MQIA_DEF_PRIORITY",
           "descr": "MQCA_Q_DESC"},
    "PROC": {"applid": "MQCA_APPL_ID", "appltype": "MQIA_APPL_TYPE",
             "envdata": "MQCA_ENV_DATA", "userdata": "MQCA_USER_DATA",
             "descr": "MQCA_PROCESS_DESC"},
}  # fmt: skip


@pytest.mark.parametrize(("type_name", "attr", "low", "high", "default"), INT_RANGES)
def test_integer_range_boundaries(type_name, attr, low, high, default):
    """Each integer attribute accepts both ends of its range and refuses one beyond either."""
    assert getattr(make(type_name, **{attr: low}), attr) == low
    assert getattr(make(type_name, **{attr: high}), attr) == high
    error = refused(type_name, attr.upper(), **{attr: high + 1})
    assert error.accepted == f"{low} to {high}"
    refused(type_name, attr.upper(), **{attr: low - 1})


@pytest.mark.parametrize(("type_name", "attr", "low", "high", "default"), INT_RANGES)
def test_integer_defaults(type_name, attr, low, high, default):
    """Each integer attribute has the documented default."""
    assert getattr(make(type_name), attr) == default
    assert DEFINITION_TYPES[type_name].ATTRS[attr].default == default


@pytest.mark.parametrize("bad", [True, 1.5, "ten", "", None, "-1", " 5"])
def test_integer_attributes_refuse_non_integers(bad):
    """An integer attribute refuses booleans, floats, None and non-decimal strings."""
    refused("QL", "MAXDEPTH", maxdepth=bad)


def test_integer_attributes_accept_decimal_strings():
    """A decimal string (what a console hands over) is stored as an int."""
    assert make("QL", maxdepth="100").maxdepth == 100


@pytest.mark.parametrize(("type_name", "attr", "values", "default"), ENUMS)
def test_enumerated_values(type_name, attr, values, default):
    """Each enumerated attribute accepts its values in any case, stores them upper-case,
    defaults as documented and refuses anything else listing every accepted value."""
    for value in values:
        assert getattr(make(type_name, **{attr: value.lower()}), attr) == value
    assert getattr(make(type_name), attr) == default
    error = refused(type_name, attr.upper(), **{attr: "BOGUS"})
    assert all(value in error.accepted for value in values)
    refused(type_name, attr.upper(), **{attr: 1 if attr != "appltype" else None})


@pytest.mark.parametrize(("type_name", "attr", "limit"), TEXTS)
def test_text_lengths(type_name, attr, limit):
    """Each text attribute accepts 0 to its maximum length and refuses one more character."""
    assert getattr(make(type_name), attr) == ""
    assert getattr(make(type_name, **{attr: "x" * limit}), attr) == "x" * limit
    error = refused(type_name, attr.upper(), **{attr: "x" * (limit + 1)})
    assert error.accepted == f"0 to {limit} characters"
    refused(type_name, attr.upper(), **{attr: 5})


@pytest.mark.parametrize(("type_name", "attr", "required"), NAMES)
def test_name_attributes(type_name, attr, required):
    """Name-valued attributes take an MQ name, refuse bad names, and are empty unless required."""
    assert getattr(make(type_name, **{attr: "Mixed.Case_%/9"}), attr) == "Mixed.Case_%/9"
    refused(type_name, attr.upper(), **{attr: "A" * 49})
    refused(type_name, attr.upper(), **{attr: "BAD NAME"})
    if required:
        error = refused(type_name, attr.upper(), **{attr: ""})
        assert "required" in str(error)
    else:
        assert getattr(make(type_name, **{attr: ""}), attr) == ""
        assert getattr(make(type_name), attr) == ""


@pytest.mark.parametrize("type_name", ["QA", "QR"])
def test_required_attribute_missing(type_name):
    """QA without TARGQ and QR without RQMNAME are refused."""
    with pytest.raises(DefinitionError) as info:
        DEFINITION_TYPES[type_name](name="X")
    assert info.value.keyword == {"QA": "TARGQ", "QR": "RQMNAME"}[type_name]


@pytest.mark.parametrize("name", ["A", "A" * 48, "az.AZ_09/%", "all", "All"])
def test_valid_object_names(name):
    """Names of 1-48 characters from A-Z a-z 0-9 . / _ % are accepted as given."""
    assert make("QL", name=name).name == name
    assert check_name(name, "QL") == name


@pytest.mark.parametrize("name", ["", "A" * 49, "ALL", "A B", "A-B", "A*", "A#", "Ä", "A\n"])
def test_invalid_object_names(name):
    """Empty, over 48 characters, the reserved ALL, and other characters are refused."""
    with pytest.raises(DefinitionError) as info:
        make("QL", name=name)
    assert info.value.keyword == "QL"
    assert info.value.accepted == NAME_RULE


def test_name_errors_say_what_is_wrong():
    """The name error says why: its length, the bad characters, or that it is reserved."""
    with pytest.raises(DefinitionError, match="49 characters"):
        check_name("A" * 49, "QL")
    with pytest.raises(DefinitionError, match="'#'"):
        check_name("A#", "QL")
    with pytest.raises(DefinitionError, match="reserved"):
        check_name("ALL", "PROC")


def test_common_yes_refuses_qdepthhi():
    """QDEPTHHI other than 0 is refused on a processor-shared (COMMON YES) queue."""
    assert make("QL", common="YES", qdepthhi=0).qdepthhi == 0
    assert make("QL", common="NO", qdepthhi=80).qdepthhi == 80
    error = refused("QL", "QDEPTHHI", common="YES", qdepthhi=1)
    assert "COMMON" in error.accepted


def test_transmission_queues_are_processor_unique():
    """USAGE XMITQ with COMMON YES is refused; with COMMON NO it is accepted."""
    assert make("QL", usage="XMITQ").common == "NO"
    error = refused("QL", "USAGE", usage="XMITQ", common="YES")
    assert "processor" in str(error)


def test_alias_cannot_target_itself():
    """A QA whose TARGQ is its own name is refused."""
    refused("QA", "TARGQ", name="SELF", targq="SELF")


@pytest.mark.parametrize("applid", ["QZZ1", "CUIR", "A000", "Z9Z9"])
def test_tpf_process_applid_valid(applid):
    """A TPF process accepts a 4-character program name: a letter, then letters or digits."""
    assert make("PROC", applid=applid).applid == applid
    assert make("PROC", applid=applid, appltype="DEFAULT").is_tpf_program


@pytest.mark.parametrize("applid", ["", "qzz1", "1ABC", "ABC", "ABCDE", "AB-1", "AB C"])
@pytest.mark.parametrize("appltype", ["TPF", "DEFAULT"])
def test_tpf_process_applid_invalid(applid, appltype):
    """A TPF (or DEFAULT) process refuses an APPLID that is not a TPF program name."""
    refused("PROC", "APPLID", applid=applid, appltype=appltype)


def test_other_appltypes_take_free_applid():
    """For CICS, UNIX or a numeric APPLTYPE, APPLID is free text of up to 256 characters."""
    assert make("PROC", appltype="CICS", applid="some/prog arg").applid == "some/prog arg"
    assert not make("PROC", appltype="UNIX", applid="").is_tpf_program
    assert make("PROC", appltype=7, applid="x" * 256).applid == "x" * 256
    refused("PROC", "APPLID", appltype="UNIX", applid="x" * 257)


def test_appltype_integer_range():
    """APPLTYPE accepts an integer 0..65535 (also as a decimal string) and refuses beyond."""
    assert make("PROC", appltype=0).appltype == 0
    assert make("PROC", appltype="65535").appltype == 65535
    refused("PROC", "APPLTYPE", appltype=65536)
    refused("PROC", "APPLTYPE", appltype=-1)


@pytest.mark.parametrize("type_name", list(SELECTORS))
def test_selectors_and_alterability(type_name):
    """Every attribute records its MQ selector name; only COMMON cannot be altered."""
    specs = DEFINITION_TYPES[type_name].ATTRS
    assert {attr: spec.selector for attr, spec in specs.items()} == SELECTORS[type_name]
    assert [spec.keyword for spec in specs.values() if not spec.alterable] == (
        ["COMMON"] if type_name == "QL" else []
    )
    assert all(spec.keyword == attr.upper() for attr, spec in specs.items())


def test_enumerated_values_map_to_mq_constants():
    """Enumerated values record the CMQC constant names MQINQ will return."""
    specs = LocalQueueDef.ATTRS
    assert specs["trigtype"].mq_values["EVERY"] == "MQTT_EVERY"
    assert specs["usage"].mq_values["XMITQ"] == "MQUS_TRANSMISSION"
    assert specs["put"].mq_values["DISABLED"] == "MQQA_PUT_INHIBITED"
    assert specs["msgdlvsq"].mq_values["FIFO"] == "MQMDS_FIFO"
    assert ProcessDef.ATTRS["appltype"].mq_values["TPF"] == "MQAT_TPF"


def test_definitions_are_frozen():
    """Assigning to a definition's attribute raises FrozenInstanceError."""
    queue = make("QL")
    with pytest.raises(dataclasses.FrozenInstanceError):
        queue.maxdepth = 5  # type: ignore[misc]


def test_type_names():
    """Each class reports its MQSC object type."""
    assert [cls.type_name for cls in (ProfileDef, LocalQueueDef, AliasQueueDef,
                                      RemoteQueueDef, ProcessDef)] == [
        "MQP", "QL", "QA", "QR", "PROC"]  # fmt: skip


def test_remote_queue_helpers():
    """A QR with empty RNAME is a queue-manager alias; empty XMITQ means the queue RQMNAME."""
    alias = make("QR", rqmname="QM2")
    assert alias.is_qmgr_alias and alias.transmission_queue == "QM2"
    remote = make("QR", rname="R.Q", rqmname="QM2", xmitq="XQ")
    assert not remote.is_qmgr_alias and remote.transmission_queue == "XQ"


def test_build_refuses_unknown_attribute_listing_valid_ones():
    """An attribute the type does not have is refused, naming it and listing the valid ones."""
    with pytest.raises(DefinitionError) as info:
        AliasQueueDef.build("A", {"targq": "T", "maxdepth": 5})
    assert info.value.keyword == "MAXDEPTH"
    for keyword in ("TARGQ", "PUT", "GET", "DEFPSIST", "DEFPRTY", "DESCR"):
        assert keyword in str(info.value)


def test_build_accepts_keywords_in_any_case():
    """Keywords are matched case-insensitively."""
    assert LocalQueueDef.build("Q", {"MAXDEPTH": 7, "TrigType": "every"}).trigtype == "EVERY"


def test_build_merges_base_and_defaults():
    """With a base only the given attributes change; without, defaults fill the rest."""
    base = make("QL", maxdepth=10, put="DISABLED")
    altered = LocalQueueDef.build("OBJ.X", {"get": "DISABLED"}, base=base)
    assert (altered.maxdepth, altered.put, altered.get) == (10, "DISABLED", "DISABLED")
    fresh = LocalQueueDef.build("OBJ.X", {"get": "DISABLED"}, defaults={"maxmsgl": 100})
    assert (fresh.maxdepth, fresh.maxmsgl) == (999_999_999, 100)


def test_build_keeps_unalterable_attributes():
    """With a previous definition, a changed COMMON is refused; the same value is accepted."""
    old = make("QL", common="YES")
    with pytest.raises(DefinitionError) as info:
        LocalQueueDef.build("OBJ.X", {"common": "NO"}, base=old, previous=old)
    assert info.value.keyword == "COMMON"
    assert LocalQueueDef.build("OBJ.X", {"common": "yes"}, base=old, previous=old).common == "YES"
    with pytest.raises(DefinitionError):  # REPLACE without COMMON resets it to NO: refused
        LocalQueueDef.build("OBJ.X", {}, previous=old)


@pytest.mark.parametrize("type_name", list(DEFINITION_TYPES))
def test_to_dict_round_trip(type_name):
    """to_dict gives type, name and every attribute; from_dict rebuilds an equal definition."""
    obj = make(type_name, descr="described")
    data = obj.to_dict()
    assert data["type"] == type_name and data["name"] == "OBJ.X"
    assert set(data) == {"type", "name", *obj.ATTRS}
    assert ObjectDef.from_dict(data) == obj
    assert type(obj).from_dict(data) == obj


def test_from_dict_defaults_missing_attributes():
    """Attributes missing from a stored dict take their defaults."""
    assert ObjectDef.from_dict({"type": "QL", "name": "Q"}) == LocalQueueDef(name="Q")


@pytest.mark.parametrize(
    "data",
    [
        {"type": "QX", "name": "Q"},
        {"type": "QL"},
        {"type": "QL", "name": "Q", "colour": "red"},
        {"type": "QL", "name": "Q", "maxdepth": -1},
        {"type": "QL", "name": "ALL"},
    ],
)
def test_from_dict_refuses_bad_data(data):
    """Unknown types, a missing name, unknown attributes and invalid values are refused."""
    with pytest.raises(DefinitionError):
        ObjectDef.from_dict(data)


def test_from_dict_on_subclass_checks_type():
    """LocalQueueDef.from_dict refuses the dict of another type."""
    with pytest.raises(DefinitionError):
        LocalQueueDef.from_dict(make("QA").to_dict())


def _strategy(type_name: str) -> st.SearchStrategy[ObjectDef]:
    """Valid definitions of a type, drawn from the attribute specs."""
    cls = DEFINITION_TYPES[type_name]
    name_chars = st.sampled_from("ABCXYZabz019./_%")
    names = st.text(name_chars, min_size=1, max_size=48).filter(lambda n: n != "ALL")
    own_names = st.text(name_chars, min_size=1, max_size=cls.name_max).filter(lambda n: n != "ALL")
    fields: dict[str, st.SearchStrategy[Any]] = {}
    for attr, spec in cls.ATTRS.items():
        if spec.kind == "int":
            fields[attr] = st.integers(spec.low, spec.high)
        elif spec.kind == "enum":
            fields[attr] = st.sampled_from(spec.values)
        elif spec.kind == "text":
            fields[attr] = st.text(max_size=spec.max_len)
        elif spec.kind == "name":
            fields[attr] = names if spec.required else st.one_of(st.just(""), names)
    if type_name == "PROC":
        fields["applid"] = st.from_regex(r"[A-Z][A-Z0-9]{3}", fullmatch=True)
        fields["appltype"] = st.sampled_from(["TPF", "DEFAULT"])
    if type_name == "CHL":
        fields["conname"] = st.from_regex(r"[a-z][a-z0-9.-]{0,20}(\([1-9][0-9]{0,3}\))?",
                                          fullmatch=True)

    def fix(values: dict[str, Any]) -> dict[str, Any]:
        if values.get("common") == "YES":
            values.update(qdepthhi=0, usage="NORMAL")
        name = values["name"]
        if type_name == "QA" and values["targq"] == name:
            values["targq"] = name[:-1] + ("Y" if name[-1] != "Y" else "Z")
        if type_name == "CHL" and values["chltype"] != "SDR":
            values.update(conname="", xmitq="")
        if type_name == "CHL" and values["chltype"] == "SDR" and not values["xmitq"]:
            values["xmitq"] = "XMIT.Q"
        return values

    return st.fixed_dictionaries({"name": own_names, **fields}).map(fix).map(lambda v: cls(**v))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(DEFINITION_TYPES)).flatmap(_strategy))
def test_round_trip_property(obj):
    """Any valid definition survives to_dict/from_dict unchanged, and its dict is plain data."""
    data = obj.to_dict()
    assert all(isinstance(v, (str, int)) for v in data.values())
    assert ObjectDef.from_dict(data) == obj
