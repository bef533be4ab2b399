"""TM, TMC2, XQH, DLH: IBM's sizes, offsets and initial values; the trigger monitor's TMC2.

Offsets are typed from mq-semantics.md section 3 (wireshark's packet-mq.c, pymqi, cmqc.h).
"""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tpfemu.mq.fields import Char, Long, Nested
from tpfemu.mqi import CMQC, DLH, MD, TM, TMC2, XQH

BLANKS = b" " * 48


def long(n: int) -> bytes:
    return n.to_bytes(4, "little", signed=True)


def field_values(field):
    """Any value the field can hold."""
    if isinstance(field, Long):
        return st.integers(-(2**31), 2**31 - 1)
    if isinstance(field, Nested):
        return headers(field.cls, field.version)
    assert isinstance(field, Char)
    return st.binary(max_size=field.length)


def headers(cls, version=None):
    """Structures of cls with every field (but StrucId and Version) drawn at random."""
    fields = [f for f in cls.FIELDS if f.name not in ("StrucId", "Version")]
    if cls is MD:  # an MD appears here only embedded in an XQH, at version 1
        fields = [f for f in fields if f.since == 1]
    values = st.fixed_dictionaries({f.name: field_values(f) for f in fields})
    versions = st.just(version) if version else st.sampled_from(sorted(cls.LENGTHS))
    return st.builds(lambda v, kw: cls(Version=v, **kw), versions, values)


@pytest.mark.parametrize(
    "obj, size",
    [(TM(), 684), (TMC2(), 732), (TMC2(Version=1), 684), (XQH(), 428), (DLH(), 172)],
    ids=["TM", "TMC2", "TMC2v1", "XQH", "DLH"],
)
def test_sizes(obj, size):
    """Each header packs to IBM's length."""
    assert len(obj.pack()) == size == obj.get_length()


OFFSETS = [
    (TM, "QName", "APP.IN", 8, b"APP.IN".ljust(48)),
    (TM, "ProcessName", "APP.PROC", 56, b"APP.PROC".ljust(48)),
    (TM, "TriggerData", "DATA", 104, b"DATA".ljust(64)),
    (TM, "ApplType", CMQC.MQAT_TPF, 168, long(23)),
    (TM, "ApplId", "QZZ1", 172, b"QZZ1".ljust(256)),
    (TM, "EnvData", "ENV", 428, b"ENV".ljust(128)),
    (TM, "UserData", "USER", 556, b"USER".ljust(128)),
    (TMC2, "QName", "APP.IN", 8, b"APP.IN".ljust(48)),
    (TMC2, "ProcessName", "APP.PROC", 56, b"APP.PROC".ljust(48)),
    (TMC2, "TriggerData", "DATA", 104, b"DATA".ljust(64)),
    (TMC2, "ApplType", "  23", 168, b"  23"),
    (TMC2, "ApplId", "QZZ1", 172, b"QZZ1".ljust(256)),
    (TMC2, "EnvData", "ENV", 428, b"ENV".ljust(128)),
    (TMC2, "UserData", "USER", 556, b"USER".ljust(128)),
    (TMC2, "QMgrName", "TPF1", 684, b"TPF1".ljust(48)),
    (XQH, "RemoteQName", "FAR.Q", 8, b"FAR.Q".ljust(48)),
    (XQH, "RemoteQMgrName", "FARQM", 56, b"FARQM".ljust(48)),
    (XQH, "MsgDesc", MD(Priority=4, Format=CMQC.MQFMT_STRING), 104, MD(
        Priority=4, Format=CMQC.MQFMT_STRING).pack()),
    (DLH, "Reason", CMQC.MQRC_Q_FULL, 8, long(2053)),
    (DLH, "DestQName", "APP.IN", 12, b"APP.IN".ljust(48)),
    (DLH, "DestQMgrName", "TPF1", 60, b"TPF1".ljust(48)),
    (DLH, "Encoding", CMQC.MQENC_NATIVE, 108, long(0x222)),
    (DLH, "CodedCharSetId", 819, 112, long(819)),
    (DLH, "Format", CMQC.MQFMT_STRING, 116, b"MQSTR   "),
    (DLH, "PutApplType", CMQC.MQAT_QMGR, 124, long(7)),
    (DLH, "PutApplName", "TPF1", 128, b"TPF1".ljust(28)),
    (DLH, "PutDate", "20240131", 156, b"20240131"),
    (DLH, "PutTime", "12000000", 164, b"12000000"),
]


@pytest.mark.parametrize(
    "cls, field, value, offset, raw",
    OFFSETS,
    ids=[f"{c.__name__}.{f}" for c, f, *_ in OFFSETS],
)
def test_field_at_ibm_offset(cls, field, value, offset, raw):
    """A field's value lands at IBM's offset and changes nothing else."""
    base = cls().pack()
    data = cls(**{field: value}).pack()
    end = offset + len(raw)
    assert data[offset:end] == raw
    assert data[:offset] == base[:offset] and data[end:] == base[end:]


def test_tm_initial_values():
    """TM() is MQTM_DEFAULT: StrucId, Version 1, blank strings and ApplType 0."""
    expected = b"TM  " + long(1) + BLANKS * 2 + b" " * 64 + long(0) + b" " * 512
    assert TM().pack() == expected


def test_tmc2_initial_values():
    """TMC2() is MQTMC2_DEFAULT: all characters, Version '   2', ApplType blanks."""
    assert TMC2().pack() == b"TMC " + b"   2" + b" " * 724
    assert TMC2().Version == CMQC.MQTMC_VERSION_2


