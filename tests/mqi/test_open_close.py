"""MQCONN/MQOPEN/MQCLOSE/MQDISC through the pymqi facade: options, sharing, counts, handles.

IBM references (mq-semantics.md §1-§2): MQOPEN needs at least one access option and at most
one MQOO_INPUT_* (2046, "Rules for validating MQI options"); INPUT_EXCLUSIVE fails 2042 while
the queue is open for input of any kind, INPUT_SHARED fails 2042 while it is open exclusive;
2085 unknown object, 2082 unknown alias base, 2045 input/browse on a remote queue or
MQCO_DELETE on a queue that is not dynamic; IPPROCS/OPPROCS are MQIA_OPEN_INPUT_COUNT and
MQIA_OPEN_OUTPUT_COUNT; 2019 a handle that is not open, 2018 a connection that is not.
pymqi (dsuch/pymqi code/pymqi/__init__.py): lazy open (put -> MQOO_OUTPUT, get ->
MQOO_INPUT_AS_Q_DEF), Queue.close() on a closed queue raises PYIFError('not open').
"""

from __future__ import annotations

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.errors import DefinitionError
from tpfemu.mqi import CMQC
from tpfemu.qmgr import mqget, mqput, registry
from tpfemu.qmgr.manager import QueueManager

IN_SHARED = CMQC.MQOO_INPUT_SHARED
IN_EXCL = CMQC.MQOO_INPUT_EXCLUSIVE
IN_DEF = CMQC.MQOO_INPUT_AS_Q_DEF




def counts(qm, name: str = "APP.Q") -> tuple[int, int]:
    """(IPPROCS, OPPROCS) of a local queue, by MQINQ on a handle opened for INQUIRE only."""
    q = pymqi.Queue(qm, name, CMQC.MQOO_INQUIRE)
    try:
        return (q.inquire(CMQC.MQIA_OPEN_INPUT_COUNT), q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT))
    finally:
        q.close()


@pytest.fixture
def remote(qmgr, local_queue):
    """A transmission queue OTHERQM and a remote queue definition RQ -> TARGET at OTHERQM."""
    qmgr.catalog.define("QL", "OTHERQM", usage="XMITQ")
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    return "RQ"


# -- MQOPEN options -------------------------------------------------------------------------


def test_open_without_access_option_fails_options_error(qm, local_queue):
    """MQOPEN with no access option (only FAIL_IF_QUIESCING) fails MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        pymqi.Queue(qm, local_queue, CMQC.MQOO_FAIL_IF_QUIESCING)


def test_open_with_zero_options_fails_options_error(qm, local_queue):
    """MQOPEN with Options 0 has no access option and fails MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        pymqi.Queue(qm, local_queue, 0)


@pytest.mark.parametrize("options", [IN_SHARED | IN_EXCL, IN_DEF | IN_SHARED, IN_DEF | IN_EXCL,
                                     IN_DEF | IN_SHARED | IN_EXCL])
def test_open_with_two_input_options_fails_options_error(qm, local_queue, options):
    """MQOPEN naming more than one MQOO_INPUT_* option fails MQRC_OPTIONS_ERROR."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        pymqi.Queue(qm, local_queue, options | CMQC.MQOO_OUTPUT)


@pytest.mark.parametrize("options", [
    CMQC.MQOO_OUTPUT | 0x01000000,  # a bit cmqc.h does not define
    CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_BIND_NOT_FIXED,
    CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_NOT_FIXED | CMQC.MQOO_BIND_ON_GROUP,
    IN_SHARED | CMQC.MQOO_READ_AHEAD | CMQC.MQOO_NO_READ_AHEAD,
    IN_SHARED | CMQC.MQOO_SET_ALL_CONTEXT,  # context options need MQOO_OUTPUT
    IN_SHARED | CMQC.MQOO_PASS_IDENTITY_CONTEXT,
    CMQC.MQOO_INQUIRE | CMQC.MQOO_SET_IDENTITY_CONTEXT,
    CMQC.MQOO_OUTPUT | CMQC.MQOO_SAVE_ALL_CONTEXT,  # SAVE_ALL_CONTEXT needs an input option
    CMQC.MQOO_OUTPUT | CMQC.MQOO_CO_OP,  # CO_OP needs MQOO_BROWSE
    IN_SHARED | CMQC.MQOO_NO_MULTICAST,  # NO_MULTICAST needs MQOO_OUTPUT
])
def test_open_options_ibm_refuses_fail_options_error(qmgr, qm, local_queue, options):
    """IBM's "Rules for validating MQI options" (MQOPEN): only defined options, one bind
    option, one read-ahead option, the SET_*/PASS_* context options only with MQOO_OUTPUT,
    SAVE_ALL_CONTEXT only with an input option, CO_OP only with BROWSE, NO_MULTICAST only
    with OUTPUT; anything else fails MQRC_OPTIONS_ERROR and opens nothing."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        pymqi.Queue(qm, local_queue, options)
    assert counts(qm) == (0, 0)
    assert qmgr.local_queue(local_queue).other_count == 0


