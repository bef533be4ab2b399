"""Programs written as pymqi's documentation and examples write them run unchanged.

The reference is pymqi itself (dsuch/pymqi, code/pymqi/__init__.py, 1.11/1.12, and
code/examples/): ``pymqi.connect(qm)``, ``pymqi.Queue(qmgr, name[, opts])`` with a deferred
open, ``put(msg, md, pmo)``, ``get(None, md, gmo)`` (whole message), ``put1``,
``commit``/``backout``, ``MQMIError`` with ``.comp``/``.reason``/``.errorAsString()``, the
lower-case aliases ``md()``, ``gmo()``, ``pmo()``, ``od()``. pymqi's texts:
``errorAsString()`` returns ``"FAILED: MQRC_NO_MSG_AVAILABLE"`` (``"WARNING: ..."`` for a
warning) and ``str(error)`` is ``"MQI Error. Comp: 2, Reason 2033: FAILED:
MQRC_NO_MSG_AVAILABLE"`` (MQMIError.__str__ / errorAsString in pymqi's source; the
summary in mq-semantics.md §8 attributes the long text to errorAsString, which pymqi's
source does not do).
"""

from __future__ import annotations

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

# -- pymqi's examples, as written -------------------------------------------------------------


def test_put_message_example_runs_unchanged(qmgr, local_queue):
    """pymqi's put_message.py (bindings form) runs and the message arrives."""
    queue_manager = qmgr.name
    queue_name = local_queue
    message = "Hello from Python!"

    qmgr_conn = pymqi.connect(queue_manager)
    queue = pymqi.Queue(qmgr_conn, queue_name)
    queue.put(message)
    queue.close()
    qmgr_conn.disconnect()

    check = pymqi.connect(queue_manager)
    md = pymqi.MD()
    assert pymqi.Queue(check, queue_name).get(None, md) == message.encode("utf-8")
    assert bytes(md.Format).ljust(8) == CMQC.MQFMT_STRING
    assert md.CodedCharSetId == 1208
    check.disconnect()


def test_get_wait_multiple_messages_example_runs_unchanged(qmgr, qm, local_queue):
    """pymqi's get_wait_multiple_messages.py loop (MD reset between gets) gets every message."""
    for i in range(5):
        qm.put1(local_queue, b"message %d" % i)

    queue_manager = qmgr.name
    queue_name = local_queue
    received = []

    # Message Descriptor
    md = pymqi.MD()

    # Get Message Options
    gmo = pymqi.GMO()
    gmo.Options = pymqi.CMQC.MQGMO_WAIT | pymqi.CMQC.MQGMO_FAIL_IF_QUIESCING
    gmo.WaitInterval = 200  # the example waits 5 000 ms; shortened for the test

    qmgr_conn = pymqi.connect(queue_manager)
    queue = pymqi.Queue(qmgr_conn, queue_name)

    keep_running = True
    while keep_running:
        try:
            # Wait up to to gmo.WaitInterval for a new message.
            message = queue.get(None, md, gmo)
            received.append(message)

            # Reset the MsgId, CorrelId & GroupId so that we can reuse
            # the same 'md' object again.
            md.MsgId = pymqi.CMQC.MQMI_NONE
            md.CorrelId = pymqi.CMQC.MQCI_NONE
            md.GroupId = pymqi.CMQC.MQGI_NONE

        except pymqi.MQMIError as e:
            if e.comp == pymqi.CMQC.MQCC_FAILED and e.reason == pymqi.CMQC.MQRC_NO_MSG_AVAILABLE:
                # No messages, that is OK, we can ignore it.
                keep_running = False  # the example loops for ever; the test stops here
            else:
                # Some other error condition.
                raise

    queue.close()
    qmgr_conn.disconnect()
    assert received == [b"message %d" % i for i in range(5)]


def test_reusing_md_without_reset_matches_previous_msgid(qm, local_queue):
    """The classic pymqi pitfall: a reused MD keeps MsgId, so the next get fails 2033."""
    qm.put1(local_queue, b"first")
    qm.put1(local_queue, b"second")
    queue = pymqi.Queue(qm, local_queue)
    md = pymqi.MD()
    assert queue.get(None, md) == b"first"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        queue.get(None, md)
    md.MsgId = CMQC.MQMI_NONE
    md.CorrelId = CMQC.MQCI_NONE
    assert queue.get(None, md) == b"second"
    queue.close()


