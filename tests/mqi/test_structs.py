"""MD, GMO, PMO, OD: pymqi's interface, IBM's initial values, IBM's bytes at IBM's offsets.

Offsets and sizes are typed from mq-semantics.md section 3 (wireshark's packet-mq.c,
pymqi, cmqc.h), independently of the field tables in tpfemu/mqi/structs.py.
"""

import copy
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.mq.fields import Char, Code, Int64, Long, Nested
from tpfemu.mq.structs import UnknownFieldError
from tpfemu.mqi import CMQC, GMO, MD, OD, PMO

BLANKS = b" " * 48


def long(n: int) -> bytes:
    return n.to_bytes(4, "little", signed=True)


def int64(n: int) -> bytes:
    return n.to_bytes(8, "little", signed=True)


# -- generated structures (Hypothesis) ----------------------------------------------------


def field_values(field):
    """Any value the field can hold."""
    if isinstance(field, Int64):
        return st.integers(-(2**63), 2**63 - 1)
    if isinstance(field, Long):
        return st.integers(-(2**31), 2**31 - 1)
    if isinstance(field, Code):
        return st.integers(0, 255)
    if isinstance(field, Nested):
        return structures(field.cls, field.version)
    assert isinstance(field, Char)
    return st.binary(max_size=field.length) | st.text(
        st.characters(min_codepoint=32, max_codepoint=126), max_size=field.length
    )


def structures(cls, version=None):
    """Structures of cls with every field (but StrucId) drawn at random."""
    versions = st.just(version) if version else st.sampled_from(sorted(cls.LENGTHS))
    fields = [f for f in cls.FIELDS if f.name not in ("StrucId", "Version")]
    values = st.fixed_dictionaries({f.name: field_values(f) for f in fields})
    return st.builds(lambda v, kw: cls(Version=v, **kw), versions, values)


# -- sizes and offsets --------------------------------------------------------------------

SIZES = [
    (MD, 1, 324), (MD, 2, 364),
    (GMO, 1, 72), (GMO, 2, 80), (GMO, 3, 100), (GMO, 4, 112),
    (PMO, 1, 128), (PMO, 2, 152), (PMO, 3, 176),
    (OD, 1, 168), (OD, 2, 200), (OD, 3, 336), (OD, 4, 400),
]  # fmt: skip


@pytest.mark.parametrize("cls, version, size", SIZES)
def test_size_of_each_version(cls, version, size):
    """Each version packs to IBM's length, and get_length() says so beforehand."""
    obj = cls(Version=version)
    assert obj.get_length() == size
    assert len(obj.pack()) == size


def test_default_version_is_one():
    """pymqi's structures start at Version 1, as IBM's initial values."""
    assert [len(c().pack()) for c in (MD, GMO, PMO, OD)] == [324, 72, 128, 168]


