"""Units of work: syncpoint puts and gets, MQCMIT/MQBACK, MAXUMSGS, connection ends, TPF scopes.

Sources: mq-semantics.md §1 (MQCMIT/MQBACK), §2 (2024), §6 (units of work); IBM's MQDISC
usage notes and "Local units of work on Multiplatforms" (ending without MQDISC backs out).
"""

import gc
import itertools
import threading
import time

import pytest
from mq_helpers import depth

import tpfemu.mqi as pymqi
from ecb import Dispatcher, Programs
from tpfemu.mqi import CMQC
from tpfemu.qmgr.manager import QueueManager
from tpfemu.qmgr.units import scopes

OUT = CMQC.MQOO_OUTPUT
IN = CMQC.MQOO_INPUT_AS_Q_DEF
IO = OUT | IN
SYNC_PUT = CMQC.MQPMO_SYNCPOINT
SYNC_GET = CMQC.MQGMO_SYNCPOINT
NO_SYNC_GET = CMQC.MQGMO_NO_SYNCPOINT  # a probe that never joins a TPF scope on this thread
_names = itertools.count(1)


# -- helpers ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_scope_left_open():
    """A failing test must not leave a TPF commit scope open on the test thread."""
    yield
    holder = scopes()
    while holder.tx_depth:
        pymqi.tx_rollback()


@pytest.fixture
def other(qmgr):
    """A second connection to the same queue manager."""
    conn = pymqi.connect(qmgr.name)
    yield conn
    if conn.is_connected:
        conn.disconnect()


def _put(qm, name, data, options=0, md=None):
    q = pymqi.Queue(qm, name, OUT)
    q.put(data, md if md is not None else pymqi.MD(), pymqi.PMO(Options=options))
    q.close()


def _get(qm, name, options=0, md=None):
    """Get one message; the bytes, or None on 2033."""
    q = pymqi.Queue(qm, name, IN)
    try:
        return q.get(None, md if md is not None else pymqi.MD(), pymqi.GMO(Options=options))
    except pymqi.MQMIError as exc:
        if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
            return None
        raise
    finally:
        q.close()



def _check(info, reason, comp=CMQC.MQCC_FAILED):
    """The MQMIError caught by pytest.raises has this completion and reason code."""
    assert (info.value.comp, info.value.reason) == (comp, reason), str(info.value)


def _wait_until(predicate, timeout=2.0):
    """Poll ``predicate`` (collecting garbage) until it is true or ``timeout`` seconds pass."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return False
        gc.collect()
        time.sleep(0.02)


# -- syncpoint puts ------------------------------------------------------------------------


def test_syncpoint_put_invisible_to_other_connection_until_commit(qm, other, local_queue):
    """A put under syncpoint is not available to another connection until MQCMIT."""
    _put(qm, local_queue, b"pending", SYNC_PUT)
    assert _get(other, local_queue) is None
    qm.commit()
    assert _get(other, local_queue) == b"pending"


def test_syncpoint_put_invisible_to_own_connection_until_commit(qm, local_queue):
    """A put under syncpoint is not available even to the putting connection before commit."""
    _put(qm, local_queue, b"pending", SYNC_PUT)
    assert _get(qm, local_queue) is None
    qm.commit()
    assert _get(qm, local_queue) == b"pending"


def test_syncpoint_put_counts_in_curdepth(qm, other, local_queue):
    """An uncommitted put counts in CURDEPTH (MQINQ MQIA_CURRENT_Q_DEPTH) for everyone."""
    _put(qm, local_queue, b"1", SYNC_PUT)
    _put(qm, local_queue, b"2", SYNC_PUT)
    assert depth(other, local_queue) == 2
    qm.commit()
    assert depth(other, local_queue) == 2


def test_syncpoint_put_counts_toward_maxdepth(qmgr, qm, other):
    """Uncommitted puts fill the queue: another connection's put fails 2053 at MAXDEPTH."""
    qmgr.catalog.define("QL", "FULL.Q", maxdepth=1)
    _put(qm, "FULL.Q", b"pending", SYNC_PUT)
    with pytest.raises(pymqi.MQMIError) as info:
        _put(other, "FULL.Q", b"more")
    _check(info, CMQC.MQRC_Q_FULL)
    qm.backout()
    _put(other, "FULL.Q", b"more")
    assert depth(other, "FULL.Q") == 1


