"""The sending message channel agent (SDR): its transmission queue, in batches, to a receiver.

One :class:`Sender` per started sender channel: a thread of its System, started by
``ZMQSC START CHL`` and stopped by ``ZMQSC STOP CHL`` (MODE QUIESCE: after the current
batch; FORCE: at once) or by the System's stop. It is an MQI application of its queue
manager: it gets from the transmission queue through the one get path.

A session (docs/channels.md has the state machine):

1. BINDING: connect to CONNAME, send our ID, read the receiver's (or its refusing STATUS),
   and run with the negotiated values (:func:`tpfemu.wire.fap.negotiate`).
2. Synchronise: RESYNC with the in-doubt batch (or the last committed one); the
   receiver says whether it committed it. If so, its messages still on the transmission
   queue are removed; if not, they are sent again. Then RESET gives the receiver the
   sequence number to continue from.
3. RUNNING: batches. Messages are got under syncpoint (a FAST channel gets nonpersistent
   ones outside it, MQGMO_SYNCPOINT_IF_PERSISTENT, and sends them at once, outside any
   batch, with sequence number 0: they are never sent again) until BATCHSZ or an empty
   queue; the last message of a batch carries CONFIRM_REQUEST. Before it goes, the
   batch's MsgIds, sequence number and LUWID are recorded as in doubt (durably when the
   batch holds a persistent message: :mod:`tpfemu.channels.syncstore`). The receiver
   answers STATUS after it committed; only then does the sender commit its gets.
   Batches alternate between two MQI connections (:class:`_Slot`): the next batch is
   got and sent while the last one's STATUS is on its way, and the last one's gets are
   committed together with the next one's in-doubt record, in one unit of work, before
   the next one asks for confirmation. One batch at most is ever in doubt.
   An idle channel sends a HEARTBEAT every HBINT seconds and expects the answer.
4. A broken connection backs the batch out (its messages stay on the transmission queue,
   in doubt) and the channel retries: SHORTRTY times every SHORTTMR seconds, then LONGRTY
   times every LONGTMR seconds (state RETRYING), then stops. A refusal by the receiver
   (unknown channel, wrong type, stopped, negotiation failure, sequence error) is retried
   the same way (IBM, "Channel errors"); a message it can neither send nor dead-letter
   stops it at once.
"""

from __future__ import annotations

import os
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tpfemu import errors
from tpfemu.channels.destination import Deliverer, NoDeadLetterQueue
from tpfemu.channels.syncstore import SyncRecord, SyncStore
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, MD
from tpfemu.mqi import api as mqi
from tpfemu.qmgr import plans
from tpfemu.wire.fap import (
    ControlFlags,
    FapError,
    InitialData,
    NegotiationError,
    Segment,
    SegmentType,
    StatusCode,
    close_segment,
    decode_id,
    decode_message,
    decode_status,
    encode_id,
    encode_message,
    encode_segment,
    heartbeat_segment,
    negotiate,
    reset_segment,
    resync_segment,
    split_message,
    status_segment,
)
from tpfemu.wire.fap.message import SEGMENT_HEAD, message_segment_head, with_flags
from tpfemu.wire.link import Link, LinkDown

if TYPE_CHECKING:
    from tpfemu.channels.manager import ChannelManager
    from tpfemu.qmgr.objects import ChannelDef

__all__ = ["ChannelRefused", "ChannelStopped", "Sender"]

CONNECT_TIMEOUT = 10.0  # seconds to connect and to get the receiver's ID
STATUS_TIMEOUT = 60.0  # seconds to wait for a batch's STATUS or a heartbeat's answer
POLL = 0.2  # seconds a get waits, so that STOP is noticed
_EXPIRY_AT = 104 + 16  # the MQXQH's MQMD Expiry (native byte order)
_I32 = struct.Struct("=i")
_XQH_SIZE = cmqc.MQXQH_LENGTH_1
_FLUSH = 256 * 1024  # bytes of encoded segments written at once
WINDOW = 2  # batches on the wire waiting for their STATUS, at most
SLOTS = WINDOW + 1  # MQI connections: one a batch on the wire, one for the next batch
_NO_LUWID = bytes(8)
_ONE = int(ControlFlags.FIRST | ControlFlags.LAST)
_CONFIRM = int(ControlFlags.CONFIRM_REQ)


