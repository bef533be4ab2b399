"""Programs in the style of pymqi's documented examples, run unchanged with
``import tpfemu.mqi as pymqi`` (issue 26).

Each example is written as a pymqi user writes one (connect, open, call, close,
disconnect), taking only the module and a way to connect. The ``route`` fixture says how
the example reaches the queue manager: ``in-process``, or ``over-tcp`` through a System's
listener and a SVRCONN channel; every example runs twice, from the same code.
"""

from __future__ import annotations

import pytest

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

QUEUE = "DEV.QUEUE.1"


@pytest.fixture(params=["in-process", "over-tcp"])
def served(request, qmgr):
    """The queue manager an example reaches and how: (queue manager, route name). Over
    TCP it is a System's, reached through its listener and SVRCONN channel APP.SVRCONN
    (the same port and channel every client form of pymqi names)."""
    if request.param == "in-process":
        yield qmgr, request.param, None
        return
    import tpfemu

    system = tpfemu.System.start(name=f"E{qmgr.name}")
    try:
        for command in ("ZMQSC DEF MQP",
                        "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1",
                        "ZINET START S-MQS", "ZMQSC DEF CHL-APP.SVRCONN CHLTYPE-SVRCONN"):
            system.console(command)
        yield system.qmgr, request.param, system.inetd.servers["MQS"].port
    finally:
        system.stop()


@pytest.fixture
def names(served):
    """The queue manager and a local queue the examples use (persistent by default)."""
    manager = served[0]
    manager.catalog.define("QL", QUEUE, defpsist="YES", descr="pymqi examples")
    return manager.name


@pytest.fixture
def route(served, names):
    """How an example connects: a function returning a connected pymqi.QueueManager, by
    one of pymqi's connect forms: ``connect(name)`` in process, ``connect(name, channel,
    conn_info)`` over TCP."""
    if served[1] == "in-process":
        return lambda: pymqi.connect(names)
    port = served[2]
    return lambda: pymqi.connect(names, "APP.SVRCONN", f"127.0.0.1({port})")


# -- the example programs ---------------------------------------------------------------------


def example_put_message(pymqi, connect, message):
    """pymqi's put_message.py."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(message)
    queue.close()
    qmgr.disconnect()


def example_get_message(pymqi, connect):
    """pymqi's get_message.py."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE)
    message = queue.get()
    queue.close()
    qmgr.disconnect()
    return message


def example_get_wait_multiple(pymqi, connect):
    """pymqi's get_wait_multiple_messages.py, ending at 2033 instead of looping forever."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE)
    got = []
    while True:
        md = pymqi.MD()
        gmo = pymqi.GMO()
        gmo.Options = CMQC.MQGMO_WAIT | CMQC.MQGMO_FAIL_IF_QUIESCING
        gmo.WaitInterval = 50
        try:
            got.append(queue.get(None, md, gmo))
            md.MsgId = CMQC.MQMI_NONE
            md.CorrelId = CMQC.MQCI_NONE
            md.GroupId = CMQC.MQGI_NONE
        except pymqi.MQMIError as e:
            if e.comp == CMQC.MQCC_FAILED and e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
    queue.close()
    qmgr.disconnect()
    return got


def example_browse(pymqi, connect):
    """A browse loop as in ibmmq's hdr_browse.py: every message and its MQMD, left in place."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_BROWSE)
    seen = []
    gmo = pymqi.GMO(Options=CMQC.MQGMO_BROWSE_FIRST)
    while True:
        md = pymqi.MD()
        try:
            seen.append((queue.get(None, md, gmo), md.Priority))
        except pymqi.MQMIError as e:
            if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                break
            raise
        gmo.Options = CMQC.MQGMO_BROWSE_NEXT
    queue.close()
    qmgr.disconnect()
    return seen


