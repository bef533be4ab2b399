"""Helpers for the message channel agent tests: two Systems joined by channels."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

import tpfemu
from tpfemu import mqi
from tpfemu.mqi import CMQC

_ids = itertools.count(1)


def ok(system, command: str) -> str:
    """Run a console command that must not be refused; return its response."""
    response = system.console(command)
    refused = [line for line in response.splitlines() if line.split()[0].endswith("E")]
    assert not refused, f"{command!r} was refused:\n{response}"
    return response


def wait_for(check: Callable[[], object], timeout: float = 10.0, what: str = "") -> object:
    """Poll ``check`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or check}")
        time.sleep(0.02)


def receiving(system, channels: tuple[str, ...] = (), *, speed: str = "NORMAL") -> int:
    """Set up ``system`` to receive: the MQS server on a free port (AOR, CMQL) and receiver
    channels; returns the port."""
    ok(system, "ZINET ADD S-MQS P-TCP MODEL-AOR PORT-0 PGM-CMQL AORL-8 IP-127.0.0.1")
    ok(system, "ZINET START S-MQS")
    for name in channels:
        ok(system, f"ZMQSC DEF CHL-{name} CHLTYPE-RCVR SPEED-{speed}")
    return system.inetd.servers["MQS"].port


def sending(system, channel: str, port: int, xmitq: str, *, speed: str = "NORMAL",
            batchsz: int = 50, extra: str = "SHORTTMR-0") -> None:
    """Define transmission queue ``xmitq`` (if need be) and sender ``channel`` to
    127.0.0.1(port), with ``extra`` keywords (retrying at once by default)."""
    if system.qmgr.catalog.find_queue(xmitq) is None:
        ok(system, f"ZMQSC DEF QL-{xmitq} USAGE-XMITQ")
    ok(system, f"ZMQSC DEF CHL-{channel} CHLTYPE-SDR CONNAME-'127.0.0.1({port})' "
               f"XMITQ-{xmitq} SPEED-{speed} BATCHSZ-{batchsz} {extra}")


def start(name: str, home=None) -> tpfemu.System:
    """A started System with its profile defined."""
    system = tpfemu.System.start(name=name, home=home)
    ok(system, "ZMQSC DEF MQP")
    return system


def unique(prefix: str) -> str:
    """A queue manager name no other test in this process uses."""
    return f"{prefix}{next(_ids)}"


def put(qmgr: str, queue: str, data: bytes, qmgr_name: str = "", **md_fields) -> mqi.MD:
    """MQPUT1 ``data`` to ``queue`` (at ``qmgr_name``) on ``qmgr``; returns the MD."""
    qm = mqi.connect(qmgr)
    try:
        md = mqi.MD(**md_fields)
        od = mqi.OD(ObjectName=queue.encode(), ObjectQMgrName=qmgr_name.encode())
        qm.put1(od, data, md)
        return md
    finally:
        qm.disconnect()


def get(qmgr: str, queue: str, wait: float = 10.0) -> tuple[bytes, mqi.MD]:
    """MQGET one message from ``queue``, waiting up to ``wait`` seconds."""
    qm = mqi.connect(qmgr)
    try:
        md = mqi.MD()
        gmo = mqi.GMO(Options=CMQC.MQGMO_WAIT, WaitInterval=int(wait * 1000))
        data = mqi.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF).get(None, md, gmo)
        return data, md
    finally:
        qm.disconnect()


def drain(qmgr: str, queue: str, wait: float = 0.0) -> list[tuple[bytes, mqi.MD]]:
    """Every message on ``queue`` (the first waited for up to ``wait`` seconds)."""
    qm = mqi.connect(qmgr)
    out = []
    try:
        q = mqi.Queue(qm, queue, CMQC.MQOO_INPUT_AS_Q_DEF)
        while True:
            md = mqi.MD()
            options = CMQC.MQGMO_WAIT if wait and not out else CMQC.MQGMO_NO_WAIT
            gmo = mqi.GMO(Options=options, WaitInterval=int(wait * 1000))
            try:
                out.append((q.get(None, md, gmo), md))
            except mqi.MQMIError as exc:
                if exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    return out
                raise
    finally:
        qm.disconnect()


def depth(system, queue: str) -> int:
    """The current depth of a local queue."""
    return system.qmgr.local_queue(queue).core.depth


def status(system, channel: str) -> str:
    """The channel's STATUS as DISP CHL shows it."""
    return system.channels.status(channel).state
