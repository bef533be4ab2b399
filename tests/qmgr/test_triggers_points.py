"""Triggering, IBM's model (INITQ set): the additional trigger points 11-13 and note 1.

Seed 000 (IBM, "Conditions for a trigger event", items 11-13 and the closing notes) and
mq-semantics §5 "Additional trigger points". The environment (System, INIT.Q, APP.PROC,
browsing INIT.Q) is the one of test_triggers_conditions.
"""

from __future__ import annotations

import sys
import threading
import time

import pytest
from trigger_helpers import Env, blank

import tpfemu.mqi as pymqi
from ecb import Level
from tpfemu.mqi import CMQC


def wait_until(predicate, timeout: float = 2.0) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds pass (bounded)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.005)
    return True


def put_timed(env: Env, since: float, limit: float) -> None:
    """Put one message, skipping the test if ``limit`` seconds passed since ``since`` first."""
    env.put()
    if time.monotonic() - since >= limit:
        pytest.skip("the machine was too slow to put within the trigger interval")


# -- 11: FIRST re-trigger after TRIGINT; DEPTH with TriggerDepth or more ----------------------


def test_11_first_retriggers_after_trigint(env):
    """Point 11, "Was not previously empty (MQTT_FIRST)" and "a sufficient interval (TriggerInterval
    queue-manager attribute) has elapsed since the last trigger message was written": with TRIGINT
    100 ms a put after 150 ms triggers again, one before does not."""
    env.cat.alter("MQP", trigint=100)
    env.app(trigtype="FIRST")
    env.open_monitor()
    start = time.monotonic()
    env.put()
    assert env.depth() == 1
    put_timed(env, start, 0.1)
    assert env.depth() == 1, "within TRIGINT of the last trigger message: no duplicate"
    time.sleep(0.15)  # the trigger interval itself is under test here
    again = time.monotonic()
    env.put()
    assert env.depth() == 2
    put_timed(env, again, 0.1)
    assert env.depth() == 2
    assert env.s.qmgr.queues["APP.Q"].trigger_state["fired"] == 2


def test_11_first_trigint_default_prevents_retrigger(env):
    """Point 11 with the default TRIGINT (999 999 999 ms): "The purpose of the trigger interval is
    to reduce the number of duplicate trigger messages", so more messages on a non-empty FIRST queue
    do not trigger."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    for _ in range(5):
        env.put()
    env.quiet()
    assert env.depth() == 1


def test_11_first_retrigger_still_needs_conditions_2_to_10(env):
    """Point 11, "conditions 2 through 10 (excluding 3) are satisfied": after TRIGINT, a put with
    the queue open for input (condition 4) does not trigger FIRST again."""
    env.cat.alter("MQP", trigint=50)
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    time.sleep(0.1)  # the trigger interval itself is under test here
    env.put()
    env.quiet()
    assert env.depth() == 1
    assert server.get_handle() is not None


def test_11_first_retrigger_when_no_trigger_message_was_ever_written(env):
    """Point 11, "Was not previously empty (MQTT_FIRST)" with "a sufficient interval ... has elapsed
    since the last trigger message was written": more than TRIGINT after start and with no trigger
    message ever written (the process was missing), the next put triggers."""
    env.cat.alter("MQP", trigint=50)
    env.app(trigtype="FIRST", process="LATE.PROC")
    env.open_monitor()
    env.put()  # condition 6 not met: no trigger, and the queue is no longer empty
    env.cat.define("PROC", "LATE.PROC", applid="LATE")
    time.sleep(0.1)  # the trigger interval itself is under test here
    env.put()
    assert env.trigger_qnames() == ["APP.Q"]


def test_11_depth_message_arriving_with_trigdpth_or_more_on_the_queue(env):
    """Point 11, "A suitable message is placed on the queue, for a TriggerType of ... MQTT_DEPTH,
    and the queue ... Had TriggerDepth or more messages": once the missing process exists, the next
    put to a queue already holding 3 messages (TRIGDPTH 2) triggers."""
    env.app(trigtype="DEPTH", trigdpth=2, process="LATE.PROC")
    env.open_monitor()
    for _ in range(3):
        env.put()  # condition 6 not met: no trigger, TRIGGER stays on
    assert env.depth() == 0
    assert env.cat.get("QL", "APP.Q").trigger == "YES"
    env.cat.define("PROC", "LATE.PROC", applid="LATE")
    env.put()
    assert env.trigger_qnames() == ["APP.Q"]


# -- 12: the last input handle closes with messages left ----------------------------------


def test_12_first_last_input_close_with_a_message_left(env):
    """Point 12, "The only application serving a queue issues an MQCLOSE call, for a TriggerType of
    MQTT_FIRST ... and there is at least: One (MQTT_FIRST)": the close triggers."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.quiet()
    assert env.depth() == 0, "condition 4: the server has the queue open"
    server.close()
    assert env.trigger_qnames() == ["APP.Q"]