def test_put_with_md_fills_msgid_and_put_context(qm, local_queue):
    """put(msg, md) writes the generated MsgId and the put date and time back into the MD."""
    md = pymqi.MD()
    pymqi.Queue(qm, local_queue).put(b"x", md)
    assert bytes(md.MsgId) != CMQC.MQMI_NONE
    assert len(bytes(md.PutDate).strip()) == 8
    assert len(bytes(md.PutTime).strip()) == 8
    got = pymqi.MD()
    pymqi.Queue(qm, local_queue).get(None, got)
    assert bytes(got.MsgId) == bytes(md.MsgId)


def test_get_by_correl_id_as_pymqi_request_reply(qm, local_queue):
    """Request/reply as pymqi users write it: get the reply correlated to the request's MsgId."""
    request = pymqi.MD()
    pymqi.Queue(qm, local_queue).put(b"request", request)
    for i in range(3):
        qm.put1(local_queue, b"noise %d" % i)
    reply = pymqi.MD(CorrelId=request.MsgId)
    qm.put1(local_queue, b"the reply", reply)

    want = pymqi.MD()
    want.CorrelId = request.MsgId
    gmo = pymqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=100)
    gmo.Version = CMQC.MQGMO_VERSION_2
    gmo.MatchOptions = CMQC.MQMO_MATCH_CORREL_ID
    assert pymqi.Queue(qm, local_queue).get(None, want, gmo) == b"the reply"


def test_put1_example_runs_unchanged(qmgr, local_queue):
    """QueueManager.put1(queue_name, message, md, pmo) puts one message and fills md/pmo."""
    qmgr_conn = pymqi.connect(qmgr.name)
    md = pymqi.md()
    pmo = pymqi.pmo()
    qmgr_conn.put1(local_queue, b"put1 message", md, pmo)
    assert bytes(md.MsgId) != CMQC.MQMI_NONE
    assert bytes(pmo.ResolvedQName).rstrip() == local_queue.encode()
    assert pymqi.Queue(qmgr_conn, local_queue).get() == b"put1 message"
    qmgr_conn.disconnect()


def test_put1_with_od(qm, local_queue):
    """put1 accepts an od() instead of a queue name, as pymqi documents."""
    qm.put1(pymqi.od(ObjectName=local_queue.encode()), b"via od")
    assert pymqi.Queue(qm, local_queue).get() == b"via od"


def test_lower_case_aliases_are_the_structures(qm, local_queue):
    """pymqi.md/gmo/pmo/od are the MD/GMO/PMO/OD classes (pymqi's backward names)."""
    assert isinstance(pymqi.md(), pymqi.MD)
    assert isinstance(pymqi.gmo(), pymqi.GMO)
    assert isinstance(pymqi.pmo(), pymqi.PMO)
    assert isinstance(pymqi.od(), pymqi.OD)
    md = pymqi.md()
    md["Persistence"] = CMQC.MQPER_PERSISTENT  # pymqi's item access
    md.Priority = 5
    pymqi.Queue(qm, local_queue).put(b"x", md, pymqi.pmo())
    got = pymqi.md()
    pymqi.Queue(qm, local_queue).get(None, got, pymqi.gmo())
    assert (got["Priority"], got.Persistence) == (5, CMQC.MQPER_PERSISTENT)


def test_queue_open_with_options_and_browse(qm, local_queue):
    """Queue(qm, name, INPUT_SHARED | BROWSE) browses with BROWSE_FIRST/NEXT then gets."""
    for i in range(3):
        qm.put1(local_queue, b"m%d" % i)
    queue = pymqi.Queue(qm, local_queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_BROWSE)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    seen = [queue.get(None, pymqi.MD(), gmo)]
    gmo.Options = CMQC.MQGMO_BROWSE_NEXT
    seen += [queue.get(None, pymqi.MD(), gmo) for _ in range(2)]
    assert seen == [b"m0", b"m1", b"m2"]
    assert queue.get() == b"m0"  # browsing left them on the queue
    queue.close()


def test_queue_open_by_method(qm, local_queue):
    """Queue(qm) then open(name, opts) opens immediately; open() again raises PYIFError."""
    queue = pymqi.Queue(qm)
    queue.open(local_queue, CMQC.MQOO_OUTPUT)
    queue.put(b"x")
    with pytest.raises(pymqi.PYIFError):
        queue.open(local_queue, CMQC.MQOO_OUTPUT)
    queue.close()