OFFSETS = [
    # (structure, version, field, value, offset, bytes expected there)
    (MD, 1, "Report", CMQC.MQRO_COA, 8, long(0x100)),
    (MD, 1, "MsgType", CMQC.MQMT_REQUEST, 12, long(1)),
    (MD, 1, "Expiry", 600, 16, long(600)),
    (MD, 1, "Feedback", CMQC.MQFB_EXPIRATION, 20, long(258)),
    (MD, 1, "Encoding", CMQC.MQENC_S390, 24, long(0x311)),
    (MD, 1, "CodedCharSetId", 500, 28, long(500)),
    (MD, 1, "Format", CMQC.MQFMT_STRING, 32, b"MQSTR   "),
    (MD, 1, "Priority", 7, 40, long(7)),
    (MD, 1, "Persistence", CMQC.MQPER_PERSISTENT, 44, long(1)),
    (MD, 1, "MsgId", b"M" * 24, 48, b"M" * 24),
    (MD, 1, "CorrelId", b"C" * 24, 72, b"C" * 24),
    (MD, 1, "BackoutCount", 3, 96, long(3)),
    (MD, 1, "ReplyToQ", "APP.REPLY", 100, b"APP.REPLY".ljust(48)),
    (MD, 1, "ReplyToQMgr", "TPF1", 148, b"TPF1".ljust(48)),
    (MD, 1, "UserIdentifier", "OPER", 196, b"OPER".ljust(12)),
    (MD, 1, "AccountingToken", b"\x01\x02", 208, b"\x01\x02".ljust(32, b"\0")),
    (MD, 1, "ApplIdentityData", "ID", 240, b"ID".ljust(32)),
    (MD, 1, "PutApplType", CMQC.MQAT_TPF, 272, long(23)),
    (MD, 1, "PutApplName", "QZZ1", 276, b"QZZ1".ljust(28)),
    (MD, 1, "PutDate", "20240131", 304, b"20240131"),
    (MD, 1, "PutTime", "23595999", 312, b"23595999"),
    (MD, 1, "ApplOriginData", "ORIG", 320, b"ORIG"),
    (MD, 2, "GroupId", b"G" * 24, 324, b"G" * 24),
    (MD, 2, "MsgSeqNumber", 5, 348, long(5)),
    (MD, 2, "Offset", 4096, 352, long(4096)),
    (MD, 2, "MsgFlags", CMQC.MQMF_LAST_MSG_IN_GROUP, 356, long(0x10)),
    (MD, 2, "OriginalLength", 777, 360, long(777)),
    (GMO, 1, "Options", CMQC.MQGMO_WAIT, 8, long(1)),
    (GMO, 1, "WaitInterval", 5000, 12, long(5000)),
    (GMO, 1, "ResolvedQName", "LOCAL.Q", 24, b"LOCAL.Q".ljust(48)),
    (GMO, 2, "MatchOptions", CMQC.MQMO_NONE, 72, long(0)),
    (GMO, 2, "GroupStatus", CMQC.MQGS_LAST_MSG_IN_GROUP, 76, b"L"),
    (GMO, 2, "SegmentStatus", "S", 77, b"S"),
    (GMO, 2, "Segmentation", CMQC.MQSEG_ALLOWED, 78, b"A"),
    (GMO, 2, "Reserved1", "x", 79, b"x"),
    (GMO, 3, "MsgToken", b"T" * 16, 80, b"T" * 16),
    (GMO, 3, "ReturnedLength", 99, 96, long(99)),
    (GMO, 4, "Reserved2", 1, 100, long(1)),
    (GMO, 4, "MsgHandle", 2**40 + 1, 104, int64(2**40 + 1)),
    (PMO, 1, "Options", CMQC.MQPMO_SYNCPOINT, 8, long(2)),
    (PMO, 1, "Timeout", 30, 12, long(30)),
    (PMO, 1, "Context", 9, 16, long(9)),
    (PMO, 1, "KnownDestCount", 1, 20, long(1)),
    (PMO, 1, "InvalidDestCount", 2, 28, long(2)),
    (PMO, 1, "ResolvedQName", "Q1", 32, b"Q1".ljust(48)),
    (PMO, 1, "ResolvedQMgrName", "TPF1", 80, b"TPF1".ljust(48)),
    (PMO, 2, "RecsPresent", 4, 128, long(4)),
    (PMO, 2, "ResponseRecPtr", 0x1000, 148, long(0x1000)),
    (PMO, 3, "OriginalMsgHandle", 7, 152, int64(7)),
    (PMO, 3, "NewMsgHandle", 8, 160, int64(8)),
    (PMO, 3, "Action", CMQC.MQACTP_REPLY, 168, long(2)),
    (PMO, 3, "PubLevel", 3, 172, long(3)),
    (OD, 1, "ObjectType", CMQC.MQOT_PROCESS, 8, long(3)),
    (OD, 1, "ObjectName", "APP.IN", 12, b"APP.IN".ljust(48)),
    (OD, 1, "ObjectQMgrName", "TPF1", 60, b"TPF1".ljust(48)),
    (OD, 1, "DynamicQName", "REPLY.*", 108, b"REPLY.*".ljust(48)),
    (OD, 1, "AlternateUserId", "USER1", 156, b"USER1".ljust(12)),
    (OD, 2, "RecsPresent", 2, 168, long(2)),
    (OD, 2, "ResponseRecPtr", 1, 196, long(1)),
    (OD, 3, "AlternateSecurityId", b"\x05", 200, b"\x05".ljust(40, b"\0")),
    (OD, 3, "ResolvedQName", "R.Q", 240, b"R.Q".ljust(48)),
    (OD, 3, "ResolvedQMgrName", "R.QM", 288, b"R.QM".ljust(48)),
    (OD, 4, "ObjectStringVSPtr", 1, 336, long(1)),
    (OD, 4, "ObjectStringVSCCSID", 1208, 352, long(1208)),
    (OD, 4, "SelectionStringVSLength", 4, 368, long(4)),
    (OD, 4, "ResObjectStringVSOffset", 12, 380, long(12)),
    (OD, 4, "ResolvedType", CMQC.MQOT_Q, 396, long(1)),
]