def example_inquire_list(pymqi, connect):
    """ibmmq's inquire with a list of selectors: a dict back."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_INQUIRE)
    attrs = queue.inquire([CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQCA_Q_DESC,
                           CMQC.MQCA_BACKOUT_REQ_Q_NAME, CMQC.MQIA_BACKOUT_THRESHOLD])
    qm_attrs = qmgr.inquire([CMQC.MQCA_Q_MGR_NAME, CMQC.MQIA_COMMAND_LEVEL,
                             CMQC.MQCA_VERSION, CMQC.MQIA_PLATFORM])
    queue.close()
    qmgr.disconnect()
    return attrs, qm_attrs


def example_set_dict(pymqi, connect):
    """ibmmq's set with a dict: inhibit puts and switch triggering on in one MQSET."""
    qmgr = connect()
    queue = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    queue.set({CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED,
               CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON})
    result = queue.inquire([CMQC.MQIA_INHIBIT_PUT, CMQC.MQIA_TRIGGER_CONTROL])
    queue.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)  # pymqi's single form
    queue.close()
    qmgr.disconnect()
    return result


def example_checking_cc_and_rc(pymqi, connect):
    """pymqi's checking_cc_and_rc.py with ibmmq's accessors."""
    qmgr = connect()
    try:
        pymqi.Queue(qmgr, "NO.SUCH.QUEUE", CMQC.MQOO_OUTPUT)
    except pymqi.MQMIError as e:
        found = (e.comp, e.reason, e.errorAsString(), e.error_as_string(), e.get("reason"),
                 pymqi.CMQSTRC.MQRC_DICT[e.reason])
    else:  # pragma: no cover - the open must fail
        found = None
    qmgr.disconnect()
    return found


def example_dead_letter_parsing(pymqi, connect, payload):
    """Put a message with a DLH as an application forwarding it would, then read the
    header back with get_header/to_string, as ibmmq's hdr_browse.py does."""
    qmgr = connect()
    dlh = pymqi.DLH(Reason=CMQC.MQRC_Q_FULL, DestQName=b"TARGET.Q", DestQMgrName=b"QM2",
                    Format=CMQC.MQFMT_STRING, CodedCharSetId=1208)
    md = pymqi.MD(Format=CMQC.MQFMT_DEAD_LETTER_HEADER)
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(dlh.pack() + payload, md)
    queue.close()
    queue = pymqi.Queue(qmgr, QUEUE)
    msg = queue.get()
    header = pymqi.DLH().get_header(msg)
    text = pymqi.DLH().get_header(msg).to_string()
    queue.close()
    qmgr.disconnect()
    return header, text, msg[CMQC.MQDLH_CURRENT_LENGTH:]


def example_xqh_parsing(pymqi, connect):
    """Build a transmission-queue message and read its embedded MQMD with
    get_embedded_md(msg), as a channel monitor does."""
    qmgr = connect()
    xqh = pymqi.XQH(RemoteQName=b"FAR.Q", RemoteQMgrName=b"FARQM")
    xqh.MsgDesc.Priority = 7
    xqh.MsgDesc.PutApplName = b"sender"
    queue = pymqi.Queue(qmgr, QUEUE)
    queue.put(xqh.pack() + b"body", pymqi.MD(Format=CMQC.MQFMT_XMIT_Q_HEADER))
    queue.close()
    queue = pymqi.Queue(qmgr, QUEUE)
    msg = queue.get()
    header = pymqi.XQH().get_header(msg)
    embedded = header.get_embedded_md(msg)
    queue.close()
    qmgr.disconnect()
    return header, embedded, msg[CMQC.MQXQH_CURRENT_LENGTH:]


def example_put1_with_context(pymqi, connect):
    """pymqi's put1 with an MD and PMO; the PMO's ResolvedQName comes back as pymqi's does."""
    qmgr = connect()
    md = pymqi.MD(Priority=4)
    pmo = pymqi.PMO()
    qmgr.put1(QUEUE, b"one shot", md, pmo)
    qmgr.disconnect()
    return md, pmo


# -- the tests --------------------------------------------------------------------------------


