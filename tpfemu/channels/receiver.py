"""The receiving message channel agent (RCVR), started by CMQL for each connection.

The Internet daemon's MQS server (``ZINET ADD S-MQS P-TCP MODEL-AOR PORT-1414 PGM-CMQL``)
hands each connection to program CMQL (:func:`tpfemu.channels.manager.cmql`), which
takes the socket over and starts a :class:`Receiver` thread, a service of the System, so
that the channel does not hold an I-stream for its whole life.

A session (docs/channels.md):

1. The sender's ID names the channel. An undefined channel is refused with STATUS
   NO_CHANNEL, another type with CHANNEL_WRONG_TYPE, a stopped or already running one
   with CHANNEL_UNAVAILABLE, values that cannot be negotiated with the negotiation's
   status (WRAP_VALUE_ERROR for unequal SEQWRAP): each with ERROR|CLOSE_CHANNEL and a
   console message. Otherwise our ID answers with the negotiated values.
2. RESYNC: STATUS(OK) with value 1 when its LUWID is the last batch this end committed,
   else 0. RESET: the sequence number to continue from.
3. MESSAGE_DATA: segments are reassembled; each message is checked against the expected
   sequence number (MSG_SEQUENCE_ERROR stops the channel) and put, in the batch's unit of
   work, where its MQXQH sends it (:mod:`tpfemu.channels.destination`). The segment with
   CONFIRM_REQUEST ends the batch: the channel's synchronisation record is written in
   the same unit of work, it is committed, and STATUS(OK) answers (DLQ_USED when a
   message went to the dead-letter queue). On a FAST channel a nonpersistent message
   (sequence number 0) is handled at once, outside any batch.
4. HEARTBEAT requests are answered. STATUS with CLOSE_CHANNEL ends the session; so does
   silence beyond twice the heartbeat interval. An unfinished batch is backed out.

Every answer is in the byte order of the sender's ID.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING

from tpfemu import errors
from tpfemu.channels.destination import BRIDGE_DEST, Deliverer, NoDeadLetterQueue
from tpfemu.channels.state import ChannelStatus
from tpfemu.channels.syncstore import SyncRecord, SyncStore
from tpfemu.mq import cmqc
from tpfemu.mq.structs import MD
from tpfemu.mqi import api as mqi
from tpfemu.wire.fap import (
    ControlFlags,
    FapError,
    InitialData,
    NegotiationError,
    Reassembler,
    Segment,
    SegmentType,
    StatusCode,
    decode_id,
    decode_message,
    decode_reset,
    decode_resync,
    decode_status,
    encode_id,
    heartbeat_segment,
    negotiate,
    status_segment,
)
from tpfemu.wire.fap.message import PLAIN_DATA_AT, PLAIN_MD_AT, read_plain
from tpfemu.wire.link import Link, LinkDown

if TYPE_CHECKING:
    from tpfemu.channels.manager import ChannelManager

__all__ = ["Receiver"]

ID_TIMEOUT = 30.0  # seconds for the sender's ID to arrive
_REFUSE = ControlFlags.ERROR | ControlFlags.CLOSE_CHANNEL
_CONFIRM = int(ControlFlags.CONFIRM_REQ)


class _Stop(Exception):
    """End the session, having answered with ``status`` (None: just close)."""

    def __init__(self, text: str, status: StatusCode | None = None) -> None:
        super().__init__(text)
        self.status = status


class Receiver:
    """One receiver session on an accepted connection (see the module docstring)."""

    def __init__(self, manager: ChannelManager, link: Link, peer: str) -> None:
        self.manager = manager
        self.link = link
        self.peer = peer
        self.name = ""
        self.status = ChannelStatus("")  # the channel's, once its ID names it
        self.stopping = False
        self.big = False  # the sender's byte order (its ID's), which the answers use
        self.thread = threading.Thread(target=self._run, name=f"MCA RCVR {peer}", daemon=True)

    def start(self) -> Receiver:
        self.thread.start()
        return self

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def stop(self, mode: str = "QUIESCE", timeout: float = 5.0) -> None:
        """End the session (the sender sees the connection close and retries)."""
        self.stopping = True
        self.link.shutdown()
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout)

    def _say(self, severity_id: str, text: str) -> None:
        what = f"CHL {self.name}" if self.name else f"CONNECTION FROM {self.peer}"
        self.manager.say(f"CHNL{severity_id} {self.manager.cpu} {what} {text}")

    def _refuse(self, status: StatusCode, text: str) -> None:
        self._say("0111E", f"REFUSED WITH STATUS {status.name}: {text}")
        try:
            self.link.send(status_segment(status, flags=_REFUSE, big_endian=self.big))
        except LinkDown:
            pass

    # -- the session -------------------------------------------------------------------

    def _run(self) -> None:
        qm = None
        try:
            agreed = self._bind()
            if agreed is None:
                return
            qm = mqi.connect(self.manager.qmgr_name)
            self._serve(qm, agreed)
        except _Stop as exc:
            if exc.status is not None:
                self._refuse(exc.status, str(exc))
            else:
                self._say("0113I", f"ENDED: {exc}")
        except LinkDown as exc:
            if not self.stopping:
                self._say("0112W", f"CONNECTION LOST: {exc}")
        except FapError as exc:
            self._refuse(exc.status or StatusCode.PROTOCOL_GENERAL, f"BAD DATA: {exc}")
        except Exception as exc:  # noqa: BLE001 - the session must end with a reason
            self._say("0119E", f"ENDED ABNORMALLY: {exc!r}")
        finally:
            if qm is not None and qm.is_connected:
                try:
                    qm.backout()
                    qm.disconnect()
                except errors.MQMIError:
                    pass
            self.link.close()
            self.manager.ended(self)

    def _bind(self) -> InitialData | None:
        seg = self.link.receive(ID_TIMEOUT)
        if seg.seg_type != SegmentType.INITIAL_DATA:
            raise FapError(f"the first segment is {_type_name(seg)}, not INITIAL_DATA",
                           StatusCode.PROTOCOL_SEGMENT_TYPE)
        self.big = seg.big_endian
        theirs = decode_id(seg.payload, seg.big_endian)
        name = theirs.channel_name
        definition = self.manager.definition(name)
        if definition is None:
            if theirs.conv_per_socket:  # a client's ID (issue 26): journalled too
                self.manager.event("client-refused", name, channel=name, peer=self.peer,
                                   status="NO_CHANNEL")
            self._refuse(StatusCode.NO_CHANNEL, f"CHANNEL {name!r} IS NOT DEFINED")
            return None
        if definition.chltype == "SVRCONN" or theirs.conv_per_socket:
            # A client (issue 26): its conversation runs on this thread; svrconn refuses
            # a client's ID naming another type of channel.
            from tpfemu.channels.svrconn import serve

            serve(self.manager, self.link, self.peer, seg, theirs, definition)
            return None
        self.name = name
        if definition.chltype != "RCVR":
            self._refuse(StatusCode.CHANNEL_WRONG_TYPE,
                         f"IT IS A {definition.chltype} CHANNEL, NOT A RECEIVER")
            return None
        if not self.manager.claim(name, self):
            self._refuse(StatusCode.CHANNEL_UNAVAILABLE, "IT IS STOPPED OR ALREADY RUNNING")
            return None
        self.status = self.manager.status(name)
        mine = InitialData(
            channel_name=name, qmgr_name=self.manager.qmgr_name,
            batch_size=definition.batchsz, seq_wrap=definition.seqwrap,
            heartbeat_interval=definition.hbint,
            max_msg_len=self.manager.offered_maxmsgl(definition),
        ).with_fast(definition.speed == "FAST")
        try:
            agreed = negotiate(mine, theirs)
        except NegotiationError as exc:
            raise _Stop(f"NEGOTIATION FAILED: {exc}", exc.status) from exc
        self.link.send(Segment(SegmentType.INITIAL_DATA, payload=encode_id(
            agreed, big_endian=self.big), big_endian=self.big))
        self.link.limit(agreed.max_trans_size)
        self.status.peer = theirs.qmgr_name
        self.status.set("RUNNING", "")
        self._say("0110I", f"RUNNING FROM {theirs.qmgr_name} AT {self.peer}"
                           f"{' SPEED-FAST' if agreed.fast else ''}")
        return agreed

    def _serve(self, qm: mqi.QueueManager, agreed: InitialData) -> None:
        store = SyncStore(qm)
        record = self.manager.record(self.name, store)
        deliverer = Deliverer(qm, self.name, self.manager.qmgr_name,
                              self.manager.fast_delivery if agreed.fast else lambda: None)
        session = _Session(self, qm, store, deliverer, agreed, record)
        hb = agreed.heartbeat_interval
        timeout = 2.0 * hb + 30.0 if hb else None
        receive, decode, plain = self.link.receive_frame, self.link.decode, session.plain
        try:
            while True:
                frame = receive(timeout)
                if not plain(frame):
                    session.handle(decode(frame))
        finally:
            if session.msgs:  # a batch was being received: it is backed out
                self.manager.event("channel-backout", self.name, channel=self.name,
                                   seq=session.seq, msgs=session.msgs)
            deliverer.forget()
            store.close()


class _Session:
    """The running part of a receiver session: batches, resync, heartbeats."""

    def __init__(self, receiver: Receiver, qm: mqi.QueueManager, store: SyncStore,
                 deliverer: Deliverer, agreed: InitialData, record: SyncRecord) -> None:
        self.r = receiver
        self.qm = qm
        self.store = store
        self.deliverer = deliverer
        self.agreed = agreed
        self.record = record
        self.expected_base = record.seq
        self.seq = record.seq
        self.reassembler = Reassembler(agreed.max_msg_len)
        self.msgs = self.nbytes = 0
        self.persistent = False
        self.fast_channel = agreed.fast
        self.wrap = agreed.seq_wrap

    def handle(self, seg: Segment) -> None:
        kind = seg.seg_type
        if kind == SegmentType.MESSAGE_DATA:
            body = self.reassembler.feed(seg)
            if body is not None:
                self.message(body, seg)
        elif kind == SegmentType.HEARTBEAT:
            if seg.confirm_requested:
                self.r.link.send(heartbeat_segment(request=False, big_endian=self.r.big))
        elif kind == SegmentType.RESYNC_DATA:
            self.resync(seg)
        elif kind == SegmentType.RESET_DATA:
            self.seq = decode_reset(seg.payload, seg.big_endian)
            self.r.link.send(status_segment(StatusCode.OK, big_endian=self.r.big))
        elif kind == SegmentType.STATUS_DATA:
            code, _ = decode_status(seg.payload, seg.big_endian)
            if seg.control_flags & ControlFlags.CLOSE_CHANNEL:
                raise _Stop(f"CLOSED BY THE SENDER (STATUS {_code_name(code)})")
        else:
            raise FapError(f"unexpected {_type_name(seg)} on a receiver channel",
                           StatusCode.PROTOCOL_SEGMENT_TYPE)

    def plain(self, frame: bytes | memoryview) -> bool:
        """The common case in one step: a whole message in one little-endian segment
        (:func:`~tpfemu.wire.fap.message.read_plain`), in sequence, put by the
        destination's plan with its MQMD as it came (no object made for it), or, when
        the plan does not serve the call (no plan yet, a persistent message, ...), by
        :meth:`deliver` with the MQMD read from those bytes. True once handled; False,
        having done nothing, for anything else (another kind of frame, a fast channel's
        nonpersistent message, a sequence error): :meth:`handle` then takes the frame."""
        got = read_plain(frame, self.reassembler.max_msg_len)
        if got is None or self.reassembler.in_progress:
            return False
        flags, luwid, seq, remote_q, remote_qmgr, persistence = got
        persistent = persistence == cmqc.MQPER_PERSISTENT
        if (self.fast_channel and not persistent) or seq != self.seq % self.wrap + 1:
            return False
        self.seq = seq
        data = bytes(frame[PLAIN_DATA_AT:])
        md = bytearray(frame[PLAIN_MD_AT:PLAIN_DATA_AT])
        if not self.deliverer.put_plain(remote_q, remote_qmgr, md, data):
            self.deliver(remote_q, remote_qmgr, MD.from_bytes(md), data)
        self.msgs += 1
        self.nbytes += len(data)
        self.persistent |= persistent
        if flags & _CONFIRM:
            self.commit(luwid)
        return True

    def resync(self, seg: Segment) -> None:
        _, luwid = decode_resync(seg.payload, seg.big_endian)
        committed = luwid == self.record.luwid and luwid != bytes(8)
        self.r.link.send(status_segment(StatusCode.OK, 1 if committed else 0,
                                        big_endian=self.r.big))

    def message(self, body: bytes, seg: Segment) -> None:
        msg = decode_message(body, seg.big_endian)
        xqh, md = msg.xqh, msg.md
        persistent = md.Persistence == cmqc.MQPER_PERSISTENT
        if self.fast_channel and not persistent and msg.seq == 0:
            self.fast(md, msg.data, xqh)
            return
        expected = self.seq % self.wrap + 1
        if msg.seq != expected:
            self.qm.backout()
            self.r.manager.stopped(self.r.name, f"MESSAGE SEQUENCE ERROR: {msg.seq} "
                                                f"RECEIVED, {expected} EXPECTED")
            self.r.link.send(status_segment(StatusCode.MSG_SEQUENCE_ERROR, expected,
                                            flags=_REFUSE, big_endian=self.r.big))
            raise _Stop(f"MESSAGE SEQUENCE ERROR: {msg.seq} RECEIVED, {expected} EXPECTED")
        self.seq = expected
        self.deliver(xqh.RemoteQName, xqh.RemoteQMgrName, md, msg.data)
        self.msgs += 1
        self.nbytes += len(msg.data)
        self.persistent |= persistent
        if seg.confirm_requested:
            self.commit(seg.luwid)

    def deliver(self, remote_q: bytes, remote_qmgr: bytes, md: MD, data: bytes) -> None:
        """Put one message of the batch where it goes (a queue, the bridge, the
        dead-letter queue); when not even the dead-letter queue takes it, the batch is
        backed out and the channel stops."""
        try:
            where = self.deliverer.deliver(remote_q, remote_qmgr, md, data,
                                           fast=self.fast_channel)
        except NoDeadLetterQueue as exc:
            self.qm.backout()
            self.r.manager.stopped(self.r.name, f"NO DEAD-LETTER QUEUE: {exc}")
            raise _Stop(f"STOPPED: {exc}", StatusCode.CAN_NOT_STORE) from exc
        if where == "lost":
            self.lost(md, _text(remote_q))

    def lost(self, md: MD, dest: str) -> None:
        """Say that a fast channel's nonpersistent message was lost (IBM: one that cannot
        be dead-lettered is)."""
        self.r._say("0116W", f"NONPERSISTENT MESSAGE {bytes(md.MsgId).hex().upper()} FOR "
                             f"{dest} LOST: IT COULD NOT BE DELIVERED OR DEAD-LETTERED")

    def fast(self, md, data: bytes, xqh) -> None:
        """A fast nonpersistent message: at once, outside the batch (bridge or DLQ)."""
        try:
            where = self.deliverer.deliver_now(xqh.RemoteQName, xqh.RemoteQMgrName, md, data)
        except NoDeadLetterQueue as exc:
            self.r.manager.stopped(self.r.name, f"NO DEAD-LETTER QUEUE: {exc}")
            raise _Stop(f"STOPPED: {exc}", StatusCode.CAN_NOT_STORE) from exc
        if where == "lost":
            self.lost(md, BRIDGE_DEST)
        self.r.status.counted(1, len(data))

    def commit(self, luwid: bytes) -> None:
        record = replace(self.record, seq=self.seq, luwid=luwid, indoubt=False)
        if self.persistent:
            self.store.write(record)  # in the batch's unit of work: committed with it
        self.qm.commit()
        name, hexid = self.r.name, luwid.hex().upper()
        self.r.manager.event("channel-receive", name, channel=name, msgs=self.msgs,
                             length=self.nbytes, seq=self.seq, luwid=hexid)
        self.r.manager.event("channel-commit", name, channel=name, seq=self.seq, luwid=hexid,
                             msgs=self.msgs)
        self.record = record
        self.r.manager.remember(self.r.name, record)
        status = self.r.status
        status.committed(self.seq, luwid)
        status.counted(self.msgs, self.nbytes, 1)
        flags = ControlFlags.DLQ_USED if self.deliverer.dlq_used else ControlFlags.NONE
        self.deliverer.batch_done()
        self.msgs = self.nbytes = 0
        self.persistent = False
        self.r.link.send(status_segment(StatusCode.OK, flags=flags, big_endian=self.r.big))


def _text(value: bytes | str) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace").strip(" \0")
    return value.strip()


def _code_name(code: object) -> str:
    return getattr(code, "name", str(code))


def _type_name(seg: Segment) -> str:
    return getattr(seg.seg_type, "name", str(seg.seg_type))
