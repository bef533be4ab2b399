"""MQINQ and MQSET by IBM selector on queues, processes and the queue manager.

IBM references:
- MQINQ (q101840_) and "Some cases where the MQINQ call fails" (SSFKSJ 9.2 q026770_):
  an alias is inquired as the alias definition, a remote queue as its local definition;
  a selector valid for queues but not for this queue type completes MQCC_WARNING with
  MQRC_SELECTOR_NOT_FOR_TYPE (2068, q041360_), the value set to MQIAV_NOT_APPLICABLE or
  asterisks; a selector not valid for the object type at all fails MQCC_FAILED with
  MQRC_SELECTOR_ERROR (2067, q041350_).
- MQSET: only InhibitPut, InhibitGet and the trigger attributes can be set; a selector "for
  an attribute that cannot be set", or not applicable to the object type, is 2067 (q041350_).
  Bad values: 2020 MQRC_INHIBIT_VALUE_ERROR (q040930_), 2075-2078 trigger values.
- 2038 not open for inquire, 2040 not open for set.
- Values: MQTT_*, MQTC_*, MQQA_*, MQUS_*, MQMDS_*, MQPER_* (mq-semantics.md §4); character
  attributes come back blank-padded to IBM's length, as pymqi returns them.
"""

from __future__ import annotations

import pytest
from mq_helpers import raises_mq

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC


def padded(text: str, width: int) -> bytes:
    """A character attribute as MQINQ returns it: blank-padded to its length."""
    return text.encode().ljust(width)


@pytest.fixture
def full_queue(qmgr):
    """A local queue with every inquirable attribute set away from its default."""
    qmgr.catalog.define(
        "QL", "FULL.Q", maxdepth=500, maxmsgl=1000, defprty=3, defpsist="YES",
        msgdlvsq="FIFO", put="DISABLED", get="DISABLED", trigger="YES", trigtype="EVERY",
        trigdpth=4, trigmpri=2, trigdata="TDATA", initq="INIT.Q", process="P1",
        descr="A queue for inquiries",
    )
    return "FULL.Q"


def inq(qm, name: str, selector: int):
    """MQINQ of one attribute on a fresh handle opened for INQUIRE only."""
    q = pymqi.Queue(qm, name, CMQC.MQOO_INQUIRE)
    try:
        return q.inquire(selector)
    finally:
        q.close()


# -- local queue attributes ---------------------------------------------------------------------

LOCAL_EXPECTED = [
    (CMQC.MQIA_MAX_Q_DEPTH, 500),
    (CMQC.MQIA_MAX_MSG_LENGTH, 1000),
    (CMQC.MQIA_DEF_PRIORITY, 3),
    (CMQC.MQIA_DEF_PERSISTENCE, CMQC.MQPER_PERSISTENT),
    (CMQC.MQIA_MSG_DELIVERY_SEQUENCE, CMQC.MQMDS_FIFO),
    (CMQC.MQIA_USAGE, CMQC.MQUS_NORMAL),
    (CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED),
    (CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED),
    (CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON),
    (CMQC.MQIA_TRIGGER_TYPE, CMQC.MQTT_EVERY),
    (CMQC.MQIA_TRIGGER_DEPTH, 4),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, 2),
    (CMQC.MQCA_TRIGGER_DATA, padded("TDATA", 64)),
    (CMQC.MQCA_INITIATION_Q_NAME, padded("INIT.Q", 48)),
    (CMQC.MQCA_PROCESS_NAME, padded("P1", 48)),
    (CMQC.MQCA_Q_NAME, padded("FULL.Q", 48)),
    (CMQC.MQIA_Q_TYPE, CMQC.MQQT_LOCAL),
    (CMQC.MQCA_Q_DESC, padded("A queue for inquiries", 64)),
    (CMQC.MQIA_CURRENT_Q_DEPTH, 0),
    (CMQC.MQIA_OPEN_INPUT_COUNT, 0),
    (CMQC.MQIA_OPEN_OUTPUT_COUNT, 0),
]


@pytest.mark.parametrize(("selector", "expected"), LOCAL_EXPECTED,
                         ids=[str(s) for s, _ in LOCAL_EXPECTED])
