"""The built-in trigger monitor: serves one initiation queue, as IBM's runmqtrm does.

It runs only where an operator or a program starts it for a named initiation queue
(``System.start_trigger_monitor(name)``), never by itself. It needs only the queue
manager: a connection, its console and its triggers (which start entries through the
queue manager's entry port). It opens the initiation queue for input (which is itself a
trigger point: queues with messages waiting get their trigger), then gets trigger
messages (MQTM) with a wait. For each it starts the process's program as a new entry
with the MQTMC2 on data level 0, or CUIR with MQMD + MQTM on D0 when the trigger message
names no process. A message that is not a valid MQTM goes to the dead-letter queue with
Reason MQFB_TM_ERROR, as IBM's runmqtrm puts a message it cannot use there.

A trigger message is got under syncpoint and committed once its entry is created; if the
program is not loaded, the monitor says so on the console, backs the get out (the trigger
stays on the initiation queue) and tries again after ``retry`` seconds.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mq.headers import TM
from tpfemu.mq.structs import GMO, MD

if TYPE_CHECKING:
    from tpfemu.qmgr.manager import QueueManager

__all__ = ["TriggerMonitor"]


class TriggerMonitor:
    """A trigger monitor thread for one initiation queue of ``qmgr``."""

    def __init__(self, qmgr: QueueManager, initq: str, *, wait_ms: int = 200,
                 retry: float = 1.0) -> None:
        self.qmgr = qmgr
        self.initq = initq
        self.wait_ms = wait_ms
        self.retry = retry
        self.started = 0  # entries started
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._error: BaseException | None = None

    def start(self) -> TriggerMonitor:
        """Open the initiation queue and start serving it.

        :raises MQMIError: the initiation queue cannot be opened (e.g. 2085).
        """
        self._thread = threading.Thread(target=self._run, name=f"trigmon-{self.initq}",
                                        daemon=True)
        self._thread.start()
        self._ready.wait(5)
        if self._error is not None:
            raise self._error
        return self

    def stop(self) -> None:
        """Stop serving (the initiation queue is closed)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    def __repr__(self) -> str:
        return f"TriggerMonitor({self.initq!r}, started={self.started})"

    def _run(self) -> None:
        from tpfemu.qmgr.mqget import get

        qmgr = self.qmgr
        try:
            conn = qmgr.connect(appl_name="TRIGMON")
            handle = conn.open(self.initq, cmqc.MQOO_INPUT_SHARED)
        except BaseException as exc:  # noqa: B036 - reported to start()
            self._error = exc
            self._ready.set()
            return
        self._ready.set()
        gmo = GMO(Options=cmqc.MQGMO_WAIT | cmqc.MQGMO_SYNCPOINT, WaitInterval=self.wait_ms)
        try:
            while not self._stop.is_set():
                md = MD()
                try:
                    data = get(conn, handle, None, md, gmo)
                except errors.NoMessageAvailable:
                    continue
                except errors.MQMIError as exc:
                    if exc.reason in (cmqc.MQRC_Q_MGR_STOPPING, cmqc.MQRC_HCONN_ERROR,
                                      cmqc.MQRC_HOBJ_ERROR, cmqc.MQRC_Q_DELETED):
                        return
                    qmgr.console(f"MQSC0920E {qmgr.cpu} TRIGGER MONITOR "
                                 f"{self.initq}: {exc.reason_name}")
                    self._stop.wait(self.retry)
                    continue
                self._serve(conn, data, md)
        finally:
            if conn.connected:
                conn.end(commit=False)

    def _serve(self, conn: Any, data: bytes, md: MD) -> None:
        if (bytes(md.Format) != cmqc.MQFMT_TRIGGER or len(data) < 684
                or bytes(data[:4]) != b"TM  "):
            # IBM, "How RUNMQTRM detects errors": a message it cannot use goes to the
            # dead-letter queue behind an MQDLH whose Reason is a feedback code;
            # MQFB_TM_ERROR: not a valid MQTM (MQDLH, Reason).
            fields = {"Format": bytes(md.Format), "Encoding": md.Encoding,
                      "CodedCharSetId": md.CodedCharSetId, "MsgType": md.MsgType}
            sent = self.qmgr.dead_letter(data, fields, cmqc.MQFB_TM_ERROR, self.initq, "",
                                         correl_id=bytes(md.CorrelId),
                                         priority=md.Priority)
            where = "SENT TO THE DEAD-LETTER QUEUE" if sent else "DISCARDED"
            self.qmgr.console(f"MQSC0921W {self.qmgr.cpu} TRIGGER MONITOR {self.initq}: "
                              f"A MESSAGE THAT IS NOT AN MQTM WAS {where}")
            conn.commit()
            return
        tm = TM().unpack(data[:684])
        if self.qmgr.triggers.activate(tm, md):
            self.started += 1
            conn.commit()
        else:
            conn.backout()  # the trigger stays on the initiation queue
            self._stop.wait(self.retry)
