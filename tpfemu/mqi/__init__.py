"""The pymqi-compatible MQI: ``import tpfemu.mqi as pymqi`` runs code written for pymqi.

::

    import tpfemu.mqi as pymqi
    qm = pymqi.connect("TPF1")
    q = pymqi.Queue(qm, "APP.IN")
    q.put(b"hello", pymqi.MD(Priority=5))
    print(q.get())

Client programs construct pymqi's client names too (``CD``, ``SCO``, ``CSP``, ``CNO``,
``CMQXC``, ``connect_with_options``); where a connection goes is decided in one place,
:mod:`tpfemu.mqi.binding`. ``CMQSTRC`` maps constants back to their names.
"""

from tpfemu.errors import MQMIError
from tpfemu.errors import TpfEmuError as Error
from tpfemu.mq.connstructs import CD, CNO, CSP, SCO
from tpfemu.mq.headers import DLH, TM, TMC2, XQH
from tpfemu.mq.structs import GMO, MD, OD, PMO
from tpfemu.mqi import CMQC, CMQSTRC, CMQXC
from tpfemu.mqi.api import (
    NotConnected,
    PYIFError,
    Queue,
    QueueManager,
    connect,
    tx_begin,
    tx_commit,
    tx_rollback,
)

# pymqi's lower-case aliases of the structures
md, gmo, pmo, od, cd, sco = MD, GMO, PMO, OD, CD, SCO

__all__ = ["CD", "CMQC", "CMQSTRC", "CMQXC", "CNO", "CSP", "DLH", "Error", "GMO", "MD",
           "MQMIError", "NotConnected", "OD", "PMO", "PYIFError", "Queue", "QueueManager",
           "SCO", "TM", "TMC2", "XQH", "cd", "connect", "gmo", "md", "od", "pmo", "sco",
           "tx_begin", "tx_commit", "tx_rollback"]

# The TCP client (issue 26, tpfemu.mqi.client, on the wire format of tpfemu.wire):
# installed here, where every pymqi program starts, as the transport of client
# connections (tpfemu.mqi.binding).
from tpfemu.mqi import binding as _binding  # noqa: E402
from tpfemu.mqi.client import TcpTransport as _TcpTransport  # noqa: E402

if _binding.current_transport() is None:
    _binding.install_transport(_TcpTransport())