@pytest.mark.parametrize(
    "cls, version, field, value, offset, raw",
    OFFSETS,
    ids=[f"{c.__name__}.{f}" for c, _, f, *_ in OFFSETS],
)
def test_field_at_ibm_offset(cls, version, field, value, offset, raw):
    """A field's value lands at IBM's offset, in IBM's encoding, and changes nothing else."""
    base = cls(Version=version).pack()
    data = cls(Version=version, **{field: value}).pack()
    end = offset + len(raw)
    assert data[offset:end] == raw
    assert data[:offset] == base[:offset] and data[end:] == base[end:]


# -- initial values -----------------------------------------------------------------------


def test_md_packs_ibm_initial_values():
    """MD() packs exactly MQMD_DEFAULT: each field's IBM initial value, blanks and NULs."""
    expected = b"".join([
        b"MD  ", long(1), long(0), long(8), long(-1), long(0), long(0x222), long(0),
        b" " * 8, long(-1), long(2), b"\0" * 24, b"\0" * 24, long(0), BLANKS, BLANKS,
        b" " * 12, b"\0" * 32, b" " * 32, long(0), b" " * 28, b" " * 8, b" " * 8, b" " * 4,
    ])  # fmt: skip
    assert MD().pack() == expected
    assert MD(Version=2).pack()[:4] == b"MD  "
    assert MD(Version=2).pack()[324:] == b"\0" * 24 + long(1) + long(0) + long(0) + long(-1)


def test_md_initial_values_by_name():
    """The MD fields read back IBM's initial values under pymqi's names."""
    md = MD()
    assert (md.Report, md.MsgType, md.Expiry, md.Feedback) == (0, 8, -1, 0)
    assert (md.Encoding, md.CodedCharSetId, md.Format) == (546, 0, b"        ")
    assert (md.Priority, md.Persistence, md.BackoutCount) == (-1, 2, 0)
    assert md.MsgId == CMQC.MQMI_NONE and md.CorrelId == CMQC.MQCI_NONE
    assert md.ReplyToQ == BLANKS and md.ReplyToQMgr == BLANKS
    assert (md.PutApplType, md.MsgSeqNumber, md.OriginalLength) == (0, 1, -1)
    assert md.GroupId == CMQC.MQGI_NONE


def test_gmo_initial_values():
    """GMO(): no wait, wait 0, match on MsgId and CorrelId, not in a group or segment."""
    gmo = GMO(Version=4)
    assert (gmo.Options, gmo.WaitInterval, gmo.MatchOptions) == (0, 0, 3)
    assert (gmo.GroupStatus, gmo.SegmentStatus, gmo.Segmentation) == (32, 32, 32)
    assert gmo.pack()[72:] == long(3) + b"    " + b"\0" * 16 + long(-1) + long(0) + int64(0)
    assert gmo.pack()[:24] == b"GMO " + long(4) + long(0) * 4


def test_pmo_initial_values():
    """PMO(): no options, Timeout -1, and from Version 3 PubLevel 9."""
    pmo = PMO(Version=3)
    assert (pmo.Options, pmo.Timeout, pmo.Context, pmo.PubLevel) == (0, -1, 0, 9)
    assert pmo.pack()[:32] == b"PMO " + long(3) + long(0) + long(-1) + long(0) * 4
    assert pmo.pack()[32:128] == BLANKS * 2


def test_od_initial_values():
    """OD(): a queue, blank names, DynamicQName AMQ.* and MQCCSI_APPL string CCSIDs."""
    data = OD(Version=4).pack()
    assert data[:12] == b"OD  " + long(4) + long(1)
    assert data[12:108] == BLANKS * 2
    assert data[108:156] == b"AMQ.*".ljust(48)
    assert data[200:240] == b"\0" * 40
    ccsid_offsets = (352, 372, 392)
    assert [data[o : o + 4] for o in ccsid_offsets] == [long(-3)] * 3
    assert data[396:400] == long(CMQC.MQOT_NONE)