def test_xqh_initial_values():
    """XQH() has blank remote names and embeds an initial MQMD version 1."""
    data = XQH().pack()
    assert data[:104] == b"XQH " + long(1) + BLANKS * 2
    assert data[104:] == MD().pack()


def test_dlh_initial_values():
    """DLH() is MQDLH_DEFAULT: Reason MQRC_NONE, Encoding 0, CCSID undefined, no format."""
    expected = (
        b"DLH " + long(1) + long(0) + BLANKS * 2 + long(0) + long(0) + b" " * 8 + long(0)
        + b" " * 44
    )
    assert DLH().pack() == expected


@pytest.mark.parametrize("cls", [TM, TMC2, XQH, DLH])
@given(data=st.data())
def test_round_trip(cls, data):
    """Any header unpacks from its own bytes to an equal header with the same bytes."""
    obj = data.draw(headers(cls))
    raw = obj.pack()
    assert cls.from_bytes(raw) == obj
    assert cls.from_bytes(raw + b"message data").pack() == raw


# -- the trigger monitor's MQTMC2 ---------------------------------------------------------


def test_tmc2_from_tm_copies_the_character_fields():
    """from_tm copies the names and data, sets Version 2 and QMgrName, blanks ApplType."""
    tm = TM(
        QName="APP.IN", ProcessName="APP.PROC", TriggerData="TD", ApplType=CMQC.MQAT_TPF,
        ApplId="QZZ1", EnvData="ENV", UserData="UD",
    )  # fmt: skip
    tmc = TMC2.from_tm(TM.from_bytes(tm.pack()), "TPF1")
    assert tmc.Version == b"   2" and tmc.ApplType == b"    "
    assert (tmc.QName.rstrip(), tmc.ProcessName.rstrip()) == (b"APP.IN", b"APP.PROC")
    assert (tmc.TriggerData.rstrip(), tmc.ApplId.rstrip()) == (b"TD", b"QZZ1")
    assert (tmc.EnvData.rstrip(), tmc.UserData.rstrip()) == (b"ENV", b"UD")
    assert tmc.QMgrName == b"TPF1"
    data = tmc.pack()
    assert data[8:684] == tm.pack()[8:168] + b"    " + tm.pack()[172:684]


def test_tmc2_is_one_printable_argument():
    """A packed TMC2 is 732 printable characters: it can be passed as one program argument."""
    data = TMC2.from_tm(TM(QName="Q", ApplId="prog"), "QM").pack()
    assert len(data) == 732 and data.decode("ascii").isprintable()


def test_tmc2_from_tm_needs_a_tm():
    """from_tm refuses anything but a TM."""
    with pytest.raises(TypeError, match="TMC2.from_tm needs a TM"):
        TMC2.from_tm(MD())


def test_tmc2_version_may_be_given_as_a_number():
    """An int Version is written as right-justified characters, as IBM's '   1'."""
    tmc = TMC2(Version=1)
    assert tmc.Version == CMQC.MQTMC_VERSION_1 and tmc.pack()[4:8] == b"   1"
    with pytest.raises(ValueError, match="MQTMC2 has no Version"):
        TMC2(Version=3).pack()


# -- the transmission header's embedded MQMD ----------------------------------------------


def test_xqh_md_alias_and_embedded_md():
    """The embedded MQMD is MsgDesc, also .md and get_embedded_md(); changes reach the bytes."""
    xqh = XQH(RemoteQName="FAR.Q")
    xqh.md.Priority = 6
    assert xqh.MsgDesc is xqh.md is xqh.get_embedded_md()
    assert xqh.pack()[104 + 40 : 104 + 44] == long(6)
    xqh.md = MD(Persistence=CMQC.MQPER_PERSISTENT)
    assert xqh.MsgDesc.Persistence == 1 and xqh.pack()[104 + 44 : 104 + 48] == long(1)


def test_xqh_embeds_only_a_version_1_md():
    """MsgDesc must be an MD (a version-1 one to pack): the layout has 324 bytes for it."""
    with pytest.raises(TypeError, match=r"MQXQH\.MsgDesc must be a MD"):
        XQH(MsgDesc=b"\0" * 324)
    xqh = XQH(MsgDesc=MD(Version=2))
    with pytest.raises(ValueError, match=r"MQXQH\.MsgDesc must be a version-1 MQMD"):
        xqh.pack()


def test_xqh_unpack_checks_the_embedded_md():
    """An XQH whose embedded descriptor is not an MQMD is refused, naming the MQMD."""
    data = bytearray(XQH().pack())
    data[104:108] = b"XX  "
    xqh = XQH(RemoteQName="KEPT")
    with pytest.raises(ValueError, match="not an MQMD"):
        xqh.unpack(data)
    assert xqh.RemoteQName == b"KEPT"  # a refused unpack changes nothing


def test_xqh_copy_copies_the_embedded_md():
    """A copied XQH has its own MD."""
    xqh = XQH()
    other = xqh.copy()
    other.md.Priority = 9
    assert xqh.md.Priority == -1 and other != xqh


def test_header_unpack_too_short():
    """Short data is refused naming the header and its length."""
    with pytest.raises(ValueError, match="MQTM needs at least 684 bytes, got 100"):
        TM.from_bytes(TM().pack()[:100])
    with pytest.raises(ValueError, match="MQXQH needs at least 428 bytes, got 104"):
        XQH.from_bytes(XQH().pack()[:104])
    with pytest.raises(ValueError, match="MQDLH needs at least 172 bytes"):
        DLH.from_bytes(b"DLH ")
    with pytest.raises(ValueError, match="MQTMC2 version 2 is 732 bytes, got 700"):
        TMC2.from_bytes(TMC2().pack()[:700])