def test_get_whole_long_message_with_none_length(qm, local_queue):
    """get(None) returns a message longer than pymqi's first 4096-byte try, whole."""
    big = bytes(range(256)) * 80  # 20 480 bytes
    qm.put1(local_queue, big)
    assert pymqi.Queue(qm, local_queue).get(None) == big


def test_get_with_short_max_length_warns_truncated_failed(qm, local_queue):
    """get(max_length) too short raises MQMIError comp WARNING 2080 with original_length."""
    qm.put1(local_queue, b"0123456789")
    queue = pymqi.Queue(qm, local_queue)
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, comp=CMQC.MQCC_WARNING) as info:
        queue.get(4)
    assert info.value.original_length == 10
    assert queue.get() == b"0123456789"  # still on the queue
    queue.close()


def test_accept_truncated_warns_and_returns_message_part(qm, local_queue):
    """ACCEPT_TRUNCATED_MSG: comp WARNING 2079, the first bytes in .message, the message gone."""
    qm.put1(local_queue, b"0123456789")
    queue = pymqi.Queue(qm, local_queue)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_ACCEPT_TRUNCATED_MSG)
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_ACCEPTED, comp=CMQC.MQCC_WARNING) as info:
        queue.get(4, pymqi.MD(), gmo)
    assert info.value.message == b"0123"
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        queue.get()
    queue.close()


def test_priority_above_maximum_warns_but_puts(qm, local_queue):
    """md.Priority above 9 raises comp WARNING 2049 and the message is put at priority 9."""
    with raises_mq(CMQC.MQRC_PRIORITY_EXCEEDS_MAXIMUM, comp=CMQC.MQCC_WARNING):
        pymqi.Queue(qm, local_queue).put(b"x", pymqi.MD(Priority=12))
    md = pymqi.MD()
    assert pymqi.Queue(qm, local_queue).get(None, md) == b"x"
    assert md.Priority == 9


# -- units of work --------------------------------------------------------------------------


def test_commit_makes_syncpoint_puts_visible(qmgr, qm, local_queue):
    """A put with MQPMO_SYNCPOINT is invisible to others until qmgr.commit()."""
    other = pymqi.connect(qmgr.name)
    reader = pymqi.Queue(other, local_queue)
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    pymqi.Queue(qm, local_queue).put(b"in a unit of work", pymqi.MD(), pmo)
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        reader.get()
    qm.commit()
    assert reader.get() == b"in a unit of work"
    other.disconnect()


def test_backout_discards_syncpoint_puts(qm, local_queue):
    """qmgr.backout() removes the puts of the unit of work."""
    pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
    pymqi.Queue(qm, local_queue).put(b"gone", pymqi.MD(), pmo)
    qm.backout()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        pymqi.Queue(qm, local_queue).get()


def test_backout_restores_syncpoint_get_with_backout_count(qm, local_queue):
    """A get under MQGMO_SYNCPOINT then backout() puts the message back, BackoutCount 1."""
    qm.put1(local_queue, b"retry me")
    queue = pymqi.Queue(qm, local_queue)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT)
    assert queue.get(None, pymqi.MD(), gmo) == b"retry me"
    qm.backout()
    md = pymqi.MD()
    assert queue.get(None, md) == b"retry me"
    assert md.BackoutCount == 1
    queue.close()


def test_get_without_syncpoint_is_final(qm, local_queue):
    """Without MQGMO_SYNCPOINT a get is final at once: backout does not restore it (pymqi #284)."""
    qm.put1(local_queue, b"final")
    queue = pymqi.Queue(qm, local_queue)
    assert queue.get() == b"final"
    qm.backout()
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE):
        queue.get()
    queue.close()


def test_disconnect_commits_open_unit_of_work(qmgr, local_queue):
    """qmgr.disconnect() with uncommitted puts commits them (IBM's normal MQDISC)."""
    conn = pymqi.connect(qmgr.name)
    pymqi.Queue(conn, local_queue).put(b"kept", pymqi.MD(),
                                       pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    conn.disconnect()
    check = pymqi.connect(qmgr.name)
    assert pymqi.Queue(check, local_queue).get() == b"kept"
    check.disconnect()


# -- MQMIError and PYIFError ----------------------------------------------------------------


def test_mqmierror_fields_and_isinstance(qm, local_queue):
    """An MQ failure raises pymqi.MQMIError with .comp and .reason as ints."""
    try:
        pymqi.Queue(qm, local_queue).get()
    except pymqi.MQMIError as e:
        assert isinstance(e.comp, int) and isinstance(e.reason, int)
        assert e.comp == CMQC.MQCC_FAILED
        assert e.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    else:
        pytest.fail("get on an empty queue did not raise MQMIError")


def test_error_as_string_has_pymqi_shape(qm, local_queue):
    """errorAsString() is pymqi's "FAILED: MQRC_NO_MSG_AVAILABLE" (prefix + mnemonic)."""
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE) as info:
        pymqi.Queue(qm, local_queue).get()
    assert info.value.errorAsString() == "FAILED: MQRC_NO_MSG_AVAILABLE"


