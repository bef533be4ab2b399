"""MQStruct's pack and unpack take shortcuts (no per-field call for values already in
packed form, one packing of an untouched structure, a plain zip on unpack): each gives
the bytes and values the field-by-field way gives, which these tests compute directly
from the declared fields."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tpfemu.mq.structs import MQStruct
from tpfemu.mqi import CMQC, GMO, MD, OD, PMO


def field_by_field(struc: MQStruct) -> bytes:
    """What pack() gives when every field goes through its own packable()."""
    layout, fields = struc._layouts[struc._level()]
    return layout.pack(*(f.packable(struc.STRUC_NAME, getattr(struc, f.name)) for f in fields))


@pytest.mark.parametrize("cls", [MD, GMO, PMO, OD])
def test_an_untouched_structure_packs_as_its_fields_say(cls):
    """A structure just made packs (twice, the second from the kept bytes) to what its
    fields' initial values pack to field by field."""
    first, again = cls().pack(), cls().pack()
    assert first == again == field_by_field(cls())


def test_set_fields_short_text_masks_and_str_pack_as_field_by_field():
    """Short character values are blank-padded, binary ones NUL-padded, an unsigned mask
    (>= 2**31) is packed as its signed value, and a str left by to_string() packs as the
    padded text: all as field by field."""
    md = MD(ReplyToQ=b"R.Q", MsgId=b"id", Priority=4, Version=2)
    md.Report = 0x80000000  # an unsigned spelling
    assert md.pack() == field_by_field(md)
    assert md.pack()[48:72] == b"id" + bytes(22)  # MsgId at offset 48
    assert md.pack()[8:12] == (-0x80000000).to_bytes(4, "little", signed=True)
    md.to_string()
    assert isinstance(md.ReplyToQ, str)
    assert md.pack() == field_by_field(md)
    gmo = GMO(Version=4, MsgHandle=2**64 - 1)  # a 64-bit unsigned spelling
    assert gmo.pack() == field_by_field(gmo)


def test_a_subclass_with_its_own_initial_value_packs_its_own():
    """The bytes kept for an untouched structure are its own class's: a subclass that
    changes an initial value does not get its base's bytes."""

    class UrgentMD(MD):
        Priority = 9

    assert MD().pack()  # the base keeps its bytes first
    assert MD.from_bytes(UrgentMD().pack()).Priority == 9
    assert MD.from_bytes(MD().pack()).Priority == CMQC.MQPRI_PRIORITY_AS_Q_DEF


@settings(max_examples=60, deadline=None)
@given(priority=st.integers(-1, 9), version=st.sampled_from([1, 2]),
       reply=st.binary(max_size=48).filter(lambda b: b" " not in b),
       msg_id=st.binary(max_size=24), offset=st.integers(-2**31, 2**31 - 1))
def test_unpack_gives_what_each_field_unpacks(priority, version, reply, msg_id, offset):
    """unpack() stores, for every field of the data's version, what the field's own
    unpacked() makes of the raw value, and nothing of later versions."""
    md = MD(Priority=priority, Version=version, ReplyToQ=reply, MsgId=msg_id)
    md.Offset = offset
    raw = md.pack()
    got = MD().unpack(raw + b"after")
    layout, fields = MD._layouts[version]
    expected = {f.name: f.unpacked(v) for f, v in
                zip(fields, layout.unpack_from(raw), strict=True)}
    assert vars(got) == expected
    assert got.pack() == raw


def test_a_refused_unpack_changes_nothing():
    """A structure whose unpack is refused (bad StrucId, too short) keeps its values."""
    md = MD(Priority=3)
    with pytest.raises(ValueError, match="StrucId"):
        md.unpack(b"XXXX" + bytes(400))
    with pytest.raises(ValueError, match="bytes"):
        md.unpack(MD(Version=2).pack()[:340])
    assert vars(md) == {"Priority": 3}


def test_every_structure_pads_a_short_text_as_field_by_field():
    """In every structure and version, a character field set shorter than its length
    packs blank-padded, as field by field (whatever number of text fields it has)."""
    from tpfemu.mq.fields import Byte, Char

    def every(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from every(sub)

    import tpfemu.mq.headers  # noqa: F401 - the header structures
    checked = 0
    for cls in every(MQStruct):
        if "FIELDS" not in cls.__dict__:
            continue
        for level in cls._layouts:
            struc = cls()
            if "Version" in cls._by_name:
                struc.Version = level if type(struc.Version) is int else struc.Version
            texts = [f for f in cls._layouts[level][1]
                     if isinstance(f, Char) and type(f) is not Byte and f.name != "StrucId"
                     and f.name != "Version"]
            for f in texts[:1]:
                setattr(struc, f.name, b"A")
            assert struc.pack() == field_by_field(struc), (cls.__name__, level)
            checked += 1
    assert checked >= 20
