"""The channel synchronisation store: each channel's sequence number, LUWID and in-doubt
batch, kept where the queue manager keeps persistent messages (the home's LMDB).

A channel's record is one persistent message on the queue manager's local queue
``SYSTEM.CHANNEL.SYNCQ`` (IBM's distributed queue managers keep theirs on a queue of that
name too), with the channel's name as its CorrelId. A message channel agent reads and
writes it through the MQI like any application: :meth:`SyncStore.write` gets the old
record and puts the new one **in the agent's unit of work**, so the record is committed
in the same recovery-log commit as the batch it describes, or not at all (a receiver's
batch and its LSTSEQNO/LSTLUWID; a sender's deleted batch and its cleared in-doubt
record). Without a home the queue is memory-resident like every other queue.

A record (:class:`SyncRecord`) holds:

- ``seq`` and ``luwid``: the last committed batch (LSTSEQNO, LSTLUWID);
- ``indoubt`` with ``cur_seq``, ``cur_luwid`` and ``msg_ids``: a sender's batch sent with
  CONFIRM_REQUEST whose confirmation has not been committed — its MsgIds, so that a
  restart that learns the receiver committed it can remove exactly those messages;
- ``prior_seq``, ``prior_luwid`` and ``prior_ids``: the batch sent before the in-doubt
  one, when its confirmation has not been committed either (a sender keeps at most two
  batches on the wire: ``prior_luwid`` is zeros when there is none);
- ``reset``: a sequence number RESET CHL asked for, used at the next start (0: none).

Layout of the message data (little-endian): ``"CSR1"``, flags u32 (1: in doubt; 2: a
prior batch follows), seq u32, luwid 8, cur_seq u32, cur_luwid 8, reset u32, count u32,
reserved u32, then ``count`` MsgIds of 24 bytes; with flag 2, then prior_seq u32,
prior_luwid 8, count u32 and that many MsgIds.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.mq.structs import GMO, MD, PMO
from tpfemu.mqi import api as mqi

__all__ = ["SYNCQ", "SyncRecord", "SyncStore", "ensure_syncq"]

SYNCQ = "SYSTEM.CHANNEL.SYNCQ"
_HEAD = struct.Struct("<4sII8sI8sIII")
_MAGIC = b"CSR1"
_PRIOR = struct.Struct("<I8sI")
_NO_LUWID = bytes(8)


@dataclass
class SyncRecord:
    """One channel's synchronisation record (see the module docstring)."""

    channel: str
    seq: int = 0
    luwid: bytes = bytes(8)
    indoubt: bool = False
    cur_seq: int = 0
    cur_luwid: bytes = bytes(8)
    reset: int = 0
    msg_ids: tuple[bytes, ...] = field(default_factory=tuple)
    prior_seq: int = 0
    prior_luwid: bytes = _NO_LUWID
    prior_ids: tuple[bytes, ...] = field(default_factory=tuple)

    @property
    def has_prior(self) -> bool:
        """An earlier batch is in doubt too (see the module docstring)."""
        return self.indoubt and self.prior_luwid != _NO_LUWID

    def settled(self, seq: int | None = None, luwid: bytes | None = None) -> SyncRecord:
        """The record with nothing in doubt and, when given, ``seq`` and ``luwid`` as
        the last committed batch."""
        return SyncRecord(self.channel, self.seq if seq is None else seq,
                          self.luwid if luwid is None else luwid, False, self.cur_seq,
                          self.cur_luwid, self.reset)

    def pack(self) -> bytes:
        """The record as message data."""
        prior = self.has_prior
        head = _HEAD.pack(_MAGIC, int(self.indoubt) | (2 if prior else 0), self.seq,
                          self.luwid, self.cur_seq, self.cur_luwid, self.reset,
                          len(self.msg_ids), 0)
        out = head + _ids(self.msg_ids)
        if prior:
            out += _PRIOR.pack(self.prior_seq, self.prior_luwid, len(self.prior_ids))
            out += _ids(self.prior_ids)
        return out

    @classmethod
    def unpack(cls, channel: str, data: bytes) -> SyncRecord:
        """A record from message data.

        :raises ValueError: the data is not a synchronisation record.
        """
        if len(data) < _HEAD.size or data[:4] != _MAGIC:
            raise ValueError(f"the {SYNCQ} message of channel {channel} is not a record")
        _, flags, seq, luwid, cur_seq, cur_luwid, reset, count, _ = _HEAD.unpack_from(data)
        end = _HEAD.size + 24 * count
        prior_seq, prior_luwid, prior_count = 0, _NO_LUWID, 0
        if flags & 2 and len(data) >= end + _PRIOR.size:
            prior_seq, prior_luwid, prior_count = _PRIOR.unpack_from(data, end)
        size = end + (_PRIOR.size + 24 * prior_count if flags & 2 else 0)
        if len(data) != size:
            raise ValueError(f"the {SYNCQ} record of channel {channel} is truncated")
        return cls(channel, seq, luwid, bool(flags & 1), cur_seq, cur_luwid, reset,
                   _split_ids(data[_HEAD.size:end]), prior_seq, prior_luwid,
                   _split_ids(data[end + _PRIOR.size:]) if flags & 2 else ())