class ChannelRefused(errors.TpfEmuError):
    """The other end refused the channel, or it broke the protocol: the channel retries,
    as after a broken connection (IBM, "Channel errors": a sender goes to RETRY, the
    problem might clear itself)."""


class ChannelStopped(ChannelRefused):
    """An error at this end the channel cannot get past (a message it can neither send
    nor dead-letter): it stops, the message left on the transmission queue."""


def _luwid() -> bytes:
    return os.urandom(8)


class Sender:
    """The agent of one sender channel (see the module docstring)."""

    def __init__(self, manager: ChannelManager, definition: ChannelDef) -> None:
        self.manager = manager
        self.d = definition
        self.name = definition.name
        self.status = manager.status(self.name)
        self.mode = ""
        self._stop = threading.Event()
        self.link: Link | None = None
        self.thread = threading.Thread(target=self._run, name=f"MCA SDR {self.name}",
                                       daemon=True)

    # -- life cycle -----------------------------------------------------------------------

    def start(self) -> Sender:
        self.status.set("STARTING", "")
        self.status.msgs = self.status.batches = self.status.nbytes = 0
        self.thread.start()
        return self

    @property
    def running(self) -> bool:
        return self.thread.is_alive()

    def stop(self, mode: str = "QUIESCE", timeout: float = 10.0) -> None:
        """STOP CHL: QUIESCE ends after the current batch, FORCE at once."""
        self.mode = mode
        self.status.set("STOPPING")
        self._stop.set()
        link = self.link
        if mode == "FORCE" and link is not None:
            link.shutdown()
        if threading.current_thread() is not self.thread:
            self.thread.join(timeout)

    def _say(self, severity_id: str, text: str) -> None:
        self.manager.say(f"CHNL{severity_id} {self.manager.cpu} CHL {self.name} {text}")

    def _run(self) -> None:
        conns: list[mqi.QueueManager] = []
        try:
            for _ in range(SLOTS):
                conns.append(mqi.connect(self.manager.qmgr_name))
            self._retrying([SyncStore(qm) for qm in conns])
        except Exception as exc:  # noqa: BLE001 - the agent must end with a reason
            self._say("0109E", f"ENDED ABNORMALLY: {exc!r}")
            self.status.set("STOPPED", f"ENDED ABNORMALLY: {exc}")
        finally:
            for conn in conns:
                if conn.is_connected:
                    try:
                        conn.backout()
                        conn.disconnect()
                    except errors.MQMIError:
                        pass
            self.manager.ended(self)

    def _retrying(self, stores: list[SyncStore]) -> None:
        connections = [store.qm for store in stores]
        short, long = self.d.shortrty, self.d.longrty
        while not self._stop.is_set():
            self.status.set("STARTING")
            try:
                if self._session(stores):
                    short, long = self.d.shortrty, self.d.longrty  # a session ran: reset
                if self._stop.is_set():
                    break
                reason = "CONNECTION CLOSED"
            except ChannelStopped as exc:
                self._backout(*connections)  # the batch stays on the transmission queue (in doubt)
                self._say("0104E", f"STOPPED: {exc}")
                self.status.set("STOPPED", str(exc))
                return
            except ChannelRefused as exc:
                reason = str(exc)
                self._say("0104E", f"REFUSED: {reason}")
            except (LinkDown, OSError) as exc:
                reason = str(exc) or type(exc).__name__
            self._backout(*connections)
            if self._stop.is_set():
                break
            if short > 0:
                short, wait = short - 1, self.d.shorttmr
            elif long > 0:
                long, wait = long - 1, self.d.longtmr
            else:
                self._say("0105E", f"STOPPED: RETRIES EXHAUSTED ({reason})")
                self.status.set("STOPPED", f"RETRIES EXHAUSTED: {reason}")
                return
            self._say("0103W", f"RETRYING IN {wait} SECONDS: {reason}")
            self.status.set("RETRYING", reason)
            if self._stop.wait(wait):
                break
        self.status.set("STOPPED", f"STOPPED BY OPERATOR (MODE-{self.mode or 'QUIESCE'})")
        self._say("0102I", f"STOPPED (MODE-{self.mode or 'QUIESCE'})")

    @staticmethod
    def _backout(*connections: mqi.QueueManager) -> None:
        for qm in connections:
            try:
                qm.backout()
            except errors.MQMIError:
                pass

    # -- one session --------------------------------------------------------------------

    def _session(self, stores: list[SyncStore]) -> bool:
        """Connect, bind, synchronise and send batches until stopped. True once bound."""
        address = self.d.address
        assert address is not None  # (a sender has a CONNAME)
        self.status.set("BINDING")
        sock = socket.create_connection(address, timeout=CONNECT_TIMEOUT)
        link = self.link = Link(sock)
        try:
            agreed = self._bind(link)
            self.status.peer = agreed.qmgr_name
            store = stores[0]
            record = self.manager.record(self.name, store)
            record = self._synchronise(link, store.qm, store, record)
            self.status.set("RUNNING", "")
            self._say("0101I", f"RUNNING TO {agreed.qmgr_name} AT {address[0]}({address[1]})"
                               f" BATCHSZ-{agreed.batch_size}"
                               f"{' SPEED-FAST' if agreed.fast else ''}")
            slots = [_Slot(self, each) for each in stores]
            try:
                self._batches(link, slots, agreed, record)
            finally:
                for slot in slots:
                    slot.close()
            if self._stop.is_set() and self.mode != "FORCE":
                link.send(close_segment())
            return True
        finally:
            self.link = None
            link.close()

    def _mine(self) -> InitialData:
        return InitialData(
            channel_name=self.name, qmgr_name=self.manager.qmgr_name,
            batch_size=self.d.batchsz, seq_wrap=self.d.seqwrap,
            heartbeat_interval=self.d.hbint,
            max_msg_len=self.manager.offered_maxmsgl(self.d),
        ).with_fast(self.d.speed == "FAST")

    def _bind(self, link: Link) -> InitialData:
        mine = self._mine()
        link.send(Segment(SegmentType.INITIAL_DATA, payload=encode_id(mine)))
        seg = link.receive(CONNECT_TIMEOUT)
        if seg.seg_type == SegmentType.STATUS_DATA:
            code, _ = decode_status(seg.payload, seg.big_endian)
            raise ChannelRefused(f"REFUSED BY THE RECEIVER: STATUS {_code_name(code)}")
        if seg.seg_type != SegmentType.INITIAL_DATA:
            raise ChannelRefused(f"THE RECEIVER ANSWERED {_type_name(seg)} TO OUR ID")
        try:
            theirs = decode_id(seg.payload, seg.big_endian)
            agreed = negotiate(mine, theirs)
        except NegotiationError as exc:
            link.send(status_segment(exc.status or StatusCode.NEGOTIATION_FAILED))
            raise ChannelRefused(f"NEGOTIATION FAILED: {exc}") from exc
        except FapError as exc:
            raise ChannelRefused(f"BAD ID FROM THE RECEIVER: {exc}") from exc
        link.limit(agreed.max_trans_size)
        return replace(agreed, qmgr_name=theirs.qmgr_name)

    def _expect_status(self, link: Link) -> int:
        """The data of the STATUS(OK) that answers a request; refusals raise."""
        seg = link.receive(STATUS_TIMEOUT)
        if seg.seg_type != SegmentType.STATUS_DATA:
            raise ChannelRefused(f"EXPECTED STATUS, RECEIVED {_type_name(seg)}")
        code, data = decode_status(seg.payload, seg.big_endian)
        if code != StatusCode.OK:
            raise ChannelRefused(f"THE RECEIVER ANSWERED STATUS {_code_name(code)}"
                                 + (f" ({data})" if data else ""))
        return data

    def _synchronise(self, link: Link, qm: mqi.QueueManager, store: SyncStore,
                     record: SyncRecord) -> SyncRecord:
        """RESYNC with the in-doubt (or last) batch, settle it, then RESET the sequence."""
        if record.reset:
            record = replace(record, seq=record.reset - 1, reset=0)
            store.save(record)
        seq, luwid = (record.cur_seq, record.cur_luwid) if record.indoubt else (
            record.seq, record.luwid)
        link.send(resync_segment(seq, luwid))
        committed = self._expect_status(link) == 1
        prior_committed = False
        if record.has_prior and not committed:  # the batch before it may have been
            link.send(resync_segment(record.prior_seq, record.prior_luwid))
            prior_committed = self._expect_status(link) == 1
        if record.indoubt:
            record = self._settle(qm, store, record, committed, prior_committed)
        link.send(reset_segment(record.seq))
        self._expect_status(link)
        self.manager.remember(self.name, record)
        self.status.committed(record.seq, record.luwid)
        return record

    def _settle(self, qm: mqi.QueueManager, store: SyncStore, record: SyncRecord,
                committed: bool, prior_committed: bool = False) -> SyncRecord:
        """The in-doubt batches: remove the messages of those the receiver committed
        (the prior one too when the last one was; the receiver commits in order)."""
        if committed:
            ids = (record.prior_ids if record.has_prior else ()) + record.msg_ids
            self.remove(qm, ids)
            settled = record.settled(record.cur_seq, record.cur_luwid)
            self._say("0106I", f"IN-DOUBT BATCH {record.cur_luwid.hex().upper()} WAS"
                               f" COMMITTED BY THE RECEIVER: {len(ids)} MESSAGE(S) REMOVED")
        elif prior_committed:
            self.remove(qm, record.prior_ids)
            settled = record.settled(record.prior_seq, record.prior_luwid)
            self._say("0106I", f"IN-DOUBT BATCH {record.prior_luwid.hex().upper()} WAS"
                               f" COMMITTED BY THE RECEIVER: {len(record.prior_ids)}"
                               f" MESSAGE(S) REMOVED; BATCH {record.cur_luwid.hex().upper()}"
                               " WAS NOT: IT IS SENT AGAIN")
        else:
            settled = record.settled()
            self._say("0106I", f"IN-DOUBT BATCH {record.cur_luwid.hex().upper()} WAS NOT"
                               " COMMITTED BY THE RECEIVER: IT IS SENT AGAIN")
        store.write(settled)
        qm.commit()
        return settled

    def remove(self, qm: mqi.QueueManager, msg_ids: tuple[bytes, ...]) -> int:
        """Get (in the connection's unit of work) each message of ``msg_ids`` still on
        the transmission queue; returns how many were there. The caller commits."""
        xmitq = mqi.Queue(qm, self.d.xmitq, cmqc.MQOO_INPUT_SHARED)
        found = 0
        try:
            for msg_id in msg_ids:
                gmo = GMO(Version=2, Options=cmqc.MQGMO_SYNCPOINT | cmqc.MQGMO_NO_WAIT,
                          MatchOptions=cmqc.MQMO_MATCH_MSG_ID)
                try:
                    xmitq.get(None, MD(MsgId=msg_id), gmo)
                    found += 1
                except errors.MQMIError as exc:
                    if exc.reason != cmqc.MQRC_NO_MSG_AVAILABLE:
                        raise
        finally:
            xmitq.close()
        return found

    # -- batches ------------------------------------------------------------------------

    def _batches(self, link: Link, slots: list[_Slot], agreed: InitialData,
                 record: SyncRecord) -> None:
        """Send batches until stopped, up to :data:`WINDOW` of them waiting for their
        STATUS (see :class:`_Slot`). ``record`` is the last committed batch's."""
        sync = cmqc.MQGMO_SYNCPOINT_IF_PERSISTENT if agreed.fast else cmqc.MQGMO_SYNCPOINT
        wait_gmo = GMO(Options=sync | cmqc.MQGMO_WAIT | cmqc.MQGMO_FAIL_IF_QUIESCING,
                       WaitInterval=int(POLL * 1000))
        more_gmo = GMO(Options=sync | cmqc.MQGMO_NO_WAIT | cmqc.MQGMO_FAIL_IF_QUIESCING)
        last_sent = time.monotonic()
        waiting: deque[Batch] = deque()  # sent with CONFIRM_REQUEST, oldest first
        turn = 0
        while not self._stop.is_set():
            slot = slots[turn]
            batch = Batch(self, link, agreed, waiting[-1].seq if waiting else record.seq, slot)
            first = self._get(slot.xmitq, more_gmo if waiting else wait_gmo)
            if first is None:
                if waiting:  # nothing more yet: settle the batches on the wire
                    record = self._finish(waiting, record, None)
                elif agreed.heartbeat_interval and \
                        time.monotonic() - last_sent >= agreed.heartbeat_interval:
                    link.send(heartbeat_segment())
                    self._expect_heartbeat(link)
                    last_sent = time.monotonic()
                continue
            batch.add(*first)
            batch.fill(slot.xmitq, more_gmo, agreed.batch_size)
            batch.flush()
            last_sent = time.monotonic()
            if batch.pending is None:  # only fast nonpersistent or dead-lettered messages
                slot.qm.commit()  # (the dead letters and their gets: nothing to confirm)
                self.status.counted(batch.sent, batch.nbytes)
                continue
            if len(waiting) == WINDOW:
                record = self._finish(waiting, record, batch)
            elif batch.persistent_count:  # durable before the receiver can commit it
                slots[(turn + 1) % SLOTS].store.save(_in_doubt(record, [*waiting, batch]))
            batch.confirm(_in_doubt(record, [*waiting, batch]))
            waiting.append(batch)
            turn = (turn + 1) % SLOTS
        while waiting:  # MODE-QUIESCE: the batches on the wire end first
            record = self._finish(waiting, record, None)

    def _finish(self, waiting: deque[Batch], record: SyncRecord, following: Batch | None
                ) -> SyncRecord:
        """Read the STATUS of the oldest batch waiting and commit its gets. The channel's
        record rides in the same unit of work (so in the same log sync) when a batch it
        concerns holds a persistent message: the batches then in doubt are the others
        waiting and ``following`` (about to ask for confirmation). Returns the channel's
        new record (the last committed batch's)."""
        batch = waiting.popleft()
        batch.await_status()
        done = record.settled(batch.seq, batch.luwid)
        after = [*waiting, following] if following is not None else list(waiting)
        if batch.persistent_count or any(b.persistent_count for b in after):
            batch.slot.store.write(_in_doubt(done, after))
        batch.slot.qm.commit()
        batch.committed(done, _in_doubt(done, list(waiting)))
        return done

    @staticmethod
    def _get(xmitq: mqi.Queue, gmo: GMO) -> tuple[MD, bytes] | None:
        md = MD()
        try:
            data = xmitq.get(None, md, gmo)
        except errors.MQMIError as exc:
            if exc.reason == cmqc.MQRC_NO_MSG_AVAILABLE:
                return None
            raise LinkDown(f"the transmission queue failed: {exc}") from exc
        return md, data

    def _expect_heartbeat(self, link: Link) -> None:
        seg = link.receive(STATUS_TIMEOUT)
        if seg.seg_type == SegmentType.STATUS_DATA:
            code, _ = decode_status(seg.payload, seg.big_endian)
            raise ChannelRefused(f"THE RECEIVER ANSWERED STATUS {_code_name(code)}")
        if seg.seg_type != SegmentType.HEARTBEAT:
            raise ChannelRefused(f"EXPECTED A HEARTBEAT, RECEIVED {_type_name(seg)}")


