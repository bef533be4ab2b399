"""MQPUT, MQPUT1 and MQGET against IBM's documentation: limits, inhibits, open options,
browse and MQPUT1 (delivery, MD fields and truncation are in test_put_get.py).

Sources: mq-semantics.md §1 (calls and options), §2 (reason codes), §3 (MQMD fields),
§7 (delivery order); pymqi's documented behaviour for the Python surface (§8).
"""

import pytest
from mq_helpers import ID_C, IN, IO, OUT, check_reason, depth, drain, get_msg, open_q

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

# -- limits ------------------------------------------------------------------------------


def test_message_longer_than_queue_maxmsgl_fails_2030(qmgr, qm):
    """A message longer than the queue's MAXMSGL fails MQRC_MSG_TOO_BIG_FOR_Q; one of exactly
    MAXMSGL is put."""
    qmgr.catalog.define("QL", "SMALL.Q", maxmsgl=10)
    q = open_q(qm, "SMALL.Q")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x" * 11, pymqi.MD())
    check_reason(info, CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
    q.put(b"x" * 10, pymqi.MD())
    assert depth(qm, "SMALL.Q") == 1


def test_message_longer_than_profile_maxmsgl_fails_2031(qmgr, qm):
    """A message within the queue's MAXMSGL but over the queue manager's (profile) MAXMSGL fails
    2031."""
    qmgr.catalog.define("QL", "BIG.Q", maxmsgl=1000)
    qmgr.catalog.alter("MQP", maxmsgl=100)
    q = open_q(qm, "BIG.Q")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x" * 101, pymqi.MD())
    check_reason(info, CMQC.MQRC_MSG_TOO_BIG_FOR_Q_MGR)
    q.put(b"x" * 100, pymqi.MD())
    assert depth(qm, "BIG.Q") == 1


def test_message_longer_than_both_maxmsgls_fails_2030(qmgr, qm):
    """A message over both the queue's and the queue manager's MAXMSGL fails
    MQRC_MSG_TOO_BIG_FOR_Q (IBM's MaxMsgLength queue attribute: 2031 only when the message
    is too big for the queue manager but not for the queue), whichever limit is lower,
    by a handle's first put, its later ones and MQPUT1; nothing is put."""
    qmgr.catalog.define("QL", "Q.LOWER", maxmsgl=50)
    qmgr.catalog.define("QL", "Q.HIGHER", maxmsgl=150)
    qmgr.catalog.alter("MQP", maxmsgl=100)
    for name in ("Q.LOWER", "Q.HIGHER"):
        q = open_q(qm, name)
        q.put(b"x", pymqi.MD())  # (the handle's later puts may take its plan)
        for _ in range(2):
            with pytest.raises(pymqi.MQMIError) as info:
                q.put(b"x" * 200, pymqi.MD())
            check_reason(info, CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
        with pytest.raises(pymqi.MQMIError) as info:
            qm.put1(name, b"x" * 200, pymqi.MD())
        check_reason(info, CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
        assert depth(qm, name) == 1

def test_queue_full_fails_2053(qmgr, qm):
    """A put on a queue at MAXDEPTH fails MQRC_Q_FULL."""
    qmgr.catalog.define("QL", "FULL.Q", maxdepth=2)
    q = open_q(qm, "FULL.Q")
    q.put(b"1", pymqi.MD())
    q.put(b"2")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"3", pymqi.MD())
    check_reason(info, CMQC.MQRC_Q_FULL)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"3")  # the no-MD path too
    check_reason(info, CMQC.MQRC_Q_FULL)
    assert depth(qm, "FULL.Q") == 2


def test_uncommitted_puts_count_toward_maxdepth(qmgr, qm):
    """Uncommitted puts count in the depth MAXDEPTH limits: another connection's put fails 2053."""
    qmgr.catalog.define("QL", "FULL.Q", maxdepth=2)
    q = open_q(qm, "FULL.Q")
    sync = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    q.put(b"1", pymqi.MD(), sync)
    q.put(b"2", pymqi.MD(), sync)
    other = pymqi.connect(qmgr.name)
    try:
        with pytest.raises(pymqi.MQMIError) as info:
            open_q(other, "FULL.Q", OUT).put(b"3", pymqi.MD())
        check_reason(info, CMQC.MQRC_Q_FULL)
    finally:
        other.disconnect()
    qm.backout()


# -- inhibits ----------------------------------------------------------------------------


@pytest.fixture
def alias_pair(qmgr):
    """A local queue T.Q and an alias A.Q targeting it."""
    qmgr.catalog.define("QL", "T.Q")
    qmgr.catalog.define("QA", "A.Q", targq="T.Q")
    return qmgr


@pytest.mark.parametrize("opened, inhibited, kind", [
    ("T.Q", "T.Q", "QL"), ("A.Q", "A.Q", "QA"), ("A.Q", "T.Q", "QL")])
def test_put_inhibited_fails_2051(alias_pair, qm, opened, inhibited, kind):
    """PUT(DISABLED) on the queue, on only the alias, or on only the alias's target fails
    MQRC_PUT_INHIBITED."""
    q = open_q(qm, opened, OUT)
    alias_pair.catalog.alter(kind, inhibited, put="DISABLED")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD())
    check_reason(info, CMQC.MQRC_PUT_INHIBITED)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x")  # the no-MD path too
    check_reason(info, CMQC.MQRC_PUT_INHIBITED)
    assert depth(qm, "T.Q") == 0
    alias_pair.catalog.alter(kind, inhibited, put="ENABLED")
    q.put(b"x", pymqi.MD())
    assert depth(qm, "T.Q") == 1