@pytest.mark.parametrize("options", [
    CMQC.MQOO_OUTPUT | CMQC.MQOO_SET_ALL_CONTEXT | CMQC.MQOO_PASS_ALL_CONTEXT,
    IN_SHARED | CMQC.MQOO_SAVE_ALL_CONTEXT | CMQC.MQOO_BROWSE | CMQC.MQOO_CO_OP,
    CMQC.MQOO_OUTPUT | CMQC.MQOO_BIND_ON_OPEN | CMQC.MQOO_NO_READ_AHEAD,
    CMQC.MQOO_BIND_NOT_FIXED,  # a bind option alone is enough (IBM counts it)
])
def test_open_options_ibm_allows_open(qm, local_queue, options):
    """The combinations the same rules allow open the queue."""
    pymqi.Queue(qm, local_queue, options).close()


@pytest.mark.parametrize("options", [CMQC.MQOO_BROWSE, IN_DEF, IN_SHARED, IN_EXCL,
                                     CMQC.MQOO_INQUIRE, CMQC.MQOO_OUTPUT, CMQC.MQOO_SET])
def test_open_with_one_access_option_succeeds(qm, local_queue, options):
    """Each access option alone is enough for MQOPEN of a local queue."""
    q = pymqi.Queue(qm, local_queue, options)
    assert q.get_handle() is not None
    q.close()


def test_failed_open_leaves_counts_unchanged(qm, local_queue):
    """An MQOPEN refused for its options does not count as an opener."""
    with raises_mq(CMQC.MQRC_OPTIONS_ERROR):
        pymqi.Queue(qm, local_queue, IN_SHARED | IN_EXCL | CMQC.MQOO_OUTPUT)
    assert counts(qm) == (0, 0)


# -- shared / exclusive input -----------------------------------------------------------------


@pytest.mark.parametrize("first", [IN_SHARED, IN_EXCL, IN_DEF])
def test_input_exclusive_fails_while_open_for_input(qm, local_queue, first):
    """INPUT_EXCLUSIVE fails MQRC_OBJECT_IN_USE while the queue is open for input of any kind."""
    held = pymqi.Queue(qm, local_queue, first)
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        pymqi.Queue(qm, local_queue, IN_EXCL)
    held.close()


@pytest.mark.parametrize("second", [IN_SHARED, IN_DEF])
def test_shared_input_fails_while_open_exclusive(qm, local_queue, second):
    """INPUT_SHARED (and AS_Q_DEF, shared by default) fail MQRC_OBJECT_IN_USE while exclusive."""
    held = pymqi.Queue(qm, local_queue, IN_EXCL)
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        pymqi.Queue(qm, local_queue, second)
    held.close()


def test_exclusive_conflict_applies_across_connections(qmgr, qm, local_queue):
    """Another connection is refused input while this one holds the queue exclusively."""
    held = pymqi.Queue(qm, local_queue, IN_EXCL)
    other = pymqi.connect(qmgr.name)
    try:
        with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
            pymqi.Queue(other, local_queue, IN_SHARED)
    finally:
        other.disconnect()
        held.close()


def test_exclusive_input_allows_browse_and_output_openers(qm, local_queue):
    """An exclusive input handle does not stop others opening for browse, output or inquire."""
    held = pymqi.Queue(qm, local_queue, IN_EXCL)
    for options in (CMQC.MQOO_BROWSE, CMQC.MQOO_OUTPUT, CMQC.MQOO_INQUIRE):
        pymqi.Queue(qm, local_queue, options).close()
    held.close()