# -- round trips --------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [MD, GMO, PMO, OD])
@settings(deadline=None)  # (a loaded machine once took 296 ms for one OD example)
@given(data=st.data())
def test_round_trip(cls, data):
    """Any structure unpacks from its own bytes to an equal structure with the same bytes."""
    obj = data.draw(structures(cls))
    raw = obj.pack()
    back = cls().unpack(raw)
    assert back == obj
    assert back.pack() == raw
    assert cls.from_bytes(raw + b"trailing message data") == obj


@given(md=structures(MD, 2))
def test_unpack_returns_full_padded_fields(md):
    """After unpack every character field is its full padded length, as pymqi reads them."""
    back = MD.from_bytes(md.pack())
    assert len(back.ReplyToQ) == 48 and back.ReplyToQ.rstrip() == md.ReplyToQ.rstrip()
    assert len(back.MsgId) == 24


def test_unpack_returns_self_and_resets_later_versions():
    """unpack fills the object it is called on; fields the data's version lacks reset."""
    md = MD(Version=2, GroupId=b"G" * 24, Priority=1)
    assert md.unpack(MD(Priority=4).pack()) is md
    assert (md.Version, md.Priority, md.GroupId) == (1, 4, CMQC.MQGI_NONE)


def test_later_version_fields_are_not_packed():
    """A version-1 MD ignores v2 fields, as IBM does: they are kept but never sent."""
    md = MD(GroupId=b"G" * 24, MsgSeqNumber=9)
    assert b"G" not in md.pack() and len(md.pack()) == 324
    md.Version = CMQC.MQMD_VERSION_2
    assert md.pack()[324:348] == b"G" * 24


# -- values: str, bytes, ints -------------------------------------------------------------


def test_str_and_bytes_are_the_same_name():
    """A name given as str is ASCII-encoded: it packs and compares as the bytes spelling."""
    assert MD(ReplyToQ="APP.REPLY").pack() == MD(ReplyToQ=b"APP.REPLY").pack()
    assert MD(ReplyToQ="APP.REPLY") == MD(ReplyToQ=b"APP.REPLY".ljust(48))
    assert MD(ReplyToQ="APP.REPLY").ReplyToQ == b"APP.REPLY"
    assert MD(ReplyToQ=bytearray(b"X")).ReplyToQ == b"X"


def test_ids_are_nul_padded_and_names_blank_padded():
    """Binary ids pad with NULs (MQMI_NONE), character fields with blanks."""
    data = MD(MsgId=b"ID", ReplyToQ=b"Q").pack()
    assert data[48:72] == b"ID" + b"\0" * 22
    assert data[100:148] == b"Q" + b" " * 47


def test_too_long_value_names_field_and_length():
    """A value longer than its field is refused when assigned, naming field and length."""
    md = MD()
    with pytest.raises(ValueError, match=r"MQMD\.ReplyToQ is 49 bytes long; the field holds 48"):
        md.ReplyToQ = "Q" * 49
    with pytest.raises(ValueError, match=r"MQMD\.MsgId .* 24"):
        md["MsgId"] = bytes(25)
    with pytest.raises(ValueError, match=r"MQOD\.ObjectName"):
        OD(ObjectName="X" * 49)
    assert md.ReplyToQ == BLANKS


def test_non_ascii_text_is_refused():
    """A str that is not ASCII is refused (pass bytes for EBCDIC or UTF-8 names)."""
    with pytest.raises(ValueError, match=r"MQMD\.PutApplName takes ASCII"):
        MD(PutApplName="Zürich")


@pytest.mark.parametrize(
    "field, value, error",
    [
        ("Priority", "5", TypeError),
        ("Priority", 1.5, TypeError),
        ("Priority", 2**32, ValueError),
        ("Priority", -(2**31) - 1, ValueError),
        ("ReplyToQ", 5, TypeError),
        ("ReplyToQ", None, TypeError),
    ],
)
def test_wrong_types_and_ranges_are_refused(field, value, error):
    """Integers must be ints that fit an MQLONG; names must be bytes or str."""
    with pytest.raises(error, match=f"MQMD.{field}"):
        MD(**{field: value})


