"""A socket fuzzer against the MQS listener (CMQL): 10,000 bad frames — random bytes, a
truncated TSH, wrong lengths, a declared length of 2 GB, unknown segment types, IDs naming
channels that do not exist — over 100 connections, while a real channel runs beside them.
Nothing crashes, memory stays bounded, the real channel keeps delivering, and every bad
connection is closed with a console message."""

from __future__ import annotations

import random
import socket
import struct
import threading
import time

from mca_helpers import drain, ok, put, receiving, sending, start, status, unique, wait_for

from tpfemu.wire.fap import InitialData, Segment, SegmentType, encode_id, encode_segment

#: Good messages sent at most while the attack runs: the channel's traffic meanwhile.
GOOD_MESSAGES = 2000
CONNECTIONS = 100
FRAMES_PER_CONNECTION = 100


def _tsh(length: int, seg_type: int, order: int = 2) -> bytes:
    """A TSH header claiming ``length`` bytes (the body is not included)."""
    return b"TSH " + struct.pack(">I", length) + bytes([order, seg_type, 0x30, 0]) + bytes(8) \
        + struct.pack("<IH2x", 0x222, 819)


def _bad_frames(rng: random.Random, kind: int) -> bytes:
    """FRAMES_PER_CONNECTION bad frames of one kind, pipelined on one connection."""
    frames = []
    for _ in range(FRAMES_PER_CONNECTION):
        if kind == 0:  # random bytes
            frames.append(rng.randbytes(rng.randint(1, 200)))
        elif kind == 1:  # a declared length of 2 GB
            frames.append(_tsh(0x7FFF_FFF0, 0x01))
        elif kind == 2:  # a length shorter than the header
            frames.append(_tsh(rng.randint(0, 27), 0x04))
        elif kind == 3:  # an unknown segment type
            frames.append(_tsh(28, rng.choice([0x00, 0x10, 0x20, 0x7F, 0xFF])))
        elif kind == 4:  # a bad byte order
            frames.append(_tsh(28, 0x09, order=rng.choice([0, 3, 9])))
        elif kind == 5:  # an ID naming a channel that is not defined
            name = f"NO.SUCH.{rng.randint(0, 9999):04d}"
            frames.append(encode_segment(Segment(SegmentType.INITIAL_DATA,
                                                 payload=encode_id(InitialData(name)))))
        else:  # a MESSAGE_DATA before any ID
            frames.append(_tsh(60, 0x04) + rng.randbytes(32))
    return b"".join(frames)


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _attack(port: int, seed: int, count: int, done: list[int]) -> None:
    rng = random.Random(seed)
    for _ in range(count):
        kind = rng.randint(0, 7)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            if kind == 7:  # a truncated TSH, then the end
                sock.sendall(_tsh(28, 0x01)[:rng.randint(1, 20)])
                sock.shutdown(socket.SHUT_WR)
            else:
                try:
                    sock.sendall(_bad_frames(rng, kind))
                except OSError:
                    pass  # closed on us at the first bad frame
            try:
                while sock.recv(65536):
                    pass
            except OSError:
                pass
        done.append(kind)


def test_ten_thousand_bad_frames(tmp_path):
    """No crash, bounded memory, the real channel keeps running, each bad connection is
    closed with a console message."""
    a, b = start(unique("ZA")), start(unique("ZB"))
    try:
        port = receiving(b, ("GOOD",))
        ok(b, "ZINET ALT S-MQS MAXPROC-64")
        ok(b, "ZMQSC DEF QL-LOCAL.Q MAXDEPTH-999999")
        sending(a, "GOOD", port, "XQ")
        ok(a, f"ZMQSC DEF QR-REMOTE.Q RNAME-LOCAL.Q RQMNAME-{b.name} XMITQ-XQ")
        ok(a, "ZMQSC START CHL-GOOD")
        wait_for(lambda: status(a, "GOOD") == "RUNNING", what="the good channel RUNNING")
        before = _rss_kb()
        done: list[int] = []
        threads = [threading.Thread(target=_attack, args=(port, seed, CONNECTIONS // 4, done))
                   for seed in range(4)]
        for thread in threads:
            thread.start()
        sent = 0
        while any(thread.is_alive() for thread in threads):
            if sent < GOOD_MESSAGES:  # (bounded: the queue keeps its slabs, the test RSS)
                put(a.name, "REMOTE.Q", b"good %d" % sent)
                sent += 1
            else:
                time.sleep(0.01)
        for thread in threads:
            thread.join()
        assert len(done) == CONNECTIONS
        got = []
        wait_for(lambda: got.extend(drain(b.name, "LOCAL.Q")) or len(got) == sent,
                 what="every good message delivered")
        assert [d for d, _ in got] == [b"good %d" % i for i in range(sent)]
        assert status(a, "GOOD") == "RUNNING" and status(b, "GOOD") == "RUNNING"
        assert _rss_kb() - before < 100_000, "memory grew by more than 100 MB"
        wait_for(lambda: not b.channels.sessions - {b.channels.receivers.get("GOOD")},
                 what="every bad session ended")
        closed = [line for line in b.log if line.startswith(("CHNL0111E", "CHNL0112W"))
                  or (line.startswith("INET0106I"))]
        assert len(closed) >= CONNECTIONS, f"{len(closed)} console messages for " \
                                           f"{CONNECTIONS} bad connections"
        assert b.running and b.inetd.servers["MQS"].running
    finally:
        a.stop()
        b.stop()