def test_closing_exclusive_handle_allows_shared_input(qm, local_queue):
    """After the exclusive handle is closed, shared input opens succeed again."""
    pymqi.Queue(qm, local_queue, IN_EXCL).close()
    a = pymqi.Queue(qm, local_queue, IN_SHARED)
    b = pymqi.Queue(qm, local_queue, IN_SHARED)
    assert counts(qm) == (2, 0)
    a.close()
    b.close()


def test_closing_all_shared_handles_allows_exclusive_input(qm, local_queue):
    """INPUT_EXCLUSIVE succeeds once every shared input handle is closed, not before."""
    a = pymqi.Queue(qm, local_queue, IN_SHARED)
    b = pymqi.Queue(qm, local_queue, IN_SHARED)
    a.close()
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        pymqi.Queue(qm, local_queue, IN_EXCL)
    b.close()
    pymqi.Queue(qm, local_queue, IN_EXCL).close()


def test_exclusive_via_alias_conflicts_with_shared_on_base(qmgr, qm, local_queue):
    """Input opens through an alias count on the base queue for the exclusive rule."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    held = pymqi.Queue(qm, "AQ", IN_EXCL)
    with raises_mq(CMQC.MQRC_OBJECT_IN_USE):
        pymqi.Queue(qm, local_queue, IN_SHARED)
    held.close()


# -- objects that cannot be opened ---------------------------------------------------------


def test_open_unknown_queue_fails_unknown_object_name(qm, local_queue):
    """MQOPEN of a name no queue has fails MQRC_UNKNOWN_OBJECT_NAME (2085)."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        pymqi.Queue(qm, "NO.SUCH.Q", CMQC.MQOO_OUTPUT)


def test_open_blank_name_fails_unknown_object_name(qm, local_queue):
    """MQOPEN with a blank ObjectName for a queue fails MQRC_UNKNOWN_OBJECT_NAME."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        pymqi.Queue(qm, pymqi.OD(), CMQC.MQOO_OUTPUT)


def test_open_alias_with_missing_base_fails_unknown_alias_base(qmgr, qm):
    """MQOPEN of an alias whose TARGQ does not exist fails MQRC_UNKNOWN_ALIAS_BASE_Q (2082)."""
    qmgr.catalog.define("QA", "AQ", targq="MISSING.Q")
    for options in (CMQC.MQOO_OUTPUT, IN_SHARED):
        with raises_mq(CMQC.MQRC_UNKNOWN_ALIAS_BASE_Q):
            pymqi.Queue(qm, "AQ", options)


@pytest.mark.parametrize("options", [IN_DEF, IN_SHARED, IN_EXCL, CMQC.MQOO_BROWSE,
                                     CMQC.MQOO_OUTPUT | IN_SHARED])
def test_input_or_browse_on_remote_queue_fails_option_not_valid(qm, remote, options):
    """Input or browse on a remote queue definition fails MQRC_OPTION_NOT_VALID_FOR_TYPE."""
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        pymqi.Queue(qm, remote, options)


def test_output_on_remote_queue_opens(qm, remote):
    """A remote queue definition opens for output (its messages go to the xmitq)."""
    pymqi.Queue(qm, remote, CMQC.MQOO_OUTPUT).close()


def test_open_channel_object_type_fails_object_type_error(qm, local_queue):
    """MQOPEN of an object type that cannot be opened (a channel) fails MQRC_OBJECT_TYPE_ERROR."""
    od = pymqi.OD(ObjectName=b"SOME.CHL", ObjectType=CMQC.MQOT_CHANNEL)
    with raises_mq(CMQC.MQRC_OBJECT_TYPE_ERROR):
        pymqi.Queue(qm, od, CMQC.MQOO_INQUIRE)


# -- IPPROCS / OPPROCS ----------------------------------------------------------------------


def test_open_counts_follow_opens_and_closes(qm, local_queue):
    """MQIA_OPEN_INPUT_COUNT/OUTPUT_COUNT rise with each input/output opener and fall on close."""
    probe = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)

    def now():
        return (probe.inquire(CMQC.MQIA_OPEN_INPUT_COUNT),
                probe.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT))

    assert now() == (0, 0)
    a = pymqi.Queue(qm, local_queue, IN_SHARED)
    assert now() == (1, 0)
    b = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    assert now() == (1, 1)
    c = pymqi.Queue(qm, local_queue, IN_DEF | CMQC.MQOO_OUTPUT)
    assert now() == (2, 2)
    d = pymqi.Queue(qm, local_queue, CMQC.MQOO_BROWSE | CMQC.MQOO_SET)
    assert now() == (2, 2)  # browse is not input
    a.close()
    assert now() == (1, 2)
    c.close()
    assert now() == (0, 1)
    b.close()
    d.close()
    assert now() == (0, 0)
    probe.close()


def test_open_through_alias_counts_on_base_queue(qmgr, qm, local_queue):
    """Opening an alias for input and output counts in the base queue's IPPROCS/OPPROCS."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    q = pymqi.Queue(qm, "AQ", IN_SHARED | CMQC.MQOO_OUTPUT)
    assert counts(qm) == (1, 1)
    q.close()
    assert counts(qm) == (0, 0)