def test_unsigned_masks_are_mqlongs():
    """A mask spelled unsigned (0xEFE000FF) packs as the MQLONG IBM defines (negative)."""
    md = MD(Report=0xEFE000FF)
    assert md.pack()[8:12] == bytes.fromhex("ff00e0ef")
    assert MD.from_bytes(md.pack()).Report == CMQC.MQRO_ACCEPT_UNSUP_MASK
    assert md == MD(Report=CMQC.MQRO_ACCEPT_UNSUP_MASK)


def test_character_codes_accept_characters_or_ints():
    """GMO status fields are one character, given as a character or pymqi's int."""
    assert GMO(GroupStatus="G").GroupStatus == CMQC.MQGS_MSG_IN_GROUP
    with pytest.raises(ValueError, match=r"MQGMO\.GroupStatus"):
        GMO(GroupStatus="GG")


# -- pymqi's interface --------------------------------------------------------------------


def test_attribute_item_and_keyword_access():
    """Fields are attributes, items and keywords; get() returns them all in C order."""
    md = MD(Priority=5)
    md.Persistence = CMQC.MQPER_PERSISTENT
    md["Expiry"] = 100
    md.set(Feedback=CMQC.MQFB_COA, MsgType=CMQC.MQMT_REPORT)
    assert md["Priority"] == 5 and md.Persistence == 1 and md.Expiry == 100
    values = md.get()
    assert list(values)[:5] == ["StrucId", "Version", "Report", "MsgType", "Expiry"]
    assert list(values)[-1] == "OriginalLength" and len(values) == 29
    assert values["Feedback"] == 259 and values["MsgType"] == 4


def test_unknown_field_is_refused_with_a_suggestion():
    """A misspelt field raises AttributeError (and KeyError for items) naming the fix."""
    md = MD()
    with pytest.raises(AttributeError, match="did you mean 'Priority'"):
        md.Prority = 5
    with pytest.raises(KeyError):
        md["Prority"]
    with pytest.raises(AttributeError):
        MD(Prority=5)
    with pytest.raises(UnknownFieldError):
        md.set(Priority=1, Bogus=2)
    assert md.Priority == -1  # set() changed nothing


def test_set_is_all_or_nothing():
    """set() with one bad value changes no field."""
    md = MD()
    with pytest.raises(ValueError):
        md.set(Priority=3, ReplyToQ="Q" * 60)
    assert md.Priority == -1


def test_fields_cannot_be_deleted():
    """Deleting a field is refused; the structure always has every field."""
    with pytest.raises(AttributeError):
        del MD().Priority


def test_equality():
    """Structures are equal when they would pack alike; other types never compare equal."""
    assert MD() == MD()
    assert MD(Priority=1) != MD(Priority=2)
    assert MD(GroupId=b"G") == MD()  # a v1 MQMD has no GroupId
    assert MD(Version=2, GroupId=b"G") != MD(Version=2)
    assert MD() != GMO() and MD() != MD().pack()
    with pytest.raises(TypeError):
        hash(MD())


def test_repr_rebuilds_an_equal_structure():
    """repr shows the fields off their defaults, as a call that rebuilds the structure."""
    md = MD.from_bytes(MD(Priority=5, ReplyToQ="R", MsgId=b"\x01").pack())
    assert repr(md) == "MD(Priority=5, MsgId=b'\\x01', ReplyToQ=b'R')"
    assert eval(repr(md), {"MD": MD}) == md
    assert repr(GMO()) == "GMO()"


def test_str_lists_fields_of_the_version():
    """str() prints one 'Field: value' line per field of the current version."""
    text = str(MD(Priority=5))
    assert "Priority: 5" in text and "GroupId" not in text
    assert len(text.splitlines()) == 24
    assert "GroupId" in str(MD(Version=2))


def test_copies_are_independent():
    """copy() and copy.copy give a structure that changes apart from the original."""
    md = MD(Priority=3)
    for other in (md.copy(), copy.copy(md), copy.deepcopy(md)):
        other.Priority = 9
        assert md.Priority == 3 and other == MD(Priority=9)


# -- unpack errors ------------------------------------------------------------------------


def test_unpack_too_short_names_structure_and_lengths():
    """Data shorter than the structure is refused with its name and both lengths."""
    with pytest.raises(ValueError, match="MQMD needs at least 324 bytes, got 100"):
        MD().unpack(MD().pack()[:100])
    v2 = MD(Version=2).pack()
    with pytest.raises(ValueError, match="MQMD version 2 is 364 bytes, got 330"):
        MD().unpack(v2[:330])
    with pytest.raises(ValueError, match="MQGMO needs at least 72 bytes, got 0"):
        GMO.from_bytes(b"")