def test_error_as_string_for_warning_has_pymqi_shape(qm, local_queue):
    """For a warning errorAsString() is pymqi's "WARNING: MQRC_TRUNCATED_MSG_FAILED"."""
    qm.put1(local_queue, b"0123456789")
    with raises_mq(CMQC.MQRC_TRUNCATED_MSG_FAILED, comp=CMQC.MQCC_WARNING) as info:
        pymqi.Queue(qm, local_queue).get(2)
    assert info.value.errorAsString() == "WARNING: MQRC_TRUNCATED_MSG_FAILED"


def test_str_of_error_has_pymqi_shape(qm, local_queue):
    """str(MQMIError) is pymqi's "MQI Error. Comp: 2, Reason 2033: FAILED: <mnemonic>"."""
    with raises_mq(CMQC.MQRC_NO_MSG_AVAILABLE) as info:
        pymqi.Queue(qm, local_queue).get()
    assert str(info.value).startswith(
        "MQI Error. Comp: 2, Reason 2033: FAILED: MQRC_NO_MSG_AVAILABLE")


def test_constructed_mqmierror_like_pymqi(qm):
    """MQMIError(comp, reason) can be built and raised by applications, as in pymqi."""
    e = pymqi.MQMIError(CMQC.MQCC_FAILED, CMQC.MQRC_Q_FULL)
    assert (e.comp, e.reason) == (2, 2053)
    assert e.errorAsString() == "FAILED: MQRC_Q_FULL"


def test_pyiferror_is_raised_for_interface_misuse(qm, local_queue):
    """Misusing the Python objects (closing a queue never opened) raises pymqi.PYIFError."""
    with pytest.raises(pymqi.PYIFError):
        pymqi.Queue(qm, local_queue).close()


def test_pyiferror_carries_its_error_and_pymqi_text():
    """pymqi's PYIFError(e): ``.error`` is e and str() is "PYMQI Error: " + str(e)."""
    err = pymqi.PYIFError("not open")
    assert err.error == "not open"
    assert str(err) == "PYMQI Error: not open"


def test_error_as_string_of_a_reason_without_mnemonic_is_pymqis():
    """For a reason no dictionary names, pymqi's errorAsString() says "Error code N not
    defined" (MQMIError.errorAsString in pymqi and ibmmq)."""
    assert pymqi.MQMIError(CMQC.MQCC_FAILED, 9999).errorAsString() == (
        "FAILED: Error code 9999 not defined")
    assert pymqi.MQMIError(CMQC.MQCC_WARNING, 9999).errorAsString() == (
        "WARNING: Error code 9999 not defined")


def test_open_of_a_remote_queue_resolves_to_the_queue_there(qmgr, qm, local_queue):
    """A remote queue opened for output with a Version-3 MQOD: ResolvedQName and
    ResolvedQMgrName are the queue there and its queue manager (IBM, MQOD ResolvedQName:
    the destination queue after name resolution), as the PMO's after a put."""
    qmgr.catalog.define("QL", "OTHERQM", usage="XMITQ")
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM")
    od = pymqi.OD(ObjectName=b"RQ", Version=CMQC.MQOD_VERSION_4)
    queue = pymqi.Queue(qm, od, CMQC.MQOO_OUTPUT)
    pmo = pymqi.PMO()
    queue.put(b"x", pymqi.MD(), pmo)
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (b"TARGET".ljust(48),
                                                       b"OTHERQM".ljust(48))
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (pmo.ResolvedQName,
                                                       pmo.ResolvedQMgrName)
    queue.close()


def test_queue_after_close_needs_a_descriptor_again(qm, local_queue):
    """pymqi's close() forgets the queue descriptor: a later put raises PYIFError."""
    queue = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    queue.put(b"x")
    queue.close()
    with pytest.raises(pymqi.PYIFError):
        queue.put(b"y")