def test_disconnect_releases_open_counts(qmgr, qm, local_queue):
    """MQDISC closes the connection's handles: their opens no longer count."""
    other = pymqi.connect(qmgr.name)
    held = [pymqi.Queue(other, local_queue, IN_EXCL),
            pymqi.Queue(other, local_queue, CMQC.MQOO_OUTPUT)]  # referenced: not collected
    assert counts(qm) == (1, 1)
    other.disconnect()
    assert counts(qm) == (0, 0)
    pymqi.Queue(qm, local_queue, IN_EXCL).close()  # the exclusive hold went with it
    assert all(q.get_handle().closed for q in held)


def test_lazy_get_opens_for_input_as_q_def(qm, local_queue):
    """Queue(qm, name).get() opens with MQOO_INPUT_AS_Q_DEF first (IPPROCS becomes 1)."""
    q = pymqi.Queue(qm, local_queue)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get()
    assert counts(qm) == (1, 0)
    q.close()


# -- handles and connections that are no longer valid -------------------------------------


@pytest.fixture
def closed_handle(qm, local_queue):
    """A handle opened for every use, then closed (kept by the test to misuse)."""
    q = pymqi.Queue(qm, local_queue, IN_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
                    | CMQC.MQOO_SET)
    handle = q.get_handle()
    q.close()
    assert handle.closed
    return handle