def test_12_only_the_last_input_handle_closing_triggers(env):
    """Point 12, "The only application serving a queue issues an MQCLOSE call": closing one of two
    input handles does not trigger, closing the second does."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    first = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    second = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    first.close()
    env.quiet()
    assert env.depth() == 0
    second.close()
    assert env.depth() == 1


def test_12_depth_needs_trigdpth_messages_at_close(env):
    """Point 12, "there is at least ... TriggerDepth (MQTT_DEPTH) messages on the queue": with
    TRIGDPTH 3, a close with 2 messages does not trigger, a close with 3 does."""
    env.app(trigtype="DEPTH", trigdpth=3)
    env.open_monitor()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.put()
    server.close()
    env.quiet()
    assert env.depth() == 0
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    server.close()
    assert env.trigger_qnames() == ["APP.Q"]
    assert env.cat.get("QL", "APP.Q").trigger == "NO"


def test_12_close_of_an_empty_queue_does_not_trigger(env):
    """Point 12 needs "at least: One (MQTT_FIRST)" message: closing the last input handle of an
    empty queue does not trigger."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED).close()
    env.quiet()
    assert env.depth() == 0


def test_12_close_counts_only_messages_of_sufficient_priority(env):
    """Point 12, "messages on the queue of sufficient priority (condition 2)": a close leaving only
    a priority 1 message (TRIGMPRI 5) does not trigger."""
    env.app(trigtype="FIRST", trigmpri=5)
    env.open_monitor()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put(priority=1)
    server.close()
    env.quiet()
    assert env.depth() == 0


def test_12_close_does_not_trigger_every(env):
    """Point 12 is "for a TriggerType of MQTT_FIRST or MQTT_DEPTH": an EVERY queue's last close adds
    no trigger message."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.put()
    assert env.depth() == 2
    server.close()
    env.quiet()
    assert env.depth() == 2


def test_12_close_needs_a_trigger_monitor(env):
    """Point 12, "conditions 6 through 10 are also satisfied" (8: a trigger monitor has the
    initiation queue open): without one, the close does not trigger."""
    env.app(trigtype="FIRST")
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    server.close()
    env.quiet()
    assert env.depth() == 0


def test_12_close_with_the_application_queue_get_inhibited(env):
    """Point 12 requires only "conditions 6 through 10" (condition 5, GET not inhibited, is not
    among them): the last close of a GET DISABLED FIRST queue holding a message triggers."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.cat.alter("QL", "APP.Q", get="DISABLED")
    server.close()
    assert env.trigger_qnames() == ["APP.Q"]


def test_12b_backout_before_close_triggers(env):
    """Point 12 note b, "If the program serving the application queue backs out its get request ...
    before it closes the queue, the same happens": the restored message triggers at close."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    server_qm = env.connect()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED, qm=server_qm)
    env.put()
    server.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    server_qm.backout()
    server.close()
    assert env.trigger_qnames() == ["APP.Q"]


def test_12b_close_before_backout_of_the_only_message_does_not_trigger(env):
    """Point 12 note b, "if the program closes the queue before backing out the get request, and the
    queue is otherwise empty, no trigger message is created"."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    server_qm = env.connect()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED, qm=server_qm)
    env.put()
    server.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
    server.close()
    env.quiet()
    assert env.depth() == 0, "the only message was got (uncommitted): the queue is empty"
    server_qm.backout()


def test_note1_close_trigger_is_not_in_a_unit_of_work(env):
    """Note 1, "From step 12 ... the trigger message is not put as part of a unit of work": closing
    inside a connection's open unit of work makes the trigger message available at once, and a
    backout keeps it."""
    env.app(trigtype="FIRST")
    env.cat.define("QL", "OTHER.Q")
    env.open_monitor()
    server_qm = env.connect()
    server = env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED, qm=server_qm)
    env.put()
    env.put("OTHER.Q", syncpoint=True, qm=server_qm)  # the server's unit of work is open
    server.close()
    assert env.trigger_qnames() == ["APP.Q"]
    server_qm.backout()
    assert env.trigger_qnames() == ["APP.Q"]


# -- 13: MQSET or a command changes the trigger attributes ----------------------------------


