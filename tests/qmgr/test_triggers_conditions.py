"""Triggering, IBM's model (INITQ set): the conditions for a trigger event, 1-10 and note 14.

Seed 000 (IBM, "Conditions for a trigger event") and seed 003 (the same list in Japanese);
mq-semantics §5. Trigger messages are checked on the initiation queue INIT.Q: an MQTM of
684 bytes in a message with Format MQTRIG, not persistent, unlimited expiry and the
initiation queue's default priority.

In this model the trigger message is put by the MQI call that causes it, so a check that
nothing triggered needs only a short settling wait after the dispatcher is idle.
"""

from __future__ import annotations

import threading
import time

import pytest
from trigger_helpers import INITQ_PRIORITY, blank

import tpfemu.mqi as pymqi
from ecb import Level
from tpfemu.mqi import CMQC

# -- condition 1: a message is put; the trigger message itself ---------------------------


def test_1_a_put_makes_one_trigger_message_with_ibm_values(env):
    """Condition 1, "A message is put on a queue.": the MQTM names the queue and the process's
    values, in an MQTRIG message, not persistent, unlimited expiry, at INIT.Q's DEFPRTY."""
    env.app()
    env.open_monitor()
    env.quiet()
    assert env.depth() == 0, "defining the queue is not a message put"
    env.put()
    found = env.triggers()
    assert len(found) == 1
    md, tm, length = found[0]
    assert length == 684
    assert bytes(tm.StrucId) == b"TM  " and tm.Version == 1
    assert bytes(tm.QName) == blank("APP.Q", 48)
    assert bytes(tm.ProcessName) == blank("APP.PROC", 48)
    assert bytes(tm.TriggerData) == blank("TRIGGER DATA", 64)
    assert tm.ApplType == CMQC.MQAT_TPF == 23
    assert bytes(tm.ApplId) == blank("PRG1", 256)
    assert bytes(tm.EnvData) == blank("ENV DATA", 128)
    assert bytes(tm.UserData) == blank("USER DATA", 128)
    assert bytes(md.Format) == CMQC.MQFMT_TRIGGER == b"MQTRIG  "
    assert md.Persistence == CMQC.MQPER_NOT_PERSISTENT
    assert md.Expiry == CMQC.MQEI_UNLIMITED
    assert md.Priority == INITQ_PRIORITY
    assert md.MsgType == CMQC.MQMT_DATAGRAM


def test_1_the_trigger_uses_the_process_values_in_force(env):
    """Condition 1: "A message is put on a queue." -- the MQTM carries APPLID, ENVDATA and USERDATA
    as the process says at the trigger event (after an ALTER PROC)."""
    env.app()
    env.open_monitor()
    env.cat.alter("PROC", "APP.PROC", applid="PRG2", envdata="NEW ENV", userdata="NEW USER")
    env.put()
    (_md, tm, _n), = env.triggers()
    assert bytes(tm.ApplId) == blank("PRG2", 256)
    assert bytes(tm.EnvData) == blank("NEW ENV", 128)
    assert bytes(tm.UserData) == blank("NEW USER", 128)


# -- condition 2: the priority threshold ----------------------------------------------------


def test_2_messages_below_trigmpri_do_not_trigger(env):
    """Condition 2, "The message has a priority greater than or equal to the threshold trigger
    priority of the queue": priorities 0-4 do not trigger with TRIGMPRI 5."""
    env.app(trigtype="EVERY", trigmpri=5)
    env.open_monitor()
    for priority in range(5):
        env.put(priority=priority)
    env.quiet()
    assert env.depth() == 0


def test_2_messages_at_or_above_trigmpri_trigger(env):
    """Condition 2, "greater than or equal to the threshold trigger priority": priorities 5 and 9
    each trigger (EVERY) with TRIGMPRI 5."""
    env.app(trigtype="EVERY", trigmpri=5)
    env.open_monitor()
    env.put(priority=5)
    assert env.depth() == 1
    env.put(priority=9)
    assert env.depth() == 2


def test_2_trigmpri_zero_any_message_qualifies(env):
    """Condition 2, "if it is set to zero, any message qualifies": a priority 0 message triggers."""
    env.app(trigtype="EVERY", trigmpri=0)
    env.open_monitor()
    env.put(priority=0)
    assert env.depth() == 1


