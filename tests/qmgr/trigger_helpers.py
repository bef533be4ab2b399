"""What the trigger tests share: the INIT.Q environment, the D0 recorder, MQCHAR padding.

The ``system`` and ``env`` fixtures built on these are in ``conftest.py``.
"""

from __future__ import annotations

import threading
import time

import tpfemu
import tpfemu.mqi as pymqi
from ecb import Level
from tpfemu.mq.headers import TM
from tpfemu.mqi import CMQC

QUIET = 0.05  # seconds to wait, after the dispatcher is idle, before "nothing triggered"
INITQ_PRIORITY = 6  # INIT.Q's DEFPRTY: the priority every trigger message must have


def blank(text: str | bytes, length: int) -> bytes:
    """``text`` as an MQCHAR field of ``length`` bytes (blank padded)."""
    raw = text.encode() if isinstance(text, str) else text
    return raw.ljust(length, b" ")


class Env:
    """A running System with a profile, the process APP.PROC (program PRG1) and INIT.Q."""

    def __init__(self, system: tpfemu.System) -> None:
        self.s = system
        self.cat = system.qmgr.catalog
        self.cat.define("PROC", "APP.PROC", applid="PRG1", appltype="TPF",
                        envdata="ENV DATA", userdata="USER DATA")
        self.cat.define("QL", "INIT.Q", defprty=INITQ_PRIORITY)
        self.qm = pymqi.connect(system.name)
        self.monitor: pymqi.Queue | None = None
        self.held: list[pymqi.Queue] = []  # handles kept open for the whole test

    def hold(self, qname: str, options: int, qm: pymqi.QueueManager | None = None) -> pymqi.Queue:
        """Open ``qname`` with ``options`` (on a new connection unless ``qm``), keep it open."""
        q = pymqi.Queue(qm or self.connect(), qname, options)
        self.held.append(q)
        return q

    def input_count(self, qname: str) -> int:
        return self.s.qmgr.queues[qname].input_count

    def app(self, name: str = "APP.Q", **attrs) -> str:
        """Define a triggered application queue (FIRST, INIT.Q, APP.PROC unless overridden)."""
        values = dict(trigger="YES", trigtype="FIRST", initq="INIT.Q", process="APP.PROC",
                      trigdata="TRIGGER DATA")
        values.update(attrs)
        self.cat.define("QL", name, **values)
        return name

    def open_monitor(self) -> pymqi.Queue:
        """Play the trigger monitor: hold INIT.Q open for input, never getting."""
        self.monitor = pymqi.Queue(self.qm, "INIT.Q", CMQC.MQOO_INPUT_SHARED)
        return self.monitor

    def connect(self) -> pymqi.QueueManager:
        return pymqi.connect(self.s.name)

    def put(self, qname: str = "APP.Q", data: bytes = b"message", *, priority: int | None = None,
            syncpoint: bool = False, qm: pymqi.QueueManager | None = None) -> pymqi.MD:
        """MQPUT1 one message; returns its MD as MQPUT1 filled it."""
        md = pymqi.MD()
        if priority is not None:
            md.Priority = priority
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT if syncpoint else CMQC.MQPMO_NO_SYNCPOINT)
        (qm or self.qm).put1(qname, data, md, pmo)
        return md

    def depth(self, qname: str = "INIT.Q") -> int:
        return self.s.qmgr.queues[qname].core.depth

    def quiet(self) -> None:
        """Let anything in flight finish (bounded), so that a zero count means something."""
        assert self.s.dispatcher.wait_idle(2)
        time.sleep(QUIET)

    def assert_put_does_not_trigger(self, qname: str = "APP.Q") -> None:
        """With a monitor holding INIT.Q open, put one message on ``qname``, let the
        system settle, and check that no trigger message arrived."""
        self.open_monitor()
        self.put(qname)
        self.quiet()
        assert self.depth() == 0

    def triggers(self) -> list[tuple[pymqi.MD, TM, int]]:
        """Browse INIT.Q (not destructively, no input open): (MD, MQTM, data length) each."""
        q = pymqi.Queue(self.qm, "INIT.Q", CMQC.MQOO_BROWSE)
        found = []
        options = CMQC.MQGMO_BROWSE_FIRST
        try:
            while True:
                md = pymqi.MD()
                try:
                    data = q.get(None, md, pymqi.GMO(Options=options | CMQC.MQGMO_NO_WAIT))
                except pymqi.MQMIError as exc:
                    assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
                    return found
                found.append((md, TM().unpack(data[:684]), len(data)))
                options = CMQC.MQGMO_BROWSE_NEXT
        finally:
            q.close()

    def trigger_qnames(self) -> list[str]:
        return [bytes(tm.QName).decode().strip() for _md, tm, _n in self.triggers()]


class Recorder:
    """A program that records the D0 block of every entry it is given."""

    def __init__(self) -> None:
        self.blocks: list[bytes] = []
        self._cond = threading.Condition()

    def __call__(self, ecb) -> None:
        block = ecb.block(Level.D0)
        with self._cond:
            self.blocks.append(bytes(block) if block is not None else b"")
            self._cond.notify_all()

    def wait_for(self, count: int, timeout: float = 5.0) -> bool:
        """Wait (bounded) until ``count`` entries were recorded."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self.blocks) >= count, timeout)