def test_13_alter_trigger_on_with_a_message_waiting(env):
    """Point 13, "TriggerControl is changed to MQTC_ON ... and there is at least: One (MQTT_FIRST or
    MQTT_EVERY)": ALTER TRIGGER YES triggers for the waiting message."""
    env.app(trigger="NO", trigtype="FIRST")
    env.assert_put_does_not_trigger()
    env.cat.alter("QL", "APP.Q", trigger="YES")
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_mqset_trigger_control_on(env):
    """Point 13, "The following conditions are satisfied using MQSET": MQSET MQIA_TRIGGER_CONTROL to
    MQTC_ON triggers for the waiting message."""
    env.app(trigger="NO", trigtype="FIRST")
    env.open_monitor()
    env.put()
    q = pymqi.Queue(env.qm, "APP.Q")
    q.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
    q.close()
    assert env.cat.get("QL", "APP.Q").trigger == "YES"
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_mqset_every_with_several_messages_gives_one_trigger(env):
    """Note 1, "if the TriggerType is MQTT_EVERY, and if there are one or more messages on the
    application queue, only one trigger message is generated": MQSET TRIGGER ON with 3 messages
    gives one."""
    env.app(trigger="NO", trigtype="EVERY")
    env.open_monitor()
    for _ in range(3):
        env.put()
    pymqi.Queue(env.qm, "APP.Q").set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_depth_trigger_on_with_trigdpth_messages(env):
    """Point 13, "at least ... TriggerDepth (MQTT_DEPTH) messages": ALTER TRIGGER YES on a DEPTH
    queue holding TRIGDPTH messages triggers once, and TRIGGER goes back to NO."""
    env.app(trigger="NO", trigtype="DEPTH", trigdpth=3)
    env.open_monitor()
    for _ in range(3):
        env.put()
    env.cat.alter("QL", "APP.Q", trigger="YES")
    assert env.trigger_qnames() == ["APP.Q"]
    assert wait_until(lambda: env.cat.get("QL", "APP.Q").trigger == "NO"), (
        "after a DEPTH trigger TriggerControl must be off")