# -- condition 3: the previous count ------------------------------------------------------


def test_3_first_triggers_only_when_previously_zero(env):
    """Condition 3, previously "Zero (for trigger type MQTT_FIRST)": the first message triggers, the
    second (queue not empty, TRIGINT not passed) does not."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    assert env.depth() == 1
    env.put()
    env.put()
    env.quiet()
    assert env.depth() == 1


def test_3_first_triggers_again_once_the_queue_was_emptied(env):
    """Condition 3, "Zero (for trigger type MQTT_FIRST)": after the queue is emptied (and closed),
    the next message finds zero and triggers again."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put()
    q = pymqi.Queue(env.qm, "APP.Q", CMQC.MQOO_INPUT_SHARED)
    q.get()
    q.close()
    assert env.depth() == 1
    env.put()
    assert env.depth() == 2


def test_3_every_triggers_for_each_message(env):
    """Condition 3, "Any number (for trigger type MQTT_EVERY)": five messages, five trigger
    messages."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    for _ in range(5):
        env.put()
    assert env.depth() == 5
    assert env.trigger_qnames() == ["APP.Q"] * 5


def test_3_depth_triggers_when_previously_trigdpth_minus_1(env):
    """Condition 3, "TriggerDepth minus 1 (for trigger type MQTT_DEPTH)": with TRIGDPTH 3 the third
    message triggers, not the first two."""
    env.app(trigtype="DEPTH", trigdpth=3)
    env.open_monitor()
    env.put()
    env.put()
    env.quiet()
    assert env.depth() == 0
    env.put()
    assert env.depth() == 1


def test_3_depth_counts_only_qualifying_priorities(env):
    """Condition 3, "The number of messages on the queue with priority greater than or equal to
    TriggerMsgPriority": low-priority messages do not count toward TRIGDPTH."""
    env.app(trigtype="DEPTH", trigdpth=2, trigmpri=5)
    env.open_monitor()
    env.put(priority=1)
    env.put(priority=7)
    env.put(priority=2)
    env.quiet()
    assert env.depth() == 0
    env.put(priority=5)
    assert env.depth() == 1


def test_3_expired_message_still_counts_until_discarded(env):
    """Condition 3 with mq-semantics §5 Expiry, "Expired messages count toward depth (including
    depth triggering) until discarded": an expired, undiscarded message is one of TRIGDPTH 2."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.qm.put1("APP.Q", b"short-lived", pymqi.MD(Expiry=1))  # a tenth of a second
    time.sleep(0.15)  # the expiry itself is under test here
    env.put()
    assert env.trigger_qnames() == ["APP.Q"]


# -- condition 3, note a: uncommitted messages count (COMMON NO) --------------------------------


def test_3a_syncpoint_put_triggers_but_the_message_appears_at_commit(env):
    """Note 3a and the note after 10: a syncpoint put can trigger; "the trigger message does not
    become available for retrieval by the trigger monitor application until the unit of work
    completes"."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    env.quiet()
    assert env.depth() == 0, "the trigger message must wait for the unit of work"
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3a_uncommitted_message_counts_for_first(env):
    """Note 3a, "the queue manager counts both committed and uncommitted messages": after an
    uncommitted put, another application's put finds the queue not empty and does not trigger
    FIRST."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    other = env.connect()
    env.put(qm=other)
    env.quiet()
    assert env.depth() == 0
    env.qm.commit()
    assert env.depth() == 1, "one trigger in all, delivered at commit"


def test_3a_uncommitted_message_counts_for_depth(env):
    """Note 3a, "counts both committed and uncommitted messages": one uncommitted and one committed
    message reach TRIGDPTH 2 and trigger at once."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(qm=env.connect())
    assert env.depth() == 1, "the committed put is the second qualifying message"