def test_backout_deletes_syncpoint_puts(qm, other, local_queue):
    """MQBACK deletes the unit of work's puts: depth 0 and nothing to get."""
    _put(qm, local_queue, b"1", SYNC_PUT)
    _put(qm, local_queue, b"2", SYNC_PUT)
    qm.backout()
    assert depth(other, local_queue) == 0
    assert _get(other, local_queue) is None
    qm.commit()  # nothing left to commit
    assert _get(other, local_queue) is None


def test_commit_makes_only_syncpoint_work_final_and_keeps_order(qm, other, local_queue):
    """After commit the syncpoint puts are got in priority/FIFO order with the non-syncpoint one."""
    _put(qm, local_queue, b"sync-a", SYNC_PUT)
    _put(qm, local_queue, b"plain", CMQC.MQPMO_NO_SYNCPOINT)
    _put(qm, local_queue, b"sync-b", SYNC_PUT)
    assert _get(other, local_queue) == b"plain"
    qm.commit()
    assert [_get(other, local_queue) for _ in range(3)] == [b"sync-a", b"sync-b", None]


def test_syncpoint_expiry_starts_at_put_not_commit(qm, other, local_queue):
    """The expiry interval of a syncpoint put starts at the put, so it can expire before commit."""
    _put(qm, local_queue, b"short-lived", SYNC_PUT, pymqi.MD(Expiry=2))
    time.sleep(0.3)
    qm.commit()
    assert _get(other, local_queue) is None


# -- syncpoint gets ----------------------------------------------------------------------


def test_syncpoint_get_hidden_then_restored_in_place_with_backout_count(qm, other, local_queue):
    """A syncpoint get hides the message; MQBACK restores it in its original place with
    BackoutCount + 1."""
    for data in (b"first", b"second", b"third"):
        _put(qm, local_queue, data)
    assert _get(qm, local_queue, SYNC_GET) == b"first"
    assert depth(other, local_queue) == 3  # still on the queue, hidden
    browse = pymqi.Queue(other, local_queue, CMQC.MQOO_BROWSE)
    assert browse.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)) == b"second"
    browse.close()
    qm.backout()
    md = pymqi.MD()
    assert _get(other, local_queue, md=md) == b"first"
    assert md.BackoutCount == 1
    assert [_get(other, local_queue) for _ in range(3)] == [b"second", b"third", None]


