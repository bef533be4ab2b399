"""Triggering and units of work: a trigger generated in a unit of work is made at the
trigger event and delivered when the unit of work ends.

IBM, "Properties of trigger messages"
(https://www.ibm.com/docs/SSFKSJ_9.2.0/com.ibm.mq.dev.doc/q027000_.htm): trigger messages
are created with the trigger attribute values in force at the trigger event; when the
message that caused one was put in a unit of work, changes to the attributes before the
unit of work ends have no effect on it, and disabling triggering does not stop it.
IBM, MaxUncommittedMsgs
(https://www.ibm.com/docs/en/ibm-mq/9.1.x?topic=manager-maxuncommittedmsgs-mqlong): trigger
messages generated for messages put with MQPMO_SYNCPOINT count as uncommitted messages.
IBM, PutApplType / PutApplName (q097630, q097620): a message the queue manager generates
has PutApplType MQAT_QMGR and the queue manager's name as PutApplName.
"""

from __future__ import annotations

import pytest
from trigger_helpers import blank

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC


def test_held_trigger_message_has_the_values_in_force_at_the_trigger_event(env):
    """Process and queue attributes altered between a syncpoint put and its commit do not
    change the trigger message the put generated."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    env.cat.alter("PROC", "APP.PROC", applid="PRG2", envdata="NEW ENV", userdata="NEW USER")
    env.cat.alter("QL", "APP.Q", trigdata="NEW DATA")
    env.qm.commit()
    (_md, tm, _n), = env.triggers()
    assert bytes(tm.ApplId) == blank("PRG1", 256)
    assert bytes(tm.EnvData) == blank("ENV DATA", 128)
    assert bytes(tm.UserData) == blank("USER DATA", 128)
    assert bytes(tm.TriggerData) == blank("TRIGGER DATA", 64)


def test_disabling_triggering_before_commit_does_not_stop_the_held_trigger(env):
    """"Disabling triggering" after the trigger event does not prevent the trigger message
    being made available at commit."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    env.cat.alter("QL", "APP.Q", trigger="NO")
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q"]


def test_first_trigger_is_delivered_at_backout_after_trigtype_changed(env):
    """The FIRST trigger of a syncpoint put is delivered at backout (seed 000, the note
    after condition 10) even if TRIGTYPE was changed to EVERY meanwhile: the type in force
    at the trigger event decides."""
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)
    env.cat.alter("QL", "APP.Q", trigtype="EVERY", trigger="NO")  # no trigger point (13)
    env.qm.backout()
    assert env.depth("APP.Q") == 0
    assert env.trigger_qnames() == ["APP.Q"]


def test_depth_trigger_control_re_enabled_before_commit_stays_on(env):
    """TriggerControl goes off when the DEPTH trigger message is generated (at the put),
    not again when it is delivered: switched back on before the commit, it stays on."""
    env.app(trigtype="DEPTH", trigdpth=2)
    env.open_monitor()
    env.put(syncpoint=True)
    env.put(syncpoint=True)
    assert env.cat.get("QL", "APP.Q").trigger == "NO"
    env.hold("APP.Q", CMQC.MQOO_INPUT_SHARED)  # condition 4: ALTER is no trigger point now
    env.cat.alter("QL", "APP.Q", trigger="YES")
    assert env.depth() == 0
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q"]
    assert env.cat.get("QL", "APP.Q").trigger == "YES"


def test_trigger_message_counts_toward_maxumsgs(env):
    """MAXUMSGS 3: a syncpoint put that generates a trigger message holds two uncommitted
    messages, so the third syncpoint put fails MQRC_SYNCPOINT_LIMIT_REACHED (2024)."""
    env.cat.alter("MQP", maxumsgs=3)
    env.app(trigtype="FIRST")
    env.open_monitor()
    env.put(syncpoint=True)  # the message and its trigger message
    env.put(syncpoint=True)  # no trigger (FIRST: the queue was not empty)
    with pytest.raises(pymqi.MQMIError) as info:
        env.put(syncpoint=True)
    assert info.value.reason == CMQC.MQRC_SYNCPOINT_LIMIT_REACHED
    env.qm.commit()
    assert env.trigger_qnames() == ["APP.Q"]
    assert env.depth("APP.Q") == 2


@pytest.mark.parametrize("syncpoint", [False, True])
def test_trigger_message_origin_context_is_the_queue_managers(env, syncpoint):
    """The trigger message is put by the queue manager: PutApplType MQAT_QMGR, PutApplName
    the queue manager's name (blank padded to 28)."""
    env.app()
    env.open_monitor()
    env.put(syncpoint=syncpoint)
    if syncpoint:
        env.qm.commit()
    (md, _tm, _n), = env.triggers()
    assert md.PutApplType == CMQC.MQAT_QMGR
    assert bytes(md.PutApplName) == blank(env.s.qmgr.name, 28)