def test_3a_first_unit_of_work_of_several_messages_gives_one_trigger(env):
    """Condition 3, FIRST "Zero": in one unit of work only the first of 3 messages found the queue
    empty (uncommitted messages count), so the commit delivers exactly one trigger message."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    for _ in range(3):
        env.put(syncpoint=True)
    env.qm.commit()
    env.quiet()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3a_depth_unit_of_work_past_trigdpth_gives_one_trigger(env):
    """Condition 3, DEPTH "TriggerDepth minus 1": a unit of work putting 4 messages with TRIGDPTH 2
    makes one trigger event (the second message), so the commit delivers exactly one trigger
    message."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    for _ in range(4):
        env.put(syncpoint=True)
    env.qm.commit()
    env.quiet()
    assert env.trigger_qnames() == ["APP.Q"]
    assert env.cat.get("QL", "APP.Q").trigger == "NO"


def test_3a_first_trigger_delivered_at_backout(env):
    """Note after 10: available when the unit of work completes, "whether the unit of work is
    committed or, for trigger type MQTT_FIRST or MQTT_DEPTH, backed out" (FIRST)."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    env.qm.backout()
    assert env.depth("APP.Q") == 0
    assert env.trigger_qnames() == ["APP.Q"]


def test_3a_depth_trigger_delivered_at_backout(env):
    """Note after 10: "for trigger type MQTT_FIRST or MQTT_DEPTH, backed out" -- the DEPTH trigger
    is delivered at backout too."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(syncpoint=True)
    env.quiet()
    assert env.depth() == 0
    env.qm.backout()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3a_every_trigger_not_delivered_at_backout(env):
    """Note after 10: only "for trigger type MQTT_FIRST or MQTT_DEPTH" is the trigger delivered on
    backout, so EVERY's triggers are dropped."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(syncpoint=True)
    env.qm.backout()
    env.quiet()
    assert env.depth() == 0


def test_3a_every_triggers_delivered_at_commit(env):
    """Note after 10: an EVERY trigger in a unit of work is delivered when it "is committed", one
    per message."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(syncpoint=True)
    assert env.depth() == 0
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q", "APP.Q"]


# -- condition 3, note b: COMMON YES counts committed messages only -------------------------


def test_3b_common_yes_uncommitted_message_does_not_count(env):
    """Note 3b, "For local shared queues, the queue manager counts committed messages only": with
    TRIGDPTH 2, one uncommitted and one committed message do not trigger; the commit does."""
    env.app(trigtype="DEPTH", trigdpth=2, common="YES")
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(qm=env.connect())
    env.quiet()
    assert env.depth() == 0
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3b_common_yes_first_counts_committed_only(env):
    """Note 3b, "counts committed messages only": an uncommitted message leaves the committed count
    at zero, so another application's put triggers FIRST at once."""
    env.app(trigtype="FIRST", common="YES")
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(qm=env.connect())
    assert env.depth() == 1
    env.qm.commit()
    env.quiet()
    assert env.depth() == 1, "the committed count was already 1 when the first message committed"


def test_3b_common_yes_first_unit_of_work_of_several_messages_triggers(env):
    """Note 3b, "counts committed messages only": a unit of work putting 3 messages to an empty
    COMMON YES FIRST queue makes the committed count go from zero, so its commit must trigger
    once."""
    env.app(trigtype="FIRST", common="YES")
    env.open_monitor()
    for _ in range(3):
        env.put(syncpoint=True)
    env.qm.commit()
    env.quiet()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3b_common_yes_depth_unit_of_work_crossing_trigdpth_triggers(env):
    """Note 3b with condition 3 DEPTH: a unit of work putting 3 messages to an empty COMMON YES
    queue with TRIGDPTH 2 reaches TriggerDepth when it commits, so it must trigger once."""
    env.app(trigtype="DEPTH", trigdpth=2, common="YES")
    env.open_monitor()
    for _ in range(3):
        env.put(syncpoint=True)
    env.qm.commit()
    env.quiet()
    assert env.trigger_qnames() == ["APP.Q"]


def test_3b_common_yes_backout_gives_no_trigger(env):
    """Note 3b, "counts committed messages only": backed-out messages were never committed, so no
    trigger (FIRST)."""
    env.app(trigtype="FIRST", common="YES")
    env.open_monitor()
    env.put(syncpoint=True)
    env.qm.backout()
    env.quiet()
    assert env.depth() == 0


# -- condition 4: no application has the queue open for input (FIRST, DEPTH) -----------------