@pytest.mark.parametrize("call", ["put", "get", "inquire", "set", "close"])
def test_closed_handle_fails_hobj_error(qm, closed_handle, call):
    """Every MQI call with a handle already closed fails MQRC_HOBJ_ERROR (2019)."""
    conn = qm.connection
    actions = {
        "put": lambda: mqput.put(conn, closed_handle, b"x"),
        "get": lambda: mqget.get(conn, closed_handle),
        "inquire": lambda: conn.inquire(closed_handle, CMQC.MQIA_CURRENT_Q_DEPTH),
        "set": lambda: conn.set(closed_handle, CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
        "close": lambda: conn.close(closed_handle),
    }
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        actions[call]()


def test_closed_handle_fails_hobj_error_after_fast_put(qm, local_queue):
    """A handle used for plain puts fails MQRC_HOBJ_ERROR once closed (no cached shortcut)."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    handle = q.get_handle()
    q.put(b"one")
    q.put(b"two")
    q.close()
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        mqput.put(qm.connection, handle, b"three")
    assert counts(qm) == (0, 0)


def test_closed_handle_fails_hobj_error_after_fast_get(qm, local_queue):
    """A handle used for plain gets fails MQRC_HOBJ_ERROR once closed (no cached shortcut)."""
    pymqi.Queue(qm, local_queue).put(b"one")
    pymqi.Queue(qm, local_queue).put(b"two")
    q = pymqi.Queue(qm, local_queue, IN_SHARED)
    handle = q.get_handle()
    assert q.get() == b"one"
    q.close()
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        mqget.get(qm.connection, handle)


def test_handle_of_another_connection_fails_hobj_error(qmgr, qm, local_queue):
    """A handle opened on one connection is not valid on another: MQRC_HOBJ_ERROR."""
    other = pymqi.connect(qmgr.name)
    q = pymqi.Queue(other, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    mine = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE)  # same hobj number on qm
    try:
        with raises_mq(CMQC.MQRC_HOBJ_ERROR):
            mqput.put(qm.connection, q.get_handle(), b"x")
        with raises_mq(CMQC.MQRC_HOBJ_ERROR):
            qm.connection.inquire(q.get_handle(), CMQC.MQIA_CURRENT_Q_DEPTH)
    finally:
        mine.close()
        other.disconnect()


@pytest.mark.parametrize("call", ["put", "get", "inquire", "set", "close", "open", "put1",
                                  "commit", "backout", "qm_inquire", "disconnect"])
def test_calls_after_disconnect_fail_hconn_error(qm, local_queue, call):
    """After MQDISC every MQI call on the connection fails MQRC_HCONN_ERROR (2018)."""
    q = pymqi.Queue(qm, local_queue, IN_SHARED | CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE
                    | CMQC.MQOO_SET)
    q.put(b"before")  # the handle has been used, so any cached shortcut exists
    assert q.get() == b"before"
    qm.disconnect()
    assert not qm.is_connected
    actions = {
        "put": lambda: q.put(b"x"),
        "get": lambda: q.get(),
        "inquire": lambda: q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH),
        "set": lambda: q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
        "close": lambda: qm.connection.close(q.get_handle()),
        "open": lambda: pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT),
        "put1": lambda: qm.put1(local_queue, b"x"),
        "commit": qm.commit,
        "backout": qm.backout,
        "qm_inquire": lambda: qm.inquire(CMQC.MQCA_Q_MGR_NAME),
        "disconnect": qm.disconnect,
    }
    with raises_mq(CMQC.MQRC_HCONN_ERROR):
        actions[call]()


def test_put_after_disconnect_leaves_queue_empty(qmgr, qm, local_queue):
    """A put refused after MQDISC does not reach the queue."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    q.put(b"kept")
    qm.disconnect()
    with raises_mq(CMQC.MQRC_HCONN_ERROR):
        q.put(b"lost")
    again = pymqi.connect(qmgr.name)
    try:
        assert counts(again) == (0, 0)
        r = pymqi.Queue(again, local_queue, IN_SHARED | CMQC.MQOO_INQUIRE)
        assert r.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
        assert r.get() == b"kept"
    finally:
        again.disconnect()


# -- MQCONN ---------------------------------------------------------------------------------


def test_connect_unknown_qmgr_fails_name_error_naming_running(qmgr):
    """MQCONN to a name no queue manager has fails 2058, and the message names those running."""
    with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR) as info:
        pymqi.connect("NO.SUCH.QMGR")
    assert qmgr.name in str(info.value)


def test_connect_blank_name_connects_to_only_running(qmgr, local_queue):
    """pymqi.connect("") connects to the one queue manager running in the process."""
    assert registry.running() == [qmgr.name]  # precondition: only ours runs
    conn = pymqi.connect("")
    try:
        assert conn.is_connected
        assert conn.inquire(CMQC.MQCA_Q_MGR_NAME).rstrip() == qmgr.name.encode()
        conn.put1(local_queue, b"via blank name")
        assert pymqi.Queue(conn, local_queue).get() == b"via blank name"
    finally:
        conn.disconnect()


def test_connect_blank_name_with_two_running_fails_name_error(qmgr):
    """With two queue managers running a blank name is ambiguous: MQRC_Q_MGR_NAME_ERROR."""
    second = QueueManager(qmgr.name + "B").start()
    try:
        with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR):
            pymqi.connect("")
    finally:
        second.stop()


def test_connect_to_stopped_qmgr_fails(qmgr):
    """A stopped queue manager is not found by MQCONN (2058)."""
    name = qmgr.name
    qmgr.stop()
    with raises_mq(CMQC.MQRC_Q_MGR_NAME_ERROR):
        pymqi.connect(name)


def test_queue_manager_none_does_not_connect(qmgr, local_queue):
    """QueueManager(None) is not connected until connect(name) is called."""
    conn = pymqi.QueueManager(None)
    assert not conn.is_connected
    with raises_mq(CMQC.MQRC_HCONN_ERROR):
        pymqi.Queue(conn, local_queue, CMQC.MQOO_OUTPUT)
    conn.connect(qmgr.name)
    assert conn.is_connected
    conn.put1(local_queue, b"late")
    conn.disconnect()