def test_put_then_get(route):
    """put_message.py then get_message.py move one message through the queue."""
    example_put_message(pymqi, route, b"Hello from Python!")
    assert example_get_message(pymqi, route) == b"Hello from Python!"


def test_str_message_is_put_as_utf8_string(route):
    """A str put as pymqi 1.12 puts it comes back UTF-8 encoded."""
    example_put_message(pymqi, route, "Grüße")
    assert example_get_message(pymqi, route) == "Grüße".encode()


def test_get_wait_multiple_messages_in_order(route):
    """get_wait_multiple_messages.py gets every message in order and ends on 2033."""
    for text in (b"one", b"two", b"three"):
        example_put_message(pymqi, route, text)
    assert example_get_wait_multiple(pymqi, route) == [b"one", b"two", b"three"]


def test_browse_sees_every_message_and_leaves_them(route):
    """The browse example sees each message with its MQMD and leaves them to be got."""
    example_put_message(pymqi, route, b"first")
    example_put_message(pymqi, route, b"second")
    assert example_browse(pymqi, route) == [(b"first", 0), (b"second", 0)]
    assert example_get_wait_multiple(pymqi, route) == [b"first", b"second"]


def test_inquire_list_returns_dict_of_values(route, names):
    """inquire([...]) returns {selector: value}, strings blank-padded as pymqi returns them."""
    example_put_message(pymqi, route, b"x")
    attrs, qm_attrs = example_inquire_list(pymqi, route)
    assert attrs == {CMQC.MQIA_CURRENT_Q_DEPTH: 1,
                     CMQC.MQCA_Q_DESC: b"pymqi examples".ljust(64),
                     CMQC.MQCA_BACKOUT_REQ_Q_NAME: b" " * 48,
                     CMQC.MQIA_BACKOUT_THRESHOLD: 0}
    assert qm_attrs[CMQC.MQCA_Q_MGR_NAME] == names.encode().ljust(48)
    assert qm_attrs[CMQC.MQIA_COMMAND_LEVEL] == CMQC.MQCMDL_LEVEL_530
    assert qm_attrs[CMQC.MQIA_PLATFORM] == CMQC.MQPL_TPF
    version = qm_attrs[CMQC.MQCA_VERSION]
    assert len(version) == CMQC.MQ_VERSION_LENGTH and version.isdigit()


def test_set_dict_changes_both_attributes(route):
    """set({...}) changes every attribute given; the single form still works after it."""
    assert example_set_dict(pymqi, route) == {CMQC.MQIA_INHIBIT_PUT: CMQC.MQQA_PUT_INHIBITED,
                                             CMQC.MQIA_TRIGGER_CONTROL: CMQC.MQTC_ON}
    example_put_message(pymqi, route, b"allowed again")  # the single set re-allowed puts


def test_error_accessors_of_pymqi_and_ibmmq(route):
    """checking_cc_and_rc.py reads comp/reason, errorAsString, error_as_string, get() and
    the CMQSTRC name of an unknown queue's 2085."""
    assert example_checking_cc_and_rc(pymqi, route) == (
        CMQC.MQCC_FAILED, CMQC.MQRC_UNKNOWN_OBJECT_NAME,
        "FAILED: MQRC_UNKNOWN_OBJECT_NAME", "FAILED: MQRC_UNKNOWN_OBJECT_NAME",
        CMQC.MQRC_UNKNOWN_OBJECT_NAME, "MQRC_UNKNOWN_OBJECT_NAME")


def test_dead_letter_header_parsed_from_message(route):
    """DLH().get_header(msg) reads the header at the front of a message; to_string() makes
    its text fields str; the payload follows the 172 bytes."""
    header, text, rest = example_dead_letter_parsing(pymqi, route, b"undeliverable")
    assert header.Reason == CMQC.MQRC_Q_FULL
    assert header.DestQName == b"TARGET.Q".ljust(48)
    assert header.CodedCharSetId == 1208
    assert (text.DestQName, text.DestQMgrName, text.Format) == ("TARGET.Q", "QM2", "MQSTR")
    assert rest == b"undeliverable"