@pytest.mark.parametrize("trigtype, trigdpth", [("FIRST", 1), ("DEPTH", 1)])
def test_4_input_opener_prevents_first_and_depth(env, trigtype, trigdpth):
    """Condition 4, "For triggering of type FIRST or DEPTH, no program has the application queue
    open for removing messages": an input handle prevents the trigger."""
    env.app(trigtype=trigtype, trigdpth=trigdpth)
    env.open_monitor()
    env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.quiet()
    assert env.input_count("APP.Q") == 1
    assert env.depth() == 0


def test_4_browse_opener_does_not_prevent_first(env):
    """Condition 4, "open for removing messages (that is, the OpenInputCount local queue attribute
    is zero)": a browse handle is not input, FIRST still triggers."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.hold("APP.Q", CMQC.MQOO_BROWSE)
    env.put()
    assert env.depth() == 1


def test_4_input_opener_does_not_prevent_every(env):
    """Condition 4 is "For triggering of type FIRST or DEPTH" only: EVERY triggers with the queue
    open for input."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.put()
    assert env.input_count("APP.Q") == 1
    assert env.depth() == 2


# -- condition 5: gets not inhibited on the application queue ----------------------------------


@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_5_get_inhibited_application_queue_does_not_trigger(env, trigtype):
    """Condition 5, "get requests for it are not inhibited (that is, the InhibitGet queue attribute
    is MQQA_GET_ALLOWED)": GET DISABLED prevents the trigger."""
    env.app(trigtype=trigtype, trigdpth=1, get="DISABLED")
    env.assert_put_does_not_trigger()


def test_5_get_inhibited_transmission_queue_does_not_trigger(env):
    """Condition 5, "if the triggered application queue is one with a Usage attribute of MQUS_XMITQ,
    get requests for it are not inhibited": a GET DISABLED XMITQ does not trigger."""
    env.app("XMIT.Q", usage="XMITQ", process="", trigtype="EVERY", get="DISABLED")
    env.assert_put_does_not_trigger("XMIT.Q")


# -- condition 6: a defined process, or a transmission queue without one -------------------------


def test_6_named_process_must_exist(env):
    """Condition 6, "the process definition object identified by that attribute has been created": a
    queue naming an undefined process does not trigger."""
    env.app(process="NO.SUCH.PROC", trigtype="EVERY")
    env.assert_put_does_not_trigger()


def test_6_normal_queue_with_blank_process_does_not_trigger(env):
    """Condition 6: a blank ProcessName qualifies only if "the queue is a transmission queue", so a
    normal queue without a process does not trigger."""
    env.app(process="", trigtype="EVERY")
    env.assert_put_does_not_trigger()


def test_6_transmission_queue_with_blank_process(env):
    """Condition 6, transmission queue with blank ProcessName: "QName: queue name, ProcessName:
    blanks, TriggerData: trigger data, ApplType: MQAT_UNKNOWN, ApplId: blanks, EnvData: blanks,
    UserData: blanks"."""
    env.app("XMIT.Q", usage="XMITQ", process="", trigtype="FIRST", trigdata="TO.CHANNEL")
    env.open_monitor()
    env.put("XMIT.Q")
    (md, tm, length), = env.triggers()
    assert length == 684
    assert bytes(tm.QName) == blank("XMIT.Q", 48)
    assert bytes(tm.ProcessName) == blank("", 48)
    assert bytes(tm.TriggerData) == blank("TO.CHANNEL", 64)
    assert tm.ApplType == CMQC.MQAT_UNKNOWN == -1
    assert bytes(tm.ApplId) == blank("", 256)
    assert bytes(tm.EnvData) == blank("", 128)
    assert bytes(tm.UserData) == blank("", 128)
    assert bytes(md.Format) == CMQC.MQFMT_TRIGGER


def test_6_process_defined_later_is_used(env):
    """Condition 6, "has been created": once the named process is defined, the next qualifying put
    triggers (EVERY)."""
    env.app(process="LATE.PROC", trigtype="EVERY")
    env.open_monitor()
    env.put()
    env.cat.define("PROC", "LATE.PROC", applid="LATE")
    env.put()
    (_md, tm, _n), = env.triggers()
    assert bytes(tm.ProcessName) == blank("LATE.PROC", 48)
    assert bytes(tm.ApplId) == blank("LATE", 256)