def test_queue_manager_constructor_connects(qmgr):
    """QueueManager(name) connects at once, as pymqi's does."""
    conn = pymqi.QueueManager(qmgr.name)
    assert conn.is_connected
    conn.disconnect()


def test_connect_again_warns_already_connected(qmgr, qm):
    """MQCONN on a connected QueueManager warns MQRC_ALREADY_CONNECTED, staying connected."""
    with raises_mq(CMQC.MQRC_ALREADY_CONNECTED, comp=CMQC.MQCC_WARNING):
        qm.connect(qmgr.name)
    assert qm.is_connected


def test_client_connection_fails_not_available_with_clear_message(qmgr):
    """connect(name, channel, conn_info) where no listener answers fails 2538
    MQRC_HOST_NOT_AVAILABLE, naming the client's channel (issue 26)."""
    with raises_mq(CMQC.MQRC_HOST_NOT_AVAILABLE) as info:
        pymqi.connect(qmgr.name, "DEV.APP.SVRCONN", "localhost(1414)")
    text = str(info.value).lower()
    assert "client" in text and "channel" in text


def test_client_connection_with_channel_keyword_fails_not_available(qmgr):
    """connect("X", channel=...) alone (no conn_info) is a client connection with no
    connection name: 2277 MQRC_CD_ERROR, naming what is missing."""
    with raises_mq(CMQC.MQRC_CD_ERROR) as info:
        pymqi.connect("X", channel="DEV.APP.SVRCONN")
    assert "connection name" in str(info.value)


# -- MQCLOSE --------------------------------------------------------------------------------


def test_close_twice_raises_pyiferror(qm, local_queue):
    """Queue.close() on a queue already closed raises PYIFError, as pymqi does."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    q.close()
    with pytest.raises(pymqi.PYIFError):
        q.close()


def test_close_never_opened_raises_pyiferror(qm, local_queue):
    """Queue.close() on a lazily created queue never opened raises PYIFError."""
    with pytest.raises(pymqi.PYIFError):
        pymqi.Queue(qm, local_queue).close()


@pytest.mark.parametrize(("option", "reason"), [
    (CMQC.MQCO_DELETE, CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE),
    (CMQC.MQCO_DELETE_PURGE, CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE),
    (0x10, CMQC.MQRC_OPTIONS_ERROR), (0x40, CMQC.MQRC_OPTIONS_ERROR),
    (0x00010000, CMQC.MQRC_OPTIONS_ERROR),
    (CMQC.MQCO_DELETE | CMQC.MQCO_DELETE_PURGE, CMQC.MQRC_OPTIONS_ERROR),
    (CMQC.MQCO_KEEP_SUB | CMQC.MQCO_REMOVE_SUB, CMQC.MQRC_OPTIONS_ERROR),
])
def test_close_that_fails_keeps_the_handle(qm, local_queue, option, reason):
    """MQCO_DELETE/DELETE_PURGE on a queue that is not dynamic fails 2045; an option
    cmqc.h does not define, or two of one kind (only one of the dynamic-queue options,
    only one of the subscription options), fails MQRC_OPTIONS_ERROR (2046). Either way
    the handle stays open."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    with raises_mq(reason):
        q.close(option)
    assert counts(qm) == (0, 1)
    q.put(b"still open")
    q.close()
    assert counts(qm) == (0, 0)


# -- lazy open ------------------------------------------------------------------------------


def test_lazy_put_then_get_fails_not_open_for_input(qm, local_queue):
    """Queue(qm, name).put() opens for output only, so a get on it fails 2037 (as pymqi)."""
    q = pymqi.Queue(qm, local_queue)
    q.put(b"x")
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_INPUT):
        q.get()
    assert counts(qm) == (0, 1)
    q.close()


def test_lazy_get_then_put_fails_not_open_for_output(qm, local_queue):
    """Queue(qm, name).get() opens for input only, so a put on it fails 2039."""
    q = pymqi.Queue(qm, local_queue)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        q.get()
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT):
        q.put(b"x")
    q.close()


