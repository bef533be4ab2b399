"""One end of a channel's TCP connection: whole FAP segments in and out.

A :class:`Link` owns a connected socket. :meth:`Link.send` writes segments (each behind a
TSH, :func:`tpfemu.wire.fap.encode_segment`); :meth:`Link.receive` returns the next
segment, reading through a bounded :class:`~tpfemu.wire.fap.FrameReader` (a declared
length above the negotiated maximum is refused before any of it is kept), and
:meth:`Link.receive_frame` the same segment as its bytes, for a reader that decodes the
common case in one step (a receiving channel's messages). Bytes already read by someone
else (the Internet daemon's AOR data) are fed first.

Errors become :class:`LinkDown` (the peer closed, the connection broke or timed out) or
the codec's :class:`~tpfemu.wire.fap.FapError` (bad bytes: the status to answer with
is on the error).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import deque

from tpfemu.wire.fap import FapError, FrameReader, Segment, encode_segment
from tpfemu.wire.fap.tsh import decode_frame

__all__ = ["Link", "LinkDown"]

#: Bytes asked of one recv. Not more: CPython allocates the whole size first, and above
#: glibc's mmap threshold (128 KiB) that is an mmap, page faults and an munmap for every
#: read (~10 us against ~1 us for a 1.4 KB segment, measured); a long segment simply
#: takes several reads.
_READ = 64 * 1024
_UNSET = object()
#: TCP keepalive (:meth:`Link.keep_alive`): seconds between unanswered probes, and how
#: many break the connection (ours: the stack's defaults, 75 s and 9, would take 11
#: minutes to find a peer gone).
KEEPALIVE_INTERVAL = 10
KEEPALIVE_PROBES = 6
_KEEPIDLE_MAX = 32_767  # Linux's ceiling for TCP_KEEPIDLE (seconds)


class LinkDown(ConnectionError):
    """The connection ended: closed by the peer, broken, or silent past the timeout."""


class Link:
    """A channel's connection (see the module docstring).

    :param max_segment: the largest segment accepted (TSH included) until :meth:`limit`
        sets the negotiated one.
    :param first: bytes already read from the socket, handled before anything else.
    """

    def __init__(self, sock: socket.socket, *, max_segment: int = 64 * 1024,
                 first: bytes = b"") -> None:
        self.sock = sock
        self.reader = FrameReader(max_segment)
        self._ready: deque[bytes | memoryview] = deque()  # whole segments, framing checked
        self._send_lock = threading.Lock()
        self.closed = False
        self.bytes_in = self.bytes_out = 0
        self._first = first
        self._timeout: float | None | object = _UNSET  # the socket's, once receive set it
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def keep_alive(self, idle: int) -> bool:
        """Turn TCP keepalive on: after ``idle`` seconds (at most 32767) without traffic
        the stack probes the peer every :data:`KEEPALIVE_INTERVAL` seconds, and
        :data:`KEEPALIVE_PROBES` probes unanswered break the connection, so that a blocked
        receive ends (LinkDown) for a peer that vanished without closing (its host down,
        the network cut). False when the platform does not take the timings."""
        options = [(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
        for name, value in (("TCP_KEEPIDLE", min(max(idle, 1), _KEEPIDLE_MAX)),
                            ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                            ("TCP_KEEPCNT", KEEPALIVE_PROBES)):
            if not hasattr(socket, name):
                return False
            options.append((socket.IPPROTO_TCP, getattr(socket, name), value))
        try:
            for level, option, value in options:
                self.sock.setsockopt(level, option, value)
        except OSError:
            return False
        return True

    def limit(self, max_segment: int) -> None:
        """Accept segments up to ``max_segment`` bytes from now on (the negotiated size)."""
        self.reader.max_segment = max_segment

    def send(self, *segments: Segment) -> None:
        """Send whole segments.

        :raises LinkDown: the connection is gone.
        """
        data = b"".join(encode_segment(seg) for seg in segments)
        self.send_bytes(data)

    def send_bytes(self, data: bytes) -> None:
        """Send bytes already encoded as segments.

        :raises LinkDown: the connection is gone.
        """
        try:
            with self._send_lock:
                self.sock.sendall(data)
        except OSError as exc:
            raise LinkDown(f"send failed: {exc}") from exc
        self.bytes_out += len(data)

    def idle(self) -> bool:
        """Whether nothing read is waiting here (no segment, no part of one, no first
        bytes) and the link is open: the next bytes on the socket are the next segment's,
        so a caller may read them itself and hand back what it does not take
        (:meth:`took`)."""
        return not (self._ready or self._first or self.reader._buf or self.closed)

    def descriptor(self) -> int:
        """The socket's descriptor, made blocking (as :meth:`receive_frame` with no
        timeout leaves it), for a caller that reads and writes it itself while
        :meth:`idle`; -1 when the bytes do not go straight to the socket (TLS: its SSL
        object has them) or it is closed."""
        sock = self.sock
        if type(sock) is not socket.socket or self.closed:
            return -1
        if self._timeout is not None:
            try:
                sock.settimeout(None)
            except OSError:
                return -1
            self._timeout = None
        return sock.fileno()

    def took(self, data: bytes | bytearray, sent: int = 0) -> None:
        """Count ``sent`` bytes a caller sent on the socket itself and take ``data`` it
        read there (while :meth:`idle`) as if this link had read it: its whole segments
        come from the next receives, a part of one waits for the rest.

        :raises FapError: the bytes are not framed as FAP segments.
        """
        self.bytes_out += sent
        if data:
            self.bytes_in += len(data)
            self._ready.extend(self.reader.feed_frames(bytes(data)))

    def receive(self, timeout: float | None) -> Segment:
        """The next segment; wait at most ``timeout`` seconds (None: forever).

        :raises LinkDown: the peer closed, the connection broke, or nothing came in time.
        :raises FapError: the bytes are not FAP segments.
        """
        return self.decode(self.receive_frame(timeout))

    def decode(self, frame: bytes | memoryview) -> Segment:
        """The :class:`Segment` of a frame :meth:`receive_frame` gave.

        :raises FapError: its ByteOrder or segment type is bad: the stream is refused
            from then on (as a bad framing refuses it).
        """
        try:
            return decode_frame(frame)
        except FapError as exc:
            self._ready.clear()
            self.reader.refuse(exc)
            raise

    def receive_frame(self, timeout: float | None) -> bytes | memoryview:
        """The next segment as its bytes (one TSH and its body, StrucId and SegmLength
        checked); wait at most ``timeout`` seconds (None: forever). :meth:`decode` makes
        the :class:`Segment` of it.

        :raises LinkDown: the peer closed, the connection broke, or nothing came in time.
        :raises FapError: the bytes are not framed as FAP segments.
        """
        ready = self._ready
        if ready:
            return ready.popleft()
        if self._first:
            first, self._first = self._first, b""
            self.bytes_in += len(first)
            ready.extend(self.reader.feed_frames(first))
        while not ready:
            try:
                if timeout != self._timeout:  # (a system call: only when it changes)
                    self.sock.settimeout(timeout)
                    self._timeout = timeout
                data = self.sock.recv(_READ)
            except TimeoutError as exc:
                raise LinkDown(f"nothing received for {timeout} seconds") from exc
            except OSError as exc:
                raise LinkDown(f"receive failed: {exc}") from exc
            if not data:
                raise LinkDown("closed by the peer")
            self.bytes_in += len(data)
            frames = self.reader.feed_frames(data)
            if len(frames) == 1:  # (the usual read: one whole segment; none waiting)
                return frames[0]
            ready.extend(frames)
        return ready.popleft()

    def pending(self) -> bool:
        """A segment is already read and waiting."""
        return bool(self._ready)

    def shutdown(self, how: int = socket.SHUT_RDWR) -> None:
        """End the conversation now (a blocked :meth:`receive` returns LinkDown); with
        ``how`` SHUT_RD, its reading side only (what is being sent still goes out). A
        connection ended already is left as it is."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(how)

    def close(self) -> None:
        """Close the socket (idempotent)."""
        if self.closed:
            return
        self.closed = True
        self.shutdown()
        with contextlib.suppress(OSError):
            self.sock.close()