@pytest.mark.parametrize("opened, inhibited, kind", [
    ("T.Q", "T.Q", "QL"), ("A.Q", "A.Q", "QA"), ("A.Q", "T.Q", "QL")])
def test_get_inhibited_fails_2016(alias_pair, qm, opened, inhibited, kind):
    """GET(DISABLED) on the queue, on only the alias, or on only the alias's target fails
    MQRC_GET_INHIBITED."""
    open_q(qm, "T.Q", OUT).put(b"x", pymqi.MD())
    q = open_q(qm, opened, IN)
    alias_pair.catalog.alter(kind, inhibited, get="DISABLED")
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO())
    check_reason(info, CMQC.MQRC_GET_INHIBITED)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get()  # the no-MD path too
    check_reason(info, CMQC.MQRC_GET_INHIBITED)
    assert depth(qm, "T.Q") == 1
    alias_pair.catalog.alter(kind, inhibited, get="ENABLED")
    assert q.get() == b"x"


@pytest.mark.parametrize("browse", [CMQC.MQGMO_BROWSE_FIRST, CMQC.MQGMO_BROWSE_NEXT],
                         ids=["BROWSE_FIRST", "BROWSE_NEXT"])
def test_browse_of_get_inhibited_queue_fails_2016(qmgr, qm, local_queue, browse):
    """GET(DISABLED) also makes browses fail MQRC_GET_INHIBITED (IBM InhibitGet: "This includes
    MQGET calls that specify MQGMO_BROWSE_FIRST or MQGMO_BROWSE_NEXT")."""
    q = open_q(qm, local_queue, OUT | CMQC.MQOO_BROWSE)
    q.put(b"x", pymqi.MD())
    qmgr.catalog.alter("QL", local_queue, get="DISABLED")
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=browse))
    check_reason(info, CMQC.MQRC_GET_INHIBITED)


@pytest.mark.parametrize("opened, inhibited, kind", [
    ("T.Q", "T.Q", "QL"), ("A.Q", "A.Q", "QA"), ("A.Q", "T.Q", "QL")])
def test_inhibit_after_earlier_puts_and_gets_on_same_handle(alias_pair, qm, opened, inhibited,
                                                            kind):
    """Inhibits apply to every call after the ALTER, also on a handle that already put and got
    (no MD: the repeated-call path)."""
    q = open_q(qm, opened, IO)
    q.put(b"1")
    q.put(b"2")
    assert q.get() == b"1"
    alias_pair.catalog.alter(kind, inhibited, put="DISABLED", get="DISABLED")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"3")
    check_reason(info, CMQC.MQRC_PUT_INHIBITED)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get()
    check_reason(info, CMQC.MQRC_GET_INHIBITED)
    assert depth(qm, "T.Q") == 1


def test_alter_after_earlier_puts_applies_to_next_put(qmgr, qm):
    """A DEFPRTY or MAXMSGL change applies to the next put on a handle that already put (no MD)."""
    qmgr.catalog.define("QL", "ALT.Q", defprty=1)
    q = open_q(qm, "ALT.Q")
    q.put(b"a")
    q.put(b"b")
    qmgr.catalog.alter("QL", "ALT.Q", defprty=6, maxmsgl=4)
    q.put(b"c")
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"too-long")
    check_reason(info, CMQC.MQRC_MSG_TOO_BIG_FOR_Q)
    assert [(d, md.Priority) for d, md in drain(q)] == [(b"c", 6), (b"a", 1), (b"b", 1)]


