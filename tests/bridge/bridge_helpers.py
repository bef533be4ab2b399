"""Helpers of the ROUTC bridge tests (a module name unique across tests/)."""

from __future__ import annotations

from typing import Any

from ecb import Ecb, Level
from tpfemu import mqi
from tpfemu.bridge import Am0sg, Rcpl
from tpfemu.mq.headers import DLH
from tpfemu.mqi import CMQC

WAIT = 5.0
FAST_CHANNEL = "PARTNER.TO.TPF1"
EBCDIC = "cp037"


def echo_app(prefix: bytes = b"OK ") -> Any:
    """An old-style application: read the AM0SG on D0, answer with ROUTC to the origin."""

    def app(ecb: Ecb) -> None:
        block = ecb.block(Level.D0)
        assert block is not None
        message = Am0sg.unpack(block)
        rcpl = Rcpl.unpack(ecb.ebw[0:16])
        block[:] = Am0sg(prefix + message.text, program=ecb.program).pack()
        ecb.routc(rcpl.reply(), Level.D0)

    return app


def get_all(qm: mqi.QueueManager, queue: str) -> list[tuple[bytes, mqi.MD]]:
    """Every message on ``queue`` (destructive), with its descriptor."""
    q = mqi.Queue(qm, queue, CMQC.MQOO_INPUT_SHARED)
    out = []
    try:
        while True:
            md = mqi.MD()
            out.append((q.get(None, md), md))
    except mqi.MQMIError as exc:
        assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE
    finally:
        q.close()
    return out


def depth(qm: mqi.QueueManager, queue: str) -> int:
    """The current depth of ``queue``."""
    q = mqi.Queue(qm, queue, CMQC.MQOO_INQUIRE)
    try:
        return int(q.inquire(CMQC.MQIA_CURRENT_Q_DEPTH))
    finally:
        q.close()


def dead_letters(qm: mqi.QueueManager) -> list[tuple[DLH, bytes, mqi.MD]]:
    """Every message on the dead-letter queue: its MQDLH, the data after it, its MD."""
    out = []
    for data, md in get_all(qm, "DEAD.LETTER.QUEUE"):
        dlh = DLH().unpack(data[:CMQC.MQDLH_LENGTH_1])
        out.append((dlh, data[CMQC.MQDLH_LENGTH_1:], md))
    return out
