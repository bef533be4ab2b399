"""MQPUT's MQMD rules, written once in C (native/include/tpf/putrules.h)."""

import pytest

from tpfemu import _lowlevel
from tpfemu.mq import cmqc

NOW = 1_000_000_000
AS_Q = (cmqc.MQPRI_PRIORITY_AS_Q_DEF, cmqc.MQPER_PERSISTENCE_AS_Q_DEF, cmqc.MQEI_UNLIMITED,
        cmqc.MQMT_DATAGRAM, True)


def rules(priority, persistence, expiry, msg_type, reply_blank, *, report=0, defprty=4,
          defpsist=True, feedback=cmqc.MQFB_NONE):
    return _lowlevel.put_rules(priority, persistence, expiry, msg_type, report, reply_blank,
                               defprty, defpsist, NOW, feedback)


def test_the_queue_defaults_apply():
    """AS_Q_DEF takes DEFPRTY and DEFPSIST; MQEI_UNLIMITED never expires."""
    assert rules(*AS_Q) == (cmqc.MQRC_NONE, 4, True, _lowlevel.NEVER)


@pytest.mark.parametrize(("fields", "expected"), [
    ((9, 0, 10, cmqc.MQMT_DATAGRAM, True), (cmqc.MQRC_NONE, 9, False, NOW + 1_000_000)),
    ((12, 1, -1, cmqc.MQMT_REQUEST, False),
     (cmqc.MQRC_PRIORITY_EXCEEDS_MAXIMUM, 9, True, _lowlevel.NEVER)),
    ((2**40, 1, -1, cmqc.MQMT_DATAGRAM, True),
     (cmqc.MQRC_PRIORITY_EXCEEDS_MAXIMUM, 9, True, _lowlevel.NEVER)),
])
def test_values_and_the_priority_warning(fields, expected):
    """Priorities above 9 are put as 9 with the 2049 warning; Expiry counts tenths."""
    assert rules(*fields) == expected


@pytest.mark.parametrize(("fields", "reason"), [
    ((-2, 0, -1, cmqc.MQMT_DATAGRAM, True), cmqc.MQRC_PRIORITY_ERROR),
    ((0, 3, -1, cmqc.MQMT_DATAGRAM, True), cmqc.MQRC_PERSISTENCE_ERROR),
    ((0, 0, 0, cmqc.MQMT_DATAGRAM, True), cmqc.MQRC_EXPIRY_ERROR),
    ((0, 0, -2, cmqc.MQMT_DATAGRAM, True), cmqc.MQRC_EXPIRY_ERROR),
    ((0, 0, 2**40, cmqc.MQMT_DATAGRAM, True), cmqc.MQRC_EXPIRY_ERROR),
    ((0, 0, -1, cmqc.MQMT_REQUEST, True), cmqc.MQRC_MISSING_REPLY_TO_Q),
    # the first failure in IBM's order wins, and a failure beats the 2049 warning
    ((-2, 3, 0, cmqc.MQMT_REQUEST, True), cmqc.MQRC_PRIORITY_ERROR),
    ((12, 3, 0, cmqc.MQMT_REQUEST, True), cmqc.MQRC_PERSISTENCE_ERROR),
    ((12, 1, 0, cmqc.MQMT_REQUEST, True), cmqc.MQRC_EXPIRY_ERROR),
    ((12, 1, 5, cmqc.MQMT_REQUEST, True), cmqc.MQRC_MISSING_REPLY_TO_Q),
    ((0, 0, -1, 0, True), cmqc.MQRC_MSG_TYPE_ERROR),
    ((0, 0, -1, -8, False), cmqc.MQRC_MSG_TYPE_ERROR),
    ((0, 0, -1, cmqc.MQMT_APPL_LAST + 1, False), cmqc.MQRC_MSG_TYPE_ERROR),
    ((0, 0, -1, 2**40, False), cmqc.MQRC_MSG_TYPE_ERROR),
    ((12, 1, 5, 0, True), cmqc.MQRC_MSG_TYPE_ERROR),  # before a missing ReplyToQ
])
def test_failures_in_ibms_order(fields, reason):
    """Each bad value fails with its reason, checked in the order IBM documents."""
    assert rules(*fields) == (reason, 0, False, 0)


