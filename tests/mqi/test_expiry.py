"""Message expiry, expiration reports and the expiry scans.

Sources: IBM's MQMD Expiry field, verbatim in seeds/001 (lazy discard, FIFO and priority
rules, reports, not part of the unit of work, count in depth); mq-semantics.md §3 (Report,
Feedback, report MsgId/CorrelId), §5 (expiry, DLQ), DLH layout in §3.
"""

import time

import pytest
from mq_helpers import depth

import tpfemu.mqi as pymqi
from tpfemu.mq.headers import DLH
from tpfemu.mqi import CMQC

OUT = CMQC.MQOO_OUTPUT
IN = CMQC.MQOO_INPUT_AS_Q_DEF
IO = OUT | IN
SHORT = 1  # tenths of a second: 0.1 s (Expiry=2 works as well, only slower)
PAST_SHORT = 0.15  # seconds slept to be past SHORT
LONG = 600  # a minute: never expires within a test


# -- helpers ---------------------------------------------------------------------------


def _put(qm, name, data, **md_fields):
    """Put ``data`` with an MD made of ``md_fields``; return that MD (MsgId written back)."""
    md = pymqi.MD(**md_fields)
    q = pymqi.Queue(qm, name, OUT)
    q.put(data, md)
    q.close()
    return md


def _get(q, options=0, md=None):
    """One message from an open handle, or None on 2033."""
    try:
        return q.get(None, md if md is not None else pymqi.MD(), pymqi.GMO(Options=options))
    except pymqi.MQMIError as exc:
        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise



def _drain(qm, name):
    """Every message on ``name`` as (data, md), in delivery order."""
    q = pymqi.Queue(qm, name, IN)
    out = []
    while True:
        md = pymqi.MD()
        data = _get(q, md=md)
        if data is None:
            q.close()
            return out
        out.append((data, md))


def _check(info, reason, comp=CMQC.MQCC_FAILED):
    """The MQMIError caught by pytest.raises has this completion and reason code."""
    assert (info.value.comp, info.value.reason) == (comp, reason), str(info.value)


@pytest.fixture
def reply_q(qmgr):
    """The queue expiration reports are sent to."""
    qmgr.catalog.define("QL", "REPLY.Q")
    return "REPLY.Q"


# -- the Expiry field ----------------------------------------------------------------------


@pytest.mark.parametrize("expiry", [0, -2, -100])
def test_expiry_zero_or_below_minus_one_fails_2013(qm, local_queue, expiry):
    """Expiry 0 or a negative value other than MQEI_UNLIMITED fails MQRC_EXPIRY_ERROR and puts
    nothing."""
    q = pymqi.Queue(qm, local_queue, OUT)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD(Expiry=expiry))
    _check(info, CMQC.MQRC_EXPIRY_ERROR)
    assert depth(qm, local_queue) == 0


def test_get_returns_remaining_expiry(qm, local_queue):
    """After a get the MD's Expiry is the time left: less than the original, at least 1."""
    _put(qm, local_queue, b"x", Expiry=50)
    time.sleep(0.15)
    md = pymqi.MD()
    assert _get(pymqi.Queue(qm, local_queue, IN), md=md) == b"x"
    assert 1 <= md.Expiry < 50
    assert md.Expiry >= 40  # about 4.85 s are left


def test_nearly_expired_message_reports_at_least_one_tenth(qm, local_queue):
    """A message got just before it expires reports Expiry of at least 1, never 0."""
    _put(qm, local_queue, b"x", Expiry=2)
    time.sleep(0.12)
    md = pymqi.MD()
    data = _get(pymqi.Queue(qm, local_queue, IN), md=md)
    if data is not None:  # on a slow machine it may already have expired
        assert md.Expiry >= 1


def test_unlimited_expiry_comes_back_unlimited(qm, local_queue):
    """A message put with MQEI_UNLIMITED comes back with MQEI_UNLIMITED."""
    _put(qm, local_queue, b"x", Expiry=CMQC.MQEI_UNLIMITED)
    md = pymqi.MD()
    _get(pymqi.Queue(qm, local_queue, IN), md=md)
    assert md.Expiry == CMQC.MQEI_UNLIMITED


