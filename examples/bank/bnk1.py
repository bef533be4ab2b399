"""BNK1: a legacy-style TPF program, the balance inquiry of the demo.

Written as a TPF C program would be: it is started by a trigger with the MQTMC2 on data
level 0, opens the queue the trigger names, gets every request there (MQGET with no
wait), answers each on its ReplyToQ with the request's MsgId as CorrelId, and exits
(EXITC). Account numbers are the request data; the balance is made up from the number.
"""

from __future__ import annotations

import tpfemu.mqi as mqi
from ecb import Ecb, Level
from tpfemu.mq.headers import TMC2
from tpfemu.mqi import CMQC


def balance_of(account: bytes) -> int:
    """A deterministic made-up balance for an account number."""
    return sum(account) * 7 % 10_000


def bnk1(ecb: Ecb) -> None:
    """Serve the balance requests waiting on the queue named by the trigger on D0."""
    block = ecb.block(Level.D0)
    tmc2 = TMC2().unpack(bytes(block[:732]))
    queue_name = bytes(tmc2.QName).strip().decode()
    qmgr_name = bytes(tmc2.QMgrName).strip().decode()
    qm = mqi.connect(qmgr_name)
    requests = mqi.Queue(qm, queue_name, CMQC.MQOO_INPUT_SHARED)
    try:
        while True:
            md = mqi.MD()
            try:
                account = requests.get(None, md)
            except mqi.MQMIError as e:
                if e.reason == CMQC.MQRC_NO_MSG_AVAILABLE:
                    break
                raise
            reply = mqi.MD(MsgType=CMQC.MQMT_REPLY, CorrelId=md.MsgId, Format=CMQC.MQFMT_STRING)
            answer = b"ACCOUNT %s BALANCE %d" % (account, balance_of(account))
            qm.put1(bytes(md.ReplyToQ).strip(), answer, reply)
    finally:
        requests.close()
        qm.disconnect()
    ecb.exitc()


def load(system) -> None:
    """Load the bank's programs on a System."""
    system.programs.load("BNK1", bnk1)