def test_local_queue_attribute_by_selector(qm, full_queue, selector, expected):
    """MQINQ returns each local-queue attribute with IBM's value (ints, padded bytes)."""
    value = inq(qm, full_queue, selector)
    assert type(value) is type(expected)
    assert value == expected


def test_default_local_queue_attributes(qm, local_queue):
    """A queue defined with defaults inquires as IBM's defaults for those attributes."""
    assert inq(qm, local_queue, CMQC.MQIA_DEF_PERSISTENCE) == CMQC.MQPER_NOT_PERSISTENT
    assert inq(qm, local_queue, CMQC.MQIA_MSG_DELIVERY_SEQUENCE) == CMQC.MQMDS_PRIORITY
    assert inq(qm, local_queue, CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_ALLOWED
    assert inq(qm, local_queue, CMQC.MQIA_INHIBIT_GET) == CMQC.MQQA_GET_ALLOWED
    assert inq(qm, local_queue, CMQC.MQIA_TRIGGER_CONTROL) == CMQC.MQTC_OFF
    assert inq(qm, local_queue, CMQC.MQCA_INITIATION_Q_NAME) == b" " * 48
    assert inq(qm, local_queue, CMQC.MQCA_TRIGGER_DATA) == b" " * 64


def test_xmitq_usage_is_transmission(qmgr, qm):
    """A USAGE XMITQ queue inquires MQIA_USAGE as MQUS_TRANSMISSION."""
    qmgr.catalog.define("QL", "XQ", usage="XMITQ")
    assert inq(qm, "XQ", CMQC.MQIA_USAGE) == CMQC.MQUS_TRANSMISSION


@pytest.mark.parametrize(("trigtype", "expected"), [("NONE", CMQC.MQTT_NONE),
                                                     ("FIRST", CMQC.MQTT_FIRST),
                                                     ("EVERY", CMQC.MQTT_EVERY),
                                                     ("DEPTH", CMQC.MQTT_DEPTH)])
def test_trigger_type_values(qmgr, qm, trigtype, expected):
    """TRIGTYPE NONE/FIRST/EVERY/DEPTH inquire as MQTT_NONE/FIRST/EVERY/DEPTH (0-3)."""
    qmgr.catalog.define("QL", "T.Q", trigtype=trigtype)
    assert inq(qm, "T.Q", CMQC.MQIA_TRIGGER_TYPE) == expected


def test_current_depth_follows_puts_gets_and_uncommitted_work(qm, local_queue):
    """CURRENT_Q_DEPTH counts messages, including puts not yet committed (IBM CURDEPTH)."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INPUT_SHARED
                    | CMQC.MQOO_INQUIRE)
    for data in (b"a", b"b", b"c"):
        q.put(data)
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3
    q.get()
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
    q.put(b"d", pymqi.MD(), pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT))
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 3
    qm.backout()
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
    q.close()


def test_inquire_on_handle_opened_for_output_and_inquire(qm, local_queue):
    """One handle opened OUTPUT|INQUIRE both puts and inquires (OPPROCS counts itself)."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT | CMQC.MQOO_INQUIRE)
    q.put(b"x")
    assert q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 1
    assert q.inquire(CMQC.MQIA_OPEN_OUTPUT_COUNT) == 1
    q.close()


def test_lazy_inquire_opens_for_inquire(qm, local_queue):
    """Queue(qm, name).inquire() opens with MQOO_INQUIRE (pymqi's deferred open)."""
    q = pymqi.Queue(qm, local_queue)
    assert q.inquire(CMQC.MQCA_Q_NAME) == padded(local_queue, 48)
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_OUTPUT):
        q.put(b"x")
    q.close()


# -- alias and remote definitions ---------------------------------------------------------------


