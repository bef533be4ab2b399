"""SYSTEM.CHANNEL.SYNCQ is defined on first use by whichever agent needs it first. A
receiver and a sender that start together both ask for it: the one that does not define
it must still find a queue it can open, not a definition whose queue is not made yet
(a sender once ended abnormally with 2085 that way, in CI)."""

from __future__ import annotations

import threading
import time

from mca_helpers import start, unique

from tpfemu import mqi
from tpfemu.channels.syncstore import SYNCQ, ensure_syncq
from tpfemu.mqi import CMQC


def test_a_second_agent_waits_for_the_queue_the_first_is_defining():
    """While the first thread's DEFINE of the sync queue is still telling its listeners
    (held up here by a slow one, ahead of the queue manager's), a second thread's
    ensure_syncq returns only once the queue is made, and opening it then succeeds.
    (Looking the definition up first and defining only when absent returned at once,
    and the open failed 2085 MQRC_UNKNOWN_OBJECT_NAME.)"""
    system = start(unique("SY"))
    try:
        catalog = system.qmgr.catalog
        defining = threading.Event()

        def slow(event, old, new):
            if event == "define" and new is not None and new.name == SYNCQ:
                defining.set()
                time.sleep(0.5)

        # (first among the listeners, so the queue manager makes the queue after it)
        catalog._listeners.insert(0, slow)
        first = threading.Thread(target=ensure_syncq, args=(system.qmgr,))
        first.start()
        assert defining.wait(10)
        ensure_syncq(system.qmgr)
        qm = mqi.connect(system.name)
        try:
            queue = mqi.Queue(qm, SYNCQ, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
            queue.close()
        finally:
            qm.disconnect()
        first.join(10)
        assert not first.is_alive()
    finally:
        system.stop()