def test_13_depth_trigger_control_is_off_when_mqset_returns(env):
    """mq-semantics §5 DEPTH, "after writing the trigger message the QM sets TriggerControl = OFF":
    when the MQSET that caused a DEPTH trigger returns, MQINQ already shows MQTC_OFF."""
    env.app(trigger="NO", trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.put()
    env.put()
    q = pymqi.Queue(env.qm, "APP.Q", CMQC.MQOO_SET | CMQC.MQOO_INQUIRE)
    old = sys.getswitchinterval()
    sys.setswitchinterval(0.5)  # MQSET then MQINQ with no thread switch between them
    try:
        q.set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
        control = q.inquire(CMQC.MQIA_TRIGGER_CONTROL)
    finally:
        sys.setswitchinterval(old)
    assert env.depth() == 1, "the trigger message is written by the MQSET"
    assert control == CMQC.MQTC_OFF
    q.close()


def test_13_depth_trigger_on_with_fewer_than_trigdpth_messages(env):
    """Point 13 needs "at least ... TriggerDepth (MQTT_DEPTH) messages": ALTER TRIGGER YES with 2 of
    TRIGDPTH 3 does not trigger."""
    env.app(trigger="NO", trigtype="DEPTH", trigdpth=3)
    env.open_monitor()
    env.put()
    env.put()
    env.cat.alter("QL", "APP.Q", trigger="YES")
    env.quiet()
    assert env.depth() == 0


def test_13_trigger_on_for_an_empty_queue_does_not_trigger(env):
    """Point 13 needs "at least: One (MQTT_FIRST or MQTT_EVERY)" message: turning TRIGGER on for an
    empty queue does not trigger."""
    env.app(trigger="NO", trigtype="EVERY")
    env.open_monitor()
    env.cat.alter("QL", "APP.Q", trigger="YES")
    env.quiet()
    assert env.depth() == 0


def test_13_trigger_on_counts_only_messages_of_sufficient_priority(env):
    """Point 13, "messages on the queue of sufficient priority (condition 2)": with only priority 1
    messages and TRIGMPRI 5, TRIGGER YES does not trigger."""
    env.app(trigger="NO", trigtype="FIRST", trigmpri=5)
    env.open_monitor()
    env.put(priority=1)
    env.cat.alter("QL", "APP.Q", trigger="YES")
    env.quiet()
    assert env.depth() == 0


def test_13_changing_trigtype_with_trigger_on(env):
    """Point 13, "TriggerControl is already MQTC_ON and the value of either TriggerType ... is
    changed": FIRST to EVERY with a message waiting gives another trigger message."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    assert env.depth() == 1
    env.cat.alter("QL", "APP.Q", trigtype="EVERY")
    assert env.depth() == 2


def test_13_changing_trigmpri_with_trigger_on(env):
    """Point 13, "the value of either TriggerType, TriggerMsgPriority ... is changed": lowering
    TRIGMPRI to the waiting message's priority triggers."""
    env.app(trigtype="EVERY", trigmpri=5)
    env.open_monitor()
    env.put(priority=3)
    assert env.depth() == 0
    q = pymqi.Queue(env.qm, "APP.Q")
    q.set(CMQC.MQIA_TRIGGER_MSG_PRIORITY, 3)
    q.close()
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_changing_trigdpth_of_a_depth_queue(env):
    """Point 13, "or TriggerDepth (if relevant) is changed": lowering TRIGDPTH of a DEPTH queue from
    5 to 3 with 3 messages waiting triggers."""
    env.app(trigtype="DEPTH", trigdpth=5)
    env.open_monitor()
    for _ in range(3):
        env.put()
    assert env.depth() == 0
    env.cat.alter("QL", "APP.Q", trigdpth=3)
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_changing_trigdpth_of_a_first_queue_is_not_a_trigger_point(env):
    """Point 13, "TriggerDepth (if relevant) is changed": TRIGDPTH is not relevant to a FIRST queue,
    so changing it adds no trigger message."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    assert env.depth() == 1
    env.cat.alter("QL", "APP.Q", trigdpth=5)
    env.quiet()
    assert env.depth() == 1


def test_13_changing_trigger_data_is_not_a_trigger_point(env):
    """Point 13 lists only "TriggerControl", "TriggerType, TriggerMsgPriority, or TriggerDepth":
    changing TRIGDATA adds no trigger message."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    env.cat.alter("QL", "APP.Q", trigdata="OTHER DATA")
    env.quiet()
    assert env.depth() == 1


def test_13_trigger_on_excludes_condition_8(env):
    """Point 13, "conditions 4 through 10 (excluding 8)": TRIGGER YES with no trigger monitor
    holding INIT.Q still puts the trigger message."""
    env.app(trigger="NO", trigtype="FIRST")
    env.put()
    assert env.input_count("INIT.Q") == 0
    env.cat.alter("QL", "APP.Q", trigger="YES")
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_trigger_on_needs_condition_4(env):
    """Point 13, "conditions 4 through 10": TRIGGER YES on a FIRST queue open for input does not
    trigger."""
    env.app(trigger="NO", trigtype="FIRST")
    env.open_monitor()
    env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.cat.alter("QL", "APP.Q", trigger="YES")
    env.quiet()
    assert env.depth() == 0


def test_13_initq_put_allowed_again_one_trigger_per_queue(env):
    """Point 13, "The InhibitPut queue attribute of an initiation queue changes from
    MQQA_PUT_INHIBITED to MQQA_PUT_ALLOWED ... (One trigger message is generated for each such queue
    satisfying the conditions.)"."""
    env.cat.alter("QL", "INIT.Q", put="DISABLED")
    env.app("FIRST.Q", trigtype="FIRST")
    env.app("EVERY.Q", trigtype="EVERY")
    env.app("EMPTY.Q", trigtype="FIRST")
    env.open_monitor()
    env.put("FIRST.Q")
    for _ in range(3):
        env.put("EVERY.Q")
    env.quiet()
    assert env.depth() == 0
    q = pymqi.Queue(env.qm, "INIT.Q")
    q.set(CMQC.MQIA_INHIBIT_PUT, CMQC.MQQA_PUT_ALLOWED)
    q.close()
    assert sorted(env.trigger_qnames()) == ["EVERY.Q", "FIRST.Q"]


def test_13_initq_put_allowed_needs_a_trigger_monitor(env):
    """Point 13 (initiation queue PUT allowed), "conditions 4 through 10 are also satisfied" -- 8
    included: with no monitor holding INIT.Q, no trigger message."""
    env.cat.alter("QL", "INIT.Q", put="DISABLED")
    env.app(trigtype="FIRST")
    env.put()
    env.cat.alter("QL", "INIT.Q", put="ENABLED")
    env.quiet()
    assert env.depth() == 0


def test_13_application_get_allowed_again(env):
    """Point 13, "The InhibitGet queue attribute of an application queue changes from
    MQQA_GET_INHIBITED to MQQA_GET_ALLOWED": an EVERY queue holding 3 messages gets one trigger
    message."""
    env.app(trigtype="EVERY", get="DISABLED")
    env.open_monitor()
    for _ in range(3):
        env.put()
    env.quiet()
    assert env.depth() == 0
    q = pymqi.Queue(env.qm, "APP.Q")
    q.set(CMQC.MQIA_INHIBIT_GET, CMQC.MQQA_GET_ALLOWED)
    q.close()
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_application_get_allowed_needs_a_trigger_monitor(env):
    """Point 13 (application GET allowed), "conditions 4 through 10, excluding 5" -- 8 included:
    with no monitor holding INIT.Q, no trigger message."""
    env.app(trigtype="FIRST", get="DISABLED")
    env.put()
    env.cat.alter("QL", "APP.Q", get="ENABLED")
    env.quiet()
    assert env.depth() == 0


def test_13_monitor_opening_the_initq_one_trigger_per_queue(env):
    """Point 13, "A trigger-monitor application issues an MQOPEN call for input from an initiation
    queue ... (one trigger message is generated for each such queue satisfying the conditions)"."""
    env.app("FIRST.Q", trigtype="FIRST")
    env.app("EVERY.Q", trigtype="EVERY")
    env.app("DEPTH.Q", trigtype="DEPTH", trigdpth=2)
    env.app("SHORT.Q", trigtype="DEPTH", trigdpth=3)
    env.app("EMPTY.Q", trigtype="EVERY")
    env.put("FIRST.Q")
    for _ in range(3):
        env.put("EVERY.Q")
    for _ in range(2):
        env.put("DEPTH.Q")
        env.put("SHORT.Q")
    assert env.depth() == 0, "condition 8: no trigger monitor yet"
    env.open_monitor()
    assert sorted(env.trigger_qnames()) == ["DEPTH.Q", "EVERY.Q", "FIRST.Q"]


def test_13_monitor_open_only_when_no_other_input_opener(env):
    """Point 13, "and no other application has the initiation queue open for input": a second input
    open of INIT.Q adds no trigger messages."""
    env.app(trigtype="EVERY")
    env.put()
    env.open_monitor()
    assert env.depth() == 1
    env.hold("INIT.Q", CMQC.MQOO_INPUT_SHARED)
    env.quiet()
    assert env.depth() == 1


def test_13_monitor_open_trigger_is_not_in_a_unit_of_work(env):
    """Note 1, "the trigger message is not put as part of a unit of work": the monitor's MQOPEN
    inside a TPF commit scope that is rolled back leaves the trigger message on INIT.Q."""
    env.app(trigtype="FIRST")
    env.cat.define("QL", "OTHER.Q")
    env.put()
    pymqi.tx_begin()
    try:
        env.put("OTHER.Q", syncpoint=True)
        env.open_monitor()
        assert env.trigger_qnames() == ["APP.Q"]
    finally:
        pymqi.tx_rollback()
    assert env.depth("OTHER.Q") == 0
    assert env.trigger_qnames() == ["APP.Q"]


def test_note1_mqset_trigger_is_not_in_a_unit_of_work(env):
    """Note 1, "the trigger message is not put as part of a unit of work": MQSET TRIGGER ON from a
    connection with an open unit of work makes the trigger message available at once, and MQBACK
    keeps it."""
    env.app(trigger="NO", trigtype="EVERY")
    env.cat.define("QL", "OTHER.Q")
    env.open_monitor()
    env.put()
    env.put("OTHER.Q", syncpoint=True)
    pymqi.Queue(env.qm, "APP.Q").set(CMQC.MQIA_TRIGGER_CONTROL, CMQC.MQTC_ON)
    assert env.trigger_qnames() == ["APP.Q"]
    env.qm.backout()
    assert env.trigger_qnames() == ["APP.Q"]


def test_13_builtin_monitor_start_serves_waiting_queues(env):
    """Point 13, "This is to allow for messages arriving on queues while the trigger monitor is not
    running": starting the built-in monitor starts PRG1 for the queue that already holds a
    message."""
    started = threading.Event()
    seen: list[bytes] = []

    def prg1(ecb):
        seen.append(bytes(ecb.block(Level.D0)[:732]))
        started.set()

    env.s.programs.load("PRG1", prg1)
    env.app(trigtype="FIRST")
    env.put()
    assert env.depth() == 0
    env.s.start_trigger_monitor("INIT.Q")
    assert started.wait(5), f"PRG1 was not started; console: {list(env.s.log)}"
    assert seen[0][8:56] == blank("APP.Q", 48)
    assert wait_until(lambda: env.depth() == 0)