# -- condition 7: a usable initiation queue -------------------------------------------------


def test_7_initiation_queue_must_exist(env):
    """Condition 7, "An initiation queue has been created, and has been specified in the
    InitiationQName local queue attribute": INITQ naming no queue gives no trigger."""
    env.app(initq="NO.SUCH.INITQ", trigtype="EVERY")
    env.assert_put_does_not_trigger()
    assert "NO.SUCH.INITQ" not in env.s.qmgr.queues


@pytest.mark.parametrize("attrs", [{"get": "DISABLED"}, {"put": "DISABLED"}],
                         ids=["get-inhibited", "put-inhibited"])
def test_7_initiation_queue_must_allow_get_and_put(env, attrs):
    """Condition 7, "Get requests are not inhibited for the initiation queue" and "Put requests must
    not be inhibited for the initiation queue": either inhibit prevents the trigger."""
    env.app(trigtype="EVERY")
    env.open_monitor()
    env.cat.alter("QL", "INIT.Q", **attrs)
    env.put()
    env.quiet()
    assert env.depth() == 0


def test_7_initiation_queue_usage_must_be_normal(env):
    """Condition 7, "The Usage attribute of the initiation queue must be MQUS_NORMAL": an XMITQ as
    initiation queue gives no trigger."""
    env.cat.define("QL", "XMIT.INIT", usage="XMITQ")
    env.app(initq="XMIT.INIT", trigtype="EVERY")
    env.hold("XMIT.INIT", CMQC.MQOO_INPUT_SHARED)
    env.put()
    env.quiet()
    assert env.input_count("XMIT.INIT") == 1
    assert env.depth("XMIT.INIT") == 0


def test_7_initiation_queue_must_be_a_local_queue(env):
    """Condition 7, "An initiation queue has been created" (a local queue): INITQ naming an alias of
    INIT.Q gives no trigger message."""
    env.cat.define("QA", "ALIAS.INIT", targq="INIT.Q")
    env.app(initq="ALIAS.INIT", trigtype="EVERY")
    env.assert_put_does_not_trigger()


def test_7_trigger_message_that_cannot_be_put_goes_to_the_dead_letter_queue(env):
    """IBM, "When triggering does not work" (mq-semantics §5): "If a trigger message is created but
    cannot be put on the initiation queue (for example, because the queue is full ...), the trigger
    message is put instead on the dead-letter (undelivered message) queue"."""
    env.cat.alter("QL", "INIT.Q", maxdepth=1)
    env.app(trigtype="EVERY")
    env.open_monitor()
    env.put()
    assert env.depth() == 1
    env.put()  # INIT.Q is full now
    assert env.depth() == 1
    assert env.depth("DEAD.LETTER.QUEUE") == 1, (
        f"the second trigger message was not dead-lettered; console: {list(env.s.log)[-1:]}")


# -- condition 8: a trigger monitor has the initiation queue open for input -------------------


def test_8_no_trigger_without_initq_input_opener(env):
    """Condition 8, "A trigger monitor currently has the initiation queue open for removing
    messages": with nobody holding INIT.Q for input, no trigger message."""
    env.app(trigtype="EVERY")
    env.hold("INIT.Q", CMQC.MQOO_OUTPUT | CMQC.MQOO_BROWSE)  # open, but not for input
    env.put()
    env.quiet()
    assert env.input_count("INIT.Q") == 0
    assert env.depth() == 0


def test_8_own_input_handle_plays_the_monitor(env):
    """Condition 8, "the OpenInputCount local queue attribute is greater than zero": an application
    holding INIT.Q for input enables the trigger; after it closes, none."""
    env.app(trigtype="EVERY")
    monitor = env.open_monitor()
    env.put()
    assert env.depth() == 1
    monitor.close()
    env.put()
    env.quiet()
    assert env.depth() == 1