class _Slot:
    """One of a sender's two MQI connections, with its transmission-queue handle, its
    view of the synchronisation store and its dead-letter deliverer.

    Batches alternate between the two slots. While batch k+1 is got and sent on one,
    batch k waits for its STATUS on the other; once that arrives, batch k's gets are
    committed together with batch k+1's in-doubt record (one log sync for both), and
    only then does batch k+1's last message ask for confirmation. So at most one batch
    is ever in doubt, its record is durable before the receiver can commit it, and the
    receiver's work on batch k+1 overlaps the sender's commit of batch k.
    """

    def __init__(self, sender: Sender, store: SyncStore) -> None:
        self.qm = store.qm
        self.store = store
        self.xmitq = mqi.Queue(self.qm, sender.d.xmitq,
                               cmqc.MQOO_INPUT_SHARED | cmqc.MQOO_FAIL_IF_QUIESCING)
        self.dlq = Deliverer(self.qm, sender.name, sender.manager.qmgr_name)

    def close(self) -> None:
        """Close the transmission queue's handle (not the connection)."""
        try:
            self.xmitq.close()
        except errors.MQMIError:
            pass


class Batch:
    """One batch being sent. Messages are encoded as they are got and written out every
    256 KB; the last one got is held back (encoded) until the next arrives, so that it
    can carry CONFIRM_REQUEST once the batch is known to end with it."""

    def __init__(self, sender: Sender, link: Link, agreed: InitialData, seq: int,
                 slot: _Slot) -> None:
        self.sender = sender
        self.link = link
        self.agreed = agreed
        self.fast = agreed.fast
        self.slot = slot
        self.luwid = _luwid()
        self.seq = seq
        self.wrap = agreed.seq_wrap
        self.msg_ids: list[bytes] = []
        self.persistent_count = 0
        self.pending: list[bytes] | None = None  # the held-back message's segments
        self.pending_last = 0  # where in them its last segment starts
        self.sent = 0
        self.nbytes = 0
        self.out: list[bytes] = []
        self.out_bytes = 0
        self.max_trans = agreed.max_trans_size

    @property
    def held(self) -> int:
        """Nonpersistent messages in the batch (a normal channel batches them too)."""
        return len(self.msg_ids) - self.persistent_count

    def fill(self, xmitq: mqi.Queue, gmo: GMO, size: int) -> None:
        """Add messages got from ``xmitq`` with ``gmo`` until the batch holds ``size``
        (fast nonpersistent ones, outside it, do not count) or the queue is empty. Each
        MQGET tries the handle's get plan first, as ``mqi.Queue.get`` does, and is left
        to that call when the plan does not serve it.

        :raises LinkDown: the transmission queue failed.
        """
        get, add, ids = xmitq.get, self.add, self.msg_ids
        handle = xmitq.get_handle()
        planned = plans.planned_get
        while len(ids) < size:
            md = MD()
            try:
                data = planned(handle.get_plan, None, md, gmo) if handle is not None else None
                if data is None:
                    data = get(None, md, gmo)
            except errors.MQMIError as exc:
                if exc.reason == cmqc.MQRC_NO_MSG_AVAILABLE:
                    return
                raise LinkDown(f"the transmission queue failed: {exc}") from exc
            add(md, data)

    def add(self, md: MD, data: bytes) -> None:
        persistent = md.Persistence == cmqc.MQPER_PERSISTENT
        if len(data) < _EXPIRY_AT + 4 or not data.startswith(b"XQH "):
            # not a transmission message: dead-lettered (in the batch's unit of work when
            # it was got in it), as IBM's MCA does
            try:
                self.slot.dlq.dead_letter(md, data, cmqc.MQFB_XMIT_Q_MSG_ERROR,
                                          self.sender.d.xmitq, self.sender.manager.qmgr_name,
                                          syncpoint=persistent or not self.fast)
            except NoDeadLetterQueue as exc:
                raise ChannelStopped(f"A MESSAGE WITHOUT MQXQH CANNOT BE DEAD-LETTERED: {exc}"
                                     ) from exc
            return
        if len(data) - _XQH_SIZE > self.agreed.max_msg_len and self._too_big(md, data):
            return
        if _I32.unpack_from(data, _EXPIRY_AT)[0] != cmqc.MQEI_UNLIMITED:
            data = _with_expiry(data, md.Expiry)
        if self.out_bytes >= _FLUSH:
            self.flush()
        if self.fast and not persistent:
            self.out += self._segments(0, data)  # outside the batch, already deleted
            return
        self.msg_ids.append(md.MsgId)
        self.persistent_count += persistent
        if self.pending is not None:
            self.out += self.pending
        self.seq = seq = self.seq % self.wrap + 1
        self.pending = pending = self._segments(seq, data)
        # (in one segment: [its head, the bytes]; else the segments whole)
        self.pending_last = 0 if SEGMENT_HEAD + len(data) <= self.max_trans else len(pending) - 1

    def _too_big(self, md: MD, data: bytes) -> bool:
        """Whether the transmission-queue message ``data`` holds a message longer than the
        channel's negotiated maximum; if so it is not sent but treated as undeliverable
        with MQRC_MSG_TOO_BIG_FOR_CHANNEL (dead-lettered without its MQXQH, or discarded,
        with the exception report it asks for), in the batch's unit of work, as IBM's
        sending MCA does. Without a dead-letter queue the channel stops, the message left
        on the transmission queue.

        :raises ChannelStopped: it could not be dead-lettered.
        """
        try:
            msg = decode_message(encode_message(0, data), False)
        except FapError:
            return False  # (sent as it is: the receiver says what is wrong with it)
        if len(msg.data) <= self.agreed.max_msg_len:
            return False
        xqh = msg.xqh
        try:
            where = self.slot.dlq.undeliverable(
                msg.md, msg.data, cmqc.MQRC_MSG_TOO_BIG_FOR_CHANNEL,
                _name(xqh.RemoteQName), _name(xqh.RemoteQMgrName),
                syncpoint=md.Persistence == cmqc.MQPER_PERSISTENT or not self.fast,
                fast=self.fast)
        except NoDeadLetterQueue as exc:
            raise ChannelStopped(f"A MESSAGE TOO BIG FOR THE CHANNEL ({len(msg.data)} BYTES,"
                                 f" MAXMSGL {self.agreed.max_msg_len}) CANNOT BE"
                                 f" DEAD-LETTERED: {exc}") from exc
        if where == "lost":
            self.sender._say("0116W", f"NONPERSISTENT MESSAGE {bytes(msg.md.MsgId).hex().upper()}"
                                      " LOST: TOO BIG FOR THE CHANNEL AND IT COULD NOT BE"
                                      " DEAD-LETTERED")
        return True

    def _segments(self, seq: int, body: bytes) -> list[bytes]:
        """The encoded segments of one message: in one segment, its head and its bytes
        (``body`` itself); else each segment whole."""
        self.out_bytes += len(body)
        self.sent += 1
        self.nbytes += len(body)
        if SEGMENT_HEAD + len(body) <= self.max_trans:
            return [message_segment_head(seq, len(body), flags=_ONE, luwid=self.luwid),
                    body]
        segments = split_message(encode_message(seq, body), self.max_trans, luwid=self.luwid)
        return [encode_segment(seg) for seg in segments]

    def flush(self) -> None:
        """Write out what is encoded so far (the held-back message stays)."""
        if self.out:
            data = b"".join(self.out)
            self.out.clear()
            self.out_bytes = 0
            self.link.send_bytes(data)

    def confirm(self, doubt: SyncRecord) -> None:
        """Send the held-back last message with CONFIRM_REQUEST: the batch is in doubt
        from now on, as ``doubt`` says (durable already when the batch holds a persistent
        message)."""
        sender = self.sender
        sender.manager.remember(sender.name, doubt)
        last = self.pending
        if last is not None:  # its last segment asks for confirmation
            at = self.pending_last
            last[at] = with_flags(last[at], _CONFIRM)
            self.out += last
        self.pending = None
        self.flush()
        sender.manager.event("channel-send", sender.d.xmitq, channel=sender.name,
                             msgs=len(self.msg_ids), length=self.nbytes, seq=self.seq,
                             luwid=self.luwid.hex().upper())

    def await_status(self) -> None:
        """Read the receiver's STATUS(OK) for this batch (a failure is journalled as the
        batch's backout and raised)."""
        sender = self.sender
        try:
            sender._expect_status(self.link)
        except BaseException:
            sender.manager.event("channel-backout", sender.d.xmitq, channel=sender.name,
                                 seq=self.seq, luwid=self.luwid.hex().upper(),
                                 msgs=len(self.msg_ids))
            raise

    def committed(self, done: SyncRecord, now: SyncRecord) -> None:
        """The batch's gets are committed (``done``: it as the last committed batch;
        ``now``: with the batches still in doubt): journal it and show ``now``."""
        sender, status = self.sender, self.sender.status
        sender.manager.event("channel-commit", sender.d.xmitq, channel=sender.name,
                             seq=self.seq, luwid=self.luwid.hex().upper(),
                             msgs=len(self.msg_ids))
        sender.manager.remember(sender.name, now)
        status.committed(done.seq, done.luwid)
        status.counted(self.sent, self.nbytes, 1)


