"""A client's MQGET that waits (MQGMO_WAIT), with its conversation watched meanwhile.

While a client's get waits, nothing else flows on its connection, so the server must
look for itself whether the client is still there (IBM: heartbeats flow from the server
while an MQGET with wait waits, and a broken client connection's calls end, its unit of
work backed out). :func:`waiting_get` runs the get through the queue manager's one get
path (:func:`tpfemu.qmgr.mqget.get`) in steps of at most :data:`STEP` seconds, the
caller's WaitInterval kept as the deadline, and between two steps :class:`Watch` looks at
the connection:

- the client closed it or it broke (the socket reads as ended): :class:`LinkDown`, and the
  get ends with no message taken;
- a HEARTBEAT from the client: a response is answered if asked for, and the client is
  heard from; any other segment while the get waits is a protocol error (a client of
  one conversation a socket sends nothing before the get's reply);
- every heartbeat interval (the agreed HBINT) without hearing from the client, a
  HEARTBEAT request is sent; nothing heard for the receive timeout
  (:func:`~tpfemu.wire.fap.initial.receive_timeout`: IBM's default, twice HBINT under 60
  seconds, else HBINT plus 60) ends the conversation as a client that stopped answering;
- a STOP CHL MODE(QUIESCE) of the channel (``Watch.quiescing``): a get with
  MQGMO_FAIL_IF_QUIESCING ends 2202 MQRC_CONNECTION_QUIESCING (its reply goes out, then
  the conversation ends); one without it ends with the conversation (the stop shut the
  connection's reading side, so the look finds its end).
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from typing import Any

from tpfemu import errors
from tpfemu.mq import cmqc
from tpfemu.qmgr import mqget
from tpfemu.wire.fap import (
    FapError,
    SegmentType,
    StatusCode,
    encode_segment,
    heartbeat_segment,
)
from tpfemu.wire.fap.initial import receive_timeout
from tpfemu.wire.link import Link, LinkDown

__all__ = ["STEP", "Watch", "readable", "waiting_get"]

#: Seconds at most between two looks at a client's connection while its get waits.
STEP = 0.2
#: Seconds for the rest of a segment whose first bytes came while a get waits, when no
#: heartbeats flow (HBINT 0); else the receive timeout.
REST_TIMEOUT = 30.0


def readable(sock: Any) -> bool:
    """Bytes (or the end of the stream, or an error) are waiting on ``sock`` (plain or
    TLS), asked without waiting; poll, not select, so any descriptor number will do."""
    buffered = getattr(sock, "buffered", None)
    if buffered is not None and buffered():
        return True
    try:
        fd = getattr(sock, "sock", sock).fileno()
    except OSError:
        return True  # (closed under us: the receive says so)
    if fd < 0:
        return True
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


class Watch:
    """Looks at a waiting client's connection (see the module docstring)."""

    def __init__(self, link: Link, hbint: int, big_endian: bool,
                 quiescing: Callable[[], bool] | None = None) -> None:
        self.link = link
        self.hbint = hbint
        self.big = big_endian
        #: whether a STOP CHL MODE(QUIESCE) ends the conversation (None: never asked)
        self.quiescing = quiescing
        self.heard = self.sent = time.monotonic()

    def look(self) -> None:
        """Take what the client sent; send a heartbeat when one is due.

        :raises LinkDown: the connection ended or broke, or the client has been silent
            for the receive timeout. :raises FapError: it sent something else.
        """
        link = self.link
        while link.pending() or readable(link.sock):
            # (bytes are there: the rest of their segment comes at once from a client)
            seg = link.receive(receive_timeout(self.hbint) or REST_TIMEOUT)
            self.heard = time.monotonic()
            if seg.seg_type != SegmentType.HEARTBEAT:
                raise FapError(f"segment type {int(seg.seg_type):#x} while an MQGET waits",
                               StatusCode.PROTOCOL_SEGMENT_TYPE)
            if seg.confirm_requested:
                self._heartbeat(request=False)
        if self.hbint <= 0:
            return
        now, silence = time.monotonic(), receive_timeout(self.hbint)
        if silence is not None and now - self.heard > silence:
            raise LinkDown(f"the client sent nothing for {now - self.heard:.1f} seconds "
                           f"(heartbeat interval {self.hbint})")
        if now - max(self.heard, self.sent) >= self.hbint:
            self._heartbeat(request=True)
            self.sent = now

    def _heartbeat(self, request: bool) -> None:
        self.link.send_bytes(encode_segment(
            heartbeat_segment(request=request, big_endian=self.big), form="TSHM"))


def _waits(gmo: Any) -> bool:
    if gmo is None or not int(getattr(gmo, "Options", 0)) & cmqc.MQGMO_WAIT:
        return False
    interval = getattr(gmo, "WaitInterval", 0)
    return type(interval) is int and (interval > 0 or interval == cmqc.MQWI_UNLIMITED)


def waiting_get(conn: Any, handle: Any, max_length: int | None, md: Any, gmo: Any,
                watch: Watch) -> bytes:
    """MQGET for a client (mqget.get's arguments); a get with MQGMO_WAIT and a positive
    or unlimited WaitInterval waits in steps with ``watch`` looking between them, the
    caller's WaitInterval (left in ``gmo`` as it came) the deadline of its 2033.

    :raises MQMIError: as mqget.get. :raises LinkDown, FapError: as Watch.look.
    """
    if not _waits(gmo):
        return mqget.get(conn, handle, max_length, md, gmo)
    interval = gmo.WaitInterval
    deadline = None if interval == cmqc.MQWI_UNLIMITED else time.monotonic() + interval / 1e3
    try:
        while True:
            step = STEP if deadline is None else min(STEP, deadline - time.monotonic())
            gmo.WaitInterval = max(1, int(step * 1000))
            try:
                return mqget.get(conn, handle, max_length, md, gmo)
            except errors.MQMIError as exc:
                if exc.reason != cmqc.MQRC_NO_MSG_AVAILABLE or (
                        deadline is not None and time.monotonic() >= deadline):
                    raise
            if gmo.Options & cmqc.MQGMO_FAIL_IF_QUIESCING and watch.quiescing is not None \
                    and watch.quiescing():
                raise errors.MQMIError(cmqc.MQCC_FAILED, cmqc.MQRC_CONNECTION_QUIESCING,
                                       call="MQGET")
            watch.look()
    finally:
        gmo.WaitInterval = interval
