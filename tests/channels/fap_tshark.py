"""Test helper: real loopback TCP captures of FAP bytes, written as a pcap and decoded by
Debian's tshark (its MQ dissector is the oracle for our wire format).

* :func:`through_tcp` sends each ``(direction, bytes)`` over a real TCP connection on
  127.0.0.1 and returns what the other end received, in order;
* :func:`write_pcap` writes those byte runs as an Ethernet/IPv4/TCP classic pcap between
  127.0.0.1:client_port and 127.0.0.1:server_port (handshake, sequence and ack numbers,
  checksums 0, one FAP segment a frame, cut at 60,000 bytes);
* :func:`decode` runs ``tshark -r FILE -d tcp.port==PORT,mq -T pdml`` once and returns one
  dict per MQ PDU with the fields asked for, plus every line of the decode for marker
  checks (:func:`bad_markers`);
* :func:`require_tshark` skips (loudly) only when tshark is not installed.
"""

from __future__ import annotations

import re
import shutil
import socket
import struct
import subprocess
import threading
from pathlib import Path
from xml.etree import ElementTree

import pytest

#: Which way a byte run goes: client to server, or server to client.
C2S, S2C = "c2s", "s2c"
_MAX_FRAME = 60_000
#: Words in tshark's verbose output that mean it did not understand something.
BAD_MARKERS = ("Malformed", "Unknown", "unknown", "Expert Info (Error",
               "Expert Info (Warning", "Dissector bug", "Exception occurred")
#: Lines that contain a marker word but are not a complaint: fields the dissector itself
#: names so (the MSH's third field; MQOD's and MQPMO's UnknownDestCount).
FIELD_NAMES = ("Unknown1: ", "Unknown Dest Cnt.: ")
#: tshark 4.0's dissector has no label for STATUS code 0 (OK, the batch confirmation the
#: reference's real captures carry): it prints "Unknown (0)". Tests of STATUS OK allow it.
STATUS_OK_LABEL = "Code..: Unknown (0)"


def require_tshark() -> str:
    """The tshark path; skips the test, saying why, when tshark is not installed."""
    path = shutil.which("tshark")
    if path is None:
        pytest.skip("TSHARK IS NOT INSTALLED: the wire-format oracle cannot run here "
                    "(.ci/run installs it with apt-get; install tshark to run this test)")
    return path


def through_tcp(runs: list[tuple[str, bytes]]) -> tuple[list[tuple[str, bytes]], int, int]:
    """Sends each run over a real loopback TCP connection, in order, from its side; returns
    (the runs as received, the client's port, the server's port)."""
    listener = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(listener.getsockname(), timeout=10)
    server, _ = listener.accept()
    listener.close()
    server.settimeout(10)
    received: list[tuple[str, bytes]] = []
    try:
        for direction, data in runs:
            src, dst = (client, server) if direction == C2S else (server, client)
            sender = threading.Thread(target=src.sendall, args=(data,))
            sender.start()
            got = bytearray()
            while len(got) < len(data):
                chunk = dst.recv(len(data) - len(got))
                if not chunk:
                    raise ConnectionError("loopback connection closed early")
                got += chunk
            sender.join()
            received.append((direction, bytes(got)))
        return received, client.getsockname()[1], server.getsockname()[1]
    finally:
        client.close()
        server.close()


def _frame(src: int, dst: int, seq: int, ack: int, flags: int, payload: bytes) -> bytes:
    tcp = struct.pack(">HHIIBBHHH", src, dst, seq & 0xFFFFFFFF, ack & 0xFFFFFFFF, 5 << 4,
                      flags, 65535, 0, 0)
    total = 20 + len(tcp) + len(payload)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 0, 0x4000, 64, 6, 0,
                     bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]))
    eth = bytes(6) + bytes(6) + b"\x08\x00"
    return eth + ip + tcp + payload