@pytest.fixture
def alias(qmgr, local_queue):
    """An alias AQ of APP.Q with its own PUT, DEFPRTY and description."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue, put="DISABLED", defprty=6,
                        descr="alias of APP.Q")
    return "AQ"


def test_alias_attributes_are_the_alias_definition(qm, alias, local_queue):
    """MQINQ on an alias returns the alias's own attributes (IBM q026770_)."""
    assert inq(qm, alias, CMQC.MQIA_Q_TYPE) == CMQC.MQQT_ALIAS
    assert inq(qm, alias, CMQC.MQCA_Q_NAME) == padded(alias, 48)
    assert inq(qm, alias, CMQC.MQCA_BASE_Q_NAME) == padded(local_queue, 48)
    assert inq(qm, alias, CMQC.MQIA_INHIBIT_PUT) == CMQC.MQQA_PUT_INHIBITED
    assert inq(qm, alias, CMQC.MQIA_DEF_PRIORITY) == 6
    assert inq(qm, alias, CMQC.MQCA_Q_DESC) == padded("alias of APP.Q", 64)


@pytest.mark.parametrize("selector", [CMQC.MQIA_CURRENT_Q_DEPTH, CMQC.MQIA_OPEN_INPUT_COUNT,
                                      CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQIA_TRIGGER_TYPE])
def test_local_only_selector_on_alias_warns_selector_not_for_type(qm, alias, selector):
    """A local-queue selector on an alias completes MQCC_WARNING with 2068 (IBM q041360_)."""
    with raises_mq(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, comp=CMQC.MQCC_WARNING):
        inq(qm, alias, selector)


def test_alias_only_selector_on_local_queue_warns_selector_not_for_type(qm, local_queue):
    """MQCA_BASE_Q_NAME on a local queue completes MQCC_WARNING with 2068."""
    with raises_mq(CMQC.MQRC_SELECTOR_NOT_FOR_TYPE, comp=CMQC.MQCC_WARNING):
        inq(qm, local_queue, CMQC.MQCA_BASE_Q_NAME)


def test_remote_definition_attributes(qmgr, qm, local_queue):
    """MQINQ on a QR returns its local definition: RNAME, RQMNAME, XMITQ, type REMOTE."""
    qmgr.catalog.define("QL", "XQ", usage="XMITQ")
    qmgr.catalog.define("QR", "RQ", rname="TARGET", rqmname="OTHERQM", xmitq="XQ")
    assert inq(qm, "RQ", CMQC.MQIA_Q_TYPE) == CMQC.MQQT_REMOTE
    assert inq(qm, "RQ", CMQC.MQCA_Q_NAME) == padded("RQ", 48)
    assert inq(qm, "RQ", CMQC.MQCA_REMOTE_Q_NAME) == padded("TARGET", 48)
    assert inq(qm, "RQ", CMQC.MQCA_REMOTE_Q_MGR_NAME) == padded("OTHERQM", 48)
    assert inq(qm, "RQ", CMQC.MQCA_XMIT_Q_NAME) == padded("XQ", 48)


@pytest.mark.parametrize("selector", [CMQC.MQIA_MAX_PRIORITY, CMQC.MQCA_Q_MGR_NAME,
                                      CMQC.MQCA_APPL_ID, CMQC.MQIA_APPL_TYPE])
def test_selector_not_for_queues_fails_selector_error(qm, local_queue, selector):
    """A queue-manager or process selector on a queue fails MQCC_FAILED 2067 (IBM q041350_)."""
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        inq(qm, local_queue, selector)


def test_unknown_selector_fails_selector_error(qm, local_queue):
    """A number that is no selector at all fails MQRC_SELECTOR_ERROR."""
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        inq(qm, local_queue, 99999)