def test_unpack_refuses_another_structure():
    """Bytes whose StrucId is not the structure's are refused, naming both ids."""
    with pytest.raises(ValueError, match=r"not an MQMD: StrucId is b'GMO '"):
        MD().unpack(GMO(Version=4).pack() + bytes(300))


def test_unpack_refuses_an_unknown_version():
    """A Version the structure does not have is refused, listing those it has."""
    data = bytearray(MD().pack())
    data[4:8] = long(3)
    with pytest.raises(ValueError, match="MQMD has no Version 3"):
        MD.from_bytes(data)
    with pytest.raises(ValueError, match="MQPMO has no Version 0"):
        PMO(Version=0).pack()


def test_struct_error_never_leaks():
    """pack never raises struct.error: a value that cannot pack fails where it is set."""
    md = MD()
    with pytest.raises((TypeError, ValueError)):
        md.MsgId = object()
    try:
        md.pack()
    except struct.error as exc:  # pragma: no cover - the failure this test guards against
        pytest.fail(f"struct.error leaked: {exc}")


# -- construction (MQStruct.__init__, in C: tpfemu._lowlevel.StructBase) -----------------


def test_keywords_are_stored_as_their_checks_would_store_them():
    md = MD(Priority=-1, Report=0xFFFFFFFF, Feedback=-(2**31), MsgId=b"x" * 24,
                  ReplyToQ=b"", Format="MQSTR", Persistence=True)
    assert (md.Priority, md.Report, md.Feedback) == (-1, 0xFFFFFFFF, -(2**31))
    assert md.MsgId == b"x" * 24 and md.ReplyToQ == b""
    assert md.Format == b"MQSTR"  # str goes through the check, which encodes it
    assert md.Persistence == 1 and type(md.Persistence) is int
    assert MD().Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF  # others stay initial


@pytest.mark.parametrize("fields, error, text", [
    ({"Priority": 2**32}, ValueError, "does not fit in 32 bits"),
    ({"MsgId": b"x" * 25}, ValueError, "MsgId is 25 bytes long"),
    ({"Priority": "5"}, TypeError, "must be an int"),
    ({"Priority": 1, "Prioirty": 2}, AttributeError, "did you mean 'Priority'"),
])
def test_bad_keywords_fail_naming_the_field(fields, error, text):
    with pytest.raises(error, match=text):
        MD(**fields)


def test_positional_arguments_are_refused():
    with pytest.raises(TypeError, match="keywords only"):
        MD(5)


def test_nested_structures_are_fresh_per_instance():
    from tpfemu.mq.headers import XQH

    a, b = XQH(), XQH(RemoteQName=b"Q")
    assert a.MsgDesc is not b.MsgDesc and b.RemoteQName == b"Q"
    a.MsgDesc.Priority = 4
    assert b.MsgDesc.Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF


def test_construction_follows_a_change_of_the_type():
    """StructBase.__init__ keeps what it reads of a type (_nested, _ints, _bytes) only while
    the type is unchanged: after a change, it reads them again."""
    checked = []

    class Probe(MD):
        def set(self, **fields):
            checked.append(sorted(fields))
            super().set(**fields)

    assert Probe(ReplyToQ=b"Q").ReplyToQ == b"Q" and checked == []  # stored as given
    assert Probe(ReplyToQ=b"Q").ReplyToQ == b"Q" and checked == []  # (kept: the same)
    Probe._bytes = {}  # no shortcut for bytes fields: set() checks them now
    assert Probe(ReplyToQ=b"R").ReplyToQ == b"R" and checked == [["ReplyToQ"]]
    assert MD(ReplyToQ=b"Q").ReplyToQ == b"Q" and checked == [["ReplyToQ"]]  # MD unchanged


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_structures_pickle(protocol):
    """With a C base (StructBase), structures still pickle (multiprocessing, caches)."""
    import pickle

    from tpfemu.mq.headers import XQH

    for value in (MD(Priority=3, ReplyToQ=b"Q"), XQH(RemoteQName=b"R")):
        again = pickle.loads(pickle.dumps(value, protocol))
        assert again == value and type(again) is type(value)