# -- connections ----------------------------------------------------------------------------


def test_queue_manager_deferred_connect(qmgr, local_queue):
    """QueueManager(None) then connect(name), as pymqi documents for a deferred connection."""
    qmgr_conn = pymqi.QueueManager(None)
    qmgr_conn.connect(qmgr.name)
    assert qmgr_conn.is_connected
    pymqi.Queue(qmgr_conn, local_queue).put(b"x")
    qmgr_conn.disconnect()
    assert not qmgr_conn.is_connected


def test_queue_manager_inquire_and_handle(qmgr, qm):
    """qmgr.inquire(MQCA_Q_MGR_NAME) and get_handle()/getHandle() work as in pymqi."""
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME).rstrip() == qmgr.name.encode()
    assert qm.get_handle() == qm.getHandle()


def test_cmqc_is_reachable_both_ways():
    """CMQC is importable as pymqi.CMQC and from tpfemu.mqi import CMQC, with IBM's numbers."""
    assert pymqi.CMQC is CMQC
    assert CMQC.MQGMO_WAIT == 1 and CMQC.MQRC_NO_MSG_AVAILABLE == 2033
    assert CMQC.MQMI_NONE == bytes(24) and CMQC.MQFMT_STRING == b"MQSTR   "


def test_str_message_uses_bytes_encoding_and_ccsid(qmgr, local_queue):
    """A str message is encoded with the connection's bytes_encoding and default_ccsid."""
    conn = pymqi.connect(qmgr.name, bytes_encoding="latin-1", default_ccsid=819)
    pymqi.Queue(conn, local_queue).put("café")
    md = pymqi.MD()
    assert pymqi.Queue(conn, local_queue).get(None, md) == "café".encode("latin-1")
    assert md.CodedCharSetId == 819
    conn.disconnect()


def test_get_no_jms_returns_message(qm, local_queue):
    """get_no_jms() (pymqi's get without properties) returns the message like get()."""
    qm.put1(local_queue, b"plain")
    assert pymqi.Queue(qm, local_queue).get_no_jms() == b"plain"


@pytest.mark.parametrize("listener", [False, True], ids=["quiet", "listener"])
@pytest.mark.parametrize("with_md", [True, False], ids=["md", "no-md"])
def test_every_put_of_a_loop_fills_the_pmo(qmgr, qm, local_queue, listener, with_md):
    """The puts after the first take the handle's plan (in C, or in Python without an MD
    or when someone listens): each fills its PMO's outputs as the first put did."""
    if listener:
        qmgr.events.subscribe(lambda event: None)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    for i in range(3):
        pmo = pymqi.PMO(Options=CMQC.MQPMO_NO_SYNCPOINT)
        q.put(b"message %d" % i, pymqi.MD() if with_md else None, pmo)
        assert bytes(pmo.ResolvedQName).rstrip() == local_queue.encode(), i
        assert bytes(pmo.ResolvedQMgrName).rstrip() == qmgr.name.encode(), i
    assert q.get_handle().put_plan is not None  # (the later puts were planned)
    assert [pymqi.Queue(qm, local_queue).get() for _ in range(3)] == [
        b"message 0", b"message 1", b"message 2"]


@pytest.mark.parametrize("listener", [False, True], ids=["quiet", "listener"])
def test_new_msg_id_with_a_reused_md_gives_each_put_its_own(qmgr, qm, local_queue, listener):
    """pymqi's idiom: one MD for every put, MQPMO_NEW_MSG_ID so that each message gets a
    new MsgId (without the option the MsgId the first put wrote is used again)."""
    if listener:
        qmgr.events.subscribe(lambda event: None)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    md, pmo = pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_NEW_MSG_ID)
    ids = []
    for i in range(3):
        q.put(b"message %d" % i, md, pmo)
        ids.append(md.MsgId)
    assert len(set(ids)) == 3 and bytes(24) not in ids
    q.put(b"same id", md, pymqi.PMO())
    assert md.MsgId == ids[-1]


def test_connect_without_a_queue_manager_or_channel_is_refused_as_pymqi():
    """pymqi.connect(None) with no channel raises TypeError('Invalid arguments: ...'), as
    pymqi's and ibmmq's connect do (rather than looking for a queue manager named None)."""
    with pytest.raises(TypeError, match="Invalid arguments"):
        pymqi.connect(None)
    with pytest.raises(TypeError, match="Invalid arguments"):
        pymqi.connect(None, "APP.SVRCONN")