def test_8_builtin_trigger_monitor_serves_the_initiation_queue(env):
    """Condition 8 with the built-in trigger monitor ("A trigger monitor currently has the
    initiation queue open"): the put triggers and the monitor starts PRG1 with the MQTMC2."""
    started = threading.Event()
    seen: list[bytes] = []

    def prg1(ecb):
        seen.append(bytes(ecb.block(Level.D0)[:732]))
        started.set()

    env.s.programs.load("PRG1", prg1)
    env.app(trigtype="FIRST")
    env.s.start_trigger_monitor("INIT.Q")
    env.put()
    assert started.wait(5), f"PRG1 was not started; console: {list(env.s.log)}"
    assert seen[0][:4] == b"TMC " and seen[0][8:56] == blank("APP.Q", 48)


# -- condition 9: TRIGGER on; condition 10: TRIGTYPE not NONE ---------------------------------


def test_9_trigger_off_no_trigger(env):
    """Condition 9, "The trigger control (TriggerControl local queue attribute) for the application
    queue is set to MQTC_ON": TRIGGER NO gives no trigger."""
    env.app(trigger="NO", trigtype="EVERY")
    env.assert_put_does_not_trigger()


def test_10_trigtype_none_no_trigger(env):
    """Condition 10, "The trigger type (TriggerType local queue attribute) is not MQTT_NONE":
    TRIGTYPE NONE gives no trigger."""
    env.app(trigtype="NONE")
    env.open_monitor()
    env.put()
    env.put()
    env.quiet()
    assert env.depth() == 0


def test_depth_trigger_switches_trigger_control_off(env):
    """mq-semantics §5 DEPTH: "after writing the trigger message the QM sets TriggerControl = OFF"
    -- TRIGGER becomes NO and further messages do not trigger (condition 9)."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.put()
    assert env.cat.get("QL", "APP.Q").trigger == "YES"
    env.put()
    assert env.depth() == 1
    assert env.cat.get("QL", "APP.Q").trigger == "NO"
    for _ in range(3):
        env.put()
    env.quiet()
    assert env.depth() == 1


def test_first_and_every_do_not_switch_trigger_control_off(env):
    """Only DEPTH switches TriggerControl off (mq-semantics §5): FIRST and EVERY keep TRIGGER YES
    after triggering."""
    env.app(trigtype="FIRST")
    env.app("EVERY.Q", trigtype="EVERY")
    env.open_monitor()
    env.put()
    env.put("EVERY.Q")
    assert env.depth() == 2
    assert env.cat.get("QL", "APP.Q").trigger == "YES"
    assert env.cat.get("QL", "EVERY.Q").trigger == "YES"


# -- note 14: MSGDLVSQ ------------------------------------------------------------------------


@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_14_fifo_trigmpri_above_defprty_never_triggers(env, trigtype):
    """Note 14, MSGDLVSQ FIFO: "If TriggerMsgPriority is set to a higher value than the default
    priority of the queue, no messages are triggered" (even a priority 9 message)."""
    env.app(trigtype=trigtype, trigdpth=1, msgdlvsq="FIFO", defprty=3, trigmpri=4)
    env.open_monitor()
    env.put(priority=9)
    env.put(priority=4)
    env.quiet()
    assert env.depth() == 0


@pytest.mark.parametrize("trigmpri", [3, 2])
@pytest.mark.parametrize("trigtype", ["FIRST", "EVERY", "DEPTH"])
def test_14_fifo_trigmpri_at_or_below_defprty_triggers(env, trigtype, trigmpri):
    """Note 14: "If TriggerMsgPriority is set equal to or lower than the default priority of the
    queue, triggering occurs for type FIRST, EVERY, and DEPTH" (even for a priority 0 message)."""
    env.app(trigtype=trigtype, trigdpth=1, msgdlvsq="FIFO", defprty=3, trigmpri=trigmpri)
    env.open_monitor()
    env.put(priority=0)
    assert env.trigger_qnames() == ["APP.Q"]


def test_14_priority_low_messages_leave_effective_depth_zero(env):
    """Note 14, MSGDLVSQ PRIORITY: "if you put 100 messages of lower priority than the
    TriggerMsgPriority, the effective queue depth for triggering purposes is still zero" -- the next
    qualifying message triggers FIRST."""
    env.app(trigtype="FIRST", msgdlvsq="PRIORITY", trigmpri=5)
    env.open_monitor()
    for _ in range(100):
        env.put(priority=4)
    env.quiet()
    assert env.depth() == 0
    env.put(priority=5)
    assert env.trigger_qnames() == ["APP.Q"]