# -- deleting queues ------------------------------------------------------------------------


def test_delete_queue_with_messages_refused(qmgr, qm, local_queue):
    """DELETE of a queue holding messages is refused with a DefinitionError naming them."""
    qm.put1(local_queue, b"x")
    with pytest.raises(DefinitionError, match="message"):
        qmgr.catalog.delete("QL", local_queue)
    assert qmgr.catalog.get("QL", local_queue).name == local_queue


def test_delete_queue_with_uncommitted_put_refused(qmgr, qm, local_queue):
    """A put not yet committed counts as a message: DELETE is refused."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    q.put(b"x", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    q.close()
    with pytest.raises(DefinitionError):
        qmgr.catalog.delete("QL", local_queue)
    qm.backout()
    qmgr.catalog.delete("QL", local_queue)


@pytest.mark.parametrize("options", [IN_SHARED, CMQC.MQOO_OUTPUT, CMQC.MQOO_BROWSE,
                                     CMQC.MQOO_INQUIRE, CMQC.MQOO_SET])
def test_delete_open_queue_refused(qmgr, qm, local_queue, options):
    """DELETE of an empty queue some handle has open (for any use) is refused, naming why."""
    q = pymqi.Queue(qm, local_queue, options)
    with pytest.raises(DefinitionError, match="open"):
        qmgr.catalog.delete("QL", local_queue)
    q.close()


def test_delete_queue_open_through_alias_refused(qmgr, qm, local_queue):
    """A handle opened through an alias keeps the base queue from being deleted."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    q = pymqi.Queue(qm, "AQ", CMQC.MQOO_OUTPUT)
    with pytest.raises(DefinitionError, match="open"):
        qmgr.catalog.delete("QL", local_queue)
    q.close()


def test_delete_empty_closed_queue_succeeds(qmgr, qm, local_queue):
    """Once empty and closed the queue can be deleted; opening it then fails 2085."""
    q = pymqi.Queue(qm, local_queue, IN_SHARED | CMQC.MQOO_OUTPUT)
    q.put(b"x")
    assert q.get() == b"x"
    q.close()
    qmgr.catalog.delete("QL", local_queue)
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)


def test_delete_alias_open_by_application_refused(qmgr, qm, local_queue):
    """DELETE of an alias some application has open is refused (IBM: DELETE queues)."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    q = pymqi.Queue(qm, "AQ", CMQC.MQOO_OUTPUT)
    with pytest.raises(DefinitionError, match="open"):
        qmgr.catalog.delete("QA", "AQ")
    q.close()
    qmgr.catalog.delete("QA", "AQ")


def test_delete_remote_definition_open_by_application_refused(qmgr, qm, remote):
    """DELETE of a remote queue definition some application has open is refused."""
    q = pymqi.Queue(qm, remote, CMQC.MQOO_OUTPUT)
    with pytest.raises(DefinitionError, match="open"):
        qmgr.catalog.delete("QR", remote)
    q.close()
    qmgr.catalog.delete("QR", remote)


def test_delete_xmitq_used_by_open_remote_queue_refused(qmgr, qm, remote):
    """DELETE of a transmission queue is refused while a remote queue resolving to it is open."""
    q = pymqi.Queue(qm, remote, CMQC.MQOO_OUTPUT)
    with pytest.raises(DefinitionError, match="open"):
        qmgr.catalog.delete("QL", "OTHERQM")
    q.close()
    qmgr.catalog.delete("QL", "OTHERQM")


@pytest.mark.parametrize("with_md", [False, True])
def test_a_queue_whose_handle_was_closed_underneath_fails_hobj_error(qm, local_queue,
                                                                     with_md):
    """A pymqi Queue whose handle the connection closed (by its hobj) fails 2019 on put
    and get, with or without an MD; it is not opened again behind the caller's back."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    md = (lambda: (pymqi.MD(),)) if with_md else (lambda: ())
    q.put(b"warm", *md())
    q.get(None, *md())  # the plans are made
    handle = q.get_handle()
    qm.connection.close(handle.hobj)
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        q.put(b"x", *md())
    with raises_mq(CMQC.MQRC_HOBJ_ERROR):
        q.get(None, *md())
    assert q.get_handle() is handle and counts(qm) == (0, 0)