def test_put_inhibited_also_for_put1(qmgr, qm, local_queue):
    """MQPUT1 to a put-inhibited queue fails MQRC_PUT_INHIBITED."""
    qmgr.catalog.alter("QL", local_queue, put="DISABLED")
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1(local_queue, b"x", pymqi.MD())
    check_reason(info, CMQC.MQRC_PUT_INHIBITED)


# -- open options ------------------------------------------------------------------------


def test_put_on_handle_not_open_for_output_fails_2039(qm, local_queue):
    """MQPUT on a handle opened without MQOO_OUTPUT fails MQRC_NOT_OPEN_FOR_OUTPUT."""
    q = open_q(qm, local_queue, IN)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD())
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_OUTPUT)


def test_get_on_handle_not_open_for_input_fails_2037(qm, local_queue):
    """MQGET on a handle opened only for output fails MQRC_NOT_OPEN_FOR_INPUT."""
    q = open_q(qm, local_queue, OUT)
    q.put(b"x", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO())
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_INPUT)


def test_destructive_get_on_browse_only_handle_fails_2037(qm, local_queue):
    """A destructive MQGET on a browse-only handle fails MQRC_NOT_OPEN_FOR_INPUT."""
    open_q(qm, local_queue, OUT).put(b"x", pymqi.MD())
    q = open_q(qm, local_queue, CMQC.MQOO_BROWSE)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO())
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_INPUT)


def test_browse_on_handle_not_open_for_browse_fails_2036(qm, local_queue):
    """A browse on a handle opened without MQOO_BROWSE fails MQRC_NOT_OPEN_FOR_BROWSE."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_BROWSE)


def test_get_under_cursor_on_handle_not_open_for_browse_fails_2036(qm, local_queue):
    """MQGMO_MSG_UNDER_CURSOR needs a handle opened with MQOO_BROWSE: IBM lists it among the
    options MQRC_NOT_OPEN_FOR_BROWSE names (not 2034: there is no cursor to ask about)."""
    q = open_q(qm, local_queue)
    q.put(b"x", pymqi.MD())
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR))
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_BROWSE)
    assert depth(qm, local_queue) == 1


def test_get_under_cursor_on_browse_only_handle_fails_2037(qm, local_queue):
    """MQGMO_MSG_UNDER_CURSOR removes the message: a handle opened for browse only fails
    MQRC_NOT_OPEN_FOR_INPUT and the message stays."""
    open_q(qm, local_queue, OUT).put(b"x", pymqi.MD())
    q = open_q(qm, local_queue, CMQC.MQOO_BROWSE)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == b"x"
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_MSG_UNDER_CURSOR))
    check_reason(info, CMQC.MQRC_NOT_OPEN_FOR_INPUT)
    assert depth(qm, local_queue) == 1


@pytest.mark.parametrize("option", [0x1, 0x8, 0x10, 0x100000, 0x40000000])
def test_put_with_an_undefined_option_fails_2046(qm, local_queue, option):
    """MQPMO Options holding a bit cmqc.h does not define fail MQRC_OPTIONS_ERROR ("options
    that are not valid"), by a handle's first put and by its later ones, and put nothing."""
    q = open_q(qm, local_queue)
    q.put(b"plain", pymqi.MD())  # (the handle's later puts may take its plan)
    for _ in range(2):
        with pytest.raises(pymqi.MQMIError) as info:
            q.put(b"x", pymqi.MD(), pymqi.PMO(Options=option | CMQC.MQPMO_NO_SYNCPOINT))
        check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    with pytest.raises(pymqi.MQMIError) as info:
        pymqi.QueueManager.put1(qm, local_queue, b"x", pymqi.MD(), pymqi.PMO(Options=option))
    check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 1


@pytest.mark.parametrize("option", [0x80000, 0x20000000, 0x40000000])
def test_get_with_an_undefined_option_fails_2046(qm, local_queue, option):
    """MQGMO Options holding a bit cmqc.h does not define fail MQRC_OPTIONS_ERROR and get
    nothing, by a handle's first get and by its later ones."""
    q = open_q(qm, local_queue)
    for _ in range(3):
        q.put(b"x", pymqi.MD())
    get_msg(q)  # (the handle's later gets may take its plan)
    for _ in range(2):
        with pytest.raises(pymqi.MQMIError) as info:
            q.get(None, pymqi.MD(), pymqi.GMO(Options=option | CMQC.MQGMO_NO_SYNCPOINT))
        check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 2


@pytest.mark.parametrize("match", [0x40, 0x1000, CMQC.MQMO_MATCH_MSG_ID | 0x80000000])
def test_get_with_an_undefined_match_option_fails_2247(qm, local_queue, match):
    """A version-2 GMO whose MatchOptions hold a bit cmqc.h does not define fails
    MQRC_MATCH_OPTIONS_ERROR ("an undefined option is specified") and gets nothing."""
    q = open_q(qm, local_queue)
    for _ in range(3):
        q.put(b"x", pymqi.MD())
    get_msg(q)  # (the handle's later gets may take its plan)
    for _ in range(2):
        gmo = pymqi.GMO(Version=CMQC.MQGMO_VERSION_2, MatchOptions=match)
        with pytest.raises(pymqi.MQMIError) as info:
            q.get(None, pymqi.MD(), gmo)
        check_reason(info, CMQC.MQRC_MATCH_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 2



def test_put_with_alternate_user_authority_fails_2046_but_put1_takes_it(qm, local_queue):
    """MQPMO_ALTERNATE_USER_AUTHORITY is valid on MQPUT1 only ("Rules for validating MQI
    options"): MQPUT with it fails MQRC_OPTIONS_ERROR and puts nothing, by a handle's first
    put and by its later ones; MQPUT1 with it puts the message."""
    q = open_q(qm, local_queue)
    q.put(b"plain", pymqi.MD())  # (the handle's later puts may take its plan)
    for _ in range(2):
        with pytest.raises(pymqi.MQMIError) as info:
            q.put(b"x", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY))
        check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 1
    qm.put1(local_queue, b"alt", pymqi.MD(),
            pymqi.PMO(Options=CMQC.MQPMO_ALTERNATE_USER_AUTHORITY))
    assert depth(qm, local_queue) == 2


def test_put_with_both_response_options_fails_2046(qm, local_queue):
    """MQPMO_ASYNC_RESPONSE with MQPMO_SYNC_RESPONSE fails MQRC_OPTIONS_ERROR ("Rules for
    validating MQI options": only one put response option), on MQPUT and MQPUT1; either
    alone is accepted."""
    both = CMQC.MQPMO_ASYNC_RESPONSE | CMQC.MQPMO_SYNC_RESPONSE
    q = open_q(qm, local_queue)
    with pytest.raises(pymqi.MQMIError) as info:
        q.put(b"x", pymqi.MD(), pymqi.PMO(Options=both))
    check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1(local_queue, b"x", pymqi.MD(), pymqi.PMO(Options=both))
    check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 0
    for option in (CMQC.MQPMO_ASYNC_RESPONSE, CMQC.MQPMO_SYNC_RESPONSE):
        q.put(b"x", pymqi.MD(), pymqi.PMO(Options=option))
    assert depth(qm, local_queue) == 2

def test_put1_with_logical_order_fails_2046(qmgr, qm, local_queue):
    """MQPMO_LOGICAL_ORDER is not valid on MQPUT1 ("Rules for validating MQI options"):
    MQRC_OPTIONS_ERROR, nothing put and no handle left open."""
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1(local_queue, b"x", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_LOGICAL_ORDER))
    check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 0
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0