def test_inquire_not_open_for_inquire_fails(qm, local_queue):
    """MQINQ on a handle opened without MQOO_INQUIRE fails MQRC_NOT_OPEN_FOR_INQUIRE."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_INQUIRE):
        q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    q.close()


# -- process definitions ------------------------------------------------------------------------


@pytest.fixture
def processes(qmgr):
    """A TPF process P1 (program QZZ1) and a UNIX process P2 with every text attribute."""
    qmgr.catalog.define("PROC", "P1", applid="QZZ1")
    qmgr.catalog.define("PROC", "P2", appltype="UNIX", applid="/opt/app/run",
                        envdata="ENV=1", userdata="user stuff", descr="unix process")
    return qmgr


def process_od(name: str) -> pymqi.OD:
    """An object descriptor for a process definition."""
    return pymqi.OD(ObjectType=CMQC.MQOT_PROCESS, ObjectName=name.encode())


def test_process_attributes_by_selector(qm, processes):
    """MQINQ on a process (OD ObjectType MQOT_PROCESS) returns its definition's values."""
    p = pymqi.Queue(qm, process_od("P2"), CMQC.MQOO_INQUIRE)
    assert p.inquire(CMQC.MQCA_PROCESS_NAME) == padded("P2", 48)
    assert p.inquire(CMQC.MQCA_APPL_ID) == padded("/opt/app/run", 256)
    assert p.inquire(CMQC.MQIA_APPL_TYPE) == CMQC.MQAT_UNIX
    assert p.inquire(CMQC.MQCA_ENV_DATA) == padded("ENV=1", 128)
    assert p.inquire(CMQC.MQCA_USER_DATA) == padded("user stuff", 128)
    assert p.inquire(CMQC.MQCA_PROCESS_DESC) == padded("unix process", 64)
    p.close()


def test_tpf_process_appl_type_and_id(qm, processes):
    """A TPF process inquires APPL_TYPE MQAT_TPF (23) and its 4-character program as APPL_ID."""
    p = pymqi.Queue(qm, process_od("P1"), CMQC.MQOO_INQUIRE)
    assert p.inquire(CMQC.MQIA_APPL_TYPE) == CMQC.MQAT_TPF == 23
    assert p.inquire(CMQC.MQCA_APPL_ID) == padded("QZZ1", 256)
    p.close()


def test_queue_selector_on_process_fails_selector_error(qm, processes):
    """A queue selector on a process handle fails MQRC_SELECTOR_ERROR."""
    p = pymqi.Queue(qm, process_od("P1"), CMQC.MQOO_INQUIRE)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        p.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)
    p.close()


@pytest.mark.parametrize("options", [CMQC.MQOO_OUTPUT, CMQC.MQOO_INPUT_SHARED,
                                     CMQC.MQOO_BROWSE, CMQC.MQOO_SET])
def test_process_open_for_queue_use_fails_option_not_valid(qm, processes, options):
    """A process opened for output, input, browse or set fails MQRC_OPTION_NOT_VALID_FOR_TYPE."""
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        pymqi.Queue(qm, process_od("P1"), options)


def test_unknown_process_fails_unknown_object_name(qm, processes):
    """MQOPEN of a process that is not defined fails MQRC_UNKNOWN_OBJECT_NAME."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        pymqi.Queue(qm, process_od("NO.PROC"), CMQC.MQOO_INQUIRE)


def test_process_name_is_not_a_queue_name(qm, processes):
    """A process name opened as a queue (ObjectType MQOT_Q) is an unknown queue: 2085."""
    with raises_mq(CMQC.MQRC_UNKNOWN_OBJECT_NAME):
        pymqi.Queue(qm, "P1", CMQC.MQOO_INQUIRE)


# -- queue-manager attributes -------------------------------------------------------------------


def test_queue_manager_attributes(qmgr, qm):
    """qm.inquire returns the queue manager's name, MAXPRTY 9, SYNCPOINT and DEADQ."""
    assert qm.inquire(CMQC.MQCA_Q_MGR_NAME) == padded(qmgr.name, 48)
    assert qm.inquire(CMQC.MQIA_MAX_PRIORITY) == 9
    assert qm.inquire(CMQC.MQIA_SYNCPOINT) == CMQC.MQSP_AVAILABLE
    assert qm.inquire(CMQC.MQCA_DEAD_LETTER_Q_NAME) == padded("DEAD.LETTER.QUEUE", 48)


def test_queue_manager_profile_attributes(qmgr, qm):
    """qm.inquire of MAXMSGL and MAXUMSGS returns the profile (DEF MQP) values."""
    qmgr.catalog.alter("MQP", maxmsgl=65536, maxumsgs=123)
    assert qm.inquire(CMQC.MQIA_MAX_MSG_LENGTH) == 65536
    assert qm.inquire(CMQC.MQIA_MAX_UNCOMMITTED_MSGS) == 123


