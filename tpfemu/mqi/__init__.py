"""The pymqi-compatible MQI: ``import tpfemu.mqi as pymqi`` runs code written for pymqi.

::

    import tpfemu.mqi as pymqi
    qm = pymqi.connect("TPF1")
    q = pymqi.Queue(qm, "APP.IN")
    q.put(b"hello", pymqi.MD(Priority=5))
    print(q.get())
"""

from tpfemu.errors import MQMIError
from tpfemu.mq.headers import DLH, TM, TMC2, XQH
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.mqi import CMQC
from tpfemu.mqi.api import (
    PYIFError,
    Queue,
    QueueManager,
    connect,
    tx_begin,
    tx_commit,
    tx_rollback,
)

# pymqi's lower-case aliases of the structures
md, gmo, pmo, od = MD, GMO, PMO, OD

__all__ = ["CMQC", "DLH", "GMO", "MD", "MQMIError", "OD", "PMO", "PYIFError", "Queue",
           "QueueManager", "TM", "TMC2", "XQH", "connect", "gmo", "md", "od", "pmo",
           "tx_begin", "tx_commit", "tx_rollback"]