def write_pcap(path: Path, runs: list[tuple[str, bytes]], client_port: int,
               server_port: int) -> Path:
    """Writes ``runs`` as a TCP conversation between the two loopback ports."""
    syn, ack_flag, psh = 0x02, 0x10, 0x08
    seqs = {C2S: 1000, S2C: 5000}
    ports = {C2S: (client_port, server_port), S2C: (server_port, client_port)}
    frames = [_frame(client_port, server_port, seqs[C2S] - 1, 0, syn, b""),
              _frame(server_port, client_port, seqs[S2C] - 1, seqs[C2S], syn | ack_flag, b""),
              _frame(client_port, server_port, seqs[C2S], seqs[S2C], ack_flag, b"")]
    for direction, data in runs:
        other = S2C if direction == C2S else C2S
        src, dst = ports[direction]
        for pdu in pdus_of(data):  # one segment a frame, so fields line up with PDUs
            for start in range(0, len(pdu), _MAX_FRAME):
                piece = pdu[start:start + _MAX_FRAME]
                frames.append(_frame(src, dst, seqs[direction], seqs[other], ack_flag | psh,
                                     piece))
                seqs[direction] += len(piece)
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
    for i, frame in enumerate(frames):
        out += struct.pack("<IIII", 1_700_000_000 + i, 0, len(frame), len(frame)) + frame
    path.write_bytes(bytes(out))
    return path


_HEX_BYTES = re.compile(r"^[0-9a-f]{2}(:[0-9a-f]{2})+$")


def decode(path: Path, port: int, fields: list[str]) -> tuple[list[dict[str, str]], str]:
    """(one dict per MQ PDU with ``mq.tsh.type`` and ``fields``, tshark's verbose text) for
    the pcap at ``path``, with ``tcp.port==port`` decoded as MQ: one tshark run (PDML).
    A field a PDU lacks is ''; a field that occurs twice in one PDU (CapFlag2 and
    ECapFlag2 share names) gives its first. The text holds every line tshark would print
    for the capture (malformed and expert items included)."""
    tshark = require_tshark()
    cmd = [tshark, "-r", str(path), "-d", f"tcp.port=={port},mq", "-T", "pdml"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if done.returncode:
        raise AssertionError(f"tshark failed ({done.returncode}): {done.stderr.strip()}")
    root = ElementTree.fromstring(done.stdout)
    names = ["mq.tsh.type", *fields]
    pdus: list[dict[str, str]] = []
    lines: list[str] = []
    for element in root.iter():
        text = element.get("showname") or element.get("show")
        if text:
            lines.append(text)
        if element.tag == "proto" and element.get("name") == "mq":
            found: dict[str, str] = {}
            for item in element.iter("field"):
                name = item.get("name", "")
                if name in names and name not in found:
                    show = item.get("show", "")
                    found[name] = show.replace(":", "") if _HEX_BYTES.match(show) else show
            pdus.append({name: found.get(name, "") for name in names})
    return pdus, "\n".join(lines)


def bad_markers(verbose: str, allowed: tuple[str, ...] = ()) -> list[str]:
    """The lines of tshark's verbose output that show it did not understand something
    (a line starting with one of :data:`FIELD_NAMES` or ``allowed`` is not counted)."""
    skip = FIELD_NAMES + allowed
    return [line.strip() for line in verbose.splitlines()
            if any(marker in line for marker in BAD_MARKERS)
            and not line.strip().startswith(skip)]


def pdus_of(data: bytes) -> list[bytes]:
    """``data`` cut at TSH boundaries (each piece one segment; a tail that is not a whole
    segment stays one piece)."""
    out, pos = [], 0
    while pos + 8 <= len(data):
        length = struct.unpack_from(">I", data, pos + 4)[0]
        if length < 28 or pos + length > len(data):
            break
        out.append(data[pos:pos + length])
        pos += length
    if pos < len(data):
        out.append(data[pos:])
    return out