def test_queue_selector_on_queue_manager_fails_selector_error(qm):
    """A queue selector on the queue manager fails MQCC_FAILED MQRC_SELECTOR_ERROR."""
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        qm.inquire(CMQC.MQIA_CURRENT_Q_DEPTH)


def test_queue_manager_open_for_output_fails_option_not_valid(qm):
    """The queue-manager object opened for output fails MQRC_OPTION_NOT_VALID_FOR_TYPE."""
    desc = pymqi.OD(ObjectType=CMQC.MQOT_Q_MGR)
    with raises_mq(CMQC.MQRC_OPTION_NOT_VALID_FOR_TYPE):
        pymqi.Queue(qm, desc, CMQC.MQOO_OUTPUT)


def test_queue_manager_opened_by_od(qmgr, qm):
    """The queue manager opened with an OD of ObjectType MQOT_Q_MGR answers MQINQ."""
    q = pymqi.Queue(qm, pymqi.OD(ObjectType=CMQC.MQOT_Q_MGR), CMQC.MQOO_INQUIRE)
    assert q.inquire(CMQC.MQCA_Q_MGR_NAME) == padded(qmgr.name, 48)
    q.close()


# -- MQSET --------------------------------------------------------------------------------------


def test_set_inhibit_put_changes_definition_and_puts(qmgr, qm, local_queue):
    """MQSET INHIBIT_PUT changes the definition; later puts fail 2051 until it is allowed."""
    s = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    s.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert qmgr.catalog.get("QL", local_queue).put == "DISABLED"
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1(local_queue, b"x")
    s.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    assert qmgr.catalog.get("QL", local_queue).put == "ENABLED"
    qm.put1(local_queue, b"x")
    s.close()


def test_set_inhibit_get_changes_definition_and_gets(qmgr, qm, local_queue):
    """MQSET INHIBIT_GET changes the definition; later gets fail 2016 until it is allowed."""
    qm.put1(local_queue, b"x")
    s = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET | CMQC.MQOO_INPUT_SHARED)
    s.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    assert qmgr.catalog.get("QL", local_queue).get == "DISABLED"
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        s.get()
    s.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    assert s.get() == b"x"
    s.close()


def test_set_inhibit_put_stops_handle_already_putting(qmgr, qm, local_queue):
    """A handle that already put (maybe via a cached plan) sees a later MQSET put inhibit."""
    other = pymqi.connect(qmgr.name)
    putter = pymqi.Queue(other, local_queue, CMQC.MQOO_OUTPUT)
    putter.put(b"1")
    putter.put(b"2")
    s = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    s.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        putter.put(b"3")
    assert s.inquire(CMQC.MQIA_CURRENT_Q_DEPTH) == 2
    s.close()
    other.disconnect()


def test_set_inhibit_get_stops_handle_already_getting(qmgr, qm, local_queue):
    """A handle that already got (maybe via a cached plan) sees a later MQSET get inhibit."""
    for data in (b"1", b"2", b"3"):
        qm.put1(local_queue, data)
    other = pymqi.connect(qmgr.name)
    getter = pymqi.Queue(other, local_queue, CMQC.MQOO_INPUT_SHARED)
    assert getter.get() == b"1"
    assert getter.get() == b"2"
    s = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    s.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_INHIBITED)
    with raises_mq(CMQC.MQRC_GET_INHIBITED):
        getter.get()
    s.close()
    other.disconnect()


