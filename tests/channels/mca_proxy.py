"""A cutting proxy for channel tests: forwards a channel's TCP connection segment by
segment (TSH framing: the length is bytes 4-8, big-endian) and cuts it at chosen points.

Cut points (``mode``):

``mid``           in the middle of a sender-to-receiver segment (half of it forwarded);
``before_status`` a STATUS from the receiver is dropped, then the connection cut (the
                  receiver committed; the sender is left in doubt);
``after_status``  a STATUS is forwarded, then the connection cut at once (before the
                  sender has committed, as far as timing allows).

Each new connection is armed with a random mode and a random number of segments to let
through first, until ``cuts`` cuts were made; after that the proxy only forwards. With
``record`` (a list) every forwarded segment is appended to it as ``("c2s"|"s2c", bytes)``
just before it is sent on, so the list keeps cause before effect across the two directions
(a recording proxy: what went over the real sockets, for tshark).
"""

from __future__ import annotations

import contextlib
import random
import socket
import struct
import threading

MODES = ("mid", "before_status", "after_status")
_STATUS = 0x05


class CuttingProxy:
    """Listens on 127.0.0.1 (``port``) and forwards to ``target`` (host, port)."""

    def __init__(self, target: tuple[str, int], cuts: int, seed: int = 25,
                 modes: tuple[str, ...] = MODES, record: list | None = None,
                 after: int | None = None) -> None:
        self.target = target
        self.record = record
        self.after = after  # segments let through before cutting (None: random)
        self.cuts_left = cuts
        self.made: list[str] = []
        self.random = random.Random(seed)
        self.modes = modes
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.closing = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.closing = True
        with contextlib.suppress(OSError):
            self.listener.close()

    def _accept(self) -> None:
        while not self.closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                armed = self.cuts_left > 0
                mode = self.random.choice(self.modes) if armed else ""
                after = self.after or self.random.randint(3, 40)
            Conversation(self, client, server, mode, after).start()

    def cut_made(self, mode: str) -> None:
        with self.lock:
            self.cuts_left -= 1
            self.made.append(mode)


def _read_segment(sock: socket.socket) -> bytes:
    head = _exactly(sock, 8)
    length = struct.unpack(">I", head[4:8])[0]
    return head + _exactly(sock, length - 8)


def _exactly(sock: socket.socket, n: int) -> bytes:
    parts, left = [], n
    while left:
        part = sock.recv(left)
        if not part:
            raise ConnectionError("closed")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


class Conversation:
    """One proxied connection: two pumps, one of which may cut."""

    def __init__(self, proxy: CuttingProxy, client: socket.socket, server: socket.socket,
                 mode: str, after: int) -> None:
        self.proxy = proxy
        self.client, self.server = client, server
        self.mode, self.after = mode, after
        self.done = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._pump, args=(self.client, self.server, True),
                         daemon=True).start()
        threading.Thread(target=self._pump, args=(self.server, self.client, False),
                         daemon=True).start()

    def cut(self) -> None:
        if not self.done.is_set():
            self.done.set()
            self.proxy.cut_made(self.mode)
        self.close()

    def close(self) -> None:
        self.done.set()
        for sock in (self.client, self.server):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            with contextlib.suppress(OSError):
                sock.close()

    def _pump(self, src: socket.socket, dst: socket.socket, downstream: bool) -> None:
        seen = 0
        try:
            while not self.done.is_set():
                segment = _read_segment(src)
                seen += 1
                if self._cuts_here(segment, seen, downstream, dst):
                    return
                if self.proxy.record is not None:  # (before it is sent: what the peer
                    # sends in answer is then recorded after it, whichever pump runs first)
                    with self.proxy.lock:
                        self.proxy.record.append(("c2s" if downstream else "s2c", segment))
                dst.sendall(segment)
                if not downstream and self.mode == "after_status" and seen > self.after // 4 \
                        and segment[9] == _STATUS:
                    self.cut()
                    return
        except OSError:
            pass
        self.close()

    def _cuts_here(self, segment: bytes, seen: int, downstream: bool,
                   dst: socket.socket) -> bool:
        if self.mode == "mid" and downstream and seen > self.after and len(segment) > 30:
            dst.sendall(segment[:len(segment) // 2])
            self.cut()
            return True
        if self.mode == "before_status" and not downstream and seen > self.after // 4 \
                and segment[9] == _STATUS:
            self.cut()
            return True
        return False
