"""Another processor of the complex, for the shared-queue tests.

``python complex_worker.py HOME CPU get QUEUE``: boot CPU on HOME, print ``READY``, get
every message of QUEUE (in units of work, committed one by one, waiting 1 s for more) and
print each one ``G <data>``, then ``DONE``.

``python complex_worker.py HOME CPU hang QUEUE``: boot, put ``in-doubt-1`` and
``in-doubt-2`` and get one message, all in one unit of work that is never ended, print
``READY`` and wait to be killed.
"""

from __future__ import annotations

import sys
import threading

import tpfemu
import tpfemu.mqi as pymqi
from tpfemu.mqi import CMQC

QMGR = "CPLX"


def main(home: str, cpu: str, mode: str, queue: str) -> None:
    system = tpfemu.System.start(QMGR, home, cpu, journal="off")
    q = pymqi.Queue(pymqi.connect(QMGR), queue, CMQC.MQOO_INPUT_SHARED | CMQC.MQOO_OUTPUT)
    sync = CMQC.MQGMO_SYNCPOINT | CMQC.MQGMO_WAIT
    if mode == "get":
        print("READY", flush=True)
        while True:
            try:
                data = q.get(None, pymqi.MD(), pymqi.GMO(Options=sync, WaitInterval=1000))
            except pymqi.MQMIError as exc:
                assert exc.reason == CMQC.MQRC_NO_MSG_AVAILABLE, exc
                break
            q._qmgr.commit()
            print("G " + data.decode(), flush=True)
        print("DONE", flush=True)
        system.stop()
    elif mode == "hang":
        pmo = pymqi.PMO(Options=CMQC.MQPMO_SYNCPOINT)
        for data in (b"in-doubt-1", b"in-doubt-2"):
            q.put(data, pymqi.MD(Persistence=CMQC.MQPER_PERSISTENT), pmo)
        got = q.get(None, pymqi.MD(), pymqi.GMO(Options=CMQC.MQGMO_SYNCPOINT))
        print("READY " + got.decode(), flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main(*sys.argv[1:5])