def test_transmission_header_and_embedded_md_parsed_from_message(route):
    """XQH().get_header(msg) and get_embedded_md(msg) read the destination and the
    original MQMD (version 1) from a transmission-queue message."""
    header, embedded, rest = example_xqh_parsing(pymqi, route)
    assert header.RemoteQName.rstrip() == b"FAR.Q"
    assert header.RemoteQMgrName.rstrip() == b"FARQM"
    assert (embedded.Version, embedded.Priority) == (1, 7)
    assert embedded.PutApplName.rstrip() == b"sender"
    assert rest == b"body"


def test_put1_fills_md_and_pmo_as_pymqi(route, names):
    """put1 fills MsgId and the PMO's ResolvedQName/ResolvedQMgrName, blank-padded to 48
    as pymqi returns them."""
    md, pmo = example_put1_with_context(pymqi, route)
    assert md.MsgId != CMQC.MQMI_NONE
    assert pmo.ResolvedQName == QUEUE.encode().ljust(48)
    assert pmo.ResolvedQMgrName == names.encode().ljust(48)


# -- pymqi's and ibmmq's surface, by either route ---------------------------------------------


def test_open_fills_the_resolved_names_of_a_version_3_od(route, served, names):
    """MQOPEN writes ResolvedQName/ResolvedQMgrName into an MQOD of Version 3 or later
    (IBM, MQOD ResolvedQName: an output field, ignored below MQOD_VERSION_3, blank unless
    a queue is opened for browse, input or output); pymqi's Queue unpacks the MQOD the call
    gives back. An alias resolves to its local queue."""
    served[0].catalog.define("QA", "DEV.ALIAS", targq=QUEUE)
    qmgr = route()
    od = pymqi.OD(ObjectName=b"DEV.ALIAS", Version=CMQC.MQOD_VERSION_3)
    queue = pymqi.Queue(qmgr, od, CMQC.MQOO_OUTPUT)
    assert od.ResolvedQName == QUEUE.encode().ljust(48)
    assert od.ResolvedQMgrName == names.encode().ljust(48)
    queue.close()
    inquire_only = pymqi.OD(ObjectName=QUEUE.encode(), Version=CMQC.MQOD_VERSION_3,
                            ResolvedQName=b"LEFT.OVER")
    pymqi.Queue(qmgr, inquire_only, CMQC.MQOO_INQUIRE).close()
    assert inquire_only.ResolvedQName == b" " * 48
    version_1 = pymqi.OD(ObjectName=b"DEV.ALIAS")
    pymqi.Queue(qmgr, version_1, CMQC.MQOO_OUTPUT).close()
    assert version_1.ResolvedQName == pymqi.OD().ResolvedQName  # untouched below version 3
    qmgr.disconnect()


def test_put1_fills_the_resolved_names_of_a_version_3_od(route, served, names):
    """MQPUT1's MQOD is an output too (IBM, MQOD: input/output on MQOPEN and MQPUT1):
    at Version 3 it gets the names the put resolved to, with or without a PMO."""
    served[0].catalog.define("QA", "DEV.ALIAS", targq=QUEUE)
    qmgr = route()
    od = pymqi.OD(ObjectName=b"DEV.ALIAS", Version=CMQC.MQOD_VERSION_3)
    qmgr.put1(od, b"one shot")
    assert (od.ResolvedQName, od.ResolvedQMgrName) == (QUEUE.encode().ljust(48),
                                                       names.encode().ljust(48))
    qmgr.disconnect()


def test_get_takes_pymqi_maxlength_keyword(route):
    """pymqi's and ibmmq's Queue.get(maxLength=None, *opts): the keyword is maxLength;
    a short one fails 2080 as a positional length does."""
    example_put_message(pymqi, route, b"twelve bytes")
    qmgr = route()
    queue = pymqi.Queue(qmgr, QUEUE)
    with pytest.raises(pymqi.MQMIError) as info:
        queue.get(maxLength=4)
    assert info.value.reason == CMQC.MQRC_TRUNCATED_MSG_FAILED
    assert queue.get(maxLength=None) == b"twelve bytes"
    queue.close()
    qmgr.disconnect()


