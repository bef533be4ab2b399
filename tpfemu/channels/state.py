"""The status of one channel as DISP CHL shows it: its state and its counters.

States (IBM's channel states, as far as a TPF sender and receiver have them; the model is
in docs/channels.md):

===========  ===================================================================
INACTIVE     not started, or a receiver waiting for its sender to connect
BINDING      a sender connecting and exchanging initial data (ID) with its receiver
STARTING     a sender started, about to connect (also: between retries' attempts)
RUNNING      connected; batches flow (a sender also while it waits for messages)
STOPPING     STOP CHL given: finishing the batch (QUIESCE) or closing (FORCE)
RETRYING     a sender whose connection failed, waiting SHORTTMR/LONGTMR to retry
STOPPED      stopped by STOP CHL, or after an error it does not retry (its
             receiver refused it, no dead-letter queue, retries used up)
===========  ===================================================================

The counters are this run's (messages, batches, bytes and the last message's time);
the sequence number, LUWID and in-doubt flag are the channel's synchronisation record
(:mod:`tpfemu.channels.syncstore`), which outlives runs.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

__all__ = ["STATES", "ChannelStatus"]

STATES = ("INACTIVE", "BINDING", "STARTING", "RUNNING", "STOPPING", "RETRYING", "STOPPED")


@dataclass
class ChannelStatus:
    """The live status of one channel (one per channel name per system).

    :ivar state: one of :data:`STATES`.
    :ivar seq: the last committed message sequence number (LSTSEQNO).
    :ivar luwid: the last committed batch's LUWID (8 bytes).
    :ivar indoubt: a sender's batch awaits its receiver's confirmation across a failure.
    :ivar msgs, batches, nbytes: counted since the channel last started.
    :ivar last_msg_us: when the last message was sent or received (0: none yet).
    :ivar peer: the remote queue manager's name (from its ID), once known.
    :ivar reason: why the channel last stopped or is retrying ("" while all is well).
    """

    name: str
    state: str = "INACTIVE"
    seq: int = 0
    luwid: bytes = bytes(8)
    indoubt: bool = False
    msgs: int = 0
    batches: int = 0
    nbytes: int = 0
    last_msg_us: int = 0
    peer: str = ""
    reason: str = ""
    retries_left: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def set(self, state: str, reason: str | None = None) -> None:
        """Enter ``state`` (one of :data:`STATES`); ``reason`` replaces the reason if given."""
        if state not in STATES:
            raise ValueError(f"{state!r} is not a channel state ({', '.join(STATES)})")
        with self.lock:
            self.state = state
            if reason is not None:
                self.reason = reason

    def counted(self, msgs: int, nbytes: int, batches: int = 0) -> None:
        """Count messages (and their bytes) and batches that went through."""
        with self.lock:
            self.msgs += msgs
            self.nbytes += nbytes
            self.batches += batches
            if msgs:
                self.last_msg_us = time.time_ns() // 1000

    def committed(self, seq: int, luwid: bytes) -> None:
        """A batch ended at sequence number ``seq`` with ``luwid`` was committed."""
        with self.lock:
            self.seq, self.luwid, self.indoubt = seq, luwid, False

    def rows(self) -> list[tuple[str, str]]:
        """The status as DISPLAY rows (keyword, value)."""
        from tpfemu.qmgr.mqmd import date_time

        with self.lock:
            rows = [("STATUS", self.state), ("SEQNUM", str(self.seq)),
                    ("LUWID", self.luwid.hex().upper()),
                    ("INDOUBT", "YES" if self.indoubt else "NO"),
                    ("MSGS", str(self.msgs)), ("BATCHES", str(self.batches)),
                    ("BYTES", str(self.nbytes))]
            if self.last_msg_us:
                date, clock = date_time(self.last_msg_us)
                rows.append(("LSTMSGTI", f"{date.decode()} {clock.decode()}"))
            if self.peer:
                rows.append(("RQMNAME", self.peer))
            if self.reason:
                rows.append(("REASON", self.reason))
        return rows
