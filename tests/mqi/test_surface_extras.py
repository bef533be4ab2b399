"""The rest of the surface real programs use (issue 26): CMQSTRC, MQMIError's accessors,
headers' get_header/to_string, and the MQDLH the queue manager itself writes.

Facts: ibmmq's CMQSTRC has one ``<FAMILY>_DICT`` per constant family (value -> name, e.g.
MQRC_DICT[2033] 'MQRC_NO_MSG_AVAILABLE'); ibmmq's MQMIError has error_as_string() and
get(name); an MQDLH built for a message copies its MQMD's Encoding, CodedCharSetId and
Format, a CCSID of 0 becoming MQCCSI_INHERIT (-2) (mq-semantics.md §3 MQDLH).
"""

from __future__ import annotations

import time

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC, CMQSTRC


def test_cmqstrc_maps_values_to_names():
    """CMQSTRC gives the name of a reason, an object type, a channel type, an option and a
    selector; aliases give the current name."""
    assert CMQSTRC.MQRC_DICT[2033] == "MQRC_NO_MSG_AVAILABLE"
    assert CMQSTRC.MQRC_DICT[2120] == "MQRC_CONVERTED_MSG_TOO_BIG"
    assert CMQSTRC.MQOT_DICT[CMQC.MQOT_Q] == "MQOT_Q"
    assert CMQSTRC.MQCHT_DICT[6] == "MQCHT_CLNTCONN"
    assert CMQSTRC.MQCNO_DICT[0x40] == "MQCNO_HANDLE_SHARE_BLOCK"
    assert CMQSTRC.MQCA_DICT[2120] == "MQCA_VERSION"
    assert CMQSTRC.MQAT_DICT[6] == "MQAT_UNIX" and CMQSTRC.MQAT_DICT[2] == "MQAT_ZOS"
    assert CMQSTRC.MQCA_DICT[2001] == "MQCA_APPL_ID"  # not the range marker MQCA_FIRST
    assert CMQSTRC.MQRCCF_DICT == {}


def test_cmqstrc_leaves_out_structure_ids_versions_and_lengths():
    """No dictionary holds a StrucId, a version or a length constant."""
    names = {name for dict_name in CMQSTRC.DICTS
             for name in getattr(CMQSTRC, dict_name).values()}
    assert "MQMD_STRUC_ID" not in names and "MQMD_VERSION_2" not in names
    assert not any(name.endswith(("_CURRENT_LENGTH", "_LENGTH_1")) for name in names)


def test_cmqstrc_unknown_family_names_the_known_ones():
    """Asking for a family it does not have is an AttributeError listing those it has."""
    with pytest.raises(AttributeError, match="MQRC_DICT"):
        _ = CMQSTRC.MQXYZ_DICT


def test_error_accessors(qm):
    """An MQMIError answers comp/reason, errorAsString, error_as_string, get(), and the
    descriptive completion_code/reason_code."""
    with pytest.raises(pymqi.MQMIError) as info:
        pymqi.Queue(qm, "NOT.THERE", CMQC.MQOO_INPUT_SHARED)
    e = info.value
    assert e.errorAsString() == e.error_as_string() == "FAILED: MQRC_UNKNOWN_OBJECT_NAME"
    assert (e.get("comp"), e.get("reason")) == (CMQC.MQCC_FAILED, 2085)
    assert (e.completion_code, e.reason_code) == (CMQC.MQCC_FAILED, 2085)
    with pytest.raises(AttributeError):
        e.get("no_such_attribute")


def test_truncated_get_extras_through_get(qm, local_queue):
    """A truncated get's warning carries original_length, reachable with get()."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED)
    q.put(b"0123456789")
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(4, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG))
    assert info.value.get("original_length") == 10
    q.close()


def test_to_string_decodes_text_fields_and_keeps_binary(qm):
    """to_string() turns a structure's text fields into stripped str, leaves MsgId bytes,
    and the structure still packs to the same bytes."""
    md = pymqi.MD(ReplyToQ=b"REPLY.Q", Format=CMQC.MQFMT_STRING, MsgId=b"\x01" * 24)
    raw = md.pack()
    text = pymqi.MD().unpack(raw).to_string()
    assert (text.ReplyToQ, text.Format, text.StrucId) == ("REPLY.Q", "MQSTR", "MD")
    assert text.MsgId == b"\x01" * 24
    assert text.pack() == raw


def test_get_embedded_md_needs_a_whole_header():
    """get_embedded_md(msg) of a message shorter than an MQXQH is a ValueError."""
    with pytest.raises(ValueError, match="428"):
        pymqi.XQH().get_embedded_md(b"XQH " + bytes(100))


def _expire_to_dead_letter(qm, local_queue, **md_fields):
    """Put a message that expires at once, asking for an expiry report with its data to a
    reply queue that does not exist, and make a get discard it: the report is
    dead-lettered. Returns the dead letter (data, md)."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    q.put(b"payload", pymqi.MD(Expiry=1, Report=CMQC.MQRO_EXPIRATION_WITH_FULL_DATA,
                               ReplyToQ=b"NO.SUCH.Q", **md_fields))
    q.close()
    time.sleep(0.25)
    inq = pymqi.Queue(qm, local_queue, CMQC.MQOO_INPUT_SHARED)
    with pytest.raises(pymqi.MQMIError):
        inq.get()
    inq.close()
    dlq = pymqi.Queue(qm, "DEAD.LETTER.QUEUE", CMQC.MQOO_INPUT_SHARED)
    md = pymqi.MD()
    data = dlq.get(None, md)
    dlq.close()
    return data, md


def test_dead_letter_header_carries_encoding_and_ccsid_of_the_data(qm, local_queue):
    """The MQDLH the queue manager writes has the Encoding, CodedCharSetId and Format of the
    data after it (here big-endian S/390 encoding, CCSID 500, MQSTR)."""
    data, md = _expire_to_dead_letter(qm, local_queue, Encoding=CMQC.MQENC_S390,
                                      CodedCharSetId=500, Format=CMQC.MQFMT_STRING)
    dlh = pymqi.DLH().get_header(data)
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert (dlh.Encoding, dlh.CodedCharSetId, dlh.Format) == (
        CMQC.MQENC_S390, 500, CMQC.MQFMT_STRING)
    assert data[CMQC.MQDLH_LENGTH_1:] == b"payload"


def test_dead_letter_header_of_qmgr_ccsid_data_names_the_qmgr_ccsid(qm, local_queue):
    """Data put with MQCCSI_Q_MGR is stored with the queue manager's own CCSID (IBM's MQPUT
    replaces MQCCSI_Q_MGR), so the MQDLH names that CCSID, and the native encoding.
    (A CCSID of 0 arriving otherwise still becomes MQCCSI_INHERIT:
    tests/qmgr/test_dead_letter_header.py.)"""
    data, _md = _expire_to_dead_letter(qm, local_queue)
    dlh = pymqi.DLH().get_header(data)
    assert (dlh.Encoding, dlh.CodedCharSetId) == (
        CMQC.MQENC_NATIVE, pymqi.QueueManager.inquire(qm, CMQC.MQIA_CODED_CHAR_SET_ID))