@pytest.mark.parametrize("commit", [False, True], ids=["backout", "commit"])
def test_work_of_a_closed_handle_is_still_the_unit_of_works(qm, other, local_queue, commit):
    """MQCLOSE ends no unit of work (IBM, MQCLOSE: the queue's messages got or put in
    syncpoint stay in it): after the handles closed, MQBACK returns the message got and
    removes the one put, and MQCMIT makes both final."""
    _put(other, local_queue, b"got")
    q = pymqi.Queue(qm, local_queue, IO)
    assert q.get(None, pymqi.MD(), pymqi.GMO(Options=SYNC_GET)) == b"got"
    q.put(b"put", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
    q.close()
    if commit:
        qm.commit()
        assert _get(other, local_queue, NO_SYNC_GET) == b"put"
    else:
        qm.backout()
        md = pymqi.MD()
        assert _get(other, local_queue, NO_SYNC_GET, md) == b"got" and md.BackoutCount == 1
    assert _get(other, local_queue, NO_SYNC_GET) is None


def test_mqcmit_and_mqback_with_nothing_to_do_succeed(qm):
    """MQCMIT and MQBACK with no unit of work open complete with MQCC_OK (IBM lists no
    reason for it); after MQDISC both fail MQRC_HCONN_ERROR (2018)."""
    qm.commit()
    qm.backout()
    qm.disconnect()
    for call in (qm.commit, qm.backout):
        with pytest.raises(pymqi.MQMIError) as info:
            call()
        _check(info, CMQC.MQRC_HCONN_ERROR)

def test_backout_count_grows_with_each_backout(qm, local_queue):
    """Each backout of a syncpoint get adds one to BackoutCount."""
    _put(qm, local_queue, b"poison")
    for expected in (0, 1, 2):
        md = pymqi.MD()
        assert _get(qm, local_queue, SYNC_GET, md) == b"poison"
        assert md.BackoutCount == expected
        qm.backout()
    md = pymqi.MD()
    _get(qm, local_queue, md=md)
    assert md.BackoutCount == 3


def test_syncpoint_get_committed_is_gone(qm, other, local_queue):
    """MQCMIT makes a syncpoint get final: the message leaves the queue."""
    _put(qm, local_queue, b"x")
    assert _get(qm, local_queue, SYNC_GET) == b"x"
    qm.commit()
    assert depth(other, local_queue) == 0
    qm.backout()
    assert _get(other, local_queue) is None


def test_get_without_syncpoint_is_final(qm, local_queue):
    """A get with neither syncpoint option outside a TPF scope is outside any unit of work."""
    _put(qm, local_queue, b"x")
    assert _get(qm, local_queue) == b"x"
    qm.backout()
    assert _get(qm, local_queue) is None


def test_put_without_syncpoint_survives_backout(qm, other, local_queue):
    """A put with neither syncpoint option outside a TPF scope is visible at once and not backed
    out."""
    _put(qm, local_queue, b"x")
    qm.backout()
    assert _get(other, local_queue) == b"x"


@pytest.mark.parametrize("call", ["put", "get"])
def test_syncpoint_and_no_syncpoint_together_fail_2046(qm, local_queue, call):
    """SYNCPOINT together with NO_SYNCPOINT fails MQRC_OPTIONS_ERROR."""
    _put(qm, local_queue, b"x")
    with pytest.raises(pymqi.MQMIError) as info:
        if call == "put":
            _put(qm, local_queue, b"y", CMQC.MQPMO_SYNCPOINT | CMQC.MQPMO_NO_SYNCPOINT)
        else:
            _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_NO_SYNCPOINT)
    _check(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 1


@pytest.mark.parametrize("other_option", [CMQC.MQGMO_SYNCPOINT, CMQC.MQGMO_NO_SYNCPOINT],
                         ids=["SYNCPOINT", "NO_SYNCPOINT"])
def test_syncpoint_if_persistent_with_another_syncpoint_option_fails_2046(qm, local_queue,
                                                                          other_option):
    """MQGMO_SYNCPOINT_IF_PERSISTENT with SYNCPOINT or NO_SYNCPOINT fails MQRC_OPTIONS_ERROR."""
    _put(qm, local_queue, b"x")
    with pytest.raises(pymqi.MQMIError) as info:
        _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT | other_option)
    _check(info, CMQC.MQRC_OPTIONS_ERROR)
    assert depth(qm, local_queue) == 1