def test_expired_message_is_never_returned(qm, local_queue):
    """An expired message is returned neither by a browse nor by a get."""
    _put(qm, local_queue, b"stale", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    q = pymqi.Queue(qm, local_queue, IN | CMQC.MQOO_BROWSE)
    assert _get(q, CMQC.MQGMO_BROWSE_FIRST) is None
    _put(qm, local_queue, b"stale-2", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    assert _get(q) is None
    assert _get(q, CMQC.MQGMO_SYNCPOINT) is None


def test_expired_message_counts_in_depth_until_discarded(qm, local_queue):
    """An expired message counts in CURDEPTH until a get that would have returned it discards
    it."""
    _put(qm, local_queue, b"stale", Expiry=SHORT)
    time.sleep(PAST_SHORT)
    assert depth(qm, local_queue) == 1
    assert _get(pymqi.Queue(qm, local_queue, IN)) is None
    assert depth(qm, local_queue) == 0


def test_fifo_get_discards_expired_up_to_first_unexpired(qmgr, qm):
    """On a FIFO queue a get discards every expired message up to the first unexpired one and no
    further."""
    qmgr.catalog.define("QL", "FIFO.Q", msgdlvsq="FIFO")
    _put(qm, "FIFO.Q", b"stale-1", Expiry=SHORT, Priority=9)
    _put(qm, "FIFO.Q", b"stale-2", Expiry=SHORT, Priority=0)
    _put(qm, "FIFO.Q", b"live", Expiry=LONG, Priority=4)
    _put(qm, "FIFO.Q", b"stale-after", Expiry=SHORT, Priority=9)
    time.sleep(PAST_SHORT)
    assert depth(qm, "FIFO.Q") == 4
    assert _get(pymqi.Queue(qm, "FIFO.Q", IN)) == b"live"
    assert depth(qm, "FIFO.Q") == 1  # stale-after is behind the returned message: kept


def test_priority_get_discards_higher_and_earlier_equal_priority_only(qm, local_queue):
    """On a priority queue a get discards expired messages of higher priority and of equal
    priority ahead of the first unexpired one, not lower-priority ones."""
    _put(qm, local_queue, b"stale-high", Expiry=SHORT, Priority=8)
    _put(qm, local_queue, b"stale-equal-before", Expiry=SHORT, Priority=5)
    _put(qm, local_queue, b"live", Expiry=LONG, Priority=5)
    _put(qm, local_queue, b"stale-equal-after", Expiry=SHORT, Priority=5)
    _put(qm, local_queue, b"stale-low", Expiry=SHORT, Priority=2)
    time.sleep(PAST_SHORT)
    assert depth(qm, local_queue) == 5
    assert _get(pymqi.Queue(qm, local_queue, IN)) == b"live"
    assert depth(qm, local_queue) == 2  # stale-equal-after and stale-low are left
    assert qm.is_connected


def test_browse_discards_expired_messages_it_would_have_returned(qm, local_queue):
    """A browse discards the expired messages it would otherwise have returned."""
    _put(qm, local_queue, b"stale", Expiry=SHORT, Priority=7)
    _put(qm, local_queue, b"live", Priority=3)
    time.sleep(PAST_SHORT)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_BROWSE)
    assert _get(q, CMQC.MQGMO_BROWSE_FIRST) == b"live"
    assert depth(qm, local_queue) == 1


def test_matched_get_discards_expired_match(qm, local_queue):
    """A get by CorrelId never returns an expired message with that CorrelId."""
    cid = b"WANTED".ljust(24, b"\0")
    _put(qm, local_queue, b"stale", Expiry=SHORT, CorrelId=cid)
    _put(qm, local_queue, b"other", CorrelId=b"OTHER".ljust(24, b"\0"))
    time.sleep(PAST_SHORT)
    q = pymqi.Queue(qm, local_queue, IN)
    assert _get(q, md=pymqi.MD(CorrelId=cid)) is None
    assert depth(qm, local_queue) == 1


# -- expiration reports ------------------------------------------------------------------


def _expire_one(qm, queue, data, report, *, reply_to=b"REPLY.Q", **extra):
    """Put ``data`` with a short expiry and ``report`` options, then a live message, wait, and
    get: the get returns the live message and discards the expired one. Returns the MD of the
    expired message as put."""
    md = _put(qm, queue, data, Expiry=SHORT, Report=report, ReplyToQ=reply_to,
              Priority=5, **extra)
    _put(qm, queue, b"live", Priority=5)
    time.sleep(PAST_SHORT)
    assert _get(pymqi.Queue(qm, queue, IN)) == b"live"
    return md


def test_expiration_report_without_data(qm, local_queue, reply_q):
    """MQRO_EXPIRATION sends a report with no data to ReplyToQ: MsgType MQMT_REPORT, Feedback
    MQFB_EXPIRATION, CorrelId the original MsgId."""
    original = _expire_one(qm, local_queue, b"payload", CMQC.MQRO_EXPIRATION)
    reports = _drain(qm, reply_q)
    assert len(reports) == 1
    data, md = reports[0]
    assert data == b""
    assert md.MsgType == CMQC.MQMT_REPORT
    assert md.Feedback == CMQC.MQFB_EXPIRATION == 258
    assert md.CorrelId == original.MsgId
    assert md.MsgId != original.MsgId  # MQRO_NEW_MSG_ID is the default


def test_expiration_report_with_data_has_first_100_bytes(qm, local_queue, reply_q):
    """MQRO_EXPIRATION_WITH_DATA puts the first 100 bytes of the message data in the report."""
    payload = bytes(range(250))
    _expire_one(qm, local_queue, payload, CMQC.MQRO_EXPIRATION_WITH_DATA)
    [(data, md)] = _drain(qm, reply_q)
    assert data == payload[:100]
    assert md.Feedback == CMQC.MQFB_EXPIRATION


def test_expiration_report_with_full_data(qm, local_queue, reply_q):
    """MQRO_EXPIRATION_WITH_FULL_DATA puts all the message data in the report."""
    payload = bytes(range(256)) * 4
    _expire_one(qm, local_queue, payload, CMQC.MQRO_EXPIRATION_WITH_FULL_DATA)
    [(data, md)] = _drain(qm, reply_q)
    assert data == payload
    assert md.MsgType == CMQC.MQMT_REPORT


def test_expiration_report_pass_correl_id(qm, local_queue, reply_q):
    """With MQRO_PASS_CORREL_ID the report keeps the original CorrelId."""
    cid = b"CORREL-42".ljust(24, b"\0")
    _expire_one(qm, local_queue, b"x", CMQC.MQRO_EXPIRATION | CMQC.MQRO_PASS_CORREL_ID,
                CorrelId=cid)
    [(_, md)] = _drain(qm, reply_q)
    assert md.CorrelId == cid


def test_expiration_report_pass_msg_id(qm, local_queue, reply_q):
    """With MQRO_PASS_MSG_ID the report carries the original MsgId as its MsgId."""
    original = _expire_one(qm, local_queue, b"x", CMQC.MQRO_EXPIRATION | CMQC.MQRO_PASS_MSG_ID)
    [(_, md)] = _drain(qm, reply_q)
    assert md.MsgId == original.MsgId


def test_no_report_without_expiration_option(qm, local_queue, reply_q):
    """An expired message without MQRO_EXPIRATION* is discarded without an expiration
    report (its COA, made when it arrived, is the only report)."""
    _expire_one(qm, local_queue, b"x", CMQC.MQRO_COA)
    assert [md.Feedback for _, md in _drain(qm, reply_q)] == [CMQC.MQFB_COA]
    assert depth(qm, "DEAD.LETTER.QUEUE") == 0


def test_expiration_report_made_when_get_finds_nothing(qm, local_queue, reply_q):
    """The get that discards an expired message sends its report even when it then finds no
    message (2033)."""
    original = _put(qm, local_queue, b"x", Expiry=SHORT, Report=CMQC.MQRO_EXPIRATION,
                    ReplyToQ=reply_q)
    time.sleep(PAST_SHORT)
    assert _get(pymqi.Queue(qm, local_queue, IN)) is None
    assert depth(qm, local_queue) == 0
    reports = _drain(qm, reply_q)
    assert [md.CorrelId for _, md in reports] == [original.MsgId]


def test_expiration_report_is_not_part_of_the_unit_of_work(qm, local_queue, reply_q):
    """A syncpoint get that discards an expired message, then MQBACK: the report stays, the
    expired message stays gone, the got message is restored."""
    _put(qm, local_queue, b"stale", Expiry=SHORT, Priority=5, Report=CMQC.MQRO_EXPIRATION,
         ReplyToQ=reply_q)
    _put(qm, local_queue, b"live", Priority=5)
    time.sleep(PAST_SHORT)
    assert _get(pymqi.Queue(qm, local_queue, IN), CMQC.MQGMO_SYNCPOINT) == b"live"
    qm.backout()
    assert [d for d, _ in _drain(qm, local_queue)] == [b"live"]
    reports = _drain(qm, reply_q)
    assert len(reports) == 1 and reports[0][1].Feedback == CMQC.MQFB_EXPIRATION


def test_expiration_report_to_missing_reply_q_goes_to_dead_letter_queue(qm, local_queue):
    """A report for a ReplyToQ that does not exist goes to the dead-letter queue with an MQDLH
    (Reason 2085, DestQName) and Format MQDEAD."""
    _expire_one(qm, local_queue, b"payload", CMQC.MQRO_EXPIRATION_WITH_FULL_DATA,
                reply_to=b"NO.SUCH.Q")
    dead = _drain(qm, "DEAD.LETTER.QUEUE")
    assert len(dead) == 1
    data, md = dead[0]
    assert md.Format == CMQC.MQFMT_DEAD_LETTER_HEADER
    assert md.Feedback == CMQC.MQFB_EXPIRATION
    dlh = DLH().unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.Reason == CMQC.MQRC_UNKNOWN_OBJECT_NAME
    assert dlh.DestQName.rstrip() == b"NO.SUCH.Q"
    assert data[CMQC.MQDLH_LENGTH_1:] == b"payload"


def test_dead_letter_header_names_the_queue_manager_as_putter(qmgr, qm, local_queue):
    """When the queue manager itself dead-letters a report, the MQDLH says PutApplType MQAT_QMGR,
    PutApplName its name, and when it was put (PutDate/PutTime)."""
    _expire_one(qm, local_queue, b"payload", CMQC.MQRO_EXPIRATION, reply_to=b"NO.SUCH.Q")
    [(data, _)] = _drain(qm, "DEAD.LETTER.QUEUE")
    dlh = DLH().unpack(data[:CMQC.MQDLH_LENGTH_1])
    assert dlh.PutApplType == CMQC.MQAT_QMGR
    assert dlh.PutApplName.rstrip() == qmgr.name.encode()[:28]
    assert dlh.PutDate.strip().isdigit() and len(dlh.PutDate) == 8
    assert dlh.PutTime.strip().isdigit() and len(dlh.PutTime) == 8


# -- scans -------------------------------------------------------------------------------


def test_scan_expired_discards_anywhere_on_the_queue(qmgr, qm, local_queue, reply_q):
    """qmgr.scan_expired() discards expired messages wherever they are (behind live ones too)
    and reports them."""
    _put(qm, local_queue, b"live-high", Priority=9)
    original = _put(qm, local_queue, b"stale-low", Expiry=SHORT, Priority=0,
                    Report=CMQC.MQRO_EXPIRATION, ReplyToQ=reply_q)
    _put(qm, local_queue, b"live-low", Priority=0)
    time.sleep(PAST_SHORT)
    assert qmgr.scan_expired() == 1
    assert depth(qm, local_queue) == 2
    assert [d for d, _ in _drain(qm, local_queue)] == [b"live-high", b"live-low"]
    [(_, md)] = _drain(qm, reply_q)
    assert md.CorrelId == original.MsgId


def test_scan_expired_leaves_unexpired_messages(qmgr, qm, local_queue):
    """qmgr.scan_expired() leaves messages that have not expired."""
    _put(qm, local_queue, b"a", Expiry=LONG)
    _put(qm, local_queue, b"b")
    assert qmgr.scan_expired() == 0
    assert depth(qm, local_queue) == 2


def test_periodic_scan_with_expryint(qmgr, qm, local_queue):
    """With EXPRYINT 1 on the profile, the periodic scan discards an expired message nobody
    gets within a few seconds."""
    _put(qm, local_queue, b"live", Priority=9)
    _put(qm, local_queue, b"stale", Expiry=1, Priority=0)
    qmgr.catalog.alter("MQP", expryint=1)
    deadline = time.monotonic() + 3.5
    while depth(qm, local_queue) != 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert depth(qm, local_queue) == 1
    assert [d for d, _ in _drain(qm, local_queue)] == [b"live"]


def test_no_periodic_scan_without_expryint(qm, local_queue):
    """With EXPRYINT 0 (the default) an expired message nobody gets stays counted in the depth."""
    _put(qm, local_queue, b"live", Priority=9)
    _put(qm, local_queue, b"stale", Expiry=1, Priority=0)
    time.sleep(1.15)  # past the scanner's one-second idle tick
    assert depth(qm, local_queue) == 2
