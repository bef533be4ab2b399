"""Messages the queue manager puts itself (dead letters, expiration reports) are puts like
any other for triggering: seed 000, condition 1, "A message is put on a queue", with no
exception for the putter. IBM's DLQ handler can be "triggered based on criteria set on the
DLQ" (developerWorks, "Configuring the WebSphere MQ dead-letter queue handler",
http://www.ibm.com/developerworks/websphere/library/techarticles/1204_gupta/1204_gupta.html).
"""

from __future__ import annotations

import time

import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC


def test_a_dead_letter_put_by_the_queue_manager_triggers_the_dead_letter_queue(env):
    """A COA report for a reply queue that does not exist is dead-lettered by the queue
    manager; DEAD.LETTER.QUEUE, triggered FIRST, gets its trigger message."""
    env.cat.alter("QL", "DEAD.LETTER.QUEUE", trigger="YES", trigtype="FIRST",
                  initq="INIT.Q", process="APP.PROC")
    env.cat.define("QL", "DEST.Q")
    env.open_monitor()
    md = pymqi.MD(Report=CMQC.MQRO_COA, ReplyToQ=b"NO.SUCH.Q")
    env.qm.put1("DEST.Q", b"request", md, pymqi.PMO())
    env.quiet()
    assert env.depth("DEAD.LETTER.QUEUE") == 1
    assert env.trigger_qnames() == ["DEAD.LETTER.QUEUE"]


def test_an_expiration_report_triggers_its_reply_queue(env):
    """The expiration report the queue manager puts when it discards an expired message
    triggers the reply queue (EVERY) it arrives on."""
    env.app("REPLY.Q", trigtype="EVERY")
    env.cat.define("QL", "DEST.Q")
    env.open_monitor()
    md = pymqi.MD(Report=CMQC.MQRO_EXPIRATION, ReplyToQ=b"REPLY.Q", Expiry=1)
    env.qm.put1("DEST.Q", b"short-lived", md, pymqi.PMO())
    env.quiet()
    assert env.depth() == 0
    deadline = time.monotonic() + 2
    while env.s.qmgr.scan_expired("DEST.Q") == 0:
        assert time.monotonic() < deadline, "the message never expired"
        time.sleep(0.02)
    env.quiet()
    assert env.depth("REPLY.Q") == 1
    assert env.trigger_qnames() == ["REPLY.Q"]


def test_a_trigger_message_does_not_trigger_its_own_initiation_queue(env):
    """A trigger message (or its dead letter) evaluates no trigger conditions: an
    initiation queue triggered EVERY on itself gets one trigger message, not an endless
    chain (deviations.md)."""
    env.cat.alter("QL", "INIT.Q", trigger="YES", trigtype="EVERY", initq="INIT.Q",
                  process="APP.PROC")
    env.app()
    env.open_monitor()
    env.put()
    env.quiet()
    assert env.trigger_qnames() == ["APP.Q"]


def test_a_dead_lettered_trigger_message_triggers_the_dead_letter_queue(env):
    """IBM, "When triggering does not work" (WebSphere MQ 6 csqzal fg14050_): "Putting the
    trigger message on the dead-letter queue might generate a trigger message for that
    queue." INIT.Q refuses the trigger message (MAXMSGL 100 < 684); its dead letter
    triggers DEAD.LETTER.QUEUE, served through DLQ.INIT.Q."""
    env.cat.define("QL", "DLQ.INIT.Q")
    env.cat.alter("QL", "DEAD.LETTER.QUEUE", trigger="YES", trigtype="FIRST",
                  initq="DLQ.INIT.Q", process="APP.PROC")
    env.cat.alter("QL", "INIT.Q", maxmsgl=100)
    env.app()
    env.open_monitor()
    env.hold("DLQ.INIT.Q", CMQC.MQOO_INPUT_SHARED)  # the DLQ's trigger monitor
    env.put()
    env.quiet()
    assert env.depth("INIT.Q") == 0
    assert env.depth("DEAD.LETTER.QUEUE") == 1
    assert env.depth("DLQ.INIT.Q") == 1


def test_the_second_trigger_message_is_discarded_if_it_would_be_dead_lettered(env):
    """IBM, same page: "This second trigger message is discarded if it adds a message to the
    dead-letter queue." The DLQ's initiation queue refuses it too: only the first trigger
    message is on the dead-letter queue, and the console says the second was discarded."""
    env.cat.alter("QL", "DEAD.LETTER.QUEUE", trigger="YES", trigtype="EVERY",
                  initq="INIT.Q", process="APP.PROC")
    env.cat.alter("QL", "INIT.Q", maxmsgl=100)
    env.app()
    env.open_monitor()
    env.put()
    env.quiet()
    assert env.depth("DEAD.LETTER.QUEUE") == 1
    assert any("DISCARDED" in line for line in env.s.log), list(env.s.log)[-3:]