@pytest.mark.parametrize(("selector", "value", "attr", "stored"), [
    (CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON, "trigger", "YES"),
    (CMQC.MQIA_TRIGGER_TYPE, CMQC.MQTT_DEPTH, "trigtype", "DEPTH"),
    (CMQC.MQIA_TRIGGER_TYPE, CMQC.MQTT_NONE, "trigtype", "NONE"),
    (CMQC.MQIA_TRIGGER_DEPTH, 7, "trigdpth", 7),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, 5, "trigmpri", 5),
    (CMQC.MQCA_TRIGGER_DATA, b"NEW DATA", "trigdata", "NEW DATA"),
])
def test_set_trigger_attribute_changes_definition(qmgr, qm, local_queue, selector, value,
                                                  attr, stored):
    """MQSET of a trigger attribute changes the catalog definition and what MQINQ returns."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    q.set(selector, value)
    assert getattr(qmgr.catalog.get("QL", local_queue), attr) == stored
    expected = value.ljust(64) if isinstance(value, bytes) else value
    assert q.inquire(selector) == expected
    q.close()


def test_set_on_alias_changes_alias_only(qmgr, qm, local_queue):
    """MQSET INHIBIT_PUT on an alias handle changes the alias, not its target."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    a = pymqi.Queue(qm, "AQ", CMQC.MQOO_SET)
    a.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    a.close()
    assert qmgr.catalog.get("QA", "AQ").put == "DISABLED"
    assert qmgr.catalog.get("QL", local_queue).put == "ENABLED"
    with raises_mq(CMQC.MQRC_PUT_INHIBITED):
        qm.put1("AQ", b"x")
    qm.put1(local_queue, b"x")


@pytest.mark.parametrize("selector", [CMQC.MQIA_MAX_Q_DEPTH, CMQC.MQIA_DEF_PRIORITY,
                                      CMQC.MQCA_Q_DESC, CMQC.MQIA_CURRENT_Q_DEPTH])
def test_set_attribute_that_cannot_be_set_fails_selector_error(qmgr, qm, local_queue, selector):
    """MQSET of an attribute MQSET cannot change fails MQCC_FAILED MQRC_SELECTOR_ERROR."""
    before = qmgr.catalog.get("QL", local_queue)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    value = b"x" if selector >= CMQC.MQCA_FIRST else 1
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        q.set(selector, value)
    q.close()
    assert qmgr.catalog.get("QL", local_queue) == before


def test_set_trigger_attribute_on_alias_fails_selector_error(qmgr, qm, local_queue):
    """MQSET of a trigger attribute on an alias (not applicable to the type) fails 2067."""
    qmgr.catalog.define("QA", "AQ", targq=local_queue)
    a = pymqi.Queue(qm, "AQ", CMQC.MQOO_SET)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        a.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
    a.close()


def test_set_unknown_selector_fails_selector_error(qm, local_queue):
    """MQSET with a number that is no selector fails MQRC_SELECTOR_ERROR."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    with raises_mq(CMQC.MQRC_SELECTOR_ERROR):
        q.set(99999, 1)
    q.close()


def test_set_not_open_for_set_fails(qmgr, qm, local_queue):
    """MQSET on a handle opened without MQOO_SET fails MQRC_NOT_OPEN_FOR_SET, changing nothing."""
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_INQUIRE | CMQC.MQOO_OUTPUT)
    with raises_mq(CMQC.MQRC_NOT_OPEN_FOR_SET):
        q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_INHIBITED)
    assert qmgr.catalog.get("QL", local_queue).put == "ENABLED"
    q.close()


@pytest.mark.parametrize(("selector", "value", "reason"), [
    (CMQC.MQIA_TRIGGER_TYPE, 9, CMQC.MQRC_TRIGGER_TYPE_ERROR),
    (CMQC.MQIA_TRIGGER_CONTROL, 5, CMQC.MQRC_TRIGGER_CONTROL_ERROR),
    (CMQC.MQIA_TRIGGER_DEPTH, 0, CMQC.MQRC_TRIGGER_DEPTH_ERROR),
    (CMQC.MQIA_TRIGGER_MSG_PRIORITY, 10, CMQC.MQRC_TRIGGER_MSG_PRIORITY_ERR),
    (CMQC.MQIA_INHIBIT_PUT, 5, CMQC.MQRC_INHIBIT_VALUE_ERROR),
    (CMQC.MQIA_INHIBIT_GET, -3, CMQC.MQRC_INHIBIT_VALUE_ERROR),
])
def test_set_bad_value_fails_with_its_reason(qmgr, qm, local_queue, selector, value, reason):
    """MQSET with a value the attribute does not take fails with IBM's reason; nothing changes."""
    before = qmgr.catalog.get("QL", local_queue)
    q = pymqi.Queue(qm, local_queue, CMQC.MQOO_SET)
    with raises_mq(reason):
        q.set(selector, value)
    q.close()
    assert qmgr.catalog.get("QL", local_queue) == before