def test_syncpoint_if_persistent_gets_persistent_under_syncpoint_only(qm, local_queue):
    """MQGMO_SYNCPOINT_IF_PERSISTENT gets a persistent message under syncpoint and a
    non-persistent one outright."""
    _put(qm, local_queue, b"persistent", md=pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    _put(qm, local_queue, b"transient", md=pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    option = CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT
    assert _get(qm, local_queue, option) == b"persistent"
    assert _get(qm, local_queue, option) == b"transient"
    assert depth(qm, local_queue) == 1  # the persistent one, held by the unit of work
    qm.backout()
    md = pymqi.MD()
    assert _get(qm, local_queue, md=md) == b"persistent"
    assert md.BackoutCount == 1
    assert _get(qm, local_queue) is None


def test_syncpoint_if_persistent_commit_removes_persistent(qm, other, local_queue):
    """A persistent message got with SYNCPOINT_IF_PERSISTENT is removed at commit."""
    _put(qm, local_queue, b"persistent", md=pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"persistent"
    assert _get(other, local_queue) is None
    qm.commit()
    assert depth(other, local_queue) == 0


# -- MAXUMSGS ----------------------------------------------------------------------------


@pytest.fixture
def small_uow_qmgr():
    """A fresh queue manager whose profile allows 3 uncommitted messages, with queue UQ."""
    manager = QueueManager(f"UOWQM{next(_names)}").start()
    manager.catalog.define("MQP", maxumsgs=3)
    manager.catalog.define("QL", "UQ")
    yield manager
    manager.stop()


def test_maxumsgs_limits_syncpoint_puts_2024(small_uow_qmgr):
    """The (MAXUMSGS+1)th message in one unit of work fails MQRC_SYNCPOINT_LIMIT_REACHED."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        for i in range(3):
            _put(conn, "UQ", b"%d" % i, SYNC_PUT)
        with pytest.raises(pymqi.MQMIError) as info:
            _put(conn, "UQ", b"4", SYNC_PUT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        assert depth(conn, "UQ") == 3
        _put(conn, "UQ", b"outside", CMQC.MQPMO_NO_SYNCPOINT)  # not in the unit of work
        conn.commit()
        _put(conn, "UQ", b"after-commit", SYNC_PUT)  # a new unit of work
        conn.commit()
        assert depth(conn, "UQ") == 5
    finally:
        conn.disconnect()


def test_maxumsgs_counts_syncpoint_put1s_2024(small_uow_qmgr):
    """MQPUT1 in syncpoint counts like MQPUT: the fourth fails 2024, puts nothing and
    leaves no handle open; the three before it are committed."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        for i in range(3):
            conn.put1("UQ", b"%d" % i, pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
        with pytest.raises(pymqi.MQMIError) as info:
            conn.put1("UQ", b"4", pymqi.MD(), pymqi.PMO(Options=SYNC_PUT))
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        assert small_uow_qmgr.queues["UQ"].output_count == 0
        conn.commit()
        assert depth(conn, "UQ") == 3
    finally:
        conn.disconnect()

def test_maxumsgs_counts_syncpoint_gets_2024(small_uow_qmgr):
    """Syncpoint gets count toward MAXUMSGS: after three, a syncpoint put fails 2024."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        for i in range(4):
            _put(conn, "UQ", b"%d" % i)
        for i in range(3):
            assert _get(conn, "UQ", SYNC_GET) == b"%d" % i
        with pytest.raises(pymqi.MQMIError) as info:
            _put(conn, "UQ", b"p", SYNC_PUT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        conn.backout()
        assert depth(conn, "UQ") == 4
    finally:
        conn.disconnect()


def test_maxumsgs_limits_syncpoint_gets_2024(small_uow_qmgr):
    """A syncpoint get that would exceed MAXUMSGS fails 2024 and leaves the message available."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        _put(conn, "UQ", b"waiting")
        for i in range(3):
            _put(conn, "UQ", b"%d" % i, SYNC_PUT)
        with pytest.raises(pymqi.MQMIError) as info:
            _get(conn, "UQ", SYNC_GET)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        conn.backout()
        assert _get(conn, "UQ", CMQC.MQGMO_NO_SYNCPOINT) == b"waiting"
    finally:
        conn.disconnect()



def test_maxumsgs_counts_the_coa_report_of_a_syncpoint_put_2024(small_uow_qmgr):
    """A COA report made for a syncpoint put counts toward MAXUMSGS (IBM,
    MQRC_SYNCPOINT_LIMIT_REACHED): a put whose message and report would take the unit of
    work past the limit fails 2024 and leaves nothing behind, neither the message nor its
    report nor a dead letter; the same put fits when there is room for both."""
    small_uow_qmgr.catalog.define("QL", "REPLY.Q")
    conn = pymqi.connect(small_uow_qmgr.name)
    coa = dict(Report=CMQC.MQRO_COA, ReplyToQ=b"REPLY.Q")
    try:
        _put(conn, "UQ", b"1", SYNC_PUT)
        _put(conn, "UQ", b"2", SYNC_PUT)
        with pytest.raises(pymqi.MQMIError) as info:
            _put(conn, "UQ", b"coa", SYNC_PUT, pymqi.MD(**coa))
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        assert [depth(conn, q) for q in ("UQ", "REPLY.Q", "DEAD.LETTER.QUEUE")] == [2, 0, 0]
        conn.backout()
        _put(conn, "UQ", b"1", SYNC_PUT)
        _put(conn, "UQ", b"coa", SYNC_PUT, pymqi.MD(**coa))  # 3: the message and its COA
        conn.commit()
        assert [depth(conn, q) for q in ("UQ", "REPLY.Q", "DEAD.LETTER.QUEUE")] == [2, 1, 0]
    finally:
        conn.disconnect()


def test_cod_report_of_a_syncpoint_get_stays_in_the_unit_of_work_at_the_limit(small_uow_qmgr):
    """The COD report of a syncpoint get that takes the last place under MAXUMSGS is made
    in the unit of work all the same (it is never dead-lettered outside it): a backout
    removes it and restores the message, and the unit of work, over its limit, takes no
    more syncpoint work (docs/deviations.md, "MAXUMSGS and the messages a call makes")."""
    small_uow_qmgr.catalog.define("QL", "REPLY.Q")
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        _put(conn, "UQ", b"cod", md=pymqi.MD(Report=CMQC.MQRO_COD, ReplyToQ=b"REPLY.Q"))
        _put(conn, "UQ", b"1", SYNC_PUT)
        _put(conn, "UQ", b"2", SYNC_PUT)
        assert _get(conn, "UQ", SYNC_GET) == b"cod"
        assert [depth(conn, q) for q in ("REPLY.Q", "DEAD.LETTER.QUEUE")] == [1, 0]
        with pytest.raises(pymqi.MQMIError) as info:
            _put(conn, "UQ", b"3", SYNC_PUT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        conn.backout()
        assert [depth(conn, q) for q in ("UQ", "REPLY.Q", "DEAD.LETTER.QUEUE")] == [1, 0, 0]
        md = pymqi.MD()
        assert _get(conn, "UQ", NO_SYNC_GET, md) == b"cod" and md.BackoutCount == 1
    finally:
        conn.disconnect()


def test_maxumsgs_counts_persistent_gets_of_syncpoint_if_persistent_2024(small_uow_qmgr):
    """A persistent message got with MQGMO_SYNCPOINT_IF_PERSISTENT is got in syncpoint and
    counts toward MAXUMSGS: with three held, the next such get fails 2024 and leaves the
    message available, and so does a syncpoint put; a backout restores all three."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        for i in range(4):
            _put(conn, "UQ", b"%d" % i, md=pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
        for i in range(3):
            assert _get(conn, "UQ", CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"%d" % i
        with pytest.raises(pymqi.MQMIError) as info:
            _get(conn, "UQ", CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        with pytest.raises(pymqi.MQMIError) as info:
            _put(conn, "UQ", b"p", SYNC_PUT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        conn.backout()
        assert [_get(conn, "UQ", NO_SYNC_GET) for _ in range(4)] == [b"0", b"1", b"2", b"3"]
    finally:
        conn.disconnect()


def test_syncpoint_if_persistent_at_the_limit_fails_whatever_it_would_get(small_uow_qmgr):
    """A unit of work holding MAXUMSGS messages refuses an MQGMO_SYNCPOINT_IF_PERSISTENT
    get with 2024 before it looks at the queue, even when the message it would get is
    non-persistent (docs/deviations.md); MQGMO_NO_SYNCPOINT gets it."""
    conn = pymqi.connect(small_uow_qmgr.name)
    try:
        _put(conn, "UQ", b"np", md=pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
        for i in range(3):
            _put(conn, "UQ", b"%d" % i, SYNC_PUT)
        with pytest.raises(pymqi.MQMIError) as info:
            _get(conn, "UQ", CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT)
        _check(info, CMQC.MQRC_SYNCPOINT_LIMIT_REACHED)
        assert _get(conn, "UQ", NO_SYNC_GET) == b"np"
        conn.backout()
    finally:
        conn.disconnect()

# -- ends of connections -----------------------------------------------------------------


def test_mqdisc_commits_open_work(qm, qmgr, local_queue):
    """MQDISC commits the connection's open unit of work (IBM's rule for a normal disconnect)."""
    conn = pymqi.connect(qmgr.name)
    _put(conn, local_queue, b"put-then-disc", SYNC_PUT)
    _put(qm, local_queue, b"to-get")
    assert _get(conn, local_queue, SYNC_GET) == b"to-get"
    conn.disconnect()
    assert _get(qm, local_queue) == b"put-then-disc"
    assert _get(qm, local_queue) is None  # the syncpoint get was committed too


def test_mqdisc_commits_gets_of_syncpoint_if_persistent(qm, other, local_queue):
    """A unit of work that holds nothing but a persistent message got with
    MQGMO_SYNCPOINT_IF_PERSISTENT is committed by MQDISC too: the message is gone, not
    left hidden on the queue (CURDEPTH 0, nothing to get)."""
    _put(other, local_queue, b"p", md=pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    assert _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"p"
    qm.disconnect()
    assert depth(other, local_queue) == 0
    assert _get(other, local_queue, NO_SYNC_GET) is None

def test_thread_ending_without_commit_backs_out(qm, qmgr, local_queue):
    """A thread that connects, puts under syncpoint and ends without MQCMIT/MQDISC has its work
    backed out (IBM: ending without MQDISC backs out)."""
    _put(qm, local_queue, b"to-get")
    errors = []

    def worker():
        try:
            conn = pymqi.connect(qmgr.name)
            _put(conn, local_queue, b"uncommitted", SYNC_PUT)
            assert _get(conn, local_queue, SYNC_GET) == b"to-get"
        except BaseException as exc:  # reported by the test below
            errors.append(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join(5)
    assert not t.is_alive() and not errors
    # The backout happens when the thread's connection is finalised: wait for it, bounded.
    assert _wait_until(lambda: depth(qm, local_queue) == 1)
    assert _get(qm, local_queue) == b"to-get"
    assert _get(qm, local_queue) is None


def test_thread_ending_with_connection_still_referenced_backs_out(qm, qmgr, local_queue):
    """A thread that ends while its connection object is still referenced elsewhere also has its
    work backed out."""
    keep = []

    def worker():
        conn = pymqi.connect(qmgr.name)
        keep.append(conn)
        _put(conn, local_queue, b"uncommitted", SYNC_PUT)

    t = threading.Thread(target=worker)
    t.start()
    t.join(5)
    assert not t.is_alive()
    assert _wait_until(lambda: depth(qm, local_queue) == 0)
    assert _get(qm, local_queue) is None


def test_ecb_entry_exiting_without_commit_backs_out(qm, qmgr, local_queue):
    """An entry run by the ECB dispatcher that puts under syncpoint and exits has its work backed
    out."""
    ran = threading.Event()
    errors = []

    def qmp1(ecb):
        try:
            conn = pymqi.connect(qmgr.name)
            _put(conn, local_queue, b"entry-work", SYNC_PUT)
            ran.set()
        except Exception as exc:  # reported by the test below
            errors.append(exc)

    programs = Programs()
    programs.load("QMP1", qmp1)
    disp = Dispatcher(programs, istreams=1, console=lambda line: None).start()
    try:
        disp.cremc("QMP1")
        assert disp.wait_idle(5)
    finally:
        disp.stop(timeout=5)
    assert ran.is_set() and not errors
    assert _wait_until(lambda: depth(qm, local_queue) == 0)
    assert _get(qm, local_queue) is None


def test_ecb_entry_with_connection_still_referenced_backs_out(qm, qmgr, local_queue):
    """An entry that ends while its connection object is still referenced elsewhere has its
    work backed out."""
    keep = []

    def qmp3(ecb):
        conn = pymqi.connect(qmgr.name)
        keep.append(conn)
        _put(conn, local_queue, b"entry-work", SYNC_PUT)

    programs = Programs()
    programs.load("QMP3", qmp3)
    disp = Dispatcher(programs, istreams=1, console=lambda line: None).start()
    try:
        disp.cremc("QMP3")
        assert disp.wait_idle(5)
    finally:
        disp.stop(timeout=5)
    assert len(keep) == 1
    assert _wait_until(lambda: depth(qm, local_queue) == 0)


def test_ecb_entry_exitc_without_commit_backs_out(qm, qmgr, local_queue):
    """An entry that puts under syncpoint and issues EXITC has its work backed out."""
    errors = []

    def qmp2(ecb):
        try:
            conn = pymqi.connect(qmgr.name)
            _put(conn, local_queue, b"entry-work", SYNC_PUT)
        except Exception as exc:  # reported by the test below
            errors.append(exc)
        ecb.exitc()

    programs = Programs()
    programs.load("QMP2", qmp2)
    disp = Dispatcher(programs, istreams=1, console=lambda line: None).start()
    try:
        disp.cremc("QMP2")
        assert disp.wait_idle(5)
    finally:
        disp.stop(timeout=5)
    assert not errors
    assert _wait_until(lambda: depth(qm, local_queue) == 0)


# -- TPF commit scopes ---------------------------------------------------------------------


def test_scope_joins_work_without_syncpoint_options(qm, other, local_queue):
    """Inside tx_begin, a put with neither SYNCPOINT nor NO_SYNCPOINT joins the scope: invisible
    until tx_commit."""
    _put(other, local_queue, b"to-get")
    pymqi.tx_begin()
    _put(qm, local_queue, b"scoped")
    assert _get(qm, local_queue) == b"to-get"  # a scoped get: hidden, not yet final
    assert depth(other, local_queue) == 2
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_commit()
    assert _get(other, local_queue) == b"scoped"
    assert _get(other, local_queue) is None


def test_scope_rollback_backs_out_scoped_work(qm, other, local_queue):
    """tx_rollback backs out the scope's puts and restores its gets."""
    _put(other, local_queue, b"to-get")
    pymqi.tx_begin()
    _put(qm, local_queue, b"scoped")
    assert _get(qm, local_queue) == b"to-get"
    pymqi.tx_rollback()
    md = pymqi.MD()
    assert _get(other, local_queue, md=md) == b"to-get"
    assert md.BackoutCount == 1
    assert _get(other, local_queue) is None


def test_syncpoint_if_persistent_inside_scope_joins_it_for_persistent_only(qm, other,
                                                                          local_queue):
    """Inside a scope, MQGMO_SYNCPOINT_IF_PERSISTENT gets a persistent message in the
    scope (tx_rollback restores it) and a non-persistent one outside it (final at once),
    as IBM's option says whatever the environment's default."""
    _put(other, local_queue, b"persistent", md=pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT))
    _put(other, local_queue, b"plain", md=pymqi.MD(Persistence=CMQC.MQPER_NOT_PERSISTENT))
    pymqi.tx_begin()
    assert _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"persistent"
    assert _get(qm, local_queue, CMQC.MQGMO_SYNCPOINT_IF_PERSISTENT) == b"plain"
    pymqi.tx_rollback()
    md = pymqi.MD()
    assert _get(other, local_queue, md=md) == b"persistent" and md.BackoutCount == 1
    assert _get(other, local_queue) is None

def test_no_syncpoint_inside_scope_is_outside_the_scope(qm, other, local_queue):
    """Inside a scope, MQPMO/MQGMO_NO_SYNCPOINT work is final at once and survives tx_rollback."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"outside", CMQC.MQPMO_NO_SYNCPOINT)
    _put(other, local_queue, b"got-outside")
    pymqi.tx_rollback()
    assert depth(other, local_queue) == 1  # the scoped put of "got-outside" was backed out
    pymqi.tx_begin()
    assert _get(qm, local_queue, CMQC.MQGMO_NO_SYNCPOINT) == b"outside"
    pymqi.tx_rollback()
    assert depth(other, local_queue) == 0


def test_nested_inner_commit_then_outer_rollback_backs_out_everything(qm, other, local_queue):
    """An inner tx_commit hands its work to the outer scope: the outer tx_rollback backs it all
    out."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"outer")
    pymqi.tx_begin()
    _put(qm, local_queue, b"inner")
    pymqi.tx_commit()
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_rollback()
    assert depth(other, local_queue) == 0
    assert _get(other, local_queue) is None


def test_nested_inner_rollback_backs_out_only_inner_work(qm, other, local_queue):
    """tx_rollback of an inner scope backs out only the inner work; the outer commit keeps the
    rest."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"outer")
    pymqi.tx_begin()
    _put(qm, local_queue, b"inner")
    pymqi.tx_rollback()
    assert depth(other, local_queue) == 1
    pymqi.tx_commit()
    assert _get(other, local_queue) == b"outer"
    assert _get(other, local_queue) is None


def test_nested_nothing_visible_until_outermost_commit(qm, other, local_queue):
    """Work in nested scopes stays invisible after the inner commits and appears only at the
    outermost commit."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"level-1")
    pymqi.tx_begin()
    _put(qm, local_queue, b"level-2")
    pymqi.tx_begin()
    _put(qm, local_queue, b"level-3")
    pymqi.tx_commit()
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_commit()
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_commit()
    got = [_get(other, local_queue) for _ in range(4)]
    assert got == [b"level-1", b"level-2", b"level-3", None]


def test_explicit_syncpoint_inside_scope_joins_the_scope(qm, other, local_queue):
    """Inside a scope, MQPMO_SYNCPOINT work belongs to the scope: tx_commit makes it visible."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"x", SYNC_PUT)
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_commit()
    assert _get(other, local_queue) == b"x"


@pytest.mark.parametrize("call", ["commit", "backout"])
def test_mqcmit_and_mqback_inside_scope_fail_2012(qm, other, local_queue, call):
    """MQCMIT or MQBACK inside a TPF commit scope fails MQRC_ENVIRONMENT_ERROR and leaves the
    scope's work pending."""
    pymqi.tx_begin()
    _put(qm, local_queue, b"scoped")
    with pytest.raises(pymqi.MQMIError) as info:
        getattr(qm, call)()
    _check(info, CMQC.MQRC_ENVIRONMENT_ERROR)
    assert _get(other, local_queue, NO_SYNC_GET) is None
    pymqi.tx_commit()
    assert _get(other, local_queue) == b"scoped"