def _in_doubt(done: SyncRecord, batches: list[Batch]) -> SyncRecord:
    """``done`` (nothing in doubt) with ``batches`` (oldest first, at most two) in doubt:
    the newest as the in-doubt batch, the one before it as the prior one."""
    if not batches:
        return done
    newest = batches[-1]
    prior = batches[-2] if len(batches) > 1 else None
    return replace(done, indoubt=True, cur_seq=newest.seq, cur_luwid=newest.luwid,
                   msg_ids=tuple(newest.msg_ids),
                   prior_seq=prior.seq if prior else 0,
                   prior_luwid=prior.luwid if prior else _NO_LUWID,
                   prior_ids=tuple(prior.msg_ids) if prior else ())


def _with_expiry(data: bytes, expiry: int) -> bytes:
    """The transmission-queue message with its MQXQH's MQMD Expiry set to what is left
    (the time on this queue counts against it, as IBM's does)."""
    if _I32.unpack_from(data, _EXPIRY_AT)[0] == cmqc.MQEI_UNLIMITED:
        return data
    return data[:_EXPIRY_AT] + _I32.pack(expiry) + data[_EXPIRY_AT + 4:]


def _name(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("ascii", "replace").strip(" \0")
    return str(value).strip()


def _code_name(code: Any) -> str:
    return getattr(code, "name", str(code))


def _type_name(seg: Segment) -> str:
    return getattr(seg.seg_type, "name", str(seg.seg_type))