def _ids(msg_ids: tuple[bytes, ...]) -> bytes:
    return b"".join(m.ljust(24, b"\0")[:24] for m in msg_ids)


def _split_ids(data: bytes) -> tuple[bytes, ...]:
    return tuple(data[i:i + 24] for i in range(0, len(data), 24))


def ensure_syncq(qmgr: object) -> None:
    """Define ``SYSTEM.CHANNEL.SYNCQ`` on the queue manager if it is not defined yet
    (persistent by default, deep enough for every channel). Needs the profile (DEF MQP).
    On return the queue can be opened, even when another thread (a receiver and a
    sender starting together) is defining it at that moment."""
    catalog = qmgr.catalog  # type: ignore[attr-defined]
    catalog.define_absent("QL", SYNCQ, defpsist="YES", maxdepth=999_999_999,
                          descr="channel synchronisation records")


def _key(channel: str) -> bytes:
    return channel.encode().ljust(24, b" ")


class SyncStore:
    """The records of one queue manager's channels, reached through one MQI connection
    (the agent's: :meth:`write` joins its unit of work)."""

    def __init__(self, qm: mqi.QueueManager) -> None:
        self.qm = qm
        ensure_syncq(qm.connection.qmgr)
        self.queue = mqi.Queue(qm, SYNCQ, cmqc.MQOO_INPUT_SHARED | cmqc.MQOO_OUTPUT
                               | cmqc.MQOO_BROWSE | cmqc.MQOO_FAIL_IF_QUIESCING)

    def read(self, channel: str) -> SyncRecord:
        """The channel's committed record (a fresh one if it has none)."""
        md = MD(CorrelId=_key(channel))
        gmo = GMO(Version=2, Options=cmqc.MQGMO_BROWSE_FIRST | cmqc.MQGMO_NO_WAIT,
                  MatchOptions=cmqc.MQMO_MATCH_CORREL_ID)
        try:
            data = self.queue.get(None, md, gmo)
        except errors.MQMIError as exc:
            if exc.reason != cmqc.MQRC_NO_MSG_AVAILABLE:
                raise
            return SyncRecord(channel)
        return SyncRecord.unpack(channel, data)

    def write(self, record: SyncRecord) -> None:
        """Replace the channel's record within the connection's unit of work: it takes
        effect when the agent commits, together with the rest of the batch."""
        md = MD(CorrelId=_key(record.channel))
        gmo = GMO(Version=2, Options=cmqc.MQGMO_SYNCPOINT | cmqc.MQGMO_NO_WAIT,
                  MatchOptions=cmqc.MQMO_MATCH_CORREL_ID)
        try:
            self.queue.get(None, md, gmo)
        except errors.MQMIError as exc:
            if exc.reason != cmqc.MQRC_NO_MSG_AVAILABLE:
                raise
        out = MD(CorrelId=_key(record.channel), Persistence=cmqc.MQPER_PERSISTENT)
        self.queue.put(record.pack(), out, PMO(Options=cmqc.MQPMO_SYNCPOINT))

    def save(self, record: SyncRecord) -> None:
        """Replace the record in a unit of work of its own, committed now (the agent's
        connection must have none open)."""
        self.write(record)
        self.qm.commit()

    def close(self) -> None:
        """Close the queue (not the connection)."""
        try:
            self.queue.close()
        except errors.MQMIError:
            pass