def test_get_no_jms_adds_its_options_to_the_gmo(route):
    """pymqi's get_no_jms ORs MQGMO_NO_PROPERTIES and MQGMO_FAIL_IF_QUIESCING into the
    GMO it is given (or a new one) and gets the message."""
    example_put_message(pymqi, route, b"plain")
    example_put_message(pymqi, route, b"again")
    qmgr = route()
    queue = pymqi.Queue(qmgr, QUEUE)
    gmo = pymqi.GMO(Options=CMQC.MQGMO_NO_SYNCPOINT)
    assert queue.get_no_jms(None, pymqi.MD(), gmo) == b"plain"
    assert gmo.Options == (CMQC.MQGMO_NO_SYNCPOINT | CMQC.MQGMO_NO_PROPERTIES
                           | CMQC.MQGMO_FAIL_IF_QUIESCING)
    assert queue.get_no_rfh2() == b"again"
    queue.close()
    qmgr.disconnect()


def test_calls_of_a_disconnected_queue_manager_raise_pyiferror_and_2018(route):
    """pymqi and ibmmq raise PYIFError('not connected') from disconnect() and get_handle()
    once disconnected; the error is also the MQI's MQRC_HCONN_ERROR (2018)."""
    qmgr = route()
    qmgr.disconnect()
    for call in (qmgr.disconnect, qmgr.get_handle, qmgr.commit):
        with pytest.raises(pymqi.PYIFError) as info:
            call()
        assert isinstance(info.value, pymqi.MQMIError)
        assert (info.value.comp, info.value.reason) == (CMQC.MQCC_FAILED,
                                                        CMQC.MQRC_HCONN_ERROR)
        assert info.value.error == "not connected"


def test_set_handle_shares_an_open_handle(route):
    """pymqi's Queue.set_handle(handle): the queue's calls go to a handle opened by
    another Queue (its get_handle()); a handle not open on the connection fails 2019."""
    qmgr = route()
    opened = pymqi.Queue(qmgr, QUEUE, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_AS_Q_DEF)
    other = pymqi.Queue(qmgr)
    other.set_handle(opened.get_handle())
    other.put(b"via the shared handle")
    assert opened.get() == b"via the shared handle"
    assert other.get_handle() is opened.get_handle()
    handle = opened.get_handle()
    opened.close()
    with pytest.raises(pymqi.MQMIError) as info:
        pymqi.Queue(qmgr).set_handle(handle)
    assert info.value.reason == CMQC.MQRC_HOBJ_ERROR
    qmgr.disconnect()


def test_ibmmq_inq_and_get_name(route, names):
    """ibmmq's QueueManager.inq (inquire's other name), get_name() (the queue manager
    connected to) and to_string(); its Queue.inq, get_name(), get_queue_manager() and
    to_string() (MQCHAR bytes cut at a NUL and stripped)."""
    qmgr = route()
    assert qmgr.get_name() == names
    assert qmgr.inq(CMQC.MQCA_Q_MGR_NAME) == names.encode().ljust(48)
    assert qmgr.inq([CMQC.MQIA_PLATFORM]) == {CMQC.MQIA_PLATFORM: CMQC.MQPL_TPF}
    assert qmgr.to_string(qmgr.inq(CMQC.MQCA_Q_MGR_NAME)) == names
    queue = pymqi.Queue(qmgr, QUEUE)
    assert queue.inq(CMQC.MQIA_CURRENT_Q_DEPTH) == 0
    assert (queue.get_name(), queue.get_queue_manager()) == (QUEUE, qmgr)
    assert queue.to_string(b"TEXT\0\0  ") == "TEXT" and queue.to_string(5) == 5
    queue.close()
    qmgr.disconnect()