_G = CMQC


@pytest.mark.parametrize("options", [
    _G.MQGMO_MARK_SKIP_BACKOUT,
    _G.MQGMO_MARK_SKIP_BACKOUT | _G.MQGMO_NO_SYNCPOINT,
    _G.MQGMO_SYNCPOINT_IF_PERSISTENT | _G.MQGMO_BROWSE_FIRST,
    _G.MQGMO_SYNCPOINT_IF_PERSISTENT | _G.MQGMO_BROWSE_NEXT,
    _G.MQGMO_SYNCPOINT_IF_PERSISTENT | _G.MQGMO_COMPLETE_MSG,
    _G.MQGMO_SYNCPOINT_IF_PERSISTENT | _G.MQGMO_UNLOCK,
    _G.MQGMO_UNLOCK | _G.MQGMO_WAIT,
    _G.MQGMO_UNLOCK | _G.MQGMO_SYNCPOINT,
    _G.MQGMO_UNLOCK | _G.MQGMO_ACCEPT_TRUNCATED_MSG,
    _G.MQGMO_WAIT | _G.MQGMO_SET_SIGNAL,
])
def test_get_option_combinations_ibm_refuses_fail_2046(qm, local_queue, options):
    """The MQGET combinations IBM's "Rules for validating MQI options" refuse fail
    MQRC_OPTIONS_ERROR before anything else is looked at, and get nothing: MARK_SKIP_BACKOUT
    without SYNCPOINT; SYNCPOINT_IF_PERSISTENT with a browse option, COMPLETE_MSG or
    UNLOCK; UNLOCK with anything but NO_SYNCPOINT and NO_WAIT; WAIT with SET_SIGNAL."""
    q = open_q(qm, local_queue, IN | CMQC.MQOO_BROWSE | CMQC.MQOO_OUTPUT)
    for _ in range(3):
        q.put(b"x", pymqi.MD())
    get_msg(q)  # (the handle's later gets may take its plan)
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), pymqi.GMO(Options=options))
    check_reason(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 2
    qm.backout()
    assert depth(qm, local_queue) == 2

# -- browse ------------------------------------------------------------------------------


def test_browse_first_and_next_leave_messages(qm, local_queue):
    """BROWSE_FIRST then BROWSE_NEXT walk the queue in delivery order without removing anything;
    past the end is 2033."""
    q = open_q(qm, local_queue, OUT | CMQC.MQOO_BROWSE)
    q.put(b"low", pymqi.MD(Priority=1))
    q.put(b"high", pymqi.MD(Priority=8))
    q.put(b"mid", pymqi.MD(Priority=5))
    first = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    nxt = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    seen = [q.get(None, pymqi.MD(), first)]
    for _ in range(2):
        seen.append(q.get(None, pymqi.MD(), nxt))
    assert seen == [b"high", b"mid", b"low"]
    with pytest.raises(pymqi.MQMIError) as info:
        q.get(None, pymqi.MD(), nxt)
    check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
    assert depth(qm, local_queue) == 3
    assert q.get(None, pymqi.MD(), first) == b"high"  # BROWSE_FIRST starts again


def test_browse_next_as_first_browse_returns_first_message(qm, local_queue):
    """After MQOPEN the browse cursor is before the first message, so a first BROWSE_NEXT
    returns the first message."""
    q = open_q(qm, local_queue, OUT | CMQC.MQOO_BROWSE)
    q.put(b"one", pymqi.MD())
    q.put(b"two", pymqi.MD())
    nxt = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_NEXT)
    assert q.get(None, pymqi.MD(), nxt) == b"one"
    assert q.get(None, pymqi.MD(), nxt) == b"two"


