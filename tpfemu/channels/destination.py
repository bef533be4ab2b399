"""Where a receiver puts each message it receives (seed 004, "Middle Hop Routing").

The receiving MCA opens the destination its MQXQH names (RemoteQName at RemoteQMgrName)
as an application would, and the queue manager resolves it by its usual rules
(:mod:`tpfemu.qmgr.resolve`): a local queue (directly, or through an alias or a local
definition of a remote queue naming this queue manager), a queue-manager alias, a queue
manager whose name is a transmission queue's, or — a middle hop — another queue
manager's transmission queue, where the put adds a new MQXQH for the next channel.

The put is in the batch's unit of work and passes the whole MQMD along
(MQPMO_SET_ALL_CONTEXT: MsgId, CorrelId, priority, persistence, reply-to, identity and
origin context as sent; Expiry as it arrived, already reduced by the time the message
spent on the sending side's transmission queue).

A message that cannot be put goes to the dead-letter queue, in the same unit of work,
behind an MQDLH giving the reason and the destination it was meant for; the batch's
STATUS then carries the DLQ_USED flag. If the dead-letter queue cannot take it either,
:class:`NoDeadLetterQueue` is raised: the batch is backed out and the channel stops, as
IBM's does. As IBM's MCA, :meth:`Deliverer.undeliverable` follows the message's Report
options: MQRO_DISCARD_MSG discards it instead, and MQRO_EXCEPTION (with or without data)
sends an exception report, Feedback the reason, to its ReplyToQ at its ReplyToQMgr, in
the same unit of work (IBM, "What happens when a message cannot be delivered?"). On a
FAST channel a nonpersistent message that cannot be dead-lettered either is lost (IBM:
the channel does not stop for it): ``"lost"`` is returned and the agent says so.

A nonpersistent message received on a FAST receiver goes to the system's ROUTC bridge
entry point (:class:`tpfemu.channels.ports.FastDelivery`), never to a queue; without a
bridge, or when the bridge raises, it is dead-lettered with reason
:data:`REASON_NO_BRIDGE` (MQFB_APPL_CANNOT_BE_STARTED) and destination
:data:`BRIDGE_DEST`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from tpfemu import errors
from tpfemu.channels.ports import FastDelivery
from tpfemu.mq import cmqc
from tpfemu.mq.structs import MD, OD, PMO
from tpfemu.mqi import api as mqi
from tpfemu.qmgr import plans, reports
from tpfemu.qmgr.manager import DLQ_NAME
from tpfemu.qmgr.mqmd import dead_letter_fields, dead_letter_header

__all__ = ["BRIDGE_DEST", "REASON_NO_BRIDGE", "Deliverer", "NoDeadLetterQueue"]

#: The DLH reason of a fast nonpersistent message no bridge could take.
REASON_NO_BRIDGE = cmqc.MQFB_APPL_CANNOT_BE_STARTED
#: The DLH DestQName of such a message: the ROUTC bridge entry point.
BRIDGE_DEST = "ROUTC.BRIDGE"
_OPEN = cmqc.MQOO_OUTPUT | cmqc.MQOO_SET_ALL_CONTEXT | cmqc.MQOO_FAIL_IF_QUIESCING
_PUT = cmqc.MQPMO_SYNCPOINT | cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_FAIL_IF_QUIESCING
_PUT_NOW = cmqc.MQPMO_NO_SYNCPOINT | cmqc.MQPMO_SET_ALL_CONTEXT | cmqc.MQPMO_FAIL_IF_QUIESCING
_CACHE = 64  # open destinations kept per receiver


class NoDeadLetterQueue(errors.TpfEmuError):
    """A message could be put neither where it was going nor on the dead-letter queue."""


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace").strip()
    return str(value).strip()


class Deliverer:
    """Puts a receiver's messages through one MQI connection (the receiver's). ``bridge``
    gives the system's bridge entry point at the time of each fast message (None: none).

    :ivar dlq_used: a message of the current batch went to the dead-letter queue (reset
        by :meth:`batch_done`).
    """

    def __init__(self, qm: mqi.QueueManager, channel: str, qmgr_name: str,
                 bridge: Callable[[], FastDelivery | None] = lambda: None) -> None:
        self.qm = qm
        self.channel = channel
        self.qmgr_name = qmgr_name
        self.bridge = bridge
        self.dlq_used = False
        self.dead_lettered = 0
        self._open: OrderedDict[tuple[Any, Any], mqi.Queue] = OrderedDict()
        self._pmo = PMO(Options=_PUT)  # (an MQPUT only writes its outputs into it)
        self._raw_pmo = bytearray(PMO(Version=cmqc.MQPMO_VERSION_1, Options=_PUT).pack())

    def _queue(self, qname: Any, qmgr: Any) -> mqi.Queue:
        """The open destination named ``qname`` at ``qmgr`` (text, or blank-padded bytes
        as an MQXQH carries them: the cache is keyed by the names as given)."""
        key = (qname, qmgr)
        queue = self._open.get(key)
        if queue is not None:
            self._open.move_to_end(key)
            return queue
        queue = mqi.Queue(self.qm, OD(ObjectName=_text(qname).encode(),
                                      ObjectQMgrName=_text(qmgr).encode()), _OPEN)
        self._open[key] = queue
        if len(self._open) > _CACHE:
            _, old = self._open.popitem(last=False)
            self._close(old)
        return queue

    @staticmethod
    def _close(queue: mqi.Queue) -> None:
        try:
            queue.close()
        except errors.MQMIError:
            pass

    def forget(self) -> None:
        """Close the destinations opened so far (their definitions may have changed)."""
        while self._open:
            self._close(self._open.popitem()[1])

    def deliver(self, remote_q: str | bytes, remote_qmgr: str | bytes, md: MD, data: bytes,
                *, fast: bool = False) -> str:
        """Put one received message in the batch's unit of work; returns where it went:
        ``"queue"``, ``"bridge"`` or ``"dlq"``. The names may be text or the MQXQH's
        blank-padded bytes.

        :raises NoDeadLetterQueue: it could not be dead-lettered either.
        """
        if fast and md.Persistence != cmqc.MQPER_PERSISTENT:
            return self._to_bridge(md, data)
        try:
            self._queue(remote_q, remote_qmgr).put(data, md, self._pmo)
            return "queue"
        except errors.MQMIError as exc:
            if exc.comp == errors.MQCC_WARNING:
                return "queue"  # put, with a warning
            self._drop((remote_q, remote_qmgr))
            reason = exc.reason
        return self.undeliverable(md, data, reason, _text(remote_q), _text(remote_qmgr),
                                  fast=fast)

    def put_plain(self, remote_q: bytes, remote_qmgr: bytes, md: bytearray, data: bytes
                  ) -> bool:
        """:meth:`deliver`'s put of a message to a queue, when the destination is open
        already and its handle's put plan serves the call: by the plan's raw entry (the
        one a C program's MQPUT takes), with ``md`` the MQMD as the message came (version
        1, native layout, which the call may write into). True once put; False, having
        done nothing, otherwise (the put refused too, as a full queue refuses it): then
        :meth:`deliver` puts it (through the full path, which makes the plan, or
        dead-letters it)."""
        queue = self._open.get((remote_q, remote_qmgr))
        if queue is None:
            return False
        handle = queue.get_handle()
        if handle is None:
            return False
        try:
            return plans.planned_put_raw(handle.put_plan, data, md, self._raw_pmo)
        except errors.MQMIError as exc:
            # put with a warning; else refused, nothing changed: :meth:`deliver` puts it
            # through the full path, which fails the same way and dead-letters it
            return exc.comp == errors.MQCC_WARNING

    def deliver_now(self, remote_q: str, remote_qmgr: str, md: MD, data: bytes) -> str:
        """A FAST channel's nonpersistent message, sent outside any batch: to the bridge,
        else to the dead-letter queue, at once (outside syncpoint)."""
        del remote_q, remote_qmgr  # a fast nonpersistent message never goes to a queue
        return self._to_bridge(md, data, syncpoint=False)

    def _drop(self, key: tuple[Any, Any]) -> None:
        queue = self._open.pop(key, None)
        if queue is not None:
            self._close(queue)

    def _to_bridge(self, md: MD, data: bytes, *, syncpoint: bool = True) -> str:
        bridge = self.bridge()  # the one installed now
        reason = REASON_NO_BRIDGE
        if bridge is not None:
            try:
                bridge.deliver(self.channel, md, data)
                return "bridge"
            except errors.MQMIError as exc:  # refused, with the MQ reason why
                reason = exc.reason
            except Exception:  # noqa: BLE001 - the bridge could not deliver: dead-letter
                pass
        return self.undeliverable(md, data, reason, BRIDGE_DEST, self.qmgr_name,
                                  syncpoint=syncpoint, fast=True)

    def undeliverable(self, md: MD, data: bytes, reason: int, dest_q: str, dest_qmgr: str,
                      *, syncpoint: bool = True, fast: bool = False) -> str:
        """A message that could not be delivered to ``dest_q`` at ``dest_qmgr`` for
        ``reason``, as IBM's MCA treats one: discarded when its Report has
        MQRO_DISCARD_MSG, else dead-lettered (:meth:`dead_letter`); then, when its Report
        asks for an exception report, one is sent (Feedback ``reason``) to its ReplyToQ
        at its ReplyToQMgr. Both in the batch's unit of work (``syncpoint`` False: at
        once). Returns ``"discarded"`` or ``"dlq"``; ``"lost"`` for a nonpersistent
        message on a ``fast`` channel that could not be dead-lettered (no report then).

        :raises NoDeadLetterQueue: it could not be dead-lettered (and is not lost).
        """
        discard = bool(md.Report & cmqc.MQRO_DISCARD_MSG)
        if not discard:
            try:
                self.dead_letter(md, data, reason, dest_q, dest_qmgr, syncpoint=syncpoint)
            except NoDeadLetterQueue:
                if fast and md.Persistence != cmqc.MQPER_PERSISTENT:
                    return "lost"
                raise
        made = reports.make(reports.EXCEPTION, md.get(), data, msg_id=md.MsgId,
                            correl_id=md.CorrelId, priority=md.Priority,
                            persistent=md.Persistence == cmqc.MQPER_PERSISTENT,
                            deadline=reports.deadline_of(md.Expiry),
                            qmgr_name=self.qmgr_name, feedback=reason)
        if made is not None:
            reports.send(self.qm.connection, made, reports.EXCEPTION, md.MsgId, syncpoint)
        return "discarded" if discard else "dlq"

    def dead_letter(self, md: MD, data: bytes, reason: int, dest_q: str, dest_qmgr: str, *,
                    syncpoint: bool = True) -> None:
        """Put ``data`` behind an MQDLH on the dead-letter queue, in the batch's unit of
        work (``syncpoint`` False: at once), the MQMD kept but for Format MQDEAD and the
        MQDLH's Encoding and CCSID, as IBM's MCA does.

        :raises NoDeadLetterQueue: the dead-letter queue could not take it.
        """
        dlh = dead_letter_header(reason, dest_q, dest_qmgr or self.qmgr_name, fmt=md.Format,
                                 encoding=md.Encoding, ccsid=md.CodedCharSetId,
                                 appl_type=cmqc.MQAT_QMGR, appl_name=self.qmgr_name)
        dl_md = MD(**dead_letter_fields(md.get()))
        try:
            self._queue(DLQ_NAME, "").put(dlh.pack() + data, dl_md,
                                          PMO(Options=_PUT if syncpoint else _PUT_NOW))
        except errors.MQMIError as exc:
            self._drop((DLQ_NAME, ""))
            raise NoDeadLetterQueue(
                f"channel {self.channel}: a message for {dest_q} at {dest_qmgr} failed with "
                f"{errors.reason_name(reason)} and the dead-letter queue {DLQ_NAME} refused it"
                f" ({exc.reason_name})") from exc
        self.dlq_used = True
        self.dead_lettered += 1

    def batch_done(self) -> None:
        """The batch ended (committed or backed out): clear :attr:`dlq_used`."""
        self.dlq_used = False