@pytest.mark.parametrize("report", [
    cmqc.MQRO_COA, cmqc.MQRO_COD_WITH_DATA, cmqc.MQRO_EXPIRATION, cmqc.MQRO_EXCEPTION,
    cmqc.MQRO_PAN, cmqc.MQRO_NAN, cmqc.MQRO_COA_WITH_FULL_DATA | cmqc.MQRO_PASS_MSG_ID,
])
def test_a_report_needs_a_reply_to_queue(report):
    """A Report asking for any report with a blank ReplyToQ fails MQRC_MISSING_REPLY_TO_Q
    (IBM, MQMD ReplyToQ); with a ReplyToQ it is put."""
    assert rules(0, 0, -1, cmqc.MQMT_DATAGRAM, True, report=report)[0] == \
        cmqc.MQRC_MISSING_REPLY_TO_Q
    assert rules(0, 0, -1, cmqc.MQMT_DATAGRAM, False, report=report)[0] == cmqc.MQRC_NONE


@pytest.mark.parametrize("report", [
    cmqc.MQRO_PASS_MSG_ID | cmqc.MQRO_PASS_CORREL_ID, cmqc.MQRO_DISCARD_MSG,
    cmqc.MQRO_PASS_DISCARD_AND_EXPIRY,
])
def test_report_options_asking_for_no_report_need_no_reply_to_queue(report):
    """Report options that only say how a report would be made ask for none: no
    ReplyToQ is needed."""
    assert rules(0, 0, -1, cmqc.MQMT_DATAGRAM, True, report=report)[0] == cmqc.MQRC_NONE


@pytest.mark.parametrize("msg_type", [cmqc.MQMT_SYSTEM_FIRST, cmqc.MQMT_REPLY, 3,
                                      cmqc.MQMT_SYSTEM_LAST, cmqc.MQMT_APPL_FIRST,
                                      cmqc.MQMT_APPL_LAST])
def test_msg_types_of_either_range_are_put(msg_type):
    """A MsgType in the system range or the application range is put (IBM, MQMD
    MsgType): only the values outside both fail MQRC_MSG_TYPE_ERROR."""
    assert rules(0, 0, -1, msg_type, False)[0] == cmqc.MQRC_NONE


@pytest.mark.parametrize(("feedback", "reason"), [
    (cmqc.MQFB_NONE, cmqc.MQRC_NONE), (cmqc.MQFB_SYSTEM_FIRST, cmqc.MQRC_NONE),
    (cmqc.MQFB_EXPIRATION, cmqc.MQRC_NONE), (cmqc.MQRC_Q_FULL, cmqc.MQRC_NONE),
    (cmqc.MQFB_SYSTEM_LAST, cmqc.MQRC_NONE), (cmqc.MQFB_APPL_FIRST, cmqc.MQRC_NONE),
    (cmqc.MQFB_APPL_LAST, cmqc.MQRC_NONE), (-1, cmqc.MQRC_FEEDBACK_ERROR),
    (cmqc.MQFB_APPL_LAST + 1, cmqc.MQRC_FEEDBACK_ERROR), (2**40, cmqc.MQRC_FEEDBACK_ERROR),
])
@pytest.mark.parametrize("msg_type", [cmqc.MQMT_DATAGRAM, cmqc.MQMT_REPORT])
def test_feedback_is_none_or_in_either_range_whatever_the_msg_type(feedback, reason,
                                                                    msg_type):
    """Feedback is MQFB_NONE, in the system range or in the application range, checked
    whatever the MsgType (IBM, MQMD Feedback); else MQRC_FEEDBACK_ERROR."""
    assert rules(0, 0, -1, msg_type, False, feedback=feedback)[0] == reason


@pytest.mark.parametrize("bit", [0x00040000, 0x00080000, 0x00100000, 0x10000000])
def test_a_report_bit_to_reject_when_unsupported_fails_2061(bit):
    """A Report bit of MQRO_REJECT_UNSUP_MASK (0x101C0000: no option tpfemu supports) fails
    MQRC_REPORT_OPTIONS_ERROR (IBM, "Structure of the report field"), with or without a
    ReplyToQ and beside supported options."""
    for reply_blank in (True, False):
        assert rules(0, 0, -1, cmqc.MQMT_DATAGRAM, reply_blank, report=bit)[0] == \
            cmqc.MQRC_REPORT_OPTIONS_ERROR
    assert rules(0, 0, -1, cmqc.MQMT_DATAGRAM, False,
                 report=bit | cmqc.MQRO_COA | cmqc.MQRO_PASS_MSG_ID)[0] == \
        cmqc.MQRC_REPORT_OPTIONS_ERROR