def test_browse_fills_md(qm, local_queue):
    """A browse returns the message's MD (MsgId, Priority) like a get."""
    q = open_q(qm, local_queue, OUT | CMQC.MQOO_BROWSE)
    put_md = pymqi.MD(Priority=6, CorrelId=ID_C)
    q.put(b"x", put_md)
    md = pymqi.MD()
    q.get(None, md, pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST))
    assert (md.MsgId, md.CorrelId, md.Priority) == (put_md.MsgId, ID_C, 6)


# -- MQPUT1 --------------------------------------------------------------------------------


def test_put1_puts_one_message_and_writes_back_msgid(qm, local_queue):
    """qm.put1 opens, puts and closes: the message is on the queue and the MD has its MsgId."""
    md = pymqi.MD(Priority=3)
    qm.put1(local_queue, b"one-shot", md)
    assert md.MsgId != CMQC.MQMI_NONE
    got = pymqi.MD()
    assert get_msg(open_q(qm, local_queue, IN), got) == b"one-shot"
    assert (got.MsgId, got.Priority) == (md.MsgId, 3)


def test_put1_leaves_no_handle_open(qmgr, qm, local_queue):
    """After MQPUT1 the queue has no open output handle (OPPROCS 0)."""
    qm.put1(local_queue, b"x", pymqi.MD())
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 0


def test_put1_to_unknown_queue_fails_2085(qm, local_queue):
    """MQPUT1 to a queue that is not defined fails MQRC_UNKNOWN_OBJECT_NAME."""
    with pytest.raises(pymqi.MQMIError) as info:
        qm.put1("NO.SUCH.Q", b"x", pymqi.MD())
    check_reason(info, CMQC.MQRC_UNKNOWN_OBJECT_NAME)


def test_put1_with_options(qmgr, qm, local_queue):
    """MQPUT1 honours its PMO: a syncpoint put1 is invisible to another connection until commit."""
    qm.put1(local_queue, b"x", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    other = pymqi.connect(qmgr.name)
    try:
        oq = open_q(other, local_queue, IN)
        with pytest.raises(pymqi.MQMIError) as info:
            oq.get(None, pymqi.MD(), pymqi.GMO())
        check_reason(info, CMQC.MQRC_NO_MSG_AVAILABLE)
        qm.commit()
        assert oq.get(None, pymqi.MD(), pymqi.GMO()) == b"x"
    finally:
        other.disconnect()
